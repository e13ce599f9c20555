//! The snapshot form of the store: every slot written, and every body read back checked as one
//! the store could have made, its derived columns rebuilt by the code that made them.

use super::{BodyId, BodyStore, Motion, SlotKind};
use crate::codec::{codec_struct, invalid as invalid_snapshot, Codec, Reader, Writer};
use crate::error::{check_non_negative, Error};
use crate::geometry::math::{Aabb, Rot, Vec2};
use crate::geometry::shape::{box_shape, LocalBox, Shape, MAX_COMPOUND_SHAPES};
use crate::index::BodySlot;

/// Saves every slot: a free one by its generation alone, a body by what it was made with and
/// its motion since. The columns a body's shapes decide (`local_box`, `reach`, `min_extent`),
/// the counts and the list of compound slots are rebuilt on reading, by the code that made
/// them, so they come back bit for bit; `static_boxes_at` is forgotten, so the next step
/// grows the static bodies' boxes afresh, to the same bits; the store read back has a
/// `mass_stamp` of its own.
impl Codec for BodyStore {
    const MIN_SIZE: usize = 1;

    fn encode(&self, w: &mut Writer) {
        let BodyStore {
            world,
            generation,
            kind,
            center,
            rotation,
            local_center,
            linear_velocity,
            angular_velocity,
            inv_mass,
            inv_inertia,
            gravity_scale,
            linear_damping,
            angular_damping,
            motion,
            density,
            shape,
            local_box: _,
            box_shape: _,
            friction,
            restitution,
            layers,
            mask,
            group,
            grouped: _,
            broad_layers: _,
            broad_mask: _,
            aabb,
            reach: _,
            bullet,
            fast_rotation,
            user_data,
            sensor,
            sensor_parts: _,
            sensor_count: _,
            disabled,
            disabled_count: _,
            min_extent: _,
            compound,
            compound_slots: _,
            static_changes,
            static_boxes_at: _,
            mass_stamp: _,
            free,
            count: _,
        } = self;
        world.encode(w);
        static_changes.encode(w);
        free.encode(w);
        generation.len().encode(w);
        for s in 0..generation.len() {
            generation[s].encode(w);
            (kind[s] as u8).encode(w);
            if kind[s] == SlotKind::Empty {
                continue;
            }
            center[s].encode(w);
            rotation[s].encode(w);
            local_center[s].encode(w);
            linear_velocity[s].encode(w);
            angular_velocity[s].encode(w);
            inv_mass[s].encode(w);
            inv_inertia[s].encode(w);
            gravity_scale[s].encode(w);
            linear_damping[s].encode(w);
            angular_damping[s].encode(w);
            motion[s].encode(w);
            density[s].encode(w);
            shape[s].encode(w);
            friction[s].encode(w);
            restitution[s].encode(w);
            layers[s].encode(w);
            mask[s].encode(w);
            group[s].encode(w);
            aabb[s].encode(w);
            bullet[s].encode(w);
            fast_rotation[s].encode(w);
            user_data[s].encode(w);
            sensor[s].encode(w);
            disabled[s].encode(w);
            compound[s].encode(w);
        }
    }

    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let mut store = BodyStore::new();
        store.world = u32::decode(r)?;
        store.static_changes = u64::decode(r)?;
        let free = Vec::<BodySlot>::decode(r)?;
        // A slot takes at least its generation and kind.
        let slots = r.len(5)?;
        for s in 0..slots {
            store.push_empty_slot();
            store.generation[s] = u32::decode(r)?;
            let kind = match u8::decode(r)? {
                0 => continue,
                1 => SlotKind::Fixed,
                2 => SlotKind::Kinematic,
                3 => SlotKind::Dynamic,
                k => return Err(invalid_snapshot(format!("slot {s}: unknown body kind {k}"))),
            };
            store.kind[s] = kind;
            store.center[s] = Vec2::decode(r)?;
            store.rotation[s] = Rot::decode(r)?;
            store.local_center[s] = Vec2::decode(r)?;
            store.linear_velocity[s] = Vec2::decode(r)?;
            store.angular_velocity[s] = f32::decode(r)?;
            store.inv_mass[s] = f32::decode(r)?;
            store.inv_inertia[s] = f32::decode(r)?;
            store.gravity_scale[s] = f32::decode(r)?;
            store.linear_damping[s] = f32::decode(r)?;
            store.angular_damping[s] = f32::decode(r)?;
            store.motion[s] = Motion::decode(r)?;
            store.density[s] = f32::decode(r)?;
            store.shape[s] = Shape::decode(r)?;
            store.friction[s] = f32::decode(r)?;
            store.restitution[s] = f32::decode(r)?;
            store.layers[s] = u32::decode(r)?;
            store.mask[s] = u32::decode(r)?;
            store.group[s] = i32::decode(r)?;
            store.aabb[s] = Aabb::decode(r)?;
            store.bullet[s] = bool::decode(r)?;
            store.fast_rotation[s] = bool::decode(r)?;
            store.user_data[s] = u64::decode(r)?;
            store.sensor[s] = bool::decode(r)?;
            store.disabled[s] = bool::decode(r)?;
            store.compound[s] = Codec::decode(r)?;
            store
                .check_slot(s)
                .map_err(|e| invalid_snapshot(format!("body in slot {s}: {e}")))?;
            // What `insert_shapes` derives from the shapes, derived the same way.
            let shapes = store.shapes(s);
            let at = store.local_center[s];
            let reach = shapes.iter().map(|x| x.reach_from(at)).fold(0.0, f32::max);
            let extent = shapes.iter().map(Shape::smallest_extent);
            store.min_extent[s] = extent.fold(f32::MAX, f32::min);
            store.reach[s] = reach;
            store.local_box[s] = LocalBox::of(&store.shape[s]);
            store.box_shape[s] =
                box_shape(&store.local_box[s], &store.shape[s]).unwrap_or_default();
            let parts =
                (store.compound[s].as_ref()).is_some_and(|c| c.materials.iter().any(|m| m.sensor));
            store.sensor_parts[s] = parts;
            store.sensor_count += usize::from(store.sensor[s] || parts);
            store.disabled_count += usize::from(store.disabled[s]);
            store.filters_changed(s, false);
            if store.compound[s].is_some() {
                store.compound_slots.push(s as u32);
            }
            store.count += 1;
        }
        let mut listed = vec![false; slots];
        for slot in &free {
            let s = slot.index();
            if s >= slots || store.kind[s] != SlotKind::Empty || listed[s] {
                return Err(invalid_snapshot(format!(
                    "free slot {s} is out of range, holds a body or is listed twice"
                )));
            }
            listed[s] = true;
        }
        store.free = free;
        Ok(store)
    }
}

