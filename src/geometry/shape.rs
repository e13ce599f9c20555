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

use crate::codec::{invalid as invalid_snapshot, Codec, Reader, Writer};
use crate::geometry::math::{Aabb, Rot, Transform, Vec2};
use crate::Error;
use std::cmp::Ordering;
use std::f32::consts::PI;

/// Most vertices a polygon may have. Fixed so polygons are `Copy` and narrowphase never allocates.
pub const MAX_POLYGON_VERTICES: usize = 8;

/// Collision tolerance in metres: features closer than a fraction of this are not worth keeping
/// apart, because the solver lets shapes overlap by about this much anyway.
pub(crate) const LINEAR_SLOP: f32 = 0.005;

/// Hull points closer than this are welded into one, so no polygon edge is too short for a
/// stable normal.
pub(crate) const WELD_DISTANCE: f32 = 0.5 * LINEAR_SLOP;

/// A hull vertex closer than this to the line through its neighbours is dropped as collinear:
/// it would add an edge whose normal barely differs from its neighbours' and flickers in SAT.
const COLLINEAR_DISTANCE: f32 = 0.5 * LINEAR_SLOP;

/// Largest accepted gap between a stored normal and the unit normal computed from its edge.
/// Loose enough for normals rotated by `Rot::from_angle`, tight enough to catch a wrong winding.
const NORMAL_TOLERANCE: f32 = 1.0e-4;

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

impl MassData {
    /// The mass data of a rigid union of parts, each given about its own centre of mass in one
    /// common frame (a compound body's shapes in the body frame).
    ///
    /// The mass is the sum of the parts' masses; the centre of mass is their mass-weighted
    /// mean, `C = Σ (m_i / M) c_i`; the rotational inertia about `C` follows from the
    /// parallel-axis theorem, `I = Σ (I_i + m_i |c_i - C|²)`. With weights `m_i / M` a single
    /// part comes back unchanged, bit for bit. When the total mass is 0 (shapes of density 0
    /// on a static or kinematic body) the centre is the plain mean of the parts' centres and the
    /// inertia 0. An empty slice gives `MassData::default()`.
    ///
    /// ```
    /// use batch2d::{MassData, Shape, Vec2};
    ///
    /// // A dumbbell: two unit discs 2 m either side of the origin.
    /// let left = Shape::circle_at(Vec2::new(-2.0, 0.0), 1.0)?.mass_data(1.0);
    /// let right = Shape::circle_at(Vec2::new(2.0, 0.0), 1.0)?.mass_data(1.0);
    /// let both = MassData::combine(&[left, right]);
    /// assert_eq!(both.center, Vec2::ZERO);
    /// let expected = 2.0 * (left.rotational_inertia + left.mass * 4.0);
    /// assert!((both.rotational_inertia - expected).abs() <= 1e-5 * expected);
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn combine(parts: &[MassData]) -> MassData {
        let mass: f32 = parts.iter().map(|p| p.mass).sum();
        let center = if mass > 0.0 {
            parts
                .iter()
                .fold(Vec2::ZERO, |sum, p| sum + p.center * (p.mass / mass))
        } else if parts.is_empty() {
            Vec2::ZERO
        } else {
            let sum = parts.iter().fold(Vec2::ZERO, |sum, p| sum + p.center);
            sum * (1.0 / parts.len() as f32)
        };
        let rotational_inertia = parts
            .iter()
            .map(|p| p.rotational_inertia + p.mass * (p.center - center).length_squared())
            .sum();
        MassData {
            mass,
            center,
            rotational_inertia,
        }
    }
}

impl Shape {
    /// A unit circle on the body origin, for the shape columns' slots that hold no body.
    pub(crate) const UNIT_CIRCLE: Shape = Shape::Circle(Circle {
        center: Vec2::ZERO,
        radius: 1.0,
    });

    /// A circle of `radius` metres centred on the body origin.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when `radius` is not finite and > 0.
    pub fn circle(radius: f32) -> Result<Shape, Error> {
        Shape::circle_at(Vec2::ZERO, radius)
    }

    /// A circle of `radius` metres centred at `center` (m) in the body frame.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when `center` is not finite or `radius` is not finite and > 0.
    pub fn circle_at(center: Vec2, radius: f32) -> Result<Shape, Error> {
        Circle::new(center, radius).map(Shape::Circle)
    }

    /// An axis-aligned box of half extents `half_width` x `half_height` (m) centred on the body
    /// origin, vertices counter-clockwise from `(-half_width, -half_height)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when a half extent is not finite and > 0, or the box is too
    /// small or too large for f32 to give it a positive, finite area.
    pub fn rect(half_width: f32, half_height: f32) -> Result<Shape, Error> {
        checked_box(half_width, half_height, Transform::IDENTITY)
    }

    /// A box of half extents `half_width` x `half_height` (m) centred at `center` (m) in the
    /// body frame and rotated by `angle` radians.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when a half extent is not finite and > 0, `center` or `angle` is
    /// not finite, or the placed box's corners round to a degenerate or infinite polygon in
    /// f32.
    pub fn offset_rect(
        half_width: f32,
        half_height: f32,
        center: Vec2,
        angle: f32,
    ) -> Result<Shape, Error> {
        let xf = Transform::new(center, Rot::from_angle(angle));
        checked_box(half_width, half_height, xf)
    }

    /// A capsule: the points within `radius` metres of the segment `p1 -> p2` (body frame, m).
    /// Its mass is that of a `|p2 - p1| x 2 radius` rectangle plus a disc. Radius 0 makes it a
    /// [`Shape::segment`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] for a non-finite point or radius, a negative radius, or ends
    /// less than 2.5 mm apart (coincident ends included): such a capsule is a circle.
    pub fn capsule(p1: Vec2, p2: Vec2, radius: f32) -> Result<Shape, Error> {
        let capsule = Polygon::two_vertex(p1, p2, radius);
        capsule.validate_two_vertex()?;
        Ok(Shape::Polygon(Box::new(capsule)))
    }

    /// A segment `p1 -> p2` (body frame, m) without thickness, for static terrain: it has no
    /// area and so no mass, and only static and kinematic bodies may use it (`Err` on a dynamic
    /// body). Both sides collide.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] for a non-finite point or ends less than 2.5 mm apart.
    pub fn segment(p1: Vec2, p2: Vec2) -> Result<Shape, Error> {
        Shape::capsule(p1, p2, 0.0)
    }

