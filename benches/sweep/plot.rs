//! The sweep's plot: large_pyramid's ms/step on x, its top-box drop on y, batch2d's points and
//! frontier, Box2D's and rapier2d's default points, drawn with tiny-skia and labelled with a
//! small built-in bitmap font (capitals, digits and a few signs; no font files to ship).

use super::Point;
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

const W: u32 = 1280;
const H: u32 = 660;
const LEFT: f32 = 104.0;
const TOP: f32 = 60.0;
/// The plot area's size: the picture less the margins (the legend's 360 px on the right, 70 px
/// below), so that the legend covers no point.
const PW: f32 = W as f32 - LEFT - 360.0;
const PH: f32 = H as f32 - TOP - 70.0;

const BLUE: [u8; 3] = [31, 90, 180];
const RED: [u8; 3] = [200, 50, 40];
const GREEN: [u8; 3] = [40, 150, 60];
const GREY: [u8; 3] = [120, 120, 120];
const INK: [u8; 3] = [20, 20, 20];

fn paint(rgb: [u8; 3]) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(rgb[0], rgb[1], rgb[2], 255);
    p.anti_alias = true;
    p
}

/// 5x7 glyphs, one row a byte (bit 4 = left column). Lower case draws as upper case.
fn glyph(c: char) -> [u8; 7] {
    match c.to_ascii_uppercase() {
        '0' => [14, 17, 19, 21, 25, 17, 14],
        '1' => [4, 12, 4, 4, 4, 4, 14],
        '2' => [14, 17, 1, 2, 4, 8, 31],
        '3' => [31, 2, 4, 2, 1, 17, 14],
        '4' => [2, 6, 10, 18, 31, 2, 2],
        '5' => [31, 16, 30, 1, 1, 17, 14],
        '6' => [6, 8, 16, 30, 17, 17, 14],
        '7' => [31, 1, 2, 4, 8, 8, 8],
        '8' => [14, 17, 17, 14, 17, 17, 14],
        '9' => [14, 17, 17, 15, 1, 2, 12],
        'A' => [14, 17, 17, 31, 17, 17, 17],
        'B' => [30, 17, 17, 30, 17, 17, 30],
        'C' => [14, 17, 16, 16, 16, 17, 14],
        'D' => [28, 18, 17, 17, 17, 18, 28],
        'E' => [31, 16, 16, 30, 16, 16, 31],
        'F' => [31, 16, 16, 30, 16, 16, 16],
        'G' => [14, 17, 16, 23, 17, 17, 15],
        'H' => [17, 17, 17, 31, 17, 17, 17],
        'I' => [14, 4, 4, 4, 4, 4, 14],
        'J' => [7, 2, 2, 2, 2, 18, 12],
        'K' => [17, 18, 20, 24, 20, 18, 17],
        'L' => [16, 16, 16, 16, 16, 16, 31],
        'M' => [17, 27, 21, 21, 17, 17, 17],
        'N' => [17, 17, 25, 21, 19, 17, 17],
        'O' => [14, 17, 17, 17, 17, 17, 14],
        'P' => [30, 17, 17, 30, 16, 16, 16],
        'Q' => [14, 17, 17, 17, 21, 18, 13],
        'R' => [30, 17, 17, 30, 20, 18, 17],
        'S' => [15, 16, 16, 14, 1, 1, 30],
        'T' => [31, 4, 4, 4, 4, 4, 4],
        'U' => [17, 17, 17, 17, 17, 17, 14],
        'V' => [17, 17, 17, 17, 17, 10, 4],
        'W' => [17, 17, 17, 21, 21, 21, 10],
        'X' => [17, 17, 10, 4, 10, 17, 17],
        'Y' => [17, 17, 17, 10, 4, 4, 4],
        'Z' => [31, 1, 2, 4, 8, 16, 31],
        '.' => [0, 0, 0, 0, 0, 12, 12],
        ',' => [0, 0, 0, 0, 12, 4, 8],
        ':' => [0, 12, 12, 0, 12, 12, 0],
        ';' => [0, 12, 12, 0, 12, 4, 8],
        '-' => [0, 0, 0, 31, 0, 0, 0],
        '_' => [0, 0, 0, 0, 0, 0, 31],
        '/' => [0, 1, 2, 4, 8, 16, 0],
        '(' => [2, 4, 8, 8, 8, 4, 2],
        ')' => [8, 4, 2, 2, 2, 4, 8],
        '=' => [0, 0, 31, 0, 31, 0, 0],
        '+' => [0, 4, 4, 31, 4, 4, 0],
        _ => [0; 7],
    }
}

