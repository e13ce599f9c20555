//! Run-time control of bodies: mass read back and changed, kind changes, kinematic targets,
//! disabling, and collision filters. Each test checks a law computed here (area times
//! density, the textbook inertias, free fall, momentum), and every call refuses bad input
//! with the world unchanged.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, BodyKind, Error, Shape, ShapeDef, Vec2, World, WorldSettings,
};
use common::{body_state_bits, ground, unit_box, world, Rng, DT};
use std::f32::consts::PI;

fn close(got: f32, want: f32, rel: f32) -> bool {
    (got - want).abs() <= rel * want.abs().max(1e-6)
}

fn add(world: &mut World, shape: Shape, density: f32) -> BodyId {
    world
        .add_body(BodyDef::dynamic(), ShapeDef::new(shape).density(density))
        .unwrap()
}

/// Shoelace area of a convex polygon given counter-clockwise.
fn polygon_area(points: &[Vec2]) -> f32 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let (p, q) = (points[i], points[(i + 1) % n]);
            p.x * q.y - q.x * p.y
        })
        .sum::<f32>()
        / 2.0
}

#[test]
fn mass_is_density_times_area_for_every_shape_kind() {
    let mut w = world();
    let density = 2.5;
    let r = 0.4;
    let disc = add(&mut w, Shape::circle(r).unwrap(), density);
    assert!(close(w.mass(disc).unwrap(), density * PI * r * r, 1e-5));

    let (hw, hh) = (0.6, 0.25);
    let rect = add(&mut w, Shape::rect(hw, hh).unwrap(), density);
    assert!(close(w.mass(rect).unwrap(), density * 4.0 * hw * hh, 1e-5));

    let triangle = [
        Vec2::new(0.0, 0.0),
        Vec2::new(1.2, 0.1),
        Vec2::new(0.3, 0.9),
    ];
    let tri = add(&mut w, Shape::polygon(&triangle).unwrap(), density);
    assert!(close(
        w.mass(tri).unwrap(),
        density * polygon_area(&triangle),
        1e-5
    ));

    // A capsule: a rectangle 2r wide between the two centres plus the two half discs.
    let (len, cr) = (1.5, 0.3);
    let capsule = Shape::capsule(Vec2::new(-len / 2.0, 0.0), Vec2::new(len / 2.0, 0.0), cr);
    let cap = add(&mut w, capsule.unwrap(), density);
    let cap_area = 2.0 * cr * len + PI * cr * cr;
    assert!(close(w.mass(cap).unwrap(), density * cap_area, 1e-5));

    // A rounded square: the Minkowski sum of a square and a disc, area A + P r + pi r².
    let (side, rr) = (1.0, 0.1);
    let square = [
        Vec2::new(0.0, 0.0),
        Vec2::new(side, 0.0),
        Vec2::new(side, side),
        Vec2::new(0.0, side),
    ];
    let rounded = add(
        &mut w,
        Shape::rounded_polygon(&square, rr).unwrap(),
        density,
    );
    let rounded_area = side * side + 4.0 * side * rr + PI * rr * rr;
    assert!(close(
        w.mass(rounded).unwrap(),
        density * rounded_area,
        1e-4
    ));
}

#[test]
fn inertia_follows_the_textbook_formulas() {
    let mut w = world();
    let (density, r) = (3.0, 0.7);
    let disc = add(&mut w, Shape::circle(r).unwrap(), density);
    let m = density * PI * r * r;
    assert!(close(
        w.rotational_inertia(disc).unwrap(),
        m * r * r / 2.0,
        1e-5
    ));

    // Full sizes: 1.2 m by 0.5 m.
    let (width, height) = (1.2, 0.5);
    let rect = add(
        &mut w,
        Shape::rect(width / 2.0, height / 2.0).unwrap(),
        density,
    );
    let m = density * width * height;
    let want = m * (width * width + height * height) / 12.0;
    assert!(close(w.rotational_inertia(rect).unwrap(), want, 1e-5));
}

