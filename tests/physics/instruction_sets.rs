//! Every instruction set of the SIMD kernels that this CPU has (portable `wide` vectors, AVX2,
//! AVX-512) against the scalar backend, bit for bit, on scenes that run every kernel: two-point
//! box contacts, one-point circle contacts, bounces and pin joints.

use crate::common;

use batch2d::scenes::{self, Scene};
use batch2d::{
    Backend, BodyDef, Error, InstructionSet, JointDef, Shape, ShapeDef, Vec2, World, WorldSettings,
};
use common::state_bits as snapshot;

const STEPS: usize = 120;

/// The scalar backend, then every supported instruction set of the SIMD one (failing if one
/// that `BATCH2D_REQUIRE_ISA` names is missing).
fn runs() -> Vec<(String, WorldSettings)> {
    common::required_instruction_sets();
    let mut runs = vec![(
        "scalar".to_string(),
        WorldSettings {
            backend: Backend::Scalar,
            ..WorldSettings::default()
        },
    )];
    for set in InstructionSet::ALL.into_iter().filter(|s| s.is_supported()) {
        let settings = WorldSettings {
            instruction_set: Some(set),
            ..WorldSettings::default()
        };
        runs.push((set.name().to_string(), settings));
    }
    runs
}

/// Circles and boxes of restitution 0.6 dropped in a staggered grid onto the ground: the
/// impact kernels run as well as the solves.
fn bouncy_pile(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    common::ground(&mut world);
    for row in 0..12 {
        for col in 0..24 {
            let x = col as f32 * 1.1 - 13.0 + 0.3 * (row % 2) as f32;
            let at = Vec2::new(x, 2.0 + row as f32 * 1.2);
            let shape = if (row + col) % 3 == 0 {
                Shape::rect(0.4, 0.3).unwrap()
            } else {
                Shape::circle(0.45).unwrap()
            };
            world
                .add_body(
                    BodyDef::dynamic().position(at),
                    ShapeDef::new(shape).restitution(0.6),
                )
                .unwrap();
        }
    }
    world
}

fn run(name: &str, mut world: World) -> Vec<u32> {
    for _ in 0..STEPS {
        world.step(1.0 / 60.0).unwrap();
    }
    assert!(world.contact_count() > 0 || name == "joint grid");
    snapshot(&world)
}

/// Compares every run of one scene with the first.
fn compare(scene: &str, build: impl Fn(WorldSettings) -> World) {
    let mut reference = None;
    for (set, settings) in runs() {
        let bits = run(
            scene,
            build(WorldSettings {
                threads: 2,
                ..settings
            }),
        );
        let Some((first, want)) = &reference else {
            reference = Some((set, bits));
            continue;
        };
        assert_eq!(want.len(), bits.len());
        let differs = want.iter().zip(&bits).position(|(a, b)| a != b);
        assert_eq!(differs, None, "{scene}: {set} differs from {first} at word");
    }
}

#[test]
fn every_instruction_set_gives_the_same_bits() {
    compare("large pyramid", |s| Scene::LargePyramid.build(s).unwrap());
    compare("mixed pile", |s| Scene::MixedPile.build(s).unwrap());
    compare("bouncy pile", bouncy_pile);
    compare("joint grid", |s| scenes::joint_grid(40, s).unwrap().0);
}

/// A set that CI requires (from the CPU's flags) must be one the engine detects: else the
/// comparisons above would leave it out without a word.
#[test]
fn every_required_instruction_set_is_supported() {
    for set in common::required_instruction_sets() {
        assert!(set.is_supported(), "{set:?}");
        assert!(InstructionSet::widest() >= set, "{set:?}");
    }
}

#[test]
fn an_instruction_set_the_cpu_lacks_is_an_error() {
    for set in InstructionSet::ALL {
        let settings = WorldSettings {
            instruction_set: Some(set),
            ..WorldSettings::default()
        };
        match World::try_new(settings) {
            Ok(_) => assert!(set.is_supported(), "{set:?}"),
            Err(Error::InvalidParameter(why)) => {
                assert!(!set.is_supported(), "{set:?}");
                assert!(why.contains(set.name()), "{why}");
            }
            Err(e) => panic!("{set:?}: {e}"),
        }
    }
    assert!(InstructionSet::Portable.is_supported());
    let widest = InstructionSet::widest();
    assert!(widest.is_supported());
    assert!(
        batch2d::instruction_set().starts_with(widest.name()) || widest == InstructionSet::Portable
    );
}

// ---------------------------------------------------------------------------------------------
// Every feature on every instruction set, backend and thread count.
// ---------------------------------------------------------------------------------------------

