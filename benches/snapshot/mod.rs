//! `--snapshot`: what saving and restoring a world costs beside a step of it, and how large
//! its snapshot is.
//!
//! ```text
//! cargo bench -p batch2d-bench --bench scenes -- --snapshot [--rounds R] [--warm N]
//! ```
//!
//! On particle_pile (20,000 bodies) and large_pyramid, each on one thread: steps the scene
//! `--warm` steps (300 by default) so that it has its contacts, then times, per round, one step
//! and each of `World::snapshot`, `Snapshot::to_bytes`, `Snapshot::from_bytes`,
//! `World::restore` and `World::clone`, and prints the median of each over the rounds with its
//! share of a step. The snapshot's size is split into bytes per body and per contact from two
//! snapshots of the same bodies with different contact counts (the pile before and after it
//! settles).

use batch2d::scenes::Scene;
use batch2d::{Snapshot, WorldSettings};
use std::error::Error;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn Error>>;

const DT: f32 = 1.0 / 60.0;

const USAGE: &str =
    "usage: cargo bench -p batch2d-bench --bench scenes -- --snapshot [--rounds R] [--warm N]";

/// `Some` with the mode's result when the arguments ask for `--snapshot`.
pub fn run_if_asked() -> Option<Res<()>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--snapshot") {
        return None;
    }
    Some(parse(&args).and_then(|(rounds, warm)| run(rounds, warm)))
}

fn parse(args: &[String]) -> Res<(usize, usize)> {
    let (mut rounds, mut warm) = (15, 300);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--bench" | "--snapshot" => {}
            "--rounds" | "--warm" => {
                let v: usize = it.next().ok_or(USAGE)?.parse()?;
                match arg.as_str() {
                    "--rounds" => rounds = v.max(1),
                    _ => warm = v,
                }
            }
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}").into()),
        }
    }
    Ok((rounds, warm))
}

/// Median seconds of `f` over `rounds` calls, each after an untimed `setup`.
fn median_after(rounds: usize, mut setup: impl FnMut(), mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            setup();
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Median seconds of `f` over `rounds` calls.
fn median(rounds: usize, f: impl FnMut()) -> f64 {
    median_after(rounds, || {}, f)
}

fn run(rounds: usize, warm: usize) -> Res<()> {
    println!("snapshot costs, one thread, median of {rounds} rounds, after {warm} steps");
    println!(
        "{:<14} {:>7} {:>8} {:>9} {:>17} {:>17} {:>17} {:>17} {:>17} {:>9} {:>7} {:>9}",
        "scene",
        "bodies",
        "contacts",
        "step ms",
        "snapshot ms (%)",
        "to_bytes ms (%)",
        "from_bytes ms (%)",
        "restore ms (%)",
        "clone ms (%)",
        "bytes",
        "B/body",
        "B/contact"
    );
    for scene in [Scene::ParticlePile, Scene::LargePyramid] {
        let settings = WorldSettings {
            threads: 1,
            ..WorldSettings::default()
        };
        let mut world = scene.build(settings.clone())?;
        let early = (world.snapshot().to_bytes().len(), world.contact_count());
        for _ in 0..warm {
            world.step(DT)?;
        }
        let snap = world.snapshot();
        let bytes = snap.to_bytes();
        // Each round steps from the same state, restored untimed before it.
        let stepped = std::cell::RefCell::new(world.clone());
        let step = median_after(
            rounds,
            || stepped.borrow_mut().restore(&snap).unwrap(),
            || stepped.borrow_mut().step(DT).unwrap(),
        );
        let mut stepped = stepped.into_inner();
        let mut keep = Vec::new();
        let t_snapshot = median(rounds, || keep.push(world.snapshot()));
        let mut out = Vec::new();
        let t_to_bytes = median(rounds, || out.push(snap.to_bytes()));
        let t_from_bytes = median(rounds, || keep.push(Snapshot::from_bytes(&bytes).unwrap()));
        let t_restore = median(rounds, || stepped.restore(&snap).unwrap());
        let mut clones = Vec::new();
        let t_clone = median(rounds, || clones.push(world.clone()));
        // The world read back steps as the original does.
        let read = Snapshot::from_bytes(&bytes)?;
        let mut twin = batch2d::World::from_snapshot(&read, settings.clone())?;
        let mut original = world.clone();
        twin.step(DT)?;
        original.step(DT)?;
        if twin.state_hash() != original.state_hash() {
            return Err(
                format!("{}: the world read back stepped differently", scene.name()).into(),
            );
        }
        let (bodies, contacts) = (world.body_count(), world.contact_count());
        let per_contact = if contacts != early.1 {
            (bytes.len() as f64 - early.0 as f64) / (contacts as f64 - early.1 as f64)
        } else {
            f64::NAN
        };
        let per_body = (bytes.len() as f64 - per_contact * contacts as f64) / bodies as f64;
        let cell = |t: f64| format!("{:.3} ({:.1}%)", t * 1e3, 100.0 * t / step);
        println!(
            "{:<14} {:>7} {:>8} {:>9.3} {:>17} {:>17} {:>17} {:>17} {:>17} {:>9} {:>7.1} {:>9.1}",
            scene.name(),
            bodies,
            contacts,
            step * 1e3,
            cell(t_snapshot),
            cell(t_to_bytes),
            cell(t_from_bytes),
            cell(t_restore),
            cell(t_clone),
            bytes.len(),
            per_body,
            per_contact
        );
    }
    Ok(())
}
