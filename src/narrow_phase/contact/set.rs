//! The contact set's update over the broadphase pairs, and how the rest of the step reads,
//! freezes, wakes and saves its contacts.

use super::update::{update_chunk, ChunkSlots, OldContacts};
use super::{
    body_slots, closing_in, touches, BaseSlots, Bases, Contact, ContactBackup, ContactKey,
    ContactSet, FrozenContact, NarrowPhaseParams, CHUNK, FAR, THAWED,
};
use crate::body::BodyStore;
use crate::broad_phase::compound::{join_children, split_children, Children};
use crate::disjoint::DisjointMut;
use crate::index::{BodySlot, ContactIndex, NONE};
use crate::narrow_phase::recycle::{body_poses, Base};
use rayon::prelude::*;

/// The shape pairs of a chunk of pairs when no body is a compound: every pair is shape pair 0.
static NO_CHILDREN: [Children; CHUNK] = [0; CHUNK];

impl ContactSet {
    /// Replaces the contacts with the manifolds of `pairs`, carrying the impulses of points
    /// whose feature id persists. `children` is empty when no body of the world is a compound
    /// (every pair is then shape pair 0, read straight from the body columns), else holds the
    /// shape pair of each pair; `(pairs[i], children[i])` is sorted.
    pub fn update(
        &mut self,
        pairs: &[(u32, u32)],
        children: &[Children],
        bodies: &BodyStore,
        params: &NarrowPhaseParams,
    ) {
        debug_assert!(children.is_empty() || children.len() == pairs.len());
        let same_pairs = self.match_previous(pairs, children);
        // The same pairs as last step, in the same order (every step of a resting scene): each
        // pair's contact is updated where it stands, so that a recycled one keeps its ids,
        // impulses, bodies and materials in place and only its moved points are written.
        if same_pairs {
            std::mem::swap(&mut self.list, &mut self.candidates);
        }
        let n = pairs.len();
        debug_assert!(n < THAWED as usize, "base indices must stay below THAWED");
        let chunk_count = n.div_ceil(CHUNK);
        // Each base in its pair's slot (or thawed, or none), which the pairs of this update
        // take again: the bases are updated in place. Otherwise last step's bases are read
        // from the current set while this step's go to the other.
        let bases_in_place = same_pairs
            && !self.bases.keep_current
            && (self.base_of.par_chunks(CHUNK).enumerate()).all(|(k, base_of)| {
                // (Without early exits, the test of a chunk compiles to vector compares.)
                let first = (k * CHUNK) as u32;
                (first..).zip(base_of).fold(true, |ok, (i, &base)| {
                    ok & ((base == i) | (base == NONE) | (base & THAWED != 0))
                })
            });
        let Bases {
            sets: [first, second],
            current,
            thawed,
            keep_current: _,
        } = &mut self.bases;
        let (read, write): (&[BaseSlots], _) = match (bases_in_place, *current) {
            (true, 0) => (&[], first),
            (true, _) => (&[], second),
            (false, 0) => (&*first, second),
            (false, _) => (&*second, first),
        };
        if write.len() < chunk_count {
            write.resize_with(chunk_count, BaseSlots::default);
        }
        // Every slot is written in place by `update_pair`; resizing only initialises slots
        // beyond last step's count.
        self.candidates.resize_with(n, Contact::empty);
        self.found.resize(n, FAR);
        self.new_touching.resize(n, false);
        self.new_one_point.resize(n, false);
        self.speed.resize(n, 0.0);
        self.touch_threshold = params.linear_slop;
        // The bodies' poses, which the recycle kernel reads and a fresh collide takes its
        // transforms from: found once per body, where each pair would find two.
        self.poses.clear();
        if n > 0 {
            body_poses(bodies, params.poses, &mut self.poses);
        }
        let poses = &self.poses[..];
        let old = OldContacts {
            in_place: same_pairs,
            bases_in_place,
            list: if same_pairs { &[] } else { &self.list },
            base_of: &self.base_of,
            read,
            thawed,
        };
        let chunks = self
            .candidates
            .par_chunks_mut(CHUNK)
            .zip(self.found.par_chunks_mut(CHUNK))
            .zip(self.new_touching.par_chunks_mut(CHUNK))
            .zip(self.new_one_point.par_chunks_mut(CHUNK))
            .zip(self.speed.par_chunks_mut(CHUNK))
            .zip(write[..chunk_count].par_iter_mut())
            .zip(pairs.par_chunks(CHUNK))
            .zip(self.previous.par_chunks(CHUNK))
            .enumerate()
            .map(
                |(
                    k,
                    (((((((slots, found), touching), one_point), speed), bases), pairs), previous),
                )| {
                    let out = ChunkSlots {
                        slots,
                        found,
                        touching,
                        one_point,
                        speed,
                        bases,
                        first_base: (k * CHUNK) as u32,
                    };
                    (k, out, pairs, previous)
                },
            );
        if children.is_empty() {
            // No compound bodies: the loop of one-shape worlds, kept apart from the other.
            chunks.for_each(|(_, out, pairs, previous)| {
                update_chunk(out, pairs, None, previous, &old, bodies, poses, params);
            });
        } else {
            chunks.for_each(|(k, out, pairs, previous)| {
                let children = Some(&children[k * CHUNK..k * CHUNK + pairs.len()]);
                update_chunk(out, pairs, children, previous, &old, bodies, poses, params);
            });
        }
        self.keep_touching(pairs, children, same_pairs);
        if !bases_in_place {
            self.bases.current ^= 1;
        }
        self.bases.thawed.clear();
        self.bases.keep_current = false;
    }

