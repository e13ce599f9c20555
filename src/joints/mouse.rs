//! The mouse joint: a point of the body pulled to a target by a spring of limited force, which
//! acts in every pass (not once per substep, as the other joints' springs do), and the body's
//! spin damped.

use crate::joints::joint::{Impulses, Joint};
use crate::joints::pair::{Coeffs, Pair, Pass, Row};

impl Joint {
    /// A mouse joint's pass: the spin damped, then the point pulled, within the joint's force.
    pub(super) fn solve_mouse(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        // A mouse joint's spring acts in every pass. Other joints' springs act once per
        // substep, in the warm start stage (see `Joint::solve_spring`).
        let sprung = pair.x.spring.map(Coeffs::from);
        // Without damping, a body held off its centre would keep spinning about the
        // grip, its centre circling and the spring stretched by the circling.
        if let Some(spin) = pair.x.spin {
            pair.solve_equality(Row::ANGULAR, 0.0, spin.into(), &mut i.angular);
        }
        let k = sprung.unwrap_or(pass.rigid);
        pair.solve_point(k, &mut i.linear, self.max_force * pass.h);
    }
}
