//! The textbook's situations, each set up in batch2d and measured the way its law is stated.
//! Shared by the `textbook` example of the bench crate (`benches/examples/textbook`), which
//! prints them beside the analytic answers and the reference engines' answers, and by
//! `tests/physics/textbook.rs`, which asserts each against the answer it computes itself.

use batch2d::{Backend, BodyDef, BodyId, Shape, ShapeDef, Vec2, World, WorldSettings};

/// The step length of every case.
pub const DT: f32 = 1.0 / 60.0;
/// Gravity of the cases that have it (m/s²).
pub const G: f32 = 10.0;

/// Default settings without gravity and without a bounce threshold.
fn space() -> World {
    World::new(WorldSettings {
        gravity: Vec2::ZERO,
        restitution_threshold: 0.0,
        threads: 1,
        ..WorldSettings::default()
    })
}

fn run(world: &mut World, steps: usize) {
    for _ in 0..steps {
        world.step(DT).expect("a valid step");
    }
}

/// A fixed floor whose top face is at y = 0.
fn floor(world: &mut World, friction: f32, restitution: f32) {
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(200.0, 1.0).unwrap())
                .friction(friction)
                .restitution(restitution),
        )
        .expect("a valid floor");
}

/// Mass and rotational inertia of `shape` at `density`.
fn mass_of(shape: &Shape, density: f32) -> (f64, f64) {
    let m = shape.mass_data(density);
    (m.mass as f64, m.rotational_inertia as f64)
}

/// Kinetic energy, linear momentum and angular momentum about the origin of a set of bodies,
/// each with its mass and rotational inertia.
pub struct Motion {
    pub energy: f64,
    pub momentum: [f64; 2],
    pub angular_momentum: f64,
}

impl Motion {
    /// Nothing moving.
    pub fn zero() -> Motion {
        Motion {
            energy: 0.0,
            momentum: [0.0; 2],
            angular_momentum: 0.0,
        }
    }

    /// Adds a body of mass `m` and rotational inertia `i` at `p`, moving at `v` and spinning at
    /// `w`. Shared with `rapier.rs`, so that both engines' bodies are summed the same way.
    pub fn add(&mut self, (m, i): (f64, f64), v: [f32; 2], p: [f32; 2], w: f32) {
        let w = w as f64;
        let (vx, vy, x, y) = (v[0] as f64, v[1] as f64, p[0] as f64, p[1] as f64);
        self.energy += 0.5 * m * (vx * vx + vy * vy) + 0.5 * i * w * w;
        self.momentum[0] += m * vx;
        self.momentum[1] += m * vy;
        self.angular_momentum += m * (x * vy - y * vx) + i * w;
    }

    /// Kinetic energy over `before`'s, and the change of linear momentum over `before`'s x
    /// momentum (the pool break's cue's).
    pub fn against(&self, before: &Motion) -> (f64, f64) {
        let dp =
            (self.momentum[0] - before.momentum[0]).hypot(self.momentum[1] - before.momentum[1]);
        (self.energy / before.energy, dp / before.momentum[0])
    }
}

fn motion(world: &World, bodies: &[(BodyId, (f64, f64))]) -> Motion {
    let mut out = Motion::zero();
    for &(id, mass) in bodies {
        let v = world.linear_velocity(id).unwrap();
        let p = world.position(id).unwrap();
        let w = world.angular_velocity(id).unwrap();
        out.add(mass, [v.x, v.y], [p.x, p.y], w);
    }
    out
}

/// A box of half-extents `hx`, `hy` dropped flat at `speed` onto a fixed floor, both of
/// restitution 1 and no friction, without gravity: its velocity and spin after the bounce.
pub fn flat_bounce(hx: f32, hy: f32, speed: f32) -> (Vec2, f32) {
    let mut world = space();
    floor(&mut world, 0.0, 1.0);
    let b = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.0, hy + 0.5))
                .linear_velocity(Vec2::new(0.0, -speed)),
            ShapeDef::new(Shape::rect(hx, hy).unwrap())
                .friction(0.0)
                .restitution(1.0),
        )
        .unwrap();
    run(&mut world, 30);
    (
        world.linear_velocity(b).unwrap(),
        world.angular_velocity(b).unwrap(),
    )
}

