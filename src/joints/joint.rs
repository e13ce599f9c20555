//! Joints: definitions, handles and the joints themselves (the world keeps them in `store`,
//! and its joint calls are in `world/joints.rs`).
//!
//! A joint holds two bodies together: a revolute joint (hinge) pins a point of one to a point
//! of the other, a distance joint keeps two points at a distance (a rod, a spring or a rope), a
//! weld glues two bodies, a prismatic joint lets them slide along an axis, a wheel joint lets
//! them slide along a sprung axis and turn freely, a mouse joint pulls a point of one body to
//! a target, and a motor joint drives one body to a pose relative to another. Anchors and axes
//! are given in world space when the joint is made; the joint keeps them in the bodies'
//! frames.
//!
//! # How joints are solved
//!
//! Rigid joints that hold bodies in a tree (a chain, a rope, a welded beam: no loop, at most
//! one joint to the fixed world) are solved exactly, tree by tree (see `tree`). The
//! others are solved in the substeps of the contact solve, as soft constraints: per substep
//! the joints warm start before the contacts, every biased solve pass of the contacts is
//! preceded by a biased pass over the joints, and the joints relax after the contacts do (see
//! `passes`). The joints are colored so that no dynamic body appears twice in a color,
//! and each joint pass runs its colors one after another, a color's joints in parallel; plain
//! revolute joints (no limits, motor or spring) are solved eight at a time by SIMD kernels whose
//! scalar twins give the same bits: results stay bit-identical across backends and thread
//! counts. Bodies with a joint are left out of the
//! solver's tiles (a tile runs a component's whole step on one worker, without the joint
//! stages).
//!
//! # Joints and sleeping
//!
//! Two dynamic bodies held by a joint are one island, as if they touched: they fall asleep
//! together, and anything that wakes one wakes the other. Adding or removing a joint, and
//! moving a mouse or motor joint's target, wakes its bodies. A body held to a moving kinematic body
//! does not fall asleep.
//!
//! # Collisions
//!
//! A joint's two bodies do not collide with each other unless the joint is made with
//! [`JointDef::collide_connected`].

use crate::body::BodyId;
use crate::body::BodyStore;
use crate::codec::{codec_struct, invalid, Codec, Reader, Writer};
use crate::error::{check_finite, check_non_negative, Error};
use crate::geometry::math::{Rot, Vec2};
use crate::index::BodySlot;
use std::f32::consts::PI;

/// Handle of a joint. Stays valid until the joint, or one of its bodies, is removed; a removed
/// or foreign handle gives `Err(Error::InvalidJoint)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JointId {
    pub(super) world: u32,
    pub(super) slot: u32,
    pub(super) generation: u32,
}

/// What a joint does.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JointKind {
    /// A hinge: pins a point of B to a point of A, leaving the relative turn free (within
    /// optional limits, driven by an optional motor).
    Revolute,
    /// Keeps two anchor points at the distance they had when the joint was made: rigid, sprung,
    /// or slack within a range.
    Distance,
    /// A slider: B moves along an axis fixed in A and does not turn relative to A.
    Prismatic,
    /// Glues B to A: no relative motion (optionally soft).
    Weld,
    /// Pulls a point of one body towards a target point with a spring of limited force.
    Mouse,
    /// A wheel on a suspension: B slides along an axis fixed in A against an optional spring
    /// and turns freely, driven by an optional motor.
    Wheel,
    /// Drives B towards a pose relative to A (a position in A's frame and an angle) with a
    /// force and a torque of limited size.
    Motor,
}

