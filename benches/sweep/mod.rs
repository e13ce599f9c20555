//! `--sweep`: batch2d's speed against its stability over a handful of solver settings
//! (substeps, biased solve passes, contact hertz), with Box2D v3's and rapier2d's default
//! settings beside them, on large_pyramid and smash.
//!
//! ```text
//! cargo bench -p batch2d-bench --bench scenes -- --sweep [--rounds R] [--threads N]
//!     [--steps N] [--sweep-png PATH]
//! ```
//!
//! Every round runs every point once on each scene, batch2d's settings first, then Box2D and
//! rapier2d, so that a slow spell of a shared machine falls on all points alike. A point's
//! time is its "mean" (the median of its round means); its stability is large_pyramid's
//! top-box drop, widest side gap and touching pairs after the scene's steps (batch2d's are the
//! same in every round: the step is deterministic), and the touching pairs smash ends with.
//! The frontier is the batch2d points that keep every one of large_pyramid's touching pairs
//! and that no other such point beats on both time and drop. It runs at the first of
//! `--threads` (default 1) and draws large_pyramid's points as a PNG (default
//! `docs/frontier.png` of the workspace).

mod plot;

use super::Stats;
use super::{batch2d_round, box2d_round, box2d_scenes, cpu_model, rapier_round, Options, Res};
use super::{Workload, LARGE_PYRAMID_PAIRS};
use batch2d::scenes::Scene;
use batch2d::{Backend, WorldSettings};

/// batch2d's points: (substeps, biased solve passes) and the contact hertz values run at each.
/// The defaults are among them; the rest spend less or more on the solver in each of the three
/// ways. Contact hertz is capped at a quarter of the substep rate (60 at 4 substeps), so higher
/// values need more substeps to mean anything.
const SETTINGS: [((u32, u32), &[f32]); 7] = [
    ((2, 2), &[45.0]),
    ((3, 2), &[45.0]),
    ((4, 1), &[30.0, 45.0, 60.0]),
    ((4, 2), &[30.0, 45.0, 60.0]),
    ((4, 3), &[45.0]),
    ((6, 1), &[45.0, 60.0]),
    ((8, 1), &[45.0]),
];

/// One point of the sweep: an engine at one setting, measured on both scenes.
struct Point {
    /// "batch2d", "Box2D" or "rapier2d".
    engine: &'static str,
    /// batch2d's (substeps, passes, hertz); `None` for another engine's defaults.
    setting: Option<(u32, u32, f32)>,
    pyramid: Stats,
    smash: Stats,
}

impl Point {
    fn label(&self) -> String {
        match self.setting {
            Some((sub, passes, hz)) => format!("{sub}x{passes} {hz}hz"),
            None => self.engine.to_string(),
        }
    }

    fn is_defaults(&self) -> bool {
        let d = WorldSettings::default();
        self.setting == Some((d.substeps, d.solve_iterations, d.contact_hertz))
    }

    fn pyramid_ms(&self) -> f64 {
        self.pyramid.mean_ms()
    }

    /// The last round's top-box drop (m).
    fn drop(&self) -> f32 {
        self.pyramid.top_drop.last().copied().unwrap_or(f32::NAN)
    }

    fn keeps_every_pair(&self) -> bool {
        self.pyramid.pairs == LARGE_PYRAMID_PAIRS
    }
}

/// Indices of the frontier's points in `points`, fastest first: the batch2d points that keep
/// every touching pair of large_pyramid and that no other such point matches or beats on
/// both ms/step and top-box drop.
fn frontier(points: &[Point]) -> Vec<usize> {
    let stable: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].setting.is_some() && points[i].keeps_every_pair())
        .collect();
    let mut front: Vec<usize> = stable
        .iter()
        .copied()
        .filter(|&i| {
            let (t, d) = (points[i].pyramid_ms(), points[i].drop());
            !stable.iter().any(|&j| {
                let (tj, dj) = (points[j].pyramid_ms(), points[j].drop());
                j != i && tj <= t && dj <= d && (tj < t || dj < d)
            })
        })
        .collect();
    front.sort_by(|&a, &b| points[a].pyramid_ms().total_cmp(&points[b].pyramid_ms()));
    front
}

