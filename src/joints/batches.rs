//! The step's joints in color order: the joints are colored greedily in slot order, so that
//! no dynamic body appears twice in a color (again only when the joints, the bodies' masses
//! or the solver's states change, see `LayoutKey`); each color's plain revolute joints
//! are packed eight to a pin batch for the pin kernels, its other joints laid out one after
//! another, and the joints that fit in no color go to an overflow set after the colors'.

use crate::backend::Kernels;
use crate::body::BodyStore;
use crate::disjoint::DisjointMut;
use crate::index::BodySlot;
use crate::index::{Stamp, NONE};
use crate::joints::joint::{Impulses, Joint, Slot};
use crate::joints::prepare::{side, Consts, Extra, Prepared};
use crate::profile::zone;
use crate::settings::WorldSettings;
use batch2d_kernels::{BodyFrames, PinBatch, PinFrames, PinStart, LANES};
use bytemuck::Zeroable;
use rayon::prelude::*;
use std::ops::Range;

/// Joints per block of a joint stage: enough work to amortise claiming it, small enough to
/// balance the workers over one color.
pub(super) const JOINTS_PER_BLOCK: usize = 64;

/// The fewest pin batches (eight joints each) per block of a joint stage: enough work to
/// amortise claiming it and a kernel call.
const MIN_PINS_PER_BLOCK: usize = 16;

/// Pin blocks per worker in a color: the claims a worker makes of a stage
/// (`CLAIMS_PER_THREAD` of `solver::schedule`, which the joints sit below), so that each
/// claim is about one block.
const PIN_BLOCKS_PER_THREAD: usize = 4;

/// The fewest joints a worker takes constants for at once: enough to amortise the split.
const PREPARE_MIN_LEN: usize = 256;

/// Colors of the joint graph; a joint that fits in none goes to the overflow set.
pub(super) const JOINT_COLORS: u32 = 64;

/// `JointBatches::color_of` of a slot without a joint to solve.
pub(super) const NO_COLOR: u8 = u8::MAX;

/// What the solver's layout of the joints (their trees and their colors) derives from: the
/// joints, the bodies' kinds, masses and enabled flags (see `BodyStore::mass_stamp`), and the
/// solver states of the bodies. Each is a [`Stamp`], so an equal key means the same inputs and
/// the layout found for it stands, bit for bit: a jointed scene that only moves pays for its
/// search and coloring once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LayoutKey {
    pub joints: Stamp,
    pub bodies: Stamp,
    pub states: Stamp,
}

/// One joint color: its plain revolute joints, eight to a pin batch, and its other joints.
#[derive(Clone, Debug)]
pub(crate) struct JointColor {
    pub(super) pins: Range<usize>,
    pub(super) joints: Range<usize>,
    /// Pin batches per block of the color's stages (see [`JointColor::size_pin_blocks`]).
    pub(super) pins_per_block: usize,
}

impl JointColor {
    /// Sizes the color's pin blocks for `threads` workers: as large as one claim of a stage
    /// (see [`PIN_BLOCKS_PER_THREAD`]), so that a worker runs its claim with one kernel call
    /// per pass rather than one per block of a fixed size (on one thread, the color in a few
    /// calls), but never below `MIN_PINS_PER_BLOCK`. The workers balance by claims, so
    /// blocks of a claim's size split a color among them no more coarsely.
    fn size_pin_blocks(&mut self, threads: usize) {
        let claims = threads.max(1) * PIN_BLOCKS_PER_THREAD;
        self.pins_per_block = self.pins.len().div_ceil(claims).max(MIN_PINS_PER_BLOCK);
    }

    /// The number of blocks of the color's pin batches.
    pub(super) fn pin_blocks(&self) -> usize {
        self.pins.len().div_ceil(self.pins_per_block)
    }
}

/// A set of joints that one joint stage runs: a color, or the overflow set.
#[derive(Clone, Copy, Debug)]
pub(crate) enum JointSet {
    /// The index of a color in [`JointBatches::colors`].
    Color(usize),
    Overflow,
}

