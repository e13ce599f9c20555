//! Forces, torques and impulses against Newton's laws: a constant force for T seconds gives
//! `v = F T / m` and the symplectic-Euler position, a torque `alpha = tau / I`, a force off the
//! centre both, an impulse at a point `dv = J / m` and `dw = (r x J) / I` exactly. Forces act
//! for one step only, do nothing to static and kinematic bodies, wake sleeping ones, refuse bad
//! input with the world unchanged, and keep every backend and thread count bit-identical.

use crate::common;

use batch2d::scenes::Scene;
use batch2d::{Backend, BodyDef, BodyId, Error, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::{ground, state_bits};

const DT: f32 = 1.0 / 60.0;
const SUBSTEPS: u32 = 4;

fn weightless() -> World {
    World::new(WorldSettings {
        gravity: Vec2::ZERO,
        substeps: SUBSTEPS,
        ..WorldSettings::default()
    })
}

/// A 1 m x 0.5 m box of density 2 at `p`: mass 1 kg, rotational inertia `m (w² + h²) / 12`.
const HALF: (f32, f32) = (0.5, 0.25);
const DENSITY: f32 = 2.0;

fn block(world: &mut World, p: Vec2) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(p),
            ShapeDef::new(Shape::rect(HALF.0, HALF.1).unwrap()).density(DENSITY),
        )
        .unwrap()
}

fn mass() -> f32 {
    DENSITY * 4.0 * HALF.0 * HALF.1
}

fn inertia() -> f32 {
    let (w, h) = (2.0 * HALF.0, 2.0 * HALF.1);
    mass() * (w * w + h * h) / 12.0
}

/// `|actual - expected| <= tolerance * |expected|`, with a message.
fn assert_relative(actual: f32, expected: f32, tolerance: f32, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance * expected.abs(),
        "{what}: {actual} vs {expected} (relative tolerance {tolerance})"
    );
}

/// The engine adds `h a` to the velocity at each of the `M` substeps and then `h v` to the
/// position, in f32: each addition rounds by at most half an ulp of the running sum, so after
/// `M` of them the relative error is at most about `M * f32::EPSILON / 2`; twice that, plus the
/// roundings of `a = F / m` and of `h`, bounds what float arithmetic can explain.
fn float_tolerance(additions: usize) -> f32 {
    (additions as f32 + 4.0) * f32::EPSILON
}

#[test]
fn a_constant_force_gives_v_equal_f_t_over_m_and_the_symplectic_euler_position() {
    let mut world = weightless();
    let body = block(&mut world, Vec2::ZERO);
    let force = Vec2::new(3.0, -1.5);
    let steps = 60;
    for _ in 0..steps {
        world.apply_force(body, force).unwrap();
        world.step(DT).unwrap();
    }
    let t = steps as f32 * DT;
    let a = force * (1.0 / mass());
    let substeps = steps * SUBSTEPS as usize;
    let tolerance = float_tolerance(substeps);
    let v = world.linear_velocity(body).unwrap();
    assert_relative(v.x, a.x * t, tolerance, "vx");
    assert_relative(v.y, a.y * t, tolerance, "vy");
    // Symplectic Euler over M substeps of h: v_k = k h a, x_M = h sum v_k = a h² M (M + 1) / 2,
    // the analytic a T² / 2 times (1 + 1 / M). That factor (0.4% here) is far beyond the float
    // tolerance, so the position tells the two apart: the engine follows the discrete law.
    let h = DT / SUBSTEPS as f32;
    let m = substeps as f32;
    let x = world.position(body).unwrap();
    let discrete = a * (h * h * m * (m + 1.0) / 2.0);
    assert_relative(x.x, discrete.x, tolerance, "x");
    assert_relative(x.y, discrete.y, tolerance, "y");
    let analytic = a * (t * t / 2.0);
    assert!((x.x - analytic.x).abs() > 100.0 * tolerance * analytic.x.abs());
    assert_eq!(world.angular_velocity(body).unwrap(), 0.0);
}