/// Width in pixels of `text` at `scale` (each glyph 5 columns and a gap).
fn text_width(text: &str, scale: f32) -> f32 {
    text.chars().count() as f32 * 6.0 * scale
}

/// Draws `s` with its top left corner at (x, y).
fn text(pixmap: &mut Pixmap, s: &str, x: f32, y: f32, scale: f32, rgb: [u8; 3]) {
    glyphs(pixmap, s, scale, rgb, Transform::from_translate(x, y));
}

/// Draws `s` turned a quarter turn counter-clockwise, its first letter's top left corner at
/// (x, y) and reading upwards (the y axis label).
fn text_up(pixmap: &mut Pixmap, s: &str, x: f32, y: f32, scale: f32, rgb: [u8; 3]) {
    glyphs(
        pixmap,
        s,
        scale,
        rgb,
        Transform::from_row(0.0, -1.0, 1.0, 0.0, x, y),
    );
}

fn glyphs(pixmap: &mut Pixmap, s: &str, scale: f32, rgb: [u8; 3], place: Transform) {
    let mut pb = PathBuilder::new();
    for (k, c) in s.chars().enumerate() {
        for (row, bits) in glyph(c).iter().enumerate() {
            for col in 0..5 {
                if bits & (16 >> col) != 0 {
                    let gx = (k * 6 + col) as f32 * scale;
                    if let Some(r) = Rect::from_xywh(gx, row as f32 * scale, scale, scale) {
                        pb.push_rect(r);
                    }
                }
            }
        }
    }
    let Some(path) = pb.finish() else { return };
    let mut p = paint(rgb);
    p.anti_alias = false;
    pixmap.fill_path(&path, &p, FillRule::Winding, place, None);
}

/// A tick spacing of 1, 2 or 5 times a power of ten that cuts `span` into 4 to 10 parts.
fn tick_step(span: f64) -> f64 {
    let raw = span / 6.0;
    let pow = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * pow)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * pow)
}

fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = tick_step(hi - lo);
    let mut v = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi + step * 1e-6 {
        v.push(t);
        t += step;
    }
    v
}

fn line(pixmap: &mut Pixmap, a: (f32, f32), b: (f32, f32), rgb: [u8; 3], width: f32) {
    let mut pb = PathBuilder::new();
    pb.move_to(a.0, a.1);
    pb.line_to(b.0, b.1);
    let Some(path) = pb.finish() else { return };
    let stroke = Stroke {
        width,
        ..Stroke::default()
    };
    pixmap.stroke_path(&path, &paint(rgb), &stroke, Transform::identity(), None);
}

#[derive(Clone, Copy)]
enum Marker {
    Disc,
    Ring,
    Square,
    Diamond,
}

