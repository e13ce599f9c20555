//! Every query at every extent and origin against brute force over every body, computed here
//! in f64 from each body's own transform: circles and rotated boxes, whose exact tests are
//! short (a rounded box's signed distance, separating axes, slab and disc entries).
//!
//! Tolerance: a body's shape only exists in f32 at its position, so the engine may place its
//! surface a few f32 spacings off, that is a few 1e-7 of the larger of its distance from the
//! world origin and its size (`TOL_PER_MAGNITUDE`, with a factor 16 of headroom). A body within
//! that band of the query's boundary may fall either way and is left out of the comparison;
//! every other body must be answered exactly. The query's own coordinates add nothing to the
//! band when they are exact (an axis-aligned box, a ray's origin and translation), and their
//! own f32 spacing when the engine must place a rotated shape at them.
//!
//! 48 cases from a fixed seed by default; `PROPTEST_CASES=2000 PROPTEST_RNG_SEED=N cargo test
//! --profile ci -p batch2d-proptests query_extents::` runs a longer search from another seed.
//! Failures are kept in `query_extents.proptest-regressions` beside this file (commit it) and
//! tried first on every run.

use batch2d::{
    Aabb, BodyDef, BodyId, QueryFilter, Rot, Shape, ShapeDef, Transform, Vec2, World, WorldSettings,
};
use proptest::prelude::*;

const TOL_PER_MAGNITUDE: f64 = 16.0 * f32::EPSILON as f64;

/// Gap within which a shape cast stops short of a body: 2.5 mm, half the linear slop
/// (`ShapeHit::fraction`'s documentation).
const CAST_BAND: f64 = 0.0025f32 as f64;

type P = [f64; 2];

fn p64(v: Vec2) -> P {
    [f64::from(v.x), f64::from(v.y)]
}

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1]]
}

fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn norm(a: P) -> f64 {
    dot(a, a).sqrt()
}

/// A box of half extents `h` rounded by `r`, placed by `(c, cos, sin)`. A circle has `h = 0`.
#[derive(Clone, Copy, Debug)]
struct Solid {
    c: P,
    cos: f64,
    sin: f64,
    h: P,
    r: f64,
}

impl Solid {
    fn of(shape: BodyShape, xf: Transform) -> Solid {
        let (h, r) = match shape {
            BodyShape::Circle(r) => ([0.0, 0.0], f64::from(r)),
            BodyShape::Rect(hx, hy) => ([f64::from(hx), f64::from(hy)], 0.0),
        };
        Solid {
            c: p64(xf.p),
            cos: f64::from(xf.q.c),
            sin: f64::from(xf.q.s),
            h,
            r,
        }
    }

    fn grown(self, by: f64) -> Solid {
        Solid {
            r: self.r + by,
            ..self
        }
    }

    /// The same solid shrunk by `by` (corners kept sharp), or `None` when nothing is left.
    fn shrunk(self, by: f64) -> Option<Solid> {
        let r = self.r - by;
        if r >= 0.0 {
            return Some(Solid { r, ..self });
        }
        let h = [self.h[0] + r, self.h[1] + r];
        (h[0] > 0.0 && h[1] > 0.0).then_some(Solid { h, r: 0.0, ..self })
    }

    fn local(&self, v: P) -> P {
        [
            self.cos * v[0] + self.sin * v[1],
            -self.sin * v[0] + self.cos * v[1],
        ]
    }

    /// The band within which this body may fall either way.
    fn tol(&self) -> f64 {
        let magnitude = self.c[0].abs().max(self.c[1].abs());
        TOL_PER_MAGNITUDE * magnitude.max(self.h[0] + self.h[1] + self.r)
    }

