//! Joint springs against the damped oscillator's law, for every kind with a spring: a body on
//! a spring to a fixed body, no gravity. An undamped spring keeps its amplitude over 10 s; a
//! set damping ratio comes back from the logarithmic decrement of successive peaks; the
//! period is the law's, 1 / (f sqrt(1 - zeta^2)).

use batch2d::{BodyDef, JointDef, JointId, Shape, ShapeDef, Vec2, World, WorldSettings};
use std::f64::consts::PI;

const DT: f32 = 1.0 / 60.0;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Distance,
    Wheel,
    Weld,
    Revolute,
    Prismatic,
}

/// The spring's error (m or rad) after each of `steps` steps, the body set off from rest
/// position by a small speed.
fn oscillation(kind: Kind, hertz: f32, zeta: f32, steps: usize) -> Vec<f64> {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let fixed = world
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::circle(0.05).unwrap()),
        )
        .unwrap();
    let at = match kind {
        Kind::Distance => Vec2::new(1.0, 0.0),
        _ => Vec2::ZERO,
    };
    let body = world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::rect(0.3, 0.2).unwrap()).density(2.0),
        )
        .unwrap();
    let y = Vec2::new(0.0, 1.0);
    let def = match kind {
        Kind::Distance => JointDef::distance(fixed, body, Vec2::ZERO, at),
        Kind::Wheel => JointDef::wheel(fixed, body, at, y),
        Kind::Weld => JointDef::weld(fixed, body, at),
        Kind::Revolute => JointDef::revolute(fixed, body, at),
        Kind::Prismatic => JointDef::prismatic(fixed, body, at, y),
    };
    let joint: JointId = world.add_joint(def.spring(hertz, zeta)).unwrap();
    match kind {
        Kind::Distance => world.set_linear_velocity(body, Vec2::new(0.1, 0.0)),
        Kind::Wheel | Kind::Prismatic | Kind::Weld => world.set_linear_velocity(body, y * 0.1),
        Kind::Revolute => world.set_angular_velocity(body, 0.1),
    }
    .unwrap();
    (0..steps)
        .map(|_| {
            world.step(DT).unwrap();
            match kind {
                Kind::Distance => world.position(body).unwrap().length() as f64 - 1.0,
                Kind::Wheel | Kind::Prismatic => world.joint_translation(joint).unwrap() as f64,
                Kind::Weld => world.position(body).unwrap().y as f64,
                Kind::Revolute => world.joint_angle(joint).unwrap() as f64,
            }
        })
        .collect()
}

/// Times of the upward zero crossings, interpolated between steps.
fn crossings(x: &[f64]) -> Vec<f64> {
    let dt = DT as f64;
    (1..x.len())
        .filter(|&i| x[i - 1] < 0.0 && x[i] >= 0.0)
        .map(|i| (i as f64 + x[i - 1] / (x[i - 1] - x[i])) * dt)
        .collect()
}

/// The extrema of `x` (alternating in sign), each the vertex of the parabola through the
/// sample that is largest in size and its two neighbours.
fn peaks(x: &[f64]) -> Vec<f64> {
    (1..x.len() - 1)
        .filter(|&i| x[i].abs() >= x[i - 1].abs() && x[i].abs() > x[i + 1].abs())
        .map(|i| {
            let (a, b, c) = (x[i - 1], x[i], x[i + 1]);
            let denominator = a - 2.0 * b + c;
            b - 0.125 * (c - a) * (c - a) / denominator
        })
        .collect()
}

const KINDS: [Kind; 5] = [
    Kind::Distance,
    Kind::Wheel,
    Kind::Weld,
    Kind::Revolute,
    Kind::Prismatic,
];

