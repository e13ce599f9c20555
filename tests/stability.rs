//! Stability: the large pyramid of docs/scenes.md must stand for its 500 steps on the reference path.

use batch2d::scenes::Scene;
use batch2d::{Backend, Vec2, WorldSettings};

#[test]
fn large_pyramid_stands_for_500_steps() {
    let scene = Scene::LargePyramid;
    let mut world = scene
        .build(WorldSettings {
            backend: Backend::Scalar,
            ..WorldSettings::default()
        })
        .unwrap();

    // The boxes are the bodies above the ground (whose centre is at y = -1).
    let boxes: Vec<_> = world
        .bodies()
        .map(|id| (id, world.position(id).unwrap()))
        .filter(|(_, p)| p.y > 0.0)
        .collect();
    assert_eq!(boxes.len(), 5050);
    let (top, top_start) = boxes
        .iter()
        .copied()
        .max_by(|a, b| a.1.y.total_cmp(&b.1.y))
        .unwrap();

    for _ in 0..scene.steps() {
        world.step(1.0 / 60.0).unwrap();
    }

    // Judge every box before failing, so a failure says how bad it is, not just where it began.
    let mut drifted = Vec::new();
    let mut fallen = Vec::new();
    for &(id, start) in &boxes {
        let p: Vec2 = world.position(id).unwrap();
        let stayed = (p.x - start.x).abs() < 0.5;
        if !stayed {
            drifted.push((start, p));
        }
        // A resting box of half-extent 0.5 has its centre 0.5 above whatever holds it; allow a
        // few centimetres of sink into the ground, nothing more.
        let above = p.y > 0.45;
        if !above {
            fallen.push((start, p));
        }
    }
    let worst = |v: &[(Vec2, Vec2)]| {
        v.iter()
            .copied()
            .max_by(|a, b| (a.1.x - a.0.x).abs().total_cmp(&(b.1.x - b.0.x).abs()))
    };
    assert!(
        drifted.is_empty(),
        "{} boxes moved 0.5 m or more sideways; worst (start, now): {:?}",
        drifted.len(),
        worst(&drifted)
    );
    assert!(
        fallen.is_empty(),
        "{} boxes sank below y = 0.45; first (start, now): {:?}",
        fallen.len(),
        fallen.first()
    );
    // Soft contacts compress under a hundred rows: Box2D v3 and rapier2d sag 0.73 and 0.75 m
    // here. (Contacts held rigid within the slop sagged 0.36 m, but let tall pyramids hop and
    // walk sideways: tests/textbook.rs.)
    let drop = top_start.y - world.position(top).unwrap().y;
    assert!(drop < 0.6, "top box sank {drop} m");
    // Every box touches the one(s) below and beside it: 14950 manifolds in the standing pyramid.
    assert_eq!(world.contact_count(), 14950);
}
