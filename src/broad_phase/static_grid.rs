//! The broadphase of static bodies: a grid hash of their boxes that persists while they stay
//! put, rebuilt only when one is added, moved or removed.
//!
//! A level built of thousands of static tiles would otherwise be entered into the grid that the
//! broadphase rebuilds whenever the moving bodies leave their fat boxes (every step of a
//! falling pile), and every tile would look for partners there. Kept apart, the tiles cost a
//! step nothing while their version stands (see `Proxies::static_version`; without one, a scan
//! of their boxes), and each moving body asks this grid for the static boxes it overlaps, as it
//! asks the sleeping bodies' grid.
//!
//! A few static bodies (a ground and two walls) stay in the rebuilt grid: there each large one
//! tests the proxies after it directly, which costs less than a query per moving body.

use crate::body::SlotKind;
use crate::broad_phase::box_grid::BoxGrid;
use crate::broad_phase::proxies::{overlaps, Proxies};
use crate::geometry::math::Aabb;
use rayon::prelude::*;

/// The static bodies are kept in a grid of their own from this many on.
const MIN_STATICS: usize = 64;

/// Static proxies compared per parallel task.
const STATICS_PER_TASK: usize = 4096;

/// The static proxies of the last [`StaticGrid::refresh`] and the grid of their boxes.
#[derive(Clone, Default)]
pub(crate) struct StaticGrid {
    /// Whether the static proxies are kept here, out of the rebuilt grid.
    active: bool,
    /// Slot and box of every static proxy, ascending by slot (indexed by the grid's ids).
    statics: Vec<(u32, Aabb)>,
    /// `Proxies::static_version` of the last call.
    version: Option<u64>,
    grid: BoxGrid,
}

impl StaticGrid {
    /// Whether the static proxies are kept here: the other grids must then treat them as holes.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Takes in the static proxies of `proxies` and returns whether they differ from those of the
    /// last call (a static body added, moved or removed, or the grid turned on or off): pairs
    /// kept from before are then stale. Where their version stands they are taken as they were;
    /// otherwise they are compared with those held.
    pub fn refresh(&mut self, proxies: &Proxies) -> bool {
        // A version that stands covers the count too, so whether the grid is on as well.
        let version = proxies.static_version;
        if version.is_some() && version == self.version {
            return false;
        }
        self.version = version;
        let is_static = |s: usize| proxies.kinds[s] == SlotKind::Fixed;
        let count = (proxies.kinds.iter())
            .filter(|&&k| k == SlotKind::Fixed)
            .count();
        let unchanged = |statics: &[(u32, Aabb)]| {
            // As many as held, and each held one still static with its box.
            count == statics.len()
                && (statics.par_iter().with_min_len(STATICS_PER_TASK)).all(|&(s, ref b)| {
                    is_static(s as usize) && same_box(&proxies.aabbs[s as usize], b)
                })
        };
        let active = count >= MIN_STATICS;
        // While off, the rebuilt grid holds the static proxies and sees them change itself.
        if (!active && !self.active) || (self.active && unchanged(&self.statics)) {
            return false;
        }
        self.active = active;
        self.statics.clear();
        if active {
            let statics = (0..proxies.kinds.len()).filter(|&s| is_static(s));
            (self.statics).extend(statics.map(|s| (s as u32, proxies.aabbs[s])));
            let statics = &self.statics;
            (self.grid).build(0..statics.len() as u32, |i| &statics[i as usize].1);
        }
        true
    }

    /// Appends the pairs of dynamic proxy `q` of `proxies` with the static proxies whose boxes
    /// overlap its box and whose filters let them collide, each once, ordered within itself.
    pub fn pairs_of(&self, proxies: &Proxies, q: usize, out: &mut Vec<(u32, u32)>) {
        if proxies.kinds[q] != SlotKind::Dynamic {
            return;
        }
        let aabb = &proxies.aabbs[q];
        self.grid.candidates(aabb, |i| {
            let (s, ref static_box) = self.statics[i as usize];
            if overlaps(aabb, static_box) && proxies.may_collide(q, s as usize) {
                let q = q as u32;
                out.push((q.min(s), q.max(s)));
            }
        });
    }
}

/// Whether two boxes are the same, bit for bit.
fn same_box(a: &Aabb, b: &Aabb) -> bool {
    let bits = |b: &Aabb| [b.min.x, b.min.y, b.max.x, b.max.y].map(f32::to_bits);
    bits(a) == bits(b)
}
