//! The direct solve of islands too large to solve exactly: rigid Gauss-Seidel over the
//! island's rows, ordered by layers, until it converges.
//!
//! Gauss-Seidel needs passes in proportion to the mass ratio to carry a heavy load down
//! through light bodies (see `direct_islands`), and a soft contact between light bodies is a
//! spring too weak for a heavy load: a 4000 kg slab on a wall of 1 kg boxes crushes it. The
//! exact solve holds such loads, but its cost grows with the width of the pile (see `lcp`).
//! So a large island gets rigid sweeps over all its rows, warm started from the last
//! impulses, which over the steps of a resting pile carry on converging towards the exact
//! ones. The sweeps run until no row's velocity changes by more than [`TOLERANCE`] in a sweep:
//! a pile at rest needs a few, a load just laid on it many (up to [`MAX_SWEEPS`]).
//!
//! The rows are ordered by layers: a body's layer is its fewest contacts to a fixed or
//! kinematic body. Sweeps go from the bottom layer up and from the top down in turn: upwards,
//! what holds the pile reaches its top in one sweep; downwards, the weight of a heavy top
//! reaches the ground in one sweep. An earlier version ended with a shock pass (each layer's
//! contacts with the one below solved with the lower body held still, pushing only); at
//! 801 bodies it kept pushing bodies that the sweeps had nearly stopped, and the edges of a
//! wall tilted and climbed by centimetres, where converged sweeps hold every body within a
//! millimetre or two.

use crate::index::NONE;
use crate::solver::direct_point::{dot3, Point};

/// Most sweeps per solve. A load just laid on a pile needs more while the warm start builds up
/// (a 4000 kg slab on a wall of 800 boxes of 1 kg, over its first 100 steps), and what one solve
/// leaves undone the next one's warm start carries on: with over-relaxation the slab settles
/// 3.7 mm low, where 64 sweeps left it 2.4 mm low with half as many sweeps again.
const MAX_SWEEPS: usize = 40;

/// Over-relaxation of the normal rows: each takes `OMEGA` times the plain Gauss-Seidel step
/// (then clamped at zero). A heavy load spreads through a pile like heat, one body a sweep,
/// and over-relaxing carries it further each sweep. Projected over-relaxation of the normal
/// rows alone converges for factors below 2; friction bounded by the normal impulse couples
/// the rows, and over-relaxing it too flung the slab's wall of 800 boxes apart at 1.4, so the
/// friction rows take plain steps. On that wall 1.3 leaves the slab 3.7 mm low (plain sweeps,
/// up to 64 a solve: 4.1 mm, with twice the sweeps); 1.5 holds it 3.3 mm low but needs three
/// and a half times the instructions of 1.3, and 1.7 lets it sink 1 cm.
const OMEGA: f64 = 1.3;

/// Fewest sweeps per solve: one in each direction.
const MIN_SWEEPS: usize = 2;

/// The sweeps stop once no row's velocity changed by more than this (m/s) in a sweep: a contact
/// still closing this fast would take 10 s to close by 1 mm.
const TOLERANCE: f64 = 1e-4;

/// One row of a point: its Jacobian and `M^-1 J^T` per body, both zero for a body the island
/// does not move.
#[derive(Clone, Copy, Default)]
struct Row {
    j: [[f64; 3]; 2],
    m_j: [[f64; 3]; 2],
}

/// One row of a point as a sweep reads it: per component of the velocity (linear x, linear y,
/// angular) the Jacobian and `M^-1 J^T` of both bodies side by side, so that one operation
/// does a component for both bodies.
#[derive(Clone, Copy, Default)]
struct PairedRow {
    j: [[f64; 2]; 3],
    m_j: [[f64; 2]; 3],
}

impl PairedRow {
    fn new(row: &Row) -> PairedRow {
        let pair = |m: &[[f64; 3]; 2]| [0, 1, 2].map(|k| [m[0][k], m[1][k]]);
        PairedRow {
            j: pair(&row.j),
            m_j: pair(&row.m_j),
        }
    }

    /// Velocity along the row of the two bodies at `u` (their velocities side by side).
    fn velocity(&self, u: &Pair) -> f64 {
        let side =
            |s: usize| self.j[0][s] * u[0][s] + self.j[1][s] * u[1][s] + self.j[2][s] * u[2][s];
        side(0) + side(1)
    }

