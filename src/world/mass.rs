//! Reading and changing a body's mass: its mass, rotational inertia and density.
//!
//! The engine keeps each shape's density and computes the rest from the shapes
//! ([`Shape::mass_data`](crate::Shape::mass_data), combined for a compound body by
//! [`MassData::combine`](crate::MassData::combine)), so what these calls report is exactly
//! what the solver uses.

use crate::body::BodyId;
use crate::error::{check_non_negative, Error};
use crate::world::World;

impl World {
    /// The body's mass (kg): density times area summed over its shapes for a dynamic body,
    /// 0 for fixed and kinematic bodies (which no force moves, as in Box2D).
    /// `Err(InvalidBody)` for a stale or foreign handle.
    pub fn mass(&self, id: BodyId) -> Result<f32, Error> {
        let slot = self.bodies.slot(id)?;
        Ok(match self.bodies.is_dynamic(slot) {
            true => self.bodies.mass_data(slot, None).mass,
            false => 0.0,
        })
    }

    /// The body's rotational inertia (kg m²) about its centre of mass
    /// ([`World::position`]): that of a dynamic body, 0 where no torque turns the body (fixed
    /// and kinematic bodies, and dynamic ones with
    /// [`BodyDef::fixed_rotation`](crate::BodyDef::fixed_rotation)), as in Box2D.
    /// `Err(InvalidBody)` for a stale or foreign handle.
    pub fn rotational_inertia(&self, id: BodyId) -> Result<f32, Error> {
        let slot = self.bodies.slot(id)?;
        Ok(match self.bodies.inv_inertia()[slot] > 0.0 {
            true => self.bodies.mass_data(slot, None).rotational_inertia,
            false => 0.0,
        })
    }

    /// Sets the density (kg/m²) of every shape of the body, a compound body's included, and
    /// recomputes its mass, centre of mass and rotational inertia. The body origin
    /// ([`World::transform`]) stays where it is: where the shapes had different densities the
    /// centre of mass moves within the body, and the velocity of the centre becomes that of
    /// the body's point now there. Wakes the body and what it touches.
    ///
    /// `Err(InvalidBody)` for a stale or foreign handle; `Err(InvalidParameter)` for a
    /// negative or non-finite density, and for one that leaves a dynamic body without a
    /// positive finite mass (0, say) or heavier than 1e20 kg. 0 suits static and kinematic
    /// bodies. The world is unchanged on `Err`.
    ///
    /// ```
    /// use batch2d::{BodyDef, Shape, ShapeDef, World, WorldSettings};
    ///
    /// let mut world = World::new(WorldSettings::default());
    /// let crate_ = world.add_body(BodyDef::dynamic(), ShapeDef::new(Shape::rect(0.5, 0.5)?))?;
    /// assert_eq!(world.mass(crate_)?, 1.0); // 1 kg/m² times 1 m²
    /// world.set_density(crate_, 3.0)?;
    /// assert_eq!(world.mass(crate_)?, 3.0);
    /// assert!(world.set_density(crate_, 0.0).is_err()); // a dynamic body needs a mass
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn set_density(&mut self, id: BodyId, density: f32) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_non_negative("density", density)?;
        let kind = self.bodies.body_kind(slot);
        self.bodies.check_mass(slot, kind, Some(density))?;
        self.wake_touching(slot);
        self.bodies.set_mass(slot, kind, Some(density))?;
        self.invalidate_queries();
        Ok(())
    }
}
