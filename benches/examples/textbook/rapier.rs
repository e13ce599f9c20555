//! The situations of `tests/textbook/cases.rs` set up again in rapier2d, one function per case
//! with the same name, bodies, sizes, densities, friction, restitution, speeds, gravity and
//! number of steps, each measured the way its batch2d twin measures it, so that the `textbook`
//! example can print rapier2d's answer beside batch2d's. Built in the style of the scenes
//! bench's `rapier_scenes`.
//!
//! Rapier keeps its default `IntegrationParameters` apart from dt = `DT` and
//! `num_solver_iterations` = 4, which is set although it is the default: rapier's solver
//! iterations are its substeps (each integrates dt / 4 and runs
//! `num_internal_pgs_iterations` = 1 biased pass and one stabilization pass), the nearest it
//! has to batch2d's 4 substeps. batch2d runs one biased pass of its contacts per substep
//! (`WorldSettings::solve_iterations`), as rapier does at its default. Every dynamic body
//! has sleeping off, as batch2d's worlds do by default.
//!
//! Materials combine as batch2d combines them by default: restitution by the minimum,
//! friction by the geometric mean (see [`material`]). Rapier has no restitution threshold:
//! a contact with restitution > 0 bounces on the step it forms, whatever its speed.

use crate::cases::{Motion, DT, G};
use rapier2d::prelude::*;

/// A rapier world with gravity `g` (m/s², downwards), dt = `DT` and 4 substeps.
fn world(g: f32) -> PhysicsWorld {
    PhysicsWorld {
        gravity: Vector::new(0.0, -g),
        integration_parameters: IntegrationParameters {
            dt: DT,
            num_solver_iterations: 4,
            ..IntegrationParameters::default()
        },
        ..PhysicsWorld::default()
    }
}

fn run(world: &mut PhysicsWorld, steps: usize) {
    for _ in 0..steps {
        world.step();
    }
}

/// `collider` with the given material. Restitution combines by the minimum on both sides,
/// as batch2d's `restitution_mixing` defaults to; rapier's own default, the average, would
/// turn the 0.8 ball on the 0.3 floor into 0.55 and the 0.5 ball on the e = 1 floor into 0.75.
/// Friction combines by the geometric mean, batch2d's `friction_mixing`; every case gives
/// both sides the same friction, where any mean agrees.
fn material(
    collider: ColliderBuilder,
    density: f32,
    friction: f32,
    restitution: f32,
) -> ColliderBuilder {
    collider
        .density(density)
        .friction(friction)
        .restitution(restitution)
        .friction_combine_rule(CoefficientCombineRule::GeometricMean)
        .restitution_combine_rule(CoefficientCombineRule::Min)
}

/// A dynamic body with sleeping off.
fn dynamic(
    world: &mut PhysicsWorld,
    body: RigidBodyBuilder,
    collider: ColliderBuilder,
) -> RigidBodyHandle {
    world.insert(body.can_sleep(false), collider).0
}

/// A fixed floor whose top face is at y = 0.
fn floor(world: &mut PhysicsWorld, friction: f32, restitution: f32) {
    world.insert(
        RigidBodyBuilder::fixed().translation(Vector::new(0.0, -1.0)),
        material(
            ColliderBuilder::cuboid(200.0, 1.0),
            1.0,
            friction,
            restitution,
        ),
    );
}

/// The bodies' kinetic energy and momenta, each body with rapier's own mass and inertia.
fn motion(world: &PhysicsWorld, bodies: &[RigidBodyHandle]) -> Motion {
    let mut out = Motion::zero();
    for &h in bodies {
        let b = &world.bodies[h];
        let mass = (
            b.mass() as f64,
            b.mass_properties().local_mprops.principal_inertia() as f64,
        );
        let (v, p) = (b.linvel(), b.translation());
        out.add(mass, [v.x, v.y], [p.x, p.y], b.angvel());
    }
    out
}

/// See [`crate::cases::flat_bounce`].
pub fn flat_bounce(hx: f32, hy: f32, speed: f32) -> (Vector, f32) {
    let mut world = world(0.0);
    floor(&mut world, 0.0, 1.0);
    let b = dynamic(
        &mut world,
        RigidBodyBuilder::dynamic()
            .translation(Vector::new(0.0, hy + 0.5))
            .linvel(Vector::new(0.0, -speed)),
        material(ColliderBuilder::cuboid(hx, hy), 1.0, 0.0, 1.0),
    );
    run(&mut world, 30);
    (world.bodies[b].linvel(), world.bodies[b].angvel())
}

