//! Draws a world into a tiny-skia pixmap through batch2d's debug draw: a camera that frames the
//! scene, a fixed palette, and a [`DebugDraw`] implementation that gathers shapes into one path
//! per colour (20000 separate fills would take seconds; a handful of large ones takes
//! milliseconds).
//!
//! Shared by the examples, the viewer and `tests/physics/render.rs` (which includes this file by path).

use batch2d::{
    Aabb, BodyId, BodyKind, DebugBody, DebugContact, DebugDraw, DebugDrawOptions, DebugJoint, Vec2,
    World,
};
use tiny_skia::{
    Color, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform,
};

/// An opaque colour.
pub type Rgb = [u8; 3];

pub const BACKGROUND: Rgb = [250, 250, 247];
pub const STATIC: Rgb = [128, 128, 128];
pub const KINEMATIC: Rgb = [70, 90, 120];
/// Dynamic bodies are coloured in bands by creation order: a pile built row by row starts out
/// as horizontal layers, and the picture shows how it mixed.
pub const BANDS: [Rgb; 6] = [
    [214, 69, 65],
    [232, 145, 48],
    [222, 198, 58],
    [84, 168, 92],
    [62, 130, 196],
    [128, 88, 180],
];
/// Radius lines of circles, so rolling shows.
pub const MARK: Rgb = [30, 30, 30];
pub const AABB: Rgb = [200, 0, 200];
/// Joints: a dot at each anchor and a line between them.
pub const JOINT: Rgb = [0, 90, 90];
pub const CONTACT: Rgb = [210, 20, 20];
pub const NORMAL: Rgb = [20, 140, 40];
/// Contact points solved outside the graph colors (`DebugContact::color` is `None`).
pub const UNCOLORED: Rgb = [0, 0, 0];

/// Twelve hues, then the same twelve darker: one per graph color.
pub fn graph_color(k: usize) -> Rgb {
    const HUES: [Rgb; 12] = [
        [230, 25, 75],
        [60, 180, 75],
        [255, 200, 25],
        [0, 130, 200],
        [245, 130, 48],
        [145, 30, 180],
        [70, 240, 240],
        [240, 50, 230],
        [170, 210, 60],
        [250, 150, 190],
        [0, 128, 128],
        [170, 110, 40],
    ];
    let [r, g, b] = HUES[k % HUES.len()];
    if (k / HUES.len()).is_multiple_of(2) {
        [r, g, b]
    } else {
        [r / 2, g / 2, b / 2]
    }
}

/// The colour of the `index`-th dynamic body (creation order) out of `count`.
pub fn band_color(index: usize, count: usize) -> Rgb {
    BANDS[index * BANDS.len() / count.max(1)]
}

/// Every colour the renderer paints with. Without anti-aliasing each pixel is one of these, so
/// an animation can use them as its palette.
pub fn palette() -> Vec<Rgb> {
    let mut p = vec![
        BACKGROUND, STATIC, KINEMATIC, MARK, AABB, CONTACT, NORMAL, JOINT,
    ];
    p.extend_from_slice(&BANDS);
    p.push(UNCOLORED);
    // Every colour `graph_color` gives: twelve hues in two shades.
    p.extend((0..24).map(graph_color));
    p
}

/// Which overlays to draw on top of the shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers {
    /// Contact points and normals.
    pub contacts: bool,
    /// Contact points in the colour of their constraint's graph color.
    pub graph_colors: bool,
    /// Broadphase boxes.
    pub aabbs: bool,
    /// Joints' anchors. On by default: a jointed scene's structure shows only with them.
    pub joints: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            contacts: false,
            graph_colors: false,
            aabbs: false,
            joints: true,
        }
    }
}

impl Layers {
    /// Parses a comma-separated list of `contacts`, `colors`, `aabbs` (or `none`).
    pub fn parse(list: &str) -> Result<Layers, String> {
        let mut layers = Layers::default();
        for name in list.split(',').filter(|n| !n.is_empty()) {
            match name {
                "contacts" => layers.contacts = true,
                "colors" => layers.graph_colors = true,
                "aabbs" => layers.aabbs = true,
                "none" => {}
                _ => {
                    return Err(format!(
                        "unknown layer {name}: expected contacts, colors, aabbs"
                    ))
                }
            }
        }
        Ok(layers)
    }

