//! Graph coloring of contact constraints, so that the constraints of one color share no dynamic
//! body and can be solved in parallel, eight lanes at a time.
//!
//! Greedy, in contact order: a constraint takes the first color in which none of its dynamic
//! bodies is used yet. Static and kinematic bodies are never written by the solver, so they take
//! no color. Constraints touching a static body search from the last color down: solved last,
//! they have the final word, which keeps stacks from sinking into the ground. What fits in no
//! color goes to the overflow set, solved one constraint at a time on one thread.
//!
//! Packing groups the batches by connected component first. Components of at most
//! `TILE_CONTACTS` contacts are packed together into tiles, each tile's colors side by side,
//! and the tile lists its bodies: one worker then runs a tile's whole step (every substep's
//! integration and passes over its colors) while its batches and bodies stay in its cache, with
//! no wait for the other workers. Larger components (one big pile), and those touching a
//! kinematic body (integrated with the world's stages) or holding an overflow contact (solved
//! in the world's overflow stage), are packed by color across the whole world. Components share
//! no dynamic body, so each body and contact goes through the same operations in the same
//! order either way, and the results are the same bit for bit.

use crate::body::{BodyStore, SlotKind};
use crate::index::{BodySlot, ContactIndex, NONE};
use crate::islands::union_find::find_root;
use crate::narrow_phase::contact::ContactKey;
use batch2d_kernels::LANES;
use std::iter::repeat;
use std::ops::Range;

/// Number of graph colors before constraints overflow.
pub const COLOR_COUNT: usize = 24;

/// One bit per color.
const ALL_COLORS: u32 = (1 << COLOR_COUNT) - 1;
const _: () = assert!(
    COLOR_COUNT < 30,
    "colors are bits of a u32 mask, under the kinds"
);

/// In `body_colors`, above the colors: the body's kind, so that one read per body gives both.
const DYNAMIC_BIT: u32 = 1 << 31;
const KINEMATIC_BIT: u32 = 1 << 30;

const _: () = assert!(COLOR_COUNT <= 256, "a color is a u8 in DebugContact");

/// Most contacts in one tile. At about 150 bytes of batch a contact, a tile's batches and
/// bodies fit a core's L2 cache (512 KiB on the smallest we measured on) several times over.
const TILE_CONTACTS: usize = 1024;

/// Contacts of a color among which the packing puts the one-point ones first (a multiple of
/// `LANES`). Contacts come in creation order, which in a pile follows space, and the workers
/// each take one stretch of a color (see `schedule`): moving a contact only within its window
/// keeps it in its stretch.
const ONE_POINT_WINDOW: usize = 32 * LANES;
const _: () = assert!(
    ONE_POINT_WINDOW.is_power_of_two(),
    "a count within a window is masked to it"
);

/// Colorings after one whose tiles held under half the colored contacts that do not look for
/// tiles. The search costs about as much as the coloring itself (a union-find over the
/// contacts), more than tiles save where most contacts are in one large pile, and such a
/// world seldom breaks into small piles at once.
const TILE_RETRY: u32 = 30;

