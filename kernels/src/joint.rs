//! Pins, eight to a batch: the point constraint of a revolute joint without limits or motor,
//! which is that joint's whole solve.
//!
//! The engine packs the pins of one joint color into batches, so the eight lanes of a batch
//! share no dynamic body. The operations per lane are those of the engine's scalar joint solver
//! for such a joint (`joint_solver` in batch2d), in the same order, so the f32x8 kernels and
//! their scalar twins give the same bits.
//!
//! A pass finds each pin's arms and its 2x2 block from the motion so far only where the
//! positions moved since the last pass that found them, and otherwise reads them from the
//! batch, where that pass kept them; a pass that reads them gathers and scatters velocities
//! alone. The positions move once per substep, between its biased passes and its relax pass:
//! so the relax finds its own and keeps them, and the next substep's warm start and biased
//! passes read them (only the velocities change in between). The first substep's warm start,
//! with no relax before it in the step, finds them.
//!
//! What a pass starts from, each pin's arms and the offset between its bodies' centres at
//! the start of the step ([`PinStart`]), [`simd::arms`] takes eight pins at a time from the
//! pins' frames ([`PinFrames`]: their bodies and their anchors in the bodies' frames, which
//! change only with the joints) and the bodies' centres and rotations.

use crate::body::{BodyLanes, States, NULL_BODY};
use crate::real::{array_of, reread, Lanes8, Real, LANES};
use bytemuck::{Pod, Zeroable};
use wide::f32x8;

type Lanes = [f32; LANES];

/// Eight pins. A padding lane has `NULL_BODY` on both sides and zero everywhere else.
///
/// Every pass streams the batches through the cache, so a batch holds each lane's bodies once,
/// as the words its gathers address ([`PinBatch::bodies`] gives them back as solver states).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PinBatch {
    /// Where the solver states of A and B (`NULL_BODY` for a body the solver does not move)
    /// begin in the solver's rows, in the words of [`States::word`]: what the f32x8 gathers
    /// and scatters address (with one scaled index per lane, not an index's shift as well).
    pub word_a: [u32; LANES],
    /// See `word_a`.
    pub word_b: [u32; LANES],
    /// Inverse masses and inertias; zero for a body the joint cannot move.
    pub inv_mass_a: Lanes,
    /// See `inv_mass_a`.
    pub inv_mass_b: Lanes,
    /// See `inv_mass_a`.
    pub inv_inertia_a: Lanes,
    /// See `inv_mass_a`.
    pub inv_inertia_b: Lanes,
    /// The accumulated impulse on B (A gets the opposite), world frame: x.
    pub impulse_x: Lanes,
    /// ... y.
    pub impulse_y: Lanes,
    /// An angular impulse the warm start applies too: what a revolute joint's motor and
    /// limits had accumulated before they were taken off (zero otherwise).
    pub angular: Lanes,
    /// The block of the motion so far, kept by the pass that found it for the passes after it
    /// (see the module documentation): A's arm to B's anchor, x.
    pub arm_ax: Lanes,
    /// ... y.
    pub arm_ay: Lanes,
    /// B's arm to its anchor: x.
    pub arm_bx: Lanes,
    /// ... y.
    pub arm_by: Lanes,
    /// The gap from A's anchor to B's: x.
    pub gap_x: Lanes,
    /// ... y.
    pub gap_y: Lanes,
    /// The 2x2 block `[k11 k12; k12 k22]` (zero where it is singular).
    pub k11: Lanes,
    /// See `k11`.
    pub k12: Lanes,
    /// See `k11`.
    pub k22: Lanes,
    /// One over the block's determinant (zero where it is singular).
    pub inv_det: Lanes,
    /// Bit `l` set where lane `l` writes its body A back: a state that the pin can move (see
    /// [`PinBatch::set_bodies`]). Found when the lane is filled, not by every pass.
    pub writes_a: u32,
    /// The same for body B.
    pub writes_b: u32,
    /// Bit `l` set where lane `l`'s block is regular, clear where no body can move: a mask
    /// rather than a lane of its own, which every pass would stream through the cache.
    pub regular: u32,
}

impl PinBatch {
    /// A batch of padding lanes.
    pub fn empty() -> PinBatch {
        PinBatch {
            word_a: [States::word(NULL_BODY); LANES],
            word_b: [States::word(NULL_BODY); LANES],
            ..PinBatch::zeroed()
        }
    }

