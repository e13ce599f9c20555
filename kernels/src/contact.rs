//! Contact constraint kernels of the soft step: prepare, impact (bounces), warm start, solve
//! (with or without the soft bias). Each works on a [`ContactBatch`] of eight contacts whose
//! dynamic bodies are all distinct.

use crate::body::{BodyLanes, States, NULL_BODY};
use crate::real::{array_of, reread, Lanes16, Lanes8, Real, LANES};
use bytemuck::{Pod, Zeroable};
use wide::{f32x16, f32x8};

type Lanes = [f32; LANES];

/// One contact point of each of the eight contacts of a batch.
///
/// The anchors are kept as their components in the contact frame (normal `n`, tangent
/// `t = (n.y, -n.x)`), which is all the kernels use: the impulses act along `n` and `t`, so a
/// lever arm is `r x n` for a normal impulse and `r x t = -(r . n)` for a tangent one.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PointLanes {
    /// 1 for a real point, 0 where the manifold has fewer points.
    pub active: Lanes,
    /// Anchor on A (relative to A's centre of mass, world orientation at the start of the
    /// step) crossed with the normal, `r.x n.y - r.y n.x` (m): the lever arm of a normal
    /// impulse about A's centre.
    pub cross_a: Lanes,
    /// Anchor on A dotted with the normal (m): minus the lever arm of a tangent impulse.
    pub dot_a: Lanes,
    /// Anchor on B crossed with the normal (m), as for A.
    pub cross_b: Lanes,
    /// Anchor on B dotted with the normal (m), as for A.
    pub dot_b: Lanes,
    /// Packed as the narrowphase separation; [`prepare`](simd::prepare) turns it into the
    /// separation minus the anchors' offset, so that the current separation is this plus the
    /// relative motion of the anchors.
    pub base_separation: Lanes,
    /// Accumulated impulses (warm-start values on entry, results on exit).
    pub normal_impulse: Lanes,
    /// Accumulated friction impulse along the tangent `(normal_y, -normal_x)` (N·s), likewise.
    pub tangent_impulse: Lanes,
    /// Normal impulse of this step's bounce (see [`ImpactParams`]), 0 if none.
    pub impact_impulse: Lanes,
}

impl PointLanes {
    /// Zeroes every field of lane `l`: a point that is absent, or a lane with no contact.
    /// (`#[inline]` here and on the other per-lane helpers: the engine calls them per contact
    /// from another crate, which could not inline them otherwise.)
    #[inline]
    pub fn clear(&mut self, l: usize) {
        let fields = [
            &mut self.active,
            &mut self.cross_a,
            &mut self.dot_a,
            &mut self.cross_b,
            &mut self.dot_b,
            &mut self.base_separation,
            &mut self.normal_impulse,
            &mut self.tangent_impulse,
            &mut self.impact_impulse,
        ];
        for field in fields {
            field[l] = 0.0;
        }
    }

    /// Sets lane `l`'s anchors from `ra` and `rb`, relative to the centres of mass of A and B,
    /// and the unit normal `n`.
    pub fn set_anchors(&mut self, l: usize, ra: [f32; 2], rb: [f32; 2], n: [f32; 2]) {
        self.cross_a[l] = ra[0] * n[1] - ra[1] * n[0];
        self.dot_a[l] = ra[0] * n[0] + ra[1] * n[1];
        self.cross_b[l] = rb[0] * n[1] - rb[1] * n[0];
        self.dot_b[l] = rb[0] * n[0] + rb[1] * n[1];
    }
}

/// One contact point as the engine's manifold keeps it, from its anchor on A on: eight floats,
/// one vector row, which [`simd::load_points`] reads per lane and turns into the lanes of a
/// [`PointLanes`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct PointRow {
    /// Anchor on A, relative to A's origin (world orientation).
    pub anchor_a: [f32; 2],
    /// Anchor on B, relative to B's origin (world orientation).
    pub anchor_b: [f32; 2],
    /// Distance between the surfaces along the normal, negative when overlapping.
    pub separation: f32,
    /// The point's feature key: not read, it is only the row's sixth float.
    pub id: u32,
    /// Accumulated normal impulse of the last step (N·s), the warm start.
    pub normal_impulse: f32,
    /// Accumulated friction impulse of the last step (N·s), the warm start.
    pub tangent_impulse: f32,
}

impl PointRow {
    /// A row of zeros, for a lane with no contact.
    pub const ZERO: PointRow = PointRow {
        anchor_a: [0.0; 2],
        anchor_b: [0.0; 2],
        separation: 0.0,
        id: 0,
        normal_impulse: 0.0,
        tangent_impulse: 0.0,
    };
}

impl PointRows<'_> {
    /// Eight lanes with no contact: rows of zeros, no points, no offsets.
    pub const NONE: PointRows<'static> = PointRows {
        rows: [[&PointRow::ZERO; LANES]; 2],
        count: [0.0; LANES],
        offset_a: [[0.0; LANES]; 2],
        offset_b: [[0.0; LANES]; 2],
    };

    /// Makes lane `l` a lane with no contact, as in [`PointRows::NONE`].
    #[inline]
    pub fn clear(&mut self, l: usize) {
        self.rows[0][l] = &PointRow::ZERO;
        self.rows[1][l] = &PointRow::ZERO;
        self.count[l] = 0.0;
        for offset in [&mut self.offset_a, &mut self.offset_b] {
            offset[0][l] = 0.0;
            offset[1][l] = 0.0;
        }
    }
}

/// What [`simd::load_points`] reads besides the batch: per lane, its manifold's rows and
/// point count, and where its bodies' centres of mass are.
#[derive(Clone, Copy, Debug)]
pub struct PointRows<'a> {
    /// Per point, per lane: the point's row. A point the manifold lacks may be any row (its
    /// lanes are zeroed), [`PointRow::ZERO`] for a lane with no contact.
    pub rows: [[&'a PointRow; LANES]; 2],
    /// Per lane: how many points its manifold has (0, 1 or 2).
    pub count: Lanes,
    /// Per lane: A's centre of mass relative to its origin, x and y (world orientation).
    pub offset_a: [Lanes; 2],
    /// Per lane: B's centre of mass relative to its origin, as for A.
    pub offset_b: [Lanes; 2],
}

/// What [`simd::load_points`] reads of each lane's bodies, beside the batch: packing keeps
/// these while the lanes' bodies stand.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaneBodies {
    /// Per lane: how much more gravity pulls B than A (their gravity scales, 0 for a body
    /// that cannot move); `ContactBatch::gravity_normal` is this times gravity along the
    /// normal.
    pub fall: Lanes,
    /// Per lane: the overlap beyond which its contact is deep.
    pub deep_overlap: Lanes,
}

/// What [`simd::load_points`] finds while it loads a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// The deep lanes, bit `l` for lane `l`: those whose largest overlap is beyond their
    /// `deep_overlap`, or NaN.
    pub deep: u32,
    /// Whether no lane has a second point (then a faster kernel solves the batch).
    pub one_point: bool,
}

/// Sets the lanes' `gravity_normal`: their `fall` times `gravity` along their normal. Here,
/// one vector operation a batch, rather than a lane's while it is packed.
#[inline(always)]
fn gravity_lanes<R: Real>(c: &mut impl Contacts<R>, fall: R, gravity: [f32; 2]) {
    let (nx, ny) = (c.get(|b| &b.normal_x), c.get(|b| &b.normal_y));
    let along = R::splat(gravity[0]) * nx + R::splat(gravity[1]) * ny;
    c.set(|b| &mut b.gravity_normal, fall * along);
}

/// One point's row, as lanes of `R`: its columns of [`PointRow`].
struct PointColumns<R> {
    anchor_a: [R; 2],
    anchor_b: [R; 2],
    separation: R,
    normal_impulse: R,
    tangent_impulse: R,
}

impl PointColumns<f32> {
    #[inline(always)]
    fn of_row(r: &PointRow) -> Self {
        PointColumns {
            anchor_a: r.anchor_a,
            anchor_b: r.anchor_b,
            separation: r.separation,
            normal_impulse: r.normal_impulse,
            tangent_impulse: r.tangent_impulse,
        }
    }
}

/// Loads point `j` of the lanes from its columns `p`: the anchors relative to the centres of
/// mass (`p`'s anchors less `offset_a` and `offset_b`) in the contact frame of the batch's
/// normals, the separation and the warm-start impulses; all zero where the manifold has no
/// such point (`count` not above `j`). Returns the lanes' overlap at the point, zero where it
/// is absent.
#[inline(always)]
fn load_point_lanes<R: Real>(
    c: &mut impl Contacts<R>,
    j: usize,
    p: &PointColumns<R>,
    count: R,
    offset_a: [R; 2],
    offset_b: [R; 2],
) -> R {
    let zero = R::splat(0.0);
    let active = count.gt(R::splat(j as f32));
    let (nx, ny) = (c.get(|b| &b.normal_x), c.get(|b| &b.normal_y));
    let ra = [p.anchor_a[0] - offset_a[0], p.anchor_a[1] - offset_a[1]];
    let rb = [p.anchor_b[0] - offset_b[0], p.anchor_b[1] - offset_b[1]];
    // As `PointLanes::set_anchors`.
    c.set(
        |b| &mut b.points[j].active,
        R::select(active, R::splat(1.0), zero),
    );
    c.set(
        |b| &mut b.points[j].cross_a,
        R::select(active, ra[0] * ny - ra[1] * nx, zero),
    );
    c.set(
        |b| &mut b.points[j].dot_a,
        R::select(active, ra[0] * nx + ra[1] * ny, zero),
    );
    c.set(
        |b| &mut b.points[j].cross_b,
        R::select(active, rb[0] * ny - rb[1] * nx, zero),
    );
    c.set(
        |b| &mut b.points[j].dot_b,
        R::select(active, rb[0] * nx + rb[1] * ny, zero),
    );
    c.set(
        |b| &mut b.points[j].base_separation,
        R::select(active, p.separation, zero),
    );
    c.set(
        |b| &mut b.points[j].normal_impulse,
        R::select(active, p.normal_impulse, zero),
    );
    c.set(
        |b| &mut b.points[j].tangent_impulse,
        R::select(active, p.tangent_impulse, zero),
    );
    R::select(active, -p.separation, zero)
}

