//! Every instruction set of the SIMD kernels that this CPU has (portable `wide` vectors, AVX2,
//! AVX-512) against the scalar backend, bit for bit, on scenes that run every kernel: two-point
//! box contacts, one-point circle contacts, bounces and pin joints.

mod common;

use batch2d::scenes::{self, Scene};
use batch2d::{
    Backend, BodyDef, Error, InstructionSet, Shape, ShapeDef, Vec2, World, WorldSettings,
};
use common::body_state_bits as snapshot;

const STEPS: usize = 120;

/// The scalar backend, then every supported instruction set of the SIMD one.
fn runs() -> Vec<(String, WorldSettings)> {
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
