//! The broadphase of sleeping bodies: a grid hash of their bounding boxes that persists while
//! they sleep and is rebuilt only when an island falls asleep or wakes.
//!
//! Sleeping bodies stay out of the grid the broadphase rebuilds every step, so a step pays
//! nothing for them there. What it still needs are the pairs of an awake body and a sleeping
//! one, the contacts that wake islands: each moving body asks this grid for the sleeping boxes
//! it overlaps. At rest no body moves and the step asks nothing at all.

use crate::body::SlotKind;
use crate::broad_phase::grid_cells::CellRect;
use crate::geometry::math::{Aabb, Vec2};
use rayon::prelude::*;

/// Cells are this many times the median size of a sleeping box: a box then covers one to four
/// cells, and a cell holds few boxes.
const CELL_PER_TYPICAL_SIZE: f32 = 2.0;
/// Bounds on the cell size (m), so that points and huge boxes cannot make a degenerate grid.
const MIN_CELL_SIZE: f32 = 0.05;
const MAX_CELL_SIZE: f32 = 1000.0;
/// A box spanning more cells than this along an axis is kept out of the cells and tested
/// against every query directly: there are few of them, and they would fill many cells each.
const MAX_CELLS_PER_AXIS: i32 = 8;
/// A query box covering more cells than this is tested against every sleeping box instead.
const MAX_QUERY_CELLS: usize = 256;
/// Queries per parallel task.
const QUERIES_PER_TASK: usize = 512;

/// One cell of one sleeping box. The box's first cell is kept so that a pair found in several
/// shared cells is reported from one of them only.
#[derive(Clone, Copy, Debug)]
struct Entry {
    cx: i32,
    cy: i32,
    x0: i32,
    y0: i32,
    slot: u32,
}

/// What a query reads of the bodies, as columns indexed by slot.
pub(crate) struct QueryInput<'a> {
    pub aabbs: &'a [Aabb],
    pub kinds: &'a [SlotKind],
    pub layers: &'a [u32],
    pub masks: &'a [u32],
    pub linear_velocity: &'a [Vec2],
    pub angular_velocity: &'a [f32],
}

impl QueryInput<'_> {
    fn may_collide(&self, a: usize, b: usize) -> bool {
        (self.layers[a] & self.masks[b]) != 0 && (self.layers[b] & self.masks[a]) != 0
    }

    /// A kinematic body at rest cannot wake anything: it is not queried.
    fn moves(&self, slot: usize) -> bool {
        self.kinds[slot] != SlotKind::Kinematic
            || self.linear_velocity[slot] != Vec2::ZERO
            || self.angular_velocity[slot] != 0.0
    }
}

/// The grid of sleeping boxes.
#[derive(Default)]
pub(crate) struct RestingGrid {
    /// The sleeping set changed since the last build.
    stale: bool,
    inv_cell: f32,
    /// Sleeping slots kept out of the cells, ascending.
    large: Vec<u32>,
    /// Every sleeping slot, ascending (for queries too large for the cells).
    all: Vec<u32>,
    bucket_mask: u32,
    /// Bucket `h` holds `entries[starts[h]..starts[h + 1]]`.
    starts: Vec<u32>,
    entries: Vec<Entry>,
    /// One output buffer per parallel task.
    task_pairs: Vec<Vec<(u32, u32)>>,
}

fn bucket(cx: i32, cy: i32, mask: u32) -> usize {
    let h = (cx as u32).wrapping_mul(0x8DA6_B343) ^ (cy as u32).wrapping_mul(0xD816_3841);
    (h.rotate_left(7) & mask) as usize
}

