//! Compound bodies: combined mass data against closed forms, resting on several feet,
//! momentum through a collision, determinism, bad input, queries and removal.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, Error, MassData, QueryFilter, Shape, ShapeDef, Vec2, World,
    WorldSettings, MAX_COMPOUND_SHAPES,
};
use common::{ground, Rng};
use std::f32::consts::PI;

const DT: f32 = 1.0 / 60.0;

fn close(a: f32, b: f32, rel: f32) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

/// A table: a top 2 m x 0.2 m and two legs 0.2 m x 1 m, origin at the middle of the legs.
fn table() -> Vec<ShapeDef> {
    vec![
        ShapeDef::new(Shape::offset_rect(1.0, 0.1, Vec2::new(0.0, 0.6), 0.0).unwrap()),
        ShapeDef::new(Shape::offset_rect(0.1, 0.5, Vec2::new(-0.8, 0.0), 0.0).unwrap()),
        ShapeDef::new(Shape::offset_rect(0.1, 0.5, Vec2::new(0.8, 0.0), 0.0).unwrap()),
    ]
}

fn dumbbell(radius: f32, half_length: f32) -> Vec<ShapeDef> {
    vec![
        ShapeDef::new(Shape::circle_at(Vec2::new(-half_length, 0.0), radius).unwrap()).density(2.0),
        ShapeDef::new(Shape::circle_at(Vec2::new(half_length, 0.0), radius).unwrap()).density(2.0),
    ]
}

#[test]
fn dumbbell_mass_data_is_the_parallel_axis_sum() {
    let (r, d, density) = (0.5f32, 1.5f32, 2.0f32);
    let parts: Vec<MassData> = dumbbell(r, d)
        .iter()
        .map(|s| s.shape.mass_data(s.density))
        .collect();
    let combined = MassData::combine(&parts);
    let m = density * PI * r * r;
    // Each disc: m r² / 2 about its own centre, plus m d² to move it to the middle.
    let expected = 2.0 * (0.5 * m * r * r + m * d * d);
    assert!(close(combined.mass, 2.0 * m, 1e-6));
    assert!(combined.center.length() <= 1e-6);
    assert!(close(combined.rotational_inertia, expected, 1e-5));

    // The body puts its centre of mass there: at the body origin, between the discs.
    let mut world = World::new(WorldSettings::default());
    let body = world
        .add_compound_body(
            BodyDef::dynamic().position(Vec2::new(3.0, 2.0)),
            &dumbbell(r, d),
        )
        .unwrap();
    assert!((world.position(body).unwrap() - Vec2::new(3.0, 2.0)).length() <= 1e-6);
    assert_eq!(world.local_center(body).unwrap(), combined.center);
}

