//! The contact manifold of two shapes: the geometry the narrowphase (`contact/`) runs for
//! each pair, a pure function of the two shapes and their poses.
//!
//! Every pair is solved in body A's local frame, with B brought in by `xf_a.inv_mul(xf_b)`:
//! that transform subtracts the two positions before rotating, so two bodies touching far from
//! the world origin keep the precision of their small relative offset. Results go back to world
//! orientation only at the end, anchored on the body origins.

use crate::codec::{codec_struct, invalid, Codec, Reader, Writer};
use crate::error::Error;
use crate::geometry::distance::check_transforms;
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::geometry::shape::{
    next_index, BoxHull, Circle, Polygon, Shape, BOX_NORMALS, LINEAR_SLOP, MAX_POLYGON_VERTICES,
};

mod capsule;
mod chain;
mod reach;
mod round;

pub(crate) use chain::{chain_faces, chain_segment_faces, chain_segment_meets};
use reach::least;
use reach::{Apart, Choice, End, Margin};
pub(crate) use reach::{Reach, RECYCLE_ERROR};
pub(crate) use round::{is_round, round_contact, Round};

/// Most contact points in one manifold: two are enough to stop a 2D face from rotating.
pub const MAX_MANIFOLD_POINTS: usize = 2;

/// B's best face must beat A's by this much to become the reference face. Without the margin
/// two nearly equal separations would swap the reference back and forth between steps; the
/// ids survive that (see the id layout below), but the points would jump between the two
/// faces' clippings.
const REFERENCE_TOLERANCE: f32 = 0.1 * LINEAR_SLOP;

/// How much the true gap between separated edges may exceed their gap along the face normal
/// before the closest points replace the face contact. Parallel edges agree up to rounding and
/// must keep their two-point face contact.
pub(super) const GAP_TOLERANCE: f32 = 0.1 * LINEAR_SLOP;

/// Two clipped points closer than this along the face are kept as one (see `face_contact`).
const MERGE_DISTANCE: f32 = 0.1 * LINEAR_SLOP;

/// World normal [`collide`] gives two concentric circles, where no
/// direction is better than another. The narrowphase picks one per pair instead (see
/// `contact::update::concentric_normal`).
pub(crate) const FALLBACK_NORMAL: Vec2 = Vec2::new(0.0, 1.0);

// Feature id layout. Bits 0..8 hold a feature index of the first shape, bits 8..16 one of the
// second; the flag below says what kind of feature pair that is. Indices are
// < MAX_POLYGON_VERTICES, so they fit in 8 bits. Between two polygons the first shape is always
// A; between a circle and a polygon, it is the polygon.
//
// A clipped face point is named by two vertices: the incident vertex at its end of the edge
// and the reference face's vertex at that same end. Whether or not a side plane cut it: two
// equal boxes stacked flush jitter across the side planes by rounding errors, and an id that
// changed with the cut would drop their warm start each time. And whichever polygon gives the
// reference face: the same two vertices meet at that end of the overlap either way, so when
// two nearly equal separations hand the reference from one box to the other, as they do
// between neighbours in a settling pyramid, the points keep their ids and their impulses.

/// The polygon feature is a vertex (polygon vs circle), or the point joins the closest points
/// of two edges (separated polygons meeting corner first).
const ID_VERTEX: u32 = 1 << 16;

const _: () = assert!(
    MAX_POLYGON_VERTICES <= 256,
    "feature indices must fit in 8 bits"
);

/// One contact point.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldPoint {
    /// World point midway between the two surfaces.
    pub point: Vec2,
    /// `point - xf_a.p`: world orientation, relative to body A's origin.
    pub anchor_a: Vec2,
    /// `point - xf_b.p`: world orientation, relative to body B's origin.
    pub anchor_b: Vec2,
    /// Distance between the surfaces along the normal, negative when overlapping (radii
    /// included).
    pub separation: f32,
    /// Feature key, stable while the same pair of features touches; used to carry warm-start
    /// impulses from one step to the next.
    pub id: u32,
    /// Accumulated normal impulse; 0 from the narrowphase, filled by the solver.
    pub normal_impulse: f32,
    /// Accumulated friction impulse; 0 from the narrowphase, filled by the solver.
    pub tangent_impulse: f32,
    /// Normal impulse of the bounce this point took in the last step (restitution above zero,
    /// an approach faster than `WorldSettings::restitution_threshold`); 0 if it did not
    /// bounce, and 0 from the narrowphase.
    pub impact_impulse: f32,
}

/// Contact points between two shapes sharing one normal.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Manifold {
    /// Unit world normal pointing from shape A to shape B.
    pub normal: Vec2,
    /// The first `point_count` entries are in use.
    pub points: [ManifoldPoint; MAX_MANIFOLD_POINTS],
    /// Number of points; 0 means no contact.
    pub point_count: usize,
}

/// One contact point in the frame a manifold was solved in, before [`to_world`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LocalPoint {
    /// Midway between the two surfaces.
    pub point: Vec2,
    pub separation: f32,
    pub id: u32,
}

/// A manifold in the frame it was solved in: the few fields the narrowphase computes, kept
/// small so the routines below pass it around in registers instead of copying a whole
/// [`Manifold`] (with its solver fields) through memory.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LocalManifold {
    pub normal: Vec2,
    pub points: [LocalPoint; MAX_MANIFOLD_POINTS],
    pub point_count: usize,
    /// How far the shapes may move before a recycled copy of the manifold could differ from
    /// a fresh collide (never, but for the face contacts of polygon cores); not saved with
    /// the manifold.
    pub reach: Reach,
}