    /// Moves the touching candidates, with their keys, base indices and flags, into
    /// `contacts`, `keys`, `base_of` and the flags, in pair order. When every pair touches (as
    /// in a resting stack, whose pairs all keep their points) the candidates and their columns
    /// already are the contacts', in order, and the buffers swap instead; the keys stand too
    /// if the pairs are last step's. Otherwise each chunk counts its touching pairs, a prefix
    /// sum over the chunks places them, and the chunks copy in parallel: the contacts are the
    /// largest data of a step, too much to copy on one thread. The bases stay in their
    /// chunks' slots.
    ///
    /// `same_pairs` when `pairs` (with `children`) are the pairs of the contacts before this
    /// update, in the same order: see `touching_as_before`.
    fn keep_touching(&mut self, pairs: &[(u32, u32)], children: &[Children], same_pairs: bool) {
        let key = |i: usize| {
            let (a, b) = body_slots(pairs[i]);
            (a, b, children.get(i).copied().unwrap_or(0))
        };
        let all_touch = !self.found.par_iter().any(|&f| f == FAR);
        if all_touch {
            // Every pair kept, each where its contact was, so the flags line up one to one.
            self.touching_as_before = same_pairs && self.touching == self.new_touching;
            std::mem::swap(&mut self.list, &mut self.candidates);
            std::mem::swap(&mut self.base_of, &mut self.found);
            std::mem::swap(&mut self.touching, &mut self.new_touching);
            std::mem::swap(&mut self.one_point, &mut self.new_one_point);
            let n = pairs.len();
            self.closing.resize(n, 0.0);
            (self.closing.par_chunks_mut(CHUNK))
                .zip(self.touching.par_chunks(CHUNK))
                .zip(self.speed.par_chunks(CHUNK))
                .for_each(|((closing, touching), speed)| {
                    for ((c, &touch), &s) in closing.iter_mut().zip(touching).zip(speed) {
                        if !touch {
                            *c = s;
                        }
                    }
                });
            if !same_pairs {
                self.keys.resize(n, (BodySlot::NONE, BodySlot::NONE, 0));
                (self.keys.par_chunks_mut(CHUNK).enumerate()).for_each(|(k, keys)| {
                    for (i, at) in (k * CHUNK..).zip(keys) {
                        *at = key(i);
                    }
                });
            }
            return;
        }
        self.touching_as_before = false;
        self.chunk_starts.clear();
        self.chunk_starts.par_extend(
            self.found
                .par_chunks(CHUNK)
                .map(|found| found.iter().filter(|&&f| f != FAR).count()),
        );
        let mut total = 0;
        for start in &mut self.chunk_starts {
            let count = *start;
            *start = total;
            total += count;
        }
        self.list.resize_with(total, Contact::empty);
        self.keys.resize(total, (BodySlot::NONE, BodySlot::NONE, 0));
        self.base_of.resize(total, NONE);
        self.touching.resize(total, false);
        self.one_point.resize(total, false);
        self.closing.resize(total, 0.0);
        let contacts = DisjointMut::new(&mut self.list);
        let keys = DisjointMut::new(&mut self.keys);
        let base_of = DisjointMut::new(&mut self.base_of);
        let touching = DisjointMut::new(&mut self.touching);
        let one_point = DisjointMut::new(&mut self.one_point);
        let closing = DisjointMut::new(&mut self.closing);
        let (candidates, speed) = (&self.candidates, &self.speed);
        let (new_touching, new_one_point) = (&self.new_touching, &self.new_one_point);
        let chunk_starts = &self.chunk_starts;
        self.found
            .par_chunks(CHUNK)
            .zip(chunk_starts.par_iter())
            .enumerate()
            .for_each(|(k, (found, &start))| {
                // The chunk's columns, each cut to its pairs and walked side by side, so that
                // reading a pair's entries checks no index.
                let (first, n) = (k * CHUNK, found.len());
                let children = children.get(first..first + n).unwrap_or(&NO_CHILDREN[..n]);
                let pairs = found
                    .iter()
                    .zip(&candidates[first..][..n])
                    .zip(&pairs[first..][..n])
                    .zip(children)
                    .zip(&new_touching[first..][..n])
                    .zip(&new_one_point[first..][..n])
                    .zip(&speed[first..][..n]);
                // Where the chunk's touching contacts go, as slices of the chunk's own: one
                // check of a place against their common length stands for all six, and
                // their starts stay in registers where each write through the shared
                // columns would reload them.
                let end = chunk_starts.get(k + 1).copied().unwrap_or(total);
                // SAFETY: chunk k writes slots chunk_starts[k].. up to its touching count,
                // `end`, which the prefix sum keeps disjoint from every other chunk's and
                // below `total`, the length of all six vectors.
                let (contacts, keys, base_of, touching, one_point, closing) = unsafe {
                    (
                        contacts.slice(start..end),
                        keys.slice(start..end),
                        base_of.slice(start..end),
                        touching.slice(start..end),
                        one_point.slice(start..end),
                        closing.slice(start..end),
                    )
                };
                let mut at = 0;
                for ((((((&found, candidate), &pair), &child), &touch), &one), &s) in pairs {
                    if found == FAR {
                        continue;
                    }
                    let (a, b) = body_slots(pair);
                    contacts[at] = *candidate;
                    keys[at] = (a, b, child);
                    base_of[at] = found;
                    touching[at] = touch;
                    one_point[at] = one;
                    if !touch {
                        closing[at] = s;
                    }
                    at += 1;
                }
            });
    }

