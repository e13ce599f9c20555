//! Physics laws: each test sets up a small situation whose outcome follows from mechanics
//! (resting contact, momentum, restitution, Coulomb friction, energy loss) and checks the engine
//! against that, never against numbers it printed before.

use crate::common;

use batch2d::{BodyDef, BodyId, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::{step, DT};
use std::f32::consts::PI;

const G: f32 = 10.0;

fn world_with_gravity(gravity: Vec2) -> World {
    World::new(WorldSettings {
        gravity,
        substeps: 4,
        ..WorldSettings::default()
    })
}

/// A wide fixed ground whose top face is at y = 0.
fn add_ground(world: &mut World, friction: f32, restitution: f32) -> BodyId {
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(50.0, 1.0).unwrap())
                .friction(friction)
                .restitution(restitution),
        )
        .unwrap()
}

#[test]
fn dropped_circle_comes_to_rest_on_the_ground_and_does_not_sink() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_ground(&mut world, 0.6, 0.0);
    let r = 0.5;
    let ball = common::ball(&mut world, Vec2::new(0.0, 2.0), r);

    // It falls 1.5 m in about 0.55 s; one second is plenty to land and settle.
    step(&mut world, 60);
    for i in 0..600 {
        world.step(DT).unwrap();
        let p = world.position(ball).unwrap();
        assert!(
            p.y >= r - 0.01,
            "step {i} after settling: centre y {} is more than 1 cm into the ground",
            p.y
        );
        assert!(
            p.y <= r + 0.01,
            "step {i} after settling: centre y {} hovers above the ground",
            p.y
        );
    }
    let v = world.linear_velocity(ball).unwrap();
    assert!(v.length() < 1e-2, "still moving after 11 s: {v:?}");
}

/// Two circles of radius 0.5 on the x axis in zero gravity with no friction; returns their
/// velocities once they have collided and separated.
fn head_on(density: [f32; 2], restitution: f32, velocity: [f32; 2]) -> [Vec2; 2] {
    let mut world = world_with_gravity(Vec2::ZERO);
    let ids: Vec<BodyId> = [-2.0f32, 2.0]
        .iter()
        .zip(density.iter().zip(velocity))
        .map(|(&x, (&rho, v))| {
            world
                .add_body(
                    BodyDef::dynamic()
                        .position(Vec2::new(x, 0.0))
                        .linear_velocity(Vec2::new(v, 0.0)),
                    ShapeDef::new(Shape::circle(0.5).unwrap())
                        .density(rho)
                        .friction(0.0)
                        .restitution(restitution),
                )
                .unwrap()
        })
        .collect();
    // Closing speed >= 3 m/s over a 3 m gap: contact within 1 s, then 1 s to separate.
    step(&mut world, 120);
    [
        world.linear_velocity(ids[0]).unwrap(),
        world.linear_velocity(ids[1]).unwrap(),
    ]
}

#[test]
fn elastic_head_on_collision_of_equal_circles_swaps_velocities() {
    let v = head_on([1.0, 1.0], 1.0, [3.0, 0.0]);
    assert!(v[0].x.abs() < 0.03, "mover should stop: {:?}", v[0]);
    assert!(
        (v[1].x - 3.0).abs() < 0.03,
        "target should take 3 m/s: {:?}",
        v[1]
    );
    assert!(v[0].y.abs() < 1e-4 && v[1].y.abs() < 1e-4, "{v:?}");
}

#[test]
fn collision_of_unequal_masses_conserves_momentum_and_obeys_restitution() {
    let (e, u) = (0.5, [4.0f32, -0.5]);
    // Same radius, so mass is proportional to density.
    let m = [1.0f32, 4.0];
    let v = head_on(m, e, u);
    let p_before = m[0] * u[0] + m[1] * u[1];
    let p_after = m[0] * v[0].x + m[1] * v[1].x;
    assert!(
        (p_after - p_before).abs() <= 1e-3 * p_before.abs(),
        "momentum {p_before} -> {p_after}"
    );
    let rel_before = u[0] - u[1];
    let rel_after = v[0].x - v[1].x;
    let want = -e * rel_before;
    assert!(
        (rel_after - want).abs() <= 0.03 * want.abs(),
        "relative velocity after {rel_after}, want {want}"
    );
}

