//! Contacts between two polygon cores: the separating-axis test chooses the reference face,
//! the face contact clips the other core's edge to it, and the reach says how far the pair may
//! move before that choice could change.

use super::clip::face_contact_and_reach;
use super::reach::{least, Choice, Reach, RECYCLE_ERROR};
use super::sat::{max_separation, moved, next_separation, turned, Faces, Hull};
use super::{swap_features, LocalManifold, LocalPoint, REFERENCE_TOLERANCE};
use crate::geometry::math::{Transform, Vec2};
use crate::geometry::shape::{Polygon, MAX_POLYGON_VERTICES};

/// Polygon `a` in its own frame against polygon `b` placed by `xf` in that frame, without a
/// reach.
#[inline]
pub(super) fn polygons(
    a: &Polygon,
    b: &Polygon,
    xf: Transform,
    speculative_distance: f32,
) -> LocalManifold {
    polygons_and_reach(a, b, xf, speculative_distance, None)
}

/// [`polygons`], writing the manifold's reach to `reach` where one is wanted (see
/// [`collide_and_reach`](super::collide_and_reach)).
pub(super) fn polygons_and_reach(
    a: &Polygon,
    b: &Polygon,
    xf: Transform,
    speculative_distance: f32,
    reach: Option<&mut Reach>,
) -> LocalManifold {
    fn hull(p: &Polygon, count: usize) -> Hull<'_> {
        Hull {
            vertices: &p.vertices,
            normals: &p.normals,
            count,
            radius: p.radius,
        }
    }
    // Boxes are by far the most common polygons: with the counts known at compile time the
    // loops below unroll and lose their bounds checks. The others take, for each polygon, the
    // narrowest separating-axis width that holds its vertices: a capsule's two vertices padded
    // to eight, or a box's four against a heptagon's faces, would cost more than they save.
    // The widths come from one match on the two counts: working out each polygon's width
    // first and then matching on the two widths took two more rounds of compares per pair.
    const M: usize = MAX_POLYGON_VERTICES;
    let (d, r) = (speculative_distance, reach);
    match (a.count, b.count) {
        (4, 4) => return polygon_cores::<4, 4>(hull(a, 4), hull(b, 4), xf, d, r),
        (2, 2) => return polygon_cores::<2, 2>(hull(a, 2), hull(b, 2), xf, d, r),
        _ => {}
    }
    let (na, nb) = (a.count, b.count);
    let (a, b) = (hull(a, na), hull(b, nb));
    match (na, nb) {
        (2, 3 | 4) => polygon_cores::<2, 4>(a, b, xf, d, r),
        (2, _) => polygon_cores::<2, M>(a, b, xf, d, r),
        (3 | 4, 2) => polygon_cores::<4, 2>(a, b, xf, d, r),
        (3 | 4, 3 | 4) => polygon_cores::<4, 4>(a, b, xf, d, r),
        (3 | 4, _) => polygon_cores::<4, M>(a, b, xf, d, r),
        (_, 2) => polygon_cores::<M, 2>(a, b, xf, d, r),
        (_, 3 | 4) => polygon_cores::<M, 4>(a, b, xf, d, r),
        _ => polygon_cores::<M, M>(a, b, xf, d, r),
    }
}

/// [`polygons_and_reach`] on hulls: `a` in its own frame, `b` in its own frame placed by `xf`
/// in `a`'s.
///
/// Only B is brought into A's frame, and lazily: its vertices first (A's axes need them), its
/// normals only once A's axes have failed to separate the pair.
///
/// `NA` and `NB` are the widths of the separating-axis loops across `a`'s and `b`'s faces:
/// each a power of two, at least its hull's vertex count.
///
/// `reach`, where given, comes in as [`Reach::NEVER`] and is left so but for a face contact,
/// whose reach is written to it.
#[inline(always)]
pub(super) fn polygon_cores<const NA: usize, const NB: usize>(
    a: Hull,
    b: Hull,
    xf: Transform,
    speculative_distance: f32,
    mut reach: Option<&mut Reach>,
) -> LocalManifold {
    let count = b.count();
    // All `NB` of B's vertices and normals are moved, those past its count too (finite, and
    // never read but by the faces' fixed width): a loop of a width known at compile time
    // unrolls, where one of `count` steps pays its own control.
    let vertices = moved::<NB>(b.vertices, xf);
    let radius = a.radius + b.radius;
    let faces_a = Faces::<NA>::of(a);
    let sat_a = max_separation(&faces_a, a.count, count, |j| vertices[j]);
    let (face_a, separation_a) = (sat_a.face, sat_a.separation);
    if separation_a - radius > speculative_distance {
        return LocalManifold::default();
    }
    let normals = turned::<NB>(b.normals, xf.q);
    let b = Hull {
        vertices: &vertices,
        normals: &normals,
        count,
        radius: b.radius,
    };
    let faces_b = Faces::<NB>::of(b);
    let sat_b = max_separation(&faces_b, count, a.count, |j| a.vertices[j]);
    let (face_b, separation_b) = (sat_b.face, sat_b.separation);
    if separation_b - radius > speculative_distance {
        return LocalManifold::default();
    }
    // The face contact inlined once for each reference face: each copy then knows its hulls'
    // widths, and its loops over their faces unroll.
    let flipped = separation_b > separation_a + REFERENCE_TOLERANCE;
    let d = speculative_distance;
    let mut manifold = if flipped {
        face_contact_and_reach(b, face_b, separation_b, a, d, reach.as_deref_mut())
    } else {
        face_contact_and_reach(a, face_a, separation_a, b, d, reach.as_deref_mut())
    };
    if flipped {
        // The normal must point from A to B, and the ids name A's feature first.
        manifold.normal = -manifold.normal;
        for mp in &mut manifold.points[..manifold.point_count] {
            mp.id = swap_features(mp.id);
        }
    }
    // (A reach is worked out only where one is wanted.)
    if let Some(reach) = reach.filter(|reach| reach.may_recycle()) {
        let points = &manifold.points[..manifold.point_count];
        reference_reach(
            reach,
            (points[0], points[points.len() - 1]),
            (a, &sat_a.each, face_a, separation_a),
            (b, &sat_b.each, face_b, separation_b),
            speculative_distance + radius,
        );
    }
    manifold
}