/// The colors of the last step and their packing into batches of `LANES` contacts.
#[derive(Clone, Default)]
pub(crate) struct ConstraintGraph {
    /// The contacts of each color, in contact order.
    colors: Vec<Vec<ContactIndex>>,
    /// The contacts that fit no color.
    pub overflow: Vec<ContactIndex>,
    /// Per body slot, bit `k` set when the body is used in color `k`: finding a contact's
    /// first free color is then one bit scan of its two bodies' masks. `DYNAMIC_BIT` or
    /// `KINEMATIC_BIT` says the body's kind.
    body_colors: Vec<u32>,
    /// Scratch of the search for tiles, per body slot: the union-find parents.
    parent: Vec<BodySlot>,
    /// The contact of each lane of each batch: overflow batches first, one contact each, then
    /// the tiles, then the colors of the large components; `NONE` in an unused lane.
    pub lanes: Vec<[ContactIndex; LANES]>,
    /// The inverse of `lanes`: per contact, its lane as `batch * LANES + lane`, `NONE` for one
    /// left to the direct solver. Kept with the lanes, so a coloring that stands keeps it too.
    pub contact_lane: Vec<u32>,
    /// Per tile, its range of `tile_colors`.
    pub tiles: Vec<Range<usize>>,
    /// Batch ranges of each tile's non-empty colors, tile after tile, in solve order.
    pub tile_colors: Vec<Range<usize>>,
    /// Batch ranges of the large components' non-empty colors, in solve order.
    pub color_batches: Vec<Range<usize>>,
    /// The dynamic bodies (slots) of each tile, tile after tile, ascending within a tile.
    pub tile_bodies: Vec<BodySlot>,
    /// Per tile, its range of `tile_bodies`.
    pub tile_body_ranges: Vec<Range<usize>>,
    /// Per body slot its tile, or `NONE` where its component is too large for a tile; per root
    /// its contact count during the search.
    slot_tile: Vec<u32>,
    /// Colorings left that skip the search for tiles (see `TILE_RETRY`).
    skip_tiles: u32,
    /// Tests turn tiles off to compare with the order of the world's stages.
    #[cfg(test)]
    pub no_tiles: bool,
    /// Scratch of the search, per body slot: tree sizes, then each root's tile; and the sort
    /// of the contacts by (tile, color).
    root_tile: Vec<u32>,
    key_start: Vec<u32>,
    sorted: Vec<ContactIndex>,
    /// What the colors were made from: the contacts' keys, which contacts the direct solver
    /// took, and the bodies' kinds. The coloring is a function of these alone: when a step
    /// brings the same (a resting scene), last step's colors and batches stand.
    colored: Vec<ContactKey>,
    direct: Vec<bool>,
    kinds: Vec<SlotKind>,
    /// Scratch of the search for tiles: each contact as the search sees it, found from
    /// `colored`, `direct` and `kinds` only when tiles are looked for, so that the coloring
    /// loop stores nothing per contact but its color.
    pairs: Vec<ColoredPair>,
    /// Per body slot, whether it has a joint (empty: none has), as of the last coloring:
    /// jointed bodies stay out of tiles, so a change redoes the tiles.
    jointed: Vec<bool>,
    /// How many times the colors were made: unchanged while they stand.
    generation: u64,
}

/// A contact as the search for tiles sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ColoredPair {
    a: BodySlot,
    b: BodySlot,
    a_dynamic: bool,
    b_dynamic: bool,
    /// Left to the direct solver: takes no color.
    direct: bool,
    /// A or B is kinematic.
    kinematic: bool,
}

/// Colors the contacts whose keys are `keys` greedily, in order (see the module's comment):
/// each takes the first color (the last, if it touches a body that is not dynamic) that
/// neither of its dynamic bodies is in, and goes into `colors`, or into `overflow` where there
/// is none; `direct` says, per contact, which take no color. `body_colors` holds each body's
/// kind bits and gets its colors. The loop stores nothing per contact but its index in its
/// color, and keeps every value it needs in registers: out of line (`#[inline(never)]`), as
/// inlined into `ConstraintGraph::build` it ran short of them and read its slices' addresses
/// and lengths from the stack for every contact.
#[inline(never)]
fn color_contacts(
    keys: &[ContactKey],
    direct: impl Iterator<Item = bool>,
    body_colors: &mut [u32],
    colors: &mut [Vec<ContactIndex>; COLOR_COUNT],
    overflow: &mut Vec<ContactIndex>,
) {
    const _: () = assert!(
        DYNAMIC_BIT == 1 << 31,
        "the sign bit: a shift makes the mask"
    );
    for (i, (&(a, b, _), direct)) in keys.iter().zip(direct).enumerate() {
        if direct {
            continue;
        }
        let (a, b) = (a.index(), b.index());
        // Each body's kind and colors in one read, and masks that keep the colors of dynamic
        // bodies only (the sign bit spread by a shift): without branches, as the kinds mix
        // unpredictably (a static body's entry never takes a color).
        let (a_word, b_word) = (body_colors[a], body_colors[b]);
        let a_mask = ((a_word as i32) >> 31) as u32;
        let b_mask = ((b_word as i32) >> 31) as u32;
        let free = !((a_word & a_mask) | (b_word & b_mask)) & ALL_COLORS;
        if free == 0 {
            overflow.push(ContactIndex::new(i));
            continue;
        }
        let color = if a_mask & b_mask != 0 {
            free.trailing_zeros()
        } else {
            31 - free.leading_zeros()
        };
        body_colors[a] |= (1 << color) & a_mask;
        body_colors[b] |= (1 << color) & b_mask;
        colors[color as usize].push(ContactIndex::new(i));
    }
}