/// How to make a joint: a constructor per kind ([`JointDef::revolute`],
/// [`JointDef::distance`], [`JointDef::prismatic`], [`JointDef::weld`], [`JointDef::wheel`],
/// [`JointDef::mouse`], [`JointDef::motor_joint`]) and builder methods for the options. Anchors and axes are in world
/// space, as the bodies stand when [`World::add_joint`](crate::World::add_joint) is called. An option the kind does not
/// have (limits on a weld) makes `add_joint` fail.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq)]
pub struct JointDef {
    kind: JointKind,
    body_a: Option<BodyId>,
    body_b: BodyId,
    anchor_a: Vec2,
    anchor_b: Vec2,
    axis: Vec2,
    limits: Option<(f32, f32)>,
    motor: Option<(f32, f32)>,
    spring: Option<(f32, f32)>,
    length_range: Option<(f32, f32)>,
    max_force: Option<f32>,
    max_torque: Option<f32>,
    correction: Option<f32>,
    collide: bool,
    break_force: Option<f32>,
    break_torque: Option<f32>,
}

/// Default fraction of a motor joint's pose error it corrects per substep.
const MOTOR_CORRECTION: f32 = 0.3;

/// Default stiffness of a mouse joint (Hz) and its damping ratio.
const MOUSE_SPRING: (f32, f32) = (5.0, 0.7);

impl JointDef {
    fn new(kind: JointKind, a: Option<BodyId>, b: BodyId, anchor_a: Vec2, anchor_b: Vec2) -> Self {
        JointDef {
            kind,
            body_a: a,
            body_b: b,
            anchor_a,
            anchor_b,
            axis: Vec2::new(1.0, 0.0),
            limits: None,
            motor: None,
            spring: None,
            length_range: None,
            max_force: None,
            max_torque: None,
            correction: None,
            collide: false,
            break_force: None,
            break_torque: None,
        }
    }

    /// A hinge of `a` and `b` at `anchor` (world): the point stays shared, the bodies turn
    /// freely about it. Options: [`limits`](Self::limits), [`motor`](Self::motor),
    /// [`spring`](Self::spring) (towards the relative angle the bodies have now).
    pub fn revolute(a: BodyId, b: BodyId, anchor: Vec2) -> Self {
        JointDef::new(JointKind::Revolute, Some(a), b, anchor, anchor)
    }

    /// Keeps `anchor_a` (a point of `a`, world) and `anchor_b` (of `b`) at their present
    /// distance, which must be above zero: a rigid rod by default. Options:
    /// [`spring`](Self::spring), [`length_range`](Self::length_range), [`motor`](Self::motor)
    /// (m/s, N: drives the length's rate of change; it acts only on a joint that is not rigid,
    /// one with a spring or a length range).
    pub fn distance(a: BodyId, b: BodyId, anchor_a: Vec2, anchor_b: Vec2) -> Self {
        JointDef::new(JointKind::Distance, Some(a), b, anchor_a, anchor_b)
    }

    /// A slider: `b` moves along `axis` (world, any non-zero length; fixed in `a`'s frame)
    /// through `anchor`, and keeps its angle relative to `a`. Options: [`limits`](Self::limits)
    /// (metres along the axis from where `b` is now), [`motor`](Self::motor) (m/s, N),
    /// [`spring`](Self::spring) (towards where `b` is now on the axis).
    pub fn prismatic(a: BodyId, b: BodyId, anchor: Vec2, axis: Vec2) -> Self {
        JointDef {
            axis,
            ..JointDef::new(JointKind::Prismatic, Some(a), b, anchor, anchor)
        }
    }

    /// Glues `a` and `b` together at `anchor` (world): rigid by default, or soft with
    /// [`spring`](Self::spring).
    pub fn weld(a: BodyId, b: BodyId, anchor: Vec2) -> Self {
        JointDef::new(JointKind::Weld, Some(a), b, anchor, anchor)
    }

    /// A wheel `tyre` on `chassis`: the tyre's point `centre` (world) stays on the line through
    /// it along `axis` (world, fixed in the chassis' frame) and the tyre turns freely. Without
    /// a [`spring`](Self::spring) the tyre slides freely along the axis. Options:
    /// [`spring`](Self::spring) (holds the tyre at its present place on the axis),
    /// [`limits`](Self::limits) (metres along the axis), [`motor`](Self::motor) (rad/s, N m,
    /// on the tyre's turn relative to the chassis).
    pub fn wheel(chassis: BodyId, tyre: BodyId, centre: Vec2, axis: Vec2) -> Self {
        JointDef {
            axis,
            ..JointDef::new(JointKind::Wheel, Some(chassis), tyre, centre, centre)
        }
    }

