//! Read-only views of the store's columns, as the passes read them (by slot, as slices), and
//! the narrow mutable view of the poses and velocities: the store keeps its columns private so
//! that only its own methods write them.

use super::{BodyStore, Compound, SlotKind};
use crate::geometry::math::{Aabb, Rot, Vec2};
use crate::geometry::shape::{LocalBox, Shape};
use batch2d_kernels::bounds::BoxShape;

/// The pose and velocity columns: read through slices by every pass; written one body at a
/// time by the world's setters and the passes that stop or place a body, and all at once by
/// the stage that moves the bodies, through [`PosesMut`].
impl BodyStore {
    /// Per slot, the world position of the centre of mass.
    #[inline]
    pub fn center(&self) -> &[Vec2] {
        &self.center
    }

    /// Per slot, the rotation.
    #[inline]
    pub fn rotation(&self) -> &[Rot] {
        &self.rotation
    }

    /// Per slot, the linear velocity of the centre of mass.
    #[inline]
    pub fn linear_velocity(&self) -> &[Vec2] {
        &self.linear_velocity
    }

    /// Per slot, the angular velocity.
    #[inline]
    pub fn angular_velocity(&self) -> &[f32] {
        &self.angular_velocity
    }

    /// Places the body in `slot`: its centre of mass at `center`, turned by `rotation`. The
    /// caller refreshes its box and counts a static change where it needs to.
    pub fn set_pose(&mut self, slot: usize, center: Vec2, rotation: Rot) {
        self.center[slot] = center;
        self.rotation[slot] = rotation;
    }

    /// Sets the linear velocity of the body in `slot`.
    pub fn set_linear_velocity(&mut self, slot: usize, v: Vec2) {
        self.linear_velocity[slot] = v;
    }

    /// Sets the angular velocity of the body in `slot`.
    pub fn set_angular_velocity(&mut self, slot: usize, w: f32) {
        self.angular_velocity[slot] = w;
    }

    /// The pose and velocity columns, mutably, for the stage that moves every body at once
    /// (the solver writing back its results): only these four, so the mass, shape and slot
    /// columns stay the store's.
    pub fn poses_mut(&mut self) -> PosesMut<'_> {
        PosesMut {
            center: &mut self.center,
            rotation: &mut self.rotation,
            linear_velocity: &mut self.linear_velocity,
            angular_velocity: &mut self.angular_velocity,
        }
    }
}

/// The pose and velocity columns of a [`BodyStore`], borrowed mutably, indexed by slot (see
/// [`BodyStore::poses_mut`]).
pub(crate) struct PosesMut<'a> {
    /// World position of the centre of mass.
    pub center: &'a mut [Vec2],
    pub rotation: &'a mut [Rot],
    pub linear_velocity: &'a mut [Vec2],
    pub angular_velocity: &'a mut [f32],
}

/// Read-only views of the slot columns: a slot's kind, generation and shape change only as
/// the store adds, removes, retypes or reshapes the body, which keeps the free list, the
/// counts and the static-change count in step.
impl BodyStore {
    /// Per slot, the generation: bumped when the slot is freed, so old handles go stale.
    #[inline]
    pub fn generation(&self) -> &[u32] {
        &self.generation
    }

    /// Per slot, the kind of body it holds (`SlotKind::Empty` for a free slot).
    #[inline]
    pub fn kind(&self) -> &[SlotKind] {
        &self.kind
    }

    /// Per slot, the body's box as of the last step (see `update_aabbs`).
    #[inline]
    pub fn aabb(&self) -> &[Aabb] {
        &self.aabb
    }

    /// Per slot, the shapes of a compound body; `None` for a one-shape body.
    #[inline]
    pub fn compounds(&self) -> &[Option<Box<Compound>>] {
        &self.compound
    }

    /// Lends `update` the body boxes to write, with the rest of the store to read: the stage
    /// that recomputes every box at once.
    pub fn update_aabbs_with(&mut self, update: impl FnOnce(&BodyStore, &mut [Aabb])) {
        let mut aabbs = std::mem::take(&mut self.aabb);
        update(self, &mut aabbs);
        self.aabb = aabbs;
    }

    /// Sets the shape boxes of the compound body in `slot`, if it is one, to `shape_box` of
    /// each shape, and the body's box to their union.
    pub fn set_compound_aabbs(&mut self, slot: usize, shape_box: impl Fn(&Shape) -> Aabb) {
        let Some(compound) = self.compound[slot].as_mut() else {
            return;
        };
        let mut all: Option<Aabb> = None;
        for (aabb, shape) in compound.aabbs.iter_mut().zip(compound.shapes.iter()) {
            *aabb = shape_box(shape);
            all = Some(all.map_or(*aabb, |u| u.union(aabb)));
        }
        compound.tree.refit(&compound.aabbs);
        if let Some(all) = all {
            self.aabb[slot] = all;
        }
    }

    /// Per slot, the body's one shape (a compound's first).
    #[inline]
    pub fn shape(&self) -> &[Shape] {
        &self.shape
    }