    /// Sets lane `l`'s solver states (`NULL_BODY` for a body the solver does not move), inverse
    /// masses and inverse inertias, A's then B's, and which of them the lane writes back.
    pub fn set_bodies(
        &mut self,
        l: usize,
        body: [u32; 2],
        inv_mass: [f32; 2],
        inv_inertia: [f32; 2],
    ) {
        self.word_a[l] = States::word(body[0]);
        self.word_b[l] = States::word(body[1]);
        self.inv_mass_a[l] = inv_mass[0];
        self.inv_mass_b[l] = inv_mass[1];
        self.inv_inertia_a[l] = inv_inertia[0];
        self.inv_inertia_b[l] = inv_inertia[1];
        let bit = |writes: bool| (writes as u32) << l;
        let keep = !(1 << l);
        self.writes_a = self.writes_a & keep | bit(moves(body[0], inv_mass[0], inv_inertia[0]));
        self.writes_b = self.writes_b & keep | bit(moves(body[1], inv_mass[1], inv_inertia[1]));
    }

    /// Lane `l`'s solver states of A and B (`NULL_BODY` for a body the solver does not move),
    /// as [`PinBatch::set_bodies`] took them.
    pub fn bodies(&self, l: usize) -> [u32; 2] {
        [self.word_a[l], self.word_b[l]].map(States::index_of_word)
    }

    /// Makes lane `l` padding.
    pub fn clear(&mut self, l: usize) {
        self.word_a[l] = States::word(NULL_BODY);
        self.word_b[l] = States::word(NULL_BODY);
        self.writes_a &= !(1 << l);
        self.writes_b &= !(1 << l);
        self.regular &= !(1 << l);
        for lanes in [
            &mut self.inv_mass_a,
            &mut self.inv_mass_b,
            &mut self.inv_inertia_a,
            &mut self.inv_inertia_b,
            &mut self.impulse_x,
            &mut self.impulse_y,
            &mut self.angular,
            &mut self.arm_ax,
            &mut self.arm_ay,
            &mut self.arm_bx,
            &mut self.arm_by,
            &mut self.gap_x,
            &mut self.gap_y,
            &mut self.k11,
            &mut self.k12,
            &mut self.k22,
            &mut self.inv_det,
        ] {
            lanes[l] = 0.0;
        }
    }
}

/// What the pins of a batch start a step from: each lane's anchors relative to its bodies'
/// centres of mass and B's centre minus A's, world frame, at the start of the step.
/// [`simd::arms`] takes them from the batch's [`PinFrames`]; the step's first warm start and
/// its relax passes read them. Apart from the [`PinBatch`], because the biased passes, half of
/// a step's, never read them: each pass streams its batches through the cache, and a batch
/// without them is a third smaller.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PinStart {
    /// A's anchor relative to its centre of mass: x.
    pub rax: Lanes,
    /// ... y.
    pub ray: Lanes,
    /// B's anchor relative to its centre of mass: x.
    pub rbx: Lanes,
    /// ... y.
    pub rby: Lanes,
    /// B's centre minus A's: x.
    pub dcx: Lanes,
    /// ... y.
    pub dcy: Lanes,
}

impl PinStart {
    /// Makes lane `l` padding's: zero.
    pub fn clear(&mut self, l: usize) {
        for lanes in [
            &mut self.rax,
            &mut self.ray,
            &mut self.rbx,
            &mut self.rby,
            &mut self.dcx,
            &mut self.dcy,
        ] {
            lanes[l] = 0.0;
        }
    }
}

/// Where the pins of a batch hang, which changes only when the joints or the bodies do: each
/// lane's bodies, as places in the engine's columns of body centres and rotations, and its
/// anchors in the bodies' frames. [`simd::arms`] takes a step's arms of the batch from it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PinFrames {
    /// A's place in the body columns; where A is the fixed world, B's (read, then unused).
    pub body_a: [u32; LANES],
    /// B's place in the body columns; 0 in a padding lane (read, then unused).
    pub body_b: [u32; LANES],
    /// A's anchor in A's frame (in the world's where A is the fixed world): x.
    pub local_ax: Lanes,
    /// ... y.
    pub local_ay: Lanes,
    /// B's anchor in B's frame: x.
    pub local_bx: Lanes,
    /// ... y.
    pub local_by: Lanes,
    /// 1 where A is the fixed world, 0 elsewhere.
    pub fixed_a: Lanes,
    /// 1 where the lane has a pin, 0 in a padding lane (whose batch lane stays zero).
    pub live: Lanes,
}

/// The body columns a step's arms are taken from: each body's centre and rotation (cosine,
/// sine), by place.
#[derive(Clone, Copy, Debug)]
pub struct BodyFrames<'a> {
    /// Centres of mass, world frame.
    pub center: &'a [[f32; 2]],
    /// Rotations as (cosine, sine).
    pub rotation: &'a [[f32; 2]],
}

