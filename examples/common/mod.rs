//! What every example shares: the standard command-line flags, and pictures of the run (a PNG of
//! the last frame, an animated GIF of every Nth step) drawn through batch2d's debug draw.
//!
//! Every example parses its command line with [`Cli::parse`] (or [`Cli::parse_with_switches`]),
//! so all take the same flags and behave alike: `--help` prints the usage to stdout and exits
//! 0; an unknown flag is an error that names it; `--steps`, `--threads`, `--png` and `--gif`
//! work everywhere.
//!
//! Each example compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod animation;
pub mod jointed;
pub mod render;

use animation::Animation;
use batch2d::scenes::{colors_in_use, Scene};
use batch2d::{World, WorldSettings};
use render::{render, world_bounds, Camera, Layers};
use std::process::ExitCode;
use std::time::Instant;

/// With `--features tracy-alloc`, every allocation and free of the example (the world's among
/// them) goes to Tracy's memory view; without a call stack each (depth 0), which would cost
/// far more than the allocation itself.
#[cfg(feature = "tracy-alloc")]
#[global_allocator]
static ALLOCATOR: tracy_client::ProfiledAllocator<std::alloc::System> =
    tracy_client::ProfiledAllocator::new(std::alloc::System, 0);

/// The flags every example takes, described for its usage line.
pub const FLAGS: &str = "[--steps N] [--threads N] [--png FILE] [--gif FILE] [--gif-every N] \
                         [--width PX] [--draw contacts,colors,aabbs] [--style smooth|flat]";

/// The flags of [`FLAGS`], each of which takes a value.
const STANDARD: [&str; 8] = [
    "--steps",
    "--threads",
    "--png",
    "--gif",
    "--gif-every",
    "--width",
    "--draw",
    "--style",
];

/// Standard options; `parse` fills them from the command line.
#[derive(Clone, Debug)]
pub struct Cli {
    /// Steps of 1/60 s to run.
    pub steps: usize,
    /// Worker threads, 0 = all cores. Default 0.
    pub threads: usize,
    /// Picture of the last step. Default none.
    pub png: Option<String>,
    /// Animation of the run. Default none.
    pub gif: Option<String>,
    /// Steps between animation frames. Default 4 (15 frames per second).
    pub gif_every: usize,
    /// Picture width in pixels. Default 1200 for the PNG, 600 for the GIF.
    pub width: Option<u32>,
    /// Overlays. Default none.
    pub layers: Layers,
    /// PNG without anti-aliasing, stored as an indexed palette image: several times smaller.
    /// Default false (`--style smooth`).
    pub flat: bool,
}

impl Cli {
    /// Defaults for an example that runs `steps` steps.
    pub fn new(steps: usize) -> Cli {
        Cli {
            steps,
            threads: 0,
            png: None,
            gif: None,
            gif_every: 4,
            width: None,
            layers: Layers::default(),
            flat: false,
        }
    }

    /// Parses the command line over `self`'s defaults. Every flag takes a value; flags not
    /// listed in [`FLAGS`] go to `extra(flag, value)`, which returns `Ok(false)` for a flag it
    /// does not know either. `-h` or `--help` prints `usage` to stdout and exits with success.
    pub fn parse(
        self,
        usage: &str,
        extra: impl FnMut(&str, &str) -> Result<bool, String>,
    ) -> Result<Cli, String> {
        self.parse_with_switches(usage, &[], extra)
    }

    /// [`Cli::parse`] for an example that also takes flags without a value (`switches`): each
    /// goes to `extra(flag, "")`.
    pub fn parse_with_switches(
        mut self,
        usage: &str,
        switches: &[&str],
        mut extra: impl FnMut(&str, &str) -> Result<bool, String>,
    ) -> Result<Cli, String> {
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            if flag == "-h" || flag == "--help" {
                println!("{usage}");
                std::process::exit(0);
            }
            if switches.contains(&flag.as_str()) {
                if !extra(&flag, "")? {
                    return Err(format!("unknown argument {flag}\n{usage}"));
                }
                continue;
            }
            let Some(value) = args.next() else {
                return Err(match STANDARD.contains(&flag.as_str()) {
                    true => format!("{flag} needs a value\n{usage}"),
                    false => {
                        format!("unknown argument {flag} (or a flag without its value)\n{usage}")
                    }
                });
            };
            let number = || number(&flag, &value);
            match flag.as_str() {
                "--steps" => self.steps = number()?,
                "--threads" => self.threads = number()?,
                "--png" => self.png = Some(value),
                "--gif" => self.gif = Some(value),
                "--gif-every" => self.gif_every = number()?.max(1),
                "--width" => {
                    let w = number()?;
                    if !(16..=8192).contains(&w) {
                        return Err(format!("--width: expected 16..=8192 pixels, got {w}"));
                    }
                    self.width = Some(w as u32);
                }
                "--draw" => self.layers = Layers::parse(&value)?,
                "--style" => {
                    self.flat = match value.as_str() {
                        "smooth" => false,
                        "flat" => true,
                        _ => return Err(format!("--style: expected smooth or flat, got {value}")),
                    }
                }
                _ => {
                    if !extra(&flag, &value)? {
                        return Err(format!("unknown argument {flag}\n{usage}"));
                    }
                }
            }
        }
        Ok(self)
    }
}

/// `value` as a count, or a message naming `flag`.
pub fn number(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .map_err(|_| format!("{flag}: not a number: {value}"))
}

/// Runs an example's body and turns its error into a message and a failing exit code.
pub fn main(run: impl FnOnce() -> Result<(), String>) -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}

