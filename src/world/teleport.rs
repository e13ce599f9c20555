//! Teleporting bodies: placing a body somewhere without moving it there.
//!
//! A teleport changes only where the body is. Its velocity stays, and so do its contacts: the
//! next step's broadphase and narrowphase see the new place and recompute (or drop) them, and
//! bodies left overlapping are pushed apart no faster than
//! [`WorldSettings::contact_push_max_velocity`](crate::WorldSettings::contact_push_max_velocity).

use crate::body::BodyId;
use crate::error::{check_finite, Error};
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::limits::{check_placement, check_vector};
use crate::world::World;

impl World {
    /// Moves the body so that its centre of mass is at `position` (the point
    /// [`World::position`] reports), keeping its rotation and velocity.
    ///
    /// `Err(InvalidBody)` for a stale or foreign handle, `Err(InvalidParameter)` for a
    /// non-finite position or one that puts the shape beyond the range of f32; the world is
    /// unchanged on `Err`. Works on every body kind: a static
    /// body moved this way is simply somewhere else from the next step on.
    pub fn set_position(&mut self, id: BodyId, position: Vec2) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_vector("position", position)?;
        let q = self.bodies.rotation()[slot];
        let origin = position - q.rotate(self.bodies.local_center()[slot]);
        for shape in self.bodies.shapes(slot) {
            check_placement(shape, Transform::new(origin, q), position)?;
        }
        self.bodies.set_pose(slot, position, q);
        self.refresh_aabb(slot);
        Ok(())
    }

    /// Places the body's origin (the frame its shape is defined in, what [`World::transform`]
    /// reports) at `origin`, turned by `angle` radians, keeping its velocity.
    ///
    /// `Err(InvalidBody)` for a stale or foreign handle, `Err(InvalidParameter)` for a
    /// non-finite origin or angle, or a placement that puts the shape beyond the range of f32;
    /// the world is unchanged on `Err`.
    pub fn set_transform(&mut self, id: BodyId, origin: Vec2, angle: f32) -> Result<(), Error> {
        let slot = self.bodies.slot(id)?;
        check_vector("origin", origin)?;
        check_finite("angle", angle)?;
        let q = Rot::from_angle(angle);
        let center = Transform::new(origin, q).apply(self.bodies.local_center()[slot]);
        // A finite origin plus a body-frame offset can still overflow at the edge of f32.
        for shape in self.bodies.shapes(slot) {
            check_placement(shape, Transform::new(origin, q), center)?;
        }
        self.bodies.set_pose(slot, center, q);
        self.refresh_aabb(slot);
        Ok(())
    }

    /// The tight box at the body's new place, so that anything reading bounds before the next
    /// step (which recomputes them with its margins) sees where the body is. A moved body
    /// wakes with whatever it touched, and queries rebuild their grid.
    fn refresh_aabb(&mut self, slot: usize) {
        let xf = self.bodies.transform(slot);
        // The shapes' boxes of a compound too, which the next step's pairs are read from
        // should the body sleep through it.
        self.bodies.refresh_aabb(slot, xf, 0.0);
        self.bodies.static_changed(slot);
        self.wake_touching(slot);
        self.invalidate_queries();
    }
}
