//! The face contact: the incident edge clipped to the reference face's side planes, and the
//! reach of a clipped contact, the motion that keeps a fresh collide's points those of the
//! recycled manifold.

use super::closest::{closest_edges, closest_points_contact, closest_points_of_segments};
use super::reach::{least, Apart, Margin, Reach, RECYCLE_ERROR};
use super::sat::Hull;
use super::{
    feature_id, push_clipped, LocalManifold, LocalPoint, GAP_TOLERANCE, ID_VERTEX, MERGE_DISTANCE,
};
use crate::geometry::math::Vec2;
use crate::geometry::shape::next_index;

/// The distance from `span` to the farthest vertex of `hull`, whose edge `edge` (from vertex
/// `edge` to the next) has ends at the squared distances `ends` from it.
#[inline(always)]
fn extent(hull: Hull, span: &Span, edge: usize, ends: [f32; 2]) -> f32 {
    // Squared distances compared, one square root taken: the same value, as the root is
    // monotonic; and the same maximum in any order. The edge's ends are not measured again:
    // the vertices after it, around to its first.
    let count = hull.count();
    let mut farthest = 0.0f32.max(ends[0]).max(ends[1]);
    let mut i = next_index(edge, count);
    for _ in 2..count {
        i = next_index(i, count);
        farthest = farthest.max(span.distance_squared(hull.vertices[i]));
    }
    farthest.sqrt()
}

/// A manifold's points (one, or the segment between two), which a reach measures distances
/// from; the segment's squared length inverted once for all of them.
struct Span {
    from: Vec2,
    along: Vec2,
    /// `1 / |along|²`, or 0 for a single point.
    inverse: f32,
}

impl Span {
    #[inline(always)]
    fn of(points: &[LocalPoint]) -> Span {
        let (from, to) = (points[0].point, points[points.len() - 1].point);
        let along = to - from;
        let length_sq = along.length_squared();
        // (Two points are at least `MERGE_DISTANCE` apart; below some µm the span is taken
        // as its first point, whose distance is the larger, so the reach only the smaller.)
        let inverse = if length_sq > 1e-12 {
            1.0 / length_sq
        } else {
            0.0
        };
        Span {
            from,
            along,
            inverse,
        }
    }

    /// The squared distance from the span to `p`.
    #[inline(always)]
    fn distance_squared(&self, p: Vec2) -> f32 {
        let t = (self.along.dot(p - self.from) * self.inverse).clamp(0.0, 1.0);
        (p - (self.from + self.along * t)).length_squared()
    }
}

/// The edge of `hull` whose normal is most anti-parallel to `normal`, and half the margin by
/// which it is more so than the next edge: a turn (as a chord) under that keeps it.
///
/// One pass for both: the next edge's dot product is the least of the others in the order of
/// the edges, so where an edge takes the lead, the one it displaces is that least so far (it
/// was the first to reach it), and otherwise the edge's own competes.
#[inline]
fn incident_edge(hull: Hull, normal: Vec2) -> (usize, f32) {
    let mut best = (0, f32::MAX);
    let mut next = f32::MAX;
    for (i, n) in hull.normals[..hull.count].iter().enumerate() {
        let d = n.dot(normal);
        if d < best.1 {
            next = best.1;
            best = (i, d);
        } else if d < next {
            next = d;
        }
    }
    (best.0, 0.5 * (next - best.1))
}

/// Moves endpoint `p` of segment `p -> q` along the segment into the slab
/// `lower <= tangent · x <= upper`. `None` when the whole segment is out on one side.
fn clip_end(p: Vec2, q: Vec2, tangent: Vec2, lower: f32, upper: f32) -> Option<Vec2> {
    let tp = tangent.dot(p);
    let tq = tangent.dot(q);
    let bound = if tp < lower {
        // q on the same outer side (or exactly on the bound) leaves nothing to keep.
        if tq <= lower {
            return None;
        }
        lower
    } else if tp > upper {
        if tq >= upper {
            return None;
        }
        upper
    } else {
        return Some(p);
    };
    // q is strictly on the inner side of `bound` while p is outside, so tq != tp.
    Some(p + (q - p) * ((bound - tp) / (tq - tp)))
}

/// Contact of `incident` against face `face` of `reference` (both in one frame), whose cores
/// are `face_separation` apart along the face normal: clip the incident edge to the reference
/// face's side planes and keep the endpoints within `speculative_distance`. Normal from
/// reference to incident. No reach.
#[inline]
pub(super) fn face_contact(
    reference: Hull,
    face: usize,
    face_separation: f32,
    incident: Hull,
    speculative_distance: f32,
) -> LocalManifold {
    face_contact_and_reach(
        reference,
        face,
        face_separation,
        incident,
        speculative_distance,
        None,
    )
}