    /// A one-sided segment `p1 -> p2` of a chain, which knows its neighbours: `prev`, the
    /// chain's point before `p1`, and `next`, the point after `p2` (`None` at a free end).
    /// [`World::add_segment_chain`](crate::World::add_segment_chain) and
    /// [`World::add_segment_loop`](crate::World::add_segment_loop) build these for you.
    ///
    /// It collides only from its front, the **left** of `p1 -> p2` (the normal is `p2 - p1`
    /// turned a quarter counter-clockwise): terrain listed from left to right is solid below
    /// and walked on from above. (Box2D's chains collide on the right; list the points the
    /// other way round when porting.) A body whose centre is behind the segment's line passes
    /// through it. Against circles, capsules and polygons a contact whose normal leans into a
    /// neighbour's region is dropped or replaced by one along the segment's own normal, so a
    /// body sliding or rolling across a join meets one smooth surface and never catches on
    /// the next segment's end. Like [`Shape::segment`] it has no mass and only static and
    /// kinematic bodies may carry it. Queries, sensors and continuous collision keep the same
    /// rule: a ray or shape cast meeting its back passes through (and a shape cast meets only
    /// the normals the segment owns), and an overlap query, a sensor or a fast body's sweep
    /// sees it only when the other shape's centre is not behind its line.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] for a non-finite point, ends less than 2.5 mm apart, or a ghost
    /// less than 2.5 mm from the end it neighbours.
    pub fn chain_segment(
        prev: Option<Vec2>,
        p1: Vec2,
        p2: Vec2,
        next: Option<Vec2>,
    ) -> Result<Shape, Error> {
        let mut segment = Polygon::two_vertex(p1, p2, 0.0);
        segment.validate_two_vertex()?;
        for (ghost, end) in [(prev, p1), (next, p2)] {
            let Some(ghost) = ghost else { continue };
            let gap = (ghost - end).length();
            if !ghost.is_finite() || !gap.is_finite() || gap < WELD_DISTANCE {
                return Err(invalid(format!(
                    "a chain segment's ghost vertex {ghost:?} must be finite and at least \
                     {WELD_DISTANCE} m from its end {end:?}"
                )));
            }
        }
        segment.chain = Some(ChainGhosts { prev, next });
        Ok(Shape::Polygon(Box::new(segment)))
    }

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

    /// The convex hull of `points` as a sharp polygon. See [`Shape::rounded_polygon`].
    ///
    /// A concave outline is filled in to its hull, silently: cut it into
    /// convex pieces with [`Shape::decompose`] and make a compound body of them instead.
    pub fn polygon(points: &[Vec2]) -> Result<Shape, Error> {
        Shape::rounded_polygon(points, 0.0)
    }

    /// The convex hull of `points`, rounded by `radius` (0 for sharp corners).
    ///
    /// Points closer than 2.5 mm are welded and vertices (nearly) on the line through their
    /// neighbours are dropped. Fails with [`Error::InvalidShape`] for fewer than 3 points,
    /// non-finite input, a negative radius, fewer than 3 distinct points, collinear points, or
    /// a hull with more than [`MAX_POLYGON_VERTICES`] vertices.
    pub fn rounded_polygon(points: &[Vec2], radius: f32) -> Result<Shape, Error> {
        Polygon::new(points, radius).map(|p| Shape::Polygon(Box::new(p)))
    }

    /// Mass, centre of mass and rotational inertia for `density` (kg/m², assumed >= 0).
    ///
    /// Rounded polygons are integrated exactly, rounding included: core polygon, plus an
    /// `edge x radius` strip on every edge, plus a circular sector at every corner.
    pub fn mass_data(&self, density: f32) -> MassData {
        match self {
            Shape::Circle(circle) => circle.mass_data(density),
            Shape::Polygon(polygon) => polygon.mass_data(density),
        }
    }

    /// Farthest distance from `point` (body frame) to any point of the shape.
    pub(crate) fn reach_from(&self, point: Vec2) -> f32 {
        match self {
            Shape::Circle(c) => (c.center - point).length() + c.radius,
            Shape::Polygon(p) => {
                let far = p.vertices[..p.count]
                    .iter()
                    .map(|&v| (v - point).length())
                    .fold(0.0, f32::max);
                far + p.radius
            }
        }
    }

    /// The smallest width of the shape over all directions: a circle's diameter; for a polygon,
    /// the narrowest of its widths across its edge normals (where the minimum width of a convex
    /// polygon is always found), plus the rounding on both sides.
    pub(crate) fn smallest_extent(&self) -> f32 {
        match self {
            Shape::Circle(c) => 2.0 * c.radius,
            Shape::Polygon(p) => {
                let vertices = &p.vertices[..p.count];
                let width = |i: usize| {
                    vertices
                        .iter()
                        .map(|&v| p.normals[i].dot(vertices[i] - v))
                        .fold(0.0, f32::max)
                };
                (0..p.count).map(width).fold(f32::MAX, f32::min) + 2.0 * p.radius
            }
        }
    }

    /// The tight world box of the shape when its body origin is placed by `xf`, rounding
    /// radius included.
    #[inline(always)]
    pub fn aabb(&self, xf: Transform) -> Aabb {
        match self {
            Shape::Circle(circle) => circle.aabb(xf),
            Shape::Polygon(polygon) => polygon.aabb(xf),
        }
    }

    /// The broadphase box of the shape placed by `xf`: its tight box grown by `grow` on every
    /// side, then stretched along `motion` so that a moving body's box covers its path
    /// through the step.
    pub(crate) fn swept_aabb(&self, xf: Transform, grow: f32, motion: Vec2) -> Aabb {
        swept(self.aabb(xf), grow, motion)
    }
}

/// A tight box grown by `grow` on every side, then stretched along `motion`.
fn swept(tight: Aabb, grow: f32, motion: Vec2) -> Aabb {
    let grown = tight.fattened(grow);
    Aabb::new(
        grown.min + motion.min(Vec2::ZERO),
        grown.max + motion.max(Vec2::ZERO),
    )
}

/// A rectangle whose edges are parallel to its body's axes (a box, the commonest shape),
/// rounding radius included: its world box follows from the rotation alone, without the
/// shape's vertices. The bodies' boxes are recomputed every step, and reading each body's
/// whole shape for them cost more than the arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LocalBox {
    /// Centre in the body frame.
    center: Vec2,
    /// Half the width and height, rounding excluded.
    half: Vec2,
    radius: f32,
    /// Whether the polygon is exactly [`LocalBox::hull`], bit for bit and in its order.
    exact: bool,
}

/// A rectangle's vertices and edge normals in the order of a polygon's: see [`LocalBox::hull`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoxHull {
    pub vertices: [Vec2; 4],
    pub normals: [Vec2; 4],
    pub radius: f32,
}

/// The outward normals of a rectangle's edges, from its lower left corner on.
const BOX_NORMALS: [Vec2; 4] = [
    Vec2::new(0.0, -1.0),
    Vec2::new(1.0, 0.0),
    Vec2::new(0.0, 1.0),
    Vec2::new(-1.0, 0.0),
];

