//! Islands: groups of dynamic bodies joined by touching contacts, which sleep and wake as one.
//!
//! Islands persist across steps as a union-find forest over body slots. Two islands merge as
//! soon as a contact between their bodies begins touching; a contact that stops touching only
//! marks its island as possibly split. Splitting (a flood fill over the island's contacts) waits
//! until a body of such an island wants to sleep: most islands that lose a contact are moving
//! and never need it, and the flood fill is the one costly operation here.
//!
//! Static and kinematic bodies never join an island: a ground would otherwise weld every pile
//! resting on it into one island that could only sleep and wake as a whole.
//!
//! Every decision walks contacts in `(a, b)` order and bodies in slot order, and union-find
//! always roots a merged island at its lower root slot, so islands come out the same whatever
//! the thread count or backend.

use crate::body::BodyStore;
use crate::codec::{clone_fields, invalid, Codec, Reader, Writer};
use crate::error::Error;
use crate::index::{BodySlot, NONE};
use crate::islands::union_find::find_root;
use crate::narrow_phase::contact::Contact;

/// The islands of the dynamic bodies. Per-slot entries of non-dynamic and free slots are unused.
#[derive(Default)]
pub(crate) struct Islands {
    /// Union-find parent of each slot; a root is its own parent.
    parent: Vec<BodySlot>,
    /// Per root: the island lost a touching contact since its members were last known to be
    /// connected, so it may have to be split before it sleeps.
    split_pending: Vec<bool>,
    /// The touching contacts between two dynamic bodies at the end of the last step, as sorted
    /// `(a, b)` pairs: what this step's contacts are compared with to find begins and ends.
    links: Vec<(BodySlot, BodySlot)>,
    /// Scratch: this step's links.
    next_links: Vec<(BodySlot, BodySlot)>,
    /// Scratch of [`Islands::split`]: the member index of each slot, `NONE` for others.
    member_index: Vec<u32>,
    /// Dynamic bodies removed since the last step began, whose islands
    /// [`Islands::dissolve_removed`] dissolves then: dissolving finds an island's members by a pass over every slot, and one pass for
    /// all the removals of a step keeps removing n bodies linear instead of quadratic.
    removed: Vec<BodySlot>,
    /// Bodies added since then into slots that may still lie on the path of
    /// another island's tree (slots freed by `removed`): made islands of their own only after
    /// those islands are dissolved.
    added: Vec<BodySlot>,
}

// Restoring a snapshot copies into the columns the world has: see `clone_fields!`.
clone_fields!(Islands {
    parent,
    split_pending,
    links,
    next_links,
    member_index,
    removed,
    added,
});

impl Islands {
    /// A new body in `slot` is an island of its own (once [`Islands::dissolve_removed`] ran, if
    /// bodies were removed since it last did).
    pub fn add_body(&mut self, slot: BodySlot) {
        let n = slot.index() + 1;
        if self.parent.len() < n {
            // A fresh slot is its own root: no tree passes through it.
            let old = self.parent.len();
            self.parent.extend((old..n).map(BodySlot::new));
            self.split_pending.resize(n, false);
            self.member_index.resize(n, NONE);
        }
        if self.removed.is_empty() {
            self.parent[slot.index()] = slot;
            self.split_pending[slot.index()] = false;
        } else {
            self.added.push(slot);
        }
    }

    /// The root slot of the island of `slot`.
    pub fn find(&mut self, slot: BodySlot) -> BodySlot {
        find_root(&mut self.parent, slot)
    }

    /// Whether the island rooted at `root` lost a contact since it was last known connected.
    pub fn split_pending(&self, root: BodySlot) -> bool {
        self.split_pending[root.index()]
    }

