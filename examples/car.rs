//! A car on two wheel joints (sprung suspension, a motor on each wheel) drives over bumps of
//! growing height, brakes, and reverses: the script changes the wheel motors while the world
//! runs, with `World::set_joint_motor`, and the joints (their springs, limits and warm start)
//! stay as they were.
//!
//! ```text
//! cargo run --release --example car -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! The motors drive for the first 3 s; then they brake (a motor of speed 0 holds the wheels'
//! turn relative to the chassis) for 1.5 s; then they drive backwards. A wheel that rolls
//! without slipping moves its centre at its spin times its radius: the example prints, for
//! the drive forward and the drive back, the chassis' travel beside the wheels' spin times
//! their radius (their difference is how much the tyres slipped), how far and how long the
//! car took to stop, and how far the suspension travelled and a wheel left its axis.

mod common;

use batch2d::{Vec2, World};
use common::jointed::{self, Demo, MOTOR_SPEED, MOTOR_TORQUE, WHEEL_RADIUS};
use std::process::ExitCode;

/// The step at which the motors brake, and the one at which they drive backwards.
const BRAKE_AT: usize = 180;
const REVERSE_AT: usize = 270;
/// A braking motor's torque cap (N m): enough to lock a wheel against the ground's friction.
const BRAKE_TORQUE: f32 = 3.0 * MOTOR_TORQUE;

/// The tyres' friction with the ground (both 0.9 in `jointed::car`), for the braking law: a
/// car on level ground slows at most at mu g.
const MU: f32 = 0.9;

/// Travel of the chassis along x (m) and of the wheels' rims (spin times radius, m), in the
/// direction the motors drive.
#[derive(Default)]
struct Roll {
    chassis: f32,
    rims: f32,
}

impl Roll {
    fn slip(&self) -> f32 {
        100.0 * (self.rims - self.chassis) / self.rims.max(1e-6)
    }
}

fn main() -> ExitCode {
    common::main(|| {
        let cli = common::demo_cli(Demo::Car)?;
        let err = |e: batch2d::Error| e.to_string();
        let mut scene = jointed::car(common::settings(&cli)).map_err(err)?;
        let (chassis, wheels, suspension) = (scene.chassis, scene.wheels, scene.suspension);
        let world = &mut scene.world;
        let start = world.position(chassis).map_err(err)?;
        let mut recorder = common::Recorder::start(&cli, world)?;
        let mut times = Vec::with_capacity(cli.steps);
        let (mut forward, mut back) = (Roll::default(), Roll::default());
        let mut last_x = start.x;
        // Where and how fast the car was when it braked, and when and where it stopped.
        let mut braked: Option<(f32, f32)> = None;
        let mut stopped: Option<(usize, f32)> = None;
        let (mut travel, mut off_axis) = ((0.0f32, 0.0f32), 0.0f32);
        for step in 1..=cli.steps {
            if step == BRAKE_AT + 1 {
                for &joint in &suspension {
                    world
                        .set_joint_motor(joint, 0.0, BRAKE_TORQUE)
                        .map_err(err)?;
                }
                let at = world.position(chassis).map_err(err)?.x;
                braked = Some((at, world.linear_velocity(chassis).map_err(err)?.x));
            }
            if step == REVERSE_AT + 1 {
                for &joint in &suspension {
                    (world.set_joint_motor(joint, -MOTOR_SPEED, MOTOR_TORQUE)).map_err(err)?;
                }
            }
            let begun = std::time::Instant::now();
            world.step(1.0 / 60.0).map_err(err)?;
            times.push(begun.elapsed().as_secs_f64() * 1e3);
            recorder.after_step(world, step)?;

            let x = world.position(chassis).map_err(err)?.x;
            // The wheels' mean spin, rad/s, counter-clockwise positive: -spin * radius is the
            // speed along x at which they would roll the car.
            let spin = mean_spin(world, &wheels)?;
            let rim = -spin * WHEEL_RADIUS / 60.0;
            if step <= BRAKE_AT && x > last_x {
                forward.chassis += x - last_x;
                forward.rims += rim;
            }
            if step > REVERSE_AT && x < last_x {
                back.chassis += last_x - x;
                back.rims -= rim;
            }
            let speed = world.linear_velocity(chassis).map_err(err)?.x;
            if step > BRAKE_AT && step <= REVERSE_AT && stopped.is_none() && speed.abs() < 0.05 {
                stopped = Some((step - BRAKE_AT, x));
            }
            last_x = x;
            suspension_travel(world, chassis, &suspension, &mut travel, &mut off_axis)?;
        }
        let end = world.position(chassis).map_err(err)?;
        println!(
            "chassis from x {:.1} to {:.1}; motors at {:.1} rad/s would roll the car at {:.1} m/s",
            start.x,
            end.x,
            -MOTOR_SPEED,
            -MOTOR_SPEED * WHEEL_RADIUS
        );
        println!(
            "driving forward (steps 1-{BRAKE_AT}): chassis {:.1} m, wheels rolled {:.1} m (spin \
             x radius), {:.1}% slip",
            forward.chassis,
            forward.rims,
            forward.slip()
        );
        match (braked, stopped) {
            (Some((at, speed)), Some((steps, x))) => {
                let seconds = steps as f32 / 60.0;
                println!(
                    "braking from {speed:.2} m/s at x {at:.1}: stopped in {seconds:.2} s and \
                     {:.2} m, a mean deceleration of {:.1} m/s² (the tyres' friction can give \
                     at most mu g = {:.1} m/s² on level ground)",
                    x - at,
                    speed.abs() / seconds,
                    MU * 10.0
                )
            }
            (Some((_, speed)), None) => {
                println!("braking from {speed:.2} m/s: still moving when the reverse began")
            }
            _ => println!("braking: the run ended before step {BRAKE_AT}"),
        }
        if cli.steps > REVERSE_AT {
            println!(
                "driving back (steps {}-{}): chassis {:.1} m, wheels rolled {:.1} m, {:.1}% slip",
                REVERSE_AT + 1,
                cli.steps,
                back.chassis,
                back.rims,
                back.slip()
            );
        }
        println!(
            "suspension travel {:.3} to {:.3} m along its axis, {:.1} mm across it at most",
            travel.0,
            travel.1,
            off_axis * 1e3
        );
        println!("{}", common::timing(&times));
        recorder.finish(world)
    })
}

/// The wheels' mean angular velocity (rad/s).
fn mean_spin(world: &World, wheels: &[batch2d::BodyId]) -> Result<f32, String> {
    let mut sum = 0.0;
    for &w in wheels {
        sum += world.angular_velocity(w).map_err(|e| e.to_string())?;
    }
    Ok(sum / wheels.len() as f32)
}

/// Widens `travel` to the suspension's travel along its axis and `off_axis` to how far a wheel
/// has left it. The axis is the chassis' up; the anchors drift apart along it as the spring
/// gives, and across it only as far as the joint fails to hold the line.
fn suspension_travel(
    world: &World,
    chassis: batch2d::BodyId,
    suspension: &[batch2d::JointId],
    travel: &mut (f32, f32),
    off_axis: &mut f32,
) -> Result<(), String> {
    let err = |e: batch2d::Error| e.to_string();
    let axis = world
        .rotation(chassis)
        .map_err(err)?
        .rotate(Vec2::new(0.0, 1.0));
    for &id in suspension {
        let (a, b) = world.joint_anchors(id).map_err(err)?;
        let along = (b - a).dot(axis);
        *travel = (travel.0.min(along), travel.1.max(along));
        *off_axis = off_axis.max((b - a).cross(axis).abs());
    }
    Ok(())
}
