//! A pyramid of 5050 boxes on the ground (the `large_pyramid` scene of docs/scenes.md): the classic
//! stacking test. A good solver keeps it standing with every one of its 14950 contacts.
//!
//! ```text
//! cargo run --release --example large_pyramid -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Prints how far the top box sank, the touching pairs and the time per step.

mod common;

use batch2d::scenes::Scene;
use std::process::ExitCode;

fn main() -> ExitCode {
    common::main(|| {
        let (cli, mut world) = common::scene_world(Scene::LargePyramid)?;
        // Boxes are created row by row from the bottom, so the last body is the top box.
        let top = world.bodies().last().ok_or("empty scene")?;
        let start = world.position(top).map_err(|e| e.to_string())?;
        let (times, recorder) = common::run_steps(&mut world, &cli, |_, _| {})?;
        let end = world.position(top).map_err(|e| e.to_string())?;
        println!(
            "top box: y {:.3} -> {:.3} m (sank {:.3} m, drifted {:.3} m sideways)",
            start.y,
            end.y,
            start.y - end.y,
            end.x - start.x
        );
        common::print_pairs_and_timing(&world, " (14950 when the pyramid stands)", &times);
        recorder.finish(&world)
    })
}
