//! Contacts between two capsules (a plain segment is a capsule of radius 0): the general
//! polygon routine reduced to what two segments need.
//!
//! Two segment cores have two candidate axes, the segments' own normals, and their closest
//! points are those of two segments. Where the segments lie along each other the contact is a
//! face contact: one segment clipped to the other's ends, two points that hold the pair flat.
//! Otherwise it is the single point joining the closest points of the two segments. The
//! choices, the tolerances and the feature ids are those of the polygon routine, whose
//! manifold this one reproduces up to rounding; it only skips what a polygon needs and a
//! segment does not (the loops over faces and vertices, the incident edge search, the
//! divisions of the general closest points).

use super::{
    feature_id, midpoint, push_clipped, swap_features, LocalManifold, GAP_TOLERANCE, ID_VERTEX,
    REFERENCE_TOLERANCE,
};
use crate::geometry::math::{Transform, Vec2};
use crate::geometry::shape::Polygon;

/// A segment core, in the frame the pair is solved in.
#[derive(Clone, Copy)]
struct Core {
    ends: [Vec2; 2],
    /// The unit normal of face 0, to the right of `ends[0] -> ends[1]`.
    normal: Vec2,
    radius: f32,
}

impl Core {
    /// The unit direction from `ends[0]` to `ends[1]`, from the stored normal: no square root.
    #[inline]
    fn direction(&self) -> Vec2 {
        self.normal.left_perp()
    }

    /// The point of the segment closest to `p`.
    #[inline]
    fn closest_to(&self, p: Vec2) -> Vec2 {
        let u = self.direction();
        let length = u.dot(self.ends[1] - self.ends[0]);
        let along = u.dot(p - self.ends[0]);
        let along = if along < 0.0 {
            0.0
        } else if along > length {
            length
        } else {
            along
        };
        self.ends[0] + u * along
    }
}

/// Capsule `a` in its own frame against capsule `b` placed by `xf` in that frame (both
/// polygons of two vertices, neither a chain segment).
pub(super) fn capsules(
    a: &Polygon,
    b: &Polygon,
    xf: Transform,
    speculative_distance: f32,
) -> LocalManifold {
    debug_assert!(a.count == 2 && b.count == 2);
    let core_a = Core {
        ends: [a.vertices[0], a.vertices[1]],
        normal: a.normals[0],
        radius: a.radius,
    };
    let core_b = Core {
        ends: [xf.apply(b.vertices[0]), xf.apply(b.vertices[1])],
        normal: xf.q.rotate(b.normals[0]),
        radius: b.radius,
    };
    let radius = a.radius + b.radius;
    let (side_a, separation_a) = face_separation(core_a, core_b);
    // A face separation is a lower bound of the distance, so this test is safe.
    if separation_a - radius > speculative_distance {
        return LocalManifold::default();
    }
    let (side_b, separation_b) = face_separation(core_b, core_a);
    if separation_b - radius > speculative_distance {
        return LocalManifold::default();
    }
    // B's face must beat A's by a margin to become the reference, as between polygons.
    if separation_b > separation_a + REFERENCE_TOLERANCE {
        let mut manifold =
            segment_contact(core_b, side_b, separation_b, core_a, speculative_distance);
        // The normal must point from A to B, and the ids name A's feature first.
        manifold.normal = -manifold.normal;
        for mp in &mut manifold.points[..manifold.point_count] {
            mp.id = swap_features(mp.id);
        }
        manifold
    } else {
        segment_contact(core_a, side_a, separation_a, core_b, speculative_distance)
    }
}

/// The side of `reference` that both ends of `other` lie furthest in front of, as the sign of
/// its face normal (1 for face 0, -1 for face 1; face 0 on a tie), and that separation of the
/// cores.
#[inline]
fn face_separation(reference: Core, other: Core) -> (f32, f32) {
    let n = reference.normal;
    let s0 = n.dot(other.ends[0] - reference.ends[0]);
    let s1 = n.dot(other.ends[1] - reference.ends[0]);
    let (least, most) = if s0 < s1 { (s0, s1) } else { (s1, s0) };
    if least >= -most {
        (1.0, least)
    } else {
        (-1.0, -most)
    }
}

