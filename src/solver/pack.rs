//! Packing the step's contacts into the solver's batches: each contact's data copied into its
//! lane (bodies as solver states, anchors relative to the centres of mass, softness and push-out
//! cap) and each batch prepared; after the step, the lanes' impulses copied back.
//!
//! The kernels read the contacts `LANES` at a time, in the batches of the graph's colors; the
//! narrowphase keeps them one by one, in pair order. This is where the one layout is turned
//! into the other.
//!
//! In a resting scene the step brings the same contacts as the last, in the same lanes,
//! between the same bodies: only the contacts' own numbers (normal, anchors, separations,
//! impulses, materials) change. The lanes then keep what comes from the bodies alone (their
//! states, masses and softness), and only the rest is packed again (see [`Layout`]).

use crate::backend::Kernels;
use crate::body::BodyStore;
use crate::coloring::ConstraintGraph;
use crate::geometry::math::Vec2;
use crate::index::{ContactIndex, Stamp, NONE};
use crate::narrow_phase::contact::Contact;
use crate::narrow_phase::manifold::ManifoldPoint;
use crate::settings::WorldSettings;
use crate::softness::Softness;
use crate::solver::direct_islands::DirectIslands;
use crate::solver::direct_solver::DirectSolver;
use crate::solver::schedule::{BATCHES_PER_BLOCK, BODIES_PER_BLOCK};
use batch2d_kernels::body::States;
use batch2d_kernels::{ContactBatch, LaneBodies, PointRow, PointRows, StateRows, LANES, NULL_BODY};
use bytemuck::Zeroable;
use rayon::prelude::*;
use std::mem::offset_of;
use std::sync::atomic::{AtomicU32, Ordering};

/// Overlap, as a fraction of the smaller body's reach, beyond which a contact is deep and
/// shares its body's push-out cap (see `PushCap`).
const DEEP_OVERLAP: f32 = 0.25;

/// The per-state counts of `count_deep_contacts`, which sets them all before it counts: a
/// copy of the solver starts with none.
#[derive(Default)]
struct DeepCounts(Vec<AtomicU32>);

impl Clone for DeepCounts {
    fn clone(&self) -> DeepCounts {
        DeepCounts::default()
    }
}

/// The step's contacts, packed into batches of `LANES` for the kernels.
#[derive(Clone, Default)]
pub(super) struct ContactBatches {
    /// One per batch of the graph (`ConstraintGraph::lanes`), in its order.
    pub batches: Vec<ContactBatch>,
    /// Per batch: whether all its contacts have one point (then a faster kernel solves it).
    pub one_point: Vec<bool>,
    /// Per batch: what its lanes take from their bodies alone, beside what the batch holds
    /// (a padding lane's fall is `PackParams::no_fall`; the deep overlaps are those of
    /// [`is_deep`]).
    lane_bodies: Vec<LaneBodies>,
    /// Per batch: its deep lanes as packed this step, bit `l` for lane `l` (see
    /// [`Kernels::load_points`]).
    deep_lanes: Vec<u32>,
    /// What the lanes' bodies were packed from, `None` before the first packing: while a step
    /// brings the same, only the contacts' own numbers are packed again.
    layout: Option<Layout>,
    /// Per state: how many of its contacts are deep (see `count_deep_contacts`).
    deep_contacts: DeepCounts,
    /// Per body slot: its centre of mass relative to its origin, in world orientation. Worked
    /// out once a step for every body, not once for each of its contacts: a body in a pile
    /// has several.
    offsets: Vec<Vec2>,
}

/// Everything that decides a lane's bodies and the constants packed from them
/// ([`pack_bodies`]): the contact in the lane, the bodies' states, their masses, gravity
/// scales and reaches, and the softness.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Layout {
    /// `ConstraintGraph::generation`: the same contacts in the same lanes, between bodies of
    /// the same kinds.
    graph: u64,
    /// `PackInput::state_order`: the same states for the same bodies.
    states: Stamp,
    /// `BodyStore::mass_stamp`: the same masses, centres, gravity scales and reaches.
    bodies: Stamp,
    /// The bits of the softness against a moving and a fixed body (bias rate, mass scale),
    /// which the settings and the substep length decide.
    softness: [[u32; 2]; 2],
    /// The bits of `PackParams::no_fall`, which the gravity decides.
    no_fall: u32,
}

