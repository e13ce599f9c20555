//! Runs the solver's stages on the workers of the current rayon pool.
//!
//! Stages run one after another; the blocks of one stage touch disjoint data. The workers enter
//! once per step and walk the stages together: each claims the next run of blocks of the
//! current stage from a shared counter until none is left, then waits until every claimed
//! block of the stage is done before moving on. A worker waits only for blocks in progress,
//! never for another worker to arrive, so one that starts late (or is descheduled between
//! runs) holds nobody up: the others take its blocks.
//!
//! Against a fork/join per stage (rayon's `into_par_iter` over each stage's blocks; about 120
//! stages a step), on the 2-core target at 2 threads, alternating runs: large_pyramid's solver
//! stage 1.59 -> 1.44 ms (median of 5), and 5.0 -> 3.1 ms (of 3) with another process busy on
//! one core, where fork/join waits on workers that yielded their core. An earlier try of
//! persistent workers that waited for each other at every stage was slower than fork/join: a
//! barrier waits for the slowest worker to arrive, dynamic claiming does not. Claiming one
//! block at a time was slower too (every claim moves the counter's cache line between cores),
//! hence runs of blocks.

use crate::profile::zone;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many times a worker spins on a stage still in progress before yielding its core.
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// Claims per worker and stage: each claim takes a run of blocks, since every claim moves the
/// shared counter's cache line between cores; a few per worker still balance the load.
const CLAIMS_PER_THREAD: usize = 4;

/// Claimed and finished blocks of one stage, on a cache line of their own so that workers
/// claiming blocks of one stage do not slow those polling another.
#[derive(Default)]
#[repr(align(128))]
pub(crate) struct Progress {
    claimed: AtomicUsize,
    done: AtomicUsize,
}

/// Runs `execute(stage, block)` for every block of every stage, stage after stage.
/// `blocks[s]` is the number of blocks of stage `s`. `progress` is scratch, reused from step to
/// step so that a step allocates nothing.
pub(crate) fn run_stages(
    blocks: &[usize],
    progress: &mut Vec<Progress>,
    execute: impl Fn(usize, usize) + Sync,
) {
    let threads = rayon::current_num_threads();
    if threads == 1 {
        for (stage, &n) in blocks.iter().enumerate() {
            (0..n).for_each(|block| execute(stage, block));
        }
        return;
    }
    if progress.len() < blocks.len() {
        progress.resize_with(blocks.len(), Progress::default);
    }
    for p in &mut progress[..blocks.len()] {
        *p = Progress::default();
    }
    let progress = &progress[..blocks.len()];
    // One task per worker; a worker that picks up its task after the others have finished
    // finds every stage done and returns.
    (0..threads).into_par_iter().for_each(|_| {
        for (stage, (&n, p)) in blocks.iter().zip(progress).enumerate() {
            let claim = n.div_ceil(CLAIMS_PER_THREAD * threads).max(1);
            work_on(stage, n, claim, p, &execute);
        }
    });
}

/// Claims and runs runs of `claim` blocks of `stage` until none is left, then waits for the
/// other workers' blocks of the stage to finish.
fn work_on(stage: usize, n: usize, claim: usize, p: &Progress, execute: &impl Fn(usize, usize)) {
    let mut finished = 0;
    loop {
        let first = p.claimed.fetch_add(claim, Ordering::Relaxed);
        if first >= n {
            break;
        }
        zone!("worker share of a solver stage");
        let last = (first + claim).min(n);
        for block in first..last {
            execute(stage, block);
        }
        finished += last - first;
    }
    // Release: this worker's writes happen before any worker sees the stage complete; acquire:
    // if this completes the stage, every other block's writes are visible here.
    let done = p.done.fetch_add(finished, Ordering::AcqRel) + finished;
    let mut spins = 0;
    // Acquire: once complete, every block's writes are visible here.
    while done < n && p.done.load(Ordering::Acquire) < n {
        spins += 1;
        if spins < SPINS_BEFORE_YIELD {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}
