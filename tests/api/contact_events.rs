//! Contact events and forces: begin/end events follow the geometry (landing, leaving, removal,
//! slot reuse), a begin says where, along which normal and how fast the bodies met, contact
//! forces balance gravity at rest (on flat ground and on a slope), stepping directly or through
//! a `FixedStepper` at any frame rate reports the same events, and everything is the same for
//! any thread count and backend.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, ContactData, FixedStepper, Shape, ShapeDef, TouchBegin, TouchEvent,
    Vec2, World, WorldSettings,
};
use common::ground;

const DT: f32 = 1.0 / 60.0;
const G: f32 = 10.0;
/// `WorldSettings::linear_slop` default: a pair touches when a point is within this.
const SLOP: f32 = 0.005;

fn touch(a: BodyId, b: BodyId) -> TouchEvent {
    TouchEvent { a, b }
}

/// The pairs of begin events.
fn pairs(begin: &[TouchBegin]) -> Vec<TouchEvent> {
    begin.iter().map(TouchBegin::pair).collect()
}

fn contact_between(world: &World, a: BodyId, b: BodyId) -> Option<ContactData<'_>> {
    world.contacts().find(|c| c.a == a && c.b == b)
}

#[test]
fn a_dropped_ball_begins_touching_once_on_landing() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let r = 0.5;
    let ball = common::ball(&mut world, Vec2::new(0.0, 3.0), r);
    let mut begins = 0;
    for step in 0..180 {
        // Manifolds are made from the poses at the start of a step.
        let gap = world.position(ball).unwrap().y - r;
        world.step(DT).unwrap();
        let events = world.contact_events();
        assert!(events.end().is_empty(), "step {step}: {:?}", events.end());
        if !events.begin().is_empty() {
            assert_eq!(pairs(events.begin()), [touch(floor, ball)]);
            begins += 1;
            // Within the slop of the ground, and not sunk in.
            assert!(gap < SLOP && gap > -2.0 * SLOP, "began at a gap of {gap} m");
        }
        let touching = world.contacts().count();
        assert_eq!(
            touching, begins,
            "step {step}: {touching} contacts, {begins} begins"
        );
    }
    assert_eq!(begins, 1);
}

#[test]
fn leaving_and_removal_end_the_contact() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let r = 0.5;
    let ball = common::ball(&mut world, Vec2::new(0.0, r), r);
    let other = common::ball(&mut world, Vec2::new(3.0, r), r);
    world.step(DT).unwrap();
    assert_eq!(
        pairs(world.contact_events().begin()),
        [touch(floor, ball), touch(floor, other)]
    );

    // Thrown up at 10 m/s: it leaves the ground in the first step, and the next step's
    // manifold, made at its new height, ends the contact.
    world
        .set_linear_velocity(ball, Vec2::new(0.0, 10.0))
        .unwrap();
    world.step(DT).unwrap();
    assert!(world.contact_events().end().is_empty());
    assert!(world.position(ball).unwrap().y - r > 0.1);
    world.step(DT).unwrap();
    assert_eq!(world.contact_events().end(), &[touch(floor, ball)]);
    assert!(world.contact_events().begin().is_empty());

    // Removed while touching: its end is reported with the next step, with its old handle.
    world.remove_body(other).unwrap();
    world.step(DT).unwrap();
    assert_eq!(world.contact_events().end(), &[touch(floor, other)]);
    // A newcomer in the same slot, touching the same ground, begins a contact of its own.
    let newcomer = common::ball(&mut world, Vec2::new(3.0, r), r);
    assert_eq!(newcomer.slot(), other.slot());
    world.remove_body(newcomer).unwrap();
    let third = common::ball(&mut world, Vec2::new(3.0, r), r);
    world.step(DT).unwrap();
    // The newcomer never touched anything in a step: no events for it.
    assert_eq!(pairs(world.contact_events().begin()), [touch(floor, third)]);
    assert!(world.contact_events().end().is_empty());
    // The next step is quiet.
    world.step(DT).unwrap();
    assert!(world.contact_events().begin().is_empty() && world.contact_events().end().is_empty());
}

