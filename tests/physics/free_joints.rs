//! Jointed bodies held by nothing keep their momenta: with no gravity and nothing outside
//! them, a hinged pair, a welded pair, a chain and a ragdoll-like tree spinning and tumbling
//! keep their linear momentum, their angular momentum about their centre of mass
//! (`sum m (r - c) x (v - v_c) + I w`, computed here from each body's state) and, the joints
//! being ideal, their kinetic energy. Their joints are solved exactly (the joint trees).

use batch2d::{BodyDef, BodyId, JointDef, Shape, ShapeDef, Vec2, World, WorldSettings};

const DT: f32 = 1.0 / 60.0;

fn world() -> World {
    let mut world = World::new(WorldSettings::default());
    world.set_gravity(Vec2::ZERO).unwrap();
    world
}

/// A dynamic box `2 hw` x `2 hh` of `mass` kg centred at `at`, turned by `angle`, in the one
/// group whose shapes pass through each other: these tests measure the joints. (Contacts
/// between the limbs of a ragdoll spinning this fast do not keep its angular momentum: their
/// anchors are kept from the start of the step, and a ragdoll whose limbs hit each other
/// lost 0.5% of it in 2 s.)
fn block(world: &mut World, at: Vec2, angle: f32, hw: f32, hh: f32, mass: f32) -> BodyId {
    let density = mass / (4.0 * hw * hh);
    world
        .add_body(
            BodyDef::dynamic().position(at).angle(angle),
            ShapeDef::new(Shape::rect(hw, hh).unwrap())
                .density(density)
                .group(-1),
        )
        .unwrap()
}

/// Sets every body moving as one rigid body turning at `w` about their centre of mass, plus
/// each its own extra turn `spin[k]` (a tumble the joints must share out).
fn spin_about_center(world: &mut World, bodies: &[BodyId], w: f32, spin: &[f32]) {
    let (c, _) = center(world, bodies);
    for (k, &b) in bodies.iter().enumerate() {
        let r = world.position(b).unwrap() - c;
        world
            .set_linear_velocity(b, Vec2::new(-w * r.y, w * r.x))
            .unwrap();
        world.set_angular_velocity(b, w + spin[k]).unwrap();
    }
}

/// The centre of mass of `bodies` and its velocity, in f64.
fn center(world: &World, bodies: &[BodyId]) -> (Vec2, Vec2) {
    let (mut m, mut c, mut v) = (0.0f64, [0.0f64; 2], [0.0f64; 2]);
    for &b in bodies {
        let mass = f64::from(world.mass(b).unwrap());
        let (p, u) = (
            world.position(b).unwrap(),
            world.linear_velocity(b).unwrap(),
        );
        m += mass;
        c = [c[0] + mass * f64::from(p.x), c[1] + mass * f64::from(p.y)];
        v = [v[0] + mass * f64::from(u.x), v[1] + mass * f64::from(u.y)];
    }
    (
        Vec2::new((c[0] / m) as f32, (c[1] / m) as f32),
        Vec2::new((v[0] / m) as f32, (v[1] / m) as f32),
    )
}

/// The momenta and energy of `bodies`: linear momentum (x, y), angular momentum about their
/// centre of mass, kinetic energy; in f64 from each body's mass, inertia and motion.
fn momenta(world: &World, bodies: &[BodyId]) -> [f64; 4] {
    let (mut m, mut c, mut p) = (0.0f64, [0.0f64; 2], [0.0f64; 2]);
    let state = |b: BodyId| {
        let (x, v) = (
            world.position(b).unwrap(),
            world.linear_velocity(b).unwrap(),
        );
        let (mass, inertia) = (world.mass(b).unwrap(), world.rotational_inertia(b).unwrap());
        let w = world.angular_velocity(b).unwrap();
        [x.x, x.y, v.x, v.y, w, mass, inertia].map(f64::from)
    };
    for &b in bodies {
        let [x, y, vx, vy, _, mass, _] = state(b);
        m += mass;
        c = [c[0] + mass * x, c[1] + mass * y];
        p = [p[0] + mass * vx, p[1] + mass * vy];
    }
    let (c, vc) = ([c[0] / m, c[1] / m], [p[0] / m, p[1] / m]);
    let (mut angular, mut energy) = (0.0, 0.0);
    for &b in bodies {
        let [x, y, vx, vy, w, mass, inertia] = state(b);
        let (rx, ry, ux, uy) = (x - c[0], y - c[1], vx - vc[0], vy - vc[1]);
        angular += mass * (rx * uy - ry * ux) + inertia * w;
        energy += 0.5 * (mass * (vx * vx + vy * vy) + inertia * w * w);
    }
    [p[0], p[1], angular, energy]
}