    /// Keeps, in order, the contacts (with their keys, base indices and touch flags) for which
    /// `keep(index, key)` holds. The bases of dropped contacts stay, unreferenced, in their
    /// slots until the next update overwrites them.
    fn retain(&mut self, keep: impl Fn(usize, ContactKey) -> bool) {
        self.touching_as_before = false;
        let n = self.keys.len();
        debug_assert!(self.in_sync());
        let mut kept = 0;
        for i in 0..n {
            let key = self.keys[i];
            if keep(i, key) {
                if kept != i {
                    self.keys[kept] = key;
                    self.list[kept] = self.list[i];
                    self.base_of[kept] = self.base_of[i];
                    self.touching[kept] = self.touching[i];
                    self.one_point[kept] = self.one_point[i];
                    self.closing[kept] = self.closing[i];
                }
                kept += 1;
            }
        }
        self.keys.truncate(kept);
        self.list.truncate(kept);
        self.base_of.truncate(kept);
        self.touching.truncate(kept);
        self.one_point.truncate(kept);
        self.closing.truncate(kept);
    }

    /// The base of contact `i`, or an empty one (nothing to recycle).
    pub(super) fn base(&self, i: usize) -> Base {
        match self.base_of[i] {
            NONE => Base::empty(),
            b => self.bases.get(b),
        }
    }

