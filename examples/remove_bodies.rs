//! Removing bodies: builds a world, steps it once so that its bodies have islands and contacts,
//! then removes every body and prints how long the removals took, in total and per body.
//!
//! ```text
//! cargo run --release --example remove_bodies -- [--bodies N] [--touching]
//! ```
//!
//! By default the bodies are circles 1 m apart that touch nothing. With `--touching` they are
//! unit boxes stacked in columns of 10 on a ground, each resting on the one below, with sleep
//! on, so that removals also drop contacts and dissolve islands. Default 100000 bodies.

use batch2d::{BodyDef, BodyId, Shape, ShapeDef, Vec2, World, WorldSettings};
use std::time::Instant;

fn main() -> Result<(), String> {
    let mut bodies = 100_000usize;
    let mut touching = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bodies" => {
                let value = args.next().ok_or("--bodies needs a number")?;
                bodies = value
                    .parse()
                    .map_err(|e| format!("--bodies {value}: {e}"))?;
            }
            "--touching" => touching = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let mut world = World::try_new(WorldSettings {
        enable_sleep: touching,
        ..WorldSettings::default()
    })
    .map_err(|e| e.to_string())?;
    let side = (bodies as f64).sqrt().ceil() as usize;
    let ids: Vec<BodyId> = if touching {
        let columns = bodies.div_ceil(10);
        let width = columns as f32 * 1.5;
        world
            .add_body(
                BodyDef::fixed().position(Vec2::new(width / 2.0, -0.5)),
                ShapeDef::new(Shape::rect(width / 2.0 + 1.0, 0.5).map_err(|e| e.to_string())?),
            )
            .map_err(|e| e.to_string())?;
        (0..bodies)
            .map(|i| {
                let at = Vec2::new((i / 10) as f32 * 1.5, (i % 10) as f32 + 0.5);
                world.add_body(
                    BodyDef::dynamic().position(at),
                    ShapeDef::new(Shape::rect(0.5, 0.5)?),
                )
            })
            .collect::<Result<_, _>>()
    } else {
        (0..bodies)
            .map(|i| {
                let at = Vec2::new((i % side) as f32, (i / side) as f32);
                world.add_body(
                    BodyDef::dynamic().position(at).gravity_scale(0.0),
                    ShapeDef::new(Shape::circle(0.25)?),
                )
            })
            .collect::<Result<_, _>>()
    }
    .map_err(|e| e.to_string())?;
    world.step(1.0 / 60.0).map_err(|e| e.to_string())?;
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
}
