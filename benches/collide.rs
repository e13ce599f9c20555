//! Fresh contact manifolds, one pair at a time, in batch2d and in Box2D v3: the same shapes at
//! the same poses through batch2d's `collide` and through Box2D's `b2CollidePolygons`,
//! `b2CollidePolygonAndCapsule` and `b2CollideCapsules`, to count the instructions each takes
//! per pair (`profiling/collide.sh` runs this under callgrind).
//!
//! ```text
//! cargo bench -p batch2d-bench --bench collide -- --engine batch2d|box2d --pair KIND [--reps N]
//!     [--pairs N] [--check]
//! ```
//!
//! KIND is one of `box` (two boxes of half-extent 0.25), `polygon` (the stirred bin's irregular
//! polygons of 3 to 7 vertices, two at a time), `rounded` (the stirred bin's rounded box against
//! those polygons and itself), `capsule_polygon` (a polygon, the rounded box among them, against
//! the stirred bin's capsule) and `capsule` (two capsules). Each pair is one of `--pairs`
//! (default 1000) poses drawn once from a fixed seed: A anywhere within 20 m of the origin at
//! any angle, B at any angle with its centre at a distance from A's of up to the sum of their
//! reaches plus 0.05 m, the pairs a broadphase hands the narrowphase. All of them go through the
//! chosen engine `--reps` times (default 10).
//!
//! Both engines are measured from the two world poses to the world manifold that the solver
//! reads (normal, points with their anchors on both bodies, separations, ids): batch2d's
//! `collide` does all of it; for Box2D, `box2d_collide` below takes the relative pose, calls the
//! collide function, and turns its manifold in A's frame to world anchors, as Box2D's
//! `b2UpdateContact` does. callgrind counts each engine's function, called once per pair, and
//! Box2D's collide function alone as well.
//!
//! `--check` instead runs every pair through both and prints how often they agree (point count,
//! normal within 1e-3, deepest separation within 1 mm): they should, nearly always, or the
//! counts would compare different work.

use batch2d::collide;
use batch2d::manifold::Manifold;
use batch2d::{Rot, Shape, Transform, Vec2};
use boxdd_sys::ffi::*;
use std::hint::black_box;

/// Box2D's and batch2d's speculative distance: 4 linear slops of 5 mm.
const SPECULATIVE: f32 = 0.02;

// The irregular polygons of the stirred bin (`docs/scenes.md`), of 3 to 7 vertices.
use batch2d::scenes::STIRRED_BIN_POLYGONS as POLYGONS;

/// One shape as both engines build it.
#[derive(Clone, Copy, Debug)]
enum Spec {
    /// A square of this half-extent.
    Box(f32),
    /// A square core of this half-extent rounded by this radius.
    RoundedBox(f32, f32),
    /// `POLYGONS[i]`.
    Polygon(usize),
    /// A capsule from (-h, 0) to (h, 0) of radius r.
    Capsule(f32, f32),
}

const CAPSULE: Spec = Spec::Capsule(0.15, 0.15);
const ROUNDED: Spec = Spec::RoundedBox(0.18, 0.07);

impl Spec {
    fn batch2d(self) -> Shape {
        let v = |[x, y]: [f32; 2]| Vec2::new(x, y);
        match self {
            Spec::Box(h) => Shape::rect(h, h),
            Spec::RoundedBox(h, r) => {
                Shape::rounded_polygon(&[[-h, -h], [h, -h], [h, h], [-h, h]].map(v), r)
            }
            Spec::Polygon(i) => {
                Shape::polygon(&POLYGONS[i].iter().map(|&p| v(p)).collect::<Vec<_>>())
            }
            Spec::Capsule(h, r) => Shape::capsule(Vec2::new(-h, 0.0), Vec2::new(h, 0.0), r),
        }
        .expect("a valid shape")
    }

    /// Box2D's polygon of the shape; a capsule as the polygon `b2CollidePolygonAndCapsule`
    /// would make of it is not needed: it takes the capsule itself.
    fn box2d_polygon(self) -> b2Polygon {
        let v = |[x, y]: [f32; 2]| b2Vec2 { x, y };
        // SAFETY: pure functions of their arguments; the hull is checked before use.
        unsafe {
            match self {
                Spec::Box(h) => b2MakeBox(h, h),
                Spec::RoundedBox(h, r) => b2MakeRoundedBox(h, h, r),
                Spec::Polygon(i) => {
                    let points: Vec<b2Vec2> = POLYGONS[i].iter().map(|&p| v(p)).collect();
                    let hull = b2ComputeHull(points.as_ptr(), points.len() as i32);
                    assert_eq!(hull.count as usize, points.len());
                    b2MakePolygon(&hull, 0.0)
                }
                Spec::Capsule(..) => unreachable!("capsules stay capsules"),
            }
        }
    }

