//! Per-body solver state and the integration kernels.
//!
//! The solver keeps one [`BodyState`] per body: 32 bytes, so eight of them transpose into eight
//! f32x8 registers with one load each (a gather costs 8 loads instead of 56).

use crate::disjoint::DisjointMut;
use crate::real::{array_of, Lanes16, Lanes8, Real, LANES};
use crate::trig::sin_cos_turn;
use bytemuck::{Pod, Zeroable};
use wide::f32x8;

/// Index meaning "no body" in a contact lane: static bodies and padding lanes. Gathers read the
/// identity state and scatters skip it.
pub const NULL_BODY: u32 = u32::MAX;

/// The state the solver iterates on: velocity and the motion accumulated since the step began.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct BodyState {
    /// Linear velocity of the centre of mass.
    pub v: [f32; 2],
    /// Angular velocity.
    pub w: f32,
    /// Unused; keeps the state at eight floats.
    pub pad: f32,
    /// Translation of the centre of mass since the start of the step.
    pub dp: [f32; 2],
    /// Rotation since the start of the step, as (cos, sin).
    pub dq: [f32; 2],
}

impl BodyState {
    /// At rest, not yet moved.
    pub const IDENTITY: BodyState = BodyState {
        v: [0.0; 2],
        w: 0.0,
        pad: 0.0,
        dp: [0.0; 2],
        dq: [1.0, 0.0],
    };

    /// A state with velocity `v`, `w` and no motion yet.
    pub fn with_velocity(v: [f32; 2], w: f32) -> BodyState {
        BodyState {
            v,
            w,
            ..BodyState::IDENTITY
        }
    }
}

/// The fields of one or eight body states, one value per lane.
#[derive(Clone, Copy, Debug)]
pub struct BodyLanes<R> {
    /// Linear velocity of the centre of mass, x (m/s).
    pub vx: R,
    /// Linear velocity of the centre of mass, y (m/s).
    pub vy: R,
    /// Angular velocity (rad/s).
    pub w: R,
    /// Translation of the centre of mass since the start of the step, x (m).
    pub dpx: R,
    /// Translation of the centre of mass since the start of the step, y (m).
    pub dpy: R,
    /// Rotation since the start of the step: cosine.
    pub dqc: R,
    /// Rotation since the start of the step: sine.
    pub dqs: R,
}

impl BodyLanes<f32> {
    /// One state as one lane.
    #[inline(always)]
    pub fn from_state(s: &BodyState) -> Self {
        BodyLanes {
            vx: s.v[0],
            vy: s.v[1],
            w: s.w,
            dpx: s.dp[0],
            dpy: s.dp[1],
            dqc: s.dq[0],
            dqs: s.dq[1],
        }
    }

    /// Back to a state, with the padding zeroed.
    #[inline(always)]
    pub fn to_state(&self) -> BodyState {
        BodyState {
            v: [self.vx, self.vy],
            w: self.w,
            pad: 0.0,
            dp: [self.dpx, self.dpy],
            dq: [self.dqc, self.dqs],
        }
    }
}

impl<R: Real> BodyLanes<R> {
    /// The fields from the columns of transposed states (column 3, the padding, unused).
    #[inline(always)]
    fn from_columns(t: [R; LANES]) -> Self {
        BodyLanes {
            vx: t[0],
            vy: t[1],
            w: t[2],
            dpx: t[4],
            dpy: t[5],
            dqc: t[6],
            dqs: t[7],
        }
    }

    /// Velocities alone, the motion fields zero: what a pass reads that needs no motion.
    #[inline(always)]
    pub fn of_velocities(vx: R, vy: R, w: R) -> Self {
        let zero = R::splat(0.0);
        BodyLanes {
            vx,
            vy,
            w,
            dpx: zero,
            dpy: zero,
            dqc: zero,
            dqs: zero,
        }
    }
}

impl<V: Lanes8> BodyLanes<V> {
    /// Transposes eight states into lanes.
    #[inline(always)]
    pub fn from_states(rows: &[BodyState; LANES]) -> Self {
        let t = V::transpose(array_of(|i| V::load(bytemuck::cast_ref(&rows[i]))));
        BodyLanes::from_columns(t)
    }

