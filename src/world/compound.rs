//! The world's compound body calls (see `broad_phase::compound` for compound bodies).

use crate::body::BodyId;
use crate::body_def::{BodyDef, ShapeDef};
use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::geometry::shape::Shape;
use crate::index::BodySlot;
use crate::world::World;

impl World {
    /// Adds a body made of several shapes, each placed in the body frame (for example with
    /// [`Shape::circle_at`], [`Shape::offset_rect`], [`Shape::polygon`] or
    /// [`Shape::capsule`]) and each with its own density, friction, restitution, layers and
    /// mask. The body's mass, centre of mass and rotational inertia combine those of its
    /// shapes ([`MassData::combine`](crate::MassData::combine)).
    ///
    /// One shape makes an ordinary body, the same as [`World::add_body`]. `Err`, with the world
    /// unchanged, for an empty list or more than
    /// [`MAX_COMPOUND_SHAPES`](crate::MAX_COMPOUND_SHAPES) shapes, any shape definition
    /// `add_body` would reject, a segment on a dynamic body, a dynamic body whose total mass is
    /// not positive and finite (all densities 0, say), or a placement beyond the range of f32.
    ///
    /// Contacts, contact events and queries of a compound body: see [`World::contacts`],
    /// [`World::contact_events`] and [`World::cast_ray`].
    ///
    /// ```
    /// use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
    ///
    /// let mut world = World::new(WorldSettings::default());
    /// // A hammer: a heavy head on a light handle.
    /// let hammer = world.add_compound_body(
    ///     BodyDef::dynamic().position(Vec2::new(0.0, 2.0)),
    ///     &[
    ///         ShapeDef::new(Shape::offset_rect(0.05, 0.4, Vec2::ZERO, 0.0)?).density(0.5),
    ///         ShapeDef::new(Shape::offset_rect(0.2, 0.08, Vec2::new(0.0, 0.45), 0.0)?).density(8.0),
    ///     ],
    /// )?;
    /// assert_eq!(world.shapes(hammer)?.len(), 2);
    /// assert!(world.local_center(hammer)?.y > 0.3); // near the head
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn add_compound_body(
        &mut self,
        def: BodyDef,
        shapes: &[ShapeDef],
    ) -> Result<BodyId, Error> {
        def.validate()?;
        for (i, shape) in shapes.iter().enumerate() {
            shape.validate().map_err(|e| match e {
                Error::InvalidShape(why) => Error::InvalidShape(format!("shape {i}: {why}")),
                Error::InvalidParameter(why) => {
                    Error::InvalidParameter(format!("shape {i}: {why}"))
                }
                other => other,
            })?;
        }
        // Fails before it changes anything (count, segments, mass, placement).
        let id = self.bodies.insert_shapes(&def, shapes)?;
        self.invalidate_queries();
        self.sleep
            .add_body(BodySlot::new(id.slot() as usize), def.sleep_threshold);
        Ok(id)
    }

    /// The body's shapes in the body frame, as they were added: one for a body added by
    /// [`World::add_body`], in order for a compound body. `Err(InvalidBody)` for a stale or
    /// foreign handle.
    pub fn shapes(&self, id: BodyId) -> Result<&[Shape], Error> {
        Ok(self.bodies.shapes(self.bodies.slot(id)?))
    }

    /// The centre of mass in the body frame (m): where [`World::position`] sits relative to
    /// the body origin of [`World::transform`]. `Err(InvalidBody)` for a stale or foreign
    /// handle.
    pub fn local_center(&self, id: BodyId) -> Result<Vec2, Error> {
        Ok(self.bodies.local_center[self.bodies.slot(id)?])
    }
}
