//! The joint passes of the soft step: prepare once per step, then per substep warm start,
//! biased solve and relax, on the solver's body states.
//!
//! A joint's position error is measured the way the contact kernels measure separation: from
//! the pose its bodies had when the step began plus the motion the substeps have accumulated
//! since (`dp`, `dq` of the body state), so no pose is written back until the step ends.
//! Rigid constraints are soft in the biased pass (a damped spring at twice the contacts'
//! stiffness, the stiffness of a contact with a static body) and unbiased in the relax pass,
//! which removes the velocity the bias added. Springs the user asked for act in both passes:
//! they are part of the model, not an error correction. Limits let a body approach within the
//! substep (a limit not yet reached is a speculative constraint), motors are capped at their
//! impulse per substep.
//!
//! Every pass runs on one thread over the joints in slot order, with scalar arithmetic that
//! does not depend on the backend (no fused multiply-add): the same bits for both backends and
//! every thread count.

use crate::body::BodyStore;
use crate::index::NONE;
use crate::joint::{Impulses, Joint, JointKind, JointStore};
use crate::math::{Rot, Vec2};
use crate::settings::WorldSettings;
use crate::solver::Softness;
use batch2d_kernels::body::States;
use batch2d_kernels::{BodyState, NULL_BODY};
use std::f32::consts::PI;

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

/// What one step needs of a joint, taken when the step begins.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Prepared {
    /// Solver states of A and B (`NULL_BODY`: a body the solver does not move).
    state: [u32; 2],
    inv_mass: [f32; 2],
    inv_inertia: [f32; 2],
    /// Anchors relative to the centres of mass, world frame, at the start of the step.
    r: [Vec2; 2],
    /// Rotations at the start of the step.
    q: [Rot; 2],
    /// B's centre minus A's (a mouse joint: minus the target) at the start of the step.
    delta_center: Vec2,
    /// The joint's axis, world frame, at the start of the step.
    axis: Vec2,
    /// The user's spring for one substep, when it has a frequency above zero.
    spring: Option<Softness>,
    /// A mouse joint's damping of the body's spin: twice the spring's frequency.
    spin: Option<Softness>,
    /// Some body can move: without one the joint has nothing to do.
    active: bool,
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

    /// Writes the velocity back; `NULL_BODY` has no state to write.
    ///
    /// # Safety
    /// As for [`States::write_velocity`].
    unsafe fn store(&self, states: States, index: u32) {
        if index != NULL_BODY {
            let s = BodyState::with_velocity([self.v.x, self.v.y], self.w);
            states.write_velocity(index, &s);
        }
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

/// Solves `[[k11, k12], [k12, k22]] x = r`; zero for a singular matrix.
fn solve2(k11: f32, k12: f32, k22: f32, r: Vec2) -> Vec2 {
    let det = k11 * k22 - k12 * k12;
    if det == 0.0 {
        return Vec2::ZERO;
    }
    let inv = 1.0 / det;
    Vec2::new(inv * (k22 * r.x - k12 * r.y), inv * (k11 * r.y - k12 * r.x))
}

/// Both bodies of a joint during one pass.
struct Pair<'a> {
    a: Side,
    b: Side,
    p: &'a Prepared,
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
        let qa = self.a.dq.compose(self.p.q[0]);
        let qb = self.b.dq.compose(self.p.q[1]);
        relative_angle(qa, qb, reference)
    }

    /// The joint's axis now (it turns with A).
    fn axis(&self) -> Vec2 {
        self.a.dq.rotate(self.p.axis)
    }

    fn row_velocity(&self, row: Row) -> f32 {
        row.n.dot(self.b.v - self.a.v) + row.jb * self.b.w - row.ja * self.a.w
    }

    fn row_mass(&self, row: Row) -> f32 {
        let p = self.p;
        inverse(
            p.inv_mass[0]
                + p.inv_mass[1]
                + p.inv_inertia[0] * row.ja * row.ja
                + p.inv_inertia[1] * row.jb * row.jb,
        )
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
        let k11 = ma + mb + ra.y * ra.y * ia + rb.y * rb.y * ib;
        let k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
        let k22 = ma + mb + ra.x * ra.x * ia + rb.x * rb.x * ib;
        let x = solve2(k11, k12, k22, cdot + d * k.bias_rate);
        let impulse = x * -k.mass_scale - *accumulated * k.impulse_scale;
        let old = *accumulated;
        let mut total = old + impulse;
        let length = total.length();
        if length > max {
            total = total * (max / length);
        }
        *accumulated = total;
        self.apply_point(ra, rb, total - old);
    }
}

