//! The world's joints by slot, their handles, and what the step derives from them.

use crate::body::BodyStore;
use crate::codec::{invalid, Codec, Reader, Writer};
use crate::error::Error;
use crate::index::{BodySlot, Stamp};
use crate::joints::batches::{JointBatches, LayoutKey};
use crate::joints::joint::{Joint, JointEvent, JointId, JointKind, Slot};
use crate::joints::passes::{rigid_softness, Passes};
use crate::settings::WorldSettings;
use crate::softness::Softness;
use std::sync::atomic::{AtomicU32, Ordering};

/// Gives each store a distinct id so handles of one world are rejected by another.
static NEXT_STORE_ID: AtomicU32 = AtomicU32::new(1);

/// The world's joints, by slot; removed joints leave holes that later joints reuse.
#[derive(Clone)]
pub(crate) struct JointStore {
    world: u32,
    pub(crate) slots: Vec<Slot>,
    free: Vec<u32>,
    count: usize,
    /// Per body slot: whether the body has a joint (valid after [`JointStore::refresh`]).
    pub jointed: Vec<bool>,
    /// The bodies of every joint with two, neither of them disabled, in joint slot order
    /// (after `refresh`).
    pub pairs: Vec<(BodySlot, BodySlot)>,
    /// The body pairs, lower slot first, of the joints whose bodies do not collide, sorted
    /// (after `refresh`). Raw `u32` slots, as the broadphase's pairs they filter.
    no_collide: Vec<(u32, u32)>,
    /// Whether a joint came or went since `no_collide` was sorted: a joint's bodies and
    /// whether they collide are fixed when it is made, and sorting the pairs of a large
    /// jointed scene every step took a tenth of its step, all on one thread.
    no_collide_stale: bool,
    /// The version of the joints: drawn afresh whenever one is added, removed or may have
    /// changed (`get_mut`), so that the step finds the joints' trees and colors them again
    /// only then.
    stamp: Stamp,
    /// The joints' stamp and the bodies' `mass_stamp` that `jointed` and `pairs` were made
    /// for.
    refreshed: Option<(Stamp, Stamp)>,
    /// Whether some joint has a break force or torque (after `refresh`): without one, no
    /// joint's reaction need be measured after the step.
    breakable: bool,
    /// Substep length of the last step and its inverse (impulses per substep to forces).
    pub h: f32,
    pub inv_h: f32,
    /// The rigid constraints' softness for the last step's substeps.
    pub rigid: Softness,
    /// The step's joints in color order, as the passes read them (see `batches`).
    pub batches: JointBatches,
    /// The joints that passed their break force or torque in the last step, in slot order.
    pub events: Vec<JointEvent>,
}

impl Default for JointStore {
    fn default() -> Self {
        JointStore {
            world: NEXT_STORE_ID.fetch_add(1, Ordering::Relaxed),
            slots: Vec::new(),
            free: Vec::new(),
            count: 0,
            jointed: Vec::new(),
            pairs: Vec::new(),
            no_collide: Vec::new(),
            no_collide_stale: true,
            stamp: Stamp::fresh(),
            refreshed: None,
            breakable: false,
            h: 0.0,
            inv_h: 0.0,
            rigid: Softness::default(),
            batches: JointBatches::default(),
            events: Vec::new(),
        }
    }
}

impl JointStore {
    /// The version of the joints (see the field).
    pub fn stamp(&self) -> Stamp {
        self.stamp
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.count
    }

    /// The live joint `id` names. `Err(InvalidJoint)` for a stale or foreign handle.
    pub fn get(&self, id: JointId) -> Result<&Joint, Error> {
        match self.slots.get(id.slot as usize) {
            Some(Slot {
                generation,
                joint: Some(j),
            }) if id.world == self.world && *generation == id.generation => Ok(j),
            _ => Err(Error::InvalidJoint),
        }
    }

    /// The live joint `id` names, to change: the joints get a new stamp. `Err(InvalidJoint)`
    /// for a stale or foreign handle.
    pub fn get_mut(&mut self, id: JointId) -> Result<&mut Joint, Error> {
        self.get(id)?;
        self.stamp = Stamp::fresh();
        Ok(self.slots[id.slot as usize]
            .joint
            .as_mut()
            .expect("checked above"))
    }