    /// Slots of the compound bodies, ascending.
    #[inline]
    pub fn compound_slots(&self) -> &[u32] {
        &self.compound_slots
    }
}

/// Read-only views of the mass and shape-extent columns: only the store writes them, when a
/// body is added, its mass set or its shapes replaced, so they always agree with its kind and
/// shapes (a zero inverse mass exactly for the bodies that are not dynamic).
impl BodyStore {
    /// Per slot, the inverse mass: 0 for bodies that are not dynamic.
    #[inline]
    pub fn inv_mass(&self) -> &[f32] {
        &self.inv_mass
    }

    /// Per slot, the inverse rotational inertia about the centre of mass: 0 for bodies that
    /// are not dynamic and those with fixed rotation.
    #[inline]
    pub fn inv_inertia(&self) -> &[f32] {
        &self.inv_inertia
    }

    /// Per slot, the centre of mass in the body frame.
    #[inline]
    pub fn local_center(&self) -> &[Vec2] {
        &self.local_center
    }

    /// Per slot, the gravity scale: 0 for bodies that are not dynamic.
    #[inline]
    pub fn gravity_scale(&self) -> &[f32] {
        &self.gravity_scale
    }

    /// Per slot, the farthest distance from the centre of mass to the shape's surface.
    #[inline]
    pub fn reach(&self) -> &[f32] {
        &self.reach
    }

    /// Per slot, the narrowest width of the shape (over a compound's shapes).
    #[inline]
    pub fn min_extent(&self) -> &[f32] {
        &self.min_extent
    }

    /// Per slot, the shape as the box kernels read it where it is a rectangle or a circle.
    #[inline]
    pub fn box_shape(&self) -> &[BoxShape] {
        &self.box_shape
    }

    /// Per slot, the shape's [`LocalBox`] where it is an axis-aligned rectangle.
    #[inline]
    pub fn local_box(&self) -> &[Option<LocalBox>] {
        &self.local_box
    }
}

/// Read-only views of the material, filter and flag columns: the passes index them by slot,
/// and only the store's own methods write them, so the counts kept beside them (`grouped`,
/// `sensor_count`) and the broadphase filter derived from them stay in step.
impl BodyStore {
    /// Per slot, the friction of the body's one shape (of a compound's first).
    #[inline]
    pub fn friction(&self) -> &[f32] {
        &self.friction
    }

    /// Per slot, the restitution of the body's one shape (of a compound's first).
    #[inline]
    pub fn restitution(&self) -> &[f32] {
        &self.restitution
    }

    /// Per slot, the collision layers (see the field).
    #[inline]
    pub fn layers(&self) -> &[u32] {
        &self.layers
    }

    /// Per slot, the collision mask (see the field).
    #[inline]
    pub fn mask(&self) -> &[u32] {
        &self.mask
    }

    /// Per slot, the group index (see the field).
    #[inline]
    pub fn group(&self) -> &[i32] {
        &self.group
    }

    /// Per slot, the layers the broadphase pairs bodies by (see the field).
    #[inline]
    pub fn broad_layers(&self) -> &[u32] {
        &self.broad_layers
    }

    /// Per slot, the mask the broadphase pairs bodies by (see the field).
    #[inline]
    pub fn broad_mask(&self) -> &[u32] {
        &self.broad_mask
    }

    /// Per slot, the linear damping.
    #[inline]
    pub fn linear_damping(&self) -> &[f32] {
        &self.linear_damping
    }

    /// Per slot, the angular damping.
    #[inline]
    pub fn angular_damping(&self) -> &[f32] {
        &self.angular_damping
    }

    /// Per slot, `BodyDef::bullet`.
    #[inline]
    pub fn bullet(&self) -> &[bool] {
        &self.bullet
    }

    /// Per slot, `BodyDef::allow_fast_rotation`.
    #[inline]
    pub fn fast_rotation(&self) -> &[bool] {
        &self.fast_rotation
    }

    /// Per slot, whether the body's one shape is a sensor.
    #[inline]
    pub fn sensor(&self) -> &[bool] {
        &self.sensor
    }

    /// Per slot, whether the body is a compound with some sensor shapes.
    #[inline]
    pub fn sensor_parts(&self) -> &[bool] {
        &self.sensor_parts
    }

    /// Per slot, the user data (`World::user_data`).
    #[inline]
    pub fn user_data(&self) -> &[u64] {
        &self.user_data
    }

    /// Sets the user data of the body in `slot`.
    pub fn set_user_data(&mut self, slot: usize, data: u64) {
        self.user_data[slot] = data;
    }

    /// Whether any live body has a sensor (a sensor body or a compound with sensor shapes):
    /// without one, the sensor pass is skipped.
    pub fn any_sensor(&self) -> bool {
        self.sensor_count > 0
    }

    /// Whether any live body has a shape in a group: without one, no pass tests groups.
    pub fn any_grouped(&self) -> bool {
        self.grouped > 0
    }
}
