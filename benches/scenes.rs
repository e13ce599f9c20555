//! Milliseconds per step of the standard scenes of `docs/scenes.md`, optionally beside rapier2d.
//!
//! ```text
//! cargo bench -p batch2d-bench --bench scenes -- [--scene NAME|all|every] [--threads 1,2]
//!     [--backend simd,scalar] [--steps N] [--rounds R] [--compare rapier|box2d|box2d,rapier]
//!     [--pile ROWSxCOLS] [--sleep] [--substeps N] [--solve-iterations N] [--contact-hertz HZ]
//!     [--isa portable|avx2|avx512] [--sweep [--sweep-png PATH]]
//!     [--scaling all|RxC,RxC.. [--scaling-png PATH] [--box2d-max-bodies N]]
//! ```
//!
//! Every round builds the scene afresh and times each `world.step(1/60)` with `Instant`. Per
//! configuration it prints: bodies, steps, the median of the round means ("mean"), the median
//! over every step of every round ("median"), the mean per-stage split from `World::profile`,
//! touching pairs and colors after the last step, backend, instruction set and threads. Box2D
//! rows split their steps from `b2World_GetProfile` (see `Box2dScene::stages`).
//! `--compare rapier` runs rapier2d on the same scene in the same process, alternating rounds
//! (batch2d round 1, rapier round 1, batch2d round 2, ...), and prints the ratio of medians.
//! `--compare box2d` does the same with Box2D v3 (C, through boxdd-sys: dt 1/60, 4 substeps,
//! sleeping off, its own scheduler on `--threads` workers), `--compare box2d,rapier` with both
//! (rounds go batch2d, Box2D, rapier2d). The header says whether the linked Box2D has its
//! asserts compiled in (it should not: `.cargo/config.toml` builds it with `-O3 -DNDEBUG`).
//! Without it, the configurations (backends x thread counts) take turns round by round, and
//! the speed-up of each over the first is printed as a ratio of their "mean" columns, with the
//! lowest and highest ratio of one round's means to the other's.
//! `--scene all` runs the six contact scenes (`Scene::ALL`), `--scene every` those and the joint
//! grid (`Scene::EVERY`); `--scene joint_grid` runs the grid
//! of revolute joints, and prints each engine's largest joint anchor gap at the end (for every
//! joint, the distance between the point fixed in either body, which the joint holds together)
//! and the largest seen over the run (every [`GAP_EVERY`] steps, outside the timed step): the
//! grid swings, so the gap at one step is one point of that swing.
//! `--pile ROWSxCOLS` runs `scenes::particle_pile(ROWS, COLS)` instead of the standard scenes
//! and prints the peak resident memory per body.
//! `--sleep` turns sleeping on in batch2d (the standard scenes run with it off) and prints, per
//! configuration, the mean ms/step of the steps with every body awake and of those with every
//! body asleep (before and after the step), from the same runs.
//! `--substeps`, `--solve-iterations` and `--contact-hertz` change those `WorldSettings` of
//! batch2d from their defaults (rapier2d keeps its own), to measure other solver budgets.
//! `--isa` runs batch2d's kernels on a narrower instruction set than the widest the CPU has
//! (as a machine without AVX-512 would), with the same bits.
//! `--soak MINUTES` fills, steps and empties one world for that long and prints its memory and
//! time per cycle instead (benches/soak/mod.rs).
//! `--snapshot` times snapshots, restores and clones beside a step, and sizes the snapshot
//! (benches/snapshot/mod.rs).
//! `--sweep` runs batch2d over a handful of solver settings on large_pyramid and smash, beside
//! Box2D's and rapier2d's defaults, prints ms/step against stability and draws the plot
//! `docs/frontier.png` (benches/sweep/mod.rs).
//! `--scaling` runs particle piles of a thousand to a million bodies at every thread count,
//! with Box2D beside batch2d under `--compare box2d` up to the piles of `--box2d-max-bodies`,
//! prints a table of ns per body and step and draws the plot `docs/scaling.png`
//! (benches/scaling/mod.rs).

mod box2d_scenes;
mod rapier_scenes;
// `--soak MINUTES`: a mode of its own, see benches/soak/mod.rs.
mod soak;
// `--snapshot`: what snapshots cost beside a step, see benches/snapshot/mod.rs.
mod snapshot;
// `--sweep`: batch2d over solver settings beside the other engines, see benches/sweep/mod.rs.
mod sweep;
// `--scaling`: piles of a thousand to a million bodies beside Box2D, see benches/scaling/mod.rs.
mod scaling;
// The plots of `--sweep` and `--scaling`.
mod chart;

use batch2d::scenes::{self, Scene};
use batch2d::{Backend, BodyId, InstructionSet, Vec2, World, WorldSettings};
use std::error::Error;
use std::fmt::Write as _;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn Error>>;

const DT: f32 = 1.0 / 60.0;

/// large_pyramid's touching pairs while every box rests on its neighbours below.
const LARGE_PYRAMID_PAIRS: usize = 14950;

/// What one configuration steps.
#[derive(Clone, Copy, Debug)]
enum Workload {
    Standard(Scene),
    /// `scenes::particle_pile(rows, cols)`.
    Pile(usize, usize),
}

impl Workload {
    fn name(self) -> String {
        match self {
            Workload::Standard(s) => s.name().to_string(),
            Workload::Pile(r, c) => format!("pile_{r}x{c}"),
        }
    }

