//! Resting stacks stay put: a tall column does not lean, a small pyramid keeps every contact.

use crate::common;

use batch2d::{Backend, BodyId, Vec2, World, WorldSettings};
use common::unit_box;

fn world_with_ground(backend: Backend) -> World {
    let mut world = World::new(WorldSettings {
        backend,
        threads: 1,
        ..WorldSettings::default()
    });
    common::ground_of(&mut world, 100.0);
    world
}

/// Twenty unit boxes on top of each other are an unstable equilibrium for a solver that leans
/// a little each step; ours must hold them upright for 10 s.
#[test]
fn column_of_twenty_boxes_stands_upright() {
    for backend in [Backend::Simd, Backend::Scalar] {
        let mut world = world_with_ground(backend);
        let boxes: Vec<BodyId> = (0..20)
            .map(|i| unit_box(&mut world, Vec2::new(0.0, i as f32 + 0.5)))
            .collect();
        for _ in 0..600 {
            world.step(1.0 / 60.0).unwrap();
        }
        for (i, &id) in boxes.iter().enumerate() {
            let p = world.position(id).unwrap();
            assert!(
                p.x.abs() < 0.01,
                "{backend:?}: box {i} leaned to x = {}",
                p.x
            );
            assert!(
                world.angle(id).unwrap().abs() < 0.01,
                "{backend:?}: box {i} tilted"
            );
            let sink = i as f32 + 0.5 - p.y;
            assert!(
                (0.0..0.05).contains(&sink),
                "{backend:?}: box {i} sank {sink} m"
            );
        }
        assert_eq!(world.contact_count(), 20);
    }
}

/// A ten-row pyramid (55 boxes) keeps all 145 contacts (55 on a box or the ground below, 45
/// side by side, 45 more below) and barely settles.
#[test]
fn ten_row_pyramid_keeps_every_contact() {
    let mut world = world_with_ground(Backend::Simd);
    let mut boxes = Vec::new();
    for row in 0..10 {
        for col in row..10 {
            let x = (row as f32 + 1.0) * 0.5 + (col - row) as f32 - 5.0;
            let at = Vec2::new(x, row as f32 + 0.5);
            boxes.push((unit_box(&mut world, at), at));
        }
    }
    for _ in 0..500 {
        world.step(1.0 / 60.0).unwrap();
    }
    assert_eq!(world.contact_count(), 145);
    for &(id, start) in &boxes {
        let moved = world.position(id).unwrap() - start;
        assert!(
            moved.x.abs() < 0.01,
            "box from {start:?} slid {} m",
            moved.x
        );
        assert!(moved.y > -0.02, "box from {start:?} sank {} m", -moved.y);
    }
}
