//! Contact constraint kernels of the soft step: prepare, warm start, solve (with or without
//! the soft bias), restitution. Each works on a [`ContactBatch`] of eight contacts whose dynamic
//! bodies are all distinct.

use crate::body::{BodyLanes, States, NULL_BODY};
use crate::real::{Real, LANES};
use bytemuck::{Pod, Zeroable};
use wide::f32x8;

type Lanes = [f32; LANES];

/// One contact point of each of the eight contacts of a batch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PointLanes {
    /// 1 for a real point, 0 where the manifold has fewer points.
    pub active: Lanes,
    /// Anchor relative to body A's centre of mass, world orientation, fixed for the step.
    pub anchor_ax: Lanes,
    /// Its y component (m); `anchor_ax` is the x component.
    pub anchor_ay: Lanes,
    /// Anchor relative to body B's centre of mass.
    pub anchor_bx: Lanes,
    /// Its y component (m); `anchor_bx` is the x component.
    pub anchor_by: Lanes,
    /// Packed as the narrowphase separation; [`prepare`](simd::prepare) turns it into the
    /// separation minus the anchors' offset, so that the current separation is this plus the
    /// relative motion of the anchors.
    pub base_separation: Lanes,
    /// Accumulated impulses (warm-start values on entry, results on exit).
    pub normal_impulse: Lanes,
    /// Accumulated friction impulse along the tangent `(normal_y, -normal_x)` (N·s), likewise.
    pub tangent_impulse: Lanes,
    /// Largest normal impulse applied in one iteration this step (tells restitution the point
    /// was really hit).
    pub max_normal_impulse: Lanes,
    /// Effective mass along the normal (kg), 0 for an inactive point; set by
    /// [`prepare`](simd::prepare).
    pub normal_mass: Lanes,
    /// Effective mass along the tangent (kg), 0 for an inactive point; set by
    /// [`prepare`](simd::prepare).
    pub tangent_mass: Lanes,
    /// Normal velocity at the start of the step, for restitution.
    pub relative_velocity: Lanes,
}

/// Eight contact constraints, structure-of-arrays, one lane each.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ContactBatch {
    /// Solver index of body A, or [`NULL_BODY`] for a static body or a padding lane.
    pub body_a: [u32; LANES],
    /// Solver index of body B, or [`NULL_BODY`] for a static body or a padding lane.
    pub body_b: [u32; LANES],
    /// Unit normal from A to B, x component.
    pub normal_x: Lanes,
    /// Unit normal from A to B, y component.
    pub normal_y: Lanes,
    /// Friction coefficient of the contact: the two shapes' coefficients, mixed.
    pub friction: Lanes,
    /// Restitution coefficient of the contact: the two shapes' coefficients, mixed.
    pub restitution: Lanes,
    /// Inverse mass of body A (1/kg); 0 for static and kinematic bodies (never written).
    pub inv_mass_a: Lanes,
    /// Inverse rotational inertia of body A (1/(kg·m²)); 0 for static, kinematic and
    /// fixed-rotation bodies.
    pub inv_inertia_a: Lanes,
    /// Inverse mass of body B (1/kg), as for A.
    pub inv_mass_b: Lanes,
    /// Inverse rotational inertia of body B (1/(kg·m²)), as for A.
    pub inv_inertia_b: Lanes,
    /// Soft constraint bias rate (1/s): push-out velocity per metre of overlap beyond the
    /// slop. Stiffer (twice the contact frequency) when either body is static or kinematic.
    pub bias_rate: Lanes,
    /// Soft constraint mass scale, in 0..1. The impulse scale of the soft step is
    /// `1 - mass_scale`, which the two-point solve below uses implicitly.
    pub mass_scale: Lanes,
    /// Cap on the speed at which this contact pushes overlap apart (m/s).
    pub max_push: Lanes,
    /// The manifold's two points; `active` tells which are real.
    pub points: [PointLanes; 2],
}

impl ContactBatch {
    /// True if `lane` holds no contact.
    pub fn is_padding(&self, lane: usize) -> bool {
        self.body_a[lane] == NULL_BODY && self.body_b[lane] == NULL_BODY
    }

    /// True if any point of any lane qualifies for a restitution impulse; both backends skip
    /// the batch otherwise, so they make the same decision.
    pub fn needs_restitution(&self, threshold: f32) -> bool {
        (0..LANES).any(|l| {
            self.restitution[l] > 0.0
                && self
                    .points
                    .iter()
                    .any(|p| p.relative_velocity[l] < -threshold && p.max_normal_impulse[l] > 0.0)
        })
    }
}

