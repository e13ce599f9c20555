//! Hostile configurations: situations a user can create that a careless engine answers with NaN,
//! an explosion, a panic or a hang. Each test asserts a law or an invariant of the outcome.

use crate::common;

use batch2d::{
    BodyDef, BodyId, CharacterController, Error, QueryFilter, Rot, Shape, ShapeDef, Transform,
    Vec2, World, WorldSettings,
};
use common::{assert_all_finite, ground, state_bits as state, step, DT};

fn add_box(world: &mut World, p: Vec2, half: f32, density: f32) -> BodyId {
    world
        .add_body(
            BodyDef::dynamic().position(p),
            ShapeDef::new(Shape::rect(half, half).unwrap()).density(density),
        )
        .unwrap()
}

/// `n` circles of radius 0.05 created at one point, and their handles.
fn coincident_circles(world: &mut World, n: usize) -> Vec<BodyId> {
    (0..n)
        .map(|_| {
            world
                .add_body(
                    BodyDef::dynamic().position(Vec2::new(3.0, 7.0)),
                    ShapeDef::new(Shape::circle(0.05).unwrap()),
                )
                .unwrap()
        })
        .collect()
}

#[test]
fn two_circles_created_at_one_point_separate_at_the_push_out_cap() {
    let settings = WorldSettings::default();
    let (cap, g) = (settings.contact_push_max_velocity, settings.gravity);
    let slop = settings.linear_slop;
    let mut world = World::new(settings);
    let ids = coincident_circles(&mut world, 2);
    for k in 1..=30 {
        world.step(DT).unwrap();
        assert_all_finite(&world);
        // Equal masses, equal and opposite impulses: each moves at half the relative speed,
        // which the push-out never takes beyond the cap, on top of free fall.
        let fall = g * (k as f32 * DT);
        let (va, vb) = (
            world.linear_velocity(ids[0]).unwrap(),
            world.linear_velocity(ids[1]).unwrap(),
        );
        let relative = (vb - va).length();
        assert!(
            relative <= cap * 1.001,
            "step {k}: separating at {relative} m/s"
        );
        assert!(
            ((va + vb) * 0.5 - fall).length() < 1e-4,
            "step {k}: {va:?} {vb:?}"
        );
    }
    // And they did come apart: the push-out stops once the overlap is within the linear slop
    // (0.005 m), which the soft contact approaches from above.
    let d = (world.position(ids[1]).unwrap() - world.position(ids[0]).unwrap()).length();
    assert!(
        d >= 0.1 - 2.0 * slop,
        "still overlapping: centres {d} m apart"
    );
}

