//! Shapes and narrowphase checked against closed forms: mass properties, convex hulls, bad
//! input, and contact manifolds for each pair kind.

use crate::common;

use batch2d::collide;
use batch2d::manifold::{Manifold, MAX_MANIFOLD_POINTS};
use batch2d::shape::{Polygon, Shape, MAX_POLYGON_VERTICES};
use batch2d::{Error, Rot, Transform, Vec2};
use common::Rng;
use std::f32::consts::PI;

/// Speculative distance of the default world settings (4 x linear slop).
const SPECULATIVE: f32 = 0.02;

fn assert_close(actual: f32, expected: f32, tolerance: f32) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "expected {expected}, got {actual} (tolerance {tolerance})"
    );
}

fn assert_vec_close(actual: Vec2, expected: Vec2, tolerance: f32) {
    assert!(
        (actual - expected).length() <= tolerance,
        "expected {expected:?}, got {actual:?} (tolerance {tolerance})"
    );
}

fn xf(x: f32, y: f32, angle: f32) -> Transform {
    Transform::new(Vec2::new(x, y), Rot::from_angle(angle))
}

fn as_polygon(shape: &Shape) -> &Polygon {
    match shape {
        Shape::Polygon(polygon) => polygon,
        Shape::Circle(_) => panic!("expected a polygon"),
    }
}

fn is_invalid_shape<T: std::fmt::Debug>(result: Result<T, Error>) -> bool {
    matches!(result, Err(Error::InvalidShape(_)))
}

// ---------------------------------------------------------------------------------------------
// Mass properties

#[test]
fn box_mass_and_inertia_match_closed_form() {
    for &(hw, hh, density) in &[(0.5, 0.5, 1.0), (2.0, 0.25, 3.0), (100.0, 1.0, 0.5)] {
        let (w, h) = (2.0 * hw, 2.0 * hh);
        let mass = density * w * h;
        let inertia = mass * (w * w + h * h) / 12.0;
        let md = Shape::rect(hw, hh).unwrap().mass_data(density);
        assert_close(md.mass, mass, 1e-5 * mass);
        assert_close(md.rotational_inertia, inertia, 1e-5 * inertia);
        assert_vec_close(md.center, Vec2::ZERO, 1e-6);

        // Offset and rotated: same mass and inertia about its own centre.
        let center = Vec2::new(1.5, -0.75);
        let md = Shape::offset_rect(hw, hh, center, 0.7)
            .unwrap()
            .mass_data(density);
        assert_close(md.mass, mass, 1e-5 * mass);
        assert_close(md.rotational_inertia, inertia, 1e-4 * inertia);
        assert_vec_close(md.center, center, 1e-5 * (1.0 + hw + hh));
    }
}

#[test]
fn circle_mass_and_inertia_match_closed_form() {
    let (r, density) = (0.75, 2.0);
    let md = Shape::circle(r).unwrap().mass_data(density);
    let mass = density * PI * r * r;
    assert_close(md.mass, mass, 1e-6);
    assert_close(md.rotational_inertia, 0.5 * mass * r * r, 1e-6);
    assert_eq!(md.center, Vec2::ZERO);

    let center = Vec2::new(-2.0, 3.0);
    let md = Shape::circle_at(center, r).unwrap().mass_data(density);
    assert_eq!(md.center, center);
    assert_close(md.rotational_inertia, 0.5 * mass * r * r, 1e-6);
}

#[test]
fn right_triangle_centroid_and_inertia() {
    let (a, b, density) = (3.0, 2.0, 1.5);
    // Clockwise input: the hull must reorder it.
    let shape =
        Shape::polygon(&[Vec2::new(0.0, 0.0), Vec2::new(0.0, b), Vec2::new(a, 0.0)]).unwrap();
    let md = shape.mass_data(density);
    let mass = density * a * b / 2.0;
    assert_close(md.mass, mass, 1e-5);
    assert_vec_close(md.center, Vec2::new(a / 3.0, b / 3.0), 1e-5);
    // Polar moment of a right triangle about its centroid: m (a² + b²) / 18.
    assert_close(md.rotational_inertia, mass * (a * a + b * b) / 18.0, 1e-4);
    assert_vec_close(
        as_polygon(&shape).centroid(),
        Vec2::new(a / 3.0, b / 3.0),
        1e-5,
    );
}

#[test]
fn zero_density_gives_zero_mass() {
    let md = Shape::rect(1.0, 2.0).unwrap().mass_data(0.0);
    assert_eq!(md.mass, 0.0);
    assert_eq!(md.rotational_inertia, 0.0);
}

