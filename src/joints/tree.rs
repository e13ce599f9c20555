//! The exact solve of rigid joints: every acyclic graph of rigid joints is solved at once, in
//! time linear in its size, so that chains, ropes, welded beams and ragdolls hold whatever the
//! masses they carry.
//!
//! The soft joint passes (see `passes`) relax each joint against its neighbours in turn:
//! a chain of forty links under a heavy weight needs far more passes than a step has, and it
//! stretches and bounces like a bungee. Yet the joints of a chain, a beam or a rope form a
//! tree once fixed bodies are left out (a fixed body is not a node: it cuts the graph), and a
//! tree's equations can be solved exactly by eliminating leaves first (Baraff, "Linear-time
//! dynamics using Lagrange multipliers", 1996). The system is the augmented one,
//!
//! ```text
//!   [ M  J^T ] [ dv ]   [  0  ]
//!   [ J   0  ] [ mu ] = [ rhs ]      dv: velocity change, -mu: the joints' impulses
//! ```
//!
//! whose graph has a node per moving body (its 3x3 mass block) and per joint (its rows,
//! padded to three) and an edge per joint and body: a tree. Ordered children before parents,
//! its block factorization makes no fill-in; one forward and one backward sweep solve it.
//!
//! A joint is solved here when its whole solve is rigid equality rows (a revolute joint
//! without limits or motor, a weld without spring, a distance joint of fixed length) or a
//! hinge's (a revolute joint with limits, and perhaps a motor, without spring: its turn row is
//! an inequality, see [`Hinge`]), its moving bodies can turn, and, among the joints taken
//! before it in slot order, it closes no cycle and gives no tree a second joint to a fixed
//! body; the others stay in the soft passes, and so do all the joints of a group of jointed
//! bodies where one closed a loop. Trees are found again when the joints, the bodies' kinds,
//! masses or enabled flags, or the solver's states change (see `LayoutKey`). Per substep the trees warm start
//! with the joints; solve their velocities exactly after each joint and contact pass, and last
//! of all (a hinge's limit as a speculative one); and after the positions are integrated,
//! project them back onto the joints (post-stabilization: Newton steps on the position error
//! through the same factorization, which move the bodies without changing their velocities,
//! so no error correction turns into motion; a hinge's limit once it is passed; a tree held
//! by nothing is then turned as a whole to keep its angular momentum), and last of
//! all solve the velocities once more at the new positions, turning them there rather than
//! shortening them (see `keep_energy`), so that an undamped pendulum keeps its energy. A tree
//! is one block of its stage, and no two trees share a moving body, so the workers' order
//! changes nothing; the solve is scalar f64 code, without fused multiply-add, the same for
//! both backends.

use crate::body::BodyStore;
use crate::disjoint::DisjointMut;
use crate::geometry::math::{Rot, Vec2};
use crate::index::{BodySlot, NONE};
use crate::joints::batches::LayoutKey;
use crate::joints::joint::{Joint, JointKind, Slot};
use crate::joints::pair::relative_angle;
use batch2d_kernels::body::{cap_speeds, States};
use batch2d_kernels::{BodyState, NULL_BODY};
use std::cmp::Ordering;
use std::f32::consts::PI;
use std::ops::Range;

/// The largest block: a body (three velocities) with a joint to a fixed body (up to three
/// rows); a joint's block is padded to this size.
const N: usize = 6;
type V3 = [f64; 3];
type M3 = [[f64; 3]; 3];
type V = [f64; N];
type M = [[f64; N]; N];

const ZERO3: M3 = [[0.0; 3]; 3];
const ZERO: M = [[0.0; N]; N];

/// The rows of a joint solved exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rows {
    /// A revolute joint: B's anchor on A's (x, y).
    Point,
    /// A weld: the point and the relative angle.
    Weld,
    /// A distance joint of fixed length: the distance between the anchors.
    Distance,
    /// A revolute joint with limits, and perhaps a motor: the point, and the relative turn as
    /// one bounded row (see [`Hinge`]).
    Hinge,
}

