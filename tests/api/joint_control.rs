//! Joints changed while the world runs, against the laws they follow: motors switched to a
//! new speed reach it, springs oscillate at their frequency, limits set at run time hold, a
//! weld reports its break in the step its load passes the threshold, and the joint's angle,
//! translation and speed match the bodies' poses and velocities. Bad calls are refused and
//! leave the world unchanged, and the results are bit-identical across backends and threads.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, Error, JointDef, JointId, Shape, ShapeDef, Vec2, World, WorldSettings,
};
use common::{body_state_bits, step, DT};
use std::f32::consts::PI;

const G: f32 = 10.0;

fn world(gravity: Vec2) -> World {
    World::new(WorldSettings {
        gravity,
        ..WorldSettings::default()
    })
}

fn pin(world: &mut World, at: Vec2) -> BodyId {
    world
        .add_body(
            BodyDef::fixed().position(at),
            ShapeDef::new(Shape::circle(0.05).unwrap()),
        )
        .unwrap()
}

fn disk(world: &mut World, at: Vec2, radius: f32, density: f32) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::circle(radius).unwrap()).density(density),
        )
        .unwrap()
}

fn block(world: &mut World, at: Vec2, half: Vec2, density: f32) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::rect(half.x, half.y).unwrap()).density(density),
        )
        .unwrap()
}

/// Times (s) at which `samples` (one per step, the first after step 1) cross zero upwards,
/// linearly interpolated between steps.
fn upward_crossings(samples: &[f32]) -> Vec<f32> {
    let mut times = Vec::new();
    for (i, pair) in samples.windows(2).enumerate() {
        let (x0, x1) = (pair[0], pair[1]);
        if x0 < 0.0 && x1 >= 0.0 {
            let t0 = (i + 1) as f32 * DT;
            times.push(t0 + DT * (-x0 / (x1 - x0)));
        }
    }
    times
}

/// The mean period of `samples` from their first and last upward zero crossings.
fn period(samples: &[f32]) -> f32 {
    let t = upward_crossings(samples);
    assert!(t.len() >= 3, "too few oscillations: {} crossings", t.len());
    (t[t.len() - 1] - t[0]) / (t.len() - 1) as f32
}

/// A motor switched from 2 to -3 rad/s while the world runs reaches -3 rad/s, the joint's
/// speed is the bodies' relative turn, and a motor switched off leaves the wheel spinning
/// freely (no torque: its speed stays).
#[test]
fn a_motor_switched_to_a_new_speed_reaches_it() {
    let mut w = world(Vec2::ZERO);
    let hub = pin(&mut w, Vec2::ZERO);
    let wheel = disk(&mut w, Vec2::ZERO, 0.5, 1.0);
    let hinge = w
        .add_joint(JointDef::revolute(hub, wheel, Vec2::ZERO).motor(2.0, 100.0))
        .unwrap();
    step(&mut w, 60);
    assert!((w.joint_speed(hinge).unwrap() - 2.0).abs() < 1e-3);
    assert_eq!(w.joint_motor(hinge), Ok(Some((2.0, 100.0))));
    w.set_joint_motor(hinge, -3.0, 100.0).unwrap();
    assert_eq!(w.joint_motor(hinge), Ok(Some((-3.0, 100.0))));
    step(&mut w, 60);
    let speed = w.joint_speed(hinge).unwrap();
    assert!((speed + 3.0).abs() < 1e-3, "speed {speed}, want -3");
    assert_eq!(speed, w.angular_velocity(wheel).unwrap());

    // A torque cap: the wheel's inertia I = m r^2 / 2 reaches the new speed at the rate
    // max / I, no faster.
    let inertia = 0.5 * (PI * 0.25) * 0.25;
    let max = 0.1;
    w.set_joint_motor(hinge, 3.0, max).unwrap();
    step(&mut w, 30);
    let expected = -3.0 + max / inertia * 30.0 * DT;
    let speed = w.joint_speed(hinge).unwrap();
    assert!(
        (speed - expected).abs() < 0.01 * (expected + 3.0),
        "speed {speed}, law {expected}"
    );

    w.enable_joint_motor(hinge, false).unwrap();
    assert_eq!(w.joint_motor(hinge), Ok(None));
    let before = w.joint_speed(hinge).unwrap();
    step(&mut w, 30);
    assert!((w.joint_speed(hinge).unwrap() - before).abs() < 1e-5);
    // On again: the motor kept its speed and torque.
    w.enable_joint_motor(hinge, true).unwrap();
    assert_eq!(w.joint_motor(hinge), Ok(Some((3.0, max))));
    step(&mut w, 400);
    assert!((w.joint_speed(hinge).unwrap() - 3.0).abs() < 1e-3);
}

