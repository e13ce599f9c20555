//! Stage 2, the narrowphase: for each broadphase pair, the contact manifold of its two shapes,
//! matched against last step's contacts so the solver can warm start; then what the step
//! reports about contacts: touch events, sensor overlaps, and the contacts of removed bodies.

pub(crate) mod contact;
pub(crate) mod contact_events;
pub(crate) mod events;
pub(crate) mod hit;
pub mod manifold;
pub(crate) mod pre_solve;
pub(crate) mod recycle;
pub(crate) mod removal;
pub(crate) mod sensor;
