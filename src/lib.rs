//! batch2d: a 2D rigid-body physics engine built for speed on the CPU while staying exactly
//! checkable. Bodies live in structure-of-arrays columns, contacts are graph-colored and solved
//! by f32x8 kernels on rayon workers, and a scalar reference path gives bit-identical results.
//!
//! ```
//! use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
//!
//! let mut world = World::new(WorldSettings::default());
//! world.add_body(
//!     BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
//!     ShapeDef::new(Shape::rect(100.0, 1.0)),
//! )?;
//! let ball = world.add_body(
//!     BodyDef::dynamic().position(Vec2::new(0.0, 4.0)),
//!     ShapeDef::new(Shape::circle(0.5)),
//! )?;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0)?;
//! }
//! assert!((world.position(ball)?.y - 0.5).abs() < 0.02);
//! # Ok::<(), batch2d::Error>(())
//! ```

#![warn(missing_docs)]

mod backend;
mod body;
mod broad_phase;
mod chain;
mod compound;
mod constraint_graph;
mod contact;
mod contact_events;
mod continuous;
mod debug_draw;
mod direct_islands;
mod direct_solver;
mod disjoint;
pub mod distance;
mod error;
mod exact_overlap;
mod forces;
mod index;
mod island;
mod joint;
mod joint_solver;
mod lcp;
mod limits;
mod live_settings;
pub mod manifold;
pub mod math;
mod profile;
mod query;
mod query_grid;
mod ray;
mod removal;
mod resting_grid;
pub mod scenes;
mod schedule;
mod sensor;
mod settings;
pub mod shape;
mod sleep;
mod solver;
mod sorted_pairs;
mod stepper;
mod teleport;
mod union_find;
mod user_data;
mod world;

pub use batch2d_kernels::instruction_set;
pub use body::{BodyDef, BodyId, BodyKind, ShapeDef};
pub use constraint_graph::{GraphColor, COLOR_COUNT};
pub use contact_events::{ContactData, ContactEvents, TouchBegin, TouchEvent};
pub use debug_draw::{DebugBody, DebugContact, DebugDraw, DebugDrawOptions};
pub use distance::{
    distance, penetration, time_of_impact, DistanceOutput, Penetration, Sweep, ToiOutput, ToiState,
};
pub use error::Error;
pub use joint::{JointDef, JointId, JointKind};
pub use math::{Aabb, Rot, Transform, Vec2};
pub use profile::Profile;
pub use query::{QueryFilter, RayHit, ShapeHit};
pub use sensor::SensorEvent;
pub use settings::{Backend, MixRule, WorldSettings};
pub use shape::{MassData, Shape, MAX_COMPOUND_SHAPES};
pub use stepper::{FixedStepper, StepReport};
pub use world::World;

/// Engine internals that the crate's own integration tests and benches drive directly, to
/// check them against brute force: the broadphase and the narrowphase's manifold of two
/// shapes. Not part of the API: hidden from the documentation and free to change in any
/// release; a [`World`] runs both for every step.
#[doc(hidden)]
pub mod internals {
    pub use crate::broad_phase::{BroadPhase, Proxies, ProxyKind};
    use crate::manifold::Manifold;
    use crate::{Shape, Transform};

    /// The contact manifold of shape `a` placed by `xf_a` and shape `b` placed by `xf_b`,
    /// keeping points that are at most `speculative_distance` apart, as the narrowphase
    /// computes it for a pair of bodies.
    pub fn collide(
        a: &Shape,
        xf_a: Transform,
        b: &Shape,
        xf_b: Transform,
        speculative_distance: f32,
    ) -> Manifold {
        crate::manifold::collide(a, xf_a, b, xf_b, speculative_distance)
    }
}