/// A revolute spring between two free disks of different inertia oscillates at its
/// frequency: the spring's stiffness is set from the pair's reduced inertia, so the relative
/// angle's period is 1 / hertz, and the pair's angular momentum is conserved.
#[test]
fn a_revolute_spring_oscillates_at_its_frequency() {
    for hertz in [1.0, 3.0] {
        let mut w = world(Vec2::ZERO);
        let a = disk(&mut w, Vec2::ZERO, 0.5, 1.0);
        let b = disk(&mut w, Vec2::ZERO, 0.8, 2.0);
        let hinge = w
            .add_joint(JointDef::revolute(a, b, Vec2::ZERO).spring(hertz, 0.0))
            .unwrap();
        w.set_angular_velocity(b, 1.0).unwrap();
        let inertia = |r: f32, density: f32| 0.5 * density * PI * r * r * r * r;
        let (ia, ib) = (inertia(0.5, 1.0), inertia(0.8, 2.0));
        let momentum = ib * 1.0;
        let mut angles = Vec::new();
        for _ in 0..(4.0 / hertz / DT) as usize {
            w.step(DT).unwrap();
            angles.push(w.joint_angle(hinge).unwrap());
            let l = ia * w.angular_velocity(a).unwrap() + ib * w.angular_velocity(b).unwrap();
            assert!((l - momentum).abs() < 1e-3 * momentum, "momentum {l}");
        }
        // Starts at zero going up: the crossings are the periods' ends.
        let angles: Vec<f32> = angles.iter().map(|&x| -x).collect();
        let t = period(&angles);
        assert!(
            (t * hertz - 1.0).abs() < 0.005,
            "{hertz} Hz: period {t}, law {}",
            1.0 / hertz
        );
        // Stiffened while it swings: from the next step on, the new frequency.
        w.set_joint_spring(hinge, 2.0 * hertz, 0.0).unwrap();
        let mut angles = Vec::new();
        for _ in 0..(2.0 / hertz / DT) as usize {
            w.step(DT).unwrap();
            angles.push(w.joint_angle(hinge).unwrap());
        }
        let t = period(&angles);
        assert!(
            (t * 2.0 * hertz - 1.0).abs() < 0.005,
            "set to {} Hz: period {t}",
            2.0 * hertz
        );
    }
}

/// A prismatic spring holds a block at its place on the axis with period 1 / hertz, and the
/// joint's translation and speed are the block's along the axis.
#[test]
fn a_prismatic_spring_oscillates_at_its_frequency() {
    let hertz = 2.0;
    let mut w = world(Vec2::ZERO);
    let base = pin(&mut w, Vec2::ZERO);
    let start = Vec2::new(1.0, 1.0);
    let slider = block(&mut w, start, Vec2::new(0.3, 0.2), 1.0);
    let axis = Vec2::new(1.0, 1.0);
    let joint = w
        .add_joint(JointDef::prismatic(base, slider, start, axis).spring(hertz, 0.0))
        .unwrap();
    w.set_linear_velocity(slider, Vec2::new(0.5, 0.5)).unwrap();
    let unit = Vec2::new(1.0, 1.0) * (0.5f32).sqrt();
    let mut s = Vec::new();
    for _ in 0..150 {
        w.step(DT).unwrap();
        let t = w.joint_translation(joint).unwrap();
        let p = w.position(slider).unwrap() - start;
        assert!((t - p.dot(unit)).abs() < 1e-5, "translation {t} at {p:?}");
        let v = w.linear_velocity(slider).unwrap().dot(unit);
        assert!((w.joint_speed(joint).unwrap() - v).abs() < 1e-5);
        s.push(-t);
    }
    let t = period(&s);
    assert!((t * hertz - 1.0).abs() < 0.005, "period {t}");
}

