//! The direct solve of small islands whose masses differ widely (see `direct_islands` for
//! which islands, and why).
//!
//! Each substep an island gets one exact solve of all its contacts, normal and friction rows
//! together (see `lcp`), where the colored contacts get their biased passes, and one where
//! they relax; both start from the velocities before the contact solve, so the relax is the
//! unbiased solve of the same substep. Its contacts are rigid: a gap may close within the
//! substep, overlap within the slop is held, deeper overlap is pushed out at the soft
//! contacts' bias rate within the same push-out cap, and no spring lets a light body's contact
//! give way under a heavy load. Each island is one block of its stage, solved by one worker
//! with arithmetic that does not depend on the backend: results stay bit-identical across
//! backends and thread counts.

use crate::body::BodyStore;
use crate::disjoint::DisjointMut;
use crate::index::{ContactIndex, NONE};
use crate::narrow_phase::contact::Contact;
use crate::solver::direct_islands::{DirectIslands, MAX_BODIES, MAX_ENVELOPE_COST};
use crate::solver::direct_point::{apply, coupling, dot3, share_a_body, Point};
use crate::solver::layered::Layered;
use crate::solver::lcp::{Lcp, Row};
use batch2d_kernels::body::States;
use batch2d_kernels::{ImpactParams, NULL_BODY};
use rayon::prelude::*;

/// One island's points, bodies and solver scratch, kept from step to step.
#[derive(Clone, Default)]
pub(crate) struct Island {
    points: Vec<Point>,
    /// Solver states of the island's dynamic bodies.
    bodies: Vec<u32>,
    /// Their velocities `(vx, vy, w)` before this substep's contact solve.
    v_pre: Vec<[f64; 3]>,
    /// Their velocities being built from impulses.
    v: Vec<[f64; 3]>,
    lcp: Lcp,
    /// Points of the impact solve, and its problem (apart from `lcp`, which holds the
    /// contact rows for the whole step).
    hit: Vec<usize>,
    impact_lcp: Lcp,
    /// Whether the island is small and its problem narrow enough for the exact solve (see
    /// `direct_islands`); if not, its solve is `layered`'s.
    exact: bool,
    layered: Layered,
    /// Whether every exact solve of this step settled. After one that did not, the rest of
    /// the step relaxes from the last impulses instead of pivoting again (see `Lcp::relax`).
    settled: bool,
}

/// Which solve a direct stage does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DirectOp {
    /// Biased solve, where the colored contacts get their solve passes.
    Solve,
    /// Unbiased solve, where the colored contacts relax.
    Relax,
    /// Bounces of the contacts hit this step, before the substeps.
    Impact,
}

/// Constants of the direct stages of one step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DirectParams {
    pub inv_h: f32,
    pub linear_slop: f32,
    pub impact: ImpactParams,
}

/// The direct solver's reused buffers.
#[derive(Clone, Default)]
pub(crate) struct DirectSolver {
    islands: Vec<Island>,
    count: usize,
}

/// Per contact, what the solver's packing gives every contact: bias rate and push-out cap.
pub(crate) type ContactSoftness<'a> = &'a (dyn Fn(&Contact) -> (f32, f32) + Sync);

impl DirectSolver {
    /// Takes this step's islands from the contacts, at the body states the step begins with
    /// (`states`, indexed through `state_of` by body slot).
    pub fn load(
        &mut self,
        found: &DirectIslands,
        contacts: &[Contact],
        bodies: &BodyStore,
        state_of: &[u32],
        states: States,
        softness: ContactSoftness,
    ) {
        self.count = found.len();
        if self.islands.len() < self.count {
            self.islands.resize_with(self.count, Island::default);
        }
        self.islands[..self.count]
            .par_iter_mut()
            .zip(&found.ranges)
            .for_each(|(island, range)| {
                let members = &found.contacts[range.clone()];
                // SAFETY: loading only reads states, and no stage runs meanwhile.
                unsafe { island.load(members, contacts, bodies, state_of, states, softness) };
            });
    }

    /// Number of islands, one block of each direct stage per island.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Runs `op` on island `island`.
    ///
    /// # Safety
    /// No other thread touches this island or its bodies' states meanwhile: each island is one
    /// block, and no colored contact touches its dynamic bodies.
    pub unsafe fn run(
        islands: DirectMut<'_>,
        island: usize,
        op: DirectOp,
        states: States,
        p: &DirectParams,
    ) {
        let island = islands.get(island);
        match op {
            DirectOp::Solve => island.solve(states, p, true),
            DirectOp::Relax => island.solve(states, p, false),
            DirectOp::Impact => island.impact(states, p),
        }
    }

