//! The textbook's laws in batch2d, in rapier2d and in Box2D v3: each situation beside the
//! answer the law gives.
//!
//! `cargo run --release -p batch2d-bench --example textbook` prints one row per law. The
//! situations are set up in batch2d in `tests/physics/textbook/cases.rs` (and asserted in
//! `tests/physics/textbook.rs`), and the same situations in rapier2d in `rapier.rs` and in Box2D v3 in
//! `box2d.rs`, measured the same way.

mod box2d;
// Shared with the engine's own tests, which assert each case; this crate adds the two
// reference engines beside them.
#[path = "../../../tests/physics/textbook/cases.rs"]
mod cases;
mod rapier;

use batch2d::Backend;
use cases::*;

fn row(law: &str, analytic: String, batch2d: String, rapier2d: String, box2d: String) {
    println!("| {law} | {analytic} | {batch2d} | {rapier2d} | {box2d} |");
}

/// A list of ratios, two decimals each.
fn ratios(v: Vec<f32>) -> String {
    v.iter()
        .map(|u| format!("{u:.2}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() {
    println!("| law | analytic | batch2d | rapier2d | Box2D v3 |");
    println!("|---|---|---|---|---|");
    let bounce = |vy: f32, w: f32| format!("{vy:.2}, {w:.3}");
    for (law, hy) in [
        (
            "1 m box lands flat at 5 m/s, e = 1: leaves at (m/s, rad/s)",
            0.5,
        ),
        ("1 m x 4 cm plank, the same", 0.02),
    ] {
        let (v, w) = flat_bounce(0.5, hy, 5.0);
        let (rv, rw) = rapier::flat_bounce(0.5, hy, 5.0);
        let (bv, bw) = box2d::flat_bounce(0.5, hy, 5.0);
        row(
            law,
            "5.00, 0".into(),
            bounce(v.y, w),
            bounce(rv.y, rw),
            bounce(bv[1], bw),
        );
    }
    row(
        "ball e = 0.8 on floor e = 0.3: rebound / approach",
        "0.30".into(),
        format!("{:.3}", rebound_ratio(0.8, 0.3, 4.0, 1.0)),
        format!("{:.3}", rapier::rebound_ratio(0.8, 0.3, 4.0)),
        format!("{:.3}", box2d::rebound_ratio(0.8, 0.3, 4.0, 1.0)),
    );
    row(
        "0.5 m/s under a 1 m/s threshold, e = 1: rebound / approach",
        "0".into(),
        format!("{:.3}", rebound_ratio(1.0, 1.0, 0.5, 1.0)),
        // Rapier has no restitution threshold.
        format!("{:.3}", rapier::rebound_ratio(1.0, 1.0, 0.5)),
        format!("{:.3}", box2d::rebound_ratio(1.0, 1.0, 0.5, 1.0)),
    );
    for (law, offset) in [
        (
            "two boxes, e = 1, 0.3 m off-centre: energy after / before",
            0.3,
        ),
        ("two boxes, e = 1, head-on: energy after / before", 0.0),
    ] {
        row(
            law,
            "1".into(),
            format!("{:.4}", box_hit(offset, 1.0).0),
            format!("{:.4}", rapier::box_hit(offset, 1.0).0),
            format!("{:.4}", box2d::box_hit(offset, 1.0).0),
        );
    }
    for w in [10.0f32, 90.0] {
        let want = w as f64 * 10.0;
        row(
            &format!("free spin at {w} rad/s for 10 s: turned (rad)"),
            format!("{want:.1}"),
            format!("{:.1}", free_spin(w, 600)),
            format!("{:.1}", rapier::free_spin(w, 600)),
            format!("{:.1}", box2d::free_spin(w, 600)),
        );
    }
    let pair = |(l, e): (f64, f64)| format!("{l:.4}, {e:.4}");
    row(
        "ball hits a box near its corner, mu 0, e 1: L after / before, energy",
        "1, 1".into(),
        pair(corner_hit(0.6)),
        pair(rapier::corner_hit(0.6)),
        pair(box2d::corner_hit(0.6)),
    );
    let energy_momentum = |(e, p): (f64, f64)| format!("{e:.4}, {p:.1e}");
    row(
        "pool break, 16 balls, e 1: energy after / before, momentum error",
        "1, 0".into(),
        energy_momentum(pool_break()),
        energy_momentum(rapier::pool_break()),
        energy_momentum(box2d::pool_break()),
    );
    row(
        "Newton's cradle, 5 touching balls: speeds / striker's",
        "0 0 0 0 1".into(),
        ratios(cradle(5, 4.0, 0.0)),
        ratios(rapier::cradle(5, 4.0, 0.0)),
        ratios(box2d::cradle(5, 4.0, 0.0)),
    );
    row(
        "ball e = 1 dropped 2 m: apex of each bounce / drop height",
        "1 1 1 1 1".into(),
        ratios(bounce_heights(1.0, 2.0, 5)),
        ratios(rapier::bounce_heights(1.0, 2.0, 5)),
        ratios(box2d::bounce_heights(1.0, 2.0, 5)),
    );
    row(
        "ball e = 0.5 dropped 4 m: apexes / drop height",
        "0.25 0.06".into(),
        ratios(bounce_heights(0.5, 4.0, 2)),
        ratios(rapier::bounce_heights(0.5, 4.0, 2)),
        ratios(box2d::bounce_heights(0.5, 4.0, 2)),
    );
    row(
        "box sliding, mu 0.3: deceleration (m/s²)",
        format!("{:.2}", 0.3 * G),
        format!("{:.2}", sliding_deceleration(0.3, 8.0)),
        format!("{:.2}", rapier::sliding_deceleration(0.3, 8.0)),
        format!("{:.2}", box2d::sliding_deceleration(0.3, 8.0)),
    );
    let theta = 25f32.to_radians();
    let roll = |(a, slip): (f32, f32)| format!("{a:.3}, {slip:.4}");
    row(
        "disk rolling down 25°: acceleration (m/s²), slip",
        format!("{:.3}, 0", G * theta.sin() * 2.0 / 3.0),
        roll(rolling(theta)),
        roll(rapier::rolling(theta)),
        roll(box2d::rolling(theta)),
    );
    for rows in [10, 30, 50, 100] {
        row(
            &format!("{rows}-row pyramid, 1000 steps: top box sideways (m)"),
            "0".into(),
            format!("{:.4}", pyramid_drift(rows, 1000, Backend::Simd, 0)),
            format!("{:.4}", rapier::pyramid_drift(rows, 1000)),
            format!("{:.4}", box2d::pyramid_drift(rows, 1000)),
        );
    }
    row(
        "1000 kg box on twenty 1 kg boxes: deepest overlap (m)",
        "0".into(),
        format!("{:.4}", heavy_on_light(1000.0, 20, 300)),
        format!("{:.4}", rapier::heavy_on_light(1000.0, 20, 300)),
        format!("{:.4}", box2d::heavy_on_light(1000.0, 20, 300)),
    );
}