/// Limits set while the world runs hold against a motor, tightened limits bring the joint
/// back within them, and limits switched off let the motor through.
#[test]
fn limits_changed_at_run_time_hold() {
    let mut w = world(Vec2::ZERO);
    let hub = pin(&mut w, Vec2::ZERO);
    let arm = block(&mut w, Vec2::new(1.0, 0.0), Vec2::new(1.0, 0.1), 1.0);
    let hinge = w
        .add_joint(JointDef::revolute(hub, arm, Vec2::ZERO).motor(5.0, 5.0))
        .unwrap();
    w.set_joint_limits(hinge, -0.5, 0.5).unwrap();
    step(&mut w, 60);
    let angle = w.joint_angle(hinge).unwrap();
    assert!(
        (angle - 0.5).abs() < 0.01,
        "angle {angle} at the upper limit 0.5"
    );
    w.set_joint_limits(hinge, -0.2, 0.2).unwrap();
    step(&mut w, 60);
    let angle = w.joint_angle(hinge).unwrap();
    assert!(
        (angle - 0.2).abs() < 0.01,
        "angle {angle} at the new limit 0.2"
    );
    w.set_joint_motor(hinge, -5.0, 5.0).unwrap();
    step(&mut w, 60);
    let angle = w.joint_angle(hinge).unwrap();
    assert!(
        (angle + 0.2).abs() < 0.01,
        "angle {angle} at the lower limit -0.2"
    );
    w.enable_joint_limits(hinge, false).unwrap();
    step(&mut w, 20);
    assert!(
        w.joint_angle(hinge).unwrap() < -0.5,
        "limits off: the motor turns on"
    );
    w.enable_joint_limits(hinge, true).unwrap();
    w.set_joint_limits(hinge, -1.0, -0.9).unwrap();
    w.set_joint_motor(hinge, 5.0, 5.0).unwrap();
    step(&mut w, 60);
    let angle = w.joint_angle(hinge).unwrap();
    assert!(
        (angle + 0.9).abs() < 0.01,
        "angle {angle} at the limit -0.9"
    );

    // A prismatic joint's limits and a distance joint's range, the same way.
    let mut w = world(Vec2::ZERO);
    let base = pin(&mut w, Vec2::ZERO);
    let slider = block(&mut w, Vec2::new(0.0, 0.0), Vec2::new(0.2, 0.2), 1.0);
    let x = Vec2::new(1.0, 0.0);
    let joint = w
        .add_joint(JointDef::prismatic(base, slider, Vec2::ZERO, x).motor(2.0, 100.0))
        .unwrap();
    w.set_joint_limits(joint, -1.0, 0.7).unwrap();
    step(&mut w, 60);
    let s = w.joint_translation(joint).unwrap();
    assert!((s - 0.7).abs() < 0.005, "translation {s} at the limit 0.7");

    let anchor = Vec2::new(5.0, 0.0);
    let hook = pin(&mut w, anchor);
    let ball = disk(&mut w, Vec2::new(6.0, 0.0), 0.2, 1.0);
    let rope = w
        .add_joint(
            JointDef::distance(hook, ball, anchor, Vec2::new(6.0, 0.0))
                .length_range(0.5, 3.0)
                .motor(1.0, 5.0),
        )
        .unwrap();
    step(&mut w, 30);
    let speed = w.joint_speed(rope).unwrap();
    assert!((speed - 1.0).abs() < 1e-3, "distance motor speed {speed}");
    w.set_joint_limits(rope, 0.5, 1.8).unwrap();
    step(&mut w, 60);
    let length = (w.position(ball).unwrap() - anchor).length();
    assert!((length - 1.8).abs() < 0.005, "rope length {length} at 1.8");
}

