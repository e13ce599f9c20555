//! The step, stage by stage: the broadphase finds the pairs whose boxes overlap, the
//! narrowphase turns them into contacts, the coloring splits the constraints into batches that
//! share no body, the solver moves the bodies, and the last stage sweeps the fast ones, puts
//! islands to sleep and breaks joints. `World::step` checks its input and runs this on the
//! world's worker pool.

use super::World;
use crate::broad_phase::boxes::update_aabbs;
use crate::broad_phase::compound::{update_compound_aabbs, ShapePairs};
use crate::broad_phase::proxies::Proxies;
use crate::continuous::solve_continuous;
use crate::error::Error;
use crate::narrow_phase::contact::NarrowPhaseParams;
use crate::narrow_phase::contact_events::EventParams;
use crate::narrow_phase::recycle::{recycle_kernels, RecycleTolerance};
use crate::profile::{zone, Profile, Stopwatch};
use crate::solver::StepInput;

impl World {
    /// The pipeline of one step. `Err` only from the broadphase, before anything the world
    /// shows has changed, or from the pre-solve hook, which runs before anything irreversible
    /// and whose contacts are put back.
    pub(super) fn run_step(&mut self, dt: f32) -> Result<(), Error> {
        zone!("step on the pool");
        self.invalidate_queries();
        let mut clock = Stopwatch::start();
        let speculative_distance = 4.0 * self.settings.linear_slop;
        self.find_pairs(speculative_distance, dt)?;
        let broad_phase = clock.lap();
        self.update_contacts(speculative_distance, dt)?;
        let narrow_phase = clock.lap();
        self.color_constraints(dt);
        let coloring = clock.lap();
        self.solve_constraints(dt);
        let solve = clock.lap();
        self.finish_step(dt);
        let finalize = clock.lap();

        self.profile = Profile {
            broad_phase,
            narrow_phase,
            coloring,
            solve,
            finalize,
            total: clock.total(),
        };
        #[cfg(feature = "tracy")]
        self.plot_counters();
        // Forces act through one step: a refused step (above) keeps them for the next try.
        self.forces.clear();
        Ok(())
    }

    /// The broadphase: fresh boxes, then the pairs of shapes that may touch, less those the
    /// filters, sensors and joints take out. `Err` when the pairs pass `max_pairs`.
    fn find_pairs(&mut self, speculative_distance: f32, dt: f32) -> Result<(), Error> {
        zone!("broad phase");
        self.sleep.refresh(&self.bodies);
        self.joints.refresh(&self.bodies);
        update_aabbs(
            &mut self.bodies,
            &self.sleep.asleep,
            speculative_distance,
            dt,
            self.settings.boxes_kernel(),
        );
        if !self.bodies.compound_slots().is_empty() {
            let asleep = &self.sleep.asleep;
            update_compound_aabbs(&mut self.bodies, asleep, speculative_distance, dt);
        }
        // Sleeping bodies are not in this grid (their kind reads `Empty` here): moving
        // bodies find them in the sleeping bodies' own grid. Nor are bodies whose filters
        // let them pair with none.
        let (layers, masks) = (self.bodies.broad_layers(), self.bodies.broad_mask());
        let proxies = Proxies {
            aabbs: self.bodies.aabb(),
            kinds: self.sleep.pairing_kinds(layers, masks),
            layers,
            masks,
            static_version: Some(self.bodies.static_changes()),
        };
        let max_pairs = self.settings.pair_limit(self.bodies.len());
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
        self.filter_pairs()?;
        let see_kinematic = self.settings.sensors_see_kinematic;
        (self.sensors).take_pairs(&self.bodies, &mut self.pairs, see_kinematic);
        self.joints.filter_pairs(&mut self.pairs);
        if !self.bodies.compound_slots().is_empty() {
            self.shape_pairs.expand(&self.bodies, &self.pairs);
            if self.shape_pairs.pairs.len() > max_pairs {
                return too_many;
            }
        }
        Ok(())
    }

    /// The narrowphase: each pair's manifold, then the pre-solve hook, the islands a new
    /// contact wakes, and the sensors. `Err` from the hook, with the contacts put back.
    fn update_contacts(&mut self, speculative_distance: f32, dt: f32) -> Result<(), Error> {
        zone!("narrow phase");
        let (recycle, poses) = recycle_kernels(&self.settings);
        let params = NarrowPhaseParams {
            speculative_distance,
            dt,
            friction_mixing: self.settings.friction_mixing,
            restitution_mixing: self.settings.restitution_mixing,
            linear_slop: self.settings.linear_slop,
            remix: self.pre_solve.hook.is_some(),
            recycle,
            poses,
            recycle_tolerance: RecycleTolerance::of(&self.settings),
        };
        if self.pre_solve.hook.is_some() {
            self.contacts.save(&mut self.pre_solve.backup);
        }
        if self.bodies.compound_slots().is_empty() {
            self.contacts
                .update(&self.pairs, &[], &self.bodies, &params);
        } else {
            let ShapePairs {
                pairs, children, ..
            } = &self.shape_pairs;
            self.contacts.update(pairs, children, &self.bodies, &params);
        }
        if let Err(e) = self.pre_solve.run(&mut self.contacts, &self.bodies) {
            self.contacts.restore(&mut self.pre_solve.backup);
            return Err(e);
        }
        self.sleep
            .wake_touched_islands(&self.bodies, &mut self.contacts);
        let events = &mut self.events.events;
        self.sensors
            .update(&self.bodies, &self.sleep.asleep, events);
        Ok(())
    }

    /// The contact events, beside the coloring: which islands the direct solver takes, and
    /// the colors the rest of the contacts are solved in.
    fn color_constraints(&mut self, dt: f32) {
        zone!("coloring");
        let params = EventParams {
            substep: self.settings.substep_length(dt),
            linear_slop: self.settings.linear_slop,
            gravity: self.settings.gravity,
            hit_threshold: self.settings.hit_event_threshold,
        };
        let set = &self.contacts;
        let (contacts, keys) = (&set.list, set.keys());
        let bodies = &self.bodies;
        let asleep = (self.sleep.frozen_contact_count() > 0).then_some(&self.sleep.asleep[..]);
        let jointed = &self.joints.jointed[..];
        let (events, direct, graph) = (&mut self.events, &mut self.direct, &mut self.graph);
        // On two threads the events hide behind the longer coloring; on one they go first,
        // while the contacts the narrowphase wrote are still in cache.
        rayon::join(
            || events.step_done(set, bodies, asleep, &params),
            || {
                direct.find(contacts, keys, bodies);
                graph.build(set.one_point(), keys, bodies, &direct.is_direct, jointed);
            },
        );
    }

    /// The solver: forces, substeps of contacts and joints, and the exact solves.
    fn solve_constraints(&mut self, dt: f32) {
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

    /// The poses written back, fast bodies swept against what they would pass through,
    /// islands put to sleep, and joints past their breaking force broken.
    fn finish_step(&mut self, dt: f32) {
        zone!("finalize");
        self.solver
            .finalize(&mut self.bodies, self.settings.kernels());
        let (bodies, slop) = (&mut self.bodies, self.settings.linear_slop);
        let targets = &mut self.sweep_targets;
        solve_continuous(bodies, &self.solver, slop, targets, &self.joints);
        let joints = &self.joints.pairs[..];
        let (bodies, contacts) = (&mut self.bodies, &mut self.contacts);
        self.sleep
            .update(&self.settings, bodies, contacts, joints, dt);
        // At the poses the step ends with, as `joint_reaction_force` reads them.
        self.joints.find_breaks(&self.bodies);
    }
}
