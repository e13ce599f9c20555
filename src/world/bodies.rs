//! The world's body calls: adding and removing bodies, reading and setting their state.

use crate::body::BodyId;
use crate::body_def::{BodyDef, BodyKind, ShapeDef};
use crate::error::Error;
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::geometry::shape::Shape;
use crate::index::BodySlot;
use crate::world::World;

impl World {
    /// Adds a body with one shape. `Err` for non-finite values, a shape reaching more than
    /// 1e6 m from the body origin, a segment on a dynamic body, negative density or friction,
    /// restitution outside 0..=1, a dynamic body without a finite mass and inverse mass or
    /// heavier than 1e20 kg, or a placement that puts the shape beyond the range of f32.
    pub fn add_body(&mut self, def: BodyDef, shape: ShapeDef) -> Result<BodyId, Error> {
        def.validate()?;
        shape.validate()?;
        self.invalidate_queries();
        let id = self.bodies.insert(&def, &shape)?;
        self.sleep
            .add_body(BodySlot::new(id.slot() as usize), def.sleep_threshold);
        Ok(id)
    }

    /// Removes a body and its joints; its handle and those of its joints become invalid. Wakes
    /// the bodies it touched and those it was joined to.
    pub fn remove_body(&mut self, id: BodyId) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        self.wake_touching(slot);
        self.removed.mark(BodySlot::new(slot), id);
        self.forces.remove_body(slot);
        self.sensors.body_removed(&self.bodies, slot as u32);
        let dynamic = self.bodies.is_dynamic(slot);
        self.bodies.remove(slot);
        self.joints.remove_body(BodySlot::new(slot));
        self.sleep.remove_body(BodySlot::new(slot), dynamic);
        self.invalidate_queries();
        Ok(())
    }

    /// Centre of mass in world coordinates (m). `Err(InvalidBody)` for a stale or foreign handle.
    pub fn position(&self, id: BodyId) -> Result<Vec2, Error> {
        Ok(self.bodies.center()[self.bodies.slot(id)?])
    }

    /// Rotation in radians, in `(-pi, pi]`. `Err(InvalidBody)` for a stale or foreign handle.
    pub fn angle(&self, id: BodyId) -> Result<f32, Error> {
        Ok(self.rotation(id)?.angle())
    }

    /// Rotation of the body as cosine and sine (the same about its origin and its centre of
    /// mass). `Err(InvalidBody)` for a stale or foreign handle.
    pub fn rotation(&self, id: BodyId) -> Result<Rot, Error> {
        Ok(self.bodies.rotation()[self.bodies.slot(id)?])
    }

    /// Transform of the body origin, the frame its shape is defined in. `Err(InvalidBody)` for
    /// a stale or foreign handle.
    pub fn transform(&self, id: BodyId) -> Result<Transform, Error> {
        Ok(self.bodies.transform(self.bodies.slot(id)?))
    }

    /// The body's shape, in the body frame, as it was added. `Err(InvalidBody)` for a stale or
    /// foreign handle, and `Err(InvalidParameter)` for a compound body (one added by
    /// [`World::add_compound_body`] with more than one shape), which has no single shape:
    /// use [`World::shapes`], which works for every body.
    pub fn shape(&self, id: BodyId) -> Result<&Shape, Error> {
        match self.bodies.shapes(self.bodies.slot(id)?) {
            [one] => Ok(one),
            many => Err(Error::InvalidParameter(format!(
                "a compound body has {} shapes, not one: use World::shapes",
                many.len()
            ))),
        }
    }

    /// Velocity of the centre of mass (m/s). `Err(InvalidBody)` for a stale or foreign handle.
    pub fn linear_velocity(&self, id: BodyId) -> Result<Vec2, Error> {
        Ok(self.bodies.linear_velocity()[self.bodies.slot(id)?])
    }

    /// Fixed, kinematic or dynamic. `Err(InvalidBody)` for a stale or foreign handle.
    pub fn body_kind(&self, id: BodyId) -> Result<BodyKind, Error> {
        Ok(self.bodies.body_kind(self.bodies.slot(id)?))
    }

    /// Angular velocity (rad/s, counter-clockwise). `Err(InvalidBody)` for a stale or foreign
    /// handle.
    pub fn angular_velocity(&self, id: BodyId) -> Result<f32, Error> {
        Ok(self.bodies.angular_velocity()[self.bodies.slot(id)?])
    }

    /// Sets the velocity of a dynamic or kinematic body (static bodies stay at rest). `Err`
    /// beyond 1e30 m/s per axis or non-finite.
    pub fn set_linear_velocity(&mut self, id: BodyId, v: Vec2) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        crate::limits::check_linear_velocity("linear velocity", v)?;
        if self.bodies.kind()[slot] != crate::body::SlotKind::Fixed {
            if v != Vec2::ZERO {
                self.wake_touching(slot);
            }
            self.bodies.set_linear_velocity(slot, v);
        }
        Ok(())
    }

    /// Sets the angular velocity of a dynamic or kinematic body (static and fixed-rotation
    /// bodies do not turn). `Err` beyond 1e30 rad/s or non-finite.
    pub fn set_angular_velocity(&mut self, id: BodyId, w: f32) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        crate::limits::check_angular_velocity("angular velocity", w)?;
        if self.bodies.can_turn(slot) {
            if w != 0.0 {
                self.wake_touching(slot);
            }
            self.bodies.set_angular_velocity(slot, w);
        }
        Ok(())
    }

    /// Handles of all bodies, in slot order.
    pub fn bodies(&self) -> impl Iterator<Item = BodyId> + '_ {
        self.bodies.ids()
    }

    /// Number of live bodies, sleeping ones included (removed ones are not counted).
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }
}
