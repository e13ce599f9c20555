//! Sleeping: islands that have rested long enough leave the step until something touches them.
//!
//! A dynamic body is *sleepy* while its speed, `max(|v|, |w| * reach)`, stays below its
//! [`BodyDef::sleep_threshold`](crate::BodyDef::sleep_threshold); an island falls asleep once
//! every member has been sleepy for [`WorldSettings::time_to_sleep`](crate::WorldSettings).
//! Its bodies then stop at rest (velocities zeroed) and drop out of every per-step stage:
//!
//! - they get no solver state, so no integration and no contact lanes;
//! - their touching contacts are set aside with their impulses ([`FrozenContact`]), so nothing
//!   collides them and they warm start where they left off on waking;
//! - their bounding boxes are not recomputed, and they leave the grid the broadphase rebuilds
//!   every step for a [`RestingGrid`] rebuilt only when islands fall asleep or wake; moving
//!   bodies query it for the pairs that wake islands.
//!
//! An island wakes as a whole when an awake (or moving kinematic) body touches one of its
//! bodies, on [`World::wake`](crate::World::wake), when the user changes one of its bodies (velocity, impulse), and
//! when one of its bodies, or a body touching it, is removed.
//!
//! Islands fall asleep and wake in root-slot order and every scan walks slots or contacts in
//! order, so sleeping keeps results bit-identical across thread counts and backends.

use crate::body::BodyStore;
use crate::body::SlotKind;
use crate::broad_phase::resting_grid::{QueryInput, RestingGrid};
use crate::broad_phase::sorted_pairs::merge_sorted;
use crate::codec::{clone_fields, codec_struct, invalid, Codec, Reader, Writer};
use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::index::{BodySlot, IslandIndex, NONE};
use crate::islands::island::Islands;
use crate::narrow_phase::contact::{ContactSet, FrozenContact};
use crate::settings::WorldSettings;

/// Steps without splitting partly rested islands after a split that put nothing to sleep. A
/// settling pile is one island that loses contacts every step while its bottom already rests:
/// splitting it every step costs a good part of a particle_pile step, for nothing until the
/// whole pile rests (a wholly rested island is split at once regardless). A
/// part that could sleep waits at most this many steps longer.
const FUTILE_SPLIT_PAUSE: u32 = 15;

/// Whether `seconds` of rest are enough to sleep. A body that was fast at the end of the last
/// step has 0 s of rest and never counts, even with a `time_to_sleep` of 0.
fn rested(seconds: f32, time_to_sleep: f32) -> bool {
    seconds > 0.0 && seconds >= time_to_sleep
}

/// A sleeping island: its bodies and the contacts set aside with it.
#[derive(Clone, Default)]
struct SleepingIsland {
    bodies: Vec<BodySlot>,
    contacts: Vec<FrozenContact>,
}

/// Rest time of an island's members: the island can sleep once `min` reaches the time to
/// sleep; a member with `max` that high wants to sleep.
#[derive(Clone, Copy, Debug)]
struct IslandTimes {
    root: BodySlot,
    min: f32,
    max: f32,
}

/// Which bodies sleep, the islands, and what the step needs to leave sleeping bodies out.
#[derive(Default)]
pub(crate) struct Sleep {
    /// Per slot: the body sleeps.
    pub asleep: Vec<bool>,
    /// Per slot: seconds the body has been sleepy.
    sleep_time: Vec<f32>,
    /// Per slot: the body's sleep threshold (m/s).
    threshold: Vec<f32>,
    /// Per slot: the island of a sleeping body, `NONE` for an awake one.
    island_of: Vec<IslandIndex>,
    /// Sleeping islands; entries of woken islands are empty and reused.
    sleeping: Vec<SleepingIsland>,
    /// The empty entries of `sleeping`.
    free_islands: Vec<IslandIndex>,
    /// Contacts set aside in all sleeping islands.
    frozen_count: usize,
    islands: Islands,
    resting: RestingGrid,
    /// Pairs of a moving and a sleeping body found this step, raw `u32` slots as the
    /// broadphase's resting grid makes them (they join the broadphase's pairs).
    resting_pairs: Vec<(u32, u32)>,
    /// The bodies the solver moves: awake dynamic and all kinematic bodies, ascending.
    pub moving: Vec<BodySlot>,
    /// Body kinds as the per-step broadphase sees them: sleeping bodies are `Empty`.
    pub broad_kinds: Vec<SlotKind>,
    /// Scratch of `pairing_kinds`: `broad_kinds` less the bodies that pair with none.
    pairing_kinds: Vec<SlotKind>,
    /// `moving` and `broad_kinds` are out of date.
    stale: bool,
    /// Steps left before a partly rested island may be split again.
    split_pause: u32,
    /// Per-slot scratch, `NONE` between uses.
    scratch: Vec<u32>,
}

