//! World queries: rays and overlaps against the bodies where they are now, and what every
//! query shares (the filter, the grid, the candidates); shape casts are in `shape_cast.rs`.
//!
//! Queries search a grid (`broad_phase/query_grid.rs`) of the bodies' current tight boxes,
//! rebuilt on the first query after a step, `add_body` or `remove_body` (see `query_grid.rs`
//! for why).
//! Each candidate is then tested exactly against its shape. Results are deterministic: ties are
//! broken, and lists sorted, by body slot, which is creation order unless a body was removed
//! and its slot reused.

use crate::body::BodyId;
use crate::broad_phase::query_grid::{clip_to_box, QueryGrid};
use crate::error::{check_finite, Error};
use crate::geometry::distance::check_transform;
use crate::geometry::exact_overlap::{overlap, Core};
use crate::geometry::math::{Aabb, Transform, Vec2};
use crate::geometry::ray::{cast_ray, contains_point, ShapeRayHit};
use crate::geometry::shape::Shape;
use crate::narrow_phase::manifold::{chain_faces, chain_segment_faces};
use crate::world::World;
use std::sync::PoisonError;

/// Which bodies a query sees, with the collision filter's rule: a body is seen when
/// `(filter.layers & body.mask) != 0 && (body.layers & filter.mask) != 0`, where the body's
/// `layers` and `mask` are those of its [`ShapeDef`](crate::ShapeDef). A compound body is
/// tested shape by shape: only its shapes this rule accepts can be hit or overlapped, and a
/// hit reports the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueryFilter {
    /// Layers the query is in. Default `1`, like a shape's.
    pub layers: u32,
    /// Layers the query sees. Default all.
    pub mask: u32,
}

impl Default for QueryFilter {
    fn default() -> Self {
        QueryFilter {
            layers: 1,
            mask: u32::MAX,
        }
    }
}

impl QueryFilter {
    /// The default filter: in layer 1, sees every layer.
    pub fn new() -> QueryFilter {
        QueryFilter::default()
    }

    /// Sets the layers the query is in.
    pub fn layers(mut self, layers: u32) -> QueryFilter {
        self.layers = layers;
        self
    }

    /// Sets the layers the query sees.
    pub fn mask(mut self, mask: u32) -> QueryFilter {
        self.mask = mask;
        self
    }

    fn accepts(&self, layers: u32, mask: u32) -> bool {
        self.layers & mask != 0 && layers & self.mask != 0
    }
}

/// Where a ray enters a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The body hit.
    pub body: BodyId,
    /// World entry point `origin + fraction * translation`.
    pub point: Vec2,
    /// Outward unit surface normal of the body at `point`.
    pub normal: Vec2,
    /// Where along the ray, in units of its translation.
    pub fraction: f32,
}

impl World {
    /// The first body the ray `origin + t * translation`, `t` in `0..=max_fraction`, enters.
    /// A body the ray starts inside is not reported. Ties go to the lowest slot. A compound
    /// body is hit where the ray first enters one of its shapes (one it does not start
    /// inside), and the hit names the body.
    ///
    /// `Err` for non-finite input, a zero translation or a negative `max_fraction`.
    pub fn cast_ray(
        &self,
        origin: Vec2,
        translation: Vec2,
        max_fraction: f32,
        filter: QueryFilter,
    ) -> Result<Option<RayHit>, Error> {
        check_ray(origin, translation, max_fraction)?;
        let mut best: Option<(u32, ShapeRayHit)> = None;
        self.with_query_grid(|grid| {
            let consider = |best: &mut Option<(u32, ShapeRayHit)>, slot: u32| {
                let hit = self.ray_hit(grid, slot, origin, translation, max_fraction, filter);
                if let Some(hit) = hit {
                    if best.is_none_or(|(s, b)| (hit.fraction, slot) < (b.fraction, s)) {
                        *best = Some((slot, hit));
                    }
                }
            };
            for &s in &grid.large {
                consider(&mut best, s);
            }
            grid.walk_ray(origin, translation, max_fraction, |items, exit| {
                for &s in items {
                    consider(&mut best, s);
                }
                // Bodies in later cells are entered at or after this cell's exit.
                best.is_some_and(|(_, b)| b.fraction < exit)
            });
        });
        Ok(best.map(|(slot, hit)| self.ray_result(slot, hit)))
    }

