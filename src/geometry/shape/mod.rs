//! Collision shapes in a body's local frame: circles and convex, optionally rounded, polygons.
//! Capsules and segments are two-vertex polygons (a segment's core with or without rounding),
//! so every routine that handles polygons handles them, with a few two-vertex cases where a
//! segment has no inside.
//!
//! Shapes are valid by construction: every constructor checks its input and returns
//! [`Error::InvalidShape`] for what cannot be simulated, and the fields are private, so the rest
//! of the engine never meets a degenerate shape. The checks live in `validate` methods that the
//! constructors run on what they built: one definition of the limits, applied to the very floats
//! that will be simulated.
//!
//! This file holds the shape types, their limits and accessors; the constructors
//! (`construct`), the checks (`validate`), the convex hull (`hull`), mass properties (`mass`),
//! boxes and extents (`bounds`) and the snapshot form (`codec`) each have their file.

mod bounds;
mod codec;
mod construct;
mod hull;
mod mass;
mod validate;

pub(crate) use bounds::{box_shape, BoxHull, LocalBox, BOX_NORMALS};

use crate::geometry::math::Vec2;
use crate::Error;

/// Most vertices a polygon may have. Fixed so polygons are `Copy` and narrowphase never allocates.
pub const MAX_POLYGON_VERTICES: usize = 8;

/// Collision tolerance in metres: features closer than a fraction of this are not worth keeping
/// apart, because the solver lets shapes overlap by about this much anyway.
pub(crate) const LINEAR_SLOP: f32 = 0.005;

/// Hull points closer than this are welded into one, so no polygon edge is too short for a
/// stable normal.
pub(crate) const WELD_DISTANCE: f32 = 0.5 * LINEAR_SLOP;

/// A solid disc.
///
/// Its fields are private, so that every circle comes from [`Circle::new`] (or
/// [`Shape::circle`], [`Shape::circle_at`]) with a finite centre and a finite positive radius.
/// Read it through the accessors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    /// Centre in the body frame.
    pub(crate) center: Vec2,
    /// Radius in metres, finite and > 0.
    pub(crate) radius: f32,
}

/// A convex polygon, optionally rounded: the set of points within [`Polygon::radius`] of the
/// convex hull of [`Polygon::vertices`]. With two vertices it is a capsule (`radius > 0`) or a
/// segment (`radius == 0`): its two "edges" run there and back, with opposite normals.
///
/// Its fields are private, so that every polygon comes from [`Polygon::new`] or a [`Shape`]
/// constructor and holds 2 to [`MAX_POLYGON_VERTICES`] vertices with their normals: a
/// hand-built vertex count out of that range would index past the arrays or divide by a zero
/// area. Read it through the accessors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Polygon {
    /// Vertices in the body frame, counter-clockwise; only the first `count` are used.
    pub(crate) vertices: [Vec2; MAX_POLYGON_VERTICES],
    /// `normals[i]` is the outward unit normal of the edge from vertex `i` to vertex `i + 1`.
    pub(crate) normals: [Vec2; MAX_POLYGON_VERTICES],
    /// Number of vertices in use: 2 for a capsule or segment, else 3..=[`MAX_POLYGON_VERTICES`].
    pub(crate) count: usize,
    /// Area centroid of the sharp core polygon (rounding excluded), body frame; the midpoint
    /// for two vertices.
    pub(crate) centroid: Vec2,
    /// Rounding radius; 0 for sharp corners.
    pub(crate) radius: f32,
    /// The neighbours of a chain segment ([`Shape::chain_segment`]); `None` for every other
    /// polygon.
    pub(crate) chain: Option<ChainGhosts>,
}

/// The ghost vertices of a chain segment `p1 -> p2`: the chain's points just before `p1` and
/// just after `p2`, `None` at a free end of an open chain. They let the narrowphase tell a
/// contact with the segment's own face from one that belongs to a neighbour (see
/// [`Shape::chain_segment`]).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainGhosts {
    /// The point before `p1`, or `None` when `p1` ends the chain.
    pub prev: Option<Vec2>,
    /// The point after `p2`, or `None` when `p2` ends the chain.
    pub next: Option<Vec2>,
}