/// What packing reads.
#[derive(Clone, Copy)]
pub(super) struct PackInput<'a> {
    pub contacts: &'a [Contact],
    pub graph: &'a ConstraintGraph,
    /// The contacts the graph left to the direct solver.
    pub direct: &'a DirectIslands,
    pub bodies: &'a BodyStore,
    /// Per body slot: its state, or `NULL_BODY` (see `Solver::state_of`).
    pub state_of: &'a [u32],
    /// Changes whenever `state_of` is made anew, and only then.
    pub state_order: Stamp,
    pub settings: &'a WorldSettings,
    /// The substep length (s).
    pub h: f32,
}

impl ContactBatches {
    /// Fills the batches with the contacts' data and prepares them (base separations), and
    /// hands the direct islands their contacts, which load into `states`. Returns whether any
    /// contact bounces (restitution above zero).
    pub fn fill(
        &mut self,
        input: &PackInput,
        states: &mut StateRows,
        direct_solver: &mut DirectSolver,
    ) -> bool {
        let PackInput {
            contacts,
            graph,
            direct,
            bodies,
            state_of,
            state_order,
            settings,
            h,
        } = *input;
        let zeta = settings.contact_damping_ratio;
        let soft = Softness::contact(settings, zeta, h, false);
        let rigid_soft = Softness::contact(settings, zeta, h, true);
        let kernels = settings.kernels();

        // The lanes are packed as if no contact were deep, which is the common case; a deep
        // one (seen while packing) has every lane's push cap redone from the counts below.
        let max_velocity = settings.contact_push_max_velocity;
        let params = PackParams {
            gravity: settings.gravity,
            soft,
            rigid_soft,
            max_push: max_velocity,
        };
        let layout = Layout {
            graph: graph.generation(),
            states: state_order,
            bodies: bodies.mass_stamp(),
            softness: [soft, rigid_soft].map(|s| [s.bias_rate.to_bits(), s.mass_scale.to_bits()]),
            no_fall: params.no_fall().to_bits(),
        };
        // (Taken out for the packing, which borrows the rest of `self`, and put back after.)
        let mut offsets = std::mem::take(&mut self.offsets);
        rotate_centers(&mut offsets, bodies);
        let columns = PackBodies::new(bodies, state_of, &offsets);
        let (bouncy, deep) = if self.layout == Some(layout) {
            self.refresh(contacts, graph, &columns, &params, kernels)
        } else {
            self.layout = Some(layout);
            self.pack(contacts, graph, &columns, &params, kernels)
        };
        self.offsets = offsets;
        let direct_contacts = direct.contacts.iter().map(|&ci| &contacts[ci.index()]);
        let bouncy = bouncy | direct_contacts.clone().any(|c| c.restitution > 0.0);

        // Every contact is in a lane or a direct island.
        let deep_direct = |c: &&Contact| is_deep(c, bodies.reach());
        let push = if deep || direct_contacts.clone().any(|c| deep_direct(&c)) {
            let states = states.len();
            let deep_direct = direct_contacts.filter(deep_direct);
            let shared = self.cap_deep_contacts(deep_direct, state_of, states, max_velocity);
            // Where no body has two deep contacts, every cap is the whole one.
            PushCap {
                max_velocity,
                deep_contacts: shared.then_some(&self.deep_contacts.0[..]),
            }
        } else {
            PushCap {
                max_velocity,
                deep_contacts: None,
            }
        };
        let softness = |c: &Contact| {
            let s = params.softness(c, bodies.inv_mass());
            (
                s.bias_rate,
                push.of(state_of[c.a.index()], state_of[c.b.index()]),
            )
        };
        let states = States::new(states);
        direct_solver.load(direct, contacts, bodies, state_of, states, &softness);
        bouncy
    }