// Restoring a snapshot copies into the columns the world has: see `clone_fields!`.
clone_fields!(Sleep {
    asleep,
    sleep_time,
    threshold,
    island_of,
    sleeping,
    free_islands,
    frozen_count,
    islands,
    resting,
    resting_pairs,
    moving,
    broad_kinds,
    pairing_kinds,
    stale,
    split_pause,
    scratch,
});

impl Sleep {
    /// A new body in `slot`, awake.
    pub fn add_body(&mut self, slot: BodySlot, threshold: f32) {
        if self.asleep.len() <= slot.index() {
            let n = slot.index() + 1;
            self.asleep.resize(n, false);
            self.sleep_time.resize(n, 0.0);
            self.threshold.resize(n, 0.0);
            self.island_of.resize(n, IslandIndex::NONE);
            self.scratch.resize(n, NONE);
        }
        self.asleep[slot.index()] = false;
        self.sleep_time[slot.index()] = 0.0;
        self.threshold[slot.index()] = threshold;
        self.islands.add_body(slot);
        self.stale = true;
    }

    /// A joint of the awake body in `slot` was removed: its island may be in parts now.
    pub fn joint_removed(&mut self, slot: BodySlot, bodies: &BodyStore) {
        if bodies.is_dynamic(slot.index()) {
            self.islands.mark_split(slot);
        }
    }

    /// Forgets the removed body in `slot` (its island must be awake).
    pub fn remove_body(&mut self, slot: BodySlot, was_dynamic: bool) {
        if was_dynamic {
            self.islands.remove_body(slot);
        }
        self.stale = true;
    }

    /// The awake body in `slot` changed kind: it leaves its island if it was dynamic (which
    /// is dissolved at the next step, as for a removal) and starts one of its own, with no
    /// rest, if it is dynamic now.
    pub fn kind_changed(&mut self, slot: BodySlot, was_dynamic: bool, is_dynamic: bool) {
        if was_dynamic {
            self.islands.remove_body(slot);
        }
        if is_dynamic {
            self.islands.add_body(slot);
            self.sleep_time[slot.index()] = 0.0;
        }
        self.stale = true;
    }

    /// The body in `slot` was disabled or enabled: the broadphase and the solver leave it out
    /// or take it in from the next step.
    pub fn enabled_changed(&mut self) {
        self.stale = true;
    }

    /// Brings `moving`, `broad_kinds` and the islands up to date after bodies were added,
    /// removed, fell asleep or woke.
    pub fn refresh(&mut self, bodies: &BodyStore) {
        if !self.stale {
            return;
        }
        self.stale = false;
        self.islands.dissolve_removed(bodies);
        self.broad_kinds.clear();
        self.broad_kinds.extend(
            bodies
                .kind()
                .iter()
                .zip(&self.asleep)
                .zip(bodies.disabled())
                .map(|((&k, &asleep), &disabled)| {
                    if asleep || disabled {
                        SlotKind::Empty
                    } else {
                        k
                    }
                }),
        );
        self.moving.clear();
        self.moving.extend(
            (0..bodies.slots())
                .filter(|&s| matches!(self.broad_kinds[s], SlotKind::Dynamic | SlotKind::Kinematic))
                .map(BodySlot::new),
        );
    }

    /// The kinds the per-step broadphase pairs by: `broad_kinds` (after `refresh`), less the
    /// bodies whose layers (`broad_layers`, per slot) are in no body's mask (`broad_mask`) or
    /// whose mask has none of any body's layers. These pair with nothing, so the broadphase's
    /// pairs are the same without them, and a scene of bodies that collide with nothing
    /// (jointed to one another, on one layer that their masks leave out) costs it no grid.
    pub fn pairing_kinds(&mut self, layers: &[u32], masks: &[u32]) -> &[SlotKind] {
        let any = |v: &[u32]| v.iter().fold(0, |a, &x| a | x);
        let all = |v: &[u32]| v.iter().fold(u32::MAX, |a, &x| a & x);
        let (any_layer, any_mask) = (any(layers), any(masks));
        // Every body has the layers all have: when these meet some mask (and the same for
        // masks), each body may pair.
        if all(layers) & any_mask != 0 && all(masks) & any_layer != 0 {
            return &self.broad_kinds;
        }
        // Every slot written in place with no branch: a push per slot kept the loop from
        // running over several slots at once.
        (self.pairing_kinds).resize(self.broad_kinds.len(), SlotKind::Empty);
        let filters = layers.iter().zip(masks);
        let kinds = (self.pairing_kinds.iter_mut()).zip(self.broad_kinds.iter().zip(filters));
        for (out, (&kind, (&layer, &mask))) in kinds {
            let pairs = (layer & any_mask != 0) & (mask & any_layer != 0);
            *out = if pairs { kind } else { SlotKind::Empty };
        }
        &self.pairing_kinds
    }

