//! Snapshots: a world restored from a snapshot (or cloned) steps to the same bits as the world
//! it was taken from, on any thread count and backend.

use crate::common::step;
use batch2d::{
    Backend, BodyDef, BodyId, JointDef, Shape, ShapeDef, Snapshot, Vec2, World, WorldSettings,
};

fn settings(sleep: bool, threads: usize, backend: Backend) -> WorldSettings {
    WorldSettings {
        enable_sleep: sleep,
        threads,
        backend,
        ..WorldSettings::default()
    }
}

/// Every slot's pose and velocities as bits (through the public calls), the touching
/// contacts' impulses, the last step's events, and the state hash. Equal vectors mean worlds
/// that agree bit for bit on all of it.
fn state(world: &World) -> Vec<u64> {
    let mut bits = Vec::new();
    for id in world.bodies() {
        let p = world.position(id).unwrap();
        let q = world.rotation(id).unwrap();
        let v = world.linear_velocity(id).unwrap();
        let w = world.angular_velocity(id).unwrap();
        let awake = world.is_awake(id).unwrap();
        bits.extend([p.x, p.y, q.c, q.s, v.x, v.y, w].map(|x| u64::from(x.to_bits())));
        bits.push(u64::from(awake));
    }
    for c in world.contacts() {
        for p in c.manifold.points.iter().take(c.manifold.point_count) {
            bits.push(u64::from(p.normal_impulse.to_bits()));
            bits.push(u64::from(p.tangent_impulse.to_bits()));
            bits.push(u64::from(p.id));
        }
    }
    let events = world.contact_events();
    bits.push(events.begin().len() as u64);
    bits.push(events.end().len() as u64);
    bits.push(events.sensor_begin().len() as u64);
    bits.push(events.sensor_end().len() as u64);
    bits.push(world.state_hash());
    bits
}

fn dynamic_box(world: &mut World, at: Vec2) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap()
}

/// A scene with a bit of everything: a pile of boxes, circles and capsules on a ground, a
/// compound body, a sensor, a joint of every kind, and bodies removed (so that the free slots
/// and generations matter).
fn mixed(settings: WorldSettings) -> (World, Vec<BodyId>) {
    let mut world = World::new(settings);
    let ground = world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(30.0, 1.0).unwrap()),
        )
        .unwrap();
    let mut removed = Vec::new();
    for i in 0..6 {
        for j in 0..4 {
            let at = Vec2::new(
                -6.0 + 1.1 * j as f32 + 0.1 * i as f32,
                0.5 + 1.05 * i as f32,
            );
            let shape = match (i + j) % 3 {
                0 => Shape::rect(0.5, 0.5).unwrap(),
                1 => Shape::circle(0.5).unwrap(),
                _ => Shape::capsule(Vec2::new(-0.3, 0.0), Vec2::new(0.3, 0.0), 0.2).unwrap(),
            };
            let id = world
                .add_body(BodyDef::dynamic().position(at), ShapeDef::new(shape))
                .unwrap();
            if (i * 4 + j) % 7 == 3 {
                removed.push(id);
            }
        }
    }
    for id in &removed {
        world.remove_body(*id).unwrap();
    }
    let compound = world
        .add_compound_body(
            BodyDef::dynamic().position(Vec2::new(4.0, 1.0)).angle(0.3),
            &[
                ShapeDef::new(Shape::rect(1.0, 0.2).unwrap()),
                ShapeDef::new(Shape::circle_at(Vec2::new(1.0, 0.3), 0.4).unwrap()),
            ],
        )
        .unwrap();
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(-4.5, 1.0)),
            ShapeDef::new(Shape::rect(2.0, 1.0).unwrap()).sensor(true),
        )
        .unwrap();
    // One joint of each kind, on bodies of their own away from the pile.
    let x = 10.0;
    let a = dynamic_box(&mut world, Vec2::new(x, 4.0));
    let b = dynamic_box(&mut world, Vec2::new(x + 1.0, 4.0));
    world
        .add_joint(JointDef::revolute(ground, a, Vec2::new(x, 5.0)))
        .unwrap();
    world
        .add_joint(JointDef::distance(
            a,
            b,
            Vec2::new(x, 4.0),
            Vec2::new(x + 1.0, 4.0),
        ))
        .unwrap();
    let c = dynamic_box(&mut world, Vec2::new(x + 3.0, 2.0));
    world
        .add_joint(
            JointDef::prismatic(ground, c, Vec2::new(x + 3.0, 2.0), Vec2::new(1.0, 0.0))
                .limits(-1.0, 1.0)
                .motor(1.0, 50.0),
        )
        .unwrap();
    let d = dynamic_box(&mut world, Vec2::new(x + 5.0, 3.0));
    let e = dynamic_box(&mut world, Vec2::new(x + 6.0, 3.0));
    world
        .add_joint(JointDef::weld(d, e, Vec2::new(x + 5.5, 3.0)))
        .unwrap();
    let f = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(x + 8.0, 1.0)),
            ShapeDef::new(Shape::circle(0.4).unwrap()),
        )
        .unwrap();
    world
        .add_joint(JointDef::wheel(
            e,
            f,
            Vec2::new(x + 8.0, 1.0),
            Vec2::new(0.0, 1.0),
        ))
        .unwrap();
    let g = dynamic_box(&mut world, Vec2::new(x + 10.0, 3.0));
    world
        .add_joint(JointDef::mouse(g, Vec2::new(x + 10.5, 5.0)))
        .unwrap();
    let h = dynamic_box(&mut world, Vec2::new(x + 12.0, 3.0));
    world.add_joint(JointDef::motor_joint(ground, h)).unwrap();
    // A body thrown into the pile, so that contacts begin and end along the way.
    let thrown = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(-12.0, 3.0))
                .linear_velocity(Vec2::new(12.0, 0.0)),
            ShapeDef::new(Shape::circle(0.3).unwrap()),
        )
        .unwrap();
    (world, vec![compound, thrown, a, g])
}

