//! Sensors: shapes that report the bodies overlapping them and push nothing.
//!
//! The broadphase finds a sensor's pairs like any others; they are taken out of the pairs
//! before the narrowphase, so no contact, island, solver lane or continuous sweep ever sees a
//! sensor, and each is tested for overlap instead. Overlap is judged at the poses the step
//! starts from, like contact manifolds, and events come from comparing the sorted list of
//! overlapping pairs with last step's. A sleeping body's overlaps are carried over while the
//! pair is not tested (a sleeping body is in no per-step pair with a static one), so falling
//! asleep inside a sensor ends nothing, as it ends no contact.
//!
//! A sensor may also be one shape of a compound body, whose other shapes collide: its body's
//! pairs then go to both the narrowphase (which skips the sensor shapes) and the sensors. Each
//! pair is kept as `(sensor, visitor)`, so that two compound bodies with sensor shapes can
//! each see the other.
//!
//! The broadphase pairs only bodies of which one is dynamic. Where the user asks for it
//! (`WorldSettings::sensors_see_kinematic`), the fixed bodies with a sensor are also tested
//! against every kinematic body here, box against box: few bodies are either.

use crate::body::{BodyStore, SlotKind};
use crate::codec::{codec_struct, invalid};
use crate::error::Error;
use crate::geometry::exact_overlap::{self, Core};
use crate::narrow_phase::events::{ContactEvents, SensorEvent};
use crate::narrow_phase::manifold::chain_faces;
use rayon::prelude::*;

/// The sensor pairs of the step and the overlaps of the last.
#[derive(Clone, Default)]
pub(crate) struct Sensors {
    /// This step's `(sensor, visitor)` pairs, sorted.
    pairs: Vec<(u32, u32)>,
    /// The `(sensor, visitor)` pairs that overlap after the last step, sorted.
    overlaps: Vec<(u32, u32)>,
    /// Scratch: `overlaps` of the step before.
    previous: Vec<(u32, u32)>,
    /// End events of removed bodies, reported with the next step.
    removed: Vec<SensorEvent>,
}

/// The event of pair `(sensor, visitor)`.
fn sensor_event(bodies: &BodyStore, (sensor, visitor): (u32, u32)) -> SensorEvent {
    SensorEvent {
        sensor: bodies.id(sensor as usize),
        visitor: bodies.id(visitor as usize),
    }
}

/// Whether a sensor shape of body `sensor` overlaps a shape of body `visitor` that is no
/// sensor and that the layers and masks let it see.
fn overlap(bodies: &BodyStore, (sensor, visitor): (u32, u32)) -> bool {
    let (sensor, visitor) = (sensor as usize, visitor as usize);
    let (xf_sensor, xf_visitor) = (bodies.transform(sensor), bodies.transform(visitor));
    let sensors = bodies.shapes(sensor).iter().enumerate();
    sensors
        .filter(|&(c, _)| bodies.child_sensor(sensor, c))
        .any(|(c, shape)| {
            let (layers, mask) = bodies.child_filter(sensor, c);
            let core = Core::of(shape, xf_sensor);
            let others = bodies.shapes(visitor).iter().enumerate();
            others.into_iter().any(|(child, other)| {
                let (other_layers, other_mask) = bodies.child_filter(visitor, child);
                !bodies.child_sensor(visitor, child)
                    && layers & other_mask != 0
                    && other_layers & mask != 0
                    && chain_faces(shape, xf_sensor, other, xf_visitor)
                    && exact_overlap::overlap(&core, &Core::of(other, xf_visitor))
            })
        })
}

/// Whether the body in `slot` has a sensor shape.
fn has_sensor(bodies: &BodyStore, slot: usize) -> bool {
    bodies.sensor()[slot] || bodies.sensor_parts()[slot]
}

impl Sensors {
    /// Records the end of every overlap of the body in `slot`, which is about to be removed
    /// (its handle must still be live).
    pub fn body_removed(&mut self, bodies: &BodyStore, slot: u32) {
        let removed = &mut self.removed;
        self.overlaps.retain(|&(a, b)| {
            let involved = a == slot || b == slot;
            if involved {
                removed.push(sensor_event(bodies, (a, b)));
            }
            !involved
        });
    }
}

impl Sensors {
    /// Records the end of every overlap that the body in `slot` sees as a sensor: it has
    /// just lost its last sensor shape.
    pub fn sensor_removed(&mut self, bodies: &BodyStore, slot: u32) {
        let removed = &mut self.removed;
        self.overlaps.retain(|&(sensor, visitor)| {
            if sensor == slot {
                removed.push(sensor_event(bodies, (sensor, visitor)));
            }
            sensor != slot
        });
    }
}

