//! Fast rotation against the law of free rotation: a free body keeps its angular speed and
//! its angle advances by w t, far past a quarter turn per step; a motor turns a wheel at the
//! speed it is set to; and only bodies in contact are bound to a quarter turn per step,
//! unless they allow fast rotation.

use batch2d::{BodyDef, JointDef, Shape, ShapeDef, Vec2, World, WorldSettings};
use std::f64::consts::PI;

const DT: f32 = 1.0 / 60.0;

fn world(gravity: Vec2) -> World {
    World::new(WorldSettings {
        gravity,
        ..WorldSettings::default()
    })
}

/// The angle (rad) from `b`'s rotation to `a`'s, in `-pi..=pi`.
fn angle_between(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.1 * b.0 - a.0 * b.1).atan2(a.0 * b.0 + a.1 * b.1)
}

/// A free box at 1000 rad/s (and at 3000) keeps its speed, and after each step of a second
/// its rotation is that of the angle w t.
#[test]
fn a_free_body_spins_at_its_speed_far_past_a_quarter_turn_per_step() {
    for w0 in [1000.0f32, -3000.0] {
        let mut world = world(Vec2::ZERO);
        let body = world
            .add_body(
                BodyDef::dynamic().angular_velocity(w0),
                ShapeDef::new(Shape::rect(0.5, 0.2).unwrap()),
            )
            .unwrap();
        for n in 1..=60 {
            world.step(DT).unwrap();
            assert_eq!(world.angular_velocity(body).unwrap(), w0);
            let t = n as f64 * DT as f64;
            let law = w0 as f64 * t;
            let q = world.rotation(body).unwrap();
            let error = angle_between((q.c as f64, q.s as f64), (law.cos(), law.sin()));
            // f32 rounding of w h, a few parts in 1e8 per substep, over 240 substeps.
            assert!(
                error.abs() < 2e-3,
                "{w0} rad/s, step {n}: angle off the law w t by {error} rad"
            );
        }
    }
}

/// A wheel on a fixed hub, driven by a motor set to 150 rad/s, turns at 150 rad/s and
/// through 150 t radians.
#[test]
fn a_motor_set_to_150_rad_per_s_turns_at_150() {
    let mut world = world(Vec2::new(0.0, -10.0));
    let hub = world
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::circle(0.05).unwrap()),
        )
        .unwrap();
    let wheel = world
        .add_body(
            BodyDef::dynamic(),
            ShapeDef::new(Shape::circle(0.4).unwrap()),
        )
        .unwrap();
    let hinge = world
        .add_joint(JointDef::revolute(hub, wheel, Vec2::ZERO).motor(150.0, 1000.0))
        .unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let speed = world.joint_speed(hinge).unwrap();
    assert!((speed - 150.0).abs() < 1e-2, "motor speed {speed}");
    let q0 = world.rotation(wheel).unwrap();
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let q1 = world.rotation(wheel).unwrap();
    let turned = angle_between((q1.c as f64, q1.s as f64), (q0.c as f64, q0.s as f64));
    let law = 150.0 * 60.0 * DT as f64;
    let law = (law + PI).rem_euclid(2.0 * PI) - PI;
    assert!(
        (turned - law).abs() < 1e-2,
        "turned {turned}, law {law} (mod 2 pi)"
    );
}

/// A ball spinning at 500 rad/s on the ground is bound to a quarter turn per step (its
/// contact's points turn with it); one that allows fast rotation keeps its spin, which
/// friction slows at the law's rate 2 mu g / r for a solid disk.
#[test]
fn only_bodies_in_contact_are_bound_unless_they_allow_fast_rotation() {
    let bound = 0.5 * std::f32::consts::PI / DT;
    for allow in [false, true] {
        let mut world = world(Vec2::new(0.0, -10.0));
        world
            .add_body(
                BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
                ShapeDef::new(Shape::rect(50.0, 1.0).unwrap()),
            )
            .unwrap();
        let r = 0.5;
        let ball = world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(0.0, r))
                    .allow_fast_rotation(allow),
                ShapeDef::new(Shape::circle(r).unwrap()).friction(0.5),
            )
            .unwrap();
        world.step(DT).unwrap();
        world.set_angular_velocity(ball, 500.0).unwrap();
        world.step(DT).unwrap();
        let w = world.angular_velocity(ball).unwrap();
        if allow {
            // Sliding friction mu m g at the rim slows the spin by at most 2 mu g / r per s.
            let law = 500.0 - 2.0 * 0.5 * 10.0 / r * DT;
            assert!(w >= law - 1e-3 && w < 500.0, "spin {w}, law {law}");
        } else {
            assert!(w <= bound, "spin {w} above the contact bound {bound}");
        }
    }
}