#[test]
fn l_shape_mass_data_by_hand() {
    // An L: a 2 x 1 foot with its centre at (1, 0.5) and a 1 x 2 upright centred at (0.5, 2),
    // density 3. Areas 2 and 2, so the centre of mass is the midpoint (0.75, 1.25).
    let density = 3.0;
    let foot = Shape::offset_rect(1.0, 0.5, Vec2::new(1.0, 0.5), 0.0).unwrap();
    let upright = Shape::offset_rect(0.5, 1.0, Vec2::new(0.5, 2.0), 0.0).unwrap();
    let parts = [foot.mass_data(density), upright.mass_data(density)];
    let l = MassData::combine(&parts);
    let m = 2.0 * density; // each part
    assert!(close(l.mass, 2.0 * m, 1e-6));
    assert!((l.center - Vec2::new(0.75, 1.25)).length() <= 1e-6);
    // A w x h box: m (w² + h²) / 12 about its centre; each part's centre is (0.25, 0.75) from
    // the combined one, 0.625 m² squared.
    let own = m * (4.0 + 1.0) / 12.0;
    let expected = 2.0 * (own + m * 0.625);
    assert!(close(l.rotational_inertia, expected, 1e-5));

    // The same through a polygon of the whole L, cut into two convex halves another way:
    // the lower 1 x 3 column and the 1 x 1 block to its right. Same body, same mass data.
    let column = Shape::offset_rect(0.5, 1.5, Vec2::new(0.5, 1.5), 0.0).unwrap();
    let block = Shape::polygon(&[
        Vec2::new(1.0, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::new(2.0, 1.0),
        Vec2::new(1.0, 1.0),
    ])
    .unwrap();
    let other = MassData::combine(&[column.mass_data(density), block.mass_data(density)]);
    assert!(close(other.mass, l.mass, 1e-6));
    assert!((other.center - l.center).length() <= 1e-5);
    assert!(close(other.rotational_inertia, l.rotational_inertia, 1e-5));

    let mut world = World::new(WorldSettings::default());
    let body = world
        .add_compound_body(
            BodyDef::dynamic(),
            &[
                ShapeDef::new(foot).density(3.0),
                ShapeDef::new(upright).density(3.0),
            ],
        )
        .unwrap();
    assert_eq!(world.local_center(body).unwrap(), l.center);
}

#[test]
fn a_compound_of_one_shape_is_that_shape() {
    let shapes = [
        Shape::circle_at(Vec2::new(0.3, -0.2), 0.7).unwrap(),
        Shape::offset_rect(0.4, 0.2, Vec2::new(1.0, 2.0), 0.3).unwrap(),
        Shape::rounded_polygon(
            &[
                Vec2::new(0.0, 0.0),
                Vec2::new(1.0, 0.1),
                Vec2::new(0.4, 0.9),
            ],
            0.05,
        )
        .unwrap(),
        Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.5), 0.25).unwrap(),
    ];
    for shape in shapes {
        let own = shape.mass_data(1.7);
        assert_eq!(MassData::combine(&[own]), own, "{shape:?}");

        // And in a world: the body moves exactly like one added with add_body.
        let run = |compound: bool| {
            let mut world = World::new(WorldSettings::default());
            ground(&mut world);
            let def = BodyDef::dynamic()
                .position(Vec2::new(0.0, 2.0))
                .angle(0.4)
                .angular_velocity(1.0);
            let shape_def = ShapeDef::new(shape.clone()).density(1.7);
            let id = if compound {
                world.add_compound_body(def, &[shape_def]).unwrap()
            } else {
                world.add_body(def, shape_def).unwrap()
            };
            assert_eq!(world.shape(id).unwrap(), &shape);
            for _ in 0..90 {
                world.step(DT).unwrap();
            }
            let (p, q) = (world.position(id).unwrap(), world.rotation(id).unwrap());
            [p.x, p.y, q.c, q.s].map(f32::to_bits)
        };
        assert_eq!(run(true), run(false), "{shape:?}");
    }
}

/// Touching contacts between `a` and `b`, as (shape of a, shape of b).
fn touching_shapes(world: &World, a: BodyId, b: BodyId) -> Vec<(usize, usize)> {
    world
        .contacts()
        .filter(|c| (c.a, c.b) == (a, b))
        .map(|c| (c.shape_a, c.shape_b))
        .collect()
}

#[test]
fn a_table_rests_on_both_legs() {
    let mut world = World::new(WorldSettings {
        threads: 1,
        ..WorldSettings::default()
    });
    let floor = ground(&mut world);
    let table = world
        .add_compound_body(BodyDef::dynamic().position(Vec2::new(0.5, 0.7)), &table())
        .unwrap();
    let mut begins = 0;
    for _ in 0..120 {
        world.step(DT).unwrap();
        begins += world
            .contact_events()
            .begin()
            .iter()
            .filter(|e| (e.a, e.b) == (floor, table))
            .count();
    }
    // Events are per body pair: one begin, though two legs landed.
    assert_eq!(begins, 1);
    // Both legs (shapes 1 and 2) on the ground, the top (shape 0) off it.
    assert_eq!(touching_shapes(&world, floor, table), [(0, 1), (0, 2)]);
    assert!(world.shape(table).is_err());
    assert_eq!(world.shapes(table).unwrap().len(), 3);

    let p0 = world.position(table).unwrap();
    let a0 = world.angle(table).unwrap();
    // The legs' bottoms at y = 0 (origin 0.5 above them), up to the solver's slop.
    let origin = world.transform(table).unwrap().p;
    assert!((origin.y - 0.5).abs() < 0.01, "origin at {origin:?}");
    for _ in 0..300 {
        world.step(DT).unwrap();
        let drift = (world.position(table).unwrap() - p0).length();
        let turn = (world.angle(table).unwrap() - a0).abs();
        assert!(drift < 0.01, "drifted {drift} m");
        assert!(turn < 1f32.to_radians(), "turned {turn} rad");
        assert_eq!(touching_shapes(&world, floor, table).len(), 2);
    }
    assert!(world.contact_events().end().is_empty());
}