    /// The islands, shared with the workers of a stage.
    pub fn islands(&mut self) -> DirectMut<'_> {
        DisjointMut::new(&mut self.islands)
    }

    /// Writes the islands' impulses back to their contacts.
    pub fn store_impulses(&self, contacts: &mut [Contact]) {
        for island in &self.islands[..self.count] {
            for p in &island.points {
                let m = &mut contacts[p.contact.index()].manifold.points[p.index];
                m.normal_impulse = p.normal_impulse;
                m.tangent_impulse = p.tangent_impulse;
                m.impact_impulse = p.impact_impulse;
            }
        }
    }
}

/// The islands, shared with the workers of a direct stage: each reaches only the island of its
/// own block.
pub(crate) type DirectMut<'a> = DisjointMut<'a, Island>;

impl Island {
    /// # Safety
    /// No thread writes `states` meanwhile.
    unsafe fn load(
        &mut self,
        members: &[ContactIndex],
        contacts: &[Contact],
        bodies: &BodyStore,
        state_of: &[u32],
        states: States,
        softness: ContactSoftness,
    ) {
        self.points.clear();
        self.bodies.clear();
        self.settled = true;
        for &ci in members {
            let c = &contacts[ci.index()];
            let (bias_rate, max_push) = softness(c);
            let slots = [c.a.index(), c.b.index()];
            let mut point = Point {
                contact: ci,
                friction: c.friction,
                restitution: c.restitution,
                tangent_speed: c.tangent_speed,
                bias_rate,
                max_push,
                normal: [c.manifold.normal.x, c.manifold.normal.y],
                // Set per side and per point below.
                index: 0,
                state: [NONE; 2],
                local: [NONE; 2],
                inv_mass: [[0.0; 3]; 2],
                normal_row: [[0.0; 3]; 2],
                friction_row: [[0.0; 3]; 2],
                cross: [0.0; 2],
                dot: [0.0; 2],
                base_separation: 0.0,
                normal_impulse: 0.0,
                tangent_impulse: 0.0,
                impact_impulse: 0.0,
            };
            for (side, &s) in slots.iter().enumerate() {
                point.state[side] = state_of[s];
                let dynamic = bodies.inv_mass()[s] > 0.0;
                point.local[side] = if dynamic {
                    self.local_body(state_of[s])
                } else {
                    NONE
                };
                let im = bodies.inv_mass()[s] as f64;
                point.inv_mass[side] = [im, im, bodies.inv_inertia()[s] as f64];
            }
            let n = c.manifold.normal;
            let offsets = slots.map(|s| bodies.rotation()[s].rotate(bodies.local_center()[s]));
            let m = &c.manifold;
            for (index, mp) in m.points[..m.point_count].iter().enumerate() {
                let r = [mp.anchor_a - offsets[0], mp.anchor_b - offsets[1]];
                let mut p = point;
                p.index = index;
                p.cross = r.map(|r| r.x * n.y - r.y * n.x);
                p.dot = r.map(|r| r.x * n.x + r.y * n.y);
                p.base_separation = mp.separation - (p.dot[1] - p.dot[0]);
                p.normal_impulse = mp.normal_impulse;
                p.tangent_impulse = mp.tangent_impulse;
                let (nx, ny) = (n.x as f64, n.y as f64);
                let (cross, dot) = (p.cross.map(f64::from), p.dot.map(f64::from));
                p.normal_row = [[-nx, -ny, -cross[0]], [nx, ny, cross[1]]];
                p.friction_row = [[-ny, nx, dot[0]], [ny, -nx, -dot[1]]];
                self.points.push(p);
            }
        }
        self.v_pre.clear();
        self.v_pre.resize(self.bodies.len(), [0.0; 3]);
        self.v.clear();
        self.v.resize(self.bodies.len(), [0.0; 3]);
        self.read_velocities(states);
        self.exact = self.bodies.len() <= MAX_BODIES && {
            self.build_problem();
            self.lcp.envelope_cost() <= MAX_ENVELOPE_COST
        };
        if !self.exact {
            self.layered.load(&self.points, self.bodies.len());
        }
    }

