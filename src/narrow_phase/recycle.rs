//! Recycling: a pair of polygons (boxes, capsules, segments) that touched last step and has
//! barely moved since its manifold was last computed reuses that manifold instead of colliding
//! again; a pair with a circle collides afresh every step, as cheaply. The pair keeps
//! what its last full collide saw (its [`Base`]); the narrowphase gathers the pairs that have
//! one into batches of eight, and a kernel of `batch2d_kernels::recycle` moves each base to
//! the bodies' poses and tells which pairs moved little enough (see [`RecycleTolerance`]).
//! The others collide afresh.

use crate::body::BodyStore;
use crate::codec::{Codec, Reader, Writer};
use crate::error::Error;
use crate::geometry::math::{pairs, rotation_pairs, Rot, Transform, Vec2};
use crate::index::NONE;
use crate::narrow_phase::manifold::{
    LocalManifold, LocalPoint, Manifold, ManifoldPoint, Reach, MAX_MANIFOLD_POINTS,
};
use crate::settings::{Backend, WorldSettings};
use batch2d_kernels::recycle::{scalar, simd, turned_too_far, MovedPoint};
#[cfg(target_arch = "x86_64")]
use batch2d_kernels::x86::{avx2, avx512};
use batch2d_kernels::{
    BodyPose, InstructionSet, RecycleBase, RecycleBases, RecycleBatch, RecycleLanes, RecycleParams,
    LANES,
};
use bytemuck::Zeroable;
use rayon::prelude::*;

/// How far a pair may move from its last full
/// [`shape_manifold`](crate::narrow_phase::manifold::shape_manifold) and still reuse its
/// manifold: [`WorldSettings::recycle_distance`] and [`WorldSettings::recycle_angle`], caps on
/// each pair's own reach.
///
/// A recycled manifold keeps the points, normal and ids of that collide; each point's
/// separation moves by the relative motion of the two bodies at the point along the normal.
/// Each full collide of two polygon cores works out how far that stays true (its
/// [`Reach`](crate::narrow_phase::manifold::Reach)): while no separating axis can overtake the
/// reference face (half the margin of the best axis over the next, each moving by at most the
/// motion of the deepest vertex); while the incident edge stays the most anti-parallel;
/// while a point that a side plane clipped, or a corner that could cross one, errs by at most
/// `RECYCLE_ERROR` (a twentieth of the slop) through the slope of the incident edge, which
/// makes the error of a clipped point the motion along the face times that slope (unbounded
/// for an edge all but perpendicular to the face, which then never recycles); while an end
/// left out stays out of the speculative band, so that no point a fresh collide would add is
/// missing; while the clipped edge neither merges nor vanishes, and cores that overlap or
/// face each other do not turn to their closest points. Two faces all but anti-parallel may
/// swap as reference, as they give nearly the same manifold. The base keeps the reach as
/// the largest motion at its points, given that B turns by at most `angle` (a turn moves a
/// vertex by the angle times its distance from the points), capped by `distance`; other
/// pairs (capsule pairs, chains, closest points) collide afresh, and so do pairs moving too
/// fast to recycle next step, whose reach is not worked out. So a recycled separation is
/// within `RECYCLE_ERROR` plus second-order terms (separation x angle², motion x angle) of
/// a fresh one: under a tenth of the slop (in tests, about a twentieth in a stirred pile and
/// under 1 µm in a resting stack). Motion is measured from the last *full* collide, not from
/// last step, so errors cannot build up: once the drift reaches the reach the pair is
/// collided afresh.
///
/// `angle` is the largest rotation (rad, as the chord `|R1 - R0|`, equal to the angle to
/// first order) of B relative to A. A rotation about a contact point moves nothing at the
/// point, but turns a face of B, and with it the true normal: the default 4 mrad keeps the
/// normal within a quarter of a degree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RecycleTolerance {
    /// Largest relative motion (m) at a contact point.
    pub distance: f32,
    /// Largest relative rotation (rad, as a chord).
    pub angle: f32,
}