/// What a free jointed group did over `steps` steps: the largest change of its linear
/// momentum (kg m/s), and of its angular momentum and kinetic energy relative to their
/// starts; and the most its kinetic energy ever rose above its start, relative.
#[derive(Debug)]
struct Drift {
    linear: f64,
    angular: f64,
    energy: f64,
    gained: f64,
}

fn drift(world: &mut World, bodies: &[BodyId], steps: usize) -> Drift {
    let start = momenta(world, bodies);
    let (mut linear, mut angular, mut energy, mut gained) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for _ in 0..steps {
        world.step(DT).unwrap();
        let now = momenta(world, bodies);
        assert!(now.iter().all(|x| x.is_finite()), "{now:?}");
        linear = linear.max((now[0] - start[0]).hypot(now[1] - start[1]));
        angular = angular.max(((now[2] - start[2]) / start[2]).abs());
        energy = energy.max(((now[3] - start[3]) / start[3]).abs());
        gained = gained.max((now[3] - start[3]) / start[3]);
    }
    Drift {
        linear,
        angular,
        energy,
        gained,
    }
}

/// Two 1 x 0.2 m bars of 1 kg hinged end to end at the origin, spinning about it at `w`
/// rad/s; with `limits`, the hinge's limits of +-0.5 rad.
fn hinged_pair(w: f32, limits: bool, weld: bool) -> (World, Vec<BodyId>) {
    let mut world = world();
    let a = block(&mut world, Vec2::new(-0.5, 0.0), 0.0, 0.5, 0.1, 1.0);
    let b = block(&mut world, Vec2::new(0.5, 0.0), 0.0, 0.5, 0.1, 1.0);
    let def = match (weld, limits) {
        (true, _) => JointDef::weld(a, b, Vec2::ZERO),
        (false, true) => JointDef::revolute(a, b, Vec2::ZERO).limits(-0.5, 0.5),
        (false, false) => JointDef::revolute(a, b, Vec2::ZERO),
    };
    world.add_joint(def).unwrap();
    let bodies = vec![a, b];
    spin_about_center(&mut world, &bodies, w, &[0.0, 0.0]);
    (world, bodies)
}

/// A hinged pair (free, and with limits of +-0.5 rad) and a welded pair of 1 x 0.2 m bars of
/// 1 kg spinning at 30 rad/s about their joint, for 1 s: their angular momentum about their
/// centre of mass stays within 1e-4 of its start, their linear momentum (zero) within 1e-4
/// kg m/s, and, the pair turning as one rigid body, so does their kinetic energy. The
/// position projection, moving the bodies back onto their joints at the speed they had, once
/// took 0.8% of the angular momentum every step, and 74% of the energy in 1 s.
#[test]
fn a_free_hinged_pair_spinning_keeps_its_momenta() {
    for (limits, weld) in [(false, false), (true, false), (false, true)] {
        let (mut world, bodies) = hinged_pair(30.0, limits, weld);
        let d = drift(&mut world, &bodies, 60);
        println!("pair (limits {limits}, weld {weld}) at 30 rad/s, 1 s: {d:?}");
        assert!(d.linear < 1e-4, "linear momentum off by {}", d.linear);
        assert!(d.angular < 1e-4, "angular momentum off by {}", d.angular);
        assert!(d.energy < 1e-4, "energy off by {}", d.energy);
    }
}

/// The largest linear momentum that f32 velocities of `bodies` round off: 1e-6 of the sum of
/// their momenta's sizes, per step.
fn rounding(world: &World, bodies: &[BodyId], steps: usize) -> f64 {
    let sum: f64 = bodies
        .iter()
        .map(|&b| f64::from(world.mass(b).unwrap() * world.linear_velocity(b).unwrap().length()))
        .sum();
    1e-6 * sum * steps as f64
}

