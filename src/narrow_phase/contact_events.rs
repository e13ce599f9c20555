//! How a step finds its contact events (the types are in `events.rs`): which pairs began and
//! stopped touching in the last step, and which touching contacts `World::contacts` lists.
//!
//! The narrowphase keeps a manifold for every pair within the speculative reach (2 cm plus the
//! distance the pair can close in one step, which is large for fast bodies, even when they
//! move apart), so a manifold alone does not mean two shapes touch. Here a pair *touches* when
//! a point of its manifold is within the linear slop (`WorldSettings::linear_slop`, 5 mm by
//! default), or bounced in the step before (its points' `impact_impulse`): resting contacts
//! sit at or below zero separation, well inside the slop, so they do not flicker, and a body
//! that bounces off another within one step, from a gap to a gap, still touched it.
//! Manifolds are computed at the start of a step, so a contact begins (or ends) in the step
//! after the one in which the bodies met (or parted); [`World::contacts`](crate::World::contacts) lists a bounce
//! already after the step in which it happened.
//!
//! Events cost one pass over this step's contacts to list the touching pairs, and one
//! merge-join of that sorted list with last step's. Marking pairs as touching in the
//! narrowphase instead, to skip the pass over the manifolds, measured no faster: the marks
//! then have to be read for every candidate pair, several times as many as contacts.
//!
//! A begin event says how fast the bodies met. By the step in which their manifold touches,
//! the solver has already stopped them (a speculative contact halts a body at the surface in
//! the step it arrives), so their velocities then say little. The same pass therefore notes,
//! for every pair that is not touching yet but closing, the speed at which it will meet (its
//! closing speed at the start of the step, with gravity's pull over the gap: see `hit.rs`); a
//! pair that begins touching in the next step reports that speed, and those faster than
//! `WorldSettings::hit_event_threshold` are hits too. A pair that begins without having closed
//! in on the step before (created or moved into contact) reports its closing speed at the
//! start of the step in which it begins.

use crate::body::BodyStore;
use crate::broad_phase::compound::split_children;
use crate::codec::{codec_struct, invalid};
use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::index::BodySlot;
use crate::narrow_phase::contact::{centroid, closing_speed, point_touches, touches, ContactSet};
use crate::narrow_phase::events::{ContactData, ContactEvents, HitEvent, TouchBegin, TouchEvent};
use crate::narrow_phase::hit::meeting_speed;
use crate::narrow_phase::removal::Removed;

/// The events of the last step and what the next step's events need.
#[derive(Clone, Default)]
pub(crate) struct ContactLog {
    pub events: ContactEvents,
    /// Touching pairs after the last step, sorted, less those of bodies removed since.
    touching: Vec<(BodySlot, BodySlot)>,
    /// Scratch: the touching pairs of the step before.
    previous: Vec<(BodySlot, BodySlot)>,
    /// End events of removed bodies, reported with the next step.
    removed: Vec<TouchEvent>,
    /// Pairs that had a manifold but did not touch in the last step, with the speed at which
    /// they meet should they meet in that step (only those closing in; see `hit.rs`), sorted
    /// by pair.
    approaching: Vec<(BodySlot, BodySlot, f32)>,
    /// Scratch: `approaching` of the step before.
    previous_approaching: Vec<(BodySlot, BodySlot, f32)>,
    /// Substep length of the last step, to turn impulses into forces.
    substep: f32,
    /// Separation below which a manifold point touches: the last step's linear slop.
    threshold: f32,
}

/// The settings the events of a step read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventParams {
    /// Substep length (s), to turn impulses into forces.
    pub substep: f32,
    /// Separation below which a manifold point touches (`WorldSettings::linear_slop`).
    pub linear_slop: f32,
    /// The world's gravity, which speeds an approach over the gap.
    pub gravity: Vec2,
    /// Impact speed above which a begin is also a hit.
    pub hit_threshold: f32,
}

