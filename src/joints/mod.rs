//! The joints and their solves: the public joint types and the joint store, the soft joint
//! passes that run among the contact passes of every substep, and the exact solve of rigid
//! joint trees (see `joint` for how a step solves them).
//!
//! `joint` holds the definitions and the joints themselves; `store` the world's joints by
//! slot; `soft` the soft passes (prepared from the store once per step, then warm start,
//! solve and relax per substep); `tree` the exact solve of the trees of rigid joints.

pub(crate) mod joint;
pub(crate) mod soft;
pub(crate) mod store;
pub(crate) mod tree;
