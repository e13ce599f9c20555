//! The world's settings: [`WorldSettings`], the [`Backend`] that solves contacts, the
//! [`MixRule`] of material coefficients, and their validation. Every stage that reads settings
//! imports them from here, so none of them depends on the world itself.

use crate::error::{check_non_negative, Error};
use crate::geometry::math::Vec2;
use crate::limits::{MAX_SOLVE_ITERATIONS, MAX_SPEED_CAP, MAX_SUBSTEPS, MAX_THREADS};
use batch2d_kernels::InstructionSet;

/// Which kernels solve the contacts.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// f32x8 kernels, eight contacts at a time, on the instruction set that
    /// [`WorldSettings::instruction_set`] picks.
    #[default]
    Simd,
    /// The one-lane reference kernels: the same arithmetic, bit-identical results.
    Scalar,
}

/// How two shapes' coefficients combine into the contact's.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MixRule {
    /// `sqrt(a * b)`.
    GeometricMean,
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `(a + b) / 2`.
    Average,
}

impl MixRule {
    /// Combines the coefficients `a` and `b` of two shapes into the contact's by this rule.
    /// Finite for any finite `a` and `b`: the product and the sum are taken in f64, since in
    /// f32 two large coefficients (a friction of 1e20 and one of 1e19) overflow to infinity,
    /// and an infinite friction times a zero normal impulse is NaN.
    pub fn mix(self, a: f32, b: f32) -> f32 {
        let (a64, b64) = (f64::from(a), f64::from(b));
        match self {
            MixRule::GeometricMean => (a64 * b64).sqrt() as f32,
            MixRule::Min => a.min(b),
            MixRule::Max => a.max(b),
            MixRule::Average => (0.5 * (a64 + b64)) as f32,
        }
    }
}

