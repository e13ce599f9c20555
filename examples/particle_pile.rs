//! The main demo: 20000 circles fall into a container (the `particle_pile` scene of docs/scenes.md).
//!
//! ```text
//! cargo run --release --example particle_pile -- [--steps N] [--threads N]
//!     [--backend scalar|simd] [--rows N] [--cols N] [--png FILE]
//!     [--gif FILE] [--gif-every N] [--width PX] [--draw contacts,colors,aabbs]
//! ```
//!
//! Prints the time of every 30th step and a summary, then draws the final state to a PNG
//! (`particle_pile.png` by default).

mod common;

use std::process::ExitCode;
use std::time::Instant;

use batch2d::scenes::{particle_pile, Scene};
use batch2d::{Backend, WorldSettings};
use common::{Cli, Recorder};

/// Command-line options beyond the common ones.
struct Options {
    backend: Backend,
    rows: usize,
    cols: usize,
}

fn usage() -> String {
    format!(
        "usage: particle_pile {} [--backend scalar|simd] [--rows N] [--cols N]",
        common::FLAGS
    )
}

fn parse_args() -> Result<(Cli, Options), String> {
    let mut o = Options {
        backend: Backend::Simd,
        rows: 100,
        cols: 200,
    };
    let mut cli = Cli::new(Scene::ParticlePile.steps());
    cli.png = Some("particle_pile.png".to_string());
    let cli = cli.parse(&usage(), |flag, value| {
        match flag {
            "--rows" => o.rows = common::number(flag, value)?,
            "--cols" => o.cols = common::number(flag, value)?,
            "--backend" => {
                o.backend = match value {
                    "scalar" => Backend::Scalar,
                    "simd" => Backend::Simd,
                    _ => return Err(format!("--backend: expected scalar or simd, got {value}")),
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok((cli, o))
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
    common::main(|| {
        let (cli, o) = parse_args()?;
        run(&cli, &o).map_err(|msg| format!("error: {msg}"))
    })
}

fn run(cli: &Cli, o: &Options) -> Result<(), String> {
    let settings = WorldSettings {
        threads: cli.threads,
        backend: o.backend,
        gravity: Scene::ParticlePile.gravity(),
        ..WorldSettings::default()
    };
    let mut world = particle_pile(o.rows, o.cols, settings).map_err(|e| e.to_string())?;
    let backend = format!("{:?}", o.backend).to_lowercase();
    let threads = if cli.threads == 0 {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        format!("{cores} (all cores)")
    } else {
        cli.threads.to_string()
    };
    println!(
        "particle_pile: {} bodies, {} steps of 1/60 s, backend {backend}, {threads} threads",
        world.body_count(),
        cli.steps
    );

    let dt = 1.0 / 60.0;
    let mut recorder = Recorder::start(cli, &world)?;
    let mut times = Vec::with_capacity(cli.steps);
    let mut stages = Stages::default();
    for step in 1..=cli.steps {
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
        recorder.after_step(&world, step)?;
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
        println!("colors:         {}", batch2d::scenes::colors_in_use(&world));
        println!("threads:        {threads}");
        println!("backend:        {backend}");
        println!("simd isa:       {}", batch2d::instruction_set());
    }

    recorder.finish(&world)
}