/// A column of five circles of restitution 0 arriving together at `V0` on a fixed ground, in
/// zero gravity (so nothing falls back): each circle's velocity 60 steps after.
fn zero_restitution_column() -> Vec<Vec2> {
    let mut world = world_with_gravity(Vec2::ZERO);
    add_ground(&mut world, 0.6, 0.0);
    let r = 0.25;
    let column: Vec<BodyId> = (0..5)
        .map(|i| {
            world
                .add_body(
                    BodyDef::dynamic()
                        .position(Vec2::new(0.0, 1.0 + 0.6 * i as f32))
                        .linear_velocity(Vec2::new(0.0, -V0)),
                    ShapeDef::new(Shape::circle(r).unwrap()).restitution(0.0),
                )
                .unwrap()
        })
        .collect();
    step(&mut world, 60);
    column
        .iter()
        .map(|&id| world.linear_velocity(id).unwrap())
        .collect()
}

/// The column's impact speed (m/s).
const V0: f32 = 10.0;

/// Restitution 0 means no bounce, also when the impact goes through a chain of bodies: the
/// column (see [`zero_restitution_column`]) must end at rest against the ground, not be thrown
/// back. A perfectly inelastic stop leaves nothing; 5% of the impact speed is allowed for the
/// soft contacts.
///
/// Known limitation, so ignored: the soft step warm starts each substep with the impact
/// impulse of the one before, and one Gauss-Seidel relax pass cannot take that back along a
/// chain, so the upper circles leave at up to 27% of the impact speed (rapier2d 0.36, same
/// scene: 16-28%). `cargo test --profile ci --test physics laws:: -- --ignored` shows where it stands;
/// [`column_with_zero_restitution_bounces_no_more_than_today`] keeps it from getting worse.
#[test]
#[ignore = "soft-step limitation: chains hit at speed keep part of the warm-start push"]
fn column_with_zero_restitution_does_not_bounce_off_the_ground() {
    for (i, v) in zero_restitution_column().into_iter().enumerate() {
        assert!(
            v.length() < 0.05 * V0,
            "circle {i} of the column moves at {v:?} after an inelastic impact at {V0} m/s"
        );
    }
}

/// The bound that holds today beside the ideal above: no circle of the column leaves at more
/// than 30% of the impact speed (the top one leaves at 27% today), none goes on into the
/// ground, and none is thrown sideways.
#[test]
fn column_with_zero_restitution_bounces_no_more_than_today() {
    for (i, v) in zero_restitution_column().into_iter().enumerate() {
        let what = format!("circle {i} of the column, after an impact at {V0} m/s: {v:?}");
        assert!(v.y <= 0.3 * V0, "thrown back: {what}");
        assert!(v.y >= -0.05 * V0, "still falling: {what}");
        assert!(v.x.abs() <= 1e-3 * V0, "{what}");
    }
}

/// Drops a ball with restitution `e` whose bottom starts `h` above a ground of restitution 1 and
/// returns the height its bottom reaches after the first bounce.
fn rebound_height(e: f32, h: f32) -> f32 {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_ground(&mut world, 0.6, 1.0);
    let r = 0.5;
    let ball = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, h + r)),
            ShapeDef::new(Shape::circle(r).unwrap()).restitution(e),
        )
        .unwrap();
    let mut bounced = false;
    let mut peak = f32::MIN;
    for _ in 0..600 {
        world.step(DT).unwrap();
        let vy = world.linear_velocity(ball).unwrap().y;
        let bottom = world.position(ball).unwrap().y - r;
        if !bounced {
            bounced = vy > 0.0;
        } else {
            peak = peak.max(bottom);
            if vy <= 0.0 {
                return peak;
            }
        }
    }
    panic!("no bounce apex within 10 s (bounced: {bounced})");
}

#[test]
fn ball_rebounds_to_restitution_squared_times_drop_height() {
    let h = 4.0;
    for e in [0.5f32, 0.8] {
        let got = rebound_height(e, h);
        let want = e * e * h;
        assert!(
            (got - want).abs() <= 0.1 * want,
            "e = {e}: rebound {got} m, want {want} m"
        );
    }
}

