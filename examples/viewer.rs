//! Interactive viewer: watch the standard scenes run, poke at them, and see what each stage of
//! the step costs.
//!
//! ```text
//! cargo run --release --features viewer --example viewer -- [--scene N] [--threads N] [--steps N]
//! ```
//!
//! Needs an X11 display (the `viewer` feature pulls in `minifb`, which loads libX11 at run
//! time). Keys: `1`-`5` the standard scenes, `6` a small playground (the start scene), `7`
//! ragdoll, `8` car, `9` bridge, `0` chain (the jointed examples' scenes); `N` the next scene,
//! which also reaches scene 11, the joint grid, and 12, the stirred bin; `Space` pause, `S` one
//! step while paused, `R` reset; `C` / `B` drop a circle / box at the cursor, `D` a concave
//! star (decomposed into convex pieces), `H` one body of 100 boxes; `M` the scene's
//! joint motors: run, brake (held at speed 0), off, in turn; `V` reverse the motors (the car
//! backs up); `K` contacts, `G` graph colors, `A` bounding boxes, `J` joints; `F` frame the
//! scene; `Esc` quit.
//! Mouse: left-drag a dynamic body, right-drag to pan, wheel to zoom. `--scene N` starts with
//! scene N (1-12, as the keys number them); `--steps N` quits after N frames (for scripted
//! checks); `--draw contacts,colors,aabbs` starts with overlays on.
//! `--screenshot FILE` writes the last frame shown, status lines included, to a PNG and quits
//! (after `--steps` frames, 60 by default): CI runs it under Xvfb and checks that bodies were
//! drawn (`.ci/run`, `tests/viewer_screenshot.rs`).

mod common;
mod viewer {
    pub mod font;
}

use batch2d::scenes::Scene;
use batch2d::{
    BodyDef, BodyId, BodyKind, DebugBody, DebugDraw, DebugDrawOptions, JointId, Profile, Shape,
    ShapeDef, Vec2, World, WorldSettings,
};
use common::jointed::Demo;
use common::render::{render_into, world_bounds, Camera, Layers};
use common::Cli;
use minifb::{InputCallback, Key, MouseButton, MouseMode, Window, WindowOptions};
use std::cell::RefCell;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;
use tiny_skia::Pixmap;
use viewer::font::{draw_text, LINE};

const WIDTH: usize = 1280;
const HEIGHT: usize = 720;
const DT: f32 = 1.0 / 60.0;
/// How fast a dragged body closes the gap to the cursor (1/s), and its top speed (m/s).
const DRAG_GAIN: f32 = 10.0;
const DRAG_MAX_SPEED: f32 = 50.0;
/// Status text drawn over the scene, and the band behind it.
const TEXT: u32 = 0x00ff_ffff;
const PANEL: u32 = 0x0020_2428;
const STATUS_LINES: usize = 4;

/// The scenes behind the number keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Standard(Scene),
    Playground,
    Demo(Demo),
}

/// How many scenes the viewer numbers: the first five contact scenes, the playground, the four
/// jointed demos, the joint grid and the stirred bin.
const CHOICES: usize = 12;

impl Choice {
    /// Scene `n` in 1..=[`CHOICES`]: `1`-`5` the first contact scenes of `Scene::ALL`, `6` the
    /// playground, `7`-`10` the jointed demos, `11` the joint grid, `12` the stirred bin (the
    /// last of `Scene::ALL`, after the number keys had all been taken).
    fn from_number(n: usize) -> Option<Choice> {
        match n {
            1..=5 => Some(Choice::Standard(Scene::ALL[n - 1])),
            6 => Some(Choice::Playground),
            7..=10 => Some(Choice::Demo(Demo::ALL[n - 7])),
            11 => Some(Choice::Standard(Scene::JointGrid)),
            12 => Some(Choice::Standard(Scene::StirredBin)),
            _ => None,
        }
    }

