//! The world's compound body calls (see `broad_phase::compound` for compound bodies).

use crate::body::{BodyId, ChildMaterial};
use crate::body_def::{BodyDef, ShapeDef};
use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::geometry::shape::{Shape, MAX_COMPOUND_SHAPES};
use crate::index::BodySlot;
use crate::world::World;

impl World {
    /// Adds a body made of several shapes, each placed in the body frame (for example with
    /// [`Shape::circle_at`], [`Shape::offset_rect`], [`Shape::polygon`] or
    /// [`Shape::capsule`]) and each with its own density, friction, restitution, layers and
    /// mask. The body's mass, centre of mass and rotational inertia combine those of its
    /// shapes ([`MassData::combine`](crate::MassData::combine)).
    ///
    /// One shape makes an ordinary body, the same as [`World::add_body`]; shapes can be added
    /// and removed later ([`World::add_shape`], [`World::remove_shape`]). A body pair costs
    /// about the shapes that touch, not the product of the shape counts: a compound finds its
    /// shapes near the other body in a tree of their boxes. `Err`, with the world unchanged,
    /// for an empty list or more than [`MAX_COMPOUND_SHAPES`] (65536) shapes, any shape
    /// definition
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
        Ok(self.bodies.local_center()[self.bodies.slot(id)?])
    }

    /// Adds a shape to a body, placed in the body frame like those of
    /// [`World::add_compound_body`], and returns its index in [`World::shapes`] (the body's
    /// shape count before the call). A one-shape body becomes a compound body. The body's
    /// mass, centre of mass and rotational inertia are recomputed from all its shapes, as
    /// [`World::set_density`] does: the body origin ([`World::transform`]) stays where it is,
    /// the centre of mass ([`World::position`]) moves with the new shape, and its velocity
    /// becomes that of the body's point now there, so that no point of the body changes
    /// speed. The body wakes, with what it touches; its contacts keep their warm starts, and
    /// the new shape collides from the next step.
    ///
    /// `Err`, with the world unchanged: `InvalidBody` for a stale or foreign handle;
    /// `InvalidShape`/`InvalidParameter` for a shape definition [`World::add_body`] would
    /// reject, a segment on a dynamic body, a body of [`MAX_COMPOUND_SHAPES`] shapes already,
    /// or a shape beyond the range of f32 from the new centre of mass.
    ///
    /// ```
    /// use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
    ///
    /// let mut world = World::new(WorldSettings::default());
    /// let body = world.add_body(BodyDef::dynamic(), ShapeDef::new(Shape::rect(0.5, 0.5)?))?;
    /// let arm = Shape::offset_rect(0.5, 0.5, Vec2::new(1.0, 0.0), 0.0)?;
    /// assert_eq!(world.add_shape(body, ShapeDef::new(arm))?, 1);
    /// assert_eq!(world.mass(body)?, 2.0);
    /// assert_eq!(world.local_center(body)?, Vec2::new(0.5, 0.0));
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn add_shape(&mut self, id: BodyId, shape: ShapeDef) -> Result<usize, Error> {
        let slot = self.bodies.slot(id)?;
        shape.validate()?;
        let (mut shapes, mut materials) = self.bodies.shape_list(slot);
        let index = shapes.len();
        if index >= MAX_COMPOUND_SHAPES {
            return Err(Error::InvalidParameter(format!(
                "a body has at most {MAX_COMPOUND_SHAPES} shapes"
            )));
        }
        shapes.push(shape.shape.clone());
        materials.push(ChildMaterial::of(&shape));
        self.replace_shapes(slot, shapes, materials)?;
        Ok(index)
    }

    /// Removes shape `index` of a body (its index in [`World::shapes`]); the shapes after it
    /// move down by one. A compound body left with one shape becomes an ordinary body. The
    /// mass data are recomputed and the body wakes, as for [`World::add_shape`]. The contacts
    /// of the removed shape are dropped, those of the other shapes keep their warm starts
    /// (renumbered); contact and sensor events stay per body pair, so an end event comes with
    /// the next step if the bodies no longer touch at all.
    ///
    /// `Err`, with the world unchanged: `InvalidBody` for a stale or foreign handle;
    /// `InvalidParameter` for an index out of range, the body's last shape (remove the body
    /// instead), or a dynamic body whose remaining shapes have no positive mass (all of
    /// density 0, say).
    ///
    /// ```
    /// use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
    ///
    /// let mut world = World::new(WorldSettings::default());
    /// let hull = ShapeDef::new(Shape::rect(0.5, 0.5)?);
    /// let arm = ShapeDef::new(Shape::offset_rect(0.5, 0.5, Vec2::new(1.0, 0.0), 0.0)?);
    /// let body = world.add_compound_body(BodyDef::dynamic(), &[hull, arm])?;
    /// world.remove_shape(body, 1)?;
    /// assert_eq!(world.shapes(body)?.len(), 1);
    /// assert_eq!(world.mass(body)?, 1.0);
    /// assert!(world.remove_shape(body, 0).is_err()); // the last shape stays
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn remove_shape(&mut self, id: BodyId, index: usize) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        let (mut shapes, mut materials) = self.bodies.shape_list(slot);
        if index >= shapes.len() {
            return Err(Error::InvalidParameter(format!(
                "shape {index} of a body of {} shapes",
                shapes.len()
            )));
        }
        if shapes.len() == 1 {
            return Err(Error::InvalidParameter(
                "a body keeps at least one shape: remove the body instead".into(),
            ));
        }
        shapes.remove(index);
        materials.remove(index);
        self.bodies.check_shapes(slot, &shapes, &materials)?;
        // Awake first, so that no sleeping island keeps a contact on the shape set aside.
        self.wake_touching(slot);
        (self.contacts).shape_removed(BodySlot::new(slot), index);
        (self.events).shape_removed(&self.contacts, &self.bodies, BodySlot::new(slot));
        self.replace_shapes(slot, shapes, materials)
    }

    /// Gives the body in `slot` its new shapes (checked first, so that an `Err` changes
    /// nothing), wakes what must notice, and forgets what was derived from the old ones.
    fn replace_shapes(
        &mut self,
        slot: usize,
        shapes: Vec<Shape>,
        materials: Vec<ChildMaterial>,
    ) -> Result<(), Error> {
        self.bodies.check_shapes(slot, &shapes, &materials)?;
        self.wake_touching(slot);
        let had_sensor = self.bodies.sensor()[slot] || self.bodies.sensor_parts()[slot];
        self.bodies.replace_shapes(slot, shapes, materials)?;
        if had_sensor && !(self.bodies.sensor()[slot] || self.bodies.sensor_parts()[slot]) {
            self.sensors.sensor_removed(&self.bodies, slot as u32);
        }
        self.invalidate_queries();
        Ok(())
    }
}
