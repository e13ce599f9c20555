//! One chunk of pairs: each pair's manifold recycled by the kernel or collided afresh, with
//! last step's impulses carried over.

use super::{
    base_at, body_slots, closing_in, point_touches, prefetch_entry, touches, BaseSlot, BaseSlots,
    Contact, NarrowPhaseParams, CHUNK, FAR, PREFETCH_AHEAD,
};
use crate::body::BodyStore;
use crate::broad_phase::compound::{split_children, Children};
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::geometry::shape::{LocalBox, Shape};
use crate::index::{BodySlot, ContactIndex, NONE};
use crate::narrow_phase::manifold::{
    boxes_into, collide_and_reach, is_round, round_contact, Manifold, ManifoldPoint, Reach, Round,
};
use crate::narrow_phase::recycle::{
    own_places, recycle_params, take_lanes, Base, BaseAt, Recycler,
};
use batch2d_kernels::{BodyPose, RecycleBases, RecycleLanes, LANES};

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

/// The body columns a fresh collide reads, each cut to the number of body slots `n`: one
/// check of a pair's slots against `n` ([`PairColumns::pair_at`]) then stands for every column's,
/// where the columns would each be checked against a length the compiler cannot tell is
/// the same.
struct PairColumns<'a> {
    n: usize,
    center: &'a [Vec2],
    rotation: &'a [Rot],
    local_center: &'a [Vec2],
    linear_velocity: &'a [Vec2],
    angular_velocity: &'a [f32],
    reach: &'a [f32],
    shape: &'a [Shape],
    local_box: &'a [Option<LocalBox>],
    /// Each body's pose (see `body_poses`), cut to `n` as well, or empty where the caller
    /// found none (the update finds them wherever it has pairs).
    pose: &'a [BodyPose],
}

impl<'a> PairColumns<'a> {
    /// The columns of `bodies`, with their `poses` if there is one per slot (else none).
    #[inline(always)]
    fn of(bodies: &'a BodyStore, poses: &'a [BodyPose]) -> PairColumns<'a> {
        let n = bodies.slots();
        PairColumns {
            n,
            center: &bodies.center()[..n],
            rotation: &bodies.rotation()[..n],
            local_center: &bodies.local_center()[..n],
            linear_velocity: &bodies.linear_velocity()[..n],
            angular_velocity: &bodies.angular_velocity()[..n],
            reach: &bodies.reach()[..n],
            shape: &bodies.shape()[..n],
            local_box: &bodies.local_box()[..n],
            pose: poses.get(..n).unwrap_or(&[]),
        }
    }

    /// The entries of the bodies in slots `a` and `b`. Panics if there is no such slot, as
    /// indexing a column would. One check of the larger slot for both, and its panic out of
    /// line: an `assert!` per slot kept its message's arguments ready on every pair's path.
    #[inline(always)]
    fn pair_at(&self, a: usize, b: usize) -> (BodyAt<'_, 'a>, BodyAt<'_, 'a>) {
        let last = a.max(b);
        if last >= self.n {
            no_such_slot(last, self.n);
        }
        (
            BodyAt {
                columns: self,
                s: a,
            },
            BodyAt {
                columns: self,
                s: b,
            },
        )
    }
}

/// The panic of [`PairColumns::pair_at`] for slot `s` of `n`.
#[cold]
#[inline(never)]
fn no_such_slot(s: usize, n: usize) -> ! {
    panic!("body slot {s} out of {n} slots")
}

/// Entry `s` of `column`, a column of [`PairColumns`], for a slot `s` a [`BodyAt`] checked.
#[inline(always)]
fn entry<T>(column: &[T], s: usize) -> &T {
    debug_assert!(s < column.len());
    // SAFETY: every column of a `PairColumns` is cut to its `n` entries (the poses, or
    // else left empty and never read), and a `BodyAt`,
    // which alone calls this with its own columns, holds a slot `PairColumns::pair_at` checked
    // to be below that `n`.
    unsafe { column.get_unchecked(s) }
}

/// A body's slot among [`PairColumns`], checked: reading its entries checks nothing more.
#[derive(Clone, Copy)]
struct BodyAt<'c, 'a> {
    columns: &'c PairColumns<'a>,
    s: usize,
}

