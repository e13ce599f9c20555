//! The spin bounds of the bodies in contact: the angular speed of each body with a touching
//! contact is bounded through the step, unless it allows fast rotation; loading the states
//! clamps them to it. A contact's points are fixed on its bodies when the step's manifold is
//! made and turn with them through the step: a quarter turn per step bounds how far they carry
//! round, and with more, a fast spinning dumbbell's ball slips into a thin wall it touches. A
//! body the step finds in no contact turns freely (within `IntegrateParams::max_angular_speed`).
//!
//! Every contact the solver gets touches in this sense (has a point): the update drops a pair
//! whose manifold has none, the pre-solve hook's disabled contacts leave the list, a thawed
//! contact was frozen from the list, and a snapshot's contacts without a point are refused.
//! So the contacts (the graph's generation) decide the bounds. In a resting scene the step
//! brings the same contacts between the same bodies: the bounds then stand, told by comparing
//! the key alone, where marking them reads each contact's bodies.

use crate::body::BodyStore;
use crate::index::Stamp;
use crate::narrow_phase::contact::Contact;

/// The step's spin bounds, and what they were made from.
#[derive(Clone, Default)]
pub(super) struct SpinBounds {
    /// Per state: the angular speed bound (rad/s) of a body with a touching contact, infinite
    /// for the others; empty where no contact touches, and the kernels then read no bounds.
    pub bounds: Vec<f32>,
    /// What `bounds` were made from; `None` before the first.
    key: Option<SpinKey>,
}

/// What decides the spin bounds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct SpinKey {
    /// `ConstraintGraph::generation`: the same contacts, between the same bodies.
    pub graph: u64,
    /// `Solver::order_stamp`: the same states for the same bodies.
    pub states: Stamp,
    /// `BodyStore::mass_stamp`: the same bodies, each allowing fast rotation or not.
    pub bodies: Stamp,
    /// The bits of the bound (rad/s), a quarter turn per step.
    pub max: u32,
}

impl SpinBounds {
    /// Sets the bounds of `states` states, `state_of` giving each body slot its state (or
    /// `NULL_BODY`), for `contacts` (each with a point), unless they stand: made from the same
    /// `key`.
    pub fn update(
        &mut self,
        key: SpinKey,
        state_of: &[u32],
        states: usize,
        contacts: &[Contact],
        bodies: &BodyStore,
    ) {
        debug_assert!(
            contacts.iter().all(|c| c.manifold.point_count > 0),
            "a contact without a point reached the solver"
        );
        if self.key == Some(key) {
            return;
        }
        self.key = Some(key);
        let max = f32::from_bits(key.max);
        bound_contact_spin(&mut self.bounds, state_of, states, contacts, bodies, max);
    }
}

/// Sets `spin_bound` (see [`SpinBounds::bounds`]) to `max` for the states of the bodies of
/// `contacts`, unless they allow fast rotation, and to infinity for the others.
/// (`#[inline(never)]`: inlined into `Solver::step`, its loop was short of registers and read
/// the contacts' address from the stack for every contact.)
#[inline(never)]
fn bound_contact_spin(
    spin_bound: &mut Vec<f32>,
    state_of: &[u32],
    states: usize,
    contacts: &[Contact],
    bodies: &BodyStore,
    max: f32,
) {
    spin_bound.clear();
    // Without a contact no body is bound, and the kernels read no bounds.
    if contacts.is_empty() {
        return;
    }
    spin_bound.resize(states, f32::INFINITY);
    // (A slice, not the vector, in the loop: its length and address are then not read again
    // after every store. `fast` is cut to `state_of`'s length, one per slot as it is, so that
    // a contact's slots are checked once for both.)
    let spin_bound = &mut spin_bound[..];
    let fast = &bodies.fast_rotation()[..state_of.len()];
    // Bounds are all the same value: the order of the contacts cannot change them.
    for c in contacts {
        let (a, b) = (c.a.index(), c.b.index());
        assert!(a < state_of.len() && b < state_of.len());
        // A body with no state (`NULL_BODY`, past every state) or fast rotation (all ones
        // then) has no bound: one test of the index against the bounds tells both.
        let bound = |slot: usize| state_of[slot] as usize | (fast[slot] as usize).wrapping_neg();
        for state in [bound(a), bound(b)] {
            if let Some(bound) = spin_bound.get_mut(state) {
                *bound = max;
            }
        }
    }
}