/// A ball of restitution `e_ball` hits a floor of restitution `e_floor` head-on at `speed`,
/// without gravity, with a bounce threshold `threshold`: its speed after over its speed before.
pub fn rebound_ratio(e_ball: f32, e_floor: f32, speed: f32, threshold: f32) -> f32 {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        restitution_threshold: threshold,
        threads: 1,
        ..WorldSettings::default()
    });
    floor(&mut world, 0.0, e_floor);
    let b = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.0, 1.0))
                .linear_velocity(Vec2::new(0.0, -speed)),
            ShapeDef::new(Shape::circle(0.25).unwrap())
                .friction(0.0)
                .restitution(e_ball),
        )
        .unwrap();
    // Time to cross the 0.75 m gap, and a second more.
    run(&mut world, (0.75 / speed / DT) as usize + 60);
    world.linear_velocity(b).unwrap().y / speed
}

/// Two 1 m boxes of restitution `e`, no friction, meet at 3 m/s each without gravity, B
/// offset sideways by `offset`: kinetic energy after over before, and the linear momentum
/// after (it is zero before).
// The bench example prints these ratios; tests/physics/textbook.rs reads the velocities too.
#[cfg_attr(test, allow(dead_code))]
pub fn box_hit(offset: f32, e: f32) -> (f64, [f64; 2]) {
    let (energy, momentum, _) = box_hit_velocities(offset, e);
    (energy, momentum)
}

/// [`box_hit`], and the velocities of A (from the left) and B after it, which show that the
/// boxes did meet.
pub fn box_hit_velocities(offset: f32, e: f32) -> (f64, [f64; 2], [Vec2; 2]) {
    let mut world = space();
    let shape = Shape::rect(0.5, 0.5).unwrap();
    let mass = mass_of(&shape, 1.0);
    let def = ShapeDef::new(shape).friction(0.0).restitution(e);
    let mut add = |x: f32, y: f32, vx: f32| {
        world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(x, y))
                    .linear_velocity(Vec2::new(vx, 0.0)),
                def.clone(),
            )
            .unwrap()
    };
    let bodies = [(add(-1.0, 0.0, 3.0), mass), (add(1.0, offset, -3.0), mass)];
    let before = motion(&world, &bodies);
    run(&mut world, 60);
    let after = motion(&world, &bodies);
    let velocities = bodies.map(|(id, _)| world.linear_velocity(id).unwrap());
    (after.energy / before.energy, after.momentum, velocities)
}

/// The angle (unwrapped) that a free box spinning at `w` turns through in `steps` steps.
pub fn free_spin(w: f32, steps: usize) -> f64 {
    let mut world = space();
    let b = world
        .add_body(
            BodyDef::dynamic().angular_velocity(w),
            ShapeDef::new(Shape::rect(0.5, 0.1).unwrap()),
        )
        .unwrap();
    let mut turned = 0.0f64;
    let mut last = world.angle(b).unwrap() as f64;
    for _ in 0..steps {
        world.step(DT).unwrap();
        let angle = world.angle(b).unwrap() as f64;
        // Less than half a turn per step: the nearest equivalent difference is the turn.
        let d = angle - last;
        turned += d - std::f64::consts::TAU * (d / std::f64::consts::TAU).round();
        last = angle;
    }
    turned
}

/// A ball (radius 0.25, density 2) at 5 m/s hits a free 1 m box `offset` off its centre line,
/// no friction, restitution 1, without gravity: angular momentum about the origin after over
/// before, and kinetic energy after over before.
// The bench example prints these ratios; tests/physics/textbook.rs reads the velocities too.
#[cfg_attr(test, allow(dead_code))]
pub fn corner_hit(offset: f32) -> (f64, f64) {
    let (l, e, _) = corner_hit_struck(offset);
    (l, e)
}

/// [`corner_hit`], and the box's velocity after it, which shows that the ball did hit it.
pub fn corner_hit_struck(offset: f32) -> (f64, f64, Vec2) {
    let mut world = space();
    let ball_shape = Shape::circle(0.25).unwrap();
    let box_shape = Shape::rect(0.5, 0.5).unwrap();
    let ball = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(-2.0, offset))
                .linear_velocity(Vec2::new(5.0, 0.0)),
            ShapeDef::new(ball_shape.clone())
                .density(2.0)
                .friction(0.0)
                .restitution(1.0),
        )
        .unwrap();
    let cube = world
        .add_body(
            BodyDef::dynamic(),
            ShapeDef::new(box_shape.clone())
                .friction(0.0)
                .restitution(1.0),
        )
        .unwrap();
    let bodies = [
        (ball, mass_of(&ball_shape, 2.0)),
        (cube, mass_of(&box_shape, 1.0)),
    ];
    let before = motion(&world, &bodies);
    run(&mut world, 30);
    let after = motion(&world, &bodies);
    (
        after.angular_momentum / before.angular_momentum,
        after.energy / before.energy,
        world.linear_velocity(cube).unwrap(),
    )
}