fn marker(pixmap: &mut Pixmap, m: Marker, (x, y): (f32, f32), r: f32, rgb: [u8; 3]) {
    let path = match m {
        Marker::Disc | Marker::Ring => PathBuilder::from_circle(x, y, r),
        Marker::Square => {
            Rect::from_xywh(x - r, y - r, 2.0 * r, 2.0 * r).map(PathBuilder::from_rect)
        }
        Marker::Diamond => {
            let mut pb = PathBuilder::new();
            pb.move_to(x, y - 1.3 * r);
            pb.line_to(x + 1.3 * r, y);
            pb.line_to(x, y + 1.3 * r);
            pb.line_to(x - 1.3 * r, y);
            pb.close();
            pb.finish()
        }
    };
    let Some(path) = path else { return };
    if let Marker::Ring = m {
        let stroke = Stroke {
            width: 2.0,
            ..Stroke::default()
        };
        pixmap.stroke_path(&path, &paint(rgb), &stroke, Transform::identity(), None);
    } else {
        pixmap.fill_path(
            &path,
            &paint(rgb),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
}

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

    // Grid, ticks and their numbers.
    for t in ticks(0.0, x_hi) {
        let (px, _) = to_px(t, 0.0);
        line(&mut pixmap, (px, TOP), (px, TOP + ph), [225; 3], 1.0);
        let s = format!("{t}");
        let s = if s.len() > 6 { format!("{t:.2}") } else { s };
        text(
            &mut pixmap,
            &s,
            px - text_width(&s, 2.0) / 2.0,
            TOP + ph + 8.0,
            2.0,
            INK,
        );
    }
    for t in ticks(0.0, y_hi) {
        let (_, py) = to_px(0.0, t);
        line(&mut pixmap, (LEFT, py), (LEFT + pw, py), [225; 3], 1.0);
        let s = format!("{t:.1}");
        let s = if t != 0.0 && t.abs() < 0.1 {
            format!("{t:.2}")
        } else {
            s
        };
        text(
            &mut pixmap,
            &s,
            LEFT - 8.0 - text_width(&s, 2.0),
            py - 7.0,
            2.0,
            INK,
        );
    }
    line(
        &mut pixmap,
        (LEFT, TOP + ph),
        (LEFT + pw, TOP + ph),
        INK,
        1.5,
    );
    line(&mut pixmap, (LEFT, TOP), (LEFT, TOP + ph), INK, 1.5);
    let x_label = "ms per step (median of round means; less is faster)";
    let x_at = LEFT + (pw - text_width(x_label, 2.0)) / 2.0;
    text(&mut pixmap, x_label, x_at, H as f32 - 30.0, 2.0, INK);
    let y_label = "top-box drop, m (less is stiffer)";
    let y_at = TOP + (ph + text_width(y_label, 2.0)) / 2.0;
    text_up(&mut pixmap, y_label, 18.0, y_at, 2.0, INK);
    text(&mut pixmap, title, LEFT, 20.0, 2.0, INK);

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
    let items: [(Marker, [u8; 3], &str); 5] = [
        (Marker::Disc, BLUE, "batch2d: substeps x passes, hz"),
        (Marker::Ring, GREY, "batch2d, lost touching pairs"),
        (Marker::Disc, BLUE, "batch2d frontier"),
        (Marker::Square, RED, "Box2D v3 defaults"),
        (Marker::Diamond, GREEN, "rapier2d defaults"),
    ];
    let lx = LEFT + pw + 40.0;
    let mut ly = TOP + 16.0;
    if let Some(r) = Rect::from_xywh(lx - 20.0, ly - 16.0, 330.0, 24.0 * items.len() as f32 + 8.0) {
        pixmap.fill_rect(r, &paint([255; 3]), Transform::identity(), None);
        let stroke = Stroke {
            width: 1.0,
            ..Stroke::default()
        };
        let path = PathBuilder::from_rect(r);
        pixmap.stroke_path(&path, &paint(GREY), &stroke, Transform::identity(), None);
    }
    for (k, (m, rgb, s)) in items.iter().enumerate() {
        if k == 2 {
            line(&mut pixmap, (lx - 12.0, ly), (lx + 12.0, ly), *rgb, 2.0);
        } else {
            marker(&mut pixmap, *m, (lx, ly), 6.0, *rgb);
        }
        text(&mut pixmap, s, lx + 20.0, ly - 5.0, 1.5, INK);
        ly += 24.0;
    }
    pixmap
}