    /// Transposes lanes back into eight states.
    #[inline(always)]
    pub fn to_states(&self) -> [BodyState; LANES] {
        let cols = [
            self.vx,
            self.vy,
            self.w,
            V::splat(0.0),
            self.dpx,
            self.dpy,
            self.dqc,
            self.dqs,
        ];
        let rows = V::transpose(cols);
        array_of(|i| bytemuck::cast(rows[i].store()))
    }
}

impl<P: Lanes16> BodyLanes<P> {
    /// Transposes two times eight states into lanes: row `j` holds state `j` of the first
    /// batch in its low half, that of the second in its high half.
    #[inline(always)]
    pub fn from_row_pairs(rows: [P; LANES]) -> Self {
        BodyLanes::from_columns(P::transpose_pairs(rows))
    }

    /// The velocity half of each lane's state (`v`, `w` and a zero pad), lane `l` in row `l`:
    /// what [`States::write_velocity_row`] writes.
    #[inline(always)]
    pub fn velocity_rows(&self) -> [[f32; 4]; 16] {
        P::rows_of_four(self.vx, self.vy, self.w)
    }
}

/// The solver's body states behind one identity row, the row that a [`NULL_BODY`] index reads:
/// a gather then loads each lane's row without testing its index first (faster warm starts in
/// the kernel bench). Derefs to the states alone: state `i` is `self[i]`.
#[derive(Clone, Debug)]
pub struct StateRows {
    /// [`BodyState::IDENTITY`], then the states.
    rows: Vec<BodyState>,
}

impl Default for StateRows {
    fn default() -> Self {
        StateRows {
            rows: vec![BodyState::IDENTITY],
        }
    }
}

impl StateRows {
    /// Rows holding a copy of `states`.
    pub fn from_states(states: &[BodyState]) -> StateRows {
        let mut rows = StateRows::default();
        rows.rows.extend_from_slice(states);
        rows
    }

    /// Keeps the first `n` states, or adds identity states up to `n`.
    pub fn resize(&mut self, n: usize) {
        self.rows.resize(n + 1, BodyState::IDENTITY);
    }
}

impl std::ops::Deref for StateRows {
    type Target = [BodyState];
    #[inline]
    fn deref(&self) -> &[BodyState] {
        &self.rows[1..]
    }
}

impl std::ops::DerefMut for StateRows {
    #[inline]
    fn deref_mut(&mut self) -> &mut [BodyState] {
        &mut self.rows[1..]
    }
}

/// Shared mutable access to the body states for the workers of one graph color.
///
/// Within a color no dynamic body appears in two constraints, so workers write disjoint
/// states; static and kinematic bodies are only read. A [`DisjointMut`] of the rows, whose
/// contract every accessor below passes on.
#[derive(Clone, Copy)]
pub struct States<'a> {
    /// The identity row, then the states: state `i` is row `i + 1`.
    rows: DisjointMut<'a, BodyState>,
}

