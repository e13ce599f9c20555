//! Small islands whose masses differ widely are solved exactly (the direct solver). Each test
//! checks a law at mass ratios where the iterative solver gives way, and that the island really
//! took the direct path: none of its contacts is in a graph color (`DebugContact::color` is
//! `None`). The other uncolored contacts, the overflow, need a body touching more contacts
//! than there are colors (24), which no body in these small islands does.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, DebugBody, DebugContact, DebugDraw, DebugDrawOptions, Shape,
    ShapeDef, Vec2, World, WorldSettings,
};
use common::{ground, state_bits};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 10.0;

fn add_box(world: &mut World, p: Vec2, density: f32, friction: f32, restitution: f32) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(p),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap())
                .density(density)
                .friction(friction)
                .restitution(restitution),
        )
        .unwrap()
}

/// The graph colors of the last step's contact points.
fn contact_colors(world: &World) -> Vec<Option<u8>> {
    struct Colors(Vec<Option<u8>>);
    impl DebugDraw for Colors {
        fn draw_circle(&mut self, _: DebugBody, _: Vec2, _: f32, _: Vec2) {}
        fn draw_polygon(&mut self, _: DebugBody, _: &[Vec2], _: f32) {}
        fn draw_contact(&mut self, contact: &DebugContact) {
            self.0.push(contact.color);
        }
    }
    let mut colors = Colors(Vec::new());
    let options = DebugDrawOptions {
        shapes: false,
        aabbs: false,
        contacts: true,
        joints: false,
    };
    world.debug_draw(&mut colors, &options);
    colors.0
}

fn all_direct(world: &World) -> bool {
    let colors = contact_colors(world);
    !colors.is_empty() && colors.iter().all(|c| c.is_none())
}

/// Ten 1 kg boxes under a 10 t box, at the default settings: no box sinks more than the slop
/// into another, the column stays straight and the heavy box rests at its height.
#[test]
fn a_column_of_one_kilogram_boxes_carries_a_box_ten_thousand_times_heavier() {
    let mut world = World::new(WorldSettings::default());
    ground(&mut world);
    let mut column: Vec<BodyId> = (0..10)
        .map(|i| {
            add_box(
                &mut world,
                Vec2::new(0.0, 0.5 + 1.01 * i as f32),
                1.0,
                0.6,
                0.0,
            )
        })
        .collect();
    column.push(add_box(
        &mut world,
        Vec2::new(0.0, 10.6),
        10_000.0,
        0.6,
        0.0,
    ));
    for k in 0..600 {
        world.step(DT).unwrap();
        let mut below = -0.5f32;
        for (i, &id) in column.iter().enumerate() {
            let p = world.position(id).unwrap();
            let overlap = 1.0 - (p.y - below);
            assert!(overlap < 0.01, "step {k}: box {i} sank {overlap} m");
            assert!(p.x.abs() < 1e-3, "step {k}: box {i} slid to x = {}", p.x);
            below = p.y;
        }
    }
    assert!(all_direct(&world));
    let top = world.position(column[10]).unwrap().y;
    assert!((top - 10.5).abs() < 0.01, "the heavy box rests at {top} m");
    // The bottom contact carries the whole column: 10010 kg * g, within 1%.
    let carried: f32 = world
        .contacts()
        .filter(|c| c.a == column[0] || c.b == column[0])
        .filter(|c| c.a != column[1] && c.b != column[1])
        .map(|c| c.normal_force())
        .sum();
    let weight = 10_010.0 * G;
    assert!(
        (carried - weight).abs() < 0.01 * weight,
        "the ground carries {carried} N of {weight} N"
    );
}

