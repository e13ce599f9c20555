//! Sleeping: resting islands fall asleep about `time_to_sleep` after settling, wake as a whole
//! on contact and on user changes, never while moving, and keep results bit-identical across
//! thread counts and backends.

use crate::common;

use batch2d::{Backend, BodyDef, BodyId, Error, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::unit_box;

const DT: f32 = 1.0 / 60.0;
/// Default sleep threshold of `BodyDef` (m/s).
const THRESHOLD: f32 = 0.05;
/// Half-diagonal of a unit box: the reach of its corners from its centre.
const UNIT_BOX_REACH: f32 = std::f32::consts::FRAC_1_SQRT_2;

fn sleepy_world(backend: Backend, threads: usize) -> World {
    let mut world = World::new(WorldSettings {
        backend,
        threads,
        enable_sleep: true,
        ..WorldSettings::default()
    });
    common::ground_of(&mut world, 100.0);
    world
}

fn column(world: &mut World, x: f32, height: usize) -> Vec<BodyId> {
    (0..height)
        .map(|i| unit_box(world, Vec2::new(x, i as f32 + 0.5)))
        .collect()
}

/// A pyramid of unit boxes with `base` boxes in its bottom row, centred on `x`.
fn pyramid(world: &mut World, x: f32, base: usize) -> Vec<BodyId> {
    let mut boxes = Vec::new();
    for row in 0..base {
        for col in row..base {
            let bx = x + (row as f32 + 1.0) * 0.5 + (col - row) as f32 - 0.5 * base as f32;
            boxes.push(unit_box(world, Vec2::new(bx, row as f32 + 0.5)));
        }
    }
    boxes
}

/// The sleep speed of a unit box: its centre's speed or its corners' speed from turning.
fn box_speed(world: &World, id: BodyId) -> f32 {
    let v = world.linear_velocity(id).unwrap().length();
    v.max(world.angular_velocity(id).unwrap().abs() * UNIT_BOX_REACH)
}

fn all_asleep(world: &World, ids: &[BodyId]) -> bool {
    ids.iter().all(|&id| !world.is_awake(id).unwrap())
}

fn all_awake(world: &World, ids: &[BodyId]) -> bool {
    ids.iter().all(|&id| world.is_awake(id).unwrap())
}

/// Steps until every body of `ids` sleeps; panics after `max_steps`. Returns the step count.
fn step_until_asleep(world: &mut World, ids: &[BodyId], max_steps: usize) -> usize {
    for n in 1..=max_steps {
        world.step(DT).unwrap();
        if all_asleep(world, ids) {
            return n;
        }
    }
    panic!("still awake after {max_steps} steps");
}

#[test]
fn sleeping_is_off_by_default_and_then_nothing_sleeps() {
    assert!(!WorldSettings::default().enable_sleep);
    assert_eq!(WorldSettings::default().time_to_sleep, 0.5);
    assert_eq!(BodyDef::dynamic().sleep_threshold, THRESHOLD);
    let mut world = World::new(WorldSettings::default());
    let ground = common::ground_of(&mut world, 100.0);
    let boxes = column(&mut world, 0.0, 3);
    for _ in 0..300 {
        world.step(DT).unwrap();
    }
    assert!(all_awake(&world, &boxes));
    assert_eq!(world.awake_body_count(), 3);
    // Static bodies are never awake.
    assert!(!world.is_awake(ground).unwrap());
}

/// The island sleeps once every box has been slower than the threshold for `time_to_sleep`,
/// all boxes in the same step; asleep, nothing moves and every contact is still counted.
#[test]
fn resting_stack_falls_asleep_about_time_to_sleep_after_settling() {
    for time_to_sleep in [0.5, 1.0] {
        let mut world = World::new(WorldSettings {
            enable_sleep: true,
            time_to_sleep,
            threads: 1,
            ..WorldSettings::default()
        });
        common::ground_of(&mut world, 100.0);
        // Dropped from 5 cm above its rest height so it has to settle first.
        let boxes: Vec<BodyId> = (0..4)
            .map(|i| unit_box(&mut world, Vec2::new(0.0, i as f32 + 0.55)))
            .collect();
        // The last step at the end of which some box was at or above the threshold.
        let mut last_fast = 0;
        let mut slept_at = None;
        for n in 1..=600 {
            world.step(DT).unwrap();
            let awake = boxes
                .iter()
                .filter(|&&b| world.is_awake(b).unwrap())
                .count();
            assert!(
                awake == 0 || awake == boxes.len(),
                "the island split its sleep: {awake} awake"
            );
            if awake == 0 {
                slept_at = Some(n);
                break;
            }
            if boxes.iter().any(|&b| box_speed(&world, b) >= THRESHOLD) {
                last_fast = n;
            }
        }
        let slept_at = slept_at.expect("the stack never fell asleep");
        assert!(last_fast > 0, "the drop should have moved the boxes");
        // Rest is counted from the first slow step after `last_fast`.
        let rested = (slept_at - last_fast) as f32 * DT;
        assert!(
            rested >= time_to_sleep - 1e-4 && rested <= time_to_sleep + 2.0 * DT,
            "slept {rested} s after settling, time_to_sleep {time_to_sleep}"
        );

        assert_eq!(world.awake_body_count(), 0);
        assert_eq!(world.contact_count(), 4);
        let at_rest: Vec<(Vec2, f32)> = boxes
            .iter()
            .map(|&b| (world.position(b).unwrap(), world.angle(b).unwrap()))
            .collect();
        for &b in &boxes {
            assert_eq!(world.linear_velocity(b).unwrap(), Vec2::ZERO);
            assert_eq!(world.angular_velocity(b).unwrap(), 0.0);
        }
        for _ in 0..120 {
            world.step(DT).unwrap();
        }
        for (&b, &(p, a)) in boxes.iter().zip(&at_rest) {
            assert_eq!(world.position(b).unwrap(), p);
            assert_eq!(world.angle(b).unwrap(), a);
        }
        assert!(all_asleep(&world, &boxes));
        assert_eq!(world.contact_count(), 4);
    }
}

/// A ball dropped on a sleeping pyramid wakes its island, the boxes it hits move; a second
/// pyramid that nothing touches (islands never join through the static ground) sleeps on.
#[test]
fn ball_dropped_on_sleeping_pyramid_wakes_the_boxes_it_hits() {
    let mut world = sleepy_world(Backend::Simd, 2);
    let hit = pyramid(&mut world, -10.0, 5);
    let spared = pyramid(&mut world, 10.0, 5);
    let mut both = hit.clone();
    both.extend(&spared);
    step_until_asleep(&mut world, &both, 600);

    let top = *hit.last().unwrap();
    let top_before = world.position(top).unwrap();
    let spared_before: Vec<Vec2> = spared.iter().map(|&b| world.position(b).unwrap()).collect();
    // A heavy ball, off the top box's centre so that it knocks it sideways.
    let ball = world
        .add_body(
            BodyDef::dynamic()
                .position(top_before + Vec2::new(0.3, 3.0))
                .linear_velocity(Vec2::new(0.0, -5.0)),
            ShapeDef::new(Shape::circle(0.5).unwrap()).density(20.0),
        )
        .unwrap();
    let mut woke = false;
    for _ in 0..60 {
        world.step(DT).unwrap();
        woke |= world.is_awake(top).unwrap();
    }
    assert!(woke, "the hit pyramid never woke");
    let moved = world.position(top).unwrap() - top_before;
    // The ball is 16 times heavier than a box: the island is solved exactly, and the rigid
    // pyramid gives way only by centimetres where the soft step let it yield further.
    assert!(moved.length() > 0.01, "the top box moved only {moved:?}");
    assert!(world.position(ball).unwrap().y < top_before.y + 3.0);
    assert!(all_asleep(&world, &spared));
    for (&b, &p) in spared.iter().zip(&spared_before) {
        assert_eq!(world.position(b).unwrap(), p);
    }
}

/// Setting a velocity, applying an impulse, `wake` and removing a neighbour each wake the
/// whole island; the change then acts.
#[test]
fn user_changes_wake_the_whole_island() {
    type Change = fn(&mut World, &[BodyId]);
    let changes: [(&str, Change); 5] = [
        ("set_linear_velocity", |w, ids| {
            w.set_linear_velocity(ids[2], Vec2::new(2.0, 0.0)).unwrap()
        }),
        ("set_angular_velocity", |w, ids| {
            w.set_angular_velocity(ids[2], 3.0).unwrap()
        }),
        ("apply_linear_impulse", |w, ids| {
            w.apply_linear_impulse(ids[2], Vec2::new(0.0, 4.0)).unwrap()
        }),
        ("wake", |w, ids| w.wake(ids[0]).unwrap()),
        ("remove_body", |w, ids| w.remove_body(ids[0]).unwrap()),
    ];
    for (name, change) in changes {
        let mut world = sleepy_world(Backend::Simd, 1);
        let boxes = column(&mut world, 0.0, 3);
        step_until_asleep(&mut world, &boxes, 600);
        let before: Vec<Vec2> = boxes.iter().map(|&b| world.position(b).unwrap()).collect();
        change(&mut world, &boxes);
        let alive: Vec<(BodyId, Vec2)> = boxes
            .iter()
            .copied()
            .zip(before)
            .filter(|&(b, _)| world.is_awake(b).is_ok())
            .collect();
        for &(b, _) in &alive {
            assert!(world.is_awake(b).unwrap(), "{name}: {b:?} still asleep");
        }
        // The largest move and turn of the changed box over the steps: a spun box rocks on
        // its support and may have settled back by the last one.
        let (mut moved, mut turned) = (0.0f32, 0.0f32);
        for _ in 0..10 {
            world.step(DT).unwrap();
            if let Some(&(b, p)) = alive.get(2) {
                moved = moved.max((world.position(b).unwrap() - p).length());
                turned = turned.max(world.angle(b).unwrap().abs());
            }
        }
        match name {
            // Only the wake itself: the stack rests, still awake, where it was.
            "wake" => {
                for &(b, p) in &alive {
                    assert!(world.is_awake(b).unwrap());
                    assert!((world.position(b).unwrap() - p).length() < 1e-3, "{name}");
                }
            }
            // The rest of the column falls into the gap.
            "remove_body" => {
                for &(b, p) in &alive {
                    assert!(
                        world.position(b).unwrap().y < p.y - 0.05,
                        "{name}: did not fall"
                    );
                }
            }
            _ => {
                assert!(
                    moved > 0.02 || turned > 0.02,
                    "{name}: no response (moved {moved} m, turned {turned} rad)"
                );
            }
        }
    }
}

/// A body woken in a world whose contacts have not changed moves as its velocity says. The
/// solver keeps last step's order of states while the contacts and the moving bodies stand:
/// here the world has no contacts at all, and only the woken body changes the moving ones.
#[test]
fn a_body_woken_in_an_unchanged_world_moves_at_its_velocity() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    let floating = BodyDef::dynamic()
        .position(Vec2::new(0.0, 10.0))
        .gravity_scale(0.0);
    let ball = ShapeDef::new(Shape::circle(0.5).unwrap());
    let floater = world.add_body(floating, ball.clone()).unwrap();
    step_until_asleep(&mut world, &[floater], 600);
    // A falling body keeps the step going (and takes a new slot, which orders the states
    // afresh without the sleeping floater).
    let faller = BodyDef::dynamic().position(Vec2::new(100.0, 10.0));
    let faller = world.add_body(faller, ball).unwrap();
    world.step(DT).unwrap();
    assert!(!world.is_awake(floater).unwrap());

    let start = world.position(floater).unwrap();
    let speed = 2.0;
    world
        .set_linear_velocity(floater, Vec2::new(speed, 0.0))
        .unwrap();
    let steps = 30;
    for _ in 0..steps {
        world.step(DT).unwrap();
    }
    assert!(world.is_awake(faller).unwrap());
    let moved = world.position(floater).unwrap() - start;
    let expected = speed * DT * steps as f32;
    assert!(
        (moved.x - expected).abs() < 1e-4 && moved.y.abs() < 1e-6,
        "moved {moved:?}, expected {expected} m along x"
    );
}