    fn box2d_capsule(self) -> b2Capsule {
        let Spec::Capsule(h, r) = self else {
            unreachable!("not a capsule")
        };
        b2Capsule {
            center1: b2Vec2 { x: -h, y: 0.0 },
            center2: b2Vec2 { x: h, y: 0.0 },
            radius: r,
        }
    }

    /// How far the shape reaches from its body origin.
    fn reach(self) -> f32 {
        match self {
            Spec::Box(h) => h * std::f32::consts::SQRT_2,
            Spec::RoundedBox(h, r) => h * std::f32::consts::SQRT_2 + r,
            Spec::Polygon(i) => POLYGONS[i]
                .iter()
                .map(|&[x, y]| x.hypot(y))
                .fold(0.0, f32::max),
            Spec::Capsule(h, r) => h + r,
        }
    }
}

/// The pair kinds, by name: which shapes meet, and which Box2D function collides them.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Box,
    Polygon,
    Rounded,
    CapsulePolygon,
    Capsule,
}

impl Kind {
    fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "box" => Kind::Box,
            "polygon" => Kind::Polygon,
            "rounded" => Kind::Rounded,
            "capsule_polygon" => Kind::CapsulePolygon,
            "capsule" => Kind::Capsule,
            _ => return None,
        })
    }

    /// Shape A and shape B of pair number `i`.
    fn specs(self, i: usize, random: &mut Random) -> (Spec, Spec) {
        let polygon = |random: &mut Random| Spec::Polygon(random.below(POLYGONS.len()));
        match self {
            Kind::Box => (Spec::Box(0.25), Spec::Box(0.25)),
            Kind::Polygon => (polygon(random), polygon(random)),
            Kind::Rounded => {
                let other = if i.is_multiple_of(6) {
                    ROUNDED
                } else {
                    polygon(random)
                };
                (ROUNDED, other)
            }
            Kind::CapsulePolygon => {
                let a = if i.is_multiple_of(6) {
                    ROUNDED
                } else {
                    polygon(random)
                };
                (a, CAPSULE)
            }
            Kind::Capsule => (CAPSULE, CAPSULE),
        }
    }
}

/// A small xorshift generator: the same pairs on every run and machine.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One pair: both shapes in both engines' forms, and the two world poses.
struct Pair {
    spec: (Spec, Spec),
    shapes: (Shape, Shape),
    xf: (Transform, Transform),
}

fn pairs(kind: Kind, count: usize) -> Vec<Pair> {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    let tau = std::f32::consts::TAU;
    (0..count)
        .map(|i| {
            let spec = kind.specs(i, &mut random);
            let a = Vec2::new(random.unit() - 0.5, random.unit() - 0.5) * 40.0;
            let xf_a = Transform::new(a, Rot::from_angle(tau * random.unit()));
            let direction = Rot::from_angle(tau * random.unit()).rotate(Vec2::new(1.0, 0.0));
            let distance = (spec.0.reach() + spec.1.reach() + 0.05) * random.unit();
            let xf_b = Transform::new(
                a + direction * distance,
                Rot::from_angle(tau * random.unit()),
            );
            Pair {
                spec,
                shapes: (spec.0.batch2d(), spec.1.batch2d()),
                xf: (xf_a, xf_b),
            }
        })
        .collect()
}

/// Box2D's forms of one pair's shapes.
enum Box2dPair {
    Polygons(b2Polygon, b2Polygon),
    PolygonCapsule(b2Polygon, b2Capsule),
    Capsules(b2Capsule, b2Capsule),
}

impl Box2dPair {
    fn of((a, b): (Spec, Spec)) -> Box2dPair {
        match (a, b) {
            (Spec::Capsule(..), Spec::Capsule(..)) => {
                Box2dPair::Capsules(a.box2d_capsule(), b.box2d_capsule())
            }
            (_, Spec::Capsule(..)) => {
                Box2dPair::PolygonCapsule(a.box2d_polygon(), b.box2d_capsule())
            }
            _ => Box2dPair::Polygons(a.box2d_polygon(), b.box2d_polygon()),
        }
    }
}

fn b2(xf: Transform) -> b2Transform {
    b2Transform {
        p: b2Vec2 {
            x: xf.p.x,
            y: xf.p.y,
        },
        q: b2Rot {
            c: xf.q.c,
            s: xf.q.s,
        },
    }
}

