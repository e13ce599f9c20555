//! Bad input: every public call answers `Err` with the right variant (never a panic) and leaves
//! the world exactly as it was.

use crate::common;

use batch2d::shape::Circle;
use batch2d::{BodyDef, BodyId, Error, JointDef, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::{first_difference, state_bits};

const BAD: [f32; 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];

const DT: f32 = 1.0 / 60.0;

/// A world with a ground, a ball rolling on it and a box hanging from a pin, stepped a little
/// so that it has contacts, joint forces and events, then given a force and a torque that wait
/// for the next step.
fn sample_world() -> (World, BodyId) {
    let mut world = World::new(WorldSettings::default());
    let ground = common::ground_of(&mut world, 10.0);
    let ball = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.0, 0.6))
                .linear_velocity(Vec2::new(1.0, 0.0)),
            ShapeDef::new(Shape::circle(0.5).unwrap()),
        )
        .unwrap();
    let hanging = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(3.0, 2.0)).angle(0.2),
            ShapeDef::new(Shape::rect(0.5, 0.25).unwrap()),
        )
        .unwrap();
    world
        .add_joint(JointDef::revolute(ground, hanging, Vec2::new(3.5, 2.5)))
        .unwrap();
    for _ in 0..5 {
        world.step(DT).unwrap();
    }
    world.apply_force(ball, Vec2::new(3.0, 1.0)).unwrap();
    world.apply_torque(hanging, -0.5).unwrap();
    (world, ball)
}

/// Asserts that `world`, which refused calls, is bit for bit `twin`, which never saw them: now,
/// and over the next steps, which show what the state cannot (pending forces, a half-made
/// change in a part of the world that the API does not read).
fn assert_same_as_twin(world: &mut World, twin: &mut World, what: &str) {
    for step in 0..=3 {
        if step > 0 {
            world.step(DT).unwrap();
            twin.step(DT).unwrap();
        }
        let differs = first_difference(&state_bits(world), &state_bits(twin));
        assert_eq!(
            differs, None,
            "{what}: differs from its twin {step} steps on"
        );
    }
}

fn ok_body() -> BodyDef {
    BodyDef::dynamic().position(Vec2::new(-3.0, 1.0))
}

fn ok_shape() -> ShapeDef {
    ShapeDef::new(Shape::circle(0.5).unwrap())
}

/// Asserts that `add_body(body, shape)` fails with an error accepted by `want` and changes
/// nothing.
fn assert_add_rejected(body: BodyDef, shape: ShapeDef, want: fn(&Error) -> bool, what: &str) {
    let (mut world, _) = sample_world();
    let before = state_bits(&world);
    match world.add_body(body, shape) {
        Err(e) if want(&e) => {}
        other => panic!("{what}: expected a matching Err, got {other:?}"),
    }
    assert_eq!(state_bits(&world), before, "{what}: world changed");
    assert_same_as_twin(&mut world, &mut sample_world().0, what);
}

fn is_param(e: &Error) -> bool {
    matches!(e, Error::InvalidParameter(_))
}

fn is_shape(e: &Error) -> bool {
    matches!(e, Error::InvalidShape(_))
}

#[test]
fn the_good_inputs_used_here_are_accepted() {
    let (mut world, _) = sample_world();
    world.add_body(ok_body(), ok_shape()).unwrap();
    assert_eq!(world.body_count(), 4);
}

