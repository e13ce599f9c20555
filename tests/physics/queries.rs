//! World queries against brute force over every body: rays solved analytically per shape,
//! overlaps by exact separating-axis and vertex-edge tests, shape casts by their invariants.

use crate::common;

use batch2d::{
    Aabb, BodyDef, BodyId, Error, QueryFilter, Rot, Shape, ShapeDef, Transform, Vec2, World,
    WorldSettings,
};
use common::{point_segment_distance, v, Rng};

impl Rng {
    pub(crate) fn point(&mut self, half: f32) -> Vec2 {
        Vec2::new(self.range(-half, half), self.range(-half, half))
    }

    /// A circle, box, convex polygon or rounded polygon of size about `size`.
    pub(crate) fn shape(&mut self, size: f32) -> Shape {
        match (self.next_f32() * 4.0) as u32 {
            0 => Shape::circle(self.range(0.3, 1.0) * size).unwrap(),
            1 => Shape::rect(self.range(0.3, 1.0) * size, self.range(0.3, 1.0) * size).unwrap(),
            k => loop {
                let points: Vec<Vec2> = (0..6).map(|_| self.point(size)).collect();
                let radius = if k == 3 {
                    self.range(0.05, 0.3) * size
                } else {
                    0.0
                };
                if let Ok(shape) = Shape::rounded_polygon(&points, radius) {
                    return shape;
                }
            },
        }
    }
}

/// A body's shape as the brute force sees it: world core points (1 for a circle, the
/// counter-clockwise vertices of a polygon) and a radius.
pub(crate) struct Solid {
    pub(crate) core: Vec<Vec2>,
    pub(crate) radius: f32,
}

impl Solid {
    pub(crate) fn of(shape: &Shape, xf: Transform) -> Solid {
        match shape {
            Shape::Circle(c) => Solid {
                core: vec![xf.apply(c.center())],
                radius: c.radius(),
            },
            Shape::Polygon(p) => Solid {
                core: p.vertices().iter().map(|&v| xf.apply(v)).collect(),
                radius: p.radius(),
            },
        }
    }

    fn edges(&self) -> Vec<(Vec2, Vec2)> {
        let n = self.core.len();
        if n < 3 {
            return Vec::new();
        }
        (0..n)
            .map(|i| (self.core[i], self.core[(i + 1) % n]))
            .collect()
    }

    /// Outward unit normals of the core's edges.
    fn normals(&self) -> Vec<Vec2> {
        self.edges()
            .iter()
            .map(|&(a, b)| {
                let e = b - a;
                v(e.y, -e.x) * (1.0 / e.length())
            })
            .collect()
    }

    /// Distance from `p` to the core: 0 inside it.
    fn core_distance(&self, p: Vec2) -> f32 {
        let edges = self.edges();
        if edges.is_empty() {
            return (p - self.core[0]).length();
        }
        let inside = self
            .normals()
            .iter()
            .zip(&edges)
            .all(|(n, (a, _))| n.dot(p - *a) <= 0.0);
        if inside {
            return 0.0;
        }
        edges
            .iter()
            .map(|&(a, b)| point_segment_distance(p, a, b))
            .fold(f32::MAX, f32::min)
    }

    /// Signed gap between two solids: the vertex-edge distance between separated cores less
    /// the radii, or -1 when the cores overlap (SAT over every core normal).
    pub(crate) fn gap(&self, o: &Solid) -> f32 {
        let mut axes: Vec<Vec2> = self.normals();
        axes.extend(o.normals());
        if axes.is_empty() {
            let d = o.core[0] - self.core[0];
            axes.push(d * (1.0 / d.length()));
        }
        let separated = axes.iter().any(|&u| {
            let (lo_a, hi_a) = project(&self.core, u);
            let (lo_b, hi_b) = project(&o.core, u);
            hi_a < lo_b || hi_b < lo_a
        });
        if !separated {
            return -1.0;
        }
        let core_gap = self
            .core
            .iter()
            .map(|&p| o.core_distance(p))
            .chain(o.core.iter().map(|&p| self.core_distance(p)))
            .fold(f32::MAX, f32::min);
        core_gap - self.radius - o.radius
    }

