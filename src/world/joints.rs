//! The world's joint calls (see `joints` for the joints themselves).

use crate::body::BodyId;
use crate::error::{check_finite, Error};
use crate::geometry::math::Vec2;
use crate::index::BodySlot;
use crate::joints::joint::{Joint, JointDef, JointId, JointKind};
use crate::limits::check_vector;
use crate::world::World;

impl World {
    /// Adds a joint. `Err(InvalidBody)` for a stale or foreign body handle;
    /// `Err(InvalidParameter)` for the same body twice, non-finite anchors, crossed limits or
    /// length range, a negative spring frequency, damping ratio, motor torque or force, a zero
    /// or non-finite axis, coincident distance anchors, or an option the kind does not have.
    /// Wakes the joint's bodies. The world is unchanged on `Err`.
    pub fn add_joint(&mut self, def: JointDef) -> Result<JointId, Error> {
        let (body_a, body_b) = def.bodies();
        let b = BodySlot::new(self.bodies.slot(body_b)?);
        let a = match body_a {
            Some(id) => BodySlot::new(self.bodies.slot(id)?),
            None => BodySlot::NONE,
        };
        let joint = Joint::new(def, a, b, &self.bodies)?;
        self.wake_sleeping([a, b]);
        Ok(self.joints.insert(joint))
    }

    /// Removes a joint and wakes its bodies. `Err(InvalidJoint)` for a stale or foreign
    /// handle (a joint is also removed with either of its bodies).
    pub fn remove_joint(&mut self, id: JointId) -> Result<(), Error> {
        let joint = self.joints.take(id)?;
        self.wake_sleeping([joint.a, joint.b]);
        for slot in [joint.a, joint.b] {
            if slot != BodySlot::NONE {
                self.sleep.joint_removed(slot, &self.bodies);
            }
        }
        Ok(())
    }

    /// Moves a mouse joint's target (world) and wakes its body. `Err(InvalidJoint)` for a
    /// stale or foreign handle, `Err(InvalidParameter)` for another kind of joint or a
    /// non-finite target.
    pub fn set_mouse_target(&mut self, id: JointId, target: Vec2) -> Result<(), Error> {
        let joint = self.joint_of_kind(id, JointKind::Mouse, "set_mouse_target")?;
        check_vector("mouse target", target)?;
        let slots = [joint.a, joint.b];
        self.joints.get_mut(id)?.local_a = target;
        self.wake_sleeping(slots);
        Ok(())
    }

    /// Sets a motor joint's target: the place of B's centre in A's frame, relative to A's
    /// centre of mass (m), and B's angle relative to A (radians); wakes its bodies.
    /// `Err(InvalidJoint)` for a stale or foreign handle, `Err(InvalidParameter)` for another
    /// kind of joint or non-finite values.
    pub fn set_motor_joint_target(
        &mut self,
        id: JointId,
        linear_offset: Vec2,
        angular_offset: f32,
    ) -> Result<(), Error> {
        let joint = self.joint_of_kind(id, JointKind::Motor, "set_motor_joint_target")?;
        check_vector("linear offset", linear_offset)?;
        check_finite("angular offset", angular_offset)?;
        let (a, b) = (joint.a, joint.b);
        let joint = self.joints.get_mut(id)?;
        joint.local_a = linear_offset;
        joint.reference_angle = angular_offset;
        self.wake_sleeping([a, b]);
        Ok(())
    }

    /// The force (N) the joint applied to its body B in the last substep of the last step (A
    /// got the opposite). Zero before the first step. `Err(InvalidJoint)`
    /// for a stale or foreign handle.
    pub fn joint_reaction_force(&self, id: JointId) -> Result<Vec2, Error> {
        let j = self.joints.get(id)?;
        Ok(j.reaction(&self.bodies, self.joints.inv_h).0)
    }

    /// The torque (N m) the joint applied to its body B in the last substep of the last step
    /// (A got the opposite), apart from the moment of [`World::joint_reaction_force`]: that of limits,
    /// motors, springs and angular constraints. Zero before the first step. `Err(InvalidJoint)` for a
    /// stale or foreign handle.
    pub fn joint_reaction_torque(&self, id: JointId) -> Result<f32, Error> {
        let j = self.joints.get(id)?;
        Ok(j.reaction(&self.bodies, self.joints.inv_h).1)
    }

