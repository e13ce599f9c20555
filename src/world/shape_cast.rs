//! Shape casts: the first body a shape meets as it moves, and as it moves and turns, by
//! conservative advancement against the candidates of the query grid; the sweep the character
//! mover is built on.

use super::query::{check_translation, padded, QueryFilter};
use crate::body::BodyId;
use crate::broad_phase::query_grid::clip_to_box;
use crate::error::{check_finite, Error};
use crate::geometry::distance::{
    advance_within, check_transform, shape_distance, shape_penetration, Proxy, Sweep, ToiState,
    MAX_TOI_ITERATIONS, TOI_TARGET, TOI_TOLERANCE,
};
use crate::geometry::math::{Aabb, DVec2, Transform, Vec2};
use crate::geometry::shape::Shape;
use crate::narrow_phase::manifold::{chain_segment_meets, shape_manifold};
use crate::world::World;

/// Where a cast shape meets a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// The body hit.
    pub body: BodyId,
    /// Point of the body's surface nearest the cast shape at `fraction` (its deepest point
    /// inside the cast shape when they overlap from the start).
    pub point: Vec2,
    /// Unit normal from the body towards the cast shape: the direction to move the cast shape
    /// away from the body.
    pub normal: Vec2,
    /// How far the cast shape got, in units of its motion (its translation, and its turn for
    /// [`World::cast_shape_rotating`]). It stops within 2.5 mm (half the linear slop) of the
    /// body, never in it; 0 when the shapes overlap from the start.
    pub fraction: f32,
}

/// What a sweep ([`World::sweep`]) may stop at besides what its filter lets it see.
pub(super) struct SweepRule<'a> {
    /// The bodies and shapes it sees.
    pub filter: QueryFilter,
    /// Pass bodies the shape touches at the start and moves away from (or along), as a mover
    /// standing on the ground or against a wall does; `cast_shape` stops at them. The hits'
    /// normals are then the contact manifold's (a face's own normal where a face is met):
    /// GJK's direction between closest points leans off a long face by rounding, and a
    /// motion slid along it would lean into it.
    pub skip_leaving: bool,
    /// Shapes it passes through, by body slot and shape index.
    pub skip: &'a dyn Fn(usize, usize) -> bool,
}

/// Where a sweep stops: the body's slot and shape, the fraction of the motion, and the
/// contact there (as in [`ShapeHit`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct SweepHit {
    pub slot: usize,
    pub child: usize,
    pub fraction: f64,
    pub point: Vec2,
    pub normal: Vec2,
}

/// How far a sweep's direction may lean into a body it starts touching (the cosine of the
/// angle from the body's surface) and still count as leaving it: a motion slid along a surface
/// is parallel to it only up to rounding.
const LEAVING_COSINE: f32 = 1.0e-5;

/// Conservative advancement steps a turning cast may take against one shape. A turn's speed
/// bound (the farthest point's) is loose for the points that actually close in, so the steps
/// shrink with the gap, not with the time left: a long box turning past a wall a few
/// millimetres off takes thousands. A cast that runs out stops where it last proved the shapes
/// apart, as a hit.
const MAX_TURNING_CAST_ITERATIONS: usize = 4096;

impl World {
    /// The first body `shape` meets when moved from `transform` by `translation` without
    /// turning (conservative advancement on the GJK distance). Ties go to the lowest slot.
    /// A chain segment is met only from its front, along a normal it owns (see
    /// [`Shape::chain_segment`]): a cast from behind passes through it, and one sliding along
    /// a chain does not stop at the joins.
    ///
    /// `Err` for a non-finite or non-unit transform, or a non-finite or zero
    /// translation (use [`World::overlap_shape`] for a shape at rest).
    pub fn cast_shape(
        &self,
        shape: &Shape,
        transform: Transform,
        translation: Vec2,
        filter: QueryFilter,
    ) -> Result<Option<ShapeHit>, Error> {
        check_transform("transform", transform)?;
        check_translation(translation)?;
        let rule = SweepRule {
            filter,
            skip_leaving: false,
            skip: &|_, _| false,
        };
        Ok(self
            .sweep(shape, transform, translation, &rule)
            .map(|hit| self.shape_hit(hit)))
    }

