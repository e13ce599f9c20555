//! The joint passes of the soft step: prepared once per step (see `prepare` and `batches`),
//! then per substep warm start, biased solve and relax, on the solver's body states. A joint's
//! share of a pass is its kind's, in the file named after the kind; what several kinds share
//! is in `pair` (the rows and their solves), `slide` and `spring`.
//!
//! A joint's position error is measured the way the contact kernels measure separation: from
//! the pose its bodies had when the step began plus the motion the substeps have accumulated
//! since (`dp`, `dq` of the body state), so no pose is written back until the step ends.
//! Rigid constraints are soft in the biased pass (a damped spring at twice the contacts'
//! stiffness, the stiffness of a contact with a static body; a revolute joint's point a
//! little stiffer, see `point_softness`) and unbiased in the relax pass,
//! which removes the velocity the bias added. Springs the user asked for are part of the
//! model, not an error correction: each acts once per substep, after the warm start, with
//! coefficients that give the discrete update the spring's own frequency, damping and static
//! deflection (see `SpringLaw`); a mouse joint's spring acts in every pass. Limits let a body
//! approach within the substep (a limit not yet reached is a speculative constraint), motors
//! are capped at their impulse per substep.
//!
//! The joints are colored once per step (see `batches`), and each pass runs the colors one
//! after another, a color's joints in blocks on the workers. Within a color the joints share
//! no body that they write, so the workers' order cannot change any result; joints that fit in
//! no color go to an overflow set, solved after the colors as one block.
//!
//! A color's revolute joints without limits or motor, whose solve is their point constraint
//! alone, go eight to a pin batch (see `batch2d_kernels::joint`): the SIMD backend solves a
//! batch with f32x8 kernels, the scalar backend with their one-lane twins, which do the float
//! operations of the scalar code (`Pair::solve_point`) in the same order. Every other joint
//! takes the scalar code of its kind, whichever the backend. No fused multiply-add anywhere:
//! the same bits for both backends and every thread count.
//!
//! The scalar passes read a compact copy of each joint's step constants and impulses, laid out
//! in color order (see [`JointBatches`]), and the joint itself only for its options. The
//! impulses go back to the joints when the step ends.

use crate::backend::Kernels;
use crate::body::BodyStore;
use crate::disjoint::DisjointMut;
use crate::geometry::math::Vec2;
use crate::index::NONE;
use crate::joints::batches::{
    body_frames, pin_angular, JointBatches, JointColor, JointSet, JOINTS_PER_BLOCK,
};
use crate::joints::distance::warm_start_distance;
use crate::joints::joint::{Impulses, Joint, JointKind, Slot};
use crate::joints::pair::{warm_start_point, Coeffs, Pair, Pass, Side, RIGID};
use crate::joints::prepare::{Extra, Prepared};
use crate::joints::slide::warm_start_slide;
use crate::joints::spring::SpringLaw;
use crate::profile::zone;
use crate::settings::WorldSettings;
use crate::softness::Softness;
use batch2d_kernels::body::States;
use batch2d_kernels::{BodyFrames, PinBatch, PinFrames, PinParams, PinStart, LANES};
use std::ops::Range;

/// What a joint stage does.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JointOp {
    /// `first`: in the step's first substep. A later substep's warm start follows the relax
    /// of the one before with nothing between that moves a position, so the pin batches
    /// take the arms and blocks that relax kept (see `batch2d_kernels::joint`).
    WarmStart {
        first: bool,
    },
    Solve,
    /// `last`: in the step's last substep, after which the pins' impulses are final.
    Relax {
        last: bool,
    },
}

/// Damping ratio of the joints' rigid constraints: well damped, so that the error correction
/// does not ring along a chain.
const JOINT_DAMPING_RATIO: f32 = 2.0;

/// The softness of the joints' rigid constraints for substeps `h` long: as stiff as a
/// contact with a static body (see `solver::pack`).
pub(crate) fn rigid_softness(settings: &WorldSettings, h: f32) -> Softness {
    Softness::contact(settings, JOINT_DAMPING_RATIO, h, true)
}

