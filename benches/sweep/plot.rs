//! The sweep's plot: large_pyramid's ms/step on x, its top-box drop on y, batch2d's points and
//! frontier, Box2D's and rapier2d's default points, drawn with the pieces of `chart.rs`.

use super::Point;
use crate::chart::{axes, legend, line, marker, text, text_width, ticks, Axes, Frame, Key, Marker};
use crate::chart::{BLUE, GREEN, GREY, RED};
use tiny_skia::{Color, Pixmap, Rect};

const W: u32 = 1280;
const H: u32 = 660;
const LEFT: f32 = 104.0;
const TOP: f32 = 60.0;
/// The plot area's size: the picture less the margins (the legend's 360 px on the right, 70 px
/// below), so that the legend covers no point.
const PW: f32 = W as f32 - LEFT - 360.0;
const PH: f32 = H as f32 - TOP - 70.0;

/// The plot of `points` (the frontier's indices in `front`, fastest first), titled `title`.
pub fn draw(points: &[Point], front: &[usize], title: &str) -> Pixmap {
    let mut pixmap = Pixmap::new(W, H).expect("a plot of nonzero size");
    pixmap.fill(Color::WHITE);
    let xy: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.pyramid_ms(), f64::from(p.drop())))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let x_hi = xy.iter().map(|p| p.0).fold(0.0, f64::max) * 1.08;
    // The y axis spans the points that keep every touching pair and the other engines; a
    // point that lost pairs and dropped further sits on the top edge with its drop written
    // out, so that a collapse does not squash the rest into a line.
    let y_hi = points
        .iter()
        .filter(|p| p.setting.is_none() || p.keeps_every_pair())
        .map(|p| f64::from(p.drop()))
        .filter(|y| y.is_finite())
        .fold(0.0, f64::max)
        * 1.15;
    let (x_hi, y_hi) = (x_hi.max(1e-3), y_hi.max(1e-3));
    let (pw, ph) = (PW, PH);
    let to_px = |x: f64, y: f64| {
        (
            LEFT + (x / x_hi) as f32 * pw,
            TOP + ph - (y.min(y_hi) / y_hi) as f32 * ph,
        )
    };

    let x_ticks: Vec<(f32, String)> = ticks(0.0, x_hi)
        .into_iter()
        .map(|t| {
            let s = format!("{t}");
            let s = if s.len() > 6 { format!("{t:.2}") } else { s };
            (to_px(t, 0.0).0, s)
        })
        .collect();
    let y_ticks: Vec<(f32, String)> = ticks(0.0, y_hi)
        .into_iter()
        .map(|t| {
            let s = if t != 0.0 && t.abs() < 0.1 {
                format!("{t:.2}")
            } else {
                format!("{t:.1}")
            };
            (to_px(0.0, t).1, s)
        })
        .collect();
    let frame = Frame {
        left: LEFT,
        top: TOP,
        width: pw,
        height: ph,
    };
    let labels = Axes {
        x_ticks: &x_ticks,
        y_ticks: &y_ticks,
        x_label: "ms per step (median of round means; less is faster)",
        y_label: "top-box drop, m (less is stiffer)",
        title,
    };
    axes(&mut pixmap, frame, &labels);

    // The frontier, then the points on top of it.
    for pair in front.windows(2) {
        let (a, b) = (&points[pair[0]], &points[pair[1]]);
        let pa = to_px(a.pyramid_ms(), f64::from(a.drop()));
        let pb = to_px(b.pyramid_ms(), f64::from(b.drop()));
        line(&mut pixmap, pa, pb, BLUE, 2.0);
    }
    // Each label goes to the first of four places around its point that overlaps no label
    // or marker drawn before it (the least crowded one where all four do).
    let mut taken: Vec<Rect> = Vec::new();
    for p in points {
        let (x, y) = (p.pyramid_ms(), f64::from(p.drop()));
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let at = to_px(x, y);
        if let Some(r) = Rect::from_xywh(at.0 - 7.0, at.1 - 7.0, 14.0, 14.0) {
            taken.push(r);
        }
    }
    for p in points {
        let (x, y) = (p.pyramid_ms(), f64::from(p.drop()));
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let at = to_px(x, y);
        let (m, rgb) = match (p.engine, p.setting) {
            (_, Some(_)) if p.keeps_every_pair() => (Marker::Disc, BLUE),
            (_, Some(_)) => (Marker::Ring, GREY),
            ("Box2D", None) => (Marker::Square, RED),
            _ => (Marker::Diamond, GREEN),
        };
        marker(&mut pixmap, m, at, 6.0, rgb);
        if p.is_defaults() {
            marker(&mut pixmap, Marker::Ring, at, 11.0, BLUE);
        }
        let label = if p.is_defaults() {
            format!("{} defaults", p.label())
        } else if y > y_hi {
            format!("{} (drop {y:.2} m)", p.label())
        } else {
            p.label()
        };
        let (lw, lh) = (text_width(&label, 1.5), 7.0 * 1.5);
        let places = [
            (at.0 + 10.0, at.1 - 4.0 - lh),
            (at.0 + 10.0, at.1 + 4.0),
            (at.0 - 10.0 - lw, at.1 - 4.0 - lh),
            (at.0 - 10.0 - lw, at.1 + 4.0),
        ];
        let overlaps = |r: &Rect| {
            taken
                .iter()
                .filter(|t| {
                    r.left() < t.right()
                        && t.left() < r.right()
                        && r.top() < t.bottom()
                        && t.top() < r.bottom()
                })
                .count()
        };
        let best = places
            .iter()
            .filter_map(|&(lx, ly)| Rect::from_xywh(lx, ly, lw, lh))
            .min_by_key(|r| overlaps(r));
        if let Some(r) = best {
            text(&mut pixmap, &label, r.left(), r.top(), 1.5, rgb);
            taken.push(r);
        }
    }

    // Legend, right of the plot area.
    let entries = [
        (
            Key::Marker(Marker::Disc),
            BLUE,
            "batch2d: substeps x passes, hz",
        ),
        (
            Key::Marker(Marker::Ring),
            GREY,
            "batch2d, lost touching pairs",
        ),
        (Key::Line, BLUE, "batch2d frontier"),
        (Key::Marker(Marker::Square), RED, "Box2D v3 defaults"),
        (Key::Marker(Marker::Diamond), GREEN, "rapier2d defaults"),
    ]
    .map(|(key, rgb, s)| (key, rgb, s.to_string()));
    legend(&mut pixmap, (LEFT + pw + 40.0, TOP + 16.0), 330.0, &entries);
    pixmap
}