    fn options(self) -> DebugDrawOptions {
        DebugDrawOptions {
            shapes: true,
            aabbs: self.aabbs,
            contacts: self.contacts || self.graph_colors,
            joints: self.joints,
        }
    }
}

/// Maps world coordinates (metres, y up) to pixels (y down).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World point at the centre of the picture.
    pub center: Vec2,
    /// Pixels per metre.
    pub scale: f32,
    pub width: u32,
    pub height: u32,
}

/// Pixels left free around the scene.
const MARGIN: f32 = 20.0;

impl Camera {
    /// A picture `width` pixels wide showing `bounds` with a margin; the height follows the
    /// scene's aspect ratio, capped at twice the width (a tall scene is shrunk instead).
    pub fn framing(bounds: Aabb, width: u32) -> Camera {
        let extent = (bounds.max - bounds.min).max(Vec2::new(1e-3, 1e-3));
        let w = width as f32;
        let max_height = 2.0 * w;
        let scale = ((w - 2.0 * MARGIN) / extent.x).min((max_height - 2.0 * MARGIN) / extent.y);
        let height = (extent.y * scale + 2.0 * MARGIN).ceil() as u32;
        Camera {
            center: (bounds.min + bounds.max) * 0.5,
            scale,
            width,
            height,
        }
    }

    /// A picture of exactly `width` x `height` pixels showing all of `bounds`, centred.
    pub fn fitting(bounds: Aabb, width: u32, height: u32) -> Camera {
        let extent = (bounds.max - bounds.min).max(Vec2::new(1e-3, 1e-3));
        let (w, h) = (width as f32, height as f32);
        let scale = ((w - 2.0 * MARGIN) / extent.x).min((h - 2.0 * MARGIN) / extent.y);
        Camera {
            center: (bounds.min + bounds.max) * 0.5,
            scale: scale.max(1e-6),
            width,
            height,
        }
    }

    /// The pixel (x right, y down, fractional) of world point `p`.
    pub fn to_pixel(self, p: Vec2) -> (f32, f32) {
        (
            0.5 * self.width as f32 + (p.x - self.center.x) * self.scale,
            0.5 * self.height as f32 - (p.y - self.center.y) * self.scale,
        )
    }

    /// The world point under pixel `(x, y)`.
    pub fn to_world(self, x: f32, y: f32) -> Vec2 {
        Vec2::new(
            self.center.x + (x - 0.5 * self.width as f32) / self.scale,
            self.center.y - (y - 0.5 * self.height as f32) / self.scale,
        )
    }
}

/// The bounds of every body's shape, skipping non-finite ones so that one runaway body cannot
/// blank the picture; `None` for an empty world.
pub fn world_bounds(world: &World) -> Option<Aabb> {
    let mut bounds = Bounds(None);
    world.debug_draw(&mut bounds, &DebugDrawOptions::default());
    bounds.0
}

struct Bounds(Option<Aabb>);

impl Bounds {
    fn add(&mut self, lo: Vec2, hi: Vec2) {
        if lo.is_finite() && hi.is_finite() {
            let b = Aabb::new(lo, hi);
            self.0 = Some(self.0.map_or(b, |a| a.union(&b)));
        }
    }
}

impl DebugDraw for Bounds {
    fn draw_circle(&mut self, _: DebugBody, center: Vec2, radius: f32, _: Vec2) {
        let r = Vec2::new(radius, radius);
        self.add(center - r, center + r);
    }

