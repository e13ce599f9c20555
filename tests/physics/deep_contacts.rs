//! A circle sunk deep into a thin box, or passing its corner: the contact's separation is the
//! exact signed distance from the circle to the box at every step, and its normal pushes the
//! circle out of the nearer face.

use crate::common::Rng;

use batch2d::{collide, BodyDef, Rot, Shape, ShapeDef, Transform, Vec2, World, WorldSettings};

const DT: f32 = 1.0 / 60.0;
/// A plank 4 cm thick and 2 m long.
const HALF_WIDTH: f32 = 0.02;
const HALF_LENGTH: f32 = 1.0;
const RADIUS: f32 = 0.05;

fn plank() -> Shape {
    Shape::rect(HALF_WIDTH, HALF_LENGTH).unwrap()
}

/// Signed distance (m, negative inside) from the plank at `xf` to a circle of `RADIUS` at
/// `centre`, and the unit direction in which it grows fastest (the outward normal of the
/// plank at the point nearest the centre), from the box's geometry in its own frame.
fn signed_distance(xf: Transform, centre: Vec2) -> (f32, Vec2) {
    let c = xf.q.inv_rotate(centre - xf.p);
    let sign = |v: f32| if v < 0.0 { -1.0 } else { 1.0 };
    let (dx, dy) = (c.x.abs() - HALF_WIDTH, c.y.abs() - HALF_LENGTH);
    let (distance, local) = if dx <= 0.0 && dy <= 0.0 {
        // Inside: the nearer face's plane.
        if dx > dy {
            (dx, Vec2::new(sign(c.x), 0.0))
        } else {
            (dy, Vec2::new(0.0, sign(c.y)))
        }
    } else {
        let out = Vec2::new(dx.max(0.0) * sign(c.x), dy.max(0.0) * sign(c.y));
        (out.length(), out * (1.0 / out.length()))
    };
    (distance - RADIUS, xf.q.rotate(local))
}

/// Fresh collides of a circle whose centre lies anywhere in or around a thin plank, with the
/// plank as shape A and as shape B: one point, at the exact signed distance, along the normal
/// of the nearer face (or corner), pointing from A to B.
#[test]
fn a_fresh_collide_finds_the_exact_depth_of_a_circle_in_a_thin_box() {
    let mut rng = Rng(31);
    let circle = Shape::circle(RADIUS).unwrap();
    let (mut deep, mut past_the_middle) = (0, 0);
    for case in 0..2000 {
        let xf_p = Transform::new(
            Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)),
            Rot::from_angle(rng.range(-3.2, 3.2)),
        );
        let local = Vec2::new(rng.range(-0.08, 0.08), rng.range(-1.08, 1.08));
        let xf_c = Transform::new(xf_p.apply(local), Rot::from_angle(rng.range(-3.2, 3.2)));
        let (exact, outward) = signed_distance(xf_p, xf_c.p);
        // Where two faces are equally near the direction is a tie: skip the few cases near one.
        let ties = (local.x.abs() - HALF_WIDTH - (local.y.abs() - HALF_LENGTH)).abs() < 1e-3;
        if ties || local.x.abs() < 1e-3 {
            continue;
        }
        let plank_first = collide(&plank(), xf_p, &circle, xf_c, 1.0).unwrap();
        let circle_first = collide(&circle, xf_c, &plank(), xf_p, 1.0).unwrap();
        for (m, normal, order) in [
            (plank_first, outward, "plank first"),
            (circle_first, -outward, "circle first"),
        ] {
            assert_eq!(m.point_count, 1, "case {case}, {order}");
            let s = m.points[0].separation;
            assert!(
                (s - exact).abs() < 1e-5,
                "case {case}, {order}: separation {s}, exact {exact}"
            );
            assert!(
                (m.normal - normal).length() < 1e-4,
                "case {case}, {order}: normal {:?}, exact {normal:?}",
                m.normal
            );
        }
        deep += usize::from(exact < -RADIUS);
        past_the_middle += usize::from(local.x.abs() < 0.5 * HALF_WIDTH && local.y.abs() < 0.9);
    }
    // The cases include centres inside the plank, near its mid-plane too.
    assert!(
        deep > 100 && past_the_middle > 50,
        "{deep} deep, {past_the_middle} near the middle"
    );
}

