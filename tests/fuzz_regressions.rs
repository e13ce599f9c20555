//! Regression tests for what the `fuzz/` target found, one per finding, each reduced to the few
//! calls that triggered it. The law in every case: no panic, `Err` leaves the world unchanged,
//! and whatever is accepted stays finite.

use batch2d::{BodyDef, BodyId, Error, Shape, ShapeDef, Vec2, World, WorldSettings};

fn assert_finite(world: &World, id: BodyId) {
    let p = world.position(id).unwrap();
    let v = world.linear_velocity(id).unwrap();
    let q = world.rotation(id).unwrap();
    let w = world.angular_velocity(id).unwrap();
    let finite = p.is_finite() && v.is_finite() && q.c.is_finite() && q.s.is_finite();
    assert!(finite && w.is_finite(), "p {p:?} v {v:?} q {q:?} w {w}");
}

/// Found by the fuzzer: a gravity scale of 3.4e38 made one substep's gravity infinite, and the
/// speed cap turned the infinite velocity into NaN. The cap now holds for any velocity.
#[test]
fn a_huge_gravity_scale_is_capped_at_the_speed_limit() {
    let settings = WorldSettings::default();
    let max_speed = settings.max_linear_speed;
    let mut world = World::new(settings);
    let id = world
        .add_body(
            BodyDef::dynamic().gravity_scale(3.4e38),
            ShapeDef::new(Shape::circle(0.1)),
        )
        .unwrap();
    for _ in 0..3 {
        world.step(1.0 / 60.0).unwrap();
        assert_finite(&world, id);
        let v = world.linear_velocity(id).unwrap();
        // Straight down at the cap.
        assert!((v.length() - max_speed).abs() <= 1e-3 * max_speed, "{v:?}");
        assert!(v.y < 0.0 && v.x == 0.0, "{v:?}");
    }
}

/// Found while fixing the above: a velocity set beyond 1.8e19 m/s squared to infinity and was
/// scaled by 0, stopping the body dead instead of capping it.
#[test]
fn a_huge_velocity_is_capped_not_zeroed() {
    let settings = WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    };
    let max_speed = settings.max_linear_speed;
    let mut world = World::new(settings);
    let id = world
        .add_body(BodyDef::dynamic(), ShapeDef::new(Shape::circle(0.1)))
        .unwrap();
    world
        .set_linear_velocity(id, Vec2::new(-1.0e30, 1.0e30))
        .unwrap();
    world.step(1.0 / 60.0).unwrap();
    assert_finite(&world, id);
    let v = world.linear_velocity(id).unwrap();
    assert!((v.length() - max_speed).abs() <= 1e-3 * max_speed, "{v:?}");
    assert!(v.x < 0.0 && v.y > 0.0 && (v.x + v.y).abs() < 1e-3, "{v:?}");
}

/// Found by the fuzzer: a body at y = 3.4e38 whose circle sits 3.4e38 further out in the body
/// frame had an infinite centre of mass. `add_body` now refuses any placement whose centre of
/// mass or bounds leave the finite range of f32.
#[test]
fn a_body_reaching_beyond_f32_is_refused() {
    let mut world = World::new(WorldSettings::default());
    let far = Vec2::new(0.0, 3.4e38);
    let shape = || ShapeDef::new(Shape::circle_at(Vec2::new(6.0, 3.4e38), 0.07));
    for def in [BodyDef::dynamic(), BodyDef::fixed(), BodyDef::kinematic()] {
        let refused = world.add_body(def.position(far), shape());
        assert!(
            matches!(refused, Err(Error::InvalidParameter(_))),
            "{refused:?}"
        );
    }
    // A static circle whose bounds reach past f32::MAX, centre finite.
    let wide = world.add_body(
        BodyDef::fixed().position(Vec2::new(-3.0e38, 0.0)),
        ShapeDef::new(Shape::circle(1.0e38)),
    );
    assert!(matches!(wide, Err(Error::InvalidParameter(_))), "{wide:?}");
    assert_eq!(world.body_count(), 0);
}