/// How a pin corrects its error in one pass: a velocity bias per metre of gap, and the soft
/// step's mass and impulse scales (0, 1 and 0 in the relax pass).
#[derive(Clone, Copy, Debug)]
pub struct PinParams {
    /// Velocity bias per metre of gap.
    pub bias_rate: f32,
    /// Scale of the effective mass.
    pub mass_scale: f32,
    /// Scale of the accumulated impulse taken off.
    pub impulse_scale: f32,
}

/// The lanes of a batch's [`PinBatch`] or [`PinStart`] (`T`) at one width: all eight
/// ([`Lanes8`]) or one (the scalar twins).
trait Pins<T, R> {
    fn get(&self, field: impl Fn(&T) -> &Lanes) -> R;
}

/// [`Pins`] that the kernel writes as well.
trait PinsMut<T, R>: Pins<T, R> {
    fn set(&mut self, field: impl Fn(&mut T) -> &mut Lanes, v: R);
}

/// All eight lanes of a batch's record.
macro_rules! all_lanes {
    ($t:ty) => {
        impl<V: Lanes8> Pins<$t, V> for $t {
            #[inline(always)]
            fn get(&self, field: impl Fn(&$t) -> &Lanes) -> V {
                V::load(field(self))
            }
        }

        impl<V: Lanes8> PinsMut<$t, V> for $t {
            #[inline(always)]
            fn set(&mut self, field: impl Fn(&mut $t) -> &mut Lanes, v: V) {
                *field(self) = v.store();
            }
        }
    };
}

all_lanes!(PinBatch);
all_lanes!(PinStart);

/// Lane `.1` of a batch's record.
struct Lane<'a, T>(&'a mut T, usize);

impl<T> Pins<T, f32> for Lane<'_, T> {
    #[inline(always)]
    fn get(&self, field: impl Fn(&T) -> &Lanes) -> f32 {
        field(self.0)[self.1]
    }
}

impl<T> PinsMut<T, f32> for Lane<'_, T> {
    #[inline(always)]
    fn set(&mut self, field: impl Fn(&mut T) -> &mut Lanes, v: f32) {
        field(self.0)[self.1] = v;
    }
}

/// Where a batch's blocks are regular (see [`PinBatch::regular`]), at one width.
trait Regular<R: Real> {
    fn regular(&self) -> R::Mask;
    fn set_regular(&mut self, regular: R::Mask);
}

impl<V: Lanes8> Regular<V> for PinBatch {
    #[inline(always)]
    fn regular(&self) -> V::Mask {
        V::from_bitmask(self.regular)
    }
    #[inline(always)]
    fn set_regular(&mut self, regular: V::Mask) {
        self.regular = V::bitmask(regular);
    }
}

impl Regular<f32> for Lane<'_, PinBatch> {
    #[inline(always)]
    fn regular(&self) -> bool {
        self.0.regular >> self.1 & 1 != 0
    }
    #[inline(always)]
    fn set_regular(&mut self, regular: bool) {
        let l = self.1;
        self.0.regular = self.0.regular & !(1 << l) | (regular as u32) << l;
    }
}

/// Lane `.1` of a batch's record that the kernel only reads.
struct LaneRef<'a, T>(&'a T, usize);

impl<T> Pins<T, f32> for LaneRef<'_, T> {
    #[inline(always)]
    fn get(&self, field: impl Fn(&T) -> &Lanes) -> f32 {
        field(self.0)[self.1]
    }
}

/// The masses, the arms from the centres to B's anchor (where the impulse acts on both
/// bodies, so that it carries no moment of its own; see `Pair::point_arms` in batch2d), and
/// the gap between the anchors, at the motion since the step began.
struct Arms<R> {
    ma: R,
    mb: R,
    ia: R,
    ib: R,
    rax: R,
    ray: R,
    rbx: R,
    rby: R,
    dx: R,
    dy: R,
}

#[inline(always)]
fn arms<R: Real>(
    c: &impl Pins<PinBatch, R>,
    s: &impl Pins<PinStart, R>,
    a: &BodyLanes<R>,
    b: &BodyLanes<R>,
) -> Arms<R> {
    let (rax, ray) = (s.get(|s| &s.rax), s.get(|s| &s.ray));
    let (rbx, rby) = (s.get(|s| &s.rbx), s.get(|s| &s.rby));
    let (rax, ray) = (a.dqc * rax - a.dqs * ray, a.dqs * rax + a.dqc * ray);
    let (rbx, rby) = (b.dqc * rbx - b.dqs * rby, b.dqs * rbx + b.dqc * rby);
    let dx = ((b.dpx - a.dpx) + s.get(|s| &s.dcx)) + (rbx - rax);
    let dy = ((b.dpy - a.dpy) + s.get(|s| &s.dcy)) + (rby - ray);
    Arms {
        ma: c.get(|c| &c.inv_mass_a),
        mb: c.get(|c| &c.inv_mass_b),
        ia: c.get(|c| &c.inv_inertia_a),
        ib: c.get(|c| &c.inv_inertia_b),
        rax: rax + dx,
        ray: ray + dy,
        rbx,
        rby,
        dx,
        dy,
    }
}