    /// Joins the islands of `a` and `b` under the lower of their roots.
    fn union(&mut self, a: BodySlot, b: BodySlot) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let (root, child) = (ra.min(rb), ra.max(rb));
        self.parent[child.index()] = root;
        let pending = self.split_pending[child.index()];
        self.split_pending[root.index()] |= pending;
    }

    /// Marks the island of `slot` as possibly split: it lost a link other than a contact (a
    /// joint).
    pub fn mark_split(&mut self, slot: BodySlot) {
        let root = self.find(slot);
        self.split_pending[root.index()] = true;
    }

    /// Compares this step's touching contacts with last step's: a link that began merges two
    /// islands, a link that ended marks its island as possibly split. Both lists are sorted, so
    /// one merge-join finds both kinds of event. The bodies of each pair of `joints` share an
    /// island too, as long as the joint lasts (see `World::remove_joint`).
    pub fn update(
        &mut self,
        contacts: &[Contact],
        bodies: &BodyStore,
        joints: &[(BodySlot, BodySlot)],
    ) {
        let mut next = std::mem::take(&mut self.next_links);
        next.clear();
        next.extend(
            contacts
                .iter()
                .filter(|c| bodies.is_dynamic(c.a.index()) && bodies.is_dynamic(c.b.index()))
                .map(|c| (c.a, c.b)),
        );
        let old = std::mem::take(&mut self.links);
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < next.len() {
            if j == next.len() || (i < old.len() && old[i] < next[j]) {
                let root = self.find(old[i].0);
                self.split_pending[root.index()] = true;
                i += 1;
            } else if i == old.len() || next[j] < old[i] {
                self.union(next[j].0, next[j].1);
                j += 1;
            } else {
                i += 1;
                j += 1;
            }
        }
        self.links = next;
        self.next_links = old;
        for &(a, b) in joints {
            if bodies.is_dynamic(a.index()) && bodies.is_dynamic(b.index()) {
                self.union(a, b);
            }
        }
    }

    /// Forgets the links of bodies that fell asleep: their contacts are set aside, not ended.
    /// Both bodies of a link are in one island, so testing one of them is enough.
    pub fn forget_links(&mut self, asleep: &[bool]) {
        self.links.retain(|&(a, _)| !asleep[a.index()]);
    }

    /// Splits the island whose members are `members` (ascending slots) into the connected
    /// components of their touching `contacts` and their `joints`, by flood fill. Each component is rooted at its
    /// lowest slot and is no longer pending a split. Returns the root of each member, in order.
    pub fn split(
        &mut self,
        members: &[BodySlot],
        contacts: &[Contact],
        joints: &[(BodySlot, BodySlot)],
    ) -> Vec<BodySlot> {
        for (i, &s) in members.iter().enumerate() {
            self.member_index[s.index()] = i as u32;
        }
        let local = |s: BodySlot, index: &[u32]| index[s.index()];
        // Adjacency in compressed rows: count the degrees, then fill.
        let n = members.len();
        let mut start = vec![0u32; n + 1];
        let links = contacts
            .iter()
            .map(|c| (c.a, c.b))
            .chain(joints.iter().copied());
        let edges: Vec<(u32, u32)> = links
            .filter_map(|(a, b)| {
                let (i, j) = (local(a, &self.member_index), local(b, &self.member_index));
                (i != NONE && j != NONE).then_some((i, j))
            })
            .collect();
        for &(i, j) in &edges {
            start[i as usize + 1] += 1;
            start[j as usize + 1] += 1;
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut fill = start.clone();
        let mut neighbours = vec![0u32; 2 * edges.len()];
        for &(i, j) in &edges {
            neighbours[fill[i as usize] as usize] = j;
            fill[i as usize] += 1;
            neighbours[fill[j as usize] as usize] = i;
            fill[j as usize] += 1;
        }

        let mut root_of = vec![BodySlot::NONE; n];
        let mut stack = Vec::new();
        for first in 0..n {
            if root_of[first] != BodySlot::NONE {
                continue;
            }
            // Members ascend, so the first unvisited one is the component's lowest slot.
            let root = members[first];
            root_of[first] = root;
            stack.push(first as u32);
            while let Some(i) = stack.pop() {
                let (from, to) = (start[i as usize] as usize, start[i as usize + 1] as usize);
                for &j in &neighbours[from..to] {
                    if root_of[j as usize] == BodySlot::NONE {
                        root_of[j as usize] = root;
                        stack.push(j);
                    }
                }
            }
        }
        for (&s, &root) in members.iter().zip(&root_of) {
            self.parent[s.index()] = root;
            self.split_pending[s.index()] = false;
            self.member_index[s.index()] = NONE;
        }
        root_of
    }

    /// Notes the removal of the dynamic body in `slot`; its island is dissolved by
    /// [`Islands::dissolve_removed`] at the start of the next step, before anything reads the
    /// islands again.
    pub fn remove_body(&mut self, slot: BodySlot) {
        self.removed.push(slot);
    }

    /// Dissolves the islands of the bodies removed since the last call: every other member
    /// becomes an island of its own again and its links are forgotten, so that the next update
    /// sees their contacts as beginning and merges exactly the members that still touch. No
    /// parent pointer is left through a removed slot, which a new body may reuse; then the
    /// bodies added meanwhile become islands of their own.
    pub fn dissolve_removed(&mut self, bodies: &BodyStore) {
        if self.removed.is_empty() {
            return;
        }
        let removed = std::mem::take(&mut self.removed);
        // `member_index` marks the roots to dissolve here, then every slot dissolved.
        let mut roots: Vec<BodySlot> = removed.iter().map(|&s| self.find(s)).collect();
        roots.sort_unstable();
        roots.dedup();
        for &r in &roots {
            self.member_index[r.index()] = 0;
        }
        let dissolved: Vec<BodySlot> = (0..self.parent.len())
            .filter(|&s| bodies.is_dynamic(s))
            .map(BodySlot::new)
            .filter(|&s| {
                let root = find_root(&mut self.parent, s);
                self.member_index[root.index()] == 0
            })
            .collect();
        for &r in &roots {
            self.member_index[r.index()] = NONE;
        }
        for &s in dissolved.iter().chain(&removed) {
            self.member_index[s.index()] = 0;
        }
        let index = &self.member_index;
        self.links
            .retain(|&(a, b)| index[a.index()] == NONE && index[b.index()] == NONE);
        for &s in dissolved.iter().chain(&removed) {
            self.member_index[s.index()] = NONE;
            self.parent[s.index()] = s;
            self.split_pending[s.index()] = false;
        }
        for s in std::mem::take(&mut self.added) {
            self.parent[s.index()] = s;
            self.split_pending[s.index()] = false;
        }
    }
}

