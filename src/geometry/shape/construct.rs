//! The checked constructors of shapes: each builds the circle or polygon it was asked for and
//! runs its `validate` on the very floats it built, so no constructor can return a shape the
//! engine cannot simulate.

use super::hull::convex_hull;
use super::{
    invalid, next_index, ChainGhosts, Circle, Polygon, Shape, MAX_POLYGON_VERTICES, WELD_DISTANCE,
};
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::Error;

impl Shape {
    /// A circle of `radius` metres centred on the body origin.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when `radius` is not finite and > 0.
    pub fn circle(radius: f32) -> Result<Shape, Error> {
        Shape::circle_at(Vec2::ZERO, radius)
    }

    /// A circle of `radius` metres centred at `center` (m) in the body frame.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when `center` is not finite or `radius` is not finite and > 0.
    pub fn circle_at(center: Vec2, radius: f32) -> Result<Shape, Error> {
        Circle::new(center, radius).map(Shape::Circle)
    }

    /// An axis-aligned box of half extents `half_width` x `half_height` (m) centred on the body
    /// origin, vertices counter-clockwise from `(-half_width, -half_height)`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when a half extent is not finite and > 0, or the box is too
    /// small or too large for f32 to give it a positive, finite area.
    pub fn rect(half_width: f32, half_height: f32) -> Result<Shape, Error> {
        checked_box(half_width, half_height, Transform::IDENTITY)
    }

    /// A box of half extents `half_width` x `half_height` (m) centred at `center` (m) in the
    /// body frame and rotated by `angle` radians.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when a half extent is not finite and > 0, `center` or `angle` is
    /// not finite, or the placed box's corners round to a degenerate or infinite polygon in
    /// f32.
    pub fn offset_rect(
        half_width: f32,
        half_height: f32,
        center: Vec2,
        angle: f32,
    ) -> Result<Shape, Error> {
        let xf = Transform::new(center, Rot::from_angle(angle));
        checked_box(half_width, half_height, xf)
    }

    /// A capsule: the points within `radius` metres of the segment `p1 -> p2` (body frame, m).
    /// Its mass is that of a `|p2 - p1| x 2 radius` rectangle plus a disc. Radius 0 makes it a
    /// [`Shape::segment`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] for a non-finite point or radius, a negative radius, or ends
    /// less than 2.5 mm apart (coincident ends included): such a capsule is a circle.
    pub fn capsule(p1: Vec2, p2: Vec2, radius: f32) -> Result<Shape, Error> {
        let capsule = Polygon::two_vertex(p1, p2, radius);
        capsule.validate_two_vertex()?;
        Ok(Shape::Polygon(Box::new(capsule)))
    }

    /// A segment `p1 -> p2` (body frame, m) without thickness, for static terrain: it has no
    /// area and so no mass, and only static and kinematic bodies may use it (`Err` on a dynamic
    /// body). Both sides collide.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] for a non-finite point or ends less than 2.5 mm apart.
    pub fn segment(p1: Vec2, p2: Vec2) -> Result<Shape, Error> {
        Shape::capsule(p1, p2, 0.0)
    }

    /// A one-sided segment `p1 -> p2` of a chain, which knows its neighbours: `prev`, the
    /// chain's point before `p1`, and `next`, the point after `p2` (`None` at a free end).
    /// [`World::add_segment_chain`](crate::World::add_segment_chain) and
    /// [`World::add_segment_loop`](crate::World::add_segment_loop) build these for you.
    ///
    /// It collides only from its front, the **left** of `p1 -> p2` (the normal is `p2 - p1`
    /// turned a quarter counter-clockwise): terrain listed from left to right is solid below
    /// and walked on from above. (Box2D's chains collide on the right; list the points the
    /// other way round when porting.) A body whose centre is behind the segment's line passes
    /// through it. Against circles, capsules and polygons a contact whose normal leans into a
    /// neighbour's region is dropped or replaced by one along the segment's own normal, so a
    /// body sliding or rolling across a join meets one smooth surface and never catches on
    /// the next segment's end. Like [`Shape::segment`] it has no mass and only static and
    /// kinematic bodies may carry it. Queries, sensors and continuous collision keep the same
    /// rule: a ray or shape cast meeting its back passes through (and a shape cast meets only
    /// the normals the segment owns), and an overlap query, a sensor or a fast body's sweep
    /// sees it only when the other shape's centre is not behind its line.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] for a non-finite point, ends less than 2.5 mm apart, or a ghost
    /// less than 2.5 mm from the end it neighbours.
    pub fn chain_segment(
        prev: Option<Vec2>,
        p1: Vec2,
        p2: Vec2,
        next: Option<Vec2>,
    ) -> Result<Shape, Error> {
        let mut segment = Polygon::two_vertex(p1, p2, 0.0);
        segment.validate_two_vertex()?;
        for (ghost, end) in [(prev, p1), (next, p2)] {
            let Some(ghost) = ghost else { continue };
            let gap = (ghost - end).length();
            if !ghost.is_finite() || !gap.is_finite() || gap < WELD_DISTANCE {
                return Err(invalid(format!(
                    "a chain segment's ghost vertex {ghost:?} must be finite and at least \
                     {WELD_DISTANCE} m from its end {end:?}"
                )));
            }
        }
        segment.chain = Some(ChainGhosts { prev, next });
        Ok(Shape::Polygon(Box::new(segment)))
    }

