//! Contacts with a chain segment: a one-sided segment that knows its neighbours' vertices
//! (its ghosts), so that a body crossing a join meets one smooth surface.
//!
//! A plain segment's end is a corner, and a body sliding along a row of segments touches the
//! next segment's start before it reaches it: the contact normal there points back against
//! the motion and the body catches. A chain segment keeps only the contacts whose normal it
//! owns:
//! - its front normal (the left of `p1 -> p2`), the only face it has;
//! - at a convex join, the normals between its neighbour's face normal and its own: the
//!   rounded corner a body rolls over;
//! - at a free end (no ghost), every normal in front, as at a plain segment's end.
//!
//! Of the two segments meeting at a convex join, the one that starts there owns the corner,
//! so a body in the corner gets one contact, not two. Bodies whose centre lies behind the
//! segment's line get none: the segment is one-sided.

use super::circle::segment_circle;
use super::clip::face_contact;
use super::polygon::polygons;
use super::sat::Hull;
use super::{feature_id, midpoint, LocalManifold};
use crate::geometry::math::{Transform, Vec2};
use crate::geometry::shape::{ChainGhosts, Circle, Polygon, Shape, MAX_POLYGON_VERTICES};

/// How far (as the sine of the angle) a contact normal may lean from the segment's own normal
/// and still count as its face: a polygon resting on the segment may be the reference face, and
/// its normal differs from the segment's by rounding or a small tilt that does not catch.
const FACE_LEAN: f32 = 0.01;

/// The manifold of chain segment `segment` (its own frame, ghosts `ghosts`) against `other`
/// placed by `xf` in that frame; the normal points from the segment to `other`.
pub(super) fn chain_segment_manifold(
    segment: &Polygon,
    ghosts: ChainGhosts,
    other: &Shape,
    xf: Transform,
    speculative_distance: f32,
) -> LocalManifold {
    let front = segment.normals[1];
    let centre = match other {
        Shape::Circle(circle) => xf.apply(circle.center),
        Shape::Polygon(polygon) => xf.apply(polygon.centroid),
    };
    if front.dot(centre - segment.vertices[0]) < 0.0 {
        return LocalManifold::default();
    }
    match other {
        Shape::Circle(circle) => {
            circle_manifold(segment, ghosts, circle, centre, speculative_distance)
        }
        Shape::Polygon(polygon) => {
            polygon_manifold(segment, ghosts, polygon, xf, speculative_distance)
        }
    }
}

/// Whether a cast meets chain segment `shape` (placed by `xf`) where `other`, placed by
/// `other_xf`, touches it along world normal `normal` (from the segment towards `other`): as
/// for contacts, only from the segment's front and only along a normal the segment owns, so
/// that a cast sliding along a chain meets one smooth surface and one coming from behind
/// passes through. True for every other shape.
pub(crate) fn chain_segment_meets(
    shape: &Shape,
    xf: Transform,
    other: &Shape,
    other_xf: Transform,
    normal: Vec2,
) -> bool {
    let Shape::Polygon(segment) = shape else {
        return true;
    };
    let Some(ghosts) = segment.chain else {
        return true;
    };
    chain_segment_faces(shape, xf, centre_of(other, other_xf))
        && owns_normal(segment, ghosts, xf.q.inv_rotate(normal))
}

/// Whether world point `centre` lies in front of chain segment `shape` (placed by `xf`), or
/// on its line: where a body centred there collides with it, as the contacts judge (a body
/// centred behind passes through). True for every other shape. Overlap queries, sensors and
/// continuous collision judge a chain segment by the centre of the shape they test with it.
pub(crate) fn chain_segment_faces(shape: &Shape, xf: Transform, centre: Vec2) -> bool {
    match shape {
        Shape::Polygon(segment) if segment.chain.is_some() => {
            let local = xf.inv_apply(centre);
            segment.normals[1].dot(local - segment.vertices[0]) >= 0.0
        }
        _ => true,
    }
}

/// Whether `a` (placed by `xf_a`) and `b` (placed by `xf_b`) face each other, should either
/// be a chain segment: the other's centre is not behind it.
pub(crate) fn chain_faces(a: &Shape, xf_a: Transform, b: &Shape, xf_b: Transform) -> bool {
    chain_segment_faces(a, xf_a, centre_of(b, xf_b))
        && chain_segment_faces(b, xf_b, centre_of(a, xf_a))
}

/// The world centre of `shape` placed by `xf`: a circle's centre, a polygon's centroid, the
/// point the contacts judge a chain segment's side by.
pub(crate) fn centre_of(shape: &Shape, xf: Transform) -> Vec2 {
    match shape {
        Shape::Circle(c) => xf.apply(c.center),
        Shape::Polygon(p) => xf.apply(p.centroid),
    }
}

