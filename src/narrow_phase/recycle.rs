//! Recycling: a pair with a polygon that touched last step and has barely moved since its
//! manifold was last computed reuses that manifold instead of colliding again. The pair keeps
//! what its last full collide saw (its [`Base`]); the narrowphase gathers the pairs that have
//! one into batches of eight, and a kernel of `batch2d_kernels::recycle` moves each base to
//! the bodies' poses and tells which pairs moved little enough (see [`RECYCLE_DISTANCE`]).
//! The others collide afresh.

use crate::body::BodyStore;
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::geometry::shape::LINEAR_SLOP;
use crate::narrow_phase::manifold::{LocalManifold, LocalPoint, Manifold, ManifoldPoint};
use crate::settings::{Backend, WorldSettings};
use batch2d_kernels::recycle::{scalar, simd};
#[cfg(target_arch = "x86_64")]
use batch2d_kernels::x86::{avx2, avx512};
use batch2d_kernels::{InstructionSet, RecycleBatch, RecycleLanes, RecycleParams, LANES};
use bytemuck::Zeroable;

/// Largest motion (m) of body B relative to body A, measured at each contact point, for which
/// the manifold of the pair's last full [`shape_manifold`](crate::narrow_phase::manifold::shape_manifold) is reused.
///
/// A recycled manifold keeps the points, normal and ids of that collide; each point's
/// separation moves by the relative motion of the two bodies at the point along the normal.
/// That is exact for a point where a corner meets a face, up to a second-order term
/// (separation x angle²); where a side plane clipped the incident edge it is off by about the
/// motion times the slope between the two edges, and a normal defined by B (B's face, or two
/// circle centres) lags by at most the angle or the motion over the radii. A shape sunk into a
/// polygon down to its mid-plane, whose nearest face changes as it crosses, keeps the face of
/// the base: its separation stays the depth below that face, deeper than the signed distance to
/// the new nearest face by twice the crossing (under 2 mm), so it is pushed back out the way it
/// came, until the drift bound brings a fresh collide. The solver holds
/// overlaps to about [`LINEAR_SLOP`] (5 mm by default), so with a fifth of that (1 mm) these
/// errors stay well under a tenth of the slop for the near-parallel faces of resting stacks
/// (in tests, under 1 µm). A recycled manifold gains no points: a corner that a fresh collide
/// would add on entering the 20 mm speculative band waits until the drift passes these bounds,
/// having closed in by at most 1 mm plus [`RECYCLE_ANGLE`] times its distance from a contact
/// point, still far from touching. Motion is measured from the last *full* collide, not from
/// last step, so errors cannot build up: once the drift reaches this bound the pair is
/// collided afresh.
pub(crate) const RECYCLE_DISTANCE: f32 = 0.2 * LINEAR_SLOP;

/// Largest rotation (rad, as the chord `|R1 - R0|`, equal to the angle to first order) of B
/// relative to A since the last full collide for which its manifold is reused. A rotation
/// about a contact point moves nothing at the point, but turns a face of B, and with it the
/// true normal: 1 mrad keeps the normal within 0.06 degrees, and the motion of a point 1 m
/// from a recycled one within the 1 mm of [`RECYCLE_DISTANCE`].
pub(crate) const RECYCLE_ANGLE: f32 = 1.0e-3;

/// What a contact's last full collide saw, kept beside the contact for recycling. Not a field
/// of the contact, which the solver and graph read in bulk and which stays small for them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Base {
    /// That collide's manifold in A's body frame: normal, points relative to A's origin,
    /// separations, ids. No points means nothing to recycle.
    pub manifold: LocalManifold,
    /// B's origin transform in A's frame at that collide.
    pub relative: Transform,
}

impl Base {
    /// A placeholder slot, overwritten before it is read; never recycled.
    pub fn empty() -> Base {
        Base {
            manifold: LocalManifold::default(),
            relative: Transform::IDENTITY,
        }
    }
}