impl<'a> States<'a> {
    /// A view of `rows` for the workers of one color.
    pub fn new(rows: &'a mut StateRows) -> States<'a> {
        // Every state index must stay non-negative as an i32 (see `read`), and every row's
        // word (see `word`) within a u32.
        assert!(rows.len() < 1 << 30, "too many body states");
        States {
            rows: DisjointMut::new(&mut rows.rows),
        }
    }

    /// The row of state `index`; [`NULL_BODY`], -1 as an i32, is the identity row.
    #[inline(always)]
    fn row(index: u32) -> usize {
        (index as i32 as isize + 1) as usize
    }

    /// Where state `index` ([`NULL_BODY`]: the identity row) begins in the rows, in 8-byte
    /// words, four per state. A kernel that keeps it per lane addresses a row with one scaled
    /// index, where an index costs a shift as well (a state is wider than x86's largest
    /// scale): see [`read_word`](Self::read_word) and its siblings.
    #[inline(always)]
    pub fn word(index: u32) -> u32 {
        // Fewer than 2^30 rows (see `new`): no row's word overflows.
        (Self::row(index) as u32).wrapping_mul(4)
    }

    /// The state whose row begins at `word` ([`NULL_BODY`] for the identity row's): the
    /// inverse of [`word`](Self::word).
    #[inline(always)]
    pub fn index_of_word(word: u32) -> u32 {
        (word / 4).wrapping_sub(1)
    }

    /// The state at `index`, or the identity state for [`NULL_BODY`].
    ///
    /// # Safety
    /// `index` is `NULL_BODY` or in bounds, and no other thread writes that state meanwhile.
    #[inline(always)]
    pub unsafe fn read(self, index: u32) -> BodyState {
        debug_assert!(index == NULL_BODY || (index as usize) < self.rows.len() - 1);
        // SAFETY: in bounds and not written meanwhile, by the caller's promise.
        unsafe { self.rows.read(Self::row(index)) }
    }

    /// The velocity half of the state at `index` (`v`, `w`, `pad`), or of the identity
    /// state for [`NULL_BODY`]: what the passes that change only velocities gather.
    ///
    /// # Safety
    /// As for [`read`](Self::read).
    #[inline(always)]
    pub unsafe fn read_velocity(self, index: u32) -> [f32; 4] {
        // SAFETY: the caller's promise.
        let s = unsafe { self.read(index) };
        [s.v[0], s.v[1], s.w, s.pad]
    }

    /// The state whose row begins at `word` (see [`word`](Self::word)): [`read`](Self::read)
    /// by the row's word.
    ///
    /// # Safety
    /// `word` is that of `NULL_BODY` or of a state in bounds, and no other thread writes that
    /// state meanwhile.
    #[inline(always)]
    pub unsafe fn read_word(self, word: u32) -> BodyState {
        debug_assert!(word.is_multiple_of(4) && ((word / 4) as usize) < self.rows.len());
        // SAFETY: a row's word is four times its index in the rows: in bounds, and not
        // written meanwhile, by the caller's promise.
        unsafe { self.row_at(word).read() }
    }

    /// The velocity half of the state whose row begins at `word`: [`read_velocity`] by the
    /// row's word.
    ///
    /// # Safety
    /// As for [`read_word`](Self::read_word).
    ///
    /// [`read_velocity`]: Self::read_velocity
    #[inline(always)]
    pub unsafe fn read_velocity_word(self, word: u32) -> [f32; 4] {
        debug_assert!(word.is_multiple_of(4) && ((word / 4) as usize) < self.rows.len());
        // SAFETY: as for `read_word`; a `BodyState` starts with its velocity half.
        unsafe { (self.row_at(word) as *const [f32; 4]).read() }
    }

    /// Writes `row` to the velocity half of the state whose row begins at `word`:
    /// [`write_velocity_row`](Self::write_velocity_row) by the row's word.
    ///
    /// # Safety
    /// `word` is that of a state in bounds (not `NULL_BODY`'s), which no other thread
    /// accesses meanwhile.
    #[inline(always)]
    pub unsafe fn write_velocity_row_word(self, word: u32, row: [f32; 4]) {
        debug_assert!(
            word.is_multiple_of(4) && word > 0 && ((word / 4) as usize) < self.rows.len()
        );
        // SAFETY: as for `read_word`, exclusive by the caller's promise.
        unsafe { (self.row_at(word) as *mut [f32; 4]).write(row) }
    }

    /// The row that begins at `word`.
    ///
    /// # Safety
    /// `word` is a row's word in bounds.
    #[inline(always)]
    unsafe fn row_at(self, word: u32) -> *mut BodyState {
        // SAFETY: in bounds by the caller's promise (a word is 8 bytes, a row four words).
        unsafe { self.rows.as_ptr().cast::<u64>().add(word as usize).cast() }
    }

    /// The states `start..start + len` as a slice.
    ///
    /// # Safety
    /// The range is in bounds and no other thread accesses these states while the slice lives.
    #[inline(always)]
    pub unsafe fn slice_mut(self, start: usize, len: usize) -> &'a mut [BodyState] {
        // SAFETY: in bounds and exclusive, by the caller's promise.
        unsafe { self.rows.slice(start + 1..start + 1 + len) }
    }

    /// Writes the first half of `state` (`v`, `w`, `pad`) to the state at `index`, leaving
    /// its motion alone: the contact kernels change only velocities, so a scatter of eight
    /// lanes needs only the velocity half of the transpose.
    ///
    /// Copied as one 16-byte block: written field by field, the compiler extracts and stores
    /// each float separately.
    ///
    /// # Safety
    /// `index` is in bounds and no other thread reads or writes that state meanwhile.
    #[inline(always)]
    pub unsafe fn write_velocity(self, index: u32, state: &BodyState) {
        self.write_velocity_row(index, *(state as *const BodyState as *const [f32; 4]));
    }