/// A 1 m box on a fixed slope of `theta` radians, both with friction `mu`. Returns the world and
/// the box; the slope's top face passes through the origin.
fn box_on_slope(theta: f32, mu: f32) -> (World, BodyId) {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    let along = Vec2::new(theta.cos(), theta.sin());
    let normal = Vec2::new(-theta.sin(), theta.cos());
    let half_thick = 0.5;
    world
        .add_body(
            BodyDef::fixed().position(normal * -half_thick).angle(theta),
            ShapeDef::new(Shape::rect(30.0, half_thick).unwrap()).friction(mu),
        )
        .unwrap();
    let b = world
        .add_body(
            BodyDef::dynamic()
                .position(along * 5.0 + normal * 0.5)
                .angle(theta),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).friction(mu),
        )
        .unwrap();
    (world, b)
}

#[test]
fn box_on_slope_stays_put_when_tan_theta_is_below_mu() {
    let (theta, mu) = (20f32.to_radians(), 0.6);
    assert!(theta.tan() < mu);
    let (mut world, b) = box_on_slope(theta, mu);
    step(&mut world, 30);
    let start = world.position(b).unwrap();
    step(&mut world, 120);
    let moved = (world.position(b).unwrap() - start).length();
    assert!(moved < 0.01, "box crept {moved} m in 2 s");
}

#[test]
fn box_on_slope_slides_with_coulomb_acceleration_when_tan_theta_exceeds_mu() {
    let (theta, mu) = (30f32.to_radians(), 0.2);
    assert!(theta.tan() > mu);
    let (mut world, b) = box_on_slope(theta, mu);
    let down = Vec2::new(-theta.cos(), -theta.sin());
    // Let the contact form, then time the change of speed along the slope over one second.
    step(&mut world, 15);
    let v0 = world.linear_velocity(b).unwrap().dot(down);
    step(&mut world, 60);
    let v1 = world.linear_velocity(b).unwrap().dot(down);
    let got = (v1 - v0) / (60.0 * DT);
    let want = G * (theta.sin() - mu * theta.cos());
    assert!(
        (got - want).abs() <= 0.1 * want,
        "acceleration {got} m/s², want {want} m/s²"
    );
    // Sliding, not tumbling: a square on 30 degrees cannot tip over.
    let turned = world.angle(b).unwrap() - theta;
    assert!(turned.abs() < 0.05, "box turned by {turned} rad");
}

#[test]
fn spinning_box_dropped_on_the_ground_settles_flat() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_ground(&mut world, 0.6, 0.0);
    let b = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.0, 3.0))
                .angle(0.3)
                .angular_velocity(10.0),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap();
    step(&mut world, 300);
    let a = world.angle(b).unwrap();
    // Distance to the nearest multiple of pi/2: any face down is flat.
    let quarter = PI / 2.0;
    let off = a - (a / quarter).round() * quarter;
    assert!(
        off.abs() < 1f32.to_radians(),
        "box rests {} degrees from flat",
        off.to_degrees()
    );
    let w = world.angular_velocity(b).unwrap();
    assert!(w.abs() < 1e-2, "still spinning at {w} rad/s");
    let p = world.position(b).unwrap();
    assert!(
        (p.y - 0.5).abs() < 0.02,
        "resting box centre at y = {}",
        p.y
    );
}

/// Two circles flying at each other in zero gravity with the given collision layers and masks;
/// returns their x velocities after the time they would have met.
fn fly_through(a: (u32, u32), b: (u32, u32)) -> (f32, f32) {
    let mut world = world_with_gravity(Vec2::ZERO);
    let mut add = |x: f32, v: f32, (layers, mask): (u32, u32)| {
        world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(x, 0.0))
                    .linear_velocity(Vec2::new(v, 0.0)),
                ShapeDef::new(Shape::circle(0.5).unwrap())
                    .layers(layers)
                    .mask(mask),
            )
            .unwrap()
    };
    let ia = add(-2.0, 2.0, a);
    let ib = add(2.0, -2.0, b);
    step(&mut world, 120);
    (
        world.linear_velocity(ia).unwrap().x,
        world.linear_velocity(ib).unwrap().x,
    )
}

#[test]
fn bodies_on_layers_that_exclude_each_other_pass_through() {
    let (va, vb) = fly_through((0b01, 0b01), (0b10, 0b10));
    assert_eq!((va, vb), (2.0, -2.0), "excluded pair interacted");
    // The control: the same flight on a shared layer is a collision (inelastic by default, so
    // both stop near 0).
    let (va, vb) = fly_through((0b01, 0b01), (0b01, 0b01));
    assert!(
        va < 1.0 && vb > -1.0,
        "pair on a shared layer did not collide: {va}, {vb}"
    );
}