    /// The inverse of [`Choice::from_number`].
    fn number(self) -> usize {
        (1..=CHOICES)
            .find(|&n| Choice::from_number(n) == Some(self))
            .unwrap_or(6)
    }

    fn name(self) -> &'static str {
        match self {
            Choice::Standard(s) => s.name(),
            Choice::Playground => "playground",
            Choice::Demo(d) => d.name(),
        }
    }

    fn build(self, threads: usize) -> Result<World, String> {
        let settings = WorldSettings {
            threads,
            ..WorldSettings::default()
        };
        match self {
            Choice::Standard(s) => s.build(settings).map_err(|e| e.to_string()),
            Choice::Playground => playground(settings).map_err(|e| e.to_string()),
            Choice::Demo(d) => d.build(settings).map_err(|e| e.to_string()),
        }
    }
}

/// A small pyramid, a few balls, a concave star, a body of 100 boxes and a slowly turning
/// kinematic paddle: room to drag things.
fn playground(settings: WorldSettings) -> Result<World, batch2d::Error> {
    let mut world = World::new(settings);
    world.add_body(
        BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
        ShapeDef::new(Shape::rect(30.0, 1.0)?),
    )?;
    world.add_body(
        BodyDef::kinematic()
            .position(Vec2::new(-14.0, 6.0))
            .angular_velocity(1.0),
        ShapeDef::new(Shape::rect(3.0, 0.25)?),
    )?;
    for row in 0..10 {
        for i in 0..10 - row {
            let x = 4.0 + (i as f32 - (9 - row) as f32 * 0.5) * 1.05;
            world.add_body(
                BodyDef::dynamic().position(Vec2::new(x, 0.5 + row as f32)),
                ShapeDef::new(Shape::rect(0.5, 0.5)?),
            )?;
        }
    }
    for i in 0..12 {
        world.add_body(
            BodyDef::dynamic().position(Vec2::new(-8.0 + 0.3 * (i % 3) as f32, 2.0 + i as f32)),
            ShapeDef::new(Shape::circle(0.4)?).restitution(0.3),
        )?;
    }
    world.add_compound_body(BodyDef::dynamic().position(Vec2::new(-3.0, 2.0)), &star()?)?;
    world.add_compound_body(
        BodyDef::dynamic().position(Vec2::new(-3.0, 6.0)),
        &grid_of_boxes()?,
    )?;
    Ok(world)
}

/// A concave five-pointed star, cut into convex pieces by `Shape::decompose`.
fn star() -> Result<Vec<ShapeDef>, batch2d::Error> {
    let outline: Vec<Vec2> = (0..10)
        .map(|i| {
            let radius = if i % 2 == 0 { 1.2 } else { 0.5 };
            let angle = std::f32::consts::FRAC_PI_2 + i as f32 * std::f32::consts::PI / 5.0;
            Vec2::new(radius * angle.cos(), radius * angle.sin())
        })
        .collect();
    Ok(Shape::decompose(&outline)?
        .into_iter()
        .map(ShapeDef::new)
        .collect())
}

/// A 2 m square of 100 small boxes with gaps between them: one compound body.
fn grid_of_boxes() -> Result<Vec<ShapeDef>, batch2d::Error> {
    let mut shapes = Vec::with_capacity(100);
    for i in 0..10 {
        for j in 0..10 {
            let at = Vec2::new(i as f32 * 0.2 - 0.9, j as f32 * 0.2 - 0.9);
            shapes.push(ShapeDef::new(Shape::offset_rect(0.08, 0.08, at, 0.0)?));
        }
    }
    Ok(shapes)
}

/// Finds the dynamic body under a point.
struct Picker {
    point: Vec2,
    hit: Option<BodyId>,
}

impl DebugDraw for Picker {
    fn draw_circle(&mut self, body: DebugBody, center: Vec2, radius: f32, _: Vec2) {
        if body.kind == BodyKind::Dynamic && (self.point - center).length() <= radius {
            self.hit = Some(body.id);
        }
    }

