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
use crate::index::{ContactIndex, Stamp, NONE};
use crate::narrow_phase::contact::{Contact, ContactKey};
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
    /// The contacts of which each body is B, chained in contact order: body `s`'s first is
    /// `first_as_b[s]`, each one's next `next_as_b[i]` (`NONE` ends a chain). Those of which
    /// it is A need no list: the contacts are sorted by A.
    first_as_b: Vec<u32>,
    next_as_b: Vec<u32>,
    /// Per body slot: the search that reached it, or `NONE`.
    search_of: Vec<u32>,
    /// Per search: whether the direct solver takes its island.
    taken: Vec<bool>,
    /// Scratch of a search: the bodies reached, in the order reached.
    queue: Vec<u32>,
    /// Per taken search: its island, or `NONE` before its first contact is met.
    island_of: Vec<u32>,
    /// The heavy bodies (see [`heavy_bodies`]), and whether any slot holds a body that is not
    /// dynamic (or none), as of the bodies' `BodyStore::mass_stamp`: the inverse masses and
    /// kinds change only with it, seldom, while the scan would read them all every step.
    heavy_at: Option<Stamp>,
    heavy: Vec<u32>,
    any_not_dynamic: bool,
}

impl DirectIslands {
    /// Finds the islands of `contacts` (whose bodies `keys` lists) to solve directly. Costs
    /// nothing when no two dynamic bodies are more than the mass ratio apart, as in every
    /// standard scene but smash (a parallel scan of the bodies' inverse masses finds it when
    /// they change). Else only islands holding a heavy body can be uneven: each is searched
    /// from one, over each body's contacts, until it is known too large to be taken.
    /// Smash's pile, one island of thousands of bodies around one heavy box, so costs the
    /// listing and a search of a few dozen bodies, not a union of every contact.
    pub fn find(&mut self, contacts: &[Contact], keys: &[ContactKey], bodies: &BodyStore) {
        self.is_direct.clear();
        self.contacts.clear();
        self.ranges.clear();
        let stamp = bodies.mass_stamp();
        if self.heavy_at != Some(stamp) {
            heavy_bodies(bodies, &mut self.heavy);
            let n = bodies.inv_mass().len();
            self.any_not_dynamic = (0..n).any(|s| !bodies.is_dynamic(s));
            self.heavy_at = Some(stamp);
        }
        if self.heavy.is_empty() {
            return;
        }
        debug_assert!(keys.is_sorted(), "the contacts are sorted by their bodies");
        self.list_as_b(keys, bodies.inv_mass().len());
        // Past this many bodies an island is not taken: past `MAX_BODIES` unless it rests on
        // a body that is not dynamic, which none can where every body is dynamic.
        let limit = match self.any_not_dynamic {
            true => MAX_LAYERED_BODIES,
            false => MAX_BODIES,
        };
        self.search_of.clear();
        self.search_of.resize(self.first_as_b.len(), NONE);
        self.taken.clear();
        for k in 0..self.heavy.len() {
            let h = self.heavy[k];
            if self.search_of[h as usize] == NONE {
                let taken = self.search(h, contacts, keys, bodies, limit);
                self.taken.push(taken);
            }
        }
        if self.taken.contains(&true) {
            self.gather(keys, bodies);
        }
    }

    /// Chains the contacts of which each body is B (`first_as_b`, `next_as_b`), in contact
    /// order. One pass over the contacts, from the last, each put in front of its B's chain:
    /// the search reads the chains of a few dozen bodies, while every contact is listed.
    fn list_as_b(&mut self, keys: &[ContactKey], bodies: usize) {
        self.first_as_b.clear();
        self.first_as_b.resize(bodies, NONE);
        self.next_as_b.resize(keys.len(), NONE);
        // Local slices: written through `self`, every link would reload the vectors.
        let first = &mut self.first_as_b[..];
        let links = keys.iter().zip(&mut self.next_as_b[..]).enumerate().rev();
        for (i, (&(_, b, _), next)) in links {
            *next = first[b.index()];
            first[b.index()] = i as u32;
        }
    }

    /// Searches the island of dynamic body `first` (breadth first, over contacts between two
    /// dynamic bodies), marking its bodies with the next search number, and returns whether
    /// the direct solver takes it (see [`IslandTotals::taken`]). Stops, not taking it, once it
    /// holds more than `limit` bodies or reaches a body of an earlier search (one that
    /// stopped so: had it ended, it would have reached `first`).
    fn search(
        &mut self,
        first: u32,
        contacts: &[Contact],
        keys: &[ContactKey],
        bodies: &BodyStore,
        limit: usize,
    ) -> bool {
        let inv_mass = bodies.inv_mass();
        let me = self.taken.len() as u32;
        let (queue, search_of) = (&mut self.queue, &mut self.search_of);
        queue.clear();
        queue.push(first);
        search_of[first as usize] = me;
        let m = inv_mass[first as usize];
        let mut island = IslandTotals {
            bodies: 1,
            points: 0,
            grounded: false,
            inv_mass: (m, m),
        };
        let mut next = 0;
        while let Some(&u) = queue.get(next) {
            next += 1;
            let u = u as usize;
            // The contacts of which `u` is A (a run of the sorted contacts), then B.
            let first_as_a = keys.partition_point(|k| k.0.index() < u);
            let count_as_a = keys[first_as_a..].partition_point(|k| k.0.index() == u);
            let as_a = first_as_a as u32..(first_as_a + count_as_a) as u32;
            let (mut as_b, next_as_b) = (self.first_as_b[u], &self.next_as_b);
            // `NONE`, past every contact, ends the chain.
            let as_b = std::iter::from_fn(|| {
                let i = as_b;
                as_b = *next_as_b.get(i as usize)?;
                Some(i)
            });
            for i in as_a.chain(as_b) {
                let (a, b, _) = keys[i as usize];
                let other = if a.index() == u { b } else { a };
                let other_mass = inv_mass[other.index()];
                // Each contact counted once: from A, or from its one dynamic body.
                if other_mass <= 0.0 || a.index() == u {
                    island.points += contacts[i as usize].manifold.point_count as u32;
                }
                if other_mass <= 0.0 {
                    island.grounded = true;
                    continue;
                }
                match search_of[other.index()] {
                    NONE => {
                        search_of[other.index()] = me;
                        queue.push(other.index() as u32);
                        island.bodies += 1;
                        island.inv_mass = (
                            island.inv_mass.0.max(other_mass),
                            island.inv_mass.1.min(other_mass),
                        );
                        if island.bodies as usize > limit {
                            return false;
                        }
                    }
                    s if s != me => return false,
                    _ => {}
                }
            }
        }
        island.taken()
    }

