//! The cells of a uniform grid over the plane, shared by the broadphase grid and the grid of
//! sleeping bodies: which cell a coordinate falls in, and the rectangle of cells a box covers.

use crate::geometry::math::Aabb;

/// Cell coordinates are clamped to `[-LIMIT, LIMIT]` so that far-away or huge boxes cannot
/// overflow `i32`, not even in the difference of two coordinates. Clamping keeps the mapping
/// monotonic, which is all the pair rules need.
const CELL_COORD_LIMIT: f32 = (1u32 << 29) as f32;

/// The cell coordinate of `v` in a grid of cells `1 / inv_cell` wide. Monotonic in `v`, so the
/// cell of the larger of two values is the larger of their cells.
#[inline]
fn cell_coord(v: f32, inv_cell: f32) -> i32 {
    (v * inv_cell)
        .floor()
        .clamp(-CELL_COORD_LIMIT, CELL_COORD_LIMIT) as i32
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
        width * height
    }
}
