//! Recycling contact manifolds: the points of a pair's last full collide, kept in body A's
//! frame, moved to where the two bodies are now, eight pairs at a time.
//!
//! The engine keeps, for each pair that touched, the manifold of its last full collide in A's
//! body frame (its "base") and B's transform relative to A at that collide. While B has barely
//! moved relative to A since then, the engine reuses the base instead of colliding afresh:
//! [`recycle`](simd::recycle) finds, per pair, whether the motion is small enough and where the
//! points are now. Each point is the midpoint between the two surfaces at the collide: A's copy
//! stays put in A's frame, B's copy moves with B, and the new point is again their midpoint,
//! its separation grown by their offset along the normal.

use crate::real::{Lanes8, Real, LANES};
use bytemuck::{Pod, Zeroable};
use wide::f32x8;

type Lanes = [f32; LANES];

/// One base point of each of the eight pairs, in A's body frame at the last full collide.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct BasePointLanes {
    /// The point (midway between the surfaces), relative to A's origin, x (m).
    pub x: Lanes,
    /// Likewise, y (m).
    pub y: Lanes,
    /// Separation of the surfaces along the normal at the collide (m).
    pub separation: Lanes,
}

/// One recycled point of each of the eight pairs, in world orientation: the outputs of
/// [`recycle`](simd::recycle).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct MovedPointLanes {
    /// World point midway between the surfaces, x (m).
    pub point_x: Lanes,
    /// Likewise, y (m).
    pub point_y: Lanes,
    /// The point relative to A's origin, x (m).
    pub anchor_a_x: Lanes,
    /// Likewise, y (m).
    pub anchor_a_y: Lanes,
    /// The point relative to B's origin, x (m).
    pub anchor_b_x: Lanes,
    /// Likewise, y (m).
    pub anchor_b_y: Lanes,
    /// Separation now (m).
    pub separation: Lanes,
}

/// Eight pairs to recycle, structure-of-arrays: the bodies' poses now and each pair's base
/// (inputs), the moved manifold (outputs). A lane whose `point_count` is 0 is padding.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RecycleBatch {
    /// Body A's centre of mass (world), x and y (m).
    pub center_a: [Lanes; 2],
    /// Body A's rotation: cosine and sine.
    pub rotation_a: [Lanes; 2],
    /// Body A's centre of mass relative to its origin, in its body frame, x and y (m).
    pub local_center_a: [Lanes; 2],
    /// Body B's centre of mass, as for A.
    pub center_b: [Lanes; 2],
    /// Body B's rotation, as for A.
    pub rotation_b: [Lanes; 2],
    /// Body B's local centre of mass, as for A.
    pub local_center_b: [Lanes; 2],
    /// B's origin transform in A's frame at the last full collide: translation x and y (m),
    /// then the rotation's cosine and sine.
    pub relative: [Lanes; 4],
    /// The base's unit normal in A's frame, x and y.
    pub base_normal: [Lanes; 2],
    /// How many base points are real: 1.0 or 2.0 (0.0 in a padding lane).
    pub point_count: Lanes,
    /// The base points; those beyond `point_count` are not read.
    pub base_points: [BasePointLanes; 2],
    /// Output: the world normal, x and y.
    pub normal: [Lanes; 2],
    /// Output: the moved points (those beyond `point_count` too, which mean nothing).
    pub points: [MovedPointLanes; 2],
}

/// Limits of [`recycle`](simd::recycle).
#[derive(Clone, Copy, Debug)]
pub struct RecycleParams {
    /// Largest squared motion (m²) of B relative to A at a base point for which the base is
    /// reused.
    pub max_motion_squared: f32,
    /// Largest squared chord `|R1 - R0|²` of B's rotation relative to A's since the base.
    pub max_chord_squared: f32,
    /// Separation (m) up to which a moved point stays without further test: the speculative
    /// distance. A point beyond it is kept only if it is within the pair's own, widened,
    /// distance, which the engine tests (see [`RecycleLanes::beyond`]).
    pub band: f32,
}

/// Which lanes of a batch [`recycle`](simd::recycle) found reusable, as bit masks (bit `l` for
/// lane `l`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecycleLanes {
    /// Lanes whose base is reused as it stands: B turned and moved little relative to A at
    /// every point, and every point is within the band.
    pub kept: u32,
    /// Lanes where B turned and moved little but some point's separation is beyond the band
    /// (or NaN): reused if each such point is within the pair's widened distance.
    pub beyond: u32,
}

