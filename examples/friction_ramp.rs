//! Friction: four boxes with friction 0.1, 0.25, 0.5 and 0.8 are let go on a 20° ramp.
//!
//! ```text
//! cargo run --release --example friction_ramp -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! Coulomb friction holds a box on a slope of angle θ when μ >= tan θ (tan 20° = 0.364);
//! otherwise it slides with acceleration g (sin θ - μ cos θ). The example prints how far each
//! box slid beside that prediction. The world mixes friction with `MixRule::Min` and the ramp
//! has friction 1, so each contact's μ is exactly its box's.

mod common;

use batch2d::{BodyDef, MixRule, Rot, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::Cli;
use std::process::ExitCode;

const ANGLE: f32 = 20.0 * std::f32::consts::PI / 180.0;
const HALF: f32 = 0.4;
/// Friction of each box, and where along the ramp it starts: the slipperiest in front, so
/// faster boxes never run into slower ones.
const BOXES: [(f32, f32); 4] = [(0.1, -2.0), (0.25, -4.5), (0.5, -7.0), (0.8, -9.5)];

fn main() -> ExitCode {
    common::main(|| {
        let usage = format!("usage: friction_ramp {}", common::FLAGS);
        let cli = Cli::new(120).parse(&usage, |_, _| Ok(false))?;
        let settings = WorldSettings {
            threads: cli.threads,
            friction_mixing: MixRule::Min,
            ..WorldSettings::default()
        };
        let gravity = -settings.gravity.y;
        let mut world = World::new(settings);
        let err = |e: batch2d::Error| e.to_string();

        // The ramp runs down to the right; a point `s` along it and `h` above its surface.
        let q = Rot::from_angle(-ANGLE);
        let ramp_half_height = 0.25;
        let on_ramp = |s: f32, h: f32| q.rotate(Vec2::new(s, ramp_half_height + h));
        world
            .add_body(
                BodyDef::fixed().angle(-ANGLE),
                ShapeDef::new(Shape::rect(12.0, ramp_half_height).unwrap()).friction(1.0),
            )
            .map_err(err)?;
        let mut boxes = Vec::new();
        for &(mu, s) in &BOXES {
            let def = BodyDef::dynamic().position(on_ramp(s, HALF)).angle(-ANGLE);
            let shape = ShapeDef::new(Shape::rect(HALF, HALF).unwrap()).friction(mu);
            boxes.push((mu, world.add_body(def, shape).map_err(err)?));
        }
        let starts: Vec<Vec2> = boxes
            .iter()
            .map(|&(_, id)| world.position(id))
            .collect::<Result<_, _>>()
            .map_err(err)?;

        let (_, recorder) = common::run_steps(&mut world, &cli, |_, _| {})?;

        let t = cli.steps as f32 / 60.0;
        let down = q.rotate(Vec2::new(1.0, 0.0));
        println!("after {t:.2} s on a 20° ramp (tan = {:.3}):", ANGLE.tan());
        for (&(mu, id), &start) in boxes.iter().zip(&starts) {
            let slid = (world.position(id).map_err(err)? - start).dot(down);
            let a = (gravity * (ANGLE.sin() - mu * ANGLE.cos())).max(0.0);
            let expected = 0.5 * a * t * t;
            println!("  mu = {mu:.2}: slid {slid:6.3} m, Coulomb predicts {expected:6.3} m");
        }
        recorder.finish(&world)
    })
}
