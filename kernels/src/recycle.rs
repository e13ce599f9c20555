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
//!
//! The bases are lane-major: eight pairs side by side, word `w` of pair `l` at `[w][l]`, so
//! that the f32x8 kernel reads each word of all eight with one wide load, from where the
//! engine keeps them. The poses and the moved manifolds are a row per pair, which the kernel
//! transposes (see [`RecycleBatch`]).

use crate::real::{array_of, Lanes8, Real, LANES};
use bytemuck::{Pod, Zeroable};
use wide::f32x8;

/// One pair's base: what its last full collide saw, in A's body frame. The engine keeps its
/// bases eight to a [`RecycleBases`], one lane each; this is one lane's words, by name.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RecycleBase {
    /// B's origin transform in A's frame at the collide: translation x and y (m), then the
    /// rotation's cosine and sine.
    pub relative: [f32; 4],
    /// The unit normal in A's frame, x and y.
    pub normal: [f32; 2],
    /// The square of the pair's reach: the largest motion (m) of B relative to A at each point
    /// for which the base is reused (the engine finds it at the collide); negative for a
    /// base that is never reused (nothing to recycle, or a collide too close to changing).
    pub reach_squared: f32,
    /// The points (midway between the surfaces), relative to A's origin, x and y (m), then the
    /// separation of the surfaces along the normal (m). A base of one point holds it twice:
    /// the kernel tests both and reads no count.
    pub points: [[f32; 3]; 2],
    /// The points' feature ids: carried for the engine, never read by the kernel.
    pub ids: [u32; 2],
    /// The number of points (1 or 2; 0 for nothing to recycle): carried for the engine, never
    /// read by the kernel.
    pub count: u32,
}

/// `l` as a lane index: taken modulo, indexing with it needs no bounds check (the callers'
/// lanes are below [`LANES`] anyway).
#[inline(always)]
fn lane(l: usize) -> usize {
    l % LANES
}

/// The sixteen words of a [`RecycleBase`].
const BASE_WORDS: usize = 16;

/// The sixteen words of a row: a pair's poses, or its moved manifold.
const ROW_WORDS: usize = 16;

/// A row.
type Row = [f32; ROW_WORDS];

/// Eight pairs' bases, lane-major: word `w` of [`RecycleBase`] (in its field order) of lane
/// `l` at `words[w][l]`.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct RecycleBases {
    /// The words, a row of eight lanes each.
    pub words: [[u32; LANES]; BASE_WORDS],
}

impl Default for RecycleBases {
    fn default() -> RecycleBases {
        RecycleBases::zeroed()
    }
}

impl RecycleBases {
    /// The base of lane `l`.
    #[inline(always)]
    pub fn get(&self, l: usize) -> RecycleBase {
        let l = lane(l);
        let words: [u32; BASE_WORDS] = array_of(|w| self.words[w][l]);
        bytemuck::cast(words)
    }

    /// Writes `base` to lane `l`.
    #[inline(always)]
    pub fn set(&mut self, l: usize, base: &RecycleBase) {
        let l = lane(l);
        let words: &[u32; BASE_WORDS] = bytemuck::cast_ref(base);
        for (row, &word) in self.words.iter_mut().zip(words) {
            row[l] = word;
        }
    }

    /// Copies lane `k` of `from` to lane `l`: word by word, without the base passing through
    /// a row of its own on the way.
    #[inline(always)]
    pub fn copy_lane(&mut self, l: usize, from: &RecycleBases, k: usize) {
        let (l, k) = (lane(l), lane(k));
        for (row, from) in self.words.iter_mut().zip(&from.words) {
            row[l] = from[k];
        }
    }

    /// The last two words of [`RecycleBase::relative`] of lane `l`: B's rotation in A's
    /// frame at the base (cosine, sine).
    #[inline(always)]
    pub fn relative_rotation(&self, l: usize) -> [f32; 2] {
        let l = lane(l);
        let word = |w: usize| f32::from_bits(self.words[RELATIVE_Q + w][l]);
        [word(0), word(1)]
    }

