//! Runs the solver's stages on the workers of the current rayon pool.
//!
//! Stages run one after another; the blocks of one stage touch disjoint data. The workers enter
//! once per step and walk the stages together: each claims the next run of blocks of the
//! current stage from a shared counter until none is left, then waits until every claimed
//! block of the stage is done before moving on. A worker waits only for blocks in progress,
//! never for another worker to arrive, so one that starts late (or is descheduled between
//! runs) holds nobody up: the others take its blocks.
//!
//! A stage is cut into one segment per worker, and a worker claims from its own segment first.
//! When workers claimed from one shared counter, a body's state went back and forth between the
//! cores' caches from color to color; owning a segment, each worker keeps mostly to one region
//! of a pile, and the solver stages of particle_pile and large_pyramid at 2 threads got markedly
//! faster.
//!
//! Against a fork/join per stage (rayon's `into_par_iter` over each stage's blocks; about 120
//! stages a step) it is faster, most of all with another process busy on one core, where
//! fork/join waits on workers that yielded their core. An earlier try of
//! persistent workers that waited for each other at every stage was slower than fork/join: a
//! barrier waits for the slowest worker to arrive, dynamic claiming does not. Claiming one
//! block at a time was slower too (every claim moves the counter's cache line between cores),
//! hence runs of blocks.

use crate::profile::zone;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Batches per block of a contact stage: enough work to amortise claiming it, small enough to
/// balance the workers.
pub(crate) const BATCHES_PER_BLOCK: usize = 4;
/// Bodies per block of an integration stage (a multiple of `LANES`).
pub(crate) const BODIES_PER_BLOCK: usize = 1024;

/// The bodies (rows or slots below `count`) of a run of body blocks.
pub(crate) fn block_bodies(blocks: Range<usize>, count: usize) -> Range<usize> {
    blocks.start * BODIES_PER_BLOCK..(blocks.end * BODIES_PER_BLOCK).min(count)
}

/// How many times a worker spins on a stage still in progress before yielding its core.
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// Claims per worker and stage: each claim takes a run of blocks, since every claim moves the
/// shared counter's cache line between cores; a few per worker still balance the load.
const CLAIMS_PER_THREAD: usize = 4;

/// A counter on a cache line of its own, so that workers claiming blocks of one stage or
/// segment do not slow those polling another.
#[derive(Default)]
#[repr(align(128))]
struct Counter(AtomicUsize);

/// Scratch of [`run_stages`], reused from step to step so that a step allocates nothing.
#[derive(Default)]
pub(crate) struct Progress {
    /// Per stage and segment: blocks claimed from the segment's start.
    claimed: Vec<Counter>,
    /// Per stage: blocks finished.
    done: Vec<Counter>,
}

impl Clone for Progress {
    /// An empty one: `run_stages` resets the counters before every use, so a copy of a world
    /// needs none of them.
    fn clone(&self) -> Progress {
        Progress::default()
    }
}

/// Runs `execute(stage, blocks)` over every block of every stage, stage after stage, each
/// call a run of consecutive blocks to be run in order (on one thread, a whole stage: a call
/// per block cost more than small blocks' work). `blocks[s]` is the number of blocks of stage
/// `s`.
///
/// Each stage is cut into one segment per worker, and each worker works through its own segment
/// (by rayon thread index) before it helps with the others. The solver's stages list bodies and
/// contacts in creation order, which in a pile follows space, so a worker meets mostly the same
/// bodies in every stage and finds their states in its own cache rather than in the other
/// core's.
pub(crate) fn run_stages(
    blocks: &[usize],
    progress: &mut Progress,
    execute: impl Fn(usize, Range<usize>) + Sync,
) {
    let threads = rayon::current_num_threads();
    if threads == 1 {
        for (stage, &n) in blocks.iter().enumerate() {
            if n > 0 {
                execute(stage, 0..n);
            }
        }
        return;
    }
    let reset = |counters: &mut Vec<Counter>, len: usize| {
        counters.clear();
        counters.resize_with(len, Counter::default);
    };
    reset(&mut progress.claimed, blocks.len() * threads);
    reset(&mut progress.done, blocks.len());
    let progress = &*progress;
    let poisoned = AtomicBool::new(false);
    // One task per worker; a worker that picks up its task after the others have finished
    // finds every stage done and returns.
    (0..threads).into_par_iter().for_each(|_| {
        let _poison = PoisonOnPanic(&poisoned);
        let me = rayon::current_thread_index().unwrap_or(0) % threads;
        for (stage, &n) in blocks.iter().enumerate() {
            let stage_progress = StageProgress {
                segments: &progress.claimed[stage * threads..(stage + 1) * threads],
                done: &progress.done[stage].0,
            };
            let claim = n.div_ceil(CLAIMS_PER_THREAD * threads).max(1);
            let run = |blocks| execute(stage, blocks);
            if !work_on(n, claim, me, stage_progress, &poisoned, run) {
                return;
            }
        }
    });
}

