//! Debug draw: a recording renderer checks that the callbacks describe the world as the rest of
//! the API sees it (one shape per body, at the body's pose), that contact points sit on both
//! surfaces with colors that obey the coloring rule, and that joints are drawn at the points of
//! their bodies they were made at.

use crate::common;

use batch2d::{
    BodyDef, BodyId, BodyKind, DebugBody, DebugContact, DebugDraw, DebugDrawOptions, DebugJoint,
    Error, JointDef, JointKind, Shape, ShapeDef, Transform, Vec2, World, WorldSettings,
};
use std::collections::{HashMap, HashSet};

/// Every call, in order.
#[derive(Default)]
struct Recorder {
    circles: Vec<(DebugBody, Vec2, f32, Vec2)>,
    polygons: Vec<(DebugBody, Vec<Vec2>, f32)>,
    aabbs: Vec<(DebugBody, batch2d::Aabb)>,
    contacts: Vec<DebugContact>,
    joints: Vec<DebugJoint>,
    /// Body of each shape call, in call order.
    order: Vec<BodyId>,
}

impl DebugDraw for Recorder {
    fn draw_circle(&mut self, body: DebugBody, center: Vec2, radius: f32, axis: Vec2) {
        self.order.push(body.id);
        self.circles.push((body, center, radius, axis));
    }
    fn draw_polygon(&mut self, body: DebugBody, vertices: &[Vec2], radius: f32) {
        self.order.push(body.id);
        self.polygons.push((body, vertices.to_vec(), radius));
    }
    fn draw_aabb(&mut self, body: DebugBody, aabb: batch2d::Aabb) {
        self.aabbs.push((body, aabb));
    }
    fn draw_contact(&mut self, contact: &DebugContact) {
        self.contacts.push(*contact);
    }
    fn draw_joint(&mut self, joint: &DebugJoint) {
        self.joints.push(*joint);
    }
}

const ALL: DebugDrawOptions = DebugDrawOptions {
    shapes: true,
    aabbs: true,
    contacts: true,
    joints: true,
};

/// A box of balls and boxes on a ground, a kinematic paddle, some of everything.
fn pile() -> World {
    let mut world = World::new(WorldSettings {
        threads: 1,
        ..WorldSettings::default()
    });
    common::ground_of(&mut world, 20.0);
    world
        .add_body(
            BodyDef::kinematic()
                .position(Vec2::new(-8.0, 3.0))
                .angular_velocity(0.5),
            ShapeDef::new(Shape::rect(1.0, 0.2).unwrap()),
        )
        .unwrap();
    for row in 0..6 {
        for col in 0..8 {
            let p = Vec2::new(col as f32 * 1.1 - 4.0 + 0.05 * row as f32, 0.6 + row as f32);
            let shape = if (row + col) % 2 == 0 {
                Shape::circle(0.5).unwrap()
            } else {
                Shape::rounded_polygon(
                    &[
                        Vec2::new(-0.4, -0.4),
                        Vec2::new(0.4, -0.4),
                        Vec2::new(0.4, 0.4),
                        Vec2::new(-0.4, 0.4),
                    ],
                    0.05,
                )
                .unwrap()
            };
            world
                .add_body(
                    BodyDef::dynamic().position(p).angle(0.1 * col as f32),
                    ShapeDef::new(shape),
                )
                .unwrap();
        }
    }
    world
}

/// Exact signed distance from `p` to the surface of body `id` posed at `xf` (negative inside).
fn surface_distance(world: &World, id: BodyId, xf: Transform, p: Vec2) -> f32 {
    let local = xf.inv_apply(p);
    match world.shape(id).unwrap() {
        Shape::Circle(c) => (local - c.center()).length() - c.radius(),
        Shape::Polygon(poly) => {
            let vs = poly.vertices();
            let planes = (0..vs.len()).map(|i| poly.normals()[i].dot(local - vs[i]));
            let inside = planes.fold(f32::MIN, f32::max);
            // Outside the core the nearest point is on an edge (a corner's rounding is round).
            let core = if inside <= 0.0 {
                inside
            } else {
                (0..vs.len())
                    .map(|i| segment_distance(local, vs[i], vs[(i + 1) % vs.len()]))
                    .fold(f32::MAX, f32::min)
            };
            core - poly.radius()
        }
    }
}

fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.dot(ab)).clamp(0.0, 1.0);
    (p - (a + ab * t)).length()
}