impl<'a> BodyAt<'_, 'a> {
    #[inline(always)]
    fn center(self) -> Vec2 {
        *entry(self.columns.center, self.s)
    }

    #[inline(always)]
    fn linear_velocity(self) -> Vec2 {
        *entry(self.columns.linear_velocity, self.s)
    }

    #[inline(always)]
    fn angular_velocity(self) -> f32 {
        *entry(self.columns.angular_velocity, self.s)
    }

    #[inline(always)]
    fn reach(self) -> f32 {
        *entry(self.columns.reach, self.s)
    }

    #[inline(always)]
    fn shape(self) -> &'a Shape {
        entry(self.columns.shape, self.s)
    }

    /// (By reference: the box is only read for its hull, and a copy of the whole option
    /// went through the stack.)
    #[inline(always)]
    fn local_box(self) -> Option<&'a LocalBox> {
        entry(self.columns.local_box, self.s).as_ref()
    }

    /// [`BodyStore::transform`] of the body: its pose where the update found the poses (to
    /// the same bits: see `BodyPose::new`), which is a load where the origin is two products
    /// and a difference per coordinate, found once per pair and body.
    #[inline(always)]
    fn transform(self) -> Transform {
        if !self.columns.pose.is_empty() {
            let pose = entry(self.columns.pose, self.s);
            let [x, y] = pose.origin;
            let [c, s] = pose.rotation;
            return Transform::new(Vec2::new(x, y), Rot { c, s });
        }
        let q = *entry(self.columns.rotation, self.s);
        let local_center = *entry(self.columns.local_center, self.s);
        Transform::new(self.center() - q.rotate(local_center), q)
    }
}

/// Last step's contact of a pair and the index of its base (`NONE` for none; see
/// [`update_chunk`]).
pub(super) type Old<'a> = Option<(&'a Contact, u32)>;

/// Last step's contacts with their bases, as [`update_chunk`] looks each pair's up.
pub(super) struct OldContacts<'a> {
    /// Whether the update is in place: each pair's slot holds its contact of last step, and
    /// `list` is empty.
    pub in_place: bool,
    /// Whether the bases are updated in place: each pair's base, if it has one and it is not
    /// thawed, is in the pair's own slot of the set being written, and `read` is empty.
    pub bases_in_place: bool,
    pub list: &'a [Contact],
    pub base_of: &'a [u32],
    /// The set of base slots `base_of` points into.
    pub read: &'a [BaseSlots],
    pub thawed: &'a [Base],
}

impl<'a> OldContacts<'a> {
    /// The old contacts with their bases' indices, to look up (not in place).
    #[inline(always)]
    fn lookup(&self) -> OldList<'a> {
        let n = self.list.len().min(self.base_of.len());
        OldList {
            list: &self.list[..n],
            base_of: &self.base_of[..n],
        }
    }

    /// Where the base at `index` (not `NONE`) is.
    #[inline(always)]
    fn base(&self, index: u32) -> BaseAt<'a> {
        base_at(self.read, self.thawed, index)
    }

    /// The block of last step's bases of the pairs `first..first + 8` (`first` a multiple of
    /// 8), if it was made.
    #[inline(always)]
    fn block(&self, first: usize) -> Option<&'a RecycleBases> {
        let slots = self.read.get(first / CHUNK)?;
        slots.block(first % CHUNK / LANES)
    }
}

/// Last step's contacts with the indices of their bases, the two cut to one length: the
/// check of an index against one stands for the other.
#[derive(Clone, Copy)]
struct OldList<'a> {
    list: &'a [Contact],
    base_of: &'a [u32],
}

impl<'a> OldList<'a> {
    /// The old contact at `prev` with its base's index; `None` for `NONE`.
    #[inline(always)]
    fn get(self, prev: ContactIndex) -> Old<'a> {
        (prev != ContactIndex::NONE).then(|| (&self.list[prev.index()], self.base_of[prev.index()]))
    }
}

/// What the update writes for one chunk of pairs, a slot of each per pair.
pub(super) struct ChunkSlots<'s> {
    pub slots: &'s mut [Contact],
    pub found: &'s mut [u32],
    pub touching: &'s mut [bool],
    pub one_point: &'s mut [bool],
    pub speed: &'s mut [f32],
    pub bases: &'s mut BaseSlots,
    /// The index of the chunk's first base slot among all chunks': its place times `CHUNK`.
    pub first_base: u32,
}