/// See [`crate::cases::rebound_ratio`], without its `threshold`: rapier has none.
pub fn rebound_ratio(e_ball: f32, e_floor: f32, speed: f32) -> f32 {
    let mut world = world(0.0);
    floor(&mut world, 0.0, e_floor);
    let b = dynamic(
        &mut world,
        RigidBodyBuilder::dynamic()
            .translation(Vector::new(0.0, 1.0))
            .linvel(Vector::new(0.0, -speed)),
        material(ColliderBuilder::ball(0.25), 1.0, 0.0, e_ball),
    );
    run(&mut world, (0.75 / speed / DT) as usize + 60);
    world.bodies[b].linvel().y / speed
}

/// See [`crate::cases::box_hit`].
pub fn box_hit(offset: f32, e: f32) -> (f64, [f64; 2]) {
    let mut world = world(0.0);
    let mut add = |x: f32, y: f32, vx: f32| {
        dynamic(
            &mut world,
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(x, y))
                .linvel(Vector::new(vx, 0.0)),
            material(ColliderBuilder::cuboid(0.5, 0.5), 1.0, 0.0, e),
        )
    };
    let bodies = [add(-1.0, 0.0, 3.0), add(1.0, offset, -3.0)];
    let before = motion(&world, &bodies);
    run(&mut world, 60);
    let after = motion(&world, &bodies);
    (after.energy / before.energy, after.momentum)
}

/// See [`crate::cases::free_spin`]. Rapier caps a body's angular speed at an eighth of a turn
/// per step (47 rad/s at 60 Hz) unless the body allows fast rotation; the case keeps that
/// default, as batch2d keeps its own cap (a quarter turn per step, 94 rad/s).
pub fn free_spin(w: f32, steps: usize) -> f64 {
    let mut world = world(0.0);
    let b = dynamic(
        &mut world,
        RigidBodyBuilder::dynamic().angvel(w),
        material(ColliderBuilder::cuboid(0.5, 0.1), 1.0, 0.6, 0.0),
    );
    let angle = |world: &PhysicsWorld| world.bodies[b].rotation().angle() as f64;
    let mut turned = 0.0f64;
    let mut last = angle(&world);
    for _ in 0..steps {
        world.step();
        let now = angle(&world);
        // Less than half a turn per step: the nearest equivalent difference is the turn.
        let d = now - last;
        turned += d - std::f64::consts::TAU * (d / std::f64::consts::TAU).round();
        last = now;
    }
    turned
}

/// See [`crate::cases::corner_hit`].
pub fn corner_hit(offset: f32) -> (f64, f64) {
    let mut world = world(0.0);
    let ball = dynamic(
        &mut world,
        RigidBodyBuilder::dynamic()
            .translation(Vector::new(-2.0, offset))
            .linvel(Vector::new(5.0, 0.0)),
        material(ColliderBuilder::ball(0.25), 2.0, 0.0, 1.0),
    );
    let cube = dynamic(
        &mut world,
        RigidBodyBuilder::dynamic(),
        material(ColliderBuilder::cuboid(0.5, 0.5), 1.0, 0.0, 1.0),
    );
    let before = motion(&world, &[ball, cube]);
    run(&mut world, 30);
    let after = motion(&world, &[ball, cube]);
    (
        after.angular_momentum / before.angular_momentum,
        after.energy / before.energy,
    )
}

/// Equal balls of radius 0.5 (density 1, restitution 1, no friction) at the given positions
/// and velocities, without gravity (see `balls` in `cases.rs`).
fn balls(world: &mut PhysicsWorld, at: &[([f32; 2], [f32; 2])]) -> Vec<RigidBodyHandle> {
    at.iter()
        .map(|&(p, v)| {
            let body = RigidBodyBuilder::dynamic()
                .translation(Vector::from(p))
                .linvel(Vector::from(v));
            dynamic(
                world,
                body,
                material(ColliderBuilder::ball(0.5), 1.0, 0.0, 1.0),
            )
        })
        .collect()
}

/// See [`crate::cases::cradle`].
pub fn cradle(count: usize, speed: f32, gap: f32) -> Vec<f32> {
    let mut world = world(0.0);
    let mut at = vec![([-2.0, 0.0], [speed, 0.0])];
    for i in 1..count {
        at.push(([(i - 1) as f32 * (1.0 + gap), 0.0], [0.0; 2]));
    }
    let ids = balls(&mut world, &at);
    run(&mut world, 30);
    ids.iter()
        .map(|&id| world.bodies[id].linvel().x / speed)
        .collect()
}

/// See [`crate::cases::pool_break`].
pub fn pool_break() -> (f64, f64) {
    let mut world = world(0.0);
    let at = crate::cases::pool_rack();
    let bodies = balls(&mut world, &at);
    let before = motion(&world, &bodies);
    run(&mut world, 60);
    let after = motion(&world, &bodies);
    after.against(&before)
}