/// Loads point `j` of the lanes as absent in every lane: what [`load_point_lanes`] writes
/// where `count` is not above `j`.
#[inline(always)]
fn absent_point_lanes<R: Real>(c: &mut impl Contacts<R>, j: usize) {
    let zero = R::splat(0.0);
    c.set(|b| &mut b.points[j].active, zero);
    c.set(|b| &mut b.points[j].cross_a, zero);
    c.set(|b| &mut b.points[j].dot_a, zero);
    c.set(|b| &mut b.points[j].cross_b, zero);
    c.set(|b| &mut b.points[j].dot_b, zero);
    c.set(|b| &mut b.points[j].base_separation, zero);
    c.set(|b| &mut b.points[j].normal_impulse, zero);
    c.set(|b| &mut b.points[j].tangent_impulse, zero);
}

/// Whether a lane whose points overlap by `overlaps` is deep: its largest overlap is not
/// within `deep_overlap` (NaN counts as deep).
#[inline(always)]
fn deep_lanes<R: Real>(overlaps: [R; 2], deep_overlap: R) -> R::Mask {
    let overlap = R::max(R::max(R::splat(0.0), overlaps[0]), overlaps[1]);
    // (Its negation, as a mask: where the overlap is within the bound.)
    deep_overlap.ge(overlap)
}

/// Eight contact constraints, structure-of-arrays, one lane each.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ContactBatch {
    /// Solver index of body A, or [`NULL_BODY`] for a static body or a padding lane.
    pub body_a: [u32; LANES],
    /// Solver index of body B, or [`NULL_BODY`] for a static body or a padding lane.
    pub body_b: [u32; LANES],
    /// Where the states of A and B begin in the solver's rows, in the words of
    /// [`States::word`]: what the vector kernels' gathers and scatters address, with one
    /// scaled index per lane rather than an index's shift as well. Set with `body_a` and
    /// `body_b` by [`ContactBatch::set_bodies`].
    pub word_a: [u32; LANES],
    /// See `word_a`.
    pub word_b: [u32; LANES],
    /// Unit normal from A to B, x component.
    pub normal_x: Lanes,
    /// Unit normal from A to B, y component.
    pub normal_y: Lanes,
    /// Friction coefficient of the contact: the two shapes' coefficients, mixed.
    pub friction: Lanes,
    /// Restitution coefficient of the contact: the two shapes' coefficients, mixed.
    pub restitution: Lanes,
    /// Inverse mass of body A (1/kg); 0 for static and kinematic bodies (never written).
    pub inv_mass_a: Lanes,
    /// Inverse rotational inertia of body A (1/(kg·m²)); 0 for static, kinematic and
    /// fixed-rotation bodies.
    pub inv_inertia_a: Lanes,
    /// Inverse mass of body B (1/kg), as for A.
    pub inv_mass_b: Lanes,
    /// Inverse rotational inertia of body B (1/(kg·m²)), as for A.
    pub inv_inertia_b: Lanes,
    /// Soft constraint bias rate (1/s): push-out velocity per metre of overlap. Stiffer (twice
    /// the contact frequency) when either body is static or kinematic.
    pub bias_rate: Lanes,
    /// Soft constraint mass scale, in 0..1. The impulse scale of the soft step is
    /// `1 - mass_scale`, which the two-point solve below uses implicitly.
    pub mass_scale: Lanes,
    /// Cap on the speed at which this contact pushes overlap apart (m/s).
    pub max_push: Lanes,
    /// Gravity's relative acceleration of B away from A along the normal (m/s²): the impact
    /// passes reflect the velocity half a substep on, which keeps a bounce's height exact
    /// under the solver's integration (see [`ImpactParams`]).
    pub gravity_normal: Lanes,
    /// Relative tangent speed (m/s) that friction drives the contact towards: B's anchor moving
    /// along the tangent `(normal_y, -normal_x)` relative to A's. 0 for plain friction, which
    /// stops sliding; a conveyor belt's speed otherwise.
    pub tangent_speed: Lanes,
    /// All ones where the lane writes its body A back, a state (not [`NULL_BODY`]) with a
    /// non-zero inverse mass, else zero. Set by [`ContactBatch::set_bodies`], so that the
    /// kernels do not work it out on every pass.
    pub writes_a: [u32; LANES],
    /// The same for body B.
    pub writes_b: [u32; LANES],
    /// The manifold's two points; `active` tells which are real.
    pub points: [PointLanes; 2],
}

impl ContactBatch {
    /// Sets lane `l`'s solver states `body` (A's, then B's; [`NULL_BODY`] for a static body)
    /// and their inverse masses, with the words and write bits that follow from them.
    #[inline]
    pub fn set_bodies(&mut self, l: usize, body: [u32; 2], inv_mass: [f32; 2]) {
        self.body_a[l] = body[0];
        self.body_b[l] = body[1];
        self.word_a[l] = States::word(body[0]);
        self.word_b[l] = States::word(body[1]);
        self.inv_mass_a[l] = inv_mass[0];
        self.inv_mass_b[l] = inv_mass[1];
        let writes = |body: u32, inv_mass: f32| match body != NULL_BODY && inv_mass > 0.0 {
            true => u32::MAX,
            false => 0,
        };
        self.writes_a[l] = writes(body[0], inv_mass[0]);
        self.writes_b[l] = writes(body[1], inv_mass[1]);
    }

    /// Makes `lane` a padding lane: no bodies, every other field zero.
    #[inline]
    pub fn clear(&mut self, lane: usize) {
        self.set_bodies(lane, [NULL_BODY; 2], [0.0; 2]);
        let fields = [
            &mut self.normal_x,
            &mut self.normal_y,
            &mut self.friction,
            &mut self.restitution,
            &mut self.inv_inertia_a,
            &mut self.inv_inertia_b,
            &mut self.bias_rate,
            &mut self.mass_scale,
            &mut self.max_push,
            &mut self.gravity_normal,
            &mut self.tangent_speed,
        ];
        for field in fields {
            field[lane] = 0.0;
        }
        for p in &mut self.points {
            p.clear(lane);
        }
    }

    /// True if `lane` holds no contact.
    #[inline]
    pub fn is_padding(&self, lane: usize) -> bool {
        self.body_a[lane] == NULL_BODY && self.body_b[lane] == NULL_BODY
    }

    /// True if any lane bounces (restitution above zero): only such batches take part in the
    /// impact passes, in both backends. Every lane is tested, with no early exit: a few vector
    /// instructions rather than a compare and branch per lane.
    #[inline]
    pub fn is_bouncy(&self) -> bool {
        let bounces = |e: &f32| (*e > 0.0) as u32;
        self.restitution
            .iter()
            .map(bounces)
            .fold(0, |any, b| any | b)
            != 0
    }
}

/// The contacts one kernel call works on, field by field as values of its [`Real`]: lane `l` of
/// a batch (the scalar twins), a whole batch ([`Lanes8`]), or two batches of one graph color
/// side by side ([`Lanes16`], see [`pair`]). The kernels name a field by a function from a batch to it.
trait Contacts<R: Real> {
    /// The lanes of `field`.
    fn get(&self, field: impl Fn(&ContactBatch) -> &Lanes) -> R;
    /// Stores `v` into the lanes of `field`.
    fn set(&mut self, field: impl Fn(&mut ContactBatch) -> &mut Lanes, v: R);
}

/// Lane `l` of a batch: one contact.
struct Lane<'a>(&'a mut ContactBatch, usize);

impl Contacts<f32> for Lane<'_> {
    #[inline(always)]
    fn get(&self, field: impl Fn(&ContactBatch) -> &Lanes) -> f32 {
        field(self.0)[self.1]
    }
    #[inline(always)]
    fn set(&mut self, field: impl Fn(&mut ContactBatch) -> &mut Lanes, v: f32) {
        field(self.0)[self.1] = v;
    }
}

impl<V: Lanes8> Contacts<V> for ContactBatch {
    #[inline(always)]
    fn get(&self, field: impl Fn(&ContactBatch) -> &Lanes) -> V {
        V::load(field(self))
    }
    #[inline(always)]
    fn set(&mut self, field: impl Fn(&mut ContactBatch) -> &mut Lanes, v: V) {
        *field(self) = v.store();
    }
}

