//! The public builders of bodies: [`BodyKind`], [`BodyDef`] and [`ShapeDef`], which
//! `World::add_body` and `World::add_compound_body` validate and copy into the body store.

use crate::error::{check_finite, check_non_negative, Error};
use crate::geometry::math::Vec2;
use crate::geometry::shape::Shape;

/// How a body moves.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// Never moves (ground, walls). Infinite mass. Made by [`BodyDef::fixed`].
    Fixed,
    /// Moves with the velocity you set; pushes dynamic bodies, is never pushed. Infinite mass.
    Kinematic,
    /// Moved by gravity and contacts.
    Dynamic,
}

/// How to create a body. Build with [`BodyDef::dynamic`], [`BodyDef::fixed`] or
/// [`BodyDef::kinematic`] and the builder methods.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq)]
pub struct BodyDef {
    /// Fixed, kinematic or dynamic: chosen by the constructor ([`BodyDef::dynamic`],
    /// [`BodyDef::fixed`] or [`BodyDef::kinematic`]).
    pub kind: BodyKind,
    /// World position of the body origin. Default (0, 0).
    pub position: Vec2,
    /// Rotation in radians. Default 0.
    pub angle: f32,
    /// Velocity of the centre of mass, at most 1e30 m/s per axis. Default (0, 0).
    pub linear_velocity: Vec2,
    /// Radians per second, at most 1e30 in magnitude. Default 0.
    pub angular_velocity: f32,
    /// Multiplies world gravity for this body. Default 1.
    pub gravity_scale: f32,
    /// Velocity damping coefficient (1/s) of a dynamic body, >= 0. Default 0.
    pub linear_damping: f32,
    /// Angular velocity damping coefficient (1/s) of a dynamic body, >= 0. Default 0.
    pub angular_damping: f32,
    /// A dynamic body that never turns: infinite rotational inertia and an angular velocity
    /// held at 0. Default false.
    pub fixed_rotation: bool,
    /// Continuous collision against static bodies on every step, however slowly the body
    /// moves. Default false. Without it a body is swept only in a step in which it moves more
    /// than half its smallest extent: after the solver, such a body is swept from its pose at
    /// the start of the step to its new one against the static bodies near its path, and moved
    /// back to the first time of impact, so that it cannot end a step beyond a thin wall.
    pub bullet: bool,
    /// Lifts the bound on the angular speed of a body in contact. Default false. A contact's
    /// points are found when its step begins and turn with the body through the step, so a
    /// body in contact turns at most a quarter turn per step (94 rad/s at 60 Hz): with more,
    /// the points would be carried round past the surface they stand for, and a fast
    /// spinning body could slip into a thin wall it touches. A body that is in no contact
    /// has no such bound. Lift it for a wheel that must roll faster (a car's, past 37 m/s on
    /// 0.4 m wheels), whose round shape keeps its contact point where it was.
    pub allow_fast_rotation: bool,
    /// Speed (m/s) under which the body counts as resting, >= 0: its island may sleep once
    /// every member has rested for `WorldSettings::time_to_sleep`. The speed is the larger of
    /// the centre's speed and the angular speed times the body's reach. Default 0.05; 0 keeps
    /// the body, and so its island, awake.
    pub sleep_threshold: f32,
    /// A number of the user's, kept with the body and never read by the engine: an index or
    /// a key into the game's own data. Default 0. See
    /// [`World::user_data`](crate::World::user_data).
    pub user_data: u64,
}

impl BodyDef {
    fn new(kind: BodyKind) -> BodyDef {
        BodyDef {
            kind,
            position: Vec2::ZERO,
            angle: 0.0,
            linear_velocity: Vec2::ZERO,
            angular_velocity: 0.0,
            gravity_scale: 1.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            fixed_rotation: false,
            bullet: false,
            allow_fast_rotation: false,
            sleep_threshold: 0.05,
            user_data: 0,
        }
    }

    /// A body moved by gravity and contacts.
    pub fn dynamic() -> BodyDef {
        BodyDef::new(BodyKind::Dynamic)
    }

    /// A body that never moves.
    pub fn fixed() -> BodyDef {
        BodyDef::new(BodyKind::Fixed)
    }

    /// A body moved only by the velocity you give it.
    pub fn kinematic() -> BodyDef {
        BodyDef::new(BodyKind::Kinematic)
    }

    /// Sets where the body origin (the frame its shape is defined in) starts, in world
    /// coordinates (m). Default (0, 0). Must be finite.
    pub fn position(mut self, p: Vec2) -> BodyDef {
        self.position = p;
        self
    }

    /// Sets the initial rotation about the body origin (rad, counter-clockwise). Default 0.
    /// Must be finite.
    pub fn angle(mut self, radians: f32) -> BodyDef {
        self.angle = radians;
        self
    }