    /// Packs each batch's lanes with its contacts' data and prepares it (base separations),
    /// with the push cap of a step without deep contacts. Returns whether any batch bounces
    /// and whether any of its contacts is deep.
    fn pack(
        &mut self,
        contacts: &[Contact],
        graph: &ConstraintGraph,
        bodies: &PackBodies,
        params: &PackParams,
        kernels: &dyn Kernels,
    ) -> (bool, bool) {
        let batches = graph.lanes.len();
        self.batches.resize(batches, ContactBatch::zeroed());
        self.one_point.resize(batches, false);
        self.lane_bodies.resize(batches, LaneBodies::default());
        let (no_fall, gravity) = (params.no_fall(), params.gravity_lanes());
        self.deep_lanes.resize(batches, 0);
        self.batches
            .par_iter_mut()
            .zip(&mut self.one_point)
            .zip(&mut self.deep_lanes)
            .zip(&mut self.lane_bodies)
            .zip(graph.lanes.par_iter().enumerate())
            .with_min_len(BATCHES_PER_BLOCK)
            // (The points' rows are kept from batch to batch, each lane written afresh: made
            // for each batch, they were copied from a constant every time.)
            .map_init(
                || PointRows::NONE,
                |points, ((((batch, one_point), deep), lane_bodies), (i, lanes))| {
                    prefetch_ahead(contacts, graph, i);
                    // Each lane is written whole, not zeroed first: zeroing wrote every batch
                    // twice. The batch is prepared here too, while it is in cache.
                    let bodies = bodies.cut();
                    for (l, &ci) in lanes.iter().enumerate() {
                        if ci == ContactIndex::NONE {
                            batch.clear(l);
                            points.clear(l);
                            (lane_bodies.fall[l], lane_bodies.deep_overlap[l]) = (no_fall, 0.0);
                        } else {
                            let c = &contacts[ci.index()];
                            let slots = bodies.slots(c);
                            (lane_bodies.fall[l], lane_bodies.deep_overlap[l]) =
                                pack_bodies(batch, l, slots, &bodies, params);
                            pack_contact(batch, points, l, c, slots, &bodies, params);
                        }
                    }
                    let loaded = kernels.load_points(batch, points, lane_bodies, gravity);
                    (*one_point, *deep) = (loaded.one_point, loaded.deep);
                    (batch.is_bouncy(), *deep != 0)
                },
            )
            .reduce(|| (false, false), |a, b| (a.0 | b.0, a.1 | b.1))
    }

    /// As [`ContactBatches::pack`], where the layout stands (see [`Layout`]): each lane
    /// keeps its bodies and what comes from them, and only its contact's own numbers are
    /// packed. The batches come out as `pack` would make them, bit for bit.
    fn refresh(
        &mut self,
        contacts: &[Contact],
        graph: &ConstraintGraph,
        bodies: &PackBodies,
        params: &PackParams,
        kernels: &dyn Kernels,
    ) -> (bool, bool) {
        let gravity = params.gravity_lanes();
        self.batches
            .par_iter_mut()
            .zip(&mut self.one_point)
            .zip(&mut self.deep_lanes)
            .zip(&self.lane_bodies)
            .zip(graph.lanes.par_iter().enumerate())
            .with_min_len(BATCHES_PER_BLOCK)
            // (The points' rows are kept from batch to batch, each lane written afresh: made
            // for each batch, they were copied from a constant every time.)
            .map_init(
                || PointRows::NONE,
                |points, ((((batch, one_point), deep), lane_bodies), (i, lanes))| {
                    prefetch_ahead(contacts, graph, i);
                    let bodies = bodies.cut();
                    for (l, &ci) in lanes.iter().enumerate() {
                        if ci == ContactIndex::NONE {
                            // The kernels write a padding lane's impulses too.
                            batch.clear(l);
                            points.clear(l);
                        } else {
                            let c = &contacts[ci.index()];
                            pack_contact(batch, points, l, c, bodies.slots(c), &bodies, params);
                        }
                    }
                    let loaded = kernels.load_points(batch, points, lane_bodies, gravity);
                    (*one_point, *deep) = (loaded.one_point, loaded.deep);
                    (batch.is_bouncy(), *deep != 0)
                },
            )
            .reduce(|| (false, false), |a, b| (a.0 | b.0, a.1 | b.1))
    }

