//! A platformer's physics: a player with a foot sensor on its body, a one-way platform it
//! jumps up through and lands on, a conveyor belt, and crates whose landings are hit sounds.
//!
//! ```text
//! cargo run --release --example platformer -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! The player is one compound body: a solid box and, under it, a sensor shape, its foot. The
//! foot's sensor events say when the player stands on something, and only then may it jump.
//! The pre-solve hook makes the platform one-way (its contacts hold only bodies above it) and
//! turns the belt (its contacts get a tangent speed). Hits above 1 m/s print as sounds, louder
//! the faster the impact. A scripted player runs right, jumping whenever its foot is down.

mod common;

use batch2d::{BodyDef, BodyId, PreSolveContact, Shape, ShapeDef, Vec2, World};
use common::Cli;
use std::process::ExitCode;

/// Top of the one-way platform (m).
const PLATFORM_TOP: f32 = 2.0;
/// Speed of the belt (m/s, towards +x).
const BELT_SPEED: f32 = 1.5;
/// The player's running speed (m/s) and take-off speed (m/s): a jump rises `v^2 / 2g`, 2.45 m.
const RUN: f32 = 2.0;
const JUMP: f32 = 7.0;

fn main() -> ExitCode {
    common::main(|| {
        let usage = format!("usage: platformer {}", common::FLAGS);
        let cli = Cli::new(360).parse(&usage, |_, _| Ok(false))?;
        run(&cli)
    })
}

/// The level's bodies the script and the hook refer to.
struct Level {
    platform: BodyId,
    belt: BodyId,
    player: BodyId,
    crates: Vec<BodyId>,
}

fn run(cli: &Cli) -> Result<(), String> {
    let err = |e: batch2d::Error| e.to_string();
    let mut world = World::new(common::settings(cli));
    let level = build(&mut world).map_err(err)?;
    let (platform, belt) = (level.platform, level.belt);
    world
        .set_pre_solve(move |c: &mut PreSolveContact| {
            if c.a == platform || c.b == platform {
                // One-way: hold a body above the platform (the normal from the platform to it
                // points up), not one passing up through it (sunk into it).
                let up = if c.a == platform {
                    c.normal.y
                } else {
                    -c.normal.y
                };
                return up > 0.5 && c.points.iter().all(|p| p.separation > -0.05);
            }
            if c.a == belt || c.b == belt {
                c.tangent_speed = BELT_SPEED;
            }
            true
        })
        .map_err(err)?;

    let mut recorder = common::Recorder::start(cli, &world)?;
    // Bodies under the player's foot: it may jump while there is one.
    let mut under_foot = 0usize;
    for step in 1..=cli.steps {
        world.step(1.0 / 60.0).map_err(err)?;
        let t = step as f32 / 60.0;
        let events = world.contact_events();
        for e in events.sensor_begin() {
            if e.sensor == level.player {
                under_foot += 1;
                println!("{t:5.2} s  foot down on {}", name(&level, e.visitor));
            }
        }
        for e in events.sensor_end() {
            if e.sensor == level.player {
                under_foot = under_foot.saturating_sub(1);
                println!("{t:5.2} s  foot off {}", name(&level, e.visitor));
            }
        }
        for h in events.hit() {
            let loud = (h.speed / 10.0).min(1.0);
            println!(
                "{t:5.2} s  *thud* {} on {} at {:.2} m/s (volume {loud:.2})",
                name(&level, h.b),
                name(&level, h.a),
                h.speed
            );
        }
        // The script: run right; jump when standing.
        let v = world.linear_velocity(level.player).map_err(err)?;
        let vy = if under_foot > 0 && v.y.abs() < 0.1 {
            JUMP
        } else {
            v.y
        };
        (world.set_linear_velocity(level.player, Vec2::new(RUN, vy))).map_err(err)?;
        recorder.after_step(&world, step)?;
    }
    let p = world.position(level.player).map_err(err)?;
    println!("player ends at ({:.2}, {:.2})", p.x, p.y);
    for (i, &c) in level.crates.iter().enumerate() {
        let (p, v) = (
            world.position(c).map_err(err)?,
            world.linear_velocity(c).map_err(err)?,
        );
        println!(
            "crate {i} at ({:.2}, {:.2}), moving {:.2} m/s",
            p.x, p.y, v.x
        );
    }
    recorder.finish(&world)
}

/// A name for the events.
fn name(level: &Level, id: BodyId) -> String {
    if id == level.platform {
        "the platform".into()
    } else if id == level.belt {
        "the belt".into()
    } else if id == level.player {
        "the player".into()
    } else if let Some(i) = level.crates.iter().position(|&c| c == id) {
        format!("crate {i}")
    } else {
        "the ground".into()
    }
}

/// Ground, a one-way platform, a belt, the player and three crates dropped onto the belt.
fn build(world: &mut World) -> Result<Level, batch2d::Error> {
    world.add_body(
        BodyDef::fixed().position(Vec2::new(0.0, -0.5)),
        ShapeDef::new(Shape::rect(20.0, 0.5)?),
    )?;
    let platform = world.add_body(
        BodyDef::fixed().position(Vec2::new(-1.0, PLATFORM_TOP - 0.1)),
        ShapeDef::new(Shape::rect(2.0, 0.1)?),
    )?;
    let belt = world.add_body(
        BodyDef::fixed().position(Vec2::new(6.0, 0.15)),
        ShapeDef::new(Shape::rect(3.0, 0.15)?).friction(0.8),
    )?;
    // The foot: a thin sensor 5 cm below the box, of no density, so that the box alone
    // weighs.
    let foot = Shape::offset_rect(0.25, 0.05, Vec2::new(0.0, -0.45), 0.0)?;
    let player = world.add_compound_body(
        BodyDef::dynamic()
            .position(Vec2::new(-3.5, 0.4))
            .fixed_rotation(true),
        &[
            ShapeDef::new(Shape::rect(0.3, 0.4)?),
            ShapeDef::new(foot).sensor(true).density(0.0),
        ],
    )?;
    let crates = (0..3)
        .map(|i| {
            world.add_body(
                BodyDef::dynamic().position(Vec2::new(3.8 + 0.9 * i as f32, 2.0 + 1.5 * i as f32)),
                ShapeDef::new(Shape::rect(0.3, 0.3)?).friction(0.8),
            )
        })
        .collect::<Result<_, _>>()?;
    Ok(Level {
        platform,
        belt,
        player,
        crates,
    })
}