    /// The core: 4 corners counter-clockwise, or the centre of a circle.
    fn core(&self) -> Vec<P> {
        if self.h == [0.0, 0.0] {
            return vec![self.c];
        }
        [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]
            .iter()
            .map(|s| {
                let (x, y) = (s[0] * self.h[0], s[1] * self.h[1]);
                [
                    self.c[0] + self.cos * x - self.sin * y,
                    self.c[1] + self.sin * x + self.cos * y,
                ]
            })
            .collect()
    }

    /// Signed distance from `p` to the surface (negative inside).
    fn sdf(&self, p: P) -> f64 {
        let l = self.local(sub(p, self.c));
        let q = [l[0].abs() - self.h[0], l[1].abs() - self.h[1]];
        norm([q[0].max(0.0), q[1].max(0.0)]) + q[0].max(q[1]).min(0.0) - self.r
    }

    /// Where the ray `o + t d`, `t` in `0..=max`, enters the solid from outside: `Err(())`
    /// when it starts inside.
    fn entry(&self, o: P, d: P, max: f64) -> Result<Option<f64>, ()> {
        if self.sdf(o) <= 0.0 {
            return Err(());
        }
        let (lo, ld) = (self.local(sub(o, self.c)), self.local(d));
        let (h, r) = (self.h, self.r);
        let mut parts = vec![
            slab(lo, ld, [h[0] + r, h[1]]),
            slab(lo, ld, [h[0], h[1] + r]),
        ];
        if r > 0.0 {
            for s in [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]] {
                parts.push(disc(sub(lo, [s[0] * h[0], s[1] * h[1]]), ld, r));
            }
        }
        let first = parts.into_iter().flatten().fold(f64::INFINITY, f64::min);
        Ok((first <= max).then_some(first))
    }
}

/// Entry `t >= 0` of `o + t d` into the box `|x| <= h`, for `o` outside it.
fn slab(o: P, d: P, h: P) -> Option<f64> {
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for k in 0..2 {
        if d[k] == 0.0 {
            if o[k].abs() > h[k] {
                return None;
            }
        } else {
            let (a, b) = ((-h[k] - o[k]) / d[k], (h[k] - o[k]) / d[k]);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    (t0 <= t1).then_some(t0)
}

/// Entry `t >= 0` of `m + t d` into the disc of radius `r` about the origin, for `m` outside,
/// from the closest approach (the textbook quadratic's discriminant cancels catastrophically
/// for a distant `m`; f32 inputs make the cross product exact in f64).
fn disc(m: P, d: P, r: f64) -> Option<f64> {
    let length = norm(d);
    let along = -dot(m, d) / length;
    let miss = (m[0] * d[1] - m[1] * d[0]) / length;
    if along <= 0.0 || miss.abs() > r {
        return None;
    }
    Some((along - (r * r - miss * miss).sqrt()) / length)
}

/// Signed distance between two convex cores (1 or 4 counter-clockwise points): their
/// distance when apart, minus their least penetration along an edge normal when they overlap.
fn core_gap(a: &[P], b: &[P]) -> f64 {
    if a.len() == 1 && b.len() == 1 {
        return norm(sub(a[0], b[0]));
    }
    let mut separation = f64::NEG_INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        for i in 0..p.len().max(1) {
            if p.len() < 3 {
                break;
            }
            let e = sub(p[(i + 1) % p.len()], p[i]);
            let n = [e[1] / norm(e), -e[0] / norm(e)];
            let gap = q
                .iter()
                .map(|&v| dot(n, sub(v, p[i])))
                .fold(f64::INFINITY, f64::min);
            separation = separation.max(gap);
        }
    }
    if separation <= 0.0 {
        return separation;
    }
    let mut best = f64::INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        for &v in q {
            for i in 0..p.len() {
                best = best.min(point_segment(v, p[i], p[(i + 1) % p.len()]));
            }
        }
    }
    best
}

