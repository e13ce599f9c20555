//! GJK distance, EPA penetration and time of impact against closed forms and brute force.

use crate::common;

use batch2d::shape::Polygon;
use batch2d::{
    distance, penetration, time_of_impact, Error, Rot, Shape, Sweep, ToiState, Transform, Vec2,
};
use common::{point_segment_distance, v, Rng};

impl Rng {
    /// A random convex polygon of 3..=8 hull points within `size` of its origin, rounded by
    /// `radius`.
    fn polygon(&mut self, size: f32, radius: f32) -> Shape {
        loop {
            let n = 3 + (self.next_f32() * 6.0) as usize;
            let points: Vec<Vec2> = (0..n)
                .map(|_| Vec2::new(self.range(-size, size), self.range(-size, size)))
                .collect();
            if let Ok(shape) = Shape::rounded_polygon(&points, radius) {
                return shape;
            }
        }
    }

    fn transform(&mut self, spread: f32) -> Transform {
        let p = Vec2::new(self.range(-spread, spread), self.range(-spread, spread));
        Transform::new(p, Rot::from_angle(self.range(-3.0, 3.0)))
    }
}

fn poly(shape: &Shape) -> &Polygon {
    match shape {
        Shape::Polygon(p) => p,
        Shape::Circle(_) => panic!("expected a polygon"),
    }
}

/// World vertices of a polygon's core.
fn world_vertices(shape: &Shape, xf: Transform) -> Vec<Vec2> {
    let p = poly(shape);
    p.vertices().iter().map(|&q| xf.apply(q)).collect()
}

/// Outward unit normals of a counter-clockwise polygon's edges.
fn edge_normals(vs: &[Vec2]) -> Vec<Vec2> {
    (0..vs.len())
        .map(|i| {
            let e = vs[(i + 1) % vs.len()] - vs[i];
            v(e.y, -e.x) * (1.0 / e.length())
        })
        .collect()
}

/// How far B must move along unit `u` to stop overlapping A (negative: they are apart by
/// that much along `u`).
fn overlap_along(a: &[Vec2], b: &[Vec2], u: Vec2) -> f32 {
    let max_a = a.iter().map(|p| p.dot(u)).fold(f32::MIN, f32::max);
    let min_b = b.iter().map(|p| p.dot(u)).fold(f32::MAX, f32::min);
    max_a - min_b
}

/// SAT over every face normal (of A, and of B reversed): the penetration depth of two convex
/// polygons, negative when a face separates them.
fn sat_depth(a: &[Vec2], b: &[Vec2]) -> f32 {
    let axes = edge_normals(a)
        .into_iter()
        .chain(edge_normals(b).into_iter().map(|n| -n));
    axes.map(|u| overlap_along(a, b, u))
        .fold(f32::MAX, f32::min)
}

/// Distance between two disjoint convex polygons: the nearest vertex-edge pair.
fn brute_distance(a: &[Vec2], b: &[Vec2]) -> f32 {
    let mut best = f32::MAX;
    for (x, y) in [(a, b), (b, a)] {
        for &p in x {
            for i in 0..y.len() {
                best = best.min(point_segment_distance(p, y[i], y[(i + 1) % y.len()]));
            }
        }
    }
    best
}

fn assert_close(got: f32, want: f32, tol: f32, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} (tol {tol})"
    );
}

#[test]
fn circles_match_the_closed_form() {
    let mut rng = Rng(7);
    for _ in 0..200 {
        let (ra, rb) = (rng.range(0.1, 1.0), rng.range(0.1, 1.0));
        let a = Shape::circle_at(v(rng.range(-1.0, 1.0), 0.2), ra).unwrap();
        let b = Shape::circle(rb).unwrap();
        let (xf_a, xf_b) = (rng.transform(5.0), rng.transform(5.0));
        let (ca, cb) = (xf_a.apply(v(0.0, 0.0)), xf_b.apply(v(0.0, 0.0)));
        let ca = ca
            + xf_a.q.rotate(match &a {
                Shape::Circle(c) => c.center(),
                _ => unreachable!(),
            });
        let gap = (cb - ca).length() - ra - rb;
        let out = distance(&a, xf_a, &b, xf_b).unwrap();
        assert_close(out.distance, gap.max(0.0), 1e-4, "circle distance");
        if gap > 0.0 {
            let n = (cb - ca) * (1.0 / (cb - ca).length());
            assert!((out.normal - n).length() < 1e-4);
            assert!((out.point_a - (ca + n * ra)).length() < 1e-4);
            assert!((out.point_b - (cb - n * rb)).length() < 1e-4);
        } else {
            let p = penetration(&a, xf_a, &b, xf_b).unwrap().expect("overlap");
            assert_close(p.depth, -gap, 1e-4, "circle depth");
        }
    }
}