    /// Writes `row`, the first half of a state (`v`, `w`, `pad`), to the state at `index`, as
    /// [`write_velocity`](Self::write_velocity) does.
    ///
    /// # Safety
    /// As for [`write_velocity`](Self::write_velocity).
    #[inline(always)]
    pub unsafe fn write_velocity_row(self, index: u32, row: [f32; 4]) {
        debug_assert!((index as usize) < self.rows.len() - 1);
        // SAFETY: in bounds and exclusive, by the caller's promise; a `BodyState` starts with
        // its velocity half, four f32s (`BodyState` is `repr(C)`).
        let state: *mut BodyState = unsafe { self.rows.get(index as usize + 1) };
        unsafe { *(state as *mut [f32; 4]) = row };
    }
}

/// Constants of the velocity integration for one substep.
#[derive(Clone, Copy, Debug)]
pub struct IntegrateParams {
    /// Substep length.
    pub h: f32,
    /// World gravity.
    pub gravity: [f32; 2],
    /// Speed cap (m/s).
    pub max_linear_speed: f32,
    /// Angular speed cap (rad/s); keeps one substep's rotation within four turns, where the
    /// position integration turns exactly.
    pub max_angular_speed: f32,
}

/// Per-body constants of the velocity integration.
#[derive(Clone, Copy, Debug)]
pub struct BodyParams<'a> {
    /// Gravity scale; 0 for static and kinematic bodies.
    pub gravity_scale: &'a [f32],
    /// Linear damping coefficient (1/s) of each state, in the order of the states.
    pub linear_damping: &'a [f32],
    /// Angular damping coefficient (1/s) of each state, in the order of the states.
    pub angular_damping: &'a [f32],
    /// Accelerations from user forces, added to gravity's at every substep; `None` when no
    /// body has one, which leaves the arithmetic of the others as it was without forces.
    pub acceleration: Option<Accelerations<'a>>,
    /// A tighter angular speed cap (rad/s) of each state, in the order of the states, under
    /// `IntegrateParams::max_angular_speed`; `None` when no body has one.
    pub spin_bound: Option<&'a [f32]>,
}

/// Per-state accelerations from user forces and torques, in the order of the states.
#[derive(Clone, Copy, Debug)]
pub struct Accelerations<'a> {
    /// Linear acceleration (m/s²), x.
    pub x: &'a [f32],
    /// Linear acceleration (m/s²), y.
    pub y: &'a [f32],
    /// Angular acceleration (rad/s²).
    pub angular: &'a [f32],
}

impl<'a> Accelerations<'a> {
    /// The accelerations of states `range`.
    fn slice(self, range: std::ops::Range<usize>) -> Accelerations<'a> {
        Accelerations {
            x: &self.x[range.clone()],
            y: &self.y[range.clone()],
            angular: &self.angular[range],
        }
    }
}

#[inline(always)]
fn integrate_velocity<R: Real>(
    s: &mut BodyLanes<R>,
    gravity_scale: R,
    linear_damping: R,
    angular_damping: R,
    acceleration: Option<[R; 3]>,
    spin_bound: Option<R>,
    p: &IntegrateParams,
) {
    let h = R::splat(p.h);
    let one = R::splat(1.0);
    // A huge gravity scale can make this step's gravity infinite. Bring it back into f32's
    // range (a no-op for any finite value) before damping, whose factor a huge coefficient
    // rounds to 0, and infinity times 0 is NaN; the speed cap below does the rest.
    let largest = R::splat(f32::MAX);
    let gx = gravity_scale * R::splat(p.gravity[0]);
    let gy = gravity_scale * R::splat(p.gravity[1]);
    // A force acts like gravity: its acceleration joins gravity's. A large one can overflow
    // like gravity can, the angular one too, hence the same clamp before damping.
    let (ax, ay, w) = match acceleration {
        Some([fx, fy, alpha]) => (
            gx + fx,
            gy + fy,
            (s.w + h * alpha).max(-largest).min(largest),
        ),
        None => (gx, gy, s.w),
    };
    let vx = (s.vx + h * ax).max(-largest).min(largest);
    let vy = (s.vy + h * ay).max(-largest).min(largest);
    // Implicit damping: stable for any damping coefficient.
    let lin = one / (one + h * linear_damping);
    let ang = one / (one + h * angular_damping);
    let (vx, vy, w) = (vx * lin, vy * lin, w * ang);

    let max_w = R::splat(p.max_angular_speed);
    let max_w = spin_bound.map_or(max_w, |bound| bound.min(max_w));
    (s.vx, s.vy, s.w) = cap_speed(vx, vy, w, p.max_linear_speed, max_w);
}