    /// Starts every body's rest time from 0 (sleeping was turned on: time spent while it was
    /// off does not count).
    pub fn reset_rest_times(&mut self) {
        self.sleep_time.fill(0.0);
    }

    /// Per slot: the seconds each body has been sleepy.
    pub fn rest_times(&self) -> &[f32] {
        &self.sleep_time
    }

    /// Touching contacts set aside by sleeping islands.
    pub fn frozen_contact_count(&self) -> usize {
        self.frozen_count
    }

    /// Sets the seconds of rest of every body that moves: reset when it is faster than its
    /// threshold or touches or is joined to a moving kinematic body (which would carry it
    /// along), else grown by `dt`.
    fn tick_timers(
        &mut self,
        bodies: &BodyStore,
        contacts: &ContactSet,
        joints: &[(BodySlot, BodySlot)],
        dt: f32,
    ) {
        for &s in &self.moving {
            let s = s.index();
            if !bodies.is_dynamic(s) {
                continue;
            }
            let speed = bodies.linear_velocity()[s]
                .length()
                .max(bodies.angular_velocity()[s].abs() * bodies.reach()[s]);
            self.sleep_time[s] = if speed < self.threshold[s] {
                self.sleep_time[s] + dt
            } else {
                0.0
            };
        }
        let moving_kinematic = |s: usize| {
            bodies.kind()[s] == SlotKind::Kinematic
                && (bodies.linear_velocity()[s] != Vec2::ZERO
                    || bodies.angular_velocity()[s] != 0.0)
        };
        if !self.moving.iter().any(|&s| moving_kinematic(s.index())) {
            return;
        }
        let links = contacts.list.iter().map(|c| (c.a, c.b));
        for (a, b) in links.chain(joints.iter().copied()) {
            let (a, b) = (a.index(), b.index());
            if moving_kinematic(a) {
                self.sleep_time[b] = 0.0;
            }
            if moving_kinematic(b) {
                self.sleep_time[a] = 0.0;
            }
        }
    }

    /// The shortest and longest rest of the members of each island with a moving body, in
    /// the order of their lowest awake slot.
    fn island_times(&mut self, bodies: &BodyStore) -> Vec<IslandTimes> {
        let mut times: Vec<IslandTimes> = Vec::new();
        for &s in &self.moving {
            if !bodies.is_dynamic(s.index()) {
                continue;
            }
            let root = self.islands.find(s);
            let t = self.sleep_time[s.index()];
            let k = &mut self.scratch[root.index()];
            if *k == NONE {
                *k = times.len() as u32;
                times.push(IslandTimes {
                    root,
                    min: t,
                    max: t,
                });
            } else {
                let entry = &mut times[*k as usize];
                entry.min = entry.min.min(t);
                entry.max = entry.max.max(t);
            }
        }
        for t in &times {
            self.scratch[t.root.index()] = NONE;
        }
        times
    }

    /// The awake members of the island rooted at `root`, ascending.
    fn members_of(&mut self, roots: &[BodySlot], bodies: &BodyStore) -> Vec<BodySlot> {
        for &r in roots {
            self.scratch[r.index()] = 0;
        }
        let moving = std::mem::take(&mut self.moving);
        let members = moving
            .iter()
            .copied()
            .filter(|&s| {
                bodies.is_dynamic(s.index()) && self.scratch[self.islands.find(s).index()] == 0
            })
            .collect();
        self.moving = moving;
        for &r in roots {
            self.scratch[r.index()] = NONE;
        }
        members
    }