    pub fn insert(&mut self, joint: Joint) -> JointId {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot::default());
                self.slots.len() as u32 - 1
            }
        };
        let s = &mut self.slots[slot as usize];
        s.joint = Some(joint);
        self.count += 1;
        self.stamp = Stamp::fresh();
        self.no_collide_stale = true;
        JointId {
            world: self.world,
            slot,
            generation: s.generation,
        }
    }

    /// Removes the joint `id`. `Err(InvalidJoint)` for a stale or foreign handle.
    pub fn take(&mut self, id: JointId) -> Result<Joint, Error> {
        self.get(id)?;
        Ok(self.remove(id.slot).expect("checked above"))
    }

    fn remove(&mut self, slot: u32) -> Option<Joint> {
        let s = &mut self.slots[slot as usize];
        let joint = s.joint.take()?;
        s.generation = s.generation.wrapping_add(1);
        self.free.push(slot);
        self.count -= 1;
        self.no_collide_stale = true;
        self.stamp = Stamp::fresh();
        Some(joint)
    }

    /// Lists in `events`, in slot order, the joints solved in the last step (see
    /// `JointBatches::solved`) whose reaction force or torque passed their break threshold.
    pub fn find_breaks(&mut self, bodies: &BodyStore) {
        self.events.clear();
        if !self.breakable {
            return;
        }
        for (slot, s) in self.slots.iter().enumerate() {
            let Some(joint) = &s.joint else { continue };
            if !joint.breakable() || !self.batches.solved(slot) {
                continue;
            }
            let (force, torque) = joint.reaction(bodies, self.inv_h);
            if force.length() > joint.break_force || torque.abs() > joint.break_torque {
                self.events.push(JointEvent {
                    joint: JointId {
                        world: self.world,
                        slot: slot as u32,
                        generation: s.generation,
                    },
                    force,
                    torque,
                });
            }
        }
    }

    /// Removes every joint of the body in `slot`.
    pub fn remove_body(&mut self, slot: BodySlot) {
        for i in 0..self.slots.len() as u32 {
            if let Some(j) = &self.slots[i as usize].joint {
                if j.a == slot || j.b == slot {
                    self.remove(i);
                }
            }
        }
    }

    /// The handles of the joints in slot order.
    pub fn ids(&self) -> impl Iterator<Item = JointId> + '_ {
        self.slots.iter().enumerate().filter_map(|(slot, s)| {
            s.joint.as_ref().map(|_| JointId {
                world: self.world,
                slot: slot as u32,
                generation: s.generation,
            })
        })
    }

    /// Brings `jointed` (sized for the body slots), `pairs` (less those of a disabled body)
    /// and the pairs that do not collide up to date, unless neither the joints nor the
    /// bodies' slots and enabled flags changed since the last call.
    pub fn refresh(&mut self, bodies: &BodyStore) {
        let key = (self.stamp, bodies.mass_stamp());
        if self.refreshed == Some(key) {
            return;
        }
        self.refreshed = Some(key);
        let body_slots = bodies.slots();
        self.jointed.clear();
        self.pairs.clear();
        self.breakable = false;
        let sort = std::mem::take(&mut self.no_collide_stale);
        if sort {
            self.no_collide.clear();
        }
        if self.count == 0 {
            return;
        }
        self.jointed.resize(body_slots, false);
        self.breakable = false;
        for j in self.slots.iter().filter_map(|s| s.joint.as_ref()) {
            self.breakable |= j.breakable();
            self.jointed[j.b.index()] = true;
            if j.a != BodySlot::NONE {
                self.jointed[j.a.index()] = true;
                self.pairs.push((j.a, j.b));
                if sort && !j.collide {
                    let (low, high) = (j.a.min(j.b), j.a.max(j.b));
                    self.no_collide
                        .push((low.index() as u32, high.index() as u32));
                }
            }
        }
        if sort {
            self.no_collide.sort_unstable();
        }
        if bodies.any_disabled() {
            // A disabled body's joints do not act, nor join islands.
            (self.pairs).retain(|&(a, b)| !bodies.either_disabled(a, b));
        }
    }

    /// Whether the bodies in slots `a` and `b` may collide as far as their joints say: not
    /// when a joint between them does not let them (valid after `refresh`).
    pub fn lets_collide(&self, a: usize, b: usize) -> bool {
        let pair = (a.min(b) as u32, a.max(b) as u32);
        self.no_collide.is_empty() || self.no_collide.binary_search(&pair).is_err()
    }

    /// Drops from the broadphase's `pairs` (lower slot first) those of bodies joined by a
    /// joint that does not let them collide.
    pub fn filter_pairs(&self, pairs: &mut Vec<(u32, u32)>) {
        if !self.no_collide.is_empty() {
            pairs.retain(|p| self.no_collide.binary_search(p).is_err());
        }
    }
}

