//! One contact point as the direct solver sees it: its Jacobian rows, the inverse masses
//! along them, and how rows of two points couple through the bodies they share.

use crate::index::{ContactIndex, NONE};

/// What the solve of one contact point needs, taken from the contact when the step begins.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Point {
    /// The contact and the index of the point in its manifold.
    pub contact: ContactIndex,
    pub index: usize,
    /// Solver states of the bodies (`NULL_BODY` for static ones) and their place in the
    /// island's body list (`NONE` for bodies the island does not move).
    pub state: [u32; 2],
    pub local: [u32; 2],
    /// Per body: inverse mass, inverse mass, inverse inertia (the diagonal of `M^-1`).
    pub inv_mass: [[f64; 3]; 2],
    /// Jacobian rows per body (linear x, linear y, angular) for the normal and the friction
    /// impulse: velocity along a row is `J[A] . v[A] + J[B] . v[B]`.
    pub normal_row: [[f64; 3]; 2],
    pub friction_row: [[f64; 3]; 2],
    pub normal: [f32; 2],
    /// Anchors in the contact frame, as the kernels keep them.
    pub cross: [f32; 2],
    pub dot: [f32; 2],
    /// Separation minus the anchors' offset along the normal (see the kernels' `prepare`).
    pub base_separation: f32,
    pub friction: f32,
    pub restitution: f32,
    /// The contact's tangent speed (see `Contact::tangent_speed`).
    pub tangent_speed: f32,
    pub bias_rate: f32,
    pub max_push: f32,
    pub normal_impulse: f32,
    pub tangent_impulse: f32,
    pub impact_impulse: f32,
}

/// Whether the island moves a body of both points: only then do their rows couple.
pub(crate) fn share_a_body(p: &Point, q: &Point) -> bool {
    p.local
        .iter()
        .any(|&body| body != NONE && q.local.contains(&body))
}

/// `A[i][j]` for row `ri` of point `p` and row `rj` of point `q`: the velocity change along
/// `ri` per unit impulse along `rj`, through every body the two rows share.
pub(crate) fn coupling(p: &Point, ri: &[[f64; 3]; 2], q: &Point, rj: &[[f64; 3]; 2]) -> f64 {
    let mut sum = 0.0;
    for ((row_i, m), &body) in ri.iter().zip(&p.inv_mass).zip(&p.local) {
        if body == NONE {
            continue;
        }
        for (row_j, _) in rj.iter().zip(&q.local).filter(|(_, &b)| b == body) {
            sum += row_i[0] * m[0] * row_j[0]
                + row_i[1] * m[1] * row_j[1]
                + row_i[2] * m[2] * row_j[2];
        }
    }
    sum
}

/// Adds `M^-1 J^T impulse` of one row to the island velocities.
pub(crate) fn apply(v: &mut [[f64; 3]], p: &Point, row: &[[f64; 3]; 2], impulse: f64) {
    for side in 0..2 {
        if p.local[side] != NONE {
            let v = &mut v[p.local[side] as usize];
            for k in 0..3 {
                v[k] += p.inv_mass[side][k] * row[side][k] * impulse;
            }
        }
    }
}

pub(crate) fn dot3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
