//! Regression tests for what the `fuzz/` targets found, one per finding, each reduced to the few
//! calls that triggered it. The law in most: no panic, `Err` leaves the world unchanged, and
//! whatever is accepted stays finite; the last ones hold queries to what their docs promise.
//!
//! The finding's input itself is kept in `fuzz/regressions/` and replayed here through the fuzz
//! target that found it: the targets' own code (`run` in `fuzz/fuzz_targets/`), built into this
//! test, with every check the target makes.

#[path = "../../fuzz/fuzz_targets/api.rs"]
mod api;
#[path = "../../fuzz/fuzz_targets/scene.rs"]
mod scene;
#[path = "../../fuzz/fuzz_targets/shapes.rs"]
mod shapes;

use crate::common::assert_finite;
use batch2d::{
    Aabb, Backend, BodyDef, BodyId, Error, JointDef, MixRule, QueryFilter, Shape, ShapeDef, Vec2,
    World, WorldSettings,
};

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
            ShapeDef::new(Shape::circle(0.1).unwrap()),
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
        .add_body(
            BodyDef::dynamic(),
            ShapeDef::new(Shape::circle(0.1).unwrap()),
        )
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

/// Found by the fuzzer: a body at y = 3.4e38 whose circle sat 3.4e38 further out in the body
/// frame had an infinite centre of mass; and a spinning body whose centre of mass sat 3.4e38 m
/// from its origin swung that origin to infinity half a turn later. Shapes may now reach at
/// most 1e6 m from their origin, and a placement must stay representable however the body
/// turns.
#[test]
fn shapes_reaching_beyond_a_thousand_kilometres_are_refused() {
    let mut world = World::new(WorldSettings::default());
    let far_out = [
        Shape::circle_at(Vec2::new(6.0, 3.4e38), 0.07).unwrap(),
        Shape::circle_at(Vec2::new(0.07, 1.0e38), 0.07).unwrap(),
        Shape::circle(1.0e38).unwrap(),
        Shape::circle(1.9e24).unwrap(),
        Shape::rect(2.0e6, 1.0).unwrap(),
    ];
    // A 2 m box placed 1e7 m out, where f32 spaces coordinates 1 m apart, loses its shape to
    // rounding: it is refused when built, before it could reach a body.
    assert!(matches!(
        Shape::offset_rect(1.0, 1.0, Vec2::new(0.0, 1.0e7), 0.3),
        Err(Error::InvalidShape(_))
    ));
    for shape in far_out {
        for def in [BodyDef::dynamic(), BodyDef::fixed(), BodyDef::kinematic()] {
            let refused = world.add_body(
                def.position(Vec2::new(0.0, 3.4e38)),
                ShapeDef::new(shape.clone()),
            );
            assert!(
                matches!(refused, Err(Error::InvalidShape(_))),
                "{refused:?}"
            );
        }
    }
    assert_eq!(world.body_count(), 0);
    // At the limit, spinning and offset, a body stays finite.
    let id = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.07, 0.07))
                .angular_velocity(69.0),
            ShapeDef::new(Shape::circle_at(Vec2::new(0.07, 9.0e5), 0.07).unwrap()),
        )
        .unwrap();
    for _ in 0..10 {
        world.step(1.0 / 60.0).unwrap();
        assert_finite(&world, id);
        assert!(world.transform(id).unwrap().p.is_finite());
    }
}

/// Found by the fuzzer: a small dynamic circle deep inside a static circle of radius 2e24 got
/// a contact point ~1e24 m from its centre, whose squared lever arm overflowed the solver to
/// NaN. Such a circle is now refused; one at the 1e6 m limit engulfing the small body is
/// simulated with finite state.
#[test]
fn a_small_body_engulfed_by_the_largest_allowed_shape_stays_finite() {
    let mut world = World::new(WorldSettings::default());
    let huge = world.add_body(
        BodyDef::fixed().position(Vec2::new(177.8, 0.4)),
        ShapeDef::new(Shape::circle(1.9e24).unwrap()),
    );
    assert!(matches!(huge, Err(Error::InvalidShape(_))), "{huge:?}");
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(177.8, 0.4)),
            ShapeDef::new(Shape::circle(1.0e6).unwrap()),
        )
        .unwrap();
    let small = [
        world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(0.83, 0.83))
                    .angular_velocity(0.8),
                ShapeDef::new(Shape::circle(0.83).unwrap()).density(0.005),
            )
            .unwrap(),
        world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(0.1, -49.4))
                    .linear_velocity(Vec2::new(400.0, 0.0)),
                ShapeDef::new(Shape::rect(0.02, 0.03).unwrap()).density(245.0),
            )
            .unwrap(),
    ];
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
        for &id in &small {
            assert_finite(&world, id);
        }
    }
}

