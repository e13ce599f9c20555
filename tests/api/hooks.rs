//! Run-time control for games: hit events with the speed at impact, the pre-solve hook
//! (one-way platforms, conveyor belts, per-contact friction) and its refusals, each checked
//! against the law it follows.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, Error, HitEvent, PreSolveContact, Shape, ShapeDef, Vec2, World,
    WorldSettings,
};
use common::ground;

const DT: f32 = 1.0 / 60.0;

/// Steps `world` `steps` times and gathers its hit events.
fn hits_over(world: &mut World, steps: usize) -> Vec<HitEvent> {
    let mut hits = Vec::new();
    for _ in 0..steps {
        world.step(DT).unwrap();
        hits.extend_from_slice(world.contact_events().hit());
    }
    hits
}

/// Balls dropped from rest from heights 0.5 to 8 m each report one hit, at the free-fall
/// impact speed `sqrt(2 g h)` within 1% (begin events, which once gave the speed at the start
/// of the step before the impact, could be `g dt` low: 6.17 instead of 6.32 m/s from 2 m).
#[test]
fn a_hit_reports_the_speed_at_impact() {
    let settings = WorldSettings::default();
    let g = -settings.gravity.y;
    let mut world = World::new(settings);
    let floor = ground(&mut world);
    let r = 0.25;
    let heights = [0.5, 1.0, 2.0, 4.0, 8.0];
    let balls: Vec<BodyId> = (heights.iter().enumerate())
        .map(|(i, &h)| common::ball(&mut world, Vec2::new(3.0 * i as f32, r + h), r))
        .collect();
    let hits = hits_over(&mut world, 150);
    for (&ball, &h) in balls.iter().zip(&heights) {
        let first = hits
            .iter()
            .find(|e| e.b == ball)
            .unwrap_or_else(|| panic!("the ball from {h} m hits the ground: {hits:?}"));
        assert_eq!(first.a, floor);
        assert!((first.normal - Vec2::new(0.0, 1.0)).length() < 1e-5);
        assert!(
            (first.point.y).abs() < 0.01,
            "on the ground: {:?}",
            first.point
        );
        let impact = (2.0 * g * h).sqrt();
        let error = (first.speed - impact).abs() / impact;
        assert!(
            error < 0.01,
            "drop {h} m: hit at {} m/s, sqrt(2 g h) = {impact}",
            first.speed
        );
    }
}

/// A pair that meets slower than `hit_event_threshold` begins touching without a hit; the
/// default threshold is Box2D's 1 m/s.
#[test]
fn below_the_threshold_a_landing_is_no_hit() {
    assert_eq!(WorldSettings::default().hit_event_threshold, 1.0);
    let settings = WorldSettings {
        hit_event_threshold: 3.0,
        ..WorldSettings::default()
    };
    let g = -settings.gravity.y;
    let mut world = World::new(settings);
    ground(&mut world);
    let r = 0.25;
    // sqrt(2 g h): 2 m/s from 0.2 m, under the threshold; 4.5 m/s from 1 m, over it.
    let (low, high) = (0.2f32, 1.0f32);
    assert!((2.0 * g * low).sqrt() < 3.0 && (2.0 * g * high).sqrt() > 3.0);
    let soft = common::ball(&mut world, Vec2::new(0.0, r + low), r);
    let hard = common::ball(&mut world, Vec2::new(3.0, r + high), r);
    let mut begun = Vec::new();
    let mut hits = Vec::new();
    for _ in 0..90 {
        world.step(DT).unwrap();
        begun.extend(world.contact_events().begin().iter().map(|e| e.b));
        hits.extend(world.contact_events().hit().iter().map(|e| e.b));
    }
    assert!(begun.contains(&soft) && begun.contains(&hard), "both land");
    assert_eq!(hits, [hard], "only the fast landing is a hit");
}

/// A negative or non-finite threshold is refused, naming the field.
#[test]
fn a_bad_hit_threshold_is_refused() {
    for bad in [-1.0, f32::NAN, f32::INFINITY] {
        let settings = WorldSettings {
            hit_event_threshold: bad,
            ..WorldSettings::default()
        };
        let err = World::try_new(settings).err().expect("refused");
        assert!(err.to_string().contains("hit_event_threshold"), "{err}");
    }
}