impl LocalManifold {
    /// Appends a point.
    #[inline]
    fn push(&mut self, point: Vec2, separation: f32, id: u32) {
        self.points[self.point_count] = LocalPoint {
            point,
            separation,
            id,
        };
        self.point_count += 1;
    }

    /// A manifold with a single point.
    #[inline]
    fn single(normal: Vec2, point: Vec2, separation: f32, id: u32) -> LocalManifold {
        let mut manifold = LocalManifold {
            normal,
            ..LocalManifold::default()
        };
        manifold.push(point, separation, id);
        manifold
    }
}

/// The contact manifold of two shapes: shape `a` on a body whose origin is at `xf_a` and
/// shape `b` on a body at `xf_b`, as a [`World`](crate::World) computes it when the pair first
/// meets (a standalone counterpart of Box2D's `b2Collide*` functions and parry's contact
/// manifolds).
///
/// The manifold's normal points from `a` to `b`. It holds up to [`MAX_MANIFOLD_POINTS`] points,
/// each with its world point, its separation (negative when the shapes overlap, rounding radii
/// included) and a feature id that stays the same while the same pair of features touches.
/// Points separated by more than `speculative_distance` are left out: `point_count == 0`
/// means no contact. A world keeps the points within `4 * WorldSettings::linear_slop`
/// (2 cm at the defaults) so that a contact starts before the shapes touch. The impulse fields
/// are 0: only a world's solver fills them. Two concentric circles get the normal (0, 1).
/// Chain segments collide one-sided, as in a world.
///
/// Deterministic and allocation free. `Err(InvalidParameter)` for a non-finite or non-unit
/// transform, or a `speculative_distance` that is negative or not finite.
///
/// ```
/// use batch2d::{collide, Rot, Shape, Transform, Vec2};
/// let ground = Shape::rect(5.0, 0.5).unwrap();
/// let crate_ = Shape::rect(0.5, 0.5).unwrap();
/// let resting = Transform::new(Vec2::new(0.0, 0.99), Rot::IDENTITY);
/// let m = collide(&ground, Transform::IDENTITY, &crate_, resting, 0.02).unwrap();
/// assert_eq!(m.point_count, 2);
/// assert!(m.normal.y > 0.999);
/// assert!((m.points[0].separation + 0.01).abs() < 1e-5);
/// ```
pub fn collide(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
    speculative_distance: f32,
) -> Result<Manifold, Error> {
    check_transforms(xf_a, xf_b)?;
    if !(speculative_distance.is_finite() && speculative_distance >= 0.0) {
        return Err(Error::InvalidParameter(format!(
            "speculative_distance must be finite and not negative, got {speculative_distance}"
        )));
    }
    Ok(shape_manifold(a, xf_a, b, xf_b, speculative_distance))
}

/// [`collide`] without input checks, for the narrowphase and the queries, whose transforms
/// the world keeps valid.
pub(crate) fn shape_manifold(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
    speculative_distance: f32,
) -> Manifold {
    let mut manifold = Manifold::default();
    let concentric = || FALLBACK_NORMAL;
    collide_into(
        a,
        xf_a,
        b,
        xf_b,
        speculative_distance,
        concentric,
        &mut manifold,
    );
    manifold
}

/// [`shape_manifold`] and its [`Reach`].
#[cfg(test)]
pub(crate) fn shape_manifold_and_reach(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
    speculative_distance: f32,
) -> (Manifold, Reach) {
    let mut manifold = Manifold::default();
    let concentric = || FALLBACK_NORMAL;
    let reach = collide_and_reach(
        a,
        xf_a,
        b,
        xf_b,
        speculative_distance,
        concentric,
        &mut manifold,
        true,
    );
    (manifold, reach)
}

/// [`collide`] writing every field of `out` in place (the solver
/// fields to 0), so the narrowphase can fill its contact array without copying manifolds
/// around. `concentric` gives the world normal for two circles whose centres coincide.
#[inline(always)]
pub(crate) fn collide_into(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
    speculative_distance: f32,
    concentric: impl FnOnce() -> Vec2,
    out: &mut Manifold,
) {
    collide_and_reach(
        a,
        xf_a,
        b,
        xf_b,
        speculative_distance,
        concentric,
        out,
        false,
    );
}

