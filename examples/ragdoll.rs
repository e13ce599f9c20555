//! Six ragdolls thrown down a staircase: head, torso, arms and legs joined by revolute joints
//! whose angles are limited as a body's are (elbows and knees bend one way).
//!
//! ```text
//! cargo run --release --example ragdoll -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! The example prints how far any joint's angle went past its limit and how far any joint
//! came apart over the run, while the ragdolls tumble into each other and the steps, and how
//! fast the fastest part still moves at the end.

mod common;

use batch2d::World;
use common::jointed::{self, Demo, LimitedHinge};
use std::f32::consts::PI;
use std::process::ExitCode;

/// How far (rad) any hinge's angle is outside its limits. Every part starts at angle 0, so a
/// hinge's angle is B's angle minus A's, taken into -pi..pi.
fn worst_excess(w: &World, hinges: &[LimitedHinge]) -> f32 {
    let mut worst = 0.0f32;
    for h in hinges {
        let (Ok(a), Ok(b)) = (w.angle(h.a), w.angle(h.b)) else {
            continue;
        };
        let angle = (b - a + PI).rem_euclid(2.0 * PI) - PI;
        worst = worst.max(h.lower - angle).max(angle - h.upper);
    }
    worst
}

fn main() -> ExitCode {
    common::main(|| {
        let cli = common::demo_cli(Demo::Ragdoll)?;
        let err = |e: batch2d::Error| e.to_string();
        let mut scene = jointed::ragdolls(common::settings(&cli)).map_err(err)?;
        let hinges = scene.hinges.clone();
        let ids: Vec<_> = hinges.iter().map(|h| h.id).collect();
        let (mut excess, mut gap) = (0.0f32, 0.0f32);
        let (times, recorder) = common::run_steps(&mut scene.world, &cli, |w, _| {
            excess = excess.max(worst_excess(w, &hinges));
            if let Ok(g) = jointed::largest_joint_gap(w, &ids) {
                gap = gap.max(g);
            }
        })?;
        let w = &scene.world;
        let fastest = w
            .bodies()
            .filter_map(|b| w.linear_velocity(b).ok())
            .map(|v| v.length())
            .fold(0.0f32, f32::max);
        println!(
            "{} ragdolls, {} joints: worst angle past a limit {:.3} rad ({:.1} degrees), \
             largest joint gap {:.1} mm over the run",
            scene.torsos.len(),
            hinges.len(),
            excess,
            excess.to_degrees(),
            gap * 1e3
        );
        println!("fastest body at the end: {fastest:.3} m/s");
        println!("{}", common::timing(&times));
        recorder.finish(w)
    })
}
