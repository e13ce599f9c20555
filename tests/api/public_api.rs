//! The public API is pinned: `tests/api/public_api.txt` lists every name a user can reach,
//! and this test fails when the crate's list differs, so that adding, removing or renaming a
//! public item is a deliberate change. `BATCH2D_BLESS_API=1 cargo test --test api public_api`
//! writes the new list; the diff then shows what changed.
//!
//! The list is read from the source, which is cheap enough for every test run (a rustdoc JSON
//! build would not be): the names `src/lib.rs` re-exports (`batch2d::World`), the public items
//! of the modules it makes public (`batch2d::math::Vec2`), and of every public type its public
//! methods and constants (`World::step`), fields (`WorldSettings.gravity`) and variants
//! (`Backend::Simd`), wherever in `src/` their `impl` blocks are.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The text of a file without comments and without its `#[cfg(test)]` module.
fn code(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        let line = line.split("//").next().unwrap().trim_end();
        if !line.trim().is_empty() {
            lines.push(line.to_string());
        }
    }
    lines
}

/// The paths of the `pub use` statements in `lines` (top level only), as `a::b::Name`
/// strings, groups expanded one level deep (`a::{B, c::D}`).
fn pub_uses(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut statement = String::new();
    for line in lines {
        if line.starts_with("pub use ") || !statement.is_empty() {
            statement.push_str(line.trim());
            statement.push(' ');
            if !line.trim_end().ends_with(';') {
                continue;
            }
            let body = statement.trim().trim_start_matches("pub use ");
            let body = body.trim_end_matches(';').trim();
            match body.find('{') {
                Some(i) => {
                    let prefix = &body[..i];
                    let group = body[i + 1..].trim_end_matches('}');
                    for name in group.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                        out.push(format!("{prefix}{name}"));
                    }
                }
                None => out.push(body.to_string()),
            }
            statement.clear();
        }
    }
    out
}

/// The file of module path `path` (`geometry::math`), if it is one.
fn module_file(path: &str) -> Option<PathBuf> {
    let relative = path.trim_start_matches("crate::").replace("::", "/");
    let file = src().join(format!("{relative}.rs"));
    let folder = src().join(&relative).join("mod.rs");
    [file, folder].into_iter().find(|f| f.exists())
}

/// The name a top-level item line declares, with its kind: `pub fn f(` gives `("fn", "f")`.
fn item(line: &str) -> Option<(&'static str, String)> {
    let rest = line.strip_prefix("pub ")?;
    let rest = rest
        .trim_start_matches("const fn ")
        .trim_start_matches("unsafe fn ");
    for kind in [
        "fn", "struct", "enum", "trait", "type", "const", "static", "mod",
    ] {
        if let Some(name) = rest.strip_prefix(kind).and_then(|r| r.strip_prefix(' ')) {
            return Some((kind, ident(name).to_string()));
        }
    }
    if line.starts_with("pub const fn ") || line.starts_with("pub unsafe fn ") {
        return Some(("fn", ident(rest).to_string()));
    }
    None
}

