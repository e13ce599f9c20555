//! The uniform grid over the plane that the broadphase, the grid of sleeping bodies and the
//! query index all build on: which cells a box covers, how large a cell is, and the table of
//! buckets a counting sort fills with the cells of every box.

use crate::disjoint::DisjointMut;
use crate::geometry::math::Aabb;
use rayon::prelude::*;

/// Cell coordinates are clamped to `[-LIMIT, LIMIT]` so that far-away or huge boxes cannot
/// overflow `i32`, not even in the difference of two coordinates. Clamping keeps the mapping
/// monotonic, which is all the pair rules need.
const CELL_COORD_LIMIT: f32 = (1u32 << 29) as f32;

/// A box covering more than this many cells is "large": it stays out of the cells and is tested
/// directly (grounds and walls: few, and they would fill many cells each). A beam or platform
/// tens of cells long still goes into the cells: tested directly, hundreds of them cost a test
/// against every other box each.
const MAX_SMALL_CELLS: u64 = 64;

/// How many boxes are measured to choose the cell size: enough for a robust median, few
/// enough to cost nothing next to filling the grid.
const SIZE_SAMPLE: usize = 256;

/// The cell size as a multiple of the median box size: a typical box then touches 1 to 4
/// cells, and a cell holds only a handful of boxes. 1.5 rather than 2: fewer boxes per cell to
/// scan, which made the broadphase of a pile rebuilt every step faster at the same memory.
const CELL_PER_TYPICAL_SIZE: f32 = 1.5;

/// Cell size when no sampled box has a positive size (all points): any value is correct then.
const FALLBACK_CELL_SIZE: f32 = 1.0;

/// Smallest cell size: keeps `1 / cell_size`, and so the cell coordinates, finite.
const MIN_CELL_SIZE: f32 = 1e-30;
/// Largest cell size: keeps a multiple of a (finite) median size from overflowing to infinity.
const MAX_CELL_SIZE: f32 = 1e30;

/// The cell coordinate of `v` in a grid of cells `1 / inv_cell` wide: the floor of
/// `v * inv_cell`, clamped (0 for NaN). Monotonic in `v`, so the cell of the larger of two
/// values is the larger of their cells.
#[inline]
fn cell_coord(v: f32, inv_cell: f32) -> i32 {
    // Clamped first, the value truncates exactly to i32, and one step down for a negative
    // fraction makes the floor: `f32::floor` is a library call on plain x86_64 (no SSE4.1).
    let x = (v * inv_cell).clamp(-CELL_COORD_LIMIT, CELL_COORD_LIMIT);
    let x = if x.is_nan() { 0.0 } else { x };
    // SAFETY: `x` is finite and within +-2^29, where truncation to i32 is exact. (`as` would
    // test for NaN and overflow per value, which kept the broadphase's pass over every box
    // from vectorising.)
    let t = unsafe { x.to_int_unchecked::<i32>() };
    t - ((t as f32) > x) as i32
}

/// [`CELL_PER_TYPICAL_SIZE`] times the median size (larger side) of an evenly strided sample
/// of `boxes`, of which there are `count`, clamped to a cell size that keeps the cell math
/// finite. A median ignores the few huge boxes (a ground) and the few tiny ones; the stride
/// keeps the sample deterministic and spread over all of them. `sizes` is scratch.
pub(crate) fn choose_cell_size<'a>(
    boxes: impl Iterator<Item = &'a Aabb>,
    count: usize,
    sizes: &mut Vec<f32>,
) -> f32 {
    median_cell_size(boxes.step_by(size_stride(count)), sizes)
}

/// The stride of the sample [`choose_cell_size`] takes of `count` boxes.
pub(crate) fn size_stride(count: usize) -> usize {
    count.div_ceil(SIZE_SAMPLE).max(1)
}

/// [`choose_cell_size`] of the boxes of `sample`, already taken.
pub(crate) fn median_cell_size<'a>(
    sample: impl Iterator<Item = &'a Aabb>,
    sizes: &mut Vec<f32>,
) -> f32 {
    sizes.clear();
    for aabb in sample {
        let e = aabb.extents();
        let size = e.x.max(e.y);
        // Points say nothing about scale; sizing cells from them would make every other box
        // large.
        if size > 0.0 {
            sizes.push(size);
        }
    }
    if sizes.is_empty() {
        return FALLBACK_CELL_SIZE;
    }
    let mid = sizes.len() / 2;
    let (_, median, _) = sizes.select_nth_unstable_by(mid, f32::total_cmp);
    (*median * CELL_PER_TYPICAL_SIZE).clamp(MIN_CELL_SIZE, MAX_CELL_SIZE)
}

/// The inclusive range of cells a box covers.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CellRect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl CellRect {
    /// The cells `aabb` covers in a grid of cells `1 / inv_cell` wide.
    #[inline]
    pub fn of(aabb: &Aabb, inv_cell: f32) -> CellRect {
        CellRect {
            x0: cell_coord(aabb.min.x, inv_cell),
            y0: cell_coord(aabb.min.y, inv_cell),
            x1: cell_coord(aabb.max.x, inv_cell),
            y1: cell_coord(aabb.max.y, inv_cell),
        }
    }

    /// How many cells the rectangle covers. An inverted box (min > max) covers none; clamping
    /// each side at zero keeps such invalid input from producing a negative, then huge, count.
    pub fn cell_count(&self) -> usize {
        let width = (self.x1 - self.x0 + 1).max(0) as usize;
        let height = (self.y1 - self.y0 + 1).max(0) as usize;
        // Saturating: a huge box's count overflows a 32-bit usize.
        width.saturating_mul(height)
    }

    /// Whether the rectangle is at most two cells wide and two high (and not inverted).
    #[inline(always)]
    pub fn is_quad(&self) -> bool {
        // (In i64: the coordinates are clamped to 2^29, their differences fit.)
        let side = |lo: i32, hi: i32| i64::from(hi) - i64::from(lo);
        (0..=1).contains(&side(self.x0, self.x1)) & (0..=1).contains(&side(self.y0, self.y1))
    }

    /// Whether the rectangle covers more than [`MAX_SMALL_CELLS`] cells.
    #[inline]
    pub fn is_large(&self) -> bool {
        // (In i64 and u64: the coordinates are clamped to 2^29, their product may not fit.)
        let side = |lo: i32, hi: i32| (i64::from(hi) - i64::from(lo) + 1).max(0) as u64;
        side(self.x0, self.x1) * side(self.y0, self.y1) > MAX_SMALL_CELLS
    }

    /// No cell: the identity of [`CellRect::union`].
    pub const EMPTY: CellRect = CellRect {
        x0: i32::MAX,
        y0: i32::MAX,
        x1: i32::MIN,
        y1: i32::MIN,
    };

    /// The smallest rectangle covering both.
    #[inline]
    pub fn union(self, o: CellRect) -> CellRect {
        CellRect {
            x0: self.x0.min(o.x0),
            y0: self.y0.min(o.y0),
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
        }
    }

    /// Every cell of the rectangle, row by row.
    #[inline]
    pub fn cells(self) -> impl Iterator<Item = (i32, i32)> + Clone {
        (self.y0..=self.y1).flat_map(move |cy| (self.x0..=self.x1).map(move |cx| (cx, cy)))
    }
}

