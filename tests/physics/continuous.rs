//! Continuous collision: fast bodies never pass through a thin fixed wall, end up outside it,
//! and do so identically on every thread count and backend.

use crate::common;

use batch2d::{
    distance, Backend, BodyDef, BodyId, Shape, ShapeDef, Transform, Vec2, World, WorldSettings,
};
use common::Rng;

const DT: f32 = 1.0 / 60.0;
/// The wall: 0.1 m thick, centred on x = 0, tall enough that nothing slides off its end
/// within a test.
const WALL_HALF_WIDTH: f32 = 0.05;
const WALL_HALF_HEIGHT: f32 = 200.0;

fn wall_world(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    world
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::rect(WALL_HALF_WIDTH, WALL_HALF_HEIGHT).unwrap()),
        )
        .unwrap();
    world
}

/// A projectile launched at the wall from the left: it aims at a random height on the wall's
/// face from a random angle of approach (up to `max_angle` from the wall's normal), starting a random fraction of a step further back so
/// that impacts fall at every phase of a step.
fn launch(
    world: &mut World,
    rng: &mut Rng,
    shape: Shape,
    speed: f32,
    spin: f32,
    bullet: bool,
    max_angle: f32,
) -> BodyId {
    let angle = rng.range(-max_angle, max_angle);
    let dir = Vec2::new(angle.cos(), angle.sin());
    let aim = Vec2::new(-WALL_HALF_WIDTH, rng.range(-2.0, 2.0));
    let back = 1.0 + speed * DT * rng.range(0.0, 3.0);
    world
        .add_body(
            BodyDef::dynamic()
                .position(aim - dir * back)
                .angle(rng.range(-3.0, 3.0))
                .linear_velocity(dir * speed)
                .angular_velocity(spin)
                .bullet(bullet),
            ShapeDef::new(shape),
        )
        .unwrap()
}

/// Steps `world` and checks after every step that `body` is still left of the wall and not
/// sunk into it by more than `sink`.
fn assert_never_passes(world: &mut World, body: BodyId, steps: usize, sink: f32, what: &str) {
    let wall = Shape::rect(WALL_HALF_WIDTH, WALL_HALF_HEIGHT).unwrap();
    for step in 0..steps {
        world.step(DT).unwrap();
        let p = world.position(body).unwrap();
        assert!(
            p.x < 0.0,
            "{what}: centre {p:?} past the wall at step {step}"
        );
        let shape = world.shape(body).unwrap().clone();
        let xf = world.transform(body).unwrap();
        let depth = batch2d::penetration(&shape, xf, &wall, Transform::IDENTITY)
            .unwrap()
            .map_or(0.0, |p| p.depth);
        assert!(
            depth <= sink,
            "{what}: sunk {depth} m into the wall at step {step}"
        );
    }
}

#[test]
fn a_fast_circle_never_passes_through_a_thin_wall() {
    let mut rng = Rng(2024);
    for i in 0..200 {
        let mut world = wall_world(WorldSettings::default());
        let ball = launch(
            &mut world,
            &mut rng,
            Shape::circle(0.05).unwrap(),
            300.0,
            0.0,
            false,
            1.3,
        );
        assert_never_passes(&mut world, ball, 8, 0.05, &format!("circle {i}"));
    }
}

#[test]
fn a_fast_spinning_box_never_passes_through_a_thin_wall() {
    let mut rng = Rng(77);
    for i in 0..200 {
        let mut world = wall_world(WorldSettings::default());
        let spin = rng.range(-60.0, 60.0);
        let crate_ = launch(
            &mut world,
            &mut rng,
            Shape::rect(0.1, 0.1).unwrap(),
            200.0,
            spin,
            false,
            1.3,
        );
        assert_never_passes(&mut world, crate_, 8, 0.1, &format!("box {i}"));
    }
}

