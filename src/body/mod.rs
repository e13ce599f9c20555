//! The structure-of-arrays store of bodies behind `BodyId` (their builders are in `body_def`).
//!
//! A body occupies a slot; every field is a column indexed by slot. Removing a body leaves a
//! hole that a later body reuses with a new generation, so other handles never move and
//! iteration in slot order is deterministic.
//!
//! This file holds the handle, the slot kinds and the store's columns with what reads a slot
//! as a whole; what adds and removes bodies (`slots`), the column views (`columns`), mass
//! (`mass`), shapes (`shapes`), filters (`filter`), compound bodies (`compound`) and the
//! snapshot form (`codec`) each have their file, the store's parts as an `impl BodyStore` of
//! their own.

mod codec;
mod columns;
mod compound;
mod filter;
mod mass;
mod shapes;
mod slots;

pub(crate) use compound::{ChildMaterial, Compound};

use crate::body_def::BodyKind;
use crate::codec::{clone_fields, codec_struct};
use crate::error::Error;
use crate::geometry::math::{Aabb, Rot, Transform, Vec2};
use crate::geometry::shape::{LocalBox, Shape};
use crate::index::{BodySlot, Stamp};
use batch2d_kernels::bounds::BoxShape;
use std::sync::atomic::{AtomicU32, Ordering};

/// Handle of a body. Stays valid until the body is removed; a removed or foreign handle gives
/// `Err(Error::InvalidBody)`. With the `serde` feature it serializes as its world, slot and
/// generation: it names a body of the world it came from, of that world's clones and of the
/// worlds restored from its snapshots, and no other world's.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId {
    world: u32,
    slot: u32,
    generation: u32,
}

impl BodyId {
    /// The slot of the body: its index in every per-body column (reused after removal).
    pub fn slot(self) -> u32 {
        self.slot
    }
}

/// Gives each store a distinct id so handles of one world are rejected by another.
static NEXT_WORLD_ID: AtomicU32 = AtomicU32::new(1);

/// What a body slot holds, as the stages read it: no body, or a body of one of the three
/// [`BodyKind`]s. The body store's `kind` column; a stage's own copy of it may mark more slots
/// `Empty` (the broadphase's marks the sleeping bodies, which it does not pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum SlotKind {
    /// No body: a free slot, never paired.
    Empty = 0,
    /// A fixed body: it never moves.
    Fixed = 1,
    /// A body moved by its velocity only, unaffected by contacts.
    Kinematic = 2,
    /// A body moved by forces and contacts.
    Dynamic = 3,
}

