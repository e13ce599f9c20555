//! Criterion timings of the contact kernels on their own, per batch of eight contacts.
//!
//! `cargo bench -p batch2d-kernels --bench contact [-- FILTER]`, e.g. `-- solve`.
//!
//! The portable kernels (`wide`'s vectors as the crate is compiled: SSE2 without a target-cpu
//! flag) and their scalar twins always run; on x86_64 the AVX2 and AVX-512 builds that the
//! engine picks at run time run too, where the CPU has them (names `avx2_...`, `avx512_...`).
//!
//! The scene benches time whole steps on a machine whose speed drifts by 10% from run to run;
//! a kernel change that moves a step by 3% drowns there. Here one kernel runs over the same
//! batches again and again, criterion's interval is about 2% wide, and a change to a kernel
//! shows as it is. Throughput counts batches: elements per second are batches per second.
//!
//! The batches are resting box contacts, two points each (one for the `one_point` kernels), as
//! many as large_pyramid's 1870 and over as many body states as it has 5051 bodies, so that
//! the batches come from the last-level cache and the states from L2 as in that scene. Each
//! batch's sixteen bodies are consecutive states; the kernels' time does not depend on which.

use batch2d_kernels::body::States;
use batch2d_kernels::contact::{pair, scalar, simd};
#[cfg(target_arch = "x86_64")]
use batch2d_kernels::x86::{avx2, avx512};
use batch2d_kernels::{BodyState, ContactBatch, InstructionSet, SolveParams, StateRows, LANES};
use bytemuck::Zeroable;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const BATCHES: usize = 1870;
const STATES: usize = 5051;

/// `BATCHES` prepared batches of box-on-box contacts (`points` of them per contact) and the
/// states they act on.
fn resting_boxes(points: usize) -> (Vec<ContactBatch>, StateRows) {
    let states = StateRows::from_states(&[BodyState::with_velocity([0.01, -0.02], 0.001); STATES]);
    let mut batches = vec![ContactBatch::zeroed(); BATCHES];
    for (i, c) in batches.iter_mut().enumerate() {
        for l in 0..LANES {
            let a = (i * 2 * LANES + 2 * l) % (STATES - 1);
            // Unit boxes of 1 kg: B rests on A.
            c.set_bodies(l, [a as u32, a as u32 + 1], [1.0, 1.0]);
            (c.normal_x[l], c.normal_y[l]) = (0.0, 1.0);
            (c.inv_inertia_a[l], c.inv_inertia_b[l]) = (6.0, 6.0);
            c.friction[l] = 0.6;
            c.bias_rate[l] = 30.0;
            c.mass_scale[l] = 0.8;
            c.max_push[l] = 3.0;
            for (j, p) in c.points.iter_mut().enumerate().take(points) {
                let x = if j == 0 { -0.5 } else { 0.5 };
                p.active[l] = 1.0;
                p.set_anchors(l, [x, 0.5], [x, -0.5], [0.0, 1.0]);
                p.base_separation[l] = -0.001;
                p.normal_impulse[l] = 0.04;
            }
        }
    }
    for c in &mut batches {
        simd::prepare(c);
    }
    (batches, states)
}

type Kernel = unsafe fn(&mut ContactBatch, States);
type PairKernel = unsafe fn(&mut [ContactBatch; 2], States);

fn contact(c: &mut Criterion) {
    let mut kernels: Vec<(&str, usize, Kernel)> = vec![
        ("warm_start", 2, |c, s| unsafe { simd::warm_start(c, s) }),
        ("solve", 2, |c, s| unsafe { simd::solve(c, s, &SOLVE) }),
        ("relax", 2, |c, s| unsafe { simd::solve(c, s, &RELAX) }),
        ("scalar_solve", 2, |c, s| unsafe {
            scalar::solve(c, s, &SOLVE)
        }),
        ("warm_start_one_point", 1, |c, s| unsafe {
            simd::warm_start_one_point(c, s)
        }),
        ("solve_one_point", 1, |c, s| unsafe {
            simd::solve_one_point(c, s, &SOLVE)
        }),
    ];
    let mut pairs: Vec<(&str, usize, PairKernel)> = vec![
        ("pair_solve", 2, |c, s| unsafe { pair::solve(c, s, &SOLVE) }),
        ("pair_relax", 2, |c, s| unsafe { pair::solve(c, s, &RELAX) }),
    ];
    #[cfg(target_arch = "x86_64")]
    if InstructionSet::Avx2.is_supported() {
        kernels.extend::<[(&str, usize, Kernel); 2]>([
            ("avx2_warm_start", 2, |c, s| unsafe {
                avx2::warm_start(c, s)
            }),
            ("avx2_solve", 2, |c, s| unsafe { avx2::solve(c, s, &SOLVE) }),
        ]);
        pairs.push(("avx2_pair_solve", 2, |c, s| unsafe {
            avx2::solve_pair(c, s, &SOLVE)
        }));
    }
    #[cfg(target_arch = "x86_64")]
    if InstructionSet::Avx512.is_supported() {
        kernels.extend::<[(&str, usize, Kernel); 2]>([
            ("avx512_warm_start", 2, |c, s| unsafe {
                avx512::warm_start(c, s)
            }),
            ("avx512_solve", 2, |c, s| unsafe {
                avx512::solve(c, s, &SOLVE)
            }),
        ]);
        pairs.extend::<[(&str, usize, PairKernel); 2]>([
            ("avx512_pair_solve", 2, |c, s| unsafe {
                avx512::solve_pair(c, s, &SOLVE)
            }),
            ("avx512_pair_relax", 2, |c, s| unsafe {
                avx512::solve_pair(c, s, &RELAX)
            }),
        ]);
    }
    let mut group = c.benchmark_group("contact_kernels");
    group.throughput(Throughput::Elements(BATCHES as u64));
    for (name, points, kernel) in kernels {
        let (mut batches, mut states) = resting_boxes(points);
        let view = States::new(&mut states);
        group.bench_function(name, |b| {
            b.iter(|| {
                for c in batches.iter_mut() {
                    // SAFETY: as in `resting_boxes`; one thread runs the batches in turn.
                    unsafe { kernel(black_box(c), view) };
                }
            })
        });
    }
    // The pair kernels over the same batches, two at a time (consecutive batches share no
    // body here, as within a graph color).
    for (name, points, kernel) in pairs {
        let (mut batches, mut states) = resting_boxes(points);
        let view = States::new(&mut states);
        group.bench_function(name, |b| {
            b.iter(|| {
                for c in batches.as_chunks_mut::<2>().0 {
                    // SAFETY: as in `resting_boxes`; one thread runs the pairs in turn.
                    unsafe { kernel(black_box(c), view) };
                }
            })
        });
    }
    group.finish();
}

/// A substep of 1/240 s, as in the standard scenes (60 Hz, 4 substeps).
const SOLVE: SolveParams = SolveParams {
    inv_h: 240.0,
    use_bias: true,
};
const RELAX: SolveParams = SolveParams {
    use_bias: false,
    ..SOLVE
};

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = contact
}
criterion_main!(benches);
