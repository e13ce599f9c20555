//! The batch kernels for AVX2 and AVX-512, whichever instruction set the crate is compiled for:
//! [`avx2`] and [`avx512`] hold entry points compiled with those target features, which the
//! engine calls where [`InstructionSet::is_supported`] says the CPU has them.
//!
//! The kernels are generic over [`Lanes8`] and [`Lanes16`]; here they are instantiated with
//! `F32x8` (one `__m256`) and `F32x16` (one `__m512`), whose methods call the intrinsics and are
//! always inlined. Inlined into an entry point, everything is compiled with the entry
//! point's features, intrinsics included.
//!
//! Each operation is the IEEE operation of the scalar twin, lane by lane: `+ - * /` and `sqrt`
//! correctly rounded, negation a sign flip, ordered non-signalling compares (false where either
//! side is NaN), select by blend. No fused multiply-add (rustc never contracts `a * b + c`, and
//! the kernels never ask for it) and no approximate reciprocals.

use crate::body::{
    self, BodyParams, BodyState, IntegrateParams, PoseColumns, States, VelocityColumns,
};
use crate::bounds::{self, BoxBodies, BoxParams, BoxShape};
use crate::contact::{
    self, ContactBatch, ImpactParams, LaneBodies, Loaded, PointRows, SolveParams,
};
use crate::isa::InstructionSet;
use crate::joint::{self, BodyFrames, PinBatch, PinFrames, PinParams, PinStart};
use crate::real::{array_of, Lanes16, Lanes8, Real, LANES};
use crate::recycle::{self, BodyPose, RecycleBases, RecycleBatch, RecycleLanes, RecycleParams};
use core::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Sub};

/// Eight lanes in one 256-bit register.
///
/// Its values exist only inside the entry points of [`avx2`] and [`avx512`], which run only on
/// CPUs with AVX2: that is what makes the intrinsic calls in its methods sound.
#[derive(Clone, Copy)]
pub(crate) struct F32x8(__m256);

/// A lane mask of [`F32x8`]: all bits of a lane set or clear.
#[derive(Clone, Copy)]
pub(crate) struct Mask8(__m256);

/// Sixteen lanes in one 512-bit register; its values exist only inside the entry points of
/// [`avx512`], which run only on CPUs with AVX-512F.
#[derive(Clone, Copy)]
pub(crate) struct F32x16(__m512);

/// Sixteen lanes in two 256-bit registers, for the pair kernel of [`avx2`]: each operation is
/// one instruction per half. The halves are independent dependency chains, interleaved
/// instruction by instruction, which the core runs side by side: the two-point solve is
/// bound by the latency of its one long chain more than by the core's ports.
#[derive(Clone, Copy)]
pub(crate) struct F32x8x2(F32x8, F32x8);

/// A lane mask of [`F32x8x2`], one [`Mask8`] per half.
#[derive(Clone, Copy)]
pub(crate) struct Mask8x2(Mask8, Mask8);

/// Implements a binary operator trait on a type of two halves, half by half.
macro_rules! binary_op_halves {
    ($t:ident, $op:ident, $method:ident) => {
        impl $op for $t {
            type Output = $t;
            #[inline(always)]
            fn $method(self, o: $t) -> $t {
                $t(self.0.$method(o.0), self.1.$method(o.1))
            }
        }
    };
}

/// Implements a binary operator trait on `$t` with the intrinsic `$intrinsic`.
macro_rules! binary_op {
    ($t:ident, $op:ident, $method:ident, $intrinsic:ident) => {
        impl $op for $t {
            type Output = $t;
            #[inline(always)]
            fn $method(self, o: $t) -> $t {
                // SAFETY: the type's values exist only where the CPU has its instructions.
                $t(unsafe { $intrinsic(self.0, o.0) })
            }
        }
    };
}

binary_op!(F32x8, Add, add, _mm256_add_ps);
binary_op!(F32x8, Sub, sub, _mm256_sub_ps);
binary_op!(F32x8, Mul, mul, _mm256_mul_ps);
binary_op!(F32x8, Div, div, _mm256_div_ps);
binary_op!(Mask8, BitAnd, bitand, _mm256_and_ps);
binary_op!(Mask8, BitOr, bitor, _mm256_or_ps);
binary_op!(F32x16, Add, add, _mm512_add_ps);
binary_op!(F32x16, Sub, sub, _mm512_sub_ps);
binary_op!(F32x16, Mul, mul, _mm512_mul_ps);
binary_op!(F32x16, Div, div, _mm512_div_ps);
binary_op_halves!(F32x8x2, Add, add);
binary_op_halves!(F32x8x2, Sub, sub);
binary_op_halves!(F32x8x2, Mul, mul);
binary_op_halves!(F32x8x2, Div, div);
binary_op_halves!(Mask8x2, BitAnd, bitand);
binary_op_halves!(Mask8x2, BitOr, bitor);

impl Neg for F32x8x2 {
    type Output = F32x8x2;
    #[inline(always)]
    fn neg(self) -> F32x8x2 {
        F32x8x2(-self.0, -self.1)
    }
}

impl Neg for F32x8 {
    type Output = F32x8;
    #[inline(always)]
    fn neg(self) -> F32x8 {
        // SAFETY: as for the operators.
        F32x8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
    }
}

impl Neg for F32x16 {
    type Output = F32x16;
    #[inline(always)]
    fn neg(self) -> F32x16 {
        // SAFETY: as for the operators. (AVX-512F has no float xor; the integer one flips the
        // same bit.)
        F32x16(unsafe {
            let sign = _mm512_set1_epi32(i32::MIN);
            _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(self.0), sign))
        })
    }
}

impl Real for F32x8 {
    type Mask = Mask8;

