//! Shape casts that turn as they move (`World::cast_shape_rotating`) against a brute-force
//! search: the motion sampled at 10,000 fractions, each pose tested for overlap by the exact
//! separating-axis and vertex-edge tests of `queries.rs`.

use crate::common::{point_segment_distance, Rng};
use crate::queries::{all, solid, Solid};

use batch2d::{
    BodyDef, BodyId, Error, Rot, Shape, ShapeDef, Transform, Vec2, World, WorldSettings,
};

fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

/// Fractions at which the brute force samples each motion.
const SAMPLES: usize = 10_000;

/// Widest gap (m) a cast may stop short of the body it hits: the time of impact's band, 1.25
/// to 2.5 mm, with room for the f32 rounding of the poses.
const STOP_GAP: f32 = 3.0e-3;

/// The pose at fraction `t` of a motion from `xf` by `translation`, turning by `rotation`.
fn pose(xf: Transform, translation: Vec2, rotation: f32, t: f32) -> Transform {
    Transform::new(
        xf.p + translation * t,
        Rot::from_angle(xf.q.angle() + rotation * t),
    )
}

/// A disc holding the solid: its first core point and the farthest reach from it.
fn disc(s: &Solid) -> (Vec2, f32) {
    let c = s.core[0];
    let far = s.core.iter().map(|&p| (p - c).length()).fold(0.0, f32::max);
    (c, far + s.radius)
}

/// The farthest any point of `shape` lies from its origin.
fn reach(shape: &Shape) -> f32 {
    let s = Solid::of(shape, Transform::IDENTITY);
    s.core.iter().map(|p| p.length()).fold(0.0, f32::max) + s.radius
}

/// Sixty fixed bodies of mixed shapes scattered over a square of 30 m, so that casts both hit
/// and miss.
fn scattered_world(seed: u32) -> (World, Vec<BodyId>) {
    let mut rng = Rng(seed);
    let mut world = World::new(WorldSettings::default());
    let ids = (0..60)
        .map(|_| {
            let def = BodyDef::fixed()
                .position(rng.point(15.0))
                .angle(rng.range(-3.0, 3.0));
            world.add_body(def, ShapeDef::new(rng.shape(0.8))).unwrap()
        })
        .collect();
    (world, ids)
}

/// The first sampled fraction at which the moving shape comes within `gap` of a body (or
/// overlaps it), if any.
fn first_within(
    world: &World,
    ids: &[BodyId],
    shape: &Shape,
    (xf, translation, rotation): (Transform, Vec2, f32),
    gap: f32,
) -> Option<f32> {
    let reach = reach(shape) + gap;
    // Only bodies that come within the shape's reach of its origin's path can be met.
    let near: Vec<(Solid, Vec2, f32)> = ids
        .iter()
        .map(|&id| solid(world, id))
        .filter_map(|s| {
            let (c, r) = disc(&s);
            let d = point_segment_distance(c, xf.p, xf.p + translation);
            (d <= r + reach).then_some((s, c, r))
        })
        .collect();
    (0..=SAMPLES).map(|k| k as f32 / SAMPLES as f32).find(|&t| {
        let at = pose(xf, translation, rotation, t);
        let mut moved = None;
        near.iter().any(|(s, c, r)| {
            (*c - at.p).length() <= r + reach
                && moved.get_or_insert_with(|| Solid::of(shape, at)).gap(s) <= gap
        })
    })
}

#[test]
fn a_turning_cast_stops_where_brute_force_first_finds_an_overlap() {
    let (world, ids) = scattered_world(31);
    let mut rng = Rng(32);
    let (mut hits, mut misses, mut cases) = (0, 0, 0);
    while cases < 200 {
        let shape = if rng.below(4) == 0 {
            Shape::rect(rng.range(1.0, 2.0), 0.03).unwrap() // a long thin bar
        } else {
            rng.shape(0.6)
        };
        let xf = Transform::new(rng.point(15.0), Rot::from_angle(rng.range(-3.0, 3.0)));
        let start = Solid::of(&shape, xf);
        if ids.iter().any(|&id| start.gap(&solid(&world, id)) <= 0.0) {
            continue;
        }
        cases += 1;
        let translation = rng.point(6.0);
        let rotation = rng.range(-6.3, 6.3);
        let motion = (xf, translation, rotation);
        // Conservative advancement never steps past a pose nearer than its target gap, 1.25
        // mm (less rounding): the brute force's first such pose lies after the cast's stop,
        // and its first overlap (gap 0) later still.
        let near = first_within(&world, &ids, &shape, motion, 1.0e-3);
        let got = world
            .cast_shape_rotating(&shape, xf, translation, rotation, all())
            .unwrap();
        let Some(hit) = got else {
            assert_eq!(near, None, "case {cases}: the cast missed a contact");
            misses += 1;
            continue;
        };
        hits += 1;
        let t = hit.fraction;
        if let Some(b) = near {
            assert!(
                b > t,
                "case {cases}: within 1 mm at {b}, before the cast's {t}"
            );
        }
        // Where it stopped, the shape is just short of the body it names and in no body.
        let at = Solid::of(&shape, pose(xf, translation, rotation, t));
        let gap = at.gap(&solid(&world, hit.body));
        assert!(
            (0.0..=STOP_GAP).contains(&gap),
            "case {cases}: stopped {gap} m from the hit body"
        );
        for &id in &ids {
            assert!(at.gap(&solid(&world, id)) > 0.0, "case {cases}: in {id:?}");
        }
        assert!((hit.normal.length() - 1.0).abs() < 1e-3);
    }
    eprintln!("{hits} hits, {misses} misses");
    assert!(hits > 50 && misses > 20, "{hits} hits, {misses} misses");
}