/// The fields of a batch as values of one kernel call's [`Real`]: lane `l` (the scalar twin)
/// or all eight lanes. The kernel names a field by a function from a batch to it.
trait Fields<R: Real> {
    fn get(&self, field: impl Fn(&RecycleBatch) -> &Lanes) -> R;
    fn set(&mut self, field: impl Fn(&mut RecycleBatch) -> &mut Lanes, v: R);
}

/// Lane `l` of a batch.
struct Lane<'a>(&'a mut RecycleBatch, usize);

impl Fields<f32> for Lane<'_> {
    #[inline(always)]
    fn get(&self, field: impl Fn(&RecycleBatch) -> &Lanes) -> f32 {
        field(self.0)[self.1]
    }
    #[inline(always)]
    fn set(&mut self, field: impl Fn(&mut RecycleBatch) -> &mut Lanes, v: f32) {
        field(self.0)[self.1] = v;
    }
}

impl<V: Lanes8> Fields<V> for RecycleBatch {
    #[inline(always)]
    fn get(&self, field: impl Fn(&RecycleBatch) -> &Lanes) -> V {
        V::load(field(self))
    }
    #[inline(always)]
    fn set(&mut self, field: impl Fn(&mut RecycleBatch) -> &mut Lanes, v: V) {
        *field(self) = v.store();
    }
}

/// A 2D vector of lanes.
#[derive(Clone, Copy)]
struct V2<R> {
    x: R,
    y: R,
}

/// A rotation (cosine, sine) of lanes.
#[derive(Clone, Copy)]
struct Rot<R> {
    c: R,
    s: R,
}

impl<R: Real> Rot<R> {
    /// Counter-clockwise by the angle.
    #[inline(always)]
    fn rotate(self, v: V2<R>) -> V2<R> {
        V2 {
            x: self.c * v.x - self.s * v.y,
            y: self.s * v.x + self.c * v.y,
        }
    }

    /// Clockwise by the angle: undoes `rotate`.
    #[inline(always)]
    fn inv_rotate(self, v: V2<R>) -> V2<R> {
        V2 {
            x: self.c * v.x + self.s * v.y,
            y: -self.s * v.x + self.c * v.y,
        }
    }

    /// `self⁻¹ * o`.
    #[inline(always)]
    fn inv_mul(self, o: Rot<R>) -> Rot<R> {
        Rot {
            c: self.c * o.c + self.s * o.s,
            s: self.c * o.s - self.s * o.c,
        }
    }
}

impl<R: Real> V2<R> {
    #[inline(always)]
    fn add(self, o: V2<R>) -> V2<R> {
        V2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }

