//! The events and contact data a step reports to users: touch begin and end, hits, sensor
//! overlaps, and the touching contacts with their points and impulses. `contact_events.rs`
//! and `sensor.rs` make them; `World::contact_events` and `World::contacts` hand them out.

use crate::body::BodyId;
use crate::codec::codec_struct;
use crate::geometry::math::Vec2;
use crate::narrow_phase::manifold::{Manifold, ManifoldPoint};

/// Two bodies that began or stopped touching. `a` was created in a lower slot than `b`
/// (`a.slot() < b.slot()`), as in [`World::contacts`](crate::World::contacts). Events are per body pair: a compound
/// body that touches another body with several of its shapes begins touching it once, when
/// the first of its shapes does, and stops once, when the last one lets go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TouchEvent {
    /// The body in the lower slot.
    pub a: BodyId,
    /// The body in the higher slot.
    pub b: BodyId,
}

/// Two bodies that began touching: which, where, along which normal and how fast they met.
/// `a` was created in a lower slot than `b`, as in [`TouchEvent`]. For a compound body the
/// point and normal are those of the first touching pair of shapes (in the order of
/// [`World::contacts`](crate::World::contacts)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TouchBegin {
    /// The body in the lower slot.
    pub a: BodyId,
    /// The body in the higher slot.
    pub b: BodyId,
    /// Which of `a`'s shapes touches (the index into [`World::shapes`](crate::World::shapes), 0 for a one-shape
    /// body).
    pub shape_a: usize,
    /// Which of `b`'s shapes touches.
    pub shape_b: usize,
    /// Where they touch (m, world frame): the centroid of the contact's touching points (within
    /// the slop, or bounced in the step before; see [`ContactEvents`]),
    /// each midway between the two surfaces.
    pub point: Vec2,
    /// Unit normal from `a` to `b`.
    pub normal: Vec2,
    /// How fast they met (m/s, >= 0): the speed at which `point` of `b` closed in on `a` along
    /// the normal when they met, in the step before (as [`HitEvent::speed`]), or at the start
    /// of this step for bodies that did not close in then (created or moved into contact).
    /// Bodies moving apart, or side by side, give 0.
    pub approach_speed: f32,
}

impl TouchBegin {
    /// The pair, as end events report it.
    pub fn pair(&self) -> TouchEvent {
        TouchEvent {
            a: self.a,
            b: self.b,
        }
    }
}

/// The contact and sensor events of a step, each list sorted by the slots of its pairs (lower
/// slot first).
///
/// A pair of shapes *touches* when a point of its contact is within
/// [`WorldSettings::linear_slop`](crate::WorldSettings::linear_slop) (5 mm by default), or
/// bounced in the step before (a point's
/// [`impact_impulse`](crate::narrow_phase::manifold::ManifoldPoint::impact_impulse) is above zero). Contacts
/// are also kept for pairs that are only near each other, ready before they meet, so having a
/// contact does not mean touching. Resting contacts sit at or below zero separation, well
/// inside the slop, so they do not flicker; a body that bounces off another within one step,
/// from a gap to a gap, still touched it. Contacts are computed at the start of a step, so a
/// pair begins (or ends) touching in the step after the one in which the bodies met (or
/// parted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactEvents {
    pub(crate) begin: Vec<TouchBegin>,
    pub(crate) end: Vec<TouchEvent>,
    pub(crate) hit: Vec<HitEvent>,
    pub(crate) sensor_begin: Vec<SensorEvent>,
    pub(crate) sensor_end: Vec<SensorEvent>,
}

impl ContactEvents {
    /// Pairs that touch after the step and did not before it.
    pub fn begin(&self) -> &[TouchBegin] {
        &self.begin
    }

    /// Pairs that began touching in the step (as [`ContactEvents::begin`]) at an impact speed
    /// above [`WorldSettings::hit_event_threshold`](crate::WorldSettings::hit_event_threshold)
    /// (1 m/s by default), with that speed: see [`HitEvent`].
    pub fn hit(&self) -> &[HitEvent] {
        &self.hit
    }

    /// Pairs that touched before the step and do not after it, including the contacts of
    /// bodies removed since the step before (their handles are stale by then, but still say
    /// which bodies they were).
    pub fn end(&self) -> &[TouchEvent] {
        &self.end
    }

    /// Bodies that overlap a sensor (see [`ShapeDef::sensor`](method@crate::ShapeDef::sensor)) at
    /// the start of the step and did not at the start of the step before.
    pub fn sensor_begin(&self) -> &[SensorEvent] {
        &self.sensor_begin
    }

    /// Bodies that overlapped a sensor at the start of the step before and do not at the start
    /// of the step, including those of sensors and bodies removed since (their handles are
    /// stale by then).
    pub fn sensor_end(&self) -> &[SensorEvent] {
        &self.sensor_end
    }

