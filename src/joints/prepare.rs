//! What the joint passes read of a joint in one step, taken from its bodies when the step
//! begins: the constants every pass needs (`Consts`), those that only joints other than plain
//! revolute ones read (`Extra`), and the joint's impulses beside them (`Prepared`).

use crate::body::BodyStore;
use crate::geometry::math::{Rot, Vec2};
use crate::index::{BodySlot, NONE};
use crate::joints::joint::{Impulses, Joint, JointKind};
use crate::joints::spring::SpringLaw;
use crate::softness::Softness;
use batch2d_kernels::NULL_BODY;

/// A joint's body as the step sees it: its solver state, inverse mass and inertia (zero for
/// a body the solver does not move) and rotation; `NONE` is a fixed body at the origin.
pub(super) fn side(slot: BodySlot, bodies: &BodyStore, state_of: &[u32]) -> (u32, f32, f32, Rot) {
    if slot == BodySlot::NONE {
        return (NULL_BODY, 0.0, 0.0, Rot::IDENTITY);
    }
    let s = slot.index();
    match state_of[s] {
        NULL_BODY => (NULL_BODY, 0.0, 0.0, bodies.rotation()[s]),
        state => (
            state,
            bodies.inv_mass()[s],
            bodies.inv_inertia()[s],
            bodies.rotation()[s],
        ),
    }
}

/// What every pass needs of a joint in one step, taken when the step begins.
#[derive(Clone, Copy, Debug)]
pub(super) struct Consts {
    /// Solver states of A and B (`NULL_BODY`: a body the solver does not move).
    pub(super) state: [u32; 2],
    pub(super) inv_mass: [f32; 2],
    pub(super) inv_inertia: [f32; 2],
    /// Anchors relative to the centres of mass, world frame, at the start of the step.
    pub(super) r: [Vec2; 2],
    /// B's centre minus A's (a mouse joint: minus the target) at the start of the step.
    pub(super) delta_center: Vec2,
    /// The joint's slot in the store.
    pub(super) slot: u32,
    pub(super) kind: JointKind,
    /// Whether the joint can move A and B: a kinematic body's state is read, never written,
    /// and takes no color.
    pub(super) moves: [bool; 2],
    /// A revolute joint without limits or motor: its passes read nothing but these constants
    /// and the impulses.
    pub(super) plain: bool,
}

/// One joint as the passes read and write it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Prepared {
    pub(super) c: Consts,
    pub(super) impulses: Impulses,
}

/// The rest of a joint's step constants, which only joints other than plain revolute ones
/// read: kept apart so that the passes over the plain ones stream less memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extra {
    /// Rotations at the start of the step.
    pub(super) q: [Rot; 2],
    /// The joint's axis, world frame, at the start of the step.
    pub(super) axis: Vec2,
    /// A mouse joint's spring for one substep, when it has a frequency above zero.
    pub(super) spring: Option<Softness>,
    /// Any other joint's spring for one substep, when it has a frequency above zero (see
    /// [`SpringLaw`]).
    pub(super) law: Option<SpringLaw>,
    /// The velocity gravity gives A and B in one substep (zero for a body the joint does not
    /// move): a spring's static deflection is set from it (see [`SpringLaw`]).
    pub(super) kick: [Vec2; 2],
    /// A mouse joint's damping of the body's spin: twice the spring's frequency.
    pub(super) spin: Option<Softness>,
}

/// A joint that moves nothing: what fills `JointBatches` until the joints' constants come.
impl Default for Consts {
    fn default() -> Consts {
        Consts {
            state: [NULL_BODY; 2],
            inv_mass: [0.0; 2],
            inv_inertia: [0.0; 2],
            r: [Vec2::ZERO; 2],
            delta_center: Vec2::ZERO,
            slot: NONE,
            kind: JointKind::Revolute,
            moves: [false; 2],
            plain: true,
        }
    }
}