/// World-wide settings. Every field is public; start from `WorldSettings::default()`.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default)
)]
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Default (0, -10) m/s².
    pub gravity: Vec2,
    /// Solver substeps per step, 1..=256. Default 4.
    pub substeps: u32,
    /// Biased solve passes of the contacts per substep (the unbiased relax pass runs once),
    /// 1..=256. Default 1: one pass keeps large_pyramid standing as well as two (every
    /// contact kept, the top box's drop within a centimetre) with 12 passes over the
    /// contacts per step instead of 16 (docs/performance.md). A second pass lets bodies
    /// created inside each other come apart sooner and piles of circles settle faster.
    pub solve_iterations: u32,
    /// Biased solve passes of the joints per substep, 1..=256. Default 2. Joints run their
    /// own count because chains and limbs hang from each other one joint after another: at
    /// one pass a hanging chain sags and swings longer, and a car's wheels and a ragdoll's
    /// hinges open further, while contacts keep their stacks at one pass
    /// ([`solve_iterations`](Self::solve_iterations)). Costs nothing in a world without
    /// joints.
    pub joint_solve_iterations: u32,
    /// Worker threads of this world's own pool, 0..=256; 0 = one per core. Default 0. The
    /// bound is the same on every machine (see [`WorldSettings::validate`]); more threads than
    /// cores only add wake-up costs. The threads are named `batch2d-0`, `batch2d-1`, ..., the
    /// names profilers, debuggers and `perf` show.
    pub threads: usize,
    /// Default `Backend::Simd`.
    pub backend: Backend,
    /// The instruction set of the SIMD backend's kernels. Default `None`: the widest this CPU
    /// has, detected at run time ([`instruction_set`](crate::instruction_set) names it). Every
    /// set gives the same bits; `Some` picks one, for tests and benchmarks, and a set the CPU
    /// lacks fails validation. `Backend::Scalar` ignores it.
    #[cfg_attr(
        feature = "serde",
        serde(with = "crate::settings::instruction_set_serde")
    )]
    pub instruction_set: Option<InstructionSet>,
    /// Contact stiffness in Hz, capped at a quarter of the substep rate; contacts with a static
    /// or kinematic body use twice the capped value, since only one side gives. Default 45: a
    /// 100-row pyramid then sags about half a metre under its own weight; at 60 Hz it sags
    /// less, but its rows spread four times as far apart (docs/performance.md).
    pub contact_hertz: f32,
    /// Contact damping ratio. Default 10.
    pub contact_damping_ratio: f32,
    /// Highest speed (m/s) at which overlapping bodies are pushed apart. Default 3. A body
    /// overlapping several others by more than a quarter of its size (bodies created inside
    /// each other) shares it evenly among those contacts, so that pushes adding up cannot
    /// throw it out faster.
    pub contact_push_max_velocity: f32,
    /// Contact distance tolerance (m). Default 0.005. Contacts are created speculatively up to
    /// 4x this distance before touching; a pair closer than it touches (contact events); the
    /// exact solver of islands with widely different masses leaves overlap within it alone,
    /// and a bounce counts a gap within it as closed.
    pub linear_slop: f32,
    /// Approach speed (m/s) under which contacts do not bounce. Default 1.
    pub restitution_threshold: f32,
    /// Impact speed (m/s, >= 0) above which a pair that begins touching is also reported as a
    /// hit ([`ContactEvents::hit`](crate::ContactEvents::hit)): the speed at which the two
    /// met, for impact sounds and damage. Default 1, as Box2D's.
    pub hit_event_threshold: f32,
    /// Let fixed sensors see kinematic bodies (a moving platform passing a trigger zone).
    /// Default `false`, as in Box2D: a sensor sees only the bodies it is paired with for
    /// contacts, those pairs with a dynamic body. Turned on, each step tests the boxes of every
    /// fixed body with a sensor against those of every kinematic body, a cost of their product.
    pub sensors_see_kinematic: bool,
    /// Speed cap (m/s) of dynamic and kinematic bodies, held throughout the step, > 0 and at
    /// most 1e18 (its square must stay finite in f32). Default 400.
    /// Angular speed is capped too, at an eighth of a turn per substep and a quarter turn per
    /// step (`PI * min(substeps / 2, 1) / (2 dt)` rad/s: 94 rad/s at 60 Hz and 2 substeps or
    /// more), so that a substep's rotation stays small and a step's contacts stay near where
    /// its manifolds put them.
    pub max_linear_speed: f32,
    /// Default `MixRule::GeometricMean`.
    pub friction_mixing: MixRule,
    /// Default `MixRule::Min`.
    pub restitution_mixing: MixRule,
    /// Let islands of resting bodies sleep (see [`World::is_awake`](crate::World::is_awake)). Default `false`: a step
    /// then always does the full work, so figures, bit-exact checks and law tests do not
    /// depend on when something fell asleep. Turn it on for scenes that come to rest.
    pub enable_sleep: bool,
    /// Seconds every body of an island must stay below its sleep threshold before the island
    /// sleeps, >= 0. Default 0.5.
    pub time_to_sleep: f32,
    /// Most pairs of shapes whose boxes may overlap in one step, moving bodies against sleeping
    /// ones included. Default [`DEFAULT_MAX_PAIRS`](Self::DEFAULT_MAX_PAIRS) (1,000,000), which grows with the world:
    /// left at the default, the bound is the larger of it and [`PAIRS_PER_BODY`](Self::PAIRS_PER_BODY) (16)
    /// pairs per body, so that a pile of a million bodies (about three pairs each) steps while bodies
    /// created at one point, which overlap in pairs that grow with their square, are still
    /// refused. Any other value is the bound, whatever the world's size.
    ///
    /// Each pair becomes a contact with its manifold, solver rows and graph color, so this
    /// bounds a step's memory and time where bodies pile up: 1000 circles created at one point
    /// overlap in 499,500 pairs, 10,000 in 50 million. A step with more returns
    /// [`Error::TooManyPairs`] without changing the world. Any value is valid; `usize::MAX`
    /// lifts the limit.
    pub max_pairs: usize,
    /// Largest motion (m) of one body relative to the other, measured at each contact point,
    /// since a pair's last full collide for which the pair reuses that collide's manifold
    /// (recycles it) instead of colliding afresh; finite and >= 0. Default 0.005 (the default
    /// [`linear_slop`](Self::linear_slop)). Only pairs of polygons (boxes,
    /// polygons, capsules, segments) recycle; a pair with a circle collides every step.
    ///
    /// A recycled manifold keeps the normal, points and feature ids of that collide, each
    /// point's separation moved by the relative motion along the normal. Each collide works
    /// out its own reach, the motion for which a fresh collide would keep those features and
    /// its separations stay within a twentieth of the slop (plus second-order terms) of the
    /// recycled ones; this caps it. A wider cap collides fewer pairs afresh where the reach
    /// allows; 0 recycles only pairs that have not moved at all. The error never builds up:
    /// motion is measured from the last full collide, so a pair past its reach collides
    /// afresh.
    pub recycle_distance: f32,
    /// Largest rotation (rad) of one body relative to the other since a pair's last full
    /// collide for which its manifold is recycled (see
    /// [`recycle_distance`](Self::recycle_distance)), measured as the chord `|R1 - R0|` of the
    /// two rotations (the angle, to first order); finite and >= 0. Default 0.004. A rotation
    /// turns the true normal by as much, which a recycled manifold does not follow, and moves
    /// points far from the contact by the angle times their distance, which each pair's reach
    /// then leaves less room for.
    pub recycle_angle: f32,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            gravity: Vec2::new(0.0, -10.0),
            substeps: 4,
            solve_iterations: 1,
            joint_solve_iterations: 2,
            threads: 0,
            backend: Backend::Simd,
            instruction_set: None,
            contact_hertz: 45.0,
            contact_damping_ratio: 10.0,
            contact_push_max_velocity: 3.0,
            linear_slop: 0.005,
            restitution_threshold: 1.0,
            hit_event_threshold: 1.0,
            sensors_see_kinematic: false,
            max_linear_speed: 400.0,
            friction_mixing: MixRule::GeometricMean,
            restitution_mixing: MixRule::Min,
            enable_sleep: false,
            time_to_sleep: 0.5,
            max_pairs: WorldSettings::DEFAULT_MAX_PAIRS,
            recycle_distance: WorldSettings::DEFAULT_RECYCLE_DISTANCE,
            recycle_angle: WorldSettings::DEFAULT_RECYCLE_ANGLE,
        }
    }
}

