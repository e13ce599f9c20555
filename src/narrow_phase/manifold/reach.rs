//! A manifold's reach: how far the two shapes may move from the poses of a full collide
//! before a fresh collide could give a manifold that the old one, moved with the bodies
//! (recycled, see `narrow_phase::recycle`), no longer matches.
//!
//! A recycled manifold keeps the normal, points and ids of its collide, each point's
//! separation moved by the relative motion at the point along the normal. That stays true
//! while a fresh collide would pick the same reference face, incident edge and clipping, up
//! to a bounded error. Each collide states, beside its manifold, the largest motion of any
//! point of the incident shape (the other's, relative to the reference shape) that keeps it
//! so, and over what distance from its first point that bound must hold; the engine turns
//! that into a reach for the motion at the points (see `Reach::motion`).

use crate::geometry::shape::LINEAR_SLOP;

use super::GAP_TOLERANCE;

/// Largest error (m) of a recycled point's separation that a reach allows on account of the
/// slope of a clipped edge: a twentieth of the linear slop. The solver holds overlaps to
/// about the slop; the other terms of the error (the rotation's, second order) stay under as
/// much again, so a recycled separation is within a tenth of the slop of a fresh one.
pub(crate) const RECYCLE_ERROR: f32 = 0.05 * LINEAR_SLOP;

/// What a full collide allows a recycled copy of its manifold: the largest motion of the
/// incident shape relative to the reference shape that keeps a fresh collide's features
/// and keeps its separations within [`RECYCLE_ERROR`] of the moved points, as three bounds
/// on the motion of points at three distances from the manifold's points. A rigid motion
/// moves each point by the motion at the manifold's points (the most of them, between two
/// points) plus at most its turn (a chord) times its distance from them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Reach {
    /// Largest motion (m) of the points of the cores that the manifold's points stand for
    /// (the incident edge's points where it meets the side planes, or its corners), which
    /// lie within `lever` (m) of them: a manifold point lies midway between the surfaces,
    /// the radius and half the separation away from the core. Negative for a manifold never
    /// recycled.
    pub at_points: f32,
    pub lever: f32,
    /// Largest motion (m) of the incident edge's ends, which lie within `near_extent` (m) of
    /// the manifold's points.
    pub near: f32,
    pub near_extent: f32,
    /// Largest motion (m) of any vertex of the two shapes, which lie within `far_extent` (m)
    /// of the manifold's points.
    pub far: f32,
    pub far_extent: f32,
    /// Largest rotation (rad, as a chord) of one shape relative to the other for which a
    /// fresh collide picks the same incident edge.
    pub turn: f32,
    /// How far the cores may move before a fresh collide could take their closest points
    /// instead of the face.
    pub apart: Apart,
    /// How far the pair may move before the other core's best face could overtake the
    /// reference face.
    pub choice: Choice,
}

/// A bound on the motion of a point `extent` (m) from the manifold's points: it holds while
/// the motion at the points plus the turn (a chord) times `extent` stays within `motion`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Margin {
    pub motion: f32,
    pub extent: f32,
}

impl Margin {
    /// A margin that never holds.
    pub const NONE: Margin = Margin {
        motion: -1.0,
        extent: 0.0,
    };

    /// The largest motion at the points for which the margin holds under a turn of `angle`.
    #[inline]
    fn at(self, angle: f32) -> f32 {
        self.motion - angle * self.extent
    }
}

/// A margin that a motion eats at a rate: it holds while `rate` (plus the turn) times the
/// motion at the points, plus the turn (a chord) times `extent`, stays within `margin`. The
/// rate is that of a difference of two separations along nearly opposite normals, which a
/// motion moves nearly alike (see `reference_reach`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Choice {
    pub margin: f32,
    pub rate: f32,
    pub extent: f32,
}

impl Choice {
    /// A margin that any motion keeps.
    pub const FREE: Choice = Choice {
        margin: f32::INFINITY,
        rate: 1.0,
        extent: 0.0,
    };

    /// The largest motion at the points for which the margin holds under a turn of `angle`:
    /// smaller for a larger turn, so it holds for any smaller one too. (NaN where the rate and
    /// the turn are both 0 and nothing is left over, which never recycles.)
    #[inline]
    pub fn at(self, angle: f32) -> f32 {
        (self.margin - angle * self.extent) / (self.rate + angle)
    }
}