impl Rows {
    /// The rows `joint` has in the exact solve, or `None` when some part of its solve is
    /// neither a rigid equality nor a hinge's turn row (a motor without limits, a spring, a
    /// slack range) or its kind has rows this solve does not model.
    fn of(joint: &Joint) -> Option<Rows> {
        // A spring of 0 Hz is off (`World::set_joint_spring`).
        let springless = joint.spring.is_none_or(|(hertz, _)| hertz <= 0.0);
        match joint.kind {
            JointKind::Revolute if springless => match joint.active_limits() {
                Some(_) => Some(Rows::Hinge),
                None if joint.active_motor().is_none() => Some(Rows::Point),
                None => None,
            },
            JointKind::Weld if springless => Some(Rows::Weld),
            JointKind::Distance => match (joint.spring, joint.length_range) {
                (None, None) => Some(Rows::Distance),
                (_, Some((min, max))) if min == max => Some(Rows::Distance),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A joint of a tree: its constants for the step and its accumulated impulse.
#[derive(Clone, Copy, Debug)]
struct TreeJoint {
    rows: Rows,
    /// The joint's slot in the store.
    slot: u32,
    /// Solver states of A and B (`NULL_BODY` for a body the solver does not move).
    state: [u32; 2],
    /// Whether A and B are nodes of the tree (a moving dynamic body); a side that is not is
    /// fixed for this solve, though a kinematic one has a velocity.
    node: [bool; 2],
    inv_mass: [f32; 2],
    inv_inertia: [f32; 2],
    /// Anchors relative to the centres of mass and rotations, at the start of the step.
    r: [Vec2; 2],
    q: [Rot; 2],
    /// B's centre minus A's at the start of the step.
    delta_center: Vec2,
    /// A's and B's centres at the start of the step.
    center: [Vec2; 2],
    reference_angle: f32,
    length: f32,
    /// The accumulated impulse of the rows (world x, y on B; the angular row or the distance
    /// row), as the joint keeps it between steps.
    impulse: V3,
    /// Scratch of a solve: the rows' Jacobian blocks for A and B (rows by vx, vy, w).
    jacobian: [M3; 2],
    /// A hinge's limits and motor (`Rows::Hinge`; unused otherwise).
    hinge: Hinge,
    /// The places among its tree's nodes of A's and B's nodes (`NONE` for a side that is not
    /// a node), and of the node holding the joint's rows, with the first of them there.
    place: [u32; 2],
    rows_at: (u32, usize),
}

/// A hinge's turn row: B's turn relative to A's, kept within the limits and driven by the
/// motor, with one impulse, the motor's and the limits' together.
///
/// Solved apart from the point rows, a limit's impulse turns the body about its centre and
/// the point rows turn it back about the hinge, pass after pass: a bar hinged at its end and
/// turning at 40 rad/s passed its limit by almost 2 degrees. In the exact solve the row acts
/// through the whole tree at once.
#[derive(Clone, Copy, Debug, Default)]
struct Hinge {
    lower: f32,
    upper: f32,
    /// The motor's speed and maximum torque (zero without a motor).
    speed: f32,
    max_torque: f32,
    has_motor: bool,
    /// The part of its law the row is on (see [`Law`]): where the last solve ended, and the
    /// next starts its search.
    part: usize,
    /// Scratch of a solve: the row's law, and whether the row is an equality of the block.
    law: Law,
    active: bool,
    /// Scratch of a projection: the limit its steps hold the row at, once one passed it.
    /// Held no more, the row was pushed past it again by the steps that moved the rest of
    /// the tree (a falling chain of limited hinges stayed 0.57 degrees past).
    held: Option<f64>,
}

impl Hinge {
    fn new(joint: &Joint) -> Hinge {
        let (lower, upper) = joint.active_limits().unwrap_or((-PI, PI));
        let motor = joint.active_motor();
        let (speed, max_torque) = motor.unwrap_or((0.0, 0.0));
        let i = &joint.impulses;
        // Where the last step left the row, as its impulses tell.
        let part = match (i.lower > 0.0, i.upper > 0.0) {
            (true, _) => 0,
            (_, true) => 4,
            _ => 2,
        };
        Hinge {
            lower,
            upper,
            speed,
            max_torque,
            has_motor: motor.is_some(),
            part,
            law: Law::default(),
            active: false,
            held: None,
        }
    }

    /// The limit that relative angle `angle` has passed, if any.
    fn passed(&self, angle: f64) -> Option<f64> {
        let (lower, upper) = (f64::from(self.lower), f64::from(self.upper));
        if angle > upper {
            Some(upper)
        } else if angle < lower {
            Some(lower)
        } else {
            None
        }
    }
}

/// The law of a hinge's turn row in one velocity solve: the row's impulse against its
/// velocity `v`, a graph that falls as `v` rises. A limit still ahead lets the row close the
/// gap within the substep and no more (`v` within `low..=high`, a speculative limit; a limit
/// passed holds `v` at zero, and the position projection undoes the rest); the motor pushes
/// towards its speed with at most its cap. In order of velocity, the parts are
///
/// 0. held at `low`, by an impulse of at least the motor's there (the lower limit);
/// 1. free below the motor's speed, the motor pushing with `+cap`;
/// 2. held at the motor's speed, the motor within its cap;
/// 3. free above the motor's speed, the motor pushing with `-cap`;
/// 4. held at `high`, by an impulse of at most the motor's there (the upper limit).
///
/// Without a motor, the cap is zero and the speed is `high`: parts 0, 1 (free, with no
/// impulse) and 4. The row's own response, its velocity against its impulse with the rest of
/// the tree solved exactly, rises: it meets the graph once, and a solve on one part that ends
/// off it says on which side the meeting lies.
#[derive(Clone, Copy, Debug, Default)]
struct Law {
    low: f64,
    high: f64,
    speed: f64,
    cap: f64,
}

/// What one part of a [`Law`] asks of its row.
#[derive(Clone, Copy, Debug)]
enum Part {
    /// The velocity held at `target`; the impulse belongs within `lo..=hi`.
    Held { target: f64, lo: f64, hi: f64 },
    /// The impulse set; the velocity belongs within `lo..=hi`.
    Free { impulse: f64, lo: f64, hi: f64 },
}

impl Part {
    /// Where the row meets its law from this part, after a solve on it left the row with
    /// `impulse` and `velocity`: on a part of lower velocity (`Less`), this one, or higher.
    fn side(self, impulse: f64, velocity: f64) -> Ordering {
        let (value, lo, hi, falls) = match self {
            Part::Held { lo, hi, .. } => (impulse, lo, hi, true),
            Part::Free { lo, hi, .. } => (velocity, lo, hi, false),
        };
        // Along the law the impulse falls as the velocity rises.
        let side = if value < lo {
            Ordering::Less
        } else if value > hi {
            Ordering::Greater
        } else {
            Ordering::Equal
        };
        if falls {
            side.reverse()
        } else {
            side
        }
    }
}

impl Law {
    /// The law of `hinge` at relative angle `angle`, for substeps `h` long.
    fn new(hinge: &Hinge, angle: f32, h: f32) -> Law {
        let inv_h = 1.0 / f64::from(h);
        let angle = f64::from(angle);
        let low = -(angle - f64::from(hinge.lower)).max(0.0) * inv_h;
        let high = (f64::from(hinge.upper) - angle).max(0.0) * inv_h;
        let (speed, cap) = match hinge.has_motor {
            true => (
                f64::from(hinge.speed),
                f64::from(hinge.max_torque) * f64::from(h),
            ),
            false => (high, 0.0),
        };
        Law {
            low,
            high,
            speed,
            cap,
        }
    }

    /// Part `k`, if this law has it.
    fn part(&self, k: usize) -> Option<Part> {
        let Law {
            low,
            high,
            speed,
            cap,
        } = *self;
        match k {
            0 => Some(Part::Held {
                target: low,
                lo: if speed > low { cap } else { -cap },
                hi: f64::INFINITY,
            }),
            1 => (speed > low).then_some(Part::Free {
                impulse: cap,
                lo: low,
                hi: speed.min(high),
            }),
            2 => (low < speed && speed < high && cap > 0.0).then_some(Part::Held {
                target: speed,
                lo: -cap,
                hi: cap,
            }),
            3 => (speed < high).then_some(Part::Free {
                impulse: -cap,
                lo: speed.max(low),
                hi: high,
            }),
            4 => Some(Part::Held {
                target: high,
                lo: f64::NEG_INFINITY,
                hi: if speed < high { -cap } else { cap },
            }),
            _ => None,
        }
    }

    /// The part next below `k`, if any.
    fn below(&self, k: usize) -> Option<usize> {
        (0..k).rev().find(|&p| self.part(p).is_some())
    }

    /// The part next above `k`, if any.
    fn above(&self, k: usize) -> Option<usize> {
        (k + 1..PARTS).find(|&p| self.part(p).is_some())
    }

    /// Part `k` if this law has it, else the nearest it has (the limits' parts it always has).
    fn nearest(&self, k: usize) -> usize {
        match self.part(k) {
            Some(_) => k,
            None => self.below(k).unwrap_or(0),
        }
    }
}

/// The number of parts of a [`Law`].
const PARTS: usize = 5;

/// A node of a tree, with the scratch of the factorization: a joint between two bodies of
/// the tree, or a body together with its joint to a fixed body, if it has one.
///
/// A joint to a fixed body has one body in the tree: as a node of its own it would be a leaf
/// whose block is zero, which cannot be eliminated first. Joined to its body's node, it makes
/// a block of the body's mass and the joint's rows (indefinite, but regular), and every
/// joint node left has two bodies, one of which is eliminated into it first.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The body's state, or the joint's index among the tree joints.
    index: u32,
    is_body: bool,
    /// A body's joint to a fixed body: its index among the tree joints, or `NONE`.
    fixed_joint: u32,
    /// The parent's place among the tree's nodes (`NONE` for the root) and the side (0: A,
    /// 1: B) that the body of this edge has in the joint of this edge.
    parent: u32,
    side: u8,
    /// A body's mass and moment of inertia, and its centre at the start of the step.
    mass: f64,
    inertia: f64,
    center: [f64; 2],
    /// The block of this node's rows and the parent's columns.
    edge: M,
    /// The diagonal block, then its inverse once factored.
    d: M,
    y: V,
    x: V,
}

/// One tree: its nodes (children before parents, the root last) and joints, and whether it is
/// free: held by no body outside it (then it keeps its momenta, see [`keep_angular_momentum`]).
#[derive(Clone, Debug)]
struct Tree {
    nodes: Range<usize>,
    joints: Range<usize>,
    free: bool,
}

/// The step's joint trees.
#[derive(Clone, Default)]
pub(crate) struct JointTrees {
    /// Per joint slot: whether a tree solves it (then the soft passes leave it out).
    pub(crate) exact: Vec<bool>,
    joints: Vec<TreeJoint>,
    nodes: Vec<Node>,
    trees: Vec<Tree>,
    /// Scratch: union-find over states, the joints at each state between two bodies of a
    /// tree (offsets into `adjacent`), per state its joint to a fixed body (a candidate's
    /// index or `NONE`) and its inverse mass and inertia, per state and per joint whether the
    /// search has reached it, the search's queue.
    parent: Vec<u32>,
    fixed_joint: Vec<u32>,
    /// Per union-find root: whether its tree has a joint to a fixed body.
    anchored: Vec<bool>,
    /// A body of each joint that closed a loop.
    closing: Vec<u32>,
    inv_mass: Vec<(f32, f32)>,
    offsets: Vec<u32>,
    adjacent: Vec<u32>,
    seen_body: Vec<bool>,
    queue: Vec<(bool, u32, u32, u8)>,
    fill: Vec<u32>,
    /// The joints that may join a tree, as found: only those left after
    /// [`Self::leave_loops`] are built into `candidates`, so that a world of looped joints
    /// (a grid) pays for the search alone.
    found: Vec<Found>,
    candidates: Vec<TreeJoint>,
    /// Per state, its node's place in the tree being laid out.
    place_of: Vec<u32>,
    /// The substep's length, as the last [`JointTrees::passes`] gave it.
    h: f32,
    /// The key of the inputs `exact`, `found`, `fixed_joint` and `inv_mass` were searched
    /// for.
    searched: Option<LayoutKey>,
}

fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let up = parent[parent[i as usize] as usize];
        parent[i as usize] = up;
        i = up;
    }
    i
}

impl JointTrees {
    /// The number of trees (blocks of a tree stage).
    pub(crate) fn len(&self) -> usize {
        self.trees.len()
    }

