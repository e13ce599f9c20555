//! The joint passes of the soft step: prepare once per step, then per substep warm start,
//! biased solve and relax, on the solver's body states.
//!
//! A joint's position error is measured the way the contact kernels measure separation: from
//! the pose its bodies had when the step began plus the motion the substeps have accumulated
//! since (`dp`, `dq` of the body state), so no pose is written back until the step ends.
//! Rigid constraints are soft in the biased pass (a damped spring at twice the contacts'
//! stiffness, the stiffness of a contact with a static body) and unbiased in the relax pass,
//! which removes the velocity the bias added. Springs the user asked for are part of the
//! model, not an error correction: each acts once per substep, after the warm start, with
//! coefficients that give the discrete update the spring's own frequency, damping and static
//! deflection (see `SpringLaw`); a mouse joint's spring acts in every pass. Limits let a body approach within the
//! substep (a limit not yet reached is a speculative constraint), motors are capped at their
//! impulse per substep.
//!
//! The joints are colored once per step, greedily in slot order, so that no dynamic body
//! appears twice in a color, and each pass runs the colors one after another, a color's joints
//! in blocks on the workers. Within a color the joints share no body that they write, so the
//! workers' order cannot change any result; joints that fit in no color go to an overflow set,
//! solved after the colors as one block.
//!
//! A color's revolute joints without limits or motor, whose solve is their point constraint
//! alone, go eight to a pin batch (see `batch2d_kernels::joint`): the SIMD backend solves a
//! batch with f32x8 kernels, the scalar backend with their one-lane twins, which do the float
//! operations of this module's scalar code in the same order. Every other joint takes the
//! scalar code here, whichever the backend. No fused multiply-add anywhere: the same bits for
//! both backends and every thread count.
//!
//! The scalar passes read a compact copy of each joint's step constants and impulses, laid out
//! in color order (see [`JointBatches`]), and the joint itself only for its options. The
//! impulses go back to the joints when the step ends.

use crate::body::BodyStore;
use crate::disjoint::DisjointMut;
use crate::geometry::math::{Rot, Vec2};
use crate::index::{BodySlot, NONE};
use crate::profile::zone;
use crate::settings::WorldSettings;
use crate::solver::backend::Kernels;
use crate::solver::joints::joint::{turn_share, Impulses, Joint, JointKind, Slot};
use crate::solver::softness::Softness;
use batch2d_kernels::body::{cap_speeds, States};
use batch2d_kernels::{BodyState, PinBatch, PinParams, LANES, NULL_BODY};
use std::f32::consts::PI;
use std::ops::Range;

/// What a joint stage does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JointOp {
    WarmStart,
    Solve,
    Relax,
}

/// Damping ratio of the joints' rigid constraints: well damped, so that the error correction
/// does not ring along a chain.
const JOINT_DAMPING_RATIO: f32 = 2.0;

/// The softness of the joints' rigid constraints for substeps `h` long: as stiff as a
/// contact with a static body (see `Solver::fill_batches`).
pub(crate) fn rigid_softness(settings: &WorldSettings, h: f32) -> Softness {
    Softness::contact(settings, JOINT_DAMPING_RATIO, h, true)
}

/// Joints per block of a joint stage, and pin batches (eight joints each): enough work to
/// amortise claiming it, small enough to balance the workers over one color.
const JOINTS_PER_BLOCK: usize = 64;
const PINS_PER_BLOCK: usize = 8;

/// Colors of the joint graph; a joint that fits in none goes to the overflow set.
const JOINT_COLORS: u32 = 64;
/// `JointBatches::color_of` of a slot without a joint to solve.
const NO_COLOR: u8 = u8::MAX;

/// A joint's body as the step sees it: its solver state, inverse mass and inertia (zero for
/// a body the solver does not move) and rotation; `NONE` is a fixed body at the origin.
fn side(slot: BodySlot, bodies: &BodyStore, state_of: &[u32]) -> (u32, f32, f32, Rot) {
    if slot == BodySlot::NONE {
        return (NULL_BODY, 0.0, 0.0, Rot::IDENTITY);
    }
    let s = slot.index();
    match state_of[s] {
        NULL_BODY => (NULL_BODY, 0.0, 0.0, bodies.rotation()[s]),
        state => (
            state,
            bodies.inv_mass()[s],
            bodies.inv_inertia()[s],
            bodies.rotation()[s],
        ),
    }
}

/// What every pass needs of a joint in one step, taken when the step begins.
#[derive(Clone, Copy, Debug)]
struct Consts {
    /// Solver states of A and B (`NULL_BODY`: a body the solver does not move).
    state: [u32; 2],
    inv_mass: [f32; 2],
    inv_inertia: [f32; 2],
    /// Anchors relative to the centres of mass, world frame, at the start of the step.
    r: [Vec2; 2],
    /// B's centre minus A's (a mouse joint: minus the target) at the start of the step.
    delta_center: Vec2,
    /// The joint's slot in the store.
    slot: u32,
    kind: JointKind,
    /// Whether the joint can move A and B: a kinematic body's state is read, never written,
    /// and takes no color.
    moves: [bool; 2],
    /// A revolute joint without limits or motor: its passes read nothing but these constants
    /// and the impulses.
    plain: bool,
}

/// One joint as the passes read and write it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Prepared {
    c: Consts,
    impulses: Impulses,
}

/// The rest of a joint's step constants, which only joints other than plain revolute ones
/// read: kept apart so that the passes over the plain ones stream less memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extra {
    /// Rotations at the start of the step.
    q: [Rot; 2],
    /// The joint's axis, world frame, at the start of the step.
    axis: Vec2,
    /// A mouse joint's spring for one substep, when it has a frequency above zero.
    spring: Option<Softness>,
    /// Any other joint's spring for one substep, when it has a frequency above zero (see
    /// [`SpringLaw`]).
    law: Option<SpringLaw>,
    /// The velocity gravity gives A and B in one substep (zero for a body the joint does not
    /// move): a spring's static deflection is set from it (see [`SpringLaw`]).
    kick: [Vec2; 2],
    /// A mouse joint's damping of the body's spin: twice the spring's frequency.
    spin: Option<Softness>,
}

/// A joint that moves nothing: what fills `JointBatches` until the joints' constants come.
impl Default for Consts {
    fn default() -> Consts {
        Consts {
            state: [NULL_BODY; 2],
            inv_mass: [0.0; 2],
            inv_inertia: [0.0; 2],
            r: [Vec2::ZERO; 2],
            delta_center: Vec2::ZERO,
            slot: NONE,
            kind: JointKind::Revolute,
            moves: [false; 2],
            plain: true,
        }
    }
}

impl Default for Extra {
    fn default() -> Extra {
        Extra {
            q: [Rot::IDENTITY; 2],
            axis: Vec2::ZERO,
            spring: None,
            law: None,
            kick: [Vec2::ZERO; 2],
            spin: None,
        }
    }
}

/// One joint color: its plain revolute joints, eight to a pin batch, and its other joints.
#[derive(Clone, Debug)]
pub(crate) struct JointColor {
    pins: Range<usize>,
    joints: Range<usize>,
}

/// A set of joints that one joint stage runs: a color, or the overflow set.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JointSet {
    /// The index of a color in [`JointBatches::colors`].
    Color(usize),
    Overflow,
}