/// `manifold` (world orientation, anchors on the body origins) in A's body frame.
pub(crate) fn local_form(manifold: &Manifold, xf_a: Transform) -> LocalManifold {
    let mut local = LocalManifold {
        normal: xf_a.q.inv_rotate(manifold.normal),
        point_count: manifold.point_count,
        ..LocalManifold::default()
    };
    let count = manifold.point_count;
    for (lp, mp) in local.points.iter_mut().zip(&manifold.points[..count]) {
        *lp = LocalPoint {
            point: xf_a.q.inv_rotate(mp.anchor_a),
            separation: mp.separation,
            id: mp.id,
        };
    }
    local
}

/// The recycle kernel of a backend and instruction set.
pub(crate) type RecycleKernel = fn(&mut RecycleBatch, &RecycleParams) -> RecycleLanes;

/// The recycle kernel `settings` ask for: the scalar twin, or the SIMD kernel on the chosen
/// (by default the widest) instruction set. All give the same bits.
pub(crate) fn recycle_kernel(settings: &WorldSettings) -> RecycleKernel {
    if settings.backend == Backend::Scalar {
        return scalar::recycle;
    }
    match settings
        .instruction_set
        .unwrap_or_else(InstructionSet::widest)
    {
        #[cfg(target_arch = "x86_64")]
        InstructionSet::Avx512 => avx512::recycle,
        #[cfg(target_arch = "x86_64")]
        InstructionSet::Avx2 => avx2::recycle,
        _ => simd::recycle,
    }
}

/// The kernel's limits for a speculative distance of `band`.
pub(crate) fn recycle_params(band: f32) -> RecycleParams {
    RecycleParams {
        max_motion_squared: RECYCLE_DISTANCE * RECYCLE_DISTANCE,
        max_chord_squared: RECYCLE_ANGLE * RECYCLE_ANGLE,
        band,
    }
}

/// Up to eight pairs gathered for one kernel call: their bodies and bases in the kernel's
/// lanes, and beside them each pair's `T`, what the caller writes the results with.
pub(crate) struct Recycler<'a, T> {
    batch: RecycleBatch,
    bases: [Option<&'a Base>; LANES],
    payload: [Option<T>; LANES],
    len: usize,
}

