//! Broadphase: every pair of proxies whose AABBs overlap, found with a uniform grid hash.
//!
//! The grid is built from fattened boxes and its pairs are kept: while every proxy's box stays
//! inside its fat box (and no proxy changes kind, layers or mask), the kept pairs are a
//! superset of the overlapping ones, and a filter over them gives the answer without touching
//! the grid. When only some proxies left their fat boxes (a large body moving through a field
//! of resting ones, the last movers of a settling pile), those get new fat boxes and their pairs
//! are found again: against the proxies still in the grid through its cells, and against each
//! other directly. Otherwise the grid is rebuilt from scratch: a few linear passes with no
//! incremental bookkeeping. Either way the result is the same pure function of the inputs.
//! Proxies covering many cells (a ground, a wall) are kept out of the grid: inserting them
//! would cost thousands of cells each, and there are few of them. Each finds its partners
//! through the cells it covers where those are few next to the proxies it must pair with, and
//! by testing every proxy directly where they are not. Where static proxies are many (a level
//! of tiles), they have a grid of their own that lasts while they stay put (`static_grid`),
//! and the moving proxies ask it for their static partners.

pub(crate) mod box_grid;
pub(crate) mod boxes;
pub(crate) mod compound;
pub(crate) mod grid;
pub(crate) mod proxies;
pub(crate) mod query_grid;
pub(crate) mod resting_grid;
pub(crate) mod sorted_pairs;
pub(crate) mod static_grid;
#[cfg(test)]
mod tests;

use crate::body::SlotKind;
use crate::broad_phase::grid::{
    firsts, median_cell_size, needed, size_stride, CellRect, CellSearch, Cells, Entry, HashGrid,
};
use crate::broad_phase::proxies::{overlaps, Bounds, Proxies};
use crate::broad_phase::sorted_pairs::merge_sorted;
use crate::broad_phase::static_grid::StaticGrid;
use crate::geometry::math::{Aabb, Vec2};
use rayon::prelude::*;
use std::mem::take;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The smallest range of proxies handed to one rayon task: below this, splitting costs more than
/// it saves.
const MIN_CHUNK: usize = 1024;

/// Tasks per thread, so that uneven ranges (a range holding a large proxy) balance out.
const CHUNKS_PER_THREAD: usize = 4;

/// Classes read at a time while listing the large proxies (see [`Grid::classify`]).
const LARGE_SCAN_BLOCK: usize = 64;

/// Where a proxy lives relative to the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// A hole: never paired.
    Empty,
    /// Inserted into every cell its AABB overlaps.
    Small,
    /// Kept out of the grid; tested against every proxy directly.
    Large,
}

/// The grid hash of one call, plus the per-proxy data the queries need.
#[derive(Clone, Default)]
struct Grid {
    /// The small proxies' cells, each bucket in descending slot order.
    cells: HashGrid,
    /// Per slot: which list the proxy is in.
    class: Vec<Class>,
    /// Per slot: the cells its AABB overlaps (meaningful for small proxies only).
    rects: Vec<CellRect>,
    /// Per slot: its AABB as a candidate of the pair search reads it.
    uppers: Vec<Bounds>,
    /// Whether every two small proxies pass the filters ([`Proxies::may_collide`]): then
    /// the pairs a small proxy finds through the cells, all with small proxies, need no
    /// filter.
    small_pass: bool,
    /// Whether every two small proxies pass the layer test: then those pairs of a dynamic
    /// small proxy need no filter either (a kinematic paddle among a pile's bodies).
    small_layers_pass: bool,
    /// Slots of the large proxies, ascending.
    large: Vec<u32>,
}

/// A fat grid must answer this many later calls to be worth its extra pairs; one that does not
/// (bodies on the move: a pile falling, a smash) gives way to grids of the plain boxes for
/// [`PLAIN_RUN`] calls before fat boxes are tried again, and again while the proxies still move
/// too far for them to hold (see [`BroadPhase::still_moving`]).
const MIN_FAT_USES: u32 = 2;

/// See [`MIN_FAT_USES`].
const PLAIN_RUN: u32 = 15;

/// How many proxies the probe of a run of plain grids samples (see
/// [`BroadPhase::still_moving`]): enough to tell a share of [`OFF_GRID_SHARE`] apart, few
/// enough to cost nothing next to a grid.
const PROBE_SIZE: usize = 256;

/// The kept pairs are refitted, rather than the grid rebuilt, while at most one proxy in this
/// many is off the grid (refitted since the grid was built). The off-grid proxies are paired
/// with one another by a sweep, which grows with their square, and the pairs of movers are
/// found again, which costs a pass over the kept pairs: past this share, a rebuild is cheaper.
const OFF_GRID_SHARE: usize = 16;

/// Off-grid proxies allowed whatever the count, so that small worlds refit too.
const MIN_OFF_GRID: usize = 4;

/// How many proxies of `n` may be off the grid.
fn max_off_grid(n: usize) -> usize {
    (n / OFF_GRID_SHARE).max(MIN_OFF_GRID)
}

/// New pairs a refit may add without allocating (reserved when the grid is built).
const REFIT_RESERVE: usize = 256;

/// How far a moving proxy's fat box reaches beyond its box, as a fraction of the box's larger
/// side: a resting body's box jitters well within it, and the extra pairs it admits cost a
/// filter test each.
const FAT_MARGIN: f32 = 0.1;