impl LocalBox {
    /// The shape's box if it is such a rectangle; `None` for any other shape.
    pub fn of(shape: &Shape) -> Option<LocalBox> {
        let Shape::Polygon(polygon) = shape else {
            return None;
        };
        let normals = &polygon.normals[..polygon.count];
        if polygon.count != 4 || !normals.iter().all(|n| n.x == 0.0 || n.y == 0.0) {
            return None;
        }
        let vertices = polygon.vertices();
        let lower = vertices.iter().fold(vertices[0], |m, &v| m.min(v));
        let upper = vertices.iter().fold(vertices[0], |m, &v| m.max(v));
        let mut local = LocalBox {
            center: (lower + upper) * 0.5,
            half: (upper - lower) * 0.5,
            radius: polygon.radius,
            exact: false,
        };
        let same = |p: &[Vec2], q: &[Vec2]| {
            let bits = |v: &Vec2| (v.x.to_bits(), v.y.to_bits());
            p.iter().map(bits).eq(q.iter().map(bits))
        };
        local.exact = same(vertices, &local.corners()) && same(normals, &BOX_NORMALS);
        Some(local)
    }

    /// The rectangle's vertices (counter-clockwise from the lower left corner), edge normals
    /// and radius, if they are exactly its polygon's: a box made by [`Shape::rect`], or by an
    /// unturned [`Shape::offset_rect`] whose centre and half extents give its corners back. A
    /// collide can then build the hull from the body's columns and give the same bits without
    /// reading the polygon, which lives apart from them.
    pub fn hull(&self) -> Option<BoxHull> {
        self.exact.then(|| BoxHull {
            vertices: self.corners(),
            normals: BOX_NORMALS,
            radius: self.radius,
        })
    }

    fn corners(&self) -> [Vec2; 4] {
        let (c, h) = (self.center, self.half);
        [
            Vec2::new(c.x - h.x, c.y - h.y),
            Vec2::new(c.x + h.x, c.y - h.y),
            Vec2::new(c.x + h.x, c.y + h.y),
            Vec2::new(c.x - h.x, c.y + h.y),
        ]
    }

    /// [`Shape::aabb`] of the rectangle (equal up to rounding): the rotated half extents
    /// projected on the world axes.
    #[inline(always)]
    pub fn aabb(&self, xf: Transform) -> Aabb {
        let center = xf.apply(self.center);
        let (c, s) = (xf.q.c.abs(), xf.q.s.abs());
        let (hx, hy) = (self.half.x, self.half.y);
        let extent = Vec2::new(c * hx + s * hy, s * hx + c * hy);
        Aabb::new(center - extent, center + extent).fattened(self.radius)
    }

    /// [`Shape::swept_aabb`] of the rectangle.
    #[inline(always)]
    pub fn swept_aabb(&self, xf: Transform, grow: f32, motion: Vec2) -> Aabb {
        swept(self.aabb(xf), grow, motion)
    }
}

impl Circle {
    /// A disc of `radius` metres centred at `center` (m) in the body frame: the checked
    /// constructor behind [`Shape::circle_at`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when `center` is not finite or `radius` is not finite and > 0.
    pub fn new(center: Vec2, radius: f32) -> Result<Circle, Error> {
        let circle = Circle { center, radius };
        circle.validate()?;
        Ok(circle)
    }

    /// Centre in the body frame (m).
    pub fn center(&self) -> Vec2 {
        self.center
    }

    /// Radius in metres, finite and > 0.
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// `Ok` when the circle can be simulated: a finite centre and a finite radius > 0.
    fn validate(&self) -> Result<(), Error> {
        if !self.center.is_finite() {
            return Err(invalid(format!(
                "circle center must be finite, got {:?}",
                self.center
            )));
        }
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err(invalid(format!(
                "circle radius must be finite and > 0, got {}",
                self.radius
            )));
        }
        Ok(())
    }

    fn mass_data(&self, density: f32) -> MassData {
        let rr = self.radius * self.radius;
        let mass = density * PI * rr;
        MassData {
            mass,
            center: self.center,
            rotational_inertia: 0.5 * mass * rr,
        }
    }

    fn aabb(&self, xf: Transform) -> Aabb {
        let p = xf.apply(self.center);
        let r = Vec2::new(self.radius, self.radius);
        Aabb::new(p - r, p + r)
    }
}

impl Polygon {
    /// The convex hull of `points` (body frame, m), rounded by `radius` metres (0 for sharp
    /// corners): the checked constructor behind [`Shape::rounded_polygon`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] in the cases listed by [`Shape::rounded_polygon`].
    pub fn new(points: &[Vec2], radius: f32) -> Result<Polygon, Error> {
        if !(radius.is_finite() && radius >= 0.0) {
            return Err(invalid(format!(
                "polygon radius must be finite and >= 0, got {radius}"
            )));
        }
        let hull = convex_hull(points)?;
        let polygon = Polygon::from_ccw_vertices(&hull, radius);
        // The hull is clean by construction; this catches what floating point could still
        // produce (overflowing coordinates, an area that rounds to zero).
        polygon.validate()?;
        Ok(polygon)
    }

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

    /// Builds a polygon from vertices already known to be strictly convex and counter-clockwise
    /// (at most [`MAX_POLYGON_VERTICES`]), computing normals and centroid.
    fn from_ccw_vertices(points: &[Vec2], radius: f32) -> Polygon {
        let count = points.len();
        let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        vertices[..count].copy_from_slice(points);
        let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        for (i, normal) in normals[..count].iter_mut().enumerate() {
            let edge = vertices[next_index(i, count)] - vertices[i];
            // A zero edge cannot come out of the hull (points are welded); if it did, the zero
            // normal makes `validate` reject the polygon instead of panicking here.
            *normal = edge.right_perp().normalized().unwrap_or(Vec2::ZERO);
        }
        let mut polygon = Polygon {
            vertices,
            normals,
            count,
            centroid: Vec2::ZERO,
            radius,
            chain: None,
        };
        polygon.centroid = polygon.core_moments().centroid();
        polygon
    }

    /// A capsule (`radius > 0`) or segment (`radius == 0`) from `p1` to `p2`: edge 0 runs
    /// `p1 -> p2` with the normal on its right, edge 1 runs back with the opposite normal.
    fn two_vertex(p1: Vec2, p2: Vec2, radius: f32) -> Polygon {
        let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        vertices[0] = p1;
        vertices[1] = p2;
        // A zero-length segment gets zero normals, which `validate_two_vertex` rejects.
        let normal = (p2 - p1).right_perp().normalized().unwrap_or(Vec2::ZERO);
        let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        normals[0] = normal;
        normals[1] = -normal;
        Polygon {
            vertices,
            normals,
            count: 2,
            centroid: (p1 + p2) * 0.5,
            radius,
            chain: None,
        }
    }