/// The wall of [`wall_world`] built of 400 static tiles 1 m tall, stacked, with 1000 more tiles
/// in a floor far below: fast bodies find the tiles near their path through a grid of the
/// static bodies, not by testing each.
fn tiled_wall_world() -> World {
    let mut world = World::new(WorldSettings::default());
    let tile = |half: Vec2| ShapeDef::new(Shape::rect(half.x, half.y).unwrap());
    for k in 0..400 {
        let y = -WALL_HALF_HEIGHT + 0.5 + k as f32;
        let at = BodyDef::fixed().position(Vec2::new(0.0, y));
        world
            .add_body(at, tile(Vec2::new(WALL_HALF_WIDTH, 0.5)))
            .unwrap();
    }
    for k in 0..1000 {
        let at = BodyDef::fixed().position(Vec2::new(k as f32 - 500.0, -300.0));
        world.add_body(at, tile(Vec2::new(0.5, 0.5))).unwrap();
    }
    world
}

#[test]
fn a_fast_body_never_passes_through_a_wall_of_many_static_tiles() {
    let mut rng = Rng(4242);
    for i in 0..60 {
        let mut world = tiled_wall_world();
        let (shape, speed, spin, sink) = match i % 2 {
            0 => (Shape::circle(0.05).unwrap(), 300.0, 0.0, 0.05),
            _ => (
                Shape::rect(0.1, 0.1).unwrap(),
                200.0,
                rng.range(-60.0, 60.0),
                0.1,
            ),
        };
        let body = launch(&mut world, &mut rng, shape, speed, spin, false, 1.3);
        assert_never_passes(&mut world, body, 8, sink, &format!("body {i}"));
    }
}

/// A wall moved into a fast body's path, or added there, between steps stops it, and one
/// removed from it no longer does: continuous collision keeps its list of static bodies from
/// step to step, and must see each change. A decoy moves fast far away from the first step on,
/// so that the list exists before the change.
#[test]
fn a_wall_moved_added_or_removed_between_steps_is_swept_where_it_now_is() {
    let mut rng = Rng(77);
    let wall_shape = || ShapeDef::new(Shape::rect(WALL_HALF_WIDTH, WALL_HALF_HEIGHT).unwrap());
    for i in 0..30 {
        let mut world = World::new(WorldSettings::default());
        let decoy = BodyDef::dynamic()
            .position(Vec2::new(-5000.0, 5000.0))
            .linear_velocity(Vec2::new(300.0, 0.0));
        world
            .add_body(decoy, ShapeDef::new(Shape::circle(0.05).unwrap()))
            .unwrap();
        let far = Vec2::new(0.0, 3000.0);
        let change = i % 3;
        let wall = match change {
            0 => Some(
                world
                    .add_body(BodyDef::fixed().position(far), wall_shape())
                    .unwrap(),
            ),
            1 => None,
            _ => Some(world.add_body(BodyDef::fixed(), wall_shape()).unwrap()),
        };
        for _ in 0..2 {
            world.step(DT).unwrap();
        }
        match (change, wall) {
            (0, Some(wall)) => world.set_position(wall, Vec2::ZERO).unwrap(),
            (1, None) => drop(world.add_body(BodyDef::fixed(), wall_shape()).unwrap()),
            (_, Some(wall)) => world.remove_body(wall).unwrap(),
            _ => unreachable!(),
        }
        // Spinning boxes: the speculative contact alone lets some of them through.
        let shape = Shape::rect(0.1, 0.1).unwrap();
        let spin = rng.range(-60.0, 60.0);
        let body = launch(&mut world, &mut rng, shape, 200.0, spin, false, 1.3);
        if change == 2 {
            for _ in 0..8 {
                world.step(DT).unwrap();
            }
            let p = world.position(body).unwrap();
            assert!(p.x > 1.0, "body {i} held back at {p:?} by a removed wall");
        } else {
            assert_never_passes(&mut world, body, 8, 0.1, &format!("body {i}"));
        }
    }
}

