//! Small 2D math types: y up, metres, radians. Plain `f32`, no fused multiply-add, so every
//! result can be reproduced bit for bit.

use crate::codec::{Codec, Reader, Writer};
use crate::error::Error;
use batch2d_kernels::trig;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A 2D vector (or point) with public `x` and `y`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
// `repr(C)`: the pin kernels read a column of them as pairs of f32s (see `joints::batches`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Vec2 {
    /// Horizontal component (grows to the right).
    pub x: f32,
    /// Vertical component (grows upwards).
    pub y: f32,
}

impl Vec2 {
    /// The zero vector, or the origin.
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    /// The vector `(x, y)`.
    #[inline]
    pub const fn new(x: f32, y: f32) -> Vec2 {
        Vec2 { x, y }
    }

    /// Dot product.
    #[inline]
    pub fn dot(self, o: Vec2) -> f32 {
        self.x * o.x + self.y * o.y
    }

    /// The z component of the 3D cross product.
    #[inline]
    pub fn cross(self, o: Vec2) -> f32 {
        self.x * o.y - self.y * o.x
    }

    /// Squared length: no square root, so cheaper than [`Vec2::length`] for comparisons.
    #[inline]
    pub fn length_squared(self) -> f32 {
        self.dot(self)
    }

    /// Euclidean length.
    #[inline]
    pub fn length(self) -> f32 {
        self.length_squared().sqrt()
    }

    /// The unit vector in this direction, or `None` for a (near) zero vector.
    #[inline]
    pub fn normalized(self) -> Option<Vec2> {
        let len = self.length();
        if len > f32::EPSILON {
            Some(self * (1.0 / len))
        } else {
            None
        }
    }

    /// Rotated +90 degrees: `(-y, x)`.
    #[inline]
    pub fn left_perp(self) -> Vec2 {
        Vec2::new(-self.y, self.x)
    }

    /// Rotated -90 degrees: `(y, -x)`.
    #[inline]
    pub fn right_perp(self) -> Vec2 {
        Vec2::new(self.y, -self.x)
    }

    /// Component-wise minimum (of a NaN and a number, the number, as [`f32::min`]).
    #[inline]
    pub fn min(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x.min(o.x), self.y.min(o.y))
    }

    /// Component-wise maximum (of a NaN and a number, the number, as [`f32::max`]).
    #[inline]
    pub fn max(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x.max(o.x), self.y.max(o.y))
    }

    /// True when neither component is NaN or infinite.
    #[inline]
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }

    /// `s × v` for a scalar angular quantity `s`: `(-s y, s x)`.
    #[inline]
    pub fn cross_sv(s: f32, v: Vec2) -> Vec2 {
        Vec2::new(-s * v.y, s * v.x)
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    #[inline]
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    #[inline]
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}

impl AddAssign for Vec2 {
    #[inline]
    fn add_assign(&mut self, o: Vec2) {
        *self = *self + o;
    }
}

impl SubAssign for Vec2 {
    #[inline]
    fn sub_assign(&mut self, o: Vec2) {
        *self = *self - o;
    }
}

impl Mul<f32> for Vec2 {
    type Output = Vec2;
    #[inline]
    fn mul(self, s: f32) -> Vec2 {
        Vec2::new(self.x * s, self.y * s)
    }
}

impl Mul<Vec2> for f32 {
    type Output = Vec2;
    #[inline]
    fn mul(self, v: Vec2) -> Vec2 {
        v * self
    }
}

impl Neg for Vec2 {
    type Output = Vec2;
    #[inline]
    fn neg(self) -> Vec2 {
        Vec2::new(-self.x, -self.y)
    }
}

/// A rotation stored as cosine and sine, so rotating a vector needs no trigonometry.
// `repr(C)`: as for `Vec2`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Rot {
    /// Cosine of the angle.
    pub c: f32,
    /// Sine of the angle.
    pub s: f32,
}

impl Default for Rot {
    fn default() -> Self {
        Rot::IDENTITY
    }
}

impl Rot {
    /// No rotation: angle 0.
    pub const IDENTITY: Rot = Rot { c: 1.0, s: 0.0 };

    /// The rotation by `angle` radians, counter-clockwise. Computed by the crate itself, not
    /// the system's libm, so that it gives the same bits on every platform.
    #[inline]
    pub fn from_angle(angle: f32) -> Rot {
        let (s, c) = trig::sin_cos(angle);
        Rot { c, s }
    }

    /// The angle in radians, in `(-pi, pi]`; the same bits on every platform.
    #[inline]
    pub fn angle(self) -> f32 {
        trig::atan2(self.s, self.c)
    }

