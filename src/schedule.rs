//! Runs the solver's stages on the workers of the current rayon pool.
//!
//! Stages run one after another; the blocks of one stage touch disjoint data and go to the
//! workers with a fork/join, whose work stealing balances them. The alternative, persistent
//! workers that enter once per step and pass an atomic barrier between stages, was measured
//! slower on the 2-core target (many_pyramids, 2 threads, solver stage: 8.1 to 11.0 ms against
//! 6.5 to 7.6 ms for the fork/join): when the OS deschedules one worker the barrier stalls all
//! of them, while work stealing hands its blocks to the others.

use crate::profile::zone;
use rayon::prelude::*;

/// Runs `execute(stage, block)` for every block of every stage, stage after stage.
/// `blocks[s]` is the number of blocks of stage `s`; a stage of one block runs on the calling
/// thread.
pub(crate) fn run_stages(blocks: &[usize], execute: impl Fn(usize, usize) + Sync) {
    let parallel = rayon::current_num_threads() > 1;
    for (stage, &n) in blocks.iter().enumerate() {
        if parallel && n > 1 {
            (0..n).into_par_iter().for_each(|block| {
                zone!("worker share of a solver stage");
                execute(stage, block);
            });
        } else {
            (0..n).for_each(|block| execute(stage, block));
        }
    }
}