    /// Splits the islands rooted at `roots` into their connected parts, all in one flood fill
    /// (no contact joins two islands); returns the roots of the parts whose members have all
    /// rested for `time_to_sleep`.
    fn split_ready(
        &mut self,
        roots: &[BodySlot],
        bodies: &BodyStore,
        contacts: &ContactSet,
        joints: &[(BodySlot, BodySlot)],
        time_to_sleep: f32,
    ) -> Vec<BodySlot> {
        let members = self.members_of(roots, bodies);
        let roots = self.islands.split(&members, &contacts.list, joints);
        let mut parts: Vec<(BodySlot, f32)> = Vec::new();
        for (&s, &r) in members.iter().zip(&roots) {
            let t = self.sleep_time[s.index()];
            let k = &mut self.scratch[r.index()];
            if *k == NONE {
                *k = parts.len() as u32;
                parts.push((r, t));
            } else {
                let min = &mut parts[*k as usize].1;
                *min = min.min(t);
            }
        }
        for &(r, _) in &parts {
            self.scratch[r.index()] = NONE;
        }
        parts
            .into_iter()
            .filter(|&(_, min)| rested(min, time_to_sleep))
            .map(|(r, _)| r)
            .collect()
    }

    /// Puts the islands rooted at `roots` (ascending) to sleep: bodies stop, their boxes shrink
    /// to the resting margin, their contacts are set aside.
    fn fall_asleep(
        &mut self,
        roots: &[BodySlot],
        bodies: &mut BodyStore,
        contacts: &mut ContactSet,
        margin: f32,
    ) {
        for &root in roots {
            let index = match self.free_islands.pop() {
                Some(i) => i,
                None => {
                    self.sleeping.push(SleepingIsland::default());
                    IslandIndex::new(self.sleeping.len() - 1)
                }
            };
            // The root is a member, the lowest: the loop below gives it the same index.
            self.island_of[root.index()] = index;
        }
        let moving = std::mem::take(&mut self.moving);
        for &s in &moving {
            let slot = s.index();
            if !bodies.is_dynamic(slot) {
                continue;
            }
            let index = self.island_of[self.islands.find(s).index()];
            if index == IslandIndex::NONE {
                continue;
            }
            self.sleeping[index.index()].bodies.push(s);
            self.asleep[slot] = true;
            self.island_of[slot] = index;
            bodies.set_linear_velocity(slot, Vec2::ZERO);
            bodies.set_angular_velocity(slot, 0.0);
            // At rest the box needs no sweep: the margin alone, as long as it sleeps.
            let xf = bodies.transform(slot);
            bodies.refresh_aabb(slot, xf, margin);
        }
        self.moving = moving;

        let mut frozen = Vec::new();
        let asleep = &self.asleep;
        contacts.freeze(|a, b| asleep[a.index()] || asleep[b.index()], &mut frozen);
        self.frozen_count += frozen.len();
        for f in frozen {
            // Static and kinematic bodies never sleep: the sleeping one is a dynamic member.
            let (a, b) = f.bodies();
            let s = if self.asleep[a.index()] { a } else { b };
            let index = self.island_of[s.index()];
            self.sleeping[index.index()].contacts.push(f);
        }
        self.islands.forget_links(&self.asleep);
        self.stale = true;
        self.resting.mark_stale();
    }

    /// Wakes the sleeping islands of `indices` (ascending, no repeats) and gives their contacts
    /// back to `contacts`.
    fn wake_islands(&mut self, indices: &[IslandIndex], contacts: &mut ContactSet) {
        if indices.is_empty() {
            return;
        }
        let mut thawed = Vec::new();
        for &i in indices {
            let island = std::mem::take(&mut self.sleeping[i.index()]);
            for &s in &island.bodies {
                self.asleep[s.index()] = false;
                self.sleep_time[s.index()] = 0.0;
                self.island_of[s.index()] = IslandIndex::NONE;
            }
            self.frozen_count -= island.contacts.len();
            thawed.extend(island.contacts);
            self.free_islands.push(i);
        }
        contacts.thaw(thawed);
        self.stale = true;
        self.resting.mark_stale();
    }
}

impl Sleep {
    /// Wakes every sleeping island, with its timers reset.
    pub fn wake_all(&mut self, contacts: &mut ContactSet) {
        let sleep = self;
        let indices: Vec<IslandIndex> = (0..sleep.sleeping.len())
            .filter(|&i| !sleep.sleeping[i].bodies.is_empty())
            .map(IslandIndex::new)
            .collect();
        sleep.wake_islands(&indices, contacts);
    }