/// A fixed platform 4 m wide and 0.2 m thick whose top face is at `top`.
fn platform(world: &mut World, top: f32) -> BodyId {
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, top - 0.1)),
            ShapeDef::new(Shape::rect(2.0, 0.1).unwrap()),
        )
        .unwrap()
}

/// The one-way rule: a contact with `platform` holds only a body above it, one whose normal
/// from the platform points up and which is not sunk into it (a body passing up through it is
/// deep inside when its centre rises past the platform's and the normal turns up).
fn one_way(platform: BodyId) -> impl Fn(&mut PreSolveContact) -> bool + Send + Sync + 'static {
    move |c: &mut PreSolveContact| {
        let up = if c.a == platform {
            c.normal.y
        } else if c.b == platform {
            -c.normal.y
        } else {
            return true;
        };
        up > 0.5 && c.points.iter().all(|p| p.separation > -0.05)
    }
}

/// A ball thrown up from under a one-way platform passes through it, rising as high as a free
/// ballistic flight takes it (`v^2 / 2 g` above its start), then lands on the platform and
/// rests on its top; a ball dropped from above is held. Without the hook the rising ball
/// bounces off the platform's underside.
#[test]
fn a_one_way_platform_lets_a_ball_pass_from_below_and_holds_it_from_above() {
    let (r, top, v0) = (0.25f32, 2.0f32, 9.0f32);
    let run = |hooked: bool| {
        let settings = WorldSettings::default();
        let g = -settings.gravity.y;
        let mut world = World::new(settings);
        let shelf = platform(&mut world, top);
        if hooked {
            world.set_pre_solve(one_way(shelf)).unwrap();
        }
        let rising = world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(-1.0, 0.0))
                    .linear_velocity(Vec2::new(0.0, v0)),
                ShapeDef::new(Shape::circle(r).unwrap()),
            )
            .unwrap();
        let falling = common::ball(&mut world, Vec2::new(1.0, top + 1.5), r);
        let mut apex = f32::MIN;
        for _ in 0..240 {
            world.step(DT).unwrap();
            apex = apex.max(world.position(rising).unwrap().y);
        }
        let rest = |id| world.position(id).unwrap().y;
        (apex, rest(rising), rest(falling), g)
    };
    let (apex, rising, falling, g) = run(true);
    let ballistic = v0 * v0 / (2.0 * g);
    assert!(
        (apex - ballistic).abs() < 0.02 * ballistic,
        "passes freely: apex {apex}, ballistic {ballistic}"
    );
    let on_top = top + r;
    assert!(
        (rising - on_top).abs() < 0.01,
        "lands on top: {rising} vs {on_top}"
    );
    assert!(
        (falling - on_top).abs() < 0.01,
        "held from above: {falling} vs {on_top}"
    );

    let (apex, ..) = run(false);
    assert!(
        apex < top - r + 0.01,
        "without the hook it hits the underside: {apex}"
    );
}