/// Contact of segment `incident` against the face on side `side` of segment `reference` (see
/// [`face_separation`]), whose cores are `face_separation` apart along that face's normal:
/// the incident segment clipped to the reference's ends, or the closest points where those do
/// not give the true gap. Normal from reference to incident; ids name the reference's vertex
/// first.
#[inline]
fn segment_contact(
    reference: Core,
    side: f32,
    face_separation: f32,
    incident: Core,
    speculative_distance: f32,
) -> LocalManifold {
    let normal = reference.normal * side;
    let [r0, r1] = reference.ends;
    let radii = (reference.radius, incident.radius);
    // Along the reference from r0 to r1; the incident ends in that order.
    let tangent = reference.direction();
    let (lower, upper) = (tangent.dot(r0), tangent.dot(r1));
    let [i0, i1] = incident.ends;
    let (t0, t1) = (tangent.dot(i0), tangent.dot(i1));
    let (low, high) = if t0 <= t1 {
        ((i0, t0, 0), (i1, t1, 1))
    } else {
        ((i1, t1, 1), (i0, t0, 0))
    };

    // Separated cores may be closest corner to corner, off to the side of the face: the gap
    // along the face normal then understates the true gap. Not so when the incident end at
    // the face separation lies across from the face: its foot on the face is that far away,
    // and no two points of the cores are closer than their separation along an axis.
    let across = |t: f32| (lower..=upper).contains(&t);
    let nearer_across = if normal.dot(i0 - r0) <= normal.dot(i1 - r0) {
        across(t0)
    } else {
        across(t1)
    };
    let closest =
        (face_separation > 0.0 && !nearer_across).then(|| closest_points(reference, incident));
    if let Some(closest) = closest {
        if (closest.1 - closest.0).length() > face_separation + GAP_TOLERANCE {
            return closest_contact(closest, normal, radii, speculative_distance);
        }
    }

    // The incident ends clipped to the slab lower <= t <= upper, each moved along the
    // segment; nothing left when the incident segment lies wholly beside the reference.
    let cut = |(p, tp): (Vec2, f32), (q, tq): (Vec2, f32), bound: f32| {
        p + (q - p) * ((bound - tp) / (tq - tp))
    };
    let ((w_low, t_low, j_low), (w_high, t_high, j_high)) = (low, high);
    let beside = t_high < lower
        || t_low > upper
        || t_high <= lower && t_low < lower
        || t_low >= upper && t_high > upper;
    if beside {
        let closest = closest.unwrap_or_else(|| closest_points(reference, incident));
        return closest_contact(closest, normal, radii, speculative_distance);
    }
    let p_low = if t_low < lower {
        cut((w_low, t_low), (w_high, t_high), lower)
    } else {
        w_low
    };
    let p_high = if t_high > upper {
        cut((w_high, t_high), (w_low, t_low), upper)
    } else {
        w_high
    };

    let mut manifold = LocalManifold {
        normal,
        ..LocalManifold::default()
    };
    // Each point named by the two vertices at its end of the overlap, as between polygons.
    let ends = [
        (p_low, feature_id(0, j_low)),
        (p_high, feature_id(1, j_high)),
    ];
    push_clipped(
        &mut manifold,
        ends,
        r0,
        tangent,
        radii,
        speculative_distance,
    );
    if let Some(closest) = closest {
        // An incident end clipped off by the slab leaves points whose gap along the face
        // normal overstates the true gap at that end: then the closest points serve.
        let gap = (closest.1 - closest.0).length() - radii.0 - radii.1;
        let deepest = manifold.points[..manifold.point_count]
            .iter()
            .map(|p| p.separation)
            .fold(f32::INFINITY, f32::min);
        if deepest > gap + GAP_TOLERANCE {
            return closest_contact(closest, normal, radii, speculative_distance);
        }
    }
    manifold
}

/// Closest points `(on reference, on incident)` of two segments known not to cross: one of
/// them is then an end, so the four ends against the other segment are enough.
#[inline]
fn closest_points(reference: Core, incident: Core) -> (Vec2, Vec2) {
    let [r0, r1] = reference.ends;
    let [i0, i1] = incident.ends;
    let candidates = [
        (r0, incident.closest_to(r0)),
        (r1, incident.closest_to(r1)),
        (reference.closest_to(i0), i0),
        (reference.closest_to(i1), i1),
    ];
    let mut best = candidates[0];
    let mut best_distance = (best.1 - best.0).length_squared();
    for candidate in &candidates[1..] {
        let distance = (candidate.1 - candidate.0).length_squared();
        if distance < best_distance {
            (best, best_distance) = (*candidate, distance);
        }
    }
    best
}