impl Sensors {
    /// Broadphase, last part: moves the pairs with a sensor body out of the broadphase
    /// `pairs` into the sensors' own (pairs of two sensor bodies are dropped), and copies
    /// those of compound bodies with sensor shapes there; with `see_kinematic`, adds the
    /// pairs of fixed bodies with a sensor and kinematic bodies whose boxes overlap.
    pub fn take_pairs(
        &mut self,
        bodies: &BodyStore,
        pairs: &mut Vec<(u32, u32)>,
        see_kinematic: bool,
    ) {
        let sensors = self;
        sensors.pairs.clear();
        if !bodies.any_sensor() {
            return;
        }
        let (whole, parts) = (bodies.sensor(), bodies.sensor_parts());
        pairs.retain(|&(a, b)| {
            let (sa, sb) = (whole[a as usize], whole[b as usize]);
            if !sa && !sb && !parts[a as usize] && !parts[b as usize] {
                return true;
            }
            // A sensor body sees a compound's solid shapes; a compound's sensor shapes see
            // any body but a sensor one.
            if sa || (parts[a as usize] && !sb) {
                sensors.pairs.push((a, b));
            }
            if sb || (parts[b as usize] && !sa) {
                sensors.pairs.push((b, a));
            }
            !(sa || sb)
        });
        if see_kinematic {
            sensors.add_kinematic_pairs(bodies);
        }
        sensors.pairs.sort_unstable();
    }

    /// Adds the pairs of fixed bodies with a sensor and kinematic bodies whose boxes overlap,
    /// which the broadphase does not make (neither body moves by the solver).
    fn add_kinematic_pairs(&mut self, bodies: &BodyStore) {
        let slots = 0..bodies.slots();
        let kind = |s: usize| bodies.kind()[s];
        let fixed = slots
            .clone()
            .filter(|&s| kind(s) == SlotKind::Fixed && has_sensor(bodies, s));
        let kinematic: Vec<usize> = slots.filter(|&s| kind(s) == SlotKind::Kinematic).collect();
        for s in fixed {
            for &k in &kinematic {
                if bodies.aabb()[s].overlaps(&bodies.aabb()[k]) {
                    self.pairs.push((s as u32, k as u32));
                }
            }
        }
    }

    /// Tests this step's sensor pairs for overlap and writes the sensor events; `asleep` says
    /// per slot which bodies sleep.
    pub fn update(&mut self, bodies: &BodyStore, asleep: &[bool], events: &mut ContactEvents) {
        let sensors = self;
        events.sensor_begin.clear();
        events.sensor_end.clear();
        events.sensor_end.append(&mut sensors.removed);
        if sensors.pairs.is_empty() && sensors.overlaps.is_empty() {
            return;
        }
        std::mem::swap(&mut sensors.overlaps, &mut sensors.previous);
        sensors.overlaps.clear();
        sensors.overlaps.par_extend(
            sensors
                .pairs
                .par_iter()
                .with_min_len(64)
                .filter(|&&pair| overlap(bodies, pair))
                .copied(),
        );
        // Overlaps of a sleeping body that were not tested stay: it has not moved.
        let tested = &sensors.pairs;
        let resting = sensors.previous.iter().filter(|&&(a, b)| {
            (asleep[a as usize] || asleep[b as usize]) && tested.binary_search(&(a, b)).is_err()
        });
        let before = sensors.overlaps.len();
        sensors.overlaps.extend(resting);
        if sensors.overlaps.len() > before {
            sensors.overlaps.sort_unstable();
        }

        let (old, new) = (&sensors.previous, &sensors.overlaps);
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < new.len() {
            if j == new.len() || (i < old.len() && old[i] < new[j]) {
                events.sensor_end.push(sensor_event(bodies, old[i]));
                i += 1;
            } else if i == old.len() || new[j] < old[i] {
                events.sensor_begin.push(sensor_event(bodies, new[j]));
                j += 1;
            } else {
                i += 1;
                j += 1;
            }
        }
        // Removal events came first; a stable sort keeps a removed body's event before that of
        // a newcomer in its slot. (Begins are sorted by sensor first; the events list pairs
        // lower slot first.)
        let slots = |e: &SensorEvent| {
            let (s, v) = (e.sensor.slot(), e.visitor.slot());
            (s.min(v), s.max(v))
        };
        events.sensor_end.sort_by_key(slots);
        events.sensor_begin.sort_by_key(slots);
    }
}

codec_struct!(Sensors { overlaps, removed } rebuilt { pairs, previous });

impl Sensors {
    /// `Err` unless the overlaps are sorted `(sensor, visitor)` pairs of two slots of
    /// `bodies`, the first a body with a sensor.
    pub fn check(&self, bodies: &BodyStore) -> Result<(), Error> {
        let n = bodies.slots();
        let pair_ok = |&(s, v): &(u32, u32)| {
            let (s, v) = (s as usize, v as usize);
            s != v && s < n && v < n && (bodies.sensor()[s] || bodies.sensor_parts()[s])
        };
        let ok = self.overlaps.iter().all(pair_ok) && self.overlaps.windows(2).all(|w| w[0] < w[1]);
        ok.then_some(())
            .ok_or_else(|| invalid("sensor overlaps out of range or order"))
    }
}