    /// Counts the deep contacts of each state (`deep_contacts`) and shares the push cap of
    /// every batch's lanes among them (see `PushCap`). The deep contacts are the batches' deep
    /// lanes, as packing found them, and `deep_direct`, those of the direct islands: every
    /// contact is in one or the other. Returns whether a body has more than one deep contact:
    /// where none has, every lane keeps the whole cap packing wrote, and none is read.
    fn cap_deep_contacts<'c>(
        &mut self,
        deep_direct: impl Iterator<Item = &'c Contact>,
        state_of: &[u32],
        states: usize,
        max_velocity: f32,
    ) -> bool {
        if !self.count_deep_contacts(states, deep_direct, state_of) {
            return false;
        }
        let push = PushCap {
            max_velocity,
            deep_contacts: Some(&self.deep_contacts.0),
        };
        self.batches
            .par_iter_mut()
            .with_min_len(BATCHES_PER_BLOCK)
            // (`move`: the cap's fields then stay in registers, not read again after each store.)
            .for_each(move |batch| {
                for l in 0..LANES {
                    // Packing wrote the whole cap, which a contact keeps where neither body has
                    // more than one deep contact: most lanes, left as they are, and the unused
                    // ones, whose bodies are both `NULL_BODY`.
                    let shared_by = push.shared_by(batch.body_a[l], batch.body_b[l]);
                    if shared_by > 1 {
                        batch.max_push[l] = push.cap(shared_by);
                    }
                }
            });
        true
    }

    /// Counts, per state, its deep contacts at the start of the step: those whose overlap is
    /// over a quarter of the smaller body's reach (see [`is_deep`]). Overlaps in a settling
    /// pile stay well below; bodies created inside each other do not. Only the batches with
    /// a deep lane are read, and the direct islands' deep contacts `deep_direct`. Counts are
    /// sums of ones, so the parallel order does not change them. Returns whether a state
    /// counts more than one.
    fn count_deep_contacts<'c>(
        &mut self,
        states: usize,
        deep_direct: impl Iterator<Item = &'c Contact>,
        state_of: &[u32],
    ) -> bool {
        let counts = &mut self.deep_contacts.0;
        if counts.len() < states {
            counts.resize_with(states, AtomicU32::default);
        }
        let counts = &counts[..states];
        counts
            .par_iter()
            .with_min_len(BODIES_PER_BLOCK)
            .for_each(|count| count.store(0, Ordering::Relaxed));
        // Whether the state had a deep contact counted before: whichever of two comes last
        // sees the other's, whatever the order.
        let add = |state: u32| match state {
            NULL_BODY => false,
            s => counts[s as usize].fetch_add(1, Ordering::Relaxed) > 0,
        };
        // (A reduction, not `any`, which would stop counting at the first shared state.)
        let shared = self
            .batches
            .par_iter()
            .zip(&self.deep_lanes)
            .with_min_len(BATCHES_PER_BLOCK)
            .filter(|(_, &deep)| deep != 0)
            .map(|(batch, &deep)| {
                let lanes = (0..LANES).filter(|l| deep >> l & 1 != 0);
                lanes.fold(false, |shared, l| {
                    add(batch.body_a[l]) | add(batch.body_b[l]) | shared
                })
            })
            .reduce(|| false, |a, b| a | b);
        deep_direct.fold(shared, |shared, c| {
            add(state_of[c.a.index()]) | add(state_of[c.b.index()]) | shared
        })
    }

    /// Copies the lanes' impulses back to their contacts, for the next step's warm start.
    pub fn store_impulses(&self, contacts: &mut [Contact], graph: &ConstraintGraph) {
        let batches = &self.batches[..];
        // In blocks of contacts, each a plain loop: one parallel item per contact cost a call
        // of the item's closure for each.
        let block = BATCHES_PER_BLOCK * LANES;
        contacts
            .par_chunks_mut(block)
            .zip(graph.contact_lane.par_chunks(block))
            .for_each(|(contacts, contact_lane)| {
                for (c, &at) in contacts.iter_mut().zip(contact_lane) {
                    if at == NONE {
                        continue;
                    }
                    let (b, l) = (at as usize / LANES, at as usize % LANES);
                    let m = &mut c.manifold;
                    let lanes = &batches[b].points;
                    for (p, lanes) in m.points[..m.point_count].iter_mut().zip(lanes) {
                        p.normal_impulse = lanes.normal_impulse[l];
                        p.tangent_impulse = lanes.tangent_impulse[l];
                        p.impact_impulse = lanes.impact_impulse[l];
                    }
                }
            });
    }
}