/// Steps `world` `k` steps, saves it, steps `n` more, restores, steps `n` again, and checks
/// that both runs end in the same bits. Also checks a clone, a world made from the snapshot
/// with other execution settings, and a restore into a third world.
fn check_continuation(world: &mut World, k: usize, n: usize, what: &str) {
    step(world, k);
    let before = state(world);
    let snap = world.snapshot();
    let twin = world.clone();
    step(world, n);
    let first = state(world);
    world.restore(&snap).unwrap();
    assert_eq!(state(world), before, "{what}: restore at step {k} differs");
    step(world, n);
    assert_eq!(
        state(world),
        first,
        "{what}: rerun after restore at step {k} differs"
    );

    let mut twin = twin;
    step(&mut twin, n);
    assert_eq!(state(&twin), first, "{what}: clone at step {k} differs");

    let bytes = snap.to_bytes();
    let read = Snapshot::from_bytes(&bytes).unwrap();
    assert_eq!(
        read.to_bytes(),
        bytes,
        "{what}: bytes read back write the same bytes"
    );
    let mut from_bytes = World::from_snapshot(&read, settings(false, 2, Backend::Simd)).unwrap();
    assert_eq!(
        state(&from_bytes),
        before,
        "{what}: read from bytes at step {k}"
    );
    step(&mut from_bytes, n);
    assert_eq!(
        state(&from_bytes),
        first,
        "{what}: read from bytes at step {k} differs"
    );

    for (threads, backend) in [(1, Backend::Scalar), (3, Backend::Simd)] {
        let other = WorldSettings {
            // Ignored but for the execution fields: the physics settings are the snapshot's.
            gravity: Vec2::new(5.0, 5.0),
            ..settings(false, threads, backend)
        };
        let mut copy = World::from_snapshot(&snap, other).unwrap();
        assert_eq!(copy.settings().threads, threads);
        assert_eq!(copy.settings().backend, backend);
        step(&mut copy, n);
        assert_eq!(
            state(&copy),
            first,
            "{what}: from_snapshot({threads} threads, {backend:?}) at step {k} differs"
        );
    }
}

#[test]
fn restored_worlds_step_to_the_same_bits() {
    for sleep in [false, true] {
        for k in [0, 1, 90] {
            let (mut world, _) = mixed(settings(sleep, 2, Backend::Simd));
            check_continuation(&mut world, k, 60, &format!("sleep {sleep}"));
            if sleep && k == 90 {
                // The rerun covered bodies falling asleep, and the snapshot sleeping ones.
                let asleep = world.bodies().filter(|&id| !world.is_awake(id).unwrap());
                assert!(asleep.count() > 0, "nothing sleeps");
            }
        }
    }
}

#[test]
fn restoring_into_another_world_keeps_its_execution_settings() {
    let (mut world, _) = mixed(settings(true, 2, Backend::Simd));
    step(&mut world, 30);
    let snap = world.snapshot();
    step(&mut world, 40);
    let expected = state(&world);
    let mut other = World::new(settings(false, 1, Backend::Scalar));
    dynamic_box(&mut other, Vec2::ZERO);
    other.restore(&snap).unwrap();
    assert_eq!(other.settings().threads, 1);
    assert_eq!(other.settings().backend, Backend::Scalar);
    assert!(
        other.settings().enable_sleep,
        "physics settings come from the snapshot"
    );
    step(&mut other, 40);
    assert_eq!(state(&other), expected);
}

