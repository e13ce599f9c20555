//! Adding and removing bodies: the slot lifecycle, with the count of static changes that a
//! body added or removed moves (the passes that keep something of the static bodies read it).

use super::mass::{combined_mass, MassColumns};
use super::{BodyId, BodyStore, ChildMaterial, Motion, SlotKind};
use crate::body_def::{BodyDef, BodyKind, ShapeDef};
use crate::error::Error;
use crate::geometry::math::{Aabb, Rot, Transform, Vec2};
use crate::geometry::shape::{Shape, MAX_COMPOUND_SHAPES};
use crate::index::{BodySlot, Stamp};
use batch2d_kernels::bounds::BoxShape;
use bytemuck::Zeroable;

impl BodyStore {
    /// Adds a body; both definitions must be validated already.
    pub fn insert(&mut self, def: &BodyDef, shape: &ShapeDef) -> Result<BodyId, Error> {
        self.insert_shapes(def, std::slice::from_ref(shape))
    }

    /// Adds a body with the shapes `shapes` (1 to [`MAX_COMPOUND_SHAPES`], each validated
    /// already); more than one makes it a compound body. `Err`, with the store unchanged, for
    /// a bad count, a segment on a dynamic body, a dynamic body without a finite positive mass
    /// and inverse mass, or a placement beyond the range of f32.
    pub fn insert_shapes(&mut self, def: &BodyDef, shapes: &[ShapeDef]) -> Result<BodyId, Error> {
        if shapes.is_empty() || shapes.len() > MAX_COMPOUND_SHAPES {
            return Err(Error::InvalidParameter(format!(
                "a body needs 1 to {MAX_COMPOUND_SHAPES} shapes, got {}",
                shapes.len()
            )));
        }
        let mass = combined_mass(shapes.iter().map(|s| (&s.shape, s.density)));
        let motion = Motion {
            gravity_scale: def.gravity_scale,
            linear_damping: def.linear_damping,
            angular_damping: def.angular_damping,
            fixed_rotation: def.fixed_rotation,
        };
        let columns = MassColumns::of(
            def.kind,
            &mass,
            &motion,
            shapes.iter().map(|s| &s.shape),
            &|| match shapes {
                [one] => one.density.to_string(),
                many => format!("{:?}", many.iter().map(|s| s.density).collect::<Vec<_>>()),
            },
        )?;
        let q = Rot::from_angle(def.angle);
        let center = Transform::new(def.position, q).apply(mass.center);
        for s in shapes {
            crate::limits::check_placement(&s.shape, Transform::new(def.position, q), center)?;
        }
        let (v, w) = match def.kind {
            BodyKind::Fixed => (Vec2::ZERO, 0.0),
            BodyKind::Dynamic if def.fixed_rotation => (def.linear_velocity, 0.0),
            _ => (def.linear_velocity, def.angular_velocity),
        };

        let slot = match self.free.pop() {
            Some(s) => s.index(),
            None => {
                self.push_empty_slot();
                self.slots() - 1
            }
        };
        self.center[slot] = center;
        self.rotation[slot] = q;
        self.local_center[slot] = mass.center;
        self.linear_velocity[slot] = v;
        self.angular_velocity[slot] = w;
        self.write_columns(slot, &columns);
        self.motion[slot] = motion;
        self.bullet[slot] = def.bullet;
        self.fast_rotation[slot] = def.allow_fast_rotation;
        self.user_data[slot] = def.user_data;
        self.reach[slot] = shapes
            .iter()
            .map(|s| s.shape.reach_from(mass.center))
            .fold(0.0, f32::max);
        self.write_shapes(
            slot,
            shapes.iter().map(|s| s.shape.clone()).collect(),
            shapes.iter().map(ChildMaterial::of).collect(),
            false,
        );
        self.aabb[slot] = self.body_aabb(slot, self.transform(slot));
        self.static_changed(slot);
        self.count += 1;
        Ok(self.id(slot))
    }

    pub(super) fn push_empty_slot(&mut self) {
        self.generation.push(0);
        self.kind.push(SlotKind::Empty);
        self.center.push(Vec2::ZERO);
        self.rotation.push(Rot::IDENTITY);
        self.local_center.push(Vec2::ZERO);
        self.linear_velocity.push(Vec2::ZERO);
        self.angular_velocity.push(0.0);
        self.inv_mass.push(0.0);
        self.inv_inertia.push(0.0);
        self.gravity_scale.push(0.0);
        self.motion.push(Motion::default());
        self.density.push(0.0);
        self.linear_damping.push(0.0);
        self.angular_damping.push(0.0);
        self.shape.push(Shape::UNIT_CIRCLE);
        self.local_box.push(None);
        self.box_shape.push(BoxShape::zeroed());
        self.friction.push(0.0);
        self.restitution.push(0.0);
        self.layers.push(0);
        self.mask.push(0);
        self.group.push(0);
        self.broad_layers.push(0);
        self.broad_mask.push(0);
        self.aabb.push(Aabb::default());
        self.reach.push(0.0);
        self.bullet.push(false);
        self.fast_rotation.push(false);
        self.user_data.push(0);
        self.sensor.push(false);
        self.disabled.push(false);
        self.sensor_parts.push(false);
        self.min_extent.push(0.0);
        self.compound.push(None);
    }

    /// How many times the static bodies' boxes have changed (see the field): a pass that keeps
    /// something of the static bodies redoes it when this differs from what it last saw.
    pub fn static_changes(&self) -> u64 {
        self.static_changes
    }

    /// The version of which slots hold a body and of each body's kind, inverse mass and
    /// inertia and enabled flag (see the field).
    pub fn mass_stamp(&self) -> Stamp {
        self.mass_stamp
    }

    /// Whether the static bodies' boxes in `aabb` are those of the current static bodies
    /// grown by `margin`; if not, counts a change, as the caller is about to grow them anew.
    /// Either way they are then current.
    pub fn static_boxes_current(&mut self, margin: f32) -> bool {
        let current = self.static_boxes_at == Some((self.static_changes, margin.to_bits()));
        if !current {
            self.static_changes += 1;
        }
        self.static_boxes_at = Some((self.static_changes, margin.to_bits()));
        current
    }

    /// Counts a change in `static_changes` if the body in `slot` is static: call it when a
    /// body is added, moved or removed (before its slot is emptied).
    pub fn static_changed(&mut self, slot: usize) {
        if self.kind[slot] == SlotKind::Fixed {
            self.static_changes += 1;
        }
    }

    /// Frees the slot of a live body; its handle becomes stale.
    pub fn remove(&mut self, slot: usize) {
        self.static_changed(slot);
        self.mass_stamp = Stamp::fresh();
        self.grouped -= usize::from(self.has_group(slot));
        self.kind[slot] = SlotKind::Empty;
        self.generation[slot] = self.generation[slot].wrapping_add(1);
        self.linear_velocity[slot] = Vec2::ZERO;
        self.angular_velocity[slot] = 0.0;
        self.inv_mass[slot] = 0.0;
        self.inv_inertia[slot] = 0.0;
        self.gravity_scale[slot] = 0.0;
        let whole = std::mem::take(&mut self.sensor[slot]);
        if whole | std::mem::take(&mut self.sensor_parts[slot]) {
            self.sensor_count -= 1;
        }
        if std::mem::take(&mut self.disabled[slot]) {
            self.disabled_count -= 1;
        }
        if self.compound[slot].take().is_some() {
            self.compound_slots.retain(|&c| c != slot as u32);
        }
        self.free.push(BodySlot::new(slot));
        self.count -= 1;
    }
}