/// Finds overlapping proxy pairs with a uniform grid hash, rebuilt when a proxy leaves its fat
/// box.
///
/// Holds only reusable buffers: once they have grown to the scene, a call allocates nothing.
#[derive(Clone, Default)]
pub(crate) struct BroadPhase {
    cell_size: f32,
    grid: Grid,
    /// Scratch for the cell size sample.
    sizes: Vec<f32>,
    /// One output buffer per parallel task, concatenated in range order (see `in_ranges`).
    chunk_pairs: Vec<Vec<(u32, u32)>>,
    fat: FatProxies,
    /// Calls answered by the current fat grid since it was built.
    fat_uses: u32,
    /// Calls left that build a grid of the plain boxes, without trying fat ones.
    plain_left: u32,
    /// How many calls rebuilt the grid.
    rebuilds: u64,
    /// How many calls refitted the kept pairs to a few escaped proxies.
    refits: u64,
    /// How many calls built a grid of fat boxes.
    fat_builds: u64,
    /// Scratch of a refit: the proxies that left their fat boxes, ascending.
    escaped: Vec<u32>,
    /// The static proxies, in a grid of their own when there are many.
    statics: StaticGrid,
    /// The kinds the other grids see while `statics` holds the static proxies: theirs `Empty`.
    moving_kinds: Vec<SlotKind>,
    /// Scratch: the pairs of moving and static proxies.
    static_pairs: Vec<(u32, u32)>,
    /// Taken by the last call of a run of plain grids: a strided sample of the proxies, as
    /// slots and the fat boxes they would have had then. See [`BroadPhase::still_moving`].
    probe: Vec<(u32, Aabb)>,
}

/// The proxies the grid was last built from (fat boxes, copies of the filters), and its pairs.
#[derive(Clone, Default)]
struct FatProxies {
    aabbs: Vec<Aabb>,
    kinds: Vec<SlotKind>,
    layers: Vec<u32>,
    masks: Vec<u32>,
    /// The overlapping pairs of the fat boxes, sorted: while every box stays inside its fat
    /// box, every overlapping pair is among them.
    pairs: Vec<(u32, u32)>,
    /// Scratch of a refit: the new pairs of the refitted proxies.
    fresh: Vec<(u32, u32)>,
    /// The slots refitted since the grid was built. The grid still holds their old cells, so
    /// they are paired with each other directly.
    off_grid: Vec<u32>,
    /// Per slot: whether it is in `off_grid`.
    is_off: Vec<bool>,
    /// Scratch of a refit: per slot, whether it moves in this refit.
    moving: Vec<bool>,
    /// Scratch of a refit: the off-grid slots by the left side of their fat boxes.
    sweep: Vec<(f32, u32)>,
}

impl FatProxies {
    fn proxies(&self) -> Proxies<'_> {
        Proxies {
            aabbs: &self.aabbs,
            kinds: &self.kinds,
            layers: &self.layers,
            masks: &self.masks,
            static_version: None,
        }
    }

    /// Whether the fat proxies are of the same slots as `proxies`, with the same kinds and
    /// filters.
    fn same_filters(&self, proxies: &Proxies) -> bool {
        proxies.len() == self.aabbs.len()
            && proxies.kinds == &self.kinds[..]
            && proxies.layers == &self.layers[..]
            && proxies.masks == &self.masks[..]
    }

    /// Whether every box of `proxies` is inside its fat box (of the same slots).
    fn hold(&self, proxies: &Proxies) -> bool {
        // Every box of a chunk tested, with no branch per box: while the fat boxes answer,
        // every box is inside, and a search stopped at the first one outside saves nothing.
        let inside_all = |(boxes, fats): (&[Aabb], &[Aabb])| {
            (boxes.iter().zip(fats)).fold(true, |held, (aabb, fat)| held & inside(aabb, fat))
        };
        (
            proxies.aabbs.par_chunks(MIN_CHUNK),
            self.aabbs.par_chunks(MIN_CHUNK),
        )
            .into_par_iter()
            .all(inside_all)
    }

    /// Lists in `escaped` the slots whose box left its fat box, and returns true, unless
    /// refitting them would leave more than [`max_off_grid`] proxies off the grid.
    fn escaped(&self, proxies: &Proxies, escaped: &mut Vec<u32>) -> bool {
        let room = max_off_grid(proxies.len()).saturating_sub(self.off_grid.len());
        escaped.clear();
        for (i, (aabb, fat)) in proxies.aabbs.iter().zip(&self.aabbs).enumerate() {
            if !inside(aabb, fat) {
                if escaped.len() == room {
                    return false;
                }
                escaped.push(i as u32);
            }
        }
        true
    }

    /// New fat boxes for the `moved` slots (ascending), and their pairs found again: through
    /// the cells of `grid` (built from these fat proxies) with the proxies still in it, and by a
    /// sweep among the off-grid ones. The other pairs stand: neither of their fat boxes changed.
    /// Returns false, with the kept pairs unusable, when the movers have more than `max_pairs`
    /// new pairs.
    fn refit(
        &mut self,
        proxies: &Proxies,
        moved: &[u32],
        (grid, statics): (&Grid, &StaticGrid),
        max_pairs: usize,
    ) -> bool {
        for &m in moved {
            let m = m as usize;
            self.aabbs[m] = fat_box(&proxies.aabbs[m], proxies.kinds[m]);
            self.moving[m] = true;
            if !self.is_off[m] {
                self.is_off[m] = true;
                self.off_grid.push(m as u32);
            }
        }
        let moving = &self.moving;
        (self.pairs).retain(|&(a, b)| !moving[a as usize] && !moving[b as usize]);
        let (mut fresh, mut sweep) = (take(&mut self.fresh), take(&mut self.sweep));
        fresh.clear();
        let fat = self.proxies();
        for &m in moved {
            grid.partners_in_grid(&fat, m as usize, &self.is_off, &mut fresh);
            if statics.is_active() {
                statics.pairs_of(&fat, m as usize, &mut fresh);
            }
        }
        sweep_pairs(&fat, &self.off_grid, &self.moving, &mut sweep, &mut fresh);
        self.sweep = sweep;
        for &m in moved {
            self.moving[m as usize] = false;
        }
        let fits = fresh.len() <= max_pairs;
        if fits {
            fresh.sort_unstable();
            merge_sorted(&mut self.pairs, &fresh);
        }
        self.fresh = fresh;
        fits
    }

    /// The pairs whose plain boxes overlap: an order-preserving filter of the fat pairs, so
    /// sorted like them, in ranges of them (see [`in_ranges`]).
    fn overlapping(
        &self,
        proxies: &Proxies,
        pairs: &mut Vec<(u32, u32)>,
        parts: &mut Vec<Vec<(u32, u32)>>,
    ) {
        pairs.clear();
        let aabbs = proxies.aabbs;
        in_ranges(self.pairs.len(), parts, pairs, |range, out| {
            let kept = &self.pairs[range];
            // Every pair is written to the spare room and kept by counting it when the boxes
            // overlap: a push per pair tested the capacity and branched on the test.
            out.reserve(kept.len());
            let (mut len, spare) = (out.len(), out.as_mut_ptr());
            for &(a, b) in kept {
                let hit = overlaps(&aabbs[a as usize], &aabbs[b as usize]);
                // SAFETY: `len` is below the length before plus the pairs taken, at most
                // `kept.len()`, the room reserved above.
                unsafe { spare.add(len).write((a, b)) };
                len += hit as usize;
            }
            // SAFETY: the pairs up to `len` were written above.
            unsafe { out.set_len(len) };
        });
    }

    /// Forgets the fat proxies (keeping the buffers): the next `hold` is false.
    fn clear(&mut self) {
        self.aabbs.clear();
        self.pairs.clear();
        self.off_grid.clear();
    }

    /// Copies `proxies`, fattening the boxes of all but static ones (which do not move).
    fn fatten(&mut self, proxies: &Proxies) {
        self.kinds.clear();
        self.kinds.extend_from_slice(proxies.kinds);
        self.layers.clear();
        self.layers.extend_from_slice(proxies.layers);
        self.masks.clear();
        self.masks.extend_from_slice(proxies.masks);
        self.aabbs
            .resize(proxies.len(), Aabb::new(Vec2::ZERO, Vec2::ZERO));
        self.off_grid.clear();
        for flags in [&mut self.is_off, &mut self.moving] {
            flags.clear();
            flags.resize(proxies.len(), false);
        }
        (
            self.aabbs.par_iter_mut(),
            proxies.aabbs.par_iter(),
            proxies.kinds.par_iter(),
        )
            .into_par_iter()
            .with_min_len(MIN_CHUNK)
            .for_each(|(fat, aabb, &kind)| *fat = fat_box(aabb, kind));
    }
}

