//! Closest points of separated cores meeting corner first, where the face contact's gap along
//! the normal would overstate how far apart they are.

use super::sat::Hull;
use super::{feature_id, midpoint, LocalManifold, ID_VERTEX};
use crate::geometry::math::Vec2;
use crate::geometry::shape::{next_index, MAX_POLYGON_VERTICES};

/// Closest points `(on reference core, on incident core)` of two separated cores, one of them
/// a segment, over all their edge pairs, and the id of that edge pair.
///
/// A segment offers SAT only the one axis of its normal, so the face and incident edge that
/// SAT picks can miss where an end of the segment is closest to the other core, and the gap
/// along the face normal then overstates the true gap: the solver would let a fast capsule
/// close in too far. Against a segment there are at most 8 edge pairs.
///
/// Each edge pair tries four candidates: each end of one edge against the other edge (see
/// [`closest_points_and_distance_squared`]). A vertex of the other core ends two of its edges,
/// so its point on the segment is found once, before the edge pairs, and read by both; the
/// candidates are then weighed in the order of the edge pairs, each pair's four in turn, and
/// the first closest wins, as when every pair is tried on its own.
pub(super) fn closest_edges(reference: Hull, incident: Hull) -> ((Vec2, Vec2), u32) {
    // A segment's second edge is its first run backwards: one is enough.
    let edges = |hull: Hull| if hull.count() == 2 { 1 } else { hull.count() };
    let mut best = ((Vec2::ZERO, Vec2::ZERO), 0, f32::INFINITY);
    let mut consider = |candidate: (Vec2, Vec2), distance: f32, id: u32| {
        if distance < best.2 {
            best = (candidate, id, distance);
        }
    };
    // The other core's vertices, each with its closest point on the segment `s1 -> s2` and
    // their squared distance.
    let on_segment = |hull: Hull, s1: Vec2, s2: Vec2| {
        let mut points = [(Vec2::ZERO, 0.0); MAX_POLYGON_VERTICES];
        for (point, &v) in points.iter_mut().zip(&hull.vertices[..hull.count()]) {
            let q = closest_on_segment(v, s1, s2);
            *point = (q, (v - q).length_squared());
        }
        points
    };
    if reference.count() == 2 {
        let (v1, v2) = (reference.vertices[0], reference.vertices[1]);
        let count = incident.count();
        let across = on_segment(incident, v1, v2);
        for j in 0..edges(incident) {
            let end = next_index(j, count);
            let (w1, w2) = (incident.vertices[j], incident.vertices[end]);
            let id = feature_id(0, j) | ID_VERTEX;
            for v in [v1, v2] {
                let candidate = (v, closest_on_segment(v, w1, w2));
                consider(candidate, (candidate.1 - candidate.0).length_squared(), id);
            }
            consider((across[j].0, w1), across[j].1, id);
            consider((across[end].0, w2), across[end].1, id);
        }
    } else {
        let (w1, w2) = (incident.vertices[0], incident.vertices[1]);
        let count = reference.count();
        let across = on_segment(reference, w1, w2);
        for i in 0..count {
            let end = next_index(i, count);
            let (v1, v2) = (reference.vertices[i], reference.vertices[end]);
            let id = feature_id(i, 0) | ID_VERTEX;
            consider((v1, across[i].0), across[i].1, id);
            consider((v2, across[end].0), across[end].1, id);
            for w in [w1, w2] {
                let candidate = (closest_on_segment(w, v1, v2), w);
                consider(candidate, (candidate.1 - candidate.0).length_squared(), id);
            }
        }
    }
    (best.0, best.1)
}

/// Single point joining the closest points `(on reference core, on incident core)` of two
/// separated edges, with `radii` `(reference, incident)` taken off. `face_normal` stands in
/// for the direction when the points coincide.
pub(super) fn closest_points_contact(
    (on_reference_core, on_incident_core): (Vec2, Vec2),
    face_normal: Vec2,
    radii: (f32, f32),
    id: u32,
    speculative_distance: f32,
) -> LocalManifold {
    let delta = on_incident_core - on_reference_core;
    let separation = delta.length() - radii.0 - radii.1;
    if separation > speculative_distance {
        return LocalManifold::default();
    }
    let normal = delta.normalized().unwrap_or(face_normal);
    let on_reference = on_reference_core + normal * radii.0;
    let on_incident = on_incident_core - normal * radii.1;
    LocalManifold::single(normal, midpoint(on_reference, on_incident), separation, id)
}