/// A chain of five 1 x 0.2 m bars of 1, 2, 0.5, 3 and 1 kg hinged end to end, spinning at
/// 10 rad/s as a whole with each bar tumbling at its own extra turn, for 2 s: its angular
/// momentum stays within 1e-4 of its start, its linear momentum within what f32 rounds off.
/// Its kinetic energy, which ideal hinges keep, never rises, and falls by under 1% (0.68%:
/// the velocity solve at the projected positions shortens the bars' turns relative to each
/// other a little every substep).
#[test]
fn a_free_tumbling_chain_keeps_its_momenta() {
    let mut world = world();
    let masses = [1.0, 2.0, 0.5, 3.0, 1.0];
    let bodies: Vec<BodyId> = masses
        .iter()
        .enumerate()
        .map(|(k, &m)| block(&mut world, Vec2::new(k as f32, 0.0), 0.0, 0.5, 0.1, m))
        .collect();
    for k in 1..bodies.len() {
        let anchor = Vec2::new(k as f32 - 0.5, 0.0);
        world
            .add_joint(JointDef::revolute(bodies[k - 1], bodies[k], anchor))
            .unwrap();
    }
    spin_about_center(&mut world, &bodies, 10.0, &[3.0, -5.0, 8.0, 0.0, -4.0]);
    let bound = rounding(&world, &bodies, 120);
    let d = drift(&mut world, &bodies, 120);
    println!("chain of five tumbling, 2 s: {d:?}");
    assert!(d.linear < bound, "linear momentum off by {}", d.linear);
    assert!(d.angular < 1e-4, "angular momentum off by {}", d.angular);
    assert!(d.gained < 1e-4, "energy rose by {}", d.gained);
    assert!(d.energy < 0.01, "energy off by {}", d.energy);
}

/// A ragdoll: a 0.4 x 0.8 m torso of 4 kg, a head, and two arms and two legs of two parts
/// each, hinged at the neck, shoulders, elbows, hips and knees (the neck, elbows and knees
/// with limits), thrown tumbling at 8 rad/s with its limbs flailing, for 2 s: its angular
/// momentum stays within 1e-4 of its start, its linear momentum within what f32 rounds off,
/// and its kinetic energy never rises. (It falls by 11%: the flailing limbs' turns relative
/// to each other, several times the chain's, are shortened by the velocity solve at the
/// projected positions.)
#[test]
fn a_free_tumbling_ragdoll_keeps_its_momenta() {
    let mut world = world();
    let torso = block(&mut world, Vec2::ZERO, 0.0, 0.2, 0.4, 4.0);
    let head = block(&mut world, Vec2::new(0.0, 0.6), 0.0, 0.15, 0.15, 1.0);
    let neck = JointDef::revolute(torso, head, Vec2::new(0.0, 0.45)).limits(-0.5, 0.5);
    world.add_joint(neck).unwrap();
    let mut bodies = vec![torso, head];
    // Each limb: from where it joins the torso, its direction, and whether its middle joint
    // has limits.
    let limbs = [
        (Vec2::new(-0.2, 0.35), Vec2::new(-1.0, 0.0)),
        (Vec2::new(0.2, 0.35), Vec2::new(1.0, 0.0)),
        (Vec2::new(-0.12, -0.4), Vec2::new(0.0, -1.0)),
        (Vec2::new(0.12, -0.4), Vec2::new(0.0, -1.0)),
    ];
    for (root, dir) in limbs {
        let mut parent = torso;
        let mut joint_at = root;
        for (part, mass) in [1.5, 1.0].into_iter().enumerate() {
            let centre = joint_at + dir * 0.2;
            let angle = dir.y.atan2(dir.x);
            let bone = block(&mut world, centre, angle, 0.2, 0.06, mass);
            let hinge = JointDef::revolute(parent, bone, joint_at);
            let hinge = if part == 1 {
                hinge.limits(-1.5, 0.0)
            } else {
                hinge
            };
            world.add_joint(hinge).unwrap();
            bodies.push(bone);
            parent = bone;
            joint_at += dir * 0.4;
        }
    }
    let flail = [0.0, 3.0, -6.0, 9.0, 5.0, -7.0, 4.0, 2.0, -3.0, 6.0];
    spin_about_center(&mut world, &bodies, 8.0, &flail);
    let bound = rounding(&world, &bodies, 120);
    let d = drift(&mut world, &bodies, 120);
    println!("ragdoll tumbling, 2 s: {d:?}");
    assert!(d.linear < bound, "linear momentum off by {}", d.linear);
    assert!(d.angular < 1e-4, "angular momentum off by {}", d.angular);
    assert!(d.gained < 1e-4, "energy rose by {}", d.gained);
}
