//! Contact events and forces: begin/end events follow the geometry (landing, leaving, removal,
//! slot reuse), contact forces balance gravity at rest (on flat ground and on a slope), and
//! everything is the same for any thread count and backend.

mod common;

use batch2d::{
    Backend, BodyDef, BodyId, ContactData, Shape, ShapeDef, TouchEvent, Vec2, World, WorldSettings,
};
use common::ground;

const DT: f32 = 1.0 / 60.0;
const G: f32 = 10.0;
/// `WorldSettings::linear_slop` default: a pair touches when a point is within this.
const SLOP: f32 = 0.005;

fn touch(a: BodyId, b: BodyId) -> TouchEvent {
    TouchEvent { a, b }
}

fn contact_between(world: &World, a: BodyId, b: BodyId) -> Option<ContactData<'_>> {
    world.contacts().find(|c| c.a == a && c.b == b)
}

#[test]
fn a_dropped_ball_begins_touching_once_on_landing() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let r = 0.5;
    let ball = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 3.0)),
            ShapeDef::new(Shape::circle(r)),
        )
        .unwrap();
    let mut begins = 0;
    for step in 0..180 {
        // Manifolds are made from the poses at the start of a step.
        let gap = world.position(ball).unwrap().y - r;
        world.step(DT).unwrap();
        let events = world.contact_events();
        assert!(events.end().is_empty(), "step {step}: {:?}", events.end());
        if !events.begin().is_empty() {
            assert_eq!(events.begin(), &[touch(floor, ball)]);
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
    let ball = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, r)),
            ShapeDef::new(Shape::circle(r)),
        )
        .unwrap();
    let other = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(3.0, r)),
            ShapeDef::new(Shape::circle(r)),
        )
        .unwrap();
    world.step(DT).unwrap();
    assert_eq!(
        world.contact_events().begin(),
        &[touch(floor, ball), touch(floor, other)]
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
    let newcomer = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(3.0, r)),
            ShapeDef::new(Shape::circle(r)),
        )
        .unwrap();
    assert_eq!(newcomer.slot(), other.slot());
    world.remove_body(newcomer).unwrap();
    let third = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(3.0, r)),
            ShapeDef::new(Shape::circle(r)),
        )
        .unwrap();
    world.step(DT).unwrap();
    // The newcomer never touched anything in a step: no events for it.
    assert_eq!(world.contact_events().begin(), &[touch(floor, third)]);
    assert!(world.contact_events().end().is_empty());
    // The next step is quiet.
    world.step(DT).unwrap();
    assert!(world.contact_events().begin().is_empty() && world.contact_events().end().is_empty());
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
            ShapeDef::new(Shape::rect(half, half)).density(density),
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
            ShapeDef::new(Shape::rect(20.0, 1.0)),
        )
        .unwrap();
    let half = 0.5;
    // On the slope's top face (y = 1 in its frame), centre `half` above it.
    let up = Vec2::new(-s, c);
    let block = world
        .add_body(
            BodyDef::dynamic().position(up * (1.0 + half)).angle(theta),
            ShapeDef::new(Shape::rect(half, half)),
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
        out.extend(events.begin().iter().map(key));
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
                .add_body(def, ShapeDef::new(Shape::rect(0.5, 0.5)))
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
    let newcomer = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 20.0)),
            ShapeDef::new(Shape::circle(0.5)),
        )
        .unwrap();
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