/// Stiffness of a revolute joint's point, as a fraction of the substep rate: 100 Hz at the
/// default four substeps of a 60 Hz step, where the other rigid rows have 90.
///
/// A soft point carrying a load `F` sits `F / (m w^2)` open, `m` the effective mass of its
/// rows: where a net of hinges hangs from a few light bodies (joint_grid, whose every cell is
/// a loop), that is how far its joints open, so the stiffer the better. But the Gauss-Seidel
/// passes leave a net's loops unsolved, and what they leave is corrected as error again in
/// the next substep: at the default two joint passes joint_grid swings stably at 5/12 of the
/// substep rate and blows up within a few seconds at half of it. Tied to the substep rate, so
/// that more substeps make the points stiffer at the same margin. The other rows keep the
/// contacts' rule (see [`rigid_softness`]): a slider anchored 20 m from its 6 cm body
/// chatters at its limit as fast again at this stiffness.
const POINT_HERTZ_PER_SUBSTEP_RATE: f32 = 5.0 / 12.0;

/// The softness of a revolute joint's point for substeps `h` long.
pub(crate) fn point_softness(h: f32) -> Softness {
    Softness::new(POINT_HERTZ_PER_SUBSTEP_RATE / h, JOINT_DAMPING_RATIO, h)
}

/// The joint passes of one step, shared by the workers of the solver's stages: each runs
/// blocks of one color, whose joints write no body in common, or the overflow set.
#[derive(Clone, Copy)]
pub(crate) struct Passes<'a> {
    /// The joints: each block reads the options of its own joints and, for the pins, writes
    /// their impulses back in the last relax.
    slots: DisjointMut<'a, Slot>,
    prepared: DisjointMut<'a, Prepared>,
    extra: &'a [Extra],
    pins: DisjointMut<'a, PinBatch>,
    pin_starts: DisjointMut<'a, PinStart>,
    pin_frames: &'a [PinFrames],
    pin_slots: &'a [[u32; LANES]],
    /// The bodies' poses at the start of the step, from which the pins take their arms in the
    /// first warm start when `pins_due` (see `JointBatches::prepare`).
    bodies: BodyFrames<'a>,
    pins_due: bool,
    colors: &'a [JointColor],
    overflow: &'a Range<usize>,
    kernels: &'static dyn Kernels,
    /// The biased passes' rigid coefficients, and those of a revolute joint's point.
    rigid: Coeffs,
    point: Coeffs,
    h: f32,
    inv_h: f32,
    /// The solver's speed caps, `(linear, angular)`, which every joint's write obeys.
    speed_caps: (f32, f32),
}

impl JointBatches {
    /// The joint passes of this step over the joints in `slots`, for the solver's stages
    /// (after [`JointBatches::prepare`]) and `bodies`, with the rigid constraints' softness
    /// `rigid` for substeps `h` long and the solver's speed caps `(linear, angular)`.
    pub(crate) fn passes<'a>(
        &'a mut self,
        slots: &'a mut [Slot],
        bodies: &'a BodyStore,
        rigid: Softness,
        h: f32,
        speed_caps: (f32, f32),
    ) -> Passes<'a> {
        Passes {
            slots: DisjointMut::new(slots),
            prepared: DisjointMut::new(&mut self.prepared),
            extra: &self.extra,
            pins: DisjointMut::new(&mut self.pins),
            pin_starts: DisjointMut::new(&mut self.pin_starts),
            pin_frames: &self.pin_frames,
            pin_slots: &self.pin_slots,
            bodies: body_frames(bodies),
            pins_due: self.pins_due,
            colors: &self.colors,
            overflow: &self.overflow,
            kernels: self.kernels.expect("the joints are prepared"),
            rigid: rigid.into(),
            point: point_softness(h).into(),
            h,
            inv_h: 1.0 / h,
            speed_caps,
        }
    }
}

impl<'a> Passes<'a> {
    /// Runs one joint pass over block `block` of `set` (see [`JointBatches::blocks`]): a run
    /// of pin batches or of other joints of a color, or the whole overflow set, in order.
    ///
    /// # Safety
    /// `block` is one of the set's; no other thread accesses its joints, or the states those
    /// joints move, meanwhile; the joints' states are those of `states`.
    pub(crate) unsafe fn run(&self, op: JointOp, set: JointSet, block: usize, states: States) {
        zone!("joint block");
        let pass = Pass {
            rigid: match op {
                JointOp::Relax { .. } => RIGID,
                _ => self.rigid,
            },
            point: match op {
                JointOp::Relax { .. } => RIGID,
                _ => self.point,
            },
            inv_h: self.inv_h,
            h: self.h,
        };
        let color = match set {
            JointSet::Overflow => return self.run_joints(op, &pass, self.overflow.clone(), states),
            JointSet::Color(c) => &self.colors[c],
        };
        let pin_blocks = color.pin_blocks();
        if block < pin_blocks {
            let first = color.pins.start + block * color.pins_per_block;
            let pins = first..(first + color.pins_per_block).min(color.pins.end);
            self.run_pins(op, &pass, pins, states);
        } else {
            let first = color.joints.start + (block - pin_blocks) * JOINTS_PER_BLOCK;
            let joints = first..(first + JOINTS_PER_BLOCK).min(color.joints.end);
            self.run_joints(op, &pass, joints, states);
        }
    }

