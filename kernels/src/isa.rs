//! Which instruction set the batch kernels run on, chosen at run time.
//!
//! `wide`'s vector types pick their instructions when the crate is compiled: a plain
//! `cargo build` for x86_64 gets SSE2, whatever the CPU. On x86_64 the kernels are also compiled
//! for AVX2 and AVX-512 (see `crate::x86`), and the engine calls the widest set the CPU has.
//! Every set does the same IEEE operations per lane, so all give the same bits.

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction set of the SIMD kernels, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InstructionSet {
    /// `wide`'s portable vectors, with whatever the build targets: SSE2 (each f32x8 operation
    /// as two 128-bit halves) for a plain x86_64 build, NEON on aarch64. Always available.
    Portable,
    /// 256-bit AVX2 kernels, and the two-batch solve on pairs of 256-bit registers (x86_64).
    Avx2,
    /// The AVX2 kernels compiled with AVX-512F and AVX-512VL (32 vector registers), and the
    /// two-batch solve on 512-bit registers (x86_64).
    Avx512,
}

/// 0 before detection, else 1 + the widest set's index in [`InstructionSet::ALL`].
static WIDEST: AtomicU8 = AtomicU8::new(0);

impl InstructionSet {
    /// Every set, narrowest first.
    pub const ALL: [InstructionSet; 3] = [
        InstructionSet::Portable,
        InstructionSet::Avx2,
        InstructionSet::Avx512,
    ];

    /// The widest set this CPU supports, detected once.
    #[inline]
    pub fn widest() -> InstructionSet {
        // Every kernel entry point asks, so the answer once known is a load and a compare,
        // with detection out of the way (see `detect_widest`).
        match WIDEST.load(Ordering::Relaxed) {
            0 => detect_widest(),
            1 => InstructionSet::Portable,
            2 => InstructionSet::Avx2,
            _ => InstructionSet::Avx512,
        }
    }

    /// True if this CPU can run the kernels of this set.
    #[inline]
    pub fn is_supported(self) -> bool {
        self <= InstructionSet::widest()
    }

    /// Its name: `portable`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            InstructionSet::Portable => "portable",
            InstructionSet::Avx2 => "avx2",
            InstructionSet::Avx512 => "avx512",
        }
    }
}

/// Detects the widest set and keeps it for [`InstructionSet::widest`]: once per process, so
/// not inlined into the callers.
#[cold]
#[inline(never)]
fn detect_widest() -> InstructionSet {
    let widest = detect();
    let index = InstructionSet::ALL.iter().position(|&s| s == widest);
    WIDEST.store(1 + index.unwrap_or(0) as u8, Ordering::Relaxed);
    widest
}

#[cfg(target_arch = "x86_64")]
fn detect() -> InstructionSet {
    // (The standard library checks that the OS saves the wide registers, too.)
    let avx2 = is_x86_feature_detected!("avx2");
    if avx2 && is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
        InstructionSet::Avx512
    } else if avx2 {
        InstructionSet::Avx2
    } else {
        InstructionSet::Portable
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> InstructionSet {
    InstructionSet::Portable
}

/// True where the portable kernel of [`pair`](crate::contact::pair) runs on 512-bit registers
/// (a build for AVX-512); elsewhere `wide` makes each f32x16 operation two f32x8 ones, which the
/// engine does not use for speed.
pub const NATIVE_PAIRS: bool = cfg!(target_feature = "avx512f");

/// What the portable kernels were compiled for.
fn portable() -> &'static str {
    if NATIVE_PAIRS {
        "avx512 (compiled in: f32x8 kernels with AVX-512VL, f32x16 solve pairs)"
    } else if cfg!(target_feature = "avx2") {
        "avx2 (compiled in)"
    } else if cfg!(target_feature = "avx") {
        "avx (compiled in)"
    } else if cfg!(target_feature = "sse2") {
        "sse2 (f32x8 as two 128-bit halves)"
    } else if cfg!(target_feature = "neon") {
        "neon (f32x8 as two 128-bit halves)"
    } else {
        "scalar fallback"
    }
}

/// The instruction set that the SIMD backend uses by default: the widest this CPU has.
pub fn instruction_set() -> &'static str {
    match InstructionSet::widest() {
        InstructionSet::Avx512 => {
            "avx512 (detected at run time: f32x8 kernels with AVX-512VL, f32x16 solve pairs)"
        }
        InstructionSet::Avx2 => {
            "avx2 (detected at run time: f32x8 kernels, solve pairs on two registers)"
        }
        InstructionSet::Portable => portable(),
    }
}
