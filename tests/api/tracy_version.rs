//! profiling/README.md names the Tracy that the locked `tracy-client-sys` bundles: a Tracy
//! profiler or capture of another protocol refuses the connection and records nothing, so
//! the docs must follow every move of `Cargo.lock`.
//!
//! The README's line `tracy-client-sys X (Tracy A.B.C, protocol N)` must name the locked
//! version exactly; where the crate's source is in Cargo's registry (any build with the
//! `tracy` feature, or `cargo fetch`, puts it there), the Tracy version and protocol are also
//! read from the sources it bundles.

use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The version of `name` in Cargo.lock (the one entry of that name).
fn locked_version(lock: &str, name: &str) -> String {
    let header = format!("name = \"{name}\"\n");
    let mut found = lock
        .match_indices(&header)
        .map(|(i, _)| &lock[i + header.len()..]);
    let after = found
        .next()
        .unwrap_or_else(|| panic!("{name} is not in Cargo.lock"));
    assert!(
        found.next().is_none(),
        "two versions of {name} in Cargo.lock"
    );
    let line = after.lines().next().unwrap();
    line.strip_prefix("version = \"")
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no version line after {name} in Cargo.lock: {line}"))
        .to_string()
}

/// What the README says: (tracy-client-sys version, Tracy version, protocol), from its one
/// `tracy-client-sys` X (Tracy A.B.C, protocol N) on a line.
fn documented(readme: &str) -> (String, String, u32) {
    let parse = |line: &str| {
        let (_, rest) = line.split_once("`tracy-client-sys` ")?;
        let (sys, rest) = rest.split_once(" (Tracy ")?;
        let (tracy, rest) = rest.split_once(", protocol ")?;
        let protocol = rest.split(')').next()?.parse().ok()?;
        Some((sys.to_string(), tracy.to_string(), protocol))
    };
    let mut found = readme.lines().filter_map(parse);
    let doc = found.next().expect(
        "profiling/README.md says `tracy-client-sys` X (Tracy A.B.C, protocol N) on one line",
    );
    assert!(
        found.next().is_none(),
        "profiling/README.md names two versions"
    );
    doc
}

/// The `= N;` value of `constexpr ... name = N;` in a Tracy header.
fn constant(header: &str, name: &str) -> u32 {
    let at = header
        .find(&format!(" {name} = "))
        .unwrap_or_else(|| panic!("{name} in the Tracy header"));
    let rest = &header[at + name.len() + 4..];
    rest[..rest.find(';').unwrap()].trim().parse().unwrap()
}

/// The Tracy sources bundled by `tracy-client-sys` `version`, if Cargo has unpacked them.
fn bundled_tracy(version: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let registries = fs::read_dir(home.join("registry").join("src")).ok()?;
    registries
        .filter_map(|r| r.ok())
        .map(|r| {
            r.path()
                .join(format!("tracy-client-sys-{version}"))
                .join("tracy")
        })
        .find(|dir| dir.is_dir())
}

#[test]
fn profiling_readme_names_the_locked_tracy() {
    let lock = fs::read_to_string(repo().join("Cargo.lock")).unwrap();
    let readme = fs::read_to_string(repo().join("profiling/README.md")).unwrap();
    let sys = locked_version(&lock, "tracy-client-sys");
    let (doc_sys, doc_tracy, doc_protocol) = documented(&readme);
    assert_eq!(
        doc_sys, sys,
        "Cargo.lock has tracy-client-sys {sys}, profiling/README.md documents {doc_sys}: look up \
         the Tracy it bundles (tracy/common/TracyVersion.hpp and TracyProtocol.hpp in the crate) \
         and update the README"
    );
    match bundled_tracy(&sys) {
        Some(dir) => {
            let version = fs::read_to_string(dir.join("common/TracyVersion.hpp")).unwrap();
            let protocol = fs::read_to_string(dir.join("common/TracyProtocol.hpp")).unwrap();
            let bundled = format!(
                "{}.{}.{}",
                constant(&version, "Major"),
                constant(&version, "Minor"),
                constant(&version, "Patch")
            );
            assert_eq!(
                doc_tracy, bundled,
                "the Tracy version in profiling/README.md"
            );
            let bundled_protocol = constant(&protocol, "ProtocolVersion");
            assert_eq!(
                doc_protocol, bundled_protocol,
                "the protocol in profiling/README.md"
            );
        }
        None => eprintln!(
            "tracy-client-sys {sys} is not unpacked in Cargo's registry (run `cargo fetch`): \
             checked the README against Cargo.lock only"
        ),
    }
}