/// An island that loses a contact splits when part of it wants to sleep: a box that a
/// neighbour slid away from sleeps while the neighbour keeps sliding.
#[test]
fn a_part_left_behind_sleeps_while_the_rest_moves_on() {
    let mut world = sleepy_world(Backend::Simd, 1);
    let stays = unit_box(&mut world, Vec2::new(0.0, 0.5));
    // Frictionless, so it slides on at the speed it is given.
    let slides = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(1.0, 0.5)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).friction(0.0),
        )
        .unwrap();
    step_until_asleep(&mut world, &[stays, slides], 600);
    world
        .set_linear_velocity(slides, Vec2::new(1.0, 0.0))
        .unwrap();
    // Touching, they were one island: both woke.
    assert!(world.is_awake(stays).unwrap());
    let mut slept = None;
    for n in 1..=120 {
        world.step(DT).unwrap();
        assert!(
            world.is_awake(slides).unwrap(),
            "the slider slept at step {n}"
        );
        if slept.is_none() && !world.is_awake(stays).unwrap() {
            slept = Some(n);
        }
    }
    // 0.5 s of rest, plus at most one pause after a split that came too early.
    let slept = slept.expect("the box left behind never slept");
    assert!((30..=50).contains(&slept), "slept at step {slept}");
}