impl Default for Extra {
    fn default() -> Extra {
        Extra {
            q: [Rot::IDENTITY; 2],
            axis: Vec2::ZERO,
            spring: None,
            law: None,
            kick: [Vec2::ZERO; 2],
            spin: None,
        }
    }
}

impl Joint {
    /// A revolute joint without limits, motor or spring: its solve is its point constraint
    /// alone.
    pub(super) fn is_plain(&self) -> bool {
        self.kind == JointKind::Revolute
            && self.active_motor().is_none()
            && self.active_limits().is_none()
            && self.spring.is_none()
    }

    /// The constants every pass needs, taken from the bodies as the step begins, with the
    /// bodies' rotations; `None` when neither body can move, and the joint has nothing to do.
    /// All that a plain revolute joint's passes read (see [`Joint::is_plain`]).
    pub(super) fn consts(
        &self,
        slot: u32,
        bodies: &BodyStore,
        state_of: &[u32],
    ) -> Option<(Consts, [Rot; 2])> {
        let (sa, ma, ia, qa) = side(self.a, bodies, state_of);
        let (sb, mb, ib, qb) = side(self.b, bodies, state_of);
        if ma + mb + ia + ib <= 0.0 {
            return None;
        }
        let (r, delta_center) = self.arms(bodies, [qa, qb]);
        let c = Consts {
            state: [sa, sb],
            inv_mass: [ma, mb],
            inv_inertia: [ia, ib],
            r,
            delta_center,
            slot,
            kind: self.kind,
            moves: [ma + ia > 0.0, mb + ib > 0.0],
            plain: self.is_plain(),
        };
        Some((c, [qa, qb]))
    }

    /// The anchors relative to the centres of mass and B's centre minus A's, world frame, at
    /// the bodies' poses, `q` their rotations: the part of [`Joint::consts`] that changes
    /// from step to step while the bodies' masses and states do not.
    pub(super) fn arms(&self, bodies: &BodyStore, [qa, qb]: [Rot; 2]) -> ([Vec2; 2], Vec2) {
        let (ca, ra) = match self.a {
            BodySlot::NONE => (self.local_a, Vec2::ZERO),
            a => (bodies.center()[a.index()], qa.rotate(self.local_a)),
        };
        let r = [ra, qb.rotate(self.local_b)];
        (r, bodies.center()[self.b.index()] - ca)
    }

    /// Takes the step's constants from the bodies as the step begins, those of
    /// [`Joint::consts`] and the rest; `None` when neither body can move.
    pub(super) fn prepare(
        &self,
        slot: u32,
        bodies: &BodyStore,
        state_of: &[u32],
        h: f32,
        gravity: Vec2,
    ) -> Option<(Prepared, Extra)> {
        let (c, [qa, qb]) = self.consts(slot, bodies, state_of)?;
        let law = match self.spring {
            Some((hertz, zeta)) if hertz > 0.0 && self.kind != JointKind::Mouse => {
                Some(SpringLaw::new(hertz, zeta, h))
            }
            _ => None,
        };
        let (spring, spin) = match self.spring {
            Some((hertz, zeta)) if hertz > 0.0 && self.kind == JointKind::Mouse => (
                Some(Softness::new(hertz, zeta, h)),
                (self.kind == JointKind::Mouse).then(|| Softness::new(2.0 * hertz, zeta, h)),
            ),
            _ => (None, None),
        };
        let [ma, mb] = c.inv_mass;
        let x = Extra {
            q: [qa, qb],
            axis: qa.rotate(self.local_axis),
            spring,
            law,
            kick: [(self.a, ma), (self.b, mb)].map(|(slot, inv_mass)| match inv_mass > 0.0 {
                true => gravity * (bodies.gravity_scale()[slot.index()] * h),
                false => Vec2::ZERO,
            }),
            spin,
        };
        let impulses = self.impulses;
        Some((Prepared { c, impulses }, x))
    }
}