/// Whether any proxy of `kinds` is dynamic. Every kind is read, with no branch per kind: the
/// scan of a byte per slot is then a few vector compares.
fn any_dynamic(kinds: &[SlotKind]) -> bool {
    (kinds.iter()).fold(false, |any, &k| any | (k == SlotKind::Dynamic))
}

/// The fat box of a proxy: its box grown by `FAT_MARGIN` of its larger side, except for a
/// static one, which does not move.
fn fat_box(aabb: &Aabb, kind: SlotKind) -> Aabb {
    match kind {
        SlotKind::Fixed => *aabb,
        _ => {
            let e = aabb.extents();
            aabb.fattened(FAT_MARGIN * e.x.max(e.y))
        }
    }
}

/// Whether `aabb` is inside `fat` (false for a NaN box).
#[inline]
fn inside(aabb: &Aabb, fat: &Aabb) -> bool {
    (fat.min.x <= aabb.min.x)
        & (fat.min.y <= aabb.min.y)
        & (aabb.max.x <= fat.max.x)
        & (aabb.max.y <= fat.max.y)
}

impl BroadPhase {
    /// An empty broadphase; buffers grow on first use.
    pub fn new() -> BroadPhase {
        BroadPhase::default()
    }

    /// Clears `pairs` and fills it with every pair (a, b), a < b, whose AABBs overlap
    /// (`Aabb::overlaps`, touching counts), where at least one of the two is Dynamic, neither is
    /// None, and `(layers[a] & masks[b]) != 0 && (layers[b] & masks[a]) != 0`.
    ///
    /// Sorted ascending by (a, b); each pair exactly once. The result depends only on the inputs
    /// (never on thread count or timing). Runs on the current rayon pool. Every AABB must have
    /// `min <= max` on both axes.
    ///
    /// # Panics
    /// If the slices of `proxies` differ in length or hold more than `u32::MAX` slots.
    #[cfg(test)]
    pub fn find_pairs(&mut self, proxies: &Proxies, pairs: &mut Vec<(u32, u32)>) {
        self.find_pairs_at_most(proxies, pairs, usize::MAX);
    }

    /// Every pair of proxies whose fattened boxes overlap, as `find_pairs` (which only the
    /// tests build) lists them, unless more than `max_pairs` pairs overlap: then it stops
    /// early, leaves an unspecified part of them in `pairs` and returns `false`. The work and
    /// memory it spends stay bounded by `max_pairs` (times a small factor for the pairs of the
    /// fattened boxes it keeps), where listing them all could take any amount (10,000 bodies
    /// at one point overlap in 50 million pairs). Whether it returns `false` depends only on
    /// the inputs.
    ///
    /// # Panics
    /// If the slices of `proxies` differ in length or hold more than `u32::MAX` slots.
    pub fn find_pairs_at_most(
        &mut self,
        proxies: &Proxies,
        pairs: &mut Vec<(u32, u32)>,
        max_pairs: usize,
    ) -> bool {
        proxies.check();
        if self.statics.refresh(proxies) {
            self.fat.clear();
        }
        // Every pair has a dynamic proxy. Where none is (bodies that collide with nothing, a
        // jointed grid on a layer its masks leave out, are all holes), there is no pair, and
        // no box to test or grid to build: no pass over the slots to hand out to the workers.
        // The fat proxies stay as they were: they answer a later call only if its kinds and
        // filters are theirs again.
        if !any_dynamic(proxies.kinds) {
            pairs.clear();
            return true;
        }
        if !self.statics.is_active() {
            return self.moving_pairs(proxies, pairs, max_pairs);
        }
        let mut kinds = take(&mut self.moving_kinds);
        kinds.resize(proxies.len(), SlotKind::Empty);
        (kinds.par_iter_mut(), proxies.kinds.par_iter())
            .into_par_iter()
            .with_min_len(MIN_CHUNK)
            .for_each(|(moving, &kind)| {
                *moving = match kind {
                    SlotKind::Fixed => SlotKind::Empty,
                    _ => kind,
                }
            });
        let moving = Proxies {
            kinds: &kinds,
            ..*proxies
        };
        let found = self.moving_pairs(&moving, pairs, max_pairs);
        self.moving_kinds = kinds;
        found
    }

