//! Limits beyond which f32 state would overflow: inputs past them are refused with `Err` rather
//! than simulated into infinities and NaN.

use crate::error::Error;
use crate::geometry::math::{Transform, Vec2};
use crate::geometry::shape::Shape;

/// Longest time step (s) [`World::step`](crate::World::step) takes. The speed caps, the
/// speculative contact margins and the continuous sweeps judge a step's motion from its start:
/// over steps of seconds a body's path bends too far from that for them to hold it (a box
/// resting on a 2 m thick ground was 20 km below it after ten steps of 10 s). At 1 s a resting
/// or falling body still stays on the ground; one that slides and turns fast sinks into it by
/// part of its size, so steps this long are for coarse previews. A longer interval is
/// simulated as several steps, which a [`FixedStepper`](crate::FixedStepper) does.
pub(crate) const MAX_TIME_STEP: f32 = 1.0;

/// `Err(InvalidParameter)` unless `dt` is finite, positive and at most [`MAX_TIME_STEP`].
pub(crate) fn check_time_step(dt: f32) -> Result<(), Error> {
    if !(dt.is_finite() && dt > 0.0) {
        return Err(Error::InvalidParameter(format!(
            "time step must be finite and > 0, got {dt}"
        )));
    }
    if dt > MAX_TIME_STEP {
        return Err(Error::InvalidParameter(format!(
            "time step {dt} s is longer than the longest supported, {MAX_TIME_STEP} s: take several shorter steps"
        )));
    }
    Ok(())
}

/// Largest speed (m/s, per axis) and angular speed (rad/s) a body may be given. The solver
/// multiplies velocities by lever arms (up to [`MAX_SHAPE_REACH`]) and subtracts those of two
/// bodies before the speed caps apply; an angular velocity of 3.4e38 made that infinite, then
/// NaN (found by the fuzzer). 1e30 keeps every such product finite; the caps bring the body
/// down to `max_linear_speed` in its first substep anyway.
pub(crate) const MAX_INPUT_SPEED: f32 = 1.0e30;

/// Heaviest dynamic body (kg). Contact impulses are effective masses times velocity errors, and
/// the solver multiplies them by lever arms and inverse inertias: a body of 3.4e38 kg (a density
/// of f32::MAX) struck at 100 m/s needed an impulse beyond f32's range and turned NaN (found by
/// the fuzz target). 1e20 kg, a large asteroid, leaves 18 orders of magnitude for speeds and
/// lever arms.
pub(crate) const MAX_MASS: f32 = 1.0e20;

/// `Err(InvalidParameter)` unless `mass` is at most [`MAX_MASS`].
pub(crate) fn check_mass(mass: f32) -> Result<(), Error> {
    if mass <= MAX_MASS {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "a dynamic body may weigh at most {MAX_MASS} kg, got {mass} kg"
        )))
    }
}

/// `Err(InvalidParameter)` unless both components of `v` are within [`MAX_INPUT_SPEED`].
pub(crate) fn check_linear_velocity(name: &str, v: Vec2) -> Result<(), Error> {
    if v.x.abs() <= MAX_INPUT_SPEED && v.y.abs() <= MAX_INPUT_SPEED {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "{name} must be finite and within {MAX_INPUT_SPEED} m/s per axis, got {v:?}"
        )))
    }
}

/// `Err(InvalidParameter)` unless `|w| <= MAX_INPUT_SPEED`.
pub(crate) fn check_angular_velocity(name: &str, w: f32) -> Result<(), Error> {
    if w.abs() <= MAX_INPUT_SPEED {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "{name} must be finite and within {MAX_INPUT_SPEED} rad/s, got {w}"
        )))
    }
}

/// Largest distance (m) from a body's origin to any point of its shape. A contact point lies
/// between the two surfaces, so when a shape engulfs a smaller body the lever arm of that body's
/// contact is about the big shape's size; the solver squares lever arms and multiplies them by
/// inverse inertias, which overflowed to NaN for a 2e24 m circle (found by the fuzzer). 1000 km
/// is far beyond any scene at the engine's 5 mm tolerance.
pub(crate) const MAX_SHAPE_REACH: f32 = 1.0e6;

/// `Err(InvalidShape)` when some point of `shape` lies more than [`MAX_SHAPE_REACH`] from the
/// body origin.
pub(crate) fn check_shape_reach(shape: &Shape) -> Result<(), Error> {
    let reach = shape.reach_from(Vec2::ZERO);
    if reach <= MAX_SHAPE_REACH {
        Ok(())
    } else {
        Err(Error::InvalidShape(format!(
            "shape reaches {reach} m from its body origin, more than {MAX_SHAPE_REACH} m"
        )))
    }
}

/// `Err(InvalidParameter)` unless a body whose origin is placed by `xf`, with its centre of
/// mass at `center`, stays within the finite range of f32 however it turns.
///
/// A finite position plus a finite offset in the body frame can round to infinity near
/// `f32::MAX`, and a body turning about its centre of mass swings its origin around it at the
/// distance between the two, and its shape within the shape's reach. The disk of the larger
/// of the two about the centre must be representable. The distance is bounded by `|dx| + |dy|`,
/// which unlike a length cannot overflow while the offset itself is finite.
pub(crate) fn check_placement(shape: &Shape, xf: Transform, center: Vec2) -> Result<(), Error> {
    let offset = center - xf.p;
    let swing = offset.x.abs() + offset.y.abs();
    let reach = shape.reach_from(xf.inv_apply(center));
    let radius = swing.max(reach);
    let fits = reach.is_finite()
        && (center.x.abs() + radius).is_finite()
        && (center.y.abs() + radius).is_finite();
    if fits {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "body placed at {:?} reaches beyond the range of f32 when it turns: centre of mass {center:?}, reach {radius}",
            xf.p
        )))
    }
}

/// Most substeps per step. The solver lists its stages per substep and per solve pass before
/// running them, so these bounds also bound that list's memory (a few tens of MB at the limits)
/// where `u32::MAX` would exhaust it; useful values are 1 to 16.
pub(crate) const MAX_SUBSTEPS: u32 = 256;

/// Most biased solve passes per substep; see [`MAX_SUBSTEPS`].
pub(crate) const MAX_SOLVE_ITERATIONS: u32 = 256;

/// Most worker threads a world may ask for. Building a pool spawns them all at once, and every
/// parallel stage of a step wakes them all, so thousands of threads make building a world and
/// every step far slower than one thread would, however small the world. 256 is beyond the
/// cores of any machine the engine runs on, and the count is a fixed constant rather than the
/// machine's core count so that the same settings are valid everywhere.
pub(crate) const MAX_THREADS: usize = 256;

/// Largest `max_linear_speed` (m/s). The speed cap compares squared speeds, so the cap's square
/// must be finite in f32 (1e36 against f32's 3.4e38, with room for the sum of two axes); beyond
/// it the cap would never apply, and a cap of 1e38 made every step refuse its `dt`.
pub(crate) const MAX_SPEED_CAP: f32 = 1.0e18;

/// `Err(InvalidParameter)` unless both components of `v` are finite.
pub(crate) fn check_vector(name: &str, v: Vec2) -> Result<(), Error> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "{name} must be finite, got {v:?}"
        )))
    }
}
