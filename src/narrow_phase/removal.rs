//! Bodies removed since the last step whose contacts are still listed.
//!
//! Dropping a removed body's contacts and touching pairs at once meant a pass over every
//! contact per removal: removing the bodies of a resting pile one by one was quadratic. Instead
//! a removal only marks its slot here, and the step that follows drops the contacts and
//! touching pairs of every marked slot in one pass, with the end events that the step reports
//! anyway. Until then the few readers of contacts between steps skip the marked ones.

use crate::body::{BodyId, BodyStore};
use crate::codec::{codec_struct, invalid};
use crate::error::Error;
use crate::index::BodySlot;

#[derive(Clone, Default)]
pub(crate) struct Removed {
    /// Per slot: the handle of the body removed from it since the last step began, whose
    /// contacts are still listed. A slot reused and emptied again keeps the first handle: the
    /// newer body had no contacts yet.
    ids: Vec<Option<BodyId>>,
    /// The marked slots, to clear them.
    slots: Vec<BodySlot>,
}

impl Removed {
    /// Marks the body `id` in `slot` as removed.
    pub fn mark(&mut self, slot: BodySlot, id: BodyId) {
        let s = slot.index();
        if self.ids.len() <= s {
            self.ids.resize(s + 1, None);
        }
        if self.ids[s].is_none() {
            self.ids[s] = Some(id);
            self.slots.push(slot);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The handle of the removed body whose contacts slot `slot` still lists, if any.
    pub fn id(&self, slot: BodySlot) -> Option<BodyId> {
        self.ids.get(slot.index()).copied().flatten()
    }

    /// Whether the contact of slots `a` and `b` belongs to a removed body.
    pub fn either(&self, a: BodySlot, b: BodySlot) -> bool {
        self.id(a).is_some() || self.id(b).is_some()
    }
}

impl Removed {
    /// Forgets the removals, once their contacts and touching pairs are dropped.
    pub fn clear(&mut self) {
        for s in std::mem::take(&mut self.slots) {
            self.ids[s.index()] = None;
        }
    }
}

codec_struct!(Removed { ids, slots });

impl Removed {
    /// `Err` unless every marked slot is a slot of `bodies` with the handle it was marked with.
    pub fn check(&self, bodies: &BodyStore) -> Result<(), Error> {
        let ok = self.ids.len() <= bodies.slots()
            && (self.slots.iter()).all(|s| self.ids.get(s.index()).is_some_and(Option::is_some))
            && self.ids.iter().filter(|id| id.is_some()).count() == self.slots.len();
        ok.then_some(())
            .ok_or_else(|| invalid("removed bodies out of range"))
    }
}