impl<'s> ChunkSlots<'s> {
    /// The slots of the chunk's first `n` pairs (all it has), each `n` long, so that the
    /// compiler checks an index below `n` against nothing else.
    #[inline(always)]
    fn cut(self, n: usize) -> ChunkSlots<'s> {
        ChunkSlots {
            slots: &mut self.slots[..n],
            found: &mut self.found[..n],
            touching: &mut self.touching[..n],
            one_point: &mut self.one_point[..n],
            speed: &mut self.speed[..n],
            ..self
        }
    }

    /// Notes that pair `i`'s contact, collided afresh, is `found`: `None` where it does not
    /// touch, else the index of its base (`NONE` for none), its contact now in its slot, with
    /// its flags. A pair that does not touch is dropped (see `ContactSet::keep_touching`):
    /// its slot and flags are left as they were, never read.
    #[inline(always)]
    fn found(&mut self, i: usize, found: Option<u32>, threshold: f32, bodies: &BodyStore) {
        match found {
            None => self.found[i] = FAR,
            Some(base) => {
                let touch = touches(&self.slots[i], threshold);
                self.found[i] = base;
                let flags = PairFlags::kept(&self.slots[i], touch, bodies, &mut self.speed[i]);
                (self.touching[i], self.one_point[i]) = (flags.touch, flags.one_point);
            }
        }
    }

    /// Pair `i`'s contact slot, and where its base goes.
    #[inline(always)]
    fn pair_slots(&mut self, i: usize) -> (&mut Contact, BaseSlot<'_>) {
        let base = BaseSlot {
            slots: self.bases,
            at: i,
            index: self.first_base + i as u32,
        };
        (&mut self.slots[i], base)
    }

    /// [`ChunkSlots::found`] of a kept contact with its base in its slot, whose touch the
    /// caller knows.
    #[inline(always)]
    fn kept(&mut self, i: usize, touch: bool, bodies: &BodyStore) {
        self.found[i] = self.first_base + i as u32;
        let flags = PairFlags::kept(&self.slots[i], touch, bodies, &mut self.speed[i]);
        (self.touching[i], self.one_point[i]) = (flags.touch, flags.one_point);
    }
}

/// What a fresh collide of one of a chunk's pairs reads: the chunk's pairs (with their shape
/// pairs, `None` in a world without compound bodies), last step's contacts, the bodies and
/// the parameters.
struct Afresh<'c, 'a> {
    pairs: &'c [(u32, u32)],
    children: Option<&'c [Children]>,
    columns: PairColumns<'c>,
    old: &'c OldContacts<'a>,
    bodies: &'c BodyStore,
    params: &'c NarrowPhaseParams,
    /// The chunk's first pair, whose contact is in place the first of the chunk's old ones.
    first: usize,
}

impl Afresh<'_, '_> {
    /// Collides pair `i` afresh, with last step's contact: in place, the one in its slot;
    /// else `contact`, which the group's loop found, with its base index `base`.
    ///
    /// Always inlined into the group's loop: left to itself LLVM keeps the collide out of
    /// line, and the call's saves, restores and arguments cost a good part of a fresh
    /// collide.
    #[inline(always)]
    fn refresh(&self, out: &mut ChunkSlots, i: usize, (contact, base): (Option<&Contact>, u32)) {
        let copy;
        let old = if self.old.in_place {
            // (The fresh collide overwrites the old contact it reads: a copy.)
            copy = out.slots[i];
            Some((&copy, self.old.base_of[self.first + i]))
        } else {
            contact.map(|c| (c, base))
        };
        self.collide(out, i, old);
    }

    /// Collides pair `i` afresh with last step's contact `old`, and notes what it found.
    #[inline(always)]
    fn collide(&self, out: &mut ChunkSlots, i: usize, old: Old) {
        let (bodies, params) = (self.bodies, self.params);
        let (a, b) = body_slots(self.pairs[i]);
        let found = match self.children {
            None => {
                let at = self.columns.pair_at(a.index(), b.index());
                if update_round_pair(out, i, (a, b), at, bodies, params, old) {
                    return;
                }
                let (slot, base) = out.pair_slots(i);
                update_pair(slot, base, (a, b), at, bodies, params, old)
            }
            Some(children) => {
                let (slot, base) = out.pair_slots(i);
                let pair = (a, b);
                let columns = &self.columns;
                update_shape_pair(slot, base, pair, children[i], columns, bodies, params, old)
            }
        };
        out.found(i, found, params.linear_slop, bodies);
    }
}

