//! Joints while the world runs: their motors, limits and springs changed, their angle,
//! translation and speed read, and the joints that passed their break force.
//!
//! A change takes effect from the next step and wakes the joint's bodies. It keeps the
//! joint's accumulated impulses (its warm start) where they still apply: a motor's impulse is
//! kept within its new cap, and the impulse of a part switched off is dropped, so that it is
//! not applied again.

use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::index::BodySlot;
use crate::joints::joint::{check_limits, check_motor, check_spring, Joint, JointEvent};
use crate::joints::joint::{JointId, JointKind};
use crate::world::World;

impl World {
    /// Sets a joint's motor and switches it on: a revolute or wheel joint's relative turn is
    /// driven to `speed` (rad/s) with at most `max` torque (N m); a prismatic joint's relative
    /// speed along its axis, or a distance joint's rate of change of length, to `speed` (m/s)
    /// with at most `max` force (N). Takes effect from the next step and wakes the bodies.
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for a weld,
    /// mouse or motor joint (no motor), a non-finite `speed`, or a `max` that is negative or
    /// not finite. The world is unchanged on `Err`.
    pub fn set_joint_motor(&mut self, id: JointId, speed: f32, max: f32) -> Result<(), Error> {
        self.joint_with(id, "motor", JointKind::has_motor)?;
        check_motor((speed, max))?;
        let cap = max * self.joints.h;
        let joint = self.joints.get_mut(id)?;
        joint.motor = Some((speed, max));
        joint.motor_enabled = true;
        // Warm start within the new cap: a weaker motor must not push with the old one's impulse.
        joint.impulses.motor = joint.impulses.motor.clamp(-cap, cap);
        self.wake_joint(id);
        Ok(())
    }

    /// Switches a joint's motor on or off, keeping its speed and maximum torque or force for
    /// when it is switched on again. Takes effect from the next step and wakes the bodies.
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for a kind
    /// without a motor, or to switch on a motor never set (by [`JointDef::motor`](crate::JointDef::motor) or
    /// [`World::set_joint_motor`]). The world is unchanged on `Err`.
    pub fn enable_joint_motor(&mut self, id: JointId, enabled: bool) -> Result<(), Error> {
        let joint = self.joint_with(id, "motor", JointKind::has_motor)?;
        if enabled && joint.motor.is_none() {
            return Err(Error::InvalidParameter(
                "the joint has no motor to switch on: set_joint_motor gives it one".into(),
            ));
        }
        let joint = self.joints.get_mut(id)?;
        joint.motor_enabled = enabled;
        if !enabled {
            joint.impulses.motor = 0.0;
        }
        self.wake_joint(id);
        Ok(())
    }

    /// A joint's motor while it is switched on: its speed (rad/s or m/s) and its maximum
    /// torque (N m) or force (N), as [`World::set_joint_motor`] takes them; `None` while it is
    /// off or was never set.
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for a weld,
    /// mouse or motor joint (no motor).
    pub fn joint_motor(&self, id: JointId) -> Result<Option<(f32, f32)>, Error> {
        let joint = self.joint_with(id, "motor", JointKind::has_motor)?;
        Ok(joint.motor.filter(|_| joint.motor_enabled))
    }

    /// Sets a joint's limits and switches them on: a revolute joint's relative angle (radians,
    /// within `-pi..=pi`, from the relative angle the bodies had when the joint was made), a
    /// prismatic or wheel joint's translation along its axis (m, from where B was when the
    /// joint was made), or a distance joint's length range (m, `0 <= lower`; with
    /// `lower == upper` the joint holds that length rigidly). Takes effect from the next step
    /// and wakes the bodies; a joint outside its new limits is brought back within them by the
    /// solver's error correction, as a contact's overlap is.
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for a weld,
    /// mouse or motor joint (no limits), non-finite values, `lower > upper`, or revolute
    /// limits outside `-pi..=pi`. The world is unchanged on `Err`.
    pub fn set_joint_limits(&mut self, id: JointId, lower: f32, upper: f32) -> Result<(), Error> {
        let kind = self.joint_with(id, "limits", JointKind::has_limits)?.kind;
        check_limits(kind, (lower, upper))?;
        let joint = self.joints.get_mut(id)?;
        if kind == JointKind::Distance {
            joint.length_range = Some((lower, upper));
            if lower == upper {
                // The joint turns rigid: its one-sided rows no longer run, so their impulses
                // must not be warm started either.
                joint.impulses.lower = 0.0;
                joint.impulses.upper = 0.0;
            }
        } else {
            joint.limits = Some((lower, upper));
        }
        joint.limits_enabled = true;
        self.wake_joint(id);
        Ok(())
    }

    /// Switches a joint's limits (a distance joint: its length range, where it is not a
    /// single length) on or off, keeping them for when they are switched on again. Takes
    /// effect from the next step and wakes the bodies.
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for a kind
    /// without limits, or to switch on limits never set (by
    /// [`JointDef::limits`](crate::JointDef::limits), [`JointDef::length_range`](crate::JointDef::length_range) or [`World::set_joint_limits`]). The
    /// world is unchanged on `Err`.
    pub fn enable_joint_limits(&mut self, id: JointId, enabled: bool) -> Result<(), Error> {
        let joint = self.joint_with(id, "limits", JointKind::has_limits)?;
        let set = match joint.kind {
            JointKind::Distance => joint.length_range.is_some(),
            _ => joint.limits.is_some(),
        };
        if enabled && !set {
            return Err(Error::InvalidParameter(
                "the joint has no limits to switch on: set_joint_limits gives it some".into(),
            ));
        }
        let joint = self.joints.get_mut(id)?;
        joint.limits_enabled = enabled;
        if !enabled {
            joint.impulses.lower = 0.0;
            joint.impulses.upper = 0.0;
        }
        self.wake_joint(id);
        Ok(())
    }