    /// The feature id of point `j` of lane `l`.
    #[inline(always)]
    pub fn id(&self, l: usize, j: usize) -> u32 {
        let l = lane(l);
        self.words[BASE_IDS + j][l]
    }

    /// The number of points of lane `l`.
    #[inline(always)]
    pub fn count(&self, l: usize) -> usize {
        let l = lane(l);
        self.words[BASE_COUNT][l] as usize
    }
}

/// Where a body is now: its origin (where its shape is defined, world) and rotation (cosine,
/// sine). The engine finds each body's once a step ([`BodyPose::new`]), and the kernel reads
/// a pair's two with a load each.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BodyPose {
    /// Origin, x and y (m).
    pub origin: [f32; 2],
    /// Rotation: cosine and sine.
    pub rotation: [f32; 2],
}

impl BodyPose {
    /// The pose of a body with its centre of mass at `center` (world), its rotation and its
    /// centre of mass at `local_center` relative to its origin (body frame): the origin is
    /// `center - rotation.rotate(local_center)`, rounded as the engine's transforms are.
    #[inline(always)]
    pub fn new(center: [f32; 2], rotation: [f32; 2], local_center: [f32; 2]) -> BodyPose {
        let v2 = |[x, y]: [f32; 2]| V2 { x, y };
        let q = Rot {
            c: rotation[0],
            s: rotation[1],
        };
        let o = origin(v2(center), q, v2(local_center));
        BodyPose {
            origin: [o.x, o.y],
            rotation,
        }
    }

    /// The four words.
    #[inline(always)]
    fn words(&self) -> &[f32; POSE_WORDS] {
        bytemuck::cast_ref(self)
    }
}

/// The four words of a [`BodyPose`].
const POSE_WORDS: usize = 4;

/// One moved point, in world orientation: the first seven fields of the engine's manifold
/// point, in its order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MovedPoint {
    /// World point midway between the surfaces, x and y (m).
    pub point: [f32; 2],
    /// The point relative to A's origin, x and y (m).
    pub anchor_a: [f32; 2],
    /// The point relative to B's origin, x and y (m).
    pub anchor_b: [f32; 2],
    /// Separation now (m).
    pub separation: f32,
}

/// One pair's moved manifold: an output row of [`recycle`](simd::recycle).
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MovedManifold {
    /// The world normal, x and y.
    pub normal: [f32; 2],
    /// The moved points (those beyond the base's count too, which mean nothing).
    pub points: [MovedPoint; 2],
}

/// What the kernel writes for eight pairs: the moved manifolds, a row per pair (the engine
/// reads each moved point as pairs of floats, one 64-bit move each, where lane-major words
/// would take a move per float; the kernel turns its lanes into rows with two 8x8
/// transposes), and the bases' words the engine writes out with them. The bodies' poses and
/// the bases come beside it, by reference.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RecycleBatch {
    /// Each pair's base moved to the poses.
    pub moved: [MovedManifold; LANES],
    /// The bases' last three words (the points' ids, then the count), lane-major, a row each,
    /// copied as they are: so that the engine, writing the moved manifolds, need not read the
    /// bases again.
    pub carried: [[u32; LANES]; 3],
}

impl RecycleBatch {
    /// The feature id of point `j` of lane `l`'s base.
    #[inline(always)]
    pub fn id(&self, l: usize, j: usize) -> u32 {
        self.carried[j][lane(l)]
    }

    /// The number of points of lane `l`'s base.
    #[inline(always)]
    pub fn count(&self, l: usize) -> usize {
        self.carried[2][lane(l)] as usize
    }
}

/// Limits of [`recycle`](simd::recycle).
#[derive(Clone, Copy, Debug)]
pub struct RecycleParams {
    /// Largest squared chord `|R1 - R0|²` of B's rotation relative to A's since the base.
    pub max_chord_squared: f32,
    /// Separation (m) up to which a moved point stays without further test: the speculative
    /// distance. A point beyond it is kept only if it is within the pair's own, widened,
    /// distance, which the engine tests (see [`RecycleLanes::beyond`]).
    pub band: f32,
    /// Separation (m) below which a moved point touches (see [`RecycleLanes::touching`]).
    pub touch: f32,
}