/// A resting scene reports no events step after step, yet a contact that keeps its manifold
/// while it stops touching (a hop of a few millimetres, within the speculative distance) still
/// ends, and begins again on landing.
#[test]
fn a_hop_within_the_speculative_distance_ends_and_begins_the_contact() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let block = common::unit_box(&mut world, Vec2::new(0.0, 0.5));
    let beside = common::unit_box(&mut world, Vec2::new(3.0, 0.5));
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    for _ in 0..30 {
        world.step(DT).unwrap();
        let events = world.contact_events();
        assert!(events.begin().is_empty() && events.end().is_empty());
    }
    // Up at 0.45 m/s: it rises about 1 cm (v² / 2g), well within the 2 cm speculative
    // distance, and falls back within a few steps.
    world
        .set_linear_velocity(block, Vec2::new(0.0, 0.45))
        .unwrap();
    let (mut ended, mut began) = (None, None);
    for step in 0..30 {
        world.step(DT).unwrap();
        let gap = world.position(block).unwrap().y - 0.5;
        assert!(gap < 0.015, "gap {gap} m");
        // The pair keeps a manifold throughout: the same pairs, touching or not.
        assert_eq!(world.contact_count(), 2);
        let events = world.contact_events();
        if !events.end().is_empty() {
            assert_eq!(events.end(), &[touch(floor, block)]);
            assert!(gap > SLOP, "ended at a gap of {gap} m");
            ended.get_or_insert(step);
        }
        if !events.begin().is_empty() {
            assert_eq!(pairs(events.begin()), [touch(floor, block)]);
            began.get_or_insert(step);
        }
    }
    let (ended, began) = (ended.expect("no end event"), began.expect("no begin event"));
    assert!(ended < began);
    assert!(contact_between(&world, floor, beside).is_some());
}

/// A box of mass `m` resting on the ground: the contact carries its weight.
#[test]
fn a_resting_box_presses_with_its_weight() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let (half, density) = (0.5, 2.0);
    let block = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(1.0, half)),
            ShapeDef::new(Shape::rect(half, half).unwrap()).density(density),
        )
        .unwrap();
    let m = density * 4.0 * half * half;
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    for _ in 0..60 {
        world.step(DT).unwrap();
        let c = contact_between(&world, floor, block).expect("resting contact");
        assert_eq!(c.points().len(), 2);
        assert!((c.normal() - Vec2::new(0.0, 1.0)).length() < 1e-5);
        // N = m g, so the impulse over a step is m g dt.
        let impulse = c.normal_force() * DT;
        let expected = m * G * DT;
        assert!(
            (impulse - expected).abs() < 0.02 * expected,
            "impulse per step {impulse}, m g dt {expected}"
        );
        assert!(c.friction_force().abs() < 0.01 * m * G);
    }
}

/// On a slope of angle `theta` below the friction angle the box stays put: the ground pushes
/// with `m g cos(theta)` along the normal and holds it with `m g sin(theta)` of friction.
#[test]
fn a_box_held_by_friction_on_a_slope_feels_the_split_weight() {
    let mut world = World::new(WorldSettings::default());
    let theta: f32 = 0.3; // tan 0.3 = 0.31 < friction 0.6
    let (s, c) = theta.sin_cos();
    let slope = world
        .add_body(
            BodyDef::fixed().angle(theta),
            ShapeDef::new(Shape::rect(20.0, 1.0).unwrap()),
        )
        .unwrap();
    let half = 0.5;
    // On the slope's top face (y = 1 in its frame), centre `half` above it.
    let up = Vec2::new(-s, c);
    let block = world
        .add_body(
            BodyDef::dynamic().position(up * (1.0 + half)).angle(theta),
            ShapeDef::new(Shape::rect(half, half).unwrap()),
        )
        .unwrap();
    let m = 4.0 * half * half;
    for _ in 0..120 {
        world.step(DT).unwrap();
    }
    for _ in 0..30 {
        world.step(DT).unwrap();
        let contact = contact_between(&world, slope, block).expect("resting contact");
        assert!((contact.normal() - up).length() < 1e-4);
        let (normal, friction) = (contact.normal_force(), contact.friction_force());
        let (n_expected, f_expected) = (m * G * c, m * G * s);
        assert!(
            (normal - n_expected).abs() < 0.02 * n_expected,
            "normal {normal} vs {n_expected}"
        );
        // Friction holds the box up the slope, along the tangent right_perp(up) = (cos, sin).
        assert!(
            (friction - f_expected).abs() < 0.02 * f_expected,
            "friction {friction} vs {f_expected}"
        );
        assert!(friction.abs() <= contact.friction * normal * 1.0001);
    }
    assert!(world.linear_velocity(block).unwrap().length() < 1e-3);
}

