//! Sine, cosine and arctangent from `+`, `-`, `*` and `/` alone, so that every platform gets
//! the same bits: the standard library's versions call the system's libm, whose results
//! differ between systems in the last bit, and a step that used them would not be
//! reproducible across machines.

use crate::real::Real;

/// Sine and cosine of `x` for `|x| <= pi / 4` (within 1e-7 there, and still within 4e-6 up to
/// `pi / 2`): the rotation of one substep, which the angular speed cap keeps that small.
/// Taylor series to the ninth and tenth power, evaluated in Horner form.
#[inline(always)]
pub fn sin_cos_small<R: Real>(x: R) -> (R, R) {
    let c = |v: f64| R::splat(v as f32);
    let x2 = x * x;
    let sin = x
        * (c(1.0)
            + x2 * (c(-1.0 / 6.0)
                + x2 * (c(1.0 / 120.0) + x2 * (c(-1.0 / 5040.0) + x2 * c(1.0 / 362_880.0)))));
    let cos = c(1.0)
        + x2 * (c(-0.5)
            + x2 * (c(1.0 / 24.0)
                + x2 * (c(-1.0 / 720.0) + x2 * (c(1.0 / 40_320.0) + x2 * c(-1.0 / 3_628_800.0)))));
    (sin, cos)
}

/// Sine and cosine of a substep's turn `x`, accurate within four turns (`|x| <= 8 pi`): where
/// a lane lies beyond an eighth of a turn, the series takes `x / 32` and the double-angle
/// formulas bring it back, five times. A lane within an eighth of a turn gets
/// [`sin_cos_small`]'s bits whatever its neighbours hold, so the SIMD lanes and the scalar
/// twin agree.
///
/// A lane beyond four turns is first brought within one by whole turns. The speed cap keeps
/// a body's turn within four turns when its velocity is integrated, but a constraint solve
/// that follows can spin a body faster still (a joint whose anchor lies far outside a tiny
/// body), and the series, doubled five times from a large argument, overflows to NaN.
#[inline(always)]
pub fn sin_cos_turn<R: Real>(x: R) -> (R, R) {
    let eighth = R::splat(std::f32::consts::FRAC_PI_4);
    let within = eighth.ge((R::splat(0.0) - x).max(x));
    let (sin, cos) = sin_cos_small(x);
    if R::all(within) {
        return (sin, cos);
    }
    let turns = R::splat(8.0 * std::f32::consts::PI);
    let x = R::select(turns.ge((R::splat(0.0) - x).max(x)), x, whole_turns_off(x));
    let (mut s, mut c) = sin_cos_small(x * R::splat(1.0 / 32.0));
    for _ in 0..5 {
        (s, c) = (R::splat(2.0) * (s * c), c * c - s * s);
    }
    (R::select(within, sin, s), R::select(within, cos, c))
}

/// `x` less the whole turns nearest to it, kept within half a turn of zero. Past about a
/// million turns an f32 holds no fraction of a turn, and the difference is rounding alone:
/// any angle in the range is then as good as another.
#[inline(always)]
fn whole_turns_off<R: Real>(x: R) -> R {
    let (pi, tau) = (std::f32::consts::PI, std::f32::consts::TAU);
    let k = (x / R::splat(tau) + R::splat(0.5)).floor();
    (x - k * R::splat(tau)).max(R::splat(-pi)).min(R::splat(pi))
}

/// Sine and cosine of any finite `x`, correctly rounded to f32 in all but rare cases (the
/// reduction and the series run in f64). NaN for a non-finite `x`.
pub fn sin_cos(x: f32) -> (f32, f32) {
    if !x.is_finite() {
        return (f32::NAN, f32::NAN);
    }
    let x = x as f64;
    // x = k pi/2 + r with |r| <= pi/4. f64's pi/2 is good to 1e-16 relative, so r keeps f32
    // accuracy for |x| up to about 1e8.
    let k = (x / std::f64::consts::FRAC_PI_2).round();
    let r = x - k * std::f64::consts::FRAC_PI_2;
    let (s, c) = series(r);
    let (s, c) = match (k as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    };
    (s as f32, c as f32)
}

/// sin and cos of `|r| <= pi / 4` in f64, to f64 rounding (Taylor to the 17th and 18th power).
fn series(r: f64) -> (f64, f64) {
    let r2 = r * r;
    let (mut s, mut c) = (0.0, 0.0);
    // Coefficients of r^(2n+1) and r^(2n), highest first.
    for n in (0..=8).rev() {
        s = s * r2 + sign(n) / factorial(2 * n + 1);
        c = c * r2 + sign(n) / factorial(2 * n);
    }
    (s * r, c)
}

fn sign(n: u32) -> f64 {
    if n.is_multiple_of(2) {
        1.0
    } else {
        -1.0
    }
}

fn factorial(n: u32) -> f64 {
    (1..=n).fold(1.0, |f, k| f * k as f64)
}

