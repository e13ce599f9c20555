//! The world's contact calls: the last step's events and touching contacts.

use crate::narrow_phase::events::{ContactData, ContactEvents};
use crate::world::World;

impl World {
    /// Pairs that began and stopped touching in the last step (see [`ContactEvents`] for what
    /// touching means), plus the ends of contacts of bodies
    /// removed before it, and the bodies that began and stopped overlapping sensors.
    /// Deterministic: sorted by slot, the same for any thread count and backend. A sleeping
    /// island's contacts are set aside, not ended: falling asleep and waking up produce no
    /// events. A [`FixedStepper`](crate::FixedStepper) keeps the events of every step it runs.
    pub fn contact_events(&self) -> &ContactEvents {
        &self.events.events
    }

    /// The touching contacts after the last step (those the events report; see
    /// [`ContactEvents`]), sorted by `(a.slot(), b.slot(), shape_a, shape_b)`: one
    /// per touching pair of shapes, so a compound body (see [`World::add_compound_body`])
    /// resting on two feet has two contacts with the ground. [`World::contact_count`]
    /// also counts the speculative manifolds of pairs that do not touch yet. The contacts of
    /// sleeping islands are set aside and not listed until they wake.
    pub fn contacts(&self) -> impl Iterator<Item = ContactData<'_>> + '_ {
        self.events
            .touching_contacts(&self.contacts, &self.bodies, &self.removed)
    }

    /// Touching contacts (manifolds with at least one point) found by the last step, those of
    /// sleeping islands included: one per pair of shapes, so a compound body may have several
    /// with the same body.
    pub fn contact_count(&self) -> usize {
        let removed = &self.removed;
        let gone = if removed.is_empty() {
            0
        } else {
            let contacts = self.contacts.list.iter();
            contacts.filter(|c| removed.either(c.a, c.b)).count()
        };
        self.contacts.list.len() - gone + self.sleep.frozen_contact_count()
    }
}