/// The step's joints that can move a body, in color order, and the colors.
///
/// The plain revolute joints of a color (see `Consts::plain`) are packed eight to a
/// [`PinBatch`], whose kernels take eight at once with the SIMD backend; the others are in
/// `prepared`, color after color, the overflow set last (plain ones too: the overflow set is
/// solved one joint after another).
#[derive(Clone, Default)]
pub(crate) struct JointBatches {
    pub(super) prepared: Vec<Prepared>,
    pub(super) extra: Vec<Extra>,
    pub(super) pins: Vec<PinBatch>,
    /// What each pin batch starts a step from (see [`PinStart`]), which the pin kernels take
    /// from `pin_frames`.
    pub(super) pin_starts: Vec<PinStart>,
    /// Where each pin batch's lanes hang (see [`PinFrames`]): taken when the joints are laid
    /// out, read by every `prepare` while the layout stands.
    pub(super) pin_frames: Vec<PinFrames>,
    /// The joint slot of each pin lane (`NONE` for a padding lane), and of each joint of
    /// `prepared`.
    pub(super) pin_slots: Vec<[u32; LANES]>,
    pub(super) joint_slots: Vec<u32>,
    /// The colors in order.
    pub(super) colors: Vec<JointColor>,
    /// The joints that fit in no color, in `prepared` after the colors'.
    pub(super) overflow: Range<usize>,
    /// The kernels of the pin batches, from the settings of the last `prepare`.
    pub(super) kernels: Option<&'static dyn Kernels>,
    /// Scratch of the coloring: per joint slot its color (`NO_COLOR` for an empty slot or a
    /// joint with nothing to do); per solver state the colors its joints have taken; per
    /// color (and the overflow set) how many plain joints and others it has, then where its
    /// next one goes.
    pub(super) color_of: Vec<u8>,
    pub(super) used: Vec<u64>,
    pub(super) plain: Vec<usize>,
    pub(super) others: Vec<usize>,
    /// Per joint slot, whether the joint trees solved it instead (see `tree`).
    pub(super) in_tree: Vec<bool>,
    /// The key of the inputs the coloring and the layout above were made for.
    laid_out: Option<LayoutKey>,
    /// Whether the pins are still to take this step's arms: `prepare` leaves that to the
    /// first warm start unless it laid them out afresh.
    pub(super) pins_due: bool,
}

impl JointBatches {
    /// Whether the joint in `slot` was solved in the last step, by the joint passes or by
    /// the joint trees: it could move a body.
    pub(crate) fn solved(&self, slot: usize) -> bool {
        self.color_of.get(slot).is_some_and(|&c| c != NO_COLOR)
            || self.in_tree.get(slot).copied().unwrap_or(false)
    }

    /// The joint sets of a joint pass, in the order they run: the colors, then the overflow
    /// set if it has any joint.
    pub(crate) fn sets(&self) -> impl Iterator<Item = JointSet> + '_ {
        let colors = (0..self.colors.len()).map(JointSet::Color);
        colors.chain((!self.overflow.is_empty()).then_some(JointSet::Overflow))
    }

    /// The number of blocks of a stage over `set`.
    pub(crate) fn blocks(&self, set: JointSet) -> usize {
        match set {
            JointSet::Color(c) => {
                let color = &self.colors[c];
                color.pin_blocks() + color.joints.len().div_ceil(JOINTS_PER_BLOCK)
            }
            JointSet::Overflow => 1,
        }
    }
}

