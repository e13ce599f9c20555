//! Union-find over body slots, shared by the islands that sleep together (`island`), the
//! islands solved exactly (`direct_islands`) and the tiles of the constraint graph.

/// The root of `slot`'s tree in a union-find forest of parent links (a root is its own
/// parent); path halving keeps later finds short.
pub(crate) fn find_root(parent: &mut [u32], slot: u32) -> u32 {
    let mut s = slot;
    while parent[s as usize] != s {
        let grandparent = parent[parent[s as usize] as usize];
        parent[s as usize] = grandparent;
        s = grandparent;
    }
    s
}
