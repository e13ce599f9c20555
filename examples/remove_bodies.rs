//! Removing bodies: builds a world, steps it so that its bodies have islands and contacts,
//! then removes every body and prints how long the removals took, in total and per body.
//!
//! ```text
//! cargo run --release --example remove_bodies -- [--bodies N] [--touching] [--steps N] ...
//! ```
//!
//! By default the bodies are circles 1 m apart that touch nothing. With `--touching` they are
//! unit boxes stacked in columns of 10 on a ground, each resting on the one below, with sleep
//! on, so that removals also drop contacts and dissolve islands. Default 100000 bodies, one
//! step before the removals (`--steps`); `--png` and `--gif` picture the world up to them.

mod common;

use batch2d::{BodyDef, BodyId, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::Cli;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    common::main(|| {
        let usage = format!(
            "usage: remove_bodies {} [--bodies N] [--touching]",
            common::FLAGS
        );
        let mut bodies = 100_000usize;
        let mut touching = false;
        let cli = Cli::new(1).parse_with_switches(&usage, &["--touching"], |flag, value| {
            match flag {
                "--bodies" => bodies = common::number(flag, value)?,
                "--touching" => touching = true,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        let mut world = World::try_new(WorldSettings {
            enable_sleep: touching,
            ..common::settings(&cli)
        })
        .map_err(|e| e.to_string())?;
        let ids = add_bodies(&mut world, bodies, touching).map_err(|e| e.to_string())?;
        let (_, recorder) = common::run_steps(&mut world, &cli, |_, _| {})?;
        // The pictures show the world before the removals, which leave it empty.
        recorder.finish(&world)?;
        let contacts = world.contact_count();
        let start = Instant::now();
        for id in ids {
            world.remove_body(id).map_err(|e| e.to_string())?;
        }
        let seconds = start.elapsed().as_secs_f64();
        println!(
            "removed {bodies} bodies ({contacts} contacts) in {seconds:.3} s: {:.2} us per body",
            seconds * 1e6 / bodies as f64
        );
        world.step(1.0 / 60.0).map_err(|e| e.to_string())
    })
}

/// Adds `bodies` bodies: free circles, or with `touching` columns of boxes on a ground.
fn add_bodies(
    world: &mut World,
    bodies: usize,
    touching: bool,
) -> Result<Vec<BodyId>, batch2d::Error> {
    let side = (bodies as f64).sqrt().ceil() as usize;
    if touching {
        let columns = bodies.div_ceil(10);
        let width = columns as f32 * 1.5;
        world.add_body(
            BodyDef::fixed().position(Vec2::new(width / 2.0, -0.5)),
            ShapeDef::new(Shape::rect(width / 2.0 + 1.0, 0.5)?),
        )?;
        (0..bodies)
            .map(|i| {
                let at = Vec2::new((i / 10) as f32 * 1.5, (i % 10) as f32 + 0.5);
                world.add_body(
                    BodyDef::dynamic().position(at),
                    ShapeDef::new(Shape::rect(0.5, 0.5)?),
                )
            })
            .collect()
    } else {
        (0..bodies)
            .map(|i| {
                let at = Vec2::new((i % side) as f32, (i / side) as f32);
                world.add_body(
                    BodyDef::dynamic().position(at).gravity_scale(0.0),
                    ShapeDef::new(Shape::circle(0.25)?),
                )
            })
            .collect()
    }
}
