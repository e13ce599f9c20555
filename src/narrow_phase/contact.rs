//! The contact set: the narrowphase stage over the broadphase pairs (one manifold per pair,
//! from `manifold.rs`), and the persistence of contact points across steps so the solver can
//! warm start from last step's impulses.
//!
//! A pair with a polygon that touched last step and has barely moved since its manifold was
//! last computed recycles that manifold instead of running
//! [`shape_manifold`](crate::narrow_phase::manifold::shape_manifold) again: see `recycle`. Each chunk of
//! pairs gathers those that may recycle into batches for the recycle kernel, and collides the
//! others, and those the kernel turns down, afresh.

use crate::body::{BodyStore, SlotKind};
use crate::broad_phase::compound::{join_children, split_children, Children};
use crate::codec::{codec_struct, invalid, Codec, Reader, Writer};
use crate::disjoint::DisjointMut;
use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::geometry::shape::Shape;
use crate::index::{BodySlot, ContactIndex, NONE};
use crate::narrow_phase::manifold::{
    boxes_into, collide_into, Manifold, ManifoldPoint, MAX_MANIFOLD_POINTS,
};
use crate::narrow_phase::recycle::{local_form, recycle_params, Base, RecycleKernel, Recycler};
use crate::narrow_phase::removal::Removed;
use crate::settings::MixRule;
use rayon::prelude::*;

/// What contacts are sorted and matched by: the two body slots, then the shape pair.
pub(crate) type ContactKey = (BodySlot, BodySlot, Children);

/// A touching pair of shapes (at least one manifold point) of bodies `a < b` by slot. Which
/// shapes, for a compound body, is kept beside it in [`ContactSet`] (its key), not here: the
/// solver and graph read contacts in bulk and this stays small for them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Contact {
    pub a: BodySlot,
    pub b: BodySlot,
    pub manifold: Manifold,
    pub friction: f32,
    pub restitution: f32,
    /// Relative tangent speed (m/s) friction drives towards (a conveyor belt's); 0 unless
    /// the pre-solve hook set it this step.
    pub tangent_speed: f32,
}

impl Contact {
    /// Hints the CPU to start loading every cache line of the contact (two or three: it is
    /// not line-aligned). Only a hint: it changes no result.
    #[inline(always)]
    pub fn prefetch(&self) {
        prefetch(self);
        let start = (self as *const Contact).cast::<i8>();
        prefetch_line(start.wrapping_add(std::mem::size_of::<Contact>() - 1));
    }

    fn key(&self) -> (BodySlot, BodySlot) {
        (self.a, self.b)
    }

    /// Whether the contact has at most one point: the solver packs such contacts into batches
    /// of their own, which a faster kernel solves.
    #[inline]
    pub fn has_one_point(&self) -> bool {
        self.manifold.point_count <= 1
    }

    /// A placeholder slot, overwritten before it is read.
    fn empty() -> Contact {
        Contact {
            a: BodySlot::NONE,
            b: BodySlot::NONE,
            manifold: Manifold::default(),
            friction: 0.0,
            restitution: 0.0,
            tangent_speed: 0.0,
        }
    }
}

/// A touching contact set aside while its island sleeps: the manifold with its impulses (to
/// warm start from on waking) and the base that recycling measures motion from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrozenContact {
    contact: Contact,
    base: Base,
    children: Children,
}

impl FrozenContact {
    /// The slots of the pair, `a < b`.
    pub fn bodies(&self) -> (BodySlot, BodySlot) {
        self.contact.key()
    }

    /// Bodies and shapes: the order of the contact set.
    fn key(&self) -> ContactKey {
        (self.contact.a, self.contact.b, self.children)
    }
}

/// Mixing rules and distances the narrowphase needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NarrowPhaseParams {
    /// Gap within which bodies at rest relative to each other get contact points.
    pub speculative_distance: f32,
    /// Step length: a pair whose bodies move also gets points within the distance they can
    /// close in one step, so that the solver stops them at contact instead of after they
    /// have sunk into each other (which the push-out would then turn into a bounce).
    pub dt: f32,
    pub friction_mixing: MixRule,
    pub restitution_mixing: MixRule,
    /// Separation below which a point touches (`WorldSettings::linear_slop`; see
    /// `contact_events`).
    pub linear_slop: f32,
    /// Mix every contact's materials afresh, not carrying them from last step's contact: a
    /// pre-solve hook may have changed those (see `pre_solve`).
    pub remix: bool,
    /// The kernel that recycles manifolds, of the world's backend and instruction set.
    pub recycle: RecycleKernel,
}

/// The touching contacts of the last step, sorted by `(a, b, children)`.
#[derive(Default)]
pub(crate) struct ContactSet {
    /// This step's contacts, sorted by pair (by [`ContactKey`]).
    pub list: Vec<Contact>,
    /// `keys[i]` is `(contacts[i].a, contacts[i].b, children)`, packed so the merge-join with
    /// the new pairs reads 12 bytes per contact instead of a cache line. The shape pair lives
    /// only here.
    keys: Vec<ContactKey>,
    /// `base_of[i]`: where the base of `contacts[i]` is in `bases`, or `NONE` for a contact
    /// with nothing to recycle (two circles).
    base_of: Vec<u32>,
    /// `touching[i]`: whether `contacts[i]` touches (see `contact_events`), found while the
    /// narrowphase has the contact in cache, so that the step's events read a byte per
    /// contact where they would read the contact.
    touching: Vec<bool>,
    /// `one_point[i]`: whether `contacts[i]` has at most one point, found likewise for the
    /// coloring, which packs such contacts apart.
    one_point: Vec<bool>,
    /// `closing[i]`: where `contacts[i]` does not touch (elsewhere left as it was), the speed
    /// at which it closes in (`closing_in`, 0 where it does not), found likewise for the
    /// events; NaN where the narrowphase did not find it (a contact thawed after it ran, or
    /// flags rebuilt from the contacts alone), for the events to find.
    closing: Vec<f32>,
    /// The threshold `touching` was found with: the last update's linear slop.
    touch_threshold: f32,
    /// Whether the last update found the same pairs, in the same order, touching the same way
    /// as the update before, and nothing has changed the contacts since: then the touching
    /// pairs stand, and the step has no touch events.
    touching_as_before: bool,
    /// The last full collides of the contacts that recycle. Only pairs with a polygon have
    /// one, so a pile of circles keeps none.
    bases: Bases,
    /// Scratch: for each new pair, the same pair's contact last step, or `NONE`.
    previous: Vec<ContactIndex>,
    /// Scratch: the new contacts before non-touching ones are dropped, a slot per pair.
    candidates: Vec<Contact>,
    /// Scratch: per pair, `FAR` if it does not touch, else its base's index (`NONE` for
    /// none), as `base_of` holds it.
    found: Vec<u32>,
    /// Scratch: per pair, what the flags `touching` and `one_point` of its contact will be...
    new_touching: Vec<bool>,
    new_one_point: Vec<bool>,
    /// ...and its closing speed, where it is kept and does not touch.
    speed: Vec<f32>,
    /// Scratch: where each chunk's touching contacts go.
    chunk_starts: Vec<usize>,
}

/// A copy of a [`ContactSet`] from before an update: see [`ContactSet::save`].
#[derive(Default)]
pub(crate) struct ContactBackup {
    list: Vec<Contact>,
    keys: Vec<ContactKey>,
    base_of: Vec<u32>,
    touching: Vec<bool>,
    one_point: Vec<bool>,
    closing: Vec<f32>,
    thawed: Vec<Base>,
    touch_threshold: f32,
    touching_as_before: bool,
    current: usize,
}

/// The bases of the contacts, left where the narrowphase wrote them: in the slots of the chunk
/// of pairs that found them, `CHUNK` per chunk, so that a base's index is its chunk times
/// `CHUNK` plus its place in the chunk. Two sets of slots take turns: the narrowphase reads
/// last step's bases from one while it writes this step's to the other, and nothing is copied.
#[derive(Default)]
struct Bases {
    sets: [Vec<BaseSlots>; 2],
    /// The set that `ContactSet::base_of` points into.
    current: usize,
    /// Bases of woken contacts (see `ContactSet::thaw`), indexed with [`THAWED`] set, until
    /// the next update has read them.
    thawed: Vec<Base>,
}