/// Equal balls of radius 0.5 (density 1, restitution 1, no friction) at the given positions
/// and velocities, without gravity.
fn balls(world: &mut World, at: &[(Vec2, Vec2)]) -> Vec<(BodyId, (f64, f64))> {
    let shape = Shape::circle(0.5).unwrap();
    at.iter()
        .map(|&(p, v)| {
            let def = ShapeDef::new(shape.clone()).friction(0.0).restitution(1.0);
            let id = world
                .add_body(BodyDef::dynamic().position(p).linear_velocity(v), def)
                .unwrap();
            (id, mass_of(&shape, 1.0))
        })
        .collect()
}

/// Newton's cradle: a striker at `speed` into `count - 1` balls in a row, `gap` apart. Every
/// ball's velocity along the row after the hit, over `speed`.
pub fn cradle(count: usize, speed: f32, gap: f32) -> Vec<f32> {
    let mut world = space();
    let mut at = vec![(Vec2::new(-2.0, 0.0), Vec2::new(speed, 0.0))];
    for i in 1..count {
        at.push((Vec2::new((i - 1) as f32 * (1.0 + gap), 0.0), Vec2::ZERO));
    }
    let ids = balls(&mut world, &at);
    run(&mut world, 30);
    ids.iter()
        .map(|&(id, _)| world.linear_velocity(id).unwrap().x / speed)
        .collect()
}

/// A pool break: a cue ball at 10 m/s into a triangle of 15 touching balls. Kinetic energy
/// after over before, and the change of linear momentum over the cue's momentum.
// The bench example prints these ratios; tests/physics/textbook.rs reads the velocities too.
#[cfg_attr(test, allow(dead_code))]
pub fn pool_break() -> (f64, f64) {
    let (energy, momentum, _) = pool_break_velocities();
    (energy, momentum)
}

/// [`pool_break`], and every ball's velocity after it, the cue's first, in the order of
/// [`pool_rack`]: they show that the cue did break the triangle.
pub fn pool_break_velocities() -> (f64, f64, Vec<Vec2>) {
    let mut world = space();
    let at: Vec<(Vec2, Vec2)> = pool_rack()
        .into_iter()
        .map(|(p, v)| (Vec2::new(p[0], p[1]), Vec2::new(v[0], v[1])))
        .collect();
    let bodies = balls(&mut world, &at);
    let before = motion(&world, &bodies);
    run(&mut world, 60);
    let after = motion(&world, &bodies);
    let (energy, momentum) = after.against(&before);
    let velocities = bodies
        .iter()
        .map(|&(id, _)| world.linear_velocity(id).unwrap());
    (energy, momentum, velocities.collect())
}

/// The pool break's balls, position and velocity: the cue at 10 m/s, then the triangle of 15
/// touching balls of radius 0.5.
pub fn pool_rack() -> Vec<([f32; 2], [f32; 2])> {
    let mut at = vec![([-5.0, 0.0], [10.0, 0.0])];
    let row_step = 3f32.sqrt() * 0.5;
    for row in 0..5 {
        for k in 0..=row {
            let y = k as f32 - row as f32 * 0.5;
            at.push(([row as f32 * row_step, y], [0.0; 2]));
        }
    }
    at
}

/// A ball of restitution `e` dropped from `height` onto a floor of restitution 1, gravity 10:
/// the height of each of the first `bounces` apexes over the drop height.
pub fn bounce_heights(e: f32, height: f32, bounces: usize) -> Vec<f32> {
    let mut world = World::new(WorldSettings {
        restitution_threshold: 0.0,
        threads: 1,
        ..WorldSettings::default()
    });
    floor(&mut world, 0.0, 1.0);
    let r = 0.25;
    let ball = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, r + height)),
            ShapeDef::new(Shape::circle(r).unwrap())
                .friction(0.0)
                .restitution(e),
        )
        .unwrap();
    let mut apexes = Vec::new();
    let (mut last_vy, mut steps) = (0.0, 0);
    while apexes.len() < bounces && steps < 6000 {
        world.step(DT).unwrap();
        steps += 1;
        let vy = world.linear_velocity(ball).unwrap().y;
        if last_vy > 0.0 && vy <= 0.0 {
            // Just past the apex: the height it reached is where free flight would take the
            // ball back up to.
            let y = world.position(ball).unwrap().y - r;
            apexes.push((y + vy * vy / (2.0 * G)) / height);
        }
        last_vy = vy;
    }
    apexes
}