/// Applies `(px, py)` to B, and the opposite to A, at B's anchor.
#[inline(always)]
fn apply<R: Real>(r: &Arms<R>, a: &mut BodyLanes<R>, b: &mut BodyLanes<R>, px: R, py: R) {
    a.vx = a.vx - px * r.ma;
    a.vy = a.vy - py * r.ma;
    a.w = a.w - r.ia * (r.rax * py - r.ray * px);
    b.vx = b.vx + px * r.mb;
    b.vy = b.vy + py * r.mb;
    b.w = b.w + r.ib * (r.rbx * py - r.rby * px);
}

/// A pin's 2x2 block at the arms `r`, and whether it is regular (some body can move).
struct Block<R: Real> {
    k11: R,
    k12: R,
    k22: R,
    inv: R,
    regular: R::Mask,
}

#[inline(always)]
fn block<R: Real>(r: &Arms<R>) -> Block<R> {
    let m = r.ma + r.mb;
    let k11 = (m + r.ray * r.ray * r.ia) + r.rby * r.rby * r.ib;
    let k12 = -r.ray * r.rax * r.ia - r.rby * r.rbx * r.ib;
    let k22 = (m + r.rax * r.rax * r.ia) + r.rbx * r.rbx * r.ib;
    // The determinant as a sum of terms that are never negative, not `k11 k22 - k12^2`, whose
    // products agree in more digits than an f32 holds where an anchor lies far from a small
    // body.
    let arms = r.ia * (r.rax * r.rax + r.ray * r.ray) + r.ib * (r.rbx * r.rbx + r.rby * r.rby);
    let cross = r.rax * r.rby - r.ray * r.rbx;
    let det = (m * m + m * arms) + (r.ia * r.ib) * (cross * cross);
    let zero = R::splat(0.0);
    Block {
        k11,
        k12,
        k22,
        inv: R::splat(1.0) / det,
        regular: det.gt(zero) | det.lt(zero),
    }
}

/// Keeps the arms and the block for the passes that follow until the positions move (zero
/// where the block is singular: a padding lane stays zero).
#[inline(always)]
fn keep<R: Real>(c: &mut (impl PinsMut<PinBatch, R> + Regular<R>), r: &Arms<R>, k: &Block<R>) {
    let zero = R::splat(0.0);
    let or_zero = |v: R| R::select(k.regular, v, zero);
    c.set(|c| &mut c.arm_ax, r.rax);
    c.set(|c| &mut c.arm_ay, r.ray);
    c.set(|c| &mut c.arm_bx, r.rbx);
    c.set(|c| &mut c.arm_by, r.rby);
    c.set(|c| &mut c.gap_x, r.dx);
    c.set(|c| &mut c.gap_y, r.dy);
    c.set(|c| &mut c.k11, or_zero(k.k11));
    c.set(|c| &mut c.k12, or_zero(k.k12));
    c.set(|c| &mut c.k22, or_zero(k.k22));
    c.set(|c| &mut c.inv_det, or_zero(k.inv));
    c.set_regular(k.regular);
}

/// The arms a pass before kept.
#[inline(always)]
fn kept_arms<R: Real>(c: &impl Pins<PinBatch, R>) -> Arms<R> {
    Arms {
        ma: c.get(|c| &c.inv_mass_a),
        mb: c.get(|c| &c.inv_mass_b),
        ia: c.get(|c| &c.inv_inertia_a),
        ib: c.get(|c| &c.inv_inertia_b),
        rax: c.get(|c| &c.arm_ax),
        ray: c.get(|c| &c.arm_ay),
        rbx: c.get(|c| &c.arm_bx),
        rby: c.get(|c| &c.arm_by),
        dx: c.get(|c| &c.gap_x),
        dy: c.get(|c| &c.gap_y),
    }
}

/// The arms and the block a pass before kept.
#[inline(always)]
fn kept<R: Real>(c: &(impl Pins<PinBatch, R> + Regular<R>)) -> (Arms<R>, Block<R>) {
    let r = kept_arms(c);
    let k = Block {
        k11: c.get(|c| &c.k11),
        k12: c.get(|c| &c.k12),
        k22: c.get(|c| &c.k22),
        inv: c.get(|c| &c.inv_det),
        regular: c.regular(),
    };
    (r, k)
}

