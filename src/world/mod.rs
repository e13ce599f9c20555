//! The world: settings, bodies, and the step pipeline read top to bottom.

mod chain;
mod compound;
mod contacts;
pub(crate) mod debug_draw;
mod forces;
mod joints;
mod live_settings;
pub(crate) mod query;
mod sleep;
pub(crate) mod stepper;
mod teleport;
mod user_data;

use crate::body::{BodyDef, BodyId, BodyKind, BodyStore, ShapeDef};
use crate::broad_phase::compound::{update_compound_aabbs, ShapePairs};
use crate::broad_phase::query_grid::QueryGrid;
use crate::broad_phase::{BroadPhase, Proxies};
use crate::error::Error;
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::geometry::shape::Shape;
use crate::islands::sleep::Sleep;
use crate::narrow_phase::contact::{ContactSet, NarrowPhaseParams};
use crate::narrow_phase::contact_events::ContactLog;
use crate::narrow_phase::removal::Removed;
use crate::narrow_phase::sensor::Sensors;
use crate::profile::{start_tracy, zone, Profile, Stopwatch};
use crate::settings::WorldSettings;
use crate::solver::constraint_graph::ConstraintGraph;
use crate::solver::continuous::solve_continuous;
use crate::solver::direct_islands::DirectIslands;
use crate::solver::forces::Forces;
use crate::solver::joint::JointStore;
use crate::solver::{Solver, StepInput};
use crate::world::query::new_query_grid;
use rayon::prelude::*;
use std::sync::RwLock;

