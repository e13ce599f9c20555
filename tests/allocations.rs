//! Steady-state steps allocate nothing: every buffer of the pipeline (pairs, contacts, graph,
//! solver batches and states) is reused from step to step; and restoring a snapshot into a
//! world reuses the world's own lists. Counted with a global allocator that tallies every
//! allocation made while counting is switched on.

mod common;

use batch2d::scenes::Scene;
use batch2d::{Backend, BodyDef, Shape, ShapeDef, Vec2, WorldSettings};
use common::{step, DT};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counter is global: the tests that count take this lock, so that none runs while
/// another counts.
static SERIAL: Mutex<()> = Mutex::new(());

/// Allocations made by `steps` steps of large_pyramid after `warm_up` steps; with
/// `compounds`, a row of compound bodies (tables, each standing on two legs) beside it, which
/// adds the expansion of body pairs into shape pairs to every step.
fn allocations_per_run(
    threads: usize,
    backend: Backend,
    compounds: bool,
    warm_up: usize,
    steps: usize,
) -> usize {
    let settings = WorldSettings {
        threads,
        backend,
        ..WorldSettings::default()
    };
    let mut world = Scene::LargePyramid.build(settings).unwrap();
    if compounds {
        let table = [
            ShapeDef::new(Shape::offset_rect(0.6, 0.1, Vec2::new(0.0, 0.6), 0.0).unwrap()),
            ShapeDef::new(Shape::offset_rect(0.1, 0.5, Vec2::new(-0.4, 0.0), 0.0).unwrap()),
            ShapeDef::new(Shape::offset_rect(0.1, 0.5, Vec2::new(0.4, 0.0), 0.0).unwrap()),
        ];
        for i in 0..20 {
            let at = Vec2::new(60.0 + 1.5 * i as f32, 0.52);
            world
                .add_compound_body(BodyDef::dynamic().position(at), &table)
                .unwrap();
        }
    }
    step(&mut world, warm_up);
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    step(&mut world, steps);
    COUNTING.store(false, Ordering::SeqCst);
    ALLOCATIONS.load(Ordering::SeqCst)
}

/// Each step enters the world's rayon pool from outside it (`ThreadPool::install`), which
/// queues one job in the pool's injector; the injector allocates a block (1.5 KB) for every
/// 63 jobs. That is the only allocation left (seen with a backtrace from this allocator), so
/// a run of `STEPS` steps may cross `STEPS / 63 + 1` block boundaries. Anything batch2d
/// allocated per step would show up `STEPS` times.
const STEPS: usize = 126;
const RAYON_INJECTOR_BLOCKS: usize = STEPS / 63 + 1;

// One test function: the counter is global, so the configurations must not run concurrently.
#[test]
fn large_pyramid_steps_allocate_nothing_once_settled() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let runs = [
        (1, Backend::Simd, false),
        (2, Backend::Simd, false),
        (1, Backend::Scalar, false),
        (2, Backend::Simd, true),
    ];
    for (threads, backend, compounds) in runs {
        let count = allocations_per_run(threads, backend, compounds, 60, STEPS);
        assert!(
            count <= RAYON_INJECTOR_BLOCKS,
            "{count} heap allocations in {STEPS} steady-state steps ({threads} threads, \
             {backend:?}, compounds: {compounds}); rayon's injector accounts for at most \
             {RAYON_INJECTOR_BLOCKS}"
        );
    }
}

/// A rollback loop restores a snapshot into the same world frame after frame: the restore
/// copies into the columns and lists the world already has (a box's polygon into the box's
/// own allocation), so it allocates a few times, not once per body or per list. Measured on
/// large_pyramid (5050 boxes) with compound tables beside it, restored into a world that has
/// stepped on from the same snapshot, as a rollback's world has.
#[test]
fn restoring_into_a_world_reuses_its_lists() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let settings = WorldSettings {
        threads: 1,
        ..WorldSettings::default()
    };
    let mut world = Scene::LargePyramid.build(settings).unwrap();
    let table = [
        ShapeDef::new(Shape::offset_rect(0.6, 0.1, Vec2::new(0.0, 0.6), 0.0).unwrap()),
        ShapeDef::new(Shape::offset_rect(0.1, 0.5, Vec2::new(-0.4, 0.0), 0.0).unwrap()),
    ];
    for i in 0..20 {
        let at = Vec2::new(60.0 + 1.5 * i as f32, 0.52);
        (world.add_compound_body(BodyDef::dynamic().position(at), &table)).unwrap();
    }
    step(&mut world, 60);
    let snapshot = world.snapshot();
    step(&mut world, 5);
    let bodies = world.body_count();
    let count = |f: &mut dyn FnMut()| {
        ALLOCATIONS.store(0, Ordering::SeqCst);
        COUNTING.store(true, Ordering::SeqCst);
        f();
        COUNTING.store(false, Ordering::SeqCst);
        ALLOCATIONS.load(Ordering::SeqCst)
    };
    // A snapshot is new memory: at least one allocation per box.
    let mut kept = None;
    let snapshotting = count(&mut || kept = Some(world.snapshot()));
    assert!(
        snapshotting >= bodies,
        "{snapshotting} allocations for {bodies} bodies"
    );
    let restoring = count(&mut || world.restore(&snapshot).unwrap());
    assert!(
        restoring <= 32,
        "{restoring} allocations restoring {bodies} bodies into a world that had stepped on"
    );
    // The world restored steps as the one saved did.
    let mut twin = batch2d::World::from_snapshot(&snapshot, WorldSettings::default()).unwrap();
    world.step(DT).unwrap();
    twin.step(DT).unwrap();
    assert_eq!(world.state_hash(), twin.state_hash());
}
