//! The soft step: prepare contacts, then per substep integrate velocities, warm start, solve
//! with soft bias, integrate positions and relax; then restitution and storing impulses.
//!
//! Every stage walks the overflow set on one thread, then the colors in order; the batches of
//! one color go to the rayon workers. Within a color no dynamic body appears twice, so the
//! workers' order cannot change any result: output is identical for any thread count, and for
//! both backends, whose kernels do the same float operations per lane.

use crate::body::BodyStore;
use crate::broad_phase::ProxyKind;
use crate::constraint_graph::{ConstraintGraph, EMPTY_LANE};
use crate::contact::Contact;
use crate::math::{Rot, Vec2};
use crate::profile::zone;
use crate::world::{Backend, WorldSettings};
use batch2d_kernels::body::{self as kbody, BodyParams, IntegrateParams, States};
use batch2d_kernels::contact::{scalar, simd};
use batch2d_kernels::{BodyState, ContactBatch, SolveParams, LANES, NULL_BODY};
use bytemuck::Zeroable;
use rayon::prelude::*;
use std::ops::Range;

/// Batches per rayon task: enough work to amortise the task, small enough to balance.
const BATCHES_PER_TASK: usize = 4;
/// Bodies per rayon task in the integration stages (a multiple of `LANES`).
const BODIES_PER_TASK: usize = 1024;

/// Coefficients of a soft constraint for one substep length: a damped spring of the given
/// frequency, expressed as a velocity bias rate and a mass scale (the impulse scale of the soft
/// step is `1 - mass_scale`).
#[derive(Clone, Copy, Debug)]
struct Softness {
    bias_rate: f32,
    mass_scale: f32,
}

impl Softness {
    fn new(hertz: f32, damping_ratio: f32, h: f32) -> Softness {
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * damping_ratio + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
        }
    }
}

/// Reused buffers of the solver.
#[derive(Default)]
pub(crate) struct Solver {
    states: Vec<BodyState>,
    batches: Vec<ContactBatch>,
    /// Batch lane (`batch * LANES + lane`) of each contact.
    contact_lane: Vec<u32>,
}

/// What one step solves.
pub(crate) struct StepInput<'a> {
    pub bodies: &'a mut BodyStore,
    pub contacts: &'a mut [Contact],
    pub graph: &'a ConstraintGraph,
    pub settings: &'a WorldSettings,
    pub dt: f32,
}

impl Solver {
    /// Solves one step: leaves the new body states in the solver (see [`Solver::finalize`])
    /// and the new impulses in `contacts`.
    pub fn step(&mut self, input: StepInput) {
        let StepInput {
            bodies,
            contacts,
            graph,
            settings,
            dt,
        } = input;
        let substeps = settings.substeps;
        let h = dt / substeps as f32;
        let inv_h = 1.0 / h;
        let backend = settings.backend;

        self.load_states(bodies);
        self.pack(contacts, graph, bodies, settings, h);

        self.for_each_batch(graph, |b, states| unsafe {
            // SAFETY: the coloring gives each batch's dynamic bodies to one worker.
            match backend {
                Backend::Simd => simd::prepare(b, states),
                Backend::Scalar => scalar::prepare(b, states),
            }
        });

        let integrate = IntegrateParams {
            h,
            gravity: [settings.gravity.x, settings.gravity.y],
            max_linear_speed: settings.max_linear_speed,
            max_angular_speed: 0.25 * std::f32::consts::PI * inv_h,
        };
        let solve = SolveParams {
            inv_h,
            max_bias_velocity: settings.contact_push_max_velocity,
            linear_slop: settings.linear_slop,
            use_bias: true,
        };
        let relax = SolveParams {
            use_bias: false,
            ..solve
        };
        for _ in 0..substeps {
            zone!("substep");
            self.integrate_velocities(bodies, &integrate, backend);
            self.for_each_batch(graph, |b, states| unsafe {
                // SAFETY: as above.
                match backend {
                    Backend::Simd => simd::warm_start(b, states),
                    Backend::Scalar => scalar::warm_start(b, states),
                }
            });
            for _ in 0..settings.solve_iterations {
                self.for_each_batch(graph, |b, states| unsafe {
                    // SAFETY: as above.
                    match backend {
                        Backend::Simd => simd::solve(b, states, &solve),
                        Backend::Scalar => scalar::solve(b, states, &solve),
                    }
                });
            }
            self.integrate_positions(h, backend);
            self.for_each_batch(graph, |b, states| unsafe {
                // SAFETY: as above.
                match backend {
                    Backend::Simd => simd::solve(b, states, &relax),
                    Backend::Scalar => scalar::solve(b, states, &relax),
                }
            });
        }

        zone!("restitution and store impulses");
        let threshold = settings.restitution_threshold;
        self.for_each_batch(graph, |b, states| {
            if b.needs_restitution(threshold) {
                // SAFETY: as above.
                unsafe {
                    match backend {
                        Backend::Simd => simd::restitution(b, states, threshold),
                        Backend::Scalar => scalar::restitution(b, states, threshold),
                    }
                }
            }
        });

        self.store_impulses(contacts);
    }