    /// Merge-joins the sorted new pairs with the sorted old contacts. Returns true when they are
    /// the same pairs in the same order: pair `i` is old contact `i`.
    fn match_previous(&mut self, pairs: &[(u32, u32)], children: &[Children]) -> bool {
        self.ensure_keys();
        self.previous.resize(pairs.len(), ContactIndex::NONE);
        let keys = &self.keys;
        let key = |i: usize| {
            let (a, b) = body_slots(pairs[i]);
            (a, b, children.get(i).copied().unwrap_or(0))
        };
        let same_count = pairs.len() == keys.len();
        // Both lists are sorted: each chunk finds where its first pair would be among the
        // keys, then merges from there. A chunk whose pairs are the keys at its own places
        // (every chunk of a resting scene) is checked in one pass instead.
        let same = self
            .previous
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(k, previous)| {
                let first = k * CHUNK;
                let end = first + previous.len();
                if same_count && same_keys(&keys[first..end], &pairs[first..end], children, first) {
                    for (i, prev) in (first..).zip(previous) {
                        *prev = ContactIndex::new(i);
                    }
                    return true;
                }
                let mut j = keys.partition_point(|&old| old < key(first));
                let mut same = true;
                for (i, prev) in (first..).zip(previous) {
                    let pair = key(i);
                    while j < keys.len() && keys[j] < pair {
                        j += 1;
                    }
                    let found = j < keys.len() && keys[j] == pair;
                    same &= found && j == i;
                    *prev = if found {
                        ContactIndex::new(j)
                    } else {
                        ContactIndex::NONE
                    };
                }
                same
            })
            .reduce(|| true, |x, y| x & y);
        same && pairs.len() == keys.len()
    }

    /// Whether `keys`, `base_of` and the flags have one entry per contact.
    pub(super) fn in_sync(&self) -> bool {
        let n = self.list.len();
        let flags =
            self.touching.len() == n && self.one_point.len() == n && self.closing.len() == n;
        self.keys.len() == n && self.base_of.len() == n && flags
    }

    /// Rebuilds `keys`, `base_of` and the flags if the contacts were changed behind their
    /// back.
    fn ensure_keys(&mut self) {
        if !self.in_sync() {
            // Only the methods of this set change the contacts; should anything else, start
            // over from them, with nothing to recycle (and the shape pairs of compound bodies
            // forgotten: their next contacts start cold).
            self.touching_as_before = false;
            self.keys.clear();
            self.keys.extend(self.list.iter().map(|c| (c.a, c.b, 0)));
            self.base_of.clear();
            self.base_of.resize(self.list.len(), NONE);
            self.find_flags();
        }
    }

    /// Finds `touching` (with the last update's threshold) and `one_point` afresh from the
    /// contacts, and leaves `closing` to the events (it needs the bodies).
    fn find_flags(&mut self) {
        let threshold = self.touch_threshold;
        self.touching.clear();
        (self.touching).extend(self.list.iter().map(|c| touches(c, threshold)));
        self.one_point.clear();
        (self.one_point).extend(self.list.iter().map(Contact::has_one_point));
        self.closing.clear();
        self.closing.resize(self.list.len(), f32::NAN);
    }

    /// Moves the contacts of the pairs for which `take(a, b)` holds out of the set and appends
    /// them to `out`, in `(a, b)` order: their islands fall asleep, and they wait, impulses and
    /// recycling base included, for [`ContactSet::thaw`].
    pub fn freeze(
        &mut self,
        take: impl Fn(BodySlot, BodySlot) -> bool,
        out: &mut Vec<FrozenContact>,
    ) {
        self.ensure_keys();
        for (i, (&(a, b, children), contact)) in self.keys.iter().zip(&self.list).enumerate() {
            if take(a, b) {
                out.push(FrozenContact {
                    contact: *contact,
                    base: self.base(i),
                    children,
                });
            }
        }
        self.retain(|_, (a, b, _)| !take(a, b));
    }

    /// Puts frozen contacts back (their islands woke), keeping the set sorted. A pair that is in
    /// the set already was collided afresh this step and keeps that newer contact. Frozen bases
    /// wait in `Bases::thawed` for the next update.
    pub fn thaw(&mut self, mut frozen: Vec<FrozenContact>) {
        self.ensure_keys();
        self.touching_as_before = false;
        frozen.sort_unstable_by_key(FrozenContact::key);
        let n = self.list.len() + frozen.len();
        let (mut keys, mut contacts, mut base_of) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let thawed = &mut self.bases.thawed;
        let mut old = self
            .keys
            .iter()
            .zip(&self.list)
            .zip(&self.base_of)
            .peekable();
        for f in frozen {
            while let Some(((&key, &c), &base)) = old.next_if(|((&key, _), _)| key <= f.key()) {
                keys.push(key);
                contacts.push(c);
                base_of.push(base);
            }
            if keys.last() != Some(&f.key()) {
                keys.push(f.key());
                contacts.push(f.contact);
                if f.base.point_count() == 0 {
                    base_of.push(NONE);
                } else {
                    base_of.push(thawed.len() as u32 | THAWED);
                    thawed.push(f.base);
                }
            }
        }
        for ((&key, &c), &base) in old {
            keys.push(key);
            contacts.push(c);
            base_of.push(base);
        }
        (self.keys, self.list, self.base_of) = (keys, contacts, base_of);
        // Thawing is rare (an island wakes), and it has just copied every contact anyway.
        self.find_flags();
    }

    /// The contacts with their keys, for the pre-solve hook to change their materials and
    /// tangent speeds in place (see `pre_solve`).
    pub fn hooked(&mut self) -> (&mut [Contact], &[ContactKey]) {
        self.ensure_keys();
        (&mut self.list, &self.keys)
    }

    /// Drops the contacts for which `disabled` (one flag per contact) is true, for this step.
    pub fn disable(&mut self, disabled: &[bool]) {
        debug_assert_eq!(disabled.len(), self.list.len());
        self.retain(|i, _| !disabled[i]);
    }

    /// Copies into `backup` everything [`ContactSet::update`] changes but its scratch, so that
    /// [`ContactSet::restore`] can undo an update whose step is refused afterwards. The bases
    /// are not copied: the next update leaves them as they are (see `Bases::keep_current`).
    pub fn save(&mut self, backup: &mut ContactBackup) {
        self.bases.keep_current = true;
        backup.list.clone_from(&self.list);
        backup.keys.clone_from(&self.keys);
        backup.base_of.clone_from(&self.base_of);
        backup.touching.clone_from(&self.touching);
        backup.one_point.clone_from(&self.one_point);
        backup.closing.clone_from(&self.closing);
        backup.thawed.clone_from(&self.bases.thawed);
        backup.touch_threshold = self.touch_threshold;
        backup.touching_as_before = self.touching_as_before;
        backup.current = self.bases.current;
    }

    /// Puts back what [`ContactSet::save`] copied, after one update since. The update wrote its
    /// bases to the other set of slots and left the set the saved `base_of` points into as it
    /// was: turning `current` back restores them without a copy.
    pub fn restore(&mut self, backup: &mut ContactBackup) {
        std::mem::swap(&mut self.list, &mut backup.list);
        std::mem::swap(&mut self.keys, &mut backup.keys);
        std::mem::swap(&mut self.base_of, &mut backup.base_of);
        std::mem::swap(&mut self.touching, &mut backup.touching);
        std::mem::swap(&mut self.one_point, &mut backup.one_point);
        std::mem::swap(&mut self.closing, &mut backup.closing);
        std::mem::swap(&mut self.bases.thawed, &mut backup.thawed);
        self.touch_threshold = backup.touch_threshold;
        self.touching_as_before = backup.touching_as_before;
        self.bases.current = backup.current;
    }

    /// Drops every contact between bodies `a` and `b` for which `gone(a, b)`.
    pub fn remove_bodies(&mut self, gone: impl Fn(BodySlot, BodySlot) -> bool) {
        self.touching_as_before = false;
        if !self.in_sync() {
            self.list.retain(|c| !gone(c.a, c.b));
            return;
        }
        self.retain(|_, (a, b, _)| !gone(a, b));
    }

    /// Drops the contacts on shape `index` of the body in `slot`, which is being removed, and
    /// numbers those on its later shapes one lower, as the shapes will be: each keeps its
    /// manifold and warm start. The set stays sorted, as the renumbering keeps the order of
    /// the body's other shapes. The body's island must be awake (no contact of it frozen).
    pub fn shape_removed(&mut self, slot: BodySlot, index: usize) {
        self.ensure_keys();
        let on = |body: BodySlot, child: usize| body == slot && child == index;
        self.retain(|_, (a, b, children)| {
            let (ca, cb) = split_children(children);
            !on(a, ca) && !on(b, cb)
        });
        for (a, b, children) in &mut self.keys {
            let (mut ca, mut cb) = split_children(*children);
            ca -= usize::from(*a == slot && ca > index);
            cb -= usize::from(*b == slot && cb > index);
            *children = join_children(ca, cb);
        }
    }

    /// Each contact's bodies and shape pair, in contact order. In step with `list` after every
    /// change this set makes (`update`, `thaw`, ...).
    pub fn keys(&self) -> &[ContactKey] {
        debug_assert_eq!(self.keys.len(), self.list.len());
        &self.keys
    }

    /// Whether each contact touches (see `contact_events`), in contact order; in step with
    /// `list` like [`ContactSet::keys`].
    pub fn touching(&self) -> &[bool] {
        debug_assert_eq!(self.touching.len(), self.list.len());
        &self.touching
    }

    /// Per contact, whether it has at most one point: read where the contacts themselves
    /// would be a cache line each.
    pub fn one_point(&self) -> &[bool] {
        debug_assert_eq!(self.one_point.len(), self.list.len());
        &self.one_point
    }

    /// The speed at which contact `i`, which does not touch, closes in, if it does
    /// (`closing_in` with `bodies` as they were when the narrowphase ran).
    pub fn closing_in(&self, i: usize, bodies: &BodyStore) -> Option<f32> {
        match self.closing[i] {
            speed if speed.is_nan() => closing_in(&self.list[i], bodies),
            speed => (speed > 0.0).then_some(speed),
        }
    }

    /// Whether the touching pairs are those of the update before, in the same contacts, and
    /// nothing has changed the contacts since the last update (see `contact_events`).
    pub fn touching_as_before(&self) -> bool {
        self.touching_as_before && self.in_sync()
    }

    /// The shape pair of contact `i` (0 if its key was lost, see `ensure_keys`).
    pub fn shape_pair(&self, i: usize) -> Children {
        let in_sync = self.keys.len() == self.list.len();
        self.keys.get(i).filter(|_| in_sync).map_or(0, |k| k.2)
    }

    /// The shape pair of each contact, in contact order (0 for contacts whose key was lost, see
    /// `ensure_keys`).
    pub fn children(&self) -> impl Iterator<Item = Children> + '_ {
        let in_sync = self.keys.len() == self.list.len();
        let keys = if in_sync { &self.keys[..] } else { &[] };
        (0..self.list.len()).map(move |i| keys.get(i).map_or(0, |k| k.2))
    }
}