    fn default_steps(self) -> usize {
        match self {
            Workload::Standard(s) => s.steps(),
            Workload::Pile(..) => Scene::ParticlePile.steps(),
        }
    }

    fn is_large_pyramid(self) -> bool {
        matches!(self, Workload::Standard(Scene::LargePyramid))
    }

    fn is_joint_grid(self) -> bool {
        matches!(self, Workload::Standard(Scene::JointGrid))
    }

    fn build(self, settings: WorldSettings) -> Res<World> {
        Ok(match self {
            Workload::Standard(s) => s.build(settings)?,
            Workload::Pile(r, c) => scenes::particle_pile(r, c, settings)?,
        })
    }

    fn build_rapier(self) -> Res<rapier_scenes::RapierScene> {
        match self {
            Workload::Standard(s) => rapier_scenes::build(s.name())
                .ok_or_else(|| format!("no rapier2d build of scene {}", s.name()).into()),
            Workload::Pile(r, c) => Ok(rapier_scenes::pile(r, c, false)),
        }
    }

    fn build_box2d(self, threads: usize) -> Res<box2d_scenes::Box2dScene> {
        box2d_scenes::check_cpu()?;
        match self {
            Workload::Standard(s) => box2d_scenes::build(s.name(), threads)
                .ok_or_else(|| format!("no Box2D build of scene {}", s.name()).into()),
            Workload::Pile(r, c) => Ok(box2d_scenes::pile(r, c, false, threads)),
        }
    }
}

struct Options {
    workloads: Vec<Workload>,
    threads: Vec<usize>,
    backends: Vec<Backend>,
    steps: Option<usize>,
    rounds: usize,
    compare_rapier: bool,
    compare_box2d: bool,
    pile: bool,
    /// batch2d's settings apart from backend and threads: the defaults, with `--sleep` and
    /// the solver flags applied.
    settings: WorldSettings,
    /// Those flags as given, for the memory probe's child process.
    settings_args: Vec<String>,
    /// `--sweep`: the speed-stability sweep instead (benches/sweep/mod.rs).
    sweep: bool,
    /// `--sweep-png PATH`: where the sweep draws its plot.
    sweep_png: Option<String>,
    /// `--scaling all|RxC,RxC..`: the scaling table of piles instead (benches/scaling/mod.rs).
    scaling: Option<String>,
    /// `--scaling-png PATH`: where the scaling table draws its plot.
    scaling_png: Option<String>,
    /// `--box2d-max-bodies N`: the largest pile the scaling table runs Box2D on.
    box2d_max_bodies: usize,
    /// Internal: run one untimed pass of the pile with this engine and print its peak memory.
    memory_probe: Option<String>,
}

const USAGE: &str =
    "usage: cargo bench -p batch2d-bench --bench scenes -- [--scene NAME|all|every] \
[--threads 1,2] [--backend simd,scalar] [--steps N] [--rounds R] \
[--compare rapier|box2d|box2d,rapier] [--pile ROWSxCOLS] [--sleep] \
[--substeps N] [--solve-iterations N] [--contact-hertz HZ] [--isa portable|avx2|avx512] \
[--sweep [--sweep-png PATH]] [--scaling all|RxC,RxC.. [--scaling-png PATH] \
[--box2d-max-bodies N]]";

fn parse_list<T>(s: &str, f: impl Fn(&str) -> Option<T>) -> Res<Vec<T>> {
    let items: Option<Vec<T>> = s.split(',').map(|x| f(x.trim())).collect();
    match items {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err(format!("bad list {s:?}\n{USAGE}").into()),
    }
}