#[test]
fn non_finite_body_definitions_are_rejected() {
    for x in BAD {
        let cases = [
            ("position.x", ok_body().position(Vec2::new(x, 0.0))),
            ("position.y", ok_body().position(Vec2::new(0.0, x))),
            ("angle", ok_body().angle(x)),
            (
                "linear_velocity",
                ok_body().linear_velocity(Vec2::new(x, 0.0)),
            ),
            ("angular_velocity", ok_body().angular_velocity(x)),
            ("gravity_scale", ok_body().gravity_scale(x)),
            ("linear_damping", ok_body().linear_damping(x)),
            ("angular_damping", ok_body().angular_damping(x)),
        ];
        for (what, def) in cases {
            assert_add_rejected(def, ok_shape(), is_param, &format!("{what} = {x}"));
        }
    }
    // Static and kinematic bodies are checked as well.
    assert_add_rejected(
        BodyDef::fixed().position(Vec2::new(f32::NAN, 0.0)),
        ok_shape(),
        is_param,
        "fixed body at NaN",
    );
    assert_add_rejected(
        BodyDef::kinematic().linear_velocity(Vec2::new(0.0, f32::INFINITY)),
        ok_shape(),
        is_param,
        "kinematic body with infinite velocity",
    );
}

#[test]
fn negative_damping_is_rejected() {
    assert_add_rejected(
        ok_body().linear_damping(-1.0),
        ok_shape(),
        is_param,
        "linear_damping",
    );
    assert_add_rejected(
        ok_body().angular_damping(-1.0),
        ok_shape(),
        is_param,
        "angular_damping",
    );
}

/// `Ok` is a failure; `Err(InvalidShape)` must name `word` so that the user learns which input
/// was wrong.
fn assert_shape_refused(what: &str, made: Result<Shape, Error>, word: &str) {
    match made {
        Err(Error::InvalidShape(why)) => assert!(why.contains(word), "{what}: {why}"),
        other => panic!("{what}: expected Err(InvalidShape), got {other:?}"),
    }
}

/// Sizes and radii that are NaN, infinite, zero or negative.
const BAD_SIZES: [f32; 6] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, -1.0];

#[test]
fn circle_constructors_refuse_bad_radii_and_centres() {
    let ok = Vec2::new(0.5, -0.25);
    for r in BAD_SIZES {
        assert_shape_refused(&format!("circle({r})"), Shape::circle(r), "radius");
        assert_shape_refused(
            &format!("circle_at(ok, {r})"),
            Shape::circle_at(ok, r),
            "radius",
        );
        assert!(
            matches!(Circle::new(ok, r), Err(Error::InvalidShape(_))),
            "Circle::new(ok, {r})"
        );
    }
    for x in BAD {
        for center in [Vec2::new(x, 0.0), Vec2::new(0.0, x)] {
            assert_shape_refused(
                &format!("circle_at({center:?}, 1)"),
                Shape::circle_at(center, 1.0),
                "center",
            );
        }
    }
    let circle = Circle::new(ok, 0.75).unwrap();
    assert_eq!((circle.center(), circle.radius()), (ok, 0.75));
    assert_eq!(Shape::circle_at(ok, 0.75), Ok(Shape::Circle(circle)));
}

#[test]
fn box_constructors_refuse_bad_half_extents() {
    for h in BAD_SIZES {
        assert_shape_refused(&format!("rect({h}, 1)"), Shape::rect(h, 1.0), "half_width");
        assert_shape_refused(&format!("rect(1, {h})"), Shape::rect(1.0, h), "half_height");
        assert_shape_refused(&format!("rect({h}, {h})"), Shape::rect(h, h), "half_width");
        let at = Vec2::new(1.0, 2.0);
        assert_shape_refused(
            &format!("offset_rect({h}, 1)"),
            Shape::offset_rect(h, 1.0, at, 0.3),
            "half_width",
        );
        assert_shape_refused(
            &format!("offset_rect(1, {h})"),
            Shape::offset_rect(1.0, h, at, 0.3),
            "half_height",
        );
    }
    for x in BAD {
        assert_shape_refused(
            &format!("offset_rect at x = {x}"),
            Shape::offset_rect(1.0, 1.0, Vec2::new(x, 0.0), 0.0),
            "non-finite",
        );
        assert!(
            matches!(
                Shape::offset_rect(1.0, 1.0, Vec2::ZERO, x),
                Err(Error::InvalidShape(_))
            ),
            "offset_rect at angle {x}"
        );
    }
    // Sizes f32 cannot give a positive, finite area, though each half extent is positive.
    for (hw, hh) in [(3e38, 3e38), (1e-30, 1e-30)] {
        assert!(
            matches!(Shape::rect(hw, hh), Err(Error::InvalidShape(_))),
            "rect({hw}, {hh})"
        );
    }
}