/// A weld holding a hanging block carries its weight m g; pulled down by a force that grows
/// k t, it reports its event in the step where m g + k t passes its break force, and not
/// before. It stays until the user removes it; then the block falls.
#[test]
fn a_weld_reports_its_break_in_the_step_its_force_passes_the_threshold() {
    let mut w = world(Vec2::new(0.0, -G));
    let wall = pin(&mut w, Vec2::ZERO);
    let half = Vec2::new(0.25, 0.5);
    let density = 4.0;
    let load = block(&mut w, Vec2::new(0.0, -half.y), half, density);
    let mass = density * 4.0 * half.x * half.y;
    let weight = mass * G;
    let threshold = 2.0 * weight;
    let weld = w
        .add_joint(JointDef::weld(wall, load, Vec2::ZERO).break_force(threshold))
        .unwrap();
    step(&mut w, 30);
    let f = w.joint_reaction_force(weld).unwrap();
    assert!(
        (f.y - weight).abs() < 0.01 * weight,
        "static force {f:?}, m g {weight}"
    );
    assert!(w.joint_events().is_empty());

    // Pull: k t with t from the first pulled step; the law's step is the first whose pull
    // passes threshold - m g.
    let k = 50.0;
    let law = ((threshold - weight) / (k * DT)).ceil() as usize;
    let mut first = None;
    for n in 1..=2 * law {
        let pull = k * n as f32 * DT;
        let centre = w.position(load).unwrap();
        w.apply_force_at_point(load, Vec2::new(0.0, -pull), centre)
            .unwrap();
        w.step(DT).unwrap();
        let events = w.joint_events();
        if let Some(e) = events.first() {
            assert_eq!(events.len(), 1);
            assert_eq!(e.joint, weld);
            let expected = weight + pull;
            assert!(
                (e.force.length() - expected).abs() < 0.02 * expected,
                "{e:?}"
            );
            assert!(e.force.length() > threshold);
            assert!(e.torque.abs() < 0.01 * weight);
            first.get_or_insert(n);
        } else {
            assert!(first.is_none(), "the event stops while the load stays");
        }
    }
    let first = first.expect("the weld reports its break");
    assert!(
        first.abs_diff(law) <= 1,
        "event in step {first}, the load passes the threshold in step {law}"
    );
    assert_eq!(
        w.joint_count(),
        1,
        "the joint stays until the user removes it"
    );
    w.remove_joint(weld).unwrap();
    step(&mut w, 10);
    assert!(w.linear_velocity(load).unwrap().y < -0.1, "the block falls");
    assert!(w.joint_events().is_empty());
}