/// The step's joints that can move a body, in color order, and the colors.
///
/// The plain revolute joints of a color (see `Consts::plain`) are packed eight to a
/// [`PinBatch`], whose kernels take eight at once with the SIMD backend; the others are in
/// `prepared`, color after color, the overflow set last (plain ones too: the overflow set is
/// solved one joint after another).
#[derive(Clone, Default)]
pub(crate) struct JointBatches {
    prepared: Vec<Prepared>,
    extra: Vec<Extra>,
    pins: Vec<PinBatch>,
    /// The joint slot of each pin lane (`NONE` for a padding lane).
    pin_slots: Vec<[u32; LANES]>,
    /// The colors in order.
    colors: Vec<JointColor>,
    /// The joints that fit in no color, in `prepared` after the colors'.
    overflow: Range<usize>,
    /// The kernels of the pin batches, from the settings of the last `prepare`.
    kernels: Option<&'static dyn Kernels>,
    /// Scratch of the coloring: per joint slot its color (`NO_COLOR` for an empty slot or a
    /// joint with nothing to do); per solver state the colors its joints have taken; per
    /// color (and the overflow set) how many plain joints and others it has, then where its
    /// next one goes.
    color_of: Vec<u8>,
    used: Vec<u64>,
    plain: Vec<usize>,
    others: Vec<usize>,
    /// Per joint slot, whether the joint trees solved it instead (see `tree`).
    in_tree: Vec<bool>,
}

impl JointBatches {
    /// Whether the joint in `slot` was solved in the last step, by the joint passes or by
    /// the joint trees: it could move a body.
    pub(crate) fn solved(&self, slot: usize) -> bool {
        self.color_of.get(slot).is_some_and(|&c| c != NO_COLOR)
            || self.in_tree.get(slot).copied().unwrap_or(false)
    }

    /// The joint sets of a joint pass, in the order they run: the colors, then the overflow
    /// set if it has any joint.
    pub(crate) fn sets(&self) -> impl Iterator<Item = JointSet> + '_ {
        let colors = (0..self.colors.len()).map(JointSet::Color);
        colors.chain((!self.overflow.is_empty()).then_some(JointSet::Overflow))
    }

    /// The number of blocks of a stage over `set`.
    pub(crate) fn blocks(&self, set: JointSet) -> usize {
        match set {
            JointSet::Color(c) => {
                let color = &self.colors[c];
                color.pins.len().div_ceil(PINS_PER_BLOCK)
                    + color.joints.len().div_ceil(JOINTS_PER_BLOCK)
            }
            JointSet::Overflow => 1,
        }
    }
}

/// A body as a joint pass sees it: velocity and the motion since the step began.
#[derive(Clone, Copy, Debug)]
struct Side {
    v: Vec2,
    w: f32,
    dp: Vec2,
    dq: Rot,
}

impl Side {
    /// # Safety
    /// As for [`States::read`].
    unsafe fn load(states: States, index: u32) -> Side {
        let s = states.read(index);
        Side {
            v: Vec2::new(s.v[0], s.v[1]),
            w: s.w,
            dp: Vec2::new(s.dp[0], s.dp[1]),
            dq: Rot {
                c: s.dq[0],
                s: s.dq[1],
            },
        }
    }

    /// Brings the velocity within the solver's speed caps, `(linear, angular)`.
    fn cap(&mut self, (max_linear, max_angular): (f32, f32)) {
        let (v, w) = cap_speeds([self.v.x, self.v.y], self.w, max_linear, max_angular);
        self.v = Vec2::new(v[0], v[1]);
        self.w = w;
    }

    /// Writes the velocity back.
    ///
    /// # Safety
    /// As for [`States::write_velocity`].
    unsafe fn store(&self, states: States, index: u32) {
        let s = BodyState::with_velocity([self.v.x, self.v.y], self.w);
        states.write_velocity(index, &s);
    }
}

/// How a constraint row corrects its error: velocity bias per metre (or radian) of error,
/// and the soft step's mass and impulse scales.
#[derive(Clone, Copy, Debug)]
struct Coeffs {
    bias_rate: f32,
    mass_scale: f32,
    impulse_scale: f32,
}

/// No correction: a plain velocity constraint (the relax pass).
const RIGID: Coeffs = Coeffs {
    bias_rate: 0.0,
    mass_scale: 1.0,
    impulse_scale: 0.0,
};

impl From<Softness> for Coeffs {
    fn from(s: Softness) -> Coeffs {
        Coeffs {
            bias_rate: s.bias_rate,
            mass_scale: s.mass_scale,
            impulse_scale: 1.0 - s.mass_scale,
        }
    }
}

/// The constants of one pass.
#[derive(Clone, Copy, Debug)]
struct Pass {
    /// The rigid constraints' coefficients in this pass.
    rigid: Coeffs,
    inv_h: f32,
    h: f32,
}

impl Pass {
    /// Bias, mass scale and impulse scale of a one-sided limit whose error is `c` (positive
    /// while the limit is not reached): a limit still ahead lets the body close the gap within
    /// the substep and no farther.
    fn limit(&self, c: f32) -> (f32, f32, f32) {
        if c > 0.0 {
            (c * self.inv_h, 1.0, 0.0)
        } else {
            let k = self.rigid;
            (k.bias_rate * c, k.mass_scale, k.impulse_scale)
        }
    }
}

/// A one-dimensional constraint: its velocity is `n . (vB - vA) + jb wB - ja wA`.
#[derive(Clone, Copy, Debug)]
struct Row {
    n: Vec2,
    ja: f32,
    jb: f32,
}

impl Row {
    /// Turning only: the relative angular velocity `wB - wA`.
    const ANGULAR: Row = Row {
        n: Vec2::ZERO,
        ja: 1.0,
        jb: 1.0,
    };

    fn neg(self) -> Row {
        Row {
            n: -self.n,
            ja: -self.ja,
            jb: -self.jb,
        }
    }
}

/// `1 / k`, or 0 where no body can move along the constraint.
fn inverse(k: f32) -> f32 {
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// The relative angle `qb - qa - reference` in `[-pi, pi]`.
fn relative_angle(qa: Rot, qb: Rot, reference: f32) -> f32 {
    let angle = qa.inv_mul(qb).angle() - reference;
    if angle > PI {
        angle - 2.0 * PI
    } else if angle < -PI {
        angle + 2.0 * PI
    } else {
        angle
    }
}

/// Solves `[[k11, k12], [k12, k22]] x = r`, given the matrix's determinant `det`; zero for a
/// singular matrix.
///
/// The callers compute `det` from the constraint's parts as a sum of terms that are never
/// negative, not as `k11 k22 - k12^2`: where an anchor lies hundreds of times a small body's
/// size from its centre, the two products agree in more digits than an f32 holds, and their
/// difference is rounding alone, zero or negative as often as not, and the impulse huge.
fn solve2(k11: f32, k12: f32, k22: f32, det: f32, r: Vec2) -> Vec2 {
    if det == 0.0 {
        return Vec2::ZERO;
    }
    let inv = 1.0 / det;
    Vec2::new(inv * (k22 * r.x - k12 * r.y), inv * (k11 * r.y - k12 * r.x))
}

/// The effective-mass matrix of a point constraint with arms `ra` and `rb`, and its
/// determinant: `m^2 + m (ia |ra|^2 + ib |rb|^2) + ia ib (ra x rb)^2` with `m = ma + mb`,
/// which is `k11 k22 - k12^2` without the cancellation (see [`solve2`]). The pin kernels
/// (`batch2d_kernels::joint`) do the same operations in the same order.
fn point_block(ma: f32, mb: f32, ia: f32, ib: f32, ra: Vec2, rb: Vec2) -> [f32; 4] {
    let m = ma + mb;
    let k11 = (m + ra.y * ra.y * ia) + rb.y * rb.y * ib;
    let k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
    let k22 = (m + ra.x * ra.x * ia) + rb.x * rb.x * ib;
    let arms = ia * (ra.x * ra.x + ra.y * ra.y) + ib * (rb.x * rb.x + rb.y * rb.y);
    let cross = ra.x * rb.y - ra.y * rb.x;
    let det = (m * m + m * arms) + (ia * ib) * (cross * cross);
    [k11, k12, k22, det]
}

/// A joint's point rows and angular row as one block, at the bodies' motion now (see
/// [`Pair::hinge_block`]).
struct HingeBlock {
    ra: Vec2,
    rb: Vec2,
    /// B's anchor minus A's.
    d: Vec2,
    /// The point block and its determinant (see [`point_block`]).
    point: [f32; 4],
    coupling: Vec2,
    /// `1 / S`, S the angular row's Schur complement.
    schur_mass: f32,
    /// The anchors' relative velocity.
    cdot: Vec2,
}

/// Both bodies of a joint during one pass.
struct Pair<'a> {
    a: Side,
    b: Side,
    p: &'a Consts,
    x: &'a Extra,
}

