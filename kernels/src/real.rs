//! One numeric interface for one lane (`f32`) and eight lanes (`wide::f32x8`).
//!
//! Every kernel is written once, generic over [`Real`], and instantiated twice. Both
//! instantiations perform the same IEEE operations in the same order per lane (add, sub, mul,
//! div, sqrt, sign flip, compare and select; never fused multiply-add or approximate reciprocals),
//! so the scalar twin reproduces the SIMD kernel bit for bit.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};
use wide::f32x8;

/// Lanes in one SIMD batch.
pub const LANES: usize = 8;

/// A float of one or eight lanes.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A per-lane boolean.
    type Mask: Copy + BitAnd<Output = Self::Mask> + BitOr<Output = Self::Mask>;

    /// `x` in every lane.
    fn splat(x: f32) -> Self;
    /// Loads `src[lane]` (one lane) or all of `src` (eight lanes; `lane` must be 0).
    fn load(src: &[f32; LANES], lane: usize) -> Self;
    /// Stores into `dst[lane]` (one lane) or all of `dst` (eight lanes; `lane` must be 0).
    fn store(self, dst: &mut [f32; LANES], lane: usize);
    /// Correctly rounded square root.
    fn sqrt(self) -> Self;
    /// `self > o` per lane; false where either is NaN.
    fn gt(self, o: Self) -> Self::Mask;
    /// `self < o` per lane; false where either is NaN.
    fn lt(self, o: Self) -> Self::Mask;
    /// `self >= o` per lane; false where either is NaN.
    fn ge(self, o: Self) -> Self::Mask;
    /// `if m { a } else { b }` per lane.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// True if `m` holds in every lane.
    fn all(m: Self::Mask) -> bool;

    /// `if self > o { self } else { o }`: one definition for both widths, so that signed zeros
    /// and NaNs resolve identically.
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Self::select(self.gt(o), self, o)
    }

    /// `if self < o { self } else { o }`.
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Self::select(self.lt(o), self, o)
    }
}

impl Real for f32 {
    type Mask = bool;

    #[inline(always)]
    fn splat(x: f32) -> f32 {
        x
    }
    #[inline(always)]
    fn load(src: &[f32; LANES], lane: usize) -> f32 {
        src[lane]
    }
    #[inline(always)]
    fn store(self, dst: &mut [f32; LANES], lane: usize) {
        dst[lane] = self;
    }
    #[inline(always)]
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn gt(self, o: f32) -> bool {
        self > o
    }
    #[inline(always)]
    fn lt(self, o: f32) -> bool {
        self < o
    }
    #[inline(always)]
    fn ge(self, o: f32) -> bool {
        self >= o
    }
    #[inline(always)]
    fn all(m: bool) -> bool {
        m
    }
    #[inline(always)]
    fn select(m: bool, a: f32, b: f32) -> f32 {
        if m {
            a
        } else {
            b
        }
    }
}

impl Real for f32x8 {
    type Mask = f32x8;

    #[inline(always)]
    fn splat(x: f32) -> f32x8 {
        f32x8::splat(x)
    }
    #[inline(always)]
    fn load(src: &[f32; LANES], lane: usize) -> f32x8 {
        debug_assert_eq!(lane, 0);
        f32x8::new(*src)
    }
    #[inline(always)]
    fn store(self, dst: &mut [f32; LANES], lane: usize) {
        debug_assert_eq!(lane, 0);
        *dst = self.to_array();
    }
    #[inline(always)]
    fn sqrt(self) -> f32x8 {
        f32x8::sqrt(self)
    }
    #[inline(always)]
    fn gt(self, o: f32x8) -> f32x8 {
        self.simd_gt(o)
    }
    #[inline(always)]
    fn lt(self, o: f32x8) -> f32x8 {
        self.simd_lt(o)
    }
    #[inline(always)]
    fn ge(self, o: f32x8) -> f32x8 {
        self.simd_ge(o)
    }
    #[inline(always)]
    fn select(m: f32x8, a: f32x8, b: f32x8) -> f32x8 {
        m.select(a, b)
    }
    #[inline(always)]
    fn all(m: f32x8) -> bool {
        m.to_bitmask() == 0xff
    }
}

/// The instruction set `wide::f32x8` was compiled for.
pub fn instruction_set() -> &'static str {
    if cfg!(target_feature = "avx2") {
        "avx2"
    } else if cfg!(target_feature = "avx") {
        "avx"
    } else if cfg!(target_feature = "sse2") {
        "sse2 (f32x8 as two 128-bit halves)"
    } else if cfg!(target_feature = "neon") {
        "neon (f32x8 as two 128-bit halves)"
    } else {
        "scalar fallback"
    }
}
