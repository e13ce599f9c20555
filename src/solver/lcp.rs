//! A small dense boxed linear complementarity problem: the direct solver's answer for islands
//! that Gauss-Seidel cannot converge.
//!
//! Find impulses `x` with `w = A x + b`, where each row is either
//! - a normal row: `x >= 0`, `w >= 0`, `x w = 0` (pushes only, and only while touching), or
//! - a friction row bounded by the impulse of its normal row `k`: `|x| <= mu x_k`, with
//!   `w = 0` inside the bounds, `w <= 0` at the upper one and `w >= 0` at the lower one.
//!
//! All rows are solved together by block principal pivoting with the friction bounds held
//! fixed: guess which rows sit at a bound, solve the others for `w = 0` (Gaussian elimination,
//! f64), move every row that breaks its conditions to the other side; when that stops reducing
//! the broken rows, move only the first (Murty's rule, which cannot cycle on a positive
//! definite matrix with fixed bounds). `A` is `J M^-1 J^T`, positive semidefinite; a tiny ridge
//! on its diagonal makes it definite and splits the load of redundant rows (the two friction
//! rows of one face, a box on two others) evenly. Mass ratios make `A` ill-conditioned, which
//! costs an exact solve nothing, while Gauss-Seidel needs passes in proportion to the ratio.
//!
//! The friction bounds come from the normal impulses in `x` on entry (the caller's previous
//! solve), then once more from those just found. Measured worse in 1:100 to 1:10000 columns:
//! bounds that move with the normal rows during pivoting (it wandered, and gave wild impulses),
//! normal and friction rows solved in turn (slow to agree: friction on a light body turns it,
//! which moves its normal rows), and friction by Gauss-Seidel sweeps (columns toppled).

/// What bounds one row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Row {
    /// `x >= 0`.
    Normal,
    /// `|x| <= mu * x[normal]`.
    Friction { normal: usize, mu: f64 },
}

/// Where a row is in the current guess.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    /// Solved so that `w = 0`.
    Free,
    /// Held at its lower bound (0 for a normal row).
    Lower,
    /// Held at its upper bound (friction rows only).
    Upper,
}

/// Ridge added to the diagonal, relative to its largest entry.
const RIDGE: f64 = 1e-9;

/// Solves per call: the first with friction bounds from the normal impulses on entry, each
/// next with bounds from the normal impulses the one before found.
const BOUND_UPDATES: usize = 2;

/// Velocity error (m/s) below which a row's condition counts as met.
const W_TOLERANCE: f64 = 1e-7;

/// A problem and its scratch, reused from solve to solve so that a warm solver allocates
/// nothing.
#[derive(Clone, Default)]
pub(crate) struct Lcp {
    n: usize,
    /// Row-major `n x n`.
    a: Vec<f64>,
    b: Vec<f64>,
    rows: Vec<Row>,
    /// The solution after [`Lcp::solve`].
    pub x: Vec<f64>,
    w: Vec<f64>,
    side: Vec<Side>,
    /// Bounds of each row in the current solve.
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The free rows.
    free: Vec<usize>,
    /// The reduced system of the free rows, augmented with its right-hand side.
    system: Vec<f64>,
    /// Largest impulse of the current guess, for rounding room.
    scale: f64,
}

impl Lcp {
    /// Starts a problem of `n` rows, all `A` and `b` entries zero and every row a normal row.
    pub fn reset(&mut self, n: usize) {
        self.n = n;
        self.a.clear();
        self.a.resize(n * n, 0.0);
        self.b.clear();
        self.b.resize(n, 0.0);
        self.rows.clear();
        self.rows.resize(n, Row::Normal);
        self.x.clear();
        self.x.resize(n, 0.0);
    }

    /// Sets `A[i][j]` and `A[j][i]`.
    pub fn set_a(&mut self, i: usize, j: usize, value: f64) {
        self.a[i * self.n + j] = value;
        self.a[j * self.n + i] = value;
    }

    /// Sets `b[i]`.
    pub fn set_b(&mut self, i: usize, value: f64) {
        self.b[i] = value;
    }

    /// Sets what bounds row `i`.
    pub fn set_row(&mut self, i: usize, row: Row) {
        self.rows[i] = row;
    }

    /// Solves for `x`. Friction bounds come from the normal impulses in `x` on entry (the
    /// last solve's, or an estimate the caller put there), then once more from the normal
    /// impulses just found. Returns false if the pivoting did not settle within its round
    /// limit; `x` is then the last guess, clamped into its bounds.
    pub fn solve(&mut self) -> bool {
        let n = self.n;
        for list in [&mut self.w, &mut self.lo, &mut self.hi] {
            list.clear();
            list.resize(n, 0.0);
        }
        let mut settled = true;
        for _ in 0..BOUND_UPDATES {
            for i in 0..n {
                (self.lo[i], self.hi[i]) = match self.rows[i] {
                    Row::Normal => (0.0, f64::INFINITY),
                    Row::Friction { normal, mu } => {
                        let limit = mu * self.x[normal].max(0.0);
                        (-limit, limit)
                    }
                };
            }
            settled = self.pivot();
        }
        // Rounding cannot make these non-finite for finite input; never hand such on.
        if !self.x.iter().all(|x| x.is_finite()) {
            self.x.fill(0.0);
            return false;
        }
        settled
    }