/// Removing the static ground under a sleeping island wakes it, and it falls.
#[test]
fn removing_a_static_body_wakes_the_islands_resting_on_it() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        threads: 1,
        ..WorldSettings::default()
    });
    let floor = world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -0.5)),
            ShapeDef::new(Shape::rect(5.0, 0.5).unwrap()),
        )
        .unwrap();
    let boxes = column(&mut world, 0.0, 2);
    step_until_asleep(&mut world, &boxes, 600);
    let y0 = world.position(boxes[0]).unwrap().y;
    world.remove_body(floor).unwrap();
    assert!(all_awake(&world, &boxes));
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    // Free fall for 0.5 s: 1.25 m.
    let fall = y0 - world.position(boxes[0]).unwrap().y;
    assert!((fall - 1.25).abs() < 0.05, "fell {fall} m");
}

/// A kinematic body at rest lets what it touches sleep; set moving, it wakes them on contact
/// and pushes them.
#[test]
fn moving_kinematic_body_wakes_what_it_pushes() {
    let mut world = sleepy_world(Backend::Simd, 1);
    let pusher = world
        .add_body(
            BodyDef::kinematic().position(Vec2::new(-3.0, 0.5)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap();
    let leaning = unit_box(&mut world, Vec2::new(3.0, 0.5));
    let wall = world
        .add_body(
            BodyDef::kinematic().position(Vec2::new(4.0, 0.5)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap();
    let target = unit_box(&mut world, Vec2::new(0.0, 0.5));
    step_until_asleep(&mut world, &[leaning, target], 600);
    assert!(world.is_awake(pusher).unwrap() && world.is_awake(wall).unwrap());
    let x0 = world.position(target).unwrap().x;
    world
        .set_linear_velocity(pusher, Vec2::new(1.0, 0.0))
        .unwrap();
    // Still asleep: nothing touches it yet.
    world.step(DT).unwrap();
    assert!(!world.is_awake(target).unwrap());
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    // Contact after about 2 s, then pushed along at 1 m/s for about 1 s.
    let pushed = world.position(target).unwrap().x - x0;
    assert!((0.8..1.2).contains(&pushed), "pushed {pushed} m");
    assert!(world.is_awake(target).unwrap());
    assert!(!world.is_awake(leaning).unwrap());
}

/// Speed above the threshold, however small and steady, keeps a body awake; just below, it
/// sleeps after `time_to_sleep`. Turning counts through the body's reach.
#[test]
fn steady_motion_above_the_threshold_never_sleeps() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        gravity: Vec2::ZERO,
        threads: 1,
        ..WorldSettings::default()
    });
    let add = |world: &mut World, y: f32, v: f32, w: f32| {
        world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(0.0, y))
                    .linear_velocity(Vec2::new(v, 0.0))
                    .angular_velocity(w),
                ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
            )
            .unwrap()
    };
    let gliding = add(&mut world, 0.0, 1.1 * THRESHOLD, 0.0);
    let turning = add(&mut world, 5.0, 0.0, 1.1 * THRESHOLD / UNIT_BOX_REACH);
    let creeping = add(&mut world, 10.0, 0.9 * THRESHOLD, 0.0);
    let mut creeping_slept = None;
    for n in 1..=600 {
        world.step(DT).unwrap();
        assert!(
            world.is_awake(gliding).unwrap(),
            "gliding body slept at step {n}"
        );
        assert!(
            world.is_awake(turning).unwrap(),
            "turning body slept at step {n}"
        );
        if creeping_slept.is_none() && !world.is_awake(creeping).unwrap() {
            creeping_slept = Some(n);
        }
    }
    // 0.5 s of rest: the 30th step.
    assert_eq!(creeping_slept, Some(30));
    // 10 s at a steady 5.5 cm/s.
    let x = world.position(gliding).unwrap().x;
    assert!((x - 10.0 * 1.1 * THRESHOLD).abs() < 1e-3, "glided to {x}");
}

