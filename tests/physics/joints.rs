//! Joints against the laws they stand for: pendulum periods, hanging chains, motors under a
//! torque cap, limits under load, springs' frequencies and deflections, reaction forces; and
//! handles, bad definitions, sleeping and bit-identical results with joints.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, Error, JointDef, JointId, JointKind, Shape, ShapeDef, Vec2, World,
    WorldSettings,
};
use common::{state_bits, step, DT};
use std::f32::consts::PI;

const G: f32 = 10.0;

fn world(gravity: Vec2) -> World {
    World::new(WorldSettings {
        gravity,
        ..WorldSettings::default()
    })
}

/// A fixed body with a tiny circle at `at`: something to fasten joints to.
fn pin(world: &mut World, at: Vec2) -> BodyId {
    world
        .add_body(
            BodyDef::fixed().position(at),
            ShapeDef::new(Shape::circle(0.05).unwrap()),
        )
        .unwrap()
}

fn ball(world: &mut World, at: Vec2, radius: f32, density: f32) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::circle(radius).unwrap()).density(density),
        )
        .unwrap()
}

/// The point of `body` that was at `world_point` when `local` was taken, now.
fn point_of(world: &World, body: BodyId, local: Vec2) -> Vec2 {
    world.transform(body).unwrap().apply(local)
}

fn local_point(world: &World, body: BodyId, p: Vec2) -> Vec2 {
    world.transform(body).unwrap().inv_apply(p)
}

/// Times at which `x` crosses zero upwards, linearly interpolated between steps.
fn upward_crossings(xs: &[f32]) -> Vec<f32> {
    xs.windows(2)
        .enumerate()
        .filter(|(_, w)| w[0] < 0.0 && w[1] >= 0.0)
        .map(|(i, w)| (i as f32 + w[0] / (w[0] - w[1])) * DT)
        .collect()
}

fn mean_period(crossings: &[f32]) -> f32 {
    assert!(crossings.len() >= 3, "too few crossings: {crossings:?}");
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f32
}

#[test]
fn a_small_swing_of_a_pendulum_has_the_physical_pendulum_period() {
    let mut w = world(Vec2::new(0.0, -G));
    let pivot = Vec2::new(0.0, 10.0);
    let (length, radius, density) = (2.0f32, 0.1f32, 50.0f32);
    let theta0 = 0.05f32;
    let support = pin(&mut w, pivot);
    let at = pivot + Vec2::new(length * theta0.sin(), -length * theta0.cos());
    let bob = ball(&mut w, at, radius, density);
    w.add_joint(JointDef::revolute(support, bob, pivot))
        .unwrap();

    // Physical pendulum: T = 2 pi sqrt(I_pivot / (m g d)), I_pivot = m r^2 / 2 + m d^2.
    let m = Shape::circle(radius).unwrap().mass_data(density);
    let i_pivot = m.rotational_inertia + m.mass * length * length;
    let expected = 2.0 * PI * (i_pivot / (m.mass * G * length)).sqrt();

    let mut xs = Vec::new();
    for _ in 0..(4.5 * expected / DT) as usize {
        w.step(DT).unwrap();
        xs.push(w.position(bob).unwrap().x - pivot.x);
    }
    let period = mean_period(&upward_crossings(&xs));
    assert!(
        (period - expected).abs() < 0.01 * expected,
        "period {period} s, physical pendulum {expected} s"
    );
    let rod = (w.position(bob).unwrap() - pivot).length();
    assert!((rod - length).abs() < 0.005 * length, "rod length {rod}");
}

/// A vertical chain of `n` links of length 1 m hanging from a pin at `top`; returns the pin,
/// the links and the joints' world anchors as built.
fn hanging_chain(w: &mut World, top: Vec2, n: usize) -> (Vec<BodyId>, Vec<(JointId, Vec2)>) {
    let support = pin(w, top);
    let mut links = Vec::new();
    let mut joints = Vec::new();
    let mut previous = support;
    for i in 0..n {
        // Links 0.8 m long with 0.2 m gaps at the joints: neighbours never touch.
        let link = w
            .add_body(
                BodyDef::dynamic().position(top - Vec2::new(0.0, i as f32 + 0.5)),
                ShapeDef::new(Shape::rect(0.05, 0.4).unwrap()),
            )
            .unwrap();
        let anchor = top - Vec2::new(0.0, i as f32);
        let j = w
            .add_joint(JointDef::revolute(previous, link, anchor))
            .unwrap();
        joints.push((j, anchor));
        links.push(link);
        previous = link;
    }
    (links, joints)
}

#[test]
fn a_chain_of_fifty_links_hangs_with_under_one_percent_stretch() {
    let mut w = world(Vec2::new(0.0, -G));
    let top = Vec2::new(0.0, 60.0);
    let n = 50;
    let (links, _) = hanging_chain(&mut w, top, n);
    let last = *links.last().unwrap();
    let end = local_point(&w, last, top - Vec2::new(0.0, n as f32));
    step(&mut w, 180);
    let length = (top - point_of(&w, last, end)).length();
    assert!(
        length < 1.01 * n as f32,
        "chain of {n} m stretched to {length} m"
    );
    assert!(
        length > 0.999 * n as f32,
        "chain of {n} m shrank to {length} m"
    );
    // It hangs straight down, at rest.
    let x = point_of(&w, last, end).x;
    assert!(x.abs() < 0.01, "bottom end off the vertical by {x} m");
    let v = w.linear_velocity(last).unwrap();
    assert!(v.length() < 0.05, "bottom link still moving at {v:?}");
}

#[test]
fn a_revolute_motor_accelerates_at_its_torque_cap_and_holds_its_speed() {
    let mut w = world(Vec2::new(0.0, -G));
    let centre = Vec2::new(0.0, 5.0);
    // The support is elsewhere: the joint's anchor need not lie on its shape.
    let support = pin(&mut w, Vec2::new(10.0, 10.0));
    let (radius, density) = (0.5, 2.0);
    let wheel = ball(&mut w, centre, radius, density);
    let inertia = Shape::circle(radius)
        .unwrap()
        .mass_data(density)
        .rotational_inertia;
    let (speed, alpha) = (2.0f32, 2.5f32);
    let torque = alpha * inertia;
    let hinge = w
        .add_joint(JointDef::revolute(support, wheel, centre).motor(speed, torque))
        .unwrap();
    // Accelerating: w = alpha t, never faster (the cap holds), until it reaches the speed.
    for k in 1..=40 {
        w.step(DT).unwrap();
        let spin = w.angular_velocity(wheel).unwrap();
        let t = k as f32 * DT;
        assert!(
            (spin - alpha * t).abs() < 1e-3 * alpha * t,
            "step {k}: spin {spin} rad/s, tau / I * t = {} rad/s",
            alpha * t
        );
        let applied = w.joint_reaction_torque(hinge).unwrap();
        assert!(
            (applied - torque).abs() < 1e-3 * torque,
            "step {k}: torque {applied} N m, cap {torque}"
        );
    }
    step(&mut w, 60);
    let spin = w.angular_velocity(wheel).unwrap();
    assert!((spin - speed).abs() < 1e-4, "spin {spin}, target {speed}");
    let p = w.position(wheel).unwrap();
    assert!((p - centre).length() < 0.01, "the hinge let go: {p:?}");
}