/// Buckets of entries in one array (compressed rows): bucket `h` holds
/// `entries[starts[h]..starts[h + 1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct BucketTable<E> {
    starts: Vec<u32>,
    entries: Vec<E>,
    /// Scratch of a fill in parts: per part and bucket, its count...
    part_counts: Vec<u32>,
    /// ...then its `[end, start]`: the part's entries of the bucket go to `start..end`. Side
    /// by side, since placing an entry reads both.
    part_ranges: Vec<[u32; 2]>,
    /// Scratch of a fill in parts: per run of buckets, its entries, then where they begin.
    run_starts: Vec<u32>,
}

/// The fewest buckets a worker turns from counts into ends at a time: the pass over a run
/// reads every part's count of each bucket, which is little work per bucket.
const MIN_RUN: usize = 4096;

impl<E: Copy + Default + Send> BucketTable<E> {
    /// Counting sort into `buckets` buckets of the `(bucket, entry)` pairs `feed` hands to
    /// [`Filler::add`]: count per bucket, turn counts into bucket ends, then scatter while
    /// stepping each end back to its start. `feed(k, ..)` adds the pairs of part `k` of
    /// `parts`; the parts run in parallel, each on counts and ends of its own. A part must add
    /// the same pairs in the same order in both passes; each bucket lists its entries in the
    /// reverse of the order in which parts 0, 1, ... add them, as if one loop had added them
    /// all.
    pub fn fill(
        &mut self,
        buckets: usize,
        parts: usize,
        feed: impl Fn(usize, &mut Filler<E>) + Sync,
    ) {
        let stride = buckets.max(1);
        // Every count is zeroed by its part and every range written below: growing the
        // scratch is all that is left to do here. (Zeroing it here, one thread would write
        // a count per part and bucket.)
        if self.part_counts.len() < parts * stride {
            self.part_counts.resize(parts * stride, 0);
            self.part_ranges.resize(parts * stride, [0; 2]);
        }
        let part_counts = &mut self.part_counts[..parts * stride];
        (part_counts.par_chunks_mut(stride).enumerate()).for_each(|(k, counts)| {
            counts.fill(0);
            feed(k, &mut Filler::Count(counts))
        });
        let part_counts = &self.part_counts[..parts * stride];
        // Bucket by bucket, the last part's entries first: each part's start and end in the
        // bucket. In runs of buckets, on the workers: a run's total, then where each run
        // begins, then the run's buckets from there.
        let threads = rayon::current_num_threads();
        let runs = (buckets / MIN_RUN).clamp(1, threads * 4);
        let run_len = buckets.div_ceil(runs).max(1);
        let total = |run: usize| -> u32 {
            let (lo, hi) = (run * run_len, ((run + 1) * run_len).min(buckets));
            (part_counts.chunks(stride))
                .map(|counts| counts[lo..hi].iter().sum::<u32>())
                .sum()
        };
        (0..runs)
            .into_par_iter()
            .map(total)
            .collect_into_vec(&mut self.run_starts);
        let mut end = 0;
        for start in &mut self.run_starts {
            end += std::mem::replace(start, end);
        }
        self.starts.resize(buckets + 1, 0);
        self.starts[buckets] = end;
        let ranges = DisjointMut::new(&mut self.part_ranges[..parts * stride]);
        let run_starts = &self.run_starts;
        (self.starts[..buckets].par_chunks_mut(run_len).enumerate()).for_each(|(run, firsts)| {
            let mut end = run_starts[run];
            for (i, first) in firsts.iter_mut().enumerate() {
                let h = run * run_len + i;
                *first = end;
                for k in (0..parts).rev() {
                    // SAFETY: `k * stride + h` is in bounds (h < buckets <= stride, k < parts,
                    // and both scratch arrays hold `parts * stride`), and bucket `h` is in
                    // this run alone: no other worker reaches it.
                    let (count, range) = unsafe {
                        let i = k * stride + h;
                        (*part_counts.get_unchecked(i), ranges.get(i))
                    };
                    range[1] = end;
                    end += count;
                    range[0] = end;
                }
            }
        });

        // Every entry is written by the place pass: last fill's entries may stay until then,
        // which spares writing the whole table twice.
        self.entries.resize(end as usize, E::default());
        let entries = DisjointMut::new(&mut self.entries);
        let part_ranges = self.part_ranges[..parts * stride].par_chunks_mut(stride);
        (part_ranges.enumerate()).for_each(|(k, ranges)| {
            feed(k, &mut Filler::Place(ranges, entries));
        });
    }

    /// The entries of bucket `h`.
    #[inline]
    pub fn bucket(&self, h: usize) -> &[E] {
        &self.entries[self.starts[h] as usize..self.starts[h + 1] as usize]
    }