/// When a fresh collide keeps the face rather than turning to the cores' closest points. It
/// does so only for cores apart along the face normal whose incident edge's nearer end is
/// not across from the face (within `GAP_TOLERANCE` of the face separation), and then only
/// where the edges' closest points are farther apart than that separation by more than
/// `GAP_TOLERANCE` (see `face_contact`). Any one of these keeps it so, and the reach takes
/// the most generous:
///
/// - `overlap`, one for each end of the incident edge: while that end stays below the face,
///   the cores overlap along the normal (the face separation is that of the deepest vertex),
///   and the cores are not apart. Its margin is how deep the end lies, its extent its
///   distance from the points: a corner resting on the face needs no room for the turn.
/// - `inside`: whichever end turns out the nearer (the deepest vertex, whose separation is the
///   face separation), it stays across from the face, or the point where the edge crosses
///   the side plane by that end lies within the tolerance of the face separation; the
///   edges' closest points are no farther apart than that point from the face. The point
///   lies the slope times the end's distance beyond the side plane above the end; a turn
///   steepens the slope (see [`End::motion`]).
/// - `level`: while the one end across from the face (a point of the manifold) stays across,
///   and the other end, beside the face, stays no nearer to the face than it by more than the
///   tolerance. Then either the end across is the nearer, or the clipped point on the side
///   plane, between the two, is within the tolerance of the face separation, and the edges'
///   closest points are no farther apart. A motion moves both ends alike; only the turn
///   changes how far one lies above the other, by at most the turn times the edge's length:
///   `level_turn` is the largest turn that keeps it, `level` the largest motion of the end
///   that keeps it across.
///
/// An end's distance from the points is its `overlap`'s extent, which the `inside` bound
/// reads too: kept once, not twice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Apart {
    pub overlap: [Margin; 2],
    /// How far inside the side planes each end of the incident edge lies (m, negative beside
    /// the face).
    pub inside: [f32; 2],
    /// The incident edge's slope: its rise along the face normal over its run along the face.
    pub slope: f32,
    pub level: Margin,
    pub level_turn: f32,
}

/// An end of the incident edge, for [`Apart`]: how far inside the side planes it lies (m,
/// negative beside the face) and its distance (m) from the manifold's points.
#[derive(Clone, Copy)]
struct End {
    inside: f32,
    extent: f32,
}

impl End {
    /// The largest motion at the points under a turn of `angle` for which, should this end
    /// be the nearer, a fresh collide keeps the face: it stays across from the face, or the
    /// edge's point on the side plane lies within `tolerance` above it. That point lies
    /// `slope'` times the end's distance beyond the plane above it, where a turn by `angle`
    /// (an angle of at most `angle + angle³`, as a tangent, for a chord under 1/2) steepens
    /// the slope to at most `slope' = (slope + t) / (1 - slope t)`.
    #[inline]
    fn motion(self, slope: f32, angle: f32, tolerance: f32) -> f32 {
        let own = angle * self.extent;
        let across = self.inside - own;
        let t = angle + angle * angle * angle;
        let bend = 1.0 - slope * t;
        let steepest = (slope + t) / bend;
        let beside = if bend > 0.0 && angle < 0.5 {
            tolerance / steepest - (-self.inside).max(0.0) - own
        } else {
            -1.0
        };
        // (NaN from a NaN input: `>` fails, and the other stands; NaN both ways never holds.)
        if across > beside {
            across
        } else {
            beside
        }
    }
}

impl Apart {
    /// Cores that may turn to their closest points at any motion.
    pub const NEVER: Apart = Apart {
        overlap: [Margin::NONE; 2],
        inside: [-1.0; 2],
        slope: f32::INFINITY,
        level: Margin::NONE,
        level_turn: 0.0,
    };

    /// The largest motion at the points for which one of the bounds holds under a turn of
    /// `angle` (negative for none; a NaN bound never holds). `tolerance` is `GAP_TOLERANCE`.
    #[inline]
    fn motion(self, angle: f32, tolerance: f32) -> f32 {
        let mut most = -1.0f32;
        let end = |k: usize| End {
            inside: self.inside[k],
            extent: self.overlap[k].extent,
        };
        let ends = least(
            end(0).motion(self.slope, angle, tolerance),
            end(1).motion(self.slope, angle, tolerance),
        );
        for at in [self.overlap[0].at(angle), self.overlap[1].at(angle), ends] {
            most = if at > most { at } else { most };
        }
        let level = self.level.at(angle);
        if angle < self.level_turn && level > most {
            most = level;
        }
        most
    }
}

/// The smaller of two margins; NaN where either is (a NaN margin never recycles).
#[inline(always)]
pub(crate) fn least(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a < b {
        a
    } else {
        b
    }
}

impl Reach {
    /// A manifold never recycled: the reach of every manifold but those of the face
    /// contacts of polygon cores, which work out their own.
    pub const NEVER: Reach = Reach {
        at_points: -1.0,
        lever: 0.0,
        near: -1.0,
        near_extent: 0.0,
        far: -1.0,
        far_extent: 0.0,
        turn: 0.0,
        apart: Apart::NEVER,
        choice: Choice::FREE,
    };

    /// Whether some motion may recycle the manifold: not for [`Reach::NEVER`], nor for any
    /// reach whose turn is not above 0, which [`Reach::motion`] turns down at every angle.
    #[inline]
    pub fn may_recycle(&self) -> bool {
        self.turn > 0.0
    }

    /// The largest motion (m) at each manifold point for which a pair turned by at most
    /// `angle` (a chord) and moved at most `distance` (m) recycles; negative when the pair
    /// never recycles.
    #[inline]
    pub fn motion(self, distance: f32, angle: f32) -> f32 {
        // (A NaN turn never recycles.)
        if self.turn.is_nan() || self.turn <= angle {
            return -1.0;
        }
        let near = self.near - angle * self.near_extent;
        let far = self.far - angle * self.far_extent;
        let apart = self.apart.motion(angle, GAP_TOLERANCE);
        let at_points = self.at_points - angle * self.lever;
        let choice = self.choice.at(angle);
        let motion = least(least(least(least(at_points, near), far), apart), choice);
        if motion >= 0.0 {
            motion.min(distance)
        } else {
            -1.0
        }
    }
}

impl Default for Reach {
    fn default() -> Reach {
        Reach::NEVER
    }
}
