//! Rays and points against one shape, solved exactly in the shape's body frame.
//!
//! A ray is the segment `origin + t * translation` for `t` in `0..=max_fraction`. It hits a
//! shape where it enters the shape's surface: a ray that starts inside a shape does not report
//! it (there is no entry point and no meaningful surface normal).
//!
//! Rays are solved in f64: a ray may start a billion metres from a centimetre body, and in f32
//! the body-frame origin alone would be off by more than the body's size.

use crate::geometry::math::{DVec2, Transform, Vec2};
use crate::geometry::shape::{next_index, Circle, Polygon, Shape};

/// Where a ray enters a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ShapeRayHit {
    /// The `t` of the entry point `origin + t * translation`, in f64 so that hits on bodies
    /// far apart along a long ray keep their order.
    pub fraction: f64,
    /// World entry point.
    pub point: Vec2,
    /// Outward unit surface normal at the entry point (world).
    pub normal: Vec2,
}

/// The entry of the ray into `shape` placed by `xf`, if it has one within `max_fraction`.
pub(crate) fn cast_ray(
    shape: &Shape,
    xf: Transform,
    origin: Vec2,
    translation: Vec2,
    max_fraction: f32,
) -> Option<ShapeRayHit> {
    let (origin, translation) = (DVec2::from(origin), DVec2::from(translation));
    let o = (origin - DVec2::from(xf.p)).inv_rotated(xf.q);
    let d = translation.inv_rotated(xf.q);
    let max_fraction = f64::from(max_fraction);
    let (fraction, normal) = match shape {
        Shape::Circle(c) => ray_circle(c.center.into(), c.radius.into(), o, d, max_fraction),
        Shape::Polygon(p) if p.radius == 0.0 => ray_sharp_polygon(p, o, d, max_fraction),
        Shape::Polygon(p) => ray_rounded_polygon(p, o, d, max_fraction),
    }?;
    // A chain segment is one-sided: a ray meeting its back passes through, as a body does.
    if let Shape::Polygon(p) = shape {
        if p.chain.is_some() && normal.dot(p.normals[1].into()) <= 0.0 {
            return None;
        }
    }
    Some(ShapeRayHit {
        fraction,
        point: (origin + translation * fraction).to_f32(),
        normal: xf.q.rotate(normal.to_f32()),
    })
}

/// Whether the world point `p` lies in `shape` placed by `xf` (its boundary included).
pub(crate) fn contains_point(shape: &Shape, xf: Transform, p: Vec2) -> bool {
    let p = xf.inv_apply(p);
    match shape {
        Shape::Circle(c) => circle_contains(c, p),
        Shape::Polygon(poly) => polygon_contains(poly, p),
    }
}

fn circle_contains(c: &Circle, p: Vec2) -> bool {
    (p - c.center).length_squared() <= c.radius * c.radius
}

fn polygon_contains(poly: &Polygon, p: Vec2) -> bool {
    let n = poly.count;
    let deepest = (0..n)
        .map(|i| poly.normals[i].dot(p - poly.vertices[i]))
        .fold(f32::NEG_INFINITY, f32::max);
    // Behind every edge line is inside, except for a two-vertex core (a capsule's or a
    // segment's), whose two edge lines bound a strip, not the segment.
    if deepest <= 0.0 && n > 2 {
        return true;
    }
    if deepest > poly.radius {
        // Further than the rounding in front of some edge line, so further from the core.
        return false;
    }
    // Outside the core: the nearest core point is on one of its edges.
    let r2 = poly.radius * poly.radius;
    (0..n).any(|i| {
        let q = closest_on_segment(p, poly.vertices[i], poly.vertices[next_index(i, n)]);
        (p - q).length_squared() <= r2
    })
}

fn closest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let e = b - a;
    let len2 = e.length_squared();
    if len2 == 0.0 {
        return a;
    }
    a + e * ((p - a).dot(e) / len2).clamp(0.0, 1.0)
}

