//! The SIMD/parallel path against the scalar reference, bit for bit: every standard scene, both
//! backends, several thread counts, and repeated runs.

use crate::common;

use batch2d::scenes::Scene;
use batch2d::{Backend, WorldSettings};
use common::state_bits as snapshot;

const STEPS: usize = 120;

fn run(scene: Scene, backend: Backend, threads: usize) -> Vec<u32> {
    let settings = WorldSettings {
        backend,
        threads,
        ..WorldSettings::default()
    };
    let mut world = scene.build(settings).unwrap();
    for _ in 0..STEPS {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(
        world.contact_count() > 0,
        "{}: nothing touches",
        scene.name()
    );
    snapshot(&world)
}

/// Index of the first differing word, for a readable failure.
fn first_difference(a: &[u32], b: &[u32]) -> Option<usize> {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).position(|(x, y)| x != y)
}

#[test]
fn scalar_and_simd_backends_are_bit_identical_on_every_scene() {
    for scene in Scene::ALL {
        let scalar = run(scene, Backend::Scalar, 2);
        let simd = run(scene, Backend::Simd, 2);
        assert_eq!(
            first_difference(&scalar, &simd),
            None,
            "{}: backends differ",
            scene.name()
        );
    }
}

#[test]
fn thread_count_does_not_change_any_bit() {
    for scene in Scene::ALL {
        let one = run(scene, Backend::Simd, 1);
        for threads in [2, 3, 8] {
            let other = run(scene, Backend::Simd, threads);
            assert_eq!(
                first_difference(&one, &other),
                None,
                "{}: 1 thread vs {threads} threads",
                scene.name()
            );
        }
    }
}

#[test]
fn repeated_runs_are_identical() {
    let first = run(Scene::MixedPile, Backend::Simd, 2);
    let second = run(Scene::MixedPile, Backend::Simd, 2);
    assert_eq!(first_difference(&first, &second), None);
}

/// A static body moved between steps, or added after the first, acts bit for bit as one that
/// stood there from the start: a step keeps the boxes of the static bodies it computed before
/// (a level of tiles would cost it one per tile), so it must see each such change. The level
/// has enough tiles for the broadphase's static grid.
#[test]
fn a_static_body_moved_or_added_between_steps_acts_as_one_built_there() {
    use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World};
    let ramp_at = Vec2::new(0.0, 3.0);
    let tile_at = Vec2::new(4.0, 2.0);
    // `moved`: the ramp is built far away and moved into place; `added`: the tile is added
    // late. Each change on its own, as one refreshes every static box for the other.
    let run = |moved: bool, added: bool| {
        let mut world = World::new(WorldSettings::default());
        for i in 0..100 {
            let tile = BodyDef::fixed().position(Vec2::new(i as f32 - 49.5, -0.5));
            let shape = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap());
            world.add_body(tile, shape).unwrap();
        }
        let far = Vec2::new(300.0, 300.0);
        let ramp = BodyDef::fixed()
            .position(if moved { far } else { ramp_at })
            .angle(0.3);
        let ramp = world
            .add_body(ramp, ShapeDef::new(Shape::rect(3.0, 0.2).unwrap()))
            .unwrap();
        for i in 0..20 {
            let at = Vec2::new(0.37 * i as f32 - 3.0, 9.0 + 0.6 * (i % 3) as f32);
            match i % 2 {
                0 => common::ball(&mut world, at, 0.25),
                _ => common::unit_box(&mut world, at),
            };
        }
        let tile = BodyDef::fixed().position(tile_at);
        let tile_shape = ShapeDef::new(Shape::rect(1.0, 0.25).unwrap());
        if !added {
            world.add_body(tile.clone(), tile_shape.clone()).unwrap();
        }
        // The bodies start well above both, so that the first step meets neither.
        world.step(1.0 / 60.0).unwrap();
        if moved {
            world.set_transform(ramp, ramp_at, 0.3).unwrap();
        }
        if added {
            world.add_body(tile, tile_shape).unwrap();
        }
        for _ in 0..240 {
            world.step(1.0 / 60.0).unwrap();
        }
        snapshot(&world)
    };
    let built = run(false, false);
    assert_eq!(first_difference(&built, &run(true, false)), None, "moved");
    assert_eq!(first_difference(&built, &run(false, true)), None, "added");
}

