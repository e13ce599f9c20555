//! Bad snapshot bytes: truncated, bit-flipped, of another version, with huge lengths or
//! inconsistent references, they give `Err(InvalidSnapshot)` or a world that steps, never a
//! panic or a huge allocation.

use batch2d::{
    Backend, BodyDef, Error, JointDef, Shape, ShapeDef, Snapshot, Vec2, World, WorldSettings,
};

const DT: f32 = 1.0 / 60.0;

#[path = "../../fuzz/fuzz_targets/from_bytes.rs"]
mod from_bytes;

/// The fuzz target's small world, with a bit of everything a snapshot holds: contacts (one of
/// them between a compound body's shape and the ground), a sleeping body, a joint, a sensor
/// overlap, a pending force, a removed body.
fn small_world() -> World {
    let world = from_bytes::small_world();
    let asleep = world.bodies().filter(|&id| !world.is_awake(id).unwrap());
    assert!(asleep.count() > 0, "the resting box sleeps");
    world
}

/// `bytes` read as a snapshot: `Err` must be `InvalidSnapshot`; `Ok` must be a world that
/// restores and steps.
fn read_and_step(bytes: &[u8], into: &mut World) {
    match Snapshot::from_bytes(bytes) {
        Ok(snap) => {
            into.restore(&snap).unwrap();
            for _ in 0..3 {
                into.step(DT).unwrap();
            }
            let _ = into.state_hash();
        }
        Err(Error::InvalidSnapshot(why)) => assert!(!why.is_empty()),
        Err(e) => panic!("not InvalidSnapshot: {e:?}"),
    }
}

#[test]
fn every_truncation_is_refused() {
    let bytes = small_world().snapshot().to_bytes();
    for len in 0..bytes.len() {
        let err = Snapshot::from_bytes(&bytes[..len]).err();
        assert!(
            matches!(err, Some(Error::InvalidSnapshot(_))),
            "a snapshot cut to {len} of {} bytes was accepted",
            bytes.len()
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Snapshot::from_bytes(&longer).is_err(), "a trailing byte");
    if let Err(e) = Snapshot::from_bytes(&bytes) {
        panic!("the whole snapshot was refused: {e}");
    }
}

#[test]
fn every_single_bit_flip_is_refused_or_steps() {
    let bytes = small_world().snapshot().to_bytes();
    let mut into = World::new(WorldSettings {
        threads: 1,
        backend: Backend::Scalar,
        ..WorldSettings::default()
    });
    let mut accepted = 0;
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut flipped = bytes.clone();
            flipped[i] ^= 1 << bit;
            accepted += usize::from(Snapshot::from_bytes(&flipped).is_ok());
            read_and_step(&flipped, &mut into);
        }
    }
    // Most flips land in a position, velocity or impulse: a valid world, only another one.
    assert!(accepted > 0);
}

#[test]
fn other_versions_and_magic_numbers_are_refused() {
    let bytes = small_world().snapshot().to_bytes();
    let mut version = bytes.clone();
    version[8] = version[8].wrapping_add(1);
    match Snapshot::from_bytes(&version) {
        Err(Error::InvalidSnapshot(why)) => assert!(why.contains("version"), "{why}"),
        other => panic!("another version read as {:?}", other.map(|_| ())),
    }
    let mut magic = bytes.clone();
    magic[0] ^= 0xff;
    assert!(Snapshot::from_bytes(&magic).is_err());
    assert!(Snapshot::from_bytes(&[]).is_err());
}

#[test]
fn huge_lengths_are_refused_before_allocating() {
    let bytes = small_world().snapshot().to_bytes();
    // Every 8-byte window set to a huge length: wherever a list length sits, the reader must
    // refuse it without reserving memory for it (which would abort the test).
    for i in 12..bytes.len().saturating_sub(8) {
        for huge in [u64::MAX, 1 << 40, (bytes.len() as u64) * 2] {
            let mut hostile = bytes.clone();
            hostile[i..i + 8].copy_from_slice(&huge.to_le_bytes());
            let _ = Snapshot::from_bytes(&hostile);
        }
    }
}

/// The byte offset of the first occurrence of `needle` at or after `from`.
fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    (from..haystack.len().saturating_sub(needle.len()))
        .find(|&i| &haystack[i..i + needle.len()] == needle)
}