/// A copy without the scratch of `update`, which fills it afresh for every step (as it does for
/// a set read from a snapshot's bytes): a snapshot of a pile would copy each contact twice more
/// otherwise.
impl Clone for ContactSet {
    fn clone(&self) -> ContactSet {
        let mut copy = ContactSet::default();
        copy.clone_from(self);
        copy
    }

    /// Copies into this set's own lists, and leaves its scratch as it was.
    fn clone_from(&mut self, source: &ContactSet) {
        let ContactSet {
            list,
            keys,
            base_of,
            touching,
            one_point,
            closing,
            touch_threshold,
            touching_as_before,
            bases,
            previous: _,
            candidates: _,
            found: _,
            new_touching: _,
            new_one_point: _,
            speed: _,
            chunk_starts: _,
            poses: _,
        } = self;
        list.clone_from(&source.list);
        keys.clone_from(&source.keys);
        base_of.clone_from(&source.base_of);
        touching.clone_from(&source.touching);
        one_point.clone_from(&source.one_point);
        closing.clone_from(&source.closing);
        *touch_threshold = source.touch_threshold;
        *touching_as_before = source.touching_as_before;
        bases.clone_from(&source.bases);
    }
}

/// Whether `keys` are the keys of `pairs`, the pairs `first..` of an update, with their shape
/// pairs in `children` (all of the update's; empty when no body is a compound, every shape
/// pair 0). Every pair of a resting scene is tested, each step: without early exits the test
/// is a few instructions a pair.
fn same_keys(
    keys: &[ContactKey],
    pairs: &[(u32, u32)],
    children: &[Children],
    first: usize,
) -> bool {
    let same = |ok: bool, (&(a, b, c), &pair): (&ContactKey, &(u32, u32)), child: Children| {
        ok & ((a, b) == body_slots(pair)) & (c == child)
    };
    match children.get(first..first + pairs.len()) {
        Some(children) => (keys.iter().zip(pairs).zip(children))
            .fold(true, |ok, (key, &child)| same(ok, key, child)),
        None => keys
            .iter()
            .zip(pairs)
            .fold(true, |ok, key| same(ok, key, 0)),
    }
}