fn parse_args() -> Res<Options> {
    let mut o = Options {
        workloads: Scene::ALL.iter().map(|&s| Workload::Standard(s)).collect(),
        threads: vec![1, 2],
        backends: vec![Backend::Simd],
        steps: None,
        rounds: 3,
        compare_rapier: false,
        compare_box2d: false,
        pile: false,
        settings: WorldSettings::default(),
        settings_args: Vec::new(),
        memory_probe: None,
        sweep: false,
        sweep_png: None,
        scaling: None,
        scaling_png: None,
        box2d_max_bodies: scaling::BOX2D_MAX_BODIES,
    };
    let mut scene_arg: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        // `cargo bench` passes `--bench` to every bench binary.
        if arg == "--bench" {
            continue;
        }
        if arg == "-h" || arg == "--help" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--scene" => scene_arg = Some(value()?),
            "--threads" => o.threads = parse_list(&value()?, |x| x.parse().ok())?,
            "--backend" => {
                o.backends = parse_list(&value()?, |x| match x {
                    "simd" => Some(Backend::Simd),
                    "scalar" => Some(Backend::Scalar),
                    _ => None,
                })?
            }
            "--steps" => o.steps = Some(value()?.parse()?),
            "--rounds" => o.rounds = value()?.parse::<usize>()?.max(1),
            "--compare" => {
                for engine in value()?.split(',') {
                    match engine.trim() {
                        "rapier" | "rapier2d" => o.compare_rapier = true,
                        "box2d" => o.compare_box2d = true,
                        other => {
                            return Err(format!(
                                "can compare with rapier and box2d, not {other:?}\n{USAGE}"
                            )
                            .into())
                        }
                    }
                }
            }
            "--pile" => {
                let v = value()?;
                let (r, c) = v
                    .split_once(['x', 'X'])
                    .ok_or_else(|| format!("--pile wants ROWSxCOLS, got {v:?}"))?;
                o.workloads = vec![Workload::Pile(r.parse()?, c.parse()?)];
                o.pile = true;
            }
            "--memory-probe" => o.memory_probe = Some(value()?),
            "--sweep" => o.sweep = true,
            "--sweep-png" => o.sweep_png = Some(value()?),
            "--scaling" => o.scaling = Some(value()?),
            "--scaling-png" => o.scaling_png = Some(value()?),
            "--box2d-max-bodies" => o.box2d_max_bodies = value()?.parse()?,
            "--sleep" => {
                o.settings.enable_sleep = true;
                o.settings_args.push(arg);
            }
            "--isa" => {
                let v = value()?;
                let set = InstructionSet::ALL.into_iter().find(|s| s.name() == v);
                o.settings.instruction_set =
                    Some(set.ok_or_else(|| format!("no instruction set {v:?}\n{USAGE}"))?);
                o.settings.validate()?;
                o.settings_args.extend([arg, v]);
            }
            "--substeps" | "--solve-iterations" | "--contact-hertz" => {
                let v = value()?;
                match arg.as_str() {
                    "--substeps" => o.settings.substeps = v.parse()?,
                    "--solve-iterations" => o.settings.solve_iterations = v.parse()?,
                    _ => o.settings.contact_hertz = v.parse()?,
                }
                o.settings.validate()?;
                o.settings_args.extend([arg, v]);
            }
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}").into()),
        }
    }
    if let (Some(s), false) = (scene_arg, o.pile) {
        let scenes = match s.as_str() {
            "all" => Scene::ALL.to_vec(),
            "every" => Scene::EVERY.to_vec(),
            _ => parse_list(&s, Scene::from_name)?,
        };
        o.workloads = scenes.into_iter().map(Workload::Standard).collect();
    }
    Ok(o)
}

/// Timings and end state of one configuration over all its rounds.
#[derive(Default)]
struct Stats {
    /// Every step of every round, ms.
    step_ms: Vec<f64>,
    /// Mean ms/step of each round.
    round_means: Vec<f64>,
    /// Sums of the per-stage profile: broad, narrow, coloring, solve, finalize; `None` for a
    /// stage the engine does not time.
    stage_sum: [Option<f64>; 5],
    bodies: usize,
    pairs: usize,
    joints: usize,
    colors: Option<usize>,
    /// large_pyramid: initial y - final y of the top box, per round.
    top_drop: Vec<f32>,
    /// large_pyramid: the widest gap between row neighbours at the end (see
    /// [`widest_side_gap`]), per round.
    side_gap: Vec<f32>,
    /// joint_grid: the largest joint anchor gap at the end (see [`largest_anchor_gap`]), per
    /// round.
    joint_gap: Vec<f32>,
    /// joint_grid: the largest joint anchor gap seen every [`GAP_EVERY`] steps and at the end,
    /// per round.
    joint_gap_peak: Vec<f32>,
    /// Piles: peak resident memory of a process that ran the configuration once, and its
    /// resident memory before building, KiB.
    peak_kib: Option<(u64, u64)>,
    /// With `--sleep`: ms of the steps before and after which every body was awake / none was.
    all_awake_ms: Vec<f64>,
    all_asleep_ms: Vec<f64>,
    /// With `--sleep`: awake bodies after the last step of the last round.
    awake_at_end: Option<usize>,
}

impl Stats {
    fn record_round(&mut self, times: &[f64]) {
        self.round_means
            .push(times.iter().sum::<f64>() / times.len().max(1) as f64);
        self.step_ms.extend_from_slice(times);
    }

    /// Adds one step's stage split to the sums.
    fn add_stages(&mut self, stages: [Option<f64>; 5]) {
        for (sum, x) in self.stage_sum.iter_mut().zip(stages) {
            if let Some(x) = x {
                *sum = Some(sum.unwrap_or(0.0) + x);
            }
        }
    }

    fn median_ms(&self) -> f64 {
        median(&self.step_ms)
    }

    fn mean_ms(&self) -> f64 {
        median(&self.round_means)
    }
}