impl<'a, T: Copy> Recycler<'a, T> {
    pub fn new() -> Recycler<'a, T> {
        Recycler {
            batch: RecycleBatch::zeroed(),
            bases: [None; LANES],
            payload: [None; LANES],
            len: 0,
        }
    }

    /// Adds a pair of bodies in slots `a` and `b` with its `base` (which has points); returns
    /// true when the batch is full.
    #[inline(always)]
    pub fn push(
        &mut self,
        payload: T,
        (a, b): (usize, usize),
        bodies: &BodyStore,
        base: &'a Base,
    ) -> bool {
        // The three columns cut to one length, so that each slot is checked against it once.
        let n = bodies.center().len();
        let (center, rotation) = (&bodies.center()[..n], &bodies.rotation()[..n]);
        let local_center = &bodies.local_center()[..n];
        let pose = |s: usize| (center[s], rotation[s], local_center[s]);
        self.push_poses(payload, [pose(a), pose(b)], base)
    }

    /// [`Recycler::push`] with the bodies' poses: centre of mass, rotation and local centre
    /// of mass of A, then of B.
    #[inline(always)]
    fn push_poses(&mut self, payload: T, poses: [(Vec2, Rot, Vec2); 2], base: &'a Base) -> bool {
        // (`len` is below LANES here; taken modulo, the lane needs no bounds checks.)
        let (c, l) = (&mut self.batch, self.len % LANES);
        let set = |lanes: &mut [[f32; LANES]; 2], v: Vec2| {
            lanes[0][l] = v.x;
            lanes[1][l] = v.y;
        };
        let [(center_a, qa, local_a), (center_b, qb, local_b)] = poses;
        set(&mut c.center_a, center_a);
        set(&mut c.rotation_a, Vec2::new(qa.c, qa.s));
        set(&mut c.local_center_a, local_a);
        set(&mut c.center_b, center_b);
        set(&mut c.rotation_b, Vec2::new(qb.c, qb.s));
        set(&mut c.local_center_b, local_b);
        let relative = base.relative;
        c.relative[0][l] = relative.p.x;
        c.relative[1][l] = relative.p.y;
        c.relative[2][l] = relative.q.c;
        c.relative[3][l] = relative.q.s;
        let m = &base.manifold;
        set(&mut c.base_normal, m.normal);
        debug_assert!((1..=2).contains(&m.point_count));
        c.point_count[l] = m.point_count as f32;
        for (lanes, p) in c.base_points.iter_mut().zip(&m.points) {
            lanes.x[l] = p.point.x;
            lanes.y[l] = p.point.y;
            lanes.separation[l] = p.separation;
        }
        self.bases[l] = Some(base);
        self.payload[l] = Some(payload);
        self.len += 1;
        self.len == LANES
    }

    /// Runs `kernel` on the gathered pairs and empties the batch for the next ones; returns
    /// how many there were, and the kernel's verdicts. The results stay readable (`payload`,
    /// `within`, `write`) until the next `push`.
    pub fn run(&mut self, kernel: RecycleKernel, params: &RecycleParams) -> (usize, RecycleLanes) {
        // Lanes past the gathered pairs keep an earlier batch's values (or zeros); their
        // results are not read.
        let lanes = kernel(&mut self.batch, params);
        let len = std::mem::take(&mut self.len);
        (len, lanes)
    }

    /// The caller's value of lane `l`.
    #[inline]
    pub fn payload(&self, l: usize) -> T {
        self.payload[l].expect("a gathered lane")
    }

    /// The base of lane `l`.
    #[inline]
    pub fn base(&self, l: usize) -> &'a Base {
        self.bases[l].expect("a gathered lane")
    }

    /// Whether every moved point of lane `l` is within `band` or `widened` (`<=`, which a NaN
    /// fails): the test of a lane the kernel found [`beyond`](RecycleLanes::beyond) its band.
    pub fn within(&self, l: usize, band: f32, widened: f32) -> bool {
        let count = self.base(l).manifold.point_count;
        (self.batch.points[..count].iter())
            .map(|p| p.separation[l])
            .all(|s| s <= band || s <= widened)
    }

    /// Writes the moved manifold of lane `l` to `out`: the base's points and ids where the
    /// bodies are now, with the impulses of `carried`, last step's manifold of the pair (whose
    /// points are the base's, in the same order).
    #[inline]
    pub fn write(&self, l: usize, carried: &Manifold, out: &mut Manifold) {
        let c = &self.batch;
        let base = &self.base(l).manifold;
        out.normal = Vec2::new(c.normal[0][l], c.normal[1][l]);
        out.point_count = base.point_count;
        for (j, mp) in out.points.iter_mut().enumerate() {
            if j >= base.point_count {
                *mp = ManifoldPoint::default();
                continue;
            }
            let (p, old) = (&c.points[j], &carried.points[j]);
            *mp = ManifoldPoint {
                point: Vec2::new(p.point_x[l], p.point_y[l]),
                anchor_a: Vec2::new(p.anchor_a_x[l], p.anchor_a_y[l]),
                anchor_b: Vec2::new(p.anchor_b_x[l], p.anchor_b_y[l]),
                separation: p.separation[l],
                id: base.points[j].id,
                normal_impulse: old.normal_impulse,
                tangent_impulse: old.tangent_impulse,
                impact_impulse: old.impact_impulse,
            };
        }
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
    let pose = |xf: Transform| (xf.p, xf.q, Vec2::ZERO);
    recycler.push_poses((), [pose(xf_a), pose(xf_b)], base);
    let (_, lanes) = recycler.run(scalar::recycle, &recycle_params(band));
    let beyond = lanes.beyond & 1 != 0;
    let kept = lanes.kept & 1 != 0 || beyond && recycler.within(0, band, widened);
    let mut out = Manifold::default();
    recycler.write(0, &Manifold::default(), &mut out);
    (kept.then_some(out), usize::from(beyond))
}