/// Undamped, 1-5 Hz: the amplitude stays within 1% over 10 s, the period within 0.5% of
/// 1 / f.
#[test]
fn an_undamped_spring_keeps_its_amplitude_and_period() {
    for kind in KINDS {
        for hertz in [1.0, 2.0, 5.0] {
            let x = oscillation(kind, hertz, 0.0, 600);
            let p = peaks(&x);
            let (first, last) = (p[0].abs(), p[p.len() - 1].abs());
            assert!(
                (last / first - 1.0).abs() < 0.01,
                "{kind:?} {hertz} Hz: amplitude {first} then {last} after 10 s"
            );
            let t = crossings(&x);
            let period = (t[t.len() - 1] - t[0]) / (t.len() - 1) as f64;
            let law = 1.0 / hertz as f64;
            assert!(
                (period / law - 1.0).abs() < 0.005,
                "{kind:?} {hertz} Hz: period {period}, law {law}"
            );
        }
    }
}

/// Damped at ratios 0.05-0.5, 1-5 Hz: the logarithmic decrement of successive peaks gives
/// the ratio back within 2%, and the period is the damped law's within 0.5%.
#[test]
fn a_damped_spring_decays_at_its_ratio_with_the_damped_period() {
    for kind in KINDS {
        for hertz in [1.0f32, 2.0, 5.0] {
            for zeta in [0.05f32, 0.1, 0.5] {
                let x = oscillation(kind, hertz, zeta, 600);
                let p = peaks(&x);
                // Successive extrema are half a period apart: their ratio is
                // e^(-zeta w T_d / 2), and the decrement over a period is twice its log.
                let delta = 2.0 * (p[0].abs() / p[1].abs()).ln();
                let measured = delta / (4.0 * PI * PI + delta * delta).sqrt();
                let z = zeta as f64;
                assert!(
                    (measured / z - 1.0).abs() < 0.02,
                    "{kind:?} {hertz} Hz: damping ratio {measured}, set {zeta}"
                );
                let t = crossings(&x);
                let law = 1.0 / (hertz as f64 * (1.0 - z * z).sqrt());
                // The first two crossings are a period apart; later ones drown in rounding
                // once the heavily damped ones have decayed.
                let period = t[1] - t[0];
                assert!(
                    (period / law - 1.0).abs() < 0.005,
                    "{kind:?} {hertz} Hz, ratio {zeta}: period {period}, law {law}"
                );
            }
        }
    }
}

/// Under gravity a sprung body comes to rest at Hooke's deflection g / w^2 (k = m w^2), for
/// every kind that springs along a line, damped or barely.
#[test]
fn a_spring_sags_by_its_static_deflection() {
    let g = 10.0f32;
    for kind in [Kind::Distance, Kind::Wheel, Kind::Weld, Kind::Prismatic] {
        for (hertz, zeta) in [(1.0f32, 1.0f32), (5.0, 0.7), (3.0, 0.2)] {
            let mut world = World::new(WorldSettings {
                gravity: Vec2::new(0.0, -g),
                ..WorldSettings::default()
            });
            let fixed = world
                .add_body(
                    BodyDef::fixed(),
                    ShapeDef::new(Shape::circle(0.05).unwrap()),
                )
                .unwrap();
            let at = Vec2::new(0.0, -1.0);
            let body = world
                .add_body(
                    BodyDef::dynamic().position(at),
                    ShapeDef::new(Shape::rect(0.3, 0.2).unwrap()).density(2.0),
                )
                .unwrap();
            let y = Vec2::new(0.0, 1.0);
            let def = match kind {
                Kind::Distance => JointDef::distance(fixed, body, Vec2::ZERO, at),
                Kind::Wheel => JointDef::wheel(fixed, body, at, y),
                Kind::Weld => JointDef::weld(fixed, body, at),
                _ => JointDef::prismatic(fixed, body, at, y),
            };
            world.add_joint(def.spring(hertz, zeta)).unwrap();
            for _ in 0..1200 {
                world.step(DT).unwrap();
            }
            let w = 2.0 * std::f32::consts::PI * hertz;
            let law = g / (w * w);
            let sag = at.y - world.position(body).unwrap().y;
            assert!(
                (sag / law - 1.0).abs() < 0.01,
                "{kind:?} {hertz} Hz, ratio {zeta}: sags {sag} m, g / w^2 = {law} m"
            );
        }
    }
}