    /// `Ok` when the polygon can be simulated: 3 to [`MAX_POLYGON_VERTICES`] finite vertices
    /// with a finite rounding radius >= 0, strictly convex and counter-clockwise with matching
    /// normals, a positive area and the centroid inside; or a valid capsule or segment.
    fn validate(&self) -> Result<(), Error> {
        if self.count == 2 {
            return self.validate_two_vertex();
        }
        if !(3..=MAX_POLYGON_VERTICES).contains(&self.count) {
            return Err(invalid(format!(
                "polygon must have 3..={MAX_POLYGON_VERTICES} vertices, got {}",
                self.count
            )));
        }
        if !(self.radius.is_finite() && self.radius >= 0.0) {
            return Err(invalid(format!(
                "polygon radius must be finite and >= 0, got {}",
                self.radius
            )));
        }
        let n = self.count;
        let all_finite = self.vertices[..n]
            .iter()
            .chain(&self.normals[..n])
            .all(|v| v.is_finite());
        if !all_finite {
            return Err(invalid(
                "polygon has a non-finite vertex or normal".to_string(),
            ));
        }
        self.validate_edges()?;
        let area = self.core_moments().area;
        if !(area.is_finite() && area > 0.0) {
            return Err(invalid(format!(
                "polygon area must be finite and > 0, got {area}"
            )));
        }
        let outside = (0..n).any(|i| self.plane_distance(i, self.centroid) >= 0.0);
        if !self.centroid.is_finite() || outside {
            return Err(invalid(format!(
                "polygon centroid must be finite and inside the polygon, got {:?}",
                self.centroid
            )));
        }
        Ok(())
    }

    /// A capsule or segment: finite, at least [`WELD_DISTANCE`] long (shorter, its normal
    /// would be noise; use a circle), normals right of `p1 -> p2` and opposite, centroid at
    /// the midpoint.
    fn validate_two_vertex(&self) -> Result<(), Error> {
        let [p1, p2] = [self.vertices[0], self.vertices[1]];
        let all_finite = [p1, p2, self.normals[0], self.normals[1], self.centroid]
            .iter()
            .all(|v| v.is_finite());
        if !(all_finite && self.radius.is_finite()) {
            return Err(invalid(
                "capsule or segment has a non-finite point, normal or radius".to_string(),
            ));
        }
        if self.radius < 0.0 {
            return Err(invalid(format!(
                "capsule radius must be >= 0, got {}",
                self.radius
            )));
        }
        let length = (p2 - p1).length();
        if !length.is_finite() || length < WELD_DISTANCE {
            return Err(invalid(format!(
                "capsule or segment must be at least {WELD_DISTANCE} m long, got {length}"
            )));
        }
        let expected = (p2 - p1).right_perp() * (1.0 / length);
        let normals_match = (self.normals[0] - expected).length() <= NORMAL_TOLERANCE
            && (self.normals[1] + expected).length() <= NORMAL_TOLERANCE;
        if !normals_match {
            return Err(invalid(
                "capsule or segment normals must be right of p1 -> p2 and opposite".to_string(),
            ));
        }
        let midpoint = (p1 + p2) * 0.5;
        if (self.centroid - midpoint).length() > NORMAL_TOLERANCE * length {
            return Err(invalid(format!(
                "capsule or segment centroid must be the midpoint {midpoint:?}, got {:?}",
                self.centroid
            )));
        }
        Ok(())
    }

    /// Every normal is the outward unit normal of its edge, and every other vertex lies strictly
    /// behind every edge. Together these mean strictly convex and counter-clockwise: a clockwise
    /// polygon has its vertices in front of its (right-hand) normals, a self-intersecting or
    /// twice-winding one has vertices on both sides of some edge, and a collinear vertex lies
    /// on its neighbour's edge line.
    fn validate_edges(&self) -> Result<(), Error> {
        let n = self.count;
        for i in 0..n {
            let edge = self.vertices[next_index(i, n)] - self.vertices[i];
            let Some(expected) = edge.right_perp().normalized() else {
                return Err(invalid(format!("polygon edge {i} has zero length")));
            };
            if (self.normals[i] - expected).length() > NORMAL_TOLERANCE {
                return Err(invalid(format!(
                    "polygon normal {i} is not the outward unit normal of its edge \
                     (vertices must be counter-clockwise)"
                )));
            }
            let mut others = (0..n).filter(|&j| j != i && j != next_index(i, n));
            if others.any(|j| self.plane_distance(i, self.vertices[j]) >= 0.0) {
                return Err(invalid(
                    "polygon is not strictly convex and counter-clockwise".to_string(),
                ));
            }
        }
        Ok(())
    }

    /// Signed distance of `p` in front of the line of edge `i`.
    fn plane_distance(&self, i: usize, p: Vec2) -> f32 {
        self.normals[i].dot(p - self.vertices[i])
    }

    /// Area moments of the sharp core, by a triangle fan about the vertex average. The fan apex
    /// is inside the polygon and close to the centroid, so the parallel-axis shift at the end
    /// subtracts two nearby numbers instead of two large ones.
    fn core_moments(&self) -> Moments {
        let reference = vertex_average(self.vertices());
        let mut moments = Moments::about(reference);
        for i in 0..self.count {
            let a = self.vertices[i] - reference;
            let b = self.vertices[next_index(i, self.count)] - reference;
            moments.add_fan_triangle(a, b);
        }
        moments
    }

    /// Mass properties of the rounded polygon, computed exactly: the rounded shape is the core
    /// polygon plus, on each edge, an outward rectangle `edge length x radius` and, at each
    /// vertex, a circular sector of `radius` spanning the turn between the two edge normals.
    /// These pieces do not overlap for a convex core and their sectors add up to one full disc.
    fn mass_data(&self, density: f32) -> MassData {
        if self.count == 2 {
            return self.capsule_mass_data(density);
        }
        let mut moments = self.core_moments();
        if self.radius > 0.0 {
            self.add_rounding(&mut moments);
        }
        let offset = moments.first * (1.0 / moments.area);
        let polar = moments.second - moments.area * offset.length_squared();
        MassData {
            mass: density * moments.area,
            center: moments.reference + offset,
            rotational_inertia: density * polar,
        }
    }