impl RecycleTolerance {
    /// The tolerance of `settings`.
    pub fn of(settings: &WorldSettings) -> RecycleTolerance {
        RecycleTolerance {
            distance: settings.recycle_distance,
            angle: settings.recycle_angle,
        }
    }
}

/// What a contact's last full collide saw, kept beside the contact for recycling. Not a field
/// of the contact, which the solver and graph read in bulk and which stays small for them.
///
/// One lane of the recycle kernel's bases (see [`RecycleBase`]): that collide's manifold in
/// A's body frame (normal, points relative to A's origin, separations, ids; no points means
/// nothing to recycle) and B's origin transform in A's frame at that collide. The contact set
/// keeps its bases eight to a block, lane-major, where the kernel reads them with a wide load
/// per word; this is one base taken out of its block, or on its way into one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Base(RecycleBase);

/// A base with nothing to recycle: the placeholder of [`Base::empty`].
static EMPTY: Base = Base(RecycleBase {
    relative: [0.0, 0.0, 1.0, 0.0],
    normal: [0.0; 2],
    reach_squared: -1.0,
    points: [[0.0; 3]; 2],
    ids: [0; 2],
    count: 0,
});

impl Base {
    /// A placeholder slot, overwritten before it is read; never recycled.
    pub fn empty() -> Base {
        EMPTY
    }

    /// The base of a collide that found `manifold` (world orientation, anchors on the body
    /// origins) with the bodies' origins at `xf_a` and `xf_b`, and `reach`, to recycle within
    /// `tolerance`: the manifold in A's body frame and B's origin in A's frame. `None` where
    /// the reach allows no motion, so that the pair would never recycle. (Written straight
    /// from the manifold, lane words and all: a manifold in A's frame on its way would be a
    /// copy of its own.)
    #[inline(always)]
    pub fn of_collide(
        manifold: &Manifold,
        (xf_a, xf_b): (Transform, Transform),
        reach: Reach,
        tolerance: RecycleTolerance,
    ) -> Option<Base> {
        let motion = reach.motion(tolerance.distance, tolerance.angle);
        (motion >= 0.0).then(|| Base::moved_in(manifold, (xf_a, xf_b), motion * motion))
    }

    /// [`Base::of_collide`] of a pair that recycles within `reach_squared`.
    #[inline(always)]
    fn moved_in(
        manifold: &Manifold,
        (xf_a, xf_b): (Transform, Transform),
        reach_squared: f32,
    ) -> Base {
        let local = |mp: &ManifoldPoint| LocalPoint {
            point: xf_a.q.inv_rotate(mp.anchor_a),
            separation: mp.separation,
            id: mp.id,
        };
        let count = manifold.point_count;
        let points = [&manifold.points[0], &manifold.points[count.clamp(1, 2) - 1]].map(local);
        let normal = xf_a.q.inv_rotate(manifold.normal);
        Base::of_points(xf_a.inv_mul(xf_b), normal, points, count, reach_squared)
    }

    /// The base of `manifold` (in A's body frame) with B's origin at `relative` in A's frame,
    /// and the kernel's word for the reach, `reach_squared`.
    #[inline(always)]
    fn with_reach(manifold: &LocalManifold, relative: Transform, reach_squared: f32) -> Base {
        let count = manifold.point_count;
        let points = [manifold.points[0], manifold.points[count.clamp(1, 2) - 1]];
        Base::of_points(relative, manifold.normal, points, count, reach_squared)
    }

    /// The base of a manifold of `count` points (at most `MAX_MANIFOLD_POINTS`) in A's body
    /// frame, given by its `normal` and its first and last `points` (a manifold of one point
    /// holds it twice: see `RecycleBase::points`), with B's origin at `relative` in A's frame.
    #[inline(always)]
    fn of_points(
        relative: Transform,
        normal: Vec2,
        [p, q]: [LocalPoint; 2],
        count: usize,
        reach_squared: f32,
    ) -> Base {
        Base(RecycleBase {
            relative: [relative.p.x, relative.p.y, relative.q.c, relative.q.s],
            normal: [normal.x, normal.y],
            reach_squared,
            points: [
                [p.point.x, p.point.y, p.separation],
                [q.point.x, q.point.y, q.separation],
            ],
            ids: [p.id, q.id],
            count: count as u32,
        })
    }

