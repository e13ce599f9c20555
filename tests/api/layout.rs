//! The layout of `src/` (see docs/architecture.md): its files import each other without a
//! cycle, and so do its parts (a folder or a top-level file), which sit in layers that import
//! only downwards, and only the public glue above `world/` names the world.
//!
//! A file is a module: `src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`. Its dependencies are the
//! `crate::` and `super::` paths in its code (comments skipped, `use` groups expanded), each
//! resolved to the deepest file it names; a name the crate root re-exports (`crate::Vec2`)
//! counts as a dependency on the file it comes from. `cargo test --test api layout:: -- --nocapture`
//! prints both graphs.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Parts that may name `World`: the world itself and what is built on it.
const ABOVE_WORLD: [&str; 3] = ["world", "scenes", "lib"];

/// The parts of `src/` in layers, top to bottom, as docs/architecture.md draws them: a part
/// imports only parts on lower rows, so the parts cannot import each other in a cycle, and a
/// new part must be given its row here.
const LAYERS: &[&[&str]] = &[
    &["lib"],
    &["scenes"],
    &["world"],
    &["continuous"],
    &["solver"],
    &["joints"],
    &["backend", "softness"],
    &["coloring"],
    &["islands"],
    &["narrow_phase"],
    &["broad_phase", "settings"],
    &["body"],
    &["body_def", "forces"],
    &["limits"],
    &["geometry"],
    &["codec"],
    &["error", "index", "disjoint", "profile", "test_rng"],
];

/// File cycles left for later, each as the files along it (the test fails while an entry is
/// no longer a cycle). None today.
const KNOWN_CYCLES: &[&[&str]] = &[];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text of `text` without its comments.
fn code(text: &str) -> String {
    let lines = text.lines().map(|line| line.split("//").next().unwrap());
    lines.collect::<Vec<_>>().join("\n")
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The paths of the use tree at the start of `s`, each appended to `prefix`: `a::{b, c::d}`
/// gives `a::b` and `a::c::d`. Returns the rest of `s`.
fn use_tree<'a>(mut s: &'a str, prefix: &[String], out: &mut Vec<Vec<String>>) -> &'a str {
    let mut path = prefix.to_vec();
    loop {
        s = s.trim_start();
        if let Some(group) = s.strip_prefix('{') {
            s = group;
            loop {
                s = use_tree(s, &path, out).trim_start();
                // Skip what follows a path in a group (`as name`), up to its end.
                let end = s.find([',', '}']).unwrap_or(s.len());
                let (skipped, rest) = s.split_at(end);
                assert!(!skipped.contains('{'), "unexpected use tree: {s:.40}");
                s = rest;
                match s.chars().next() {
                    Some(',') => s = &s[1..],
                    Some('}') => return &s[1..],
                    _ => return s,
                }
                if let Some(end) = s.trim_start().strip_prefix('}') {
                    return end;
                }
            }
        }
        let name = ident(s);
        if name.is_empty() {
            break;
        }
        if name != "self" {
            path.push(name.to_string());
        }
        s = &s[name.len()..];
        match s.trim_start().strip_prefix("::") {
            Some(rest) => s = rest,
            None => break,
        }
    }
    out.push(path);
    s
}

/// Every path after `marker` in `code`.
fn paths_after(code: &str, marker: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(marker) {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        use_tree(&code[i + marker.len()..], &[], &mut out);
    }
    out
}

/// The name each `pub use` of `src/lib.rs` gives the crate root, with the path it names.
fn root_names(lib: &str) -> BTreeMap<String, Vec<String>> {
    let mut names = BTreeMap::new();
    for path in paths_after(&code(lib), "pub use ") {
        let first = path.first().map(String::as_str);
        if first == Some("batch2d_kernels") || first == Some("crate") {
            continue;
        }
        // `pub use distance::{distance, ..}`: the function, not the module again.
        let name = path.last().unwrap().clone();
        if path.len() > 1 && !names.contains_key(&name) {
            names.insert(name, path);
        }
    }
    names
}

/// The deepest file that `path` (from the crate root) names, if it names one of the crate.
fn resolve(
    path: &[String],
    files: &BTreeSet<String>,
    names: &BTreeMap<String, Vec<String>>,
) -> Option<String> {
    let mut path = path.to_vec();
    for _ in 0..8 {
        let first = path.first()?;
        if files.contains(first) {
            let mut found = first.clone();
            let mut module = first.clone();
            for segment in &path[1..] {
                module = format!("{module}::{segment}");
                if !files.contains(&module) {
                    break;
                }
                found = module.clone();
            }
            return Some(found);
        }
        let full = names.get(first)?;
        path = full.iter().chain(&path[1..]).cloned().collect();
    }
    None
}

