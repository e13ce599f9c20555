//! Contacts: the narrowphase over the broadphase pairs, and persistence of contact points
//! across steps so the solver can warm start from last step's impulses.

use crate::body::BodyStore;
use crate::manifold::{collide, Manifold};
use crate::world::MixRule;
use rayon::prelude::*;

/// A touching pair of bodies (at least one manifold point), `a < b` by slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Contact {
    pub a: u32,
    pub b: u32,
    pub manifold: Manifold,
    pub friction: f32,
    pub restitution: f32,
}

impl Contact {
    fn key(&self) -> (u32, u32) {
        (self.a, self.b)
    }
}

/// Mixing rules and distances the narrowphase needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NarrowPhaseParams {
    pub speculative_distance: f32,
    pub friction_mixing: MixRule,
    pub restitution_mixing: MixRule,
}

/// The touching contacts of the last step, sorted by `(a, b)`.
#[derive(Default)]
pub(crate) struct ContactSet {
    pub contacts: Vec<Contact>,
    /// Scratch: for each new pair, the index of the same pair's contact last step.
    previous: Vec<u32>,
    /// Scratch: the new contacts before non-touching ones are dropped.
    candidates: Vec<Contact>,
}

const NONE: u32 = u32::MAX;

impl ContactSet {
    /// Replaces the contacts with the manifolds of `pairs` (sorted by `(a, b)`), carrying the
    /// impulses of points whose feature id persists.
    pub fn update(&mut self, pairs: &[(u32, u32)], bodies: &BodyStore, params: &NarrowPhaseParams) {
        self.match_previous(pairs);
        let old = &self.contacts;
        let previous = &self.previous;
        pairs
            .par_iter()
            .zip(previous.par_iter())
            .map(|(&(a, b), &prev)| {
                let old = (prev != NONE).then(|| &old[prev as usize].manifold);
                collide_pair(a, b, bodies, params, old)
            })
            .collect_into_vec(&mut self.candidates);
        self.contacts.clear();
        self.contacts.extend(
            self.candidates
                .iter()
                .filter(|c| c.manifold.point_count > 0),
        );
    }

    /// Merge-joins the sorted new pairs with the sorted old contacts.
    fn match_previous(&mut self, pairs: &[(u32, u32)]) {
        self.previous.clear();
        let mut j = 0;
        for &pair in pairs {
            while j < self.contacts.len() && self.contacts[j].key() < pair {
                j += 1;
            }
            let found = j < self.contacts.len() && self.contacts[j].key() == pair;
            self.previous.push(if found { j as u32 } else { NONE });
        }
    }

    /// Drops every contact of a removed body.
    pub fn remove_body(&mut self, slot: u32) {
        self.contacts.retain(|c| c.a != slot && c.b != slot);
    }
}

fn collide_pair(
    a: u32,
    b: u32,
    bodies: &BodyStore,
    params: &NarrowPhaseParams,
    old: Option<&Manifold>,
) -> Contact {
    let (sa, sb) = (a as usize, b as usize);
    let mut manifold = collide(
        &bodies.shape[sa],
        bodies.transform(sa),
        &bodies.shape[sb],
        bodies.transform(sb),
        params.speculative_distance,
    );
    if let Some(old) = old {
        for p in &mut manifold.points[..manifold.point_count] {
            if let Some(q) = old.points[..old.point_count].iter().find(|q| q.id == p.id) {
                p.normal_impulse = q.normal_impulse;
                p.tangent_impulse = q.tangent_impulse;
            }
        }
    }
    Contact {
        a,
        b,
        manifold,
        friction: params
            .friction_mixing
            .mix(bodies.friction[sa], bodies.friction[sb]),
        restitution: params
            .restitution_mixing
            .mix(bodies.restitution[sa], bodies.restitution[sb]),
    }
}