/// `n` circles created at one point: every body overlaps every other one. Each body shares the
/// push-out cap among its deep contacts, so none leaves faster than the cap (in the
/// free-falling frame), where a per-contact cap let Gauss-Seidel add the pushes up to 17 m/s.
/// (Shallow contacts, pushed from their first millimetre of overlap, keep a cap each: as the
/// cluster thins they may add a few percent on top.)
/// Also: no NaN, momentum conserved, the cluster comes apart (fewer touching pairs than
/// circles) by step `apart`, once apart it gains no energy over the next 60 steps, and it
/// spreads in the plane rather than along one axis (concentric circles get a normal per pair;
/// one shared normal lined them up).
fn circles_created_at_one_point(n: usize, apart: usize) {
    let settings = WorldSettings::default();
    let (g, cap) = (settings.gravity, settings.contact_push_max_velocity);
    let mut world = World::new(settings);
    let ids = coincident_circles(&mut world, n);
    let mut last_energy = f32::INFINITY;
    let mut fastest = 0.0f32;
    for k in 1..=apart + 60 {
        world.step(DT).unwrap();
        assert_all_finite(&world);
        // Kinetic energy and mean velocity in the free-falling frame.
        let fall = g * (k as f32 * DT);
        let mut mean = Vec2::ZERO;
        let mut energy = 0.0f32;
        for &id in &ids {
            let v = world.linear_velocity(id).unwrap();
            fastest = fastest.max((v - fall).length());
            mean += v * (1.0 / n as f32);
            energy += 0.5 * (v - fall).length_squared();
        }
        assert!(
            fastest <= 1.03 * cap,
            "step {k}: a circle left at {fastest} m/s, above the {cap} m/s cap"
        );
        assert!(
            (mean - fall).length() < 1e-3,
            "step {k}: momentum not conserved: mean velocity {mean:?}, free fall {fall:?}"
        );
        if k == apart {
            let touching = world.contact_count();
            assert!(
                touching < n,
                "after {k} steps still {touching} touching pairs"
            );
        }
        // Contacts that only separate can take energy out (relax, friction) but not put it
        // in: once the cluster is apart, energy never grows.
        if k > apart {
            assert!(
                energy <= last_energy * (1.0 + 1e-5),
                "step {k}: energy grew from {last_energy} to {energy}"
            );
        }
        last_energy = energy;
    }
    // They did get going: the cap is a bound, not a standstill.
    assert!(
        fastest > 0.5 * cap,
        "the fastest circle left at {fastest} m/s"
    );
    // Spread along x and along y (standard deviations) within a factor of two of each other.
    let positions: Vec<Vec2> = ids.iter().map(|&id| world.position(id).unwrap()).collect();
    let mean = positions
        .iter()
        .fold(Vec2::ZERO, |m, &p| m + p * (1.0 / n as f32));
    let spread = |axis: fn(Vec2) -> f32| {
        let var = positions
            .iter()
            .map(|&p| axis(p - mean).powi(2))
            .sum::<f32>()
            / n as f32;
        var.sqrt()
    };
    let (sx, sy) = (spread(|d| d.x), spread(|d| d.y));
    assert!(
        sx > 0.5 * sy && sy > 0.5 * sx,
        "spread {sx} m along x, {sy} m along y"
    );
}

/// 250 circles at one point (see [`circles_created_at_one_point`]), apart within 3 s.
#[test]
fn circles_created_at_one_point_separate_no_faster_than_the_push_out_cap() {
    circles_created_at_one_point(250, 180);
}

/// The same with a thousand circles, apart within 6 s (at one solve pass per substep; two
/// passes took 5): `cargo test --profile ci --test robust hostile:: -- --ignored`.
#[test]
#[ignore = "a thousand circles for 7 s: over a minute; the 250-circle version runs in CI"]
fn a_thousand_circles_created_at_one_point_separate_no_faster_than_the_push_out_cap() {
    circles_created_at_one_point(1000, 360);
}

/// A column of `n` unit boxes (1 kg each, 1 cm apart) on the ground with a box of the same
/// size and `heavy` kg on top. Returns the boxes from the bottom up.
fn heavy_on_light_stack(world: &mut World, n: usize, heavy: f32) -> Vec<BodyId> {
    ground(world);
    let mut stack: Vec<BodyId> = (0..n)
        .map(|i| add_box(world, Vec2::new(0.0, 0.5 + 1.01 * i as f32), 0.5, 1.0))
        .collect();
    let top = Vec2::new(0.0, 0.5 + 1.01 * n as f32);
    stack.push(add_box(world, top, 0.5, heavy));
    stack
}

/// Steps 10 s and returns the largest overlap of two neighbours in the column (the ground
/// counting as the first) seen at any step, after checking the column stays upright.
fn worst_overlap(world: &mut World, stack: &[BodyId]) -> f32 {
    let mut worst = 0.0f32;
    for k in 0..600 {
        world.step(DT).unwrap();
        assert_all_finite(world);
        // Boxes of side 1 resting on each other: centres 1 m apart, the lowest 0.5 m up.
        let mut below = -0.5f32;
        for (i, &id) in stack.iter().enumerate() {
            let p = world.position(id).unwrap();
            worst = worst.max(1.0 - (p.y - below));
            assert!(p.x.abs() < 0.1, "step {k}: box {i} slid to x = {}", p.x);
            below = p.y;
        }
    }
    worst
}