/// The teleports apply the same rule as `add_body`: a placement whose centre of mass or shape
/// would leave the range of f32 is refused and changes nothing, while the very edge of the
/// range is fine.
#[test]
fn teleports_to_the_edge_of_f32_stay_finite() {
    let mut world = World::new(WorldSettings::default());
    let id = world
        .add_body(
            BodyDef::dynamic().angular_velocity(3.0),
            ShapeDef::new(Shape::circle_at(Vec2::new(0.0, 5.0e5), 0.5).unwrap()),
        )
        .unwrap();
    world
        .set_position(id, Vec2::new(f32::MAX, -f32::MAX))
        .unwrap();
    world
        .set_transform(id, Vec2::new(-f32::MAX, f32::MAX), 2.0)
        .unwrap();
    for _ in 0..10 {
        world.step(1.0 / 60.0).unwrap();
        assert_finite(&world, id);
        assert!(world.transform(id).unwrap().p.is_finite());
    }
    let before = (world.position(id).unwrap(), world.rotation(id).unwrap());
    let bad = world.set_transform(id, Vec2::new(f32::INFINITY, 0.0), 0.0);
    assert!(matches!(bad, Err(Error::InvalidParameter(_))), "{bad:?}");
    assert_eq!(
        (world.position(id).unwrap(), world.rotation(id).unwrap()),
        before
    );
}

/// An impulse that overflows the velocity of a light body is refused, leaving it unchanged.
#[test]
fn an_impulse_overflowing_the_velocity_is_refused() {
    let mut world = World::new(WorldSettings::default());
    let id = world
        .add_body(
            BodyDef::dynamic(),
            ShapeDef::new(Shape::circle(0.01).unwrap()).density(1.0e-3),
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
        ShapeDef::new(Shape::circle(1.0e-10).unwrap()).density(1.0e-20),
    );
    assert!(
        matches!(light, Err(Error::InvalidParameter(_))),
        "{light:?}"
    );
    assert_eq!(world.body_count(), 0);
}

/// A step longer than the longest supported (1 s) is refused, however long: once these were
/// steps in which a body at the speed cap would travel more than 1e30 m.
#[test]
fn a_step_too_long_is_refused() {
    let mut world = World::new(WorldSettings::default());
    let id = world
        .add_body(
            BodyDef::dynamic().linear_velocity(Vec2::new(400.0, 0.0)),
            ShapeDef::new(Shape::circle(0.5).unwrap()),
        )
        .unwrap();
    for dt in [f32::MAX, 1.0e30, 3.0e27, 10.0, 1.0001] {
        let refused = world.step(dt);
        assert!(
            matches!(refused, Err(Error::InvalidParameter(_))),
            "{dt}: {refused:?}"
        );
    }
    assert_eq!(world.position(id).unwrap(), Vec2::ZERO);
    // The longest step: the body moves at the speed cap for a second, gravity taking at most
    // 10 m/s of it downwards, so it covers between 399 m (sqrt(400^2 - 10^2) m/s for the whole
    // second) and 400 m along x.
    world.step(1.0).unwrap();
    assert_finite(&world, id);
    let x = world.position(id).unwrap().x;
    assert!((399.0..=400.0).contains(&x), "{x}");
}