    /// Every body the ray enters (see [`World::cast_ray`]), in the order the ray enters them,
    /// ties by slot. The order is that of the entries before their fractions are rounded to
    /// f32: hits whose `fraction`s round alike keep it, whatever their slots.
    pub fn cast_ray_all(
        &self,
        origin: Vec2,
        translation: Vec2,
        max_fraction: f32,
        filter: QueryFilter,
    ) -> Result<Vec<RayHit>, Error> {
        check_ray(origin, translation, max_fraction)?;
        let mut hits = self.with_query_grid(|grid| {
            let mut candidates = grid.large.clone();
            grid.walk_ray(origin, translation, max_fraction, |items, _| {
                candidates.extend_from_slice(items);
                false
            });
            sort_unique(&mut candidates);
            candidates
                .into_iter()
                .filter_map(|s| {
                    self.ray_hit(grid, s, origin, translation, max_fraction, filter)
                        .map(|hit| (s, hit))
                })
                .collect::<Vec<_>>()
        });
        hits.sort_by(|(sa, a), (sb, b)| a.fraction.total_cmp(&b.fraction).then(sa.cmp(sb)));
        Ok(hits
            .into_iter()
            .map(|(slot, hit)| self.ray_result(slot, hit))
            .collect())
    }

    /// Bodies whose shape overlaps or touches the box, in slot order. `Err` for a non-finite
    /// box or one with `min > max`.
    pub fn overlap_aabb(&self, aabb: Aabb, filter: QueryFilter) -> Result<Vec<BodyId>, Error> {
        let ordered = aabb.min.x <= aabb.max.x && aabb.min.y <= aabb.max.y;
        if !(aabb.min.is_finite() && aabb.max.is_finite() && ordered) {
            return Err(Error::InvalidParameter(format!(
                "aabb must be finite with min <= max, got {aabb:?}"
            )));
        }
        let region = Core::rect(aabb.min, aabb.max);
        let middle = (aabb.min + aabb.max) * 0.5;
        Ok(self.overlaps(aabb, filter, |slot| {
            let xf = self.bodies.transform(slot);
            self.seen_shapes(slot, filter).any(|(_, shape)| {
                chain_segment_faces(shape, xf, middle) && overlap(&region, &Core::of(shape, xf))
            })
        }))
    }

    /// Bodies containing the point (boundary included), in slot order. `Err` for a non-finite
    /// point.
    pub fn overlap_point(&self, point: Vec2, filter: QueryFilter) -> Result<Vec<BodyId>, Error> {
        if !point.is_finite() {
            return Err(Error::InvalidParameter(format!(
                "point must be finite, got {point:?}"
            )));
        }
        Ok(self.overlaps(Aabb::new(point, point), filter, |slot| {
            let xf = self.bodies.transform(slot);
            self.seen_shapes(slot, filter).any(|(_, shape)| {
                chain_segment_faces(shape, xf, point) && contains_point(shape, xf, point)
            })
        }))
    }

    /// Bodies whose shape overlaps or touches `shape` with its origin at `transform`, in slot
    /// order. `Err` for a non-finite or non-unit transform.
    pub fn overlap_shape(
        &self,
        shape: &Shape,
        transform: Transform,
        filter: QueryFilter,
    ) -> Result<Vec<BodyId>, Error> {
        check_transform("transform", transform)?;
        let query = Core::of(shape, transform);
        Ok(self.overlaps(shape.aabb(transform), filter, |slot| {
            let xf = self.bodies.transform(slot);
            self.seen_shapes(slot, filter).any(|(_, body)| {
                chain_faces(body, xf, shape, transform) && overlap(&query, &Core::of(body, xf))
            })
        }))
    }

    /// Marks the query grid stale: to be called by anything that moves, adds or removes bodies.
    pub(super) fn invalidate_queries(&mut self) {
        self.query_grid
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .invalidate();
    }

    /// Runs `f` on an up-to-date query grid, rebuilding it first if the world changed. Queries
    /// take `&self`, so the grid sits behind a lock: concurrent queries share the read lock,
    /// and only the first one after a change takes the write lock to rebuild.
    pub(super) fn with_query_grid<R>(&self, f: impl FnOnce(&QueryGrid) -> R) -> R {
        {
            let grid = self
                .query_grid
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            if grid.is_valid() {
                return f(&grid);
            }
        }
        let mut grid = self
            .query_grid
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if !grid.is_valid() {
            grid.rebuild(&self.bodies);
        }
        f(&grid)
    }