/// Mass properties of a rounded box by midpoint-rule integration over a fine grid, in f64.
fn integrate_rounded_box(hw: f64, hh: f64, r: f64) -> (f64, f64, f64) {
    let steps = 1500;
    let (ex, ey) = (hw + r, hh + r);
    let (dx, dy) = (2.0 * ex / steps as f64, 2.0 * ey / steps as f64);
    let (mut area, mut first_x, mut second) = (0.0, 0.0, 0.0);
    for i in 0..steps {
        let x = -ex + (i as f64 + 0.5) * dx;
        for j in 0..steps {
            let y = -ey + (j as f64 + 0.5) * dy;
            let (ox, oy) = ((x.abs() - hw).max(0.0), (y.abs() - hh).max(0.0));
            if ox * ox + oy * oy <= r * r {
                // Shift x by 1 so the first moment checks the centre of an offset shape.
                area += dx * dy;
                first_x += (x + 1.0) * dx * dy;
                second += (x * x + y * y) * dx * dy;
            }
        }
    }
    (area, first_x / area, second)
}

#[test]
fn rounded_box_mass_accounts_for_the_radius() {
    let (hw, hh, r, density) = (1.0f32, 0.5f32, 0.25f32, 2.0f32);
    let corners = [
        Vec2::new(1.0 - hw, -hh),
        Vec2::new(1.0 + hw, -hh),
        Vec2::new(1.0 + hw, hh),
        Vec2::new(1.0 - hw, hh),
    ];
    let md = Shape::rounded_polygon(&corners, r)
        .unwrap()
        .mass_data(density);
    // Exact area of the Minkowski sum: core + perimeter x r + a full disc.
    let area = 4.0 * hw * hh + 4.0 * (hw + hh) * r + PI * r * r;
    assert_close(md.mass, density * area, 1e-5);
    let (grid_area, grid_cx, grid_second) = integrate_rounded_box(hw.into(), hh.into(), r.into());
    assert_close(area, grid_area as f32, 2e-3);
    assert_vec_close(md.center, Vec2::new(grid_cx as f32, 0.0), 1e-5);
    let grid_inertia = density * grid_second as f32;
    assert_close(md.rotational_inertia, grid_inertia, 2e-3 * grid_inertia);
}

// ---------------------------------------------------------------------------------------------
// Convex hull

/// Every edge turns left, the normals are the outward unit normals, and all `points` are
/// inside or on the polygon (within `tolerance`).
fn check_hull(polygon: &Polygon, points: &[Vec2], tolerance: f32) {
    let n = polygon.vertices().len();
    assert!((3..=MAX_POLYGON_VERTICES).contains(&n));
    for i in 0..n {
        let (a, b, c) = (
            polygon.vertices()[i],
            polygon.vertices()[(i + 1) % n],
            polygon.vertices()[(i + 2) % n],
        );
        assert!(
            (b - a).cross(c - b) > 0.0,
            "hull is not strictly convex CCW at vertex {i}"
        );
        let normal = polygon.normals()[i];
        assert_close(normal.length(), 1.0, 1e-5);
        assert_close(normal.dot(b - a), 0.0, 1e-4 * (b - a).length());
        assert!(normal.cross(b - a) > 0.0, "normal {i} points inward");
        for p in points {
            let outside = normal.dot(*p - a);
            assert!(
                outside <= tolerance,
                "point {p:?} is {outside} outside edge {i}"
            );
        }
    }
    for v in &polygon.vertices()[..n] {
        assert!(
            points.contains(v),
            "hull vertex {v:?} is not an input point"
        );
    }
}

/// Largest height of a triangle of `points` over its longest side: small only when every
/// triple is nearly collinear.
fn flattest_spread(points: &[Vec2]) -> f32 {
    let mut spread = 0.0f32;
    for (i, &a) in points.iter().enumerate() {
        for (j, &b) in points.iter().enumerate().skip(i + 1) {
            for &c in &points[j + 1..] {
                let longest = (b - a).length().max((c - b).length()).max((a - c).length());
                if longest > 0.0 {
                    spread = spread.max((b - a).cross(c - a).abs() / longest);
                }
            }
        }
    }
    spread
}

#[test]
fn hull_of_random_small_clouds() {
    let mut rng = Rng(0x1234_5678);
    let mut valid = 0;
    for _ in 0..500 {
        let count = 3 + rng.below(6);
        let points: Vec<Vec2> = (0..count)
            .map(|_| Vec2::new(rng.range(-2.0, 2.0), rng.range(-1.0, 1.0)))
            .collect();
        match Shape::polygon(&points) {
            Ok(shape) => {
                // Welding and collinear removal may shave off up to a few millimetres.
                check_hull(as_polygon(&shape), &points, 5e-3);
                valid += 1;
            }
            // Only a nearly flat cloud may be refused.
            Err(error) => assert!(flattest_spread(&points) < 1e-2, "{error:?} for {points:?}"),
        }
    }
    assert!(
        valid > 450,
        "only {valid} of 500 random clouds were accepted"
    );
}