impl RestingGrid {
    /// Some body fell asleep or woke: rebuild before the next query.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Whether no body sleeps (as of the last build).
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// Rebuilds the grid from the sleeping slots if the sleeping set changed.
    pub fn refresh(&mut self, asleep: &[bool], aabbs: &[Aabb]) {
        if !self.stale {
            return;
        }
        self.stale = false;
        self.all.clear();
        self.all
            .extend((0..asleep.len() as u32).filter(|&s| asleep[s as usize]));
        self.choose_cell_size(aabbs);

        self.large.clear();
        let mut cells = Vec::with_capacity(self.all.len());
        for &s in &self.all {
            let r = CellRect::of(&aabbs[s as usize], self.inv_cell);
            if r.x1 - r.x0 >= MAX_CELLS_PER_AXIS || r.y1 - r.y0 >= MAX_CELLS_PER_AXIS {
                self.large.push(s);
            } else {
                cells.push((s, r));
            }
        }
        let entry_count: usize = cells.iter().map(|(_, r)| r.cell_count()).sum();
        let table = (2 * entry_count).max(1).next_power_of_two();
        self.bucket_mask = (table - 1) as u32;
        // Counting sort of the entries into their buckets.
        self.starts.clear();
        self.starts.resize(table + 1, 0);
        let each_entry = |f: &mut dyn FnMut(Entry)| {
            for &(slot, r) in &cells {
                for cy in r.y0..=r.y1 {
                    for cx in r.x0..=r.x1 {
                        let (x0, y0) = (r.x0, r.y0);
                        f(Entry {
                            cx,
                            cy,
                            x0,
                            y0,
                            slot,
                        });
                    }
                }
            }
        };
        let mask = self.bucket_mask;
        each_entry(&mut |e| self.starts[bucket(e.cx, e.cy, mask) + 1] += 1);
        for h in 0..table {
            self.starts[h + 1] += self.starts[h];
        }
        let mut fill = self.starts.clone();
        let placeholder = Entry {
            cx: 0,
            cy: 0,
            x0: 0,
            y0: 0,
            slot: 0,
        };
        self.entries.clear();
        self.entries.resize(entry_count, placeholder);
        let entries = &mut self.entries;
        each_entry(&mut |e| {
            let h = bucket(e.cx, e.cy, mask);
            entries[fill[h] as usize] = e;
            fill[h] += 1;
        });
    }

    /// Twice the median extent of the sleeping boxes, from an evenly strided sample.
    fn choose_cell_size(&mut self, aabbs: &[Aabb]) {
        let stride = self.all.len().div_ceil(1024).max(1);
        let mut sizes: Vec<f32> = self
            .all
            .iter()
            .step_by(stride)
            .map(|&s| {
                let e = aabbs[s as usize].extents();
                e.x.max(e.y)
            })
            .filter(|&size| size > 0.0)
            .collect();
        let cell = if sizes.is_empty() {
            1.0
        } else {
            let mid = sizes.len() / 2;
            let (_, median, _) = sizes.select_nth_unstable_by(mid, f32::total_cmp);
            (*median * CELL_PER_TYPICAL_SIZE).clamp(MIN_CELL_SIZE, MAX_CELL_SIZE)
        };
        self.inv_cell = 1.0 / cell;
    }

    /// Appends to `pairs` every pair `(min, max)` of a moving body of `queries` and a sleeping
    /// body whose boxes overlap and whose filters let them collide, sorted and each once.
    /// `queries` must hold awake bodies only.
    pub fn query(&mut self, queries: &[u32], input: &QueryInput, pairs: &mut Vec<(u32, u32)>) {
        let start = pairs.len();
        if self.all.is_empty() || queries.is_empty() {
            return;
        }
        let tasks = queries.len().div_ceil(QUERIES_PER_TASK);
        if self.task_pairs.len() < tasks {
            self.task_pairs.resize_with(tasks, Vec::new);
        }
        let mut outputs = std::mem::take(&mut self.task_pairs);
        let grid = &*self;
        outputs[..tasks]
            .par_iter_mut()
            .zip(queries.par_chunks(QUERIES_PER_TASK))
            .for_each(|(out, chunk)| {
                out.clear();
                for &q in chunk {
                    if input.moves(q as usize) {
                        grid.overlaps_of(q as usize, input, out);
                    }
                }
            });
        for out in &outputs[..tasks] {
            pairs.extend_from_slice(out);
        }
        self.task_pairs = outputs;
        // Pairs are unique, so the sorted order is the same whatever the tasks were.
        pairs[start..].sort_unstable();
    }