    /// Pulls `body`'s point now at `target` (world) towards the target, which
    /// [`World::set_mouse_target`](crate::World::set_mouse_target) moves, with a spring of 5 Hz and damping ratio 0.7 by
    /// default ([`spring`](Self::spring)) and a force of at most
    /// [`max_force`](Self::max_force) (default unlimited); the body's spin is damped at twice
    /// the spring's frequency.
    pub fn mouse(body: BodyId, target: Vec2) -> Self {
        JointDef::new(JointKind::Mouse, None, body, target, target)
    }

    /// Drives `b` to the pose relative to `a` that it has now (its centre's place in `a`'s frame
    /// and its angle relative to `a`), which [`World::set_motor_joint_target`](crate::World::set_motor_joint_target) changes, with a
    /// force of at most [`max_force`](Self::max_force) and a torque of at most
    /// [`max_torque`](Self::max_torque) (both unlimited by default), correcting
    /// [`correction_factor`](Self::correction_factor) of the pose error per substep.
    pub fn motor_joint(a: BodyId, b: BodyId) -> Self {
        // The anchors are B's centre, known when the joint is added.
        JointDef::new(JointKind::Motor, Some(a), b, Vec2::ZERO, Vec2::ZERO)
    }

    /// The kind of joint this makes.
    pub fn kind(&self) -> JointKind {
        self.kind
    }

    /// Limits of a revolute joint's angle (radians, B's turn relative to A since the joint was
    /// made, within `-pi..=pi`), or of a prismatic or wheel joint's translation along its axis
    /// (metres from where B was when the joint was made). `lower <= upper`. Default: none.
    pub fn limits(mut self, lower: f32, upper: f32) -> Self {
        self.limits = Some((lower, upper));
        self
    }

    /// A motor: drives a revolute or wheel joint's relative turn to `speed` (rad/s) with at
    /// most `max` torque (N m), a prismatic joint's relative speed along its axis, or a
    /// distance joint's rate of change of length, to `speed` (m/s) with at most `max` force
    /// (N). `max >= 0`. Default: none. [`World::set_joint_motor`](crate::World::set_joint_motor)
    /// changes it while the world runs.
    pub fn motor(mut self, speed: f32, max: f32) -> Self {
        self.motor = Some((speed, max));
        self
    }

    /// A spring of `hertz` (>= 0) and `damping_ratio` (>= 0): a distance joint pulls towards
    /// its length (with `hertz` 0 it is slack within its [`length_range`](Self::length_range)),
    /// a weld turns soft (0 Hz: rigid), a wheel or prismatic joint's B is held at its place on
    /// the axis and a revolute joint's at its relative angle when the joint was made (0 Hz:
    /// free), a mouse joint pulls with it. Default: none (mouse joint: 5 Hz, 0.7).
    /// [`World::set_joint_spring`](crate::World::set_joint_spring) changes it while the world
    /// runs.
    pub fn spring(mut self, hertz: f32, damping_ratio: f32) -> Self {
        self.spring = Some((hertz, damping_ratio));
        self
    }

    /// Shortest and longest length of a distance joint (m, `0 <= min <= max`): the joint's
    /// length is its present one clamped to the range, and with a range of `min < max` and no
    /// spring, the joint is slack within it (a rope). Default: none.
    pub fn length_range(mut self, min: f32, max: f32) -> Self {
        self.length_range = Some((min, max));
        self
    }

    /// Whether the joint's two bodies still collide with each other (any kind). Default
    /// `false`: shapes that overlap at a hinge do not push each other apart.
    pub fn collide_connected(mut self, collide: bool) -> Self {
        self.collide = collide;
        self
    }

    /// Largest force (N, >= 0, may be infinite) of a mouse or motor joint. Default: unlimited.
    pub fn max_force(mut self, force: f32) -> Self {
        self.max_force = Some(force);
        self
    }