#[test]
fn a_compound_body_sums_masses_and_uses_the_parallel_axis_theorem() {
    let mut w = world();
    // A disc of radius 0.3 at (-1, 0), density 2, and a 0.4 x 0.6 box at (1, 0.5), density 5.
    let (r, d1, c1) = (0.3, 2.0, Vec2::new(-1.0, 0.0));
    let (bw, bh, d2, c2) = (0.4, 0.6, 5.0, Vec2::new(1.0, 0.5));
    let body = w
        .add_compound_body(
            BodyDef::dynamic().position(Vec2::new(3.0, 4.0)),
            &[
                ShapeDef::new(Shape::circle_at(c1, r).unwrap()).density(d1),
                ShapeDef::new(Shape::offset_rect(bw / 2.0, bh / 2.0, c2, 0.0).unwrap()).density(d2),
            ],
        )
        .unwrap();
    let (m1, m2) = (d1 * PI * r * r, d2 * bw * bh);
    let m = m1 + m2;
    assert!(close(w.mass(body).unwrap(), m, 1e-5));
    let centre = Vec2::new((m1 * c1.x + m2 * c2.x) / m, (m1 * c1.y + m2 * c2.y) / m);
    let d_sq = |c: Vec2| (c.x - centre.x).powi(2) + (c.y - centre.y).powi(2);
    let inertia =
        m1 * r * r / 2.0 + m1 * d_sq(c1) + m2 * (bw * bw + bh * bh) / 12.0 + m2 * d_sq(c2);
    assert!(close(w.rotational_inertia(body).unwrap(), inertia, 1e-4));

    // One density for both shapes: the masses scale with the areas and the centre moves to
    // their area-weighted mean, with the origin left in place.
    let origin = w.transform(body).unwrap().p;
    w.set_density(body, 4.0).unwrap();
    let (a1, a2) = (PI * r * r, bw * bh);
    assert!(close(w.mass(body).unwrap(), 4.0 * (a1 + a2), 1e-5));
    let local = w.local_center(body).unwrap();
    assert!(close(local.x, (a1 * c1.x + a2 * c2.x) / (a1 + a2), 1e-5));
    assert!(close(local.y, (a1 * c1.y + a2 * c2.y) / (a1 + a2), 1e-5));
    assert_eq!(w.transform(body).unwrap().p, origin);
}

#[test]
fn fixed_kinematic_and_fixed_rotation_bodies_report_zero() {
    let mut w = world();
    let shape = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap());
    let fixed = w.add_body(BodyDef::fixed(), shape.clone()).unwrap();
    let kinematic = w.add_body(BodyDef::kinematic(), shape.clone()).unwrap();
    let upright = w
        .add_body(BodyDef::dynamic().fixed_rotation(true), shape)
        .unwrap();
    for id in [fixed, kinematic] {
        assert_eq!(w.mass(id).unwrap(), 0.0);
        assert_eq!(w.rotational_inertia(id).unwrap(), 0.0);
    }
    assert_eq!(w.mass(upright).unwrap(), 1.0);
    assert_eq!(w.rotational_inertia(upright).unwrap(), 0.0);
}

#[test]
fn doubling_the_density_halves_the_velocity_an_impulse_gives() {
    let mut w = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    let a = unit_box(&mut w, Vec2::new(0.0, 0.0));
    let b = unit_box(&mut w, Vec2::new(5.0, 0.0));
    let m = w.mass(b).unwrap();
    w.set_density(b, 2.0).unwrap();
    assert!(close(w.mass(b).unwrap(), 2.0 * m, 1e-6));
    let inertia = w.rotational_inertia(b).unwrap();
    assert!(close(inertia, 2.0 * w.rotational_inertia(a).unwrap(), 1e-6));

    let impulse = Vec2::new(3.0, -1.0);
    for id in [a, b] {
        w.apply_linear_impulse(id, impulse).unwrap();
        w.apply_angular_impulse(id, 0.5).unwrap();
    }
    w.step(DT).unwrap();
    for id in [a, b] {
        // Momentum: the impulse over the body's mass, and the angular impulse over its
        // inertia, whatever the density.
        let (m, i) = (w.mass(id).unwrap(), w.rotational_inertia(id).unwrap());
        let v = w.linear_velocity(id).unwrap();
        assert!(close(v.x, impulse.x / m, 1e-5) && close(v.y, impulse.y / m, 1e-5));
        assert!(close(w.angular_velocity(id).unwrap(), 0.5 / i, 1e-5));
    }
}

#[test]
fn set_density_refuses_bad_values_and_leaves_the_world_alone() {
    let mut w = world();
    ground(&mut w);
    let b = unit_box(&mut w, Vec2::new(0.0, 0.5));
    w.step(DT).unwrap();
    let before = body_state_bits(&w);
    for d in [0.0, -1.0, f32::NAN, f32::INFINITY, 1e30] {
        assert!(
            matches!(w.set_density(b, d), Err(Error::InvalidParameter(_))),
            "density {d}"
        );
    }
    assert_eq!(w.mass(b).unwrap(), 1.0);
    assert_eq!(body_state_bits(&w), before);
    // A static body may weigh nothing.
    let fixed = w.bodies().next().unwrap();
    w.set_density(fixed, 0.0).unwrap();
    assert_eq!(w.mass(fixed).unwrap(), 0.0);
}