/// The first substep's warm start: finds the arms and the block, and keeps them.
#[inline(always)]
fn warm_start_lanes<R: Real>(
    c: &mut (impl PinsMut<PinBatch, R> + Regular<R>),
    s: &impl Pins<PinStart, R>,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
) {
    let r = arms(c, s, a, b);
    keep(c, &r, &block(&r));
    apply_warm_start(c, &r, a, b);
}

/// A later substep's warm start, at the arms and the block the relax before kept.
#[inline(always)]
fn warm_start_kept_lanes<R: Real>(
    c: &mut (impl PinsMut<PinBatch, R> + Regular<R>),
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
) {
    let (r, _) = kept(c);
    apply_warm_start(c, &r, a, b);
}

/// Applies the accumulated impulses at the arms `r`.
#[inline(always)]
fn apply_warm_start<R: Real>(
    c: &impl Pins<PinBatch, R>,
    r: &Arms<R>,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
) {
    apply(r, a, b, c.get(|c| &c.impulse_x), c.get(|c| &c.impulse_y));
    // The angular row: no linear part (a zero normal, as the scalar solver's row has).
    let angular = c.get(|c| &c.angular);
    let zero = R::splat(0.0);
    a.vx = a.vx - zero * (r.ma * angular);
    a.vy = a.vy - zero * (r.ma * angular);
    a.w = a.w - r.ia * angular;
    b.vx = b.vx + zero * (r.mb * angular);
    b.vy = b.vy + zero * (r.mb * angular);
    b.w = b.w + r.ib * angular;
}

/// One pass at the arms `r` and the block `k`, which a pass kept in the batch (this one, or
/// one before).
#[inline(always)]
fn solve_lanes<R: Real>(
    c: &mut impl PinsMut<PinBatch, R>,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    r: &Arms<R>,
    k: &Block<R>,
    p: &PinParams,
) {
    let (dx, dy) = (r.dx, r.dy);
    // The anchors' relative velocity.
    let cdot_x = (b.vx + -b.w * r.rby) - (a.vx + -a.w * r.ray);
    let cdot_y = (b.vy + b.w * r.rbx) - (a.vy + a.w * r.rax);
    let bias = R::splat(p.bias_rate);
    let (rx, ry) = (cdot_x + dx * bias, cdot_y + dy * bias);
    // The 2x2 solve; zero where no body can move (a singular matrix).
    let zero = R::splat(0.0);
    let x = R::select(k.regular, k.inv * (k.k22 * rx - k.k12 * ry), zero);
    let y = R::select(k.regular, k.inv * (k.k11 * ry - k.k12 * rx), zero);
    let (old_x, old_y) = (c.get(|c| &c.impulse_x), c.get(|c| &c.impulse_y));
    let (ms, is) = (R::splat(-p.mass_scale), R::splat(p.impulse_scale));
    let total_x = old_x + (x * ms - old_x * is);
    let total_y = old_y + (y * ms - old_y * is);
    c.set(|c| &mut c.impulse_x, total_x);
    c.set(|c| &mut c.impulse_y, total_y);
    // The masses and arms applied with read from the batch again, where they are used (see
    // `reread`): kept from before the 2x2 solve, some of them went to the stack and back.
    // The gap, read with them, goes unused by `apply`.
    let r = &kept_arms(reread(c));
    apply(r, a, b, total_x - old_x, total_y - old_y);
}

/// A biased pass, at the arms and the block the substep's warm start kept.
#[inline(always)]
fn solve_kept_lanes<R: Real>(
    c: &mut (impl PinsMut<PinBatch, R> + Regular<R>),
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    p: &PinParams,
) {
    let (r, k) = kept(c);
    solve_lanes(c, a, b, &r, &k, p);
}

/// The relax pass, at the arms and the block of the motion so far, which it keeps for the
/// next substep. `CROWDED` where the lanes' registers are too few for the arms, the block and
/// both bodies' velocities at once (AVX2's sixteen): the solve then reads the arms and the
/// block back from the batch (see `reread`), rather than keep those it found through the
/// stack.
#[inline(always)]
fn relax_lanes<R: Real, const CROWDED: bool>(
    c: &mut (impl PinsMut<PinBatch, R> + Regular<R>),
    s: &impl Pins<PinStart, R>,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    p: &PinParams,
) {
    let r = arms(c, s, a, b);
    keep(c, &r, &block(&r));
    // At the block as kept, as the biased passes: zero where it is singular, which the solve
    // leaves out there anyway.
    match CROWDED {
        true => solve_kept_lanes(reread(c), a, b, p),
        false => solve_kept_lanes(c, a, b, p),
    }
}