    /// Wakes everything that must notice a change to the body in `slot`: its own island if it
    /// sleeps, or, for a static or kinematic body, every sleeping island it touches.
    pub fn wake_touching(&mut self, slot: BodySlot, bodies: &BodyStore, contacts: &mut ContactSet) {
        let sleep = self;
        let indices: Vec<IslandIndex> = if sleep.asleep[slot.index()] {
            vec![sleep.island_of[slot.index()]]
        } else if bodies.is_dynamic(slot.index()) {
            // Awake, so its island is awake and so is every dynamic body touching it.
            Vec::new()
        } else {
            (0..sleep.sleeping.len())
                .filter(|&i| {
                    sleep.sleeping[i].contacts.iter().any(|c| {
                        let (a, b) = c.bodies();
                        a == slot || b == slot
                    })
                })
                .map(IslandIndex::new)
                .collect()
        };
        sleep.wake_islands(&indices, contacts);
    }

    /// Broadphase, second half: appends the pairs of a moving body and a sleeping one (the
    /// per-step grid holds awake bodies only), keeping `pairs` sorted.
    pub fn add_resting_pairs(&mut self, bodies: &BodyStore, pairs: &mut Vec<(u32, u32)>) {
        let sleep = self;
        sleep.resting_pairs.clear();
        sleep.resting.refresh(&sleep.asleep, bodies.aabb());
        if sleep.resting.is_empty() {
            return;
        }
        let input = QueryInput {
            aabbs: bodies.aabb(),
            kinds: bodies.kind(),
            layers: bodies.broad_layers(),
            masks: bodies.broad_mask(),
            linear_velocity: bodies.linear_velocity(),
            angular_velocity: bodies.angular_velocity(),
        };
        // The resting grid is the broadphase's code, which keeps raw `u32` slots.
        sleep.resting.query(
            BodySlot::raw(&sleep.moving),
            &input,
            &mut sleep.resting_pairs,
        );
        merge_sorted(pairs, &sleep.resting_pairs);
    }

    /// Narrowphase, second half: wakes every sleeping island that a moving body now touches,
    /// so that it joins this step's solve with the contacts it had set aside.
    pub fn wake_touched_islands(&mut self, bodies: &BodyStore, contacts: &mut ContactSet) {
        let sleep = self;
        if sleep.resting_pairs.is_empty() {
            return;
        }
        let mut indices: Vec<IslandIndex> = Vec::new();
        for c in &contacts.list {
            for s in [c.a.index(), c.b.index()] {
                if sleep.asleep[s] {
                    indices.push(sleep.island_of[s]);
                }
            }
        }
        indices.sort_unstable();
        indices.dedup();
        sleep.wake_islands(&indices, contacts);
        sleep.refresh(bodies);
    }

    /// After the solve: updates the islands with this step's contacts and the bodies' rest
    /// timers, splits at most one island that lost a contact and has a body wanting to sleep,
    /// and puts every island that has rested long enough to sleep.
    pub fn update(
        &mut self,
        settings: &WorldSettings,
        bodies: &mut BodyStore,
        contacts: &mut ContactSet,
        joints: &[(BodySlot, BodySlot)],
        dt: f32,
    ) {
        if !settings.enable_sleep {
            return;
        }
        let time_to_sleep = settings.time_to_sleep;
        let margin = 4.0 * settings.linear_slop;
        let sleep = self;
        sleep.islands.update(&contacts.list, bodies, joints);
        sleep.tick_timers(bodies, contacts, joints, dt);
        let times = sleep.island_times(bodies);

        // Islands that lost a contact may be in parts, each of which may sleep on its own. A
        // wholly rested island is split at once: each part then sleeps. A partly rested one
        // may hold a part that can sleep; the flood fill that finds out costs a pass over the
        // island, so one such island a step (the one with the body that has rested longest,
        // ties: the first found), and after a split that put nothing to sleep none for
        // `FUTILE_SPLIT_PAUSE` steps.
        let mut ready = Vec::new();
        let mut to_split = Vec::new();
        let mut candidate: Option<IslandTimes> = None;
        for t in &times {
            let pending = sleep.islands.split_pending(t.root);
            if rested(t.min, time_to_sleep) {
                // Every part of a wholly rested island sleeps: worth splitting at once.
                if pending { &mut to_split } else { &mut ready }.push(t.root);
            } else if pending
                && rested(t.max, time_to_sleep)
                && sleep.split_pause == 0
                && candidate.is_none_or(|c| t.max > c.max)
            {
                candidate = Some(*t);
            }
        }
        sleep.split_pause = sleep.split_pause.saturating_sub(1);
        if !to_split.is_empty() {
            ready.extend(sleep.split_ready(&to_split, bodies, contacts, joints, time_to_sleep));
        }
        if let Some(c) = candidate {
            let parts = sleep.split_ready(&[c.root], bodies, contacts, joints, time_to_sleep);
            if parts.is_empty() {
                // No part of it could sleep: it still moves as a whole.
                sleep.split_pause = FUTILE_SPLIT_PAUSE;
            }
            ready.extend(parts);
        }
        ready.sort_unstable();
        if !ready.is_empty() {
            sleep.fall_asleep(&ready, bodies, contacts, margin);
        }
    }
}

