//! The world's sleep calls (see `islands::sleep` for how islands fall asleep and wake).

use crate::body::BodyId;
use crate::body::SlotKind;
use crate::error::Error;
use crate::index::BodySlot;
use crate::world::World;

impl World {
    /// Whether the body is awake: a dynamic body whose island does not sleep, or a kinematic
    /// body (kinematic bodies never sleep). Fixed bodies are never awake. `Err(InvalidBody)`
    /// for a stale or foreign handle.
    pub fn is_awake(&self, id: BodyId) -> Result<bool, Error> {
        let slot = self.bodies.slot(id)?;
        Ok(self.bodies.kind()[slot] != SlotKind::Fixed && !self.sleep.asleep[slot])
    }

    /// Wakes the island of a sleeping body, with its timers reset: it has `time_to_sleep` of
    /// rest ahead before it can sleep again. No effect on an awake, static or kinematic body.
    /// `Err(InvalidBody)` for a stale or foreign handle.
    pub fn wake(&mut self, id: BodyId) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        self.wake_touching(slot);
        Ok(())
    }

    /// How many bodies the next step moves: awake dynamic bodies and kinematic bodies.
    pub fn awake_body_count(&self) -> usize {
        self.bodies
            .kind()
            .iter()
            .zip(&self.sleep.asleep)
            .filter(|&(&k, &asleep)| {
                matches!(k, SlotKind::Dynamic | SlotKind::Kinematic) && !asleep
            })
            .count()
    }

    /// Wakes every sleeping island, with its timers reset.
    pub(super) fn wake_all(&mut self) {
        self.sleep.wake_all(&mut self.contacts);
    }

    /// Wakes everything that must notice a change to the body in `slot` (see
    /// `Sleep::wake_touching`).
    pub(super) fn wake_touching(&mut self, slot: usize) {
        self.sleep
            .wake_touching(BodySlot::new(slot), &self.bodies, &mut self.contacts);
    }
}