/// Distance from `p` to the segment `a..b`, beside it by the cross product (the nearest point
/// itself would be rounded at the segment's scale).
fn point_segment(p: P, a: P, b: P) -> f64 {
    let (e, ap) = (sub(b, a), sub(p, a));
    let along = dot(ap, e);
    if along <= 0.0 {
        norm(ap)
    } else if along >= dot(e, e) {
        norm(sub(p, b))
    } else {
        (e[0] * ap[1] - e[1] * ap[0]).abs() / norm(e)
    }
}

/// Whether a body must, may or must not be in a result.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Truth {
    In,
    Either,
    Out,
}

fn truth(signed_gap: f64, tol: f64) -> Truth {
    if signed_gap < -tol {
        Truth::In
    } else if signed_gap > tol {
        Truth::Out
    } else {
        Truth::Either
    }
}

/// Whether and when a body is entered: `Ok(Some((lo, hi)))` certainly, between `lo` and `hi`;
/// `Ok(None)` certainly not; `Err(())` either way.
type Entry = Result<Option<(f64, f64)>, ()>;

/// The ray's entry into `s`: `Some(lo..=hi)` where it certainly enters (`lo` with the body
/// grown by `tol`, `hi` shrunk), `None` where it certainly does not report it, and `Err` when
/// it may go either way.
fn ray_truth(s: &Solid, tol: f64, o: P, d: P, max: f64) -> Entry {
    let start = s.sdf(o);
    if start < -tol {
        return Ok(None); // Starts inside: never reported.
    }
    if start <= tol {
        return Err(());
    }
    let grown = s.grown(tol).entry(o, d, max).map_err(|_| ())?;
    let shrunk = match s.shrunk(tol) {
        Some(s) => s.entry(o, d, max).map_err(|_| ())?,
        None => None,
    };
    match (grown, shrunk) {
        (None, None) => Ok(None),
        (Some(lo), Some(hi)) => Ok(Some((lo, hi))),
        _ => Err(()),
    }
}

#[derive(Clone, Copy, Debug)]
enum BodyShape {
    Circle(f32),
    Rect(f32, f32),
}

impl BodyShape {
    fn shape(self) -> Shape {
        match self {
            BodyShape::Circle(r) => Shape::circle(r).unwrap(),
            BodyShape::Rect(hx, hy) => Shape::rect(hx, hy).unwrap(),
        }
    }
}

fn body_shape() -> impl Strategy<Value = BodyShape> {
    prop_oneof![
        (0.05f32..2.0).prop_map(BodyShape::Circle),
        (0.05f32..2.0, 0.05f32..2.0).prop_map(|(x, y)| BodyShape::Rect(x, y)),
    ]
}

/// `10^e` with a random sign, `e` in `lo..hi`.
fn magnitude(lo: f32, hi: f32) -> impl Strategy<Value = f32> {
    (lo..hi, any::<bool>()).prop_map(|(e, neg)| if neg { -(10f32.powf(e)) } else { 10f32.powf(e) })
}

fn point(lo: f32, hi: f32) -> impl Strategy<Value = Vec2> {
    prop_oneof![
        Just(Vec2::ZERO),
        (magnitude(lo, hi), magnitude(lo, hi)).prop_map(|(x, y)| Vec2::new(x, y)),
    ]
}

/// A world of fixed bodies spread over `10^(0..3)` m about an origin anywhere up to 1e8 m.
#[derive(Clone, Debug)]
struct Scene {
    center: Vec2,
    spread: f32,
    bodies: Vec<(BodyShape, Vec2, f32)>,
}

fn scene() -> impl Strategy<Value = Scene> {
    let body = (body_shape(), (-1.0f32..1.0, -1.0f32..1.0), -3.2f32..3.2);
    (
        point(0.0, 8.0),
        0.0f32..3.0,
        prop::collection::vec(body, 1..24),
    )
        .prop_map(|(center, spread, bodies)| Scene {
            center,
            spread: 10f32.powf(spread),
            bodies: bodies
                .into_iter()
                .map(|(s, (x, y), a)| (s, Vec2::new(x, y), a))
                .collect(),
        })
}

