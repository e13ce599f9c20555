//! The jointed examples' scenes (examples/common/jointed.rs) against the laws their examples
//! print: Newton's second law on the bridge, energy on the chain, limits on the ragdolls, the
//! wheel joints' axis on the car.

use crate::examples as common;

use batch2d::{BodyId, Vec2, World, WorldSettings};
use common::jointed::{self, GRAVITY};
use std::f32::consts::PI;

const DT: f32 = 1.0 / 60.0;

fn settings() -> WorldSettings {
    WorldSettings::default()
}

fn momentum_y(w: &World, masses: &[(BodyId, f32)]) -> f64 {
    masses
        .iter()
        .map(|&(b, m)| (m * w.linear_velocity(b).unwrap().y) as f64)
        .sum()
}

#[test]
fn the_bridge_ends_carry_its_weight_plus_the_momentum_it_gains() {
    let mut s = jointed::bridge(settings()).unwrap();
    let (first, last) = (s.joints[0], s.joints[jointed::PLANKS]);
    let weight: f64 = s.masses.iter().map(|&(_, m)| (m * -GRAVITY.y) as f64).sum();
    let (steps, from) = (1200, 600);
    let mut held = 0.0f64;
    let mut p0 = 0.0;
    for step in 1..=steps {
        s.world.step(DT).unwrap();
        if step == from {
            p0 = momentum_y(&s.world, &s.masses);
        }
        if step > from {
            // The first joint's B is the first plank; the last joint's B is the right pillar.
            let left = s.world.joint_reaction_force(first).unwrap().y;
            let right = -s.world.joint_reaction_force(last).unwrap().y;
            held += (left + right) as f64;
        }
    }
    let seconds = (steps - from) as f64 * DT as f64;
    let mean = held / (steps - from) as f64;
    let expect = weight + (momentum_y(&s.world, &s.masses) - p0) / seconds;
    assert!(
        (mean - expect).abs() < 0.01 * weight,
        "end joints {mean} N, weight + dp/dt {expect} N (weight {weight} N)"
    );
    for &b in &s.load {
        let p = s.world.position(b).unwrap();
        assert!(
            p.y > 1.0 && p.x.abs() < 0.5 * jointed::SPAN,
            "{p:?} fell off"
        );
    }
}

#[test]
fn the_chain_ball_never_climbs_above_where_it_was_let_go() {
    let mut s = jointed::chain(settings()).unwrap();
    let start = s.world.position(s.weight).unwrap().y;
    let mut passed = false;
    let mut gap = 0.0f32;
    for _ in 0..600 {
        s.world.step(DT).unwrap();
        let p = s.world.position(s.weight).unwrap();
        // Joints and contacts only take energy away: once it has swung down, the ball
        // cannot rise above its start (a few centimetres for the joints' stretch).
        passed |= p.y < start - 5.0;
        if passed {
            assert!(p.y < start + 0.05, "ball climbed to {} from {start}", p.y);
        }
        gap = gap.max(jointed::largest_joint_gap(&s.world, &s.joints).unwrap());
    }
    assert!(passed);
    assert!(gap < 0.05, "a joint came {gap} m apart");
}

#[test]
fn tumbled_ragdolls_lie_with_every_joint_within_its_limits() {
    let mut s = jointed::ragdolls(settings()).unwrap();
    for _ in 0..600 {
        s.world.step(DT).unwrap();
    }
    let w = &s.world;
    for h in &s.hinges {
        // Every part started at angle 0, so the joint's angle is B's angle less A's. A limit
        // is a spring (twice the contact stiffness): where a ragdoll comes to lie on its own
        // folded arm, the forearm's small inertia against the torso's weight gives it about
        // 0.02 rad, so the bound leaves room for which limb ends up under which.
        let angle = (w.angle(h.b).unwrap() - w.angle(h.a).unwrap() + PI).rem_euclid(2.0 * PI) - PI;
        assert!(
            angle > h.lower - 0.03 && angle < h.upper + 0.03,
            "{angle} outside {}..{}",
            h.lower,
            h.upper
        );
        let (a, b) = w.joint_anchors(h.id).unwrap();
        assert!(
            (b - a).length() < 0.005,
            "a joint {} m apart",
            (b - a).length()
        );
    }
}

#[test]
fn the_car_drives_on_with_its_wheels_on_their_axes() {
    let mut s = jointed::car(settings()).unwrap();
    let start = s.world.position(s.chassis).unwrap();
    for _ in 0..420 {
        s.world.step(DT).unwrap();
        let up = s
            .world
            .rotation(s.chassis)
            .unwrap()
            .rotate(Vec2::new(0.0, 1.0));
        for &id in &s.suspension {
            let (a, b) = s.world.joint_anchors(id).unwrap();
            let d = b - a;
            // Across the axis the joint holds the wheel; along it the limits do.
            assert!(
                d.cross(up).abs() < 0.005,
                "wheel {} m off its axis",
                d.cross(up)
            );
            assert!(d.dot(up).abs() < 0.25 + 0.01, "suspension at {}", d.dot(up));
        }
    }
    let end = s.world.position(s.chassis).unwrap();
    // Motors at 12 rad/s on 0.4 m wheels would roll it at 4.8 m/s: 7 s take it at most 33.6 m.
    assert!(
        end.x - start.x > 20.0,
        "the car got from {start:?} to {end:?}"
    );
    assert!(end.x - start.x < 33.6);
}
