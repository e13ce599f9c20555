//! Continuous collision: fast bodies must not pass through static geometry within one step.
//!
//! Speculative contacts already reach as far as a pair can close in one step, judged from the
//! velocities at the start of the step (see `narrow_phase/contact.rs`); a body whose motion changes during
//! the step (a bounce, a turn, gravity over a long step) can still end it beyond a thin wall.
//! So after the solver, each body that moved far for its size this step (or is a bullet) is
//! swept from its pose at the start of the step to its new pose against the static bodies
//! near its path, and moved back to the earliest time of impact, just short of contact. Its
//! velocity is kept: the next step's speculative contact then stops it at the surface.
//!
//! Each body is handled on its own and the results are written per body, so the outcome does
//! not depend on the thread count.

use crate::body::BodyStore;
use crate::body::SlotKind;
use crate::broad_phase::box_grid::BoxGrid;
use crate::geometry::distance::{advance, Proxy, Sweep, ToiState};
use crate::geometry::math::{Aabb, Rot, Transform, Vec2};
use crate::narrow_phase::manifold::chain_faces;
use crate::profile::zone;
use crate::solver::Solver;
use batch2d_kernels::BodyState;
use rayon::prelude::*;
use std::sync::OnceLock;

/// A body is swept when it moved more than this fraction of its smallest extent in one step:
/// half its thickness is as far as it can go before a contact normal may flip and push it
/// through instead of back.
const MOTION_PER_EXTENT: f32 = 0.5;

/// Radius of the core disc swept for bodies that start in contact, as a fraction of the
/// body's smallest extent (see `earliest_impact`).
const CORE_PER_EXTENT: f32 = 0.25;

/// Width of the gap band, as a fraction of the linear slop above the target gap, in which the
/// time of impact is accepted.
const TOLERANCE_PER_SLOP: f32 = 0.25;

/// The static bodies fast bodies are swept against, kept from step to step: a level of static
/// tiles would otherwise cost every step with a fast body a box per tile and a grid of them.
#[derive(Clone, Default)]
pub(crate) struct SweepTargets {
    /// `BodyStore::static_changes` when `statics` was emptied last.
    changes: u64,
    /// Listed once a body is fast: in most steps of most scenes none is.
    statics: OnceLock<Statics>,
}

/// Moves every fast (or bullet) dynamic body back to its earliest time of impact against static
/// bodies over the step `solver` just solved, with the `slop` of the settings. Call after the
/// solver has written the poses.
pub(crate) fn solve_continuous(
    bodies: &mut BodyStore,
    solver: &Solver,
    slop: f32,
    targets: &mut SweepTargets,
) {
    zone!("continuous collision");
    if targets.changes != bodies.static_changes() {
        *targets = SweepTargets {
            changes: bodies.static_changes(),
            statics: OnceLock::new(),
        };
    }
    let rewinds = rewinds(bodies, solver, slop, &targets.statics);
    for (s, xf) in rewinds {
        bodies.center[s] = xf.apply(bodies.local_center[s]);
        bodies.rotation[s] = xf.q;
    }
}

/// The poses to which the fast bodies are moved back, with their slots.
fn rewinds(
    bodies: &BodyStore,
    solver: &Solver,
    slop: f32,
    statics: &OnceLock<Statics>,
) -> Vec<(usize, Transform)> {
    // One pass in the order of the solver's states, which it reads in sequence (in slot
    // order, where the graph has tiles, it gathered them). Only the rewinds are collected: a
    // falling pile has tens of thousands of fast bodies, nearly all of them far from every
    // static body.
    solver
        .motions()
        .with_min_len(BODIES_PER_TASK)
        .filter_map(|(s, motion)| {
            let motion = fast_motion(bodies, s, motion, slop)?;
            let statics = statics.get_or_init(|| static_boxes(bodies));
            let (sweep, t) = earliest_impact(bodies, s, motion, statics, slop)?;
            Some((s, sweep.transform_at(t)))
        })
        .collect()
}

/// Bodies per task of the pass that finds and sweeps the fast ones.
const BODIES_PER_TASK: usize = 1024;

/// The static bodies that are not sensors, with their boxes, in slot order, and a grid of
/// those boxes: a level built of thousands of static tiles would otherwise cost every fast
/// body a test of each.
#[derive(Clone)]
struct Statics {
    boxes: Vec<(usize, Aabb)>,
    /// Over `boxes`, by index.
    grid: BoxGrid,
}

/// The [`Statics`] of `bodies`.
fn static_boxes(bodies: &BodyStore) -> Statics {
    let boxes: Vec<(usize, Aabb)> = (0..bodies.slots())
        .filter(|&s| {
            bodies.kind[s] == SlotKind::Fixed && !bodies.sensor[s] && !bodies.is_disabled(s)
        })
        .map(|s| (s, bodies.body_aabb(s, bodies.transform(s))))
        .collect();
    let mut grid = BoxGrid::default();
    grid.build(0..boxes.len() as u32, |i| &boxes[i as usize].1);
    Statics { boxes, grid }
}

