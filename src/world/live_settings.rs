//! Changing settings while the world runs: the solver, the narrowphase and the sleep pass
//! read the settings afresh every step, all but the three that the world builds state from at
//! creation (see [`World::set_settings`]).

use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::settings::{check_gravity, WorldSettings};
use crate::world::World;

impl World {
    /// Sets the gravity (m/s²) from the next step on, validated as [`World::try_new`] does
    /// (finite). Wakes every sleeping body when it changes, so that all of them feel it.
    /// `Err(InvalidParameter)` with the world unchanged otherwise.
    pub fn set_gravity(&mut self, gravity: Vec2) -> Result<(), Error> {
        check_gravity(gravity)?;
        if gravity != self.settings.gravity {
            self.settings.gravity = gravity;
            self.wake_all();
        }
        Ok(())
    }

    /// Replaces the settings from the next step on. `settings` is validated as
    /// [`World::try_new`] does. Every field may change except `threads` (the worker pool is
    /// built at creation), `friction_mixing` and `restitution_mixing` (a persisting contact
    /// keeps the coefficients mixed when it began): they must equal the current ones. A change
    /// of `substeps` rescales no warm-start impulse, so the step after it starts its contacts a
    /// little off balance, and a change of `linear_slop` may begin or end contact events of
    /// pairs whose separation lies between the two slops. `Err(InvalidParameter)`, naming the
    /// field, with the world unchanged, for a bad value or a fixed field changed.
    ///
    /// When anything changes, every sleeping body wakes, so that all of them feel the new
    /// settings (a sleeping island would otherwise ignore, say, new gravity until touched);
    /// turning `enable_sleep` on starts every body's rest time from 0.
    pub fn set_settings(&mut self, settings: WorldSettings) -> Result<(), Error> {
        settings.validate()?;
        let old = &self.settings;
        let fixed = [
            ("threads", settings.threads == old.threads),
            (
                "friction_mixing",
                settings.friction_mixing == old.friction_mixing,
            ),
            (
                "restitution_mixing",
                settings.restitution_mixing == old.restitution_mixing,
            ),
        ];
        if let Some((name, _)) = fixed.iter().find(|(_, same)| !same) {
            return Err(Error::InvalidParameter(format!(
                "{name} is fixed when the world is created and cannot change while it runs"
            )));
        }
        if settings == *old {
            return Ok(());
        }
        let sleep_turned_on = settings.enable_sleep && !old.enable_sleep;
        self.settings = settings;
        self.wake_all();
        if sleep_turned_on {
            self.sleep.reset_rest_times();
        }
        Ok(())
    }
}