fn momentum(world: &World, bodies: &[(BodyId, MassData)]) -> (Vec2, f32) {
    let mut linear = Vec2::ZERO;
    let mut angular = 0.0;
    for &(id, mass) in bodies {
        let (c, v) = (
            world.position(id).unwrap(),
            world.linear_velocity(id).unwrap(),
        );
        let w = world.angular_velocity(id).unwrap();
        linear += v * mass.mass;
        // About the world origin: I w + m (c x v).
        angular += mass.rotational_inertia * w + mass.mass * c.cross(v);
    }
    (linear, angular)
}

#[test]
fn an_off_centre_hit_spins_the_compound_and_keeps_momentum() {
    for restitution in [0.0, 1.0] {
        let mut world = World::new(WorldSettings {
            gravity: Vec2::ZERO,
            restitution_threshold: 0.1,
            ..WorldSettings::default()
        });
        let l_shape = [
            ShapeDef::new(Shape::offset_rect(1.0, 0.25, Vec2::new(0.0, 0.0), 0.0).unwrap())
                .density(2.0)
                .restitution(restitution),
            ShapeDef::new(Shape::offset_rect(0.25, 0.75, Vec2::new(-0.75, 1.0), 0.0).unwrap())
                .density(1.0)
                .restitution(restitution),
        ];
        let parts: Vec<MassData> = l_shape
            .iter()
            .map(|s| s.shape.mass_data(s.density))
            .collect();
        let l_mass = MassData::combine(&parts);
        let l = world
            .add_compound_body(BodyDef::dynamic().position(Vec2::new(0.0, 0.0)), &l_shape)
            .unwrap();
        let ball_shape = ShapeDef::new(Shape::circle(0.2).unwrap())
            .density(4.0)
            .restitution(restitution);
        let ball_mass = ball_shape.shape.mass_data(4.0);
        // Straight down onto the far end of the foot, 0.9 m right of the L's origin.
        let ball = world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(0.9, 1.5))
                    .linear_velocity(Vec2::new(0.0, -6.0)),
                ball_shape,
            )
            .unwrap();
        let bodies = [(l, l_mass), (ball, ball_mass)];
        let (p0, h0) = momentum(&world, &bodies);
        // Until the two have met and parted (the spinning L would come round and hit the ball
        // again later).
        let (mut touched, mut steps) = (false, 0);
        while !touched || world.contact_count() > 0 {
            world.step(DT).unwrap();
            touched |= world.contacts().next().is_some();
            steps += 1;
            assert!(steps < 60, "still in contact after {steps} steps");
        }
        let (p1, h1) = momentum(&world, &bodies);
        let scale = p0.length();
        assert!(
            (p1 - p0).length() <= 0.01 * scale,
            "e = {restitution}: linear momentum {p0:?} -> {p1:?}"
        );
        assert!(
            (h1 - h0).abs() <= 0.01 * h0.abs(),
            "e = {restitution}: angular momentum {h0} -> {h1}"
        );
        // The hit right of the centre of mass, pushing down, turned the L clockwise.
        assert!(world.angular_velocity(l).unwrap() < -0.1);
        assert!(world.linear_velocity(l).unwrap().y < -0.1);
    }
}