    fn draw_polygon(&mut self, body: DebugBody, vertices: &[Vec2], radius: f32) {
        let n = vertices.len();
        // Counter-clockwise: inside when on the left of (or within the rounding of) every edge.
        let inside = (0..n).all(|i| {
            let (a, b) = (vertices[i], vertices[(i + 1) % n]);
            let edge = b - a;
            edge.cross(self.point - a) >= -radius * edge.length()
        });
        if body.kind == BodyKind::Dynamic && inside {
            self.hit = Some(body.id);
        }
    }
}

/// A body held by the mouse, and where on it (body frame).
struct Drag {
    body: BodyId,
    anchor: Vec2,
}

/// What the `M` key has the scene's joint motors do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Motors {
    /// Drive at their speeds (reversed by `V`).
    Run,
    /// Hold the joints' turn or slide at speed 0, with their usual torque or force.
    Brake,
    /// Switched off: the joints turn or slide freely.
    Off,
}

impl Motors {
    fn next(self) -> Motors {
        match self {
            Motors::Run => Motors::Brake,
            Motors::Brake => Motors::Off,
            Motors::Off => Motors::Run,
        }
    }
}

struct Viewer {
    choice: Choice,
    threads: usize,
    world: World,
    /// The joints whose motors ran when the scene was built, with their speed and torque or
    /// force, and what the `M` and `V` keys have them do now.
    motors: Vec<(JointId, f32, f32)>,
    motor_mode: Motors,
    reversed: bool,
    camera: Camera,
    layers: Layers,
    paused: bool,
    drag: Option<Drag>,
    /// Cursor in world coordinates, when it is over the window.
    cursor: Option<Vec2>,
    /// Cursor position (pixels) at the last frame, for panning.
    pan_from: Option<(f32, f32)>,
    /// Running averages of the step profile and of the wall time of a step.
    profile: Profile,
    step_ms: f64,
    steps: usize,
}

impl Viewer {
    fn new(choice: Choice, threads: usize) -> Result<Viewer, String> {
        let world = choice.build(threads)?;
        // Joints of a kind without a motor answer `Err`, those with a motor switched off
        // `None`: neither has a motor to drive.
        let motors = world
            .joints()
            .filter_map(|id| Some((id, world.joint_motor(id).ok()??)))
            .map(|(id, (speed, max))| (id, speed, max))
            .collect();
        let mut v = Viewer {
            choice,
            threads,
            camera: Camera::fitting(scene_bounds(&world), WIDTH as u32, HEIGHT as u32),
            world,
            motors,
            motor_mode: Motors::Run,
            reversed: false,
            layers: Layers::default(),
            paused: false,
            drag: None,
            cursor: None,
            pan_from: None,
            profile: Profile::default(),
            step_ms: 0.0,
            steps: 0,
        };
        v.frame_scene();
        Ok(v)
    }

    fn load(&mut self, choice: Choice) -> Result<(), String> {
        let layers = self.layers;
        *self = Viewer::new(choice, self.threads)?;
        self.layers = layers;
        Ok(())
    }

    /// Frames the scene below the status lines.
    fn frame_scene(&mut self) {
        let top = (STATUS_LINES * LINE + 8) as u32;
        let mut camera =
            Camera::fitting(scene_bounds(&self.world), WIDTH as u32, HEIGHT as u32 - top);
        // Same scale and centre, in the full window: shift the centre up by half the band.
        camera.center.y += 0.5 * top as f32 / camera.scale;
        camera.width = WIDTH as u32;
        camera.height = HEIGHT as u32;
        self.camera = camera;
    }