    #[inline(always)]
    fn splat(x: f32) -> F32x8 {
        // SAFETY: as for the operators.
        F32x8(unsafe { _mm256_set1_ps(x) })
    }
    #[inline(always)]
    fn sqrt(self) -> F32x8 {
        // SAFETY: as for the operators.
        F32x8(unsafe { _mm256_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn gt(self, o: F32x8) -> Mask8 {
        // SAFETY: as for the operators.
        Mask8(unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn lt(self, o: F32x8) -> Mask8 {
        // SAFETY: as for the operators.
        Mask8(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn ge(self, o: F32x8) -> Mask8 {
        // SAFETY: as for the operators.
        Mask8(unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn select(m: Mask8, a: F32x8, b: F32x8) -> F32x8 {
        // SAFETY: as for the operators. (Takes the second operand where the mask is set.)
        F32x8(unsafe { _mm256_blendv_ps(b.0, a.0, m.0) })
    }
    #[inline(always)]
    fn all(m: Mask8) -> bool {
        // SAFETY: as for the operators.
        unsafe { _mm256_movemask_ps(m.0) == 0xff }
    }
    #[inline(always)]
    fn floor(self) -> F32x8 {
        // SAFETY: as for the operators.
        F32x8(unsafe { _mm256_floor_ps(self.0) })
    }
    #[inline(always)]
    fn max(self, o: F32x8) -> F32x8 {
        // SAFETY: as for the operators. (`maxps a, b` is `a > b ? a : b`, the second operand
        // where either is NaN or both are zeros: the default's select, in one instruction.)
        F32x8(unsafe { _mm256_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn min(self, o: F32x8) -> F32x8 {
        // SAFETY: as for the operators. (`minps a, b` is `a < b ? a : b`, as `max`.)
        F32x8(unsafe { _mm256_min_ps(self.0, o.0) })
    }
}

impl Lanes8 for F32x8 {
    #[inline(always)]
    fn load(x: &[f32; LANES]) -> F32x8 {
        // SAFETY: as for the operators; `x` holds the eight floats read.
        F32x8(unsafe { _mm256_loadu_ps(x.as_ptr()) })
    }
    #[inline(always)]
    fn store(self) -> [f32; LANES] {
        let mut x = [0.0; LANES];
        // SAFETY: as for the operators; `x` has room for the eight floats written.
        unsafe { _mm256_storeu_ps(x.as_mut_ptr(), self.0) };
        x
    }
    #[inline(always)]
    fn from_halves(lo: &[f32; 4], hi: &[f32; 4]) -> F32x8 {
        // SAFETY: as for the operators; `lo` and `hi` hold the four floats each reads.
        F32x8(unsafe { _mm256_loadu2_m128(hi.as_ptr(), lo.as_ptr()) })
    }
    #[inline(always)]
    fn transpose(rows: [F32x8; LANES]) -> [F32x8; LANES] {
        let r: [__m256; LANES] = array_of(|i| rows[i].0);
        // SAFETY: as for the operators.
        unsafe {
            // Pairs of rows interleaved: (r0[0], r1[0], r0[1], r1[1]) per 128-bit half...
            let t = [
                _mm256_unpacklo_ps(r[0], r[1]),
                _mm256_unpackhi_ps(r[0], r[1]),
                _mm256_unpacklo_ps(r[2], r[3]),
                _mm256_unpackhi_ps(r[2], r[3]),
                _mm256_unpacklo_ps(r[4], r[5]),
                _mm256_unpackhi_ps(r[4], r[5]),
                _mm256_unpacklo_ps(r[6], r[7]),
                _mm256_unpackhi_ps(r[6], r[7]),
            ];
            // ...then four rows: u[c] holds columns c (low half) and c + 4 (high half) of rows
            // 0..4, u[4 + c] the same of rows 4..8...
            let u = [
                _mm256_shuffle_ps::<0x44>(t[0], t[2]),
                _mm256_shuffle_ps::<0xee>(t[0], t[2]),
                _mm256_shuffle_ps::<0x44>(t[1], t[3]),
                _mm256_shuffle_ps::<0xee>(t[1], t[3]),
                _mm256_shuffle_ps::<0x44>(t[4], t[6]),
                _mm256_shuffle_ps::<0xee>(t[4], t[6]),
                _mm256_shuffle_ps::<0x44>(t[5], t[7]),
                _mm256_shuffle_ps::<0xee>(t[5], t[7]),
            ];
            // ...then the halves of rows 0..4 and 4..8 side by side.
            let v = [
                _mm256_permute2f128_ps::<0x20>(u[0], u[4]),
                _mm256_permute2f128_ps::<0x20>(u[1], u[5]),
                _mm256_permute2f128_ps::<0x20>(u[2], u[6]),
                _mm256_permute2f128_ps::<0x20>(u[3], u[7]),
                _mm256_permute2f128_ps::<0x31>(u[0], u[4]),
                _mm256_permute2f128_ps::<0x31>(u[1], u[5]),
                _mm256_permute2f128_ps::<0x31>(u[2], u[6]),
                _mm256_permute2f128_ps::<0x31>(u[3], u[7]),
            ];
            array_of(|i| F32x8(v[i]))
        }
    }
    #[inline(always)]
    fn bitmask(m: Mask8) -> u32 {
        // SAFETY: as for the operators.
        unsafe { _mm256_movemask_ps(m.0) as u32 }
    }
    #[inline(always)]
    fn from_bitmask(bits: u32) -> Mask8 {
        // SAFETY: as for the operators (every entry point's features include AVX2).
        unsafe {
            let lanes = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            let set = _mm256_and_si256(_mm256_set1_epi32(bits as i32), lanes);
            Mask8(_mm256_castsi256_ps(_mm256_cmpeq_epi32(set, lanes)))
        }
    }
    #[inline(always)]
    fn sign_mask(x: &[u32; LANES]) -> u32 {
        // SAFETY: as for the operators; `x` holds the 32 bytes read.
        unsafe { _mm256_movemask_ps(_mm256_loadu_ps(x.as_ptr().cast())) as u32 }
    }
    #[inline(always)]
    fn from_pairs(rows: [[f32; 2]; LANES]) -> [F32x8; 2] {
        // SAFETY: as for the operators.
        unsafe {
            // Rows l and l + 1 side by side, (x, y, x', y'), each row's eight bytes as one
            // integer (a row is only 4-byte aligned): lanes 0, 1 | 4, 5 in `a`, lanes 2, 3 |
            // 6, 7 in `b`... (A macro, not a closure: see `transpose_pairs`.)
            macro_rules! two {
                ($l:literal) => {
                    _mm_castsi128_ps(_mm_set_epi64x(
                        i64::from_ne_bytes(bytemuck::cast(rows[$l + 1])),
                        i64::from_ne_bytes(bytemuck::cast(rows[$l])),
                    ))
                };
            }
            let a = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(two!(0)), two!(4));
            let b = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(two!(2)), two!(6));
            // ...then the x of lanes 0..4 | 4..8, and the y.
            [
                F32x8(_mm256_shuffle_ps::<0x88>(a, b)),
                F32x8(_mm256_shuffle_ps::<0xdd>(a, b)),
            ]
        }
    }
    #[inline(always)]
    fn to_pairs([x, y]: [F32x8; 2]) -> [[f32; 2]; LANES] {
        // SAFETY: as for the operators; each store writes the 32 bytes of four pairs.
        unsafe {
            // (x, y) of lanes 0, 1 | 4, 5, and of lanes 2, 3 | 6, 7...
            let lo = _mm256_unpacklo_ps(x.0, y.0);
            let hi = _mm256_unpackhi_ps(x.0, y.0);
            // ...then lanes 0..4 and 4..8.
            let mut rows = [[0.0; 2]; LANES];
            let out = rows.as_mut_ptr().cast::<f32>();
            _mm256_storeu_ps(out, _mm256_permute2f128_ps::<0x20>(lo, hi));
            _mm256_storeu_ps(out.add(8), _mm256_permute2f128_ps::<0x31>(lo, hi));
            rows
        }
    }
    #[inline(always)]
    fn from_fours(rows: [[f32; 4]; LANES]) -> [F32x8; 3] {
        // SAFETY: as for the operators; each row holds the 16 bytes read.
        unsafe {
            // Rows l and l + 4 side by side: (x, y, z, pad) of lane l | of lane l + 4... (A
            // macro, not a closure: see `transpose_pairs`.)
            macro_rules! load {
                ($l:literal) => {
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(rows[$l].as_ptr())),
                        _mm_loadu_ps(rows[$l + 4].as_ptr()),
                    )
                };
            }
            let a = [load!(0), load!(1), load!(2), load!(3)];
            // ...then (x0, x1, y0, y1), (z0, z1, pad0, pad1), the same of lanes 2, 3, per half...
            let t = [
                _mm256_castps_pd(_mm256_unpacklo_ps(a[0], a[1])),
                _mm256_castps_pd(_mm256_unpackhi_ps(a[0], a[1])),
                _mm256_castps_pd(_mm256_unpacklo_ps(a[2], a[3])),
                _mm256_castps_pd(_mm256_unpackhi_ps(a[2], a[3])),
            ];
            // ...then the columns.
            [
                F32x8(_mm256_castpd_ps(_mm256_unpacklo_pd(t[0], t[2]))),
                F32x8(_mm256_castpd_ps(_mm256_unpackhi_pd(t[0], t[2]))),
                F32x8(_mm256_castpd_ps(_mm256_unpacklo_pd(t[1], t[3]))),
            ]
        }
    }
    #[inline(always)]
    fn to_fours(x: F32x8, y: F32x8, z: F32x8) -> [[f32; 4]; LANES] {
        // SAFETY: as for the operators.
        unsafe {
            let zero = _mm256_setzero_ps();
            // Per half: (x0, y0, x1, y1), (x2, y2, x3, y3), (z0, 0, z1, 0), (z2, 0, z3, 0)...
            let t = [
                _mm256_castps_pd(_mm256_unpacklo_ps(x.0, y.0)),
                _mm256_castps_pd(_mm256_unpackhi_ps(x.0, y.0)),
                _mm256_castps_pd(_mm256_unpacklo_ps(z.0, zero)),
                _mm256_castps_pd(_mm256_unpackhi_ps(z.0, zero)),
            ];
            // ...then r[j] holds lane j in its low half and lane j + 4 in its high half.
            let r = [
                _mm256_castpd_ps(_mm256_unpacklo_pd(t[0], t[2])),
                _mm256_castpd_ps(_mm256_unpackhi_pd(t[0], t[2])),
                _mm256_castpd_ps(_mm256_unpacklo_pd(t[1], t[3])),
                _mm256_castpd_ps(_mm256_unpackhi_pd(t[1], t[3])),
            ];
            let rows: [__m128; LANES] = [
                _mm256_castps256_ps128(r[0]),
                _mm256_castps256_ps128(r[1]),
                _mm256_castps256_ps128(r[2]),
                _mm256_castps256_ps128(r[3]),
                _mm256_extractf128_ps::<1>(r[0]),
                _mm256_extractf128_ps::<1>(r[1]),
                _mm256_extractf128_ps::<1>(r[2]),
                _mm256_extractf128_ps::<1>(r[3]),
            ];
            core::mem::transmute::<[__m128; LANES], [[f32; 4]; LANES]>(rows)
        }
    }
}

impl Real for F32x16 {
    /// One bit per lane, in a mask register.
    type Mask = u16;

    #[inline(always)]
    fn splat(x: f32) -> F32x16 {
        // SAFETY: as for the operators.
        F32x16(unsafe { _mm512_set1_ps(x) })
    }
    #[inline(always)]
    fn sqrt(self) -> F32x16 {
        // SAFETY: as for the operators.
        F32x16(unsafe { _mm512_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn gt(self, o: F32x16) -> u16 {
        // SAFETY: as for the operators.
        unsafe { _mm512_cmp_ps_mask::<_CMP_GT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn lt(self, o: F32x16) -> u16 {
        // SAFETY: as for the operators.
        unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn ge(self, o: F32x16) -> u16 {
        // SAFETY: as for the operators.
        unsafe { _mm512_cmp_ps_mask::<_CMP_GE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn select(m: u16, a: F32x16, b: F32x16) -> F32x16 {
        // SAFETY: as for the operators. (Takes the second operand where the mask is set.)
        F32x16(unsafe { _mm512_mask_blend_ps(m, b.0, a.0) })
    }
    #[inline(always)]
    fn all(m: u16) -> bool {
        m == u16::MAX
    }
    #[inline(always)]
    fn floor(self) -> F32x16 {
        // SAFETY: as for the operators.
        F32x16(unsafe {
            _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(self.0)
        })
    }
    #[inline(always)]
    fn max(self, o: F32x16) -> F32x16 {
        // SAFETY: as for the operators. (As for `F32x8`: the default's select.)
        F32x16(unsafe { _mm512_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn min(self, o: F32x16) -> F32x16 {
        // SAFETY: as for the operators. (As for `F32x8`.)
        F32x16(unsafe { _mm512_min_ps(self.0, o.0) })
    }
}

impl Real for F32x8x2 {
    type Mask = Mask8x2;
    const CROWDED: bool = true;

    #[inline(always)]
    fn splat(x: f32) -> F32x8x2 {
        F32x8x2(F32x8::splat(x), F32x8::splat(x))
    }
    #[inline(always)]
    fn sqrt(self) -> F32x8x2 {
        F32x8x2(self.0.sqrt(), self.1.sqrt())
    }
    #[inline(always)]
    fn gt(self, o: F32x8x2) -> Mask8x2 {
        Mask8x2(self.0.gt(o.0), self.1.gt(o.1))
    }
    #[inline(always)]
    fn lt(self, o: F32x8x2) -> Mask8x2 {
        Mask8x2(self.0.lt(o.0), self.1.lt(o.1))
    }
    #[inline(always)]
    fn ge(self, o: F32x8x2) -> Mask8x2 {
        Mask8x2(self.0.ge(o.0), self.1.ge(o.1))
    }
    #[inline(always)]
    fn select(m: Mask8x2, a: F32x8x2, b: F32x8x2) -> F32x8x2 {
        F32x8x2(F32x8::select(m.0, a.0, b.0), F32x8::select(m.1, a.1, b.1))
    }
    #[inline(always)]
    fn all(m: Mask8x2) -> bool {
        F32x8::all(m.0) & F32x8::all(m.1)
    }
    #[inline(always)]
    fn floor(self) -> F32x8x2 {
        F32x8x2(self.0.floor(), self.1.floor())
    }
    #[inline(always)]
    fn max(self, o: F32x8x2) -> F32x8x2 {
        F32x8x2(self.0.max(o.0), self.1.max(o.1))
    }
    #[inline(always)]
    fn min(self, o: F32x8x2) -> F32x8x2 {
        F32x8x2(self.0.min(o.0), self.1.min(o.1))
    }
}

impl Lanes16 for F32x8x2 {
    type Half = F32x8;
    #[inline(always)]
    fn join(lo: F32x8, hi: F32x8) -> F32x8x2 {
        F32x8x2(lo, hi)
    }
    #[inline(always)]
    fn split(self) -> [F32x8; 2] {
        [self.0, self.1]
    }
}

impl Lanes16 for F32x16 {
    type Half = F32x8;
    #[inline(always)]
    fn join(lo: F32x8, hi: F32x8) -> F32x16 {
        // SAFETY: as for the operators. (AVX-512F inserts 256 bits as four doubles; the bits
        // are moved, not converted.)
        F32x16(unsafe {
            let lo = _mm512_castpd256_pd512(_mm256_castps_pd(lo.0));
            _mm512_castpd_ps(_mm512_insertf64x4::<1>(lo, _mm256_castps_pd(hi.0)))
        })
    }
    #[inline(always)]
    fn load_halves(lo: &[f32; LANES], hi: &[f32; LANES]) -> F32x16 {
        // SAFETY: as for the operators; `lo` holds the 32 bytes the asm reads, and it only
        // reads them. (The low half is loaded by asm, which the compiler cannot widen: from
        // intrinsics it made of it a 64-byte load whose upper half the insert overwrote, that
        // used both load ports' width, and crossed a cache line wherever the field did not
        // start one, since a batch is aligned to 32 bytes, not 64.)
        unsafe {
            let low = _mm512_castpd256_pd512(_mm256_castps_pd(load_ymm(lo)));
            let high = _mm256_castps_pd(_mm256_loadu_ps(hi.as_ptr()));
            F32x16(_mm512_castpd_ps(_mm512_insertf64x4::<1>(low, high)))
        }
    }
    #[inline(always)]
    fn split(self) -> [F32x8; 2] {
        // SAFETY: as for the operators.
        unsafe {
            let hi = _mm512_extractf64x4_pd::<1>(_mm512_castps_pd(self.0));
            [
                F32x8(_mm512_castps512_ps256(self.0)),
                F32x8(_mm256_castpd_ps(hi)),
            ]
        }
    }
    #[inline(always)]
    fn transpose_pairs(r: [F32x16; LANES]) -> [F32x16; LANES] {
        // SAFETY: as for the operators.
        unsafe {
            // Each row holds a row of the first batch beside one of the second: the steps of
            // the eight-lane transpose run in both 256-bit halves at once, which takes half the
            // shuffles of two transposes and a join per column.
            let r = [
                r[0].0, r[1].0, r[2].0, r[3].0, r[4].0, r[5].0, r[6].0, r[7].0,
            ];
            let t = [
                _mm512_unpacklo_ps(r[0], r[1]),
                _mm512_unpackhi_ps(r[0], r[1]),
                _mm512_unpacklo_ps(r[2], r[3]),
                _mm512_unpackhi_ps(r[2], r[3]),
                _mm512_unpacklo_ps(r[4], r[5]),
                _mm512_unpackhi_ps(r[4], r[5]),
                _mm512_unpacklo_ps(r[6], r[7]),
                _mm512_unpackhi_ps(r[6], r[7]),
            ];
            // In each half, u[c] holds columns c (its low 128 bits) and c + 4 (its high 128)
            // of rows 0..4, u[4 + c] the same of rows 4..8...
            let u = [
                _mm512_shuffle_ps::<0x44>(t[0], t[2]),
                _mm512_shuffle_ps::<0xee>(t[0], t[2]),
                _mm512_shuffle_ps::<0x44>(t[1], t[3]),
                _mm512_shuffle_ps::<0xee>(t[1], t[3]),
                _mm512_shuffle_ps::<0x44>(t[4], t[6]),
                _mm512_shuffle_ps::<0xee>(t[4], t[6]),
                _mm512_shuffle_ps::<0x44>(t[5], t[7]),
                _mm512_shuffle_ps::<0xee>(t[5], t[7]),
            ];
            // ...so column c is 128-bit pieces 0 of u[c] and u[4 + c], then pieces 2 of both;
            // column c + 4 pieces 1, then pieces 3.
            let low = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
            let high =
                _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
            let v = [
                _mm512_permutex2var_ps(u[0], low, u[4]),
                _mm512_permutex2var_ps(u[1], low, u[5]),
                _mm512_permutex2var_ps(u[2], low, u[6]),
                _mm512_permutex2var_ps(u[3], low, u[7]),
                _mm512_permutex2var_ps(u[0], high, u[4]),
                _mm512_permutex2var_ps(u[1], high, u[5]),
                _mm512_permutex2var_ps(u[2], high, u[6]),
                _mm512_permutex2var_ps(u[3], high, u[7]),
            ];
            array_of(|i| F32x16(v[i]))
        }
    }
    #[inline(always)]
    fn rows_of_four(x: F32x16, y: F32x16, z: F32x16) -> [[f32; 4]; 16] {
        // SAFETY: as for the operators.
        unsafe {
            let zero = _mm512_setzero_ps();
            // Per 128 bits: (x0, y0, x1, y1), (x2, y2, x3, y3), (z0, 0, z1, 0), (z2, 0, z3, 0)...
            let t = [
                _mm512_castps_pd(_mm512_unpacklo_ps(x.0, y.0)),
                _mm512_castps_pd(_mm512_unpackhi_ps(x.0, y.0)),
                _mm512_castps_pd(_mm512_unpacklo_ps(z.0, zero)),
                _mm512_castps_pd(_mm512_unpackhi_ps(z.0, zero)),
            ];
            // ...then rows: 128-bit piece k of r[j] is lane 4k + j.
            let r = [
                _mm512_castpd_ps(_mm512_unpacklo_pd(t[0], t[2])),
                _mm512_castpd_ps(_mm512_unpackhi_pd(t[0], t[2])),
                _mm512_castpd_ps(_mm512_unpacklo_pd(t[1], t[3])),
                _mm512_castpd_ps(_mm512_unpackhi_pd(t[1], t[3])),
            ];
            // (A macro, not a closure: see `transpose_pairs`.)
            macro_rules! pieces {
                ($k:literal) => {
                    [
                        _mm512_extractf32x4_ps::<$k>(r[0]),
                        _mm512_extractf32x4_ps::<$k>(r[1]),
                        _mm512_extractf32x4_ps::<$k>(r[2]),
                        _mm512_extractf32x4_ps::<$k>(r[3]),
                    ]
                };
            }
            let rows: [[__m128; 4]; 4] = [pieces!(0), pieces!(1), pieces!(2), pieces!(3)];
            core::mem::transmute::<[[__m128; 4]; 4], [[f32; 4]; 16]>(rows)
        }
    }
}

/// The eight floats of `x` by one 32-byte load that the compiler cannot merge with others (see
/// `F32x16::load_halves`). (`#[inline]`, not `always`, which target features rule out: it is
/// inlined into the entry points, whose features include AVX.)
///
/// # Safety
/// The CPU has AVX.
#[inline]
#[target_feature(enable = "avx")]
unsafe fn load_ymm(x: &[f32; LANES]) -> __m256 {
    let y: __m256;
    // SAFETY: the caller's promise; `x` holds the 32 bytes read, and the asm only reads them.
    unsafe {
        core::arch::asm!(
            "vmovups {y}, ymmword ptr [{at}]",
            y = out(ymm_reg) y,
            at = in(reg) x.as_ptr(),
            options(pure, readonly, nostack, preserves_flags),
        )
    };
    y
}

/// [`recycle::scalar::body_poses`] four bodies to a 256-bit register, each body's pair of
/// floats side by side as the columns hold them: `c * l` and the swapped `s * l` give both
/// words of the rotated local centre in one add-subtract (even words `c lx - s ly`, odd
/// `c ly + s lx`, the scalar's sum in the other order, which rounds the same), and the
/// origins and rotations are interleaved into the poses. The last few bodies go one by one.
/// Inlined into entry points compiled with AVX2.
#[inline(always)]
fn body_poses_by_four(
    center: &[[f32; 2]],
    rotation: &[[f32; 2]],
    local_center: &[[f32; 2]],
    poses: &mut [BodyPose],
) {
    let n = poses.len();
    assert!(center.len() == n && rotation.len() == n && local_center.len() == n);
    let fours = n / 4 * 4;
    let columns = center.chunks_exact(4).zip(rotation.chunks_exact(4));
    let bodies = columns.zip(local_center.chunks_exact(4));
    for (out, ((c, q), l)) in poses[..fours].chunks_exact_mut(4).zip(bodies) {
        // SAFETY: the entry points run this only where the CPU has AVX2; each chunk holds
        // the four pairs of floats (32 bytes) read, and `out` the four poses (64 bytes)
        // written.
        unsafe {
            let c = _mm256_loadu_ps(c.as_ptr().cast());
            let q = _mm256_loadu_ps(q.as_ptr().cast());
            let l = _mm256_loadu_ps(l.as_ptr().cast());
            let cos = _mm256_moveldup_ps(q);
            let sin = _mm256_movehdup_ps(q);
            let swapped = _mm256_permute_ps::<0b1011_0001>(l);
            let turned = _mm256_addsub_ps(_mm256_mul_ps(cos, l), _mm256_mul_ps(sin, swapped));
            let origin = _mm256_castps_pd(_mm256_sub_ps(c, turned));
            let q = _mm256_castps_pd(q);
            // Bodies 0 and 2, then 1 and 3, each origin beside its rotation...
            let even = _mm256_castpd_ps(_mm256_unpacklo_pd(origin, q));
            let odd = _mm256_castpd_ps(_mm256_unpackhi_pd(origin, q));
            // ...then in order.
            let out = out.as_mut_ptr().cast::<f32>();
            _mm256_storeu_ps(out, _mm256_permute2f128_ps::<0x20>(even, odd));
            _mm256_storeu_ps(out.add(8), _mm256_permute2f128_ps::<0x31>(even, odd));
        }
    }
    let rest = fours..n;
    recycle::scalar::body_poses(
        &center[rest.clone()],
        &rotation[rest.clone()],
        &local_center[rest.clone()],
        &mut poses[rest],
    );
}

/// [`bounds::scalar::body_boxes`] four bodies to a 256-bit register, each body's pair of
/// floats side by side as the columns hold them (as [`body_poses_by_four`] turns them): the
/// shapes' eight floats transpose into pairs of centres, half extents and radii, each body's
/// growth is found four at a time and doubled into its pair, and the lower and upper corners
/// are interleaved into the boxes. Sums of two products are the scalar's in the other order,
/// which rounds the same. The last few bodies go one by one. Inlined into entry points
/// compiled with AVX2.
#[inline(always)]
fn body_boxes_by_four(b: &BoxBodies, p: &BoxParams, out: &mut [[f32; 4]]) {
    let n = out.len();
    assert_eq!(b.len(), n, "one box per body");
    let fours = n / 4 * 4;
    for k in (0..fours).step_by(4) {
        // SAFETY: the entry points run this only where the CPU has AVX2; `k + 4 <= n`, so each
        // column holds the four entries read from `k` on, and `out` the four boxes written.
        unsafe {
            // Macros, not closures: a closure would not be compiled with the entry point's
            // features (see `transpose_pairs`).
            macro_rules! pairs {
                ($column:expr) => {
                    _mm256_loadu_ps($column.as_ptr().add(k).cast())
                };
            }
            macro_rules! shape {
                ($j:expr) => {
                    _mm256_castps_pd(_mm256_loadu_ps(
                        (&b.shape[k + $j] as *const BoxShape).cast(),
                    ))
                };
            }
            macro_rules! fours {
                ($column:expr) => {
                    _mm_loadu_ps($column.as_ptr().add(k))
                };
            }
            let (center, q, local) = (pairs!(b.center), pairs!(b.rotation), pairs!(b.local_center));
            let cos = _mm256_moveldup_ps(q);
            let sin = _mm256_movehdup_ps(q);
            // A vector of pairs turned by each body's rotation.
            macro_rules! turn {
                ($v:expr) => {{
                    let v = $v;
                    let swapped = _mm256_permute_ps::<0b1011_0001>(v);
                    _mm256_addsub_ps(_mm256_mul_ps(cos, v), _mm256_mul_ps(sin, swapped))
                }};
            }
            let origin = _mm256_sub_ps(center, turn!(local));
            // Each shape is (centre | half | radius | pad) in 64-bit words: pairs of bodies
            // 0, 1 and 2, 3 first, then the four of each.
            let (s0, s1, s2, s3) = (shape!(0), shape!(1), shape!(2), shape!(3));
            let (low01, low23) = (_mm256_unpacklo_pd(s0, s1), _mm256_unpacklo_pd(s2, s3));
            let (high01, high23) = (_mm256_unpackhi_pd(s0, s1), _mm256_unpackhi_pd(s2, s3));
            let local_box = _mm256_castpd_ps(_mm256_permute2f128_pd::<0x20>(low01, low23));
            let radius = _mm256_castpd_ps(_mm256_permute2f128_pd::<0x31>(low01, low23));
            let half = _mm256_castpd_ps(_mm256_permute2f128_pd::<0x20>(high01, high23));
            let box_center = _mm256_add_ps(turn!(local_box), origin);
            let magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX));
            let (cos, sin) = (_mm256_and_ps(cos, magnitude), _mm256_and_ps(sin, magnitude));
            let swapped_half = _mm256_permute_ps::<0b1011_0001>(half);
            let extent = _mm256_add_ps(_mm256_mul_ps(cos, half), _mm256_mul_ps(sin, swapped_half));
            let spin = _mm_and_ps(fours!(b.angular), _mm256_castps256_ps128(magnitude));
            let spin = _mm_mul_ps(_mm_mul_ps(spin, _mm_set1_ps(p.dt)), fours!(b.reach));
            let grow = _mm_add_ps(_mm_set1_ps(p.margin), spin);
            let grow = _mm256_insertf128_ps::<1>(
                _mm256_castps128_ps256(_mm_unpacklo_ps(grow, grow)),
                _mm_unpackhi_ps(grow, grow),
            );
            let motion = _mm256_mul_ps(pairs!(b.linear), _mm256_set1_ps(p.dt));
            let zero = _mm256_setzero_ps();
            let lower = _mm256_sub_ps(_mm256_sub_ps(box_center, extent), radius);
            let lower = _mm256_add_ps(_mm256_sub_ps(lower, grow), _mm256_min_ps(motion, zero));
            let upper = _mm256_add_ps(_mm256_add_ps(box_center, extent), radius);
            let upper = _mm256_add_ps(_mm256_add_ps(upper, grow), _mm256_max_ps(motion, zero));
            // Bodies 0 and 2, then 1 and 3, each lower corner beside its upper...
            let (lower, upper) = (_mm256_castps_pd(lower), _mm256_castps_pd(upper));
            let even = _mm256_castpd_ps(_mm256_unpacklo_pd(lower, upper));
            let odd = _mm256_castpd_ps(_mm256_unpackhi_pd(lower, upper));
            // ...then in order.
            let out = out.as_mut_ptr().add(k).cast::<f32>();
            _mm256_storeu_ps(out, _mm256_permute2f128_ps::<0x20>(even, odd));
            _mm256_storeu_ps(out.add(8), _mm256_permute2f128_ps::<0x31>(even, odd));
        }
    }
    for (i, out) in out.iter_mut().enumerate().skip(fours) {
        *out = bounds::scalar::body_box(b, i, p);
    }
}

/// Entry points that run the batch kernels with `F32x8` in a function compiled with the
/// target features `$features`, after asserting that the CPU supports `$set`. Each wraps its
/// kernel in an inner function with the features: the generic kernel and the vector methods
/// are inlined into it, so that they are compiled with those features too. `$crowded`: true
/// where the features give sixteen vector registers, not 32 (see `joint::relax_lanes`).
macro_rules! entry_points {
    ($set:expr, $features:literal, $crowded:literal) => {
        use super::*;

        /// Panics unless the CPU has the instructions of this module.
        #[inline(always)]
        fn check() {
            assert!($set.is_supported(), "the CPU lacks {}", $set.name());
        }

        /// [`contact::simd::prepare`] with this instruction set.
        pub fn prepare(c: &mut ContactBatch) {
            #[target_feature(enable = $features)]
            fn kernel(c: &mut ContactBatch) {
                contact::batches::prepare::<F32x8>(c)
            }
            check();
            // SAFETY: `check` made sure that the CPU has the kernel's features.
            unsafe { kernel(c) }
        }

        /// [`contact::simd::load_points`] with this instruction set.
        pub fn load_points(
            c: &mut ContactBatch,
            rows: &PointRows,
            bodies: &LaneBodies,
            gravity: [f32; 2],
        ) -> Loaded {
            #[target_feature(enable = $features)]
            fn kernel(
                c: &mut ContactBatch,
                rows: &PointRows,
                bodies: &LaneBodies,
                gravity: [f32; 2],
            ) -> Loaded {
                contact::batches::load_points::<F32x8>(c, rows, bodies, gravity)
            }
            check();
            // SAFETY: as for `prepare`.
            unsafe { kernel(c, rows, bodies, gravity) }
        }

        /// [`contact::simd::impact`] with this instruction set.
        ///
        /// # Safety
        /// As for [`contact::simd`].
        pub unsafe fn impact(c: &mut ContactBatch, states: States, p: &ImpactParams) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut ContactBatch, states: States, p: &ImpactParams) {
                contact::batches::impact::<F32x8>(c, states, p)
            }
            check();
            // SAFETY: the caller's promise, and `check` made sure that the CPU has the
            // kernel's features.
            unsafe { kernel(c, states, p) }
        }

        /// [`contact::simd::warm_start`] with this instruction set.
        ///
        /// # Safety
        /// As for [`contact::simd`].
        pub unsafe fn warm_start(c: &mut ContactBatch, states: States) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut ContactBatch, states: States) {
                contact::batches::warm_start::<F32x8>(c, states, 2)
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, states) }
        }

        /// [`contact::simd::warm_start_one_point`] with this instruction set.
        ///
        /// # Safety
        /// As for [`contact::simd`].
        pub unsafe fn warm_start_one_point(c: &mut ContactBatch, states: States) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut ContactBatch, states: States) {
                contact::batches::warm_start::<F32x8>(c, states, 1)
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, states) }
        }

        /// [`warm_start`] and [`warm_start_one_point`] on a run of batches, one after
        /// another: the one-point kernel for those whose `one_point` is set.
        ///
        /// # Safety
        /// As for [`contact::simd`], for every batch of the run.
        pub unsafe fn warm_start_run(c: &mut [ContactBatch], one_point: &[bool], states: States) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut [ContactBatch], one_point: &[bool], states: States) {
                contact::batches::warm_start_run::<F32x8>(c, one_point, states)
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, one_point, states) }
        }

        /// [`contact::simd::solve`] with this instruction set.
        ///
        /// # Safety
        /// As for [`contact::simd`].
        pub unsafe fn solve(c: &mut ContactBatch, states: States, p: &SolveParams) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut ContactBatch, states: States, p: &SolveParams) {
                contact::batches::solve::<F32x8>(c, states, p)
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, states, p) }
        }

        /// [`contact::simd::solve_one_point`] with this instruction set.
        ///
        /// # Safety
        /// As for [`contact::simd`].
        pub unsafe fn solve_one_point(c: &mut ContactBatch, states: States, p: &SolveParams) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut ContactBatch, states: States, p: &SolveParams) {
                contact::batches::solve_one_point::<F32x8>(c, states, p)
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, states, p) }
        }

        /// [`recycle::simd::recycle`] with this instruction set.
        pub fn recycle(
            c: &mut RecycleBatch,
            poses: &[BodyPose],
            pairs: &[(u32, u32); LANES],
            bases: &RecycleBases,
            p: &RecycleParams,
        ) -> RecycleLanes {
            #[target_feature(enable = $features)]
            fn kernel(
                c: &mut RecycleBatch,
                poses: &[BodyPose],
                pairs: &[(u32, u32); LANES],
                bases: &RecycleBases,
                p: &RecycleParams,
            ) -> RecycleLanes {
                recycle::batches::recycle::<F32x8>(c, poses, pairs, bases, p)
            }
            check();
            // SAFETY: as for `prepare`.
            unsafe { kernel(c, poses, pairs, bases, p) }
        }

        /// [`recycle::scalar::body_poses`] with this instruction set.
        pub fn body_poses(
            center: &[[f32; 2]],
            rotation: &[[f32; 2]],
            local_center: &[[f32; 2]],
            poses: &mut [BodyPose],
        ) {
            #[target_feature(enable = $features)]
            fn kernel(
                center: &[[f32; 2]],
                rotation: &[[f32; 2]],
                local_center: &[[f32; 2]],
                poses: &mut [BodyPose],
            ) {
                body_poses_by_four(center, rotation, local_center, poses)
            }
            check();
            // SAFETY: as for `prepare`.
            unsafe { kernel(center, rotation, local_center, poses) }
        }

        /// [`bounds::scalar::body_boxes`] with this instruction set.
        pub fn body_boxes(b: &BoxBodies, p: &BoxParams, out: &mut [[f32; 4]]) {
            #[target_feature(enable = $features)]
            fn kernel(b: &BoxBodies, p: &BoxParams, out: &mut [[f32; 4]]) {
                body_boxes_by_four(b, p, out)
            }
            check();
            // SAFETY: as for `prepare`.
            unsafe { kernel(b, p, out) }
        }

        /// [`body::integrate_velocities_simd`] with this instruction set.
        pub fn integrate_velocities(
            states: &mut [BodyState],
            body: BodyParams,
            p: &IntegrateParams,
        ) {
            #[target_feature(enable = $features)]
            fn kernel(states: &mut [BodyState], body: BodyParams, p: &IntegrateParams) {
                body::integrate_velocities_batches::<F32x8>(states, body, p)
            }
            check();
            // SAFETY: as for `prepare`.
            unsafe { kernel(states, body, p) }
        }

        /// [`body::start_simd`] with this instruction set.
        pub fn start(
            states: &mut [BodyState],
            slots: &[u32],
            columns: VelocityColumns,
            spin_bound: Option<&[f32]>,
            max_linear: f32,
            max_angular: f32,
        ) {
            #[target_feature(enable = $features)]
            fn kernel(
                states: &mut [BodyState],
                slots: &[u32],
                columns: VelocityColumns,
                spin_bound: Option<&[f32]>,
                max_linear: f32,
                max_angular: f32,
            ) {
                body::start_batches::<F32x8>(
                    states,
                    slots,
                    columns,
                    spin_bound,
                    max_linear,
                    max_angular,
                )
            }
            check();
            // SAFETY: as for `prepare`.
            unsafe { kernel(states, slots, columns, spin_bound, max_linear, max_angular) }
        }

        /// [`body::finish_simd`] with this instruction set.
        pub fn finish(
            states: &[BodyState],
            state_of: &[u32],
            c: PoseColumns,
            max_linear: f32,
            max_angular: f32,
        ) {
            #[target_feature(enable = $features)]
            fn kernel(
                states: &[BodyState],
                state_of: &[u32],
                c: PoseColumns,
                max_linear: f32,
                max_angular: f32,
            ) {
                body::finish_batches::<F32x8>(states, state_of, c, max_linear, max_angular)
            }
            check();
            // SAFETY: as for `prepare`.
            unsafe { kernel(states, state_of, c, max_linear, max_angular) }
        }

        /// [`body::integrate_positions_simd`] with this instruction set.
        pub fn integrate_positions(states: &mut [BodyState], h: f32) {
            #[target_feature(enable = $features)]
            fn kernel(states: &mut [BodyState], h: f32) {
                body::integrate_positions_batches::<F32x8>(states, h)
            }
            check();
            // SAFETY: as for `prepare`.
            unsafe { kernel(states, h) }
        }

        /// [`joint::simd::arms`] with this instruction set.
        pub fn pin_arms(c: &mut [PinStart], f: &[PinFrames], bodies: BodyFrames) {
            #[target_feature(enable = $features)]
            fn kernel(c: &mut [PinStart], f: &[PinFrames], bodies: BodyFrames) {
                for (c, f) in c.iter_mut().zip(f) {
                    joint::batches::arms::<F32x8>(c, f, bodies)
                }
            }
            check();
            // SAFETY: `check` made sure that the CPU has the kernel's features.
            unsafe { kernel(c, f, bodies) }
        }

        /// [`joint::simd::warm_start`] with this instruction set.
        ///
        /// # Safety
        /// As for [`joint::simd`].
        pub unsafe fn pin_warm_start(
            c: &mut [PinBatch],
            s: &[PinStart],
            states: States,
            first: bool,
        ) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut [PinBatch], s: &[PinStart], states: States, first: bool) {
                for (c, s) in c.iter_mut().zip(s) {
                    match first {
                        true => joint::batches::warm_start::<F32x8>(c, s, states),
                        false => joint::batches::warm_start_kept::<F32x8>(c, states),
                    }
                }
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, s, states, first) }
        }

        /// [`joint::simd::solve`] with this instruction set.
        ///
        /// # Safety
        /// As for [`joint::simd`].
        pub unsafe fn pin_solve(c: &mut [PinBatch], states: States, p: &PinParams) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut [PinBatch], states: States, p: &PinParams) {
                for c in c {
                    joint::batches::solve::<F32x8>(c, states, p)
                }
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, states, p) }
        }

        /// [`joint::simd::relax`] with this instruction set.
        ///
        /// # Safety
        /// As for [`joint::simd`].
        pub unsafe fn pin_relax(c: &mut [PinBatch], s: &[PinStart], states: States, p: &PinParams) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut [PinBatch], s: &[PinStart], states: States, p: &PinParams) {
                for (c, s) in c.iter_mut().zip(s) {
                    joint::batches::relax::<F32x8, $crowded>(c, s, states, p)
                }
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, s, states, p) }
        }
    };
}