    /// The buckets `h..h + count` as a run, `cx, cy` the cell of the first and `needs` what
    /// an entry of its first cell and of the others must have (see [`CellRun`]).
    #[inline(always)]
    fn run(&self, h: usize, count: usize, (cx, cy): (i32, i32), needs: [u8; 2]) -> CellRun<'_, E> {
        CellRun {
            cx,
            cy,
            needs,
            ends: &self.starts[h..=h + count],
            entries: &self.entries,
        }
    }

    /// [`BucketTable::run`] without bounds checks.
    ///
    /// # Safety
    /// `h + count` must be at most the number of buckets.
    #[inline(always)]
    unsafe fn run_unchecked(
        &self,
        h: usize,
        count: usize,
        (cx, cy): (i32, i32),
        needs: [u8; 2],
    ) -> CellRun<'_, E> {
        CellRun {
            cx,
            cy,
            needs,
            // SAFETY: there is a start per bucket and one past the last.
            ends: unsafe { self.starts.get_unchecked(h..h + count + 1) },
            entries: &self.entries,
        }
    }

    /// The entries of buckets `h` and `h + 1`, the second empty unless `two`.
    ///
    /// # Safety
    /// `h + two as usize` must be below the number of buckets.
    #[inline(always)]
    unsafe fn pair_unchecked(&self, h: usize, two: bool) -> [&[E]; 2] {
        debug_assert!(h + (two as usize) + 1 < self.starts.len());
        // SAFETY: there is a start per bucket and one past the last; `fill` leaves them
        // ascending and the last one the number of entries, so every bucket is a range
        // within them.
        unsafe {
            let start = *self.starts.get_unchecked(h) as usize;
            let mid = *self.starts.get_unchecked(h + 1) as usize;
            let end = *self.starts.get_unchecked(h + 1 + two as usize) as usize;
            [
                self.entries.get_unchecked(start..mid),
                self.entries.get_unchecked(mid..end),
            ]
        }
    }

    /// How many entries the buckets hold in all.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

/// What [`BucketTable::fill`] hands its feed: it takes every `(bucket, entry)` pair of one
/// part, first to count them, then to place them. A plain loop that calls `add` keeps both
/// passes as fast as hand-written ones, which an iterator over the cells of many boxes is not.
pub(crate) enum Filler<'a, E> {
    /// Counts per bucket.
    Count(&'a mut [u32]),
    /// The part's end and start in each bucket, the end stepped back as an entry is placed
    /// before it; the entries, shared with the other parts.
    Place(&'a mut [[u32; 2]], DisjointMut<'a, E>),
}

impl<E> Filler<'_, E> {
    /// Takes `entry` for bucket `h`.
    #[inline(always)]
    pub fn add(&mut self, h: usize, entry: E) {
        match self {
            Filler::Count(counts) => counts[h] += 1,
            Filler::Place(ranges, entries) => {
                let [end, start] = &mut ranges[h];
                // A part that added more to a bucket than it counted would reach into another
                // part's entries.
                assert!(*end > *start, "a part placed more than it counted");
                *end -= 1;
                // SAFETY: the parts' ranges `start..end` in the entries are disjoint (laid out
                // one after another by the prefix sum), and this part writes only within its
                // own.
                unsafe { *entries.get(*end as usize) = entry };
            }
        }
    }
}

/// Bit of [`firsts`]: the cell is in its box's first column of cells.
const FIRST_COL: u8 = 1;
/// Bit of [`firsts`]: the cell is in its box's first row of cells.
const FIRST_ROW: u8 = 2;

/// Whether a cell is in its box's first column / first row of cells, as bits: what an entry
/// keeps of its cell for the pair rule (see [`Entry::first_shared`]).
#[inline(always)]
pub(crate) fn firsts(first_col: bool, first_row: bool) -> u8 {
    (first_col as u8 * FIRST_COL) | (first_row as u8 * FIRST_ROW)
}

/// The [`firsts`] a cell's box lacks there: those an entry of the cell must have for that cell
/// to be the first it shares with a box whose firsts there are `firsts`, and what an entry
/// keeps of its own cell. Computed once per cell, so that the test per entry is one mask.
#[inline(always)]
pub(crate) fn needed(firsts: u8) -> u8 {
    !firsts & (FIRST_COL | FIRST_ROW)
}

/// One cell of one box in a hashed [`HashGrid`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CellEntry {
    /// The cell, kept so that cells sharing a hash bucket are told apart.
    pub cx: i32,
    pub cy: i32,
    /// The box (a body slot).
    pub id: u32,
    /// Whether this cell is in the box's first column / first row of cells, as the [`firsts`]
    /// it lacks ([`needed`]): then the test per entry is one mask and a compare with zero. See
    /// [`Entry::first_shared`] for why that is all the pair rule needs.
    pub lacks: u8,
}

/// One cell of one box in a [`HashGrid`] with a bucket per cell: half the size of a
/// [`CellEntry`], since its bucket says which cell it is. A pile rebuilding its grid writes
/// and reads two to three of these per body.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WindowEntry {
    /// The box (a body slot).
    pub id: u32,
    /// As in [`CellEntry`].
    pub lacks: u8,
}

/// What the pair rule reads of an entry of either kind.
pub(crate) trait Entry: Copy {
    /// The box (a body slot).
    fn id(&self) -> u32;

    /// Whether cell `(cx, cy)`, of the bucket this entry was found in, is this entry's cell and
    /// the first cell it shares with a box whose [`firsts`] there lack `need`
    /// (`need = needed(firsts)`).
    ///
    /// Two overlapping boxes share every cell of the intersection of their cell rectangles;
    /// a pair is reported only from its first cell, `(max(x0a, x0b), max(y0a, y0b))`, which
    /// by monotonicity of the cell coordinates is the cell of the min corner of the boxes'
    /// intersection. Within shared cells, `cx == max(x0a, x0b)` holds exactly when `cx` is the
    /// first column of `a` or of `b`; likewise for rows. So each pair comes out once, with no
    /// dedup set. Evaluated without short-circuits: in hot loops these tests pass or fail
    /// unpredictably.
    fn first_shared(&self, cx: i32, cy: i32, need: u8) -> bool;
}

