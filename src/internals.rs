//! Engine internals that the crate's own integration tests and benches drive directly, to
//! check them against brute force: the broadphase and the narrowphase's manifold of two
//! shapes. Not part of the API: hidden from the documentation and free to change in any
//! release; a [`World`](crate::World) runs both for every step.

pub use crate::body::SlotKind;
pub use crate::broad_phase::proxies::Proxies;
pub use crate::broad_phase::BroadPhase;
pub use crate::narrow_phase::manifold::collide;
