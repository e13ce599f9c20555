//! Collision filters of a body's shapes (layers, masks and groups), and the broadphase filter
//! and grouped-body count the store derives from them.

use super::BodyStore;

/// Collision filters: layers, masks and groups.
impl BodyStore {
    /// Group index of shape `child` of the body in `slot`.
    pub fn child_group(&self, slot: usize, child: usize) -> i32 {
        match &self.compound[slot] {
            Some(c) => c.materials[child].group,
            None => self.group[slot],
        }
    }

    /// Whether a shape of the body in `slot` is in a group.
    pub(super) fn has_group(&self, slot: usize) -> bool {
        (0..self.shapes(slot).len()).any(|c| self.child_group(slot, c) != 0)
    }

    /// Box2D's filter for shape `ca` of the body in `a` and shape `cb` of the body in `b`:
    /// the same group decides where there is one (negative: never, positive: always), the
    /// layers and masks otherwise.
    pub fn shapes_collide(&self, a: usize, ca: usize, b: usize, cb: usize) -> bool {
        let (ga, gb) = (self.child_group(a, ca), self.child_group(b, cb));
        if ga == gb && ga != 0 {
            return ga > 0;
        }
        let ((layers_a, mask_a), (layers_b, mask_b)) =
            (self.child_filter(a, ca), self.child_filter(b, cb));
        layers_a & mask_b != 0 && layers_b & mask_a != 0
    }

    /// Whether some shape of the body in `a` may collide with some shape of the body in `b`
    /// by their filters ([`BodyStore::shapes_collide`]).
    pub fn bodies_collide(&self, a: usize, b: usize) -> bool {
        let (na, nb) = (self.shapes(a).len(), self.shapes(b).len());
        (0..na).any(|ca| (0..nb).any(|cb| self.shapes_collide(a, ca, b, cb)))
    }

    /// Gives every shape of the body in `slot` the layers, mask and group.
    pub fn set_filter(&mut self, slot: usize, layers: u32, mask: u32, group: i32) {
        let had = self.has_group(slot);
        if let Some(c) = &mut self.compound[slot] {
            for m in c.materials.iter_mut() {
                (m.layers, m.mask, m.group) = (layers, mask, group);
            }
        }
        (self.layers[slot], self.mask[slot], self.group[slot]) = (layers, mask, group);
        self.filters_changed(slot, had);
    }

    /// Brings the body's broadphase filter and the count of grouped bodies up to date after
    /// its shapes' filters changed (`had`: whether a shape was in a group before).
    pub(super) fn filters_changed(&mut self, slot: usize, had: bool) {
        let has = self.has_group(slot);
        self.grouped = self.grouped + usize::from(has) - usize::from(had);
        let positive = (0..self.shapes(slot).len()).any(|c| self.child_group(slot, c) > 0);
        (self.broad_layers[slot], self.broad_mask[slot]) = match positive {
            true => (u32::MAX, u32::MAX),
            false => (self.layers[slot], self.mask[slot]),
        };
    }
}
