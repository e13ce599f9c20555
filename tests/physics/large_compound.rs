//! Compound bodies of a thousand shapes and more: mass data against the parallel-axis sum,
//! landing and resting on the ground, queries that find the one shape in their way, and a
//! ball at one corner that touches one shape.

use crate::common;

use batch2d::{BodyDef, QueryFilter, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::ground;

const DT: f32 = 1.0 / 60.0;
/// Columns and rows of the grid: a thousand boxes.
const COLUMNS: usize = 40;
const ROWS: usize = 25;
/// Boxes of `2 HALF` m side, `PITCH` m apart: gaps of 2 cm between them.
const HALF: f32 = 0.04;
const PITCH: f32 = 0.1;
const DENSITY: f32 = 2.0;

/// The centre of box (`column`, `row`) in the body frame: the bottom-left box at the origin.
fn cell(column: usize, row: usize) -> Vec2 {
    Vec2::new(column as f32 * PITCH, row as f32 * PITCH)
}

fn grid() -> Vec<ShapeDef> {
    let mut shapes = Vec::new();
    for row in 0..ROWS {
        for column in 0..COLUMNS {
            let shape = Shape::offset_rect(HALF, HALF, cell(column, row), 0.0).unwrap();
            shapes.push(ShapeDef::new(shape).density(DENSITY));
        }
    }
    shapes
}

#[test]
fn a_thousand_box_compound_has_the_parallel_axis_mass_lands_and_rests() {
    let mut world = World::new(WorldSettings {
        threads: 1,
        ..WorldSettings::default()
    });
    let floor = ground(&mut world);
    // The bottom row's lower faces 0.5 m above the ground.
    let origin = Vec2::new(-2.0, 0.5 + HALF);
    let body = world
        .add_compound_body(BodyDef::dynamic().position(origin), &grid())
        .unwrap();
    assert_eq!(world.shapes(body).unwrap().len(), COLUMNS * ROWS);

    // The law, in f64: the mass is the sum of the boxes', the centre their mass-weighted mean,
    // the inertia each box's own (m (w² + h²) / 12) plus m d² to the centre.
    let side = 2.0 * HALF as f64;
    let m = DENSITY as f64 * side * side;
    let n = (COLUMNS * ROWS) as f64;
    let centre = (0..ROWS)
        .flat_map(|r| (0..COLUMNS).map(move |c| cell(c, r)))
        .fold((0.0f64, 0.0f64), |(x, y), p| {
            (x + p.x as f64 / n, y + p.y as f64 / n)
        });
    let inertia: f64 = (0..ROWS)
        .flat_map(|r| (0..COLUMNS).map(move |c| cell(c, r)))
        .map(|p| {
            let (dx, dy) = (p.x as f64 - centre.0, p.y as f64 - centre.1);
            m * (2.0 * side * side) / 12.0 + m * (dx * dx + dy * dy)
        })
        .sum();
    let rel = |got: f32, want: f64| ((got as f64 - want) / want).abs();
    assert!(rel(world.mass(body).unwrap(), m * n) < 1e-5);
    assert!(rel(world.rotational_inertia(body).unwrap(), inertia) < 1e-4);
    let local = world.local_center(body).unwrap();
    // f32 sums of a thousand parts: a few parts in a million of the body's 4 m.
    let off = (local.x as f64 - centre.0).hypot(local.y as f64 - centre.1);
    assert!(off < 2e-5, "centre {local:?}, the law's {centre:?}");

    // Falls half a metre, lands on its bottom row and rests there, level.
    for _ in 0..180 {
        world.step(DT).unwrap();
    }
    let xf = world.transform(body).unwrap();
    assert!(
        (xf.p.y - HALF).abs() < 0.01,
        "bottom faces at {}",
        xf.p.y - HALF
    );
    assert!(world.angle(body).unwrap().abs() < 1e-3);
    assert!(world.linear_velocity(body).unwrap().length() < 0.01);
    // Every touching contact is on a box of the bottom row, and every bottom box has one.
    let mut touching: Vec<usize> = world
        .contacts()
        .filter(|c| (c.a, c.b) == (floor, body))
        .map(|c| c.shape_b)
        .collect();
    touching.sort_unstable();
    assert_eq!(touching, (0..COLUMNS).collect::<Vec<_>>());

    // Queries find the box in their way, not the body's box: a point in a gap between boxes
    // is in no body, one inside box (7, 3) is in this one; a ray along a gap row passes, one
    // along a row of boxes stops at the first box's left face.
    let all = QueryFilter::new();
    let at = |local: Vec2| xf.apply(local);
    assert!(world
        .overlap_point(at(cell(7, 3) + Vec2::new(0.05, 0.0)), all)
        .unwrap()
        .is_empty());
    assert_eq!(world.overlap_point(at(cell(7, 3)), all).unwrap(), [body]);
    let gap = at(cell(0, 10) + Vec2::new(0.0, 0.05));
    let from = Vec2::new(-10.0, 0.0);
    assert_eq!(
        world
            .cast_ray(Vec2::new(-10.0, gap.y), Vec2::new(20.0, 0.0), 1.0, all)
            .unwrap(),
        None
    );
    let row = at(cell(0, 10));
    let hit = world
        .cast_ray(Vec2::new(from.x, row.y), Vec2::new(20.0, 0.0), 1.0, all)
        .unwrap()
        .expect("a hit");
    assert_eq!(hit.body, body);
    assert!((hit.point.x - (xf.p.x - HALF)).abs() < 1e-3, "{hit:?}");
}

#[test]
fn a_ball_at_one_corner_of_a_thousand_shapes_touches_that_corner() {
    let mut world = World::new(WorldSettings {
        threads: 1,
        ..WorldSettings::default()
    });
    let block = world.add_compound_body(BodyDef::fixed(), &grid()).unwrap();
    // A ball resting in the top-right corner box's top face.
    let top_right = cell(COLUMNS - 1, ROWS - 1);
    let ball = world
        .add_body(
            BodyDef::dynamic().position(top_right + Vec2::new(0.0, HALF + 0.05)),
            ShapeDef::new(Shape::circle(0.03).unwrap()),
        )
        .unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
    }
    let shapes: Vec<usize> = world
        .contacts()
        .filter(|c| (c.a, c.b) == (block, ball))
        .map(|c| c.shape_a)
        .collect();
    assert_eq!(shapes, [COLUMNS * ROWS - 1]);
    let y = world.position(ball).unwrap().y;
    assert!(
        (y - (top_right.y + HALF + 0.03)).abs() < 0.01,
        "ball at {y}"
    );
}