impl JointBatches {
    /// Takes every joint's constants for a step of substeps `h` long and colors the joints
    /// that can move a body, but those marked in `exact` (per slot; the joint trees solve
    /// them), unless the coloring of the last call was made for the same `key`; `state_of`
    /// maps body slots to solver states, of which there are `states`. Returns whether any
    /// joint can move a body.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prepare(
        &mut self,
        key: LayoutKey,
        slots: &[Slot],
        bodies: &BodyStore,
        state_of: &[u32],
        states: usize,
        settings: &WorldSettings,
        h: f32,
        exact: &[bool],
    ) -> bool {
        zone!("joint prepare");
        let batches = self;
        batches.kernels = Some(settings.kernels());
        // The pin lanes keep their bodies and masses while the layout stands.
        let relaid = batches.laid_out != Some(key);
        if relaid {
            batches.color(slots, bodies, state_of, states, exact);
            batches.laid_out = Some(key);
        }
        batches.clear_padding();
        // Every step: the layout may stand while the thread count changes.
        let threads = rayon::current_num_threads();
        for color in &mut batches.colors {
            color.size_pin_blocks(threads);
        }
        let prepare = |slot: u32| {
            let joint = slots[slot as usize].joint.as_ref();
            let joint = joint.expect("a colored slot has a joint");
            let prepared = joint.prepare(slot, bodies, state_of, h, settings.gravity);
            prepared.unwrap_or_default()
        };
        // Laid out afresh, a pin lane takes here the constants its passes read, and no more.
        // Else it keeps its bodies and masses, and takes the constants that change from step
        // to step (its arms, eight lanes at a time) in the step's first warm start, on the
        // worker that solves it (see `Passes::run_pins`). It keeps its impulses too: the last
        // relax of the step before handed them to its joint, and whatever else writes a
        // joint's impulses (the run-time joint control, a joint added or removed) draws the
        // joints a new stamp, which lays them out afresh. A restore copies the layout with the
        // joints it was saved with, or leaves it to be laid out afresh.
        batches.pins_due = !relaid;
        if relaid {
            let lay_out_pin =
                |(batch, start, frames): (&mut PinBatch, &mut PinStart, &mut PinFrames),
                 l: usize,
                 slot| {
                    let joint = slots[slot as usize].joint.as_ref();
                    let joint = joint.expect("a colored slot has a joint");
                    match joint.consts(slot, bodies, state_of) {
                        Some((c, _)) => {
                            batch.set(l, &c, &joint.impulses);
                            start.set(l, &c);
                            frames.set(l, joint);
                        }
                        None => {
                            batch.clear(l);
                            start.clear(l);
                        }
                    }
                };
            let JointBatches {
                pins,
                pin_starts,
                pin_frames,
                pin_slots,
                ..
            } = &mut *batches;
            let pins = pins.par_chunks_mut(PREPARE_MIN_LEN / LANES);
            let starts = pin_starts.par_chunks_mut(PREPARE_MIN_LEN / LANES);
            let frames = pin_frames.par_chunks_mut(PREPARE_MIN_LEN / LANES);
            let lanes = pin_slots.par_chunks(PREPARE_MIN_LEN / LANES);
            (pins, starts, frames, lanes).into_par_iter().for_each(
                |(pins, starts, frames, lanes)| {
                    let batches = pins.iter_mut().zip(starts).zip(frames).zip(lanes);
                    for (((batch, start), frames), lanes) in batches {
                        for (l, &slot) in lanes.iter().enumerate().filter(|(_, &s)| s != NONE) {
                            lay_out_pin((&mut *batch, &mut *start, &mut *frames), l, slot);
                        }
                    }
                },
            );
        }
        let JointBatches {
            prepared,
            extra,
            joint_slots,
            ..
        } = batches;
        let joints = prepared.par_iter_mut().zip(extra.par_iter_mut());
        joints
            .zip(joint_slots.par_iter())
            .with_min_len(PREPARE_MIN_LEN)
            .for_each(|((p, x), &slot)| (*p, *x) = prepare(slot));
        !batches.colors.is_empty() || !batches.overflow.is_empty()
    }

    /// Writes the step's impulses of the joints of `prepared` back to the joints, on the
    /// workers: each joint is in one place, so each slot is written once, by one of them. (The
    /// pins write theirs in the step's last relax, see `Passes::run`.)
    pub(crate) fn store_impulses(&self, slots: &mut [Slot]) {
        zone!("joint store impulses");
        let count = slots.len();
        let slots = DisjointMut::new(slots);
        let store = |slot: u32, write: &dyn Fn(&mut Impulses)| {
            if (slot as usize) < count {
                // SAFETY: in bounds, and no other lane or place has this joint (see above).
                let joint = unsafe { slots.get(slot as usize) }.joint.as_mut();
                if let Some(joint) = joint {
                    write(&mut joint.impulses);
                }
            }
        };
        (self.prepared.par_iter())
            .with_min_len(PREPARE_MIN_LEN)
            .for_each(|p| store(p.c.slot, &|i| *i = p.impulses));
    }
}

