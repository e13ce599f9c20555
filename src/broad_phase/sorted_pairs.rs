//! Sorted lists of body pairs `(a, b)`, `a < b`: the broadphase's pairs, the resting pairs of
//! sleeping bodies and the touching pairs of contact events are all kept in this order, so
//! that joining them is a merge and the result does not depend on the thread count.

/// Merges the sorted `extra` into the sorted `pairs`, from the back, so that no pair moves
/// twice and nothing is allocated once `pairs` has grown.
pub(crate) fn merge_sorted(pairs: &mut Vec<(u32, u32)>, extra: &[(u32, u32)]) {
    let mut i = pairs.len();
    pairs.resize(i + extra.len(), (0, 0));
    let mut out = pairs.len();
    for &f in extra.iter().rev() {
        while i > 0 && pairs[i - 1] > f {
            out -= 1;
            i -= 1;
            pairs[out] = pairs[i];
        }
        out -= 1;
        pairs[out] = f;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sorted_keeps_order() {
        let mut pairs = vec![(0, 3), (1, 2), (4, 9)];
        merge_sorted(&mut pairs, &[(0, 1), (1, 5), (7, 8)]);
        assert_eq!(pairs, [(0, 1), (0, 3), (1, 2), (1, 5), (4, 9), (7, 8)]);
    }

    #[test]
    fn merge_sorted_into_empty_and_from_empty() {
        let mut pairs = Vec::new();
        merge_sorted(&mut pairs, &[(0, 1), (2, 3)]);
        assert_eq!(pairs, [(0, 1), (2, 3)]);
        merge_sorted(&mut pairs, &[]);
        assert_eq!(pairs, [(0, 1), (2, 3)]);
    }
}
