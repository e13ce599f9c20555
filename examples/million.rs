//! A million circles fall into a container: the `particle_pile` scene at 1000 rows of 1000.
//!
//! ```text
//! cargo run --release --example million -- [--steps N] [--threads N] [--rows N] [--cols N]
//!     [--png FILE] [--gif FILE] [--gif-every N] [--width PX] [--draw contacts,colors,aabbs]
//! cargo run --release --example million -- --scaling all [--scaling-threads 1,2] [--steps N]
//!     [--plot FILE]
//! ```
//!
//! Prints every 30th step's time, its split into stages per body, and the touching pairs, then
//! draws the final state to `million.png`. The world runs on the default settings, whose
//! bounds grow with it (`WorldSettings::max_pairs`).
//!
//! `--scaling` runs piles of several sizes instead (`all`: 50x20, 160x64, 500x200, 1000x400
//! and 1600x625, a thousand to a million circles; or a list such as `500x200,1000x400`), each
//! at every thread count of `--scaling-threads`, each in a process of its own so that its peak
//! memory is its own. It prints a table of the median ms per step, the ns per body and step
//! (the broadphase's from its mean), and the peak resident memory per body; `--plot` draws the
//! ns per body against the bodies, on a log scale, to a PNG.

mod common;

// The bench's plotting pieces, shared rather than copied; this example uses part of them.
#[allow(dead_code)]
#[path = "../benches/sweep/chart.rs"]
mod chart;

use batch2d::scenes::{particle_pile, Scene};
use batch2d::WorldSettings;
use chart::{line, marker, paint, text, text_up, text_width, ticks, Marker};
use chart::{BLUE, GREEN, GREY, INK, RED};
use common::Cli;
use tiny_skia::{Color, PathBuilder, Pixmap, Rect, Stroke, Transform};

fn main() -> std::process::ExitCode {
    common::main(|| run().map_err(|msg| format!("error: {msg}")))
}

/// The piles of `--scaling all`: about 1k, 10k, 100k, 400k and 1M circles.
const ALL_SIZES: &str = "50x20,160x64,500x200,1000x400,1600x625";

