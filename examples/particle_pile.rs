//! The main demo: 20000 circles fall into a container (the `particle_pile` scene of SCENES.md).
//!
//! ```text
//! cargo run --release --example particle_pile -- [--steps N] [--threads N]
//!     [--backend scalar|simd] [--rows N] [--cols N] [--png FILE]
//! ```
//!
//! Prints the time of every 30th step and a summary, then draws the final state to a PNG
//! (`particle_pile.png` by default).

use std::process::ExitCode;
use std::time::Instant;

use batch2d::scenes::{particle_pile, Scene, PILE_FIXED_BODIES};
use batch2d::{Backend, BodyId, Shape, Vec2, World, WorldSettings};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};

/// Command-line options.
struct Options {
    steps: usize,
    threads: usize,
    backend: Backend,
    rows: usize,
    cols: usize,
    png: String,
}

const USAGE: &str = "usage: particle_pile [--steps N] [--threads N] [--backend scalar|simd] \
                     [--rows N] [--cols N] [--png FILE]";

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        steps: Scene::ParticlePile.steps(),
        threads: 0,
        backend: Backend::Simd,
        rows: 100,
        cols: 200,
        png: "particle_pile.png".to_string(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            return Err(USAGE.to_string());
        }
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{flag}: not a number: {value}"))
        };
        match flag.as_str() {
            "--steps" => o.steps = number()?,
            "--threads" => o.threads = number()?,
            "--rows" => o.rows = number()?,
            "--cols" => o.cols = number()?,
            "--png" => o.png = value,
            "--backend" => {
                o.backend = match value.as_str() {
                    "scalar" => Backend::Scalar,
                    "simd" => Backend::Simd,
                    _ => return Err(format!("--backend: expected scalar or simd, got {value}")),
                }
            }
            _ => return Err(format!("unknown argument {flag}\n{USAGE}")),
        }
    }
    Ok(o)
}

/// Milliseconds spent in each stage, summed over the run.
#[derive(Default)]
struct Stages {
    broad_phase: f64,
    narrow_phase: f64,
    coloring: f64,
    solve: f64,
    finalize: f64,
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::FAILURE;
        }
    };
    match run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run(o: &Options) -> Result<(), String> {
    let settings = WorldSettings {
        threads: o.threads,
        backend: o.backend,
        gravity: Scene::ParticlePile.gravity(),
        ..WorldSettings::default()
    };
    let mut world = particle_pile(o.rows, o.cols, settings).map_err(|e| e.to_string())?;
    let backend = format!("{:?}", o.backend).to_lowercase();
    let threads = if o.threads == 0 {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        format!("{cores} (all cores)")
    } else {
        o.threads.to_string()
    };
    println!(
        "particle_pile: {} bodies, {} steps of 1/60 s, backend {backend}, {threads} threads",
        world.body_count(),
        o.steps
    );

    let dt = 1.0 / 60.0;
    let mut times = Vec::with_capacity(o.steps);
    let mut stages = Stages::default();
    for step in 1..=o.steps {
        let start = Instant::now();
        world.step(dt).map_err(|e| e.to_string())?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        times.push(ms);
        let p = world.profile();
        stages.broad_phase += p.broad_phase;
        stages.narrow_phase += p.narrow_phase;
        stages.coloring += p.coloring;
        stages.solve += p.solve;
        stages.finalize += p.finalize;
        if step % 30 == 0 {
            println!(
                "step {step:4}: {ms:8.3} ms, {} touching pairs",
                world.contact_count()
            );
        }
    }

    if !times.is_empty() {
        let n = times.len() as f64;
        let mean = times.iter().sum::<f64>() / n;
        let mut sorted = times;
        sorted.sort_by(f64::total_cmp);
        let mid = sorted.len() / 2;
        let median = if sorted.len() % 2 == 0 {
            0.5 * (sorted[mid - 1] + sorted[mid])
        } else {
            sorted[mid]
        };
        println!("--- summary ---");
        println!("bodies:         {}", world.body_count());
        println!("steps:          {}", sorted.len());
        println!("ms/step:        mean {mean:.3}, median {median:.3}");
        println!(
            "stages (mean ms/step): broadphase {:.3}, narrowphase {:.3}, coloring {:.3}, \
             solve {:.3}, finalize {:.3}",
            stages.broad_phase / n,
            stages.narrow_phase / n,
            stages.coloring / n,
            stages.solve / n,
            stages.finalize / n
        );
        println!("touching pairs: {}", world.contact_count());
        println!("colors:         {}", world.color_count());
        println!("threads:        {threads}");
        println!("backend:        {backend}");
        println!("simd isa:       {}", batch2d::instruction_set());
    }

    draw(&world, &o.png)?;
    println!("wrote {}", o.png);
    Ok(())
}

/// A body's outline in world coordinates, resolved once so framing and drawing agree.
enum Outline {
    Circle {
        center: Vec2,
        radius: f32,
        dir: Vec2,
    },
    Polygon(Vec<Vec2>),
}

