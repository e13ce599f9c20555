//! Smooth chains: boxes and balls cross the joins of a segment chain as one surface, chains
//! are one-sided, and chain scenes keep bit identity across backends and thread counts.

use crate::common;

use batch2d::shape::Shape;
use batch2d::{Backend, BodyDef, BodyId, QueryFilter, ShapeDef, Vec2, World, WorldSettings};
use common::{body_state_bits, v};

const DT: f32 = 1.0 / 60.0;

fn frictionless(shape: Shape) -> ShapeDef {
    ShapeDef::new(shape).friction(0.0).restitution(0.0)
}

/// A frictionless box, and a frictionless capsule lying along the chain, sliding at 5 m/s over
/// a flat chain of 200 segments (0.1 m each) keep their speed and stay level over 10 m: with
/// nothing to slow them, any loss is the joins catching them. Plain segments (no ghost
/// vertices) stop such a box within a few joins.
#[test]
fn a_box_and_a_capsule_slide_across_the_joins_of_a_flat_chain() {
    let half_height = 0.25;
    let shapes = [
        Shape::rect(0.5, half_height).unwrap(),
        Shape::capsule(v(-0.25, 0.0), v(0.25, 0.0), half_height).unwrap(),
    ];
    for shape in shapes {
        let mut world = World::new(WorldSettings::default());
        let points: Vec<Vec2> = (0..=200).map(|i| v(-2.0 + 0.1 * i as f32, 0.0)).collect();
        let chain = world
            .add_segment_chain(
                BodyDef::fixed(),
                &points,
                &frictionless(Shape::circle(1.0).unwrap()),
            )
            .unwrap();
        assert_eq!(chain.len(), 200);
        let speed = 5.0;
        let body = world
            .add_body(
                BodyDef::dynamic()
                    .position(v(0.0, half_height))
                    .linear_velocity(v(speed, 0.0)),
                frictionless(shape.clone()),
            )
            .unwrap();
        let mut steps = 0;
        while world.position(body).unwrap().x < 10.0 {
            world.step(DT).unwrap();
            steps += 1;
            assert!(steps < 200, "{shape:?} never got 10 m along the chain");
            let velocity = world.linear_velocity(body).unwrap();
            let angle = world.angle(body).unwrap();
            assert!(
                (velocity.length() - speed).abs() <= 0.005 * speed,
                "{shape:?}, step {steps}: speed {} at {:?}",
                velocity.length(),
                world.position(body).unwrap()
            );
            assert!(
                angle.abs() <= 0.001,
                "{shape:?}, step {steps}: angle {angle}"
            );
        }
        // 10 m at 5 m/s takes 2 s.
        assert!((steps as f32 * DT - 2.0).abs() <= 2.0 * DT, "{steps} steps");
    }
}

/// Height of the sine valley: one period of `h (1 - cos(2 pi x / L))` over `[-L/2, L/2]`.
const VALLEY_HEIGHT: f32 = 0.125;
const VALLEY_LENGTH: f32 = 10.0;

fn valley_points() -> Vec<Vec2> {
    (0..=100)
        .map(|i| {
            let x = -0.5 * VALLEY_LENGTH + VALLEY_LENGTH * i as f32 / 100.0;
            let y = VALLEY_HEIGHT * (1.0 - (std::f32::consts::TAU * x / VALLEY_LENGTH).cos());
            v(x, y)
        })
        .collect()
}

/// A ball of radius `r` resting on the polyline `points` above `x`: its centre is `r` from the
/// segment under `x`, along that segment's upward normal.
fn on_polyline(points: &[Vec2], x: f32, r: f32) -> Vec2 {
    let edge = points
        .windows(2)
        .find(|e| e[0].x <= x && x <= e[1].x)
        .unwrap();
    let (a, b) = (edge[0], edge[1]);
    let t = (x - a.x) / (b.x - a.x);
    let on = a + (b - a) * t;
    let d = b - a;
    let normal = v(-d.y, d.x) * (1.0 / d.length());
    on + normal * r
}

