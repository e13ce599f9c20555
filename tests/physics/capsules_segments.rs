//! Capsules and segments: mass against brute-force integration, bad input, and contact
//! manifolds against brute-force distances for every pair kind they take part in.

use crate::common;

use batch2d::collide;
use batch2d::manifold::Manifold;
use batch2d::shape::Shape;
use batch2d::{BodyDef, Error, Rot, ShapeDef, Transform, Vec2, World, WorldSettings};
use common::{point_segment_distance, v, Rng};

/// The core (circle centre, segment or polygon) of a shape in world coordinates and its
/// rounding radius.
struct Core {
    points: Vec<Vec2>,
    radius: f32,
}

fn core(shape: &Shape, xf: Transform) -> Core {
    match shape {
        Shape::Circle(c) => Core {
            points: vec![xf.apply(c.center())],
            radius: c.radius(),
        },
        Shape::Polygon(p) => Core {
            points: p.vertices().iter().map(|&v| xf.apply(v)).collect(),
            radius: p.radius(),
        },
    }
}

impl Core {
    /// Signed distance from `p` to the core: negative inside a polygon core.
    fn signed_distance(&self, p: Vec2) -> f32 {
        let n = self.points.len();
        if n == 1 {
            return (p - self.points[0]).length();
        }
        if n == 2 {
            return point_segment_distance(p, self.points[0], self.points[1]);
        }
        let edges = (0..n).map(|i| (self.points[i], self.points[(i + 1) % n]));
        let nearest = edges
            .clone()
            .map(|(a, b)| point_segment_distance(p, a, b))
            .fold(f32::INFINITY, f32::min);
        // Counter-clockwise: inside when left of every edge.
        let inside = edges.clone().all(|(a, b)| (b - a).cross(p - a) > 0.0);
        if inside {
            -nearest
        } else {
            nearest
        }
    }

    /// Signed distance from `p` to the rounded shape.
    fn shape_distance(&self, p: Vec2) -> f32 {
        self.signed_distance(p) - self.radius
    }

    /// Points along the core's boundary, every `step` metres, vertices included.
    fn boundary(&self, step: f32) -> Vec<Vec2> {
        let n = self.points.len();
        if n == 1 {
            return self.points.clone();
        }
        let edge_count = if n == 2 { 1 } else { n };
        let mut out = Vec::new();
        for i in 0..edge_count {
            let (a, b) = (self.points[i], self.points[(i + 1) % n]);
            let samples = ((b - a).length() / step).ceil() as usize;
            out.extend((0..=samples).map(|k| a + (b - a) * (k as f32 / samples as f32)));
        }
        out
    }
}

/// Distance between two convex shapes by brute force (negative: they overlap, value then
/// only says so).
fn brute_distance(a: &Core, b: &Core) -> f32 {
    let gap = a
        .boundary(2e-4)
        .iter()
        .map(|&p| b.shape_distance(p))
        .fold(f32::INFINITY, f32::min)
        - a.radius;
    // A core swallowed whole by the other shape has no boundary point outside it.
    let inside = b.shape_distance(a.points[0]) < 0.0 || a.shape_distance(b.points[0]) < 0.0;
    if inside {
        gap.min(-1e-3)
    } else {
        gap
    }
}

const SPECULATIVE: f32 = 0.25;

