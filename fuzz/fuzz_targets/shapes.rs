//! Cuts outlines decoded from raw bytes with `Shape::decompose`, collides the pieces with
//! `collide` at arbitrary poses, makes a body of the pieces, and adds and removes shapes at run
//! time while stepping, on two worlds at once (one per backend, with different thread counts).
//!
//! The target checks what the API promises: no panic or hang; a decomposition is convex pieces
//! of at most 8 vertices whose areas add up to the outline's; `collide` answers `Err` exactly
//! for a non-finite pose or a bad distance, and the same manifold every time; `Err` leaves the
//! world unchanged; both worlds answer alike and stay bit-identical.

// The fuzz target binary has libFuzzer's `main`; tests/robust/fuzz_regressions.rs includes this
// file as a module (`cfg(test)`) and runs `run` on a few inputs of its own.
#![cfg_attr(not(test), no_main)]

use arbitrary::{Arbitrary, Result, Unstructured};
use batch2d::{
    collide, Backend, BodyDef, BodyId, Rot, Shape, ShapeDef, Transform, Vec2, World, WorldSettings,
};
#[cfg(not(test))]
use libfuzzer_sys::fuzz_target;

/// Most outline points and operations per input: keeps one input well under a second.
const MAX_POINTS: usize = 16;
const MAX_OPS: usize = 32;

/// A coordinate: mostly on a coarse grid, where collinear and repeated points are likely,
/// sometimes any f32 at all (NaN and infinities included).
fn coordinate(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=7)? {
        0 => f32::from_bits(u32::arbitrary(u)?),
        1 => i16::arbitrary(u)? as f32 / 1024.0,
        _ => i8::arbitrary(u)? as f32 / 8.0,
    })
}

fn point(u: &mut Unstructured) -> Result<Vec2> {
    Ok(Vec2::new(coordinate(u)?, coordinate(u)?))
}

/// Twice the signed area of a closed outline, in f64.
fn twice_area(points: &[Vec2]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            a.x as f64 * b.y as f64 - b.x as f64 * a.y as f64
        })
        .sum()
}

/// Panics unless `pieces` are convex polygons of 3 to 8 vertices, counter-clockwise, whose
/// areas add up to the outline's.
fn check_pieces(outline: &[Vec2], pieces: &[Shape]) {
    let mut total = 0.0;
    for piece in pieces {
        let Shape::Polygon(polygon) = piece else {
            panic!("a piece that is not a polygon: {piece:?}");
        };
        let v = polygon.vertices();
        assert!(
            (3..=8).contains(&v.len()),
            "a piece of {} vertices",
            v.len()
        );
        for i in 0..v.len() {
            let (a, b, c) = (v[i], v[(i + 1) % v.len()], v[(i + 2) % v.len()]);
            let turn = (b - a).cross(c - b) as f64;
            let scale = ((b - a).length() * (c - b).length()) as f64;
            assert!(turn >= -1e-4 * scale, "a piece turns right at {b:?}: {v:?}");
        }
        total += twice_area(v);
    }
    let whole = twice_area(outline).abs();
    assert!(
        (total - whole).abs() <= 1e-3 * whole + 1e-6,
        "pieces cover {total} of {whole} (twice the areas)"
    );
}

/// `collide` of two shapes at poses and a distance from the input: `Err` exactly for a
/// non-finite pose or a negative or non-finite distance, and the same answer when asked again.
fn check_collide(u: &mut Unstructured, a: &Shape, b: &Shape) -> Result<()> {
    let (pa, pb) = (point(u)?, point(u)?);
    // Angles within a few turns, where `Rot::from_angle` is unit to f32 rounding; NaN stays.
    let angle = |u: &mut Unstructured| Ok(coordinate(u)?.clamp(-100.0, 100.0));
    let (angle_a, angle_b, distance) = (angle(u)?, angle(u)?, coordinate(u)?);
    let valid = pa.is_finite()
        && pb.is_finite()
        && angle_a.is_finite()
        && angle_b.is_finite()
        && distance.is_finite()
        && distance >= 0.0;
    let xa = Transform::new(pa, Rot::from_angle(angle_a));
    let xb = Transform::new(pb, Rot::from_angle(angle_b));
    let first = collide(a, xa, b, xb, distance);
    assert_eq!(
        first.is_ok(),
        valid,
        "{pa:?} {angle_a} {pb:?} {angle_b} {distance}: {first:?}"
    );
    assert_eq!(
        format!("{first:?}"),
        format!("{:?}", collide(a, xa, b, xb, distance)),
        "collide answered twice differently"
    );
    Ok(())
}