#[inline(always)]
fn cap_speed<R: Real>(vx: R, vy: R, w: R, max_linear: f32, max_w: R) -> (R, R, R) {
    let max_v = R::splat(max_linear);
    // A velocity whose square overflows (set huge by the user, or made infinite by a huge
    // gravity scale) would scale by `max_v / inf = 0`, to zero or to NaN. Clamping each axis
    // to the cap first keeps it finite and, beyond the cap anyway, still capped below.
    let overflows = (vx * vx + vy * vy).ge(R::splat(f32::INFINITY));
    let vx = R::select(overflows, vx.max(-max_v).min(max_v), vx);
    let vy = R::select(overflows, vy.max(-max_v).min(max_v), vy);
    let speed_sq = vx * vx + vy * vy;
    let too_fast = speed_sq.gt(max_v * max_v);
    let scale = max_v / speed_sq.sqrt();
    (
        R::select(too_fast, vx * scale, vx),
        R::select(too_fast, vy * scale, vy),
        w.max(-max_w).min(max_w),
    )
}

/// Brings one body's velocity within the speed caps, as velocity integration does: the solver
/// applies it where a step begins and ends, so that no contact sees, and no step leaves, a body
/// faster than the caps (a body set far beyond them would otherwise carry its speed into the
/// restitution impulses and through them to its neighbours).
#[inline]
pub fn cap_speeds(v: [f32; 2], w: f32, max_linear: f32, max_angular: f32) -> ([f32; 2], f32) {
    let (vx, vy, w) = cap_speed(v[0], v[1], w, max_linear, max_angular);
    ([vx, vy], w)
}

#[inline(always)]
fn integrate_position<R: Real>(s: &mut BodyLanes<R>, h: f32) {
    let h = R::splat(h);
    // Turn by exactly w h: the angular speed cap keeps it within four turns, where
    // `sin_cos_turn` is accurate to a few f32 roundings. (A first-order update, c - w h s,
    // turns by atan(w h) instead: 5% short at 100 rad/s.) Renormalised against drift.
    let (sin, cos) = sin_cos_turn(h * s.w);
    let c = cos * s.dqc - sin * s.dqs;
    let sn = sin * s.dqc + cos * s.dqs;
    let mag = (c * c + sn * sn).sqrt();
    let inv = R::select(mag.gt(R::splat(0.0)), R::splat(1.0) / mag, R::splat(0.0));
    s.dqc = c * inv;
    s.dqs = sn * inv;
    s.dpx = s.dpx + h * s.vx;
    s.dpy = s.dpy + h * s.vy;
}

/// The columns of the bodies' poses and velocities, by body slot, that a step ends by
/// writing its states back to (see [`finish_simd`]).
pub struct PoseColumns<'a> {
    /// Centres of mass, world frame.
    pub center: &'a mut [[f32; 2]],
    /// Rotations as (cosine, sine).
    pub rotation: &'a mut [[f32; 2]],
    /// Linear velocities.
    pub linear_velocity: &'a mut [[f32; 2]],
    /// Angular velocities.
    pub angular_velocity: &'a mut [f32],
}

impl PoseColumns<'_> {
    /// The slots that `state_of` and every column have.
    fn len(&self, state_of: &[u32]) -> usize {
        (state_of.len())
            .min(self.center.len())
            .min(self.rotation.len())
            .min(self.linear_velocity.len())
            .min(self.angular_velocity.len())
    }
}

