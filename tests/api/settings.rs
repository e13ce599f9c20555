//! Settings changed while the world runs: new gravity follows `v = g t` from the change on and
//! wakes sleeping bodies; settings set before the first step give the same bits as a world
//! created with them; bad values and the fixed fields are refused with the world unchanged.

use crate::common;

use batch2d::{Backend, BodyDef, Error, MixRule, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::{ground, state_bits};

const DT: f32 = 1.0 / 60.0;

#[test]
fn new_gravity_acts_from_the_next_step() {
    let mut world = World::new(WorldSettings::default());
    let ball = world
        .add_body(
            BodyDef::dynamic(),
            ShapeDef::new(Shape::circle(0.5).unwrap()),
        )
        .unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let v0 = world.linear_velocity(ball).unwrap();
    let g = Vec2::new(3.0, 9.81);
    world.set_gravity(g).unwrap();
    assert_eq!(world.settings().gravity, g);
    let steps = 60;
    for _ in 0..steps {
        world.step(DT).unwrap();
    }
    // v = v0 + g t, up to the rounding of 4 * 60 additions (f32::EPSILON each, relative).
    let t = steps as f32 * DT;
    let v = world.linear_velocity(ball).unwrap();
    let expected = v0 + g * t;
    let tolerance = 250.0 * f32::EPSILON * expected.length().max(v0.length());
    assert!(
        (v - expected).length() <= tolerance,
        "{v:?} vs {expected:?}"
    );
}

#[test]
fn new_gravity_wakes_sleeping_bodies() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    ground(&mut world);
    let block = common::unit_box(&mut world, Vec2::new(0.0, 0.5));
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    assert!(!world.is_awake(block).unwrap());
    // The same gravity is no change: it sleeps on.
    world.set_gravity(world.settings().gravity).unwrap();
    assert!(!world.is_awake(block).unwrap());
    world.set_gravity(Vec2::new(0.0, 10.0)).unwrap();
    assert!(world.is_awake(block).unwrap());
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    assert!(world.position(block).unwrap().y > 1.0, "falls up");
}

#[test]
fn turning_sleep_off_wakes_everything() {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        ..WorldSettings::default()
    });
    ground(&mut world);
    for k in 0..3 {
        common::unit_box(&mut world, Vec2::new(2.0 * k as f32, 0.5));
    }
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    assert_eq!(world.awake_body_count(), 0);
    let settings = WorldSettings {
        enable_sleep: false,
        ..world.settings().clone()
    };
    world.set_settings(settings).unwrap();
    assert_eq!(world.awake_body_count(), 3);
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    assert_eq!(world.awake_body_count(), 3, "sleep is off");
}

/// A box pile with a bouncy ball, so that every setting has something to act on.
fn pile(settings: WorldSettings) -> World {
    let mut world = World::new(settings);
    ground(&mut world);
    for i in 0..12 {
        let p = Vec2::new((i % 4) as f32 * 1.05 - 2.0, 0.5 + (i / 4) as f32 * 1.05);
        common::unit_box(&mut world, p);
    }
    world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(4.0, 3.0)),
            ShapeDef::new(Shape::circle(0.4).unwrap()).restitution(0.8),
        )
        .unwrap();
    world
}

#[test]
fn settings_changed_before_the_first_step_match_a_world_created_with_them() {
    let changed = WorldSettings {
        gravity: Vec2::new(1.0, -7.0),
        substeps: 6,
        solve_iterations: 3,
        joint_solve_iterations: 4,
        backend: Backend::Scalar,
        contact_hertz: 30.0,
        contact_damping_ratio: 5.0,
        contact_push_max_velocity: 2.0,
        linear_slop: 0.004,
        restitution_threshold: 0.5,
        max_linear_speed: 100.0,
        enable_sleep: true,
        time_to_sleep: 0.3,
        recycle_distance: 0.0025,
        recycle_angle: 0.003,
        ..WorldSettings::default()
    };
    let mut created = pile(changed.clone());
    let mut switched = pile(WorldSettings::default());
    switched.set_settings(changed.clone()).unwrap();
    assert_eq!(switched.settings(), &changed);
    for step in 0..120 {
        created.step(DT).unwrap();
        switched.step(DT).unwrap();
        assert_eq!(state_bits(&switched), state_bits(&created), "step {step}");
    }
}