impl ContactLog {
    /// The touching contacts of `set` (see [`ContactEvents`]), less those of bodies in
    /// `removed`, sorted by `(a.slot(), b.slot(), shape_a, shape_b)`.
    pub fn touching_contacts<'a>(
        &self,
        set: &'a ContactSet,
        bodies: &'a BodyStore,
        removed: &'a Removed,
    ) -> impl Iterator<Item = ContactData<'a>> + 'a {
        let (substep, threshold) = (self.substep, self.threshold);
        let all = set.list.iter().zip(set.children());
        all.filter(move |(c, _)| touches(c, threshold) && !removed.either(c.a, c.b))
            .map(move |(c, children)| (c, split_children(children)))
            .map(move |(c, (shape_a, shape_b))| ContactData {
                a: bodies.id(c.a.index()),
                b: bodies.id(c.b.index()),
                manifold: &c.manifold,
                friction: c.friction,
                restitution: c.restitution,
                shape_a,
                shape_b,
                substep,
            })
    }

    /// Drops the contacts and touching pairs of the bodies removed since the last step, noting
    /// an end event for each touching pair, and forgets the removals: the first thing a step
    /// does.
    pub fn drop_removed(
        &mut self,
        removed: &mut Removed,
        contacts: &mut ContactSet,
        bodies: &BodyStore,
    ) {
        if removed.is_empty() {
            return;
        }
        contacts.remove_bodies(|a, b| removed.either(a, b));
        self.bodies_removed(bodies, removed);
        removed.clear();
    }

    /// Records the end of every touching pair of the bodies `gone` marks as removed, naming
    /// them by the handles they had.
    pub fn bodies_removed(&mut self, bodies: &BodyStore, gone: &Removed) {
        let mut removed = std::mem::take(&mut self.removed);
        let id = |s: BodySlot| gone.id(s).unwrap_or_else(|| bodies.id(s.index()));
        self.touching.retain(|&(a, b)| {
            let involved = gone.either(a, b);
            if involved {
                removed.push(TouchEvent { a: id(a), b: id(b) });
            }
            !involved
        });
        self.removed = removed;
        self.approaching.retain(|&(a, b, _)| !gone.either(a, b));
    }

    /// Records the end of every touching pair of the body in `slot` that no contact of `set`
    /// touches any more: a shape of the body was just removed with its contacts (the body's
    /// island awake, so that every pair it touches is in `set`).
    pub fn shape_removed(&mut self, set: &ContactSet, bodies: &BodyStore, slot: BodySlot) {
        let (keys, touching) = (set.keys(), set.touching());
        let removed = &mut self.removed;
        self.touching.retain(|&(a, b)| {
            if a != slot && b != slot {
                return true;
            }
            let first = keys.partition_point(|&(ka, kb, _)| (ka, kb) < (a, b));
            let still = (first..keys.len())
                .take_while(|&i| (keys[i].0, keys[i].1) == (a, b))
                .any(|i| touching[i]);
            if !still {
                removed.push(TouchEvent {
                    a: bodies.id(a.index()),
                    b: bodies.id(b.index()),
                });
            }
            still
        });
    }

    /// Replaces the events with those of the step whose (sorted) `contacts` were just made.
    /// `asleep`, when some island sleeps, says per slot whether the body sleeps: the contacts
    /// of sleeping islands are set aside, not ended, so their pairs stay touching.
    pub fn step_done(
        &mut self,
        set: &ContactSet,
        bodies: &BodyStore,
        asleep: Option<&[bool]>,
        params: &EventParams,
    ) {
        self.substep = params.substep;
        self.threshold = params.linear_slop;
        std::mem::swap(&mut self.approaching, &mut self.previous_approaching);
        self.approaching.clear();
        let events = &mut self.events;
        events.begin.clear();
        events.end.clear();
        events.hit.clear();
        events.end.append(&mut self.removed);
        if asleep.is_none() && set.touching_as_before() {
            // A resting scene: the same contacts touch as in the step before, so the touching
            // pairs stand and no pair begins or ends touching. This skips listing every
            // touching pair, a pass over all contacts that on two threads takes longer than
            // the coloring beside it.
            self.list_approaching(set, bodies, params.gravity);
        } else {
            self.list_touching(set, bodies, asleep, params.gravity);
            self.compare(set, bodies, params);
        }
        // Removal events came first; both parts are sorted, and a stable sort keeps a removed
        // body's event before that of a newcomer in its slot.
        self.events.end.sort_by_key(|e| (e.a.slot(), e.b.slot()));
    }

    /// Lists the contacts of `set` that do not touch but close in, with the speeds at which
    /// they would meet.
    fn list_approaching(&mut self, set: &ContactSet, bodies: &BodyStore, gravity: Vec2) {
        let (keys, touching) = (set.keys(), set.touching());
        for i in (0..touching.len()).filter(|&i| !touching[i]) {
            if let Some(speed) = set.closing_in(i, bodies) {
                let (a, b, _) = keys[i];
                let speed = meeting_speed(&set.list[i], bodies, speed, gravity);
                self.approaching.push((a, b, speed));
            }
        }
    }

    /// Lists the touching pairs of `set` (after those of the step before, which become
    /// `previous`) and, as [`ContactLog::list_approaching`], the contacts that close in.
    fn list_touching(
        &mut self,
        set: &ContactSet,
        bodies: &BodyStore,
        asleep: Option<&[bool]>,
        gravity: Vec2,
    ) {
        std::mem::swap(&mut self.touching, &mut self.previous);
        self.touching.clear();
        // The narrowphase found which contacts touch (with this step's linear slop): the pairs
        // come from the compact keys, and only contacts that do not touch are read. A compound
        // body touches another body through any of its shapes: events are per body pair, and
        // the contacts of one pair are adjacent (sorted by bodies first), so each pair is
        // listed once.
        let (keys, touching) = (set.keys(), set.touching());
        let Some(asleep) = asleep else {
            // Nothing sleeps: the loop every busy step runs, with nothing to merge in. The last
            // pair listed is kept at hand, where the list's end would be read from memory; it
            // starts as a pair no contact has (a contact's first slot is below its second).
            let mut last = (BodySlot::NONE, BodySlot::NONE);
            for (i, (&(a, b, _), &touches)) in keys.iter().zip(touching).enumerate() {
                if touches {
                    if (a, b) != last {
                        last = (a, b);
                        self.touching.push(last);
                    }
                } else if let Some(speed) = set.closing_in(i, bodies) {
                    let speed = meeting_speed(&set.list[i], bodies, speed, gravity);
                    self.approaching.push((a, b, speed));
                }
            }
            return;
        };
        // The touching pairs of sleeping bodies, sorted, merged in as the contacts go. A moving
        // body touching a sleeping one has woken it before this point, so these pairs are not
        // among `contacts`.
        let sleeps = |s: BodySlot| asleep.get(s.index()) == Some(&true);
        let mut sleeping = (self.previous.iter().copied())
            .filter(|&(a, b)| sleeps(a) || sleeps(b))
            .peekable();
        for (i, (&(a, b, _), &touches)) in keys.iter().zip(touching).enumerate() {
            if touches {
                let pair = (a, b);
                while let Some(earlier) = sleeping.next_if(|&p| p < pair) {
                    self.touching.push(earlier);
                }
                if self.touching.last() != Some(&pair) {
                    self.touching.push(pair);
                }
            } else if let Some(speed) = set.closing_in(i, bodies) {
                let speed = meeting_speed(&set.list[i], bodies, speed, gravity);
                self.approaching.push((a, b, speed));
            }
        }
        self.touching.extend(sleeping);
    }

    /// Adds the begin and end events between the touching pairs of the step before and this
    /// step's, both sorted.
    fn compare(&mut self, set: &ContactSet, bodies: &BodyStore, params: &EventParams) {
        let events = &mut self.events;
        let (old, new) = (&self.previous, &self.touching);
        let mut approaching = self.previous_approaching.iter().peekable();
        // Where the begins' contacts are found: past the last one's, as the begins are sorted.
        let mut contacts_from = 0;
        let (mut i, mut j) = (0, 0);
        loop {
            // Few pairs begin or end in a step (the touching pairs often stand where the
            // contacts did not: a manifold that does not touch came or went, or an island
            // sleeps): most of both lists is runs of the same pairs, passed over by this tight
            // loop rather than by the merge's three-way steps.
            let run = common_prefix(&old[i..], &new[j..]);
            (i, j) = (i + run, j + run);
            let ends = match (old.get(i), new.get(j)) {
                (Some(o), Some(n)) => o < n,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if ends {
                events.end.push(event(bodies, old[i].0, old[i].1));
                i += 1;
            } else {
                // Both lists are sorted, and so are the begins: the pair's closing speeds
                // of the step before, if any, are next in line.
                let pair = new[j];
                while approaching.next_if(|&&(a, b, _)| (a, b) < pair).is_some() {}
                // A compound pair may have several, one per shape pair: the fastest counts.
                let mut earlier: Option<f32> = None;
                while let Some(&(_, _, speed)) = approaching.next_if(|&&(a, b, _)| (a, b) == pair) {
                    earlier = Some(earlier.map_or(speed, |e| e.max(speed)));
                }
                let index = first_touching(set, pair, contacts_from);
                contacts_from = index;
                let begin = begin_event(set, bodies, index, earlier, params.linear_slop);
                if begin.approach_speed > params.hit_threshold {
                    events.hit.push(HitEvent {
                        a: begin.a,
                        b: begin.b,
                        shape_a: begin.shape_a,
                        shape_b: begin.shape_b,
                        point: begin.point,
                        normal: begin.normal,
                        speed: begin.approach_speed,
                    });
                }
                events.begin.push(begin);
                j += 1;
            }
        }
    }
}