/// A body's pose and velocity at the end of the step: its centre moved by `dp`, its rotation
/// turned by `dq` and renormalised (the identity where it has no length), its velocity within
/// the caps (see [`cap_speeds`]).
#[inline(always)]
fn finish_lanes<R: Real>(
    s: &BodyLanes<R>,
    [cx, cy]: [R; 2],
    [qc, qs]: [R; 2],
    max_linear: f32,
    max_angular: f32,
) -> [[R; 2]; 4] {
    let c = s.dqc * qc - s.dqs * qs;
    let sn = s.dqs * qc + s.dqc * qs;
    let mag = (c * c + sn * sn).sqrt();
    let zero = R::splat(0.0);
    let regular = mag.gt(zero);
    let inv = R::splat(1.0) / mag;
    let rotation = [
        R::select(regular, c * inv, R::splat(1.0)),
        R::select(regular, sn * inv, zero),
    ];
    let (vx, vy, w) = cap_speed(s.vx, s.vy, s.w, max_linear, R::splat(max_angular));
    [[cx + s.dpx, cy + s.dpy], rotation, [vx, vy], [w, zero]]
}

/// Writes slot `i`'s end of the step: from state `state`.
#[inline(always)]
fn finish_slot(
    state: &BodyState,
    i: usize,
    c: &mut PoseColumns,
    max_linear: f32,
    max_angular: f32,
) {
    let s = BodyLanes::from_state(state);
    let [center, rotation, v, [w, _]] =
        finish_lanes(&s, c.center[i], c.rotation[i], max_linear, max_angular);
    c.center[i] = center;
    c.rotation[i] = rotation;
    c.linear_velocity[i] = v;
    c.angular_velocity[i] = w;
}

/// [`finish_simd`] with the vector type `V`.
#[inline(always)]
pub(crate) fn finish_batches<V: Lanes8>(
    states: &[BodyState],
    state_of: &[u32],
    mut c: PoseColumns,
    max_linear: f32,
    max_angular: f32,
) {
    let n = c.len(state_of);
    let simd_len = n / LANES * LANES;
    for first in (0..simd_len).step_by(LANES) {
        let index: &[u32; LANES] = state_of[first..first + LANES].try_into().expect("8");
        // A run with a slot the solver left alone (static, asleep, free), or a state out of
        // bounds, takes the lanes one by one.
        if index.iter().any(|&k| k as usize >= states.len()) {
            for (l, &k) in index.iter().enumerate() {
                if let Some(state) = states.get(k as usize) {
                    finish_slot(state, first + l, &mut c, max_linear, max_angular);
                }
            }
            continue;
        }
        // SAFETY: every index is in bounds (tested above).
        let s = BodyLanes::<V>::from_states(&array_of(|l| unsafe {
            *states.get_unchecked(index[l] as usize)
        }));
        let pairs = |column: &[[f32; 2]]| V::from_pairs(array_of(|l| column[first + l]));
        let [center, rotation, v, [w, _]] = finish_lanes(
            &s,
            pairs(c.center),
            pairs(c.rotation),
            max_linear,
            max_angular,
        );
        let range = first..first + LANES;
        c.center[range.clone()].copy_from_slice(&V::to_pairs(center));
        c.rotation[range.clone()].copy_from_slice(&V::to_pairs(rotation));
        c.linear_velocity[range.clone()].copy_from_slice(&V::to_pairs(v));
        c.angular_velocity[range].copy_from_slice(&w.store());
    }
    for (i, &k) in state_of[..n].iter().enumerate().skip(simd_len) {
        if let Some(state) = states.get(k as usize) {
            finish_slot(state, i, &mut c, max_linear, max_angular);
        }
    }
}

/// Ends a step: for each slot of the columns whose entry of `state_of` names one of `states`
/// (not [`NULL_BODY`]), moves its centre by the state's `dp`, turns its rotation by `dq`
/// (renormalised), and writes its velocity within the caps `max_linear` (m/s) and
/// `max_angular` (rad/s). Eight slots at a time where all eight have a state, the others one
/// by one.
pub fn finish_simd(
    states: &[BodyState],
    state_of: &[u32],
    c: PoseColumns,
    max_linear: f32,
    max_angular: f32,
) {
    finish_batches::<f32x8>(states, state_of, c, max_linear, max_angular);
}

/// Scalar twin of [`finish_simd`].
pub fn finish_scalar(
    states: &[BodyState],
    state_of: &[u32],
    mut c: PoseColumns,
    max_linear: f32,
    max_angular: f32,
) {
    let n = c.len(state_of);
    for (i, &k) in state_of[..n].iter().enumerate() {
        if let Some(state) = states.get(k as usize) {
            finish_slot(state, i, &mut c, max_linear, max_angular);
        }
    }
}

