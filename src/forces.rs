//! Forces, torques and impulses applied by the user.
//!
//! A force or torque accumulates until the next step, acts through that step like gravity
//! (its acceleration is added to the velocity at every substep, before damping and the speed
//! caps), and is then cleared: apply it before every step it should act in. An impulse changes
//! the velocity at once.
//!
//! Only dynamic bodies respond: on static and kinematic bodies (infinite mass) every call here
//! does nothing and returns `Ok`, as gravity and contacts do nothing to them. A torque on a
//! fixed-rotation body does nothing either. Every call that changes a sleeping body wakes its
//! island. Bad handles and non-finite values give `Err`, with the world unchanged.
//!
//! Forces are summed in the order they are applied and handed to the solver per body, so they
//! keep results bit-identical across thread counts and backends.

use crate::codec::{codec_struct, invalid};
use crate::error::Error;
use crate::geometry::math::Vec2;

/// The forces and torques applied since the last step, per body slot.
#[derive(Clone, Default)]
pub(crate) struct Forces {
    /// Per slot: the summed force (N), zero unless the slot is in `pending`.
    force: Vec<Vec2>,
    /// Per slot: the summed torque (N m), zero unless the slot is in `pending`.
    torque: Vec<f32>,
    /// Per slot: whether the slot is in `pending`.
    is_pending: Vec<bool>,
    /// Slots with a force or torque, in the order of their first one since the last step.
    pending: Vec<u32>,
}

impl Forces {
    /// Whether no body has a force or torque for the next step.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The slots with a force or torque for the next step.
    pub fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.pending.iter().map(|&s| s as usize)
    }

    /// The force and torque of the body in `slot` for the next step.
    pub fn get(&self, slot: usize) -> (Vec2, f32) {
        match self.force.get(slot) {
            Some(&f) => (f, self.torque[slot]),
            None => (Vec2::ZERO, 0.0),
        }
    }

    /// Adds `force` and `torque` to the body in `slot`. `Err`, with nothing changed, when a
    /// sum overflows f32.
    pub fn add(&mut self, slot: usize, force: Vec2, torque: f32) -> Result<(), Error> {
        let (f, t) = self.get(slot);
        let (f, t) = (f + force, t + torque);
        if !(f.is_finite() && t.is_finite()) {
            return Err(Error::InvalidParameter(format!(
                "the forces on one body add up beyond f32's range: force {f:?}, torque {t}"
            )));
        }
        if self.force.len() <= slot {
            self.force.resize(slot + 1, Vec2::ZERO);
            self.torque.resize(slot + 1, 0.0);
            self.is_pending.resize(slot + 1, false);
        }
        if !self.is_pending[slot] {
            self.is_pending[slot] = true;
            self.pending.push(slot as u32);
        }
        (self.force[slot], self.torque[slot]) = (f, t);
        Ok(())
    }

    /// Drops the force and torque of the body in `slot` (it is being removed).
    pub fn remove_body(&mut self, slot: usize) {
        if self.is_pending.get(slot) == Some(&true) {
            self.pending.retain(|&s| s as usize != slot);
            self.is_pending[slot] = false;
            (self.force[slot], self.torque[slot]) = (Vec2::ZERO, 0.0);
        }
    }

    /// Drops every force and torque: they acted in the step just run.
    pub fn clear(&mut self) {
        for &s in &self.pending {
            let s = s as usize;
            (self.force[s], self.torque[s]) = (Vec2::ZERO, 0.0);
            self.is_pending[s] = false;
        }
        self.pending.clear();
    }
}

codec_struct!(Forces {
    force,
    torque,
    is_pending,
    pending
});

impl Forces {
    /// `Err` unless there is a finite force and torque per slot of a store of `slots`, and
    /// the pending list names each pending slot once.
    pub fn check(&self, slots: usize) -> Result<(), Error> {
        let n = self.force.len();
        let ok = n <= slots
            && self.torque.len() == n
            && self.is_pending.len() == n
            && self.force.iter().all(|f| f.is_finite())
            && self.torque.iter().all(|t| t.is_finite())
            && self
                .pending
                .iter()
                .all(|&s| self.is_pending.get(s as usize) == Some(&true))
            && self.is_pending.iter().filter(|&&p| p).count() == self.pending.len();
        ok.then_some(())
            .ok_or_else(|| invalid("pending forces out of range"))
    }
}