    /// Where the ray `o + t d`, `t` in `0..=max`, first enters the solid; `None` if it starts
    /// inside or misses. The solid is the union of its core polygon, a disc at every core
    /// point and a slab over every edge; starting outside the union, the first entry into any
    /// piece is the entry into the union.
    fn ray(&self, o: Vec2, d: Vec2, max: f32) -> Option<f32> {
        if self.core_distance(o) <= self.radius {
            return None;
        }
        let mut best: Option<f32> = None;
        let mut keep = |t: f32| {
            if (0.0..=max).contains(&t) && best.is_none_or(|b| t < b) {
                best = Some(t);
            }
        };
        for &c in &self.core {
            if let Some(t) = ray_disc(o, d, c, self.radius) {
                keep(t);
            }
        }
        for ((a, b), n) in self.edges().into_iter().zip(self.normals()) {
            // The core edge itself and its copy pushed out by the radius.
            for offset in [0.0, self.radius] {
                if let Some(t) = ray_segment(o, d, a + n * offset, b + n * offset) {
                    keep(t);
                }
            }
        }
        best
    }
}

fn project(points: &[Vec2], u: Vec2) -> (f32, f32) {
    points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        let x = p.dot(u);
        (lo.min(x), hi.max(x))
    })
}

/// Smaller root of `|o + t d - c| = r` if the ray starts outside the disc, solved in f64 so
/// that the discriminant of a grazing ray from afar keeps its digits.
fn ray_disc(o: Vec2, d: Vec2, c: Vec2, r: f32) -> Option<f32> {
    if r == 0.0 {
        return None;
    }
    let (mx, my) = (
        f64::from(o.x) - f64::from(c.x),
        f64::from(o.y) - f64::from(c.y),
    );
    let (dx, dy) = (f64::from(d.x), f64::from(d.y));
    let a = dx * dx + dy * dy;
    let b = mx * dx + my * dy;
    let cc = mx * mx + my * my - f64::from(r) * f64::from(r);
    let disc = b * b - a * cc;
    (cc > 0.0 && disc >= 0.0).then(|| ((-b - disc.sqrt()) / a) as f32)
}

/// Where the ray crosses the segment `a`-`b`, if it does.
fn ray_segment(o: Vec2, d: Vec2, a: Vec2, b: Vec2) -> Option<f32> {
    let e = b - a;
    let den = d.cross(e);
    if den == 0.0 {
        return None;
    }
    let t = (a - o).cross(e) / den;
    let s = (a - o).cross(d) / den;
    (0.0..=1.0).contains(&s).then_some(t)
}

/// A random world: a ground, 400 bodies of mixed shapes and layers, stepped so they fall and
/// collide, then a few removed and a few added at new places, so that queries must see poses
/// after a step and after edits.
fn random_world(seed: u32) -> (World, Vec<BodyId>) {
    let mut rng = Rng(seed);
    let mut world = World::new(WorldSettings::default());
    let mut ids = vec![world
        .add_body(
            BodyDef::fixed().position(v(0.0, -21.0)),
            ShapeDef::new(Shape::rect(30.0, 1.0).unwrap()),
        )
        .unwrap()];
    for _ in 0..400 {
        let shape = rng.shape(0.6);
        let layers = 1 << (rng.next_f32() * 3.0) as u32;
        let def = BodyDef::dynamic()
            .position(rng.point(18.0))
            .angle(rng.range(-3.0, 3.0))
            .angular_velocity(rng.range(-2.0, 2.0));
        ids.push(
            world
                .add_body(def, ShapeDef::new(shape).layers(layers))
                .unwrap(),
        );
    }
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    for k in (5..ids.len()).step_by(37) {
        world.remove_body(ids[k]).unwrap();
    }
    ids.retain(|&id| world.position(id).is_ok());
    for _ in 0..20 {
        let def = BodyDef::fixed()
            .position(rng.point(18.0))
            .angle(rng.range(-3.0, 3.0));
        ids.push(world.add_body(def, ShapeDef::new(rng.shape(0.6))).unwrap());
    }
    (world, ids)
}

pub(crate) fn solid(world: &World, id: BodyId) -> Solid {
    Solid::of(world.shape(id).unwrap(), world.transform(id).unwrap())
}

/// The layers of a body are not readable through the API; the tests keep to filters whose
/// answer does not need them except through the query itself, and check the layer rule on a
/// world of their own (see `filters_follow_the_layer_rule`).
pub(crate) fn all() -> QueryFilter {
    QueryFilter::new().layers(u32::MAX)
}

