//! 4032 circles, boxes, capsules, rounded boxes and irregular polygons fall into a bin where a
//! kinematic paddle stirs them (the `stirred_bin` scene of docs/scenes.md): pairs begin and end
//! every step, so the narrowphase computes fresh manifolds throughout.
//!
//! ```text
//! cargo run --release --example stirred_bin -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Prints how many contacts began per step, the touching pairs and the time per step.

mod common;

use batch2d::scenes::Scene;
use std::process::ExitCode;

fn main() -> ExitCode {
    common::main(|| {
        let (cli, mut world) = common::scene_world(Scene::StirredBin)?;
        let mut began = 0;
        let (times, recorder) = common::run_steps(&mut world, &cli, |w, _| {
            began += w.contact_events().begin().len();
        })?;
        println!(
            "contacts begun: {began} ({:.1} per step)",
            began as f64 / cli.steps.max(1) as f64
        );
        common::print_pairs_and_timing(&world, "", &times);
        recorder.finish(&world)
    })
}