/// A box at rest on a conveyor belt (the hook's tangent speed `s`) is dragged by kinetic
/// friction, accelerating at `mu g` until it moves with the belt, then keeps the belt's speed.
/// The belt carries it along `right_perp` of the normal from the belt to the box whether the
/// belt is the contact's `a` (created first) or its `b`: both the normal and the relative
/// velocity then turn around.
#[test]
fn a_conveyor_carries_a_box_at_its_tangent_speed() {
    for belt_first in [true, false] {
        let (mu, speed) = (0.6f32, 2.0f32);
        let settings = WorldSettings::default();
        let g = -settings.gravity.y;
        let mut world = World::new(settings);
        let add_belt = |world: &mut World| {
            world
                .add_body(
                    BodyDef::fixed().position(Vec2::new(0.0, -0.5)),
                    ShapeDef::new(Shape::rect(50.0, 0.5).unwrap()).friction(mu),
                )
                .unwrap()
        };
        let add_parcel = |world: &mut World| {
            world
                .add_body(
                    BodyDef::dynamic().position(Vec2::new(0.0, 0.5)),
                    ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()).friction(mu),
                )
                .unwrap()
        };
        let (belt, parcel) = if belt_first {
            let belt = add_belt(&mut world);
            (belt, add_parcel(&mut world))
        } else {
            let parcel = add_parcel(&mut world);
            (add_belt(&mut world), parcel)
        };
        world
            .set_pre_solve(move |c: &mut PreSolveContact| {
                if c.a == belt || c.b == belt {
                    c.tangent_speed = speed;
                }
                true
            })
            .unwrap();
        // While it slips: v = mu g t.
        let slipping = 12;
        for _ in 0..slipping {
            world.step(DT).unwrap();
        }
        let t = slipping as f32 * DT;
        let v = world.linear_velocity(parcel).unwrap().x;
        let expected = mu * g * t;
        assert!(expected < speed);
        assert!(
            (v - expected).abs() < 0.03 * expected,
            "belt first {belt_first}, slipping: {v} vs mu g t = {expected}"
        );
        for _ in 0..60 {
            world.step(DT).unwrap();
        }
        let v = world.linear_velocity(parcel).unwrap();
        assert!(
            (v.x - speed).abs() < 0.01 * speed,
            "belt first {belt_first}: moves with the belt: {v:?}"
        );
        assert!(v.y.abs() < 0.01, "and stays on it: {v:?}");
    }
}

/// A box resting on a slope of 20 degrees is held by its friction (0.6 > tan 20 = 0.36); the
/// hook's friction 0 for that contact lets it slide with `a = g sin(theta)`.
#[test]
fn per_contact_friction_zero_lets_a_box_slide_at_g_sin_theta() {
    let theta = 20.0f32.to_radians();
    let run = |frictionless: bool| {
        let settings = WorldSettings::default();
        let g = -settings.gravity.y;
        let mut world = World::new(settings);
        let (down, normal) = (
            Vec2::new(-theta.cos(), -theta.sin()),
            Vec2::new(-theta.sin(), theta.cos()),
        );
        world
            .add_body(
                BodyDef::fixed().position(normal * -1.0).angle(theta),
                ShapeDef::new(Shape::rect(50.0, 1.0).unwrap()),
            )
            .unwrap();
        let block = world
            .add_body(
                BodyDef::dynamic().position(normal * 0.5).angle(theta),
                ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
            )
            .unwrap();
        if frictionless {
            world
                .set_pre_solve(|c: &mut PreSolveContact| {
                    c.friction = 0.0;
                    true
                })
                .unwrap();
        }
        // Settle onto the slope, then measure the speed gained over one second.
        for _ in 0..6 {
            world.step(DT).unwrap();
        }
        let v0 = world.linear_velocity(block).unwrap().dot(down);
        for _ in 0..60 {
            world.step(DT).unwrap();
        }
        let v1 = world.linear_velocity(block).unwrap().dot(down);
        (v1 - v0, g)
    };
    let (gained, g) = run(true);
    let law = g * theta.sin();
    assert!(
        (gained - law).abs() < 0.01 * law,
        "a = {gained} m/s^2 vs g sin(theta) = {law}"
    );
    let (held, _) = run(false);
    assert!(held.abs() < 0.01, "held by friction: {held}");
}