/// A 1 t box slides on a 1 kg plank that rests on the ground: the plank holds still (the
/// ground grips it harder than the box drags it, and it is too flat to tip), and the box
/// decelerates at `mu g` (Coulomb's dynamic friction).
#[test]
fn a_heavy_box_sliding_on_a_light_one_slows_at_the_coulomb_rate() {
    let mut world = World::new(WorldSettings::default());
    ground(&mut world);
    let plank = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 0.25)),
            ShapeDef::new(Shape::rect(1.0, 0.25).unwrap()).friction(1.0),
        )
        .unwrap();
    let heavy = add_box(&mut world, Vec2::new(0.0, 1.0), 1000.0, 0.1, 0.0);
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let v0 = 2.0;
    world
        .set_linear_velocity(heavy, Vec2::new(v0, 0.0))
        .unwrap();
    // Geometric-mean mixing: mu = sqrt(0.1 * 1.0) between box and plank.
    let decel = 0.1f32.sqrt() * G;
    let mut t = 0.0f32;
    while t < 0.4 {
        world.step(DT).unwrap();
        t += DT;
        let v = world.linear_velocity(heavy).unwrap();
        let expected = v0 - decel * t;
        assert!(
            (v.x - expected).abs() < 0.02 * v0,
            "t {t}: heavy box at {} m/s, Coulomb says {expected}",
            v.x
        );
        let under = world.linear_velocity(plank).unwrap();
        assert!(under.length() < 1e-3, "t {t}: the plank moves at {under:?}");
        assert!((world.position(heavy).unwrap().y - 1.0).abs() < 0.01);
    }
    assert!(all_direct(&world));
}

/// Momentum of the bodies of an island, in f64.
fn momentum(world: &World, bodies: &[(BodyId, f64)]) -> (f64, f64) {
    bodies.iter().fold((0.0, 0.0), |(px, py), &(id, mass)| {
        let v = world.linear_velocity(id).unwrap();
        (px + mass * v.x as f64, py + mass * v.y as f64)
    })
}

/// Without gravity, a 1 t box runs into two 1 kg boxes resting against each other: contact
/// impulses are equal and opposite, so the momentum of the three stays what it was, and
/// without restitution the three end up moving together.
#[test]
fn a_heavy_box_hitting_light_ones_conserves_momentum() {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let heavy = add_box(&mut world, Vec2::new(-3.0, 0.0), 1000.0, 0.6, 0.0);
    let light = [
        add_box(&mut world, Vec2::new(0.0, 0.1), 1.0, 0.6, 0.0),
        add_box(&mut world, Vec2::new(1.0, 0.3), 1.0, 0.6, 0.0),
    ];
    world
        .set_linear_velocity(heavy, Vec2::new(3.0, 0.0))
        .unwrap();
    let bodies = [(heavy, 1000.0), (light[0], 1.0), (light[1], 1.0)];
    let before = momentum(&world, &bodies);
    let mut direct = false;
    for _ in 0..90 {
        world.step(DT).unwrap();
        let (px, py) = momentum(&world, &bodies);
        assert!(
            (px - before.0).abs() < 1e-4 * before.0,
            "px {px} of {}",
            before.0
        );
        assert!(py.abs() < 1e-4 * before.0, "py {py}");
        direct |= all_direct(&world);
    }
    assert!(direct, "the island never took the direct path");
    let common = before.0 / 1002.0;
    for (id, _) in bodies {
        let v = world.linear_velocity(id).unwrap();
        assert!(
            (v.x as f64 - common).abs() < 0.01 * common,
            "{id:?} at {v:?}"
        );
    }
}

/// Without gravity, a 1 kg box with restitution 0.8 hits a 100 kg box: the relative normal
/// velocity reverses and shrinks by the restitution, and momentum is kept.
#[test]
fn a_light_box_bounces_off_a_heavy_one_by_its_restitution() {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let light = add_box(&mut world, Vec2::new(-2.0, 0.0), 1.0, 0.6, 0.8);
    let heavy = add_box(&mut world, Vec2::new(0.0, 0.0), 100.0, 0.6, 0.8);
    world
        .set_linear_velocity(light, Vec2::new(4.0, 0.0))
        .unwrap();
    let bodies = [(light, 1.0), (heavy, 100.0)];
    let before = momentum(&world, &bodies);
    let mut direct = false;
    for _ in 0..60 {
        world.step(DT).unwrap();
        direct |= all_direct(&world);
    }
    assert!(direct, "the pair never took the direct path");
    let relative =
        world.linear_velocity(heavy).unwrap().x - world.linear_velocity(light).unwrap().x;
    assert!(
        (relative - 0.8 * 4.0).abs() < 0.05 * 3.2,
        "they part at {relative} m/s, restitution says 3.2"
    );
    let after = momentum(&world, &bodies);
    assert!((after.0 - before.0).abs() < 1e-4 * before.0);
}

