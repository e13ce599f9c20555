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
use crate::index::{BodySlot, ContactIndex, Stamp, NONE};
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
    /// Per root, what its island holds (merged as the islands join).
    totals: Vec<IslandTotals>,
    /// Per contact: the root of its island (only when some island is taken).
    root: Vec<BodySlot>,
    /// Per root: its island, or `NONE`.
    island_of: Vec<u32>,
    /// `masses_uneven` of the bodies as of their `BodyStore::mass_stamp`: the inverse masses
    /// change only with it, seldom, while the scan would read them all every step.
    uneven_at: Option<(Stamp, bool)>,
}

impl DirectIslands {
    /// Finds the islands of `contacts` to solve directly. Costs nothing when no two dynamic
    /// bodies are more than the mass ratio apart, as in every standard scene but smash (a
    /// parallel scan of the bodies' inverse masses finds it when they change), else one pass
    /// of union-find over the contacts.
    pub fn find(&mut self, contacts: &[Contact], bodies: &BodyStore) {
        self.is_direct.clear();
        self.contacts.clear();
        self.ranges.clear();
        let stamp = bodies.mass_stamp();
        let uneven = match self.uneven_at {
            Some((at, uneven)) if at == stamp => uneven,
            _ => masses_uneven(bodies),
        };
        self.uneven_at = Some((stamp, uneven));
        if !uneven {
            return;
        }
        self.join(contacts, bodies);
        let roots = (0..self.parent.len()).filter(|&s| self.parent[s].index() == s);
        if roots.into_iter().any(|r| self.taken(r)) {
            self.gather(contacts, bodies);
        }
    }

    /// Joins the dynamic bodies that touch into islands (`parent`), and sums up each island's
    /// bodies, points, inverse masses and whether it touches a body that is not dynamic
    /// (`totals`) as it goes: the totals merge when two islands join, so that one pass over
    /// the contacts finds them all. The masses count the whole island, not only touching
    /// bodies: in a stack of boxes each four times the mass of the one below (AVBD's stack
    /// ratio) no contact exceeds the ratio, yet the top weighs a thousand times the bottom,
    /// and Gauss-Seidel let it sink 0.33 m.
    fn join(&mut self, contacts: &[Contact], bodies: &BodyStore) {
        let inv_mass = bodies.inv_mass();
        self.parent.clear();
        self.parent.extend((0..inv_mass.len()).map(BodySlot::new));
        self.totals.clear();
        self.totals.extend(inv_mass.iter().map(|&m| IslandTotals {
            bodies: 1,
            points: 0,
            grounded: false,
            inv_mass: if m > 0.0 {
                (m, m)
            } else {
                (0.0, f32::INFINITY)
            },
        }));
        let (parent, totals) = (&mut self.parent, &mut self.totals);
        for c in contacts {
            let (a_dynamic, b_dynamic) = (inv_mass[c.a.index()] > 0.0, inv_mass[c.b.index()] > 0.0);
            let root = if a_dynamic && b_dynamic {
                let (ra, rb) = (find_root(parent, c.a), find_root(parent, c.b));
                if ra == rb {
                    ra
                } else {
                    // Union by size: the smaller tree goes under the larger.
                    let (big, small) = match totals[ra.index()].bodies >= totals[rb.index()].bodies
                    {
                        true => (ra, rb),
                        false => (rb, ra),
                    };
                    parent[small.index()] = big;
                    let small_totals = totals[small.index()];
                    totals[big.index()].merge(&small_totals);
                    big
                }
            } else {
                // The island of the dynamic body (as in `gather`).
                find_root(parent, if b_dynamic { c.b } else { c.a })
            };
            let island = &mut totals[root.index()];
            island.points += c.manifold.point_count as u32;
            island.grounded |= !(a_dynamic && b_dynamic);
        }
    }

    /// Whether the direct solver takes the island of root `r`: exactly when its bodies are more
    /// than the mass ratio apart and it is small enough, by layers when it rests on a body that
    /// is not dynamic.
    fn taken(&self, r: usize) -> bool {
        let island = &self.totals[r];
        let bodies = island.bodies as usize;
        let (lightest, heaviest) = island.inv_mass;
        lightest > MASS_RATIO * heaviest
            && ((bodies <= MAX_BODIES && island.points as usize <= MAX_POINTS)
                || (bodies <= MAX_LAYERED_BODIES && island.grounded))
    }