#[test]
fn circle_and_box_match_the_closed_form_in_face_and_corner_regions() {
    let mut rng = Rng(11);
    for _ in 0..300 {
        let (hw, hh, r) = (
            rng.range(0.2, 2.0),
            rng.range(0.2, 2.0),
            rng.range(0.05, 0.5),
        );
        let boxed = Shape::rect(hw, hh).unwrap();
        let xf_box = rng.transform(10.0);
        // A local offset of the circle centre from the box: beside a face or past a corner.
        let (dx, dy) = (rng.range(-3.0, 3.0), rng.range(-3.0, 3.0));
        let local = v(dx, dy);
        let outside = v((dx.abs() - hw).max(0.0), (dy.abs() - hh).max(0.0));
        if outside.length() < 1e-3 {
            continue; // The centre is inside the box: covered by the EPA tests.
        }
        let expected = outside.length() - r;
        let xf_circle = Transform::new(xf_box.apply(local), rng.transform(1.0).q);
        let out = distance(&boxed, xf_box, &Shape::circle(r).unwrap(), xf_circle).unwrap();
        assert_close(out.distance, expected.max(0.0), 1e-4, "circle-box distance");
        if expected > 0.0 {
            // The closest point of the box is the clamp of the centre into it.
            let clamp = v(dx.clamp(-hw, hw), dy.clamp(-hh, hh));
            assert!((out.point_a - xf_box.apply(clamp)).length() < 1e-4);
        }
    }
}

#[test]
fn boxes_at_known_offsets() {
    let b = Shape::rect(0.5, 0.5).unwrap();
    let at = |x: f32, y: f32| Transform::new(v(x, y), Rot::IDENTITY);
    // Face to face, gap 0.25.
    let out = distance(&b, at(0.0, 0.0), &b, at(1.25, 0.3)).unwrap();
    assert_close(out.distance, 0.25, 1e-5, "face gap");
    assert!((out.normal - v(1.0, 0.0)).length() < 1e-5);
    // Corner to corner: offsets 0.3 and 0.4 beyond touching -> 0.5.
    let out = distance(&b, at(0.0, 0.0), &b, at(1.3, 1.4)).unwrap();
    assert_close(out.distance, 0.5, 1e-5, "corner gap");
    assert!((out.point_a - v(0.5, 0.5)).length() < 1e-5);
    assert!((out.point_b - v(0.8, 0.9)).length() < 1e-5);
    // A box turned 45 degrees, its corner pointing at a face 0.1 away.
    let turned = Transform::new(
        v(0.6 + 0.5 * 2f32.sqrt(), 0.0),
        Rot::from_angle(std::f32::consts::FRAC_PI_4),
    );
    let out = distance(&b, at(0.0, 0.0), &b, turned).unwrap();
    assert_close(out.distance, 0.1, 1e-5, "corner to face");
    // Overlapping by 0.2 along x: depth 0.2, pushing B along +x.
    let p = penetration(&b, at(0.0, 0.0), &b, at(0.8, 0.1))
        .unwrap()
        .expect("overlap");
    assert_close(p.depth, 0.2, 1e-5, "box depth");
    assert!((p.normal - v(1.0, 0.0)).length() < 1e-5);
}

