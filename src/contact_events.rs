//! Contact events and contact data for users: which pairs began and stopped touching in the
//! last step, and the touching contacts with their points and solver impulses.
//!
//! The narrowphase keeps a manifold for every pair within the speculative reach (2 cm plus the
//! distance the pair can close in one step, which is large for fast bodies, even when they
//! move apart), so a manifold alone does not mean two shapes touch. Here a pair *touches* when
//! a point of its manifold is within the linear slop (`WorldSettings::linear_slop`, 5 mm by
//! default): resting contacts sit at or below zero separation, well inside it, so they do not
//! flicker. Manifolds are computed at the start of a step, so a contact begins (or ends) in
//! the step after the one in which the bodies met (or parted).
//!
//! Events cost one pass over this step's contacts to list the touching pairs, and one
//! merge-join of that sorted list with last step's: about 0.1 ms a step for the 15000
//! contacts of `large_pyramid` (under 2% of its step on 2 cores). Marking pairs as touching
//! in the narrowphase instead, to skip the pass over the manifolds, measured no faster: the
//! marks then have to be read for every candidate pair, several times as many as contacts.

use crate::body::{BodyId, BodyStore};
use crate::contact::Contact;
use crate::manifold::{Manifold, ManifoldPoint};
use crate::math::Vec2;
use crate::removal::Removed;
use crate::resting_grid::merge_sorted;
use crate::world::World;
use std::cmp::Ordering;

/// Two bodies that began or stopped touching. `a` was created in a lower slot than `b`
/// (`a.slot() < b.slot()`), as in [`World::contacts`]. Events are per body pair: a compound
/// body that touches another body with several of its shapes begins touching it once, when
/// the first of its shapes does, and stops once, when the last one lets go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TouchEvent {
    /// The body in the lower slot.
    pub a: BodyId,
    /// The body in the higher slot.
    pub b: BodyId,
}

/// The contact events of the last step, each list sorted by `(a.slot(), b.slot())`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContactEvents {
    begin: Vec<TouchEvent>,
    end: Vec<TouchEvent>,
}

impl ContactEvents {
    /// Pairs that touch after the last step and did not before it.
    pub fn begin(&self) -> &[TouchEvent] {
        &self.begin
    }

    /// Pairs that touched before the last step and do not after it, including the contacts
    /// of bodies removed since the step before (their handles are stale by then, but still
    /// say which bodies they were).
    pub fn end(&self) -> &[TouchEvent] {
        &self.end
    }
}

/// The events of the last step and what the next step's events need.
#[derive(Default)]
pub(crate) struct ContactLog {
    events: ContactEvents,
    /// Touching pairs after the last step, sorted, less those of bodies removed since.
    touching: Vec<(u32, u32)>,
    /// Scratch: the touching pairs of the step before.
    previous: Vec<(u32, u32)>,
    /// Scratch: touching pairs of sleeping bodies, carried over.
    sleeping: Vec<(u32, u32)>,
    /// End events of removed bodies, reported with the next step.
    removed: Vec<TouchEvent>,
    /// Substep length of the last step, to turn impulses into forces.
    substep: f32,
    /// Separation below which a manifold point touches: the last step's linear slop.
    threshold: f32,
}

/// Whether a contact touches: a manifold point within `threshold` of touching.
fn touches(contact: &Contact, threshold: f32) -> bool {
    let m = &contact.manifold;
    m.points[..m.point_count]
        .iter()
        .any(|p| p.separation < threshold)
}

impl ContactLog {
    /// Records the end of every touching pair of the bodies `gone` marks as removed, naming
    /// them by the handles they had.
    pub fn bodies_removed(&mut self, bodies: &BodyStore, gone: &Removed) {
        let mut removed = std::mem::take(&mut self.removed);
        let id = |s: u32| gone.id(s).unwrap_or_else(|| bodies.id(s as usize));
        self.touching.retain(|&(a, b)| {
            let involved = gone.either(a, b);
            if involved {
                removed.push(TouchEvent { a: id(a), b: id(b) });
            }
            !involved
        });
        self.removed = removed;
    }