impl Pair<'_> {
    /// The anchors' offsets from the centres of mass, and B's anchor minus A's, now.
    fn geometry(&self) -> (Vec2, Vec2, Vec2) {
        let ra = self.a.dq.rotate(self.p.r[0]);
        let rb = self.b.dq.rotate(self.p.r[1]);
        let d = (self.b.dp - self.a.dp) + self.p.delta_center + (rb - ra);
        (ra, rb, d)
    }

    /// B's angle relative to A's, minus `reference`, now.
    fn angle(&self, reference: f32) -> f32 {
        let qa = self.a.dq.compose(self.x.q[0]);
        let qb = self.b.dq.compose(self.x.q[1]);
        relative_angle(qa, qb, reference)
    }

    /// The joint's axis now (it turns with A).
    fn axis(&self) -> Vec2 {
        self.a.dq.rotate(self.x.axis)
    }

    fn row_velocity(&self, row: Row) -> f32 {
        row.n.dot(self.b.v - self.a.v) + row.jb * self.b.w - row.ja * self.a.w
    }

    fn row_mass(&self, row: Row) -> f32 {
        let p = self.p;
        // A turning row (no direction) moves no mass: counting the bodies' masses in made
        // its springs, limits and motors act on too small an effective inertia.
        let linear = match row.n == Vec2::ZERO {
            true => 0.0,
            false => p.inv_mass[0] + p.inv_mass[1],
        };
        inverse(linear + p.inv_inertia[0] * row.ja * row.ja + p.inv_inertia[1] * row.jb * row.jb)
    }

    fn apply_row(&mut self, row: Row, impulse: f32) {
        let p = self.p;
        self.a.v -= row.n * (p.inv_mass[0] * impulse);
        self.a.w -= p.inv_inertia[0] * (row.ja * impulse);
        self.b.v += row.n * (p.inv_mass[1] * impulse);
        self.b.w += p.inv_inertia[1] * (row.jb * impulse);
    }

    /// Applies `impulse` to B at `rb` and its opposite to A at `ra`.
    fn apply_point(&mut self, ra: Vec2, rb: Vec2, impulse: Vec2) {
        let p = self.p;
        self.a.v -= impulse * p.inv_mass[0];
        self.a.w -= p.inv_inertia[0] * ra.cross(impulse);
        self.b.v += impulse * p.inv_mass[1];
        self.b.w += p.inv_inertia[1] * rb.cross(impulse);
    }

    /// One row with velocity bias `bias`: the accumulated impulse stays in `lo..=hi`.
    #[allow(clippy::too_many_arguments)]
    fn solve_row(
        &mut self,
        row: Row,
        bias: f32,
        mass_scale: f32,
        impulse_scale: f32,
        accumulated: &mut f32,
        lo: f32,
        hi: f32,
    ) {
        let mass = self.row_mass(row);
        let cdot = self.row_velocity(row);
        let impulse = -mass_scale * mass * (cdot + bias) - impulse_scale * *accumulated;
        let old = *accumulated;
        *accumulated = (old + impulse).max(lo).min(hi);
        self.apply_row(row, *accumulated - old);
    }

    /// A row holding its error `c` at zero with the coefficients `k`.
    fn solve_equality(&mut self, row: Row, c: f32, k: Coeffs, accumulated: &mut f32) {
        let (lo, hi) = (f32::NEG_INFINITY, f32::INFINITY);
        let bias = k.bias_rate * c;
        self.solve_row(
            row,
            bias,
            k.mass_scale,
            k.impulse_scale,
            accumulated,
            lo,
            hi,
        );
    }

    /// A one-sided row keeping its error `c` at or above zero.
    fn solve_limit(&mut self, row: Row, c: f32, pass: &Pass, accumulated: &mut f32) {
        let (bias, mass_scale, impulse_scale) = pass.limit(c);
        let hi = f32::INFINITY;
        self.solve_row(row, bias, mass_scale, impulse_scale, accumulated, 0.0, hi);
    }

    /// A revolute joint's limit row (`row`, turning only, its error `c`) and point rows as
    /// one block, as [`Pair::solve_weld`] solves a weld's, the limit's coefficients those of
    /// [`Pass::limit`] and the point's `pass.rigid`; `false`, changing nothing, where the
    /// block is singular or the limit would pull. Solved apart, the limit's impulse turns
    /// the body about its centre and the point's turns it back about the hinge, pass after
    /// pass: a bar turning at 40 rad/s into its limit passed it by almost 2 degrees.
    fn solve_limit_and_point(
        &mut self,
        row: Row,
        c: f32,
        pass: &Pass,
        limit: &mut f32,
        linear: &mut Vec2,
    ) -> bool {
        let Some(h) = self.hinge_block() else {
            return false;
        };
        let (bias, mass_scale, impulse_scale) = pass.limit(c);
        let k = pass.rigid;
        let [k11, k12, k22, det2] = h.point;
        // The limit's row is `row.ja` times the hinge block's turn row (`wB - wA`).
        let sign = row.jb;
        let coupling = h.coupling * sign;
        let r_point = h.cdot + h.d * k.bias_rate;
        let r_turn = self.row_velocity(row) + bias;
        let x_turn = h.schur_mass * (r_turn - coupling.dot(solve2(k11, k12, k22, det2, r_point)));
        let turn = -mass_scale * x_turn - impulse_scale * *limit;
        if *limit + turn < 0.0 {
            return false;
        }
        let x_point = solve2(k11, k12, k22, det2, r_point - coupling * x_turn);
        let point = x_point * -k.mass_scale - *linear * k.impulse_scale;
        *limit += turn;
        *linear += point;
        self.apply_row(row, turn);
        self.apply_point(h.ra, h.rb, point);
        true
    }

    /// The point and angular rows of a joint whose angular row acts within its point
    /// constraint, as one 3x3 block: the block's inverse by eliminating the point rows (the
    /// Schur complement of the point block), without forming `k11 k22 - k12^2` or the 3x3
    /// determinant as differences (see [`solve2`]). `None` where the block is singular.
    fn hinge_block(&self) -> Option<HingeBlock> {
        let (ra, rb, d) = self.geometry();
        let p = self.p;
        let (ma, mb) = (p.inv_mass[0], p.inv_mass[1]);
        let (ia, ib) = (p.inv_inertia[0], p.inv_inertia[1]);
        let point = point_block(ma, mb, ia, ib, ra, rb);
        // The point rows' coupling to the angular row: the turn a unit point impulse gives
        // `wB - wA`, and the anchors' relative velocity a unit angular impulse gives.
        let coupling = Vec2::new(-(ia * ra.y + ib * rb.y), ia * ra.x + ib * rb.x);
        // The whole block's determinant, a sum of terms never negative like the point
        // block's: `m^2 (ia + ib) + m ia ib |ra - rb|^2`; the angular row's Schur complement
        // is its ratio to the point block's.
        let m = ma + mb;
        let arm = ra - rb;
        let det3 = m * m * (ia + ib) + m * (ia * ib) * arm.dot(arm);
        if det3 <= 0.0 || point[3] <= 0.0 {
            return None;
        }
        let (a, b) = (&self.a, &self.b);
        let cdot = (b.v + Vec2::cross_sv(b.w, rb)) - (a.v + Vec2::cross_sv(a.w, ra));
        Some(HingeBlock {
            ra,
            rb,
            d,
            point,
            coupling,
            schur_mass: point[3] / det3,
            cdot,
        })
    }

    /// A weld's three rows at once, with the coefficients `k`: solved apart, the angular row
    /// turns the bodies about their centres and the point row turns them back about the
    /// anchor, and with the anchor far from a body the two passes' exchange grew without end
    /// (a box welded 19 m from its centre and pulled by a spinning hinge overflowed).
    fn solve_weld(&mut self, k: Coeffs, angle: f32, linear: &mut Vec2, angular: &mut f32) {
        let Some(h) = self.hinge_block() else {
            return;
        };
        let [k11, k12, k22, det2] = h.point;
        let r_point = h.cdot + h.d * k.bias_rate;
        let r_turn = (self.b.w - self.a.w) + k.bias_rate * angle;
        // Block elimination: the turn from the Schur complement, then the point.
        let x_turn = h.schur_mass * (r_turn - h.coupling.dot(solve2(k11, k12, k22, det2, r_point)));
        let x_point = solve2(k11, k12, k22, det2, r_point - h.coupling * x_turn);
        let turn = -k.mass_scale * x_turn - k.impulse_scale * *angular;
        let point = x_point * -k.mass_scale - *linear * k.impulse_scale;
        *angular += turn;
        *linear += point;
        self.apply_row(Row::ANGULAR, turn);
        self.apply_point(h.ra, h.rb, point);
    }

    /// A motor driving the row's velocity to `speed` with at most `max` force or torque.
    fn solve_motor(&mut self, row: Row, (speed, max): (f32, f32), pass: &Pass, acc: &mut f32) {
        let cap = max * pass.h;
        self.solve_row(row, -speed, 1.0, 0.0, acc, -cap, cap);
    }

    /// Pins B's anchor to A's with the coefficients `k`; the accumulated impulse's length
    /// stays within `max`.
    fn solve_point(&mut self, k: Coeffs, accumulated: &mut Vec2, max: f32) {
        let (ra, rb, d) = self.geometry();
        let (a, b, p) = (&self.a, &self.b, self.p);
        let cdot = (b.v + Vec2::cross_sv(b.w, rb)) - (a.v + Vec2::cross_sv(a.w, ra));
        let (ma, mb) = (p.inv_mass[0], p.inv_mass[1]);
        let (ia, ib) = (p.inv_inertia[0], p.inv_inertia[1]);
        let [k11, k12, k22, det] = point_block(ma, mb, ia, ib, ra, rb);
        let x = solve2(k11, k12, k22, det, cdot + d * k.bias_rate);
        let impulse = x * -k.mass_scale - *accumulated * k.impulse_scale;
        let old = *accumulated;
        let mut total = old + impulse;
        // Most joints have no cap: no length to take.
        if max < f32::INFINITY {
            let length = total.length();
            if length > max {
                total = total * (max / length);
            }
        }
        *accumulated = total;
        self.apply_point(ra, rb, total - old);
    }
}