#[test]
fn stale_handles_are_refused_by_every_body_call() {
    let mut w = world();
    let b = unit_box(&mut w, Vec2::ZERO);
    w.remove_body(b).unwrap();
    assert_eq!(w.mass(b), Err(Error::InvalidBody));
    assert_eq!(w.rotational_inertia(b), Err(Error::InvalidBody));
    assert_eq!(w.set_density(b, 1.0), Err(Error::InvalidBody));
    assert_eq!(w.set_body_kind(b, BodyKind::Fixed), Err(Error::InvalidBody));
    let other = unit_box(&mut world(), Vec2::ZERO);
    assert_eq!(w.mass(other), Err(Error::InvalidBody));
}

const G: f32 = 10.0;

fn gravity_world(enable_sleep: bool) -> World {
    World::new(WorldSettings {
        gravity: Vec2::new(0.0, -G),
        enable_sleep,
        ..WorldSettings::default()
    })
}

#[test]
fn a_falling_body_made_fixed_stops_and_stays_put() {
    let mut w = gravity_world(false);
    ground(&mut w);
    let b = unit_box(&mut w, Vec2::new(0.0, 5.0));
    for _ in 0..20 {
        w.step(DT).unwrap();
    }
    assert!(w.linear_velocity(b).unwrap().y < -1.0);
    w.set_body_kind(b, BodyKind::Fixed).unwrap();
    assert_eq!(w.body_kind(b).unwrap(), BodyKind::Fixed);
    assert_eq!(w.linear_velocity(b).unwrap(), Vec2::ZERO);
    assert_eq!(w.mass(b).unwrap(), 0.0);
    let at = w.transform(b).unwrap();
    // A box dropped onto it now rests on it: the new static body collides.
    let top = unit_box(&mut w, Vec2::new(0.0, at.p.y + 1.5));
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    assert_eq!(w.transform(b).unwrap(), at);
    assert!(close(w.position(top).unwrap().y, at.p.y + 1.0, 0.01));
}

#[test]
fn a_fixed_body_made_dynamic_falls_with_g() {
    let mut w = gravity_world(true);
    let b = w
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, 10.0)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).density(2.0),
        )
        .unwrap();
    for _ in 0..10 {
        w.step(DT).unwrap();
    }
    w.set_body_kind(b, BodyKind::Dynamic).unwrap();
    assert!(close(w.mass(b).unwrap(), 2.0, 1e-6));
    let steps = 30;
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    // Symplectic Euler over N = n k substeps of h = dt / k: v = -g N h exactly, and the drop
    // g h² N(N+1)/2.
    let k = w.settings().substeps as f32;
    let (n, h) = (steps as f32 * k, DT / k);
    assert!(close(w.linear_velocity(b).unwrap().y, -G * n * h, 1e-4));
    let drop = G * h * h * n * (n + 1.0) / 2.0;
    assert!(close(10.0 - w.position(b).unwrap().y, drop, 1e-3));
}

#[test]
fn a_dynamic_body_made_kinematic_keeps_its_velocity_and_ignores_gravity() {
    let mut w = gravity_world(true);
    let b = unit_box(&mut w, Vec2::new(0.0, 10.0));
    w.set_linear_velocity(b, Vec2::new(2.0, 1.0)).unwrap();
    w.set_angular_velocity(b, 0.5).unwrap();
    w.step(DT).unwrap();
    let v = w.linear_velocity(b).unwrap();
    w.set_body_kind(b, BodyKind::Kinematic).unwrap();
    assert_eq!(w.mass(b).unwrap(), 0.0);
    let start = w.position(b).unwrap();
    let steps = 60;
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    assert_eq!(w.linear_velocity(b).unwrap(), v);
    assert_eq!(w.angular_velocity(b).unwrap(), 0.5);
    let p = w.position(b).unwrap();
    let t = steps as f32 * DT;
    assert!(close(p.x - start.x, v.x * t, 1e-4) && close(p.y - start.y, v.y * t, 1e-4));
    // And back: dynamic again, it falls once more.
    w.set_body_kind(b, BodyKind::Dynamic).unwrap();
    w.step(DT).unwrap();
    assert!(close(w.linear_velocity(b).unwrap().y, v.y - G * DT, 1e-4));
}

