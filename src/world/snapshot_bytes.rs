//! [`Snapshot::to_bytes`] and [`Snapshot::from_bytes`]: the snapshot as bytes, to save a game,
//! send a world to a peer or attach one to a bug report.
//!
//! The bytes hold the state that decides the next step (see [`Snapshot`]) and nothing the
//! step rebuilds: the broadphase's grids and pairs, the coloring, the solver's buffers and the
//! sweep targets of continuous collision are left out and rebuilt by the first step after
//! reading, to the same bits. Each stage's part is written by the [`Codec`] impl beside its
//! type; see `codec.rs` for how a field added to a saved type is caught.

use crate::codec::{invalid, Codec, Reader, Writer};
use crate::error::Error;
use crate::settings::{MixRule, WorldSettings};
use crate::world::snapshot::Snapshot;
use crate::world::World;

/// The first bytes of every snapshot.
const MAGIC: [u8; 8] = *b"batch2d\x00";

/// The format version: raised whenever the bytes of any saved type change, so that an older
/// or newer build refuses bytes it would misread.
const VERSION: u32 = 3;

impl Snapshot {
    /// The snapshot as bytes: a magic number and the format version, then the state,
    /// little-endian, every list led by its length. The same world gives the same bytes on
    /// every machine, thread count and backend. About 135 bytes per circle and 95 per contact
    /// between circles; about 205 per box and 205 per contact between boxes (two points and
    /// the base the contact is recycled from).
    pub fn to_bytes(&self) -> Vec<u8> {
        let World {
            settings,
            pool: _,
            bodies,
            broad_phase: _,
            pairs: _,
            shape_pairs: _,
            contacts,
            events,
            forces,
            sensors,
            sleep,
            graph: _,
            direct: _,
            solver,
            sweep_targets: _,
            joints,
            profile: _,
            query_grid: _,
            removed,
            pair_filter: _,
            pre_solve: _,
        } = &*self.world;
        let mut w = Writer::default();
        w.bytes.extend_from_slice(&MAGIC);
        VERSION.encode(&mut w);
        settings.encode(&mut w);
        bodies.encode(&mut w);
        contacts.encode(&mut w);
        events.encode(&mut w);
        forces.encode(&mut w);
        sensors.encode(&mut w);
        sleep.encode(&mut w);
        solver.encode(&mut w);
        joints.encode(&mut w);
        removed.encode(&mut w);
        w.bytes
    }

    /// Reads bytes written by [`Snapshot::to_bytes`]. `Err(InvalidSnapshot)`, saying what was
    /// wrong first, for bytes that are truncated, too long, of another format or version, or
    /// that describe a world the engine could not be in: a number out of range or not finite,
    /// a shape its constructor would refuse, a contact or joint naming a free slot, a sleeping
    /// body in no sleeping island, lists out of order. Never panics, and allocates at most a
    /// small multiple of `bytes.len()`, whatever the input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Snapshot, Error> {
        let mut r = Reader::new(bytes);
        if r.take(MAGIC.len()).ok() != Some(&MAGIC[..]) {
            return Err(invalid("not a batch2d snapshot (wrong magic number)"));
        }
        let version = u32::decode(&mut r)?;
        if version != VERSION {
            return Err(invalid(format!(
                "format version {version}, this build reads version {VERSION}"
            )));
        }
        let settings = WorldSettings::decode(&mut r)?;
        settings
            .validate()
            .map_err(|e| invalid(format!("settings: {e}")))?;
        let world = World {
            settings,
            pool: None,
            bodies: Codec::decode(&mut r)?,
            broad_phase: Default::default(),
            pairs: Vec::new(),
            shape_pairs: Default::default(),
            contacts: Codec::decode(&mut r)?,
            events: Codec::decode(&mut r)?,
            forces: Codec::decode(&mut r)?,
            sensors: Codec::decode(&mut r)?,
            sleep: Codec::decode(&mut r)?,
            graph: Default::default(),
            direct: Default::default(),
            solver: Codec::decode(&mut r)?,
            sweep_targets: Default::default(),
            joints: Codec::decode(&mut r)?,
            profile: Default::default(),
            query_grid: Default::default(),
            removed: Codec::decode(&mut r)?,
            pair_filter: None,
            pre_solve: Default::default(),
        };
        if r.remaining() != 0 {
            return Err(invalid(format!(
                "{} bytes left after the snapshot",
                r.remaining()
            )));
        }
        let bodies = &world.bodies;
        world.removed.check(bodies)?;
        world.contacts.check(bodies, &world.removed)?;
        world.events.check(bodies)?;
        world.forces.check(bodies.slots())?;
        world.sensors.check(bodies)?;
        world.sleep.check(bodies)?;
        world.joints.check(bodies)?;
        Ok(Snapshot {
            world: Box::new(world),
        })
    }
}