/// [`collide_into`], returning the manifold's [`Reach`] where `recyclable`: where the pair
/// could recycle it next step. Elsewhere the reach is [`Reach::NEVER`] and not worked out: a
/// pair that moves too fast to recycle collides afresh, which is always exact, and a reach is
/// a good part of a collide's cost.
///
/// Always inlined: the narrowphase's loop over pairs is the hot caller, and once the compound
/// bodies' narrowphase became a second caller LLVM stopped inlining it there on its own, and
/// the narrowphase of large_pyramid and particle_pile slowed.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn collide_and_reach(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
    speculative_distance: f32,
    concentric: impl FnOnce() -> Vec2,
    out: &mut Manifold,
    recyclable: bool,
) -> Reach {
    match (a, b) {
        // Chain segments are terrain: against another chain segment they collide as plain
        // segments.
        (Shape::Polygon(pa), _) if pa.chain.is_some() && b.chain_ghosts().is_none() => {
            if let Some(ghosts) = pa.chain {
                let xf = xf_a.inv_mul(xf_b);
                let local = chain::chain_segment_manifold(pa, ghosts, b, xf, speculative_distance);
                to_world(&local, xf_a, xf_b, out);
            }
            // (A chain's ghost vertices decide which faces collide, which a reach does not
            // follow: chains never recycle.)
            Reach::NEVER
        }
        (_, Shape::Polygon(pb)) if pb.chain.is_some() && a.chain_ghosts().is_none() => {
            if let Some(ghosts) = pb.chain {
                let xf = xf_b.inv_mul(xf_a);
                let local = chain::chain_segment_manifold(pb, ghosts, a, xf, speculative_distance);
                to_world(&local, xf_b, xf_a, out);
                swap_roles(out);
            }
            Reach::NEVER
        }
        (Shape::Polygon(pa), Shape::Polygon(pb)) => {
            let xf = xf_a.inv_mul(xf_b);
            let local = if pa.count == 2 && pb.count == 2 {
                capsule::capsules(pa, pb, xf, speculative_distance)
            } else {
                polygons_and_reach(pa, pb, xf, speculative_distance, recyclable)
            };
            to_world(&local, xf_a, xf_b, out);
            local.reach
        }
        (Shape::Circle(ca), Shape::Circle(cb)) => {
            let fallback = || xf_a.q.inv_rotate(concentric());
            let local = circles(ca, cb, xf_a.inv_mul(xf_b), fallback, speculative_distance);
            to_world(&local, xf_a, xf_b, out);
            Reach::NEVER
        }
        (Shape::Polygon(pa), Shape::Circle(cb)) => {
            let local = polygon_circle(pa, cb, xf_a.inv_mul(xf_b), speculative_distance);
            to_world(&local, xf_a, xf_b, out);
            Reach::NEVER
        }
        (Shape::Circle(ca), Shape::Polygon(pb)) => {
            // Same routine with the roles swapped, solved in B's frame, then turned around.
            let local = polygon_circle(pb, ca, xf_b.inv_mul(xf_a), speculative_distance);
            to_world(&local, xf_b, xf_a, out);
            swap_roles(out);
            Reach::NEVER
        }
    }
}

/// [`collide_and_reach`] for two polygons whose hulls are `a` and `b` (see
/// [`LocalBox::hull`](crate::geometry::shape::LocalBox::hull)): the
/// same bits (and reach) as from the polygons, which are not read.
#[inline(always)]
pub(crate) fn boxes_into(
    a: &BoxHull,
    xf_a: Transform,
    b: &BoxHull,
    xf_b: Transform,
    speculative_distance: f32,
    out: &mut Manifold,
    recyclable: bool,
) -> Reach {
    fn hull(h: &BoxHull) -> Hull<'_> {
        Hull {
            vertices: &h.vertices,
            normals: &BOX_NORMALS,
            count: 4,
            radius: h.radius,
        }
    }
    let xf = xf_a.inv_mul(xf_b);
    let local = polygon_cores::<4, 4>(hull(a), hull(b), xf, speculative_distance, recyclable);
    to_world(&local, xf_a, xf_b, out);
    local.reach
}

/// Writes the world form of `local`, whose normal and points are in A's body frame, to every
/// field of `out`.
///
/// Always inlined: every collide ends here, and as a call of its own the manifold went
/// through memory to reach it.
#[inline(always)]
pub(crate) fn to_world(
    local: &LocalManifold,
    xf_a: Transform,
    xf_b: Transform,
    out: &mut Manifold,
) {
    out.normal = xf_a.q.rotate(local.normal);
    out.point_count = local.point_count;
    let origin_offset = xf_a.p - xf_b.p;
    for (i, (mp, lp)) in out.points.iter_mut().zip(&local.points).enumerate() {
        *mp = if i < local.point_count {
            world_point(lp, xf_a, origin_offset)
        } else {
            ManifoldPoint::default()
        };
    }
}

/// The world form of `lp` (in A's body frame; A at `xf_a`), impulses 0. `origin_offset` is
/// `xf_a.p - xf_b.p`, taken once from the exact origins, so that anchor_b does not inherit the
/// rounding of a large world point.
#[inline]
pub(crate) fn world_point(lp: &LocalPoint, xf_a: Transform, origin_offset: Vec2) -> ManifoldPoint {
    let anchor_a = xf_a.q.rotate(lp.point);
    ManifoldPoint {
        point: xf_a.p + anchor_a,
        anchor_a,
        anchor_b: anchor_a + origin_offset,
        separation: lp.separation,
        id: lp.id,
        ..ManifoldPoint::default()
    }
}

/// Turns a world manifold computed for (B, A) into one for (A, B).
fn swap_roles(manifold: &mut Manifold) {
    manifold.normal = -manifold.normal;
    for mp in &mut manifold.points[..manifold.point_count] {
        std::mem::swap(&mut mp.anchor_a, &mut mp.anchor_b);
    }
}
/// Pushes the clipped incident points `ends` (each with its id) that lie within
/// `speculative_distance` of the reference face through `v1` along `manifold.normal`, each
/// midway between the two rounded surfaces. An incident edge that overlaps the face by a mere
/// corner (boxes touching corner to corner) clips to two points in one place: they hold the
/// pair against turning no better than one, and cost the solver a two-point contact whose 2x2
/// system is singular, so the deeper one stays.
///
/// Always inlined: most face contacts end here, and as a call of its own the manifold it
/// fills went through memory both ways.
#[inline(always)]
fn push_clipped(
    manifold: &mut LocalManifold,
    ends: [(Vec2, u32); 2],
    v1: Vec2,
    tangent: Vec2,
    radii: (f32, f32),
    speculative_distance: f32,
) {
    let normal = manifold.normal;
    for (p, id) in ends {
        let core_separation = normal.dot(p - v1);
        let separation = core_separation - radii.0 - radii.1;
        if separation <= speculative_distance {
            let on_reference = p + normal * (radii.0 - core_separation);
            let on_incident = p - normal * radii.1;
            manifold.push(midpoint(on_reference, on_incident), separation, id);
        }
    }
    if manifold.point_count == 2 && tangent.dot(ends[1].0 - ends[0].0).abs() < MERGE_DISTANCE {
        let [first, second] = manifold.points;
        manifold.points[0] = if second.separation < first.separation {
            second
        } else {
            first
        };
        manifold.point_count = 1;
    }
}