/// [`face_contact`], writing the reach of a clipped contact to `reach` where one is wanted
/// (see [`collide_and_reach`](super::collide_and_reach)), and leaving it alone for any other
/// contact; the reach of the reference face's choice is left to the caller.
///
/// Always inlined: as a call of its own, its manifold was built on its stack and then copied
/// out to the caller's.
#[inline(always)]
pub(super) fn face_contact_and_reach(
    reference: Hull,
    face: usize,
    face_separation: f32,
    incident: Hull,
    speculative_distance: f32,
    reach: Option<&mut Reach>,
) -> LocalManifold {
    let normal = reference.normals[face];
    let v1 = reference.vertices[face];
    let v2 = reference.vertices[next_index(face, reference.count())];
    let (edge, turn) = incident_edge(incident, normal);
    let end = next_index(edge, incident.count());
    let w1 = incident.vertices[edge];
    let w2 = incident.vertices[end];
    let radii = (reference.radius, incident.radius);
    let edge_pair_id = feature_id(face, edge) | ID_VERTEX;

    // Counter-clockwise edges run along the normal turned left, so t·v1 < t·v2.
    let tangent = normal.left_perp();
    let (lower, upper) = (tangent.dot(v1), tangent.dot(v2));

    // Separated cores may be closest corner to corner, off to the side of the face: the gap
    // along the face normal then understates the true gap, and speculative points built on it
    // would let the shapes close in too far. The two edges' closest points tell; with a
    // segment core, all edge pairs' (see `closest_edges`). They are not needed when the
    // incident edge's nearer end lies across from the face at the face separation: its foot on
    // the face is that far from it, and no two points of the cores are closer than their
    // separation along an axis, so that is the true gap.
    let gap_along_normal = || {
        let (s1, s2) = (normal.dot(w1 - v1), normal.dot(w2 - v1));
        let (nearer, nearer_separation) = if s1 <= s2 { (w1, s1) } else { (w2, s2) };
        let across = (lower..=upper).contains(&tangent.dot(nearer));
        across && nearer_separation <= face_separation + GAP_TOLERANCE
    };
    let has_segment = reference.count() == 2 || incident.count() == 2;
    let separated = face_separation > 0.0 && !gap_along_normal();
    let segment_closest = (separated && has_segment).then(|| closest_edges(reference, incident));
    if separated {
        let (closest, id) =
            segment_closest.unwrap_or((closest_points_of_segments(v1, v2, w1, w2), edge_pair_id));
        if (closest.1 - closest.0).length() > face_separation + GAP_TOLERANCE {
            return closest_points_contact(closest, normal, radii, id, speculative_distance);
        }
    }

    let clipped =
        clip_end(w1, w2, tangent, lower, upper).zip(clip_end(w2, w1, tangent, lower, upper));
    let Some((p1, p2)) = clipped else {
        // The incident edge lies wholly beside the face, so the edges do not cross.
        let (closest, id) =
            segment_closest.unwrap_or((closest_points_of_segments(v1, v2, w1, w2), edge_pair_id));
        return closest_points_contact(closest, normal, radii, id, speculative_distance);
    };

    let mut manifold = LocalManifold {
        normal,
        ..LocalManifold::default()
    };
    // The incident edge runs against the face: w1 lies at v2's end, w2 at v1's.
    let ends = [
        (p1, feature_id(next_index(face, reference.count()), edge)),
        (p2, feature_id(face, end)),
    ];
    push_clipped(
        &mut manifold,
        ends,
        v1,
        tangent,
        radii,
        speculative_distance,
    );
    if let Some((closest, id)) = segment_closest {
        // A segment end clipped off by a side plane leaves points whose gap along the face
        // normal overstates the true gap at that end: then the closest points serve.
        let gap = (closest.1 - closest.0).length() - radii.0 - radii.1;
        let points = &manifold.points[..manifold.point_count];
        let deepest = points
            .iter()
            .map(|p| p.separation)
            .fold(f32::INFINITY, f32::min);
        if deepest > gap + GAP_TOLERANCE {
            return closest_points_contact(closest, normal, radii, id, speculative_distance);
        }
    }
    if let Some(reach) = reach.filter(|_| manifold.point_count > 0) {
        let clip = Clip {
            normal,
            tangent,
            v1,
            bounds: (lower, upper),
            edge: (w1, w2),
            ends: (p1, p2),
        };
        let span = Span::of(&manifold.points[..manifold.point_count]);
        let ends = [w1, w2].map(|w| span.distance_squared(w));
        *reach = clip.reach(radii.0 + radii.1, speculative_distance, &span, ends);
        reach.far_extent = extent(incident, &span, edge, ends);
        reach.turn = turn;
    }
    manifold
}

/// The clipping of a face contact, for its [`Reach`]: the reference face's normal, its
/// tangent, its first vertex and the bounds `tangent · x` of its side planes; the incident
/// edge, and its ends clipped to the side planes (each the end itself where it lies within
/// them).
struct Clip {
    normal: Vec2,
    tangent: Vec2,
    v1: Vec2,
    bounds: (f32, f32),
    edge: (Vec2, Vec2),
    ends: (Vec2, Vec2),
}

