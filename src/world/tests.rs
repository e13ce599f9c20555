//! Tests of the solver's tiles through whole worlds, and what other tests of `world/` share.

use crate::{Backend, BodyDef, BodyKind, Shape, ShapeDef, Vec2, World, WorldSettings};

/// Small pyramids (tiles), one pushed by a kinematic paddle, a ball bouncing on another
/// (a tile with restitution), a large pyramid (too large for a tile), a heavy box on a
/// light one (a direct island) and a few free falling circles.
fn scene(backend: Backend, threads: usize, tiles: bool) -> World {
    let mut world = World::new(WorldSettings {
        backend,
        threads,
        ..WorldSettings::default()
    });
    world.graph.no_tiles = !tiles;
    let boxed = |h: f32| ShapeDef::new(Shape::rect(h, h).unwrap());
    let ground = ShapeDef::new(Shape::rect(200.0, 1.0).unwrap());
    world
        .add_body(BodyDef::fixed().position(Vec2::new(0.0, -1.0)), ground)
        .unwrap();
    let pyramid = |world: &mut World, x0: f32, base: usize| {
        for i in 0..base {
            for j in i..base {
                let x = x0 + (i + 1) as f32 * 0.5 + (j - i) as f32;
                let p = Vec2::new(x, i as f32 + 0.5);
                world
                    .add_body(BodyDef::dynamic().position(p), boxed(0.5))
                    .unwrap();
            }
        }
    };
    for k in 0..24 {
        pyramid(&mut world, -190.0 + 9.0 * k as f32, 8);
    }
    pyramid(&mut world, 40.0, 28);
    let paddle = BodyDef::kinematic()
        .position(Vec2::new(-191.0, 1.0))
        .linear_velocity(Vec2::new(0.5, 0.0));
    world.add_body(paddle, boxed(1.0)).unwrap();
    // Restitution mixes by the minimum: the ball bounces off another bouncy ball.
    let bouncy = ShapeDef::new(Shape::circle(0.3).unwrap()).restitution(0.7);
    for y in [0.3, 4.0] {
        let ball = BodyDef::dynamic().position(Vec2::new(-198.0, y));
        world.add_body(ball, bouncy.clone()).unwrap();
    }
    let light = BodyDef::dynamic().position(Vec2::new(80.0, 0.5));
    world.add_body(light, boxed(0.5)).unwrap();
    let heavy = BodyDef::dynamic().position(Vec2::new(80.0, 1.5));
    world.add_body(heavy, boxed(0.5).density(100.0)).unwrap();
    for k in 0..5 {
        let p = Vec2::new(90.0 + 2.0 * k as f32, 3.0 + k as f32);
        world
            .add_body(
                BodyDef::dynamic().position(p),
                ShapeDef::new(Shape::circle(0.4).unwrap()),
            )
            .unwrap();
    }
    world
}

/// Every body's position, rotation and velocities, as bits.
pub(super) fn snapshot(world: &World) -> Vec<u32> {
    world
        .bodies()
        .flat_map(|id| {
            let (p, q) = (world.position(id).unwrap(), world.rotation(id).unwrap());
            let (v, w) = (
                world.linear_velocity(id).unwrap(),
                world.angular_velocity(id).unwrap(),
            );
            [p.x, p.y, q.c, q.s, v.x, v.y, w].map(f32::to_bits)
        })
        .collect()
}

/// A tile runs every operation of the step on its bodies and contacts in the order the
/// world's stages would: the results are the same bit for bit, with either backend and
/// any thread count.
#[test]
fn tiles_give_the_same_bits_as_the_world_stages() {
    for backend in [Backend::Simd, Backend::Scalar] {
        let mut plain = scene(backend, 1, false);
        let mut tiled = [1, 2, 3].map(|threads| scene(backend, threads, true));
        for step in 0..90 {
            plain.step(1.0 / 60.0).unwrap();
            let expected = snapshot(&plain);
            for world in &mut tiled {
                world.step(1.0 / 60.0).unwrap();
                assert_eq!(snapshot(world), expected, "{backend:?} step {step}");
            }
        }
        let graph = &tiled[0].graph;
        assert!(
            graph.tiles.len() > 1,
            "the small pyramids should fill tiles"
        );
        assert!(
            !graph.color_batches.is_empty(),
            "the large pyramid is in no tile"
        );
        assert!(plain.graph.tiles.is_empty());
        let kinematic = plain
            .bodies()
            .filter(|&id| plain.body_kind(id) == Ok(BodyKind::Kinematic));
        assert_eq!(kinematic.count(), 1);
    }
}

