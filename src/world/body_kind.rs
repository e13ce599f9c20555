//! Changing what a body is while the world runs: its kind.

use crate::body::BodyId;
use crate::body_def::BodyKind;
use crate::error::Error;
use crate::index::BodySlot;
use crate::world::World;

impl World {
    /// Makes the body fixed, kinematic or dynamic, from any kind: a crate that becomes part of
    /// the level once placed, a platform that starts to fall, a ragdoll that goes limp.
    ///
    /// The body keeps its place, shapes, joints and contacts; the next step pairs it as its new
    /// kind (two bodies neither of which is dynamic do not collide, so such contacts end
    /// there, with their end events). What it becomes:
    /// - **fixed**: it stops, and joins the static bodies' grids;
    /// - **kinematic**: it keeps its velocity and ignores gravity and damping;
    /// - **dynamic**: its mass comes from its shapes' densities, and the gravity scale,
    ///   damping and fixed rotation of its [`BodyDef`](crate::BodyDef) apply again; it keeps
    ///   its velocity (a body that was fixed starts at rest).
    ///
    /// Wakes the body and what it touches. [`World::mass`] and
    /// [`World::rotational_inertia`] follow.
    ///
    /// `Err(InvalidBody)` for a stale or foreign handle; for [`BodyKind::Dynamic`],
    /// `Err(InvalidShape)` for a body with a segment and `Err(InvalidParameter)` for one whose
    /// shapes have no positive finite mass (density 0: see [`World::set_density`]). The world
    /// is unchanged on `Err`, and a body already of `kind` is left alone.
    ///
    /// ```
    /// use batch2d::{BodyDef, BodyKind, Shape, ShapeDef, Vec2, World, WorldSettings};
    ///
    /// let mut world = World::new(WorldSettings::default());
    /// let beam = world.add_body(
    ///     BodyDef::fixed().position(Vec2::new(0.0, 5.0)),
    ///     ShapeDef::new(Shape::rect(2.0, 0.1)?),
    /// )?;
    /// world.set_body_kind(beam, BodyKind::Dynamic)?; // the beam gives way
    /// world.step(1.0 / 60.0)?;
    /// assert!(world.linear_velocity(beam)?.y < 0.0);
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn set_body_kind(&mut self, id: BodyId, kind: BodyKind) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        let was = self.bodies.body_kind(slot);
        if was == kind {
            return Ok(());
        }
        self.bodies.check_mass(slot, kind, None)?;
        // Awake first: a sleeping island's contacts are set aside, and the islands are
        // changed only for awake bodies.
        self.wake_touching(slot);
        self.bodies.set_mass(slot, kind, None)?;
        // A disabled body is in no island; enabling it puts it in one if it is dynamic then.
        if !self.bodies.is_disabled(slot) {
            let dynamic = (was == BodyKind::Dynamic, kind == BodyKind::Dynamic);
            self.sleep
                .kind_changed(BodySlot::new(slot), dynamic.0, dynamic.1);
        }
        self.invalidate_queries();
        Ok(())
    }
}