/// Found by the fuzzer: a spinning body whose circle (and so its centre of mass) sat 3.4e38 m
/// from its origin was accepted, since centre and bounds were finite, but after half a turn its
/// origin lay 6.8e38 m away: an infinite transform. Placements are now checked for every
/// rotation about the centre of mass.
#[test]
fn a_body_whose_origin_would_overflow_when_it_turns_is_refused() {
    let mut world = World::new(WorldSettings::default());
    let refused = world.add_body(
        BodyDef::dynamic()
            .position(Vec2::new(0.07, 0.07))
            .angular_velocity(69.0),
        ShapeDef::new(Shape::circle_at(Vec2::new(0.07, 3.4e38), 0.07)),
    );
    assert!(
        matches!(refused, Err(Error::InvalidParameter(_))),
        "{refused:?}"
    );
    // Half as far out it fits, and spins with every transform finite.
    let id = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.07, 0.07))
                .angular_velocity(69.0),
            ShapeDef::new(Shape::circle_at(Vec2::new(0.07, 1.0e38), 0.07)),
        )
        .unwrap();
    for _ in 0..10 {
        world.step(1.0 / 60.0).unwrap();
        assert_finite(&world, id);
        assert!(world.transform(id).unwrap().p.is_finite());
    }
}

/// The teleports apply the same rule as `add_body`: a placement whose centre of mass or bounds
/// leave the range of f32 is refused and changes nothing.
#[test]
fn a_teleport_beyond_f32_is_refused() {
    let mut world = World::new(WorldSettings::default());
    // A circle 3.4e38 out in its body frame fits with the body origin as far out the other way.
    let id = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, -3.4e38)),
            ShapeDef::new(Shape::circle_at(Vec2::new(0.0, 3.4e38), 0.07)),
        )
        .unwrap();
    let (p, q) = (world.position(id).unwrap(), world.rotation(id).unwrap());
    let moved = world.set_transform(id, Vec2::new(0.0, 3.4e38), 0.0);
    assert!(
        matches!(moved, Err(Error::InvalidParameter(_))),
        "{moved:?}"
    );
    assert_eq!(
        (world.position(id).unwrap(), world.rotation(id).unwrap()),
        (p, q)
    );
    world.step(1.0 / 60.0).unwrap();
    assert_finite(&world, id);

    // A huge static circle fits at the origin but not moved to where its edge would overflow.
    let big = world
        .add_body(BodyDef::fixed(), ShapeDef::new(Shape::circle(1.0e38)))
        .unwrap();
    let moved = world.set_position(big, Vec2::new(3.0e38, 0.0));
    assert!(
        matches!(moved, Err(Error::InvalidParameter(_))),
        "{moved:?}"
    );
    assert_eq!(world.position(big).unwrap(), Vec2::ZERO);
}

/// An impulse that overflows the velocity of a light body is refused, leaving it unchanged.
#[test]
fn an_impulse_overflowing_the_velocity_is_refused() {
    let mut world = World::new(WorldSettings::default());
    let id = world
        .add_body(
            BodyDef::dynamic(),
            ShapeDef::new(Shape::circle(0.01)).density(1.0e-3),
        )
        .unwrap();
    let refused = world.apply_linear_impulse(id, Vec2::new(3.0e38, 0.0));
    assert!(
        matches!(refused, Err(Error::InvalidParameter(_))),
        "{refused:?}"
    );
    assert_eq!(world.linear_velocity(id).unwrap(), Vec2::ZERO);
    world
        .apply_linear_impulse(id, Vec2::new(1.0e-6, 0.0))
        .unwrap();
    assert!(world.linear_velocity(id).unwrap().x > 0.0);
}

/// A dynamic body so light that its inverse mass overflows is refused.
#[test]
fn a_body_without_a_finite_inverse_mass_is_refused() {
    let mut world = World::new(WorldSettings::default());
    // Mass pi * 1e-20 * 1e-20 ~ 3e-40: positive and finite, its inverse is not.
    let light = world.add_body(
        BodyDef::dynamic(),
        ShapeDef::new(Shape::circle(1.0e-10)).density(1.0e-20),
    );
    assert!(
        matches!(light, Err(Error::InvalidParameter(_))),
        "{light:?}"
    );
    assert_eq!(world.body_count(), 0);
}

/// A step in which a body at the speed cap would travel more than 1e30 m is refused.
#[test]
fn a_step_too_long_for_f32_positions_is_refused() {
    let mut world = World::new(WorldSettings::default());
    let id = world
        .add_body(
            BodyDef::dynamic().linear_velocity(Vec2::new(400.0, 0.0)),
            ShapeDef::new(Shape::circle(0.5)),
        )
        .unwrap();
    for dt in [f32::MAX, 1.0e30, 3.0e27] {
        let refused = world.step(dt);
        assert!(
            matches!(refused, Err(Error::InvalidParameter(_))),
            "{dt}: {refused:?}"
        );
    }
    assert_eq!(world.position(id).unwrap(), Vec2::ZERO);
    // Long but representable: the body moves far, and stays finite.
    world.step(1.0e20).unwrap();
    assert_finite(&world, id);
    assert!(world.position(id).unwrap().x > 1.0e21);
}