    /// [`BroadPhase::find_pairs_at_most`] for `proxies` whose static proxies, if `statics` holds
    /// them, are holes.
    fn moving_pairs(
        &mut self,
        proxies: &Proxies,
        pairs: &mut Vec<(u32, u32)>,
        max_pairs: usize,
    ) -> bool {
        if self.fat.same_filters(proxies) {
            let held = self.fat.hold(proxies);
            if held || self.fat.escaped(proxies, &mut self.escaped) {
                let answered = held || {
                    self.refits += 1;
                    let grids = (&self.grid, &self.statics);
                    (self.fat).refit(proxies, &self.escaped, grids, max_pairs)
                };
                if answered {
                    self.fat_uses += 1;
                    self.fat.overlapping(proxies, pairs, &mut self.chunk_pairs);
                    return pairs.len() <= max_pairs;
                }
                self.fat.clear();
            }
        }
        self.rebuilds += 1;
        let had_fat = !self.fat.aabbs.is_empty();
        if had_fat && self.fat_uses < MIN_FAT_USES || self.still_moving(proxies) {
            self.plain_left = PLAIN_RUN;
        }
        if self.plain_left > 0 {
            self.plain_left -= 1;
            self.fat.clear();
            self.probe.clear();
            if self.plain_left == 0 {
                self.take_probe(proxies);
            }
            return self.grid_pairs(proxies, pairs, max_pairs);
        }
        self.probe.clear();
        self.fat_builds += 1;
        let mut fat = take(&mut self.fat);
        let mut fat_pairs = take(&mut fat.pairs);
        fat.fatten(proxies);
        if !self.grid_pairs(&fat.proxies(), &mut fat_pairs, max_pairs) {
            // The fattened boxes overlap in too many pairs; the boxes themselves may not.
            fat.pairs = fat_pairs;
            self.fat = fat;
            self.fat.clear();
            return self.grid_pairs(proxies, pairs, max_pairs);
        }
        fat.pairs = fat_pairs;
        // Room for what refits add, so that steady steps allocate nothing.
        fat.pairs.reserve(REFIT_RESERVE);
        fat.fresh.reserve(REFIT_RESERVE);
        self.escaped.reserve(max_off_grid(proxies.len()));
        self.fat = fat;
        self.fat_uses = 0;
        self.fat.overlapping(proxies, pairs, &mut self.chunk_pairs);
        pairs.len() <= max_pairs
    }

    /// Samples every proxy a stride apart (holes skipped) into the probe, with its fat box.
    fn take_probe(&mut self, proxies: &Proxies) {
        let stride = proxies.len().div_ceil(PROBE_SIZE).max(1);
        let live = (0..proxies.len())
            .step_by(stride)
            .filter(|&i| proxies.kinds[i] != SlotKind::Empty);
        let fat = |i: usize| (i as u32, fat_box(&proxies.aabbs[i], proxies.kinds[i]));
        self.probe.extend(live.map(fat));
    }

    /// Whether more than one in [`OFF_GRID_SHARE`] of the probe's proxies left the fat boxes
    /// the last call gave them: then fat boxes built now would most likely not answer the
    /// next call either (too many would escape to refit them), and trying them would cost a
    /// grid of more pairs for nothing. False without a probe. Proxies since emptied or
    /// removed count as staying.
    fn still_moving(&self, proxies: &Proxies) -> bool {
        let escaped = (self.probe.iter())
            .filter(|&&(i, fat)| {
                let i = i as usize;
                i < proxies.len()
                    && proxies.kinds[i] != SlotKind::Empty
                    && !inside(&proxies.aabbs[i], &fat)
            })
            .count();
        escaped * OFF_GRID_SHARE > self.probe.len()
    }

    /// How many calls so far rebuilt the grid rather than filtering the kept pairs (for
    /// tests/diagnostics).
    #[cfg(test)]
    pub fn rebuild_count(&self) -> u64 {
        self.rebuilds
    }

    /// How many calls so far refitted the kept pairs to a few proxies that left their fat
    /// boxes, rather than rebuilding the grid (for tests/diagnostics).
    #[cfg(test)]
    pub fn refit_count(&self) -> u64 {
        self.refits
    }

    /// How many calls so far built a grid of fat boxes (for tests/diagnostics).
    #[cfg(test)]
    pub fn fat_build_count(&self) -> u64 {
        self.fat_builds
    }

    /// Every overlapping pair of `proxies`, from a grid built for them; `false`, with part of
    /// them, once more than `max_pairs` were found.
    fn grid_pairs(
        &mut self,
        proxies: &Proxies,
        pairs: &mut Vec<(u32, u32)>,
        max_pairs: usize,
    ) -> bool {
        pairs.clear();
        let limit = PairLimit {
            max: max_pairs,
            found: AtomicUsize::new(0),
        };
        // Strided over the slots, then the holes skipped, rather than over the live proxies:
        // about as many boxes as strided over those, read without walking every slot on one
        // thread. (The cell size decides how fast the pairs are found, never which.)
        let active = proxies.kinds.iter().filter(|&&k| k != SlotKind::Empty);
        let sample = (proxies.aabbs.iter().zip(proxies.kinds))
            .step_by(size_stride(active.count()))
            .filter(|(_, &k)| k != SlotKind::Empty)
            .map(|(aabb, _)| aabb);
        self.cell_size = median_cell_size(sample, &mut self.sizes);
        self.grid.build(proxies, self.cell_size);

        // Each task owns a range of `a`, whose pairs `collect` lists sorted.
        let grid = &self.grid;
        in_ranges(proxies.len(), &mut self.chunk_pairs, pairs, |range, out| {
            grid.collect(proxies, range, out, &limit)
        });
        if self.statics.is_active() && !limit.exceeded() {
            let (statics, static_pairs) = (&self.statics, &mut self.static_pairs);
            static_pairs.clear();
            in_ranges(
                proxies.len(),
                &mut self.chunk_pairs,
                static_pairs,
                |range, out| {
                    limit.count_each(range, out, |q, out| statics.pairs_of(proxies, q, out))
                },
            );
            static_pairs.sort_unstable();
            merge_sorted(pairs, static_pairs);
        }
        !limit.exceeded()
    }