impl JointBatches {
    /// Colors the joints that can move a body, but those marked in `exact`, and lays the
    /// colors out: which joint goes to which pin lane and place of `prepared`.
    fn color(
        &mut self,
        slots: &[Slot],
        bodies: &BodyStore,
        state_of: &[u32],
        states: usize,
        exact: &[bool],
    ) {
        self.color_of.clear();
        self.in_tree.clear();
        self.in_tree.extend_from_slice(exact);
        self.used.clear();
        // Only a joint reads it: a world without joints skips clearing one entry per state
        // each time the states change.
        if slots.iter().any(|s| s.joint.is_some()) {
            self.used.resize(states, 0);
        }
        let sets = JOINT_COLORS as usize + 1;
        self.plain.clear();
        self.plain.resize(sets, 0);
        self.others.clear();
        self.others.resize(sets, 0);
        // Greedy in slot order: each joint takes the first color in which neither body it
        // moves is used yet.
        for (slot, s) in slots.iter().enumerate() {
            let exact = exact.get(slot).copied().unwrap_or(false);
            let joint = s.joint.as_ref().filter(|_| !exact);
            let color = joint.map_or(NO_COLOR, |joint| {
                let [(sa, ma, ia, _), (sb, mb, ib, _)] =
                    [joint.a, joint.b].map(|slot| side(slot, bodies, state_of));
                if ma + mb + ia + ib <= 0.0 || bodies.either_disabled(joint.a, joint.b) {
                    return NO_COLOR;
                }
                let moved = [(sa, ma + ia > 0.0), (sb, mb + ib > 0.0)];
                let moved = moved.map(|(state, moves)| moves.then_some(state as usize));
                let used = moved.iter().flatten().fold(0, |u, &s| u | self.used[s]);
                let color = (!used).trailing_zeros();
                if color < JOINT_COLORS {
                    for &s in moved.iter().flatten() {
                        self.used[s] |= 1 << color;
                    }
                }
                match joint.is_plain() && color < JOINT_COLORS {
                    true => self.plain[color as usize] += 1,
                    false => self.others[color as usize] += 1,
                }
                color as u8
            });
            self.color_of.push(color);
        }
        self.lay_out();
        // Each joint's place in color order, in slot order, where `prepare` takes its
        // constants straight into on the workers. A joint's constants are its own, whoever
        // takes them: the same bits on any thread count.
        self.joint_slots.clear();
        self.joint_slots.resize(self.prepared.len(), NONE);
        for (slot, (s, &color)) in slots.iter().zip(&self.color_of).enumerate() {
            let Some(joint) = s.joint.as_ref().filter(|_| color != NO_COLOR) else {
                continue;
            };
            let color = color as usize;
            if joint.is_plain() && color < JOINT_COLORS as usize {
                let at = &mut self.plain[color];
                self.pin_slots[*at / LANES][*at % LANES] = slot as u32;
                *at += 1;
            } else {
                let at = &mut self.others[color];
                self.joint_slots[*at] = slot as u32;
                *at += 1;
            }
        }
    }

    /// Makes padding every pin lane without a joint (the last batch of a color may have
    /// some), whatever the passes of the last step left in it.
    fn clear_padding(&mut self) {
        for color in &self.colors {
            let Some(last) = color.pins.clone().last() else {
                continue;
            };
            for l in 0..LANES {
                if self.pin_slots[last][l] == NONE {
                    self.pins[last].clear(l);
                    self.pin_starts[last].clear(l);
                }
            }
        }
    }