/// What the lanes of one step share: soft-contact coefficients and the push-out cap.
struct PackParams {
    gravity: Vec2,
    /// Between two dynamic bodies.
    soft: Softness,
    /// Against a static or kinematic body.
    rigid_soft: Softness,
    /// The push-out cap of a step without deep contacts (see `PushCap`).
    max_push: f32,
}

/// The push-out speed cap and how bodies share it.
#[derive(Clone, Copy)]
struct PushCap<'a> {
    /// `WorldSettings::contact_push_max_velocity`.
    max_velocity: f32,
    /// Per state: how many of its contacts are deep; `None` when none is.
    deep_contacts: Option<&'a [AtomicU32]>,
}

impl PackParams {
    /// The fall of an unused lane ([`LaneBodies::fall`]). Its normal is zero, so gravity along
    /// it is a zero whose sign the gravity's decides: a fall of that same zero makes their
    /// product +0, which `ContactBatch::clear` leaves in the lane's `gravity_normal`.
    fn no_fall(&self) -> f32 {
        Vec2::ZERO.dot(self.gravity)
    }

    /// The gravity as [`Kernels::load_points`] takes it.
    fn gravity_lanes(&self) -> [f32; 2] {
        [self.gravity.x, self.gravity.y]
    }

    /// The soft coefficients of a contact: stiffer against a body that cannot move.
    /// `inv_mass` is `BodyStore::inv_mass`.
    fn softness(&self, c: &Contact, inv_mass: &[f32]) -> Softness {
        self.softness_between(inv_mass[c.a.index()], inv_mass[c.b.index()])
    }

    /// [`PackParams::softness`] of a contact between bodies of inverse masses `inv_mass_a`
    /// and `inv_mass_b`.
    #[inline(always)]
    fn softness_between(&self, inv_mass_a: f32, inv_mass_b: f32) -> Softness {
        // (`|`, not `||`: both tests and one select, with no branch on the bodies' kinds.)
        if (inv_mass_a == 0.0) | (inv_mass_b == 0.0) {
            self.rigid_soft
        } else {
            self.soft
        }
    }
}

impl PushCap<'_> {
    /// The cap of one contact between solver states `a` and `b` (`NULL_BODY` for static
    /// bodies): the cap shared evenly among the deep contacts of the busier body. Gauss-Seidel
    /// adds up the pushes a body gets, so with a per-contact cap a thousand bodies created at
    /// one point left at over five times the cap; shared, they leave no faster than the cap,
    /// more slowly (about 4.5 s instead of 0.5 s to come apart).
    fn of(&self, a: u32, b: u32) -> f32 {
        self.cap(self.shared_by(a, b))
    }

    /// How many deep contacts share the cap of a contact between states `a` and `b`: those
    /// of the busier body, and at least one.
    #[inline(always)]
    fn shared_by(&self, a: u32, b: u32) -> u32 {
        let Some(counts) = self.deep_contacts else {
            return 1;
        };
        // (`get`: `NULL_BODY` is past every state, so one test per body tells both.)
        let count = |s: u32| {
            counts
                .get(s as usize)
                .map_or(0, |n| n.load(Ordering::Relaxed))
        };
        count(a).max(count(b)).max(1)
    }

    /// The cap shared by `shared_by` contacts (at least one): the whole cap for one.
    #[inline(always)]
    fn cap(&self, shared_by: u32) -> f32 {
        match shared_by {
            1 => self.max_velocity,
            n => self.max_velocity / n as f32,
        }
    }
}

/// Whether a contact is deep: its overlap is over `DEEP_OVERLAP` of the smaller body's reach
/// (or that reach is NaN). `reach` is `BodyStore::reach`.
fn is_deep(c: &Contact, reach: &[f32]) -> bool {
    let m = &c.manifold;
    let overlap = m.points[..m.point_count]
        .iter()
        .fold(0.0f32, |o, p| o.max(-p.separation));
    let size = reach[c.a.index()].min(reach[c.b.index()]);
    let shallow = overlap <= DEEP_OVERLAP * size;
    !shallow
}