    /// The pin batches of `range`, with the backend's kernels.
    ///
    /// A pin takes its step's arms in the first warm start and hands its impulses back to its
    /// joint in the last relax, in the blocks whose worker solves it, rather than in passes of
    /// their own over every pin: a pass of its own splits the pins across the workers other
    /// than the stages do, and half the pins' lines went from one core's cache to the other's
    /// twice a step. Its impulses it keeps from step to step (see `JointBatches::prepare`).
    ///
    /// # Safety
    /// As for [`Passes::run`].
    unsafe fn run_pins(&self, op: JointOp, pass: &Pass, range: Range<usize>, states: States) {
        let params = PinParams {
            bias_rate: pass.point.bias_rate,
            mass_scale: pass.point.mass_scale,
            impulse_scale: pass.point.impulse_scale,
        };
        let lanes = &self.pin_slots[range.clone()];
        let frames = &self.pin_frames[range.clone()];
        let batches = self.pins.slice(range.clone());
        let starts = self.pin_starts.slice(range);
        match op {
            JointOp::WarmStart { first } => {
                if first && self.pins_due {
                    self.kernels.pin_arms(starts, frames, self.bodies);
                    debug_assert!(self.pins_hold_impulses(batches, lanes));
                }
                self.kernels.pin_warm_start(batches, starts, states, first)
            }
            JointOp::Solve => self.kernels.pin_solve(batches, states, &params),
            JointOp::Relax { last } => {
                self.kernels.pin_relax(batches, starts, states, &params);
                if last {
                    for (batch, lanes) in batches.iter().zip(lanes) {
                        for (l, &slot) in lanes.iter().enumerate().filter(|(_, &s)| s != NONE) {
                            let linear = Vec2::new(batch.impulse_x[l], batch.impulse_y[l]);
                            self.joint(slot).impulses.linear = linear;
                        }
                    }
                }
            }
        }
    }

    /// Whether the pins of `batches`, in the joint slots `lanes`, hold their joints'
    /// impulses, bit for bit: as they do from one step to the next while the layout stands
    /// (see `JointBatches::prepare`).
    ///
    /// # Safety
    /// As for [`Passes::run`].
    unsafe fn pins_hold_impulses(&self, batches: &[PinBatch], lanes: &[[u32; LANES]]) -> bool {
        batches.iter().zip(lanes).all(|(batch, lanes)| {
            let mut live = lanes.iter().enumerate().filter(|(_, &s)| s != NONE);
            live.all(|(l, &slot)| {
                let i = &self.joint(slot).impulses;
                let held = [batch.impulse_x[l], batch.impulse_y[l], batch.angular[l]];
                let want = [i.linear.x, i.linear.y, pin_angular(i)];
                held.map(f32::to_bits) == want.map(f32::to_bits)
            })
        })
    }

    /// The joint in `slot`.
    ///
    /// # Safety
    /// The joint is one of the caller's block: no other thread accesses it meanwhile.
    unsafe fn joint(&self, slot: u32) -> &'a mut Joint {
        let joint = self.slots.get(slot as usize).joint.as_mut();
        joint.expect("a prepared joint stays in its slot for the step")
    }

    /// The joints of `range` of `prepared`, one after another.
    ///
    /// # Safety
    /// As for [`Passes::run`].
    unsafe fn run_joints(&self, op: JointOp, pass: &Pass, range: Range<usize>, states: States) {
        for k in range {
            let Prepared { c, impulses } = self.prepared.get(k);
            let mut pair = Pair {
                a: Side::load(states, c.state[0]),
                b: Side::load(states, c.state[1]),
                p: c,
                x: &self.extra[k],
            };
            match op {
                JointOp::WarmStart { .. } => {
                    warm_start(c.kind, impulses, &mut pair);
                    if let Some(law) = pair.x.law {
                        self.joint(c.slot).solve_spring(law, impulses, &mut pair);
                    }
                }
                // A plain revolute joint's whole solve (see `Joint::solve`).
                JointOp::Solve | JointOp::Relax { .. } if c.plain => {
                    pair.solve_point(pass.point, &mut impulses.linear, f32::INFINITY)
                }
                JointOp::Solve | JointOp::Relax { .. } => {
                    self.joint(c.slot).solve(impulses, &mut pair, pass)
                }
            }
            // Joints that contradict each other through bodies nothing moves (a body welded
            // to a fixed body and to a kinematic one flying off) fight without end: their
            // accumulated impulses grow pass after pass, and the velocities they leave would
            // carry the body arbitrarily far before the next velocity integration caps them,
            // the far error feeding a larger bias until the state overflows. Capped here,
            // each substep moves a body at most as far as the caps allow; a joint that obeys
            // its law never comes near them.
            if c.moves[0] {
                pair.a.cap(self.speed_caps);
                pair.a.store(states, c.state[0]);
            }
            if c.moves[1] {
                pair.b.cap(self.speed_caps);
                pair.b.store(states, c.state[1]);
            }
        }
    }
}