/// A pile of tables, dumbbells, L shapes, boxes and circles on the ground.
fn mixed_scene(backend: Backend, threads: usize) -> World {
    let mut world = World::new(WorldSettings {
        backend,
        threads,
        ..WorldSettings::default()
    });
    ground(&mut world);
    let l_shape = [
        ShapeDef::new(Shape::offset_rect(0.5, 0.1, Vec2::new(0.0, 0.0), 0.0).unwrap()),
        ShapeDef::new(Shape::offset_rect(0.1, 0.4, Vec2::new(-0.4, 0.5), 0.0).unwrap())
            .friction(0.2),
    ];
    for row in 0..6 {
        for col in 0..8 {
            let at = Vec2::new(col as f32 * 2.6 - 9.0, 1.0 + row as f32 * 2.2);
            let def = BodyDef::dynamic()
                .position(at)
                .angle(0.1 * (row + col) as f32);
            match (row + col) % 5 {
                0 => world.add_compound_body(def, &table()),
                1 => world.add_compound_body(def, &dumbbell(0.3, 0.6)),
                2 => world.add_compound_body(def, &l_shape),
                3 => world.add_body(def, ShapeDef::new(Shape::rect(0.4, 0.3).unwrap())),
                _ => world.add_body(
                    def,
                    ShapeDef::new(Shape::circle(0.35).unwrap()).restitution(0.3),
                ),
            }
            .unwrap();
        }
    }
    world
}

use common::state_bits as snapshot;

fn run_mixed(backend: Backend, threads: usize) -> Vec<u32> {
    let mut world = mixed_scene(backend, threads);
    for _ in 0..150 {
        world.step(DT).unwrap();
    }
    let compound_contacts = world
        .contacts()
        .filter(|c| c.shape_a > 0 || c.shape_b > 0)
        .count();
    assert!(compound_contacts > 10, "{compound_contacts}");
    snapshot(&world)
}

#[test]
fn compounds_are_bit_identical_across_backends_and_threads() {
    let scalar = run_mixed(Backend::Scalar, 2);
    let simd = run_mixed(Backend::Simd, 2);
    assert!(scalar == simd, "Scalar and Simd differ");
    let one = run_mixed(Backend::Simd, 1);
    let three = run_mixed(Backend::Simd, 3);
    assert!(one == three, "1 and 3 threads differ");
    assert!(one == simd, "1 and 2 threads differ");
}

/// Bits of everything a failed call must leave alone.
fn state(world: &World) -> (usize, Vec<u32>) {
    (world.body_count(), snapshot(world))
}

#[test]
fn bad_compounds_are_rejected_and_change_nothing() {
    let mut world = mixed_scene(Backend::Simd, 1);
    for _ in 0..5 {
        world.step(DT).unwrap();
    }
    let before = state(&world);
    let at = BodyDef::dynamic().position(Vec2::new(0.0, 5.0));
    let circle = || ShapeDef::new(Shape::circle(0.5).unwrap());
    let too_many: Vec<ShapeDef> = (0..=MAX_COMPOUND_SHAPES)
        .map(|i| ShapeDef::new(Shape::circle_at(Vec2::new(i as f32, 0.0), 0.4).unwrap()))
        .collect();
    let cases: Vec<(&str, BodyDef, Vec<ShapeDef>)> = vec![
        ("no shapes", at.clone(), vec![]),
        ("too many shapes", at.clone(), too_many),
        (
            "negative density",
            at.clone(),
            vec![circle(), circle().density(-1.0)],
        ),
        (
            "NaN friction",
            at.clone(),
            vec![circle().friction(f32::NAN), circle()],
        ),
        (
            "restitution above 1",
            at.clone(),
            vec![circle(), circle().restitution(1.5)],
        ),
        (
            "a segment on a dynamic body",
            at.clone(),
            vec![
                circle(),
                ShapeDef::new(Shape::segment(Vec2::ZERO, Vec2::new(1.0, 0.0)).unwrap()),
            ],
        ),
        (
            "zero total mass",
            at.clone(),
            vec![circle().density(0.0), circle().density(0.0)],
        ),
        (
            "a non-finite position",
            BodyDef::dynamic().position(Vec2::new(f32::NAN, 0.0)),
            vec![circle(), circle()],
        ),
        (
            "a shape beyond the reach limit",
            at.clone(),
            vec![
                circle(),
                ShapeDef::new(Shape::circle_at(Vec2::new(2e6, 0.0), 1.0).unwrap()),
            ],
        ),
    ];
    for (what, def, shapes) in cases {
        let result = world.add_compound_body(def, &shapes);
        assert!(
            matches!(
                result,
                Err(Error::InvalidShape(_) | Error::InvalidParameter(_))
            ),
            "{what}: {result:?}"
        );
        assert!(state(&world) == before, "{what} changed the world");
    }
    // Still a working world, and the same valid input is accepted: segments on a static body,
    // zero density on a kinematic one.
    let segments = [
        ShapeDef::new(Shape::segment(Vec2::new(-1.0, 0.0), Vec2::new(0.0, 0.5)).unwrap()),
        ShapeDef::new(Shape::segment(Vec2::new(0.0, 0.5), Vec2::new(1.0, 0.0)).unwrap()),
    ];
    world
        .add_compound_body(BodyDef::fixed().position(Vec2::new(0.0, 20.0)), &segments)
        .unwrap();
    world
        .add_compound_body(
            BodyDef::kinematic().position(Vec2::new(5.0, 20.0)),
            &[circle().density(0.0), circle().density(0.0)],
        )
        .unwrap();
    world.step(DT).unwrap();
}

