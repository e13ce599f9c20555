//! Continuous collision: fast bodies must not pass through static geometry within one step.
//!
//! Speculative contacts already reach as far as a pair can close in one step, judged from the
//! velocities at the start of the step (see `narrow_phase/contact/`); a body whose motion
//! changes during the step (a bounce, a turn, gravity over a long step) can still end it beyond
//! a thin wall.
//! So after the solver, each body that moved far for its size this step (or is a bullet) is
//! swept from its pose at the start of the step to its new pose against the static bodies
//! near its path, and moved back to the earliest time of impact, just short of contact. Its
//! velocity is kept: the next step's speculative contact then stops it at the surface.
//!
//! Bullets are swept last, as in Box2D: once the other bodies' poses are final (moved back
//! where they were fast), each bullet is swept against the fixed bodies, the kinematic and
//! non-bullet dynamic bodies where they end the step, and the other fast bullets along their
//! own motion over the step, so that two bullets fired at each other meet halfway. A bullet
//! moved back is then just short of what it would have passed through, and the next step's
//! contact stops it.
//!
//! Each body is handled on its own and the results are written per body, so the outcome does
//! not depend on the thread count.

use crate::body::BodyStore;
use crate::body::SlotKind;
use crate::broad_phase::box_grid::BoxGrid;
use crate::geometry::distance::{advance, Proxy, Sweep, ToiState};
use crate::geometry::math::{Aabb, Rot, Transform, Vec2};
use crate::index::BodySlot;
use crate::joints::store::JointStore;
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
/// bodies over the step `solver` just solved, with the `slop` of the settings, then every
/// fast bullet to its earliest against those and the other moving bodies (skipping the pairs
/// that `joints` keep apart). Call after the solver has written the poses.
pub(crate) fn solve_continuous(
    bodies: &mut BodyStore,
    solver: &Solver,
    slop: f32,
    targets: &mut SweepTargets,
    joints: &JointStore,
) {
    zone!("continuous collision");
    if targets.changes != bodies.static_changes() {
        *targets = SweepTargets {
            changes: bodies.static_changes(),
            statics: OnceLock::new(),
        };
    }
    let passes = rewinds(bodies, solver, slop, &targets.statics);
    let mut bullets = Vec::new();
    for pass in passes {
        match pass {
            Pass::Rewind(s, xf) => place(bodies, s, xf),
            Pass::Bullet(s, motion) => bullets.push((s, motion)),
        }
    }
    if bullets.is_empty() {
        return;
    }
    // The solver's order puts the bodies of its tiles first.
    bullets.sort_unstable_by_key(|&(s, _)| s);
    let statics = targets.statics.get_or_init(|| static_boxes(bodies));
    for (s, xf) in bullet_rewinds(bodies, &bullets, statics, joints, slop) {
        place(bodies, s, xf);
    }
}

fn place(bodies: &mut BodyStore, s: usize, xf: Transform) {
    let center = xf.apply(bodies.local_center()[s]);
    bodies.set_pose(s, center, xf.q);
}

/// What the pass over the moving bodies found for one of them.
enum Pass {
    /// Move the body in this slot back to this pose.
    Rewind(usize, Transform),
    /// A fast bullet, swept once the others are final, with its motion.
    Bullet(usize, Motion),
}

/// The poses to which the fast bodies that are not bullets are moved back, with their slots,
/// and the fast bullets.
fn rewinds(
    bodies: &BodyStore,
    solver: &Solver,
    slop: f32,
    statics: &OnceLock<Statics>,
) -> Vec<Pass> {
    // One pass in the order of the solver's states, which it reads in sequence (in slot
    // order, where the graph has tiles, it gathered them). Only the rewinds are collected: a
    // falling pile has tens of thousands of fast bodies, nearly all of them far from every
    // static body.
    // A chunk of bodies per call, each chunk a plain loop: a closure per body inside rayon's
    // adaptors was inlined into their loop or not as unrelated code changed, and the pass
    // paid a call per body when it was not.
    let (slots, motions) = solver.motions();
    (
        slots.par_chunks(BODIES_PER_TASK),
        motions.par_chunks(BODIES_PER_TASK),
    )
        .into_par_iter()
        .flat_map_iter(|(slots, motions)| fast_passes(bodies, slots, motions, slop, statics))
        .collect()
}

