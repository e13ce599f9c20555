//! The world: settings, bodies, and the step pipeline read top to bottom.

use crate::body::{BodyDef, BodyId, BodyKind, BodyStore, ShapeDef};
use crate::broad_phase::{BroadPhase, Proxies};
use crate::compound::ShapePairs;
use crate::constraint_graph::ConstraintGraph;
use crate::contact::{ContactSet, NarrowPhaseParams};
use crate::contact_events::ContactLog;
use crate::direct_islands::DirectIslands;
use crate::error::Error;
use crate::forces::Forces;
use crate::joint::JointStore;
use crate::math::{Aabb, Rot, Transform, Vec2};
use crate::profile::{start_tracy, zone, Profile, Stopwatch};
use crate::query::new_query_grid;
use crate::query_grid::QueryGrid;
use crate::removal::Removed;
use crate::sensor::Sensors;
use crate::shape::Shape;
use crate::sleep::Sleep;
use crate::solver::{Solver, StepInput};
use rayon::prelude::*;
use std::sync::RwLock;

/// Which kernels solve the contacts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// f32x8 kernels, eight contacts at a time.
    #[default]
    Simd,
    /// The one-lane reference kernels: the same arithmetic, bit-identical results.
    Scalar,
}

/// How two shapes' coefficients combine into the contact's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MixRule {
    /// `sqrt(a * b)`.
    GeometricMean,
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `(a + b) / 2`.
    Average,
}

impl MixRule {
    /// Combines the coefficients `a` and `b` of two shapes into the contact's by this rule.
    /// Finite for any finite `a` and `b`: the product and the sum are taken in f64, since in
    /// f32 two large coefficients (a friction of 1e20 and one of 1e19) overflow to infinity,
    /// and an infinite friction times a zero normal impulse is NaN.
    pub fn mix(self, a: f32, b: f32) -> f32 {
        let (a64, b64) = (f64::from(a), f64::from(b));
        match self {
            MixRule::GeometricMean => (a64 * b64).sqrt() as f32,
            MixRule::Min => a.min(b),
            MixRule::Max => a.max(b),
            MixRule::Average => (0.5 * (a64 + b64)) as f32,
        }
    }
}

/// World-wide settings. Every field is public; start from `WorldSettings::default()`.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Default (0, -10) m/s².
    pub gravity: Vec2,
    /// Solver substeps per step, 1..=256. Default 4.
    pub substeps: u32,
    /// Biased solve passes per substep (the unbiased relax pass runs once), 1..=256. Default 2:
    /// on large_pyramid a second pass keeps all 14950 contacts and cuts the top box's drop
    /// from 0.87 m to 0.37 m for a third more solver time.
    pub solve_iterations: u32,
    /// Worker threads of this world's own pool, 0..=256; 0 = one per core. Default 0. The
    /// bound is the same on every machine (see [`WorldSettings::validate`]); more threads than
    /// cores only add wake-up costs.
    pub threads: usize,
    /// Default `Backend::Simd`.
    pub backend: Backend,
    /// Contact stiffness in Hz, capped at a quarter of the substep rate; contacts with a static
    /// or kinematic body use twice the capped value, since only one side gives. Default 45: a
    /// 100-row pyramid then sags about half a metre under its own weight, and stiffer
    /// springs let its middle rows shear further sideways while it settles.
    pub contact_hertz: f32,
    /// Contact damping ratio. Default 10.
    pub contact_damping_ratio: f32,
    /// Highest speed (m/s) at which overlapping bodies are pushed apart. Default 3. A body
    /// overlapping several others by more than a quarter of its size (bodies created inside
    /// each other) shares it evenly among those contacts, so that pushes adding up cannot
    /// throw it out faster.
    pub contact_push_max_velocity: f32,
    /// Contact distance tolerance (m). Default 0.005. Contacts are created speculatively up to
    /// 4x this distance before touching; a pair closer than it touches (contact events); the
    /// exact solver of islands with widely different masses leaves overlap within it alone,
    /// and a bounce counts a gap within it as closed.
    pub linear_slop: f32,
    /// Approach speed (m/s) under which contacts do not bounce. Default 1.
    pub restitution_threshold: f32,
    /// Speed cap (m/s) of dynamic and kinematic bodies, held throughout the step, > 0 and at
    /// most 1e18 (its square must stay finite in f32). Default 400.
    /// Angular speed is capped too, at an eighth of a turn per substep and a quarter turn per
    /// step (`PI * min(substeps / 2, 1) / (2 dt)` rad/s: 94 rad/s at 60 Hz and 2 substeps or
    /// more), so that a substep's rotation stays small and a step's contacts stay near where
    /// its manifolds put them.
    pub max_linear_speed: f32,
    /// Default `MixRule::GeometricMean`.
    pub friction_mixing: MixRule,
    /// Default `MixRule::Min`.
    pub restitution_mixing: MixRule,
    /// Let islands of resting bodies sleep (see [`World::is_awake`]). Default `false`: a step
    /// then always does the full work, so figures, bit-exact checks and law tests do not
    /// depend on when something fell asleep. Turn it on for scenes that come to rest.
    pub enable_sleep: bool,
    /// Seconds every body of an island must stay below its sleep threshold before the island
    /// sleeps, >= 0. Default 0.5.
    pub time_to_sleep: f32,
    /// Most pairs of shapes whose boxes may overlap in one step, moving bodies against sleeping
    /// ones included. Default 1,000,000. Each pair becomes a contact with its manifold, solver
    /// rows and graph color, so this bounds a step's memory and time where bodies pile up: 1000
    /// circles created at one point overlap in 499,500 pairs, 10,000 in 50 million. A step
    /// with more returns [`Error::TooManyPairs`] without changing the world. Any value is
    /// valid; `usize::MAX` lifts the limit.
    pub max_pairs: usize,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            gravity: Vec2::new(0.0, -10.0),
            substeps: 4,
            solve_iterations: 2,
            threads: 0,
            backend: Backend::Simd,
            contact_hertz: 45.0,
            contact_damping_ratio: 10.0,
            contact_push_max_velocity: 3.0,
            linear_slop: 0.005,
            restitution_threshold: 1.0,
            max_linear_speed: 400.0,
            friction_mixing: MixRule::GeometricMean,
            restitution_mixing: MixRule::Min,
            enable_sleep: false,
            time_to_sleep: 0.5,
            max_pairs: 1_000_000,
        }
    }
}