/// A lane's frames (see [`PinFrames`]) and its bodies' centres and rotations.
struct FrameLanes<R: Real> {
    local_ax: R,
    local_ay: R,
    local_bx: R,
    local_by: R,
    fixed_a: R::Mask,
    live: R::Mask,
    center_a: [R; 2],
    rotation_a: [R; 2],
    center_b: [R; 2],
    rotation_b: [R; 2],
}

/// Sets the lanes' anchors relative to the centres and B's centre minus A's, world frame, as
/// the engine's `Joint::arms` finds them (each anchor rotated into the world frame, the fixed
/// world's anchor a world point with no arm), in the same float operations. Padding lanes
/// keep what they hold.
#[inline(always)]
fn arms_lanes<R: Real>(c: &mut impl PinsMut<PinStart, R>, f: &FrameLanes<R>) {
    let zero = R::splat(0.0);
    let rotate = |[cos, sin]: [R; 2], x: R, y: R| (cos * x - sin * y, sin * x + cos * y);
    let (rax, ray) = rotate(f.rotation_a, f.local_ax, f.local_ay);
    let (rbx, rby) = rotate(f.rotation_b, f.local_bx, f.local_by);
    let (rax, ray) = (
        R::select(f.fixed_a, zero, rax),
        R::select(f.fixed_a, zero, ray),
    );
    let cax = R::select(f.fixed_a, f.local_ax, f.center_a[0]);
    let cay = R::select(f.fixed_a, f.local_ay, f.center_a[1]);
    let (dcx, dcy) = (f.center_b[0] - cax, f.center_b[1] - cay);
    let old = [
        c.get(|c| &c.rax),
        c.get(|c| &c.ray),
        c.get(|c| &c.rbx),
        c.get(|c| &c.rby),
        c.get(|c| &c.dcx),
        c.get(|c| &c.dcy),
    ];
    let live = |i: usize, new: R| R::select(f.live, new, old[i]);
    c.set(|c| &mut c.rax, live(0, rax));
    c.set(|c| &mut c.ray, live(1, ray));
    c.set(|c| &mut c.rbx, live(2, rbx));
    c.set(|c| &mut c.rby, live(3, rby));
    c.set(|c| &mut c.dcx, live(4, dcx));
    c.set(|c| &mut c.dcy, live(5, dcy));
}

/// Whether the pins write a lane's body back: it has a state and can move.
#[inline(always)]
fn moves(index: u32, inv_mass: f32, inv_inertia: f32) -> bool {
    index != NULL_BODY && inv_mass + inv_inertia > 0.0
}

/// The batch kernels, generic over the vector type: [`simd`] instantiates them with
/// `wide::f32x8`, the x86_64 entry points (`crate::x86`) with their own. Safety: as for [`simd`].
pub(crate) mod batches {
    use super::*;

    // (No closures here: see `contact::batches`.)

    #[inline(always)]
    unsafe fn gather<V: Lanes8>(c: &PinBatch, states: States) -> (BodyLanes<V>, BodyLanes<V>) {
        (
            BodyLanes::from_states(&array_of(|l| states.read_word(c.word_a[l]))),
            BodyLanes::from_states(&array_of(|l| states.read_word(c.word_b[l]))),
        )
    }

    /// The velocities alone of A and B (the motion fields zero): what a pass reads whose arms
    /// and block a pass before kept.
    #[inline(always)]
    unsafe fn gather_velocities<V: Lanes8>(
        c: &PinBatch,
        states: States,
    ) -> (BodyLanes<V>, BodyLanes<V>) {
        let [avx, avy, aw] = V::from_fours(array_of(|l| states.read_velocity_word(c.word_a[l])));
        let [bvx, bvy, bw] = V::from_fours(array_of(|l| states.read_velocity_word(c.word_b[l])));
        (
            BodyLanes::of_velocities(avx, avy, aw),
            BodyLanes::of_velocities(bvx, bvy, bw),
        )
    }

    /// The velocity halves of the states of `s`: all that a pass changes.
    #[inline(always)]
    fn velocity_rows<V: Lanes8>(s: &BodyLanes<V>) -> [[f32; 4]; LANES] {
        V::to_fours(s.vx, s.vy, s.w)
    }

