//! Newton's cradle, on a table: a ball at 3 m/s strikes a row of four resting balls. All
//! surfaces are frictionless and perfectly elastic (restitution 1).
//!
//! ```text
//! cargo run --release --example newtons_cradle -- [--gap M] [--steps N] [--png FILE] ...
//! ```
//!
//! In the ideal cradle the striker stops and only the last ball flies off, at the striker's
//! speed: a chain of separate elastic collisions, each handing the whole momentum on.
//!
//! The balls touch (`--gap`, in metres, spaces them). Bounces are impact passes at the start of
//! a step, each pair's bounce by Poisson's law, repeated over the contacts so that an impact
//! travels through touching bodies pair by pair: the ideal result appears with or without
//! gaps. The example prints every ball's final velocity and both totals.

mod common;

use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::Cli;
use std::process::ExitCode;

const RADIUS: f32 = 0.5;
/// Default gap between resting balls (m): touching, as in a real cradle.
const GAP: f32 = 0.0;
const SPEED: f32 = 3.0;

fn main() -> ExitCode {
    common::main(|| {
        let usage = format!("usage: newtons_cradle {} [--gap M]", common::FLAGS);
        let mut gap = GAP;
        let cli = Cli::new(150).parse(&usage, |flag, value| {
            if flag != "--gap" {
                return Ok(false);
            }
            gap = value
                .parse::<f32>()
                .ok()
                .filter(|g| g.is_finite() && *g >= 0.0)
                .ok_or_else(|| format!("--gap: expected metres >= 0, got {value}"))?;
            Ok(true)
        })?;
        let mut world = World::new(WorldSettings {
            threads: cli.threads,
            ..WorldSettings::default()
        });
        let err = |e: batch2d::Error| e.to_string();
        let elastic = |shape| ShapeDef::new(shape).friction(0.0).restitution(1.0);
        world
            .add_body(
                BodyDef::fixed().position(Vec2::new(0.0, -0.5)),
                elastic(Shape::rect(12.0, 0.5).unwrap()),
            )
            .map_err(err)?;
        let mut balls = vec![world
            .add_body(
                BodyDef::dynamic()
                    .position(Vec2::new(-4.0, RADIUS))
                    .linear_velocity(Vec2::new(SPEED, 0.0)),
                elastic(Shape::circle(RADIUS).unwrap()),
            )
            .map_err(err)?];
        for i in 0..4 {
            let x = i as f32 * (2.0 * RADIUS + gap);
            let def = BodyDef::dynamic().position(Vec2::new(x, RADIUS));
            balls.push(
                world
                    .add_body(def, elastic(Shape::circle(RADIUS).unwrap()))
                    .map_err(err)?,
            );
        }

        let (_, recorder) = common::run_steps(&mut world, &cli, |_, _| {})?;

        // Equal masses: momentum per unit mass is the sum of velocities.
        println!("striker at {SPEED} m/s; final horizontal velocities (ideal: 0 0 0 0 {SPEED}):");
        let (mut momentum, mut energy) = (0.0, 0.0);
        for (i, &ball) in balls.iter().enumerate() {
            let v = world.linear_velocity(ball).map_err(err)?.x;
            momentum += v;
            energy += 0.5 * v * v;
            println!("  ball {i}: {v:6.3} m/s");
        }
        println!(
            "sum of velocities {momentum:.3} (started {SPEED:.3}); kinetic energy per kg {energy:.3} \
             (started {:.3})",
            0.5 * SPEED * SPEED
        );
        recorder.finish(&world)
    })
}
