//! The soft step: prepare contacts, bounce the contacts hit this step (impact passes), then
//! per substep integrate velocities, warm start, solve with soft bias, integrate positions and
//! relax; then store impulses.
//!
//! Every contact stage walks the overflow set on one thread and the colors, forward or
//! backward by substep (see `Sweep`); the batches of one color go to the rayon workers. Within a color no dynamic body appears twice, so the
//! workers' order cannot change any result: output is identical for any thread count, and for
//! both backends, whose kernels do the same float operations per lane. Small islands of widely
//! different masses are not in the colors: the direct solver gives each an exact solve beside
//! the colored solve and relax stages (see `direct_solver`).
//!
//! Small components of the contact graph are grouped into tiles (see `coloring`): a
//! tile is one block of a single stage in which a worker runs the whole step's operations
//! over the tile's bodies and colors, in the order the stages run them for the rest of the
//! world, with its data in that worker's cache and without waiting between stages. Many
//! separate piles then cost what one small pile costs per contact.
//!
//! The joints' solves are stages of the same substeps, listed here beside the contacts' (see
//! `Solver::plan_program`); their code is in `joints` (the soft passes, each joint kind in a
//! file of its own, and the exact solve of joint trees).

pub(crate) mod direct_islands;
pub(crate) mod direct_point;
pub(crate) mod direct_solver;
pub(crate) mod layered;
pub(crate) mod lcp;
mod pack;
pub(crate) mod schedule;
mod spin_bounds;

use crate::backend::Kernels;
use crate::body::BodyStore;
use crate::codec::{codec_struct, Codec, Reader, Writer};
use crate::coloring::ConstraintGraph;
use crate::disjoint::DisjointMut;
use crate::error::Error;
use crate::forces::Forces;
use crate::index::{BodySlot, Stamp};
use crate::joints::batches::{JointSet, LayoutKey};
use crate::joints::passes::JointOp;
use crate::joints::store::JointStore;
use crate::joints::tree::{JointTrees, TreeOp};
use crate::narrow_phase::contact::Contact;
use crate::profile::zone;
use crate::settings::WorldSettings;
use crate::solver::direct_islands::DirectIslands;
use crate::solver::direct_solver::{DirectOp, DirectParams, DirectSolver};
use crate::solver::pack::{ContactBatches, PackInput};
use crate::solver::schedule::{
    block_bodies, run_stages, Progress, BATCHES_PER_BLOCK, BODIES_PER_BLOCK,
};
use crate::solver::spin_bounds::{SpinBounds, SpinKey};
use batch2d_kernels::body::{
    Accelerations, BodyParams, IntegrateParams, PoseColumns, States, VelocityColumns,
};
use batch2d_kernels::{BodyState, ContactBatch, ImpactParams, SolveParams, StateRows, NULL_BODY};
use rayon::prelude::*;
use std::f32::consts::PI;
use std::ops::Range;

/// Impact passes over the colors in a step with bouncy contacts. Each pass carries an impact
/// one or two contacts further through bodies that touch (Newton's cradle, a pool break), so
/// this bounds how far an impact travels within one step; what is left approaching is caught
/// by the soft solve as an inelastic contact.
const IMPACT_PASSES: usize = 8;

/// What a stage does to the contact batches.
#[derive(Clone, Copy, Debug)]
enum ContactOp {
    Impact,
    WarmStart,
    Solve,
    Relax,
}

/// What a stage does to the body states.
#[derive(Clone, Copy, Debug)]
enum BodyOp {
    IntegrateVelocities,
    IntegratePositions,
}

/// The order in which a contact operation walks the graph colors.
///
/// Gauss-Seidel over the colors in one fixed order leaves an error that leans the same way in
/// every substep: a tall pyramid, symmetric in everything but the order in which its contacts
/// were created, settled with its middle rows sheared 5 cm towards one side. Walking the
/// colors forward and backward in turn (symmetric Gauss-Seidel) lets each sweep's lean undo
/// the last one's, at no cost: the same batches run, in the other order. The warm start and
/// the solve turn every substep. The relax passes, whose velocities the positions carry into
/// the next substep, turn every step: turned every substep too, they let a pyramid's rows
/// spread apart while it settles (side gaps twice as wide).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Sweep {
    /// The overflow set, then the colors from the first.
    #[default]
    Forward,
    /// The colors from the last, then the overflow set.
    Backward,
}

/// One operation of the step, in the order of `Solver::program`.
#[derive(Clone, Copy, Debug)]
enum Op {
    Bodies(BodyOp),
    Contacts(ContactOp, Sweep),
    Direct(DirectOp),
    Joints(JointOp),
    /// The exact solve of the joint trees (see `joints::tree`).
    Trees(TreeOp),
}