    /// Whether the step began and ended no contact and no sensor overlap.
    pub fn is_empty(&self) -> bool {
        self.begin.is_empty()
            && self.end.is_empty()
            && self.hit.is_empty()
            && self.sensor_begin.is_empty()
            && self.sensor_end.is_empty()
    }

    /// Makes `self` a copy of `other`, reusing `self`'s buffers.
    pub(crate) fn copy_from(&mut self, other: &ContactEvents) {
        self.begin.clone_from(&other.begin);
        self.end.clone_from(&other.end);
        self.hit.clone_from(&other.hit);
        self.sensor_begin.clone_from(&other.sensor_begin);
        self.sensor_end.clone_from(&other.sensor_end);
    }
}

/// Two bodies that began touching faster than
/// [`WorldSettings::hit_event_threshold`](crate::WorldSettings::hit_event_threshold): every
/// such [`TouchBegin`](crate::TouchBegin) of the step also gives one hit. `a` was created in a
/// lower slot than `b`, as in the begin events.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HitEvent {
    /// The body in the lower slot.
    pub a: BodyId,
    /// The body in the higher slot.
    pub b: BodyId,
    /// Which of `a`'s shapes was hit (the index into [`World::shapes`](crate::World::shapes)).
    pub shape_a: usize,
    /// Which of `b`'s shapes was hit.
    pub shape_b: usize,
    /// Where they met (m, world frame), as [`TouchBegin::point`](crate::TouchBegin::point).
    pub point: Vec2,
    /// Unit normal from `a` to `b`.
    pub normal: Vec2,
    /// The speed (m/s, > the threshold) at which `point` of `b` closed in on `a` along the
    /// normal when they met: for a ball dropped from rest onto the ground from a height `h`,
    /// `sqrt(2 g h)`.
    pub speed: f32,
}

/// A body that began or stopped overlapping a sensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorEvent {
    /// The body whose shape is the sensor.
    pub sensor: BodyId,
    /// The body overlapping it.
    pub visitor: BodyId,
}

/// A touching contact after the last step: the two bodies, the manifold (normal from `a` to
/// `b`, points with separations, feature ids and the solver's impulses) and the mixed
/// material.
#[derive(Clone, Copy, Debug)]
pub struct ContactData<'a> {
    /// The body in the lower slot.
    pub a: BodyId,
    /// The body in the higher slot.
    pub b: BodyId,
    /// Normal, points and impulses. [`ManifoldPoint::normal_impulse`] and
    /// [`ManifoldPoint::tangent_impulse`] are the solver's accumulated impulses of the last
    /// substep (the soft step re-applies them every substep to warm start), so a steady
    /// contact transmits `substeps` times that over the step: see
    /// [`ContactData::normal_force`].
    pub manifold: &'a Manifold,
    /// Mixed friction coefficient.
    pub friction: f32,
    /// Mixed restitution.
    pub restitution: f32,
    /// Which of `a`'s shapes the contact is on: the index into [`World::shapes`](crate::World::shapes) of `a`, 0
    /// for a one-shape body.
    pub shape_a: usize,
    /// Which of `b`'s shapes the contact is on (see [`ContactData::shape_a`]).
    pub shape_b: usize,
    pub(crate) substep: f32,
}

impl ContactData<'_> {
    /// The points in use.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.manifold.points[..self.manifold.point_count]
    }

    /// Unit normal from `a` to `b`.
    pub fn normal(&self) -> Vec2 {
        self.manifold.normal
    }

    /// Force (N) with which `a` pushes `b` along the normal in the last substep (`b` is
    /// pushed along `normal`, `a` the opposite way): the points'
    /// normal impulses over the substep length. Times the step length, the impulse over the
    /// step for a steady contact (`m g dt` for a body of mass `m` resting on the ground).
    pub fn normal_force(&self) -> f32 {
        self.points().iter().map(|p| p.normal_impulse).sum::<f32>() / self.substep
    }

    /// Friction force (N) on `b` in the last substep, from the points' tangent impulses,
    /// signed along the tangent `normal.right_perp()`; `a` feels the opposite.
    pub fn friction_force(&self) -> f32 {
        self.points().iter().map(|p| p.tangent_impulse).sum::<f32>() / self.substep
    }
}

codec_struct!(TouchEvent { a, b });

codec_struct!(TouchBegin {
    a,
    b,
    shape_a,
    shape_b,
    point,
    normal,
    approach_speed
});

codec_struct!(ContactEvents {
    begin,
    end,
    hit,
    sensor_begin,
    sensor_end
});

codec_struct!(HitEvent {
    a,
    b,
    shape_a,
    shape_b,
    point,
    normal,
    speed
});

codec_struct!(SensorEvent { sensor, visitor });