impl Clip {
    /// How far inside the side planes `p` lies (negative outside).
    fn inside(&self, p: Vec2) -> f32 {
        let t = self.tangent.dot(p);
        (t - self.bounds.0).min(self.bounds.1 - t)
    }

    /// The margin of the contact: the largest motion of the incident edge relative to the
    /// face that keeps a fresh collide's points those of the recycled manifold, within
    /// [`RECYCLE_ERROR`]. `radius` is the sum of the radii, `band` the speculative distance,
    /// `span` the manifold's points, `ends` the squared distances from it of the incident
    /// edge's ends.
    fn reach(&self, radius: f32, band: f32, span: &Span, ends: [f32; 2]) -> Reach {
        let (w1, w2) = self.edge;
        let (along, across) = (
            self.tangent.dot(w2 - w1).abs(),
            self.normal.dot(w2 - w1).abs(),
        );
        let extents = ends.map(f32::sqrt);
        let inside = [self.inside(w1), self.inside(w2)];
        // The cores' separation at each end of the incident edge.
        let cores = [self.normal.dot(w1 - self.v1), self.normal.dot(w2 - self.v1)];
        // A point where a side plane cut the edge slides along it as the edge moves: its
        // separation moves by the motion along the normal (as recycled) plus the motion along
        // the face times the edge's slope, `across / along`. So does an end that crosses a
        // side plane. (Infinite for edges parallel to the face, which cannot err so.)
        let sloped = RECYCLE_ERROR * along / across;
        // (`lever` squared until all ends are in: one square root.)
        let (mut at_points, mut near, mut lever) = (f32::INFINITY, f32::INFINITY, 0.0f32);
        // The end across from the face that is a point of the manifold, if one only is.
        let mut corner = None;
        for (k, (p, w)) in [(self.ends.0, w1), (self.ends.1, w2)]
            .into_iter()
            .enumerate()
        {
            let separation = self.normal.dot(p - self.v1) - radius;
            if separation > band {
                // Left out: it closes in by at most the motion times 1 + the slope before it
                // enters the band, where a fresh collide would add it.
                near = least(near, (separation - band) * along / (along + across));
            } else if p != w {
                at_points = least(at_points, sloped);
                lever = lever.max(span.distance_squared(p));
            } else {
                // A corner on the face: exact (to second order) until it crosses a side
                // plane. (`p` is `w`, whose squared distance is known.)
                at_points = least(at_points, inside[k].max(sloped));
                lever = lever.max(ends[k]);
                corner = match corner {
                    None => Some(k),
                    Some(_) => Some(2),
                };
            }
        }
        let lever = lever.sqrt();
        // The clipped edge keeps its two ends apart, or merged into one (see
        // `push_clipped`), and does not vanish.
        let length = self.tangent.dot(self.ends.1 - self.ends.0).abs();
        near = least(near, 0.5 * (length - MERGE_DISTANCE).abs().min(length));
        // (See `Apart`.)
        let overlap = |k: usize| Margin {
            motion: -cores[k],
            extent: extents[k],
        };
        let mut apart = Apart {
            overlap: [overlap(0), overlap(1)],
            inside,
            slope: across / along,
            ..Apart::NEVER
        };
        if let Some(k @ 0..=1) = corner {
            let (w, other) = if k == 0 { (w1, w2) } else { (w2, w1) };
            let rise = cores[1 - k] - cores[k];
            apart.level = Margin {
                motion: inside[k],
                extent: lever,
            };
            apart.level_turn = (rise + GAP_TOLERANCE) / (other - w).length();
        }
        Reach {
            at_points,
            lever,
            near,
            near_extent: extents[0].max(extents[1]),
            far: f32::INFINITY,
            apart,
            ..Reach::NEVER
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_end_keeps_inside_points_and_cuts_at_the_bounds() {
        let t = Vec2::new(1.0, 0.0);
        let inside = Vec2::new(0.2, 1.0);
        assert_eq!(
            clip_end(inside, Vec2::new(0.8, 1.0), t, 0.0, 1.0),
            Some(inside)
        );
        let beyond_upper = clip_end(Vec2::new(2.0, 2.0), Vec2::ZERO, t, 0.0, 1.0);
        assert_eq!(beyond_upper, Some(Vec2::new(1.0, 1.0)));
        let beyond_lower = clip_end(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 2.0), t, 0.0, 1.0);
        assert_eq!(beyond_lower, Some(Vec2::new(0.0, 1.0)));
        assert_eq!(
            clip_end(Vec2::new(2.0, 0.0), Vec2::new(1.5, 0.0), t, 0.0, 1.0),
            None
        );
        assert_eq!(
            clip_end(Vec2::new(-2.0, 0.0), Vec2::new(0.0, 0.0), t, 0.0, 1.0),
            None
        );
    }
}
