//! Debug draw: the world walks its bodies, joints and contacts and hands each one, in world
//! coordinates, to a renderer of your choice through the [`DebugDraw`] callbacks.
//!
//! The core crate draws nothing itself and depends on no graphics library: a renderer (a PNG
//! writer, a window, a test that records calls) implements the trait. Everything is visited in
//! slot order (bodies, joints) and in contact order (contacts, sorted by body slots), so the
//! same world always produces the same sequence of calls.

use crate::body::BodyId;
use crate::body_def::BodyKind;
use crate::geometry::math::{Aabb, Vec2};
use crate::geometry::shape::{Shape, MAX_POLYGON_VERTICES};
use crate::joints::joint::{JointId, JointKind};
use crate::world::World;

/// Which layers [`World::debug_draw`] visits. Start from `DebugDrawOptions::default()`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugDrawOptions {
    /// Call [`DebugDraw::draw_circle`] and [`DebugDraw::draw_polygon`] for every body.
    /// Default true.
    pub shapes: bool,
    /// Call [`DebugDraw::draw_aabb`] with every body's broadphase box. Default false.
    pub aabbs: bool,
    /// Call [`DebugDraw::draw_contact`] for every point of every touching contact of the last
    /// step, with its normal and graph color. Default false.
    pub contacts: bool,
    /// Call [`DebugDraw::draw_joint`] for every joint, with its anchors. Default true: like the
    /// shapes, joints are part of what a scene is made of.
    pub joints: bool,
}

impl Default for DebugDrawOptions {
    fn default() -> Self {
        DebugDrawOptions {
            shapes: true,
            aabbs: false,
            contacts: false,
            joints: true,
        }
    }
}

/// Who a drawn shape belongs to, so a renderer can colour by kind or pick out one body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DebugBody {
    /// The body's handle; [`BodyId::slot`] gives its creation-order index among live slots.
    pub id: BodyId,
    /// Fixed, kinematic or dynamic.
    pub kind: BodyKind,
}

/// One contact point of the last step, in world coordinates. Contacts are found at the start
/// of a step, so the point and normal are where the bodies were then, before the solver moved
/// them (by up to their velocity times the step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugContact {
    /// The body with the lower slot.
    pub body_a: BodyId,
    /// The body with the higher slot.
    pub body_b: BodyId,
    /// Midway between the two surfaces.
    pub point: Vec2,
    /// Unit normal pointing from body A to body B.
    pub normal: Vec2,
    /// Gap between the surfaces along the normal; negative when they overlap.
    pub separation: f32,
    /// Accumulated normal impulse (N·s) the solver applied at this point in the last step.
    pub normal_impulse: f32,
    /// Which of the last step's parallel solve batches (graph colors, numbered from 0) held
    /// this contact: contacts of one color share no moving body, so the solver runs them at
    /// once. `None` when the contact was solved outside the colors (one at a time, when its
    /// bodies filled every color, or exactly, in a small island of widely different masses),
    /// or when a body was removed since the last step, so the last coloring no longer matches
    /// the contacts. For drawing the solver's work; the numbering may change between releases.
    pub color: Option<u8>,
}

/// One joint, in world coordinates at the bodies' present poses (see
/// [`World::joint_anchors`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugJoint {
    /// The joint's handle.
    pub id: JointId,
    /// What the joint does.
    pub kind: JointKind,
    /// Body A; `None` for a mouse joint, which pulls B towards a point.
    pub body_a: Option<BodyId>,
    /// Body B.
    pub body_b: BodyId,
    /// The point fixed in A (a mouse joint: its target).
    pub anchor_a: Vec2,
    /// The point fixed in B. A revolute or weld joint holds it on `anchor_a`, so a gap between
    /// the two shows the joint coming apart.
    pub anchor_b: Vec2,
    /// The unit axis fixed in A along which B slides: prismatic and wheel joints only.
    pub axis: Option<Vec2>,
}

/// Callbacks of a renderer. Only the shapes are required; the other layers default to
/// drawing nothing, so a renderer that does not show them need not mention them.
pub trait DebugDraw {
    /// A solid disc. `axis` is the unit vector of the body's rotation (its local x axis in the
    /// world): drawing the radius `center -> center + radius * axis` shows a rolling circle turn.
    fn draw_circle(&mut self, body: DebugBody, center: Vec2, radius: f32, axis: Vec2);