impl<P: Lanes16> Contacts<P> for [ContactBatch; 2] {
    #[inline(always)]
    fn get(&self, field: impl Fn(&ContactBatch) -> &Lanes) -> P {
        P::load_halves(field(&self[0]), field(&self[1]))
    }
    #[inline(always)]
    fn set(&mut self, field: impl Fn(&mut ContactBatch) -> &mut Lanes, v: P) {
        let [lo, hi] = v.split();
        *field(&mut self[0]) = lo.store();
        *field(&mut self[1]) = hi.store();
    }
}

/// Constants of one solve pass.
#[derive(Clone, Copy, Debug)]
pub struct SolveParams {
    /// 1 / substep length.
    pub inv_h: f32,
    /// True in the solve pass, false in the relax pass (no bias, full stiffness).
    pub use_bias: bool,
}

/// Lane values of one contact's constants.
struct Shared<R> {
    nx: R,
    ny: R,
    ma: R,
    ia: R,
    mb: R,
    ib: R,
}

impl<R: Real> Shared<R> {
    #[inline(always)]
    fn load(c: &impl Contacts<R>) -> Self {
        Shared {
            nx: c.get(|b| &b.normal_x),
            ny: c.get(|b| &b.normal_y),
            ma: c.get(|b| &b.inv_mass_a),
            ia: c.get(|b| &b.inv_inertia_a),
            mb: c.get(|b| &b.inv_mass_b),
            ib: c.get(|b| &b.inv_inertia_b),
        }
    }
}

/// One point's anchors in the contact frame (see [`PointLanes`]).
struct Arms<R> {
    cross_a: R,
    dot_a: R,
    cross_b: R,
    dot_b: R,
}

impl<R: Real> Arms<R> {
    #[inline(always)]
    fn load(c: &impl Contacts<R>, j: usize) -> Self {
        Arms {
            cross_a: c.get(|b| &b.points[j].cross_a),
            dot_a: c.get(|b| &b.points[j].dot_a),
            cross_b: c.get(|b| &b.points[j].cross_b),
            dot_b: c.get(|b| &b.points[j].dot_b),
        }
    }
}

/// A body's linear velocity along the normal and the tangent of the contacts. The kernels
/// work in this frame and add the change back to the world velocity at the end (see
/// [`Frame::commit`]).
#[derive(Clone, Copy)]
struct Frame<R> {
    n: R,
    t: R,
}

impl<R: Real> Frame<R> {
    #[inline(always)]
    fn of(b: &BodyLanes<R>, k: &Shared<R>) -> Self {
        Frame {
            n: along_normal(b, k),
            t: along_tangent(b, k),
        }
    }

    /// Adds the change from `start` to `self` to the world velocity of `b`: a body that got
    /// no impulse keeps its velocity bit for bit.
    #[inline(always)]
    fn commit(self, start: Frame<R>, b: &mut BodyLanes<R>, k: &Shared<R>) {
        commit(self.n - start.n, self.t - start.t, b, k);
    }
}

/// A body's linear velocity along the normal of the contacts.
#[inline(always)]
fn along_normal<R: Real>(b: &BodyLanes<R>, k: &Shared<R>) -> R {
    b.vx * k.nx + b.vy * k.ny
}

/// A body's linear velocity along the tangent `(normal_y, -normal_x)` of the contacts.
#[inline(always)]
fn along_tangent<R: Real>(b: &BodyLanes<R>, k: &Shared<R>) -> R {
    b.vx * k.ny - b.vy * k.nx
}

/// Adds the changes `dn` and `dt` of a body's linear velocity along the normal and the
/// tangent to its world velocity.
#[inline(always)]
fn commit<R: Real>(dn: R, dt: R, b: &mut BodyLanes<R>, k: &Shared<R>) {
    b.vx = b.vx + (dn * k.nx + dt * k.ny);
    b.vy = b.vy + (dn * k.ny - dt * k.nx);
}

/// Normal velocity of B's anchor minus that of A's, the centres moving at `na` and `nb` along
/// the normal.
#[inline(always)]
fn normal_velocity<R: Real>(
    (na, nb): (R, R),
    a: &BodyLanes<R>,
    b: &BodyLanes<R>,
    r: &Arms<R>,
) -> R {
    (nb + b.w * r.cross_b) - (na + a.w * r.cross_a)
}

/// Tangent velocity of B's anchor minus that of A's, the centres moving at `ta` and `tb`
/// along the tangent.
#[inline(always)]
fn tangent_velocity<R: Real>(
    (ta, tb): (R, R),
    a: &BodyLanes<R>,
    b: &BodyLanes<R>,
    r: &Arms<R>,
) -> R {
    (tb - b.w * r.dot_b) - (ta - a.w * r.dot_a)
}

/// A point's diagonal entry of the effective mass matrix along the normal (1/kg), for an
/// inactive point too (where it is that of an anchor at the centres).
///
/// The kernels work out the effective masses again in every pass from the arms and masses
/// rather than keep them in the batch: a large pile's batches outgrow the core's cache, each
/// pass streams them from memory, and the arithmetic costs less than the bytes it would be
/// read from.
#[inline(always)]
fn normal_k<R: Real>(k: &Shared<R>, r: &Arms<R>) -> R {
    k.ma + k.mb + k.ia * r.cross_a * r.cross_a + k.ib * r.cross_b * r.cross_b
}

/// A point's diagonal entry of the effective mass matrix along the tangent (1/kg).
#[inline(always)]
fn tangent_k<R: Real>(k: &Shared<R>, r: &Arms<R>) -> R {
    k.ma + k.mb + k.ia * r.dot_a * r.dot_a + k.ib * r.dot_b * r.dot_b
}

/// The effective mass (kg) of a point along a row whose diagonal entry is `kk` (1/kg): its
/// inverse, or 0 for an inactive point (`active` not above 0) and a row that no body moves
/// along.
#[inline(always)]
fn effective_mass<R: Real>(kk: R, active: R) -> R {
    let zero = R::splat(0.0);
    R::select(active.gt(zero) & kk.gt(zero), R::splat(1.0) / kk, zero)
}

/// The off-diagonal entry of two points' effective mass matrix along the normal (1/kg).
#[inline(always)]
fn normal_k12<R: Real>(k: &Shared<R>, r1: &Arms<R>, r2: &Arms<R>) -> R {
    k.ma + k.mb + k.ia * r1.cross_a * r2.cross_a + k.ib * r1.cross_b * r2.cross_b
}

/// The two points' effective mass matrix along the normal as the solve uses it: its diagonal,
/// its off-diagonal entry, zero where point 1 is absent (`act2` clear), and where solving the
/// points together is well conditioned (point 1 present and the points not nearly coincident),
/// its determinant, else 1.
#[inline(always)]
fn normal_matrix<R: Real>(
    k: &Shared<R>,
    [r1, r2]: &[Arms<R>; 2],
    act2: R::Mask,
) -> ([R; 3], R::Mask, R) {
    let (k11, k22) = (normal_k(k, r1), normal_k(k, r2));
    let k12 = R::select(act2, normal_k12(k, r1, r2), R::splat(0.0));
    let det = k11 * k22 - k12 * k12;
    // Both points solved together unless they nearly coincide (ill-conditioned matrix). A
    // determinant kept is so above 0.
    let well = act2 & (k11 * k11).lt(R::splat(1000.0) * det);
    ([k11, k22, k12], well, R::select(well, det, R::splat(1.0)))
}

/// The base separations, fixed through the step as the anchors are, and no bounce yet.
#[inline(always)]
fn prepare_lanes<R: Real>(c: &mut impl Contacts<R>) {
    let zero = R::splat(0.0);
    let arms = [Arms::<R>::load(c, 0), Arms::<R>::load(c, 1)];
    for (j, r) in arms.iter().enumerate() {
        // Current separation = base + n . (relative motion of the anchors).
        let separation = c.get(|b| &b.points[j].base_separation);
        let base = separation - (r.dot_b - r.dot_a);
        c.set(|b| &mut b.points[j].base_separation, base);

        c.set(|b| &mut b.points[j].impact_impulse, zero);
    }
}

/// Applies last step's impulses of the first `points` points: 2, or 1 when
/// every contact of the batch has one point (see [`solve_one_lanes`]).
#[inline(always)]
fn warm_start_lanes<R: Real>(
    c: &impl Contacts<R>,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    points: usize,
) {
    let p = warm_start_impulse(c, points);
    warm_start_a(c, a, &p);
    warm_start_b(c, b, &p);
}

/// The total of last step's impulses of a contact's points, in world axes, and its torques
/// about the centres of A and B.
struct WarmImpulse<R> {
    px: R,
    py: R,
    torque_a: R,
    torque_b: R,
}

/// The impulse that [`warm_start_lanes`] applies: of the first `points` points.
#[inline(always)]
fn warm_start_impulse<R: Real>(c: &impl Contacts<R>, points: usize) -> WarmImpulse<R> {
    let (nx, ny) = (c.get(|b| &b.normal_x), c.get(|b| &b.normal_y));
    let zero = R::splat(0.0);
    // Total impulse along n and t, and its torque about each centre (r x n and r x t = -r.n
    // per unit impulse).
    let (mut pn, mut pt, mut torque_a, mut torque_b) = (zero, zero, zero, zero);
    for j in 0..points {
        let r = Arms::<R>::load(c, j);
        let ni = c.get(|b| &b.points[j].normal_impulse);
        let ti = c.get(|b| &b.points[j].tangent_impulse);
        pn = pn + ni;
        pt = pt + ti;
        torque_a = torque_a + (r.cross_a * ni - r.dot_a * ti);
        torque_b = torque_b + (r.cross_b * ni - r.dot_b * ti);
    }
    // (An absent point adds +0 to sums that start at +0: nothing.)
    WarmImpulse {
        px: pn * nx + pt * ny,
        py: pn * ny - pt * nx,
        torque_a,
        torque_b,
    }
}