impl WorldSettings {
    /// The default of [`max_pairs`](Self::max_pairs): the bound of a small world, and the
    /// value that lets the bound grow with the world.
    pub const DEFAULT_MAX_PAIRS: usize = 1_000_000;

    /// Pairs allowed per body where [`max_pairs`](Self::max_pairs) is left at its default.
    /// Bodies packed as tightly as they go overlap in a few pairs each (circles in rows touch
    /// six neighbours, three pairs per body; boxes with their speculative margins eight, four
    /// pairs), so a world refused at this many is piled up at a point, not packed.
    pub const PAIRS_PER_BODY: usize = 16;

    /// The default of [`recycle_distance`](Self::recycle_distance) (m).
    pub const DEFAULT_RECYCLE_DISTANCE: f32 = 0.005;

    /// The default of [`recycle_angle`](Self::recycle_angle) (rad).
    pub const DEFAULT_RECYCLE_ANGLE: f32 = 0.004;

    /// The bound on overlapping pairs in a world of `bodies` bodies:
    /// [`max_pairs`](Self::max_pairs) where it was set, at its default the larger of it and
    /// [`PAIRS_PER_BODY`](Self::PAIRS_PER_BODY) per body.
    pub fn pair_limit(&self, bodies: usize) -> usize {
        if self.max_pairs == Self::DEFAULT_MAX_PAIRS {
            Self::DEFAULT_MAX_PAIRS.max(bodies.saturating_mul(Self::PAIRS_PER_BODY))
        } else {
            self.max_pairs
        }
    }

    /// The length (s) of one substep of a step `dt` long: the one place it is computed, so
    /// that the solver, the joints it prepares and the contact events agree bit for bit.
    pub(crate) fn substep_length(&self, dt: f32) -> f32 {
        dt / self.substeps as f32
    }