// A key is three `u32`s (two `repr(transparent)` slots and the children) with no padding.
const _: () = assert!(std::mem::size_of::<ContactKey>() == 3 * std::mem::size_of::<u32>());

/// The bytes of `keys`: two lists of keys are equal exactly when their bytes are, and bytes
/// compare as one block, where keys compare field by field.
fn key_bytes(keys: &[ContactKey]) -> &[u8] {
    // SAFETY: a key has no padding (the assertion above), so every byte of the slice is
    // initialized; the bytes borrow `keys`, which no one writes meanwhile.
    unsafe { std::slice::from_raw_parts(keys.as_ptr().cast::<u8>(), std::mem::size_of_val(keys)) }
}

impl ConstraintGraph {
    /// Colors the contacts whose keys (bodies first) are `keys`, and which have at most one
    /// point where `one_point` says so, and packs the colors into batches, unless they pair
    /// the same bodies as last time. Contacts marked in `direct` (empty: none) take no color:
    /// the direct solver has them. Bodies marked in `jointed` (per slot; empty: none) are in
    /// no tile.
    pub fn build(
        &mut self,
        one_point: &[bool],
        keys: &[ContactKey],
        bodies: &BodyStore,
        direct: &[bool],
        jointed: &[bool],
    ) {
        // The compact keys, not the contacts, and the kinds of the bodies: a steady scene is
        // decided here, by sequential reads of a few bytes per contact and per body.
        let unchanged = key_bytes(keys) == key_bytes(&self.colored)
            && self.jointed == jointed
            && self.direct == direct
            && self.kinds == bodies.kind();
        if unchanged {
            return;
        }
        // Copied whole: a copy within the coloring loop below would hold more values than it
        // has registers for.
        self.colored.clear();
        self.colored.extend_from_slice(keys);
        self.direct.clear();
        self.direct.extend_from_slice(direct);
        self.kinds.clear();
        self.kinds.extend_from_slice(bodies.kind());
        self.generation += 1;
        self.colors.resize_with(COLOR_COUNT, Vec::new);
        for color in &mut self.colors {
            color.clear();
        }
        self.jointed.clear();
        self.jointed.extend_from_slice(jointed);
        let kind_bits = |&kind: &SlotKind| match kind {
            SlotKind::Dynamic => DYNAMIC_BIT,
            SlotKind::Kinematic => KINEMATIC_BIT,
            SlotKind::Empty | SlotKind::Fixed => 0,
        };
        self.body_colors.clear();
        self.body_colors.extend(bodies.kind().iter().map(kind_bits));
        self.overflow.clear();
        let colors: &mut [Vec<ContactIndex>; COLOR_COUNT] =
            (&mut self.colors[..COLOR_COUNT]).try_into().unwrap();
        let (body_colors, overflow) = (&mut self.body_colors[..], &mut self.overflow);
        // The loop without the direct solver's marks is the common one: it reads none.
        if direct.is_empty() {
            color_contacts(keys, repeat(false), body_colors, colors, overflow);
        } else if let Some(direct) = direct.get(..keys.len()) {
            // One mark per contact, as the direct solver gives them: read along the keys,
            // with no test for their end.
            color_contacts(keys, direct.iter().copied(), body_colors, colors, overflow);
        } else {
            let direct = direct.iter().copied().chain(repeat(false));
            color_contacts(keys, direct, body_colors, colors, overflow);
        }
        if self.skip_tiles > 0 {
            self.skip_tiles -= 1;
            self.slot_tile.clear();
            self.tile_bodies.clear();
            self.tile_body_ranges.clear();
        } else {
            self.assign_tiles(bodies.slots());
            let colored: usize = self.colors.iter().map(Vec::len).sum();
            let tiled = self.colors.iter().flatten();
            let tiled = tiled.filter(|&&i| self.contact_tile(i) != NONE).count();
            if tiled * 2 < colored {
                self.skip_tiles = TILE_RETRY;
            }
        }
        self.layout_batches(one_point);
    }

