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
/// (a 4000 kg slab on a wall of 800 boxes of 1 kg, over its first 150 steps), and what one solve
/// leaves undone the next one's warm start carries on: the slab settles 4 mm low, where 256
/// sweeps left it 1 mm low with twice the sweeps.
const MAX_SWEEPS: usize = 64;

/// Fewest sweeps per solve: one in each direction.
const MIN_SWEEPS: usize = 2;

/// The sweeps stop once no row's velocity changed by more than this (m/s) in a sweep: a contact
/// still closing this fast would take 10 s to close by 1 mm.
const TOLERANCE: f64 = 1e-4;

/// One row of a point: its Jacobian and `M^-1 J^T` per body.
#[derive(Clone, Copy, Default)]
struct Row {
    j: [[f64; 3]; 2],
    m_j: [[f64; 3]; 2],
}

/// What a sweep reads of one point, together: its bodies' places in the island (`NONE` for
/// bodies it does not move), its normal and friction rows, their inverse effective masses, and
/// its friction coefficient.
#[derive(Clone, Copy)]
struct Rows {
    bodies: [u32; 2],
    rows: [Row; 2],
    mass: [f64; 2],
    friction: f64,
}

/// One large island's row order and impulses, kept from substep to substep.
#[derive(Clone, Default)]
pub(crate) struct Layered {
    /// Per island body: its layer (1 for bodies touching a fixed or kinematic body).
    layer: Vec<u32>,
    /// The points, bottom layer first (by the higher layer of their two bodies), then in
    /// point order.
    order: Vec<u32>,
    /// Per point: its rows.
    rows: Vec<Rows>,
    /// Per point: the part of the normal and friction rows' velocity error that the island's
    /// bodies do not move (bodies outside it, the push out of overlap, the tangent speed).
    pub b: Vec<[f64; 2]>,
    /// Per point: accumulated normal and friction impulses.
    pub x: Vec<[f64; 2]>,
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
        self.order.clear();
        self.order.extend(0..points.len() as u32);
        let layer = &self.layer;
        self.order
            .sort_by_key(|&i| (level(&points[i as usize], layer), i));
        self.rows.clear();
        self.x.clear();
        for p in points {
            let row = |j: &[[f64; 3]; 2]| Row {
                j: *j,
                m_j: [0, 1].map(|side| mul3(&p.inv_mass[side], &j[side])),
            };
            let rows = [row(&p.normal_row), row(&p.friction_row)];
            self.rows.push(Rows {
                bodies: p.local,
                rows,
                mass: rows.map(|r| effective_mass(p.local, &r)),
                friction: p.friction as f64,
            });
            self.x
                .push([p.normal_impulse as f64, p.tangent_impulse as f64]);
        }
        self.b.clear();
        self.b.resize(points.len(), [0.0; 2]);
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
        for (p, x) in self.rows.iter().zip(&self.x) {
            apply(v, p.bodies, &p.rows[0], x[0]);
            apply(v, p.bodies, &p.rows[1], x[1]);
        }
        // Taken out while the sweeps borrow the rest, then put back.
        let order = std::mem::take(&mut self.order);
        for sweep in 0..MAX_SWEEPS {
            let change = if sweep % 2 == 0 {
                self.sweep(order.iter(), v)
            } else {
                self.sweep(order.iter().rev(), v)
            };
            if change < TOLERANCE && sweep + 1 >= MIN_SWEEPS {
                break;
            }
        }
        self.order = order;
    }

    /// One sweep over the points in `order`: the largest velocity change of any row.
    fn sweep<'a>(&mut self, order: impl Iterator<Item = &'a u32>, v: &mut [[f64; 3]]) -> f64 {
        let mut change = 0.0f64;
        for &i in order {
            let i = i as usize;
            let (p, b, x) = (&self.rows[i], self.b[i], &mut self.x[i]);
            let (bodies, rows, mass) = (p.bodies, &p.rows, p.mass);
            if mass[0] > 0.0 {
                let w = row_velocity(v, bodies, &rows[0]) + b[0];
                let normal = (x[0] - w / mass[0]).max(0.0);
                change = change.max((normal - x[0]).abs() * mass[0]);
                apply(v, bodies, &rows[0], normal - x[0]);
                x[0] = normal;
            }
            if mass[1] > 0.0 {
                let w = row_velocity(v, bodies, &rows[1]) + b[1];
                let limit = p.friction * x[0];
                let tangent = (x[1] - w / mass[1]).clamp(-limit, limit);
                change = change.max((tangent - x[1]).abs() * mass[1]);
                apply(v, bodies, &rows[1], tangent - x[1]);
                x[1] = tangent;
            }
        }
        change
    }
}

/// `J M^-1 J^T` of one row through the bodies the island moves.
fn effective_mass(bodies: [u32; 2], row: &Row) -> f64 {
    (0..2)
        .filter(|&side| bodies[side] != NONE)
        .map(|side| dot3(&row.j[side], &row.m_j[side]))
        .sum()
}

/// Velocity along a row of the island's bodies at `v`.
fn row_velocity(v: &[[f64; 3]], bodies: [u32; 2], row: &Row) -> f64 {
    let side = |side: usize| dot3(&row.j[side], &v[bodies[side] as usize]);
    match bodies.map(|b| b != NONE) {
        [true, true] => side(0) + side(1),
        [true, false] => side(0),
        [false, true] => side(1),
        [false, false] => 0.0,
    }
}

/// Adds `M^-1 J^T impulse` of one row to the island velocities.
fn apply(v: &mut [[f64; 3]], bodies: [u32; 2], row: &Row, impulse: f64) {
    for side in 0..2 {
        if bodies[side] != NONE {
            let v = &mut v[bodies[side] as usize];
            for (v, m_j) in v.iter_mut().zip(&row.m_j[side]) {
                *v += m_j * impulse;
            }
        }
    }
}

fn mul3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}
