//! What every joint's pass is made of: both bodies of a joint as a pass sees them (`Pair`),
//! the constraint rows and their coefficients, and the solves that several kinds share: a row
//! held at zero, a one-sided limit, a motor, a pinned point, and the warm start of a point and
//! a turn. Each kind's own solve is in the file named after it.

use crate::geometry::math::{Rot, Vec2};
use crate::joints::joint::Impulses;
use crate::joints::prepare::{Consts, Extra};
use crate::joints::spring::SpringLaw;
use crate::softness::Softness;
use batch2d_kernels::body::{cap_speeds, States};
use batch2d_kernels::BodyState;
use std::f32::consts::PI;

/// A body as a joint pass sees it: velocity and the motion since the step began.
#[derive(Clone, Copy, Debug)]
pub(super) struct Side {
    pub(super) v: Vec2,
    pub(super) w: f32,
    pub(super) dp: Vec2,
    pub(super) dq: Rot,
}

impl Side {
    /// # Safety
    /// As for [`States::read`].
    pub(super) unsafe fn load(states: States, index: u32) -> Side {
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
    pub(super) fn cap(&mut self, (max_linear, max_angular): (f32, f32)) {
        let (v, w) = cap_speeds([self.v.x, self.v.y], self.w, max_linear, max_angular);
        self.v = Vec2::new(v[0], v[1]);
        self.w = w;
    }

    /// Writes the velocity back.
    ///
    /// # Safety
    /// As for [`States::write_velocity`].
    pub(super) unsafe fn store(&self, states: States, index: u32) {
        let s = BodyState::with_velocity([self.v.x, self.v.y], self.w);
        states.write_velocity(index, &s);
    }
}

/// How a constraint row corrects its error: velocity bias per metre (or radian) of error,
/// and the soft step's mass and impulse scales.
#[derive(Clone, Copy, Debug)]
pub(super) struct Coeffs {
    pub(super) bias_rate: f32,
    pub(super) mass_scale: f32,
    pub(super) impulse_scale: f32,
}

/// No correction: a plain velocity constraint (the relax pass).
pub(super) const RIGID: Coeffs = Coeffs {
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
pub(super) struct Pass {
    /// The rigid constraints' coefficients in this pass, and those of a revolute joint's
    /// point (see `passes::point_softness`).
    pub(super) rigid: Coeffs,
    pub(super) point: Coeffs,
    pub(super) inv_h: f32,
    pub(super) h: f32,
}

impl Pass {
    /// Bias, mass scale and impulse scale of a one-sided limit whose error is `c` (positive
    /// while the limit is not reached): a limit still ahead lets the body close the gap within
    /// the substep and no farther.
    pub(super) fn limit(&self, c: f32) -> (f32, f32, f32) {
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
pub(super) struct Row {
    pub(super) n: Vec2,
    pub(super) ja: f32,
    pub(super) jb: f32,
}

impl Row {
    /// Turning only: the relative angular velocity `wB - wA`.
    pub(super) const ANGULAR: Row = Row {
        n: Vec2::ZERO,
        ja: 1.0,
        jb: 1.0,
    };

    pub(super) fn neg(self) -> Row {
        Row {
            n: -self.n,
            ja: -self.ja,
            jb: -self.jb,
        }
    }
}

/// `1 / k`, or 0 where no body can move along the constraint.
pub(super) fn inverse(k: f32) -> f32 {
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// What a joint's own motor and spring press its limits with: the impulses they have
/// accumulated along the limits' row, as much as pushes into each limit.
///
/// A soft limit is a spring as stiff as a contact against a fixed body, `I w^2` for the
/// effective inertia `I` (or mass) of its row: its impulse leaks each pass unless an error
/// holds it up. Against its own motor pressing with torque `T`, it then sits `T / (I w^2)`
/// past (a 1000 N m motor on a 1 kg bar a metre long: 2.1 degrees). Yet the motor and the
/// limit act on the same row of the same bodies, and the part of the limit's impulse that
/// cancels the motor's moves nothing: leaking only the rest, the limit is as soft as ever
/// against what comes from outside the joint (gravity, contacts, other joints) and rigid
/// against the joint's own drive, which the motor's cap bounds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Drive {
    /// Pressing on the lower limit (its row is the drive's).
    pub(super) lower: f32,
    /// Pressing on the upper limit (its row is the drive's, negated).
    pub(super) upper: f32,
}

impl Drive {
    /// The drive of a joint whose motor and spring have accumulated `impulse` along the
    /// lower limit's row.
    pub(super) fn new(impulse: f32) -> Drive {
        Drive {
            lower: (-impulse).max(0.0),
            upper: impulse.max(0.0),
        }
    }
}

/// The relative angle `qb - qa - reference` in `[-pi, pi]`.
pub(super) fn relative_angle(qa: Rot, qb: Rot, reference: f32) -> f32 {
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
pub(super) fn solve2(k11: f32, k12: f32, k22: f32, det: f32, r: Vec2) -> Vec2 {
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
pub(super) fn point_block(ma: f32, mb: f32, ia: f32, ib: f32, ra: Vec2, rb: Vec2) -> [f32; 4] {
    let m = ma + mb;
    let k11 = (m + ra.y * ra.y * ia) + rb.y * rb.y * ib;
    let k12 = -ra.y * ra.x * ia - rb.y * rb.x * ib;
    let k22 = (m + ra.x * ra.x * ia) + rb.x * rb.x * ib;
    let arms = ia * (ra.x * ra.x + ra.y * ra.y) + ib * (rb.x * rb.x + rb.y * rb.y);
    let cross = ra.x * rb.y - ra.y * rb.x;
    let det = (m * m + m * arms) + (ia * ib) * (cross * cross);
    [k11, k12, k22, det]
}

/// Both bodies of a joint during one pass.
pub(super) struct Pair<'a> {
    pub(super) a: Side,
    pub(super) b: Side,
    pub(super) p: &'a Consts,
    pub(super) x: &'a Extra,
}

impl Pair<'_> {
    /// The anchors' offsets from the centres of mass, and B's anchor minus A's, now.
    pub(super) fn geometry(&self) -> (Vec2, Vec2, Vec2) {
        let ra = self.a.dq.rotate(self.p.r[0]);
        let rb = self.b.dq.rotate(self.p.r[1]);
        let d = (self.b.dp - self.a.dp) + self.p.delta_center + (rb - ra);
        (ra, rb, d)
    }

    /// A point constraint's arms now: from each centre of mass to B's anchor, where the
    /// constraint's impulse acts on both bodies, and B's anchor minus A's.
    ///
    /// An impulse on both bodies at one point carries no moment of its own, so the joint
    /// keeps the bodies' angular momentum while its anchors are apart. Applied at each body's
    /// own anchor, an impulse `P` with the anchors `d` apart adds `d x P`: between joints
    /// that contradict each other, whose anchors stay apart, two welds spun a pair of free
    /// bodies up to 110 rad/s.
    pub(super) fn point_arms(&self) -> (Vec2, Vec2, Vec2) {
        let (ra, rb, d) = self.geometry();
        (ra + d, rb, d)
    }

    /// B's angle relative to A's, minus `reference`, now.
    pub(super) fn angle(&self, reference: f32) -> f32 {
        let qa = self.a.dq.compose(self.x.q[0]);
        let qb = self.b.dq.compose(self.x.q[1]);
        relative_angle(qa, qb, reference)
    }

    /// The joint's axis now (it turns with A).
    pub(super) fn axis(&self) -> Vec2 {
        self.a.dq.rotate(self.x.axis)
    }

    pub(super) fn row_velocity(&self, row: Row) -> f32 {
        row.n.dot(self.b.v - self.a.v) + row.jb * self.b.w - row.ja * self.a.w
    }

    pub(super) fn row_mass(&self, row: Row) -> f32 {
        let p = self.p;
        // A turning row (no direction) moves no mass: counting the bodies' masses in made
        // its springs, limits and motors act on too small an effective inertia.
        let linear = match row.n == Vec2::ZERO {
            true => 0.0,
            false => p.inv_mass[0] + p.inv_mass[1],
        };
        inverse(linear + p.inv_inertia[0] * row.ja * row.ja + p.inv_inertia[1] * row.jb * row.jb)
    }

    pub(super) fn apply_row(&mut self, row: Row, impulse: f32) {
        let p = self.p;
        self.a.v -= row.n * (p.inv_mass[0] * impulse);
        self.a.w -= p.inv_inertia[0] * (row.ja * impulse);
        self.b.v += row.n * (p.inv_mass[1] * impulse);
        self.b.w += p.inv_inertia[1] * (row.jb * impulse);
    }

    /// Applies `impulse` to B at `rb` and its opposite to A at `ra`.
    pub(super) fn apply_point(&mut self, ra: Vec2, rb: Vec2, impulse: Vec2) {
        let p = self.p;
        self.a.v -= impulse * p.inv_mass[0];
        self.a.w -= p.inv_inertia[0] * ra.cross(impulse);
        self.b.v += impulse * p.inv_mass[1];
        self.b.w += p.inv_inertia[1] * rb.cross(impulse);
    }

    /// One row with velocity bias `bias`, of which the soft step takes back `leak` (its
    /// impulse scale times the impulse the row's spring carries): the accumulated impulse
    /// stays in `lo..=hi`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_row(
        &mut self,
        row: Row,
        bias: f32,
        mass_scale: f32,
        leak: f32,
        accumulated: &mut f32,
        lo: f32,
        hi: f32,
    ) {
        let mass = self.row_mass(row);
        let cdot = self.row_velocity(row);
        let impulse = -mass_scale * mass * (cdot + bias) - leak;
        let old = *accumulated;
        *accumulated = (old + impulse).max(lo).min(hi);
        self.apply_row(row, *accumulated - old);
    }

    /// A row holding its error `c` at zero with the coefficients `k`.
    pub(super) fn solve_equality(&mut self, row: Row, c: f32, k: Coeffs, accumulated: &mut f32) {
        let (lo, hi) = (f32::NEG_INFINITY, f32::INFINITY);
        let bias = k.bias_rate * c;
        let leak = k.impulse_scale * *accumulated;
        self.solve_row(row, bias, k.mass_scale, leak, accumulated, lo, hi);
    }

    /// A one-sided row keeping its error `c` at or above zero, pressed by the joint's own
    /// `drive` (see [`Drive`]).
    pub(super) fn solve_limit(
        &mut self,
        row: Row,
        c: f32,
        pass: &Pass,
        accumulated: &mut f32,
        drive: f32,
    ) {
        let (bias, mass_scale, impulse_scale) = pass.limit(c);
        let leak = impulse_scale * (*accumulated - drive);
        let hi = f32::INFINITY;
        self.solve_row(row, bias, mass_scale, leak, accumulated, 0.0, hi);
    }

    /// A motor driving the row's velocity to `speed` with at most `max` force or torque.
    pub(super) fn solve_motor(
        &mut self,
        row: Row,
        (speed, max): (f32, f32),
        pass: &Pass,
        acc: &mut f32,
    ) {
        let cap = max * pass.h;
        self.solve_row(row, -speed, 1.0, 0.0, acc, -cap, cap);
    }

    /// Pins B's anchor to A's with the coefficients `k`; the accumulated impulse's length
    /// stays within `max`.
    pub(super) fn solve_point(&mut self, k: Coeffs, accumulated: &mut Vec2, max: f32) {
        let (ra, rb, d) = self.point_arms();
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

    /// A spring row with error `c` (see [`SpringLaw`]).
    pub(super) fn solve_spring_row(
        &mut self,
        row: Row,
        c: f32,
        law: SpringLaw,
        accumulated: &mut f32,
    ) {
        let mass = self.row_mass(row);
        let cdot = self.row_velocity(row);
        let kick = row.n.dot(self.x.kick[1] - self.x.kick[0]);
        let target = law.velocity_scale * cdot + law.stiffness * c - law.feed * kick;
        let impulse = -mass * target - law.impulse_scale * *accumulated;
        *accumulated += impulse;
        self.apply_row(row, impulse);
    }
}

/// Applies the accumulated impulses of a joint held at a point, whose turn is one row (a
/// revolute joint, a weld, a mouse or motor joint), again.
pub(super) fn warm_start_point(i: &Impulses, pair: &mut Pair) {
    let (ra, rb, _) = pair.point_arms();
    pair.apply_point(ra, rb, i.linear);
    let angular = i.angular + i.motor + i.lower - i.upper;
    pair.apply_row(Row::ANGULAR, angular);
}

/// A joint's point rows and angular row as one block, at the bodies' motion now (see
/// [`Pair::hinge_block`]).
pub(super) struct HingeBlock {
    pub(super) ra: Vec2,
    pub(super) rb: Vec2,
    /// B's anchor minus A's.
    pub(super) d: Vec2,
    /// The point block and its determinant (see [`point_block`]).
    pub(super) point: [f32; 4],
    pub(super) coupling: Vec2,
    /// `1 / S`, S the angular row's Schur complement.
    pub(super) schur_mass: f32,
    /// The anchors' relative velocity.
    pub(super) cdot: Vec2,
}

impl Pair<'_> {
    /// The point and angular rows of a joint whose angular row acts within its point
    /// constraint, as one 3x3 block: the block's inverse by eliminating the point rows (the
    /// Schur complement of the point block), without forming `k11 k22 - k12^2` or the 3x3
    /// determinant as differences (see [`solve2`]). `None` where the block is singular.
    pub(super) fn hinge_block(&self) -> Option<HingeBlock> {
        let (ra, rb, d) = self.point_arms();
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
}