/// Updates one chunk of pairs: `pairs` (with `children`, or `None` in a world without compound
/// bodies) and, for each, the index of its contact last step in `previous`, which `old` looks
/// up. The pairs go eight at a time: those whose old contact has a base go to the recycle
/// kernel together, which reads the bodies' `poses` (see `body_poses`); the others, and
/// those the kernel turns down, collide afresh, at the same poses. A
/// pair's slots are the same whichever way it goes, and each way depends on the pair alone,
/// so the order does not change the result.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn update_chunk<'a>(
    out: ChunkSlots,
    pairs: &[(u32, u32)],
    children: Option<&[Children]>,
    previous: &[ContactIndex],
    old: &OldContacts<'a>,
    bodies: &BodyStore,
    poses: &[BodyPose],
    params: &NarrowPhaseParams,
) {
    let mut out = out.cut(pairs.len());
    // (Cut to the pairs, whose indices are then checked once, by the loop.)
    let previous = &previous[..pairs.len()];
    let old_list = old.lookup();
    // The chunk's first pair, whose contact is in place the first of the chunk's old ones.
    let first = out.first_base as usize;
    let threshold = params.linear_slop;
    let recycle = recycle_params(
        params.speculative_distance,
        threshold,
        params.recycle_tolerance,
    );
    let in_place = old.in_place;
    let afresh = Afresh {
        pairs,
        children,
        columns: PairColumns::of(bodies, poses),
        old,
        bodies,
        params,
        first,
    };
    let mut recycler = Recycler::new();
    // Whether a recycled contact mixes its materials afresh (see `update_shapes`).
    let remix = params.remix || children.is_some();
    // In place, the chunk's pairs' base indices, each where its pair is (else unused).
    let base_of = match in_place {
        true => &old.base_of[first..first + pairs.len()],
        false => &[],
    };
    for group in (0..pairs.len()).step_by(LANES) {
        let end = pairs.len().min(group + LANES);
        // Each lane's base index, `NONE` for a pair with nothing to recycle, and (not in
        // place) its pair's contact of last step, if any.
        let mut bases = [NONE; LANES];
        let mut contacts: [Option<&Contact>; LANES] = [None; LANES];
        let prefetch_shapes = |(a, b): (u32, u32)| {
            prefetch_entry(bodies.shape(), a as usize);
            prefetch_entry(bodies.shape(), b as usize);
        };
        if in_place {
            // The pairs are last step's, whose keys are those of the contacts in place.
            if children.is_none() {
                // Of the next group, the pairs whose base is not in their slot (a pair whose
                // base is there will most likely recycle, reading no shape).
                let next = (group + LANES).min(pairs.len())..(group + 2 * LANES).min(pairs.len());
                let mut away = (1u32 << next.len()) - 1;
                if let Ok(next_bases) = base_of[next.clone()].try_into() {
                    away &= !own_places(next_bases, (first + next.start) as u32);
                }
                while away != 0 {
                    let l = away.trailing_zeros() as usize;
                    away &= away - 1;
                    prefetch_shapes(pairs[next.start + l]);
                }
            }
            for (i, &pair) in (group..).zip(&pairs[group..end]) {
                debug_assert_eq!(out.slots[i].key(), body_slots(pair));
            }
            // (A whole group's as one array: copied lane by lane, the loop is a call to
            // `memcpy`.)
            match base_of[group..end].try_into() {
                Ok(all) => bases = all,
                Err(_) => bases[..end - group].copy_from_slice(&base_of[group..end]),
            }
        } else {
            for i in group..end {
                if let (None, Some(&pair)) = (children, pairs.get(i + PREFETCH_AHEAD)) {
                    prefetch_shapes(pair);
                }
                // (A contact of another pair would mean the old contacts were reordered behind
                // our back.)
                if let Some((c, base)) = old_list.get(previous[i]) {
                    if c.key() == body_slots(pairs[i]) {
                        (bases[i - group], contacts[i - group]) = (base, Some(c));
                    }
                }
            }
        }
        // Lanes with a base to recycle, and of those, the lanes whose base is in the same
        // lane of last step's block of these pairs: the pairs were last step's, in the same
        // places. The others' bases are gathered straight into this step's block of the
        // pairs, where the kernel reads them and where they stay should it keep them (a
        // fresh collide overwrites its pair's lane below). A lane left out for having turned
        // too far collides afresh below, as it would have once the kernel turned it down.
        let own = (first + group) as u32;
        let (with_base, in_block) = if bases.iter().all(|&b| b == NONE) {
            (0, 0)
        } else {
            take_lanes(
                &pairs[group..end],
                (&bases, own),
                poses,
                |b| old.base(b),
                &recycle,
                out.bases.block_mut(group / LANES),
            )
        };
        // The group's pairs, a short group's padded with its last: a lane without a base
        // reads some pair's poses, and its verdict is not read.
        let padded: [(u32, u32); LANES];
        let lane_pairs: &[(u32, u32); LANES] = match pairs[group..end].try_into() {
            Ok(all) => all,
            Err(_) => {
                padded = std::array::from_fn(|l| pairs[(group + l).min(end - 1)]);
                &padded
            }
        };
        let run = |block: &RecycleBases, recycler: &mut Recycler| {
            recycler.run(params.recycle, (poses, lane_pairs), block, &recycle)
        };
        let lanes = if with_base == 0 {
            RecycleLanes::default()
        } else if old.bases_in_place {
            // The kept pairs' bases are where they stay, and the gathered ones (thawed) have
            // joined them.
            run(out.bases.block_mut(group / LANES), &mut recycler)
        } else if with_base == in_block {
            // The kept pairs' bases go on to this step's block as they are.
            let block = old.block(first + group).expect("a base in its block");
            let lanes = run(block, &mut recycler);
            let to = out.bases.block_mut(group / LANES);
            // (Row by row: a copy of the whole block is a call to `memcpy`.)
            for (to, from) in to.words.iter_mut().zip(&block.words) {
                *to = *from;
            }
            lanes
        } else {
            // The gathered ones are there already; those in their own lanes join them.
            let to = out.bases.block_mut(group / LANES);
            if in_block != 0 {
                let block = old.block(first + group).expect("a base in its block");
                for l in (0..LANES).filter(|l| in_block & 1 << l != 0) {
                    to.copy_lane(l, block, l);
                }
            }
            run(to, &mut recycler)
        };
        // In place and without remixing, the lanes the kernel kept write their moved
        // manifolds out of line (see `recycled_in_place`); the others go one by one below.
        let mut rest = (1u32 << (end - group)) - 1;
        if in_place && !remix && with_base & lanes.kept != 0 {
            let kept = with_base & lanes.kept;
            rest &= !kept;
            let own = out.first_base + group as u32;
            recycled_in_place(
                GroupSlots {
                    slots: &mut out.slots[group..end],
                    found: &mut out.found[group..end],
                    touching: &mut out.touching[group..end],
                    one_point: &mut out.one_point[group..end],
                    speed: &mut out.speed[group..end],
                },
                own,
                (kept, lanes.touching),
                &recycler,
                bodies,
            );
        }
        while rest != 0 {
            let l = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let i = group + l;
            // A lane without a base collides afresh, and so does one the kernel turned down.
            let kept = with_base & 1 << l != 0
                && (lanes.kept & 1 << l != 0
                    || lanes.beyond & 1 << l != 0 && {
                        let (a, b) = pairs[i];
                        let at = afresh.columns.pair_at(a as usize, b as usize);
                        let widened = widened(at, params);
                        recycler.within(l, params.speculative_distance, widened)
                    });
            if !kept {
                afresh.refresh(&mut out, i, (contacts[l], bases[l]));
                continue;
            }
            let slot = &mut out.slots[i];
            if in_place {
                recycler.write_in_place(l, &mut slot.manifold);
            } else {
                let old = old_list
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
            // A moved point below the slop touches (the kernel's mask), and so does one that
            // bounced last step (see `point_touches`).
            let touch = lanes.touching & 1 << l != 0 || {
                let m = &slot.manifold;
                m.points[..m.point_count]
                    .iter()
                    .any(|p| p.impact_impulse > 0.0)
            };
            out.kept(i, touch, bodies);
        }
    }
}

/// The slots of a group of (at most eight) pairs, each cut to the group.
struct GroupSlots<'g> {
    slots: &'g mut [Contact],
    found: &'g mut [u32],
    touching: &'g mut [bool],
    one_point: &'g mut [bool],
    speed: &'g mut [f32],
}