#[test]
fn bad_or_fixed_settings_are_refused_and_change_nothing() {
    let base = WorldSettings {
        threads: 2,
        ..WorldSettings::default()
    };
    let mut world = pile(base.clone());
    let mut reference = pile(base.clone());
    let bad = [
        WorldSettings {
            gravity: Vec2::new(f32::NAN, 0.0),
            ..base.clone()
        },
        WorldSettings {
            substeps: 0,
            ..base.clone()
        },
        WorldSettings {
            solve_iterations: 1000,
            ..base.clone()
        },
        WorldSettings {
            joint_solve_iterations: 0,
            ..base.clone()
        },
        WorldSettings {
            contact_hertz: -1.0,
            ..base.clone()
        },
        WorldSettings {
            linear_slop: f32::INFINITY,
            ..base.clone()
        },
        WorldSettings {
            time_to_sleep: -0.5,
            ..base.clone()
        },
        WorldSettings {
            recycle_distance: f32::NAN,
            ..base.clone()
        },
        WorldSettings {
            recycle_distance: -0.001,
            ..base.clone()
        },
        WorldSettings {
            recycle_angle: f32::INFINITY,
            ..base.clone()
        },
        WorldSettings {
            recycle_angle: -1.0,
            ..base.clone()
        },
        WorldSettings {
            restitution_threshold: f32::NAN,
            ..base.clone()
        },
        // Valid, but fixed at creation.
        WorldSettings {
            threads: 1,
            ..base.clone()
        },
        WorldSettings {
            friction_mixing: MixRule::Max,
            ..base.clone()
        },
        WorldSettings {
            restitution_mixing: MixRule::Average,
            ..base.clone()
        },
    ];
    for settings in bad {
        let result = world.set_settings(settings.clone());
        assert!(
            matches!(result, Err(Error::InvalidParameter(_))),
            "{settings:?} gave {result:?}"
        );
        // What try_new says about the same settings, for those that are invalid as such.
        if settings.validate().is_err() {
            assert_eq!(result.err(), World::try_new(settings).err());
        }
    }
    for g in [Vec2::new(f32::NAN, 0.0), Vec2::new(0.0, f32::NEG_INFINITY)] {
        assert!(matches!(
            world.set_gravity(g),
            Err(Error::InvalidParameter(_))
        ));
    }
    assert_eq!(world.settings(), &base);
    for _ in 0..30 {
        world.step(DT).unwrap();
        reference.step(DT).unwrap();
    }
    assert_eq!(state_bits(&world), state_bits(&reference));
}

/// The recycle tolerances are physics settings: a snapshot's bytes carry them, and a world
/// off their defaults hashes apart from one at them, while the defaults are those documented.
#[test]
fn recycle_tolerances_are_saved_and_hashed() {
    let defaults = WorldSettings::default();
    assert_eq!(defaults.recycle_distance, 0.005);
    assert_eq!(defaults.recycle_angle, 0.004);
    let wide = WorldSettings {
        recycle_distance: 0.01,
        recycle_angle: 0.01,
        ..defaults.clone()
    };
    let at_defaults = pile(defaults);
    let widened = pile(wide.clone());
    assert_ne!(widened.state_hash(), at_defaults.state_hash());
    let bytes = widened.snapshot().to_bytes();
    let restored = World::from_snapshot(
        &batch2d::Snapshot::from_bytes(&bytes).unwrap(),
        WorldSettings::default(),
    )
    .unwrap();
    assert_eq!(restored.settings().recycle_distance, 0.01);
    assert_eq!(restored.settings().recycle_angle, 0.01);
    assert_eq!(restored.state_hash(), widened.state_hash());
}