    /// Largest torque (N m, >= 0, may be infinite) of a motor joint. Default: unlimited.
    pub fn max_torque(mut self, torque: f32) -> Self {
        self.max_torque = Some(torque);
        self
    }

    /// Fraction of a motor joint's pose error (0..=1) it drives away per substep. Default 0.3.
    pub fn correction_factor(mut self, factor: f32) -> Self {
        self.correction = Some(factor);
        self
    }

    /// Force (N, >= 0, may be infinite) above which the joint reports a [`JointEvent`] (any
    /// kind): in each step whose last substep's reaction force (see
    /// [`World::joint_reaction_force`](crate::World::joint_reaction_force)) is longer than
    /// `force`. The joint stays: remove it with
    /// [`World::remove_joint`](crate::World::remove_joint) to break it. Default: unlimited, no
    /// events.
    pub fn break_force(mut self, force: f32) -> Self {
        self.break_force = Some(force);
        self
    }

    /// Torque (N m, >= 0, may be infinite) above which the joint reports a [`JointEvent`], as
    /// [`break_force`](Self::break_force) does for the size of the reaction torque (see
    /// [`World::joint_reaction_torque`](crate::World::joint_reaction_torque)). Default:
    /// unlimited, no events.
    pub fn break_torque(mut self, torque: f32) -> Self {
        self.break_torque = Some(torque);
        self
    }

    /// `Err(InvalidParameter)` for bad values or options the kind does not have.
    /// Bodies A (`None` for a mouse joint) and B.
    pub(crate) fn bodies(&self) -> (Option<BodyId>, BodyId) {
        (self.body_a, self.body_b)
    }

    fn validate(&self) -> Result<(), Error> {
        use JointKind::*;
        let kind = self.kind;
        let refuse = |option: &str| {
            Err(Error::InvalidParameter(format!(
                "a {kind:?} joint has no {option}"
            )))
        };
        for (name, p) in [("anchor", self.anchor_a), ("anchor_b", self.anchor_b)] {
            if !p.is_finite() {
                return Err(Error::InvalidParameter(format!(
                    "joint {name} must be finite, got {p:?}"
                )));
            }
        }
        let bad_axis = !self.axis.is_finite() || self.axis.normalized().is_none();
        if matches!(kind, Prismatic | Wheel) && bad_axis {
            return Err(Error::InvalidParameter(format!(
                "joint axis must be finite and of non-zero length, got {:?}",
                self.axis
            )));
        }
        if let Some(limits) = self.limits {
            if !matches!(kind, Revolute | Prismatic | Wheel) {
                return refuse("limits");
            }
            check_limits(kind, limits)?;
        }
        if let Some(motor) = self.motor {
            if !kind.has_motor() {
                return refuse("motor");
            }
            check_motor(motor)?;
        }
        if let Some(spring) = self.spring {
            if !kind.has_spring() {
                return refuse("spring");
            }
            check_spring(spring)?;
        }
        if let Some(range) = self.length_range {
            if kind != Distance {
                return refuse("length range");
            }
            check_limits(kind, range)?;
        }
        for (name, threshold) in [
            ("break force", self.break_force),
            ("break torque", self.break_torque),
        ] {
            match threshold {
                Some(t) if t.is_nan() || t < 0.0 => {
                    return Err(Error::InvalidParameter(format!(
                        "{name} must be >= 0, got {t}"
                    )))
                }
                _ => {}
            }
        }
        for (name, cap, kinds) in [
            ("maximum force", self.max_force, &[Mouse, Motor][..]),
            ("maximum torque", self.max_torque, &[Motor][..]),
        ] {
            let Some(cap) = cap else { continue };
            if !kinds.contains(&kind) {
                return refuse(name);
            }
            if cap.is_nan() || cap < 0.0 {
                return Err(Error::InvalidParameter(format!(
                    "{name} must be >= 0, got {cap}"
                )));
            }
        }
        if let Some(factor) = self.correction {
            if kind != Motor {
                return refuse("correction factor");
            }
            if !(0.0..=1.0).contains(&factor) {
                return Err(Error::InvalidParameter(format!(
                    "correction factor must lie within 0..=1, got {factor}"
                )));
            }
        }
        if kind == Distance && (self.anchor_b - self.anchor_a).length() <= f32::EPSILON {
            return Err(Error::InvalidParameter(format!(
                "the anchors of a distance joint must be apart, got {:?} twice (a revolute joint pins two points together)",
                self.anchor_a
            )));
        }
        Ok(())
    }
}

