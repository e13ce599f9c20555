//! Helpers shared by the test files; each test file compiles this module on its own and uses
//! only part of it.
#![allow(dead_code)]

use batch2d::{BodyDef, BodyId, Shape, ShapeDef, Vec2, World};

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
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(50.0, 1.0)),
        )
        .unwrap()
}