    /// Sets the initial velocity of the centre of mass (m/s). Default (0, 0). Ignored for a
    /// static body. At most 1e30 m/s per axis is accepted, and every step caps the speed of
    /// dynamic and kinematic bodies alike at `WorldSettings::max_linear_speed`.
    pub fn linear_velocity(mut self, v: Vec2) -> BodyDef {
        self.linear_velocity = v;
        self
    }

    /// Sets the initial angular velocity (rad/s, counter-clockwise). Default 0. Ignored for a
    /// static body. At most 1e30 rad/s is accepted. Every substep clamps it to four turns per
    /// substep (6032 rad/s at 60 Hz and 4 substeps), and a body in contact to a quarter turn
    /// per step (94 rad/s at 60 Hz) unless it [allows fast
    /// rotation](BodyDef#structfield.allow_fast_rotation).
    pub fn angular_velocity(mut self, w: f32) -> BodyDef {
        self.angular_velocity = w;
        self
    }

    /// Sets the factor on world gravity for this body (0 floats, negative rises). Default 1.
    /// Must be finite. Only dynamic bodies feel gravity: static and kinematic ones ignore it.
    pub fn gravity_scale(mut self, s: f32) -> BodyDef {
        self.gravity_scale = s;
        self
    }

    /// Sets the linear damping coefficient (1/s), >= 0. Default 0. Every substep of length `h`
    /// divides the velocity by `1 + h * d`, which is stable for any `d`. Dynamic bodies only:
    /// a kinematic body keeps the velocity it is given.
    pub fn linear_damping(mut self, d: f32) -> BodyDef {
        self.linear_damping = d;
        self
    }

    /// Sets the angular damping coefficient (1/s), >= 0. Default 0. Every substep of length
    /// `h` divides the angular velocity by `1 + h * d`. Dynamic bodies only.
    pub fn angular_damping(mut self, d: f32) -> BodyDef {
        self.angular_damping = d;
        self
    }

    /// Keeps a dynamic body from ever turning, for characters and the textbook's axis-aligned
    /// boxes: its rotational inertia is infinite and its angular velocity stays 0 (one given
    /// here or by `World::set_angular_velocity` is ignored). Default false.
    pub fn fixed_rotation(mut self, fixed: bool) -> BodyDef {
        self.fixed_rotation = fixed;
        self
    }

    /// Marks a fast body (a projectile) for continuous collision on every step. Default false.
    pub fn bullet(mut self, bullet: bool) -> BodyDef {
        self.bullet = bullet;
        self
    }

    /// Sets the resting speed (m/s), >= 0. Default 0.05; 0 keeps the body awake. See
    /// [`BodyDef::sleep_threshold`](BodyDef#structfield.sleep_threshold).
    pub fn sleep_threshold(mut self, speed: f32) -> BodyDef {
        self.sleep_threshold = speed;
        self
    }

    /// Lifts the bound on the angular speed of a body in contact (a quarter turn per step).
    /// Default false. See [`BodyDef::allow_fast_rotation`](BodyDef#structfield.allow_fast_rotation).
    pub fn allow_fast_rotation(mut self, allow: bool) -> BodyDef {
        self.allow_fast_rotation = allow;
        self
    }

    /// Sets the user's number kept with the body (any value). Default 0.
    pub fn user_data(mut self, data: u64) -> BodyDef {
        self.user_data = data;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), Error> {
        if !self.position.is_finite() {
            return Err(Error::InvalidParameter(format!(
                "position must be finite, got {:?}",
                self.position
            )));
        }
        crate::limits::check_linear_velocity("linear_velocity", self.linear_velocity)?;
        check_finite("angle", self.angle)?;
        crate::limits::check_angular_velocity("angular_velocity", self.angular_velocity)?;
        check_finite("gravity_scale", self.gravity_scale)?;
        check_non_negative("linear_damping", self.linear_damping)?;
        check_non_negative("angular_damping", self.angular_damping)?;
        check_non_negative("sleep_threshold", self.sleep_threshold)
    }
}

/// The material and filter of a body's shape. The shape may reach at most 1e6 m from the body
/// origin.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeDef {
    /// The collision shape, in the body frame.
    pub shape: Shape,
    /// kg/m², >= 0. Default 1. A dynamic body needs a positive mass.
    pub density: f32,
    /// Coulomb friction coefficient, >= 0. Default 0.6.
    pub friction: f32,
    /// Coefficient of restitution in 0..=1. Default 0.
    pub restitution: f32,
    /// Collision layers this shape is in. Default `1`.
    pub layers: u32,
    /// Layers this shape collides with. Default all.
    pub mask: u32,
    /// Box2D's group index. Default 0 (none). See [`ShapeDef::group`](method@ShapeDef::group).
    pub group: i32,
    /// A sensor reports what overlaps it and pushes nothing. Default false. See
    /// [`ShapeDef::sensor`](method@ShapeDef::sensor).
    pub sensor: bool,
}

