//! The contact set: the narrowphase stage over the broadphase pairs (one manifold per pair,
//! from `manifold.rs`), and the persistence of contact points across steps so the solver can
//! warm start from last step's impulses.
//!
//! A pair with a polygon that touched last step and has barely moved since its manifold was
//! last computed recycles that manifold instead of running
//! [`shape_manifold`](crate::narrow_phase::manifold::shape_manifold) again: see `recycle`. Each chunk of
//! pairs gathers those that may recycle into batches for the recycle kernel, and collides the
//! others, and those the kernel turns down, afresh.

mod bases;
mod check;
mod codec;
mod set;
#[cfg(test)]
mod tests;
mod update;

use bases::{base_at, BaseSlot, BaseSlots, Bases, THAWED};

use crate::body::BodyStore;
use crate::broad_phase::compound::Children;
use crate::geometry::math::Vec2;
use crate::index::{BodySlot, ContactIndex};
use crate::narrow_phase::manifold::{Manifold, ManifoldPoint};
use crate::narrow_phase::recycle::{Base, PosesKernel, RecycleKernel, RecycleTolerance};
use crate::settings::MixRule;
use batch2d_kernels::BodyPose;

/// What contacts are sorted and matched by: the two body slots, then the shape pair.
pub(crate) type ContactKey = (BodySlot, BodySlot, Children);

/// A touching pair of shapes (at least one manifold point) of bodies `a < b` by slot. Which
/// shapes, for a compound body, is kept beside it in [`ContactSet`] (its key), not here: the
/// solver and graph read contacts in bulk and this stays small for them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Contact {
    pub a: BodySlot,
    pub b: BodySlot,
    pub manifold: Manifold,
    pub friction: f32,
    pub restitution: f32,
    /// Relative tangent speed (m/s) friction drives towards (a conveyor belt's); 0 unless
    /// the pre-solve hook set it this step.
    pub tangent_speed: f32,
}

impl Contact {
    /// Hints the CPU to start loading every cache line of the contact (two or three: it is
    /// not line-aligned). Only a hint: it changes no result.
    #[inline(always)]
    pub fn prefetch(&self) {
        prefetch(self);
        let start = (self as *const Contact).cast::<i8>();
        prefetch_line(start.wrapping_add(std::mem::size_of::<Contact>() - 1));
    }

    fn key(&self) -> (BodySlot, BodySlot) {
        (self.a, self.b)
    }

    /// Whether the contact has at most one point: the solver packs such contacts into batches
    /// of their own, which a faster kernel solves.
    #[inline]
    pub fn has_one_point(&self) -> bool {
        self.manifold.point_count <= 1
    }

    /// A placeholder slot, overwritten before it is read.
    fn empty() -> Contact {
        Contact {
            a: BodySlot::NONE,
            b: BodySlot::NONE,
            manifold: Manifold::default(),
            friction: 0.0,
            restitution: 0.0,
            tangent_speed: 0.0,
        }
    }
}

/// A touching contact set aside while its island sleeps: the manifold with its impulses (to
/// warm start from on waking) and the base that recycling measures motion from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrozenContact {
    contact: Contact,
    base: Base,
    children: Children,
}

impl FrozenContact {
    /// The slots of the pair, `a < b`.
    pub fn bodies(&self) -> (BodySlot, BodySlot) {
        self.contact.key()
    }

    /// Bodies and shapes: the order of the contact set.
    fn key(&self) -> ContactKey {
        (self.contact.a, self.contact.b, self.children)
    }
}

