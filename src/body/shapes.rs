//! A body's shapes: reading one shape's material, filter and box (one-shape bodies from the
//! columns, compounds from their `Compound`), and replacing the shapes at run time.

use super::mass::{combined_mass, MassColumns};
use super::{BodyStore, ChildMaterial, Compound};
use crate::error::Error;
use crate::geometry::math::{Aabb, Transform};
use crate::geometry::shape::{box_shape, LocalBox, Shape};

/// Reading the shapes of a body, whether it has one or is a compound.
impl BodyStore {
    /// The shapes of the body in `slot`: its one shape, or a compound's shapes in order.
    pub fn shapes(&self, slot: usize) -> &[Shape] {
        match &self.compound[slot] {
            Some(c) => &c.shapes,
            None => std::slice::from_ref(&self.shape[slot]),
        }
    }

    /// Whether shape `child` of the body in `slot` is a sensor.
    pub fn child_sensor(&self, slot: usize, child: usize) -> bool {
        match &self.compound[slot] {
            Some(c) => c.materials[child].sensor,
            None => self.sensor[slot],
        }
    }

    /// Layers and mask of shape `child` of the body in `slot`.
    pub fn child_filter(&self, slot: usize, child: usize) -> (u32, u32) {
        match &self.compound[slot] {
            Some(c) => (c.materials[child].layers, c.materials[child].mask),
            None => (self.layers[slot], self.mask[slot]),
        }
    }

    /// Friction and restitution of shape `child` of the body in `slot`.
    pub fn child_material(&self, slot: usize, child: usize) -> (f32, f32) {
        match &self.compound[slot] {
            Some(c) => (c.materials[child].friction, c.materials[child].restitution),
            None => (self.friction[slot], self.restitution[slot]),
        }
    }

    /// The tight world box of the body in `slot` with its origin placed by `xf`: the union of
    /// its shapes' boxes.
    pub fn body_aabb(&self, slot: usize, xf: Transform) -> Aabb {
        match &self.compound[slot] {
            Some(c) => c.shapes[1..]
                .iter()
                .fold(c.shapes[0].aabb(xf), |b, s| b.union(&s.aabb(xf))),
            None => self.shape[slot].aabb(xf),
        }
    }

    /// Sets the box of the body in `slot` to its tight box at `xf` grown by `margin`, and for a
    /// compound body its shapes' boxes likewise (the body's being their union).
    pub fn refresh_aabb(&mut self, slot: usize, xf: Transform, margin: f32) {
        self.aabb[slot] = self.refresh_child_aabbs(slot, xf, margin);
    }

    /// Sets the shape boxes of the compound body in `slot` (if it is one) to its shapes' tight
    /// boxes at `xf` grown by `margin`, and returns their union; a one-shape body's tight box
    /// grown by `margin` otherwise. Leaves the body's own box alone.
    fn refresh_child_aabbs(&mut self, slot: usize, xf: Transform, margin: f32) -> Aabb {
        match &mut self.compound[slot] {
            Some(c) => {
                let mut all: Option<Aabb> = None;
                for (aabb, shape) in c.aabbs.iter_mut().zip(c.shapes.iter()) {
                    *aabb = shape.aabb(xf).fattened(margin);
                    all = Some(all.map_or(*aabb, |a| a.union(aabb)));
                }
                c.tree.refit(&c.aabbs);
                all.unwrap_or_default()
            }
            None => self.shape[slot].aabb(xf).fattened(margin),
        }
    }
}

/// Run-time changes of a body's shapes (`World::add_shape`, `World::remove_shape`).
impl BodyStore {
    /// The body's shapes and their materials, as lists to change.
    pub fn shape_list(&self, slot: usize) -> (Vec<Shape>, Vec<ChildMaterial>) {
        match &self.compound[slot] {
            Some(c) => (c.shapes.to_vec(), c.materials.to_vec()),
            None => (
                vec![self.shape[slot].clone()],
                vec![ChildMaterial {
                    density: self.density[slot],
                    friction: self.friction[slot],
                    restitution: self.restitution[slot],
                    layers: self.layers[slot],
                    mask: self.mask[slot],
                    group: self.group[slot],
                    sensor: self.sensor[slot],
                }],
            ),
        }
    }