    /// The cell size used by the last call (for tests/diagnostics).
    #[cfg(test)]
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// How many (cell, proxy) entries the last call put into the grid (for tests/diagnostics).
    #[cfg(test)]
    pub fn grid_entry_count(&self) -> usize {
        self.grid.cells.entry_count()
    }

    /// How many proxies the last call kept out of the grid as large (for tests/diagnostics).
    #[cfg(test)]
    pub fn large_proxy_count(&self) -> usize {
        self.grid.large.len()
    }
}

/// Pairs a task finds before it adds them to the shared [`PairLimit`] count: an atomic add
/// per proxy kept the count's cache line moving between the cores. A task so runs at most this
/// many pairs past the limit.
const LIMIT_BATCH: usize = 256;

/// How many pairs the tasks of one search found together, and how many they may.
struct PairLimit {
    max: usize,
    found: AtomicUsize,
}

impl PairLimit {
    /// Counts `n` more pairs; `true` once the total is past the limit. The total only grows
    /// and every task adds all it found before it looks, so the search as a whole ends past
    /// the limit exactly when the full list would be: the outcome does not depend on timing.
    fn add(&self, n: usize) -> bool {
        let total = self.found.fetch_add(n, Ordering::Relaxed) + n;
        total > self.max
    }

    fn exceeded(&self) -> bool {
        self.found.load(Ordering::Relaxed) > self.max
    }

    /// Runs `find(item, out)` for every item of `items` (a range of proxies, or what the
    /// caller reads of each), counting the pairs it appends to `out` in batches of
    /// [`LIMIT_BATCH`], until the search as a whole is past the limit.
    #[inline(always)]
    fn count_each<T>(
        &self,
        items: impl Iterator<Item = T>,
        out: &mut Vec<(u32, u32)>,
        mut find: impl FnMut(T, &mut Vec<(u32, u32)>),
    ) {
        let mut unsent = 0;
        for item in items {
            let before = out.len();
            find(item, out);
            unsent += out.len() - before;
            if unsent >= LIMIT_BATCH && self.add(std::mem::take(&mut unsent)) {
                return;
            }
        }
        self.add(unsent);
    }
}

/// Runs `find(range, out)` over `0..n` cut into ranges, on the workers of the pool when it has
/// several, each range into a buffer of `parts` (kept from call to call), then appends the
/// buffers to `pairs` in range order; with one thread, straight into `pairs`. Where each
/// range's pairs come out sorted and the ranges ascend, `pairs` is sorted whatever the thread
/// count.
fn in_ranges(
    n: usize,
    parts: &mut Vec<Vec<(u32, u32)>>,
    pairs: &mut Vec<(u32, u32)>,
    find: impl Fn(Range<usize>, &mut Vec<(u32, u32)>) + Sync,
) {
    let threads = rayon::current_num_threads();
    let chunk = n.div_ceil(threads * CHUNKS_PER_THREAD).max(MIN_CHUNK);
    if threads == 1 || n <= chunk {
        // No task overhead and no copy.
        find(0..n, pairs);
        return;
    }
    let count = n.div_ceil(chunk);
    if parts.len() < count {
        parts.resize_with(count, Vec::new);
    }
    (parts[..count].par_iter_mut())
        .enumerate()
        .for_each(|(i, out)| {
            // Filled through a header of its own: the buffers' headers share cache lines,
            // and every pair found writes the length.
            let mut mine = take(out);
            mine.clear();
            find(i * chunk..((i + 1) * chunk).min(n), &mut mine);
            *out = mine;
        });
    for out in &parts[..count] {
        pairs.extend_from_slice(out);
    }
}

/// The overlapping pairs among the `off_grid` proxies (slots, any order) of which at least one
/// is `moving`, each once and ordered within itself: a sweep along x over their boxes. `sweep`
/// is scratch.
fn sweep_pairs(
    proxies: &Proxies,
    off_grid: &[u32],
    moving: &[bool],
    sweep: &mut Vec<(f32, u32)>,
    out: &mut Vec<(u32, u32)>,
) {
    sweep.clear();
    let live = off_grid
        .iter()
        .filter(|&&i| proxies.kinds[i as usize] != SlotKind::Empty);
    sweep.extend(live.map(|&i| (proxies.aabbs[i as usize].min.x, i)));
    sweep.sort_unstable_by(|p, q| p.0.total_cmp(&q.0).then(p.1.cmp(&q.1)));
    for (k, &(_, i)) in sweep.iter().enumerate() {
        let a = &proxies.aabbs[i as usize];
        for &(left, j) in &sweep[k + 1..] {
            // Sorted by left side: no later box starts before this one ends.
            if left > a.max.x {
                break;
            }
            let (iu, ju) = (i as usize, j as usize);
            if (moving[iu] || moving[ju])
                && overlaps(a, &proxies.aabbs[ju])
                && proxies.may_collide(iu, ju)
            {
                out.push((i.min(j), i.max(j)));
            }
        }
    }
}

/// A proxy as the pair search reads it: its slot, box and kind.
type Slot<'a> = (usize, &'a Aabb, SlotKind);