#[test]
fn one_shape_per_body_at_the_body_pose_in_slot_order() {
    let mut world = pile();
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    let mut rec = Recorder::default();
    world.debug_draw(&mut rec, &ALL);

    assert_eq!(rec.circles.len() + rec.polygons.len(), world.body_count());
    assert_eq!(rec.order, world.bodies().collect::<Vec<_>>());
    for (body, center, radius, axis) in &rec.circles {
        // The circles are centred on their body origin, so on the centre of mass.
        assert_eq!(*center, world.position(body.id).unwrap());
        assert_eq!(*radius, 0.5);
        let a = world.angle(body.id).unwrap();
        assert!((axis.x - a.cos()).abs() < 1e-5 && (axis.y - a.sin()).abs() < 1e-5);
        assert_eq!(body.kind, world.body_kind(body.id).unwrap());
    }
    for (body, vertices, radius) in &rec.polygons {
        let xf = world.transform(body.id).unwrap();
        let Shape::Polygon(p) = world.shape(body.id).unwrap() else {
            panic!("a polygon call for a circle body");
        };
        assert_eq!(vertices.len(), p.vertices().len());
        for (w, &l) in vertices.iter().zip(p.vertices()) {
            assert_eq!(*w, xf.apply(l));
        }
        assert_eq!(*radius, p.radius());
        assert_eq!(body.kind, world.body_kind(body.id).unwrap());
    }
    let kinds: Vec<BodyKind> = rec
        .order
        .iter()
        .map(|&id| world.body_kind(id).unwrap())
        .collect();
    assert_eq!(kinds[0], BodyKind::Fixed);
    assert_eq!(kinds[1], BodyKind::Kinematic);
    assert!(kinds[2..].iter().all(|&k| k == BodyKind::Dynamic));
}

#[test]
fn aabbs_contain_their_shapes() {
    let mut world = pile();
    for _ in 0..20 {
        world.step(1.0 / 60.0).unwrap();
    }
    let mut rec = Recorder::default();
    world.debug_draw(&mut rec, &ALL);
    assert_eq!(rec.aabbs.len(), world.body_count());
    // The box is taken before the step's motion and swept along it, so it holds the shape
    // at the end of the step too.
    for (body, aabb) in &rec.aabbs {
        let shape_box = world
            .shape(body.id)
            .unwrap()
            .aabb(world.transform(body.id).unwrap());
        let tol = 1e-4;
        assert!(aabb.min.x <= shape_box.min.x + tol && aabb.min.y <= shape_box.min.y + tol);
        assert!(aabb.max.x >= shape_box.max.x - tol && aabb.max.y >= shape_box.max.y - tol);
    }
}

#[test]
fn contact_points_lie_midway_between_both_surfaces() {
    let mut world = pile();
    for _ in 0..119 {
        world.step(1.0 / 60.0).unwrap();
    }
    // Contacts are found at the start of a step, before the solver moves the bodies: check
    // them against the poses the narrowphase saw.
    let poses: HashMap<BodyId, Transform> = world
        .bodies()
        .map(|id| (id, world.transform(id).unwrap()))
        .collect();
    world.step(1.0 / 60.0).unwrap();
    let mut rec = Recorder::default();
    world.debug_draw(&mut rec, &ALL);
    assert!(rec.contacts.len() >= world.contact_count() && world.contact_count() > 40);
    let pairs: HashSet<(BodyId, BodyId)> =
        rec.contacts.iter().map(|c| (c.body_a, c.body_b)).collect();
    assert_eq!(pairs.len(), world.contact_count());

    let slop = WorldSettings::default().linear_slop;
    let mut touching = 0;
    for c in &rec.contacts {
        assert!(c.body_a.slot() < c.body_b.slot());
        assert!((c.normal.length() - 1.0).abs() < 1e-5);
        // Speculative points of bodies still far apart are midway along the normal only; where
        // the surfaces touch, that is also the distance to each surface.
        if c.separation > slop {
            continue;
        }
        touching += 1;
        // The point is midway: half the gap (or overlap) from each surface.
        let (xa, xb) = (poses[&c.body_a], poses[&c.body_b]);
        let da = surface_distance(&world, c.body_a, xa, c.point);
        let db = surface_distance(&world, c.body_b, xb, c.point);
        let half = 0.5 * c.separation;
        // A quarter of the slop: a recycled manifold may lag by up to 1 mm (see contact.rs).
        assert!(
            (da - half).abs() < 0.25 * slop,
            "A: {da} vs {half} at {c:?}"
        );
        assert!(
            (db - half).abs() < 0.25 * slop,
            "B: {db} vs {half} at {c:?}"
        );
        // The normal leaves A: stepping along it moves away from A and into B.
        let step = 0.01;
        assert!(surface_distance(&world, c.body_a, xa, c.point + c.normal * step) > da);
        assert!(surface_distance(&world, c.body_b, xb, c.point + c.normal * step) < db);
    }
    assert!(touching > 40, "only {touching} touching points");
}