    /// Finds `pairs` from the keys, the direct solver's marks and the kinds the colors were
    /// made from.
    fn describe_pairs(&mut self) {
        let kinds = &self.kinds;
        let direct = |i: usize| self.direct.get(i).copied().unwrap_or(false);
        let pair = |(i, &(a, b, _)): (usize, &ContactKey)| {
            let (a_kind, b_kind) = (kinds[a.index()], kinds[b.index()]);
            ColoredPair {
                a,
                b,
                a_dynamic: a_kind == SlotKind::Dynamic,
                b_dynamic: b_kind == SlotKind::Dynamic,
                direct: direct(i),
                kinematic: a_kind == SlotKind::Kinematic || b_kind == SlotKind::Kinematic,
            }
        };
        self.pairs.clear();
        self.pairs.extend(self.colored.iter().enumerate().map(pair));
    }

    /// Joins the dynamic bodies of each colored contact into components: `parent` becomes
    /// a union-find forest over the `slots` slots (see `find_root`).
    fn join_components(&mut self, slots: usize) {
        let parent = &mut self.parent;
        parent.clear();
        parent.extend((0..slots).map(BodySlot::new));
        // Union by size (`root_tile` holds the sizes for now) keeps the trees shallow; ties go
        // to the smaller slot, so the forest depends on the contacts alone.
        let size = &mut self.root_tile;
        size.clear();
        size.resize(slots, 1);
        let colored = |p: &&ColoredPair| !p.direct && p.a_dynamic && p.b_dynamic;
        for p in self.pairs.iter().filter(colored) {
            let (ra, rb) = (find_root(parent, p.a), find_root(parent, p.b));
            if ra != rb {
                let (sa, sb) = (size[ra.index()], size[rb.index()]);
                let (big, small) = if sa > sb || (sa == sb && ra < rb) {
                    (ra, rb)
                } else {
                    (rb, ra)
                };
                parent[small.index()] = big;
                size[big.index()] = sa + sb;
            }
        }
    }