/// Midpoint of two surface points.
fn midpoint(p: Vec2, q: Vec2) -> Vec2 {
    (p + q) * 0.5
}

fn feature_id(first: usize, second: usize) -> u32 {
    first as u32 | (second as u32) << 8
}

/// `id` with its two feature indices swapped, flags kept.
fn swap_features(id: u32) -> u32 {
    (id & !0xffff) | (id & 0xff) << 8 | (id >> 8 & 0xff)
}

/// Circle `a` in its own frame against circle `b` placed by `xf` in that frame; `fallback`
/// gives the normal, in that frame, if their centres coincide.
///
/// Always inlined: a pile of balls collides little else, and as a call its arguments went
/// through the stack, which cost about what its arithmetic does.
#[inline(always)]
fn circles(
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
fn polygon_circle(
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
fn segment_circle(
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

/// A polygon core as the narrowphase reads it: `vertices[i]` and the outward unit normal
/// `normals[i]` of the edge to the next vertex for `i < count`, in one frame. The slices may
/// run on past `count` (a polygon's whole arrays), so that the separating-axis test can read a
/// fixed width of them; what lies past `count` is finite and never decides anything.
#[derive(Clone, Copy)]
struct Hull<'a> {
    vertices: &'a [Vec2],
    normals: &'a [Vec2],
    count: usize,
    radius: f32,
}

impl Hull<'_> {
    #[inline]
    fn count(&self) -> usize {
        self.count
    }
}

/// A hull's first `N` faces as columns: normals `(x[i], y[i])` and offsets `n · v` of the
/// planes through their first vertices. The separating-axis test runs across the faces, one
/// point of the other hull at a time, a fixed width the compiler turns into vector
/// instructions; faces past the hull's count are computed and ignored.
struct Faces<const N: usize> {
    x: [f32; N],
    y: [f32; N],
    offset: [f32; N],
}

impl<const N: usize> Faces<N> {
    /// The first `N` faces of `hull` (its slices hold at least `N`).
    #[inline(always)]
    fn of(hull: Hull) -> Faces<N> {
        let (normals, vertices) = (&hull.normals[..N], &hull.vertices[..N]);
        let mut faces = Faces {
            x: [0.0; N],
            y: [0.0; N],
            offset: [0.0; N],
        };
        for i in 0..N {
            faces.x[i] = normals[i].x;
            faces.y[i] = normals[i].y;
            faces.offset[i] = normals[i].dot(vertices[i]);
        }
        faces
    }

    /// The faces of `normals` through `vertices`, both as columns: the same bits as
    /// [`Faces::of`] on their rows.
    #[inline(always)]
    fn of_columns(normals: &Columns<N>, vertices: &Columns<N>) -> Faces<N> {
        let mut offset = [0.0; N];
        for (i, o) in offset.iter_mut().enumerate() {
            *o = normals.get(i).dot(vertices.get(i));
        }
        Faces {
            x: normals.x,
            y: normals.y,
            offset,
        }
    }
}

/// `N` points or vectors as columns of their coordinates.
struct Columns<const N: usize> {
    x: [f32; N],
    y: [f32; N],
}

impl<const N: usize> Columns<N> {
    /// The first `N` of `rows`.
    #[inline(always)]
    fn of(rows: &[Vec2]) -> Columns<N> {
        let mut columns = Columns {
            x: [0.0; N],
            y: [0.0; N],
        };
        for (i, row) in rows[..N].iter().enumerate() {
            columns.x[i] = row.x;
            columns.y[i] = row.y;
        }
        columns
    }

    /// Entry `i`.
    #[inline(always)]
    fn get(&self, i: usize) -> Vec2 {
        Vec2::new(self.x[i], self.y[i])
    }

    /// The points moved by `xf`: the same bits as [`Transform::apply`] on each.
    #[inline(always)]
    fn moved(&self, xf: Transform) -> Columns<N> {
        let mut moved = self.turned(xf.q);
        for i in 0..N {
            moved.x[i] += xf.p.x;
            moved.y[i] += xf.p.y;
        }
        moved
    }

    /// The vectors turned by `q`: the same bits as [`Rot::rotate`] on each.
    #[inline(always)]
    fn turned(&self, q: Rot) -> Columns<N> {
        let mut turned = Columns {
            x: [0.0; N],
            y: [0.0; N],
        };
        for i in 0..N {
            turned.x[i] = q.c * self.x[i] - q.s * self.y[i];
            turned.y[i] = q.s * self.x[i] + q.c * self.y[i];
        }
        turned
    }

    /// The entries as rows.
    #[inline(always)]
    fn rows(&self) -> [Vec2; N] {
        let mut rows = [Vec2::ZERO; N];
        for (i, row) in rows.iter_mut().enumerate() {
            *row = self.get(i);
        }
        rows
    }
}

/// What [`max_separation`] finds: the best face and its separation, and the separation of
/// each of the `N` faces (those past the count computed and never read), against which a reach
/// weighs the best without running the test again.
#[derive(Clone, Copy)]
struct Separations<const N: usize> {
    face: usize,
    separation: f32,
    each: [f32; N],
}

/// Separating-axis test of the first `count` of `faces` against the `others` points
/// `other(0..others)`: the face whose plane the deepest of them is furthest in front of, and that separation
/// (cores only, radii not subtracted). Ties keep the lowest face index.
#[inline(always)]
fn max_separation<const N: usize>(
    faces: &Faces<N>,
    count: usize,
    others: usize,
    other: impl Fn(usize) -> Vec2,
) -> Separations<N> {
    match four_faces(faces, count, others, &other) {
        Some(best) => best,
        None => faces_in_turn(faces, count, others, other),
    }
}

/// [`max_separation`] one face and one point at a time: the widths without a vector form, and
/// the scalar twin the four-lane form is tested against.
///
/// Indexed loops here and in the helpers: written with iterators (`zip`, `take`) they compiled
/// to pointer juggling that cost more than the test itself.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn faces_in_turn<const N: usize>(
    faces: &Faces<N>,
    count: usize,
    others: usize,
    other: impl Fn(usize) -> Vec2,
) -> Separations<N> {
    let least = least_along_faces(faces, others, other);
    let mut each = [0.0; N];
    for i in 0..N {
        each[i] = least[i] - faces.offset[i];
    }
    let mut best = (0, f32::MIN);
    for i in 0..count.min(N) {
        if each[i] > best.1 {
            best = (i, each[i]);
        }
    }
    Separations {
        face: best.0,
        separation: best.1,
        each,
    }
}