codec_struct!(SleepingIsland { bodies, contacts });

/// Saves which bodies sleep, their rest times and islands, and the sleeping islands with
/// their frozen contacts. The lists derived from these (`moving`, `broad_kinds`, the grid of
/// sleeping boxes) are marked stale, so that the next step rebuilds them as it would after any
/// change; the per-slot scratch is rebuilt empty (`NONE`), as between steps.
impl Codec for Sleep {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        let Sleep {
            asleep,
            sleep_time,
            threshold,
            island_of,
            sleeping,
            free_islands,
            frozen_count: _,
            islands,
            resting: _,
            resting_pairs: _,
            moving: _,
            broad_kinds: _,
            pairing_kinds: _,
            stale: _,
            split_pause,
            scratch: _,
        } = self;
        asleep.encode(w);
        sleep_time.encode(w);
        threshold.encode(w);
        island_of.encode(w);
        sleeping.encode(w);
        free_islands.encode(w);
        islands.encode(w);
        split_pause.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let mut sleep = Sleep {
            asleep: Codec::decode(r)?,
            sleep_time: Codec::decode(r)?,
            threshold: Codec::decode(r)?,
            island_of: Codec::decode(r)?,
            sleeping: Codec::decode(r)?,
            free_islands: Codec::decode(r)?,
            islands: Codec::decode(r)?,
            split_pause: Codec::decode(r)?,
            stale: true,
            ..Sleep::default()
        };
        sleep.frozen_count = sleep.sleeping.iter().map(|i| i.contacts.len()).sum();
        sleep.scratch = vec![NONE; sleep.asleep.len()];
        sleep.resting.mark_stale();
        Ok(sleep)
    }
}

impl Sleep {
    /// `Err` with the reason unless the sleep state fits `bodies`: an entry per slot, finite
    /// rest times, every sleeping body in the one sleeping island that lists it, free island
    /// entries empty, and every frozen contact one `bodies` could have.
    pub fn check(&self, bodies: &BodyStore) -> Result<(), Error> {
        let n = bodies.slots();
        let per_slot = [
            self.asleep.len(),
            self.sleep_time.len(),
            self.threshold.len(),
            self.island_of.len(),
        ];
        if per_slot.iter().any(|&len| len != n) {
            return Err(invalid("sleep state does not have one entry per slot"));
        }
        let finite = |x: &f32| x.is_finite() && *x >= 0.0;
        if !(self.sleep_time.iter().all(finite) && self.threshold.iter().all(finite)) {
            return Err(invalid("rest time or threshold out of range"));
        }
        self.islands.check(n)?;
        let mut listed = vec![false; n];
        for (k, island) in self.sleeping.iter().enumerate() {
            for s in &island.bodies {
                let i = s.index();
                let ok = i < n
                    && self.asleep[i]
                    && bodies.kind()[i] != SlotKind::Empty
                    && self.island_of[i].index() == k
                    && !std::mem::replace(&mut listed[i], true);
                if !ok {
                    return Err(invalid(format!(
                        "sleeping island {k} lists slot {i} wrongly"
                    )));
                }
            }
            for c in &island.contacts {
                c.check(bodies)
                    .map_err(|why| invalid(format!("sleeping island {k}: {why}")))?;
            }
        }
        let awake_in_island = (0..n).any(|s| !listed[s] && self.island_of[s] != IslandIndex::NONE);
        if awake_in_island || (0..n).any(|s| self.asleep[s] != listed[s]) {
            return Err(invalid("a sleeping body is in no sleeping island"));
        }
        let mut free = vec![false; self.sleeping.len()];
        for f in &self.free_islands {
            let i = f.index();
            let ok = i < free.len()
                && !std::mem::replace(&mut free[i], true)
                && self.sleeping[i].bodies.is_empty()
                && self.sleeping[i].contacts.is_empty();
            if !ok {
                return Err(invalid("free sleeping island out of range or in use"));
            }
        }
        Ok(())
    }
}