/// Random pairs of `make_a` and `make_b` at random poses: the manifold's deepest separation
/// matches the brute-force distance of separated shapes, overlapping shapes get a negative
/// one, shapes beyond the speculative distance get no points, and the deepest point lies
/// midway between the two surfaces along the normal.
fn check_against_brute_force(
    name: &str,
    make_a: impl Fn(&mut Rng) -> Shape,
    make_b: impl Fn(&mut Rng) -> Shape,
) {
    let mut rng = Rng(0x9e37_79b9);
    let (mut separated, mut overlapping, mut far) = (0, 0, 0);
    for case in 0..400 {
        let (a, b) = (make_a(&mut rng), make_b(&mut rng));
        let xf_a = Transform::new(
            v(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)),
            Rot::from_angle(rng.range(-3.0, 3.0)),
        );
        let xf_b = Transform::new(
            v(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
            Rot::from_angle(rng.range(-3.0, 3.0)),
        );
        let (core_a, core_b) = (core(&a, xf_a), core(&b, xf_b));
        let d = brute_distance(&core_a, &core_b);
        let m: Manifold = collide(&a, xf_a, &b, xf_b, SPECULATIVE).unwrap();
        let points = &m.points[..m.point_count];
        let what = format!("{name} case {case}: brute-force distance {d}, manifold {m:?}");
        if d > SPECULATIVE + 2e-3 {
            assert!(points.is_empty(), "{what}");
            far += 1;
            continue;
        }
        if d < SPECULATIVE - 2e-3 {
            assert!(!points.is_empty(), "{what}");
        }
        if points.is_empty() {
            continue;
        }
        assert!((m.normal.length() - 1.0).abs() < 1e-4, "{what}");
        let deepest = points
            .iter()
            .map(|p| p.separation)
            .fold(f32::INFINITY, f32::min);
        // A core crossing a segment has boundary points on it (distance 0) but no point
        // inside it, so brute force reads crossing as touching: both count as overlap.
        if d >= 1e-3 {
            assert!((deepest - d).abs() < 2e-3, "{what}");
            separated += 1;
        } else {
            assert!(deepest < 2e-3, "{what}");
            overlapping += 1;
        }
        // The deepest point is midway between the surfaces, half the separation from each.
        // (Other points of a face contact are projections that need not be: on a rounded
        // incident edge the normal is not the edge's own.)
        let p = points.iter().find(|p| p.separation == deepest).unwrap();
        let on_a = p.point - m.normal * (0.5 * p.separation);
        let on_b = p.point + m.normal * (0.5 * p.separation);
        assert!(
            core_a.shape_distance(on_a).abs() < 2e-3,
            "{what}: {p:?} off A"
        );
        assert!(
            core_b.shape_distance(on_b).abs() < 2e-3,
            "{what}: {p:?} off B"
        );
    }
    assert!(
        separated > 20 && overlapping > 20 && far > 20,
        "{name}: {separated} separated, {overlapping} overlapping, {far} far"
    );
}

fn random_capsule(rng: &mut Rng) -> Shape {
    let half = rng.range(0.1, 1.0);
    let center = v(rng.range(-0.3, 0.3), rng.range(-0.3, 0.3));
    let axis = Rot::from_angle(rng.range(-3.0, 3.0)).rotate(v(half, 0.0));
    Shape::capsule(center - axis, center + axis, rng.range(0.05, 0.5)).unwrap()
}

fn random_segment(rng: &mut Rng) -> Shape {
    let half = rng.range(0.2, 1.5);
    let axis = Rot::from_angle(rng.range(-3.0, 3.0)).rotate(v(half, 0.0));
    Shape::segment(-axis, axis).unwrap()
}

fn random_box(rng: &mut Rng) -> Shape {
    Shape::rect(rng.range(0.1, 0.8), rng.range(0.1, 0.8)).unwrap()
}

fn random_circle(rng: &mut Rng) -> Shape {
    Shape::circle_at(v(rng.range(-0.2, 0.2), 0.0), rng.range(0.1, 0.7)).unwrap()
}

#[test]
fn capsule_contacts_match_brute_force_distances() {
    check_against_brute_force("capsule-circle", random_capsule, random_circle);
    check_against_brute_force("circle-capsule", random_circle, random_capsule);
    check_against_brute_force("capsule-box", random_capsule, random_box);
    check_against_brute_force("box-capsule", random_box, random_capsule);
    check_against_brute_force("capsule-capsule", random_capsule, random_capsule);
}

#[test]
fn segment_contacts_match_brute_force_distances() {
    check_against_brute_force("segment-circle", random_segment, random_circle);
    check_against_brute_force("box-segment", random_box, random_segment);
    check_against_brute_force("segment-capsule", random_segment, random_capsule);
}

