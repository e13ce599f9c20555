//! The distance joint: its length held (a rod), sprung, or slack within a range (a rope),
//! with an optional motor along it.

use crate::geometry::math::Vec2;
use crate::joints::joint::{Impulses, Joint};
use crate::joints::pair::{Drive, Pair, Pass, Row};
use crate::joints::spring::SpringLaw;

impl Joint {
    /// A distance joint's pass: its length held, or its motor, then its range (pressed by
    /// the motor and the spring, see [`Drive`]).
    pub(super) fn solve_distance(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        let (ra, rb, d) = pair.geometry();
        let length = d.length();
        let axis = d.normalized().unwrap_or(Vec2::ZERO);
        let row = Row {
            n: axis,
            ja: ra.cross(axis),
            jb: rb.cross(axis),
        };
        let c = length - self.length;
        match (self.spring, self.length_range) {
            (None, None) => pair.solve_equality(row, c, pass.rigid, &mut i.axial),
            // A range set to one length while the world runs holds that length.
            (_, Some((min, max))) if min == max => {
                pair.solve_equality(row, length - min, pass.rigid, &mut i.axial)
            }
            (_, range) => {
                if let Some(motor) = self.active_motor() {
                    pair.solve_motor(row, motor, pass, &mut i.motor);
                }
                if let Some((min, max)) = range.filter(|_| self.limits_enabled) {
                    let drive = Drive::new(i.axial + i.motor);
                    if min > 0.0 {
                        pair.solve_limit(row, length - min, pass, &mut i.lower, drive.lower);
                    }
                    if max.is_finite() {
                        let c = max - length;
                        pair.solve_limit(row.neg(), c, pass, &mut i.upper, drive.upper);
                    }
                }
            }
        }
    }

    /// A distance joint's spring, on its length; none while its range is one length.
    pub(super) fn solve_distance_spring(&self, law: SpringLaw, i: &mut Impulses, pair: &mut Pair) {
        if matches!(self.length_range, Some((min, max)) if min == max) {
            return;
        }
        let (ra, rb, d) = pair.geometry();
        let axis = d.normalized().unwrap_or(Vec2::ZERO);
        let row = Row {
            n: axis,
            ja: ra.cross(axis),
            jb: rb.cross(axis),
        };
        pair.solve_spring_row(row, d.length() - self.length, law, &mut i.axial);
    }
}

/// Applies a distance joint's accumulated impulses again, along its length.
pub(super) fn warm_start_distance(i: &Impulses, pair: &mut Pair) {
    let (ra, rb, d) = pair.geometry();
    let axis = d.normalized().unwrap_or(Vec2::ZERO);
    let row = Row {
        n: axis,
        ja: ra.cross(axis),
        jb: rb.cross(axis),
    };
    pair.apply_row(row, i.axial + i.motor + i.lower - i.upper);
}
