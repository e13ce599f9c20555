//! A boxed linear complementarity problem over a sparse matrix: the direct solver's answer for
//! islands that Gauss-Seidel cannot converge.
//!
//! Find impulses `x` with `w = A x + b`, where each row is either
//! - a normal row: `x >= 0`, `w >= 0`, `x w = 0` (pushes only, and only while touching), or
//! - a friction row bounded by the impulse of its normal row `k`: `|x| <= mu x_k`, with
//!   `w = 0` inside the bounds, `w <= 0` at the upper one and `w >= 0` at the lower one.
//!
//! All rows are solved together by block principal pivoting with the friction bounds held
//! fixed: guess which rows sit at a bound, solve the others for `w = 0`, move every row that
//! breaks its conditions to the other side; when that stops reducing the broken rows, move only
//! the first (Murty's rule, which cannot cycle on a positive definite matrix with fixed bounds;
//! rounding on nearly redundant rows can, so a solve that stops reducing its broken rows for
//! long gives up).
//! `A` is `J M^-1 J^T`, positive semidefinite, and singular wherever rows are redundant (the
//! two friction rows of one face; two columns of boxes side by side, each face two points):
//! such rows have a continuum of answers. Pivoting on `A`, or on `A` plus a ridge too small to
//! change the answer, stalls there, as rows whose `w` is within rounding of zero flip back and
//! forth: a 1000 kg slab on two columns of fourteen 1 kg boxes never settled, and the relax it
//! fell back to let the slab fall. So a solve is a few proximal steps (the proximal point
//! method): step `k + 1` solves the problem with `A + rho` and `b - rho x_k`, `x_k` the
//! answer of step `k` (the impulses on entry for the first) and `rho` a small multiple of
//! each row's diagonal entry. That matrix is definite and well conditioned, so the pivoting
//! settles; each step's answer meets the conditions of the problem itself but for a velocity
//! error `rho (x - x_k)`, which shrinks from step to step, and the steps stop once it is below
//! the tolerance. Of the many answers of redundant rows this reaches one near the impulses on
//! entry, so a load does not jump between the points of a face from substep to substep. Mass
//! ratios make `A` ill-conditioned, which costs an exact solve nothing, while Gauss-Seidel
//! needs passes in proportion to the ratio.
//!
//! `A` is sparse: two rows couple only if their contacts share a dynamic body. The free rows'
//! system is factored as `L D L^T` (f64, no pivoting: the proximal term makes it positive definite)
//! in its envelope, the entries of each row from its first nonzero to the diagonal, which is
//! where the factor fills in. The rows are numbered in reverse Cuthill-McKee order, found once
//! per problem, which keeps that envelope narrow along the load paths of columns, stacks and
//! piles: a column of boxes factors in time linear in its height, where the dense elimination
//! grew with its cube.
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

/// Weight of each row's proximal term, relative to its diagonal entry of `A`: large enough
/// that redundant rows settle, small enough that each step removes most of the error the term
/// leaves (a 1000 kg slab on two columns of fourteen boxes settles in two steps once at rest).
const PROXIMAL: f64 = 1e-4;

/// Factor by which each proximal step's term shrinks from the step before's, down to
/// [`PROXIMAL_FLOOR`] of the first's: the first steps find which rows are held, where a large
/// term helps; the later ones mostly keep them, and a smaller term removes more of the error
/// per step along directions that `A` barely moves.
const PROXIMAL_SHRINK: f64 = 0.1;
const PROXIMAL_FLOOR: f64 = 1e-3;

/// Most proximal steps per solve. A solve that reaches it without meeting the tolerance keeps
/// its last step's answer: within every bound, and an answer but for the velocity error of
/// its proximal term, smaller than the step before's.
const PROXIMAL_STEPS: usize = 16;

/// Fewest proximal steps per solve: the first with friction bounds from the normal impulses
/// on entry, the next with bounds from the normal impulses the first found.
const BOUND_UPDATES: usize = 2;

/// Rounds of pivoting without fewer broken rows after which a solve gives up. A pile's
/// redundant rows (boxes side by side) can keep rows within rounding of their conditions
/// flipping for as long as the rounds allow; the solves that settle, in columns and piles
/// alike, get there with far fewer stalled rounds.
const STALLED_ROUNDS: usize = 64;

/// Projected Gauss-Seidel sweeps of a solve that did not settle.
const RELAX_SWEEPS: usize = 32;