    /// Mass of a capsule in closed form: a `length x 2 radius` rectangle plus two half discs,
    /// one on each end, whose polar moment about the centre is
    /// `pi r^4 / 2 + 4 L r^3 / 3 + pi r^2 L^2 / 4` (each half disc's moment about its flat
    /// edge's centre, `pi r^4 / 4`, shifted by `L / 2` through its centroid at `4 r / 3 pi`).
    /// A segment (`radius == 0`) has no mass.
    fn capsule_mass_data(&self, density: f32) -> MassData {
        let (r, center) = (self.radius, self.centroid);
        let length = (self.vertices[1] - self.vertices[0]).length();
        let rect_area = 2.0 * r * length;
        let rect_second = rect_area * (length * length + 4.0 * r * r) / 12.0;
        let rr = r * r;
        let discs_area = PI * rr;
        let discs_second =
            0.5 * PI * rr * rr + 4.0 * length * rr * r / 3.0 + 0.25 * PI * rr * length * length;
        MassData {
            mass: density * (rect_area + discs_area),
            center,
            rotational_inertia: density * (rect_second + discs_second),
        }
    }

    fn add_rounding(&self, moments: &mut Moments) {
        let n = self.count;
        for i in 0..n {
            let a = self.vertices[i] - moments.reference;
            let b = self.vertices[next_index(i, n)] - moments.reference;
            moments.add_edge_slab(a, b, self.normals[i], self.radius);
            let previous_normal = self.normals[(i + n - 1) % n];
            moments.add_corner_sector(a, previous_normal, self.normals[i], self.radius);
        }
    }

    fn aabb(&self, xf: Transform) -> Aabb {
        let first = xf.apply(self.vertices[0]);
        let mut lower = first;
        let mut upper = first;
        for &v in &self.vertices()[1..] {
            let p = xf.apply(v);
            lower = lower.min(p);
            upper = upper.max(p);
        }
        Aabb::new(lower, upper).fattened(self.radius)
    }
}

/// Running area integrals of a region relative to a reference point: area, first moment
/// `∫ x dA` and polar second moment `∫ |x|² dA`.
struct Moments {
    reference: Vec2,
    area: f32,
    first: Vec2,
    second: f32,
}

impl Moments {
    fn about(reference: Vec2) -> Moments {
        Moments {
            reference,
            area: 0.0,
            first: Vec2::ZERO,
            second: 0.0,
        }
    }

    /// The centroid of everything added, in the same frame as `reference`.
    fn centroid(&self) -> Vec2 {
        self.reference + self.first * (1.0 / self.area)
    }

    /// Adds the triangle `(reference, reference + a, reference + b)`; the area is signed, so a
    /// counter-clockwise fan sums to the polygon.
    fn add_fan_triangle(&mut self, a: Vec2, b: Vec2) {
        let area = 0.5 * a.cross(b);
        self.area += area;
        self.first += (a + b) * (area / 3.0);
        // For a triangle with one vertex at the origin: ∫|x|² = A/6 (a·a + a·b + b·b).
        self.second += (area / 6.0) * (a.dot(a) + a.dot(b) + b.dot(b));
    }

    /// Adds the rectangle swept by moving edge `a -> b` outward by `radius` along `normal`.
    fn add_edge_slab(&mut self, a: Vec2, b: Vec2, normal: Vec2, radius: f32) {
        let length_sq = (b - a).length_squared();
        let area = length_sq.sqrt() * radius;
        let center = (a + b) * 0.5 + normal * (0.5 * radius);
        self.area += area;
        self.first += center * area;
        // Rectangle about its own centre, then shifted (parallel axis).
        self.second += area * ((length_sq + radius * radius) / 12.0 + center.length_squared());
    }

    /// Adds the circular sector of `radius` with apex `apex`, turning counter-clockwise from
    /// `from_normal` to `to_normal` (the rounded corner of a convex polygon).
    fn add_corner_sector(&mut self, apex: Vec2, from_normal: Vec2, to_normal: Vec2, radius: f32) {
        // The crate's own atan2 and sine: mass data feeds the step, which must give the same
        // bits on every platform.
        let half_angle = 0.5
            * batch2d_kernels::trig::atan2(
                from_normal.cross(to_normal),
                from_normal.dot(to_normal),
            );
        if half_angle <= 0.0 {
            // Only a degenerate (unvalidated) polygon has a corner that does not turn left.
            return;
        }
        let rr = radius * radius;
        let area = half_angle * rr;
        // Sector centroid lies on the bisector at 2 r sin(h) / (3 h) from the apex.
        let half_turn = Rot::from_angle(half_angle);
        let bisector = half_turn.rotate(from_normal);
        let centroid_distance = 2.0 * radius * half_turn.s / (3.0 * half_angle);
        let center = apex + bisector * centroid_distance;
        // ∫|x - apex|² over the sector is h r⁴ / 2; move it to the sector centroid, then to
        // the reference point.
        let about_apex = 0.5 * half_angle * rr * rr;
        let about_center = about_apex - area * centroid_distance * centroid_distance;
        self.area += area;
        self.first += center * area;
        self.second += about_center + area * center.length_squared();
    }
}

/// The box with half extents `half_width` x `half_height` placed by `xf` in the body frame, or
/// why it cannot be simulated.
///
/// The half extents are checked first, for an error that names them. The polygon check then
/// catches what rounding still produces (corners that coincide once placed, an infinite area).
/// It rejects every half extent the first check does, so that check changes the message, never
/// the verdict: a zero extent gives a zero-length edge, a non-finite one non-finite corners, and
/// a negative one reverses an edge against its fixed normal (rounding is monotone, so the placed
/// edge at best collapses).
fn checked_box(half_width: f32, half_height: f32, xf: Transform) -> Result<Shape, Error> {
    for (name, half_extent) in [("half_width", half_width), ("half_height", half_height)] {
        if !(half_extent.is_finite() && half_extent > 0.0) {
            return Err(invalid(format!(
                "box {name} must be finite and > 0, got {half_extent}"
            )));
        }
    }
    let polygon = box_polygon(half_width, half_height, xf);
    polygon.validate()?;
    Ok(Shape::Polygon(Box::new(polygon)))
}

/// Box with the given half extents placed by `xf` inside the body frame. Normals are the fixed
/// box normals rather than computed from edges, so that a box whose placed corners rounding has
/// moved off a rectangle disagrees with them and fails validation.
fn box_polygon(half_width: f32, half_height: f32, xf: Transform) -> Polygon {
    let corners = [
        Vec2::new(-half_width, -half_height),
        Vec2::new(half_width, -half_height),
        Vec2::new(half_width, half_height),
        Vec2::new(-half_width, half_height),
    ];
    let box_normals = [
        Vec2::new(0.0, -1.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 1.0),
        Vec2::new(-1.0, 0.0),
    ];
    let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    vertices[..4].copy_from_slice(&corners.map(|c| xf.apply(c)));
    normals[..4].copy_from_slice(&box_normals.map(|n| xf.q.rotate(n)));
    Polygon {
        vertices,
        normals,
        count: 4,
        centroid: xf.p,
        radius: 0.0,
        chain: None,
    }
}