impl Joint {
    /// Takes the step's constants from the bodies as the step begins.
    fn prepare(&mut self, bodies: &BodyStore, state_of: &[u32], h: f32) {
        let side = |slot: u32| {
            if slot == NONE {
                return (NULL_BODY, 0.0, 0.0, Rot::IDENTITY);
            }
            let s = slot as usize;
            match state_of[s] {
                NULL_BODY => (NULL_BODY, 0.0, 0.0, bodies.rotation[s]),
                state => (
                    state,
                    bodies.inv_mass[s],
                    bodies.inv_inertia[s],
                    bodies.rotation[s],
                ),
            }
        };
        let (sa, ma, ia, qa) = side(self.a);
        let (sb, mb, ib, qb) = side(self.b);
        let (ca, ra) = match self.a {
            NONE => (self.local_a, Vec2::ZERO),
            a => (bodies.center[a as usize], qa.rotate(self.local_a)),
        };
        let (spring, spin) = match self.spring {
            Some((hertz, zeta)) if hertz > 0.0 => (
                Some(Softness::new(hertz, zeta, h)),
                (self.kind == JointKind::Mouse).then(|| Softness::new(2.0 * hertz, zeta, h)),
            ),
            _ => (None, None),
        };
        self.prep = Prepared {
            state: [sa, sb],
            inv_mass: [ma, mb],
            inv_inertia: [ia, ib],
            r: [ra, qb.rotate(self.local_b)],
            q: [qa, qb],
            delta_center: bodies.center[self.b as usize] - ca,
            axis: qa.rotate(self.local_axis),
            spring,
            spin,
            active: ma + mb + ia + ib > 0.0,
        };
    }