/// Velocity error (m/s) below which a row's condition counts as met.
const W_TOLERANCE: f64 = 1e-7;

/// A problem and its scratch, reused from solve to solve so that a warm solver allocates
/// nothing.
#[derive(Clone, Default)]
pub(crate) struct Lcp {
    n: usize,
    /// `A`'s entries `(row, column, value)` as set, both triangles; sorted into `start` and
    /// `by_row` (rows of `A`, columns ascending) when the problem is first solved.
    entries: Vec<(u32, u32, f64)>,
    built: bool,
    /// The entries `(column, value)` sorted into rows: row `i`'s are
    /// `by_row[start[i]..start[i + 1]]`; and per row where its next one goes while sorting.
    by_row: Vec<(u32, f64)>,
    fill: Vec<usize>,
    start: Vec<usize>,
    /// The columns of `by_row` alone, for the passes that read no value.
    column: Vec<u32>,
    /// `order[k]` is the row numbered `k` in reverse Cuthill-McKee order.
    order: Vec<u32>,
    b: Vec<f64>,
    rows: Vec<Row>,
    /// The solution after [`Lcp::solve`].
    pub x: Vec<f64>,
    /// Per held row its velocity error `w` in the current guess (a free row's is zero up to
    /// rounding, and not kept); between the steps of [`Lcp::solve_guess`], `A x`.
    w: Vec<f64>,
    side: Vec<Side>,
    /// Bounds of each row in the current solve.
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// `x` on entry to the current solve.
    entry: Vec<f64>,
    /// The free rows, in `order`, and per row its place among them (`u32::MAX` if held).
    free: Vec<u32>,
    place: Vec<u32>,
    /// The free rows' system: per free row `k`, the first column of its envelope and where
    /// its entries (that column to the diagonal) start in `factor`; the right-hand side, and
    /// the diagonal `D` of the factor.
    first: Vec<u32>,
    offset: Vec<usize>,
    factor: Vec<f64>,
    rhs: Vec<f64>,
    diagonal: Vec<f64>,
    /// The rows that break their conditions in the current guess.
    broken: Vec<u32>,
    /// Breadth-first queue and per-row visited marks of the ordering.
    queue: Vec<u32>,
    visited: Vec<bool>,
    /// Per row the weight of the proximal term, [`PROXIMAL`] times its diagonal entry of `A`.
    rho: Vec<f64>,
    /// The centre of the current proximal step: the impulses the step before it found.
    center: Vec<f64>,
    /// The current step's share of `rho` (see [`PROXIMAL_SHRINK`]).
    weight: f64,
    /// Largest impulse of the current guess, for rounding room.
    scale: f64,
}

impl Lcp {
    /// Starts a problem of `n` rows, all `A` and `b` entries zero and every row a normal row.
    pub fn reset(&mut self, n: usize) {
        self.n = n;
        self.entries.clear();
        self.built = false;
        self.b.clear();
        self.b.resize(n, 0.0);
        self.rows.clear();
        self.rows.resize(n, Row::Normal);
        self.x.clear();
        self.x.resize(n, 0.0);
        self.side.clear();
        self.side.resize(n, Side::Free);
    }

    /// Sets `A[i][j]` and `A[j][i]`; each pair at most once per problem.
    pub fn set_a(&mut self, i: usize, j: usize, value: f64) {
        self.entries.push((i as u32, j as u32, value));
        if i != j {
            self.entries.push((j as u32, i as u32, value));
        }
    }

    /// `A[i][j]`.
    fn a(&self, i: usize, j: usize) -> f64 {
        self.by_row[self.start[i]..self.start[i + 1]]
            .iter()
            .find(|&&(c, _)| c as usize == j)
            .map_or(0.0, |&(_, a)| a)
    }

    /// Sets `b[i]`.
    pub fn set_b(&mut self, i: usize, value: f64) {
        self.b[i] = value;
    }

    /// Sets what bounds row `i`.
    pub fn set_row(&mut self, i: usize, row: Row) {
        self.rows[i] = row;
    }

