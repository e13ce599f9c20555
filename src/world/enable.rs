//! Taking a body out of the simulation without removing it, and putting it back.

use crate::body::BodyId;
use crate::error::Error;
use crate::index::BodySlot;
use crate::world::World;

impl World {
    /// Disables (`false`) or enables (`true`) the body. A disabled body is kept, with its
    /// handle, pose, velocity, shapes and joints, but is out of the step and the queries: it
    /// does not move (no gravity, no forces), nothing collides with it or sees it (contacts,
    /// sensors, continuous collision, ray casts and overlap tests), and its joints do not act,
    /// as in Box2D. Its contacts end at the next step, with end events. Enabled again, it
    /// takes part from the next step as it was, awake. Setting and reading its state
    /// ([`World::set_transform`], [`World::set_linear_velocity`], ...) works while it is
    /// disabled. Disabling wakes what it touched and what it is joined to.
    ///
    /// `Err(InvalidBody)` for a stale or foreign handle. A body already in the state asked is
    /// left alone.
    ///
    /// ```
    /// use batch2d::{BodyDef, QueryFilter, Shape, ShapeDef, Vec2, World, WorldSettings};
    ///
    /// let mut world = World::new(WorldSettings::default());
    /// let ghost = world.add_body(BodyDef::dynamic(), ShapeDef::new(Shape::circle(0.5)?))?;
    /// world.set_enabled(ghost, false)?;
    /// world.step(1.0 / 60.0)?;
    /// assert_eq!(world.linear_velocity(ghost)?, Vec2::ZERO); // no gravity
    /// assert!(world.overlap_point(Vec2::ZERO, QueryFilter::new())?.is_empty());
    /// world.set_enabled(ghost, true)?;
    /// assert!(world.is_enabled(ghost)?);
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn set_enabled(&mut self, id: BodyId, enabled: bool) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        if self.bodies.is_disabled(slot) != enabled {
            return Ok(());
        }
        let dynamic = self.bodies.is_dynamic(slot);
        if enabled {
            self.bodies.set_disabled(slot, false);
            self.sleep.kind_changed(BodySlot::new(slot), false, dynamic);
        } else {
            // Awake first, so that no sleeping island keeps a contact with it set aside; its
            // island, which it joined by contacts and joints, may be in parts without it.
            self.wake_touching(slot);
            self.wake_joined(slot);
            self.removed.mark(BodySlot::new(slot), id);
            self.sensors.body_removed(&self.bodies, slot as u32);
            self.sleep.kind_changed(BodySlot::new(slot), dynamic, false);
            self.bodies.set_disabled(slot, true);
        }
        self.sleep.enabled_changed();
        // The static bodies' grids hold enabled static bodies only.
        self.bodies.static_changed(slot);
        self.invalidate_queries();
        Ok(())
    }

    /// Whether the body takes part in the simulation (see [`World::set_enabled`]); bodies
    /// start enabled. `Err(InvalidBody)` for a stale or foreign handle.
    pub fn is_enabled(&self, id: BodyId) -> Result<bool, Error> {
        Ok(!self.bodies.is_disabled(self.bodies.slot(id)?))
    }

    /// Wakes the bodies joined to the body in `slot` by a joint, with what they touch.
    fn wake_joined(&mut self, slot: usize) {
        let slot = BodySlot::new(slot);
        let joints = self.joints.slots.iter().filter_map(|s| s.joint.as_ref());
        let others: Vec<BodySlot> = joints
            .filter_map(|j| match (j.a, j.b) {
                (a, b) if a == slot && b != BodySlot::NONE => Some(b),
                (a, b) if b == slot && a != BodySlot::NONE => Some(a),
                _ => None,
            })
            .collect();
        for other in others {
            self.wake_touching(other.index());
        }
    }
}