impl Entry for CellEntry {
    #[inline(always)]
    fn id(&self) -> u32 {
        self.id
    }

    #[inline(always)]
    fn first_shared(&self, cx: i32, cy: i32, need: u8) -> bool {
        (self.cx == cx) & (self.cy == cy) & (self.lacks & need == 0)
    }
}

impl Entry for WindowEntry {
    #[inline(always)]
    fn id(&self) -> u32 {
        self.id
    }

    /// A bucket of a window holds the entries of its one cell: no cell to compare.
    #[inline(always)]
    fn first_shared(&self, _cx: i32, _cy: i32, need: u8) -> bool {
        self.lacks & need == 0
    }
}

/// The buckets of a filled [`HashGrid`] in one layout: a search written against `Cells` (see
/// [`HashGrid::search`]) is compiled once per layout, with no test of the layout per cell.
pub(crate) trait Cells {
    type E: Entry;

    /// The entries of the bucket of cell `(cx, cy)`: that cell's, and in a hashed table those
    /// of any other cell hashed alike.
    fn bucket_of(&self, cx: i32, cy: i32) -> &[Self::E];

    /// Runs of [`Cells::bucket_of`] of every cell of `r`, row by row and left to right, each
    /// run within one row; cells known to hold no entry may be left out. `within`: `r` is the
    /// rectangle of a box entered into the grid, so within a window's cells, and none need be
    /// left out.
    ///
    /// # Safety
    /// Where `within`, `r` must be the rectangle of a box of the grid's last fill.
    unsafe fn runs(&self, r: CellRect, within: bool) -> impl Iterator<Item = CellRun<'_, Self::E>>;

    /// [`Cells::bucket_of`] of the cells `(x0, y0), (x1, y0), (x0, y1), (x1, y1)` of `r`, a
    /// rectangle at most two cells wide and two high ([`CellRect::is_quad`]); where it is one
    /// cell wide or high, the cells beyond it get no entries. The common box's cells at once,
    /// with no run to set up per row.
    ///
    /// # Safety
    /// `r` must be the rectangle of a box of the grid's last fill, and [`CellRect::is_quad`].
    unsafe fn quad(&self, r: CellRect) -> [&[Self::E]; 4];
}

/// The buckets of cells next to each other in one row, one after another in their table: a
/// search over many cells walks them with a test per run, not per cell.
pub(crate) struct CellRun<'a, E> {
    /// The cell of the first bucket; the others follow along x.
    pub cx: i32,
    pub cy: i32,
    /// [`needed`] of the [`firsts`] of the first cell in the rectangle visited, then of the
    /// others (which are not in its first column).
    pub needs: [u8; 2],
    /// Bucket `i` holds `entries[ends[i]..ends[i + 1]]`.
    ends: &'a [u32],
    entries: &'a [E],
}

impl<'a, E> CellRun<'a, E> {
    /// How many entries the run's buckets hold together.
    #[inline(always)]
    pub fn len(&self) -> usize {
        (self.ends[self.ends.len() - 1] - self.ends[0]) as usize
    }

    /// Calls `visit(cx, need, bucket)` for every cell of the run, left to right.
    #[inline(always)]
    pub fn for_each(&self, mut visit: impl FnMut(i32, u8, &'a [E])) {
        let (mut cx, mut need) = (self.cx, self.needs[0]);
        let mut start = self.ends[0] as usize;
        for &end in &self.ends[1..] {
            // SAFETY: `fill` leaves the starts ascending and the last one the number of
            // entries, so every bucket is a range within them.
            let bucket = unsafe { self.entries.get_unchecked(start..end as usize) };
            visit(cx, need, bucket);
            (cx, need, start) = (cx + 1, self.needs[1], end as usize);
        }
    }
}

/// The [`needed`] of the first cell of row `cy` of `r`, and of the others of the row.
#[inline(always)]
fn row_needs(r: CellRect, cy: i32) -> [u8; 2] {
    let first_row = cy == r.y0;
    [
        needed(firsts(true, first_row)),
        needed(firsts(false, first_row)),
    ]
}

/// The buckets of a hashed [`HashGrid`].
pub(crate) struct HashedCells<'a> {
    mask: u32,
    table: &'a BucketTable<CellEntry>,
}

impl Cells for HashedCells<'_> {
    type E = CellEntry;

    #[inline(always)]
    fn bucket_of(&self, cx: i32, cy: i32) -> &[CellEntry] {
        self.table.bucket(bucket(cx, cy, self.mask))
    }

    /// A row's buckets follow one another but where they wrap around the end of the table:
    /// a run up to there, then one from the start.
    #[inline(always)]
    unsafe fn runs(&self, r: CellRect, _: bool) -> impl Iterator<Item = CellRun<'_, CellEntry>> {
        let size = self.mask as usize + 1;
        (r.y0..r.y1 + 1).flat_map(move |cy| {
            let [first, rest] = row_needs(r, cy);
            let mut cx = r.x0;
            std::iter::from_fn(move || {
                if cx > r.x1 {
                    return None;
                }
                let h = bucket(cx, cy, self.mask);
                // (Differences in i32 do not overflow: see `CELL_COORD_LIMIT`.)
                let count = ((r.x1 - cx) as usize + 1).min(size - h);
                let needs = [if cx == r.x0 { first } else { rest }, rest];
                let run = self.table.run(h, count, (cx, cy), needs);
                cx += count as i32;
                Some(run)
            })
        })
    }

    #[inline(always)]
    unsafe fn quad(&self, r: CellRect) -> [&[CellEntry]; 4] {
        let (wide, high) = (r.x1 > r.x0, r.y1 > r.y0);
        let cell = |cx, cy, used: bool| match used {
            true => self.bucket_of(cx, cy),
            false => &[],
        };
        [
            cell(r.x0, r.y0, true),
            cell(r.x1, r.y0, wide),
            cell(r.x0, r.y1, high),
            cell(r.x1, r.y1, wide & high),
        ]
    }
}

