//! The character mover against the geometry it moves through: level ground, walls, slopes,
//! steps, chains, moving platforms and dynamic bodies it pushes.

use crate::common::{at, v};
use batch2d::penetration;
use batch2d::shape::Shape;
use batch2d::{
    BodyDef, BodyId, CharacterController, CharacterMove, Error, Rot, ShapeDef, Transform, Vec2,
    World, WorldSettings,
};

const DT: f32 = 1.0 / 60.0;
/// The capsule's radius and the half length of its core: 1 m tall.
const RADIUS: f32 = 0.2;
const HALF: f32 = 0.3;
/// The band a sweep stops in, from the surface it meets (1.25 to 2.5 mm).
const BAND: f32 = 0.0025;

fn capsule() -> Shape {
    Shape::capsule(v(0.0, -HALF), v(0.0, HALF), RADIUS).unwrap()
}

/// A world without gravity (the character's own wished motion stands for it) with level
/// ground whose top is y = 0 from x = -50 to 50.
fn ground_world() -> World {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    world
        .add_body(
            BodyDef::fixed().position(v(0.0, -0.5)),
            ShapeDef::new(Shape::rect(50.0, 0.5).unwrap()),
        )
        .unwrap();
    world
}

/// Moves the character at `p` by `wish`, returning the move and the new position.
fn step(world: &World, c: &CharacterController, p: Vec2, wish: Vec2) -> (CharacterMove, Vec2) {
    let moved = world
        .move_character(c, &capsule(), at(p), wish, DT)
        .unwrap();
    let next = p + moved.translation;
    (moved, next)
}

/// Standing 2 mm above the ground's top (inside the band).
const STANDING: f32 = HALF + RADIUS + 0.002;

/// Walking on level ground with gravity's pull in its wish, the character keeps its height
/// exactly, moves exactly the level part of its wish each step, and stays grounded.
#[test]
fn on_level_ground_it_keeps_its_height_and_moves_as_asked() {
    let world = ground_world();
    let c = CharacterController::new();
    let mut p = v(-5.0, STANDING);
    let mut x = p.x;
    for _ in 0..200 {
        let (moved, next) = step(&world, &c, p, v(0.05, -0.1));
        x += 0.05;
        assert_eq!(next.y, STANDING);
        assert_eq!(next.x, x);
        assert!(moved.grounded);
        let ground = moved.ground.unwrap();
        assert!((ground.normal.y - 1.0).abs() < 1e-6, "{ground:?}");
        p = next;
    }
}

/// Off the ground, nothing under it within a few millimetres, it is not grounded.
#[test]
fn in_the_air_it_is_not_grounded() {
    let world = ground_world();
    let c = CharacterController::new();
    let (moved, next) = step(&world, &c, v(0.0, 2.0), v(0.1, 0.0));
    assert!(!moved.grounded && moved.ground.is_none() && moved.hits.is_empty());
    assert_eq!(next, v(0.1, 2.0));
}

/// Flying into a wall (no ground, no gravity), the character stops at it and then moves by
/// the tangent part of its wish each step, `wish - n (wish . n)`, for the wall's normal `n`:
/// here a wall leaning over it, facing down and to the left.
#[test]
fn against_a_wall_it_slides_with_the_tangent_part_of_its_motion() {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let angle: f32 = 0.5;
    // A thick slab whose left face passes through (2, 0), its outward normal n.
    let n = v(-angle.cos(), -angle.sin());
    let wall = world
        .add_body(
            BodyDef::fixed()
                .position(v(2.0, 0.0) - n * 1.0)
                .angle(angle),
            ShapeDef::new(Shape::rect(1.0, 20.0).unwrap()),
        )
        .unwrap();
    let c = CharacterController::new();
    let wish = v(0.2, 0.05);
    let tangent = wish - n * wish.dot(n);
    let mut p = v(0.0, 0.0);
    let mut touching = 0;
    for _ in 0..60 {
        let (moved, next) = step(&world, &c, p, wish);
        if moved.hits.iter().any(|h| h.body == wall) {
            let hit = moved.hits.iter().find(|h| h.body == wall).unwrap();
            assert!((hit.normal - n).length() < 1e-4, "{hit:?}");
            if touching > 0 {
                let d = next - p;
                assert!((d - tangent).length() < 1e-5, "{d:?} vs {tangent:?}");
            }
            touching += 1;
        }
        p = next;
    }
    assert!(touching > 30, "{touching}");
    // It ends within the band of the wall, never through it.
    let pen = penetration(
        &Shape::rect(1.0, 20.0).unwrap(),
        world.transform(wall).unwrap(),
        &capsule(),
        at(p),
    )
    .unwrap();
    assert!(pen.is_none(), "{pen:?}");
}