/// Every step's events and every contact's impulses, as bits.
fn trace(backend: Backend, threads: usize) -> Vec<u64> {
    let mut world = batch2d::scenes::Scene::MixedPile
        .build(WorldSettings {
            backend,
            threads,
            ..WorldSettings::default()
        })
        .unwrap();
    let key = |e: &TouchEvent| u64::from(e.a.slot()) << 32 | u64::from(e.b.slot());
    let mut out = Vec::new();
    for _ in 0..60 {
        world.step(DT).unwrap();
        let events = world.contact_events();
        out.push(events.begin().len() as u64);
        for e in events.begin() {
            out.push(key(&e.pair()));
            let data = [
                e.point.x,
                e.point.y,
                e.normal.x,
                e.normal.y,
                e.approach_speed,
            ];
            out.extend(data.map(|x| u64::from(x.to_bits())));
        }
        out.push(events.end().len() as u64);
        out.extend(events.end().iter().map(key));
    }
    for c in world.contacts() {
        out.push(u64::from(c.a.slot()) << 32 | u64::from(c.b.slot()));
        for p in c.points() {
            out.push(
                u64::from(p.normal_impulse.to_bits()) << 32
                    | u64::from(p.tangent_impulse.to_bits()),
            );
        }
    }
    out
}

#[test]
fn events_and_impulses_do_not_depend_on_threads_or_backend() {
    let reference = trace(Backend::Simd, 1);
    assert!(reference.len() > 1000, "the pile produces events");
    assert_eq!(trace(Backend::Simd, 2), reference, "Simd, 2 threads");
    assert_eq!(trace(Backend::Scalar, 1), reference, "Scalar, 1 thread");
    assert_eq!(trace(Backend::Scalar, 2), reference, "Scalar, 2 threads");
}

/// A ball dropped from height `h` above the ground meets it at `sqrt(2 g h)`. The begin event
/// reports the speed at which they met (within 1% of it: `tests/api/hooks.rs` checks hits from
/// several heights), certainly within one step of gravity (`g dt`); the point is on the ground
/// under the ball, the normal straight up.
#[test]
fn a_begin_event_says_where_along_which_normal_and_how_fast_the_bodies_met() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let (r, h, x) = (0.5, 2.5, 1.25);
    let ball = common::ball(&mut world, Vec2::new(x, r + h), r);
    let mut begins = Vec::new();
    for _ in 0..120 {
        world.step(DT).unwrap();
        begins.extend_from_slice(world.contact_events().begin());
    }
    let [begin] = begins[..] else {
        panic!("one landing, got {begins:?}")
    };
    assert_eq!(begin.pair(), touch(floor, ball));
    assert_eq!((begin.shape_a, begin.shape_b), (0, 0));
    assert!((begin.normal - Vec2::new(0.0, 1.0)).length() < 1e-6);
    // Midway between the surfaces, which are within the slop of each other.
    assert!((begin.point - Vec2::new(x, 0.0)).length() < SLOP);
    let impact = (2.0 * G * h).sqrt();
    assert!(
        begin.approach_speed <= impact + 0.01 && begin.approach_speed >= impact - G * DT - 0.01,
        "approach {} vs sqrt(2 g h) = {impact}",
        begin.approach_speed
    );
    // By the step that reports it, the solver had stopped the ball: its velocity says little.
    assert!(world.linear_velocity(ball).unwrap().length() < 0.1 * impact);
}

/// A box landing flat touches with both bottom corners: the point is their centroid, under the
/// box's centre. A box created resting on the ground was never approaching: speed 0.
#[test]
fn a_flat_landing_touches_under_the_centre_and_a_resting_start_at_zero_speed() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let dropped = common::unit_box(&mut world, Vec2::new(-2.0, 1.5));
    let resting = common::unit_box(&mut world, Vec2::new(3.0, 0.5));
    world.step(DT).unwrap();
    let begins = world.contact_events().begin().to_vec();
    assert_eq!(pairs(&begins), [touch(floor, resting)]);
    assert_eq!(begins[0].approach_speed, 0.0);
    assert!((begins[0].point - Vec2::new(3.0, 0.0)).length() < SLOP);
    let mut landing = None;
    for _ in 0..120 {
        world.step(DT).unwrap();
        if let Some(b) = world.contact_events().begin().first() {
            assert!(landing.is_none(), "lands once");
            landing = Some(*b);
        }
    }
    let landing = landing.expect("the box lands");
    assert_eq!(landing.pair(), touch(floor, dropped));
    assert!((landing.point - Vec2::new(-2.0, 0.0)).length() < SLOP);
    let impact = (2.0 * G * 1.0f32).sqrt();
    assert!(landing.approach_speed >= impact - G * DT - 0.01);
    assert!(landing.approach_speed <= impact + 0.01);
}