/// Found by the fuzzer: a body created spinning at 3.4e38 rad/s gave its contact an infinite
/// relative velocity before the angular speed cap applied, then NaN. Velocities beyond 1e30
/// (m/s per axis, rad/s) are now refused, at creation and by the setters; 1e30 itself is
/// accepted and capped by the first step.
#[test]
fn velocities_beyond_1e30_are_refused_and_1e30_is_capped() {
    let mut world = World::new(WorldSettings::default());
    let spin = world.add_body(
        BodyDef::dynamic().angular_velocity(3.4e38),
        ShapeDef::new(Shape::circle(15.0).unwrap()),
    );
    assert!(matches!(spin, Err(Error::InvalidParameter(_))), "{spin:?}");
    let fast = world.add_body(
        BodyDef::dynamic().linear_velocity(Vec2::new(0.0, -3.0e38)),
        ShapeDef::new(Shape::circle(15.0).unwrap()),
    );
    assert!(matches!(fast, Err(Error::InvalidParameter(_))), "{fast:?}");
    let a = world
        .add_body(
            BodyDef::dynamic()
                .angular_velocity(1.0e30)
                .linear_velocity(Vec2::new(1.0e30, -1.0e30)),
            ShapeDef::new(Shape::circle(15.0).unwrap()),
        )
        .unwrap();
    let b = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.5, 0.5))
                .linear_velocity(Vec2::new(-1.0e30, 1.0e30)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap();
    assert!(matches!(
        world.set_angular_velocity(b, -2.0e30),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        world.set_linear_velocity(b, Vec2::new(2.0e30, 0.0)),
        Err(Error::InvalidParameter(_))
    ));
    for _ in 0..5 {
        world.step(1.0 / 60.0).unwrap();
        assert_finite(&world, a);
        assert_finite(&world, b);
    }
}

/// Found by the fuzzer: a pile of coincident 3 mm boxes (inverse inertia ~1e10), one created at
/// 1.8e28 m/s, reached NaN within a few steps. The speed caps held only while integrating
/// velocities, so the contacts' restitution saw the body's full speed and kicked its
/// neighbours' spins to 1e21 rad/s, and on to infinity. The caps now also hold where a step
/// begins and where it ends.
#[test]
fn a_pile_hit_far_beyond_the_speed_cap_stays_within_the_caps() {
    for backend in [Backend::Scalar, Backend::Simd] {
        let settings = WorldSettings {
            backend,
            threads: 2,
            ..WorldSettings::default()
        };
        let dt = 1.0 / 60.0;
        let max_speed = settings.max_linear_speed;
        let max_spin = 0.25 * std::f32::consts::PI * settings.substeps as f32 / dt;
        let mut world = World::new(settings);
        let ids: Vec<BodyId> = (0..20)
            .map(|i| {
                let fast = 1.8e28 * (i == 10) as u8 as f32;
                let def = BodyDef::dynamic()
                    .linear_velocity(Vec2::new(fast, -0.3 * fast))
                    .angular_velocity(fast);
                let shape = ShapeDef::new(Shape::rect(0.0015, 0.0015).unwrap()).restitution(1.0);
                world.add_body(def, shape).unwrap()
            })
            .collect();
        for _ in 0..10 {
            world.step(dt).unwrap();
            for &id in &ids {
                assert_finite(&world, id);
                let v = world.linear_velocity(id).unwrap().length();
                let w = world.angular_velocity(id).unwrap().abs();
                assert!(
                    v <= max_speed * 1.0001 && w <= max_spin * 1.0001,
                    "{v} m/s {w} rad/s"
                );
            }
        }
    }
}

