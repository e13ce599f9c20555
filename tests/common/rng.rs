//! The random numbers of the tests, in a file of its own so that the crate's unit tests
//! (`src/broad_phase/tests.rs`) draw the same sequences as the integration tests.

/// The xorshift32 generator of the randomized tests: small, seeded, the same sequence on every
/// platform, so that a failing case can be rerun from its seed. Test files add the methods
/// that draw their own kinds of cases in `impl Rng` blocks of their own.
pub struct Rng(pub u32);

impl Rng {
    /// Uniform in [0, 1), with 24 bits.
    pub fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_f32() * n as f32) as usize).min(n - 1)
    }
}
