//! Far from the origin: an f32 position at 10 km has a resolution of about 1 mm, a fifth of the
//! linear slop. The pipeline works on differences of nearby positions (narrowphase in body A's
//! frame, anchors from body origins), so the large pyramid must stand there as it does at the
//! origin. Beyond any useful range (1e7 m, 1e30 m, the edge of f32) the engine must still never
//! panic or produce NaN: it either refuses the body or simulates it coarsely.

use crate::common;

use batch2d::{BodyDef, BodyId, Error, Shape, ShapeDef, Vec2, World, WorldSettings};

#[test]
fn large_pyramid_stands_at_ten_kilometres_as_at_the_origin() {
    let near = common::run_large_pyramid(Vec2::ZERO);
    // Both coordinates at 1e4 m: positions are exact multiples of 0.5 there, so the scene
    // starts from the same layout and only the step's rounding differs.
    let far = common::run_large_pyramid(Vec2::new(1.0e4, 1.0e4));
    // Every step rounds each position to that 1 mm grid, so a resting box cannot settle
    // closer than it, and a gap between row neighbours wanders by it: at one solve pass per
    // substep one pair in 14950 drifts past the speculative distance. One in a thousand may.
    assert!(
        far.contacts + near.contacts / 1000 >= near.contacts,
        "touching pairs: far {} vs origin {}",
        far.contacts,
        near.contacts
    );
    assert!(
        far.top_drop <= 2.0 * near.top_drop.max(0.01),
        "top box sank {} m far away, {} m at the origin",
        far.top_drop,
        near.top_drop
    );
    // Resting boxes of half-extent 0.5: nobody sinks into the ground or slides off its column.
    // The far world's 1 mm grid adds at most a few millimetres to either.
    assert!(far.lowest > 0.45, "a box sank to {} m", far.lowest);
    assert!(
        far.max_drift < 0.5,
        "a box drifted {} m sideways",
        far.max_drift
    );
}

/// A ground and a small stack of boxes and circles at `origin`.
fn small_scene(origin: Vec2) -> Result<(World, Vec<BodyId>), Error> {
    let mut world = World::new(WorldSettings::default());
    let mut ids = vec![world.add_body(
        BodyDef::fixed().position(origin + Vec2::new(0.0, -1.0)),
        ShapeDef::new(Shape::rect(20.0, 1.0)?),
    )?];
    for k in 0..4 {
        let p = origin + Vec2::new(0.3 * k as f32, 0.5 + 1.0 * k as f32);
        let shape = if k % 2 == 0 {
            Shape::rect(0.5, 0.5)?
        } else {
            Shape::circle(0.5)?
        };
        ids.push(
            world.add_body(
                BodyDef::dynamic()
                    .position(p)
                    .linear_velocity(Vec2::new(1.0, 0.0)),
                ShapeDef::new(shape),
            )?,
        );
    }
    Ok((world, ids))
}

#[test]
fn huge_coordinates_are_refused_or_simulated_never_nan() {
    let origins = [
        Vec2::new(1.0e7, 0.0),
        Vec2::new(-1.0e7, 1.0e7),
        Vec2::new(1.0e30, -1.0e30),
        Vec2::new(f32::MAX, f32::MAX),
        Vec2::new(-f32::MAX, 0.0),
        Vec2::new(f32::MIN_POSITIVE, -f32::MAX),
    ];
    for origin in origins {
        let (mut world, ids) = match small_scene(origin) {
            Ok(scene) => scene,
            Err(e) => {
                assert!(matches!(e, Error::InvalidParameter(_)), "{origin:?}: {e}");
                continue;
            }
        };
        for _ in 0..60 {
            world.step(1.0 / 60.0).unwrap();
        }
        for &id in &ids {
            let (p, v) = (
                world.position(id).unwrap(),
                world.linear_velocity(id).unwrap(),
            );
            assert!(p.is_finite() && v.is_finite(), "{origin:?}: {p:?} {v:?}");
            assert!(world.angle(id).unwrap().is_finite());
        }
    }
}