/// A bar 3 m long standing upright at the origin, moved 0.5 m towards a wall 1.9 m away while
/// it falls flat: moved alone it stays 1.4 m short, turning it reaches 2 m. The cast stops it
/// where its leading corner is 1.25 mm to 2.5 mm from the wall, found here by bisection on
/// the corner's path.
#[test]
fn a_long_bar_turning_into_a_wall_hits_it_where_moved_alone_it_misses() {
    let mut world = World::new(WorldSettings::default());
    let wall = world
        .add_body(
            BodyDef::fixed().position(v(1.95, 0.0)),
            ShapeDef::new(Shape::rect(0.05, 3.0).unwrap()),
        )
        .unwrap();
    let bar = Shape::rect(1.5, 0.02).unwrap();
    let upright = Transform::new(v(0.0, 0.0), Rot::from_angle(std::f32::consts::FRAC_PI_2));
    let (translation, rotation) = (v(0.5, 0.0), -std::f32::consts::FRAC_PI_2);
    assert_eq!(
        world.cast_shape(&bar, upright, translation, all()),
        Ok(None)
    );
    let hit = world
        .cast_shape_rotating(&bar, upright, translation, rotation, all())
        .unwrap()
        .expect("the turning bar reaches the wall");
    assert_eq!(hit.body, wall);
    assert!(hit.normal.x < -0.99, "normal {:?}", hit.normal);
    // The bar's right edge at fraction t, in f64: its centre's x plus the reach of its
    // corners along x.
    let right = |t: f64| {
        let angle = std::f64::consts::FRAC_PI_2 * (1.0 - t);
        0.5 * t + 1.5 * angle.cos() + 0.02 * angle.sin()
    };
    let gap = 1.9 - right(f64::from(hit.fraction));
    assert!((1.0e-3..=2.6e-3).contains(&gap), "stopped {gap} m short");
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if right(mid) < 1.9 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // The edge closes in at 0.5 m per unit fraction at least (the translation; the turn adds
    // to it), so 2.6 mm short is at most 5.2e-3 early.
    let t = f64::from(hit.fraction);
    assert!(
        t < lo && lo - t < 2.6e-3 / 0.5,
        "stopped at {t}, contact at {lo}"
    );
}

/// Non-finite turns and translations are errors, and so is a motion that neither moves nor
/// turns; a turn in place is a cast.
#[test]
fn bad_turning_casts_are_errors() {
    let mut world = World::new(WorldSettings::default());
    world
        .add_body(
            BodyDef::fixed().position(v(1.0, 0.0)),
            ShapeDef::new(Shape::rect(0.1, 1.0).unwrap()),
        )
        .unwrap();
    let bar = Shape::rect(0.95, 0.02).unwrap();
    let xf = Transform::new(v(0.0, 0.0), Rot::from_angle(1.5));
    let bad = |r: Result<_, Error>| matches!(r, Err(Error::InvalidParameter(_)));
    let cast = |t: Vec2, r: f32| world.cast_shape_rotating(&bar, xf, t, r, all());
    for r in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert!(bad(cast(v(1.0, 0.0), r)), "rotation {r}");
    }
    assert!(bad(cast(v(f32::NAN, 0.0), 1.0)));
    assert!(bad(cast(v(f32::INFINITY, 0.0), 1.0)));
    assert!(bad(cast(v(0.0, 0.0), 0.0)));
    let skew = Transform::new(v(0.0, 0.0), Rot { c: 2.0, s: 0.0 });
    assert!(bad(world.cast_shape_rotating(
        &bar,
        skew,
        v(1.0, 0.0),
        1.0,
        all()
    )));
    // Turned in place by -1.5 rad the bar lies along x and reaches 0.95 m: into the wall's
    // face at 0.9 m.
    let hit = cast(v(0.0, 0.0), -1.5)
        .unwrap()
        .expect("swings into the wall");
    assert!(hit.fraction > 0.0 && hit.fraction < 1.0);
}