/// Constants of one solve pass.
#[derive(Clone, Copy, Debug)]
pub struct SolveParams {
    /// 1 / substep length.
    pub inv_h: f32,
    /// Overlap left alone (m): within it a contact is rigid and unbiased, so resting stacks
    /// neither sink nor get pushed apart.
    pub linear_slop: f32,
    /// True in the solve pass, false in the relax pass (no bias, full stiffness).
    pub use_bias: bool,
}

/// Lane values of one contact's constants.
struct Shared<R> {
    nx: R,
    ny: R,
    ma: R,
    ia: R,
    mb: R,
    ib: R,
}

impl<R: Real> Shared<R> {
    #[inline(always)]
    fn load(c: &ContactBatch, l: usize) -> Self {
        Shared {
            nx: R::load(&c.normal_x, l),
            ny: R::load(&c.normal_y, l),
            ma: R::load(&c.inv_mass_a, l),
            ia: R::load(&c.inv_inertia_a, l),
            mb: R::load(&c.inv_mass_b, l),
            ib: R::load(&c.inv_inertia_b, l),
        }
    }
}

/// Velocity of B's anchor minus velocity of A's anchor.
#[inline(always)]
fn relative_velocity<R: Real>(a: &BodyLanes<R>, b: &BodyLanes<R>, r: &[R; 4]) -> (R, R) {
    let [rax, ray, rbx, rby] = *r;
    let dvx = (b.vx - b.w * rby) - (a.vx - a.w * ray);
    let dvy = (b.vy + b.w * rbx) - (a.vy + a.w * rax);
    (dvx, dvy)
}

/// Applies impulse `(px, py)` at the anchors: minus on A, plus on B.
#[inline(always)]
fn apply<R: Real>(
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    k: &Shared<R>,
    r: &[R; 4],
    px: R,
    py: R,
) {
    let [rax, ray, rbx, rby] = *r;
    a.vx = a.vx - k.ma * px;
    a.vy = a.vy - k.ma * py;
    a.w = a.w - k.ia * (rax * py - ray * px);
    b.vx = b.vx + k.mb * px;
    b.vy = b.vy + k.mb * py;
    b.w = b.w + k.ib * (rbx * py - rby * px);
}

#[inline(always)]
fn anchors<R: Real>(p: &PointLanes, l: usize) -> [R; 4] {
    [
        R::load(&p.anchor_ax, l),
        R::load(&p.anchor_ay, l),
        R::load(&p.anchor_bx, l),
        R::load(&p.anchor_by, l),
    ]
}

#[inline(always)]
fn prepare_lanes<R: Real>(c: &mut ContactBatch, l: usize, a: &BodyLanes<R>, b: &BodyLanes<R>) {
    let k = Shared::<R>::load(c, l);
    let zero = R::splat(0.0);
    let one = R::splat(1.0);
    let (tx, ty) = (k.ny, -k.nx);
    for p in &mut c.points {
        let r = anchors::<R>(p, l);
        let [rax, ray, rbx, rby] = r;
        let active = R::load(&p.active, l).gt(zero);

        let rna = rax * k.ny - ray * k.nx;
        let rnb = rbx * k.ny - rby * k.nx;
        let kn = k.ma + k.mb + k.ia * rna * rna + k.ib * rnb * rnb;
        let normal_mass = R::select(active & kn.gt(zero), one / kn, zero);
        normal_mass.store(&mut p.normal_mass, l);

        let rta = rax * ty - ray * tx;
        let rtb = rbx * ty - rby * tx;
        let kt = k.ma + k.mb + k.ia * rta * rta + k.ib * rtb * rtb;
        let tangent_mass = R::select(active & kt.gt(zero), one / kt, zero);
        tangent_mass.store(&mut p.tangent_mass, l);

        // Current separation = base + n . (relative motion of the anchors).
        let separation = R::load(&p.base_separation, l);
        let base = separation - ((rbx - rax) * k.nx + (rby - ray) * k.ny);
        base.store(&mut p.base_separation, l);

        let (dvx, dvy) = relative_velocity(a, b, &r);
        (dvx * k.nx + dvy * k.ny).store(&mut p.relative_velocity, l);
        zero.store(&mut p.max_normal_impulse, l);
    }
}

