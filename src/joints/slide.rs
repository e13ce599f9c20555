//! What the prismatic and wheel joints share: B slides along an axis fixed in A. Their rows
//! along the axis and across it (a prismatic joint's holding the relative turn), their limits
//! and spring along the axis, and their warm start.

use crate::joints::joint::{turn_share, Impulses, Joint, JointKind};
use crate::joints::pair::{Drive, Pair, Pass, Row};
use crate::joints::spring::SpringLaw;

impl Joint {
    /// A prismatic or wheel joint's limits along the axis, pressed by the spring and a
    /// prismatic joint's motor (see [`Drive`]; a wheel's motor turns it).
    pub(super) fn solve_slide_limits(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        if let Some((lower, upper)) = self.active_limits() {
            let (along, _) = slide_rows(pair);
            let (_, _, d) = pair.geometry();
            let translation = pair.axis().dot(d);
            let drive = Drive::new(match self.kind {
                JointKind::Prismatic => i.axial + i.motor,
                _ => i.axial,
            });
            pair.solve_limit(along, translation - lower, pass, &mut i.lower, drive.lower);
            let c = upper - translation;
            pair.solve_limit(along.neg(), c, pass, &mut i.upper, drive.upper);
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
pub(super) fn slide_rows(pair: &Pair) -> (Row, Row) {
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
pub(super) fn plain_slide_rows(pair: &Pair) -> (Row, Row) {
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
    pub(super) fn holding_the_turn(&self, row: Row) -> (Row, f32) {
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
