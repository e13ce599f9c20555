//! The wheel joint (a wheel on a suspension): B slides along an axis fixed in A, against an
//! optional spring and within optional limits, and turns freely, driven by an optional motor
//! (see `slide` for what it shares with the prismatic joint).

use crate::joints::joint::{Impulses, Joint};
use crate::joints::pair::{Pair, Pass, Row};
use crate::joints::slide::slide_rows;

impl Joint {
    /// A wheel joint's pass: its motor on the turn and its limits along the axis, then its row
    /// across the axis.
    pub(super) fn solve_wheel(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        if let Some(motor) = self.active_motor() {
            pair.solve_motor(Row::ANGULAR, motor, pass, &mut i.motor);
        }
        self.solve_slide_limits(i, pair, pass);
        let (_, across) = slide_rows(pair);
        let (_, _, d) = pair.geometry();
        let c = pair.axis().left_perp().dot(d);
        pair.solve_equality(across, c, pass.rigid, &mut i.linear.x);
    }
}