    /// Finds the tiles: components (dynamic bodies joined by colored contacts) of at most
    /// `TILE_CONTACTS` contacts fill tiles in the order their first contact comes, each tile up
    /// to that many contacts; sets `slot_tile`, `tile_bodies` and `tile_body_ranges`.
    fn assign_tiles(&mut self, slots: usize) {
        self.describe_pairs();
        self.join_components(slots);
        let parent = &mut self.parent;
        let colored = |p: &ColoredPair| !p.direct && (p.a_dynamic || p.b_dynamic);
        // A colored contact's component: the root of its dynamic body (either, if both).
        let root_of = |parent: &mut [BodySlot], p: &ColoredPair| match (colored(p), p.a_dynamic) {
            (false, _) => None,
            (true, true) => Some(find_root(parent, p.a).index()),
            (true, false) => Some(find_root(parent, p.b).index()),
        };
        // Per root its contact count (in `slot_tile` for now).
        let count = &mut self.slot_tile;
        count.clear();
        count.resize(slots, 0);
        for p in &self.pairs {
            if let Some(root) = root_of(parent, p) {
                count[root] += 1;
            }
        }
        // Components that must stay with the world's stages count as too large.
        let too_large = TILE_CONTACTS as u32 + 1;
        #[cfg(test)]
        if self.no_tiles {
            count.fill(too_large);
        }
        // Jointed bodies' components too: a tile runs no joint stage.
        let jointed = |s: BodySlot| self.jointed.get(s.index()).copied().unwrap_or(false);
        for p in self.pairs.iter().filter(|p| jointed(p.a) || jointed(p.b)) {
            if let Some(root) = root_of(parent, p) {
                count[root] = too_large;
            }
        }
        for p in self.pairs.iter().filter(|p| p.kinematic) {
            if let Some(root) = root_of(parent, p) {
                count[root] = too_large;
            }
        }
        for &i in &self.overflow {
            if let Some(root) = root_of(parent, &self.pairs[i.index()]) {
                count[root] = too_large;
            }
        }
        // Each root gets its tile at its first contact.
        const UNSET: u32 = NONE - 1;
        self.root_tile.clear();
        self.root_tile.resize(slots, UNSET);
        let (mut tiles, mut filled) = (0u32, TILE_CONTACTS);
        for p in &self.pairs {
            let Some(root) = root_of(parent, p) else {
                continue;
            };
            if self.root_tile[root] == UNSET {
                let n = count[root] as usize;
                self.root_tile[root] = if n > TILE_CONTACTS {
                    NONE
                } else {
                    if filled + n > TILE_CONTACTS {
                        tiles += 1;
                        filled = 0;
                    }
                    filled += n;
                    tiles - 1
                };
            }
        }
        // Each slot's tile, and the tiles' bodies by a counting sort of the slots on it.
        let tiles = tiles as usize;
        self.tile_body_ranges.clear();
        self.tile_body_ranges.resize(tiles, 0..0);
        for s in 0..slots {
            let tile = match self.root_tile[find_root(parent, BodySlot::new(s)).index()] {
                UNSET => NONE,
                tile => tile,
            };
            if tile != NONE {
                self.tile_body_ranges[tile as usize].end += 1;
            }
            self.slot_tile[s] = tile;
        }
        let mut start = 0;
        for range in &mut self.tile_body_ranges {
            let len = range.end;
            *range = start..start;
            start += len;
        }
        self.tile_bodies.clear();
        self.tile_bodies.resize(start, BodySlot::NONE);
        for (s, &tile) in self.slot_tile.iter().enumerate() {
            if tile != NONE {
                let at = &mut self.tile_body_ranges[tile as usize].end;
                self.tile_bodies[*at] = BodySlot::new(s);
                *at += 1;
            }
        }
    }

    /// The tile of colored contact `i`, or `NONE` where its component is too large for a tile
    /// (after `assign_tiles`).
    fn contact_tile(&self, i: ContactIndex) -> u32 {
        let p = &self.pairs[i.index()];
        self.slot_tile[if p.a_dynamic { p.a } else { p.b }.index()]
    }