#[test]
fn capsule_and_segment_constructors_refuse_bad_radii_and_ends() {
    let (p1, p2) = (Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.5));
    for r in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert_shape_refused(
            &format!("capsule radius {r}"),
            Shape::capsule(p1, p2, r),
            "non-finite",
        );
    }
    for r in [-1.0, -1e-6] {
        assert_shape_refused(
            &format!("capsule radius {r}"),
            Shape::capsule(p1, p2, r),
            "radius",
        );
    }
    for x in BAD {
        for end in [Vec2::new(x, 0.0), Vec2::new(0.0, x)] {
            assert_shape_refused(
                &format!("capsule end {end:?}"),
                Shape::capsule(end, p2, 0.2),
                "non-finite",
            );
            assert_shape_refused(
                &format!("segment end {end:?}"),
                Shape::segment(p1, end),
                "non-finite",
            );
        }
    }
    // Coincident or nearly coincident ends: no direction for the normal (use a circle).
    for gap in [0.0, 0.001] {
        let near = p1 + Vec2::new(gap, 0.0);
        assert_shape_refused(
            &format!("capsule gap {gap}"),
            Shape::capsule(p1, near, 0.2),
            "long",
        );
        assert_shape_refused(
            &format!("segment gap {gap}"),
            Shape::segment(p1, near),
            "long",
        );
    }
    // Radius 0 is a segment, and 3 mm is long enough.
    assert_eq!(Shape::capsule(p1, p2, 0.0), Shape::segment(p1, p2));
    assert!(Shape::segment(Vec2::ZERO, Vec2::new(0.003, 0.0)).is_ok());
}

