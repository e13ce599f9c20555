//! Saving and restoring a world: [`Snapshot`], [`World::snapshot`], [`World::restore`],
//! [`World::from_snapshot`], and [`World::state_hash`], the checksum peers compare to find a
//! desync.
//!
//! A snapshot is a copy of the world's state, made by the same `Clone` as `World::clone`: every
//! stage's state derives `Clone`, so state a later change adds is saved without anyone having
//! to remember it. What a copy leaves out is listed on [`Snapshot`].

use std::sync::RwLock;

use crate::error::Error;
use crate::profile::Profile;
use crate::settings::WorldSettings;
use crate::world::World;

/// A saved world: everything that decides the steps that follow. A world restored from it (by
/// [`World::restore`] or [`World::from_snapshot`]) steps to the same bits as the world it was
/// taken from, on any thread count, [`Backend`](crate::Backend) and instruction set.
///
/// Saved: the bodies with their handles, generations and free slots; shapes, materials,
/// filters and user data; the joints with their warm-start impulses; the contacts with their
/// feature ids, warm-start impulses and the bases their manifolds are recycled from; the
/// islands, sleeping islands and rest times; the forces
/// applied since the last step; the events of the last step not yet read; and the settings
/// that shape physics. Handles ([`BodyId`](crate::BodyId), [`JointId`](crate::JointId)) of the
/// saved world work in the restored one.
///
/// Not saved, because the next step rebuilds it to the same bits: the broadphase's grids and
/// pairs, the coloring and the solver's buffers, the sweep targets of continuous collision and
/// the index that queries search (so the first step after a restore redoes some work a step
/// of the saved world would have reused). Not saved, because it decides nothing about the
/// next step:
/// - the worker pool: a world keeps its own (restore), or builds one from the settings it is
///   given ([`World::from_snapshot`]); so are [`WorldSettings::threads`],
///   [`WorldSettings::backend`] and [`WorldSettings::instruction_set`] the restoring world's,
///   since every choice of them gives the same bits;
/// - the [`Profile`] of the last step: a restored world reports zeros until it steps.
///
/// With the `serde` feature, a snapshot serializes as its bytes ([`Snapshot::to_bytes`]) and
/// deserializes through [`Snapshot::from_bytes`], so that bad input is an error of the
/// deserializer, with the reason `from_bytes` gives.
#[derive(Clone)]
pub struct Snapshot {
    /// The saved state, as a world without a worker pool.
    pub(super) world: Box<World>,
}

impl World {
    /// The state of the world with `pool` as its worker pool, sharing its hooks (the pair
    /// filter and the pre-solve hook): what `clone`, `snapshot` and `restore` share. With `caches` false, the state that each step rebuilds when it is
    /// missing (the broadphase's grids and pairs, the coloring, the solver's buffers, the sweep
    /// targets) is left out, as `Snapshot::from_bytes` leaves it out, and the first step
    /// rebuilds it to the same bits.
    pub(super) fn copy_with_pool(&self, pool: Option<rayon::ThreadPool>, caches: bool) -> World {
        let World {
            settings,
            pool: _,
            bodies,
            broad_phase,
            pairs,
            shape_pairs,
            contacts,
            events,
            forces,
            sensors,
            sleep,
            graph,
            direct,
            solver,
            sweep_targets,
            joints,
            profile: _,
            query_grid: _,
            removed,
            pair_filter,
            pre_solve,
        } = self;
        let mut copy = World {
            settings: settings.clone(),
            pool,
            bodies: bodies.clone(),
            broad_phase: Default::default(),
            pairs: Vec::new(),
            shape_pairs: Default::default(),
            contacts: contacts.clone(),
            events: events.clone(),
            forces: forces.clone(),
            sensors: sensors.clone(),
            sleep: sleep.clone(),
            graph: Default::default(),
            direct: Default::default(),
            solver: solver.carried(),
            sweep_targets: Default::default(),
            joints: joints.clone(),
            profile: Profile::default(),
            query_grid: Default::default(),
            removed: removed.clone(),
            pair_filter: pair_filter.clone(),
            pre_solve: pre_solve.share(),
        };
        if caches {
            copy.broad_phase = broad_phase.clone();
            copy.pairs = pairs.clone();
            copy.shape_pairs = shape_pairs.clone();
            copy.graph = graph.clone();
            copy.direct = direct.clone();
            copy.solver = solver.clone();
            copy.sweep_targets = sweep_targets.clone();
        }
        copy
    }

