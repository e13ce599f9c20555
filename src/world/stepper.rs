//! Fixed-step stepping for a render loop whose frames take varying time.
//!
//! A physics step of fixed length keeps the simulation deterministic and stable whatever the
//! frame rate: frame time is banked in an accumulator and paid out in whole steps. What is
//! left over (less than one step) says how far the renderer is between the last two physics
//! states, so it draws bodies at a blend of the previous and current poses and motion looks
//! smooth even when frames and steps do not line up.
//!
//! ```
//! use batch2d::{BodyDef, FixedStepper, Shape, ShapeDef, Vec2, World, WorldSettings};
//!
//! let mut world = World::new(WorldSettings::default());
//! let ball = world.add_body(BodyDef::dynamic(), ShapeDef::new(Shape::circle(0.5)?))?;
//! let mut stepper = FixedStepper::new().dt(1.0 / 60.0).max_steps_per_frame(4);
//! for frame_time in [0.016, 0.020, 0.033, 0.007] {
//!     let report = stepper.advance(&mut world, frame_time)?;
//!     assert!((0.0..1.0).contains(&report.alpha));
//!     // The events of every step this frame ran, in order; none if it ran no step.
//!     assert_eq!(stepper.contact_events().len(), report.steps as usize);
//!     for events in stepper.contact_events() {
//!         for begin in events.begin() {
//!             // play a sound as loud as `begin.approach_speed` at `begin.point`...
//! #           let _ = begin;
//!         }
//!     }
//!     let pose = stepper.interpolated_transform(&world, ball)?;
//!     // draw the ball at `pose`...
//! #   let _ = pose;
//! }
//! # Ok::<(), batch2d::Error>(())
//! ```

use crate::body::BodyId;
use crate::error::Error;
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::narrow_phase::events::ContactEvents;
use crate::world::World;

/// The largest `f32` below 1: `alpha` is rounded down to it when `accumulator / dt`, which is
/// below 1 in `f64`, would round up to 1 in `f32`.
const ALPHA_MAX: f32 = 1.0 - f32::EPSILON / 2.0;

/// Runs a [`World`] in steps of a fixed `dt` from variable frame times, and interpolates body
/// poses between the last two steps for rendering.
///
/// Build with [`FixedStepper::new`] and the builder methods; settings are checked by
/// [`FixedStepper::advance`].
#[derive(Clone, Debug)]
pub struct FixedStepper {
    dt: f32,
    max_steps_per_frame: u32,
    /// Frame time not yet simulated, in seconds; kept in `f64` so that millions of small
    /// frame times add up without drift.
    accumulator: f64,
    alpha: f32,
    /// Pose of each slot's body before the last step, with the handle it was taken for (a
    /// slot reused by a new body, or a body of another world, has no previous pose).
    previous: Vec<Option<Pose>>,
    /// The contact events of each step of the last advance: the first `event_steps` entries
    /// (the rest keep their buffers for later frames).
    events: Vec<ContactEvents>,
    event_steps: usize,
}

/// Centre of mass and rotation of one body before the last step.
#[derive(Clone, Copy, Debug)]
struct Pose {
    id: BodyId,
    center: Vec2,
    rotation: Rot,
}

/// What one [`FixedStepper::advance`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepReport {
    /// Whole steps of `dt` run, at most `max_steps_per_frame`.
    pub steps: u32,
    /// Where the render time lies between the previous and the current physics state, in
    /// `[0, 1)`: the leftover accumulator divided by `dt`.
    pub alpha: f32,
    /// Seconds of backlog dropped by the clamp (0 unless the frame needed more than
    /// `max_steps_per_frame` steps). The simulation falls behind the wall clock by this much
    /// rather than spending ever more time per frame catching up.
    pub dropped: f64,
}

impl Default for FixedStepper {
    fn default() -> Self {
        FixedStepper::new()
    }
}