/// The files of `src/` as modules, with the files each depends on.
fn file_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let module_of = |path: &Path| {
        let relative = path.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<&str> = (relative.components())
            .map(|c| c.as_os_str().to_str().unwrap())
            .collect();
        if parts.last() == Some(&"mod") {
            parts.pop();
        }
        parts.join("::")
    };
    let files: BTreeSet<String> = paths.iter().map(|p| module_of(p)).collect();
    let names = root_names(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut graph = Graph::new();
    for path in &paths {
        let from = module_of(path);
        let is_mod = path.file_name().unwrap() == "mod.rs";
        let text = code(&fs::read_to_string(path).unwrap());
        let mut targets = paths_after(&text, "crate::");
        // `super::` of a file `a::b` is `a` (of a folder's `mod.rs`, the folder's parent).
        // `use super::*` is left out: in an inline test module it is the file itself.
        let mut parent: Vec<String> = from.split("::").map(String::from).collect();
        parent.pop();
        if is_mod {
            parent.pop();
        }
        for tail in paths_after(&text, "super::") {
            if !tail.is_empty() {
                targets.push(parent.iter().chain(&tail).cloned().collect());
            }
        }
        let deps = graph.entry(from.clone()).or_default();
        for target in targets {
            if let Some(to) = resolve(&target, &files, &names).filter(|to| *to != from) {
                deps.insert(to);
            }
        }
    }
    graph
}

/// The part (a folder of `src/` or a top-level file) a file belongs to.
fn part_of(file: &str) -> String {
    file.split("::").next().unwrap().to_string()
}

/// The graph of the parts: a part depends on every part one of its files depends on.
fn part_graph(files: &Graph) -> Graph {
    let mut graph = Graph::new();
    for (file, deps) in files {
        let from = part_of(file);
        let entry = graph.entry(from.clone()).or_default();
        entry.extend(deps.iter().map(|d| part_of(d)).filter(|d| *d != from));
    }
    graph
}

/// The strongly connected components of `graph` with more than one node: its cycles, each
/// as its nodes in one order along it.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let reaches = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(node) = todo.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|n| (n, reaches(n))).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for node in graph.keys() {
        if done.contains(node) || !reach[node].contains(node) {
            continue;
        }
        let component: Vec<String> = (reach[node].iter())
            .filter(|other| reach.get(other).is_some_and(|r| r.contains(node)))
            .cloned()
            .collect();
        done.extend(component.iter().cloned());
        found.push(component);
    }
    found
}

fn print(graph: &Graph, width: usize) {
    for (node, deps) in graph {
        let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
        println!("{node:width$} -> {}", deps.join(", "));
    }
}

#[test]
fn parts_of_src_import_each_other_without_a_cycle() {
    let graph = part_graph(&file_graph());
    print(&graph, 13);
    let found = cycles(&graph);
    assert!(found.is_empty(), "import cycles between parts: {found:?}");
}

#[test]
fn files_of_src_import_each_other_without_a_cycle() {
    let graph = file_graph();
    print(&graph, 32);
    let known: Vec<BTreeSet<&str>> = (KNOWN_CYCLES.iter())
        .map(|c| c.iter().copied().collect())
        .collect();
    let cycles = cycles(&graph);
    let found: Vec<BTreeSet<&str>> = (cycles.iter())
        .map(|c| c.iter().map(String::as_str).collect())
        .collect();
    let new: Vec<_> = found.iter().filter(|c| !known.contains(c)).collect();
    assert!(new.is_empty(), "import cycles between files: {new:?}");
    let gone: Vec<_> = known.iter().filter(|c| !found.contains(c)).collect();
    assert!(
        gone.is_empty(),
        "no longer cycles, remove from KNOWN_CYCLES: {gone:?}"
    );
}

#[test]
fn parts_import_only_parts_on_lower_layers() {
    let row = |part: &str| LAYERS.iter().position(|row| row.contains(&part));
    for (part, deps) in part_graph(&file_graph()) {
        let Some(at) = row(&part) else {
            panic!("{part} is in no row of LAYERS");
        };
        for dep in &deps {
            let below = row(dep).is_some_and(|r| r > at);
            assert!(
                below,
                "{part} imports {dep}, which is not on a lower row of LAYERS"
            );
        }
    }
}

#[test]
fn only_the_parts_above_the_world_name_it() {
    for (part, deps) in part_graph(&file_graph()) {
        if deps.contains("world") {
            assert!(ABOVE_WORLD.contains(&part.as_str()), "{part} imports world");
        }
    }
}

/// The checks above would pass on a parser that finds nothing: the graph must hold the
/// edges that every reader of the code can see.
#[test]
fn the_graph_sees_nested_groups_super_and_root_names() {
    let files = file_graph();
    let has = |from: &str, to: &str| files.get(from).is_some_and(|d| d.contains(to));
    // `use crate::narrow_phase::manifold::{..}` over several lines.
    assert!(has("narrow_phase::contact", "narrow_phase::manifold"));
    // `use super::{face_contact, ..}` in a file of a folder.
    assert!(has(
        "narrow_phase::manifold::chain",
        "narrow_phase::manifold"
    ));
    let names = root_names("pub use geometry::{distance, math};\npub use math::{Vec2};");
    let known: BTreeSet<String> = ["geometry", "geometry::math"].map(String::from).into();
    let path = ["Vec2".to_string()];
    assert_eq!(
        resolve(&path, &known, &names).as_deref(),
        Some("geometry::math")
    );
    let mut cyclic = Graph::new();
    cyclic.entry("a".into()).or_default().insert("b".into());
    cyclic.entry("b".into()).or_default().insert("a".into());
    cyclic.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        cycles(&cyclic),
        vec![vec!["a".to_string(), "b".to_string()]]
    );
}