impl Joint {
    /// A revolute joint without limits, motor or spring: its solve is its point constraint
    /// alone.
    fn is_plain(&self) -> bool {
        self.kind == JointKind::Revolute
            && self.active_motor().is_none()
            && self.active_limits().is_none()
            && self.spring.is_none()
    }

    /// Takes the step's constants from the bodies as the step begins; `None` when neither
    /// body can move, and the joint has nothing to do.
    fn prepare(
        &self,
        slot: u32,
        bodies: &BodyStore,
        state_of: &[u32],
        h: f32,
        gravity: Vec2,
    ) -> Option<(Prepared, Extra)> {
        let (sa, ma, ia, qa) = side(self.a, bodies, state_of);
        let (sb, mb, ib, qb) = side(self.b, bodies, state_of);
        if ma + mb + ia + ib <= 0.0 {
            return None;
        }
        let (ca, ra) = match self.a {
            BodySlot::NONE => (self.local_a, Vec2::ZERO),
            a => (bodies.center()[a.index()], qa.rotate(self.local_a)),
        };
        let law = match self.spring {
            Some((hertz, zeta)) if hertz > 0.0 && self.kind != JointKind::Mouse => {
                Some(SpringLaw::new(hertz, zeta, h))
            }
            _ => None,
        };
        let (spring, spin) = match self.spring {
            Some((hertz, zeta)) if hertz > 0.0 && self.kind == JointKind::Mouse => (
                Some(Softness::new(hertz, zeta, h)),
                (self.kind == JointKind::Mouse).then(|| Softness::new(2.0 * hertz, zeta, h)),
            ),
            _ => (None, None),
        };
        let c = Consts {
            state: [sa, sb],
            inv_mass: [ma, mb],
            inv_inertia: [ia, ib],
            r: [ra, qb.rotate(self.local_b)],
            delta_center: bodies.center()[self.b.index()] - ca,
            slot,
            kind: self.kind,
            moves: [ma + ia > 0.0, mb + ib > 0.0],
            plain: self.is_plain(),
        };
        let x = Extra {
            q: [qa, qb],
            axis: qa.rotate(self.local_axis),
            spring,
            law,
            kick: [(self.a, ma), (self.b, mb)].map(|(slot, inv_mass)| match inv_mass > 0.0 {
                true => gravity * (bodies.gravity_scale()[slot.index()] * h),
                false => Vec2::ZERO,
            }),
            spin,
        };
        let impulses = self.impulses;
        Some((Prepared { c, impulses }, x))
    }

    /// One solve (`pass.rigid` biased) or relax (`RIGID`) pass.
    fn solve(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        // A mouse joint's spring acts in every pass. Other joints' springs act once per
        // substep, in the warm start stage (see `Joint::solve_spring`).
        let sprung = pair.x.spring.map(Coeffs::from);
        match self.kind {
            JointKind::Revolute => {
                if let Some(motor) = self.active_motor() {
                    pair.solve_motor(Row::ANGULAR, motor, pass, &mut i.motor);
                }
                let Some((lower, upper)) = self.active_limits() else {
                    pair.solve_point(pass.rigid, &mut i.linear, f32::INFINITY);
                    return;
                };
                let angle = pair.angle(self.reference_angle);
                let (c_lower, c_upper) = (angle - lower, upper - angle);
                // The nearer limit with the point in one block, where it pushes (see
                // `Pair::solve_limit_and_point`); the farther one alone, first.
                let (near, far) = match c_lower <= c_upper {
                    true => (
                        (Row::ANGULAR, c_lower, &mut i.lower),
                        (c_upper, &mut i.upper),
                    ),
                    false => (
                        (Row::ANGULAR.neg(), c_upper, &mut i.upper),
                        (c_lower, &mut i.lower),
                    ),
                };
                pair.solve_limit(near.0.neg(), far.0, pass, far.1);
                if !pair.solve_limit_and_point(near.0, near.1, pass, near.2, &mut i.linear) {
                    pair.solve_limit(near.0, near.1, pass, near.2);
                    pair.solve_point(pass.rigid, &mut i.linear, f32::INFINITY);
                }
            }
            JointKind::Weld => {
                if pair.x.law.is_some() {
                    return;
                }
                let k = pass.rigid;
                let angle = pair.angle(self.reference_angle);
                pair.solve_weld(k, angle, &mut i.linear, &mut i.angular);
            }
            JointKind::Mouse => {
                // Without damping, a body held off its centre would keep spinning about the
                // grip, its centre circling and the spring stretched by the circling.
                if let Some(spin) = pair.x.spin {
                    pair.solve_equality(Row::ANGULAR, 0.0, spin.into(), &mut i.angular);
                }
                let k = sprung.unwrap_or(pass.rigid);
                pair.solve_point(k, &mut i.linear, self.max_force * pass.h);
            }
            JointKind::Motor => {
                // A drive, not an error correction: the same in every pass.
                let k = Coeffs {
                    bias_rate: self.correction * pass.inv_h,
                    ..RIGID
                };
                let angle = pair.angle(self.reference_angle);
                let cap = self.max_torque * pass.h;
                let bias = k.bias_rate * angle;
                pair.solve_row(Row::ANGULAR, bias, 1.0, 0.0, &mut i.angular, -cap, cap);
                pair.solve_point(k, &mut i.linear, self.max_force * pass.h);
            }
            JointKind::Distance => self.solve_distance(i, pair, pass),
            JointKind::Prismatic | JointKind::Wheel => self.solve_slide(i, pair, pass),
        }
    }