impl JointKind {
    /// Whether the kind has a motor: revolute, prismatic, wheel and distance joints.
    pub(crate) fn has_motor(self) -> bool {
        use JointKind::*;
        matches!(self, Revolute | Prismatic | Wheel | Distance)
    }

    /// Whether the kind has limits: revolute, prismatic and wheel joints, and a distance
    /// joint's length range.
    pub(crate) fn has_limits(self) -> bool {
        use JointKind::*;
        matches!(self, Revolute | Prismatic | Wheel | Distance)
    }

    /// Whether the kind has a spring: all but the motor joint.
    pub(crate) fn has_spring(self) -> bool {
        self != JointKind::Motor
    }
}

/// `Err(InvalidParameter)` unless a motor's speed is finite and its maximum torque or force
/// finite and `>= 0`.
pub(crate) fn check_motor((speed, max): (f32, f32)) -> Result<(), Error> {
    check_finite("motor speed", speed)?;
    check_non_negative("motor maximum torque or force", max)
}

/// `Err(InvalidParameter)` unless a spring's frequency and damping ratio are finite and
/// `>= 0`.
pub(crate) fn check_spring((hertz, damping): (f32, f32)) -> Result<(), Error> {
    check_non_negative("spring frequency", hertz)?;
    check_non_negative("spring damping ratio", damping)
}

/// `Err(InvalidParameter)` unless `lower <= upper`, both finite, within `-pi..=pi` for a
/// revolute joint and `>= 0` for a distance joint's length range.
pub(crate) fn check_limits(kind: JointKind, (lower, upper): (f32, f32)) -> Result<(), Error> {
    if kind == JointKind::Distance {
        check_non_negative("minimum length", lower)?;
        check_non_negative("maximum length", upper)?;
        if lower > upper {
            return Err(Error::InvalidParameter(format!(
                "length range crossed: min {lower} > max {upper}"
            )));
        }
        return Ok(());
    }
    check_finite("lower limit", lower)?;
    check_finite("upper limit", upper)?;
    if lower > upper {
        return Err(Error::InvalidParameter(format!(
            "joint limits crossed: lower {lower} > upper {upper}"
        )));
    }
    if kind == JointKind::Revolute && (lower < -PI || upper > PI) {
        return Err(Error::InvalidParameter(format!(
            "revolute limits must lie within -pi..=pi, got {lower}..={upper}"
        )));
    }
    Ok(())
}

/// A joint whose reaction passed its break force or torque in the last step (see
/// [`JointDef::break_force`]), from [`World::joint_events`](crate::World::joint_events).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointEvent {
    /// The joint. It stays until the user removes it.
    pub joint: JointId,
    /// The force (N) the joint applied to its body B in the last substep of the step, as
    /// [`World::joint_reaction_force`](crate::World::joint_reaction_force) gives it.
    pub force: Vec2,
    /// The torque (N m) it applied to B, as
    /// [`World::joint_reaction_torque`](crate::World::joint_reaction_torque) gives it.
    pub torque: f32,
}

/// The accumulated impulses of a joint over one substep, kept from step to step to warm start
/// the next.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Impulses {
    /// Point constraint (revolute, weld, mouse, motor joint): world frame. Prismatic and
    /// wheel: `x` along the perpendicular of the axis, `y` unused.
    pub linear: Vec2,
    /// Angular constraint (weld, prismatic, motor joint), spin damping (mouse), spring
    /// (revolute).
    pub angular: f32,
    /// Along the axis: the rigid distance, the spring (distance, wheel, prismatic).
    pub axial: f32,
    /// Motor (revolute, prismatic, wheel, distance).
    pub motor: f32,
    pub lower: f32,
    pub upper: f32,
}