/// The single point joining the closest points `(on reference core, on incident core)` of two
/// separated segments, with `radii` `(reference, incident)` taken off; `face_normal` stands in
/// for the direction if the points coincide. Its id is that of two polygons' closest edges.
#[inline]
fn closest_contact(
    (on_reference_core, on_incident_core): (Vec2, Vec2),
    face_normal: Vec2,
    radii: (f32, f32),
    speculative_distance: f32,
) -> LocalManifold {
    let delta = on_incident_core - on_reference_core;
    let distance = delta.length();
    let separation = distance - radii.0 - radii.1;
    if separation > speculative_distance {
        return LocalManifold::default();
    }
    let normal = if distance > f32::EPSILON {
        delta * (1.0 / distance)
    } else {
        face_normal
    };
    let on_reference = on_reference_core + normal * radii.0;
    let on_incident = on_incident_core - normal * radii.1;
    let id = feature_id(0, 0) | ID_VERTEX;
    LocalManifold::single(normal, midpoint(on_reference, on_incident), separation, id)
}

#[cfg(test)]
mod tests {
    use super::super::polygon::polygons;
    use super::super::{LocalManifold, GAP_TOLERANCE};
    use super::capsules;
    use crate::geometry::math::{DVec2, Rot, Transform, Vec2};
    use crate::geometry::shape::{Polygon, Shape};

    const SPECULATIVE: f32 = 0.02;

    /// A small xorshift generator: the same poses on every run.
    struct Random(u64);

    impl Random {
        fn unit(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn range(&mut self, low: f32, high: f32) -> f32 {
            low + (high - low) * self.unit()
        }
    }

    fn capsule(p1: Vec2, p2: Vec2, radius: f32) -> Polygon {
        match Shape::capsule(p1, p2, radius).unwrap() {
            Shape::Polygon(p) => *p,
            Shape::Circle(_) => unreachable!(),
        }
    }

    /// Random capsules (segments among them) at random poses of B in A's frame, from far apart
    /// to crossing, with a share of them near parallel, where the face contacts are.
    fn cases(count: usize) -> Vec<(Polygon, Polygon, Transform)> {
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        let shape = |random: &mut Random| {
            let half = random.range(0.05, 1.0);
            let radius = if random.unit() < 0.2 {
                0.0
            } else {
                random.range(0.0, 0.3)
            };
            let offset = Vec2::new(random.range(-0.3, 0.3), random.range(-0.3, 0.3));
            let axis = Rot::from_angle(random.range(-3.2, 3.2)).rotate(Vec2::new(half, 0.0));
            capsule(offset - axis, offset + axis, radius)
        };
        (0..count)
            .map(|i| {
                let (a, b) = (shape(&mut random), shape(&mut random));
                // From crossing to just beyond the speculative distance.
                let extent = |p: &Polygon| p.vertices[0].length().max(p.vertices[1].length());
                let reach = extent(&a) + extent(&b) + a.radius + b.radius + 0.05;
                let direction =
                    Rot::from_angle(random.range(-3.2, 3.2)).rotate(Vec2::new(1.0, 0.0));
                let at = direction * random.range(0.0, reach);
                let angle = if i % 3 == 0 {
                    // Near parallel (or anti-parallel) to A.
                    let along = (a.vertices[1] - a.vertices[0])
                        .y
                        .atan2((a.vertices[1] - a.vertices[0]).x);
                    let turn = if random.unit() < 0.5 {
                        0.0
                    } else {
                        std::f32::consts::PI
                    };
                    along + turn + random.range(-0.02, 0.02)
                } else {
                    random.range(-3.2, 3.2)
                };
                (a, b, Transform::new(at, Rot::from_angle(angle)))
            })
            .collect()
    }

    /// B's core ends in A's frame.
    fn ends_of_b(b: &Polygon, xf: Transform) -> (Vec2, Vec2) {
        (xf.apply(b.vertices[0]), xf.apply(b.vertices[1]))
    }

