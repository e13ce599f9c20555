//! Shapes added to and removed from bodies at run time: mass data against the parallel-axis
//! sum, a removed shape that no longer holds anything up, bit-identical results across
//! backends and thread counts, and snapshots across a change.

use crate::common;

use batch2d::{Backend, BodyDef, BodyId, Shape, ShapeDef, Snapshot, Vec2, World, WorldSettings};
use common::state_bits;

const DT: f32 = 1.0 / 60.0;

/// A `w` x `h` box of `density` centred at `c` in the body frame, in f64: (mass, centre, own
/// inertia about its centre, m (w² + h²) / 12).
fn law_box(w: f64, h: f64, c: (f64, f64), density: f64) -> (f64, (f64, f64), f64) {
    let m = density * w * h;
    (m, c, m * (w * w + h * h) / 12.0)
}

/// The parallel-axis sum of `parts`: total mass, centre, inertia about the centre.
fn law_sum(parts: &[(f64, (f64, f64), f64)]) -> (f64, (f64, f64), f64) {
    let mass: f64 = parts.iter().map(|p| p.0).sum();
    let cx = parts.iter().map(|p| p.0 * p.1 .0).sum::<f64>() / mass;
    let cy = parts.iter().map(|p| p.0 * p.1 .1).sum::<f64>() / mass;
    let inertia = parts
        .iter()
        .map(|&(m, (x, y), own)| own + m * ((x - cx).powi(2) + (y - cy).powi(2)))
        .sum();
    (mass, (cx, cy), inertia)
}

fn assert_mass(world: &World, body: BodyId, law: (f64, (f64, f64), f64)) {
    let (mass, (cx, cy), inertia) = law;
    let rel = |got: f32, want: f64| ((got as f64 - want) / want).abs();
    let m = world.mass(body).unwrap();
    let i = world.rotational_inertia(body).unwrap();
    let c = world.local_center(body).unwrap();
    assert!(rel(m, mass) < 1e-6, "mass {m}, the law's {mass}");
    assert!(rel(i, inertia) < 1e-5, "inertia {i}, the law's {inertia}");
    assert!(
        (c.x as f64 - cx).abs() < 1e-6 && (c.y as f64 - cy).abs() < 1e-6,
        "centre {c:?}, the law's ({cx}, {cy})"
    );
}

#[test]
fn added_and_removed_shapes_give_the_parallel_axis_mass_and_keep_every_point_s_speed() {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let body = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(1.0, 2.0)).angle(0.3),
            ShapeDef::new(Shape::rect(0.5, 0.25).unwrap()),
        )
        .unwrap();
    world
        .set_linear_velocity(body, Vec2::new(1.0, -0.5))
        .unwrap();
    world.set_angular_velocity(body, 2.0).unwrap();
    world.step(DT).unwrap();
    let hull = law_box(1.0, 0.5, (0.0, 0.0), 1.0);
    assert_mass(&world, body, law_sum(&[hull]));

    // A heavy 0.4 m square on one side and a light 0.2 x 0.6 post on top.
    let square = law_box(0.4, 0.4, (1.0, 0.0), 3.0);
    let post = law_box(0.2, 0.6, (-0.3, 0.55), 0.5);
    let shapes = [
        ShapeDef::new(Shape::offset_rect(0.2, 0.2, Vec2::new(1.0, 0.0), 0.0).unwrap()).density(3.0),
        ShapeDef::new(Shape::offset_rect(0.1, 0.3, Vec2::new(-0.3, 0.55), 0.0).unwrap())
            .density(0.5),
    ];
    let origin = world.transform(body).unwrap();
    // The velocity of the body's point at the centre of mass to be, before the change.
    let point_velocity = |world: &World, local: Vec2| {
        let xf = world.transform(body).unwrap();
        let r = xf.q.rotate(local - world.local_center(body).unwrap());
        let w = world.angular_velocity(body).unwrap();
        world.linear_velocity(body).unwrap() + Vec2::new(-w * r.y, w * r.x)
    };
    let law = law_sum(&[hull, square]);
    let new_centre = Vec2::new(law.1 .0 as f32, law.1 .1 as f32);
    let expected_velocity = point_velocity(&world, new_centre);
    assert_eq!(world.add_shape(body, shapes[0].clone()).unwrap(), 1);
    assert_mass(&world, body, law);
    assert_eq!(world.transform(body).unwrap(), origin, "the origin moved");
    let v = world.linear_velocity(body).unwrap();
    assert!(
        (v - expected_velocity).length() < 1e-5,
        "{v:?} {expected_velocity:?}"
    );
    assert_eq!(world.add_shape(body, shapes[1].clone()).unwrap(), 2);
    assert_mass(&world, body, law_sum(&[hull, square, post]));
    assert_eq!(world.shapes(body).unwrap().len(), 3);

    // Removing the square leaves the hull and the post, the post now shape 1.
    world.remove_shape(body, 1).unwrap();
    assert_mass(&world, body, law_sum(&[hull, post]));
    assert_eq!(world.shapes(body).unwrap()[1], shapes[1].shape);
    world.remove_shape(body, 1).unwrap();
    assert_mass(&world, body, law_sum(&[hull]));
    assert_eq!(world.shape(body).unwrap(), &Shape::rect(0.5, 0.25).unwrap());
    assert!(
        world.remove_shape(body, 0).is_err(),
        "the last shape was removed"
    );
    for _ in 0..10 {
        world.step(DT).unwrap();
    }
}

