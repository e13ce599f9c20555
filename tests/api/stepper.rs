//! The fixed-step stepper: time bookkeeping (every second of frame time is simulated, kept, or
//! reported as dropped), the backlog clamp, interpolation against uniform motion, and bit
//! identity with stepping the world directly.

use crate::common;

use batch2d::{
    BodyDef, BodyId, Error, FixedStepper, Shape, ShapeDef, Transform, Vec2, World, WorldSettings,
};

const DT: f32 = 1.0 / 60.0;

/// Frame times from a fixed linear congruential sequence: 0 to 50 ms, so some frames run no
/// step and some several.
fn frame_times(count: usize) -> Vec<f32> {
    let mut state: u32 = 12345;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 0.05
        })
        .collect()
}

/// A small pile: ground, boxes and circles, so steps exercise contacts.
fn pile(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    common::ground_of(&mut world, 20.0);
    for i in 0..30 {
        let p = Vec2::new((i % 6) as f32 * 1.1 - 3.0, 0.6 + (i / 6) as f32 * 1.1);
        let shape = if i % 2 == 0 {
            Shape::rect(0.5, 0.5).unwrap()
        } else {
            Shape::circle(0.5).unwrap()
        };
        world
            .add_body(
                BodyDef::dynamic().position(p).angle(0.1 * i as f32),
                ShapeDef::new(shape),
            )
            .unwrap();
    }
    world
}

use common::state_bits as bits;

fn transform_bits(xf: Transform) -> [u32; 4] {
    [xf.p.x, xf.p.y, xf.q.c, xf.q.s].map(f32::to_bits)
}

#[test]
fn frame_time_is_simulated_kept_or_reported_dropped() {
    let mut world = pile(WorldSettings::default());
    let mut stepper = FixedStepper::new().dt(DT).max_steps_per_frame(2);
    let mut times = frame_times(300);
    // A few stalls beyond what two steps can absorb.
    times[50] = 0.5;
    times[200] = 0.09;
    let (mut total, mut simulated, mut dropped) = (0.0f64, 0.0f64, 0.0f64);
    for &t in &times {
        let report = stepper.advance(&mut world, t).unwrap();
        total += f64::from(t);
        simulated += f64::from(report.steps) * f64::from(DT);
        dropped += report.dropped;
        assert!(report.steps <= 2);
        assert!((0.0..1.0).contains(&report.alpha), "alpha {}", report.alpha);
        // Alpha is the leftover over dt, and the leftover is less than one step.
        let leftover = stepper.accumulator();
        assert!((0.0..f64::from(DT)).contains(&leftover));
        assert!((f64::from(report.alpha) - leftover / f64::from(DT)).abs() < 1e-6);
        // The clamp only drops when the frame needed more than it may run.
        if report.dropped > 0.0 {
            assert_eq!(report.steps, 2);
        }
    }
    assert!(dropped > 0.4, "the stalls dropped {dropped} s");
    let accounted = simulated + dropped + stepper.accumulator();
    assert!(
        (accounted - total).abs() < 1e-9 * total.max(1.0),
        "frames {total} s, simulated {simulated} + dropped {dropped} + kept {}",
        stepper.accumulator()
    );
}

#[test]
fn a_huge_frame_runs_only_the_clamped_steps() {
    let mut world = pile(WorldSettings::default());
    let mut stepper = FixedStepper::new().dt(DT).max_steps_per_frame(5);
    let frame = 1.0e6;
    let report = stepper.advance(&mut world, frame).unwrap();
    assert_eq!(report.steps, 5);
    assert!((0.0..1.0).contains(&report.alpha));
    let kept = stepper.accumulator();
    let expected_drop = f64::from(frame) - 5.0 * f64::from(DT) - kept;
    assert!((report.dropped - expected_drop).abs() < 1e-6);
    // The next ordinary frame is not owed any of the backlog.
    let next = stepper.advance(&mut world, DT).unwrap();
    assert!(next.steps <= 2 && next.dropped == 0.0);
    // The largest finite frame time too (f64 keeps no digits below a step there).
    let report = stepper.advance(&mut world, f32::MAX).unwrap();
    assert_eq!(report.steps, 5);
    assert!((0.0..1.0).contains(&report.alpha));
    assert!(stepper.accumulator() < f64::from(DT));
    let next = stepper.advance(&mut world, 0.0).unwrap();
    assert!(next.steps == 0 && next.dropped == 0.0);
}

#[test]
fn stepping_through_the_stepper_equals_stepping_directly() {
    for threads in [1, 2] {
        let settings = WorldSettings {
            threads,
            ..WorldSettings::default()
        };
        let mut stepped = pile(settings.clone());
        let mut direct = pile(settings);
        let mut stepper = FixedStepper::new().dt(DT).max_steps_per_frame(3);
        let mut steps = 0;
        for t in frame_times(200) {
            steps += stepper.advance(&mut stepped, t).unwrap().steps;
        }
        assert!(steps > 100);
        for _ in 0..steps {
            direct.step(DT).unwrap();
        }
        assert_eq!(bits(&stepped), bits(&direct), "{threads} threads");
    }
}