#[test]
fn a_revolute_limit_stops_a_swinging_arm() {
    let mut w = world(Vec2::new(0.0, -G));
    let pivot = Vec2::new(0.0, 10.0);
    let support = pin(&mut w, pivot);
    // A horizontal arm from the pivot: gravity swings it down to the lower limit.
    let arm = w
        .add_body(
            BodyDef::dynamic().position(pivot + Vec2::new(1.0, 0.0)),
            ShapeDef::new(Shape::rect(0.8, 0.05).unwrap()),
        )
        .unwrap();
    let lower = -0.5f32;
    w.add_joint(JointDef::revolute(support, arm, pivot).limits(lower, 0.5))
        .unwrap();
    let mut lowest = 0.0f32;
    for _ in 0..240 {
        w.step(DT).unwrap();
        lowest = lowest.min(w.angle(arm).unwrap());
    }
    let angle = w.angle(arm).unwrap();
    assert!(
        (angle - lower).abs() < 0.01,
        "rests at {angle} rad, limit {lower}"
    );
    assert!(
        lowest > lower - 0.03,
        "swung to {lowest} rad past the limit"
    );
}

#[test]
fn a_prismatic_limit_holds_a_load_and_the_slider_stays_on_its_axis() {
    let mut w = world(Vec2::new(0.0, -G));
    let support = pin(&mut w, Vec2::new(5.0, 20.0));
    let start = Vec2::new(0.0, 10.0);
    let load = w
        .add_body(
            BodyDef::dynamic().position(start).angle(0.0),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).density(3.0),
        )
        .unwrap();
    // A slanted axis: gravity pulls the load down along it to the lower limit.
    let axis = Vec2::new(1.0, 2.0);
    let unit = axis * (1.0 / axis.length());
    let slider = w
        .add_joint(JointDef::prismatic(support, load, start, axis).limits(-1.0, 1.0))
        .unwrap();
    step(&mut w, 180);
    let p = w.position(load).unwrap();
    let along = (p - start).dot(unit);
    let across = (p - start).cross(unit);
    assert!(
        (along + 1.0).abs() < 0.01,
        "rests {along} m along the axis, limit -1"
    );
    assert!(across.abs() < 0.005, "{across} m off the axis");
    assert!(w.angle(load).unwrap().abs() < 1e-3, "the slider turned");
    // The joint carries the whole weight.
    let m = Shape::rect(0.5, 0.5).unwrap().mass_data(3.0).mass;
    let f = w.joint_reaction_force(slider).unwrap();
    assert!(
        (f - Vec2::new(0.0, m * G)).length() < 0.01 * m * G,
        "reaction {f:?}, weight {}",
        m * G
    );
}

#[test]
fn a_prismatic_motor_pushes_at_its_force_cap_up_to_its_speed() {
    let mut w = world(Vec2::ZERO);
    let support = pin(&mut w, Vec2::new(0.0, -5.0));
    let start = Vec2::ZERO;
    let block = w
        .add_body(
            BodyDef::dynamic().position(start),
            ShapeDef::new(Shape::rect(0.5, 0.25).unwrap()),
        )
        .unwrap();
    let m = Shape::rect(0.5, 0.25).unwrap().mass_data(1.0).mass;
    let (speed, force) = (1.5f32, 0.5f32);
    w.add_joint(
        JointDef::prismatic(support, block, start, Vec2::new(1.0, 0.0)).motor(speed, force),
    )
    .unwrap();
    let a = force / m;
    step(&mut w, 10);
    let v = w.linear_velocity(block).unwrap();
    let t = 10.0 * DT;
    assert!(
        (v.x - a * t).abs() < 1e-3 * a * t,
        "v {v:?}, F / m * t = {}",
        a * t
    );
    step(&mut w, (speed / a / DT) as usize + 30);
    let v = w.linear_velocity(block).unwrap();
    assert!((v.x - speed).abs() < 1e-4 && v.y.abs() < 1e-4, "v {v:?}");
}