/// Found by a random-bytes run of the fuzz target: a friction of f32::MAX mixed with one of 135
/// by the geometric mean overflowed to an infinite contact friction, and the friction cone of
/// a point with no normal impulse, infinity times zero, was NaN. Mixing now never overflows.
#[test]
fn a_huge_friction_mixes_to_a_finite_one() {
    for rule in [MixRule::GeometricMean, MixRule::Average] {
        let mixed = rule.mix(f32::MAX, 134.89632);
        assert!(mixed.is_finite() && mixed > 0.0, "{rule:?}: {mixed}");
        assert_eq!(rule.mix(f32::MAX, f32::MAX), f32::MAX, "{rule:?}");
    }
    for backend in [Backend::Scalar, Backend::Simd] {
        let mut world = World::new(WorldSettings {
            backend,
            ..WorldSettings::default()
        });
        let wedge = Shape::polygon(&[
            Vec2::new(-81.734375, 43.027344),
            Vec2::new(-10.160156, -116.23047),
            Vec2::new(41.472656, -119.8125),
            Vec2::new(95.49926, 0.022387212),
        ])
        .unwrap();
        let a = world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(8.949219, 0.030902956))
                    .angle(-79.80469)
                    .linear_velocity(Vec2::new(100.0, 79.63672))
                    .linear_damping(20.417377)
                    .fixed_rotation(true),
                ShapeDef::new(wedge)
                    .density(0.009549926)
                    .friction(f32::MAX)
                    .restitution(0.8709636),
            )
            .unwrap();
        let b = world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(154.88168, 50.160156))
                    .linear_velocity(Vec2::new(31.601563, 0.0))
                    .linear_damping(60.255955)
                    .angular_damping(111.36328),
                ShapeDef::new(Shape::circle(32.359364).unwrap())
                    .density(50.98047)
                    .friction(134.89632),
            )
            .unwrap();
        // Found at a step of 112.12891 s, now refused; the longest supported holds.
        assert!(world.step(112.12891).is_err());
        world.step(1.0).unwrap();
        assert_finite(&world, a);
        assert_finite(&world, b);
    }
}

/// Found by a random-bytes run of the fuzz target: a unit box of density f32::MAX (3.4e38 kg)
/// spinning at 1e15 rad/s, pushed out of a static plank over a 48 s step, needed contact
/// impulses beyond f32's range and turned NaN. Dynamic bodies may now weigh at most 1e20 kg;
/// the same run at that mass stays finite.
#[test]
fn a_body_heavier_than_1e20_kg_is_refused() {
    let plank = [
        Vec2::new(-26.38639, -0.39202833),
        Vec2::new(219.3635, -0.14627837),
        Vec2::new(219.36295, 0.39202833),
        Vec2::new(-26.386925, 0.14627837),
    ];
    let heavy = |density: f32| {
        let def = BodyDef::dynamic()
            .position(Vec2::new(25.703957, -51.953125))
            .angle(0.0033113111)
            .linear_velocity(Vec2::new(0.0, 119.22656))
            .angular_velocity(-1.1246301e15)
            .gravity_scale(0.0033113111)
            .linear_damping(0.11220185)
            .angular_damping(26.535156);
        let shape = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap())
            .density(density)
            .friction(95.49926)
            .restitution(0.14791085);
        (def, shape)
    };
    let mut world = World::new(WorldSettings::default());
    world
        .add_body(
            BodyDef::fixed()
                .position(Vec2::new(-21.730469, 0.0))
                .angle(-0.328125),
            ShapeDef::new(Shape::polygon(&plank).unwrap()).friction(8.464844),
        )
        .unwrap();
    let (def, shape) = heavy(f32::MAX);
    let refused = world.add_body(def, shape);
    assert!(
        matches!(refused, Err(Error::InvalidParameter(_))),
        "{refused:?}"
    );
    assert_eq!(world.body_count(), 1);

    let (def, shape) = heavy(1.0e20);
    let id = world.add_body(def, shape).unwrap();
    // Found at a step of 47.863003 s, now refused; the longest supported holds.
    assert!(world.step(47.863003).is_err());
    world.step(1.0).unwrap();
    assert_finite(&world, id);
}

/// Found by the random-bytes run of the fuzz target: over a 100 s step, a gravity scale of
/// f32::MAX made the velocity infinite and a damping of f32::MAX made the damping factor 0;
/// their product was NaN. The velocity is now brought back into f32's range before damping.
#[test]
fn infinite_gravity_under_infinite_damping_stays_finite() {
    for backend in [Backend::Scalar, Backend::Simd] {
        let mut world = World::new(WorldSettings {
            backend,
            ..WorldSettings::default()
        });
        let id = world
            .add_body(
                BodyDef::dynamic()
                    .gravity_scale(f32::MAX)
                    .linear_damping(f32::MAX),
                ShapeDef::new(Shape::circle(0.5).unwrap()),
            )
            .unwrap();
        // Found at a step of 100.0 s, now refused; the longest supported holds.
        assert!(world.step(100.0).is_err());
        world.step(1.0).unwrap();
        assert_finite(&world, id);
    }
}