#[test]
fn a_force_acts_in_the_next_step_only_and_forces_add_up() {
    let mut world = weightless();
    let body = block(&mut world, Vec2::ZERO);
    // Two calls add up to (2, 0).
    world.apply_force(body, Vec2::new(0.5, 1.0)).unwrap();
    world.apply_force(body, Vec2::new(1.5, -1.0)).unwrap();
    assert_eq!(
        world.linear_velocity(body).unwrap(),
        Vec2::ZERO,
        "not before the step"
    );
    world.step(DT).unwrap();
    let v = world.linear_velocity(body).unwrap();
    let expected = 2.0 * DT / mass();
    assert_relative(v.x, expected, float_tolerance(SUBSTEPS as usize), "vx");
    assert_eq!(v.y, 0.0);
    // Cleared after the step: the body coasts.
    world.step(DT).unwrap();
    assert_eq!(world.linear_velocity(body).unwrap(), v);
}

#[test]
fn a_torque_gives_alpha_equal_tau_over_i() {
    let mut world = weightless();
    let body = block(&mut world, Vec2::new(1.0, 2.0));
    let torque = -0.75;
    let steps = 90;
    for _ in 0..steps {
        world.apply_torque(body, torque).unwrap();
        world.step(DT).unwrap();
    }
    let t = steps as f32 * DT;
    let w = world.angular_velocity(body).unwrap();
    // The engine's inertia comes from the polygon's mass data, the expected one from the
    // formula: they agree to a few ulps, well within the tolerance.
    let tolerance = float_tolerance(steps * SUBSTEPS as usize);
    assert_relative(w, torque / inertia() * t, tolerance, "w");
    assert_eq!(world.linear_velocity(body).unwrap(), Vec2::ZERO);
    assert_eq!(world.position(body).unwrap(), Vec2::new(1.0, 2.0));
}

#[test]
fn a_force_off_the_centre_pushes_and_turns() {
    let mut world = weightless();
    let body = block(&mut world, Vec2::ZERO);
    let force = Vec2::new(0.0, 2.0);
    // Applied 0.4 m right of the centre, wherever the centre is: r x F = 0.4 * 2.
    let r = Vec2::new(0.4, 0.0);
    let steps = 30;
    for _ in 0..steps {
        let point = world.position(body).unwrap() + r;
        world.apply_force_at_point(body, force, point).unwrap();
        world.step(DT).unwrap();
    }
    let t = steps as f32 * DT;
    let tolerance = float_tolerance(steps * SUBSTEPS as usize);
    let v = world.linear_velocity(body).unwrap();
    assert_eq!(v.x, 0.0);
    assert_relative(v.y, force.y / mass() * t, tolerance, "vy");
    let w = world.angular_velocity(body).unwrap();
    assert_relative(w, r.cross(force) / inertia() * t, tolerance, "w");
}