/// How deep `shape` at `xf` is inside the wall.
fn wall_depth(shape: &Shape, xf: Transform) -> f32 {
    let wall = Shape::rect(WALL_HALF_WIDTH, WALL_HALF_HEIGHT).unwrap();
    batch2d::penetration(shape, xf, &wall, Transform::IDENTITY)
        .unwrap()
        .map_or(0.0, |p| p.depth)
}

fn zero_gravity() -> WorldSettings {
    WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    }
}

#[test]
fn a_head_on_body_stops_at_the_wall_surface() {
    let mut rng = Rng(3);
    for i in 0..40 {
        let mut world = wall_world(zero_gravity());
        let shape = if i % 2 == 0 {
            Shape::circle(0.05).unwrap()
        } else {
            Shape::rect(0.1, 0.1).unwrap()
        };
        let start = Vec2::new(
            -1.0 - 300.0 * DT * rng.range(0.0, 2.0),
            rng.range(-2.0, 2.0),
        );
        let body = world
            .add_body(
                BodyDef::dynamic()
                    .position(start)
                    .linear_velocity(Vec2::new(300.0, 0.0)),
                ShapeDef::new(shape.clone()),
            )
            .unwrap();
        for _ in 0..4 {
            world.step(DT).unwrap();
        }
        // Resting on the face: within the solver's tolerance of it (a few slops), stopped.
        let xf = world.transform(body).unwrap();
        let gap = distance(
            &shape,
            xf,
            &Shape::rect(WALL_HALF_WIDTH, WALL_HALF_HEIGHT).unwrap(),
            Transform::IDENTITY,
        )
        .unwrap()
        .distance;
        assert!(
            wall_depth(&shape, xf) <= 0.01,
            "body {i} sunk into the wall"
        );
        assert!(gap <= 0.02, "body {i} stopped {gap} m short of the wall");
        assert!(world.linear_velocity(body).unwrap().x.abs() < 0.5);
    }
}

#[test]
fn a_body_stopped_at_the_wall_is_free_to_leave_it() {
    let mut rng = Rng(5);
    for i in 0..50 {
        let mut world = wall_world(zero_gravity());
        let shape = if i % 2 == 0 {
            Shape::circle(0.05).unwrap()
        } else {
            Shape::rect(0.1, 0.1).unwrap()
        };
        let body = launch(&mut world, &mut rng, shape.clone(), 300.0, 0.0, true, 1.3);
        for _ in 0..6 {
            world.step(DT).unwrap();
        }
        // Oblique hits make bodies roll or tumble along the wall, and fast spin lets the
        // contact solver sink them a little; continuous collision keeps the centre out.
        let depth = wall_depth(&shape, world.transform(body).unwrap());
        assert!(depth <= 0.05, "body {i} sunk {depth} m into the wall");
        // Pulled away, it leaves at the speed it is given and ends clear of the wall:
        // nothing holds it inside.
        world
            .set_linear_velocity(body, Vec2::new(-2.0, 0.0))
            .unwrap();
        world.set_angular_velocity(body, 0.0).unwrap();
        let x0 = world.position(body).unwrap().x;
        for _ in 0..30 {
            world.step(DT).unwrap();
        }
        let moved = x0 - world.position(body).unwrap().x;
        assert!(
            (moved - 1.0).abs() < 0.01,
            "body {i} moved {moved} m, not 1 m"
        );
        assert_eq!(wall_depth(&shape, world.transform(body).unwrap()), 0.0);
    }
}

