//! A bounding-volume tree over a fixed list of boxes: what a compound body finds its shapes
//! near a box by, so that a body touching one corner of a body of a thousand shapes tests a
//! handful of them, not all.
//!
//! The tree's shape (which boxes share a leaf, which leaves a node) is built once from the
//! boxes the list has when it is made, a compound's shapes in the body frame, and kept while
//! the list keeps its length; the boxes themselves move every step with the body, so
//! [`BoxTree::refit`] recomputes the nodes' boxes bottom-up from the current ones. A rigid
//! motion keeps near boxes near, so the shape built in the body frame stays a good one.

use crate::codec::clone_fields;
use crate::geometry::math::Aabb;

/// Most boxes in one leaf.
const LEAF: usize = 4;

/// A node: a leaf lists `count` boxes from `order[next]`; an inner node (`count == 0`) has its
/// left child right after it and its right child at `next`, so that every child comes after
/// its parent and a reverse sweep refits children first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Node {
    aabb: Aabb,
    next: u32,
    count: u32,
}

/// See the module docs.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct BoxTree {
    nodes: Vec<Node>,
    /// The box indices, grouped by leaf.
    order: Vec<u32>,
}

// A snapshot restored into a world copies into the trees it has: see `clone_fields!`.
clone_fields!(BoxTree { nodes, order });

impl BoxTree {
    /// A tree over `boxes`, split at the median of the longer side of each node's box
    /// (ties by index, so the same boxes always give the same tree), its nodes fitted to them.
    pub fn build(boxes: &[Aabb]) -> BoxTree {
        let mut tree = BoxTree {
            nodes: Vec::with_capacity(2 * boxes.len().div_ceil(LEAF)),
            order: (0..boxes.len() as u32).collect(),
        };
        if !boxes.is_empty() {
            tree.split(boxes, 0, boxes.len());
            tree.refit(boxes);
        }
        tree
    }

    /// Adds the node over `order[start..end]` and those below it.
    fn split(&mut self, boxes: &[Aabb], start: usize, end: usize) {
        let at = self.nodes.len();
        if end - start <= LEAF {
            self.nodes.push(Node {
                aabb: Aabb::default(),
                next: start as u32,
                count: (end - start) as u32,
            });
            return;
        }
        self.nodes.push(Node::default());
        let items = &mut self.order[start..end];
        let bound = items.iter().fold(boxes[items[0] as usize], |u, &i| {
            u.union(&boxes[i as usize])
        });
        let size = bound.extents();
        let key = |i: u32| {
            let b = &boxes[i as usize];
            if size.x >= size.y {
                b.min.x + b.max.x
            } else {
                b.min.y + b.max.y
            }
        };
        items.sort_unstable_by(|&i, &j| key(i).total_cmp(&key(j)).then(i.cmp(&j)));
        let middle = start + (end - start) / 2;
        self.split(boxes, start, middle);
        let right = self.nodes.len() as u32;
        self.split(boxes, middle, end);
        self.nodes[at].next = right;
    }

    /// Whether the tree was built over `n` boxes.
    pub fn covers(&self, n: usize) -> bool {
        self.order.len() == n
    }

    /// Fits every node's box to `boxes` (as many as the tree was built over), children first.
    pub fn refit(&mut self, boxes: &[Aabb]) {
        debug_assert!(self.covers(boxes.len()));
        for i in (0..self.nodes.len()).rev() {
            let node = self.nodes[i];
            self.nodes[i].aabb = if node.count > 0 {
                let start = node.next as usize;
                let items = &self.order[start..start + node.count as usize];
                (items[1..].iter()).fold(boxes[items[0] as usize], |u, &k| {
                    u.union(&boxes[k as usize])
                })
            } else {
                self.nodes[i + 1]
                    .aabb
                    .union(&self.nodes[node.next as usize].aabb)
            };
        }
    }