    /// Lays out the step's trees among the joints in `slots`: `state_of` maps body slots to
    /// solver states, of which there are `states`. Which joints they take is searched for
    /// anew only when `key` differs from the last search's.
    pub(crate) fn prepare(
        &mut self,
        key: LayoutKey,
        slots: &[Slot],
        bodies: &BodyStore,
        state_of: &[u32],
        states: usize,
    ) {
        self.joints.clear();
        self.nodes.clear();
        self.trees.clear();
        self.candidates.clear();
        if self.searched != Some(key) {
            self.search(slots, bodies, state_of, states);
            self.searched = Some(key);
        }
        let rotation = bodies.rotation();
        for f in &self.found {
            let Some(joint) = &slots[f.slot as usize].joint else {
                continue;
            };
            let [a, b] = [joint.a, joint.b].map(BodySlot::index);
            let mut sides = f.sides;
            // The rotations of the step, which the search's may not be.
            (sides[0].4, sides[1].4) = (rotation[a], rotation[b]);
            let centers = [a, b].map(|s| bodies.center()[s]);
            let candidate = TreeJoint::new(joint, f.slot, f.rows, sides, centers);
            self.candidates.push(candidate);
        }
        if !self.candidates.is_empty() {
            self.lay_out(states);
        }
    }

    /// Finds the joints the trees take (`exact` and `found`, with each body's joint to a
    /// fixed body and inverse mass and inertia) among the joints in `slots`.
    fn search(&mut self, slots: &[Slot], bodies: &BodyStore, state_of: &[u32], states: usize) {
        self.exact.clear();
        self.found.clear();
        if slots.iter().all(|s| s.joint.is_none()) {
            return;
        }
        self.exact.resize(slots.len(), false);
        self.parent.clear();
        self.parent.extend(0..states as u32);
        self.fixed_joint.clear();
        self.fixed_joint.resize(states, NONE);
        self.anchored.clear();
        self.anchored.resize(states, false);
        self.closing.clear();
        self.inv_mass.clear();
        self.inv_mass.resize(states, (0.0, 0.0));
        // A side: its state and whether it is a node (a dynamic body the solver moves, which
        // can turn); `None` for a dynamic body that cannot turn, whose joints stay soft.
        let side = |slot: BodySlot| -> Option<TreeSide> {
            let s = slot.index();
            let state = state_of[s];
            let (m, i) = (bodies.inv_mass()[s], bodies.inv_inertia()[s]);
            let q = bodies.rotation()[s];
            match (state, m > 0.0) {
                (NULL_BODY, _) | (_, false) => Some((state, false, 0.0, 0.0, q)),
                (_, true) if i > 0.0 => Some((state, true, m, i, q)),
                _ => None,
            }
        };
        for (slot, s) in slots.iter().enumerate() {
            let Some(joint) = &s.joint else { continue };
            let Some(rows) = Rows::of(joint) else {
                continue;
            };
            // A disabled body's joints do not act (`World::set_enabled`).
            if joint.a == BodySlot::NONE || bodies.either_disabled(joint.a, joint.b) {
                continue;
            }
            let (Some(a), Some(b)) = (side(joint.a), side(joint.b)) else {
                continue;
            };
            match (a.1, b.1) {
                (false, false) => continue,
                (true, true) => {
                    let (ra, rb) = (find(&mut self.parent, a.0), find(&mut self.parent, b.0));
                    let (fa, fb) = (self.anchored[ra as usize], self.anchored[rb as usize]);
                    if ra == rb || (fa && fb) {
                        self.closing.extend([a.0, b.0]);
                        continue;
                    }
                    self.parent[ra as usize] = rb;
                    self.anchored[rb as usize] = fa || fb;
                }
                // One joint to a fixed body per tree: a tree held at two places closes a loop
                // through the fixed world, which can be nearly singular (a bridge's deck
                // spanning its gap with little slack blew up); the soft passes take it.
                (node_a, _) => {
                    let state = if node_a { a.0 } else { b.0 };
                    let root = find(&mut self.parent, state);
                    if self.anchored[root as usize] {
                        self.closing.push(state);
                        continue;
                    }
                    self.anchored[root as usize] = true;
                    self.fixed_joint[state as usize] = self.found.len() as u32;
                }
            }
            for side in [a, b] {
                if side.1 {
                    self.inv_mass[side.0 as usize] = (side.2, side.3);
                }
            }
            self.exact[slot] = true;
            self.found.push(Found {
                slot: slot as u32,
                rows,
                sides: [a, b],
            });
        }
        self.leave_loops();
    }