/// A circle centred on a segment's line beyond its end touches the end, not a face: a
/// segment has no inside.
#[test]
fn a_circle_beyond_a_segment_end_is_closest_to_the_end() {
    let segment = Shape::segment(v(-1.0, 0.0), v(1.0, 0.0)).unwrap();
    let ball = Shape::circle(0.5).unwrap();
    let at = |x: f32, y: f32| Transform::new(v(x, y), Rot::IDENTITY);
    let m = collide(&segment, at(0.0, 0.0), &ball, at(1.6, 0.0), 0.2).unwrap();
    assert_eq!(m.point_count, 1);
    assert!((m.normal - v(1.0, 0.0)).length() < 1e-6);
    assert!((m.points[0].separation - 0.1).abs() < 1e-6);
    let far = collide(&segment, at(0.0, 0.0), &ball, at(1.8, 0.0), 0.2).unwrap();
    assert_eq!(far.point_count, 0);
}

#[test]
fn capsule_mass_matches_brute_force_integration() {
    let (p1, p2, r) = (v(-0.3, 0.2), v(0.9, 0.7), 0.35);
    let density = 2.5;
    let mass = Shape::capsule(p1, p2, r).unwrap().mass_data(density);
    // Integrate over a fine grid of cells: mass, centroid, polar moment about the centroid.
    let cell = 2e-3_f32;
    let (lo, hi) = (p1.min(p2) - v(r, r), p1.max(p2) + v(r, r));
    let (nx, ny) = (
        ((hi.x - lo.x) / cell) as usize + 1,
        ((hi.y - lo.y) / cell) as usize + 1,
    );
    let (mut area, mut first, mut second) = (0.0f64, [0.0f64; 2], 0.0f64);
    for i in 0..nx {
        for j in 0..ny {
            let p = lo + v((i as f32 + 0.5) * cell, (j as f32 + 0.5) * cell);
            if point_segment_distance(p, p1, p2) <= r {
                let (x, y) = (f64::from(p.x), f64::from(p.y));
                area += 1.0;
                first[0] += x;
                first[1] += y;
                second += x * x + y * y;
            }
        }
    }
    let cell_area = f64::from(cell) * f64::from(cell);
    let centroid = [first[0] / area, first[1] / area];
    let polar =
        (second / area - centroid[0] * centroid[0] - centroid[1] * centroid[1]) * area * cell_area;
    let area = area * cell_area;
    let expected_mass = f64::from(density) * area;
    assert!(
        (f64::from(mass.mass) - expected_mass).abs() < 2e-3 * expected_mass,
        "mass {} vs {expected_mass}",
        mass.mass
    );
    assert!((f64::from(mass.center.x) - centroid[0]).abs() < 1e-3);
    assert!((f64::from(mass.center.y) - centroid[1]).abs() < 1e-3);
    let expected_inertia = f64::from(density) * polar;
    assert!(
        (f64::from(mass.rotational_inertia) - expected_inertia).abs() < 3e-3 * expected_inertia,
        "inertia {} vs {expected_inertia}",
        mass.rotational_inertia
    );
    // A segment has no mass.
    assert_eq!(Shape::segment(p1, p2).unwrap().mass_data(density).mass, 0.0);
}

#[test]
fn bad_capsules_and_segments_are_rejected() {
    let bad = [
        Shape::capsule(v(0.0, 0.0), v(0.0, 0.0), 0.5),
        Shape::capsule(v(0.0, 0.0), v(0.001, 0.0), 0.5),
        Shape::capsule(v(0.0, 0.0), v(1.0, 0.0), -0.1),
        Shape::capsule(v(0.0, 0.0), v(1.0, 0.0), f32::NAN),
        Shape::capsule(v(0.0, 0.0), v(1.0, 0.0), f32::INFINITY),
        Shape::capsule(v(f32::NAN, 0.0), v(1.0, 0.0), 0.5),
        Shape::segment(v(0.0, 0.0), v(0.0, 0.0)),
        Shape::segment(v(0.0, f32::INFINITY), v(1.0, 0.0)),
        Shape::segment(v(-3e38, 0.0), v(3e38, 0.0)),
    ];
    for shape in bad {
        assert!(matches!(shape, Err(Error::InvalidShape(_))), "{shape:?}");
    }
    let mut world = World::new(WorldSettings::default());
    // A segment has no mass, so it cannot be dynamic; static and kinematic are fine.
    let segment = ShapeDef::new(Shape::segment(v(0.0, 0.0), v(1.0, 0.0)).unwrap());
    let dynamic = world.add_body(BodyDef::dynamic(), segment.clone());
    assert!(matches!(dynamic, Err(Error::InvalidShape(_))));
    assert_eq!(world.body_count(), 0);
    world.add_body(BodyDef::fixed(), segment.clone()).unwrap();
    world.add_body(BodyDef::kinematic(), segment).unwrap();
    let capsule = ShapeDef::new(Shape::capsule(v(0.0, 0.0), v(1.0, 0.0), 0.2).unwrap());
    world.add_body(BodyDef::dynamic(), capsule).unwrap();
    assert_eq!(world.body_count(), 3);
}

