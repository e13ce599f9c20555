//! Criterion timings of one `World::step` of each standard scene of `docs/scenes.md`.
//!
//! `cargo bench -p batch2d-bench --bench step [-- FILTER]`, e.g. `-- large_pyramid/simd`.
//!
//! One group per scene, three configurations each: SIMD and scalar kernels on 1 thread, SIMD on
//! 2 threads. `World` is not `Clone`, so a configuration cannot restart from the same state each
//! iteration: the scene is built once, warmed up with its first 60 steps, and then every
//! iteration steps the same world on. The scene keeps evolving while criterion samples (the
//! warm-up and measurement together run a few hundred steps, past the scene's own step count for
//! some scenes), so these figures describe a window of the scene's life after step 60, not the
//! whole run: use `cargo bench -p batch2d-bench --bench scenes` for the standard per-scene
//! figures.

use batch2d::scenes::Scene;
use batch2d::{Backend, WorldSettings};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::time::Duration;

const DT: f32 = 1.0 / 60.0;
const WARM_UP_STEPS: usize = 60;

fn step(c: &mut Criterion) {
    let configs = [(Backend::Simd, 1), (Backend::Scalar, 1), (Backend::Simd, 2)];
    for scene in Scene::ALL {
        let mut group = c.benchmark_group(scene.name());
        for (backend, threads) in configs {
            let settings = WorldSettings {
                backend,
                threads,
                ..WorldSettings::default()
            };
            let mut world = scene.build(settings).expect("standard scene builds");
            for _ in 0..WARM_UP_STEPS {
                world.step(DT).expect("step");
            }
            let name = match backend {
                Backend::Simd => "simd",
                Backend::Scalar => "scalar",
            };
            group.bench_function(BenchmarkId::new(name, format!("{threads}t")), |b| {
                b.iter(|| world.step(DT).expect("step"))
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Short runs: the whole bench (6 scenes x 3 configurations) takes a few minutes.
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = step
}
criterion_main!(benches);