/// The buckets of a [`HashGrid`] with a bucket per cell of its window.
pub(crate) struct WindowCells<'a> {
    window: CellRect,
    width: usize,
    table: &'a BucketTable<WindowEntry>,
}

impl Cells for WindowCells<'_> {
    type E = WindowEntry;

    /// No entry for a cell outside the window.
    #[inline(always)]
    fn bucket_of(&self, cx: i32, cy: i32) -> &[WindowEntry] {
        let w = self.window;
        if cx >= w.x0 && cx <= w.x1 && cy >= w.y0 && cy <= w.y1 {
            self.table.bucket(window_bucket(w, self.width, cx, cy))
        } else {
            &[]
        }
    }

    /// A run per row of the cells within the window: a row's buckets are one after another
    /// in the table, and the next row's a width further on. Within, `r` needs no clipping:
    /// the window is the union of the rectangles of the boxes entered.
    #[inline(always)]
    unsafe fn runs(
        &self,
        r: CellRect,
        within: bool,
    ) -> impl Iterator<Item = CellRun<'_, WindowEntry>> {
        let w = self.window;
        let cells = match within {
            true => r,
            false => CellRect {
                x0: r.x0.max(w.x0),
                y0: r.y0.max(w.y0),
                x1: r.x1.min(w.x1),
                y1: r.y1.min(w.y1),
            },
        };
        debug_assert!(!within || (cells.x0 >= w.x0 && cells.x1 <= w.x1));
        debug_assert!(!within || (cells.y0 >= w.y0 && cells.y1 <= w.y1));
        // No row where no cell: an empty range of rows keeps the bucket math below from
        // running on a rectangle outside the window.
        let rows = match cells.x0 <= cells.x1 {
            true => cells.y0..cells.y1 + 1,
            false => 0..0,
        };
        // (Differences in i32 do not overflow: see `CELL_COORD_LIMIT`. Where no column is
        // left, the count is not used, and must not overflow either.)
        let count = (cells.x1 - cells.x0 + 1) as usize;
        let mut h = window_bucket(w, self.width, cells.x0, cells.y0);
        // What an entry must have ([`needed`]) as the bits of row and column apart: where the
        // cell is not in `r`'s first row, and where it is not in its first column.
        let (later_row, later_col) = (needed(firsts(true, false)), needed(firsts(false, true)));
        let mut row = if cells.y0 == r.y0 { 0 } else { later_row };
        let first_col = if cells.x0 == r.x0 { 0 } else { later_col };
        rows.map(move |cy| {
            let needs = [row | first_col, row | later_col];
            // SAFETY: `cells` is within the window (clipped, or as the caller promises), so
            // every bucket of its rows is one of the window's.
            let run = unsafe { self.table.run_unchecked(h, count, (cells.x0, cy), needs) };
            (h, row) = (h + self.width, later_row);
            run
        })
    }

    #[inline(always)]
    unsafe fn quad(&self, r: CellRect) -> [&[WindowEntry]; 4] {
        let (wide, high) = (r.x1 > r.x0, r.y1 > r.y0);
        let w = self.window;
        debug_assert!(r.is_quad() && r.x0 >= w.x0 && r.x1 <= w.x1 && r.y0 >= w.y0 && r.y1 <= w.y1);
        let h = window_bucket(w, self.width, r.x0, r.y0);
        // SAFETY: `r` is within the window (the union of the rectangles of the boxes
        // entered), so its cells' buckets, `h + wide` and, where it is high, the ones a row
        // (`width`) further on, are the window's.
        let [first, second] = unsafe { self.table.pair_unchecked(h, wide) };
        let [third, fourth] = match high {
            // SAFETY: as above, for the row after.
            true => unsafe { self.table.pair_unchecked(h + self.width, wide) },
            false => [&[][..], &[]],
        };
        [first, second, third, fourth]
    }
}

/// A search over the buckets of a [`HashGrid`], whichever its layout (see
/// [`HashGrid::search`]).
pub(crate) trait CellSearch {
    type Output;

    /// Runs the search over `cells`.
    fn run<C: Cells>(self, cells: C) -> Self::Output;
}

/// A uniform grid whose cells are the buckets of one table: memory in proportion to the boxes,
/// wherever they are. Boxes spread far apart are hashed into a power-of-two table; boxes
/// packed into a window of no more cells than that table would have buckets (a pile) get a
/// bucket per cell of the window instead, which is smaller, holds no other cell's entries,
/// and keeps neighbouring rows close in memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct HashGrid {
    /// `1 / cell_size`: one multiply per coordinate instead of a divide.
    inv_cell: f32,
    layout: Layout,
    /// The entries of a hashed layout...
    table: BucketTable<CellEntry>,
    /// ...and of a window. Only the layout's table is current; the other keeps its buffers.
    window_table: BucketTable<WindowEntry>,
}

/// How a [`HashGrid`] maps a cell to its bucket.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// By [`bucket`]; `mask + 1` is the table size, a power of two.
    Hashed { mask: u32 },
    /// Row by row over the cells of `window`, which is `width` cells wide; a cell outside it
    /// has no entries.
    Window { window: CellRect, width: usize },
}

impl Default for Layout {
    fn default() -> Layout {
        Layout::Hashed { mask: 0 }
    }
}

impl Layout {
    /// The layout for `entry_count` entries within the cells of `window` (the union of the
    /// boxes' cells), and its bucket count.
    fn new(entry_count: usize, window: CellRect) -> (Layout, usize) {
        // Twice as many buckets as entries keeps collisions between cells rare.
        let table_size = (2 * entry_count).max(1).next_power_of_two();
        // (In i64 and u64: the coordinates are clamped to 2^29, their differences fit, their
        // product may not.)
        let side = |lo: i32, hi: i32| (i64::from(hi) - i64::from(lo) + 1).max(0) as u64;
        let (width, height) = (side(window.x0, window.x1), side(window.y0, window.y1));
        if width * height <= table_size as u64 {
            let layout = Layout::Window {
                window,
                width: width as usize,
            };
            (layout, (width * height) as usize)
        } else {
            let mask = (table_size - 1) as u32;
            (Layout::Hashed { mask }, table_size)
        }
    }
}