/// Level ground from x = -50 to 0, then a slope rising at `angle` from (0, 0) for 20 m, as
/// one fixed body each (a thick box and a thick slab).
fn slope_world(angle: f32) -> World {
    let mut world = ground_world();
    let (c, s) = (angle.cos(), angle.sin());
    // A slab 1 m thick whose top face runs from (0, 0) along (c, s).
    let top_centre = v(10.0 * c, 10.0 * s);
    world
        .add_body(
            BodyDef::fixed()
                .position(top_centre + v(s, -c) * 0.5)
                .angle(angle),
            ShapeDef::new(Shape::rect(10.0, 0.5).unwrap()),
        )
        .unwrap();
    world
}

/// The height of the capsule's centre resting on a surface of slope `angle` with its lowest
/// point over `x`'s surface point: its bottom circle's centre is `RADIUS` (plus the gap) from
/// the surface line along the normal.
fn resting_height(angle: f32, x: f32, gap: f32) -> f32 {
    x * angle.tan() + (RADIUS + gap) / angle.cos() + HALF
}

/// Walking right into a slope with gravity's pull in its wish: up a 30 degree slope (below the
/// 45 degree limit) it climbs, standing on it at the height the slope has under it; into a
/// 60 degree slope it does not rise at all.
#[test]
fn it_walks_up_slopes_up_to_the_limit_and_no_steeper() {
    let c = CharacterController::new().max_slope_angle(45f32.to_radians());
    for (degrees, climbs) in [(30.0f32, true), (60.0, false)] {
        let angle = degrees.to_radians();
        let world = slope_world(angle);
        let mut p = v(-1.0, STANDING);
        let mut highest = p.y;
        for _ in 0..150 {
            let (moved, next) = step(&world, &c, p, v(0.05, -0.1));
            highest = highest.max(next.y);
            p = next;
            if climbs {
                assert!(moved.grounded, "{moved:?}");
            }
        }
        if climbs {
            // 150 steps of 5 cm, of which a cos² share goes along the slope's level part: well
            // up the slope, and at its height there.
            assert!(p.x > 3.0, "{p:?}");
            let lo = resting_height(angle, p.x, 0.00125 - 1e-4);
            let hi = resting_height(angle, p.x, BAND + 1e-4);
            assert!((lo..=hi).contains(&p.y), "{p:?}: {lo}..{hi}");
        } else {
            assert!(highest <= STANDING + 1e-4, "climbed to {highest}");
            // Stopped at the foot of the slope: the capsule's side against it.
            assert!(p.x < 0.0, "{p:?}");
        }
    }
}

/// Standing still on a 30 degree slope with gravity's pull in its wish, it stays put; on a
/// 60 degree slope it slides down.
#[test]
fn it_stands_on_a_walkable_slope_and_slides_down_a_steep_one() {
    let c = CharacterController::new();
    for (degrees, stays) in [(30.0f32, true), (60.0, false)] {
        let angle = degrees.to_radians();
        let world = slope_world(angle);
        let x = 3.0;
        let start = v(x, resting_height(angle, x, 0.002));
        let mut p = start;
        for _ in 0..30 {
            let (_, next) = step(&world, &c, p, v(0.0, -0.1));
            p = next;
        }
        if stays {
            assert!((p - start).length() < 1e-5, "{p:?} from {start:?}");
        } else {
            assert!(p.y < start.y - 0.5, "{p:?} from {start:?}");
        }
    }
}

/// Level ground with a block on it from x = 1 to 3 of height `h`.
fn step_world(h: f32) -> World {
    let mut world = ground_world();
    world
        .add_body(
            BodyDef::fixed().position(v(2.0, 0.5 * h)),
            ShapeDef::new(Shape::rect(1.0, 0.5 * h).unwrap()),
        )
        .unwrap();
    world
}