/// What [`rewinds`] finds for the bodies of one chunk, in order.
fn fast_passes(
    bodies: &BodyStore,
    slots: &[BodySlot],
    motions: &[BodyState],
    slop: f32,
    statics: &OnceLock<Statics>,
) -> Vec<Pass> {
    let mut found = Vec::new();
    for (slot, motion) in slots.iter().zip(motions) {
        let s = slot.index();
        if let Some((motion, bullet)) = fast_motion(bodies, s, motion, slop) {
            found.extend(fast_pass(bodies, s, motion, bullet, statics, slop));
        }
    }
    found
}

/// What [`rewinds`] finds for the fast body `s` that moved by `motion`. Never inlined: the
/// pass's loop over every body then holds the test for a fast body alone, small enough to be
/// inlined into the loop, and only the fast bodies, a minority even in a falling pile, pay a
/// call.
#[inline(never)]
fn fast_pass(
    bodies: &BodyStore,
    s: usize,
    motion: Motion,
    bullet: bool,
    statics: &OnceLock<Statics>,
    slop: f32,
) -> Option<Pass> {
    if bullet {
        return Some(Pass::Bullet(s, motion));
    }
    let statics = statics.get_or_init(|| static_boxes(bodies));
    // Most fast bodies are far from every wall: a tight pass over a few static boxes rules
    // them out before the search for the earliest impact sets out.
    if !statics.may_meet(&path_box(bodies, s, motion)) {
        return None;
    }
    let (sweep, t) = earliest_impact(bodies, s, motion, statics, slop)?;
    Some(Pass::Rewind(s, sweep.transform_at(t)))
}

/// The box body `slot` passes through over the step's `motion`: each of its points stays
/// within its reach of its centre, which moves along a straight line.
fn path_box(b: &BodyStore, slot: usize, motion: Motion) -> Aabb {
    let (c0, c1) = (b.center()[slot] - motion.0, b.center()[slot]);
    Aabb::new(c0.min(c1), c0.max(c1)).fattened(b.reach()[slot])
}

/// Bodies per task of the pass that finds and sweeps the fast ones.
const BODIES_PER_TASK: usize = 1024;

/// Up to this many static bodies, a fast body's path is tested against each of their boxes
/// rather than looked up in their grid.
const FEW_STATICS: usize = 8;

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
            bodies.kind()[s] == SlotKind::Fixed && !bodies.sensor()[s] && !bodies.is_disabled(s)
        })
        .map(|s| (s, bodies.body_aabb(s, bodies.transform(s))))
        .collect();
    let mut grid = BoxGrid::default();
    grid.build(0..boxes.len() as u32, |i| &boxes[i as usize].1);
    Statics { boxes, grid }
}

