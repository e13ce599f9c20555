//! The textbook's laws in batch2d: each situation beside the answer the law gives.
//!
//! `cargo run --release --example textbook` prints one row per law. The same situations are
//! asserted in `tests/textbook.rs`.

mod cases;

use batch2d::Backend;
use cases::*;

fn row(law: &str, analytic: String, batch2d: String) {
    println!("| {law} | {analytic} | {batch2d} |");
}

fn main() {
    println!("| law | analytic | batch2d |");
    println!("|---|---|---|");
    let (v, w) = flat_bounce(0.5, 0.5, 5.0);
    row(
        "1 m box lands flat at 5 m/s, e = 1: leaves at (m/s, rad/s)",
        "5.00, 0".into(),
        format!("{:.2}, {w:.3}", v.y),
    );
    let (v, w) = flat_bounce(0.5, 0.02, 5.0);
    row(
        "1 m x 4 cm plank, the same",
        "5.00, 0".into(),
        format!("{:.2}, {w:.3}", v.y),
    );
    row(
        "ball e = 0.8 on floor e = 0.3: rebound / approach",
        "0.30".into(),
        format!("{:.3}", rebound_ratio(0.8, 0.3, 4.0, 1.0)),
    );
    row(
        "0.5 m/s under a 1 m/s threshold, e = 1: rebound / approach",
        "0".into(),
        format!("{:.3}", rebound_ratio(1.0, 1.0, 0.5, 1.0)),
    );
    let (e_off, _) = box_hit(0.3, 1.0);
    row(
        "two boxes, e = 1, 0.3 m off-centre: energy after / before",
        "1".into(),
        format!("{e_off:.4}"),
    );
    let (e_head, _) = box_hit(0.0, 1.0);
    row(
        "two boxes, e = 1, head-on: energy after / before",
        "1".into(),
        format!("{e_head:.4}"),
    );
    for w in [10.0f32, 90.0] {
        let want = w as f64 * 10.0;
        row(
            &format!("free spin at {w} rad/s for 10 s: turned (rad)"),
            format!("{want:.1}"),
            format!("{:.1}", free_spin(w, 600)),
        );
    }
    let (l, e) = corner_hit(0.6);
    row(
        "ball hits a box near its corner, mu 0, e 1: L after / before, energy",
        "1, 1".into(),
        format!("{l:.4}, {e:.4}"),
    );
    let (e, p) = pool_break();
    row(
        "pool break, 16 balls, e 1: energy after / before, momentum error",
        "1, 0".into(),
        format!("{e:.4}, {p:.1e}"),
    );
    let speeds = |v: Vec<f32>| {
        v.iter()
            .map(|u| format!("{u:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    row(
        "Newton's cradle, 5 touching balls: speeds / striker's",
        "0 0 0 0 1".into(),
        speeds(cradle(5, 4.0, 0.0)),
    );
    row(
        "ball e = 1 dropped 2 m: apex of each bounce / drop height",
        "1 1 1 1 1".into(),
        speeds(bounce_heights(1.0, 2.0, 5)),
    );
    row(
        "ball e = 0.5 dropped 4 m: apexes / drop height",
        "0.25 0.06".into(),
        speeds(bounce_heights(0.5, 4.0, 2)),
    );
    row(
        "box sliding, mu 0.3: deceleration (m/s²)",
        format!("{:.2}", 0.3 * G),
        format!("{:.2}", sliding_deceleration(0.3, 8.0)),
    );
    let theta = 25f32.to_radians();
    let (a, slip) = rolling(theta);
    row(
        "disk rolling down 25°: acceleration (m/s²), slip",
        format!("{:.3}, 0", G * theta.sin() * 2.0 / 3.0),
        format!("{a:.3}, {slip:.4}"),
    );
    for rows in [10, 30, 50] {
        row(
            &format!("{rows}-row pyramid, 1000 steps: top box sideways (m)"),
            "0".into(),
            format!("{:.4}", pyramid_drift(rows, 1000, Backend::Simd, 0)),
        );
    }
    row(
        "1000 kg box on twenty 1 kg boxes: deepest overlap (m)",
        "0".into(),
        format!("{:.4}", heavy_on_light(1000.0, 20, 300)),
    );
}