impl BodyStore {
    /// `Err` with the reason unless the body read into `slot` is one the store could have
    /// made and moved: finite numbers in range, a mass that matches the kind, materials in
    /// range, a compound whose parts agree with the columns.
    fn check_slot(&self, s: usize) -> Result<(), Error> {
        let finite = [
            self.center[s],
            self.local_center[s],
            self.linear_velocity[s],
        ]
        .iter()
        .all(|v| v.is_finite())
            && [
                self.angular_velocity[s],
                self.gravity_scale[s],
                self.rotation[s].c,
                self.rotation[s].s,
            ]
            .iter()
            .all(|x| x.is_finite());
        if !finite {
            return Err(Error::InvalidParameter(
                "pose or velocity not finite".into(),
            ));
        }
        let q = self.rotation[s];
        if (q.c * q.c + q.s * q.s - 1.0).abs() > 1.0e-3 {
            return Err(Error::InvalidParameter(format!(
                "rotation {q:?} is not a unit vector"
            )));
        }
        check_non_negative("inverse mass", self.inv_mass[s])?;
        check_non_negative("inverse inertia", self.inv_inertia[s])?;
        check_non_negative("linear damping", self.linear_damping[s])?;
        check_non_negative("angular damping", self.angular_damping[s])?;
        check_non_negative("friction", self.friction[s])?;
        if !(0.0..=1.0).contains(&self.restitution[s]) {
            return Err(Error::InvalidParameter("restitution out of 0..=1".into()));
        }
        let dynamic = self.kind[s] == SlotKind::Dynamic;
        if dynamic != (self.inv_mass[s] > 0.0)
            || (!dynamic && (self.inv_inertia[s] != 0.0 || self.gravity_scale[s] != 0.0))
        {
            return Err(Error::InvalidParameter(
                "mass does not match the body kind".into(),
            ));
        }
        let b = self.aabb[s];
        if !(b.min.is_finite() && b.max.is_finite() && b.min.x <= b.max.x && b.min.y <= b.max.y) {
            return Err(Error::InvalidParameter(format!("bad box {b:?}")));
        }
        if let Some(c) = &self.compound[s] {
            let n = c.shapes.len();
            let parts_agree = (2..=MAX_COMPOUND_SHAPES).contains(&n)
                && c.materials.len() == n
                && c.aabbs.len() == n
                && c.shapes[0] == self.shape[s]
                && !self.sensor[s];
            if !parts_agree {
                return Err(Error::InvalidParameter(
                    "compound shapes, materials and boxes disagree".into(),
                ));
            }
            for m in c.materials.iter() {
                check_non_negative("friction", m.friction)?;
                if !(0.0..=1.0).contains(&m.restitution) {
                    return Err(Error::InvalidParameter("restitution out of 0..=1".into()));
                }
            }
            if c.aabbs
                .iter()
                .any(|b| !(b.min.is_finite() && b.max.is_finite()))
            {
                return Err(Error::InvalidParameter("compound box not finite".into()));
            }
        }
        let xf = self.transform(s);
        for shape in self.shapes(s) {
            crate::limits::check_shape_reach(shape)?;
            crate::limits::check_placement(shape, xf, self.center[s])?;
            if dynamic && shape.is_segment() {
                return Err(Error::InvalidShape("a segment on a dynamic body".into()));
            }
        }
        Ok(())
    }
}

codec_struct!(BodyId {
    world,
    slot,
    generation
});