const DT: f32 = 1.0 / 60.0;

fn flat_ground(world: &mut World) {
    world
        .add_body(
            BodyDef::fixed().position(v(0.0, -1.0)),
            ShapeDef::new(Shape::rect(50.0, 1.0).unwrap()),
        )
        .unwrap();
}

/// A tilted capsule dropped on the ground settles lying flat on it, its weight carried by a
/// two-point contact.
#[test]
fn a_dropped_capsule_comes_to_rest_lying_flat() {
    let mut world = World::new(WorldSettings::default());
    flat_ground(&mut world);
    let (half, r) = (0.6, 0.2);
    let capsule = Shape::capsule(v(-half, 0.0), v(half, 0.0), r).unwrap();
    let m = capsule.mass_data(1.0).mass;
    let body = world
        .add_body(
            BodyDef::dynamic().position(v(0.0, 1.5)).angle(0.3),
            ShapeDef::new(capsule),
        )
        .unwrap();
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    let p = world.position(body).unwrap();
    assert!((p.y - r).abs() < 0.01, "centre at {}", p.y);
    let angle = world.angle(body).unwrap();
    assert!(angle.sin().abs() < 0.01, "angle {angle}");
    let contact = world.contacts().next().expect("resting contact");
    assert_eq!(contact.points().len(), 2);
    assert!((contact.normal_force() - m * 10.0).abs() < 0.02 * m * 10.0);
}

/// A ball rolls over the joints of a flat chain of segments, neither sinking nor stopping,
/// and a box rests flat across a joint.
///
/// The chain's segments know their neighbours, so the ride is smooth: tests/physics/chains.rs checks
/// it against the speed and energy a body keeps across the joins.
#[test]
fn a_ball_rolls_over_the_joints_of_a_flat_chain() {
    let mut world = World::new(WorldSettings::default());
    let points: Vec<Vec2> = (0..10).map(|i| v(-4.0 + i as f32, 0.0)).collect();
    let material = ShapeDef::new(Shape::circle(1.0).unwrap());
    let chain = world
        .add_segment_chain(BodyDef::fixed(), &points, &material)
        .unwrap();
    assert_eq!(chain.len(), 9);
    let r = 0.25;
    let speed = 2.0;
    let ball = world
        .add_body(
            BodyDef::dynamic()
                .position(v(-3.5, r))
                .linear_velocity(v(speed, 0.0))
                .angular_velocity(-speed / r),
            ShapeDef::new(Shape::circle(r).unwrap()),
        )
        .unwrap();
    let block = world
        .add_body(
            BodyDef::dynamic().position(v(3.0, 0.25)),
            ShapeDef::new(Shape::rect(0.5, 0.25).unwrap()),
        )
        .unwrap();
    for step in 0..150 {
        world.step(DT).unwrap();
        let p = world.position(ball).unwrap();
        assert!(
            p.y > r - 0.01 && p.y < r + 0.05,
            "step {step}: ball at height {}",
            p.y
        );
        let b = world.position(block).unwrap();
        assert!(
            (b - v(3.0, 0.25)).length() < 0.01,
            "step {step}: box at {b:?}"
        );
        assert!(world.angle(block).unwrap().abs() < 0.005);
    }
    // It crossed the joints at x = -3..=1 and kept most of its speed.
    let p = world.position(ball).unwrap();
    assert!(p.x > 1.0, "the ball stopped at {p:?}");
    assert!(world.linear_velocity(ball).unwrap().x > 0.8 * speed);
}