    /// `v` rotated by this rotation (counter-clockwise by its angle).
    #[inline]
    pub fn rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }

    /// `v` rotated by the inverse rotation (clockwise by the angle): undoes [`Rot::rotate`].
    #[inline]
    pub fn inv_rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x + self.s * v.y, -self.s * v.x + self.c * v.y)
    }

    /// `self * o`: first rotate by `o`, then by `self`.
    #[inline]
    pub fn compose(self, o: Rot) -> Rot {
        Rot {
            c: self.c * o.c - self.s * o.s,
            s: self.s * o.c + self.c * o.s,
        }
    }

    /// `self⁻¹ * o`: the rotation from `self` to `o`.
    #[inline]
    pub fn inv_mul(self, o: Rot) -> Rot {
        Rot {
            c: self.c * o.c + self.s * o.s,
            s: self.c * o.s - self.s * o.c,
        }
    }

    /// Rescaled to unit length (identity if degenerate).
    #[inline]
    pub fn normalized(self) -> Rot {
        let mag = (self.c * self.c + self.s * self.s).sqrt();
        if mag > 0.0 {
            let inv = 1.0 / mag;
            Rot {
                c: self.c * inv,
                s: self.s * inv,
            }
        } else {
            Rot::IDENTITY
        }
    }
}

/// A rigid transform: rotate by `q`, then translate by `p`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transform {
    /// Translation: where the local origin lands (m).
    pub p: Vec2,
    /// Rotation, applied before the translation.
    pub q: Rot,
}

impl Transform {
    /// Leaves every point where it is.
    pub const IDENTITY: Transform = Transform {
        p: Vec2::ZERO,
        q: Rot::IDENTITY,
    };

    /// Rotate by `q`, then translate by `p`.
    #[inline]
    pub fn new(p: Vec2, q: Rot) -> Transform {
        Transform { p, q }
    }

    /// Local point to world point.
    #[inline]
    pub fn apply(self, v: Vec2) -> Vec2 {
        self.q.rotate(v) + self.p
    }

    /// World point to local point.
    #[inline]
    pub fn inv_apply(self, v: Vec2) -> Vec2 {
        self.q.inv_rotate(v - self.p)
    }

    /// `self⁻¹ * o`: `o` expressed in the frame of `self`. Differences are taken before
    /// rotating, so two nearby bodies far from the origin keep full precision.
    #[inline]
    pub fn inv_mul(self, o: Transform) -> Transform {
        Transform {
            p: self.q.inv_rotate(o.p - self.p),
            q: self.q.inv_mul(o.q),
        }
    }
}

/// An axis-aligned bounding box.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Aabb {
    /// Lower-left corner: the smallest x and y.
    pub min: Vec2,
    /// Upper-right corner: the largest x and y.
    pub max: Vec2,
}

impl Aabb {
    /// The box from `min` to `max`, taken as given (not checked or reordered).
    #[inline]
    pub fn new(min: Vec2, max: Vec2) -> Aabb {
        Aabb { min, max }
    }

    /// True when the boxes overlap or touch.
    #[inline]
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.x <= o.max.x
            && o.min.x <= self.max.x
            && self.min.y <= o.max.y
            && o.min.y <= self.max.y
    }

    /// The smallest box that contains both.
    #[inline]
    pub fn union(&self, o: &Aabb) -> Aabb {
        Aabb::new(self.min.min(o.min), self.max.max(o.max))
    }

    /// Grown by `margin` on every side.
    #[inline]
    pub fn fattened(&self, margin: f32) -> Aabb {
        let m = Vec2::new(margin, margin);
        Aabb::new(self.min - m, self.max + m)
    }

    /// True when `p` is inside the box or on its boundary.
    #[inline]
    pub fn contains_point(&self, p: Vec2) -> bool {
        self.min.x <= p.x && p.x <= self.max.x && self.min.y <= p.y && p.y <= self.max.y
    }

    /// Width and height, `max - min`: the full size, not the half-extents that Box2D's
    /// `b2AABB_Extents` returns.
    #[inline]
    pub fn extents(&self) -> Vec2 {
        self.max - self.min
    }
}

/// A vector in f64, for the few queries that must mix scales f32 cannot hold together (a ray
/// from 1e9 m away onto a 1 cm body, a box of 1e20 m around it). Every f32 converts exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct DVec2 {
    pub x: f64,
    pub y: f64,
}

impl DVec2 {
    pub const fn new(x: f64, y: f64) -> DVec2 {
        DVec2 { x, y }
    }

    pub fn dot(self, o: DVec2) -> f64 {
        self.x * o.x + self.y * o.y
    }

    pub fn cross(self, o: DVec2) -> f64 {
        self.x * o.y - self.y * o.x
    }

    pub fn length_squared(self) -> f64 {
        self.dot(self)
    }

    /// Rounded to the nearest f32 vector.
    pub fn to_f32(self) -> Vec2 {
        Vec2::new(self.x as f32, self.y as f32)
    }