    /// The exact solve's problem: `A = J M^-1 J^T` over both rows of every point; it holds for
    /// the whole step. Only points that share a body couple: A is as sparse as the contact graph.
    fn build_problem(&mut self) {
        let rows = 2 * self.points.len();
        self.lcp.reset(rows);
        // Last step's normal impulses bound the first solve's friction (see `lcp`).
        for (i, p) in self.points.iter().enumerate() {
            self.lcp.x[2 * i] = p.normal_impulse as f64;
        }
        for (i, p) in self.points.iter().enumerate() {
            let row_i = [&p.normal_row, &p.friction_row];
            for (j, q) in self.points[..=i].iter().enumerate() {
                if !share_a_body(p, q) {
                    continue;
                }
                let row_j = [&q.normal_row, &q.friction_row];
                for (ki, ri) in row_i.iter().enumerate() {
                    for (kj, rj) in row_j.iter().enumerate() {
                        let (r, c) = (2 * i + ki, 2 * j + kj);
                        if c <= r {
                            self.lcp.set_a(r, c, coupling(p, ri, q, rj));
                        }
                    }
                }
            }
            self.lcp.set_row(
                2 * i + 1,
                Row::Friction {
                    normal: 2 * i,
                    mu: p.friction as f64,
                },
            );
        }
    }

    /// The island's index of the body with solver state `state`, added if new.
    fn local_body(&mut self, state: u32) -> u32 {
        match self.bodies.iter().position(|&s| s == state) {
            Some(k) => k as u32,
            None => {
                self.bodies.push(state);
                (self.bodies.len() - 1) as u32
            }
        }
    }

    /// Reads the island's body velocities into `v_pre` and `v`.
    unsafe fn read_velocities(&mut self, states: States) {
        for (k, &s) in self.bodies.iter().enumerate() {
            let state = states.read(s);
            self.v_pre[k] = [state.v[0] as f64, state.v[1] as f64, state.w as f64];
        }
        self.v.copy_from_slice(&self.v_pre);
    }

    /// Velocity along a Jacobian row of the island's bodies at the velocities `v` (the other
    /// bodies' part is `outside_velocity`).
    fn row_velocity(&self, p: &Point, row: &[[f64; 3]; 2]) -> f64 {
        (0..2)
            .filter(|&side| p.local[side] != NONE)
            .map(|side| dot3(&row[side], &self.v[p.local[side] as usize]))
            .sum()
    }

    /// Current separation of point `p`: the base plus the motion of its anchors this step.
    unsafe fn separation(p: &Point, states: States) -> f32 {
        let [a, b] = p.state.map(|s| states.read(s));
        let [nx, ny] = p.normal;
        let moved = (b.dp[0] - a.dp[0]) * nx + (b.dp[1] - a.dp[1]) * ny;
        let turned_a = a.dq[0] * p.dot[0] + a.dq[1] * p.cross[0];
        let turned_b = b.dq[0] * p.dot[1] + b.dq[1] * p.cross[1];
        p.base_separation + (moved + (turned_b - turned_a))
    }

    /// One exact solve of every row from the velocities before the contact solve of this
    /// substep: biased (`bias`) where the colored contacts solve, unbiased where they relax.
    unsafe fn solve(&mut self, states: States, params: &DirectParams, bias: bool) {
        if bias {
            // The substep's velocity integration has just run: keep its result for the relax.
            self.read_velocities(states);
        } else {
            self.v.copy_from_slice(&self.v_pre);
        }
        if self.exact {
            self.solve_exactly(states, params, bias);
        } else {
            self.solve_layered(states, params, bias);
        }
        self.write_velocities(states);
    }

    /// [`Island::solve`] of a small island: one exact solve of all its rows.
    unsafe fn solve_exactly(&mut self, states: States, params: &DirectParams, bias: bool) {
        for i in 0..self.points.len() {
            let p = self.points[i];
            let push = push(&p, Self::separation(&p, states), params, bias);
            let vn = self.row_velocity(&p, &p.normal_row)
                + self.outside_velocity(&p, &p.normal_row, states);
            let vt = self.row_velocity(&p, &p.friction_row)
                + self.outside_velocity(&p, &p.friction_row, states);
            self.lcp.set_b(2 * i, vn + push as f64);
            self.lcp.set_b(2 * i + 1, vt - p.tangent_speed as f64);
        }
        if self.settled {
            self.settled = self.lcp.solve();
        } else {
            self.lcp.relax();
        }
        let x: &[f64] = &self.lcp.x;
        for (i, p) in self.points.iter_mut().enumerate() {
            let (normal, tangent) = (x[2 * i], x[2 * i + 1]);
            apply(&mut self.v, p, &p.normal_row, normal);
            apply(&mut self.v, p, &p.friction_row, tangent);
            if !bias {
                p.normal_impulse = normal as f32;
                p.tangent_impulse = tangent as f32;
            }
        }
    }