/// README's fixed-step scene: terrain from a segment chain, a capsule and a few balls.
fn fixed_step_scene() -> World {
    let mut world = World::new(WorldSettings::default());
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &[
                Vec2::new(-5.0, 2.0),
                Vec2::new(0.0, 0.0),
                Vec2::new(5.0, 2.0),
            ],
            &ShapeDef::new(Shape::circle(1.0).unwrap()).friction(0.8),
        )
        .unwrap();
    world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 2.0)),
            ShapeDef::new(Shape::capsule(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.2).unwrap()),
        )
        .unwrap();
    for k in 0..3 {
        world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(-3.0 + 3.0 * k as f32, 4.0)),
                ShapeDef::new(Shape::circle(0.3).unwrap()).restitution(0.5),
            )
            .unwrap();
    }
    world
}

/// One step's events as comparable values: begin pairs with their data's bits, end pairs.
fn step_record(events: &batch2d::ContactEvents) -> Vec<(u32, u32, [u32; 5])> {
    let begins = events.begin().iter().map(|e| {
        let data = [
            e.point.x,
            e.point.y,
            e.normal.x,
            e.normal.y,
            e.approach_speed,
        ];
        (e.a.slot(), e.b.slot(), data.map(f32::to_bits))
    });
    let ends = events
        .end()
        .iter()
        .map(|e| (e.a.slot(), e.b.slot(), [u32::MAX; 5]));
    begins.chain(ends).collect()
}

/// Plain steps, two steps per frame and half a step per frame run the same steps, so they
/// must report the same events: a frame reports every step it ran, and one that ran no step
/// reports none.
#[test]
fn the_events_are_the_same_however_the_world_is_driven() {
    const STEPS: usize = 240;
    let mut plain = fixed_step_scene();
    let mut expected = Vec::new();
    for _ in 0..STEPS {
        plain.step(DT).unwrap();
        expected.push(step_record(plain.contact_events()));
    }
    let begins = expected
        .iter()
        .flatten()
        .filter(|e| e.2[0] != u32::MAX)
        .count();
    assert!(begins >= 6, "the scene has landings and bounces: {begins}");

    // 2 dt and dt / 2 are exact in f32 and f64, so every frame runs exactly 2 steps, or
    // alternately 0 and 1.
    for (frame_time, frames) in [(2.0 * DT, STEPS / 2), (DT / 2.0, 2 * STEPS)] {
        let mut world = fixed_step_scene();
        let mut stepper = FixedStepper::new().dt(DT);
        let mut got = Vec::new();
        for _ in 0..frames {
            let report = stepper.advance(&mut world, frame_time).unwrap();
            assert_eq!(stepper.contact_events().len(), report.steps as usize);
            got.extend(stepper.contact_events().iter().map(step_record));
        }
        assert_eq!(got, expected, "frames of {frame_time} s");
    }
}

/// Removing many touching bodies between two steps: right away no listed contact names a
/// removed body and the others are untouched; the next step ends exactly the touching pairs of
/// the removed bodies, with their old handles, even when a slot was reused and emptied again
/// in between.
#[test]
fn removing_many_touching_bodies_ends_exactly_their_pairs() {
    let mut world = World::new(WorldSettings::default());
    ground(&mut world);
    let boxes: Vec<BodyId> = (0..30)
        .map(|i| {
            let at = Vec2::new((i / 5) as f32 * 1.5, (i % 5) as f32 + 0.5);
            let def = BodyDef::dynamic().position(at);
            world
                .add_body(def, ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()))
                .unwrap()
        })
        .collect();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let pairs =
        |world: &World| -> Vec<TouchEvent> { world.contacts().map(|c| touch(c.a, c.b)).collect() };
    let before = pairs(&world);
    let removed: Vec<BodyId> = boxes.iter().copied().step_by(2).collect();
    for &id in &removed {
        world.remove_body(id).unwrap();
    }
    let newcomer = common::ball(&mut world, Vec2::new(0.0, 20.0), 0.5);
    assert!(removed.iter().any(|r| r.slot() == newcomer.slot()));
    world.remove_body(newcomer).unwrap();
    let gone = |e: &TouchEvent| removed.contains(&e.a) || removed.contains(&e.b);
    let kept: Vec<TouchEvent> = before.iter().copied().filter(|e| !gone(e)).collect();
    let ended: Vec<TouchEvent> = before.iter().copied().filter(gone).collect();
    assert!(!ended.is_empty() && !kept.is_empty());
    assert_eq!(pairs(&world), kept);
    world.step(DT).unwrap();
    let end = world.contact_events().end();
    let of_removed: Vec<TouchEvent> = end.iter().copied().filter(gone).collect();
    assert_eq!(of_removed, ended);
    assert!(end.iter().all(|e| e.a != newcomer && e.b != newcomer));
}
