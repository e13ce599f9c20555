//! Criterion timings of world queries on `particle_pile` (20,000 circles) after 120 steps.
//!
//! `cargo bench -p batch2d-bench --bench queries [-- FILTER]`. Each iteration runs a batch of
//! 1000 queries of one kind (fixed pseudo-random inputs spread over the container), so the figures are per
//! 1000 queries. `rebuild` is the first query after the world changed: an add and a remove
//! (which mark the query grid stale) and one point query that rebuilds it.

use batch2d::scenes::Scene;
use batch2d::{Aabb, BodyDef, QueryFilter, Rot, Shape, ShapeDef, Transform, Vec2, WorldSettings};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::time::Duration;

const SETTLE_STEPS: usize = 120;
const BATCH: usize = 1000;

/// Deterministic points over the pile's container (x in -60..60, y in 0..60).
fn points(seed: u32) -> Vec<Vec2> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 8) as f32 / (1u32 << 24) as f32
    };
    (0..BATCH)
        .map(|_| Vec2::new(next() * 120.0 - 60.0, next() * 60.0))
        .collect()
}

fn queries(c: &mut Criterion) {
    let settings = WorldSettings {
        threads: 1,
        ..WorldSettings::default()
    };
    let mut world = Scene::ParticlePile.build(settings).expect("scene builds");
    for _ in 0..SETTLE_STEPS {
        world.step(1.0 / 60.0).expect("step");
    }
    let f = QueryFilter::new();
    let origins = points(1);
    let targets = points(2);
    // 20 m rays in the directions from each origin towards its target.
    let rays: Vec<(Vec2, Vec2)> = origins
        .iter()
        .zip(&targets)
        .map(|(&o, &t)| {
            let d = t - o;
            (o, d * (20.0 / d.length()))
        })
        .collect();
    let mut group = c.benchmark_group("particle_pile_queries_x1000");

    group.bench_function("rebuild", |b| {
        b.iter(|| {
            let id = world
                .add_body(
                    BodyDef::fixed().position(Vec2::new(0.0, 70.0)),
                    ShapeDef::new(Shape::circle(0.25).unwrap()),
                )
                .unwrap();
            world.remove_body(id).unwrap();
            black_box(world.overlap_point(Vec2::new(0.0, 1.0), f).unwrap());
        })
    });
    group.bench_function("cast_ray", |b| {
        b.iter(|| {
            for &(o, d) in &rays {
                black_box(world.cast_ray(o, d, 1.0, f).unwrap());
            }
        })
    });
    group.bench_function("cast_ray_all", |b| {
        b.iter(|| {
            for &(o, d) in &rays {
                black_box(world.cast_ray_all(o, d, 1.0, f).unwrap());
            }
        })
    });
    group.bench_function("overlap_point", |b| {
        b.iter(|| {
            for &p in &origins {
                black_box(world.overlap_point(p, f).unwrap());
            }
        })
    });
    group.bench_function("overlap_aabb_2m", |b| {
        b.iter(|| {
            for &p in &origins {
                let aabb = Aabb::new(p, p + Vec2::new(2.0, 2.0));
                black_box(world.overlap_aabb(aabb, f).unwrap());
            }
        })
    });
    let disc = Shape::circle(1.0).unwrap();
    group.bench_function("overlap_shape_circle_1m", |b| {
        b.iter(|| {
            for &p in &origins {
                let xf = Transform::new(p, Rot::IDENTITY);
                black_box(world.overlap_shape(&disc, xf, f).unwrap());
            }
        })
    });
    let probe = Shape::rect(0.3, 0.2).unwrap();
    group.bench_function("cast_shape_box_10m", |b| {
        b.iter(|| {
            for &(o, d) in &rays {
                let xf = Transform::new(o, Rot::from_angle(0.3));
                black_box(world.cast_shape(&probe, xf, d * 0.5, f).unwrap());
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = queries
}
criterion_main!(benches);