/// Applies the warm start's impulse `p` to body A (against it).
#[inline(always)]
fn warm_start_a<R: Real>(c: &impl Contacts<R>, a: &mut BodyLanes<R>, p: &WarmImpulse<R>) {
    let (ma, ia) = (c.get(|b| &b.inv_mass_a), c.get(|b| &b.inv_inertia_a));
    a.vx = a.vx - ma * p.px;
    a.vy = a.vy - ma * p.py;
    a.w = a.w - ia * p.torque_a;
}

/// Applies the warm start's impulse `p` to body B.
#[inline(always)]
fn warm_start_b<R: Real>(c: &impl Contacts<R>, b: &mut BodyLanes<R>, p: &WarmImpulse<R>) {
    let (mb, ib) = (c.get(|b| &b.inv_mass_b), c.get(|b| &b.inv_inertia_b));
    b.vx = b.vx + mb * p.px;
    b.vy = b.vy + mb * p.py;
    b.w = b.w + ib * p.torque_b;
}

/// The constants of one solve pass for the lanes of a kernel call.
struct Pass<R> {
    /// Rate (1/s) at which a gap may close: 1 / substep length, or, in the relax pass of a
    /// bouncy contact, infinity (see `Pass::load`).
    gap_rate: R,
    /// Soft bias rate and mass scale; 0 and 1 in the relax pass.
    soft_bias: R,
    soft_mass: R,
    max_push: R,
}

impl<R: Real> Pass<R> {
    #[inline(always)]
    fn load(c: &impl Contacts<R>, s: &SolveParams) -> Self {
        let inv_h = R::splat(s.inv_h);
        let (soft_bias, soft_mass, gap_rate) = if s.use_bias {
            (c.get(|b| &b.bias_rate), c.get(|b| &b.mass_scale), inv_h)
        } else {
            // The relax pass follows the substep's motion, so its look one substep ahead
            // reaches past the step's end after the last substep. A bouncy contact closing
            // there is the next step's impact, which would find it already slowed and bounce
            // it the less: the relax leaves its gap alone (an infinite rate: no impulse).
            let bouncy = c.get(|b| &b.restitution).gt(R::splat(0.0));
            let gap_rate = R::select(bouncy, R::splat(f32::INFINITY), inv_h);
            (R::splat(0.0), R::splat(1.0), gap_rate)
        };
        Pass {
            gap_rate,
            soft_bias,
            soft_mass,
            max_push: c.get(|b| &b.max_push),
        }
    }
}

/// A point's friction impulse, inside the Coulomb cone of its normal impulse.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn friction_point<R: Real>(
    c: &mut impl Contacts<R>,
    j: usize,
    r: &Arms<R>,
    friction: R,
    k: &Shared<R>,
    (ta, tb): (&mut R, &mut R),
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
) {
    let vt = tangent_velocity((*ta, *tb), a, b, r) - c.get(|b| &b.tangent_speed);
    let old = c.get(|b| &b.points[j].tangent_impulse);
    // Coulomb cone: |friction impulse| <= mu * normal impulse.
    let limit = friction * c.get(|b| &b.points[j].normal_impulse);
    let mass = effective_mass(tangent_k(k, r), c.get(|b| &b.points[j].active));
    let new = (old - mass * vt).max(-limit).min(limit);
    c.set(|b| &mut b.points[j].tangent_impulse, new);
    push_tangent(new - old, r, k, (ta, tb), a, b);
}

/// Applies a tangent impulse at one point; `ta` and `tb` are the centres' velocities along the
/// tangent.
#[inline(always)]
fn push_tangent<R: Real>(
    applied: R,
    r: &Arms<R>,
    k: &Shared<R>,
    (ta, tb): (&mut R, &mut R),
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
) {
    *ta = *ta - k.ma * applied;
    *tb = *tb + k.mb * applied;
    a.w = a.w + k.ia * (r.dot_a * applied);
    b.w = b.w - k.ib * (r.dot_b * applied);
}

/// [`solve_lanes`] for a batch whose contacts all have one point (circles): the same
/// arithmetic without point 1's loads and its half of the block solve. The packing leaves an
/// absent point all zero, and with finite values and a friction coefficient that is not -0
/// the two-point kernel keeps it so: it computes +0 impulses for it and adds them to the sums.
/// The `+ zero` terms below repeat the additions whose result can show (x + 0 turns -0 into
/// +0), including the torques, whose sum feeds the friction's tangent velocity; the frame
/// velocities are committed as differences, which lose the sign of a zero, and `a.w` ends
/// with one. A contact so gets the same bits from either kernel, and the packing
/// may put it in either kind of batch.
#[inline(always)]
fn solve_one_lanes<R: Real>(
    c: &mut impl Contacts<R>,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    s: &SolveParams,
) {
    let (k, pass) = (Shared::load(c), Pass::load(c, s));
    let zero = R::splat(0.0);
    let r = Arms::<R>::load(c, 0);
    let moved = (b.dpx - a.dpx) * k.nx + (b.dpy - a.dpy) * k.ny;
    let separation = point_separation(c, 0, &r, a, b, moved);
    let (na0, nb0) = (along_normal(a, &k), along_normal(b, &k));
    let (bias, scale) = point_bias(separation, &pass);
    let err = normal_velocity((na0, nb0), a, b, &r) + bias;
    let old = c.get(|b| &b.points[0].normal_impulse);
    // The two-point kernel's cases for a lone point: pushing, not pushing, or (only for
    // non-finite values) one sequential pass.
    let k11 = normal_k(&k, &r);
    let inv_k = effective_mass(k11, c.get(|b| &b.points[0].active));
    let p1 = scale * (err - (k11 * old + zero));
    let y1 = -p1 * inv_k;
    let s1 = (scale * (old - err * inv_k)).max(zero);
    let new = R::select(y1.ge(zero), y1, R::select(p1.ge(zero), zero, s1));
    let new = R::select(inv_k.gt(zero), new, old);
    let applied = new - old;
    c.set(|b| &mut b.points[0].normal_impulse, new);
    let c = reread(c);
    let (k, r) = (Shared::load(c), Arms::<R>::load(c, 0));
    // (As in `solve_lanes`: the changes along the normal final, the tangent ones from here.)
    let dn_a = (na0 - k.ma * applied) - na0;
    let dn_b = (nb0 + k.mb * applied) - nb0;
    a.w = a.w - k.ia * (r.cross_a * applied + zero);
    b.w = b.w + k.ib * (r.cross_b * applied + zero);

    let (ta0, tb0) = (along_tangent(a, &k), along_tangent(b, &k));
    let (mut ta, mut tb) = (ta0, tb0);
    // (Read again for the friction, as in `solve_lanes`.)
    let c = reread_crowded::<R, _>(c);
    let (k, r) = (Shared::load(c), Arms::<R>::load(c, 0));
    let friction = c.get(|b| &b.friction);
    friction_point(c, 0, &r, friction, &k, (&mut ta, &mut tb), a, b);
    // Point 1's friction impulse, +0 (its cone is friction * 0 wide).
    a.w = a.w + zero;
    commit(dn_a, ta - ta0, a, &k);
    commit(dn_b, tb - tb0, b, &k);
}

/// The bodies' velocities in the contact frame, and how far their centres moved apart along
/// the normal over the substeps so far.
#[inline(always)]
fn frames<R: Real>(a: &BodyLanes<R>, b: &BodyLanes<R>, k: &Shared<R>) -> (Frame<R>, Frame<R>, R) {
    let moved = (b.dpx - a.dpx) * k.nx + (b.dpy - a.dpy) * k.ny;
    (Frame::of(a, k), Frame::of(b, k), moved)
}

/// [`reread`] where the lanes are [`Real::CROWDED`], else `c` itself: where registers are
/// plenty, the values read once stay in them.
#[inline(always)]
fn reread_crowded<R: Real, C>(c: &mut C) -> &mut C {
    match R::CROWDED {
        true => reread(c),
        false => c,
    }
}