/// A small dense triangle (6 cm across) on a slider whose anchor lies 20 m from it, on a
/// kinematic body: its row along the axis has an arm of 20 m, hundreds of times the body's
/// size. `spin` is the kinematic body's angular velocity.
fn far_slider(spin: f32) -> (World, BodyId, BodyId, Vec2, Vec2) {
    let mut w = world(Vec2::new(0.0, -G));
    let points: Vec<Vec2> = (0..3)
        .map(|k| {
            let a = 2.05 + std::f32::consts::TAU * k as f32 / 3.0;
            Vec2::new(0.065 * a.cos(), 0.065 * a.sin())
        })
        .collect();
    let slider = w
        .add_body(
            BodyDef::dynamic().angle(-1.79),
            ShapeDef::new(Shape::polygon(&points).unwrap()),
        )
        .unwrap();
    let carrier = w
        .add_body(
            BodyDef::kinematic()
                .position(Vec2::new(19.4, -2.9))
                .angular_velocity(spin),
            ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let at = Vec2::new(19.65, -2.4);
    let axis = Vec2::new(0.6, 0.8);
    w.add_joint(
        JointDef::prismatic(carrier, slider, at, axis)
            .limits(-1.0, 1.0)
            .motor(0.5, 50.0),
    )
    .unwrap();
    (w, slider, carrier, at, axis)
}

/// Regression (random worlds): the rows along and across the axis, measured at an anchor
/// 20 m away, turned the 6 cm body more than they slid it; the impulses that turned it and
/// turned it back, warm started after it had turned, grew until the body flew off at the
/// speed cap. The motor slides it to its upper limit, where it rests without turning.
#[test]
fn a_small_body_on_a_slider_anchored_far_away_slides_to_its_limit() {
    let (mut w, slider, _, _, axis) = far_slider(0.0);
    let start = w.position(slider).unwrap();
    let angle = w.angle(slider).unwrap();
    step(&mut w, 300);
    let along = (w.position(slider).unwrap() - start).dot(axis);
    let across = (w.position(slider).unwrap() - start).cross(axis);
    assert!(
        (along - 1.0).abs() < 0.05,
        "{along} m along the axis, limit 1"
    );
    assert!(across.abs() < 0.01, "{across} m off the axis");
    let v = w.linear_velocity(slider).unwrap();
    assert!(v.length() < 1e-3, "still moving at {v:?}");
    let turned = w.angle(slider).unwrap() - angle;
    assert!(turned.abs() < 1e-3, "the slider turned by {turned} rad");
}

/// Regression (random worlds): the same slider on a carrier spinning at 39 rad/s turned NaN
/// within two steps. A slider cannot turn on its carrier: it spins with it.
#[test]
fn a_small_body_on_a_slider_of_a_spinning_carrier_spins_with_it() {
    let spin = 39.16;
    let (mut w, slider, carrier, _, _) = far_slider(spin);
    for _ in 0..120 {
        w.step(DT).unwrap();
        let p = w.position(slider).unwrap();
        assert!(p.is_finite(), "slider at {p:?}");
    }
    let turn = w.angular_velocity(slider).unwrap();
    assert!((turn - spin).abs() < 0.01 * spin, "turns at {turn} rad/s");
    let relative = w.angle(slider).unwrap() - w.angle(carrier).unwrap();
    step(&mut w, 10);
    let later = w.angle(slider).unwrap() - w.angle(carrier).unwrap();
    let drift = (later - relative).sin().abs();
    assert!(
        drift < 1e-2,
        "the slider turned by {drift} rad on its carrier"
    );
}

/// A 2 cm ball pinned to the world 150 m from its centre: the point constraint's matrix has
/// a determinant that `k11 k22 - k12^2` loses in rounding (the products agree to ten
/// digits). It swings as a simple pendulum, its distance from the pivot held.
#[test]
fn a_small_ball_pinned_far_away_swings_on_a_rod_that_holds() {
    let mut w = world(Vec2::new(0.0, -G));
    let pivot = Vec2::new(0.0, 200.0);
    let length = 150.0f32;
    // Out to one side at 45 degrees, so that both arm components are large.
    let start = pivot + Vec2::new(length, -length) * std::f32::consts::FRAC_1_SQRT_2;
    let support = pin(&mut w, pivot);
    let bob = ball(&mut w, start, 0.01, 10.0);
    w.add_joint(JointDef::revolute(support, bob, pivot))
        .unwrap();
    // Energy: from 45 degrees, the speed at the bottom is sqrt(2 g L (1 - cos 45)).
    let bottom = (2.0 * G * length * (1.0 - std::f32::consts::FRAC_1_SQRT_2)).sqrt();
    let mut fastest = 0.0f32;
    for _ in 0..600 {
        w.step(DT).unwrap();
        let rod = (w.position(bob).unwrap() - pivot).length();
        assert!((rod - length).abs() < 0.005 * length, "rod {rod} m");
        fastest = fastest.max(w.linear_velocity(bob).unwrap().length());
    }
    assert!(
        (fastest - bottom).abs() < 0.02 * bottom,
        "fastest {fastest} m/s, at the bottom {bottom} m/s"
    );
}

#[test]
fn the_reaction_force_of_a_hanging_mass_is_its_weight() {
    let mut w = world(Vec2::new(0.0, -G));
    let top = Vec2::new(0.0, 10.0);
    let support = pin(&mut w, top);
    let (radius, density) = (0.3, 4.0);
    let m = Shape::circle(radius).unwrap().mass_data(density).mass;
    let weight = Vec2::new(0.0, m * G);
    let bob = ball(&mut w, top - Vec2::new(0.0, 1.5), radius, density);
    let hinge = w.add_joint(JointDef::revolute(support, bob, top)).unwrap();
    let bob2 = ball(&mut w, top + Vec2::new(3.0, -1.5), radius, density);
    let rod = w
        .add_joint(JointDef::distance(
            support,
            bob2,
            top,
            top + Vec2::new(3.0, -1.5),
        ))
        .unwrap();
    assert_eq!(w.joint_reaction_force(hinge), Ok(Vec2::ZERO));
    step(&mut w, 120);
    let f = w.joint_reaction_force(hinge).unwrap();
    assert!(
        (f - weight).length() < 1e-3 * m * G,
        "hinge {f:?}, m g {weight:?}"
    );
    assert!(w.joint_reaction_torque(hinge).unwrap().abs() < 1e-6);
    // The rod swings (undamped): its force is along the rod, the weight's component along it
    // plus the centripetal force, m (g cos + v^2 / L), at every instant.
    let f = w.joint_reaction_force(rod).unwrap();
    let p = w.position(bob2).unwrap();
    let v = w.linear_velocity(bob2).unwrap();
    let r = p - top;
    let length = r.length();
    let inward = r * (-1.0 / length);
    let expected = m * (G * inward.y + v.length_squared() / length);
    assert!(
        f.cross(inward).abs() < 1e-3 * f.length(),
        "not along the rod: {f:?}"
    );
    assert!(
        (f.dot(inward) - expected).abs() < 0.02 * expected,
        "rod pulls {} N, m (g cos + v^2 / L) = {expected} N",
        f.dot(inward)
    );
}

#[test]
fn a_distance_spring_oscillates_at_its_frequency_and_a_rope_goes_slack() {
    let mut w = world(Vec2::ZERO);
    let anchor = Vec2::ZERO;
    let support = pin(&mut w, anchor);
    let hertz = 2.0f32;
    // Pulled 0.2 m past its 3 m rest length along x, undamped.
    let rest = Vec2::new(3.0, 0.0);
    let bob = ball(&mut w, rest, 0.2, 1.0);
    w.add_joint(JointDef::distance(support, bob, anchor, rest).spring(hertz, 0.0))
        .unwrap();
    w.set_linear_velocity(bob, Vec2::new(1.0, 0.0)).unwrap();
    let mut xs = Vec::new();
    for _ in 0..(3.2 / hertz / DT) as usize {
        w.step(DT).unwrap();
        xs.push(w.position(bob).unwrap().x - rest.x);
    }
    let period = mean_period(&upward_crossings(&xs));
    assert!(
        (period * hertz - 1.0).abs() < 0.01,
        "period {period} s, spring of {hertz} Hz"
    );

    // A rope: free within its range, taut at its maximum.
    let mut w = world(Vec2::new(0.0, -G));
    let top = Vec2::new(0.0, 10.0);
    let support = pin(&mut w, top);
    let start = top - Vec2::new(1.0, 0.0);
    let load = ball(&mut w, start, 0.2, 1.0);
    w.add_joint(JointDef::distance(support, load, top, start).length_range(0.0, 2.0))
        .unwrap();
    // Slack: at first it falls as a free ball beside it does.
    let free = ball(&mut w, start + Vec2::new(-5.0, 0.0), 0.2, 1.0);
    step(&mut w, 10);
    let fallen = start.y - w.position(load).unwrap().y;
    let free_fall = start.y - w.position(free).unwrap().y;
    assert!(fallen > 0.1, "fell only {fallen} m");
    assert!(
        (fallen - free_fall).abs() < 1e-5,
        "fell {fallen} m, a free ball {free_fall} m"
    );
    step(&mut w, 600);
    let length = (w.position(load).unwrap() - top).length();
    assert!(
        (length - 2.0).abs() < 0.01,
        "taut rope {length} m long, maximum 2"
    );
}

#[test]
fn a_wheel_spring_sags_by_its_static_deflection_and_its_motor_spins_the_tyre() {
    let mut w = world(Vec2::new(0.0, -G));
    let chassis = pin(&mut w, Vec2::new(0.0, 20.0));
    let centre = Vec2::new(0.0, 10.0);
    let tyre = ball(&mut w, centre, 0.4, 1.0);
    let hertz = 3.0f32;
    let (speed, torque) = (-10.0f32, 5.0f32);
    let wheel = w
        .add_joint(
            JointDef::wheel(chassis, tyre, centre, Vec2::new(0.0, 1.0))
                .spring(hertz, 1.0)
                .motor(speed, torque),
        )
        .unwrap();
    step(&mut w, 300);
    // A spring of frequency f on a mass m against a fixed body: k = m (2 pi f)^2, so it sags
    // by g / (2 pi f)^2.
    let omega = 2.0 * PI * hertz;
    let sag = G / (omega * omega);
    let p = w.position(tyre).unwrap();
    assert!(
        (centre.y - p.y - sag).abs() < 0.01 * sag,
        "sags {} m, g / omega^2 = {sag} m",
        centre.y - p.y
    );
    assert!(p.x.abs() < 1e-4, "off the axis by {} m", p.x);
    let spin = w.angular_velocity(tyre).unwrap();
    assert!(
        (spin - speed).abs() < 1e-3,
        "spin {spin}, motor speed {speed}"
    );
    let m = Shape::circle(0.4).unwrap().mass_data(1.0).mass;
    let f = w.joint_reaction_force(wheel).unwrap();
    assert!((f.y - m * G).abs() < 0.01 * m * G, "spring holds {f:?}");
}

#[test]
fn a_weld_holds_a_beam_out_level_and_a_soft_weld_gives() {
    let sag_of = |soft: Option<f32>| {
        let mut w = world(Vec2::new(0.0, -G));
        let wall = pin(&mut w, Vec2::new(0.0, 10.0));
        let beam = w
            .add_body(
                BodyDef::dynamic().position(Vec2::new(1.0, 10.0)),
                ShapeDef::new(Shape::rect(0.9, 0.1).unwrap()),
            )
            .unwrap();
        let anchor = Vec2::new(0.0, 10.0);
        let local = local_point(&w, beam, anchor);
        let mut def = JointDef::weld(wall, beam, anchor);
        if let Some(hertz) = soft {
            def = def.spring(hertz, 1.0);
        }
        let weld = w.add_joint(def).unwrap();
        step(&mut w, 600);
        let m = Shape::rect(0.9, 0.1).unwrap().mass_data(1.0).mass;
        // The weld carries the weight at the beam's anchor and, as a torque, the weight's
        // moment about that anchor.
        let torque = w.joint_reaction_torque(weld).unwrap();
        let f = w.joint_reaction_force(weld).unwrap();
        assert!((f.y - m * G).abs() < 0.01 * m * G, "force {f:?}");
        let lever = w.position(beam).unwrap().x - point_of(&w, beam, local).x;
        assert!(
            (torque - m * G * lever).abs() < 0.02 * m * G * lever,
            "torque {torque}, m g d = {}",
            m * G * lever
        );
        -w.angle(beam).unwrap()
    };
    let rigid = sag_of(None);
    assert!(rigid.abs() < 0.01, "rigid weld droops {rigid} rad");
    let soft = sag_of(Some(1.0));
    assert!(
        soft > 10.0 * rigid.abs() && soft > 0.05,
        "soft weld droops {soft} rad"
    );
}

#[test]
fn a_mouse_joint_pulls_at_its_force_cap_and_reaches_its_target() {
    let mut w = world(Vec2::ZERO);
    let grip = Vec2::new(0.2, 0.0);
    let target = Vec2::new(3.0, 1.0);
    // Capped: the spring asks for far more than 2 N, so the body accelerates at F / m
    // towards the target.
    let capped = ball(&mut w, Vec2::ZERO, 0.5, 1.0);
    let m = Shape::circle(0.5).unwrap().mass_data(1.0).mass;
    let max_force = 2.0;
    let drag = w
        .add_joint(JointDef::mouse(capped, grip).max_force(max_force))
        .unwrap();
    w.set_mouse_target(drag, target).unwrap();
    // Unlimited: a 5 Hz spring damped at 0.7 brings the grip onto the target.
    let offset = Vec2::new(0.0, -5.0);
    let free = ball(&mut w, offset, 0.5, 1.0);
    let pull = w.add_joint(JointDef::mouse(free, grip + offset)).unwrap();
    w.set_mouse_target(pull, target + offset).unwrap();
    let mut v_prev = Vec2::ZERO;
    for k in 0..10 {
        w.step(DT).unwrap();
        let v = w.linear_velocity(capped).unwrap();
        let a = (v - v_prev) * (1.0 / DT);
        v_prev = v;
        assert!(
            (a.length() - max_force / m).abs() < 1e-3 * max_force / m,
            "step {k}: acceleration {a:?}, cap F / m = {}",
            max_force / m
        );
        let f = w.joint_reaction_force(drag).unwrap();
        assert!(f.length() <= max_force * 1.0001, "step {k}: force {f:?}");
    }
    step(&mut w, 120);
    let held = point_of(&w, free, grip);
    assert!(
        (held - (target + offset)).length() < 0.01,
        "grip at {held:?}, target {:?}",
        target + offset
    );
    assert_eq!(
        w.joint_bodies(drag).unwrap(),
        (JointKind::Mouse, None, capped)
    );
    assert!(matches!(
        w.set_mouse_target(drag, Vec2::new(f32::NAN, 0.0)),
        Err(Error::InvalidParameter(_))
    ));
}

#[test]
fn a_motor_joint_drives_a_body_to_its_target_within_its_caps() {
    let mut w = world(Vec2::ZERO);
    let support = pin(&mut w, Vec2::new(0.0, -5.0));
    let shape = Shape::rect(0.5, 0.25).unwrap();
    let mass = shape.mass_data(1.0);
    let body = |w: &mut World, at: Vec2| {
        w.add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(shape.clone()),
        )
        .unwrap()
    };
    let (force, torque) = (3.0f32, 0.2f32);
    let capped = body(&mut w, Vec2::ZERO);
    let drive = w
        .add_joint(
            JointDef::motor_joint(support, capped)
                .max_force(force)
                .max_torque(torque),
        )
        .unwrap();
    // Its target: 2 m right and 1 m up of where it stands, turned by 0.5 rad.
    let offset = Vec2::new(2.0, 6.0);
    w.set_motor_joint_target(drive, offset, 0.5).unwrap();
    let free = body(&mut w, Vec2::new(-10.0, 0.0));
    let unlimited = w
        .add_joint(JointDef::motor_joint(support, free).correction_factor(0.2))
        .unwrap();
    w.set_motor_joint_target(unlimited, offset + Vec2::new(-10.0, 0.0), 0.5)
        .unwrap();
    // Far from its target, the capped drive pushes and turns at its caps.
    let (mut v0, mut w0) = (Vec2::ZERO, 0.0);
    for k in 0..5 {
        w.step(DT).unwrap();
        let v = w.linear_velocity(capped).unwrap();
        let spin = w.angular_velocity(capped).unwrap();
        let a = (v - v0).length() / DT;
        let alpha = (spin - w0) / DT;
        (v0, w0) = (v, spin);
        let (a_cap, alpha_cap) = (force / mass.mass, torque / mass.rotational_inertia);
        assert!(
            (a - a_cap).abs() < 1e-3 * a_cap,
            "step {k}: a {a}, F / m {a_cap}"
        );
        assert!(
            (alpha - alpha_cap).abs() < 1e-3 * alpha_cap,
            "step {k}: alpha {alpha}, T / I {alpha_cap}"
        );
    }
    let direction = v0 * (1.0 / v0.length());
    let expected = Vec2::new(2.0, 1.0) * (1.0 / 5.0f32.sqrt());
    assert!(
        (direction - expected).length() < 1e-3,
        "heads {direction:?}"
    );
    step(&mut w, 60);
    let p = w.position(free).unwrap();
    assert!(
        (p - Vec2::new(-8.0, 1.0)).length() < 1e-3,
        "unlimited drive at {p:?}"
    );
    let angle = w.angle(free).unwrap();
    assert!(
        (angle - 0.5).abs() < 1e-3,
        "unlimited drive turned to {angle}"
    );

    // Under gravity, a drive weaker than the weight slows the fall: a = g - F / m.
    let mut w = world(Vec2::new(0.0, -G));
    let support = pin(&mut w, Vec2::new(0.0, 20.0));
    let load = body(&mut w, Vec2::new(0.0, 10.0));
    let weak = 0.25 * mass.mass * G;
    w.add_joint(JointDef::motor_joint(support, load).max_force(weak))
        .unwrap();
    step(&mut w, 30);
    let v = w.linear_velocity(load).unwrap();
    let expected = -(G - weak / mass.mass) * 30.0 * DT;
    assert!(
        (v.y - expected).abs() < 1e-3 * expected.abs() && v.x.abs() < 1e-6,
        "v {v:?}, (g - F / m) t = {expected}"
    );
    assert!(matches!(
        w.set_motor_joint_target(drive, offset, 0.0),
        Err(Error::InvalidJoint)
    ));
}