/// With `time_to_sleep` 0 a slow body sleeps after one step, a fast one never.
#[test]
fn zero_time_to_sleep_still_needs_rest() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        time_to_sleep: 0.0,
        gravity: Vec2::ZERO,
        threads: 1,
        ..WorldSettings::default()
    });
    let shape = ShapeDef::new(Shape::circle(0.5).unwrap());
    let fast = world
        .add_body(
            BodyDef::dynamic().linear_velocity(Vec2::new(1.0, 0.0)),
            shape.clone(),
        )
        .unwrap();
    let slow = world
        .add_body(BodyDef::dynamic().position(Vec2::new(0.0, 5.0)), shape)
        .unwrap();
    world.step(DT).unwrap();
    assert!(!world.is_awake(slow).unwrap());
    for _ in 0..60 {
        world.step(DT).unwrap();
        assert!(world.is_awake(fast).unwrap());
    }
}

/// A body with threshold 0 never sleeps, and keeps its island awake.
#[test]
fn zero_threshold_keeps_the_island_awake() {
    let mut world = sleepy_world(Backend::Simd, 1);
    let bottom = unit_box(&mut world, Vec2::new(0.0, 0.5));
    let top = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.0, 1.5))
                .sleep_threshold(0.0),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap();
    let alone = unit_box(&mut world, Vec2::new(10.0, 0.5));
    for _ in 0..300 {
        world.step(DT).unwrap();
    }
    assert!(world.is_awake(top).unwrap() && world.is_awake(bottom).unwrap());
    assert!(!world.is_awake(alone).unwrap());
}