    /// A distance joint's pass: its length held, or its motor, limits and range.
    fn solve_distance(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        let (ra, rb, d) = pair.geometry();
        let length = d.length();
        let axis = d.normalized().unwrap_or(Vec2::ZERO);
        let row = Row {
            n: axis,
            ja: ra.cross(axis),
            jb: rb.cross(axis),
        };
        let c = length - self.length;
        match (self.spring, self.length_range) {
            (None, None) => pair.solve_equality(row, c, pass.rigid, &mut i.axial),
            // A range set to one length while the world runs holds that length.
            (_, Some((min, max))) if min == max => {
                pair.solve_equality(row, length - min, pass.rigid, &mut i.axial)
            }
            (_, range) => {
                if let Some(motor) = self.active_motor() {
                    pair.solve_motor(row, motor, pass, &mut i.motor);
                }
                if let Some((min, max)) = range.filter(|_| self.limits_enabled) {
                    if min > 0.0 {
                        pair.solve_limit(row, length - min, pass, &mut i.lower);
                    }
                    if max.is_finite() {
                        pair.solve_limit(row.neg(), max - length, pass, &mut i.upper);
                    }
                }
            }
        }
    }

    /// A prismatic or wheel joint's pass: its motor and limits, then its rows across the
    /// axis (and a prismatic joint's turn).
    fn solve_slide(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        let prismatic = self.kind == JointKind::Prismatic;
        if let Some(motor) = self.active_motor() {
            let row = if prismatic {
                slide_rows(pair).0
            } else {
                Row::ANGULAR
            };
            pair.solve_motor(row, motor, pass, &mut i.motor);
        }
        if let Some((lower, upper)) = self.active_limits() {
            let (along, _) = slide_rows(pair);
            let (_, _, d) = pair.geometry();
            let translation = pair.axis().dot(d);
            pair.solve_limit(along, translation - lower, pass, &mut i.lower);
            pair.solve_limit(along.neg(), upper - translation, pass, &mut i.upper);
        }
        if prismatic {
            solve_slide_and_turn(pair, pass.rigid, self.reference_angle, i);
        } else {
            let (_, across) = slide_rows(pair);
            let (_, _, d) = pair.geometry();
            let c = pair.axis().left_perp().dot(d);
            pair.solve_equality(across, c, pass.rigid, &mut i.linear.x);
        }
    }
}

impl Joint {
    /// The joint's spring (not a mouse joint's), once per substep after the warm start: a
    /// revolute joint's on its angle, a prismatic or wheel joint's along the axis, a distance
    /// joint's on its length, a soft weld's on all three of its rows.
    fn solve_spring(&self, law: SpringLaw, i: &mut Impulses, pair: &mut Pair) {
        match self.kind {
            JointKind::Revolute => {
                let angle = pair.angle(self.reference_angle);
                pair.solve_spring_row(Row::ANGULAR, angle, law, &mut i.angular);
            }
            JointKind::Prismatic | JointKind::Wheel => {
                let (along, _) = slide_rows(pair);
                let (_, _, d) = pair.geometry();
                let c = pair.axis().dot(d);
                pair.solve_spring_row(along, c, law, &mut i.axial);
            }
            JointKind::Distance => {
                if matches!(self.length_range, Some((min, max)) if min == max) {
                    return;
                }
                let (ra, rb, d) = pair.geometry();
                let axis = d.normalized().unwrap_or(Vec2::ZERO);
                let row = Row {
                    n: axis,
                    ja: ra.cross(axis),
                    jb: rb.cross(axis),
                };
                pair.solve_spring_row(row, d.length() - self.length, law, &mut i.axial);
            }
            JointKind::Weld => {
                let angle = pair.angle(self.reference_angle);
                pair.solve_spring_row(Row::ANGULAR, angle, law, &mut i.angular);
                pair.solve_spring_point(law, &mut i.linear);
            }
            JointKind::Mouse | JointKind::Motor => {}
        }
    }
}

/// A spring's coefficients for one substep `h`, set so that the discrete update has the
/// spring's own frequency and damping ratio.
///
/// Applied once per substep, after the warm start, the row's impulse is
/// `-m (a v + k c) - impulse_scale acc` (`m` the row's effective mass, `v` its velocity, `c`
/// its error, `acc` the impulse warm started, `a = velocity_scale`, `k = stiffness`). With
/// `impulse_scale = 1 - a` the warm start and that term cancel, so one substep maps
/// `v' = (1 - a) v - k c`, then `c' = c + h v'`: a linear map of determinant `1 - a` and
/// trace `2 - a - h k`. The exact flow of `c'' + 2 zeta w c' + w^2 c = 0` over `h` has
/// determinant `det = e^(-2 zeta w h)` and trace `2 e^(-zeta w h) cos(w_d h)` (cosh above
/// critical damping; `w_d = w sqrt|1 - zeta^2|`). Matching both gives `a = 1 - det` and
/// `k = (1 - trace + det) / h`: the discrete spring has the continuous one's eigenvalues, so
/// its period and decay are the law's at any substep. (The soft-constraint coefficients,
/// `Softness`, applied in every pass, damp by about `w h` on top of the ratio asked for.)
///
/// A steady load, gravity `g` along the row, adds `g h` to `v` each substep before the
/// spring acts. At rest then `0 = (1 - a) g h - k c`, a deflection `(1 - a) g h / k`, not
/// Hooke's `g / w^2` (9% short at 5 Hz and a ratio of 0.7). So the spring also gives back
/// `b g h` with `b = k / (h w^2) - (1 - a)`, which makes the deflection `g / w^2` and
/// leaves the eigenvalues as they are. Gravity is the load the joint knows; a user's force
/// on the body keeps the small error.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpringLaw {
    velocity_scale: f32,
    stiffness: f32,
    impulse_scale: f32,
    /// The share of the substep's gravity kick the spring gives back (`b` above).
    feed: f32,
}

impl SpringLaw {
    fn new(hertz: f32, zeta: f32, h: f32) -> SpringLaw {
        let (w, zeta, h) = (2.0 * PI as f64 * hertz as f64, zeta as f64, h as f64);
        let det = (-2.0 * zeta * w * h).exp();
        let decay = (-zeta * w * h).exp();
        let wd = w * (1.0 - zeta * zeta).abs().sqrt() * h;
        let trace = 2.0
            * decay
            * match zeta {
                z if z < 1.0 => wd.cos(),
                z if z > 1.0 => wd.cosh(),
                _ => 1.0,
            };
        let stiffness = (1.0 - trace + det) / h;
        SpringLaw {
            velocity_scale: (1.0 - det) as f32,
            stiffness: stiffness as f32,
            impulse_scale: det as f32,
            feed: (stiffness / (h * w * w) - det) as f32,
        }
    }
}

impl Pair<'_> {
    /// A weld's spring on its point (see [`SpringLaw`]): B's anchor pulled to A's.
    fn solve_spring_point(&mut self, law: SpringLaw, accumulated: &mut Vec2) {
        let kick = self.x.kick[1] - self.x.kick[0];
        let (ra, rb, d) = self.geometry();
        let (a, b, p) = (&self.a, &self.b, self.p);
        let cdot = (b.v + Vec2::cross_sv(b.w, rb)) - (a.v + Vec2::cross_sv(a.w, ra));
        let (ma, mb) = (p.inv_mass[0], p.inv_mass[1]);
        let (ia, ib) = (p.inv_inertia[0], p.inv_inertia[1]);
        let [k11, k12, k22, det] = point_block(ma, mb, ia, ib, ra, rb);
        let target = cdot * law.velocity_scale + d * law.stiffness - kick * law.feed;
        let x = solve2(k11, k12, k22, det, target);
        let impulse = -x - *accumulated * law.impulse_scale;
        *accumulated += impulse;
        self.apply_point(ra, rb, impulse);
    }

    /// A spring row with error `c` (see [`SpringLaw`]).
    fn solve_spring_row(&mut self, row: Row, c: f32, law: SpringLaw, accumulated: &mut f32) {
        let mass = self.row_mass(row);
        let cdot = self.row_velocity(row);
        let kick = row.n.dot(self.x.kick[1] - self.x.kick[0]);
        let target = law.velocity_scale * cdot + law.stiffness * c - law.feed * kick;
        let impulse = -mass * target - law.impulse_scale * *accumulated;
        *accumulated += impulse;
        self.apply_row(row, impulse);
    }
}