impl Scene {
    fn build(&self) -> (World, Vec<(BodyId, Solid)>) {
        let mut world = World::new(WorldSettings::default());
        let mut solids = Vec::new();
        for &(shape, offset, angle) in &self.bodies {
            let def = BodyDef::fixed()
                .position(self.center + offset * self.spread)
                .angle(angle);
            let id = world.add_body(def, ShapeDef::new(shape.shape())).unwrap();
            solids.push((id, Solid::of(shape, world.transform(id).unwrap())));
        }
        (world, solids)
    }

    /// A point among the bodies.
    fn inside(&self, u: (f32, f32)) -> Vec2 {
        self.center + Vec2::new(u.0, u.1) * self.spread
    }
}

fn check_set(got: &[BodyId], truths: &[(BodyId, Truth)], what: &str) -> Result<(), TestCaseError> {
    for &(id, t) in truths {
        let found = got.contains(&id);
        prop_assert!(
            !matches!((t, found), (Truth::In, false) | (Truth::Out, true)),
            "{what}: body {id:?} should be {t:?}, found = {found}"
        );
    }
    prop_assert!(
        got.windows(2).all(|w| w[0].slot() < w[1].slot()),
        "{what}: not in slot order"
    );
    Ok(())
}

/// Checks the first hit of a cast, `(body, fraction)`, against each body's `(body, entry
/// interval, slack)`: it hits no later than the latest fraction by which some body is certainly
/// entered, and within the interval of the body it names.
fn check_first_hit(
    hit: Option<(BodyId, f32)>,
    truths: &[(BodyId, Entry, f64)],
    what: &str,
) -> Result<(), TestCaseError> {
    let certain = truths
        .iter()
        .filter_map(|(_, t, slack)| match t {
            Ok(Some((_, hi))) => Some(hi + slack),
            _ => None,
        })
        .fold(f64::INFINITY, f64::min);
    let Some((body, fraction)) = hit else {
        prop_assert!(
            certain.is_infinite(),
            "{what} missed a body it enters by {certain}"
        );
        return Ok(());
    };
    let f = f64::from(fraction);
    prop_assert!(
        f <= certain,
        "{what} hit at {f}, a body is entered by {certain}"
    );
    let (_, t, slack) = truths.iter().find(|(id, _, _)| *id == body).unwrap();
    match t {
        Ok(None) => prop_assert!(false, "{what} hit {body:?}, which it misses"),
        Ok(Some((lo, hi))) => prop_assert!(
            lo - slack <= f && f <= hi + slack,
            "{what} hit {body:?} at {f}, outside {lo}..={hi}"
        ),
        Err(()) => {}
    }
    Ok(())
}

fn all() -> QueryFilter {
    QueryFilter::default()
}

