//! A world's worker threads are named `batch2d-N`, so that Tracy, debuggers and `perf` tell
//! them apart from the application's threads (they read the names the system keeps).

use batch2d::{World, WorldSettings};

/// The names the system keeps for this process's threads (what Tracy reads on Linux).
#[cfg(target_os = "linux")]
fn thread_names() -> Vec<String> {
    let tasks = std::fs::read_dir("/proc/self/task").unwrap();
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|name| name.trim_end().to_string())
        .collect()
}

#[cfg(target_os = "linux")]
#[test]
fn workers_are_named_batch2d_n() {
    let before = thread_names();
    assert!(
        !before.iter().any(|n| n.starts_with("batch2d-")),
        "{before:?}"
    );
    let world = World::new(WorldSettings {
        threads: 3,
        ..WorldSettings::default()
    });
    // Each thread names itself when it starts, which may be a little after `World::new`.
    let named = || {
        let mut names: Vec<String> = thread_names()
            .into_iter()
            .filter(|n| n.starts_with("batch2d-"))
            .collect();
        names.sort();
        names
    };
    let start = std::time::Instant::now();
    while named().len() < 3 && start.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(named(), ["batch2d-0", "batch2d-1", "batch2d-2"]);
    drop(world);
}