/// A static shelf of three slabs side by side (shape 0 left, 1 middle, 2 right) with a box
/// resting on each.
fn shelf(backend: Backend, threads: usize) -> (World, BodyId, [BodyId; 3]) {
    let mut world = World::new(WorldSettings {
        backend,
        threads,
        ..WorldSettings::default()
    });
    let slab =
        |x: f32| ShapeDef::new(Shape::offset_rect(0.9, 0.1, Vec2::new(x, 0.0), 0.0).unwrap());
    let shelf = world
        .add_compound_body(BodyDef::fixed(), &[slab(-2.0), slab(0.0), slab(2.0)])
        .unwrap();
    let boxes = [-2.0, 0.0, 2.0].map(|x| {
        world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(x, 0.35)),
                ShapeDef::new(Shape::rect(0.25, 0.25).unwrap()),
            )
            .unwrap()
    });
    (world, shelf, boxes)
}

#[test]
fn a_removed_shape_holds_nothing_up_and_the_others_keep_their_contacts() {
    let (mut world, shelf, boxes) = shelf(Backend::Simd, 1);
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let rest: Vec<Vec2> = boxes.iter().map(|&b| world.position(b).unwrap()).collect();
    let on = |world: &World, b: BodyId| -> Vec<usize> {
        world
            .contacts()
            .filter(|c| (c.a, c.b) == (shelf, b))
            .map(|c| c.shape_a)
            .collect()
    };
    assert_eq!(on(&world, boxes[2]), [2]);
    world.remove_shape(shelf, 1).unwrap();
    // The right box's contact is renumbered at once; the middle one's is gone.
    assert_eq!(on(&world, boxes[2]), [1]);
    assert!(on(&world, boxes[1]).is_empty());
    let mut ended = false;
    for _ in 0..60 {
        world.step(DT).unwrap();
        ended |= (world.contact_events().end().iter()).any(|e| (e.a, e.b) == (shelf, boxes[1]));
        // The boxes on the remaining slabs do not move.
        for i in [0, 2] {
            let moved = (world.position(boxes[i]).unwrap() - rest[i]).length();
            assert!(moved < 1e-3, "box {i} moved {moved} m");
        }
    }
    assert!(ended, "no end event for the box that lost its slab");
    // The middle box fell freely: half g t² over the second.
    let fell = rest[1].y - world.position(boxes[1]).unwrap().y;
    assert!((fell - 0.5 * 10.0 * 1.0).abs() < 0.5, "fell {fell} m");
    assert_eq!(on(&world, boxes[2]), [1]);
}

/// The shelf, with a slab added under the middle box's new place, one removed and a box made a
/// compound along the way.
fn run_changes(backend: Backend, threads: usize) -> Vec<u32> {
    let (mut world, shelf, boxes) = shelf(backend, threads);
    for step in 0..120 {
        match step {
            20 => world.remove_shape(shelf, 1).map(|_| 0).unwrap(),
            30 => world
                .add_shape(
                    shelf,
                    ShapeDef::new(Shape::offset_rect(0.9, 0.1, Vec2::new(0.0, -2.0), 0.0).unwrap()),
                )
                .unwrap(),
            40 => world
                .add_shape(
                    boxes[0],
                    ShapeDef::new(Shape::circle_at(Vec2::new(0.3, 0.3), 0.2).unwrap()).density(2.0),
                )
                .unwrap(),
            80 => world.remove_shape(boxes[0], 0).map(|_| 0).unwrap(),
            _ => 0,
        };
        world.step(DT).unwrap();
    }
    state_bits(&world)
}

#[test]
fn shape_changes_are_bit_identical_across_backends_and_threads() {
    let scalar = run_changes(Backend::Scalar, 1);
    assert!(
        scalar == run_changes(Backend::Simd, 1),
        "Scalar and Simd differ"
    );
    assert!(
        scalar == run_changes(Backend::Simd, 2),
        "1 and 2 threads differ"
    );
}

#[test]
fn a_snapshot_restores_across_an_added_shape_bit_for_bit() {
    let (mut world, shelf, boxes) = shelf(Backend::Simd, 1);
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let before = world.snapshot();
    let run = |world: &mut World| {
        let arm = Shape::offset_rect(0.1, 0.1, Vec2::new(0.0, 0.4), 0.0).unwrap();
        world.add_shape(boxes[1], ShapeDef::new(arm)).unwrap();
        world.step(DT).unwrap();
        let after = world.snapshot();
        for _ in 0..30 {
            world.step(DT).unwrap();
        }
        (after, state_bits(world))
    };
    let (after, first) = run(&mut world);
    world.restore(&before).unwrap();
    assert_eq!(world.shapes(boxes[1]).unwrap().len(), 1);
    let (_, second) = run(&mut world);
    assert!(first == second, "a restore before add_shape differs");
    // And from bytes, after the change.
    let bytes = after.to_bytes();
    let mut copy = World::new(WorldSettings::default());
    copy.restore(&Snapshot::from_bytes(&bytes).unwrap())
        .unwrap();
    assert_eq!(copy.shapes(boxes[1]).unwrap().len(), 2);
    for _ in 0..30 {
        copy.step(DT).unwrap();
    }
    assert!(
        state_bits(&copy) == first,
        "a restore from bytes after add_shape differs"
    );
    let _ = shelf;
}