    /// The first body `shape` meets when moved from `transform` by `translation` while turning
    /// by `rotation` radians (counter-clockwise) about its origin, both at a constant rate: at
    /// fraction `t` of the motion its origin is at `transform.p + t * translation` and its
    /// angle is `transform.q.angle() + t * rotation`. As [`World::cast_shape`] otherwise:
    /// conservative advancement on the GJK distance, with the speed of the shape's farthest
    /// point as the bound on how fast it can close in; the hit's `fraction` is of the whole
    /// motion, and the shape stops 1.25 mm to 2.5 mm short of the body. A search that runs
    /// out of steps (4096 against one shape: a long shape turning fast a few millimetres past
    /// a body) stops where it last proved the shapes apart and reports that as the hit. With
    /// `rotation` 0 it is [`World::cast_shape`]. A turn of more than a few thousand radians
    /// loses the angle's precision to f32.
    ///
    /// `Err` for a non-finite or non-unit transform, a non-finite translation or rotation, or
    /// a motion that neither moves nor turns (use [`World::overlap_shape`] for a shape at
    /// rest).
    pub fn cast_shape_rotating(
        &self,
        shape: &Shape,
        transform: Transform,
        translation: Vec2,
        rotation: f32,
        filter: QueryFilter,
    ) -> Result<Option<ShapeHit>, Error> {
        check_transform("transform", transform)?;
        check_finite("rotation", rotation)?;
        if rotation == 0.0 {
            return self.cast_shape(shape, transform, translation, filter);
        }
        if !translation.is_finite() {
            return Err(Error::InvalidParameter(format!(
                "translation must be finite, got {translation:?}"
            )));
        }
        let rule = SweepRule {
            filter,
            skip_leaving: false,
            skip: &|_, _| false,
        };
        Ok(self
            .sweep_turning(shape, transform, translation, rotation, &rule)
            .map(|hit| self.shape_hit(hit)))
    }

    fn shape_hit(&self, hit: SweepHit) -> ShapeHit {
        ShapeHit {
            body: self.bodies.id(hit.slot),
            point: hit.point,
            normal: hit.normal,
            fraction: hit.fraction as f32,
        }
    }

    /// The first body shape `shape` meets when moved from `transform` by `translation`
    /// (checked by the caller) without turning, among those `rule` lets it meet.
    pub(super) fn sweep(
        &self,
        shape: &Shape,
        transform: Transform,
        translation: Vec2,
        rule: &SweepRule,
    ) -> Option<SweepHit> {
        self.sweep_turning(shape, transform, translation, 0.0, rule)
    }

    /// [`World::sweep`] for a shape that also turns by `rotation` about its origin (both
    /// checked by the caller; a zero translation only with a turn).
    fn sweep_turning(
        &self,
        shape: &Shape,
        transform: Transform,
        translation: Vec2,
        rotation: f32,
        rule: &SweepRule,
    ) -> Option<SweepHit> {
        // The shape's box about its own origin over the whole motion: taken from the box at
        // `transform`, the extents of a small shape a billion metres out would round to the
        // spacing of the floats there. A turning shape may point anywhere within its reach.
        let (bounds, iterations) = if rotation == 0.0 {
            let end = Transform::new(transform.p + translation, transform.q);
            let local = shape.aabb(Transform::new(Vec2::ZERO, transform.q));
            let bounds = [shape.aabb(transform), shape.aabb(end), local];
            (bounds, MAX_TOI_ITERATIONS)
        } else {
            let reach = shape.reach_from(Vec2::ZERO);
            let local = Aabb::new(Vec2::new(-reach, -reach), Vec2::new(reach, reach));
            let at = |p: Vec2| Aabb::new(p + local.min, p + local.max);
            let bounds = [at(transform.p), at(transform.p + translation), local];
            (bounds, MAX_TURNING_CAST_ITERATIONS)
        };
        let candidates = self.cast_candidates(bounds, transform.p, translation, rule.filter);
        let cast = Proxy::new(shape);
        let (from, along) = (DVec2::from(transform.p), DVec2::from(translation));
        let angle = transform.q.angle();
        let direction = translation * (1.0 / translation.length());
        // The best hit so far: ties go to the lowest slot, then the lowest shape of a compound
        // body.
        let mut best: Option<SweepHit> = None;
        for (entry, slot) in candidates {
            if best.as_ref().is_some_and(|b| entry > b.fraction) {
                break; // This and every later candidate stop after the best hit, if at all.
            }
            // The cast starts over where its box reaches the body's, placed in f64: from a
            // billion metres away the sweep's own f32 positions would miss a small body.
            let start = (from + along * entry).to_f32();
            let a0 = angle + rotation * entry as f32;
            let sweep = Sweep {
                local_center: Vec2::ZERO,
                c0: start,
                c1: start + translation,
                a0,
                a1: a0 + rotation,
            };
            let left = (1.0 - entry) as f32;
            let xf = self.bodies.transform(slot);
            let fixed = Sweep::fixed(xf);
            for (child, body) in self.seen_shapes(slot, rule.filter) {
                if (rule.skip)(slot, child) {
                    continue;
                }
                let toi = advance_within(
                    &cast,
                    &sweep,
                    &Proxy::new(body),
                    &fixed,
                    left,
                    (TOI_TARGET, TOI_TOLERANCE),
                    iterations,
                );
                let fraction = entry + f64::from(toi.fraction);
                let better = best
                    .as_ref()
                    .is_none_or(|b| (fraction, slot, child) < (b.fraction, b.slot, b.child));
                if toi.state == ToiState::Separated || !better {
                    continue;
                }
                let at = sweep.transform_at(toi.fraction);
                let (point, mut normal) = contact(body, xf, shape, at);
                if rule.skip_leaving {
                    normal = face_normal(body, xf, shape, at).unwrap_or(normal);
                }
                let leaving = rule.skip_leaving
                    && toi.fraction == 0.0
                    && normal.dot(direction) >= -LEAVING_COSINE;
                if leaving || !chain_segment_meets(body, xf, shape, at, normal) {
                    continue;
                }
                best = Some(SweepHit {
                    slot,
                    child,
                    fraction,
                    point,
                    normal,
                });
            }
        }
        best
    }