/// A copy of the bases the contacts point into: the current set only. The other set is the
/// next update's scratch, which that update fills afresh, as it does for a set read from a
/// snapshot's bytes; `clone_from` leaves its own as it was, for that update to reuse.
impl Clone for Bases {
    fn clone(&self) -> Bases {
        let mut sets: [Vec<BaseSlots>; 2] = Default::default();
        sets[self.current] = self.sets[self.current].clone();
        Bases {
            sets,
            current: self.current,
            thawed: self.thawed.clone(),
        }
    }

    fn clone_from(&mut self, source: &Bases) {
        self.current = source.current;
        self.sets[self.current].clone_from(&source.sets[self.current]);
        self.thawed.clone_from(&source.thawed);
    }
}

/// Marks a base index into [`Bases::thawed`].
const THAWED: u32 = 1 << 31;

impl Bases {
    /// The base at `index` (not `NONE`).
    fn get(&self, index: u32) -> &Base {
        base_at(&self.sets[self.current], &self.thawed, index)
    }
}

/// The base at `index` (not `NONE`) of a set of chunk slots and the thawed bases.
fn base_at<'a>(set: &'a [BaseSlots], thawed: &'a [Base], index: u32) -> &'a Base {
    if index & THAWED != 0 {
        return &thawed[(index & !THAWED) as usize];
    }
    let (chunk, at) = (index as usize / CHUNK, index as usize % CHUNK);
    &set[chunk].as_slice()[at]
}

/// [`ContactSet::found`] of a pair that does not touch.
const FAR: u32 = u32::MAX - 1;

/// The bases one chunk of pairs found: the first `count` of `items`. The rest are slots left
/// from earlier steps, overwritten in place when reused: a base built elsewhere and pushed
/// goes through the stack, and the wide copy out of it stalls on the narrow stores that built
/// it (measured at a tenth of a pyramid's narrowphase).
#[derive(Default)]
struct BaseSlots {
    items: Vec<Base>,
    count: usize,
}

/// A copy of the chunk's bases, without the stale slots past `count`.
impl Clone for BaseSlots {
    fn clone(&self) -> BaseSlots {
        BaseSlots {
            items: self.as_slice().to_vec(),
            count: self.count,
        }
    }

    fn clone_from(&mut self, source: &BaseSlots) {
        self.items.clear();
        self.items.extend_from_slice(source.as_slice());
        self.count = source.count;
    }
}

impl BaseSlots {
    fn clear(&mut self) {
        self.count = 0;
    }

    /// Takes the next slot, for the caller to write in place, and returns its index with it.
    /// A slot is made the first time the chunk needs it: room for a whole chunk is reserved
    /// then, so steady steps never allocate, and pages are touched only as slots are made (a
    /// pile of circles makes none).
    #[inline(always)]
    fn push(&mut self) -> (u32, &mut Base) {
        if self.count == self.items.len() {
            if self.items.capacity() == 0 {
                self.items.reserve_exact(CHUNK);
            }
            self.items.push(Base::empty());
        }
        self.count += 1;
        ((self.count - 1) as u32, &mut self.items[self.count - 1])
    }

    fn as_slice(&self) -> &[Base] {
        &self.items[..self.count]
    }
}

