//! A million circles fall into a container: the `particle_pile` scene at 1000 rows of 1000.
//!
//! ```text
//! cargo run --release --example million -- [--steps N] [--threads N] [--rows N] [--cols N]
//!     [--png FILE] [--gif FILE] [--gif-every N] [--width PX] [--draw contacts,colors,aabbs]
//! ```
//!
//! Prints every 30th step's time, its split into stages per body, and the touching pairs, then
//! draws the final state to `million.png`. The world runs on the default settings, whose
//! bounds grow with it (`WorldSettings::max_pairs`). The scenes bench's `--scaling` times
//! piles from a thousand to a million circles beside Box2D (docs/performance.md).

mod common;

use batch2d::scenes::{particle_pile, Scene};
use batch2d::WorldSettings;
use common::Cli;

fn main() -> std::process::ExitCode {
    common::main(|| run().map_err(|msg| format!("error: {msg}")))
}

fn run() -> Result<(), String> {
    let (mut rows, mut cols) = (1000, 1000);
    let mut cli = Cli::new(240);
    cli.png = Some("million.png".to_string());
    let usage = format!("usage: million {} [--rows N] [--cols N]", common::FLAGS);
    let cli = cli.parse(&usage, |flag, value| {
        match flag {
            "--rows" => rows = common::number(flag, value)?,
            "--cols" => cols = common::number(flag, value)?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let settings = WorldSettings {
        gravity: Scene::ParticlePile.gravity(),
        ..common::settings(&cli)
    };
    let started = std::time::Instant::now();
    let mut world = particle_pile(rows, cols, settings).map_err(|e| e.to_string())?;
    let bodies = world.body_count();
    println!(
        "million: {bodies} bodies built in {:.1} s, {} steps of 1/60 s",
        started.elapsed().as_secs_f64(),
        cli.steps
    );
    let per_body = 1e6 / bodies as f64;
    let (times, recorder) = common::run_steps(&mut world, &cli, |world, step| {
        if step % 30 == 0 {
            let p = world.profile();
            println!(
                "step {step:4}: {:7.1} ms, ns/body: broadphase {:.0}, narrowphase {:.0}, \
                 solve {:.0}; {} touching pairs",
                p.total,
                p.broad_phase * per_body,
                p.narrow_phase * per_body,
                p.solve * per_body,
                world.contact_count()
            );
        }
    })?;
    println!("{}", common::timing(&times));
    recorder.finish(&world)
}
