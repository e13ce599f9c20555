//! The revolute joint (a hinge): its point held, its motor and limits on the relative turn,
//! its spring on the angle. A revolute joint without limits, motor or spring is plain, and
//! goes eight to a pin batch for the pin kernels (see `batches`).

use crate::joints::joint::{Impulses, Joint};
use crate::joints::pair::{Pair, Pass, Row};
use crate::joints::spring::SpringLaw;

impl Joint {
    /// A revolute joint's pass: its motor, its limits, then its point.
    pub(super) fn solve_revolute(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        if let Some(motor) = self.active_motor() {
            pair.solve_motor(Row::ANGULAR, motor, pass, &mut i.motor);
        }
        if let Some((lower, upper)) = self.active_limits() {
            let angle = pair.angle(self.reference_angle);
            pair.solve_limit(Row::ANGULAR, angle - lower, pass, &mut i.lower);
            let angle = pair.angle(self.reference_angle);
            pair.solve_limit(Row::ANGULAR.neg(), upper - angle, pass, &mut i.upper);
        }
        pair.solve_point(pass.rigid, &mut i.linear, f32::INFINITY);
    }

    /// A revolute joint's spring, on its angle.
    pub(super) fn solve_revolute_spring(&self, law: SpringLaw, i: &mut Impulses, pair: &mut Pair) {
        let angle = pair.angle(self.reference_angle);
        pair.solve_spring_row(Row::ANGULAR, angle, law, &mut i.angular);
    }
}