    /// Sorts the entries into rows and numbers the rows.
    fn build(&mut self) {
        let n = self.n;
        // Into rows by counting, then each row by column: rows are short, and each comes
        // mostly in order (`set_a` is called row by row), where sorting all entries at once
        // compared them all.
        self.start.clear();
        self.start.resize(n + 1, 0);
        for &(r, _, _) in &self.entries {
            self.start[r as usize + 1] += 1;
        }
        for i in 0..n {
            self.start[i + 1] += self.start[i];
        }
        self.fill.clear();
        self.fill.extend_from_slice(&self.start[..n]);
        self.by_row.clear();
        self.by_row.resize(self.entries.len(), (0, 0.0));
        for &(r, c, v) in &self.entries {
            let at = &mut self.fill[r as usize];
            self.by_row[*at] = (c, v);
            *at += 1;
        }
        for row in self.start.windows(2) {
            self.by_row[row[0]..row[1]].sort_unstable_by_key(|&(c, _)| c);
        }
        self.column.clear();
        self.column.extend(self.by_row.iter().map(|&(c, _)| c));
        self.number_rows();
        self.rho.clear();
        for i in 0..n {
            let rho = PROXIMAL * self.a(i, i);
            self.rho.push(rho.max(f64::MIN_POSITIVE));
        }
        self.built = true;
    }

    /// What one factorization with every row free costs: the sum over the rows of the square
    /// of their envelope's width, in the order the solve numbers them. Rows held at a bound
    /// only narrow the envelopes of the rest, so no round of pivoting costs more.
    pub fn envelope_cost(&mut self) -> u64 {
        if !self.built {
            self.build();
        }
        self.place.clear();
        self.place.resize(self.n, 0);
        for (k, &i) in self.order.iter().enumerate() {
            self.place[i as usize] = k as u32;
        }
        let mut cost = 0;
        for (k, &i) in self.order.iter().enumerate() {
            let first = self.column[self.start[i as usize]..self.start[i as usize + 1]]
                .iter()
                .map(|&j| self.place[j as usize])
                .fold(k as u32, u32::min);
            let width = (k as u32 + 1 - first) as u64;
            cost += width * width;
        }
        cost
    }

    /// Reverse Cuthill-McKee: each connected part breadth first from a row with the fewest
    /// neighbours, neighbours by fewest neighbours first (ties by row), the whole reversed.
    fn number_rows(&mut self) {
        let n = self.n;
        let degree = |s: &Self, i: usize| s.start[i + 1] - s.start[i];
        self.order.clear();
        self.visited.clear();
        self.visited.resize(n, false);
        while self.order.len() < n {
            let seed = (0..n)
                .filter(|&i| !self.visited[i])
                .min_by_key(|&i| (degree(self, i), i))
                .unwrap_or(0);
            self.visited[seed] = true;
            let mut head = self.order.len();
            self.order.push(seed as u32);
            while head < self.order.len() {
                let i = self.order[head] as usize;
                head += 1;
                self.queue.clear();
                for &j in &self.column[self.start[i]..self.start[i + 1]] {
                    if !self.visited[j as usize] {
                        self.visited[j as usize] = true;
                        self.queue.push(j);
                    }
                }
                let start = &self.start;
                self.queue.sort_unstable_by_key(|&j| {
                    let j = j as usize;
                    (start[j + 1] - start[j], j)
                });
                self.order.extend_from_slice(&self.queue);
            }
        }
        self.order.reverse();
    }

    /// Solves for `x` by proximal steps from the impulses in `x` on entry (the last solve's,
    /// or an estimate the caller put there). Each step's friction bounds come from the normal
    /// impulses of the step before (of the entry for the first), and there are at least
    /// [`BOUND_UPDATES`] steps. The pivoting starts from the rows the last solve held, which
    /// the next step and the next substep's solve mostly hold too. A step whose pivoting does
    /// not settle within its round limit leaves the answer of the step before. Returns false
    /// if the first step's did not; `x` is then relaxed from the impulses on entry (see
    /// [`Lcp::relax`]), and the next solve starts from all rows free.
    pub fn solve(&mut self) -> bool {
        if !self.built {
            self.build();
        }
        let n = self.n;
        for list in [&mut self.w, &mut self.lo, &mut self.hi] {
            list.clear();
            list.resize(n, 0.0);
        }
        self.entry.clear();
        self.entry.extend_from_slice(&self.x);
        let mut settled = true;
        let mut steps = 0;
        self.weight = 1.0;
        for step in 0..PROXIMAL_STEPS {
            self.center.clear();
            self.center.extend_from_slice(&self.x);
            self.set_bounds();
            if !self.pivot(step == 0) {
                settled = false;
                break;
            }
            steps = step + 1;
            let weight = self.weight;
            let error = (self.rho.iter().zip(&self.x).zip(&self.center))
                .map(|((&rho, &x), &center)| weight * rho * (x - center).abs())
                .fold(0.0f64, f64::max);
            if steps >= BOUND_UPDATES && error < W_TOLERANCE {
                break;
            }
            self.weight = (self.weight * PROXIMAL_SHRINK).max(PROXIMAL_FLOOR);
        }
        // A proximal step that did not settle leaves the one before it, if any: within its
        // bounds, and an answer but for the velocity error of its proximal term.
        if !settled && steps > 0 {
            self.x.copy_from_slice(&self.center);
            self.side.fill(Side::Free);
            settled = true;
        }
        // Rounding cannot make these non-finite for finite input; never hand such on.
        if !settled || !self.x.iter().all(|x| x.is_finite()) {
            self.x.copy_from_slice(&self.entry);
            self.relax_from_entry();
            self.side.fill(Side::Free);
            return false;
        }
        true
    }