/// large_pyramid's widest side gap (m): of the boxes that started side by side in a row (same
/// height, centres 1 m apart, touching), the largest distance between their centres at the
/// end minus that 1 m. Soft contacts let the rows spread as the pyramid settles; a pair whose
/// gap passes the engine's contact margin (batch2d: 20 mm) stops being a touching pair.
/// `start` and `end` hold each box's centre at the first and last step.
fn widest_side_gap(start: &[[f32; 2]], end: &[[f32; 2]]) -> f32 {
    let mut order: Vec<usize> = (0..start.len()).collect();
    order.sort_by(|&i, &j| {
        let (a, b) = (start[i], start[j]);
        a[1].total_cmp(&b[1]).then(a[0].total_cmp(&b[0]))
    });
    order
        .windows(2)
        .map(|w| (w[0], w[1]))
        .filter(|&(i, j)| {
            start[i][1] == start[j][1] && (start[j][0] - start[i][0] - 1.0).abs() < 1e-3
        })
        .map(|(i, j)| (end[j][0] - end[i][0]).hypot(end[j][1] - end[i][1]) - 1.0)
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Steps between two readings of joint_grid's largest anchor gap during a round: often enough to
/// catch the top of the grid's swing, seldom enough that reading it does not fill the cache the
/// next timed step would find.
const GAP_EVERY: usize = 10;

/// The largest distance between a joint's two anchors (m): `anchors` holds, per joint, the
/// point fixed in its first body and the one fixed in its second, both in world space. Every
/// joint of joint_grid is a revolute joint, which holds its two points together: the gap is
/// how far it has come apart.
fn largest_anchor_gap(anchors: &[([f32; 2], [f32; 2])]) -> f32 {
    anchors
        .iter()
        .map(|&(a, b)| (b[0] - a[0]).hypot(b[1] - a[1]))
        .fold(0.0, f32::max)
}

/// Each joint of `world` with the anchor of each body in that body's frame, as they are now.
fn local_anchors(world: &World) -> Res<Vec<(BodyId, Vec2, BodyId, Vec2)>> {
    let mut out = Vec::with_capacity(world.joint_count());
    for id in world.joints() {
        let (_, a, b) = world.joint_bodies(id)?;
        let a = a.ok_or("a joint without a body A")?;
        let (pa, pb) = world.joint_anchors(id)?;
        out.push((
            a,
            world.transform(a)?.inv_apply(pa),
            b,
            world.transform(b)?.inv_apply(pb),
        ));
    }
    Ok(out)
}

/// The world anchors of joints noted by [`local_anchors`], at the bodies' present poses.
fn world_anchors(
    world: &World,
    joints: &[(BodyId, Vec2, BodyId, Vec2)],
) -> Res<Vec<([f32; 2], [f32; 2])>> {
    let mut out = Vec::with_capacity(joints.len());
    for &(a, la, b, lb) in joints {
        let (pa, pb) = (world.transform(a)?.apply(la), world.transform(b)?.apply(lb));
        out.push(([pa.x, pa.y], [pb.x, pb.y]));
    }
    Ok(out)
}

fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

/// A `kB` line of /proc/self/status (e.g. VmHWM, VmRSS), in KiB.
fn read_status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(&format!("{key}:")))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// What a child process of this binary measured of one pass of a pile (see [`run_alone`]).
struct AloneRun {
    /// Peak resident memory and resident memory before building, KiB.
    peak_kib: u64,
    start_kib: u64,
    bodies: usize,
    /// The median ms/step of the pass.
    median_ms: f64,
    /// The mean ms/step of its broadphase (Box2D's: its pairs and refit).
    broad_phase_ms: f64,
}

impl AloneRun {
    /// Peak and starting resident memory, KiB.
    fn memory(&self) -> (u64, u64) {
        (self.peak_kib, self.start_kib)
    }
}

/// One pass of `w` by `engine`, run in a child process of this binary so that no earlier
/// world's freed memory hides its memory, and that its peak memory is its own; `None` if the
/// child failed (its error is on its stderr, which it shares).
fn run_alone(
    engine: &str,
    w: Workload,
    backend: Backend,
    threads: usize,
    steps: usize,
    settings_args: &[String],
) -> Option<AloneRun> {
    let Workload::Pile(rows, cols) = w else {
        return None;
    };
    let out = std::process::Command::new(std::env::current_exe().ok()?)
        .args(["--pile", &format!("{rows}x{cols}")])
        .args(["--backend", backend_name(backend)])
        .args(["--threads", &threads.to_string()])
        .args(["--steps", &steps.to_string()])
        .args(["--memory-probe", engine])
        .args(settings_args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix("memory-probe "))?;
    let f: Vec<&str> = line.split_whitespace().collect();
    let int = |k: usize| f.get(k)?.parse::<u64>().ok();
    let float = |k: usize| f.get(k)?.parse::<f64>().ok();
    Some(AloneRun {
        peak_kib: int(0)?,
        start_kib: int(1)?,
        bodies: int(2)? as usize,
        median_ms: float(3)?,
        broad_phase_ms: float(4)?,
    })
}

/// The child's side of [`run_alone`]: build, step, print `memory-probe PEAK START BODIES
/// MEDIAN_MS BROADPHASE_MS`, memory in KiB.
fn run_memory_probe(o: &Options, engine: &str) -> Res<()> {
    let w = o.workloads[0];
    let steps = o.steps.unwrap_or(w.default_steps());
    let (backend, threads) = (o.backends[0], o.threads[0]);
    let start = read_status_kib("VmRSS").ok_or("no VmRSS in /proc/self/status")?;
    let mut stats = Stats::default();
    match engine {
        "batch2d" => batch2d_round(w, &o.settings, backend, threads, steps, &mut stats)?,
        "rapier" => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?;
            rapier_round(w, &pool, steps, &mut stats)?
        }
        "box2d" => box2d_round(w, threads, steps, &mut stats)?,
        _ => return Err(format!("unknown engine {engine:?}").into()),
    }
    let peak = read_status_kib("VmHWM").ok_or("no VmHWM in /proc/self/status")?;
    let broad_phase = stats.stage_sum[0].unwrap_or(f64::NAN) / stats.step_ms.len().max(1) as f64;
    println!(
        "memory-probe {peak} {start} {} {} {broad_phase}",
        stats.bodies,
        stats.median_ms()
    );
    Ok(())
}

fn backend_name(b: Backend) -> &'static str {
    match b {
        Backend::Simd => "simd",
        Backend::Scalar => "scalar",
    }
}