#[test]
fn continuous_collision_is_identical_across_threads_and_backends() {
    let run = |threads: usize, backend: Backend| {
        let mut world = wall_world(WorldSettings {
            threads,
            backend,
            ..WorldSettings::default()
        });
        let mut rng = Rng(9);
        let bodies: Vec<BodyId> = (0..300)
            .map(|i| {
                let shape = if i % 2 == 0 {
                    Shape::circle(0.05).unwrap()
                } else {
                    Shape::rect(0.1, 0.1).unwrap()
                };
                let spin = rng.range(-40.0, 40.0);
                launch(&mut world, &mut rng, shape, 250.0, spin, i % 3 == 0, 1.3)
            })
            .collect();
        for _ in 0..20 {
            world.step(DT).unwrap();
        }
        assert_eq!(bodies.len() + 1, world.body_count());
        common::state_bits(&world)
    };
    let reference = run(1, Backend::Simd);
    for (threads, backend) in [
        (2, Backend::Simd),
        (3, Backend::Simd),
        (1, Backend::Scalar),
        (3, Backend::Scalar),
    ] {
        let bits = run(threads, backend);
        let differs = common::first_difference(&reference, &bits);
        assert_eq!(differs, None, "{threads} threads, {backend:?}");
    }
}

/// The law of a floor: a box resting on a 2 m thick ground, or dropped onto it from 5 m, never
/// ends a step below the ground's surface, for any step length up to the longest supported,
/// 1 s. Tolerance: `linear_slop`, plus the compression of the soft contact under the box's
/// weight, `g / omega^2` for its spring against a static body (twice the contact frequency,
/// which is capped at a quarter of the substep rate: long steps make soft springs). A longer
/// step is refused and changes nothing.
#[test]
fn a_box_stays_on_the_ground_for_steps_up_to_a_second_and_longer_ones_are_refused() {
    let settings = WorldSettings::default();
    for dt in [1.0 / 60.0, 0.1, 0.25, 0.5, 1.0] {
        let substep_rate = settings.substeps as f32 / dt;
        let hertz = 2.0 * settings.contact_hertz.min(0.25 * substep_rate);
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let slop = settings.linear_slop + settings.gravity.length() / (omega * omega);
        for half in [0.5f32, 0.05] {
            for height in [half, 5.0] {
                let mut world = World::new(WorldSettings::default());
                common::ground(&mut world);
                let def = BodyDef::dynamic().position(Vec2::new(0.0, height));
                let id = world
                    .add_body(def, ShapeDef::new(Shape::rect(half, half).unwrap()))
                    .unwrap();
                for step in 0..10 {
                    world.step(dt).unwrap();
                    let xf = world.transform(id).unwrap();
                    let lowest = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                        .map(|(x, y)| xf.apply(Vec2::new(x * half, y * half)).y)
                        .into_iter()
                        .fold(f32::INFINITY, f32::min);
                    assert!(
                        lowest >= -slop,
                        "dt {dt}, box {half}, from {height}: lowest point {lowest} at step {step}"
                    );
                }
                let before = world.transform(id).unwrap();
                for too_long in [1.0 + 2.0 * f32::EPSILON, 2.0, 10.0] {
                    assert!(world.step(too_long).is_err(), "step({too_long})");
                }
                assert_eq!(world.transform(id).unwrap(), before);
            }
        }
    }
}

/// A 0.05 m bullet at rest at `at`.
fn bullet_at(world: &mut World, at: Vec2) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(at).bullet(true),
            ShapeDef::new(Shape::circle(0.05).unwrap()),
        )
        .unwrap()
}

/// Checks over `steps` steps that the bullets `a` (from the left) and `b` (from the right)
/// never pass through each other, and never overlap by more than `sink`. Met off centre they
/// may swerve round each other: past each other along x, they must then be apart along y by
/// their diameter (0.1 m), which bullets that passed through each other are not.
fn assert_never_cross(world: &mut World, [a, b]: [BodyId; 2], steps: usize, sink: f32, what: &str) {
    for step in 0..steps {
        world.step(DT).unwrap();
        let (xa, xb) = (world.transform(a).unwrap(), world.transform(b).unwrap());
        let (sa, sb) = (world.shape(a).unwrap(), world.shape(b).unwrap());
        let round = (xa.p.y - xb.p.y).abs() >= 0.1 - sink;
        assert!(
            xa.p.x < xb.p.x || round,
            "{what}: through each other at step {step}"
        );
        let depth = batch2d::penetration(sa, xa, sb, xb)
            .unwrap()
            .map_or(0.0, |p| p.depth);
        assert!(
            depth <= sink,
            "{what}: {depth} m into each other at step {step}"
        );
    }
}