    /// Writes positions, rotations and velocities back to the bodies.
    pub fn finalize(&self, bodies: &mut BodyStore) {
        let states = &self.states;
        (
            bodies.center.par_iter_mut(),
            bodies.rotation.par_iter_mut(),
            bodies.linear_velocity.par_iter_mut(),
            bodies.angular_velocity.par_iter_mut(),
            bodies.kind.par_iter(),
        )
            .into_par_iter()
            .zip(states.par_iter())
            .with_min_len(BODIES_PER_TASK)
            .for_each(|((center, rotation, v, w, kind), s)| {
                if matches!(kind, ProxyKind::Dynamic | ProxyKind::Kinematic) {
                    center.x += s.dp[0];
                    center.y += s.dp[1];
                    let dq = Rot {
                        c: s.dq[0],
                        s: s.dq[1],
                    };
                    *rotation = dq.compose(*rotation).normalized();
                    *v = Vec2::new(s.v[0], s.v[1]);
                    *w = s.w;
                }
            });
    }

    fn load_states(&mut self, bodies: &BodyStore) {
        self.states.clear();
        self.states.extend(
            bodies
                .linear_velocity
                .iter()
                .zip(&bodies.angular_velocity)
                .map(|(v, &w)| BodyState::with_velocity([v.x, v.y], w)),
        );
    }

    /// Fills the batches with the contacts' data and the contact-to-lane map.
    fn pack(
        &mut self,
        contacts: &[Contact],
        graph: &ConstraintGraph,
        bodies: &BodyStore,
        settings: &WorldSettings,
        h: f32,
    ) {
        // Stiffness is capped at a quarter of the substep rate to stay stable; contacts with a
        // static or kinematic body are twice as stiff since only one side can move.
        let hertz = settings.contact_hertz.min(0.25 / h);
        let zeta = settings.contact_damping_ratio;
        let soft = Softness::new(hertz, zeta, h);
        let rigid_soft = Softness::new(2.0 * hertz, zeta, h);

        self.batches
            .resize(graph.lanes.len(), ContactBatch::zeroed());
        self.batches
            .par_iter_mut()
            .zip(graph.lanes.par_iter())
            .with_min_len(BATCHES_PER_TASK)
            .for_each(|(batch, lanes)| {
                *batch = ContactBatch::zeroed();
                batch.body_a = [NULL_BODY; LANES];
                batch.body_b = [NULL_BODY; LANES];
                for (l, &ci) in lanes.iter().enumerate() {
                    if ci != EMPTY_LANE {
                        pack_lane(batch, l, &contacts[ci as usize], bodies, soft, rigid_soft);
                    }
                }
            });

        self.contact_lane.clear();
        self.contact_lane.resize(contacts.len(), 0);
        for (b, lanes) in graph.lanes.iter().enumerate() {
            for (l, &ci) in lanes.iter().enumerate() {
                if ci != EMPTY_LANE {
                    self.contact_lane[ci as usize] = (b * LANES + l) as u32;
                }
            }
        }
    }

    /// Runs `kernel` on the overflow batches on this thread, then on each color's batches in
    /// parallel, colors in order.
    fn for_each_batch(
        &mut self,
        graph: &ConstraintGraph,
        kernel: impl Fn(&mut ContactBatch, States) + Sync,
    ) {
        let states = States::new(&mut self.states);
        for b in &mut self.batches[graph.overflow_batches()] {
            kernel(b, states);
        }
        for range in &graph.color_batches {
            self.batches[Range::clone(range)]
                .par_iter_mut()
                .with_min_len(BATCHES_PER_TASK)
                .for_each(|b| kernel(b, states));
        }
    }