#[inline(always)]
fn warm_start_lanes<R: Real>(
    c: &ContactBatch,
    l: usize,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
) {
    let k = Shared::<R>::load(c, l);
    let (tx, ty) = (k.ny, -k.nx);
    for p in &c.points {
        let r = anchors::<R>(p, l);
        let ni = R::load(&p.normal_impulse, l);
        let ti = R::load(&p.tangent_impulse, l);
        let px = k.nx * ni + tx * ti;
        let py = k.ny * ni + ty * ti;
        apply(a, b, &k, &r, px, py);
    }
}

#[inline(always)]
fn solve_lanes<R: Real>(
    c: &mut ContactBatch,
    l: usize,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    s: &SolveParams,
) {
    let k = Shared::<R>::load(c, l);
    let zero = R::splat(0.0);
    let one = R::splat(1.0);
    let inv_h = R::splat(s.inv_h);
    let (soft_bias, soft_mass) = if s.use_bias {
        (R::load(&c.bias_rate, l), R::load(&c.mass_scale, l))
    } else {
        (zero, one)
    };
    let slop = R::splat(s.linear_slop);
    let max_push = R::load(&c.max_push, l);

    // Per point: velocity error (normal velocity plus bias), soft mass scale, old impulse.
    let mut rs = [[zero; 4]; 2];
    let mut err = [zero; 2];
    let mut scale = [one; 2];
    let mut old = [zero; 2];
    for (j, p) in c.points.iter().enumerate() {
        let r = anchors::<R>(p, l);
        let [rax, ray, rbx, rby] = r;
        // Where the anchors are now, from the motion accumulated over the substeps.
        let prax = a.dqc * rax - a.dqs * ray;
        let pray = a.dqs * rax + a.dqc * ray;
        let prbx = b.dqc * rbx - b.dqs * rby;
        let prby = b.dqs * rbx + b.dqc * rby;
        let dx = (b.dpx - a.dpx) + (prbx - prax);
        let dy = (b.dpy - a.dpy) + (prby - pray);
        let separation = R::load(&p.base_separation, l) + (dx * k.nx + dy * k.ny);

        // A gap (speculative contact) may close exactly within this substep. Overlap within
        // the slop is held rigidly; deeper overlap is pushed out softly, no faster than the cap.
        let speculative = separation.gt(zero);
        let beyond = (separation + slop).min(zero);
        let in_slop = beyond.ge(zero);
        let soft_push = (soft_bias * beyond).max(-max_push);
        let bias = R::select(
            speculative,
            separation * inv_h,
            R::select(in_slop, zero, soft_push),
        );
        scale[j] = R::select(speculative | in_slop, one, soft_mass);
        let (dvx, dvy) = relative_velocity(a, b, &r);
        err[j] = (dvx * k.nx + dvy * k.ny) + bias;
        old[j] = R::load(&p.normal_impulse, l);
        rs[j] = r;
    }

    // Solve both points at once (a 2x2 complementarity problem): new impulses x >= 0 with
    // w = A x + q >= 0 and x.w = 0, where A is the effective mass matrix K with row i divided
    // by mass scale i, and q = err - K old. For one point this is the soft step's update
    // x = ms (old - err / k) exactly, since its impulse scale is 1 - ms. Solving the pair
    // together keeps tall stacks from the lean that point-by-point Gauss-Seidel builds up.
    let cross_n = |r: &[R; 4]| (r[0] * k.ny - r[1] * k.nx, r[2] * k.ny - r[3] * k.nx);
    let (ra1, rb1) = cross_n(&rs[0]);
    let (ra2, rb2) = cross_n(&rs[1]);
    let act1 = R::load(&c.points[0].active, l).gt(zero);
    let active2 = R::load(&c.points[1].active, l);
    let act2 = active2.gt(zero);
    let no2 = zero.ge(active2);
    let k11 = k.ma + k.mb + k.ia * ra1 * ra1 + k.ib * rb1 * rb1;
    let k22 = k.ma + k.mb + k.ia * ra2 * ra2 + k.ib * rb2 * rb2;
    let k12 = k.ma + k.mb + k.ia * ra1 * ra2 + k.ib * rb1 * rb2;
    let usable = act1 & k11.gt(zero);
    let k11 = R::select(usable, k11, one);
    let k22 = R::select(act2 & k22.gt(zero), k22, one);
    let k12 = R::select(act2, k12, zero);
    let (m11, m12) = (k11 / scale[0], k12 / scale[0]);
    let (m21, m22) = (k12 / scale[1], k22 / scale[1]);
    let q1 = err[0] - (k11 * old[0] + k12 * old[1]);
    let q2 = err[1] - (k12 * old[0] + k22 * old[1]);
    // Both pushing, unless the points nearly coincide (ill-conditioned matrix).
    let det_k = k11 * k22 - k12 * k12;
    let well = act2 & (k11 * k11).lt(R::splat(1000.0) * det_k);
    let det = R::select(well, m11 * m22 - m12 * m21, one);
    let x1 = (m12 * q2 - m22 * q1) / det;
    let x2 = (m21 * q1 - m11 * q2) / det;
    let both = well & x1.ge(zero) & x2.ge(zero);
    // Only point 1 pushing.
    let y1 = -q1 / m11;
    let only1 = y1.ge(zero) & ((m21 * y1 + q2).ge(zero) | no2);
    // Only point 2 pushing.
    let z2 = -q2 / m22;
    let only2 = act2 & z2.ge(zero) & (m12 * z2 + q1).ge(zero);
    // Neither pushing.
    let neither = q1.ge(zero) & (q2.ge(zero) | no2);
    // No case fits (nearly coincident points): one sequential pass instead.
    let s1 = (scale[0] * (old[0] - err[0] / k11)).max(zero);
    let err2 = err[1] + k12 * (s1 - old[0]);
    let s2 = R::select(act2, (scale[1] * (old[1] - err2 / k22)).max(zero), zero);

    let pick = |x: R, y: R, z: R, seq: R| {
        R::select(
            both,
            x,
            R::select(only1, y, R::select(only2, z, R::select(neither, zero, seq))),
        )
    };
    let new = [
        R::select(usable, pick(x1, y1, zero, s1), old[0]),
        R::select(usable, pick(x2, zero, z2, s2), old[1]),
    ];
    for (j, p) in c.points.iter_mut().enumerate() {
        let applied = new[j] - old[j];
        new[j].store(&mut p.normal_impulse, l);
        R::load(&p.max_normal_impulse, l)
            .max(applied)
            .store(&mut p.max_normal_impulse, l);
        apply(a, b, &k, &rs[j], k.nx * applied, k.ny * applied);
    }

    let friction = R::load(&c.friction, l);
    let (tx, ty) = (k.ny, -k.nx);
    for p in &mut c.points {
        let r = anchors::<R>(p, l);
        let (dvx, dvy) = relative_velocity(a, b, &r);
        let vt = dvx * tx + dvy * ty;
        let old = R::load(&p.tangent_impulse, l);
        // Coulomb cone: |friction impulse| <= mu * normal impulse.
        let limit = friction * R::load(&p.normal_impulse, l);
        let new = (old - R::load(&p.tangent_mass, l) * vt)
            .max(-limit)
            .min(limit);
        let applied = new - old;
        new.store(&mut p.tangent_impulse, l);
        apply(a, b, &k, &r, tx * applied, ty * applied);
    }
}