/// Two 0.05 m bullets at rest, 3 to 4 m apart, each pushed at the other by a force that
/// takes it to 300 m/s within the step: at the step's start they are still, so no contact
/// reaches across the gap, and each covers 2.5 m in the step. The sweep of each against the
/// other's motion stops both where they meet; the next step's contact then conserves their
/// momentum (zero) and ends their approach.
#[test]
fn two_bullets_launched_at_each_other_meet() {
    let mut rng = Rng(21);
    for case in 0..20 {
        let mut world = World::new(zero_gravity());
        let gap = rng.range(3.0, 4.0);
        let y = rng.range(-0.03, 0.03); // off centre by up to most of a radius
        let a = bullet_at(&mut world, Vec2::new(-0.5 * gap, 0.0));
        let b = bullet_at(&mut world, Vec2::new(0.5 * gap, y));
        let push = world.mass(a).unwrap() * 300.0 / DT;
        world.apply_force(a, Vec2::new(push, 0.0)).unwrap();
        world.apply_force(b, Vec2::new(-push, 0.0)).unwrap();
        assert_never_cross(&mut world, [a, b], 10, 0.02, &format!("case {case}"));
        let (va, vb) = (
            world.linear_velocity(a).unwrap(),
            world.linear_velocity(b).unwrap(),
        );
        let momentum = va + vb; // equal masses
        assert!(momentum.length() < 0.1, "case {case}: {momentum:?}");
        let axis = world.position(b).unwrap() - world.position(a).unwrap();
        let closing = -(vb - va).dot(axis) / axis.length();
        assert!(closing < 0.5, "case {case}: closing at {closing} m/s");
    }
}

/// Fired at each other at 300 m/s each, the bullets meet too; at constant speed the contact,
/// whose reach grows with the pair's closing speed, already sees them coming.
#[test]
fn two_bullets_fired_at_each_other_meet() {
    let mut world = World::new(zero_gravity());
    let a = bullet_at(&mut world, Vec2::new(-2.0, 0.0));
    let b = bullet_at(&mut world, Vec2::new(2.0, 0.0));
    world.set_linear_velocity(a, Vec2::new(300.0, 0.0)).unwrap();
    world
        .set_linear_velocity(b, Vec2::new(-300.0, 0.0))
        .unwrap();
    assert_never_cross(&mut world, [a, b], 10, 0.02, "fired");
}

