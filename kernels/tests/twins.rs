//! The SIMD kernels against their scalar twins.
//!
//! Every kernel of `batch2d-kernels` is written once over `Real` and instantiated for
//! `wide::f32x8` and `f32` (the two-point solve also for `wide::f32x16`, two batches at once); the
//! crate promises that all produce bit-identical outputs. These
//! tests feed both the same random (seeded) inputs and compare every bit of every output, check
//! that null, padding and kinematic lanes never write a body state, and check a few physical
//! properties of the contact solve at kernel level.
//!
//! Inputs are finite by default (with exact zeros, -0.0 and subnormals mixed in); separate tests
//! add huge values and infinities (still compared bit for bit) and NaNs (compared up to the NaN
//! payload, which IEEE 754 and Rust leave unspecified).

use batch2d_kernels::body::{
    finish_scalar, finish_simd, integrate_positions_scalar, integrate_positions_simd,
    integrate_velocities_scalar, integrate_velocities_simd, start_scalar, start_simd,
    Accelerations, BodyParams, IntegrateParams, PoseColumns, States, VelocityColumns,
};
use batch2d_kernels::contact::{pair, scalar, simd};
use batch2d_kernels::joint as pin;
#[cfg(target_arch = "x86_64")]
use batch2d_kernels::x86::{avx2, avx512};
use batch2d_kernels::InstructionSet;
use batch2d_kernels::{
    BodyFrames, BodyState, ContactBatch, ImpactParams, LaneBodies, Loaded, PinBatch, PinFrames,
    PinParams, PinStart, PointLanes, PointRow, PointRows, SolveParams, StateRows, LANES, NULL_BODY,
};
use bytemuck::{Pod, Zeroable};

// ---------------------------------------------------------------------------------------------
// Seeded randomness (splitmix64): no dependencies, same sequence on every machine.
// ---------------------------------------------------------------------------------------------

/// Which values the generators may produce besides ordinary finite ones.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Inputs {
    /// Finite values only (exact zeros, -0.0 and subnormals included).
    Finite,
    /// Also huge values and infinities, which make the kernels produce infinities and NaNs.
    Infinite,
    /// Also NaNs with arbitrary payloads and signs.
    Nan,
}

impl Inputs {
    /// How to compare the twins' outputs: NaN payloads and signs are unspecified (IEEE 754
    /// does not say which operand's payload an operation propagates, and Rust does not promise
    /// one), so with NaN inputs, and with infinities (which make NaNs such as inf - inf inside
    /// the kernels), any NaN matches any NaN; with finite inputs every bit must match.
    fn cmp(self) -> Cmp {
        match self {
            Inputs::Finite => Cmp::Bits,
            Inputs::Infinite | Inputs::Nan => Cmp::NanIsNan,
        }
    }
}

struct Rng {
    state: u64,
    inputs: Inputs,
}

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng::with_inputs(seed, Inputs::Finite)
    }

    fn with_inputs(seed: u64, inputs: Inputs) -> Rng {
        let mut r = Rng {
            state: seed.wrapping_mul(0xA076_1D64_78BD_642F) ^ 0xE703_7ED1_A0B4_28DB,
            inputs,
        };
        r.next_u64();
        r
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }

    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in 0..n.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }

    /// Now and then (one draw in eight) a non-finite or huge value, if the input class allows
    /// them: +-1e30, +-3e37 (finite, but their squares and sums overflow), +-inf, NaN with a
    /// random payload and sign. Only non-negative values when `nonneg` (NaN aside).
    fn wild(&mut self, nonneg: bool) -> Option<f32> {
        if self.inputs == Inputs::Finite || self.below(8) != 0 {
            return None;
        }
        let kinds = if self.inputs == Inputs::Nan { 4 } else { 3 };
        let x = match self.below(kinds) {
            0 => 1e30,
            1 => 3e37,
            2 => f32::INFINITY,
            _ => f32::from_bits(0x7FC0_0000 | self.below(0x0040_0000) as u32),
        };
        Some(if !nonneg && self.chance(0.5) { -x } else { x })
    }

    /// A value in [-scale, scale) that is now and then exactly 0.0, -0.0 or subnormal, to
    /// exercise signed-zero and denormal paths.
    fn spicy(&mut self, scale: f32) -> f32 {
        if let Some(x) = self.wild(false) {
            return x;
        }
        match self.below(12) {
            0 => 0.0,
            1 => -0.0,
            2 => {
                let tiny = f32::from_bits(1 + self.below(0x007F_FFFF) as u32);
                if self.chance(0.5) {
                    tiny
                } else {
                    -tiny
                }
            }
            _ => self.range(-scale, scale),
        }
    }

    /// A value in [0, hi) that is now and then exactly 0.0, -0.0 (also ">= 0") or subnormal.
    fn nonneg(&mut self, hi: f32) -> f32 {
        if let Some(x) = self.wild(true) {
            return x;
        }
        match self.below(10) {
            0 | 1 => 0.0,
            2 => -0.0,
            3 => f32::from_bits(1 + self.below(0x007F_FFFF) as u32),
            _ => self.range(0.0, hi),
        }
    }

    /// A unit vector; now and then axis-aligned with signed-zero components.
    fn unit_vec(&mut self) -> [f32; 2] {
        const AXES: [[f32; 2]; 8] = [
            [0.0, 1.0],
            [-0.0, 1.0],
            [0.0, -1.0],
            [-0.0, -1.0],
            [1.0, 0.0],
            [1.0, -0.0],
            [-1.0, 0.0],
            [-1.0, -0.0],
        ];
        if self.chance(0.25) {
            AXES[self.below(AXES.len())]
        } else {
            let a = self.range(-std::f32::consts::PI, std::f32::consts::PI);
            [a.cos(), a.sin()]
        }
    }

    /// Any bit pattern, NaNs included: a sentinel for fields no kernel should write.
    fn bits(&mut self) -> f32 {
        f32::from_bits(self.next_u64() as u32)
    }
}

// ---------------------------------------------------------------------------------------------
// Random worlds and batches.
// ---------------------------------------------------------------------------------------------

/// Bodies as the solver sees them: states plus per-body inverse mass and inertia (0 and 0 for
/// kinematic bodies).
struct World {
    states: Vec<BodyState>,
    inv_mass: Vec<f32>,
    inv_inertia: Vec<f32>,
}

impl World {
    fn random(rng: &mut Rng, n: usize) -> World {
        let mut w = World {
            states: Vec::with_capacity(n),
            inv_mass: Vec::with_capacity(n),
            inv_inertia: Vec::with_capacity(n),
        };
        for _ in 0..n {
            let q = rng.unit_vec();
            w.states.push(BodyState {
                v: [rng.spicy(10.0), rng.spicy(10.0)],
                w: rng.spicy(8.0),
                // A sentinel: every kernel write stores pad = 0, so an unexpected write of an
                // otherwise unchanged state still shows up in the bits. `zero_written_pads`
                // clears it on the bodies a batch may write.
                pad: rng.bits(),
                dp: [rng.spicy(0.3), rng.spicy(0.3)],
                dq: if rng.chance(0.2) { [1.0, 0.0] } else { q },
            });
            let (m, i) = match rng.below(8) {
                // Kinematic: a real index, never written.
                0 => (0.0, 0.0),
                // Fixed rotation.
                1 => (rng.range(0.05, 5.0), 0.0),
                _ => (rng.range(0.05, 5.0), rng.range(0.05, 20.0)),
            };
            w.inv_mass.push(m);
            w.inv_inertia.push(i);
        }
        w
    }

    fn is_kinematic(&self, i: u32) -> bool {
        self.inv_mass[i as usize] == 0.0
    }
}

/// Picks a body no other lane of the batch writes: dynamic bodies at most once per batch (the
/// coloring invariant); kinematic bodies, only read, may repeat when `share_kinematic`.
fn pick_body(rng: &mut Rng, world: &World, used: &mut [bool], share_kinematic: bool) -> u32 {
    loop {
        let i = rng.below(world.states.len());
        let shareable = share_kinematic && world.is_kinematic(i as u32);
        if !used[i] || shareable {
            used[i] = true;
            return i as u32;
        }
    }
}

fn random_point(rng: &mut Rng, p: &mut PointLanes, l: usize, active: bool) {
    p.active[l] = if active { 1.0 } else { 0.0 };
    p.cross_a[l] = rng.spicy(1.0);
    p.dot_a[l] = rng.spicy(1.0);
    p.cross_b[l] = rng.spicy(1.0);
    p.dot_b[l] = rng.spicy(1.0);
    p.base_separation[l] = match rng.below(6) {
        0 => 0.0,
        1 => -0.0,
        // Speculative.
        2 | 3 => rng.range(0.0, 0.2),
        // Penetrating.
        _ => rng.range(-0.2, 0.0),
    };
    p.normal_impulse[l] = rng.nonneg(3.0);
    p.tangent_impulse[l] = rng.spicy(1.0);
    p.impact_impulse[l] = rng.nonneg(3.0);
}

/// Lane kinds of a random batch, mixed so that most batches hold several kinds at once.
#[derive(Clone, Copy, Debug, PartialEq)]
enum LaneKind {
    Padding,
    StaticA,
    StaticB,
    TwoBodies,
}

/// A batch of eight contacts over `world` whose written (dynamic) bodies are distinct. Padding
/// lanes are all zero, as `ContactBatch::zeroed` leaves them. Prepared fields (masses, relative
/// velocity, max impulse) hold random values too, so that every kernel can run on the batch
/// directly.
fn random_batch(
    rng: &mut Rng,
    world: &World,
    used: &mut [bool],
    share_kinematic: bool,
) -> ContactBatch {
    let mut c = ContactBatch::zeroed();
    let all_padding = rng.chance(0.02);
    for l in 0..LANES {
        let kind = if all_padding {
            LaneKind::Padding
        } else {
            match rng.below(10) {
                0 | 1 => LaneKind::Padding,
                2 => LaneKind::StaticA,
                3 => LaneKind::StaticB,
                _ => LaneKind::TwoBodies,
            }
        };
        if kind == LaneKind::Padding {
            c.body_a[l] = NULL_BODY;
            c.body_b[l] = NULL_BODY;
            continue;
        }
        let mut side = |is_static: bool| -> (u32, f32, f32) {
            if is_static {
                (NULL_BODY, 0.0, 0.0)
            } else {
                let i = pick_body(rng, world, used, share_kinematic);
                (i, world.inv_mass[i as usize], world.inv_inertia[i as usize])
            }
        };
        let (a, inv_mass_a, inv_inertia_a) = side(kind == LaneKind::StaticA);
        let (b, inv_mass_b, inv_inertia_b) = side(kind == LaneKind::StaticB);
        c.set_bodies(l, [a, b], [inv_mass_a, inv_mass_b]);
        (c.inv_inertia_a[l], c.inv_inertia_b[l]) = (inv_inertia_a, inv_inertia_b);

        [c.normal_x[l], c.normal_y[l]] = rng.unit_vec();
        c.friction[l] = if rng.chance(0.1) {
            0.0
        } else {
            rng.range(0.0, 1.0)
        };
        c.restitution[l] = if rng.chance(0.5) {
            0.0
        } else {
            rng.range(0.0, 1.0)
        };
        c.bias_rate[l] = if rng.chance(0.1) {
            0.0
        } else {
            rng.range(0.0, 100.0)
        };
        c.mass_scale[l] = rng.range(0.0, 1.0);
        c.max_push[l] = rng.range(0.5, 5.0);
        c.gravity_normal[l] = if rng.chance(0.5) {
            0.0
        } else {
            rng.range(-20.0, 20.0)
        };
        c.tangent_speed[l] = if rng.chance(0.7) {
            0.0
        } else {
            rng.range(-3.0, 3.0)
        };

        let two_points = rng.chance(0.5);
        random_point(rng, &mut c.points[0], l, true);
        if two_points || rng.chance(0.5) {
            // The second point: real, or an inactive one with leftover values.
            random_point(rng, &mut c.points[1], l, two_points);
        }
    }
    c
}

