//! The examples' renderer, checked on pixels: shapes appear where geometry puts them, in their
//! colour, and nowhere else; the animation stores exactly the pixels it was given.

use crate::examples as common;

use batch2d::{
    BodyDef, DebugContact, DebugDraw, DebugDrawOptions, JointDef, Shape, ShapeDef, Vec2, World,
};
use common::animation::Animation;
use common::render::{
    band_color, render, world_bounds, Camera, Layers, Rgb, BACKGROUND, CONTACT, JOINT, STATIC,
};
use tiny_skia::Pixmap;

const WIDTH: u32 = 800;

fn pixel(p: &Pixmap, x: f32, y: f32) -> Option<Rgb> {
    let (x, y) = (x.floor(), y.floor());
    if x < 0.0 || y < 0.0 {
        return None;
    }
    let c = p.pixel(x as u32, y as u32)?.demultiply();
    Some([c.red(), c.green(), c.blue()])
}

/// The colour at world point `w`.
fn at(p: &Pixmap, camera: &Camera, w: Vec2) -> Option<Rgb> {
    let (x, y) = camera.to_pixel(w);
    pixel(p, x, y)
}

/// Every pixel centre (as a world point) whose colour is `color`.
fn pixels_of(p: &Pixmap, camera: &Camera, color: Rgb) -> Vec<Vec2> {
    let mut out = Vec::new();
    for y in 0..p.height() {
        for x in 0..p.width() {
            if pixel(p, x as f32, y as f32) == Some(color) {
                out.push(camera.to_world(x as f32 + 0.5, y as f32 + 0.5));
            }
        }
    }
    out
}

/// A ground whose top face is y = 0, spanning x in -10..10.
/// A fixed ground 20 m wide whose top face is at y = 0.
fn ground(world: &mut World) {
    crate::common::ground_of(world, 10.0);
}

#[test]
fn camera_frames_every_body_with_the_aspect_kept() {
    let mut world = World::new(Default::default());
    ground(&mut world);
    world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(3.0, 6.0)),
            ShapeDef::new(Shape::circle(1.0).unwrap()),
        )
        .unwrap();
    let bounds = world_bounds(&world).unwrap();
    assert_eq!(bounds.min, Vec2::new(-10.0, -2.0));
    assert_eq!(bounds.max, Vec2::new(10.0, 7.0));
    let camera = Camera::framing(bounds, WIDTH);
    // Same scale on both axes, and both corners inside the picture.
    let (x0, y0) = camera.to_pixel(bounds.min);
    let (x1, y1) = camera.to_pixel(bounds.max);
    assert!(((x1 - x0) / (y0 - y1) - 20.0 / 9.0).abs() < 1e-3);
    for (x, y) in [(x0, y0), (x1, y1)] {
        assert!(x >= 0.0 && x <= camera.width as f32 && y >= 0.0 && y <= camera.height as f32);
    }
    let back = camera.to_world(x1, y1);
    assert!((back - bounds.max).length() < 1e-3);
}

#[test]
fn the_ground_is_drawn_where_it_lies() {
    let mut world = World::new(Default::default());
    ground(&mut world);
    world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 5.0)),
            ShapeDef::new(Shape::circle(0.5).unwrap()),
        )
        .unwrap();
    let camera = Camera::framing(world_bounds(&world).unwrap(), WIDTH);
    let picture = render(&world, &camera, Layers::default(), true);
    let px = 1.0 / camera.scale;
    for x in [-9.5, -5.0, 0.0, 4.0, 9.5] {
        // Inside the ground, a few pixels from its faces: ground colour.
        assert_eq!(at(&picture, &camera, Vec2::new(x, -3.0 * px)), Some(STATIC));
        assert_eq!(
            at(&picture, &camera, Vec2::new(x, -2.0 + 3.0 * px)),
            Some(STATIC)
        );
        // Just above the top face and below the ball: background.
        assert_eq!(
            at(&picture, &camera, Vec2::new(x, 3.0 * px)),
            Some(BACKGROUND)
        );
        assert_eq!(at(&picture, &camera, Vec2::new(x, 3.0)), Some(BACKGROUND));
    }
    // Beyond its ends: background.
    for x in [-10.0 - 3.0 * px, 10.0 + 3.0 * px] {
        assert_eq!(at(&picture, &camera, Vec2::new(x, -1.0)), Some(BACKGROUND));
    }
}

