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