#[test]
fn joined_bodies_collide_only_when_the_joint_lets_them() {
    for collide in [false, true] {
        let mut w = world(Vec2::ZERO);
        // Two boxes overlapping by half their width, hinged in the overlap.
        let shape = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap());
        let ids: Vec<BodyId> = [-0.25f32, 0.25]
            .iter()
            .map(|&x| {
                w.add_body(
                    BodyDef::dynamic().position(Vec2::new(x, 0.0)),
                    shape.clone(),
                )
                .unwrap()
            })
            .collect();
        let hinge = JointDef::revolute(ids[0], ids[1], Vec2::ZERO).collide_connected(collide);
        let hinge = w.add_joint(hinge).unwrap();
        step(&mut w, 30);
        let moved = ids
            .iter()
            .map(|&id| (w.position(id).unwrap().x.abs() - 0.25).abs())
            .fold(0.0, f32::max);
        if collide {
            assert!(
                w.contact_count() > 0,
                "no contact though the joint lets them"
            );
            // A rigid hinge holds the boxes together whatever the overlap: the contact
            // pushes them apart and the hinge pulls them back as hard.
            let push: f32 = w.contacts().map(|c| c.normal_force()).sum();
            let pull = w.joint_reaction_force(hinge).unwrap().length();
            assert!(push > 0.0, "the overlap pushed nothing (moved {moved})");
            assert!(
                pull > 0.0,
                "the hinge held nothing against the push of {push} N"
            );
        } else {
            assert_eq!(w.contact_count(), 0);
            assert_eq!(moved, 0.0, "the boxes moved without a contact");
            // Without the joint they collide again.
            w.remove_joint(hinge).unwrap();
            step(&mut w, 1);
            assert!(w.contact_count() > 0, "no contact once the joint is gone");
        }
    }
}

