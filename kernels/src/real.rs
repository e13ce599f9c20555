//! One numeric interface for one lane (`f32`), eight lanes (`wide::f32x8`) and sixteen
//! (`wide::f32x16`: two batches at once, for the two-point solve).
//!
//! Every kernel is written once, generic over [`Real`], and instantiated for each width it
//! runs at. All
//! instantiations perform the same IEEE operations in the same order per lane (add, sub, mul,
//! div, sqrt, sign flip, compare and select; never fused multiply-add or approximate reciprocals),
//! so the scalar twin reproduces the SIMD kernels bit for bit.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};
use wide::{f32x16, f32x8};

/// Lanes in one SIMD batch.
pub const LANES: usize = 8;

/// A float of one, eight or sixteen lanes.
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

/// `Real` for a `wide` vector type whose mask of all lanes set has bitmask `all_lanes`: the two
/// widths share every line but these two.
macro_rules! real_for_wide {
    ($t:ident, $all_lanes:expr) => {
        impl Real for $t {
            type Mask = $t;

            #[inline(always)]
            fn splat(x: f32) -> $t {
                $t::splat(x)
            }
            #[inline(always)]
            fn sqrt(self) -> $t {
                $t::sqrt(self)
            }
            #[inline(always)]
            fn gt(self, o: $t) -> $t {
                self.simd_gt(o)
            }
            #[inline(always)]
            fn lt(self, o: $t) -> $t {
                self.simd_lt(o)
            }
            #[inline(always)]
            fn ge(self, o: $t) -> $t {
                self.simd_ge(o)
            }
            #[inline(always)]
            fn select(m: $t, a: $t, b: $t) -> $t {
                m.select(a, b)
            }
            #[inline(always)]
            fn all(m: $t) -> bool {
                m.to_bitmask() == $all_lanes
            }
        }
    };
}

real_for_wide!(f32x8, 0xff);
real_for_wide!(f32x16, 0xffff);

/// Sixteen lanes from two times eight: `lo` in lanes 0..8, `hi` in 8..16.
#[inline(always)]
pub(crate) fn join(lo: f32x8, hi: f32x8) -> f32x16 {
    bytemuck::cast([lo, hi])
}

/// The two halves of [`join`].
#[inline(always)]
pub(crate) fn split(x: f32x16) -> [f32x8; 2] {
    bytemuck::cast(x)
}

/// True where the kernel of [`pair`](crate::contact::pair) runs on 512-bit registers (AVX-512);
/// elsewhere `wide` makes each f32x16 operation two f32x8 ones, which the engine does not use
/// for speed.
pub const NATIVE_PAIRS: bool = cfg!(target_feature = "avx512f");

/// The instruction set the kernels were compiled for.
pub fn instruction_set() -> &'static str {
    if NATIVE_PAIRS {
        "avx512 (f32x8 kernels with AVX-512VL, f32x16 solve pairs)"
    } else if cfg!(target_feature = "avx2") {
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
