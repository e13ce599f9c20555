//! The structure-of-arrays store of bodies behind `BodyId` (their builders are in `body_def`).
//!
//! A body occupies a slot; every field is a column indexed by slot. Removing a body leaves a
//! hole that a later body reuses with a new generation, so other handles never move and
//! iteration in slot order is deterministic.

use crate::body_def::{BodyDef, BodyKind, ShapeDef};
use crate::codec::{
    clone_fields, codec_struct, invalid as invalid_snapshot, Codec, Reader, Writer,
};
use crate::error::{check_non_negative, Error};
use crate::geometry::box_tree::BoxTree;
use crate::geometry::math::{Aabb, Rot, Transform, Vec2};
use crate::geometry::shape::{LocalBox, MassData, Shape, MAX_COMPOUND_SHAPES};
use crate::index::BodySlot;
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

/// The material and filter of one shape of a compound body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChildMaterial {
    /// kg/m², what the shape's mass is computed from.
    pub density: f32,
    pub friction: f32,
    pub restitution: f32,
    pub layers: u32,
    pub mask: u32,
    pub group: i32,
    /// A sensor shape: it collides with nothing and reports overlaps for its body.
    pub sensor: bool,
}

impl ChildMaterial {
    /// The material of a shape definition.
    pub fn of(s: &ShapeDef) -> ChildMaterial {
        ChildMaterial {
            density: s.density,
            friction: s.friction,
            restitution: s.restitution,
            layers: s.layers,
            mask: s.mask,
            group: s.group,
            sensor: s.sensor,
        }
    }
}

/// The shapes of a body that has more than one (see `World::add_compound_body`), kept out of
/// the per-slot columns so that one-shape bodies read exactly what they read before.
#[derive(Debug)]
pub(crate) struct Compound {
    /// The shapes in the body frame, in the order they were given.
    pub shapes: Box<[Shape]>,
    /// `materials[i]` belongs to `shapes[i]`.
    pub materials: Box<[ChildMaterial]>,
    /// `aabbs[i]`: the broadphase box of `shapes[i]` (grown and swept like the body's) of the
    /// last step, or its tight box after the body was added or moved; their union is the
    /// body's box.
    pub aabbs: Box<[Aabb]>,
    /// The tree over `aabbs` that finds the shapes near a box (built from the shapes' boxes
    /// in the body frame, refitted whenever `aabbs` change): not saved, rebuilt from the
    /// shapes.
    pub tree: BoxTree,
}

clone_fields!(Compound {
    shapes,
    materials,
    aabbs,
    tree,
});

impl Compound {
    /// A compound of `shapes` with `materials`, its boxes the shapes' tight boxes at `xf`.
    pub fn new(shapes: Box<[Shape]>, materials: Box<[ChildMaterial]>, xf: Transform) -> Compound {
        let local: Vec<Aabb> = shapes.iter().map(|s| s.aabb(Transform::IDENTITY)).collect();
        let mut tree = BoxTree::build(&local);
        let aabbs: Box<[Aabb]> = shapes.iter().map(|s| s.aabb(xf)).collect();
        tree.refit(&aabbs);
        Compound {
            shapes,
            materials,
            aabbs,
            tree,
        }
    }