impl Grid {
    /// Rebuilds the grid for `proxies` with cells of `cell_size`.
    fn build(&mut self, proxies: &Proxies, cell_size: f32) {
        self.cells.set_cell_size(cell_size);
        let (entry_count, window, filters) = self.classify(proxies);
        self.small_pass = filters.all_pass();
        self.small_layers_pass = filters.layers_pass();
        // One part of the slots per thread, if there are enough of them.
        let n = proxies.len();
        let parts = rayon::current_num_threads().min(n / MIN_CHUNK).max(1);
        let (class, rects) = (&self.class[..n], &self.rects[..n]);
        // Zipped slices of the part, not indexed per slot: both passes of the fill walk
        // every slot, and an index per slot and array kept a bounds test for each.
        let small = |part: usize| {
            let slots = part * n / parts..(part + 1) * n / parts;
            let first = slots.start;
            (class[slots.clone()].iter().zip(&rects[slots]).enumerate())
                .filter(|(_, (&c, _))| c == Class::Small)
                .map(move |(k, (_, &r))| ((first + k) as u32, r))
        };
        self.cells.fill(entry_count, window, parts, small);
    }

    /// Sorts proxies into holes, small and large, records the cells of each, and returns how
    /// many grid entries the small ones need and the cells they span. Per-proxy work runs in
    /// parallel, in one pass; only the list of large proxies (a scan of one byte per proxy) is
    /// built in order.
    fn classify(&mut self, proxies: &Proxies) -> (usize, CellRect, SmallFilters) {
        let n = proxies.len();
        let cells = &self.cells;
        self.rects.resize(n, CellRect::default());
        self.class.resize(n, Class::Empty);
        self.uppers.resize(n, Bounds::default());
        // Chunk by chunk, counting the entries and widening the window in the same pass.
        let small = (
            (self.rects.par_chunks_mut(MIN_CHUNK)).zip(self.uppers.par_chunks_mut(MIN_CHUNK)),
            self.class.par_chunks_mut(MIN_CHUNK),
            proxies.aabbs.par_chunks(MIN_CHUNK),
            proxies.kinds.par_chunks(MIN_CHUNK),
            (proxies.layers.par_chunks(MIN_CHUNK)).zip(proxies.masks.par_chunks(MIN_CHUNK)),
        )
            .into_par_iter()
            .map(
                |((rects, uppers), classes, aabbs, kinds, (layers, masks))| {
                    let (mut entries, mut window) = (0, CellRect::EMPTY);
                    let mut filters = SmallFilters::NONE;
                    let rects = rects.iter_mut().zip(uppers);
                    let filter = kinds.iter().zip(layers).zip(masks);
                    let proxies = rects.zip(classes).zip(aabbs.iter().zip(filter));
                    for (((rect, upper), class), (aabb, ((&kind, &layer), &mask))) in proxies {
                        *rect = cells.rect(aabb);
                        *upper = Bounds::upper(aabb);
                        *class = if kind == SlotKind::Empty {
                            Class::Empty
                        } else if rect.is_large() {
                            Class::Large
                        } else {
                            entries += rect.cell_count();
                            window = window.union(*rect);
                            filters.add(kind, layer, mask);
                            Class::Small
                        };
                    }
                    (entries, window, filters)
                },
            )
            .reduce(
                || (0, CellRect::EMPTY, SmallFilters::NONE),
                |(n, a, f), (m, b, g)| (n + m, a.union(b), f.union(g)),
            );
        self.large.clear();
        // Large proxies are few: a block of classes is read with no branch per class (a few
        // vector compares) and searched one by one only where it holds one.
        for (k, block) in self.class.chunks(LARGE_SCAN_BLOCK).enumerate() {
            if (block.iter()).fold(false, |any, &c| any | (c == Class::Large)) {
                let large = (block.iter().enumerate()).filter(|(_, &c)| c == Class::Large);
                let first = k * LARGE_SCAN_BLOCK;
                self.large.extend(large.map(|(i, _)| (first + i) as u32));
            }
        }
        small
    }

    /// Appends the pairs (a, b), b > a, of every `a` in `range`, sorted.
    fn collect(
        &self,
        proxies: &Proxies,
        range: Range<usize>,
        out: &mut Vec<(u32, u32)>,
        limit: &PairLimit,
    ) {
        self.cells.search(Collect {
            grid: self,
            proxies,
            range,
            out,
            limit,
        })
    }

    /// Small partners b > a of proxy `a` (with its box and kind), found through the cells `r`
    /// it overlaps, each from the first cell the two share (`Entry::first_shared`).
    /// `within`: `a` is in the cells.
    #[inline(always)]
    fn small_partners<C: Cells>(
        &self,
        cells: &C,
        proxies: &Proxies,
        ((a, aabb, kind), r, within): (Slot, CellRect, bool),
        out: &mut Vec<(u32, u32)>,
    ) {
        let (lower, uppers) = (Bounds::lower(aabb), &self.uppers[..]);
        let start = out.len();
        // Every entry is written to the spare room (see `write_bucket`).
        let (mut len, mut room) = (start, out.capacity() - start);
        let mut spare = out.as_mut_ptr();
        // SAFETY: `within` only for a small proxy, whose rectangle the grid was filled with.
        for run in unsafe { cells.runs(r, within) } {
            // Room for every entry of the run, which is more than its partners: one test per
            // run rather than per cell.
            if run.len() > room {
                // SAFETY: the first `len` pairs are written (below, or before the call).
                unsafe { out.set_len(len) };
                out.reserve(run.len());
                (room, spare) = (out.capacity() - len, out.as_mut_ptr());
            }
            let cy = run.cy;
            run.for_each(|cx, need, bucket| {
                // SAFETY: the bucket's entries are at most `run.len() <= room`; the grid's
                // entries are of the slots of the proxies it was built from, each with a box
                // in `uppers`.
                let kept =
                    unsafe { write_bucket(a, bucket, (cx, cy, need), &lower, uppers, spare, len) };
                (len, room) = (len + kept, room - kept);
            });
        }
        // SAFETY: the pairs up to `len` were written above.
        unsafe { out.set_len(len) };
        if !(within && self.small_pairs_pass(kind)) {
            keep_colliding(proxies, a, start, out);
        }
    }