/// A physics world.
pub struct World {
    settings: WorldSettings,
    pool: Option<rayon::ThreadPool>,
    bodies: BodyStore,
    broad_phase: BroadPhase,
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
    joints: JointStore,
    profile: Profile,
    /// Where queries look for bodies; see `query.rs` and `broad_phase/query_grid.rs`.
    query_grid: RwLock<QueryGrid>,
    /// Bodies removed since the last step whose contacts are still listed; see `narrow_phase/removal.rs`.
    removed: Removed,
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
            joints: JointStore::default(),
            profile: Profile::default(),
            query_grid: new_query_grid(),
            removed: Removed::default(),
        })
    }

    /// The settings of the world: those it was created with, or changed since by
    /// [`World::set_settings`] or [`World::set_gravity`]; valid by construction.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Adds a body with one shape. `Err` for non-finite values, a bad shape, negative density
    /// or friction, restitution outside 0..=1, a dynamic body without a finite mass and inverse
    /// mass or heavier than 1e20 kg, or a placement that puts the shape beyond the range of f32.
    pub fn add_body(&mut self, def: BodyDef, shape: ShapeDef) -> Result<BodyId, Error> {
        def.validate()?;
        shape.validate()?;
        self.invalidate_queries();
        let id = self.bodies.insert(&def, &shape)?;
        self.sleep.add_body(id.slot() as usize, def.sleep_threshold);
        Ok(id)
    }

    /// Removes a body and its joints; its handle and those of its joints become invalid. Wakes
    /// the bodies it touched and those it was joined to.
    pub fn remove_body(&mut self, id: BodyId) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        self.wake_touching(slot);
        self.removed.mark(slot as u32, id);
        self.forces.remove_body(slot);
        self.sensors.body_removed(&self.bodies, slot as u32);
        let dynamic = self.bodies.is_dynamic(slot);
        self.bodies.remove(slot);
        self.joints.remove_body(slot as u32);
        self.sleep.remove_body(slot, dynamic);
        self.invalidate_queries();
        Ok(())
    }

    /// Advances the world by `dt` seconds. `Err` for `dt <= 0`, NaN, infinite or longer than
    /// 1 s, the longest step the engine supports (bodies would pass through the ground); and
    /// [`Error::TooManyPairs`] when more pairs of shapes overlap than
    /// [`WorldSettings::max_pairs`]. On `Err` the world is as it was.
    pub fn step(&mut self, dt: f32) -> Result<(), Error> {
        crate::limits::check_time_step(dt)?;
        self.removed
            .drop_contacts(&mut self.contacts, &mut self.events, &self.bodies);
        if self.bodies.len() == 0 {
            // Nothing can move or touch (removing a body drops its contacts), and handing the
            // step to the worker pool would cost more than the rest of it: waking its threads.
            self.graph.build(&[], &self.bodies, &[], &[]);
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

    /// The pipeline of one step. `Err` only from the broadphase, before anything the world
    /// shows has changed.
    fn run_step(&mut self, dt: f32) -> Result<(), Error> {
        zone!("step");
        self.invalidate_queries();
        let mut clock = Stopwatch::start();
        let speculative_distance = 4.0 * self.settings.linear_slop;

        {
            zone!("broad phase");
            self.sleep.refresh(&self.bodies);
            self.joints.refresh(self.bodies.slots());
            self.update_aabbs(speculative_distance, dt);
            if !self.bodies.compound_slots.is_empty() {
                let asleep = &self.sleep.asleep;
                update_compound_aabbs(&mut self.bodies, asleep, speculative_distance, dt);
            }
            // Sleeping bodies are not in this grid (their kind reads `None` here): moving
            // bodies find them in the sleeping bodies' own grid.
            let proxies = Proxies {
                aabbs: &self.bodies.aabb,
                kinds: &self.sleep.broad_kinds,
                layers: &self.bodies.layers,
                masks: &self.bodies.mask,
            };
            let max_pairs = self.settings.max_pairs;
            let too_many = Err(Error::TooManyPairs { max_pairs });
            if !self
                .broad_phase
                .find_pairs_at_most(&proxies, &mut self.pairs, max_pairs)
            {
                return too_many;
            }
            self.sleep.add_resting_pairs(&self.bodies, &mut self.pairs);
            if self.pairs.len() > max_pairs {
                return too_many;
            }
            self.sensors.take_pairs(&self.bodies, &mut self.pairs);
            self.joints.filter_pairs(&mut self.pairs);
            if !self.bodies.compound_slots.is_empty() {
                self.shape_pairs.expand(&self.bodies, &self.pairs);
                if self.shape_pairs.pairs.len() > max_pairs {
                    return too_many;
                }
            }
        }
        let broad_phase = clock.lap();

        let params = NarrowPhaseParams {
            speculative_distance,
            dt,
            friction_mixing: self.settings.friction_mixing,
            restitution_mixing: self.settings.restitution_mixing,
        };
        {
            zone!("narrow phase");
            if self.bodies.compound_slots.is_empty() {
                self.contacts
                    .update(&self.pairs, &[], &self.bodies, &params);
            } else {
                let ShapePairs { pairs, children } = &self.shape_pairs;
                self.contacts.update(pairs, children, &self.bodies, &params);
            }
            self.sleep
                .wake_touched_islands(&self.bodies, &mut self.contacts);
            let events = &mut self.events.events;
            self.sensors
                .update(&self.bodies, &self.sleep.asleep, events);
        }
        let narrow_phase = clock.lap();

        {
            zone!("coloring");
            let substep = dt / self.settings.substeps as f32;
            let slop = self.settings.linear_slop;
            let set = &self.contacts;
            let contacts = &set.list;
            let bodies = &self.bodies;
            let asleep = (self.sleep.frozen_contact_count() > 0).then_some(&self.sleep.asleep[..]);
            let jointed = &self.joints.jointed[..];
            let (events, direct, graph) = (&mut self.events, &mut self.direct, &mut self.graph);
            // On two threads the events hide behind the longer coloring; on one they go first,
            // while the contacts the narrowphase wrote are still in cache.
            rayon::join(
                || events.step_done(set, bodies, asleep, substep, slop),
                || {
                    direct.find(contacts, bodies);
                    graph.build(contacts, bodies, &direct.is_direct, jointed);
                },
            );
        }
        let coloring = clock.lap();

        {
            zone!("solve");
            self.solver.step(StepInput {
                bodies: &mut self.bodies,
                contacts: &mut self.contacts.list,
                graph: &self.graph,
                direct: &self.direct,
                settings: &self.settings,
                moving: &self.sleep.moving,
                forces: &self.forces,
                joints: &mut self.joints,
                dt,
            });
        }
        let solve = clock.lap();

        {
            zone!("finalize");
            self.solver.finalize(&mut self.bodies);
            solve_continuous(&mut self.bodies, &self.solver, self.settings.linear_slop);
            let joints = &self.joints.pairs[..];
            let (bodies, contacts) = (&mut self.bodies, &mut self.contacts);
            self.sleep
                .update(&self.settings, bodies, contacts, joints, dt);
        }
        let finalize = clock.lap();

        self.profile = Profile {
            broad_phase,
            narrow_phase,
            coloring,
            solve,
            finalize,
            total: clock.total(),
        };
        // Forces act through one step: a refused step (above) keeps them for the next try.
        self.forces.clear();
        Ok(())
    }

    /// Bounding boxes at the current positions, grown by the speculative distance so that
    /// contacts begin just before bodies touch, and swept along the motion the body's current
    /// velocity would make in `dt`, so that a fast body meets what lies in its path. Sleeping
    /// bodies keep the box they fell asleep with. Compound bodies get their first shape's box
    /// here, replaced by `update_compound_aabbs`.
    fn update_aabbs(&mut self, margin: f32, dt: f32) {
        let b = &mut self.bodies;
        (
            b.aabb.par_iter_mut(),
            b.shape.par_iter(),
            (b.center.par_iter(), b.rotation.par_iter()),
            (b.local_center.par_iter(), self.sleep.asleep.par_iter()),
            (b.linear_velocity.par_iter(), b.angular_velocity.par_iter()),
            b.reach.par_iter(),
        )
            .into_par_iter()
            .with_min_len(1024)
            .for_each(
                |(aabb, shape, (&center, &q), (&local_center, &asleep), (&v, &w), &reach)| {
                    if asleep {
                        return;
                    }
                    let xf = Transform::new(center - q.rotate(local_center), q);
                    let turn = w.abs() * dt * reach;
                    *aabb = shape.swept_aabb(xf, margin + turn, v * dt);
                },
            );
    }

    /// Centre of mass in world coordinates (m). `Err(InvalidBody)` for a stale or foreign handle.
    pub fn position(&self, id: BodyId) -> Result<Vec2, Error> {
        Ok(self.bodies.center[self.bodies.slot(id)?])
    }

    /// Rotation in radians, in `(-pi, pi]`. `Err(InvalidBody)` for a stale or foreign handle.
    pub fn angle(&self, id: BodyId) -> Result<f32, Error> {
        Ok(self.rotation(id)?.angle())
    }

    /// Rotation of the body as cosine and sine (the same about its origin and its centre of
    /// mass). `Err(InvalidBody)` for a stale or foreign handle.
    pub fn rotation(&self, id: BodyId) -> Result<Rot, Error> {
        Ok(self.bodies.rotation[self.bodies.slot(id)?])
    }

    /// Transform of the body origin, the frame its shape is defined in. `Err(InvalidBody)` for
    /// a stale or foreign handle.
    pub fn transform(&self, id: BodyId) -> Result<Transform, Error> {
        Ok(self.bodies.transform(self.bodies.slot(id)?))
    }

    /// The body's shape, in the body frame, as it was added. `Err(InvalidBody)` for a stale or
    /// foreign handle, and `Err(InvalidParameter)` for a compound body (one added by
    /// [`World::add_compound_body`] with more than one shape), which has no single shape:
    /// use [`World::shapes`], which works for every body.
    pub fn shape(&self, id: BodyId) -> Result<&Shape, Error> {
        match self.bodies.shapes(self.bodies.slot(id)?) {
            [one] => Ok(one),
            many => Err(Error::InvalidParameter(format!(
                "a compound body has {} shapes, not one: use World::shapes",
                many.len()
            ))),
        }
    }

    /// Velocity of the centre of mass (m/s). `Err(InvalidBody)` for a stale or foreign handle.
    pub fn linear_velocity(&self, id: BodyId) -> Result<Vec2, Error> {
        Ok(self.bodies.linear_velocity[self.bodies.slot(id)?])
    }

    /// Fixed, kinematic or dynamic. `Err(InvalidBody)` for a stale or foreign handle.
    pub fn body_kind(&self, id: BodyId) -> Result<BodyKind, Error> {
        Ok(self.bodies.body_kind(self.bodies.slot(id)?))
    }

    /// Angular velocity (rad/s, counter-clockwise). `Err(InvalidBody)` for a stale or foreign
    /// handle.
    pub fn angular_velocity(&self, id: BodyId) -> Result<f32, Error> {
        Ok(self.bodies.angular_velocity[self.bodies.slot(id)?])
    }

    /// Sets the velocity of a dynamic or kinematic body (static bodies stay at rest). `Err`
    /// beyond 1e30 m/s per axis or non-finite.
    pub fn set_linear_velocity(&mut self, id: BodyId, v: Vec2) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        crate::limits::check_linear_velocity("linear velocity", v)?;
        if self.bodies.kind[slot] != crate::body::SlotKind::Fixed {
            if v != Vec2::ZERO {
                self.wake_touching(slot);
            }
            self.bodies.linear_velocity[slot] = v;
        }
        Ok(())
    }

    /// Sets the angular velocity of a dynamic or kinematic body (static and fixed-rotation
    /// bodies do not turn). `Err` beyond 1e30 rad/s or non-finite.
    pub fn set_angular_velocity(&mut self, id: BodyId, w: f32) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        crate::limits::check_angular_velocity("angular velocity", w)?;
        if self.bodies.can_turn(slot) {
            if w != 0.0 {
                self.wake_touching(slot);
            }
            self.bodies.angular_velocity[slot] = w;
        }
        Ok(())
    }

    /// Handles of all bodies, in slot order.
    pub fn bodies(&self) -> impl Iterator<Item = BodyId> + '_ {
        self.bodies.ids()
    }

    /// Number of live bodies, sleeping ones included (removed ones are not counted).
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Touching contacts (manifolds with at least one point) found by the last step, those of
    /// sleeping islands included: one per pair of shapes, so a compound body may have several
    /// with the same body.
    pub fn contact_count(&self) -> usize {
        let removed = &self.removed;
        let gone = if removed.is_empty() {
            0
        } else {
            let contacts = self.contacts.list.iter();
            contacts.filter(|c| removed.either(c.a, c.b)).count()
        };
        self.contacts.list.len() - gone + self.sleep.frozen_contact_count()
    }

    /// Non-empty graph colors of the last step.
    pub fn color_count(&self) -> usize {
        self.graph.color_count()
    }

    /// Per-stage milliseconds of the last step.
    pub fn profile(&self) -> Profile {
        self.profile
    }
}

#[cfg(test)]
mod tests;