proptest! {
    #![proptest_config(crate::proptest_config(48))]

    #[test]
    fn overlap_aabb_matches_brute_force(
        scene in scene(),
        at in (-1.5f32..1.5, -1.5f32..1.5),
        half in (-1.0f32..20.0, -1.0f32..20.0),
    ) {
        let (world, solids) = scene.build();
        let c = scene.inside(at);
        let half = Vec2::new(10f32.powf(half.0), 10f32.powf(half.1));
        let aabb = Aabb::new(c - half, c + half);
        let got = world.overlap_aabb(aabb, all()).unwrap();
        let (lo, hi) = (p64(aabb.min), p64(aabb.max));
        let region = [lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]];
        let truths: Vec<_> = solids
            .iter()
            .map(|(id, s)| (*id, truth(core_gap(&region, &s.core()) - s.r, s.tol())))
            .collect();
        check_set(&got, &truths, "overlap_aabb")?;
    }

    #[test]
    fn overlap_point_matches_brute_force(
        scene in scene(),
        at in (-1.2f32..1.2, -1.2f32..1.2),
    ) {
        let (world, solids) = scene.build();
        let p = scene.inside(at);
        let got = world.overlap_point(p, all()).unwrap();
        let truths: Vec<_> =
            solids.iter().map(|(id, s)| (*id, truth(s.sdf(p64(p)), s.tol()))).collect();
        check_set(&got, &truths, "overlap_point")?;
    }

    #[test]
    fn overlap_shape_matches_brute_force(
        scene in scene(),
        at in (-1.5f32..1.5, -1.5f32..1.5),
        size in (-1.0f32..12.0, -1.0f32..12.0),
        angle in -3.2f32..3.2,
        circle in any::<bool>(),
    ) {
        let (world, solids) = scene.build();
        let (hx, hy) = (10f32.powf(size.0), 10f32.powf(size.1));
        let query = if circle { BodyShape::Circle(hx) } else { BodyShape::Rect(hx, hy) };
        let xf = Transform::new(scene.inside(at), Rot::from_angle(angle));
        let got = world.overlap_shape(&query.shape(), xf, all()).unwrap();
        let q = Solid::of(query, xf);
        // The engine places the query's corners in f32 too.
        let query_tol = q.tol();
        let truths: Vec<_> = solids
            .iter()
            .map(|(id, s)| {
                let gap = core_gap(&q.core(), &s.core()) - s.r - q.r;
                (*id, truth(gap, s.tol() + query_tol))
            })
            .collect();
        check_set(&got, &truths, "overlap_shape")?;
    }

    #[test]
    fn cast_ray_matches_brute_force(
        scene in scene(),
        from in point(-1.0, 9.0),
        to in (-1.2f32..1.2, -1.2f32..1.2),
        reach in -1.0f32..1.0,
        max_fraction in 0.0f32..3.0,
    ) {
        let (world, solids) = scene.build();
        let origin = scene.inside((0.0, 0.0)) + from;
        let translation = (scene.inside(to) - origin) * 10f32.powf(reach);
        prop_assume!(translation != Vec2::ZERO && translation.is_finite());
        let (o, d, max) = (p64(origin), p64(translation), f64::from(max_fraction));
        // The fraction itself is an f32: a few of its spacings.
        let ftol = 4.0 * f64::from(f32::EPSILON) * max.max(1.0);
        let truths: Vec<(BodyId, Entry, f64)> = solids
            .iter()
            .map(|(id, s)| {
                let tol = s.tol();
                (*id, ray_truth(s, tol, o, d, max), tol / norm(d) + ftol)
            })
            .collect();
        let first = world.cast_ray(origin, translation, max_fraction, all()).unwrap();
        check_first_hit(first.map(|h| (h.body, h.fraction)), &truths, "cast_ray")?;
        let all_hits = world.cast_ray_all(origin, translation, max_fraction, all()).unwrap();
        prop_assert!(all_hits.windows(2).all(|w| w[0].fraction <= w[1].fraction));
        for (id, t, slack) in &truths {
            let hit = all_hits.iter().find(|h| h.body == *id);
            match (t, hit) {
                (Ok(None), Some(_)) => prop_assert!(false, "cast_ray_all hit {id:?}, which it misses"),
                (Ok(Some(_)), None) => prop_assert!(false, "cast_ray_all missed {id:?}"),
                (Ok(Some((lo, hi))), Some(h)) => {
                    let f = f64::from(h.fraction);
                    prop_assert!(lo - slack <= f && f <= hi + slack, "cast_ray_all: {id:?} at {f}, outside {lo}..={hi}");
                }
                _ => {}
            }
        }
    }

    #[test]
    fn cast_shape_matches_brute_force(
        scene in scene(),
        from in point(-1.0, 9.0),
        to in (-1.2f32..1.2, -1.2f32..1.2),
        reach in -1.0f32..1.0,
        radius in -1.0f32..1.0,
    ) {
        let (world, solids) = scene.build();
        let origin = scene.inside((0.0, 0.0)) + from;
        let translation = (scene.inside(to) - origin) * 10f32.powf(reach);
        prop_assume!(translation != Vec2::ZERO && translation.is_finite());
        let radius = 10f32.powf(radius);
        let xf = Transform::new(origin, Rot::default());
        let hit = world.cast_shape(&Shape::circle(radius).unwrap(), xf, translation, all()).unwrap();
        let (o, d) = (p64(origin), p64(translation));
        let ftol = 4.0 * f64::from(f32::EPSILON);
        let r = f64::from(radius);
        // A body the circle certainly reaches: by `hi`; one it certainly passes further than
        // the stopping band from: never; otherwise either.
        let truths: Vec<(BodyId, Entry, f64)> = solids
            .iter()
            .map(|(id, s)| {
                let tol = s.tol() + TOL_PER_MAGNITUDE * r;
                let slack = tol / norm(d) + ftol;
                let start = s.sdf(o) - r;
                let t = if start <= CAST_BAND + tol {
                    Err(()) // Touching or nearly so from the start.
                } else {
                    let far = s.grown(r + CAST_BAND + tol).entry(o, d, 1.0);
                    let near = if r >= tol {
                        Some(s.grown(r - tol))
                    } else {
                        s.shrunk(tol - r)
                    };
                    match (far, near.map(|near| near.entry(o, d, 1.0))) {
                        (Ok(None), _) => Ok(None),
                        (Ok(Some(lo)), Some(Ok(Some(hi)))) => Ok(Some((lo, hi))),
                        _ => Err(()),
                    }
                };
                (*id, t, slack)
            })
            .collect();
        check_first_hit(hit.map(|h| (h.body, h.fraction)), &truths, "cast_shape")?;
    }
}

