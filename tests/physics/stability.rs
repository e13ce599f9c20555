//! Stability: the large pyramid of docs/scenes.md must stand for its 500 steps on the reference
//! path, and the stirred bin must keep every body in the bin, finite and no faster than its fall
//! and the paddle allow.

use crate::common;

use batch2d::scenes::{
    Scene, STIRRED_BIN_FIXED_BODIES, STIRRED_BIN_HALF_WIDTH, STIRRED_BIN_HEIGHT, STIRRED_BIN_PADDLE,
};
use batch2d::{BodyId, Vec2, WorldSettings};

#[test]
fn large_pyramid_stands_for_500_steps() {
    let end = common::run_large_pyramid(Vec2::ZERO);
    // No box slides off its column; a resting box of half-extent 0.5 has its centre 0.5 above
    // whatever holds it: allow a few centimetres of sink into the ground, nothing more.
    assert!(
        end.max_drift < 0.5,
        "a box moved {} m sideways",
        end.max_drift
    );
    assert!(end.lowest > 0.45, "a box sank to y = {}", end.lowest);
    // Soft contacts compress under a hundred rows: Box2D v3 and rapier2d sag 0.73 and 0.75 m
    // here. (Contacts held rigid within the slop sagged 0.36 m, but let tall pyramids hop and
    // walk sideways: tests/physics/textbook.rs.)
    assert!(end.top_drop < 0.6, "top box sank {} m", end.top_drop);
    // Every box touches the one(s) below and beside it: 14950 manifolds in the standing pyramid.
    // (One solve pass per substep holds them only because contact points keep their ids, and
    // so their warm start, when the reference face passes between neighbours: tests/physics/shapes.rs.)
    assert_eq!(end.contacts, 14950);
}

#[test]
fn the_stirred_bin_keeps_every_body_in_the_bin_for_500_steps() {
    let settings = WorldSettings::default();
    let mut world = Scene::StirredBin.build(settings.clone()).unwrap();
    let bodies: Vec<BodyId> = world.bodies().skip(STIRRED_BIN_FIXED_BODIES).collect();
    assert_eq!(bodies.len(), 72 * 56);
    // Energy bounds the speed: a body that starts at rest at height h and falls to the floor
    // reaches sqrt(2 g h); with restitution 0 the paddle's blow leaves it at most the speed of
    // the point that hit it, the tip at |half-extents| * spin; and overlap is pushed out at most
    // at contact_push_max_velocity. A solver that adds energy on its own breaks this bound.
    let g = Scene::StirredBin.gravity().length();
    let top = bodies
        .iter()
        .map(|&id| world.position(id).unwrap().y)
        .fold(f32::MIN, f32::max);
    let (_, half, spin) = STIRRED_BIN_PADDLE;
    let bound = (2.0 * g * top).sqrt() + half.length() * spin + settings.contact_push_max_velocity;
    let mut fastest = 0.0f32;
    let mut made = 0;
    for step in 0..Scene::StirredBin.steps() {
        world.step(1.0 / 60.0).unwrap();
        made += world.contact_events().begin().len();
        for &id in &bodies {
            let p = world.position(id).unwrap();
            let v = world.linear_velocity(id).unwrap();
            assert!(p.is_finite() && v.is_finite(), "step {step}: {p:?} {v:?}");
            let inside =
                p.x.abs() < STIRRED_BIN_HALF_WIDTH && p.y > 0.0 && p.y < STIRRED_BIN_HEIGHT;
            assert!(inside, "step {step}: a body escaped the bin to {p:?}");
            fastest = fastest.max(v.length());
        }
    }
    assert!(
        fastest <= bound,
        "a body reached {fastest} m/s, above {bound}"
    );
    // The paddle keeps the pile moving: pairs keep beginning, well beyond the one per body
    // that a pile settling once would make.
    assert!(made > 10 * bodies.len(), "only {made} contacts began");
    assert!(
        world.contact_count() > bodies.len(),
        "{}",
        world.contact_count()
    );
}