/// The public surface, one name per line, sorted.
fn public_api() -> BTreeSet<String> {
    let mut api = BTreeSet::new();
    // Public type name -> kind, for the second pass.
    let mut types = BTreeMap::new();
    let lib = code(&fs::read_to_string(src().join("lib.rs")).unwrap());
    let mut note = |api: &mut BTreeSet<String>, path: String, name: &str, file: Option<PathBuf>| {
        api.insert(path.clone());
        // A re-exported module: its own public items too.
        if let Some(file) = file {
            for line in code(&fs::read_to_string(file).unwrap()) {
                if let Some((kind, item)) = item(&line) {
                    api.insert(format!("{path}::{item}"));
                    if matches!(kind, "struct" | "enum" | "trait") {
                        types.insert(item, kind);
                    }
                }
            }
        } else if name.chars().next().is_some_and(char::is_uppercase) {
            types.insert(name.to_string(), "type");
        }
    };
    for path in pub_uses(&lib) {
        if path.starts_with("batch2d_kernels::") {
            let name = path.rsplit("::").next().unwrap();
            note(&mut api, format!("batch2d::{name}"), name, None);
            continue;
        }
        let name = path.rsplit("::").next().unwrap().to_string();
        let file = module_file(&path);
        note(&mut api, format!("batch2d::{name}"), &name, file);
    }
    // `pub mod name;` and `pub mod name { pub use ..; }` of the crate root.
    let mut inline: Option<String> = None;
    let mut inline_lines = Vec::new();
    for line in &lib {
        if let Some(name) = inline.clone() {
            if line == "}" {
                for path in pub_uses(&inline_lines) {
                    let item = path.rsplit("::").next().unwrap().to_string();
                    note(&mut api, format!("batch2d::{name}::{item}"), &item, None);
                }
                inline = None;
                inline_lines.clear();
            } else {
                inline_lines.push(line.trim().to_string());
            }
        } else if let Some(rest) = line.strip_prefix("pub mod ") {
            let name = ident(rest).to_string();
            if rest.ends_with('{') {
                api.insert(format!("batch2d::{name}"));
                inline = Some(name);
            } else {
                let file = module_file(&name);
                note(&mut api, format!("batch2d::{name}"), &name, file);
            }
        }
    }
    // The public methods, constants, fields and variants of the public types.
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    for file in files {
        let lines = code(&fs::read_to_string(&file).unwrap());
        let mut owner: Option<(String, &str)> = None;
        for line in &lines {
            if line == "}" {
                owner = None;
                continue;
            }
            if !line.starts_with(' ') {
                owner = block_owner(line).filter(|(name, _)| types.contains_key(name));
                continue;
            }
            let Some((name, block)) = &owner else {
                continue;
            };
            let Some(member) = line.strip_prefix("    ") else {
                continue;
            };
            if member.starts_with(' ') {
                continue;
            }
            let entry = match *block {
                "impl" => item(member).map(|(_, m)| format!("{name}::{m}")),
                "trait" => {
                    (member.starts_with("fn ") || member.starts_with("unsafe fn ")).then(|| {
                        format!(
                            "{name}::{}",
                            ident(
                                member
                                    .trim_start_matches("unsafe ")
                                    .trim_start_matches("fn ")
                            )
                        )
                    })
                }
                "struct" => member
                    .strip_prefix("pub ")
                    .filter(|m| m.contains(':'))
                    .map(|m| format!("{name}.{}", ident(m))),
                _ => (member.chars().next().is_some_and(char::is_uppercase))
                    .then(|| format!("{name}::{}", ident(member))),
            };
            api.extend(entry);
        }
    }
    api
}

/// The type whose members the block opened by `line` holds, with the kind of block: an
/// inherent `impl`, or a public struct, enum or trait's definition.
fn block_owner(line: &str) -> Option<(String, &'static str)> {
    if !line.ends_with('{') {
        return None;
    }
    if let Some(rest) = line.strip_prefix("impl") {
        if rest.contains(" for ") {
            return None;
        }
        // `impl<T> Name<'a> {`: skip the generics, then the name.
        let mut rest = rest.trim_start();
        if rest.starts_with('<') {
            let mut depth = 0;
            let end = rest
                .char_indices()
                .find(|&(_, c)| {
                    depth += (c == '<') as i32 - (c == '>') as i32;
                    depth == 0
                })
                .map_or(rest.len(), |(i, _)| i + 1);
            rest = rest[end..].trim_start();
        }
        return Some((ident(rest).to_string(), "impl"));
    }
    let (kind, name) = item(line)?;
    match kind {
        "struct" | "enum" | "trait" => Some((name, kind)),
        _ => None,
    }
}

#[test]
fn the_public_api_is_the_checked_list() {
    let api = public_api();
    // A parser that found nothing would compare an empty list: it must see these.
    for known in [
        "batch2d::World",
        "World::step",
        "batch2d::math::Vec2",
        "Vec2::new",
        "WorldSettings.gravity",
        "Backend::Simd",
    ] {
        assert!(api.contains(known), "the API list misses {known}");
    }
    let listed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api/public_api.txt");
    let text: String = api.iter().map(|name| format!("{name}\n")).collect();
    if std::env::var_os("BATCH2D_BLESS_API").is_some() {
        fs::write(&listed, &text).unwrap();
        return;
    }
    let pinned = fs::read_to_string(&listed).unwrap_or_default();
    let pinned: BTreeSet<String> = pinned.lines().map(String::from).collect();
    let added: Vec<_> = api.difference(&pinned).collect();
    let removed: Vec<_> = pinned.difference(&api).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "the public API changed (BATCH2D_BLESS_API=1 writes the new list):\n added: {added:?}\n removed: {removed:?}"
    );
}
