//! Restitution: four balls with restitution 0, 0.5, 0.8 and 1 fall 5 m onto the ground.
//!
//! ```text
//! cargo run --release --example bouncing_ball -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! A bounce with restitution `e` leaves at `e` times the impact speed, so it climbs `e²` times
//! the height it fell from. The example prints each ball's first two bounce heights beside
//! `h e²` and `h e⁴`. Two engine rules shape what you see: the pair's restitution is the
//! smaller of the two shapes' (so the ground has restitution 1), and impacts slower than
//! `WorldSettings::restitution_threshold` (1 m/s) do not bounce, so every ball comes to rest.

mod common;

use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
use common::Cli;
use std::process::ExitCode;

const DROP: f32 = 5.0;
const RADIUS: f32 = 0.5;
const RESTITUTION: [f32; 4] = [0.0, 0.5, 0.8, 1.0];

fn main() -> ExitCode {
    common::main(|| {
        let usage = format!("usage: bouncing_ball {}", common::FLAGS);
        let cli = Cli::new(300).parse(&usage, |_, _| Ok(false))?;
        let mut world = World::new(WorldSettings {
            threads: cli.threads,
            ..WorldSettings::default()
        });
        let err = |e: batch2d::Error| e.to_string();
        world
            .add_body(
                BodyDef::fixed().position(Vec2::new(0.0, -0.5)),
                ShapeDef::new(Shape::rect(5.0, 0.5).unwrap()).restitution(1.0),
            )
            .map_err(err)?;
        let mut balls = Vec::new();
        for (i, &e) in RESTITUTION.iter().enumerate() {
            let p = Vec2::new(2.0 * i as f32 - 3.0, DROP + RADIUS);
            let shape = ShapeDef::new(Shape::circle(RADIUS).unwrap()).restitution(e);
            balls.push(
                world
                    .add_body(BodyDef::dynamic().position(p), shape)
                    .map_err(err)?,
            );
        }

        // A ball is at the top of a bounce when its vertical velocity turns from up to down.
        let mut apexes = vec![Vec::new(); balls.len()];
        let mut rising = vec![false; balls.len()];
        let (_, recorder) = common::run_steps(&mut world, &cli, |w, _| {
            for (i, &ball) in balls.iter().enumerate() {
                let (Ok(v), Ok(p)) = (w.linear_velocity(ball), w.position(ball)) else {
                    continue;
                };
                if rising[i] && v.y <= 0.0 {
                    apexes[i].push(p.y - RADIUS);
                }
                rising[i] = v.y > 0.0;
            }
        })?;

        println!("dropped from {DROP} m; bounce heights (m), measured vs h e^2k:");
        for (i, &e) in RESTITUTION.iter().enumerate() {
            let shown: Vec<String> = (0..2)
                .map(|k| {
                    let expected = DROP * e.powi(2 * (k as i32 + 1));
                    match apexes[i].get(k) {
                        Some(h) => format!("{h:.3} vs {expected:.3}"),
                        None => format!("none vs {expected:.3}"),
                    }
                })
                .collect();
            println!("  e = {e:.1}: {}", shown.join(", "));
        }
        recorder.finish(&world)
    })
}