/// Found by the scene fuzz target, which read cast_ray_all's "sorted by fraction, then slot"
/// literally: hits are listed in the order the ray enters them, compared before their
/// fractions are rounded to f32, so two bodies entered 0.06 mm apart 1 km down a 10,000 km ray
/// (equal f32 fractions) keep that order even where the later one has the lower slot. Only
/// exact ties go by slot.
#[test]
fn hits_with_equal_f32_fractions_keep_the_order_the_ray_enters_them() {
    let mut world = World::new(WorldSettings::default());
    let mut circle_at = |x: f32| {
        let def = BodyDef::fixed().position(Vec2::new(x, 0.0));
        world
            .add_body(def, ShapeDef::new(Shape::circle(0.5).unwrap()))
            .unwrap()
    };
    // Entered at x = 1000 and one f32 step of the centre (61 µm) earlier.
    let later = circle_at(1000.5);
    let first = circle_at(1000.49994);
    let twin = circle_at(1000.49994);
    let ray = (Vec2::ZERO, Vec2::new(1.0e7, 0.0));
    let all = QueryFilter::default();
    let hits = world.cast_ray_all(ray.0, ray.1, 1.0, all).unwrap();
    let order: Vec<BodyId> = hits.iter().map(|h| h.body).collect();
    assert_eq!(order, [first, twin, later], "{hits:?}");
    assert_eq!(hits[0].fraction, hits[2].fraction, "{hits:?}");
    let hit = world.cast_ray(ray.0, ray.1, 1.0, all).unwrap().unwrap();
    assert_eq!(hit.body, first);
}

/// Found by the scene fuzz target: `overlap_aabb` with a box of zero size (`min == max`)
/// reported a body 0.15 m away from it, and a box of zero width or height could report one
/// that only had a corner on the line through it: the box's repeated corners made edges of
/// zero length, which every point lies beside. Such a box is now the point or segment it is.
#[test]
fn boxes_of_zero_size_or_width_report_only_the_bodies_they_touch() {
    let mut world = World::new(WorldSettings::default());
    let triangle = [Vec2::ZERO, Vec2::new(2.0, 0.0), Vec2::new(0.0, 2.0)];
    let id = world
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::polygon(&triangle).unwrap()),
        )
        .unwrap();
    // The finding: a 0.7 m square 20 m from its body origin, far from the triangle.
    let square = [
        Vec2::new(-13.403785, -14.102287),
        Vec2::new(-13.60227, -13.403785),
        Vec2::new(-14.300773, -13.60227),
        Vec2::new(-14.102287, -14.300773),
    ];
    let def = BodyDef::fixed()
        .position(Vec2::new(0.0, 1.3867188))
        .angle(1.8821);
    let shape = ShapeDef::new(Shape::polygon(&square).unwrap());
    world.add_body(def, shape).unwrap();
    let all = QueryFilter::default();
    let query = |min: (f32, f32), max: (f32, f32)| {
        let aabb = Aabb::new(Vec2::new(min.0, min.1), Vec2::new(max.0, max.1));
        world.overlap_aabb(aabb, all).unwrap()
    };
    // A point 0.15 m beside the square.
    let beside = (17.715248, -7.976369);
    assert_eq!(query(beside, beside), []);
    // Points, beyond the hypotenuse (inside the triangle's bounds) and inside.
    assert_eq!(query((1.5, 1.5), (1.5, 1.5)), []);
    assert_eq!(query((0.5, 0.5), (0.5, 0.5)), [id]);
    // Segments on the lines through the corners (2, 0) and (0, 2), clear of the triangle.
    assert_eq!(query((2.0, 1.5), (2.0, 1.9)), []);
    assert_eq!(query((1.5, 2.0), (1.9, 2.0)), []);
    // Segments across it, and one ending on its edge.
    assert_eq!(query((1.0, -1.0), (1.0, 3.0)), [id]);
    assert_eq!(query((-1.0, 0.5), (0.0, 0.5)), [id]);
}

/// Every kept input of `fuzz/regressions/`, with the fuzz target that replays it and the test
/// above that holds its finding. A file not listed here fails the test, so that a new finding's
/// input is replayed from the day it is kept.
/// A kept input: its file, the fuzz target that replays it, and the test that holds its finding.
type KeptInput = (&'static str, fn(&[u8]), &'static str);

