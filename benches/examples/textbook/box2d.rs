//! The situations of `tests/textbook/cases.rs` set up again in Box2D v3 (the C library, through
//! `boxdd-sys`), one function per case with the same name, bodies, sizes, densities, friction,
//! restitution, speeds, gravity and number of steps, each measured the way its batch2d twin
//! measures it, so that the `textbook` example can print Box2D's answer beside batch2d's and
//! rapier2d's. Built in the style of the scenes bench's `box2d_scenes`.
//!
//! Every world steps at dt = `DT` with 4 substeps (Box2D's recommended count and batch2d's
//! default), on one worker, with sleeping off for the world and every body. The rest of
//! `b2DefaultWorldDef` stays as Box2D ships it (contact hertz 30, continuous collision on),
//! except:
//!
//! - `restitutionThreshold` is the case's batch2d `restitution_threshold`: 0 where `cases.rs`
//!   sets 0, and batch2d's default, 1 m/s (Box2D's default too), where it keeps the default;
//! - restitution mixes by the minimum (`restitutionCallback`), as batch2d's
//!   `restitution_mixing` defaults to; Box2D's own default, the maximum, would turn the
//!   0.8 ball on the 0.3 floor into 0.8. Friction keeps Box2D's default mixing, the geometric
//!   mean, which is batch2d's `friction_mixing`.

use crate::cases::{Motion, DT, G};
use boxdd_sys::ffi::*;

/// Substeps per step.
const SUBSTEPS: i32 = 4;
/// batch2d's default `restitution_threshold` (m/s), used where a case keeps the default.
const DEFAULT_THRESHOLD: f32 = 1.0;

/// Restitution mixed by the minimum, as batch2d mixes it by default.
unsafe extern "C" fn min_restitution(a: f32, _: u64, b: f32, _: u64) -> f32 {
    a.min(b)
}

/// A Box2D world, destroyed when dropped.
struct World(b2WorldId);

impl World {
    /// A world with gravity `g` (m/s², downwards) and a bounce threshold `threshold` (m/s).
    fn new(g: f32, threshold: f32) -> World {
        // SAFETY: plain C calls on a definition initialised by Box2D itself.
        let id = unsafe {
            let mut def = b2DefaultWorldDef();
            def.gravity = b2Vec2 { x: 0.0, y: -g };
            def.restitutionThreshold = threshold;
            def.restitutionCallback = Some(min_restitution);
            def.enableSleep = false;
            def.workerCount = 1;
            b2CreateWorld(&def)
        };
        World(id)
    }

    fn step(&mut self) {
        // SAFETY: the world is alive.
        unsafe { b2World_Step(self.0, DT, SUBSTEPS) };
    }

    fn run(&mut self, steps: usize) {
        for _ in 0..steps {
            self.step();
        }
    }

    /// A body of `type_` at `p`, turned by `angle`, moving at `v` and spinning at `w`, with one
    /// shape of the given material.
    #[allow(clippy::too_many_arguments)]
    fn body(
        &mut self,
        type_: b2BodyType,
        p: [f32; 2],
        angle: f32,
        v: [f32; 2],
        w: f32,
        shape: Shape,
        (density, friction, restitution): (f32, f32, f32),
    ) -> Body {
        // SAFETY: the world is alive; the definitions come from Box2D's defaults.
        let id = unsafe {
            let mut def = b2DefaultBodyDef();
            def.type_ = type_;
            def.position = b2Vec2 { x: p[0], y: p[1] };
            def.rotation = b2Rot {
                c: angle.cos(),
                s: angle.sin(),
            };
            def.linearVelocity = b2Vec2 { x: v[0], y: v[1] };
            def.angularVelocity = w;
            def.enableSleep = false;
            let body = b2CreateBody(self.0, &def);
            let mut s = b2DefaultShapeDef();
            s.density = density;
            s.material.friction = friction;
            s.material.restitution = restitution;
            match shape {
                Shape::Box(hx, hy) => {
                    let polygon = b2MakeBox(hx, hy);
                    b2CreatePolygonShape(body, &s, &polygon);
                }
                Shape::Circle(r) => {
                    let circle = b2Circle {
                        center: b2Vec2 { x: 0.0, y: 0.0 },
                        radius: r,
                    };
                    b2CreateCircleShape(body, &s, &circle);
                }
            }
            body
        };
        Body(id)
    }

