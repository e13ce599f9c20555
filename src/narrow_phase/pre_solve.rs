//! The pre-solve hook: a user function called for every contact of a step between the
//! narrowphase and the solver, which may disable the contact for the step (one-way platforms)
//! or change its friction, restitution and tangent speed (conveyor belts).
//!
//! The hook runs on the worker threads, over the contacts in chunks, and each call sees only
//! its own contact: a copy of what the solver will read, written back by contact index. So
//! the result does not depend on which thread ran which call, or in which order, as long as
//! the hook itself is a function of its contact.
//!
//! A step must leave the world as it was when it is refused, and by the time the hook runs
//! the narrowphase has replaced the contacts. With a hook set, the world therefore copies the
//! contact set before the narrowphase (`ContactSet::save`), and puts it back when the hook
//! panics or returns a value the solver cannot take; nothing else has changed by then that
//! the world shows (the broadphase's boxes and grid are remade from the poses every step).
//!
//! The narrowphase carries a one-shape pair's materials from last step's contact, whose
//! friction a hook may have changed: with a hook set it mixes them afresh instead.

use crate::body::{BodyId, BodyStore};
use crate::broad_phase::compound::split_children;
use crate::error::{panic_message, Error};
use crate::geometry::math::Vec2;
use crate::narrow_phase::contact::{Contact, ContactBackup, ContactKey, ContactSet};
use crate::narrow_phase::manifold::ManifoldPoint;
use rayon::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The pre-solve hook's type: see [`World::set_pre_solve`](crate::World::set_pre_solve).
pub type PreSolveFn = dyn Fn(&mut PreSolveContact) -> bool + Send + Sync;

/// One contact as the pre-solve hook sees it, before the solver: the bodies, shapes, normal and
/// points, and the coefficients the hook may change for this step. Changes to the other fields
/// are ignored.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct PreSolveContact<'a> {
    /// The body in the lower slot (created first, or in a freed slot reused).
    pub a: BodyId,
    /// The body in the higher slot.
    pub b: BodyId,
    /// Which of `a`'s shapes (the index into [`World::shapes`](crate::World::shapes)).
    pub shape_a: usize,
    /// Which of `b`'s shapes.
    pub shape_b: usize,
    /// Unit normal from `a` to `b`.
    pub normal: Vec2,
    /// The manifold's points: where (midway between the surfaces), how far apart (negative
    /// when overlapping; a contact is kept from a few centimetres before touching, see
    /// [`ContactEvents`](crate::ContactEvents)), and last step's impulses.
    pub points: &'a [ManifoldPoint],
    /// Friction coefficient (>= 0, finite): the shapes' coefficients mixed by
    /// [`WorldSettings::friction_mixing`](crate::WorldSettings::friction_mixing).
    pub friction: f32,
    /// Restitution (>= 0, finite), mixed by
    /// [`WorldSettings::restitution_mixing`](crate::WorldSettings::restitution_mixing).
    pub restitution: f32,
    /// Relative tangent speed (m/s, finite) that friction drives the contact towards: the
    /// speed at which `b` slides relative to `a` along the tangent `normal.right_perp()`.
    /// 0, plain friction, by default. A conveyor belt carries the body on it at
    /// `tangent_speed` m/s, as far as friction can, along `right_perp` of the normal pointing
    /// from the belt to the body, whichever of `a` and `b` the belt is (both the normal and
    /// the relative velocity turn around): a belt under a box, normal up, carries it towards
    /// +x.
    pub tangent_speed: f32,
}

/// The hook, and what the world keeps to run it.
#[derive(Default)]
pub(crate) struct PreSolve {
    /// The user's hook, shared: a copy of the world calls the same function.
    pub hook: Option<Arc<PreSolveFn>>,
    /// The contacts from before this step's narrowphase, to restore when the hook fails.
    pub backup: ContactBackup,
    /// Scratch: per contact, whether the hook disabled it.
    disabled: Vec<bool>,
}

/// Contacts per task of the hook's parallel pass.
const CHUNK: usize = 256;

impl PreSolve {
    /// The same hook, without the scratch: for a copy of the world.
    pub fn share(&self) -> PreSolve {
        PreSolve {
            hook: self.hook.clone(),
            ..PreSolve::default()
        }
    }

    /// Runs the hook on every contact of `set`, writes back what it changed and drops the
    /// contacts it disabled. `Err` when a call panicked or set a value out of range (the first
    /// such contact in contact order); `set` is then partly changed, for the caller to restore
    /// from `backup`.
    pub fn run(&mut self, set: &mut ContactSet, bodies: &BodyStore) -> Result<(), Error> {
        let Some(hook) = self.hook.as_deref() else {
            return Ok(());
        };
        let (contacts, keys) = set.hooked();
        self.disabled.clear();
        self.disabled.resize(contacts.len(), false);
        let outcome = contacts
            .par_chunks_mut(CHUNK)
            .zip(keys.par_chunks(CHUNK))
            .zip(self.disabled.par_chunks_mut(CHUNK))
            .map(|((contacts, keys), disabled)| {
                let calls = contacts.iter_mut().zip(keys).zip(disabled);
                for ((contact, key), disabled) in calls {
                    *disabled = !call(hook, contact, key, bodies)?;
                }
                Ok(())
            })
            // The first failure in contact order, whichever thread met it first.
            .reduce(|| Ok(()), |first, second| first.and(second));
        outcome?;
        if self.disabled.contains(&true) {
            set.disable(&self.disabled);
        }
        Ok(())
    }
}

/// Calls `hook` on `contact` and writes back its coefficients: whether it stays enabled, or
/// `Err` when the hook panicked or set a coefficient the solver cannot take.
fn call(
    hook: &PreSolveFn,
    contact: &mut Contact,
    &(_, _, children): &ContactKey,
    bodies: &BodyStore,
) -> Result<bool, Error> {
    let (shape_a, shape_b) = split_children(children);
    let m = &contact.manifold;
    let mut seen = PreSolveContact {
        a: bodies.id(contact.a.index()),
        b: bodies.id(contact.b.index()),
        shape_a,
        shape_b,
        normal: m.normal,
        points: &m.points[..m.point_count],
        friction: contact.friction,
        restitution: contact.restitution,
        tangent_speed: contact.tangent_speed,
    };
    let (a, b) = (seen.a, seen.b);
    // The world is restored on a panic, so whatever the hook's captures saw half-done is the
    // user's, as for any panic they catch.
    let enabled = catch_unwind(AssertUnwindSafe(|| hook(&mut seen))).map_err(|panic| {
        Error::HookPanicked(format!(
            "the pre-solve hook panicked on the contact of {a:?} and {b:?}: {}",
            panic_message(&*panic)
        ))
    })?;
    let coefficients = [
        ("friction", seen.friction, 0.0),
        ("restitution", seen.restitution, 0.0),
        ("tangent_speed", seen.tangent_speed, f32::NEG_INFINITY),
    ];
    for (name, value, low) in coefficients {
        if !(value.is_finite() && value >= low) {
            return Err(Error::InvalidParameter(format!(
                "the pre-solve hook set {name} to {value} on the contact of {a:?} and {b:?}"
            )));
        }
    }
    contact.friction = seen.friction;
    contact.restitution = seen.restitution;
    contact.tangent_speed = seen.tangent_speed;
    Ok(enabled)
}
