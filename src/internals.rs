//! Engine internals that the crate's own integration tests and benches drive directly, to
//! check them against brute force: the broadphase and the narrowphase's manifold of two
//! shapes. Not part of the API: hidden from the documentation and free to change in any
//! release; a [`World`](crate::World) runs both for every step.

pub use crate::broad_phase::{BroadPhase, Proxies, ProxyKind};
use crate::geometry::math::Transform;
use crate::geometry::shape::Shape;
use crate::narrow_phase::manifold::{collide_into, Manifold, FALLBACK_NORMAL};

/// Contact manifold between shape `a` on a body at origin transform `xf_a` and shape `b` at
/// `xf_b`, as the narrowphase computes it for a new pair. Points whose separation exceeds
/// `speculative_distance` are dropped (`point_count == 0` means no contact). Two concentric
/// circles get the normal (0, 1). Deterministic and allocation free.
pub fn collide(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
    speculative_distance: f32,
) -> Manifold {
    let mut manifold = Manifold::default();
    let concentric = || FALLBACK_NORMAL;
    collide_into(
        a,
        xf_a,
        b,
        xf_b,
        speculative_distance,
        concentric,
        &mut manifold,
    );
    manifold
}