    /// Lays the colors out in batches: the overflow set, then per tile its colors, then the
    /// colors of contacts in no tile, and notes each contact's lane. Within each
    /// `ONE_POINT_WINDOW` contacts of a color the
    /// one-point contacts (circles; `one_point` says which) come first, so that they fill
    /// batches of their own, which a faster kernel solves; the order within a color does not
    /// change the results, since its contacts share no dynamic body.
    fn layout_batches(&mut self, one_point: &[bool]) {
        self.lanes.clear();
        self.tiles.clear();
        self.tile_colors.clear();
        self.color_batches.clear();
        // Only the contacts left to the direct solver hold `NONE`: every other one is in the
        // overflow set or a color, and its lane is written below over what it held. Where
        // there are some, every lane is set to `NONE` first: a plain fill, cheaper than
        // looking for them.
        if !self.direct.is_empty() {
            self.contact_lane.clear();
        }
        self.contact_lane.resize(self.colored.len(), NONE);
        for &i in &self.overflow {
            let mut lanes = [ContactIndex::NONE; LANES];
            lanes[0] = i;
            self.contact_lane[i.index()] = (self.lanes.len() * LANES) as u32;
            self.lanes.push(lanes);
        }
        // The contacts of a window that are one-point and the others, as the partition finds
        // them.
        let mut ones_first = [ContactIndex::NONE; ONE_POINT_WINDOW];
        let mut rest = [ContactIndex::NONE; ONE_POINT_WINDOW];
        let tiles = self.tile_body_ranges.len();
        if tiles > 0 {
            self.sort_by_tile();
        }
        for tile in 0..=tiles {
            let first_color = self.tile_colors.len();
            for k in 0..COLOR_COUNT {
                // Without tiles, the colors themselves.
                let contacts = match tiles {
                    0 => &self.colors[k][..],
                    _ => {
                        let at = tile * COLOR_COUNT + k;
                        let first = at.checked_sub(1).map_or(0, |prev| self.key_start[prev]);
                        &self.sorted[first as usize..self.key_start[at] as usize]
                    }
                };
                if contacts.is_empty() {
                    continue;
                }
                let first_batch = self.lanes.len();
                let len = contacts.len();
                self.lanes.resize(
                    first_batch + len.div_ceil(LANES),
                    [ContactIndex::NONE; LANES],
                );
                let flat = self.lanes[first_batch..].as_flattened_mut();
                let windows = contacts.chunks(ONE_POINT_WINDOW);
                let outs = flat.chunks_mut(ONE_POINT_WINDOW);
                for (w, (window, out)) in windows.zip(outs).enumerate() {
                    // A stable partition without branches (the kinds mix unpredictably):
                    // each contact is written as the next one-point contact and as the next
                    // other one, and the count that moves on says which write stands; the
                    // others then follow the one-point ones. Each contact's lane is written
                    // as a one-point contact's, and the others' again once their place is
                    // known: in a pile of circles, that second pass has nothing to do.
                    let first_lane = first_batch * LANES + w * ONE_POINT_WINDOW;
                    // A slice of its own, which the loop keeps in registers.
                    let contact_lane = &mut self.contact_lane[..];
                    let (mut ones, mut others) = (0, 0);
                    for &i in window {
                        let one = one_point[i.index()];
                        // The counts stay below the window's length: masked to it, they need
                        // no bounds check.
                        ones_first[ones % ONE_POINT_WINDOW] = i;
                        rest[others % ONE_POINT_WINDOW] = i;
                        contact_lane[i.index()] = (first_lane + ones) as u32;
                        ones += one as usize;
                        others += !one as usize;
                    }
                    out[..ones].copy_from_slice(&ones_first[..ones]);
                    out[ones..window.len()].copy_from_slice(&rest[..others]);
                    for (at, &i) in rest[..others].iter().enumerate() {
                        contact_lane[i.index()] = (first_lane + ones + at) as u32;
                    }
                }
                let batches = first_batch..self.lanes.len();
                if tile < tiles {
                    self.tile_colors.push(batches);
                } else {
                    self.color_batches.push(batches);
                }
            }
            if tile < tiles {
                self.tiles.push(first_color..self.tile_colors.len());
            }
        }
    }

    /// Counting sort of the colored contacts into `sorted` by (tile, color), the colors of
    /// contacts in no tile last, keeping contact order within each key. `key_start[k]` counts,
    /// then is the cursor that places key k's contacts, and ends as the end of key k.
    fn sort_by_tile(&mut self) {
        let tiles = self.tile_body_ranges.len();
        let key = |tile: u32, color: usize| match tile {
            NONE => tiles * COLOR_COUNT + color,
            tile => tile as usize * COLOR_COUNT + color,
        };
        let keys = (tiles + 1) * COLOR_COUNT;
        self.key_start.clear();
        self.key_start.resize(keys + 1, 0);
        for (k, color) in self.colors.iter().enumerate() {
            for &i in color {
                let tile = self.contact_tile(i);
                self.key_start[key(tile, k) + 1] += 1;
            }
        }
        for k in 0..keys {
            self.key_start[k + 1] += self.key_start[k];
        }
        self.sorted.clear();
        self.sorted
            .resize(self.key_start[keys] as usize, ContactIndex::NONE);
        for (k, color) in self.colors.iter().enumerate() {
            for &i in color {
                let tile = self.contact_tile(i);
                let at = &mut self.key_start[key(tile, k)];
                self.sorted[*at as usize] = i;
                *at += 1;
            }
        }
    }

    /// Changes whenever [`ConstraintGraph::build`] makes new colors, and only then: what
    /// depends on the tiles and lanes alone may be kept while it stays.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Batch range of the overflow constraints (solved first, on one thread).
    pub fn overflow_batches(&self) -> Range<usize> {
        0..self.overflow.len()
    }

