//! One numeric interface for one lane (`f32`), eight lanes (`wide::f32x8`) and sixteen
//! (`wide::f32x16`: two batches at once, for the solves).
//!
//! Every kernel is written once, generic over [`Real`], and instantiated for each width it
//! runs at. All
//! instantiations perform the same IEEE operations in the same order per lane (add, sub, mul,
//! div, sqrt, sign flip, compare and select; never fused multiply-add or approximate reciprocals),
//! so the scalar twin reproduces the SIMD kernels bit for bit.

use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};
use wide::{f32x16, f32x8};

/// `c`, as the compiler cannot tell from the one it was given: what a kernel reads through it
/// is read from memory where it is used, rather than kept in registers from a read before.
/// A solve reads its contacts' constants again after the normal impulses, where the friction
/// and the velocity changes use them: read once for both, they were kept from the start of
/// the kernel through the block solve, and with too few registers for all, copied to the
/// stack and back; read again, each is an operand read from the batch where it is used.
#[inline(always)]
pub(crate) fn reread<C>(c: C) -> C {
    core::hint::black_box(c)
}

/// The array of `f(0), f(1), ..., f(N - 1)`, computed in that order. Unlike
/// `core::array::from_fn` and `[T; N]::map`, always inlined: a call the compiler leaves out of
/// line runs without the target features of the kernel it came from, and so do the vector
/// operations inside it.
#[inline(always)]
pub(crate) fn array_of<U: Copy, const N: usize>(mut f: impl FnMut(usize) -> U) -> [U; N] {
    let mut out = [f(0); N];
    for (i, x) in out.iter_mut().enumerate().skip(1) {
        *x = f(i);
    }
    out
}

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

    /// True where a kernel's values of this type outnumber the registers by far (two 256-bit
    /// halves each, on AVX2's sixteen registers): the contact solves then read their
    /// constants from the batch again where they use them, rather than keep them (see
    /// `contact::reread_crowded`). Default false: with registers enough, a value kept is
    /// cheaper than one read again.
    const CROWDED: bool = false;

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
    /// The largest integer not above `self`, per lane (exact: no rounding).
    fn floor(self) -> Self;

    /// `if self > o { self } else { o }`: one definition for every width, so that signed zeros
    /// and NaNs resolve identically. (A type may override it only with an operation that is
    /// exactly this, as x86's `maxps` is.)
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
    fn floor(self) -> f32 {
        f32::floor(self)
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
            fn floor(self) -> $t {
                $t::floor(self)
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

/// A [`Real`] of eight lanes: one batch. The batch kernels are generic over it, so that each
/// instruction set instantiates them with its own vector type.
pub trait Lanes8: Real {
    /// The eight floats of `x`.
    fn load(x: &[f32; LANES]) -> Self;
    /// The eight floats of `self`.
    fn store(self) -> [f32; LANES];
    /// The four floats of `lo` in lanes `0..4`, those of `hi` in lanes `4..8`.
    #[inline(always)]
    fn from_halves(lo: &[f32; 4], hi: &[f32; 4]) -> Self {
        Self::load(&array_of(|l| if l < 4 { lo[l] } else { hi[l - 4] }))
    }
    /// Rows to columns: lane `j` of result `i` is lane `i` of `rows[j]`.
    fn transpose(rows: [Self; LANES]) -> [Self; LANES];
    /// The two columns of eight pairs of floats (a column of points, say: the `x`, then the
    /// `y`).
    #[inline(always)]
    fn from_pairs(rows: [[f32; 2]; LANES]) -> [Self; 2] {
        let x = Self::load(&array_of(|l| rows[l][0]));
        [x, Self::load(&array_of(|l| rows[l][1]))]
    }
    /// Eight pairs of floats from two columns: the inverse of
    /// [`from_pairs`](Lanes8::from_pairs).
    #[inline(always)]
    fn to_pairs([x, y]: [Self; 2]) -> [[f32; 2]; LANES] {
        let (x, y) = (x.store(), y.store());
        array_of(|l| [x[l], y[l]])
    }
    /// Bit `l` set where lane `l` of `m` holds.
    fn bitmask(m: Self::Mask) -> u32;
    /// The mask that holds in lane `l` where bit `l` of `bits` is set: the inverse of
    /// [`bitmask`](Lanes8::bitmask).
    fn from_bitmask(bits: u32) -> Self::Mask;
    /// Bit `l` set where the high bit of `x[l]` is set.
    fn sign_mask(x: &[u32; LANES]) -> u32;

    /// The first three columns of eight rows of four floats (the velocity halves of eight
    /// body states: `vx`, `vy`, `w`).
    #[inline(always)]
    fn from_fours(rows: [[f32; 4]; LANES]) -> [Self; 3] {
        let wide = |l: usize| {
            let mut row = [0.0; LANES];
            row[..4].copy_from_slice(&rows[l]);
            Self::load(&row)
        };
        let t = Self::transpose(array_of(wide));
        [t[0], t[1], t[2]]
    }

    /// Eight rows of four floats from three columns and a zero: the velocity halves of eight
    /// body states (`pad` zero).
    #[inline(always)]
    fn to_fours(x: Self, y: Self, z: Self) -> [[f32; 4]; LANES] {
        let zero = Self::splat(0.0);
        let t = Self::transpose([x, y, z, zero, zero, zero, zero, zero]);
        array_of(|l| {
            let row = t[l].store();
            [row[0], row[1], row[2], row[3]]
        })
    }
}

/// A [`Real`] of sixteen lanes: two batches side by side (see [`pair`](crate::contact::pair)).
pub trait Lanes16: Real {
    /// The type of one batch.
    type Half: Lanes8;
    /// Sixteen lanes from two times eight: `lo` in lanes 0..8, `hi` in 8..16.
    fn join(lo: Self::Half, hi: Self::Half) -> Self;
    /// The two halves of [`join`](Lanes16::join).
    fn split(self) -> [Self::Half; 2];

    /// Sixteen lanes loaded from two times eight: `lo` in lanes 0..8, `hi` in 8..16.
    #[inline(always)]
    fn load_halves(lo: &[f32; LANES], hi: &[f32; LANES]) -> Self {
        Self::join(Self::Half::load(lo), Self::Half::load(hi))
    }

    /// Rows to columns in each half: lanes `0..8` of result `i` are lane `i` of the low
    /// halves of `rows`, lanes `8..16` lane `i` of their high halves. The same as joining the
    /// halves' [`transpose`](Lanes8::transpose)s, which is what this default does.
    #[inline(always)]
    fn transpose_pairs(rows: [Self; LANES]) -> [Self; LANES] {
        let rows: [[Self::Half; 2]; LANES] = array_of(|j| rows[j].split());
        let lo = Self::Half::transpose(array_of(|j| rows[j][0]));
        let hi = Self::Half::transpose(array_of(|j| rows[j][1]));
        array_of(|i| Self::join(lo[i], hi[i]))
    }

    /// Columns `x`, `y`, `z` and a zero column as sixteen rows of four: row `l` holds lane `l`
    /// of each. This default transposes each half.
    #[inline(always)]
    fn rows_of_four(x: Self, y: Self, z: Self) -> [[f32; 4]; 16] {
        let ([x0, x1], [y0, y1], [z0, z1]) = (x.split(), y.split(), z.split());
        let zero = Self::Half::splat(0.0);
        let mut rows = [[0.0; 4]; 16];
        for (h, (x, y, z)) in [(x0, y0, z0), (x1, y1, z1)].into_iter().enumerate() {
            let t = Self::Half::transpose([x, y, z, zero, zero, zero, zero, zero]);
            for (l, t) in t.into_iter().enumerate() {
                rows[LANES * h + l].copy_from_slice(&t.store()[..4]);
            }
        }
        rows
    }
}

impl Lanes8 for f32x8 {
    #[inline(always)]
    fn load(x: &[f32; LANES]) -> f32x8 {
        f32x8::new(*x)
    }
    #[inline(always)]
    fn store(self) -> [f32; LANES] {
        self.to_array()
    }
    #[inline(always)]
    fn transpose(rows: [f32x8; LANES]) -> [f32x8; LANES] {
        f32x8::transpose(rows)
    }
    #[inline(always)]
    fn bitmask(m: f32x8) -> u32 {
        m.to_bitmask()
    }
    #[inline(always)]
    fn from_bitmask(bits: u32) -> f32x8 {
        let set = f32::from_bits(u32::MAX);
        f32x8::new(array_of(|l| if bits >> l & 1 != 0 { set } else { 0.0 }))
    }
    #[inline(always)]
    fn sign_mask(x: &[u32; LANES]) -> u32 {
        f32x8::new(bytemuck::cast(*x)).to_bitmask()
    }
}

impl Lanes16 for f32x16 {
    type Half = f32x8;
    #[inline(always)]
    fn join(lo: f32x8, hi: f32x8) -> f32x16 {
        bytemuck::cast([lo, hi])
    }
    #[inline(always)]
    fn split(self) -> [f32x8; 2] {
        bytemuck::cast(self)
    }
}