    /// Leaves to the soft passes every joint of a group of joined bodies in which some joint
    /// closed a loop (among the bodies, or through the fixed world): such a group is not a
    /// tree, and solving a spanning tree of it exactly beside soft loop joints costs the
    /// exact solve without its exactness (a grid of ten thousand jointed bodies).
    fn leave_loops(&mut self) {
        if self.closing.is_empty() {
            return;
        }
        let mut closing = std::mem::take(&mut self.closing);
        for state in closing.iter_mut() {
            *state = find(&mut self.parent, *state);
        }
        closing.sort_unstable();
        let mut kept = 0;
        for k in 0..self.found.len() {
            let j = self.found[k];
            let [a, b] = j.sides;
            let state = if a.1 { a.0 } else { b.0 };
            let root = find(&mut self.parent, state);
            if closing.binary_search(&root).is_ok() {
                self.exact[j.slot as usize] = false;
                if !(a.1 && b.1) {
                    self.fixed_joint[state as usize] = NONE;
                }
                continue;
            }
            if !(a.1 && b.1) {
                self.fixed_joint[state as usize] = kept as u32;
            }
            self.found[kept] = j;
            kept += 1;
        }
        self.found.truncate(kept);
        closing.clear();
        self.closing = closing;
    }

    /// Orders the candidate joints and their bodies into trees: each from the body of its
    /// joint to the fixed world, if it has one, else from the first body of its first joint in
    /// slot order; breadth first, then reversed so that children come before their parents.
    fn lay_out(&mut self, states: usize) {
        self.link(states);
        self.seen_body.clear();
        self.seen_body.resize(states, false);
        // Trees held by the fixed world first, each from the body with that joint: its block
        // then stays the root's, never eliminated into a joint.
        for held in [true, false] {
            for k in 0..self.candidates.len() {
                let j = &self.candidates[k];
                if (j.node[0] && j.node[1]) == held {
                    continue;
                }
                let root = if j.node[0] { j.state[0] } else { j.state[1] };
                if !self.seen_body[root as usize] {
                    self.push_tree(root);
                }
            }
        }
    }

    /// Lists each body's joints to other bodies (`adjacent`, from `offsets`).
    fn link(&mut self, states: usize) {
        let candidates = &self.candidates;
        let between = |j: &TreeJoint| j.node[0] && j.node[1];
        self.offsets.clear();
        self.offsets.resize(states + 1, 0);
        for j in candidates.iter().filter(|j| between(j)) {
            for side in 0..2 {
                self.offsets[j.state[side] as usize + 1] += 1;
            }
        }
        for i in 0..states {
            self.offsets[i + 1] += self.offsets[i];
        }
        self.adjacent.clear();
        self.adjacent.resize(self.offsets[states] as usize, 0);
        let fill = &mut self.fill;
        fill.clear();
        fill.extend_from_slice(&self.offsets);
        for (k, j) in candidates.iter().enumerate().filter(|(_, j)| between(j)) {
            for side in 0..2 {
                let at = &mut fill[j.state[side] as usize];
                self.adjacent[*at as usize] = k as u32;
                *at += 1;
            }
        }
    }

    /// Lays out the tree of `root`, breadth first from it, then reversed so that children
    /// come before their parents.
    fn push_tree(&mut self, root: u32) {
        let candidates = &self.candidates;
        // The search: (is a body, index, parent's place in the queue, side).
        let queue = &mut self.queue;
        queue.clear();
        queue.push((true, root, NONE, 0));
        self.seen_body[root as usize] = true;
        let mut at = 0;
        while at < queue.len() {
            let (is_body, index, from, _) = queue[at];
            if is_body {
                let range = self.offsets[index as usize]..self.offsets[index as usize + 1];
                for &k in &self.adjacent[range.start as usize..range.end as usize] {
                    // The joint it was reached by is its parent.
                    if from != NONE && queue[from as usize].1 == k {
                        continue;
                    }
                    let side = u8::from(candidates[k as usize].state[1] == index);
                    queue.push((false, k, at as u32, side));
                }
            } else {
                let joint = &candidates[index as usize];
                for side in 0..2 {
                    let state = joint.state[side];
                    if !self.seen_body[state as usize] {
                        self.seen_body[state as usize] = true;
                        queue.push((true, state, at as u32, side as u8));
                    }
                }
            }
            at += 1;
        }
        // Reversed: the node at queue place `p` goes to `n - 1 - p`.
        let n = queue.len();
        let (node_start, joint_start) = (self.nodes.len(), self.joints.len());
        // A joint with the node holding its rows and the first of them there; its index
        // among the tree's joints.
        let mut push_joint = |k: u32, rows_at: (u32, usize)| {
            let mut j = candidates[k as usize];
            j.rows_at = rows_at;
            self.joints.push(j);
            (self.joints.len() - 1 - joint_start) as u32
        };
        self.place_of.resize(self.inv_mass.len(), NONE);
        for &(is_body, index, parent, side) in queue.iter().rev() {
            let parent = match parent {
                NONE => NONE,
                p => (n - 1 - p as usize) as u32,
            };
            let mut node = Node {
                index,
                is_body,
                fixed_joint: NONE,
                parent,
                side,
                mass: 0.0,
                inertia: 0.0,
                center: [0.0; 2],
                edge: ZERO,
                d: ZERO,
                y: [0.0; N],
                x: [0.0; N],
            };
            let place = (self.nodes.len() - node_start) as u32;
            if is_body {
                let (m, i) = self.inv_mass[index as usize];
                node.mass = 1.0 / f64::from(m);
                node.inertia = 1.0 / f64::from(i);
                self.place_of[index as usize] = place;
                let fixed = self.fixed_joint[index as usize];
                if fixed != NONE {
                    node.fixed_joint = push_joint(fixed, (place, 3));
                }
            } else {
                node.index = push_joint(index, (place, 0));
            }
            self.nodes.push(node);
        }
        // Children come first, so a joint's bodies are placed only once all are.
        let mut free = true;
        for j in &mut self.joints[joint_start..] {
            free &= j.node[0] && j.node[1];
            for side in 0..2 {
                if j.node[side] {
                    let place = self.place_of[j.state[side] as usize];
                    j.place[side] = place;
                    let c = j.center[side];
                    self.nodes[node_start + place as usize].center = [c.x, c.y].map(f64::from);
                }
            }
        }
        self.trees.push(Tree {
            nodes: node_start..self.nodes.len(),
            joints: joint_start..self.joints.len(),
            free,
        });
    }

    /// Writes the step's impulses back to the joints.
    pub(crate) fn store_impulses(&self, slots: &mut [Slot]) {
        for j in &self.joints {
            let Some(joint) = slots[j.slot as usize].joint.as_mut() else {
                continue;
            };
            let [x, y, z] = j.impulse.map(|v| v as f32);
            let i = &mut joint.impulses;
            match j.rows {
                Rows::Point => i.linear = Vec2::new(x, y),
                Rows::Weld => {
                    i.linear = Vec2::new(x, y);
                    i.angular = z;
                }
                Rows::Distance => i.axial = x,
                Rows::Hinge => {
                    i.linear = Vec2::new(x, y);
                    i.angular = 0.0;
                    // The row's impulse is the motor's and the limits' together: held at a
                    // limit, the motor pushes as its law says there and the limit takes the
                    // rest; elsewhere the motor's share is what its cap allows.
                    let motor = match (j.hinge.part, j.hinge.law.part(j.hinge.part)) {
                        (0, Some(Part::Held { lo, .. })) => lo as f32,
                        (4, Some(Part::Held { hi, .. })) => hi as f32,
                        _ => z,
                    };
                    let cap = j.hinge.max_torque * self.h;
                    i.motor = motor.clamp(-cap, cap);
                    i.lower = (z - i.motor).max(0.0);
                    i.upper = (i.motor - z).max(0.0);
                }
            }
        }
    }

