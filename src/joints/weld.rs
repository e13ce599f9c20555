//! The weld joint: its point and its turn held as one 3x3 block, or, for a soft weld, its
//! spring on all three rows.

use crate::geometry::math::Vec2;
use crate::joints::joint::{Impulses, Joint};
use crate::joints::pair::{point_block, solve2, Coeffs, Pair, Pass, Row};
use crate::joints::spring::SpringLaw;

impl Pair<'_> {
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

    /// A weld's spring on its point (see [`SpringLaw`]): B's anchor pulled to A's.
    fn solve_spring_point(&mut self, law: SpringLaw, accumulated: &mut Vec2) {
        let kick = self.x.kick[1] - self.x.kick[0];
        let (ra, rb, d) = self.point_arms();
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
}

impl Joint {
    /// A weld's pass: its three rows at once. A soft weld has none: its spring acts in the
    /// warm start stage (see `Joint::solve_weld_spring`).
    pub(super) fn solve_weld(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        if pair.x.law.is_some() {
            return;
        }
        let k = pass.rigid;
        let angle = pair.angle(self.reference_angle);
        pair.solve_weld(k, angle, &mut i.linear, &mut i.angular);
    }

    /// A soft weld's spring, on all three of its rows.
    pub(super) fn solve_weld_spring(&self, law: SpringLaw, i: &mut Impulses, pair: &mut Pair) {
        let angle = pair.angle(self.reference_angle);
        pair.solve_spring_row(Row::ANGULAR, angle, law, &mut i.angular);
        pair.solve_spring_point(law, &mut i.linear);
    }
}
