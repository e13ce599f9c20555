//! The world: the `World` struct, which owns the state of every stage, and `World::step`,
//! which checks its input and runs the pipeline of `step.rs` (read top to bottom in
//! `run_step`, one method per stage). The public calls live in the files of their topic
//! (`bodies.rs`, `joints.rs`, `query.rs`, ...); each hands the stages what they touch as
//! arguments. `World`'s fields are private to this folder.

mod bodies;
mod body_kind;
mod chain;
pub(crate) mod character;
mod compound;
mod contacts;
pub(crate) mod debug_draw;
mod enable;
mod filters;
mod forces;
mod hooks;
mod joint_control;
mod joints;
mod live_settings;
mod mass;
#[cfg(feature = "tracy")]
mod plots;
pub(crate) mod query;
pub(crate) mod shape_cast;
mod sleep;
pub(crate) mod snapshot;
mod snapshot_bytes;
#[cfg(feature = "serde")]
mod snapshot_serde;
mod state_hash;
mod step;
pub(crate) mod stepper;
mod target;
mod teleport;
mod user_data;

use crate::body::BodyStore;
use crate::broad_phase::compound::ShapePairs;
use crate::broad_phase::query_grid::QueryGrid;
use crate::broad_phase::BroadPhase;
use crate::coloring::ConstraintGraph;
use crate::continuous::SweepTargets;
use crate::error::Error;
use crate::forces::Forces;
use crate::islands::sleep::Sleep;
use crate::joints::store::JointStore;
use crate::narrow_phase::contact::ContactSet;
use crate::narrow_phase::contact_events::ContactLog;
use crate::narrow_phase::pre_solve::PreSolve;
use crate::narrow_phase::removal::Removed;
use crate::narrow_phase::sensor::Sensors;
use crate::profile::{start_tracy, zone, Profile, StepFrame};
use crate::settings::WorldSettings;
use crate::solver::direct_islands::DirectIslands;
use crate::solver::Solver;
use std::sync::RwLock;

