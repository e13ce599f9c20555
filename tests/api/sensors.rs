//! Sensors report what overlaps them and push nothing: a ball falls through a sensor box
//! exactly as it falls through empty space, with one begin and one end; a falling sensor
//! passes through the ground; removal ends overlaps, sleeping inside a sensor does not, and
//! layers filter sensors as they filter contacts; a sensor may be one shape of a compound body
//! (a foot sensor), and fixed sensors see kinematic bodies when asked to.

use crate::common;

use batch2d::{BodyDef, BodyId, SensorEvent, Shape, ShapeDef, Vec2, World, WorldSettings};

const DT: f32 = 1.0 / 60.0;
const R: f32 = 0.25;

fn ball_def(y: f32) -> (BodyDef, ShapeDef) {
    // A bullet: continuous collision sweeps it against every static body each step, so a
    // sensor that continuous collision saw would stop it.
    (
        BodyDef::dynamic().position(Vec2::new(0.0, y)).bullet(true),
        ShapeDef::new(Shape::circle(R).unwrap()),
    )
}

fn state_bits(world: &World, id: BodyId) -> [u32; 6] {
    let (p, v) = (
        world.position(id).unwrap(),
        world.linear_velocity(id).unwrap(),
    );
    let q = world.rotation(id).unwrap();
    [p.x, p.y, v.x, v.y, q.c, world.angular_velocity(id).unwrap()].map(f32::to_bits)
}

fn event(sensor: BodyId, visitor: BodyId) -> SensorEvent {
    SensorEvent { sensor, visitor }
}

#[test]
fn a_ball_falls_through_a_sensor_as_through_empty_space_with_one_begin_and_one_end() {
    let mut free = World::new(WorldSettings::default());
    let (def, shape) = ball_def(4.0);
    let free_ball = free.add_body(def.clone(), shape.clone()).unwrap();

    let mut world = World::new(WorldSettings::default());
    // A thin box, 0.1 m thick, its top face at y = 1.
    let (top, half_height) = (1.0, 0.05);
    let sensor = world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, top - half_height)),
            ShapeDef::new(Shape::rect(2.0, half_height).unwrap()).sensor(true),
        )
        .unwrap();
    let ball = world.add_body(def, shape).unwrap();

    let mut events = Vec::new();
    for step in 0..90 {
        // Overlap is judged at the poses the step starts from.
        let y = world.position(ball).unwrap().y;
        let inside = y - R <= top && y + R >= top - 2.0 * half_height;
        world.step(DT).unwrap();
        free.step(DT).unwrap();
        assert_eq!(
            state_bits(&world, ball),
            state_bits(&free, free_ball),
            "step {step}"
        );
        let e = world.contact_events();
        assert!(e.begin().is_empty() && e.end().is_empty(), "no contact");
        for begin in e.sensor_begin() {
            assert_eq!(*begin, event(sensor, ball));
            assert!(inside, "began outside, at y = {y}");
            events.push(("begin", step));
        }
        for end in e.sensor_end() {
            assert_eq!(*end, event(sensor, ball));
            assert!(!inside, "ended inside, at y = {y}");
            events.push(("end", step));
        }
    }
    assert_eq!(world.contact_count(), 0);
    assert!(world.position(ball).unwrap().y < -5.0, "fell through");
    let [("begin", b), ("end", e)] = events[..] else {
        panic!("one begin then one end, got {events:?}")
    };
    assert!(b < e);
}

#[test]
fn a_falling_sensor_passes_through_the_ground_and_reports_it() {
    let mut world = World::new(WorldSettings::default());
    let ground = common::ground_of(&mut world, 20.0);
    let sensor = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 1.0)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).sensor(true),
        )
        .unwrap();
    let (mut begins, mut ends) = (Vec::new(), Vec::new());
    for _ in 0..120 {
        world.step(DT).unwrap();
        begins.extend_from_slice(world.contact_events().sensor_begin());
        ends.extend_from_slice(world.contact_events().sensor_end());
    }
    assert_eq!(begins, [event(sensor, ground)]);
    assert_eq!(ends, [event(sensor, ground)]);
    // Free fall for 2 s from rest: far below the 2 m thick ground.
    assert!(world.position(sensor).unwrap().y < -10.0);
}

#[test]
fn removal_ends_overlaps_and_sleeping_inside_a_sensor_does_not() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    common::ground_of(&mut world, 20.0);
    // A zone on the ground, two balls resting in it.
    let zone = world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, 1.0)),
            ShapeDef::new(Shape::rect(3.0, 1.0).unwrap()).sensor(true),
        )
        .unwrap();
    let balls: Vec<BodyId> = [-1.0, 1.0]
        .iter()
        .map(|&x| {
            world
                .add_body(
                    BodyDef::dynamic().position(Vec2::new(x, R)),
                    ShapeDef::new(Shape::circle(R).unwrap()),
                )
                .unwrap()
        })
        .collect();
    world.step(DT).unwrap();
    assert_eq!(
        world.contact_events().sensor_begin(),
        [event(zone, balls[0]), event(zone, balls[1])]
    );
    let mut slept = false;
    for _ in 0..240 {
        world.step(DT).unwrap();
        assert!(world.contact_events().sensor_end().is_empty());
        slept |= !world.is_awake(balls[0]).unwrap();
    }
    assert!(slept, "the balls fell asleep");

    world.remove_body(balls[0]).unwrap();
    world.step(DT).unwrap();
    assert_eq!(world.contact_events().sensor_end(), [event(zone, balls[0])]);
    world.remove_body(zone).unwrap();
    world.step(DT).unwrap();
    assert_eq!(world.contact_events().sensor_end(), [event(zone, balls[1])]);
    world.step(DT).unwrap();
    assert!(world.contact_events().is_empty());
}

