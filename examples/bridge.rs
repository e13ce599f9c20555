//! A bridge of 20 planks hinged end to end between two pillars, hanging with a little slack,
//! and seven boxes and balls dropped onto it.
//!
//! ```text
//! cargo run --release --example bridge -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Nothing but the two end joints and gravity act on the deck and its load, so by Newton's
//! second law the end joints' mean vertical force over any stretch of time is the weight plus
//! the vertical momentum the bodies gained, divided by the time. The bridge sways for a long
//! while after the load lands (a slack deck swings like a long pendulum), so the example takes
//! the second half of the run and prints both sides, with the sag and how far any joint came
//! apart.

mod common;

use batch2d::{BodyId, Vec2, World};
use common::jointed::{self, Demo, GRAVITY};
use std::process::ExitCode;

/// The bodies' total vertical momentum (N s).
fn momentum(w: &World, masses: &[(BodyId, f32)]) -> f64 {
    masses
        .iter()
        .map(|&(b, m)| w.linear_velocity(b).map_or(0.0, |v| (m * v.y) as f64))
        .sum()
}

fn main() -> ExitCode {
    common::main(|| {
        let cli = common::demo_cli(Demo::Bridge)?;
        let err = |e: batch2d::Error| e.to_string();
        let mut scene = jointed::bridge(common::settings(&cli)).map_err(err)?;
        let joints = scene.joints.clone();
        let masses = scene.masses.clone();
        let middle = joints[jointed::PLANKS / 2];
        let deck = scene.world.joint_anchors(middle).map_err(err)?.0;
        let mut gap = 0.0f32;
        // The end joints' vertical forces on the deck, summed over the second half of the run,
        // and the momentum when it starts. The first joint's body B is the first plank; the
        // last joint's body B is the right pillar, so the last plank gets the opposite force.
        let from = cli.steps / 2;
        let (mut held, mut p0) = (0.0f64, momentum(&scene.world, &masses));
        let last = joints[jointed::PLANKS];
        let (times, recorder) = common::run_steps(&mut scene.world, &cli, |w, step| {
            if let Ok(g) = jointed::largest_joint_gap(w, &joints) {
                gap = gap.max(g);
            }
            if step == from {
                p0 = momentum(w, &masses);
            }
            if step > from {
                let left = w.joint_reaction_force(joints[0]).map_or(0.0, |f| f.y);
                let right = w.joint_reaction_force(last).map_or(0.0, |f| -f.y);
                held += (left + right) as f64;
            }
        })?;
        let w = &scene.world;
        let sag = deck.y - w.joint_anchors(middle).map_err(err)?.0.y;
        let weight: f64 = masses.iter().map(|&(_, m)| (m * -GRAVITY.y) as f64).sum();
        let on_deck = scene
            .load
            .iter()
            .filter(|&&b| {
                w.position(b)
                    .is_ok_and(|p: Vec2| p.y > 1.0 && p.x.abs() < 0.5 * jointed::SPAN)
            })
            .count();
        println!(
            "{on_deck} of {} load bodies on the deck; mid-span {:.3} m lower than built; largest \
             joint gap over the run {:.1} mm",
            scene.load.len(),
            sag,
            gap * 1e3
        );
        let n = cli.steps - from;
        if n > 0 {
            let seconds = n as f64 / 60.0;
            let gained = (momentum(w, &masses) - p0) / seconds;
            println!(
                "over the last {n} steps the end joints held the deck up with {:.1} N on \
                 average; weight {weight:.1} N + momentum gained / time {gained:.1} N = {:.1} N",
                held / n as f64,
                weight + gained
            );
        }
        println!("{}", common::timing(&times));
        recorder.finish(w)
    })
}