/// A ball rolling down a valley of segments never passes through it.
#[test]
fn a_ball_stays_on_a_segment_valley() {
    let mut world = World::new(WorldSettings::default());
    let points = [
        v(-6.0, 4.0),
        v(-3.0, 1.0),
        v(-1.0, 0.2),
        v(1.0, 0.2),
        v(3.0, 1.0),
        v(6.0, 4.0),
    ];
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &points,
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let r = 0.3;
    let ball = common::ball(&mut world, v(-5.0, 3.5), r);
    for step in 0..600 {
        world.step(DT).unwrap();
        let c = world.position(ball).unwrap();
        let distance = points
            .windows(2)
            .map(|e| point_segment_distance(c, e[0], e[1]))
            .fold(f32::INFINITY, f32::min);
        assert!(
            distance > r - 0.02,
            "step {step}: centre {distance} from the valley"
        );
        // Above the valley floor line, not through it.
        assert!(c.y > 0.2, "step {step}: fell through at {c:?}");
    }
}

#[test]
fn bad_chains_add_nothing() {
    let mut world = World::new(WorldSettings::default());
    let material = ShapeDef::new(Shape::circle(1.0).unwrap());
    let good = [v(0.0, 0.0), v(1.0, 0.0), v(2.0, 1.0)];
    let cases: [(BodyDef, Vec<Vec2>); 5] = [
        (BodyDef::dynamic(), good.to_vec()),
        (BodyDef::fixed(), vec![v(0.0, 0.0)]),
        (
            BodyDef::fixed(),
            vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 0.0)],
        ),
        (BodyDef::fixed(), vec![v(0.0, 0.0), v(f32::NAN, 0.0)]),
        (
            BodyDef::fixed().position(v(f32::INFINITY, 0.0)),
            good.to_vec(),
        ),
    ];
    for (def, points) in cases {
        assert!(world.add_segment_chain(def, &points, &material).is_err());
        assert_eq!(world.body_count(), 0);
    }
    let bad_material = material.clone().friction(-1.0);
    assert!(world
        .add_segment_chain(BodyDef::fixed(), &good, &bad_material)
        .is_err());
    assert_eq!(world.body_count(), 0);
    let ids = world
        .add_segment_chain(BodyDef::kinematic(), &good, &material)
        .unwrap();
    assert_eq!(ids.len(), 2);
}

/// Capsules, boxes and circles tumbling into a valley of segments.
fn capsule_pile(backend: batch2d::Backend, threads: usize) -> Vec<u32> {
    let mut world = World::new(WorldSettings {
        backend,
        threads,
        ..WorldSettings::default()
    });
    let valley = [
        v(-8.0, 6.0),
        v(-4.0, 0.5),
        v(0.0, 0.0),
        v(4.0, 0.5),
        v(8.0, 6.0),
    ];
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &valley,
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    for i in 0..120 {
        let p = v((i % 12) as f32 * 0.9 - 5.0, 2.0 + (i / 12) as f32 * 0.9);
        let shape = match i % 3 {
            0 => Shape::capsule(v(-0.3, 0.0), v(0.3, 0.0), 0.15).unwrap(),
            1 => Shape::rect(0.3, 0.2).unwrap(),
            _ => Shape::circle(0.3).unwrap(),
        };
        world
            .add_body(
                BodyDef::dynamic().position(p).angle(0.7 * i as f32),
                ShapeDef::new(shape),
            )
            .unwrap();
    }
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    assert!(world.contact_count() > 100);
    common::state_bits(&world)
}

#[test]
fn capsules_and_segments_keep_backends_and_thread_counts_bit_identical() {
    use batch2d::Backend;
    let reference = capsule_pile(Backend::Simd, 1);
    for (backend, threads) in [
        (Backend::Simd, 2),
        (Backend::Simd, 3),
        (Backend::Scalar, 1),
        (Backend::Scalar, 3),
    ] {
        let bits = capsule_pile(backend, threads);
        let differs = common::first_difference(&reference, &bits);
        assert_eq!(differs, None, "{backend:?}, {threads} threads");
    }
}