    /// A solid convex polygon: `vertices` in world coordinates, counter-clockwise, grown by the
    /// rounding `radius` (0 for sharp corners).
    fn draw_polygon(&mut self, body: DebugBody, vertices: &[Vec2], radius: f32);

    /// The body's broadphase box of the last step: its shape's box at the start of the step,
    /// grown by the speculative distance and swept along the step's motion (for a body added
    /// since, the tight box of its shape).
    fn draw_aabb(&mut self, _body: DebugBody, _aabb: Aabb) {}

    /// One joint.
    fn draw_joint(&mut self, _joint: &DebugJoint) {}

    /// One contact point.
    fn draw_contact(&mut self, _contact: &DebugContact) {}
}

impl World {
    /// Calls `draw` for the layers `options` selects: every body's shapes (each shape of a
    /// compound body, in order, with the body's [`DebugBody`]) and box in slot order, then
    /// every joint in slot order, then every contact point of the last step in contact order.
    /// Reads the world only.
    pub fn debug_draw(&self, draw: &mut impl DebugDraw, options: &DebugDrawOptions) {
        let bodies = &self.bodies;
        for id in bodies.ids() {
            let slot = id.slot() as usize;
            let body = DebugBody {
                id,
                kind: bodies.body_kind(slot),
            };
            if options.shapes {
                let xf = bodies.transform(slot);
                for shape in bodies.shapes(slot) {
                    draw_shape(draw, body, shape, xf);
                }
            }
            if options.aabbs {
                draw.draw_aabb(body, bodies.aabb()[slot]);
            }
        }
        if options.joints {
            self.draw_joints(draw);
        }
        if options.contacts {
            self.draw_contacts(draw);
        }
    }

    fn draw_joints(&self, draw: &mut impl DebugDraw) {
        for id in self.joints.ids() {
            let j = self.joints.get(id).expect("a listed joint is live");
            let (anchor_a, anchor_b) = j.anchors(&self.bodies);
            let slides = matches!(j.kind, JointKind::Prismatic | JointKind::Wheel);
            draw.draw_joint(&DebugJoint {
                id,
                kind: j.kind,
                body_a: j.body_a().map(|a| self.bodies.id(a.index())),
                body_b: self.bodies.id(j.b.index()),
                anchor_a,
                anchor_b,
                axis: slides.then(|| j.axis(&self.bodies)),
            });
        }
    }

    fn draw_contacts(&self, draw: &mut impl DebugDraw) {
        let contacts = &self.contacts.list;
        // After a removal the listed contacts are not those the last step colored: their colors
        // are unknown, as after any change between steps.
        let colors = if self.removed.is_empty() {
            self.graph.contact_colors(contacts.len())
        } else {
            None
        };
        for (i, c) in contacts.iter().enumerate() {
            if self.removed.either(c.a, c.b) {
                continue; // A removed body's, dropped by the next step.
            }
            let m = &c.manifold;
            for p in &m.points[..m.point_count] {
                draw.draw_contact(&DebugContact {
                    body_a: self.bodies.id(c.a.index()),
                    body_b: self.bodies.id(c.b.index()),
                    point: p.point,
                    normal: m.normal,
                    separation: p.separation,
                    normal_impulse: p.normal_impulse,
                    color: colors.as_ref().and_then(|k| k[i]),
                });
            }
        }
    }
}

fn draw_shape(
    draw: &mut impl DebugDraw,
    body: DebugBody,
    shape: &Shape,
    xf: crate::geometry::math::Transform,
) {
    match shape {
        Shape::Circle(c) => {
            let axis = Vec2::new(xf.q.c, xf.q.s);
            draw.draw_circle(body, xf.apply(c.center), c.radius, axis);
        }
        Shape::Polygon(p) => {
            let mut world = [Vec2::ZERO; MAX_POLYGON_VERTICES];
            for (w, &v) in world.iter_mut().zip(&p.vertices[..p.count]) {
                *w = xf.apply(v);
            }
            draw.draw_polygon(body, &world[..p.count], p.radius);
        }
    }
}