/// The deepest of the points `other(0..others)` along each face normal, the faces' offsets not
/// yet taken off: each point then costs one dot product per face. A plain compare instead of
/// `f32::min`: the same minimum (inputs are finite), without the NaN bookkeeping.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn least_along_faces<const N: usize>(
    faces: &Faces<N>,
    others: usize,
    other: impl Fn(usize) -> Vec2,
) -> [f32; N] {
    let mut least = [f32::MAX; N];
    for j in 0..others {
        let p = other(j);
        for i in 0..N {
            let s = faces.x[i] * p.x + faces.y[i] * p.y;
            least[i] = if s < least[i] { s } else { least[i] };
        }
    }
    least
}

/// [`max_separation`] across four faces (boxes, triangles and quadrilaterals) in the four
/// lanes of one vector, `None` for other widths: the same products, sums and compares as its
/// loop, so the same bits, without relying on the compiler to find the vector form (it
/// unrolled the loop into one scalar instruction per face and point instead).
#[inline(always)]
fn four_faces<const N: usize>(
    faces: &Faces<N>,
    count: usize,
    others: usize,
    other: &impl Fn(usize) -> Vec2,
) -> Option<Separations<N>> {
    use wide::f32x4;
    if N != 4 {
        return None;
    }
    let lanes = |v: &[f32; N]| f32x4::from([v[0], v[1], v[2], v[3]]);
    let (x, y) = (lanes(&faces.x), lanes(&faces.y));
    let mut least = f32x4::splat(f32::MAX);
    for j in 0..others {
        let p = other(j);
        least = lesser(x * f32x4::splat(p.x) + y * f32x4::splat(p.y), least);
    }
    let deepest = least - lanes(&faces.offset);
    let d = deepest.to_array();
    let mut each = [0.0; N];
    each[..4].copy_from_slice(&d);
    if count < 4 {
        let mut best = (0, f32::MIN);
        for (i, &deepest) in d.iter().enumerate().take(count) {
            if deepest > best.1 {
                best = (i, deepest);
            }
        }
        return Some(Separations {
            face: best.0,
            separation: best.1,
            each,
        });
    }
    // The greatest in every lane, then the first face that reaches it: the face the loop of
    // compares would keep. Its own value is returned, as the greatest may carry the other
    // sign of a zero.
    let greatest = deepest.fast_max(f32x4::from([d[2], d[3], d[0], d[1]]));
    let g = greatest.to_array();
    let greatest = greatest.fast_max(f32x4::from([g[1], g[0], g[3], g[2]]));
    // Only NaNs can leave no lane equal: face 0 then, rather than an index past the faces.
    let first = deepest.simd_eq(greatest).to_bitmask().trailing_zeros() as usize & 3;
    Some(Separations {
        face: first,
        separation: d[first],
        each,
    })
}

/// `if a < b { a } else { b }` in each lane, which is what x86's `minps` does; elsewhere by a
/// compare and a blend, as other vector minimums put `-0.0` before `+0.0` and so could differ
/// in the sign of a zero.
#[inline(always)]
fn lesser(a: wide::f32x4, b: wide::f32x4) -> wide::f32x4 {
    if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        a.fast_min(b)
    } else {
        a.simd_lt(b).bitselect(a, b)
    }
}

/// The largest separation of the first `count` faces other than `best` among the `each` of
/// [`Separations`] (`f32::MIN` for none): the margin by which `best` is the best face.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn next_separation<const N: usize>(each: &[f32; N], count: usize, best: usize) -> f32 {
    let mut next = f32::MIN;
    for i in 0..count.min(N) {
        if i != best && each[i] > next {
            next = each[i];
        }
    }
    next
}