    #[inline(always)]
    fn sub(self, o: V2<R>) -> V2<R> {
        V2 {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }

    #[inline(always)]
    fn dot(self, o: V2<R>) -> R {
        self.x * o.x + self.y * o.y
    }
}

/// The lanes of a pair of fields.
#[inline(always)]
fn get2<R: Real>(c: &impl Fields<R>, field: impl Fn(&RecycleBatch) -> &[Lanes; 2]) -> V2<R> {
    V2 {
        x: c.get(|b| &field(b)[0]),
        y: c.get(|b| &field(b)[1]),
    }
}

/// A body's origin (where its shape is defined) from its centre of mass, rotation and local
/// centre: `center - q.rotate(local_center)`.
#[inline(always)]
fn origin<R: Real>(center: V2<R>, q: Rot<R>, local_center: V2<R>) -> V2<R> {
    center.sub(q.rotate(local_center))
}

/// The kernel, generic over the lane type; returns the masks of [`RecycleLanes`].
#[inline(always)]
fn recycle_lanes<R: Real>(c: &mut impl Fields<R>, p: &RecycleParams) -> (R::Mask, R::Mask) {
    let qa = get2(c, |b| &b.rotation_a);
    let qa = Rot { c: qa.x, s: qa.y };
    let qb = get2(c, |b| &b.rotation_b);
    let qb = Rot { c: qb.x, s: qb.y };
    let pa = origin(get2(c, |b| &b.center_a), qa, get2(c, |b| &b.local_center_a));
    let pb = origin(get2(c, |b| &b.center_b), qb, get2(c, |b| &b.local_center_b));

    // B's transform in A's frame now (`to`) and at the base (`from`).
    let to_p = qa.inv_rotate(pb.sub(pa));
    let to_q = qa.inv_mul(qb);
    let from_p = V2 {
        x: c.get(|b| &b.relative[0]),
        y: c.get(|b| &b.relative[1]),
    };
    let from_q = Rot {
        c: c.get(|b| &b.relative[2]),
        s: c.get(|b| &b.relative[3]),
    };
    let turn = from_q.inv_mul(to_q);
    let one = R::splat(1.0);
    let chord_squared = (one - turn.c) * (one - turn.c) + turn.s * turn.s;
    let count = c.get(|b| &b.point_count);
    // (A padding lane, with no points, is never reused.)
    let turned_little = R::splat(p.max_chord_squared).ge(chord_squared) & count.gt(R::splat(0.0));

    let base_normal = get2(c, |b| &b.base_normal);
    let normal = qa.rotate(base_normal);
    c.set(|b| &mut b.normal[0], normal.x);
    c.set(|b| &mut b.normal[1], normal.y);
    let origin_offset = pa.sub(pb);

    let max_motion_squared = R::splat(p.max_motion_squared);
    let band = R::splat(p.band);
    let (mut moved_little, mut within) = (turned_little, turned_little);
    for j in 0..2 {
        let base = V2 {
            x: c.get(|b| &b.base_points[j].x),
            y: c.get(|b| &b.base_points[j].y),
        };
        let moved = to_q.rotate(from_q.inv_rotate(base.sub(from_p))).add(to_p);
        let motion = moved.sub(base);
        let separation = c.get(|b| &b.base_points[j].separation) + base_normal.dot(motion);
        // `<=` tests, which a NaN fails; a point beyond the count passes both.
        let absent = R::splat(j as f32).ge(count);
        moved_little = moved_little & (max_motion_squared.ge(motion.dot(motion)) | absent);
        within = within & (band.ge(separation) | absent);

        let mid = base.add(moved);
        let half = R::splat(0.5);
        let anchor_a = qa.rotate(V2 {
            x: mid.x * half,
            y: mid.y * half,
        });
        let point = pa.add(anchor_a);
        let anchor_b = anchor_a.add(origin_offset);
        c.set(|b| &mut b.points[j].point_x, point.x);
        c.set(|b| &mut b.points[j].point_y, point.y);
        c.set(|b| &mut b.points[j].anchor_a_x, anchor_a.x);
        c.set(|b| &mut b.points[j].anchor_a_y, anchor_a.y);
        c.set(|b| &mut b.points[j].anchor_b_x, anchor_b.x);
        c.set(|b| &mut b.points[j].anchor_b_y, anchor_b.y);
        c.set(|b| &mut b.points[j].separation, separation);
    }
    (moved_little & within, moved_little)
}

/// The batch kernels, generic over the vector type: [`simd`] instantiates them with `wide`'s
/// type, the x86_64 entry points (`crate::x86`) with their own.
pub(crate) mod batches {
    use super::*;

    #[inline(always)]
    pub(crate) fn recycle<V: Lanes8>(c: &mut RecycleBatch, p: &RecycleParams) -> RecycleLanes {
        let (kept, moved_little) = recycle_lanes::<V>(c, p);
        let kept = V::bitmask(kept);
        RecycleLanes {
            kept,
            beyond: V::bitmask(moved_little) & !kept,
        }
    }
}

/// The f32x8 kernel: one call recycles the eight lanes of a batch. Results match the scalar
/// twin bit for bit.
pub mod simd {
    use super::*;

    /// Moves each lane's base to the bodies' poses: writes the world normal and the moved
    /// points, and returns which lanes may reuse them.
    pub fn recycle(c: &mut RecycleBatch, p: &RecycleParams) -> RecycleLanes {
        batches::recycle::<f32x8>(c, p)
    }
}

/// The one-lane reference kernel, lane by lane: the same operations as [`simd`] in the same
/// order.
pub mod scalar {
    use super::*;

    /// [`simd::recycle`], one lane at a time.
    pub fn recycle(c: &mut RecycleBatch, p: &RecycleParams) -> RecycleLanes {
        let mut lanes = RecycleLanes::default();
        for l in 0..LANES {
            let (kept, moved_little) = recycle_lanes::<f32>(&mut Lane(c, l), p);
            lanes.kept |= u32::from(kept) << l;
            lanes.beyond |= u32::from(moved_little && !kept) << l;
        }
        lanes
    }
}