/// One stage of the step, cut into blocks for the workers.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// Blocks of `BODIES_PER_BLOCK` bodies.
    Bodies(BodyOp),
    /// One block per island of the direct solver.
    Direct(DirectOp),
    /// The blocks of a joint color or of the joint overflow set (see `joints::batches`).
    Joints(JointOp, JointSet),
    /// One block per joint tree (see `joints::tree`).
    Trees(TreeOp),
    /// One block per tile of the graph: the tile's whole step, `Solver::program` over its
    /// bodies and colors.
    Tiles,
    /// Blocks of `per_block` batches of `start..end`; `color` when they are one graph color's,
    /// which share no dynamic body.
    Contacts {
        op: ContactOp,
        start: usize,
        end: usize,
        per_block: usize,
        color: bool,
    },
}

/// Reused buffers of the solver.
#[derive(Clone, Default)]
pub(crate) struct Solver {
    states: StateRows,
    /// The contacts packed for the kernels.
    packed: ContactBatches,
    /// The step's operations after prepare: the world's stages and each tile follow it.
    program: Vec<Op>,
    stages: Vec<Stage>,
    /// Block count of each stage.
    blocks: Vec<usize>,
    /// Scratch of `run_stages`: how far the workers are in each stage.
    progress: Progress,
    /// The moving bodies' slots in state order, when there are tiles (else the states follow
    /// the step's list of moving bodies).
    order: Vec<BodySlot>,
    /// Per body slot: the index of its state, or `NULL_BODY` for a body the solver leaves alone
    /// (static, sleeping, or a free slot). Raw `u32`: the kernels gather states by these.
    state_of: Vec<u32>,
    /// The states of each tile of the graph; they come first, tile after tile.
    tile_states: Vec<Range<usize>>,
    /// The first state in no tile: the world's body stages integrate the states from here.
    free_states: usize,
    /// What `state_of`, `order`, `tile_states` and `free_states` were made from, besides the
    /// slot count (the length of `state_of`): the graph's generation and the moving bodies.
    ordered_generation: u64,
    ordered_moving: Vec<BodySlot>,
    /// The version of `state_of`: drawn afresh whenever the states are ordered again.
    order_stamp: Stamp,
    /// Per state: the body's gravity scale and damping, gathered for the integration kernels.
    gravity_scale: Vec<f32>,
    linear_damping: Vec<f32>,
    angular_damping: Vec<f32>,
    /// Per state: the acceleration of the user's forces (x, y) and torque, when some body has
    /// one this step (`forced`).
    acceleration: [Vec<f32>; 3],
    forced: bool,
    /// The step's linear (m/s) and angular (rad/s) speed caps.
    speed_caps: (f32, f32),
    /// Per state: the angular speed bound (rad/s) of a body in contact (see `spin_bounds`).
    spin_bounds: SpinBounds,
    /// Whether any contact of the step has a restitution above zero; without one the step has
    /// no impact stages.
    bouncy: bool,
    /// The direction of this step's relax passes; it turns after every step (see [`Sweep`]).
    relax_sweep: Sweep,
    /// The islands solved exactly instead of by the batches.
    direct: DirectSolver,
    /// The trees of rigid joints solved exactly instead of by the joint passes.
    trees: JointTrees,
}

/// What one step solves.
pub(crate) struct StepInput<'a> {
    pub bodies: &'a mut BodyStore,
    pub contacts: &'a mut [Contact],
    pub graph: &'a ConstraintGraph,
    /// The contacts the graph left to the direct solver.
    pub direct: &'a DirectIslands,
    pub settings: &'a WorldSettings,
    /// The slots of the bodies that move (awake dynamic and kinematic bodies), ascending. Only
    /// these get a state: sleeping and static bodies cost the solver nothing.
    pub moving: &'a [BodySlot],
    /// The user's forces and torques, acting through this step.
    pub forces: &'a Forces,
    /// The joints: prepared and solved with the contacts, their impulses kept for the next
    /// step.
    pub joints: &'a mut JointStore,
    pub dt: f32,
}

impl Solver {
    /// A solver with none of this one's buffers, only what it carries from step to step (the
    /// direction of the relax passes): what a snapshot keeps of it.
    pub fn carried(&self) -> Solver {
        Solver {
            relax_sweep: self.relax_sweep,
            ..Solver::default()
        }
    }