fn run() -> Result<(), String> {
    let (mut rows, mut cols) = (1000, 1000);
    let (mut scaling, mut scaling_threads, mut plot) = (None, "1,2".to_string(), None);
    let mut probe = false;
    let mut cli = Cli::new(240);
    cli.png = Some("million.png".to_string());
    let usage = format!(
        "usage: million {} [--rows N] [--cols N]\n       million --scaling all|RxC,RxC.. \
         [--scaling-threads N,N..] [--steps N] [--plot FILE]",
        common::FLAGS
    );
    let cli = cli.parse_with_switches(&usage, &["--probe"], |flag, value| {
        match flag {
            "--rows" => rows = common::number(flag, value)?,
            "--cols" => cols = common::number(flag, value)?,
            "--scaling" => scaling = Some(value.to_string()),
            "--scaling-threads" => scaling_threads = value.to_string(),
            "--plot" => plot = Some(value.to_string()),
            // One run of a scaling table, in the child process (see `scale`).
            "--probe" => probe = true,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    if let Some(sizes) = scaling {
        return scale(&sizes, &scaling_threads, cli.steps, plot.as_deref());
    }
    let settings = WorldSettings {
        gravity: Scene::ParticlePile.gravity(),
        ..common::settings(&cli)
    };
    let started = std::time::Instant::now();
    let mut world = particle_pile(rows, cols, settings).map_err(|e| e.to_string())?;
    let bodies = world.body_count();
    if probe {
        return run_probe(&mut world, &cli);
    }
    println!(
        "million: {bodies} bodies built in {:.1} s, {} steps of 1/60 s",
        started.elapsed().as_secs_f64(),
        cli.steps
    );
    let per_body = 1e6 / bodies as f64;
    let (times, recorder) = common::run_steps(&mut world, &cli, |world, step| {
        if step % 30 == 0 {
            let p = world.profile();
            println!(
                "step {step:4}: {:7.1} ms, ns/body: broadphase {:.0}, narrowphase {:.0}, \
                 solve {:.0}; {} touching pairs",
                p.total,
                p.broad_phase * per_body,
                p.narrow_phase * per_body,
                p.solve * per_body,
                world.contact_count()
            );
        }
    })?;
    println!("{}", common::timing(&times));
    recorder.finish(&world)
}

/// One run of the scaling table: steps `world` and prints one line the parent reads.
fn run_probe(world: &mut batch2d::World, cli: &Cli) -> Result<(), String> {
    let quiet = Cli {
        png: None,
        gif: None,
        ..cli.clone()
    };
    let mut broad_phase = 0.0;
    let (mut times, _) = common::run_steps(world, &quiet, |world, _| {
        broad_phase += world.profile().broad_phase;
    })?;
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
    let broad_phase = broad_phase / times.len().max(1) as f64;
    println!(
        "probe {} {median} {broad_phase} {}",
        world.body_count(),
        peak_rss().unwrap_or(0)
    );
    Ok(())
}

/// The process's peak resident memory in bytes (`VmHWM`), where the system tells it.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// One row of the scaling table.
struct Row {
    bodies: usize,
    threads: usize,
    median_ms: f64,
    broad_phase_ms: f64,
    peak_rss: u64,
}

impl Row {
    fn ns_per_body(&self) -> f64 {
        self.median_ms * 1e6 / self.bodies as f64
    }
}

/// The scaling table: every pile of `sizes` at every thread count of `threads`, each run in a
/// child process of this example.
fn scale(sizes: &str, threads: &str, steps: usize, plot: Option<&str>) -> Result<(), String> {
    let sizes = if sizes == "all" { ALL_SIZES } else { sizes };
    let sizes = (sizes.split(','))
        .map(|s| {
            let (r, c) = s
                .split_once('x')
                .ok_or(format!("--scaling: not RxC: {s}"))?;
            Ok((
                common::number("--scaling", r)?,
                common::number("--scaling", c)?,
            ))
        })
        .collect::<Result<Vec<(usize, usize)>, String>>()?;
    let threads = (threads.split(','))
        .map(|t| common::number("--scaling-threads", t))
        .collect::<Result<Vec<usize>, String>>()?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    println!("particle piles, {steps} steps of 1/60 s from rest, default settings");
    println!("| bodies | threads | ms/step | ns/body | broadphase ns/body | peak RSS/body |");
    println!("|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    for &(r, c) in &sizes {
        for &t in &threads {
            let out = std::process::Command::new(&exe)
                .args([
                    "--probe",
                    "--rows",
                    &r.to_string(),
                    "--cols",
                    &c.to_string(),
                ])
                .args(["--threads", &t.to_string(), "--steps", &steps.to_string()])
                .output()
                .map_err(|e| format!("{}: {e}", exe.display()))?;
            let stdout = String::from_utf8_lossy(&out.stdout);
            let line = stdout.lines().find_map(|l| l.strip_prefix("probe "));
            let Some(line) = line.filter(|_| out.status.success()) else {
                let stderr = String::from_utf8_lossy(&out.stderr);
                return Err(format!("the {r}x{c} pile on {t} threads failed: {stderr}"));
            };
            let f: Vec<&str> = line.split_whitespace().collect();
            let parse = |k: usize| f.get(k).and_then(|v| v.parse::<f64>().ok());
            let (Some(bodies), Some(median_ms), Some(broad_phase_ms), Some(rss)) =
                (parse(0), parse(1), parse(2), parse(3))
            else {
                return Err(format!("unreadable probe line: {line}"));
            };
            let row = Row {
                bodies: bodies as usize,
                threads: t,
                median_ms,
                broad_phase_ms,
                peak_rss: rss as u64,
            };
            let rss = match row.peak_rss {
                0 => "?".to_string(),
                b => format!("{} B", b / row.bodies as u64),
            };
            println!(
                "| {} (`{r}x{c}`) | {t} | {:.2} | {:.0} | {:.0} | {rss} |",
                row.bodies,
                row.median_ms,
                row.ns_per_body(),
                row.broad_phase_ms * 1e6 / row.bodies as f64
            );
            rows.push(row);
        }
    }
    if let Some(path) = plot {
        draw(&rows, steps)
            .save_png(path)
            .map_err(|e| format!("{path}: {e}"))?;
        println!("plot: {path}");
    }
    Ok(())
}

/// The picture's size and the plot area's margins.
const W: u32 = 1100;
const H: u32 = 620;
const LEFT: f32 = 104.0;
const TOP: f32 = 60.0;
const PW: f32 = W as f32 - LEFT - 300.0;
const PH: f32 = H as f32 - TOP - 80.0;

/// ns per body and step against bodies, the bodies on a log scale: a line per thread count,
/// and the broadphase's share on one thread.
fn draw(rows: &[Row], steps: usize) -> Pixmap {
    let mut pixmap = Pixmap::new(W, H).expect("a plot of nonzero size");
    pixmap.fill(Color::WHITE);
    let log_lo = rows
        .iter()
        .map(|r| (r.bodies as f64).log10().floor())
        .fold(f64::MAX, f64::min);
    let log_hi = rows
        .iter()
        // (A pile of 1,000,003 circles ends the axis at a million, not ten million.)
        .map(|r| ((r.bodies as f64).log10() - 0.01).ceil())
        .fold(0.0, f64::max);
    let (log_lo, log_hi) = (log_lo.min(log_hi - 1.0), log_hi);
    let y_hi = rows
        .iter()
        .map(Row::ns_per_body)
        .filter(|y| y.is_finite())
        .fold(1.0, f64::max);
    let y_hi = y_hi * 1.15;
    let to_px = |bodies: f64, y: f64| {
        let x = (bodies.log10() - log_lo) / (log_hi - log_lo);
        (
            LEFT + x as f32 * PW,
            TOP + PH - (y.min(y_hi) / y_hi) as f32 * PH,
        )
    };
    for decade in log_lo as i32..=log_hi as i32 {
        let (px, _) = to_px(10f64.powi(decade), 0.0);
        line(&mut pixmap, (px, TOP), (px, TOP + PH), [225; 3], 1.0);
        let s = match decade {
            3 => "1k".to_string(),
            6 => "1M".to_string(),
            d if d > 3 && d < 6 => format!("{}k", 10u32.pow(d as u32 - 3)),
            d => format!("1E{d}"),
        };
        text(
            &mut pixmap,
            &s,
            px - text_width(&s, 2.0) / 2.0,
            TOP + PH + 8.0,
            2.0,
            INK,
        );
    }
    for t in ticks(0.0, y_hi) {
        let (_, py) = to_px(10f64.powf(log_lo), t);
        line(&mut pixmap, (LEFT, py), (LEFT + PW, py), [225; 3], 1.0);
        let s = format!("{t}");
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
        (LEFT, TOP + PH),
        (LEFT + PW, TOP + PH),
        INK,
        1.5,
    );
    line(&mut pixmap, (LEFT, TOP), (LEFT, TOP + PH), INK, 1.5);
    let x_label = "bodies (log scale)";
    let x_at = LEFT + (PW - text_width(x_label, 2.0)) / 2.0;
    text(&mut pixmap, x_label, x_at, H as f32 - 40.0, 2.0, INK);
    let y_label = "ns per body and step";
    let y_at = TOP + (PH + text_width(y_label, 2.0)) / 2.0;
    text_up(&mut pixmap, y_label, 18.0, y_at, 2.0, INK);
    let title = format!("particle piles, median of {steps} steps from rest");
    text(&mut pixmap, &title, LEFT, 20.0, 2.0, INK);

    // A series per thread count, and the broadphase on the first one.
    let mut thread_counts: Vec<usize> = rows.iter().map(|r| r.threads).collect();
    thread_counts.sort_unstable();
    thread_counts.dedup();
    let styles = [
        (Marker::Disc, BLUE),
        (Marker::Square, RED),
        (Marker::Diamond, GREEN),
    ];
    let mut legend = Vec::new();
    for (k, &t) in thread_counts.iter().enumerate() {
        let (m, rgb) = styles[k % styles.len()];
        let mut series: Vec<&Row> = rows.iter().filter(|r| r.threads == t).collect();
        series.sort_by_key(|r| r.bodies);
        let points: Vec<(f32, f32)> = (series.iter())
            .map(|r| to_px(r.bodies as f64, r.ns_per_body()))
            .collect();
        series_of(&mut pixmap, &points, m, rgb);
        let s = if t == 1 { "thread" } else { "threads" };
        legend.push((m, rgb, format!("batch2d, {t} {s}")));
        if k == 0 {
            let points: Vec<(f32, f32)> = (series.iter())
                .map(|r| to_px(r.bodies as f64, r.broad_phase_ms * 1e6 / r.bodies as f64))
                .collect();
            series_of(&mut pixmap, &points, Marker::Ring, GREY);
            legend.push((Marker::Ring, GREY, format!("its broadphase, {t} {s}")));
        }
    }
    let lx = LEFT + PW + 40.0;
    let mut ly = TOP + 16.0;
    let height = 24.0 * legend.len() as f32 + 8.0;
    if let Some(r) = Rect::from_xywh(lx - 20.0, ly - 16.0, 250.0, height) {
        let stroke = Stroke {
            width: 1.0,
            ..Stroke::default()
        };
        let path = PathBuilder::from_rect(r);
        pixmap.stroke_path(&path, &paint(GREY), &stroke, Transform::identity(), None);
    }
    for (m, rgb, s) in &legend {
        marker(&mut pixmap, *m, (lx, ly), 6.0, *rgb);
        text(&mut pixmap, s, lx + 20.0, ly - 5.0, 1.5, INK);
        ly += 24.0;
    }
    pixmap
}

/// Markers at `points`, joined by lines in their order.
fn series_of(pixmap: &mut Pixmap, points: &[(f32, f32)], m: Marker, rgb: [u8; 3]) {
    for pair in points.windows(2) {
        line(pixmap, pair[0], pair[1], rgb, 2.0);
    }
    for &p in points {
        marker(pixmap, m, p, 6.0, rgb);
    }
}