    /// What [`Lcp::solve`] gives when it does not settle, without pivoting: projected
    /// Gauss-Seidel sweeps from the impulses in `x`. For the rest of a step whose solve of
    /// this problem did not settle: the next substep's, from nearly the same impulses, mostly
    /// does not either, and costs as much again.
    pub fn relax(&mut self) {
        if !self.built {
            self.build();
        }
        self.relax_from_entry();
        self.side.fill(Side::Free);
    }

    /// What a solve that did not settle gives: projected Gauss-Seidel sweeps over the exact
    /// rows from the impulses on entry, each row clamped into its bounds as it is solved
    /// (friction by its normal row's current impulse). Slow to converge where masses differ
    /// widely, but every sweep lowers the error of a positive definite problem, so from the
    /// last settled impulses it gives way gradually and never flings a body.
    fn relax_from_entry(&mut self) {
        for i in 0..self.n {
            if !self.x[i].is_finite() {
                self.x[i] = 0.0;
            }
        }
        for _ in 0..RELAX_SWEEPS {
            for i in 0..self.n {
                let mut diagonal = f64::MIN_POSITIVE;
                let mut w = self.b[i];
                for &(j, a) in &self.by_row[self.start[i]..self.start[i + 1]] {
                    w += a * self.x[j as usize];
                    if j as usize == i {
                        diagonal += a;
                    }
                }
                let (lo, hi) = match self.rows[i] {
                    Row::Normal => (0.0, f64::INFINITY),
                    Row::Friction { normal, mu } => {
                        let limit = mu * self.x[normal].max(0.0);
                        (-limit, limit)
                    }
                };
                self.x[i] = (self.x[i] - w / diagonal).clamp(lo, hi);
            }
        }
    }

    /// Bounds of every row from the normal impulses in `x`.
    fn set_bounds(&mut self) {
        for ((lo, hi), row) in self.lo.iter_mut().zip(&mut self.hi).zip(&self.rows) {
            (*lo, *hi) = match *row {
                Row::Normal => (0.0, f64::INFINITY),
                Row::Friction { normal, mu } => {
                    let limit = mu * self.x[normal].max(0.0);
                    (-limit, limit)
                }
            };
        }
    }

    /// Solves the problem with the current bounds by block principal pivoting, from the
    /// current guess of which rows are held. A `patient` pivoting (the first proximal step's,
    /// which must settle, else the rest of the step relaxes) does not count as stalled the
    /// rounds of single flips that leave fewer rows broken than the round before: in a pile of
    /// five columns of twelve boxes under a slab, a block flip that overshot took longer than
    /// [`STALLED_ROUNDS`] to come back, and the pile, relaxed step after step, sank 2 cm and
    /// slid. A later step gives up sooner, keeping the answer of the step before.
    fn pivot(&mut self, patient: bool) -> bool {
        let n = self.n;
        let mut fewest = usize::MAX;
        let mut last = usize::MAX;
        let mut stalled = 0;
        for _ in 0..4 * n + 16 {
            self.solve_guess();
            self.find_broken();
            let broken = self.broken.len();
            if broken == 0 {
                return true;
            }
            if broken < fewest {
                fewest = broken;
                stalled = 0;
            } else if patient && stalled >= 3 && broken < last {
                // Single flips that leave fewer rows broken round after round are progress,
                // however many more than the fewest: after a block flip that overshot, they can
                // take longer than the stall allows to come back.
            } else {
                stalled += 1;
                if stalled > STALLED_ROUNDS {
                    return false;
                }
            }
            // Move every broken row while that makes progress, else only the first.
            let limit = if stalled < 3 { usize::MAX } else { 1 };
            last = broken;
            self.flip_broken(limit);
        }
        false
    }