/// Closest points `(on ab, on cd)` of two segments known not to cross. For such segments one
/// of the two closest points is an endpoint, so trying the four endpoints is exact.
pub(super) fn closest_points_of_segments(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> (Vec2, Vec2) {
    closest_points_and_distance_squared(a, b, c, d).0
}

/// [`closest_points_of_segments`] and the squared distance of the two points. The best
/// candidate's squared distance is kept beside it, not taken again at each comparison.
fn closest_points_and_distance_squared(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> ((Vec2, Vec2), f32) {
    let candidates = [
        (a, closest_on_segment(a, c, d)),
        (b, closest_on_segment(b, c, d)),
        (closest_on_segment(c, a, b), c),
        (closest_on_segment(d, a, b), d),
    ];
    let mut best = (
        candidates[0],
        (candidates[0].1 - candidates[0].0).length_squared(),
    );
    for &candidate in &candidates[1..] {
        let distance = (candidate.1 - candidate.0).length_squared();
        if distance < best.1 {
            best = (candidate, distance);
        }
    }
    best
}

/// The point of segment `a -> b` closest to `p`.
pub(super) fn closest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let ab = b - a;
    let length_sq = ab.length_squared();
    if length_sq <= 0.0 {
        return a;
    }
    let t = (ab.dot(p - a) / length_sq).clamp(0.0, 1.0);
    a + ab * t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::math::Rot;
    use crate::geometry::shape::Shape;

    #[test]
    fn closest_points_of_separated_segments() {
        let v = Vec2::new;
        // Overlapping sideways: an endpoint straight across from the other segment.
        let (p, q) = closest_points_of_segments(v(0.0, 0.0), v(1.0, 0.0), v(0.5, 1.0), v(2.0, 1.0));
        assert_eq!((q - p).length(), 1.0);
        assert_eq!((p.y, q.y), (0.0, 1.0));
        // Corner to corner.
        let (p, q) = closest_points_of_segments(v(0.0, 0.0), v(1.0, 0.0), v(2.0, 1.0), v(3.0, 2.0));
        assert_eq!((p, q), (v(1.0, 0.0), v(2.0, 1.0)));
        // Endpoint against the other's interior.
        let (p, q) = closest_points_of_segments(v(0.0, 0.0), v(0.0, 2.0), v(1.0, 1.0), v(3.0, 1.0));
        assert_eq!((p, q), (v(0.0, 1.0), v(1.0, 1.0)));
    }

    /// The exact distance in f64 from `p` to segment `s0 s1`.
    fn distance_to_segment(p: Vec2, s0: Vec2, s1: Vec2) -> f64 {
        use crate::geometry::math::DVec2;
        let (p, s0, s1) = (DVec2::from(p), DVec2::from(s0), DVec2::from(s1));
        let e = s1 - s0;
        let t = ((p - s0).dot(e) / e.dot(e)).clamp(0.0, 1.0);
        (p - (s0 + e * t)).length_squared().sqrt()
    }

    /// Between a segment and a polygon apart, in either role, the closest edges give the exact
    /// distance of the two cores (the least distance from a vertex of one to an edge of the
    /// other, computed here in f64), with each point on its own core.
    #[test]
    fn closest_edges_give_the_distance_between_a_segment_and_a_polygon() {
        let mut next = crate::test_rng::xorshift64(0x9E37_79B9_7F4A_7C15);
        let mut unit = move || (next() >> 40) as f32 / (1u64 << 24) as f32;
        let points = [
            (-0.4, -0.3),
            (0.5, -0.35),
            (0.6, 0.2),
            (0.1, 0.5),
            (-0.45, 0.3),
        ];
        let Shape::Polygon(polygon) =
            Shape::polygon(&points.map(|(x, y)| Vec2::new(x, y))).unwrap()
        else {
            unreachable!()
        };
        fn hull<'a>(vertices: &'a [Vec2], normals: &'a [Vec2], count: usize) -> Hull<'a> {
            Hull {
                vertices: &vertices[..count],
                normals: &normals[..count],
                count,
                radius: 0.0,
            }
        }
        fn edges(vertices: &[Vec2]) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
            let n = vertices.len();
            (0..n).map(move |i| (vertices[i], vertices[(i + 1) % n]))
        }
        let mut tried = 0;
        for _ in 0..2000 {
            let angle = 6.3 * unit();
            let direction = Rot::from_angle(angle).rotate(Vec2::new(1.0, 0.0));
            let center = direction * (0.7 + 1.5 * unit());
            let along = Rot::from_angle(6.3 * unit()).rotate(Vec2::new(0.05 + 0.6 * unit(), 0.0));
            let (s0, s1) = (center - along, center + along);
            let core = &polygon.vertices[..polygon.count];
            let exact = core
                .iter()
                .map(|&v| distance_to_segment(v, s0, s1))
                .chain(edges(core).flat_map(|(v1, v2)| {
                    [
                        distance_to_segment(s0, v1, v2),
                        distance_to_segment(s1, v1, v2),
                    ]
                }))
                .fold(f64::INFINITY, f64::min);
            if exact < 1e-3 {
                // Crossing or all but touching: not a separated pair.
                continue;
            }
            tried += 1;
            let segment_vertices = [s0, s1];
            let segment_normal = (s1 - s0).normalized().unwrap().right_perp();
            let segment_normals = [segment_normal, -segment_normal];
            let segment = hull(&segment_vertices, &segment_normals, 2);
            let poly = hull(&polygon.vertices, &polygon.normals, polygon.count);
            for (reference, incident, flipped) in [(segment, poly, false), (poly, segment, true)] {
                let ((on_reference, on_incident), id) = closest_edges(reference, incident);
                assert_eq!(id & ID_VERTEX, ID_VERTEX);
                let (on_segment, on_polygon) = match flipped {
                    false => (on_reference, on_incident),
                    true => (on_incident, on_reference),
                };
                let found = f64::from((on_incident - on_reference).length());
                assert!((found - exact).abs() < 1e-5, "{found} against {exact}");
                assert!(distance_to_segment(on_segment, s0, s1) < 1e-5);
                let off_polygon = edges(core)
                    .map(|(v1, v2)| distance_to_segment(on_polygon, v1, v2))
                    .fold(f64::INFINITY, f64::min);
                assert!(off_polygon < 1e-5, "{off_polygon}");
            }
        }
        assert!(tried > 1500, "{tried} separated poses");
    }
}
