//! Where the contacts' recycling bases live between steps: in the slots of the chunk of pairs
//! that found them, two sets taking turns.

use super::CHUNK;
use crate::narrow_phase::recycle::{Base, BaseAt};
use batch2d_kernels::{RecycleBases, LANES};
use bytemuck::Zeroable;

/// The bases of the contacts, left where the narrowphase wrote them: in the slots of the
/// pairs that found them, `CHUNK` per chunk, so that a base's index is the index of its pair
/// in that step's pairs. When the pairs are last step's and each base is in its pair's slot
/// (every step of a resting scene), the narrowphase updates the set in place: a recycled
/// pair's base stays where it is, and a fresh collide overwrites its own pair's. Otherwise
/// two sets of slots take turns: the narrowphase reads last step's bases from one while it
/// writes this step's to the other.
#[derive(Default)]
pub(super) struct Bases {
    pub sets: [Vec<BaseSlots>; 2],
    /// The set that `ContactSet::base_of` points into.
    pub current: usize,
    /// Bases of woken contacts (see `ContactSet::thaw`), indexed with [`THAWED`] set, until
    /// the next update has read them.
    pub thawed: Vec<Base>,
    /// Whether the next update must leave the set `current` as it is, writing to the other:
    /// a backup made by `ContactSet::save` points into it.
    pub keep_current: bool,
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
            keep_current: false,
        }
    }

    fn clone_from(&mut self, source: &Bases) {
        self.current = source.current;
        self.sets[self.current].clone_from(&source.sets[self.current]);
        self.thawed.clone_from(&source.thawed);
    }
}

/// Marks a base index into [`Bases::thawed`].
pub(super) const THAWED: u32 = 1 << 31;

impl Bases {
    /// The base at `index` (not `NONE`).
    pub fn get(&self, index: u32) -> Base {
        base_at(&self.sets[self.current], &self.thawed, index).get()
    }
}

/// Where the base at `index` (not `NONE`) of a set of chunk slots and the thawed bases is.
#[inline(always)]
pub(super) fn base_at<'b>(set: &'b [BaseSlots], thawed: &'b [Base], index: u32) -> BaseAt<'b> {
    if index & THAWED != 0 {
        return BaseAt::Loose(&thawed[(index & !THAWED) as usize]);
    }
    let (chunk, at) = (index as usize / CHUNK, index as usize % CHUNK);
    BaseAt::Lane(&set[chunk].blocks[at / LANES], at % LANES)
}

/// The bases one chunk of pairs found, each in its pair's slot: pair `i` of the chunk in
/// lane `i % 8` of block `i / 8`, lane-major, as the recycle kernel reads them. Slots of pairs
/// without a base hold whatever an earlier step left there, which nothing reads.
#[derive(Default)]
pub(super) struct BaseSlots {
    blocks: Vec<RecycleBases>,
}

/// `clone_from` copies into the blocks already there: a rollback restores into the same world
/// frame after frame, and should not allocate once per chunk.
impl Clone for BaseSlots {
    fn clone(&self) -> BaseSlots {
        BaseSlots {
            blocks: self.blocks.clone(),
        }
    }

    fn clone_from(&mut self, source: &BaseSlots) {
        self.blocks.clone_from(&source.blocks);
    }
}

impl BaseSlots {
    /// The block of the chunk's pairs `8k..8k + 8`, if one was ever made.
    #[inline(always)]
    pub fn block(&self, k: usize) -> Option<&RecycleBases> {
        self.blocks.get(k)
    }

    /// The block of the chunk's pairs `8k..8k + 8`, for the caller to write in place. Blocks
    /// are made the first time the chunk needs them, room for a whole chunk reserved then, so
    /// that steady steps never allocate, and pages are touched only as blocks are made (a pile
    /// of circles makes none).
    #[inline(always)]
    pub fn block_mut(&mut self, k: usize) -> &mut RecycleBases {
        if k >= self.blocks.len() {
            self.grow(k);
        }
        &mut self.blocks[k]
    }

    #[cold]
    fn grow(&mut self, k: usize) {
        if self.blocks.capacity() == 0 {
            self.blocks.reserve_exact(CHUNK / LANES);
        }
        self.blocks.resize(k + 1, RecycleBases::zeroed());
    }
}

/// Where the base of one pair goes: its slot in its chunk's [`BaseSlots`].
pub(super) struct BaseSlot<'s> {
    pub slots: &'s mut BaseSlots,
    /// The pair's place in the chunk.
    pub at: usize,
    /// The pair's place among all pairs: the index of its base.
    pub index: u32,
}

impl BaseSlot<'_> {
    /// Writes `base` to the slot; returns its index.
    #[inline(always)]
    pub fn write(self, base: &Base) -> u32 {
        base.write_lane(self.slots.block_mut(self.at / LANES), self.at % LANES);
        self.index
    }
}