/// The shape checks that depend on where the shape goes rather than on its own numbers stay at
/// insertion: a shape reaching beyond 1e6 m of its body origin, a segment on a dynamic body, a
/// chain edge too short to be a segment.
#[test]
fn insertion_still_refuses_valid_shapes_that_do_not_fit_the_body() {
    let far = [
        Shape::circle(2e6).unwrap(),
        Shape::circle_at(Vec2::new(0.0, 2e6), 1.0).unwrap(),
        Shape::rect(2e6, 1.0).unwrap(),
        Shape::capsule(Vec2::ZERO, Vec2::new(2e6, 0.0), 0.1).unwrap(),
    ];
    for shape in far {
        let what = format!("{shape:?}");
        assert_add_rejected(ok_body(), ShapeDef::new(shape.clone()), is_shape, &what);
        assert_add_rejected(
            BodyDef::fixed(),
            ShapeDef::new(shape.clone()),
            is_shape,
            &what,
        );
        let (mut world, _) = sample_world();
        let before = state_bits(&world);
        let compound = world.add_compound_body(ok_body(), &[ok_shape(), ShapeDef::new(shape)]);
        assert!(matches!(compound, Err(Error::InvalidShape(_))), "{what}");
        assert_eq!(state_bits(&world), before, "{what}: world changed");
        assert_same_as_twin(&mut world, &mut sample_world().0, &what);
    }
    let segment = ShapeDef::new(Shape::segment(Vec2::ZERO, Vec2::new(1.0, 0.0)).unwrap());
    assert_add_rejected(ok_body(), segment, is_shape, "segment on a dynamic body");

    let (mut world, _) = sample_world();
    let before = state_bits(&world);
    let points = [
        Vec2::new(0.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(1.001, 0.0),
    ];
    let chain = world.add_segment_chain(BodyDef::fixed(), &points, &ok_shape());
    assert!(matches!(chain, Err(Error::InvalidShape(_))), "{chain:?}");
    assert_eq!(
        state_bits(&world),
        before,
        "short chain edge: world changed"
    );
    assert_same_as_twin(&mut world, &mut sample_world().0, "short chain edge");
}

#[test]
fn degenerate_polygons_are_rejected() {
    let v = Vec2::new;
    let ring = |n: usize| -> Vec<Vec2> {
        (0..n)
            .map(|i| {
                let a = i as f32 * std::f32::consts::TAU / n as f32;
                v(a.cos(), a.sin())
            })
            .collect()
    };
    let cases: Vec<(&str, Vec<Vec2>)> = vec![
        ("no points", vec![]),
        ("one point", vec![v(0.0, 0.0)]),
        ("two points", vec![v(0.0, 0.0), v(1.0, 0.0)]),
        (
            "duplicate points",
            vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 0.0)],
        ),
        ("all the same point", vec![v(1.0, 1.0); 5]),
        (
            "collinear",
            vec![v(0.0, 0.0), v(1.0, 1.0), v(2.0, 2.0), v(3.0, 3.0)],
        ),
        ("NaN", vec![v(0.0, 0.0), v(1.0, 0.0), v(f32::NAN, 1.0)]),
        (
            "infinite",
            vec![v(0.0, 0.0), v(1.0, 0.0), v(0.0, f32::INFINITY)],
        ),
        ("20-gon", ring(20)),
        ("9-gon", ring(9)),
    ];
    for (what, points) in cases {
        match Shape::polygon(&points) {
            Err(Error::InvalidShape(_)) => {}
            other => panic!("{what}: expected Err(InvalidShape), got {other:?}"),
        }
    }
    // The limit is on the hull, not the input: interior points are dropped.
    let mut square_and_inside = vec![v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0)];
    square_and_inside.extend(ring(20).iter().map(|&p| p * 0.5));
    match Shape::polygon(&square_and_inside).unwrap() {
        Shape::Polygon(p) => assert_eq!(p.vertices().len(), 4),
        s => panic!("expected a polygon, got {s:?}"),
    }
    Shape::polygon(&ring(8)).unwrap();
}

#[test]
fn out_of_range_materials_are_rejected() {
    let shape = ok_shape;
    let cases = [
        ("density -1", shape().density(-1.0)),
        ("density NaN", shape().density(f32::NAN)),
        ("density inf", shape().density(f32::INFINITY)),
        ("friction -0.1", shape().friction(-0.1)),
        ("friction NaN", shape().friction(f32::NAN)),
        ("friction inf", shape().friction(f32::INFINITY)),
        ("restitution -0.1", shape().restitution(-0.1)),
        ("restitution 1.1", shape().restitution(1.1)),
        ("restitution NaN", shape().restitution(f32::NAN)),
    ];
    for (what, def) in cases {
        assert_add_rejected(ok_body(), def, is_param, what);
    }
    // The ends of the ranges are fine.
    let (mut world, _) = sample_world();
    world
        .add_body(ok_body(), shape().friction(0.0).restitution(0.0))
        .unwrap();
    world
        .add_body(ok_body(), shape().friction(2.0).restitution(1.0))
        .unwrap();
}

#[test]
fn non_finite_setters_are_rejected() {
    let (mut world, ball) = sample_world();
    let before = state_bits(&world);
    for x in BAD {
        for v in [Vec2::new(x, 0.0), Vec2::new(0.0, x)] {
            assert!(matches!(
                world.set_linear_velocity(ball, v),
                Err(Error::InvalidParameter(_))
            ));
            assert!(matches!(
                world.apply_linear_impulse(ball, v),
                Err(Error::InvalidParameter(_))
            ));
        }
        assert!(matches!(
            world.set_angular_velocity(ball, x),
            Err(Error::InvalidParameter(_))
        ));
        assert!(matches!(
            world.apply_torque(ball, x),
            Err(Error::InvalidParameter(_))
        ));
        assert!(matches!(
            world.apply_force(ball, Vec2::new(x, 0.0)),
            Err(Error::InvalidParameter(_))
        ));
        assert_eq!(state_bits(&world), before, "{x}");
    }
    assert_same_as_twin(&mut world, &mut sample_world().0, "non-finite setters");
}