    /// The convex hull of `points` as a sharp polygon. See [`Shape::rounded_polygon`].
    ///
    /// A concave outline is filled in to its hull, silently: cut it into
    /// convex pieces with [`Shape::decompose`] and make a compound body of them instead.
    pub fn polygon(points: &[Vec2]) -> Result<Shape, Error> {
        Shape::rounded_polygon(points, 0.0)
    }

    /// The convex hull of `points`, rounded by `radius` (0 for sharp corners).
    ///
    /// Points closer than 2.5 mm are welded and vertices (nearly) on the line through their
    /// neighbours are dropped. Fails with [`Error::InvalidShape`] for fewer than 3 points,
    /// non-finite input, a negative radius, fewer than 3 distinct points, collinear points, or
    /// a hull with more than [`MAX_POLYGON_VERTICES`] vertices.
    pub fn rounded_polygon(points: &[Vec2], radius: f32) -> Result<Shape, Error> {
        Polygon::new(points, radius).map(|p| Shape::Polygon(Box::new(p)))
    }
}

impl Circle {
    /// A disc of `radius` metres centred at `center` (m) in the body frame: the checked
    /// constructor behind [`Shape::circle_at`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] when `center` is not finite or `radius` is not finite and > 0.
    pub fn new(center: Vec2, radius: f32) -> Result<Circle, Error> {
        let circle = Circle { center, radius };
        circle.validate()?;
        Ok(circle)
    }
}

impl Polygon {
    /// The convex hull of `points` (body frame, m), rounded by `radius` metres (0 for sharp
    /// corners): the checked constructor behind [`Shape::rounded_polygon`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShape`] in the cases listed by [`Shape::rounded_polygon`].
    pub fn new(points: &[Vec2], radius: f32) -> Result<Polygon, Error> {
        if !(radius.is_finite() && radius >= 0.0) {
            return Err(invalid(format!(
                "polygon radius must be finite and >= 0, got {radius}"
            )));
        }
        let hull = convex_hull(points)?;
        let polygon = Polygon::from_ccw_vertices(&hull, radius);
        // The hull is clean by construction; this catches what floating point could still
        // produce (overflowing coordinates, an area that rounds to zero).
        polygon.validate()?;
        Ok(polygon)
    }

    /// Builds a polygon from vertices already known to be strictly convex and counter-clockwise
    /// (at most [`MAX_POLYGON_VERTICES`]), computing normals and centroid.
    fn from_ccw_vertices(points: &[Vec2], radius: f32) -> Polygon {
        let count = points.len();
        let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        vertices[..count].copy_from_slice(points);
        let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        for (i, normal) in normals[..count].iter_mut().enumerate() {
            let edge = vertices[next_index(i, count)] - vertices[i];
            // A zero edge cannot come out of the hull (points are welded); if it did, the zero
            // normal makes `validate` reject the polygon instead of panicking here.
            *normal = edge.right_perp().normalized().unwrap_or(Vec2::ZERO);
        }
        let mut polygon = Polygon {
            vertices,
            normals,
            count,
            centroid: Vec2::ZERO,
            radius,
            chain: None,
        };
        polygon.centroid = polygon.core_moments().centroid();
        polygon
    }

    /// A capsule (`radius > 0`) or segment (`radius == 0`) from `p1` to `p2`: edge 0 runs
    /// `p1 -> p2` with the normal on its right, edge 1 runs back with the opposite normal.
    fn two_vertex(p1: Vec2, p2: Vec2, radius: f32) -> Polygon {
        let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        vertices[0] = p1;
        vertices[1] = p2;
        // A zero-length segment gets zero normals, which `validate_two_vertex` rejects.
        let normal = (p2 - p1).right_perp().normalized().unwrap_or(Vec2::ZERO);
        let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        normals[0] = normal;
        normals[1] = -normal;
        Polygon {
            vertices,
            normals,
            count: 2,
            centroid: (p1 + p2) * 0.5,
            radius,
            chain: None,
        }
    }
}