/// The counters of one stage.
#[derive(Clone, Copy)]
struct StageProgress<'a> {
    segments: &'a [Counter],
    done: &'a AtomicUsize,
}

/// Raises its flag when dropped by a panic, so that the workers waiting on a block that will
/// never finish stop waiting, and rayon hands the panic on instead of hanging.
struct PoisonOnPanic<'a>(&'a AtomicBool);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// Claims and runs runs of `claim` of a stage's `n` blocks, each with one call of `execute`,
/// from worker `me`'s segment first,
/// then from the others, until none is left; then waits for the other workers' blocks of the
/// stage to finish. False if a worker panicked meanwhile.
fn work_on(
    n: usize,
    claim: usize,
    me: usize,
    p: StageProgress,
    poisoned: &AtomicBool,
    execute: impl Fn(Range<usize>),
) -> bool {
    let segments = p.segments.len();
    let mut finished = 0;
    for k in 0..segments {
        let s = (me + k) % segments;
        let (start, end) = (s * n / segments, (s + 1) * n / segments);
        loop {
            // A look before the claim: a claim takes the counter's cache line from the cores
            // reading it, and with many workers most segments a worker visits are used up.
            if start + p.segments[s].0.load(Ordering::Relaxed) >= end {
                break;
            }
            let first = start + p.segments[s].0.fetch_add(claim, Ordering::Relaxed);
            if first >= end {
                break;
            }
            zone!("worker share of a solver stage");
            let last = (first + claim).min(end);
            execute(first..last);
            finished += last - first;
        }
    }
    // Release: this worker's writes happen before any worker sees the stage complete; acquire:
    // if this completes the stage, every other block's writes are visible here.
    let done = p.done.fetch_add(finished, Ordering::AcqRel) + finished;
    let mut spins = 0;
    // Acquire: once complete, every block's writes are visible here.
    while done < n && p.done.load(Ordering::Acquire) < n {
        if poisoned.load(Ordering::Relaxed) {
            return false;
        }
        spins += 1;
        if spins < SPINS_BEFORE_YIELD {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block of every stage runs once, each stage after the one before it has finished.
    #[test]
    fn stages_run_in_order_and_every_block_once() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let blocks = [3, 0, 1, 17, 64, 2];
        let runs: Vec<Vec<AtomicUsize>> = blocks
            .iter()
            .map(|&n| (0..n).map(|_| AtomicUsize::new(0)).collect())
            .collect();
        let finished: Vec<AtomicUsize> = blocks.iter().map(|_| AtomicUsize::new(0)).collect();
        let mut progress = Progress::default();
        pool.install(|| {
            run_stages(&blocks, &mut progress, |stage, run| {
                if stage > 0 {
                    assert_eq!(
                        finished[stage - 1].load(Ordering::SeqCst),
                        blocks[stage - 1]
                    );
                }
                for block in run {
                    runs[stage][block].fetch_add(1, Ordering::SeqCst);
                    finished[stage].fetch_add(1, Ordering::SeqCst);
                }
            })
        });
        for (stage, runs) in runs.iter().enumerate() {
            for (block, count) in runs.iter().enumerate() {
                assert_eq!(
                    count.load(Ordering::SeqCst),
                    1,
                    "stage {stage} block {block}"
                );
            }
        }
    }

    /// A panic in one block reaches the caller; the other worker, waiting for that block to
    /// finish, does not hang.
    #[test]
    fn a_panicking_block_panics_the_caller_instead_of_hanging() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let blocks = [8, 8, 8];
        let mut progress = Progress::default();
        let result = pool.install(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_stages(&blocks, &mut progress, |stage, run| {
                    if stage == 1 && run.contains(&5) {
                        panic!("block failed");
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                })
            }))
        });
        assert!(result.is_err());
    }
}