/// Which lanes of a batch [`recycle`](simd::recycle) found reusable, as bit masks (bit `l` for
/// lane `l`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecycleLanes {
    /// Lanes whose base is reused as it stands: B turned little relative to A, moved within
    /// the base's reach at every point, and every point is within the band.
    pub kept: u32,
    /// Lanes where B turned and moved little (as for `kept`) but some point's separation is beyond the band
    /// (or NaN): reused if each such point is within the pair's widened distance.
    pub beyond: u32,
    /// Lanes with a moved point whose separation is below [`RecycleParams::touch`] (whatever
    /// the lane's verdict).
    pub touching: u32,
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

/// Word `i` of every lane, as one value of the kernel's [`Real`].
#[derive(Clone, Copy)]
struct Columns<R, const N: usize>([R; N]);

impl<R: Real, const N: usize> Columns<R, N> {
    #[inline(always)]
    fn v2(&self, i: usize) -> V2<R> {
        V2 {
            x: self.0[i],
            y: self.0[i + 1],
        }
    }

    #[inline(always)]
    fn rot(&self, i: usize) -> Rot<R> {
        Rot {
            c: self.0[i],
            s: self.0[i + 1],
        }
    }
}

// The words of the records, as `Columns` index them.
/// Of a pair's poses (A's, then B's).
const ORIGIN_A: usize = 0;
const ROTATION_A: usize = 2;
const ORIGIN_B: usize = 4;
const ROTATION_B: usize = 6;
/// The words of a pair's poses.
const POSES_WORDS: usize = 2 * POSE_WORDS;
/// Of a base.
const RELATIVE_P: usize = 0;
const RELATIVE_Q: usize = 2;
const NORMAL: usize = 4;
const REACH_SQUARED: usize = 6;
const BASE_POINTS: usize = 7;
const BASE_IDS: usize = 13;
const BASE_COUNT: usize = 15;
/// Of a moved manifold: the normal, then seven words per point.
const MOVED_POINTS: usize = 2;

/// A body's origin (where its shape is defined) from its centre of mass, rotation and local
/// centre: `center - q.rotate(local_center)`.
#[inline(always)]
fn origin<R: Real>(center: V2<R>, q: Rot<R>, local_center: V2<R>) -> V2<R> {
    center.sub(q.rotate(local_center))
}

/// Whether B's rotation relative to A, `to_q` now and `from_q` at the base, turned by a
/// squared chord `|R1 - R0|²` of at most `p.max_chord_squared` (`<=`, which a NaN fails).
#[inline(always)]
fn turned_little<R: Real>(to_q: Rot<R>, from_q: Rot<R>, p: &RecycleParams) -> R::Mask {
    let turn = from_q.inv_mul(to_q);
    let one = R::splat(1.0);
    let chord_squared = (one - turn.c) * (one - turn.c) + turn.s * turn.s;
    R::splat(p.max_chord_squared).ge(chord_squared)
}

/// Whether the kernels turn down a pair whose bodies are rotated by `rotation_a` and
/// `rotation_b` (cosine, sine), whose base has B rotated by `relative` in A's frame
/// ([`RecycleBase::relative`]'s last two words), because B turned too far relative to A
/// since the base: the kernels' own test, on one lane, so that a pair it fails is one they
/// would neither keep nor find [`beyond`](RecycleLanes::beyond) its band. Lets the engine
/// leave such a pair out of a batch, and gather no base for it.
#[inline(always)]
pub fn turned_too_far(
    rotation_a: [f32; 2],
    rotation_b: [f32; 2],
    relative: [f32; 2],
    p: &RecycleParams,
) -> bool {
    let rot = |[c, s]: [f32; 2]| Rot { c, s };
    let to_q = rot(rotation_a).inv_mul(rot(rotation_b));
    !turned_little::<f32>(to_q, rot(relative), p)
}