/// The angle, translation and speed of each kind match the bodies' poses and velocities.
#[test]
fn readings_match_the_bodies() {
    let mut w = world(Vec2::new(0.0, -G));
    let a = block(&mut w, Vec2::new(0.0, 2.0), Vec2::new(0.5, 0.1), 1.0);
    let b = block(&mut w, Vec2::new(1.0, 2.0), Vec2::new(0.5, 0.1), 1.0);
    let top = pin(&mut w, Vec2::new(-0.5, 2.0));
    w.add_joint(JointDef::revolute(top, a, Vec2::new(-0.5, 2.0)))
        .unwrap();
    let hinge = w
        .add_joint(JointDef::revolute(a, b, Vec2::new(0.5, 2.0)))
        .unwrap();
    let c = disk(&mut w, Vec2::new(3.0, 2.0), 0.2, 1.0);
    let axis = Vec2::new(0.6, -0.8);
    let wheel = w
        .add_joint(JointDef::wheel(b, c, Vec2::new(3.0, 2.0), axis).spring(2.0, 0.1))
        .unwrap();
    let rod = w
        .add_joint(
            JointDef::distance(top, c, Vec2::new(-0.5, 2.0), Vec2::new(3.0, 2.0)).spring(1.0, 0.0),
        )
        .unwrap();
    for _ in 0..90 {
        w.step(DT).unwrap();
        let (qa, qb) = (w.angle(a).unwrap(), w.angle(b).unwrap());
        let mut rel = qb - qa;
        if rel > PI {
            rel -= 2.0 * PI;
        } else if rel < -PI {
            rel += 2.0 * PI;
        }
        assert!((w.joint_angle(hinge).unwrap() - rel).abs() < 1e-5);
        let speed = w.angular_velocity(b).unwrap() - w.angular_velocity(a).unwrap();
        assert!((w.joint_speed(hinge).unwrap() - speed).abs() < 1e-5);

        // The wheel's translation: the tyre's centre from the anchor fixed in b, along b's
        // axis.
        let (anchor_b, centre) = w.joint_anchors(wheel).unwrap();
        assert!((centre - w.position(c).unwrap()).length() < 1e-5);
        let q = w.rotation(b).unwrap();
        let axis_now = q.rotate(Vec2::new(0.6, -0.8));
        let s = (centre - anchor_b).dot(axis_now);
        assert!((w.joint_translation(wheel).unwrap() - s).abs() < 1e-5);
        let tyre_angle = w.angle(c).unwrap() - qb;
        let tyre_angle = (tyre_angle + PI).rem_euclid(2.0 * PI) - PI;
        assert!((w.joint_angle(wheel).unwrap() - tyre_angle).abs() < 1e-4);

        // The rod's rate of change of length: the tyre's velocity along the rod.
        let length = (w.position(c).unwrap() - Vec2::new(-0.5, 2.0)).length();
        let speed = w.joint_speed(rod).unwrap();
        let along = (w.position(c).unwrap() - Vec2::new(-0.5, 2.0)) * (1.0 / length);
        assert!((speed - along.dot(w.linear_velocity(c).unwrap())).abs() < 1e-5);
    }
}

/// A scene with every new part (revolute and prismatic springs, a distance motor, motors and
/// limits changed at run time, a weld's break event) on a ground with boxes.
fn scene(backend: Backend, threads: usize) -> (World, Vec<JointId>) {
    let mut w = World::new(WorldSettings {
        backend,
        threads,
        gravity: Vec2::new(0.0, -G),
        ..WorldSettings::default()
    });
    common::ground(&mut w);
    let mut joints = Vec::new();
    for k in 0..6 {
        let x = -12.0 + 4.0 * k as f32;
        let post = pin(&mut w, Vec2::new(x, 4.0));
        let arm = block(&mut w, Vec2::new(x + 1.0, 4.0), Vec2::new(1.0, 0.1), 1.0);
        let tip = block(&mut w, Vec2::new(x + 2.5, 4.0), Vec2::new(0.5, 0.1), 1.0);
        let ball = disk(&mut w, Vec2::new(x + 2.0, 1.0), 0.3, 1.0);
        joints.push(
            w.add_joint(
                JointDef::revolute(post, arm, Vec2::new(x, 4.0))
                    .spring(2.0, 0.1)
                    .motor(1.0, 5.0),
            )
            .unwrap(),
        );
        joints.push(
            w.add_joint(
                JointDef::prismatic(arm, tip, Vec2::new(x + 2.0, 4.0), Vec2::new(1.0, 0.0))
                    .spring(3.0, 0.0)
                    .limits(-0.3, 0.3),
            )
            .unwrap(),
        );
        joints.push(
            w.add_joint(
                JointDef::distance(arm, ball, Vec2::new(x + 2.0, 4.0), Vec2::new(x + 2.0, 1.0))
                    .length_range(1.0, 3.5)
                    .motor(-0.5, 20.0),
            )
            .unwrap(),
        );
        joints.push(
            w.add_joint(JointDef::weld(tip, ball, Vec2::new(x + 2.5, 4.0)).break_force(2.0))
                .unwrap(),
        );
    }
    (w, joints)
}