/// A physics world: bodies, their shapes and joints, stepped in time.
///
/// Start with [`World::new`] (or [`World::try_new`] to get bad settings as an error), add
/// bodies with [`World::add_body`], and advance time with [`World::step`]:
///
/// ```
/// use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
///
/// let mut world = World::new(WorldSettings::default());
/// world.add_body(
///     BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
///     ShapeDef::new(Shape::rect(50.0, 1.0)?),
/// )?;
/// let ball = world.add_body(
///     BodyDef::dynamic().position(Vec2::new(0.0, 4.0)),
///     ShapeDef::new(Shape::circle(0.5)?),
/// )?;
/// for _ in 0..120 {
///     world.step(1.0 / 60.0)?;
/// }
/// assert!((world.position(ball)?.y - 0.5).abs() < 0.01); // at rest on the ground
/// # Ok::<(), batch2d::Error>(())
/// ```
///
/// Every call that can fail returns `Err` with the world unchanged; a stale
/// [`BodyId`](crate::BodyId) gives [`Error::InvalidBody`](crate::Error::InvalidBody).
///
/// # The calls by topic
///
/// - **Stepping:** [`step`](World::step); [`FixedStepper`](crate::FixedStepper) for render
///   loops of any frame rate; [`settings`](World::settings),
///   [`set_settings`](World::set_settings), [`set_gravity`](World::set_gravity);
///   [`profile`](World::profile).
/// - **Bodies:** [`add_body`](World::add_body),
///   [`add_compound_body`](World::add_compound_body),
///   [`add_segment_chain`](World::add_segment_chain), [`remove_body`](World::remove_body);
///   reading them: [`position`](World::position), [`transform`](World::transform),
///   [`linear_velocity`](World::linear_velocity), [`shapes`](World::shapes),
///   [`bodies`](World::bodies); placing them: [`set_transform`](World::set_transform),
///   [`set_linear_velocity`](World::set_linear_velocity); your own number per body:
///   [`user_data`](World::user_data).
/// - **Forces:** [`apply_force`](World::apply_force),
///   [`apply_linear_impulse`](World::apply_linear_impulse),
///   [`apply_torque`](World::apply_torque) and their variants at a point.
/// - **Joints:** [`add_joint`](World::add_joint) with a [`JointDef`](crate::JointDef),
///   [`remove_joint`](World::remove_joint), [`joint_reaction_force`](World::joint_reaction_force),
///   [`set_mouse_target`](World::set_mouse_target),
///   [`set_motor_joint_target`](World::set_motor_joint_target).
/// - **Contacts and events:** [`contacts`](World::contacts) (points, normals, forces),
///   [`contact_events`](World::contact_events) (touch begin and end, hits with the speed at
///   impact, sensor overlaps).
/// - **Changing contacts while it runs:** [`set_pre_solve`](World::set_pre_solve) (one-way
///   platforms, conveyor belts, per-contact friction and restitution).
/// - **Queries:** [`cast_ray`](World::cast_ray), [`cast_shape`](World::cast_shape),
///   [`overlap_point`](World::overlap_point), [`overlap_aabb`](World::overlap_aabb),
///   [`overlap_shape`](World::overlap_shape).
/// - **Sleep:** [`is_awake`](World::is_awake), [`wake`](World::wake) (with
///   [`WorldSettings::enable_sleep`](crate::WorldSettings::enable_sleep)).
/// - **Drawing:** [`debug_draw`](World::debug_draw).
///
/// # What batch2d does not have yet
///
/// Honestly, against Box2D v3 and Rapier:
///
/// - **No serde:** snapshots have their own byte format ([`Snapshot::to_bytes`](crate::Snapshot::to_bytes)),
///   but the definitions and settings do not implement `Serialize`/`Deserialize` yet.
/// - **Chains are one-sided segments only for contacts and rays:** shape casts, overlap tests,
///   sensors and continuous collision still see chain segments from both sides.
/// - **No character mover** (Box2D's mover, Rapier's character controller).
/// - **Continuous collision asks neither the pre-solve hook nor the pair filter:** a body
///   fast enough to be swept (a bullet, or one moving more than about its size in a step) can
///   be stopped by a fixed one-way platform that it should pass, and a bullet by a body the
///   pair filter keeps it from touching (it is moved back short of it, and then passes).
/// - **Hit events come only with a begin:** an impact on a contact that was already touching
///   (a box tipping onto its other corner) reports none; sensor events name the body, not which
///   of its sensor shapes.
/// - **Heavy on light has a size limit:** islands of up to 24 dynamic bodies with widely
///   different masses are solved exactly; past that, a heavy load can crush a column of light
///   bodies, as in Box2D's soft step. Rigid joints that form trees (chains, ropes, welded
///   beams) are solved exactly at any size; joints in loops, and joints with limits, motors or
///   springs, are soft.
/// - **Very large worlds:** the broadphase's cost per body grows past about 300,000 bodies,
///   once its data no longer fits in the cache.
pub struct World {
    settings: WorldSettings,
    pool: Option<rayon::ThreadPool>,
    bodies: BodyStore,
    broad_phase: BroadPhase,
    /// This step's body pairs, raw `u32` slots as the broadphase's own code makes them; the
    /// contact set takes them as `BodySlot`s.
    pairs: Vec<(u32, u32)>,
    /// `pairs` expanded into shape pairs, in a world with compound bodies.
    shape_pairs: ShapePairs,
    contacts: ContactSet,
    events: ContactLog,
    /// The user's forces and torques for the next step.
    forces: Forces,
    sensors: Sensors,
    sleep: Sleep,
    graph: ConstraintGraph,
    /// The small islands of widely different masses, solved exactly.
    direct: DirectIslands,
    solver: Solver,
    /// The static bodies that continuous collision sweeps fast bodies against.
    sweep_targets: SweepTargets,
    joints: JointStore,
    profile: Profile,
    /// Where queries look for bodies; see `query.rs` and `broad_phase/query_grid.rs`.
    query_grid: RwLock<QueryGrid>,
    /// Bodies removed since the last step whose contacts are still listed; see `narrow_phase/removal.rs`.
    removed: Removed,
    /// The user's pair filter (`World::set_pair_filter`), if any.
    pair_filter: Option<filters::PairFilter>,
    /// The user's pre-solve hook, and the copy of the contacts that undoes a step it fails;
    /// see `narrow_phase/pre_solve.rs`. A snapshot of the world leaves it out: the hook is the
    /// user's code, and the copy is scratch.
    pre_solve: PreSolve,
}