/// The angle of `(x, y)` in `(-pi, pi]`, as `f32::atan2` defines it (signed zeros, infinities
/// and NaN included), computed in f64.
pub fn atan2(y: f32, x: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    let (ax, ay) = (x.abs() as f64, y.abs() as f64);
    // The angle in [0, pi/2] of (|x|, |y|).
    let first = if ax == ay {
        if ax == 0.0 {
            0.0
        } else {
            FRAC_PI_4
        }
    } else if ay > ax {
        FRAC_PI_2 - atan_unit(ax / ay)
    } else {
        atan_unit(ay / ax)
    };
    let angle = if x.is_sign_negative() {
        PI - first
    } else {
        first
    };
    let angle = angle as f32;
    if y.is_sign_negative() {
        -angle
    } else {
        angle
    }
}

/// atan of `t` in [0, 1] (NaN-free for infinite inputs: `t` is 0 then).
fn atan_unit(t: f64) -> f64 {
    use std::f64::consts::FRAC_PI_6;
    // atan t = pi/6 + atan((t - 1/sqrt3) / (1 + t/sqrt3)) brings t under tan(pi/12), where
    // the series converges fast.
    let inv_sqrt3 = 1.0 / 3f64.sqrt();
    let (base, u) = if t > 0.267_949_192_431_122_7 {
        (FRAC_PI_6, (t - inv_sqrt3) / (1.0 + t * inv_sqrt3))
    } else {
        (0.0, t)
    };
    let u2 = u * u;
    let mut sum = 0.0;
    for n in (0..=12).rev() {
        sum = sum * u2 + sign(n) / (2 * n + 1) as f64;
    }
    base + u * sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_cos_match_the_library_within_an_ulp_or_two() {
        let mut x = -1000.0f32;
        while x < 1000.0 {
            let (s, c) = sin_cos(x);
            let (es, ec) = (x as f64).sin_cos();
            assert!((s as f64 - es).abs() <= 2.5e-7, "sin {x}: {s} against {es}");
            assert!((c as f64 - ec).abs() <= 2.5e-7, "cos {x}: {c} against {ec}");
            x += 0.0137;
        }
    }

    #[test]
    fn small_sin_cos_match_the_library_over_a_substep_turn() {
        let mut x = -std::f32::consts::FRAC_PI_2;
        while x <= std::f32::consts::FRAC_PI_2 {
            let (s, c) = sin_cos_small(x);
            let (es, ec) = (x as f64).sin_cos();
            let tol = if x.abs() <= std::f32::consts::FRAC_PI_4 {
                2e-7
            } else {
                4e-6
            };
            assert!((s as f64 - es).abs() <= tol, "sin {x}: {s} against {es}");
            assert!((c as f64 - ec).abs() <= tol, "cos {x}: {c} against {ec}");
            x += 0.001;
        }
    }

    #[test]
    fn a_turn_of_any_finite_size_has_a_unit_sine_and_cosine() {
        let mut x = 8.0 * std::f32::consts::PI;
        while x < 1e30 {
            for x in [x, -x] {
                let (s, c) = sin_cos_turn(x);
                let length = (s * s + c * c).sqrt();
                assert!((length - 1.0).abs() < 1e-5, "turn {x}: sin {s} cos {c}");
                // Within a thousand turns, the angle itself: whole turns are exact there.
                if x.abs() < 6000.0 {
                    let (es, ec) = (x as f64).sin_cos();
                    let error = (s as f64 - es).abs().max((c as f64 - ec).abs());
                    assert!(error < 1e-3, "turn {x}: sin {s} cos {c}, exact {es} {ec}");
                }
            }
            x *= 1.37;
        }
    }

    #[test]
    fn atan2_matches_the_library_and_its_special_cases() {
        for i in 0..4000 {
            let a = i as f32 * 0.00157 - std::f32::consts::PI;
            for r in [1e-30f32, 0.5, 3.0, 1e30] {
                let (s, c) = (a as f64).sin_cos();
                let (y, x) = ((r as f64 * s) as f32, (r as f64 * c) as f32);
                let got = atan2(y, x);
                let want = (y as f64).atan2(x as f64);
                assert!(
                    (got as f64 - want).abs() <= 3e-7,
                    "atan2({y}, {x}): {got} against {want}"
                );
            }
        }
        let inf = f32::INFINITY;
        for (y, x) in [
            (0.0, 0.0),
            (-0.0, 0.0),
            (0.0, -0.0),
            (-0.0, -0.0),
            (1.0, 0.0),
            (-1.0, -0.0),
            (inf, 1.0),
            (1.0, -inf),
            (-1.0, -inf),
            (inf, -inf),
            (-inf, inf),
        ] {
            let (got, want) = (atan2(y, x), y.atan2(x));
            assert_eq!(got.to_bits(), want.to_bits(), "atan2({y}, {x})");
        }
        assert!(atan2(f32::NAN, 1.0).is_nan());
    }
}