#[test]
fn each_body_colour_covers_its_shape_and_nothing_else() {
    let mut world = World::new(Default::default());
    ground(&mut world);
    let (center, radius) = (Vec2::new(-4.0, 3.0), 1.5);
    world
        .add_body(
            BodyDef::dynamic().position(center),
            ShapeDef::new(Shape::circle(radius).unwrap()),
        )
        .unwrap();
    let (box_center, half) = (Vec2::new(4.0, 2.0), Vec2::new(1.0, 2.0));
    world
        .add_body(
            BodyDef::dynamic().position(box_center),
            ShapeDef::new(Shape::rect(half.x, half.y).unwrap()),
        )
        .unwrap();
    let camera = Camera::framing(world_bounds(&world).unwrap(), WIDTH);
    let picture = render(&world, &camera, Layers::default(), true);
    let px = 1.0 / camera.scale;

    // Two dynamic bodies: the first band colour for the first, the middle one for the second.
    let (ball_color, box_color) = (band_color(0, 2), band_color(1, 2));
    assert_ne!(ball_color, box_color);
    let ball = pixels_of(&picture, &camera, ball_color);
    assert!(ball.iter().all(|p| (*p - center).length() <= radius + px));
    // Area: the disc less its radius line, within a few per cent of pi r^2.
    let area = ball.len() as f32 * px * px;
    let disc = std::f32::consts::PI * radius * radius;
    assert!((area - disc).abs() < 0.05 * disc, "{area} vs {disc}");

    let boxed = pixels_of(&picture, &camera, box_color);
    let inside = |p: Vec2| {
        let d = p - box_center;
        d.x.abs() <= half.x + px && d.y.abs() <= half.y + px
    };
    assert!(boxed.iter().all(|&p| inside(p)));
    let area = boxed.len() as f32 * px * px;
    let rect = 4.0 * half.x * half.y;
    assert!((area - rect).abs() < 0.05 * rect, "{area} vs {rect}");
}

#[test]
fn a_rotated_box_has_its_corners_where_geometry_puts_them() {
    let mut world = World::new(Default::default());
    ground(&mut world);
    let (c, half, angle) = (Vec2::new(2.0, 4.0), Vec2::new(2.0, 1.0), 0.5f32);
    world
        .add_body(
            BodyDef::fixed().position(c).angle(angle),
            ShapeDef::new(Shape::rect(half.x, half.y).unwrap()),
        )
        .unwrap();
    let camera = Camera::framing(world_bounds(&world).unwrap(), WIDTH);
    let picture = render(&world, &camera, Layers::default(), true);
    let px = 1.0 / camera.scale;
    let (cos, sin) = (angle.cos(), angle.sin());
    for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
        let local = Vec2::new(sx * half.x, sy * half.y);
        let corner = c + Vec2::new(cos * local.x - sin * local.y, sin * local.x + cos * local.y);
        let inward = (c - corner) * (1.0 / (c - corner).length());
        assert_eq!(
            at(&picture, &camera, corner + inward * (4.0 * px)),
            Some(STATIC)
        );
        assert_eq!(
            at(&picture, &camera, corner - inward * (4.0 * px)),
            Some(BACKGROUND)
        );
    }
}

/// Contact points only.
#[derive(Default)]
struct Points(Vec<Vec2>);

impl DebugDraw for Points {
    fn draw_circle(&mut self, _: batch2d::DebugBody, _: Vec2, _: f32, _: Vec2) {}
    fn draw_polygon(&mut self, _: batch2d::DebugBody, _: &[Vec2], _: f32) {}
    fn draw_contact(&mut self, c: &DebugContact) {
        self.0.push(c.point);
    }
}

#[test]
fn contact_marks_appear_only_at_contact_points_and_only_when_asked() {
    let mut world = World::new(Default::default());
    ground(&mut world);
    for i in 0..5 {
        world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(2.0 * i as f32 - 4.0, 0.6)),
                ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
            )
            .unwrap();
    }
    for _ in 0..30 {
        world.step(1.0 / 60.0).unwrap();
    }
    let mut points = Points::default();
    world.debug_draw(
        &mut points,
        &DebugDrawOptions {
            contacts: true,
            ..DebugDrawOptions::default()
        },
    );
    assert_eq!(points.0.len(), 10, "two points per box on the ground");

    let camera = Camera::framing(world_bounds(&world).unwrap(), WIDTH);
    let plain = render(&world, &camera, Layers::default(), true);
    assert!(pixels_of(&plain, &camera, CONTACT).is_empty());
    let layers = Layers {
        contacts: true,
        ..Layers::default()
    };
    let marked = pixels_of(&render(&world, &camera, layers, true), &camera, CONTACT);
    assert!(!marked.is_empty());
    let px = 1.0 / camera.scale;
    for m in &marked {
        let nearest = points
            .0
            .iter()
            .map(|p| (*p - *m).length())
            .fold(f32::MAX, f32::min);
        assert!(
            nearest <= 3.0 * px,
            "a contact mark {nearest} m from any contact"
        );
    }
    for p in &points.0 {
        assert!(marked.iter().any(|m| (*m - *p).length() <= 2.0 * px));
    }
}