    /// The bodies `shape` may meet on its way, each with the fraction at which the shape's
    /// box, grown by the time of impact's stopping band, first touches the body's box, sorted
    /// by that fraction (then slot). Before that fraction the shapes are further apart than
    /// the band, so the cast cannot stop on that body earlier: the caller can stop at the
    /// first candidate whose entry lies past its best hit. The shape's boxes are those at the
    /// start and the end of the motion and, `local`, one about its origin that holds it all
    /// the way.
    fn cast_candidates(
        &self,
        [start, end, local]: [Aabb; 3],
        origin: Vec2,
        translation: Vec2,
        filter: QueryFilter,
    ) -> Vec<(f64, usize)> {
        let band = TOI_TARGET + TOI_TOLERANCE;
        let below = Vec2::new(band, band) - local.min;
        let above = local.max + Vec2::new(band, band);
        let mut out: Vec<(f64, usize)> = self.with_query_grid(|grid| {
            let swept = start.union(&end).fattened(band);
            self.candidates(grid, swept, filter)
                .into_iter()
                .filter_map(|slot| {
                    // The body's box grown by the cast box: the cast's origin enters it when
                    // the two boxes come within the band of each other.
                    let aabb = padded(grid.aabbs[slot]);
                    let (lo, hi) = (aabb.min - above, aabb.max + below);
                    let (entry, _) = clip_to_box(origin, translation, 1.0, lo, hi)?;
                    Some((entry, slot))
                })
                .collect()
        });
        out.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        out
    }
}

/// The point of `body` (placed by `xf`) nearest `shape` at `at` (its deepest point inside
/// `shape` when they overlap), and the unit normal from `body` towards `shape`.
pub(super) fn contact(body: &Shape, xf: Transform, shape: &Shape, at: Transform) -> (Vec2, Vec2) {
    match shape_penetration(body, xf, shape, at) {
        Some(p) => (p.point_a, p.normal),
        None => {
            let d = shape_distance(body, xf, shape, at);
            (d.point_a, d.normal)
        }
    }
}

/// The normal of the contact manifold of `body` (placed by `xf`) and `shape` at `at`, from
/// `body` towards `shape`, if they are within a few stopping bands of each other.
fn face_normal(body: &Shape, xf: Transform, shape: &Shape, at: Transform) -> Option<Vec2> {
    let manifold = shape_manifold(body, xf, shape, at, 4.0 * (TOI_TARGET + TOI_TOLERANCE));
    (manifold.point_count > 0).then_some(manifold.normal)
}