    /// The passes of this step, for the solver's stages (after [`JointTrees::prepare`]),
    /// with substeps `h` long, within the solver's speed caps `(linear, angular)`.
    pub(crate) fn passes(&mut self, h: f32, speed_caps: (f32, f32)) -> TreePasses<'_> {
        self.h = h;
        TreePasses {
            joints: DisjointMut::new(&mut self.joints),
            nodes: DisjointMut::new(&mut self.nodes),
            trees: &self.trees,
            speed_caps,
            h,
        }
    }
}

/// The tree passes of one step, shared by the workers of the solver's stages: each runs
/// whole trees, which share no moving body.
#[derive(Clone, Copy)]
pub(crate) struct TreePasses<'a> {
    joints: DisjointMut<'a, TreeJoint>,
    nodes: DisjointMut<'a, Node>,
    trees: &'a [Tree],
    /// The solver's speed caps, `(linear, angular)`, which every velocity a tree writes
    /// obeys: a tree's joint to a kinematic body fighting a contact with a static one (a
    /// body welded to a spinning kinematic disk and buried in a fixed polygon) grows both
    /// impulses without end, and the velocities they leave must not carry the body
    /// arbitrarily far within a substep. A tree that obeys its law never comes near them.
    speed_caps: (f32, f32),
    /// The substep's length: a hinge may close the gap to its limit within it, and its motor
    /// pushes with at most its torque over it.
    h: f32,
}

/// What a tree stage does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TreeOp {
    /// Applies the joints' impulses of the last substep again.
    WarmStart,
    /// Sets the velocities so that no joint row moves, by the joints' impulses.
    Solve,
    /// Moves the bodies so that no joint row has an error, along the directions the joints
    /// push them (`M^-1 J^T`): the position error the velocity solve, exact only to first
    /// order in the substep, leaves. A free tree is then turned as a whole to keep its
    /// angular momentum (see [`keep_angular_momentum`]).
    Project,
    /// Sets the velocities so that no joint row moves at the positions the projection left,
    /// turning them rather than shortening them (see [`keep_energy`]): the velocities the
    /// substep ends with.
    Relax,
}

/// A body's velocity as a vector of f64.
fn velocity(s: &BodyState) -> V3 {
    [s.v[0], s.v[1], s.w].map(f64::from)
}

/// Writes velocity `v` (vx, vy, w) to state `index`, in f32 and within the solver's speed
/// caps: joints fighting through bodies nothing moves must not leave a runaway speed for the
/// positions to integrate.
///
/// # Safety
/// As [`States::write_velocity`].
unsafe fn write_capped_velocity(states: States, index: u32, v: V3, caps: (f32, f32)) {
    let v = v.map(|x| x as f32);
    let (lin, w) = cap_speeds([v[0], v[1]], v[2], caps.0, caps.1);
    states.write_velocity(index, &BodyState::with_velocity(lin, w));
}

fn mul_vec3(m: &M3, v: &V3) -> V3 {
    [0, 1, 2].map(|i| m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2])
}

/// `m^T v`.
fn mul_t_vec3(m: &M3, v: &V3) -> V3 {
    [0, 1, 2].map(|i| m[0][i] * v[0] + m[1][i] * v[1] + m[2][i] * v[2])
}

fn mul_vec(m: &M, v: &V) -> V {
    let mut out = [0.0; N];
    for (o, row) in out.iter_mut().zip(m) {
        for (a, b) in row.iter().zip(v) {
            *o += a * b;
        }
    }
    out
}

/// `a^T b`.
fn mul_t(a: &M, b: &M) -> M {
    let mut out = ZERO;
    for k in 0..N {
        for i in 0..N {
            for j in 0..N {
                out[i][j] += a[k][i] * b[k][j];
            }
        }
    }
    out
}