#[test]
fn a_restored_world_steps_as_one_never_saved() {
    let (mut plain, _) = mixed(settings(true, 2, Backend::Simd));
    let (mut saved, _) = mixed(settings(true, 2, Backend::Simd));
    step(&mut plain, 50);
    step(&mut saved, 20);
    let snap = saved.snapshot();
    step(&mut saved, 7);
    saved.restore(&snap).unwrap();
    step(&mut saved, 30);
    assert_eq!(state(&saved), state(&plain));
}

#[test]
fn handles_stay_valid_and_stale_handles_stay_stale() {
    let (mut world, ids) = mixed(settings(false, 2, Backend::Simd));
    let gone = world.bodies().nth(3).unwrap();
    world.remove_body(gone).unwrap();
    step(&mut world, 10);
    let snap = world.snapshot();
    // Reuse the freed slot after the snapshot: restore must bring back the free slot, so that
    // the next body added takes the same slot and generation in both runs.
    let newer = dynamic_box(&mut world, Vec2::new(0.0, 20.0));
    step(&mut world, 5);
    world.restore(&snap).unwrap();
    assert!(
        world.position(gone).is_err(),
        "a removed body stays removed"
    );
    assert!(
        world.position(newer).is_err(),
        "a body added after the snapshot is gone"
    );
    for id in ids {
        assert!(world.position(id).is_ok());
    }
    let again = dynamic_box(&mut world, Vec2::new(0.0, 20.0));
    assert_eq!(again, newer, "the free slots come back in the same order");
}

#[test]
fn forces_and_unread_events_are_saved() {
    let (mut world, ids) = mixed(settings(false, 2, Backend::Simd));
    step(&mut world, 20);
    world.apply_force(ids[1], Vec2::new(300.0, 200.0)).unwrap();
    world.apply_torque(ids[0], 40.0).unwrap();
    let events = world.contact_events().clone();
    let snap = world.snapshot();
    step(&mut world, 15);
    let expected = state(&world);
    world.restore(&snap).unwrap();
    assert_eq!(*world.contact_events(), events);
    step(&mut world, 15);
    assert_eq!(state(&world), expected);
}

#[test]
fn the_state_hash_follows_the_state() {
    let (mut one, _) = mixed(settings(false, 1, Backend::Scalar));
    let (mut two, _) = mixed(settings(false, 3, Backend::Simd));
    assert_eq!(one.state_hash(), two.state_hash());
    step(&mut one, 40);
    step(&mut two, 40);
    assert_eq!(one.state_hash(), two.state_hash(), "threads and backend");
    let moved = one.bodies().nth(5).unwrap();
    let v = one.linear_velocity(moved).unwrap();
    one.set_linear_velocity(moved, Vec2::new(v.x + 1.0e-6, v.y))
        .unwrap();
    assert_ne!(one.state_hash(), two.state_hash(), "a changed velocity");
}

#[test]
fn snapshots_are_send_and_sync() {
    fn check<T: Send + Sync + Clone>() {}
    check::<Snapshot>();
    check::<World>();
}

#[test]
fn a_restored_world_with_a_restored_stepper_gives_the_same_frames() {
    use batch2d::FixedStepper;
    let (mut world, ids) = mixed(settings(false, 2, Backend::Simd));
    let mut stepper = FixedStepper::new();
    // Frame times that do not divide the step, so that the accumulator carries over.
    let frames = [0.021, 0.013, 0.017, 0.0333, 0.009, 0.016, 0.025];
    for &t in &frames {
        stepper.advance(&mut world, t).unwrap();
    }
    let (saved_world, saved_stepper) = (world.snapshot(), stepper.clone());
    let run = |world: &mut World, stepper: &mut FixedStepper| {
        let mut out = Vec::new();
        for &t in frames.iter().cycle().take(40) {
            let report = stepper.advance(world, t).unwrap();
            out.push(u64::from(report.steps));
            out.push(u64::from(report.alpha.to_bits()));
            for &id in &ids {
                let xf = stepper.interpolated_transform(world, id).unwrap();
                out.extend([xf.p.x, xf.p.y, xf.q.c, xf.q.s].map(|x| u64::from(x.to_bits())));
            }
        }
        out.extend(state(world));
        out
    };
    let first = run(&mut world, &mut stepper);
    world.restore(&saved_world).unwrap();
    let mut stepper = saved_stepper;
    assert_eq!(run(&mut world, &mut stepper), first);
}