/// With contacts as stiff as the substep allows (16 substeps, contact frequency at its cap), a
/// box a thousand times heavier than the five it stands on is held: no box sinks more than
/// 5 cm into another or into the ground, and the heavy one ends within 5 cm of its rest height.
#[test]
fn a_thousand_kilogram_box_on_a_stack_of_one_kilogram_boxes_holds_with_stiff_contacts() {
    let mut world = World::new(WorldSettings {
        substeps: 16,
        contact_hertz: 1000.0,
        ..WorldSettings::default()
    });
    let stack = heavy_on_light_stack(&mut world, 5, 1000.0);
    let worst = worst_overlap(&mut world, &stack);
    assert!(worst < 0.05, "a box sank {worst} m into the one below");
    let drop = 5.5 - world.position(stack[5]).unwrap().y;
    assert!(
        drop < 0.05,
        "the heavy box sank {drop} m below its rest height"
    );
}

/// The same stack at the default settings (4 substeps, 45 Hz contacts). Soft contacts are
/// springs of stiffness `m_eff * (2 pi f)^2` with `m_eff` about the light box's mass, so the
/// 10 kN load would compress each one by about 0.25 m, and Gauss-Seidel would need passes in
/// proportion to the mass ratio to carry it. The column is a small island with a 1:1000 mass
/// ratio, so the direct solver takes it: rigid contacts, solved exactly.
#[test]
fn a_thousand_kilogram_box_on_a_stack_of_one_kilogram_boxes_holds_at_default_settings() {
    let mut world = World::new(WorldSettings::default());
    let stack = heavy_on_light_stack(&mut world, 5, 1000.0);
    let worst = worst_overlap(&mut world, &stack);
    assert!(worst < 0.05, "a box sank {worst} m into the one below");
}

#[test]
fn removing_a_body_with_warm_contacts_leaves_sane_neighbours_and_a_dead_handle() {
    let mut world = World::new(WorldSettings::default());
    let ground = ground(&mut world);
    let low = add_box(&mut world, Vec2::new(0.0, 0.5), 0.5, 1.0);
    let mid = add_box(&mut world, Vec2::new(0.0, 1.5), 0.5, 1.0);
    let top = add_box(&mut world, Vec2::new(0.0, 2.5), 0.5, 100.0);
    step(&mut world, 60);
    assert_eq!(world.contact_count(), 3);

    world.remove_body(mid).unwrap();
    // The handle is dead for every call, and removing twice is an error too.
    assert_eq!(world.position(mid), Err(Error::InvalidBody));
    assert_eq!(world.linear_velocity(mid), Err(Error::InvalidBody));
    assert_eq!(world.set_position(mid, Vec2::ZERO), Err(Error::InvalidBody));
    assert_eq!(world.remove_body(mid), Err(Error::InvalidBody));
    assert_eq!(world.body_count(), 3);

    // The top box falls the 1 m gap freely: no leftover impulse may push or hold it.
    let start = world.position(top).unwrap().y;
    let mut t = 0.0f32;
    loop {
        world.step(DT).unwrap();
        t += DT;
        assert_all_finite(&world);
        let y = world.position(top).unwrap().y;
        if y < 1.6 {
            break;
        }
        // Free fall drops 5 t² (semi-implicit Euler a little more); the box is never held up
        // nor shot down.
        let fallen = start - y;
        assert!(
            fallen <= 5.0 * (t + DT) * (t + DT),
            "t {t}: fell {fallen} m"
        );
        assert!(
            fallen >= 5.0 * (t - DT) * (t - DT),
            "t {t}: fell only {fallen} m"
        );
        assert!(t < 1.0, "the top box never came down");
    }
    // ... and lands on the low box, which stays on the ground.
    step(&mut world, 120);
    assert!((world.position(top).unwrap().y - 1.5).abs() < 0.05);
    assert!((world.position(low).unwrap().y - 0.5).abs() < 0.05);
    assert_eq!(world.contact_count(), 2);

    // A new body takes the freed slot; the old handle stays dead, the new one works, and the
    // slot's new pair with the ground inherits nothing from the removed body's contact.
    let newcomer = add_box(&mut world, Vec2::new(5.0, 0.5), 0.5, 1.0);
    assert_eq!(newcomer.slot(), mid.slot());
    assert_eq!(world.position(mid), Err(Error::InvalidBody));
    world.step(DT).unwrap();
    let v = world.linear_velocity(newcomer).unwrap();
    assert!(v.length() < 0.2, "a box placed at rest jumped to {v:?}");
    assert!(world.position(ground).is_ok());
}