/// The columns of the bodies' velocities, by body slot, that a step starts its states from
/// (see [`start_simd`]).
#[derive(Clone, Copy)]
pub struct VelocityColumns<'a> {
    /// Linear velocities.
    pub linear: &'a [[f32; 2]],
    /// Angular velocities.
    pub angular: &'a [f32],
}

/// Starts a step: state `k` takes the velocity of slot `slots[k]` within the caps, `max_linear`
/// (m/s) and `max_angular` (rad/s) or `spin_bound[k]` where that is lower, and no motion
/// yet. Eight states at a time, the tail one by one. Panics where a slot is out of bounds of
/// the columns.
pub fn start_simd(
    states: &mut [BodyState],
    slots: &[u32],
    columns: VelocityColumns,
    spin_bound: Option<&[f32]>,
    max_linear: f32,
    max_angular: f32,
) {
    start_batches::<f32x8>(states, slots, columns, spin_bound, max_linear, max_angular);
}

/// Scalar twin of [`start_simd`].
pub fn start_scalar(
    states: &mut [BodyState],
    slots: &[u32],
    columns: VelocityColumns,
    spin_bound: Option<&[f32]>,
    max_linear: f32,
    max_angular: f32,
) {
    for (k, (state, &slot)) in states.iter_mut().zip(slots).enumerate() {
        let i = slot as usize;
        let [vx, vy] = columns.linear[i];
        let max_w = spin_bound.map_or(max_angular, |b| b[k].min(max_angular));
        let (vx, vy, w) = cap_speed(vx, vy, columns.angular[i], max_linear, max_w);
        *state = BodyState::with_velocity([vx, vy], w);
    }
}

/// [`start_simd`] with the vector type `V`.
#[inline(always)]
pub(crate) fn start_batches<V: Lanes8>(
    states: &mut [BodyState],
    slots: &[u32],
    columns: VelocityColumns,
    spin_bound: Option<&[f32]>,
    max_linear: f32,
    max_angular: f32,
) {
    let n = states.len().min(slots.len());
    let simd_len = n / LANES * LANES;
    let places = columns.linear.len().min(columns.angular.len());
    let (zero, one) = (V::splat(0.0), V::splat(1.0));
    for first in (0..simd_len).step_by(LANES) {
        let at: &[u32; LANES] = slots[first..first + LANES].try_into().expect("8");
        // One test of the slots per batch, not one per lane and column.
        assert!(
            at.iter().all(|&i| (i as usize) < places),
            "a body slot out of bounds"
        );
        // SAFETY: every slot is in bounds of both columns (tested above).
        let [vx, vy] = V::from_pairs(array_of(|l| unsafe {
            *columns.linear.get_unchecked(at[l] as usize)
        }));
        let w = V::load(&array_of(|l| unsafe {
            *columns.angular.get_unchecked(at[l] as usize)
        }));
        let max_w = V::splat(max_angular);
        let max_w = spin_bound.map_or(max_w, |b| {
            let b: &[f32; LANES] = b[first..first + LANES].try_into().expect("8");
            V::load(b).min(max_w)
        });
        let (vx, vy, w) = cap_speed(vx, vy, w, max_linear, max_w);
        let s = BodyLanes {
            vx,
            vy,
            w,
            dpx: zero,
            dpy: zero,
            dqc: one,
            dqs: zero,
        };
        let rows: &mut [BodyState; LANES] =
            (&mut states[first..first + LANES]).try_into().expect("8");
        *rows = s.to_states();
    }
    let spin_bound = spin_bound.map(|b| &b[simd_len..]);
    start_scalar(
        &mut states[simd_len..n],
        &slots[simd_len..n],
        columns,
        spin_bound,
        max_linear,
        max_angular,
    );
}

/// The velocity half of `state`: `v`, `w` and `pad`, as one row of four floats.
#[inline(always)]
fn velocity_half(state: &BodyState) -> [f32; 4] {
    bytemuck::cast_ref::<BodyState, [[f32; 4]; 2]>(state)[0]
}