/// The body columns that packing a lane reads (see `BodyStore`), beside `Solver::state_of`.
#[derive(Clone, Copy)]
struct PackBodies<'a> {
    state_of: &'a [u32],
    inv_mass: &'a [f32],
    inv_inertia: &'a [f32],
    gravity_scale: &'a [f32],
    /// `ContactBatches::offsets`.
    offset: &'a [Vec2],
    reach: &'a [f32],
}

impl<'a> PackBodies<'a> {
    fn new(bodies: &'a BodyStore, state_of: &'a [u32], offset: &'a [Vec2]) -> PackBodies<'a> {
        PackBodies {
            state_of,
            inv_mass: bodies.inv_mass(),
            inv_inertia: bodies.inv_inertia(),
            gravity_scale: bodies.gravity_scale(),
            offset,
            reach: bodies.reach(),
        }
    }

    /// The columns, each cut to the length of `state_of` (one per slot, as they all are).
    /// Cut where a batch is packed, so that the compiler sees one length: a slot then costs
    /// one bounds check, not one per column read.
    #[inline(always)]
    fn cut(self) -> PackBodies<'a> {
        let n = self.state_of.len();
        PackBodies {
            state_of: self.state_of,
            inv_mass: &self.inv_mass[..n],
            inv_inertia: &self.inv_inertia[..n],
            gravity_scale: &self.gravity_scale[..n],
            offset: &self.offset[..n],
            reach: &self.reach[..n],
        }
    }

    /// The slots of contact `c`'s bodies A and B, checked here once against the columns'
    /// length: a lane reads its contact's slots once and indexes every column with them, so
    /// that its stores into the batch, which might alias the contact for all the compiler
    /// knows, do not make it read and check them again.
    #[inline(always)]
    fn slots(&self, c: &Contact) -> (usize, usize) {
        let (a, b) = (c.a.index(), c.b.index());
        assert!(a < self.state_of.len() && b < self.state_of.len());
        (a, b)
    }
}

/// Sets `offsets`, per body slot, to the body's centre of mass relative to its origin in
/// world orientation: its local centre turned by its rotation.
fn rotate_centers(offsets: &mut Vec<Vec2>, bodies: &BodyStore) {
    let (rotation, local_center) = (bodies.rotation(), bodies.local_center());
    offsets.resize(rotation.len(), Vec2::ZERO);
    offsets
        .par_chunks_mut(BODIES_PER_BLOCK)
        .zip(rotation.par_chunks(BODIES_PER_BLOCK))
        .zip(local_center.par_chunks(BODIES_PER_BLOCK))
        .for_each(|((offsets, rotation), local_center)| {
            let turned = rotation.iter().zip(local_center);
            for (offset, (r, &c)) in offsets.iter_mut().zip(turned) {
                *offset = r.rotate(c);
            }
        });
}

/// How many batches ahead [`ContactBatches::pack`] prefetches contacts: far enough for the loads to
/// arrive, near enough to stay in cache.
const PACK_AHEAD: usize = 2;

/// Asks for the contacts of the batch `PACK_AHEAD` on from batch `i`. Batches come in color
/// order and contacts in pair order, so each lane reads a contact far from the last one:
/// asking ahead overlaps those cache misses with this batch's work.
#[inline(always)]
fn prefetch_ahead(contacts: &[Contact], graph: &ConstraintGraph, i: usize) {
    let Some(lanes) = graph.lanes.get(i + PACK_AHEAD) else {
        return;
    };
    // (`get`: an unused lane's `NONE` is past every contact, so one test per lane skips it.)
    for &ci in lanes {
        if let Some(c) = contacts.get(ci.index()) {
            c.prefetch();
        }
    }
}

