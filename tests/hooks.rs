//! Run-time control for games: hit events with the speed at impact, the pre-solve hook
//! (one-way platforms, conveyor belts, per-contact friction) and its refusals, each checked
//! against the law it follows.

mod common;

use batch2d::{BodyId, HitEvent, Vec2, World, WorldSettings};
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