fn outline(world: &World, id: BodyId) -> Result<Outline, String> {
    let xf = world.transform(id).map_err(|e| e.to_string())?;
    let shape = world.shape(id).map_err(|e| e.to_string())?;
    Ok(match shape {
        Shape::Circle(c) => Outline::Circle {
            center: xf.apply(c.center),
            radius: c.radius,
            dir: Vec2::new(xf.q.c, xf.q.s),
        },
        // The rounding radius (if any) is too thin to see at this scale, so the core is drawn.
        Shape::Polygon(p) => {
            Outline::Polygon(p.vertices[..p.count].iter().map(|&v| xf.apply(v)).collect())
        }
    })
}

/// Body colours: static bodies grey, dynamic ones in bands by creation order. The pile is created
/// row by row, so the bands start out as horizontal layers and show how the pile mixed.
const STATIC_RGB: [u8; 3] = [128, 128, 128];
const BANDS: [[u8; 3]; 6] = [
    [214, 69, 65],
    [232, 145, 48],
    [222, 198, 58],
    [84, 168, 92],
    [62, 130, 196],
    [128, 88, 180],
];

/// Rasterises the world to a PNG about 1200 px wide, framing every body.
fn draw(world: &World, path: &str) -> Result<(), String> {
    let outlines = world
        .bodies()
        .map(|id| outline(world, id))
        .collect::<Result<Vec<_>, _>>()?;
    // The world does not say which bodies are fixed, but the pile does: its container's three
    // fixed bodies are created first (see `scenes::particle_pile`).
    let is_static: Vec<bool> = (0..outlines.len()).map(|i| i < PILE_FIXED_BODIES).collect();

    // Camera: the bounds of every body (non-finite ones are skipped so one runaway body cannot
    // blank the picture), a fixed width, and a height that follows the aspect ratio.
    let (mut lo, mut hi) = (Vec2::new(f32::MAX, f32::MAX), Vec2::new(f32::MIN, f32::MIN));
    for o in &outlines {
        let (a, b) = match o {
            Outline::Circle { center, radius, .. } => (
                *center - Vec2::new(*radius, *radius),
                *center + Vec2::new(*radius, *radius),
            ),
            Outline::Polygon(vs) => vs
                .iter()
                .fold((vs[0], vs[0]), |(a, b), &v| (a.min(v), b.max(v))),
        };
        if a.is_finite() && b.is_finite() {
            lo = lo.min(a);
            hi = hi.max(b);
        }
    }
    if lo.x > hi.x {
        (lo, hi) = (Vec2::new(-1.0, -1.0), Vec2::new(1.0, 1.0));
    }
    let (width, margin) = (1200.0f32, 20.0f32);
    let extent = (hi - lo).max(Vec2::new(1e-3, 1e-3));
    let mut scale = (width - 2.0 * margin) / extent.x;
    // A tall, thin scene would give an absurdly tall picture: cap the height and shrink instead.
    let max_height = 2.0 * width;
    scale = scale.min((max_height - 2.0 * margin) / extent.y);
    let height = (extent.y * scale + 2.0 * margin).ceil();
    let to_px = |v: Vec2| {
        (
            margin + (v.x - lo.x) * scale,
            height - margin - (v.y - lo.y) * scale,
        )
    };

    let mut pixmap = Pixmap::new(width as u32, height as u32).ok_or("bad picture size")?;
    pixmap.fill(Color::from_rgba8(250, 250, 247, 255));

    // One path per colour, filled once: far faster than 20000 separate fills.
    let mut fills: Vec<PathBuilder> = (0..=BANDS.len()).map(|_| PathBuilder::new()).collect();
    let mut marks = PathBuilder::new();
    let dynamic_count = is_static.iter().filter(|s| !**s).count().max(1);
    let mut dynamic_index = 0;
    for (o, &fixed) in outlines.iter().zip(&is_static) {
        let slot = if fixed {
            BANDS.len()
        } else {
            dynamic_index += 1;
            (dynamic_index - 1) * BANDS.len() / dynamic_count
        };
        let pb = &mut fills[slot];
        match o {
            Outline::Circle {
                center,
                radius,
                dir,
            } => {
                let (x, y) = to_px(*center);
                pb.push_circle(x, y, radius * scale);
                // A radius line, so rolling shows.
                let (ex, ey) = to_px(*center + *dir * *radius);
                marks.move_to(x, y);
                marks.line_to(ex, ey);
            }
            Outline::Polygon(vs) => {
                let (x, y) = to_px(vs[0]);
                pb.move_to(x, y);
                for &v in &vs[1..] {
                    let (x, y) = to_px(v);
                    pb.line_to(x, y);
                }
                pb.close();
            }
        }
    }

    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    for (slot, pb) in fills.into_iter().enumerate() {
        let [r, g, b] = BANDS.get(slot).copied().unwrap_or(STATIC_RGB);
        paint.set_color_rgba8(r, g, b, 255);
        if let Some(p) = pb.finish() {
            pixmap.fill_path(&p, &paint, FillRule::Winding, Transform::identity(), None);
        }
    }
    if let Some(p) = marks.finish() {
        paint.set_color_rgba8(30, 30, 30, 200);
        let stroke = Stroke {
            width: (0.06 * scale).clamp(0.5, 2.0),
            ..Stroke::default()
        };
        pixmap.stroke_path(&p, &paint, &stroke, Transform::identity(), None);
    }
    pixmap.save_png(path).map_err(|e| format!("{path}: {e}"))
}
