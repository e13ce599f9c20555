//! Sensors: shapes that report the bodies overlapping them and push nothing.
//!
//! The broadphase finds a sensor's pairs like any others; they are taken out of the pairs
//! before the narrowphase, so no contact, island, solver lane or continuous sweep ever sees a
//! sensor, and each is tested for overlap instead. Overlap is judged at the poses the step
//! starts from, like contact manifolds, and events come from comparing the sorted list of
//! overlapping pairs with last step's. A sleeping body's overlaps are carried over while the
//! pair is not tested (a sleeping body is in no per-step pair with a static one), so falling
//! asleep inside a sensor ends nothing, as it ends no contact.

use crate::body::{BodyId, BodyStore};
use crate::codec::{codec_struct, invalid};
use crate::error::Error;
use crate::geometry::exact_overlap::{self, Core};
use crate::narrow_phase::contact_events::ContactEvents;
use rayon::prelude::*;

/// A body that began or stopped overlapping a sensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorEvent {
    /// The body whose shape is the sensor.
    pub sensor: BodyId,
    /// The body overlapping it.
    pub visitor: BodyId,
}

/// The sensor pairs of the step and the overlaps of the last.
#[derive(Clone, Default)]
pub(crate) struct Sensors {
    /// This step's broadphase pairs with one sensor, sorted.
    pairs: Vec<(u32, u32)>,
    /// The pairs that overlap after the last step, sorted.
    overlaps: Vec<(u32, u32)>,
    /// Scratch: `overlaps` of the step before.
    previous: Vec<(u32, u32)>,
    /// End events of removed bodies, reported with the next step.
    removed: Vec<SensorEvent>,
}

/// The event of pair `(a, b)`, one of which is a sensor.
fn sensor_event(bodies: &BodyStore, (a, b): (u32, u32)) -> SensorEvent {
    let (sensor, visitor) = if bodies.sensor[a as usize] {
        (a, b)
    } else {
        (b, a)
    };
    SensorEvent {
        sensor: bodies.id(sensor as usize),
        visitor: bodies.id(visitor as usize),
    }
}

/// Whether the bodies of pair `(a, b)` overlap: the sensor's one shape against any shape of
/// the other body that its layers and mask let it see.
fn overlap(bodies: &BodyStore, (a, b): (u32, u32)) -> bool {
    let (sensor, visitor) = if bodies.sensor[a as usize] {
        (a as usize, b as usize)
    } else {
        (b as usize, a as usize)
    };
    let (layers, mask) = (bodies.layers[sensor], bodies.mask[sensor]);
    let (xf_sensor, xf_visitor) = (bodies.transform(sensor), bodies.transform(visitor));
    let shape = &bodies.shape[sensor];
    bodies
        .shapes(visitor)
        .iter()
        .enumerate()
        .any(|(child, other)| {
            let (other_layers, other_mask) = bodies.child_filter(visitor, child);
            layers & other_mask != 0
                && other_layers & mask != 0
                && exact_overlap::overlap(&Core::of(shape, xf_sensor), &Core::of(other, xf_visitor))
        })
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
    /// Broadphase, last part: moves the pairs with a sensor out of the broadphase `pairs` into
    /// the sensors' own (pairs of two sensors are dropped).
    pub fn take_pairs(&mut self, bodies: &BodyStore, pairs: &mut Vec<(u32, u32)>) {
        let sensors = self;
        sensors.pairs.clear();
        if bodies.sensor_count == 0 {
            return;
        }
        let is_sensor = &bodies.sensor;
        pairs.retain(|&(a, b)| {
            let (sa, sb) = (is_sensor[a as usize], is_sensor[b as usize]);
            if sa != sb {
                sensors.pairs.push((a, b));
            }
            !(sa || sb)
        });
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
        // a newcomer in its slot.
        let slots = |e: &SensorEvent| {
            let (s, v) = (e.sensor.slot(), e.visitor.slot());
            (s.min(v), s.max(v))
        };
        events.sensor_end.sort_by_key(slots);
    }
}

codec_struct!(SensorEvent { sensor, visitor });

codec_struct!(Sensors { overlaps, removed } rebuilt { pairs, previous });

impl Sensors {
    /// `Err` unless the overlaps are sorted pairs of slots of `bodies`, lower slot first.
    pub fn check(&self, bodies: &BodyStore) -> Result<(), Error> {
        let n = bodies.slots() as u32;
        let ok = self.overlaps.iter().all(|&(a, b)| a < b && b < n)
            && self.overlaps.windows(2).all(|w| w[0] < w[1]);
        ok.then_some(())
            .ok_or_else(|| invalid("sensor overlaps out of range or order"))
    }
}