/// A joint as the world keeps it: bodies by slot, anchors and axis in the bodies' frames.
#[derive(Clone, Debug)]
pub(crate) struct Joint {
    pub kind: JointKind,
    /// Body slots; `a` is `NONE` for a mouse joint.
    pub a: BodySlot,
    pub b: BodySlot,
    /// Anchors relative to the centres of mass, in the bodies' frames. A mouse joint's
    /// `local_a` is its target, in world space; a motor joint's, its target for B's centre.
    /// (Its `local_b` is zero.)
    pub local_a: Vec2,
    pub local_b: Vec2,
    /// Unit axis in A's frame (prismatic, wheel).
    pub local_axis: Vec2,
    /// B's angle minus A's when the joint was made (a motor joint: its target).
    pub reference_angle: f32,
    /// Distance joint: the length it holds; min and max.
    pub length: f32,
    pub length_range: Option<(f32, f32)>,
    /// The limits and motor as last set; they act while `limits_enabled`, `motor_enabled`
    /// (see [`Joint::active_limits`], [`Joint::active_motor`]).
    pub limits: Option<(f32, f32)>,
    pub motor: Option<(f32, f32)>,
    /// Whether the limits (a distance joint: its length range, where `min < max`) and the
    /// motor act; `World::enable_joint_limits` and `World::enable_joint_motor` switch them.
    pub limits_enabled: bool,
    pub motor_enabled: bool,
    pub spring: Option<(f32, f32)>,
    /// Reaction force (N) and torque (N m) above which the joint reports a `JointEvent`.
    pub break_force: f32,
    pub break_torque: f32,
    /// Mouse and motor joints' caps.
    pub max_force: f32,
    pub max_torque: f32,
    /// Motor joint: fraction of the pose error corrected per substep.
    pub correction: f32,
    /// The bodies still collide with each other.
    pub collide: bool,
    pub impulses: Impulses,
}

impl Joint {
    /// The joint `def` makes between the bodies in slots `a` (`NONE` for a mouse joint) and
    /// `b`, at their present poses. `Err(InvalidParameter)` as [`World::add_joint`](crate::World::add_joint) says.
    pub(crate) fn new(
        def: JointDef,
        a: BodySlot,
        b: BodySlot,
        bodies: &BodyStore,
    ) -> Result<Joint, Error> {
        if a == b {
            return Err(Error::InvalidParameter(
                "a joint needs two different bodies, got the same one twice".into(),
            ));
        }
        def.validate()?;
        let def = match def.kind {
            JointKind::Motor => JointDef {
                anchor_a: bodies.center()[b.index()],
                anchor_b: bodies.center()[b.index()],
                ..def
            },
            _ => def,
        };
        let local = |slot: BodySlot, p: Vec2| {
            let s = slot.index();
            bodies.rotation()[s].inv_rotate(p - bodies.center()[s])
        };
        let qa = match a {
            BodySlot::NONE => Rot::IDENTITY,
            a => bodies.rotation()[a.index()],
        };
        let qb = bodies.rotation()[b.index()];
        let axis = def.axis.normalized().unwrap_or(Vec2::new(1.0, 0.0));
        let (min, max) = def.length_range.unwrap_or((0.0, f32::INFINITY));
        let spring = match def.kind {
            JointKind::Mouse => Some(def.spring.unwrap_or(MOUSE_SPRING)),
            _ => def.spring,
        };
        Ok(Joint {
            kind: def.kind,
            a,
            b,
            local_a: match a {
                BodySlot::NONE => def.anchor_a,
                a => local(a, def.anchor_a),
            },
            local_b: local(b, def.anchor_b),
            local_axis: qa.inv_rotate(axis),
            reference_angle: qa.inv_mul(qb).angle(),
            length: (def.anchor_b - def.anchor_a).length().clamp(min, max),
            length_range: def.length_range,
            limits: def.limits,
            motor: def.motor,
            limits_enabled: true,
            motor_enabled: true,
            spring,
            break_force: def.break_force.unwrap_or(f32::INFINITY),
            break_torque: def.break_torque.unwrap_or(f32::INFINITY),
            max_force: def.max_force.unwrap_or(f32::INFINITY),
            max_torque: def.max_torque.unwrap_or(f32::INFINITY),
            correction: def.correction.unwrap_or(MOTOR_CORRECTION),
            collide: def.collide,
            impulses: Impulses::default(),
        })
    }