    /// Applies the accumulated impulses of the last substep (or step) again.
    fn warm_start(&self, pair: &mut Pair) {
        let i = &self.impulses;
        match self.kind {
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
                pair.apply_row(row, i.axial + i.lower - i.upper);
            }
            JointKind::Prismatic | JointKind::Wheel => {
                let (along, across) = slide_rows(pair);
                let (slide_motor, turn_motor) = match self.kind {
                    JointKind::Prismatic => (i.motor, 0.0),
                    _ => (0.0, i.motor),
                };
                pair.apply_row(along, i.axial + slide_motor + i.lower - i.upper);
                pair.apply_row(across, i.linear.x);
                pair.apply_row(Row::ANGULAR, i.angular + turn_motor);
            }
        }
    }

    /// One solve (`pass.rigid` biased) or relax (`RIGID`) pass.
    fn solve(&mut self, pair: &mut Pair, pass: &Pass) {
        let i = &mut self.impulses;
        // The user's spring acts in every pass; without one, rigid joints use the pass's.
        let sprung = pair.p.spring.map(Coeffs::from);
        match self.kind {
            JointKind::Revolute => {
                if let Some(motor) = self.motor {
                    pair.solve_motor(Row::ANGULAR, motor, pass, &mut i.motor);
                }
                if let Some((lower, upper)) = self.limits {
                    let angle = pair.angle(self.reference_angle);
                    pair.solve_limit(Row::ANGULAR, angle - lower, pass, &mut i.lower);
                    let angle = pair.angle(self.reference_angle);
                    pair.solve_limit(Row::ANGULAR.neg(), upper - angle, pass, &mut i.upper);
                }
                pair.solve_point(pass.rigid, &mut i.linear, f32::INFINITY);
            }
            JointKind::Weld => {
                let k = sprung.unwrap_or(pass.rigid);
                let angle = pair.angle(self.reference_angle);
                pair.solve_equality(Row::ANGULAR, angle, k, &mut i.angular);
                pair.solve_point(k, &mut i.linear, f32::INFINITY);
            }
            JointKind::Mouse => {
                // Without damping, a body held off its centre would keep spinning about the
                // grip, its centre circling and the spring stretched by the circling.
                if let Some(spin) = pair.p.spin {
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
            JointKind::Distance => {
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
                    (_, Some((min, max))) if min == max => {
                        pair.solve_equality(row, c, pass.rigid, &mut i.axial)
                    }
                    (_, range) => {
                        if let Some(k) = sprung {
                            pair.solve_equality(row, c, k, &mut i.axial);
                        }
                        if let Some((min, max)) = range {
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
            JointKind::Prismatic | JointKind::Wheel => {
                let prismatic = self.kind == JointKind::Prismatic;
                if let Some(motor) = self.motor {
                    let row = if prismatic {
                        slide_rows(pair).0
                    } else {
                        Row::ANGULAR
                    };
                    pair.solve_motor(row, motor, pass, &mut i.motor);
                }
                if let Some(k) = sprung.filter(|_| !prismatic) {
                    let (along, _) = slide_rows(pair);
                    let (_, _, d) = pair.geometry();
                    let c = pair.axis().dot(d);
                    pair.solve_equality(along, c, k, &mut i.axial);
                }
                if let Some((lower, upper)) = self.limits {
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
    }
}

/// The rows along a prismatic or wheel joint's axis and across it, now.
fn slide_rows(pair: &Pair) -> (Row, Row) {
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

/// A prismatic joint's rows across the axis and of the relative turn, solved together: one
/// 2x2 block couples them, since a turn of A swings the axis.
fn solve_slide_and_turn(pair: &mut Pair, k: Coeffs, reference: f32, i: &mut Impulses) {
    let (_, across) = slide_rows(pair);
    let (_, _, d) = pair.geometry();
    let c = Vec2::new(pair.axis().left_perp().dot(d), pair.angle(reference));
    let p = pair.p;
    let (ma, mb) = (p.inv_mass[0], p.inv_mass[1]);
    let (ia, ib) = (p.inv_inertia[0], p.inv_inertia[1]);
    let (s1, s2) = (across.ja, across.jb);
    let k11 = ma + mb + ia * s1 * s1 + ib * s2 * s2;
    let k12 = ia * s1 + ib * s2;
    // Neither body can turn: the turn row is empty, and a unit entry keeps the block regular.
    let k22 = if ia + ib > 0.0 { ia + ib } else { 1.0 };
    let cdot = Vec2::new(pair.row_velocity(across), pair.row_velocity(Row::ANGULAR));
    let x = solve2(k11, k12, k22, cdot + c * k.bias_rate);
    let accumulated = Vec2::new(i.linear.x, i.angular);
    let impulse = x * -k.mass_scale - accumulated * k.impulse_scale;
    i.linear.x += impulse.x;
    i.angular += impulse.y;
    pair.apply_row(across, impulse.x);
    pair.apply_row(Row::ANGULAR, impulse.y);
}

impl JointStore {
    /// Takes every joint's constants for a step of substeps `h` long; `state_of` maps body
    /// slots to solver states. Returns whether any joint can move a body.
    pub(crate) fn prepare(
        &mut self,
        bodies: &BodyStore,
        state_of: &[u32],
        settings: &WorldSettings,
        h: f32,
    ) -> bool {
        self.h = h;
        self.inv_h = 1.0 / h;
        // As stiff as a contact with a static body (see `Solver::pack`).
        let hertz = 2.0 * settings.contact_hertz.min(0.25 / h);
        self.rigid = Softness::new(hertz, JOINT_DAMPING_RATIO, h);
        let mut active = false;
        for joint in self.iter_mut() {
            joint.prepare(bodies, state_of, h);
            active |= joint.prep.active;
        }
        active
    }

    /// Runs one joint pass over every joint, in slot order.
    ///
    /// # Safety
    /// No other thread accesses `states` meanwhile, and the joints' states are those of
    /// `states` (from [`JointStore::prepare`] this step).
    pub(crate) unsafe fn run(&mut self, op: JointOp, states: States) {
        let pass = Pass {
            rigid: match op {
                JointOp::Relax => RIGID,
                _ => self.rigid.into(),
            },
            inv_h: self.inv_h,
            h: self.h,
        };
        for joint in self.iter_mut() {
            let p = joint.prep;
            if !p.active {
                continue;
            }
            let mut pair = Pair {
                a: Side::load(states, p.state[0]),
                b: Side::load(states, p.state[1]),
                p: &p,
            };
            match op {
                JointOp::WarmStart => joint.warm_start(&mut pair),
                JointOp::Solve | JointOp::Relax => joint.solve(&mut pair, &pass),
            }
            pair.a.store(states, p.state[0]);
            pair.b.store(states, p.state[1]);
        }
    }
}