const KEPT_INPUTS: [KeptInput; 11] = [
    (
        "gravity_scale_overflow",
        api::run,
        "a_huge_gravity_scale_is_capped_at_the_speed_limit",
    ),
    (
        "centre_of_mass_overflow",
        api::run,
        "shapes_reaching_beyond_a_thousand_kilometres_are_refused",
    ),
    (
        "origin_overflow_when_turning",
        api::run,
        "shapes_reaching_beyond_a_thousand_kilometres_are_refused",
    ),
    (
        "engulfing_circle_lever_arm_overflow",
        api::run,
        "a_small_body_engulfed_by_the_largest_allowed_shape_stays_finite",
    ),
    (
        "huge_initial_spin",
        api::run,
        "velocities_beyond_1e30_are_refused_and_1e30_is_capped",
    ),
    (
        "tiny_fast_polygons_nan",
        api::run,
        "a_pile_hit_far_beyond_the_speed_cap_stays_within_the_caps",
    ),
    (
        "huge_friction_mixed",
        api::run,
        "a_huge_friction_mixes_to_a_finite_one",
    ),
    (
        "heavier_than_1e20_kg",
        api::run,
        "a_body_heavier_than_1e20_kg_is_refused",
    ),
    (
        "infinite_gravity_under_infinite_damping",
        api::run,
        "infinite_gravity_under_infinite_damping_stays_finite",
    ),
    (
        "scene_hits_with_equal_f32_fractions",
        scene::run,
        "hits_with_equal_f32_fractions_keep_the_order_the_ray_enters_them",
    ),
    (
        "scene_zero_size_box_overlaps_everything",
        scene::run,
        "boxes_of_zero_size_or_width_report_only_the_bodies_they_touch",
    ),
];

/// Replays every kept input through its fuzz target, which panics on a finding.
/// `BATCH2D_FUZZ_TRACE=1` prints what each input does.
#[test]
fn every_kept_fuzz_input_replays_through_its_target() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut kept: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    kept.sort();
    let mut listed: Vec<String> = KEPT_INPUTS.iter().map(|k| k.0.to_string()).collect();
    listed.sort();
    assert_eq!(
        kept,
        listed,
        "the files of {} and KEPT_INPUTS",
        dir.display()
    );
    let source = include_str!("fuzz_regressions.rs");
    for (file, run, test) in KEPT_INPUTS {
        assert!(
            source.contains(&format!("fn {test}()")),
            "{file}: no test {test}"
        );
        let data = std::fs::read(dir.join(file)).unwrap();
        assert!(!data.is_empty(), "{file} is empty");
        eprintln!("replaying {file}");
        run(&data);
    }
}

/// Found by `random_worlds` (seed 7, 1000 cases): a 2 m box held three ways at once, by a
/// revolute joint to a spinning kinematic disk and by welds to two fixed bodies, one anchored
/// 19 m away. Held against itself, the box went NaN on the step after the third joint.
#[test]
fn a_box_held_by_a_spinning_hinge_and_two_welds_stays_finite() {
    for backend in [Backend::Scalar, Backend::Simd] {
        let mut world = World::new(WorldSettings {
            backend,
            enable_sleep: true,
            time_to_sleep: 0.1,
            ..WorldSettings::default()
        });
        let disk = |def: BodyDef| (def, ShapeDef::new(Shape::circle(1.0).unwrap()));
        let (def, shape) = disk(BodyDef::fixed());
        let ground = world.add_body(def, shape).unwrap();
        let (def, shape) = disk(BodyDef::kinematic().angular_velocity(-3.5404027));
        let spinner = world.add_body(def, shape).unwrap();
        let boxed = world
            .add_body(
                BodyDef::dynamic(),
                ShapeDef::new(Shape::rect(1.0, 1.0).unwrap()),
            )
            .unwrap();
        let (def, shape) = disk(BodyDef::fixed().position(Vec2::new(0.0, 18.509396)));
        let far = world.add_body(def, shape).unwrap();
        let near = Vec2::new(0.25, 0.5);
        world
            .add_joint(JointDef::revolute(boxed, spinner, near))
            .unwrap();
        world
            .add_joint(JointDef::weld(far, boxed, Vec2::new(0.25, 19.009396)))
            .unwrap();
        for _ in 0..21 {
            world.step(1.0 / 60.0).unwrap();
        }
        world
            .add_joint(JointDef::weld(ground, boxed, near))
            .unwrap();
        for _ in 0..60 {
            world.step(1.0 / 60.0).unwrap();
            assert_finite(&world, boxed);
        }
    }
}