    /// [`Grid::small_partners`] of a small proxy `a` whose rectangle `r` is at most two cells
    /// wide and two high (most are): its cells' buckets at once, in the order the runs visit
    /// them, so the same pairs in the same order.
    #[inline(always)]
    fn quad_partners<C: Cells>(
        &self,
        cells: &C,
        proxies: &Proxies,
        ((a, aabb, kind), r): (Slot, CellRect),
        out: &mut Vec<(u32, u32)>,
    ) {
        debug_assert!(self.class[a] == Class::Small && r.is_quad());
        // SAFETY: `a` is small, so `r` is the rectangle the grid was filled with.
        let buckets = unsafe { cells.quad(r) };
        // Room for every entry: one test per proxy rather than per entry (see
        // `small_partners`).
        out.reserve(buckets.iter().map(|b| b.len()).sum());
        let (lower, uppers) = (Bounds::lower(aabb), &self.uppers[..]);
        let start = out.len();
        let mut len = start;
        let spare = out.as_mut_ptr();
        for (k, bucket) in buckets.into_iter().enumerate() {
            let (right, below) = (k & 1 == 1, k >= 2);
            let (cx, cy) = (r.x0 + right as i32, r.y0 + below as i32);
            let need = needed(firsts(!right, !below));
            // SAFETY: `len` plus the bucket's entries is at most `start` plus all the
            // buckets' entries, the room reserved above; the entries' boxes as in
            // `small_partners`.
            len += unsafe { write_bucket(a, bucket, (cx, cy, need), &lower, uppers, spare, len) };
        }
        // SAFETY: the pairs up to `len` were written above.
        unsafe { out.set_len(len) };
        if !self.small_pairs_pass(kind) {
            keep_colliding(proxies, a, start, out);
        }
    }

    /// Whether every pair of a small proxy of `kind` with another small proxy passes the
    /// filters ([`Proxies::may_collide`]): all small proxies do, or they all pass the layer
    /// test and it is dynamic.
    #[inline(always)]
    fn small_pairs_pass(&self, kind: SlotKind) -> bool {
        self.small_pass || (self.small_layers_pass && kind == SlotKind::Dynamic)
    }

    /// Large partners b > a of proxy `a`, of box `aabb`: those of `later`, the large proxies
    /// after `a`.
    #[inline(always)]
    fn large_partners(
        &self,
        proxies: &Proxies,
        (a, aabb): (usize, &Aabb),
        later: &[u32],
        out: &mut Vec<(u32, u32)>,
    ) {
        for &b in later {
            if aabb.overlaps(&proxies.aabbs[b as usize]) && proxies.may_collide(a, b as usize) {
                out.push((a as u32, b));
            }
        }
    }

    /// The partners of proxy `m` of `fat` (the proxies this grid was built from, with `m`'s box
    /// since refitted) among those still in the grid (not marked in `off`), each pair once
    /// and ordered within itself. A small box looks through its cells, each partner from the
    /// first cell the two share; a large one tests every proxy.
    fn partners_in_grid(&self, fat: &Proxies, m: usize, off: &[bool], out: &mut Vec<(u32, u32)>) {
        if fat.kinds[m] == SlotKind::Empty {
            return;
        }
        let aabb = &fat.aabbs[m];
        let partner = |j: usize| {
            !off[j]
                && fat.kinds[j] != SlotKind::Empty
                && overlaps(aabb, &fat.aabbs[j])
                && fat.may_collide(m, j)
        };
        let pair = |j: usize| (m.min(j) as u32, m.max(j) as u32);
        let r = self.cells.rect(aabb);
        if r.is_large() {
            out.extend((0..fat.len()).filter(|&j| partner(j)).map(pair));
            return;
        }
        for cy in r.y0..=r.y1 {
            for cx in r.x0..=r.x1 {
                let (first_col, first_row) = (cx == r.x0, cy == r.y0);
                (self.cells).first_shared_in((cx, cy), first_col, first_row, |j| {
                    if partner(j as usize) {
                        out.push(pair(j as usize));
                    }
                });
            }
        }
        let large = self.large.iter().map(|&j| j as usize);
        out.extend(large.filter(|&j| partner(j)).map(pair));
    }

    /// Partners b > a of large proxy `a`: every later non-empty proxy, tested directly. Comes
    /// out sorted.
    fn partners_of_large(&self, proxies: &Proxies, a: usize, out: &mut Vec<(u32, u32)>) {
        let aabb = &proxies.aabbs[a];
        for b in a + 1..proxies.len() {
            if self.class[b] != Class::Empty
                && aabb.overlaps(&proxies.aabbs[b])
                && proxies.may_collide(a, b)
            {
                out.push((a as u32, b as u32));
            }
        }
    }
}

/// What the filters of a set of proxies have in common: enough to tell that every two of them
/// pass ([`SmallFilters::all_pass`]).
#[derive(Clone, Copy)]
struct SmallFilters {
    /// Whether every proxy is dynamic.
    dynamic: bool,
    /// The layers every proxy is in...
    layers: u32,
    /// ...and those every proxy collides with.
    masks: u32,
}

impl SmallFilters {
    /// Of no proxy: the identity of [`SmallFilters::union`].
    const NONE: SmallFilters = SmallFilters {
        dynamic: true,
        layers: u32::MAX,
        masks: u32::MAX,
    };

    /// Takes in a proxy of `kind`, in `layers`, colliding with `mask`.
    #[inline(always)]
    fn add(&mut self, kind: SlotKind, layers: u32, mask: u32) {
        self.dynamic &= kind == SlotKind::Dynamic;
        self.layers &= layers;
        self.masks &= mask;
    }

    /// What the proxies of both have in common.
    fn union(self, o: SmallFilters) -> SmallFilters {
        SmallFilters {
            dynamic: self.dynamic & o.dynamic,
            layers: self.layers & o.layers,
            masks: self.masks & o.masks,
        }
    }