/// A circle centred at `centre` (segment frame): the plain segment's contact where the centre
/// lies in a region this segment owns: its face region, and beyond `p1` the wedge of a convex
/// join (past the previous segment's end too). Beyond `p2`, a next segment owns the corner.
///
/// Where the centre lies over a neighbour's face at a concave join, the contact is with this
/// segment's line: a circle rolling into a valley meets the next segment's line speculatively,
/// before it gets there, instead of sinking into it for a step once it is there.
fn circle_manifold(
    segment: &Polygon,
    ghosts: ChainGhosts,
    circle: &Circle,
    centre: Vec2,
    speculative_distance: f32,
) -> LocalManifold {
    let (v1, v2) = (segment.vertices[0], segment.vertices[1]);
    let edge = v2 - v1;
    let along = (centre - v1).dot(edge);
    // A join is concave when the chain turns towards the front, the left.
    let neighbour = if along < 0.0 {
        ghosts
            .prev
            .filter(|&prev| (centre - v1).dot(v1 - prev) <= 0.0)
            .map(|prev| (v1 - prev).cross(edge) > 0.0)
    } else if along >= edge.length_squared() {
        ghosts.next.map(|next| edge.cross(next - v2) > 0.0)
    } else {
        None
    };
    match neighbour {
        Some(true) => line_contact(segment, centre, circle.radius, speculative_distance),
        Some(false) => LocalManifold::default(),
        None => segment_circle(
            segment,
            centre,
            circle.radius,
            circle.radius,
            speculative_distance,
        ),
    }
}

/// A circle against the line through the segment, from its front: the face contact the
/// segment would give were it long enough to reach the circle.
fn line_contact(
    segment: &Polygon,
    centre: Vec2,
    radius: f32,
    speculative_distance: f32,
) -> LocalManifold {
    let front = segment.normals[1];
    let distance = front.dot(centre - segment.vertices[0]);
    let separation = distance - radius;
    if separation > speculative_distance {
        return LocalManifold::default();
    }
    let on_line = centre - front * distance;
    let on_circle = centre - front * radius;
    LocalManifold::single(
        front,
        midpoint(on_line, on_circle),
        separation,
        feature_id(1, 0),
    )
}

/// A polygon (capsules included) placed by `xf`: the plain segment's contact when its normal
/// is the segment's to give, else the contact along the segment's own face, else none.
fn polygon_manifold(
    segment: &Polygon,
    ghosts: ChainGhosts,
    polygon: &Polygon,
    xf: Transform,
    speculative_distance: f32,
) -> LocalManifold {
    let plain = polygons(segment, polygon, xf, speculative_distance);
    if plain.point_count == 0 || owns_normal(segment, ghosts, plain.normal) {
        return plain;
    }
    let face = front_face_manifold(segment, ghosts, polygon, xf, speculative_distance);
    if face.point_count > 0 && owns_normal(segment, ghosts, face.normal) {
        face
    } else {
        LocalManifold::default()
    }
}

/// Whether contact normal `normal` (segment frame, pointing away from the segment) is one this
/// segment owns; see the module documentation.
fn owns_normal(segment: &Polygon, ghosts: ChainGhosts, normal: Vec2) -> bool {
    let v1 = segment.vertices[0];
    let front = segment.normals[1];
    if front.dot(normal) <= 0.0 {
        return false;
    }
    let lean = normal.dot(segment.normals[0].left_perp());
    if lean.abs() <= FACE_LEAN {
        return true;
    }
    if lean < 0.0 {
        // Leaning back over `p1`: a corner normal, the segment's own at a free end or when it
        // also leans forward of the previous segment (a convex join).
        ghosts.prev.is_none_or(|prev| normal.dot(v1 - prev) > 0.0)
    } else {
        // Leaning forward over `p2`: the next segment owns that corner.
        ghosts.next.is_none()
    }
}

/// The contact of `polygon` (placed by `xf`) against the segment's front face alone, as the
/// separating-axis test would give it had it picked that face. At a concave join the face
/// runs on along its line past the join, under the neighbour, as far as the polygon reaches:
/// a polygon sliding into a valley meets the next segment's line speculatively, before it
/// gets there, instead of sinking into it for a step once it is there (as circles do, see
/// `circle_manifold`).
fn front_face_manifold(
    segment: &Polygon,
    ghosts: ChainGhosts,
    polygon: &Polygon,
    xf: Transform,
    speculative_distance: f32,
) -> LocalManifold {
    let count = polygon.count;
    let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    for i in 0..count {
        vertices[i] = xf.apply(polygon.vertices[i]);
        normals[i] = xf.q.rotate(polygon.normals[i]);
    }
    let front = segment.normals[1];
    let v1 = segment.vertices[0];
    let separation = vertices[..count]
        .iter()
        .map(|&w| front.dot(w - v1))
        .fold(f32::INFINITY, f32::min);
    if separation - polygon.radius > speculative_distance {
        return LocalManifold::default();
    }
    let (v1, v2) = (segment.vertices[0], segment.vertices[1]);
    let edge = v2 - v1;
    let tangent = edge * (1.0 / edge.length());
    let reach = vertices[..count]
        .iter()
        .map(|&w| (w - v1).length().max((w - v2).length()))
        .fold(0.0, f32::max)
        + polygon.radius;
    let mut ends = [v1, v2];
    if ghosts
        .prev
        .is_some_and(|prev| (v1 - prev).cross(edge) > 0.0)
    {
        ends[0] = v1 - tangent * reach;
    }
    if ghosts.next.is_some_and(|next| edge.cross(next - v2) > 0.0) {
        ends[1] = v2 + tangent * reach;
    }
    let reference = Hull {
        vertices: &ends,
        normals: &segment.normals[..2],
        count: 2,
        radius: segment.radius,
    };
    let incident = Hull {
        vertices: &vertices[..count],
        normals: &normals[..count],
        count,
        radius: polygon.radius,
    };
    face_contact(reference, 1, separation, incident, speculative_distance)
}