/// The `shapes` target on inputs drawn at random here: outlines cut by `Shape::decompose`,
/// shapes added and removed at run time on both backends. The target itself checks the pieces,
/// that a refused call leaves the world as it was, and that the two worlds stay bit-identical.
#[test]
fn decomposed_outlines_and_run_time_shape_changes_pass_the_shapes_target() {
    let mut rng = crate::common::Rng(0x5eed_5a9e);
    for _ in 0..64 {
        let len = 16 + rng.below(240);
        // Mostly small bytes, so that the outlines' coordinates fall on the coarse grid.
        let data: Vec<u8> = (0..len).map(|_| (rng.below(256) as u8) & 0x9f).collect();
        shapes::run(&data);
    }
}

/// Found by `random_worlds` (seed 7, 1000 cases): a thin box welded to a fixed disk 8.5 m away
/// and then, 26 steps later, to a kinematic disk flying off at 400 m/s, 190 m away by then.
/// The two welds contradict each other through bodies that nothing moves, and the box went
/// NaN within half a second: the welds' fight grew their impulses pass after pass, and the
/// velocities the joint passes left moved the box hundreds of metres in a substep. It must
/// stay finite for ten seconds (the kinematic disk 4 km away by then), and no step may carry
/// it farther than the speed cap allows.
#[test]
fn a_box_welded_to_a_fixed_body_and_to_a_flying_kinematic_one_stays_finite() {
    for backend in [Backend::Scalar, Backend::Simd] {
        let settings = WorldSettings {
            backend,
            enable_sleep: true,
            time_to_sleep: 0.1,
            ..WorldSettings::default()
        };
        let (dt, max_speed) = (1.0 / 60.0, settings.max_linear_speed);
        let mut world = World::new(settings);
        let disk = ShapeDef::new(Shape::circle(1.0).unwrap());
        let ground = world.add_body(BodyDef::fixed(), disk.clone()).unwrap();
        let boxed = world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(7.7004766, 3.9603198)),
                ShapeDef::new(Shape::rect(0.035134252, 1.17209).unwrap())
                    .density(5.849755)
                    .sensor(true),
            )
            .unwrap();
        world
            .add_joint(JointDef::weld(ground, boxed, Vec2::new(0.25, 0.5)))
            .unwrap();
        let flyer = world
            .add_body(
                BodyDef::kinematic()
                    .position(Vec2::new(-16.524698, 0.0))
                    .linear_velocity(Vec2::new(-262.27945, 302.0091)),
                disk,
            )
            .unwrap();
        for _ in 0..26 {
            world.step(dt).unwrap();
        }
        let at = world.position(flyer).unwrap() + Vec2::new(0.25, 0.5);
        world.add_joint(JointDef::weld(flyer, boxed, at)).unwrap();
        for step in 0..600 {
            let before = world.position(boxed).unwrap();
            world.step(dt).unwrap();
            assert_finite(&world, boxed);
            let moved = (world.position(boxed).unwrap() - before).length();
            // The centre of mass moves at most the speed cap; the position is the body's
            // origin, here its centre.
            assert!(
                moved <= 1.001 * max_speed * dt,
                "step {step}: moved {moved} m"
            );
        }
    }
}

