//! 400 small pyramids (22000 boxes) on 20 shelves (the `many_pyramids` scene of docs/scenes.md):
//! lots of independent work, the case where parallel solving pays off most.
//!
//! ```text
//! cargo run --release --example many_pyramids -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Prints how many pyramids still stand, the touching pairs and the time per step.

mod common;

use batch2d::scenes::Scene;
use std::process::ExitCode;

/// Boxes per pyramid (base 10) and the height of a standing pyramid's top box above its shelf.
const BOXES: usize = 55;
const TOP_HEIGHT: f32 = 9.5;

fn main() -> ExitCode {
    common::main(|| {
        let (cli, mut world) = common::scene_world(Scene::ManyPyramids)?;
        let (times, recorder) = common::run_steps(&mut world, &cli, |_, _| {})?;
        // After the 20 shelves come the pyramids, 55 boxes each, the top box last; a pyramid
        // stands while its top box is still within 0.5 m of where it started.
        let ids: Vec<_> = world.bodies().skip(20).collect();
        let mut standing = 0;
        for (n, pyramid) in ids.chunks(BOXES).enumerate() {
            let shelf = 11.0 * (n / 20) as f32;
            let top = world
                .position(pyramid[BOXES - 1])
                .map_err(|e| e.to_string())?;
            if (top.y - shelf - TOP_HEIGHT).abs() < 0.5 {
                standing += 1;
            }
        }
        println!("pyramids standing: {standing} of {}", ids.len() / BOXES);
        common::print_pairs_and_timing(&world, " (58000 when all stand)", &times);
        recorder.finish(&world)
    })
}