/// Mixing rules and distances the narrowphase needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NarrowPhaseParams {
    /// Gap within which bodies at rest relative to each other get contact points.
    pub speculative_distance: f32,
    /// Step length: a pair whose bodies move also gets points within the distance they can
    /// close in one step, so that the solver stops them at contact instead of after they
    /// have sunk into each other (which the push-out would then turn into a bounce).
    pub dt: f32,
    pub friction_mixing: MixRule,
    pub restitution_mixing: MixRule,
    /// Separation below which a point touches (`WorldSettings::linear_slop`; see
    /// `contact_events`).
    pub linear_slop: f32,
    /// Mix every contact's materials afresh, not carrying them from last step's contact: a
    /// pre-solve hook may have changed those (see `pre_solve`).
    pub remix: bool,
    /// The kernel that recycles manifolds, of the world's backend and instruction set.
    pub recycle: RecycleKernel,
    /// The kernel that finds the bodies' poses the recycling reads, likewise.
    pub poses: PosesKernel,
    /// How far a pair may move from its last full collide and still recycle its manifold.
    pub recycle_tolerance: RecycleTolerance,
}

/// The touching contacts of the last step, sorted by `(a, b, children)`.
#[derive(Default)]
pub(crate) struct ContactSet {
    /// This step's contacts, sorted by pair (by [`ContactKey`]).
    pub list: Vec<Contact>,
    /// `keys[i]` is `(contacts[i].a, contacts[i].b, children)`, packed so the merge-join with
    /// the new pairs reads 12 bytes per contact instead of a cache line. The shape pair lives
    /// only here.
    keys: Vec<ContactKey>,
    /// `base_of[i]`: where the base of `contacts[i]` is in `bases`, or `NONE` for a contact
    /// with nothing to recycle (a pair with a circle).
    base_of: Vec<u32>,
    /// `touching[i]`: whether `contacts[i]` touches (see `contact_events`), found while the
    /// narrowphase has the contact in cache, so that the step's events read a byte per
    /// contact where they would read the contact.
    touching: Vec<bool>,
    /// `one_point[i]`: whether `contacts[i]` has at most one point, found likewise for the
    /// coloring, which packs such contacts apart.
    one_point: Vec<bool>,
    /// `closing[i]`: where `contacts[i]` does not touch (elsewhere left as it was), the speed
    /// at which it closes in (`closing_in`, 0 where it does not), found likewise for the
    /// events; NaN where the narrowphase did not find it (a contact thawed after it ran, or
    /// flags rebuilt from the contacts alone), for the events to find.
    closing: Vec<f32>,
    /// The threshold `touching` was found with: the last update's linear slop.
    touch_threshold: f32,
    /// Whether the last update found the same pairs, in the same order, touching the same way
    /// as the update before, and nothing has changed the contacts since: then the touching
    /// pairs stand, and the step has no touch events.
    touching_as_before: bool,
    /// The last full collides of the contacts that recycle. Only pairs with a polygon have
    /// one, so a pile of circles keeps none.
    bases: Bases,
    /// Scratch: for each new pair, the same pair's contact last step, or `NONE`.
    previous: Vec<ContactIndex>,
    /// Scratch: the new contacts before non-touching ones are dropped, a slot per pair.
    candidates: Vec<Contact>,
    /// Scratch: per pair, `FAR` if it does not touch, else its base's index (`NONE` for
    /// none), as `base_of` holds it.
    found: Vec<u32>,
    /// Scratch: per pair, what the flags `touching` and `one_point` of its contact will be...
    new_touching: Vec<bool>,
    new_one_point: Vec<bool>,
    /// ...and its closing speed, where it is kept and does not touch.
    speed: Vec<f32>,
    /// Scratch: where each chunk's touching contacts go.
    chunk_starts: Vec<usize>,
    /// Scratch: each body's pose, as the recycle kernel reads them (see `body_poses`).
    poses: Vec<BodyPose>,
}

/// A copy of a [`ContactSet`] from before an update: see [`ContactSet::save`].
#[derive(Default)]
pub(crate) struct ContactBackup {
    list: Vec<Contact>,
    keys: Vec<ContactKey>,
    base_of: Vec<u32>,
    touching: Vec<bool>,
    one_point: Vec<bool>,
    closing: Vec<f32>,
    thawed: Vec<Base>,
    touch_threshold: f32,
    touching_as_before: bool,
    current: usize,
}