/// One iteration of normal and friction impulses.
#[inline(always)]
fn solve_lanes<R: Real>(
    c: &mut impl Contacts<R>,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    s: &SolveParams,
) {
    let (k, pass) = (&Shared::load(c), &Pass::load(c, s));
    let zero = R::splat(0.0);
    let one = R::splat(1.0);

    // The separations first: they are all that the bodies' motion is read for.
    let arms = [Arms::<R>::load(c, 0), Arms::<R>::load(c, 1)];
    let moved = (b.dpx - a.dpx) * k.nx + (b.dpy - a.dpy) * k.ny;
    let separation = [
        point_separation(c, 0, &arms[0], a, b, moved),
        point_separation(c, 1, &arms[1], a, b, moved),
    ];
    let (na0, nb0) = (along_normal(a, k), along_normal(b, k));
    // (The arms read again for the velocities: kept from the separations, some were copied
    // to the stack and back.)
    let c = reread_crowded::<R, _>(c);
    let arms = [Arms::<R>::load(c, 0), Arms::<R>::load(c, 1)];

    // Per point: velocity error (normal velocity plus bias), soft mass scale, old impulse.
    let mut err = [zero; 2];
    let mut scale = [one; 2];
    let mut old = [zero; 2];
    for (j, r) in arms.iter().enumerate() {
        (err[j], scale[j]) = point_bias(separation[j], pass);
        err[j] = normal_velocity((na0, nb0), a, b, r) + err[j];
        old[j] = c.get(|b| &b.points[j].normal_impulse);
    }
    // Solve both points at once (a 2x2 complementarity problem): new impulses x >= 0 with
    // w = K x + p >= 0 and x.w = 0, where K is the effective mass matrix and p = scale (err -
    // K old). This is the soft step's update row by row (row i divided by mass scale i keeps
    // the signs of w): for one point it is x = ms (old - err / k) exactly, since its impulse
    // scale is 1 - ms. Solving the pair together keeps tall stacks from the lean that
    // point-by-point Gauss-Seidel builds up.
    let active2 = c.get(|b| &b.points[1].active);
    let act2 = active2.gt(zero);
    let no2 = zero.ge(active2);
    let ([k11, k22, k12], well, det) = normal_matrix(&Shared::load(c), &arms, act2);
    let inv_k11 = effective_mass(k11, c.get(|b| &b.points[0].active));
    let inv_k22 = effective_mass(k22, active2);
    let p1 = scale[0] * (err[0] - (k11 * old[0] + k12 * old[1]));
    let p2 = scale[1] * (err[1] - (k12 * old[0] + k22 * old[1]));
    // Each case below, where it holds, gives the new impulses; a lane takes the first that
    // holds, in this order. Both pushing, unless the points nearly coincide (ill-conditioned
    // matrix: no determinant). (Divided, not multiplied by 1 / det: for bodies near the 1e20
    // kg limit det is below f32's smallest normal number and its reciprocal overflows.)
    let x1 = (k12 * p2 - k22 * p1) / det;
    let x2 = (k12 * p1 - k11 * p2) / det;
    let both = well & x1.ge(zero) & x2.ge(zero);
    // Only point 1 pushing.
    let y1 = -p1 * inv_k11;
    let only1 = y1.ge(zero) & ((k12 * y1 + p2).ge(zero) | no2);
    // Only point 2 pushing.
    let z2 = -p2 * inv_k22;
    let only2 = act2 & z2.ge(zero) & (k12 * z2 + p1).ge(zero);
    // Neither pushing.
    let neither = p1.ge(zero) & (p2.ge(zero) | no2);
    // (The old impulses read again where they are used below: kept from the start of the
    // block solve, they were copied to the stack and back.)
    let c = reread_crowded::<R, _>(c);
    let old = [
        c.get(|b| &b.points[0].normal_impulse),
        c.get(|b| &b.points[1].normal_impulse),
    ];
    // The cases from the last to the first, so that each is done with when the next is
    // computed.
    let mut new = [zero; 2];
    new = [R::select(only2, zero, new[0]), R::select(only2, z2, new[1])];
    new = [R::select(only1, y1, new[0]), R::select(only1, zero, new[1])];
    new = [R::select(both, x1, new[0]), R::select(both, x2, new[1])];
    // No case fits (nearly coincident points): one sequential pass instead. Rare, so it is
    // computed only when some lane needs it.
    let fits = both | only1 | only2 | neither;
    if !R::all(fits) {
        let s1 = (scale[0] * (old[0] - err[0] * inv_k11)).max(zero);
        let err2 = err[1] + k12 * (s1 - old[0]);
        let s2 = R::select(act2, (scale[1] * (old[1] - err2 * inv_k22)).max(zero), zero);
        new = [R::select(fits, new[0], s1), R::select(fits, new[1], s2)];
    }
    // Zero for an inactive point 1, or a contact between two bodies that cannot move.
    let usable = inv_k11.gt(zero);
    let new = [
        R::select(usable, new[0], old[0]),
        R::select(usable, new[1], old[1]),
    ];
    let mut applied = [zero; 2];
    for j in 0..2 {
        applied[j] = new[j] - old[j];
        c.set(|b| &mut b.points[j].normal_impulse, new[j]);
    }
    let total = applied[0] + applied[1];
    let c = reread(c);
    let (k, arms) = (
        &Shared::load(c),
        [Arms::<R>::load(c, 0), Arms::<R>::load(c, 1)],
    );
    let [r1, r2] = &arms;
    // The changes of the centres' velocities along the normal are final, and only friction
    // changes them along the tangent, from here on: the velocities along the tangent are
    // taken only now, so that they are not kept through the block solve.
    let dn_a = (na0 - k.ma * total) - na0;
    let dn_b = (nb0 + k.mb * total) - nb0;
    a.w = a.w - k.ia * (r1.cross_a * applied[0] + r2.cross_a * applied[1]);
    b.w = b.w + k.ib * (r1.cross_b * applied[0] + r2.cross_b * applied[1]);

    let (ta0, tb0) = (along_tangent(a, k), along_tangent(b, k));
    let (mut ta, mut tb) = (ta0, tb0);
    // (The constants and arms read again for the friction: kept from the normal impulses,
    // some were copied to the stack and back.)
    let c = reread_crowded::<R, _>(c);
    let (k, arms) = (
        &Shared::load(c),
        [Arms::<R>::load(c, 0), Arms::<R>::load(c, 1)],
    );
    let friction = c.get(|b| &b.friction);
    for (j, r) in arms.iter().enumerate() {
        friction_point(c, j, r, friction, k, (&mut ta, &mut tb), a, b);
    }
    commit(dn_a, ta - ta0, a, k);
    commit(dn_b, tb - tb0, b, k);
}

/// A point's current separation: the base one (see [`PointLanes`]) plus the motion of its
/// anchors along the normal, the bodies' centres having moved apart by `moved`.
#[inline(always)]
fn point_separation<R: Real>(
    c: &impl Contacts<R>,
    j: usize,
    r: &Arms<R>,
    a: &BodyLanes<R>,
    b: &BodyLanes<R>,
    moved: R,
) -> R {
    // The anchors turned with their bodies: n . (q r) = cos (r . n) + sin (r x n).
    let turned_a = a.dqc * r.dot_a + a.dqs * r.cross_a;
    let turned_b = b.dqc * r.dot_b + b.dqs * r.cross_b;
    c.get(|b| &b.points[j].base_separation) + (moved + (turned_b - turned_a))
}

/// A point's velocity bias and soft mass scale at `separation`.
#[inline(always)]
fn point_bias<R: Real>(separation: R, pass: &Pass<R>) -> (R, R) {
    let zero = R::splat(0.0);
    let one = R::splat(1.0);
    // A gap (speculative contact) may close exactly within this substep. Overlap is pushed
    // out softly from the first millimetre, no faster than the cap. (Overlap within a slop
    // held rigidly made a resting pyramid a rigid system that a few Gauss-Seidel passes
    // cannot converge: its upper rows hopped and walked sideways. Left alone softly, it
    // became free sinking, a slop per contact: a column of twenty boxes sank 10 cm.)
    let speculative = separation.gt(zero);
    let push = (pass.soft_bias * separation).max(-pass.max_push);
    let bias = R::select(speculative, separation * pass.gap_rate, push);
    let scale = R::select(speculative, one, pass.soft_mass);
    (bias, scale)
}

/// Constants of the impact passes.
#[derive(Clone, Copy, Debug)]
pub struct ImpactParams {
    /// Step length (s): a gap that the approach closes within it is hit this step.
    pub dt: f32,
    /// Substep length (s). Bodies move by symplectic Euler substeps, under which a body in
    /// free fall keeps `v^2 / 2 + g y - g h v / 2` exactly: a bounce that reflects the normal
    /// velocity half a substep of gravity on, `vn + a h / 2`, keeps it too, so a ball of
    /// restitution 1 returns to the height it fell from.
    pub h: f32,
    /// Distance (m) by which a gap may miss closing within the step and still count as hit,
    /// so that a body arriving exactly at the step's end bounces.
    pub margin: f32,
    /// Approach speed (m/s) under which a contact does not bounce.
    pub threshold: f32,
    /// Closing speed (m/s) that the step's gravity can add to an approach, `|g| dt`: a gap
    /// that only gravity closes within the step is hit too, instead of being caught by the
    /// soft solve and losing its bounce.
    pub gravity_reach: f32,
}

