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
//!     ShapeDef::new(Shape::rect(100.0, 1.0)?),
//! )?;
//! let ball = world.add_body(
//!     BodyDef::dynamic().position(Vec2::new(0.0, 4.0)),
//!     ShapeDef::new(Shape::circle(0.5)?),
//! )?;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0)?;
//! }
//! assert!((world.position(ball)?.y - 0.5).abs() < 0.02);
//! # Ok::<(), batch2d::Error>(())
//! ```
//!
//! # The step
//!
//! [`World::step`] runs five stages, in order; [`World::profile`] times each of them, under the
//! same names. What flows from one to the next:
//!
//! ```text
//!  bodies: poses, velocities, shapes
//!     |
//!     v
//! +---------------+  boxes grown by the speculative distance and swept along the velocity;
//! | 1 broadphase  |  a grid hash keeps the pairs whose boxes overlap; moving bodies find the
//! +---------------+  sleeping ones they reach; sensor and jointed pairs are set aside
//!     |  body pairs (a, b), a < b, sorted
//!     v
//! +---------------+  one manifold (up to two points) per pair, in the frame of body A;
//! | 2 narrowphase |  impulses carried over from last step's points with the same feature id;
//! +---------------+  islands a moving body touches wake up
//!     |  contacts, sorted by pair
//!     v
//! +---------------+  touch begin/end events; small islands of widely different masses go to
//! | 3 coloring    |  an exact solver; the rest are colored so that no dynamic body appears
//! +---------------+  twice in a color, and packed eight contacts to a batch
//!     |  colors of batches, tiles of small piles, exact islands
//!     v
//! +---------------+  prepare; impact passes (bounces); then per substep: integrate
//! | 4 solve       |  velocities, warm start, biased solve passes, integrate positions, relax;
//! +---------------+  joints in the same substeps; the impulses go back to the contacts
//!     |  solver body states
//!     v
//! +---------------+  poses and velocities written back; fast bodies and bullets swept
//! | 5 finalize    |  against static bodies (continuous collision); resting islands
//! +---------------+  fall asleep
//!     |
//!     v
//!  bodies, contact events (World::contact_events), touching contacts (World::contacts)
//! ```
//!
//! The colors are solved in order, and the batches of one color on all worker threads at once;
//! no two workers touch the same body, so the result is the same for any thread count, and for
//! both [`Backend`]s, whose kernels do the same float operations lane by lane.
//!
//! # Coming from Box2D or Rapier
//!
//! The same things under this crate's names (Box2D v3's C API; Rapier's `rapier2d`):
//!
//! | batch2d | Box2D v3 | Rapier |
//! |---|---|---|
//! | [`World::new`]`(`[`WorldSettings`]`::default())` | `b2CreateWorld(&b2DefaultWorldDef())` | `RigidBodySet`, `ColliderSet` and a `PhysicsPipeline` |
//! | [`World::step`]`(dt)`, substeps in [`WorldSettings::substeps`] | `b2World_Step(world, dt, subStepCount)` | `PhysicsPipeline::step` with `IntegrationParameters` |
//! | [`BodyDef::dynamic`], [`BodyDef::fixed`], [`BodyDef::kinematic`] | `b2DefaultBodyDef()` with `type` | `RigidBodyBuilder::dynamic`, `fixed`, `kinematic_velocity_based` |
//! | [`World::add_body`]`(def, `[`ShapeDef`]`::new(shape))`: one call, body and shape | `b2CreateBody` then `b2CreatePolygonShape` | `RigidBodySet::insert` then `ColliderSet::insert_with_parent` |
//! | [`World::add_compound_body`] | several shapes on one body | several colliders on one body |
//! | [`Shape::rect`], [`Shape::circle`], [`Shape::capsule`], [`Shape::polygon`] | `b2MakeBox`, `b2Circle`, `b2Capsule`, `b2MakePolygon(b2ComputeHull(..))` | `ColliderBuilder::cuboid`, `ball`, `capsule_*`, `convex_hull` |
//! | [`ShapeDef::density`], [`ShapeDef::friction`], [`ShapeDef::restitution`] | fields of `b2ShapeDef` | `ColliderBuilder::density`, `friction`, `restitution` |
//! | [`World::position`] (centre of mass), [`World::transform`] (origin) | `b2Body_GetWorldCenterOfMass`, `b2Body_GetTransform` | `RigidBody::center_of_mass`, `RigidBody::position` |
//! | [`World::apply_force`], [`World::apply_linear_impulse`] | `b2Body_ApplyForceToCenter`, `b2Body_ApplyLinearImpulseToCenter` | `RigidBody::add_force`, `RigidBody::apply_impulse` |
//! | [`World::set_transform`], [`World::set_linear_velocity`] | `b2Body_SetTransform`, `b2Body_SetLinearVelocity` | `RigidBody::set_position`, `RigidBody::set_linvel` |
//! | [`World::remove_body`] | `b2DestroyBody` | `RigidBodySet::remove` |
//! | [`World::add_joint`]`(`[`JointDef`]`::revolute(a, b, anchor))` | `b2CreateRevoluteJoint` | `ImpulseJointSet::insert` with a `RevoluteJointBuilder` |
//! | [`World::contact_events`], [`World::contacts`] | `b2World_GetContactEvents`, `b2Body_GetContactData` | an `EventHandler` such as `ChannelEventCollector`, `NarrowPhase::contact_pairs` |
//! | [`ShapeDef::sensor`], [`ContactEvents::sensor_begin`] | `isSensor`, `b2World_GetSensorEvents` | `ColliderBuilder::sensor`, intersection events |
//! | [`collide`] (a [`Manifold`](manifold::Manifold) of two shapes), [`distance`](fn@distance), [`time_of_impact`] | `b2CollidePolygons` and the other `b2Collide*`, `b2ShapeDistance`, `b2TimeOfImpact` | `contact_manifold`, `distance`, `cast_shapes` (parry) |
//! | [`World::cast_ray`], [`World::overlap_aabb`], [`World::cast_shape`] | `b2World_CastRayClosest`, `b2World_OverlapAABB`, `b2World_CastShape` | the query pipeline's `cast_ray`, AABB intersection and `cast_shape` |
//! | [`World::cast_shape_rotating`] | none: Box2D's shape casts translate only | the query pipeline's nonlinear shape cast |
//! | [`World::move_character`] with a [`CharacterController`], [`World::push_with_character`] | the mover: `b2World_CastMover`, `b2World_CollideMover`, `b2SolvePlanes` | `KinematicCharacterController::move_shape`, `solve_character_collision_impulses` |
//! | [`ShapeDef::layers`] and [`ShapeDef::mask`] | `b2Filter` `categoryBits` and `maskBits` | `InteractionGroups` |
//! | [`ShapeDef::group`](method@ShapeDef::group), [`World::set_filter`], [`World::set_pair_filter`] | `b2Filter` `groupIndex`, `b2Shape_SetFilter`, `b2World_SetCustomFilterCallback` | `InteractionGroups`, `PhysicsHooks::filter_contact_pair` |
//! | [`World::mass`], [`World::rotational_inertia`], [`World::set_density`] | `b2Body_GetMass`, `b2Body_GetRotationalInertia`, `b2Shape_SetDensity` | `RigidBody::mass`, `Collider::set_density` |
//! | [`World::set_body_kind`], [`World::set_enabled`] | `b2Body_SetType`, `b2Body_Disable` and `b2Body_Enable` | `RigidBody::set_body_type`, `RigidBody::set_enabled` |
//! | [`World::set_target_transform`] | `b2Body_SetTargetTransform` | `RigidBody::set_next_kinematic_position` |
//! | [`WorldSettings::enable_sleep`], [`World::is_awake`] | `enableSleep`, `b2Body_IsAwake` | `RigidBody::is_sleeping` |
//! | [`BodyDef::user_data`] (a `u64`) | `userData` (a pointer) | `user_data` (a `u128`) |
//! | [`FixedStepper`] | a fixed-step loop of your own | a fixed-step loop of your own |
//!
//! Differences that matter when porting: every call that can fail returns a [`Result`] (a stale
//! [`BodyId`] is an `Err`, not undefined behaviour); sleeping is off by default; contact events
//! are sorted, and identical from run to run.