    fn step(&mut self) -> Result<(), String> {
        if let (Some(drag), Some(cursor)) = (&self.drag, self.cursor) {
            let held = self
                .world
                .transform(drag.body)
                .map(|xf| xf.apply(drag.anchor));
            if let Ok(anchor) = held {
                let mut v = (cursor - anchor) * DRAG_GAIN;
                if v.length() > DRAG_MAX_SPEED {
                    v = v * (DRAG_MAX_SPEED / v.length());
                }
                self.world
                    .set_linear_velocity(drag.body, v)
                    .map_err(|e| e.to_string())?;
            }
        }
        let start = Instant::now();
        self.world.step(DT).map_err(|e| e.to_string())?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        // An exponential average over about 30 steps: steady enough to read, quick to follow.
        let k = if self.steps == 0 { 1.0 } else { 1.0 / 30.0 };
        let p = self.world.profile();
        let avg = |a: f64, b: f64| a + (b - a) * k;
        self.profile = Profile {
            broad_phase: avg(self.profile.broad_phase, p.broad_phase),
            narrow_phase: avg(self.profile.narrow_phase, p.narrow_phase),
            coloring: avg(self.profile.coloring, p.coloring),
            solve: avg(self.profile.solve, p.solve),
            finalize: avg(self.profile.finalize, p.finalize),
            total: avg(self.profile.total, p.total),
        };
        self.step_ms = avg(self.step_ms, ms);
        self.steps += 1;
        Ok(())
    }
}

/// The scene's bounds, or a box around the origin for an empty world.
fn scene_bounds(world: &World) -> batch2d::Aabb {
    world_bounds(world).unwrap_or(batch2d::Aabb::new(
        Vec2::new(-10.0, -1.0),
        Vec2::new(10.0, 10.0),
    ))
}

impl Viewer {
    /// Keys that act once per press.
    fn keys(&mut self, presses: &KeyPresses) -> Result<bool, String> {
        let keys = std::mem::take(&mut *presses.0.borrow_mut());
        for key in keys {
            let number = match key {
                Key::Key1 => Some(1),
                Key::Key2 => Some(2),
                Key::Key3 => Some(3),
                Key::Key4 => Some(4),
                Key::Key5 => Some(5),
                Key::Key6 => Some(6),
                Key::Key7 => Some(7),
                Key::Key8 => Some(8),
                Key::Key9 => Some(9),
                Key::Key0 => Some(10),
                Key::N => Some(self.choice.number() % CHOICES + 1),
                _ => None,
            };
            if let Some(choice) = number.and_then(Choice::from_number) {
                self.load(choice)?;
                continue;
            }
            match key {
                Key::Escape => return Ok(false),
                Key::Space => self.paused = !self.paused,
                Key::S if self.paused => self.step()?,
                Key::R => self.load(self.choice)?,
                Key::F => self.frame_scene(),
                Key::K => self.layers.contacts = !self.layers.contacts,
                Key::G => self.layers.graph_colors = !self.layers.graph_colors,
                Key::A => self.layers.aabbs = !self.layers.aabbs,
                Key::J => self.layers.joints = !self.layers.joints,
                Key::C => self.spawn(Shape::circle(0.5).map_err(|e| e.to_string())?)?,
                Key::B => self.spawn(Shape::rect(0.5, 0.5).map_err(|e| e.to_string())?)?,
                Key::D => self.spawn_compound(star().map_err(|e| e.to_string())?)?,
                Key::H => self.spawn_compound(grid_of_boxes().map_err(|e| e.to_string())?)?,
                Key::M => {
                    self.motor_mode = self.motor_mode.next();
                    self.drive_motors()?;
                }
                Key::V => {
                    self.reversed = !self.reversed;
                    self.drive_motors()?;
                }
                _ => {}
            }
        }
        Ok(true)
    }