#[test]
fn references_to_free_slots_are_refused() {
    // Two bodies and a joint between them; the joint's second body is then made to name a
    // slot that is free, by building the same world with that body removed and splicing the
    // bytes: the joint's bytes come after every body's.
    let make = |remove: bool| {
        let mut world = World::new(WorldSettings::default());
        let a = world
            .add_body(
                BodyDef::dynamic(),
                ShapeDef::new(Shape::circle(0.5).unwrap()),
            )
            .unwrap();
        let b = world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(2.0, 0.0)),
                ShapeDef::new(Shape::circle(0.5).unwrap()),
            )
            .unwrap();
        let c = world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(4.0, 0.0)),
                ShapeDef::new(Shape::circle(0.5).unwrap()),
            )
            .unwrap();
        world
            .add_joint(JointDef::distance(a, b, Vec2::ZERO, Vec2::new(2.0, 0.0)))
            .unwrap();
        if remove {
            world.remove_body(c).unwrap();
        }
        world
    };
    let good = make(false).snapshot().to_bytes();
    assert!(Snapshot::from_bytes(&good).is_ok());
    let with_hole = make(true).snapshot().to_bytes();
    assert!(Snapshot::from_bytes(&with_hole).is_ok());
    // In `with_hole`, point the joint's body b (slot 1) at the free slot 2: the slots are the
    // little-endian u32s 0 and 1 after the joint kind byte (Distance = 1).
    let kind_and_slots = [[1u8].as_slice(), &0u32.to_le_bytes(), &1u32.to_le_bytes()].concat();
    let at = find(&with_hole, &kind_and_slots, 12).expect("the joint's bytes");
    let mut hostile = with_hole.clone();
    hostile[at + 5..at + 9].copy_from_slice(&2u32.to_le_bytes());
    match Snapshot::from_bytes(&hostile) {
        Err(Error::InvalidSnapshot(why)) => assert!(why.contains("joint"), "{why}"),
        other => panic!("a joint on a free slot read as {:?}", other.map(|_| ())),
    }
    // And at a slot past the end.
    hostile[at + 5..at + 9].copy_from_slice(&7u32.to_le_bytes());
    assert!(Snapshot::from_bytes(&hostile).is_err());
}

/// `world`'s bodies' poses and velocities as bits, and its state hash.
fn bits(world: &World) -> (Vec<u32>, u64) {
    let mut out = Vec::new();
    for id in world.bodies() {
        let p = world.position(id).unwrap();
        let q = world.rotation(id).unwrap();
        let v = world.linear_velocity(id).unwrap();
        let w = world.angular_velocity(id).unwrap();
        out.extend([p.x, p.y, q.c, q.s, v.x, v.y, w].map(f32::to_bits));
    }
    (out, world.state_hash())
}

#[test]
fn a_world_read_from_bytes_steps_as_the_original() {
    let mut world = small_world();
    let bytes = world.snapshot().to_bytes();
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    let mut read = World::from_snapshot(&snap, WorldSettings::default()).unwrap();
    assert_eq!(bits(&read), bits(&world));
    for _ in 0..60 {
        world.step(DT).unwrap();
        read.step(DT).unwrap();
    }
    assert_eq!(bits(&read), bits(&world));
}

/// Set to a snapshot file, this test binary's `continues_in_another_process` reads it, steps
/// it and prints its state hash instead of testing.
const CHILD_FILE: &str = "BATCH2D_SNAPSHOT_CHILD_FILE";

#[test]
fn continues_in_another_process() {
    const STEPS: usize = 45;
    if let Ok(path) = std::env::var(CHILD_FILE) {
        let bytes = std::fs::read(path).unwrap();
        let snap = Snapshot::from_bytes(&bytes).unwrap();
        let mut world = World::from_snapshot(&snap, WorldSettings::default()).unwrap();
        for _ in 0..STEPS {
            world.step(DT).unwrap();
        }
        println!("state_hash={:016x}", world.state_hash());
        return;
    }
    let mut world = small_world();
    let path = std::env::temp_dir().join(format!("batch2d-snapshot-{}.bin", std::process::id()));
    std::fs::write(&path, world.snapshot().to_bytes()).unwrap();
    // This test's name as the harness knows it: its module path less the crate's name.
    let module = module_path!()
        .split_once("::")
        .map(|(_, m)| format!("{m}::"));
    let name = format!("{}continues_in_another_process", module.unwrap_or_default());
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--nocapture"])
        .env(CHILD_FILE, &path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(child.status.success(), "{child:?}");
    for _ in 0..STEPS {
        world.step(DT).unwrap();
    }
    let expected = format!("state_hash={:016x}", world.state_hash());
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        stdout.lines().any(|l| l == expected),
        "the other process printed {stdout}, expected {expected}"
    );
}