/// The bucket of cell `(cx, cy)`, which must be within `window`, in a table of a bucket per
/// cell of the window, row by row, `width` cells a row.
#[inline(always)]
fn window_bucket(window: CellRect, width: usize, cx: i32, cy: i32) -> usize {
    // (Differences in i32 do not overflow: see `CELL_COORD_LIMIT`.)
    (cy - window.y0) as usize * width + (cx - window.x0) as usize
}

impl HashGrid {
    /// Sets the cell size for the boxes of the next [`HashGrid::fill`].
    pub fn set_cell_size(&mut self, cell_size: f32) {
        self.inv_cell = 1.0 / cell_size;
    }

    /// The cells `aabb` covers.
    #[inline]
    pub fn rect(&self, aabb: &Aabb) -> CellRect {
        CellRect::of(aabb, self.inv_cell)
    }

    /// Enters every cell of every box `(id, rect)` that `boxes(k)` lists for the parts `k` in
    /// `0..parts`, `entry_count` cells in all, all within `window`; the parts in parallel if
    /// the boxes get a bucket per cell (a hashed table per part would cost as much as the
    /// work). Boxes given in ascending id order leave every bucket in descending id order,
    /// which lets a query stop at the first id at or below its own.
    pub fn fill<I>(
        &mut self,
        entry_count: usize,
        window: CellRect,
        parts: usize,
        boxes: impl Fn(usize) -> I + Sync,
    ) where
        I: Iterator<Item = (u32, CellRect)>,
    {
        let (layout, buckets) = Layout::new(entry_count, window);
        self.layout = layout;
        // One loop per layout, each with its bucket function inlined.
        match layout {
            Layout::Hashed { mask } => {
                let all = |_| (0..parts).flat_map(&boxes);
                let entry = |cx, cy, id, lacks| CellEntry { cx, cy, id, lacks };
                let buckets = (buckets, mask as usize, ROW_HASH as usize);
                enter(&mut self.table, buckets, 1, all, hash, entry)
            }
            Layout::Window { window, width } => {
                // Every cell of every box is within the window.
                let first = move |cx, cy| window_bucket(window, width, cx, cy);
                let entry = |_, _, id, lacks| WindowEntry { id, lacks };
                let buckets = (buckets, usize::MAX, width);
                enter(&mut self.window_table, buckets, parts, boxes, first, entry)
            }
        }
    }

    /// Runs `search` over the buckets of this grid's layout.
    #[inline]
    pub fn search<S: CellSearch>(&self, search: S) -> S::Output {
        match self.layout {
            Layout::Hashed { mask } => search.run(HashedCells {
                mask,
                table: &self.table,
            }),
            Layout::Window { window, width } => search.run(WindowCells {
                window,
                width,
                table: &self.window_table,
            }),
        }
    }

    /// Calls `visit(id)` for every box in the bucket of cell `(cx, cy)` for which that cell is
    /// the first it shares with a box whose first column / row it is as `first_col` /
    /// `first_row` say (see [`Entry::first_shared`]).
    pub fn first_shared_in(
        &self,
        (cx, cy): (i32, i32),
        first_col: bool,
        first_row: bool,
        visit: impl FnMut(u32),
    ) {
        /// The search of one bucket.
        struct Visit<F> {
            cell: (i32, i32),
            first: (bool, bool),
            visit: F,
        }
        impl<F: FnMut(u32)> CellSearch for Visit<F> {
            type Output = ();

            fn run<C: Cells>(mut self, cells: C) {
                let ((cx, cy), (first_col, first_row)) = (self.cell, self.first);
                let need = needed(firsts(first_col, first_row));
                for e in cells.bucket_of(cx, cy) {
                    if e.first_shared(cx, cy, need) {
                        (self.visit)(e.id());
                    }
                }
            }
        }
        self.search(Visit {
            cell: (cx, cy),
            first: (first_col, first_row),
            visit,
        })
    }

    /// How many (cell, box) entries the grid holds.
    #[cfg(test)]
    pub fn entry_count(&self) -> usize {
        match self.layout {
            Layout::Hashed { .. } => self.table.len(),
            Layout::Window { .. } => self.window_table.len(),
        }
    }
}

/// Fills `table` with `buckets` buckets from the cells of the boxes of `parts` parts: cell
/// `(cx, cy)` of box `id` as `entry(cx, cy, id, lacks)` (`lacks` as in [`CellEntry`]) into bucket
/// `(first(x, y) + (cx - x) + (cy - y) * stride) & mask` for any cell `(x, y)`, in wrapping
/// arithmetic. A box's cells so cost one bucket computation, not one per cell.
#[inline(always)]
fn enter<E: Copy + Default + Send, I>(
    table: &mut BucketTable<E>,
    (buckets, mask, stride): (usize, usize, usize),
    parts: usize,
    boxes: impl Fn(usize) -> I + Sync,
    first: impl Fn(i32, i32) -> usize + Sync,
    entry: impl Fn(i32, i32, u32, u8) -> E + Sync,
) where
    I: Iterator<Item = (u32, CellRect)>,
{
    // (Moved in: a mask and stride read through a reference were read again per cell.)
    table.fill(buckets, parts, move |part, filler| {
        for (id, r) in boxes(part) {
            let mut row = first(r.x0, r.y0);
            if r.is_quad() {
                // Most boxes: their cells in the order of the rows below, with no loop to set
                // up and each cell's firsts known.
                let (wide, high) = (r.x1 > r.x0, r.y1 > r.y0);
                filler.add(
                    row & mask,
                    entry(r.x0, r.y0, id, needed(firsts(true, true))),
                );
                if wide {
                    let lacks = needed(firsts(false, true));
                    filler.add(row.wrapping_add(1) & mask, entry(r.x1, r.y0, id, lacks));
                }
                if high {
                    row = row.wrapping_add(stride);
                    filler.add(
                        row & mask,
                        entry(r.x0, r.y1, id, needed(firsts(true, false))),
                    );
                    if wide {
                        let lacks = needed(firsts(false, false));
                        filler.add(row.wrapping_add(1) & mask, entry(r.x1, r.y1, id, lacks));
                    }
                }
                continue;
            }
            // Half-open ranges (the coordinates are clamped well below `i32::MAX`): an
            // inclusive one tests for its end twice a turn.
            for cy in r.y0..r.y1 + 1 {
                for (i, cx) in (r.x0..r.x1 + 1).enumerate() {
                    let lacks = needed(firsts(cx == r.x0, cy == r.y0));
                    filler.add(row.wrapping_add(i) & mask, entry(cx, cy, id, lacks));
                }
                row = row.wrapping_add(stride);
            }
        }
    });
}

