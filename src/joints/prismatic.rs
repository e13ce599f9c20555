//! The prismatic joint (a slider): B slides along an axis fixed in A and does not turn
//! relative to A, with a motor, limits and a spring along the axis (see `slide` for what it
//! shares with the wheel joint).

use crate::geometry::math::Vec2;
use crate::joints::joint::{Impulses, Joint};
use crate::joints::pair::{solve2, Coeffs, Pair, Pass, Row};
use crate::joints::slide::{plain_slide_rows, slide_rows};

impl Joint {
    /// A prismatic joint's pass: its motor and limits along the axis, then its rows across
    /// the axis and of the turn, together.
    pub(super) fn solve_prismatic(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        if let Some(motor) = self.active_motor() {
            let row = slide_rows(pair).0;
            pair.solve_motor(row, motor, pass, &mut i.motor);
        }
        self.solve_slide_limits(i, pair, pass);
        solve_slide_and_turn(pair, pass.rigid, self.reference_angle, i);
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
