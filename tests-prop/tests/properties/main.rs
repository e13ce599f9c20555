//! Property tests: random worlds driven through random calls, and every query against brute
//! force at any extent and origin. A crate of their own (`batch2d-proptests`), so that proptest
//! and its dependencies are not dev-dependencies of `batch2d`, which every example builds.
//! `cargo test --profile ci -p batch2d-proptests` runs them.

#[path = "../../../tests/common/mod.rs"]
mod common;

mod query_extents;
mod random_worlds;

/// The property tests' configuration: `default_cases` cases (`PROPTEST_CASES` overrides), from
/// a fixed seed, so that CI runs the same cases every time and a failure found there fails the
/// same way on any machine (`PROPTEST_RNG_SEED` picks another seed, for longer searches).
/// Failures found are kept in `NAME.proptest-regressions` beside the test file, which is
/// committed: every later run tries them first.
pub fn proptest_config(default_cases: u32) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse().ok());
    Config {
        cases: var("PROPTEST_CASES").map_or(default_cases, |n: u64| n as u32),
        rng_seed: RngSeed::Fixed(var("PROPTEST_RNG_SEED").unwrap_or(PROPTEST_SEED)),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..Config::default()
    }
}

/// The property tests' seed ("batch2d" in ASCII), unless `PROPTEST_RNG_SEED` says otherwise.
pub const PROPTEST_SEED: u64 = 0x0062_6174_6368_3264;
