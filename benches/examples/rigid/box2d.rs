//! The scenes' engine calls in Box2D v3 (the C library, through `boxdd-sys`), in the style of
//! the `textbook` example's `box2d.rs`: `b2DefaultWorldDef` with the scene's gravity, 4
//! substeps, one worker and sleeping off; every body, shape and joint from Box2D's default
//! definitions (friction 0.6, rigid welds, joint softness as Box2D ships it).

use crate::engine::{Body, Engine, Id, Joint, Joints, Shape, DT};
use batch2d::Vec2;
use boxdd_sys::ffi::*;

/// Substeps per step (Box2D's recommended count and batch2d's default).
const SUBSTEPS: i32 = 4;

pub struct Box2d {
    world: b2WorldId,
    bodies: Vec<b2BodyId>,
    joints: Vec<b2JointId>,
}

fn vec(v: Vec2) -> b2Vec2 {
    b2Vec2 { x: v.x, y: v.y }
}

fn rot(angle: f32) -> b2Rot {
    b2Rot {
        c: angle.cos(),
        s: angle.sin(),
    }
}

impl Box2d {
    /// A joint frame on body `b` at the world point `anchor`, its axes turned `angle` from the
    /// world's: each frame of a joint is made with the same world orientation, so the joint
    /// holds the bodies' relative pose at the time it is made.
    fn frame(&self, b: Id, anchor: Vec2, angle: f32) -> b2Transform {
        b2Transform {
            p: vec(self.local_point(b, anchor)),
            q: rot(angle - self.angle(b)),
        }
    }

    fn base(&self, a: Id, b: Id, anchor: Vec2, angle: f32, mut base: b2JointDef) -> b2JointDef {
        base.bodyIdA = self.bodies[a];
        base.bodyIdB = self.bodies[b];
        base.localFrameA = self.frame(a, anchor, angle);
        base.localFrameB = self.frame(b, anchor, angle);
        base
    }
}

impl Engine for Box2d {
    fn new(g: f32, _: Joints) -> Self {
        // SAFETY: plain C calls on a definition initialised by Box2D itself.
        let world = unsafe {
            let mut def = b2DefaultWorldDef();
            def.gravity = b2Vec2 { x: 0.0, y: -g };
            def.enableSleep = false;
            def.workerCount = 1;
            b2CreateWorld(&def)
        };
        Box2d {
            world,
            bodies: Vec::new(),
            joints: Vec::new(),
        }
    }

    fn add(&mut self, body: Body) -> Id {
        // SAFETY: the world is alive; the definitions come from Box2D's defaults.
        let id = unsafe {
            let mut def = b2DefaultBodyDef();
            def.type_ = if body.fixed {
                b2BodyType_b2_staticBody
            } else {
                b2BodyType_b2_dynamicBody
            };
            def.position = vec(body.at);
            def.rotation = rot(body.angle);
            def.linearVelocity = vec(body.velocity);
            def.angularVelocity = body.spin;
            def.enableSleep = false;
            let id = b2CreateBody(self.world, &def);
            let mut s = b2DefaultShapeDef();
            s.density = body.density();
            match body.shape {
                Shape::Box(hw, hh) => {
                    let polygon = b2MakeBox(hw, hh);
                    b2CreatePolygonShape(id, &s, &polygon);
                }
                Shape::Circle(r) => {
                    let circle = b2Circle {
                        center: b2Vec2 { x: 0.0, y: 0.0 },
                        radius: r,
                    };
                    b2CreateCircleShape(id, &s, &circle);
                }
            }
            id
        };
        self.bodies.push(id);
        self.bodies.len() - 1
    }

    fn join(&mut self, a: Id, b: Id, anchor: Vec2, joint: Joint) -> Id {
        // SAFETY: the world and both bodies are alive; the definitions come from Box2D's
        // defaults.
        let id = unsafe {
            match joint {
                Joint::Revolute { limits, motor } => {
                    let mut def = b2DefaultRevoluteJointDef();
                    def.base = self.base(a, b, anchor, 0.0, def.base);
                    if let Some((lower, upper)) = limits {
                        def.enableLimit = true;
                        def.lowerAngle = lower;
                        def.upperAngle = upper;
                    }
                    if let Some((speed, torque)) = motor {
                        def.enableMotor = true;
                        def.motorSpeed = speed;
                        def.maxMotorTorque = torque;
                    }
                    b2CreateRevoluteJoint(self.world, &def)
                }
                Joint::Weld => {
                    let mut def = b2DefaultWeldJointDef();
                    def.base = self.base(a, b, anchor, 0.0, def.base);
                    b2CreateWeldJoint(self.world, &def)
                }
                Joint::SliderSpring { axis, hertz, zeta } => {
                    let mut def = b2DefaultPrismaticJointDef();
                    // The slider runs along its frames' x axis.
                    let angle = axis.y.atan2(axis.x);
                    def.base = self.base(a, b, anchor, angle, def.base);
                    def.enableSpring = true;
                    def.hertz = hertz;
                    def.dampingRatio = zeta;
                    b2CreatePrismaticJoint(self.world, &def)
                }
            }
        };
        self.joints.push(id);
        self.joints.len() - 1
    }

    fn step(&mut self) {
        // SAFETY: the world is alive.
        unsafe { b2World_Step(self.world, DT, SUBSTEPS) };
    }

    fn position(&self, b: Id) -> Vec2 {
        // SAFETY: bodies live as long as their world, and none is destroyed.
        let p = unsafe { b2Body_GetPosition(self.bodies[b]) };
        Vec2::new(p.x, p.y)
    }

    fn angle(&self, b: Id) -> f32 {
        // SAFETY: see `position`.
        let q = unsafe { b2Body_GetRotation(self.bodies[b]) };
        q.s.atan2(q.c)
    }

    fn velocity(&self, b: Id) -> Vec2 {
        // SAFETY: see `position`.
        let v = unsafe { b2Body_GetLinearVelocity(self.bodies[b]) };
        Vec2::new(v.x, v.y)
    }

    fn spin(&self, b: Id) -> f32 {
        // SAFETY: see `position`.
        unsafe { b2Body_GetAngularVelocity(self.bodies[b]) }
    }

    fn joint_force(&self, j: Id) -> Option<f32> {
        // SAFETY: joints live as long as their world, and none is destroyed.
        let f = unsafe { b2Joint_GetConstraintForce(self.joints[j]) };
        Some(Vec2::new(f.x, f.y).length())
    }

    fn count(&self) -> usize {
        self.bodies.len()
    }
}

impl Drop for Box2d {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed only here.
        unsafe { b2DestroyWorld(self.world) };
    }
}
