//! The revolute joint (a hinge): its point held, its motor and limits on the relative turn,
//! its spring on the angle. A revolute joint without limits, motor or spring is plain, and
//! goes eight to a pin batch for the pin kernels (see `batches`).

use crate::geometry::math::Vec2;
use crate::joints::joint::{Impulses, Joint};
use crate::joints::pair::{solve2, Drive, Pair, Pass, Row};
use crate::joints::spring::SpringLaw;

impl Pair<'_> {
    /// A revolute joint's limit row (`row`, turning only, its error `c`) and point rows as
    /// one block, as [`Pair::solve_weld`] solves a weld's, the limit's coefficients those of
    /// [`Pass::limit`] and the point's `pass.point`; `false`, changing nothing, where the
    /// block is singular or the limit would pull; `drive` presses the limit (see [`Drive`]).
    /// Solved apart, the limit's impulse turns the body about its centre and the point's
    /// turns it back about the hinge, pass after pass: a bar turning at 40 rad/s into its
    /// limit passed it by almost 2 degrees.
    #[allow(clippy::too_many_arguments)]
    fn solve_limit_and_point(
        &mut self,
        row: Row,
        c: f32,
        pass: &Pass,
        limit: &mut f32,
        drive: f32,
        linear: &mut Vec2,
    ) -> bool {
        let Some(h) = self.hinge_block() else {
            return false;
        };
        let (bias, mass_scale, impulse_scale) = pass.limit(c);
        let k = pass.point;
        let [k11, k12, k22, det2] = h.point;
        // The limit's row is `row.jb` times the hinge block's turn row (`wB - wA`).
        let sign = row.jb;
        let coupling = h.coupling * sign;
        let r_point = h.cdot + h.d * k.bias_rate;
        let r_turn = self.row_velocity(row) + bias;
        let x_turn = h.schur_mass * (r_turn - coupling.dot(solve2(k11, k12, k22, det2, r_point)));
        let turn = -mass_scale * x_turn - impulse_scale * (*limit - drive);
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
}

impl Joint {
    /// A revolute joint's pass: its motor, its limits (pressed by the motor and the spring,
    /// see [`Drive`]), then its point.
    pub(super) fn solve_revolute(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        if let Some(motor) = self.active_motor() {
            pair.solve_motor(Row::ANGULAR, motor, pass, &mut i.motor);
        }
        let Some((lower, upper)) = self.active_limits() else {
            pair.solve_point(pass.point, &mut i.linear, f32::INFINITY);
            return;
        };
        let angle = pair.angle(self.reference_angle);
        let (c_lower, c_upper) = (angle - lower, upper - angle);
        let drive = Drive::new(i.motor + i.angular);
        // The nearer limit with the point in one block, where it pushes (see
        // `Pair::solve_limit_and_point`); the farther one alone, first.
        let (near, far) = match c_lower <= c_upper {
            true => (
                (Row::ANGULAR, c_lower, &mut i.lower, drive.lower),
                (c_upper, &mut i.upper, drive.upper),
            ),
            false => (
                (Row::ANGULAR.neg(), c_upper, &mut i.upper, drive.upper),
                (c_lower, &mut i.lower, drive.lower),
            ),
        };
        pair.solve_limit(near.0.neg(), far.0, pass, far.1, far.2);
        let (row, c, limit, drive) = near;
        if !pair.solve_limit_and_point(row, c, pass, limit, drive, &mut i.linear) {
            pair.solve_limit(row, c, pass, limit, drive);
            pair.solve_point(pass.point, &mut i.linear, f32::INFINITY);
        }
    }

    /// A revolute joint's spring, on its angle.
    pub(super) fn solve_revolute_spring(&self, law: SpringLaw, i: &mut Impulses, pair: &mut Pair) {
        let angle = pair.angle(self.reference_angle);
        pair.solve_spring_row(Row::ANGULAR, angle, law, &mut i.angular);
    }
}
