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
use crate::geometry::math::{Transform, Vec2};
use crate::geometry::shape::{BoxHull, Shape, BOX_NORMALS, LINEAR_SLOP, MAX_POLYGON_VERTICES};

mod capsule;
mod chain;
mod circle;
mod clip;
mod closest;
mod polygon;
mod reach;
mod round;
mod sat;

use circle::{circles, polygon_circle};
use polygon::{polygon_cores, polygons_and_reach};
use sat::Hull;

pub(crate) use chain::{chain_faces, chain_segment_faces, chain_segment_meets};
pub(crate) use reach::Reach;
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
/// [`Manifold`] (with its solver fields) through memory. Its [`Reach`] travels apart, written
/// in place by the few collides that work one out: carried in here, it made every manifold,
/// of a pair that touches or not, a copy of 128 bytes at each return.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LocalManifold {
    pub normal: Vec2,
    pub points: [LocalPoint; MAX_MANIFOLD_POINTS],
    pub point_count: usize,
}

// Up to this size the compiler copies a manifold with three vector moves.
const _: () = assert!(
    std::mem::size_of::<LocalManifold>() <= 48,
    "a LocalManifold is copied by three moves of 16 bytes"
);

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
    let (mut manifold, mut reach) = (Manifold::default(), Reach::NEVER);
    let concentric = || FALLBACK_NORMAL;
    collide_and_reach(
        a,
        xf_a,
        b,
        xf_b,
        speculative_distance,
        concentric,
        &mut manifold,
        Some(&mut reach),
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
        None,
    );
}

/// [`collide_into`], writing the manifold's [`Reach`] to `reach` where one is given: where the
/// pair could recycle the manifold next step. A reach is worked out only for the face contacts
/// of polygon cores; elsewhere `reach` is left as it was (the caller's [`Reach::NEVER`]). A
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
    reach: Option<&mut Reach>,
) {
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
        }
        (_, Shape::Polygon(pb)) if pb.chain.is_some() && a.chain_ghosts().is_none() => {
            if let Some(ghosts) = pb.chain {
                let xf = xf_b.inv_mul(xf_a);
                let local = chain::chain_segment_manifold(pb, ghosts, a, xf, speculative_distance);
                to_world(&local, xf_b, xf_a, out);
                swap_roles(out);
            }
        }
        (Shape::Polygon(pa), Shape::Polygon(pb)) => {
            let xf = xf_a.inv_mul(xf_b);
            let local = if pa.count == 2 && pb.count == 2 {
                capsule::capsules(pa, pb, xf, speculative_distance)
            } else {
                polygons_and_reach(pa, pb, xf, speculative_distance, reach)
            };
            to_world(&local, xf_a, xf_b, out);
        }
        (Shape::Circle(ca), Shape::Circle(cb)) => {
            let fallback = || xf_a.q.inv_rotate(concentric());
            let local = circles(ca, cb, xf_a.inv_mul(xf_b), fallback, speculative_distance);
            to_world(&local, xf_a, xf_b, out);
        }
        (Shape::Polygon(pa), Shape::Circle(cb)) => {
            let local = polygon_circle(pa, cb, xf_a.inv_mul(xf_b), speculative_distance);
            to_world(&local, xf_a, xf_b, out);
        }
        (Shape::Circle(ca), Shape::Polygon(pb)) => {
            // Same routine with the roles swapped, solved in B's frame, then turned around.
            let local = polygon_circle(pb, ca, xf_b.inv_mul(xf_a), speculative_distance);
            to_world(&local, xf_b, xf_a, out);
            swap_roles(out);
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
    reach: Option<&mut Reach>,
) {
    fn hull(h: &BoxHull) -> Hull<'_> {
        Hull {
            vertices: &h.vertices,
            normals: &BOX_NORMALS,
            count: 4,
            radius: h.radius,
        }
    }
    let xf = xf_a.inv_mul(xf_b);
    let local = polygon_cores::<4, 4>(hull(a), hull(b), xf, speculative_distance, reach);
    to_world(&local, xf_a, xf_b, out);
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
    use crate::geometry::math::Rot;

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
                    let (mut polygons_reach, mut hulls_reach) = (Reach::NEVER, Reach::NEVER);
                    let to_polygons = Some(&mut polygons_reach);
                    collide_and_reach(a, xf_a, b, xf_b, 0.02, up, &mut from_polygons, to_polygons);
                    let (hull_a, hull_b) = (hull(a), hull(b));
                    let to_hulls = Some(&mut hulls_reach);
                    boxes_into(
                        &hull_a,
                        xf_a,
                        &hull_b,
                        xf_b,
                        0.02,
                        &mut from_hulls,
                        to_hulls,
                    );
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
