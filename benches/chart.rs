//! What the bench's plots are drawn with: colours, a small built-in bitmap font (capitals,
//! digits and a few signs; no font files to ship), ticks, lines, markers, axes and legends, on
//! tiny-skia. Shared by the sweep's frontier plot (`docs/frontier.png`) and the scaling plot
//! (`docs/scaling.png`).

use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

/// The colours of the plots.
pub const BLUE: [u8; 3] = [31, 90, 180];
pub const RED: [u8; 3] = [200, 50, 40];
pub const GREEN: [u8; 3] = [40, 150, 60];
pub const GREY: [u8; 3] = [120, 120, 120];
pub const INK: [u8; 3] = [20, 20, 20];

/// A paint of colour `rgb`, anti-aliased.
pub fn paint(rgb: [u8; 3]) -> Paint<'static> {
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
pub fn text_width(text: &str, scale: f32) -> f32 {
    text.chars().count() as f32 * 6.0 * scale
}

/// Draws `s` with its top left corner at (x, y).
pub fn text(pixmap: &mut Pixmap, s: &str, x: f32, y: f32, scale: f32, rgb: [u8; 3]) {
    glyphs(pixmap, s, scale, rgb, Transform::from_translate(x, y));
}

/// Draws `s` turned a quarter turn counter-clockwise, its first letter's top left corner at
/// (x, y) and reading upwards (the y axis label).
pub fn text_up(pixmap: &mut Pixmap, s: &str, x: f32, y: f32, scale: f32, rgb: [u8; 3]) {
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

/// Round values from `lo` to `hi`, 4 to 10 of them, to put ticks at.
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = tick_step(hi - lo);
    let mut v = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi + step * 1e-6 {
        v.push(t);
        t += step;
    }
    v
}

/// A straight line from `a` to `b`, `width` pixels wide.
pub fn line(pixmap: &mut Pixmap, a: (f32, f32), b: (f32, f32), rgb: [u8; 3], width: f32) {
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
/// The shape of a point's marker.
pub enum Marker {
    Disc,
    Ring,
    Square,
    Diamond,
}

/// A marker of radius `r` centred at (x, y).
pub fn marker(pixmap: &mut Pixmap, m: Marker, (x, y): (f32, f32), r: f32, rgb: [u8; 3]) {
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

/// Where a plot's area sits in its picture, in pixels: its left and top edges and its size.
/// The tick numbers and axis labels go in the margins around it.
#[derive(Clone, Copy)]
pub struct Frame {
    pub left: f32,
    pub top: f32,
    pub width: f32,
    pub height: f32,
}

impl Frame {
    fn bottom(&self) -> f32 {
        self.top + self.height
    }

    fn right(&self) -> f32 {
        self.left + self.width
    }
}

/// What a plot's axes show: the ticks of each axis (their position in pixels along it and
/// their number), the labels of the axes and the title.
pub struct Axes<'a> {
    pub x_ticks: &'a [(f32, String)],
    pub y_ticks: &'a [(f32, String)],
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub title: &'a str,
}

/// Draws `axes` around `frame`: a light grid line at every tick, the tick numbers below and
/// left of the area, its bottom and left edges, the axis labels and the title above.
pub fn axes(pixmap: &mut Pixmap, frame: Frame, axes: &Axes) {
    let (left, top, bottom, right) = (frame.left, frame.top, frame.bottom(), frame.right());
    for (px, s) in axes.x_ticks {
        line(pixmap, (*px, top), (*px, bottom), [225; 3], 1.0);
        let x = px - text_width(s, 2.0) / 2.0;
        text(pixmap, s, x, bottom + 8.0, 2.0, INK);
    }
    for (py, s) in axes.y_ticks {
        line(pixmap, (left, *py), (right, *py), [225; 3], 1.0);
        let x = left - 8.0 - text_width(s, 2.0);
        text(pixmap, s, x, py - 7.0, 2.0, INK);
    }
    line(pixmap, (left, bottom), (right, bottom), INK, 1.5);
    line(pixmap, (left, top), (left, bottom), INK, 1.5);
    let x_at = left + (frame.width - text_width(axes.x_label, 2.0)) / 2.0;
    text(pixmap, axes.x_label, x_at, bottom + 40.0, 2.0, INK);
    let y_at = top + (frame.height + text_width(axes.y_label, 2.0)) / 2.0;
    text_up(pixmap, axes.y_label, 18.0, y_at, 2.0, INK);
    text(pixmap, axes.title, left, 20.0, 2.0, INK);
}

/// What a legend's entry shows beside its text.
#[derive(Clone, Copy)]
pub enum Key {
    Marker(Marker),
    /// A short stretch of line.
    Line,
}

/// A legend of `entries` (key, colour, text) in a white box `width` pixels wide, its first
/// key centred at `at` and each next one 24 pixels lower.
pub fn legend(pixmap: &mut Pixmap, at: (f32, f32), width: f32, entries: &[(Key, [u8; 3], String)]) {
    let (lx, mut ly) = at;
    let height = 24.0 * entries.len() as f32 + 8.0;
    if let Some(r) = Rect::from_xywh(lx - 20.0, ly - 16.0, width, height) {
        pixmap.fill_rect(r, &paint([255; 3]), Transform::identity(), None);
        let stroke = Stroke {
            width: 1.0,
            ..Stroke::default()
        };
        let path = PathBuilder::from_rect(r);
        pixmap.stroke_path(&path, &paint(GREY), &stroke, Transform::identity(), None);
    }
    for (key, rgb, s) in entries {
        match key {
            Key::Marker(m) => marker(pixmap, *m, (lx, ly), 6.0, *rgb),
            Key::Line => line(pixmap, (lx - 12.0, ly), (lx + 12.0, ly), *rgb, 2.0),
        }
        text(pixmap, s, lx + 20.0, ly - 5.0, 1.5, INK);
        ly += 24.0;
    }
}
