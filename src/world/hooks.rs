//! The user's hooks into the step: the pre-solve hook (one-way platforms, conveyor belts,
//! per-contact friction and restitution).

use crate::error::Error;
use crate::narrow_phase::pre_solve::PreSolveContact;
use crate::world::World;
use std::sync::Arc;

impl World {
    /// Sets the pre-solve hook, replacing any before it: a function called once per contact
    /// per step (every contact with manifold points: touching, or within the few centimetres
    /// ahead of touching where the solver already stops bodies), after the narrowphase and
    /// before the solver. Returning `false` disables the contact for this step: no impulse, no
    /// touch event, no hit; the hook is asked again next step. It may also change the
    /// contact's [`friction`](PreSolveContact::friction),
    /// [`restitution`](PreSolveContact::restitution) and
    /// [`tangent_speed`](PreSolveContact::tangent_speed) for this step.
    ///
    /// ```
    /// # use batch2d::{PreSolveContact, World, WorldSettings};
    /// let mut world = World::new(WorldSettings::default());
    /// // A one-way platform: with the platform as `a`, the normal points from it to the
    /// // other body, up when that body is above it.
    /// world.set_pre_solve(|c: &mut PreSolveContact| c.normal.y > 0.5)?;
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    ///
    /// The hook runs on the world's worker threads, many calls at once, in no set order; each
    /// call sees only its own contact, and its results are written back by contact index, so
    /// a hook that is a function of its contact gives the same result on every thread count
    /// and backend. It cannot reach the world. Contacts of an island that wakes in this step
    /// (a moving body touched it) are solved as they were when it fell asleep, and hooked again
    /// from the next step.
    ///
    /// A hook that panics is caught: [`World::step`] returns [`Error::HookPanicked`] and the
    /// world is as it was before the step; one that sets a negative or non-finite friction or
    /// restitution, or a non-finite tangent speed, gets [`Error::InvalidParameter`] the same way.
    /// Continuous collision, which sweeps fast bodies against fixed ones (and bullets against
    /// moving ones too), does not ask the hook: a body fast enough to be swept (a bullet, or
    /// one moving more than about its size in a step) can be stopped by a fixed one-way
    /// platform that it should pass.
    ///
    /// Returns `Ok` always; the `Result` is that of the other calls that change the world
    /// while it runs. A world without a hook pays nothing for it.
    pub fn set_pre_solve(
        &mut self,
        hook: impl Fn(&mut PreSolveContact) -> bool + Send + Sync + 'static,
    ) -> Result<(), Error> {
        self.pre_solve.hook = Some(Arc::new(hook));
        Ok(())
    }

    /// Removes the pre-solve hook: contacts are solved with their mixed materials again.
    pub fn clear_pre_solve(&mut self) {
        self.pre_solve.hook = None;
    }
}