/// One impact pass over a contact: if a point is touching or closes its gap within the step,
/// and approaches faster than the threshold, the contact bounces. Its points get the impulses
/// `(1 + e) x`, where `x >= 0` are the impulses that stop the approach of all its hit points
/// together (the compression of a perfectly inelastic collision, a 2x2 complementarity
/// problem), then Coulomb friction within `mu` times those impulses.
///
/// Applying restitution to the compression impulse (Poisson's law) keeps energy exact for
/// e = 1 and dissipates it for e < 1, for two points as for one: with `x` the compression,
/// kinetic energy after is `E - (1 - e^2) x.K x / 2` (before friction, which only removes
/// energy). Repeated over the colors, the passes carry an impact through touching bodies
/// pair by pair, as the textbook's sequential impulses do: Newton's cradle passes the
/// striker's speed to the last ball.
#[inline(always)]
fn impact_lanes<R: Real>(
    c: &mut impl Contacts<R>,
    a: &mut BodyLanes<R>,
    b: &mut BodyLanes<R>,
    p: &ImpactParams,
) {
    let k = Shared::<R>::load(c);
    let zero = R::splat(0.0);
    let one = R::splat(1.0);
    let e = c.get(|b| &b.restitution);
    let (va0, vb0, moved) = frames(a, b, &k);
    let (mut va, mut vb) = (va0, vb0);
    let arms = [Arms::<R>::load(c, 0), Arms::<R>::load(c, 1)];

    // Per point: normal velocity, and 1 where the point is hit this step, else 0.
    let (dt, reach, margin) = (
        R::splat(p.dt),
        R::splat(p.gravity_reach),
        R::splat(p.margin),
    );
    // (A loop, not a closure: see `batches`.)
    let mut points = [(zero, zero, zero); 2];
    for (j, r) in arms.iter().enumerate() {
        let turned_a = a.dqc * r.dot_a + a.dqs * r.cross_a;
        let turned_b = b.dqc * r.dot_b + b.dqs * r.cross_b;
        let base = c.get(|b| &b.points[j].base_separation);
        let separation = base + (moved + (turned_b - turned_a));
        let vn = normal_velocity((va.n, vb.n), a, b, r);
        let hit = c.get(|b| &b.points[j].active).gt(zero)
            & vn.lt(zero)
            & (separation + (vn - reach) * dt).lt(margin);
        points[j] = (vn, R::select(hit, one, zero), separation.max(zero));
    }
    let [(vn1, hit1, gap1), (vn2, hit2, gap2)] = points;
    let fast = R::splat(-p.threshold);
    let bounce = e.gt(zero) & ((hit1.gt(zero) & vn1.lt(fast)) | (hit2.gt(zero) & vn2.lt(fast)));
    // The velocities to reflect, half a substep on.
    let half_step = R::splat(0.5 * p.h) * c.get(|b| &b.gravity_normal);
    let (vn1, vn2) = (vn1 + half_step, vn2 + half_step);
    // (A point that gravity's half substep turns away from its approach needs no impulse.)
    let (is1, is2) = (hit1.gt(zero) & vn1.lt(zero), hit2.gt(zero) & vn2.lt(zero));
    let (hit1, hit2) = (R::select(is1, one, zero), R::select(is2, one, zero));

    let x = compression(c, &k, &arms, (vn1, vn2), (hit1, hit2));
    // The approach and gap of the first point to touch stand for the contact's.
    let first2 = is2 & (zero.ge(hit1) | gap2.lt(gap1));
    let (vn, gap) = (R::select(first2, vn2, vn1), R::select(first2, gap2, gap1));
    let restitute = R::select(
        bounce,
        one + rebound(c.get(|b| &b.gravity_normal), e, vn, gap),
        zero,
    );
    let impulse = [restitute * x[0], restitute * x[1]];
    let [r1, r2] = &arms;

    for (j, &x) in impulse.iter().enumerate() {
        let sum = c.get(|b| &b.points[j].impact_impulse) + x;
        c.set(|b| &mut b.points[j].impact_impulse, sum);
    }
    let total = impulse[0] + impulse[1];
    va.n = va.n - k.ma * total;
    vb.n = vb.n + k.mb * total;
    a.w = a.w - k.ia * (r1.cross_a * impulse[0] + r2.cross_a * impulse[1]);
    b.w = b.w + k.ib * (r1.cross_b * impulse[0] + r2.cross_b * impulse[1]);

    let friction = c.get(|b| &b.friction);
    for (j, r) in arms.iter().enumerate() {
        // Friction that at most stops the sliding of this point (relative to the contact's
        // tangent speed), within the cone.
        let vt = tangent_velocity((va.t, vb.t), a, b, r) - c.get(|b| &b.tangent_speed);
        let limit = friction * impulse[j];
        let mass = effective_mass(tangent_k(&k, r), c.get(|b| &b.points[j].active));
        let applied = (-mass * vt).max(-limit).min(limit);
        push_tangent(applied, r, &k, (&mut va.t, &mut vb.t), a, b);
    }
    va.commit(va0, a, &k);
    vb.commit(vb0, b, &k);
}

/// The compression impulses of an impact, `x >= 0` with `K x + vn >= 0` and
/// `x . (K x + vn) = 0` over the hit points (`hit` is 1 for a hit point, else 0), by the cases
/// of the 2x2 block as in the solve.
#[inline(always)]
fn compression<R: Real>(
    c: &impl Contacts<R>,
    k: &Shared<R>,
    [r1, r2]: &[Arms<R>; 2],
    (vn1, vn2): (R, R),
    (hit1, hit2): (R, R),
) -> [R; 2] {
    let (zero, one) = (R::splat(0.0), R::splat(1.0));
    let (is1, is2) = (hit1.gt(zero), hit2.gt(zero));
    let (no1, no2) = (zero.ge(hit1), zero.ge(hit2));
    let (k11, k22, k12) = (normal_k(k, r1), normal_k(k, r2), normal_k12(k, r1, r2));
    let inv_k11 = effective_mass(k11, c.get(|b| &b.points[0].active));
    let inv_k22 = effective_mass(k22, c.get(|b| &b.points[1].active));
    let det = k11 * k22 - k12 * k12;
    let well = is1 & is2 & (k11 * k11).lt(R::splat(1000.0) * det);
    let det = R::select(well, det, one);
    let x1 = (k12 * vn2 - k22 * vn1) / det;
    let x2 = (k12 * vn1 - k11 * vn2) / det;
    let both = well & x1.ge(zero) & x2.ge(zero);
    let y1 = -vn1 * inv_k11;
    let only1 = is1 & ((k12 * y1 + vn2).ge(zero) | no2);
    let z2 = -vn2 * inv_k22;
    let only2 = is2 & ((k12 * z2 + vn1).ge(zero) | no1);
    // Nearly coincident points fit no case: one after the other.
    let s1 = y1 * hit1;
    let s2 = ((-(vn2 + k12 * s1)) * inv_k22).max(zero) * hit2;
    let pick = |x: R, y: R, z: R, seq: R| {
        R::select(both, x, R::select(only1, y, R::select(only2, z, seq)))
    };
    [pick(x1, y1, zero, s1), pick(x2, zero, z2, s2)]
}

/// The coefficient of restitution for a contact that turns where it is at the step's start,
/// `gap` short of touching and approaching at `vn`, under gravity `gravity_normal` along its
/// normal. Gravity would have sped the approach over that gap and slowed the rebound back over
/// it: the rebound, taken there, is the one with the energy of a bounce at the surface,
/// `e^2 vn^2 + 2 (1 - e^2) a gap` (a < 0 pulls the bodies together), not `e vn`. (Without it
/// a ball of e < 1 rose higher than e^2 times its drop by up to (1 - e^2) vn dt.)
#[inline(always)]
fn rebound<R: Real>(gravity_normal: R, e: R, vn: R, gap: R) -> R {
    let (zero, one) = (R::splat(0.0), R::splat(1.0));
    let e2 = e * e;
    let gained = R::splat(2.0) * ((one - e2) * (gravity_normal * gap));
    let speed2 = vn * vn;
    let e2 = R::select(speed2.gt(zero), e2 + gained / speed2, e2);
    e2.max(zero).sqrt()
}

/// The batch kernels, generic over the vector type: [`simd`] and [`pair`] instantiate them with
/// `wide`'s types, the x86_64 entry points (`crate::x86`) with their own. Safety, for every
/// function: as for [`simd`] (and [`pair`] for the two-batch ones).
pub(crate) mod batches {
    use super::*;

    /// The states whose rows begin at `words` (see [`ContactBatch::word_a`]).
    #[inline(always)]
    pub(crate) unsafe fn gather<V: Lanes8>(states: States, words: &[u32; LANES]) -> BodyLanes<V> {
        let rows = array_of(|l| states.read_word(words[l]));
        BodyLanes::from_states(&rows)
    }

    /// The velocities of the states whose rows begin at `words`, the motion fields zero: what
    /// the warm start reads, from the rows' velocity halves, whose transposes cost half those
    /// of whole states.
    #[inline(always)]
    unsafe fn gather_velocities<V: Lanes8>(states: States, words: &[u32; LANES]) -> BodyLanes<V> {
        let [vx, vy, w] = V::from_fours(array_of(|l| states.read_velocity_word(words[l])));
        BodyLanes::of_velocities(vx, vy, w)
    }

    /// Writes back the lanes set in `writes`, bit `l` for lane `l`.
    #[inline(always)]
    pub(crate) unsafe fn scatter<V: Lanes8>(
        states: States,
        words: &[u32; LANES],
        writes: u32,
        lanes: &BodyLanes<V>,
    ) {
        let rows = V::to_fours(lanes.vx, lanes.vy, lanes.w);
        // Every lane written is the common case: no test per lane then.
        if writes == (1 << LANES) - 1 {
            for (l, row) in rows.into_iter().enumerate() {
                states.write_velocity_row_word(words[l], row);
            }
            return;
        }
        for (l, row) in rows.into_iter().enumerate() {
            if writes & (1 << l) != 0 {
                states.write_velocity_row_word(words[l], row);
            }
        }
    }

