//! The broadphase boxes of bodies whose shape is a rounded rectangle aligned with the body's
//! axes or a circle (a rectangle of no width), the commonest shapes: recomputed for every
//! moving body at every step, from the columns of the bodies' poses and velocities.
//!
//! A body's box is its shape's tight world box grown by `margin` plus how far the turn of
//! one step moves its farthest point (`|w| dt reach`), then stretched along the motion its
//! velocity makes in `dt`. The x86_64 entry points compute it four bodies at a time, each
//! body's x and y side by side as the columns hold them ([`crate::x86`]); the portable build
//! has no wide form of this loop over pairs of floats, so it is the scalar one.

use bytemuck::{Pod, Zeroable};

/// A body's shape as its box needs it: a rectangle in the body frame, rounded by `radius`.
/// A circle is one of no width. Eight floats, so that four of them transpose into the pairs of
/// four bodies with whole-register loads.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BoxShape {
    /// Centre of the rectangle (a circle's centre), body frame.
    pub center: [f32; 2],
    /// Half the width and the height, rounding excluded: zero for a circle.
    pub half: [f32; 2],
    /// The rounding radius (a circle's radius), once per axis.
    pub radius: [f32; 2],
    /// Unused; keeps the shape at eight floats.
    pub pad: [f32; 2],
}

impl BoxShape {
    /// The rectangle centred at `center` with half extents `half`, rounded by `radius`.
    pub fn new(center: [f32; 2], half: [f32; 2], radius: f32) -> BoxShape {
        BoxShape {
            center,
            half,
            radius: [radius; 2],
            pad: [0.0; 2],
        }
    }
}

/// The columns of the bodies whose boxes are computed, one entry per body in each.
#[derive(Clone, Copy, Debug)]
pub struct BoxBodies<'a> {
    /// Centre of mass, world.
    pub center: &'a [[f32; 2]],
    /// Rotation: cosine and sine.
    pub rotation: &'a [[f32; 2]],
    /// Centre of mass relative to the body origin, body frame.
    pub local_center: &'a [[f32; 2]],
    /// Linear velocity of the centre of mass.
    pub linear: &'a [[f32; 2]],
    /// Angular velocity.
    pub angular: &'a [f32],
    /// Farthest distance from the centre of mass to the shape's surface.
    pub reach: &'a [f32],
    /// The shape.
    pub shape: &'a [BoxShape],
}

impl BoxBodies<'_> {
    /// The number of bodies.
    ///
    /// # Panics
    /// If the columns differ in length.
    pub fn len(&self) -> usize {
        let n = self.center.len();
        let lengths = [
            self.rotation.len(),
            self.local_center.len(),
            self.linear.len(),
            self.angular.len(),
            self.reach.len(),
            self.shape.len(),
        ];
        assert!(lengths.iter().all(|&l| l == n), "columns differ in length");
        n
    }

    /// True when there are no bodies.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The constants of one step's boxes.
#[derive(Clone, Copy, Debug)]
pub struct BoxParams {
    /// How far every box is grown on every side (the speculative distance).
    pub margin: f32,
    /// The step.
    pub dt: f32,
}

/// The one-body reference, as the engine computes a shape's swept box: each operation, and the
/// order of operands where it matters, is the wide kernels' too.
pub mod scalar {
    use super::*;

    /// `if x < 0 { x } else { 0 }`: what x86's `minps` of `x` and zero gives, NaN included.
    #[inline(always)]
    fn below_zero(x: f32) -> f32 {
        if x < 0.0 {
            x
        } else {
            0.0
        }
    }

    /// `if x > 0 { x } else { 0 }`, as `maxps`.
    #[inline(always)]
    fn above_zero(x: f32) -> f32 {
        if x > 0.0 {
            x
        } else {
            0.0
        }
    }

    /// The box of body `i` of `b`: lower x, lower y, upper x, upper y.
    #[inline(always)]
    pub fn body_box(b: &BoxBodies, i: usize, p: &BoxParams) -> [f32; 4] {
        let [c, s] = b.rotation[i];
        let [lx, ly] = b.local_center[i];
        let origin = [
            b.center[i][0] - (c * lx - s * ly),
            b.center[i][1] - (s * lx + c * ly),
        ];
        let grow = p.margin + b.angular[i].abs() * p.dt * b.reach[i];
        let motion = [b.linear[i][0] * p.dt, b.linear[i][1] * p.dt];
        let shape = &b.shape[i];
        let [sx, sy] = shape.center;
        let center = [(c * sx - s * sy) + origin[0], (s * sx + c * sy) + origin[1]];
        let (ac, as_) = (c.abs(), s.abs());
        let [hx, hy] = shape.half;
        let extent = [ac * hx + as_ * hy, as_ * hx + ac * hy];
        let r = shape.radius;
        let lower = |k: usize| center[k] - extent[k] - r[k] - grow + below_zero(motion[k]);
        let upper = |k: usize| center[k] + extent[k] + r[k] + grow + above_zero(motion[k]);
        [lower(0), lower(1), upper(0), upper(1)]
    }

    /// Writes to `out[i]` the box of body `i` of `b` ([`body_box`]).
    ///
    /// # Panics
    /// If `out` and the columns of `b` differ in length.
    pub fn body_boxes(b: &BoxBodies, p: &BoxParams, out: &mut [[f32; 4]]) {
        assert_eq!(b.len(), out.len(), "one box per body");
        for (i, out) in out.iter_mut().enumerate() {
            *out = body_box(b, i, p);
        }
    }
}

/// The portable build: [`scalar::body_boxes`] (see the module documentation).
pub mod simd {
    use super::*;

    /// [`scalar::body_boxes`].
    pub fn body_boxes(b: &BoxBodies, p: &BoxParams, out: &mut [[f32; 4]]) {
        scalar::body_boxes(b, p, out)
    }
}
