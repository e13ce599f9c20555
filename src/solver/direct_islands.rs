//! Which contacts the direct solver takes: islands whose masses differ widely.
//!
//! A soft contact is a spring whose stiffness scales with the effective mass of its pair, and
//! Gauss-Seidel needs a number of passes that grows with the mass ratio (a column of light
//! bodies under a heavy one is a nearly singular system): at the default settings a 1000 kg
//! box on a column of 1 kg boxes sinks through them. So an island (bodies joined by contacts
//! between dynamic bodies) that holds a contact between two dynamic bodies whose masses differ
//! more than [`MASS_RATIO`] times leaves the graph coloring and goes to the direct solver,
//! which solves it exactly if it is small ([`MAX_BODIES`], and [`MAX_POINTS`] or a narrow
//! enough problem, [`MAX_ENVELOPE_COST`]), else by layered sweeps if it rests on a fixed or
//! kinematic body ([`MAX_LAYERED_BODIES`]). Other islands with a large mass ratio stay with
//! the iterative solver.

use crate::body::BodyStore;
use crate::index::{BodySlot, ContactIndex, NONE};
use crate::islands::union_find::find_root;
use crate::narrow_phase::contact::Contact;
use rayon::prelude::*;
use std::ops::Range;

/// Mass ratio between two touching dynamic bodies from which their island is solved directly.
/// Gauss-Seidel holds a 1:100 column within a few centimetres at the default settings.
pub const MASS_RATIO: f32 = 10.0;
/// Most dynamic bodies of an island solved directly: a heavy box on a column of fifty light
/// ones, or on a column of twenty with ten loose boxes around its base.
pub const MAX_BODIES: usize = 64;
/// Most contact points of an island that rests on nothing solved directly (two rows each:
/// normal and friction); one that rests on a fixed or kinematic body is solved exactly past it
/// while its problem stays narrow ([`MAX_ENVELOPE_COST`]).
pub const MAX_POINTS: usize = 128;
/// Most cost of one factorization of an island's exact problem (see `Lcp::envelope_cost`): that
/// of a dense problem of [`MAX_POINTS`] points, so that every island of up to that many points
/// is solved exactly. The sparse solve costs the rows times the square of the envelope's width,
/// which stays narrow along columns and stacks but widens with a pile's width: two columns of
/// thirty boxes under a slab have 242 to 300 points (the columns touch side by side and corner
/// to corner) at a thirty-fourth of this cost, and the layered sweeps that solved them before
/// this bound let them settle 2.8 cm low; a wall of 21 x 3 boxes under a slab costs more than twice it, and stays
/// with the sweeps.
pub const MAX_ENVELOPE_COST: u64 = dense_cost(2 * MAX_POINTS as u64);
/// Most dynamic bodies of a larger island that the direct solver takes, by sweeps until they
/// converge instead of exactly (see `layered`), if it rests on a fixed or kinematic
/// body (the sweeps are ordered by layers counted from what holds the island). One worker
/// solves an island: this bounds what it costs. Past it, and for islands that rest on nothing
/// (smash's pile, hit in space by a heavy box), the iterative solver.
pub const MAX_LAYERED_BODIES: usize = 4096;

/// The islands of one step that are solved directly.
#[derive(Clone, Default)]
pub(crate) struct DirectIslands {
    /// Per contact, whether a direct island holds it; empty when none does.
    pub is_direct: Vec<bool>,
    /// The contacts of each island, island after island, each in contact order.
    pub contacts: Vec<ContactIndex>,
    /// `contacts[ranges[i]]` are island `i`'s; islands are ordered by their first contact.
    pub ranges: Vec<Range<usize>>,
    /// Union-find over body slots.
    parent: Vec<BodySlot>,
    /// Per root: dynamic bodies, contact points, the largest and smallest inverse mass of
    /// its dynamic bodies, whether they are more than the mass ratio apart, and whether a
    /// contact touches a body that is not dynamic.
    body_count: Vec<u32>,
    points: Vec<u32>,
    inv_mass_range: Vec<(f32, f32)>,
    uneven: Vec<bool>,
    grounded: Vec<bool>,
    /// Per contact: the root of its island.
    root: Vec<BodySlot>,
    /// Roots of the islands whose bodies are more than the mass ratio apart.
    uneven_roots: Vec<BodySlot>,
    /// Per root: its island, or `NONE`.
    island_of: Vec<u32>,
}

impl DirectIslands {
    /// Finds the islands of `contacts` to solve directly. Costs one parallel scan of the
    /// bodies' inverse masses when no two dynamic bodies are more than the mass ratio apart,
    /// as in every standard scene but smash.
    pub fn find(&mut self, contacts: &[Contact], bodies: &BodyStore) {
        self.is_direct.clear();
        self.contacts.clear();
        self.ranges.clear();
        if !masses_uneven(bodies) {
            return;
        }
        self.join(contacts, bodies);
        self.measure(contacts, bodies);
        if self.uneven_roots.iter().any(|&r| self.taken(r.index())) {
            self.gather(contacts);
        }
    }