/// The convex hull of `points`, counter-clockwise, welded and without collinear vertices;
/// every returned vertex is one of the input points.
fn convex_hull(points: &[Vec2]) -> Result<Vec<Vec2>, Error> {
    if points.len() < 3 {
        return Err(invalid(format!(
            "polygon needs at least 3 points, got {}",
            points.len()
        )));
    }
    if let Some(bad) = points.iter().find(|p| !p.is_finite()) {
        return Err(invalid(format!(
            "polygon point must be finite, got {bad:?}"
        )));
    }
    let mut hull = monotone_chain(points);
    weld_hull(&mut hull);
    drop_collinear(&mut hull);
    if hull.len() < 3 {
        return Err(invalid(if has_three_distinct(points) {
            "polygon points are collinear (zero area)".to_string()
        } else {
            format!("polygon needs at least 3 points more than {WELD_DISTANCE} m apart")
        }));
    }
    if hull.len() > MAX_POLYGON_VERTICES {
        return Err(invalid(format!(
            "convex hull has {} vertices, at most {MAX_POLYGON_VERTICES} allowed",
            hull.len()
        )));
    }
    Ok(hull)
}

/// Andrew's monotone chain: sort by x then y, build the lower and upper chains keeping only
/// left turns. Orientation is evaluated in f64, where products of f32 coordinates are exact,
/// so nearly collinear input cannot produce a wrong turn.
fn monotone_chain(points: &[Vec2]) -> Vec<Vec2> {
    let mut sorted = points.to_vec();
    // Inputs are finite, so partial_cmp never fails; -0.0 and 0.0 compare equal as they should.
    sorted.sort_by(|a, b| {
        let by_x = a.x.partial_cmp(&b.x).unwrap_or(Ordering::Equal);
        by_x.then(a.y.partial_cmp(&b.y).unwrap_or(Ordering::Equal))
    });
    sorted.dedup();
    let mut hull: Vec<Vec2> = Vec::with_capacity(sorted.len() + 1);
    for &p in &sorted {
        push_left_turn(&mut hull, 2, p);
    }
    let lower_len = hull.len() + 1;
    for &p in sorted.iter().rev().skip(1) {
        push_left_turn(&mut hull, lower_len, p);
    }
    // The upper chain ends where the lower one began.
    hull.pop();
    hull
}