    /// A's and B's anchors (world) at the bodies' present poses; a mouse joint's A anchor is
    /// its target.
    pub(crate) fn anchors(&self, bodies: &BodyStore) -> (Vec2, Vec2) {
        let b = bodies;
        let point = |slot: BodySlot, local: Vec2| {
            let s = slot.index();
            b.center()[s] + b.rotation()[s].rotate(local)
        };
        let anchor_a = match self.a {
            BodySlot::NONE => self.local_a,
            a => point(a, self.local_a),
        };
        (anchor_a, point(self.b, self.local_b))
    }

    /// The unit axis (world) at A's present pose: prismatic and wheel joints slide along it.
    pub(crate) fn axis(&self, bodies: &BodyStore) -> Vec2 {
        let qa = match self.a {
            BodySlot::NONE => Rot::IDENTITY,
            a => bodies.rotation()[a.index()],
        };
        qa.rotate(self.local_axis)
    }

    /// B's angle relative to A's minus the reference angle (radians, within `-pi..=pi`), at
    /// the bodies' present poses.
    pub(crate) fn angle(&self, bodies: &BodyStore) -> f32 {
        let qa = match self.a {
            BodySlot::NONE => Rot::IDENTITY,
            a => bodies.rotation()[a.index()],
        };
        let angle = qa.inv_mul(bodies.rotation()[self.b.index()]).angle() - self.reference_angle;
        if angle > PI {
            angle - 2.0 * PI
        } else if angle < -PI {
            angle + 2.0 * PI
        } else {
            angle
        }
    }

    /// Whether the joint breaks when its reaction force or torque passes a threshold.
    pub(crate) fn breakable(&self) -> bool {
        self.break_force < f32::INFINITY || self.break_torque < f32::INFINITY
    }

    /// The limits while they are enabled (revolute, prismatic, wheel).
    pub(crate) fn active_limits(&self) -> Option<(f32, f32)> {
        self.limits.filter(|_| self.limits_enabled)
    }

    /// The motor while it is enabled.
    pub(crate) fn active_motor(&self) -> Option<(f32, f32)> {
        self.motor.filter(|_| self.motor_enabled)
    }

    /// The force (N) and torque (N m) the joint applied to B in the last substep of the last
    /// step, from its impulses over substeps `1 / inv_h` long: the torque apart from the
    /// force's moment (that of limits, motors, springs and angular constraints).
    pub(crate) fn reaction(&self, bodies: &BodyStore, inv_h: f32) -> (Vec2, f32) {
        let i = &self.impulses;
        let (d, axis) = self.frame(bodies);
        let force = match self.kind {
            JointKind::Revolute | JointKind::Weld | JointKind::Mouse | JointKind::Motor => i.linear,
            JointKind::Distance => {
                d.normalized().unwrap_or(Vec2::ZERO) * (i.axial + i.motor + i.lower - i.upper)
            }
            JointKind::Prismatic | JointKind::Wheel => {
                let along = i.axial + i.lower - i.upper;
                let along = match self.kind {
                    JointKind::Prismatic => along + i.motor,
                    _ => along,
                };
                axis.left_perp() * i.linear.x + axis * along
            }
        };
        let torque = match self.kind {
            JointKind::Revolute => i.angular + i.motor + i.lower - i.upper,
            JointKind::Prismatic => {
                let along = i.axial + i.lower - i.upper + i.motor;
                let (along_share, across_share) = self.turn_shares(bodies, d, axis);
                i.angular + along_share * along + across_share * i.linear.x
            }
            JointKind::Weld | JointKind::Mouse | JointKind::Motor => i.angular,
            JointKind::Wheel => i.motor,
            JointKind::Distance => 0.0,
        };
        (force * inv_h, torque * inv_h)
    }