/// The kernel on the words of the poses and bases, generic over the lane type: the words of
/// the moved manifolds, and the masks of [`RecycleLanes`] (kept, moved little,
/// touching).
#[inline(always)]
fn recycle_lanes<R: Real>(
    pose: &Columns<R, POSES_WORDS>,
    base: &Columns<R, BASE_WORDS>,
    p: &RecycleParams,
) -> (Columns<R, ROW_WORDS>, [R::Mask; 3]) {
    let (pa, qa) = (pose.v2(ORIGIN_A), pose.rot(ROTATION_A));
    let (pb, qb) = (pose.v2(ORIGIN_B), pose.rot(ROTATION_B));

    // B's transform in A's frame now (`to`) and at the base (`from`).
    let to_p = qa.inv_rotate(pb.sub(pa));
    let to_q = qa.inv_mul(qb);
    let from_p = base.v2(RELATIVE_P);
    let from_q = base.rot(RELATIVE_Q);
    let turned_little = turned_little(to_q, from_q, p);

    let mut out = Columns([R::splat(0.0); ROW_WORDS]);
    let base_normal = base.v2(NORMAL);
    let normal = qa.rotate(base_normal);
    out.0[0] = normal.x;
    out.0[1] = normal.y;
    let origin_offset = pa.sub(pb);

    // (Negative for a lane never reused, which every motion fails.)
    let reach_squared = base.0[REACH_SQUARED];
    let band = R::splat(p.band);
    let (mut moved_little, mut within) = (turned_little, turned_little);
    let mut touching = None;
    for j in 0..2 {
        let at = BASE_POINTS + 3 * j;
        let point = base.v2(at);
        let moved = to_q.rotate(from_q.inv_rotate(point.sub(from_p))).add(to_p);
        let motion = moved.sub(point);
        let separation = base.0[at + 2] + base_normal.dot(motion);
        // `<=` tests, which a NaN fails. (A base of one point tests it twice.)
        moved_little = moved_little & reach_squared.ge(motion.dot(motion));
        within = within & band.ge(separation);
        let touches = R::splat(p.touch).gt(separation);
        touching = Some(touching.map_or(touches, |t| t | touches));

        let mid = point.add(moved);
        let half = R::splat(0.5);
        let anchor_a = qa.rotate(V2 {
            x: mid.x * half,
            y: mid.y * half,
        });
        let point = pa.add(anchor_a);
        let anchor_b = anchor_a.add(origin_offset);
        let at = MOVED_POINTS + 7 * j;
        out.0[at..at + 7].copy_from_slice(&[
            point.x, point.y, anchor_a.x, anchor_a.y, anchor_b.x, anchor_b.y, separation,
        ]);
    }
    let touching = touching.expect("two points");
    (out, [moved_little & within, moved_little, touching])
}

/// The batch kernels, generic over the vector type: [`simd`] instantiates them with `wide`'s
/// type, the x86_64 entry points (`crate::x86`) with their own.
pub(crate) mod batches {
    use super::*;

    #[inline(always)]
    pub(crate) fn recycle<V: Lanes8>(
        c: &mut RecycleBatch,
        poses: &[BodyPose],
        pairs: &[(u32, u32); LANES],
        bases: &RecycleBases,
        p: &RecycleParams,
    ) -> RecycleLanes {
        // Each pair's two poses side by side, one row per pair, turned into columns.
        let rows = array_of(|l| {
            let (a, b) = pairs[l];
            V::from_halves(poses[a as usize].words(), poses[b as usize].words())
        });
        let pose = Columns(V::transpose(rows));
        let words: &[[f32; LANES]; BASE_WORDS] = bytemuck::cast_ref(&bases.words);
        let base = Columns(array_of(|w| V::load(&words[w])));
        let (out, [kept, moved_little, touching]) = recycle_lanes::<V>(&pose, &base, p);
        for h in 0..2 {
            let rows = V::transpose(array_of(|i| out.0[LANES * h + i]));
            for (l, row) in rows.into_iter().enumerate() {
                let halves: &mut [[f32; LANES]; 2] = bytemuck::cast_mut(&mut c.moved[l]);
                halves[h] = row.store();
            }
        }
        c.carried = [
            bases.words[BASE_IDS],
            bases.words[BASE_IDS + 1],
            bases.words[BASE_COUNT],
        ];
        let kept = V::bitmask(kept);
        RecycleLanes {
            kept,
            beyond: V::bitmask(moved_little) & !kept,
            touching: V::bitmask(touching),
        }
    }
}