    /// Replaces the events with those of the step whose (sorted) `contacts` were just made.
    /// `asleep`, when some island sleeps, says per slot whether the body sleeps: the contacts
    /// of sleeping islands are set aside, not ended, so their pairs stay touching.
    pub fn step_done(
        &mut self,
        contacts: &[Contact],
        bodies: &BodyStore,
        asleep: Option<&[bool]>,
        substep: f32,
        linear_slop: f32,
    ) {
        self.substep = substep;
        self.threshold = linear_slop;
        std::mem::swap(&mut self.touching, &mut self.previous);
        self.touching.clear();
        let touching = contacts.iter().filter(|c| touches(c, linear_slop));
        self.touching.extend(touching.map(|c| (c.a, c.b)));
        if !bodies.compound_slots.is_empty() {
            // A compound body touches another body through any of its shapes: events are per
            // body pair, and the contacts of one pair are adjacent (sorted by bodies first).
            self.touching.dedup();
        }
        if let Some(asleep) = asleep {
            // A moving body touching a sleeping one has woken it before this point, so these
            // pairs are not among `contacts`.
            let sleeping = self.previous.iter().filter(|&&(a, b)| {
                asleep.get(a as usize) == Some(&true) || asleep.get(b as usize) == Some(&true)
            });
            self.sleeping.clear();
            self.sleeping.extend(sleeping);
            merge_sorted(&mut self.touching, &self.sleeping);
        }

        let events = &mut self.events;
        events.begin.clear();
        events.end.clear();
        events.end.append(&mut self.removed);
        let (old, new) = (&self.previous, &self.touching);
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < new.len() {
            let order = match (old.get(i), new.get(j)) {
                (Some(o), Some(n)) => o.cmp(n),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            match order {
                Ordering::Less => {
                    events.end.push(event(bodies, old[i].0, old[i].1));
                    i += 1;
                }
                Ordering::Greater => {
                    events.begin.push(event(bodies, new[j].0, new[j].1));
                    j += 1;
                }
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
            }
        }
        // Removal events came first; both parts are sorted, and a stable sort keeps a removed
        // body's event before that of a newcomer in its slot.
        events.end.sort_by_key(|e| (e.a.slot(), e.b.slot()));
    }
}

fn event(bodies: &BodyStore, a: u32, b: u32) -> TouchEvent {
    TouchEvent {
        a: bodies.id(a as usize),
        b: bodies.id(b as usize),
    }
}

/// A touching contact after the last step: the two bodies, the manifold (normal from `a` to
/// `b`, points with separations, feature ids and the solver's impulses) and the mixed
/// material.
#[derive(Clone, Copy, Debug)]
pub struct ContactData<'a> {
    /// The body in the lower slot.
    pub a: BodyId,
    /// The body in the higher slot.
    pub b: BodyId,
    /// Normal, points and impulses. [`ManifoldPoint::normal_impulse`] and
    /// [`ManifoldPoint::tangent_impulse`] are the solver's accumulated impulses of the last
    /// substep (the soft step re-applies them every substep to warm start), so a steady
    /// contact transmits `substeps` times that over the step: see
    /// [`ContactData::normal_force`].
    pub manifold: &'a Manifold,
    /// Mixed friction coefficient.
    pub friction: f32,
    /// Mixed restitution.
    pub restitution: f32,
    /// Which of `a`'s shapes the contact is on: the index into [`World::shapes`] of `a`, 0
    /// for a one-shape body.
    pub shape_a: usize,
    /// Which of `b`'s shapes the contact is on (see [`ContactData::shape_a`]).
    pub shape_b: usize,
    substep: f32,
}

impl ContactData<'_> {
    /// The points in use.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.manifold.points[..self.manifold.point_count]
    }

    /// Unit normal from `a` to `b`.
    pub fn normal(&self) -> Vec2 {
        self.manifold.normal
    }

    /// Force (N) with which `a` pushes `b` along the normal in the last substep (`b` is
    /// pushed along `normal`, `a` the opposite way): the points'
    /// normal impulses over the substep length. Times the step length, the impulse over the
    /// step for a steady contact (`m g dt` for a body of mass `m` resting on the ground).
    pub fn normal_force(&self) -> f32 {
        self.points().iter().map(|p| p.normal_impulse).sum::<f32>() / self.substep
    }

    /// Friction force (N) on `b` in the last substep, from the points' tangent impulses,
    /// signed along the tangent `normal.right_perp()`; `a` feels the opposite.
    pub fn friction_force(&self) -> f32 {
        self.points().iter().map(|p| p.tangent_impulse).sum::<f32>() / self.substep
    }
}

impl World {
    /// Pairs that began and stopped touching in the last step (see the module docs in
    /// `contact_events.rs` for what touching means), plus the ends of contacts of bodies
    /// removed before it. Deterministic: sorted by slot, the same for any thread count and
    /// backend. A sleeping island's contacts are set aside, not ended: falling asleep and
    /// waking up produce no events.
    pub fn contact_events(&self) -> &ContactEvents {
        &self.events.events
    }

    /// The touching contacts after the last step (those the events report; see the module
    /// docs in `contact_events.rs`), sorted by `(a.slot(), b.slot(), shape_a, shape_b)`: one
    /// per touching pair of shapes, so a compound body (see [`World::add_compound_body`])
    /// resting on two feet has two contacts with the ground. [`World::contact_count`]
    /// also counts the speculative manifolds of pairs that do not touch yet. The contacts of
    /// sleeping islands are set aside and not listed until they wake.
    pub fn contacts(&self) -> impl Iterator<Item = ContactData<'_>> + '_ {
        let (substep, threshold) = (self.events.substep, self.events.threshold);
        let all = self.contacts.contacts.iter().zip(self.contacts.children());
        let removed = &self.removed;
        all.filter(move |(c, _)| touches(c, threshold) && !removed.either(c.a, c.b))
            .map(move |(c, children)| (c, crate::contact::split_children(children)))
            .map(move |(c, (shape_a, shape_b))| ContactData {
                a: self.bodies.id(c.a as usize),
                b: self.bodies.id(c.b as usize),
                manifold: &c.manifold,
                friction: c.friction,
                restitution: c.restitution,
                shape_a,
                shape_b,
                substep,
            })
    }
}