/// A light box pinned at its centre with a 100 times heavier box resting on it: the contact
/// goes to the exact solve of small islands with a wide mass ratio, which runs beside the
/// joint passes on the same bodies.
fn pinned_light_box_under_a_heavy_one(w: &mut World, x: f32) -> [BodyId; 2] {
    let centre = Vec2::new(x, 0.5);
    let support = pin(w, Vec2::new(x + 3.0, 3.0));
    let light = common::unit_box(w, centre);
    let heavy = w
        .add_body(
            BodyDef::dynamic().position(centre + Vec2::new(0.0, 1.0)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).density(100.0),
        )
        .unwrap();
    w.add_joint(JointDef::revolute(support, light, centre))
        .unwrap();
    [light, heavy]
}

#[test]
fn a_pinned_light_box_carries_a_heavy_one_at_rest() {
    let mut w = world(Vec2::new(0.0, -G));
    common::ground(&mut w);
    let [light, heavy] = pinned_light_box_under_a_heavy_one(&mut w, 0.0);
    step(&mut w, 120);
    for k in 0..60 {
        w.step(DT).unwrap();
        for (name, id, y) in [("light", light, 0.5), ("heavy", heavy, 1.5)] {
            let p = w.position(id).unwrap();
            let v = w.linear_velocity(id).unwrap();
            let spin = w.angular_velocity(id).unwrap();
            assert!(
                (p - Vec2::new(0.0, y)).length() < 0.02,
                "step {k}: {name} box moved to {p:?}"
            );
            assert!(
                v.length() < 1e-2 && spin.abs() < 1e-2,
                "step {k}: {name} box still moves: {v:?}, {spin}"
            );
        }
    }
}

/// Bodies in an `n` x `n` grid 1 m apart, each joined to its left and upper neighbours by a
/// revolute joint at its own centre, the top row pinned to the ground (Box2D's joint_grid).
/// Returns the joints with their anchors in both bodies' frames.
fn joint_grid(w: &mut World, n: usize) -> Vec<(BodyId, Vec2, BodyId, Vec2)> {
    let ground = pin(w, Vec2::new(0.0, 2.0 * n as f32));
    let mut ids: Vec<BodyId> = Vec::new();
    let mut joints = Vec::new();
    for row in 0..n {
        for col in 0..n {
            let p = Vec2::new(col as f32, n as f32 - row as f32);
            let body = ball(w, p, 0.4, 1.0);
            let mut join = |w: &mut World, other: BodyId| {
                w.add_joint(JointDef::revolute(other, body, p)).unwrap();
                let (la, lb) = (local_point(w, other, p), local_point(w, body, p));
                joints.push((other, la, body, lb));
            };
            if row == 0 {
                join(w, ground);
            } else {
                join(w, ids[(row - 1) * n + col]);
            }
            if col > 0 {
                join(w, ids[row * n + col - 1]);
            }
            ids.push(body);
        }
    }
    joints
}

fn largest_gap(w: &World, joints: &[(BodyId, Vec2, BodyId, Vec2)]) -> f32 {
    joints
        .iter()
        .map(|&(a, la, b, lb)| (point_of(w, a, la) - point_of(w, b, lb)).length())
        .fold(0.0, f32::max)
}

fn grid_stays_connected(n: usize, steps: usize) {
    let mut w = world(Vec2::new(0.0, -G));
    let joints = joint_grid(&mut w, n);
    assert_eq!(w.joint_count(), joints.len());
    for k in 0..steps {
        w.step(DT).unwrap();
        let gap = largest_gap(&w, &joints);
        assert!(
            gap < 0.05,
            "step {k}: a joint of the {n} x {n} grid opened {gap} m"
        );
    }
}

#[test]
fn a_grid_of_revolute_joints_stays_connected() {
    grid_stays_connected(40, 120);
}

/// The size of Box2D's joint_grid. It runs in release builds, as CI's; a debug build, which
/// steps 10000 bodies many times slower, skips it.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "100 x 100 bodies: run it in a release build (`cargo test --release`)"
)]
fn a_grid_of_100_by_100_revolute_joints_stays_connected() {
    grid_stays_connected(100, 120);
}

/// Joints of every kind among contacts: pyramids small enough for tiles, a chain hitting a
/// box, a jointed grid falling on the ground, a slider, a wheel, a weld, a spring, a mouse.
fn mixed_scene(backend: Backend, threads: usize) -> World {
    let mut w = World::new(WorldSettings {
        backend,
        threads,
        ..WorldSettings::default()
    });
    common::ground(&mut w);
    for k in 0..6 {
        for row in 0..4 {
            for col in row..4 {
                let x = -40.0 + 6.0 * k as f32 + col as f32 - 0.5 * row as f32;
                let p = Vec2::new(x, 0.5 + row as f32);
                w.add_body(
                    BodyDef::dynamic().position(p),
                    ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
                )
                .unwrap();
            }
        }
    }
    let (links, _) = hanging_chain(&mut w, Vec2::new(10.0, 12.0), 10);
    w.set_linear_velocity(links[9], Vec2::new(5.0, 0.0))
        .unwrap();
    w.add_body(
        BodyDef::dynamic().position(Vec2::new(12.0, 0.5)),
        ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
    )
    .unwrap();
    let ids: Vec<BodyId> = (0..5)
        .flat_map(|row| (0..5).map(move |col| (row, col)))
        .map(|(row, col)| {
            ball(
                &mut w,
                Vec2::new(20.0 + col as f32, 3.0 + row as f32),
                0.4,
                1.0,
            )
        })
        .collect();
    for row in 0..5 {
        for col in 0..5 {
            let b = ids[row * 5 + col];
            let p = w.position(b).unwrap();
            if col > 0 {
                w.add_joint(JointDef::revolute(ids[row * 5 + col - 1], b, p))
                    .unwrap();
            }
            if row > 0 {
                w.add_joint(JointDef::weld(ids[(row - 1) * 5 + col], b, p).spring(5.0, 0.5))
                    .unwrap();
            }
        }
    }
    let support = pin(&mut w, Vec2::new(30.0, 10.0));
    let slider = ball(&mut w, Vec2::new(30.0, 6.0), 0.5, 1.0);
    w.add_joint(
        JointDef::prismatic(support, slider, Vec2::new(30.0, 6.0), Vec2::new(1.0, 1.0))
            .limits(-2.0, 1.0)
            .motor(1.0, 3.0),
    )
    .unwrap();
    let tyre = ball(&mut w, Vec2::new(34.0, 1.0), 0.5, 1.0);
    let chassis = w
        .add_body(
            BodyDef::dynamic().position(Vec2::new(34.0, 2.0)),
            ShapeDef::new(Shape::rect(1.0, 0.2).unwrap()),
        )
        .unwrap();
    w.add_joint(
        JointDef::wheel(chassis, tyre, Vec2::new(34.0, 1.0), Vec2::new(0.0, 1.0))
            .spring(4.0, 0.7)
            .motor(-5.0, 20.0)
            .limits(-0.3, 0.3),
    )
    .unwrap();
    let bob = ball(&mut w, Vec2::new(40.0, 6.0), 0.3, 1.0);
    w.add_joint(
        JointDef::distance(support, bob, Vec2::new(30.0, 10.0), Vec2::new(40.0, 6.0))
            .spring(2.0, 0.1)
            .length_range(8.0, 12.0),
    )
    .unwrap();
    pinned_light_box_under_a_heavy_one(&mut w, -30.0);
    let driven = ball(&mut w, Vec2::new(-25.0, 4.0), 0.5, 1.0);
    let drive = JointDef::motor_joint(support, driven)
        .max_force(20.0)
        .max_torque(5.0);
    let drive = w.add_joint(drive).unwrap();
    w.set_motor_joint_target(drive, Vec2::new(-53.0, -7.0), 2.0)
        .unwrap();
    let dragged = ball(&mut w, Vec2::new(-20.0, 5.0), 0.5, 1.0);
    let drag = w
        .add_joint(JointDef::mouse(dragged, Vec2::new(-20.0, 5.0)).max_force(50.0))
        .unwrap();
    w.set_mouse_target(drag, Vec2::new(-18.0, 8.0)).unwrap();
    w
}