    /// A deep copy of everything that decides the next step (see [`Snapshot`] for what is
    /// left out). Cheap enough for every frame of a rollback loop: it copies the world's
    /// columns and lists, nothing more.
    pub fn snapshot(&self) -> Snapshot {
        let mut world = self.copy_with_pool(None, false);
        world.clear_hooks();
        Snapshot {
            world: Box::new(world),
        }
    }

    /// Puts the world back in the state `snapshot` saved: the next step gives the same bits as
    /// the step the saved world would have taken. Keeps this world's worker pool and its
    /// execution settings ([`WorldSettings::threads`], [`WorldSettings::backend`],
    /// [`WorldSettings::instruction_set`]); every other setting is the snapshot's. Handles of
    /// the saved world work afterwards (those of this world work only if it is the saved
    /// one), and the unread events are the snapshot's. The state is copied into the lists this
    /// world already has, so that a rollback loop restoring into the same world frame after
    /// frame allocates next to nothing; the caches the next step rebuilds are dropped.
    ///
    /// `Err(InvalidParameter)`, with the world unchanged, if the snapshot's settings combined
    /// with this world's execution settings do not validate.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result<(), Error> {
        let settings = with_execution(&snapshot.world.settings, &self.settings);
        settings.validate()?;
        self.copy_state_from(&snapshot.world);
        self.settings = settings;
        Ok(())
    }

    /// Makes this world's state a copy of `source`'s, as `copy_with_pool(_, false)` makes a
    /// new one, but copying into the lists this world already has, which restoring every frame
    /// of a rollback loop then reuses instead of allocating. Keeps this world's pool, hooks
    /// and settings; drops its caches, which the next step rebuilds for the state copied.
    fn copy_state_from(&mut self, source: &World) {
        let World {
            settings: _,
            pool: _,
            bodies,
            broad_phase,
            pairs,
            shape_pairs,
            contacts,
            events,
            forces,
            sensors,
            sleep,
            graph,
            direct,
            solver,
            sweep_targets,
            joints,
            profile,
            query_grid,
            removed,
            pair_filter: _,
            pre_solve: _,
        } = self;
        bodies.clone_from(&source.bodies);
        contacts.clone_from(&source.contacts);
        events.clone_from(&source.events);
        forces.clone_from(&source.forces);
        sensors.clone_from(&source.sensors);
        sleep.clone_from(&source.sleep);
        joints.clone_from(&source.joints);
        removed.clone_from(&source.removed);
        *broad_phase = Default::default();
        pairs.clear();
        *shape_pairs = Default::default();
        *graph = Default::default();
        *direct = Default::default();
        *solver = source.solver.carried();
        *sweep_targets = Default::default();
        *profile = Profile::default();
        *query_grid = RwLock::default();
    }

    /// A new world in the state `snapshot` saved, running with the execution settings of
    /// `settings` ([`WorldSettings::threads`], [`WorldSettings::backend`],
    /// [`WorldSettings::instruction_set`]); the other fields of `settings` are ignored, since
    /// the physics settings are part of the saved state. `Err(InvalidParameter)` as
    /// [`World::try_new`] gives for `settings`.
    pub fn from_snapshot(snapshot: &Snapshot, settings: WorldSettings) -> Result<World, Error> {
        let settings = with_execution(&snapshot.world.settings, &settings);
        settings.validate()?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(settings.threads)
            .build()
            .ok();
        let mut world = snapshot.world.copy_with_pool(pool, false);
        world.settings = settings;
        Ok(world)
    }
}

/// `saved` with the execution settings (threads, backend, instruction set) of `execution`:
/// they change no result, so they belong to the machine, not to the state.
fn with_execution(saved: &WorldSettings, execution: &WorldSettings) -> WorldSettings {
    WorldSettings {
        threads: execution.threads,
        backend: execution.backend,
        instruction_set: execution.instruction_set,
        ..saved.clone()
    }
}

impl World {
    /// Drops the user's hooks: a snapshot saves state, not code.
    fn clear_hooks(&mut self) {
        self.pair_filter = None;
        self.pre_solve.hook = None;
    }
}