    /// A prismatic joint's turn shares of its rows along and across the axis, at the bodies'
    /// present poses: its impulses along those rows carry that much turn besides (see
    /// [`turn_share`]).
    fn turn_shares(&self, bodies: &BodyStore, d: Vec2, axis: Vec2) -> (f32, f32) {
        let (anchor_a, anchor_b) = self.anchors(bodies);
        let side = |slot: BodySlot| match slot {
            BodySlot::NONE => (Vec2::ZERO, 0.0),
            s => (bodies.center()[s.index()], bodies.inv_inertia()[s.index()]),
        };
        let ((ca, ia), (cb, ib)) = (side(self.a), side(self.b));
        // A's arm reaches B's anchor (`d + ra`), as the rows measure it.
        let (arm, rb) = (anchor_a - ca + d, anchor_b - cb);
        let share = |n: Vec2| turn_share(arm.cross(n), rb.cross(n), ia, ib);
        (share(axis), share(axis.left_perp()))
    }

    /// Body A's slot, `None` for a mouse joint.
    pub(crate) fn body_a(&self) -> Option<BodySlot> {
        (self.a != BodySlot::NONE).then_some(self.a)
    }

    /// B's anchor minus A's (world), and the world axis, at the bodies' present poses.
    pub(crate) fn frame(&self, bodies: &BodyStore) -> (Vec2, Vec2) {
        let (anchor_a, anchor_b) = self.anchors(bodies);
        (anchor_b - anchor_a, self.axis(bodies))
    }
}

#[derive(Clone, Default)]
pub(crate) struct Slot {
    pub(super) generation: u32,
    pub joint: Option<Joint>,
}

impl Slot {
    /// How many times the slot's joint was removed: a handle names the slot and this.
    pub fn generation(&self) -> u32 {
        self.generation
    }
}

impl Codec for JointKind {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        (*self as u8).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        const KINDS: [JointKind; 7] = [
            JointKind::Revolute,
            JointKind::Distance,
            JointKind::Prismatic,
            JointKind::Weld,
            JointKind::Mouse,
            JointKind::Wheel,
            JointKind::Motor,
        ];
        let k = u8::decode(r)?;
        let kind = KINDS.get(usize::from(k)).copied();
        kind.filter(|kind| *kind as u8 == k)
            .ok_or_else(|| invalid(format!("unknown joint kind {k}")))
    }
}

codec_struct!(Impulses {
    linear,
    angular,
    axial,
    motor,
    lower,
    upper
});

codec_struct!(Joint {
    kind,
    a,
    b,
    local_a,
    local_b,
    local_axis,
    reference_angle,
    length,
    length_range,
    limits,
    motor,
    limits_enabled,
    motor_enabled,
    spring,
    break_force,
    break_torque,
    max_force,
    max_torque,
    correction,
    collide,
    impulses
});

codec_struct!(Slot { generation, joint });

codec_struct!(JointId {
    world,
    slot,
    generation
});

codec_struct!(JointEvent {
    joint,
    force,
    torque
});

/// The turn impulse, per unit impulse along a row with angular parts `ja` (A) and `jb` (B),
/// that leaves the relative spin `wB - wA` as it was, for inverse inertias `ia` and `ib`: an
/// impulse `P` along the row changes it by `(ia ja + ib jb) P`, a turn impulse `T` by
/// `(ia + ib) T`. Zero where neither body turns.
pub(crate) fn turn_share(ja: f32, jb: f32, ia: f32, ib: f32) -> f32 {
    if ia + ib > 0.0 {
        -(ia * ja + ib * jb) / (ia + ib)
    } else {
        0.0
    }
}
