//! What the prismatic and wheel joints share: B slides along an axis fixed in A. Their rows
//! along the axis and across it, their motor, limits and spring along the axis, and their
//! warm start; a prismatic joint also holds the relative turn, a wheel turns freely.

use crate::geometry::math::Vec2;
use crate::joints::joint::{turn_share, Impulses, Joint, JointKind};
use crate::joints::pair::{solve2, Coeffs, Pair, Pass, Row};
use crate::joints::spring::SpringLaw;

impl Joint {
    /// A prismatic or wheel joint's pass: its motor and limits, then its rows across the
    /// axis (and a prismatic joint's turn).
    pub(super) fn solve_slide(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
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

    /// A prismatic or wheel joint's spring, along the axis.
    pub(super) fn solve_slide_spring(&self, law: SpringLaw, i: &mut Impulses, pair: &mut Pair) {
        let (along, _) = slide_rows(pair);
        let (_, _, d) = pair.geometry();
        let c = pair.axis().dot(d);
        pair.solve_spring_row(along, c, law, &mut i.axial);
    }
}

/// Applies a prismatic or wheel joint's accumulated impulses again: a prismatic joint's motor
/// along the axis, a wheel's on the turn.
pub(super) fn warm_start_slide(kind: JointKind, i: &Impulses, pair: &mut Pair) {
    let (along, across) = slide_rows(pair);
    let (slide_motor, turn_motor) = match kind {
        JointKind::Prismatic => (i.motor, 0.0),
        _ => (0.0, i.motor),
    };
    pair.apply_row(along, i.axial + slide_motor + i.lower - i.upper);
    pair.apply_row(across, i.linear.x);
    pair.apply_row(Row::ANGULAR, i.angular + turn_motor);
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