/// Saves the joints by slot with their generations, free slots and the last step's substep;
/// what `refresh` and the joint coloring derive from them is rebuilt by the next step.
impl Codec for JointStore {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        let JointStore {
            world,
            slots,
            free,
            count: _,
            jointed: _,
            pairs: _,
            no_collide: _,
            no_collide_stale: _,
            stamp: _,
            refreshed: _,
            breakable: _,
            h,
            inv_h,
            rigid,
            batches: _,
            events,
        } = self;
        world.encode(w);
        slots.encode(w);
        free.encode(w);
        h.encode(w);
        inv_h.encode(w);
        rigid.encode(w);
        events.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let mut store = JointStore {
            world: Codec::decode(r)?,
            slots: Codec::decode(r)?,
            free: Codec::decode(r)?,
            h: Codec::decode(r)?,
            inv_h: Codec::decode(r)?,
            rigid: Codec::decode(r)?,
            events: Codec::decode(r)?,
            ..JointStore::default()
        };
        store.count = store.slots.iter().filter(|s| s.joint.is_some()).count();
        Ok(store)
    }
}

impl JointStore {
    /// Takes every joint's constants for a step of substeps `h` long and colors the joints
    /// that can move a body, but those marked in `exact` (see [`JointBatches::prepare`]), unless
    /// they were colored for the same `key`.
    /// Returns whether any joint can move a body.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prepare(
        &mut self,
        key: LayoutKey,
        bodies: &BodyStore,
        state_of: &[u32],
        states: usize,
        settings: &WorldSettings,
        h: f32,
        exact: &[bool],
    ) -> bool {
        self.h = h;
        self.inv_h = 1.0 / h;
        self.rigid = rigid_softness(settings, h);
        let slots = &self.slots;
        self.batches
            .prepare(key, slots, bodies, state_of, states, settings, h, exact)
    }

    /// Writes the step's impulses back to the joints.
    pub(crate) fn store_impulses(&mut self) {
        self.batches.store_impulses(&mut self.slots);
    }

    /// The joint passes of this step, for the solver's stages (after [`JointStore::prepare`],
    /// with the same `bodies`), within the solver's speed caps `(linear, angular)`.
    pub(crate) fn passes<'a>(
        &'a mut self,
        bodies: &'a BodyStore,
        speed_caps: (f32, f32),
    ) -> Passes<'a> {
        let (rigid, h) = (self.rigid, self.h);
        (self.batches).passes(&mut self.slots, bodies, rigid, h, speed_caps)
    }

    /// `Err` with the reason unless every joint joins live bodies of `bodies` (two different
    /// ones, or one for a mouse joint) with finite numbers, and the free list names each empty
    /// slot at most once.
    pub fn check(&self, bodies: &BodyStore) -> Result<(), Error> {
        let live = |s: BodySlot| {
            s.index() < bodies.slots() && bodies.kind()[s.index()] != crate::body::SlotKind::Empty
        };
        for (k, slot) in self.slots.iter().enumerate() {
            let Some(j) = &slot.joint else { continue };
            let bodies_ok = live(j.b)
                && j.a != j.b
                && if j.kind == JointKind::Mouse {
                    j.a == BodySlot::NONE
                } else {
                    live(j.a)
                };
            // Caps, limits and lengths may be infinite (none set); nothing may be NaN.
            let pairs = [j.length_range, j.limits, j.motor, j.spring];
            let i = &j.impulses;
            let finite = [j.local_a, j.local_b, j.local_axis, i.linear]
                .iter()
                .all(|v| v.is_finite())
                && [
                    j.reference_angle,
                    i.angular,
                    i.axial,
                    i.motor,
                    i.lower,
                    i.upper,
                ]
                .iter()
                .all(|x| x.is_finite())
                && [
                    j.length,
                    j.max_force,
                    j.max_torque,
                    j.correction,
                    j.break_force,
                    j.break_torque,
                ]
                .iter()
                .all(|x| !x.is_nan())
                && pairs
                    .iter()
                    .flatten()
                    .all(|(x, y)| !x.is_nan() && !y.is_nan());
            if !(bodies_ok && finite) {
                return Err(invalid(format!("joint in slot {k}: bad bodies or numbers")));
            }
        }
        let mut listed = vec![false; self.slots.len()];
        for &f in &self.free {
            let ok = (f as usize) < self.slots.len()
                && self.slots[f as usize].joint.is_none()
                && !std::mem::replace(&mut listed[f as usize], true);
            if !ok {
                return Err(invalid("free joint slot out of range or in use"));
            }
        }
        if !(self.h.is_finite() && self.inv_h.is_finite()) {
            return Err(invalid("joint substep not finite"));
        }
        Ok(())
    }
}