/// Walking into a ledge lower than the step height (0.25 m), it climbs onto it and stands on
/// its top; into one higher, it stops at its face.
#[test]
fn it_steps_up_ledges_lower_than_the_step_height_only() {
    let c = CharacterController::new().step_height(0.25);
    for (h, climbs) in [(0.15f32, true), (0.22, true), (0.3, false), (0.6, false)] {
        let world = step_world(h);
        let mut p = v(0.0, STANDING);
        for _ in 0..40 {
            let (moved, next) = step(&world, &c, p, v(0.05, -0.1));
            assert!(moved.grounded, "{moved:?}");
            p = next;
        }
        if climbs {
            assert!(p.x > 1.5, "h {h}: {p:?}");
            let bottom = p.y - HALF - RADIUS;
            assert!(
                (h + 0.00125 - 1e-4..=h + BAND + 1e-4).contains(&bottom),
                "h {h}: stands at {bottom}"
            );
        } else {
            // Stopped against the face at x = 1, its bottom on the ground.
            assert!(
                p.x < 1.0 - RADIUS && p.x > 1.0 - RADIUS - BAND - 1e-4,
                "h {h}: {p:?}"
            );
            assert_eq!(p.y, STANDING, "h {h}");
        }
    }
}

/// Walking off a stair of 0.1 m steps going down, it snaps down onto each step and stays
/// grounded every move; without snapping, it leaves the ground at the first edge.
#[test]
fn it_snaps_down_stairs_and_slopes() {
    let mut world = ground_world();
    // Five steps, each 0.5 m deep, 0.1 m lower than the last, down to the ground at x = 2.5.
    for i in 0..5 {
        let top = 0.5 - 0.1 * i as f32;
        world
            .add_body(
                BodyDef::fixed().position(v(-0.25 + 0.5 * i as f32, 0.5 * top)),
                ShapeDef::new(Shape::rect(0.25, 0.5 * top).unwrap()),
            )
            .unwrap();
    }
    for (snap, stays) in [(0.25, true), (0.0, false)] {
        let c = CharacterController::new().snap_distance(snap);
        let mut p = v(-0.2, 0.5 + STANDING);
        let mut always = true;
        let mut x = p.x;
        for _ in 0..80 {
            let (moved, next) = step(&world, &c, p, v(0.05, 0.0));
            always &= moved.grounded;
            x += 0.05;
            p = next;
        }
        assert_eq!(always, stays, "snap {snap}: ends at {p:?}");
        if stays {
            assert_eq!(p.x, x);
            let bottom = p.y - HALF - RADIUS;
            assert!((0.00125 - 1e-4..=BAND + 1e-4).contains(&bottom), "{bottom}");
        }
    }
}

/// A flat chain of 0.25 m segments: the character walks its length without catching on a
/// join, keeping its height exactly and moving exactly as asked, as on one long box.
#[test]
fn on_a_smooth_chain_it_does_not_catch_on_the_joins() {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let points: Vec<Vec2> = (0..=80).map(|i| v(-10.0 + 0.25 * i as f32, 0.0)).collect();
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &points,
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let c = CharacterController::new();
    let mut p = v(-9.0, STANDING);
    let mut x = p.x;
    for _ in 0..300 {
        let (moved, next) = step(&world, &c, p, v(0.05, -0.1));
        x += 0.05;
        assert_eq!(next, v(x, STANDING), "{moved:?}");
        assert!(moved.grounded);
        p = next;
    }
}