/// Entry of the ray `o + t d` into the disc of `radius` at `center`, or `None` if the ray
/// starts inside, with the outward unit normal there. Solved from the ray's closest approach
/// to the centre rather than the textbook quadratic: for a distant origin and a grazing ray
/// the quadratic's discriminant is a small difference of two large numbers.
fn ray_circle(
    center: DVec2,
    radius: f64,
    o: DVec2,
    d: DVec2,
    max_fraction: f64,
) -> Option<(f64, DVec2)> {
    let m = o - center;
    let rr = radius * radius;
    if m.length_squared() <= rr {
        return None;
    }
    let length = d.length_squared().sqrt();
    let u = d * (1.0 / length);
    // Distance along the ray to the closest approach, and the squared miss distance there.
    let along = -m.dot(u);
    let miss = m.cross(u) * m.cross(u);
    if along <= 0.0 || miss > rr {
        // Moving away from the centre from outside, or passing it too far.
        return None;
    }
    let t = (along - (rr - miss).sqrt()) / length;
    if !(0.0..=max_fraction).contains(&t) {
        return None;
    }
    let n = m + d * t;
    let len = n.length_squared().sqrt();
    (len > 0.0).then(|| (t, n * (1.0 / len)))
}

/// Cyrus-Beck clipping of the ray against the edge half-planes: the ray is inside the polygon
/// between the last entering and the first leaving crossing.
fn ray_sharp_polygon(
    poly: &Polygon,
    o: DVec2,
    d: DVec2,
    max_fraction: f64,
) -> Option<(f64, DVec2)> {
    let mut lower = 0.0;
    let mut upper = max_fraction;
    let mut entered = None;
    for i in 0..poly.count {
        let n = DVec2::from(poly.normals[i]);
        // The ray is behind edge i (inside its half-plane) while `t * den <= num`.
        let num = n.dot(DVec2::from(poly.vertices[i]) - o);
        let den = n.dot(d);
        if den == 0.0 {
            if num < 0.0 {
                return None; // Parallel to the edge and in front of it.
            }
        } else if den < 0.0 && num < lower * den {
            lower = num / den; // Entering: inside for t >= num / den.
            entered = Some(i);
        } else if den > 0.0 && num < upper * den {
            upper = num / den; // Leaving: inside for t <= num / den.
        }
        if upper < lower {
            return None;
        }
    }
    // Without an entering crossing after t = 0 the ray started inside.
    let (i, t) = (entered?, lower);
    if poly.count == 2 {
        // A segment's two edge lines coincide: the crossing must also lie between its ends.
        let v0 = DVec2::from(poly.vertices[0]);
        let e = DVec2::from(poly.vertices[1]) - v0;
        let s = (o + d * t - v0).dot(e);
        if !(0.0..=e.length_squared()).contains(&s) {
            return None;
        }
    }
    Some((t, poly.normals[i].into()))
}

/// The earliest entry into a rounded polygon: into one of its edges pushed out by the radius,
/// or into one of its corner discs where that disc is the surface (between the normals of the
/// corner's two edges). The ray must start outside, so its first surface crossing enters.
fn ray_rounded_polygon(
    poly: &Polygon,
    o: DVec2,
    d: DVec2,
    max_fraction: f64,
) -> Option<(f64, DVec2)> {
    if polygon_contains(poly, o.to_f32()) {
        return None;
    }
    let n = poly.count;
    let radius = f64::from(poly.radius);
    let vertex = |i: usize| DVec2::from(poly.vertices[i]);
    let mut best: Option<(f64, DVec2)> = None;
    let mut keep = |t: f64, normal: DVec2| {
        if best.is_none_or(|(b, _)| t < b) {
            best = Some((t, normal));
        }
    };
    for i in 0..n {
        let (v, w) = (vertex(i), vertex(next_index(i, n)));
        let normal = DVec2::from(poly.normals[i]);
        let den = normal.dot(d);
        if den < 0.0 {
            let t = normal.dot(v + normal * radius - o) / den;
            let e = w - v;
            let s = (o + d * t - v).dot(e);
            if (0.0..=max_fraction).contains(&t) && (0.0..=e.length_squared()).contains(&s) {
                keep(t, normal);
            }
        }
        if let Some((t, normal)) = ray_circle(v, radius, o, d, max_fraction) {
            let before = v - vertex((i + n - 1) % n);
            let after = w - v;
            if normal.dot(before) >= 0.0 && normal.dot(after) <= 0.0 {
                keep(t, normal);
            }
        }
    }
    best
}