#[test]
fn joints_give_the_same_bits_on_both_backends_and_any_thread_count() {
    let mut reference = mixed_scene(Backend::Scalar, 1);
    let mut others = [
        mixed_scene(Backend::Simd, 1),
        mixed_scene(Backend::Simd, 2),
        mixed_scene(Backend::Scalar, 2),
        mixed_scene(Backend::Simd, 3),
    ];
    for k in 0..150 {
        reference.step(DT).unwrap();
        let expected = state_bits(&reference);
        for (i, w) in others.iter_mut().enumerate() {
            w.step(DT).unwrap();
            assert_eq!(state_bits(w), expected, "world {i}, step {k}");
        }
    }
}

/// A 30 x 30 grid of revolute-jointed balls hung from a kinematic bar that sways, with a
/// motor and a limit on some joints, and a hub on 80 spokes: each joint color holds hundreds
/// of joints, cut into many blocks for the workers, the bar is in a whole row of one color,
/// and the hub's last spokes fit in no color.
fn swaying_grid(backend: Backend, threads: usize) -> World {
    let mut w = World::new(WorldSettings {
        backend,
        threads,
        gravity: Vec2::new(0.0, -G),
        ..WorldSettings::default()
    });
    let n = 30;
    let bar = w
        .add_body(
            BodyDef::kinematic()
                .position(Vec2::new(0.5 * n as f32, n as f32 + 1.0))
                .linear_velocity(Vec2::new(2.0, 0.0))
                .angular_velocity(0.1),
            ShapeDef::new(Shape::rect(0.5 * n as f32, 0.1).unwrap()),
        )
        .unwrap();
    let mut ids: Vec<BodyId> = Vec::new();
    for row in 0..n {
        for col in 0..n {
            let p = Vec2::new(col as f32, n as f32 - row as f32);
            let body = ball(&mut w, p, 0.4, 1.0 + (col % 3) as f32);
            let up = if row == 0 {
                bar
            } else {
                ids[(row - 1) * n + col]
            };
            let joint = match (row + col) % 7 {
                0 => JointDef::revolute(up, body, p).motor(1.0, 5.0),
                1 => JointDef::revolute(up, body, p).limits(-0.2, 0.3),
                _ => JointDef::revolute(up, body, p),
            };
            w.add_joint(joint).unwrap();
            if col > 0 {
                w.add_joint(JointDef::revolute(ids[row * n + col - 1], body, p))
                    .unwrap();
            }
            ids.push(body);
        }
    }
    // A hub with more joints than there are joint colors: the rest go to the overflow set.
    let hub = ball(&mut w, Vec2::new(-20.0, 10.0), 1.0, 1.0);
    w.add_joint(JointDef::revolute(bar, hub, Vec2::new(-20.0, 11.0)))
        .unwrap();
    for k in 0..80 {
        let angle = 2.0 * PI * k as f32 / 80.0;
        let at = Vec2::new(-20.0 + 3.0 * angle.cos(), 10.0 + 3.0 * angle.sin());
        let spoke = ball(&mut w, at, 0.1, 1.0);
        let joint = match k % 2 {
            0 => JointDef::revolute(hub, spoke, at),
            _ => JointDef::distance(hub, spoke, Vec2::new(-20.0, 10.0), at),
        };
        w.add_joint(joint).unwrap();
    }
    w
}

/// The joints of one color share no dynamic body, so the order in which the workers take
/// a color's blocks cannot change the result.
#[test]
fn a_jointed_grid_gives_the_same_bits_on_both_backends_and_any_thread_count() {
    let mut reference = swaying_grid(Backend::Scalar, 1);
    let mut others = [
        swaying_grid(Backend::Simd, 1),
        swaying_grid(Backend::Simd, 2),
        swaying_grid(Backend::Scalar, 2),
        swaying_grid(Backend::Simd, 3),
        swaying_grid(Backend::Scalar, 3),
    ];
    for k in 0..60 {
        reference.step(DT).unwrap();
        let expected = state_bits(&reference);
        for (i, w) in others.iter_mut().enumerate() {
            w.step(DT).unwrap();
            assert_eq!(state_bits(w), expected, "world {i}, step {k}");
        }
    }
}

#[test]
fn removing_a_body_removes_its_joints() {
    let mut w = world(Vec2::new(0.0, -G));
    let support = pin(&mut w, Vec2::new(0.0, 10.0));
    let a = ball(&mut w, Vec2::new(0.0, 9.0), 0.2, 1.0);
    let b = ball(&mut w, Vec2::new(0.0, 8.0), 0.2, 1.0);
    let top = w
        .add_joint(JointDef::revolute(support, a, Vec2::new(0.0, 10.0)))
        .unwrap();
    let middle = w
        .add_joint(JointDef::revolute(a, b, Vec2::new(0.0, 9.0)))
        .unwrap();
    step(&mut w, 10);
    w.remove_body(b).unwrap();
    assert_eq!(w.joint_count(), 1);
    assert_eq!(w.remove_joint(middle), Err(Error::InvalidJoint));
    assert_eq!(w.joint_reaction_force(middle), Err(Error::InvalidJoint));
    step(&mut w, 10);
    w.remove_joint(top).unwrap();
    assert_eq!(w.remove_joint(top), Err(Error::InvalidJoint));
    assert_eq!(w.joint_count(), 0);
    // Unjoined, it falls freely.
    let v0 = w.linear_velocity(a).unwrap().y;
    step(&mut w, 6);
    let dv = w.linear_velocity(a).unwrap().y - v0;
    assert!((dv + G * 6.0 * DT).abs() < 1e-3, "dv {dv}");
    // A new joint in the freed slot does not revive the old handle.
    let again = w
        .add_joint(JointDef::revolute(support, a, Vec2::new(0.0, 10.0)))
        .unwrap();
    assert_ne!(again, top);
    assert_eq!(w.joint_reaction_torque(top), Err(Error::InvalidJoint));
    // A handle of another world is foreign here.
    let mut other = world(Vec2::ZERO);
    let s = pin(&mut other, Vec2::ZERO);
    let o = ball(&mut other, Vec2::new(1.0, 0.0), 0.2, 1.0);
    let foreign = other
        .add_joint(JointDef::revolute(s, o, Vec2::ZERO))
        .unwrap();
    assert_eq!(w.remove_joint(foreign), Err(Error::InvalidJoint));
}