/// Applies the accumulated impulses of the last substep (or step) again.
fn warm_start(kind: JointKind, i: &Impulses, pair: &mut Pair) {
    match kind {
        JointKind::Revolute | JointKind::Weld | JointKind::Mouse | JointKind::Motor => {
            let (ra, rb, _) = pair.geometry();
            pair.apply_point(ra, rb, i.linear);
            let angular = i.angular + i.motor + i.lower - i.upper;
            pair.apply_row(Row::ANGULAR, angular);
        }
        JointKind::Distance => {
            let (ra, rb, d) = pair.geometry();
            let axis = d.normalized().unwrap_or(Vec2::ZERO);
            let row = Row {
                n: axis,
                ja: ra.cross(axis),
                jb: rb.cross(axis),
            };
            pair.apply_row(row, i.axial + i.motor + i.lower - i.upper);
        }
        JointKind::Prismatic | JointKind::Wheel => {
            let (along, across) = slide_rows(pair);
            let (slide_motor, turn_motor) = match kind {
                JointKind::Prismatic => (i.motor, 0.0),
                _ => (0.0, i.motor),
            };
            pair.apply_row(along, i.axial + slide_motor + i.lower - i.upper);
            pair.apply_row(across, i.linear.x);
            pair.apply_row(Row::ANGULAR, i.angular + turn_motor);
        }
    }
}

/// The rows along a prismatic or wheel joint's axis and across it, now, as the passes solve
/// them: a prismatic joint's carry the turn that holds the bodies' relative turn (see
/// [`Pair::holding_the_turn`]).
fn slide_rows(pair: &Pair) -> (Row, Row) {
    let (along, across) = plain_slide_rows(pair);
    match pair.p.kind {
        JointKind::Prismatic => (
            pair.holding_the_turn(along).0,
            pair.holding_the_turn(across).0,
        ),
        _ => (along, across),
    }
}

/// The rows along the axis and across it, measured at B's anchor.
fn plain_slide_rows(pair: &Pair) -> (Row, Row) {
    let (ra, rb, d) = pair.geometry();
    let axis = pair.axis();
    let perp = axis.left_perp();
    let arm = d + ra;
    (
        Row {
            n: axis,
            ja: arm.cross(axis),
            jb: rb.cross(axis),
        },
        Row {
            n: perp,
            ja: arm.cross(perp),
            jb: rb.cross(perp),
        },
    )
}

impl Pair<'_> {
    /// `row` plus `share` times the relative turn's row, and `share`: the share that cancels
    /// the relative spin an impulse along `row` would give (see [`turn_share`]). An impulse
    /// along the new row moves the bodies only as a joint that cannot turn lets them.
    ///
    /// A prismatic joint holds the turn. Measured at B's anchor, an impulse along or across
    /// its axis turns the bodies about an anchor that may lie far from a small body (its arm
    /// is the whole offset), and the turn row takes the turn back: two large impulses that
    /// cancel. With the arm a hundred times the body's size, a slide row's effective mass is
    /// ten thousand times too small, so its spring, motor and limits barely move the body in
    /// a pass; and the pair of large impulses, warm started after the body has turned by a
    /// little, no longer cancel, and grow without bound. The rows that hold the turn are the
    /// slide of the reduced joint: their effective masses are the Schur complements of the
    /// turn, and their impulses stay of the size of the force the joint carries.
    fn holding_the_turn(&self, row: Row) -> (Row, f32) {
        let p = self.p;
        let share = turn_share(row.ja, row.jb, p.inv_inertia[0], p.inv_inertia[1]);
        let row = Row {
            n: row.n,
            ja: row.ja + share,
            jb: row.jb + share,
        };
        (row, share)
    }
}

/// A prismatic joint's rows across the axis and of the relative turn, solved together. Both
/// hold the turn, so the block is diagonal up to rounding; the error across the axis is
/// measured in the same combination as the row (the rows are a change of basis of the
/// constraint, and the errors change with them).
fn solve_slide_and_turn(pair: &mut Pair, k: Coeffs, reference: f32, i: &mut Impulses) {
    let (_, plain) = plain_slide_rows(pair);
    let (across, share) = pair.holding_the_turn(plain);
    let (_, _, d) = pair.geometry();
    let angle = pair.angle(reference);
    let c = Vec2::new(pair.axis().left_perp().dot(d) + share * angle, angle);
    let p = pair.p;
    let (ma, mb) = (p.inv_mass[0], p.inv_mass[1]);
    let (ia, ib) = (p.inv_inertia[0], p.inv_inertia[1]);
    let (s1, s2) = (across.ja, across.jb);
    let k11 = ma + mb + ia * s1 * s1 + ib * s2 * s2;
    let k12 = ia * s1 + ib * s2;
    // Neither body can turn: the turn row is empty, and a unit entry keeps the block regular.
    // The determinant without cancellation (see `solve2`).
    let gap = s1 - s2;
    let (k22, det) = match ia + ib > 0.0 {
        true => (ia + ib, (ma + mb) * (ia + ib) + (ia * ib) * (gap * gap)),
        false => (1.0, k11),
    };
    let cdot = Vec2::new(pair.row_velocity(across), pair.row_velocity(Row::ANGULAR));
    let x = solve2(k11, k12, k22, det, cdot + c * k.bias_rate);
    let accumulated = Vec2::new(i.linear.x, i.angular);
    let impulse = x * -k.mass_scale - accumulated * k.impulse_scale;
    i.linear.x += impulse.x;
    i.angular += impulse.y;
    pair.apply_row(across, impulse.x);
    pair.apply_row(Row::ANGULAR, impulse.y);
}

