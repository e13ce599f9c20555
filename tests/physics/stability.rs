//! Stability: the large pyramid of docs/scenes.md must stand for its 500 steps on the reference path.

use crate::common;

use batch2d::Vec2;

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
