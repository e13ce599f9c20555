//! The scenes' engine calls in batch2d, with `WorldSettings::default()` (4 substeps) apart
//! from gravity: the same calls `tests/physics/rigid.rs` makes.

use crate::engine::{Body, Engine, Id, Joint, Joints, Shape, DT};
use batch2d::{BodyDef, BodyId, JointDef, JointId, ShapeDef, Vec2, World, WorldSettings};

pub struct Batch2d {
    world: World,
    bodies: Vec<BodyId>,
    joints: Vec<JointId>,
}

impl Engine for Batch2d {
    fn new(g: f32, _: Joints) -> Self {
        let world = World::new(WorldSettings {
            gravity: Vec2::new(0.0, -g),
            ..WorldSettings::default()
        });
        Batch2d {
            world,
            bodies: Vec::new(),
            joints: Vec::new(),
        }
    }

    fn add(&mut self, body: Body) -> Id {
        let def = if body.fixed {
            BodyDef::fixed()
        } else {
            BodyDef::dynamic()
        };
        let def = def
            .position(body.at)
            .angle(body.angle)
            .linear_velocity(body.velocity)
            .angular_velocity(body.spin);
        let shape = match body.shape {
            Shape::Box(hw, hh) => batch2d::Shape::rect(hw, hh),
            Shape::Circle(r) => batch2d::Shape::circle(r),
        }
        .expect("a valid shape");
        let id = self
            .world
            .add_body(def, ShapeDef::new(shape).density(body.density()))
            .expect("a valid body");
        self.bodies.push(id);
        self.bodies.len() - 1
    }

    fn join(&mut self, a: Id, b: Id, anchor: Vec2, joint: Joint) -> Id {
        let (a, b) = (self.bodies[a], self.bodies[b]);
        let def = match joint {
            Joint::Revolute { limits, motor } => {
                let mut def = JointDef::revolute(a, b, anchor);
                if let Some((lower, upper)) = limits {
                    def = def.limits(lower, upper);
                }
                if let Some((speed, torque)) = motor {
                    def = def.motor(speed, torque);
                }
                def
            }
            Joint::Weld => JointDef::weld(a, b, anchor),
            Joint::SliderSpring { axis, hertz, zeta } => {
                JointDef::prismatic(a, b, anchor, axis).spring(hertz, zeta)
            }
        };
        let id = self.world.add_joint(def).expect("a valid joint");
        self.joints.push(id);
        self.joints.len() - 1
    }

    fn step(&mut self) {
        self.world.step(DT).expect("a step");
    }

    fn position(&self, b: Id) -> Vec2 {
        self.world.position(self.bodies[b]).unwrap()
    }

    fn angle(&self, b: Id) -> f32 {
        self.world.rotation(self.bodies[b]).unwrap().angle()
    }

    fn velocity(&self, b: Id) -> Vec2 {
        self.world.linear_velocity(self.bodies[b]).unwrap()
    }

    fn spin(&self, b: Id) -> f32 {
        self.world.angular_velocity(self.bodies[b]).unwrap()
    }

    fn joint_force(&self, j: Id) -> Option<f32> {
        let force = self.world.joint_reaction_force(self.joints[j]).unwrap();
        Some(force.length())
    }

    fn count(&self) -> usize {
        self.bodies.len()
    }
}
