//! Indices, one type per kind of entry, so that the compiler rejects an index of one kind where
//! another belongs, and a field's type says what it counts. Each is a `u32` underneath
//! (`repr(transparent)`, every method `#[inline]`), so a column of them costs what a column of
//! `u32` does.
//!
//! `NONE` marks "no entry" in the columns of these kinds, and the module's [`NONE`] in the `u32`
//! columns that stay raw (lanes, tiles, solver states, direct islands, joint slots). It is one
//! value everywhere, so that a reader need not check whether two sentinels differ. The kernels'
//! `NULL_BODY` (the solver state of a body the solver does not move) is the same value, named
//! after the identity row it reads.

/// No entry in a raw `u32` index column: an unused lane of a batch, the lane of a contact that
/// the direct solver has rather than a colored batch, a body or contact in no tile, a body or
/// root in no direct island, the joint of a padding lane.
pub(crate) const NONE: u32 = u32::MAX;

const _: () = assert!(NONE == batch2d_kernels::NULL_BODY);

/// Declares an index type: a `u32` that names one kind of entry.
macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        #[repr(transparent)]
        pub(crate) struct $name(u32);

        impl $name {
            /// No entry.
            pub const NONE: $name = $name(NONE);

            /// The entry at `index`, which must be below `u32::MAX`.
            #[inline]
            pub fn new(index: usize) -> $name {
                debug_assert!(index < NONE as usize);
                $name(index as u32)
            }

            /// The position of the entry, to index its columns with.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

index_type!(
    /// A slot of the body store: the index of a body in every per-body column.
    BodySlot
);

index_type!(
    /// A sleeping island: its entry in the sleep stage's list of them (`Sleep::sleeping`).
    IslandIndex
);

index_type!(
    /// An entry of the contact set's list (`ContactSet::list`), valid for the step that made it.
    ContactIndex
);

impl BodySlot {
    /// `slots` as the raw `u32` slots that the broadphase's grids take.
    #[inline]
    pub fn raw(slots: &[BodySlot]) -> &[u32] {
        // SAFETY: `BodySlot` is a `repr(transparent)` `u32`: same size, alignment and values.
        unsafe { std::slice::from_raw_parts(slots.as_ptr().cast::<u32>(), slots.len()) }
    }
}

/// The last [`Stamp`] drawn, in the whole process.
static LAST_STAMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// One version of some state (a store's joints, its bodies' masses): drawn afresh at each
/// change from one counter for the whole process, so that no two versions of anything share
/// a stamp. Two equal stamps therefore mean the same state, even in a clone of the world or
/// one restored from a snapshot, and a pass that derived something from a state can keep it
/// while the stamp stays the one it saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp(u64);

impl Stamp {
    /// A stamp no state has had.
    pub fn fresh() -> Stamp {
        use std::sync::atomic::Ordering;
        Stamp(LAST_STAMP.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

impl Default for Stamp {
    /// A fresh stamp (see [`Stamp::fresh`]).
    fn default() -> Stamp {
        Stamp::fresh()
    }
}