/// Polygon `a` in its own frame against polygon `b` placed by `xf` in that frame, without a
/// reach.
#[inline]
fn polygons(a: &Polygon, b: &Polygon, xf: Transform, speculative_distance: f32) -> LocalManifold {
    polygons_and_reach(a, b, xf, speculative_distance, false)
}

/// [`polygons`], with the manifold's reach where `recyclable` (see [`collide_and_reach`]).
fn polygons_and_reach(
    a: &Polygon,
    b: &Polygon,
    xf: Transform,
    speculative_distance: f32,
    recyclable: bool,
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
    let (d, r) = (speculative_distance, recyclable);
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
#[inline(always)]
fn polygon_cores<const NA: usize, const NB: usize>(
    a: Hull,
    b: Hull,
    xf: Transform,
    speculative_distance: f32,
    recyclable: bool,
) -> LocalManifold {
    let count = b.count();
    // All `NB` of B's vertices and normals are moved, those past its count too (finite, and
    // never read but by the faces' fixed width): a loop of a width known at compile time
    // unrolls, where one of `count` steps pays its own control. They are moved as columns,
    // which the faces of B's axes are made of, and which move four lanes at a time without
    // the shuffles of pairs of coordinates.
    let vertices = Columns::<NB>::of(&b.vertices[..NB]).moved(xf);
    let radius = a.radius + b.radius;
    let faces_a = Faces::<NA>::of(a);
    let sat_a = max_separation(&faces_a, a.count, count, |j| vertices.get(j));
    let (face_a, separation_a) = (sat_a.face, sat_a.separation);
    if separation_a - radius > speculative_distance {
        return LocalManifold::default();
    }
    let normals = Columns::<NB>::of(&b.normals[..NB]).turned(xf.q);
    let faces_b = Faces::<NB>::of_columns(&normals, &vertices);
    let sat_b = max_separation(&faces_b, count, a.count, |j| a.vertices[j]);
    let (face_b, separation_b) = (sat_b.face, sat_b.separation);
    if separation_b - radius > speculative_distance {
        return LocalManifold::default();
    }
    // The clipping below reads a few of B's vertices and normals by index.
    let (vertices, normals) = (vertices.rows(), normals.rows());
    let b = Hull {
        vertices: &vertices,
        normals: &normals,
        count,
        radius: b.radius,
    };
    // One call for either reference face, so that the face contact is inlined once.
    let flipped = separation_b > separation_a + REFERENCE_TOLERANCE;
    let (reference, face, separation, incident) = if flipped {
        (b, face_b, separation_b, a)
    } else {
        (a, face_a, separation_a, b)
    };
    let mut manifold = face_contact_and_reach(
        reference,
        face,
        separation,
        incident,
        speculative_distance,
        recyclable,
    );
    if flipped {
        // The normal must point from A to B, and the ids name A's feature first.
        manifold.normal = -manifold.normal;
        for mp in &mut manifold.points[..manifold.point_count] {
            mp.id = swap_features(mp.id);
        }
    }
    // (A reach is worked out only where `recyclable`.)
    if manifold.reach.may_recycle() {
        reference_reach(
            &mut manifold,
            (a, &sat_a.each, face_a, separation_a),
            (b, &sat_b.each, face_b, separation_b),
            speculative_distance + radius,
        );
    }
    manifold
}

/// A core of [`polygon_cores`]: its hull (in A's frame), the separations of its faces from
/// the other core (see [`Separations`]), and its best face and that face's separation.
type Side<'h, 'f, const N: usize> = (Hull<'h>, &'f [f32; N], usize, f32);

/// Narrows the reach of `manifold`, the face contact [`polygon_cores`] found between cores
/// `a` and `b` (with a speculative distance and radii that sum to `band`), to the motions
/// that keep its reference face.
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
fn reference_reach<const NA: usize, const NB: usize>(
    manifold: &mut LocalManifold,
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
    let reach = &mut manifold.reach;
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
        let points = &manifold.points[..manifold.point_count];
        let (first, last) = (points[0].point, points[points.len() - 1].point);
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

/// The distance from `span` to the farthest vertex of `hull`.
#[inline(always)]
fn extent(hull: Hull, span: &Span) -> f32 {
    // Squared distances compared, one square root taken: the same value, as the root is
    // monotonic.
    let mut farthest = 0.0f32;
    for &v in &hull.vertices[..hull.count()] {
        farthest = farthest.max(span.distance_squared(v));
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

/// The edge of `hull` whose normal is most anti-parallel to `normal`.
#[inline]
fn incident_edge(hull: Hull, normal: Vec2) -> usize {
    let mut best = (0, f32::MAX);
    for (i, n) in hull.normals[..hull.count].iter().enumerate() {
        let d = n.dot(normal);
        if d < best.1 {
            best = (i, d);
        }
    }
    best.0
}

/// Half the margin by which the normal of `edge`, the incident edge of `hull`, is more
/// anti-parallel to `normal` than the next edge's: a turn (as a chord) under it keeps it.
#[inline(always)]
fn incident_turn(hull: Hull, normal: Vec2, edge: usize) -> f32 {
    let best = hull.normals[edge].dot(normal);
    let mut next = f32::MAX;
    for (i, n) in hull.normals[..hull.count].iter().enumerate() {
        let d = n.dot(normal);
        if i != edge && d < next {
            next = d;
        }
    }
    0.5 * (next - best)
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
fn face_contact(
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
        false,
    )
}

/// [`face_contact`], with the reach of a clipped contact where `recyclable` (see
/// [`collide_and_reach`]); the reach of the reference face's choice is left to the caller.
///
/// Always inlined: as a call of its own, its manifold (with the reach, too large for
/// registers) was built on its stack and then copied out to the caller's.
#[inline(always)]
fn face_contact_and_reach(
    reference: Hull,
    face: usize,
    face_separation: f32,
    incident: Hull,
    speculative_distance: f32,
    recyclable: bool,
) -> LocalManifold {
    let normal = reference.normals[face];
    let v1 = reference.vertices[face];
    let v2 = reference.vertices[next_index(face, reference.count())];
    let edge = incident_edge(incident, normal);
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
    if recyclable && manifold.point_count > 0 {
        let clip = Clip {
            normal,
            tangent,
            v1,
            bounds: (lower, upper),
            edge: (w1, w2),
            ends: (p1, p2),
        };
        let span = Span::of(&manifold.points[..manifold.point_count]);
        let mut reach = clip.reach(radii.0 + radii.1, speculative_distance, &span);
        reach.far_extent = extent(incident, &span);
        reach.turn = incident_turn(incident, normal, edge);
        manifold.reach = reach;
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
    /// `span` the manifold's points.
    fn reach(&self, radius: f32, band: f32, span: &Span) -> Reach {
        let (w1, w2) = self.edge;
        let (along, across) = (
            self.tangent.dot(w2 - w1).abs(),
            self.normal.dot(w2 - w1).abs(),
        );
        let extents = [w1, w2].map(|w| span.distance_squared(w).sqrt());
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
                // plane.
                at_points = least(at_points, self.inside(w).max(sloped));
                lever = lever.max(span.distance_squared(p));
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
        let end = |k: usize, w: Vec2| End {
            inside: self.inside(w),
            extent: extents[k],
        };
        let mut apart = Apart {
            overlap: [overlap(0), overlap(1)],
            ends: [end(0, w1), end(1, w2)],
            slope: across / along,
            ..Apart::NEVER
        };
        if let Some(k @ 0..=1) = corner {
            let (w, other) = if k == 0 { (w1, w2) } else { (w2, w1) };
            let rise = cores[1 - k] - cores[k];
            apart.level = Margin {
                motion: self.inside(w),
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
fn closest_edges(reference: Hull, incident: Hull) -> ((Vec2, Vec2), u32) {
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
fn closest_points_contact(
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
fn closest_points_of_segments(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> (Vec2, Vec2) {
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
fn closest_on_segment(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let ab = b - a;
    let length_sq = ab.length_squared();
    if length_sq <= 0.0 {
        return a;
    }
    let t = (ab.dot(p - a) / length_sq).clamp(0.0, 1.0);
    a + ab * t
}

codec_struct!(ManifoldPoint {
    point,
    anchor_a,
    anchor_b,
    separation,
    id,
    normal_impulse,
    tangent_impulse,
    impact_impulse
});

codec_struct!(LocalPoint {
    point,
    separation,
    id
});

/// Saves a manifold's points in use only; the point count is checked on reading.
macro_rules! codec_manifold {
    ($ty:ident, $point:ident) => {
        impl Codec for $ty {
            const MIN_SIZE: usize = 16;
            fn encode(&self, w: &mut Writer) {
                let $ty {
                    normal,
                    points,
                    point_count,
                    ..
                } = self;
                normal.encode(w);
                point_count.encode(w);
                for p in &points[..*point_count] {
                    p.encode(w);
                }
            }
            fn decode(r: &mut Reader) -> Result<Self, Error> {
                let mut m = $ty {
                    normal: Vec2::decode(r)?,
                    ..$ty::default()
                };
                m.point_count = usize::decode(r)?;
                if m.point_count > MAX_MANIFOLD_POINTS {
                    return Err(invalid(format!(
                        "a manifold has at most {MAX_MANIFOLD_POINTS} points, got {}",
                        m.point_count
                    )));
                }
                for p in &mut m.points[..m.point_count] {
                    *p = $point::decode(r)?;
                }
                Ok(m)
            }
        }
    };
}

codec_manifold!(Manifold, ManifoldPoint);
codec_manifold!(LocalManifold, LocalPoint);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_face_separation_gives_the_bits_of_the_scalar_twin() {
        let mut next = crate::test_rng::xorshift64(0x5a7);
        // Small integers over 4 make ties and zeros of both signs common.
        let mut value = || ((next() % 17) as f32 - 8.0) / 4.0;
        for _ in 0..20_000 {
            let mut faces = Faces::<4> {
                x: [0.0; 4],
                y: [0.0; 4],
                offset: [0.0; 4],
            };
            for i in 0..4 {
                (faces.x[i], faces.y[i], faces.offset[i]) = (value(), value(), value());
            }
            let points: Vec<Vec2> = (0..8).map(|_| Vec2::new(value(), value())).collect();
            for count in 1..=4 {
                for others in 1..=points.len() {
                    let at = |j: usize| points[j];
                    let vector = four_faces(&faces, count, others, &at).unwrap();
                    let scalar = faces_in_turn(&faces, count, others, at);
                    assert_eq!(
                        vector.face, scalar.face,
                        "{:?} {points:?} {count} {others}",
                        faces.x
                    );
                    assert_eq!(vector.separation.to_bits(), scalar.separation.to_bits());
                    let bits = |s: &Separations<4>| s.each.map(f32::to_bits);
                    assert_eq!(bits(&vector), bits(&scalar));
                }
            }
        }
    }

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

    #[test]
    fn ids_tell_feature_kind_whatever_the_order_of_shapes() {
        let block = Shape::rect(1.0, 1.0).unwrap();
        let ball = Shape::circle(0.5).unwrap();
        let at = |x: f32, y: f32| Transform::new(Vec2::new(x, y), Rot::IDENTITY);
        let face = shape_manifold(&block, at(0.0, 0.0), &ball, at(0.0, 1.4), 0.0).points[0].id;
        let corner = shape_manifold(&block, at(0.0, 0.0), &ball, at(1.3, 1.3), 0.0).points[0].id;
        let swapped = shape_manifold(&ball, at(0.0, 1.4), &block, at(0.0, 0.0), 0.0).points[0].id;
        assert_eq!(face & ID_VERTEX, 0);
        assert_eq!(corner & ID_VERTEX, ID_VERTEX);
        assert_eq!(swapped, face);
    }

    /// Columns move points and turn vectors to the bits of `Transform::apply` and
    /// `Rot::rotate`, which the rest of the narrowphase uses on single points.
    #[test]
    fn columns_move_vertices_and_turn_normals_as_single_points_do() {
        let Shape::Polygon(square) = Shape::rect(1.0, 1.0).unwrap() else {
            unreachable!()
        };
        let xf = Transform::new(
            Vec2::new(3.0, 0.0),
            Rot::from_angle(std::f32::consts::FRAC_PI_2),
        );
        let vertices = Columns::<4>::of(&square.vertices).moved(xf).rows();
        let normals = Columns::<4>::of(&square.normals).turned(xf.q).rows();
        assert!((vertices[0] - Vec2::new(4.0, -1.0)).length() < 1e-6);
        assert!((normals[0] - Vec2::new(1.0, 0.0)).length() < 1e-6);
        let odd = Transform::new(Vec2::new(-7.3, 1e4), Rot::from_angle(0.731));
        let moved = Columns::<4>::of(&square.vertices).moved(odd).rows();
        let turned = Columns::<4>::of(&square.normals).turned(odd.q).rows();
        for i in 0..4 {
            let apply = odd.apply(square.vertices[i]);
            let rotate = odd.q.rotate(square.normals[i]);
            assert_eq!(
                (moved[i].x.to_bits(), moved[i].y.to_bits()),
                (apply.x.to_bits(), apply.y.to_bits())
            );
            assert_eq!(
                (turned[i].x.to_bits(), turned[i].y.to_bits()),
                (rotate.x.to_bits(), rotate.y.to_bits())
            );
        }
    }

    /// Two boxes collided from their hulls give the manifold (and reach) of their polygons, bit for bit,
    /// whatever their sizes, offsets and poses: touching, overlapping, apart, face to face and
    /// corner first.
    #[test]
    fn boxes_collide_from_their_hulls_as_from_their_polygons() {
        let shapes = [
            Shape::rect(0.5, 0.5),
            Shape::rect(2.0, 0.25),
            Shape::offset_rect(0.3, 0.7, Vec2::new(1.5, -2.0), 0.0),
        ]
        .map(Result::unwrap);
        let hull = |s: &Shape| {
            crate::geometry::shape::LocalBox::of(s)
                .and_then(|local| local.hull())
                .expect("a box made by rect has a hull")
        };
        let bits = |m: &Manifold| {
            let mut out = vec![
                m.point_count as u32,
                m.normal.x.to_bits(),
                m.normal.y.to_bits(),
            ];
            for p in &m.points {
                let v = [p.point, p.anchor_a, p.anchor_b];
                out.extend(v.iter().flat_map(|v| [v.x.to_bits(), v.y.to_bits()]));
                out.extend([p.separation.to_bits(), p.id]);
            }
            out
        };
        let mut touching = 0;
        for (i, a) in shapes.iter().enumerate() {
            for (j, b) in shapes.iter().enumerate() {
                for k in 0..200 {
                    let t = k as f32;
                    let xf_a = Transform::new(Vec2::new(i as f32, -0.3), Rot::from_angle(0.01 * t));
                    let offset = Vec2::new((0.37 * t).sin() * 1.4, (0.23 * t).cos() * 1.4);
                    let turn = Rot::from_angle(0.5 * t + j as f32);
                    let xf_b = Transform::new(xf_a.p + offset, turn);
                    let (mut from_polygons, mut from_hulls) =
                        (Manifold::default(), Manifold::default());
                    let up = || Vec2::new(0.0, 1.0);
                    let polygons_reach =
                        collide_and_reach(a, xf_a, b, xf_b, 0.02, up, &mut from_polygons, true);
                    let (hull_a, hull_b) = (hull(a), hull(b));
                    let hulls_reach =
                        boxes_into(&hull_a, xf_a, &hull_b, xf_b, 0.02, &mut from_hulls, true);
                    assert_eq!(bits(&from_hulls), bits(&from_polygons), "{i} {j} {k}");
                    // (Debug forms: a NaN bound is the same NaN either way.)
                    let reaches = [hulls_reach, polygons_reach].map(|r| format!("{r:?}"));
                    assert_eq!(reaches[0], reaches[1], "{i} {j} {k}");
                    // Without a reach, the same manifold.
                    let mut plain = Manifold::default();
                    collide_into(a, xf_a, b, xf_b, 0.02, up, &mut plain);
                    assert_eq!(bits(&plain), bits(&from_polygons), "{i} {j} {k}");
                    touching += usize::from(from_polygons.point_count > 0);
                }
            }
        }
        // The poses cover contacts, not only pairs far apart.
        assert!(touching > 500, "{touching} of 1800 poses touch");
    }
}