impl ShapeDef {
    /// A definition of `shape` with the default material and filter: density 1 kg/m²,
    /// friction 0.6, restitution 0, layers `1`, mask all (`u32::MAX`).
    pub fn new(shape: Shape) -> ShapeDef {
        ShapeDef {
            shape,
            density: 1.0,
            friction: 0.6,
            restitution: 0.0,
            layers: 1,
            mask: u32::MAX,
            group: 0,
            sensor: false,
        }
    }

    /// Sets the density (kg/m²), >= 0. Default 1. The body's mass is density times area, so
    /// a dynamic body needs a positive density (and may weigh at most 1e20 kg); 0 suits
    /// static and kinematic bodies.
    pub fn density(mut self, d: f32) -> ShapeDef {
        self.density = d;
        self
    }

    /// Sets the Coulomb friction coefficient, >= 0. Default 0.6. A contact combines the two
    /// shapes' coefficients by `WorldSettings::friction_mixing` (geometric mean by default).
    pub fn friction(mut self, f: f32) -> ShapeDef {
        self.friction = f;
        self
    }

    /// Sets the coefficient of restitution in 0..=1: 0 does not bounce, 1 is elastic.
    /// Default 0. A contact combines the two shapes' coefficients by
    /// `WorldSettings::restitution_mixing` (the smaller by default, so both must be bouncy),
    /// and bounces only at approach speeds above `WorldSettings::restitution_threshold`.
    pub fn restitution(mut self, e: f32) -> ShapeDef {
        self.restitution = e;
        self
    }

    /// Sets the collision layers this shape is in (a bit set). Default `1`. Two shapes collide
    /// when each one's `layers` meets the other's `mask`.
    pub fn layers(mut self, layers: u32) -> ShapeDef {
        self.layers = layers;
        self
    }

    /// Sets the layers this shape collides with (a bit set). Default all (`u32::MAX`). See
    /// [`ShapeDef::layers`].
    pub fn mask(mut self, mask: u32) -> ShapeDef {
        self.mask = mask;
        self
    }

    /// Sets the shape's group index, as in Box2D. Default 0 (no group). Two shapes with the
    /// same negative group never collide, and two with the same positive group always
    /// collide, whatever their layers and masks; otherwise (different groups, or 0) their
    /// layers and masks decide. Give the limbs of one ragdoll the same negative group so that
    /// they pass through each other and still collide with everything else. A sensor takes no
    /// group: `World::add_body` refuses a sensor whose group is not 0. Queries ignore groups.
    pub fn group(mut self, group: i32) -> ShapeDef {
        self.group = group;
        self
    }

    /// Makes the shape a sensor (default false): it reports the bodies that overlap it
    /// ([`ContactEvents::sensor_begin`](crate::ContactEvents::sensor_begin) and
    /// [`sensor_end`](crate::ContactEvents::sensor_end)) and exerts no force. Nothing collides
    /// with it, continuous collision included; a body whose only shape is a sensor, if
    /// dynamic, moves as if alone (under gravity and the user's forces). Overlap is found as
    /// contacts are, between pairs with at least one dynamic body whose layers and masks
    /// match (and, with
    /// [`WorldSettings::sensors_see_kinematic`](crate::WorldSettings::sensors_see_kinematic),
    /// between a fixed sensor and a kinematic body), at the poses the step starts from; two
    /// sensors do not see each other. Queries (ray casts and overlap tests) do see sensor
    /// shapes: filter them out by their layers.
    ///
    /// A sensor may be one shape of a compound body
    /// ([`World::add_compound_body`](crate::World::add_compound_body)), as a character's foot
    /// sensor: the body's other shapes collide as usual, and the events name the body as the
    /// sensor (several sensor shapes of one body are one sensor: overlapping any of them is
    /// overlapping it). It sees the shapes of other bodies, not those of its own body. Its
    /// density counts in the body's mass like any shape's: give it density 0 to leave the mass
    /// to the solid shapes.
    pub fn sensor(mut self, sensor: bool) -> ShapeDef {
        self.sensor = sensor;
        self
    }

    pub(crate) fn validate(&self) -> Result<(), Error> {
        crate::limits::check_shape_reach(&self.shape)?;
        check_non_negative("density", self.density)?;
        check_non_negative("friction", self.friction)?;
        if self.sensor && self.group != 0 {
            return Err(Error::InvalidParameter(format!(
                "a sensor takes no group (it sees bodies by layers and masks), got group {}",
                self.group
            )));
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(Error::InvalidParameter(format!(
                "restitution must be in 0..=1, got {}",
                self.restitution
            )));
        }
        Ok(())
    }
}