#[inline(always)]
fn restitution_lanes<R: Real>(
    c: &mut ContactBatch,
    l: usize,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    threshold: f32,
) {
    let k = Shared::<R>::load(c, l);
    let zero = R::splat(0.0);
    let e = R::load(&c.restitution, l);
    let bouncy = e.gt(zero);
    let threshold = R::splat(threshold);
    for p in &mut c.points {
        let r = anchors::<R>(p, l);
        let approach = R::load(&p.relative_velocity, l);
        let max_impulse = R::load(&p.max_normal_impulse, l);
        // Only points that approached faster than the threshold and were actually hit bounce.
        let hit = bouncy & approach.lt(-threshold) & max_impulse.gt(zero);
        let (dvx, dvy) = relative_velocity(a, b, &r);
        let vn = dvx * k.nx + dvy * k.ny;
        let old = R::load(&p.normal_impulse, l);
        let delta = -R::load(&p.normal_mass, l) * (vn + e * approach);
        let new = (old + delta).max(zero);
        let applied = R::select(hit, new - old, zero);
        R::select(hit, new, old).store(&mut p.normal_impulse, l);
        max_impulse.max(applied).store(&mut p.max_normal_impulse, l);
        apply(a, b, &k, &r, k.nx * applied, k.ny * applied);
    }
}

/// The f32x8 kernels: one call handles the eight lanes of a batch.
///
/// Safety, for every function: the batch's non-null body indices are in bounds of `states`,
/// and no other thread accesses the dynamic bodies of this batch during the call (the graph
/// coloring guarantees it). Results match the scalar twins bit for bit for finite inputs; with
/// NaN inputs only the NaN payloads may differ.
pub mod simd {
    use super::*;