/// A world with what run-time control, chains and joint trees add to the state: a smooth
/// chain loop, grouped and filtered shapes, a disabled body, a body allowed to spin fast, a
/// joint with a break force and a switched-off motor, a joint tree, a kinematic platform moved
/// by velocity, and changed densities and kinds.
fn game_world(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    let ground = world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(30.0, 1.0).unwrap()),
        )
        .unwrap();
    let bowl = [
        (-6.0, 4.0),
        (-4.0, 1.0),
        (-2.0, 0.5),
        (-0.5, 1.0),
        (1.0, 4.0),
    ];
    let bowl: Vec<Vec2> = bowl.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &bowl,
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    for i in 0..4 {
        let limb = ShapeDef::new(Shape::rect(0.3, 0.3).unwrap()).group(-1);
        let at = Vec2::new(-3.0 + 0.2 * i as f32, 3.0 + 0.5 * i as f32);
        world
            .add_body(BodyDef::dynamic().position(at), limb)
            .unwrap();
    }
    let off = dynamic_box(&mut world, Vec2::new(4.0, 3.0));
    world.set_enabled(off, false).unwrap();
    let spinner = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(8.0, 6.0))
                .angular_velocity(300.0)
                .allow_fast_rotation(true),
            ShapeDef::new(Shape::rect(0.5, 0.1).unwrap()),
        )
        .unwrap();
    world.set_density(spinner, 3.0).unwrap();
    let wheel = dynamic_box(&mut world, Vec2::new(10.0, 3.0));
    let hinge = world
        .add_joint(
            JointDef::revolute(ground, wheel, Vec2::new(10.0, 3.0))
                .motor(2.0, 50.0)
                .break_force(5.0),
        )
        .unwrap();
    world.enable_joint_motor(hinge, false).unwrap();
    let mut last = ground;
    for i in 0..5 {
        let link = dynamic_box(&mut world, Vec2::new(14.0 + i as f32, 6.0));
        let at = Vec2::new(13.5 + i as f32, 6.0);
        world.add_joint(JointDef::revolute(last, link, at)).unwrap();
        last = link;
    }
    let platform = world
        .add_body(
            BodyDef::kinematic().position(Vec2::new(-10.0, 2.0)),
            ShapeDef::new(Shape::rect(1.0, 0.1).unwrap()),
        )
        .unwrap();
    dynamic_box(&mut world, Vec2::new(-10.0, 2.7));
    world
        .set_target_transform(platform, Vec2::new(-9.0, 2.0), 0.0, 1.0)
        .unwrap();
    let crate_ = dynamic_box(&mut world, Vec2::new(6.0, 5.0));
    world
        .set_body_kind(crate_, batch2d::BodyKind::Fixed)
        .unwrap();
    world
}

#[test]
fn run_time_state_is_saved_too() {
    for k in [1, 45] {
        let mut world = game_world(settings(false, 2, Backend::Simd));
        check_continuation(&mut world, k, 40, "game world");
        assert!(!world.joint_events().is_empty(), "no joint broke past 5 N");
    }
}

#[test]
fn clones_share_the_hooks_snapshots_leave_them_and_restore_keeps_its_own() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let calls = Arc::new(AtomicUsize::new(0));
    let mut world = game_world(settings(false, 2, Backend::Simd));
    step(&mut world, 30);
    let counted = calls.clone();
    world
        .set_pre_solve(move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
            true
        })
        .unwrap();
    let snap = world.snapshot();
    let mut twin = world.clone();
    step(&mut twin, 1);
    let after_twin = calls.load(Ordering::Relaxed);
    assert!(after_twin > 0, "the clone calls the shared hook");
    let mut fresh = World::from_snapshot(&snap, settings(false, 1, Backend::Simd)).unwrap();
    step(&mut fresh, 1);
    assert_eq!(
        calls.load(Ordering::Relaxed),
        after_twin,
        "a snapshot saves no hook"
    );
    world.restore(&snap).unwrap();
    step(&mut world, 1);
    assert!(
        calls.load(Ordering::Relaxed) > after_twin,
        "restore keeps the world's hook"
    );
}