    /// Solves the free rows for `w = 0` with the held rows at their bounds, then computes `w`
    /// of the held rows.
    fn solve_guess(&mut self) {
        let n = self.n;
        for (((x, side), &lo), &hi) in self
            .x
            .iter_mut()
            .zip(&self.side)
            .zip(&self.lo)
            .zip(&self.hi)
        {
            *x = match side {
                Side::Free => 0.0,
                Side::Lower => lo,
                Side::Upper => hi,
            };
        }
        self.free.clear();
        self.place.clear();
        self.place.resize(n, u32::MAX);
        for &i in &self.order {
            if self.side[i as usize] == Side::Free {
                self.place[i as usize] = self.free.len() as u32;
                self.free.push(i);
            }
        }
        // The free rows' x are zero here, so `A x` is the held rows' part of w.
        self.product();
        // Lay out each free row's envelope and fill it with A's entries between free rows,
        // then the right-hand side.
        self.first.clear();
        self.offset.clear();
        self.rhs.clear();
        self.factor.clear();
        for (k, &i) in self.free.iter().enumerate() {
            let i = i as usize;
            let row = self.start[i]..self.start[i + 1];
            // Its envelope from its first free column.
            let first = (self.column[row.clone()].iter())
                .map(|&j| self.place[j as usize])
                .fold(k as u32, u32::min) as usize;
            let offset = self.factor.len();
            self.first.push(first as u32);
            self.offset.push(offset);
            self.factor.resize(offset + k + 1 - first, 0.0);
            let envelope = &mut self.factor[offset..];
            for &(j, a) in &self.by_row[row] {
                let c = self.place[j as usize] as usize;
                if c <= k {
                    envelope[c - first] = a;
                }
            }
            let rho = self.weight * self.rho[i];
            envelope[k - first] += rho;
            let held = self.w[i];
            self.rhs.push(-(self.b[i] - rho * self.center[i] + held));
        }
        self.factor_envelope();
        self.solve_envelope();
        for (&i, &y) in self.free.iter().zip(&self.rhs) {
            self.x[i as usize] = y;
        }
        self.product();
        let rows =
            (self.side.iter().zip(&self.rho).zip(&self.b)).zip(self.x.iter().zip(&self.center));
        for ((((&side, &rho), &b), (&x, &center)), w) in rows.zip(&mut self.w) {
            if side != Side::Free {
                let rho = self.weight * rho;
                *w = *w + b + rho * (x - center);
            }
        }
        self.scale = self.x.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    }

    /// `A x` into `w`: each row's terms summed from +0 in column order, as a row by row
    /// product would, but walking only the rows whose `x` is not zero (`A` is symmetric, so
    /// row `j` holds column `j`), where most rows are held at zero. A term left out, a finite
    /// entry times a zero, could only change the sign of a sum that is zero: a held row's `w`
    /// is compared with a tolerance, never with zero, and a free row's sum over the held rows,
    /// taken in full, would hold its own term, its diagonal entry (not negative) times its zero
    /// `x`, so it would be +0, as the sum from +0 is.
    fn product(&mut self) {
        self.w.fill(0.0);
        for (row, &x) in self.start.windows(2).zip(&self.x) {
            if x == 0.0 {
                continue;
            }
            for &(i, a) in &self.by_row[row[0]..row[1]] {
                self.w[i as usize] += a * x;
            }
        }
    }