    /// The exact distance between segments `a0 a1` and `b0 b1`, in f64: 0 if they cross.
    fn segment_distance(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> f64 {
        let (a0, a1, b0, b1) = (a0.into(), a1.into(), b0.into(), b1.into());
        let side = |p: DVec2, q: DVec2, r: DVec2| (q - p).cross(r - p);
        let crossing = side(a0, a1, b0) * side(a0, a1, b1) <= 0.0
            && side(b0, b1, a0) * side(b0, b1, a1) <= 0.0;
        if crossing {
            return 0.0;
        }
        let to_segment = |p: DVec2, s0: DVec2, s1: DVec2| {
            let e = s1 - s0;
            let t = ((p - s0).dot(e) / e.dot(e)).clamp(0.0, 1.0);
            (p - (s0 + e * t)).length_squared().sqrt()
        };
        [
            to_segment(a0, b0, b1),
            to_segment(a1, b0, b1),
            to_segment(b0, a0, a1),
            to_segment(b1, a0, a1),
        ]
        .into_iter()
        .fold(f64::INFINITY, f64::min)
    }

    fn deepest(m: &LocalManifold) -> f32 {
        m.points[..m.point_count]
            .iter()
            .map(|p| p.separation)
            .fold(f32::INFINITY, f32::min)
    }

    /// Against the exact distance of the two segments: the deepest point's separation is the
    /// gap between the capsules, up to the tolerance the face contacts are allowed (never
    /// less: no point is deeper than the shapes are), a single point's normal runs along the
    /// closest points, and there are points exactly when the gap is within the speculative
    /// distance.
    #[test]
    fn capsule_contacts_give_the_exact_gap() {
        let (mut separated, mut faces) = (0, 0);
        for (k, (a, b, xf)) in cases(20_000).into_iter().enumerate() {
            let m = capsules(&a, &b, xf, SPECULATIVE);
            let (b0, b1) = ends_of_b(&b, xf);
            let distance = segment_distance(a.vertices[0], a.vertices[1], b0, b1);
            let gap = distance - f64::from(a.radius + b.radius);
            if distance < 1e-4 {
                // Crossing cores: their depth is the polygon routine's business (see below).
                continue;
            }
            if gap > f64::from(SPECULATIVE) + 1e-5 {
                assert_eq!(m.point_count, 0, "case {k}: gap {gap}");
                continue;
            }
            if gap < f64::from(SPECULATIVE) - 1e-5 {
                assert!(m.point_count > 0, "case {k}: gap {gap} lost");
            }
            if m.point_count == 0 {
                continue;
            }
            separated += 1;
            assert!((m.normal.length() - 1.0).abs() < 1e-5, "case {k}");
            let error = f64::from(deepest(&m)) - gap;
            assert!(
                error > -1e-5 && error < f64::from(GAP_TOLERANCE) + 1e-5,
                "case {k}: deepest {} against the gap {gap}",
                deepest(&m)
            );
            if m.point_count == 2 {
                faces += 1;
            } else {
                // The normal of one point is the direction of the closest points, or a face
                // normal that gives the same gap: the point's projection along it.
                let p = m.points[0];
                let reach = f64::from(p.separation) * 0.5;
                let on_b = p.point + m.normal * (reach as f32 + b.radius);
                let on_a = p.point - m.normal * (reach as f32 + a.radius);
                let from_a = segment_distance(a.vertices[0], a.vertices[1], on_a, on_a);
                let from_b = segment_distance(b0, b1, on_b, on_b);
                assert!(
                    from_a < 1e-3 && from_b < 1e-3,
                    "case {k}: the point's ends miss the cores by {from_a} and {from_b}"
                );
            }
        }
        // The cases cover both kinds of separated contact.
        assert!(separated > 3000 && faces > 500, "{separated} {faces}");
    }

    /// The polygon routine, which two capsules went through before, gives the same manifold
    /// up to rounding: point count, normal, ids, points and separations.
    #[test]
    fn capsule_contacts_match_the_polygon_routine() {
        let mut touching = 0;
        for (k, (a, b, xf)) in cases(20_000).into_iter().enumerate() {
            let ours = capsules(&a, &b, xf, SPECULATIVE);
            let general = polygons(&a, &b, xf, SPECULATIVE);
            assert_eq!(ours.point_count, general.point_count, "case {k}");
            if ours.point_count == 0 {
                continue;
            }
            touching += 1;
            assert!((ours.normal - general.normal).length() < 1e-4, "case {k}");
            let mut found = 0;
            for p in &ours.points[..ours.point_count] {
                let q = general.points[..general.point_count]
                    .iter()
                    .find(|q| q.id == p.id)
                    .unwrap_or_else(|| panic!("case {k}: id {:#x} not in {general:?}", p.id));
                assert!((p.point - q.point).length() < 1e-4, "case {k}");
                assert!((p.separation - q.separation).abs() < 1e-4, "case {k}");
                found += 1;
            }
            assert_eq!(found, general.point_count);
        }
        assert!(touching > 6000, "{touching}");
    }
}
