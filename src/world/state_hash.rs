//! [`World::state_hash`]: a checksum of the simulated state, for peers to compare.

use crate::body::SlotKind;
use crate::geometry::math::Vec2;
use crate::joints::joint::Impulses;
use crate::settings::WorldSettings;
use crate::world::World;

/// FNV-1a over 64 bits, fed whole words: small, in the crate, and the same on every machine
/// (it reads values, never memory layouts).
struct Fnv(u64);

impl Fnv {
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn u64(&mut self, value: u64) {
        for byte in value.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(Fnv::PRIME);
        }
    }

    fn u32(&mut self, value: u32) {
        self.u64(u64::from(value));
    }

    /// The bit pattern, so that -0.0 and 0.0 (and NaNs) differ as they do to the next step.
    fn f32(&mut self, value: f32) {
        self.u32(value.to_bits());
    }

    fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }

    fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
}

impl World {
    /// A checksum of the simulated state, for peers of a networked game to compare: two worlds
    /// that step alike from the same state have the same hash, whatever their thread count,
    /// [`Backend`](crate::Backend) or instruction set, and a world restored from a
    /// [`Snapshot`](crate::Snapshot) has the hash of the world it was taken from.
    ///
    /// It covers the settings that shape physics; every slot's generation and kind, and every
    /// body's pose, velocities, mass, user data, group, rest time, and whether it sleeps or is
    /// disabled; every contact's bodies, normal, points, feature ids and impulses; every
    /// joint's slot, bodies, switches and impulses; and the forces waiting for the next step: the bit patterns of the numbers, in slot and
    /// contact order. A change there that a step could act on changes the hash (bar the
    /// collisions of a 64-bit checksum). It leaves out what differs between machines that agree
    /// (thread count, backend, instruction set, the world's identity) and what the step
    /// rebuilds from the state it covers.
    pub fn state_hash(&self) -> u64 {
        let mut h = Fnv::new();
        hash_settings(&mut h, &self.settings);
        let b = &self.bodies;
        h.len(b.slots());
        for s in 0..b.slots() {
            h.u32(b.generation()[s]);
            h.u32(b.kind()[s] as u32);
            if b.kind()[s] == SlotKind::Empty {
                // A free slot's columns keep what its last body left: nothing reads them.
                continue;
            }
            h.vec2(b.center()[s]);
            h.f32(b.rotation()[s].c);
            h.f32(b.rotation()[s].s);
            h.vec2(b.local_center()[s]);
            h.vec2(b.linear_velocity()[s]);
            h.f32(b.angular_velocity()[s]);
            h.f32(b.inv_mass()[s]);
            h.f32(b.inv_inertia()[s]);
            h.u64(b.user_data()[s]);
            h.u32(u32::from(b.is_disabled(s)));
            h.u32(b.group()[s] as u32);
        }
        let rest = self.sleep.rest_times();
        h.len(rest.len());
        for (&t, &asleep) in rest.iter().zip(&self.sleep.asleep) {
            h.f32(t);
            h.u32(u32::from(asleep));
        }
        let contacts = &self.contacts.list;
        h.len(contacts.len());
        for (c, key) in contacts.iter().zip(self.contacts.keys()) {
            h.u32(c.a.index() as u32);
            h.u32(c.b.index() as u32);
            h.u32(key.2);
            h.vec2(c.manifold.normal);
            h.len(c.manifold.point_count);
            for p in &c.manifold.points[..c.manifold.point_count] {
                h.vec2(p.point);
                h.f32(p.separation);
                h.u32(p.id);
                h.f32(p.normal_impulse);
                h.f32(p.tangent_impulse);
                h.f32(p.impact_impulse);
            }
        }
        h.len(self.joints.slots.len());
        for slot in &self.joints.slots {
            h.u32(slot.generation());
            if let Some(j) = &slot.joint {
                h.u32(j.a.index() as u32);
                h.u32(j.b.index() as u32);
                h.u32(u32::from(j.limits_enabled) | u32::from(j.motor_enabled) << 1);
                let Impulses {
                    linear,
                    angular,
                    axial,
                    motor,
                    lower,
                    upper,
                } = j.impulses;
                h.vec2(linear);
                for x in [angular, axial, motor, lower, upper] {
                    h.f32(x);
                }
            }
        }
        for slot in self.forces.slots() {
            let (force, torque) = self.forces.get(slot);
            h.len(slot);
            h.vec2(force);
            h.f32(torque);
        }
        h.0
    }
}

/// The settings that shape physics; not `threads`, `backend` and `instruction_set`, which
/// change no result.
fn hash_settings(h: &mut Fnv, s: &WorldSettings) {
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
    } = s;
    h.vec2(*gravity);
    for n in [*substeps, *solve_iterations, *joint_solve_iterations] {
        h.u32(n);
    }
    for x in [
        *contact_hertz,
        *contact_damping_ratio,
        *contact_push_max_velocity,
        *linear_slop,
        *restitution_threshold,
        *max_linear_speed,
        *time_to_sleep,
        *hit_event_threshold,
    ] {
        h.f32(x);
    }
    h.u32(*friction_mixing as u32);
    h.u32(*restitution_mixing as u32);
    h.u32(u32::from(*enable_sleep));
    h.u32(u32::from(*sensors_see_kinematic));
    h.len(*max_pairs);
    // The recycle tolerances only where either is off its default, after a marker word: a
    // world off them hashes apart from one at them, and a world at the defaults keeps the
    // hash it had before the tolerances were settings (the hashes recorded for the standard
    // scenes stay comparable).
    let defaults = (
        WorldSettings::DEFAULT_RECYCLE_DISTANCE,
        WorldSettings::DEFAULT_RECYCLE_ANGLE,
    );
    if (recycle_distance.to_bits(), recycle_angle.to_bits())
        != (defaults.0.to_bits(), defaults.1.to_bits())
    {
        h.u32(1);
        h.f32(*recycle_distance);
        h.f32(*recycle_angle);
    }
}