/// Two chains of boxes hung from a fixed body (the first welded, the second pinned: trees of
/// the exact solve), and a ring of four pinned boxes (a loop: soft passes), falling a little
/// apart so that they swing.
fn jointed(settings: WorldSettings) -> (World, Vec<BodyId>, Vec<batch2d::JointId>) {
    let mut world = World::new(settings);
    let (mut bodies, mut joints) = (Vec::new(), Vec::new());
    let box_def = |world: &mut World, at: Vec2| dynamic_box(world, at);
    for (x, weld) in [(0.0, true), (4.0, false)] {
        let top = world
            .add_body(
                BodyDef::fixed().position(Vec2::new(x, 10.0)),
                ShapeDef::new(Shape::rect(0.2, 0.2).unwrap()),
            )
            .unwrap();
        bodies.push(top);
        let mut above = top;
        for k in 1..=5 {
            let at = Vec2::new(x + 0.3 * k as f32, 10.0 - k as f32);
            let link = box_def(&mut world, at);
            let anchor = at + Vec2::new(0.0, 0.5);
            let def = match weld && k % 2 == 0 {
                true => JointDef::weld(above, link, anchor),
                false => JointDef::revolute(above, link, anchor),
            };
            joints.push(world.add_joint(def).unwrap());
            bodies.push(link);
            above = link;
        }
    }
    let ring: Vec<BodyId> = [(8.0, 5.0), (9.2, 5.0), (9.2, 3.8), (8.0, 3.8)]
        .map(|(x, y)| box_def(&mut world, Vec2::new(x, y)))
        .to_vec();
    for k in 0..4 {
        let (a, b) = (ring[k], ring[(k + 1) % 4]);
        let anchor = (world.position(a).unwrap() + world.position(b).unwrap()) * 0.5;
        joints.push(world.add_joint(JointDef::revolute(a, b, anchor)).unwrap());
    }
    bodies.extend(ring);
    (world, bodies, joints)
}

/// The step keeps the joints' trees and colors while nothing they derive from changes: after
/// each change that alters them, a world steps as the same world read back from bytes, which
/// finds them afresh.
#[test]
fn joint_layouts_follow_every_change() {
    type Change = fn(&mut World, &[BodyId], &[batch2d::JointId]);
    let changes: [(&str, Change); 10] = [
        ("limits", |w, _, j| {
            w.set_joint_limits(j[6], -0.01, 0.01).unwrap()
        }),
        ("motor", |w, _, j| {
            w.set_joint_motor(j[7], 1.0, 50.0).unwrap()
        }),
        ("joint removed", |w, _, j| w.remove_joint(j[2]).unwrap()),
        ("loop closed", |w, b, _| {
            let def = JointDef::revolute(b[5], b[9], w.position(b[9]).unwrap());
            w.add_joint(def).unwrap();
        }),
        ("kind", |w, b, _| {
            w.set_body_kind(b[3], batch2d::BodyKind::Fixed).unwrap()
        }),
        ("disabled", |w, b, _| w.set_enabled(b[8], false).unwrap()),
        ("density", |w, b, _| w.set_density(b[2], 9.0).unwrap()),
        ("body removed", |w, b, _| w.remove_body(b[10]).unwrap()),
        ("ring joint removed", |w, _, j| {
            w.remove_joint(j[11]).unwrap()
        }),
        // A pin of the ring leaves the pin batches for the scalar passes and comes back with
        // the impulses those left it.
        ("ring limits on and off", |w, _, j| {
            w.set_joint_limits(j[12], -0.01, 0.01).unwrap();
            step(w, 5);
            w.enable_joint_limits(j[12], false).unwrap()
        }),
    ];
    for threads in [1, 2] {
        for (what, change) in changes {
            let (mut world, bodies, joints) = jointed(settings(false, threads, Backend::Simd));
            step(&mut world, 20);
            change(&mut world, &bodies, &joints);
            let bytes = world.snapshot().to_bytes();
            let read = Snapshot::from_bytes(&bytes).unwrap();
            let mut fresh = World::from_snapshot(&read, world.settings().clone()).unwrap();
            step(&mut world, 30);
            step(&mut fresh, 30);
            assert_eq!(state(&world), state(&fresh), "{what}, {threads} threads");
        }
    }
}

/// A jointed world (its ring's joints solved eight to a pin batch, which keep their
/// impulses from step to step) restored into itself after it ran on, cloned, or read back
/// from bytes steps to the same bits as the world it was saved from.
#[test]
fn jointed_worlds_restore_to_the_same_bits() {
    for threads in [1, 2] {
        let (mut world, _, _) = jointed(settings(false, threads, Backend::Simd));
        check_continuation(&mut world, 20, 30, &format!("jointed, {threads} threads"));
    }
}