    /// Solves one step: leaves the new body states in the solver (see [`Solver::finalize`])
    /// and the new impulses in `contacts`. Loads the states and batches, prepares the joints,
    /// lists the stages ([`Solver::plan`]), runs them ([`Solver::run`]) and stores the
    /// impulses for the next step's warm start.
    pub fn step(&mut self, input: StepInput) {
        let StepInput {
            bodies,
            contacts,
            graph,
            direct,
            settings,
            moving,
            forces,
            joints,
            dt,
        } = input;
        let h = settings.substep_length(dt);
        let integrate = IntegrateParams {
            h,
            gravity: [settings.gravity.x, settings.gravity.y],
            max_linear_speed: settings.max_linear_speed,
            // Four turns per substep, which the position integration turns exactly (see
            // `sin_cos_turn`): far beyond any wheel or propeller, only a guard against
            // overflow. Bodies in contact have a tighter bound (`spin_bounds`).
            max_angular_speed: 8.0 * PI * (1.0 / h),
        };
        self.speed_caps = (integrate.max_linear_speed, integrate.max_angular_speed);
        let kernels = settings.kernels();
        self.load_states(kernels, bodies, moving, graph, contacts, 0.5 * PI / dt);
        self.load_forces(bodies, forces);
        let pack = PackInput {
            contacts,
            graph,
            direct,
            bodies,
            state_of: &self.state_of,
            state_order: self.order_stamp,
            settings,
            h,
        };
        self.bouncy = (self.packed).fill(&pack, &mut self.states, &mut self.direct);
        let states = self.states.len();
        let key = LayoutKey {
            joints: joints.stamp(),
            bodies: bodies.mass_stamp(),
            states: self.order_stamp,
        };
        (self.trees).prepare(key, &joints.slots, bodies, &self.state_of, states);
        let exact = &self.trees.exact;
        joints.prepare(key, bodies, &self.state_of, states, settings, h, exact);
        self.plan(graph, settings, joints);

        self.run(graph, settings, joints, bodies, &integrate, dt);

        joints.store_impulses();
        self.trees.store_impulses(&mut joints.slots);
        self.relax_sweep = match self.relax_sweep {
            Sweep::Forward => Sweep::Backward,
            Sweep::Backward => Sweep::Forward,
        };
        zone!("store impulses");
        self.packed.store_impulses(contacts, graph);
        self.direct.store_impulses(contacts);
    }

    /// Runs the stages that [`Solver::plan`] listed, each cut into blocks for the workers,
    /// with the substep constants of `integrate`, the bodies' poses at the start of the step
    /// (`bodies`) and a step `dt` long.
    fn run(
        &mut self,
        graph: &ConstraintGraph,
        settings: &WorldSettings,
        joints: &mut JointStore,
        bodies: &BodyStore,
        integrate: &IntegrateParams,
        dt: f32,
    ) {
        let h = integrate.h;
        let inv_h = 1.0 / h;
        let solve = SolveParams {
            inv_h,
            use_bias: true,
        };
        let impact = ImpactParams {
            dt,
            h,
            margin: settings.linear_slop,
            threshold: settings.restitution_threshold,
            gravity_reach: settings.gravity.length() * dt,
        };
        let direct_params = DirectParams {
            inv_h,
            linear_slop: settings.linear_slop,
            impact,
        };
        let islands = self.direct.islands();
        let body_count = self.states.len();
        let runner = Runner {
            kernels: settings.kernels(),
            states: States::new(&mut self.states),
            batches: DisjointMut::new(&mut self.packed.batches),
            one_point: &self.packed.one_point,
            solve,
            relax: SolveParams {
                use_bias: false,
                ..solve
            },
            impact,
            integrate,
            gravity_scale: &self.gravity_scale,
            linear_damping: &self.linear_damping,
            angular_damping: &self.angular_damping,
            acceleration: &self.acceleration,
            forced: self.forced,
            spin_bound: &self.spin_bounds.bounds,
        };
        let states = runner.states;
        let stages = &self.stages;
        let (tiles, tile_colors) = (&graph.tiles[..], &graph.tile_colors[..]);
        let (tile_states, free_states) = (&self.tile_states[..], self.free_states);
        let program = &self.program[..];
        let tree_passes = self.trees.passes(h, self.speed_caps);
        let joint_passes = joints.passes(bodies, self.speed_caps);

        zone!("solver stages");
        run_stages(&self.blocks, &mut self.progress, |stage, blocks| {
            // SAFETY: the blocks of one stage cover disjoint batches, joints, bodies, tiles or
            // direct islands; within a color no dynamic body appears in two batches or joints
            // (the coloring invariant), a tile's bodies appear in no other tile and no batch outside it, and a
            // direct island's dynamic bodies appear in no batch, so no two workers touch the same
            // data at once; a stage ends before the next begins.
            unsafe {
                match stages[stage] {
                    Stage::Direct(op) => blocks.for_each(|block| {
                        DirectSolver::run(islands, block, op, states, &direct_params)
                    }),
                    Stage::Joints(op, set) => {
                        blocks.for_each(|block| joint_passes.run(op, set, block, states))
                    }
                    Stage::Trees(op) => blocks.for_each(|block| tree_passes.run(op, block, states)),
                    // A run of blocks at once: consecutive blocks make one range of states or
                    // batches.
                    Stage::Bodies(op) => {
                        let start = free_states + blocks.start * BODIES_PER_BLOCK;
                        let end = (free_states + blocks.end * BODIES_PER_BLOCK).min(body_count);
                        runner.integrate(op, start..end);
                    }
                    Stage::Contacts {
                        op,
                        start,
                        end,
                        per_block,
                        color,
                    } => {
                        let first = start + blocks.start * per_block;
                        let last = (start + blocks.end * per_block).min(end);
                        runner.run_batches(op, first..last, color);
                    }
                    Stage::Tiles => blocks.for_each(|block| {
                        let colors = &tile_colors[tiles[block].clone()];
                        runner.run_tile(program, colors, tile_states[block].clone());
                    }),
                }
            }
        });
    }