#[test]
fn a_ray_hits_the_shape_in_its_path_and_names_the_compound() {
    let mut world = World::new(WorldSettings::default());
    // Two discs 4 m apart, the right one in layer 2.
    let body = world
        .add_compound_body(
            BodyDef::fixed().position(Vec2::new(10.0, 0.0)),
            &[
                ShapeDef::new(Shape::circle_at(Vec2::new(-2.0, 0.0), 0.5).unwrap()),
                ShapeDef::new(Shape::circle_at(Vec2::new(2.0, 0.0), 0.5).unwrap()).layers(2),
            ],
        )
        .unwrap();
    let down = Vec2::new(0.0, -10.0);
    let all = QueryFilter::new();
    for x in [8.0, 12.0] {
        let hit = world
            .cast_ray(Vec2::new(x, 5.0), down, 1.0, all)
            .unwrap()
            .expect("a hit");
        assert_eq!(hit.body, body);
        assert!((hit.point - Vec2::new(x, 0.5)).length() < 1e-4, "{hit:?}");
        assert!((hit.normal - Vec2::new(0.0, 1.0)).length() < 1e-4);
    }
    // Between the discs, inside the body's box: nothing.
    assert_eq!(
        world
            .cast_ray(Vec2::new(10.0, 5.0), down, 1.0, all)
            .unwrap(),
        None
    );
    assert!(world
        .overlap_point(Vec2::new(10.0, 0.0), all)
        .unwrap()
        .is_empty());
    assert_eq!(
        world.overlap_point(Vec2::new(12.0, 0.2), all).unwrap(),
        [body]
    );
    // Sideways from the left: the near disc first; a filter that does not see layer 1 goes
    // through it to the far one.
    let right = Vec2::new(20.0, 0.0);
    let hit = world
        .cast_ray(Vec2::new(0.0, 0.0), right, 1.0, all)
        .unwrap()
        .unwrap();
    assert!((hit.point.x - 7.5).abs() < 1e-4, "{hit:?}");
    let layer_2 = QueryFilter::new().mask(2);
    let hit = world
        .cast_ray(Vec2::new(0.0, 0.0), right, 1.0, layer_2)
        .unwrap()
        .unwrap();
    assert_eq!(hit.body, body);
    assert!((hit.point.x - 11.5).abs() < 1e-4, "{hit:?}");
    let hits = world
        .cast_ray_all(Vec2::new(0.0, 0.0), right, 1.0, all)
        .unwrap();
    assert_eq!(hits.len(), 1);
    // A shape cast meets the near disc too.
    let cast = world
        .cast_shape(
            &Shape::circle(0.25).unwrap(),
            batch2d::Transform::new(Vec2::new(12.0, 5.0), batch2d::Rot::IDENTITY),
            down,
            all,
        )
        .unwrap()
        .unwrap();
    assert_eq!(cast.body, body);
    assert!(
        (cast.point - Vec2::new(12.0, 0.5)).length() < 0.02,
        "{cast:?}"
    );
}