    #[inline(always)]
    unsafe fn gather(states: States, index: &[u32; LANES]) -> BodyLanes<f32x8> {
        let rows = index.map(|i| states.read(i));
        BodyLanes::from_states(&rows)
    }

    /// Writes back the lanes whose body is dynamic (non-zero inverse mass).
    #[inline(always)]
    unsafe fn scatter(
        states: States,
        index: &[u32; LANES],
        inv_mass: &Lanes,
        lanes: &BodyLanes<f32x8>,
    ) {
        let rows = lanes.to_states();
        for l in 0..LANES {
            if index[l] != NULL_BODY && inv_mass[l] > 0.0 {
                states.write(index[l], rows[l]);
            }
        }
    }

    /// Computes effective masses, base separations and approach speeds.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn prepare(c: &mut ContactBatch, states: States) {
        let a = gather(states, &c.body_a);
        let b = gather(states, &c.body_b);
        prepare_lanes(c, 0, &a, &b);
    }

    /// Applies last step's impulses.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn warm_start(c: &mut ContactBatch, states: States) {
        let mut a = gather(states, &c.body_a);
        let mut b = gather(states, &c.body_b);
        warm_start_lanes(c, 0, &mut a, &mut b);
        scatter(states, &c.body_a, &c.inv_mass_a, &a);
        scatter(states, &c.body_b, &c.inv_mass_b, &b);
    }

    /// One iteration of normal and friction impulses.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve(c: &mut ContactBatch, states: States, params: &SolveParams) {
        let mut a = gather(states, &c.body_a);
        let mut b = gather(states, &c.body_b);
        solve_lanes(c, 0, &mut a, &mut b, params);
        scatter(states, &c.body_a, &c.inv_mass_a, &a);
        scatter(states, &c.body_b, &c.inv_mass_b, &b);
    }

    /// Bounce impulses for points that approached faster than `threshold`.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn restitution(c: &mut ContactBatch, states: States, threshold: f32) {
        let mut a = gather(states, &c.body_a);
        let mut b = gather(states, &c.body_b);
        restitution_lanes(c, 0, &mut a, &mut b, threshold);
        scatter(states, &c.body_a, &c.inv_mass_a, &a);
        scatter(states, &c.body_b, &c.inv_mass_b, &b);
    }
}

/// The one-lane twins: the same per-lane arithmetic, one contact at a time, padding lanes
/// skipped. Safety, for every function: as for [`simd`].
pub mod scalar {
    use super::*;

    /// Runs `kernel` on every contact lane; writes the dynamic bodies back when `write`.
    #[inline(always)]
    unsafe fn each_lane(
        c: &mut ContactBatch,
        states: States,
        write: bool,
        mut kernel: impl FnMut(&mut ContactBatch, usize, &mut BodyLanes<f32>, &mut BodyLanes<f32>),
    ) {
        for l in 0..LANES {
            if c.is_padding(l) {
                continue;
            }
            let (ia, ib) = (c.body_a[l], c.body_b[l]);
            let mut a = BodyLanes::from_state(&states.read(ia));
            let mut b = BodyLanes::from_state(&states.read(ib));
            kernel(c, l, &mut a, &mut b);
            if !write {
                continue;
            }
            if ia != NULL_BODY && c.inv_mass_a[l] > 0.0 {
                states.write(ia, a.to_state());
            }
            if ib != NULL_BODY && c.inv_mass_b[l] > 0.0 {
                states.write(ib, b.to_state());
            }
        }
    }

    /// Scalar twin of [`simd::prepare`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn prepare(c: &mut ContactBatch, states: States) {
        each_lane(c, states, false, |c, l, a, b| prepare_lanes(c, l, a, b));
    }

    /// Scalar twin of [`simd::warm_start`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn warm_start(c: &mut ContactBatch, states: States) {
        each_lane(c, states, true, |c, l, a, b| warm_start_lanes(c, l, a, b));
    }

    /// Scalar twin of [`simd::solve`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve(c: &mut ContactBatch, states: States, params: &SolveParams) {
        each_lane(c, states, true, |c, l, a, b| {
            solve_lanes(c, l, a, b, params)
        });
    }

    /// Scalar twin of [`simd::restitution`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn restitution(c: &mut ContactBatch, states: States, threshold: f32) {
        each_lane(c, states, true, |c, l, a, b| {
            restitution_lanes(c, l, a, b, threshold)
        });
    }
}