    /// `rot` applied to the vector.
    pub fn rotated(self, rot: Rot) -> DVec2 {
        let (c, s) = (f64::from(rot.c), f64::from(rot.s));
        DVec2::new(c * self.x - s * self.y, s * self.x + c * self.y)
    }

    /// The inverse of `rot` applied to the vector.
    pub fn inv_rotated(self, rot: Rot) -> DVec2 {
        let (c, s) = (f64::from(rot.c), f64::from(rot.s));
        DVec2::new(c * self.x + s * self.y, -s * self.x + c * self.y)
    }
}

impl From<Vec2> for DVec2 {
    fn from(v: Vec2) -> DVec2 {
        DVec2::new(f64::from(v.x), f64::from(v.y))
    }
}

impl Add for DVec2 {
    type Output = DVec2;
    fn add(self, o: DVec2) -> DVec2 {
        DVec2::new(self.x + o.x, self.y + o.y)
    }
}

impl Sub for DVec2 {
    type Output = DVec2;
    fn sub(self, o: DVec2) -> DVec2 {
        DVec2::new(self.x - o.x, self.y - o.y)
    }
}

impl Mul<f64> for DVec2 {
    type Output = DVec2;
    fn mul(self, s: f64) -> DVec2 {
        DVec2::new(self.x * s, self.y * s)
    }
}

impl Codec for Vec2 {
    const MIN_SIZE: usize = 8;
    fn encode(&self, w: &mut Writer) {
        let Vec2 { x, y } = self;
        x.encode(w);
        y.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(Vec2::new(f32::decode(r)?, f32::decode(r)?))
    }
}

impl Codec for Rot {
    const MIN_SIZE: usize = 8;
    fn encode(&self, w: &mut Writer) {
        let Rot { c, s } = self;
        c.encode(w);
        s.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(Rot {
            c: f32::decode(r)?,
            s: f32::decode(r)?,
        })
    }
}

impl Codec for Transform {
    const MIN_SIZE: usize = 16;
    fn encode(&self, w: &mut Writer) {
        let Transform { p, q } = self;
        p.encode(w);
        q.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(Transform {
            p: Vec2::decode(r)?,
            q: Rot::decode(r)?,
        })
    }
}

impl Codec for Aabb {
    const MIN_SIZE: usize = 16;
    fn encode(&self, w: &mut Writer) {
        let Aabb { min, max } = self;
        min.encode(w);
        max.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(Aabb {
            min: Vec2::decode(r)?,
            max: Vec2::decode(r)?,
        })
    }
}

// A `Vec2` is its `x` then its `y`, and a `Rot` its cosine then its sine, as a `[f32; 2]`
// (`pairs`, `rotation_pairs`); an `Aabb` its lower then its upper corner, as a `[f32; 4]`
// (`aabb_rows`).
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(offset_of!(Aabb, min) == 0 && offset_of!(Aabb, max) == 8 && size_of::<Aabb>() == 16);
    assert!(align_of::<Aabb>() >= align_of::<[f32; 4]>());
    assert!(offset_of!(Vec2, x) == 0 && offset_of!(Vec2, y) == 4 && size_of::<Vec2>() == 8);
    assert!(offset_of!(Rot, c) == 0 && offset_of!(Rot, s) == 4 && size_of::<Rot>() == 8);
    assert!(align_of::<Vec2>() >= align_of::<[f32; 2]>());
    assert!(align_of::<Rot>() >= align_of::<[f32; 2]>());
};

/// `v` as the kernels' pairs of floats.
pub(crate) fn pairs(v: &[Vec2]) -> &[[f32; 2]] {
    // SAFETY: the assertions above: a `Vec2` is laid out as a `[f32; 2]`, and aligned for
    // one; the slice keeps `v`'s length and lifetime.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<[f32; 2]>(), v.len()) }
}

/// `q` as the kernels' pairs of floats (cosine, sine).
pub(crate) fn rotation_pairs(q: &[Rot]) -> &[[f32; 2]] {
    // SAFETY: as for `pairs`, a `Rot` laid out as a `[f32; 2]`.
    unsafe { std::slice::from_raw_parts(q.as_ptr().cast::<[f32; 2]>(), q.len()) }
}

/// `boxes` as the kernels' rows of four floats: lower x, lower y, upper x, upper y.
pub(crate) fn aabb_rows(boxes: &mut [Aabb]) -> &mut [[f32; 4]] {
    // SAFETY: the assertions above: an `Aabb` is laid out as a `[f32; 4]`, and aligned for
    // one; the slice keeps `boxes`' length and borrows it mutably for its lifetime.
    unsafe { std::slice::from_raw_parts_mut(boxes.as_mut_ptr().cast::<[f32; 4]>(), boxes.len()) }
}