    /// Number of points.
    #[inline]
    pub fn point_count(&self) -> usize {
        self.0.count as usize
    }

    /// The base of lane `l` of `block`.
    #[inline(always)]
    pub fn of_lane(block: &RecycleBases, l: usize) -> Base {
        Base(block.get(l))
    }

    /// Writes the base to lane `l` of `block`.
    #[inline(always)]
    pub fn write_lane(&self, block: &mut RecycleBases, l: usize) {
        block.set(l, &self.0);
    }

    /// That collide's manifold in A's body frame.
    pub fn manifold(&self) -> LocalManifold {
        let b = &self.0;
        let point = |j: usize| LocalPoint {
            point: Vec2::new(b.points[j][0], b.points[j][1]),
            separation: b.points[j][2],
            id: b.ids[j],
        };
        LocalManifold {
            normal: Vec2::new(b.normal[0], b.normal[1]),
            points: [point(0), point(1)],
            point_count: self.point_count(),
        }
    }

    /// B's origin transform in A's frame at that collide.
    pub fn relative(&self) -> Transform {
        let [x, y, c, s] = self.0.relative;
        Transform::new(Vec2::new(x, y), Rot { c, s })
    }
}

/// Where a base is kept: a lane of a block of bases, or on its own (a woken contact's).
#[derive(Clone, Copy)]
pub(crate) enum BaseAt<'b> {
    /// Lane `.1` of the block.
    Lane(&'b RecycleBases, usize),
    /// A base kept on its own.
    Loose(&'b Base),
}

impl BaseAt<'_> {
    /// The base, taken out of its block.
    #[inline(always)]
    pub fn get(self) -> Base {
        match self {
            BaseAt::Lane(block, l) => Base::of_lane(block, l),
            BaseAt::Loose(base) => *base,
        }
    }

    /// B's rotation in A's frame at the base (cosine, sine).
    #[inline(always)]
    fn relative_rotation(self) -> [f32; 2] {
        match self {
            BaseAt::Lane(block, l) => block.relative_rotation(l),
            BaseAt::Loose(base) => [base.0.relative[2], base.0.relative[3]],
        }
    }
}

/// Saved as the manifold, the transform, then the square of the reach.
impl Codec for Base {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        self.manifold().encode(w);
        self.relative().encode(w);
        self.0.reach_squared.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Base, Error> {
        let manifold = LocalManifold::decode(r)?;
        let relative = Transform::decode(r)?;
        Ok(Base::with_reach(&manifold, relative, f32::decode(r)?))
    }
}

/// The recycle kernel of a backend and instruction set.
pub(crate) type RecycleKernel = fn(
    &mut RecycleBatch,
    &[BodyPose],
    &[(u32, u32); LANES],
    &RecycleBases,
    &RecycleParams,
) -> RecycleLanes;

/// The kernel of [`body_poses`] of a backend and instruction set.
pub(crate) type PosesKernel = fn(&[[f32; 2]], &[[f32; 2]], &[[f32; 2]], &mut [BodyPose]);

/// The recycle kernel and the [`body_poses`] kernel `settings` ask for: the scalar twins, or
/// the SIMD kernels on the chosen (by default the widest) instruction set. All give the same
/// bits.
pub(crate) fn recycle_kernels(settings: &WorldSettings) -> (RecycleKernel, PosesKernel) {
    if settings.backend == Backend::Scalar {
        return (scalar::recycle, scalar::body_poses);
    }
    match settings
        .instruction_set
        .unwrap_or_else(InstructionSet::widest)
    {
        #[cfg(target_arch = "x86_64")]
        InstructionSet::Avx512 => (avx512::recycle, avx512::body_poses),
        #[cfg(target_arch = "x86_64")]
        InstructionSet::Avx2 => (avx2::recycle, avx2::body_poses),
        _ => (simd::recycle, simd::body_poses),
    }
}