impl Codec for MixRule {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        (*self as u8).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let rules = [
            MixRule::GeometricMean,
            MixRule::Min,
            MixRule::Max,
            MixRule::Average,
        ];
        let k = u8::decode(r)?;
        let rule = rules.into_iter().find(|&rule| rule as u8 == k);
        rule.ok_or_else(|| invalid(format!("unknown mixing rule {k}")))
    }
}

/// The settings that shape physics. `threads`, `backend` and `instruction_set` are not
/// saved: they belong to the machine that runs the world, and read back as their defaults
/// until [`World::restore`] or [`World::from_snapshot`] sets them.
impl Codec for WorldSettings {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        let WorldSettings {
            gravity,
            substeps,
            solve_iterations,
            joint_solve_iterations,
            threads: _,
            backend: _,
            instruction_set: _,
            contact_hertz,
            contact_damping_ratio,
            contact_push_max_velocity,
            linear_slop,
            restitution_threshold,
            max_linear_speed,
            friction_mixing,
            restitution_mixing,
            enable_sleep,
            time_to_sleep,
            max_pairs,
            hit_event_threshold,
            sensors_see_kinematic,
            recycle_distance,
            recycle_angle,
        } = self;
        gravity.encode(w);
        substeps.encode(w);
        solve_iterations.encode(w);
        joint_solve_iterations.encode(w);
        contact_hertz.encode(w);
        contact_damping_ratio.encode(w);
        contact_push_max_velocity.encode(w);
        linear_slop.encode(w);
        restitution_threshold.encode(w);
        max_linear_speed.encode(w);
        friction_mixing.encode(w);
        restitution_mixing.encode(w);
        enable_sleep.encode(w);
        time_to_sleep.encode(w);
        max_pairs.encode(w);
        hit_event_threshold.encode(w);
        sensors_see_kinematic.encode(w);
        recycle_distance.encode(w);
        recycle_angle.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(WorldSettings {
            gravity: Codec::decode(r)?,
            substeps: Codec::decode(r)?,
            solve_iterations: Codec::decode(r)?,
            joint_solve_iterations: Codec::decode(r)?,
            contact_hertz: Codec::decode(r)?,
            contact_damping_ratio: Codec::decode(r)?,
            contact_push_max_velocity: Codec::decode(r)?,
            linear_slop: Codec::decode(r)?,
            restitution_threshold: Codec::decode(r)?,
            max_linear_speed: Codec::decode(r)?,
            friction_mixing: Codec::decode(r)?,
            restitution_mixing: Codec::decode(r)?,
            enable_sleep: Codec::decode(r)?,
            time_to_sleep: Codec::decode(r)?,
            max_pairs: Codec::decode(r)?,
            hit_event_threshold: Codec::decode(r)?,
            sensors_see_kinematic: Codec::decode(r)?,
            recycle_distance: Codec::decode(r)?,
            recycle_angle: Codec::decode(r)?,
            ..WorldSettings::default()
        })
    }
}
