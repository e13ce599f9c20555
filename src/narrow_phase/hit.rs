//! Hit events: pairs that began touching faster than
//! [`WorldSettings::hit_event_threshold`](crate::WorldSettings::hit_event_threshold), with the
//! speed at which they met, for impact sounds and damage.
//!
//! A pair's contact is kept while it closes in, a step or more before it touches, and the solver
//! halts it at the surface in the step it arrives; by the step whose contact touches, the
//! bodies' velocities say little of the impact. The events therefore note, for every pair that
//! is closing in but not touching yet, the speed at which it will meet should it arrive within
//! the step: its closing speed at the step's start, sped up (or slowed) by gravity over the
//! gap, `v^2 = v0^2 + 2 a gap` with `a` the bodies' relative acceleration under gravity along
//! the normal. A pair that begins touching in the next step reports that speed. Forces,
//! damping and joints acting over the gap are not counted: they change the speed by at most
//! what they can within one step.

use crate::body::BodyStore;
use crate::geometry::math::Vec2;
use crate::index::BodySlot;
use crate::narrow_phase::contact::Contact;

/// The speed at which a contact closing in at `speed` (m/s, at the step's start) meets, should
/// its gap close within the step: `sqrt(speed^2 + 2 a gap)`, where `gap` is the separation of
/// its nearest point and `a` the relative acceleration under `gravity` with which `b` closes in
/// on `a` along the normal (only dynamic bodies fall, each by its gravity scale).
pub(crate) fn meeting_speed(
    contact: &Contact,
    bodies: &BodyStore,
    speed: f32,
    gravity: Vec2,
) -> f32 {
    let m = &contact.manifold;
    let nearest = m.points[..m.point_count]
        .iter()
        .map(|p| p.separation)
        .fold(f32::INFINITY, f32::min);
    let gap = if nearest.is_finite() {
        nearest.max(0.0)
    } else {
        0.0
    };
    let falls = |s: BodySlot| {
        let s = s.index();
        match bodies.inv_mass()[s] > 0.0 {
            true => bodies.gravity_scale()[s],
            false => 0.0,
        }
    };
    let closing = (falls(contact.a) - falls(contact.b)) * gravity.dot(m.normal);
    let squared = speed * speed + 2.0 * closing * gap;
    // A pair that gravity slows to a stop within the gap (it met all the same, pushed by
    // something else) met at no speed this estimate can tell.
    squared.max(0.0).sqrt()
}
