//! Soak mode of the scenes bench: one long-lived world that is filled, stepped and mostly
//! emptied again, cycle after cycle, to show whether memory or time per cycle creep upwards
//! (slots, contact lists, islands, graph colors and buffers that are reused or not).
//!
//! ```text
//! cargo bench -p batch2d-bench --bench scenes -- --soak MINUTES [--soak-bodies N]
//!     [--soak-steps N] [--threads N]
//! ```
//!
//! Each cycle tops the world up to N bodies (default 100,000: circles, boxes, capsules and
//! rounded polygons in turn) on a grid of cells in a walled box, steps it `--soak-steps` times
//! (default 20) at 1/60 s, then removes every body except those of every tenth cell, a
//! different tenth each cycle, so that the survivors keep settling among the newcomers and
//! every slot is freed and reused over ten cycles. Per cycle it prints the cycle number, the
//! time since the start, the resident memory (VmRSS), the cycle's time and its parts, the
//! bodies stepped and the contacts after the last step; at the end, the first, last and
//! largest resident memory and the first and last cycle times.

use batch2d::{BodyDef, BodyId, Shape, ShapeDef, Vec2, World, WorldSettings};
use std::error::Error;
use std::time::{Duration, Instant};

type Res<T> = Result<T, Box<dyn Error>>;

const DT: f32 = 1.0 / 60.0;
/// Cell side (m): each body is at most 0.9 m across, so neighbours start apart.
const CELL: f32 = 1.0;
/// One cell in this many survives a cycle.
const KEEP_ONE_IN: usize = 10;

const USAGE: &str = "usage: cargo bench -p batch2d-bench --bench scenes -- --soak MINUTES \
[--soak-bodies N] [--soak-steps N] [--threads N]";

struct Options {
    minutes: f64,
    bodies: usize,
    steps: usize,
    threads: usize,
}

/// Runs the soak when the command line asks for it (`--soak MINUTES`), else `None`.
pub fn run_if_asked() -> Option<Res<()>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--soak") {
        return None;
    }
    Some(parse(&args).and_then(|o| run(&o)))
}

fn parse(args: &[String]) -> Res<Options> {
    let mut o = Options {
        minutes: 0.0,
        bodies: 100_000,
        steps: 20,
        threads: 0,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        // `cargo bench` passes `--bench` to every bench binary.
        if arg == "--bench" {
            continue;
        }
        let value = it
            .next()
            .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))?;
        match arg.as_str() {
            "--soak" => o.minutes = value.parse()?,
            "--soak-bodies" => o.bodies = value.parse()?,
            "--soak-steps" => o.steps = value.parse()?,
            "--threads" => o.threads = value.parse()?,
            _ => return Err(format!("unknown argument {arg:?} in soak mode\n{USAGE}").into()),
        }
    }
    if !(o.minutes.is_finite() && o.minutes > 0.0) || o.bodies == 0 {
        return Err(format!("--soak wants minutes > 0 and at least one body\n{USAGE}").into());
    }
    Ok(o)
}

/// Resident memory (KiB) from a `kB` line of /proc/self/status.
fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(&format!("{key}:")))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The world: a floor and two walls around `columns` x `rows` cells, and the body in each.
struct Soak {
    world: World,
    columns: usize,
    cells: Vec<Option<BodyId>>,
}