/// Pops chain vertices that would not make a strict left turn towards `p`, then pushes `p`.
/// `min_len` protects the vertices of the already finished lower chain.
fn push_left_turn(hull: &mut Vec<Vec2>, min_len: usize, p: Vec2) {
    while hull.len() >= min_len && orientation(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
    {
        hull.pop();
    }
    hull.push(p);
}

/// Twice the signed area of triangle `abc` in f64: > 0 for a left turn.
fn orientation(a: Vec2, b: Vec2, c: Vec2) -> f64 {
    let (abx, aby) = (
        f64::from(b.x) - f64::from(a.x),
        f64::from(b.y) - f64::from(a.y),
    );
    let (acx, acy) = (
        f64::from(c.x) - f64::from(a.x),
        f64::from(c.y) - f64::from(a.y),
    );
    abx * acy - aby * acx
}

/// Welds hull neighbours closer than [`WELD_DISTANCE`], keeping the one nearer the hull's
/// start. Dropping a vertex of a convex polygon keeps it convex.
fn weld_hull(hull: &mut Vec<Vec2>) {
    let mut i = 0;
    while hull.len() > 1 && i < hull.len() {
        let following = next_index(i, hull.len());
        if (hull[following] - hull[i]).length() < WELD_DISTANCE {
            // Keep the vertex that comes first from the hull's start, then look again from the
            // kept one: its new neighbour may be close too.
            if following == 0 {
                hull.remove(i);
                i -= 1;
            } else {
                hull.remove(following);
            }
        } else {
            i += 1;
        }
    }
}

/// Repeatedly removes the vertex nearest the line through its two neighbours while that
/// distance is below [`COLLINEAR_DISTANCE`]. Removing the nearest first keeps the result
/// independent of where the loop starts.
fn drop_collinear(hull: &mut Vec<Vec2>) {
    while hull.len() >= 3 {
        let n = hull.len();
        let mut flattest = None;
        let mut smallest = COLLINEAR_DISTANCE;
        for i in 0..n {
            let previous = hull[(i + n - 1) % n];
            let d = distance_to_line(hull[i], previous, hull[next_index(i, n)]);
            if d < smallest {
                smallest = d;
                flattest = Some(i);
            }
        }
        match flattest {
            Some(i) => {
                hull.remove(i);
            }
            None => return,
        }
    }
}

/// Distance from `p` to the infinite line through `a` and `b` (`a != b` after welding).
fn distance_to_line(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    (ab.cross(p - a) / ab.length()).abs()
}

/// Whether `points` holds at least three points pairwise further apart than [`WELD_DISTANCE`]
/// (greedy, so it reads at most every point against two others).
fn has_three_distinct(points: &[Vec2]) -> bool {
    let mut found: [Vec2; 3] = [Vec2::ZERO; 3];
    let mut count = 0;
    for &p in points {
        if found[..count]
            .iter()
            .all(|&q| (p - q).length() >= WELD_DISTANCE)
        {
            found[count] = p;
            count += 1;
            if count == 3 {
                return true;
            }
        }
    }
    false
}

fn vertex_average(points: &[Vec2]) -> Vec2 {
    let mut sum = Vec2::ZERO;
    for &p in points {
        sum += p;
    }
    sum * (1.0 / points.len() as f32)
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

impl Circle {
    /// `Shape::Circle(self)` if a constructor could have made it: how a circle read back from
    /// a snapshot or deserialized, built field by field, is checked.
    pub(crate) fn checked(self) -> Result<Shape, Error> {
        self.validate().map(|()| Shape::Circle(self))
    }
}

impl Polygon {
    /// `Shape::Polygon(self)` if a checked constructor could have made it, bit for bit where
    /// it matters: a chain segment must be exactly what [`Shape::chain_segment`] makes of its
    /// points and ghosts (its normal and its ghosts' tests are derived from them), any other
    /// polygon must pass `validate`. How a polygon read back from a snapshot or deserialized,
    /// built field by field, is checked.
    pub(crate) fn checked(self) -> Result<Shape, Error> {
        match self.chain {
            Some(ChainGhosts { prev, next }) => {
                let [p1, p2] = [self.vertices[0], self.vertices[1]];
                let made = Shape::chain_segment(prev, p1, p2, next)?;
                let same = made == Shape::Polygon(Box::new(self));
                same.then_some(made)
                    .ok_or_else(|| invalid("a chain segment that its points do not make".into()))
            }
            None => self.validate().map(|()| Shape::Polygon(Box::new(self))),
        }
    }
}

fn invalid(reason: String) -> Error {
    Error::InvalidShape(reason)
}

/// A shape is saved by its defining numbers and checked on reading as its constructor checks
/// it, so that a snapshot cannot smuggle in a shape the engine could not have made.
impl Codec for Shape {
    const MIN_SIZE: usize = 13;
    fn encode(&self, w: &mut Writer) {
        match self {
            Shape::Circle(circle) => {
                let Circle { center, radius } = circle;
                0u8.encode(w);
                center.encode(w);
                radius.encode(w);
            }
            Shape::Polygon(polygon) => {
                let Polygon {
                    vertices,
                    normals,
                    count,
                    centroid,
                    radius,
                    chain,
                } = &**polygon;
                1u8.encode(w);
                count.encode(w);
                for v in vertices[..*count].iter().chain(&normals[..*count]) {
                    v.encode(w);
                }
                centroid.encode(w);
                radius.encode(w);
                chain.map(|g| (g.prev, g.next)).encode(w);
            }
        }
    }

    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let shape = match u8::decode(r)? {
            0 => {
                let circle = Circle {
                    center: Vec2::decode(r)?,
                    radius: f32::decode(r)?,
                };
                circle.checked()
            }
            1 => {
                let count = usize::decode(r)?;
                if !(2..=MAX_POLYGON_VERTICES).contains(&count) {
                    return Err(invalid_snapshot(format!(
                        "a polygon has 2..={MAX_POLYGON_VERTICES} vertices, got {count}"
                    )));
                }
                let mut polygon = Polygon {
                    vertices: [Vec2::ZERO; MAX_POLYGON_VERTICES],
                    normals: [Vec2::ZERO; MAX_POLYGON_VERTICES],
                    count,
                    centroid: Vec2::ZERO,
                    radius: 0.0,
                    chain: None,
                };
                for v in &mut polygon.vertices[..count] {
                    *v = Vec2::decode(r)?;
                }
                for n in &mut polygon.normals[..count] {
                    *n = Vec2::decode(r)?;
                }
                polygon.centroid = Vec2::decode(r)?;
                polygon.radius = f32::decode(r)?;
                let chain = Option::<(Option<Vec2>, Option<Vec2>)>::decode(r)?;
                polygon.chain = chain.map(|(prev, next)| ChainGhosts { prev, next });
                polygon.checked()
            }
            tag => return Err(invalid_snapshot(format!("unknown shape kind {tag}"))),
        };
        shape.map_err(|e| invalid_snapshot(format!("shape: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polygons can only be built by the checked constructors; `validate` still guards the
    /// invariants that the rest of the engine relies on, checked here on hand-made breakage.
    #[test]
    fn validate_rejects_hand_built_polygons() {
        let Ok(Shape::Polygon(square)) = Shape::rect(1.0, 1.0) else {
            unreachable!()
        };
        let square = *square;

        let mut clockwise = square;
        clockwise.vertices[..4].reverse();
        let mut wrong_normal = square;
        wrong_normal.normals[1] = Vec2::new(0.0, 1.0);
        let mut too_few = square;
        too_few.count = 2;
        let mut too_many = square;
        too_many.count = MAX_POLYGON_VERTICES + 1;
        let mut negative_radius = square;
        negative_radius.radius = -0.1;
        let mut centroid_outside = square;
        centroid_outside.centroid = Vec2::new(5.0, 0.0);
        let mut collinear = square;
        collinear.vertices[1] = Vec2::new(0.0, -1.0); // moves a corner onto the bottom edge line
        collinear.normals[1] = Vec2::new(0.0, -1.0);

        for polygon in [
            clockwise,
            wrong_normal,
            too_few,
            too_many,
            negative_radius,
            centroid_outside,
            collinear,
        ] {
            assert!(
                matches!(polygon.validate(), Err(Error::InvalidShape(_))),
                "accepted {polygon:?}"
            );
        }
    }

    /// `checked_box` refuses a half extent that is not finite and > 0 before it builds the
    /// polygon, for a message that names it. The polygon check alone, which decided before,
    /// must refuse every such box too, wherever it is placed: the early check changes the
    /// message, never the verdict.
    #[test]
    fn the_half_extent_check_refuses_only_boxes_the_polygon_check_refuses() {
        let extents = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            -1.0e-30,
            -1.0e-3,
            -1.0,
            -3.0e38,
            1.0e-30,
            1.0e-3,
            1.0,
            3.0e38,
        ];
        let centers = [
            Vec2::ZERO,
            v(1.0, 2.0),
            v(1.0e7, -3.0e5),
            v(-1.0e30, 1.0e30),
        ];
        let angles = [0.0, 0.3, 0.5 * PI, PI, -2.5, 1.0e6];
        for &hw in &extents {
            for &hh in &extents {
                let positive = |h: f32| h.is_finite() && h > 0.0;
                if positive(hw) && positive(hh) {
                    continue;
                }
                for &center in &centers {
                    for &angle in &angles {
                        let xf = Transform::new(center, Rot::from_angle(angle));
                        assert!(
                            box_polygon(hw, hh, xf).validate().is_err(),
                            "box {hw} x {hh} at {center:?}, {angle} rad"
                        );
                        assert!(checked_box(hw, hh, xf).is_err());
                    }
                }
            }
        }
    }

    #[test]
    fn polygon_new_checks_its_input_and_the_accessors_read_the_used_vertices() {
        let square = [v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0)];
        let p = Polygon::new(&square, 0.25).unwrap();
        assert_eq!(p.vertices(), &square);
        assert_eq!(p.normals().len(), 4);
        assert_eq!(p.normals()[0], v(0.0, -1.0));
        assert_eq!(p.centroid(), Vec2::ZERO);
        assert_eq!(p.radius(), 0.25);
        assert!(Polygon::new(&square[..2], 0.0).is_err());
        assert!(Polygon::new(&square, -1.0).is_err());
        assert!(Polygon::new(&[v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0)], 0.0).is_err());
    }

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn monotone_chain_keeps_corners_counter_clockwise() {
        let points = [
            v(1.0, 1.0),
            v(0.0, 0.0),
            v(0.5, 0.5),
            v(1.0, 0.0),
            v(0.0, 1.0),
            v(1.0, 0.0),
        ];
        let hull = monotone_chain(&points);
        assert_eq!(
            hull,
            vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)]
        );
    }

    #[test]
    fn weld_hull_merges_close_neighbours_across_the_wrap() {
        let mut hull = vec![
            v(0.0, 0.0),
            v(1.0, 0.0),
            v(1.001, 0.0005),
            v(1.0, 1.0),
            v(0.001, 0.0),
        ];
        weld_hull(&mut hull);
        assert_eq!(hull, vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0)]);
    }

    #[test]
    fn drop_collinear_removes_only_flat_vertices() {
        let mut hull = vec![
            v(0.0, 0.0),
            v(0.5, -0.001),
            v(1.0, 0.0),
            v(1.0, 1.0),
            v(0.0, 1.0),
        ];
        drop_collinear(&mut hull);
        assert_eq!(
            hull,
            vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)]
        );
        let mut flat = vec![v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.001)];
        drop_collinear(&mut flat);
        assert!(flat.len() < 3);
    }

    #[test]
    fn three_distinct_points_ignore_near_duplicates() {
        assert!(!has_three_distinct(&[
            v(0.0, 0.0),
            v(0.001, 0.0),
            v(1.0, 0.0),
            v(1.0, 0.002)
        ]));
        assert!(has_three_distinct(&[
            v(0.0, 0.0),
            v(0.001, 0.0),
            v(1.0, 0.0),
            v(0.0, 1.0)
        ]));
    }

    #[test]
    fn moments_of_pieces_match_closed_forms() {
        // Unit square as a fan about its centre: polar moment (1 + 1) / 12.
        let mut square = Moments::about(v(0.5, 0.5));
        let corners = [v(-0.5, -0.5), v(0.5, -0.5), v(0.5, 0.5), v(-0.5, 0.5)];
        for i in 0..4 {
            square.add_fan_triangle(corners[i], corners[(i + 1) % 4]);
        }
        assert!((square.area - 1.0).abs() < 1e-6);
        assert!(square.first.length() < 1e-6);
        assert!((square.second - 1.0 / 6.0).abs() < 1e-6);

        // Quarter disc of radius 2 at the origin: area pi, polar moment pi r^4 / 8, centroid at
        // 4 r / (3 pi) on both axes.
        let mut quarter = Moments::about(Vec2::ZERO);
        quarter.add_corner_sector(Vec2::ZERO, v(1.0, 0.0), v(0.0, 1.0), 2.0);
        assert!((quarter.area - PI).abs() < 1e-5);
        assert!((quarter.second - 2.0 * PI).abs() < 1e-5);
        let expected = 8.0 / (3.0 * PI);
        assert!((quarter.centroid() - v(expected, expected)).length() < 1e-5);

        // Slab 2 x 0.5 on the edge (0,0) -> (2,0), pushed out along -y.
        let mut slab = Moments::about(Vec2::ZERO);
        slab.add_edge_slab(v(0.0, 0.0), v(2.0, 0.0), v(0.0, -1.0), 0.5);
        assert!((slab.area - 1.0).abs() < 1e-6);
        assert!((slab.centroid() - v(1.0, -0.25)).length() < 1e-6);
        let about_center = (4.0 + 0.25) / 12.0;
        assert!((slab.second - (about_center + 1.0 + 0.0625)).abs() < 1e-6);
    }

    /// A rectangle's world box from its rotation alone matches the box of its turned vertices,
    /// off centre and rounded too, at every turn; other shapes have no such box.
    #[test]
    fn a_local_box_matches_the_box_of_the_turned_vertices() {
        let corners = [v(-1.0, -0.5), v(1.0, -0.5), v(1.0, 0.5), v(-1.0, 0.5)];
        let rectangles = [
            Shape::rect(0.5, 0.5),
            Shape::rect(2.0, 0.25),
            Shape::offset_rect(0.3, 0.7, v(1.5, -2.0), 0.0),
            Shape::rounded_polygon(&corners, 0.1),
        ];
        for shape in rectangles.map(Result::unwrap) {
            let local = LocalBox::of(&shape).expect("a rectangle has a local box");
            for k in 0..64 {
                let xf = Transform::new(v(3.0, -7.0), Rot::from_angle(k as f32 * 0.1));
                let (fast, tight) = (local.aabb(xf), shape.aabb(xf));
                let pairs = [
                    (fast.min.x, tight.min.x),
                    (fast.min.y, tight.min.y),
                    (fast.max.x, tight.max.x),
                    (fast.max.y, tight.max.y),
                ];
                for (a, b) in pairs {
                    assert!((a - b).abs() <= 1e-5, "{shape:?} turned {k}: {a} vs {b}");
                }
            }
        }
        let others = [
            Shape::circle(1.0),
            Shape::offset_rect(0.5, 0.5, Vec2::ZERO, 0.3),
            Shape::polygon(&[v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0)]),
            Shape::capsule(v(-1.0, 0.0), v(1.0, 0.0), 0.2),
        ];
        for shape in others.map(Result::unwrap) {
            assert_eq!(LocalBox::of(&shape), None, "{shape:?}");
        }
    }

    /// A rectangle's hull from its local box is its polygon bit for bit, or there is none: a
    /// box whose centre and half extents do not give its corners back exactly, or a polygon
    /// whose normals carry a -0, keeps to its polygon.
    #[test]
    fn a_box_hull_is_its_polygon_bit_for_bit() {
        let bits = |vs: &[Vec2]| vs.iter().map(|v| (v.x.to_bits(), v.y.to_bits())).collect();
        let bits: fn(&[Vec2]) -> Vec<(u32, u32)> = bits;
        let square = [v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0)];
        let cases = [
            (Shape::rect(0.5, 0.5), true),
            (Shape::rect(2.0, 0.25), true),
            (Shape::offset_rect(0.3, 0.7, v(1.5, -2.0), 0.0), true),
            (Shape::offset_rect(0.1, 0.3, v(0.7, 0.2), 0.0), false),
            (Shape::polygon(&square), false),
            (Shape::rounded_polygon(&square, 0.1), false),
        ];
        for (shape, has_hull) in cases.map(|(s, h)| (s.unwrap(), h)) {
            let Shape::Polygon(polygon) = &shape else {
                unreachable!("every case is a polygon")
            };
            let local = LocalBox::of(&shape).expect("a rectangle has a local box");
            assert_eq!(local.hull().is_some(), has_hull, "{shape:?}");
            if let Some(hull) = local.hull() {
                assert_eq!(bits(&hull.vertices), bits(polygon.vertices()), "{shape:?}");
                assert_eq!(bits(&hull.normals), bits(polygon.normals()), "{shape:?}");
                assert_eq!(hull.radius.to_bits(), polygon.radius.to_bits());
            }
        }
    }
}
