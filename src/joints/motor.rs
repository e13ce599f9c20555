//! The motor joint: B driven towards a pose relative to A, a share of the error per substep,
//! with a force and a torque of limited size.

use crate::joints::joint::{Impulses, Joint};
use crate::joints::pair::{Coeffs, Pair, Pass, Row, RIGID};

impl Joint {
    /// A motor joint's pass: its turn, then its point, each within its cap.
    pub(super) fn solve_motor_joint(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
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
}