#[test]
fn kind_changes_that_cannot_be_are_refused_with_the_world_unchanged() {
    let mut w = gravity_world(false);
    let rail = w
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::segment(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0)).unwrap()),
        )
        .unwrap();
    let weightless = w
        .add_body(
            BodyDef::kinematic().position(Vec2::new(0.0, 3.0)),
            ShapeDef::new(Shape::circle(0.5).unwrap()).density(0.0),
        )
        .unwrap();
    w.set_linear_velocity(weightless, Vec2::new(1.0, 0.0))
        .unwrap();
    w.step(DT).unwrap();
    let before = body_state_bits(&w);
    assert!(matches!(
        w.set_body_kind(rail, BodyKind::Dynamic),
        Err(Error::InvalidShape(_))
    ));
    assert!(matches!(
        w.set_body_kind(weightless, BodyKind::Dynamic),
        Err(Error::InvalidParameter(_))
    ));
    assert_eq!(w.body_kind(rail).unwrap(), BodyKind::Fixed);
    assert_eq!(w.body_kind(weightless).unwrap(), BodyKind::Kinematic);
    assert_eq!(body_state_bits(&w), before);
    // A kinematic segment is fine.
    w.set_body_kind(rail, BodyKind::Kinematic).unwrap();
}

/// A pile of boxes, a compound body and a jointed pair on a ground, whose kinds change at
/// random between steps, with sleeping on: nothing panics, everything stays finite, and the
/// same sequence gives the same world on 1 and 2 threads.
#[test]
fn random_kind_changes_with_contacts_and_joints_never_break_the_world() {
    let kinds = [BodyKind::Fixed, BodyKind::Kinematic, BodyKind::Dynamic];
    let run = |seed: u32, threads: usize| {
        let mut w = World::new(WorldSettings {
            threads,
            enable_sleep: true,
            time_to_sleep: 0.1,
            ..WorldSettings::default()
        });
        let mut ids = vec![ground(&mut w)];
        for i in 0..12 {
            let x = (i % 4) as f32 * 1.05 - 1.5;
            ids.push(unit_box(&mut w, Vec2::new(x, 0.5 + (i / 4) as f32 * 1.05)));
        }
        let parts = [
            ShapeDef::new(Shape::circle_at(Vec2::new(-0.4, 0.0), 0.3).unwrap()),
            ShapeDef::new(Shape::offset_rect(0.3, 0.2, Vec2::new(0.4, 0.0), 0.3).unwrap())
                .density(3.0),
        ];
        let compound = BodyDef::dynamic().position(Vec2::new(0.0, 4.0));
        ids.push(w.add_compound_body(compound, &parts).unwrap());
        let (a, b) = (ids[1], ids[2]);
        w.add_joint(batch2d::JointDef::revolute(a, b, Vec2::new(-1.0, 0.5)))
            .unwrap();
        let mut rng = Rng(seed);
        for step in 0..240 {
            if step % 7 == 0 {
                for _ in 0..3 {
                    let id = ids[rng.below(ids.len())];
                    let kind = kinds[rng.below(3)];
                    w.set_body_kind(id, kind).unwrap();
                    if kind == BodyKind::Kinematic && rng.below(2) == 0 {
                        w.set_linear_velocity(id, Vec2::new(rng.range(-1.0, 1.0), 0.0))
                            .unwrap();
                    }
                }
            }
            w.step(DT).unwrap();
        }
        for &id in &ids {
            assert!(w.position(id).unwrap().is_finite());
            assert!(w.linear_velocity(id).unwrap().is_finite());
            let want_mass = w.body_kind(id).unwrap() == BodyKind::Dynamic;
            assert_eq!(w.mass(id).unwrap() > 0.0, want_mass);
        }
        body_state_bits(&w)
    };
    for seed in [1, 7, 12345, 99] {
        assert_eq!(run(seed, 1), run(seed, 2), "seed {seed}");
    }
}

/// A kinematic platform 6 m wide with a 0.5 m box resting on it (friction 0.6 on both, so
/// 0.6 mixed), settled. Returns the world, the platform and the box.
fn box_on_platform() -> (World, BodyId, BodyId) {
    let mut w = gravity_world(false);
    let platform = w
        .add_body(
            BodyDef::kinematic(),
            ShapeDef::new(Shape::rect(3.0, 0.25).unwrap()).friction(0.6),
        )
        .unwrap();
    let crate_ = w
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 0.5)),
            ShapeDef::new(Shape::rect(0.25, 0.25).unwrap()).friction(0.6),
        )
        .unwrap();
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    (w, platform, crate_)
}