/// Pairs per parallel task. Within a task the shapes of the pair `PREFETCH_AHEAD` places on
/// are prefetched: pairs join bodies far apart in memory (a pile's neighbours are a row of
/// bodies apart), and the shape is the one large record a pair reads per body.
const CHUNK: usize = 256;
const PREFETCH_AHEAD: usize = 6;

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
        // Last step's bases are read from the current set while this step's go to the other.
        let Bases {
            sets: [first, second],
            current,
            thawed,
        } = &mut self.bases;
        let (read, write) = if *current == 0 {
            (&*first, second)
        } else {
            (&*second, first)
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
        let old = OldContacts {
            in_place: same_pairs,
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
                update_chunk(out, pairs, None, previous, &old, bodies, params);
            });
        } else {
            chunks.for_each(|(k, out, pairs, previous)| {
                let children = Some(&children[k * CHUNK..k * CHUNK + pairs.len()]);
                update_chunk(out, pairs, children, previous, &old, bodies, params);
            });
        }
        self.keep_touching(pairs, children, same_pairs);
        self.bases.current ^= 1;
        self.bases.thawed.clear();
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
        self.found
            .par_chunks(CHUNK)
            .zip(self.chunk_starts.par_iter())
            .enumerate()
            .for_each(|(k, (found, &start))| {
                let kept = (k * CHUNK..).zip(found).filter(|&(_, &f)| f != FAR);
                for (at, (i, &found)) in (start..).zip(kept) {
                    // SAFETY: chunk k writes slots chunk_starts[k].. up to its touching count,
                    // which the prefix sum keeps disjoint from every other chunk's and below
                    // `total`, the length of all six vectors.
                    unsafe {
                        *contacts.get(at) = candidates[i];
                        *keys.get(at) = key(i);
                        *base_of.get(at) = found;
                        *touching.get(at) = new_touching[i];
                        *one_point.get(at) = new_one_point[i];
                        if !new_touching[i] {
                            *closing.get(at) = speed[i];
                        }
                    }
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
    fn base(&self, i: usize) -> Base {
        match self.base_of[i] {
            NONE => Base::empty(),
            b => *self.bases.get(b),
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
                if same_count
                    && (first..)
                        .zip(&keys[first..])
                        .take(previous.len())
                        .all(|(i, &old)| old == key(i))
                {
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
    fn in_sync(&self) -> bool {
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
    /// [`ContactSet::restore`] can undo an update whose step is refused afterwards.
    pub fn save(&self, backup: &mut ContactBackup) {
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

codec_struct!(Contact {
    a,
    b,
    manifold,
    friction,
    restitution,
    tangent_speed
});

codec_struct!(FrozenContact {
    contact,
    base,
    children
});

/// Saves the contacts with what the next update and the events read beside them: each one's
/// shape pair, recycling base and flags. The bases are read back into `Bases::thawed`, where
/// the next update finds them as it finds those of woken contacts; the scratch is rebuilt.
impl Codec for ContactSet {
    const MIN_SIZE: usize = 1;

    fn encode(&self, w: &mut Writer) {
        let ContactSet {
            list,
            keys,
            base_of: _,
            touching,
            one_point,
            closing,
            touch_threshold,
            touching_as_before,
            bases: _,
            previous: _,
            candidates: _,
            found: _,
            new_touching: _,
            new_one_point: _,
            speed: _,
            chunk_starts: _,
        } = self;
        touch_threshold.encode(w);
        touching_as_before.encode(w);
        let in_sync = self.in_sync();
        in_sync.encode(w);
        list.encode(w);
        if in_sync {
            for i in 0..list.len() {
                keys[i].2.encode(w);
                let base = (self.base_of[i] != NONE).then(|| self.base(i));
                base.encode(w);
                touching[i].encode(w);
                one_point[i].encode(w);
                closing[i].encode(w);
            }
        }
    }

    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let mut set = ContactSet {
            touch_threshold: f32::decode(r)?,
            touching_as_before: bool::decode(r)?,
            ..ContactSet::default()
        };
        let in_sync = bool::decode(r)?;
        set.list = Vec::decode(r)?;
        if in_sync {
            for c in &set.list {
                set.keys.push((c.a, c.b, Children::decode(r)?));
                match Option::<Base>::decode(r)? {
                    Some(base) => {
                        set.base_of.push(set.bases.thawed.len() as u32 | THAWED);
                        set.bases.thawed.push(base);
                    }
                    None => set.base_of.push(NONE),
                }
                set.touching.push(bool::decode(r)?);
                set.one_point.push(bool::decode(r)?);
                set.closing.push(f32::decode(r)?);
            }
        }
        Ok(set)
    }
}

impl ContactSet {
    /// `Err` with the reason unless every contact (listed here or frozen, see
    /// [`check_contact`]) could have come from `bodies`, the contacts are sorted by key with
    /// no key twice, and the flags say what the contacts do. A contact of a body in a slot
    /// that `removed` marks is let through: the next step drops it before reading it.
    pub fn check(&self, bodies: &BodyStore, removed: &Removed) -> Result<(), Error> {
        if !self.touch_threshold.is_finite() || self.touch_threshold < 0.0 {
            return Err(invalid("contact threshold out of range"));
        }
        let sorted = self.keys.windows(2).all(|w| w[0] < w[1]);
        let in_step = (self.keys.iter().zip(&self.list)).all(|(k, c)| (k.0, k.1) == (c.a, c.b));
        if !(sorted && in_step) {
            return Err(invalid("contacts out of order"));
        }
        for (i, c) in self.list.iter().enumerate() {
            let dropped = c.a < c.b && c.b.index() < bodies.slots() && removed.either(c.a, c.b);
            if dropped {
                continue;
            }
            let children = self.keys.get(i).map_or(0, |k| k.2);
            check_contact(c, children, bodies)
                .map_err(|why| invalid(format!("contact {i}: {why}")))?;
            if self.keys.len() == self.list.len() {
                if self.one_point[i] != c.has_one_point() {
                    return Err(invalid(format!("contact {i}: flags disagree")));
                }
                if self.base_of[i] != NONE {
                    let base = self.bases.get(self.base_of[i]);
                    check_base(base).map_err(|why| invalid(format!("contact {i}: {why}")))?;
                }
            }
        }
        Ok(())
    }
}

impl FrozenContact {
    /// `Err` with the reason unless the contact could have come from `bodies` (see
    /// [`check_contact`]).
    pub fn check(&self, bodies: &BodyStore) -> Result<(), &'static str> {
        check_contact(&self.contact, self.children, bodies)?;
        check_base(&self.base)
    }
}

/// `Err` with the reason unless `c` is a contact of two live bodies `a < b` by slot, with shape
/// indices each body has, at most two finite points, and finite materials.
fn check_contact(c: &Contact, children: Children, bodies: &BodyStore) -> Result<(), &'static str> {
    let live =
        |s: BodySlot| s.index() < bodies.slots() && bodies.kind()[s.index()] != SlotKind::Empty;
    if !(c.a < c.b && live(c.a) && live(c.b)) {
        return Err("bodies not two live ones in order");
    }
    let (child_a, child_b) = split_children(children);
    if child_a >= bodies.shapes(c.a.index()).len() || child_b >= bodies.shapes(c.b.index()).len() {
        return Err("shape index out of range");
    }
    let m = &c.manifold;
    if m.point_count > MAX_MANIFOLD_POINTS || !m.normal.is_finite() {
        return Err("bad manifold");
    }
    let finite = m.points[..m.point_count].iter().all(|p| {
        p.point.is_finite()
            && p.anchor_a.is_finite()
            && p.anchor_b.is_finite()
            && [
                p.separation,
                p.normal_impulse,
                p.tangent_impulse,
                p.impact_impulse,
            ]
            .iter()
            .all(|x| x.is_finite())
    });
    if !(finite && c.friction.is_finite() && c.restitution.is_finite()) {
        return Err("number not finite");
    }
    Ok(())
}

/// `Err` unless the recycling base has at most two finite points and a finite transform.
fn check_base(base: &Base) -> Result<(), &'static str> {
    let m = &base.manifold();
    let xf = base.relative();
    let finite = m.normal.is_finite()
        && xf.p.is_finite()
        && xf.q.c.is_finite()
        && xf.q.s.is_finite()
        && m.point_count <= MAX_MANIFOLD_POINTS
        && m.points[..m.point_count]
            .iter()
            .all(|p| p.point.is_finite() && p.separation.is_finite());
    if finite {
        Ok(())
    } else {
        Err("bad recycling base")
    }
}

/// Hints the CPU to start loading `value` (its first two cache lines) into cache. Only a
/// hint: it changes no result.
#[inline(always)]
fn prefetch<T>(value: &T) {
    let p = (value as *const T).cast::<i8>();
    prefetch_line(p);
    prefetch_line(p.wrapping_add(64));
}

/// Hints the CPU to start loading the cache line holding `p`. Prefetching never faults and
/// reads nothing architecturally, whatever the address.
#[inline(always)]
fn prefetch_line(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: see above; the callers form `p` with `wrapping_add`, which keeps the
        // pointer arithmetic defined.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The body slots of a broadphase pair. The broadphase keeps its pairs raw `u32`: its grids
/// are code of their own, converted here where the narrowphase takes them.
#[inline]
fn body_slots((a, b): (u32, u32)) -> (BodySlot, BodySlot) {
    (BodySlot::new(a as usize), BodySlot::new(b as usize))
}

/// The normal for circles `a` and `b` created at one point: the difference of two points
/// hashed from their slots. One shared normal would line a cluster of concentric circles up on
/// a single axis, where every pair pushes its own way out and the speeds add up along the line
/// (1000 circles reached 94 m/s); points specific to each body fan the cluster out in the plane.
fn concentric_normal(a: BodySlot, b: BodySlot) -> Vec2 {
    let direction = |slot: BodySlot| {
        // Fibonacci hashing: consecutive slots land far apart on [-1, 1]^2.
        let h = (slot.index() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let unit = |bits: u64| (bits >> 40) as f32 * (2.0 / (1u64 << 24) as f32) - 1.0;
        Vec2::new(unit(h), unit(h << 24))
    };
    (direction(b) - direction(a))
        .normalized()
        .unwrap_or(Vec2::new(0.0, 1.0))
}

/// Last step's contact of a pair and its base, if it has one (see [`update_chunk`]).
type Old<'a> = Option<(&'a Contact, Option<&'a Base>)>;

/// Last step's contacts with their bases, as [`update_chunk`] looks each pair's up.
struct OldContacts<'a> {
    /// Whether the update is in place: each pair's slot holds its contact of last step, and
    /// `list` is empty.
    in_place: bool,
    list: &'a [Contact],
    base_of: &'a [u32],
    /// The set of base slots `base_of` points into.
    read: &'a [BaseSlots],
    thawed: &'a [Base],
}

impl<'a> OldContacts<'a> {
    /// The base of old contact `j`, if it has one.
    #[inline(always)]
    fn base(&self, j: usize) -> Option<&'a Base> {
        let base = self.base_of[j];
        (base != NONE).then(|| base_at(self.read, self.thawed, base))
    }

    /// The old contact at `prev` (not in place) with its base; `None` for `NONE`.
    #[inline(always)]
    fn get(&self, prev: ContactIndex) -> Old<'a> {
        (prev != ContactIndex::NONE).then(|| (&self.list[prev.index()], self.base(prev.index())))
    }
}

/// What the update writes for one chunk of pairs, a slot of each per pair (the bases as they
/// are found).
struct ChunkSlots<'s> {
    slots: &'s mut [Contact],
    found: &'s mut [u32],
    touching: &'s mut [bool],
    one_point: &'s mut [bool],
    speed: &'s mut [f32],
    bases: &'s mut BaseSlots,
    /// The index of the chunk's first base slot among all chunks': its place times `CHUNK`.
    first_base: u32,
}

impl ChunkSlots<'_> {
    /// Notes that pair `i`'s contact, now in its slot, is `found` (`FAR`, `NONE` or the index
    /// of its base among the chunk's slots), with its flags.
    #[inline(always)]
    fn found(&mut self, i: usize, found: u32, threshold: f32, bodies: &BodyStore) {
        self.found[i] = match found {
            FAR | NONE => found,
            at => self.first_base + at,
        };
        let flags = PairFlags::note(&self.slots[i], found, threshold, bodies, &mut self.speed[i]);
        (self.touching[i], self.one_point[i]) = (flags.touch, flags.one_point);
    }

    /// [`ChunkSlots::found`] of a kept contact with its base in slot `at` of the chunk's,
    /// whose touch the caller knows.
    #[inline(always)]
    fn kept(&mut self, i: usize, at: u32, touch: bool, bodies: &BodyStore) {
        self.found[i] = self.first_base + at;
        let flags = PairFlags::kept(&self.slots[i], touch, bodies, &mut self.speed[i]);
        (self.touching[i], self.one_point[i]) = (flags.touch, flags.one_point);
    }
}

/// Updates one chunk of pairs: `pairs` (with `children`, or `None` in a world without compound
/// bodies) and, for each, the index of its contact last step in `previous`, which `old` looks
/// up. A pair whose old contact has a base goes to the recycle kernel, eight at a time; the
/// others, and those the kernel turns down, collide afresh. A pair's slots are the same
/// whichever way it goes, and each way depends on the pair alone, so the order does not
/// change the result.
#[inline(always)]
fn update_chunk<'a>(
    mut out: ChunkSlots,
    pairs: &[(u32, u32)],
    children: Option<&[Children]>,
    previous: &[ContactIndex],
    old: &OldContacts<'a>,
    bodies: &BodyStore,
    params: &NarrowPhaseParams,
) {
    out.bases.clear();
    // The chunk's first pair, whose contact is in place the first of the chunk's old ones.
    let first = out.first_base as usize;
    let threshold = params.linear_slop;
    let fresh = |out: &mut ChunkSlots, i: usize, old: Old| {
        let (a, b) = body_slots(pairs[i]);
        let (slot, bases) = (&mut out.slots[i], &mut *out.bases);
        let found = match children {
            None => update_pair(slot, bases, a, b, bodies, params, old),
            Some(children) => {
                update_shape_pair(slot, bases, a, b, children[i], bodies, params, old)
            }
        };
        out.found(i, found.unwrap_or(FAR), threshold, bodies);
    };
    let recycle = recycle_params(params.speculative_distance, threshold);
    let in_place = old.in_place;
    let run = |out: &mut ChunkSlots, recycler: &mut Recycler<usize>| {
        let (len, lanes) = recycler.run(params.recycle, &recycle);
        for l in 0..len {
            let i = recycler.payload(l);
            let kept = lanes.kept & 1 << l != 0
                || lanes.beyond & 1 << l != 0 && {
                    let (a, b) = body_slots(pairs[i]);
                    let widened = widened(a.index(), b.index(), bodies, params);
                    recycler.within(l, params.speculative_distance, widened)
                };
            let base = recycler.base(l);
            if !kept {
                // (In place, the fresh collide overwrites the old contact it reads: a copy.)
                let in_slot = in_place.then(|| out.slots[i]);
                let old = in_slot
                    .as_ref()
                    .unwrap_or_else(|| old.get(previous[i]).unwrap().0);
                fresh(out, i, Some((old, Some(base))));
                continue;
            }
            let slot = &mut out.slots[i];
            let remix = params.remix || children.is_some();
            if in_place {
                recycler.write_in_place(l, &mut slot.manifold);
            } else {
                let old = old
                    .get(previous[i])
                    .expect("a recycled pair's old contact")
                    .0;
                (slot.a, slot.b) = (old.a, old.b);
                (slot.friction, slot.restitution) = (old.friction, old.restitution);
                recycler.write(l, &old.manifold, &mut slot.manifold);
            }
            if remix {
                let children = children.map_or(0, |c| c[i]);
                (slot.friction, slot.restitution) =
                    mixed(slot.a.index(), slot.b.index(), children, bodies, params);
            }
            slot.tangent_speed = 0.0;
            let (index, copy) = out.bases.push();
            *copy = *base;
            // A moved point below the slop touches (the kernel's mask), and so does one that
            // bounced last step (see `point_touches`).
            let touch = lanes.touching & 1 << l != 0 || {
                let m = &slot.manifold;
                m.points[..m.point_count]
                    .iter()
                    .any(|p| p.impact_impulse > 0.0)
            };
            out.kept(i, index, touch, bodies);
        }
    };
    let mut recycler = Recycler::new();
    for i in 0..pairs.len() {
        if children.is_none() {
            if let Some(&(a, b)) = pairs.get(i + PREFETCH_AHEAD) {
                prefetch(&bodies.shape()[a as usize]);
                prefetch(&bodies.shape()[b as usize]);
            }
        }
        let (a, b) = body_slots(pairs[i]);
        let (key, base) = if in_place {
            (out.slots[i].key(), old.base(first + i))
        } else {
            match old.get(previous[i]) {
                Some((c, base)) => (c.key(), base),
                None => ((BodySlot::NONE, BodySlot::NONE), None),
            }
        };
        match base {
            // (A contact of another pair would mean the old contacts were reordered behind
            // our back.)
            Some(base) if key == (a, b) => {
                if recycler.push(i, (a.index(), b.index()), bodies, base) {
                    run(&mut out, &mut recycler);
                }
            }
            _ if in_place => {
                let c = out.slots[i];
                fresh(&mut out, i, Some((&c, base)));
            }
            _ => fresh(&mut out, i, old.get(previous[i])),
        }
    }
    run(&mut out, &mut recycler);
}