#[test]
fn hull_of_clouds_inside_a_known_polygon() {
    let mut rng = Rng(0x9e37_79b9);
    for round in 0..200 {
        let corner_count = 3 + round % 6;
        // Corners on an ellipse at well separated angles form a convex polygon.
        let step = 2.0 * PI / corner_count as f32;
        let corners: Vec<Vec2> = (0..corner_count)
            .map(|k| {
                let angle = step * (k as f32 + rng.range(0.1, 0.9));
                Vec2::new(3.0 * angle.cos(), 2.0 * angle.sin())
            })
            .collect();
        let mut points = corners.clone();
        let middle =
            corners.iter().fold(Vec2::ZERO, |sum, &c| sum + c) * (1.0 / corner_count as f32);
        for _ in 0..100 {
            // A convex combination of two corners and the corners' average, with a weight of at
            // least 0.1 on the average, stays strictly inside.
            let (a, b) = (
                corners[rng.below(corner_count)],
                corners[rng.below(corner_count)],
            );
            let (s, t) = (rng.range(0.0, 0.45), rng.range(0.0, 0.45));
            points.push(a * s + b * t + middle * (1.0 - s - t));
        }
        // Shuffle so the corners are not first.
        for i in (1..points.len()).rev() {
            points.swap(i, rng.below(i + 1));
        }
        let shape = Shape::polygon(&points).unwrap();
        let polygon = as_polygon(&shape);
        check_hull(polygon, &points, 1e-5);
        assert_eq!(polygon.vertices().len(), corner_count);
        for c in &corners {
            assert!(
                polygon.vertices().contains(c),
                "corner {c:?} missing from hull"
            );
        }
    }
}

