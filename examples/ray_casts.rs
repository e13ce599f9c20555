//! Ray casts: a range finder sweeps a fan of rays over a pile of circles and boxes.
//!
//! ```text
//! cargo run --release --example ray_casts -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! After the pile settles, `World::cast_ray` finds the first body along each of 91 rays of a
//! downward fan, and `World::cast_ray_all` lists every body one vertical ray pierces, nearest
//! first. The example checks what a hit promises: just behind its point (against the normal)
//! is inside the body hit and just in front is not, no body lies on the ray before it, and the
//! nearest of `cast_ray_all` is `cast_ray`'s hit. `--png` draws the rays over the scene: each
//! ends at its hit, with the surface normal as a short tick.

mod common;

use batch2d::{BodyDef, BodyId, QueryFilter, RayHit, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::render::{render, world_bounds, Camera};
use common::Cli;
use std::process::ExitCode;
use tiny_skia::{Color, LineCap, Paint, PathBuilder, Pixmap, Stroke, Transform};

/// Where the range finder sits, and how far its rays reach.
const EYE: Vec2 = Vec2::new(0.0, 14.0);
const REACH: f32 = 30.0;
const RAYS: usize = 91;
/// The fan spans 150 degrees, centred on straight down.
const FAN: f32 = 150.0 * std::f32::consts::PI / 180.0;

fn build(threads: usize) -> Result<World, batch2d::Error> {
    let mut world = World::new(WorldSettings {
        threads,
        ..WorldSettings::default()
    });
    // A floor and two walls make a bin 16 m wide.
    let fixed = |p: Vec2| BodyDef::fixed().position(p);
    world.add_body(
        fixed(Vec2::new(0.0, -0.5)),
        ShapeDef::new(Shape::rect(9.0, 0.5)?),
    )?;
    for x in [-8.5, 8.5] {
        world.add_body(
            fixed(Vec2::new(x, 4.0)),
            ShapeDef::new(Shape::rect(0.5, 4.0)?),
        )?;
    }
    // Rows of alternating circles and boxes dropped into it.
    for row in 0..12 {
        for col in 0..20 {
            let p = Vec2::new(
                -7.2 + 0.76 * col as f32 + 0.1 * (row % 2) as f32,
                1.0 + 0.8 * row as f32,
            );
            let shape = if (row + col) % 2 == 0 {
                Shape::circle(0.3)?
            } else {
                Shape::rect(0.3, 0.25)?
            };
            world.add_body(BodyDef::dynamic().position(p), ShapeDef::new(shape))?;
        }
    }
    Ok(world)
}

/// Whether a hit keeps its promises: 1 mm behind its point (against the normal) is inside the
/// body hit, 1 mm in front is not, and no body holds any of 64 points of the ray before it.
fn check(world: &World, origin: Vec2, ray: Vec2, hit: &RayHit) -> Result<bool, String> {
    let bodies_at = |p: Vec2| {
        world
            .overlap_point(p, QueryFilter::new())
            .map_err(|e| e.to_string())
    };
    let behind = bodies_at(hit.point - hit.normal * 1e-3)?.contains(&hit.body);
    let in_front = bodies_at(hit.point + hit.normal * 1e-3)?.contains(&hit.body);
    let mut clear = true;
    for k in 0..64 {
        let t = hit.fraction * k as f32 / 64.0;
        clear &= bodies_at(origin + ray * t)?.is_empty();
    }
    Ok(behind && !in_front && clear)
}

/// The picture of the scene with each ray and its hit's normal drawn over it.
fn picture(world: &World, cli: &Cli, rays: &[(Vec2, Option<RayHit>)]) -> Pixmap {
    let bounds = world_bounds(world).expect("a world with bodies");
    let bounds = bounds.union(&batch2d::Aabb::new(EYE, EYE));
    let camera = Camera::framing(bounds, cli.width.unwrap_or(1200));
    let mut pixmap = render(world, &camera, cli.layers, !cli.flat);
    let mut ray_paths = PathBuilder::new();
    let mut normals = PathBuilder::new();
    let line = |path: &mut PathBuilder, from: Vec2, to: Vec2| {
        let ((x0, y0), (x1, y1)) = (camera.to_pixel(from), camera.to_pixel(to));
        path.move_to(x0, y0);
        path.line_to(x1, y1);
    };
    for &(end, hit) in rays {
        line(&mut ray_paths, EYE, end);
        if let Some(hit) = hit {
            line(&mut normals, hit.point, hit.point + hit.normal * 0.4);
        }
    }
    let stroke = Stroke {
        width: 1.5,
        line_cap: LineCap::Round,
        ..Stroke::default()
    };
    for (path, [r, g, b]) in [(ray_paths, [230, 60, 40]), (normals, [20, 120, 40])] {
        if let Some(path) = path.finish() {
            let mut paint = Paint::default();
            paint.set_color(Color::from_rgba8(r, g, b, 255));
            paint.anti_alias = !cli.flat;
            pixmap.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
        }
    }
    pixmap
}

fn main() -> ExitCode {
    common::main(|| {
        let usage = format!("usage: ray_casts {}", common::FLAGS);
        let cli = Cli::new(240).parse(&usage, |_, _| Ok(false))?;
        let mut world = build(cli.threads).map_err(|e| e.to_string())?;
        // The recorder makes the GIF; the PNG is drawn here, with the rays.
        let frames = Cli {
            png: None,
            ..cli.clone()
        };
        let (times, recorder) = common::run_steps(&mut world, &frames, |_, _| {})?;
        println!("{} bodies, {}", world.body_count(), common::timing(&times));

        let filter = QueryFilter::new();
        let mut rays = Vec::with_capacity(RAYS);
        let (mut broken, mut hits) = (0, 0);
        for i in 0..RAYS {
            let angle =
                -0.5 * std::f32::consts::PI - 0.5 * FAN + FAN * i as f32 / (RAYS - 1) as f32;
            let ray = Vec2::new(angle.cos(), angle.sin()) * REACH;
            let hit = world
                .cast_ray(EYE, ray, 1.0, filter)
                .map_err(|e| e.to_string())?;
            if let Some(hit) = &hit {
                broken += usize::from(!check(&world, EYE, ray, hit)?);
                hits += 1;
            }
            rays.push((hit.map_or(EYE + ray, |h| h.point), hit));
        }
        println!(
            "cast_ray: {hits} of {RAYS} rays hit; {broken} hits on the wrong side of a surface or \
             behind another body"
        );

        // One ray straight down through the pile: every body it enters, nearest first.
        let down = Vec2::new(0.0, -REACH);
        let all = world
            .cast_ray_all(EYE, down, 1.0, filter)
            .map_err(|e| e.to_string())?;
        let kind = |id: BodyId| match world.shape(id) {
            Ok(Shape::Circle(_)) => "circle",
            Ok(_) => "polygon",
            Err(_) => "?",
        };
        println!(
            "cast_ray_all straight down from {EYE:?} enters {} bodies:",
            all.len()
        );
        for hit in &all {
            println!(
                "  {:<7} at y = {:6.3} m (fraction {:.4}), normal ({:.2}, {:.2})",
                kind(hit.body),
                hit.point.y,
                hit.fraction,
                hit.normal.x,
                hit.normal.y
            );
        }
        let sorted = all.windows(2).all(|w| w[0].fraction <= w[1].fraction);
        let first = world
            .cast_ray(EYE, down, 1.0, filter)
            .map_err(|e| e.to_string())?;
        if !sorted || all.first().map(|h| h.body) != first.map(|h| h.body) || broken > 0 {
            return Err("a ray cast broke its promise (see above)".into());
        }

        if let Some(path) = &cli.png {
            // Always a full-colour PNG: the rays' colours are not in the flat style's palette.
            let pixmap = picture(&world, &cli, &rays);
            pixmap.save_png(path).map_err(|e| format!("{path}: {e}"))?;
            println!("wrote {path}");
        }
        recorder.finish(&world)
    })
}