    /// Joins the dynamic bodies that touch into islands (`parent`, `body_count`).
    fn join(&mut self, contacts: &[Contact], bodies: &BodyStore) {
        let n = bodies.slots();
        self.parent.clear();
        self.parent.extend((0..n).map(BodySlot::new));
        for list in [&mut self.body_count, &mut self.points] {
            list.clear();
            list.resize(n, 0);
        }
        self.body_count.fill(1);
        let dynamic = |s: BodySlot| bodies.inv_mass()[s.index()] > 0.0;
        for c in contacts {
            if dynamic(c.a) && dynamic(c.b) {
                let (ra, rb) = (
                    find_root(&mut self.parent, c.a),
                    find_root(&mut self.parent, c.b),
                );
                if ra != rb {
                    // Union by size: the smaller tree goes under the larger.
                    let (big, small) = if self.body_count[ra.index()] >= self.body_count[rb.index()]
                    {
                        (ra, rb)
                    } else {
                        (rb, ra)
                    };
                    self.parent[small.index()] = big;
                    self.body_count[big.index()] += self.body_count[small.index()];
                }
            }
        }
    }

    /// Per contact its island's root; per root its points, whether it touches a body that is
    /// not dynamic, and whether its bodies are more than the ratio apart. Not only touching
    /// bodies: in a stack of boxes each four times the mass of the one below (AVBD's stack
    /// ratio) no contact exceeds the ratio, yet the top weighs a thousand times the bottom, and
    /// Gauss-Seidel let it sink 0.33 m.
    fn measure(&mut self, contacts: &[Contact], bodies: &BodyStore) {
        let n = bodies.slots();
        for list in [&mut self.uneven, &mut self.grounded] {
            list.clear();
            list.resize(n, false);
        }
        self.inv_mass_range.clear();
        self.inv_mass_range.resize(n, (0.0, f32::INFINITY));
        let dynamic = |s: BodySlot| bodies.inv_mass()[s.index()] > 0.0;
        self.root.clear();
        self.uneven_roots.clear();
        for c in contacts {
            let r = self.root_of(c, bodies);
            self.root.push(r);
            self.points[r.index()] += c.manifold.point_count as u32;
            self.grounded[r.index()] |= !dynamic(c.a) || !dynamic(c.b);
            let range = &mut self.inv_mass_range[r.index()];
            for side in [c.a, c.b].into_iter().filter(|&s| dynamic(s)) {
                let m = bodies.inv_mass()[side.index()];
                *range = (range.0.max(m), range.1.min(m));
            }
            if !self.uneven[r.index()] && range.0 > MASS_RATIO * range.1 {
                self.uneven[r.index()] = true;
                self.uneven_roots.push(r);
            }
        }
    }

    /// Whether the direct solver takes the island of root `r`, if uneven: exactly when it is
    /// small enough, by layers when it rests on a body that is not dynamic.
    fn taken(&self, r: usize) -> bool {
        let bodies = self.body_count[r] as usize;
        (bodies <= MAX_BODIES && self.points[r] as usize <= MAX_POINTS)
            || (bodies <= MAX_LAYERED_BODIES && self.grounded[r])
    }

    /// Numbers the uneven islands the direct solver takes by first contact, counts their
    /// contacts in `ranges`, then turns the counts into ranges and fills them.
    fn gather(&mut self, contacts: &[Contact]) {
        self.island_of.clear();
        self.island_of.resize(self.parent.len(), NONE);
        self.is_direct.resize(contacts.len(), false);
        for i in 0..contacts.len() {
            let r = self.root[i].index();
            if !self.uneven[r] || !self.taken(r) {
                continue;
            }
            if self.island_of[r] == NONE {
                self.island_of[r] = self.ranges.len() as u32;
                self.ranges.push(0..0);
            }
            self.ranges[self.island_of[r] as usize].end += 1;
            self.is_direct[i] = true;
        }
        let mut start = 0;
        for range in &mut self.ranges {
            let count = range.end;
            *range = start..start;
            start += count;
        }
        self.contacts.resize(start, ContactIndex::NONE);
        for i in 0..contacts.len() {
            if self.is_direct[i] {
                let range = &mut self.ranges[self.island_of[self.root[i].index()] as usize];
                self.contacts[range.end] = ContactIndex::new(i);
                range.end += 1;
            }
        }
    }

    /// The island root of a contact's dynamic body (B when both are; same root then).
    fn root_of(&mut self, c: &Contact, bodies: &BodyStore) -> BodySlot {
        let s = if bodies.inv_mass()[c.b.index()] > 0.0 {
            c.b
        } else {
            c.a
        };
        find_root(&mut self.parent, s)
    }

    /// Number of islands solved directly this step.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }
}

/// [`Lcp::envelope_cost`](crate::solver::lcp::Lcp::envelope_cost) of a dense problem of `rows`
/// rows: the sum of the squares of 1 to `rows`.
const fn dense_cost(rows: u64) -> u64 {
    rows * (rows + 1) * (2 * rows + 1) / 6
}

/// Whether the lightest and the heaviest dynamic body (largest and smallest positive inverse
/// mass) are more than the mass ratio apart: if not, no island can be uneven.
fn masses_uneven(bodies: &BodyStore) -> bool {
    let (lightest, heaviest) = bodies
        .inv_mass()
        .par_iter()
        .with_min_len(4096)
        .fold(
            || (0.0f32, f32::INFINITY),
            |(hi, lo), &m| match m > 0.0 {
                true => (hi.max(m), lo.min(m)),
                false => (hi, lo),
            },
        )
        .reduce(|| (0.0, f32::INFINITY), |a, b| (a.0.max(b.0), a.1.min(b.1)));
    lightest > MASS_RATIO * heaviest
}
