//! The spring law of the joints' springs (all but a mouse joint's): coefficients that give the
//! discrete update of one substep the spring's own frequency, damping and static deflection.

use std::f32::consts::PI;

/// A spring's coefficients for one substep `h`, set so that the discrete update has the
/// spring's own frequency and damping ratio.
///
/// Applied once per substep, after the warm start, the row's impulse is
/// `-m (a v + k c) - impulse_scale acc` (`m` the row's effective mass, `v` its velocity, `c`
/// its error, `acc` the impulse warm started, `a = velocity_scale`, `k = stiffness`). With
/// `impulse_scale = 1 - a` the warm start and that term cancel, so one substep maps
/// `v' = (1 - a) v - k c`, then `c' = c + h v'`: a linear map of determinant `1 - a` and
/// trace `2 - a - h k`. The exact flow of `c'' + 2 zeta w c' + w^2 c = 0` over `h` has
/// determinant `det = e^(-2 zeta w h)` and trace `2 e^(-zeta w h) cos(w_d h)` (cosh above
/// critical damping; `w_d = w sqrt|1 - zeta^2|`). Matching both gives `a = 1 - det` and
/// `k = (1 - trace + det) / h`: the discrete spring has the continuous one's eigenvalues, so
/// its period and decay are the law's at any substep. (The soft-constraint coefficients,
/// `Softness`, applied in every pass, damp by about `w h` on top of the ratio asked for.)
///
/// A steady load, gravity `g` along the row, adds `g h` to `v` each substep before the
/// spring acts. At rest then `0 = (1 - a) g h - k c`, a deflection `(1 - a) g h / k`, not
/// Hooke's `g / w^2` (9% short at 5 Hz and a ratio of 0.7). So the spring also gives back
/// `b g h` with `b = k / (h w^2) - (1 - a)`, which makes the deflection `g / w^2` and
/// leaves the eigenvalues as they are. Gravity is the load the joint knows; a user's force
/// on the body keeps the small error.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpringLaw {
    pub(super) velocity_scale: f32,
    pub(super) stiffness: f32,
    pub(super) impulse_scale: f32,
    /// The share of the substep's gravity kick the spring gives back (`b` above).
    pub(super) feed: f32,
}

impl SpringLaw {
    pub(super) fn new(hertz: f32, zeta: f32, h: f32) -> SpringLaw {
        let (w, zeta, h) = (2.0 * PI as f64 * hertz as f64, zeta as f64, h as f64);
        let det = (-2.0 * zeta * w * h).exp();
        let decay = (-zeta * w * h).exp();
        let wd = w * (1.0 - zeta * zeta).abs().sqrt() * h;
        let trace = 2.0
            * decay
            * match zeta {
                z if z < 1.0 => wd.cos(),
                z if z > 1.0 => wd.cosh(),
                _ => 1.0,
            };
        let stiffness = (1.0 - trace + det) / h;
        SpringLaw {
            velocity_scale: (1.0 - det) as f32,
            stiffness: stiffness as f32,
            impulse_scale: det as f32,
            feed: (stiffness / (h * w * w) - det) as f32,
        }
    }
}