#[test]
fn gjk_matches_brute_force_on_random_polygons() {
    let mut rng = Rng(12345);
    let mut separated = 0;
    for _ in 0..2000 {
        let radius = if rng.next_f32() < 0.3 {
            rng.range(0.0, 0.2)
        } else {
            0.0
        };
        let a = rng.polygon(1.0, radius);
        let b = rng.polygon(1.0, 0.0);
        let (xf_a, xf_b) = (rng.transform(2.0), rng.transform(2.0));
        let (va, vb) = (world_vertices(&a, xf_a), world_vertices(&b, xf_b));
        let out = distance(&a, xf_a, &b, xf_b).unwrap();
        if sat_depth(&va, &vb) < 0.0 {
            // Cores apart: the nearest vertex-edge pair, less the rounding.
            separated += 1;
            let expected = (brute_distance(&va, &vb) - radius).max(0.0);
            assert_close(out.distance, expected, 2e-4, "polygon distance");
            if expected > 1e-3 {
                let gap = (out.point_b - out.point_a).length();
                assert_close(gap, expected, 2e-4, "witness gap");
                assert!((out.point_b - out.point_a).dot(out.normal) > 0.0);
            }
        } else {
            assert_eq!(out.distance, 0.0, "overlapping cores have distance 0");
        }
    }
    assert!(separated > 500, "too few separated pairs: {separated}");
}

#[test]
fn epa_depth_matches_sat_on_random_overlapping_polygons() {
    let mut rng = Rng(999);
    let mut overlapping = 0;
    for _ in 0..2000 {
        let a = rng.polygon(1.0, 0.0);
        let b = rng.polygon(1.0, 0.0);
        let (xf_a, xf_b) = (rng.transform(1.0), rng.transform(1.0));
        let (va, vb) = (world_vertices(&a, xf_a), world_vertices(&b, xf_b));
        let depth = sat_depth(&va, &vb);
        let p = penetration(&a, xf_a, &b, xf_b).unwrap();
        if depth <= 1e-4 {
            continue; // Apart or grazing: the sign of the answer is up to rounding.
        }
        overlapping += 1;
        let p = p.expect("SAT says they overlap");
        assert_close(p.depth, depth, 2e-4, "EPA depth");
        // The normal is a minimum translation direction: moving B by depth along it leaves
        // the polygons just touching.
        assert_close(
            overlap_along(&va, &vb, p.normal),
            p.depth,
            2e-4,
            "depth along normal",
        );
        assert_close(
            (p.point_a - p.point_b).dot(p.normal),
            p.depth,
            2e-4,
            "deepest points",
        );
        let moved = Transform::new(xf_b.p + p.normal * (p.depth + 1e-3), xf_b.q);
        assert!(distance(&a, xf_a, &b, moved).unwrap().distance > 0.0);
    }
    assert!(
        overlapping > 500,
        "too few overlapping pairs: {overlapping}"
    );
}

#[test]
fn rounded_shapes_overlap_by_the_rounding() {
    // Two unit squares rounded by 0.1, cores 0.15 apart: the roundings overlap by 0.05.
    let r = Shape::rounded_polygon(
        &[v(-0.5, -0.5), v(0.5, -0.5), v(0.5, 0.5), v(-0.5, 0.5)],
        0.1,
    )
    .unwrap();
    let a = Transform::IDENTITY;
    let b = Transform::new(v(1.15, 0.0), Rot::IDENTITY);
    assert_eq!(distance(&r, a, &r, b).unwrap().distance, 0.0);
    let p = penetration(&r, a, &r, b)
        .unwrap()
        .expect("roundings overlap");
    assert_close(p.depth, 0.05, 1e-5, "rounded depth");
    assert!((p.normal - v(1.0, 0.0)).length() < 1e-5);
}