impl FixedStepper {
    /// A stepper with `dt` = 1/60 s and at most 5 steps per frame, and an empty accumulator.
    pub fn new() -> FixedStepper {
        FixedStepper {
            dt: 1.0 / 60.0,
            max_steps_per_frame: 5,
            accumulator: 0.0,
            alpha: 0.0,
            previous: Vec::new(),
            events: Vec::new(),
            event_steps: 0,
        }
    }

    /// Length of one physics step in seconds, finite and > 0; [`World::step`] refuses steps
    /// longer than 1 s. Default 1/60.
    pub fn dt(mut self, dt: f32) -> FixedStepper {
        self.dt = dt;
        self
    }

    /// Most steps one frame may run, >= 1. Default 5. A frame that needs more (the app was
    /// paused, or steps take longer than real time and the backlog grows) drops the excess
    /// backlog instead of running more steps, which would make the next frame slower still
    /// (the "spiral of death").
    pub fn max_steps_per_frame(mut self, steps: u32) -> FixedStepper {
        self.max_steps_per_frame = steps;
        self
    }

    /// The step length.
    pub fn step_length(&self) -> f32 {
        self.dt
    }

    /// Frame time banked but not yet simulated (less than one step after an `advance`).
    pub fn accumulator(&self) -> f64 {
        self.accumulator
    }

    /// `alpha` of the last [`FixedStepper::advance`] (0 before the first).
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// The contact events of every step the last [`FixedStepper::advance`] ran, one entry per
    /// step in the order they ran: empty after a frame that ran no step. Read these, not
    /// [`World::contact_events`](crate::World::contact_events), which holds only the last
    /// step's (missing the others of a frame that ran several, and repeating the last ones
    /// after a frame that ran none).
    pub fn contact_events(&self) -> &[ContactEvents] {
        &self.events[..self.event_steps]
    }

    /// `Err(InvalidParameter)` for a `dt` that is not finite and > 0, or
    /// `max_steps_per_frame == 0`.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return Err(Error::InvalidParameter(format!(
                "stepper dt must be finite and > 0, got {}",
                self.dt
            )));
        }
        if self.max_steps_per_frame == 0 {
            return Err(Error::InvalidParameter(
                "max_steps_per_frame must be >= 1, got 0".into(),
            ));
        }
        Ok(())
    }

    /// Banks `frame_time` seconds and runs as many whole steps of `dt` as the bank holds, at
    /// most `max_steps_per_frame` (the rest of a larger backlog is dropped and reported), and
    /// keeps their contact events (see [`FixedStepper::contact_events`]).
    ///
    /// `Err(InvalidParameter)`, with the world and the stepper unchanged, for a negative or
    /// non-finite `frame_time`, bad stepper settings, or a `dt` the world's
    /// [`World::step`] refuses.
    pub fn advance(&mut self, world: &mut World, frame_time: f32) -> Result<StepReport, Error> {
        if !(frame_time.is_finite() && frame_time >= 0.0) {
            return Err(Error::InvalidParameter(format!(
                "frame time must be finite and >= 0, got {frame_time}"
            )));
        }
        self.validate()?;
        // Checked before anything changes, so the steps below cannot fail half way.
        crate::limits::check_time_step(self.dt)?;

        let dt = f64::from(self.dt);
        let total = self.accumulator + f64::from(frame_time);
        let due = (total / dt).floor();
        let max_steps = f64::from(self.max_steps_per_frame);
        let (steps, dropped) = if due > max_steps {
            // Keep what the allowed steps need plus what all due steps would leave (below one
            // step; clamped because for a total far beyond any real backlog, hours or
            // f32::MAX, the subtraction keeps no digits), and drop the rest.
            let leftover = (total - due * dt).clamp(0.0, dt);
            let kept = max_steps * dt + leftover;
            self.accumulator = kept;
            (max_steps, total - kept)
        } else {
            self.accumulator = total;
            (due, 0.0)
        };

        let steps = steps as u32;
        self.event_steps = 0;
        for i in 0..steps {
            if i + 1 == steps {
                // Only the last step's start matters for interpolation.
                self.record_previous(world);
            }
            world.step(self.dt)?;
            self.accumulator -= dt;
            self.keep_events(world);
        }
        // Rounding in the subtractions above may leave a hair below 0.
        self.accumulator = self.accumulator.max(0.0);
        self.alpha = ((self.accumulator / dt) as f32).min(ALPHA_MAX);
        Ok(StepReport {
            steps,
            alpha: self.alpha,
            dropped,
        })
    }

    /// Keeps a copy of the events of the step just run.
    fn keep_events(&mut self, world: &World) {
        if self.events.len() == self.event_steps {
            self.events.push(ContactEvents::default());
        }
        self.events[self.event_steps].copy_from(world.contact_events());
        self.event_steps += 1;
    }

    /// Remembers every body's pose before a step.
    fn record_previous(&mut self, world: &World) {
        let bodies = &world.bodies;
        self.previous.clear();
        self.previous.resize(bodies.slots(), None);
        for id in bodies.ids() {
            let slot = id.slot() as usize;
            self.previous[slot] = Some(Pose {
                id,
                center: bodies.center()[slot],
                rotation: bodies.rotation()[slot],
            });
        }
    }

    /// The pose to draw body `id` at: its origin transform (the frame its shape is defined
    /// in) a fraction `alpha` of the way from its pose before the last step to its current
    /// pose, with `alpha` from the last [`FixedStepper::advance`].
    ///
    /// The centre of mass moves on a straight line and the rotation turns at a constant rate
    /// (the shorter way), as the body itself did during the step. A body with no previous
    /// pose (added since the last step) is drawn where it is. `Err(InvalidBody)` for a removed
    /// or foreign handle.
    pub fn interpolated_transform(&self, world: &World, id: BodyId) -> Result<Transform, Error> {
        let slot = world.bodies.slot(id)?;
        let bodies = &world.bodies;
        let current = (bodies.center()[slot], bodies.rotation()[slot]);
        let previous = match self.previous.get(slot) {
            Some(Some(pose)) if pose.id == id => (pose.center, pose.rotation),
            _ => current,
        };
        let (center, rotation) = interpolate(previous, current, self.alpha);
        let origin = center - rotation.rotate(bodies.local_center()[slot]);
        Ok(Transform::new(origin, rotation))
    }
}