    fn integrate_velocities(&mut self, bodies: &BodyStore, p: &IntegrateParams, backend: Backend) {
        self.states
            .par_chunks_mut(BODIES_PER_TASK)
            .zip(bodies.gravity_scale.par_chunks(BODIES_PER_TASK))
            .zip(bodies.linear_damping.par_chunks(BODIES_PER_TASK))
            .zip(bodies.angular_damping.par_chunks(BODIES_PER_TASK))
            .for_each(
                |(((states, gravity_scale), linear_damping), angular_damping)| {
                    let body = BodyParams {
                        gravity_scale,
                        linear_damping,
                        angular_damping,
                    };
                    match backend {
                        Backend::Simd => kbody::integrate_velocities_simd(states, body, p),
                        Backend::Scalar => kbody::integrate_velocities_scalar(states, body, p),
                    }
                },
            );
    }

    fn integrate_positions(&mut self, h: f32, backend: Backend) {
        self.states
            .par_chunks_mut(BODIES_PER_TASK)
            .for_each(|states| match backend {
                Backend::Simd => kbody::integrate_positions_simd(states, h),
                Backend::Scalar => kbody::integrate_positions_scalar(states, h),
            });
    }

    fn store_impulses(&self, contacts: &mut [Contact]) {
        let batches = &self.batches;
        contacts
            .par_iter_mut()
            .zip(self.contact_lane.par_iter())
            .with_min_len(BATCHES_PER_TASK * LANES)
            .for_each(|(c, &at)| {
                let (b, l) = (at as usize / LANES, at as usize % LANES);
                let m = &mut c.manifold;
                for (p, lanes) in m.points[..m.point_count].iter_mut().zip(&batches[b].points) {
                    p.normal_impulse = lanes.normal_impulse[l];
                    p.tangent_impulse = lanes.tangent_impulse[l];
                    p.max_normal_impulse = lanes.max_normal_impulse[l];
                }
            });
    }
}

/// Copies one contact into lane `l` of a batch.
fn pack_lane(
    batch: &mut ContactBatch,
    l: usize,
    c: &Contact,
    bodies: &BodyStore,
    soft: Softness,
    rigid_soft: Softness,
) {
    let (a, b) = (c.a as usize, c.b as usize);
    let index = |s: usize| match bodies.kind[s] {
        ProxyKind::Static => NULL_BODY,
        _ => s as u32,
    };
    batch.body_a[l] = index(a);
    batch.body_b[l] = index(b);
    let n = c.manifold.normal;
    batch.normal_x[l] = n.x;
    batch.normal_y[l] = n.y;
    batch.friction[l] = c.friction;
    batch.restitution[l] = c.restitution;
    batch.inv_mass_a[l] = bodies.inv_mass[a];
    batch.inv_inertia_a[l] = bodies.inv_inertia[a];
    batch.inv_mass_b[l] = bodies.inv_mass[b];
    batch.inv_inertia_b[l] = bodies.inv_inertia[b];
    let s = if bodies.inv_mass[a] == 0.0 || bodies.inv_mass[b] == 0.0 {
        rigid_soft
    } else {
        soft
    };
    batch.bias_rate[l] = s.bias_rate;
    batch.mass_scale[l] = s.mass_scale;

    // Manifold anchors are relative to the body origins; the solver wants them relative to
    // the centres of mass.
    let offset_a = bodies.rotation[a].rotate(bodies.local_center[a]);
    let offset_b = bodies.rotation[b].rotate(bodies.local_center[b]);
    let m = &c.manifold;
    for (p, lanes) in m.points[..m.point_count].iter().zip(&mut batch.points) {
        let ra = p.anchor_a - offset_a;
        let rb = p.anchor_b - offset_b;
        lanes.active[l] = 1.0;
        lanes.anchor_ax[l] = ra.x;
        lanes.anchor_ay[l] = ra.y;
        lanes.anchor_bx[l] = rb.x;
        lanes.anchor_by[l] = rb.y;
        lanes.base_separation[l] = p.separation;
        lanes.normal_impulse[l] = p.normal_impulse;
        lanes.tangent_impulse[l] = p.tangent_impulse;
    }
}