/// The friction and restitution of shape pair `children` of the bodies in slots `a` and `b`,
/// mixed by the world's rules.
fn mixed(
    a: usize,
    b: usize,
    children: Children,
    bodies: &BodyStore,
    params: &NarrowPhaseParams,
) -> (f32, f32) {
    let (ca, cb) = split_children(children);
    let (friction_a, restitution_a) = bodies.child_material(a, ca);
    let (friction_b, restitution_b) = bodies.child_material(b, cb);
    (
        params.friction_mixing.mix(friction_a, friction_b),
        params.restitution_mixing.mix(restitution_a, restitution_b),
    )
}

/// The speculative distance widened by how far the bodies in slots `a` and `b` can close in
/// in a step.
fn widened(a: usize, b: usize, bodies: &BodyStore, params: &NarrowPhaseParams) -> f32 {
    let closing = (bodies.linear_velocity()[b] - bodies.linear_velocity()[a]).length()
        + bodies.angular_velocity()[a].abs() * bodies.reach()[a]
        + bodies.angular_velocity()[b].abs() * bodies.reach()[b];
    params.speculative_distance + closing * params.dt
}

/// Writes the contact of pair `(a, b)` to `slot`, collided afresh, with the impulses of `old`,
/// last step's contact of the pair, carried over where a feature id persists. Returns `None`
/// if the pair does not touch, else the index in `bases` of what the next step recycles from
/// (`NONE` for nothing, as between two circles).
///
/// This is the path of worlds without compound bodies: shapes and materials come straight
/// from the body columns.
fn update_pair(
    slot: &mut Contact,
    bases: &mut BaseSlots,
    a: BodySlot,
    b: BodySlot,
    bodies: &BodyStore,
    params: &NarrowPhaseParams,
    old: Old,
) -> Option<u32> {
    let (sa, sb) = (a.index(), b.index());
    let shapes = || (&bodies.shape()[sa], &bodies.shape()[sb]);
    let materials = || {
        let frictions = (bodies.friction()[sa], bodies.friction()[sb]);
        let restitutions = (bodies.restitution()[sa], bodies.restitution()[sb]);
        (frictions, restitutions)
    };
    update_shapes(
        slot,
        bases,
        (a, b),
        shapes,
        materials,
        bodies,
        params,
        old,
        true,
    )
}

/// [`update_pair`] for shape pair `children` of bodies `a` and `b`, in a world with compound
/// bodies. Never inlined, so that its copy of [`update_shapes`] stays out of the loop of
/// worlds without compounds.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn update_shape_pair(
    slot: &mut Contact,
    bases: &mut BaseSlots,
    a: BodySlot,
    b: BodySlot,
    children: Children,
    bodies: &BodyStore,
    params: &NarrowPhaseParams,
    old: Old,
) -> Option<u32> {
    let (sa, sb) = (a.index(), b.index());
    let (ca, cb) = split_children(children);
    let shapes = || (&bodies.shapes(sa)[ca], &bodies.shapes(sb)[cb]);
    let materials = || {
        let (friction_a, restitution_a) = bodies.child_material(sa, ca);
        let (friction_b, restitution_b) = bodies.child_material(sb, cb);
        ((friction_a, friction_b), (restitution_a, restitution_b))
    };
    update_shapes(
        slot,
        bases,
        (a, b),
        shapes,
        materials,
        bodies,
        params,
        old,
        false,
    )
}