/// Balls and boxes dropped through a sensor band onto the ground, and a dynamic body carrying a
/// sensor among them: sensor events every step on every configuration.
fn sensor_scene(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    common::ground_of(&mut world, 10.0);
    let band = ShapeDef::new(Shape::rect(8.0, 0.5).unwrap()).sensor(true);
    let at = BodyDef::fixed().position(Vec2::new(0.0, 2.0));
    world.add_body(at, band).unwrap();
    let carried = ShapeDef::new(Shape::circle(0.9).unwrap()).sensor(true);
    let falling = BodyDef::dynamic().position(Vec2::new(0.5, 6.0));
    world.add_body(falling, carried).unwrap();
    for i in 0..40 {
        let at = Vec2::new((i % 10) as f32 * 0.9 - 4.0, 4.0 + (i / 10) as f32);
        match i % 2 {
            0 => common::ball(&mut world, at, 0.3),
            _ => common::unit_box(&mut world, at),
        };
    }
    world
}

/// L-shaped and T-shaped bodies of several shapes each, piled.
fn compound_scene(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    common::ground_of(&mut world, 10.0);
    let part = |hw, hh, x, y, angle| {
        ShapeDef::new(Shape::offset_rect(hw, hh, Vec2::new(x, y), angle).unwrap())
    };
    for i in 0..30 {
        let shapes = match i % 3 {
            0 => vec![
                part(0.6, 0.1, 0.0, 0.0, 0.0),
                part(0.1, 0.4, -0.5, 0.3, 0.0),
            ],
            1 => vec![
                part(0.6, 0.1, 0.0, 0.0, 0.0),
                part(0.1, 0.4, 0.0, -0.4, 0.0),
                ShapeDef::new(Shape::circle_at(Vec2::new(0.5, 0.2), 0.2).unwrap()),
            ],
            _ => vec![
                part(0.3, 0.3, 0.0, 0.0, 0.4),
                ShapeDef::new(
                    Shape::capsule(Vec2::new(-0.5, 0.4), Vec2::new(0.5, 0.4), 0.1).unwrap(),
                ),
            ],
        };
        let at = Vec2::new((i % 6) as f32 * 1.5 - 4.0, 1.0 + (i / 6) as f32 * 1.2);
        let def = BodyDef::dynamic().position(at).angle(0.2 * i as f32);
        world.add_compound_body(def, &shapes).unwrap();
    }
    world
}

/// Small stacks that fall asleep quickly, then a ball that wakes one of them, and a body pushed
/// awake by a force: islands sleep and wake within the run.
fn sleep_scene(settings: WorldSettings) -> World {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        time_to_sleep: 0.25,
        ..settings
    });
    common::ground_of(&mut world, 20.0);
    for stack in 0..6 {
        for level in 0..4 {
            let at = Vec2::new(stack as f32 * 3.0 - 7.5, 0.5 + level as f32);
            common::unit_box(&mut world, at);
        }
    }
    // Falls for about a second, onto the first stack, after the stacks slept.
    common::ball(&mut world, Vec2::new(-7.5, 12.0), 0.4);
    world
}

/// Bullets and fast small bodies fired at a thin wall: continuous collision on every step.
fn ccd_scene(settings: WorldSettings) -> World {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..settings
    });
    let wall = ShapeDef::new(Shape::rect(0.05, 6.0).unwrap());
    world
        .add_body(BodyDef::fixed().position(Vec2::new(5.0, 0.0)), wall)
        .unwrap();
    for i in 0..16 {
        let shape = match i % 3 {
            0 => Shape::circle(0.05).unwrap(),
            1 => Shape::rect(0.08, 0.04).unwrap(),
            _ => Shape::capsule(Vec2::new(-0.1, 0.0), Vec2::new(0.1, 0.0), 0.03).unwrap(),
        };
        let def = BodyDef::dynamic()
            .position(Vec2::new(-2.0 - 0.3 * i as f32, 0.6 * i as f32 - 4.5))
            .linear_velocity(Vec2::new(150.0 + 20.0 * i as f32, 3.0 * (i % 5) as f32))
            .angular_velocity(10.0 * (i % 4) as f32)
            .bullet(i % 2 == 0);
        world.add_body(def, ShapeDef::new(shape)).unwrap();
    }
    world
}

/// Capsules, segments' chain ground and rounded polygons in a valley.
fn capsule_scene(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    let v = Vec2::new;
    let valley = [
        v(-8.0, 6.0),
        v(-4.0, 0.5),
        v(0.0, 0.0),
        v(4.0, 0.5),
        v(8.0, 6.0),
    ];
    let edge = ShapeDef::new(Shape::circle(1.0).unwrap());
    world
        .add_segment_chain(BodyDef::fixed(), &valley, &edge)
        .unwrap();
    for i in 0..48 {
        let shape = match i % 3 {
            0 => Shape::capsule(v(-0.3, 0.0), v(0.3, 0.0), 0.15).unwrap(),
            1 => Shape::rounded_polygon(&[v(-0.2, -0.2), v(0.2, -0.2), v(0.0, 0.2)], 0.05).unwrap(),
            _ => Shape::circle(0.25).unwrap(),
        };
        let at = v((i % 8) as f32 * 0.9 - 3.2, 2.0 + (i / 8) as f32 * 0.9);
        let def = BodyDef::dynamic().position(at).angle(0.7 * i as f32);
        world.add_body(def, ShapeDef::new(shape)).unwrap();
    }
    world
}

