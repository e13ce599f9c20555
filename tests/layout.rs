//! The layout of `src/` (see docs/architecture.md): the folders and top-level files import
//! each other without a cycle, and only the public glue above `world/` names the world.
//!
//! A part is a folder of `src/` or a top-level file. Its dependencies are the `crate::` paths
//! in its code (comments skipped); a name the crate root re-exports (`crate::Vec2`) counts as
//! a dependency on the part it comes from. `cargo test --test layout -- --nocapture` prints
//! the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Parts that may name `World`: the world itself and what is built on it.
const ABOVE_WORLD: [&str; 3] = ["world", "scenes", "lib"];

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

fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|line| line.split("//").next().unwrap())
}

fn ident_of(s: &str) -> &str {
    ident(s.trim())
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The part each name re-exported by `src/lib.rs` comes from.
fn root_names(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let mut statement = String::new();
    for line in code_lines(lib) {
        let line = line.trim();
        if line.starts_with("pub use ") || !statement.is_empty() {
            statement.push_str(line);
            if !line.ends_with(';') {
                continue;
            }
            let path = statement
                .trim_start_matches("pub use ")
                .trim_start_matches("crate::");
            let part = ident(path).to_string();
            let rest = path.trim_end_matches(';');
            let list = match rest.find('{') {
                Some(i) => rest[i + 1..].trim_end_matches('}').to_string(),
                None => rest.rsplit("::").next().unwrap().to_string(),
            };
            for name in list.split(',').map(ident_of) {
                // `pub use distance::{distance, ..}`: the function, not the module again.
                if !name.is_empty() && name != part {
                    names.insert(name.to_string(), part.clone());
                }
            }
            statement.clear();
        }
    }
    names
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let part_of = |path: &Path| {
        let first = path
            .strip_prefix(&src)
            .unwrap()
            .components()
            .next()
            .unwrap();
        let name = first.as_os_str().to_str().unwrap();
        name.trim_end_matches(".rs").to_string()
    };
    let parts: BTreeSet<String> = files.iter().map(|f| part_of(f)).collect();
    let names = root_names(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut graph = Graph::new();
    for file in &files {
        let from = part_of(file);
        let deps = graph.entry(from.clone()).or_default();
        let text = fs::read_to_string(file).unwrap();
        for line in code_lines(&text) {
            for (i, _) in line.match_indices("crate::") {
                let rest = &line[i + "crate::".len()..];
                let targets: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group.split('}').next().unwrap().split(',').collect(),
                    None => vec![rest],
                };
                for target in targets {
                    // Follow re-exports (`crate::Vec2` is `math::Vec2`, `math` is in geometry).
                    let mut to = Some(ident(target.trim()).to_string());
                    while let Some(name) = to.take() {
                        if parts.contains(&name) {
                            to = Some(name);
                            break;
                        }
                        to = names.get(&name).cloned();
                    }
                    if let Some(to) = to.filter(|to| *to != from) {
                        deps.insert(to);
                    }
                }
            }
        }
    }
    graph
}

/// A cycle through `part`, if any, as the parts along it.
fn cycle(graph: &Graph, part: &str, path: &mut Vec<String>) -> Option<Vec<String>> {
    if let Some(i) = path.iter().position(|p| p == part) {
        let mut found = path[i..].to_vec();
        found.push(part.to_string());
        return Some(found);
    }
    path.push(part.to_string());
    for next in graph.get(part).into_iter().flatten() {
        if let Some(found) = cycle(graph, next, path) {
            return Some(found);
        }
    }
    path.pop();
    None
}

#[test]
fn parts_of_src_import_each_other_without_a_cycle() {
    let graph = graph();
    for (part, deps) in &graph {
        let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
        println!("{part:13} -> {}", deps.join(", "));
    }
    for part in graph.keys() {
        if let Some(found) = cycle(&graph, part, &mut Vec::new()) {
            panic!("import cycle: {}", found.join(" -> "));
        }
    }
}

#[test]
fn only_the_parts_above_the_world_name_it() {
    for (part, deps) in graph() {
        if deps.contains("world") {
            assert!(ABOVE_WORLD.contains(&part.as_str()), "{part} imports world");
        }
    }
}