#[test]
fn bodies_teleported_into_each_other_separate_without_nan() {
    let settings = WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    };
    let cap = settings.contact_push_max_velocity;
    let mut world = World::new(settings);
    let a = add_box(&mut world, Vec2::new(-3.0, 0.0), 0.5, 1.0);
    let b = add_box(&mut world, Vec2::new(3.0, 0.0), 0.5, 1.0);
    let c = common::ball(&mut world, Vec2::new(0.0, 5.0), 0.5);
    step(&mut world, 2);
    // b and c both onto a: b exactly (coincident, same angle), c a little off.
    world.set_position(b, Vec2::new(-3.0, 0.0)).unwrap();
    world.set_transform(c, Vec2::new(-2.9, 0.1), 0.7).unwrap();
    assert_eq!(world.position(b).unwrap(), Vec2::new(-3.0, 0.0));
    assert_eq!(world.transform(c).unwrap().p, Vec2::new(-2.9, 0.1));
    assert!((world.angle(c).unwrap() - 0.7).abs() < 1e-6);

    let ids = [a, b, c];
    for _ in 0..240 {
        world.step(DT).unwrap();
        assert_all_finite(&world);
        for &id in &ids {
            let v = world.linear_velocity(id).unwrap();
            // Pushed apart, never faster than the cap relative to the others (which move
            // too, so at most the cap in the centre-of-mass frame, which is at rest).
            assert!(v.length() <= 1.1 * cap, "{id:?} shot out at {v:?}");
        }
    }
    // Apart now: no two of them overlap more than the tolerated slop.
    let pa = world.position(a).unwrap();
    let pb = world.position(b).unwrap();
    let pc = world.position(c).unwrap();
    // Boxes of half-extent 0.5 no longer overlap when their centres are 1 m apart along an
    // axis (or farther apart in any direction than 1 m along the diagonal).
    let apart = |p: Vec2, q: Vec2, r: f32| (p - q).length() > r - 0.02;
    assert!(
        (pa.x - pb.x).abs().max((pa.y - pb.y).abs()) > 0.98,
        "{pa:?} {pb:?}"
    );
    assert!(
        apart(pa, pc, 1.0) && apart(pb, pc, 1.0),
        "{pa:?} {pb:?} {pc:?}"
    );
}

#[test]
fn teleports_with_bad_input_are_refused_and_change_nothing() {
    let mut world = World::new(WorldSettings::default());
    let a = add_box(&mut world, Vec2::new(1.0, 2.0), 0.5, 1.0);
    let before = (world.position(a).unwrap(), world.rotation(a).unwrap());
    let bad = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
    for x in bad {
        for p in [Vec2::new(x, 0.0), Vec2::new(0.0, x)] {
            assert!(matches!(
                world.set_position(a, p),
                Err(Error::InvalidParameter(_))
            ));
            assert!(matches!(
                world.set_transform(a, p, 0.0),
                Err(Error::InvalidParameter(_))
            ));
        }
        assert!(matches!(
            world.set_transform(a, Vec2::ZERO, x),
            Err(Error::InvalidParameter(_))
        ));
    }
    assert_eq!(
        (world.position(a).unwrap(), world.rotation(a).unwrap()),
        before
    );
    let mut other = World::new(WorldSettings::default());
    assert_eq!(other.set_position(a, Vec2::ZERO), Err(Error::InvalidBody));
}

