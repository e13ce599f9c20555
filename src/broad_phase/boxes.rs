//! The boxes the broadphase pairs, computed at the start of each step from the bodies' poses
//! and velocities (those of compound bodies, shape by shape, in `compound.rs`).

use crate::body::BodyStore;
use crate::geometry::math::Transform;
use rayon::prelude::*;

/// Bounding boxes at the current positions, grown by the speculative distance so that
/// contacts begin just before bodies touch, and swept along the motion the body's current
/// velocity would make in `dt`, so that a fast body meets what lies in its path. Sleeping
/// bodies keep the box they fell asleep with. Compound bodies get their first shape's box
/// here, replaced by
/// [`update_compound_aabbs`](crate::broad_phase::compound::update_compound_aabbs).
pub(crate) fn update_aabbs(b: &mut BodyStore, asleep: &[bool], margin: f32, dt: f32) {
    (
        b.aabb.par_iter_mut(),
        (b.shape.par_iter(), b.local_box.par_iter()),
        (b.center.par_iter(), b.rotation.par_iter()),
        (b.local_center.par_iter(), asleep.par_iter()),
        (b.linear_velocity.par_iter(), b.angular_velocity.par_iter()),
        b.reach.par_iter(),
    )
        .into_par_iter()
        .with_min_len(1024)
        .for_each(
            |(
                aabb,
                (shape, local_box),
                (&center, &q),
                (&local_center, &asleep),
                (&v, &w),
                &reach,
            )| {
                if asleep {
                    return;
                }
                let xf = Transform::new(center - q.rotate(local_center), q);
                let turn = w.abs() * dt * reach;
                let (grow, motion) = (margin + turn, v * dt);
                *aabb = match local_box {
                    Some(local_box) => local_box.swept_aabb(xf, grow, motion),
                    None => shape.swept_aabb(xf, grow, motion),
                };
            },
        );
}