/// The box with half extents `half_width` x `half_height` placed by `xf` in the body frame, or
/// why it cannot be simulated.
///
/// The half extents are checked first, for an error that names them. The polygon check then
/// catches what rounding still produces (corners that coincide once placed, an infinite area).
/// It rejects every half extent the first check does, so that check changes the message, never
/// the verdict: a zero extent gives a zero-length edge, a non-finite one non-finite corners, and
/// a negative one reverses an edge against its fixed normal (rounding is monotone, so the placed
/// edge at best collapses).
fn checked_box(half_width: f32, half_height: f32, xf: Transform) -> Result<Shape, Error> {
    for (name, half_extent) in [("half_width", half_width), ("half_height", half_height)] {
        if !(half_extent.is_finite() && half_extent > 0.0) {
            return Err(invalid(format!(
                "box {name} must be finite and > 0, got {half_extent}"
            )));
        }
    }
    let polygon = box_polygon(half_width, half_height, xf);
    polygon.validate()?;
    Ok(Shape::Polygon(Box::new(polygon)))
}

/// Box with the given half extents placed by `xf` inside the body frame. Normals are the fixed
/// box normals rather than computed from edges, so that a box whose placed corners rounding has
/// moved off a rectangle disagrees with them and fails validation.
fn box_polygon(half_width: f32, half_height: f32, xf: Transform) -> Polygon {
    let corners = [
        Vec2::new(-half_width, -half_height),
        Vec2::new(half_width, -half_height),
        Vec2::new(half_width, half_height),
        Vec2::new(-half_width, half_height),
    ];
    let box_normals = [
        Vec2::new(0.0, -1.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 1.0),
        Vec2::new(-1.0, 0.0),
    ];
    let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    vertices[..4].copy_from_slice(&corners.map(|c| xf.apply(c)));
    normals[..4].copy_from_slice(&box_normals.map(|n| xf.q.rotate(n)));
    Polygon {
        vertices,
        normals,
        count: 4,
        centroid: xf.p,
        radius: 0.0,
        chain: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::shape::v;
    use std::f32::consts::PI;
    /// `checked_box` refuses a half extent that is not finite and > 0 before it builds the
    /// polygon, for a message that names it. The polygon check alone, which decided before,
    /// must refuse every such box too, wherever it is placed: the early check changes the
    /// message, never the verdict.
    #[test]
    fn the_half_extent_check_refuses_only_boxes_the_polygon_check_refuses() {
        let extents = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            -1.0e-30,
            -1.0e-3,
            -1.0,
            -3.0e38,
            1.0e-30,
            1.0e-3,
            1.0,
            3.0e38,
        ];
        let centers = [
            Vec2::ZERO,
            v(1.0, 2.0),
            v(1.0e7, -3.0e5),
            v(-1.0e30, 1.0e30),
        ];
        let angles = [0.0, 0.3, 0.5 * PI, PI, -2.5, 1.0e6];
        for &hw in &extents {
            for &hh in &extents {
                let positive = |h: f32| h.is_finite() && h > 0.0;
                if positive(hw) && positive(hh) {
                    continue;
                }
                for &center in &centers {
                    for &angle in &angles {
                        let xf = Transform::new(center, Rot::from_angle(angle));
                        assert!(
                            box_polygon(hw, hh, xf).validate().is_err(),
                            "box {hw} x {hh} at {center:?}, {angle} rad"
                        );
                        assert!(checked_box(hw, hh, xf).is_err());
                    }
                }
            }
        }
    }

    #[test]
    fn polygon_new_checks_its_input_and_the_accessors_read_the_used_vertices() {
        let square = [v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0)];
        let p = Polygon::new(&square, 0.25).unwrap();
        assert_eq!(p.vertices(), &square);
        assert_eq!(p.normals().len(), 4);
        assert_eq!(p.normals()[0], v(0.0, -1.0));
        assert_eq!(p.centroid(), Vec2::ZERO);
        assert_eq!(p.radius(), 0.25);
        assert!(Polygon::new(&square[..2], 0.0).is_err());
        assert!(Polygon::new(&square, -1.0).is_err());
        assert!(Polygon::new(&[v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0)], 0.0).is_err());
    }
}
