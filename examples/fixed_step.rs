//! A render loop with variable frame times driving the physics at a fixed 60 Hz.
//!
//! Frames here take 8 to 30 ms, with one 400 ms stall (the window was dragged, say). Each frame
//! banks its time in a `FixedStepper`, which runs whole 1/60 s steps (at most 4 per frame, so a
//! stall cannot snowball) and returns `alpha`, how far the frame lies between the last two
//! physics states. The ball is drawn at the interpolated pose, which moves smoothly even on
//! frames that run no step.
//!
//! ```text
//! cargo run --release --example fixed_step -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Here `--steps` counts frames (default 90), and the GIF takes every Nth frame. With
//! `--features tracy`, Tracy's frames are this loop's frames, not the steps
//! (profiling/README.md).

mod common;

use batch2d::{BodyDef, FixedStepper, Shape, ShapeDef, Vec2, World};
use common::{Cli, Recorder};
use std::process::ExitCode;

fn main() -> ExitCode {
    common::main(|| {
        let usage = format!("usage: fixed_step {}", common::FLAGS);
        let cli = Cli::new(90).parse(&usage, |_, _| Ok(false))?;
        run(&cli)
    })
}

/// The render loop of `cli.steps` frames.
fn run(cli: &Cli) -> Result<(), String> {
    let err = |e: batch2d::Error| e.to_string();
    let mut world = World::new(common::settings(cli));
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            // Restitution mixes by `min`, so both sides need it for a bounce.
            ShapeDef::new(Shape::rect(50.0, 1.0).map_err(err)?).restitution(0.6),
        )
        .map_err(err)?;
    let ball = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(-4.0, 3.0))
                .linear_velocity(Vec2::new(2.0, 0.0)),
            ShapeDef::new(Shape::circle(0.5).map_err(err)?).restitution(0.6),
        )
        .map_err(err)?;

    // A frame runs 0 to 4 steps: the loop ends Tracy's frames, each step is a `step` frame.
    batch2d::set_tracy_frame_per_step(false);
    let mut stepper = FixedStepper::new().dt(1.0 / 60.0).max_steps_per_frame(4);
    // A deterministic stand-in for measured frame times (`Instant::elapsed` in a real loop).
    let mut jitter: u32 = 7;
    let mut clock = 0.0f64;
    let mut recorder = Recorder::start(cli, &world)?;
    println!(" frame  time(ms)  steps  alpha  dropped(ms)  ball drawn at");
    for frame in 0..cli.steps {
        jitter = jitter.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let mut frame_time = 0.008 + (jitter >> 16) as f32 / 65_536.0 * 0.022;
        if frame == 45 {
            frame_time = 0.4;
        }
        clock += f64::from(frame_time);

        let report = stepper.advance(&mut world, frame_time).map_err(err)?;
        // Render: draw every body at `stepper.interpolated_transform(&world, id)`.
        let pose = stepper.interpolated_transform(&world, ball).map_err(err)?;
        if frame % 6 == 0 || report.dropped > 0.0 {
            println!(
                "{frame:>6}  {:>8.1}  {:>5}  {:>5.2}  {:>11.1}  ({:.3}, {:.3})",
                frame_time * 1000.0,
                report.steps,
                report.alpha,
                report.dropped * 1000.0,
                pose.p.x,
                pose.p.y
            );
        }
        recorder.after_step(&world, frame + 1)?;
        #[cfg(feature = "tracy")]
        tracy_client::frame_mark();
    }
    println!("wall clock {clock:.3} s; the simulation is behind it by the dropped backlog");
    recorder.finish(&world)
}