    /// Numbers the islands the direct solver takes by first contact, counts their contacts in
    /// `ranges`, then turns the counts into ranges and fills them.
    fn gather(&mut self, keys: &[ContactKey], bodies: &BodyStore) {
        let inv_mass = bodies.inv_mass();
        // The search of the contact's dynamic body (B when both are; the same search then),
        // if that search's island is taken.
        let (search_of, taken) = (&self.search_of, &self.taken);
        let taken_search = |&(a, b, _): &ContactKey| {
            let s = if inv_mass[b.index()] > 0.0 { b } else { a };
            let search = search_of[s.index()];
            (search != NONE && taken[search as usize]).then_some(search as usize)
        };
        self.island_of.clear();
        self.island_of.resize(self.taken.len(), NONE);
        self.is_direct.resize(keys.len(), false);
        for (i, key) in keys.iter().enumerate() {
            let Some(search) = taken_search(key) else {
                continue;
            };
            if self.island_of[search] == NONE {
                self.island_of[search] = self.ranges.len() as u32;
                self.ranges.push(0..0);
            }
            self.ranges[self.island_of[search] as usize].end += 1;
            self.is_direct[i] = true;
        }
        let mut start = 0;
        for range in &mut self.ranges {
            let count = range.end;
            *range = start..start;
            start += count;
        }
        self.contacts.resize(start, ContactIndex::NONE);
        for (i, key) in keys.iter().enumerate() {
            if let Some(search) = taken_search(key) {
                let range = &mut self.ranges[self.island_of[search] as usize];
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

/// What an island holds.
#[derive(Clone, Copy, Default)]
struct IslandTotals {
    /// Its dynamic bodies.
    bodies: u32,
    /// The points of its contacts.
    points: u32,
    /// Whether a contact joins it to a body that is not dynamic.
    grounded: bool,
    /// The largest and smallest inverse mass of its dynamic bodies.
    inv_mass: (f32, f32),
}

impl IslandTotals {
    /// Whether the direct solver takes the island: exactly when its bodies are more than the
    /// mass ratio apart and it is small enough, by layers when it rests on a body that is not
    /// dynamic.
    fn taken(&self) -> bool {
        let bodies = self.bodies as usize;
        let (lightest, heaviest) = self.inv_mass;
        lightest > MASS_RATIO * heaviest
            && ((bodies <= MAX_BODIES && self.points as usize <= MAX_POINTS)
                || (bodies <= MAX_LAYERED_BODIES && self.grounded))
    }
}

/// [`Lcp::envelope_cost`](crate::solver::lcp::Lcp::envelope_cost) of a dense problem of `rows`
/// rows: the sum of the squares of 1 to `rows`.
const fn dense_cost(rows: u64) -> u64 {
    rows * (rows + 1) * (2 * rows + 1) / 6
}

/// Lists in `heavy` the dynamic bodies more than the mass ratio heavier than the lightest
/// one (their inverse mass times the ratio below the largest), in slot order. An island whose
/// bodies are more than the ratio apart holds one of them: its heaviest body is more than the
/// ratio heavier than its lightest, which is no lighter than the lightest of all.
fn heavy_bodies(bodies: &BodyStore, heavy: &mut Vec<u32>) {
    let inv_mass = bodies.inv_mass();
    let lightest = inv_mass
        .par_iter()
        .with_min_len(4096)
        .copied()
        .reduce(|| 0.0f32, f32::max);
    heavy.clear();
    let heavier = |&(_, &m): &(usize, &f32)| m > 0.0 && lightest > MASS_RATIO * m;
    heavy.extend(
        inv_mass
            .iter()
            .enumerate()
            .filter(heavier)
            .map(|(s, _)| s as u32),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body_def::{BodyDef, ShapeDef};
    use crate::geometry::shape::Shape;
    use crate::index::BodySlot;
    use crate::narrow_phase::manifold::Manifold;

    /// Random bodies (a few fixed, the dynamic ones of three densities far apart) and random
    /// pairs between them.
    fn random_world(seed: u64, bodies: usize, pairs: usize) -> (BodyStore, Vec<Contact>) {
        let mut next = crate::test_rng::xorshift64(seed);
        let mut store = BodyStore::new();
        for _ in 0..bodies {
            let r = next() % 20;
            // One world in four with no fixed body: no island rests on one.
            let def = if r == 0 && seed % 4 != 3 {
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
        // Sorted by bodies, as a contact set keeps them.
        contacts.sort_by_key(|c| (c.a, c.b));
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
            let keys: Vec<ContactKey> = contacts.iter().map(|c| (c.a, c.b, 0)).collect();
            assert!(keys.is_sorted());
            direct.find(&contacts, &keys, &store);
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