#[test]
fn an_impulse_at_a_point_changes_the_velocities_at_once_by_j_over_m_and_r_cross_j_over_i() {
    let mut world = weightless();
    let shape = Shape::rect(HALF.0, HALF.1).unwrap();
    let (v0, w0) = (Vec2::new(1.0, -2.0), 0.5);
    let body = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(3.0, 1.0))
                .angle(0.4)
                .linear_velocity(v0)
                .angular_velocity(w0),
            ShapeDef::new(shape.clone()).density(DENSITY),
        )
        .unwrap();
    let impulse = Vec2::new(0.3, 1.7);
    let point = Vec2::new(3.2, 0.6);
    world
        .apply_linear_impulse_at_point(body, impulse, point)
        .unwrap();
    // The same float operations as the law spelled out: nothing else may touch the velocity.
    let mass_data = shape.mass_data(DENSITY);
    let (inv_m, inv_i) = (1.0 / mass_data.mass, 1.0 / mass_data.rotational_inertia);
    let r = point - world.position(body).unwrap();
    assert_eq!(world.linear_velocity(body).unwrap(), v0 + impulse * inv_m);
    assert_eq!(
        world.angular_velocity(body).unwrap(),
        w0 + inv_i * r.cross(impulse)
    );
    // And the law with the formula's mass and inertia.
    let dv = world.linear_velocity(body).unwrap() - v0;
    let dw = world.angular_velocity(body).unwrap() - w0;
    assert_relative(dv.y, impulse.y / mass(), 1e-6, "dv");
    assert_relative(dw, r.cross(impulse) / inertia(), 1e-5, "dw");

    // An angular impulse: dw = L / I, exactly as spelled.
    let w1 = world.angular_velocity(body).unwrap();
    world.apply_angular_impulse(body, -0.2).unwrap();
    assert_eq!(world.angular_velocity(body).unwrap(), w1 + inv_i * -0.2);
    // A linear impulse at the centre: no turn.
    let (v2, w2) = (
        world.linear_velocity(body).unwrap(),
        world.angular_velocity(body).unwrap(),
    );
    world.apply_linear_impulse(body, impulse).unwrap();
    assert_eq!(world.linear_velocity(body).unwrap(), v2 + impulse * inv_m);
    assert_eq!(world.angular_velocity(body).unwrap(), w2);
}

/// Coulomb friction against a force applied every step: below `mu m g` the box stays put,
/// above it slides with `a = (F - mu m g) / m`. Forces act at every substep like gravity, so
/// friction, which holds at most `mu m g h` per substep, balances them substep by substep.
#[test]
fn friction_holds_a_pushed_box_below_mu_m_g_and_lets_it_slide_above() {
    let g = 10.0;
    let mu = 0.5;
    let run = |push: f32| -> (f32, f32) {
        let mut world = World::new(WorldSettings::default());
        world
            .add_body(
                BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
                ShapeDef::new(Shape::rect(50.0, 1.0).unwrap()).friction(mu),
            )
            .unwrap();
        let body = world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(0.0, HALF.1)),
                ShapeDef::new(Shape::rect(HALF.0, HALF.1).unwrap())
                    .density(DENSITY)
                    .friction(mu),
            )
            .unwrap();
        for _ in 0..30 {
            world.step(DT).unwrap();
        }
        let x0 = world.position(body).unwrap().x;
        let steps = 60;
        for _ in 0..steps {
            world.apply_force(body, Vec2::new(push, 0.0)).unwrap();
            world.step(DT).unwrap();
        }
        let v = world.linear_velocity(body).unwrap().x;
        (
            world.position(body).unwrap().x - x0,
            v / (steps as f32 * DT),
        )
    };
    let limit = mu * mass() * g;
    let (moved, _) = run(0.8 * limit);
    assert!(moved.abs() < 1e-4, "held by friction, moved {moved} m");
    let push = 2.0 * limit;
    let (moved, acceleration) = run(push);
    let expected = (push - limit) / mass();
    assert!(moved > 0.0);
    assert_relative(acceleration, expected, 0.02, "sliding acceleration");
}

#[test]
fn static_and_kinematic_bodies_ignore_forces_and_impulses() {
    let mut world = weightless();
    let wall = world
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::rect(1.0, 1.0).unwrap()),
        )
        .unwrap();
    let lift = world
        .add_body(
            BodyDef::kinematic()
                .position(Vec2::new(5.0, 0.0))
                .linear_velocity(Vec2::new(0.0, 1.0)),
            ShapeDef::new(Shape::rect(1.0, 1.0).unwrap()),
        )
        .unwrap();
    let before = state_bits(&world);
    let point = Vec2::new(0.5, 0.5);
    for id in [wall, lift] {
        world.apply_force(id, Vec2::new(10.0, 0.0)).unwrap();
        world
            .apply_force_at_point(id, Vec2::new(10.0, 0.0), point)
            .unwrap();
        world.apply_torque(id, 5.0).unwrap();
        world.apply_linear_impulse(id, Vec2::new(1.0, 1.0)).unwrap();
        world
            .apply_linear_impulse_at_point(id, Vec2::new(1.0, 1.0), point)
            .unwrap();
        world.apply_angular_impulse(id, 1.0).unwrap();
    }
    assert_eq!(state_bits(&world), before);
    world.step(DT).unwrap();
    assert_eq!(world.position(wall).unwrap(), Vec2::ZERO);
    assert_eq!(
        world.linear_velocity(lift).unwrap(),
        Vec2::new(0.0, 1.0),
        "the lift keeps the velocity it was given"
    );
    assert_eq!(world.angular_velocity(lift).unwrap(), 0.0);
}