#[test]
fn an_animation_keeps_every_pixel_of_every_frame() {
    let mut world = World::new(Default::default());
    ground(&mut world);
    world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 3.0)).angle(0.3),
            ShapeDef::new(Shape::rect(0.7, 0.4).unwrap()),
        )
        .unwrap();
    world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(2.0, 2.0)),
            ShapeDef::new(Shape::circle(0.5).unwrap()),
        )
        .unwrap();
    let camera = Camera::framing(world_bounds(&world).unwrap(), 200);
    let path = std::env::temp_dir().join(format!("batch2d-render-{}.gif", std::process::id()));
    let path = path.to_str().unwrap().to_string();
    let mut animation = Animation::create(&path, camera.width, camera.height, 7).unwrap();
    let layers = Layers {
        contacts: true,
        graph_colors: true,
        aabbs: true,
        joints: true,
    };
    let mut frames = Vec::new();
    for _ in 0..3 {
        let frame = render(&world, &camera, layers, false);
        animation.push(&frame).unwrap();
        frames.push(frame);
        for _ in 0..20 {
            world.step(1.0 / 60.0).unwrap();
        }
    }
    animation.finish().unwrap();

    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(&path).unwrap())
        .unwrap();
    let mut decoded = 0;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!(frame.delay, 7);
        let expected = &frames[decoded];
        assert_eq!(
            (frame.width as u32, frame.height as u32),
            (camera.width, camera.height)
        );
        for (rgba, p) in frame.buffer.chunks(4).zip(expected.pixels()) {
            let c = p.demultiply();
            assert_eq!(rgba[..3], [c.red(), c.green(), c.blue()]);
        }
        decoded += 1;
    }
    assert_eq!(decoded, frames.len());
    std::fs::remove_file(&path).unwrap();
}

/// Distance from `p` to the segment `a`-`b`.
fn to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.dot(ab) > 0.0 {
        ((p - a).dot(ab) / ab.dot(ab)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + ab * t)).length()
}

#[test]
fn joints_are_drawn_between_their_anchors_and_only_when_asked() {
    let mut world = World::new(Default::default());
    ground(&mut world);
    let pin_at = Vec2::new(-3.0, 6.0);
    let pin = world
        .add_body(
            BodyDef::fixed().position(pin_at),
            ShapeDef::new(Shape::circle(0.1).unwrap()),
        )
        .unwrap();
    let bob = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 6.0)),
            ShapeDef::new(Shape::circle(0.4).unwrap()),
        )
        .unwrap();
    // A rope from the pin to the bob's edge: its anchors are 2.6 m apart, a line between them.
    let rope = world
        .add_joint(JointDef::distance(pin, bob, pin_at, Vec2::new(-0.4, 6.0)))
        .unwrap();
    for _ in 0..20 {
        world.step(1.0 / 60.0).unwrap();
    }
    let (a, b) = world.joint_anchors(rope).unwrap();
    let camera = Camera::framing(world_bounds(&world).unwrap(), WIDTH);
    let drawn = pixels_of(
        &render(&world, &camera, Layers::default(), false),
        &camera,
        JOINT,
    );
    // Every joint pixel is on the line or a dot (4 px at most) around an anchor...
    let px = 1.0 / camera.scale;
    assert!(drawn.len() > 20, "{} joint pixels", drawn.len());
    for p in &drawn {
        assert!(
            to_segment(*p, a, b) <= 4.0 * px + px,
            "{p:?} off the rope {a:?}-{b:?}"
        );
    }
    // ...and the line reaches both anchors.
    for end in [a, b] {
        let near = drawn.iter().filter(|p| (**p - end).length() < 2.0 * px);
        assert!(near.count() > 0, "nothing drawn at {end:?}");
    }
    let hidden = Layers {
        joints: false,
        ..Layers::default()
    };
    let bare = render(&world, &camera, hidden, false);
    assert!(pixels_of(&bare, &camera, JOINT).is_empty());
}

#[test]
fn segments_are_drawn_as_lines_along_them() {
    let mut world = World::new(Default::default());
    let points = [
        Vec2::new(-5.0, 0.0),
        Vec2::new(0.0, 2.0),
        Vec2::new(5.0, 1.0),
    ];
    let material = ShapeDef::new(Shape::circle(1.0).unwrap());
    world
        .add_segment_chain(BodyDef::fixed(), &points, &material)
        .unwrap();
    let camera = Camera::framing(world_bounds(&world).unwrap(), WIDTH);
    let picture = render(&world, &camera, Layers::default(), false);
    let drawn = pixels_of(&picture, &camera, STATIC);
    // A line of at least 2 px: every pixel within about a pixel and a half of an edge...
    let px = 1.0 / camera.scale;
    for p in &drawn {
        let near = points
            .windows(2)
            .map(|e| to_segment(*p, e[0], e[1]))
            .fold(f32::MAX, f32::min);
        assert!(near <= 1.5 * px, "{p:?} is {near} m from the chain");
    }
    // ...and every stretch of each edge has some.
    for e in points.windows(2) {
        for k in 0..=10 {
            let q = e[0] + (e[1] - e[0]) * (k as f32 / 10.0);
            assert!(
                drawn.iter().any(|p| (*p - q).length() < 1.5 * px),
                "nothing drawn at {q:?}"
            );
        }
    }
}