/// A frictionless ball with restitution 0 sliding through a sine valley of 100 segments keeps
/// its energy, kinetic plus potential, within 1% over 7 s, across the valley and up the far
/// side to nearly the height it started from, and back.
///
/// Not all of it is kept even in principle: at each concave join the path turns by the angle
/// `a` between the segments, and restitution 0 takes the velocity component along the new
/// normal, a fraction `sin² a` of the kinetic energy. Here `a <= h (2 pi / L)² 0.1 ~ 0.005`
/// rad, so each crossing of the 50 concave joins costs at most about 0.13%.
#[test]
fn a_ball_keeps_its_energy_through_a_sine_valley() {
    let mut world = World::new(WorldSettings::default());
    let g = -WorldSettings::default().gravity.y;
    let points = valley_points();
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &points,
            &frictionless(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let r = 0.2;
    let start = on_polyline(&points, -3.5, r);
    let ball = world
        .add_body(
            BodyDef::dynamic().position(start),
            frictionless(Shape::circle(r).unwrap()),
        )
        .unwrap();
    // The centre rests at height r over the valley's lowest vertex, (0, 0).
    let energy = |world: &World| {
        let p = world.position(ball).unwrap();
        let u = world.linear_velocity(ball).unwrap();
        let w = world.angular_velocity(ball).unwrap();
        // Per unit mass: a disc's inertia is m r² / 2.
        0.5 * u.length_squared() + 0.25 * r * r * w * w + g * (p.y - r)
    };
    let initial = energy(&world);
    assert!(initial > 0.5, "{initial}");
    let mut furthest_right = f32::MIN;
    // The small-swing period is 2 pi / sqrt(g h (2 pi / L)²), about 8.9 s: in 7 s it crosses,
    // turns back on the far side and heads back down.
    for step in 0..420 {
        world.step(DT).unwrap();
        let e = energy(&world);
        assert!(
            (e - initial).abs() <= 0.01 * initial,
            "step {step}: energy {e}, started with {initial}, ball at {:?}",
            world.position(ball).unwrap()
        );
        furthest_right = furthest_right.max(world.position(ball).unwrap().x);
    }
    // It started at x = -3.5 and climbed the far side to nearly the same height.
    assert!(furthest_right > 3.3, "{furthest_right}");
    assert!(world.position(ball).unwrap().x < furthest_right);
}

/// Chains collide on the left of the direction their points run in: a box dropped on a chain
/// listed left to right lands on it; listed right to left, the box falls through its back.
#[test]
fn a_chain_is_one_sided() {
    for (reversed, lands) in [(false, true), (true, false)] {
        let mut world = World::new(WorldSettings::default());
        let mut points: Vec<Vec2> = (0..=20).map(|i| v(-5.0 + 0.5 * i as f32, 0.0)).collect();
        if reversed {
            points.reverse();
        }
        world
            .add_segment_chain(
                BodyDef::fixed(),
                &points,
                &ShapeDef::new(Shape::circle(1.0).unwrap()),
            )
            .unwrap();
        let falling = world
            .add_body(
                BodyDef::dynamic().position(v(0.3, 2.0)),
                ShapeDef::new(Shape::rect(0.5, 0.25).unwrap()),
            )
            .unwrap();
        for _ in 0..120 {
            world.step(DT).unwrap();
        }
        let y = world.position(falling).unwrap().y;
        if lands {
            assert!(
                (y - 0.25).abs() < 0.01,
                "the box should rest on the chain: {y}"
            );
        } else {
            // Free fall for 2 s from 2 m: 2 - g t² / 2 = -18 m.
            assert!(y < -15.0, "the box should fall through the back: {y}");
        }
    }
}

/// Rays, like bodies, meet a chain only from its front.
#[test]
fn rays_meet_a_chain_from_its_front_only() {
    let mut world = World::new(WorldSettings::default());
    let points = [v(-5.0, 0.0), v(0.0, 0.0), v(5.0, 1.0)];
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &points,
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let filter = QueryFilter::default();
    let down = world
        .cast_ray(v(2.5, 3.0), v(0.0, -6.0), 1.0, filter)
        .unwrap()
        .expect("a ray from above hits the chain");
    // The edge (0, 0) -> (5, 1) is at height 0.5 under x = 2.5.
    assert!((down.point.y - 0.5).abs() < 1e-5, "{down:?}");
    let up = world
        .cast_ray(v(2.5, -3.0), v(0.0, 6.0), 1.0, filter)
        .unwrap();
    assert!(up.is_none(), "a ray from below passes through: {up:?}");
}

/// A loop listed counter-clockwise holds a ball inside; listed clockwise, a ball dropped on
/// it rests on top.
#[test]
fn a_loop_holds_inside_or_outside_by_its_winding() {
    let square = [v(-2.0, 0.0), v(2.0, 0.0), v(2.0, 4.0), v(-2.0, 4.0)];
    let r = 0.3;
    for (clockwise, start, rest_y) in [(false, v(0.5, 3.0), r), (true, v(0.5, 6.0), 4.0 + r)] {
        let mut world = World::new(WorldSettings::default());
        let mut points = square.to_vec();
        if clockwise {
            points.reverse();
        }
        let edges = world
            .add_segment_loop(
                BodyDef::fixed(),
                &points,
                &ShapeDef::new(Shape::circle(1.0).unwrap()),
            )
            .unwrap();
        assert_eq!(edges.len(), 4);
        let ball = common::ball(&mut world, start, r);
        for _ in 0..180 {
            world.step(DT).unwrap();
        }
        let y = world.position(ball).unwrap().y;
        assert!(
            (y - rest_y).abs() < 0.01,
            "clockwise {clockwise}: ball at {y}"
        );
    }
}

/// Each segment carries its own material: a box on a frictionless edge slides on, one on a
/// rough edge stops.
#[test]
fn chain_segments_carry_their_own_materials() {
    let mut world = World::new(WorldSettings::default());
    let points = [v(-10.0, 0.0), v(0.0, 0.0), v(10.0, 0.0)];
    let materials = [
        frictionless(Shape::circle(1.0).unwrap()),
        ShapeDef::new(Shape::circle(1.0).unwrap()).friction(1.0),
    ];
    world
        .add_segment_chain_with_materials(BodyDef::fixed(), &points, &materials)
        .unwrap();
    let make_box = |world: &mut World, x: f32| {
        world
            .add_body(
                BodyDef::dynamic()
                    .position(v(x, 0.25))
                    .linear_velocity(v(2.0, 0.0)),
                ShapeDef::new(Shape::rect(0.5, 0.25).unwrap()).friction(1.0),
            )
            .unwrap()
    };
    let slick = make_box(&mut world, -8.0);
    let rough = make_box(&mut world, 3.0);
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    // Friction mixes to sqrt(0 * 1) = 0 on the first edge and 1 on the second: a box at
    // 2 m/s with friction 1 stops within 2² / (2 g) = 0.2 m.
    assert!((world.linear_velocity(slick).unwrap().x - 2.0).abs() < 0.01);
    assert!(world.linear_velocity(rough).unwrap().length() < 0.01);
    assert!(world.position(rough).unwrap().x < 3.25);
}

/// Boxes, capsules and balls falling into a chain valley and a loop.
fn chain_scene(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    let material = ShapeDef::new(Shape::circle(1.0).unwrap()).friction(0.6);
    let valley: Vec<Vec2> = (0..=40)
        .map(|i| {
            let x = -8.0 + 0.4 * i as f32;
            v(x, 0.08 * x * x)
        })
        .collect();
    world
        .add_segment_chain(BodyDef::fixed(), &valley, &material)
        .unwrap();
    let bowl = [
        v(10.0, 4.0),
        v(10.0, 0.0),
        v(16.0, 0.0),
        v(16.0, 4.0),
        v(13.0, -1.0),
    ];
    world
        .add_segment_loop(BodyDef::fixed(), &bowl, &material)
        .unwrap();
    for i in 0..60 {
        let x = -5.0 + (i % 10) as f32 + if i >= 30 { 16.0 } else { 0.0 };
        let p = v(
            x * if i >= 30 { 0.5 } else { 1.0 },
            3.0 + (i / 10 % 3) as f32,
        );
        let shape = match i % 3 {
            0 => Shape::capsule(v(-0.3, 0.0), v(0.3, 0.0), 0.15).unwrap(),
            1 => Shape::rect(0.3, 0.2).unwrap(),
            _ => Shape::circle(0.25).unwrap(),
        };
        world
            .add_body(BodyDef::dynamic().position(p), ShapeDef::new(shape))
            .unwrap();
    }
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    world
}

#[test]
fn chain_scenes_are_bit_identical_across_backends_and_threads() {
    let run = |backend, threads| {
        body_state_bits(&chain_scene(WorldSettings {
            backend,
            threads,
            ..WorldSettings::default()
        }))
    };
    let reference = run(Backend::Scalar, 1);
    assert_eq!(run(Backend::Simd, 1), reference);
    assert_eq!(run(Backend::Scalar, 2), reference);
    assert_eq!(run(Backend::Simd, 2), reference);
}

#[test]
fn bad_chains_are_refused_with_nothing_added() {
    let mut world = World::new(WorldSettings::default());
    let material = ShapeDef::new(Shape::circle(1.0).unwrap());
    let keep: BodyId = common::ball(&mut world, v(0.0, 5.0), 0.5);
    let nan = v(f32::NAN, 0.0);
    let chains: [&[Vec2]; 5] = [
        &[],
        &[v(0.0, 0.0)],
        &[v(0.0, 0.0), v(1.0, 0.0), nan],
        &[v(0.0, 0.0), v(1.0, 0.0), v(1.0, 0.0), v(2.0, 0.0)],
        &[v(0.0, 0.0), v(f32::INFINITY, 0.0)],
    ];
    for points in chains {
        assert!(world
            .add_segment_chain(BodyDef::fixed(), points, &material)
            .is_err());
        assert!(world
            .add_segment_loop(BodyDef::fixed(), points, &material)
            .is_err());
    }
    // A loop needs 3 points, and its closing edge must be a valid segment too.
    let loops: [&[Vec2]; 2] = [
        &[v(0.0, 0.0), v(1.0, 0.0)],
        &[v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 0.0)],
    ];
    for points in loops {
        assert!(world
            .add_segment_loop(BodyDef::fixed(), points, &material)
            .is_err());
    }
    // Materials must match the edges one for one.
    let three = [v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0)];
    for count in [0, 1, 3] {
        let materials = vec![material.clone(); count];
        assert!(world
            .add_segment_chain_with_materials(BodyDef::fixed(), &three, &materials)
            .is_err());
    }
    let two = vec![material.clone(); 2];
    assert!(world
        .add_segment_loop_with_materials(BodyDef::fixed(), &three, &two)
        .is_err());
    assert!(world
        .add_segment_chain(BodyDef::dynamic(), &three, &material)
        .is_err());
    assert_eq!(world.body_count(), 1);
    assert!(world.position(keep).is_ok());
    // A ghost on top of its end is refused by the shape itself.
    assert!(Shape::chain_segment(Some(v(0.0, 0.0)), v(0.0, 0.0), v(1.0, 0.0), None).is_err());
    assert!(Shape::chain_segment(None, v(0.0, 0.0), v(1.0, 0.0), Some(nan)).is_err());
}

