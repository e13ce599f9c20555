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
//! without limits or motor, a weld without spring, a distance joint of fixed length), its
//! moving bodies can turn, and, among the joints taken before it in slot order, it closes no
//! cycle and gives no tree a second joint to a fixed body; the others stay in the soft
//! passes, and so do all the joints of a group of jointed bodies where one closed a loop. Trees are found each step. Per substep the trees warm start with the joints; solve
//! their velocities exactly after each joint and contact pass; and after the
//! positions are integrated, project them back onto the joints (post-stabilization: Newton
//! steps on the position error through the same factorization, which move the bodies without
//! changing their velocities, so no error correction turns into motion), and last of all
//! solve the velocities once more at the new positions, turning them there rather than shortening them
//! (see `keep_energy`), so that an undamped pendulum keeps its energy. A tree is one block
//! of its stage, and no two trees share a moving body, so the workers' order changes nothing;
//! the solve is scalar f64 code, without fused multiply-add, the same for both backends.

use crate::body::BodyStore;
use crate::disjoint::DisjointMut;
use crate::geometry::math::{Rot, Vec2};
use crate::index::{BodySlot, NONE};
use crate::joints::joint::{Joint, JointKind, Slot};
use batch2d_kernels::body::{cap_speeds, States};
use batch2d_kernels::{BodyState, NULL_BODY};
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
}

impl Rows {
    /// The rows `joint` has in the exact solve, or `None` when some part of its solve is not
    /// a rigid equality (a limit, a motor, a spring, a slack range) or its kind has rows this
    /// solve does not model.
    fn of(joint: &Joint) -> Option<Rows> {
        // A spring of 0 Hz is off (`World::set_joint_spring`).
        let springless = joint.spring.is_none_or(|(hertz, _)| hertz <= 0.0);
        match joint.kind {
            JointKind::Revolute
                if springless
                    && joint.active_limits().is_none()
                    && joint.active_motor().is_none() =>
            {
                Some(Rows::Point)
            }
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
    reference_angle: f32,
    length: f32,
    /// The accumulated impulse of the rows (world x, y on B; the angular row or the distance
    /// row), as the joint keeps it between steps.
    impulse: V3,
    /// Scratch of a solve: the rows' Jacobian blocks for A and B (rows by vx, vy, w).
    jacobian: [M3; 2],
}

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
    /// A body's mass and moment of inertia.
    mass: f64,
    inertia: f64,
    /// The block of this node's rows and the parent's columns.
    edge: M,
    /// The diagonal block, then its inverse once factored.
    d: M,
    y: V,
    x: V,
}

/// One tree: its nodes (children before parents, the root last) and joints.
#[derive(Clone, Debug)]
struct Tree {
    nodes: Range<usize>,
    joints: Range<usize>,
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
    candidates: Vec<TreeJoint>,
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