/// The sweep of body `slot` over the step's `motion` and the earliest fraction of it at which
/// the body comes within `slop` of a static body it collides with, if before the end of the
/// step. The sweep's angles cost two arctangents, so they are computed only once a static
/// body lies near the body's path (in a falling pile, few fast bodies are near a wall).
///
/// A static the body already touches at the start gives fraction 0: rewinding to it would
/// stop a body sliding along a wall dead, so the contact solver is trusted with it. That
/// trust fails when the contact's estimate of its gap is wrong (a body spinning by a large
/// angle per substep carries its contact anchors around with it), so the body's core, a
/// disc of a quarter of its smallest extent about its centre of mass, is swept as well:
/// the body may sink into the wall, but its centre never crosses it.
fn earliest_impact(
    b: &BodyStore,
    slot: usize,
    motion: Motion,
    statics: &Statics,
    slop: f32,
) -> Option<(Sweep, f32)> {
    let reach = b.reach[slot];
    let (c0, c1) = (b.center[slot] - motion.0, b.center[slot]);
    let path = Aabb::new(c0.min(c1), c0.max(c1)).fattened(reach);
    let mut sweep = None;
    let shapes = b.shapes(slot);
    let core = Proxy::circle(b.local_center[slot], CORE_PER_EXTENT * b.min_extent[slot]);
    let tolerance = TOLERANCE_PER_SLOP * slop;
    let mut earliest: Option<f32> = None;
    // The earliest impact is a minimum: the order in which the grid hands the statics over
    // does not change it.
    statics.grid.candidates(&path, |i| {
        let (s, ref aabb) = statics.boxes[i as usize];
        let filtered = b.broad_layers[slot] & b.broad_mask[s] == 0
            || b.broad_layers[s] & b.broad_mask[slot] == 0;
        if filtered || !aabb.overlaps(&path) {
            return;
        }
        let sweep = &*sweep.get_or_insert_with(|| sweep_of(b, slot, motion));
        let fixed_xf = b.transform(s);
        let fixed = Sweep::fixed(fixed_xf);
        let start = sweep.transform_at(0.0);
        // Every shape of the body against every shape of the static body that it collides
        // with (one of each unless one is a compound).
        for (cs, other_shape) in b.shapes(s).iter().enumerate() {
            let other = Proxy::new(other_shape);
            for (c, shape) in shapes.iter().enumerate() {
                let sensor = b.child_sensor(s, cs) || b.child_sensor(slot, c);
                // A chain segment the body starts behind lets it through, as its contacts do.
                let behind = !chain_faces(other_shape, fixed_xf, shape, start);
                if sensor || behind || !b.shapes_collide(slot, c, s, cs) {
                    continue;
                }
                let proxy = Proxy::new(shape);
                let mut toi = advance(&proxy, sweep, &other, &fixed, 1.0, slop, tolerance);
                if toi.fraction == 0.0 {
                    toi = advance(&core, sweep, &other, &fixed, 1.0, slop, tolerance);
                }
                let impact = matches!(toi.state, ToiState::Hit | ToiState::Unconverged);
                if impact && toi.fraction > 0.0 && earliest.is_none_or(|t| toi.fraction < t) {
                    earliest = Some(toi.fraction);
                }
            }
        }
    });
    Some((sweep?, earliest?))
}

/// How far a body moved over the last step: its translation and turn.
type Motion = (Vec2, Rot);

/// The motion of body `slot` over the last step if it is dynamic, not a sensor, and either a
/// bullet or moved more than [`MOTION_PER_EXTENT`] of its smallest extent (and more than the
/// slop).
///
/// Always inlined into the pass over every body: left to LLVM, whether that pass got it inlined
/// changed with unrelated code, and the pass was slower without.
#[inline(always)]
fn fast_motion(b: &BodyStore, slot: usize, motion: &BodyState, slop: f32) -> Option<Motion> {
    if b.kind[slot] != SlotKind::Dynamic {
        return None;
    }
    let dp = Vec2::new(motion.dp[0], motion.dp[1]);
    let dq = Rot {
        c: motion.dq[0],
        s: motion.dq[1],
    };
    // The chord of the turn times the reach is how far the turn moved the farthest point.
    let chord = Vec2::new(1.0 - dq.c, dq.s).length();
    let moved = dp.length() + chord * b.reach[slot];
    if moved <= slop {
        return None;
    }
    if !b.bullet[slot] && moved <= MOTION_PER_EXTENT * b.min_extent[slot] {
        return None;
    }
    // A sensor collides with nothing, so nothing stops it (tested last: few bodies get here).
    if b.sensor[slot] {
        return None;
    }
    Some((dp, dq))
}

/// The sweep of body `slot` from its pose at the start of the last step, `(dp, dq)` ago, to
/// its pose now.
fn sweep_of(b: &BodyStore, slot: usize, (dp, dq): Motion) -> Sweep {
    let center = b.center[slot];
    let q1 = b.rotation[slot];
    // The pose the step began with, recovered from the motion the solver accumulated.
    let q0 = Rot { c: dq.c, s: -dq.s }.compose(q1);
    let a0 = q0.angle();
    Sweep {
        local_center: b.local_center[slot],
        c0: center - dp,
        c1: center,
        a0,
        a1: a0 + dq.angle(),
    }
}
