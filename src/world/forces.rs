//! The world's force, torque and impulse calls (see `src/forces.rs` for how forces act).

use crate::body::BodyId;
use crate::body::SlotKind;
use crate::error::{check_finite, Error};
use crate::geometry::math::Vec2;
use crate::limits::check_vector;
use crate::world::World;

impl World {
    /// Applies `force` (N) at the centre of mass for the next step. Forces add up until the
    /// next [`World::step`], act through it like gravity (`F / m` added to the acceleration),
    /// and are then cleared. No effect on static and kinematic bodies. Wakes a sleeping body.
    /// `Err(InvalidBody)` for a stale or foreign handle, `Err(InvalidParameter)` for a
    /// non-finite force or one that makes the body's summed force overflow f32.
    pub fn apply_force(&mut self, id: BodyId, force: Vec2) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_vector("force", force)?;
        self.add_force(slot, force, 0.0)
    }

    /// Applies `force` (N) at the world point `point` (m) for the next step: the force acts on
    /// the centre of mass, and with it the torque `(point - centre) x force`, the centre
    /// being where the body is now. See [`World::apply_force`]. `Err(InvalidParameter)` also
    /// for a non-finite point or a torque beyond f32's range.
    pub fn apply_force_at_point(
        &mut self,
        id: BodyId,
        force: Vec2,
        point: Vec2,
    ) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_vector("force", force)?;
        check_vector("point", point)?;
        let torque = (point - self.bodies.center()[slot]).cross(force);
        check_finite("torque of the force about the centre of mass", torque)?;
        self.add_force(slot, force, torque)
    }

    /// Applies `torque` (N m, counter-clockwise) for the next step: the angular counterpart of
    /// [`World::apply_force`] (`torque / I` added to the angular acceleration). No effect on
    /// static, kinematic and fixed-rotation bodies. `Err(InvalidParameter)` for a non-finite
    /// torque or one that makes the body's summed torque overflow f32.
    pub fn apply_torque(&mut self, id: BodyId, torque: f32) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_finite("torque", torque)?;
        self.add_force(slot, Vec2::ZERO, torque)
    }

    /// Adds a force and a torque to a dynamic body, waking it; nothing for other bodies.
    fn add_force(&mut self, slot: usize, force: Vec2, torque: f32) -> Result<(), Error> {
        if self.bodies.kind()[slot] != SlotKind::Dynamic {
            return Ok(());
        }
        // A fixed-rotation body has no inverse inertia to turn a torque into a spin.
        let torque = if self.bodies.inv_inertia()[slot] > 0.0 {
            torque
        } else {
            0.0
        };
        self.forces.add(slot, force, torque)?;
        if force != Vec2::ZERO || torque != 0.0 {
            self.wake_touching(slot);
        }
        Ok(())
    }

    /// Applies an impulse (N s) at the world point `point` (m): at once,
    /// `v += impulse / m` and `w += ((point - centre) x impulse) / I`. No effect on static and
    /// kinematic bodies; a fixed-rotation body only gains the linear part. Wakes a sleeping
    /// body. `Err(InvalidBody)` for a stale or foreign handle, `Err(InvalidParameter)` for
    /// non-finite values or a velocity beyond 1e30 m/s per axis or rad/s.
    pub fn apply_linear_impulse_at_point(
        &mut self,
        id: BodyId,
        impulse: Vec2,
        point: Vec2,
    ) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_vector("impulse", impulse)?;
        check_vector("point", point)?;
        let angular = (point - self.bodies.center()[slot]).cross(impulse);
        check_finite(
            "angular impulse of the impulse about the centre of mass",
            angular,
        )?;
        self.add_impulse(slot, impulse, angular)
    }

    /// Applies an angular impulse (N m s, counter-clockwise): at once, `w += impulse / I`. No
    /// effect on static, kinematic and fixed-rotation bodies. Wakes a sleeping body.
    /// `Err(InvalidBody)` for a stale or foreign handle, `Err(InvalidParameter)` for a
    /// non-finite impulse or an angular velocity beyond 1e30 rad/s.
    pub fn apply_angular_impulse(&mut self, id: BodyId, impulse: f32) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_finite("angular impulse", impulse)?;
        self.add_impulse(slot, Vec2::ZERO, impulse)
    }

    /// Applies an impulse (N s) at the centre of mass: at once, `v += impulse / m`. No effect on
    /// static and kinematic bodies. Wakes a sleeping body. `Err(InvalidBody)` for a stale or
    /// foreign handle, `Err(InvalidParameter)` for a non-finite impulse or a velocity beyond
    /// 1e30 m/s per axis.
    pub fn apply_linear_impulse(&mut self, id: BodyId, impulse: Vec2) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_vector("impulse", impulse)?;
        self.add_impulse(slot, impulse, 0.0)
    }

    /// Changes the velocity of the body in `slot` by `linear / m` and `angular / I`, both
    /// finite; checks the new velocity before changing anything.
    fn add_impulse(&mut self, slot: usize, linear: Vec2, angular: f32) -> Result<(), Error> {
        let (inv_mass, inv_inertia) = (
            self.bodies.inv_mass()[slot],
            self.bodies.inv_inertia()[slot],
        );
        let (dv, dw) = (linear * inv_mass, inv_inertia * angular);
        let v = self.bodies.linear_velocity()[slot] + dv;
        let w = self.bodies.angular_velocity()[slot];
        // Skipped when zero, which would turn an angular velocity of -0 into +0.
        let w = if dw != 0.0 { w + dw } else { w };
        if crate::limits::check_linear_velocity("velocity", v).is_err() {
            return Err(Error::InvalidParameter(format!(
                "impulse {linear:?} on a body of inverse mass {inv_mass} makes its velocity {v:?}, beyond 1e30 m/s"
            )));
        }
        if crate::limits::check_angular_velocity("angular velocity", w).is_err() {
            return Err(Error::InvalidParameter(format!(
                "angular impulse {angular} on a body of inverse inertia {inv_inertia} makes its angular velocity {w}, beyond 1e30 rad/s"
            )));
        }
        if dv != Vec2::ZERO || dw != 0.0 {
            self.wake_touching(slot);
        }
        self.bodies.set_linear_velocity(slot, v);
        self.bodies.set_angular_velocity(slot, w);
        Ok(())
    }
}