/// The f32x8 kernel: one call recycles the eight lanes of a batch. Results match the scalar
/// twin bit for bit.
pub mod simd {
    use super::*;

    /// Moves each lane's base (lane `l` of `bases` for lane `l`) to the poses of the lane's
    /// pair of bodies (`pairs[l]`, indices into `poses`): writes the moved manifolds, and
    /// returns which lanes may reuse them.
    ///
    /// # Panics
    /// If a pair's body is not in `poses`.
    pub fn recycle(
        c: &mut RecycleBatch,
        poses: &[BodyPose],
        pairs: &[(u32, u32); LANES],
        bases: &RecycleBases,
        p: &RecycleParams,
    ) -> RecycleLanes {
        batches::recycle::<f32x8>(c, poses, pairs, bases, p)
    }

    /// [`scalar::body_poses`]: the portable build has no wide form of this loop over pairs
    /// of floats (the x86_64 entry points have), so it is the scalar one.
    pub fn body_poses(
        center: &[[f32; 2]],
        rotation: &[[f32; 2]],
        local_center: &[[f32; 2]],
        poses: &mut [BodyPose],
    ) {
        scalar::body_poses(center, rotation, local_center, poses)
    }
}

/// The one-lane reference kernel, lane by lane: the same operations as [`simd`] in the same
/// order, on each lane's words.
pub mod scalar {
    use super::*;

    /// Writes to `poses[i]` the pose of the body with centre of mass `center[i]`, rotation
    /// `rotation[i]` (cosine, sine) and local centre `local_center[i]`: [`BodyPose::new`] of
    /// each.
    ///
    /// # Panics
    /// If the four slices differ in length.
    pub fn body_poses(
        center: &[[f32; 2]],
        rotation: &[[f32; 2]],
        local_center: &[[f32; 2]],
        poses: &mut [BodyPose],
    ) {
        let n = poses.len();
        assert!(center.len() == n && rotation.len() == n && local_center.len() == n);
        let bodies = center.iter().zip(rotation).zip(local_center);
        for (pose, ((&c, &q), &l)) in poses.iter_mut().zip(bodies) {
            *pose = BodyPose::new(c, q, l);
        }
    }

    /// [`simd::recycle`], one lane at a time.
    pub fn recycle(
        c: &mut RecycleBatch,
        poses: &[BodyPose],
        pairs: &[(u32, u32); LANES],
        bases: &RecycleBases,
        p: &RecycleParams,
    ) -> RecycleLanes {
        let mut lanes = RecycleLanes::default();
        let words: &[[f32; LANES]; BASE_WORDS] = bytemuck::cast_ref(&bases.words);
        for (l, &(a, b)) in pairs.iter().enumerate() {
            let (pose_a, pose_b) = (poses[a as usize].words(), poses[b as usize].words());
            let pose = array_of(|w| {
                if w < POSE_WORDS {
                    pose_a[w]
                } else {
                    pose_b[w - POSE_WORDS]
                }
            });
            let base = Columns(array_of(|w| words[w][l]));
            let (out, [kept, moved_little, touching]) =
                recycle_lanes::<f32>(&Columns(pose), &base, p);
            *bytemuck::cast_mut::<_, Row>(&mut c.moved[l]) = out.0;
            for (row, w) in c
                .carried
                .iter_mut()
                .zip([BASE_IDS, BASE_IDS + 1, BASE_COUNT])
            {
                row[l] = bases.words[w][l];
            }
            lanes.kept |= u32::from(kept) << l;
            lanes.beyond |= u32::from(moved_little && !kept) << l;
            lanes.touching |= u32::from(touching) << l;
        }
        lanes
    }
}
