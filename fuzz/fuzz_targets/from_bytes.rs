//! Reads snapshots from the input bytes: `Snapshot::from_bytes` must give `Err` or a snapshot
//! that restores into a world which steps, never a panic, a hang or a huge allocation.
//!
//! Bytes made at random seldom get past the header, so an input whose first byte is odd is
//! read as edits to a valid snapshot of a small world (contacts, a compound body, a sleeping
//! body, a joint, a sensor, a removed body, a pending force): each edit is a 2-byte offset
//! and a byte to XOR there. An input whose first byte is even is read as it is.
//! `BATCH2D_FUZZ_TRACE=1` prints the error or the world's state hash.

// The fuzz target binary has libFuzzer's `main`; tests/api/snapshot_bytes.rs includes this file as
// a module (`cfg(test)`) for the same small world.
#![cfg_attr(not(test), no_main)]

use batch2d::{BodyDef, JointDef, Shape, ShapeDef, Snapshot, Vec2, World, WorldSettings};
#[cfg(not(test))]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const DT: f32 = 1.0 / 60.0;

/// A small world with a bit of everything a snapshot holds: contacts (one of them between a
/// compound body's shape and the ground), a sleeping body, a joint, a sensor overlap, a pending
/// force, a removed body.
pub fn small_world() -> World {
    let mut world = World::new(WorldSettings {
        enable_sleep: true,
        threads: 1,
        ..WorldSettings::default()
    });
    let ground = world
        .add_body(
            BodyDef::fixed().position(Vec2::new(0.0, -1.0)),
            ShapeDef::new(Shape::rect(20.0, 1.0).unwrap()),
        )
        .unwrap();
    world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(-8.0, 0.5)),
            ShapeDef::new(Shape::rect(0.5, 0.5).unwrap()),
        )
        .unwrap();
    let gone = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(5.0, 0.5)),
            ShapeDef::new(Shape::circle(0.5).unwrap()),
        )
        .unwrap();
    world
        .add_compound_body(
            BodyDef::dynamic().position(Vec2::new(0.0, 0.4)),
            &[
                ShapeDef::new(Shape::rect(0.6, 0.2).unwrap()),
                ShapeDef::new(Shape::circle_at(Vec2::new(0.6, 0.2), 0.2).unwrap()),
            ],
        )
        .unwrap();
    world
        .add_body(
            BodyDef::fixed().position(Vec2::new(3.0, 0.5)),
            ShapeDef::new(Shape::rect(1.0, 1.0).unwrap()).sensor(true),
        )
        .unwrap();
    let capsule = Shape::capsule(Vec2::new(-0.4, 0.0), Vec2::new(0.4, 0.0), 0.2).unwrap();
    let swinging = world
        .add_body(
            BodyDef::dynamic().position(Vec2::new(3.0, 3.0)),
            ShapeDef::new(capsule),
        )
        .unwrap();
    world
        .add_joint(JointDef::revolute(ground, swinging, Vec2::new(2.0, 3.0)))
        .unwrap();
    for _ in 0..80 {
        world.step(DT).unwrap();
    }
    world.remove_body(gone).unwrap();
    world.apply_force(swinging, Vec2::new(3.0, 1.0)).unwrap();
    world
}

/// The bytes of a snapshot of [`small_world`].
#[cfg_attr(test, allow(dead_code))]
fn base() -> &'static [u8] {
    static BASE: OnceLock<Vec<u8>> = OnceLock::new();
    BASE.get_or_init(|| small_world().snapshot().to_bytes())
}

#[cfg(not(test))]
fuzz_target!(|data: &[u8]| run(data));

/// Runs one input: the whole fuzz target. Panics on a finding.
#[cfg_attr(test, allow(dead_code))]
pub fn run(data: &[u8]) {
    let bytes = match data.split_first() {
        Some((first, edits)) if first % 2 == 1 => {
            let mut bytes = base().to_vec();
            for edit in edits.chunks_exact(3) {
                let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) % bytes.len();
                bytes[at] ^= edit[2];
            }
            bytes
        }
        _ => data.to_vec(),
    };
    let trace = std::env::var_os("BATCH2D_FUZZ_TRACE").is_some();
    match Snapshot::from_bytes(&bytes) {
        Ok(snap) => {
            let settings = WorldSettings {
                threads: 1,
                ..WorldSettings::default()
            };
            let mut world = World::from_snapshot(&snap, settings).unwrap();
            for _ in 0..4 {
                // A step may refuse (too many pairs); it must not panic.
                let _ = world.step(DT);
            }
            if trace {
                eprintln!("read; state hash {:016x}", world.state_hash());
            }
        }
        Err(e) => {
            if trace {
                eprintln!("refused: {e}");
            }
        }
    }
}
