//! Queries against chains respect the chains' one-sided rule: shape casts, overlaps and
//! sensors meet a chain segment from its front only, along the normals it owns.

use crate::common::{at, v};
use batch2d::shape::Shape;
use batch2d::{BodyDef, QueryFilter, ShapeDef, Vec2, World, WorldSettings};

/// A flat chain along y = 0 from x = -5 to 5 in 0.25 m segments, listed left to right: solid
/// below, met from above.
fn flat_chain(world: &mut World, reversed: bool) {
    let mut points: Vec<Vec2> = (0..=40).map(|i| v(-5.0 + 0.25 * i as f32, 0.0)).collect();
    if reversed {
        points.reverse();
    }
    world
        .add_segment_chain(
            BodyDef::fixed(),
            &points,
            &ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
}

/// A box cast down onto the chain from above stops on it, its bottom where the geometry puts
/// it (within the cast's stopping band of the surface); cast up from below, it passes through
/// the chain's back. Reversed, the chain is met from below and passed from above.
#[test]
fn shape_casts_meet_a_chain_from_its_front_only() {
    for reversed in [false, true] {
        let mut world = World::new(WorldSettings::default());
        flat_chain(&mut world, reversed);
        let shape = Shape::rect(0.3, 0.2).unwrap();
        let filter = QueryFilter::default();
        // Over a join (x = 0.25 is a chain point) and over a segment's middle.
        for x in [0.25, 0.4] {
            let above = at(v(x, 2.0));
            let below = at(v(x, -2.0));
            let down = world
                .cast_shape(&shape, above, v(0.0, -4.0), filter)
                .unwrap();
            let up = world
                .cast_shape(&shape, below, v(0.0, 4.0), filter)
                .unwrap();
            let (hit, passed) = if reversed { (up, down) } else { (down, up) };
            assert!(passed.is_none(), "reversed {reversed}, x {x}: {passed:?}");
            let hit = hit.expect("the cast from the front meets the chain");
            // The box's near face travels 1.8 m to the surface: fraction 0.45, less the band.
            let gap = 4.0 * (0.45 - hit.fraction);
            assert!((0.0..=0.0026).contains(&gap), "gap {gap}, {hit:?}");
            let expected = if reversed { -1.0 } else { 1.0 };
            assert!((hit.normal.y - expected).abs() < 1e-5, "{hit:?}");
        }
    }
}

/// Overlap queries see a chain segment only from its front: a box, a point or a region
/// centred above a chain listed left to right overlaps it; the same centred below does not,
/// though it reaches through the chain's line. A plain segment is seen from both sides.
#[test]
fn overlaps_see_a_chain_from_its_front_only() {
    let mut world = World::new(WorldSettings::default());
    flat_chain(&mut world, false);
    let plain = world
        .add_body(
            BodyDef::fixed().position(v(0.0, 10.0)),
            ShapeDef::new(Shape::segment(v(-5.0, 0.0), v(5.0, 0.0)).unwrap()),
        )
        .unwrap();
    let filter = QueryFilter::default();
    let shape = Shape::rect(0.3, 0.2).unwrap();
    for (y, seen) in [(0.1f32, true), (-0.1, false)] {
        let chain = world.overlap_shape(&shape, at(v(0.4, y)), filter).unwrap();
        // The box spans x = 0.1 to 0.7: three segments.
        assert_eq!(chain.len(), usize::from(seen) * 3, "y {y}: {chain:?}");
        let region = batch2d::Aabb::new(v(0.3, y - 0.2), v(0.5, y + 0.2));
        let boxed = world.overlap_aabb(region, filter).unwrap();
        assert_eq!(!boxed.is_empty(), seen, "y {y}: {boxed:?}");
        let segment = world
            .overlap_shape(&shape, at(v(0.4, 10.0 + y)), filter)
            .unwrap();
        assert_eq!(segment, vec![plain], "y {y}");
    }
    // A point on the chain's line is on its front face.
    assert_eq!(world.overlap_point(v(0.4, 0.0), filter).unwrap().len(), 1);
}

/// A sensor meets a chain only from its front: a sensor box dropped through a chain listed
/// left to right reports it when it arrives from above, not when it rises from below.
#[test]
fn sensors_see_a_chain_from_its_front_only() {
    for (start, velocity, seen) in [(1.0f32, -3.0f32, true), (-1.0, 3.0, false)] {
        let mut world = World::new(WorldSettings {
            gravity: Vec2::ZERO,
            ..WorldSettings::default()
        });
        flat_chain(&mut world, false);
        let sensor = world
            .add_body(
                BodyDef::dynamic()
                    .position(v(0.4, start))
                    .linear_velocity(v(0.0, velocity)),
                ShapeDef::new(Shape::rect(0.3, 0.2).unwrap()).sensor(true),
            )
            .unwrap();
        let mut met = false;
        // 0.3 s: the sensor reaches 0.1 m past the chain's line, its centre 0.1 m short.
        for _ in 0..18 {
            world.step(1.0 / 60.0).unwrap();
            met |= world
                .contact_events()
                .sensor_begin()
                .iter()
                .any(|e| e.sensor == sensor);
        }
        assert_eq!(met, seen, "from y {start}");
    }
}

/// Continuous collision lets a fast body through a chain from behind, as its contacts do,
/// and stops one arriving at its front: a ball at 300 m/s (5 m a step) crosses a chain
/// listed left to right from below, and lands on it from above.
#[test]
fn continuous_collision_meets_a_chain_from_its_front_only() {
    for (start, velocity) in [(-6.0f32, 300.0f32), (6.0, -300.0)] {
        let mut world = World::new(WorldSettings {
            gravity: Vec2::ZERO,
            ..WorldSettings::default()
        });
        flat_chain(&mut world, false);
        let ball = world
            .add_body(
                BodyDef::dynamic()
                    .position(v(0.4, start))
                    .linear_velocity(v(0.0, velocity))
                    .bullet(true),
                ShapeDef::new(Shape::circle(0.1).unwrap()).restitution(0.0),
            )
            .unwrap();
        for _ in 0..3 {
            world.step(1.0 / 60.0).unwrap();
        }
        let y = world.position(ball).unwrap().y;
        if velocity > 0.0 {
            assert!(y > 5.0, "from below it passes through: {y}");
        } else {
            assert!(
                (0.0..0.2).contains(&y),
                "from above it lands on the chain: {y}"
            );
        }
    }
}