    /// Writes positions, rotations and velocities back to the bodies that have a state, the
    /// velocities within the speed caps, with `kernels`. In blocks of slots that each worker
    /// takes from its own segment first, as the body stages split the states (see
    /// `run_stages`): without tiles a state's block is its slot's, so a worker finds the
    /// states in its own cache.
    pub fn finalize(&mut self, bodies: &mut BodyStore, kernels: &dyn Kernels) {
        let states: &[BodyState] = &self.states;
        let caps = self.speed_caps;
        let state_of = &self.state_of[..];
        let poses = bodies.poses_mut();
        let slots = state_of.len().min(poses.center.len());
        // SAFETY: `Vec2` and `Rot` are pairs of f32s.
        let (center, rotation, linear_velocity) = unsafe {
            (
                as_pairs(&mut poses.center[..slots]),
                as_pairs(&mut poses.rotation[..slots]),
                as_pairs(&mut poses.linear_velocity[..slots]),
            )
        };
        let center = DisjointMut::new(center);
        let rotation = DisjointMut::new(rotation);
        let linear_velocity = DisjointMut::new(linear_velocity);
        let angular_velocity = DisjointMut::new(&mut poses.angular_velocity[..slots]);
        let blocks = slots.div_ceil(BODIES_PER_BLOCK);
        run_stages(&[blocks], &mut self.progress, move |_, blocks| {
            let range = block_bodies(blocks, slots);
            // SAFETY: the runs of blocks of one stage are disjoint ranges of slots.
            let columns = unsafe {
                PoseColumns {
                    center: center.slice(range.clone()),
                    rotation: rotation.slice(range.clone()),
                    linear_velocity: linear_velocity.slice(range.clone()),
                    angular_velocity: angular_velocity.slice(range.clone()),
                }
            };
            kernels.finish(states, &state_of[range], columns, caps);
        });
    }