/// Checks the documented preconditions of the `unsafe` kernels on `batches`, which run one
/// after the other on `len` states: every index is `NULL_BODY` or in bounds, and within each
/// batch no written (dynamic) body appears twice, nor on both sides of one lane.
fn assert_batches_valid(batches: &[ContactBatch], len: usize) {
    for c in batches {
        let mut seen = Vec::new();
        for l in 0..LANES {
            for (i, m) in [
                (c.body_a[l], c.inv_mass_a[l]),
                (c.body_b[l], c.inv_mass_b[l]),
            ] {
                if i == NULL_BODY {
                    // (Padding lanes may hold leftovers; see `dirty_padding_lanes_never_write`.)
                    assert!(m == 0.0 || c.is_padding(l), "a static side carries no mass");
                    continue;
                }
                assert!(
                    (i as usize) < len,
                    "index {i} out of bounds of {len} states"
                );
                if m > 0.0 {
                    assert!(!seen.contains(&i), "dynamic body {i} twice in one batch");
                    seen.push(i);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Running the kernels.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Backend {
    /// The portable kernels (`wide`'s vectors).
    Simd,
    Scalar,
    /// The same kernels compiled for AVX2 and AVX-512, called where the CPU has them.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// The instruction sets that `BATCH2D_REQUIRE_ISA` names (comma-separated: `avx2,avx512`; CI
/// sets it from the CPU's flags), after checking that this CPU has each: a missing one fails the
/// tests instead of leaving its kernels untested without a word.
fn required_instruction_sets() -> Vec<InstructionSet> {
    let Ok(names) = std::env::var("BATCH2D_REQUIRE_ISA") else {
        return Vec::new();
    };
    let names = names.split(',').map(str::trim).filter(|n| !n.is_empty());
    names
        .map(|name| {
            let set = InstructionSet::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .unwrap_or_else(|| panic!("BATCH2D_REQUIRE_ISA: no instruction set {name:?}"));
            assert!(
                set.is_supported(),
                "BATCH2D_REQUIRE_ISA requires {name}, which this CPU cannot run"
            );
            set
        })
        .collect()
}

#[test]
fn every_required_instruction_set_is_supported() {
    let required = required_instruction_sets();
    let sets = other_instruction_sets();
    #[cfg(target_arch = "x86_64")]
    for set in required {
        let backend = match set {
            InstructionSet::Portable => continue,
            InstructionSet::Avx2 => Backend::Avx2,
            InstructionSet::Avx512 => Backend::Avx512,
        };
        assert!(sets.contains(&backend), "{set:?}");
    }
    #[cfg(not(target_arch = "x86_64"))]
    assert!(
        required.iter().all(|&s| s == InstructionSet::Portable),
        "{required:?}"
    );
}

/// The instruction sets this CPU has besides the portable one: their kernels must give the
/// portable kernels' bits too. Fails where one that `BATCH2D_REQUIRE_ISA` names is missing.
fn other_instruction_sets() -> Vec<Backend> {
    required_instruction_sets();
    #[cfg(target_arch = "x86_64")]
    {
        let sets = [
            (InstructionSet::Avx2, Backend::Avx2),
            (InstructionSet::Avx512, Backend::Avx512),
        ];
        sets.into_iter()
            .filter(|(set, _)| set.is_supported())
            .map(|(_, backend)| backend)
            .collect()
    }
    #[cfg(not(target_arch = "x86_64"))]
    Vec::new()
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Prepare,
    WarmStart,
    Solve(SolveParams),
    /// The one-point variants, for batches whose contacts all have one point.
    WarmStartOnePoint,
    SolveOnePoint(SolveParams),
    /// Runs only if `is_bouncy()`, as the engine does.
    Impact(ImpactParams),
}

/// Runs `op` on every batch in order; returns, per batch, whether the kernel ran (impact may
/// be skipped).
fn run(
    backend: Backend,
    op: Op,
    batches: &mut [ContactBatch],
    states: &mut [BodyState],
) -> Vec<bool> {
    assert_batches_valid(batches, states.len());
    // The kernels read and write a copy behind the identity row, copied back at the end.
    let mut rows = StateRows::from_states(states);
    let view = States::new(&mut rows);
    let mut ran = Vec::with_capacity(batches.len());
    for c in batches.iter_mut() {
        if let Op::Impact(_) = op {
            if !c.is_bouncy() {
                ran.push(false);
                continue;
            }
        }
        // SAFETY: `assert_batches_valid` checked that every index of `c` is NULL_BODY or below
        // `states.len()` (the view's length), and that the dynamic (written) bodies of `c` are
        // distinct; kinematic bodies may repeat but are only read. The batches run one after
        // the other on this thread, and `states` is borrowed mutably for the whole call, so
        // nothing else touches the states meanwhile.
        unsafe {
            // The modules of every backend name their kernels alike.
            macro_rules! kernel {
                ($m:ident) => {
                    match op {
                        Op::Prepare => $m::prepare(c),
                        Op::WarmStart => $m::warm_start(c, view),
                        Op::Solve(p) => $m::solve(c, view, &p),
                        Op::WarmStartOnePoint => $m::warm_start_one_point(c, view),
                        Op::SolveOnePoint(p) => $m::solve_one_point(c, view, &p),
                        Op::Impact(p) => $m::impact(c, view, &p),
                    }
                };
            }
            match backend {
                Backend::Simd => kernel!(simd),
                Backend::Scalar => kernel!(scalar),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx2 => kernel!(avx2),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx512 => kernel!(avx512),
            }
        }
        ran.push(true);
    }
    states.copy_from_slice(&rows);
    ran
}

fn random_solve_params(rng: &mut Rng, use_bias: bool) -> SolveParams {
    SolveParams {
        inv_h: [60.0, 240.0, 480.0, 960.0][rng.below(4)],
        use_bias,
    }
}

fn random_impact_params(rng: &mut Rng) -> ImpactParams {
    let dt = [1.0 / 30.0, 1.0 / 60.0, 1.0 / 240.0][rng.below(3)];
    ImpactParams {
        dt,
        h: dt / [1.0, 4.0, 8.0][rng.below(3)],
        margin: [0.0, 0.005, 0.05][rng.below(3)],
        threshold: [0.0, 0.5, 1.0, 2.0][rng.below(4)],
        gravity_reach: [0.0, 10.0 * dt][rng.below(2)],
    }
}

// ---------------------------------------------------------------------------------------------
// Bitwise comparison with readable diagnostics.
// ---------------------------------------------------------------------------------------------

const BATCH_FIELDS: [&str; 19] = [
    "body_a",
    "body_b",
    "word_a",
    "word_b",
    "normal_x",
    "normal_y",
    "friction",
    "restitution",
    "inv_mass_a",
    "inv_inertia_a",
    "inv_mass_b",
    "inv_inertia_b",
    "bias_rate",
    "mass_scale",
    "max_push",
    "gravity_normal",
    "tangent_speed",
    "writes_a",
    "writes_b",
];
const POINT_FIELDS: [&str; 9] = [
    "active",
    "cross_a",
    "dot_a",
    "cross_b",
    "dot_b",
    "base_separation",
    "normal_impulse",
    "tangent_impulse",
    "impact_impulse",
];
const STATE_FIELDS: [&str; 8] = ["v.x", "v.y", "w", "pad", "dp.x", "dp.y", "dq.c", "dq.s"];

// The field tables above describe the whole of each struct, with no padding.
const _: () = assert!(
    std::mem::size_of::<ContactBatch>() == (BATCH_FIELDS.len() + 2 * POINT_FIELDS.len()) * 32
);
const _: () = assert!(std::mem::size_of::<PointLanes>() == POINT_FIELDS.len() * 32);
const _: () = assert!(std::mem::size_of::<BodyState>() == STATE_FIELDS.len() * 4);

/// Names 32-bit word `w` of a `ContactBatch`.
fn batch_word_name(w: usize) -> String {
    let (array, lane) = (w / LANES, w % LANES);
    if array < BATCH_FIELDS.len() {
        format!("{}[{lane}]", BATCH_FIELDS[array])
    } else {
        let rest = array - BATCH_FIELDS.len();
        let (point, field) = (rest / POINT_FIELDS.len(), rest % POINT_FIELDS.len());
        format!("points[{point}].{}[{lane}]", POINT_FIELDS[field])
    }
}

/// Names 32-bit word `w` of a slice of `ContactBatch`es.
fn batches_word_name(w: usize) -> String {
    let per = std::mem::size_of::<ContactBatch>() / 4;
    format!("batch {} {}", w / per, batch_word_name(w % per))
}

fn state_word_name(w: usize) -> String {
    format!("states[{}].{}", w / 8, STATE_FIELDS[w % 8])
}

/// How two output words must agree.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmp {
    /// Every bit.
    Bits,
    /// Every bit, except that any NaN matches any NaN.
    NanIsNan,
}

impl Cmp {
    fn same(self, x: u32, y: u32) -> bool {
        let nan = |w: u32| f32::from_bits(w).is_nan();
        x == y || (self == Cmp::NanIsNan && nan(x) && nan(y))
    }
}

fn word_diffs(a: &[u32], b: &[u32], name: fn(usize) -> String, cmp: Cmp) -> Vec<String> {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .enumerate()
        .filter(|(_, (x, y))| !cmp.same(**x, **y))
        .map(|(w, (x, y))| {
            format!(
                "{}: {:#010x} ({:e}) vs {:#010x} ({:e})",
                name(w),
                x,
                f32::from_bits(*x),
                y,
                f32::from_bits(*y)
            )
        })
        .collect()
}

fn batch_words(batches: &[ContactBatch]) -> &[u32] {
    bytemuck::cast_slice(batches)
}

fn state_words(states: &[BodyState]) -> &[u32] {
    bytemuck::cast_slice(states)
}

/// Every bit of the SIMD results against every bit of the scalar results.
fn assert_twins(
    what: &dyn std::fmt::Display,
    cmp: Cmp,
    simd: (&[ContactBatch], &[BodyState]),
    scalar: (&[ContactBatch], &[BodyState]),
) {
    let mut diffs = Vec::new();
    let (sb, sc) = (batch_words(simd.0), batch_words(scalar.0));
    assert_eq!(sb.len(), sc.len());
    if sb != sc {
        for (w, (x, y)) in sb.iter().zip(sc).enumerate() {
            if !cmp.same(*x, *y) {
                diffs.push(format!(
                    "{}: simd {:#010x} ({:e}) vs scalar {:#010x} ({:e})",
                    batches_word_name(w),
                    x,
                    f32::from_bits(*x),
                    y,
                    f32::from_bits(*y)
                ));
            }
        }
    }
    diffs.extend(word_diffs(
        state_words(simd.1),
        state_words(scalar.1),
        state_word_name,
        cmp,
    ));
    assert!(
        diffs.is_empty(),
        "{what}: SIMD and scalar twins diverge in {} words (simd vs scalar):\n  {}",
        diffs.len(),
        diffs.join("\n  ")
    );
}

/// Bodies a batch may write: a real index with a non-zero inverse mass.
fn writable(batches: &[ContactBatch], len: usize) -> Vec<bool> {
    let mut w = vec![false; len];
    for c in batches {
        for l in 0..LANES {
            for (i, m) in [
                (c.body_a[l], c.inv_mass_a[l]),
                (c.body_b[l], c.inv_mass_b[l]),
            ] {
                if i != NULL_BODY && m > 0.0 {
                    w[i as usize] = true;
                }
            }
        }
    }
    w
}

/// The engine's states have `pad == 0` (they start from `BodyState::IDENTITY` or
/// `with_velocity`, and every kernel write stores 0). Gives the bodies `batches` may write that
/// pad, and leaves the random sentinel on every other body, so that a stray write shows even
/// when it stores unchanged values.
///
/// (With a non-zero pad on a written body the twins diverge: see
/// `scalar_prepare_writes_back_states`.)
fn zero_written_pads(states: &mut [BodyState], batches: &[ContactBatch]) {
    let written = writable(batches, states.len());
    for (s, w) in states.iter_mut().zip(written) {
        if w {
            s.pad = 0.0;
        }
    }
}

/// States that no lane may write (unreferenced, only behind null sides or padding, or
/// kinematic) keep every bit, the `pad` sentinel included.
fn assert_untouched(
    what: &dyn std::fmt::Display,
    batches: &[ContactBatch],
    before: &[BodyState],
    after: &[BodyState],
) {
    let w = writable(batches, before.len());
    for (i, (b, a)) in before.iter().zip(after).enumerate() {
        if !w[i] {
            let diffs = word_diffs(
                state_words(std::slice::from_ref(b)),
                state_words(std::slice::from_ref(a)),
                |f| STATE_FIELDS[f].to_string(),
                Cmp::Bits,
            );
            assert!(
                diffs.is_empty(),
                "{what}: state {i}, not written by any lane, changed: {}",
                diffs.join(", ")
            );
        }
    }
}

/// A zeroed padding lane stays zeroed under the SIMD kernels (the scalar twin skips it).
fn assert_padding_zero(what: &dyn std::fmt::Display, batches: &[ContactBatch]) {
    for (bi, c) in batches.iter().enumerate() {
        for l in (0..LANES).filter(|&l| c.is_padding(l)) {
            let words = batch_words(std::slice::from_ref(c));
            for (w, &x) in words.iter().enumerate() {
                let lane_word = w % LANES == l && w >= 2 * LANES;
                assert!(
                    !lane_word || x == 0,
                    "{what}: batch {bi} padding lane {l}: {} = {:#010x}",
                    batch_word_name(w),
                    x
                );
            }
        }
    }
}

/// After a solve: normal impulses are >= 0 and every friction impulse lies in the Coulomb cone
/// |tangent| <= friction * normal.
fn assert_friction_cone(what: &dyn std::fmt::Display, batches: &[ContactBatch]) {
    for (bi, c) in batches.iter().enumerate() {
        for l in 0..LANES {
            for (pi, p) in c.points.iter().enumerate() {
                let (n, t) = (p.normal_impulse[l], p.tangent_impulse[l]);
                assert!(
                    n >= 0.0,
                    "{what}: batch {bi} lane {l} point {pi}: normal impulse {n}"
                );
                assert!(
                    t.abs() <= c.friction[l] * n,
                    "{what}: batch {bi} lane {l} point {pi}: |tangent impulse| {} > friction {} * normal {n}",
                    t.abs(),
                    c.friction[l]
                );
            }
        }
    }
}

/// Runs `op` on both backends from the same inputs and compares everything: the twins'
/// outputs, the states no lane may write, zeroed padding lanes, and (for finite inputs) the
/// friction cone after a solve.
fn check_op(
    what: &dyn std::fmt::Display,
    inputs: Inputs,
    op: Op,
    batches: &[ContactBatch],
    states: &[BodyState],
) -> (Vec<ContactBatch>, Vec<BodyState>) {
    let (mut b_simd, mut s_simd) = (batches.to_vec(), states.to_vec());
    let (mut b_scalar, mut s_scalar) = (batches.to_vec(), states.to_vec());
    let ran_simd = run(Backend::Simd, op, &mut b_simd, &mut s_simd);
    let ran_scalar = run(Backend::Scalar, op, &mut b_scalar, &mut s_scalar);
    assert_eq!(
        ran_simd, ran_scalar,
        "{what}: the backends disagree on which batches run"
    );
    assert_twins(
        what,
        inputs.cmp(),
        (&b_simd, &s_simd),
        (&b_scalar, &s_scalar),
    );
    assert_untouched(what, batches, states, &s_simd);
    assert_untouched(what, batches, states, &s_scalar);
    assert_padding_zero(what, &b_simd);
    if let (Op::Solve(_), Inputs::Finite) = (op, inputs) {
        assert_friction_cone(what, &b_simd);
        assert_friction_cone(what, &b_scalar);
    }
    for backend in other_instruction_sets() {
        let (mut b_other, mut s_other) = (batches.to_vec(), states.to_vec());
        let ran = run(backend, op, &mut b_other, &mut s_other);
        assert_eq!(ran, ran_scalar, "{what}: {backend:?} runs other batches");
        let what = format!("{what} ({backend:?})");
        assert_twins(
            &what,
            inputs.cmp(),
            (&b_other, &s_other),
            (&b_scalar, &s_scalar),
        );
        assert_untouched(&what, batches, states, &s_other);
    }
    (b_simd, s_simd)
}

struct Ctx<'a> {
    seed: u64,
    what: &'a str,
}

impl std::fmt::Display for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seed {} {}", self.seed, self.what)
    }
}

// ---------------------------------------------------------------------------------------------
// Contact kernels: one kernel at a time.
// ---------------------------------------------------------------------------------------------

const SEEDS: u64 = 2000;
const BODIES: usize = 64;

/// The five kernels on one random batch (fields not yet prepared), then the iteration kernels
/// again on the prepared batch. Returns whether the impact kernel ran on the raw batch.
fn contact_kernels_case(seed: u64, inputs: Inputs) -> bool {
    let mut rng = Rng::with_inputs(seed, inputs);
    let world = World::random(&mut rng, BODIES);
    let mut used = vec![false; BODIES];
    let share = rng.chance(0.5);
    let batch = [random_batch(&mut rng, &world, &mut used, share)];
    let mut states = world.states.clone();
    zero_written_pads(&mut states, &batch);
    let impact = random_impact_params(&mut rng);

    let ops = [
        ("prepare", Op::Prepare),
        ("warm_start", Op::WarmStart),
        (
            "solve(bias)",
            Op::Solve(random_solve_params(&mut rng, true)),
        ),
        (
            "solve(relax)",
            Op::Solve(random_solve_params(&mut rng, false)),
        ),
        ("impact", Op::Impact(impact)),
    ];
    for (name, op) in ops {
        check_op(&Ctx { seed, what: name }, inputs, op, &batch, &states);
    }

    // The same kernels on a prepared batch, as in a real step.
    let what = Ctx {
        seed,
        what: "prepare",
    };
    let (prepared, states) = check_op(&what, inputs, Op::Prepare, &batch, &states);
    let ops = [
        ("prepared warm_start", Op::WarmStart),
        (
            "prepared solve(bias)",
            Op::Solve(random_solve_params(&mut rng, true)),
        ),
        (
            "prepared solve(relax)",
            Op::Solve(random_solve_params(&mut rng, false)),
        ),
    ];
    for (name, op) in ops {
        check_op(&Ctx { seed, what: name }, inputs, op, &prepared, &states);
    }
    batch[0].is_bouncy()
}

#[test]
fn contact_kernels_match_bit_for_bit() {
    let ran = (0..SEEDS)
        .filter(|&seed| contact_kernels_case(seed, Inputs::Finite))
        .count();
    // The random inputs exercise the impact kernel, not only its skip.
    assert!(ran > SEEDS as usize / 4, "impact ran on {ran} batches");
}

// ---------------------------------------------------------------------------------------------
// Contact kernels: whole sequences over several batches (graph colors) sharing the states.
// ---------------------------------------------------------------------------------------------

/// Several batches, each valid on its own: bodies repeat across batches, not within one.
fn random_colors(rng: &mut Rng, world: &World) -> Vec<ContactBatch> {
    let n = 1 + rng.below(4);
    (0..n)
        .map(|_| {
            let mut used = vec![false; world.states.len()];
            let share = rng.chance(0.5);
            random_batch(rng, world, &mut used, share)
        })
        .collect()
}

/// Runs a step's kernels on one backend: prepare, two impact passes (on bouncy batches), 4 x
/// [warm start, solve, relax]; warm start, solve and relax are the one-point variants when
/// `one_point`. With `integrate`, the substeps also integrate velocities (before the warm
/// start) and positions (between solve and relax) with the same backend's kernels. Returns how
/// many batches the impact passes ran on.
#[allow(clippy::too_many_arguments)]
fn run_sequence(
    backend: Backend,
    one_point: bool,
    inputs: Inputs,
    batches: &mut [ContactBatch],
    states: &mut [BodyState],
    params_seed: u64,
    integrate: Option<(&BodyParams, &IntegrateParams)>,
) -> usize {
    // Both backends draw the same parameters from the same seed.
    let mut rng = Rng::new(params_seed);
    let impact = random_impact_params(&mut rng);
    run(backend, Op::Prepare, batches, states);
    let mut ran = 0;
    for _ in 0..2 {
        let bouncy = run(backend, Op::Impact(impact), batches, states);
        ran += bouncy.iter().filter(|&&r| r).count();
    }
    for _ in 0..4 {
        if let Some((body, p)) = integrate {
            match backend {
                Backend::Simd => integrate_velocities_simd(states, *body, p),
                Backend::Scalar => integrate_velocities_scalar(states, *body, p),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx2 => avx2::integrate_velocities(states, *body, p),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx512 => avx512::integrate_velocities(states, *body, p),
            }
        }
        let (warm_start, solve): (_, fn(SolveParams) -> Op) = match one_point {
            true => (Op::WarmStartOnePoint, Op::SolveOnePoint),
            false => (Op::WarmStart, Op::Solve),
        };
        run(backend, warm_start, batches, states);
        run(
            backend,
            solve(random_solve_params(&mut rng, true)),
            batches,
            states,
        );
        if let Some((_, p)) = integrate {
            match backend {
                Backend::Simd => integrate_positions_simd(states, p.h),
                Backend::Scalar => integrate_positions_scalar(states, p.h),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx2 => avx2::integrate_positions(states, p.h),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx512 => avx512::integrate_positions(states, p.h),
            }
        }
        run(
            backend,
            solve(random_solve_params(&mut rng, false)),
            batches,
            states,
        );
        if inputs == Inputs::Finite {
            assert_friction_cone(&format!("{backend:?} sequence"), batches);
        }
    }
    ran
}

/// Random per-body integration constants for `world`: no gravity on kinematic bodies.
fn random_body_params(rng: &mut Rng, world: &World) -> [Vec<f32>; 3] {
    let n = world.states.len();
    let gravity_scale = (0..n)
        .map(|i| {
            if world.is_kinematic(i as u32) {
                0.0
            } else {
                rng.range(0.0, 2.0)
            }
        })
        .collect();
    let linear_damping = (0..n).map(|_| rng.range(0.0, 1.0)).collect();
    let angular_damping = (0..n).map(|_| rng.range(0.0, 1.0)).collect();
    [gravity_scale, linear_damping, angular_damping]
}

/// A sequence's random inputs: bodies, batches over them, and the step's parameters.
struct SequenceInputs {
    world: World,
    batches: Vec<ContactBatch>,
    params_seed: u64,
    /// Gravity scale, linear and angular damping per body.
    body: [Vec<f32>; 3],
    integrate: IntegrateParams,
}

impl SequenceInputs {
    /// Draws them from `rng`; `edit_world` may change the bodies before the batches over them
    /// are drawn, `edit_batches` the batches after.
    fn draw(
        rng: &mut Rng,
        edit_world: impl FnOnce(&mut Rng, &mut World),
        edit_batches: impl FnOnce(&mut [ContactBatch]),
    ) -> SequenceInputs {
        let mut world = World::random(rng, BODIES);
        edit_world(rng, &mut world);
        let mut batches = random_colors(rng, &world);
        edit_batches(&mut batches);
        zero_written_pads(&mut world.states, &batches);
        let params_seed = rng.next_u64();
        let body = random_body_params(rng, &world);
        let integrate = random_integrate_params(rng);
        SequenceInputs {
            world,
            batches,
            params_seed,
            body,
            integrate,
        }
    }

    fn body_params(&self) -> BodyParams<'_> {
        let [gravity_scale, linear_damping, angular_damping] = &self.body;
        BodyParams {
            gravity_scale,
            linear_damping,
            angular_damping,
            acceleration: None,
            spin_bound: None,
        }
    }
}

/// One whole sequence on both backends from the same inputs; returns how many batches the
/// impact passes ran on.
fn sequence_case(seed: u64, inputs: Inputs, integrate: bool) -> usize {
    let mut rng = Rng::with_inputs(seed ^ 0x5EC0_0000, inputs);
    let drawn = SequenceInputs::draw(&mut rng, |_, _| {}, |_| {});
    let (world, batches, params_seed) = (&drawn.world, &drawn.batches, drawn.params_seed);
    let body = drawn.body_params();
    let integrate = integrate.then_some((&body, &drawn.integrate));

    let (mut b_simd, mut s_simd) = (batches.clone(), world.states.clone());
    let (mut b_scalar, mut s_scalar) = (batches.clone(), world.states.clone());
    let ran = run_sequence(
        Backend::Simd,
        false,
        inputs,
        &mut b_simd,
        &mut s_simd,
        params_seed,
        integrate,
    );
    let ran_scalar = run_sequence(
        Backend::Scalar,
        false,
        inputs,
        &mut b_scalar,
        &mut s_scalar,
        params_seed,
        integrate,
    );
    let what = Ctx {
        seed,
        what: if integrate.is_some() {
            "substep sequence"
        } else {
            "sequence"
        },
    };
    assert_eq!(ran, ran_scalar, "{what}: impact ran on other batches");
    assert_twins(
        &what,
        inputs.cmp(),
        (&b_simd, &s_simd),
        (&b_scalar, &s_scalar),
    );
    if integrate.is_none() {
        // (Integration writes every state.)
        assert_untouched(&what, batches, &world.states, &s_simd);
        assert_untouched(&what, batches, &world.states, &s_scalar);
    }
    assert_padding_zero(&what, &b_simd);
    for backend in other_instruction_sets() {
        let (mut b_other, mut s_other) = (batches.clone(), world.states.clone());
        let ran_other = run_sequence(
            backend,
            false,
            inputs,
            &mut b_other,
            &mut s_other,
            params_seed,
            integrate,
        );
        assert_eq!(
            ran_other, ran_scalar,
            "{what}: {backend:?}: impact ran on other batches"
        );
        assert_twins(
            &format!("{what} ({backend:?})"),
            inputs.cmp(),
            (&b_other, &s_other),
            (&b_scalar, &s_scalar),
        );
    }
    ran
}

#[test]
fn contact_sequences_match_bit_for_bit() {
    let ran: usize = (0..SEEDS / 2)
        .map(|seed| sequence_case(seed, Inputs::Finite, false))
        .sum();
    assert!(ran > 0, "impact never ran in a sequence");
}

#[test]
fn substep_sequences_with_integration_match_bit_for_bit() {
    for seed in 0..SEEDS / 2 {
        sequence_case(seed, Inputs::Finite, true);
    }
}

// ---------------------------------------------------------------------------------------------
// One-point kernels.
// ---------------------------------------------------------------------------------------------

/// Sequences over batches whose contacts all have one point, point 1 all zero as the packing
/// leaves it: the one-point kernels match their scalar twins, and give every bit of every batch
/// and state that the two-point kernels give, so a contact may be packed in either kind of
/// batch. Half the sequences integrate too.
#[test]
fn one_point_kernels_give_the_two_point_bits() {
    for seed in 0..4 * SEEDS {
        let mut rng = Rng::new(seed ^ 0x0_1E70);
        // Many bodies at rest, with either sign of zero: where the two kernels could part is
        // in the sign of a zero sum.
        let at_rest = |rng: &mut Rng, world: &mut World| {
            for s in &mut world.states {
                if rng.chance(0.5) {
                    let mut zero = || if rng.chance(0.5) { 0.0 } else { -0.0 };
                    (s.v, s.w) = ([zero(), zero()], zero());
                }
            }
        };
        let one_point = |batches: &mut [ContactBatch]| {
            for c in batches {
                c.points[1] = PointLanes::zeroed();
            }
        };
        let drawn = SequenceInputs::draw(&mut rng, at_rest, one_point);
        let (world, batches, params_seed) = (&drawn.world, &drawn.batches, drawn.params_seed);
        let body = drawn.body_params();
        let integrate = (seed % 2 == 0).then_some((&body, &drawn.integrate));

        let mut out = Vec::new();
        for (backend, one_point) in [
            (Backend::Simd, true),
            (Backend::Scalar, true),
            (Backend::Simd, false),
        ] {
            let (mut b, mut s) = (batches.clone(), world.states.clone());
            let inputs = Inputs::Finite;
            run_sequence(
                backend,
                one_point,
                inputs,
                &mut b,
                &mut s,
                params_seed,
                integrate,
            );
            out.push((b, s));
        }
        let what = Ctx {
            seed,
            what: "one-point sequence",
        };
        assert_twins(
            &what,
            Cmp::Bits,
            (&out[0].0, &out[0].1),
            (&out[1].0, &out[1].1),
        );
        let diffs: Vec<String> = word_diffs(
            batch_words(&out[0].0),
            batch_words(&out[2].0),
            batches_word_name,
            Cmp::Bits,
        )
        .into_iter()
        .chain(word_diffs(
            state_words(&out[0].1),
            state_words(&out[2].1),
            state_word_name,
            Cmp::Bits,
        ))
        .collect();
        assert!(
            diffs.is_empty(),
            "{what}: one-point and two-point kernels diverge in {} words (one vs two):\n  {}",
            diffs.len(),
            diffs.join("\n  ")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Pair kernels.
// ---------------------------------------------------------------------------------------------

/// Runs `op` (a solve, of two points or one) on both batches at once with the pair kernel: the
/// portable one (`Backend::Simd`), the AVX2 or the AVX-512 one.
fn run_pair(backend: Backend, op: Op, batches: &mut [ContactBatch; 2], states: &mut [BodyState]) {
    assert_batches_valid(batches, states.len());
    let [first, second] = [&batches[..1], &batches[1..]].map(|b| writable(b, states.len()));
    assert!(
        !first.iter().zip(&second).any(|(&x, &y)| x && y),
        "the pair kernel needs batches that share no written body"
    );
    let mut rows = StateRows::from_states(states);
    let view = States::new(&mut rows);
    // SAFETY: checked above: indices in bounds, written bodies distinct within each batch and
    // across the two; this thread alone touches the states.
    unsafe {
        match (backend, op) {
            (Backend::Simd, Op::Solve(p)) => pair::solve(batches, view, &p),
            (Backend::Simd, Op::SolveOnePoint(p)) => pair::solve_one_point(batches, view, &p),
            #[cfg(target_arch = "x86_64")]
            (Backend::Avx2, Op::Solve(p)) => avx2::solve_pair(batches, view, &p),
            #[cfg(target_arch = "x86_64")]
            (Backend::Avx2, Op::SolveOnePoint(p)) => avx2::solve_one_point_pair(batches, view, &p),
            #[cfg(target_arch = "x86_64")]
            (Backend::Avx512, Op::Solve(p)) => avx512::solve_pair(batches, view, &p),
            #[cfg(target_arch = "x86_64")]
            (Backend::Avx512, Op::SolveOnePoint(p)) => {
                avx512::solve_one_point_pair(batches, view, &p)
            }
            _ => unreachable!("no pair kernel for {backend:?} {op:?}"),
        }
    }
    states.copy_from_slice(&rows);
}

/// Two batches of one graph color, over `world`: no written body appears in both.
fn random_color_pair(rng: &mut Rng, world: &World) -> [ContactBatch; 2] {
    let mut used = vec![false; world.states.len()];
    let share = rng.chance(0.5);
    [(); 2].map(|_| random_batch(rng, world, &mut used, share))
}

/// The pair kernels solve two batches of one color at once; each batch gets the bits the
/// scalar twin gives it alone, for raw and prepared batches, with finite, infinite and NaN
/// inputs (NaN payloads aside). Odd seeds solve one-point batches (point 1 all zero, as the
/// packing leaves it) with the one-point kernels.
#[test]
fn pair_kernels_give_each_batch_the_twin_bits() {
    for inputs in [Inputs::Finite, Inputs::Infinite, Inputs::Nan] {
        for seed in 0..SEEDS {
            let mut rng = Rng::with_inputs(seed ^ 0x9A12_0000, inputs);
            let world = World::random(&mut rng, BODIES);
            let mut batches = random_color_pair(&mut rng, &world);
            let one_point = seed % 2 == 1;
            if one_point {
                for c in &mut batches {
                    c.points[1] = PointLanes::zeroed();
                }
            }
            let mut states = world.states.clone();
            zero_written_pads(&mut states, &batches);
            if rng.chance(0.5) {
                run(Backend::Scalar, Op::Prepare, &mut batches, &mut states);
            }
            for use_bias in [true, false] {
                let params = random_solve_params(&mut rng, use_bias);
                let op = match one_point {
                    true => Op::SolveOnePoint(params),
                    false => Op::Solve(params),
                };
                let what = Ctx {
                    seed,
                    what: &format!("pair {op:?} ({inputs:?})"),
                };
                let (mut b_pair, mut s_pair) = (batches, states.clone());
                run_pair(Backend::Simd, op, &mut b_pair, &mut s_pair);
                let (mut b_scalar, mut s_scalar) = (batches, states.clone());
                run(Backend::Scalar, op, &mut b_scalar, &mut s_scalar);
                for backend in other_instruction_sets() {
                    let (mut b_avx, mut s_avx) = (batches, states.clone());
                    run_pair(backend, op, &mut b_avx, &mut s_avx);
                    assert_twins(
                        &format!("{what} ({backend:?})"),
                        inputs.cmp(),
                        (&b_avx, &s_avx),
                        (&b_scalar, &s_scalar),
                    );
                }
                assert_twins(
                    &what,
                    inputs.cmp(),
                    (&b_pair, &s_pair),
                    (&b_scalar, &s_scalar),
                );
                assert_untouched(&what, &batches, &states, &s_pair);
                assert_padding_zero(&what, &b_pair);
                (batches, states) = (b_pair, s_pair);
            }
        }
    }
}

/// Runs `op` (a warm start or a solve, of two points or one per batch as `one_point` says)
/// on a run of batches of one graph color with the run entry point of an x86 `backend`,
/// `paired` or not.
#[cfg(target_arch = "x86_64")]
fn run_run(
    backend: Backend,
    op: Op,
    paired: bool,
    batches: &mut [ContactBatch],
    one_point: &[bool],
    states: &mut [BodyState],
) {
    assert_batches_valid(batches, states.len());
    let mut rows = StateRows::from_states(states);
    let view = States::new(&mut rows);
    // SAFETY: checked above: indices in bounds; the caller draws the run's written bodies
    // distinct across its batches (one color); this thread alone touches the states.
    unsafe {
        match (backend, op) {
            (Backend::Avx2, Op::WarmStart) => avx2::warm_start_run(batches, one_point, view),
            (Backend::Avx2, Op::Solve(p)) => avx2::solve_run(batches, one_point, view, &p, paired),
            (Backend::Avx512, Op::WarmStart) => avx512::warm_start_run(batches, one_point, view),
            (Backend::Avx512, Op::Solve(p)) => {
                avx512::solve_run(batches, one_point, view, &p, paired)
            }
            _ => unreachable!("no run kernel for {backend:?} {op:?}"),
        }
    }
    states.copy_from_slice(&rows);
}

/// The run entry points give each batch of a color the bits of the single-batch kernels, one
/// after another, for runs of batches of one and two points in any order (the one-point ones
/// with point 1 all zero, as the packing leaves them), paired or not.
#[cfg(target_arch = "x86_64")]
#[test]
fn run_kernels_give_each_batch_its_own_bits() {
    for seed in 0..SEEDS / 8 {
        let mut rng = Rng::new(seed ^ 0x0052_0000);
        // Room for five batches of distinct written bodies.
        let world = World::random(&mut rng, 5 * 2 * LANES + BODIES);
        let mut used = vec![false; world.states.len()];
        let share = rng.chance(0.5);
        let n = 1 + rng.below(5);
        let mut batches: Vec<ContactBatch> = (0..n)
            .map(|_| random_batch(&mut rng, &world, &mut used, share))
            .collect();
        let one_point: Vec<bool> = (0..n).map(|_| rng.chance(0.5)).collect();
        for (c, &one) in batches.iter_mut().zip(&one_point) {
            if one {
                c.points[1] = PointLanes::zeroed();
            }
        }
        let mut states = world.states.clone();
        zero_written_pads(&mut states, &batches);
        run(Backend::Scalar, Op::Prepare, &mut batches, &mut states);
        for backend in other_instruction_sets() {
            let ops = [
                Op::WarmStart,
                Op::Solve(random_solve_params(&mut rng, true)),
                Op::Solve(random_solve_params(&mut rng, false)),
            ];
            for op in ops {
                // Batch by batch, each with its own kind's kernel.
                let (mut b_one, mut s_one) = (batches.clone(), states.clone());
                for (i, &one) in one_point.iter().enumerate() {
                    let op = match (op, one) {
                        (Op::WarmStart, true) => Op::WarmStartOnePoint,
                        (Op::Solve(p), true) => Op::SolveOnePoint(p),
                        (op, _) => op,
                    };
                    run(backend, op, &mut b_one[i..i + 1], &mut s_one);
                }
                for paired in [false, true] {
                    let what = Ctx {
                        seed,
                        what: &format!("run {op:?} ({backend:?}, paired {paired}, {one_point:?})"),
                    };
                    let (mut b_run, mut s_run) = (batches.clone(), states.clone());
                    run_run(backend, op, paired, &mut b_run, &one_point, &mut s_run);
                    assert_twins(&what, Cmp::Bits, (&b_run, &s_run), (&b_one, &s_one));
                }
                (batches, states) = (b_one, s_one);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Null, padding and kinematic lanes.
// ---------------------------------------------------------------------------------------------

/// Batches made only of padding lanes, static lanes against kinematic bodies and kinematic
/// pairs: nothing may be written, by either backend, whatever the kernel.
#[test]
fn null_and_kinematic_lanes_never_write() {
    for seed in 0..SEEDS / 4 {
        let mut rng = Rng::new(seed ^ 0x0_0D1E);
        let mut world = World::random(&mut rng, 16);
        for i in 0..world.states.len() {
            if rng.chance(0.5) {
                world.inv_mass[i] = 0.0;
                world.inv_inertia[i] = 0.0;
            }
        }
        let mut used = vec![false; world.states.len()];
        let mut c = random_batch(&mut rng, &world, &mut used, true);
        // Turn the lanes with a dynamic body into zeroed padding.
        for l in 0..LANES {
            let dynamic = |i: u32| i != NULL_BODY && !world.is_kinematic(i);
            if dynamic(c.body_a[l]) || dynamic(c.body_b[l]) {
                let words =
                    bytemuck::cast_slice_mut::<ContactBatch, u32>(std::slice::from_mut(&mut c));
                for w in words.iter_mut().skip(l).step_by(LANES) {
                    *w = 0;
                }
                c.body_a[l] = NULL_BODY;
                c.body_b[l] = NULL_BODY;
            }
        }
        let batch = [c];
        assert!(writable(&batch, world.states.len()).iter().all(|w| !w));
        for (name, op) in [
            ("prepare", Op::Prepare),
            ("warm_start", Op::WarmStart),
            (
                "solve(bias)",
                Op::Solve(random_solve_params(&mut rng, true)),
            ),
            (
                "solve(relax)",
                Op::Solve(random_solve_params(&mut rng, false)),
            ),
            ("impact", Op::Impact(random_impact_params(&mut rng))),
        ] {
            let what = Ctx { seed, what: name };
            let (_, after) = check_op(&what, Inputs::Finite, op, &batch, &world.states);
            // Every state, bit for bit, the random `pad` sentinels included (`check_op` has
            // already compared both backends).
            assert_eq!(
                state_words(&after),
                state_words(&world.states),
                "{what}: a state was written"
            );
        }
    }
}

/// `ContactBatch::clear` writes every field of its lane and no other lane: clearing all lanes
/// of a batch full of other bits gives an empty batch, which the packing relies on instead of
/// zeroing whole batches.
#[test]
fn clearing_every_lane_empties_any_batch() {
    let mut c = ContactBatch::zeroed();
    bytemuck::bytes_of_mut(&mut c).fill(0xA5);
    let mut empty = ContactBatch::zeroed();
    empty.body_a = [NULL_BODY; LANES];
    empty.body_b = [NULL_BODY; LANES];
    for l in 0..LANES {
        let before = c;
        c.clear(l);
        // Only lane l changed: every other lane still holds the 0xA5 bytes.
        let (now, was) = (
            batch_words(std::slice::from_ref(&c)),
            batch_words(std::slice::from_ref(&before)),
        );
        for (w, (a, b)) in now.iter().zip(was).enumerate() {
            if a != b {
                assert_eq!(
                    w % LANES,
                    l,
                    "clearing lane {l} wrote {}",
                    batch_word_name(w)
                );
            }
        }
    }
    let diffs = word_diffs(
        batch_words(std::slice::from_ref(&c)),
        batch_words(std::slice::from_ref(&empty)),
        batch_word_name,
        Cmp::Bits,
    );
    assert!(diffs.is_empty(), "fields left uncleared: {diffs:?}");
}

/// Padding lanes that hold leftover values (not zeroed) still never write a state, and the
/// real lanes of the batch stay bit-identical across backends. The padding lanes' own slots
/// are not compared between backends: the scalar twin skips padding lanes (checked: it leaves
/// them as they were) while the SIMD kernel computes them along with the others.
#[test]
fn dirty_padding_lanes_never_write() {
    for seed in 0..SEEDS / 4 {
        let mut rng = Rng::new(seed ^ 0xD1_7700);
        let mut world = World::random(&mut rng, BODIES);
        let mut used = vec![false; BODIES];
        let mut c = random_batch(&mut rng, &world, &mut used, false);
        zero_written_pads(&mut world.states, std::slice::from_ref(&c));
        // Fill every padding lane with the values of some other contact.
        let padding: Vec<usize> = (0..LANES).filter(|&l| c.is_padding(l)).collect();
        for l in padding {
            [c.normal_x[l], c.normal_y[l]] = rng.unit_vec();
            c.friction[l] = rng.range(0.0, 1.0);
            c.restitution[l] = rng.range(0.0, 1.0);
            c.inv_mass_a[l] = rng.range(0.0, 1.0);
            c.inv_inertia_b[l] = rng.range(0.0, 1.0);
            c.bias_rate[l] = rng.range(0.0, 100.0);
            c.mass_scale[l] = rng.range(0.0, 1.0);
            for p in &mut c.points {
                random_point(&mut rng, p, l, true);
            }
        }
        let batch = [c];
        for (name, op) in [
            ("prepare", Op::Prepare),
            ("warm_start", Op::WarmStart),
            (
                "solve(bias)",
                Op::Solve(random_solve_params(&mut rng, true)),
            ),
            (
                "solve(relax)",
                Op::Solve(random_solve_params(&mut rng, false)),
            ),
            ("impact", Op::Impact(random_impact_params(&mut rng))),
        ] {
            let what = Ctx { seed, what: name };
            let (mut b_simd, mut s_simd) = (batch.to_vec(), world.states.clone());
            let (mut b_scalar, mut s_scalar) = (batch.to_vec(), world.states.clone());
            run(Backend::Simd, op, &mut b_simd, &mut s_simd);
            run(Backend::Scalar, op, &mut b_scalar, &mut s_scalar);
            let diffs = word_diffs(
                state_words(&s_simd),
                state_words(&s_scalar),
                state_word_name,
                Cmp::Bits,
            );
            assert!(
                diffs.is_empty(),
                "{what}: states diverge:\n  {}",
                diffs.join("\n  ")
            );
            assert_untouched(&what, &batch, &world.states, &s_simd);
            assert_untouched(&what, &batch, &world.states, &s_scalar);
            let (ws, wc) = (batch_words(&b_simd), batch_words(&b_scalar));
            let before = batch_words(&batch);
            for (w, ((x, y), b)) in ws.iter().zip(wc).zip(before).enumerate() {
                if batch[0].is_padding(w % LANES) {
                    assert_eq!(y, b, "{what}: scalar wrote padding {}", batch_word_name(w));
                } else {
                    assert_eq!(x, y, "{what}: {} diverges", batch_word_name(w));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Integration kernels.
// ---------------------------------------------------------------------------------------------

fn random_integrate_params(rng: &mut Rng) -> IntegrateParams {
    IntegrateParams {
        h: if rng.chance(0.5) {
            1.0 / 240.0
        } else {
            rng.range(1e-4, 0.05)
        },
        gravity: if rng.chance(0.5) {
            [0.0, -10.0]
        } else {
            [rng.spicy(20.0), rng.spicy(20.0)]
        },
        max_linear_speed: rng.range(1.0, 50.0),
        max_angular_speed: rng.range(1.0, 60.0),
    }
}

fn random_states(rng: &mut Rng, n: usize, speed: f32, spin: f32) -> Vec<BodyState> {
    (0..n)
        .map(|_| BodyState {
            v: [rng.spicy(speed), rng.spicy(speed)],
            w: rng.spicy(spin),
            pad: rng.bits(),
            dp: [rng.spicy(1.0), rng.spicy(1.0)],
            dq: match rng.below(8) {
                0 => [1.0, 0.0],
                // Degenerate rotation: exercises the zero-magnitude branch.
                1 => [0.0, 0.0],
                _ => rng.unit_vec(),
            },
        })
        .collect()
}

/// `integrate_velocities_*` on 0..=40 states (the SIMD kernel's scalar tail included): speeds
/// and spins up to twice the caps, zero / unit / random gravity scales, zero / moderate / huge
/// damping.
fn integrate_velocities_case(seed: u64, inputs: Inputs) {
    let mut rng = Rng::with_inputs(seed ^ 0x7E10_C000, inputs);
    let n = rng.below(41);
    let p = random_integrate_params(&mut rng);
    let states = random_states(
        &mut rng,
        n,
        2.0 * p.max_linear_speed,
        2.0 * p.max_angular_speed,
    );
    let gravity_scale: Vec<f32> = (0..n)
        .map(|_| match rng.below(4) {
            0 => 0.0,
            1 => 1.0,
            _ => rng.spicy(3.0),
        })
        .collect();
    let mut damping = || -> Vec<f32> {
        (0..n)
            .map(|_| match rng.below(5) {
                0 | 1 => 0.0,
                2 => rng.range(0.0, 1e4),
                _ => rng.range(0.0, 5.0),
            })
            .collect()
    };
    let (linear_damping, angular_damping) = (damping(), damping());
    // User forces on half the cases: zero, moderate and huge accelerations.
    let forced = rng.chance(0.5);
    let mut acceleration = || -> Vec<f32> {
        (0..n)
            .map(|_| match rng.below(4) {
                0 => 0.0,
                1 => rng.spicy(1e38),
                _ => rng.spicy(50.0),
            })
            .collect()
    };
    let (ax, ay, alpha) = (acceleration(), acceleration(), acceleration());
    // Bounds on the spin of bodies in contact on half the cases: none (infinite) on some
    // bodies, tighter than the cap on others.
    let bounded = rng.chance(0.5);
    let spin_bound: Vec<f32> = (0..n)
        .map(|_| match rng.below(3) {
            0 => f32::INFINITY,
            _ => rng.range(0.0, 1.5 * p.max_angular_speed),
        })
        .collect();
    let body = BodyParams {
        gravity_scale: &gravity_scale,
        linear_damping: &linear_damping,
        angular_damping: &angular_damping,
        acceleration: forced.then_some(Accelerations {
            x: &ax,
            y: &ay,
            angular: &alpha,
        }),
        spin_bound: bounded.then_some(&spin_bound[..]),
    };

    let (mut a, mut b) = (states.clone(), states.clone());
    integrate_velocities_simd(&mut a, body, &p);
    integrate_velocities_scalar(&mut b, body, &p);
    let diffs = word_diffs(
        state_words(&a),
        state_words(&b),
        state_word_name,
        inputs.cmp(),
    );
    assert!(
        diffs.is_empty(),
        "seed {seed} n {n}: integrate_velocities diverge:\n  {}",
        diffs.join("\n  ")
    );
    if inputs != Inputs::Finite {
        return;
    }
    for (k, (s, s0)) in a.iter().zip(&states).enumerate() {
        // The caps hold (up to the rounding of the rescale), and positions are untouched.
        let speed = (s.v[0] * s.v[0] + s.v[1] * s.v[1]).sqrt();
        assert!(
            speed <= p.max_linear_speed * (1.0 + 1e-5),
            "seed {seed}: speed {speed}"
        );
        let bound = match bounded {
            true => spin_bound[k].min(p.max_angular_speed),
            false => p.max_angular_speed,
        };
        assert!(s.w.abs() <= bound, "seed {seed}: spin {}", s.w);
        let motion = |s: &BodyState| [s.dp, s.dq].map(|x| x.map(f32::to_bits));
        assert_eq!(motion(s), motion(s0), "seed {seed}: dp or dq changed");
    }
}

/// `integrate_positions_*` on 0..=40 states: fast spins, unit and degenerate rotations.
fn integrate_positions_case(seed: u64, inputs: Inputs) {
    let mut rng = Rng::with_inputs(seed ^ 0x905_0000, inputs);
    let n = rng.below(41);
    let h = if rng.chance(0.5) {
        1.0 / 240.0
    } else {
        rng.range(1e-4, 0.05)
    };
    let states = random_states(&mut rng, n, 100.0, 100.0);
    let (mut a, mut b) = (states.clone(), states.clone());
    integrate_positions_simd(&mut a, h);
    integrate_positions_scalar(&mut b, h);
    let diffs = word_diffs(
        state_words(&a),
        state_words(&b),
        state_word_name,
        inputs.cmp(),
    );
    assert!(
        diffs.is_empty(),
        "seed {seed} n {n}: integrate_positions diverge:\n  {}",
        diffs.join("\n  ")
    );
    if inputs != Inputs::Finite {
        return;
    }
    for (s, s0) in a.iter().zip(&states) {
        // Rotations stay unit (or zero when degenerate); velocities are untouched.
        let mag = (s.dq[0] * s.dq[0] + s.dq[1] * s.dq[1]).sqrt();
        assert!(
            mag == 0.0 || (mag - 1.0).abs() < 1e-6,
            "seed {seed}: |dq| = {mag}"
        );
        let velocity = |s: &BodyState| [s.v[0], s.v[1], s.w].map(f32::to_bits);
        assert_eq!(velocity(s), velocity(s0), "seed {seed}: velocity changed");
        // The turn is w h exactly, up to a few roundings, within four turns per substep.
        let turn = h as f64 * s0.w as f64;
        if mag > 0.0 && turn.abs() <= 8.0 * std::f64::consts::PI {
            let (c0, s0) = (s0.dq[0] as f64, s0.dq[1] as f64);
            let norm = (c0 * c0 + s0 * s0).sqrt();
            let (c0, s0) = (c0 / norm, s0 / norm);
            let (want_c, want_s) = (
                turn.cos() * c0 - turn.sin() * s0,
                turn.sin() * c0 + turn.cos() * s0,
            );
            let error = (s.dq[1] as f64 * want_c - s.dq[0] as f64 * want_s).abs();
            assert!(error < 1e-5, "seed {seed}: turn {turn} off by {error} rad");
        }
    }
}

/// The columns `finish_*` writes: centres, rotations, linear and angular velocities.
#[derive(Clone, Debug)]
struct Poses {
    center: Vec<[f32; 2]>,
    rotation: Vec<[f32; 2]>,
    linear_velocity: Vec<[f32; 2]>,
    angular_velocity: Vec<f32>,
}

impl Poses {
    fn columns(&mut self) -> PoseColumns<'_> {
        PoseColumns {
            center: &mut self.center,
            rotation: &mut self.rotation,
            linear_velocity: &mut self.linear_velocity,
            angular_velocity: &mut self.angular_velocity,
        }
    }

    /// Every word, slot after slot: centre, rotation, linear velocity, angular velocity.
    fn words(&self) -> Vec<u32> {
        (0..self.center.len())
            .flat_map(|i| {
                let [c, r, v] = [self.center[i], self.rotation[i], self.linear_velocity[i]];
                [c[0], c[1], r[0], r[1], v[0], v[1], self.angular_velocity[i]]
            })
            .map(f32::to_bits)
            .collect()
    }
}

fn pose_word_name(w: usize) -> String {
    let field = ["cx", "cy", "qc", "qs", "vx", "vy", "w"][w % 7];
    format!("slot {} {field}", w / 7)
}

/// `finish_*` on 0..=40 slots (the SIMD kernel's runs of eight and its tail): slots without a
/// state among them now and then, states in any order, degenerate rotations; every backend
/// gives the scalar twin's bits, and with finite inputs the rotations come out unit, the
/// speeds within the caps, and the slots without a state untouched.
fn finish_case(seed: u64, inputs: Inputs) {
    let mut rng = Rng::with_inputs(seed ^ 0xF1_0000, inputs);
    let n = rng.below(41);
    let count = rng.below(41) + 1;
    let states = random_states(&mut rng, count, 100.0, 100.0);
    let sparse = rng.chance(0.5);
    let state_of: Vec<u32> = (0..n)
        .map(|_| match sparse && rng.chance(0.2) {
            true => NULL_BODY,
            false => rng.below(states.len()) as u32,
        })
        .collect();
    let pair = |rng: &mut Rng, scale: f32| [rng.spicy(scale), rng.spicy(scale)];
    let poses = Poses {
        center: (0..n).map(|_| pair(&mut rng, 100.0)).collect(),
        rotation: (0..n)
            .map(|_| match rng.below(8) {
                0 => [0.0, 0.0],
                _ => rng.unit_vec(),
            })
            .collect(),
        linear_velocity: (0..n).map(|_| pair(&mut rng, 100.0)).collect(),
        angular_velocity: (0..n).map(|_| rng.spicy(100.0)).collect(),
    };
    let (max_linear, max_angular) = (rng.range(1.0, 50.0), rng.range(1.0, 60.0));
    let mut want = poses.clone();
    finish_scalar(&states, &state_of, want.columns(), max_linear, max_angular);
    let mut backends = vec![Backend::Simd];
    backends.extend(other_instruction_sets());
    for backend in backends {
        let mut got = poses.clone();
        let c = got.columns();
        match backend {
            Backend::Simd => finish_simd(&states, &state_of, c, max_linear, max_angular),
            Backend::Scalar => unreachable!("the reference"),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => avx2::finish(&states, &state_of, c, max_linear, max_angular),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => avx512::finish(&states, &state_of, c, max_linear, max_angular),
        }
        let diffs = word_diffs(&got.words(), &want.words(), pose_word_name, inputs.cmp());
        assert!(
            diffs.is_empty(),
            "seed {seed} n {n}: {backend:?} finish diverges:\n  {}",
            diffs.join("\n  ")
        );
    }
    if inputs != Inputs::Finite {
        return;
    }
    for (i, &k) in state_of.iter().enumerate() {
        if k == NULL_BODY {
            let slot = |p: &Poses| p.words()[7 * i..7 * i + 7].to_vec();
            assert_eq!(slot(&want), slot(&poses), "seed {seed}: slot {i} changed");
            continue;
        }
        let [c, s] = want.rotation[i];
        let mag = (c * c + s * s).sqrt();
        assert!((mag - 1.0).abs() < 1e-6, "seed {seed}: |q| = {mag}");
        let [vx, vy] = want.linear_velocity[i];
        let speed = (vx * vx + vy * vy).sqrt();
        assert!(
            speed <= max_linear * (1.0 + 1e-6),
            "seed {seed}: speed {speed}"
        );
        let w = want.angular_velocity[i];
        assert!(w.abs() <= max_angular, "seed {seed}: spin {w}");
        let moved = want.center[i][0] - states[k as usize].dp[0];
        assert!(
            (moved - poses.center[i][0]).abs() <= 1e-4 * (1.0 + moved.abs()),
            "seed {seed}: centre {moved} from {}",
            poses.center[i][0]
        );
    }
}

/// `start_*` on 0..=40 states from slots in any order (repeats too), with and without spin
/// bounds: every backend gives the scalar twin's bits, and with finite inputs every state is
/// within the caps and has no motion yet.
fn start_case(seed: u64, inputs: Inputs) {
    let mut rng = Rng::with_inputs(seed ^ 0x57A_0000, inputs);
    let n = rng.below(41);
    let places = rng.below(41) + 1;
    let linear: Vec<[f32; 2]> = (0..places)
        .map(|_| [rng.spicy(100.0), rng.spicy(100.0)])
        .collect();
    let angular: Vec<f32> = (0..places).map(|_| rng.spicy(100.0)).collect();
    let columns = VelocityColumns {
        linear: &linear,
        angular: &angular,
    };
    let slots: Vec<u32> = (0..n).map(|_| rng.below(places) as u32).collect();
    let bounded = rng.chance(0.5);
    let spin_bound: Vec<f32> = (0..n)
        .map(|_| match rng.chance(0.5) {
            true => f32::INFINITY,
            false => rng.range(0.0, 100.0),
        })
        .collect();
    let spin_bound = bounded.then_some(&spin_bound[..]);
    let (max_linear, max_angular) = (rng.range(1.0, 50.0), rng.range(1.0, 60.0));
    let junk = random_states(&mut rng, n, 1.0, 1.0);
    let mut want = junk.clone();
    start_scalar(
        &mut want,
        &slots,
        columns,
        spin_bound,
        max_linear,
        max_angular,
    );
    let mut backends = vec![Backend::Simd];
    backends.extend(other_instruction_sets());
    for backend in backends {
        let mut got = junk.clone();
        let (s, b) = (&mut got[..], spin_bound);
        match backend {
            Backend::Simd => start_simd(s, &slots, columns, b, max_linear, max_angular),
            Backend::Scalar => unreachable!("the reference"),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => avx2::start(s, &slots, columns, b, max_linear, max_angular),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => avx512::start(s, &slots, columns, b, max_linear, max_angular),
        }
        let diffs = word_diffs(
            state_words(&got),
            state_words(&want),
            state_word_name,
            inputs.cmp(),
        );
        assert!(
            diffs.is_empty(),
            "seed {seed} n {n}: {backend:?} start diverges:\n  {}",
            diffs.join("\n  ")
        );
    }
    if inputs != Inputs::Finite {
        return;
    }
    for (k, s) in want.iter().enumerate() {
        let speed = (s.v[0] * s.v[0] + s.v[1] * s.v[1]).sqrt();
        assert!(
            speed <= max_linear * (1.0 + 1e-6),
            "seed {seed}: speed {speed}"
        );
        let bound = spin_bound.map_or(max_angular, |b| b[k].min(max_angular));
        assert!(s.w.abs() <= bound, "seed {seed}: spin {}", s.w);
        let [vx, vy] = linear[slots[k] as usize];
        if vx * vx + vy * vy <= max_linear * max_linear {
            assert_eq!(
                s.v,
                [vx, vy],
                "seed {seed}: a velocity within the cap changed"
            );
        }
        assert_eq!([s.dp, s.dq], [[0.0; 2], [1.0, 0.0]], "seed {seed}: motion");
    }
}

#[test]
fn start_matches_bit_for_bit() {
    for seed in 0..SEEDS {
        start_case(seed, Inputs::Finite);
    }
}

#[test]
fn finish_matches_bit_for_bit() {
    for seed in 0..SEEDS {
        finish_case(seed, Inputs::Finite);
    }
}

#[test]
fn integrate_velocities_match_bit_for_bit() {
    for seed in 0..SEEDS {
        integrate_velocities_case(seed, Inputs::Finite);
    }
}

#[test]
fn integrate_positions_match_bit_for_bit() {
    for seed in 0..SEEDS {
        integrate_positions_case(seed, Inputs::Finite);
    }
}

// ---------------------------------------------------------------------------------------------
// Non-finite inputs.
// ---------------------------------------------------------------------------------------------

/// Huge values and infinities among the inputs: the kernels overflow and make NaNs (inf - inf,
/// 0 * inf, inf / inf) from non-NaN operands; both backends agree bit for bit on every
/// non-NaN output and on where the NaNs are (see `Inputs::cmp`).
#[test]
fn infinite_inputs_match_up_to_nan_payload() {
    for seed in 0..SEEDS / 2 {
        contact_kernels_case(seed, Inputs::Infinite);
        sequence_case(seed, Inputs::Infinite, seed % 2 == 0);
        integrate_velocities_case(seed, Inputs::Infinite);
        integrate_positions_case(seed, Inputs::Infinite);
        finish_case(seed, Inputs::Infinite);
        start_case(seed, Inputs::Infinite);
    }
}

/// NaNs among the inputs: both backends agree bit for bit on every non-NaN output and on
/// where the NaNs are; only NaN payloads and signs may differ: when two NaNs meet in one
/// operation, IEEE 754 leaves open which payload survives, and the compiler may order the
/// operands of a commutative add differently in the two instantiations.
#[test]
fn nan_inputs_match_up_to_nan_payload() {
    for seed in 0..SEEDS / 2 {
        contact_kernels_case(seed, Inputs::Nan);
        sequence_case(seed, Inputs::Nan, seed % 2 == 0);
        integrate_velocities_case(seed, Inputs::Nan);
        integrate_positions_case(seed, Inputs::Nan);
        finish_case(seed, Inputs::Nan);
        start_case(seed, Inputs::Nan);
    }
}

// ---------------------------------------------------------------------------------------------
// Physics at kernel level.
// ---------------------------------------------------------------------------------------------

/// Relative normal velocity at a point: n . ((vB + wB x rB) - (vA + wA x rA)).
fn normal_speed(a: &BodyState, b: &BodyState, r: [f32; 4], n: [f32; 2]) -> f32 {
    let [rax, ray, rbx, rby] = r;
    let dvx = (b.v[0] - b.w * rby) - (a.v[0] - a.w * ray);
    let dvy = (b.v[1] + b.w * rbx) - (a.v[1] + a.w * rax);
    dvx * n[0] + dvy * n[1]
}

/// Makes lane `l` a contact of body `b` (mass `mass`, rotational inertia `inertia`) on static
/// ground below it (normal +y), friction 0.6; its points are left to the caller.
fn on_static_ground(c: &mut ContactBatch, l: usize, b: u32, mass: f32, inertia: f32) {
    c.set_bodies(l, [NULL_BODY, b], [0.0, 1.0 / mass]);
    c.normal_x[l] = 0.0;
    c.normal_y[l] = 1.0;
    c.friction[l] = 0.6;
    c.inv_inertia_b[l] = 1.0 / inertia;
    c.bias_rate[l] = 10.0;
    c.mass_scale[l] = 0.8;
}

/// Body B (mass m) falls at 3 m/s onto static A; one relax iteration after prepare stops it at
/// the contact point with an impulse of m * 3.
#[test]
fn falling_body_stops_on_static_ground() {
    for backend in [Backend::Simd, Backend::Scalar] {
        for &(mass, inertia) in &[(1.0f32, 0.5f32), (2.0, 0.25), (0.1, 0.01), (40.0, 30.0)] {
            for lane in 0..LANES {
                let mut c = ContactBatch::zeroed();
                c.body_a = [NULL_BODY; LANES];
                c.body_b = [NULL_BODY; LANES];
                on_static_ground(&mut c, lane, 0, mass, inertia);
                // The contact point right below B's centre: anchor (0, -0.5) from B, on A's
                // surface at (0, 0).
                let p = &mut c.points[0];
                p.active[lane] = 1.0;
                p.set_anchors(lane, [0.0, 0.0], [0.0, -0.5], [0.0, 1.0]);
                p.base_separation[lane] = -0.01;
                let mut states = vec![BodyState::with_velocity([0.0, -3.0], 0.0)];
                let mut batches = [c];
                run(backend, Op::Prepare, &mut batches, &mut states);
                let relax = SolveParams {
                    inv_h: 240.0,
                    use_bias: false,
                };
                run(backend, Op::Solve(relax), &mut batches, &mut states);

                let p = &batches[0].points[0];
                let vn = normal_speed(
                    &BodyState::IDENTITY,
                    &states[0],
                    [0.0, 0.0, 0.0, -0.5],
                    [0.0, 1.0],
                );
                let what = format!("{backend:?} mass {mass} lane {lane}");
                assert!(vn >= -1e-5, "{what}: still approaching at {vn}");
                assert!(vn.abs() <= 1e-5, "{what}: bounced off at {vn}");
                assert!(
                    (p.normal_impulse[lane] - mass * 3.0).abs() <= 1e-4,
                    "{what}: normal impulse {} != {}",
                    p.normal_impulse[lane],
                    mass * 3.0
                );
                // A centred, head-on hit: no friction, no spin.
                assert_eq!(p.tangent_impulse[lane], 0.0, "{what}");
                assert_eq!(states[0].w, 0.0, "{what}");
                assert_eq!(states[0].v[0], 0.0, "{what}");
            }
        }
    }
}

/// A 1 m box (mass 1, inertia 1/6) lands on static ground on two points 0.5 m either side of
/// its centre, falling at 3 m/s and spinning at `w`. One impact pass gives Poisson's law: with
/// restitution e, kinetic energy after is E - (1 - e^2) x.K x / 2 for the compression impulses
/// x, so e = 1 keeps it and no e <= 1 adds any; falling flat (w = 0), both points leave at
/// e times 3 m/s with no spin.
#[test]
fn an_impact_pass_bounces_two_points_by_poissons_law() {
    let (mass, inertia) = (1.0f32, 1.0f32 / 6.0);
    for backend in [Backend::Simd, Backend::Scalar] {
        for e in [1.0f32, 0.5, 0.0] {
            for w in [0.0f32, 1.0, -4.0] {
                let mut c = ContactBatch::zeroed();
                c.body_a = [NULL_BODY; LANES];
                c.body_b = [NULL_BODY; LANES];
                on_static_ground(&mut c, 0, 0, mass, inertia);
                c.friction[0] = 0.0;
                c.restitution[0] = e;
                for (j, x) in [-0.5f32, 0.5].into_iter().enumerate() {
                    let p = &mut c.points[j];
                    p.active[0] = 1.0;
                    p.set_anchors(0, [x, 0.0], [x, -0.5], [0.0, 1.0]);
                    p.base_separation[0] = 0.0;
                }
                let start = BodyState::with_velocity([0.0, -3.0], w);
                let mut states = vec![start];
                let mut batches = [c];
                let impact = ImpactParams {
                    dt: 1.0 / 60.0,
                    h: 1.0 / 240.0,
                    margin: 0.005,
                    threshold: 0.5,
                    gravity_reach: 0.0,
                };
                run(backend, Op::Prepare, &mut batches, &mut states);
                run(backend, Op::Impact(impact), &mut batches, &mut states);

                let energy = |s: &BodyState| {
                    0.5 * mass * (s.v[0] * s.v[0] + s.v[1] * s.v[1]) + 0.5 * inertia * s.w * s.w
                };
                let (before, after) = (energy(&start), energy(&states[0]));
                let what = format!("{backend:?} e {e} w {w}: energy {before} -> {after}");
                assert!(after <= before * (1.0 + 1e-6), "{what}");
                if e == 0.0 {
                    // Nothing bounces: the solve stops it.
                    assert_eq!(states[0], start, "{what}");
                    continue;
                }
                if e == 1.0 {
                    assert!((after - before).abs() <= 1e-5 * before, "{what}");
                }
                for x in [-0.5f32, 0.5] {
                    let vn = normal_speed(
                        &BodyState::IDENTITY,
                        &states[0],
                        [x, 0.0, x, -0.5],
                        [0.0, 1.0],
                    );
                    assert!(vn >= -1e-5, "{what}: point {x} still approaches at {vn}");
                }
                if w == 0.0 {
                    let s = &states[0];
                    assert!(
                        (s.v[1] - 3.0 * e).abs() <= 1e-5,
                        "{what}: leaves at {:?}",
                        s.v
                    );
                    assert!(s.w.abs() <= 1e-6, "{what}: spins at {}", s.w);
                }
            }
        }
    }
}

/// Eight bodies fall at 3 m/s onto static ground, each on two points. In the odd lanes the
/// points sit 1 mm either side of the centre: their 2x2 block is too ill-conditioned to solve
/// and no single-point case fits, so the kernel falls back to one sequential pass there while
/// the even lanes (points 0.4 m apart) take the block solution. One relax iteration stops
/// every body at its points with its whole momentum as impulse, and both backends agree bit
/// for bit.
#[test]
fn nearly_coincident_points_stop_the_fall_beside_regular_lanes() {
    let (mass, inertia) = (1.0f32, 0.5f32);
    let mut c = ContactBatch::zeroed();
    let mut offsets = [0.0f32; LANES];
    for (l, offset) in offsets.iter_mut().enumerate() {
        *offset = if l % 2 == 1 { 0.001 } else { 0.4 };
        on_static_ground(&mut c, l, l as u32, mass, inertia);
        for (p, x) in c.points.iter_mut().zip([-*offset, *offset]) {
            p.active[l] = 1.0;
            // On A's surface at (x, 0), 0.5 m below B's centre.
            p.set_anchors(l, [x, 0.0], [x, -0.5], [0.0, 1.0]);
            p.base_separation[l] = -0.01;
        }
    }
    let relax = SolveParams {
        inv_h: 240.0,
        use_bias: false,
    };
    let mut results = Vec::new();
    for backend in [Backend::Simd, Backend::Scalar] {
        let mut states = vec![BodyState::with_velocity([0.0, -3.0], 0.0); LANES];
        let mut batches = [c];
        run(backend, Op::Prepare, &mut batches, &mut states);
        run(backend, Op::Solve(relax), &mut batches, &mut states);
        for (l, &offset) in offsets.iter().enumerate() {
            let what = format!("{backend:?} lane {l}");
            let [p0, p1] = &batches[0].points;
            for x in [-offset, offset] {
                let vn = normal_speed(
                    &BodyState::IDENTITY,
                    &states[l],
                    [x, 0.0, x, -0.5],
                    [0.0, 1.0],
                );
                assert!(vn.abs() <= 1e-4, "{what}: normal speed {vn} at x = {x}");
            }
            let total = p0.normal_impulse[l] + p1.normal_impulse[l];
            assert!(
                (total - 3.0 * mass).abs() <= 1e-4,
                "{what}: impulse {total}"
            );
            assert!(
                p0.normal_impulse[l] >= 0.0 && p1.normal_impulse[l] >= 0.0,
                "{what}"
            );
        }
        results.push((batches, states));
    }
    let (simd, scalar) = (&results[0], &results[1]);
    assert_eq!(batch_words(&simd.0), batch_words(&scalar.0));
    assert_eq!(state_words(&simd.1), state_words(&scalar.1));
}

/// Random single contacts of one dynamic body against static ground: one relax iteration
/// removes the approach velocity of a lone point (off-centre anchors, any normal), and never
/// pulls the bodies together.
#[test]
fn relax_removes_approach_velocity() {
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed ^ 0xFA11);
        let backend = if seed % 2 == 0 {
            Backend::Simd
        } else {
            Backend::Scalar
        };
        let n = rng.unit_vec();
        let r = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        let mut c = ContactBatch::zeroed();
        c.body_a = [NULL_BODY; LANES];
        c.body_b = [NULL_BODY; LANES];
        let lane = rng.below(LANES);
        c.set_bodies(lane, [NULL_BODY, 0], [0.0, rng.range(0.1, 5.0)]);
        [c.normal_x[lane], c.normal_y[lane]] = n;
        c.friction[lane] = 0.0;
        c.inv_inertia_b[lane] = rng.range(0.1, 5.0);
        let p = &mut c.points[0];
        p.active[lane] = 1.0;
        p.set_anchors(lane, [r[0], r[1]], [r[2], r[3]], n);
        p.base_separation[lane] = rng.range(-0.1, 0.0);
        let mut states = vec![BodyState::with_velocity(
            [rng.range(-5.0, 5.0), rng.range(-5.0, 5.0)],
            rng.range(-3.0, 3.0),
        )];
        let before = normal_speed(&BodyState::IDENTITY, &states[0], r, n);
        let mut batches = [c];
        run(backend, Op::Prepare, &mut batches, &mut states);
        let relax = SolveParams {
            inv_h: 240.0,
            use_bias: false,
        };
        run(backend, Op::Solve(relax), &mut batches, &mut states);
        let after = normal_speed(&BodyState::IDENTITY, &states[0], r, n);
        let impulse = batches[0].points[0].normal_impulse[lane];
        let what = format!("seed {seed} {backend:?}");
        if before < 0.0 {
            // Approaching: stopped at the point.
            assert!(
                after.abs() <= 1e-4 * (1.0 + before.abs()),
                "{what}: {before} -> {after}"
            );
            assert!(impulse > 0.0, "{what}");
        } else {
            // Separating: left alone.
            assert_eq!(impulse, 0.0, "{what}");
            assert_eq!(after.to_bits(), before.to_bits(), "{what}");
        }
    }
}

/// `prepare` only reads body states, in both twins: a state with a marker in `pad` keeps it.
#[test]
fn prepare_never_writes_states() {
    let mut c = ContactBatch::zeroed();
    c.body_a = [NULL_BODY; LANES];
    c.body_b = [NULL_BODY; LANES];
    c.set_bodies(0, [NULL_BODY, 0], [0.0, 1.0]);
    c.normal_y[0] = 1.0;
    c.points[0].active[0] = 1.0;
    let state = BodyState {
        pad: 1.0,
        ..BodyState::IDENTITY
    };
    let (mut s_simd, mut s_scalar) = ([state], [state]);
    run(Backend::Simd, Op::Prepare, &mut [c], &mut s_simd);
    run(Backend::Scalar, Op::Prepare, &mut [c], &mut s_scalar);
    assert_eq!(s_simd[0].pad, 1.0, "simd::prepare wrote the state");
    assert_eq!(s_scalar[0].pad, 1.0, "scalar::prepare wrote the state");
}

// ---------------------------------------------------------------------------------------------
// Pin kernels (the revolute joint without limits or motor).
// ---------------------------------------------------------------------------------------------

/// A pin batch and its start, side by side: what the tests compare word by word.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Pins {
    c: PinBatch,
    s: PinStart,
}

impl Pins {
    fn empty() -> Pins {
        Pins {
            c: PinBatch::empty(),
            s: PinStart::zeroed(),
        }
    }
}

const PIN_FIELDS: [&str; 19] = [
    "word_a",
    "word_b",
    "inv_mass_a",
    "inv_mass_b",
    "inv_inertia_a",
    "inv_inertia_b",
    "impulse_x",
    "impulse_y",
    "angular",
    "arm_ax",
    "arm_ay",
    "arm_bx",
    "arm_by",
    "gap_x",
    "gap_y",
    "k11",
    "k12",
    "k22",
    "inv_det",
];
/// The words after the lanes: the masks of the bodies the lanes write back, and of the
/// regular blocks.
const PIN_MASKS: [&str; 3] = ["writes_a", "writes_b", "regular"];
const _: () =
    assert!(std::mem::size_of::<PinBatch>() == PIN_FIELDS.len() * 32 + PIN_MASKS.len() * 4);
/// The lanes of a batch's start, after the batch in [`Pins`].
const PIN_START_FIELDS: [&str; 6] = ["rax", "ray", "rbx", "rby", "dcx", "dcy"];
const _: () = assert!(std::mem::size_of::<PinStart>() == PIN_START_FIELDS.len() * 32);

fn pin_batches_word_name(w: usize) -> String {
    let per = std::mem::size_of::<Pins>() / 4;
    let (batch, w) = (w / per, w % per);
    let masks = PIN_FIELDS.len() * LANES;
    let start = masks + PIN_MASKS.len();
    match w {
        _ if w < masks => format!("pin batch {batch} {}[{}]", PIN_FIELDS[w / LANES], w % LANES),
        _ if w < start => format!("pin batch {batch} {}", PIN_MASKS[w - masks]),
        _ => {
            let w = w - start;
            let field = PIN_START_FIELDS[w / LANES];
            format!("pin batch {batch} start {field}[{}]", w % LANES)
        }
    }
}

fn pin_start_word_name(w: usize) -> String {
    let per = PIN_START_FIELDS.len() * LANES;
    let (batch, w) = (w / per, w % per);
    format!(
        "pin start {batch} {}[{}]",
        PIN_START_FIELDS[w / LANES],
        w % LANES
    )
}

/// Whether a pin writes body `index` back: it has a state and the joint can move it (the
/// kernels' rule).
fn pin_moves(index: u32, inv_mass: f32, inv_inertia: f32) -> bool {
    index != NULL_BODY && inv_mass + inv_inertia > 0.0
}

/// Bodies that a sequence of pin batches may write.
fn pin_writable(batches: &[Pins], len: usize) -> Vec<bool> {
    let mut w = vec![false; len];
    for Pins { c, .. } in batches {
        for l in 0..LANES {
            for (i, m, ii) in [
                (c.bodies(l)[0], c.inv_mass_a[l], c.inv_inertia_a[l]),
                (c.bodies(l)[1], c.inv_mass_b[l], c.inv_inertia_b[l]),
            ] {
                if pin_moves(i, m, ii) {
                    w[i as usize] = true;
                }
            }
        }
    }
    w
}

/// A batch of eight pins over `world`, of every lane kind the engine packs: padding (all zero
/// but the null bodies), a pin to the fixed world on either side, a pin between two bodies
/// (kinematic ones among them, which a pin reads but never writes). Written bodies are
/// distinct within the batch, as the joint coloring makes them.
fn random_pin_batch(
    rng: &mut Rng,
    world: &World,
    used: &mut [bool],
    share_kinematic: bool,
) -> Pins {
    let mut pins = Pins::empty();
    let Pins { c, s } = &mut pins;
    let all_padding = rng.chance(0.02);
    for l in 0..LANES {
        let kind = match rng.below(10) {
            _ if all_padding => LaneKind::Padding,
            0 | 1 => LaneKind::Padding,
            2 => LaneKind::StaticA,
            3 => LaneKind::StaticB,
            _ => LaneKind::TwoBodies,
        };
        if kind == LaneKind::Padding {
            continue;
        }
        let mut side = |is_static: bool| -> (u32, f32, f32) {
            if is_static {
                (NULL_BODY, 0.0, 0.0)
            } else {
                let i = pick_body(rng, world, used, share_kinematic);
                (i, world.inv_mass[i as usize], world.inv_inertia[i as usize])
            }
        };
        let (a, ma, ia) = side(kind == LaneKind::StaticA);
        let (b, mb, ib) = side(kind == LaneKind::StaticB);
        c.set_bodies(l, [a, b], [ma, mb], [ia, ib]);
        s.rax[l] = rng.spicy(1.0);
        s.ray[l] = rng.spicy(1.0);
        s.rbx[l] = rng.spicy(1.0);
        s.rby[l] = rng.spicy(1.0);
        s.dcx[l] = rng.spicy(2.0);
        s.dcy[l] = rng.spicy(2.0);
        c.impulse_x[l] = rng.spicy(3.0);
        c.impulse_y[l] = rng.spicy(3.0);
        // Only a revolute joint whose motor or limits were just taken off has one.
        c.angular[l] = if rng.chance(0.7) { 0.0 } else { rng.spicy(1.0) };
    }
    pins
}

/// A pass of the soft step: a biased solve (random softness), or the relax pass (no bias,
/// rigid).
fn random_pin_params(rng: &mut Rng, use_bias: bool) -> PinParams {
    if !use_bias {
        return PinParams {
            bias_rate: 0.0,
            mass_scale: 1.0,
            impulse_scale: 0.0,
        };
    }
    PinParams {
        bias_rate: if rng.chance(0.1) {
            0.0
        } else {
            rng.range(0.0, 100.0)
        },
        mass_scale: rng.range(0.0, 1.0),
        impulse_scale: rng.range(0.0, 1.0),
    }
}

#[derive(Clone, Copy, Debug)]
enum PinOp {
    /// `first`: the step's first substep, which finds the blocks; otherwise at the blocks
    /// of the relax before.
    WarmStart {
        first: bool,
    },
    /// A biased pass, at the block of the warm start before it.
    Solve(PinParams),
    Relax(PinParams),
}

/// Runs `op` on every pin batch in order.
fn run_pins(backend: Backend, op: PinOp, batches: &mut [Pins], states: &mut [BodyState]) {
    for Pins { c, .. } in batches.iter() {
        let mut seen = Vec::new();
        for l in 0..LANES {
            for (i, m, ii, writes) in [
                (
                    c.bodies(l)[0],
                    c.inv_mass_a[l],
                    c.inv_inertia_a[l],
                    c.writes_a,
                ),
                (
                    c.bodies(l)[1],
                    c.inv_mass_b[l],
                    c.inv_inertia_b[l],
                    c.writes_b,
                ),
            ] {
                assert!(i == NULL_BODY || (i as usize) < states.len(), "index {i}");
                let moves = pin_moves(i, m, ii);
                assert_eq!(
                    writes >> l & 1 != 0,
                    moves,
                    "lane {l}: the mask of body {i}"
                );
                if moves {
                    assert!(!seen.contains(&i), "body {i} written twice in one batch");
                    seen.push(i);
                }
            }
        }
    }
    let mut rows = StateRows::from_states(states);
    let view = States::new(&mut rows);
    for Pins { c, s } in batches.iter_mut() {
        let (c, s) = (std::slice::from_mut(c), std::slice::from_ref(s));
        // SAFETY: checked above: every index is NULL_BODY or in bounds, and no body a lane
        // writes appears twice in a batch; the batches run one after the other on this
        // thread, which alone has the states.
        unsafe {
            match (backend, op) {
                (Backend::Simd, PinOp::WarmStart { first }) => {
                    pin::simd::warm_start(c, s, view, first)
                }
                (Backend::Simd, PinOp::Solve(p)) => pin::simd::solve(c, view, &p),
                (Backend::Scalar, PinOp::WarmStart { first }) => {
                    pin::scalar::warm_start(c, s, view, first)
                }
                (Backend::Scalar, PinOp::Solve(p)) => pin::scalar::solve(c, view, &p),
                (Backend::Simd, PinOp::Relax(p)) => pin::simd::relax(c, s, view, &p),
                (Backend::Scalar, PinOp::Relax(p)) => pin::scalar::relax(c, s, view, &p),
                #[cfg(target_arch = "x86_64")]
                (Backend::Avx2, PinOp::WarmStart { first }) => {
                    avx2::pin_warm_start(c, s, view, first)
                }
                #[cfg(target_arch = "x86_64")]
                (Backend::Avx2, PinOp::Solve(p)) => avx2::pin_solve(c, view, &p),
                #[cfg(target_arch = "x86_64")]
                (Backend::Avx2, PinOp::Relax(p)) => avx2::pin_relax(c, s, view, &p),
                #[cfg(target_arch = "x86_64")]
                (Backend::Avx512, PinOp::WarmStart { first }) => {
                    avx512::pin_warm_start(c, s, view, first)
                }
                #[cfg(target_arch = "x86_64")]
                (Backend::Avx512, PinOp::Solve(p)) => avx512::pin_solve(c, view, &p),
                #[cfg(target_arch = "x86_64")]
                (Backend::Avx512, PinOp::Relax(p)) => avx512::pin_relax(c, s, view, &p),
            }
        }
    }
    states.copy_from_slice(&rows);
}

/// Runs `ops` in order on the SIMD backend, on every other instruction set the CPU has, and
/// on the scalar twins, from the same inputs, and compares every word of the batches and the
/// states; states no pin writes keep every bit (the `pad` sentinel included), and padding
/// lanes stay zero. Returns the scalar twins' output.
fn check_pins(
    what: &dyn std::fmt::Display,
    inputs: Inputs,
    ops: &[PinOp],
    batches: &[Pins],
    states: &[BodyState],
) -> (Vec<Pins>, Vec<BodyState>) {
    let run_all = |backend: Backend| {
        let (mut b, mut s) = (batches.to_vec(), states.to_vec());
        for &op in ops {
            run_pins(backend, op, &mut b, &mut s);
        }
        (b, s)
    };
    let scalar = run_all(Backend::Scalar);
    let written = pin_writable(batches, states.len());
    let mut backends = vec![Backend::Simd];
    backends.extend(other_instruction_sets());
    for backend in backends {
        let (b, s) = run_all(backend);
        let diffs: Vec<String> = word_diffs(
            bytemuck::cast_slice(&b),
            bytemuck::cast_slice(&scalar.0),
            pin_batches_word_name,
            inputs.cmp(),
        )
        .into_iter()
        .chain(word_diffs(
            state_words(&s),
            state_words(&scalar.1),
            state_word_name,
            inputs.cmp(),
        ))
        .collect();
        assert!(
            diffs.is_empty(),
            "{what}: {backend:?} and the scalar twins diverge in {} words ({backend:?} vs \
             scalar):\n  {}",
            diffs.len(),
            diffs.join("\n  ")
        );
        for (i, (before, after)) in states.iter().zip(&s).enumerate() {
            let same = state_words(std::slice::from_ref(before))
                == state_words(std::slice::from_ref(after));
            assert!(
                written[i] || same,
                "{what}: {backend:?}: state {i}, which no pin writes, changed"
            );
        }
        for (bi, c) in b.iter().enumerate() {
            for l in (0..LANES).filter(|&l| batches[bi].c.bodies(l) == [NULL_BODY; 2]) {
                let words: &[u32] = bytemuck::cast_slice(std::slice::from_ref(&c.c));
                let lanes = &words[..PIN_FIELDS.len() * LANES];
                let start: &[u32] = bytemuck::cast_slice(std::slice::from_ref(&c.s));
                for (w, &x) in lanes.iter().enumerate() {
                    assert!(
                        w % LANES != l || x == 0,
                        "{what}: {backend:?}: padding lane {l} of batch {bi}: {}",
                        pin_batches_word_name(w)
                    );
                }
                for (w, &x) in start.iter().enumerate() {
                    assert!(
                        w % LANES != l || x == 0,
                        "{what}: {backend:?}: padding lane {l} of batch {bi}: start {}",
                        PIN_START_FIELDS[w / LANES]
                    );
                }
                let masks = [c.c.writes_a, c.c.writes_b, c.c.regular];
                assert!(
                    masks.iter().all(|m| m >> l & 1 == 0),
                    "{what}: {backend:?}: padding lane {l} of batch {bi} has a mask bit"
                );
            }
        }
    }
    scalar
}

/// The velocity of B's anchor relative to A's point under it, per lane (zero velocity and no
/// turn for a null side, as the identity row gives the kernels), in f64: a pin's impulse acts
/// on both bodies at B's anchor.
fn pin_anchor_speeds(Pins { c, s }: &Pins, states: &[BodyState]) -> Vec<[f64; 2]> {
    let state = |i: u32| match i {
        NULL_BODY => BodyState::IDENTITY,
        i => states[i as usize],
    };
    (0..LANES)
        .map(|l| {
            let [a, b] = c.bodies(l).map(state);
            let turn = |s: &BodyState, x: f32, y: f32| {
                let (qc, qs) = (s.dq[0] as f64, s.dq[1] as f64);
                let (x, y) = (x as f64, y as f64);
                (qc * x - qs * y, qs * x + qc * y)
            };
            let (rbx, rby) = turn(&b, s.rbx[l], s.rby[l]);
            // A's arm reaches B's anchor (past its own by the gap between them, so its own
            // anchor drops out).
            let gap = |db: f32, da: f32, dc: f32| (db as f64 - da as f64) + dc as f64;
            let rax = gap(b.dp[0], a.dp[0], s.dcx[l]) + rbx;
            let ray = gap(b.dp[1], a.dp[1], s.dcy[l]) + rby;
            let (wa, wb) = (a.w as f64, b.w as f64);
            [
                (b.v[0] as f64 - wb * rby) - (a.v[0] as f64 - wa * ray),
                (b.v[1] as f64 + wb * rbx) - (a.v[1] as f64 + wa * rax),
            ]
        })
        .collect()
}

/// One pin batch, each pass from the same inputs (warm start, a biased solve after the warm
/// start, the relax pass, a later substep's warm start after the relax), then a sequence of
/// batches through two substeps (warm start, two biased solves, relax, then warm start at the
/// relax's blocks, a biased solve, relax), as the engine runs them: every backend and
/// instruction set gives the scalar twins' bits. A warm start at the blocks the relax kept
/// gives the bits of one that finds them again (nothing moved the positions in between; as
/// between the twins, any NaN matches any NaN where the inputs are not finite). With finite
/// inputs the relax pass must also do what it is for: leave the two anchors of every lane
/// that can move with no relative velocity (the law of a rigid pin, computed here in f64),
/// which a mistake common to both twins would break.
fn pin_case(seed: u64, inputs: Inputs) {
    let mut rng = Rng::with_inputs(seed ^ 0x0919_0000, inputs);
    let world = World::random(&mut rng, BODIES);
    let share = rng.chance(0.5);
    let batch = [random_pin_batch(
        &mut rng,
        &world,
        &mut [false; BODIES],
        share,
    )];
    let mut states = world.states.clone();
    let zero_pads = |states: &mut [BodyState], batches: &[Pins]| {
        let written = pin_writable(batches, states.len());
        for (s, w) in states.iter_mut().zip(written) {
            if w {
                s.pad = 0.0;
            }
        }
    };
    zero_pads(&mut states, &batch);
    let biased = random_pin_params(&mut rng, true);
    let relax = random_pin_params(&mut rng, false);
    for (name, ops) in [
        ("pin warm_start", &[PinOp::WarmStart { first: true }][..]),
        (
            "pin solve(bias)",
            &[PinOp::WarmStart { first: true }, PinOp::Solve(biased)][..],
        ),
        ("pin relax", &[PinOp::Relax(relax)][..]),
        (
            "pin warm_start kept",
            &[PinOp::Relax(relax), PinOp::WarmStart { first: false }][..],
        ),
    ] {
        let what = Ctx { seed, what: name };
        let (after_batch, after) = check_pins(&what, inputs, ops, &batch, &states);
        if let (Inputs::Finite, "pin relax") = (inputs, name) {
            let c = &after_batch[0].c;
            for (l, [x, y]) in pin_anchor_speeds(&after_batch[0], &after)
                .into_iter()
                .enumerate()
            {
                if c.inv_mass_a[l] + c.inv_mass_b[l] == 0.0 {
                    continue; // Nothing the pin can move: no impulse, nothing to stop.
                }
                let scale = pin_anchor_speeds(&batch[0], &states)[l]
                    .iter()
                    .fold(1.0f64, |m, v| m.max(v.abs()));
                assert!(
                    x.hypot(y) <= 1e-3 * scale,
                    "{what}: lane {l}: the anchors still part at ({x}, {y}) m/s"
                );
            }
        }
    }

    let what = Ctx {
        seed,
        what: "pin warm_start kept = found",
    };
    for backend in [Backend::Simd, Backend::Scalar] {
        let words = |first: bool| {
            let (mut b, mut s) = (batch.to_vec(), states.clone());
            for op in [PinOp::Relax(relax), PinOp::WarmStart { first }] {
                run_pins(backend, op, &mut b, &mut s);
            }
            let b: Vec<u32> = bytemuck::cast_slice(&b).to_vec();
            (b, state_words(&s).to_vec())
        };
        let ((kept_b, kept_s), (found_b, found_s)) = (words(false), words(true));
        let diffs: Vec<String> = word_diffs(&kept_b, &found_b, pin_batches_word_name, inputs.cmp())
            .into_iter()
            .chain(word_diffs(&kept_s, &found_s, state_word_name, inputs.cmp()))
            .collect();
        assert!(
            diffs.is_empty(),
            "{what}: {backend:?}: kept vs found:\n  {}",
            diffs.join("\n  ")
        );
    }

    let count = 1 + rng.below(3);
    let batches: Vec<Pins> = (0..count)
        .map(|_| random_pin_batch(&mut rng, &world, &mut [false; BODIES], share))
        .collect();
    let mut states = world.states.clone();
    zero_pads(&mut states, &batches);
    let ops = [
        PinOp::WarmStart { first: true },
        PinOp::Solve(biased),
        PinOp::Solve(random_pin_params(&mut rng, true)),
        PinOp::Relax(relax),
        PinOp::WarmStart { first: false },
        PinOp::Solve(random_pin_params(&mut rng, true)),
        PinOp::Relax(relax),
    ];
    let what = Ctx {
        seed,
        what: "pin substep",
    };
    check_pins(&what, inputs, &ops, &batches, &states);
}

#[test]
fn pin_kernels_match_bit_for_bit() {
    for seed in 0..SEEDS {
        pin_case(seed, Inputs::Finite);
    }
}

#[test]
fn pin_kernels_match_with_infinite_and_nan_inputs() {
    for inputs in [Inputs::Infinite, Inputs::Nan] {
        for seed in 0..SEEDS {
            pin_case(seed, inputs);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Loading the points from their rows.
// ---------------------------------------------------------------------------------------------

/// A row of one manifold point: anchors within a few metres of the origins, a separation, the
/// warm-start impulses, and a feature key of any bits (never read).
fn random_row(rng: &mut Rng) -> PointRow {
    PointRow {
        anchor_a: [rng.spicy(3.0), rng.spicy(3.0)],
        anchor_b: [rng.spicy(3.0), rng.spicy(3.0)],
        separation: rng.spicy(0.3),
        id: rng.next_u64() as u32,
        normal_impulse: rng.nonneg(3.0),
        tangent_impulse: rng.spicy(1.0),
    }
}

/// `load_points` of every backend and instruction set gives the scalar twin's bits and names
/// the same deep lanes and one-point batches; with finite inputs, each point it loads holds
/// the anchors relative to the centres of mass in the contact frame, `r x n` and `r . n`
/// computed here, a point the manifold lacks is all zero, a lane is deep where its largest
/// overlap exceeds its bound, gravity along the normal is the lane's fall times `g . n`, and a
/// batch is one-point where no lane counts two points.
#[test]
fn load_points_match_bit_for_bit() {
    for inputs in [Inputs::Finite, Inputs::Infinite, Inputs::Nan] {
        for seed in 0..300 {
            let mut rng = Rng::with_inputs(seed, inputs);
            let world = World::random(&mut rng, 24);
            let mut used = vec![false; 24];
            let batch = random_batch(&mut rng, &world, &mut used, false);
            // Every lane's rows hold values, those of absent points too (leftovers).
            let data: [[PointRow; LANES]; 2] =
                std::array::from_fn(|_| std::array::from_fn(|_| random_row(&mut rng)));
            let mut rows = PointRows::NONE;
            let mut bodies = LaneBodies::default();
            let gravity = [rng.spicy(20.0), rng.spicy(20.0)];
            for l in 0..LANES {
                if batch.is_padding(l) {
                    continue;
                }
                rows.rows = [0, 1].map(|j| {
                    let mut lanes = rows.rows[j];
                    lanes[l] = &data[j][l];
                    lanes
                });
                rows.count[l] = (1 + rng.below(2)) as f32;
                [rows.offset_a[0][l], rows.offset_a[1][l]] = [rng.spicy(0.5), rng.spicy(0.5)];
                [rows.offset_b[0][l], rows.offset_b[1][l]] = [rng.spicy(0.5), rng.spicy(0.5)];
                bodies.deep_overlap[l] = rng.nonneg(0.2);
                bodies.fall[l] = rng.spicy(2.0);
            }
            let what = format!("load_points seed {seed} {inputs:?}");
            let mut scalar_batch = batch;
            let scalar_loaded = scalar::load_points(&mut scalar_batch, &rows, &bodies, gravity);
            let mut others: Vec<(&str, ContactBatch, Loaded)> = Vec::new();
            let mut b = batch;
            let loaded = simd::load_points(&mut b, &rows, &bodies, gravity);
            others.push(("simd", b, loaded));
            #[cfg(target_arch = "x86_64")]
            for set in other_instruction_sets() {
                let mut b = batch;
                let loaded = match set {
                    Backend::Avx2 => avx2::load_points(&mut b, &rows, &bodies, gravity),
                    Backend::Avx512 => avx512::load_points(&mut b, &rows, &bodies, gravity),
                    _ => continue,
                };
                others.push((
                    if set == Backend::Avx2 {
                        "avx2"
                    } else {
                        "avx512"
                    },
                    b,
                    loaded,
                ));
            }
            for (name, b, loaded) in &others {
                let what = format!("{what} {name}");
                assert_twins(&what, inputs.cmp(), (&[*b], &[]), (&[scalar_batch], &[]));
                assert_eq!(*loaded, scalar_loaded, "{what}: deep lanes, one point");
            }
            let one_point = rows.count.iter().all(|&n| n <= 1.0);
            assert_eq!(scalar_loaded.one_point, one_point, "{what}: one point");
            if inputs != Inputs::Finite {
                continue;
            }
            let mut expect_deep = 0;
            for l in (0..LANES).filter(|&l| !batch.is_padding(l)) {
                let n = [batch.normal_x[l], batch.normal_y[l]];
                let along = gravity[0] * n[0] + gravity[1] * n[1];
                let gravity_normal = scalar_batch.gravity_normal[l];
                assert_eq!(gravity_normal, bodies.fall[l] * along, "{what}");
                let mut overlap = 0.0f32;
                for (j, p) in scalar_batch.points.iter().enumerate() {
                    if (j as f32) >= rows.count[l] {
                        let fields = [p.active, p.cross_a, p.dot_a, p.cross_b, p.dot_b];
                        assert!(fields.iter().all(|f| f[l].to_bits() == 0), "{what}");
                        assert_eq!(p.normal_impulse[l].to_bits(), 0, "{what}");
                        assert_eq!(p.tangent_impulse[l].to_bits(), 0, "{what}");
                        continue;
                    }
                    let row = &data[j][l];
                    let ra = [
                        row.anchor_a[0] - rows.offset_a[0][l],
                        row.anchor_a[1] - rows.offset_a[1][l],
                    ];
                    let rb = [
                        row.anchor_b[0] - rows.offset_b[0][l],
                        row.anchor_b[1] - rows.offset_b[1][l],
                    ];
                    assert_eq!(p.active[l], 1.0, "{what}");
                    assert_eq!(p.cross_a[l], ra[0] * n[1] - ra[1] * n[0], "{what}");
                    assert_eq!(p.dot_a[l], ra[0] * n[0] + ra[1] * n[1], "{what}");
                    assert_eq!(p.cross_b[l], rb[0] * n[1] - rb[1] * n[0], "{what}");
                    let dot_b = rb[0] * n[0] + rb[1] * n[1];
                    assert_eq!(p.dot_b[l], dot_b, "{what}");
                    // Prepared: the separation less the anchors' offset along the normal.
                    let base = row.separation - (dot_b - p.dot_a[l]);
                    assert_eq!(p.base_separation[l], base, "{what}");
                    assert_eq!(p.normal_impulse[l], row.normal_impulse, "{what}");
                    assert_eq!(p.tangent_impulse[l], row.tangent_impulse, "{what}");
                    overlap = overlap.max(-row.separation);
                }
                expect_deep |= u32::from(overlap > bodies.deep_overlap[l]) << l;
            }
            assert_eq!(scalar_loaded.deep, expect_deep, "{what}: deep");
        }
    }
}

/// `pin::simd::arms` on every instruction set gives the bits of its scalar twin, over random
/// frames (A the fixed world in some lanes, padding in others) and random centres and
/// rotations, finite, wild and NaN; a padding lane keeps what it held.
#[test]
fn pin_arms_match_their_scalar_twin() {
    for (seed, inputs) in
        (0..300).map(|s| (s, [Inputs::Finite, Inputs::Infinite, Inputs::Nan][s % 3]))
    {
        let mut rng = Rng::with_inputs(0xA125 + seed as u64, inputs);
        let n = 1 + rng.below(40);
        let pairs = |rng: &mut Rng| -> Vec<[f32; 2]> {
            (0..n).map(|_| [rng.spicy(50.0), rng.spicy(50.0)]).collect()
        };
        let (center, rotation) = (pairs(&mut rng), pairs(&mut rng));
        let bodies = BodyFrames {
            center: &center,
            rotation: &rotation,
        };
        let count = 1 + rng.below(3);
        let mut frames = vec![PinFrames::zeroed(); count];
        let mut batches = vec![PinStart::zeroed(); count];
        for (f, c) in frames.iter_mut().zip(&mut batches) {
            for l in 0..LANES {
                // What a padding lane holds stays; a live lane's arms are overwritten.
                c.rax[l] = rng.spicy(1.0);
                c.dcy[l] = rng.spicy(1.0);
                if rng.chance(0.2) {
                    continue;
                }
                let fixed_a = rng.chance(0.3);
                f.body_b[l] = rng.below(n) as u32;
                f.body_a[l] = if fixed_a {
                    f.body_b[l]
                } else {
                    rng.below(n) as u32
                };
                f.local_ax[l] = rng.spicy(2.0);
                f.local_ay[l] = rng.spicy(2.0);
                f.local_bx[l] = rng.spicy(2.0);
                f.local_by[l] = rng.spicy(2.0);
                f.fixed_a[l] = if fixed_a { 1.0 } else { 0.0 };
                f.live[l] = 1.0;
            }
        }
        let run = |backend: Backend| {
            let mut c = batches.clone();
            match backend {
                Backend::Simd => pin::simd::arms(&mut c, &frames, bodies),
                Backend::Scalar => pin::scalar::arms(&mut c, &frames, bodies),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx2 => avx2::pin_arms(&mut c, &frames, bodies),
                #[cfg(target_arch = "x86_64")]
                Backend::Avx512 => avx512::pin_arms(&mut c, &frames, bodies),
            }
            c
        };
        let scalar = run(Backend::Scalar);
        // The scalar twin itself: the law of a rotated anchor, and padding kept.
        for ((c, f), before) in scalar.iter().zip(&frames).zip(&batches) {
            for l in 0..LANES {
                let bits = |x: f32| x.to_bits();
                if f.live[l] == 0.0 {
                    assert_eq!(bits(c.rax[l]), bits(before.rax[l]), "seed {seed}: padding");
                    assert_eq!(bits(c.dcy[l]), bits(before.dcy[l]), "seed {seed}: padding");
                    continue;
                }
                let [cos, sin] = rotation[f.body_b[l] as usize];
                let (x, y) = (f.local_bx[l], f.local_by[l]);
                let rby = sin * x + cos * y;
                assert!(bits(c.rby[l]) == bits(rby) || rby.is_nan() && c.rby[l].is_nan());
                if f.fixed_a[l] > 0.0 {
                    assert_eq!((bits(c.rax[l]), bits(c.ray[l])), (0, 0), "seed {seed}");
                    let dcx = center[f.body_b[l] as usize][0] - f.local_ax[l];
                    assert!(bits(c.dcx[l]) == bits(dcx) || dcx.is_nan() && c.dcx[l].is_nan());
                }
            }
        }
        let mut backends = vec![Backend::Simd];
        backends.extend(other_instruction_sets());
        for backend in backends {
            let diffs = word_diffs(
                bytemuck::cast_slice(&run(backend)),
                bytemuck::cast_slice(&scalar),
                pin_start_word_name,
                inputs.cmp(),
            );
            assert!(
                diffs.is_empty(),
                "seed {seed}: {backend:?} vs scalar: {diffs:?}"
            );
        }
    }
}