    /// The kind and bodies (A, B) of a joint; A is `None` for a mouse joint.
    /// `Err(InvalidJoint)` for a stale or foreign handle.
    pub fn joint_bodies(&self, id: JointId) -> Result<(JointKind, Option<BodyId>, BodyId), Error> {
        let j = self.joints.get(id)?;
        let a = j.body_a().map(|a| self.bodies.id(a.index()));
        Ok((j.kind, a, self.bodies.id(j.b.index())))
    }

    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// Every joint's handle in slot order, the order the solver takes them: creation order,
    /// except that a joint made after a removal takes the slot the removed one left.
    pub fn joints(&self) -> impl Iterator<Item = JointId> + '_ {
        self.joints.ids()
    }

    /// A joint's anchors (world) at the bodies' present poses: the point fixed in body A and
    /// the one fixed in body B, which the joint holds together (revolute, weld), at a distance
    /// (distance) or on an axis (prismatic, wheel). A mouse joint's A anchor is its target; a
    /// motor joint's anchors are where it drives B's centre to (fixed in A) and B's centre.
    /// Their distance is how far a revolute or weld joint has come apart. `Err(InvalidJoint)`
    /// for a stale or foreign handle.
    pub fn joint_anchors(&self, id: JointId) -> Result<(Vec2, Vec2), Error> {
        Ok(self.joints.get(id)?.anchors(&self.bodies))
    }

    /// The joint `id`, which `call` needs to be of `kind`. `Err(InvalidJoint)` for a stale or
    /// foreign handle, `Err(InvalidParameter)` for another kind of joint.
    fn joint_of_kind(&self, id: JointId, kind: JointKind, call: &str) -> Result<&Joint, Error> {
        let joint = self.joints.get(id)?;
        if joint.kind != kind {
            let needed = format!("{kind:?}").to_lowercase();
            return Err(Error::InvalidParameter(format!(
                "{call} needs a {needed} joint, got a {:?} joint",
                joint.kind
            )));
        }
        Ok(joint)
    }

    /// Wakes the islands of the sleeping bodies among a joint's `slots` (`NONE`: no body).
    pub(super) fn wake_sleeping(&mut self, slots: [BodySlot; 2]) {
        for slot in slots {
            if slot != BodySlot::NONE && self.sleep.asleep[slot.index()] {
                self.wake_touching(slot.index());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::world::tests::snapshot;
    use crate::{BodyDef, JointDef, Shape, ShapeDef, Vec2, World, WorldSettings};

    /// Small pyramids on the ground (tiles), every other one with its top box hung from a pin
    /// by a distance joint.
    fn scene(threads: usize, tiles: bool) -> World {
        let mut world = World::new(WorldSettings {
            threads,
            ..WorldSettings::default()
        });
        world.graph.no_tiles = !tiles;
        let ground = ShapeDef::new(Shape::rect(100.0, 1.0).unwrap());
        world
            .add_body(BodyDef::fixed().position(Vec2::new(0.0, -1.0)), ground)
            .unwrap();
        for k in 0..8 {
            let x0 = -40.0 + 8.0 * k as f32;
            let mut top = None;
            for row in 0..4 {
                for col in row..4 {
                    let p = Vec2::new(x0 + col as f32 - 0.5 * row as f32, 0.5 + row as f32);
                    let body = BodyDef::dynamic().position(p);
                    let id = world
                        .add_body(body, ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()))
                        .unwrap();
                    top = Some((id, p));
                }
            }
            if k % 2 == 1 {
                let (id, p) = top.unwrap();
                let hook = Vec2::new(p.x + 1.0, p.y + 2.0);
                let pin = BodyDef::fixed().position(hook);
                let pin = world
                    .add_body(pin, ShapeDef::new(Shape::circle(0.05).unwrap()))
                    .unwrap();
                world
                    .add_joint(JointDef::distance(pin, id, hook, p))
                    .unwrap();
            }
        }
        world
    }

    /// A tile runs no joint stage: the pyramids with a joint stay with the world's stages,
    /// the others fill tiles, and the results are those of a world without tiles.
    #[test]
    fn jointed_bodies_stay_out_of_tiles() {
        let mut plain = scene(1, false);
        let mut tiled = [1, 2].map(|threads| scene(threads, true));
        for step in 0..60 {
            plain.step(1.0 / 60.0).unwrap();
            for world in &mut tiled {
                world.step(1.0 / 60.0).unwrap();
                assert_eq!(snapshot(world), snapshot(&plain), "step {step}");
            }
        }
        let world = &tiled[0];
        let graph = &world.graph;
        assert!(
            !graph.tiles.is_empty(),
            "the free pyramids should fill tiles"
        );
        // Each hung pyramid's boxes touch: none of the 10 is in a tile.
        let tiled_bodies = graph.tile_bodies.len();
        assert_eq!(
            tiled_bodies,
            4 * 10,
            "the 4 free pyramids' boxes, no others"
        );
        for &slot in &graph.tile_bodies {
            assert!(
                !world.joints.jointed[slot.index()],
                "jointed body {slot:?} in a tile"
            );
        }
    }
}