    /// [`Island::solve`] of a large island: sweeps until they converge (see `layered`).
    unsafe fn solve_layered(&mut self, states: States, params: &DirectParams, bias: bool) {
        for i in 0..self.points.len() {
            let p = self.points[i];
            let push = push(&p, Self::separation(&p, states), params, bias);
            self.layered.set_b(
                i,
                [
                    self.outside_velocity(&p, &p.normal_row, states) + push as f64,
                    self.outside_velocity(&p, &p.friction_row, states) - p.tangent_speed as f64,
                ],
            );
        }
        self.layered.solve(&mut self.v);
        if !bias {
            for (i, p) in self.points.iter_mut().enumerate() {
                let x = self.layered.x(i);
                p.normal_impulse = x[0] as f32;
                p.tangent_impulse = x[1] as f32;
            }
        }
    }

    /// Velocity along a row contributed by the bodies the island does not move (kinematic
    /// ones; static ones are at rest).
    unsafe fn outside_velocity(&self, p: &Point, row: &[[f64; 3]; 2], states: States) -> f64 {
        (0..2)
            .filter(|&side| p.local[side] == NONE && p.state[side] != NULL_BODY)
            .map(|side| {
                let s = states.read(p.state[side]);
                dot3(&row[side], &[s.v[0] as f64, s.v[1] as f64, s.w as f64])
            })
            .sum()
    }

    /// Bounces, as the colored contacts' impact passes do (see the kernels' `impact`), but for
    /// the whole island at once: the points hit this step (touching, or closing their gap
    /// within the step) get `(1 + e)` times the impulses that stop their approach together,
    /// if any of them approaches faster than the threshold. Friction is left to the solve, and
    /// the approach is taken at the step's start (no half substep of gravity on).
    unsafe fn impact(&mut self, states: States, params: &DirectParams) {
        let p = &params.impact;
        self.read_velocities(states);
        self.hit.clear();
        let mut fast = false;
        for (i, point) in self.points.iter().enumerate() {
            let vn = self.row_velocity(point, &point.normal_row)
                + self.outside_velocity(point, &point.normal_row, states);
            let separation = Self::separation(point, states) as f64;
            let reach = (p.gravity_reach as f64 - vn) * p.dt as f64 + p.margin as f64;
            if point.restitution > 0.0 && vn < 0.0 && separation < reach {
                self.hit.push(i);
                fast |= vn < -(p.threshold as f64);
            }
        }
        if !fast {
            return;
        }
        let m = self.hit.len();
        self.impact_lcp.reset(m);
        for (r, &i) in self.hit.iter().enumerate() {
            let p = &self.points[i];
            for (c, &j) in self.hit[..=r].iter().enumerate() {
                let q = &self.points[j];
                if !share_a_body(p, q) {
                    continue;
                }
                self.impact_lcp
                    .set_a(r, c, coupling(p, &p.normal_row, q, &q.normal_row));
            }
            let vn = self.row_velocity(p, &p.normal_row)
                + self.outside_velocity(p, &p.normal_row, states);
            self.impact_lcp.set_b(r, vn);
        }
        self.impact_lcp.solve();
        for (r, &i) in self.hit.iter().enumerate() {
            let p = &mut self.points[i];
            let x = (1.0 + p.restitution as f64) * self.impact_lcp.x[r];
            apply(&mut self.v, p, &p.normal_row, x);
            p.impact_impulse = x as f32;
        }
        self.write_velocities(states);
    }

    unsafe fn write_velocities(&self, states: States) {
        for (k, &s) in self.bodies.iter().enumerate() {
            let mut state = states.read(s);
            let v = self.v[k];
            if v.iter().all(|c| c.is_finite()) {
                state.v = [v[0] as f32, v[1] as f32];
                state.w = v[2] as f32;
            }
            states.write_velocity(s, &state);
        }
    }
}

/// The velocity a point's normal row must reach: as in the kernels, a gap may close within the
/// substep; overlap within the slop is held; deeper overlap is pushed out (when `bias`) at the
/// bias rate, no faster than the cap.
fn push(p: &Point, separation: f32, params: &DirectParams, bias: bool) -> f32 {
    if separation > 0.0 {
        separation * params.inv_h
    } else if !bias || separation + params.linear_slop >= 0.0 {
        0.0
    } else {
        (p.bias_rate * (separation + params.linear_slop)).max(-p.max_push)
    }
}