/// A 1 m box with friction `mu` (on a floor of friction `mu`) launched sideways at `speed`,
/// gravity 10: its deceleration while it slides (m/s²), measured over half a second once the
/// contact has formed.
pub fn sliding_deceleration(mu: f32, speed: f32) -> f32 {
    let mut world = World::new(WorldSettings {
        threads: 1,
        ..WorldSettings::default()
    });
    floor(&mut world, mu, 0.0);
    let b = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.0, 0.5))
                .linear_velocity(Vec2::new(speed, 0.0)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).friction(mu),
        )
        .unwrap();
    run(&mut world, 5);
    let v0 = world.linear_velocity(b).unwrap().x;
    run(&mut world, 30);
    let v1 = world.linear_velocity(b).unwrap().x;
    (v0 - v1) / (30.0 * DT)
}

/// A disk (radius 0.5) released on a fixed slope of `theta` radians with enough friction to
/// roll: its acceleration along the slope (m/s²), and how far its contact point slips (the
/// speed of the contact point over the speed of the centre) after one second.
pub fn rolling(theta: f32) -> (f32, f32) {
    let mut world = World::new(WorldSettings {
        threads: 1,
        ..WorldSettings::default()
    });
    let (along, normal) = (
        Vec2::new(theta.cos(), theta.sin()),
        Vec2::new(-theta.sin(), theta.cos()),
    );
    world
        .add_body(
            BodyDef::fixed().position(normal * -0.5).angle(theta),
            ShapeDef::new(Shape::rect(100.0, 0.5).unwrap()).friction(1.0),
        )
        .unwrap();
    let r = 0.5;
    let disk = world
        .add_body(
            BodyDef::dynamic().position(along * 20.0 + normal * r),
            ShapeDef::new(Shape::circle(r).unwrap()).friction(1.0),
        )
        .unwrap();
    let down = -along;
    run(&mut world, 10);
    let v0 = world.linear_velocity(disk).unwrap().dot(down);
    run(&mut world, 60);
    let v1 = world.linear_velocity(disk).unwrap().dot(down);
    let w = world.angular_velocity(disk).unwrap();
    // Rolling down the slope (towards -x) turns the disk counter-clockwise: w r = v.
    let slip = (v1 - w * r).abs() / v1;
    ((v1 - v0) / (60.0 * DT), slip)
}

/// The centres of a pyramid of `rows` rows of 1 m boxes standing on `y = 0`, each row centred
/// on `x = 0`: bottom row first, the top box last. Every engine's pyramid is built from these.
pub fn pyramid_centres(rows: usize) -> impl Iterator<Item = (f32, f32)> {
    (0..rows).flat_map(move |row| {
        let count = rows - row;
        (0..count).map(move |i| (i as f32 - (count as f32 - 1.0) * 0.5, 0.5 + row as f32))
    })
}

/// A pyramid of `rows` rows of 1 m boxes (friction 0.6) on a fixed floor, rows centred: how
/// far the top box has moved sideways after `steps` steps.
pub fn pyramid_drift(rows: usize, steps: usize, backend: Backend, threads: usize) -> f32 {
    let mut world = World::new(WorldSettings {
        backend,
        threads,
        ..WorldSettings::default()
    });
    floor(&mut world, 0.6, 0.0);
    let mut top = None;
    for (x, y) in pyramid_centres(rows) {
        let def = BodyDef::dynamic().position(Vec2::new(x, y));
        let shape = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).friction(0.6);
        top = Some(world.add_body(def, shape).unwrap());
    }
    let top = top.expect("at least one row");
    run(&mut world, steps);
    world.position(top).unwrap().x.abs()
}

/// A box of `heavy` kg/m² on a column of `count` 1 m boxes of density 1 on a fixed floor: the
/// deepest overlap between neighbours, or with the floor, over `steps` steps.
pub fn heavy_on_light(heavy: f32, count: usize, steps: usize) -> f32 {
    let mut world = World::new(WorldSettings::default());
    floor(&mut world, 0.6, 0.0);
    let ids: Vec<BodyId> = (0..=count)
        .map(|k| {
            let density = if k == count { heavy } else { 1.0 };
            world
                .add_body(
                    BodyDef::dynamic().position(Vec2::new(0.0, 0.5 + k as f32)),
                    ShapeDef::new(Shape::rect(0.5, 0.5).unwrap())
                        .density(density)
                        .friction(0.6),
                )
                .unwrap()
        })
        .collect();
    let mut deepest = 0.0f32;
    for _ in 0..steps {
        world.step(DT).unwrap();
        let mut below = 0.0;
        for &id in &ids {
            let y = world.position(id).unwrap().y;
            deepest = deepest.max(below - (y - 0.5));
            below = y + 0.5;
        }
    }
    deepest
}