#[test]
fn without_gravity_free_bodies_coast_and_collisions_conserve_momentum() {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        ..WorldSettings::default()
    });
    // A free body far from the others coasts in a straight line at constant speed.
    let free = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(0.0, 50.0))
                .linear_velocity(Vec2::new(2.0, -1.0))
                .angular_velocity(0.5),
            ShapeDef::new(Shape::rect(0.3, 0.2).unwrap()),
        )
        .unwrap();
    // Two bodies of different mass collide head on, off centre.
    let a = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(-3.0, 0.0))
                .linear_velocity(Vec2::new(4.0, 0.0)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).density(3.0),
        )
        .unwrap();
    let b = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(3.0, 0.3))
                .linear_velocity(Vec2::new(-2.0, 0.0)),
            ShapeDef::new(Shape::circle(0.5).unwrap()),
        )
        .unwrap();
    let (ma, mb) = (3.0f32, std::f32::consts::PI * 0.25);
    let momentum =
        |w: &World| w.linear_velocity(a).unwrap() * ma + w.linear_velocity(b).unwrap() * mb;
    let p0 = momentum(&world);
    let mut touched = false;
    for k in 1..=180 {
        world.step(DT).unwrap();
        touched |= world.contact_count() > 0;
        let p = momentum(&world);
        assert!(
            (p - p0).length() < 1e-3 * p0.length(),
            "step {k}: {p:?} vs {p0:?}"
        );
        let t = k as f32 * DT;
        let expect = Vec2::new(2.0 * t, 50.0 - t);
        assert!((world.position(free).unwrap() - expect).length() < 1e-3);
        assert_eq!(world.linear_velocity(free).unwrap(), Vec2::new(2.0, -1.0));
        assert_eq!(world.angular_velocity(free).unwrap(), 0.5);
    }
    assert!(touched, "the bodies never met");
}

#[test]
fn a_world_of_static_bodies_never_moves() {
    let mut world = World::new(WorldSettings::default());
    let ids: Vec<BodyId> = (0..50)
        .map(|i| {
            let p = Vec2::new((i % 10) as f32 * 0.7, (i / 10) as f32 * 0.7);
            let shape = if i % 2 == 0 {
                Shape::rect(0.5, 0.5).unwrap()
            } else {
                Shape::circle(0.5).unwrap()
            };
            world
                .add_body(
                    BodyDef::fixed().position(p).angle(0.1 * i as f32),
                    ShapeDef::new(shape),
                )
                .unwrap()
        })
        .collect();
    let before: Vec<_> = ids
        .iter()
        .map(|&id| (world.position(id).unwrap(), world.rotation(id).unwrap()))
        .collect();
    step(&mut world, 100);
    let after: Vec<_> = ids
        .iter()
        .map(|&id| (world.position(id).unwrap(), world.rotation(id).unwrap()))
        .collect();
    assert_eq!(before, after);
    // Overlapping static bodies never make contacts.
    assert_eq!(world.contact_count(), 0);
}

#[test]
fn a_world_without_bodies_steps() {
    let mut world = World::new(WorldSettings::default());
    step(&mut world, 10);
    assert_eq!(world.body_count(), 0);
    assert_eq!(world.contact_count(), 0);
    assert_eq!(world.bodies().count(), 0);
    // A world emptied while its bodies touched: no contact outlives them (and no graph color:
    // `world::tests::an_emptied_world_keeps_no_color`).
    let ground = ground(&mut world);
    let a = add_box(&mut world, Vec2::new(0.0, 0.5), 0.5, 1.0);
    step(&mut world, 5);
    assert_eq!(world.contact_count(), 1);
    world.remove_body(a).unwrap();
    world.remove_body(ground).unwrap();
    step(&mut world, 10);
    assert_eq!(world.body_count(), 0);
    assert_eq!(world.contact_count(), 0);
    // And it fills up again as new.
    let b = add_box(&mut world, Vec2::new(0.0, 5.0), 0.5, 1.0);
    world.step(DT).unwrap();
    assert!(world.linear_velocity(b).unwrap().y < 0.0);
}