#[test]
fn removing_a_compound_with_warm_contacts_leaves_its_neighbours_sane() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let table = world
        .add_compound_body(BodyDef::dynamic().position(Vec2::new(0.0, 0.5)), &table())
        .unwrap();
    // A box on the table top (y = 1.2) and a ball under it.
    let crate_ = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.3, 1.5)),
            ShapeDef::new(Shape::rect(0.3, 0.3).unwrap()),
        )
        .unwrap();
    let ball = common::ball(&mut world, Vec2::new(0.0, 0.3), 0.3);
    for _ in 0..90 {
        world.step(DT).unwrap();
    }
    assert_eq!(touching_shapes(&world, floor, table).len(), 2);
    assert_eq!(touching_shapes(&world, table, crate_), [(0, 0)]);
    assert!(world.contacts().any(|c| c.normal_force() > 0.0));

    world.remove_body(table).unwrap();
    assert_eq!(world.shapes(table), Err(Error::InvalidBody));
    world.step(DT).unwrap();
    let ended = world.contact_events().end().to_vec();
    assert!(ended.iter().any(|e| (e.a, e.b) == (floor, table)));
    assert!(ended.iter().any(|e| (e.a, e.b) == (table, crate_)));
    // A reused slot gets a plain body, which must not inherit the compound's shapes.
    let newcomer = common::ball(&mut world, Vec2::new(5.0, 0.5), 0.5);
    assert_eq!(newcomer.slot(), table.slot());
    assert_eq!(world.shapes(newcomer).unwrap().len(), 1);
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    // The box fell onto the ball or the floor and rests there (the balls may roll on), and
    // nothing blew up.
    for id in [crate_, ball, newcomer] {
        let p = world.position(id).unwrap();
        let v = world.linear_velocity(id).unwrap();
        assert!(p.is_finite() && p.y > 0.0 && p.y < 1.5, "{id:?} at {p:?}");
        assert!(v.is_finite() && v.length() < 5.0, "{id:?} moving at {v:?}");
    }
    assert!(world.linear_velocity(crate_).unwrap().length() < 0.1);
    assert!(world.contacts().all(|c| c.a != table && c.b != table));
}

#[test]
fn compounds_sleep_and_wake_like_bodies() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    let floor = ground(&mut world);
    let table = world
        .add_compound_body(BodyDef::dynamic().position(Vec2::new(0.0, 0.6)), &table())
        .unwrap();
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    assert!(!world.is_awake(table).unwrap());
    let rest = world.position(table).unwrap();
    // A ball dropped on the top wakes it; it settles again on both legs.
    common::ball(&mut world, Vec2::new(0.5, 3.0), 0.2);
    let mut woke = false;
    for _ in 0..240 {
        world.step(DT).unwrap();
        woke |= world.is_awake(table).unwrap();
    }
    assert!(woke);
    assert!((world.position(table).unwrap() - rest).length() < 0.02);
    if world.is_awake(table).unwrap() {
        assert_eq!(touching_shapes(&world, floor, table).len(), 2);
    }
}

/// At the default settings, and at 5 substeps: there the angular speed cap of an eighth of a
/// turn per substep alone would let the dumbbell turn more than a quarter turn in a step
/// (launch 15 then left a ball inside the wall, with one or two solve passes).
#[test]
fn a_fast_spinning_dumbbell_never_passes_a_thin_compound_wall() {
    for (substeps, solve_iterations) in [(4, 2), (5, 2), (5, 1)] {
        dumbbells_at_a_thin_wall(substeps, solve_iterations);
    }
}

