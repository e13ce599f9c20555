//! A platformer's physics: a player with a foot sensor on its body, a one-way platform it
//! jumps up through and lands on, a conveyor belt, a moving platform that carries a crate,
//! and crates whose landings are hit sounds.
//!
//! ```text
//! cargo run --release --example platformer -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! The player is one compound body: a solid box and, under it, a sensor shape, its foot. The
//! foot's sensor events say when the player stands on something, and only then may it jump.
//! The pre-solve hook makes the platform one-way (its contacts hold only bodies above it) and
//! turns the belt (its contacts get a tangent speed). The moving platform is a kinematic body
//! that `World::set_target_transform` sends along its path a step at a time: it moves by
//! velocity, so friction carries the crate on it (a platform moved by `set_transform` would
//! be teleported from under it). Hits above 1 m/s print as sounds, louder the faster the
//! impact. A scripted player runs right, jumping whenever its foot is down.

mod common;

use batch2d::{BodyDef, BodyId, PreSolveContact, Shape, ShapeDef, Vec2, World};
use common::Cli;
use std::process::ExitCode;

/// Top of the one-way platform (m).
const PLATFORM_TOP: f32 = 2.0;
/// Speed of the belt (m/s, towards +x).
const BELT_SPEED: f32 = 1.5;
/// The moving platform sways along x = `SWAY_FROM` + A (1 - cos(omega t)) at height
/// `SWAY_HEIGHT`: its acceleration, at most A omega² = 3.4 m/s², stays below what friction can
/// give the crate on it (mu g = 6.9 m/s² for the crate's and the platform's mixed friction),
/// so the crate rides without sliding.
const SWAY_FROM: f32 = -13.0;
const SWAY_HEIGHT: f32 = 1.0;
const SWAY_AMPLITUDE: f32 = 1.5;
const SWAY_OMEGA: f32 = 1.5;
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
    lift: BodyId,
    rider: BodyId,
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
    // The rider's largest slip on the moving platform once it has landed (m), and where the
    // two were when it landed.
    let (mut slip, mut landed) = (0.0f32, None);
    for step in 1..=cli.steps {
        let sway = |t: f32| SWAY_FROM + SWAY_AMPLITUDE * (1.0 - (SWAY_OMEGA * t).cos());
        let at = Vec2::new(sway(step as f32 / 60.0), SWAY_HEIGHT);
        world
            .set_target_transform(level.lift, at, 0.0, 1.0 / 60.0)
            .map_err(err)?;
        world.step(1.0 / 60.0).map_err(err)?;
        let lift_x = world.position(level.lift).map_err(err)?.x;
        let rider_x = world.position(level.rider).map_err(err)?.x;
        match landed {
            None if step == 60 => landed = Some((lift_x, rider_x)),
            Some((lift0, rider0)) => slip = slip.max(((rider_x - rider0) - (lift_x - lift0)).abs()),
            None => {}
        }
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
    if let Some((lift0, rider0)) = landed {
        let lift = world.position(level.lift).map_err(err)?.x - lift0;
        let rider = world.position(level.rider).map_err(err)?.x - rider0;
        println!(
            "moving platform: moved {lift:+.3} m since 1 s, the crate on it {rider:+.3} m, \
             {:.1} mm of slip at most",
            slip * 1e3
        );
    }
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
    } else if id == level.lift {
        "the moving platform".into()
    } else if id == level.rider {
        "the riding crate".into()
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

/// Ground, a one-way platform, a belt, the player, three crates dropped onto the belt, and
/// a moving platform with a crate dropped onto it.
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
    let lift = world.add_body(
        BodyDef::kinematic().position(Vec2::new(SWAY_FROM, SWAY_HEIGHT)),
        ShapeDef::new(Shape::rect(1.5, 0.1)?),
    )?;
    let rider = world.add_body(
        BodyDef::dynamic().position(Vec2::new(SWAY_FROM, SWAY_HEIGHT + 0.6)),
        ShapeDef::new(Shape::rect(0.3, 0.3)?).friction(0.8),
    )?;
    Ok(Level {
        platform,
        belt,
        lift,
        rider,
        player,
        crates,
    })
}