/// Structure-of-arrays storage of all bodies, indexed by slot. Its columns and methods take a
/// slot as the `usize` of [`BodySlot::index`]: the world and the broadphase index columns with
/// it directly. The columns are private: the passes read them as slices and write them through
/// the store's methods or the narrow views it lends ([`PosesMut`](columns::PosesMut),
/// `update_aabbs_with`), which keep the counts and derived columns beside them in step.
#[derive(Debug)]
pub(crate) struct BodyStore {
    world: u32,
    generation: Vec<u32>,
    /// `SlotKind::Empty` marks a free slot.
    kind: Vec<SlotKind>,
    /// World position of the centre of mass.
    center: Vec<Vec2>,
    rotation: Vec<Rot>,
    /// Centre of mass in the body frame.
    local_center: Vec<Vec2>,
    linear_velocity: Vec<Vec2>,
    angular_velocity: Vec<f32>,
    inv_mass: Vec<f32>,
    inv_inertia: Vec<f32>,
    /// Gravity scale, 0 for static and kinematic bodies so integration can treat all alike.
    gravity_scale: Vec<f32>,
    /// The motion the body's definition asked for as a dynamic body, kept whatever its kind is
    /// now: what `set_mass` restores when the body becomes dynamic.
    motion: Vec<Motion>,
    /// Density (kg/m²) of the body's one shape; a compound body keeps each shape's in its
    /// [`ChildMaterial`] and here that of its first shape.
    density: Vec<f32>,
    linear_damping: Vec<f32>,
    angular_damping: Vec<f32>,
    shape: Vec<Shape>,
    /// The shape's [`LocalBox`] where it is an axis-aligned rectangle (for a compound body, of
    /// the first shape, as `shape`).
    local_box: Vec<Option<LocalBox>>,
    /// The shape as the box kernels read it where it is a rectangle or a circle (see
    /// `geometry::shape::box_shape`), zeros for any other: read in place, a chunk of bodies
    /// at a time, every step.
    box_shape: Vec<BoxShape>,
    friction: Vec<f32>,
    restitution: Vec<f32>,
    layers: Vec<u32>,
    mask: Vec<u32>,
    /// Group index of the body's one shape (`ShapeDef::group`); of a compound body's first
    /// shape, each shape's being in its [`ChildMaterial`].
    group: Vec<i32>,
    /// Number of live bodies with a shape in a group: while it is 0, no pass tests groups.
    grouped: usize,
    /// The layers and mask the broadphase pairs bodies by: `layers` and `mask`, except all
    /// bits for a body with a shape in a positive group, which may collide whatever the
    /// layers say (the pairs then pass the exact test, [`BodyStore::shapes_collide`]).
    broad_layers: Vec<u32>,
    broad_mask: Vec<u32>,
    aabb: Vec<Aabb>,
    /// Farthest distance from the centre of mass to the shape's surface: bounds how far any
    /// point of the body moves when it turns.
    reach: Vec<f32>,
    /// `BodyDef::bullet`.
    bullet: Vec<bool>,
    /// `BodyDef::allow_fast_rotation`.
    fast_rotation: Vec<bool>,
    /// `BodyDef::user_data`, or what `World::set_user_data` set since.
    user_data: Vec<u64>,
    /// Whether the body's one shape is a sensor (`ShapeDef::sensor`).
    sensor: Vec<bool>,
    /// Whether the body is a compound with some sensor shapes (see `ChildMaterial::sensor`).
    sensor_parts: Vec<bool>,
    /// Number of live bodies with a sensor: sensor bodies and compounds with sensor shapes.
    sensor_count: usize,
    /// Whether the body is disabled (`World::set_enabled`): kept, but out of the step and the
    /// queries. Private with `disabled_count`, which `set_disabled` keeps equal to the number
    /// of disabled bodies.
    disabled: Vec<bool>,
    /// Number of disabled bodies: the passes that leave them out cost nothing while it is 0.
    disabled_count: usize,
    /// Narrowest width of the shape: continuous collision sweeps bodies that move more
    /// than half of it in a step. For a compound body, the narrowest over its shapes.
    min_extent: Vec<f32>,
    /// The shapes of bodies with more than one; `None` for one-shape bodies, which keep their
    /// shape and material in `shape`, `friction`, `restitution`, `layers` and `mask`. A
    /// compound body's `shape` column holds its first shape, `friction` and `restitution`
    /// those of its first shape, and `layers` and `mask` the union over its shapes (what the
    /// broadphase filters body pairs by before the narrowphase filters shape pairs).
    compound: Vec<Option<Box<Compound>>>,
    /// Slots of the compound bodies, ascending: the passes that only compounds need visit these
    /// and nothing when there are none. Raw `u32`: the broadphase, whose code keeps raw slots,
    /// reads them.
    compound_slots: Vec<u32>,
    /// How many times the static bodies' boxes have changed: a static body added, moved or
    /// removed, or the boxes grown by a new margin. Static bodies do not move by themselves,
    /// so the passes that keep something of them from step to step (their boxes, the
    /// broadphase's and continuous collision's grids of them) redo it only when this changes.
    /// Private, with `static_boxes_at`: it only grows, by `static_changed` and
    /// `static_boxes_current`, so a pass that saw a value and sees it again knows nothing
    /// static changed in between.
    static_changes: u64,
    /// `(static_changes, margin bits)` as of the last step that grew the static bodies' boxes
    /// in `aabb` (see `update_aabbs`).
    static_boxes_at: Option<(u64, u32)>,
    /// The version of which slots hold a body, and of each body's kind, mass columns
    /// (`inv_mass`, `inv_inertia`, `gravity_scale`, `local_center`, `reach`) and enabled flag.
    /// Drawn afresh at every change of these, so that what the solver derives from them alone
    /// (the joints' trees and coloring, the packed contacts' body constants) is found again
    /// only then.
    mass_stamp: Stamp,
    /// Free slots, reused last freed first.
    free: Vec<BodySlot>,
    count: usize,
}

// Restoring a snapshot copies into the columns the world has: see `clone_fields!`.
clone_fields!(BodyStore {
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
    motion,
    density,
    linear_damping,
    angular_damping,
    shape,
    local_box,
    box_shape,
    friction,
    restitution,
    layers,
    mask,
    group,
    grouped,
    broad_layers,
    broad_mask,
    aabb,
    reach,
    bullet,
    fast_rotation,
    user_data,
    sensor,
    sensor_parts,
    sensor_count,
    disabled,
    disabled_count,
    min_extent,
    compound,
    compound_slots,
    static_changes,
    static_boxes_at,
    mass_stamp,
    free,
    count,
});

impl BodyStore {
    pub fn new() -> BodyStore {
        BodyStore {
            world: NEXT_WORLD_ID.fetch_add(1, Ordering::Relaxed),
            generation: Vec::new(),
            kind: Vec::new(),
            center: Vec::new(),
            rotation: Vec::new(),
            local_center: Vec::new(),
            linear_velocity: Vec::new(),
            angular_velocity: Vec::new(),
            inv_mass: Vec::new(),
            inv_inertia: Vec::new(),
            gravity_scale: Vec::new(),
            motion: Vec::new(),
            density: Vec::new(),
            linear_damping: Vec::new(),
            angular_damping: Vec::new(),
            shape: Vec::new(),
            local_box: Vec::new(),
            box_shape: Vec::new(),
            friction: Vec::new(),
            restitution: Vec::new(),
            layers: Vec::new(),
            mask: Vec::new(),
            group: Vec::new(),
            grouped: 0,
            broad_layers: Vec::new(),
            broad_mask: Vec::new(),
            aabb: Vec::new(),
            reach: Vec::new(),
            bullet: Vec::new(),
            fast_rotation: Vec::new(),
            user_data: Vec::new(),
            sensor: Vec::new(),
            sensor_parts: Vec::new(),
            sensor_count: 0,
            disabled: Vec::new(),
            disabled_count: 0,
            min_extent: Vec::new(),
            compound: Vec::new(),
            compound_slots: Vec::new(),
            static_changes: 0,
            static_boxes_at: None,
            mass_stamp: Stamp::fresh(),
            free: Vec::new(),
            count: 0,
        }
    }