/// See [`crate::cases::bounce_heights`].
pub fn bounce_heights(e: f32, height: f32, bounces: usize) -> Vec<f32> {
    let mut world = world(G);
    floor(&mut world, 0.0, 1.0);
    let r = 0.25;
    let ball = dynamic(
        &mut world,
        RigidBodyBuilder::dynamic().translation(Vector::new(0.0, r + height)),
        material(ColliderBuilder::ball(r), 1.0, 0.0, e),
    );
    let mut apexes = Vec::new();
    let (mut last_vy, mut steps) = (0.0, 0);
    while apexes.len() < bounces && steps < 6000 {
        world.step();
        steps += 1;
        let vy = world.bodies[ball].linvel().y;
        if last_vy > 0.0 && vy <= 0.0 {
            // Just past the apex: the height free flight would take the ball back up to.
            let y = world.bodies[ball].translation().y - r;
            apexes.push((y + vy * vy / (2.0 * G)) / height);
        }
        last_vy = vy;
    }
    apexes
}

/// See [`crate::cases::sliding_deceleration`].
pub fn sliding_deceleration(mu: f32, speed: f32) -> f32 {
    let mut world = world(G);
    floor(&mut world, mu, 0.0);
    let b = dynamic(
        &mut world,
        RigidBodyBuilder::dynamic()
            .translation(Vector::new(0.0, 0.5))
            .linvel(Vector::new(speed, 0.0)),
        material(ColliderBuilder::cuboid(0.5, 0.5), 1.0, mu, 0.0),
    );
    run(&mut world, 5);
    let v0 = world.bodies[b].linvel().x;
    run(&mut world, 30);
    let v1 = world.bodies[b].linvel().x;
    (v0 - v1) / (30.0 * DT)
}

/// See [`crate::cases::rolling`].
pub fn rolling(theta: f32) -> (f32, f32) {
    let mut world = world(G);
    let (along, normal) = (
        Vector::new(theta.cos(), theta.sin()),
        Vector::new(-theta.sin(), theta.cos()),
    );
    world.insert(
        RigidBodyBuilder::fixed()
            .translation(normal * -0.5)
            .rotation(theta),
        material(ColliderBuilder::cuboid(100.0, 0.5), 1.0, 1.0, 0.0),
    );
    let r = 0.5;
    let disk = dynamic(
        &mut world,
        RigidBodyBuilder::dynamic().translation(along * 20.0 + normal * r),
        material(ColliderBuilder::ball(r), 1.0, 1.0, 0.0),
    );
    let down = -along;
    run(&mut world, 10);
    let v0 = world.bodies[disk].linvel().dot(down);
    run(&mut world, 60);
    let v1 = world.bodies[disk].linvel().dot(down);
    let w = world.bodies[disk].angvel();
    // Rolling down the slope (towards -x) turns the disk counter-clockwise: w r = v.
    let slip = (v1 - w * r).abs() / v1;
    ((v1 - v0) / (60.0 * DT), slip)
}

/// See [`crate::cases::pyramid_drift`]; rapier runs on rayon's global pool.
pub fn pyramid_drift(rows: usize, steps: usize) -> f32 {
    let mut world = world(G);
    floor(&mut world, 0.6, 0.0);
    let mut top = None;
    for (x, y) in crate::cases::pyramid_centres(rows) {
        let body = RigidBodyBuilder::dynamic().translation(Vector::new(x, y));
        let collider = material(ColliderBuilder::cuboid(0.5, 0.5), 1.0, 0.6, 0.0);
        top = Some(dynamic(&mut world, body, collider));
    }
    let top = top.expect("at least one row");
    run(&mut world, steps);
    world.bodies[top].translation().x.abs()
}

/// See [`crate::cases::heavy_on_light`].
pub fn heavy_on_light(heavy: f32, count: usize, steps: usize) -> f32 {
    let mut world = world(G);
    floor(&mut world, 0.6, 0.0);
    let ids: Vec<RigidBodyHandle> = (0..=count)
        .map(|k| {
            let density = if k == count { heavy } else { 1.0 };
            dynamic(
                &mut world,
                RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 0.5 + k as f32)),
                material(ColliderBuilder::cuboid(0.5, 0.5), density, 0.6, 0.0),
            )
        })
        .collect();
    let mut deepest = 0.0f32;
    for _ in 0..steps {
        world.step();
        let mut below = 0.0;
        for &id in &ids {
            let y = world.bodies[id].translation().y;
            deepest = deepest.max(below - (y - 0.5));
            below = y + 0.5;
        }
    }
    deepest
}