    /// The batch's bodies A and B.
    #[inline(always)]
    unsafe fn gather_both<V: Lanes8>(
        c: &ContactBatch,
        states: States,
    ) -> (BodyLanes<V>, BodyLanes<V>) {
        (gather(states, &c.word_a), gather(states, &c.word_b))
    }

    /// Writes back the batch's dynamic bodies.
    #[inline(always)]
    unsafe fn scatter_both<V: Lanes8>(
        c: &ContactBatch,
        states: States,
        (a, b): (BodyLanes<V>, BodyLanes<V>),
    ) {
        scatter(states, &c.word_a, V::sign_mask(&c.writes_a), &a);
        scatter(states, &c.word_b, V::sign_mask(&c.writes_b), &b);
    }

    // (No closures here: a closure the compiler does not inline is a function of its own,
    // compiled without the target features of the x86 entry points.)

    #[inline(always)]
    pub(crate) fn prepare<V: Lanes8>(c: &mut ContactBatch) {
        prepare_lanes::<V>(c);
    }

    /// Loads the batch's points from their rows and prepares it (see [`simd::load_points`]).
    #[inline(always)]
    pub(crate) fn load_points<V: Lanes8>(
        c: &mut ContactBatch,
        p: &PointRows,
        bodies: &LaneBodies,
        gravity: [f32; 2],
    ) -> Loaded {
        let count = V::load(&p.count);
        let offset_a = [V::load(&p.offset_a[0]), V::load(&p.offset_a[1])];
        let offset_b = [V::load(&p.offset_b[0]), V::load(&p.offset_b[1])];
        let mut overlaps = [V::splat(0.0); 2];
        let one_point = V::bitmask(count.gt(V::splat(1.0))) == 0;
        for (j, rows) in p.rows.iter().enumerate() {
            if j == 1 && one_point {
                // No lane has a second point: its lanes are zero, as `load_point_lanes` makes
                // an absent point's, with no rows turned into columns (circles, and corners
                // that touch, fill such batches).
                absent_point_lanes::<V>(c, 1);
                break;
            }
            // Rows to columns: column `i` holds float `i` of every lane's row.
            let t = V::transpose(array_of(|l| V::load(bytemuck::cast_ref(rows[l]))));
            let columns = PointColumns {
                anchor_a: [t[0], t[1]],
                anchor_b: [t[2], t[3]],
                separation: t[4],
                normal_impulse: t[6],
                tangent_impulse: t[7],
            };
            overlaps[j] = load_point_lanes(c, j, &columns, count, offset_a, offset_b);
        }
        gravity_lanes(c, V::load(&bodies.fall), gravity);
        prepare_lanes::<V>(c);
        let deep = deep_lanes(overlaps, V::load(&bodies.deep_overlap));
        Loaded {
            deep: !V::bitmask(deep) & ((1 << LANES) - 1),
            one_point,
        }
    }

    /// The warm start of the first `points` points (see [`warm_start_lanes`]).
    #[inline(always)]
    pub(crate) unsafe fn warm_start<V: Lanes8>(
        c: &mut ContactBatch,
        states: States,
        points: usize,
    ) {
        // Body A's lanes done and written back before B's are read, so that the columns of
        // only one body are held at a time (a batch's dynamic bodies are all distinct: B's
        // rows are not among those written).
        let p = warm_start_impulse::<V>(c, points);
        let mut a = gather_velocities::<V>(states, &c.word_a);
        warm_start_a(c, &mut a, &p);
        // (The words read again, as the solves' constants are: kept from the gather, they
        // were copied to the stack and back.)
        let c = reread(c);
        scatter(states, &c.word_a, V::sign_mask(&c.writes_a), &a);
        let mut b = gather_velocities::<V>(states, &c.word_b);
        warm_start_b(c, &mut b, &p);
        scatter(states, &c.word_b, V::sign_mask(&c.writes_b), &b);
    }

    #[inline(always)]
    pub(crate) unsafe fn solve<V: Lanes8>(c: &mut ContactBatch, states: States, p: &SolveParams) {
        let (mut a, mut b) = gather_both::<V>(c, states);
        solve_lanes(c, &mut a, &mut b, p);
        scatter_both(c, states, (a, b));
    }

    #[inline(always)]
    pub(crate) unsafe fn solve_one_point<V: Lanes8>(
        c: &mut ContactBatch,
        states: States,
        p: &SolveParams,
    ) {
        let (mut a, mut b) = gather_both::<V>(c, states);
        solve_one_lanes(c, &mut a, &mut b, p);
        scatter_both(c, states, (a, b));
    }

    #[inline(always)]
    pub(crate) unsafe fn impact<V: Lanes8>(c: &mut ContactBatch, states: States, p: &ImpactParams) {
        let (mut a, mut b) = gather_both::<V>(c, states);
        impact_lanes(c, &mut a, &mut b, p);
        scatter_both(c, states, (a, b));
    }

    /// [`solve`] on two batches at once.
    #[inline(always)]
    pub(crate) unsafe fn solve_pair<P: Lanes16>(
        c: &mut [ContactBatch; 2],
        states: States,
        params: &SolveParams,
    ) {
        let (mut a, mut b) = gather_both_pair::<P>(c, states);
        solve_lanes(c, &mut a, &mut b, params);
        scatter_both_pair(c, states, (a, b));
    }

    /// [`solve_one_point`] on two batches at once.
    #[inline(always)]
    pub(crate) unsafe fn solve_one_point_pair<P: Lanes16>(
        c: &mut [ContactBatch; 2],
        states: States,
        params: &SolveParams,
    ) {
        let (mut a, mut b) = gather_both_pair::<P>(c, states);
        solve_one_lanes(c, &mut a, &mut b, params);
        scatter_both_pair(c, states, (a, b));
    }

    /// The warm start of a run of batches, one after another: the one-point kernel for those
    /// whose `one_point` is set. One call for a run, so that the caller pays for a call and
    /// the checks of an entry point once per run rather than once per batch.
    #[inline(always)]
    pub(crate) unsafe fn warm_start_run<V: Lanes8>(
        c: &mut [ContactBatch],
        one_point: &[bool],
        states: States,
    ) {
        for (c, &one) in c.iter_mut().zip(one_point) {
            // (Two calls with constant counts: each gets its own loop over the points.)
            if one {
                warm_start::<V>(c, states, 1)
            } else {
                warm_start::<V>(c, states, 2)
            }
        }
    }

    /// A solve or relax pass over a run of batches, in order: the one-point kernel for those
    /// whose `one_point` is set. With `paired` (the run is one graph color's, so that no
    /// dynamic body is in two of its batches), two neighbours of the same kind are solved at
    /// once by the two-batch kernel, with the same bits.
    #[inline(always)]
    pub(crate) unsafe fn solve_run<P: Lanes16>(
        c: &mut [ContactBatch],
        one_point: &[bool],
        states: States,
        params: &SolveParams,
        paired: bool,
    ) {
        let n = c.len().min(one_point.len());
        let (mut c, mut one_point) = (&mut c[..n], &one_point[..n]);
        // The run cut into stretches of one kind, each solved by a loop of its own: a kind
        // tested per batch sat between the gather and the arithmetic, and the gather, which
        // both kinds share, was done before it with all its columns held through it.
        while let Some(&one) = one_point.first() {
            let len = one_point.iter().take_while(|&&o| o == one).count();
            let (stretch, rest) = core::mem::take(&mut c).split_at_mut(len);
            if one {
                solve_stretch::<P, true>(stretch, states, params, paired)
            } else {
                solve_stretch::<P, false>(stretch, states, params, paired)
            }
            (c, one_point) = (rest, &one_point[len..]);
        }
    }

    /// [`solve_run`] on a stretch of batches of one kind, one-point if `ONE`: by twos with
    /// `paired`, the last one alone.
    #[inline(always)]
    unsafe fn solve_stretch<P: Lanes16, const ONE: bool>(
        c: &mut [ContactBatch],
        states: States,
        params: &SolveParams,
        paired: bool,
    ) {
        let (pairs, alone) = match paired {
            true => c.as_chunks_mut::<2>(),
            false => (&mut [][..], c),
        };
        for pair in pairs {
            match ONE {
                true => solve_one_point_pair::<P>(pair, states, params),
                false => solve_pair::<P>(pair, states, params),
            }
        }
        for c in alone {
            match ONE {
                true => solve_one_point::<P::Half>(c, states, params),
                false => solve::<P::Half>(c, states, params),
            }
        }
    }

    /// The bodies A and B of two batches, the first batch's in lanes 0..8.
    #[inline(always)]
    unsafe fn gather_both_pair<P: Lanes16>(
        [lo, hi]: &[ContactBatch; 2],
        states: States,
    ) -> (BodyLanes<P>, BodyLanes<P>) {
        (
            gather_pair(states, [&lo.word_a, &hi.word_a]),
            gather_pair(states, [&lo.word_b, &hi.word_b]),
        )
    }

    /// Writes back the dynamic bodies of two batches.
    #[inline(always)]
    unsafe fn scatter_both_pair<P: Lanes16>(
        [lo, hi]: &[ContactBatch; 2],
        states: States,
        (a, b): (BodyLanes<P>, BodyLanes<P>),
    ) {
        let writes_a = P::Half::sign_mask(&lo.writes_a) | P::Half::sign_mask(&hi.writes_a) << LANES;
        let writes_b = P::Half::sign_mask(&lo.writes_b) | P::Half::sign_mask(&hi.writes_b) << LANES;
        scatter_pair(states, [&lo.word_a, &hi.word_a], writes_a, &a);
        scatter_pair(states, [&lo.word_b, &hi.word_b], writes_b, &b);
    }

