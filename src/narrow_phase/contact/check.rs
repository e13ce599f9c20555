//! Checks that a contact set read from outside (a snapshot's bytes) could have come from the
//! bodies it joins.

use super::{Contact, ContactSet, FrozenContact};
use crate::body::{BodyStore, SlotKind};
use crate::broad_phase::compound::{split_children, Children};
use crate::codec::invalid;
use crate::error::Error;
use crate::index::{BodySlot, NONE};
use crate::narrow_phase::manifold::MAX_MANIFOLD_POINTS;
use crate::narrow_phase::recycle::Base;
use crate::narrow_phase::removal::Removed;

impl ContactSet {
    /// `Err` with the reason unless every contact (listed here or frozen, see
    /// [`check_contact`]) could have come from `bodies`, the contacts are sorted by key with
    /// no key twice, and the flags say what the contacts do. A contact of a body in a slot
    /// that `removed` marks is let through: the next step drops it before reading it.
    pub fn check(&self, bodies: &BodyStore, removed: &Removed) -> Result<(), Error> {
        if !self.touch_threshold.is_finite() || self.touch_threshold < 0.0 {
            return Err(invalid("contact threshold out of range"));
        }
        let sorted = self.keys.windows(2).all(|w| w[0] < w[1]);
        let in_step = (self.keys.iter().zip(&self.list)).all(|(k, c)| (k.0, k.1) == (c.a, c.b));
        if !(sorted && in_step) {
            return Err(invalid("contacts out of order"));
        }
        for (i, c) in self.list.iter().enumerate() {
            let dropped = c.a < c.b && c.b.index() < bodies.slots() && removed.either(c.a, c.b);
            if dropped {
                continue;
            }
            let children = self.keys.get(i).map_or(0, |k| k.2);
            check_contact(c, children, bodies)
                .map_err(|why| invalid(format!("contact {i}: {why}")))?;
            if self.keys.len() == self.list.len() {
                if self.one_point[i] != c.has_one_point() {
                    return Err(invalid(format!("contact {i}: flags disagree")));
                }
                if self.base_of[i] != NONE {
                    let base = self.bases.get(self.base_of[i]);
                    check_base(&base).map_err(|why| invalid(format!("contact {i}: {why}")))?;
                    // A listed base is one a collide wrote, with a point (the recycle kernel
                    // counts on it); a frozen contact's empty base thaws to none instead.
                    if base.point_count() == 0 {
                        return Err(invalid(format!(
                            "contact {i}: recycling base without a point"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

impl FrozenContact {
    /// `Err` with the reason unless the contact could have come from `bodies` (see
    /// [`check_contact`]).
    pub fn check(&self, bodies: &BodyStore) -> Result<(), &'static str> {
        check_contact(&self.contact, self.children, bodies)?;
        check_base(&self.base)
    }
}

/// `Err` with the reason unless `c` is a contact of two live bodies `a < b` by slot, with shape
/// indices each body has, one or two finite points (the step keeps no contact without a
/// point, and the solver's spin bounds count on it), and finite materials.
fn check_contact(c: &Contact, children: Children, bodies: &BodyStore) -> Result<(), &'static str> {
    let live =
        |s: BodySlot| s.index() < bodies.slots() && bodies.kind()[s.index()] != SlotKind::Empty;
    if !(c.a < c.b && live(c.a) && live(c.b)) {
        return Err("bodies not two live ones in order");
    }
    let (child_a, child_b) = split_children(children);
    if child_a >= bodies.shapes(c.a.index()).len() || child_b >= bodies.shapes(c.b.index()).len() {
        return Err("shape index out of range");
    }
    let m = &c.manifold;
    if !(1..=MAX_MANIFOLD_POINTS).contains(&m.point_count) || !m.normal.is_finite() {
        return Err("bad manifold");
    }
    let finite = m.points[..m.point_count].iter().all(|p| {
        p.point.is_finite()
            && p.anchor_a.is_finite()
            && p.anchor_b.is_finite()
            && [
                p.separation,
                p.normal_impulse,
                p.tangent_impulse,
                p.impact_impulse,
            ]
            .iter()
            .all(|x| x.is_finite())
    });
    if !(finite && c.friction.is_finite() && c.restitution.is_finite()) {
        return Err("number not finite");
    }
    Ok(())
}

/// `Err` unless the recycling base has at most two finite points and a finite transform.
fn check_base(base: &Base) -> Result<(), &'static str> {
    let m = &base.manifold();
    let xf = base.relative();
    let finite = m.normal.is_finite()
        && xf.p.is_finite()
        && xf.q.c.is_finite()
        && xf.q.s.is_finite()
        && m.point_count <= MAX_MANIFOLD_POINTS
        && m.points[..m.point_count]
            .iter()
            .all(|p| p.point.is_finite() && p.separation.is_finite());
    if finite {
        Ok(())
    } else {
        Err("bad recycling base")
    }
}