#[test]
fn joints_are_listed_in_slot_order_and_their_anchors_ride_on_their_bodies() {
    let mut w = world(Vec2::new(0.0, -G));
    let support = pin(&mut w, Vec2::new(0.0, 10.0));
    let a = ball(&mut w, Vec2::new(1.0, 10.0), 0.2, 1.0);
    let b = ball(&mut w, Vec2::new(1.0, 8.0), 0.2, 1.0);
    let hinge_at = Vec2::new(0.0, 10.0);
    let hinge = w
        .add_joint(JointDef::revolute(support, a, hinge_at))
        .unwrap();
    let (ends_a, ends_b) = (Vec2::new(1.2, 10.0), Vec2::new(1.0, 8.3));
    let rope = w
        .add_joint(JointDef::distance(a, b, ends_a, ends_b))
        .unwrap();
    assert_eq!(w.joints().collect::<Vec<_>>(), [hinge, rope]);
    // Where each anchor sits in its body's frame, taken by the test at creation.
    let locals = [
        (hinge, support, local_point(&w, support, hinge_at), a),
        (rope, a, local_point(&w, a, ends_a), b),
    ];
    let local_b = [local_point(&w, a, hinge_at), local_point(&w, b, ends_b)];
    let rest = (ends_b - ends_a).length();
    w.set_angular_velocity(b, 3.0).unwrap();
    for _ in 0..90 {
        w.step(DT).unwrap();
        for (&(id, body_a, la, body_b), &lb) in locals.iter().zip(&local_b) {
            let (pa, pb) = w.joint_anchors(id).unwrap();
            assert!((pa - point_of(&w, body_a, la)).length() < 1e-5, "{pa:?}");
            assert!((pb - point_of(&w, body_b, lb)).length() < 1e-5, "{pb:?}");
        }
        // The hinge holds its two points together, the rope its two ends at their distance.
        let (pa, pb) = w.joint_anchors(hinge).unwrap();
        assert!(
            (pb - pa).length() < 0.01,
            "hinge opened {}",
            (pb - pa).length()
        );
        let (pa, pb) = w.joint_anchors(rope).unwrap();
        let length = (pb - pa).length();
        assert!(
            (length - rest).abs() < 0.01 * rest,
            "rope {length} of {rest}"
        );
    }
    // A joint made after a removal takes the freed slot, and is listed there.
    w.remove_joint(hinge).unwrap();
    assert_eq!(w.joint_anchors(hinge), Err(Error::InvalidJoint));
    let again = w.add_joint(JointDef::weld(support, a, hinge_at)).unwrap();
    assert_eq!(w.joints().collect::<Vec<_>>(), [again, rope]);
}

#[test]
fn bad_joint_definitions_are_refused_and_leave_the_world_unchanged() {
    let mut w = world(Vec2::new(0.0, -G));
    let a = pin(&mut w, Vec2::new(0.0, 10.0));
    let b = ball(&mut w, Vec2::new(0.0, 9.0), 0.2, 1.0);
    let gone = ball(&mut w, Vec2::new(3.0, 9.0), 0.2, 1.0);
    w.remove_body(gone).unwrap();
    let p = Vec2::new(0.0, 9.5);
    let x = Vec2::new(1.0, 0.0);
    let nan = Vec2::new(f32::NAN, 0.0);
    let inf = Vec2::new(0.0, f32::INFINITY);
    let parameter = [
        JointDef::revolute(b, b, p),
        JointDef::revolute(a, b, nan),
        JointDef::revolute(a, b, inf),
        JointDef::revolute(a, b, p).limits(0.5, -0.5),
        JointDef::revolute(a, b, p).limits(f32::NAN, 0.5),
        JointDef::revolute(a, b, p).limits(-4.0, 0.0),
        JointDef::revolute(a, b, p).motor(1.0, -1.0),
        JointDef::revolute(a, b, p).motor(f32::INFINITY, 1.0),
        JointDef::revolute(a, b, p).spring(f32::NAN, 1.0),
        JointDef::distance(a, b, p, p),
        JointDef::distance(a, b, p, Vec2::new(0.0, 9.0)).spring(-1.0, 0.5),
        JointDef::distance(a, b, p, Vec2::new(0.0, 9.0)).spring(1.0, f32::NAN),
        JointDef::distance(a, b, p, Vec2::new(0.0, 9.0)).length_range(2.0, 1.0),
        JointDef::distance(a, b, p, Vec2::new(0.0, 9.0)).length_range(-1.0, 1.0),
        JointDef::distance(a, b, p, Vec2::new(0.0, 9.0)).limits(0.0, 1.0),
        JointDef::prismatic(a, b, p, Vec2::ZERO),
        JointDef::prismatic(a, b, p, nan),
        JointDef::prismatic(a, b, p, x).limits(1.0, -1.0),
        JointDef::wheel(a, b, p, Vec2::ZERO),
        JointDef::wheel(a, b, p, x).spring(-2.0, 0.7),
        JointDef::weld(a, b, p).motor(1.0, 1.0),
        JointDef::weld(a, b, nan),
        JointDef::mouse(b, nan),
        JointDef::mouse(b, p).max_force(-1.0),
        JointDef::mouse(b, p).max_force(f32::NAN),
        JointDef::revolute(a, b, p).max_force(1.0),
        JointDef::revolute(a, b, p).max_torque(1.0),
        JointDef::revolute(a, b, p).correction_factor(0.5),
        JointDef::motor_joint(a, b).max_torque(-1.0),
        JointDef::motor_joint(a, b).max_force(f32::NAN),
        JointDef::motor_joint(a, b).correction_factor(1.5),
        JointDef::motor_joint(a, b).correction_factor(f32::NAN),
        JointDef::motor_joint(a, b).spring(1.0, 1.0),
        JointDef::motor_joint(b, b),
    ];
    let before = state_bits(&w);
    for def in parameter {
        let result = w.add_joint(def.clone());
        assert!(
            matches!(result, Err(Error::InvalidParameter(_))),
            "{def:?} gave {result:?}"
        );
    }
    for def in [
        JointDef::revolute(a, gone, p),
        JointDef::revolute(gone, b, p),
        JointDef::mouse(gone, p),
    ] {
        assert_eq!(w.add_joint(def), Err(Error::InvalidBody));
    }
    assert_eq!(w.joint_count(), 0);
    assert_eq!(state_bits(&w), before);
    let hinge = w.add_joint(JointDef::revolute(a, b, p)).unwrap();
    assert!(matches!(
        w.set_mouse_target(hinge, p),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        w.set_motor_joint_target(hinge, p, 0.0),
        Err(Error::InvalidParameter(_))
    ));
    let drive = w.add_joint(JointDef::motor_joint(a, b)).unwrap();
    for (offset, angle) in [(nan, 0.0), (p, f32::INFINITY)] {
        assert!(matches!(
            w.set_motor_joint_target(drive, offset, angle),
            Err(Error::InvalidParameter(_))
        ));
    }
}

