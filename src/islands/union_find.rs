//! Union-find over body slots, shared by the islands that sleep together (`island`), the
//! islands solved exactly (`direct_islands`) and the tiles of the constraint graph.

use crate::index::BodySlot;

/// The root of `slot`'s tree in a union-find forest of parent links (a root is its own
/// parent); path halving keeps later finds short.
pub(crate) fn find_root(parent: &mut [BodySlot], slot: BodySlot) -> BodySlot {
    let mut s = slot;
    while parent[s.index()] != s {
        let grandparent = parent[parent[s.index()].index()];
        parent[s.index()] = grandparent;
        s = grandparent;
    }
    s
}
