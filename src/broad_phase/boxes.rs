//! The boxes the broadphase pairs, computed at the start of each step from the bodies' poses
//! and velocities (those of compound bodies, shape by shape, in `compound.rs`).

use crate::body::{BodyStore, SlotKind};
use crate::geometry::math::{aabb_rows, pairs, rotation_pairs, Aabb, Transform};
use crate::geometry::shape::Shape;
use batch2d_kernels::bounds::{BoxBodies, BoxParams};
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// The kernel that finds the boxes of bodies whose shape is a rectangle or a circle (picked
/// by `WorldSettings::boxes_kernel`).
pub(crate) type BoxesKernel = fn(&BoxBodies, &BoxParams, &mut [[f32; 4]]);

/// Bounding boxes at the current positions, grown by the speculative distance so that
/// contacts begin just before bodies touch, and swept along the motion the body's current
/// velocity would make in `dt`, so that a fast body meets what lies in its path. Sleeping
/// bodies keep the box they fell asleep with, and static bodies theirs until one of them is
/// added or moved, or `margin` changes (they have no velocity to sweep along). Compound bodies
/// get their first shape's box here, replaced by
/// [`update_compound_aabbs`](crate::broad_phase::compound::update_compound_aabbs).
///
/// The boxes of rectangles and circles, the commonest shapes, come from `kernel`, a chunk of
/// bodies at a time; those of other shapes one by one.
pub(crate) fn update_aabbs(
    b: &mut BodyStore,
    asleep: &[bool],
    margin: f32,
    dt: f32,
    kernel: BoxesKernel,
) {
    // A level of static tiles would otherwise cost every step a box per tile.
    let statics_current = b.static_boxes_current(margin);
    const CHUNK: usize = 1024;
    let params = BoxParams { margin, dt };
    b.update_aabbs_with(|body, aabbs| {
        aabbs
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(k, aabbs)| {
                // Each column cut to the chunk first: then no read of a slot tests its bounds.
                let slots = k * CHUNK..k * CHUNK + aabbs.len();
                let (asleep, kind) = (&asleep[slots.clone()], &body.kind()[slots.clone()]);
                let (local_box, shape) = (
                    &body.local_box()[slots.clone()],
                    &body.shape()[slots.clone()],
                );
                // Scratch space, every entry written before it is read (zeroing it cost more
                // than the kernel): the bodies that keep their boxes (a static tile, a sleeping
                // body) with those boxes, and those of shapes the kernel does not take.
                let mut kept = [const { MaybeUninit::<(u16, Aabb)>::uninit() }; CHUNK];
                let mut others = [const { MaybeUninit::<u16>::uninit() }; CHUNK];
                let (mut kept_count, mut other_count) = (0, 0);
                let bodies = local_box.iter().zip(shape).zip(asleep.iter().zip(kind));
                for (i, ((local_box, shape), (&asleep, &kind))) in bodies.enumerate() {
                    if asleep || (statics_current && kind == SlotKind::Fixed) {
                        kept[kept_count].write((i as u16, aabbs[i]));
                        kept_count += 1;
                    } else if local_box.is_none() && !matches!(shape, Shape::Circle(_)) {
                        others[other_count].write(i as u16);
                        other_count += 1;
                    }
                }
                // SAFETY: the loop wrote the first `kept_count` kept boxes and `other_count`
                // others; `MaybeUninit<T>` is laid out as `T`.
                let (kept, others) = unsafe {
                    (
                        std::slice::from_raw_parts(kept.as_ptr().cast::<(u16, Aabb)>(), kept_count),
                        std::slice::from_raw_parts(others.as_ptr().cast::<u16>(), other_count),
                    )
                };
                let bodies = BoxBodies {
                    center: pairs(&body.center()[slots.clone()]),
                    rotation: rotation_pairs(&body.rotation()[slots.clone()]),
                    local_center: pairs(&body.local_center()[slots.clone()]),
                    linear: pairs(&body.linear_velocity()[slots.clone()]),
                    angular: &body.angular_velocity()[slots.clone()],
                    reach: &body.reach()[slots.clone()],
                    shape: &body.box_shape()[slots.clone()],
                };
                // Every body's box, without a test per body; then the kept boxes back, and
                // the boxes of other shapes one by one.
                kernel(&bodies, &params, aabb_rows(aabbs));
                for &(i, aabb) in kept {
                    aabbs[i as usize] = aabb;
                }
                // The columns cut to the chunk as well: all of one length, one bounds test
                // per body covers every read.
                let rotation = &body.rotation()[slots.clone()];
                let (center, local_center) = (
                    &body.center()[slots.clone()],
                    &body.local_center()[slots.clone()],
                );
                let linear = &body.linear_velocity()[slots.clone()];
                for &i in others {
                    let i = i as usize;
                    let q = rotation[i];
                    let xf = Transform::new(center[i] - q.rotate(local_center[i]), q);
                    let turn = bodies.angular[i].abs() * dt * bodies.reach[i];
                    aabbs[i] = shape[i].swept_aabb(xf, margin + turn, linear[i] * dt);
                }
            });
    });
}
