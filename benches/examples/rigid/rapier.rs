//! The scenes' engine calls in rapier2d, in the style of the `textbook` example's `rapier.rs`:
//! default `IntegrationParameters` apart from dt = `DT` and `num_solver_iterations` = 4
//! (rapier's substeps), sleeping off, friction 0.6 (batch2d's and Box2D's default; rapier's
//! is 0.5), contacts off between a joint's bodies (rapier's default has them on, batch2d's
//! and Box2D's off).
//!
//! A scene's joints are multibody joints ([`Joints::Multibody`]: rapier's reduced
//! coordinates, which suit the trees of the rigid table) or impulse joints. Rapier's motors
//! and springs are acceleration-based by default: a spring of `hertz` and damping ratio
//! `zeta` is a position motor of stiffness `w^2` and damping `2 zeta w` (`w = 2 pi hertz`),
//! and a speed motor gets a damping of `MOTOR_DAMPING`.

use crate::engine::{Body, Engine, Id, Joint, Joints, Shape, DT};
use batch2d::Vec2;
use rapier2d::prelude::*;

/// The velocity motor's damping (1/s): an acceleration of `MOTOR_DAMPING` times the speed
/// error. Rapier's motor is soft by this factor (at 1e3 the 150 rad/s wheel turns at 126 rad/s);
/// at 1e5 it holds its speed within 0.2%, near batch2d's and Box2D's rigid motors.
const MOTOR_DAMPING: f32 = 1e5;

pub struct Rapier {
    world: PhysicsWorld,
    joints: Joints,
    bodies: Vec<RigidBodyHandle>,
    /// How many joints the scene made.
    made: usize,
}

fn vector(v: Vec2) -> Vector {
    Vector::new(v.x, v.y)
}

impl Rapier {
    /// A joint frame on body `b` at the world point `anchor`, its axes turned `angle` from the
    /// world's: each frame of a joint is made with the same world orientation, so the joint's
    /// coordinates are zero in the pose the scene made (a multibody joint starts from zero).
    fn frame(&self, b: Id, anchor: Vec2, angle: f32) -> Pose {
        Pose::new(vector(self.local_point(b, anchor)), angle - self.angle(b))
    }
}

impl Engine for Rapier {
    fn new(g: f32, joints: Joints) -> Self {
        let world = PhysicsWorld {
            gravity: Vector::new(0.0, -g),
            integration_parameters: IntegrationParameters {
                dt: DT,
                num_solver_iterations: 4,
                ..IntegrationParameters::default()
            },
            ..PhysicsWorld::default()
        };
        Rapier {
            world,
            joints,
            bodies: Vec::new(),
            made: 0,
        }
    }

    fn add(&mut self, body: Body) -> Id {
        let builder = if body.fixed {
            RigidBodyBuilder::fixed()
        } else {
            RigidBodyBuilder::dynamic().can_sleep(false)
        }
        .translation(vector(body.at))
        .rotation(body.angle)
        .linvel(vector(body.velocity))
        .angvel(body.spin);
        let collider = match body.shape {
            Shape::Box(hw, hh) => ColliderBuilder::cuboid(hw, hh),
            Shape::Circle(r) => ColliderBuilder::ball(r),
        }
        .density(body.density())
        .friction(0.6);
        let (id, _) = self.world.insert(builder, collider);
        self.bodies.push(id);
        self.bodies.len() - 1
    }

    fn join(&mut self, a: Id, b: Id, anchor: Vec2, joint: Joint) -> Id {
        let axis_angle = match joint {
            Joint::SliderSpring { axis, .. } => axis.y.atan2(axis.x),
            _ => 0.0,
        };
        let (frame_a, frame_b) = (
            self.frame(a, anchor, axis_angle),
            self.frame(b, anchor, axis_angle),
        );
        let mut data: GenericJoint = match joint {
            Joint::Revolute { limits, motor } => {
                let mut hinge = RevoluteJointBuilder::new();
                if let Some((lower, upper)) = limits {
                    hinge = hinge.limits([lower, upper]);
                }
                if let Some((speed, torque)) = motor {
                    hinge = hinge
                        .motor_velocity(speed, MOTOR_DAMPING)
                        .motor_max_force(torque);
                }
                hinge.build().into()
            }
            Joint::Weld => FixedJointBuilder::new().build().into(),
            Joint::SliderSpring { hertz, zeta, .. } => {
                let w = 2.0 * std::f32::consts::PI * hertz;
                // The slider runs along its frames' x axis, set below.
                PrismaticJointBuilder::new(Vector::X)
                    .motor_position(0.0, w * w, 2.0 * zeta * w)
                    .build()
                    .into()
            }
        };
        data.set_local_frame1(frame_a)
            .set_local_frame2(frame_b)
            .set_contacts_enabled(false);
        let (a, b) = (self.bodies[a], self.bodies[b]);
        match self.joints {
            Joints::Multibody => {
                self.world
                    .multibody_joints
                    .insert(a, b, data, true)
                    .expect("joints that form a tree");
            }
            Joints::Impulse => {
                self.world.impulse_joints.insert(a, b, data, true);
            }
        }
        self.made += 1;
        self.made - 1
    }

    fn step(&mut self) {
        self.world.step();
    }

    fn position(&self, b: Id) -> Vec2 {
        let p = self.world.bodies[self.bodies[b]].translation();
        Vec2::new(p.x, p.y)
    }

    fn angle(&self, b: Id) -> f32 {
        self.world.bodies[self.bodies[b]].rotation().angle()
    }

    fn velocity(&self, b: Id) -> Vec2 {
        let v = self.world.bodies[self.bodies[b]].linvel();
        Vec2::new(v.x, v.y)
    }

    fn spin(&self, b: Id) -> f32 {
        self.world.bodies[self.bodies[b]].angvel()
    }

    /// Not read from rapier2d: a multibody joint has no force of its own (its bodies move in
    /// the tree's coordinates), and an impulse joint's are left out beside it.
    fn joint_force(&self, _: Id) -> Option<f32> {
        None
    }

    fn count(&self) -> usize {
        self.bodies.len()
    }
}