#![warn(missing_docs)]

mod backend;
mod body;
mod body_def;
mod broad_phase;
mod codec;
mod coloring;
mod continuous;
mod disjoint;
mod error;
mod forces;
mod geometry;
mod index;
mod islands;
mod joints;
mod limits;
mod narrow_phase;
mod profile;
#[cfg(feature = "scenes")]
pub mod scenes;
mod settings;
mod softness;
mod solver;
mod world;

pub use geometry::{math, shape};

/// The contact manifold of a touching pair of shapes, as [`World::contacts`] reports it.
pub mod manifold {
    pub use crate::narrow_phase::manifold::{Manifold, ManifoldPoint, MAX_MANIFOLD_POINTS};
}

pub use batch2d_kernels::{instruction_set, InstructionSet};
pub use body::BodyId;
pub use body_def::{BodyDef, BodyKind, ShapeDef};
pub use error::Error;
pub use geometry::distance::{
    distance, penetration, time_of_impact, DistanceOutput, Penetration, Sweep, ToiOutput, ToiState,
};
pub use joints::joint::{JointDef, JointEvent, JointId, JointKind};
pub use math::{Aabb, Rot, Transform, Vec2};
pub use narrow_phase::events::{
    ContactData, ContactEvents, HitEvent, SensorEvent, TouchBegin, TouchEvent,
};
pub use narrow_phase::manifold::collide;
pub use narrow_phase::pre_solve::{PreSolveContact, PreSolveFn};
pub use profile::{set_tracy_frame_per_step, Profile};
pub use settings::{Backend, MixRule, WorldSettings};
pub use shape::{ChainGhosts, MassData, Shape, MAX_COMPOUND_SHAPES};
pub use world::character::{CharacterController, CharacterHit, CharacterMove};
pub use world::debug_draw::{DebugBody, DebugContact, DebugDraw, DebugDrawOptions, DebugJoint};
pub use world::query::{QueryFilter, RayHit};
pub use world::shape_cast::ShapeHit;
pub use world::snapshot::Snapshot;
pub use world::stepper::{FixedStepper, StepReport};
pub use world::World;

// Last: the public API check reads this file only up to its first test-only item.
#[cfg(test)]
mod test_rng;