pub fn run(o: &Options) -> Res<()> {
    let threads = o.threads[0];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let pyramid = Workload::Standard(Scene::LargePyramid);
    let smash = Workload::Standard(Scene::Smash);
    let steps = |w: Workload| o.steps.unwrap_or(w.default_steps());
    let mut points: Vec<Point> = SETTINGS
        .iter()
        .flat_map(|&((substeps, passes), hertz)| {
            hertz
                .iter()
                .map(move |&hz| ("batch2d", Some((substeps, passes, hz))))
        })
        .chain([("Box2D", None), ("rapier2d", None)])
        .map(|(engine, setting)| Point {
            engine,
            setting,
            pyramid: Stats::default(),
            smash: Stats::default(),
        })
        .collect();
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "batch2d speed-stability sweep | {} | nproc {nproc} | instruction set: {} | Box2D {}, \
         asserts {}",
        cpu_model(),
        batch2d::instruction_set(),
        box2d_scenes::version(),
        if box2d_scenes::asserts_compiled_in() {
            "ON (not a release build)"
        } else {
            "compiled out"
        },
    );
    println!(
        "large_pyramid ({} steps) and smash ({} steps), {threads} \
         thread(s), {} rounds, every point once per round; batch2d SIMD kernels, Box2D and \
         rapier2d at their defaults (Box2D: {} substeps)",
        steps(pyramid),
        steps(smash),
        o.rounds,
        box2d_scenes::SUBSTEPS,
    );
    for round in 0..o.rounds {
        for w in [pyramid, smash] {
            for p in &mut points {
                let stats = match w {
                    Workload::Standard(Scene::LargePyramid) => &mut p.pyramid,
                    _ => &mut p.smash,
                };
                match (p.engine, p.setting) {
                    (_, Some((substeps, passes, hertz))) => {
                        let settings = WorldSettings {
                            substeps,
                            solve_iterations: passes,
                            contact_hertz: hertz,
                            ..WorldSettings::default()
                        };
                        settings.validate()?;
                        batch2d_round(w, &settings, Backend::Simd, threads, steps(w), stats)?;
                    }
                    ("Box2D", None) => box2d_round(w, threads, steps(w), stats)?,
                    _ => rapier_round(w, &pool, steps(w), stats)?,
                }
            }
        }
        eprintln!("sweep: round {} of {} done", round + 1, o.rounds);
    }

    let front = frontier(&points);
    println!();
    println!(
        "{:<14} {:>9} {:>9} {:>9} {:>7} {:>9} {:>7}  frontier",
        "point", "pyr ms", "drop m", "gap mm", "pairs", "smash ms", "pairs"
    );
    for (i, p) in points.iter().enumerate() {
        let mut note = String::new();
        if front.contains(&i) {
            note.push_str("  *");
        }
        if p.is_defaults() {
            note.push_str("  (defaults)");
        }
        println!(
            "{:<14} {:>9.3} {:>9.3} {:>9.1} {:>7} {:>9.3} {:>7}{note}",
            p.label(),
            p.pyramid_ms(),
            p.drop(),
            p.pyramid.side_gap.last().map_or(f32::NAN, |g| g * 1e3),
            p.pyramid.pairs,
            p.smash.mean_ms(),
            p.smash.pairs,
        );
    }
    println!(
        "ms: median of round means; drop, gap and pairs: after the last step of the last round \
         (large_pyramid keeps all {LARGE_PYRAMID_PAIRS} pairs when nothing slides apart); \
         *: on batch2d's frontier"
    );
    let path = o.sweep_png.clone().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/frontier.png").to_string()
    });
    let title = format!(
        "large_pyramid, {threads} thread{}: ms/step against top-box drop",
        if threads == 1 { "" } else { "s" }
    );
    plot::draw(&points, &front, &title)
        .save_png(&path)
        .map_err(|e| format!("{path}: {e}"))?;
    println!("plot: {path}");
    Ok(())
}
