//! Helpers shared by the test files; each test file compiles this module on its own and uses
//! only part of it.
#![allow(dead_code)]

mod rng;

// Not every test binary draws random numbers.
#[allow(unused_imports)]
pub use rng::Rng;

use batch2d::scenes::{large_pyramid_at, Scene};
use batch2d::{
    Backend, BodyDef, BodyId, InstructionSet, Rot, Shape, ShapeDef, Transform, Vec2, World,
    WorldSettings,
};

/// Everything about a world that the public API can read and that decides or records a step,
/// as raw bits (`f32::to_bits`): equal fingerprints mean bit-identical worlds (NaN equals itself
/// and -0 differs from 0). In order:
/// - each body in creation order: slot, kind, awake flag, position, rotation (cos, sin), linear
///   and angular velocity;
/// - each touching contact (the order of [`World::contacts`]): bodies' slots, shapes, mixed
///   friction and restitution, normal, and per point its position, separation, feature id and
///   the normal, friction and bounce impulses the solver accumulated;
/// - each joint: kind, bodies' slots, anchors, reaction force and torque;
/// - the contact and sensor events of the last step, with the speeds and points of the begins.
///
/// Handles enter as slots, not as `BodyId`s, so that twin worlds (which have handles of their
/// own) compare equal. Pending forces and torques cannot be read: the steps after a call show
/// them (compare the fingerprints of a world and its twin after stepping both).
pub fn state_bits(world: &World) -> Vec<u32> {
    let f = f32::to_bits;
    let mut bits = vec![world.body_count() as u32, world.contact_count() as u32];
    for id in world.bodies() {
        let p = world.position(id).unwrap();
        let q = world.rotation(id).unwrap();
        let v = world.linear_velocity(id).unwrap();
        let w = world.angular_velocity(id).unwrap();
        let kind = world.body_kind(id).unwrap() as u32;
        let awake = world.is_awake(id).unwrap() as u32;
        bits.extend([id.slot(), kind, awake]);
        bits.extend([p.x, p.y, q.c, q.s, v.x, v.y, w].map(f));
    }
    for c in world.contacts() {
        let n = c.normal();
        bits.extend([c.a.slot(), c.b.slot(), c.shape_a as u32, c.shape_b as u32]);
        bits.extend([c.friction, c.restitution, n.x, n.y].map(f));
        bits.push(c.points().len() as u32);
        for p in c.points() {
            bits.push(p.id);
            bits.extend(
                [
                    p.point.x,
                    p.point.y,
                    p.separation,
                    p.normal_impulse,
                    p.tangent_impulse,
                    p.impact_impulse,
                ]
                .map(f),
            );
        }
    }
    for j in world.joints() {
        let (kind, a, b) = world.joint_bodies(j).unwrap();
        let (anchor_a, anchor_b) = world.joint_anchors(j).unwrap();
        let force = world.joint_reaction_force(j).unwrap();
        let torque = world.joint_reaction_torque(j).unwrap();
        bits.extend([kind as u32, a.map_or(u32::MAX, |a| a.slot()), b.slot()]);
        bits.extend(
            [anchor_a, anchor_b, force]
                .iter()
                .flat_map(|v| [f(v.x), f(v.y)]),
        );
        bits.push(f(torque));
    }
    let events = world.contact_events();
    bits.push(events.begin().len() as u32);
    for e in events.begin() {
        bits.extend([e.a.slot(), e.b.slot(), e.shape_a as u32, e.shape_b as u32]);
        bits.extend(
            [
                e.point.x,
                e.point.y,
                e.normal.x,
                e.normal.y,
                e.approach_speed,
            ]
            .map(f),
        );
    }
    bits.push(events.end().len() as u32);
    bits.extend(events.end().iter().flat_map(|e| [e.a.slot(), e.b.slot()]));
    for sensor_events in [events.sensor_begin(), events.sensor_end()] {
        bits.push(sensor_events.len() as u32);
        bits.extend(
            sensor_events
                .iter()
                .flat_map(|e| [e.sensor.slot(), e.visitor.slot()]),
        );
    }
    bits
}

/// The earlier name of [`state_bits`], which now holds the whole state, not only the bodies'.
pub fn body_state_bits(world: &World) -> Vec<u32> {
    state_bits(world)
}

/// Index of the first word where two fingerprints differ (or where the shorter ends), for a
/// readable failure; `None` when they are equal.
pub fn first_difference(a: &[u32], b: &[u32]) -> Option<usize> {
    if a.len() != b.len() {
        return Some(
            a.iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len())),
        );
    }
    a.iter().zip(b).position(|(x, y)| x != y)
}

