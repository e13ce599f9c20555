//! Moving a body to a pose by velocity: kinematic platforms, doors and lifts that carry what
//! rests on them.

use crate::body::{BodyId, SlotKind};
use crate::error::{check_finite, Error};
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::limits::{check_angular_velocity, check_linear_velocity, check_time_step, check_vector};
use crate::world::World;

impl World {
    /// Sets the body's velocities so that its origin reaches `position`, turned to `angle`
    /// radians, `dt` seconds from now: pass the next step's `dt` every step to move a
    /// kinematic platform along a path. Unlike [`World::set_transform`], which teleports the
    /// body and leaves what rests on it behind, the body moves there during the step, so
    /// friction carries along what rests on it (as long as the platform's acceleration stays
    /// below friction times gravity) and it pushes what is in its way.
    ///
    /// The linear velocity takes the centre of mass from where it is to where the target
    /// pose puts it; the angular velocity turns the body the shorter way to `angle`, by at
    /// most half a turn. A kinematic body then reaches the pose, up to rounding. A dynamic
    /// body gets the same velocities (as in Box2D's `SetTargetTransform`), which gravity,
    /// contacts and joints then change; one with fixed rotation does not turn. A target equal
    /// to the current pose stops the body. Wakes the body and what it touches when it moves.
    ///
    /// `Err(InvalidBody)` for a stale or foreign handle; `Err(InvalidParameter)` for a fixed
    /// body (which never moves: make it kinematic with [`World::set_body_kind`]), a non-finite
    /// position or angle, a `dt` that is not finite and in `(0, 1]` s, or velocities beyond
    /// 1e30. The world is unchanged on `Err`.
    ///
    /// ```
    /// use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
    ///
    /// let mut world = World::new(WorldSettings::default());
    /// let lift = world.add_body(BodyDef::kinematic(), ShapeDef::new(Shape::rect(1.0, 0.1)?))?;
    /// let dt = 1.0 / 60.0;
    /// world.set_target_transform(lift, Vec2::new(0.0, 0.05), 0.0, dt)?;
    /// assert!((world.linear_velocity(lift)?.y - 3.0).abs() < 1e-4); // 5 cm in 1/60 s
    /// world.step(dt)?;
    /// assert!((world.transform(lift)?.p.y - 0.05).abs() < 1e-5);
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn set_target_transform(
        &mut self,
        id: BodyId,
        position: Vec2,
        angle: f32,
        dt: f32,
    ) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        if self.bodies.kind()[slot] == SlotKind::Fixed {
            return Err(Error::InvalidParameter(
                "a fixed body does not move: make it kinematic to move it to a target".into(),
            ));
        }
        check_vector("target position", position)?;
        check_finite("target angle", angle)?;
        check_time_step(dt)?;
        let target = Transform::new(position, Rot::from_angle(angle));
        let center = target.apply(self.bodies.local_center()[slot]);
        let v = (center - self.bodies.center()[slot]) * (1.0 / dt);
        let turn = self.bodies.rotation()[slot].inv_mul(target.q).angle();
        let w = match self.bodies.can_turn(slot) {
            true => turn / dt,
            false => 0.0,
        };
        check_linear_velocity("target velocity", v)?;
        check_angular_velocity("target angular velocity", w)?;
        if v != Vec2::ZERO || w != 0.0 {
            self.wake_touching(slot);
        }
        self.bodies.set_linear_velocity(slot, v);
        self.bodies.set_angular_velocity(slot, w);
        Ok(())
    }
}