    /// Sets a joint's spring: `hertz` (>= 0) and `damping_ratio` (>= 0), as
    /// [`JointDef::spring`](crate::JointDef::spring) says for each kind (a revolute joint's pulls towards the relative angle
    /// of when the joint was made, a prismatic or wheel joint's towards B's place on the axis
    /// then, a distance joint's towards its length; 0 Hz: no spring, and a rigid weld). Takes
    /// effect from the next step and wakes the bodies.
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for a motor
    /// joint (no spring) or a value that is negative or not finite. The world is unchanged on
    /// `Err`.
    pub fn set_joint_spring(
        &mut self,
        id: JointId,
        hertz: f32,
        damping_ratio: f32,
    ) -> Result<(), Error> {
        self.joint_with(id, "spring", JointKind::has_spring)?;
        check_spring((hertz, damping_ratio))?;
        let joint = self.joints.get_mut(id)?;
        joint.spring = Some((hertz, damping_ratio));
        if hertz == 0.0 {
            // The spring's row no longer runs: its impulse must not be warm started.
            match joint.kind {
                JointKind::Revolute => joint.impulses.angular = 0.0,
                JointKind::Prismatic | JointKind::Wheel | JointKind::Distance => {
                    joint.impulses.axial = 0.0
                }
                _ => {}
            }
        }
        self.wake_joint(id);
        Ok(())
    }

    /// A revolute or wheel joint's angle: B's turn relative to A (radians, within
    /// `-pi..=pi`) since the joint was made, at the bodies' present poses.
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for another
    /// kind of joint.
    pub fn joint_angle(&self, id: JointId) -> Result<f32, Error> {
        let joint = self.joint_with(id, "angle", |k| {
            matches!(k, JointKind::Revolute | JointKind::Wheel)
        })?;
        Ok(joint.angle(&self.bodies))
    }

    /// A prismatic or wheel joint's translation: how far B's anchor lies along the axis from
    /// A's (m), at the bodies' present poses; zero where B was when the joint was made.
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for another
    /// kind of joint.
    pub fn joint_translation(&self, id: JointId) -> Result<f32, Error> {
        let joint = self.joint_with(id, "translation", |k| {
            matches!(k, JointKind::Prismatic | JointKind::Wheel)
        })?;
        let (d, axis) = joint.frame(&self.bodies);
        Ok(axis.dot(d))
    }

    /// A joint's speed at the bodies' present velocities: a revolute joint's relative turn
    /// (rad/s, B's angular velocity minus A's), a prismatic or wheel joint's rate of change of
    /// [`World::joint_translation`] (m/s), a distance joint's rate of change of length (m/s).
    ///
    /// `Err(InvalidJoint)` for a stale or foreign handle; `Err(InvalidParameter)` for a weld,
    /// mouse or motor joint.
    pub fn joint_speed(&self, id: JointId) -> Result<f32, Error> {
        use JointKind::*;
        let joint = self.joint_with(id, "speed", |k| {
            matches!(k, Revolute | Prismatic | Wheel | Distance)
        })?;
        let b = &self.bodies;
        let (anchor_a, anchor_b) = joint.anchors(b);
        // The velocity of the point of `slot` now at `p`.
        let velocity = |slot: BodySlot, p: Vec2| {
            let s = slot.index();
            b.linear_velocity()[s] + Vec2::cross_sv(b.angular_velocity()[s], p - b.center()[s])
        };
        let w = |slot: BodySlot| b.angular_velocity()[slot.index()];
        let (a, body_b) = (joint.a, joint.b);
        let dv = velocity(body_b, anchor_b) - velocity(a, anchor_a);
        let d = anchor_b - anchor_a;
        Ok(match joint.kind {
            Revolute => w(body_b) - w(a),
            // d/dt (axis . d): the axis turns with A.
            Prismatic | Wheel => {
                let axis = joint.axis(b);
                axis.dot(dv) + w(a) * axis.left_perp().dot(d)
            }
            _ => d.normalized().map_or(0.0, |n| n.dot(dv)),
        })
    }

    /// The joints whose reaction force or torque passed their break force or torque (see
    /// [`JointDef::break_force`](crate::JointDef::break_force)) in the last step, in slot order. A joint is listed in
    /// every step it stays past its threshold, until the user removes it. Only joints that
    /// the step solved are listed: none whose bodies all sleep.
    pub fn joint_events(&self) -> &[JointEvent] {
        &self.joints.events
    }

    /// The joint `id`, which must be of a kind `has` accepts: `Err(InvalidJoint)` for a stale
    /// or foreign handle, `Err(InvalidParameter)` naming `part` for another kind.
    fn joint_with(
        &self,
        id: JointId,
        part: &str,
        has: fn(JointKind) -> bool,
    ) -> Result<&Joint, Error> {
        let joint = self.joints.get(id)?;
        if !has(joint.kind) {
            return Err(Error::InvalidParameter(format!(
                "a {:?} joint has no {part}",
                joint.kind
            )));
        }
        Ok(joint)
    }

    /// Wakes the bodies of the live joint `id`.
    fn wake_joint(&mut self, id: JointId) {
        if let Ok(joint) = self.joints.get(id) {
            let slots = [joint.a, joint.b];
            self.wake_sleeping(slots);
        }
    }
}
