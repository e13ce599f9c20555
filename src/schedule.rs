//! Runs the solver's stages on the workers of the current rayon pool.
//!
//! Stages run one after another; the blocks of one stage touch disjoint data and go to the
//! workers with a fork/join, whose work stealing balances them. The alternative, persistent
//! workers that enter once per step (`rayon::broadcast`) and pass an atomic spin barrier
//! between stages, was measured slower on the 2-core target, loaded or idle. Idle machine,
//! 2 threads, solver stage, three interleaved rounds (persistent against fork/join):
//! many_pyramids 7.6-8.9 ms against 6.2-8.7 ms, particle_pile 4.0-8.5 ms against 2.9-3.5 ms,
//! large_pyramid 1.9-2.2 ms against 1.5-1.9 ms. A barrier waits for the slowest worker at
//! every stage, while work stealing lets a worker that is ahead take the other's blocks.

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
