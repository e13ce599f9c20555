//! Compound bodies: bodies made of several shapes.
//!
//! A compound body is one rigid body, with one pose, velocity, mass and inertia (its shapes'
//! combined by [`MassData::combine`](crate::MassData::combine)), whose shapes each keep their
//! own material and filter. Everything that works on body slots keeps doing so: the
//! broadphase finds body pairs by the union of the shapes' boxes and filters them by the
//! union of their layers and masks; islands, sleep, the constraint graph and the solver see
//! bodies. Only the narrowphase looks inside:
//!
//! - In a world with at least one compound body, each body pair of the broadphase expands into
//!   its shape pairs, in a fixed order (shape of `a`, then shape of `b`), skipping shape pairs
//!   whose boxes do not overlap or whose layers and masks exclude each other. A contact is
//!   keyed by `(a, b, shape pair)`, the shape pair packed as
//!   `shape of a * MAX_COMPOUND_SHAPES + shape of b` (always 0 between one-shape bodies), so
//!   the contact list stays sorted and last step's contacts are matched by one merge-join, as
//!   before: each shape pair warm starts and recycles its own manifold.
//! - A world without compound bodies skips the expansion: its pairs go to the narrowphase as
//!   they are, which reads shapes and materials from the body columns exactly as before.
//!
//! Several contacts between the same two bodies are several constraints on the same two
//! bodies, so the graph coloring (which never puts a body twice in one color) gives them
//! different colors, and the solver handles them like any other contacts.

use crate::body::{BodyDef, BodyId, ShapeDef};
use crate::error::Error;
use crate::geometry::math::{Aabb, Transform, Vec2};
use crate::geometry::shape::Shape;
use crate::narrow_phase::contact::{join_children, Children};
use crate::world::World;

/// What the narrowphase reads in a world with compound bodies: the broadphase's body pairs
/// expanded into shape pairs (see the module docs).
#[derive(Default)]
pub(crate) struct ShapePairs {
    /// The body pair of each shape pair, sorted with `children`.
    pub pairs: Vec<(u32, u32)>,
    /// `children[i]`: which shapes of `pairs[i]`.
    pub children: Vec<Children>,
}

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
    ///         ShapeDef::new(Shape::offset_rect(0.05, 0.4, Vec2::ZERO, 0.0)).density(0.5),
    ///         ShapeDef::new(Shape::offset_rect(0.2, 0.08, Vec2::new(0.0, 0.45), 0.0)).density(8.0),
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
        self.sleep.add_body(id.slot() as usize, def.sleep_threshold);
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

    /// The broadphase boxes of the awake compound bodies, as `update_aabbs` computes the
    /// others' (grown by `margin` plus the turn of the step, swept along the step's motion),
    /// shape by shape; the body's box is their union.
    pub(crate) fn update_compound_aabbs(&mut self, margin: f32, dt: f32) {
        let b = &mut self.bodies;
        for &s in &b.compound_slots {
            let slot = s as usize;
            if self.sleep.asleep[slot] {
                continue;
            }
            let Some(compound) = b.compound[slot].as_mut() else {
                continue;
            };
            let q = b.rotation[slot];
            let xf = Transform::new(b.center[slot] - q.rotate(b.local_center[slot]), q);
            let turn = b.angular_velocity[slot].abs() * dt * b.reach[slot];
            let sweep = b.linear_velocity[slot] * dt;
            let mut all: Option<Aabb> = None;
            for (aabb, shape) in compound.aabbs.iter_mut().zip(compound.shapes.iter()) {
                *aabb = shape.swept_aabb(xf, margin + turn, sweep);
                all = Some(all.map_or(*aabb, |u| u.union(aabb)));
            }
            if let Some(all) = all {
                b.aabb[slot] = all;
            }
        }
    }

    /// Expands this step's body pairs into shape pairs (see the module docs). Only called in a
    /// world with compound bodies.
    pub(crate) fn expand_shape_pairs(&mut self) {
        let b = &self.bodies;
        let out = &mut self.shape_pairs;
        out.pairs.clear();
        out.children.clear();
        for &(a, bb) in &self.pairs {
            let (sa, sb) = (a as usize, bb as usize);
            if b.compound[sa].is_none() && b.compound[sb].is_none() {
                out.pairs.push((a, bb));
                out.children.push(0);
                continue;
            }
            let boxes = |slot: usize| -> &[Aabb] {
                match &b.compound[slot] {
                    Some(c) => &c.aabbs,
                    None => std::slice::from_ref(&b.aabb[slot]),
                }
            };
            let (boxes_a, boxes_b) = (boxes(sa), boxes(sb));
            for (ca, box_a) in boxes_a.iter().enumerate() {
                let (layers_a, mask_a) = b.child_filter(sa, ca);
                for (cb, box_b) in boxes_b.iter().enumerate() {
                    let (layers_b, mask_b) = b.child_filter(sb, cb);
                    let collide = layers_a & mask_b != 0 && layers_b & mask_a != 0;
                    if collide && box_a.overlaps(box_b) {
                        out.pairs.push((a, bb));
                        out.children.push(join_children(ca, cb));
                    }
                }
            }
        }
    }
}