/// A core of [`polygon_cores`]: its hull (in A's frame), the separations of its faces from
/// the other core (see [`Separations`](super::sat::Separations)), and its best face and that face's separation.
type Side<'h, 'f, const N: usize> = (Hull<'h>, &'f [f32; N], usize, f32);

/// Narrows `reach`, that of the face contact [`polygon_cores`] found between cores `a` and
/// `b` (with a speculative distance and radii that sum to `band`), whose first and last points
/// are `ends`, to the motions that keep its reference face.
///
/// Which face is the reference holds while no separation changes by half the margin of the
/// best over the next (each changes by at most the motion of the deepest vertex). Between
/// A's best face and B's, the margin is that of the tolerance, which a motion eats at a rate
/// (see [`Choice`]); but two faces all but anti-parallel make nearly the same manifold
/// whichever is the reference, and a stack of equal boxes, whose faces are flush, would
/// never recycle.
///
/// Never inlined: only the pairs that may recycle get here, and the collide of the others
/// stays short.
#[inline(never)]
pub(super) fn reference_reach<const NA: usize, const NB: usize>(
    reach: &mut Reach,
    (first, last): (LocalPoint, LocalPoint),
    (hull_a, each_a, face_a, separation_a): Side<NA>,
    (hull_b, each_b, face_b, separation_b): Side<NB>,
    band: f32,
) {
    // As `polygon_cores` chose.
    let flipped = separation_b > separation_a + REFERENCE_TOLERANCE;
    let (separation, next) = if flipped {
        (separation_b, next_separation(each_b, hull_b.count, face_b))
    } else {
        (separation_a, next_separation(each_a, hull_a.count, face_a))
    };
    reach.far = least(reach.far, 0.5 * (separation - next));
    let (normal_a, normal_b) = (hull_a.normals[face_a], hull_b.normals[face_b]);
    let turned = 1.0 + normal_a.dot(normal_b);
    let depth = (-separation_a.min(separation_b)).max(band);
    if turned * depth > 0.5 * RECYCLE_ERROR {
        // The margin of the reference face over the other core's best. (Negative, so never
        // recycled, should rounding have chosen against the margin's sign.)
        let choice = separation_b - separation_a - REFERENCE_TOLERANCE;
        let margin = if flipped { choice } else { -choice };
        // Work in the reference core's frame, where the incident core moves by `d(x)` at `x`:
        // `d(p)` at a point `p` of the span (at most the motion `m` at the points), plus the
        // turn `R - I` (a chord `c`) of `x - p`. The reference face's separation is that of
        // an end `w` of the incident edge (the support point of a convex core against the
        // face ends the most anti-parallel edge, which the reach's turn keeps), and grows by
        // `n_ref · d(w)`. The other face's separation, against the reference core moving by
        // `-d` in the other's frame, is at most that of its old deepest vertex `v`, grown by
        // `-n' · d(v)`, `n'` its normal turned (`|n' - n_inc| <= c`). So the margin shrinks
        // by at most `-(n_ref + n') · d(p) + c |w - p| + c |v - p|`, with `p` the span's
        // point nearest `w`: `(|n_ref + n_inc| + c) m + c (near_extent + |v - p|)`, where
        // `|v - p|` is at most `v`'s distance from the farther end of the span. Nearly
        // opposite normals move both separations nearly alike, and the margin hardly.
        let (incident_normal, others) = if flipped {
            (normal_a, hull_b)
        } else {
            (normal_b, hull_a)
        };
        let deepest = deepest_vertex(others, incident_normal);
        let (first, last) = (first.point, last.point);
        let lever = (deepest - first).length().max((deepest - last).length());
        reach.choice = Choice {
            margin,
            rate: (normal_a + normal_b).length(),
            extent: reach.near_extent + lever,
        };
    }
}

/// The vertex of `hull` deepest along `normal` (the least `normal · v`; the first of equals).
#[inline(always)]
fn deepest_vertex(hull: Hull, normal: Vec2) -> Vec2 {
    let mut best = (hull.vertices[0], normal.dot(hull.vertices[0]));
    for &v in &hull.vertices[1..hull.count()] {
        let d = normal.dot(v);
        if d < best.1 {
            best = (v, d);
        }
    }
    best.0
}
