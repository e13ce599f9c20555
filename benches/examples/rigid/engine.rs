//! What a scene of the `rigid` example asks of an engine: bodies, joints, a step, and each
//! body's pose and motion. batch2d, Box2D v3 and rapier2d each answer it in their own file,
//! so that every scene is built once, in `main.rs`, and the same in all three.

use batch2d::Vec2;

/// Seconds per step: 60 Hz.
pub const DT: f32 = 1.0 / 60.0;

/// A body's index in its engine, in the order the scene made it.
pub type Id = usize;

#[derive(Clone, Copy)]
pub enum Shape {
    /// A box of these half-extents (m).
    Box(f32, f32),
    /// A circle of this radius (m).
    Circle(f32),
}

impl Shape {
    fn area(self) -> f32 {
        match self {
            Shape::Box(hw, hh) => 4.0 * hw * hh,
            Shape::Circle(r) => std::f32::consts::PI * r * r,
        }
    }
}

/// A body: fixed, or dynamic of `mass` kg spread evenly over its one shape. Friction 0.6
/// (batch2d's and Box2D's default, set in rapier2d), restitution 0, sleeping off.
#[derive(Clone, Copy)]
pub struct Body {
    pub fixed: bool,
    pub shape: Shape,
    pub mass: f32,
    pub at: Vec2,
    pub angle: f32,
    pub velocity: Vec2,
    pub spin: f32,
}

impl Body {
    /// A dynamic box `2 hw` x `2 hh` of `mass` kg centred at `at`.
    pub fn block(at: Vec2, hw: f32, hh: f32, mass: f32) -> Body {
        Body {
            fixed: false,
            shape: Shape::Box(hw, hh),
            mass,
            at,
            angle: 0.0,
            velocity: Vec2::ZERO,
            spin: 0.0,
        }
    }

    /// A fixed body of `shape` centred at `at`.
    pub fn fixed(at: Vec2, shape: Shape) -> Body {
        Body {
            fixed: true,
            mass: 0.0,
            shape,
            ..Body::block(at, 0.0, 0.0, 0.0)
        }
    }

    /// The shape's density that gives the body its mass (kg/m²).
    pub fn density(&self) -> f32 {
        if self.fixed {
            1.0
        } else {
            self.mass / self.shape.area()
        }
    }
}

/// A joint between two bodies, made at an anchor given in world coordinates. Each keeps the
/// bodies' relative pose at the time it is made; the two bodies do not collide.
#[derive(Clone, Copy)]
pub enum Joint {
    /// A hinge, with optional limits on its angle (rad, from the angle it was made at) and
    /// an optional motor (speed rad/s, largest torque N m).
    Revolute {
        limits: Option<(f32, f32)>,
        motor: Option<(f32, f32)>,
    },
    /// A rigid weld.
    Weld,
    /// A slider along `axis` (world coordinates) with a spring of `hertz` and damping ratio
    /// `zeta` pulling B back to where it was made.
    SliderSpring { axis: Vec2, hertz: f32, zeta: f32 },
}

impl Joint {
    /// A plain hinge.
    pub const HINGE: Joint = Joint::Revolute {
        limits: None,
        motor: None,
    };
}

/// How rapier2d holds a scene's joints: as multibody joints (reduced coordinates, the tree of
/// bodies moved as one) or as impulse joints. batch2d and Box2D have one kind and ignore it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Joints {
    Multibody,
    Impulse,
}

pub trait Engine {
    /// A world with gravity `g` (m/s², downwards), dt = [`DT`], 4 substeps and otherwise the
    /// engine's defaults.
    fn new(g: f32, joints: Joints) -> Self;
    fn add(&mut self, body: Body) -> Id;
    fn join(&mut self, a: Id, b: Id, anchor: Vec2, joint: Joint) -> Id;
    fn step(&mut self);
    fn position(&self, b: Id) -> Vec2;
    fn angle(&self, b: Id) -> f32;
    fn velocity(&self, b: Id) -> Vec2;
    fn spin(&self, b: Id) -> f32;
    /// The force (N) joint `j` applied in the last step, where the engine reports it.
    fn joint_force(&self, j: Id) -> Option<f32>;
    /// How many bodies the scene made.
    fn count(&self) -> usize;

    fn run(&mut self, steps: usize) {
        for _ in 0..steps {
            self.step();
        }
    }

    /// The point at `local` on body `b`, in world coordinates.
    fn world_point(&self, b: Id, local: Vec2) -> Vec2 {
        let (s, c) = self.angle(b).sin_cos();
        self.position(b) + Vec2::new(c * local.x - s * local.y, s * local.x + c * local.y)
    }

    /// The world point `p` in body `b`'s coordinates.
    fn local_point(&self, b: Id, p: Vec2) -> Vec2 {
        let (s, c) = self.angle(b).sin_cos();
        let d = p - self.position(b);
        Vec2::new(c * d.x + s * d.y, -s * d.x + c * d.y)
    }

    /// The largest speed of any body.
    fn fastest(&self) -> f32 {
        (0..self.count())
            .map(|b| self.velocity(b).length())
            .fold(0.0, f32::max)
    }
}
