//! A chain of 16 links held out level from a pin, a 4.5 kg ball at its end, let go: it whips
//! down, swings through a tower of boxes and back.
//!
//! ```text
//! cargo run --release --example chain -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Revolute joints hold each link's ends to its neighbours'. The example prints how far any
//! joint came apart, how low the ball swung (the chain's reach bounds it), and how high it
//! climbed again: no higher than it started, since joints and contacts only take energy away.

mod common;

use common::jointed::{self, Demo};
use std::process::ExitCode;

fn main() -> ExitCode {
    common::main(|| {
        let cli = common::demo_cli(Demo::Chain)?;
        let err = |e: batch2d::Error| e.to_string();
        let mut scene = jointed::chain(common::settings(&cli)).map_err(err)?;
        let start = scene.world.position(scene.weight).map_err(err)?;
        let towers: Vec<_> = scene
            .tower
            .iter()
            .map(|&b| scene.world.position(b))
            .collect::<Result<_, _>>()
            .map_err(err)?;
        let (mut gap, mut lowest) = (0.0f32, f32::INFINITY);
        // Highest point after the ball first passed under the pin.
        let (mut passed, mut climbed) = (false, f32::NEG_INFINITY);
        let (joints, weight, pin) = (scene.joints.clone(), scene.weight, scene.pin);
        let (times, recorder) = common::run_steps(&mut scene.world, &cli, |w, _| {
            if let Ok(g) = jointed::largest_joint_gap(w, &joints) {
                gap = gap.max(g);
            }
            if let Ok(p) = w.position(weight) {
                lowest = lowest.min(p.y);
                passed |= p.x < pin.x;
                if passed {
                    climbed = climbed.max(p.y);
                }
            }
        })?;
        let reach = jointed::LINKS as f32 + jointed::WEIGHT_RADIUS;
        println!("largest joint gap over the run: {:.1} mm", gap * 1e3);
        println!(
            "ball centre: started at y {:.2}, lowest {:.2} (the chain reaches down to {:.2}), \
             highest after passing under the pin {:.2}",
            start.y,
            lowest,
            pin.y - reach,
            climbed
        );
        let w = &scene.world;
        let knocked = scene
            .tower
            .iter()
            .zip(&towers)
            .filter(|(&b, &p0)| w.position(b).is_ok_and(|p| (p - p0).length() > 0.5))
            .count();
        println!("{knocked} of {} tower boxes knocked away", towers.len());
        println!("{}", common::timing(&times));
        recorder.finish(w)
    })
}