/// Over a chain of gentle hills (a sine of 0.5 m amplitude and 8 m wavelength, 0.2 m
/// segments, slopes up to 21 degrees), the character walks on without stopping or leaving the
/// ground, and never sinks into the chain.
#[test]
fn over_chain_hills_it_walks_on_without_catching() {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let hill = |x: f32| 0.5 * (std::f32::consts::TAU * x / 8.0).sin();
    let points: Vec<Vec2> = (0..=150)
        .map(|i| {
            let x = -5.0 + 0.2 * i as f32;
            v(x, hill(x))
        })
        .collect();
    let chain = world
        .add_segment_chain(
            BodyDef::fixed(),
            &points,
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let c = CharacterController::new();
    let mut p = v(-4.0, hill(-4.0) + STANDING + 0.2);
    for i in 0..400 {
        let (moved, next) = step(&world, &c, p, v(0.05, -0.1));
        if i > 10 {
            assert!(moved.grounded, "move {i}: {moved:?}");
            // Up a slope of at most 21 degrees, at least cos² of the wish goes level.
            assert!(next.x - p.x > 0.05 * 0.85, "move {i}: {p:?} -> {next:?}");
        }
        p = next;
        for &edge in &chain {
            let xf = world.transform(edge).unwrap();
            let shape = world.shape(edge).unwrap();
            let pen = penetration(shape, xf, &capsule(), at(p)).unwrap();
            assert!(pen.is_none(), "move {i}: {pen:?}");
        }
    }
    assert!(p.x > 14.0, "{p:?}");
}

/// A 1 cm wall does not stop a 30 m/s motion's sweeps from meeting it: the character stops
/// at it, on the near side, however fast it wishes to go.
#[test]
fn it_does_not_tunnel_through_a_thin_wall() {
    let mut world = ground_world();
    world
        .add_body(
            BodyDef::fixed().position(v(3.0, 1.0)),
            ShapeDef::new(Shape::rect(0.005, 1.0).unwrap()),
        )
        .unwrap();
    let c = CharacterController::new();
    let mut p = v(0.0, STANDING);
    for _ in 0..30 {
        let (_, next) = step(&world, &c, p, v(30.0 * DT, -0.1));
        p = next;
    }
    let face = 3.0 - 0.005 - RADIUS;
    assert!(p.x < face && p.x > face - BAND - 1e-4, "{p:?}");
}

/// Standing on a kinematic platform moving at (1.5, 0.5) m/s (up and, the second time, down),
/// with no wish of its own but gravity's pull, the character rides along: moved after each
/// step, its offset from the platform stays what it was, to a millimetre.
#[test]
fn it_rides_a_moving_platform() {
    for velocity in [v(1.5, 0.5), v(1.5, -0.5)] {
        let mut world = World::new(WorldSettings {
            gravity: Vec2::ZERO,
            ..WorldSettings::default()
        });
        let platform = world
            .add_body(
                BodyDef::kinematic()
                    .position(v(0.0, -0.1))
                    .linear_velocity(velocity),
                ShapeDef::new(Shape::rect(2.0, 0.1).unwrap()),
            )
            .unwrap();
        let c = CharacterController::new();
        let mut p = v(0.3, STANDING);
        let offset = p - world.position(platform).unwrap();
        for i in 0..60 {
            world.step(DT).unwrap();
            let moved = world
                .move_character(&c, &capsule(), at(p), v(0.0, -0.05), DT)
                .unwrap();
            assert!(moved.grounded, "move {i}: {moved:?}");
            p += moved.translation;
            let now = p - world.position(platform).unwrap();
            assert!(
                (now - offset).length() < 1e-3,
                "move {i}: {now:?} vs {offset:?}"
            );
        }
        // One second on the platform.
        assert!((p - (v(0.3, STANDING) + velocity)).length() < 2e-3, "{p:?}");
    }
}

/// Walking into a free crate (no gravity, no friction), the character pushes it with its
/// push force: each move that meets the crate gives it an impulse of `force * dt`, so its
/// momentum is that times the number of such moves. With no push force the crate stays put
/// and the character stops at it.
#[test]
fn it_pushes_dynamic_bodies_with_its_push_force() {
    for force in [0.0f32, 300.0] {
        let mut world = World::new(WorldSettings {
            gravity: Vec2::ZERO,
            ..WorldSettings::default()
        });
        // 1 m square, density 100: 100 kg.
        let crate_ = world
            .add_body(
                BodyDef::dynamic()
                    .position(v(1.0, 0.5))
                    .fixed_rotation(true),
                ShapeDef::new(Shape::rect(0.5, 0.5).unwrap())
                    .density(100.0)
                    .friction(0.0),
            )
            .unwrap();
        let c = CharacterController::new().push_force(force);
        let mut p = v(-1.0, 0.5);
        let mut pushes = 0;
        for _ in 0..90 {
            let moved = world
                .move_character(&c, &capsule(), at(p), v(0.05, 0.0), DT)
                .unwrap();
            if moved.hits.iter().any(|h| h.body == crate_) {
                pushes += 1;
            }
            p += moved.translation;
            world.push_with_character(&c, &moved, DT).unwrap();
            world.step(DT).unwrap();
        }
        let momentum = 100.0 * world.linear_velocity(crate_).unwrap().x;
        assert!(pushes > 30, "force {force}: {pushes} pushes");
        let expected = force * DT * pushes as f32;
        assert!(
            (momentum - expected).abs() <= 1e-3 * expected.max(1.0),
            "force {force}: {momentum} vs {expected}"
        );
        if force == 0.0 {
            // Stopped against the crate's face at x = 0.5.
            assert!(
                p.x < 0.5 - RADIUS && p.x > 0.5 - RADIUS - BAND - 1e-4,
                "{p:?}"
            );
        }
    }
}

/// Bad settings and input are refused with an error, never a panic.
#[test]
fn bad_input_is_an_error() {
    let mut world = ground_world();
    let good = CharacterController::new();
    let shape = capsule();
    let p = at(v(0.0, STANDING));
    let wish = v(0.1, 0.0);
    let bad = [
        good.up(Vec2::ZERO),
        good.up(v(f32::NAN, 1.0)),
        good.max_slope_angle(-0.1),
        good.max_slope_angle(2.0),
        good.max_slope_angle(f32::NAN),
        good.step_height(-1.0),
        good.step_height(f32::INFINITY),
        good.snap_distance(-0.1),
        good.max_slides(0),
        good.max_slides(65),
        good.push_force(-1.0),
    ];
    for c in bad {
        let e = world.move_character(&c, &shape, p, wish, DT);
        assert!(matches!(e, Err(Error::InvalidParameter(_))), "{c:?}: {e:?}");
    }
    for (wish, dt) in [
        (v(f32::NAN, 0.0), DT),
        (v(0.0, f32::INFINITY), DT),
        (wish, 0.0),
        (wish, f32::NAN),
        (wish, 5.0),
    ] {
        let e = world.move_character(&good, &shape, p, wish, dt);
        assert!(
            matches!(e, Err(Error::InvalidParameter(_))),
            "{wish:?} {dt}: {e:?}"
        );
    }
    let skew = Transform::new(v(0.0, 1.0), Rot { c: 2.0, s: 0.0 });
    assert!(matches!(
        world.move_character(&good, &shape, skew, wish, DT),
        Err(Error::InvalidParameter(_))
    ));
    // A stale body to ignore.
    let gone = world
        .add_body(
            BodyDef::fixed().position(v(5.0, 5.0)),
            ShapeDef::new(Shape::circle(0.1).unwrap()),
        )
        .unwrap();
    world.remove_body(gone).unwrap();
    let stale = good.ignore(Some(gone));
    assert!(matches!(
        world.move_character(&stale, &shape, p, wish, DT),
        Err(Error::InvalidBody)
    ));
    // Pushing with a move whose body has gone since.
    let moved = CharacterMove {
        translation: Vec2::ZERO,
        grounded: false,
        ground: None,
        hits: vec![batch2d::CharacterHit {
            body: gone,
            point: Vec2::ZERO,
            normal: v(0.0, 1.0),
        }],
    };
    let pushing = good.push_force(10.0);
    assert!(matches!(
        world.push_with_character(&pushing, &moved, DT),
        Err(Error::InvalidBody)
    ));
    assert!(matches!(
        world.push_with_character(
            &pushing,
            &CharacterMove {
                hits: vec![],
                ..moved
            },
            -1.0
        ),
        Err(Error::InvalidParameter(_))
    ));
}

/// A long walk with random wishes (jumps, falls, runs both ways) through a level of ledges,
/// slopes, a wall and a chain: the character never ends a move overlapping the level's
/// geometry, and the same walk gives bit-identical positions when run again.
#[test]
fn it_never_ends_inside_the_level() {
    let mut world = step_world(0.2);
    let s = 35f32.to_radians();
    world
        .add_body(
            BodyDef::fixed()
                .position(v(6.0 + 2.0 * s.cos(), 2.0 * s.sin() - 0.2))
                .angle(s),
            ShapeDef::new(Shape::rect(2.0, 0.2).unwrap()),
        )
        .unwrap();
    world
        .add_body(
            BodyDef::fixed().position(v(10.0, 2.0)),
            ShapeDef::new(Shape::rect(0.1, 2.0).unwrap()),
        )
        .unwrap();
    let points: Vec<Vec2> = (0..=20)
        .map(|i| v(-6.0 + 0.25 * i as f32, 0.4 + 0.3 * (i as f32 * 0.7).sin()))
        .collect();
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &points,
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let bodies: Vec<BodyId> = world.bodies().collect();
    let walk = |world: &World| {
        let c = CharacterController::new();
        let mut p = v(0.0, 3.0);
        let mut seed: u32 = 12345;
        let mut vy = 0.0f32;
        let mut trail = Vec::new();
        for i in 0..600 {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            let vx = ((seed >> 8) as f32 / (1u32 << 24) as f32 - 0.45) * 12.0;
            vy -= 9.8 * DT;
            let moved = world
                .move_character(&c, &capsule(), at(p), v(vx * DT, vy * DT), DT)
                .unwrap();
            if moved.grounded {
                vy = if seed.is_multiple_of(7) { 6.0 } else { 0.0 };
            }
            p += moved.translation;
            for &b in &bodies {
                for shape in world.shapes(b).unwrap() {
                    let pen =
                        penetration(shape, world.transform(b).unwrap(), &capsule(), at(p)).unwrap();
                    assert!(
                        pen.is_none_or(|q| q.depth < 1e-4),
                        "move {i} at {p:?}: {pen:?}"
                    );
                }
            }
            trail.push(p);
        }
        trail
    };
    let first = walk(&world);
    let again = walk(&world);
    assert!(first
        .iter()
        .zip(&again)
        .all(|(a, b)| a.x.to_bits() == b.x.to_bits() && a.y.to_bits() == b.y.to_bits()));
    let span = first.iter().map(|p| p.x).fold(f32::MIN, f32::max)
        - first.iter().map(|p| p.x).fold(f32::MAX, f32::min);
    assert!(span > 3.0, "the walk went somewhere: {span}");
}

/// Standing on level ground against a wall that leans away from it (its side faces a little
/// up, too steep to stand on), the character is still grounded: a sweep down meets the wall's
/// side first, and the look for ground passes it, as it does not hold the character up, and
/// finds the floor under it.
#[test]
fn a_wall_leaning_away_does_not_hide_the_ground() {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    // A tall box tilted 0.1 rad clockwise, its left side leaning away from the character,
    // that side's lower end on the ground at x = 0.5 (its other corner sinks into the ground).
    let tilt = -0.1f32;
    let half = v(0.3, 1.0);
    let corner = v(-half.x, -half.y);
    let rotated = v(
        corner.x * tilt.cos() - corner.y * tilt.sin(),
        corner.x * tilt.sin() + corner.y * tilt.cos(),
    );
    world
        .add_body(
            BodyDef::fixed().position(v(0.5, 0.0) - rotated).angle(tilt),
            ShapeDef::new(Shape::rect(half.x, half.y).unwrap()),
        )
        .unwrap();
    // The ground after the wall: the sweep meets both at once, and ties go to the wall.
    world
        .add_body(
            BodyDef::fixed().position(v(0.0, -0.5)),
            ShapeDef::new(Shape::rect(50.0, 0.5).unwrap()),
        )
        .unwrap();
    let c = CharacterController::new();
    let mut p = v(-0.5, STANDING);
    for i in 0..30 {
        let (moved, next) = step(&world, &c, p, v(0.05, -0.1));
        assert!(moved.grounded, "move {i}: {moved:?}");
        assert!((moved.ground.unwrap().normal.y - 1.0).abs() < 1e-6);
        p = next;
    }
    // Stopped against the leaning side (it does not climb it), still standing.
    assert_eq!(p.y, STANDING);
}