/// One round of batch2d: build, step `steps` times, record.
fn batch2d_round(
    w: Workload,
    base: &WorldSettings,
    backend: Backend,
    threads: usize,
    steps: usize,
    stats: &mut Stats,
) -> Res<()> {
    let sleep = base.enable_sleep;
    let settings = WorldSettings {
        backend,
        threads,
        ..base.clone()
    };
    let mut world = w.build(settings)?;
    let movers = world.awake_body_count();
    let mut awake_before = movers;
    // large_pyramid's boxes (every body above the ground's top face) with their centres, and
    // the top box: the one with the highest initial y.
    let mut boxes = Vec::new();
    if w.is_large_pyramid() {
        for id in world.bodies() {
            let p = world.position(id)?;
            if p.y > 0.0 {
                boxes.push((id, [p.x, p.y]));
            }
        }
    }
    let top = boxes
        .iter()
        .max_by(|a, b| a.1[1].total_cmp(&b.1[1]))
        .map(|&(id, [_, y])| (id, y));
    let joints = if w.is_joint_grid() {
        local_anchors(&world)?
    } else {
        Vec::new()
    };
    let mut times = Vec::with_capacity(steps);
    let mut peak_gap = 0.0f32;
    for i in 0..steps {
        let t = Instant::now();
        world.step(DT)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        times.push(ms);
        if !joints.is_empty() && (i + 1) % GAP_EVERY == 0 {
            peak_gap = peak_gap.max(largest_anchor_gap(&world_anchors(&world, &joints)?));
        }
        if sleep {
            // A step counts when as many bodies were awake before it as after it: the step in
            // which islands fall asleep still does all the work.
            let awake = world.awake_body_count();
            match (awake_before, awake) {
                (0, 0) => stats.all_asleep_ms.push(ms),
                (a, b) if a == movers && b == movers => stats.all_awake_ms.push(ms),
                _ => {}
            }
            awake_before = awake;
        }
        let p = world.profile();
        stats.add_stages(
            [
                p.broad_phase,
                p.narrow_phase,
                p.coloring,
                p.solve,
                p.finalize,
            ]
            .map(Some),
        );
    }
    stats.record_round(&times);
    stats.bodies = world.body_count();
    stats.pairs = world.contact_count();
    stats.joints = world.joint_count();
    stats.colors = Some(batch2d::scenes::colors_in_use(&world));
    if w.is_joint_grid() {
        let gap = largest_anchor_gap(&world_anchors(&world, &joints)?);
        stats.joint_gap.push(gap);
        stats.joint_gap_peak.push(peak_gap.max(gap));
    }
    if sleep {
        stats.awake_at_end = Some(world.awake_body_count());
    }
    if let Some((id, y0)) = top {
        stats.top_drop.push(y0 - world.position(id)?.y);
    }
    if !boxes.is_empty() {
        let start: Vec<[f32; 2]> = boxes.iter().map(|b| b.1).collect();
        let mut end = Vec::with_capacity(boxes.len());
        for &(id, _) in &boxes {
            let p = world.position(id)?;
            end.push([p.x, p.y]);
        }
        stats.side_gap.push(widest_side_gap(&start, &end));
    }
    Ok(())
}

/// What the scenes bench reads from another engine's build of a scene after its steps.
trait ReferenceScene {
    fn body_count(&self) -> usize;
    fn touching_pairs(&self) -> usize;
    fn joint_count(&self) -> usize;
    /// large_pyramid: initial y - final y of the top box.
    fn top_drop(&self) -> Option<f32>;
    /// Every dynamic body's centre at the start and now.
    fn dynamic_centres(&self) -> (Vec<[f32; 2]>, Vec<[f32; 2]>);
    /// Each joint's two anchors in world space, as [`largest_anchor_gap`] takes them.
    fn joint_anchors(&self) -> Vec<([f32; 2], [f32; 2])>;
    /// The last step's split in batch2d's stages (ms), where the engine times them.
    fn stages(&self) -> [Option<f64>; 5];
}

/// Implements [`ReferenceScene`] with the scene type's own methods of the same names.
macro_rules! reference_scene {
    ($scene:ty) => {
        impl ReferenceScene for $scene {
            fn body_count(&self) -> usize {
                self.body_count()
            }
            fn touching_pairs(&self) -> usize {
                self.touching_pairs()
            }
            fn joint_count(&self) -> usize {
                self.joint_count()
            }
            fn top_drop(&self) -> Option<f32> {
                self.top_drop()
            }
            fn dynamic_centres(&self) -> (Vec<[f32; 2]>, Vec<[f32; 2]>) {
                self.dynamic_centres()
            }
            fn joint_anchors(&self) -> Vec<([f32; 2], [f32; 2])> {
                self.joint_anchors()
            }
            fn stages(&self) -> [Option<f64>; 5] {
                self.stages()
            }
        }
    };
}

reference_scene!(rapier_scenes::RapierScene);
reference_scene!(box2d_scenes::Box2dScene);