/// How many pairs `a` and `b` begin with in common: compared a chunk at a time, with one branch
/// per chunk, as the lists are mostly long runs of the same pairs.
fn common_prefix(a: &[(BodySlot, BodySlot)], b: &[(BodySlot, BodySlot)]) -> usize {
    const CHUNK: usize = 8;
    let (a_chunks, _) = a.as_chunks::<CHUNK>();
    let (b_chunks, _) = b.as_chunks::<CHUNK>();
    let mut run = 0;
    type Pair = (BodySlot, BodySlot);
    let same = |(p, q): (&Pair, &Pair)| (p.0 == q.0) & (p.1 == q.1);
    for (x, y) in a_chunks.iter().zip(b_chunks) {
        if !x.iter().zip(y).map(same).fold(true, |all, s| all & s) {
            break;
        }
        run += CHUNK;
    }
    let rest = a[run..].iter().zip(&b[run..]);
    run + rest.take_while(|(p, q)| p == q).count()
}

/// The index of the first touching contact of `pair` in `set`, which has one at `from` or
/// after: the contacts of a pair are adjacent in key order. Only a begin event looks for one,
/// so the search gallops from `from` (the last begin's contact) instead of the touching pairs
/// keeping their first contacts.
fn first_touching(set: &ContactSet, pair: (BodySlot, BodySlot), from: usize) -> usize {
    let (keys, touching) = (set.keys(), set.touching());
    let before = |i: usize| (keys[i].0, keys[i].1) < pair;
    let mut step = 1;
    while from + step < keys.len() && before(from + step) {
        step *= 2;
    }
    let window = from + step / 2..(from + step + 1).min(keys.len());
    let first = window.start + keys[window].partition_point(|&(a, b, _)| (a, b) < pair);
    (first..keys.len())
        .take_while(|&i| (keys[i].0, keys[i].1) == pair)
        .find(|&i| touching[i])
        .unwrap_or(first)
}

