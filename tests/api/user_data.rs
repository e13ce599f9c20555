//! The user's number on each body: set at creation (default 0), read and replaced later, kept
//! per body through slot reuse, refused for stale handles, and never read by the engine.

use crate::common;

use batch2d::{BodyDef, Error, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::state_bits;

fn ball(x: f32) -> (BodyDef, ShapeDef) {
    (
        BodyDef::dynamic().position(Vec2::new(x, 2.0)),
        ShapeDef::new(Shape::circle(0.5).unwrap()),
    )
}

#[test]
fn user_data_is_kept_per_body() {
    let mut world = World::new(WorldSettings::default());
    let (def, shape) = ball(0.0);
    let plain = world.add_body(def.clone(), shape.clone()).unwrap();
    let tagged = world
        .add_body(def.clone().user_data(u64::MAX), shape.clone())
        .unwrap();
    assert_eq!(BodyDef::dynamic().user_data, 0);
    assert_eq!(world.user_data(plain), Ok(0));
    assert_eq!(world.user_data(tagged), Ok(u64::MAX));
    world.set_user_data(plain, 42).unwrap();
    assert_eq!(world.user_data(plain), Ok(42));
    assert_eq!(world.user_data(tagged), Ok(u64::MAX));

    // A compound body and every segment of a chain carry theirs too.
    let parts = [
        ShapeDef::new(Shape::rect(0.5, 0.1).unwrap()),
        ShapeDef::new(Shape::circle_at(Vec2::new(0.0, 0.5), 0.2).unwrap()),
    ];
    let compound = world
        .add_compound_body(BodyDef::dynamic().user_data(7), &parts)
        .unwrap();
    assert_eq!(world.user_data(compound), Ok(7));
    let chain = world
        .add_segment_chain(
            BodyDef::fixed().user_data(9),
            &[Vec2::new(-5.0, 0.0), Vec2::ZERO, Vec2::new(5.0, 1.0)],
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    for id in chain {
        assert_eq!(world.user_data(id), Ok(9));
    }

    // A removed body's handle is refused; a newcomer in its slot has its own number.
    world.remove_body(tagged).unwrap();
    assert_eq!(world.user_data(tagged), Err(Error::InvalidBody));
    assert_eq!(world.set_user_data(tagged, 1), Err(Error::InvalidBody));
    let (def, shape) = ball(3.0);
    let newcomer = world.add_body(def, shape).unwrap();
    assert_eq!(newcomer.slot(), tagged.slot());
    assert_eq!(world.user_data(newcomer), Ok(0));
}

#[test]
fn user_data_changes_no_result() {
    let build = |data: u64| {
        let mut world = World::new(WorldSettings::default());
        world
            .add_body(
                BodyDef::fixed()
                    .position(Vec2::new(0.0, -1.0))
                    .user_data(data),
                ShapeDef::new(Shape::rect(10.0, 1.0).unwrap()),
            )
            .unwrap();
        for k in 0..5 {
            let (def, shape) = ball(0.3 * k as f32);
            world.add_body(def.user_data(data ^ k), shape).unwrap();
        }
        world
    };
    let (mut a, mut b) = (build(0), build(0xDEAD_BEEF));
    for _ in 0..60 {
        a.step(1.0 / 60.0).unwrap();
        b.step(1.0 / 60.0).unwrap();
        let ids: Vec<_> = b.bodies().collect();
        for id in ids {
            let data = b.user_data(id).unwrap();
            b.set_user_data(id, data.wrapping_add(1)).unwrap();
        }
    }
    assert_eq!(state_bits(&a), state_bits(&b));
}