/// 200 launches of a fast spinning dumbbell at a thin wall; no ball ever ends a step past it.
fn dumbbells_at_a_thin_wall(substeps: u32, solve_iterations: u32) {
    let mut rng = Rng(99);
    for i in 0..200 {
        let backend = if i % 2 == 0 {
            Backend::Simd
        } else {
            Backend::Scalar
        };
        let mut world = World::new(WorldSettings {
            backend,
            threads: 1,
            substeps,
            solve_iterations,
            ..WorldSettings::default()
        });
        // A wall 0.1 m thick, centred on x = 0, in two pieces meeting at y = 0.
        world
            .add_compound_body(
                BodyDef::fixed(),
                &[
                    ShapeDef::new(
                        Shape::offset_rect(0.05, 100.0, Vec2::new(0.0, 100.0), 0.0).unwrap(),
                    ),
                    ShapeDef::new(
                        Shape::offset_rect(0.05, 100.0, Vec2::new(0.0, -100.0), 0.0).unwrap(),
                    ),
                ],
            )
            .unwrap();
        // Two 0.1 m balls 0.6 m apart: the body is long, but its narrowest part is thin.
        let angle = rng.range(-1.3, 1.3);
        let dir = Vec2::new(angle.cos(), angle.sin());
        let aim = Vec2::new(-0.05, rng.range(-2.0, 2.0));
        let speed = 300.0;
        let back = 1.0 + speed * DT * rng.range(0.0, 3.0);
        let body = world
            .add_compound_body(
                BodyDef::dynamic()
                    .position(aim - dir * back)
                    .angle(rng.range(-3.0, 3.0))
                    .linear_velocity(dir * speed)
                    .angular_velocity(rng.range(-60.0, 60.0)),
                &dumbbell(0.05, 0.3),
            )
            .unwrap();
        for step in 0..8 {
            world.step(DT).unwrap();
            let xf = world.transform(body).unwrap();
            for shape in world.shapes(body).unwrap() {
                let Shape::Circle(c) = shape else {
                    unreachable!()
                };
                let at = xf.apply(c.center());
                assert!(
                    at.x < 0.0,
                    "{substeps} x {solve_iterations}, launch {i}: a ball at {at:?} past the wall at \
                     step {step}"
                );
            }
        }
    }
}

#[test]
fn debug_draw_teleports_and_queries_see_every_shape() {
    use batch2d::{DebugBody, DebugDraw, DebugDrawOptions};
    struct Count(Vec<BodyId>);
    impl DebugDraw for Count {
        fn draw_circle(&mut self, body: DebugBody, _: Vec2, _: f32, _: Vec2) {
            self.0.push(body.id);
        }
        fn draw_polygon(&mut self, body: DebugBody, _: &[Vec2], _: f32) {
            self.0.push(body.id);
        }
    }
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let table = world
        .add_compound_body(BodyDef::dynamic().position(Vec2::new(0.0, 0.5)), &table())
        .unwrap();
    let mut drawn = Count(Vec::new());
    world.debug_draw(&mut drawn, &DebugDrawOptions::default());
    assert_eq!(drawn.0, [floor, table, table, table]);

    // Teleported, the table is found by its legs where it went, and no longer where it was.
    let all = QueryFilter::new();
    let left_leg = Vec2::new(-0.8, 0.3);
    assert_eq!(world.overlap_point(left_leg, all).unwrap(), [table]);
    world
        .set_transform(table, Vec2::new(10.0, 3.0), 0.0)
        .unwrap();
    assert!(world.overlap_point(left_leg, all).unwrap().is_empty());
    let moved = Vec2::new(10.0, 3.0) + Vec2::new(-0.8, 0.3);
    assert_eq!(world.overlap_point(moved, all).unwrap(), [table]);
    // Under the top, between the legs: only the box of the body, not a shape.
    assert!(world
        .overlap_point(Vec2::new(10.0, 3.0), all)
        .unwrap()
        .is_empty());
    // It falls from there and lands on its legs again.
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    assert_eq!(touching_shapes(&world, floor, table), [(0, 1), (0, 2)]);
    assert!((world.transform(table).unwrap().p.y - 0.5).abs() < 0.01);
}