    /// A dynamic body at `p` moving at `v`.
    fn dynamic(
        &mut self,
        p: [f32; 2],
        v: [f32; 2],
        shape: Shape,
        material: (f32, f32, f32),
    ) -> Body {
        self.body(b2BodyType_b2_dynamicBody, p, 0.0, v, 0.0, shape, material)
    }

    /// A fixed floor whose top face is at y = 0.
    fn floor(&mut self, friction: f32, restitution: f32) {
        self.body(
            b2BodyType_b2_staticBody,
            [0.0, -1.0],
            0.0,
            [0.0; 2],
            0.0,
            Shape::Box(200.0, 1.0),
            (1.0, friction, restitution),
        );
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed only here.
        unsafe { b2DestroyWorld(self.0) };
    }
}

#[derive(Clone, Copy)]
enum Shape {
    /// A box of these half-extents.
    Box(f32, f32),
    /// A circle of this radius.
    Circle(f32),
}

/// A body of a live world; every case reads its bodies only while their world is alive and
/// destroys none of them.
#[derive(Clone, Copy)]
struct Body(b2BodyId);

impl Body {
    fn position(self) -> [f32; 2] {
        // SAFETY: see `Body`.
        let p = unsafe { b2Body_GetPosition(self.0) };
        [p.x, p.y]
    }

    fn velocity(self) -> [f32; 2] {
        // SAFETY: see `Body`.
        let v = unsafe { b2Body_GetLinearVelocity(self.0) };
        [v.x, v.y]
    }

    fn spin(self) -> f32 {
        // SAFETY: see `Body`.
        unsafe { b2Body_GetAngularVelocity(self.0) }
    }

    fn angle(self) -> f32 {
        // SAFETY: see `Body`.
        let q = unsafe { b2Body_GetRotation(self.0) };
        q.s.atan2(q.c)
    }

    /// Box2D's own mass and rotational inertia (about the centre of mass) of the body.
    fn mass(self) -> (f64, f64) {
        // SAFETY: see `Body`.
        unsafe {
            (
                b2Body_GetMass(self.0) as f64,
                b2Body_GetRotationalInertia(self.0) as f64,
            )
        }
    }
}

/// The bodies' kinetic energy and momenta, each body with Box2D's own mass and inertia.
fn motion(bodies: &[Body]) -> Motion {
    let mut out = Motion::zero();
    for &b in bodies {
        out.add(b.mass(), b.velocity(), b.position(), b.spin());
    }
    out
}

fn dot(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}

/// See [`crate::cases::flat_bounce`]: the velocity and the spin.
pub fn flat_bounce(hx: f32, hy: f32, speed: f32) -> ([f32; 2], f32) {
    let mut world = World::new(0.0, 0.0);
    world.floor(0.0, 1.0);
    let b = world.dynamic(
        [0.0, hy + 0.5],
        [0.0, -speed],
        Shape::Box(hx, hy),
        (1.0, 0.0, 1.0),
    );
    world.run(30);
    (b.velocity(), b.spin())
}

/// See [`crate::cases::rebound_ratio`].
pub fn rebound_ratio(e_ball: f32, e_floor: f32, speed: f32, threshold: f32) -> f32 {
    let mut world = World::new(0.0, threshold);
    world.floor(0.0, e_floor);
    let b = world.dynamic(
        [0.0, 1.0],
        [0.0, -speed],
        Shape::Circle(0.25),
        (1.0, 0.0, e_ball),
    );
    world.run((0.75 / speed / DT) as usize + 60);
    b.velocity()[1] / speed
}