/// The kernel's limits for a speculative distance of `band`, with points touching below
/// `touch` (the linear slop), recycling within `tolerance`.
pub(crate) fn recycle_params(band: f32, touch: f32, tolerance: RecycleTolerance) -> RecycleParams {
    RecycleParams {
        max_chord_squared: tolerance.angle * tolerance.angle,
        band,
        touch,
    }
}

/// Bodies per parallel task of [`body_poses`].
const POSE_CHUNK: usize = 4096;

/// Writes to `poses` the pose (origin and rotation) of every body slot, as the recycle kernel
/// and the fresh collides read them, with `kernel`: found once a step, so that a pair's two
/// poses are a load each, where each of its batches would gather three columns per body and
/// find the origin.
pub(crate) fn body_poses(bodies: &BodyStore, kernel: PosesKernel, poses: &mut Vec<BodyPose>) {
    let n = bodies.center().len();
    poses.resize(n, BodyPose::zeroed());
    (poses.par_chunks_mut(POSE_CHUNK))
        .zip(pairs(bodies.center()).par_chunks(POSE_CHUNK))
        .zip(rotation_pairs(&bodies.rotation()[..n]).par_chunks(POSE_CHUNK))
        .zip(pairs(&bodies.local_center()[..n]).par_chunks(POSE_CHUNK))
        .for_each(|(((poses, center), rotation), local_center)| {
            kernel(center, rotation, local_center, poses)
        });
}

/// The lanes `l` whose base index `indices[l]` is `own + l`: bit `l` set for each.
#[inline(always)]
pub(crate) fn own_places(indices: &[u32; LANES], own: u32) -> u32 {
    // First whether all eight are, in a loop without branches or shifts, which compiles to a
    // few compares (partly vector ones): so it is for every group of a resting scene.
    let lanes = (0..LANES as u32).map(|l| own.wrapping_add(l));
    if (indices.iter().zip(lanes.clone())).fold(true, |all, (&i, at)| all & (i == at)) {
        return (1 << LANES) - 1;
    }
    let mut mask = 0u32;
    for (l, (&index, at)) in indices.iter().zip(lanes).enumerate() {
        mask |= u32::from(index == at) << l;
    }
    mask
}

/// The kernel's batch for eight consecutive pairs of a chunk, lane `l` for the chunk's pair
/// `8k + l`: the moved manifolds, a row per pair. Each call of `run` takes its bases from one
/// block: last step's, as it stands (every pair of a resting scene whose pairs are last
/// step's), or this step's block of the pairs, into which [`take_lanes`] gathered those that
/// were elsewhere.
pub(crate) struct Recycler {
    batch: RecycleBatch,
}

impl Recycler {
    pub fn new() -> Recycler {
        Recycler {
            batch: RecycleBatch::zeroed(),
        }
    }

    /// Runs `kernel` on the batch with the bases of `block`, lane `l` for the bodies
    /// `pairs[l]` of `poses` (see [`body_poses`]): the kernel's verdicts, whose lanes mean
    /// something only where the caller gave a lane a base. The results, with the bases' ids,
    /// stay readable (`within`, `write`) until the next call.
    #[inline(always)]
    pub fn run(
        &mut self,
        kernel: RecycleKernel,
        (poses, pairs): (&[BodyPose], &[(u32, u32); LANES]),
        block: &RecycleBases,
        params: &RecycleParams,
    ) -> RecycleLanes {
        kernel(&mut self.batch, poses, pairs, block, params)
    }

    /// Whether every moved point of lane `l` is within `band` or `widened` (`<=`, which a NaN
    /// fails): the test of a lane the kernel found [`beyond`](RecycleLanes::beyond) its band.
    pub fn within(&self, l: usize, band: f32, widened: f32) -> bool {
        let moved = &self.batch.moved[l % LANES];
        (moved.points[..self.batch.count(l).min(2)].iter())
            .map(|p| p.separation)
            .all(|s| s <= band || s <= widened)
    }