/// A pile with a hook that changes every contact (friction, restitution, tangent speed by the
/// contact's bodies, some disabled) gives bit-identical bodies for both backends and one or
/// two threads.
#[test]
fn a_hooked_world_is_bit_identical_on_every_thread_count_and_backend() {
    let run = |backend: Backend, threads: usize| {
        let settings = WorldSettings {
            backend,
            threads,
            ..WorldSettings::default()
        };
        let mut world = World::new(settings);
        ground(&mut world);
        for i in 0..120 {
            let at = Vec2::new((i % 12) as f32 * 0.9 - 5.0, 0.5 + (i / 12) as f32 * 1.05);
            let shape = match i % 3 {
                0 => Shape::circle(0.4).unwrap(),
                _ => Shape::rect(0.4, 0.4).unwrap(),
            };
            world
                .add_body(BodyDef::dynamic().position(at), ShapeDef::new(shape))
                .unwrap();
        }
        world
            .set_pre_solve(|c: &mut PreSolveContact| {
                let k = (c.a.slot() ^ c.b.slot()) % 7;
                c.friction = 0.1 * k as f32;
                c.restitution = if k == 3 { 0.5 } else { 0.0 };
                c.tangent_speed = k as f32 * 0.2 - 0.6;
                k != 5
            })
            .unwrap();
        for _ in 0..120 {
            world.step(DT).unwrap();
        }
        common::body_state_bits(&world)
    };
    let reference = run(Backend::Simd, 1);
    assert_eq!(run(Backend::Simd, 2), reference, "Simd, 2 threads");
    assert_eq!(run(Backend::Scalar, 1), reference, "Scalar, 1 thread");
    assert_eq!(run(Backend::Scalar, 2), reference, "Scalar, 2 threads");
}

/// A small scene in motion: boxes falling onto the ground and onto each other.
fn falling_boxes() -> World {
    let mut world = World::new(WorldSettings::default());
    ground(&mut world);
    for i in 0..6 {
        common::unit_box(&mut world, Vec2::new(0.3 * i as f32, 0.6 + 1.1 * i as f32));
    }
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    world
}

/// What a step changes that the user sees: body states, contacts and events (bodies by slot:
/// each world's handles are its own).
fn visible(world: &World) -> (Vec<u32>, String, String) {
    let contacts: Vec<_> = world
        .contacts()
        .map(|c| (c.a.slot(), c.b.slot(), *c.manifold, c.friction))
        .collect();
    (
        common::body_state_bits(world),
        format!("{contacts:?}"),
        format!("{:?}", world.contact_events()),
    )
}

/// A hook that panics, or sets a coefficient the solver cannot take, makes `step` return
/// `Err`, with the world as it was; with the hook cleared the world then steps exactly as one
/// that never had it.
#[test]
fn a_failing_hook_refuses_the_step_and_leaves_the_world_as_it_was() {
    type Hook = fn(&mut PreSolveContact) -> bool;
    type Expected = fn(&Error) -> bool;
    let hooks: [(Hook, Expected); 4] = [
        (
            |_| panic!("hook failed"),
            |e| matches!(e, Error::HookPanicked(why) if why.contains("hook failed")),
        ),
        (
            |c| {
                c.friction = f32::NAN;
                true
            },
            |e| matches!(e, Error::InvalidParameter(why) if why.contains("friction")),
        ),
        (
            |c| {
                c.restitution = -1.0;
                true
            },
            |e| matches!(e, Error::InvalidParameter(why) if why.contains("restitution")),
        ),
        (
            |c| {
                c.tangent_speed = f32::INFINITY;
                true
            },
            |e| matches!(e, Error::InvalidParameter(why) if why.contains("tangent_speed")),
        ),
    ];
    let mut reference = falling_boxes();
    for _ in 0..20 {
        reference.step(DT).unwrap();
    }
    for (hook, expected) in hooks {
        let mut world = falling_boxes();
        let before = visible(&world);
        world.set_pre_solve(hook).unwrap();
        let err = world.step(DT).expect_err("the step is refused");
        assert!(expected(&err), "{err}");
        assert_eq!(visible(&world), before, "unchanged by the refused step");
        // Stepping on without the hook follows the world that never had one, bit for bit.
        world.clear_pre_solve();
        for _ in 0..20 {
            world.step(DT).unwrap();
        }
        assert_eq!(visible(&world), visible(&reference));
    }
}

/// A hook that keeps every contact as it is changes nothing, bit for bit.
#[test]
fn a_hook_that_changes_nothing_changes_nothing() {
    let mut plain = falling_boxes();
    let mut hooked = falling_boxes();
    hooked.set_pre_solve(|_| true).unwrap();
    for _ in 0..60 {
        plain.step(DT).unwrap();
        hooked.step(DT).unwrap();
        assert_eq!(visible(&hooked), visible(&plain));
    }
}