/// Every joint kind, each with the options it has: plain pins (the SIMD pin kernels), a hinge
/// with limits and motor, rigid, sprung and slack distance joints, a slider with limits and
/// motor, a weld, a sprung motorised wheel, a mouse and a motor joint; over boxes that collide.
fn joint_scene(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    let ground = common::ground_of(&mut world, 20.0);
    let v = Vec2::new;
    let boxy = |world: &mut World, at: Vec2| common::unit_box(world, at);
    // A chain of plain pins hanging from a fixed anchor: the SIMD pin batches.
    let mut last = world
        .add_body(
            BodyDef::fixed().position(v(-10.0, 12.0)),
            ShapeDef::new(Shape::circle(0.1).unwrap()),
        )
        .unwrap();
    for i in 0..12 {
        let link = boxy(&mut world, v(-9.5 + i as f32, 12.0));
        let pin = JointDef::revolute(last, link, v(-10.0 + i as f32, 12.0));
        world.add_joint(pin).unwrap();
        last = link;
    }
    let (a, b) = (boxy(&mut world, v(0.0, 6.0)), boxy(&mut world, v(1.0, 6.0)));
    let hinge = JointDef::revolute(a, b, v(0.5, 6.0));
    world
        .add_joint(hinge.limits(-0.5, 0.5).motor(2.0, 50.0))
        .unwrap();
    let c = boxy(&mut world, v(3.0, 6.0));
    world
        .add_joint(JointDef::distance(b, c, v(1.0, 6.0), v(3.0, 6.0)))
        .unwrap();
    let d = boxy(&mut world, v(5.0, 7.0));
    let spring = JointDef::distance(c, d, v(3.0, 6.0), v(5.0, 7.0)).spring(4.0, 0.5);
    world.add_joint(spring.length_range(1.0, 3.0)).unwrap();
    let e = boxy(&mut world, v(7.0, 3.0));
    let slider = JointDef::prismatic(ground, e, v(7.0, 3.0), v(0.0, 1.0));
    world
        .add_joint(slider.limits(-1.0, 1.0).motor(1.0, 200.0))
        .unwrap();
    let f = boxy(&mut world, v(8.0, 3.0));
    world.add_joint(JointDef::weld(e, f, v(7.5, 3.0))).unwrap();
    let chassis = world
        .add_body(
            BodyDef::dynamic().position(v(-4.0, 2.0)),
            ShapeDef::new(Shape::rect(1.0, 0.25).unwrap()),
        )
        .unwrap();
    for x in [-4.8, -3.2] {
        let tyre = common::ball(&mut world, v(x, 1.2), 0.4);
        let wheel = JointDef::wheel(chassis, tyre, v(x, 1.2), v(0.0, 1.0)).spring(5.0, 0.7);
        world.add_joint(wheel.motor(-5.0, 40.0)).unwrap();
    }
    let dragged = boxy(&mut world, v(-1.0, 3.0));
    let mouse = JointDef::mouse(dragged, v(-1.0, 3.0)).max_force(500.0);
    let mouse = world.add_joint(mouse).unwrap();
    world.set_mouse_target(mouse, v(0.0, 5.0)).unwrap();
    let driven = boxy(&mut world, v(10.0, 1.0));
    let motor = JointDef::motor_joint(ground, driven).max_force(100.0);
    world.add_joint(motor.max_torque(50.0)).unwrap();
    world
}

/// The fingerprints of a scene every 30 steps, over 120 steps.
fn fingerprints(build: &dyn Fn(WorldSettings) -> World, settings: WorldSettings) -> Vec<Vec<u32>> {
    let mut world = build(settings);
    (0..4)
        .map(|_| {
            for _ in 0..30 {
                world.step(1.0 / 60.0).unwrap();
            }
            common::state_bits(&world)
        })
        .collect()
}

