//! A grid hash over a set of boxes that changes seldom, asked which of them another box may
//! overlap: the sleeping bodies (rebuilt when an island falls asleep or wakes), the static
//! bodies where they are many (rebuilt when one changes, see `static_grid`), and the static
//! bodies a fast body's path may cross (see `continuous.rs`).

use crate::broad_phase::grid::{choose_cell_size, CellRect, HashGrid};
use crate::geometry::math::Aabb;

/// A query box covering more cells than this is tested against every box instead.
const MAX_QUERY_CELLS: usize = 256;

/// A set of boxes, each with an id, in cells.
#[derive(Clone, Default)]
pub(crate) struct BoxGrid {
    /// The cells of the boxes that are not large.
    cells: HashGrid,
    /// Ids of the boxes kept out of the cells, in the order given.
    large: Vec<u32>,
    /// Every id, in the order given (for queries too large for the cells).
    all: Vec<u32>,
    /// Scratch for the cell size sample.
    sizes: Vec<f32>,
}

impl BoxGrid {
    /// Rebuilds the grid from the boxes `box_of(id)` of `ids`, which must ascend.
    pub fn build<'a>(&mut self, ids: impl Iterator<Item = u32>, box_of: impl Fn(u32) -> &'a Aabb) {
        self.all.clear();
        self.all.extend(ids);
        let boxes = self.all.iter().map(|&id| box_of(id));
        let cell_size = choose_cell_size(boxes, self.all.len(), &mut self.sizes);
        self.cells.set_cell_size(cell_size);

        self.large.clear();
        let mut small = Vec::with_capacity(self.all.len());
        for &id in &self.all {
            let r = self.cells.rect(box_of(id));
            if r.is_large() {
                self.large.push(id);
            } else {
                small.push((id, r));
            }
        }
        let entry_count = small.iter().map(|(_, r)| r.cell_count()).sum();
        let window = small.iter().fold(CellRect::EMPTY, |w, &(_, r)| w.union(r));
        self.cells
            .fill(entry_count, window, 1, |_| small.iter().copied());
    }

    /// Whether the grid holds no box.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// Calls `visit(id)` once for every box that may overlap `aabb`: each box sharing a cell
    /// with it (from the first cell the two share), each large box, or, for a query too large
    /// for the cells, every box. The caller tests the overlap.
    pub fn candidates(&self, aabb: &Aabb, mut visit: impl FnMut(u32)) {
        let r = self.cells.rect(aabb);
        if r.cell_count() > MAX_QUERY_CELLS {
            self.all.iter().for_each(|&id| visit(id));
            return;
        }
        for cy in r.y0..=r.y1 {
            for cx in r.x0..=r.x1 {
                let (first_col, first_row) = (cx == r.x0, cy == r.y0);
                (self.cells).first_shared_in((cx, cy), first_col, first_row, &mut visit);
            }
        }
        self.large.iter().for_each(|&id| visit(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::math::Vec2;

    /// Every box a query overlaps is visited exactly once, and no box twice, whether it sits in
    /// the cells, is large, or the query is too large for the cells.
    #[test]
    fn candidates_hold_every_overlapping_box_once() {
        let mut state = 0x1234_5678_u32;
        let mut unit = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state % 1_000_000) as f32 / 1_000_000.0
        };
        let mut random_box = |spread: f32, size: f32| {
            let min = Vec2::new(spread * (unit() - 0.5), spread * (unit() - 0.5));
            Aabb::new(min, min + Vec2::new(size * unit(), size * unit()))
        };
        // Mostly tiles, some long walls, some points.
        let boxes: Vec<Aabb> = (0..600)
            .map(|i| match i % 20 {
                0 => random_box(50.0, 40.0),
                1 => random_box(50.0, 0.0),
                _ => random_box(50.0, 1.5),
            })
            .collect();
        // Every third box, so that ids are not all positions.
        let ids: Vec<u32> = (0..boxes.len() as u32).step_by(3).collect();
        let mut grid = BoxGrid::default();
        grid.build(ids.iter().copied(), |id| &boxes[id as usize]);
        assert!(!grid.large.is_empty() && grid.cells.entry_count() > 0);
        for q in 0..300 {
            let query = match q % 10 {
                0 => random_box(50.0, 200.0),
                _ => random_box(50.0, 4.0),
            };
            let mut visits = vec![0; boxes.len()];
            grid.candidates(&query, |id| visits[id as usize] += 1);
            for (id, &n) in visits.iter().enumerate() {
                assert!(n <= 1, "query {q}: box {id} visited {n} times");
                let expected = ids.contains(&(id as u32)) && boxes[id].overlaps(&query);
                assert!(n == 1 || !expected, "query {q}: box {id} missed");
            }
        }
    }
}