    /// Slots of the bodies the filter accepts whose box overlaps `region`, ascending.
    pub(super) fn candidates(
        &self,
        grid: &QueryGrid,
        region: Aabb,
        filter: QueryFilter,
    ) -> Vec<usize> {
        let mut out: Vec<u32> = grid
            .large
            .iter()
            .copied()
            .filter(|&s| grid.aabbs[s as usize].overlaps(&region))
            .collect();
        if let Some(range) = grid.grid_range(&region) {
            grid.for_each_cell_in(range, |items| {
                let touching = items
                    .iter()
                    .filter(|&&s| grid.aabbs[s as usize].overlaps(&region));
                out.extend(touching);
            });
        }
        sort_unique(&mut out);
        out.into_iter()
            .map(|s| s as usize)
            .filter(|&s| filter.accepts(self.bodies.layers()[s], self.bodies.mask()[s]))
            .collect()
    }

    /// Bodies among the candidates of `region` for which `exact(slot)` holds, in slot order.
    fn overlaps(
        &self,
        region: Aabb,
        filter: QueryFilter,
        exact: impl Fn(usize) -> bool,
    ) -> Vec<BodyId> {
        let candidates = self.with_query_grid(|grid| self.candidates(grid, region, filter));
        candidates
            .into_iter()
            .filter(|&s| exact(s))
            .map(|s| self.bodies.id(s))
            .collect()
    }

    /// The ray's entry into body `slot`, if the filter accepts the body.
    fn ray_hit(
        &self,
        grid: &QueryGrid,
        slot: u32,
        origin: Vec2,
        translation: Vec2,
        max_fraction: f32,
        filter: QueryFilter,
    ) -> Option<ShapeRayHit> {
        let s = slot as usize;
        if !filter.accepts(self.bodies.layers()[s], self.bodies.mask()[s]) {
            return None;
        }
        let aabb = padded(grid.aabbs[s]);
        clip_to_box(origin, translation, max_fraction.into(), aabb.min, aabb.max)?;
        let xf = self.bodies.transform(s);
        let mut best: Option<ShapeRayHit> = None;
        for (_, shape) in self.seen_shapes(s, filter) {
            let hit = cast_ray(shape, xf, origin, translation, max_fraction);
            if let Some(hit) = hit {
                // The first shape entered; ties to the lowest shape.
                if best.is_none_or(|b| hit.fraction < b.fraction) {
                    best = Some(hit);
                }
            }
        }
        best
    }

    /// The shapes of the body in `slot` that `filter` sees, with their indices: its one shape,
    /// or those of a compound body whose own layers and mask the filter accepts.
    pub(super) fn seen_shapes(
        &self,
        slot: usize,
        filter: QueryFilter,
    ) -> impl Iterator<Item = (usize, &Shape)> + '_ {
        let b = &self.bodies;
        b.shapes(slot).iter().enumerate().filter(move |&(i, _)| {
            let (layers, mask) = b.child_filter(slot, i);
            filter.accepts(layers, mask)
        })
    }

    fn ray_result(&self, slot: u32, hit: ShapeRayHit) -> RayHit {
        RayHit {
            body: self.bodies.id(slot as usize),
            point: hit.point,
            normal: hit.normal,
            fraction: hit.fraction as f32,
        }
    }
}

/// The box grown by a few f32 spacings of its coordinates: shapes are tested in f64 from
/// their f32 pose, and their exact extent may reach an ulp past the f32 box.
pub(super) fn padded(aabb: Aabb) -> Aabb {
    let size = aabb
        .min
        .x
        .abs()
        .max(aabb.min.y.abs())
        .max(aabb.max.x.abs())
        .max(aabb.max.y.abs());
    aabb.fattened(4.0 * f32::EPSILON * size)
}

fn sort_unique(slots: &mut Vec<u32>) {
    slots.sort_unstable();
    slots.dedup();
}

fn check_ray(origin: Vec2, translation: Vec2, max_fraction: f32) -> Result<(), Error> {
    if !origin.is_finite() {
        return Err(Error::InvalidParameter(format!(
            "ray origin must be finite, got {origin:?}"
        )));
    }
    check_translation(translation)?;
    check_finite("max_fraction", max_fraction)?;
    if max_fraction < 0.0 {
        return Err(Error::InvalidParameter(format!(
            "max_fraction must be >= 0, got {max_fraction}"
        )));
    }
    Ok(())
}

pub(super) fn check_translation(translation: Vec2) -> Result<(), Error> {
    if translation.is_finite() && translation != Vec2::ZERO {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "translation must be finite and non-zero, got {translation:?}"
        )))
    }
}
