//! Helpers shared by the test files; each test file compiles this module on its own and uses
//! only part of it.
#![allow(dead_code)]

use batch2d::scenes::{large_pyramid_at, Scene};
use batch2d::{Backend, BodyDef, BodyId, Shape, ShapeDef, Vec2, World, WorldSettings};

/// Every body's position, rotation and velocities as raw bits, in creation order. Equal
/// snapshots mean bit-identical worlds: NaN equals itself and -0 differs from 0.
pub fn body_state_bits(world: &World) -> Vec<u32> {
    let mut bits = Vec::new();
    for id in world.bodies() {
        let p = world.position(id).unwrap();
        let q = world.rotation(id).unwrap();
        let v = world.linear_velocity(id).unwrap();
        let w = world.angular_velocity(id).unwrap();
        bits.extend([p.x, p.y, q.c, q.s, v.x, v.y, w].map(f32::to_bits));
    }
    bits
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

/// The xorshift32 generator of the randomized tests: small, seeded, the same sequence on every
/// platform, so that a failing case can be rerun from its seed. Test files add the methods
/// that draw their own kinds of cases in `impl Rng` blocks of their own.
pub struct Rng(pub u32);

impl Rng {
    /// Uniform in [0, 1), with 24 bits.
    pub fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_f32() * n as f32) as usize).min(n - 1)
    }
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
