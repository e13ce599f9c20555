//! 10000 boxes and 10000 circles fall into a container (the `mixed_pile` scene of docs/scenes.md):
//! every pair type (circle-circle, circle-polygon, polygon-polygon) at once.
//!
//! ```text
//! cargo run --release --example mixed_pile -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Prints the height of the pile, the touching pairs and the time per step.

mod common;

use batch2d::scenes::{Scene, PILE_FIXED_BODIES};
use std::process::ExitCode;

fn main() -> ExitCode {
    common::main(|| {
        let (cli, mut world) = common::scene_world(Scene::MixedPile)?;
        let (times, recorder) = common::run_steps(&mut world, &cli, |_, _| {})?;
        let mut heights: Vec<f32> = world
            .bodies()
            .skip(PILE_FIXED_BODIES)
            .filter_map(|id| world.position(id).ok().map(|p| p.y))
            .collect();
        heights.sort_by(f32::total_cmp);
        // The 99th percentile: the pile's surface, ignoring a few bodies still in the air.
        let surface = heights[heights.len() * 99 / 100];
        println!("pile surface (99% of bodies below): {surface:.2} m");
        common::print_pairs_and_timing(&world, "", &times);
        recorder.finish(&world)
    })
}