use common::state_bits as snapshot;

/// Pyramids fall asleep, balls dropped from different heights wake some of them at different
/// times, one of them is pushed by the user: snapshots along the way, plus how many bodies were
/// awake after each step.
fn sleep_and_wake_run(backend: Backend, threads: usize) -> (Vec<Vec<u32>>, Vec<usize>) {
    let mut world = sleepy_world(backend, threads);
    let mut pyramids = Vec::new();
    for k in 0..6 {
        pyramids.push(pyramid(&mut world, -30.0 + 12.0 * k as f32, 6));
    }
    for k in [1usize, 4] {
        let x = -30.0 + 12.0 * k as f32 + 0.3;
        world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(x, 30.0 + 10.0 * k as f32)),
                ShapeDef::new(Shape::circle(0.6).unwrap()).density(5.0),
            )
            .unwrap();
    }
    let mut snapshots = Vec::new();
    let mut awake = Vec::new();
    for n in 1..=240 {
        if n == 150 {
            world
                .apply_linear_impulse(pyramids[2][0], Vec2::new(5.0, 0.0))
                .unwrap();
        }
        world.step(DT).unwrap();
        awake.push(world.awake_body_count());
        if n % 20 == 0 {
            snapshots.push(snapshot(&world));
        }
    }
    (snapshots, awake)
}

#[test]
fn sleeping_and_waking_keep_threads_and_backends_bit_identical() {
    let (reference, awake) = sleep_and_wake_run(Backend::Scalar, 1);
    // The run must really sleep and wake: some step ends with fewer awake bodies than the one
    // before (islands fell asleep) and some with more (islands woke).
    let fell_asleep = awake.windows(2).any(|w| w[1] < w[0]);
    let woke = awake.windows(2).any(|w| w[1] > w[0]);
    assert!(fell_asleep && woke, "awake counts {awake:?}");
    for (backend, threads) in [
        (Backend::Simd, 1),
        (Backend::Simd, 2),
        (Backend::Simd, 3),
        (Backend::Scalar, 3),
    ] {
        let (other, other_awake) = sleep_and_wake_run(backend, threads);
        assert_eq!(
            other_awake, awake,
            "{backend:?} x {threads}: awake counts differ"
        );
        for (k, (a, b)) in reference.iter().zip(&other).enumerate() {
            assert!(a == b, "{backend:?} x {threads}: snapshot {k} differs");
        }
    }
}

#[test]
fn bad_sleep_settings_and_handles_are_errors() {
    for bad in [-0.1, f32::NAN, f32::INFINITY] {
        let mut world = World::new(WorldSettings::default());
        let def = BodyDef::dynamic().sleep_threshold(bad);
        let shape = ShapeDef::new(Shape::circle(0.5).unwrap());
        assert!(matches!(
            world.add_body(def, shape),
            Err(Error::InvalidParameter(_))
        ));
        assert_eq!(world.body_count(), 0);

        let settings = WorldSettings {
            enable_sleep: true,
            time_to_sleep: bad,
            ..WorldSettings::default()
        };
        assert!(matches!(
            World::try_new(settings.clone()),
            Err(Error::InvalidParameter(_))
        ));
        assert!(std::panic::catch_unwind(|| World::new(settings)).is_err());
    }
    let mut world = sleepy_world(Backend::Simd, 1);
    let b = unit_box(&mut world, Vec2::new(0.0, 0.5));
    world.remove_body(b).unwrap();
    assert_eq!(world.is_awake(b), Err(Error::InvalidBody));
    assert_eq!(world.wake(b), Err(Error::InvalidBody));
    let other = sleepy_world(Backend::Simd, 1);
    let foreign = other.bodies().next().unwrap();
    assert_eq!(world.is_awake(foreign), Err(Error::InvalidBody));
}