#[test]
fn hull_drops_collinear_and_welds_close_points() {
    let square = [
        Vec2::new(-1.0, -1.0),
        Vec2::new(1.0, -1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(-1.0, 1.0),
    ];
    let mut points = square.to_vec();
    points.extend([
        Vec2::new(0.0, -1.0),
        Vec2::new(1.0, 0.3),
        Vec2::new(-1.0, 0.5),
    ]); // on edges
    points.extend([Vec2::new(1.001, 1.0005), Vec2::new(-1.0, -1.001)]); // near corners
    points.extend([Vec2::new(0.0, 1.001)]); // bulges 1 mm: too flat to keep
    let shape = Shape::polygon(&points).unwrap();
    let polygon = as_polygon(&shape);
    assert_eq!(polygon.vertices().len(), 4);
    check_hull(polygon, &points, 5e-3);
}

#[test]
fn degenerate_point_sets_are_rejected() {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let p = Vec2::new;
    let cases: Vec<Vec<Vec2>> = vec![
        vec![],
        vec![p(0.0, 0.0)],
        vec![p(0.0, 0.0), p(1.0, 0.0)],
        vec![p(0.0, 0.0), p(1.0, 0.0), p(nan, 1.0)],
        vec![p(0.0, 0.0), p(1.0, 0.0), p(0.0, inf)],
        vec![p(0.0, 0.0), p(1.0, 0.0), p(0.0, -inf)],
        vec![p(1.0, 1.0); 5],
        vec![p(0.0, 0.0), p(0.001, 0.0), p(0.0, 0.001)],
        vec![p(0.0, 0.0), p(1.0, 0.0), p(1.001, 0.001), p(0.0005, 0.0)],
        vec![p(0.0, 0.0), p(1.0, 1.0), p(2.0, 2.0), p(-3.0, -3.0)],
        vec![p(0.0, 0.0), p(1.0, 0.0), p(2.0, 0.001)],
        vec![
            p(1e30, 1e30),
            p(-1e30, 1e30),
            p(0.0, -1e30),
            p(-1e30, -1e30),
        ],
    ];
    for points in &cases {
        assert!(
            is_invalid_shape(Shape::polygon(points)),
            "accepted {points:?}"
        );
    }
    // Nine points on a circle: too many hull vertices.
    let nine: Vec<Vec2> = (0..9)
        .map(|k| Rot::from_angle(k as f32 * 2.0 * PI / 9.0).rotate(p(1.0, 0.0)))
        .collect();
    assert!(is_invalid_shape(Shape::polygon(&nine)));
    // Eight are fine.
    let eight: Vec<Vec2> = (0..8)
        .map(|k| Rot::from_angle(k as f32 * PI / 4.0).rotate(p(1.0, 0.0)))
        .collect();
    assert_eq!(
        as_polygon(&Shape::polygon(&eight).unwrap())
            .vertices()
            .len(),
        8
    );

    let triangle = [p(0.0, 0.0), p(1.0, 0.0), p(0.0, 1.0)];
    for radius in [-0.1, nan, inf] {
        assert!(is_invalid_shape(Shape::rounded_polygon(&triangle, radius)));
    }
    assert!(Shape::rounded_polygon(&triangle, 0.1).is_ok());
}

#[test]
fn constructors_reject_bad_sizes() {
    let bad = [
        Shape::circle(0.0),
        Shape::circle(-1.0),
        Shape::circle(f32::NAN),
        Shape::circle(f32::INFINITY),
        Shape::circle_at(Vec2::new(f32::NAN, 0.0), 1.0),
        Shape::rect(0.0, 1.0),
        Shape::rect(1.0, 0.0),
        Shape::rect(-1.0, 1.0),
        Shape::rect(1.0, -1.0),
        Shape::rect(-1.0, -1.0),
        Shape::rect(f32::NAN, 1.0),
        Shape::rect(f32::INFINITY, 1.0),
        Shape::offset_rect(-0.5, -0.5, Vec2::new(1.0, 2.0), 0.3),
        Shape::offset_rect(0.5, 0.5, Vec2::new(f32::NAN, 2.0), 0.3),
        Shape::offset_rect(0.5, 0.5, Vec2::ZERO, f32::NAN),
    ];
    for shape in bad {
        assert!(is_invalid_shape(shape.clone()), "accepted {shape:?}");
    }
    let good = [
        Shape::circle(0.5),
        Shape::circle_at(Vec2::new(1.0, 2.0), 0.1),
        Shape::rect(0.5, 2.0),
        Shape::offset_rect(0.5, 0.25, Vec2::new(-3.0, 1.0), 2.5),
    ];
    for shape in good {
        assert!(shape.is_ok(), "refused {shape:?}");
    }
}

#[test]
fn aabb_is_tight() {
    let (hw, hh) = (1.0, 0.5);
    let angle = PI / 4.0;
    let aabb = Shape::rect(hw, hh).unwrap().aabb(xf(10.0, -3.0, angle));
    let extent = (hw + hh) * angle.cos();
    assert_vec_close(aabb.min, Vec2::new(10.0 - extent, -3.0 - extent), 1e-5);
    assert_vec_close(aabb.max, Vec2::new(10.0 + extent, -3.0 + extent), 1e-5);

    let circle = Shape::circle_at(Vec2::new(1.0, 0.0), 0.5).unwrap();
    let aabb = circle.aabb(xf(2.0, 2.0, PI / 2.0));
    assert_vec_close(aabb.min, Vec2::new(1.5, 2.5), 1e-6);
    assert_vec_close(aabb.max, Vec2::new(2.5, 3.5), 1e-6);

    let square = [
        Vec2::new(-1.0, -1.0),
        Vec2::new(1.0, -1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(-1.0, 1.0),
    ];
    let rounded = Shape::rounded_polygon(&square, 0.25).unwrap();
    let aabb = rounded.aabb(Transform::IDENTITY);
    assert_vec_close(aabb.min, Vec2::new(-1.25, -1.25), 1e-6);
    assert_vec_close(aabb.max, Vec2::new(1.25, 1.25), 1e-6);
}

// ---------------------------------------------------------------------------------------------
// Contact manifolds

fn separations(m: &Manifold) -> Vec<f32> {
    let mut s: Vec<f32> = m.points[..m.point_count]
        .iter()
        .map(|p| p.separation)
        .collect();
    s.sort_by(f32::total_cmp);
    s
}

/// Anchors are the point relative to each body origin, and the solver fields start at zero.
fn check_anchors(m: &Manifold, xf_a: Transform, xf_b: Transform) {
    assert!(m.point_count <= MAX_MANIFOLD_POINTS);
    for mp in &m.points[..m.point_count] {
        assert_vec_close(mp.anchor_a, mp.point - xf_a.p, 1e-4);
        assert_vec_close(mp.anchor_b, mp.point - xf_b.p, 1e-4);
        assert_eq!(
            (mp.normal_impulse, mp.tangent_impulse, mp.impact_impulse),
            (0.0, 0.0, 0.0)
        );
    }
    if m.point_count > 0 {
        assert_close(m.normal.length(), 1.0, 1e-5);
    }
}

#[test]
fn collide_refuses_bad_poses_and_speculative_distances() {
    let (a, b) = (Shape::circle(0.5).unwrap(), Shape::rect(0.5, 0.5).unwrap());
    let good = xf(0.0, 0.0, 0.0);
    let bad_poses = [
        Transform::new(Vec2::new(f32::NAN, 0.0), Rot::IDENTITY),
        Transform::new(Vec2::new(0.0, f32::INFINITY), Rot::IDENTITY),
        Transform::new(Vec2::ZERO, Rot { c: 2.0, s: 0.0 }),
    ];
    for bad in bad_poses {
        for (xf_a, xf_b) in [(bad, good), (good, bad)] {
            let result = collide(&a, xf_a, &b, xf_b, SPECULATIVE);
            assert!(
                matches!(result, Err(Error::InvalidParameter(_))),
                "{result:?}"
            );
        }
    }
    for distance in [-0.01, f32::NAN, f32::INFINITY] {
        let result = collide(&a, good, &b, xf(0.9, 0.0, 0.0), distance);
        assert!(
            matches!(result, Err(Error::InvalidParameter(_))),
            "{result:?}"
        );
    }
    // Zero is a valid distance: touching and overlapping points only.
    let m = collide(&a, good, &b, xf(0.9, 0.0, 0.0), 0.0).unwrap();
    assert_eq!(m.point_count, 1);
}

#[test]
fn circle_circle_separation_and_normal() {
    let (a, b) = (Shape::circle(0.5).unwrap(), Shape::circle(0.25).unwrap());
    for &(dx, dy) in &[(0.6, 0.0), (0.3, 0.4), (-0.4, 0.5), (0.0, -0.76)] {
        let (xf_a, xf_b) = (xf(1.0, 2.0, 0.3), xf(1.0 + dx, 2.0 + dy, -1.0));
        let m = collide(&a, xf_a, &b, xf_b, SPECULATIVE).unwrap();
        let d = Vec2::new(dx, dy);
        assert_eq!(m.point_count, 1);
        assert_close(m.points[0].separation, d.length() - 0.75, 1e-5);
        assert_vec_close(m.normal, d * (1.0 / d.length()), 1e-5);
        // Midway between the surfaces.
        let on_a = xf_a.p + m.normal * 0.5;
        let on_b = xf_b.p - m.normal * 0.25;
        assert_vec_close(m.points[0].point, (on_a + on_b) * 0.5, 1e-5);
        check_anchors(&m, xf_a, xf_b);
    }
    // Beyond the speculative distance: no contact.
    let m = collide(&a, xf(0.0, 0.0, 0.0), &b, xf(0.8, 0.0, 0.0), SPECULATIVE).unwrap();
    assert_eq!(m.point_count, 0);
    // Offset circles: the centres are what counts.
    let c = Shape::circle_at(Vec2::new(0.0, 1.0), 0.5).unwrap();
    let m = collide(
        &c,
        xf(0.0, 0.0, PI / 2.0),
        &b,
        xf(-1.5, 0.0, 0.0),
        SPECULATIVE,
    )
    .unwrap();
    assert_eq!(m.point_count, 1);
    assert_close(m.points[0].separation, -0.25, 1e-5);
    assert_vec_close(m.normal, Vec2::new(-1.0, 0.0), 1e-5);
}

#[test]
fn box_resting_on_box_gives_two_points_at_the_gap() {
    let ground = Shape::rect(5.0, 0.5).unwrap();
    let block = Shape::rect(0.5, 0.5).unwrap();
    for gap in [-0.01, 0.0, 0.005, 0.015] {
        let (xf_a, xf_b) = (xf(0.0, 0.0, 0.0), xf(0.3, 1.0 + gap, 0.0));
        let m = collide(&ground, xf_a, &block, xf_b, SPECULATIVE).unwrap();
        assert_eq!(m.point_count, 2, "gap {gap}");
        assert_vec_close(m.normal, Vec2::new(0.0, 1.0), 1e-6);
        for mp in &m.points[..2] {
            assert_close(mp.separation, gap, 1e-6);
            assert_close(mp.point.y, 0.5 + 0.5 * gap, 1e-6);
        }
        let mut xs = [m.points[0].point.x, m.points[1].point.x];
        xs.sort_by(f32::total_cmp);
        assert_vec_close(Vec2::new(xs[0], xs[1]), Vec2::new(-0.2, 0.8), 1e-6);
        assert_ne!(m.points[0].id, m.points[1].id);
        check_anchors(&m, xf_a, xf_b);
    }
    let m = collide(
        &ground,
        xf(0.0, 0.0, 0.0),
        &block,
        xf(0.3, 1.03, 0.0),
        SPECULATIVE,
    )
    .unwrap();
    assert_eq!(m.point_count, 0);
}

#[test]
fn box_versus_circle_face_and_vertex_regions() {
    let block = Shape::rect(1.0, 1.0).unwrap();
    let ball = Shape::circle(0.5).unwrap();
    let xf_a = xf(0.0, 0.0, 0.0);

    // Face region (top face), overlapping by 0.1.
    let xf_b = xf(0.3, 1.4, 0.0);
    let m = collide(&block, xf_a, &ball, xf_b, SPECULATIVE).unwrap();
    assert_eq!(m.point_count, 1);
    assert_close(m.points[0].separation, -0.1, 1e-6);
    assert_vec_close(m.normal, Vec2::new(0.0, 1.0), 1e-6);
    assert_vec_close(m.points[0].point, Vec2::new(0.3, 0.95), 1e-6);
    check_anchors(&m, xf_a, xf_b);

    // Vertex region of corner (1, 1): centre at distance 0.5 + 0.01 along (0.6, 0.8).
    let direction = Vec2::new(0.6, 0.8);
    let xf_b = Transform::new(Vec2::new(1.0, 1.0) + direction * 0.51, Rot::IDENTITY);
    let m = collide(&block, xf_a, &ball, xf_b, SPECULATIVE).unwrap();
    assert_eq!(m.point_count, 1);
    assert_close(m.points[0].separation, 0.01, 1e-6);
    assert_vec_close(m.normal, direction, 1e-6);
    check_anchors(&m, xf_a, xf_b);

    // Centre inside the box: pushed out through the nearest face.
    let xf_b = xf(0.9, 0.2, 0.0);
    let m = collide(&block, xf_a, &ball, xf_b, SPECULATIVE).unwrap();
    assert_close(m.points[0].separation, -0.1 - 0.5, 1e-6);
    assert_vec_close(m.normal, Vec2::new(1.0, 0.0), 1e-6);

    // Rotated box: the corner (sqrt 2, 0) points along +x.
    let xf_a = xf(0.0, 0.0, PI / 4.0);
    let xf_b = xf(2.0f32.sqrt() + 0.4, 0.0, 0.0);
    let m = collide(&block, xf_a, &ball, xf_b, SPECULATIVE).unwrap();
    assert_close(m.points[0].separation, -0.1, 1e-5);
    assert_vec_close(m.normal, Vec2::new(1.0, 0.0), 1e-5);
}

fn assert_swapped(a: &Shape, xf_a: Transform, b: &Shape, xf_b: Transform) {
    let ab = collide(a, xf_a, b, xf_b, SPECULATIVE).unwrap();
    let ba = collide(b, xf_b, a, xf_a, SPECULATIVE).unwrap();
    assert!(ab.point_count > 0);
    assert_eq!(ab.point_count, ba.point_count);
    assert_vec_close(ba.normal, -ab.normal, 1e-5);
    for (s, t) in separations(&ab).iter().zip(separations(&ba)) {
        assert_close(*s, t, 1e-5);
    }
    check_anchors(&ab, xf_a, xf_b);
    check_anchors(&ba, xf_b, xf_a);
}

#[test]
fn swapping_shapes_flips_the_normal_and_keeps_separations() {
    let block = Shape::rect(0.5, 0.5).unwrap();
    let ball = Shape::circle(0.4).unwrap();
    let ground = Shape::rect(5.0, 0.5).unwrap();
    assert_swapped(&block, xf(0.0, 0.0, 0.2), &ball, xf(0.2, 0.85, 0.0));
    assert_swapped(&block, xf(0.0, 0.0, 0.0), &ball, xf(0.7, 0.7, 0.0));
    assert_swapped(&ground, xf(0.0, 0.0, 0.0), &block, xf(0.3, 0.99, 0.0));
    assert_swapped(&block, xf(1.0, 1.0, 0.3), &block, xf(1.2, 1.9, 0.25));
    assert_swapped(&ball, xf(0.0, 0.0, 0.0), &ball, xf(0.5, 0.5, 0.0));
}

#[test]
fn circle_versus_polygon_anchors_belong_to_the_shapes_as_passed() {
    let ball = Shape::circle(0.5).unwrap();
    let ground = Shape::rect(5.0, 0.5).unwrap();
    let (xf_a, xf_b) = (xf(0.0, 0.95, 0.0), xf(0.0, 0.0, 0.0));
    let m = collide(&ball, xf_a, &ground, xf_b, SPECULATIVE).unwrap();
    assert_eq!(m.point_count, 1);
    assert_vec_close(m.normal, Vec2::new(0.0, -1.0), 1e-6);
    assert_close(m.points[0].separation, -0.05, 1e-6);
    assert_vec_close(m.points[0].anchor_a, Vec2::new(0.0, -0.475), 1e-6);
    assert_vec_close(m.points[0].anchor_b, Vec2::new(0.0, 0.475), 1e-6);
}

#[test]
fn far_from_origin_keeps_precision() {
    let block = Shape::rect(0.5, 0.25).unwrap();
    let other = Shape::polygon(&[
        Vec2::new(-0.4, -0.3),
        Vec2::new(0.5, -0.2),
        Vec2::new(0.1, 0.45),
    ])
    .unwrap();
    // Offsets are multiples of 2^-8, exact at 10000 where an f32 step is about 1 mm.
    let (dx, dy) = (0.25, 0.6796875);
    for (a, b) in [(&block, &block), (&block, &other), (&other, &block)] {
        let near = collide(a, xf(0.0, 0.0, 0.3), b, xf(dx, dy, 0.45), SPECULATIVE).unwrap();
        let far = collide(
            a,
            xf(10000.0, 10000.0, 0.3),
            b,
            xf(10000.0 + dx, 10000.0 + dy, 0.45),
            SPECULATIVE,
        )
        .unwrap();
        assert!(near.point_count > 0);
        assert_eq!(near.point_count, far.point_count);
        for (s, t) in separations(&near).iter().zip(separations(&far)) {
            assert_close(*s, t, 1e-4);
        }
        assert_vec_close(near.normal, far.normal, 1e-5);
        for (p, q) in near.points.iter().zip(&far.points) {
            assert_vec_close(p.anchor_a, q.anchor_a, 1e-4);
            assert_vec_close(p.anchor_b, q.anchor_b, 1e-4);
        }
    }
}

#[test]
fn ids_stay_equal_when_a_box_moves_slightly() {
    let ground = Shape::rect(5.0, 0.5).unwrap();
    let block = Shape::rect(0.5, 0.5).unwrap();
    let base = collide(
        &ground,
        xf(0.0, 0.0, 0.0),
        &block,
        xf(0.3, 0.995, 0.0),
        SPECULATIVE,
    )
    .unwrap();
    assert_eq!(base.point_count, 2);
    for &(dx, dy, angle) in &[
        (0.01, 0.0, 0.0),
        (-0.02, 0.003, 0.0),
        (0.0, -0.002, 0.01),
        (0.005, 0.0, -0.01),
    ] {
        let moved = collide(
            &ground,
            xf(0.0, 0.0, 0.0),
            &block,
            xf(0.3 + dx, 0.995 + dy, angle),
            SPECULATIVE,
        )
        .unwrap();
        assert_eq!(moved.point_count, 2);
        assert_eq!(moved.points[0].id, base.points[0].id);
        assert_eq!(moved.points[1].id, base.points[1].id);
    }
    // Equal boxes: offset sideways (the side planes cut the incident edge), and stacked flush,
    // where rounding moves the incident corners back and forth across the side planes.
    let ids = |m: &Manifold| {
        m.points[..m.point_count]
            .iter()
            .map(|p| p.id)
            .collect::<Vec<_>>()
    };
    let pairs = [
        (xf(0.4, 0.99, 0.0), xf(0.41, 0.991, 0.002)),
        (xf(0.0, 0.999, 0.0), xf(1e-5, 0.999, 0.0)),
        (xf(0.0, 0.999, 0.0), xf(-1e-5, 0.998, 1e-4)),
        (xf(0.0, 0.999, 0.0), xf(2e-5, 0.999, -1e-4)),
    ];
    for (before, after) in pairs {
        let first = collide(&block, xf(0.0, 0.0, 0.0), &block, before, SPECULATIVE).unwrap();
        let second = collide(&block, xf(0.0, 0.0, 0.0), &block, after, SPECULATIVE).unwrap();
        assert_eq!(first.point_count, 2);
        assert_ne!(first.points[0].id, first.points[1].id);
        assert_eq!(ids(&first), ids(&second), "{before:?} -> {after:?}");
    }
}

#[test]
fn ids_stay_when_the_reference_face_passes_from_a_to_b() {
    // A small box under a wide one. Flat, A's top face is the reference and B's bottom edge is
    // clipped at A's corners; with A tilted, B's bottom face is the better axis and A's
    // corners are the incident points. Either way each point joins A's top corner and B's
    // bottom corner on its side, and keeps its id, so its impulse carries over the switch.
    let small = Shape::rect(0.5, 0.5).unwrap();
    let wide = Shape::rect(2.0, 0.5).unwrap();
    let flat = collide(
        &small,
        xf(0.0, 0.0, 0.0),
        &wide,
        xf(0.0, 0.999, 0.0),
        SPECULATIVE,
    )
    .unwrap();
    let tilted = collide(
        &small,
        xf(0.0, 0.0, 0.02),
        &wide,
        xf(0.0, 1.005, 0.0),
        SPECULATIVE,
    )
    .unwrap();
    assert_eq!((flat.point_count, tilted.point_count), (2, 2));
    // B's face gives the tilted pair its normal: A's face would tilt it.
    assert_vec_close(tilted.normal, Vec2::new(0.0, 1.0), 1e-6);
    assert_ne!(flat.points[0].id, flat.points[1].id);
    for p in &flat.points {
        let nearest = tilted
            .points
            .iter()
            .min_by(|q, r| {
                let d = |m: &&batch2d::manifold::ManifoldPoint| (m.point - p.point).length();
                d(q).total_cmp(&d(r))
            })
            .unwrap();
        assert!((nearest.point - p.point).length() < 0.02);
        assert_eq!(nearest.id, p.id, "{:?} vs {:?}", flat.points, tilted.points);
    }
}

#[test]
fn rounded_polygons_subtract_radii_and_meet_midway() {
    let square = [
        Vec2::new(-0.5, -0.5),
        Vec2::new(0.5, -0.5),
        Vec2::new(0.5, 0.5),
        Vec2::new(-0.5, 0.5),
    ];
    let a = Shape::rounded_polygon(&square, 0.1).unwrap();
    let b = Shape::rounded_polygon(&square, 0.05).unwrap();
    let (xf_a, xf_b) = (xf(0.0, 0.0, 0.0), xf(0.2, 1.16, 0.0));
    let m = collide(&a, xf_a, &b, xf_b, SPECULATIVE).unwrap();
    assert_eq!(m.point_count, 2);
    for mp in &m.points[..2] {
        // Cores 0.16 apart, radii 0.15.
        assert_close(mp.separation, 0.01, 1e-6);
        // Surfaces at y = 0.6 and 0.61.
        assert_close(mp.point.y, 0.605, 1e-6);
    }
    let ball = Shape::circle(0.2).unwrap();
    let m = collide(&a, xf_a, &ball, xf(0.0, 0.75, 0.0), SPECULATIVE).unwrap();
    assert_close(m.points[0].separation, -0.05, 1e-6);
    assert_close(m.points[0].point.y, 0.575, 1e-6);
}

#[test]
fn boxes_meeting_corner_to_corner_give_one_point() {
    // Equal boxes in a grid (smash's block) touch their diagonal neighbours at a corner: the
    // incident edge overlaps the reference face only there and clips to two points in one
    // place, which hold the pair against turning no better than one.
    let block = Shape::rect(0.2, 0.2).unwrap();
    let xf_a = xf(1.0, -2.0, 0.0);
    for (dx, dy) in [
        (0.4, 0.4),
        (-0.4, 0.4),
        (0.4, -0.4),
        (0.4, 0.3998),
        (0.3999, -0.4),
    ] {
        let xf_b = xf(1.0 + dx, -2.0 + dy, 0.0);
        let m = collide(&block, xf_a, &block, xf_b, SPECULATIVE).unwrap();
        assert_eq!(m.point_count, 1, "offset ({dx}, {dy})");
        assert_close(m.points[0].separation, 0.0, 1e-5);
        let corner = Vec2::new(1.0 + 0.2 * dx.signum(), -2.0 + 0.2 * dy.signum());
        assert_vec_close(m.points[0].point, corner, 3e-4);
        check_anchors(&m, xf_a, xf_b);
    }
    // Overlapping by 2 mm along the face, the points are that far apart: both stay.
    let xf_b = xf(1.4, -1.602, 0.0);
    let m = collide(&block, xf_a, &block, xf_b, SPECULATIVE).unwrap();
    assert_eq!(m.point_count, 2);
    assert_close(
        (m.points[1].point - m.points[0].point).length(),
        0.002,
        1e-5,
    );
    // Of two nearly coincident points the deeper stays. B is turned 0.2 rad, its lower left
    // corner 0.1 mm into A's top face and 0.3 mm short of the face's right end: its lower edge
    // clips to that corner (0.1 mm deep) and to the face's end (0.04 mm deep).
    let angle = 0.2f32;
    let corner = Vec2::new(1.2 - 0.0003, -1.8 - 0.0001);
    let xf_b = Transform::new(
        corner + Rot::from_angle(angle).rotate(Vec2::new(0.2, 0.2)),
        Rot::from_angle(angle),
    );
    let m = collide(&block, xf_a, &block, xf_b, SPECULATIVE).unwrap();
    assert_eq!(m.point_count, 1);
    assert_vec_close(m.normal, Vec2::new(0.0, 1.0), 1e-6);
    assert_close(m.points[0].separation, -0.0001, 2e-6);
    assert_close(m.points[0].point.x, corner.x, 2e-6);
    check_anchors(&m, xf_a, xf_b);
}

#[test]
fn separated_corners_use_the_closest_points() {
    let block = Shape::rect(1.0, 1.0).unwrap();
    let m = collide(&block, xf(0.0, 0.0, 0.0), &block, xf(2.3, 2.3, 0.0), 1.0).unwrap();
    assert_eq!(m.point_count, 1);
    assert_close(m.points[0].separation, 0.3 * 2.0f32.sqrt(), 1e-5);
    let diagonal = 0.5f32.sqrt();
    assert_vec_close(m.normal, Vec2::new(diagonal, diagonal), 1e-5);
    assert_vec_close(m.points[0].point, Vec2::new(1.15, 1.15), 1e-5);
    // Within the default speculative distance it is no contact at all.
    assert_eq!(
        collide(
            &block,
            xf(0.0, 0.0, 0.0),
            &block,
            xf(2.3, 2.3, 0.0),
            SPECULATIVE
        )
        .unwrap()
        .point_count,
        0
    );
}

#[test]
fn collide_is_deterministic() {
    let a = Shape::polygon(&[
        Vec2::new(-0.4, -0.3),
        Vec2::new(0.5, -0.2),
        Vec2::new(0.1, 0.45),
    ])
    .unwrap();
    let b = Shape::rect(0.3, 0.2).unwrap();
    let (xf_a, xf_b) = (xf(1.0, 2.0, 0.1), xf(1.3, 2.4, -0.7));
    let first = collide(&a, xf_a, &b, xf_b, SPECULATIVE).unwrap();
    for _ in 0..10 {
        assert_eq!(collide(&a, xf_a, &b, xf_b, SPECULATIVE).unwrap(), first);
    }
}
