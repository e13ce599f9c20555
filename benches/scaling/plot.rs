//! The scaling plot: ns per body and step against bodies, both on log scales, a line per
//! engine and thread count and one for batch2d's broadphase, drawn with the pieces of
//! `chart.rs`.

use super::Line;
use crate::chart::{axes, legend, line, marker, Axes, Frame, Key, Marker};
use crate::chart::{BLUE, GREY, RED};
use tiny_skia::{Color, Pixmap};

const W: u32 = 1180;
const H: u32 = 620;
const LEFT: f32 = 104.0;
const TOP: f32 = 60.0;
/// The plot area's size: the picture less the margins (the legend's 340 px on the right, 80 px
/// below), so that the legend covers no point.
const PW: f32 = W as f32 - LEFT - 340.0;
const PH: f32 = H as f32 - TOP - 80.0;

/// The markers of the first, second, .. thread count of an engine.
const MARKERS: [Marker; 3] = [Marker::Disc, Marker::Square, Marker::Diamond];

/// The plot of `lines`, titled `title`.
pub fn draw(lines: &[Line], title: &str) -> Pixmap {
    let mut pixmap = Pixmap::new(W, H).expect("a plot of nonzero size");
    pixmap.fill(Color::WHITE);
    let points = || lines.iter().flat_map(|l| &l.points);
    let bodies = || points().map(|p| (p.bodies as f64).log10());
    // Whole decades of bodies (a pile of 1,000,003 circles ends the axis at a million).
    let x_lo = bodies().fold(f64::MAX, f64::min).floor();
    let x_hi = bodies().map(|b| (b - 0.01).ceil()).fold(0.0, f64::max);
    let (x_lo, x_hi) = (x_lo.min(x_hi - 1.0), x_hi);
    let ns = || {
        points()
            .flat_map(|p| [p.ns_per_body, p.broad_phase_ns_per_body])
            .filter(|y| y.is_finite() && *y > 0.0)
            .map(f64::log10)
    };
    let y_lo = ns().fold(f64::MAX, f64::min).floor();
    let y_hi = ns().fold(f64::MIN, f64::max).ceil();
    let (y_lo, y_hi) = if y_lo < y_hi {
        (y_lo, y_hi)
    } else {
        (1.0, 4.0)
    };
    let to_px = |bodies: f64, ns: f64| {
        let x = (bodies.log10() - x_lo) / (x_hi - x_lo);
        let y = (ns.log10().clamp(y_lo, y_hi) - y_lo) / (y_hi - y_lo);
        (LEFT + x as f32 * PW, TOP + PH - y as f32 * PH)
    };
    let x_ticks: Vec<(f32, String)> = (x_lo as i32..=x_hi as i32)
        .map(|d| {
            let s = match d {
                3 => "1k".to_string(),
                6 => "1M".to_string(),
                4 | 5 => format!("{}k", 10u32.pow(d as u32 - 3)),
                d => format!("1E{d}"),
            };
            (to_px(10f64.powi(d), 1.0).0, s)
        })
        .collect();
    // 1, 2 and 5 times every power of ten in the span.
    let y_ticks: Vec<(f32, String)> = (y_lo as i32..=y_hi as i32)
        .flat_map(|d| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(d)))
        .filter(|&v| v.log10() <= y_hi + 1e-9)
        .map(|v| (to_px(10f64.powf(x_lo), v).1, format!("{v}")))
        .collect();
    let frame = Frame {
        left: LEFT,
        top: TOP,
        width: PW,
        height: PH,
    };
    let labels = Axes {
        x_ticks: &x_ticks,
        y_ticks: &y_ticks,
        x_label: "bodies (log scale)",
        y_label: "ns per body and step (log scale)",
        title,
    };
    axes(&mut pixmap, frame, &labels);

    let mut entries = Vec::new();
    for l in lines {
        let (rgb, name) = match l.engine {
            "batch2d" => (BLUE, "batch2d"),
            _ => (RED, "Box2D v3"),
        };
        let k = lines
            .iter()
            .filter(|o| o.engine == l.engine)
            .position(|o| o.threads == l.threads)
            .unwrap_or(0);
        let m = MARKERS[k % MARKERS.len()];
        let s = if l.threads == 1 { "thread" } else { "threads" };
        let at: Vec<(f32, f32)> = (l.points.iter())
            .map(|p| to_px(p.bodies as f64, p.ns_per_body))
            .collect();
        series(&mut pixmap, &at, m, rgb);
        entries.push((Key::Marker(m), rgb, format!("{name}, {} {s}", l.threads)));
        if l.engine == "batch2d" && k == 0 {
            let at: Vec<(f32, f32)> = (l.points.iter())
                .map(|p| to_px(p.bodies as f64, p.broad_phase_ns_per_body))
                .collect();
            series(&mut pixmap, &at, Marker::Ring, GREY);
            let entry = format!("its broadphase, {} {s}", l.threads);
            entries.push((Key::Marker(Marker::Ring), GREY, entry));
        }
    }
    legend(&mut pixmap, (LEFT + PW + 40.0, TOP + 16.0), 300.0, &entries);
    pixmap
}

/// Markers at `points`, joined by lines in their order.
fn series(pixmap: &mut Pixmap, points: &[(f32, f32)], m: Marker, rgb: [u8; 3]) {
    for pair in points.windows(2) {
        line(pixmap, pair[0], pair[1], rgb, 2.0);
    }
    for &p in points {
        marker(pixmap, m, p, 6.0, rgb);
    }
}