    /// Writes the columns the shapes of the body in `slot` decide, but its mass: its first
    /// shape and material in the per-slot columns, the union of the filters, the sensor flags
    /// and counts, and its compound (with more than one shape) or none. Its pose and centre of
    /// mass must be written already (the compound's boxes are placed by them); `reach` is left
    /// to whoever writes the mass.
    /// `had_group`: whether a shape of the body was in a group before (false for a new one).
    pub(super) fn write_shapes(
        &mut self,
        slot: usize,
        shapes: Vec<Shape>,
        materials: Vec<ChildMaterial>,
        had_group: bool,
    ) {
        let first = materials[0];
        let many = shapes.len() > 1;
        self.density[slot] = first.density;
        self.local_box[slot] = LocalBox::of(&shapes[0]);
        self.box_shape[slot] = box_shape(&self.local_box[slot], &shapes[0]).unwrap_or_default();
        self.shape[slot] = shapes[0].clone();
        self.friction[slot] = first.friction;
        self.restitution[slot] = first.restitution;
        self.layers[slot] = materials.iter().fold(0, |l, m| l | m.layers);
        self.mask[slot] = materials.iter().fold(0, |l, m| l | m.mask);
        self.group[slot] = first.group;
        let had_sensor = self.sensor[slot] || self.sensor_parts[slot];
        self.sensor[slot] = first.sensor && !many;
        self.sensor_parts[slot] = many && materials.iter().any(|m| m.sensor);
        let has_sensor = self.sensor[slot] || self.sensor_parts[slot];
        self.sensor_count = self.sensor_count + usize::from(has_sensor) - usize::from(had_sensor);
        self.min_extent[slot] =
            (shapes.iter().map(Shape::smallest_extent)).fold(f32::MAX, f32::min);
        let was_compound = self.compound[slot].is_some();
        self.compound[slot] = many.then(|| {
            let xf = self.transform(slot);
            Box::new(Compound::new(shapes.into(), materials.into(), xf))
        });
        let at = self.compound_slots.partition_point(|&c| c < slot as u32);
        match (was_compound, many) {
            (false, true) => self.compound_slots.insert(at, slot as u32),
            (true, false) => _ = self.compound_slots.remove(at),
            _ => {}
        }
        self.filters_changed(slot, had_group);
    }

    /// `Err` where [`BodyStore::replace_shapes`] would be, and nothing changed either way: for
    /// the world to check a change before it wakes anything.
    pub fn check_shapes(
        &self,
        slot: usize,
        shapes: &[Shape],
        materials: &[ChildMaterial],
    ) -> Result<(), Error> {
        debug_assert!(!shapes.is_empty() && shapes.len() == materials.len());
        let kind = self.body_kind(slot);
        let mass = combined_mass(shapes.iter().zip(materials).map(|(s, m)| (s, m.density)));
        let describe = || "as the body's shapes have it".to_string();
        MassColumns::of(kind, &mass, &self.motion[slot], shapes.iter(), &describe)?;
        let xf = self.transform(slot);
        let center = xf.apply(mass.center);
        for shape in shapes {
            crate::limits::check_placement(shape, xf, center)?;
        }
        Ok(())
    }

    /// Gives the live body in `slot` the shapes `shapes` with `materials` (as many, at least
    /// one) and recomputes its mass data as [`BodyStore::set_mass`] does: the body origin
    /// stays, the centre of mass moves with the shapes and takes the velocity of the body's
    /// point now there. `Err`, with nothing changed, where the body's kind cannot have the
    /// resulting mass (a segment on a dynamic body, a mass that is not positive and finite)
    /// or a shape would lie beyond the range of f32 from the new centre.
    pub fn replace_shapes(
        &mut self,
        slot: usize,
        shapes: Vec<Shape>,
        materials: Vec<ChildMaterial>,
    ) -> Result<(), Error> {
        self.check_shapes(slot, &shapes, &materials)?;
        let xf = self.transform(slot);
        let kind = self.body_kind(slot);
        self.static_changed(slot);
        let had_group = self.has_group(slot);
        self.write_shapes(slot, shapes, materials, had_group);
        // The checks above are those `set_mass` makes, on the same shapes: it cannot fail.
        self.set_mass(slot, kind, None)?;
        self.aabb[slot] = self.refresh_child_aabbs(slot, xf, 0.0);
        Ok(())
    }
}