impl JointBatches {
    /// Takes every joint's constants for a step of substeps `h` long and colors the joints
    /// that can move a body, but those marked in `exact` (per slot; the joint trees solve
    /// them); `state_of` maps body slots to solver states, of which there are `states`.
    /// Returns whether any joint can move a body.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prepare(
        &mut self,
        slots: &[Slot],
        bodies: &BodyStore,
        state_of: &[u32],
        states: usize,
        settings: &WorldSettings,
        h: f32,
        exact: &[bool],
    ) -> bool {
        zone!("joint prepare");
        let batches = self;
        batches.kernels = Some(settings.kernels());
        batches.color_of.clear();
        batches.in_tree.clear();
        batches.in_tree.extend_from_slice(exact);
        batches.used.clear();
        batches.used.resize(states, 0);
        let sets = JOINT_COLORS as usize + 1;
        batches.plain.clear();
        batches.plain.resize(sets, 0);
        batches.others.clear();
        batches.others.resize(sets, 0);
        // Greedy in slot order: each joint takes the first color in which neither body it
        // moves is used yet.
        for (slot, s) in slots.iter().enumerate() {
            let exact = exact.get(slot).copied().unwrap_or(false);
            let joint = s.joint.as_ref().filter(|_| !exact);
            let color = joint.map_or(NO_COLOR, |joint| {
                let [(sa, ma, ia, _), (sb, mb, ib, _)] =
                    [joint.a, joint.b].map(|slot| side(slot, bodies, state_of));
                if ma + mb + ia + ib <= 0.0 || bodies.either_disabled(joint.a, joint.b) {
                    return NO_COLOR;
                }
                let moved = [(sa, ma + ia > 0.0), (sb, mb + ib > 0.0)];
                let moved = moved.map(|(state, moves)| moves.then_some(state as usize));
                let used = moved.iter().flatten().fold(0, |u, &s| u | batches.used[s]);
                let color = (!used).trailing_zeros();
                if color < JOINT_COLORS {
                    for &s in moved.iter().flatten() {
                        batches.used[s] |= 1 << color;
                    }
                }
                match joint.is_plain() && color < JOINT_COLORS {
                    true => batches.plain[color as usize] += 1,
                    false => batches.others[color as usize] += 1,
                }
                color as u8
            });
            batches.color_of.push(color);
        }
        batches.lay_out();
        // Each joint's constants straight into its place in color order.
        for (slot, (s, &color)) in slots.iter().zip(&batches.color_of).enumerate() {
            let Some(joint) = s.joint.as_ref().filter(|_| color != NO_COLOR) else {
                continue;
            };
            let (p, x) = joint
                .prepare(slot as u32, bodies, state_of, h, settings.gravity)
                .unwrap_or_default();
            let color = color as usize;
            if p.c.plain && color < JOINT_COLORS as usize {
                let at = &mut batches.plain[color];
                batches.pins[*at / LANES].set(*at % LANES, &p);
                batches.pin_slots[*at / LANES][*at % LANES] = slot as u32;
                *at += 1;
            } else {
                let at = &mut batches.others[color];
                batches.prepared[*at] = p;
                batches.extra[*at] = x;
                *at += 1;
            }
        }
        !batches.colors.is_empty() || !batches.overflow.is_empty()
    }

    /// Writes the step's impulses back to the joints.
    pub(crate) fn store_impulses(&self, slots: &mut [Slot]) {
        zone!("joint store impulses");
        let batches = self;
        for (pins, lanes) in batches.pins.iter().zip(&batches.pin_slots) {
            for (l, &slot) in lanes.iter().enumerate() {
                let slot = slots.get_mut(slot as usize);
                if let Some(joint) = slot.and_then(|s| s.joint.as_mut()) {
                    joint.impulses.linear = Vec2::new(pins.impulse_x[l], pins.impulse_y[l]);
                }
            }
        }
        for p in &batches.prepared {
            let slot = slots.get_mut(p.c.slot as usize);
            if let Some(joint) = slot.and_then(|s| s.joint.as_mut()) {
                joint.impulses = p.impulses;
            }
        }
    }

    /// The joint passes of this step over the joints in `slots`, for the solver's stages
    /// (after [`JointBatches::prepare`]), with the rigid constraints' softness `rigid` for
    /// substeps `h` long and the solver's speed caps `(linear, angular)`.
    pub(crate) fn passes<'a>(
        &'a mut self,
        slots: &'a [Slot],
        rigid: Softness,
        h: f32,
        speed_caps: (f32, f32),
    ) -> Passes<'a> {
        Passes {
            slots,
            prepared: DisjointMut::new(&mut self.prepared),
            extra: &self.extra,
            pins: DisjointMut::new(&mut self.pins),
            colors: &self.colors,
            overflow: &self.overflow,
            kernels: self.kernels.expect("the joints are prepared"),
            rigid: rigid.into(),
            h,
            inv_h: 1.0 / h,
            speed_caps,
        }
    }
}

impl JointBatches {
    /// Lays the sets out from their counts: each color's pins and other joints, and the
    /// overflow set after the colors' other joints. Sizes the buffers, pads each color's last
    /// pin batch, and leaves `plain[color]` at the color's first pin lane, `others[set]` at
    /// the set's first place in `prepared`.
    fn lay_out(&mut self) {
        let pins: usize = self.plain.iter().map(|n| n.div_ceil(LANES)).sum();
        let joints: usize = self.others.iter().sum();
        // Every place is written before the passes read it (the padding lanes here, the
        // joints' in `JointStore::prepare`): no need to clear.
        self.prepared.resize(joints, Prepared::default());
        self.extra.resize(joints, Extra::default());
        self.pins.resize(pins, PinBatch::empty());
        self.pin_slots.resize(pins, [NONE; LANES]);
        self.colors.clear();
        let (mut pins, mut joints) = (0, 0);
        for c in 0..=JOINT_COLORS as usize {
            let (plain, others) = (self.plain[c], self.others[c]);
            let color = JointColor {
                pins: pins..pins + plain.div_ceil(LANES),
                joints: joints..joints + others,
            };
            if plain % LANES != 0 {
                let last = color.pins.end - 1;
                for l in plain % LANES..LANES {
                    self.pins[last].clear(l);
                    self.pin_slots[last][l] = NONE;
                }
            }
            self.plain[c] = pins * LANES;
            self.others[c] = joints;
            pins = color.pins.end;
            joints = color.joints.end;
            if c == JOINT_COLORS as usize {
                self.overflow = color.joints;
            } else if plain + others > 0 {
                self.colors.push(color);
            }
        }
    }
}

/// The joint passes of one step, shared by the workers of the solver's stages: each runs
/// blocks of one color, whose joints write no body in common, or the overflow set.
#[derive(Clone, Copy)]
pub(crate) struct Passes<'a> {
    slots: &'a [Slot],
    prepared: DisjointMut<'a, Prepared>,
    extra: &'a [Extra],
    pins: DisjointMut<'a, PinBatch>,
    colors: &'a [JointColor],
    overflow: &'a Range<usize>,
    kernels: &'static dyn Kernels,
    /// The biased passes' rigid coefficients.
    rigid: Coeffs,
    h: f32,
    inv_h: f32,
    /// The solver's speed caps, `(linear, angular)`, which every joint's write obeys.
    speed_caps: (f32, f32),
}

impl Passes<'_> {
    /// Runs one joint pass over block `block` of `set` (see [`JointBatches::blocks`]): a run
    /// of pin batches or of other joints of a color, or the whole overflow set, in order.
    ///
    /// # Safety
    /// `block` is one of the set's; no other thread accesses its joints, or the states those
    /// joints move, meanwhile; the joints' states are those of `states`.
    pub(crate) unsafe fn run(self, op: JointOp, set: JointSet, block: usize, states: States) {
        zone!("joint block");
        let pass = Pass {
            rigid: match op {
                JointOp::Relax => RIGID,
                _ => self.rigid,
            },
            inv_h: self.inv_h,
            h: self.h,
        };
        let color = match set {
            JointSet::Overflow => return self.run_joints(op, &pass, self.overflow.clone(), states),
            JointSet::Color(c) => &self.colors[c],
        };
        let pin_blocks = color.pins.len().div_ceil(PINS_PER_BLOCK);
        if block < pin_blocks {
            let first = color.pins.start + block * PINS_PER_BLOCK;
            let pins = first..(first + PINS_PER_BLOCK).min(color.pins.end);
            self.run_pins(op, &pass, pins, states);
        } else {
            let first = color.joints.start + (block - pin_blocks) * JOINTS_PER_BLOCK;
            let joints = first..(first + JOINTS_PER_BLOCK).min(color.joints.end);
            self.run_joints(op, &pass, joints, states);
        }
    }

    /// The pin batches of `range`, with the backend's kernels.
    ///
    /// # Safety
    /// As for [`Passes::run`].
    unsafe fn run_pins(self, op: JointOp, pass: &Pass, range: Range<usize>, states: States) {
        let params = PinParams {
            bias_rate: pass.rigid.bias_rate,
            mass_scale: pass.rigid.mass_scale,
            impulse_scale: pass.rigid.impulse_scale,
        };
        for i in range {
            let batch = self.pins.get(i);
            match op {
                JointOp::WarmStart => self.kernels.pin_warm_start(batch, states),
                _ => self.kernels.pin_solve(batch, states, &params),
            }
        }
    }

    /// The joints of `range` of `prepared`, one after another.
    ///
    /// # Safety
    /// As for [`Passes::run`].
    unsafe fn run_joints(self, op: JointOp, pass: &Pass, range: Range<usize>, states: States) {
        for k in range {
            let Prepared { c, impulses } = self.prepared.get(k);
            let mut pair = Pair {
                a: Side::load(states, c.state[0]),
                b: Side::load(states, c.state[1]),
                p: c,
                x: &self.extra[k],
            };
            match op {
                JointOp::WarmStart => {
                    warm_start(c.kind, impulses, &mut pair);
                    if let Some(law) = pair.x.law {
                        let joint = self.slots[c.slot as usize].joint.as_ref();
                        let joint = joint.expect("a prepared joint stays in its slot for the step");
                        joint.solve_spring(law, impulses, &mut pair);
                    }
                }
                // A plain revolute joint's whole solve (see `Joint::solve`).
                JointOp::Solve | JointOp::Relax if c.plain => {
                    pair.solve_point(pass.rigid, &mut impulses.linear, f32::INFINITY)
                }
                JointOp::Solve | JointOp::Relax => {
                    let joint = self.slots[c.slot as usize].joint.as_ref();
                    let joint = joint.expect("a prepared joint stays in its slot for the step");
                    joint.solve(impulses, &mut pair, pass)
                }
            }
            // Joints that contradict each other through bodies nothing moves (a body welded
            // to a fixed body and to a kinematic one flying off) fight without end: their
            // accumulated impulses grow pass after pass, and the velocities they leave would
            // carry the body arbitrarily far before the next velocity integration caps them,
            // the far error feeding a larger bias until the state overflows. Capped here,
            // each substep moves a body at most as far as the caps allow; a joint that obeys
            // its law never comes near them.
            if c.moves[0] {
                pair.a.cap(self.speed_caps);
                pair.a.store(states, c.state[0]);
            }
            if c.moves[1] {
                pair.b.cap(self.speed_caps);
                pair.b.store(states, c.state[1]);
            }
        }
    }
}

