//! The one error type of the public API. Every fallible call leaves the world unchanged on `Err`.

use std::fmt;

/// What was wrong with a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The `BodyId` was removed, never existed, or belongs to another world.
    InvalidBody,
    /// The `JointId` was removed (directly or with one of its bodies), never existed, or
    /// belongs to another world.
    InvalidJoint,
    /// A shape that cannot be simulated: non-finite values, non-positive sizes, a degenerate or
    /// too large polygon. The text says which.
    InvalidShape(String),
    /// Any other out-of-range argument (time step, density, friction, restitution, settings...).
    /// The text names the parameter and the value.
    InvalidParameter(String),
    /// More pairs of shapes overlapped in a step than
    /// [`WorldSettings::max_pairs`](crate::WorldSettings::max_pairs) allows, which bounds the step's memory: the step was
    /// not taken and the world is as it was before it. Bodies piled up at one point cause it;
    /// separate or remove some, or create the world with a larger limit.
    TooManyPairs {
        /// The limit of the step: [`WorldSettings::pair_limit`](crate::WorldSettings::pair_limit)
        /// of the world's settings and body count.
        max_pairs: usize,
    },
    /// A user hook (the pre-solve hook of [`World::set_pre_solve`](crate::World::set_pre_solve)
    /// or the pair filter of [`World::set_pair_filter`](crate::World::set_pair_filter)) panicked
    /// during a step: the panic was caught, the step was not taken and the world is as it was
    /// before it. The text says which hook, on which contact, and the panic's message.
    HookPanicked(String),
    /// Bytes that are not a snapshot this version of the crate can restore: truncated,
    /// corrupted, of another format version, or inconsistent (a contact naming a free slot, a
    /// joint on a removed body, a number out of range). The text says what was wrong first.
    InvalidSnapshot(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidBody => write!(
                f,
                "invalid body handle (removed, stale or from another world)"
            ),
            Error::InvalidJoint => write!(
                f,
                "invalid joint handle (removed, stale or from another world)"
            ),
            Error::InvalidShape(why) => write!(f, "invalid shape: {why}"),
            Error::InvalidParameter(why) => write!(f, "invalid parameter: {why}"),
            Error::HookPanicked(why) => write!(f, "{why} (the step was not taken)"),
            Error::InvalidSnapshot(why) => write!(f, "invalid snapshot: {why}"),
            Error::TooManyPairs { max_pairs } => write!(
                f,
                "more than {max_pairs} pairs of shapes overlap (WorldSettings::max_pairs): the step was not taken"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// `Err(InvalidParameter)` unless `value` is finite.
pub(crate) fn check_finite(name: &str, value: f32) -> Result<(), Error> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "{name} must be finite, got {value}"
        )))
    }
}

/// `Err(InvalidParameter)` unless `value` is finite and `>= 0`.
pub(crate) fn check_non_negative(name: &str, value: f32) -> Result<(), Error> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "{name} must be finite and >= 0, got {value}"
        )))
    }
}

/// The message of a caught panic, for [`Error::HookPanicked`].
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    (panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}