    /// Factors the free rows' envelope in place as `L D L^T`, row by row (`L`'s unit diagonal
    /// is not stored; `D` goes to `diagonal`). Entry `(k, c)` of row `k` needs the entries of
    /// rows `k` and `c` from the later of their first columns on: the envelope holds them all.
    fn factor_envelope(&mut self) {
        let m = self.free.len();
        self.diagonal.clear();
        self.diagonal.resize(m, 0.0);
        for k in 0..m {
            let (first, offset) = (self.first[k] as usize, self.offset[k]);
            // Rows before `k` are done (and only read); row `k` is the one being factored.
            let (done, row) = self.factor.split_at_mut(offset);
            let (row, d) = row[..k + 1 - first].split_at_mut(k - first);
            // Row `k` of `L D` first, in place, each entry from those before it; then `L`'s
            // row from it, and the pivot.
            let earlier = (self.first[first..k].iter())
                .zip(&self.offset[first..k])
                .zip(&self.diagonal[first..k]);
            for (c, ((&first_c, &offset_c), &d)) in (first..k).zip(earlier) {
                let first_c = first_c as usize;
                let from = first.max(first_c);
                // Row `c`'s entries and row `k`'s scaled ones, columns `from` to `c - 1`.
                let row_c = &done[offset_c + from - first_c..offset_c + c - first_c];
                let mut s = row[c - first];
                for (&scaled, &l) in row[from - first..c - first].iter().zip(row_c) {
                    s -= scaled * l;
                }
                // A pivot that vanished (a row the proximal term could not rescue) couples nothing.
                row[c - first] = if d > 0.0 { s } else { 0.0 };
            }
            let mut d = d[0];
            for (entry, &d_c) in row.iter_mut().zip(&self.diagonal[first..k]) {
                let scaled = *entry;
                let l = if d_c > 0.0 { scaled / d_c } else { 0.0 };
                d -= scaled * l;
                *entry = l;
            }
            self.diagonal[k] = d;
        }
    }

    /// Solves `L D L^T y = rhs` in place with the factor of [`Lcp::factor_envelope`]. A row
    /// whose pivot vanished gets 0 for its unknown.
    fn solve_envelope(&mut self) {
        let m = self.free.len();
        for k in 0..m {
            let (first, offset) = (self.first[k] as usize, self.offset[k]);
            let (solved, rest) = self.rhs.split_at_mut(k);
            let mut s = rest[0];
            for (&l, &y) in self.factor[offset..offset + k - first]
                .iter()
                .zip(&solved[first..])
            {
                s -= l * y;
            }
            rest[0] = s;
        }
        for (y, &d) in self.rhs[..m].iter_mut().zip(&self.diagonal[..m]) {
            *y = if d > 0.0 { *y / d } else { 0.0 };
        }
        for k in (0..m).rev() {
            let (first, offset) = (self.first[k] as usize, self.offset[k]);
            let (before, rest) = self.rhs.split_at_mut(k);
            let y = rest[0];
            for (r, &l) in before[first..]
                .iter_mut()
                .zip(&self.factor[offset..offset + k - first])
            {
                *r -= l * y;
            }
        }
    }

    /// Lists the rows that break their conditions in the current guess, in row order.
    fn find_broken(&mut self) {
        self.broken.clear();
        let rows = self.side.iter().zip(&self.lo).zip(&self.hi);
        for (i, (((&side, &lo), &hi), (&x, &w))) in rows.zip(self.x.iter().zip(&self.w)).enumerate()
        {
            if is_broken(side, lo, hi, x, w, self.scale) {
                self.broken.push(i as u32);
            }
        }
    }

    /// Moves the first `limit` broken rows to the other side. (Flipping a row changes no `x`
    /// or `w`, so the rows after it are broken as found.)
    fn flip_broken(&mut self, limit: usize) {
        for &i in self.broken.iter().take(limit) {
            let i = i as usize;
            self.side[i] = match self.side[i] {
                Side::Free if self.x[i] < self.lo[i] => Side::Lower,
                Side::Free => Side::Upper,
                _ => Side::Free,
            };
        }
    }
}

