//! Compound bodies: bodies made of several shapes.
//!
//! A compound body is one rigid body, with one pose, velocity, mass and inertia (its shapes'
//! combined by [`MassData::combine`](crate::MassData::combine)), whose shapes each keep their
//! own material and filter. Everything that works on body slots keeps doing so: the
//! broadphase finds body pairs by the union of the shapes' boxes and filters them by the
//! union of their layers and masks; islands, sleep, the constraint graph and the solver see
//! bodies. Only the narrowphase looks inside:
//!
//! - In a world with at least one compound body, each body pair of the broadphase expands into
//!   its shape pairs, in a fixed order (shape of `a`, then shape of `b`), skipping shape pairs
//!   whose boxes do not overlap or whose layers and masks exclude each other. A compound finds
//!   its shapes whose boxes overlap a box in a tree of their boxes (`Compound::shapes_near`),
//!   so a pair costs about the shapes that touch, not the product of the shape counts. A
//!   contact is keyed by `(a, b, shape pair)`, the shape pair packed as
//!   `shape of a << 16 | shape of b` (always 0 between one-shape bodies; a body has at most
//!   [`MAX_COMPOUND_SHAPES`] = 2¹⁶ shapes), so the contact list stays sorted and last step's
//!   contacts are matched by one merge-join, as before: each shape pair warm starts and
//!   recycles its own manifold.
//! - A world without compound bodies skips the expansion: its pairs go to the narrowphase as
//!   they are, which reads shapes and materials from the body columns exactly as before.
//!
//! Several contacts between the same two bodies are several constraints on the same two
//! bodies, so the graph coloring (which never puts a body twice in one color) gives them
//! different colors, and the solver handles them like any other contacts.

use crate::body::BodyStore;
use crate::geometry::math::{Aabb, Transform};
use crate::geometry::shape::MAX_COMPOUND_SHAPES;

/// Which shapes of a body pair a contact joins: `shape of a << 16 | shape of b`, so that
/// sorting by it sorts by the shape of `a`, then that of `b`. Always 0 between one-shape
/// bodies.
pub(crate) type Children = u32;

/// Bits of [`Children`] per shape index: [`MAX_COMPOUND_SHAPES`] indices fit.
const CHILD_BITS: u32 = MAX_COMPOUND_SHAPES.trailing_zeros();

/// Splits [`Children`] into the shape indices of `a` and `b`.
pub(crate) fn split_children(children: Children) -> (usize, usize) {
    let low = (1u32 << CHILD_BITS) - 1;
    ((children >> CHILD_BITS) as usize, (children & low) as usize)
}

/// [`Children`] of shape `child_a` of `a` and `child_b` of `b`.
pub(crate) fn join_children(child_a: usize, child_b: usize) -> Children {
    debug_assert!(child_a < MAX_COMPOUND_SHAPES && child_b < MAX_COMPOUND_SHAPES);
    (child_a as u32) << CHILD_BITS | child_b as u32
}

/// What the narrowphase reads in a world with compound bodies: the broadphase's body pairs
/// expanded into shape pairs (see the module docs).
#[derive(Clone, Default)]
pub(crate) struct ShapePairs {
    /// The body pair of each shape pair, sorted with `children`.
    pub pairs: Vec<(u32, u32)>,
    /// `children[i]`: which shapes of `pairs[i]`.
    pub children: Vec<Children>,
    /// Scratch lists of shapes near a box, kept for their allocations.
    near_a: Vec<u32>,
    near_b: Vec<u32>,
}

/// The broadphase boxes of the awake compound bodies, as `update_aabbs` computes the
/// others' (grown by `margin` plus the turn of the step, swept along the step's motion),
/// shape by shape; the body's box is their union.
pub(crate) fn update_compound_aabbs(b: &mut BodyStore, asleep: &[bool], margin: f32, dt: f32) {
    // By index: the loop writes the compounds' boxes while it walks their slots.
    for i in 0..b.compound_slots().len() {
        let slot = b.compound_slots()[i] as usize;
        if asleep[slot] {
            continue;
        }
        let q = b.rotation()[slot];
        let xf = Transform::new(b.center()[slot] - q.rotate(b.local_center()[slot]), q);
        let turn = b.angular_velocity()[slot].abs() * dt * b.reach()[slot];
        let sweep = b.linear_velocity()[slot] * dt;
        b.set_compound_aabbs(slot, |shape| shape.swept_aabb(xf, margin + turn, sweep));
    }
}

impl ShapePairs {
    /// Expands this step's body pairs into shape pairs (see the module docs). Only called in a
    /// world with compound bodies.
    pub(crate) fn expand(&mut self, b: &BodyStore, pairs: &[(u32, u32)]) {
        let ShapePairs {
            pairs: out_pairs,
            children: out_children,
            near_a,
            near_b,
        } = self;
        out_pairs.clear();
        out_children.clear();
        for &(a, bb) in pairs {
            let (sa, sb) = (a as usize, bb as usize);
            if b.compounds()[sa].is_none() && b.compounds()[sb].is_none() {
                out_pairs.push((a, bb));
                out_children.push(0);
                continue;
            }
            // The shapes of `slot` whose boxes overlap `region`, ascending.
            let near = |slot: usize, region: &Aabb, out: &mut Vec<u32>| {
                out.clear();
                match &b.compounds()[slot] {
                    Some(c) => c.shapes_near(region, out),
                    None if b.aabb()[slot].overlaps(region) => out.push(0),
                    None => {}
                }
            };
            let child_box = |slot: usize, child: usize| match &b.compounds()[slot] {
                Some(c) => c.aabbs[child],
                None => b.aabb()[slot],
            };
            near(sa, &b.aabb()[sb], near_a);
            for &ca in near_a.iter() {
                let ca = ca as usize;
                // Sensor shapes collide with nothing (the sensors test their pairs).
                if b.child_sensor(sa, ca) {
                    continue;
                }
                near(sb, &child_box(sa, ca), near_b);
                for &cb in near_b.iter() {
                    let cb = cb as usize;
                    if !b.child_sensor(sb, cb) && b.shapes_collide(sa, ca, sb, cb) {
                        out_pairs.push((a, bb));
                        out_children.push(join_children(ca, cb));
                    }
                }
            }
        }
    }
}