/// Takes the pictures `cli` asks for while an example runs.
pub struct Recorder {
    png: Option<String>,
    png_width: u32,
    animation: Option<(Animation, Camera)>,
    every: usize,
    layers: Layers,
    flat: bool,
}

impl Recorder {
    /// Starts recording; the animation's first frame is `world` as it is now, and its camera
    /// stays where this frame puts it, so the scene does not jump about.
    pub fn start(cli: &Cli, world: &World) -> Result<Recorder, String> {
        let animation = match &cli.gif {
            None => None,
            Some(path) => {
                let camera = Camera::framing(bounds(world), cli.width.unwrap_or(600));
                // GIF delays are in hundredths of a second; steps are 1/60 s.
                let delay = ((cli.gif_every as f32 * 100.0 / 60.0).round() as u16).max(2);
                let mut a = Animation::create(path, camera.width, camera.height, delay)?;
                a.push(&render(world, &camera, cli.layers, false))?;
                Some((a, camera))
            }
        };
        Ok(Recorder {
            png: cli.png.clone(),
            png_width: cli.width.unwrap_or(1200),
            animation,
            every: cli.gif_every,
            layers: cli.layers,
            flat: cli.flat,
        })
    }

    /// Call after each step (numbered from 1): adds every Nth step to the animation.
    pub fn after_step(&mut self, world: &World, step: usize) -> Result<(), String> {
        if let Some((a, camera)) = &mut self.animation {
            if step.is_multiple_of(self.every) {
                a.push(&render(world, camera, self.layers, false))?;
            }
        }
        Ok(())
    }

    /// Writes the PNG of `world` (framed on its final state), closes the animation, and says
    /// which files were written.
    pub fn finish(self, world: &World) -> Result<(), String> {
        if let Some(path) = &self.png {
            let camera = Camera::framing(bounds(world), self.png_width);
            let picture = render(world, &camera, self.layers, !self.flat);
            if self.flat {
                animation::save_indexed_png(&picture, path)?;
            } else {
                picture.save_png(path).map_err(|e| format!("{path}: {e}"))?;
            }
            println!("wrote {path}");
        }
        if let Some((a, _)) = self.animation {
            println!("wrote {}", a.finish()?);
        }
        Ok(())
    }
}

/// The scene's bounds, or a unit box around the origin for an empty world.
fn bounds(world: &World) -> batch2d::Aabb {
    world_bounds(world).unwrap_or(batch2d::Aabb::new(
        batch2d::Vec2::new(-1.0, -1.0),
        batch2d::Vec2::new(1.0, 1.0),
    ))
}

/// Steps `world` `cli.steps` times at 1/60 s, recording pictures as `cli` asks and calling
/// `each(world, step)` after every step. Returns the wall time of each step in milliseconds,
/// and the recorder, to [`Recorder::finish`] once the example has printed its results.
pub fn run_steps(
    world: &mut World,
    cli: &Cli,
    mut each: impl FnMut(&World, usize),
) -> Result<(Vec<f64>, Recorder), String> {
    let mut recorder = Recorder::start(cli, world)?;
    let mut times = Vec::with_capacity(cli.steps);
    for step in 1..=cli.steps {
        let start = Instant::now();
        world.step(1.0 / 60.0).map_err(|e| e.to_string())?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        recorder.after_step(world, step)?;
        each(world, step);
    }
    Ok((times, recorder))
}

/// Prints the touching pairs and the graph colors after the last step (`expected`: a note on
/// how many pairs the scene has when it stands, or ""), then the step times.
pub fn print_pairs_and_timing(world: &World, expected: &str, times: &[f64]) {
    let (pairs, colors) = (world.contact_count(), colors_in_use(world));
    println!("touching pairs: {pairs}{expected}, colors: {colors}");
    println!("{}", timing(times));
}

/// Mean and median of per-step times, as a line of text.
pub fn timing(times: &[f64]) -> String {
    if times.is_empty() {
        return "no steps".to_string();
    }
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let median = if sorted.len().is_multiple_of(2) {
        0.5 * (sorted[mid - 1] + sorted[mid])
    } else {
        sorted[mid]
    };
    let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
    format!("ms/step mean {mean:.3}, median {median:.3}")
}

/// Parses the standard flags for a jointed demo and prints what it runs.
pub fn demo_cli(demo: jointed::Demo) -> Result<Cli, String> {
    let usage = format!("usage: {} {FLAGS}", demo.name());
    let cli = Cli::new(demo.steps()).parse(&usage, |_, _| Ok(false))?;
    println!("{}: {} steps of 1/60 s", demo.name(), cli.steps);
    Ok(cli)
}

/// The settings an example runs with: the defaults on `cli.threads` workers.
pub fn settings(cli: &Cli) -> WorldSettings {
    WorldSettings {
        threads: cli.threads,
        ..WorldSettings::default()
    }
}

/// Parses the standard flags for a standard scene and builds it.
pub fn scene_world(scene: Scene) -> Result<(Cli, World), String> {
    let usage = format!("usage: {} {FLAGS}", scene.name());
    let cli = Cli::new(scene.steps()).parse(&usage, |_, _| Ok(false))?;
    let settings = WorldSettings {
        threads: cli.threads,
        ..WorldSettings::default()
    };
    let world = scene.build(settings).map_err(|e| e.to_string())?;
    println!(
        "{}: {} bodies, {} steps of 1/60 s",
        scene.name(),
        world.body_count(),
        cli.steps
    );
    Ok((cli, world))
}