/// Writes the group's pairs of the lanes in `kept` (bits; `touching`, the lanes the kernel
/// found touching), recycled in place by `recycler` with their materials kept: each pair's
/// moved manifold over last step's, its found base (its own place, `own` plus its lane) and
/// its flags.
///
/// Never inlined: on its own, the loop over a resting group's lanes keeps its masks and
/// slots in registers.
#[inline(never)]
fn recycled_in_place(
    out: GroupSlots,
    own: u32,
    (kept, touching): (u32, u32),
    recycler: &Recycler,
    bodies: &BodyStore,
) {
    let n = out.slots.len();
    // A whole group kept, every pair touching by the kernel's mask (each group of a resting
    // stack): the moved manifolds, then the flags of all eight at once.
    let whole = (1u32 << LANES) - 1;
    if kept == whole && touching & whole == whole {
        if let (Ok(slots), Ok(found), Ok(touching_out), Ok(one_point)) = (
            <&mut [Contact; LANES]>::try_from(&mut *out.slots),
            <&mut [u32; LANES]>::try_from(&mut *out.found),
            <&mut [bool; LANES]>::try_from(&mut *out.touching),
            <&mut [bool; LANES]>::try_from(&mut *out.one_point),
        ) {
            for (l, slot) in slots.iter_mut().enumerate() {
                recycler.write_in_place(l, &mut slot.manifold);
                slot.tangent_speed = 0.0;
            }
            // (As `ChunkSlots::kept` finds them: touching, so no speed.)
            *found = std::array::from_fn(|l| own + l as u32);
            *touching_out = [true; LANES];
            *one_point = std::array::from_fn(|l| recycler.count(l) <= 1);
            return;
        }
    }
    let (found, touching_out, one_point, speed) = (
        &mut out.found[..n],
        &mut out.touching[..n],
        &mut out.one_point[..n],
        &mut out.speed[..n],
    );
    for (l, slot) in out.slots.iter_mut().enumerate() {
        if kept & 1 << l == 0 {
            continue;
        }
        recycler.write_in_place(l, &mut slot.manifold);
        slot.tangent_speed = 0.0;
        // A moved point below the slop touches (the kernel's mask), and so does one that
        // bounced last step (see `point_touches`).
        let touch = touching & 1 << l != 0 || {
            let m = &slot.manifold;
            m.points[..m.point_count]
                .iter()
                .any(|p| p.impact_impulse > 0.0)
        };
        found[l] = own + l as u32;
        let flags = PairFlags::kept(slot, touch, bodies, &mut speed[l]);
        (touching_out[l], one_point[l]) = (flags.touch, flags.one_point);
    }
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

/// The speculative distance widened by how far bodies `a` and `b` can close in in a step.
#[inline(always)]
fn widened((a, b): (BodyAt, BodyAt), params: &NarrowPhaseParams) -> f32 {
    let closing = (b.linear_velocity() - a.linear_velocity()).length()
        + a.angular_velocity().abs() * a.reach()
        + b.angular_velocity().abs() * b.reach();
    params.speculative_distance + closing * params.dt
}

/// Whether bodies `a` and `b` could recycle next step a manifold collided now: their relative
/// turn, and the relative motion of any point of either, over a step at their speeds, stay
/// within twice the caps of [`RecycleTolerance`](crate::narrow_phase::recycle::RecycleTolerance)
/// (twice: the solver changes their speeds before they move, and in a stirred pile the
/// exact caps turned away a quarter of the pairs that would have recycled). Only then is
/// the manifold's reach worth working out; should they slow down, a pair turned away here
/// collides afresh next step, which is exact anyway, and works out its reach then.
///
/// A point `p` of B moves relative to A at `v_b - v_a - w_a × (c_b - c_a) + (w_b - w_a) ×
/// (p - c_b)`: B's centre as A sees it, plus the relative spin about it, which the cap on the
/// turn keeps small over B's reach. The same the other way round; the smaller bound holds.
#[inline(always)]
fn may_recycle((a, b): (BodyAt, BodyAt), params: &NarrowPhaseParams) -> bool {
    let tolerance = params.recycle_tolerance;
    let (wa, wb) = (a.angular_velocity(), b.angular_velocity());
    let spin = (wb - wa).abs();
    if spin * params.dt > 2.0 * tolerance.angle {
        return false;
    }
    let (offset, relative) = (
        b.center() - a.center(),
        b.linear_velocity() - a.linear_velocity(),
    );
    let of_b = (relative - Vec2::cross_sv(wa, offset)).length() + spin * b.reach();
    let of_a = (relative - Vec2::cross_sv(wb, offset)).length() + spin * a.reach();
    // Either bound within the cap, rather than the lesser (`f32::min`, whose NaN handling
    // costs more than the product and compare it saves): the same answer for every input.
    // A product by the step (positive: a world turns any other down) never makes a larger
    // number the smaller, so the lesser bound's product is the lesser product, within the
    // cap when either is; and where one bound is NaN, `min` gives the other, whose compare
    // alone can then hold.
    let cap = 2.0 * tolerance.distance;
    (of_b * params.dt <= cap) | (of_a * params.dt <= cap)
}

/// [`update_pair`] and [`ChunkSlots::found`] of pair `i`, bodies `(a, b)`, where one of its
/// shapes is a circle (and the other no chain segment): its single point is found and written
/// in one go, with its flags. Returns false, having written nothing, for any other pair.
#[inline(always)]
fn update_round_pair(
    out: &mut ChunkSlots,
    i: usize,
    (a, b): (BodySlot, BodySlot),
    (at_a, at_b): (BodyAt, BodyAt),
    bodies: &BodyStore,
    params: &NarrowPhaseParams,
    old: Old,
) -> bool {
    let (sa, sb) = (a.index(), b.index());
    let (shape_a, shape_b) = (at_a.shape(), at_b.shape());
    let both_circles = match is_round(shape_a, shape_b) {
        None => return false,
        Some(both_circles) => both_circles,
    };
    // As `update_shapes` collides it.
    let speculative_distance = widened((at_a, at_b), params);
    if !both_circles {
        let reach_a = (at_a.center(), at_a.reach());
        let reach_b = (at_b.center(), at_b.reach());
        if out_of_reach(reach_a, reach_b, speculative_distance) {
            out.found[i] = FAR;
            return true;
        }
    }
    let (xf_a, xf_b) = (at_a.transform(), at_b.transform());
    let concentric = || concentric_normal(a, b);
    let (normal, mut point) = match round_contact(
        shape_a,
        xf_a,
        shape_b,
        xf_b,
        speculative_distance,
        concentric,
    ) {
        Round::Point(normal, point) => (normal, point),
        Round::Apart => {
            out.found[i] = FAR;
            return true;
        }
        Round::Other => return false,
    };
    let old = old.filter(|(c, _)| c.key() == (a, b)).map(|(c, _)| c);
    let (friction, restitution) = match old {
        Some(old) if !params.remix => (old.friction, old.restitution),
        _ => {
            let (friction, restitution) = (bodies.friction(), bodies.restitution());
            (
                params.friction_mixing.mix(friction[sa], friction[sb]),
                params
                    .restitution_mixing
                    .mix(restitution[sa], restitution[sb]),
            )
        }
    };
    if let Some(old) = old {
        let old = &old.manifold;
        if let Some(q) = old.points[..old.point_count]
            .iter()
            .find(|q| q.id == point.id)
        {
            point.normal_impulse = q.normal_impulse;
            point.tangent_impulse = q.tangent_impulse;
            point.impact_impulse = q.impact_impulse;
        }
    }
    let touch = point_touches(&point, params.linear_slop);
    let slot = &mut out.slots[i];
    *slot = Contact {
        a,
        b,
        manifold: Manifold {
            normal,
            points: [point, ManifoldPoint::default()],
            point_count: 1,
        },
        friction,
        restitution,
        tangent_speed: 0.0,
    };
    // No base: see `update_shapes`.
    out.found[i] = NONE;
    out.touching[i] = touch;
    out.one_point[i] = true;
    if !touch {
        out.speed[i] = closing_in(slot, bodies).unwrap_or(0.0);
    }
    true
}

/// Writes the contact of pair `(a, b)` to `slot`, collided afresh, with the impulses of `old`,
/// last step's contact of the pair, carried over where a feature id persists. Returns `None`
/// if the pair does not touch, else the index of what the next step recycles from, written
/// to `base` (`NONE` for nothing, as for a circle's pairs).
///
/// This is the path of worlds without compound bodies: shapes and materials come straight
/// from the body columns.
#[inline(always)]
fn update_pair(
    slot: &mut Contact,
    base: BaseSlot,
    (a, b): (BodySlot, BodySlot),
    at: (BodyAt, BodyAt),
    bodies: &BodyStore,
    params: &NarrowPhaseParams,
    old: Old,
) -> Option<u32> {
    let (sa, sb) = (a.index(), b.index());
    let shapes = || (at.0.shape(), at.1.shape());
    let materials = || {
        let frictions = (bodies.friction()[sa], bodies.friction()[sb]);
        let restitutions = (bodies.restitution()[sa], bodies.restitution()[sb]);
        (frictions, restitutions)
    };
    update_shapes(slot, base, (a, b), shapes, materials, at, params, old, true)
}

/// [`update_pair`] for shape pair `children` of bodies `a` and `b`, in a world with compound
/// bodies. Never inlined, so that its copy of [`update_shapes`] stays out of the loop of
/// worlds without compounds.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn update_shape_pair(
    slot: &mut Contact,
    base: BaseSlot,
    (a, b): (BodySlot, BodySlot),
    children: Children,
    columns: &PairColumns,
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
        base,
        (a, b),
        shapes,
        materials,
        columns.pair_at(sa, sb),
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
    base_slot: BaseSlot,
    (a, b): (BodySlot, BodySlot),
    shapes: impl FnOnce() -> (&'a Shape, &'a Shape),
    materials: impl FnOnce() -> ((f32, f32), (f32, f32)),
    (at_a, at_b): (BodyAt, BodyAt),
    params: &NarrowPhaseParams,
    old: Old,
    one_shape: bool,
) -> Option<u32> {
    // The band widened by how far the pair can close in a step.
    let speculative_distance = widened((at_a, at_b), params);
    // Swept boxes hand the narrowphase many pairs of fast bodies that are still far apart (a
    // smash's debris, a stirred pile's near neighbours); the reach test turns them away for a
    // fraction of a separating-axis test. Two circles collide about as cheaply as it. Nothing
    // of the contact is written before the pair is known to touch: the slot of a pair that
    // does not is dropped unread.
    let (shape_a, shape_b) = shapes();
    let both_circles = matches!((shape_a, shape_b), (Shape::Circle(_), Shape::Circle(_)));
    if !both_circles {
        let reach_a = (at_a.center(), at_a.reach());
        let reach_b = (at_b.center(), at_b.reach());
        if out_of_reach(reach_a, reach_b, speculative_distance) {
            return None;
        }
    }
    let (xf_a, xf_b) = (at_a.transform(), at_b.transform());

    let manifold = &mut slot.manifold;
    // Two boxes of one-shape bodies collide from the box columns: the polygons, each a cache
    // miss of its own, are not read.
    let hull = |at: BodyAt| at.local_box().and_then(|local| local.hull());
    let hulls = match (one_shape, shape_a, shape_b) {
        (true, Shape::Polygon(_), Shape::Polygon(_)) => hull(at_a).zip(hull(at_b)),
        _ => None,
    };
    // A circle collides with a circle, or with the nearest feature of a polygon, in about
    // the operations that gathering the pair's poses and base, the recycling test and
    // writing its base cost; and a ball rolls or slides in a pile, where most of those tests
    // would turn the pair down anyway (its turning moves the surface points a base keeps).
    // So a pair with a circle never recycles.
    let with_circle = matches!(shape_a, Shape::Circle(_)) || matches!(shape_b, Shape::Circle(_));
    let recyclable = !with_circle && may_recycle((at_a, at_b), params);
    let mut reach = Reach::NEVER;
    let wanted = recyclable.then_some(&mut reach);
    match hulls {
        Some((hull_a, hull_b)) => boxes_into(
            &hull_a,
            xf_a,
            &hull_b,
            xf_b,
            speculative_distance,
            manifold,
            wanted,
        ),
        None => {
            let concentric = || concentric_normal(a, b);
            collide_and_reach(
                shape_a,
                xf_a,
                shape_b,
                xf_b,
                speculative_distance,
                concentric,
                manifold,
                wanted,
            )
        }
    }
    if manifold.point_count == 0 {
        // Dropped after this step; nothing will recycle it.
        return None;
    }
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
    // A pair that cannot recycle (its reach allows no motion, or none was worked out) gets
    // no base, so next step collides it afresh, exactly, at once.
    let base = if reach.may_recycle() {
        let base = Base::of_collide(
            &slot.manifold,
            (xf_a, xf_b),
            reach,
            params.recycle_tolerance,
        );
        base.map_or(NONE, |base| base_slot.write(&base))
    } else {
        NONE
    };
    if let Some((old, _)) = old {
        let (manifold, old) = (&mut slot.manifold, &old.manifold);
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
pub(super) fn out_of_reach(
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
    /// The flags of `contact`, just updated and kept, whose `touch` the caller found; notes in
    /// `speed` its closing speed (0 if it does not close in) where it does not touch.
    /// Elsewhere `speed` is left alone: a resting stack, whose contacts all touch, writes no
    /// speeds.
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