/// A circle created with its centre inside a fixed plank, 5 mm from its left face, and pushed
/// out slowly (a `contact_push_max_velocity` of 3 cm/s moves it half a millimetre a step,
/// little enough for the world to reuse a polygon pair's manifold, which a circle's pair must
/// not be misled by): each step's contact, computed at the step's start, has the exact signed
/// distance of the bodies there, and the circle comes out of the left face, the nearer one.
#[test]
fn a_circle_deep_in_a_thin_box_keeps_its_exact_depth_step_by_step() {
    for (angle, offset) in [(0.0, 0.0), (0.4, 0.3), (-1.2, -0.6)] {
        let mut world = World::new(WorldSettings {
            gravity: Vec2::ZERO,
            contact_push_max_velocity: 0.03,
            ..WorldSettings::default()
        });
        let xf_p = Transform::new(Vec2::new(0.3, -0.2), Rot::from_angle(angle));
        let plank_body = world
            .add_body(
                BodyDef::fixed().position(xf_p.p).angle(angle),
                ShapeDef::new(plank()),
            )
            .unwrap();
        let start = xf_p.apply(Vec2::new(-HALF_WIDTH + 0.005, offset));
        let ball = world
            .add_body(
                BodyDef::dynamic().position(start),
                ShapeDef::new(Shape::circle(RADIUS).unwrap()),
            )
            .unwrap();
        let what = format!("plank at {angle} rad, circle at {offset} m along it");
        for step in 0..120 {
            let before = world.transform(ball).unwrap().p;
            world.step(DT).unwrap();
            let (exact, outward) = signed_distance(xf_p, before);
            let contact = world.contacts().next();
            if exact > 0.02 {
                continue; // Out of the speculative band, it may or may not have a contact.
            }
            let contact = contact.unwrap_or_else(|| panic!("{what}: no contact at step {step}"));
            assert_eq!((contact.a, contact.b), (plank_body, ball));
            let s = contact.points()[0].separation;
            assert!(
                (s - exact).abs() < 1e-5,
                "{what}, step {step}: separation {s}, exact {exact}"
            );
            assert!((contact.manifold.normal - outward).length() < 1e-4);
            // Pushed out of the nearer (left) face, never towards the far one.
            let local = xf_p.q.inv_rotate(world.transform(ball).unwrap().p - xf_p.p);
            assert!(
                local.x < -HALF_WIDTH + 0.005 + 1e-6,
                "{what}, step {step}: {local:?}"
            );
        }
        let end = world.transform(ball).unwrap().p;
        let (gap, _) = signed_distance(xf_p, end);
        assert!(gap > -0.01, "{what}: still {gap} m deep");
    }
}

/// A ball sliding slowly past a fixed plank's corner, 2 mm clear of its long face (no
/// gravity, so nothing pushes it; within the linear slop, so the contact is listed as
/// touching): each step's contact has the exact signed distance and the exact normal of the
/// bodies at the step's start, along the face and round the corner, where the normal turns
/// with the ball's centre. (A manifold kept from an earlier step and moved
/// with the ball would keep the old normal, a hundredth of a radian off per half millimetre.)
#[test]
fn a_ball_sliding_past_a_corner_has_its_exact_contact_every_step() {
    for angle in [0.0, 0.7, -2.1] {
        let mut world = World::new(WorldSettings {
            gravity: Vec2::ZERO,
            ..WorldSettings::default()
        });
        let xf_p = Transform::new(Vec2::new(-0.4, 0.25), Rot::from_angle(angle));
        let plank_body = world
            .add_body(
                BodyDef::fixed().position(xf_p.p).angle(angle),
                ShapeDef::new(plank()),
            )
            .unwrap();
        let start = xf_p.apply(Vec2::new(HALF_WIDTH + RADIUS + 0.002, HALF_LENGTH - 0.03));
        let ball = world
            .add_body(
                BodyDef::dynamic()
                    .position(start)
                    .linear_velocity(xf_p.q.rotate(Vec2::new(0.0, 0.03))),
                ShapeDef::new(Shape::circle(RADIUS).unwrap()),
            )
            .unwrap();
        let (mut along_face, mut round_corner) = (0, 0);
        for step in 0..120 {
            let before = world.transform(ball).unwrap().p;
            world.step(DT).unwrap();
            let (exact, outward) = signed_distance(xf_p, before);
            if exact > 0.004 {
                continue; // Near or past the linear slop, it may not be listed as touching.
            }
            let contact = world
                .contacts()
                .next()
                .unwrap_or_else(|| panic!("{angle} rad: no contact at step {step}"));
            assert_eq!((contact.a, contact.b), (plank_body, ball));
            let s = contact.points()[0].separation;
            assert!(
                (s - exact).abs() < 1e-5,
                "{angle} rad, step {step}: separation {s}, exact {exact}"
            );
            let off = (contact.manifold.normal - outward).length();
            assert!(off < 1e-4, "{angle} rad, step {step}: normal {off} off");
            let local = xf_p.q.inv_rotate(before - xf_p.p);
            if local.y > HALF_LENGTH + 0.002 {
                round_corner += 1;
            } else {
                along_face += 1;
            }
        }
        assert!(
            along_face > 30 && round_corner > 20,
            "{angle} rad: {along_face} steps along the face, {round_corner} round the corner"
        );
    }
}