/// The hash bucket of cell `(cx, cy)`.
#[inline]
fn bucket(cx: i32, cy: i32, mask: u32) -> usize {
    hash(cx, cy) & mask as usize
}

/// What the hash of a cell grows by from one row to the next.
const ROW_HASH: u32 = 0x9E37_79B1;

/// The hash of cell `(cx, cy)`, whose bits under a table's mask are its bucket there.
#[inline]
fn hash(cx: i32, cy: i32) -> usize {
    // Linear in `cx`, so cells next to each other along x share cache lines and neighbouring
    // queries reuse them. Rows are offset by a golden-ratio multiple, which spreads the rows of
    // a compact scene evenly over the table and keeps collisions between nearby cells rare.
    // Linear in both, modulo 2^32, which the table's size divides: a bucket is found from a
    // neighbour's by an add (see `enter`).
    (cx as u32).wrapping_add((cy as u32).wrapping_mul(ROW_HASH)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_coord_is_the_clamped_floor() {
        let specials = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            -1.0 - f32::EPSILON,
            2.5e7,
            -2.5e7 - 0.5,
            CELL_COORD_LIMIT,
            -CELL_COORD_LIMIT,
            1.0e30,
            -1.0e30,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
        ];
        let floor = |x: f32| x.floor().clamp(-CELL_COORD_LIMIT, CELL_COORD_LIMIT) as i32;
        let mut state = 0x2545_f491_u32;
        let randoms = (0..100_000).map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            // Any bit pattern: every sign, exponent and fraction, NaNs and infinities too.
            f32::from_bits(state)
        });
        // Whole numbers, halves and quarters around zero, where the rounding direction shows.
        let steps = (-4000..4000).map(|i| i as f32 * 0.25);
        for x in specials.into_iter().chain(randoms).chain(steps) {
            for inv_cell in [1.0, 0.37, 3.0] {
                assert_eq!(
                    cell_coord(x, inv_cell),
                    floor(x * inv_cell),
                    "{x} * {inv_cell}"
                );
            }
        }
    }

    /// A fill in parts on several workers, with buckets enough for the counts to be turned
    /// into ends in runs, lists every bucket's entries as one loop over the parts would, also
    /// when the scratch of a larger fill (more buckets, more parts) is reused.
    #[test]
    fn a_fill_in_parts_lists_each_bucket_as_one_loop_would() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let mut table = BucketTable::<u32>::default();
        for (buckets, parts, count) in [(50_000, 7, 200_000), (9_000, 3, 20_000), (50_001, 8, 1)] {
            // Entry `i` goes to a scattered bucket; part `k` adds a contiguous range of them.
            let bucket_of = |i: u32| (i as usize).wrapping_mul(2_654_435_761) % buckets;
            let range = |k: usize| (k * count / parts) as u32..((k + 1) * count / parts) as u32;
            pool.install(|| {
                table.fill(buckets, parts, |k, filler| {
                    for i in range(k) {
                        filler.add(bucket_of(i), i);
                    }
                })
            });
            let mut expected = vec![Vec::new(); buckets];
            for i in (0..count as u32).rev() {
                expected[bucket_of(i)].push(i);
            }
            assert_eq!(table.len(), count);
            for (h, entries) in expected.iter().enumerate() {
                assert_eq!(table.bucket(h), &entries[..], "bucket {h} of {buckets}");
            }
        }
    }

    /// Fifty two-cell boxes spread far apart, so that a grid hashes them.
    fn spread_rects() -> Vec<CellRect> {
        (0..50)
            .map(|i| {
                let (x, y) = (i * 1_000_003 % 40_000 - 20_000, i * 7919 % 30_000);
                CellRect {
                    x0: x,
                    y0: y,
                    x1: x + 1,
                    y1: y,
                }
            })
            .collect()
    }

    /// Every bucket holds the entries of its cell, in descending id order, whichever layout
    /// the boxes get (packed boxes one bucket per cell, filled in parallel parts; spread ones
    /// hashed). A cell outside the packed window, or one nobody covers, yields no entry of
    /// another cell.
    #[test]
    fn buckets_hold_their_cells_entries_in_both_layouts() {
        let packed: Vec<CellRect> = (0..200)
            .map(|i| {
                let (x, y) = (i % 20, i / 20);
                CellRect {
                    x0: x,
                    y0: y,
                    x1: x + i % 2,
                    y1: y + i % 3 % 2,
                }
            })
            .collect();
        let spread = spread_rects();
        for (rects, windowed) in [(packed, true), (spread, false)] {
            let entries = rects.iter().map(CellRect::cell_count).sum();
            let window = rects.iter().fold(CellRect::EMPTY, |w, &r| w.union(r));
            let mut grid = HashGrid::default();
            // In three parts, which a windowed grid fills in parallel.
            let n = rects.len();
            let part = |k: usize| (k * n / 3..(k + 1) * n / 3).map(|i| (i as u32, rects[i]));
            grid.fill(entries, window, 3, part);
            assert_eq!(matches!(grid.layout, Layout::Window { .. }), windowed);
            assert_eq!(grid.entry_count(), entries);
            let margin = CellRect {
                x0: window.x0 - 2,
                y0: window.y0 - 2,
                x1: window.x1 + 2,
                y1: window.y1 + 2,
            };
            let cells: Vec<(i32, i32)> = match windowed {
                true => margin.cells().collect(),
                // The spread boxes' own cells and their neighbours.
                false => (rects.iter())
                    .flat_map(|r| {
                        let r = CellRect {
                            x0: r.x0 - 1,
                            y0: r.y0 - 1,
                            x1: r.x1 + 1,
                            y1: r.y1 + 1,
                        };
                        r.cells()
                    })
                    .collect(),
            };
            for (cx, cy) in cells {
                // Every entry of the cell: it is in the first row and column of the query.
                let mut found = Vec::new();
                grid.first_shared_in((cx, cy), true, true, |id| found.push(id));
                let expected: Vec<u32> = (0..rects.len() as u32)
                    .rev()
                    .filter(|&i| rects[i as usize].cells().any(|c| c == (cx, cy)))
                    .collect();
                assert_eq!(found, expected, "cell ({cx}, {cy})");
            }
        }
    }

    /// A window's visit by runs sees, for any rectangle (inside the window, across its edge
    /// or outside it), the entries and first-cell needs that looking up each cell does, and
    /// skips only cells without entries.
    #[test]
    fn a_window_visits_the_cells_a_lookup_per_cell_does() {
        let rects: Vec<CellRect> = (0..300)
            .map(|i| {
                let (x, y) = (i % 25, i / 25);
                CellRect {
                    x0: x,
                    y0: y,
                    x1: x + i % 3 % 2,
                    y1: y + i % 2,
                }
            })
            .collect();
        let entries = rects.iter().map(CellRect::cell_count).sum();
        let window = rects.iter().fold(CellRect::EMPTY, |w, &r| w.union(r));
        let mut grid = HashGrid::default();
        grid.fill(entries, window, 2, |k| {
            let n = rects.len();
            (k * n / 2..(k + 1) * n / 2).map(|i| (i as u32, rects[i]))
        });
        let Layout::Window { window, width } = grid.layout else {
            panic!("packed boxes get a window");
        };
        let cells = WindowCells {
            window,
            width,
            table: &grid.window_table,
        };
        type Visit = (i32, i32, u8, Vec<u32>);
        let ids = |bucket: &[WindowEntry]| bucket.iter().map(|e| e.id).collect::<Vec<_>>();
        for (x0, y0, w, h) in [(3, 4, 2, 1), (-2, -1, 3, 4), (23, 10, 6, 2), (40, 40, 2, 2)] {
            let r = CellRect {
                x0,
                y0,
                x1: x0 + w,
                y1: y0 + h,
            };
            let mut visited: Vec<Visit> = Vec::new();
            // SAFETY: not `within`.
            for run in unsafe { cells.runs(r, false) } {
                let mut total = 0;
                run.for_each(|cx, need, bucket| {
                    total += bucket.len();
                    visited.push((cx, run.cy, need, ids(bucket)))
                });
                assert_eq!(run.len(), total);
            }
            visited.retain(|v| !v.3.is_empty());
            let expected: Vec<Visit> = (r.cells())
                .map(|(cx, cy)| {
                    let need = needed(firsts(cx == r.x0, cy == r.y0));
                    (cx, cy, need, ids(cells.bucket_of(cx, cy)))
                })
                .filter(|v| !v.3.is_empty())
                .collect();
            assert!(r.x0 >= 40 || !expected.is_empty());
            assert_eq!(visited, expected, "{r:?}");
        }
    }

    /// A hashed grid's runs cover every cell of a rectangle once, in order, with the bucket
    /// and first-cell needs of a lookup per cell, also where a row wraps around the end of the
    /// table, once or many times.
    #[test]
    fn hashed_runs_visit_the_cells_a_lookup_per_cell_does() {
        let rects = spread_rects();
        let entries = rects.iter().map(CellRect::cell_count).sum();
        let window = rects.iter().fold(CellRect::EMPTY, |w, &r| w.union(r));
        let mut grid = HashGrid::default();
        grid.fill(entries, window, 1, |_| {
            (rects.iter().enumerate()).map(|(i, &r)| (i as u32, r))
        });
        let Layout::Hashed { mask } = grid.layout else {
            panic!("spread boxes are hashed");
        };
        let cells = HashedCells {
            mask,
            table: &grid.table,
        };
        type Visit = (i32, i32, u8, Vec<u32>);
        let ids = |bucket: &[CellEntry]| bucket.iter().map(|e| e.id).collect::<Vec<_>>();
        let size = mask as i32 + 1;
        // Boxes' own rectangles, and rows as wide as the table and wider.
        let mut queries: Vec<CellRect> = rects.iter().take(10).copied().collect();
        queries.push(CellRect {
            x0: -3,
            y0: 5,
            x1: size - 2,
            y1: 6,
        });
        queries.push(CellRect {
            x0: 7,
            y0: -2,
            x1: 7 + 3 * size,
            y1: -2,
        });
        for (q, r) in queries.into_iter().enumerate() {
            let mut visited: Vec<Visit> = Vec::new();
            // SAFETY: only the first ten are `within`, the rectangles of boxes of the grid.
            for run in unsafe { cells.runs(r, q < 10) } {
                let mut total = 0;
                run.for_each(|cx, need, bucket| {
                    total += bucket.len();
                    visited.push((cx, run.cy, need, ids(bucket)))
                });
                assert_eq!(run.len(), total);
            }
            let expected: Vec<Visit> = (r.cells())
                .map(|(cx, cy)| {
                    let need = needed(firsts(cx == r.x0, cy == r.y0));
                    (cx, cy, need, ids(cells.bucket_of(cx, cy)))
                })
                .collect();
            assert_eq!(visited, expected, "{r:?}");
        }
    }
}