    /// The bodies the solver moved in the last step (valid after [`Solver::step`]), as their
    /// slots and states in the order of the states, which is not slot order where the graph
    /// has tiles: a state's `dp` and `dq` are the translation and rotation from the pose the
    /// step began with. In runs of `per_run` bodies (the last may be shorter), each run's
    /// slots beside its states.
    pub fn motions(
        &self,
        per_run: usize,
    ) -> impl IndexedParallelIterator<Item = (&[BodySlot], &[BodyState])> + '_ {
        let slots = match self.tile_states.is_empty() {
            true => &self.ordered_moving[..],
            false => &self.order[..],
        };
        let n = slots.len().min(self.states.len());
        let slots = slots[..n].par_chunks(per_run);
        slots.zip(self.states[..n].par_chunks(per_run))
    }

    /// One state per moving body, with the per-body constants beside it: the bodies of the
    /// graph's tiles first, tile after tile (a tile integrates one range of states), then the
    /// others in slot order. The states' velocities are taken with `kernels`.
    fn load_states(
        &mut self,
        kernels: &dyn Kernels,
        bodies: &BodyStore,
        moving: &[BodySlot],
        graph: &ConstraintGraph,
        contacts: &[Contact],
        max_contact_spin: f32,
    ) {
        // The order is a function of the moving bodies and the graph's tiles: where neither
        // changed (a resting scene), last step's stands, and only the velocities are loaded.
        let stands = self.state_of.len() == bodies.slots()
            && self.ordered_generation == graph.generation()
            // (As raw `u32`s, which compare as one block; slots compare one by one, and this
            // runs on one thread.)
            && BodySlot::raw(&self.ordered_moving) == BodySlot::raw(moving);
        if !stands {
            self.order_states(bodies.slots(), moving, graph);
            self.ordered_generation = graph.generation();
            self.ordered_moving.clear();
            self.ordered_moving.extend_from_slice(moving);
        }
        let moving = if self.tile_states.is_empty() {
            moving
        } else {
            &self.order[..]
        };
        // One parallel gather into buffers resized in place: no allocation once they are large
        // enough, and each row depends only on its own body. In blocks that each worker takes
        // from its own segment first, as the body stages that read the rows split them (see
        // `run_stages`), so that the rows a worker writes here are in its own cache there.
        let n = moving.len();
        self.gravity_scale.resize(n, 0.0);
        self.linear_damping.resize(n, 0.0);
        self.angular_damping.resize(n, 0.0);
        self.states.resize(n);
        let key = SpinKey {
            graph: graph.generation(),
            states: self.order_stamp,
            bodies: bodies.mass_stamp(),
            max: max_contact_spin.to_bits(),
        };
        (self.spin_bounds).update(key, &self.state_of, n, contacts, bodies);
        let caps = self.speed_caps;
        let spin_bound = &self.spin_bounds.bounds[..];
        let slots = bodies.slots();
        // SAFETY: `Vec2` is a `repr(C)` pair of f32s, (x, y): the column is one of as many
        // `[f32; 2]`s, borrowed for as long.
        let linear = bodies.linear_velocity();
        let linear = unsafe { std::slice::from_raw_parts(linear.as_ptr().cast(), linear.len()) };
        let velocities = VelocityColumns {
            linear,
            angular: bodies.angular_velocity(),
        };
        let states = DisjointMut::new(&mut self.states[..n]);
        let gravity_scale = DisjointMut::new(&mut self.gravity_scale[..]);
        let linear_damping = DisjointMut::new(&mut self.linear_damping[..]);
        let angular_damping = DisjointMut::new(&mut self.angular_damping[..]);
        let blocks = n.div_ceil(BODIES_PER_BLOCK);
        run_stages(&[blocks], &mut self.progress, move |_, blocks| {
            let range = block_bodies(blocks, n);
            // SAFETY: the runs of blocks of one stage are disjoint ranges of rows.
            let (states, gravity_scale, linear_damping, angular_damping) = unsafe {
                (
                    states.slice(range.clone()),
                    gravity_scale.slice(range.clone()),
                    linear_damping.slice(range.clone()),
                    angular_damping.slice(range.clone()),
                )
            };
            // A bound body is clamped now, not only from its first substep on.
            let spin_bound = (!spin_bound.is_empty()).then(|| &spin_bound[range.clone()]);
            // The body columns cut to the slot count here, by the loop, and the rows to the
            // run's length: the compiler then checks each slot and each row once, and reads
            // the columns' addresses once.
            let moving = &moving[range];
            kernels.start(states, BodySlot::raw(moving), velocities, spin_bound, caps);
            let m = moving.len();
            let gravity_scale = &mut gravity_scale[..m];
            let linear_damping = &mut linear_damping[..m];
            let angular_damping = &mut angular_damping[..m];
            let column_gravity_scale = &bodies.gravity_scale()[..slots];
            let column_linear_damping = &bodies.linear_damping()[..slots];
            let column_angular_damping = &bodies.angular_damping()[..slots];
            for (k, &slot) in moving.iter().enumerate() {
                let s = slot.index();
                gravity_scale[k] = column_gravity_scale[s];
                linear_damping[k] = column_linear_damping[s];
                angular_damping[k] = column_angular_damping[s];
            }
        });
    }

    /// Sets `state_of`, `order`, `tile_states` and `free_states` for the `moving` bodies of
    /// `slots` slots and the tiles of `graph`.
    fn order_states(&mut self, slots: usize, moving: &[BodySlot], graph: &ConstraintGraph) {
        self.order_stamp = Stamp::fresh();
        self.state_of.clear();
        self.state_of.resize(slots, NULL_BODY);
        self.order.clear();
        self.tile_states.clear();
        if !graph.tiles.is_empty() {
            // While ordering, `state_of` is 0 for a moving body not yet placed and its place
            // + 1 once placed. A tile body that does not move (asleep) gets no state.
            for &slot in moving {
                self.state_of[slot.index()] = 0;
            }
            for range in &graph.tile_body_ranges {
                let start = self.order.len();
                for &slot in &graph.tile_bodies[range.clone()] {
                    if self.state_of[slot.index()] == 0 {
                        self.state_of[slot.index()] = self.order.len() as u32 + 1;
                        self.order.push(slot);
                    }
                }
                self.tile_states.push(start..self.order.len());
            }
        }
        self.free_states = self.order.len();
        // Without tiles the states are `moving` itself; `order` stays empty.
        let moving = if self.tile_states.is_empty() {
            moving
        } else {
            for &slot in moving {
                if self.state_of[slot.index()] == 0 {
                    self.order.push(slot);
                }
            }
            &self.order[..]
        };
        for (i, &slot) in moving.iter().enumerate() {
            self.state_of[slot.index()] = i as u32;
        }
    }

    /// Turns the user's forces into per-state accelerations (after [`Solver::load_states`]).
    /// Each is clamped to f32's finite range, which only an enormous force on a very light
    /// body leaves, so that the integration's sum with gravity cannot be infinity minus
    /// infinity.
    fn load_forces(&mut self, bodies: &BodyStore, forces: &Forces) {
        self.forced = !forces.is_empty();
        if !self.forced {
            return;
        }
        let n = self.states.len();
        let finite = |x: f32| x.clamp(-f32::MAX, f32::MAX);
        let [x, y, angular] = &mut self.acceleration;
        for column in [&mut *x, &mut *y, &mut *angular] {
            column.clear();
            column.resize(n, 0.0);
        }
        for slot in forces.slots() {
            let state = self.state_of[slot];
            if state == NULL_BODY {
                continue;
            }
            let (force, torque) = forces.get(slot);
            let i = state as usize;
            x[i] = finite(force.x * bodies.inv_mass()[slot]);
            y[i] = finite(force.y * bodies.inv_mass()[slot]);
            angular[i] = finite(torque * bodies.inv_inertia()[slot]);
        }
    }

    /// Lists the step's program ([`Solver::plan_program`]), then the stages and their block
    /// counts: the tiles (one block each, a tile runs the whole program); then the program
    /// over the rest of the world, each body stage over the states in no tile, each contact
    /// stage the overflow set (one block, so one thread solves it in order) and the colors in
    /// its sweep's order, each direct stage one block per island, each joint pass the joint
    /// colors in order and then the joint overflow set (one block).
    fn plan(&mut self, graph: &ConstraintGraph, settings: &WorldSettings, joints: &JointStore) {
        self.stages.clear();
        let joint_batches = &joints.batches;
        let joint_stages = |stages: &mut Vec<Stage>, op| {
            stages.extend(joint_batches.sets().map(|set| Stage::Joints(op, set)));
        };
        self.plan_program(settings, joint_batches.sets().next().is_some());
        let contacts = |stages: &mut Vec<Stage>, op, sweep| {
            let overflow = graph.overflow_batches();
            let overflow = (!overflow.is_empty()).then(|| Stage::Contacts {
                op,
                start: overflow.start,
                end: overflow.end,
                per_block: overflow.len(),
                color: false,
            });
            let colors = graph.color_batches.iter().map(|range| Stage::Contacts {
                op,
                start: range.start,
                end: range.end,
                per_block: BATCHES_PER_BLOCK,
                color: true,
            });
            match sweep {
                Sweep::Forward => stages.extend(overflow.into_iter().chain(colors)),
                Sweep::Backward => stages.extend(colors.rev().chain(overflow)),
            }
        };
        let program = &self.program;
        let stages = &mut self.stages;
        if !graph.tiles.is_empty() {
            stages.push(Stage::Tiles);
        }
        let free_bodies = self.free_states < self.states.len();
        for &op in program {
            match op {
                Op::Bodies(op) if free_bodies => stages.push(Stage::Bodies(op)),
                Op::Bodies(_) => {}
                Op::Contacts(op, sweep) => contacts(stages, op, sweep),
                Op::Direct(op) => stages.push(Stage::Direct(op)),
                Op::Joints(op) => joint_stages(stages, op),
                Op::Trees(op) => stages.push(Stage::Trees(op)),
            }
        }

        let bodies = self.states.len();
        let islands = self.direct.len();
        let trees = self.trees.len();
        self.blocks.clear();
        self.blocks
            .extend(self.stages.iter().map(|stage| match *stage {
                Stage::Bodies(_) => (bodies - self.free_states).div_ceil(BODIES_PER_BLOCK),
                Stage::Direct(_) => islands,
                Stage::Trees(_) => trees,
                Stage::Joints(_, set) => joint_batches.blocks(set),
                Stage::Tiles => graph.tiles.len(),
                Stage::Contacts {
                    start,
                    end,
                    per_block,
                    ..
                } => (end - start).div_ceil(per_block.max(1)),
            }));
    }

    /// Lists the step's program: the impact passes, if any contact bounces; then per substep
    /// integrate velocities, warm start, solve (`solve_iterations` times, the joints
    /// `joint_solve_iterations` times), integrate positions, relax (the warm start and solve
    /// forward in the first substep, backward in the second and so on, the relax passes in the
    /// step's [`Sweep`]); with direct islands, the impact passes, each solve and each relax are
    /// followed by theirs; with `joints`, each warm start and each contact solve is preceded
    /// by the joints' (extra joint passes standing alone), and the joints relax after all
    /// contacts.
    fn plan_program(&mut self, settings: &WorldSettings, joints: bool) {
        let direct = self.direct.len() > 0;
        let trees = self.trees.len() > 0;
        let program = &mut self.program;
        program.clear();
        if self.bouncy {
            for _ in 0..IMPACT_PASSES {
                program.push(Op::Contacts(ContactOp::Impact, Sweep::Forward));
            }
            if direct {
                program.push(Op::Direct(DirectOp::Impact));
            }
        }
        for substep in 0..settings.substeps {
            let sweep = if substep.is_multiple_of(2) {
                Sweep::Forward
            } else {
                Sweep::Backward
            };
            program.push(Op::Bodies(BodyOp::IntegrateVelocities));
            if joints {
                let first = substep == 0;
                program.push(Op::Joints(JointOp::WarmStart { first }));
            }
            if trees {
                program.push(Op::Trees(TreeOp::WarmStart));
            }
            program.push(Op::Contacts(ContactOp::WarmStart, sweep));
            let contact_passes = settings.solve_iterations;
            let joint_passes = if joints || trees {
                settings.joint_solve_iterations
            } else {
                0
            };
            for pass in 0..contact_passes.max(joint_passes) {
                if joints && pass < joint_passes {
                    program.push(Op::Joints(JointOp::Solve));
                }
                if pass < contact_passes {
                    program.push(Op::Contacts(ContactOp::Solve, sweep));
                }
                // Last in the pass: the trees' joints then hold exactly whatever the soft
                // passes before did.
                if trees && pass < joint_passes {
                    program.push(Op::Trees(TreeOp::Solve));
                }
            }
            if direct {
                program.push(Op::Direct(DirectOp::Solve));
            }
            program.push(Op::Bodies(BodyOp::IntegratePositions));
            if trees {
                program.push(Op::Trees(TreeOp::Project));
            }
            program.push(Op::Contacts(ContactOp::Relax, self.relax_sweep));
            if direct {
                program.push(Op::Direct(DirectOp::Relax));
            }
            // Last: a direct island's relax starts again from the velocities it saved before
            // its solve, and would undo a joint relax before it.
            if joints {
                let last = substep + 1 == settings.substeps;
                program.push(Op::Joints(JointOp::Relax { last }));
            }
            if trees {
                program.push(Op::Trees(TreeOp::Relax));
            }
        }
    }
}

