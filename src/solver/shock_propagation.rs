//! The direct solve of islands too large to solve exactly: sequential impulses over the
//! island's rows, then shock propagation.
//!
//! Gauss-Seidel needs passes in proportion to the mass ratio to carry a heavy load down
//! through light bodies (see `direct_islands`), and a soft contact between light bodies is a
//! spring too weak for a heavy load: a 4000 kg slab on a wall of 1 kg boxes crushes it. The
//! exact solve holds such loads, but its cost grows with the width of the pile (see `lcp`).
//! So a large island gets rigid Gauss-Seidel sweeps over all its rows, warm started from the
//! last impulses (which, over the steps of a resting pile, carry on converging towards the
//! exact ones), and then one pass that makes every body stop approaching what holds it up.
//!
//! The pass numbers each body's layer: its fewest contacts to a fixed or kinematic body.
//! Bottom layer first, each body's contacts with the layer below are solved with the lower
//! body held still: the body alone takes the impulse, so the layer below (already final)
//! is never pushed into the one under it, and a heavy body is stopped by light ones as by the
//! ground. Contacts within one layer (boxes side by side) are left to the sweeps. The pass
//! only pushes: it stops approach and pushes overlap out at the contacts' own rate, so it
//! never flings a body; its impulses are not kept, so the warm start stays the sweeps' own.
//! It is not exact (momentum goes into the upper bodies only), but a resting pile stands, and
//! as the sweeps converge the pass has less and less to do.

use crate::index::NONE;
use crate::solver::direct_point::{apply, coupling, dot3, Point};

/// Gauss-Seidel sweeps over the island's rows per solve.
const SWEEPS: usize = 16;

/// Sweeps over one layer's contacts with the layer below in the shock pass: a body held by
/// several contacts (a slab on a row of boxes) needs a few for them to share its load.
const SHOCK_SWEEPS: usize = 8;

/// A side of a point: no side is the upper one (both bodies in one layer).
const LEVEL: u8 = 2;