#[test]
fn closest_ray_matches_brute_force() {
    let (world, ids) = random_world(1);
    let mut rng = Rng(2);
    let mut hits = 0;
    for _ in 0..400 {
        let o = rng.point(25.0);
        let d = rng.point(30.0);
        let max = rng.range(0.2, 1.5);
        let brute = ids
            .iter()
            .filter_map(|&id| solid(&world, id).ray(o, d, max).map(|t| (t, id)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let got = world.cast_ray(o, d, max, all()).unwrap();
        match (got, brute) {
            (None, None) => {}
            (Some(hit), Some((t, id))) => {
                hits += 1;
                assert!(
                    (hit.fraction - t).abs() * d.length() < 1e-3,
                    "{hit:?} vs {t}"
                );
                if hit.body != id {
                    // Only a tie may pick another body: it must be entered at the same place.
                    let other = solid(&world, hit.body).ray(o, d, max).unwrap();
                    assert!((other - t).abs() * d.length() < 1e-3);
                }
                assert!((hit.point - (o + d * hit.fraction)).length() < 1e-4);
                assert!((hit.normal.length() - 1.0).abs() < 1e-4);
                assert!(
                    hit.normal.dot(d) <= 0.0,
                    "the ray enters against the normal"
                );
            }
            (got, brute) => panic!("ray {o:?} {d:?}: got {got:?}, brute force {brute:?}"),
        }
    }
    assert!(hits > 100, "too few hits to mean anything: {hits}");
}

#[test]
fn all_ray_hits_match_brute_force_in_order() {
    let (world, ids) = random_world(3);
    let mut rng = Rng(4);
    for _ in 0..200 {
        let o = rng.point(25.0);
        let d = rng.point(30.0);
        let mut brute: Vec<(f32, BodyId)> = ids
            .iter()
            .filter_map(|&id| solid(&world, id).ray(o, d, 1.0).map(|t| (t, id)))
            .collect();
        brute.sort_by(|a, b| a.0.total_cmp(&b.0));
        let got = world.cast_ray_all(o, d, 1.0, all()).unwrap();
        assert_eq!(got.len(), brute.len(), "ray {o:?} {d:?}");
        for pair in got.windows(2) {
            let order =
                (pair[0].fraction, pair[0].body.slot()) < (pair[1].fraction, pair[1].body.slot());
            assert!(order, "hits out of order: {pair:?}");
        }
        for (hit, (t, id)) in got.iter().zip(&brute) {
            assert!(
                (hit.fraction - t).abs() * d.length() < 1e-3,
                "ray {o:?} {d:?}: {hit:?} vs {t} {id:?}; all {got:?} brute {brute:?}"
            );
        }
    }
}

/// Asserts that `got` holds every body whose signed gap is clearly negative and none whose
/// gap is clearly positive (within 1e-4 either way the answer is up to rounding).
fn assert_overlap_set(got: &[BodyId], gaps: &[(BodyId, f32)], what: &str) {
    assert!(
        got.windows(2).all(|w| w[0].slot() < w[1].slot()),
        "{what}: not in slot order"
    );
    for &(id, gap) in gaps {
        if gap < -1e-4 {
            assert!(got.contains(&id), "{what}: missed {id:?} (gap {gap})");
        } else if gap > 1e-4 {
            assert!(!got.contains(&id), "{what}: reported {id:?} (gap {gap})");
        }
    }
}

#[test]
fn point_overlaps_match_brute_force() {
    let (world, ids) = random_world(5);
    let mut rng = Rng(6);
    let mut found = 0;
    for _ in 0..1000 {
        let p = rng.point(20.0);
        let gaps: Vec<(BodyId, f32)> = ids
            .iter()
            .map(|&id| {
                let s = solid(&world, id);
                let d = s.core_distance(p);
                // Inside the core counts as clearly inside.
                (id, if d == 0.0 { -1.0 } else { d - s.radius })
            })
            .collect();
        let got = world.overlap_point(p, all()).unwrap();
        found += got.len();
        assert_overlap_set(&got, &gaps, "point");
    }
    assert!(found > 100, "too few points inside bodies: {found}");
}

#[test]
fn box_and_shape_overlaps_match_brute_force() {
    let (world, ids) = random_world(7);
    let mut rng = Rng(8);
    let mut found = 0;
    for _ in 0..300 {
        let lo = rng.point(20.0);
        let aabb = Aabb::new(lo, lo + v(rng.range(0.0, 4.0), rng.range(0.0, 4.0)));
        let corners = vec![
            aabb.min,
            v(aabb.max.x, aabb.min.y),
            aabb.max,
            v(aabb.min.x, aabb.max.y),
        ];
        let region = Solid {
            core: corners,
            radius: 0.0,
        };
        let gaps: Vec<(BodyId, f32)> = ids
            .iter()
            .map(|&id| (id, region.gap(&solid(&world, id))))
            .collect();
        let got = world.overlap_aabb(aabb, all()).unwrap();
        found += got.len();
        assert_overlap_set(&got, &gaps, "aabb");

        let shape = rng.shape(1.5);
        let xf = Transform::new(rng.point(20.0), Rot::from_angle(rng.range(-3.0, 3.0)));
        let query = Solid::of(&shape, xf);
        let gaps: Vec<(BodyId, f32)> = ids
            .iter()
            .map(|&id| (id, query.gap(&solid(&world, id))))
            .collect();
        let got = world.overlap_shape(&shape, xf, all()).unwrap();
        found += got.len();
        assert_overlap_set(&got, &gaps, "shape");
    }
    assert!(found > 300, "too few overlaps: {found}");
}

#[test]
fn a_cast_circle_stops_just_short_of_the_first_body_it_meets() {
    let (world, ids) = random_world(9);
    let mut rng = Rng(10);
    let mut hits = 0;
    for _ in 0..200 {
        let r = rng.range(0.05, 0.5);
        let start = rng.point(22.0);
        let translation = rng.point(20.0);
        let circle = Shape::circle(r).unwrap();
        let xf = Transform::new(start, Rot::IDENTITY);
        let blocked = ids.iter().any(|&id| {
            let s = solid(&world, id);
            s.core_distance(start) <= s.radius + r
        });
        // A circle cast is a ray from its centre against every body grown by its radius.
        let earliest = ids
            .iter()
            .filter_map(|&id| {
                let s = solid(&world, id);
                let grown = Solid {
                    core: s.core,
                    radius: s.radius + r,
                };
                grown.ray(start, translation, 1.0)
            })
            .fold(f32::MAX, f32::min);
        let got = world.cast_shape(&circle, xf, translation, all()).unwrap();
        if blocked {
            let hit = got.expect("starts overlapping");
            assert_eq!(hit.fraction, 0.0);
            continue;
        }
        let Some(hit) = got else {
            assert_eq!(earliest, f32::MAX, "missed a hit at {earliest}");
            continue;
        };
        hits += 1;
        assert!(
            hit.fraction <= earliest + 1e-5,
            "stopped past {earliest}: {hit:?}"
        );
        let at = Solid {
            core: vec![start + translation * hit.fraction],
            radius: r,
        };
        let target_gap = at.gap(&solid(&world, hit.body));
        assert!(
            (0.0..=3e-3).contains(&target_gap),
            "gap {target_gap} to the hit body"
        );
        for &id in &ids {
            assert!(
                at.gap(&solid(&world, id)) > 0.0,
                "overlaps {id:?} where it stopped"
            );
        }
        assert!((hit.normal.length() - 1.0).abs() < 1e-3);
    }
    assert!(hits > 50, "too few hits: {hits}");
}

#[test]
fn a_cast_polygon_meets_nothing_before_its_hit() {
    let (world, ids) = random_world(11);
    let mut rng = Rng(12);
    for _ in 0..100 {
        let shape = rng.shape(0.8);
        let xf = Transform::new(rng.point(22.0), Rot::from_angle(rng.range(-3.0, 3.0)));
        if ids
            .iter()
            .any(|&id| Solid::of(&shape, xf).gap(&solid(&world, id)) <= 0.0)
        {
            continue;
        }
        let translation = rng.point(15.0);
        let got = world.cast_shape(&shape, xf, translation, all()).unwrap();
        let end = got.map_or(1.0, |h| h.fraction);
        // Sampled poses up to the answer overlap nothing.
        for k in 0..=50 {
            let t = end * k as f32 / 50.0;
            let moved = Transform::new(xf.p + translation * t, xf.q);
            let at = Solid::of(&shape, moved);
            for &id in &ids {
                assert!(at.gap(&solid(&world, id)) > 0.0, "overlaps {id:?} at {t}");
            }
        }
        if let Some(hit) = got {
            let moved = Transform::new(xf.p + translation * hit.fraction, xf.q);
            let gap = Solid::of(&shape, moved).gap(&solid(&world, hit.body));
            assert!(gap <= 3e-3, "stopped {gap} short of the hit body");
        }
    }
}

#[test]
fn queries_see_bodies_where_they_are_now() {
    let mut world = World::new(WorldSettings::default());
    let ball = common::ball(&mut world, v(0.0, 10.0), 0.5);
    let here = |world: &World, p: Vec2| world.overlap_point(p, QueryFilter::new()).unwrap();
    assert_eq!(here(&world, v(0.0, 10.0)), vec![ball]);
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
    }
    // Fallen 5 m in the second of free fall.
    let p = world.position(ball).unwrap();
    assert!((p.y - 5.0).abs() < 0.1);
    assert!(here(&world, v(0.0, 10.0)).is_empty());
    assert_eq!(here(&world, p), vec![ball]);
    let down = world
        .cast_ray(v(0.0, 20.0), v(0.0, -20.0), 1.0, QueryFilter::new())
        .unwrap()
        .expect("hits the ball");
    assert!((down.point.y - (p.y + 0.5)).abs() < 1e-4);
    world.remove_body(ball).unwrap();
    assert!(here(&world, p).is_empty());
    let crate_ = world
        .add_body(
            BodyDef::fixed().position(p),
            ShapeDef::new(Shape::rect(1.0, 1.0).unwrap()),
        )
        .unwrap();
    assert_eq!(here(&world, p), vec![crate_]);
}

#[test]
fn filters_follow_the_layer_rule() {
    let mut world = World::new(WorldSettings::default());
    let mut bodies = Vec::new();
    for layers in [1u32, 2, 4] {
        for mask in [u32::MAX, 1, 6] {
            let def = ShapeDef::new(Shape::circle(1.0).unwrap())
                .layers(layers)
                .mask(mask);
            bodies.push((world.add_body(BodyDef::fixed(), def).unwrap(), layers, mask));
        }
    }
    for fl in [1u32, 2, 3, 4, u32::MAX] {
        for fm in [u32::MAX, 1, 2, 5, 0] {
            let filter = QueryFilter::new().layers(fl).mask(fm);
            let got = world.overlap_point(v(0.0, 0.0), filter).unwrap();
            let want: Vec<BodyId> = bodies
                .iter()
                .filter(|&&(_, layers, mask)| fl & mask != 0 && layers & fm != 0)
                .map(|&(id, _, _)| id)
                .collect();
            assert_eq!(got, want, "filter layers {fl} mask {fm}");
        }
    }
}

#[test]
fn bad_query_input_is_an_error() {
    let (world, _) = random_world(13);
    let f = QueryFilter::new();
    let nan = v(f32::NAN, 0.0);
    let bad = |r: Result<_, Error>| matches!(r, Err(Error::InvalidParameter(_)));
    assert!(bad(world.cast_ray(nan, v(1.0, 0.0), 1.0, f).map(|_| ())));
    assert!(bad(world
        .cast_ray(v(0.0, 0.0), v(0.0, 0.0), 1.0, f)
        .map(|_| ())));
    assert!(bad(world
        .cast_ray(v(0.0, 0.0), v(1.0, 0.0), -1.0, f)
        .map(|_| ())));
    assert!(bad(world
        .cast_ray(v(0.0, 0.0), v(1.0, 0.0), f32::INFINITY, f)
        .map(|_| ())));
    assert!(bad(world
        .cast_ray_all(v(0.0, 0.0), nan, 1.0, f)
        .map(|_| ())));
    assert!(bad(world.overlap_point(nan, f).map(|_| ())));
    assert!(bad(world
        .overlap_aabb(Aabb::new(v(1.0, 1.0), v(0.0, 0.0)), f)
        .map(|_| ())));
    assert!(bad(world
        .overlap_aabb(Aabb::new(nan, v(0.0, 0.0)), f)
        .map(|_| ())));
    let c = Shape::circle(1.0).unwrap();
    let skew = Transform::new(v(0.0, 0.0), Rot { c: 0.0, s: 0.0 });
    assert!(bad(world.overlap_shape(&c, skew, f).map(|_| ())));
    assert!(bad(world
        .cast_shape(&c, Transform::IDENTITY, v(0.0, 0.0), f)
        .map(|_| ())));
    assert!(matches!(Shape::circle(0.0), Err(Error::InvalidShape(_))));
}
