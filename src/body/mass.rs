//! A body's mass: the mass data of its shapes, the solver columns its kind and mass decide,
//! and the run-time changes of kind and density, all checked before anything changes.

use super::{BodyStore, Motion, SlotKind};
use crate::body_def::BodyKind;
use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::geometry::shape::{MassData, Shape};

/// The mass data of a body made of `shapes`, each with its density, in the body frame: one
/// shape's own, several combined ([`MassData::combine`]).
pub(super) fn combined_mass<'a>(
    mut shapes: impl ExactSizeIterator<Item = (&'a Shape, f32)>,
) -> MassData {
    // One shape, as most bodies have, without a list to combine.
    if shapes.len() == 1 {
        let (shape, density) = shapes.next().expect("one shape");
        return shape.mass_data(density);
    }
    let parts: Vec<MassData> = shapes.map(|(s, density)| s.mass_data(density)).collect();
    MassData::combine(&parts)
}

/// The columns a body's kind and mass decide: what the solver reads of it.
#[derive(Clone, Copy, Debug)]
pub(super) struct MassColumns {
    kind: SlotKind,
    inv_mass: f32,
    inv_inertia: f32,
    gravity_scale: f32,
    damping: (f32, f32),
}

impl MassColumns {
    /// The columns of a `kind` body of `mass` made of `shapes`, or why a dynamic one cannot
    /// be (a segment, a mass that is not positive and finite, too heavy or too light);
    /// `densities` describes the densities for the message. Gravity and damping act on dynamic
    /// bodies only: a kinematic body keeps its velocity.
    pub(super) fn of<'a>(
        kind: BodyKind,
        mass: &MassData,
        motion: &Motion,
        mut shapes: impl Iterator<Item = &'a Shape>,
        densities: &dyn Fn() -> String,
    ) -> Result<MassColumns, Error> {
        let none = |kind| MassColumns {
            kind,
            inv_mass: 0.0,
            inv_inertia: 0.0,
            gravity_scale: 0.0,
            damping: (0.0, 0.0),
        };
        match kind {
            BodyKind::Fixed => return Ok(none(SlotKind::Fixed)),
            BodyKind::Kinematic => return Ok(none(SlotKind::Kinematic)),
            BodyKind::Dynamic => {}
        }
        if shapes.any(Shape::is_segment) {
            return Err(Error::InvalidShape(
                "a segment has no area: only static and kinematic bodies may use it".into(),
            ));
        }
        if !(mass.mass > 0.0 && mass.mass.is_finite()) {
            return Err(Error::InvalidParameter(format!(
                "a dynamic body needs a positive finite mass, got {} (density {})",
                mass.mass,
                densities()
            )));
        }
        crate::limits::check_mass(mass.mass)?;
        let inv_inertia = if motion.fixed_rotation || mass.rotational_inertia <= 0.0 {
            0.0
        } else {
            1.0 / mass.rotational_inertia
        };
        // A mass or inertia below ~3e-39 (subnormal) has no finite inverse.
        if !((1.0 / mass.mass).is_finite() && inv_inertia.is_finite()) {
            return Err(Error::InvalidParameter(format!(
                "a dynamic body this light cannot be simulated: mass {}, rotational inertia {}",
                mass.mass, mass.rotational_inertia
            )));
        }
        Ok(MassColumns {
            kind: SlotKind::Dynamic,
            inv_mass: 1.0 / mass.mass,
            inv_inertia,
            gravity_scale: motion.gravity_scale,
            damping: (motion.linear_damping, motion.angular_damping),
        })
    }
}

/// Run-time changes of a body's kind and mass.
impl BodyStore {
    pub(super) fn write_columns(&mut self, slot: usize, c: &MassColumns) {
        self.mass_changes += 1;
        self.kind[slot] = c.kind;
        self.inv_mass[slot] = c.inv_mass;
        self.inv_inertia[slot] = c.inv_inertia;
        self.gravity_scale[slot] = c.gravity_scale;
        (self.linear_damping[slot], self.angular_damping[slot]) = c.damping;
    }

    /// The mass data of the body in `slot` from its shapes and their densities, or with
    /// every shape's density `density` where that is given.
    pub fn mass_data(&self, slot: usize, density: Option<f32>) -> MassData {
        let shapes = self.shapes(slot);
        match &self.compound[slot] {
            Some(c) => combined_mass(
                shapes
                    .iter()
                    .zip(c.materials.iter())
                    .map(|(s, m)| (s, density.unwrap_or(m.density))),
            ),
            None => shapes[0].mass_data(density.unwrap_or(self.density[slot])),
        }
    }

    /// `Err` where [`BodyStore::set_mass`] would be, and nothing changed either way: for the
    /// world to check a change before it wakes anything.
    pub fn check_mass(
        &self,
        slot: usize,
        kind: BodyKind,
        density: Option<f32>,
    ) -> Result<(), Error> {
        self.mass_for(slot, kind, density).map(|_| ())
    }

    /// The mass data and columns of the body in `slot` as a `kind` body with every shape of
    /// density `density` where that is given, or why it cannot be.
    fn mass_for(
        &self,
        slot: usize,
        kind: BodyKind,
        density: Option<f32>,
    ) -> Result<(MassData, MassColumns), Error> {
        let mass = self.mass_data(slot, density);
        let describe = || match density {
            Some(d) => d.to_string(),
            None => "as the body's shapes have it".into(),
        };
        let shapes = self.shapes(slot).iter();
        let columns = MassColumns::of(kind, &mass, &self.motion[slot], shapes, &describe)?;
        let xf = self.transform(slot);
        let center = xf.apply(mass.center);
        for shape in self.shapes(slot) {
            crate::limits::check_placement(shape, xf, center)?;
        }
        Ok((mass, columns))
    }

    /// Makes the body in `slot` a `kind` body, every shape of density `density` where that is
    /// given, and recomputes its mass data. The body origin stays where it is: a centre of
    /// mass that moves in the body frame moves in the world, and its velocity becomes that of
    /// the body's point now at its centre (so that no point of the body changes speed). A body
    /// made static stops. `Err`, with nothing changed, where a dynamic body cannot have the
    /// resulting mass (see `MassColumns::of`) or the new centre would lie beyond the range of
    /// f32.
    pub fn set_mass(
        &mut self,
        slot: usize,
        kind: BodyKind,
        density: Option<f32>,
    ) -> Result<(), Error> {
        let (mass, columns) = self.mass_for(slot, kind, density)?;
        let xf = self.transform(slot);
        let center = xf.apply(mass.center);
        let motion = self.motion[slot];
        self.static_changed(slot);
        let w = self.angular_velocity[slot];
        let moved = center - self.center[slot];
        self.linear_velocity[slot] += Vec2::new(-w * moved.y, w * moved.x);
        self.write_columns(slot, &columns);
        if let Some(d) = density {
            self.density[slot] = d;
            if let Some(c) = &mut self.compound[slot] {
                c.materials.iter_mut().for_each(|m| m.density = d);
            }
        }
        self.center[slot] = center;
        self.local_center[slot] = mass.center;
        self.reach[slot] = (self.shapes(slot).iter())
            .map(|s| s.reach_from(mass.center))
            .fold(0.0, f32::max);
        match kind {
            BodyKind::Fixed => {
                self.linear_velocity[slot] = Vec2::ZERO;
                self.angular_velocity[slot] = 0.0;
            }
            BodyKind::Dynamic if motion.fixed_rotation => self.angular_velocity[slot] = 0.0,
            _ => {}
        }
        self.static_changed(slot);
        Ok(())
    }
}