/// Saves the forest and the links; the per-slot scratch is rebuilt empty (`NONE`), as
/// between steps.
impl Codec for Islands {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        let Islands {
            parent,
            split_pending,
            links,
            next_links: _,
            member_index: _,
            removed,
            added,
        } = self;
        parent.encode(w);
        split_pending.encode(w);
        links.encode(w);
        removed.encode(w);
        added.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let parent: Vec<BodySlot> = Codec::decode(r)?;
        Ok(Islands {
            member_index: vec![NONE; parent.len()],
            parent,
            split_pending: Codec::decode(r)?,
            links: Codec::decode(r)?,
            next_links: Vec::new(),
            removed: Codec::decode(r)?,
            added: Codec::decode(r)?,
        })
    }
}

impl Islands {
    /// `Err` unless there is an entry per slot of a store of `slots`, the parent links form
    /// a forest (no cycle: a find must end), and the links and lists name slots in range.
    pub fn check(&self, slots: usize) -> Result<(), Error> {
        let n = self.parent.len();
        let in_range = |s: &BodySlot| s.index() < n;
        let ok = n == slots
            && self.split_pending.len() == n
            && self.parent.iter().all(in_range)
            && self.removed.iter().all(in_range)
            && self.added.iter().all(in_range)
            && (self.links.iter()).all(|(a, b)| a < b && in_range(b))
            && self.links.windows(2).all(|w| w[0] < w[1]);
        if !ok {
            return Err(invalid("islands out of range"));
        }
        // Each walk up the forest marks its path; meeting the path being walked is a cycle.
        const NEW: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; n];
        let mut path = Vec::new();
        for start in 0..n {
            let mut s = start;
            while state[s] == NEW {
                state[s] = ON_PATH;
                path.push(s);
                let p = self.parent[s].index();
                if p == s {
                    break;
                }
                s = p;
            }
            if state[s] == ON_PATH && self.parent[s].index() != s {
                return Err(invalid("island links form a cycle"));
            }
            for &p in &path {
                state[p] = DONE;
            }
            path.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body_def::{BodyDef, ShapeDef};
    use crate::geometry::shape::Shape;
    use crate::narrow_phase::manifold::Manifold;

    /// The slot of body `s`.
    fn slot(s: u32) -> BodySlot {
        BodySlot::new(s as usize)
    }

    fn contact(a: u32, b: u32) -> Contact {
        Contact {
            a: slot(a.min(b)),
            b: slot(a.max(b)),
            manifold: Manifold::default(),
            friction: 0.6,
            restitution: 0.0,
            tangent_speed: 0.0,
        }
    }

    fn store(dynamic: usize) -> BodyStore {
        let mut bodies = BodyStore::new();
        bodies
            .insert(
                &BodyDef::fixed(),
                &ShapeDef::new(Shape::circle(1.0).unwrap()),
            )
            .unwrap();
        for _ in 0..dynamic {
            bodies
                .insert(
                    &BodyDef::dynamic(),
                    &ShapeDef::new(Shape::circle(1.0).unwrap()),
                )
                .unwrap();
        }
        bodies
    }

    fn islands_of(bodies: &BodyStore) -> Islands {
        let mut islands = Islands::default();
        for s in 0..bodies.slots() {
            islands.add_body(BodySlot::new(s));
        }
        islands
    }

    /// Reachability by repeated relaxation: the lowest slot each body reaches through
    /// contacts between dynamic bodies.
    fn lowest_reachable(n: usize, contacts: &[Contact]) -> Vec<BodySlot> {
        let mut low: Vec<BodySlot> = (0..n).map(BodySlot::new).collect();
        loop {
            let mut changed = false;
            for c in contacts.iter().filter(|c| c.a != slot(0)) {
                let m = low[c.a.index()].min(low[c.b.index()]);
                for s in [c.a, c.b] {
                    if low[s.index()] != m {
                        low[s.index()] = m;
                        changed = true;
                    }
                }
            }
            if !changed {
                return low;
            }
        }
    }

    #[test]
    fn merging_on_begin_and_splitting_give_the_connected_components() {
        let mut next = crate::test_rng::xorshift64(0x2545_F491_4F6C_DD1Du64);
        let n = 60;
        let bodies = store(n - 1);
        let mut islands = islands_of(&bodies);
        let mut contacts: Vec<Contact> = Vec::new();
        for round in 0..20 {
            // A new random contact set: some old contacts persist, some end, some begin. Slot
            // 0 is the static body, which must join nothing.
            contacts.retain(|_| !next().is_multiple_of(3));
            for _ in 0..15 {
                let (a, b) = ((next() % n as u64) as u32, (next() % n as u64) as u32);
                let pair = (slot(a.min(b)), slot(a.max(b)));
                if a != b && !contacts.iter().any(|c| (c.a, c.b) == pair) {
                    contacts.push(contact(a, b));
                }
            }
            contacts.sort_unstable_by_key(|c| (c.a, c.b));
            islands.update(&contacts, &bodies, &[]);

            let truth = lowest_reachable(n, &contacts);
            // Merging alone: bodies that touch share an island (islands may be too large).
            for s in (1..n as u32).map(slot) {
                for t in (1..n as u32).map(slot) {
                    if truth[s.index()] == truth[t.index()] {
                        assert_eq!(islands.find(s), islands.find(t), "round {round}");
                    }
                }
            }
            // Splitting each island gives exactly the components, rooted at their lowest slot.
            let mut roots: Vec<BodySlot> = (1..n as u32).map(|s| islands.find(slot(s))).collect();
            roots.sort_unstable();
            roots.dedup();
            for root in roots {
                let members: Vec<BodySlot> = (1..n as u32)
                    .map(slot)
                    .filter(|&s| islands.find(s) == root)
                    .collect();
                let parts = islands.split(&members, &contacts, &[]);
                for (&s, &r) in members.iter().zip(&parts) {
                    assert_eq!(r, truth[s.index()], "round {round}, body {s:?}");
                    let root = islands.find(s);
                    assert!(!islands.split_pending(root));
                }
            }
            assert_eq!(
                islands.find(slot(0)),
                slot(0),
                "the static body joined an island"
            );
        }
    }

    #[test]
    fn an_ended_contact_marks_its_island_for_splitting() {
        let bodies = store(3);
        let mut islands = islands_of(&bodies);
        let chain = [contact(1, 2), contact(2, 3)];
        islands.update(&chain, &bodies, &[]);
        assert_eq!(islands.find(slot(3)), slot(1));
        assert!(!islands.split_pending(slot(1)));
        islands.update(&chain[..1], &bodies, &[]);
        let root = islands.find(slot(3));
        assert!(islands.split_pending(root));
    }

    #[test]
    fn removing_a_body_dissolves_its_island_and_the_next_update_rebuilds_it() {
        let mut bodies = store(4);
        let mut islands = islands_of(&bodies);
        let contacts = [contact(1, 2), contact(2, 3), contact(3, 4)];
        islands.update(&contacts, &bodies, &[]);
        assert_eq!(islands.find(slot(4)), slot(1));
        // Remove body 2: 1 stands alone, 3 and 4 still touch.
        bodies.remove(2);
        islands.remove_body(slot(2));
        islands.dissolve_removed(&bodies);
        let left = [contact(3, 4)];
        islands.update(&left, &bodies, &[]);
        assert_eq!(islands.find(slot(1)), slot(1));
        assert_eq!(islands.find(slot(4)), slot(3));
        assert_eq!(islands.find(slot(2)), slot(2));
    }

    #[test]
    fn many_removals_and_reused_slots_between_steps_keep_the_islands_exact() {
        let mut next = crate::test_rng::xorshift64(0x9E37_79B9_7F4A_7C15u64);
        let n = 200;
        let mut bodies = store(n - 1);
        let mut islands = islands_of(&bodies);
        // Everything starts as one chain.
        let mut contacts: Vec<Contact> = (1..n as u32 - 1).map(|s| contact(s, s + 1)).collect();
        islands.update(&contacts, &bodies, &[]);
        for round in 0..10 {
            // Remove a third of the live dynamic bodies, then add some back: they take the
            // freed slots while the removed bodies' islands are not dissolved yet.
            for s in 1..n {
                if bodies.is_dynamic(s) && next().is_multiple_of(3) {
                    bodies.remove(s);
                    islands.remove_body(BodySlot::new(s));
                }
            }
            for _ in 0..(next() % 60) {
                let def = BodyDef::dynamic();
                let id = bodies.insert(&def, &ShapeDef::new(Shape::circle(1.0).unwrap()));
                islands.add_body(slot(id.unwrap().slot()));
            }
            islands.dissolve_removed(&bodies);
            let live =
                |c: &Contact| bodies.is_dynamic(c.a.index()) && bodies.is_dynamic(c.b.index());
            contacts.retain(|c| live(c) && !next().is_multiple_of(4));
            for _ in 0..40 {
                let (a, b) = ((next() % n as u64) as u32, (next() % n as u64) as u32);
                let c = contact(a, b);
                if a != b && live(&c) && !contacts.iter().any(|o| (o.a, o.b) == (c.a, c.b)) {
                    contacts.push(c);
                }
            }
            contacts.sort_unstable_by_key(|c| (c.a, c.b));
            islands.update(&contacts, &bodies, &[]);

            let truth = lowest_reachable(bodies.slots(), &contacts);
            let dynamic: Vec<BodySlot> = (1..bodies.slots())
                .filter(|&s| bodies.is_dynamic(s))
                .map(BodySlot::new)
                .collect();
            let mut roots: Vec<BodySlot> = dynamic.iter().map(|&s| islands.find(s)).collect();
            roots.sort_unstable();
            roots.dedup();
            for root in roots {
                let members: Vec<BodySlot> = dynamic
                    .iter()
                    .copied()
                    .filter(|&s| islands.find(s) == root)
                    .collect();
                let parts = islands.split(&members, &contacts, &[]);
                for (&s, &r) in members.iter().zip(&parts) {
                    assert_eq!(r, truth[s.index()], "round {round}, body {s:?}");
                }
            }
            // Islands may only be too large, never too small: after the splits above each
            // body's island is exactly its component.
            for &s in &dynamic {
                assert_eq!(
                    islands.find(s),
                    truth[s.index()],
                    "round {round}, body {s:?}"
                );
            }
        }
    }
}