#[test]
fn contact_colors_never_share_a_dynamic_body() {
    let mut world = pile();
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
    }
    let mut rec = Recorder::default();
    world.debug_draw(&mut rec, &ALL);
    let mut used = std::collections::BTreeMap::<u8, HashSet<_>>::new();
    let mut seen = HashSet::new();
    for c in &rec.contacts {
        // Uncolored contacts (solved one at a time) may share bodies.
        let Some(k) = c.color else {
            continue;
        };
        // The two points of one manifold share a color; count each pair once.
        if !seen.insert((c.body_a, c.body_b, k)) {
            continue;
        }
        for id in [c.body_a, c.body_b] {
            if world.body_kind(id).unwrap() == BodyKind::Dynamic {
                let color = used.entry(k).or_default();
                assert!(color.insert(id), "{id:?} twice in color {k}");
            }
        }
    }
    let colors = used.len();
    assert!(colors > 1);
    assert_eq!(colors, batch2d::scenes::colors_in_use(&world));
}

#[test]
fn removing_a_touching_body_drops_its_contacts_and_marks_colors_unknown() {
    let mut world = pile();
    for _ in 0..60 {
        world.step(1.0 / 60.0).unwrap();
    }
    let mut rec = Recorder::default();
    world.debug_draw(&mut rec, &ALL);
    let victim = rec.contacts[0].body_b;
    world.remove_body(victim).unwrap();

    let mut after = Recorder::default();
    world.debug_draw(&mut after, &ALL);
    assert_eq!(after.order.len(), world.body_count());
    assert!(!after.order.contains(&victim));
    assert!(!after.contacts.is_empty());
    for c in &after.contacts {
        assert!(c.body_a != victim && c.body_b != victim);
        assert_eq!(c.color, None);
    }
    assert_eq!(world.body_kind(victim), Err(Error::InvalidBody));
}

#[test]
fn options_select_the_layers() {
    let mut world = pile();
    world.step(1.0 / 60.0).unwrap();
    let mut rec = Recorder::default();
    world.debug_draw(
        &mut rec,
        &DebugDrawOptions {
            shapes: false,
            aabbs: false,
            contacts: false,
            joints: false,
        },
    );
    assert!(rec.order.is_empty() && rec.aabbs.is_empty() && rec.contacts.is_empty());

    let mut rec = Recorder::default();
    world.debug_draw(&mut rec, &DebugDrawOptions::default());
    assert_eq!(rec.order.len(), world.body_count());
    assert!(rec.aabbs.is_empty() && rec.contacts.is_empty());
}

/// A joint as the test made it: its bodies, and its anchors (and axis) in their frames.
struct Made {
    kind: JointKind,
    a: Option<BodyId>,
    b: BodyId,
    local_a: Vec2,
    local_b: Vec2,
    local_axis: Option<Vec2>,
}