/// A world emptied while its bodies touched keeps no color of theirs.
#[test]
fn an_emptied_world_keeps_no_color() {
    let mut world = scene(Backend::Simd, 1, false);
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(world.graph.color_count() > 0);
    let bodies: Vec<_> = world.bodies().collect();
    for id in bodies {
        world.remove_body(id).unwrap();
    }
    for _ in 0..10 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert_eq!(world.graph.color_count(), 0);
}

/// Every contact the solver gets has a point (`solver/spin_bounds.rs` keys its bounds on the
/// contacts alone): through islands falling asleep, a ball waking one by touch, `wake` and a
/// world restored from the bytes of a snapshot with sleeping islands, each of which thaws
/// frozen contacts back into the list.
#[test]
fn contacts_keep_a_point_through_sleeping_and_waking() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    let ground = ShapeDef::new(Shape::rect(50.0, 1.0).unwrap());
    world
        .add_body(BodyDef::fixed().position(Vec2::new(0.0, -1.0)), ground)
        .unwrap();
    let boxed = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap());
    let mut columns = Vec::new();
    for x in [-10.0, 10.0] {
        let column: Vec<_> = (0..4)
            .map(|i| {
                let p = Vec2::new(x, i as f32 + 0.5);
                (world.add_body(BodyDef::dynamic().position(p), boxed.clone())).unwrap()
            })
            .collect();
        columns.push(column);
    }
    let every_contact_has_a_point =
        |world: &World| (world.contacts.list.iter()).all(|c| c.manifold.point_count > 0);
    let asleep =
        |world: &World, ids: &[crate::BodyId]| ids.iter().all(|&id| !world.is_awake(id).unwrap());
    let step = |world: &mut World, steps: usize| {
        for _ in 0..steps {
            world.step(1.0 / 60.0).unwrap();
            assert!(every_contact_has_a_point(world));
        }
    };
    step(&mut world, 300);
    assert!(columns.iter().all(|c| asleep(&world, c)));
    assert!(world.sleep.frozen_contact_count() > 0);

    // A ball dropped on the first column wakes it by touch.
    let top = *columns[0].last().unwrap();
    let above = world.position(top).unwrap() + Vec2::new(0.0, 2.0);
    let ball = BodyDef::dynamic()
        .position(above)
        .linear_velocity(Vec2::new(0.0, -3.0));
    let round = ShapeDef::new(Shape::circle(0.3).unwrap());
    world.add_body(ball, round).unwrap();
    let mut woke = false;
    for _ in 0..60 {
        step(&mut world, 1);
        woke |= world.is_awake(top).unwrap();
    }
    assert!(woke, "the ball never woke the column");

    // `wake` thaws the second column's contacts.
    step(&mut world, 300);
    assert!(asleep(&world, &columns[1]));
    world.wake(columns[1][0]).unwrap();
    step(&mut world, 1);
    assert!(world.is_awake(columns[1][0]).unwrap());

    // A world from a snapshot's bytes wakes its sleeping columns in the same way.
    step(&mut world, 300);
    assert!(columns.iter().all(|c| asleep(&world, c)));
    let bytes = world.snapshot().to_bytes();
    let snapshot = crate::Snapshot::from_bytes(&bytes).unwrap();
    let mut copy = World::from_snapshot(&snapshot, WorldSettings::default()).unwrap();
    let frozen = copy.sleep.frozen_contact_count();
    for column in &columns {
        copy.wake(column[0]).unwrap();
    }
    step(&mut copy, 1);
    assert!(copy.sleep.frozen_contact_count() < frozen);
}
