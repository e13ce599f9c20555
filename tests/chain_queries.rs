//! Queries against chains respect the chains' one-sided rule: shape casts, overlaps and
//! sensors meet a chain segment from its front only, along the normals it owns.

use batch2d::shape::Shape;
use batch2d::{BodyDef, QueryFilter, Rot, ShapeDef, Transform, Vec2, World, WorldSettings};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

fn at(p: Vec2) -> Transform {
    Transform::new(p, Rot::IDENTITY)
}

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
