//! Which bodies collide: each shape's layers, mask and group, changed at run time, and the
//! user's pair filter.
//!
//! The broadphase pairs bodies by their layers and masks. Where some shape is in a group, or
//! the user set a pair filter, the pairs it finds then pass [`World::filter_pairs`] before
//! the narrowphase sees them: a world with neither pays only the test of that.

use crate::body::BodyId;
use crate::error::{panic_message, Error};
use crate::world::World;
use rayon::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The user's pair filter, shared so that a world may be cloned with it.
pub(super) type PairFilter = Arc<dyn Fn(BodyId, BodyId) -> bool + Send + Sync>;

/// Pairs per parallel task of the pair filter: below this, handing pairs to the workers costs
/// more than the filter.
const FILTER_CHUNK: usize = 256;

impl World {
    /// Gives every shape of the body these layers, mask and group (see
    /// [`ShapeDef::layers`](crate::ShapeDef::layers), [`ShapeDef::mask`](crate::ShapeDef::mask)
    /// and [`ShapeDef::group`](method@crate::ShapeDef::group)), from the next step: contacts
    /// the new filter does not let through end then, with their end events, and pairs it
    /// lets through begin. Queries see the new layers at once. Wakes the body and what it
    /// touches.
    ///
    /// `Err(InvalidBody)` for a stale or foreign handle, `Err(InvalidParameter)` for a group
    /// other than 0 on a sensor; the world is unchanged on `Err`.
    pub fn set_filter(
        &mut self,
        id: BodyId,
        layers: u32,
        mask: u32,
        group: i32,
    ) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        if self.bodies.sensor()[slot] && group != 0 {
            return Err(Error::InvalidParameter(format!(
                "a sensor takes no group (it sees bodies by layers and masks), got group {group}"
            )));
        }
        self.wake_touching(slot);
        self.bodies.set_filter(slot, layers, mask, group);
        self.invalidate_queries();
        Ok(())
    }

    /// Sets the pair filter: from the next step, two bodies whose boxes overlap and whose
    /// shapes' filters let them collide collide only if `filter(a, b)` returns true (`a` in
    /// the lower slot); a pair it refuses has no contact, and a contact it refuses ends.
    /// Sensors see only the pairs it lets through. It replaces any filter set before.
    ///
    /// The filter is called every step for every such pair, from the worker threads, in no
    /// set order: it must answer from its arguments (and what it owns) alone, which keeps the
    /// result the same on every thread count. It cannot reach the world (which the step
    /// borrows). A filter that panics makes [`World::step`] return
    /// `Err(InvalidParameter)` with the world as it was before that step. Always `Ok`.
    ///
    /// ```
    /// use batch2d::{BodyDef, Shape, ShapeDef, Vec2, World, WorldSettings};
    ///
    /// let mut world = World::new(WorldSettings::default());
    /// let floor = world.add_body(BodyDef::fixed(), ShapeDef::new(Shape::rect(5.0, 0.5)?))?;
    /// let ghost = world.add_body(
    ///     BodyDef::dynamic().position(Vec2::new(0.0, 1.0)),
    ///     ShapeDef::new(Shape::circle(0.5)?),
    /// )?;
    /// // The ghost passes through the floor.
    /// world.set_pair_filter(move |a, b| !(a == floor && b == ghost))?;
    /// for _ in 0..60 {
    ///     world.step(1.0 / 60.0)?;
    /// }
    /// assert!(world.position(ghost)?.y < -1.0);
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn set_pair_filter(
        &mut self,
        filter: impl Fn(BodyId, BodyId) -> bool + Send + Sync + 'static,
    ) -> Result<(), Error> {
        self.pair_filter = Some(Arc::new(filter));
        Ok(())
    }

    /// Removes the pair filter of [`World::set_pair_filter`]: from the next step, the
    /// shapes' filters alone decide which bodies collide.
    pub fn clear_pair_filter(&mut self) {
        self.pair_filter = None;
    }

    /// Broadphase, after the resting pairs: drops the pairs whose shapes' groups, or the
    /// user's pair filter, keep them apart, keeping the rest in order. `Err` if the filter
    /// panicked.
    pub(super) fn filter_pairs(&mut self) -> Result<(), Error> {
        let grouped = self.bodies.any_grouped();
        if !grouped && self.pair_filter.is_none() {
            return Ok(());
        }
        let (bodies, filter) = (&self.bodies, self.pair_filter.as_deref());
        let keep = |&(a, b): &(u32, u32)| {
            let (a, b) = (a as usize, b as usize);
            (!grouped || bodies.bodies_collide(a, b))
                && filter.is_none_or(|f| f(bodies.id(a), bodies.id(b)))
        };
        if filter.is_none() {
            self.pairs.retain(keep);
            return Ok(());
        }
        let pairs = &self.pairs;
        let kept = catch_unwind(AssertUnwindSafe(|| {
            let chunks = pairs.par_chunks(FILTER_CHUNK);
            let kept = chunks.map(|chunk| chunk.iter().copied().filter(|p| keep(p)));
            kept.flatten_iter().collect::<Vec<(u32, u32)>>()
        }));
        match kept {
            Ok(kept) => {
                self.pairs = kept;
                Ok(())
            }
            Err(panic) => Err(Error::HookPanicked(format!(
                "the pair filter panicked: {}",
                panic_message(&*panic)
            ))),
        }
    }
}