#[test]
fn a_fixed_rotation_body_takes_the_force_but_not_the_torque() {
    let mut world = weightless();
    let body = world
        .add_body(
            BodyDef::dynamic().fixed_rotation(true),
            ShapeDef::new(Shape::rect(HALF.0, HALF.1).unwrap()).density(DENSITY),
        )
        .unwrap();
    world
        .apply_force_at_point(body, Vec2::new(0.0, 1.0), Vec2::new(0.5, 0.0))
        .unwrap();
    world.apply_torque(body, 3.0).unwrap();
    world.apply_angular_impulse(body, 3.0).unwrap();
    world.step(DT).unwrap();
    assert_eq!(world.angular_velocity(body).unwrap(), 0.0);
    let v = world.linear_velocity(body).unwrap();
    assert_relative(v.y, DT / mass(), float_tolerance(SUBSTEPS as usize), "vy");
}

#[test]
fn bad_input_is_refused_and_leaves_the_world_unchanged() {
    let make = || {
        let mut world = weightless();
        let body = block(&mut world, Vec2::ZERO);
        (world, body)
    };
    let (mut reference, _) = make();
    let (mut world, body) = make();
    let nan = f32::NAN;
    let bad_vectors = [
        Vec2::new(nan, 0.0),
        Vec2::new(0.0, f32::INFINITY),
        Vec2::new(f32::NEG_INFINITY, 1.0),
    ];
    let ok = Vec2::new(1.0, 1.0);
    for bad in bad_vectors {
        let refused = |r: Result<(), Error>| matches!(r, Err(Error::InvalidParameter(_)));
        assert!(refused(world.apply_force(body, bad)));
        assert!(refused(world.apply_force_at_point(body, bad, ok)));
        assert!(refused(world.apply_force_at_point(body, ok, bad)));
        assert!(refused(world.apply_linear_impulse(body, bad)));
        assert!(refused(world.apply_linear_impulse_at_point(body, bad, ok)));
        assert!(refused(world.apply_linear_impulse_at_point(body, ok, bad)));
    }
    for bad in [nan, f32::INFINITY] {
        assert!(world.apply_torque(body, bad).is_err());
        assert!(world.apply_angular_impulse(body, bad).is_err());
    }
    // Finite, but the summed force would overflow: refused, the first one kept.
    world.apply_force(body, Vec2::new(3e38, 0.0)).unwrap();
    assert!(world.apply_force(body, Vec2::new(3e38, 0.0)).is_err());
    let reference_body = reference.bodies().next().unwrap();
    reference
        .apply_force(reference_body, Vec2::new(3e38, 0.0))
        .unwrap();
    // A lever arm times a force beyond f32's range.
    let far = Vec2::new(3e38, 0.0);
    assert!(world
        .apply_force_at_point(body, Vec2::new(0.0, 3e38), far)
        .is_err());
    // An impulse that would make the velocity absurd.
    assert!(world
        .apply_linear_impulse(body, Vec2::new(3e38, 0.0))
        .is_err());
    assert!(world.apply_angular_impulse(body, 3e38).is_err());
    // A removed body's handle.
    let gone = block(&mut world, Vec2::new(5.0, 0.0));
    world.remove_body(gone).unwrap();
    assert_eq!(world.apply_force(gone, ok), Err(Error::InvalidBody));
    assert_eq!(
        world.apply_force_at_point(gone, ok, ok),
        Err(Error::InvalidBody)
    );
    assert_eq!(world.apply_torque(gone, 1.0), Err(Error::InvalidBody));
    assert_eq!(
        world.apply_linear_impulse_at_point(gone, ok, ok),
        Err(Error::InvalidBody)
    );
    assert_eq!(
        world.apply_angular_impulse(gone, 1.0),
        Err(Error::InvalidBody)
    );
    // Same bits as the world that only ever got the accepted calls.
    assert_eq!(state_bits(&world), state_bits(&reference));
    for _ in 0..3 {
        world.step(DT).unwrap();
        reference.step(DT).unwrap();
        assert_eq!(state_bits(&world), state_bits(&reference));
    }
    assert!(state_bits(&world)
        .iter()
        .all(|&b| f32::from_bits(b).is_finite()));
}

