//! The broadphase's input: the proxies of the body slots as parallel slices, with the
//! kind and layer filter that every pair search applies.

use crate::body::SlotKind;
use crate::geometry::math::Aabb;

/// Proxies as parallel slices indexed by body slot (holes have kind `SlotKind::Empty`).
///
/// All four slices must have the same length.
pub(crate) struct Proxies<'a> {
    /// The bounding box of each slot.
    pub aabbs: &'a [Aabb],
    /// The kind of body in each slot.
    pub kinds: &'a [SlotKind],
    /// The collision layers each slot belongs to (bit set).
    pub layers: &'a [u32],
    /// The layers each slot collides with (bit set).
    pub masks: &'a [u32],
    /// A number that changes whenever a static proxy is added, moved or removed, where the
    /// caller keeps one: while it stands, the static proxies are taken as they were, not
    /// compared box by box. `None`: compared.
    pub static_version: Option<u64>,
}

impl Proxies<'_> {
    /// The number of slots, holes included.
    pub(crate) fn len(&self) -> usize {
        self.aabbs.len()
    }

    /// Panics on mismatched slice lengths: a silent truncation would drop pairs.
    pub(crate) fn check(&self) {
        let n = self.len();
        assert!(
            self.kinds.len() == n && self.layers.len() == n && self.masks.len() == n,
            "Proxies: aabbs, kinds, layers and masks must have the same length"
        );
        assert!(
            u32::try_from(n).is_ok(),
            "Proxies: too many slots for u32 ids"
        );
    }

    /// The kind and layer filter; the AABB test is done by the caller. Always inlined: the
    /// pair search calls it per candidate, and left to itself the compiler kept it a call.
    #[inline(always)]
    pub(crate) fn may_collide(&self, a: usize, b: usize) -> bool {
        let has_dynamic = self.kinds[a] == SlotKind::Dynamic || self.kinds[b] == SlotKind::Dynamic;
        has_dynamic && self.layers[a] & self.masks[b] != 0 && self.layers[b] & self.masks[a] != 0
    }
}

/// A box as the grid's pair search reads it, in one of two forms: a candidate's
/// [`Bounds::upper`] `[max.x, max.y, -min.x, -min.y]` and a query's [`Bounds::lower`]
/// `[min.x, min.y, -max.x, -max.y]`. The four comparisons of [`overlaps`] are then one
/// comparison of four lanes, each `lower <= upper`, which the compiler makes one vector
/// compare. Negation is exact, so the answer is that of [`overlaps`] for every input, NaN
/// included (no lane holds).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(16))]
pub(crate) struct Bounds([f32; 4]);

impl Bounds {
    /// The form of `aabb` that a query is compared with.
    #[inline]
    pub(crate) fn upper(aabb: &Aabb) -> Bounds {
        Bounds([aabb.max.x, aabb.max.y, -aabb.min.x, -aabb.min.y])
    }

    /// The form of `aabb` that compares with the candidates' [`Bounds::upper`].
    #[inline]
    pub(crate) fn lower(aabb: &Aabb) -> Bounds {
        Bounds([aabb.min.x, aabb.min.y, -aabb.max.x, -aabb.max.y])
    }

    /// Whether the boxes overlap, `self` a [`Bounds::lower`] and `upper` a [`Bounds::upper`]:
    /// [`overlaps`] of the two boxes.
    #[inline(always)]
    pub(crate) fn overlap(&self, upper: &Bounds) -> bool {
        let (l, u) = (&self.0, &upper.0);
        (l[0] <= u[0]) & (l[1] <= u[1]) & (l[2] <= u[2]) & (l[3] <= u[3])
    }
}

/// `Aabb::overlaps` without short-circuits, for the hot loops (see `Grid::small_partners`).
#[inline]
pub(crate) fn overlaps(a: &Aabb, b: &Aabb) -> bool {
    (a.min.x <= b.max.x) & (b.min.x <= a.max.x) & (a.min.y <= b.max.y) & (b.min.y <= a.max.y)
}