#[test]
fn layers_filter_sensors() {
    let mut world = World::new(WorldSettings::default());
    world
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::rect(2.0, 2.0).unwrap())
                .sensor(true)
                .mask(2),
        )
        .unwrap();
    let (def, shape) = ball_def(0.0);
    world.add_body(def, shape).unwrap();
    for _ in 0..10 {
        world.step(DT).unwrap();
        assert!(world.contact_events().is_empty(), "masked out");
    }
}

/// A character: a solid box with a foot sensor under it, one compound body. Dropped onto the
/// ground, the box lands and rests on its solid shape exactly where a box without the sensor
/// rests (the sensor pushes nothing), and the foot sensor reports the ground once, from the
/// step the foot first overlaps it; lifted off, the foot reports leaving.
#[test]
fn a_foot_sensor_on_a_compound_body_sees_the_ground_and_pushes_nothing() {
    let run = |with_foot: bool| {
        let mut world = World::new(WorldSettings::default());
        let floor = common::ground(&mut world);
        let mut parts = vec![ShapeDef::new(Shape::rect(0.5, 0.5).unwrap())];
        if with_foot {
            // Reaches 5 cm below the box: it overlaps the ground while the box rests on it.
            let foot = Shape::offset_rect(0.3, 0.1, Vec2::new(0.0, -0.55), 0.0).unwrap();
            parts.push(ShapeDef::new(foot).sensor(true).density(0.0));
        }
        let player = world
            .add_compound_body(BodyDef::dynamic().position(Vec2::new(0.0, 1.5)), &parts)
            .unwrap();
        let (mut begins, mut ends) = (Vec::new(), Vec::new());
        for _ in 0..90 {
            world.step(DT).unwrap();
            begins.extend_from_slice(world.contact_events().sensor_begin());
            ends.extend_from_slice(world.contact_events().sensor_end());
        }
        let rest = world.position(player).unwrap();
        world
            .set_linear_velocity(player, Vec2::new(0.0, 5.0))
            .unwrap();
        for _ in 0..10 {
            world.step(DT).unwrap();
            ends.extend_from_slice(world.contact_events().sensor_end());
        }
        (rest, begins, ends, floor, player)
    };
    let (plain, ..) = run(false);
    let (rest, begins, ends, floor, player) = run(true);
    assert!((rest.y - 0.5).abs() < 0.01, "rests on its box: {rest:?}");
    assert!(
        (rest - plain).length() < 1e-4,
        "as without the foot: {rest:?} {plain:?}"
    );
    assert_eq!(begins, [event(player, floor)]);
    assert_eq!(ends, [event(player, floor)], "jumping off ends it");
}

/// By default a fixed sensor sees only dynamic visitors, as in Box2D; with
/// `sensors_see_kinematic` a kinematic body passing through it begins and ends overlapping it,
/// in the steps its box enters and leaves the sensor's.
#[test]
fn a_fixed_sensor_sees_a_kinematic_body_when_asked_to() {
    let run = |see: bool| {
        let settings = WorldSettings {
            sensors_see_kinematic: see,
            ..WorldSettings::default()
        };
        let mut world = World::new(settings);
        let gate = world
            .add_body(
                BodyDef::fixed(),
                ShapeDef::new(Shape::rect(1.0, 1.0).unwrap()).sensor(true),
            )
            .unwrap();
        // 0.5 m wide, moving at 3 m/s along +x from x = -3: its right edge reaches the gate's
        // left edge (x = -1) after 1.75 / 3 s, its left edge leaves x = 1 after 4.25 / 3 s.
        let cart = world
            .add_body(
                BodyDef::kinematic()
                    .position(Vec2::new(-3.0, 0.0))
                    .linear_velocity(Vec2::new(3.0, 0.0)),
                ShapeDef::new(Shape::rect(0.25, 0.25).unwrap()),
            )
            .unwrap();
        let (mut begin, mut end) = (None, None);
        for step in 0..120 {
            world.step(DT).unwrap();
            let e = world.contact_events();
            if !e.sensor_begin().is_empty() {
                assert_eq!(e.sensor_begin(), [event(gate, cart)]);
                begin = Some(step);
            }
            if !e.sensor_end().is_empty() {
                assert_eq!(e.sensor_end(), [event(gate, cart)]);
                end = Some(step);
            }
        }
        (begin, end)
    };
    assert_eq!(run(false), (None, None), "Box2D's default: unseen");
    let (begin, end) = run(true);
    let (begin, end) = (begin.expect("seen entering"), end.expect("seen leaving"));
    // Overlap is judged at the poses a step starts from: step k starts at t = k dt.
    let (enter, leave) = (1.75 / 3.0 / DT, 4.25 / 3.0 / DT);
    assert!(
        (begin as f32 - enter).abs() <= 1.5,
        "enters at step {begin}, ~{enter}"
    );
    assert!(
        (end as f32 - leave).abs() <= 1.5,
        "leaves at step {end}, ~{leave}"
    );
}