    /// `Err(InvalidParameter)` naming the first bad field: a non-finite gravity, `substeps`,
    /// `solve_iterations` or `joint_solve_iterations` outside 1..=256, `threads` over 256,
    /// `contact_hertz`, `contact_push_max_velocity`, `linear_slop` or `max_linear_speed` not
    /// finite and > 0, a `max_linear_speed` over 1e18, or a negative or non-finite damping
    /// ratio, time to sleep, restitution threshold, hit event threshold, recycle distance or
    /// recycle angle, or an `instruction_set` this CPU lacks.
    /// [`World::new`](crate::World::new) and
    /// [`World::try_new`](crate::World::try_new) both run it.
    pub fn validate(&self) -> Result<(), Error> {
        check_gravity(self.gravity)?;
        check_work_limits(self)?;
        let positive = [
            ("contact_hertz", self.contact_hertz),
            ("contact_push_max_velocity", self.contact_push_max_velocity),
            ("linear_slop", self.linear_slop),
            ("max_linear_speed", self.max_linear_speed),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::InvalidParameter(format!(
                    "{name} must be finite and > 0, got {value}"
                )));
            }
        }
        if self.max_linear_speed > MAX_SPEED_CAP {
            return Err(Error::InvalidParameter(format!(
                "max_linear_speed must be at most {} m/s, got {}",
                MAX_SPEED_CAP, self.max_linear_speed
            )));
        }
        check_non_negative("contact_damping_ratio", self.contact_damping_ratio)?;
        check_non_negative("time_to_sleep", self.time_to_sleep)?;
        check_non_negative("restitution_threshold", self.restitution_threshold)?;
        check_non_negative("hit_event_threshold", self.hit_event_threshold)?;
        check_non_negative("recycle_distance", self.recycle_distance)?;
        check_non_negative("recycle_angle", self.recycle_angle)?;
        match self.instruction_set {
            Some(set) if !set.is_supported() => Err(Error::InvalidParameter(format!(
                "instruction_set {} is not supported by this CPU (the widest it has is {})",
                set.name(),
                InstructionSet::widest().name()
            ))),
            _ => Ok(()),
        }
    }
}

/// `Err(InvalidParameter)` unless both components of `gravity` are finite.
pub(crate) fn check_gravity(gravity: Vec2) -> Result<(), Error> {
    if gravity.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "gravity must be finite, got {gravity:?}"
        )))
    }
}

/// `Err(InvalidParameter)` when `substeps`, `solve_iterations`, `joint_solve_iterations` or
/// `threads` of `settings` is out of range.
fn check_work_limits(settings: &WorldSettings) -> Result<(), Error> {
    let counts = [
        (
            "substeps",
            settings.substeps as usize,
            1,
            MAX_SUBSTEPS as usize,
        ),
        (
            "solve_iterations",
            settings.solve_iterations as usize,
            1,
            MAX_SOLVE_ITERATIONS as usize,
        ),
        (
            "joint_solve_iterations",
            settings.joint_solve_iterations as usize,
            1,
            MAX_SOLVE_ITERATIONS as usize,
        ),
        ("threads", settings.threads, 0, MAX_THREADS),
    ];
    for (name, value, low, high) in counts {
        if !(low..=high).contains(&value) {
            return Err(Error::InvalidParameter(format!(
                "{name} must be in {low}..={high}, got {value}"
            )));
        }
    }
    Ok(())
}

/// [`WorldSettings::instruction_set`](crate::WorldSettings::instruction_set) by its name
/// ([`InstructionSet::name`]), or none.
#[cfg(feature = "serde")]
mod instruction_set_serde {
    use batch2d_kernels::InstructionSet;
    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        set: &Option<InstructionSet>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        set.map(InstructionSet::name).serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<InstructionSet>, D::Error> {
        let Some(name) = Option::<String>::deserialize(deserializer)? else {
            return Ok(None);
        };
        let set = InstructionSet::ALL.into_iter().find(|s| s.name() == name);
        set.map(Some).ok_or_else(|| {
            de::Error::custom(format!(
                "unknown instruction set {name:?} (portable, avx2 or avx512)"
            ))
        })
    }
}