/// Box2D's manifold of one pair from the two world poses, as `b2UpdateContact` makes it: the
/// pose of B in A's frame, the collide function, then the world normal and each point's
/// anchors on A's and B's origins.
#[inline(never)]
fn box2d_collide(pair: &Box2dPair, xf_a: Transform, xf_b: Transform) -> Manifold {
    let relative = b2(xf_a.inv_mul(xf_b));
    // SAFETY: pure functions of valid shapes Box2D built itself.
    let local = unsafe {
        match pair {
            Box2dPair::Polygons(a, b) => b2CollidePolygons(a, b, relative),
            Box2dPair::PolygonCapsule(a, b) => b2CollidePolygonAndCapsule(a, b, relative),
            Box2dPair::Capsules(a, b) => b2CollideCapsules(a, b, relative),
        }
    };
    let mut out = Manifold {
        normal: xf_a.q.rotate(Vec2::new(local.normal.x, local.normal.y)),
        point_count: local.pointCount as usize,
        ..Manifold::default()
    };
    let offset = xf_a.p - xf_b.p;
    for (mp, lp) in out
        .points
        .iter_mut()
        .zip(&local.points)
        .take(out.point_count)
    {
        mp.anchor_a = xf_a.q.rotate(Vec2::new(lp.point.x, lp.point.y));
        mp.anchor_b = mp.anchor_a + offset;
        mp.point = xf_a.p + mp.anchor_a;
        mp.separation = lp.separation;
        mp.id = u32::from(lp.id);
    }
    out
}

/// batch2d's manifold of one pair, fresh.
#[inline(never)]
fn batch2d_collide(a: &Shape, xf_a: Transform, b: &Shape, xf_b: Transform) -> Manifold {
    collide(a, xf_a, b, xf_b, SPECULATIVE).unwrap()
}

struct Options {
    engine: Option<String>,
    kind: Kind,
    reps: usize,
    pairs: usize,
    check: bool,
}

const USAGE: &str = "usage: cargo bench -p batch2d-bench --bench collide -- \
--engine batch2d|box2d --pair box|polygon|rounded|capsule_polygon|capsule [--reps N] \
[--pairs N] [--check]";

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        engine: None,
        kind: Kind::Box,
        reps: 10,
        pairs: 1000,
        check: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value\n{USAGE}"));
        match arg.as_str() {
            // `cargo bench` passes `--bench` to every bench binary.
            "--bench" => {}
            "--engine" => o.engine = Some(value()?),
            "--pair" => {
                let name = value()?;
                o.kind = Kind::from_name(&name).ok_or(format!("no pair kind {name}\n{USAGE}"))?
            }
            "--reps" => o.reps = value()?.parse().map_err(|e| format!("--reps: {e}"))?,
            "--pairs" => o.pairs = value()?.parse().map_err(|e| format!("--pairs: {e}"))?,
            "--check" => o.check = true,
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}")),
        }
    }
    Ok(o)
}

/// Whether the two engines' manifolds of one pair agree: the points within the speculative
/// distance (Box2D keeps a clipped face's second point however far it is; batch2d drops it),
/// the normal and the deepest separation.
fn agree(a: &Manifold, b: &Manifold) -> bool {
    let near = |m: &Manifold| {
        m.points[..m.point_count]
            .iter()
            .filter(|p| p.separation <= SPECULATIVE)
            .count()
    };
    let deepest = |m: &Manifold| {
        m.points[..m.point_count]
            .iter()
            .map(|p| p.separation)
            .fold(f32::INFINITY, f32::min)
    };
    near(a) == near(b)
        && (near(a) == 0
            || ((a.normal - b.normal).length() < 1e-3 && (deepest(a) - deepest(b)).abs() < 1e-3))
}

fn main() {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let pairs = pairs(o.kind, o.pairs);
    let box2d: Vec<Box2dPair> = pairs.iter().map(|p| Box2dPair::of(p.spec)).collect();
    if o.check {
        let mut same = 0;
        let mut touching = 0;
        for (p, b) in pairs.iter().zip(&box2d) {
            let ours = batch2d_collide(&p.shapes.0, p.xf.0, &p.shapes.1, p.xf.1);
            let theirs = box2d_collide(b, p.xf.0, p.xf.1);
            same += usize::from(agree(&ours, &theirs));
            touching += usize::from(ours.point_count > 0);
        }
        println!(
            "{:?}: {} pairs, {touching} with points in batch2d, {same} agree with Box2D",
            o.kind,
            pairs.len()
        );
        return;
    }
    let mut points = 0usize;
    match o.engine.as_deref() {
        Some("batch2d") => {
            for _ in 0..o.reps {
                for p in &pairs {
                    let m = batch2d_collide(&p.shapes.0, p.xf.0, &p.shapes.1, p.xf.1);
                    points += black_box(m).point_count;
                }
            }
        }
        Some("box2d") => {
            for _ in 0..o.reps {
                for (p, b) in pairs.iter().zip(&box2d) {
                    points += black_box(box2d_collide(b, p.xf.0, p.xf.1)).point_count;
                }
            }
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
    println!(
        "{:?}: {} calls, {points} points",
        o.kind,
        o.reps * pairs.len()
    );
}
