//! Recycled manifolds against fresh collides: a pair that barely moved since its last full
//! collide reuses that collide's manifold, moved with the bodies (see
//! `WorldSettings::recycle_distance`). Whichever way the world found a manifold, it must agree
//! with a fresh collide of the shapes at the poses the step began with: no point of the fresh
//! manifold missing, no point the fresh one lacks, and each separation within the documented
//! error.

use std::collections::HashMap;

use batch2d::scenes::Scene;
use batch2d::{
    collide, manifold::ManifoldPoint, BodyDef, BodyId, Shape, ShapeDef, Transform, Vec2, World,
    WorldSettings,
};

/// What the comparisons saw.
#[derive(Default)]
struct Agreement {
    /// Points compared (fresh and world points of the same id).
    points: usize,
    /// Of those, how many differ in separation at all (recycled ones, nearly all).
    moved: usize,
    /// Largest separation error (m).
    worst: f32,
    /// Contacts between polygons compared, and of those, how many were recycled (differ
    /// from the fresh collide at all).
    contacts: usize,
    recycled: usize,
}

/// The point of `points` that stands for `p`: the one of the same feature id, else (a corner
/// that ends two edges names the same point two ways) the nearest within `near`.
fn same_point<'p>(
    points: &'p [ManifoldPoint],
    p: &ManifoldPoint,
    near: f32,
) -> Option<&'p ManifoldPoint> {
    let distance = |q: &&ManifoldPoint| (q.point - p.point).length();
    (points.iter().find(|q| q.id == p.id)).or_else(|| {
        (points.iter().filter(|q| distance(q) <= near))
            .min_by(|q, r| distance(q).total_cmp(&distance(r)))
    })
}

/// Steps `world` `steps` times, and at each step from `from` on compares every touching
/// contact's manifold with a fresh collide at the poses the step began with: separations
/// within a tenth of the linear slop.
fn compare_with_fresh_collides(world: &mut World, from: usize, steps: usize) -> Agreement {
    let settings = world.settings().clone();
    let band = 4.0 * settings.linear_slop;
    let bound = 0.1 * settings.linear_slop;
    let mut seen = Agreement::default();
    for step in 0..steps {
        let check = step >= from;
        let poses: HashMap<BodyId, Transform> = match check {
            true => world
                .bodies()
                .map(|id| (id, world.transform(id).unwrap()))
                .collect(),
            false => HashMap::new(),
        };
        world.step(1.0 / 60.0).unwrap();
        if !check {
            continue;
        }
        for c in world.contacts() {
            let shape_a: &Shape = &world.shapes(c.a).unwrap()[c.shape_a];
            let shape_b: &Shape = &world.shapes(c.b).unwrap()[c.shape_b];
            let fresh = collide(shape_a, poses[&c.a], shape_b, poses[&c.b], band).unwrap();
            let kept = c.points();
            let fresh_points = &fresh.points[..fresh.point_count];
            if let (Shape::Polygon(_), Shape::Polygon(_)) = (shape_a, shape_b) {
                seen.contacts += 1;
                let same = |p: &ManifoldPoint, q: &ManifoldPoint| {
                    (p.point, p.separation, p.id) == (q.point, q.separation, q.id)
                };
                let differ = fresh.normal != c.manifold.normal
                    || kept.len() != fresh_points.len()
                    || kept.iter().zip(fresh_points).any(|(p, q)| !same(p, q));
                seen.recycled += usize::from(differ);
            }
            // Every point of the fresh manifold is there, and each separation is within the
            // bound. (The world's own band is widened for fast pairs: its extra points lie
            // beyond the plain band, which the fresh collide used.)
            for p in fresh_points {
                let Some(q) = same_point(kept, p, settings.linear_slop) else {
                    panic!(
                        "step {step}: a point {:.4} m apart is missing between {:?} and {:?}:\n\
                         fresh {fresh:?}\nworld {:?}",
                        p.separation, c.a, c.b, c.manifold
                    );
                };
                let error = (q.separation - p.separation).abs();
                assert!(
                    error <= bound,
                    "step {step}: separation off by {error} m between {:?} and {:?}:\n\
                     fresh {fresh:?}\nworld {:?}",
                    c.a,
                    c.b,
                    c.manifold
                );
                seen.points += 1;
                seen.moved += usize::from(error > 0.0);
                seen.worst = seen.worst.max(error);
            }
            // And nothing within the band that the fresh manifold lacks.
            for q in kept {
                let phantom = q.separation < band - bound
                    && same_point(fresh_points, q, settings.linear_slop).is_none();
                assert!(
                    !phantom,
                    "step {step}: a point {:.4} m apart that a fresh collide lacks, between \
                     {:?} and {:?}:\nfresh {fresh:?}\nworld {:?}",
                    q.separation, c.a, c.b, c.manifold
                );
            }
        }
    }
    seen
}

/// The stirred bin keeps its pile moving: its pairs recycle, then drift past their reach and
/// collide afresh, over and over, at every depth the stirring reaches.
#[test]
fn recycled_manifolds_of_the_stirred_bin_agree_with_fresh_collides() {
    let mut world = Scene::StirredBin.build(WorldSettings::default()).unwrap();
    let seen = compare_with_fresh_collides(&mut world, 200, 260);
    eprintln!(
        "{} points, {} recycled, worst error {} m; {} of {} polygon contacts recycled",
        seen.points, seen.moved, seen.worst, seen.recycled, seen.contacts
    );
    // The check saw recycled points, not only fresh ones.
    assert!(seen.moved > 1000, "{} recycled points", seen.moved);
}

/// A resting stack: its pairs recycle nearly every step.
#[test]
fn recycled_manifolds_of_a_resting_stack_agree_with_fresh_collides() {
    let mut world = World::new(WorldSettings::default());
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -0.5)),
            ShapeDef::new(Shape::rect(20.0, 0.5).unwrap()),
        )
        .unwrap();
    let rows = 20;
    for row in 0..rows {
        for i in 0..rows - row {
            let x = (i as f32 - 0.5 * (rows - row - 1) as f32) * 1.05;
            let y = 0.5 + row as f32;
            world
                .add_body(
                    BodyDef::dynamic().position(Vec2::new(x, y)),
                    ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
                )
                .unwrap();
        }
    }
    let seen = compare_with_fresh_collides(&mut world, 0, 200);
    eprintln!(
        "{} points, {} recycled, worst error {} m; {} of {} polygon contacts recycled",
        seen.points, seen.moved, seen.worst, seen.recycled, seen.contacts
    );
    assert!(seen.moved > 1000, "{} recycled points", seen.moved);
}