/// A case the property above once drew: a circle cast from a billion metres away at a small
/// circle. The cast's box at its start, in f32, had lost the circle's extents to the spacing
/// of the floats there, so the grown body box that the cast's path must cross was too small and
/// the body was never tried. The cast must hit where the two circles first touch, which this
/// test computes in f64 from the same f32 inputs.
#[test]
fn cast_shape_from_a_billion_metres_hits_a_small_circle() {
    let mut world = World::new(WorldSettings::default());
    let (body_center, body_radius) = (Vec2::new(-27.445446, 84166.59), 1.2404855f32);
    let circle = Shape::circle(body_radius).unwrap();
    let body = world
        .add_body(
            BodyDef::fixed().position(body_center),
            ShapeDef::new(circle),
        )
        .unwrap();
    let origin = Vec2::new(-968244000.0, 65467260.0);
    let translation = Vec2::new(2543373000.0, -171747630.0);
    let radius = 1.4319462f32;
    let xf = Transform::new(origin, Rot::default());
    let cast = Shape::circle(radius).unwrap();
    let hit = world.cast_shape(&cast, xf, translation, all()).unwrap();

    let (o, d, c) = (p64(origin), p64(translation), p64(body_center));
    let closest = ((c[0] - o[0]) * d[0] + (c[1] - o[1]) * d[1]) / (d[0] * d[0] + d[1] * d[1]);
    let miss =
        ((o[0] + closest * d[0] - c[0]).powi(2) + (o[1] + closest * d[1] - c[1]).powi(2)).sqrt();
    let reach = f64::from(body_radius) + f64::from(radius);
    assert!(
        miss < reach,
        "the path passes {miss} m from the body's centre"
    );
    let entry = closest - (reach * reach - miss * miss).sqrt() / (d[0] * d[0] + d[1] * d[1]).sqrt();
    let hit = hit.expect("the cast misses a body its path enters");
    assert_eq!(hit.body, body);
    assert!(
        (f64::from(hit.fraction) - entry).abs() <= 1e-6,
        "hit at {}, the circles first touch at {entry}",
        hit.fraction
    );
}