    /// Numbers the islands the direct solver takes by first contact, counts their contacts in
    /// `ranges`, then turns the counts into ranges and fills them.
    fn gather(&mut self, contacts: &[Contact], bodies: &BodyStore) {
        let inv_mass = bodies.inv_mass();
        self.root.clear();
        for c in contacts {
            // The root of the contact's dynamic body (B when both are; same root then).
            let s = if inv_mass[c.b.index()] > 0.0 {
                c.b
            } else {
                c.a
            };
            self.root.push(find_root(&mut self.parent, s));
        }
        self.island_of.clear();
        self.island_of.resize(self.parent.len(), NONE);
        self.is_direct.resize(contacts.len(), false);
        for i in 0..contacts.len() {
            let r = self.root[i].index();
            if !self.taken(r) {
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

    /// Number of islands solved directly this step.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }
}

/// What an island holds, kept at its root.
#[derive(Clone, Copy, Default)]
struct IslandTotals {
    /// Its bodies (dynamic, but for a root that is not: one).
    bodies: u32,
    /// The points of its contacts.
    points: u32,
    /// Whether a contact joins it to a body that is not dynamic.
    grounded: bool,
    /// The largest and smallest inverse mass of its dynamic bodies.
    inv_mass: (f32, f32),
}

impl IslandTotals {
    /// Adds the totals of an island joined to this one.
    fn merge(&mut self, other: &IslandTotals) {
        self.bodies += other.bodies;
        self.points += other.points;
        self.grounded |= other.grounded;
        self.inv_mass = (
            self.inv_mass.0.max(other.inv_mass.0),
            self.inv_mass.1.min(other.inv_mass.1),
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body_def::{BodyDef, ShapeDef};
    use crate::geometry::shape::Shape;
    use crate::narrow_phase::manifold::Manifold;

    /// Random bodies (a few fixed, the dynamic ones of three densities far apart) and random
    /// pairs between them.
    fn random_world(seed: u64, bodies: usize, pairs: usize) -> (BodyStore, Vec<Contact>) {
        let mut next = crate::test_rng::xorshift64(seed);
        let mut store = BodyStore::new();
        for _ in 0..bodies {
            let r = next() % 20;
            let def = if r == 0 {
                BodyDef::fixed()
            } else {
                BodyDef::dynamic()
            };
            let density = [1.0, 30.0, 1000.0][(r % 3) as usize];
            let shape = ShapeDef::new(Shape::circle(0.5).unwrap()).density(density);
            store.insert(&def, &shape).unwrap();
        }
        let mut contacts = Vec::new();
        while contacts.len() < pairs {
            let (a, b) = (next() % bodies as u64, next() % bodies as u64);
            let dynamic = store.is_dynamic(a as usize) || store.is_dynamic(b as usize);
            if a < b && dynamic {
                contacts.push(Contact {
                    a: BodySlot::new(a as usize),
                    b: BodySlot::new(b as usize),
                    manifold: Manifold {
                        point_count: 1 + (next() % 2) as usize,
                        ..Manifold::default()
                    },
                    friction: 0.6,
                    restitution: 0.0,
                    tangent_speed: 0.0,
                });
            }
        }
        (store, contacts)
    }

    /// The islands taken by their definition: components of the dynamic bodies joined by
    /// contacts between two of them (by repeated relabelling until nothing changes), each
    /// judged on all its bodies and contacts, ordered by first contact.
    fn islands_by_definition(bodies: &BodyStore, contacts: &[Contact]) -> Vec<Vec<usize>> {
        let inv_mass = bodies.inv_mass();
        let mut label: Vec<usize> = (0..inv_mass.len()).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for c in contacts {
                let (a, b) = (c.a.index(), c.b.index());
                if inv_mass[a] > 0.0 && inv_mass[b] > 0.0 && label[a] != label[b] {
                    let low = label[a].min(label[b]);
                    (label[a], label[b], changed) = (low, low, true);
                }
            }
        }
        let island_of = |c: &Contact| match inv_mass[c.a.index()] > 0.0 {
            true => label[c.a.index()],
            false => label[c.b.index()],
        };
        let mut islands: Vec<(usize, Vec<usize>)> = Vec::new();
        for (i, c) in contacts.iter().enumerate() {
            match islands.iter_mut().find(|(l, _)| *l == island_of(c)) {
                Some((_, list)) => list.push(i),
                None => islands.push((island_of(c), vec![i])),
            }
        }
        let taken = |&(l, ref list): &(usize, Vec<usize>)| {
            let members = (0..inv_mass.len()).filter(|&s| inv_mass[s] > 0.0 && label[s] == l);
            let masses: Vec<f32> = members.map(|s| inv_mass[s]).collect();
            let lightest = masses.iter().copied().fold(0.0f32, f32::max);
            let heaviest = masses.iter().copied().fold(f32::INFINITY, f32::min);
            let points: usize = list.iter().map(|&i| contacts[i].manifold.point_count).sum();
            let grounded = list.iter().any(|&i| {
                let c = &contacts[i];
                inv_mass[c.a.index()] <= 0.0 || inv_mass[c.b.index()] <= 0.0
            });
            lightest > MASS_RATIO * heaviest
                && ((masses.len() <= MAX_BODIES && points <= MAX_POINTS)
                    || (masses.len() <= MAX_LAYERED_BODIES && grounded))
        };
        islands.retain(taken);
        islands.into_iter().map(|(_, list)| list).collect()
    }

    #[test]
    fn the_islands_taken_are_those_their_definition_takes() {
        let mut taken = 0;
        for seed in 1..60u64 {
            // Few pairs per body: small islands, some taken whole; more: islands past the
            // direct limits, some resting on fixed bodies.
            let (bodies, pairs) = match seed % 3 {
                0 => (200, 120),
                1 => (300, 260),
                _ => (600, 700),
            };
            let (store, contacts) = random_world(seed, bodies, pairs);
            let mut direct = DirectIslands::default();
            direct.find(&contacts, &store);
            let expected = islands_by_definition(&store, &contacts);
            let found: Vec<Vec<usize>> = (direct.ranges.iter())
                .map(|r| {
                    direct.contacts[r.clone()]
                        .iter()
                        .map(|c| c.index())
                        .collect()
                })
                .collect();
            assert_eq!(found, expected, "seed {seed}");
            let marked = (0..contacts.len()).filter(|&i| direct.is_direct.get(i) == Some(&true));
            let listed: usize = expected.iter().map(Vec::len).sum();
            assert_eq!(marked.count(), listed, "seed {seed}");
            taken += expected.len();
        }
        assert!(
            taken > 10,
            "the worlds hardly test the search: {taken} islands taken"
        );
    }
}