    /// The color of each of the `contact_count` contacts (`None` for the overflow and the
    /// exactly solved islands), or `None` when the graph does not cover exactly that many:
    /// contacts were removed with a body since it was built, and its indices no longer name
    /// them. (Removal only drops contacts, so an unchanged count means unchanged indices.)
    pub fn contact_colors(&self, contact_count: usize) -> Option<Vec<Option<u8>>> {
        if self.colored.len() != contact_count {
            return None;
        }
        let mut out = vec![None; contact_count];
        for (k, color) in self.colors.iter().enumerate() {
            for &i in color {
                out[i.index()] = Some(k as u8);
            }
        }
        Some(out)
    }

    /// Number of colors in use, in tiles or not (Tracy's plot of the step's counters).
    #[cfg(any(test, feature = "tracy"))]
    pub fn color_count(&self) -> usize {
        self.colors.iter().filter(|c| !c.is_empty()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body_def::{BodyDef, BodyKind, ShapeDef};
    use crate::geometry::shape::Shape;
    use crate::narrow_phase::contact::Contact;
    use crate::narrow_phase::manifold::Manifold;

    /// The keys of `contacts`, as the contact set keeps them.
    fn keys_of(contacts: &[Contact]) -> Vec<ContactKey> {
        contacts.iter().map(|c| (c.a, c.b, 0)).collect()
    }

    /// Which of `contacts` have at most one point, as the contact set keeps it.
    fn one_point_of(contacts: &[Contact]) -> Vec<bool> {
        contacts.iter().map(Contact::has_one_point).collect()
    }

    /// Random bodies of every kind and random pairs between them, many sharing bodies.
    fn random_graph(seed: u64, bodies: usize, pairs: usize) -> (BodyStore, Vec<Contact>) {
        let mut next = crate::test_rng::xorshift64(seed);
        let mut store = BodyStore::new();
        for _ in 0..bodies {
            let def = match next() % 5 {
                0 => BodyDef::fixed(),
                1 => BodyDef::kinematic(),
                _ => BodyDef::dynamic(),
            };
            store
                .insert(&def, &ShapeDef::new(Shape::circle(0.5).unwrap()))
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
                let manifold = Manifold {
                    point_count: 1 + (next() % 2) as usize,
                    ..Manifold::default()
                };
                contacts.push(Contact {
                    a: BodySlot::new(a as usize),
                    b: BodySlot::new(b as usize),
                    manifold,
                    friction: 0.6,
                    restitution: 0.0,
                    tangent_speed: 0.0,
                });
            }
        }
        (store, contacts)
    }

    #[test]
    fn colors_never_share_a_dynamic_body_and_cover_every_contact_once() {
        for seed in 1..40u64 {
            // Few bodies and many pairs force some contacts into the overflow set; many
            // bodies and pairs make one large component and small ones; under one pair per
            // body, the components are small and fill tiles.
            let (bodies, pairs) = match seed % 3 {
                0 => (30, 400),
                1 => (2000, 3000),
                _ => (20000, 8000),
            };
            let (store, contacts) = random_graph(seed, bodies, pairs);
            let mut graph = ConstraintGraph::default();
            graph.build(
                &one_point_of(&contacts),
                &keys_of(&contacts),
                &store,
                &[],
                &[],
            );

            let mut seen = vec![0u32; contacts.len()];
            for lanes in &graph.lanes[graph.overflow_batches()] {
                assert!(lanes[1..].iter().all(|&l| l == ContactIndex::NONE));
                seen[lanes[0].index()] += 1;
            }
            // Each color of each tile, then each color outside the tiles.
            for range in graph.tile_colors.iter().chain(&graph.color_batches) {
                let mut used = vec![false; store.slots()];
                let mut twos = false;
                let color = graph.lanes[range.clone()].iter().flatten();
                for (k, &ci) in color.filter(|&&l| l != ContactIndex::NONE).enumerate() {
                    seen[ci.index()] += 1;
                    let c = &contacts[ci.index()];
                    // One-point contacts first in each window.
                    let one_point = c.manifold.point_count == 1;
                    twos &= k % ONE_POINT_WINDOW != 0;
                    assert!(
                        !(twos && one_point),
                        "a one-point contact after a two-point one"
                    );
                    twos |= !one_point;
                    for s in [c.a.index(), c.b.index()] {
                        if store.is_dynamic(s) {
                            assert!(!used[s], "body {s} twice in one color (seed {seed})");
                            used[s] = true;
                        }
                    }
                }
            }
            assert!(
                seen.iter().all(|&n| n == 1),
                "a contact is not in exactly one place"
            );
            // `contact_lane` is the inverse of `lanes`.
            let mut lane_of = vec![NONE; contacts.len()];
            for (b, lanes) in graph.lanes.iter().enumerate() {
                for (l, &ci) in lanes.iter().enumerate() {
                    if ci != ContactIndex::NONE {
                        lane_of[ci.index()] = (b * LANES + l) as u32;
                    }
                }
            }
            assert_eq!(graph.contact_lane, lane_of, "seed {seed}");
            match seed % 3 {
                0 => assert!(!graph.overflow.is_empty(), "dense graph should overflow"),
                1 => assert!(
                    !graph.color_batches.is_empty(),
                    "a component should be large"
                ),
                _ => assert!(graph.tiles.len() > 1, "sparse graph should make tiles"),
            }
            assert_tiles_are_closed(&graph, &store, &contacts);
        }
    }

    /// Every contact of a tile has its dynamic bodies among the tile's bodies, no body is in
    /// two tiles, and no contact outside the tiles (overflow, colors of the world) touches a
    /// tile's body or a tile holds a kinematic body.
    fn assert_tiles_are_closed(graph: &ConstraintGraph, store: &BodyStore, contacts: &[Contact]) {
        let mut tile_of_body = vec![None; store.slots()];
        for (t, range) in graph.tile_body_ranges.iter().enumerate() {
            for &s in &graph.tile_bodies[range.clone()] {
                assert!(
                    store.is_dynamic(s.index()),
                    "tile {t} holds non-dynamic body {s:?}"
                );
                assert_eq!(tile_of_body[s.index()], None, "body {s:?} in two tiles");
                tile_of_body[s.index()] = Some(t);
            }
        }
        let batch_contacts = |range: Range<usize>| {
            graph.lanes[range]
                .iter()
                .flatten()
                .filter(|&&ci| ci != ContactIndex::NONE)
                .map(|&ci| &contacts[ci.index()])
                .collect::<Vec<_>>()
        };
        for (t, colors) in graph.tiles.iter().enumerate() {
            for range in &graph.tile_colors[colors.clone()] {
                for c in batch_contacts(range.clone()) {
                    for s in [c.a.index(), c.b.index()] {
                        let kind = store.body_kind(s);
                        assert_ne!(kind, BodyKind::Kinematic, "tile {t} touches a kinematic");
                        if kind == BodyKind::Dynamic {
                            assert_eq!(tile_of_body[s], Some(t), "body {s} outside tile {t}");
                        }
                    }
                }
            }
        }
        let outside = graph
            .overflow_batches()
            .chain(graph.color_batches.iter().flat_map(|r| r.clone()));
        for c in outside.flat_map(|b| batch_contacts(b..b + 1)) {
            for s in [c.a.index(), c.b.index()] {
                assert_eq!(tile_of_body[s], None, "body {s} is in a tile and outside");
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
            .any(|c| store.is_dynamic(c.a.index()) != other_kinds.is_dynamic(c.a.index()));
        assert!(
            kinds_differ,
            "the two stores should differ on some contact's body"
        );
        // The colors; the packing may differ, as a build may skip the search for tiles.
        let result = |g: &ConstraintGraph| g.contact_colors(g.colored.len());
        let fresh = |store: &BodyStore, contacts: &[Contact]| {
            let mut g = ConstraintGraph::default();
            g.build(&one_point_of(contacts), &keys_of(contacts), store, &[], &[]);
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
            let generation = graph.generation();
            graph.build(&one_point_of(contacts), &keys_of(contacts), store, &[], &[]);
            assert_eq!(result(&graph), fresh(store, contacts), "build {i}");
            // Only the repeated build keeps its colors.
            assert_eq!(graph.generation() == generation, i == 1, "build {i}");
        }
    }
}
