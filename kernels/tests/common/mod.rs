//! What the kernel tests share: a seeded random source.

/// Seeded splitmix64: the same sequence on every machine.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * unit
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Now and then exactly 0.0 or -0.0, else uniform in [lo, hi).
    pub fn zero_or_range(&mut self, lo: f32, hi: f32) -> f32 {
        match self.below(16) {
            0 => 0.0,
            1 => -0.0,
            _ => self.range(lo, hi),
        }
    }

    /// Two of [`Rng::zero_or_range`].
    // Each test binary compiles this module; not every one draws pairs.
    #[allow(dead_code)]
    pub fn pair(&mut self, lo: f32, hi: f32) -> [f32; 2] {
        [self.zero_or_range(lo, hi), self.zero_or_range(lo, hi)]
    }
}
