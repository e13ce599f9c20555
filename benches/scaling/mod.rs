//! `--scaling`: particle piles of a thousand to a million bodies, the cost of a step per body
//! against the bodies, batch2d at every thread count beside Box2D v3 on the piles it steps in
//! reasonable time.
//!
//! ```text
//! cargo bench -p batch2d-bench --bench scenes -- --scaling all|RxC,RxC.. [--threads 1,2]
//!     [--steps N] [--rounds R] [--compare box2d] [--box2d-max-bodies N] [--scaling-png PATH]
//! ```
//!
//! `all` is the piles 50x20, 160x64, 500x200, 1000x400 and 1600x625 (`scenes::particle_pile`,
//! rows x columns of circles): about a thousand, ten thousand, a hundred thousand, 400,000 and
//! a million bodies. Each falls from rest for `--steps` steps (default 60), once per round
//! (`--rounds`), at every thread count of `--threads`, in a process of its own so that its
//! peak memory is its own. With `--compare box2d`, Box2D runs the same piles, in its own
//! processes, up to those of `--box2d-max-bodies` circles (default [`BOX2D_MAX_BODIES`]: above
//! it one of its steps takes seconds). The rounds of one pile take turns engine by engine and
//! thread count by thread count, so that a slow spell of the machine falls on all alike.
//!
//! It prints, per pile, ns per body and step (a round's median ms/step over the bodies; the
//! median over the rounds), batch2d's broadphase's share of it (from its mean), and the peak
//! resident memory per body (`VmHWM`, at the first thread count), as a markdown table, and
//! draws ns per body against bodies, both on log scales, to `--scaling-png` (default
//! `docs/scaling.png` of the workspace).

mod plot;

use super::{box2d_scenes, cpu_model, median, run_alone, AloneRun, Options, Res, Workload};
use batch2d::Backend;

/// The piles of `--scaling all`.
const ALL_PILES: &str = "50x20,160x64,500x200,1000x400,1600x625";

/// The largest pile (in circles) Box2D runs by default: the 100,000 of 500x200.
pub const BOX2D_MAX_BODIES: usize = 100_000;

/// Steps per run unless `--steps` says otherwise: the first second of the fall.
const STEPS: usize = 60;

/// One engine at one thread count on one pile, over the rounds.
struct Series {
    engine: &'static str,
    threads: usize,
    runs: Vec<AloneRun>,
}

/// What the table and the plot show of one [`Series`] on one pile.
pub struct Point {
    pub bodies: usize,
    /// Median over the rounds of ns per body and step.
    pub ns_per_body: f64,
    /// The same of the broadphase (for Box2D, its pairs and refit).
    pub broad_phase_ns_per_body: f64,
    /// Median over the rounds of the peak resident memory per body, bytes.
    pub peak_bytes_per_body: f64,
}

impl Series {
    fn point(&self) -> Option<Point> {
        let bodies = self.runs.first()?.bodies.max(1);
        let per_body = |f: fn(&AloneRun) -> f64| {
            let v: Vec<f64> = self.runs.iter().map(f).collect();
            median(&v) / bodies as f64
        };
        Some(Point {
            bodies,
            ns_per_body: per_body(|r| r.median_ms) * 1e6,
            broad_phase_ns_per_body: per_body(|r| r.broad_phase_ms) * 1e6,
            peak_bytes_per_body: per_body(|r| r.peak_kib as f64) * 1024.0,
        })
    }
}

/// A line of the plot: one engine at one thread count, a point per pile it ran.
pub struct Line {
    pub engine: &'static str,
    pub threads: usize,
    pub points: Vec<Point>,
}

fn parse_piles(list: &str) -> Res<Vec<(usize, usize)>> {
    let list = if list == "all" { ALL_PILES } else { list };
    list.split(',')
        .map(|p| {
            let (r, c) = (p.trim().split_once(['x', 'X']))
                .ok_or_else(|| format!("--scaling wants all or ROWSxCOLS,.., got {p:?}"))?;
            Ok((r.parse()?, c.parse()?))
        })
        .collect()
}