impl Joint {
    /// One solve (`pass.rigid` and `pass.point` biased) or relax (`RIGID`) pass.
    fn solve(&self, i: &mut Impulses, pair: &mut Pair, pass: &Pass) {
        match self.kind {
            JointKind::Revolute => self.solve_revolute(i, pair, pass),
            JointKind::Weld => self.solve_weld(i, pair, pass),
            JointKind::Mouse => self.solve_mouse(i, pair, pass),
            JointKind::Motor => self.solve_motor_joint(i, pair, pass),
            JointKind::Distance => self.solve_distance(i, pair, pass),
            JointKind::Prismatic => self.solve_prismatic(i, pair, pass),
            JointKind::Wheel => self.solve_wheel(i, pair, pass),
        }
    }

    /// The joint's spring (not a mouse joint's), once per substep after the warm start: a
    /// revolute joint's on its angle, a prismatic or wheel joint's along the axis, a distance
    /// joint's on its length, a soft weld's on all three of its rows.
    fn solve_spring(&self, law: SpringLaw, i: &mut Impulses, pair: &mut Pair) {
        match self.kind {
            JointKind::Revolute => self.solve_revolute_spring(law, i, pair),
            JointKind::Prismatic | JointKind::Wheel => self.solve_slide_spring(law, i, pair),
            JointKind::Distance => self.solve_distance_spring(law, i, pair),
            JointKind::Weld => self.solve_weld_spring(law, i, pair),
            JointKind::Mouse | JointKind::Motor => {}
        }
    }
}