    #[inline(always)]
    unsafe fn scatter<V: Lanes8>(
        c: &PinBatch,
        states: States,
        (a, b): (BodyLanes<V>, BodyLanes<V>),
    ) {
        let (moves_a, moves_b) = (c.writes_a, c.writes_b);
        // Most batches move both bodies of every lane: no test per lane. (Each branch
        // transposes the velocities itself: transposed before the test, for both branches,
        // the rows are held in registers until the stores, each upper half extracted to one
        // of its own; transposed beside the stores, each goes to memory with the instruction
        // that extracts it.)
        if moves_a & moves_b == (1 << LANES) - 1 {
            let (a, b) = (velocity_rows(&a), velocity_rows(&b));
            for l in 0..LANES {
                states.write_velocity_row_word(c.word_a[l], a[l]);
                states.write_velocity_row_word(c.word_b[l], b[l]);
            }
            return;
        }
        let (a, b) = (velocity_rows(&a), velocity_rows(&b));
        for l in 0..LANES {
            if moves_a >> l & 1 != 0 {
                states.write_velocity_row_word(c.word_a[l], a[l]);
            }
            if moves_b >> l & 1 != 0 {
                states.write_velocity_row_word(c.word_b[l], b[l]);
            }
        }
    }

    #[inline(always)]
    pub(crate) fn arms<V: Lanes8>(c: &mut PinStart, f: &PinFrames, bodies: BodyFrames) {
        // One test of the places per batch, not one per lane and column: of the highest,
        // found over the batch's places as vectors. (Read apart from those the gathers read,
        // see `reread`: read once for both, they were compared one by one.)
        let places = bodies.center.len().min(bodies.rotation.len());
        let mut highest = 0;
        let at = reread(f);
        for l in 0..LANES {
            highest = highest.max(at.body_a[l]).max(at.body_b[l]);
        }
        assert!((highest as usize) < places, "a pin's body out of bounds");
        macro_rules! column {
            ($column:expr, $at:expr) => {
                V::from_pairs(array_of(|l| {
                    // SAFETY: every place is in bounds of both columns (tested above).
                    unsafe { *$column.get_unchecked($at[l] as usize) }
                }))
            };
        }
        let zero = V::splat(0.0);
        let lanes = FrameLanes {
            local_ax: V::load(&f.local_ax),
            local_ay: V::load(&f.local_ay),
            local_bx: V::load(&f.local_bx),
            local_by: V::load(&f.local_by),
            fixed_a: V::load(&f.fixed_a).gt(zero),
            live: V::load(&f.live).gt(zero),
            center_a: column!(bodies.center, f.body_a),
            rotation_a: column!(bodies.rotation, f.body_a),
            center_b: column!(bodies.center, f.body_b),
            rotation_b: column!(bodies.rotation, f.body_b),
        };
        arms_lanes(c, &lanes);
    }

    #[inline(always)]
    pub(crate) unsafe fn warm_start<V: Lanes8>(c: &mut PinBatch, s: &PinStart, states: States) {
        let (mut a, mut b) = gather::<V>(c, states);
        warm_start_lanes(c, s, &mut a, &mut b);
        scatter(c, states, (a, b));
    }

    #[inline(always)]
    pub(crate) unsafe fn warm_start_kept<V: Lanes8>(c: &mut PinBatch, states: States) {
        let (mut a, mut b) = gather_velocities::<V>(c, states);
        warm_start_kept_lanes(c, &mut a, &mut b);
        // (The batch read again for the scatter: this pass writes nothing of it, and the
        // compiler kept the sixteen words it gathered with from the gather on instead, more
        // than the general registers hold.)
        scatter(reread(c), states, (a, b));
    }

    #[inline(always)]
    pub(crate) unsafe fn solve<V: Lanes8>(c: &mut PinBatch, states: States, params: &PinParams) {
        let (mut a, mut b) = gather_velocities::<V>(c, states);
        solve_kept_lanes(c, &mut a, &mut b, params);
        scatter(c, states, (a, b));
    }

    /// `CROWDED`: see `relax_lanes`.
    #[inline(always)]
    pub(crate) unsafe fn relax<V: Lanes8, const CROWDED: bool>(
        c: &mut PinBatch,
        s: &PinStart,
        states: States,
        params: &PinParams,
    ) {
        let (mut a, mut b) = gather::<V>(c, states);
        relax_lanes::<V, CROWDED>(c, s, &mut a, &mut b, params);
        scatter(c, states, (a, b));
    }
}

/// The f32x8 kernels: one call handles the batches of a slice, one after another, eight pins
/// at a time.
///
/// Safety, for every function: the batches' non-null body indices are in bounds of `states`, and
/// no other thread accesses the bodies the batches move during the call (the joint coloring
/// guarantees it). Results match the scalar twins bit for bit.
pub mod simd {
    use super::*;