/// Filling a pin lane from a plain revolute joint's constants.
trait SetLane {
    fn set(&mut self, l: usize, p: &Prepared);
}

impl SetLane for PinBatch {
    fn set(&mut self, l: usize, p: &Prepared) {
        let (c, i) = (&p.c, &p.impulses);
        self.body_a[l] = c.state[0];
        self.body_b[l] = c.state[1];
        self.inv_mass_a[l] = c.inv_mass[0];
        self.inv_mass_b[l] = c.inv_mass[1];
        self.inv_inertia_a[l] = c.inv_inertia[0];
        self.inv_inertia_b[l] = c.inv_inertia[1];
        self.rax[l] = c.r[0].x;
        self.ray[l] = c.r[0].y;
        self.rbx[l] = c.r[1].x;
        self.rby[l] = c.r[1].y;
        self.dcx[l] = c.delta_center.x;
        self.dcy[l] = c.delta_center.y;
        self.impulse_x[l] = i.linear.x;
        self.impulse_y[l] = i.linear.y;
        // As the warm start sums them (see `warm_start`).
        self.angular[l] = i.angular + i.motor + i.lower - i.upper;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Backend;
    use batch2d_kernels::joint as pin;
    use batch2d_kernels::StateRows;

    /// A small deterministic generator of floats in `-1..1`.
    struct Noise(u32);

    impl Noise {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (self.0 >> 8) as f32 / (1 << 23) as f32 - 1.0
        }

        fn vec(&mut self) -> Vec2 {
            Vec2::new(self.next(), self.next())
        }
    }

    /// The pin kernels, both backends, give a plain revolute joint the bits the scalar joint
    /// solver gives it: over warm start, biased solves and relax, with bodies that move, a
    /// fixed side and a kinematic side.
    #[test]
    fn pins_match_the_scalar_joint_solver() {
        let mut noise = Noise(7);
        let states: Vec<BodyState> = (0..16)
            .map(|_| {
                let angle = noise.next();
                let mut s = BodyState::with_velocity([noise.next(), noise.next()], noise.next());
                s.dp = [0.1 * noise.next(), 0.1 * noise.next()];
                s.dq = [angle.cos(), angle.sin()];
                s
            })
            .collect();
        let joints: Vec<Prepared> = (0..LANES)
            .map(|l| {
                let mut mass = |moves: bool| match moves {
                    true => (0.5 + noise.next().abs(), 0.2 + noise.next().abs()),
                    false => (0.0, 0.0),
                };
                // Lane 3 hangs from a fixed body, lane 5 from a kinematic one.
                let (ma, ia) = mass(l != 3 && l != 5);
                let (mb, ib) = mass(true);
                let state_a = if l == 3 { NULL_BODY } else { 2 * l as u32 };
                let mut impulses = Impulses {
                    linear: noise.vec(),
                    ..Impulses::default()
                };
                impulses.angular = if l == 6 { noise.next() } else { 0.0 };
                Prepared {
                    c: Consts {
                        state: [state_a, 2 * l as u32 + 1],
                        inv_mass: [ma, mb],
                        inv_inertia: [ia, ib],
                        r: [noise.vec(), noise.vec()],
                        delta_center: noise.vec(),
                        slot: l as u32,
                        kind: JointKind::Revolute,
                        moves: [ma + ia > 0.0, true],
                        plain: true,
                    },
                    impulses,
                }
            })
            .collect();
        let soft = Softness::new(60.0, JOINT_DAMPING_RATIO, 1.0 / 240.0).into();
        let passes = [
            (JointOp::WarmStart, soft),
            (JointOp::Solve, soft),
            (JointOp::Solve, soft),
            (JointOp::Relax, RIGID),
        ];

        let mut rows = StateRows::from_states(&states);
        let mut expected = joints.clone();
        let extra = Extra::default();
        for &(op, k) in &passes {
            let rows = States::new(&mut rows);
            for Prepared { c, impulses } in &mut expected {
                // SAFETY: the states are in bounds and this thread alone has them.
                unsafe {
                    let mut pair = Pair {
                        a: Side::load(rows, c.state[0]),
                        b: Side::load(rows, c.state[1]),
                        p: c,
                        x: &extra,
                    };
                    match op {
                        JointOp::WarmStart => warm_start(c.kind, impulses, &mut pair),
                        _ => pair.solve_point(k, &mut impulses.linear, f32::INFINITY),
                    }
                    for side in 0..2 {
                        let s = if side == 0 { pair.a } else { pair.b };
                        if c.moves[side] {
                            s.store(rows, c.state[side]);
                        }
                    }
                }
            }
        }

        for backend in [Backend::Simd, Backend::Scalar] {
            let mut batch = PinBatch::empty();
            for (l, p) in joints.iter().enumerate() {
                batch.set(l, p);
            }
            let mut pin_rows = StateRows::from_states(&states);
            for &(op, k) in &passes {
                let params = PinParams {
                    bias_rate: k.bias_rate,
                    mass_scale: k.mass_scale,
                    impulse_scale: k.impulse_scale,
                };
                let rows = States::new(&mut pin_rows);
                // SAFETY: as above.
                unsafe {
                    match (op, backend) {
                        (JointOp::WarmStart, Backend::Simd) => {
                            pin::simd::warm_start(&mut batch, rows)
                        }
                        (JointOp::WarmStart, Backend::Scalar) => {
                            pin::scalar::warm_start(&mut batch, rows)
                        }
                        (_, Backend::Simd) => pin::simd::solve(&mut batch, rows, &params),
                        (_, Backend::Scalar) => pin::scalar::solve(&mut batch, rows, &params),
                    }
                }
            }
            let bits = |s: &[BodyState]| -> Vec<u32> {
                s.iter()
                    .flat_map(|s| [s.v[0], s.v[1], s.w].map(f32::to_bits))
                    .collect()
            };
            assert_eq!(bits(&pin_rows), bits(&rows), "{backend:?}: velocities");
            for (l, p) in expected.iter().enumerate() {
                let got = [batch.impulse_x[l], batch.impulse_y[l]].map(f32::to_bits);
                let want = [p.impulses.linear.x, p.impulses.linear.y].map(f32::to_bits);
                assert_eq!(got, want, "{backend:?}: impulse of lane {l}");
            }
        }
    }
}