/// A world with ground and one body made of `shapes` (a unit box if it refuses them).
fn world(backend: Backend, threads: usize, shapes: &[ShapeDef]) -> (World, BodyId) {
    let mut world = World::new(WorldSettings {
        backend,
        threads,
        ..WorldSettings::default()
    });
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(50.0, 1.0).unwrap()),
        )
        .unwrap();
    let at = BodyDef::dynamic().position(Vec2::new(0.0, 3.0));
    let body = world
        .add_compound_body(at.clone(), shapes)
        .or_else(|_| world.add_body(at, ShapeDef::new(Shape::rect(0.5, 0.5).unwrap())))
        .unwrap();
    (world, body)
}

/// Runs one input: the whole fuzz target. Panics on a finding.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(count) = u.int_in_range(0..=MAX_POINTS) else {
        return;
    };
    let Ok(outline) = (0..count)
        .map(|_| point(&mut u))
        .collect::<Result<Vec<_>>>()
    else {
        return;
    };
    let pieces = Shape::decompose(&outline).unwrap_or_default();
    if !pieces.is_empty() {
        check_pieces(&outline, &pieces);
    }
    let circle = Shape::circle(0.25).unwrap();
    for pair in pieces.windows(2).take(4) {
        let _ = check_collide(&mut u, &pair[0], &pair[1]);
    }
    if let Some(first) = pieces.first() {
        let _ = check_collide(&mut u, first, &circle);
    }
    let defs: Vec<ShapeDef> = pieces.iter().cloned().map(ShapeDef::new).collect();
    let mut twins = [
        world(Backend::Simd, 2, &defs),
        world(Backend::Scalar, 1, &defs),
    ];
    for _ in 0..MAX_OPS {
        let Ok(op) = u.int_in_range(0u8..=3) else {
            return;
        };
        let arg = (
            usize::from(u8::arbitrary(&mut u).unwrap_or(0) % 24),
            point(&mut u).unwrap_or(Vec2::ZERO),
            coordinate(&mut u).unwrap_or(1.0),
        );
        let before = twins[0].0.state_hash();
        let answers = twins.each_mut().map(|(world, body)| {
            let body = *body;
            match op {
                0 => {
                    let piece = pieces.get(arg.0).cloned();
                    let shape = piece.map_or_else(|| Shape::circle_at(arg.1, 0.25), Ok);
                    shape.and_then(|s| world.add_shape(body, ShapeDef::new(s).density(arg.2)))
                }
                1 => world.remove_shape(body, arg.0).map(|()| 0),
                2 => Shape::offset_rect(0.2, 0.1, arg.1, arg.2)
                    .and_then(|s| world.add_shape(body, ShapeDef::new(s))),
                _ => world.step(1.0 / 60.0).map(|()| 0),
            }
        });
        assert_eq!(
            answers[0].is_ok(),
            answers[1].is_ok(),
            "op {op} {arg:?}: {answers:?}"
        );
        let hashes = twins.each_ref().map(|(world, _)| world.state_hash());
        assert_eq!(
            hashes[0], hashes[1],
            "the twins parted after op {op} {arg:?}"
        );
        if answers[0].is_err() {
            assert_eq!(
                hashes[0], before,
                "op {op} {arg:?} failed but changed the world"
            );
        }
    }
}

#[cfg(not(test))]
fuzz_target!(|data: &[u8]| run(data));