/// A bullet at rest pushed to 300 m/s within a step at a thin plank (4 cm thick, not a
/// bullet) moving at it at 20 m/s: it ends that step short of the plank, not through it, and
/// the next step's contact hands its momentum to the plank, turning it round; in the steps
/// after, it stays on its side of the (now spinning) plank.
#[test]
fn a_bullet_launched_at_a_fast_thin_plank_hits_it() {
    let mut rng = Rng(22);
    for case in 0..20 {
        let mut world = World::new(zero_gravity());
        let plank = world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(rng.range(1.0, 2.0), 0.0))
                    .linear_velocity(Vec2::new(-20.0, 0.0)),
                ShapeDef::new(Shape::rect(0.02, 1.0).unwrap()),
            )
            .unwrap();
        let bullet = bullet_at(&mut world, Vec2::new(-1.0, rng.range(-0.5, 0.5)));
        let (mb, mp) = (world.mass(bullet).unwrap(), world.mass(plank).unwrap());
        let push = mb * 300.0 / DT;
        world.apply_force(bullet, Vec2::new(push, 0.0)).unwrap();
        let p0 = Vec2::new(push * DT, 0.0) + world.linear_velocity(plank).unwrap() * mp;
        world.step(DT).unwrap();
        let (xb, xp) = (
            world.transform(bullet).unwrap(),
            world.transform(plank).unwrap(),
        );
        let (sb, sp) = (
            world.shape(bullet).unwrap().clone(),
            world.shape(plank).unwrap().clone(),
        );
        let gap = distance(&sb, xb, &sp, xp).unwrap().distance;
        assert!(
            xb.p.x < xp.p.x && gap > 0.0,
            "case {case}: through the plank"
        );
        assert!(
            gap < 0.01,
            "case {case}: stopped {gap} m short of the plank"
        );
        world.step(DT).unwrap();
        let vb = world.linear_velocity(bullet).unwrap();
        let vp = world.linear_velocity(plank).unwrap();
        let p1 = vb * mb + vp * mp;
        assert!(
            (p1 - p0).length() < 1e-3 * p0.length(),
            "case {case}: {p0:?} -> {p1:?}"
        );
        // The bullet carries more momentum than the plank: the plank turns round.
        assert!(vp.x > 0.0, "case {case}: plank at {vp:?}");
        // Hit off centre, the plank also spins, and the bullet, still faster along x, rides
        // on its turning face until the face turns away or the bullet passes its end. It
        // never sinks in, and while alongside the plank (its centre within the plank's
        // length) it stays on the left: a bullet that went through would be on the right.
        for step in 0..10 {
            world.step(DT).unwrap();
            let (xb, xp) = (
                world.transform(bullet).unwrap(),
                world.transform(plank).unwrap(),
            );
            let depth = batch2d::penetration(&sb, xb, &sp, xp)
                .unwrap()
                .map_or(0.0, |p| p.depth);
            assert!(
                depth <= 0.005,
                "case {case}: {depth} m into the plank {step} steps later"
            );
            let local = xp.q.inv_rotate(xb.p - xp.p);
            if local.y.abs() > 1.0 {
                break; // Past the plank's end, the bullet may go round it.
            }
            assert!(
                local.x < -0.02,
                "case {case}: through the plank {step} steps later, at {local:?} in its frame"
            );
        }
    }
}

#[test]
fn bullets_against_moving_bodies_are_identical_across_threads_and_backends() {
    let run = |threads: usize, backend: Backend| {
        let mut world = World::new(WorldSettings {
            threads,
            backend,
            ..zero_gravity()
        });
        let mut rng = Rng(23);
        // Bullets and plain bodies fired across a square from every side.
        let bodies: Vec<BodyId> = (0..200)
            .map(|i| {
                let angle = rng.range(-3.2, 3.2);
                let dir = Vec2::new(angle.cos(), angle.sin());
                let shape = if i % 2 == 0 {
                    Shape::circle(0.05).unwrap()
                } else {
                    Shape::rect(0.02, 0.4).unwrap()
                };
                let def = BodyDef::dynamic()
                    .position(
                        dir * -rng.range(2.0, 6.0)
                            + Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)),
                    )
                    .angle(rng.range(-3.0, 3.0))
                    .linear_velocity(dir * rng.range(20.0, 300.0))
                    .bullet(i % 3 != 2);
                world.add_body(def, ShapeDef::new(shape)).unwrap()
            })
            .collect();
        for _ in 0..10 {
            world.step(DT).unwrap();
        }
        assert_eq!(bodies.len(), world.body_count());
        common::state_bits(&world)
    };
    let reference = run(1, Backend::Simd);
    for (threads, backend) in [
        (2, Backend::Simd),
        (1, Backend::Scalar),
        (2, Backend::Scalar),
    ] {
        let bits = run(threads, backend);
        let differs = common::first_difference(&reference, &bits);
        assert_eq!(differs, None, "{threads} threads, {backend:?}");
    }
}