/// Moves the platform along x = A (1 - cos(omega t)) for two periods (starting from rest, so
/// that the acceleration never exceeds A omega²) by `set_target_transform`
/// and returns the largest slip of the box relative to the platform.
fn largest_slip(amplitude: f32, omega: f32) -> f32 {
    let (mut w, platform, crate_) = box_on_platform();
    let start = w.position(crate_).unwrap().x;
    let mut slip: f32 = 0.0;
    let steps = (2.0 * 2.0 * PI / omega / DT) as usize;
    for i in 0..steps {
        let t = (i + 1) as f32 * DT;
        let x = amplitude * (1.0 - (omega * t).cos());
        w.set_target_transform(platform, Vec2::new(x, 0.0), 0.0, DT)
            .unwrap();
        w.step(DT).unwrap();
        let platform_x = w.transform(platform).unwrap().p.x;
        assert!(
            (platform_x - x).abs() < 1e-4,
            "the platform reaches its target"
        );
        slip = slip.max((w.position(crate_).unwrap().x - start - platform_x).abs());
    }
    slip
}

#[test]
fn a_platform_moved_by_target_carries_a_box_while_its_acceleration_is_below_mu_g() {
    // Friction can give the box at most mu g = 6 m/s². A sway of peak acceleration
    // A omega² = 4 m/s² carries it along; one of 16 m/s² leaves it sliding.
    let mu_g = 0.6 * G;
    let (amplitude, slow, fast) = (1.0, 2.0, 4.0);
    assert!(amplitude * slow * slow < mu_g && amplitude * fast * fast > mu_g);
    let carried = largest_slip(amplitude, slow);
    assert!(carried < 0.01, "slipped {carried} m below mu g");
    let sliding = largest_slip(amplitude, fast);
    assert!(sliding > 0.1, "slipped only {sliding} m above mu g");
}

#[test]
fn a_teleported_platform_leaves_the_box_behind() {
    let (mut w, platform, crate_) = box_on_platform();
    let start = w.position(crate_).unwrap().x;
    for i in 0..60 {
        let x = (i + 1) as f32 * 0.01;
        w.set_transform(platform, Vec2::new(x, 0.0), 0.0).unwrap();
        w.step(DT).unwrap();
    }
    // The platform went 0.6 m; the box, pushed by nothing, stayed.
    assert!((w.position(crate_).unwrap().x - start).abs() < 0.01);
}

#[test]
fn set_target_transform_turns_the_short_way_and_refuses_bad_input() {
    let mut w = gravity_world(false);
    let door = w
        .add_body(
            BodyDef::kinematic().angle(3.0),
            ShapeDef::new(Shape::rect(1.0, 0.1).unwrap()),
        )
        .unwrap();
    // From 3 rad to -3 rad is 2 pi - 6 rad counter-clockwise, not 6 rad clockwise.
    w.set_target_transform(door, Vec2::ZERO, -3.0, 0.5).unwrap();
    let want = (2.0 * PI - 6.0) / 0.5;
    assert!(close(w.angular_velocity(door).unwrap(), want, 1e-3));

    let wall = w.add_body(
        BodyDef::fixed(),
        ShapeDef::new(Shape::rect(1.0, 1.0).unwrap()),
    );
    let wall = wall.unwrap();
    let before = body_state_bits(&w);
    let bad = [
        (door, Vec2::new(f32::NAN, 0.0), 0.0, DT),
        (door, Vec2::ZERO, f32::INFINITY, DT),
        (door, Vec2::ZERO, 0.0, 0.0),
        (door, Vec2::ZERO, 0.0, -DT),
        (door, Vec2::ZERO, 0.0, f32::NAN),
        (door, Vec2::new(1e30, 0.0), 0.0, 1e-9),
        (wall, Vec2::new(1.0, 0.0), 0.0, DT),
    ];
    for (id, p, a, dt) in bad {
        assert!(
            matches!(
                w.set_target_transform(id, p, a, dt),
                Err(Error::InvalidParameter(_))
            ),
            "{p:?} {a} {dt}"
        );
    }
    assert_eq!(body_state_bits(&w), before);
    w.remove_body(door).unwrap();
    assert_eq!(
        w.set_target_transform(door, Vec2::ZERO, 0.0, DT),
        Err(Error::InvalidBody)
    );
}

#[test]
fn a_disabled_body_is_out_of_the_step_and_its_contacts_end() {
    let mut w = gravity_world(true);
    ground(&mut w);
    let lower = unit_box(&mut w, Vec2::new(0.0, 0.5));
    let upper = unit_box(&mut w, Vec2::new(0.0, 1.5));
    for _ in 0..60 {
        w.step(DT).unwrap();
    }
    let at = w.transform(lower).unwrap();
    w.set_enabled(lower, false).unwrap();
    assert!(!w.is_enabled(lower).unwrap());
    w.step(DT).unwrap();
    let (l, u) = (lower, upper);
    let ended =
        (w.contact_events().end().iter()).any(|e| (e.a, e.b) == (l, u) || (e.a, e.b) == (u, l));
    assert!(ended, "the pair's contact ends with an event");
    assert!(w.contacts().all(|c| c.a != lower && c.b != lower));
    // The upper box now falls freely through where the lower one is, which stays put.
    let steps = 10;
    for _ in 1..steps {
        w.step(DT).unwrap();
    }
    let v = w.linear_velocity(upper).unwrap().y;
    assert!(close(v, -G * steps as f32 * DT, 0.02), "v {v}");
    assert_eq!(w.transform(lower).unwrap(), at);
    assert_eq!(w.body_count(), 3);
}