/// Copies into lane `l` of a batch what comes from the bodies of a contact alone, at slots
/// `(a, b)` ([`PackBodies::slots`]): their states, inverse masses and the softness. Returns
/// the lane's [`LaneBodies`] values: how much more gravity pulls B than A, and the overlap
/// beyond which the contact is deep.
#[inline(always)]
fn pack_bodies(
    batch: &mut ContactBatch,
    l: usize,
    (a, b): (usize, usize),
    bodies: &PackBodies,
    params: &PackParams,
) -> (f32, f32) {
    let state_of = bodies.state_of;
    let (inv_mass_a, inv_mass_b) = (bodies.inv_mass[a], bodies.inv_mass[b]);
    batch.set_bodies(l, [state_of[a], state_of[b]], [inv_mass_a, inv_mass_b]);
    batch.inv_inertia_a[l] = bodies.inv_inertia[a];
    batch.inv_inertia_b[l] = bodies.inv_inertia[b];
    let s = params.softness_between(inv_mass_a, inv_mass_b);
    batch.bias_rate[l] = s.bias_rate;
    batch.mass_scale[l] = s.mass_scale;
    let falls = |inv_mass: f32, s: usize| match inv_mass > 0.0 {
        true => bodies.gravity_scale[s],
        false => 0.0,
    };
    let size = bodies.reach[a].min(bodies.reach[b]);
    (
        falls(inv_mass_b, b) - falls(inv_mass_a, a),
        DEEP_OVERLAP * size,
    )
}

/// Copies into lane `l` of a batch the numbers of contact `c` itself but its points, and into
/// lane `l` of `points` where the kernels load them from ([`Kernels::load_points`]): between
/// them and the kernels, every field of the lane that [`pack_bodies`] does not write. `(a, b)`
/// are the contact's slots ([`PackBodies::slots`]).
#[inline(always)]
fn pack_contact<'c>(
    batch: &mut ContactBatch,
    points: &mut PointRows<'c>,
    l: usize,
    c: &'c Contact,
    (a, b): (usize, usize),
    bodies: &PackBodies,
    params: &PackParams,
) {
    let n = c.manifold.normal;
    batch.normal_x[l] = n.x;
    batch.normal_y[l] = n.y;
    // (-0 as +0: the one-point kernels match the two-point ones for friction that is not -0.)
    batch.friction[l] = c.friction + 0.0;
    batch.restitution[l] = c.restitution;
    batch.tangent_speed[l] = c.tangent_speed;
    batch.max_push[l] = params.max_push;

    // Manifold anchors are relative to the body origins; the solver wants them relative to
    // the centres of mass, which are this far from them.
    let (offset_a, offset_b) = (bodies.offset[a], bodies.offset[b]);
    [points.offset_a[0][l], points.offset_a[1][l]] = [offset_a.x, offset_a.y];
    [points.offset_b[0][l], points.offset_b[1][l]] = [offset_b.x, offset_b.y];
    let m = &c.manifold;
    // (Through `u32`, which converts to a float without the test of the high bit that a
    // `usize` needs: a count is at most two.)
    points.count[l] = m.point_count as u32 as f32;
    points.rows[0][l] = point_row(&m.points[0]);
    points.rows[1][l] = point_row(&m.points[1]);
}

// The floats of a `ManifoldPoint` from its anchor on A on are those of a `PointRow`, in its
// order (`point_row`).
const _: () = {
    let at = offset_of!(ManifoldPoint, anchor_a);
    assert!(offset_of!(Vec2, x) == 0 && offset_of!(Vec2, y) == 4);
    assert!(offset_of!(ManifoldPoint, anchor_b) == at + 8);
    assert!(offset_of!(ManifoldPoint, separation) == at + 16);
    assert!(offset_of!(ManifoldPoint, id) == at + 20);
    assert!(offset_of!(ManifoldPoint, normal_impulse) == at + 24);
    assert!(offset_of!(ManifoldPoint, tangent_impulse) == at + 28);
    assert!(std::mem::align_of::<PointRow>() <= std::mem::align_of::<ManifoldPoint>());
};

/// The row of a manifold point that the kernels load it from: the point's own memory, read
/// as one vector.
#[inline(always)]
fn point_row(p: &ManifoldPoint) -> &PointRow {
    let at = (p as *const ManifoldPoint).cast::<u8>();
    // SAFETY: the assertions above: from `anchor_a` on, `p` holds the fields of a `PointRow`
    // in its order, all plain floats (the id a `u32`), aligned as the point is; the row
    // borrows `p`, which no one writes meanwhile.
    unsafe {
        &*at.add(offset_of!(ManifoldPoint, anchor_a))
            .cast::<PointRow>()
    }
}