    /// Appends to `out`, ascending, the shapes whose boxes overlap `region`.
    pub fn shapes_near(&self, region: &Aabb, out: &mut Vec<u32>) {
        self.tree.query(&self.aabbs, region, out);
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
/// the store's methods or the narrow views it lends ([`PosesMut`], `update_aabbs_with`), which
/// keep the counts and derived columns beside them in step.
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

    fn push_empty_slot(&mut self) {
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

    pub fn is_kinematic(&self, slot: usize) -> bool {
        self.kind[slot] == SlotKind::Kinematic
    }
}

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

/// What a body's definition asks of its motion as a dynamic body ([`BodyDef::gravity_scale`],
/// the dampings and [`BodyDef::fixed_rotation`]). Static and kinematic bodies ignore it, and
/// keep it for when they become dynamic.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Motion {
    pub gravity_scale: f32,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub fixed_rotation: bool,
}

/// The mass data of a body made of `shapes`, each with its density, in the body frame: one
/// shape's own, several combined ([`MassData::combine`]).
fn combined_mass<'a>(mut shapes: impl ExactSizeIterator<Item = (&'a Shape, f32)>) -> MassData {
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
struct MassColumns {
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
    fn of<'a>(
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
    fn write_columns(&mut self, slot: usize, c: &MassColumns) {
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
    fn write_shapes(
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

/// Saves every slot: a free one by its generation alone, a body by what it was made with and
/// its motion since. The columns a body's shapes decide (`local_box`, `reach`, `min_extent`),
/// the counts and the list of compound slots are rebuilt on reading, by the code that made
/// them, so they come back bit for bit; `static_boxes_at` is forgotten, so the next step
/// grows the static bodies' boxes afresh, to the same bits.
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

/// Collision filters: layers, masks and groups.
impl BodyStore {
    /// Group index of shape `child` of the body in `slot`.
    pub fn child_group(&self, slot: usize, child: usize) -> i32 {
        match &self.compound[slot] {
            Some(c) => c.materials[child].group,
            None => self.group[slot],
        }
    }

    /// Whether a shape of the body in `slot` is in a group.
    fn has_group(&self, slot: usize) -> bool {
        (0..self.shapes(slot).len()).any(|c| self.child_group(slot, c) != 0)
    }

    /// Box2D's filter for shape `ca` of the body in `a` and shape `cb` of the body in `b`:
    /// the same group decides where there is one (negative: never, positive: always), the
    /// layers and masks otherwise.
    pub fn shapes_collide(&self, a: usize, ca: usize, b: usize, cb: usize) -> bool {
        let (ga, gb) = (self.child_group(a, ca), self.child_group(b, cb));
        if ga == gb && ga != 0 {
            return ga > 0;
        }
        let ((layers_a, mask_a), (layers_b, mask_b)) =
            (self.child_filter(a, ca), self.child_filter(b, cb));
        layers_a & mask_b != 0 && layers_b & mask_a != 0
    }

    /// Whether some shape of the body in `a` may collide with some shape of the body in `b`
    /// by their filters ([`BodyStore::shapes_collide`]).
    pub fn bodies_collide(&self, a: usize, b: usize) -> bool {
        let (na, nb) = (self.shapes(a).len(), self.shapes(b).len());
        (0..na).any(|ca| (0..nb).any(|cb| self.shapes_collide(a, ca, b, cb)))
    }

    /// Gives every shape of the body in `slot` the layers, mask and group.
    pub fn set_filter(&mut self, slot: usize, layers: u32, mask: u32, group: i32) {
        let had = self.has_group(slot);
        if let Some(c) = &mut self.compound[slot] {
            for m in c.materials.iter_mut() {
                (m.layers, m.mask, m.group) = (layers, mask, group);
            }
        }
        (self.layers[slot], self.mask[slot], self.group[slot]) = (layers, mask, group);
        self.filters_changed(slot, had);
    }

    /// Brings the body's broadphase filter and the count of grouped bodies up to date after
    /// its shapes' filters changed (`had`: whether a shape was in a group before).
    fn filters_changed(&mut self, slot: usize, had: bool) {
        let has = self.has_group(slot);
        self.grouped = self.grouped + usize::from(has) - usize::from(had);
        let positive = (0..self.shapes(slot).len()).any(|c| self.child_group(slot, c) > 0);
        (self.broad_layers[slot], self.broad_mask[slot]) = match positive {
            true => (u32::MAX, u32::MAX),
            false => (self.layers[slot], self.mask[slot]),
        };
    }
}
impl Codec for Compound {
    const MIN_SIZE: usize = 24;
    fn encode(&self, w: &mut Writer) {
        let Compound {
            shapes,
            materials,
            aabbs,
            tree: _,
        } = self;
        shapes.encode(w);
        materials.encode(w);
        aabbs.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let shapes: Box<[Shape]> = Codec::decode(r)?;
        let materials = Codec::decode(r)?;
        let aabbs: Box<[Aabb]> = Codec::decode(r)?;
        if aabbs.len() != shapes.len() {
            return Err(invalid_snapshot(format!(
                "a compound of {} shapes with {} boxes",
                shapes.len(),
                aabbs.len()
            )));
        }
        let mut c = Compound::new(shapes, materials, Transform::IDENTITY);
        c.aabbs = aabbs;
        c.tree.refit(&c.aabbs);
        Ok(c)
    }
}

codec_struct!(ChildMaterial {
    density,
    friction,
    restitution,
    layers,
    mask,
    group,
    sensor
});

codec_struct!(Motion {
    gravity_scale,
    linear_damping,
    angular_damping,
    fixed_rotation
});

codec_struct!(BodyId {
    world,
    slot,
    generation
});