#[test]
fn a_disabled_body_is_out_of_queries_and_returns_with_gravity_when_enabled() {
    let mut w = gravity_world(true);
    let b = unit_box(&mut w, Vec2::new(0.0, 10.0));
    let filter = batch2d::QueryFilter::new();
    let here = Vec2::new(0.0, 10.0);
    assert_eq!(w.overlap_point(here, filter).unwrap(), vec![b]);
    w.set_enabled(b, false).unwrap();
    assert!(w.overlap_point(here, filter).unwrap().is_empty());
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    assert_eq!(w.position(b).unwrap(), here);
    w.set_enabled(b, true).unwrap();
    assert_eq!(w.overlap_point(here, filter).unwrap(), vec![b]);
    let steps = 20;
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    let k = w.settings().substeps as f32;
    let (n, h) = (steps as f32 * k, DT / k);
    assert!(close(w.linear_velocity(b).unwrap().y, -G * n * h, 1e-4));
}

#[test]
fn the_joints_of_a_disabled_body_do_not_act() {
    let mut w = gravity_world(false);
    let hook = w
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, 10.0)),
            ShapeDef::new(Shape::circle(0.1).unwrap()),
        )
        .unwrap();
    let bob = w
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 8.0)),
            ShapeDef::new(Shape::circle(0.25).unwrap()),
        )
        .unwrap();
    let rope = batch2d::JointDef::distance(hook, bob, Vec2::new(0.0, 10.0), Vec2::new(0.0, 8.0));
    w.add_joint(rope).unwrap();
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    assert!(
        w.linear_velocity(bob).unwrap().length() < 0.01,
        "the rope holds the bob"
    );
    w.set_enabled(hook, false).unwrap();
    let steps = 30;
    for _ in 0..steps {
        w.step(DT).unwrap();
    }
    let k = w.settings().substeps as f32;
    let (n, h) = (steps as f32 * k, DT / k);
    assert!(close(w.linear_velocity(bob).unwrap().y, -G * n * h, 1e-3));
    // Enabled again, the rope catches the bob.
    w.set_enabled(hook, true).unwrap();
    for _ in 0..120 {
        w.step(DT).unwrap();
    }
    let gap = w.position(hook).unwrap() - w.position(bob).unwrap();
    assert!(
        close(gap.length(), 2.0, 0.02),
        "rope length {}",
        gap.length()
    );
}

#[test]
fn random_enables_and_kind_changes_keep_the_world_whole_on_any_thread_count() {
    let run = |seed: u32, threads: usize, backend: Backend| {
        let mut w = World::new(WorldSettings {
            threads,
            backend,
            enable_sleep: true,
            time_to_sleep: 0.1,
            ..WorldSettings::default()
        });
        let mut ids = vec![ground(&mut w)];
        for i in 0..10 {
            let x = (i % 3) as f32 * 1.05 - 1.0;
            ids.push(unit_box(&mut w, Vec2::new(x, 0.5 + (i / 3) as f32 * 1.05)));
        }
        let (a, b) = (ids[3], ids[4]);
        w.add_joint(batch2d::JointDef::weld(a, b, Vec2::new(0.0, 1.5)))
            .unwrap();
        let mut rng = Rng(seed);
        let kinds = [BodyKind::Fixed, BodyKind::Kinematic, BodyKind::Dynamic];
        for step in 0..200 {
            if step % 5 == 0 {
                let id = ids[rng.below(ids.len())];
                match rng.below(3) {
                    0 => w.set_enabled(id, rng.below(2) == 0).unwrap(),
                    1 => w.set_body_kind(id, kinds[rng.below(3)]).unwrap(),
                    _ => w.set_density(id, rng.range(0.5, 3.0)).unwrap(),
                }
            }
            w.step(DT).unwrap();
        }
        for &id in &ids {
            assert!(w.position(id).unwrap().is_finite());
        }
        body_state_bits(&w)
    };
    for seed in [3, 17, 2024] {
        assert_eq!(
            run(seed, 1, Backend::Simd),
            run(seed, 2, Backend::Simd),
            "seed {seed}"
        );
        assert_eq!(
            run(seed, 1, Backend::Simd),
            run(seed, 1, Backend::Scalar),
            "seed {seed}"
        );
    }
}