/// A collision shape attached to a body. With the `serde` feature it is `Serialize` and
/// `Deserialize` (see `shape_serde.rs`), checked on the way in.
#[derive(Debug, PartialEq)]
pub enum Shape {
    /// A disc.
    Circle(Circle),
    /// A convex, optionally rounded, polygon. Boxed: kept inline, its vertices made every
    /// shape 150 bytes, and the per-body passes over shapes (bounding boxes, the narrowphase
    /// of a pile of circles) read three times the memory they use.
    Polygon(Box<Polygon>),
}

impl Clone for Shape {
    fn clone(&self) -> Shape {
        match self {
            Shape::Circle(circle) => Shape::Circle(*circle),
            Shape::Polygon(polygon) => Shape::Polygon(polygon.clone()),
        }
    }

    /// Copies a polygon into this shape's own box when both are polygons, so that restoring a
    /// snapshot of a pile of boxes into a world of boxes allocates nothing per body.
    fn clone_from(&mut self, source: &Shape) {
        match (self, source) {
            (Shape::Polygon(mine), Shape::Polygon(theirs)) => **mine = **theirs,
            (me, _) => *me = source.clone(),
        }
    }
}

/// Mass properties of a shape for a given density.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MassData {
    /// Mass in kilograms.
    pub mass: f32,
    /// Centre of mass in the body frame.
    pub center: Vec2,
    /// Rotational inertia about `center`.
    pub rotational_inertia: f32,
}

/// Most shapes one body may have (65536): see
/// [`World::add_compound_body`](crate::World::add_compound_body). A contact is keyed by its
/// two bodies and the pair of their shapes it joins, the two shape indices packed into one
/// 32-bit word (16 bits each) so that the key of every contact, compound or not, stays as
/// small as it is for one-shape bodies; the bound is what fits in 16 bits. The work a pair of
/// bodies costs does not grow with it: a compound finds its shapes near the other body in a
/// tree of their boxes.
pub const MAX_COMPOUND_SHAPES: usize = 1 << 16;

impl Shape {
    /// A unit circle on the body origin, for the shape columns' slots that hold no body.
    pub(crate) const UNIT_CIRCLE: Shape = Shape::Circle(Circle {
        center: Vec2::ZERO,
        radius: 1.0,
    });

    /// The ghost vertices of a [`Shape::chain_segment`]; `None` for every other shape.
    pub fn chain_ghosts(&self) -> Option<ChainGhosts> {
        match self {
            Shape::Polygon(p) => p.chain,
            Shape::Circle(_) => None,
        }
    }

    /// True for a [`Shape::segment`] or [`Shape::chain_segment`]: no area, so no mass.
    pub fn is_segment(&self) -> bool {
        matches!(self, Shape::Polygon(p) if p.count == 2 && p.radius == 0.0)
    }
}

impl Circle {
    /// Centre in the body frame (m).
    pub fn center(&self) -> Vec2 {
        self.center
    }

    /// Radius in metres, finite and > 0.
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

impl Polygon {
    /// The vertices in the body frame, counter-clockwise: 2 for a capsule or segment, else 3
    /// to [`MAX_POLYGON_VERTICES`].
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices[..self.count]
    }

    /// `normals()[i]` is the outward unit normal of the edge from vertex `i` to vertex `i + 1`
    /// (wrapping round); a capsule or segment has two, opposite.
    pub fn normals(&self) -> &[Vec2] {
        &self.normals[..self.count]
    }

    /// Area centroid of the sharp core polygon (rounding excluded), in the body frame; the
    /// midpoint for two vertices.
    pub fn centroid(&self) -> Vec2 {
        self.centroid
    }

    /// Rounding radius; 0 for sharp corners.
    pub fn radius(&self) -> f32 {
        self.radius
    }
}

/// Index after `i` in a cyclic sequence of `n` (polygon vertices and edges).
#[inline]
pub(crate) fn next_index(i: usize, n: usize) -> usize {
    if i + 1 == n {
        0
    } else {
        i + 1
    }
}

fn invalid(reason: String) -> Error {
    Error::InvalidShape(reason)
}

/// `Vec2::new`, short, for the tests of the shape files.
#[cfg(test)]
fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}