/// [`ContactSet::found`] of a pair that does not touch.
const FAR: u32 = u32::MAX - 1;

/// Pairs per parallel task. Within a task the shapes of the pair `PREFETCH_AHEAD` places on
/// are prefetched (in an update in place, those of the next eight pairs that will not
/// likely recycle): pairs join bodies far apart in memory (a pile's neighbours are a row of
/// bodies apart), and the shape is the one large record a pair reads per body.
const CHUNK: usize = 256;
const PREFETCH_AHEAD: usize = 6;

/// Hints the CPU to start loading `value` (its first two cache lines) into cache. Only a
/// hint: it changes no result.
#[inline(always)]
fn prefetch<T>(value: &T) {
    let p = (value as *const T).cast::<i8>();
    prefetch_line(p);
    prefetch_line(p.wrapping_add(64));
}

/// [`prefetch`] of entry `i` of `column`, which need not be there: an index past the end
/// prefetches some address beyond it, harmlessly, where indexing would check it first.
#[inline(always)]
fn prefetch_entry<T>(column: &[T], i: usize) {
    let p = column.as_ptr().wrapping_add(i).cast::<i8>();
    prefetch_line(p);
    prefetch_line(p.wrapping_add(64));
}

/// Hints the CPU to start loading the cache line holding `p`. Prefetching never faults and
/// reads nothing architecturally, whatever the address.
#[inline(always)]
fn prefetch_line(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: see above; the callers form `p` with `wrapping_add`, which keeps the
        // pointer arithmetic defined.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The body slots of a broadphase pair. The broadphase keeps its pairs raw `u32`: its grids
/// are code of their own, converted here where the narrowphase takes them.
#[inline]
fn body_slots((a, b): (u32, u32)) -> (BodySlot, BodySlot) {
    (BodySlot::new(a as usize), BodySlot::new(b as usize))
}

/// Whether a contact touches: a manifold point within `threshold` of touching, or one that
/// bounced in the last step.
pub(crate) fn touches(contact: &Contact, threshold: f32) -> bool {
    let m = &contact.manifold;
    m.points[..m.point_count]
        .iter()
        .any(|p| point_touches(p, threshold))
}

/// Whether a manifold point touches: within `threshold` of touching, or bounced in the last
/// step.
pub(crate) fn point_touches(p: &ManifoldPoint, threshold: f32) -> bool {
    p.separation < threshold || p.impact_impulse > 0.0
}

/// The centroid of the points of `contact` that satisfy `include`.
pub(crate) fn centroid(contact: &Contact, include: impl Fn(&ManifoldPoint) -> bool) -> Vec2 {
    let m = &contact.manifold;
    let (sum, count) = m.points[..m.point_count]
        .iter()
        .filter(|p| include(p))
        .fold((Vec2::ZERO, 0.0f32), |(sum, n), p| (sum + p.point, n + 1.0));
    sum * (1.0 / count.max(1.0))
}

/// The speed (m/s) at which the point `at` of body `b` moves towards body `a` along the
/// contact's normal, with the bodies' current velocities; negative when they move apart.
pub(crate) fn closing_speed(contact: &Contact, bodies: &BodyStore, at: Vec2) -> f32 {
    let velocity_at = |slot: BodySlot| {
        let s = slot.index();
        let r = at - bodies.center()[s];
        bodies.linear_velocity()[s] + Vec2::cross_sv(bodies.angular_velocity()[s], r)
    };
    let relative = velocity_at(contact.b) - velocity_at(contact.a);
    -relative.dot(contact.manifold.normal)
}

/// The speed at which a contact that does not touch closes in at its points' centroid, if it
/// does (see `ContactLog::approaching`).
pub(crate) fn closing_in(contact: &Contact, bodies: &BodyStore) -> Option<f32> {
    let speed = closing_speed(contact, bodies, centroid(contact, |_| true));
    (speed > 0.0).then_some(speed)
}
