//! The pseudo-random numbers of the unit tests: one reproducible generator, so that a test's
//! random worlds are the same on every run and machine.

/// Marsaglia's xorshift64 from `seed` (which must not be zero): each call gives the next
/// 64-bit value.
pub(crate) fn xorshift64(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