    /// Solves the problem with the current bounds by block principal pivoting, from all rows
    /// free.
    fn pivot(&mut self) -> bool {
        let n = self.n;
        self.side.clear();
        self.side.resize(n, Side::Free);
        let mut fewest = usize::MAX;
        let mut stalled = 0;
        for _ in 0..4 * n + 16 {
            self.solve_guess();
            let broken = (0..n).filter(|&i| self.is_broken(i)).count();
            if broken == 0 {
                return true;
            }
            if broken < fewest {
                fewest = broken;
                stalled = 0;
            } else {
                stalled += 1;
            }
            // Move every broken row while that makes progress, else only the first.
            let limit = if stalled < 3 { usize::MAX } else { 1 };
            self.flip_broken(limit);
        }
        for i in 0..n {
            self.x[i] = self.x[i].clamp(self.lo[i], self.hi[i]);
        }
        false
    }

    /// Solves the free rows for `w = 0` with the held rows at their bounds, then computes `w`.
    fn solve_guess(&mut self) {
        let n = self.n;
        self.free.clear();
        for i in 0..n {
            match self.side[i] {
                Side::Free => {
                    self.free.push(i);
                    self.x[i] = 0.0;
                }
                Side::Lower => self.x[i] = self.lo[i],
                Side::Upper => self.x[i] = self.hi[i],
            }
        }
        let m = self.free.len();
        let max_diag = (0..n).map(|i| self.a[i * n + i]).fold(0.0f64, f64::max);
        let ridge = RIDGE * max_diag.max(f64::MIN_POSITIVE);
        self.system.clear();
        self.system.resize(m * (m + 1), 0.0);
        for (r, &i) in self.free.iter().enumerate() {
            let a = &self.a[i * n..(i + 1) * n];
            let row = &mut self.system[r * (m + 1)..(r + 1) * (m + 1)];
            for (c, &j) in self.free.iter().enumerate() {
                row[c] = a[j];
            }
            row[r] += ridge;
            // The free rows' x are zero here: this is the held rows' part of w.
            let held: f64 = a.iter().zip(&self.x).map(|(a, x)| a * x).sum();
            row[m] = -(self.b[i] + held);
        }
        gauss_solve(&mut self.system, m);
        for (r, &i) in self.free.iter().enumerate() {
            self.x[i] = self.system[r * (m + 1) + m];
        }
        for i in 0..n {
            let a = &self.a[i * n..(i + 1) * n];
            self.w[i] = a.iter().zip(&self.x).map(|(a, x)| a * x).sum::<f64>() + self.b[i];
        }
        self.scale = self.x.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    }

    /// Whether row `i` breaks its conditions in the current guess.
    fn is_broken(&self, i: usize) -> bool {
        let (lo, hi, x, w) = (self.lo[i], self.hi[i], self.x[i], self.w[i]);
        // Rounding room, relative to the impulses involved.
        let slack = 1e-9 * (x.abs() + self.scale);
        match self.side[i] {
            Side::Free => x < lo - slack || x > hi + slack,
            // A friction row whose normal row did not push has no room: held at 0, any `w`
            // meets its conditions.
            Side::Lower | Side::Upper if hi <= lo => false,
            Side::Lower => w < -W_TOLERANCE,
            Side::Upper => w > W_TOLERANCE,
        }
    }

    /// Moves up to `limit` broken rows, in row order, to the other side. (Flipping a row
    /// changes no `x` or `w`, so the rows after it are judged as before.)
    fn flip_broken(&mut self, limit: usize) {
        let mut flipped = 0;
        for i in 0..self.n {
            if flipped == limit {
                break;
            }
            if self.is_broken(i) {
                self.side[i] = match self.side[i] {
                    Side::Free if self.x[i] < self.lo[i] => Side::Lower,
                    Side::Free => Side::Upper,
                    _ => Side::Free,
                };
                flipped += 1;
            }
        }
    }
}

