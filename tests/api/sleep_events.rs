//! Sleeping sets contacts aside without ending them: an island that falls asleep and wakes
//! again reports no contact events, while a real parting still does.

use crate::common;

use batch2d::{Vec2, World, WorldSettings};

#[test]
fn falling_asleep_and_waking_report_no_contact_events() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    let ground = common::ground_of(&mut world, 20.0);
    let ball = common::ball(&mut world, Vec2::new(0.0, 1.0), 0.5);
    let (mut begins, mut ends, mut slept) = (0, 0, false);
    for _ in 0..240 {
        world.step(1.0 / 60.0).unwrap();
        begins += world.contact_events().begin().len();
        ends += world.contact_events().end().len();
        slept |= !world.is_awake(ball).unwrap();
    }
    assert!(slept, "the ball never fell asleep");
    assert_eq!(
        (begins, ends),
        (1, 0),
        "landing begins one contact, sleep ends none"
    );

    world.wake(ball).unwrap();
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap();
        let events = world.contact_events();
        assert!(
            events.begin().is_empty() && events.end().is_empty(),
            "{events:?}"
        );
    }
    // A real parting still ends the contact.
    world
        .set_linear_velocity(ball, Vec2::new(0.0, 8.0))
        .unwrap();
    let mut ended = Vec::new();
    for _ in 0..10 {
        world.step(1.0 / 60.0).unwrap();
        ended.extend_from_slice(world.contact_events().end());
    }
    assert_eq!(ended.len(), 1);
    assert_eq!((ended[0].a, ended[0].b), (ground, ball));
}

#[test]
fn teleporting_a_sleeping_body_wakes_it_and_it_falls_from_there() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    common::ground_of(&mut world, 20.0);
    let ball = common::ball(&mut world, Vec2::new(0.0, 0.5), 0.5);
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(
        !world.is_awake(ball).unwrap(),
        "the ball should sleep on the ground"
    );
    world.set_position(ball, Vec2::new(3.0, 5.0)).unwrap();
    assert!(world.is_awake(ball).unwrap());
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    // Half a second of free fall from 5 m: 1.25 m lower, give or take a step.
    let p = world.position(ball).unwrap();
    assert!(
        (p.x - 3.0).abs() < 1e-6 && (p.y - 3.75).abs() < 0.1,
        "ball at {p:?}"
    );
}
