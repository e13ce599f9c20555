//! Capsules and segments are polygons of two vertices. The features built beside them (queries,
//! debug draw, distance, continuous collision) must treat them as the rounded segment they are.

use crate::common::world;
use batch2d::{
    distance, BodyDef, DebugBody, DebugDraw, DebugDrawOptions, QueryFilter, Shape, ShapeDef,
    Transform, Vec2, World, WorldSettings,
};

#[test]
fn a_ray_meets_a_capsule_on_its_rounded_side_and_a_segment_on_its_line() {
    let mut w = world();
    let half = 1.0;
    let r = 0.25;
    let capsule = w
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, 2.0)),
            ShapeDef::new(Shape::capsule(Vec2::new(-half, 0.0), Vec2::new(half, 0.0), r).unwrap()),
        )
        .unwrap();
    let segment = w
        .add_body(
            BodyDef::fixed(),
            ShapeDef::new(Shape::segment(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0)).unwrap()),
        )
        .unwrap();
    let filter = QueryFilter::default();
    // Straight down onto the capsule's flat side: enters at y = 2 + r.
    let hit = w
        .cast_ray(Vec2::new(0.3, 5.0), Vec2::new(0.0, -10.0), 1.0, filter)
        .unwrap()
        .expect("the capsule is below");
    assert_eq!(hit.body, capsule);
    assert!(
        (hit.point.y - (2.0 + r)).abs() < 1e-4,
        "hit at {:?}",
        hit.point
    );
    // Along the axis from the right: enters the end cap at x = half + r.
    let hit = w
        .cast_ray(Vec2::new(5.0, 2.0), Vec2::new(-10.0, 0.0), 1.0, filter)
        .unwrap()
        .expect("the capsule is to the left");
    assert!(
        (hit.point.x - (half + r)).abs() < 1e-4,
        "hit at {:?}",
        hit.point
    );
    assert!((hit.normal - Vec2::new(1.0, 0.0)).length() < 1e-4);
    // Past the capsule's end, down onto the segment at y = 0.
    let hit = w
        .cast_ray(Vec2::new(1.8, 5.0), Vec2::new(0.0, -10.0), 1.0, filter)
        .unwrap()
        .expect("the segment is below");
    assert_eq!(hit.body, segment);
    assert!(hit.point.y.abs() < 1e-4, "hit at {:?}", hit.point);
    // Beside the segment's end, down past it: nothing.
    let miss = w
        .cast_ray(Vec2::new(2.1, 5.0), Vec2::new(0.0, -10.0), 1.0, filter)
        .unwrap();
    assert!(miss.is_none(), "{miss:?}: the segment ends at x = 2");
    // Inside the rounded end, outside the core.
    let inside = w.overlap_point(Vec2::new(half + 0.2, 2.0), filter).unwrap();
    assert_eq!(inside, vec![capsule]);
    let outside = w.overlap_point(Vec2::new(half + 0.2, 2.2), filter).unwrap();
    assert!(
        outside.is_empty(),
        "{outside:?} contains a point 0.28 m from the core"
    );
}

#[test]
fn distance_between_capsules_is_the_gap_between_their_axes_minus_both_radii() {
    let a = Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.2).unwrap();
    let b = Shape::capsule(Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0), 0.3).unwrap();
    // B's lower end 1.5 m above A's axis: the axes are 1.5 m apart.
    let xf_b = Transform::new(Vec2::new(0.5, 2.5), batch2d::Rot::IDENTITY);
    let out = distance(&a, Transform::IDENTITY, &b, xf_b).unwrap();
    assert!((out.distance - (1.5 - 0.2 - 0.3)).abs() < 1e-4, "{out:?}");
}

#[test]
fn debug_draw_hands_out_both_ends_and_the_radius_of_a_capsule() {
    struct Record(Vec<(Vec<Vec2>, f32)>);
    impl DebugDraw for Record {
        fn draw_circle(&mut self, _: DebugBody, _: Vec2, _: f32, _: Vec2) {}
        fn draw_polygon(&mut self, _: DebugBody, vertices: &[Vec2], radius: f32) {
            self.0.push((vertices.to_vec(), radius));
        }
    }
    let mut w = world();
    w.add_body(
        BodyDef::fixed().position(Vec2::new(3.0, 1.0)),
        ShapeDef::new(Shape::capsule(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.25).unwrap()),
    )
    .unwrap();
    let mut record = Record(Vec::new());
    w.debug_draw(&mut record, &DebugDrawOptions::default());
    assert_eq!(record.0.len(), 1);
    let (vertices, radius) = &record.0[0];
    assert_eq!(vertices.len(), 2);
    assert_eq!(*radius, 0.25);
    let mut xs: Vec<f32> = vertices.iter().map(|v| v.x).collect();
    xs.sort_by(f32::total_cmp);
    assert_eq!(xs, vec![2.0, 4.0]);
}

#[test]
fn a_fast_capsule_does_not_pass_through_a_thin_wall() {
    for angle in [-1.0f32, -0.5, 0.0, 0.4, 1.2] {
        let mut w = World::new(WorldSettings {
            gravity: Vec2::ZERO,
            ..WorldSettings::default()
        });
        w.add_body(
            BodyDef::fixed().position(Vec2::new(5.0, 0.0)),
            ShapeDef::new(Shape::rect(0.05, 10.0).unwrap()),
        )
        .unwrap();
        let pill = w
            .add_body(
                BodyDef::dynamic()
                    .angle(angle)
                    .linear_velocity(Vec2::new(250.0, 0.0))
                    .angular_velocity(20.0),
                ShapeDef::new(
                    Shape::capsule(Vec2::new(-0.1, 0.0), Vec2::new(0.1, 0.0), 0.05).unwrap(),
                ),
            )
            .unwrap();
        for _ in 0..20 {
            w.step(1.0 / 60.0).unwrap();
            let p = w.position(pill).unwrap();
            assert!(
                p.x < 5.0,
                "angle {angle}: capsule centre passed the wall, at {p:?}"
            );
        }
    }
}