    fn draw_polygon(&mut self, _: DebugBody, vertices: &[Vec2], radius: f32) {
        let r = Vec2::new(radius, radius);
        let (lo, hi) = vertices
            .iter()
            .fold((vertices[0], vertices[0]), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        self.add(lo - r, hi + r);
    }
}

/// A picture of `world` through `camera`. Anti-aliased pictures look better; without
/// anti-aliasing every pixel is exactly a colour of [`palette`].
pub fn render(world: &World, camera: &Camera, layers: Layers, anti_alias: bool) -> Pixmap {
    let mut pixmap = Pixmap::new(camera.width.max(1), camera.height.max(1))
        .expect("a picture size within tiny-skia's limits");
    render_into(&mut pixmap, world, camera, layers, anti_alias);
    pixmap
}

/// Like [`render`], into an existing pixmap of the camera's size (the viewer reuses one).
pub fn render_into(
    pixmap: &mut Pixmap,
    world: &World,
    camera: &Camera,
    layers: Layers,
    anti_alias: bool,
) {
    let [r, g, b] = BACKGROUND;
    pixmap.fill(Color::from_rgba8(r, g, b, 255));
    let dynamic_count = world
        .bodies()
        .filter(|&id| world.body_kind(id) == Ok(BodyKind::Dynamic))
        .count();
    let mut painter = Painter::new(*camera, dynamic_count, layers);
    world.debug_draw(&mut painter, &layers.options());
    painter.paint(pixmap, anti_alias);
}

/// Body fills: one per band, then static, then kinematic.
const FILLS: usize = BANDS.len() + 2;

/// Collects the paths of one picture, one per colour.
struct Painter {
    camera: Camera,
    layers: Layers,
    dynamic_count: usize,
    dynamic_seen: usize,
    /// The last body drawn: a compound body's shapes come one after another and share its band.
    last_body: Option<BodyId>,
    fills: Vec<PathBuilder>,
    /// Outlines of rounded polygons with their fill index and rounding diameter (pixels),
    /// stroked in their fill colour.
    rounded: Vec<(usize, f32, PathBuilder)>,
    marks: PathBuilder,
    aabbs: PathBuilder,
    normals: PathBuilder,
    /// Lines between joint anchors, and the anchors' dots.
    joint_lines: PathBuilder,
    joint_dots: PathBuilder,
    /// Contact points per colour: [`CONTACT`] or a graph colour.
    points: Vec<(Rgb, PathBuilder)>,
}

impl Painter {
    fn new(camera: Camera, dynamic_count: usize, layers: Layers) -> Painter {
        Painter {
            camera,
            layers,
            dynamic_count,
            dynamic_seen: 0,
            last_body: None,
            fills: (0..FILLS).map(|_| PathBuilder::new()).collect(),
            rounded: Vec::new(),
            marks: PathBuilder::new(),
            aabbs: PathBuilder::new(),
            normals: PathBuilder::new(),
            joint_lines: PathBuilder::new(),
            joint_dots: PathBuilder::new(),
            points: Vec::new(),
        }
    }

    /// The fill index of a body; bodies arrive in slot order, so dynamic ones are counted.
    fn fill_of(&mut self, body: DebugBody) -> usize {
        match body.kind {
            BodyKind::Fixed => BANDS.len(),
            BodyKind::Kinematic => BANDS.len() + 1,
            BodyKind::Dynamic => {
                if self.last_body != Some(body.id) {
                    self.dynamic_seen += 1;
                    self.last_body = Some(body.id);
                }
                (self.dynamic_seen - 1) * BANDS.len() / self.dynamic_count.max(1)
            }
        }
    }

    fn fill_color(fill: usize) -> Rgb {
        match fill {
            f if f < BANDS.len() => BANDS[f],
            f if f == BANDS.len() => STATIC,
            _ => KINEMATIC,
        }
    }

    fn point_path(&mut self, color: Rgb) -> &mut PathBuilder {
        let i = match self.points.iter().position(|(c, _)| *c == color) {
            Some(i) => i,
            None => {
                self.points.push((color, PathBuilder::new()));
                self.points.len() - 1
            }
        };
        &mut self.points[i].1
    }