fn lanes8<V: Lanes8>(x: &[f32]) -> V {
    V::load(x.try_into().expect("a chunk of 8"))
}

/// [`integrate_velocities_simd`] with the vector type `V`.
#[inline(always)]
pub(crate) fn integrate_velocities_batches<V: Lanes8>(
    states: &mut [BodyState],
    body: BodyParams,
    p: &IntegrateParams,
) {
    let simd_len = states.len() / LANES * LANES;
    let (head, tail) = states.split_at_mut(simd_len);
    for (i, rows) in head.chunks_exact_mut(LANES).enumerate() {
        let r = i * LANES..(i + 1) * LANES;
        let rows: &mut [BodyState; LANES] = rows.try_into().expect("a chunk of 8");
        // Only the velocity halves are read and written: their transposes of eight rows of
        // four floats cost half those of whole states, and the motion is left as it was.
        let [vx, vy, w] = V::from_fours(array_of(|l| velocity_half(&rows[l])));
        let mut s = BodyLanes::of_velocities(vx, vy, w);
        let acceleration = body.acceleration.map(|a| {
            let a = a.slice(r.clone());
            [lanes8(a.x), lanes8(a.y), lanes8(a.angular)]
        });
        integrate_velocity(
            &mut s,
            lanes8(&body.gravity_scale[r.clone()]),
            lanes8(&body.linear_damping[r.clone()]),
            lanes8(&body.angular_damping[r.clone()]),
            acceleration,
            body.spin_bound.map(|b| lanes8(&b[r])),
            p,
        );
        for (row, half) in rows.iter_mut().zip(V::to_fours(s.vx, s.vy, s.w)) {
            bytemuck::cast_mut::<BodyState, [[f32; 4]; 2]>(row)[0] = half;
        }
    }
    let rest = BodyParams {
        gravity_scale: &body.gravity_scale[simd_len..],
        linear_damping: &body.linear_damping[simd_len..],
        angular_damping: &body.angular_damping[simd_len..],
        acceleration: body.acceleration.map(|a| a.slice(simd_len..a.x.len())),
        spin_bound: body.spin_bound.map(|b| &b[simd_len..]),
    };
    integrate_velocities_scalar(tail, rest, p);
}

/// Adds gravity and user forces, applies damping and the speed caps: eight bodies at a time,
/// the tail one by one.
pub fn integrate_velocities_simd(states: &mut [BodyState], body: BodyParams, p: &IntegrateParams) {
    integrate_velocities_batches::<f32x8>(states, body, p);
}

/// Scalar twin of [`integrate_velocities_simd`].
pub fn integrate_velocities_scalar(
    states: &mut [BodyState],
    body: BodyParams,
    p: &IntegrateParams,
) {
    for (i, state) in states.iter_mut().enumerate() {
        let mut s = BodyLanes::from_state(state);
        integrate_velocity(
            &mut s,
            body.gravity_scale[i],
            body.linear_damping[i],
            body.angular_damping[i],
            body.acceleration.map(|a| [a.x[i], a.y[i], a.angular[i]]),
            body.spin_bound.map(|b| b[i]),
            p,
        );
        *state = s.to_state();
    }
}

/// [`integrate_positions_simd`] with the vector type `V`.
#[inline(always)]
pub(crate) fn integrate_positions_batches<V: Lanes8>(states: &mut [BodyState], h: f32) {
    let simd_len = states.len() / LANES * LANES;
    let (head, tail) = states.split_at_mut(simd_len);
    for rows in head.chunks_exact_mut(LANES) {
        let rows: &mut [BodyState; LANES] = rows.try_into().expect("a chunk of 8");
        let mut s = BodyLanes::<V>::from_states(rows);
        integrate_position(&mut s, h);
        *rows = s.to_states();
    }
    integrate_positions_scalar(tail, h);
}

/// Advances the accumulated translation and rotation by one substep of length `h`.
pub fn integrate_positions_simd(states: &mut [BodyState], h: f32) {
    integrate_positions_batches::<f32x8>(states, h);
}

/// Scalar twin of [`integrate_positions_simd`].
pub fn integrate_positions_scalar(states: &mut [BodyState], h: f32) {
    for state in states {
        let mut s = BodyLanes::from_state(state);
        integrate_position(&mut s, h);
        *state = s.to_state();
    }
}
