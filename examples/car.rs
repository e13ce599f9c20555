//! A car on two wheel joints (sprung suspension, a motor on each wheel) drives over bumps of
//! growing height and a hill until the rising ground at the far end turns it back.
//!
//! ```text
//! cargo run --release --example car -- [--steps N] [--png FILE] [--gif FILE] ...
//! ```
//!
//! A wheel that rolls without slipping moves its centre at its spin times its radius. The
//! example prints how far the car got, and, over the run, the chassis' mean speed beside the
//! wheels' mean spin times their radius: the difference is how much the tyres slipped. It also
//! prints how far the suspension travelled and how far a wheel left its axis.

mod common;

use batch2d::Vec2;
use common::jointed::{self, Demo, MOTOR_SPEED, WHEEL_RADIUS};
use std::process::ExitCode;

fn main() -> ExitCode {
    common::main(|| {
        let cli = common::demo_cli(Demo::Car)?;
        let err = |e: batch2d::Error| e.to_string();
        let mut scene = jointed::car(common::settings(&cli)).map_err(err)?;
        let (chassis, wheels, suspension) = (scene.chassis, scene.wheels, scene.suspension);
        let start = scene.world.position(chassis).map_err(err)?;
        // Per step: the chassis' travel along x and the wheels' mean spin (rad/s, clockwise
        // positive) while the car moves forward; the suspension's travel and a wheel's
        // distance from its axis, over the run.
        let (mut furthest, mut rolled, mut travelled) = (start.x, 0.0f32, 0.0f32);
        let (mut last_x, mut travel, mut off_axis) = (start.x, (0.0f32, 0.0f32), 0.0f32);
        let (times, recorder) = common::run_steps(&mut scene.world, &cli, |w, _| {
            let Ok(x) = w.position(chassis).map(|p| p.x) else {
                return;
            };
            furthest = furthest.max(x);
            let spin: f32 = wheels
                .iter()
                .filter_map(|&b| w.angular_velocity(b).ok())
                .sum::<f32>()
                / 2.0;
            if x > last_x {
                travelled += x - last_x;
                rolled += -spin * WHEEL_RADIUS / 60.0;
            }
            last_x = x;
            for &id in &suspension {
                let (Ok((a, b)), Ok(q)) = (w.joint_anchors(id), w.rotation(chassis)) else {
                    continue;
                };
                // The axis is the chassis' up; the anchors drift apart along it as the spring
                // gives, and across it only as far as the joint fails to hold the line.
                let (axis, d) = (q.rotate(Vec2::new(0.0, 1.0)), b - a);
                let along = d.dot(axis);
                travel = (travel.0.min(along), travel.1.max(along));
                off_axis = off_axis.max(d.cross(axis).abs());
            }
        })?;
        let w = &scene.world;
        let end = w.position(chassis).map_err(err)?;
        println!(
            "chassis from x {:.1} to {:.1} (furthest {:.1}); motors at {:.1} rad/s would roll \
             the car at {:.1} m/s",
            start.x,
            end.x,
            furthest,
            -MOTOR_SPEED,
            -MOTOR_SPEED * WHEEL_RADIUS
        );
        let seconds = cli.steps as f32 / 60.0;
        println!(
            "moving forward: chassis {:.1} m, wheels rolled {:.1} m (spin x radius), {:.1}% slip; \
             mean {:.2} m/s over the run",
            travelled,
            rolled,
            100.0 * (rolled - travelled) / rolled.max(1e-6),
            (end.x - start.x) / seconds
        );
        println!(
            "suspension travel {:.3} to {:.3} m along its axis, {:.1} mm across it at most",
            travel.0,
            travel.1,
            off_axis * 1e3
        );
        println!("{}", common::timing(&times));
        recorder.finish(w)
    })
}