/// Applies the accumulated impulses of the last substep (or step) again.
fn warm_start(kind: JointKind, i: &Impulses, pair: &mut Pair) {
    match kind {
        JointKind::Revolute | JointKind::Weld | JointKind::Mouse | JointKind::Motor => {
            warm_start_point(i, pair)
        }
        JointKind::Distance => warm_start_distance(i, pair),
        JointKind::Prismatic | JointKind::Wheel => warm_start_slide(kind, i, pair),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joints::batches::{SetLane, SetStart};
    use crate::joints::prepare::Consts;
    use crate::settings::Backend;
    use batch2d_kernels::joint as pin;
    use batch2d_kernels::StateRows;
    use batch2d_kernels::{BodyState, NULL_BODY};
    use bytemuck::Zeroable;

    /// A small deterministic generator of floats in `-1..1`.
    struct Noise(u32);

    impl Noise {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (self.0 >> 8) as f32 / (1 << 23) as f32 - 1.0
        }

        fn vec(&mut self) -> Vec2 {
            Vec2::new(self.next(), self.next())
        }
    }

    /// The pin kernels, both backends, give a plain revolute joint the bits the scalar joint
    /// solver gives it: over two substeps' warm start, biased solves and relax (the second
    /// warm start at the blocks the relax kept), with bodies that move, a fixed side and a
    /// kinematic side.
    #[test]
    fn pins_match_the_scalar_joint_solver() {
        let mut noise = Noise(7);
        let states: Vec<BodyState> = (0..16)
            .map(|_| {
                let angle = noise.next();
                let mut s = BodyState::with_velocity([noise.next(), noise.next()], noise.next());
                s.dp = [0.1 * noise.next(), 0.1 * noise.next()];
                s.dq = [angle.cos(), angle.sin()];
                s
            })
            .collect();
        let joints: Vec<Prepared> = (0..LANES)
            .map(|l| {
                let mut mass = |moves: bool| match moves {
                    true => (0.5 + noise.next().abs(), 0.2 + noise.next().abs()),
                    false => (0.0, 0.0),
                };
                // Lane 3 hangs from a fixed body, lane 5 from a kinematic one.
                let (ma, ia) = mass(l != 3 && l != 5);
                let (mb, ib) = mass(true);
                let state_a = if l == 3 { NULL_BODY } else { 2 * l as u32 };
                let mut impulses = Impulses {
                    linear: noise.vec(),
                    ..Impulses::default()
                };
                impulses.angular = if l == 6 { noise.next() } else { 0.0 };
                Prepared {
                    c: Consts {
                        state: [state_a, 2 * l as u32 + 1],
                        inv_mass: [ma, mb],
                        inv_inertia: [ia, ib],
                        r: [noise.vec(), noise.vec()],
                        delta_center: noise.vec(),
                        slot: l as u32,
                        kind: JointKind::Revolute,
                        moves: [ma + ia > 0.0, true],
                        plain: true,
                    },
                    impulses,
                }
            })
            .collect();
        let soft = Softness::new(60.0, JOINT_DAMPING_RATIO, 1.0 / 240.0).into();
        let passes = [
            (JointOp::WarmStart { first: true }, soft),
            (JointOp::Solve, soft),
            (JointOp::Solve, soft),
            (JointOp::Relax { last: false }, RIGID),
            (JointOp::WarmStart { first: false }, soft),
            (JointOp::Solve, soft),
            (JointOp::Relax { last: false }, RIGID),
        ];

        let mut rows = StateRows::from_states(&states);
        let mut expected = joints.clone();
        let extra = Extra::default();
        for &(op, k) in &passes {
            let rows = States::new(&mut rows);
            for Prepared { c, impulses } in &mut expected {
                // SAFETY: the states are in bounds and this thread alone has them.
                unsafe {
                    let mut pair = Pair {
                        a: Side::load(rows, c.state[0]),
                        b: Side::load(rows, c.state[1]),
                        p: c,
                        x: &extra,
                    };
                    match op {
                        JointOp::WarmStart { .. } => warm_start(c.kind, impulses, &mut pair),
                        _ => pair.solve_point(k, &mut impulses.linear, f32::INFINITY),
                    }
                    for side in 0..2 {
                        let s = if side == 0 { pair.a } else { pair.b };
                        if c.moves[side] {
                            s.store(rows, c.state[side]);
                        }
                    }
                }
            }
        }

        for backend in [Backend::Simd, Backend::Scalar] {
            let (mut batch, mut start) = (PinBatch::empty(), PinStart::zeroed());
            for (l, p) in joints.iter().enumerate() {
                batch.set(l, &p.c, &p.impulses);
                start.set(l, &p.c);
            }
            let mut pin_rows = StateRows::from_states(&states);
            for &(op, k) in &passes {
                let params = PinParams {
                    bias_rate: k.bias_rate,
                    mass_scale: k.mass_scale,
                    impulse_scale: k.impulse_scale,
                };
                let rows = States::new(&mut pin_rows);
                let batches = std::slice::from_mut(&mut batch);
                let starts = std::slice::from_ref(&start);
                // SAFETY: as above.
                unsafe {
                    match (op, backend) {
                        (JointOp::WarmStart { first }, Backend::Simd) => {
                            pin::simd::warm_start(batches, starts, rows, first)
                        }
                        (JointOp::WarmStart { first }, Backend::Scalar) => {
                            pin::scalar::warm_start(batches, starts, rows, first)
                        }
                        (JointOp::Solve, Backend::Simd) => pin::simd::solve(batches, rows, &params),
                        (JointOp::Solve, Backend::Scalar) => {
                            pin::scalar::solve(batches, rows, &params)
                        }
                        (_, Backend::Simd) => pin::simd::relax(batches, starts, rows, &params),
                        (_, Backend::Scalar) => pin::scalar::relax(batches, starts, rows, &params),
                    }
                }
            }
            let bits = |s: &[BodyState]| -> Vec<u32> {
                s.iter()
                    .flat_map(|s| [s.v[0], s.v[1], s.w].map(f32::to_bits))
                    .collect()
            };
            assert_eq!(bits(&pin_rows), bits(&rows), "{backend:?}: velocities");
            for (l, p) in expected.iter().enumerate() {
                let got = [batch.impulse_x[l], batch.impulse_y[l]].map(f32::to_bits);
                let want = [p.impulses.linear.x, p.impulses.linear.y].map(f32::to_bits);
                assert_eq!(got, want, "{backend:?}: impulse of lane {l}");
            }
        }
    }
}