    /// Writes the moved manifold of lane `l` to `out`: the base's points and ids where the
    /// bodies are now, with the impulses of `carried`, last step's manifold of the pair (whose
    /// points are the base's, in the same order).
    #[inline]
    pub fn write(&self, l: usize, carried: &Manifold, out: &mut Manifold) {
        self.write_in_place(l, out);
        for (mp, old) in out.points[..out.point_count]
            .iter_mut()
            .zip(&carried.points)
        {
            mp.normal_impulse = old.normal_impulse;
            mp.tangent_impulse = old.tangent_impulse;
            mp.impact_impulse = old.impact_impulse;
        }
    }

    /// [`Recycler::write`] to last step's manifold of the pair in place (`out`), which keeps
    /// its impulses: only the moved points, their ids and the normal are written.
    #[inline(always)]
    pub fn write_in_place(&self, l: usize, out: &mut Manifold) {
        let moved = &self.batch.moved[l % LANES];
        let count = self.batch.count(l);
        out.normal = Vec2::new(moved.normal[0], moved.normal[1]);
        out.point_count = count;
        // Both points, then the absent one (rarely any: a resting box has two) cleared: one
        // test where a test per point would branch twice.
        for (j, mp) in out.points.iter_mut().enumerate() {
            move_point(&moved.points[j], mp);
            mp.id = self.batch.id(l, j);
        }
        if count < MAX_MANIFOLD_POINTS {
            out.points[count..].fill(ManifoldPoint::default());
        }
    }

    /// The number of points of lane `l`'s moved manifold.
    #[inline(always)]
    pub fn count(&self, l: usize) -> usize {
        self.batch.count(l)
    }
}

/// Takes, for a group of the recycle kernel, into its lane `l` each pair of `pairs` (at most
/// eight) whose base index in `bases` is not `NONE`: its base, which `base` finds, is gathered
/// into lane `l` of `to`, unless it is in its own lane of the block the batch will run on:
/// the index of the first lane's own place is `own`, the next lane's `own + 1`, and so on. A
/// pair whose base is elsewhere and whose bodies (of `poses`) turned too far since it for the
/// kernel with `params` to keep it ([`turned_too_far`]) is left out: its base is not
/// gathered. Returns the lanes taken, and of those, the lanes whose base is in its own place,
/// as bit masks.
///
/// (Where bodies are stirred, most pairs have moved their bases out of place and turned
/// too far; in a resting pile, the bases stay in place, and no pair is tested here.)
#[inline(always)]
pub(crate) fn take_lanes<'b>(
    pairs: &[(u32, u32)],
    (bases, own): (&[u32; LANES], u32),
    poses: &[BodyPose],
    base: impl Fn(u32) -> BaseAt<'b>,
    params: &RecycleParams,
    to: &mut RecycleBases,
) -> (u32, u32) {
    let all = (1u32 << pairs.len()) - 1;
    let in_place = own_places(bases, own) & all;
    if in_place == all {
        // (Every lane's base in its own place, as in every group of a resting scene.)
        return (all, all);
    }
    let mut taken = 0u32;
    for (l, &index) in bases.iter().enumerate() {
        taken |= u32::from(index != NONE) << l;
    }
    taken &= all;
    let mut lanes = taken & !in_place;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let (a, b) = pairs[l];
        if !gather_from(
            to,
            l,
            (a as usize, b as usize),
            base(bases[l]),
            poses,
            params,
        ) {
            taken &= !(1 << l);
        }
    }
    (taken, in_place)
}

