//! Limits beyond which f32 state would overflow: inputs past them are refused with `Err` rather
//! than simulated into infinities and NaN.

use crate::error::Error;
use crate::math::{Transform, Vec2};
use crate::shape::Shape;
use crate::world::WorldSettings;

/// Farthest a body may travel in one step at the speed cap (m). The spacing of f32 values near
/// `f32::MAX` is about 2e31, so a move this short can never round a finite position up to
/// infinity, while no step a simulation could mean comes anywhere near it (400 m/s for a year
/// is 1.3e10 m).
pub(crate) const MAX_STEP_TRAVEL: f32 = 1.0e30;

/// `Err(InvalidParameter)` unless `dt` is finite, positive, and short enough that a body at
/// `settings.max_linear_speed` moves at most [`MAX_STEP_TRAVEL`] in it.
pub(crate) fn check_time_step(dt: f32, settings: &WorldSettings) -> Result<(), Error> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(Error::InvalidParameter(format!(
            "time step must be finite and > 0, got {dt}"
        )));
    }
    // Both factors are finite and positive here, so the product is never NaN; it may be inf.
    let travel = dt * settings.max_linear_speed;
    if travel > MAX_STEP_TRAVEL {
        return Err(Error::InvalidParameter(format!(
            "time step {dt} s at max_linear_speed {} m/s moves a body {travel} m, beyond {MAX_STEP_TRAVEL} m",
            settings.max_linear_speed
        )));
    }
    Ok(())
}

/// `Err(InvalidParameter)` unless a body whose origin is placed by `xf`, with its centre of
/// mass at `center`, has that centre and its whole shape within the finite range of f32: a
/// finite position plus a finite offset in the body frame can still round to infinity near
/// `f32::MAX`.
pub(crate) fn check_placement(shape: &Shape, xf: Transform, center: Vec2) -> Result<(), Error> {
    let bounds = shape.aabb(xf);
    if center.is_finite() && bounds.min.is_finite() && bounds.max.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "body placed at {:?} reaches beyond the range of f32: centre of mass {center:?}, bounds {bounds:?}",
            xf.p
        )))
    }
}