#[test]
fn a_disabled_visitor_leaves_a_sensor_with_an_event_and_returns_on_enabling() {
    let mut w = gravity_world(false);
    let gate = w
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::rect(2.0, 2.0).unwrap()).sensor(true),
        )
        .unwrap();
    let visitor = w
        .add_body(
            BodyDef::dynamic().gravity_scale(0.0),
            ShapeDef::new(Shape::circle(0.5).unwrap()),
        )
        .unwrap();
    let seen = |events: &[batch2d::SensorEvent]| {
        events
            .iter()
            .any(|e| e.sensor == gate && e.visitor == visitor)
    };
    w.step(DT).unwrap();
    assert!(seen(w.contact_events().sensor_begin()));
    w.set_enabled(visitor, false).unwrap();
    w.step(DT).unwrap();
    assert!(seen(w.contact_events().sensor_end()));
    w.step(DT).unwrap();
    assert!(
        !seen(w.contact_events().sensor_begin()),
        "unseen while disabled"
    );
    w.set_enabled(visitor, true).unwrap();
    w.step(DT).unwrap();
    assert!(seen(w.contact_events().sensor_begin()));
}

/// Whether the last step left a contact between `a` and `b`, either way round.
fn in_contact(w: &World, a: BodyId, b: BodyId) -> bool {
    w.contacts()
        .any(|c| (c.a, c.b) == (a, b) || (c.a, c.b) == (b, a))
}

#[test]
fn limbs_of_one_negative_group_never_collide_but_land_on_the_ground() {
    let mut w = gravity_world(false);
    let floor = ground(&mut w);
    let limb = |w: &mut World, x: f32| {
        let shape = ShapeDef::new(Shape::rect(0.4, 0.1).unwrap()).group(-3);
        w.add_body(BodyDef::dynamic().position(Vec2::new(x, 1.0)), shape)
            .unwrap()
    };
    // Overlapping limbs, each 0.8 m long, 0.5 m apart, and a two-shape torso among them.
    let mut limbs: Vec<BodyId> = (0..4).map(|i| limb(&mut w, i as f32 * 0.5)).collect();
    let torso = w
        .add_compound_body(
            BodyDef::dynamic().position(Vec2::new(0.75, 1.0)),
            &[
                ShapeDef::new(Shape::circle(0.3).unwrap()).group(-3),
                ShapeDef::new(Shape::offset_rect(0.2, 0.2, Vec2::new(0.0, 0.4), 0.0).unwrap())
                    .group(-3),
            ],
        )
        .unwrap();
    limbs.push(torso);
    let start: Vec<f32> = limbs.iter().map(|&l| w.position(l).unwrap().x).collect();
    for _ in 0..90 {
        w.step(DT).unwrap();
        for (i, &a) in limbs.iter().enumerate() {
            for &b in &limbs[i + 1..] {
                assert!(!in_contact(&w, a, b), "one group: no contact");
            }
        }
    }
    for (&l, &x) in limbs.iter().zip(&start) {
        assert!(in_contact(&w, l, floor), "every limb lands");
        // Nothing pushed the overlapping limbs apart sideways.
        assert!((w.position(l).unwrap().x - x).abs() < 1e-3);
    }
}

#[test]
fn the_same_positive_group_collides_whatever_the_masks_and_other_groups_follow_them() {
    let mut w = gravity_world(false);
    let floor = ground(&mut w);
    // Each box is in layer 2 and masks layer 1 only (the ground): boxes pass through each
    // other unless a group says otherwise.
    let boxed = |w: &mut World, x: f32, y: f32, group: i32| {
        let shape = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap())
            .layers(2)
            .mask(1)
            .group(group);
        w.add_body(BodyDef::dynamic().position(Vec2::new(x, y)), shape)
            .unwrap()
    };
    let (low_a, high_a) = (boxed(&mut w, 0.0, 0.5, 4), boxed(&mut w, 0.0, 1.6, 4));
    let (low_b, high_b) = (boxed(&mut w, 3.0, 0.5, 4), boxed(&mut w, 3.0, 1.6, 5));
    for _ in 0..90 {
        w.step(DT).unwrap();
    }
    assert!(
        in_contact(&w, low_a, high_a),
        "same positive group: a stack"
    );
    assert!(close(w.position(high_a).unwrap().y, 1.5, 0.01));
    assert!(
        !in_contact(&w, low_b, high_b),
        "different groups: the masks say no"
    );
    assert!(close(w.position(high_b).unwrap().y, 0.5, 0.01));
    assert!(in_contact(&w, high_b, floor));
}

