//! Graph coloring of contact constraints, so that the constraints of one color share no dynamic
//! body and can be solved in parallel, eight lanes at a time.
//!
//! Greedy, in contact order: a constraint takes the first color in which none of its dynamic
//! bodies is used yet. Static and kinematic bodies are never written by the solver, so they take
//! no color. Constraints touching a static body search from the last color down: solved last,
//! they have the final word, which keeps stacks from sinking into the ground. What fits in no
//! color goes to the overflow set, solved one constraint at a time on one thread.

use crate::body::BodyStore;
use crate::contact::Contact;
use batch2d_kernels::LANES;
use std::ops::Range;

/// Number of graph colors before constraints overflow.
pub const COLOR_COUNT: usize = 24;

/// One bit per color.
const ALL_COLORS: u32 = (1 << COLOR_COUNT) - 1;
const _: () = assert!(COLOR_COUNT < 32, "colors are bits of a u32 mask");

/// Where the coloring of the last step put a contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GraphColor {
    /// Color `0..COLOR_COUNT`: solved in parallel with the other contacts of that color.
    Color(usize),
    /// Fit no color: solved one at a time on one thread before the colors.
    Overflow,
    /// In a small island of widely different masses, solved exactly by the direct solver.
    Direct,
    /// A body was removed since the last step, so the coloring no longer matches the contacts.
    Unknown,
}

/// Marks an unused lane.
pub(crate) const EMPTY_LANE: u32 = u32::MAX;

/// The colors of the last step and their packing into batches of `LANES` contacts.
#[derive(Default)]
pub(crate) struct ConstraintGraph {
    /// Contact indices of each color, in contact order.
    colors: Vec<Vec<u32>>,
    /// Contact indices that fit no color.
    pub overflow: Vec<u32>,
    /// Per body slot, bit `k` set when the body is used in color `k`: finding a contact's
    /// first free color is then one bit scan of its two bodies' masks.
    body_colors: Vec<u32>,
    /// Contact index of each lane of each batch; overflow batches first, one contact each.
    pub lanes: Vec<[u32; LANES]>,
    /// Batch ranges of the non-empty colors, in solve order.
    pub color_batches: Vec<Range<usize>>,
    /// What the colors were made from: per contact, its two body slots and whether each is
    /// dynamic. The coloring is a function of this sequence alone, so when a step brings the
    /// same one (a resting scene), last step's colors and batches stand.
    colored: Vec<ColoredPair>,
}

/// A contact as the coloring sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ColoredPair {
    a: u32,
    b: u32,
    a_dynamic: bool,
    b_dynamic: bool,
    /// Left to the direct solver: takes no color.
    direct: bool,
}

impl ConstraintGraph {
    /// Colors `contacts` and packs the colors into batches, unless they pair the same bodies
    /// as last time. Contacts marked in `direct` (empty: none) take no color: the direct
    /// solver has them.
    pub fn build(&mut self, contacts: &[Contact], bodies: &BodyStore, direct: &[bool]) {
        let pair = |i: usize, c: &Contact| ColoredPair {
            a: c.a,
            b: c.b,
            a_dynamic: bodies.is_dynamic(c.a as usize),
            b_dynamic: bodies.is_dynamic(c.b as usize),
            direct: direct.get(i).copied().unwrap_or(false),
        };
        let unchanged = self.colored.len() == contacts.len()
            && contacts
                .iter()
                .zip(&self.colored)
                .enumerate()
                .all(|(i, (c, &p))| pair(i, c) == p);
        if unchanged {
            return;
        }
        self.colors.resize_with(COLOR_COUNT, Vec::new);
        for color in &mut self.colors {
            color.clear();
        }
        self.body_colors.clear();
        self.body_colors.resize(bodies.slots(), 0);
        self.overflow.clear();
        self.colored.resize(contacts.len(), ColoredPair::default());

        let body_colors = &mut self.body_colors;
        for (i, (c, colored)) in contacts.iter().zip(&mut self.colored).enumerate() {
            let p = pair(i, c);
            *colored = p;
            if p.direct {
                continue;
            }
            let (a, b) = (p.a as usize, p.b as usize);
            let mask = |dynamic: bool, s: usize| if dynamic { body_colors[s] } else { 0 };
            let free = !(mask(p.a_dynamic, a) | mask(p.b_dynamic, b)) & ALL_COLORS;
            if free == 0 {
                self.overflow.push(i as u32);
                continue;
            }
            let color = if p.a_dynamic && p.b_dynamic {
                free.trailing_zeros()
            } else {
                31 - free.leading_zeros()
            };
            for (dynamic, s) in [(p.a_dynamic, a), (p.b_dynamic, b)] {
                if dynamic {
                    body_colors[s] |= 1 << color;
                }
            }
            self.colors[color as usize].push(i as u32);
        }
        self.pack();
    }

    fn pack(&mut self) {
        self.lanes.clear();
        self.color_batches.clear();
        for &i in &self.overflow {
            let mut lanes = [EMPTY_LANE; LANES];
            lanes[0] = i;
            self.lanes.push(lanes);
        }
        for color in self.colors.iter().filter(|c| !c.is_empty()) {
            let start = self.lanes.len();
            for chunk in color.chunks(LANES) {
                let mut lanes = [EMPTY_LANE; LANES];
                lanes[..chunk.len()].copy_from_slice(chunk);
                self.lanes.push(lanes);
            }
            self.color_batches.push(start..self.lanes.len());
        }
    }