/// Bodies that pair with nothing (layer 2, which no mask has) fall freely through a ground and
/// through each other, beside a body on the ground's layer that lands on it: the broadphase
/// leaves the first out of its grid, and the second still finds its pairs.
#[test]
fn bodies_no_mask_takes_fall_through_and_the_others_land() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    let ground = ShapeDef::new(Shape::rect(20.0, 0.5).unwrap())
        .layers(1)
        .mask(1);
    world.add_body(BodyDef::fixed(), ground).unwrap();
    let ghost = |world: &mut World, at: Vec2| {
        let shape = ShapeDef::new(Shape::circle(0.5).unwrap())
            .layers(2)
            .mask(!2);
        world
            .add_body(BodyDef::dynamic().position(at), shape)
            .unwrap()
    };
    let ghosts = [
        ghost(&mut world, Vec2::new(0.0, 2.0)),
        ghost(&mut world, Vec2::new(0.2, 2.9)),
    ];
    let lander = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(5.0, 2.0)),
            ShapeDef::new(Shape::circle(0.5).unwrap()).layers(1).mask(1),
        )
        .unwrap();
    let steps = 60;
    step(&mut world, steps);
    // Free fall, as the solver integrates it (velocity first, then position, per substep):
    // within a hundredth of g t^2 / 2 over one second.
    let t = steps as f32 * DT;
    let fall = 0.5 * G * t * t;
    for (id, y0) in ghosts.iter().zip([2.0, 2.9]) {
        let y = world.position(*id).unwrap().y;
        assert!(
            ((y0 - y) - fall).abs() < 0.01 * fall,
            "fell {} not {fall}",
            y0 - y
        );
        assert_eq!(
            world.position(*id).unwrap().x,
            if y0 == 2.0 { 0.0 } else { 0.2 }
        );
    }
    let y = world.position(lander).unwrap().y;
    assert!(
        (y - 1.0).abs() < 0.02,
        "the lander rests at y = {y}, not on the ground"
    );
}

/// A kinematic body moves exactly as it is told: gravity and damping act on dynamic bodies
/// only, so after one second it has travelled its velocity times one second.
#[test]
fn kinematic_body_keeps_its_velocity_whatever_its_damping() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    let v = Vec2::new(1.0, 0.5);
    let id = world
        .add_body(
            BodyDef::kinematic()
                .linear_velocity(v)
                .angular_velocity(0.25)
                .linear_damping(5.0)
                .angular_damping(5.0),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap();
    step(&mut world, 60);
    assert_eq!(world.linear_velocity(id).unwrap(), v);
    assert_eq!(world.angular_velocity(id).unwrap(), 0.25);
    let p = world.position(id).unwrap();
    assert!((p - v).length() < 1e-4, "{p:?}");
}

/// A fixed-rotation box struck off its centre and told to spin never turns: the impulse only
/// moves it, as it would a point mass, and its angle stays 0.
#[test]
fn fixed_rotation_body_never_turns() {
    let mut world = world_with_gravity(Vec2::ZERO);
    let fixed = world
        .add_body(
            BodyDef::dynamic()
                .fixed_rotation(true)
                .angular_velocity(3.0),
            ShapeDef::new(Shape::rect(1.0, 0.25).unwrap()),
        )
        .unwrap();
    // A ball hits the end of the plank, off its centre of mass.
    world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.8, 2.0))
                .linear_velocity(Vec2::new(0.0, -10.0)),
            ShapeDef::new(Shape::circle(0.2).unwrap()),
        )
        .unwrap();
    assert_eq!(world.angular_velocity(fixed).unwrap(), 0.0);
    world.set_angular_velocity(fixed, 5.0).unwrap();
    assert_eq!(world.angular_velocity(fixed).unwrap(), 0.0);
    step(&mut world, 60);
    assert_eq!(world.angle(fixed).unwrap(), 0.0);
    assert_eq!(world.angular_velocity(fixed).unwrap(), 0.0);
    // It was hit: the ball's momentum went into its translation.
    assert!(world.linear_velocity(fixed).unwrap().y < -1.0);
}