    /// Sets each batch's start (`c`) for a step: its anchors relative to the centres and B's
    /// centre minus A's, from its frames (`f`, one per batch) and the bodies' centres and
    /// rotations now. Panics where a body place of `f` is out of bounds of `bodies`.
    pub fn arms(c: &mut [PinStart], f: &[PinFrames], bodies: BodyFrames) {
        for (c, f) in c.iter_mut().zip(f) {
            batches::arms::<f32x8>(c, f, bodies);
        }
    }

    /// Applies the accumulated impulses again: in the `first` substep of a step finding the
    /// arms and blocks from the batches' starts (`s`, one per batch), in a later one at those
    /// the relax before kept.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn warm_start(c: &mut [PinBatch], s: &[PinStart], states: States, first: bool) {
        for (c, s) in c.iter_mut().zip(s) {
            match first {
                true => batches::warm_start::<f32x8>(c, s, states),
                false => batches::warm_start_kept::<f32x8>(c, states),
            }
        }
    }

    /// One biased pass, after the substep's warm start.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve(c: &mut [PinBatch], states: States, params: &PinParams) {
        for c in c {
            batches::solve::<f32x8>(c, states, params);
        }
    }

    /// The relax pass, after the positions moved, from the batches' starts (`s`, one per
    /// batch); keeps the arms and blocks for the next substep.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn relax(c: &mut [PinBatch], s: &[PinStart], states: States, params: &PinParams) {
        for (c, s) in c.iter_mut().zip(s) {
            batches::relax::<f32x8, false>(c, s, states, params);
        }
    }
}

/// The one-lane twins of [`simd`], lane after lane.
///
/// Safety, for every function: as for [`simd`].
pub mod scalar {
    use super::*;

    #[inline(always)]
    unsafe fn each_lane(
        c: &mut PinBatch,
        states: States,
        mut kernel: impl FnMut(&mut Lane<PinBatch>, usize, &mut BodyLanes<f32>, &mut BodyLanes<f32>),
    ) {
        let null = States::word(NULL_BODY);
        for l in 0..LANES {
            let (wa, wb) = (c.word_a[l], c.word_b[l]);
            if wa == null && wb == null {
                continue;
            }
            let mut a = BodyLanes::from_state(&states.read_word(wa));
            let mut b = BodyLanes::from_state(&states.read_word(wb));
            kernel(&mut Lane(c, l), l, &mut a, &mut b);
            let velocity = |s: &BodyLanes<f32>| [s.vx, s.vy, s.w, 0.0];
            if c.writes_a >> l & 1 != 0 {
                states.write_velocity_row_word(wa, velocity(&a));
            }
            if c.writes_b >> l & 1 != 0 {
                states.write_velocity_row_word(wb, velocity(&b));
            }
        }
    }

    /// Scalar twin of [`simd::arms`].
    pub fn arms(c: &mut [PinStart], f: &[PinFrames], bodies: BodyFrames) {
        for (c, f) in c.iter_mut().zip(f) {
            for l in 0..LANES {
                let at = |column: &[[f32; 2]], i: u32| column[i as usize];
                let (a, b) = (f.body_a[l], f.body_b[l]);
                let lanes = FrameLanes {
                    local_ax: f.local_ax[l],
                    local_ay: f.local_ay[l],
                    local_bx: f.local_bx[l],
                    local_by: f.local_by[l],
                    fixed_a: f.fixed_a[l] > 0.0,
                    live: f.live[l] > 0.0,
                    center_a: at(bodies.center, a),
                    rotation_a: at(bodies.rotation, a),
                    center_b: at(bodies.center, b),
                    rotation_b: at(bodies.rotation, b),
                };
                arms_lanes(&mut Lane(c, l), &lanes);
            }
        }
    }

    /// Scalar twin of [`simd::warm_start`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn warm_start(c: &mut [PinBatch], s: &[PinStart], states: States, first: bool) {
        for (c, s) in c.iter_mut().zip(s) {
            match first {
                true => each_lane(c, states, |c, l, a, b| {
                    warm_start_lanes(c, &LaneRef(s, l), a, b)
                }),
                false => each_lane(c, states, |c, _, a, b| warm_start_kept_lanes(c, a, b)),
            }
        }
    }

    /// Scalar twin of [`simd::solve`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve(c: &mut [PinBatch], states: States, params: &PinParams) {
        for c in c {
            each_lane(c, states, |c, _, a, b| solve_kept_lanes(c, a, b, params));
        }
    }

    /// Scalar twin of [`simd::relax`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn relax(c: &mut [PinBatch], s: &[PinStart], states: States, params: &PinParams) {
        for (c, s) in c.iter_mut().zip(s) {
            each_lane(c, states, |c, l, a, b| {
                relax_lanes::<f32, false>(c, &LaneRef(s, l), a, b, params)
            });
        }
    }
}