#[test]
fn joints_are_drawn_at_the_points_of_their_bodies_they_were_made_at() {
    let mut world = World::new(WorldSettings::default());
    let ball = |world: &mut World, p: Vec2| {
        world
            .add_body(
                BodyDef::dynamic().position(p).angle(0.3),
                ShapeDef::new(Shape::circle(0.3).unwrap()),
            )
            .unwrap()
    };
    let support = world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, 10.0)),
            ShapeDef::new(Shape::circle(0.1).unwrap()),
        )
        .unwrap();
    let arm = ball(&mut world, Vec2::new(1.0, 10.0));
    let bob = ball(&mut world, Vec2::new(1.0, 8.0));
    let slider = ball(&mut world, Vec2::new(-2.0, 10.0));
    let tyre = ball(&mut world, Vec2::new(-2.0, 7.0));
    let held = ball(&mut world, Vec2::new(4.0, 6.0));
    let slope = Vec2::new(3.0, 4.0) * 0.2; // a unit axis
    let target = Vec2::new(5.0, 7.0);
    let defs = [
        JointDef::revolute(support, arm, Vec2::new(0.0, 10.0)),
        JointDef::distance(arm, bob, Vec2::new(1.2, 10.0), Vec2::new(1.0, 8.3)),
        JointDef::prismatic(support, slider, Vec2::new(-2.0, 10.0), slope),
        JointDef::wheel(slider, tyre, Vec2::new(-2.0, 7.0), Vec2::new(0.0, 1.0)).spring(4.0, 0.7),
        JointDef::mouse(held, Vec2::new(4.0, 6.0)),
    ];
    // Each def's anchors in world space, as the constructors above were given them.
    let anchors = [
        (Vec2::new(0.0, 10.0), Vec2::new(0.0, 10.0)),
        (Vec2::new(1.2, 10.0), Vec2::new(1.0, 8.3)),
        (Vec2::new(-2.0, 10.0), Vec2::new(-2.0, 10.0)),
        (Vec2::new(-2.0, 7.0), Vec2::new(-2.0, 7.0)),
        (Vec2::new(4.0, 6.0), Vec2::new(4.0, 6.0)),
    ];
    let axes = [None, None, Some(slope), Some(Vec2::new(0.0, 1.0)), None];
    let mut made = Vec::new();
    for ((def, (pa, pb)), axis) in defs.into_iter().zip(anchors).zip(axes) {
        let id = world.add_joint(def).unwrap();
        let (kind, a, b) = world.joint_bodies(id).unwrap();
        let xa = a.map(|a| world.transform(a).unwrap());
        let xb = world.transform(b).unwrap();
        made.push((
            id,
            Made {
                kind,
                a,
                b,
                local_a: xa.map_or(pa, |x| x.inv_apply(pa)),
                local_b: xb.inv_apply(pb),
                local_axis: axis.map(|v| xa.map_or(v, |x| x.q.inv_rotate(v))),
            },
        ));
    }
    // The mouse pulls the point it grabbed towards a target that moved away.
    let (mouse, grabbed) = made.last_mut().unwrap();
    world.set_mouse_target(*mouse, target).unwrap();
    grabbed.local_a = target;
    world.set_angular_velocity(bob, 4.0).unwrap();
    world
        .set_linear_velocity(tyre, Vec2::new(2.0, 0.0))
        .unwrap();
    for _ in 0..45 {
        world.step(1.0 / 60.0).unwrap();
    }
    let mut rec = Recorder::default();
    world.debug_draw(&mut rec, &ALL);
    assert_eq!(rec.joints.len(), made.len());
    for (j, (id, m)) in rec.joints.iter().zip(&made) {
        assert_eq!((j.id, j.kind, j.body_a, j.body_b), (*id, m.kind, m.a, m.b));
        // The anchors are the points the test noted, carried by the bodies as they moved.
        let xa = m.a.map(|a| world.transform(a).unwrap());
        let expect_a = xa.map_or(m.local_a, |x| x.apply(m.local_a));
        let expect_b = world.transform(m.b).unwrap().apply(m.local_b);
        assert!((j.anchor_a - expect_a).length() < 1e-5, "{j:?}");
        assert!((j.anchor_b - expect_b).length() < 1e-5, "{j:?}");
        match (j.axis, m.local_axis) {
            (Some(axis), Some(local)) => {
                let expect = xa.map_or(local, |x| x.q.rotate(local));
                assert!((axis - expect).length() < 1e-5, "{j:?}");
                assert!((axis.length() - 1.0).abs() < 1e-5);
            }
            (None, None) => {}
            _ => panic!("an axis where none belongs, or none where one does: {j:?}"),
        }
    }
    // The bodies did move: the drawing follows them, not the joints' first positions.
    assert!((world.position(bob).unwrap() - Vec2::new(1.0, 8.0)).length() > 0.1);
    // A revolute joint holds its anchors together: drawn as one point.
    let hinge = &rec.joints[0];
    assert!((hinge.anchor_b - hinge.anchor_a).length() < 0.01);

    // Joints leave with their bodies, and the option turns them off.
    world.remove_body(bob).unwrap();
    let mut after = Recorder::default();
    world.debug_draw(&mut after, &ALL);
    let ids: Vec<_> = after.joints.iter().map(|j| j.id).collect();
    let mut expect: Vec<_> = made.iter().map(|(id, _)| *id).collect();
    expect.remove(1);
    assert_eq!(ids, expect);
    let mut none = Recorder::default();
    let options = DebugDrawOptions {
        joints: false,
        ..ALL
    };
    world.debug_draw(&mut none, &options);
    assert!(none.joints.is_empty() && !none.order.is_empty());
}

#[test]
fn body_kind_reports_each_kind_and_rejects_foreign_handles() {
    let mut world = World::new(WorldSettings::default());
    let shape = || ShapeDef::new(Shape::circle(0.5).unwrap());
    let s = world.add_body(BodyDef::fixed(), shape()).unwrap();
    let k = world.add_body(BodyDef::kinematic(), shape()).unwrap();
    let d = world.add_body(BodyDef::dynamic(), shape()).unwrap();
    assert_eq!(world.body_kind(s), Ok(BodyKind::Fixed));
    assert_eq!(world.body_kind(k), Ok(BodyKind::Kinematic));
    assert_eq!(world.body_kind(d), Ok(BodyKind::Dynamic));
    let other = World::new(WorldSettings::default());
    assert_eq!(other.body_kind(d), Err(Error::InvalidBody));
}