/// The body of [`update_pair`] for bodies `(a, b)`: `shapes` gives their shapes and
/// `materials` their frictions and restitutions, each asked for only where needed;
/// `one_shape` when neither body is a compound.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn update_shapes<'a>(
    slot: &mut Contact,
    bases: &mut BaseSlots,
    (a, b): (BodySlot, BodySlot),
    shapes: impl FnOnce() -> (&'a Shape, &'a Shape),
    materials: impl FnOnce() -> ((f32, f32), (f32, f32)),
    bodies: &BodyStore,
    params: &NarrowPhaseParams,
    old: Old,
    one_shape: bool,
) -> Option<u32> {
    let (sa, sb) = (a.index(), b.index());
    let (xf_a, xf_b) = (bodies.transform(sa), bodies.transform(sb));
    slot.a = a;
    slot.b = b;
    // A contact of another pair would mean the old contacts were reordered behind our back.
    let old = old.filter(|(c, _)| c.key() == (a, b));
    // Between one-shape bodies, last step's contact of the pair joined the same two shapes,
    // whose materials never change: its coefficients are this step's. Mixing afresh costs a
    // square root in f64, a tenth of a resting pyramid's narrowphase. (Compound pairs mix
    // afresh: should their shape pairs be forgotten, see `ensure_keys`, the old contact may
    // be another shape's.)
    slot.tangent_speed = 0.0;
    (slot.friction, slot.restitution) = match old {
        Some((old, _)) if one_shape && !params.remix => (old.friction, old.restitution),
        _ => {
            let ((friction_a, friction_b), (restitution_a, restitution_b)) = materials();
            (
                params.friction_mixing.mix(friction_a, friction_b),
                params.restitution_mixing.mix(restitution_a, restitution_b),
            )
        }
    };

    // The band widened by how far the pair can close in a step.
    let speculative_distance = widened(sa, sb, bodies, params);
    // Swept boxes hand the narrowphase many pairs of fast bodies that are still far apart (a
    // smash's debris); the reach test turns them away for a fraction of a separating-axis
    // test. Two circles collide about as cheaply as it.
    let (shape_a, shape_b) = shapes();
    let both_circles = matches!((shape_a, shape_b), (Shape::Circle(_), Shape::Circle(_)));
    if !both_circles {
        let reach_a = (bodies.center()[sa], bodies.reach()[sa]);
        let reach_b = (bodies.center()[sb], bodies.reach()[sb]);
        if out_of_reach(reach_a, reach_b, speculative_distance) {
            return None;
        }
    }

    let manifold = &mut slot.manifold;
    // Two boxes of one-shape bodies collide from the box columns: the polygons, each a cache
    // miss of its own, are not read.
    let hull = |s: usize| bodies.local_box()[s].and_then(|local| local.hull());
    let hulls = match (one_shape, shape_a, shape_b) {
        (true, Shape::Polygon(_), Shape::Polygon(_)) => hull(sa).zip(hull(sb)),
        _ => None,
    };
    match hulls {
        Some((hull_a, hull_b)) => {
            boxes_into(&hull_a, xf_a, &hull_b, xf_b, speculative_distance, manifold)
        }
        None => {
            let concentric = || concentric_normal(a, b);
            collide_into(
                shape_a,
                xf_a,
                shape_b,
                xf_b,
                speculative_distance,
                concentric,
                manifold,
            )
        }
    }
    if manifold.point_count == 0 {
        // Dropped after this step; nothing will recycle it.
        return None;
    }
    let base = if both_circles {
        // Two circles collide in a handful of operations, no more than the recycling test
        // itself: no base, so next step collides them afresh at once.
        NONE
    } else {
        // Written to the slot, not passed by value or through a closure: either way the base
        // or the transforms went through the stack (see `BaseSlots`).
        let (base, fresh) = bases.push();
        *fresh = Base::new(&local_form(manifold, xf_a), xf_a.inv_mul(xf_b));
        base
    };
    if let Some((old, _)) = old {
        let old = &old.manifold;
        for p in &mut manifold.points[..manifold.point_count] {
            if let Some(q) = old.points[..old.point_count].iter().find(|q| q.id == p.id) {
                p.normal_impulse = q.normal_impulse;
                p.tangent_impulse = q.tangent_impulse;
                p.impact_impulse = q.impact_impulse;
            }
        }
    }
    Some(base)
}

/// Whether two bodies, each of whose shapes lie within `reach` of its `centre` of mass, are
/// farther apart than `speculative_distance`: their circles of reach are, so no contact of
/// theirs lies within it.
fn out_of_reach(
    (centre_a, reach_a): (Vec2, f32),
    (centre_b, reach_b): (Vec2, f32),
    speculative_distance: f32,
) -> bool {
    (centre_b - centre_a).length() - reach_a - reach_b > speculative_distance
}

/// What the update finds of a new pair's contact for the set's flags `touching` and
/// `one_point`.
#[derive(Clone, Copy, Default)]
struct PairFlags {
    touch: bool,
    one_point: bool,
}

impl PairFlags {
    /// The flags of `contact`, just updated (`found` as the update loop has it); notes in
    /// `speed` its closing speed (0 if it does not close in) where it is kept and does not
    /// touch. Elsewhere `speed` is left alone: a resting stack, whose contacts all touch,
    /// writes no speeds.
    #[inline]
    fn note(
        contact: &Contact,
        found: u32,
        threshold: f32,
        bodies: &BodyStore,
        speed: &mut f32,
    ) -> PairFlags {
        if found == FAR {
            PairFlags {
                touch: false,
                one_point: contact.has_one_point(),
            }
        } else {
            PairFlags::kept(contact, touches(contact, threshold), bodies, speed)
        }
    }

    /// [`PairFlags::note`] of a contact that is kept, whose `touch` the caller found.
    #[inline]
    fn kept(contact: &Contact, touch: bool, bodies: &BodyStore, speed: &mut f32) -> PairFlags {
        if !touch {
            *speed = closing_in(contact, bodies).unwrap_or(0.0);
        }
        PairFlags {
            touch,
            one_point: contact.has_one_point(),
        }
    }
}

/// Whether a contact touches: a manifold point within `threshold` of touching, or one that
/// bounced in the last step.
pub(crate) fn touches(contact: &Contact, threshold: f32) -> bool {
    let m = &contact.manifold;
    m.points[..m.point_count]
        .iter()
        .any(|p| point_touches(p, threshold))
}

/// Whether a manifold point touches: within `threshold` of touching, or bounced in the last
/// step.
pub(crate) fn point_touches(p: &ManifoldPoint, threshold: f32) -> bool {
    p.separation < threshold || p.impact_impulse > 0.0
}

/// The centroid of the points of `contact` that satisfy `include`.
pub(crate) fn centroid(contact: &Contact, include: impl Fn(&ManifoldPoint) -> bool) -> Vec2 {
    let m = &contact.manifold;
    let (sum, count) = m.points[..m.point_count]
        .iter()
        .filter(|p| include(p))
        .fold((Vec2::ZERO, 0.0f32), |(sum, n), p| (sum + p.point, n + 1.0));
    sum * (1.0 / count.max(1.0))
}

/// The speed (m/s) at which the point `at` of body `b` moves towards body `a` along the
/// contact's normal, with the bodies' current velocities; negative when they move apart.
pub(crate) fn closing_speed(contact: &Contact, bodies: &BodyStore, at: Vec2) -> f32 {
    let velocity_at = |slot: BodySlot| {
        let s = slot.index();
        let r = at - bodies.center()[s];
        bodies.linear_velocity()[s] + Vec2::cross_sv(bodies.angular_velocity()[s], r)
    };
    let relative = velocity_at(contact.b) - velocity_at(contact.a);
    -relative.dot(contact.manifold.normal)
}