fn run(backend: Backend, threads: usize) -> (Vec<u32>, Vec<(usize, u32)>) {
    let (mut w, joints) = scene(backend, threads);
    let mut events = Vec::new();
    for n in 0..120 {
        if n == 40 {
            for (i, &j) in joints.iter().enumerate() {
                match i % 4 {
                    0 => w.set_joint_motor(j, -2.0, 8.0).unwrap(),
                    1 => w.set_joint_limits(j, -0.1, 0.5).unwrap(),
                    2 => w.enable_joint_motor(j, false).unwrap(),
                    _ => w.set_joint_spring(j, 4.0, 0.3).unwrap(),
                }
            }
        }
        w.step(DT).unwrap();
        for e in w.joint_events() {
            // Handles differ between worlds: the joint by its place in creation order.
            let k = joints.iter().position(|&j| j == e.joint).unwrap();
            events.push((k, e.force.length().to_bits()));
        }
    }
    (body_state_bits(&w), events)
}

/// Bit-identical with the new parts: Scalar and Simd, one thread and two.
#[test]
fn run_time_control_is_bit_identical() {
    let reference = run(Backend::Scalar, 1);
    assert!(!reference.1.is_empty(), "the scene breaks some welds");
    for (backend, threads) in [(Backend::Simd, 1), (Backend::Scalar, 2), (Backend::Simd, 2)] {
        assert!(
            run(backend, threads) == reference,
            "{backend:?} on {threads} threads"
        );
    }
}

