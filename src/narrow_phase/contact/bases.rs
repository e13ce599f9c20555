//! Where the contacts' recycling bases live between steps: in the slots of the chunk of pairs
//! that found them, two sets taking turns.

use crate::narrow_phase::recycle::Base;

/// The bases of the contacts, left where the narrowphase wrote them: in the slots of the chunk
/// of pairs that found them, `CHUNK` per chunk, so that a base's index is its chunk times
/// `CHUNK` plus its place in the chunk. Two sets of slots take turns: the narrowphase reads
/// last step's bases from one while it writes this step's to the other, and nothing is copied.
#[derive(Default)]
pub(super) struct Bases {
    pub sets: [Vec<BaseSlots>; 2],
    /// The set that `ContactSet::base_of` points into.
    pub current: usize,
    /// Bases of woken contacts (see `ContactSet::thaw`), indexed with [`THAWED`] set, until
    /// the next update has read them.
    pub thawed: Vec<Base>,
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
pub(super) const THAWED: u32 = 1 << 31;
use super::CHUNK;

impl Bases {
    /// The base at `index` (not `NONE`).
    pub fn get(&self, index: u32) -> &Base {
        base_at(&self.sets[self.current], &self.thawed, index)
    }
}

/// The base at `index` (not `NONE`) of a set of chunk slots and the thawed bases.
pub(super) fn base_at<'a>(set: &'a [BaseSlots], thawed: &'a [Base], index: u32) -> &'a Base {
    if index & THAWED != 0 {
        return &thawed[(index & !THAWED) as usize];
    }
    let (chunk, at) = (index as usize / CHUNK, index as usize % CHUNK);
    &set[chunk].as_slice()[at]
}

/// The bases one chunk of pairs found: the first `count` of `items`. The rest are slots left
/// from earlier steps, overwritten in place when reused: a base built elsewhere and pushed
/// goes through the stack, and the wide copy out of it stalls on the narrow stores that built
/// it (measured at a tenth of a pyramid's narrowphase).
#[derive(Default)]
pub(super) struct BaseSlots {
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
    pub fn clear(&mut self) {
        self.count = 0;
    }

    /// Takes the next slot, for the caller to write in place, and returns its index with it.
    /// A slot is made the first time the chunk needs it: room for a whole chunk is reserved
    /// then, so steady steps never allocate, and pages are touched only as slots are made (a
    /// pile of circles makes none).
    #[inline(always)]
    pub fn push(&mut self) -> (u32, &mut Base) {
        if self.count == self.items.len() {
            if self.items.capacity() == 0 {
                self.items.reserve_exact(CHUNK);
            }
            self.items.push(Base::empty());
        }
        self.count += 1;
        ((self.count - 1) as u32, &mut self.items[self.count - 1])
    }

    pub fn as_slice(&self) -> &[Base] {
        &self.items[..self.count]
    }
}