/// Whether a row on `side`, with bounds `lo` and `hi`, impulse `x` and velocity error `w`,
/// breaks its conditions; `scale` is the largest impulse of the guess.
fn is_broken(side: Side, lo: f64, hi: f64, x: f64, w: f64, scale: f64) -> bool {
    // Rounding room, relative to the impulses involved.
    let slack = 1e-9 * (x.abs() + scale);
    match side {
        Side::Free => x < lo - slack || x > hi + slack,
        // A friction row whose normal row did not push has no room: held at 0, any `w`
        // meets its conditions.
        Side::Lower | Side::Upper if hi <= lo => false,
        Side::Lower => w < -W_TOLERANCE,
        Side::Upper => w > W_TOLERANCE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random problem `A = J J^T`, `b = J v` from a seed: `rows` rows over `dofs` unknowns,
    /// every third row a friction row of the row before it. Rows past `dofs` repeat earlier
    /// rows, as the friction rows of one face do: `A` is then singular.
    fn random_problem(seed: u64, rows: usize, dofs: usize) -> Lcp {
        let mut random = crate::test_rng::xorshift64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut next = move || (random() % 2001) as f64 / 1000.0 - 1.0;
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
            let w: f64 = (0..n).map(|j| lcp.a(i, j) * lcp.x[j]).sum::<f64>() + lcp.b[i];
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

    /// A 1000 kg slab on two columns of `height` 1 kg bodies, along the vertical alone, every
    /// contact twice (the two points of a face): every row has a twin, and the columns share
    /// the slab's load in any proportion, so `A` is singular. All bodies fall at 1 m/s; the
    /// impulses must stop every one of them, pushing only, and each level of contacts carry the
    /// momentum of everything above it.
    #[test]
    fn redundant_rows_under_a_heavy_slab_are_solved_exactly() {
        let height = 14;
        // Body `c * height + k` is box `k` (from the bottom) of column `c`; the slab is last.
        let slab = 2 * height;
        let inv_mass = |body: usize| if body == slab { 0.001 } else { 1.0 };
        // Per contact: the body below (None for the ground) and the body above.
        let mut contacts = Vec::new();
        for c in 0..2 {
            for k in 0..height {
                let below = (k > 0).then(|| c * height + k - 1);
                contacts.push((below, c * height + k));
            }
            contacts.push((Some(c * height + height - 1), slab));
        }
        // Two rows per contact; a row's impulse pushes its upper body up, its lower one down.
        let rows: Vec<_> = contacts.iter().flat_map(|&c| [c, c]).collect();
        let n = rows.len();
        let jacobian = |&(below, above): &(Option<usize>, usize), body: usize| {
            if body == above {
                1.0
            } else if below == Some(body) {
                -1.0
            } else {
                0.0
            }
        };
        let mut lcp = Lcp::default();
        lcp.reset(n);
        for (i, ri) in rows.iter().enumerate() {
            for (j, rj) in rows[..=i].iter().enumerate() {
                let a: f64 = (0..=slab)
                    .map(|b| jacobian(ri, b) * inv_mass(b) * jacobian(rj, b))
                    .sum();
                if a != 0.0 {
                    lcp.set_a(i, j, a);
                }
            }
            let v: f64 = (0..=slab).map(|b| -jacobian(ri, b)).sum();
            lcp.set_b(i, v);
        }
        for substep in 0..4 {
            assert!(
                lcp.solve(),
                "substep {substep}: the pivoting did not settle"
            );
            // Every body at rest after the impulses.
            for body in 0..=slab {
                let dv: f64 = (0..n)
                    .map(|i| inv_mass(body) * jacobian(&rows[i], body) * lcp.x[i])
                    .sum();
                let v = dv - 1.0;
                assert!(
                    v.abs() < 1e-6,
                    "substep {substep}: body {body} moves at {v}"
                );
            }
            for k in 0..height {
                // Level k: the contacts below box k of either column.
                let level: f64 = (0..n)
                    .filter(|&i| {
                        let (_, above) = rows[i];
                        above != slab && above % height == k
                    })
                    .map(|i| lcp.x[i])
                    .sum();
                let carried = 1000.0 + (2 * (height - k)) as f64;
                assert!(
                    (level - carried).abs() < 1e-6 * carried,
                    "substep {substep}: level {k} carries {level}, not {carried}"
                );
            }
            assert!(lcp.x.iter().all(|&x| x >= 0.0), "an impulse pulls");
        }
    }

    /// A chain of rows, each coupled to the next (a column of single contacts), factors in
    /// envelopes of width two whatever its length; a dense problem in the whole triangle.
    #[test]
    fn a_chains_envelope_stays_narrow_and_a_dense_problems_fills_the_triangle() {
        let n = 40;
        let mut chain = Lcp::default();
        chain.reset(n);
        let mut dense = Lcp::default();
        dense.reset(n);
        for i in 0..n {
            chain.set_a(i, i, 2.0);
            if i > 0 {
                chain.set_a(i, i - 1, -1.0);
            }
            for j in 0..=i {
                dense.set_a(i, j, if i == j { n as f64 } else { 1.0 });
            }
        }
        // The first row its diagonal alone, each later one its diagonal and the row before.
        assert_eq!(chain.envelope_cost(), 1 + 4 * (n as u64 - 1));
        let triangle: u64 = (1..=n as u64).map(|width| width * width).sum();
        assert_eq!(dense.envelope_cost(), triangle);
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