/// One large island's layers and impulses, kept from substep to substep.
#[derive(Clone, Default)]
pub(crate) struct Layered {
    /// Per island body: its layer (1 for bodies touching a fixed or kinematic body).
    layer: Vec<u32>,
    /// The points, bottom layer first (by the higher layer of their two bodies), then in
    /// point order; `ends[k]` ends layer group `k` in `order`.
    order: Vec<u32>,
    ends: Vec<usize>,
    /// Per point: the side of its upper body, or [`LEVEL`].
    upper: Vec<u8>,
    /// Per point: inverse effective masses of the normal and friction rows through both bodies,
    /// and through the upper body alone.
    mass: Vec<[f64; 4]>,
    /// Per point: the part of the normal and friction rows' velocity error that the island's
    /// bodies do not move (bodies outside it, the push out of overlap, the tangent speed).
    pub b: Vec<[f64; 2]>,
    /// Per point: accumulated normal and friction impulses.
    pub x: Vec<[f64; 2]>,
    /// Per point: the shock pass's normal and friction impulses.
    shock: Vec<[f64; 2]>,
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
        self.ends.clear();
        for k in 1..=self.order.len() {
            let end = k == self.order.len()
                || level(&points[self.order[k] as usize], layer)
                    != level(&points[self.order[k - 1] as usize], layer);
            if end {
                self.ends.push(k);
            }
        }
        self.upper.clear();
        self.mass.clear();
        self.x.clear();
        for p in points {
            let [a, b] = p.local.map(|k| match k {
                NONE => 0,
                k => layer[k as usize],
            });
            let upper = match (a, b) {
                (a, b) if a > b => 0,
                (a, b) if b > a => 1,
                _ => LEVEL,
            };
            let alone = |row: &[[f64; 3]; 2]| match upper {
                LEVEL => 0.0,
                s => dot3(
                    &row[s as usize],
                    &mul3(&p.inv_mass[s as usize], &row[s as usize]),
                ),
            };
            self.upper.push(upper);
            self.mass.push([
                coupling(p, &p.normal_row, p, &p.normal_row),
                coupling(p, &p.friction_row, p, &p.friction_row),
                alone(&p.normal_row),
                alone(&p.friction_row),
            ]);
            self.x
                .push([p.normal_impulse as f64, p.tangent_impulse as f64]);
        }
        self.b.clear();
        self.b.resize(points.len(), [0.0; 2]);
        self.shock.clear();
        self.shock.resize(points.len(), [0.0; 2]);
    }

    /// Layer of every body: 1 next to a body the island does not move, else one more than its
    /// lowest neighbour. Relaxed over the points until nothing changes: as many rounds as the
    /// pile has layers. A body that reaches none keeps `u32::MAX` and is never anyone's upper.
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
    /// then sweeps every row, bottom layer first.
    pub fn sweep(&mut self, points: &[Point], v: &mut [[f64; 3]]) {
        for (p, x) in points.iter().zip(&self.x) {
            apply(v, p, &p.normal_row, x[0]);
            apply(v, p, &p.friction_row, x[1]);
        }
        for _ in 0..SWEEPS {
            for &i in &self.order {
                let i = i as usize;
                let (p, mass) = (&points[i], self.mass[i]);
                let w = row_velocity(v, p, &p.normal_row) + self.b[i][0];
                let x = &mut self.x[i];
                if mass[0] > 0.0 {
                    let normal = (x[0] - w / mass[0]).max(0.0);
                    apply(v, p, &p.normal_row, normal - x[0]);
                    x[0] = normal;
                }
                let w = row_velocity(v, p, &p.friction_row) + self.b[i][1];
                if mass[1] > 0.0 {
                    let limit = p.friction as f64 * x[0];
                    let tangent = (x[1] - w / mass[1]).clamp(-limit, limit);
                    apply(v, p, &p.friction_row, tangent - x[1]);
                    x[1] = tangent;
                }
            }
        }
    }

    /// The shock pass: layer after layer from the bottom, each point with the layer below
    /// stops its upper body's approach (and sliding, within Coulomb's bound on the point's
    /// whole normal impulse) with the lower body held still.
    pub fn propagate(&mut self, points: &[Point], v: &mut [[f64; 3]]) {
        self.shock.fill([0.0; 2]);
        let mut start = 0;
        for group in 0..self.ends.len() {
            let end = self.ends[group];
            for _ in 0..SHOCK_SWEEPS {
                for k in start..end {
                    self.shock_point(points, v, self.order[k] as usize);
                }
            }
            start = end;
        }
    }

    /// One point's rows in the shock pass.
    fn shock_point(&mut self, points: &[Point], v: &mut [[f64; 3]], i: usize) {
        let (p, mass, upper) = (&points[i], self.mass[i], self.upper[i]);
        if upper == LEVEL || mass[2] <= 0.0 {
            return;
        }
        let side = upper as usize;
        let (x, shock) = (self.x[i], &mut self.shock[i]);
        let w = row_velocity(v, p, &p.normal_row) + self.b[i][0];
        let normal = (shock[0] - w / mass[2]).max(0.0);
        apply_side(v, p, &p.normal_row, side, normal - shock[0]);
        shock[0] = normal;
        if mass[3] > 0.0 {
            let w = row_velocity(v, p, &p.friction_row) + self.b[i][1];
            let limit = (p.friction as f64 * (x[0] + shock[0])).max(0.0);
            let total = x[1] + shock[1];
            let tangent = (total - w / mass[3]).clamp(-limit, limit);
            apply_side(v, p, &p.friction_row, side, tangent - total);
            shock[1] += tangent - total;
        }
    }
}

/// Velocity along a row of the island's bodies at `v`.
fn row_velocity(v: &[[f64; 3]], p: &Point, row: &[[f64; 3]; 2]) -> f64 {
    (0..2)
        .filter(|&side| p.local[side] != NONE)
        .map(|side| dot3(&row[side], &v[p.local[side] as usize]))
        .sum()
}

/// Adds `M^-1 J^T impulse` of one row to the velocity of one side's body.
fn apply_side(v: &mut [[f64; 3]], p: &Point, row: &[[f64; 3]; 2], side: usize, impulse: f64) {
    let v = &mut v[p.local[side] as usize];
    for k in 0..3 {
        v[k] += p.inv_mass[side][k] * row[side][k] * impulse;
    }
}

fn mul3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2]]
}