/// A million steps of an empty world: its per-step overhead must be tiny (an empty world skips
/// the hand-off to the worker pool, which alone costs ~20 µs a step). Success is all it checks;
/// how long it takes shows as the test's run time (0.06 s in release on the 2-core machine).
#[test]
fn an_empty_world_steps_a_million_times() {
    let mut world = World::new(WorldSettings::default());
    for _ in 0..1_000_000 {
        world.step(DT).unwrap();
    }
    assert_eq!(world.body_count(), 0);
    assert_eq!(world.contact_count(), 0);
}

/// Settings that would make a step allocate or spawn without bound (u32::MAX substeps, a
/// million threads, more threads than the documented 256) or fail every step (a speed cap whose
/// square overflows) are refused by `try_new`, and `new` panics with the same error, without
/// building anything first.
#[test]
fn absurd_work_settings_are_refused() {
    let bad = [
        WorldSettings {
            substeps: u32::MAX,
            ..WorldSettings::default()
        },
        WorldSettings {
            substeps: 257,
            ..WorldSettings::default()
        },
        WorldSettings {
            solve_iterations: u32::MAX,
            ..WorldSettings::default()
        },
        WorldSettings {
            solve_iterations: 0,
            ..WorldSettings::default()
        },
        WorldSettings {
            threads: 1_000_000,
            ..WorldSettings::default()
        },
        WorldSettings {
            threads: usize::MAX,
            ..WorldSettings::default()
        },
        WorldSettings {
            threads: 257,
            ..WorldSettings::default()
        },
        WorldSettings {
            max_linear_speed: 1.0e38,
            ..WorldSettings::default()
        },
    ];
    for settings in bad {
        let what = format!("{settings:?}");
        let Err(Error::InvalidParameter(why)) = World::try_new(settings.clone()) else {
            panic!("try_new accepted {what}");
        };
        let panicked = std::panic::catch_unwind(|| World::new(settings)).err();
        let message = panicked.and_then(|p| p.downcast::<String>().ok());
        assert!(
            message.is_some_and(|m| m.contains(&why)),
            "new must panic with the error: {what}"
        );
    }
    // The edges of the ranges are fine.
    for edge in [
        WorldSettings {
            substeps: 256,
            solve_iterations: 1,
            threads: 1,
            ..WorldSettings::default()
        },
        WorldSettings {
            threads: 256,
            max_linear_speed: 1.0e18,
            ..WorldSettings::default()
        },
    ] {
        let mut world = World::try_new(edge).unwrap();
        add_box(&mut world, Vec2::ZERO, 0.5, 1.0);
        world.step(DT).unwrap();
    }
}

/// 10,000 circles created at one point overlap in 49,995,000 pairs, far past the default
/// `max_pairs`: the step is refused with `TooManyPairs` (instead of asking for gigabytes of
/// contacts), the world is left exactly as it was, and it steps again once enough bodies are
/// gone.
#[test]
fn ten_thousand_circles_at_one_point_are_refused_without_harm() {
    let mut world = World::new(WorldSettings::default());
    let floor = ground(&mut world);
    let ids = coincident_circles(&mut world, 10_000);
    let max_pairs = WorldSettings::default().max_pairs;
    assert!(ids.len() * (ids.len() - 1) / 2 > max_pairs);
    let before = state(&world);
    for _ in 0..3 {
        assert_eq!(world.step(DT), Err(Error::TooManyPairs { max_pairs }));
        assert_eq!(state(&world), before);
    }
    // With 100 left they overlap in fewer pairs than the limit.
    for &id in &ids[100..] {
        world.remove_body(id).unwrap();
    }
    world.step(DT).unwrap();
    assert_all_finite(&world);
    assert_eq!(world.position(floor).unwrap(), Vec2::new(0.0, -1.0));
}