/// The speed at which a contact that does not touch closes in at its points' centroid, if it
/// does (see `ContactLog::approaching`).
pub(crate) fn closing_in(contact: &Contact, bodies: &BodyStore) -> Option<f32> {
    let speed = closing_speed(contact, bodies, centroid(contact, |_| true));
    (speed > 0.0).then_some(speed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::math::{Rot, Transform, Vec2};
    use crate::geometry::shape::LINEAR_SLOP;
    use crate::narrow_phase::manifold::shape_manifold;
    use crate::narrow_phase::recycle::recycle_one;

    const SPECULATIVE: f32 = 4.0 * LINEAR_SLOP;

    fn xf(x: f32, y: f32, angle: f32) -> Transform {
        Transform::new(Vec2::new(x, y), Rot::from_angle(angle))
    }

    #[test]
    fn pairs_out_of_reach_are_farther_apart_than_the_speculative_distance() {
        let triangle = [
            Vec2::new(0.0, 0.0),
            Vec2::new(0.9, 0.1),
            Vec2::new(0.2, 0.7),
        ];
        let shapes = [
            Shape::rect(0.2, 0.2).unwrap(),
            Shape::offset_rect(0.4, 0.1, Vec2::new(0.3, -0.2), 0.7).unwrap(),
            Shape::circle_at(Vec2::new(0.25, 0.1), 0.15).unwrap(),
            Shape::polygon(&triangle).unwrap(),
            Shape::rounded_polygon(&triangle, 0.05).unwrap(),
        ];
        let (mut cases, mut turned_away, mut close_calls) = (0, 0, 0);
        let mut seed = 12345u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        for a in &shapes {
            for b in &shapes {
                for _ in 0..400 {
                    let xf_a = xf(next() - 0.5, next() - 0.5, 6.0 * next());
                    let xf_b = xf(2.5 * next() - 0.5, 2.5 * next() - 0.5, 6.0 * next());
                    // Up to a fast body's reach over a step: 2 cm plus 20 m/s for 1/60 s.
                    let speculative = SPECULATIVE + 0.33 * next();
                    cases += 1;
                    let body = |shape: &Shape, xf: Transform| {
                        let centre = shape.mass_data(1.0).center;
                        (xf.apply(centre), shape.reach_from(centre))
                    };
                    if out_of_reach(body(a, xf_a), body(b, xf_b), speculative) {
                        let gap = crate::geometry::distance::distance(a, xf_a, b, xf_b)
                            .unwrap()
                            .distance;
                        assert!(gap > speculative, "gap {gap} within {speculative}");
                        turned_away += 1;
                        close_calls += (gap < speculative + 0.1) as usize;
                    }
                }
            }
        }
        // The cases fall on both sides of the test, and some close to its edge.
        let kept = cases - turned_away;
        assert!(turned_away > 3000 && kept > 1000 && close_calls > 30);
    }

    /// The base a full collide of `a` at `xf_a` and `b` at `xf_b` leaves behind.
    fn fresh(a: &Shape, xf_a: Transform, b: &Shape, xf_b: Transform) -> Base {
        let manifold = shape_manifold(a, xf_a, b, xf_b, SPECULATIVE);
        assert!(manifold.point_count > 0);
        Base::new(&local_form(&manifold, xf_a), xf_a.inv_mul(xf_b))
    }

    fn recycled(old: &Base, xf_a: Transform, xf_b: Transform) -> Option<Manifold> {
        recycle_one(old, xf_a, xf_b, SPECULATIVE, SPECULATIVE).0
    }

    /// Recycled and fresh manifolds agree: same ids and normal (within `angle`), separations
    /// within `gap`, points within `offset`.
    fn assert_near(recycled: &Manifold, fresh: &Manifold, angle: f32, gap: f32, offset: f32) {
        assert_eq!(recycled.point_count, fresh.point_count);
        assert!((recycled.normal - fresh.normal).length() <= angle);
        for (p, q) in recycled.points[..recycled.point_count]
            .iter()
            .zip(&fresh.points)
        {
            assert_eq!(p.id, q.id);
            assert!(
                (p.separation - q.separation).abs() <= gap,
                "separation {} vs fresh {}",
                p.separation,
                q.separation
            );
            assert!((p.point - q.point).length() <= offset);
            assert!((p.anchor_a - q.anchor_a).length() <= offset);
            assert!((p.anchor_b - q.anchor_b).length() <= offset);
        }
    }

    #[test]
    fn recycled_manifold_tracks_a_fresh_one_for_small_motions() {
        let ground = Shape::rect(5.0, 0.5).unwrap();
        let block = Shape::rect(0.5, 0.5).unwrap();
        let ball = Shape::circle(0.25).unwrap();
        // Box on ground (A's face), box under a tilted box (B's face is the reference), ball
        // on a box, two balls; far from the origin too.
        let cases = [
            (&ground, xf(0.0, 0.0, 0.0), &block, xf(0.3, 0.995, 0.0)),
            (&block, xf(2.0, 1.0, 0.3), &ground, xf(2.0, 2.12, 0.0)),
            (&block, xf(-1.0, 0.0, 0.1), &ball, xf(-0.9, 0.74, 0.0)),
            (&ball, xf(100.0, 50.0, 0.0), &ball, xf(100.35, 50.35, 0.0)),
        ];
        for (a, xf_a, b, xf_b) in cases {
            let old = fresh(a, xf_a, b, xf_b);
            // Within the tolerance: B moves up to 0.5 mm and turns up to 0.6 mrad, A turns too
            // (0.9 mrad relative at most).
            let motions = [
                (0.0, 0.0, 0.0, 0.0),
                (4e-4, -3e-4, 0.0, 0.0),
                (-2e-4, 1e-4, 5e-4, 0.0),
                (1e-4, 2e-4, -6e-4, 3e-4),
            ];
            for (dx, dy, turn_b, turn_a) in motions {
                let new_a = Transform::new(xf_a.p, Rot::from_angle(xf_a.q.angle() + turn_a));
                let new_b = Transform::new(
                    xf_b.p + Vec2::new(dx, dy),
                    Rot::from_angle(xf_b.q.angle() + turn_b),
                );
                let reused = recycled(&old, new_a, new_b)
                    .unwrap_or_else(|| panic!("{dx} {dy} {turn_b} {turn_a} should recycle"));
                let exact = shape_manifold(a, new_a, b, new_b, SPECULATIVE);
                // 1.5 mrad of normal (the balls' normal follows the sideways motion over the
                // 0.5 m between centres), 20 µm of separation, 1 mm of point position.
                assert_near(&reused, &exact, 1.5e-3, 2e-5, 1e-3);
            }
        }
    }

    /// A circle sunk into a 4 cm plank down to its mid-plane: recycled, its separation is the
    /// exact signed distance while the centre stays on the side it came from; moved across the
    /// mid-plane (by less than the recycle distance), the recycled contact keeps the face it
    /// entered by, so it pushes the circle back out that way, deeper than the far face's signed
    /// distance by twice the crossing, where a fresh collide would flip to the far face.
    #[test]
    fn a_recycled_deep_circle_keeps_the_face_it_entered_by() {
        let plank = Shape::rect(0.02, 1.0).unwrap();
        let ball = Shape::circle(0.05).unwrap();
        let xf_a = xf(1.0, 2.0, 0.3);
        // The ball's centre `x` from the plank's centre along its thickness, in its frame.
        let at = |x: f32| Transform::new(xf_a.apply(Vec2::new(x, 0.2)), Rot::IDENTITY);
        let old = fresh(&plank, xf_a, &ball, at(-6e-4));
        let left = xf_a.q.rotate(Vec2::new(-1.0, 0.0));
        for x in [-9e-4, -6e-4, -3e-4, 0.0, 3e-4] {
            let reused = recycled(&old, xf_a, at(x)).expect("moved less than 1 mm");
            let s = reused.points[0].separation;
            // Depth below the left face, the one the ball entered by.
            let exact_left = -(0.02 + x) - 0.05;
            assert!((s - exact_left).abs() < 1e-6, "{x}: {s} vs {exact_left}");
            assert!((reused.normal - left).length() < 1e-6);
            let fresh = shape_manifold(&plank, xf_a, &ball, at(x), SPECULATIVE);
            let signed = -(0.02 - x.abs()) - 0.05;
            assert!((fresh.points[0].separation - signed).abs() < 1e-6);
            if x < 0.0 {
                assert!((s - signed).abs() < 1e-6, "{x}: {s} vs signed {signed}");
            } else if x > 0.0 {
                assert!(
                    (signed - s - 2.0 * x).abs() < 1e-6,
                    "{x}: {s} vs signed {signed}"
                );
                assert!(
                    (fresh.normal + left).length() < 1e-6,
                    "a fresh collide flips"
                );
            }
        }
    }

    #[test]
    fn larger_motions_trigger_a_full_collide() {
        let ground = Shape::rect(5.0, 0.5).unwrap();
        let block = Shape::rect(0.5, 0.5).unwrap();
        let (xf_a, xf_b) = (xf(0.0, 0.0, 0.0), xf(0.3, 0.995, 0.0));
        let old = fresh(&ground, xf_a, &block, xf_b);
        // Sliding 2 mm, sinking 2 mm, turning 2 mrad: each beyond the tolerance.
        for (dx, dy, angle) in [(2e-3, 0.0, 0.0), (0.0, -2e-3, 0.0), (0.0, 0.0, 2e-3)] {
            let moved = xf(0.3 + dx, 0.995 + dy, angle);
            assert!(recycled(&old, xf_a, moved).is_none(), "{dx} {dy} {angle}");
        }
        // A turning under B is relative motion too.
        assert!(recycled(&old, xf(0.0, 0.0, 2e-3), xf_b).is_none());
        // Drift is measured from the last full collide: a recycled contact passed on keeps
        // that reference, so steps that are each small still add up to a recompute.
        let mut recomputed = false;
        for step in 1..=20 {
            let moved = xf(0.3 + 1e-4 * step as f32, 0.995, 0.0);
            match recycled(&old, xf_a, moved) {
                Some(_) => {}
                None => {
                    recomputed = true;
                    assert!(step >= 10, "recomputed after {step} steps of 0.1 mm");
                    break;
                }
            }
        }
        assert!(recomputed);
        // A point that would leave the speculative distance is dropped by a fresh collide, so
        // recycling refuses it as well.
        let edge = fresh(&ground, xf_a, &block, xf(0.3, 1.0195, 0.0));
        assert!(recycled(&edge, xf_a, xf(0.3, 1.0195, 0.0)).is_some());
        assert!(recycled(&edge, xf_a, xf(0.3, 1.0203, 0.0)).is_none());
    }

    #[test]
    fn recycling_widens_the_band_only_for_points_beyond_the_plain_one() {
        let ground = Shape::rect(5.0, 0.5).unwrap();
        let block = Shape::rect(0.5, 0.5).unwrap();
        let xf_a = xf(0.0, 0.0, 0.0);
        // Collided with the widened band of a pair closing in: its points lie 19.5 mm apart.
        let wide = 2.0 * SPECULATIVE;
        let manifold = shape_manifold(&ground, xf_a, &block, xf(0.3, 1.0195, 0.0), wide);
        assert_eq!(manifold.point_count, 2);
        let base = Base::new(
            &local_form(&manifold, xf_a),
            xf_a.inv_mul(xf(0.3, 1.0195, 0.0)),
        );
        let recycle_with = |y: f32, widened: f32| {
            let (kept, asked) = recycle_one(&base, xf_a, xf(0.3, y, 0.0), SPECULATIVE, widened);
            (kept.is_some(), asked)
        };
        // Both points inside the plain band (20 mm): the widened one is never asked for.
        assert_eq!(recycle_with(1.0195, wide), (true, 0));
        // Beyond the plain band: kept inside the widened one, asked once for the pair.
        assert_eq!(recycle_with(1.0203, wide), (true, 1));
        // Beyond both, as a fresh collide with the widened band would drop it.
        assert_eq!(recycle_with(1.0203, SPECULATIVE + 1e-4), (false, 1));
    }

    #[test]
    fn recycling_refuses_non_finite_transforms() {
        let block = Shape::rect(0.5, 0.5).unwrap();
        let (xf_a, xf_b) = (xf(0.0, 0.0, 0.0), xf(0.0, 0.999, 0.0));
        let old = fresh(&block, xf_a, &block, xf_b);
        let nan = Transform::new(Vec2::new(f32::NAN, 0.999), Rot::IDENTITY);
        assert!(recycled(&old, xf_a, nan).is_none());
        let bad_rot = Transform::new(
            xf_b.p,
            Rot {
                c: f32::NAN,
                s: 0.0,
            },
        );
        assert!(recycled(&old, xf_a, bad_rot).is_none());
    }

    const PARAMS: NarrowPhaseParams = NarrowPhaseParams {
        speculative_distance: SPECULATIVE,
        dt: 1.0 / 60.0,
        friction_mixing: MixRule::GeometricMean,
        restitution_mixing: MixRule::Min,
        linear_slop: LINEAR_SLOP,
        remix: false,
        recycle: batch2d_kernels::recycle::scalar::recycle,
    };

    #[test]
    fn only_pairs_with_a_polygon_keep_a_base() {
        use crate::body_def::{BodyDef, ShapeDef};
        let mut bodies = BodyStore::new();
        let ground = ShapeDef::new(Shape::rect(5.0, 0.5).unwrap());
        let ball = ShapeDef::new(Shape::circle(0.5).unwrap());
        let g = bodies.insert(&BodyDef::fixed(), &ground).unwrap().slot();
        let at = |x: f32, y: f32| BodyDef::dynamic().position(Vec2::new(x, y));
        let a = bodies.insert(&at(0.0, 0.999), &ball).unwrap().slot();
        let b = bodies.insert(&at(0.999, 0.999), &ball).unwrap().slot();
        let mut set = ContactSet::default();
        set.update(&[(g, a), (g, b), (a, b)], &[], &bodies, &PARAMS);
        let [g, a, b] = [g, a, b].map(|s| BodySlot::new(s as usize));
        assert_eq!(set.keys, [(g, a, 0), (g, b, 0), (a, b, 0)]);
        assert_ne!(set.base_of[0], NONE);
        assert_ne!(set.base_of[1], NONE);
        assert_eq!(set.base_of[2], NONE, "two circles keep no base");
        // Both bases are there and distinct: each is its own pair's.
        let relative = |i: usize| set.base(i).relative().p;
        assert_ne!(relative(0), relative(1));
    }

    /// What the set keeps per contact for the step to read instead of the contacts
    /// (`touching`, `one_point`, the closing speeds) describes the contacts after every change
    /// the set makes: updates that drop and add pairs, freezing, thawing and removal.
    #[test]
    fn the_flags_follow_the_contacts_through_every_change() {
        use crate::body_def::{BodyDef, ShapeDef};
        let mut bodies = BodyStore::new();
        let ground = ShapeDef::new(Shape::rect(20.0, 0.5).unwrap());
        let g = bodies.insert(&BodyDef::fixed(), &ground).unwrap().slot();
        // Boxes (two points on the ground) and balls (one), some resting, some 2 cm above the
        // ground (in reach, not touching), falling or rising.
        let shapes = [Shape::rect(0.5, 0.5).unwrap(), Shape::circle(0.5).unwrap()];
        let bodies_at: Vec<u32> = (0..8)
            .map(|i| {
                let lift = if i % 3 == 0 { 0.02 } else { -0.004 };
                let def = BodyDef::dynamic()
                    .position(Vec2::new(2.0 * i as f32, 1.0 + lift))
                    .linear_velocity(Vec2::new(0.5, if i % 2 == 0 { -2.0 } else { 1.0 }))
                    .angular_velocity(0.3);
                let shape = ShapeDef::new(shapes[i % 2].clone());
                bodies.insert(&def, &shape).unwrap().slot()
            })
            .collect();
        let pairs_of = |which: &dyn Fn(usize) -> bool| -> Vec<(u32, u32)> {
            (bodies_at.iter().enumerate())
                .filter(|&(i, _)| which(i))
                .map(|(_, &b)| (g, b))
                .collect()
        };
        let check = |set: &ContactSet, when: &str| {
            let touching: Vec<bool> = set.list.iter().map(|c| touches(c, LINEAR_SLOP)).collect();
            let one_point: Vec<bool> = set.list.iter().map(Contact::has_one_point).collect();
            assert_eq!(set.touching(), &touching[..], "touching, {when}");
            assert_eq!(set.one_point(), &one_point[..], "one_point, {when}");
            for (i, c) in set.list.iter().enumerate().filter(|&(i, _)| !touching[i]) {
                let speed = closing_in(c, &bodies).map(f32::to_bits);
                let kept = set.closing_in(i, &bodies).map(f32::to_bits);
                assert_eq!(kept, speed, "closing speed of contact {i}, {when}");
            }
        };
        let mut set = ContactSet::default();
        set.update(&pairs_of(&|_| true), &[], &bodies, &PARAMS);
        assert_eq!(set.list.len(), 8);
        assert!(set.one_point().contains(&true) && set.one_point().contains(&false));
        assert!(set.touching().contains(&true) && set.touching().contains(&false));
        let closing = (0..8)
            .filter(|&i| set.closing_in(i, &bodies).is_some())
            .count();
        assert!(
            closing > 0 && closing < 8,
            "some contacts close in, not all"
        );
        check(&set, "after the first update");
        set.update(&pairs_of(&|i| i != 2 && i != 5), &[], &bodies, &PARAMS);
        check(&set, "after two pairs were dropped");
        let mut frozen = Vec::new();
        // A body whose contact closes in without touching, so that its speed comes back too.
        let sleeper = BodySlot::new(bodies_at[0] as usize);
        set.freeze(|_, b| b == sleeper, &mut frozen);
        check(&set, "after freezing");
        set.update(&pairs_of(&|i| i != 0), &[], &bodies, &PARAMS);
        set.thaw(frozen);
        check(&set, "after thawing");
        let gone = BodySlot::new(bodies_at[4] as usize);
        set.remove_bodies(|_, b| b == gone);
        check(&set, "after a removal");
        set.update(&pairs_of(&|i| i != 4), &[], &bodies, &PARAMS);
        check(&set, "after the update that follows");
    }

    /// A static ground slab and a unit box resting on it, 5 mm of overlap, off centre: the
    /// bodies and their slots.
    fn box_on_ground() -> (BodyStore, u32, u32) {
        use crate::body_def::{BodyDef, ShapeDef};
        let mut bodies = BodyStore::new();
        let ground = ShapeDef::new(Shape::rect(5.0, 0.5).unwrap());
        let block = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap());
        let a = bodies.insert(&BodyDef::fixed(), &ground).unwrap().slot();
        let def = BodyDef::dynamic().position(Vec2::new(0.3, 0.995));
        let b = bodies.insert(&def, &block).unwrap().slot();
        (bodies, a, b)
    }

    #[test]
    fn a_thawed_contact_recycles_its_frozen_base() {
        let (mut bodies, a, b) = box_on_ground();
        let pairs = [(a, b)];
        let mut set = ContactSet::default();
        set.update(&pairs, &[], &bodies, &PARAMS);
        let first = set.base(0);
        let mut frozen = Vec::new();
        set.freeze(|_, _| true, &mut frozen);
        assert!(set.list.is_empty());
        // Updates while the pair sleeps overwrite both sets of slots.
        set.update(&[], &[], &bodies, &PARAMS);
        set.update(&[], &[], &bodies, &PARAMS);
        set.thaw(frozen);
        assert_eq!(set.base(0).relative(), first.relative());
        // 0.4 mm of sinking is within recycling range of the frozen base: recycled, so the base
        // is still that of the first collide; a fresh collide would have rebased it.
        bodies.poses_mut().center[b as usize].y -= 4e-4;
        set.update(&pairs, &[], &bodies, &PARAMS);
        assert_eq!(set.base(0).relative(), first.relative());
        assert!(set.bases.thawed.is_empty());
    }

    #[test]
    fn update_recycles_resting_pairs_and_recollides_moved_ones() {
        let (mut bodies, a, b) = box_on_ground();
        let params = PARAMS;
        let pairs = [(a, b)];
        let mut set = ContactSet::default();
        set.update(&pairs, &[], &bodies, &params);
        assert_eq!(set.list.len(), 1);
        let first = set.base(0).relative();
        // Give the solver's impulses something to carry.
        set.list[0].manifold.points[0].normal_impulse = 2.5;

        let (sa, sb) = (a as usize, b as usize);
        let fresh = |bodies: &BodyStore| {
            let (xf_a, xf_b) = (bodies.transform(sa), bodies.transform(sb));
            shape_manifold(
                &bodies.shape()[sa],
                xf_a,
                &bodies.shape()[sb],
                xf_b,
                SPECULATIVE,
            )
        };
        // Sinking 0.4 mm: recycled (the base stays that of the first collide), close to fresh,
        // impulses carried.
        bodies.poses_mut().center[sb].y -= 4e-4;
        set.update(&pairs, &[], &bodies, &params);
        assert_eq!(set.base(0).relative(), first);
        let m = set.list[0].manifold;
        assert_eq!(m.points[0].normal_impulse, 2.5);
        let exact = fresh(&bodies);
        for (p, q) in m.points.iter().zip(&exact.points).take(m.point_count) {
            assert!((p.separation - q.separation).abs() < 1e-6);
        }
        // Another 0.8 mm: 1.2 mm from the first collide, so collided afresh and rebased.
        bodies.poses_mut().center[sb].y -= 8e-4;
        set.update(&pairs, &[], &bodies, &params);
        assert_ne!(set.base(0).relative(), first);
        assert_eq!(set.list[0].manifold.points[0].normal_impulse, 2.5);
        let mut exact = fresh(&bodies);
        exact.points[0].normal_impulse = 2.5;
        assert_eq!(set.list[0].manifold, exact);
        // Lifted out of reach: the contact is dropped with its base.
        bodies.poses_mut().center[sb].y += 0.1;
        set.update(&pairs, &[], &bodies, &params);
        assert!(set.list.is_empty() && set.keys.is_empty() && set.base_of.is_empty());
    }

    #[test]
    fn frozen_contacts_come_back_in_order_with_their_impulses() {
        let contact = |a: usize, b: usize, impulse: f32| {
            let mut manifold = Manifold {
                point_count: 1,
                ..Manifold::default()
            };
            manifold.points[0].normal_impulse = impulse;
            Contact {
                a: BodySlot::new(a),
                b: BodySlot::new(b),
                manifold,
                friction: 0.6,
                restitution: 0.0,
                tangent_speed: 0.0,
            }
        };
        let raw = |(a, b): (BodySlot, BodySlot)| (a.index(), b.index());
        let mut set = ContactSet {
            list: (0..10).map(|i| contact(i, i + 1, i as f32)).collect(),
            ..ContactSet::default()
        };
        let all: Vec<(usize, usize, f32)> = set
            .list
            .iter()
            .map(|c| {
                (
                    c.a.index(),
                    c.b.index(),
                    c.manifold.points[0].normal_impulse,
                )
            })
            .collect();
        let mut frozen = Vec::new();
        set.freeze(|a, b| a.index() % 3 == 0 || b.index() == 5, &mut frozen);
        let taken: Vec<(usize, usize)> = frozen.iter().map(|f| raw(f.bodies())).collect();
        assert_eq!(taken, [(0, 1), (3, 4), (4, 5), (6, 7), (9, 10)]);
        assert_eq!(set.list.len(), 5);
        assert_eq!(set.keys.len(), 5);

        // Pair (3, 4) was collided afresh meanwhile: the fresh contact wins.
        set.list.push(contact(3, 4, 99.0));
        set.list.sort_unstable_by_key(Contact::key);
        set.keys.clear();
        frozen.reverse();
        set.thaw(frozen);
        let back: Vec<(usize, usize, f32)> = set
            .list
            .iter()
            .map(|c| {
                (
                    c.a.index(),
                    c.b.index(),
                    c.manifold.points[0].normal_impulse,
                )
            })
            .collect();
        let mut expected = all.clone();
        expected[3].2 = 99.0;
        assert_eq!(back, expected);
        assert_eq!(set.keys.len(), set.list.len());
        assert_eq!(set.base_of.len(), set.list.len());
    }
}