#[test]
fn bad_time_steps_are_rejected() {
    let (mut world, _) = sample_world();
    let before = state_bits(&world);
    for dt in [
        0.0,
        -0.0,
        -1.0 / 60.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ] {
        match world.step(dt) {
            Err(Error::InvalidParameter(_)) => {}
            other => panic!("step({dt}): expected Err(InvalidParameter), got {other:?}"),
        }
        assert_eq!(state_bits(&world), before, "step({dt}) changed the world");
    }
    assert_same_as_twin(&mut world, &mut sample_world().0, "bad time steps");
}

#[test]
fn bad_settings_are_rejected_by_try_new_and_new() {
    let bad = [
        (
            "substeps = 0",
            WorldSettings {
                substeps: 0,
                ..WorldSettings::default()
            },
        ),
        (
            "gravity NaN",
            WorldSettings {
                gravity: Vec2::new(0.0, f32::NAN),
                ..WorldSettings::default()
            },
        ),
    ];
    for (what, settings) in bad {
        assert!(
            matches!(
                World::try_new(settings.clone()),
                Err(Error::InvalidParameter(_))
            ),
            "try_new with {what}"
        );
        assert!(
            std::panic::catch_unwind(|| World::new(settings)).is_err(),
            "new with {what} must panic"
        );
    }
}

/// Every call that takes a `BodyId` must answer `Err(InvalidBody)` for `id` and leave `world`
/// as it was.
fn assert_handle_rejected(world: &mut World, id: BodyId, what: &str) {
    let before = state_bits(world);
    let invalid = |r: Result<(), Error>, call: &str| {
        assert_eq!(r, Err(Error::InvalidBody), "{what}: {call}");
    };
    invalid(world.position(id).map(|_| ()), "position");
    invalid(world.angle(id).map(|_| ()), "angle");
    invalid(world.linear_velocity(id).map(|_| ()), "linear_velocity");
    invalid(world.angular_velocity(id).map(|_| ()), "angular_velocity");
    invalid(world.transform(id).map(|_| ()), "transform");
    invalid(world.shape(id).map(|_| ()), "shape");
    invalid(
        world.set_linear_velocity(id, Vec2::new(1.0, 2.0)),
        "set_linear_velocity",
    );
    invalid(world.set_angular_velocity(id, 1.0), "set_angular_velocity");
    invalid(
        world.apply_linear_impulse(id, Vec2::new(1.0, 2.0)),
        "apply_linear_impulse",
    );
    invalid(world.apply_force(id, Vec2::new(1.0, 2.0)), "apply_force");
    invalid(world.apply_torque(id, 1.0), "apply_torque");
    invalid(world.is_awake(id).map(|_| ()), "is_awake");
    invalid(world.body_kind(id).map(|_| ()), "body_kind");
    invalid(world.add_shape(id, ok_shape()).map(|_| ()), "add_shape");
    invalid(world.remove_shape(id, 0), "remove_shape");
    invalid(world.remove_body(id), "remove_body");
    assert_eq!(state_bits(world), before, "{what}: world changed");
}

#[test]
fn removed_bodies_are_invalid_handles_even_after_their_slot_is_reused() {
    let (mut world, ball) = sample_world();
    let (mut twin, twin_ball) = sample_world();
    world.remove_body(ball).unwrap();
    twin.remove_body(twin_ball).unwrap();
    assert_eq!(world.body_count(), 2);
    assert_handle_rejected(&mut world, ball, "removed body");
    // A new body may take the freed slot; the old handle must still not reach it.
    let newcomer = world.add_body(ok_body(), ok_shape()).unwrap();
    twin.add_body(ok_body(), ok_shape()).unwrap();
    assert_ne!(newcomer, ball);
    assert_handle_rejected(&mut world, ball, "removed body after slot reuse");
    world.position(newcomer).unwrap();
    assert_same_as_twin(&mut world, &mut twin, "stale handle");
}