/// A frictionless box sliding through the sine valley keeps its energy (moving, turning and
/// potential, above its resting height) within 1% over 7 s: at the concave joins it meets the
/// next segment before reaching it, rather than sinking into it and being pushed out.
#[test]
fn a_box_keeps_its_energy_through_a_sine_valley() {
    let mut world = World::new(WorldSettings::default());
    let g = -WorldSettings::default().gravity.y;
    let points = valley_points();
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &points,
            &frictionless(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let (half_width, half_height) = (0.2, 0.1);
    let start = on_polyline(&points, -3.45, half_height);
    // Level with the segment from x = -3.5 to -3.4 it starts on.
    let slope = points[16] - points[15];
    let body = world
        .add_body(
            BodyDef::dynamic()
                .position(start)
                .angle(slope.y.atan2(slope.x)),
            frictionless(Shape::rect(half_width, half_height).unwrap()),
        )
        .unwrap();
    // Per unit mass; a box's inertia is m (w² + h²) / 3 for half extents w and h. The centre
    // rests at height h over the valley's lowest vertex, (0, 0).
    let inertia = (half_width * half_width + half_height * half_height) / 3.0;
    let energy = |world: &World| {
        let p = world.position(body).unwrap();
        let u = world.linear_velocity(body).unwrap();
        let w = world.angular_velocity(body).unwrap();
        0.5 * u.length_squared() + 0.5 * inertia * w * w + g * (p.y - half_height)
    };
    let initial = energy(&world);
    let mut furthest_right = f32::MIN;
    for step in 0..420 {
        world.step(DT).unwrap();
        let e = energy(&world);
        assert!(
            (e - initial).abs() <= 0.01 * initial,
            "step {step}: energy {e}, started with {initial}"
        );
        furthest_right = furthest_right.max(world.position(body).unwrap().x);
    }
    assert!(furthest_right > 3.3, "{furthest_right}");
}