#[test]
fn jointed_bodies_sleep_together_and_wake_together() {
    let mut w = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    common::ground(&mut w);
    // A box resting on the ground and a ball hanging from it on a rod off the ground's edge
    // would need a ledge; instead: two boxes on the ground joined by a distance joint.
    let left = common::unit_box(&mut w, Vec2::new(-2.0, 0.5));
    let right = common::unit_box(&mut w, Vec2::new(2.0, 0.5));
    w.add_joint(JointDef::distance(
        left,
        right,
        Vec2::new(-2.0, 0.5),
        Vec2::new(2.0, 0.5),
    ))
    .unwrap();
    step(&mut w, 120);
    assert!(!w.is_awake(left).unwrap() && !w.is_awake(right).unwrap());
    // Pushing one wakes both: they are one island.
    w.apply_linear_impulse(left, Vec2::new(-1.0, 0.0)).unwrap();
    assert!(w.is_awake(right).unwrap());
    step(&mut w, 1);
    let v = w.linear_velocity(right).unwrap();
    assert!(v.x < 0.0, "the rod did not pull the other box: {v:?}");
    // A joint added to a sleeping body wakes it.
    step(&mut w, 240);
    assert!(!w.is_awake(right).unwrap());
    let hanger = pin(&mut w, Vec2::new(2.0, 5.0));
    w.add_joint(JointDef::revolute(hanger, right, Vec2::new(2.0, 1.0)))
        .unwrap();
    assert!(w.is_awake(right).unwrap() && w.is_awake(left).unwrap());
}

/// A 1 x 0.1 m bar of 1 kg centred at `at`, turned by `angle`.
fn bar(world: &mut World, at: Vec2, angle: f32) -> BodyId {
    let body = world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::rect(0.5, 0.05).unwrap()).density(10.0),
        )
        .unwrap();
    world.set_transform(body, at, angle).unwrap();
    body
}

/// Free bodies (no gravity, nothing else) held by joints that contradict each other, so that
/// no pose satisfies them all: two welds between two bars at poses 0.36 m and 0.5 rad apart,
/// two distance joints of 1 and 1.5 m between the same two points, and a ring of six bars
/// welded end to end whose closing hinge is 0.3 m out. The joints cannot close, so they
/// settle into a compromise: over 2000 steps the bodies' linear momentum stays zero and so
/// does their angular momentum, every body ends at rest, and each joint's force stays finite
/// and the same over the last 1000 steps, not growing. The point impulse of a weld or a hinge
/// acted on each body at that body's own anchor: with the anchors held apart, each impulse
/// turned the pair, and the two welds spun up to 110 rad/s, the ring to 19 rad/s and on.
#[test]
fn contradictory_joints_settle_into_a_compromise_without_spinning() {
    let mut cases = vec![];
    // Two welds: the second taken with B moved and turned.
    let mut w = world(Vec2::ZERO);
    let a = bar(&mut w, Vec2::ZERO, 0.0);
    let b = bar(&mut w, Vec2::new(1.0, 0.0), 0.0);
    let first = w
        .add_joint(JointDef::weld(a, b, Vec2::new(0.5, 0.0)))
        .unwrap();
    w.set_transform(b, Vec2::new(1.2, 0.3), 0.5).unwrap();
    let second = w
        .add_joint(JointDef::weld(a, b, Vec2::new(0.5, 0.0)))
        .unwrap();
    w.set_transform(b, Vec2::new(1.0, 0.0), 0.0).unwrap();
    cases.push(("two welds", w, vec![first, second]));
    // Two rods of 1 and 1.5 m between the same points, 1.2 m apart.
    let mut w = world(Vec2::ZERO);
    let a = ball(&mut w, Vec2::ZERO, 0.2, 8.0);
    let b = ball(&mut w, Vec2::new(1.0, 0.0), 0.2, 8.0);
    let short = JointDef::distance(a, b, Vec2::ZERO, Vec2::new(1.0, 0.0));
    let short = w.add_joint(short).unwrap();
    w.set_position(b, Vec2::new(1.5, 0.0)).unwrap();
    let long = JointDef::distance(a, b, Vec2::ZERO, Vec2::new(1.5, 0.0));
    let long = w.add_joint(long).unwrap();
    w.set_position(b, Vec2::new(1.2, 0.0)).unwrap();
    cases.push(("two rods", w, vec![short, long]));
    // A ring that cannot close: the first bar moved up before the closing hinge is taken.
    let mut w = world(Vec2::ZERO);
    let bars: Vec<BodyId> = (0..6)
        .map(|k| bar(&mut w, Vec2::new(0.5 + k as f32, 0.0), 0.0))
        .collect();
    let mut joints = vec![];
    for k in 0..5 {
        let at = Vec2::new(k as f32 + 1.0, 0.0);
        joints.push(
            w.add_joint(JointDef::weld(bars[k], bars[k + 1], at))
                .unwrap(),
        );
    }
    w.set_position(bars[0], Vec2::new(0.5, 0.3)).unwrap();
    let close = JointDef::revolute(bars[5], bars[0], Vec2::ZERO);
    joints.push(w.add_joint(close).unwrap());
    cases.push(("open ring", w, joints));

    for (name, mut w, joints) in cases {
        let bodies: Vec<BodyId> = w.bodies().collect();
        // Momentum about the origin: the bodies start at rest, and nothing outside acts.
        let momenta = |w: &World| {
            bodies.iter().fold((Vec2::ZERO, 0.0), |(p, l), &b| {
                let (m, i) = (w.mass(b).unwrap(), w.rotational_inertia(b).unwrap());
                let (c, v) = (w.position(b).unwrap(), w.linear_velocity(b).unwrap());
                let omega = w.angular_velocity(b).unwrap();
                (p + v * m, l + c.cross(v * m) + i * omega)
            })
        };
        let forces = |w: &World| -> Vec<f32> {
            let force = |j| w.joint_reaction_force(j).unwrap().length();
            joints.iter().map(|&j| force(j)).collect()
        };
        let (mut worst_p, mut worst_l): (f32, f32) = (0.0, 0.0);
        let mut range = vec![(f32::INFINITY, 0.0f32); joints.len()];
        for s in 0..2000 {
            w.step(DT).unwrap();
            let (p, l) = momenta(&w);
            assert!(
                p.is_finite() && l.is_finite(),
                "{name}: momentum {p:?}, {l}"
            );
            worst_p = worst_p.max(p.length());
            worst_l = worst_l.max(l.abs());
            if s >= 1000 {
                for (r, f) in range.iter_mut().zip(forces(&w)) {
                    *r = (r.0.min(f), r.1.max(f));
                }
            }
        }
        let fastest = bodies.iter().fold(0.0f32, |m, &b| {
            let v = w.linear_velocity(b).unwrap().length();
            m.max(v).max(w.angular_velocity(b).unwrap().abs())
        });
        println!("{name}: momentum at most {worst_p} kg m/s, angular {worst_l} kg m^2/s; fastest at the end {fastest}; forces over the last 1000 steps {range:?}");
        assert!(worst_p < 1e-3, "{name}: linear momentum {worst_p}");
        assert!(worst_l < 1e-2, "{name}: angular momentum {worst_l}");
        assert!(fastest < 1e-3, "{name}: a body still moves at {fastest}");
        for (k, (lo, hi)) in range.into_iter().enumerate() {
            assert!(
                hi.is_finite() && hi <= 1.01 * lo,
                "{name}: joint {k}'s force ranges over {lo}..{hi} N"
            );
        }
    }
}