    /// Sets the scene's joint motors as the `M` and `V` keys chose, from the next step on.
    fn drive_motors(&mut self) -> Result<(), String> {
        let sign = if self.reversed { -1.0 } else { 1.0 };
        for &(id, speed, max) in &self.motors {
            let set = match self.motor_mode {
                Motors::Run => self.world.set_joint_motor(id, sign * speed, max),
                Motors::Brake => self.world.set_joint_motor(id, 0.0, max),
                Motors::Off => self.world.enable_joint_motor(id, false),
            };
            set.map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn spawn(&mut self, shape: Shape) -> Result<(), String> {
        if let Some(p) = self.cursor {
            self.world
                .add_body(BodyDef::dynamic().position(p), ShapeDef::new(shape))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Drops one body made of `shapes` at the cursor.
    fn spawn_compound(&mut self, shapes: Vec<ShapeDef>) -> Result<(), String> {
        if let Some(p) = self.cursor {
            self.world
                .add_compound_body(BodyDef::dynamic().position(p), &shapes)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Dragging, panning and zooming.
    fn mouse(&mut self, window: &Window) {
        let pixel = window.get_mouse_pos(MouseMode::Discard);
        self.cursor = pixel.map(|(x, y)| self.camera.to_world(x, y));

        if window.get_mouse_down(MouseButton::Left) {
            if self.drag.is_none() {
                if let Some(point) = self.cursor {
                    let mut picker = Picker { point, hit: None };
                    self.world
                        .debug_draw(&mut picker, &DebugDrawOptions::default());
                    self.drag = picker.hit.and_then(|body| {
                        let xf = self.world.transform(body).ok()?;
                        Some(Drag {
                            body,
                            anchor: xf.inv_apply(point),
                        })
                    });
                }
            }
        } else {
            self.drag = None;
        }

        match (window.get_mouse_down(MouseButton::Right), pixel) {
            (true, Some((x, y))) => {
                if let Some((x0, y0)) = self.pan_from {
                    self.camera.center.x -= (x - x0) / self.camera.scale;
                    self.camera.center.y += (y - y0) / self.camera.scale;
                }
                self.pan_from = Some((x, y));
            }
            _ => self.pan_from = None,
        }

        if let (Some((_, wheel)), Some((x, y))) = (window.get_scroll_wheel(), pixel) {
            // Zoom about the cursor: the world point under it stays under it.
            let before = self.camera.to_world(x, y);
            self.camera.scale *= 1.1f32.powf(wheel.signum());
            let after = self.camera.to_world(x, y);
            self.camera.center += before - after;
        }
    }

    fn status(&self) -> [String; STATUS_LINES] {
        let p = &self.profile;
        let on = |b: bool| if b { "on" } else { "off" };
        [
            format!(
                "[{}] {}  bodies {}  joints {}  contacts {}  colors {}  step {}{}",
                self.choice.number(),
                self.choice.name(),
                self.world.body_count(),
                self.world.joint_count(),
                self.world.contact_count(),
                batch2d::scenes::colors_in_use(&self.world),
                self.steps,
                if self.paused { "  PAUSED" } else { "" },
            ),
            format!(
                "ms/step {:.2}  broad {:.2}  narrow {:.2}  coloring {:.2}  solve {:.2}  finalize {:.2}",
                self.step_ms, p.broad_phase, p.narrow_phase, p.coloring, p.solve, p.finalize
            ),
            format!(
                "overlays: K contacts {}  G colors {}  A aabbs {}  J joints {}    \
                 motors ({}): M {:?}  V {}",
                on(self.layers.contacts),
                on(self.layers.graph_colors),
                on(self.layers.aabbs),
                on(self.layers.joints),
                self.motors.len(),
                self.motor_mode,
                if self.reversed { "reversed" } else { "forward" },
            ),
            "1-5 scenes 6 playground 7-0 ragdoll car bridge chain  N next (11 joint grid, 12 stirred bin)  \
             space pause  S step  R reset  C/B/D/H spawn  F frame  drag/pan/zoom  esc quit"
                .to_string(),
        ]
    }
}

/// Every key press since the last frame. Polling key states once a frame would miss a press
/// released within one slow frame (a large scene can take 100 ms a frame), so the window
/// reports each press to this queue as it happens.
#[derive(Clone, Default)]
struct KeyPresses(Rc<RefCell<Vec<Key>>>);

impl InputCallback for KeyPresses {
    fn add_char(&mut self, _: u32) {}

    fn set_key_state(&mut self, key: Key, down: bool) {
        if down {
            self.0.borrow_mut().push(key);
        }
    }
}

/// tiny-skia's premultiplied RGBA (opaque here) to minifb's 0RGB.
fn to_buffer(pixmap: &Pixmap, buffer: &mut [u32]) {
    for (out, p) in buffer.iter_mut().zip(pixmap.pixels()) {
        *out = (p.red() as u32) << 16 | (p.green() as u32) << 8 | p.blue() as u32;
    }
}

/// Writes the window's 0RGB pixels to `path` as an RGB PNG.
fn save_screenshot(buffer: &[u32], path: &str) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{path}: {e}");
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), WIDTH as u32, HEIGHT as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let rgb: Vec<u8> = buffer
        .iter()
        .flat_map(|&p| [(p >> 16) as u8, (p >> 8) as u8, p as u8])
        .collect();
    let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
    writer.write_image_data(&rgb).map_err(|e| fail(&e))?;
    writer.finish().map_err(|e| fail(&e))
}

fn run() -> Result<(), String> {
    let mut scene = 6;
    let mut screenshot: Option<String> = None;
    let usage = format!(
        "usage: viewer [--scene 1-{CHOICES}] [--screenshot FILE] {}",
        common::FLAGS
    );
    let cli = Cli::new(usize::MAX).parse(&usage, |flag, value| match flag {
        "--scene" => {
            scene = common::number(flag, value)?;
            Ok(true)
        }
        "--screenshot" => {
            screenshot = Some(value.to_string());
            Ok(true)
        }
        _ => Ok(false),
    })?;
    let choice =
        Choice::from_number(scene).ok_or(format!("--scene: expected 1-{CHOICES}, got {scene}"))?;
    // `--steps` caps the frames shown, so a scripted check ends by itself; a screenshot is
    // taken after a second of simulation unless `--steps` says otherwise.
    let frames = match (&screenshot, cli.steps) {
        (Some(_), usize::MAX) => 60,
        (_, steps) => steps,
    };

    let mut window = Window::new("batch2d viewer", WIDTH, HEIGHT, WindowOptions::default())
        .map_err(|e| format!("cannot open a window (is there an X11 display?): {e}"))?;
    window.set_target_fps(60);
    let presses = KeyPresses::default();
    window.set_input_callback(Box::new(presses.clone()));

    let mut viewer = Viewer::new(choice, cli.threads)?;
    viewer.layers = cli.layers;
    let mut pixmap = Pixmap::new(WIDTH as u32, HEIGHT as u32).ok_or("bad window size")?;
    let mut buffer = vec![0u32; WIDTH * HEIGHT];
    let mut frame = 0;
    while window.is_open() && frame < frames {
        if !viewer.keys(&presses)? {
            break;
        }
        viewer.mouse(&window);
        if !viewer.paused {
            viewer.step()?;
        }
        render_into(
            &mut pixmap,
            &viewer.world,
            &viewer.camera,
            viewer.layers,
            true,
        );
        to_buffer(&pixmap, &mut buffer);
        let band = (STATUS_LINES * LINE + 8) * WIDTH;
        buffer[..band].fill(PANEL);
        for (i, line) in viewer.status().iter().enumerate() {
            draw_text(&mut buffer, WIDTH, 8, 6 + i * LINE, line, TEXT);
        }
        window
            .update_with_buffer(&buffer, WIDTH, HEIGHT)
            .map_err(|e| e.to_string())?;
        frame += 1;
    }
    if let Some(path) = &screenshot {
        save_screenshot(&buffer, path)?;
        println!("wrote {path} after {frame} frames");
    }
    Ok(())
}

fn main() -> ExitCode {
    common::main(run)
}