    /// Adds `M^-1 J^T impulse` to the two bodies' velocities `u`.
    fn apply(&self, u: &mut Pair, impulse: f64) {
        for (u, m_j) in u.iter_mut().zip(&self.m_j) {
            u[0] += m_j[0] * impulse;
            u[1] += m_j[1] * impulse;
        }
    }
}

/// Two bodies' velocities side by side: per component, body A's and body B's.
type Pair = [[f64; 2]; 3];

/// What a sweep reads of one point, together: its bodies' places in the island's velocities
/// (a body the island does not move at the spare place past them, whose velocity stays zero),
/// its normal and friction rows, their inverse effective masses, and its friction coefficient.
#[derive(Clone, Copy)]
struct Rows {
    bodies: [u32; 2],
    rows: [PairedRow; 2],
    mass: [f64; 2],
    friction: f64,
}

/// One large island's row order and impulses, kept from substep to substep.
#[derive(Clone, Default)]
pub(crate) struct Layered {
    /// Per island body: its layer (1 for bodies touching a fixed or kinematic body).
    layer: Vec<u32>,
    /// The points in sweep order, bottom layer first (by the higher layer of their two
    /// bodies), then in point order; and per point its place in that order.
    order: Vec<u32>,
    place: Vec<u32>,
    /// In sweep order: the points' rows, the part of their normal and friction rows' velocity
    /// error that the island's bodies do not move (bodies outside it, the push out of overlap,
    /// the tangent speed), and their accumulated normal and friction impulses.
    rows: Vec<Rows>,
    b: Vec<[f64; 2]>,
    x: Vec<[f64; 2]>,
    /// The island's velocities during a solve, and one more that stays zero: a sweep then
    /// treats every point as moving two bodies, without a branch per side.
    v: Vec<[f64; 3]>,
}

impl Layered {
    /// Numbers the layers of the island's `bodies` bodies and orders `points` by them, with
    /// the impulses of each point from its contact.
    pub fn load(&mut self, points: &[Point], bodies: usize) {
        self.number_layers(points, bodies);
        let level = |p: &Point, layer: &[u32]| {
            p.local
                .iter()
                .filter(|&&k| k != NONE)
                .map(|&k| layer[k as usize])
                .max()
                .unwrap_or(0)
        };
        let order = &mut self.order;
        order.clear();
        order.extend(0..points.len() as u32);
        let layer = &self.layer;
        order.sort_by_key(|&i| (level(&points[i as usize], layer), i));
        self.place.clear();
        self.place.resize(points.len(), 0);
        self.rows.clear();
        self.x.clear();
        let spare = bodies as u32;
        for (at, &i) in self.order.iter().enumerate() {
            let p = &points[i as usize];
            self.place[i as usize] = at as u32;
            let moved = p.local.map(|k| k != NONE);
            let row = |j: &[[f64; 3]; 2]| {
                let j = [0, 1].map(|side| if moved[side] { j[side] } else { [0.0; 3] });
                Row {
                    j,
                    m_j: [0, 1].map(|side| mul3(&p.inv_mass[side], &j[side])),
                }
            };
            let rows = [row(&p.normal_row), row(&p.friction_row)];
            self.rows.push(Rows {
                bodies: p.local.map(|k| if k == NONE { spare } else { k }),
                rows: rows.map(|r| PairedRow::new(&r)),
                mass: rows.map(|r| effective_mass(p.local, &r)),
                friction: p.friction as f64,
            });
            self.x
                .push([p.normal_impulse as f64, p.tangent_impulse as f64]);
        }
        self.b.clear();
        self.b.resize(points.len(), [0.0; 2]);
    }

    /// Sets the part of point `i`'s normal and friction rows' velocity error that the island's
    /// bodies do not move.
    pub fn set_b(&mut self, i: usize, b: [f64; 2]) {
        self.b[self.place[i] as usize] = b;
    }

    /// Point `i`'s accumulated normal and friction impulses.
    pub fn x(&self, i: usize) -> [f64; 2] {
        self.x[self.place[i] as usize]
    }