impl Clone for World {
    /// A deep copy: the same bodies, handles, joints, contacts, islands, pending forces, unread
    /// events and settings, stepping to the same bits as `self`; what it leaves out is what a
    /// [`Snapshot`](crate::Snapshot) leaves out. Handles of `self` work in the copy. The copy
    /// gets a worker pool of its own with the same number of threads, since a pool cannot be
    /// shared or copied.
    fn clone(&self) -> World {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.settings.threads)
            .build()
            .ok();
        // A twin keeps the caches, so that its next step costs what the original's does.
        self.copy_with_pool(pool, true)
    }
}

impl World {
    /// A world with `settings`.
    ///
    /// # Panics
    ///
    /// With the error's message when [`WorldSettings::validate`] refuses the settings; use
    /// [`World::try_new`] to get the error as a value instead.
    pub fn new(settings: WorldSettings) -> World {
        World::try_new(settings).unwrap_or_else(|e| panic!("World::new: {e}"))
    }

    /// A world with `settings`, or the error of [`WorldSettings::validate`].
    pub fn try_new(settings: WorldSettings) -> Result<World, Error> {
        settings.validate()?;
        start_tracy();
        // Without a pool of its own (the system refused the threads) the world runs on rayon's
        // global pool.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(settings.threads)
            .thread_name(|i| format!("batch2d-{i}"))
            .build()
            .ok();
        Ok(World {
            settings,
            pool,
            bodies: BodyStore::new(),
            broad_phase: BroadPhase::new(),
            pairs: Vec::new(),
            shape_pairs: ShapePairs::default(),
            contacts: ContactSet::default(),
            events: ContactLog::default(),
            forces: Forces::default(),
            sensors: Sensors::default(),
            sleep: Sleep::default(),
            graph: ConstraintGraph::default(),
            direct: DirectIslands::default(),
            solver: Solver::default(),
            sweep_targets: SweepTargets::default(),
            joints: JointStore::default(),
            profile: Profile::default(),
            query_grid: RwLock::default(),
            removed: Removed::default(),
            pair_filter: None,
            pre_solve: PreSolve::default(),
        })
    }

    /// The settings of the world: those it was created with, or changed since by
    /// [`World::set_settings`] or [`World::set_gravity`]; valid by construction.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Advances the world by `dt` seconds. `Err` for `dt <= 0`, NaN, infinite or longer than
    /// 1 s, the longest step the engine supports (bodies would pass through the ground); and
    /// [`Error::TooManyPairs`] when more pairs of shapes overlap than
    /// [`WorldSettings::pair_limit`] allows; [`Error::HookPanicked`] when the pair filter or the
    /// pre-solve hook panics, and [`Error::InvalidParameter`] when the hook sets a negative or
    /// non-finite coefficient (see [`World::set_pre_solve`]). On `Err` the world is as it was.
    pub fn step(&mut self, dt: f32) -> Result<(), Error> {
        let _frame = StepFrame::begin();
        zone!("step");
        crate::limits::check_time_step(dt)?;
        (self.events).drop_removed(&mut self.removed, &mut self.contacts, &self.bodies);
        if self.bodies.len() == 0 {
            // Nothing can move or touch (removing a body drops its contacts), and handing the
            // step to the worker pool would cost more than the rest of it: waking its threads.
            self.graph.build(&[], &[], &self.bodies, &[], &[]);
            self.profile = Profile::default();
            return Ok(());
        }
        match self.pool.take() {
            Some(pool) => {
                let done = pool.install(|| self.run_step(dt));
                self.pool = Some(pool);
                done
            }
            None => self.run_step(dt),
        }
    }

    /// Per-stage milliseconds of the last step.
    pub fn profile(&self) -> Profile {
        self.profile
    }
}

#[cfg(test)]
mod tests;