#[test]
fn a_removed_body_takes_its_force_with_it() {
    let mut world = weightless();
    let body = block(&mut world, Vec2::ZERO);
    world.apply_force(body, Vec2::new(5.0, 0.0)).unwrap();
    world.remove_body(body).unwrap();
    let newcomer = block(&mut world, Vec2::ZERO);
    assert_eq!(newcomer.slot(), body.slot());
    world.step(DT).unwrap();
    assert_eq!(world.linear_velocity(newcomer).unwrap(), Vec2::ZERO);
}

#[test]
fn forces_and_impulses_wake_a_sleeping_body() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    ground(&mut world);
    let body = block(&mut world, Vec2::new(0.0, HALF.1));
    let sleep = |world: &mut World| {
        for _ in 0..240 {
            world.step(DT).unwrap();
        }
        assert!(!world.is_awake(body).unwrap(), "the resting box sleeps");
    };
    sleep(&mut world);
    world.apply_force(body, Vec2::new(0.0, 100.0)).unwrap();
    assert!(world.is_awake(body).unwrap());
    world.step(DT).unwrap();
    assert!(world.linear_velocity(body).unwrap().y > 0.0, "lifted");

    sleep(&mut world);
    world.apply_torque(body, 1.0).unwrap();
    assert!(world.is_awake(body).unwrap());
    sleep(&mut world);
    world
        .apply_linear_impulse_at_point(body, Vec2::new(0.0, 1.0), Vec2::new(0.3, 0.3))
        .unwrap();
    assert!(world.is_awake(body).unwrap());
    sleep(&mut world);
    world.apply_angular_impulse(body, 0.5).unwrap();
    assert!(world.is_awake(body).unwrap());
}

/// A scene with tiles, colors and direct islands, every third body pushed, turned and struck
/// off centre every step.
fn forced_run(scene: Scene, backend: Backend, threads: usize) -> Vec<u32> {
    let mut world = scene
        .build(WorldSettings {
            backend,
            threads,
            ..WorldSettings::default()
        })
        .unwrap();
    let ids: Vec<BodyId> = world.bodies().collect();
    for step in 0..40 {
        for (k, &id) in ids.iter().enumerate().filter(|(k, _)| k % 3 == 0) {
            let phase = (k + step) as f32;
            let p = world.position(id).unwrap();
            world
                .apply_force(id, Vec2::new(phase.sin() * 5.0, 12.0))
                .unwrap();
            world.apply_torque(id, phase.cos()).unwrap();
            world
                .apply_force_at_point(id, Vec2::new(-2.0, 1.0), p + Vec2::new(0.2, 0.1))
                .unwrap();
        }
        world.step(DT).unwrap();
    }
    state_bits(&world)
}

#[test]
fn forces_keep_backends_and_thread_counts_bit_identical() {
    for scene in [Scene::MixedPile, Scene::ManyPyramids] {
        let reference = forced_run(scene, Backend::Simd, 1);
        for (backend, threads) in [
            (Backend::Simd, 3),
            (Backend::Scalar, 1),
            (Backend::Scalar, 2),
        ] {
            assert_eq!(
                forced_run(scene, backend, threads),
                reference,
                "{} {backend:?} {threads} threads",
                scene.name()
            );
        }
    }
}