/// The instruction sets that `BATCH2D_REQUIRE_ISA` names (comma-separated, by
/// [`InstructionSet::name`]: `avx2,avx512`), after checking that this CPU has each: a test that
/// compares instruction sets must fail where one it was meant to cover is missing, not skip it.
/// CI sets the variable from the flags in /proc/cpuinfo (.ci/run); unset, nothing is required.
pub fn required_instruction_sets() -> Vec<InstructionSet> {
    let Ok(names) = std::env::var("BATCH2D_REQUIRE_ISA") else {
        return Vec::new();
    };
    let names = names.split(',').map(str::trim).filter(|n| !n.is_empty());
    names
        .map(|name| {
            let set = InstructionSet::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .unwrap_or_else(|| panic!("BATCH2D_REQUIRE_ISA: no instruction set {name:?}"));
            assert!(
                set.is_supported(),
                "BATCH2D_REQUIRE_ISA requires {name}, which this CPU or build cannot run"
            );
            set
        })
        .collect()
}

/// The time step of the tests that step at the default rate: 1/60 s.
pub const DT: f32 = 1.0 / 60.0;

/// A world at the default settings.
pub fn world() -> World {
    World::new(WorldSettings::default())
}

/// Steps `world` `n` times by [`DT`].
pub fn step(world: &mut World, n: usize) {
    for _ in 0..n {
        world.step(DT).unwrap();
    }
}

/// `Vec2::new(x, y)`, short for the many points the tests write out.
pub fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

/// An unrotated pose at `p`.
pub fn at(p: Vec2) -> Transform {
    Transform::new(p, Rot::IDENTITY)
}

/// Panics unless body `id`'s position, rotation and velocities are finite.
pub fn assert_finite(world: &World, id: BodyId) {
    let p = world.position(id).unwrap();
    let v = world.linear_velocity(id).unwrap();
    let q = world.rotation(id).unwrap();
    let w = world.angular_velocity(id).unwrap();
    assert!(
        p.is_finite() && v.is_finite() && q.c.is_finite() && q.s.is_finite() && w.is_finite(),
        "{id:?}: p {p:?} v {v:?} q {q:?} w {w}"
    );
}

/// [`assert_finite`] for every body.
pub fn assert_all_finite(world: &World) {
    for id in world.bodies() {
        assert_finite(world, id);
    }
}

/// A fixed ground 100 m wide whose top face is at y = 0.
pub fn ground(world: &mut World) -> BodyId {
    ground_of(world, 50.0)
}

/// A fixed ground 2 m thick and `2 half_width` wide whose top face is at y = 0.
pub fn ground_of(world: &mut World, half_width: f32) -> BodyId {
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(half_width, 1.0).unwrap()),
        )
        .unwrap()
}

/// A dynamic unit box (1 m × 1 m, density 1) centred at `at`.
pub fn unit_box(world: &mut World, at: Vec2) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap()
}

/// A dynamic circle of radius `radius` (density 1) centred at `at`.
pub fn ball(world: &mut World, at: Vec2, radius: f32) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::circle(radius).unwrap()),
        )
        .unwrap()
}

/// Distance from `p` to the segment from `a` to `b` (not a point: `a != b`).
pub fn point_segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let e = b - a;
    let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
    (p - (a + e * t)).length()
}

/// What the large pyramid (docs/scenes.md) looks like after its 500 steps; lengths
/// in metres.
pub struct PyramidOutcome {
    /// Touching pairs.
    pub contacts: usize,
    /// How far the top box sank.
    pub top_drop: f32,
    /// Largest sideways drift of any box from where it started.
    pub max_drift: f32,
    /// Lowest box centre height above the ground's top face.
    pub lowest: f32,
}

/// Runs the large pyramid built at `origin` for its 500 steps on the reference path, measured
/// relative to `origin`.
pub fn run_large_pyramid(origin: Vec2) -> PyramidOutcome {
    let settings = WorldSettings {
        backend: Backend::Scalar,
        ..WorldSettings::default()
    };
    let mut world = large_pyramid_at(origin, settings).unwrap();
    // Slot 0 is the ground; the boxes follow.
    let boxes: Vec<(BodyId, Vec2)> = world
        .bodies()
        .skip(1)
        .map(|id| (id, world.position(id).unwrap() - origin))
        .collect();
    assert_eq!(boxes.len(), 5050);
    let (top, top_start) = boxes
        .iter()
        .copied()
        .max_by(|a, b| a.1.y.total_cmp(&b.1.y))
        .unwrap();
    for _ in 0..Scene::LargePyramid.steps() {
        world.step(1.0 / 60.0).unwrap();
    }
    let mut max_drift = 0.0f32;
    let mut lowest = f32::INFINITY;
    for &(id, start) in &boxes {
        let p = world.position(id).unwrap() - origin;
        assert!(p.is_finite());
        max_drift = max_drift.max((p.x - start.x).abs());
        lowest = lowest.min(p.y);
    }
    PyramidOutcome {
        contacts: world.contact_count(),
        top_drop: top_start.y - (world.position(top).unwrap() - origin).y,
        max_drift,
        lowest,
    }
}