fn mul(a: &M, b: &M) -> M {
    let mut out = ZERO;
    for i in 0..N {
        for k in 0..N {
            for j in 0..N {
                out[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    out
}

/// The inverse of `m` by Gauss-Jordan elimination with partial pivoting (the blocks are
/// indefinite: a body's mass beside its joint's zero block); zero when `m` is singular, as a
/// joint whose rows repeat another's is (it then takes no impulse).
fn inverse(m: &M) -> M {
    let mut a = *m;
    let mut inv = ZERO;
    for (i, row) in inv.iter_mut().enumerate() {
        row[i] = 1.0;
    }
    for c in 0..N {
        let mut pivot = c;
        for r in c + 1..N {
            if a[r][c].abs() > a[pivot][c].abs() {
                pivot = r;
            }
        }
        let p = a[pivot][c];
        if p == 0.0 || !p.is_finite() {
            return ZERO;
        }
        a.swap(c, pivot);
        inv.swap(c, pivot);
        let scale = 1.0 / p;
        for j in 0..N {
            a[c][j] *= scale;
            inv[c][j] *= scale;
        }
        for r in 0..N {
            let f = a[r][c];
            if r == c || f == 0.0 {
                continue;
            }
            for j in 0..N {
                a[r][j] -= f * a[c][j];
                inv[r][j] -= f * inv[c][j];
            }
        }
    }
    inv
}

impl TreeJoint {
    /// The Jacobian blocks of A and B and the position error of the rows, now: from the
    /// states' motion since the step began.
    fn rows_now(&self, a: &BodyState, b: &BodyState) -> ([M3; 2], V3) {
        let dq = |s: &BodyState| Rot {
            c: s.dq[0],
            s: s.dq[1],
        };
        let (dqa, dqb) = (dq(a), dq(b));
        let ra = dqa.rotate(self.r[0]);
        let rb = dqb.rotate(self.r[1]);
        let dp = Vec2::new(b.dp[0] - a.dp[0], b.dp[1] - a.dp[1]);
        let d = (dp + self.delta_center) + (rb - ra);
        let arm = |r: Vec2| (f64::from(r.x), f64::from(r.y));
        let ((rax, ray), (rbx, rby)) = (arm(ra), arm(rb));
        match self.rows {
            Rows::Point | Rows::Weld | Rows::Hinge => {
                let turns = self.rows != Rows::Point;
                let turn = if turns { 1.0 } else { 0.0 };
                let ja = [[-1.0, 0.0, ray], [0.0, -1.0, -rax], [0.0, 0.0, -turn]];
                let jb = [[1.0, 0.0, -rby], [0.0, 1.0, rbx], [0.0, 0.0, turn]];
                let angle = if turns { self.angle_now(a, b) } else { 0.0 };
                ([ja, jb], [d.x, d.y, angle].map(f64::from))
            }
            Rows::Distance => {
                let n = d.normalized().unwrap_or(Vec2::ZERO);
                let (nx, ny) = (f64::from(n.x), f64::from(n.y));
                let ca = rax * ny - ray * nx;
                let cb = rbx * ny - rby * nx;
                let ja = [[-nx, -ny, -ca], [0.0; 3], [0.0; 3]];
                let jb = [[nx, ny, cb], [0.0; 3], [0.0; 3]];
                ([ja, jb], [f64::from(d.length() - self.length), 0.0, 0.0])
            }
        }
    }

    /// B's angle relative to A's, minus the reference angle, now.
    fn angle_now(&self, a: &BodyState, b: &BodyState) -> f32 {
        let dq = |s: &BodyState| Rot {
            c: s.dq[0],
            s: s.dq[1],
        };
        let qa = dq(a).compose(self.q[0]);
        let qb = dq(b).compose(self.q[1]);
        relative_angle(qa, qb, self.reference_angle)
    }

    /// The rows that are padding: a unit diagonal entry keeps the block regular, and their
    /// zero rows and right-hand side give them no impulse.
    fn padding(&self) -> V3 {
        match self.rows {
            Rows::Point => [0.0, 0.0, -1.0],
            Rows::Weld => [0.0; 3],
            Rows::Distance => [0.0, -1.0, -1.0],
            Rows::Hinge if self.hinge.active => [0.0; 3],
            Rows::Hinge => [0.0, 0.0, -1.0],
        }
    }
}

impl TreePasses<'_> {
    /// Runs one pass over tree `tree`: a warm start, a biased solve or a relax.
    ///
    /// # Safety
    /// No other thread accesses the tree, or the states its joints move, meanwhile; the
    /// joints' states are those of `states`.
    pub(crate) unsafe fn run(self, op: TreeOp, tree: usize, states: States) {
        let tree = &self.trees[tree];
        let joints = self.joints.slice(tree.joints.clone());
        let nodes = self.nodes.slice(tree.nodes.clone());
        match op {
            TreeOp::WarmStart => warm_start(joints, states, self.speed_caps),
            TreeOp::Solve => solve_velocities(joints, nodes, states, self.h, self.speed_caps),
            TreeOp::Project => {
                for j in joints.iter_mut() {
                    j.hinge.held = None;
                }
                // The moment of the momenta that the moves take, for a free tree.
                let mut taken = 0.0;
                for _ in 0..PROJECTIONS {
                    assemble(joints, nodes, states, true);
                    eliminate(nodes);
                    if tree.free {
                        taken += moment_of_moves(nodes, states);
                    }
                    move_bodies(nodes, states);
                }
                if tree.free {
                    keep_angular_momentum(nodes, states, taken, self.speed_caps);
                }
            }
            TreeOp::Relax => {
                let before = kinetic_energy(nodes, states);
                solve_velocities(joints, nodes, states, self.h, self.speed_caps);
                keep_energy(joints, nodes, states, before, self.h, self.speed_caps);
            }
        }
    }
}

/// Newton steps of one position projection. A light rope swinging a heavy load (AVBD's heavy
/// rope) tore apart after three seconds with two steps per substep, and also with steps that
/// stopped once every error was under 10 micrometres: the steps act on the links' zigzag
/// modes, which only the tension holds straight, even where the errors are small. Four hold it.
const PROJECTIONS: usize = 4;

/// Applies each joint's accumulated impulse again, leaving the velocities within `caps`.
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn warm_start(joints: &mut [TreeJoint], states: States, caps: (f32, f32)) {
    for j in joints.iter() {
        let (a, b) = (states.read(j.state[0]), states.read(j.state[1]));
        let (jacobian, _) = j.rows_now(&a, &b);
        for (side, s) in [a, b].iter().enumerate() {
            if !j.node[side] {
                continue;
            }
            let p = mul_t_vec3(&jacobian[side], &j.impulse);
            let (m, i) = (f64::from(j.inv_mass[side]), f64::from(j.inv_inertia[side]));
            let v = velocity(s);
            let v = [v[0] + m * p[0], v[1] + m * p[1], v[2] + i * p[2]];
            write_capped_velocity(states, j.state[side], v, caps);
        }
    }
}

/// A joint side as the trees take it: its state, whether it is a node (a dynamic body the
/// solver moves, which can turn), inverse mass and inertia (zero for a side that is not a
/// node) and rotation.
type TreeSide = (u32, bool, f32, f32, Rot);

/// A joint found to join two sides of a tree, before loops are left out.
#[derive(Clone, Copy)]
struct Found {
    slot: u32,
    rows: Rows,
    sides: [TreeSide; 2],
}

impl TreeJoint {
    /// `joint` in `slot`, with its `rows`, its sides and its bodies' centres.
    fn new(
        joint: &Joint,
        slot: u32,
        rows: Rows,
        [a, b]: [TreeSide; 2],
        centers: [Vec2; 2],
    ) -> Self {
        let i = &joint.impulses;
        let impulse = match rows {
            Rows::Point | Rows::Weld => [i.linear.x, i.linear.y, i.angular],
            Rows::Distance => [i.axial, 0.0, 0.0],
            Rows::Hinge => [
                i.linear.x,
                i.linear.y,
                i.angular + i.motor + i.lower - i.upper,
            ],
        };
        TreeJoint {
            rows,
            slot,
            state: [a.0, b.0],
            node: [a.1, b.1],
            inv_mass: [a.2, b.2],
            inv_inertia: [a.3, b.3],
            r: [a.4.rotate(joint.local_a), b.4.rotate(joint.local_b)],
            q: [a.4, b.4],
            delta_center: centers[1] - centers[0],
            center: centers,
            reference_angle: joint.reference_angle,
            length: joint.length,
            impulse: impulse.map(f64::from),
            jacobian: [ZERO3; 2],
            hinge: Hinge::new(joint),
            place: [NONE; 2],
            rows_at: (NONE, 0),
        }
    }
}

/// Solves the tree's velocities exactly: changes them so that no equality row moves, and
/// each hinge's row keeps its law, by the joints' impulses alone; the bodies' velocities stay
/// within `caps`.
///
/// A hinge's row is an inequality, so the solve searches the part of each hinge's law that
/// its row meets (an active set): the rows held at a velocity are equality rows of the block
/// factorization, the rows whose impulse is set push the bodies as given, and a solve whose
/// rows end off their parts moves each such part one towards where the row meets its law,
/// and solves again. One hinge's row meets its law within four moves, since its response is
/// a rising line; the parts the last solve ended on start the next solve's search.
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn solve_velocities(
    joints: &mut [TreeJoint],
    nodes: &mut [Node],
    states: States,
    h: f32,
    caps: (f32, f32),
) {
    let hinges = joints.iter().any(|j| j.rows == Rows::Hinge);
    if hinges {
        for j in joints.iter_mut().filter(|j| j.rows == Rows::Hinge) {
            let (a, b) = (states.read(j.state[0]), states.read(j.state[1]));
            j.hinge.law = Law::new(&j.hinge, j.angle_now(&a, &b), h);
            j.hinge.part = j.hinge.law.nearest(j.hinge.part);
        }
    }
    for round in 1..=SEARCH_ROUNDS {
        assemble(joints, nodes, states, false);
        eliminate(nodes);
        if !hinges || round == SEARCH_ROUNDS || !move_parts(joints, nodes, states) {
            break;
        }
    }
    apply_impulses(joints, nodes, states, caps);
}

/// The most solves of one velocity solve while its hinges' rows search their laws' parts.
const SEARCH_ROUNDS: usize = 8;

/// Moves each hinge's part one towards where its row meets its law, after a solve; whether
/// any moved.
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn move_parts(joints: &mut [TreeJoint], nodes: &[Node], states: States) -> bool {
    let mut moved = false;
    for j in joints.iter_mut().filter(|j| j.rows == Rows::Hinge) {
        let law = j.hinge.law;
        let Some(part) = law.part(j.hinge.part) else {
            continue;
        };
        // The row's impulse and velocity as the solve left them.
        let (impulse, velocity) = match part {
            Part::Held { target, .. } => {
                let (at, first) = j.rows_at;
                (j.impulse[2] - nodes[at as usize].x[first + 2], target)
            }
            Part::Free { impulse, .. } => {
                let turn = |side: usize| {
                    let w = f64::from(states.read(j.state[side]).w);
                    match j.place[side] {
                        NONE => w,
                        at => w + nodes[at as usize].x[2],
                    }
                };
                (impulse, turn(1) - turn(0))
            }
        };
        let next = match part.side(impulse, velocity) {
            Ordering::Less => law.below(j.hinge.part),
            Ordering::Greater => law.above(j.hinge.part),
            Ordering::Equal => None,
        };
        if let Some(next) = next {
            j.hinge.part = next;
            moved = true;
        }
    }
    moved
}

impl TreeJoint {
    /// The rows' Jacobians at the bodies' motion now, kept in `jacobian`, and the change they
    /// ask for: of the position error when projecting, else of the rows' velocity. A hinge's
    /// turn row that its law leaves free is padding, its Jacobian zero.
    ///
    /// # Safety
    /// As for [`TreePasses::run`].
    unsafe fn rows_and_change(&mut self, states: States, project: bool) -> V3 {
        let (a, b) = (states.read(self.state[0]), states.read(self.state[1]));
        let (jacobian, error) = self.rows_now(&a, &b);
        self.jacobian = jacobian;
        let mut rhs = if project {
            error.map(|e| -e)
        } else {
            let (va, vb) = (velocity(&a), velocity(&b));
            let (ca, cb) = (mul_vec3(&jacobian[0], &va), mul_vec3(&jacobian[1], &vb));
            [0, 1, 2].map(|r| -(ca[r] + cb[r]))
        };
        if self.rows == Rows::Hinge {
            // The turn row is an equality while a limit is passed (positions), or while its
            // part of the law holds a velocity (velocities); else it is padding.
            let row = if project {
                self.hinge.held = self.hinge.held.or(self.hinge.passed(error[2]));
                self.hinge.held.map(|limit| limit - error[2])
            } else {
                match self.hinge.law.part(self.hinge.part) {
                    Some(Part::Held { target, .. }) => Some(target + rhs[2]),
                    _ => None,
                }
            };
            self.hinge.active = row.is_some();
            rhs[2] = row.unwrap_or(0.0);
            if row.is_none() {
                self.jacobian[0][2] = [0.0; 3];
                self.jacobian[1][2] = [0.0; 3];
            }
        }
        rhs
    }
}

/// Fills each node's block, right-hand side and edge to its parent from the rows' Jacobians
/// at the bodies' motion now.
///
/// # Safety
/// As for [`TreePasses::run`].
// Blocks are indexed by row and column, as the formulas above write them.
#[allow(clippy::needless_range_loop)]
unsafe fn assemble(joints: &mut [TreeJoint], nodes: &mut [Node], states: States, project: bool) {
    for n in nodes.iter_mut() {
        n.d = ZERO;
        n.y = [0.0; N];
        if n.is_body {
            n.d[0][0] = n.mass;
            n.d[1][1] = n.mass;
            n.d[2][2] = n.inertia;
            if n.fixed_joint == NONE {
                for r in 3..N {
                    n.d[r][r] = -1.0;
                }
                continue;
            }
            let j = &mut joints[n.fixed_joint as usize];
            let rhs = j.rows_and_change(states, project);
            let side = usize::from(j.node[1]);
            let (g, pad) = (j.jacobian[side], j.padding());
            for r in 0..3 {
                for c in 0..3 {
                    n.d[3 + r][c] = g[r][c];
                    n.d[c][3 + r] = g[r][c];
                }
                n.d[3 + r][3 + r] = pad[r];
                n.y[3 + r] = rhs[r];
            }
        } else {
            let j = &mut joints[n.index as usize];
            let (rhs, pad) = (j.rows_and_change(states, project), j.padding());
            for r in 0..3 {
                n.d[r][r] = pad[r];
                n.d[3 + r][3 + r] = -1.0;
                n.y[r] = rhs[r];
            }
        }
    }
    // A hinge whose part sets its impulse pushes its bodies by the change (`J^T` times it).
    for j in joints.iter().filter(|j| j.rows == Rows::Hinge && !project) {
        if let Some(Part::Free { impulse, .. }) = j.hinge.law.part(j.hinge.part) {
            let change = impulse - j.impulse[2];
            for (side, sign) in [(0, -1.0), (1, 1.0)] {
                if j.place[side] != NONE {
                    nodes[j.place[side] as usize].y[2] += sign * change;
                }
            }
        }
    }
    link_parents(joints, nodes);
}

/// The edges to the parents: a joint's rows for a body's velocities, or their transpose.
fn link_parents(joints: &[TreeJoint], nodes: &mut [Node]) {
    for i in 0..nodes.len() {
        let n = nodes[i];
        if n.parent == NONE {
            continue;
        }
        let p = nodes[n.parent as usize];
        let (joint, body_side) = if n.is_body {
            (p.index, n.side)
        } else {
            (n.index, n.side)
        };
        let block = joints[joint as usize].jacobian[body_side as usize];
        let edge = &mut nodes[i].edge;
        *edge = ZERO;
        for r in 0..3 {
            for c in 0..3 {
                if n.is_body {
                    edge[c][r] = block[r][c];
                } else {
                    edge[r][c] = block[r][c];
                }
            }
        }
    }
}

/// Eliminates the nodes into their parents, leaves first, then finds each node's unknowns
/// from its parent's, root first: no fill-in, as the tree is ordered children first.
#[allow(clippy::needless_range_loop)]
fn eliminate(nodes: &mut [Node]) {
    // Leaves first: each node, its children eliminated, is eliminated into its parent.
    for i in 0..nodes.len() {
        let n = &mut nodes[i];
        n.d = inverse(&n.d);
        if n.parent == NONE {
            continue;
        }
        let w = mul_t(&n.edge, &n.d);
        let (dp, yp) = (mul(&w, &n.edge), mul_vec(&w, &n.y));
        let p = &mut nodes[n.parent as usize];
        for r in 0..N {
            for c in 0..N {
                p.d[r][c] -= dp[r][c];
            }
            p.y[r] -= yp[r];
        }
    }
    // Root first: each node's unknowns from its parent's.
    for i in (0..nodes.len()).rev() {
        let n = nodes[i];
        let mut y = n.y;
        if n.parent != NONE {
            let xp = nodes[n.parent as usize].x;
            let e = mul_vec(&n.edge, &xp);
            for r in 0..N {
                y[r] -= e[r];
            }
        }
        nodes[i].x = mul_vec(&n.d, &y);
    }
}

/// Moves the bodies by the projection's displacements (`project`).
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn move_bodies(nodes: &[Node], states: States) {
    for n in nodes.iter().filter(|n| n.is_body) {
        let s = &mut states.slice_mut(n.index as usize, 1)[0];
        let [x, y, angle, ..] = n.x;
        s.dp = [s.dp[0] + x as f32, s.dp[1] + y as f32];
        let dq = Rot {
            c: s.dq[0],
            s: s.dq[1],
        };
        let dq = Rot::from_angle(angle as f32).compose(dq).normalized();
        s.dq = [dq.c, dq.s];
    }
}

/// The angular momentum that the projection's displacements (`project`) add to the bodies,
/// whose velocities they leave: `sum m dx x v`. They move no centre of mass of a free tree
/// (each joint pushes its two bodies apart by opposite impulses), so it is the same about
/// every point.
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn moment_of_moves(nodes: &[Node], states: States) -> f64 {
    let mut moment = 0.0;
    for n in nodes.iter().filter(|n| n.is_body) {
        let [vx, vy, _] = velocity(&states.read(n.index));
        moment += n.mass * (n.x[0] * vy - n.x[1] * vx);
    }
    moment
}

/// Turns a free tree as one rigid body, about its centre of mass, so as to take back the
/// angular momentum `added` that the projection gave it.
///
/// The projection moves the bodies back onto their joints without changing their
/// velocities (see [`TreeOp::Project`]), and that changes the moment of their momenta: two
/// bodies hinged together and spinning at 30 rad/s drift outwards as they move straight on
/// for a substep, are pulled back in at the speed they had, and lost 0.8% of their angular
/// momentum each step. Moving the velocities with the positions (the displacement over the
/// substep, as SHAKE does) keeps it exactly, but also drives the zigzag of a light rope
/// under a heavy load, which only its tension holds straight: near straight, the
/// projection's moves are a hundred times the errors they close, and fed back as velocities
/// they tore AVBD's heavy rope apart. The part of that feedback which turns the whole tree
/// carries all of its angular momentum and moves no joint row, so it excites no such mode:
/// that part alone is given back. A tree held by a body outside it has no such momentum to
/// keep.
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn keep_angular_momentum(nodes: &[Node], states: States, added: f64, caps: (f32, f32)) {
    // The bodies' centres now, their centre of mass, and their moment of inertia about it.
    let at = |n: &Node| {
        let dp = states.read(n.index).dp;
        [
            n.center[0] + f64::from(dp[0]),
            n.center[1] + f64::from(dp[1]),
        ]
    };
    let bodies = || nodes.iter().filter(|n| n.is_body);
    let (mut mass, mut c) = (0.0, [0.0; 2]);
    for n in bodies() {
        let p = at(n);
        mass += n.mass;
        c = [c[0] + n.mass * p[0], c[1] + n.mass * p[1]];
    }
    let c = [c[0] / mass, c[1] / mass];
    let mut inertia = 0.0;
    for n in bodies() {
        let p = at(n);
        let (rx, ry) = (p[0] - c[0], p[1] - c[1]);
        inertia += n.inertia + n.mass * (rx * rx + ry * ry);
    }
    if inertia <= 0.0 || added == 0.0 {
        return;
    }
    let turn = -added / inertia;
    for n in bodies() {
        let p = at(n);
        let (rx, ry) = (p[0] - c[0], p[1] - c[1]);
        let v = velocity(&states.read(n.index));
        let v = [v[0] - turn * ry, v[1] + turn * rx, v[2] + turn];
        write_capped_velocity(states, n.index, v, caps);
    }
}

/// Changes the bodies' velocities by the solve's result, within `caps`, and adds it to the
/// joints' impulses.
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn apply_impulses(
    joints: &mut [TreeJoint],
    nodes: &[Node],
    states: States,
    caps: (f32, f32),
) {
    for n in nodes.iter() {
        let (joint, first) = if n.is_body {
            let v = velocity(&states.read(n.index));
            let v = [0, 1, 2].map(|r| v[r] + n.x[r]);
            write_capped_velocity(states, n.index, v, caps);
            (n.fixed_joint, 3)
        } else {
            (n.index, 0)
        };
        if joint != NONE {
            let j = &mut joints[joint as usize];
            for r in 0..3 {
                j.impulse[r] -= n.x[first + r];
            }
            if let (Rows::Hinge, Some(Part::Free { impulse, .. })) =
                (j.rows, j.hinge.law.part(j.hinge.part))
            {
                j.impulse[2] = impulse;
            }
        }
    }
}

/// The kinetic energy of the tree's bodies, and their largest angular speed.
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn kinetic_energy(nodes: &[Node], states: States) -> (f64, f64) {
    let (mut energy, mut spin) = (0.0, 0.0f64);
    for n in nodes.iter().filter(|n| n.is_body) {
        let [vx, vy, w] = velocity(&states.read(n.index));
        energy += 0.5 * (n.mass * (vx * vx + vy * vy) + n.inertia * w * w);
        spin = spin.max(w.abs());
    }
    (energy, spin)
}

/// Gives back the kinetic energy that the relax took (`before`: the energy and largest
/// angular speed it found) where the joints' own motion took it, by scaling the tree's
/// velocities, which keeps them off every row.
///
/// The velocities the positions integrated move no row at the old positions; at the new
/// ones, each turned by `w h`, they have a part across the rows, about `w h` of them, which
/// the relax takes off: it shortens the velocity where the motion turned it. A body swinging
/// on a joint loses about `(w h)^2` of its kinetic energy every substep that way, and a double
/// pendulum lost 38% of its energy in 10 s. Feeding the projection's correction back as a
/// velocity (correction over `h`), or asking the solve to follow each arm's arc, turns the
/// velocity instead, but acts on each body alone: a light rope's zigzag under a heavy load
/// swings at nearly the substep's own rate, and the explicit turn drove it until the rope
/// tore apart. Scaling the whole tree gives back energy only, never more than the relax took
/// and never more than a few times what a turn by the tree's fastest `w h` loses, so neither
/// a zigzag nor an impact that a contact stopped gets energy the motion did not have.
///
/// A tree held by a moving kinematic body, whose energy has no such bound, or held by
/// nothing, whose scaling would change its momentum, is left as the relax left it.
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn keep_energy(
    joints: &[TreeJoint],
    nodes: &[Node],
    states: States,
    (before, spin): (f64, f64),
    h: f32,
    caps: (f32, f32),
) {
    let mut held = false;
    for j in joints {
        for side in 0..2 {
            if j.node[side] {
                continue;
            }
            let state = j.state[side];
            if state != NULL_BODY && velocity(&states.read(state)) != [0.0; 3] {
                return;
            }
            held = true;
        }
    }
    let (after, _) = kinetic_energy(nodes, states);
    if !held || after <= 0.0 || after >= before {
        return;
    }
    // A body turned by `w h` on one joint keeps `cos^2(w h)` of its energy, losing about
    // `(w h)^2`; a chain's joints, each turned by both its bodies, lose a few times that (a
    // double pendulum up to 4 times). Give back at most 8 times.
    let turn = spin * f64::from(h);
    let gain = (before / after).min(1.0 + 8.0 * turn * turn);
    let scale = gain.sqrt();
    for n in nodes.iter().filter(|n| n.is_body) {
        let v = velocity(&states.read(n.index)).map(|x| x * scale);
        write_capped_velocity(states, n.index, v, caps);
    }
}