#[test]
fn handles_from_another_world_are_invalid() {
    let (mut a, _) = sample_world(); // 3 bodies
    let mut b = World::new(WorldSettings::default());
    let b_ids: Vec<BodyId> = (0..5)
        .map(|i| {
            b.add_body(ok_body().position(Vec2::new(i as f32, 0.0)), ok_shape())
                .unwrap()
        })
        .collect();
    // A slot that world A does not have.
    assert_handle_rejected(&mut a, b_ids[4], "slot beyond world A");
    // Slots that world A does have: a handle of B must still not address A's bodies.
    for &id in &b_ids[..3] {
        assert_handle_rejected(&mut a, id, "slot that world A uses");
    }
    assert_same_as_twin(&mut a, &mut sample_world().0, "foreign handles");
    // And world B is untouched by all of that.
    assert_eq!(b.body_count(), 5);
}

#[test]
fn bad_shape_changes_are_rejected_and_change_nothing() {
    let (mut world, ball) = sample_world();
    let mut twin = sample_world().0;
    let before = state_bits(&world);
    let refused = |result: Result<(), Error>, want: fn(&Error) -> bool, what: &str| {
        assert!(result.as_ref().is_err_and(want), "{what}: {result:?}");
    };
    let add = |world: &mut World, def: ShapeDef| world.add_shape(ball, def).map(|_| ());
    for x in BAD {
        // (A shape with a non-finite number cannot be made: its constructors refuse it.)
        refused(
            add(&mut world, ok_shape().density(x)),
            is_param,
            "a non-finite density",
        );
        refused(
            add(&mut world, ok_shape().friction(x)),
            is_param,
            "a non-finite friction",
        );
        let restitution = ok_shape().restitution(x);
        refused(
            add(&mut world, restitution),
            is_param,
            "a non-finite restitution",
        );
    }
    let segment = ShapeDef::new(Shape::segment(Vec2::ZERO, Vec2::new(1.0, 0.0)).unwrap());
    refused(
        add(&mut world, segment),
        is_shape,
        "a segment on a dynamic body",
    );
    let far = ShapeDef::new(Shape::circle_at(Vec2::new(0.0, 2e6), 1.0).unwrap());
    refused(
        add(&mut world, far),
        is_shape,
        "a shape beyond the range of f32",
    );
    refused(
        world.remove_shape(ball, 1),
        is_param,
        "an index out of range",
    );
    refused(
        world.remove_shape(ball, usize::MAX),
        is_param,
        "index usize::MAX",
    );
    refused(world.remove_shape(ball, 0), is_param, "the last shape");
    assert_eq!(state_bits(&world), before, "shape changes: world changed");
    assert_same_as_twin(&mut world, &mut twin, "shape changes");

    // A dynamic body left without mass: its one heavy shape removed, a massless one kept.
    let (mut world, _) = sample_world();
    let mut twin = sample_world().0;
    let at = BodyDef::dynamic().position(Vec2::new(-3.0, 3.0));
    let shapes = [ok_shape(), ok_shape().density(0.0)];
    let body = world.add_compound_body(at.clone(), &shapes).unwrap();
    twin.add_compound_body(at, &shapes).unwrap();
    let before = state_bits(&world);
    refused(
        world.remove_shape(body, 0),
        is_param,
        "a massless remainder",
    );
    assert_eq!(world.shapes(body).unwrap().len(), 2);
    assert_eq!(
        state_bits(&world),
        before,
        "massless remainder: world changed"
    );
    assert_same_as_twin(&mut world, &mut twin, "massless remainder");
}
