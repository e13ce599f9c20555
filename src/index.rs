//! The value that marks "no entry" in the `u32` index columns: body slots, contact, lane,
//! island and tile indices. One name for it everywhere, so that a reader need not check
//! whether `NO_TILE` and `EMPTY_LANE` differ. The kernels' `NULL_BODY` (the solver state of a
//! body the solver does not move) is the same value, named after the identity row it reads.

/// No entry: the missing body A of a mouse joint, an unused lane of a batch, a contact that the
/// direct solver has rather than a colored batch, a body or contact in no tile or island.
pub(crate) const NONE: u32 = u32::MAX;

const _: () = assert!(NONE == batch2d_kernels::NULL_BODY);