fn event(bodies: &BodyStore, a: BodySlot, b: BodySlot) -> TouchEvent {
    TouchEvent {
        a: bodies.id(a.index()),
        b: bodies.id(b.index()),
    }
}

/// The begin event of the pair of contact `index`, its first touching contact in this step's
/// `set`; `earlier` is the pair's meeting speed noted in the step before, if it was closing
/// in then.
fn begin_event(
    set: &ContactSet,
    bodies: &BodyStore,
    index: usize,
    earlier: Option<f32>,
    threshold: f32,
) -> TouchBegin {
    let contact = &set.list[index];
    let point = centroid(contact, |p| point_touches(p, threshold));
    let approach_speed = earlier.unwrap_or_else(|| closing_speed(contact, bodies, point));
    let (shape_a, shape_b) = split_children(set.shape_pair(index));
    TouchBegin {
        a: bodies.id(contact.a.index()),
        b: bodies.id(contact.b.index()),
        shape_a,
        shape_b,
        point,
        normal: contact.manifold.normal,
        approach_speed: approach_speed.max(0.0),
    }
}

codec_struct!(ContactLog {
    events,
    touching,
    removed,
    approaching,
    substep,
    threshold
} rebuilt {
    previous,
    previous_approaching
});

impl ContactLog {
    /// `Err` with the reason unless the pairs kept for the next step's events are sorted pairs
    /// of slots of `bodies`, lower slot first, with finite speeds.
    pub fn check(&self, bodies: &BodyStore) -> Result<(), Error> {
        let pair_ok = |a: BodySlot, b: BodySlot| a < b && b.index() < bodies.slots();
        let touching = self.touching.iter().all(|&(a, b)| pair_ok(a, b));
        let approaching =
            (self.approaching.iter()).all(|&(a, b, v)| pair_ok(a, b) && v.is_finite());
        let sorted = self.touching.windows(2).all(|w| w[0] < w[1])
            && (self.approaching.windows(2)).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1));
        let numbers = self.substep.is_finite() && self.threshold.is_finite();
        if touching && approaching && sorted && numbers {
            Ok(())
        } else {
            Err(invalid(
                "touching or approaching pairs out of range or order",
            ))
        }
    }
}