    /// Whether [`Proxies::may_collide`] holds for every two of the proxies: both are dynamic,
    /// and they pass the layer test ([`SmallFilters::layers_pass`]).
    fn all_pass(&self) -> bool {
        self.dynamic && self.layers_pass()
    }

    /// Whether every two of the proxies pass the layer test of [`Proxies::may_collide`]: a
    /// layer they are all in is one they all collide with.
    fn layers_pass(&self) -> bool {
        self.layers & self.masks != 0
    }
}

/// [`Grid::collect`] over the buckets of the grid's layout.
struct Collect<'a, 'p> {
    grid: &'a Grid,
    proxies: &'a Proxies<'p>,
    range: Range<usize>,
    out: &'a mut Vec<(u32, u32)>,
    limit: &'a PairLimit,
}

impl CellSearch for Collect<'_, '_> {
    type Output = ();

    fn run<C: Cells>(self, cells: C) {
        let Collect {
            grid,
            proxies,
            range,
            out,
            limit,
        } = self;
        let n = proxies.len();
        // The large proxies after `a`, stepped on as `a` grows.
        let first_large = grid.large.partition_point(|&b| (b as usize) < range.start);
        let mut later_large = &grid.large[first_large..];
        // Each slot's class, cells, box and kind from slices of the range zipped, not indexed
        // per slot: an index per slot and array kept a bounds test for each.
        let r = range.clone();
        let slots = (grid.class[r.clone()].iter().zip(&grid.rects[r.clone()]))
            .zip(proxies.aabbs[r.clone()].iter().zip(&proxies.kinds[r]));
        let slots = range.zip(slots);
        limit.count_each(slots, out, |(a, ((&class, &r), (aabb, &kind))), out| {
            while let [b, rest @ ..] = later_large {
                if *b as usize > a {
                    break;
                }
                later_large = rest;
            }
            let through_cells = match class {
                Class::Empty => return,
                Class::Small => true,
                // Where its cells are few next to the proxies it must pair with (a platform
                // among a pile's boxes, not a ground the size of the world).
                Class::Large => r.cell_count() <= (n - a - 1) / SCAN_PER_CELL,
            };
            if through_cells {
                let before = out.len();
                // A large proxy's cells are not in the grid: they may reach beyond it.
                let within = class == Class::Small;
                let slot = (a, aabb, kind);
                if within && r.is_quad() {
                    grid.quad_partners(&cells, proxies, (slot, r), out);
                } else {
                    grid.small_partners(&cells, proxies, (slot, r, within), out);
                }
                grid.large_partners(proxies, (a, aabb), later_large, out);
                // Few partners per proxy: sorting them here keeps the whole output sorted
                // without a global sort.
                sort_partners(&mut out[before..]);
            } else {
                grid.partners_of_large(proxies, a, out);
            }
        });
    }
}

/// Writes the pairs `(a, b)` of the entries b > a of `bucket`, the bucket of cell `(cx, cy)`,
/// from `spare + len` on, and returns how many of them to keep: those whose first shared cell
/// this is (see [`Entry::first_shared`]) and whose box overlaps `lower`. Every entry is written
/// and kept by counting it when the tests pass: they pass or fail unpredictably, and a branch
/// or a push per entry cost more than the write.
///
/// # Safety
/// `spare + len` has room for every entry of `bucket`, and every entry is of a slot that
/// `uppers` has a box for.
#[inline(always)]
unsafe fn write_bucket<E: Entry>(
    a: usize,
    bucket: &[E],
    (cx, cy, need): (i32, i32, u8),
    lower: &Bounds,
    uppers: &[Bounds],
    spare: *mut (u32, u32),
    len: usize,
) -> usize {
    let mut end = len;
    // Buckets are filled in descending slot order: past `a`, no entry can be a partner b > a.
    for e in bucket.iter().take_while(|e| e.id() as usize > a) {
        let b = e.id() as usize;
        debug_assert!(b < uppers.len());
        // SAFETY: the caller's promise that `uppers` has a box for every entry.
        let upper = unsafe { uppers.get_unchecked(b) };
        let hit = e.first_shared(cx, cy, need) & lower.overlap(upper);
        // SAFETY: `end` is below `len` plus the entries taken, within the caller's room.
        unsafe { spare.add(end).write((a as u32, e.id())) };
        end += hit as usize;
    }
    end - len
}

/// Keeps of the pairs `out[start..]`, partners `(a, b)` of proxy `a`, those that pass the
/// filters ([`Proxies::may_collide`]), in order.
#[inline(always)]
fn keep_colliding(proxies: &Proxies, a: usize, start: usize, out: &mut Vec<(u32, u32)>) {
    // The filters almost always pass (both proxies dynamic, default layers).
    let mut kept = start;
    for i in start..out.len() {
        let pair = out[i];
        if proxies.may_collide(a, pair.1 as usize) {
            out[kept] = pair;
            kept += 1;
        }
    }
    out.truncate(kept);
}

/// Sorts the partners `(a, b)` of one proxy `a` by `b`: by insertion, inlined, where they are
/// as few as a proxy's partners in the cells usually are (a call to the library's sort costs
/// more than sorting them).
#[inline(always)]
fn sort_partners(pairs: &mut [(u32, u32)]) {
    if pairs.len() > SORT_BY_INSERTION {
        pairs.sort_unstable_by_key(|&(_, b)| b);
        return;
    }
    for i in 1..pairs.len() {
        let p = pairs[i];
        let mut j = i;
        while j > 0 && pairs[j - 1].1 > p.1 {
            pairs[j] = pairs[j - 1];
            j -= 1;
        }
        pairs[j] = p;
    }
}

/// Partners of one proxy that [`sort_partners`] sorts by insertion.
const SORT_BY_INSERTION: usize = 12;

/// A look into one cell costs about as much as testing this many proxies directly: a large
/// proxy looks through its cells when it has at most one per this many later proxies.
const SCAN_PER_CELL: usize = 8;