    /// Layer of every body: 1 next to a body the island does not move, else one more than its
    /// lowest neighbour. Relaxed over the points until nothing changes: as many rounds as the
    /// pile has layers. A body that reaches none keeps `u32::MAX`.
    fn number_layers(&mut self, points: &[Point], bodies: usize) {
        self.layer.clear();
        self.layer.resize(bodies, u32::MAX);
        for p in points {
            if let [k, NONE] | [NONE, k] = p.local {
                if k != NONE {
                    self.layer[k as usize] = 1;
                }
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for p in points {
                let [a, b] = p.local;
                if a == NONE || b == NONE {
                    continue;
                }
                let (la, lb) = (self.layer[a as usize], self.layer[b as usize]);
                if la != u32::MAX && la + 1 < lb {
                    self.layer[b as usize] = la + 1;
                    changed = true;
                } else if lb != u32::MAX && lb + 1 < la {
                    self.layer[a as usize] = lb + 1;
                    changed = true;
                }
            }
        }
    }

    /// Applies the accumulated impulses to `v` (the velocities before the contact solve),
    /// then sweeps every row, from the bottom layer up and from the top down in turn, until
    /// the sweeps converge.
    pub fn solve(&mut self, v: &mut [[f64; 3]]) {
        self.v.clear();
        self.v.extend_from_slice(v);
        self.v.push([0.0; 3]);
        let v_all = &mut self.v[..];
        for (p, x) in self.rows.iter().zip(&self.x) {
            apply(v_all, p.bodies, &p.rows[0], x[0]);
            apply(v_all, p.bodies, &p.rows[1], x[1]);
        }
        for sweep in 0..MAX_SWEEPS {
            let points = self.rows.iter().zip(&self.b).zip(self.x.iter_mut());
            let change = if sweep % 2 == 0 {
                sweep_points(points, v_all)
            } else {
                sweep_points(points.rev(), v_all)
            };
            if change < TOLERANCE && sweep + 1 >= MIN_SWEEPS {
                break;
            }
        }
        v.copy_from_slice(&self.v[..v.len()]);
    }
}

/// One sweep over `points` (each with its rows, `b` and impulses) in their order: the largest
/// velocity change of any row.
fn sweep_points<'a>(
    points: impl Iterator<Item = ((&'a Rows, &'a [f64; 2]), &'a mut [f64; 2])>,
    v: &mut [[f64; 3]],
) -> f64 {
    let mut change = 0.0f64;
    for ((p, b), x) in points {
        let [ka, kb] = p.bodies.map(|k| k as usize);
        let (va, vb) = (v[ka], v[kb]);
        let mut u: Pair = [0, 1, 2].map(|k| [va[k], vb[k]]);
        let (rows, mass) = (&p.rows, p.mass);
        if mass[0] > 0.0 {
            let w = rows[0].velocity(&u) + b[0];
            let normal = at_least(x[0] - OMEGA * w / mass[0], 0.0);
            let d = normal - x[0];
            change = at_least(change, d.abs() * mass[0]);
            rows[0].apply(&mut u, d);
            x[0] = normal;
        }
        if mass[1] > 0.0 {
            let w = rows[1].velocity(&u) + b[1];
            let limit = p.friction * x[0];
            let tangent = at_least(at_most(x[1] - w / mass[1], limit), -limit);
            let d = tangent - x[1];
            change = at_least(change, d.abs() * mass[1]);
            rows[1].apply(&mut u, d);
            x[1] = tangent;
        }
        v[ka] = u.map(|c| c[0]);
        v[kb] = u.map(|c| c[1]);
    }
    change
}

/// `a`, or `b` if `a` is smaller (or not a number): one instruction, where `f64::max` must
/// choose the number among a NaN.
fn at_least(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// `a`, or `b` if `a` is larger (or not a number).
fn at_most(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// `J M^-1 J^T` of one row through the bodies the island moves.
fn effective_mass(bodies: [u32; 2], row: &Row) -> f64 {
    (0..2)
        .filter(|&side| bodies[side] != NONE)
        .map(|side| dot3(&row.j[side], &row.m_j[side]))
        .sum()
}

/// Adds `M^-1 J^T impulse` of one row to the island velocities.
fn apply(v: &mut [[f64; 3]], bodies: [u32; 2], row: &PairedRow, impulse: f64) {
    for (side, &body) in bodies.iter().enumerate() {
        for (v, m_j) in v[body as usize].iter_mut().zip(&row.m_j) {
            *v += m_j[side] * impulse;
        }
    }
}

fn mul3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}