    /// The sleeping partners of the awake body `q`.
    fn overlaps_of(&self, q: usize, input: &QueryInput, out: &mut Vec<(u32, u32)>) {
        let aabb = &input.aabbs[q];
        let mut report = |s: u32| {
            if aabb.overlaps(&input.aabbs[s as usize]) && input.may_collide(q, s as usize) {
                let q = q as u32;
                out.push((q.min(s), q.max(s)));
            }
        };
        let r = CellRect::of(aabb, self.inv_cell);
        if r.cell_count() > MAX_QUERY_CELLS {
            self.all.iter().for_each(|&s| report(s));
            return;
        }
        for cy in r.y0..=r.y1 {
            for cx in r.x0..=r.x1 {
                let h = bucket(cx, cy, self.bucket_mask);
                for e in &self.entries[self.starts[h] as usize..self.starts[h + 1] as usize] {
                    // The pair's first shared cell is the one at the larger of both first
                    // columns and rows: report it there only.
                    let here = e.cx == cx && e.cy == cy;
                    if here && cx == r.x0.max(e.x0) && cy == r.y0.max(e.y0) {
                        report(e.slot);
                    }
                }
            }
        }
        self.large.iter().for_each(|&s| report(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small xorshift generator: reproducible random scenes without a dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn unit(&mut self) -> f32 {
            (self.next() % 1_000_000) as f32 / 1_000_000.0
        }
    }

    /// Every query against every sleeping box, the definition `query` must meet.
    #[test]
    fn query_matches_brute_force() {
        for seed in 1..30u64 {
            let mut rng = Rng(seed * 0x9E37_79B9_7F4A_7C15);
            let n = 400;
            let mut aabbs = Vec::new();
            let mut kinds = Vec::new();
            let mut asleep = Vec::new();
            let mut layers = Vec::new();
            let mut masks = Vec::new();
            let mut velocity = Vec::new();
            for i in 0..n {
                // Mostly unit-sized boxes, some points, some huge ones.
                let size = match rng.next() % 10 {
                    0 => 0.0,
                    1 => 30.0 * rng.unit(),
                    _ => 0.2 + rng.unit(),
                };
                let min = Vec2::new(40.0 * rng.unit() - 20.0, 40.0 * rng.unit() - 20.0);
                aabbs.push(Aabb::new(min, min + Vec2::new(size, size * rng.unit())));
                let kind = match rng.next() % 6 {
                    0 => SlotKind::Kinematic,
                    _ => SlotKind::Dynamic,
                };
                kinds.push(kind);
                asleep.push(kind == SlotKind::Dynamic && rng.next().is_multiple_of(2));
                layers.push(1 + (rng.next() % 3) as u32);
                masks.push(if i % 7 == 0 { 1 } else { u32::MAX });
                velocity.push(if rng.next().is_multiple_of(2) {
                    Vec2::ZERO
                } else {
                    Vec2::new(1.0, 0.0)
                });
            }
            let angular = vec![0.0; n];
            let input = QueryInput {
                aabbs: &aabbs,
                kinds: &kinds,
                layers: &layers,
                masks: &masks,
                linear_velocity: &velocity,
                angular_velocity: &angular,
            };
            let queries: Vec<u32> = (0..n as u32).filter(|&s| !asleep[s as usize]).collect();
            let mut grid = RestingGrid::default();
            grid.mark_stale();
            grid.refresh(&asleep, &aabbs);
            let mut found = vec![(0, 0)];
            grid.query(&queries, &input, &mut found);
            assert_eq!(found[0], (0, 0), "query must append, not overwrite");

            let mut expected = vec![(0, 0)];
            for &q in &queries {
                let q = q as usize;
                for s in (0..n).filter(|&s| asleep[s]) {
                    if input.moves(q) && aabbs[q].overlaps(&aabbs[s]) && input.may_collide(q, s) {
                        expected.push((q.min(s) as u32, q.max(s) as u32));
                    }
                }
            }
            expected[1..].sort_unstable();
            assert_eq!(found, expected, "seed {seed}");
            assert!(
                expected.len() > 10,
                "seed {seed}: too few pairs to test anything"
            );
        }
    }
}
