//! A heavy box at 40 m/s smashes into a block of 9600 small boxes in zero gravity (the `smash`
//! scene of docs/scenes.md): a violent, fast-changing contact graph.
//!
//! ```text
//! cargo run --release --example smash -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Prints the projectile's speed, the total momentum (conserved: nothing outside acts on the
//! bodies) and the time per step.

mod common;

use batch2d::scenes::Scene;
use batch2d::{Vec2, World};
use std::process::ExitCode;

/// Total linear momentum. The world does not report masses; the scene's densities are known:
/// 8 for the projectile (the first body), 1 for the small boxes.
fn momentum(world: &World) -> Result<Vec2, String> {
    let mut sum = Vec2::ZERO;
    for (n, id) in world.bodies().enumerate() {
        let density = if n == 0 { 8.0 } else { 1.0 };
        let mass = world
            .shape(id)
            .map_err(|e| e.to_string())?
            .mass_data(density)
            .mass;
        sum += world.linear_velocity(id).map_err(|e| e.to_string())? * mass;
    }
    Ok(sum)
}

fn main() -> ExitCode {
    common::main(|| {
        let (cli, mut world) = common::scene_world(Scene::Smash)?;
        let projectile = world.bodies().next().ok_or("empty scene")?;
        let p0 = momentum(&world)?;
        let mut hit = None;
        let (times, recorder) = common::run_steps(&mut world, &cli, |w, step| {
            let v = w.linear_velocity(projectile).map_or(0.0, |v| v.x);
            if hit.is_none() && v < 39.9 {
                hit = Some(step);
            }
        })?;
        let v = world
            .linear_velocity(projectile)
            .map_err(|e| e.to_string())?;
        let p1 = momentum(&world)?;
        match hit {
            Some(step) => println!("projectile hit the block at step {step}"),
            None => println!("projectile did not reach the block"),
        }
        println!("projectile velocity: ({:.2}, {:.2}) m/s", v.x, v.y);
        println!(
            "momentum: ({:.1}, {:.1}) -> ({:.1}, {:.1}) kg m/s",
            p0.x, p0.y, p1.x, p1.y
        );
        common::print_pairs_and_timing(&world, "", &times);
        recorder.finish(&world)
    })
}