    fn paint(self, pixmap: &mut Pixmap, anti_alias: bool) {
        let mut paint = Paint {
            anti_alias,
            ..Paint::default()
        };
        let id = Transform::identity();
        let mut fill = |pixmap: &mut Pixmap, pb: PathBuilder, [r, g, b]: Rgb| {
            if let Some(path) = pb.finish() {
                paint.set_color_rgba8(r, g, b, 255);
                pixmap.fill_path(&path, &paint, FillRule::Winding, id, None);
            }
        };
        let scale = self.camera.scale;
        for (i, pb) in self.fills.into_iter().enumerate() {
            fill(pixmap, pb, Painter::fill_color(i));
        }
        let stroke = |pixmap: &mut Pixmap, pb: PathBuilder, [r, g, b]: Rgb, width: f32| {
            if let Some(path) = pb.finish() {
                let mut paint = Paint {
                    anti_alias,
                    ..Paint::default()
                };
                paint.set_color_rgba8(r, g, b, 255);
                let stroke = Stroke {
                    width,
                    line_cap: LineCap::Round,
                    line_join: LineJoin::Round,
                    ..Stroke::default()
                };
                pixmap.stroke_path(&path, &paint, &stroke, id, None);
            }
        };
        for (fill, diameter, pb) in self.rounded {
            stroke(pixmap, pb, Painter::fill_color(fill), diameter);
        }
        stroke(pixmap, self.marks, MARK, (0.06 * scale).clamp(0.5, 2.0));
        stroke(
            pixmap,
            self.joint_lines,
            JOINT,
            (0.04 * scale).clamp(1.0, 2.0),
        );
        fill(pixmap, self.joint_dots, JOINT);
        stroke(pixmap, self.aabbs, AABB, 1.0);
        stroke(pixmap, self.normals, NORMAL, 1.0);
        for (color, pb) in self.points {
            fill(pixmap, pb, color);
        }
    }
}

impl DebugDraw for Painter {
    fn draw_circle(&mut self, body: DebugBody, center: Vec2, radius: f32, axis: Vec2) {
        let fill = self.fill_of(body);
        let (x, y) = self.camera.to_pixel(center);
        self.fills[fill].push_circle(x, y, radius * self.camera.scale);
        // Below a few pixels the line would hide the colour of the disc.
        if radius * self.camera.scale >= 3.0 {
            let (ex, ey) = self.camera.to_pixel(center + axis * radius);
            self.marks.move_to(x, y);
            self.marks.line_to(ex, ey);
        }
    }

    fn draw_polygon(&mut self, body: DebugBody, vertices: &[Vec2], radius: f32) {
        let fill = self.fill_of(body);
        let camera = self.camera;
        let outline = |pb: &mut PathBuilder| {
            let (x, y) = camera.to_pixel(vertices[0]);
            pb.move_to(x, y);
            for &v in &vertices[1..] {
                let (x, y) = camera.to_pixel(v);
                pb.line_to(x, y);
            }
            pb.close();
        };
        outline(&mut self.fills[fill]);
        // A rounded polygon is its core grown by the radius: the core's outline stroked with
        // round joins at twice the radius covers exactly the rim. A segment (two vertices) has
        // no area to fill: it gets a line at least 2 px wide, so that terrain shows.
        let mut diameter = 2.0 * radius * camera.scale;
        if vertices.len() == 2 {
            diameter = diameter.max(2.0);
        }
        if diameter >= 0.5 {
            let mut pb = PathBuilder::new();
            outline(&mut pb);
            self.rounded.push((fill, diameter, pb));
        }
    }

    fn draw_aabb(&mut self, _: DebugBody, aabb: Aabb) {
        let (x0, y0) = self.camera.to_pixel(aabb.min);
        let (x1, y1) = self.camera.to_pixel(aabb.max);
        self.aabbs.move_to(x0, y0);
        self.aabbs.line_to(x1, y0);
        self.aabbs.line_to(x1, y1);
        self.aabbs.line_to(x0, y1);
        self.aabbs.close();
    }

    fn draw_joint(&mut self, j: &DebugJoint) {
        let a = self.camera.to_pixel(j.anchor_a);
        let b = self.camera.to_pixel(j.anchor_b);
        // A dot that grows with the zoom but stays visible when zoomed out.
        let radius = (0.05 * self.camera.scale).clamp(1.5, 3.0);
        self.joint_dots.push_circle(a.0, a.1, radius);
        if (b.0 - a.0).hypot(b.1 - a.1) >= 1.0 {
            self.joint_dots.push_circle(b.0, b.1, radius);
            self.joint_lines.move_to(a.0, a.1);
            self.joint_lines.line_to(b.0, b.1);
        }
    }

    fn draw_contact(&mut self, c: &DebugContact) {
        let (x, y) = self.camera.to_pixel(c.point);
        let color = if self.layers.graph_colors {
            c.color.map_or(UNCOLORED, |k| graph_color(usize::from(k)))
        } else {
            CONTACT
        };
        // Points stay visible at any zoom: a fixed size in pixels.
        let half = 1.5;
        if let Some(square) = tiny_skia::Rect::from_xywh(x - half, y - half, 2.0 * half, 2.0 * half)
        {
            self.point_path(color).push_rect(square);
        }
        if self.layers.contacts {
            let (ex, ey) = (x + 10.0 * c.normal.x, y - 10.0 * c.normal.y);
            self.normals.move_to(x, y);
            self.normals.line_to(ex, ey);
        }
    }
}