    /// Number of live bodies.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Number of slots, live or free.
    pub fn slots(&self) -> usize {
        self.kind.len()
    }

    /// The slot of a live body, or `InvalidBody`.
    pub fn slot(&self, id: BodyId) -> Result<usize, Error> {
        let s = id.slot as usize;
        if id.world == self.world
            && s < self.slots()
            && self.generation[s] == id.generation
            && self.kind[s] != SlotKind::Empty
        {
            Ok(s)
        } else {
            Err(Error::InvalidBody)
        }
    }

    /// The handle of the live body in `slot`.
    pub fn id(&self, slot: usize) -> BodyId {
        BodyId {
            world: self.world,
            slot: slot as u32,
            generation: self.generation[slot],
        }
    }

    /// Handles of live bodies in slot order.
    pub fn ids(&self) -> impl Iterator<Item = BodyId> + '_ {
        (0..self.slots())
            .filter(|&s| self.kind[s] != SlotKind::Empty)
            .map(|s| self.id(s))
    }

    /// Whether an angular velocity may be set: kinematic bodies and dynamic ones without fixed
    /// rotation (whose only zero inverse inertia it is).
    pub fn can_turn(&self, slot: usize) -> bool {
        match self.kind[slot] {
            SlotKind::Kinematic => true,
            SlotKind::Dynamic => self.inv_inertia[slot] > 0.0,
            _ => false,
        }
    }

    /// Transform of the body origin (where the shape is defined).
    pub fn transform(&self, slot: usize) -> Transform {
        let q = self.rotation[slot];
        Transform::new(self.center[slot] - q.rotate(self.local_center[slot]), q)
    }

    /// The kind of the live body in `slot`.
    pub fn body_kind(&self, slot: usize) -> BodyKind {
        match self.kind[slot] {
            SlotKind::Fixed => BodyKind::Fixed,
            SlotKind::Kinematic => BodyKind::Kinematic,
            SlotKind::Dynamic => BodyKind::Dynamic,
            SlotKind::Empty => unreachable!("slot {slot} holds no body"),
        }
    }

    /// Whether `slot` holds a body that takes part in the step and the queries: a live body
    /// that is not disabled.
    pub fn is_active(&self, slot: usize) -> bool {
        self.kind[slot] != SlotKind::Empty && !self.disabled[slot]
    }

    /// Whether the body in `slot` is disabled (`World::set_enabled`).
    pub fn is_disabled(&self, slot: usize) -> bool {
        self.disabled[slot]
    }

    /// Per slot, whether the body is disabled.
    pub fn disabled(&self) -> &[bool] {
        &self.disabled
    }

    /// Whether any body is disabled: without one, the passes that leave disabled bodies out
    /// can be skipped.
    pub fn any_disabled(&self) -> bool {
        self.disabled_count > 0
    }

    /// Disables the body in `slot`, or enables it again, and counts it.
    pub fn set_disabled(&mut self, slot: usize, disabled: bool) {
        if self.disabled[slot] != disabled {
            self.disabled[slot] = disabled;
            self.mass_stamp = Stamp::fresh();
            if disabled {
                self.disabled_count += 1;
            } else {
                self.disabled_count -= 1;
            }
        }
    }

    /// Whether either body of a joint is disabled (`b` may be `BodySlot::NONE`, a mouse
    /// joint's missing body).
    pub fn either_disabled(&self, a: BodySlot, b: BodySlot) -> bool {
        let disabled = |s: BodySlot| s != BodySlot::NONE && self.disabled[s.index()];
        self.disabled_count > 0 && (disabled(a) || disabled(b))
    }

    pub fn is_dynamic(&self, slot: usize) -> bool {
        self.kind[slot] == SlotKind::Dynamic
    }
}

/// What a body's definition asks of its motion as a dynamic body
/// ([`BodyDef::gravity_scale`](crate::BodyDef::gravity_scale), the dampings and
/// [`BodyDef::fixed_rotation`](crate::BodyDef::fixed_rotation)). Static and kinematic bodies
/// ignore it, and keep it for when they become dynamic.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Motion {
    pub gravity_scale: f32,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub fixed_rotation: bool,
}

codec_struct!(Motion {
    gravity_scale,
    linear_damping,
    angular_damping,
    fixed_rotation
});