/// Copies the base `at` into lane `l` of `to`, for the pair of the bodies in slots `a` and
/// `b` of `poses`, unless they turned too far since it: then returns false. Inlined: a
/// resting pile's pairs never get here, but where bodies are stirred or smashed most groups
/// gather some of their lanes, and a call's saves, restores and arguments through memory
/// cost about a third as much as the gather.
#[inline(always)]
fn gather_from(
    to: &mut RecycleBases,
    l: usize,
    (a, b): (usize, usize),
    at: BaseAt,
    poses: &[BodyPose],
    params: &RecycleParams,
) -> bool {
    if turned_too_far(
        poses[a].rotation,
        poses[b].rotation,
        at.relative_rotation(),
        params,
    ) {
        return false;
    }
    match at {
        BaseAt::Lane(block, k) => {
            debug_assert!((1..=2).contains(&block.count(k)));
            to.copy_lane(l, block, k);
        }
        BaseAt::Loose(base) => {
            debug_assert!((1..=2).contains(&base.point_count()));
            base.write_lane(to, l);
        }
    }
    true
}

// A `MovedPoint` holds the first seven floats of a `ManifoldPoint` (point, anchors,
// separation), in its order (`move_point`).
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(offset_of!(Vec2, x) == 0 && offset_of!(Vec2, y) == 4 && size_of::<Vec2>() == 8);
    assert!(offset_of!(ManifoldPoint, point) == offset_of!(MovedPoint, point));
    assert!(offset_of!(ManifoldPoint, anchor_a) == offset_of!(MovedPoint, anchor_a));
    assert!(offset_of!(ManifoldPoint, anchor_b) == offset_of!(MovedPoint, anchor_b));
    assert!(offset_of!(ManifoldPoint, separation) == offset_of!(MovedPoint, separation));
    assert!(size_of::<MovedPoint>() == offset_of!(MovedPoint, separation) + 4);
    assert!(offset_of!(ManifoldPoint, id) >= size_of::<MovedPoint>());
    assert!(align_of::<MovedPoint>() <= align_of::<ManifoldPoint>());
};

/// Writes the moved point `p` over the point, anchors and separation of `mp`, leaving its id
/// and impulses: one copy of the row's bytes, where field by field the compiler moves a
/// float or two at a time.
#[inline(always)]
fn move_point(p: &MovedPoint, mp: &mut ManifoldPoint) {
    // SAFETY: the assertions above: the first `size_of::<MovedPoint>()` bytes of `mp` are
    // its plain-float fields `point` to `separation`, laid out as `p`'s, and stop before
    // its id; `p` and `mp` are distinct borrows, so they do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(
            (p as *const MovedPoint).cast::<u8>(),
            (mp as *mut ManifoldPoint).cast::<u8>(),
            std::mem::size_of::<MovedPoint>(),
        );
    }
}

/// The manifold of `base` moved to bodies with origins at `xf_a` and `xf_b` as the scalar
/// kernel finds it, and how many times it asked for `widened` (the widened band, asked only
/// when a point is beyond `band`); `None` when it would collide afresh.
#[cfg(test)]
pub(crate) fn recycle_one(
    base: &Base,
    xf_a: Transform,
    xf_b: Transform,
    band: f32,
    widened: f32,
) -> (Option<Manifold>, usize) {
    let mut recycler = Recycler::new();
    let pose = |xf: Transform| BodyPose::new([xf.p.x, xf.p.y], [xf.q.c, xf.q.s], [0.0; 2]);
    let poses = [pose(xf_a), pose(xf_b)];
    let mut block = RecycleBases::zeroed();
    base.write_lane(&mut block, 0);
    let params = recycle_params(
        band,
        crate::geometry::shape::LINEAR_SLOP,
        RecycleTolerance::of(&WorldSettings::default()),
    );
    let lanes = recycler.run(scalar::recycle, (&poses, &[(0, 1); LANES]), &block, &params);
    let beyond = lanes.beyond & 1 != 0;
    let kept = lanes.kept & 1 != 0 || beyond && recycler.within(0, band, widened);
    let mut out = Manifold::default();
    recycler.write(0, &Manifold::default(), &mut out);
    (kept.then_some(out), usize::from(beyond))
}