/// See [`crate::cases::box_hit`].
pub fn box_hit(offset: f32, e: f32) -> (f64, [f64; 2]) {
    let mut world = World::new(0.0, 0.0);
    let mut add = |x: f32, y: f32, vx: f32| {
        world.dynamic([x, y], [vx, 0.0], Shape::Box(0.5, 0.5), (1.0, 0.0, e))
    };
    let bodies = [add(-1.0, 0.0, 3.0), add(1.0, offset, -3.0)];
    let before = motion(&bodies);
    world.run(60);
    let after = motion(&bodies);
    (after.energy / before.energy, after.momentum)
}

/// See [`crate::cases::free_spin`] (`ShapeDef`'s defaults there: density 1, friction 0.6,
/// restitution 0). Box2D caps a body's angular speed at an eighth of a turn per step
/// (`B2_MAX_ROTATION`, 47 rad/s at 60 Hz) unless the body allows fast rotation; the case keeps
/// that default, as rapier's twin keeps rapier's (the same cap) and batch2d keeps its own.
pub fn free_spin(w: f32, steps: usize) -> f64 {
    let mut world = World::new(0.0, 0.0);
    let b = world.body(
        b2BodyType_b2_dynamicBody,
        [0.0; 2],
        0.0,
        [0.0; 2],
        w,
        Shape::Box(0.5, 0.1),
        (1.0, 0.6, 0.0),
    );
    let mut turned = 0.0f64;
    let mut last = b.angle() as f64;
    for _ in 0..steps {
        world.step();
        let now = b.angle() as f64;
        // Less than half a turn per step: the nearest equivalent difference is the turn.
        let d = now - last;
        turned += d - std::f64::consts::TAU * (d / std::f64::consts::TAU).round();
        last = now;
    }
    turned
}

/// See [`crate::cases::corner_hit`].
pub fn corner_hit(offset: f32) -> (f64, f64) {
    let mut world = World::new(0.0, 0.0);
    let ball = world.dynamic(
        [-2.0, offset],
        [5.0, 0.0],
        Shape::Circle(0.25),
        (2.0, 0.0, 1.0),
    );
    let cube = world.dynamic([0.0; 2], [0.0; 2], Shape::Box(0.5, 0.5), (1.0, 0.0, 1.0));
    let before = motion(&[ball, cube]);
    world.run(30);
    let after = motion(&[ball, cube]);
    (
        after.angular_momentum / before.angular_momentum,
        after.energy / before.energy,
    )
}

/// Equal balls of radius 0.5 (density 1, restitution 1, no friction) at the given positions
/// and velocities, without gravity (see `balls` in `cases.rs`).
fn balls(world: &mut World, at: &[([f32; 2], [f32; 2])]) -> Vec<Body> {
    at.iter()
        .map(|&(p, v)| world.dynamic(p, v, Shape::Circle(0.5), (1.0, 0.0, 1.0)))
        .collect()
}

/// See [`crate::cases::cradle`].
pub fn cradle(count: usize, speed: f32, gap: f32) -> Vec<f32> {
    let mut world = World::new(0.0, 0.0);
    let mut at = vec![([-2.0, 0.0], [speed, 0.0])];
    for i in 1..count {
        at.push(([(i - 1) as f32 * (1.0 + gap), 0.0], [0.0; 2]));
    }
    let ids = balls(&mut world, &at);
    world.run(30);
    ids.iter().map(|b| b.velocity()[0] / speed).collect()
}

/// See [`crate::cases::pool_break`].
pub fn pool_break() -> (f64, f64) {
    let mut world = World::new(0.0, 0.0);
    let at = crate::cases::pool_rack();
    let bodies = balls(&mut world, &at);
    let before = motion(&bodies);
    world.run(60);
    let after = motion(&bodies);
    after.against(&before)
}

