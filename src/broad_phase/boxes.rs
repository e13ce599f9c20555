//! The boxes the broadphase pairs, computed at the start of each step from the bodies' poses
//! and velocities (those of compound bodies, shape by shape, in `compound.rs`).

use crate::body::{BodyStore, SlotKind};
use crate::geometry::math::Transform;
use rayon::prelude::*;

/// Bounding boxes at the current positions, grown by the speculative distance so that
/// contacts begin just before bodies touch, and swept along the motion the body's current
/// velocity would make in `dt`, so that a fast body meets what lies in its path. Sleeping
/// bodies keep the box they fell asleep with, and static bodies theirs until one of them is
/// added or moved, or `margin` changes (they have no velocity to sweep along). Compound bodies
/// get their first shape's box here, replaced by
/// [`update_compound_aabbs`](crate::broad_phase::compound::update_compound_aabbs).
pub(crate) fn update_aabbs(b: &mut BodyStore, asleep: &[bool], margin: f32, dt: f32) {
    // A level of static tiles would otherwise cost every step a box per tile.
    let statics_current = b.static_boxes_current(margin);
    const CHUNK: usize = 1024;
    b.update_aabbs_with(|body, aabbs| {
        aabbs
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(k, aabbs)| {
                // By slot, not zipped columns: a slot that keeps its box (a static tile, a sleeping
                // body) then costs a read of two bytes, not of every column. Each column cut to
                // the chunk first: then no read of a slot tests its bounds.
                let slots = k * CHUNK..k * CHUNK + aabbs.len();
                let (asleep, kind) = (&asleep[slots.clone()], &body.kind()[slots.clone()]);
                let (rotation, center) = (
                    &body.rotation()[slots.clone()],
                    &body.center()[slots.clone()],
                );
                let local_center = &body.local_center()[slots.clone()];
                let (angular, reach) = (
                    &body.angular_velocity()[slots.clone()],
                    &body.reach()[slots.clone()],
                );
                let linear = &body.linear_velocity()[slots.clone()];
                let (local_box, shape) = (&body.local_box()[slots.clone()], &body.shape()[slots]);
                for (i, aabb) in aabbs.iter_mut().enumerate() {
                    if asleep[i] || (statics_current && kind[i] == SlotKind::Fixed) {
                        continue;
                    }
                    let q = rotation[i];
                    let xf = Transform::new(center[i] - q.rotate(local_center[i]), q);
                    let turn = angular[i].abs() * dt * reach[i];
                    let (grow, motion) = (margin + turn, linear[i] * dt);
                    *aabb = match &local_box[i] {
                        Some(local_box) => local_box.swept_aabb(xf, grow, motion),
                        None => shape[i].swept_aabb(xf, grow, motion),
                    };
                }
            });
    });
}