/// Every run-time call refuses a stale handle, a part the kind lacks and a bad value with
/// the error it names, and leaves the world as it was: stepping it gives the bits of a twin
/// that never got the calls.
#[test]
fn bad_calls_are_refused_and_change_nothing() {
    let build = || {
        let (mut w, joints) = scene(Backend::Scalar, 1);
        let (a, b) = (w.bodies().nth(1).unwrap(), w.bodies().nth(2).unwrap());
        let weld = joints[3];
        let rope = joints[2];
        let hinge = joints[0];
        let slider = joints[1];
        let motor_joint = w.add_joint(JointDef::motor_joint(a, b)).unwrap();
        let plain = w
            .add_joint(JointDef::revolute(a, b, Vec2::new(0.0, 8.0)))
            .unwrap();
        let stale = w
            .add_joint(JointDef::revolute(a, b, Vec2::new(0.0, 9.0)))
            .unwrap();
        w.remove_joint(stale).unwrap();
        step(&mut w, 5);
        (w, [hinge, slider, rope, weld, motor_joint, plain, stale])
    };
    let (mut w, [hinge, slider, rope, weld, motor_joint, plain, stale]) = build();
    let (mut twin, _) = build();
    let param = |r: Result<(), Error>, what: &str| {
        assert!(
            matches!(r, Err(Error::InvalidParameter(_))),
            "{what}: {r:?}"
        );
    };
    // Stale.
    assert_eq!(w.set_joint_motor(stale, 1.0, 1.0), Err(Error::InvalidJoint));
    assert_eq!(w.enable_joint_motor(stale, true), Err(Error::InvalidJoint));
    assert_eq!(
        w.set_joint_limits(stale, -0.1, 0.1),
        Err(Error::InvalidJoint)
    );
    assert_eq!(
        w.enable_joint_limits(stale, false),
        Err(Error::InvalidJoint)
    );
    assert_eq!(
        w.set_joint_spring(stale, 1.0, 0.0),
        Err(Error::InvalidJoint)
    );
    assert_eq!(w.joint_angle(stale), Err(Error::InvalidJoint));
    assert_eq!(w.joint_translation(stale), Err(Error::InvalidJoint));
    assert_eq!(w.joint_speed(stale), Err(Error::InvalidJoint));
    assert_eq!(w.joint_motor(stale), Err(Error::InvalidJoint));
    // Parts the kind lacks.
    param(w.joint_motor(weld).map(drop), "motor of a weld");
    assert_eq!(w.joint_motor(plain), Ok(None), "a motor never set");
    param(w.set_joint_motor(weld, 1.0, 1.0), "motor on a weld");
    param(
        w.enable_joint_motor(motor_joint, true),
        "motor on a motor joint",
    );
    param(w.set_joint_limits(weld, -0.1, 0.1), "limits on a weld");
    param(
        w.enable_joint_limits(motor_joint, false),
        "limits on a motor joint",
    );
    param(
        w.set_joint_spring(motor_joint, 1.0, 0.5),
        "spring on a motor joint",
    );
    param(w.joint_angle(weld).map(drop), "angle of a weld");
    param(
        w.joint_translation(hinge).map(drop),
        "translation of a revolute joint",
    );
    param(w.joint_speed(weld).map(drop), "speed of a weld");
    param(
        w.enable_joint_motor(plain, true),
        "switching on a motor never set",
    );
    param(
        w.enable_joint_limits(plain, true),
        "switching on limits never set",
    );
    // Bad values.
    param(w.set_joint_motor(hinge, f32::NAN, 1.0), "NaN speed");
    param(
        w.set_joint_motor(hinge, f32::INFINITY, 1.0),
        "infinite speed",
    );
    param(w.set_joint_motor(hinge, 1.0, -1.0), "negative torque");
    param(w.set_joint_motor(rope, 1.0, f32::NAN), "NaN force");
    param(w.set_joint_limits(hinge, 0.5, -0.5), "lower > upper");
    param(w.set_joint_limits(hinge, f32::NAN, 0.5), "NaN limit");
    param(
        w.set_joint_limits(hinge, -4.0, 0.5),
        "revolute limit past -pi",
    );
    param(
        w.set_joint_limits(slider, -1.0, f32::INFINITY),
        "infinite limit",
    );
    param(w.set_joint_limits(rope, -1.0, 2.0), "negative length");
    param(w.set_joint_limits(rope, 2.0, 1.0), "crossed length range");
    param(w.set_joint_spring(hinge, -1.0, 0.0), "negative hertz");
    param(w.set_joint_spring(slider, f32::NAN, 0.0), "NaN hertz");
    param(w.set_joint_spring(rope, 1.0, -0.1), "negative damping");
    param(
        w.set_joint_spring(weld, 1.0, f32::INFINITY),
        "infinite damping",
    );
    // Definitions.
    let (a, b) = (w.bodies().nth(1).unwrap(), w.bodies().nth(2).unwrap());
    let p = Vec2::new(0.0, 8.0);
    for (def, what) in [
        (
            JointDef::revolute(a, b, p).spring(f32::NAN, 0.0),
            "NaN revolute spring",
        ),
        (
            JointDef::prismatic(a, b, p, Vec2::new(1.0, 0.0)).spring(1.0, -1.0),
            "negative damping",
        ),
        (
            JointDef::motor_joint(a, b).spring(1.0, 0.0),
            "spring on a motor joint",
        ),
        (
            JointDef::distance(a, b, p, Vec2::ZERO).motor(f32::NAN, 1.0),
            "NaN distance motor",
        ),
        (JointDef::weld(a, b, p).motor(1.0, 1.0), "motor on a weld"),
        (
            JointDef::weld(a, b, p).break_force(-1.0),
            "negative break force",
        ),
        (
            JointDef::weld(a, b, p).break_force(f32::NAN),
            "NaN break force",
        ),
        (
            JointDef::weld(a, b, p).break_torque(-1.0),
            "negative break torque",
        ),
    ] {
        param(w.add_joint(def).map(drop), what);
    }
    assert_eq!(w.joint_count(), twin.joint_count());
    for _ in 0..60 {
        w.step(DT).unwrap();
        twin.step(DT).unwrap();
        assert_eq!(body_state_bits(&w), body_state_bits(&twin));
        let events = |w: &World| -> Vec<_> {
            let e = w.joint_events().iter();
            e.map(|e| (e.force.x.to_bits(), e.force.y.to_bits(), e.torque.to_bits()))
                .collect()
        };
        assert_eq!(events(&w), events(&twin));
    }
}