/// See [`crate::cases::bounce_heights`].
pub fn bounce_heights(e: f32, height: f32, bounces: usize) -> Vec<f32> {
    let mut world = World::new(G, 0.0);
    world.floor(0.0, 1.0);
    let r = 0.25;
    let ball = world.dynamic([0.0, r + height], [0.0; 2], Shape::Circle(r), (1.0, 0.0, e));
    let mut apexes = Vec::new();
    let (mut last_vy, mut steps) = (0.0, 0);
    while apexes.len() < bounces && steps < 6000 {
        world.step();
        steps += 1;
        let vy = ball.velocity()[1];
        if last_vy > 0.0 && vy <= 0.0 {
            // Just past the apex: the height free flight would take the ball back up to.
            let y = ball.position()[1] - r;
            apexes.push((y + vy * vy / (2.0 * G)) / height);
        }
        last_vy = vy;
    }
    apexes
}

/// See [`crate::cases::sliding_deceleration`].
pub fn sliding_deceleration(mu: f32, speed: f32) -> f32 {
    let mut world = World::new(G, DEFAULT_THRESHOLD);
    world.floor(mu, 0.0);
    let b = world.dynamic(
        [0.0, 0.5],
        [speed, 0.0],
        Shape::Box(0.5, 0.5),
        (1.0, mu, 0.0),
    );
    world.run(5);
    let v0 = b.velocity()[0];
    world.run(30);
    let v1 = b.velocity()[0];
    (v0 - v1) / (30.0 * DT)
}

/// See [`crate::cases::rolling`].
pub fn rolling(theta: f32) -> (f32, f32) {
    let mut world = World::new(G, DEFAULT_THRESHOLD);
    let (along, normal) = ([theta.cos(), theta.sin()], [-theta.sin(), theta.cos()]);
    world.body(
        b2BodyType_b2_staticBody,
        [normal[0] * -0.5, normal[1] * -0.5],
        theta,
        [0.0; 2],
        0.0,
        Shape::Box(100.0, 0.5),
        (1.0, 1.0, 0.0),
    );
    let r = 0.5;
    let disk = world.dynamic(
        [
            along[0] * 20.0 + normal[0] * r,
            along[1] * 20.0 + normal[1] * r,
        ],
        [0.0; 2],
        Shape::Circle(r),
        (1.0, 1.0, 0.0),
    );
    let down = [-along[0], -along[1]];
    world.run(10);
    let v0 = dot(disk.velocity(), down);
    world.run(60);
    let v1 = dot(disk.velocity(), down);
    let w = disk.spin();
    // Rolling down the slope (towards -x) turns the disk counter-clockwise: w r = v.
    let slip = (v1 - w * r).abs() / v1;
    ((v1 - v0) / (60.0 * DT), slip)
}

/// See [`crate::cases::pyramid_drift`]; Box2D runs on one worker.
pub fn pyramid_drift(rows: usize, steps: usize) -> f32 {
    let mut world = World::new(G, DEFAULT_THRESHOLD);
    world.floor(0.6, 0.0);
    let mut top = None;
    for (x, y) in crate::cases::pyramid_centres(rows) {
        top = Some(world.dynamic([x, y], [0.0; 2], Shape::Box(0.5, 0.5), (1.0, 0.6, 0.0)));
    }
    let top = top.expect("at least one row");
    world.run(steps);
    top.position()[0].abs()
}

/// See [`crate::cases::heavy_on_light`].
pub fn heavy_on_light(heavy: f32, count: usize, steps: usize) -> f32 {
    let mut world = World::new(G, DEFAULT_THRESHOLD);
    world.floor(0.6, 0.0);
    let ids: Vec<Body> = (0..=count)
        .map(|k| {
            let density = if k == count { heavy } else { 1.0 };
            world.dynamic(
                [0.0, 0.5 + k as f32],
                [0.0; 2],
                Shape::Box(0.5, 0.5),
                (density, 0.6, 0.0),
            )
        })
        .collect();
    let mut deepest = 0.0f32;
    for _ in 0..steps {
        world.step();
        let mut below = 0.0;
        for &b in &ids {
            let y = b.position()[1];
            deepest = deepest.max(below - (y - 0.5));
            below = y + 0.5;
        }
    }
    deepest
}
