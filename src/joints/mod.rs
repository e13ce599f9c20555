//! The joints and their solves: the public joint types and the joint store, the soft joint
//! passes that run among the contact passes of every substep, and the exact solve of rigid
//! joint trees (see `joint` for how a step solves them). The solver (`solver/`) runs these
//! solves as stages of its substeps; nothing here names the solver.
//!
//! `joint` holds the definitions and the joints themselves; `store` the world's joints by
//! slot; `tree` the exact solve of the trees of rigid joints.
//!
//! The soft passes: `prepare` takes each joint's constants for the step, `batches` colors
//! the joints and lays them out in color order (the plain revolute joints in pin batches),
//! and `passes` runs a warm start, solve or relax pass over a block of them, handing each
//! joint to its kind's solve: `revolute`, `distance`, `prismatic`, `wheel`, `weld`, `mouse`,
//! `motor`. What several kinds share: `pair` (a joint's two bodies in a pass, its rows and
//! their solves: equality, limit, motor, point), `slide` (what prismatic and wheel joints
//! share) and `spring` (the spring law).

pub(crate) mod batches;
mod distance;
pub(crate) mod joint;
mod motor;
mod mouse;
mod pair;
pub(crate) mod passes;
mod prepare;
mod prismatic;
mod revolute;
mod slide;
mod spring;
pub(crate) mod store;
pub(crate) mod tree;
mod weld;
mod wheel;