/// Left at its default, the pair limit grows with the world at `PAIRS_PER_BODY` per body past
/// the default; a limit set to any other value, lower or higher, is kept at every size.
#[test]
fn the_default_pair_limit_grows_with_the_world_and_a_set_one_stays() {
    let default = WorldSettings::default();
    let floor = WorldSettings::DEFAULT_MAX_PAIRS;
    assert_eq!(default.max_pairs, floor);
    let per_body = WorldSettings::PAIRS_PER_BODY;
    for bodies in [0, 1, 10_000, floor / per_body, 1_000_000, usize::MAX] {
        let expected = floor.max(bodies.saturating_mul(per_body));
        assert_eq!(default.pair_limit(bodies), expected, "{bodies} bodies");
        for max_pairs in [0, 64, floor - 1, floor + 1, usize::MAX] {
            let set = WorldSettings {
                max_pairs,
                ..WorldSettings::default()
            };
            assert_eq!(set.pair_limit(bodies), max_pairs, "{bodies} bodies");
        }
    }
    // Bodies at one point overlap in pairs that grow with their square: past a few dozen of
    // them, more pairs than the per-body allowance.
    let coincident = |n: usize| n * (n - 1) / 2;
    assert!(coincident(10_000) > default.pair_limit(10_000));
}

/// The limit is exact: 200 clusters of 12 coincident circles overlap in `200 * 12 * 11 / 2`
/// pairs, which pass at that limit and fail one below, on every thread count (the clusters
/// spread the pairs over the broadphase's parallel chunks).
#[test]
fn the_pair_limit_counts_overlapping_pairs_exactly() {
    let (clusters, size) = (200, 12);
    let pairs = clusters * size * (size - 1) / 2;
    for threads in [1, 2, 3] {
        for (max_pairs, ok) in [(pairs, true), (pairs - 1, false)] {
            let mut world = World::new(WorldSettings {
                threads,
                max_pairs,
                gravity: Vec2::ZERO,
                ..WorldSettings::default()
            });
            for k in 0..clusters * size {
                let at = Vec2::new((k / size) as f32 * 3.0, 0.0);
                let def = BodyDef::dynamic().position(at);
                world
                    .add_body(def, ShapeDef::new(Shape::circle(0.5).unwrap()))
                    .unwrap();
            }
            let before = state(&world);
            let result = world.step(DT);
            if ok {
                assert_eq!(result, Ok(()), "{threads} threads, limit {max_pairs}");
                assert_eq!(world.contact_count(), pairs);
            } else {
                assert_eq!(result, Err(Error::TooManyPairs { max_pairs }));
                assert_eq!(state(&world), before);
            }
        }
    }
}

/// A world of boxes, a thin wall and a chain for the moving queries to run into.
fn query_world() -> World {
    let mut world = World::new(WorldSettings::default());
    ground(&mut world);
    for i in 0..20 {
        add_box(&mut world, Vec2::new(i as f32 * 0.7 - 7.0, 1.0), 0.3, 1.0);
    }
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(4.0, 3.0)),
            ShapeDef::new(Shape::rect(0.005, 3.0).unwrap()),
        )
        .unwrap();
    step(&mut world, 30);
    world
}

/// Turning casts with hostile input: non-finite turns and translations are refused; turns of
/// a billion radians, translations of 1e30 m and casts from a billion metres out answer (the
/// search is bounded) with a hit that is sane or none. Queries never change the world.
#[test]
fn turning_casts_with_hostile_input_answer_or_refuse() {
    let world = query_world();
    let before = state(&world);
    let bar = Shape::rect(3.0, 0.01).unwrap();
    let at = |x: f32, y: f32| Transform::new(Vec2::new(x, y), Rot::from_angle(0.3));
    let filter = QueryFilter::new();
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let cast = world.cast_shape_rotating(&bar, at(0.0, 3.0), Vec2::new(1.0, 0.0), bad, filter);
        assert!(
            matches!(cast, Err(Error::InvalidParameter(_))),
            "turn {bad}"
        );
        let cast = world.cast_shape_rotating(&bar, at(0.0, 3.0), Vec2::new(bad, 0.0), 1.0, filter);
        assert!(
            matches!(cast, Err(Error::InvalidParameter(_))),
            "translation {bad}"
        );
    }
    let cases = [
        (at(0.0, 3.0), Vec2::new(1.0, 0.0), 1.0e9),
        (at(0.0, 3.0), Vec2::new(1.0e30, -1.0e30), 1.0),
        (at(0.0, 3.0), Vec2::ZERO, -1.0e30),
        (at(1.0e9, 1.0e9), Vec2::new(-2.0e9, -2.0e9), 10.0),
        (at(0.0, 3.0), Vec2::new(f32::MAX, f32::MAX), f32::MAX),
    ];
    for (xf, translation, rotation) in cases {
        let got = world.cast_shape_rotating(&bar, xf, translation, rotation, filter);
        let what = (xf, translation, rotation);
        let hit = got.unwrap_or_else(|e| panic!("{what:?}: {e}"));
        if let Some(hit) = hit {
            assert!((0.0..=1.0).contains(&hit.fraction), "{what:?}: {hit:?}");
            assert!(hit.point.is_finite(), "{what:?}: {hit:?}");
            assert!(
                (hit.normal.length() - 1.0).abs() < 1e-3,
                "{what:?}: {hit:?}"
            );
        }
    }
    assert_eq!(state(&world), before);
}