impl WorldSettings {
    /// `Err(InvalidParameter)` naming the first bad field: a non-finite gravity, `substeps` or
    /// `solve_iterations` outside 1..=256, `threads` over 256, `contact_hertz`,
    /// `contact_push_max_velocity`, `linear_slop` or `max_linear_speed` not finite and > 0, a
    /// `max_linear_speed` over 1e18, or a negative or non-finite damping ratio, time to sleep or
    /// restitution threshold. [`World::new`] and [`World::try_new`] both run it.
    pub fn validate(&self) -> Result<(), Error> {
        check_gravity(self.gravity)?;
        crate::limits::check_work_limits(self)?;
        let positive = [
            ("contact_hertz", self.contact_hertz),
            ("contact_push_max_velocity", self.contact_push_max_velocity),
            ("linear_slop", self.linear_slop),
            ("max_linear_speed", self.max_linear_speed),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::InvalidParameter(format!(
                    "{name} must be finite and > 0, got {value}"
                )));
            }
        }
        if self.max_linear_speed > crate::limits::MAX_SPEED_CAP {
            return Err(Error::InvalidParameter(format!(
                "max_linear_speed must be at most {} m/s, got {}",
                crate::limits::MAX_SPEED_CAP,
                self.max_linear_speed
            )));
        }
        crate::error::check_non_negative("contact_damping_ratio", self.contact_damping_ratio)?;
        crate::error::check_non_negative("time_to_sleep", self.time_to_sleep)?;
        crate::error::check_non_negative("restitution_threshold", self.restitution_threshold)
    }
}

/// `Err(InvalidParameter)` unless both components of `gravity` are finite.
pub(crate) fn check_gravity(gravity: Vec2) -> Result<(), Error> {
    if gravity.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "gravity must be finite, got {gravity:?}"
        )))
    }
}

/// A physics world.
pub struct World {
    pub(crate) settings: WorldSettings,
    pool: Option<rayon::ThreadPool>,
    pub(crate) bodies: BodyStore,
    broad_phase: BroadPhase,
    pub(crate) pairs: Vec<(u32, u32)>,
    /// `pairs` expanded into shape pairs, in a world with compound bodies.
    pub(crate) shape_pairs: ShapePairs,
    pub(crate) contacts: ContactSet,
    pub(crate) events: ContactLog,
    /// The user's forces and torques for the next step.
    pub(crate) forces: Forces,
    pub(crate) sensors: Sensors,
    pub(crate) sleep: Sleep,
    pub(crate) graph: ConstraintGraph,
    /// The small islands of widely different masses, solved exactly.
    direct: DirectIslands,
    pub(crate) solver: Solver,
    pub(crate) joints: JointStore,
    profile: Profile,
    /// Where queries look for bodies; see `query.rs`.
    pub(crate) query_grid: RwLock<QueryGrid>,
    /// Bodies removed since the last step whose contacts are still listed; see `removal.rs`.
    pub(crate) removed: Removed,
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
        self.drop_removed_contacts();
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
                self.update_compound_aabbs(speculative_distance, dt);
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
            self.add_resting_pairs();
            if self.pairs.len() > max_pairs {
                return too_many;
            }
            self.take_sensor_pairs();
            self.joints.filter_pairs(&mut self.pairs);
            if !self.bodies.compound_slots.is_empty() {
                self.expand_shape_pairs();
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
            self.wake_touched_islands();
            self.update_sensors();
        }
        let narrow_phase = clock.lap();

        {
            zone!("coloring");
            let substep = dt / self.settings.substeps as f32;
            let slop = self.settings.linear_slop;
            let set = &self.contacts;
            let contacts = &set.contacts;
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
                contacts: &mut self.contacts.contacts,
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
            self.solve_continuous();
            self.update_sleep(dt);
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
                    let sweep = v * dt;
                    let grown = shape.aabb(xf).fattened(margin + turn);
                    *aabb = Aabb::new(
                        grown.min + sweep.min(Vec2::ZERO),
                        grown.max + sweep.max(Vec2::ZERO),
                    );
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

    /// Static, kinematic or dynamic. `Err(InvalidBody)` for a stale or foreign handle.
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
        if self.bodies.kind[slot] != crate::broad_phase::ProxyKind::Static {
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
            let contacts = self.contacts.contacts.iter();
            contacts.filter(|c| removed.either(c.a, c.b)).count()
        };
        self.contacts.contacts.len() - gone + self.sleep.frozen_contact_count()
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