/// A circle moving straight at a wall at `angle` from the wall's normal: the closed form is
/// `t = (gap - target) / (L cos angle)`; the search stops in the target band just before it.
#[test]
fn toi_of_a_circle_moving_at_a_wall_matches_the_closed_form() {
    let wall = Shape::rect(0.05, 10.0).unwrap();
    let wall_xf = Transform::new(v(0.0, 0.0), Rot::IDENTITY);
    let mut rng = Rng(31);
    for _ in 0..200 {
        let r = rng.range(0.02, 0.5);
        let gap = rng.range(0.05, 3.0);
        let angle = rng.range(-1.2, 1.2);
        let length = rng.range(0.5, 10.0);
        let start = v(-0.05 - r - gap, rng.range(-1.0, 1.0));
        let translation = v(angle.cos(), angle.sin()) * length;
        let circle = Shape::circle(r).unwrap();
        let sweep = Sweep::translation(Transform::new(start, Rot::IDENTITY), translation);
        let out = time_of_impact(&circle, &sweep, &wall, &Sweep::fixed(wall_xf), 1.0).unwrap();
        let closing = length * angle.cos();
        // `time_of_impact` stops 1.25 to 2.5 mm apart, as its documentation says.
        let band = 0.00125f32..=0.0025;
        let latest = (gap - band.start()) / closing;
        let earliest = (gap - band.end()) / closing;
        if earliest > 1.0 {
            assert_eq!(out.state, ToiState::Separated);
            continue;
        }
        if latest > 1.0 {
            continue; // The band straddles the end of the sweep.
        }
        assert_eq!(out.state, ToiState::Hit);
        assert!(
            out.fraction >= earliest - 1e-5 && out.fraction <= latest + 1e-5,
            "toi {} outside [{earliest}, {latest}]",
            out.fraction
        );
    }
}

#[test]
fn toi_of_a_spinning_box_never_passes_contact() {
    let wall = Shape::rect(0.05, 10.0).unwrap();
    let wall_sweep = Sweep::fixed(Transform::IDENTITY);
    let boxed = Shape::rect(0.2, 0.1).unwrap();
    let mut rng = Rng(77);
    let mut hits = 0;
    for _ in 0..200 {
        let sweep = Sweep {
            local_center: Vec2::ZERO,
            c0: v(rng.range(-4.0, -0.5), rng.range(-1.0, 1.0)),
            c1: v(rng.range(-0.5, 3.0), rng.range(-1.0, 1.0)),
            a0: rng.range(-3.0, 3.0),
            a1: rng.range(-3.0, 3.0),
        };
        let out = time_of_impact(&boxed, &sweep, &wall, &wall_sweep, 1.0).unwrap();
        let gap_at = |t: f32| {
            distance(&boxed, sweep.transform_at(t), &wall, Transform::IDENTITY)
                .unwrap()
                .distance
        };
        if gap_at(0.0) <= 0.0 {
            assert_eq!(out.state, ToiState::Overlapping);
            continue;
        }
        // No contact before the answer (dense sampling), and at a hit the shapes are in the band.
        for k in 0..400 {
            let t = out.fraction * k as f32 / 400.0;
            assert!(
                gap_at(t) > 0.0,
                "contact at {t} before toi {}",
                out.fraction
            );
        }
        match out.state {
            ToiState::Hit => {
                hits += 1;
                let g = gap_at(out.fraction);
                assert!(g > 0.0 && g <= 0.0025 + 1e-4);
            }
            ToiState::Separated => {
                for k in 0..=400 {
                    assert!(gap_at(k as f32 / 400.0) > 0.0, "missed a contact");
                }
            }
            state => panic!("unexpected {state:?}"),
        }
    }
    assert!(hits > 50, "too few hits: {hits}");
}

#[test]
fn bad_input_is_an_error() {
    let c = Shape::circle(1.0).unwrap();
    let ok = Transform::IDENTITY;
    let nan = Transform::new(v(f32::NAN, 0.0), Rot::IDENTITY);
    let skew = Transform::new(v(0.0, 0.0), Rot { c: 2.0, s: 0.0 });
    assert!(matches!(
        distance(&c, nan, &c, ok),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        penetration(&c, ok, &c, skew),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(Shape::circle(-1.0), Err(Error::InvalidShape(_))));
    let s = Sweep::fixed(ok);
    assert!(time_of_impact(&c, &s, &c, &s, 1.5).is_err());
    assert!(time_of_impact(&c, &s, &c, &s, f32::NAN).is_err());
    let nan_sweep = Sweep { a1: f32::NAN, ..s };
    assert!(time_of_impact(&c, &nan_sweep, &c, &s, 1.0).is_err());
}