/// Worlds with a direct island beside ordinary colored contacts give the same bits on both
/// backends and any thread count.
#[test]
fn direct_islands_are_bit_identical_across_backends_and_threads() {
    let run = |backend: Backend, threads: usize| {
        let mut world = World::new(WorldSettings {
            backend,
            threads,
            ..WorldSettings::default()
        });
        ground(&mut world);
        for i in 0..4 {
            add_box(
                &mut world,
                Vec2::new(-5.0, 0.5 + 1.01 * i as f32),
                1.0,
                0.6,
                0.0,
            );
        }
        let heavy = add_box(&mut world, Vec2::new(-5.2, 4.6), 500.0, 0.6, 0.3);
        world.set_angular_velocity(heavy, 0.5).unwrap();
        // A small pyramid of equal boxes, colored as usual.
        for row in 0..6 {
            for j in row..6 {
                let x = 5.0 + (row as f32 + 1.0) * 0.5 + (j - row) as f32 * 1.0;
                add_box(&mut world, Vec2::new(x, 0.5 + row as f32), 1.0, 0.6, 0.0);
            }
        }
        let mut saw_direct = false;
        for _ in 0..240 {
            world.step(DT).unwrap();
            let colors = contact_colors(&world);
            saw_direct |= colors.contains(&None);
            assert!(colors.iter().any(|c| c.is_some()));
        }
        assert!(saw_direct);
        state_bits(&world)
    };
    let reference = run(Backend::Simd, 1);
    assert_eq!(run(Backend::Scalar, 1), reference);
    assert_eq!(run(Backend::Simd, 2), reference);
    assert_eq!(run(Backend::Scalar, 3), reference);
}

/// An island of widely different masses that rests on nothing (no fixed or kinematic body in
/// it) and is beyond the exact solve's size stays with the iterative solver: a 200 kg plank on
/// forty 1 kg boxes side by side (over 200 contact points), floating without gravity. The
/// same island on the ground goes to the direct solver, whose layered sweeps are ordered from
/// the ground.
#[test]
fn islands_beyond_the_direct_limit_stay_with_the_iterative_solver() {
    let plank_on_boxes = |grounded: bool| {
        let gravity = if grounded {
            Vec2::new(0.0, -10.0)
        } else {
            Vec2::ZERO
        };
        let mut world = World::new(WorldSettings {
            gravity,
            ..WorldSettings::default()
        });
        if grounded {
            ground(&mut world);
        }
        for i in 0..40 {
            add_box(&mut world, Vec2::new(-19.5 + i as f32, 0.5), 1.0, 0.6, 0.0);
        }
        world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(0.0, 1.25)),
                ShapeDef::new(Shape::rect(20.0, 0.25).unwrap()).density(10.0),
            )
            .unwrap();
        for _ in 0..10 {
            world.step(DT).unwrap();
        }
        contact_colors(&world)
    };
    let grounded = plank_on_boxes(true);
    // Solved whole by the direct solver: no contact in the colors.
    assert!(grounded.iter().all(|c| c.is_none()));
    let world_colors = plank_on_boxes(false);
    assert!(!world_colors.is_empty());
    // The plank's many contacts may overflow the colors, but the boxes' contacts with each
    // other take colors: an island the direct solver took would have none colored.
    assert!(world_colors.iter().any(|c| c.is_some()));
}