impl Soak {
    fn new(o: &Options) -> Res<Soak> {
        let columns = ((o.bodies as f64).sqrt().ceil() as usize).max(1);
        let rows = o.bodies.div_ceil(columns);
        let mut world = World::new(WorldSettings {
            threads: o.threads,
            ..WorldSettings::default()
        });
        let (width, height) = (columns as f32 * CELL, rows as f32 * CELL);
        let half = 0.5 * width + 1.0;
        world.add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(half + 1.0, 1.0).unwrap()),
        )?;
        for side in [-1.0, 1.0] {
            world.add_body(
                BodyDef::fixed().position(Vec2::new(side * (half + 0.5), height)),
                ShapeDef::new(Shape::rect(0.5, height + 1.0).unwrap()),
            )?;
        }
        Ok(Soak {
            world,
            columns,
            cells: vec![None; o.bodies],
        })
    }

    /// Fills every empty cell; returns how many bodies it added.
    fn fill(&mut self) -> Res<usize> {
        let capsule = Shape::capsule(Vec2::new(-0.25, 0.0), Vec2::new(0.25, 0.0), 0.2).unwrap();
        let hexagon: Vec<Vec2> = (0..6)
            .map(|k| {
                let a = k as f32 * std::f32::consts::PI / 3.0;
                Vec2::new(0.35 * a.cos(), 0.35 * a.sin())
            })
            .collect();
        let shapes = [
            Shape::circle(0.45).unwrap(),
            Shape::rect(0.4, 0.4).unwrap(),
            capsule,
            Shape::rounded_polygon(&hexagon, 0.05)?,
        ];
        let left = -0.5 * self.columns as f32 * CELL;
        let mut added = 0;
        for (i, cell) in self.cells.iter_mut().enumerate() {
            if cell.is_some() {
                continue;
            }
            let (col, row) = (i % self.columns, i / self.columns);
            let at = Vec2::new(left + (col as f32 + 0.5) * CELL, (row as f32 + 0.5) * CELL);
            let shape = shapes[i % shapes.len()].clone();
            let def = BodyDef::dynamic().position(at).angle(0.1 * (i % 7) as f32);
            *cell = Some(self.world.add_body(def, ShapeDef::new(shape))?);
            added += 1;
        }
        Ok(added)
    }

    /// Removes every body except those in the cells `i` with `i % KEEP_ONE_IN == keep`.
    fn thin(&mut self, keep: usize) -> Res<usize> {
        let mut removed = 0;
        for (i, cell) in self.cells.iter_mut().enumerate() {
            if i % KEEP_ONE_IN == keep {
                continue;
            }
            if let Some(id) = cell.take() {
                self.world.remove_body(id)?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

/// One cycle's figures.
struct Cycle {
    rss_kib: u64,
    total: Duration,
}

fn run(o: &Options) -> Res<()> {
    let budget = Duration::from_secs_f64(o.minutes * 60.0);
    let mut soak = Soak::new(o)?;
    println!(
        "soak: {} bodies per cycle (circles, boxes, capsules, rounded hexagons), {} steps of \
         1/60 s, then all but every {}th cell removed; threads {} ({}), for {} min",
        o.bodies,
        o.steps,
        KEEP_ONE_IN,
        o.threads,
        if o.threads == 0 { "all cores" } else { "set" },
        o.minutes
    );
    let start_kib = status_kib("VmRSS").ok_or("no VmRSS in /proc/self/status")?;
    println!(
        "resident memory before the first cycle: {:.1} MiB",
        mib(start_kib)
    );
    println!(
        "{:>5} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8}",
        "cycle",
        "elapsed_s",
        "rss_mib",
        "cycle_s",
        "add_ms",
        "step_ms",
        "remove_ms",
        "bodies",
        "contacts"
    );
    let started = Instant::now();
    let mut cycles: Vec<Cycle> = Vec::new();
    while started.elapsed() < budget {
        let n = cycles.len() + 1;
        let t = Instant::now();
        soak.fill()?;
        let add = t.elapsed();
        let bodies = soak.world.body_count();
        let t = Instant::now();
        for _ in 0..o.steps {
            soak.world.step(DT)?;
        }
        let stepping = t.elapsed();
        let contacts = soak.world.contact_count();
        let t = Instant::now();
        soak.thin(n % KEEP_ONE_IN)?;
        let remove = t.elapsed();
        let total = add + stepping + remove;
        let rss_kib = status_kib("VmRSS").ok_or("no VmRSS in /proc/self/status")?;
        println!(
            "{:>5} {:>9.1} {:>9.1} {:>8.2} {:>8.1} {:>9.2} {:>9.1} {:>8} {:>8}",
            n,
            started.elapsed().as_secs_f64(),
            mib(rss_kib),
            total.as_secs_f64(),
            add.as_secs_f64() * 1e3,
            stepping.as_secs_f64() * 1e3 / o.steps.max(1) as f64,
            remove.as_secs_f64() * 1e3,
            bodies,
            contacts
        );
        cycles.push(Cycle { rss_kib, total });
    }
    summary(&cycles, status_kib("VmHWM"));
    Ok(())
}

fn summary(cycles: &[Cycle], peak_kib: Option<u64>) {
    let (Some(first), Some(last)) = (cycles.first(), cycles.last()) else {
        println!("no cycle finished");
        return;
    };
    let max = cycles.iter().map(|c| c.rss_kib).max().unwrap_or(0);
    // Cycle times vary with where the survivors settled: compare the means of the first and
    // last few cycles rather than two single cycles. The first cycle has no survivors yet and
    // its bodies have not reached the floor: the early mean starts at the second.
    let settled = &cycles[1.min(cycles.len() - 1)..];
    let k = (settled.len() / 4).clamp(1, 5);
    let mean =
        |cs: &[Cycle]| cs.iter().map(|c| c.total.as_secs_f64()).sum::<f64>() / cs.len() as f64;
    println!(
        "summary: {} cycles; RSS first {:.1} MiB, last {:.1} MiB, max {:.1} MiB{}",
        cycles.len(),
        mib(first.rss_kib),
        mib(last.rss_kib),
        mib(max),
        peak_kib.map_or(String::new(), |p| format!(
            " (peak VmHWM {:.1} MiB)",
            mib(p)
        ))
    );
    println!(
        "         cycle time first {:.2} s, last {:.2} s; mean of cycles 2 to {} {:.2} s, of the \
         last {k} {:.2} s",
        first.total.as_secs_f64(),
        last.total.as_secs_f64(),
        k + 1,
        mean(&settled[..k]),
        mean(&settled[settled.len() - k..]),
    );
}