impl Statics {
    /// False when `path` surely meets no static body: there are few, and it overlaps none of
    /// their boxes (where there are many, their grid finds those it may meet).
    fn may_meet(&self, path: &Aabb) -> bool {
        let few = self.boxes.len() <= FEW_STATICS;
        !few || self.boxes.iter().any(|(_, aabb)| aabb.overlaps(path))
    }
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
    let path = path_box(b, slot, motion);
    let mut sweep = None;
    let mut earliest: Option<f32> = None;
    // The earliest impact is a minimum: the order in which the statics are handed over does
    // not change it.
    let visit = |i: u32| {
        let (s, ref aabb) = statics.boxes[i as usize];
        // The box first: most statics a fast body passes are far from its path.
        if !aabb.overlaps(&path) {
            return;
        }
        let filtered = b.broad_layers()[slot] & b.broad_mask()[s] == 0
            || b.broad_layers()[s] & b.broad_mask()[slot] == 0;
        if filtered {
            return;
        }
        let sweep = &*sweep.get_or_insert_with(|| sweep_of(b, slot, motion));
        let fixed = Sweep::fixed(b.transform(s));
        if let Some(t) = impact(b, (slot, sweep), (s, &fixed), slop) {
            earliest = Some(earliest.map_or(t, |e| e.min(t)));
        }
    };
    // A few statics (the floor and walls of a bin) are each tested for less than a look-up
    // in the grid costs.
    if statics.boxes.len() <= FEW_STATICS {
        (0..statics.boxes.len() as u32).for_each(visit);
    } else {
        statics.grid.candidates(&path, visit);
    }
    Some((sweep?, earliest?))
}

/// The earliest fraction at which body `slot` along `sweep` comes within `slop` of body `s`
/// along `other`, over every pair of their shapes that collide (one of each unless one is a
/// compound), if the two meet at all after the start.
fn impact(
    b: &BodyStore,
    (slot, sweep): (usize, &Sweep),
    (s, other): (usize, &Sweep),
    slop: f32,
) -> Option<f32> {
    let core = Proxy::circle(
        b.local_center()[slot],
        CORE_PER_EXTENT * b.min_extent()[slot],
    );
    let tolerance = TOLERANCE_PER_SLOP * slop;
    let (start, other_start) = (sweep.transform_at(0.0), other.transform_at(0.0));
    let mut earliest: Option<f32> = None;
    for (cs, other_shape) in b.shapes(s).iter().enumerate() {
        let other_proxy = Proxy::new(other_shape);
        for (c, shape) in b.shapes(slot).iter().enumerate() {
            let sensor = b.child_sensor(s, cs) || b.child_sensor(slot, c);
            // A chain segment the body starts behind lets it through, as its contacts do.
            let behind = !chain_faces(other_shape, other_start, shape, start);
            if sensor || behind || !b.shapes_collide(slot, c, s, cs) {
                continue;
            }
            let proxy = Proxy::new(shape);
            let mut toi = advance(&proxy, sweep, &other_proxy, other, 1.0, slop, tolerance);
            if toi.fraction == 0.0 {
                toi = advance(&core, sweep, &other_proxy, other, 1.0, slop, tolerance);
            }
            let hit = matches!(toi.state, ToiState::Hit | ToiState::Unconverged);
            if hit && toi.fraction > 0.0 && earliest.is_none_or(|t| toi.fraction < t) {
                earliest = Some(toi.fraction);
            }
        }
    }
    earliest
}