    /// Batch range of the overflow constraints (solved first, on one thread).
    pub fn overflow_batches(&self) -> Range<usize> {
        0..self.overflow.len()
    }

    /// The color of each of the `contact_count` contacts, or `None` when the graph does not
    /// cover exactly that many: contacts were removed with a body since it was built, and
    /// its indices no longer name them. (Removal only drops contacts, so an unchanged count
    /// means unchanged indices.)
    pub fn contact_colors(&self, contact_count: usize) -> Option<Vec<GraphColor>> {
        if self.colored.len() != contact_count {
            return None;
        }
        let mut out: Vec<GraphColor> = self
            .colored
            .iter()
            .map(|p| match p.direct {
                true => GraphColor::Direct,
                false => GraphColor::Overflow,
            })
            .collect();
        for (k, color) in self.colors.iter().enumerate() {
            for &i in color {
                out[i as usize] = GraphColor::Color(k);
            }
        }
        Some(out)
    }

    /// Number of non-empty colors.
    pub fn color_count(&self) -> usize {
        self.color_batches.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{BodyDef, ShapeDef};
    use crate::manifold::Manifold;
    use crate::shape::Shape;

    /// Random bodies of every kind and random pairs between them, many sharing bodies.
    fn random_graph(seed: u64, bodies: usize, pairs: usize) -> (BodyStore, Vec<Contact>) {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut store = BodyStore::new();
        for _ in 0..bodies {
            let def = match next() % 5 {
                0 => BodyDef::fixed(),
                1 => BodyDef::kinematic(),
                _ => BodyDef::dynamic(),
            };
            store
                .insert(&def, &ShapeDef::new(Shape::circle(0.5)))
                .unwrap();
        }
        let mut contacts = Vec::new();
        while contacts.len() < pairs {
            let (a, b) = (
                (next() % bodies as u64) as u32,
                (next() % bodies as u64) as u32,
            );
            let dynamic = store.is_dynamic(a as usize) || store.is_dynamic(b as usize);
            if a < b && dynamic {
                contacts.push(Contact {
                    a,
                    b,
                    manifold: Manifold::default(),
                    friction: 0.6,
                    restitution: 0.0,
                });
            }
        }
        (store, contacts)
    }

    #[test]
    fn colors_never_share_a_dynamic_body_and_cover_every_contact_once() {
        for seed in 1..40u64 {
            // Few bodies and many pairs force some contacts into the overflow set.
            let (bodies, pairs) = if seed % 2 == 0 {
                (30, 400)
            } else {
                (2000, 3000)
            };
            let (store, contacts) = random_graph(seed, bodies, pairs);
            let mut graph = ConstraintGraph::default();
            graph.build(&contacts, &store, &[]);

            let mut seen = vec![0u32; contacts.len()];
            for lanes in &graph.lanes[graph.overflow_batches()] {
                assert!(lanes[1..].iter().all(|&l| l == EMPTY_LANE));
                seen[lanes[0] as usize] += 1;
            }
            for range in &graph.color_batches {
                let mut used = vec![false; store.slots()];
                for lanes in &graph.lanes[range.clone()] {
                    for &ci in lanes.iter().filter(|&&l| l != EMPTY_LANE) {
                        seen[ci as usize] += 1;
                        let c = &contacts[ci as usize];
                        for s in [c.a as usize, c.b as usize] {
                            if store.is_dynamic(s) {
                                assert!(!used[s], "body {s} twice in one color (seed {seed})");
                                used[s] = true;
                            }
                        }
                    }
                }
            }
            assert!(
                seen.iter().all(|&n| n == 1),
                "a contact is not in exactly one place"
            );
            if seed % 2 == 0 {
                assert!(!graph.overflow.is_empty(), "dense graph should overflow");
            }
        }
    }

    /// A build from the same contacts over bodies of the same kinds keeps last build's colors;
    /// any change (other kinds for the same pairs, other pairs) colors afresh. Each build
    /// matches a fresh graph's.
    #[test]
    fn a_repeated_build_keeps_its_colors_and_a_changed_one_colors_afresh() {
        let (store, contacts) = random_graph(3, 200, 600);
        let (other_kinds, _) = random_graph(4, 200, 1);
        let kinds_differ = contacts
            .iter()
            .any(|c| store.is_dynamic(c.a as usize) != other_kinds.is_dynamic(c.a as usize));
        assert!(
            kinds_differ,
            "the two stores should differ on some contact's body"
        );
        let result = |g: &ConstraintGraph| (g.lanes.clone(), g.color_batches.clone());
        let fresh = |store: &BodyStore, contacts: &[Contact]| {
            let mut g = ConstraintGraph::default();
            g.build(contacts, store, &[]);
            result(&g)
        };
        let mut graph = ConstraintGraph::default();
        let steps = [
            (&store, &contacts[..]),
            (&store, &contacts[..]),
            (&other_kinds, &contacts[..]),
            (&store, &contacts[..300]),
            (&store, &contacts[..]),
        ];
        for (i, (store, contacts)) in steps.into_iter().enumerate() {
            graph.build(contacts, store, &[]);
            assert_eq!(result(&graph), fresh(store, contacts), "build {i}");
        }
    }
}