/// The character mover with hostile input: non-finite translations, bad steps and stale
/// handles to ignore are refused; a translation of 1e30 m answers with a finite move.
#[test]
fn character_moves_with_hostile_input_answer_or_refuse() {
    let mut world = query_world();
    let capsule = Shape::capsule(Vec2::new(0.0, -0.4), Vec2::new(0.0, 0.4), 0.3).unwrap();
    let xf = Transform::new(Vec2::new(0.0, 4.0), Rot::IDENTITY);
    let controller = CharacterController::default();
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let moved = world.move_character(&controller, &capsule, xf, Vec2::new(bad, 0.0), DT);
        assert!(matches!(moved, Err(Error::InvalidParameter(_))), "{bad}");
    }
    for dt in [0.0, -DT, f32::NAN, f32::INFINITY, 2.0] {
        let moved = world.move_character(&controller, &capsule, xf, Vec2::new(1.0, 0.0), dt);
        assert!(matches!(moved, Err(Error::InvalidParameter(_))), "dt {dt}");
    }
    let gone = add_box(&mut world, Vec2::new(0.0, 10.0), 0.2, 1.0);
    world.remove_body(gone).unwrap();
    let ignoring = CharacterController {
        ignore: Some(gone),
        ..CharacterController::default()
    };
    let moved = world.move_character(&ignoring, &capsule, xf, Vec2::new(1.0, 0.0), DT);
    assert_eq!(moved.map(|_| ()), Err(Error::InvalidBody));
    let before = state(&world);
    // Down and left it slides along the box tops and off the ground's end, 1e30 m away;
    // right, the wall at x = 4 stops it.
    for translation in [Vec2::new(1.0e30, 0.0), Vec2::new(-1.0e30, -1.0e30)] {
        let moved = world
            .move_character(&controller, &capsule, xf, translation, DT)
            .unwrap();
        assert!(moved.translation.is_finite(), "{translation:?}: {moved:?}");
        if translation.x > 0.0 {
            assert!(moved.translation.x < 4.0, "{translation:?}: {moved:?}");
        }
    }
    assert_eq!(state(&world), before);
}

/// Two hundred bullets created at one point, fired in every direction at up to the speed
/// cap: each sweeps against all the others, and the world stays finite and deterministic.
#[test]
fn two_hundred_bullets_fired_from_one_point_stay_finite() {
    let run = || {
        let mut world = World::new(WorldSettings::default());
        ground(&mut world);
        let mut rng = common::Rng(7);
        for _ in 0..200 {
            let angle = rng.range(-3.2, 3.2);
            let def = BodyDef::dynamic()
                .position(Vec2::new(0.0, 2.0))
                .linear_velocity(Vec2::new(angle.cos(), angle.sin()) * rng.range(0.0, 1.0e4))
                .bullet(true);
            world
                .add_body(def, ShapeDef::new(Shape::circle(0.05).unwrap()))
                .unwrap();
        }
        step(&mut world, 10);
        assert_all_finite(&world);
        state(&world)
    };
    assert_eq!(run(), run());
}