/// Found by `random_worlds` (seed 8, 1000 cases), with the fix above: dynamic bodies (one a
/// circle 105 m across) thrown into a fixed polygon 110 m across; then a small body among
/// them welded to a kinematic disk spinning at 32 rad/s and flying off at 400 m/s. The weld
/// is a joint tree of its own (one joint to a body the solver does not move), solved exactly;
/// it and the contacts fought, and the tree's writes, never capped, overflowed to NaN within
/// half a second. Every body must stay finite.
#[test]
fn bodies_in_a_pile_welded_to_a_spinning_flying_kinematic_one_stay_finite() {
    let turned = |radii: &[f32], turn: f32| -> Vec<Vec2> {
        let n = radii.len() as f32;
        let at = |(k, &r): (usize, &f32)| {
            let a = turn + std::f32::consts::TAU * k as f32 / n;
            Vec2::new(r * a.cos(), r * a.sin())
        };
        radii.iter().enumerate().map(at).collect()
    };
    let circle = |r: f32| ShapeDef::new(Shape::circle(r).unwrap());
    let dynamic = |x: f32, y: f32| BodyDef::dynamic().position(Vec2::new(x, y));
    for backend in [Backend::Scalar, Backend::Simd] {
        let mut world = World::new(WorldSettings {
            backend,
            enable_sleep: true,
            time_to_sleep: 0.1,
            ..WorldSettings::default()
        });
        let dt = 1.0 / 60.0;
        let mut ids = Vec::new();
        let add =
            |world: &mut World, def: BodyDef, shape: ShapeDef| world.add_body(def, shape).unwrap();
        ids.push(add(&mut world, dynamic(-8.872123, 0.0), circle(1.0)));
        let spun = dynamic(10.177526, 0.0).angle(1.7658991);
        add(
            &mut world,
            spun.linear_velocity(Vec2::new(0.0, -79.28316)),
            circle(1.0),
        );
        let big = dynamic(-6.8025703, -15.179703)
            .linear_velocity(Vec2::new(0.0, 123.49614))
            .angular_velocity(-26.822306);
        ids.push(add(&mut world, big, circle(52.611614)));
        let fast = dynamic(0.0, 0.0).linear_velocity(Vec2::new(0.0, 252.91339));
        ids.push(add(&mut world, fast, circle(1.0)));
        let square = ShapeDef::new(Shape::rect(1.0, 1.0).unwrap());
        ids.push(add(&mut world, dynamic(15.120955, 0.0), square));
        let corners = turned(&[0.182732, 0.2605114, 0.2148461, 0.32735544], 1.7195882);
        let small = world
            .add_compound_body(
                dynamic(-18.392096, 5.951863)
                    .angle(2.508275)
                    .linear_velocity(Vec2::new(-162.58145, 0.0)),
                &[
                    ShapeDef::new(Shape::polygon(&corners).unwrap()),
                    ShapeDef::new(
                        Shape::circle_at(Vec2::new(0.0, -0.49419513), 0.14413834).unwrap(),
                    ),
                ],
            )
            .unwrap();
        ids.push(small);
        let hull = turned(
            &[46.41031, 66.37845, 46.41031, 54.78536, 46.41031],
            6.1251826,
        );
        let fixed = BodyDef::fixed().position(Vec2::new(15.601482, -1.0948095));
        let hull = ShapeDef::new(Shape::polygon(&hull).unwrap());
        ids.push(add(&mut world, fixed.angle(1.9047376), hull));
        for _ in 0..53 {
            world.step(dt).unwrap();
        }
        ids.push(add(&mut world, BodyDef::fixed(), circle(1.0)));
        world.step(dt).unwrap();
        ids.push(add(&mut world, BodyDef::fixed(), circle(1.0)));
        let flyer = world
            .add_body(
                BodyDef::kinematic()
                    .position(Vec2::new(-13.521111, 0.0))
                    .angle(-2.1291218)
                    .linear_velocity(Vec2::new(-212.30223, -332.22598))
                    .angular_velocity(31.833656),
                circle(1.0),
            )
            .unwrap();
        ids.push(flyer);
        for _ in 0..2 {
            world.step(dt).unwrap();
        }
        let far = BodyDef::fixed().position(Vec2::new(8.19167, 17.840693));
        ids.push(add(&mut world, far, circle(8.36574)));
        let at = world.position(flyer).unwrap() + Vec2::new(0.25, 0.5);
        world.add_joint(JointDef::weld(flyer, small, at)).unwrap();
        ids.push(add(&mut world, BodyDef::fixed(), circle(1.0)));
        for _ in 0..26 {
            world.step(dt).unwrap();
            for &id in &ids {
                assert_finite(&world, id);
            }
        }
    }
}