    /// Lays the sets out from their counts: each color's pins and other joints, and the
    /// overflow set after the colors' other joints. Sizes the buffers, pads each color's last
    /// pin batch, and leaves `plain[color]` at the color's first pin lane, `others[set]` at
    /// the set's first place in `prepared`.
    fn lay_out(&mut self) {
        let pins: usize = self.plain.iter().map(|n| n.div_ceil(LANES)).sum();
        let joints: usize = self.others.iter().sum();
        // Every place is written before the passes read it (the padding lanes here, the
        // joints' in `JointStore::prepare`): no need to clear.
        self.prepared.resize(joints, Prepared::default());
        self.extra.resize(joints, Extra::default());
        self.pins.resize(pins, PinBatch::empty());
        self.pin_starts.resize(pins, PinStart::zeroed());
        // Every lane's frames start as padding's, which the arms kernel leaves alone; `prepare`
        // then takes each pin's into its lane.
        self.pin_frames.clear();
        self.pin_frames.resize(pins, PinFrames::zeroed());
        self.pin_slots.resize(pins, [NONE; LANES]);
        self.colors.clear();
        let (mut pins, mut joints) = (0, 0);
        for c in 0..=JOINT_COLORS as usize {
            let (plain, others) = (self.plain[c], self.others[c]);
            let color = JointColor {
                pins: pins..pins + plain.div_ceil(LANES),
                joints: joints..joints + others,
                pins_per_block: MIN_PINS_PER_BLOCK,
            };
            if plain % LANES != 0 {
                let last = color.pins.end - 1;
                for l in plain % LANES..LANES {
                    self.pin_slots[last][l] = NONE;
                }
            }
            self.plain[c] = pins * LANES;
            self.others[c] = joints;
            pins = color.pins.end;
            joints = color.joints.end;
            if c == JOINT_COLORS as usize {
                self.overflow = color.joints;
            } else if plain + others > 0 {
                self.colors.push(color);
            }
        }
    }
}

/// Filling a pin lane from a plain revolute joint's constants.
pub(super) trait SetLane {
    /// All of the lane's constants but its start (see [`SetStart`]).
    fn set(&mut self, l: usize, c: &Consts, i: &Impulses);
}

impl SetLane for PinBatch {
    fn set(&mut self, l: usize, c: &Consts, i: &Impulses) {
        self.set_bodies(l, c.state, c.inv_mass, c.inv_inertia);
        self.impulse_x[l] = i.linear.x;
        self.impulse_y[l] = i.linear.y;
        self.angular[l] = pin_angular(i);
    }
}

/// The angular impulse a pin warm starts with, which its passes leave as it is: the sum of
/// a revolute joint's angular impulses, as the warm start sums them (see `warm_start`).
pub(super) fn pin_angular(i: &Impulses) -> f32 {
    i.angular + i.motor + i.lower - i.upper
}

/// Filling a pin lane's start from a plain revolute joint's constants.
pub(super) trait SetStart {
    /// The anchors relative to the centres and B's centre minus A's.
    fn set(&mut self, l: usize, c: &Consts);
}

impl SetStart for PinStart {
    fn set(&mut self, l: usize, c: &Consts) {
        self.rax[l] = c.r[0].x;
        self.ray[l] = c.r[0].y;
        self.rbx[l] = c.r[1].x;
        self.rby[l] = c.r[1].y;
        self.dcx[l] = c.delta_center.x;
        self.dcy[l] = c.delta_center.y;
    }
}

/// Filling a lane's frames from a plain revolute joint.
trait SetFrames {
    fn set(&mut self, l: usize, joint: &Joint);
}

impl SetFrames for PinFrames {
    fn set(&mut self, l: usize, joint: &Joint) {
        let b = joint.b.index() as u32;
        let fixed_a = joint.a == BodySlot::NONE;
        self.body_a[l] = if fixed_a { b } else { joint.a.index() as u32 };
        self.body_b[l] = b;
        self.local_ax[l] = joint.local_a.x;
        self.local_ay[l] = joint.local_a.y;
        self.local_bx[l] = joint.local_b.x;
        self.local_by[l] = joint.local_b.y;
        self.fixed_a[l] = if fixed_a { 1.0 } else { 0.0 };
        self.live[l] = 1.0;
    }
}

/// The bodies' centres and rotations as the pin kernels read them.
pub(super) fn body_frames(bodies: &BodyStore) -> BodyFrames<'_> {
    let (center, rotation) = (bodies.center(), bodies.rotation());
    // SAFETY: `Vec2` and `Rot` are `repr(C)` pairs of f32s, (x, y) and (cosine, sine): each
    // slice is one of as many `[f32; 2]`s, borrowed for as long.
    unsafe {
        BodyFrames {
            center: std::slice::from_raw_parts(center.as_ptr().cast(), center.len()),
            rotation: std::slice::from_raw_parts(rotation.as_ptr().cast(), rotation.len()),
        }
    }
}