    /// Finds the step's trees among the joints in `slots`: `state_of` maps body slots to
    /// solver states, of which there are `states`.
    pub(crate) fn prepare(
        &mut self,
        slots: &[Slot],
        bodies: &BodyStore,
        state_of: &[u32],
        states: usize,
    ) {
        self.exact.clear();
        self.joints.clear();
        self.nodes.clear();
        self.trees.clear();
        self.candidates.clear();
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
                    self.fixed_joint[state as usize] = self.candidates.len() as u32;
                }
            }
            for side in [a, b] {
                if side.1 {
                    self.inv_mass[side.0 as usize] = (side.2, side.3);
                }
            }
            self.exact[slot] = true;
            let centers = [joint.a, joint.b].map(|s| bodies.center()[s.index()]);
            let candidate = TreeJoint::new(joint, slot as u32, rows, [a, b], centers);
            self.candidates.push(candidate);
        }
        self.leave_loops();
        self.lay_out(states);
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
        for k in 0..self.candidates.len() {
            let j = self.candidates[k];
            let state = if j.node[0] { j.state[0] } else { j.state[1] };
            let root = find(&mut self.parent, state);
            if closing.binary_search(&root).is_ok() {
                self.exact[j.slot as usize] = false;
                if !(j.node[0] && j.node[1]) {
                    self.fixed_joint[state as usize] = NONE;
                }
                continue;
            }
            if !(j.node[0] && j.node[1]) {
                self.fixed_joint[state as usize] = kept as u32;
            }
            self.candidates[kept] = j;
            kept += 1;
        }
        self.candidates.truncate(kept);
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
        let mut push_joint = |k: u32| {
            self.joints.push(candidates[k as usize]);
            (self.joints.len() - 1 - joint_start) as u32
        };
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
                edge: ZERO,
                d: ZERO,
                y: [0.0; N],
                x: [0.0; N],
            };
            if is_body {
                let (m, i) = self.inv_mass[index as usize];
                node.mass = 1.0 / f64::from(m);
                node.inertia = 1.0 / f64::from(i);
                let fixed = self.fixed_joint[index as usize];
                if fixed != NONE {
                    node.fixed_joint = push_joint(fixed);
                }
            } else {
                node.index = push_joint(index);
            }
            self.nodes.push(node);
        }
        self.trees.push(Tree {
            nodes: node_start..self.nodes.len(),
            joints: joint_start..self.joints.len(),
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
            }
        }
    }

    /// The passes of this step, for the solver's stages (after [`JointTrees::prepare`]),
    /// with substeps `h` long, within the solver's speed caps `(linear, angular)`.
    pub(crate) fn passes(&mut self, h: f32, speed_caps: (f32, f32)) -> TreePasses<'_> {
        TreePasses {
            joints: DisjointMut::new(&mut self.joints),
            nodes: DisjointMut::new(&mut self.nodes),
            trees: &self.trees,
            h,
            speed_caps,
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
    /// The substep's length.
    h: f32,
    /// The solver's speed caps, `(linear, angular)`, which every velocity a tree writes
    /// obeys: a tree's joint to a kinematic body fighting a contact with a static one (a
    /// body welded to a spinning kinematic disk and buried in a fixed polygon) grows both
    /// impulses without end, and the velocities they leave must not carry the body
    /// arbitrarily far within a substep. A tree that obeys its law never comes near them.
    speed_caps: (f32, f32),
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
    /// order in the substep, leaves.
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

/// The relative angle `qb - qa - reference` in `[-pi, pi]`.
fn relative_angle(qa: Rot, qb: Rot, reference: f32) -> f32 {
    let angle = qa.inv_mul(qb).angle() - reference;
    if angle > PI {
        angle - 2.0 * PI
    } else if angle < -PI {
        angle + 2.0 * PI
    } else {
        angle
    }
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
            Rows::Point | Rows::Weld => {
                let weld = self.rows == Rows::Weld;
                let turn = if weld { 1.0 } else { 0.0 };
                let ja = [[-1.0, 0.0, ray], [0.0, -1.0, -rax], [0.0, 0.0, -turn]];
                let jb = [[1.0, 0.0, -rby], [0.0, 1.0, rbx], [0.0, 0.0, turn]];
                let angle = if weld {
                    let qa = dqa.compose(self.q[0]);
                    let qb = dqb.compose(self.q[1]);
                    relative_angle(qa, qb, self.reference_angle)
                } else {
                    0.0
                };
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

    /// The rows that are padding: a unit diagonal entry keeps the block regular, and their
    /// zero rows and right-hand side give them no impulse.
    fn padding(&self) -> V3 {
        match self.rows {
            Rows::Point => [0.0, 0.0, -1.0],
            Rows::Weld => [0.0; 3],
            Rows::Distance => [0.0, -1.0, -1.0],
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
            TreeOp::Solve => solve(joints, nodes, states, false, self.speed_caps),
            TreeOp::Project => {
                for _ in 0..PROJECTIONS {
                    solve(joints, nodes, states, true, self.speed_caps);
                }
            }
            TreeOp::Relax => {
                let before = kinetic_energy(nodes, states);
                solve(joints, nodes, states, false, self.speed_caps);
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
            reference_angle: joint.reference_angle,
            length: joint.length,
            impulse: impulse.map(f64::from),
            jacobian: [ZERO3; 2],
        }
    }
}

/// Solves the tree exactly: changes the bodies' velocities so that no row moves, by the
/// joints' impulses alone; or, with `project`, moves the bodies so that no row has an error,
/// to first order, by displacements of the same form (`M^-1 J^T` times some vector).
///
/// # Safety
/// As for [`TreePasses::run`].
unsafe fn solve(
    joints: &mut [TreeJoint],
    nodes: &mut [Node],
    states: States,
    project: bool,
    caps: (f32, f32),
) {
    assemble(joints, nodes, states, project);
    eliminate(nodes);
    if project {
        move_bodies(nodes, states);
    } else {
        apply_impulses(joints, nodes, states, caps);
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
    // The rows' Jacobians at the bodies' motion now, and the change they ask for.
    let rhs_of = |j: &mut TreeJoint| {
        let (a, b) = (states.read(j.state[0]), states.read(j.state[1]));
        let (jacobian, error) = j.rows_now(&a, &b);
        j.jacobian = jacobian;
        if project {
            return error.map(|e| -e);
        }
        let (va, vb) = (velocity(&a), velocity(&b));
        let (ca, cb) = (mul_vec3(&jacobian[0], &va), mul_vec3(&jacobian[1], &vb));
        [0, 1, 2].map(|r| -(ca[r] + cb[r]))
    };
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
            let rhs = rhs_of(j);
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
            let (rhs, pad) = (rhs_of(j), j.padding());
            for r in 0..3 {
                n.d[r][r] = pad[r];
                n.d[3 + r][3 + r] = -1.0;
                n.y[r] = rhs[r];
            }
        }
    }
    // The edges to the parents: a joint's rows for a body's velocities, or their transpose.
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
