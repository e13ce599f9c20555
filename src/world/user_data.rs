//! The user's number on each body: set by
//! [`BodyDef::user_data`](method@crate::BodyDef::user_data), read and replaced here. The engine
//! never reads it, so it changes no result.

use crate::body::BodyId;
use crate::error::Error;
use crate::world::World;

impl World {
    /// The user's number of the body (`BodyDef::user_data`, default 0, or the last
    /// [`World::set_user_data`]). `Err(InvalidBody)` for a stale or foreign handle.
    pub fn user_data(&self, id: BodyId) -> Result<u64, Error> {
        Ok(self.bodies.user_data()[self.bodies.slot(id)?])
    }

    /// Replaces the user's number of the body; any value is accepted, and nothing else changes
    /// (a sleeping body stays asleep). `Err(InvalidBody)` for a stale or foreign handle.
    pub fn set_user_data(&mut self, id: BodyId, data: u64) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        self.bodies.set_user_data(slot, data);
        Ok(())
    }
}