/// A column of `T`s as the kernels read it: pairs of f32s, borrowed for as long.
///
/// # Safety
/// `T` is a `repr(C)` pair of f32s (`Vec2`, (x, y), or `Rot`, (cosine, sine)).
unsafe fn as_pairs<T>(column: &mut [T]) -> &mut [[f32; 2]] {
    debug_assert_eq!(size_of::<T>(), size_of::<[f32; 2]>());
    // SAFETY: by the caller's promise, the column is one of as many `[f32; 2]`s.
    unsafe { std::slice::from_raw_parts_mut(column.as_mut_ptr().cast(), column.len()) }
}

/// What the workers run the step's body and contact stages with: the kernels, the states and
/// batches they write, and the constants and per-state columns they read.
#[derive(Clone, Copy)]
struct Runner<'a> {
    kernels: &'static dyn Kernels,
    states: States<'a>,
    batches: DisjointMut<'a, ContactBatch>,
    /// Per batch: whether all its contacts have one point.
    one_point: &'a [bool],
    solve: SolveParams,
    relax: SolveParams,
    impact: ImpactParams,
    integrate: &'a IntegrateParams,
    /// Per state (see the fields of `Solver` of the same names).
    gravity_scale: &'a [f32],
    linear_damping: &'a [f32],
    angular_damping: &'a [f32],
    acceleration: &'a [Vec<f32>; 3],
    forced: bool,
    spin_bound: &'a [f32],
}