/// Scenes that exercise sensors, compound bodies, sleep and waking, continuous collision,
/// capsules on a chain and every joint kind give the reference path's bits (scalar backend, one
/// thread) every 30 steps on the scalar backend and on every instruction set of the SIMD one,
/// on 1, 2 and 3 threads. Each scene also shows that it did what it is for.
#[test]
fn every_feature_gives_the_same_bits_on_every_set_backend_and_thread_count() {
    type Build = fn(WorldSettings) -> World;
    let scenes: [(&str, Build); 6] = [
        ("sensors", sensor_scene),
        ("compounds", compound_scene),
        ("sleep", sleep_scene),
        ("ccd", ccd_scene),
        ("capsules", capsule_scene),
        ("joints", joint_scene),
    ];
    for (scene, build) in scenes {
        let reference = fingerprints(
            &build,
            WorldSettings {
                backend: Backend::Scalar,
                threads: 1,
                ..WorldSettings::default()
            },
        );
        for (name, settings) in runs() {
            for threads in [1, 2, 3] {
                let got = fingerprints(
                    &build,
                    WorldSettings {
                        threads,
                        ..settings.clone()
                    },
                );
                for (k, (want, got)) in reference.iter().zip(&got).enumerate() {
                    let differs = common::first_difference(want, got);
                    assert_eq!(
                        differs,
                        None,
                        "{scene}: {name} on {threads} threads differs from scalar on one, step {}",
                        30 * (k + 1)
                    );
                }
            }
        }
    }
}

/// What the scenes above are for happens in them.
#[test]
fn the_feature_scenes_exercise_their_features() {
    let step = |world: &mut World, n: usize| {
        for _ in 0..n {
            world.step(1.0 / 60.0).unwrap();
        }
    };
    let mut world = sensor_scene(WorldSettings::default());
    let mut sensed = 0;
    for _ in 0..120 {
        world.step(1.0 / 60.0).unwrap();
        sensed += world.contact_events().sensor_begin().len();
    }
    assert!(sensed >= 20, "{sensed} sensor begins");

    let mut world = sleep_scene(WorldSettings::default());
    step(&mut world, 50);
    let asleep = |w: &World| w.bodies().filter(|&id| !w.is_awake(id).unwrap()).count();
    assert!(asleep(&world) >= 20, "{} asleep", asleep(&world));
    let before = asleep(&world);
    // The ball lands on the first stack about 1.4 s in.
    step(&mut world, 40);
    assert!(asleep(&world) < before, "the ball woke nothing");

    let mut world = ccd_scene(WorldSettings::default());
    step(&mut world, 60);
    let through = world
        .bodies()
        .filter(|&id| world.position(id).unwrap().x > 5.0)
        .count();
    assert_eq!(through, 0, "bodies passed through the wall");

    let mut world = joint_scene(WorldSettings::default());
    assert!(world.joint_count() >= 20);
    step(&mut world, 60);
    let pulled = world
        .joints()
        .filter(|&j| world.joint_reaction_force(j).unwrap().length() > 0.0)
        .count();
    assert_eq!(pulled, world.joint_count(), "a joint carried no force");
}

/// A snapshot taken on the widest instruction set restores on every narrower one and on the
/// scalar backend, and the restored worlds step to the bits the saved world steps to: peers on
/// machines with different instruction sets can roll back to each other's snapshots. Taken at
/// step 45, mid-bounce, with contacts, joints and sleeping stacks in the state.
#[test]
fn a_snapshot_from_the_widest_set_restores_to_the_same_bits_on_every_other() {
    type Build = fn(WorldSettings) -> World;
    let scenes: [(&str, Build); 3] = [
        ("bouncy pile", bouncy_pile),
        ("sleep", sleep_scene),
        ("joints", joint_scene),
    ];
    let widest = WorldSettings {
        instruction_set: Some(InstructionSet::widest()),
        threads: 2,
        ..WorldSettings::default()
    };
    for (scene, build) in scenes {
        let mut world = build(widest.clone());
        for _ in 0..45 {
            world.step(1.0 / 60.0).unwrap();
        }
        let snap = world.snapshot();
        let bytes = snap.to_bytes();
        for _ in 0..45 {
            world.step(1.0 / 60.0).unwrap();
        }
        let want = snapshot(&world);
        for (name, settings) in runs() {
            // Into a new world, and over a world of that set that has stepped on its own.
            let mut made = World::from_snapshot(&snap, settings.clone()).unwrap();
            let mut restored = build(settings.clone());
            restored.step(1.0 / 60.0).unwrap();
            restored.restore(&snap).unwrap();
            assert_eq!(restored.settings().backend, settings.backend);
            assert_eq!(
                restored.settings().instruction_set,
                settings.instruction_set
            );
            assert_eq!(made.snapshot().to_bytes(), bytes, "{scene}: {name}");
            for _ in 0..45 {
                made.step(1.0 / 60.0).unwrap();
                restored.step(1.0 / 60.0).unwrap();
            }
            for (how, got) in [("from_snapshot", &made), ("restore", &restored)] {
                let differs = common::first_difference(&want, &snapshot(got));
                assert_eq!(
                    differs, None,
                    "{scene}: {how} on {name} differs from the widest set"
                );
                assert_eq!(
                    got.state_hash(),
                    world.state_hash(),
                    "{scene}: {how} on {name}"
                );
            }
        }
    }
}
