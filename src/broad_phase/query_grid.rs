//! The index world queries search: a dense uniform grid over every body's tight box at its
//! current pose.
//!
//! Why not the broadphase's grid: it is built at the start of a step from boxes fattened by
//! the speculative margin and swept along the velocity, so after the step (and after any
//! add/remove) it no longer says where bodies are. Rebuilding it each step for queries would
//! cost every step, queries or not. This grid is instead rebuilt lazily, on the first query
//! after the world changed (`World` marks it stale in `step`, `add_body` and `remove_body`):
//! a rebuild is a few linear passes, and repeated queries between steps share it.
//!
//! Cells hold slots in ascending order and candidates are always re-sorted by slot, so results
//! never depend on how the grid happens to be laid out.

use crate::body::BodyStore;
use crate::broad_phase::grid::{choose_cell_size, BucketTable, CellRect};
use crate::geometry::math::{Aabb, DVec2, Vec2};

/// The grid never has more than this many cells per body (plus a few): scattered bodies make
/// the cells larger rather than the grid huge.
const CELLS_PER_BODY: usize = 4;

/// Boxes are entered into the grid grown by this fraction of a cell, so that a ray walk or a
/// cell range that rounding puts one ulp off still meets every body it should.
const CELL_SLACK: f32 = 1.0e-3;

#[derive(Debug, Default)]
pub(crate) struct QueryGrid {
    /// False once the bodies moved, were added or removed: the next query rebuilds.
    valid: bool,
    /// Tight box of each slot at its current pose (holes keep a default box and are never
    /// listed).
    pub aabbs: Vec<Aabb>,
    /// Lower corner of cell (0, 0).
    origin: Vec2,
    cell: f32,
    inv_cell: f32,
    cols: usize,
    rows: usize,
    /// Dense: the bucket of cell `(x, y)` is `x + y * cols`, so the counting sort the hashed
    /// grids use fills it too. Each cell lists its slots ascending.
    cells: BucketTable<u32>,
    /// Slots kept out of the grid, ascending.
    pub large: Vec<u32>,
    /// Scratch for the cell size sample.
    sizes: Vec<f32>,
}

impl QueryGrid {
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Rebuilds the grid from the bodies' current poses.
    pub fn rebuild(&mut self, bodies: &BodyStore) {
        self.aabbs.clear();
        self.aabbs.extend((0..bodies.slots()).map(|s| {
            if !bodies.is_active(s) {
                Aabb::default()
            } else {
                bodies.body_aabb(s, bodies.transform(s))
            }
        }));
        let live: Vec<u32> = (0..bodies.slots() as u32)
            .filter(|&s| bodies.is_active(s as usize))
            .collect();
        self.layout(&live);
        self.fill(&live);
        self.valid = true;
    }

    /// Chooses the grid's origin, cell size and dimensions to cover every finite box.
    fn layout(&mut self, live: &[u32]) {
        let finite = |s: &&u32| is_finite(&self.aabbs[**s as usize]);
        let bounds = live
            .iter()
            .filter(finite)
            .map(|&s| self.aabbs[s as usize])
            .reduce(|a, b| a.union(&b));
        let Some(bounds) = bounds else {
            (self.cols, self.rows) = (0, 0);
            return;
        };
        let boxes = live.iter().map(|&s| &self.aabbs[s as usize]);
        let mut cell = choose_cell_size(boxes, live.len(), &mut self.sizes);
        let extents = bounds.extents();
        let budget = (CELLS_PER_BODY * live.len() + 64) as f64;
        // Counted in f64: a far-flung body can make the extent over the cell size overflow
        // anything smaller.
        let dims = |cell: f32| {
            let cols = (f64::from(extents.x) / f64::from(cell)).floor() + 1.0;
            let rows = (f64::from(extents.y) / f64::from(cell)).floor() + 1.0;
            (cols, rows)
        };
        while {
            let (cols, rows) = dims(cell);
            cols * rows > budget
        } {
            cell *= 2.0;
        }
        let (cols, rows) = dims(cell);
        self.origin = bounds.min;
        self.cell = cell;
        self.inv_cell = 1.0 / cell;
        (self.cols, self.rows) = (cols as usize, rows as usize);
    }

    /// Sorts the small boxes into their cells (slots ascending within a cell) and lists the
    /// large ones.
    fn fill(&mut self, live: &[u32]) {
        self.large.clear();
        let mut small = Vec::with_capacity(live.len());
        for &s in live {
            let aabb = self.aabbs[s as usize];
            match self.grid_range(&aabb) {
                Some(r) if is_finite(&aabb) && !r.is_large() => small.push((s, r)),
                _ => self.large.push(s),
            }
        }
        let cols = self.cols;
        self.cells.fill(cols * self.rows, 1, |_, filler| {
            // In descending slot order, since the table lists each cell in reverse.
            for &(s, r) in small.iter().rev() {
                r.cells()
                    .for_each(|(x, y)| filler.add(x as usize + y as usize * cols, s));
            }
        });
    }

