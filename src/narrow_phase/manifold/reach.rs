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
    /// Largest motion (m) of the manifold's points themselves; negative for a manifold never
    /// recycled.
    pub at_points: f32,
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
        near: -1.0,
        near_extent: 0.0,
        far: -1.0,
        far_extent: 0.0,
        turn: 0.0,
    };

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
        let motion = least(least(self.at_points, near), far);
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
