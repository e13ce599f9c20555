//! The SIMD/parallel path against the scalar reference, bit for bit: every standard scene, both
//! backends, several thread counts, and repeated runs.

mod common;

use batch2d::scenes::Scene;
use batch2d::{Backend, WorldSettings};
use common::body_state_bits as snapshot;

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