    /// The cells a box (grown by the slack) covers, clamped to the grid; `None` for an empty
    /// grid or a box entirely outside it.
    pub fn grid_range(&self, aabb: &Aabb) -> Option<CellRect> {
        if self.cols == 0 {
            return None;
        }
        let slack = self.cell * CELL_SLACK;
        let lo = aabb.min - Vec2::new(slack, slack);
        let hi = aabb.max + Vec2::new(slack, slack);
        let (x0, x1) = (
            self.coord(lo.x - self.origin.x),
            self.coord(hi.x - self.origin.x),
        );
        let (y0, y1) = (
            self.coord(lo.y - self.origin.y),
            self.coord(hi.y - self.origin.y),
        );
        let (cols, rows) = (self.cols as i64, self.rows as i64);
        if x1 < 0 || y1 < 0 || x0 >= cols || y0 >= rows {
            return None;
        }
        // The grid has at most a few cells per body, so its coordinates fit in `i32`.
        Some(CellRect {
            x0: x0.clamp(0, cols - 1) as i32,
            y0: y0.clamp(0, rows - 1) as i32,
            x1: x1.clamp(0, cols - 1) as i32,
            y1: y1.clamp(0, rows - 1) as i32,
        })
    }

    /// The cell coordinate of an offset from the origin (may be out of the grid).
    fn coord(&self, offset: f32) -> i64 {
        // Clamped in f64 before the cast so huge offsets saturate instead of wrapping.
        (f64::from(offset) * f64::from(self.inv_cell))
            .floor()
            .clamp(-1.0e15, 1.0e15) as i64
    }

    /// The slots listed in cell `(x, y)`.
    pub fn cell_items(&self, x: usize, y: usize) -> &[u32] {
        self.cells.bucket(x + y * self.cols)
    }

    /// Calls `visit(cell items)` for each cell in `range`.
    pub fn for_each_cell_in(&self, range: CellRect, mut visit: impl FnMut(&[u32])) {
        range
            .cells()
            .for_each(|(x, y)| visit(self.cell_items(x as usize, y as usize)));
    }

    /// Walks the cells the segment `o + t d`, `t` in `0..=t_end`, crosses, in order along it
    /// (Amanatides-Woo). `visit(items, t_exit)` gets each cell's slots and the `t` at which the
    /// segment leaves the cell; returning `true` stops the walk. Walked in f64: the segment may
    /// start far outside the grid, where f32 would put its entry several cells off.
    pub fn walk_ray(
        &self,
        o: Vec2,
        d: Vec2,
        t_end: f32,
        mut visit: impl FnMut(&[u32], f64) -> bool,
    ) {
        if self.cols == 0 {
            return;
        }
        let cell = f64::from(self.cell);
        let lo = DVec2::from(self.origin);
        let hi = lo + DVec2::new(self.cols as f64, self.rows as f64) * cell;
        let (o, d) = (DVec2::from(o), DVec2::from(d));
        let Some((t0, t1)) = clip_to_box_f64(o, d, f64::from(t_end), lo, hi) else {
            return;
        };
        let start = o + d * t0;
        let coord = |offset: f64, n: usize| {
            ((offset / cell).floor().clamp(-1.0e15, 1.0e15) as i64).clamp(0, n as i64 - 1)
        };
        let mut x = coord(start.x - lo.x, self.cols);
        let mut y = coord(start.y - lo.y, self.rows);
        let axis = |dir: f64, pos: f64, cell_index: i64, base: f64| -> (i64, f64, f64) {
            if dir > 0.0 {
                let bound = base + (cell_index + 1) as f64 * cell;
                (1, (bound - pos) / dir, cell / dir)
            } else if dir < 0.0 {
                let bound = base + cell_index as f64 * cell;
                (-1, (bound - pos) / dir, -cell / dir)
            } else {
                (0, f64::INFINITY, f64::INFINITY)
            }
        };
        let (step_x, mut next_x, delta_x) = axis(d.x, o.x, x, lo.x);
        let (step_y, mut next_y, delta_y) = axis(d.y, o.y, y, lo.y);
        loop {
            let exit = next_x.min(next_y).min(t1);
            if visit(self.cell_items(x as usize, y as usize), exit) || exit >= t1 {
                return;
            }
            if next_x < next_y {
                x += step_x;
                next_x += delta_x;
            } else {
                y += step_y;
                next_y += delta_y;
            }
            if x < 0 || y < 0 || x >= self.cols as i64 || y >= self.rows as i64 {
                return;
            }
        }
    }
}

fn is_finite(aabb: &Aabb) -> bool {
    aabb.min.is_finite() && aabb.max.is_finite()
}

/// The part `t0..=t1` of `0..=t_end` in which `o + t d` lies in the box `lo..=hi` (slab test),
/// in f64 so that a segment starting far from a small box still finds it.
pub(crate) fn clip_to_box(o: Vec2, d: Vec2, t_end: f64, lo: Vec2, hi: Vec2) -> Option<(f64, f64)> {
    clip_to_box_f64(o.into(), d.into(), t_end, lo.into(), hi.into())
}

fn clip_to_box_f64(o: DVec2, d: DVec2, t_end: f64, lo: DVec2, hi: DVec2) -> Option<(f64, f64)> {
    let mut t0 = 0.0f64;
    let mut t1 = t_end;
    for (o, d, lo, hi) in [(o.x, d.x, lo.x, hi.x), (o.y, d.y, lo.y, hi.y)] {
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
        } else {
            let (a, b) = ((lo - o) / d, (hi - o) / d);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    (t0 <= t1).then_some((t0, t1))
}
