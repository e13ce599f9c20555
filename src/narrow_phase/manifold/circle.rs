//! Contacts of a circle with a circle, a polygon core or a segment: the closest feature of
//! the core to the circle's centre, found from the face whose plane the centre is furthest in
//! front of.

use super::closest::closest_on_segment;
use super::{feature_id, midpoint, LocalManifold, ID_VERTEX};
use crate::geometry::math::{Transform, Vec2};
use crate::geometry::shape::{next_index, Circle, Polygon, MAX_POLYGON_VERTICES};

/// Circle `a` in its own frame against circle `b` placed by `xf` in that frame; `fallback`
/// gives the normal, in that frame, if their centres coincide.
///
/// Always inlined: a pile of balls collides little else, and as a call its arguments went
/// through the stack, which cost about what its arithmetic does.
#[inline(always)]
pub(super) fn circles(
    a: &Circle,
    b: &Circle,
    xf: Transform,
    fallback: impl FnOnce() -> Vec2,
    speculative_distance: f32,
) -> LocalManifold {
    let center_a = a.center;
    let center_b = xf.apply(b.center);
    let delta = center_b - center_a;
    let separation = delta.length() - a.radius - b.radius;
    if separation > speculative_distance {
        return LocalManifold::default();
    }
    let normal = delta.normalized().unwrap_or_else(fallback);
    let on_a = center_a + normal * a.radius;
    let on_b = center_b - normal * b.radius;
    LocalManifold::single(normal, midpoint(on_a, on_b), separation, 0)
}

/// The feature of a polygon core closest to a point outside or inside it.
struct ClosestFeature {
    /// Unit direction from the core towards the point.
    normal: Vec2,
    /// Closest point on the core's boundary (for a point inside, its projection on the face).
    on_core: Vec2,
    /// Signed distance from the core to the point along `normal`.
    distance: f32,
    id: u32,
}

/// Polygon `poly` in its own frame against circle `circle` placed by `xf` in that frame.
pub(super) fn polygon_circle(
    poly: &Polygon,
    circle: &Circle,
    xf: Transform,
    speculative_distance: f32,
) -> LocalManifold {
    let center = xf.apply(circle.center);
    let radius = poly.radius + circle.radius;
    // Boxes, the most common polygons, with their count known at compile time: the face
    // search unrolls and loses its bounds checks. The same operations in the same order as
    // for any count, so the same bits.
    match poly.count {
        2 => segment_circle(poly, center, radius, circle.radius, speculative_distance),
        4 => core_circle::<4>(poly, 4, center, radius, circle.radius, speculative_distance),
        count => core_circle::<MAX_POLYGON_VERTICES>(
            poly,
            count,
            center,
            radius,
            circle.radius,
            speculative_distance,
        ),
    }
}

/// A polygon `poly` of `count` vertices, at most `N`, against a circle of radius
/// `circle_radius` centred at `center` (both radii sum to `radius`).
#[inline(always)]
fn core_circle<const N: usize>(
    poly: &Polygon,
    count: usize,
    center: Vec2,
    radius: f32,
    circle_radius: f32,
    speculative_distance: f32,
) -> LocalManifold {
    let (face, face_separation) = deepest_face::<N>(poly, count, center);
    // Every face separation is a lower bound of the distance, so this test is safe.
    if face_separation - radius > speculative_distance {
        return LocalManifold::default();
    }
    let feature = closest_feature(poly, count, face, face_separation, center);
    let separation = feature.distance - radius;
    if separation > speculative_distance {
        return LocalManifold::default();
    }
    let on_poly = feature.on_core + feature.normal * poly.radius;
    let on_circle = center - feature.normal * circle_radius;
    LocalManifold::single(
        feature.normal,
        midpoint(on_poly, on_circle),
        separation,
        feature.id,
    )
}

/// A capsule or segment `poly` against a circle of radius `circle_radius` centred at `center`
/// (both radii sum to `radius`). A segment has no inside, so a centre beyond an end is closest
/// to that end even when it lies on the segment's line, where both face planes pass through it.
pub(super) fn segment_circle(
    poly: &Polygon,
    center: Vec2,
    radius: f32,
    circle_radius: f32,
    speculative_distance: f32,
) -> LocalManifold {
    let (v1, v2) = (poly.vertices[0], poly.vertices[1]);
    let along = (center - v1).dot(v2 - v1);
    let (closest, vertex) = if along <= 0.0 {
        (v1, Some(0))
    } else if along >= (v2 - v1).length_squared() {
        (v2, Some(1))
    } else {
        (closest_on_segment(center, v1, v2), None)
    };
    let delta = center - closest;
    let separation = delta.length() - radius;
    if separation > speculative_distance {
        return LocalManifold::default();
    }
    // The side the centre is on names the face (the centre on the core: face 0's side).
    let face = usize::from(poly.normals[0].dot(delta) < 0.0);
    let normal = delta.normalized().unwrap_or(poly.normals[face]);
    let id = match vertex {
        Some(index) => feature_id(index, 0) | ID_VERTEX,
        None => feature_id(face, 0),
    };
    let on_poly = closest + normal * poly.radius;
    let on_circle = center - normal * circle_radius;
    LocalManifold::single(normal, midpoint(on_poly, on_circle), separation, id)
}

/// The face whose plane `p` is furthest in front of, and that signed distance, of a polygon
/// of `count` vertices, at most `N`.
#[inline(always)]
fn deepest_face<const N: usize>(poly: &Polygon, count: usize, p: Vec2) -> (usize, f32) {
    let mut best = (0, f32::MIN);
    for (i, (&n, &v)) in poly.normals[..N]
        .iter()
        .zip(&poly.vertices[..N])
        .enumerate()
        .take(count)
    {
        let s = n.dot(p - v);
        if s > best.1 {
            best = (i, s);
        }
    }
    best
}

/// Closest feature of the core to `p`, given the face of largest separation. A point outside
/// the core is closest either to that face or to one of its two end vertices (the other faces
/// cannot do better, by convexity), so checking the face's end Voronoi regions is enough.
/// `count` is the polygon's.
#[inline(always)]
fn closest_feature(
    poly: &Polygon,
    count: usize,
    face: usize,
    face_separation: f32,
    p: Vec2,
) -> ClosestFeature {
    let end = next_index(face, count);
    let v1 = poly.vertices[face];
    let v2 = poly.vertices[end];
    if face_separation > 0.0 {
        if (p - v1).dot(v2 - v1) < 0.0 {
            if let Some(feature) = vertex_feature(v1, face, p) {
                return feature;
            }
        } else if (p - v2).dot(v1 - v2) < 0.0 {
            if let Some(feature) = vertex_feature(v2, end, p) {
                return feature;
            }
        }
    }
    let normal = poly.normals[face];
    ClosestFeature {
        normal,
        on_core: p - normal * face_separation,
        distance: face_separation,
        id: feature_id(face, 0),
    }
}

/// The vertex `v` (index `index`) as closest feature to `p`; `None` when `p` sits on it and
/// gives no direction, in which case the face normal serves.
fn vertex_feature(v: Vec2, index: usize, p: Vec2) -> Option<ClosestFeature> {
    let delta = p - v;
    let normal = delta.normalized()?;
    Some(ClosestFeature {
        normal,
        on_core: v,
        distance: delta.length(),
        id: feature_id(index, 0) | ID_VERTEX,
    })
}