/// The solver keeps its packed contacts' bodies, masses and softness from one step to the
/// next while the contacts stay in the same lanes between the same bodies, and packs only the
/// contacts' own numbers again; a world restored from its own snapshot before every step
/// (which drops that cache) packs everything every step. The two must step to the same bits,
/// on both backends and on one thread or two, through steps that keep the packing and steps
/// that change what it was made from: a body's mass, a contact made (a bouncing ball) and
/// removed (a body taken away), contacts deep enough to share the push-out cap and then no
/// longer, new contact settings, and new gravity.
#[test]
fn kept_packing_steps_like_packing_afresh() {
    use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World};
    let dt = 1.0 / 60.0;
    for backend in [Backend::Scalar, Backend::Simd] {
        for threads in [1, 2] {
            let settings = WorldSettings {
                backend,
                threads,
                // Awake throughout, so that the packing can be kept from step to step.
                enable_sleep: false,
                // The ball bounces off the boxes, which do not bounce themselves.
                restitution_mixing: batch2d::MixRule::Max,
                // Slow enough that the shared push-out cap holds the deep boxes back.
                contact_push_max_velocity: 0.5,
                ..WorldSettings::default()
            };
            let build = || {
                let mut world = World::new(settings.clone());
                common::ground(&mut world);
                // A pyramid of 5 rows (15 boxes), resting on the ground from the start.
                let mut boxes = Vec::new();
                for row in 0..5 {
                    for i in 0..5 - row {
                        let x = i as f32 - 0.5 * (4 - row) as f32;
                        let at = Vec2::new(1.05 * x, 0.5 + row as f32);
                        boxes.push(common::unit_box(&mut world, at));
                    }
                }
                (world, boxes)
            };
            let mut kept = build();
            let mut fresh = build();
            for step in 0..200 {
                for (world, boxes) in [&mut kept, &mut fresh] {
                    match step {
                        // A box of the second row, heavier: its contacts keep their lanes.
                        40 => world.set_density(boxes[6], 3.0).unwrap(),
                        // A bouncing ball dropped on the top box: contacts made and unmade.
                        60 => {
                            let ball = BodyDef::dynamic().position(Vec2::new(0.1, 6.0));
                            let shape = ShapeDef::new(Shape::circle(0.3).unwrap());
                            world.add_body(ball, shape.restitution(0.6)).unwrap();
                        }
                        // The top box taken away: its contacts go, and the ball falls.
                        110 => world.remove_body(boxes[14]).unwrap(),
                        // Two boxes made deep in the ground and in each other: deep
                        // contacts, two a box, which share its push-out cap.
                        130 => {
                            boxes.push(common::unit_box(world, Vec2::new(-6.0, 0.1)));
                            boxes.push(common::unit_box(world, Vec2::new(-5.4, 0.1)));
                        }
                        // Both moved to overlap less, so that none of their contacts is deep
                        // any more and each has the whole cap again, in contacts that stay.
                        150 => {
                            world
                                .set_transform(boxes[15], Vec2::new(-6.0, 0.42), 0.0)
                                .unwrap();
                            world
                                .set_transform(boxes[16], Vec2::new(-5.12, 0.42), 0.0)
                                .unwrap();
                        }
                        160 => {
                            let mut s = world.settings().clone();
                            s.contact_hertz *= 0.5;
                            s.contact_push_max_velocity *= 2.0;
                            world.set_settings(s).unwrap();
                        }
                        180 => world.set_gravity(Vec2::new(1.0, -12.0)).unwrap(),
                        _ => {}
                    }
                }
                let (kept, fresh) = (&mut kept.0, &mut fresh.0);
                let saved = fresh.snapshot();
                fresh.restore(&saved).unwrap();
                kept.step(dt).unwrap();
                fresh.step(dt).unwrap();
                assert_eq!(
                    first_difference(&snapshot(kept), &snapshot(fresh)),
                    None,
                    "step {step}, {backend:?} backend, {threads} threads"
                );
            }
        }
    }
}