/// The pose a fraction `alpha` (in `[0, 1]`) of the way from `from` to `to`, each a centre of
/// mass and a rotation. The ends are returned exactly, so `alpha` 0 and 1 reproduce the two
/// physics states bit for bit.
///
/// Positions are blended as `(1 - alpha) from + alpha to`. Note that the widely copied form
/// `previous * alpha + current * (1 - alpha)` has the weights the wrong way round: it would
/// draw the older state as `alpha` grows.
fn interpolate(from: (Vec2, Rot), to: (Vec2, Rot), alpha: f32) -> (Vec2, Rot) {
    if alpha <= 0.0 {
        return from;
    }
    if alpha >= 1.0 {
        return to;
    }
    let center = from.0 * (1.0 - alpha) + to.0 * alpha;
    // The turn from `from` to `to`, in (-pi, pi], taken at a constant rate: a normalised
    // linear blend of the two rotations would bend the rate and fail near a half turn.
    let turn = from.1.inv_mul(to.1).angle();
    let rotation = from.1.compose(Rot::from_angle(turn * alpha));
    (center, rotation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_ends_are_exact_and_the_middle_is_uniform_motion() {
        let from = (Vec2::new(1.0, -2.0), Rot::from_angle(3.0));
        // Turning on through pi: the shorter way is +0.5 rad, not -5.78.
        let to = (Vec2::new(3.0, 4.0), Rot::from_angle(3.5));
        assert_eq!(interpolate(from, to, 0.0), from);
        assert_eq!(interpolate(from, to, 1.0), to);
        let (center, rotation) = interpolate(from, to, 0.25);
        assert!((center - Vec2::new(1.5, -0.5)).length() < 1e-6);
        let expected = Rot::from_angle(3.125);
        assert!((rotation.c - expected.c).abs() < 1e-6 && (rotation.s - expected.s).abs() < 1e-6);
    }
}
