//! The speed cap survives velocities whose square overflows f32: a huge velocity set by the user
//! and an infinite one made by a huge gravity scale both come out capped and finite, the same on
//! both backends; so do the largest accelerations user forces can give, however much damping.

use batch2d_kernels::body::{
    integrate_velocities_scalar, integrate_velocities_simd, Accelerations, BodyParams,
    IntegrateParams,
};
use batch2d_kernels::BodyState;

#[test]
fn velocities_beyond_overflow_are_capped_not_zeroed_or_nan() {
    let p = IntegrateParams {
        h: 1.0 / 240.0,
        gravity: [0.0, -10.0],
        max_linear_speed: 400.0,
        max_angular_speed: 100.0,
    };
    // 11 bodies: one full SIMD chunk and a scalar tail.
    let velocities = [
        [1.0e20, 0.0],
        [-3.0e38, 2.0e38],
        [f32::MAX, f32::MAX],
        [0.0, -1.0e30],
        [5.0, 1.0e19],
        [0.0, 0.0],
        [1.0e20, 0.0],
        [0.0, 0.0],
        [-2.0e20, -2.0e20],
        [0.0, 0.0],
        [3.0, 4.0],
    ];
    let n = velocities.len();
    let states: Vec<BodyState> = velocities
        .iter()
        .map(|&v| BodyState::with_velocity(v, 0.0))
        .collect();
    // Bodies 5, 7 and 9 start at rest with a gravity scale that overflows one substep's gravity
    // to -infinity.
    let mut gravity_scale = vec![1.0f32; n];
    for k in [5, 7, 9] {
        gravity_scale[k] = f32::MAX;
    }
    let zeros = vec![0.0f32; n];
    let body = BodyParams {
        gravity_scale: &gravity_scale,
        linear_damping: &zeros,
        angular_damping: &zeros,
        acceleration: None,
        spin_bound: None,
    };
    let (mut a, mut b) = (states.clone(), states.clone());
    integrate_velocities_simd(&mut a, body, &p);
    integrate_velocities_scalar(&mut b, body, &p);
    for (k, (sa, sb)) in a.iter().zip(&b).enumerate() {
        assert_eq!(sa.v.map(f32::to_bits), sb.v.map(f32::to_bits), "body {k}");
        let speed = (sa.v[0] * sa.v[0] + sa.v[1] * sa.v[1]).sqrt();
        assert!(sa.v.iter().all(|x| x.is_finite()), "body {k}: {:?}", sa.v);
        if k == 10 {
            // A slow body only gains one substep of gravity.
            assert!((speed - 5.0).abs() < 0.1, "body {k}: {speed}");
            continue;
        }
        // Everyone else was far beyond the cap: now at the cap, in the same quadrant.
        assert!(
            (speed - 400.0).abs() <= 0.01 * 400.0,
            "body {k}: speed {speed}"
        );
        let start = velocities[k];
        for (axis, (&now, &then)) in sa.v.iter().zip(&start).enumerate() {
            if then != 0.0 {
                assert_eq!(now > 0.0, then > 0.0, "body {k} axis {axis}");
            }
        }
    }
    // Gravity pulled the resting ones down.
    for k in [5, 7, 9] {
        assert!(a[k].v[1] < 0.0);
    }
}

#[test]
fn the_largest_force_accelerations_stay_finite_under_any_damping() {
    let p = IntegrateParams {
        h: 1.0 / 240.0,
        gravity: [0.0, -10.0],
        max_linear_speed: 400.0,
        max_angular_speed: 100.0,
    };
    // 9 bodies: one full SIMD chunk and a scalar tail. Accelerations of +-f32::MAX (the largest
    // the world hands over) overflow one substep's velocity change to infinity; it must come
    // out capped, without damping and with the largest.
    let n = 9;
    let states = vec![BodyState::with_velocity([1.0, -2.0], 3.0); n];
    let sign = |k: usize| if k.is_multiple_of(2) { 1.0 } else { -1.0 };
    let ax: Vec<f32> = (0..n).map(|k| sign(k) * f32::MAX).collect();
    let ay: Vec<f32> = (0..n).map(|k| -sign(k) * f32::MAX).collect();
    let alpha: Vec<f32> = (0..n).map(|k| sign(k + 1) * f32::MAX).collect();
    let ones = vec![1.0f32; n];
    let damping: Vec<f32> = (0..n)
        .map(|k| if k % 3 == 0 { f32::MAX } else { 0.0 })
        .collect();
    let body = BodyParams {
        gravity_scale: &ones,
        linear_damping: &damping,
        angular_damping: &damping,
        acceleration: Some(Accelerations {
            x: &ax,
            y: &ay,
            angular: &alpha,
        }),
        spin_bound: None,
    };
    let (mut a, mut b) = (states.clone(), states.clone());
    integrate_velocities_simd(&mut a, body, &p);
    integrate_velocities_scalar(&mut b, body, &p);
    for (k, (sa, sb)) in a.iter().zip(&b).enumerate() {
        assert_eq!(sa.v.map(f32::to_bits), sb.v.map(f32::to_bits), "body {k}");
        assert_eq!(sa.w.to_bits(), sb.w.to_bits(), "body {k}");
        assert!(sa.v.iter().all(|x| x.is_finite()), "body {k}: {:?}", sa.v);
        assert!(
            sa.w.is_finite() && sa.w.abs() <= p.max_angular_speed,
            "body {k}: {}",
            sa.w
        );
        let speed = (sa.v[0] * sa.v[0] + sa.v[1] * sa.v[1]).sqrt();
        assert!(
            speed <= p.max_linear_speed * (1.0 + 1e-6),
            "body {k}: {speed}"
        );
    }
}