#[test]
fn the_pair_filter_vetoes_a_pair_and_set_filter_drops_a_contact_in_the_next_step() {
    let mut w = gravity_world(false);
    let floor = ground(&mut w);
    let kept = unit_box(&mut w, Vec2::new(-2.0, 0.5));
    let vetoed = unit_box(&mut w, Vec2::new(2.0, 0.5));
    let moved = unit_box(&mut w, Vec2::new(0.0, 0.5));
    w.step(DT).unwrap();
    assert!(in_contact(&w, floor, vetoed));
    // Vetoes the floor with `vetoed` and with every body added after `moved`.
    let last = moved.slot();
    w.set_pair_filter(move |a, b| !(a == floor && (b == vetoed || b.slot() > last)))
        .unwrap();
    // Layer 2 only, which the floor's mask takes but whose own mask leaves out the floor.
    w.set_filter(moved, 2, !1, 0).unwrap();
    w.step(DT).unwrap();
    let ends = w.contact_events().end();
    for gone in [vetoed, moved] {
        assert!(!in_contact(&w, floor, gone));
        assert!(ends.iter().any(|e| (e.a, e.b) == (floor, gone)));
    }
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    assert!(in_contact(&w, floor, kept));
    assert!(close(w.position(kept).unwrap().y, 0.5, 0.01));
    assert!(w.position(vetoed).unwrap().y < 0.0 && w.position(moved).unwrap().y < 0.0);
    // A later box falls through the floor while the filter stands, and rests on it once it
    // is cleared.
    let later = unit_box(&mut w, Vec2::new(-4.0, 0.5));
    w.step(DT).unwrap();
    assert!(!in_contact(&w, floor, later));
    w.clear_pair_filter();
    w.set_transform(later, Vec2::new(-4.0, 0.5), 0.0).unwrap();
    w.set_linear_velocity(later, Vec2::ZERO).unwrap();
    for _ in 0..30 {
        w.step(DT).unwrap();
    }
    assert!(in_contact(&w, floor, later));
    assert!(close(w.position(later).unwrap().y, 0.5, 0.01));
}

#[test]
fn a_pair_filter_gives_the_same_world_on_every_thread_count() {
    let run = |threads: usize| {
        let mut w = World::new(WorldSettings {
            threads,
            ..WorldSettings::default()
        });
        ground(&mut w);
        for i in 0..200 {
            let (x, y) = ((i % 10) as f32 * 0.9 - 4.5, 0.5 + (i / 10) as f32 * 0.9);
            unit_box(&mut w, Vec2::new(x, y));
        }
        // Keeps a pair by the parity of its slots' sum: half the boxes pass through.
        w.set_pair_filter(|a, b| (a.slot() + b.slot()) % 3 != 0)
            .unwrap();
        for _ in 0..60 {
            w.step(DT).unwrap();
        }
        body_state_bits(&w)
    };
    assert_eq!(run(1), run(2));
    assert_eq!(run(1), run(4));
}

#[test]
fn a_panicking_pair_filter_fails_the_step_and_leaves_the_world_as_it_was() {
    let mut w = gravity_world(false);
    ground(&mut w);
    let b = unit_box(&mut w, Vec2::new(0.0, 0.5));
    w.step(DT).unwrap();
    let before = body_state_bits(&w);
    w.set_pair_filter(|_, _| panic!("no pairs today")).unwrap();
    let err = w.step(DT).unwrap_err();
    assert!(matches!(&err, Error::HookPanicked(m) if m.contains("no pairs today")));
    assert_eq!(body_state_bits(&w), before);
    w.clear_pair_filter();
    w.step(DT).unwrap();
    assert!(close(w.position(b).unwrap().y, 0.5, 0.01));
}

#[test]
fn filters_refuse_a_group_on_a_sensor_and_stale_handles() {
    let mut w = world();
    let sensor = ShapeDef::new(Shape::circle(1.0).unwrap()).sensor(true);
    assert!(matches!(
        w.add_body(BodyDef::fixed(), sensor.clone().group(-1)),
        Err(Error::InvalidParameter(_))
    ));
    let s = w.add_body(BodyDef::fixed(), sensor).unwrap();
    assert!(matches!(
        w.set_filter(s, 1, u32::MAX, 2),
        Err(Error::InvalidParameter(_))
    ));
    w.set_filter(s, 4, 4, 0).unwrap();
    let b = unit_box(&mut w, Vec2::ZERO);
    w.remove_body(b).unwrap();
    assert_eq!(w.set_filter(b, 1, 1, 0), Err(Error::InvalidBody));
    assert_eq!(w.set_enabled(b, false), Err(Error::InvalidBody));
    assert_eq!(w.is_enabled(b), Err(Error::InvalidBody));
}