/// The poses to which the fast `bullets` (slot and motion, in slot order) are moved back:
/// each to its earliest impact against the static bodies, the kinematic and other dynamic
/// bodies where they are now (their poses final), and the other bullets along their motion
/// over the step. Pairs the broadphase layers, the shapes' filters or a joint (`joints`)
/// keep apart are skipped.
fn bullet_rewinds(
    b: &BodyStore,
    bullets: &[(usize, Motion)],
    statics: &Statics,
    joints: &JointStore,
    slop: f32,
) -> Vec<(usize, Transform)> {
    let sweeps: Vec<Sweep> = bullets.iter().map(|&(s, m)| sweep_of(b, s, m)).collect();
    let paths: Vec<Aabb> = bullets
        .iter()
        .map(|&(s, motion)| path_box(b, s, motion))
        .collect();
    let mut grid = BoxGrid::default();
    grid.build(0..bullets.len() as u32, |i| &paths[i as usize]);
    // The moving bodies each bullet's path may cross, as (bullet, slot): every body is
    // within its reach of its centre.
    let is_bullet = |s: usize| bullets.binary_search_by_key(&s, |&(slot, _)| slot).ok();
    let mut near: Vec<(u32, usize)> = Vec::new();
    for s in 0..b.slots() {
        let moving = matches!(b.kind()[s], SlotKind::Dynamic | SlotKind::Kinematic);
        if !moving || b.sensor()[s] || b.is_disabled(s) {
            continue;
        }
        // A bullet may be anywhere along its path; any other body is where it ends.
        let region = match is_bullet(s) {
            Some(j) => paths[j],
            None => Aabb::new(b.center()[s], b.center()[s]).fattened(b.reach()[s]),
        };
        grid.candidates(&region, |i| {
            if bullets[i as usize].0 != s && paths[i as usize].overlaps(&region) {
                near.push((i, s));
            }
        });
    }
    near.sort_unstable();
    let mut out = Vec::new();
    for (i, &(slot, motion)) in bullets.iter().enumerate() {
        let sweep = &sweeps[i];
        let mut earliest = earliest_impact(b, slot, motion, statics, slop).map(|(_, t)| t);
        let first = near.partition_point(|&(j, _)| (j as usize) < i);
        for &(_, s) in near[first..].iter().take_while(|&&(j, _)| j as usize == i) {
            let filtered = b.broad_layers()[slot] & b.broad_mask()[s] == 0
                || b.broad_layers()[s] & b.broad_mask()[slot] == 0;
            if filtered || !joints.lets_collide(slot, s) {
                continue;
            }
            // Another bullet moves along its own sweep; every other body is where it ends.
            let other = match is_bullet(s) {
                Some(j) => sweeps[j],
                None => Sweep::fixed(b.transform(s)),
            };
            if let Some(t) = impact(b, (slot, sweep), (s, &other), slop) {
                earliest = Some(earliest.map_or(t, |e| e.min(t)));
            }
        }
        if let Some(t) = earliest {
            out.push((slot, sweep.transform_at(t)));
        }
    }
    out
}

/// How far a body moved over the last step: its translation and turn.
type Motion = (Vec2, Rot);

/// The motion of body `slot` over the last step if it is dynamic, not a sensor, and either a
/// bullet or moved more than [`MOTION_PER_EXTENT`] of its smallest extent (and more than the
/// slop), and whether it is a bullet.
///
/// Always inlined into the pass over every body: left to LLVM, whether that pass got it inlined
/// changed with unrelated code, and the pass was slower without.
#[inline(always)]
fn fast_motion(
    b: &BodyStore,
    slot: usize,
    motion: &BodyState,
    slop: f32,
) -> Option<(Motion, bool)> {
    if b.kind()[slot] != SlotKind::Dynamic {
        return None;
    }
    let dp = Vec2::new(motion.dp[0], motion.dp[1]);
    let dq = Rot {
        c: motion.dq[0],
        s: motion.dq[1],
    };
    // The chord of the turn times the reach is how far the turn moved the farthest point.
    let chord = Vec2::new(1.0 - dq.c, dq.s).length();
    let moved = dp.length() + chord * b.reach()[slot];
    if moved <= slop {
        return None;
    }
    let bullet = b.bullet()[slot];
    if !bullet && moved <= MOTION_PER_EXTENT * b.min_extent()[slot] {
        return None;
    }
    // A sensor collides with nothing, so nothing stops it (tested last: few bodies get here).
    if b.sensor()[slot] {
        return None;
    }
    Some(((dp, dq), bullet))
}

/// The sweep of body `slot` from its pose at the start of the last step, `(dp, dq)` ago, to
/// its pose now.
fn sweep_of(b: &BodyStore, slot: usize, (dp, dq): Motion) -> Sweep {
    let center = b.center()[slot];
    let q1 = b.rotation()[slot];
    // The pose the step began with, recovered from the motion the solver accumulated.
    let q0 = Rot { c: dq.c, s: -dq.s }.compose(q1);
    let a0 = q0.angle();
    Sweep {
        local_center: b.local_center()[slot],
        c0: center - dp,
        c1: center,
        a0,
        a1: a0 + dq.angle(),
    }
}