impl Runner<'_> {
    /// The constants of a solve or relax pass.
    fn pass(&self, op: ContactOp) -> &SolveParams {
        match op {
            ContactOp::Solve => &self.solve,
            _ => &self.relax,
        }
    }

    /// The impact pass on batch `i`, if any of its lanes bounces.
    ///
    /// # Safety
    /// No other thread accesses the batch or its dynamic bodies meanwhile.
    unsafe fn impact(&self, i: usize) {
        let b = self.batches.get(i);
        if b.is_bouncy() {
            self.kernels.impact(b, self.states, &self.impact)
        }
    }

    /// Runs `op` on the batches of `range`, in order; `color` when they are one graph
    /// color's. The warm start, solve and relax passes hand the kernels the whole run at once
    /// (see [`Kernels::solve_run`]).
    ///
    /// # Safety
    /// As for [`Runner::impact`], for every batch of `range`.
    unsafe fn run_batches(&self, op: ContactOp, range: Range<usize>, color: bool) {
        let one_point = &self.one_point[range.clone()];
        match op {
            ContactOp::Impact => range.for_each(|i| self.impact(i)),
            ContactOp::WarmStart => {
                let batches = self.batches.slice(range);
                self.kernels.warm_start_run(batches, one_point, self.states)
            }
            ContactOp::Solve | ContactOp::Relax => {
                let batches = self.batches.slice(range);
                let pass = self.pass(op);
                (self.kernels).solve_run(batches, one_point, self.states, pass, color)
            }
        }
    }

    /// Integrates the states of `range`.
    ///
    /// # Safety
    /// No other thread accesses these states meanwhile.
    unsafe fn integrate(&self, op: BodyOp, range: Range<usize>) {
        let chunk = self.states.slice_mut(range.start, range.len());
        match op {
            BodyOp::IntegrateVelocities => {
                let [x, y, angular] = self.acceleration;
                let spin_bound = self.spin_bound;
                let body = BodyParams {
                    gravity_scale: &self.gravity_scale[range.clone()],
                    linear_damping: &self.linear_damping[range.clone()],
                    angular_damping: &self.angular_damping[range.clone()],
                    acceleration: self.forced.then(|| Accelerations {
                        x: &x[range.clone()],
                        y: &y[range.clone()],
                        angular: &angular[range.clone()],
                    }),
                    spin_bound: (!spin_bound.is_empty()).then(|| &spin_bound[range]),
                };
                self.kernels
                    .integrate_velocities(chunk, body, self.integrate)
            }
            BodyOp::IntegratePositions => self.kernels.integrate_positions(chunk, self.integrate.h),
        }
    }

    /// Runs a tile's whole step: `program` over the tile's `colors` and its states, `states`.
    ///
    /// # Safety
    /// No other thread accesses the tile's batches or states meanwhile.
    unsafe fn run_tile(&self, program: &[Op], colors: &[Range<usize>], states: Range<usize>) {
        for &op in program {
            match op {
                Op::Bodies(op) => self.integrate(op, states.clone()),
                Op::Contacts(op, Sweep::Forward) => {
                    for range in colors {
                        self.run_batches(op, range.clone(), true);
                    }
                }
                Op::Contacts(op, Sweep::Backward) => {
                    for range in colors.iter().rev() {
                        self.run_batches(op, range.clone(), true);
                    }
                }
                // Direct islands and jointed bodies are in no tile.
                Op::Direct(_) | Op::Joints(_) | Op::Trees(_) => {}
            }
        }
    }
}

impl Codec for Sweep {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        u8::from(*self == Sweep::Backward).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(match bool::decode(r)? {
            false => Sweep::Forward,
            true => Sweep::Backward,
        })
    }
}

// The solver keeps from step to step only the direction of its relax passes; the rest are
// buffers each step fills afresh (the body order is keyed on the graph's generation, which a
// restored graph starts over).
codec_struct!(Solver { relax_sweep } rebuilt {
    states,
    packed,
    program,
    stages,
    blocks,
    progress,
    order,
    state_of,
    tile_states,
    free_states,
    ordered_generation,
    ordered_moving,
    order_stamp,
    gravity_scale,
    linear_damping,
    angular_damping,
    acceleration,
    forced,
    speed_caps,
    bouncy,
    direct,
    spin_bounds,
    trees
});