pub fn run(o: &Options, piles: &str) -> Res<()> {
    let piles = parse_piles(piles)?;
    let steps = o.steps.unwrap_or(STEPS);
    if o.compare_box2d {
        box2d_scenes::check_cpu()?;
    }
    println!(
        "batch2d scaling | {} | nproc {} | instruction set: {} | {steps} steps of 1/60 s from \
         rest | {} rounds",
        cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        batch2d::instruction_set(),
        o.rounds,
    );
    if o.compare_box2d {
        println!(
            "beside Box2D {} ({} substeps, SIMD {}, asserts {}) on piles of at most {} circles",
            box2d_scenes::version(),
            box2d_scenes::SUBSTEPS,
            box2d_scenes::simd(),
            if box2d_scenes::asserts_compiled_in() {
                "ON: not a release build"
            } else {
                "compiled out"
            },
            o.box2d_max_bodies,
        );
    }
    let mut lines: Vec<Line> = Vec::new();
    let mut rows = Vec::new();
    for &(r, c) in &piles {
        let w = Workload::Pile(r, c);
        let mut series: Vec<Series> = Vec::new();
        let box2d = o.compare_box2d && r * c <= o.box2d_max_bodies;
        for engine in std::iter::once("batch2d").chain(box2d.then_some("box2d")) {
            for &threads in &o.threads {
                series.push(Series {
                    engine,
                    threads,
                    runs: Vec::new(),
                });
            }
        }
        for round in 0..o.rounds {
            for s in &mut series {
                let run = run_alone(
                    s.engine,
                    w,
                    Backend::Simd,
                    s.threads,
                    steps,
                    &o.settings_args,
                )
                .ok_or_else(|| format!("{} on the {r}x{c} pile failed", s.engine))?;
                eprintln!(
                    "scaling: pile {r}x{c} ({} bodies), {}, {} thread(s), round {}: {:.3} ms/step",
                    run.bodies,
                    s.engine,
                    s.threads,
                    round + 1,
                    run.median_ms
                );
                s.runs.push(run);
            }
        }
        let points: Vec<Option<Point>> = series.iter().map(Series::point).collect();
        rows.push(row((r, c), &series, &points, &o.threads, o.compare_box2d));
        for (s, p) in series.iter().zip(points) {
            let Some(p) = p else { continue };
            let at = lines
                .iter()
                .position(|l| l.engine == s.engine && l.threads == s.threads);
            let at = at.unwrap_or_else(|| {
                lines.push(Line {
                    engine: s.engine,
                    threads: s.threads,
                    points: Vec::new(),
                });
                lines.len() - 1
            });
            lines[at].points.push(p);
        }
    }
    println!();
    println!("{}", header(&o.threads, o.compare_box2d));
    for row in rows {
        println!("{row}");
    }
    let path = o
        .scaling_png
        .clone()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scaling.png").to_string());
    let title = format!("particle piles, median of {steps} steps from rest");
    plot::draw(&lines, &title)
        .save_png(&path)
        .map_err(|e| format!("{path}: {e}"))?;
    println!("plot: {path}");
    Ok(())
}

/// The engines of the table's columns, as `run_alone` and the table name them.
fn engines(box2d: bool) -> &'static [(&'static str, &'static str)] {
    if box2d {
        &[("batch2d", "batch2d"), ("box2d", "Box2D v3")]
    } else {
        &[("batch2d", "batch2d")]
    }
}

/// The table's two header lines: a column per engine and thread count, batch2d's broadphase
/// at the first thread count, and each engine's peak memory.
fn header(threads: &[usize], box2d: bool) -> String {
    let mut cells = vec!["bodies".to_string()];
    for (k, (_, name)) in engines(box2d).iter().enumerate() {
        for (i, &t) in threads.iter().enumerate() {
            let s = if t == 1 { "thread" } else { "threads" };
            cells.push(format!("{name} {t} {s}, ns/body"));
            if k == 0 && i == 0 {
                cells.push("its broadphase, ns/body".to_string());
            }
        }
    }
    for (_, name) in engines(box2d) {
        cells.push(format!("{name} peak RSS/body"));
    }
    let rule = vec!["---"; cells.len()].join("|");
    format!("| {} |\n|{rule}|", cells.join(" | "))
}

/// One pile's row of the table, in the columns of [`header`] (blank where an engine did not
/// run the pile).
fn row(
    pile: (usize, usize),
    series: &[Series],
    points: &[Option<Point>],
    threads: &[usize],
    box2d: bool,
) -> String {
    let bodies = points
        .iter()
        .flatten()
        .map(|p| p.bodies)
        .next()
        .unwrap_or(0);
    let mut cells = vec![format!("{bodies} (`{}x{}`)", pile.0, pile.1)];
    let point = |engine: &str, t: usize| {
        let at = (series.iter()).position(|s| s.engine == engine && s.threads == t)?;
        points[at].as_ref()
    };
    let cell = |p: Option<&Point>, f: fn(&Point) -> f64, unit: &str| {
        p.map_or(String::new(), |p| format!("{:.0}{unit}", f(p)))
    };
    for (k, (engine, _)) in engines(box2d).iter().enumerate() {
        for (i, &t) in threads.iter().enumerate() {
            cells.push(cell(point(engine, t), |p| p.ns_per_body, ""));
            if k == 0 && i == 0 {
                cells.push(cell(point(engine, t), |p| p.broad_phase_ns_per_body, ""));
            }
        }
    }
    for (engine, _) in engines(box2d) {
        cells.push(cell(
            point(engine, threads[0]),
            |p| p.peak_bytes_per_body,
            " B",
        ));
    }
    format!("| {} |", cells.join(" | "))
}