/// One round of another engine on a freshly built `scene`: `step` it `steps` times, timing
/// each, then record its bodies, touching pairs and joints, on large_pyramid the top box's
/// drop and the widest side gap, and on joint_grid the largest joint anchor gap.
fn reference_round<S: ReferenceScene>(
    w: Workload,
    mut scene: S,
    steps: usize,
    stats: &mut Stats,
    mut step: impl FnMut(&mut S),
) {
    let mut times = Vec::with_capacity(steps);
    let mut peak_gap = 0.0f32;
    for i in 0..steps {
        let t = Instant::now();
        step(&mut scene);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        stats.add_stages(scene.stages());
        if w.is_joint_grid() && (i + 1) % GAP_EVERY == 0 {
            peak_gap = peak_gap.max(largest_anchor_gap(&scene.joint_anchors()));
        }
    }
    stats.record_round(&times);
    stats.bodies = scene.body_count();
    stats.pairs = scene.touching_pairs();
    stats.joints = scene.joint_count();
    stats.colors = None;
    if w.is_joint_grid() {
        let gap = largest_anchor_gap(&scene.joint_anchors());
        stats.joint_gap.push(gap);
        stats.joint_gap_peak.push(peak_gap.max(gap));
    }
    if w.is_large_pyramid() {
        if let Some(d) = scene.top_drop() {
            stats.top_drop.push(d);
        }
        let (start, end) = scene.dynamic_centres();
        stats.side_gap.push(widest_side_gap(&start, &end));
    }
}

/// One round of rapier2d on `pool`: build, step `steps` times, record.
fn rapier_round(w: Workload, pool: &rayon::ThreadPool, steps: usize, stats: &mut Stats) -> Res<()> {
    // rapier's `parallel` feature runs on rayon's current pool: make it `pool`. Installing per
    // step mirrors batch2d, whose `World::step` installs its own pool every step.
    reference_round(w, w.build_rapier()?, steps, stats, |scene| {
        pool.install(|| scene.step())
    });
    Ok(())
}

/// One round of Box2D on `threads` workers: build, step `steps` times, record.
fn box2d_round(w: Workload, threads: usize, steps: usize, stats: &mut Stats) -> Res<()> {
    reference_round(w, w.build_box2d(threads)?, steps, stats, |scene| {
        scene.step(DT)
    });
    Ok(())
}

const HEADER: [(&str, usize); 15] = [
    ("scene", 14),
    ("engine", 9),
    ("isa", 7),
    ("thr", 3),
    ("bodies", 7),
    ("steps", 5),
    ("mean", 8),
    ("median", 8),
    ("broad", 7),
    ("narrow", 7),
    ("color", 7),
    ("solve", 7),
    ("final", 7),
    ("pairs", 6),
    ("colors", 6),
];

fn print_header() {
    let mut line = String::new();
    for (i, (name, w)) in HEADER.iter().enumerate() {
        if i == 0 {
            let _ = write!(line, "{name:<w$}");
        } else {
            let _ = write!(line, " {name:>w$}");
        }
    }
    println!("{line}");
    println!("{}", "-".repeat(line.len()));
}

fn print_row(scene: &str, engine: &str, isa: &str, threads: usize, steps: usize, s: &Stats) {
    let n = s.step_ms.len().max(1) as f64;
    let stage = |i: usize| s.stage_sum[i].map_or("-".to_string(), |sum| format!("{:.3}", sum / n));
    let cells = [
        scene.to_string(),
        engine.to_string(),
        isa.to_string(),
        threads.to_string(),
        s.bodies.to_string(),
        steps.to_string(),
        format!("{:.3}", s.mean_ms()),
        format!("{:.3}", s.median_ms()),
        stage(0),
        stage(1),
        stage(2),
        stage(3),
        stage(4),
        s.pairs.to_string(),
        s.colors.map_or("-".to_string(), |c| c.to_string()),
    ];
    let mut line = String::new();
    for (i, (cell, (_, w))) in cells.iter().zip(HEADER).enumerate() {
        if i == 0 {
            let _ = write!(line, "{cell:<w$}");
        } else {
            let _ = write!(line, " {cell:>w$}");
        }
    }
    println!("{line}");
}

/// Extra lines under a row: large_pyramid's stability, the pile's memory, sleeping.
fn print_extras(w: Workload, engine: &str, s: &Stats) {
    if let Some(awake) = s.awake_at_end {
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let (awake_ms, asleep_ms) = (mean(&s.all_awake_ms), mean(&s.all_asleep_ms));
        let ms = |m: Option<f64>| m.map_or("-".to_string(), |m| format!("{m:.3}"));
        let ratio = match (awake_ms, asleep_ms) {
            (Some(a), Some(r)) => format!("{:.2}% of awake", 100.0 * r / a),
            _ => "no ratio".to_string(),
        };
        println!(
            "    {engine} sleep: {awake} bodies awake at the end; mean ms/step all awake {} \
             ({} steps), all asleep {} ({} steps): {ratio}",
            ms(awake_ms),
            s.all_awake_ms.len(),
            ms(asleep_ms),
            s.all_asleep_ms.len(),
        );
    }
    if w.is_large_pyramid() {
        let drops: Vec<String> = s.top_drop.iter().map(|d| format!("{d:.4}")).collect();
        let gaps: Vec<String> = s
            .side_gap
            .iter()
            .map(|g| format!("{:.1}", g * 1e3))
            .collect();
        println!(
            "    {engine} large_pyramid stability: top box drop {} m, widest side gap {} mm \
             (per round), touching pairs {} (expect {LARGE_PYRAMID_PAIRS})",
            drops.join(" / "),
            gaps.join(" / "),
            s.pairs
        );
    }
    if w.is_joint_grid() {
        let mm = |v: &[f32]| -> String {
            let gaps: Vec<String> = v.iter().map(|g| format!("{:.2}", g * 1e3)).collect();
            gaps.join(" / ")
        };
        println!(
            "    {engine} joint_grid stability: largest joint anchor gap {} mm (per round), \
             largest over the run {} mm, {} joints",
            mm(&s.joint_gap),
            mm(&s.joint_gap_peak),
            s.joints
        );
    }
    if let Workload::Pile(..) = w {
        match s.peak_kib {
            Some((peak, before)) => {
                let bodies = s.bodies.max(1) as f64;
                println!(
                    "    {engine} peak RSS (VmHWM, one pass in a child process) {:.1} MiB \
                     = {:.0} B/body; above the {:.1} MiB resident before building: {:.0} B/body",
                    peak as f64 / 1024.0,
                    peak as f64 * 1024.0 / bodies,
                    before as f64 / 1024.0,
                    peak.saturating_sub(before) as f64 * 1024.0 / bodies,
                );
            }
            None => println!("    {engine} peak RSS: memory probe failed (no /proc/self/status?)"),
        }
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string())
}

fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%F"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            format!("unix time {secs}")
        })
}

fn main() {
    let mode = soak::run_if_asked().or_else(snapshot::run_if_asked);
    if let Err(e) = mode.unwrap_or_else(run) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run() -> Res<()> {
    let o = parse_args()?;
    if let Some(engine) = &o.memory_probe {
        return run_memory_probe(&o, engine);
    }
    if o.sweep {
        return sweep::run(&o);
    }
    if let Some(sizes) = &o.scaling {
        return scaling::run(&o, sizes);
    }
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let isa_full = match o.settings.instruction_set {
        Some(set) => set.name(),
        None => batch2d::instruction_set(),
    };
    let isa = isa_full.split_whitespace().next().unwrap_or(isa_full);
    println!(
        "batch2d scenes bench | {} | nproc {} | {} | instruction set: {} | rounds {} | dt 1/60",
        cpu_model(),
        nproc,
        today(),
        isa_full,
        o.rounds
    );
    let rapier_engine = format!("rapier2d (simd{})", rapier2d::math::SIMD_WIDTH);
    let box2d_engine = format!("Box2D {}", box2d_scenes::version());
    if o.compare_box2d {
        // Box2D's asserts cost it about 1.5x: say which build this is.
        let asserts = if box2d_scenes::asserts_compiled_in() {
            "asserts ON (built without NDEBUG: NOT a release build, slower than Box2D can be)"
        } else {
            "asserts compiled out (NDEBUG)"
        };
        println!(
            "comparing with {box2d_engine} (boxdd-sys, upstream {}): C built with cc's -O2 then \
             CFLAGS={:?}, {asserts}, SIMD {}; dt 1/60, {} substeps, b2DefaultWorldDef otherwise, \
             sleeping off; threads: Box2D's own scheduler with workerCount = thr",
            &boxdd_sys::UPSTREAM_SHA[..boxdd_sys::UPSTREAM_SHA.len().min(10)],
            box2d_scenes::cflags(),
            box2d_scenes::simd(),
            box2d_scenes::SUBSTEPS,
        );
    }
    if o.compare_rapier {
        println!("comparing with {rapier_engine}: default IntegrationParameters, sleeping off");
    }
    if o.compare_rapier || o.compare_box2d {
        let mut order = vec!["batch2d"];
        if o.compare_box2d {
            order.push("Box2D");
        }
        if o.compare_rapier {
            order.push("rapier2d");
        }
        println!("rounds alternate {}", order.join(" / "));
    }
    println!("ms/step: mean = median of round means, median = over all steps; stages = means");
    let st = &o.settings;
    let defaults = WorldSettings {
        enable_sleep: st.enable_sleep,
        instruction_set: st.instruction_set,
        ..WorldSettings::default()
    };
    println!(
        "batch2d solver: {} substeps x {} biased solve passes + 1 relax, contact hertz {}{}",
        st.substeps,
        st.solve_iterations,
        st.contact_hertz,
        if *st == defaults {
            " (defaults)"
        } else {
            " (NOT the defaults)"
        }
    );
    if st.enable_sleep {
        println!("sleeping ON in batch2d (WorldSettings::enable_sleep = true)");
    }
    print_header();

    let mut comparisons = Vec::new();
    let mut scaling = Vec::new();
    for &w in &o.workloads {
        let steps = o.steps.unwrap_or(w.default_steps());
        let name = w.name();
        if o.compare_rapier || o.compare_box2d {
            for &threads in &o.threads {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()?;
                let mut ours: Vec<Stats> = o.backends.iter().map(|_| Stats::default()).collect();
                let mut box2d = o.compare_box2d.then(Stats::default);
                let mut rapier = o.compare_rapier.then(Stats::default);
                for _ in 0..o.rounds {
                    for (&backend, stats) in o.backends.iter().zip(&mut ours) {
                        batch2d_round(w, &o.settings, backend, threads, steps, stats)?;
                    }
                    if let Some(stats) = &mut box2d {
                        box2d_round(w, threads, steps, stats)?;
                    }
                    if let Some(stats) = &mut rapier {
                        rapier_round(w, &pool, steps, stats)?;
                    }
                }
                if o.pile {
                    for (&backend, stats) in o.backends.iter().zip(&mut ours) {
                        stats.peak_kib =
                            run_alone("batch2d", w, backend, threads, steps, &o.settings_args)
                                .as_ref()
                                .map(AloneRun::memory);
                    }
                    for (engine, stats) in [("box2d", &mut box2d), ("rapier", &mut rapier)] {
                        if let Some(stats) = stats {
                            stats.peak_kib = run_alone(
                                engine,
                                w,
                                Backend::Simd,
                                threads,
                                steps,
                                &o.settings_args,
                            )
                            .as_ref()
                            .map(AloneRun::memory);
                        }
                    }
                }
                for (&backend, stats) in o.backends.iter().zip(&ours) {
                    print_row(&name, backend_name(backend), isa, threads, steps, stats);
                    print_extras(w, "batch2d", stats);
                }
                if let Some(stats) = &box2d {
                    print_row(&name, "box2d", box2d_scenes::simd(), threads, steps, stats);
                    print_extras(w, "box2d", stats);
                }
                if let Some(stats) = &rapier {
                    print_row(&name, "rapier2d", "-", threads, steps, stats);
                    print_extras(w, "rapier2d", stats);
                }
                for (engine, theirs) in [("box2d", &box2d), ("rapier2d", &rapier)] {
                    let Some(theirs) = theirs else { continue };
                    for (&backend, stats) in o.backends.iter().zip(&ours) {
                        comparisons.push(compare_line(w, backend, threads, stats, engine, theirs));
                    }
                }
            }
        } else {
            // Every configuration runs once per round, so that a slow spell of the machine
            // hits them all alike and the ratios between them stay fair.
            let configs: Vec<(Backend, usize)> = o
                .backends
                .iter()
                .flat_map(|&b| o.threads.iter().map(move |&t| (b, t)))
                .collect();
            let mut stats: Vec<Stats> = configs.iter().map(|_| Stats::default()).collect();
            for _ in 0..o.rounds {
                for (&(backend, threads), stats) in configs.iter().zip(&mut stats) {
                    batch2d_round(w, &o.settings, backend, threads, steps, stats)?;
                }
            }
            for (&(backend, threads), stats) in configs.iter().zip(&mut stats) {
                if o.pile {
                    stats.peak_kib =
                        run_alone("batch2d", w, backend, threads, steps, &o.settings_args)
                            .as_ref()
                            .map(AloneRun::memory);
                }
                print_row(&name, backend_name(backend), isa, threads, steps, stats);
                print_extras(w, "batch2d", stats);
            }
            for (i, &(backend, threads)) in configs.iter().enumerate().skip(1) {
                let (first_backend, first_threads) = configs[0];
                let speedup = stats[0].mean_ms() / stats[i].mean_ms();
                // Round by round too: the two ran side by side, so the spread of these ratios
                // shows how far the machine moved the speed-up during the run.
                let rounds = stats[0].round_means.iter().zip(&stats[i].round_means);
                let (low, high) = rounds.fold((f64::INFINITY, 0.0f64), |(low, high), (a, b)| {
                    (low.min(a / b), high.max(a / b))
                });
                scaling.push(format!(
                    "{name:<16} {} thr {threads} vs {} thr {first_threads}: {speedup:.2}x \
                     (means {:.3} / {:.3} ms; per round {low:.2}x to {high:.2}x)",
                    backend_name(backend),
                    backend_name(first_backend),
                    stats[0].mean_ms(),
                    stats[i].mean_ms(),
                ));
            }
        }
    }
    if !scaling.is_empty() {
        println!();
        println!(
            "speed-up against the first configuration (median of round means; rounds interleaved)"
        );
        for line in scaling {
            println!("{line}");
        }
    }
    if !comparisons.is_empty() {
        println!();
        let mut others = Vec::new();
        if o.compare_box2d {
            others.push(box2d_engine);
        }
        if o.compare_rapier {
            others.push(rapier_engine);
        }
        println!(
            "batch2d vs {}, median ms/step (ratio > 1: batch2d faster)",
            others.join(" and ")
        );
        for line in comparisons {
            println!("{line}");
        }
    }
    Ok(())
}

fn compare_line(
    w: Workload,
    backend: Backend,
    threads: usize,
    ours: &Stats,
    engine: &str,
    theirs: &Stats,
) -> String {
    let (a, b) = (ours.median_ms(), theirs.median_ms());
    let mut line = format!(
        "{:<14} {:>6} thr {}: batch2d {:>8.3}  {engine:>8} {:>8.3}  ratio {:>5.2}  bodies {}/{}  pairs {}/{}",
        w.name(),
        backend_name(backend),
        threads,
        a,
        b,
        b / a,
        ours.bodies,
        theirs.bodies,
        ours.pairs,
        theirs.pairs,
    );
    // The last round's value, in the printed unit.
    let last = |v: &[f32], unit: f32, digits: usize| {
        v.last()
            .map_or("?".to_string(), |x| format!("{:.*}", digits, x * unit))
    };
    if w.is_joint_grid() {
        let _ = write!(
            line,
            "  largest joint gap {} mm / {} mm (over the run {} mm / {} mm)",
            last(&ours.joint_gap, 1e3, 2),
            last(&theirs.joint_gap, 1e3, 2),
            last(&ours.joint_gap_peak, 1e3, 2),
            last(&theirs.joint_gap_peak, 1e3, 2),
        );
    }
    if w.is_large_pyramid() {
        let _ = write!(
            line,
            "  top-box drop {} m / {} m  widest side gap {} mm / {} mm",
            last(&ours.top_drop, 1.0, 3),
            last(&theirs.top_drop, 1.0, 3),
            last(&ours.side_gap, 1e3, 1),
            last(&theirs.side_gap, 1e3, 1),
        );
    }
    line
}