/// Solves the `m x m` system whose augmented rows `[M | y]` (row-major, `m + 1` wide) are in
/// `aug`, by Gaussian elimination with partial pivoting; the solution replaces the last
/// column. A pivot that vanishes (a row the ridge could not rescue) gives 0 for its unknown.
fn gauss_solve(aug: &mut [f64], m: usize) {
    let w = m + 1;
    for col in 0..m {
        let pivot = (col..m)
            .max_by(|&r, &s| aug[r * w + col].abs().total_cmp(&aug[s * w + col].abs()))
            .unwrap_or(col);
        if pivot != col {
            for k in 0..w {
                aug.swap(col * w + k, pivot * w + k);
            }
        }
        let p = aug[col * w + col];
        if p == 0.0 {
            continue;
        }
        for r in col + 1..m {
            let f = aug[r * w + col] / p;
            if f != 0.0 {
                for k in col..w {
                    aug[r * w + k] -= f * aug[col * w + k];
                }
            }
        }
    }
    for r in (0..m).rev() {
        let mut s = aug[r * w + m];
        for k in r + 1..m {
            s -= aug[r * w + k] * aug[k * w + m];
        }
        let p = aug[r * w + r];
        aug[r * w + m] = if p == 0.0 { 0.0 } else { s / p };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random problem `A = J J^T`, `b = J v` from a seed: `rows` rows over `dofs` unknowns,
    /// every third row a friction row of the row before it. Rows past `dofs` repeat earlier
    /// rows, as the friction rows of one face do: `A` is then singular.
    fn random_problem(seed: u64, rows: usize, dofs: usize) -> Lcp {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 2001) as f64 / 1000.0 - 1.0
        };
        let mut j: Vec<f64> = (0..rows * dofs).map(|_| next()).collect();
        for r in dofs..rows {
            j.copy_within((r - dofs) * dofs..(r - dofs + 1) * dofs, r * dofs);
        }
        let v: Vec<f64> = (0..dofs).map(|_| 2.0 * next()).collect();
        let mut lcp = Lcp::default();
        lcp.reset(rows);
        for r in 0..rows {
            let jr = &j[r * dofs..(r + 1) * dofs];
            for c in 0..=r {
                let dot: f64 = (0..dofs).map(|k| jr[k] * j[c * dofs + k]).sum();
                lcp.set_a(r, c, dot);
            }
            lcp.set_b(r, jr.iter().zip(&v).map(|(a, b)| a * b).sum());
            if r % 3 == 2 {
                lcp.set_row(
                    r,
                    Row::Friction {
                        normal: r - 1,
                        mu: 0.5 + 0.5 * next().abs(),
                    },
                );
            }
        }
        lcp
    }

    /// Checks every row's complementarity conditions on the solution, each friction row
    /// within the bounds its last pivoting used.
    fn assert_complementary(lcp: &Lcp, seed: u64) {
        let n = lcp.n;
        for i in 0..n {
            let w: f64 = (0..n).map(|j| lcp.a[i * n + j] * lcp.x[j]).sum::<f64>() + lcp.b[i];
            let x = lcp.x[i];
            match lcp.rows[i] {
                Row::Normal => {
                    assert!(x >= 0.0, "seed {seed} row {i}: x {x}");
                    assert!(w >= -1e-6, "seed {seed} row {i}: w {w}");
                    assert!(x * w.abs() < 1e-6, "seed {seed} row {i}: x {x} w {w}");
                }
                Row::Friction { .. } => {
                    let limit = lcp.hi[i];
                    assert!(
                        x.abs() <= limit + 1e-9,
                        "seed {seed} row {i}: |{x}| > {limit}"
                    );
                    if x < limit - 1e-6 && x > -limit + 1e-6 {
                        assert!(w.abs() < 1e-6, "seed {seed} row {i}: inside, w {w}");
                    } else if x >= limit - 1e-6 && limit > 1e-6 {
                        assert!(w <= 1e-6, "seed {seed} row {i}: at upper, w {w}");
                    } else if limit > 1e-6 {
                        assert!(w >= -1e-6, "seed {seed} row {i}: at lower, w {w}");
                    }
                }
            }
        }
    }

    /// Every random problem settles and meets its conditions, also when solved again from its
    /// own answer, as the direct solver does substep after substep. (How fast the friction
    /// bounds catch up with the normal impulses is not asserted here: on these strongly
    /// coupled random rows it varies from 1e-12 to 1e-3 after twelve solves; the physics tests
    /// check friction against Coulomb's law instead.)
    #[test]
    fn solutions_meet_every_rows_complementarity_conditions() {
        for seed in 0..300u64 {
            // More rows than unknowns makes A singular, as redundant contacts do.
            let (rows, dofs) = [(3, 6), (9, 12), (12, 9), (24, 18)][seed as usize % 4];
            let mut lcp = random_problem(seed, rows, dofs);
            for _ in 0..2 {
                assert!(lcp.solve(), "seed {seed}: the pivoting did not settle");
                assert_complementary(&lcp, seed);
            }
        }
    }

    #[test]
    fn a_one_to_a_thousand_column_is_solved_exactly() {
        // Ground, five 1 kg bodies and a 1000 kg body in a vertical chain: row i is the contact
        // below body i. After gravity each body moves down at 1 m/s; the rows must stop all.
        let inv_mass = [1.0, 1.0, 1.0, 1.0, 1.0, 0.001];
        let mut lcp = Lcp::default();
        lcp.reset(6);
        for i in 0..6 {
            let below = if i == 0 { 0.0 } else { inv_mass[i - 1] };
            lcp.set_a(i, i, below + inv_mass[i]);
            if i > 0 {
                lcp.set_a(i, i - 1, -inv_mass[i - 1]);
            }
        }
        lcp.set_b(0, -1.0);
        assert!(lcp.solve());
        // Each contact carries the momentum of everything above it: 1000 + 5 - i kg * 1 m/s.
        for i in 0..6 {
            let carried = 1000.0 + (5 - i) as f64;
            assert!(
                (lcp.x[i] - carried).abs() < 1e-4 * carried,
                "row {i}: {} against {carried}",
                lcp.x[i]
            );
        }
    }
}