/// The two-batch kernels of [`contact::pair`] with the sixteen-lane type `$pair`, in functions
/// compiled with `$features` (see `entry_points`).
macro_rules! pair_entry_points {
    ($pair:ty, $features:literal) => {
        /// [`contact::pair::solve`] with this instruction set.
        ///
        /// # Safety
        /// As for [`contact::pair`].
        pub unsafe fn solve_pair(c: &mut [ContactBatch; 2], states: States, p: &SolveParams) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut [ContactBatch; 2], states: States, p: &SolveParams) {
                contact::batches::solve_pair::<$pair>(c, states, p)
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, states, p) }
        }

        /// A solve or relax pass over a run of batches, in order: [`solve`] or
        /// [`solve_one_point`] as each batch's `one_point` says, and with `paired` two
        /// neighbours of the same kind at once, as [`solve_pair`] and [`solve_one_point_pair`]
        /// do. The bits are those of the single-batch kernels.
        ///
        /// # Safety
        /// As for [`contact::simd`], for every batch of the run, and with `paired` as for
        /// [`contact::pair`]: no dynamic body is in two batches of the run.
        pub unsafe fn solve_run(
            c: &mut [ContactBatch],
            one_point: &[bool],
            states: States,
            p: &SolveParams,
            paired: bool,
        ) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(
                c: &mut [ContactBatch],
                one_point: &[bool],
                states: States,
                p: &SolveParams,
                paired: bool,
            ) {
                contact::batches::solve_run::<$pair>(c, one_point, states, p, paired)
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, one_point, states, p, paired) }
        }

        /// [`contact::pair::solve_one_point`] with this instruction set.
        ///
        /// # Safety
        /// As for [`contact::pair`].
        pub unsafe fn solve_one_point_pair(
            c: &mut [ContactBatch; 2],
            states: States,
            p: &SolveParams,
        ) {
            #[target_feature(enable = $features)]
            unsafe fn kernel(c: &mut [ContactBatch; 2], states: States, p: &SolveParams) {
                contact::batches::solve_one_point_pair::<$pair>(c, states, p)
            }
            check();
            // SAFETY: as for `impact`.
            unsafe { kernel(c, states, p) }
        }
    };
}

/// The kernels on 256-bit AVX2 registers, and the two-batch solves on pairs of them. Each
/// function panics where the CPU lacks AVX2.
pub mod avx2 {
    entry_points!(InstructionSet::Avx2, "avx2", true);
    pair_entry_points!(F32x8x2, "avx2");
}

/// The AVX2 kernels compiled with AVX-512F and AVX-512VL, and the two-batch solves on 512-bit
/// registers. Each function panics where the CPU lacks them. (AVX-512F implies FMA for the
/// compiler too; rustc still never fuses a multiply and an add.)
pub mod avx512 {
    entry_points!(InstructionSet::Avx512, "avx2,avx512f,avx512vl", false);
    pair_entry_points!(F32x16, "avx2,avx512f,avx512vl");
}
