//! The broadphase of sleeping bodies: a grid hash of their bounding boxes that persists while
//! they sleep and is rebuilt only when an island falls asleep or wakes.
//!
//! Sleeping bodies stay out of the grid the broadphase rebuilds every step, so a step pays
//! nothing for them there. What it still needs are the pairs of an awake body and a sleeping
//! one, the contacts that wake islands: each moving body asks this grid for the sleeping boxes
//! it overlaps. At rest no body moves and the step asks nothing at all.

use crate::body::SlotKind;
use crate::broad_phase::box_grid::BoxGrid;
use crate::geometry::math::{Aabb, Vec2};
use rayon::prelude::*;

/// Queries per parallel task.
const QUERIES_PER_TASK: usize = 512;

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
#[derive(Clone, Default)]
pub(crate) struct RestingGrid {
    /// The sleeping set changed since the last build.
    stale: bool,
    /// The sleeping boxes, by slot.
    boxes: BoxGrid,
    /// One output buffer per parallel task.
    task_pairs: Vec<Vec<(u32, u32)>>,
}

impl RestingGrid {
    /// Some body fell asleep or woke: rebuild before the next query.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Whether no body sleeps (as of the last build).
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// Rebuilds the grid from the sleeping slots if the sleeping set changed.
    pub fn refresh(&mut self, asleep: &[bool], aabbs: &[Aabb]) {
        if !self.stale {
            return;
        }
        self.stale = false;
        let sleeping = (0..asleep.len() as u32).filter(|&s| asleep[s as usize]);
        self.boxes.build(sleeping, |s| &aabbs[s as usize]);
    }

    /// Appends to `pairs` every pair `(min, max)` of a moving body of `queries` and a sleeping
    /// body whose boxes overlap and whose filters let them collide, sorted and each once.
    /// `queries` must hold awake bodies only.
    pub fn query(&mut self, queries: &[u32], input: &QueryInput, pairs: &mut Vec<(u32, u32)>) {
        let start = pairs.len();
        if self.boxes.is_empty() || queries.is_empty() {
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
        let report = |s: u32| {
            if aabb.overlaps(&input.aabbs[s as usize]) && input.may_collide(q, s as usize) {
                let q = q as u32;
                out.push((q.min(s), q.max(s)));
            }
        };
        self.boxes.candidates(aabb, report);
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
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
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