    /// Appends to `out`, ascending, the index of every box of `boxes` (those the tree was last
    /// refitted to) that overlaps `region`. Returns how many boxes it tested, nodes' and
    /// leaves' together: the work, for the tests that keep it small.
    pub fn query(&self, boxes: &[Aabb], region: &Aabb, out: &mut Vec<u32>) -> usize {
        let first = out.len();
        let mut tested = 0;
        let mut stack = [0u32; 64];
        let mut depth = usize::from(!self.nodes.is_empty());
        while depth > 0 {
            depth -= 1;
            let at = stack[depth];
            let node = self.nodes[at as usize];
            tested += 1;
            if !node.aabb.overlaps(region) {
                continue;
            }
            if node.count > 0 {
                let start = node.next as usize;
                for &k in &self.order[start..start + node.count as usize] {
                    tested += 1;
                    if boxes[k as usize].overlaps(region) {
                        out.push(k);
                    }
                }
            } else {
                // Median splits keep the depth near log2(n / LEAF), so the stack holds at
                // most that many pending right children: 64 is beyond any list in memory.
                stack[depth] = node.next;
                stack[depth + 1] = at + 1;
                depth += 2;
            }
        }
        out[first..].sort_unstable();
        tested
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::math::Vec2;

    /// A 40 x 25 grid of 0.08 m boxes 0.1 m apart: a compound of a thousand small boxes.
    fn grid() -> Vec<Aabb> {
        let mut boxes = Vec::new();
        for row in 0..25 {
            for column in 0..40 {
                let c = Vec2::new(column as f32 * 0.1, row as f32 * 0.1);
                boxes.push(Aabb::new(
                    c - Vec2::new(0.04, 0.04),
                    c + Vec2::new(0.04, 0.04),
                ));
            }
        }
        boxes
    }

    fn brute_force(boxes: &[Aabb], region: &Aabb) -> Vec<u32> {
        (0..boxes.len() as u32)
            .filter(|&i| boxes[i as usize].overlaps(region))
            .collect()
    }

    #[test]
    fn a_corner_costs_a_few_tests_and_finds_what_brute_force_finds() {
        let boxes = grid();
        let tree = BoxTree::build(&boxes);
        // A ball of radius 0.05 at the bottom-left corner touches the corner box only.
        let corner = Aabb::new(Vec2::new(-0.09, -0.09), Vec2::new(0.01, 0.01));
        let mut found = Vec::new();
        let tested = tree.query(&boxes, &corner, &mut found);
        assert_eq!(found, brute_force(&boxes, &corner));
        assert_eq!(found, [0]);
        // A path down the tree, about log2(1000 / 4) = 8 levels of two nodes, and a leaf: far
        // from the thousand tests of every shape.
        assert!(tested <= 40, "tested {tested} boxes for one corner");
    }

    #[test]
    fn moved_boxes_are_found_after_a_refit() {
        let local = grid();
        let mut tree = BoxTree::build(&local);
        // The grid turned by 30 degrees and moved, as a body's shapes are every step.
        let (s, c) = 30f32.to_radians().sin_cos();
        let turn = |p: Vec2| Vec2::new(c * p.x - s * p.y + 5.0, s * p.x + c * p.y - 2.0);
        let moved: Vec<Aabb> = local
            .iter()
            .map(|b| {
                let corners = [
                    b.min,
                    b.max,
                    Vec2::new(b.min.x, b.max.y),
                    Vec2::new(b.max.x, b.min.y),
                ];
                let p = corners.map(turn);
                let min = p.iter().fold(p[0], |m, &q| m.min(q));
                let max = p.iter().fold(p[0], |m, &q| m.max(q));
                Aabb::new(min, max)
            })
            .collect();
        tree.refit(&moved);
        let mut rng = 12345u32;
        let mut next = || {
            rng = rng.wrapping_mul(1664525).wrapping_add(1013904223);
            (rng >> 8) as f32 / (1u32 << 24) as f32
        };
        for _ in 0..200 {
            let at = Vec2::new(2.0 + 5.0 * next(), -3.0 + 5.0 * next());
            let size = Vec2::new(0.5 * next(), 0.5 * next());
            let region = Aabb::new(at, at + size);
            let mut found = Vec::new();
            tree.query(&moved, &region, &mut found);
            assert_eq!(found, brute_force(&moved, &region), "region {region:?}");
        }
    }
}