/// A body in zero gravity moving and spinning freely.
fn free_body() -> (World, BodyId) {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let body = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(1.0, 2.0))
                .linear_velocity(Vec2::new(3.0, -1.5))
                .angular_velocity(2.0),
            // Centre of mass off the origin: interpolation must move the centre, not the origin,
            // along the straight line.
            ShapeDef::new(Shape::offset_rect(0.5, 0.25, Vec2::new(0.4, 0.1), 0.0).unwrap()),
        )
        .unwrap();
    (world, body)
}

#[test]
fn interpolated_pose_follows_uniform_motion_between_steps() {
    let (mut world, body) = free_body();
    let mut stepper = FixedStepper::new().dt(DT);
    // Whole steps leave alpha at 0: the render pose is the state before the last step.
    let before = world.transform(body).unwrap();
    let report = stepper.advance(&mut world, DT).unwrap();
    assert_eq!((report.steps, report.alpha), (1, 0.0));
    let at_zero = stepper.interpolated_transform(&world, body).unwrap();
    assert_eq!(transform_bits(at_zero), transform_bits(before));

    // Now 1.6 steps: one step runs and alpha is 0.6.
    let start_center = world.position(body).unwrap();
    let start_angle = world.angle(body).unwrap();
    let report = stepper.advance(&mut world, 1.6 * DT).unwrap();
    assert_eq!(report.steps, 1);
    assert!((report.alpha - 0.6).abs() < 1e-4);
    let pose = stepper.interpolated_transform(&world, body).unwrap();
    // A free body: centre at c0 + v t and angle a0 + w t with t = alpha dt.
    let t = report.alpha * DT;
    let local_center = Vec2::new(0.4, 0.1);
    let center = pose.apply(local_center);
    let expected = start_center + Vec2::new(3.0, -1.5) * t;
    assert!(
        (center - expected).length() < 1e-5,
        "{center:?} vs {expected:?}"
    );
    let angle = pose.q.angle();
    assert!((angle - (start_angle + 2.0 * t)).abs() < 1e-5);
}

#[test]
fn bodies_without_a_previous_pose_are_drawn_where_they_are() {
    let (mut world, body) = free_body();
    let mut stepper = FixedStepper::new();
    stepper.advance(&mut world, 1.5 * DT).unwrap();
    let late = common::ball(&mut world, Vec2::new(5.0, 5.0), 0.5);
    let pose = stepper.interpolated_transform(&world, late).unwrap();
    assert_eq!(
        transform_bits(pose),
        transform_bits(world.transform(late).unwrap())
    );
    // Removing a body and reusing its slot gives the newcomer no stale previous pose.
    world.remove_body(body).unwrap();
    assert_eq!(
        stepper.interpolated_transform(&world, body),
        Err(Error::InvalidBody)
    );
    let reused = common::ball(&mut world, Vec2::new(-4.0, 0.0), 0.5);
    assert_eq!(reused.slot(), body.slot());
    let pose = stepper.interpolated_transform(&world, reused).unwrap();
    assert_eq!(
        transform_bits(pose),
        transform_bits(world.transform(reused).unwrap())
    );
    // A handle of another world.
    let (other, foreign) = free_body();
    drop(other);
    assert_eq!(
        stepper.interpolated_transform(&world, foreign),
        Err(Error::InvalidBody)
    );
}

#[test]
fn bad_frame_times_and_settings_are_errors_that_change_nothing() {
    let (mut world, body) = free_body();
    let mut stepper = FixedStepper::new();
    stepper.advance(&mut world, 0.5 * DT).unwrap();
    let before = (bits(&world), stepper.accumulator());
    for bad in [-0.01, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let result = stepper.advance(&mut world, bad);
        assert!(matches!(result, Err(Error::InvalidParameter(_))), "{bad}");
        assert_eq!((bits(&world), stepper.accumulator()), before);
    }
    for bad in [0.0, -DT, f32::NAN, f32::INFINITY] {
        let mut s = FixedStepper::new().dt(bad);
        assert!(matches!(
            s.advance(&mut world, DT),
            Err(Error::InvalidParameter(_))
        ));
    }
    let mut s = FixedStepper::new().max_steps_per_frame(0);
    assert!(matches!(
        s.advance(&mut world, DT),
        Err(Error::InvalidParameter(_))
    ));
    // A step the world refuses (longer than 1 s) is caught before the first step.
    let mut s = FixedStepper::new().dt(1.0e29);
    assert!(s.advance(&mut world, 1.0e30).is_err());
    assert_eq!(s.accumulator(), 0.0);
    assert_eq!(bits(&world), before.0);
    let _ = body;
}
