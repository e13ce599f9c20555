//! A character mover in a level of chains: it runs over smooth hills, steps up a ledge, jumps
//! up through a one-way platform and lands on it, rides a moving platform and pushes a crate.
//!
//! ```text
//! cargo run --release --example character -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! The character is not simulated: each step, after `World::step`, the script wishes a
//! motion (run right, fall under gravity, jump when grounded) and `World::move_character`
//! turns it into one that slides along the level. A kinematic body with no collision layers
//! shows it in the pictures. The one-way platform is a chain listed left to right, so it is
//! met from above only.

mod common;

use batch2d::{
    BodyDef, BodyId, CharacterController, QueryFilter, Rot, Shape, ShapeDef, Transform, Vec2, World,
};
use common::Cli;
use std::process::ExitCode;

/// Running speed (m/s), take-off speed (m/s) and gravity (m/s²) of the character.
const RUN: f32 = 3.0;
const JUMP: f32 = 7.0;
const GRAVITY: f32 = 10.0;
/// The lift's speed (m/s) and the seconds it takes to cross the gap.
const LIFT_SPEED: f32 = 1.5;
const LIFT_TIME: f32 = 2.0;

fn main() -> ExitCode {
    common::main(|| {
        let usage = format!("usage: character {}", common::FLAGS);
        let cli = Cli::new(600).parse(&usage, |_, _| Ok(false))?;
        run(&cli)
    })
}

fn run(cli: &Cli) -> Result<(), String> {
    let err = |e: batch2d::Error| e.to_string();
    let mut world = World::new(common::settings(cli));
    let capsule = Shape::capsule(Vec2::new(0.0, -0.3), Vec2::new(0.0, 0.3), 0.2).map_err(err)?;
    let (lift, crate_) = build(&mut world).map_err(err)?;
    // The character's picture: a kinematic body that nothing collides with.
    let start = Vec2::new(-9.0, 2.0);
    let avatar = world
        .add_body(
            BodyDef::kinematic().position(start),
            ShapeDef::new(capsule.clone()).layers(0).mask(0),
        )
        .map_err(err)?;
    let controller = CharacterController::new()
        .step_height(0.3)
        .push_force(30.0)
        .filter(QueryFilter::default())
        .ignore(Some(avatar));

    let dt = 1.0 / 60.0;
    let mut recorder = common::Recorder::start(cli, &world)?;
    let mut position = start;
    let mut fall_speed = 0.0f32;
    let mut was_grounded = false;
    // When the lift set off with the character on it.
    let mut lift_start: Option<f32> = None;
    for step in 1..=cli.steps {
        let t = step as f32 * dt;
        // The lift waits at the ledge until the character stands on it, then carries it
        // across the gap.
        let lift_moving = lift_start.is_some_and(|s| t - s < LIFT_TIME);
        let lift_velocity = if lift_moving { LIFT_SPEED } else { 0.0 };
        world
            .set_linear_velocity(lift, Vec2::new(lift_velocity, 0.0))
            .map_err(err)?;
        world.step(dt).map_err(err)?;

        // The script: run right, but stand still on the lift while it moves; jump under the
        // one-way platform, to go up through it.
        let under_platform = (-6.9..-6.7).contains(&position.x);
        let jump = was_grounded && under_platform;
        fall_speed = if jump {
            JUMP
        } else {
            fall_speed - GRAVITY * dt
        };
        let run = if lift_moving { 0.0 } else { RUN };
        let wish = Vec2::new(run * dt, fall_speed * dt);
        let at = Transform::new(position, Rot::IDENTITY);
        let moved = world
            .move_character(&controller, &capsule, at, wish, dt)
            .map_err(err)?;
        world
            .push_with_character(&controller, &moved, dt)
            .map_err(err)?;
        position += moved.translation;
        if moved.grounded && !jump {
            fall_speed = 0.0;
        }
        // Wholly on the lift: clear of the ledge's end at x = 11.
        let on_lift = moved.ground.is_some_and(|g| g.body == lift) && position.x > 11.3;
        if on_lift && lift_start.is_none() {
            lift_start = Some(t);
            println!("{t:5.2} s  steps onto the lift");
        }
        if moved.grounded != was_grounded {
            let what = if moved.grounded {
                "lands"
            } else {
                "leaves the ground"
            };
            println!(
                "{t:5.2} s  {what} at ({:.2}, {:.2})",
                position.x, position.y
            );
        }
        was_grounded = moved.grounded;
        world.set_position(avatar, position).map_err(err)?;
        recorder.after_step(&world, step)?;
    }
    println!("character ends at ({:.2}, {:.2})", position.x, position.y);
    let pushed = world.position(crate_).map_err(err)?;
    println!("the crate ends at ({:.2}, {:.2})", pushed.x, pushed.y);
    recorder.finish(&world)
}

/// The level: hills of a smooth chain, a ledge, a one-way platform, a lift and a crate.
/// Returns the lift and the crate.
fn build(world: &mut World) -> Result<(BodyId, BodyId), batch2d::Error> {
    // Gentle hills from x = -10 to 6, a chain of 0.25 m segments listed left to right.
    let hills: Vec<Vec2> = (0..=64)
        .map(|i| {
            let x = -10.0 + 0.25 * i as f32;
            Vec2::new(x, 0.4 * (x * 0.8).sin())
        })
        .collect();
    let ground = ShapeDef::new(Shape::circle(1.0)?).friction(0.6);
    world.add_segment_chain(BodyDef::fixed(), &hills, &ground)?;
    // A ledge 0.25 m high on a level stretch, then the gap the lift crosses.
    let last = hills[hills.len() - 1];
    world.add_segment_chain(
        BodyDef::fixed(),
        &[
            last,
            Vec2::new(8.0, last.y),
            Vec2::new(8.0, last.y + 0.25),
            Vec2::new(11.0, last.y + 0.25),
        ],
        &ground,
    )?;
    // A one-way platform over the hills: a chain listed left to right is met from above.
    world.add_segment_chain(
        BodyDef::fixed(),
        &[Vec2::new(-6.0, 2.0), Vec2::new(-3.0, 2.0)],
        &ground,
    )?;
    // A crate on the ledge.
    let crate_ = world.add_body(
        BodyDef::dynamic().position(Vec2::new(9.0, last.y + 0.55)),
        ShapeDef::new(Shape::rect(0.3, 0.3)?)
            .density(5.0)
            .friction(0.3),
    )?;
    // The lift at the ledge's end, and the far shore beyond a 3 m gap.
    let lift = world.add_body(
        BodyDef::kinematic().position(Vec2::new(12.0, last.y + 0.15)),
        ShapeDef::new(Shape::rect(1.0, 0.1)?),
    )?;
    world.add_body(
        BodyDef::fixed().position(Vec2::new(19.0, last.y)),
        ShapeDef::new(Shape::rect(3.0, 0.25)?),
    )?;
    Ok((lift, crate_))
}