    /// The bodies of two batches, `words[0]`'s in lanes 0..8.
    #[inline(always)]
    unsafe fn gather_pair<P: Lanes16>(states: States, words: [&[u32; LANES]; 2]) -> BodyLanes<P> {
        // (The states are loaded and joined as they are read: gathered into arrays of states
        // first, they were copied to the stack, and the AVX-512 build read them back from there.)
        let mut rows = [P::splat(0.0); LANES];
        for (l, row) in rows.iter_mut().enumerate() {
            *row = P::join(
                state_row::<P::Half>(states, words[0][l]),
                state_row::<P::Half>(states, words[1][l]),
            );
        }
        BodyLanes::from_row_pairs(rows)
    }

    /// The state whose row begins at `word` as one row of eight lanes.
    #[inline(always)]
    unsafe fn state_row<V: Lanes8>(states: States, word: u32) -> V {
        V::load(bytemuck::cast_ref(&states.read_word(word)))
    }

    /// Writes back the velocities of the lanes set in `writes` (lane `l` is
    /// `words[l / 8][l % 8]`).
    #[inline(always)]
    unsafe fn scatter_pair<P: Lanes16>(
        states: States,
        words: [&[u32; LANES]; 2],
        writes: u32,
        lanes: &BodyLanes<P>,
    ) {
        let rows = lanes.velocity_rows();
        // Every lane written is the common case (a pile away from the ground): no test per
        // lane then.
        if writes == (1 << (2 * LANES)) - 1 {
            for (l, row) in rows.into_iter().enumerate() {
                states.write_velocity_row_word(words[l / LANES][l % LANES], row);
            }
            return;
        }
        for (l, row) in rows.into_iter().enumerate() {
            if writes & (1 << l) != 0 {
                states.write_velocity_row_word(words[l / LANES][l % LANES], row);
            }
        }
    }
}

/// The f32x8 kernels: one call handles the eight lanes of a batch.
///
/// Safety, for every function: the batch's non-null body indices are in bounds of `states`,
/// and no other thread accesses the dynamic bodies of this batch during the call (the graph
/// coloring guarantees it). Results match the scalar twins bit for bit for finite inputs; with
/// NaN inputs only the NaN payloads may differ.
pub mod simd {
    use super::*;

    /// Computes the base separations (no body state needed).
    pub fn prepare(c: &mut ContactBatch) {
        batches::prepare::<f32x8>(c);
    }

    /// Loads the points of the batch's contacts from their rows (see [`PointRows`]), the
    /// batch's normals already packed, sets each lane's `gravity_normal` from its `fall` in
    /// `bodies` and `gravity`, and prepares the batch as [`prepare`]. Returns its deep lanes
    /// (against `bodies.deep_overlap`) and whether it has one point a lane.
    pub fn load_points(
        c: &mut ContactBatch,
        rows: &PointRows,
        bodies: &LaneBodies,
        gravity: [f32; 2],
    ) -> Loaded {
        batches::load_points::<f32x8>(c, rows, bodies, gravity)
    }

    /// Applies last step's impulses.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn warm_start(c: &mut ContactBatch, states: States) {
        batches::warm_start::<f32x8>(c, states, 2);
    }

    /// [`warm_start`] for a batch whose contacts all have one point, as for
    /// [`solve_one_point`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn warm_start_one_point(c: &mut ContactBatch, states: States) {
        batches::warm_start::<f32x8>(c, states, 1);
    }

    /// One iteration of normal and friction impulses.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve(c: &mut ContactBatch, states: States, params: &SolveParams) {
        batches::solve::<f32x8>(c, states, params);
    }

    /// [`solve`] for a batch whose contacts all have one point (point 1 all zero, as the
    /// packing leaves it): the same bits, faster (see `solve_one_lanes`).
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve_one_point(c: &mut ContactBatch, states: States, params: &SolveParams) {
        batches::solve_one_point::<f32x8>(c, states, params);
    }

    /// One impact pass: bounces of the contacts hit this step (see [`ImpactParams`]).
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn impact(c: &mut ContactBatch, states: States, params: &ImpactParams) {
        batches::impact::<f32x8>(c, states, params);
    }
}

/// The f32x16 solves: one call handles two batches of one graph color, sixteen lanes. The
/// batches share no dynamic body, so solving them together gives each the bits it gets alone
/// (from the f32x8 kernel and the scalar twin); two dependency chains side by side keep more of
/// the core busy than one. The engine uses the AVX2 and AVX-512 builds of them (`crate::x86`):
/// with AVX-512 each operation is one instruction on 32 registers, with AVX2 two, on 16
/// registers and some spills, still faster than two batches one after the other. These
/// portable ones it uses only in a build for AVX-512: with SSE2 they are slower. The warm
/// start stays single: it is no faster in pairs.
///
/// Safety, for every function: as for [`simd`], and no dynamic body appears in both batches.
pub mod pair {
    use super::*;

    /// [`simd::solve`] on two batches.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve(c: &mut [ContactBatch; 2], states: States, params: &SolveParams) {
        batches::solve_pair::<f32x16>(c, states, params);
    }

    /// [`simd::solve_one_point`] on two batches.
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve_one_point(c: &mut [ContactBatch; 2], states: States, params: &SolveParams) {
        batches::solve_one_point_pair::<f32x16>(c, states, params);
    }
}

/// The one-lane twins: the same per-lane arithmetic, one contact at a time, padding lanes
/// skipped. Safety, for every function: as for [`simd`].
pub mod scalar {
    use super::*;

    /// Runs `kernel` on every contact lane and writes its dynamic bodies back.
    #[inline(always)]
    unsafe fn each_lane(
        c: &mut ContactBatch,
        states: States,
        mut kernel: impl FnMut(&mut Lane, &mut BodyLanes<f32>, &mut BodyLanes<f32>),
    ) {
        for l in 0..LANES {
            if c.is_padding(l) {
                continue;
            }
            let (ia, ib) = (c.body_a[l], c.body_b[l]);
            let mut a = BodyLanes::from_state(&states.read(ia));
            let mut b = BodyLanes::from_state(&states.read(ib));
            kernel(&mut Lane(c, l), &mut a, &mut b);
            if ia != NULL_BODY && c.inv_mass_a[l] > 0.0 {
                states.write_velocity(ia, &a.to_state());
            }
            if ib != NULL_BODY && c.inv_mass_b[l] > 0.0 {
                states.write_velocity(ib, &b.to_state());
            }
        }
    }

    /// Scalar twin of [`simd::prepare`].
    pub fn prepare(c: &mut ContactBatch) {
        for l in 0..LANES {
            if !c.is_padding(l) {
                prepare_lanes(&mut Lane(c, l));
            }
        }
    }

    /// Scalar twin of [`simd::load_points`].
    pub fn load_points(
        c: &mut ContactBatch,
        p: &PointRows,
        bodies: &LaneBodies,
        gravity: [f32; 2],
    ) -> Loaded {
        let mut loaded = Loaded {
            deep: 0,
            one_point: true,
        };
        for (l, &bound) in bodies.deep_overlap.iter().enumerate() {
            let lane = &mut Lane(c, l);
            let offset_a = [p.offset_a[0][l], p.offset_a[1][l]];
            let offset_b = [p.offset_b[0][l], p.offset_b[1][l]];
            let overlaps: [f32; 2] = array_of(|j| {
                let columns = PointColumns::of_row(p.rows[j][l]);
                load_point_lanes(lane, j, &columns, p.count[l], offset_a, offset_b)
            });
            gravity_lanes(lane, bodies.fall[l], gravity);
            loaded.deep |= u32::from(!deep_lanes(overlaps, bound)) << l;
            loaded.one_point &= !p.count[l].gt(1.0);
            if !lane.0.is_padding(l) {
                prepare_lanes(lane);
            }
        }
        loaded
    }

    /// Scalar twin of [`simd::warm_start`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn warm_start(c: &mut ContactBatch, states: States) {
        each_lane(c, states, |c, a, b| warm_start_lanes(c, a, b, 2));
    }

    /// Scalar twin of [`simd::warm_start_one_point`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn warm_start_one_point(c: &mut ContactBatch, states: States) {
        each_lane(c, states, |c, a, b| warm_start_lanes(c, a, b, 1));
    }

    /// Scalar twin of [`simd::solve`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve(c: &mut ContactBatch, states: States, params: &SolveParams) {
        each_lane(c, states, |c, a, b| solve_lanes(c, a, b, params));
    }

    /// Scalar twin of [`simd::solve_one_point`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn solve_one_point(c: &mut ContactBatch, states: States, params: &SolveParams) {
        each_lane(c, states, |c, a, b| solve_one_lanes(c, a, b, params));
    }

    /// Scalar twin of [`simd::impact`].
    ///
    /// # Safety
    /// See the module documentation.
    pub unsafe fn impact(c: &mut ContactBatch, states: States, params: &ImpactParams) {
        each_lane(c, states, |c, a, b| impact_lanes(c, a, b, params));
    }
}
