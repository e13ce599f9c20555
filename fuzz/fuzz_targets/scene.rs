//! Builds whole worlds from the input bytes and checks every query against brute force.
//!
//! Where the `api` target makes a few dozen bodies with arbitrary floats, this one makes
//! scenes: up to 2000 bodies, in piles (many bodies at one point or in a tiny region, with
//! coincident ones), at extreme coordinates (near ±1e6 up to ±1e30), of tiny and huge sizes,
//! of mixed shapes (circles, boxes, polygons, capsules, segments, compounds), static, kinematic
//! and dynamic; it removes bodies (one, a share, all), teleports them, changes the settings,
//! steps with good and bad time steps, and runs every query.
//!
//! What it checks, after every operation:
//! - no panic; bad input gives `Err`, and an `Err` leaves the world as it was;
//! - after a step that returned `Ok`, every body's state is finite;
//! - the body count follows the adds and removals that returned `Ok`, and every handle ever
//!   removed gives `Err(InvalidBody)`;
//! - every query result agrees with a brute-force computation over every body, done here in
//!   f64 from each body's transform and shapes (see [`Solid`]): a body within the f32
//!   rounding band of the query's boundary may fall either way, every other must be answered
//!   exactly; queries refuse exactly the input their docs say they refuse;
//! - optionally (decided by the input), a twin world on the other backend and thread count
//!   stays bit-identical.
//!
//! Each input's cost is bounded (bodies, operations, steps, solver passes and
//! `WorldSettings::max_pairs`), so that an input runs in well under libFuzzer's `-timeout`.
//! `BATCH2D_FUZZ_TRACE=1` prints what an input does, to turn a finding into a regression test.

// The fuzz target binary has libFuzzer's `main`; tests/robust/fuzz_regressions.rs includes this file
// as a module (`cfg(test)`) and replays the kept inputs of fuzz/regressions/ through `run`.
#![cfg_attr(not(test), no_main)]

use arbitrary::{Arbitrary, Result, Unstructured};
use batch2d::{
    Aabb, Backend, BodyDef, BodyId, Error, QueryFilter, Rot, Shape, ShapeDef, Transform, Vec2,
    World, WorldSettings, MAX_COMPOUND_SHAPES,
};
#[cfg(not(test))]
use libfuzzer_sys::fuzz_target;

/// Most bodies alive at once, operations per input, and steps per input.
const MAX_BODIES: usize = 2000;
const MAX_OPS: usize = 64;
const MAX_STEPS: usize = 8;
/// Most bodies stepped per input, summed over its steps and worlds: two steps of 2000 bodies.
/// A step's cost grows with the pairs of bodies whose boxes overlap even where their layers
/// keep them from colliding, which `max_pairs` does not count: 2000 such bodies at one point
/// make two million box tests a step.
const MAX_BODY_STEPS: usize = 4000;
/// Most substeps x solve passes per step.
const MAX_SOLVER_WORK: u32 = 16;
/// `max_pairs` values tried: none allowed, a few, up to the most a step of this target may
/// solve. The engine's default (a million) would let 1000 coincident bodies make half a
/// million contacts a step.
const MAX_PAIRS: [usize; 6] = [0, 1, 64, 1024, 8192, 20_000];
/// Stale handles checked after every operation (all of them at the end).
const STALE_CHECKS: usize = 16;

/// Floats at the edges of f32 and of the engine's tolerances.
const SPECIAL: [f32; 12] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    1.0e-30,
    1.0e30,
    0.005,
    1.0e6,
];

/// An ordinary float: a multiple of 1/256 in -128..128.
fn ordinary(u: &mut Unstructured) -> Result<f32> {
    Ok(i16::arbitrary(u)? as f32 / 256.0)
}

/// A coordinate: usually ordinary, often far out (±1e3 to ±1e30, with a small offset so that
/// neighbours differ in their last bits), sometimes special or any bit pattern.
fn coord(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => f32::from_bits(u32::arbitrary(u)?),
        1 => *u.choose(&SPECIAL)?,
        2 | 3 => {
            let magnitude = 10f32.powi(u.int_in_range(3i32..=30)?);
            let sign = if bool::arbitrary(u)? { -1.0 } else { 1.0 };
            sign * magnitude + ordinary(u)?
        }
        _ => ordinary(u)?,
    })
}

fn point(u: &mut Unstructured) -> Result<Vec2> {
    Ok(Vec2::new(coord(u)?, coord(u)?))
}

/// A length: usually 1 mm to 1 km on a log scale, sometimes tiny, huge (up to the 1e6 m a shape
/// may reach, and beyond) or special.
fn size(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => *u.choose(&SPECIAL)?,
        1 => *u.choose(&[1.0e-6, 1.0e-4, 2.5e-3, 4.0e5, 9.9e5, 1.0e6, 1.1e6, 1.0e9])?,
        _ => 10f32.powf(u.int_in_range(-300i16..=300)? as f32 / 100.0),
    })
}

/// A velocity component: mostly modest, sometimes at or beyond the limits.
fn speed(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=7)? {
        0 => *u.choose(&[1.0e30, -1.0e30, 1.1e30, 400.0, 1.0e4, f32::NAN])?,
        1 => coord(u)?,
        _ => ordinary(u)?,
    })
}

fn velocity(u: &mut Unstructured) -> Result<Vec2> {
    Ok(Vec2::new(speed(u)?, speed(u)?))
}

/// A shape about `size` across, centred near the body origin (or offset from it).
fn shape(u: &mut Unstructured) -> Result<Shape> {
    let s = size(u)?;
    let offset = |u: &mut Unstructured| -> Result<Vec2> {
        Ok(if bool::arbitrary(u)? {
            Vec2::ZERO
        } else {
            Vec2::new(ordinary(u)?, ordinary(u)?) * s
        })
    };
    let made = match u.int_in_range(0u8..=7)? {
        0 => Shape::circle(s),
        1 => Shape::circle_at(offset(u)?, s),
        2 => Shape::rect(s, s * aspect(u)?),
        3 => Shape::offset_rect(s, s * aspect(u)?, offset(u)?, ordinary(u)?),
        4 => {
            let half = Vec2::new(s, s * ordinary(u)?);
            let c = offset(u)?;
            Shape::capsule(c - half, c + half, s * aspect(u)?)
        }
        5 => {
            let half = Vec2::new(s, s * ordinary(u)?);
            if bool::arbitrary(u)? {
                Shape::segment(-half, half)
            } else {
                // A chain segment between neighbours that bend up or down by up to 27 degrees.
                let bend = |u: &mut Unstructured| -> Result<Vec2> {
                    Ok(half.left_perp() * ordinary(u)?.clamp(-1.0, 1.0))
                };
                let prev = -half * 3.0 + bend(u)?;
                let next = half * 3.0 + bend(u)?;
                Shape::chain_segment(Some(prev), -half, half, Some(next))
            }
        }
        kind => {
            let n = u.int_in_range(3usize..=10)?;
            let points = (0..n)
                .map(|_| Ok(Vec2::new(ordinary(u)?, ordinary(u)?) * (s / 64.0)))
                .collect::<Result<Vec<_>>>()?;
            let radius = if kind == 6 { 0.0 } else { s * aspect(u)? };
            // A refused hull is a finding only if it panicked; a box takes its place.
            Shape::rounded_polygon(&points, radius).or_else(|_| Shape::rect(s, s))
        }
    };
    // A refused size (NaN, infinite, zero or negative) is a finding only if it panicked; the
    // scene goes on with a 1 m box.
    Ok(made.unwrap_or_else(|_| Shape::rect(0.5, 0.5).expect("a 1 m box is valid")))
}

/// A ratio of two sizes: 1, or 1/100 to 100.
fn aspect(u: &mut Unstructured) -> Result<f32> {
    Ok(if bool::arbitrary(u)? {
        1.0
    } else {
        10f32.powf(u.int_in_range(-200i16..=200)? as f32 / 100.0)
    })
}

fn layers(u: &mut Unstructured) -> Result<u32> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => u32::arbitrary(u)?,
        1 => 1 << u.int_in_range(0u32..=3)?,
        _ => 1,
    })
}

fn mask(u: &mut Unstructured) -> Result<u32> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => u32::arbitrary(u)?,
        1 => 1 << u.int_in_range(0u32..=3)?,
        _ => u32::MAX,
    })
}

fn shape_def(u: &mut Unstructured) -> Result<ShapeDef> {
    let mut def = ShapeDef::new(shape(u)?);
    if bool::arbitrary(u)? {
        def = def
            .density(*u.choose(&[1.0, 0.0, 1.0e-3, 1.0e3, 1.0e20, -1.0, f32::NAN])?)
            .friction(*u.choose(&[0.6, 0.0, 1.0, 1.0e30, -1.0])?)
            .restitution(*u.choose(&[0.0, 0.5, 1.0, 1.5])?)
            .layers(layers(u)?)
            .mask(mask(u)?)
            .sensor(u.ratio(1u8, 16)?);
    }
    Ok(def)
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Static,
    Kinematic,
    Dynamic,
}

fn kind(u: &mut Unstructured) -> Result<Kind> {
    Ok(match u.int_in_range(0u8..=5)? {
        0 => Kind::Static,
        1 => Kind::Kinematic,
        _ => Kind::Dynamic,
    })
}

fn body_def(kind: Kind, at: Vec2, angle: f32) -> BodyDef {
    match kind {
        Kind::Static => BodyDef::fixed(),
        Kind::Kinematic => BodyDef::kinematic(),
        Kind::Dynamic => BodyDef::dynamic(),
    }
    .position(at)
    .angle(angle)
}

/// Optional motion and material of a body definition.
#[derive(Clone, Copy, Debug)]
struct Motion {
    linear_velocity: Vec2,
    angular_velocity: f32,
    gravity_scale: f32,
    damping: f32,
    fixed_rotation: bool,
    bullet: bool,
}

fn motion(u: &mut Unstructured) -> Result<Option<Motion>> {
    if bool::arbitrary(u)? {
        return Ok(None);
    }
    Ok(Some(Motion {
        linear_velocity: velocity(u)?,
        angular_velocity: speed(u)?,
        gravity_scale: *u.choose(&[1.0, 0.0, -1.0, 1.0e30, f32::MAX])?,
        damping: *u.choose(&[0.0, 0.1, 10.0, f32::MAX])?,
        fixed_rotation: bool::arbitrary(u)?,
        bullet: bool::arbitrary(u)?,
    }))
}

impl Motion {
    fn apply(self, def: BodyDef) -> BodyDef {
        def.linear_velocity(self.linear_velocity)
            .angular_velocity(self.angular_velocity)
            .gravity_scale(self.gravity_scale)
            .linear_damping(self.damping)
            .angular_damping(self.damping)
            .fixed_rotation(self.fixed_rotation)
            .bullet(self.bullet)
    }
}

/// Settings with small solver budgets and a `max_pairs` of [`MAX_PAIRS`]; backend and threads
/// are the caller's.
fn settings(u: &mut Unstructured) -> Result<WorldSettings> {
    let mut s = WorldSettings {
        max_pairs: *u.choose(&MAX_PAIRS)?,
        ..WorldSettings::default()
    };
    if bool::arbitrary(u)? {
        s.substeps = u.int_in_range(0..=8)?;
        s.solve_iterations = u.int_in_range(0..=MAX_SOLVER_WORK / s.substeps.max(1))?;
        s.joint_solve_iterations = u.int_in_range(0..=MAX_SOLVER_WORK / s.substeps.max(1))?;
        s.gravity = *u.choose(&[
            s.gravity,
            Vec2::ZERO,
            Vec2::new(0.0, -1.0e4),
            Vec2::new(1.0e30, -1.0e30),
            Vec2::new(f32::NAN, 0.0),
        ])?;
        s.contact_hertz = *u.choose(&[s.contact_hertz, 1.0e-3, 1.0e6, 0.0])?;
        s.contact_push_max_velocity = *u.choose(&[s.contact_push_max_velocity, 1.0e30])?;
        s.linear_slop = *u.choose(&[s.linear_slop, 1.0e-6, 1.0, -1.0])?;
        s.max_linear_speed = *u.choose(&[s.max_linear_speed, 1.0e-3, 1.0e18, 1.1e18])?;
        s.enable_sleep = bool::arbitrary(u)?;
        s.time_to_sleep = *u.choose(&[s.time_to_sleep, 0.0, 1.0e30])?;
    }
    Ok(s)
}

/// A place given relative to a body that exists when the operation runs (by index into every
/// handle made so far; the world origin when there is none), or absolutely.
#[derive(Clone, Copy, Debug)]
enum At {
    Near(usize, Vec2),
    Absolute(Vec2),
}

fn at(u: &mut Unstructured) -> Result<At> {
    Ok(if u.ratio(3u8, 4)? {
        let offset = Vec2::new(ordinary(u)?, ordinary(u)?) * *u.choose(&[1.0, 1.0e-3, 1.0e-6])?;
        At::Near(usize::arbitrary(u)?, offset)
    } else {
        At::Absolute(point(u)?)
    })
}

fn filter(u: &mut Unstructured) -> Result<QueryFilter> {
    Ok(if bool::arbitrary(u)? {
        QueryFilter::default()
    } else {
        QueryFilter::new().layers(layers(u)?).mask(mask(u)?)
    })
}

#[derive(Clone, Debug)]
enum Query {
    Aabb(At, Vec2, QueryFilter),
    Point(At, QueryFilter),
    Shape(Shape, At, f32, QueryFilter),
    /// Origin, target, scale of the translation (origin to target), max fraction, all hits.
    Ray(At, At, f32, f32, QueryFilter, bool),
    CastShape(Shape, At, f32, At, QueryFilter),
}

fn query(u: &mut Unstructured) -> Result<Query> {
    Ok(match u.int_in_range(0u8..=5)? {
        0 => {
            let half = if u.ratio(1u8, 8)? {
                Vec2::new(coord(u)?, coord(u)?)
            } else {
                Vec2::new(size(u)?, size(u)?)
            };
            Query::Aabb(at(u)?, half, filter(u)?)
        }
        1 => Query::Point(at(u)?, filter(u)?),
        2 => Query::Shape(shape(u)?, at(u)?, ordinary(u)?, filter(u)?),
        3 | 4 => {
            let scale = *u.choose(&[1.0, 0.5, 2.0, 1.0e-3, 1.0e3, 0.0, f32::NAN])?;
            let max = *u.choose(&[1.0, 0.0, 0.5, 2.0, 1.0e30, -1.0, f32::INFINITY])?;
            Query::Ray(at(u)?, at(u)?, scale, max, filter(u)?, bool::arbitrary(u)?)
        }
        _ => {
            let cast = if bool::arbitrary(u)? {
                Shape::circle(size(u)?)
                    .unwrap_or_else(|_| Shape::circle(1.0).expect("a 1 m disc is valid"))
            } else {
                shape(u)?
            };
            Query::CastShape(cast, at(u)?, ordinary(u)?, at(u)?, filter(u)?)
        }
    })
}

#[derive(Debug)]
enum Op {
    /// One body, compound when given several shapes.
    Add(Kind, Vec2, f32, Option<Motion>, Vec<ShapeDef>),
    /// `count` bodies at `center`, spread over a square of half side `spread` (0: coincident)
    /// from the seed, turned at random, their shapes taken in turn from `shapes`.
    Pile {
        count: usize,
        center: Vec2,
        spread: f32,
        seed: u32,
        kinds: Vec<Kind>,
        motion: Option<Motion>,
        shapes: Vec<ShapeDef>,
    },
    /// A body of every handle made so far, live or removed.
    Remove(usize),
    /// Every `every`-th live body from `phase` on.
    RemoveShare(usize, usize),
    Step(f32),
    SetSettings(Box<WorldSettings>),
    SetTransform(usize, At, f32),
    SetVelocity(usize, Vec2, f32),
    Query(Box<Query>),
}

fn op(u: &mut Unstructured) -> Result<Op> {
    Ok(match u.int_in_range(0u8..=15)? {
        0 | 1 => {
            let n = if u.ratio(1u8, 4)? {
                u.int_in_range(0..=MAX_COMPOUND_SHAPES + 1)?
            } else {
                1
            };
            let shapes = (0..n).map(|_| shape_def(u)).collect::<Result<_>>()?;
            Op::Add(kind(u)?, point(u)?, ordinary(u)?, motion(u)?, shapes)
        }
        2 | 3 => {
            let count = match u.int_in_range(0u8..=3)? {
                0 => MAX_BODIES,
                1 => u.int_in_range(1..=MAX_BODIES)?,
                _ => u.int_in_range(1..=64)?,
            };
            let spread = match u.int_in_range(0u8..=3)? {
                0 => 0.0,
                1 => *u.choose(&[1.0e-6, 1.0e-3, 1.0e30])?,
                _ => size(u)?,
            };
            let n = u.int_in_range(1..=4)?;
            let kinds = (0..u.int_in_range(1..=3)?)
                .map(|_| kind(u))
                .collect::<Result<_>>()?;
            Op::Pile {
                count,
                center: point(u)?,
                spread,
                seed: u32::arbitrary(u)?,
                kinds,
                motion: motion(u)?,
                shapes: (0..n).map(|_| shape_def(u)).collect::<Result<_>>()?,
            }
        }
        4 => Op::Remove(usize::arbitrary(u)?),
        5 => Op::RemoveShare(u.int_in_range(1..=4)?, usize::arbitrary(u)?),
        6..=8 => Op::Step(match u.int_in_range(0u8..=7)? {
            0 => float_step(u)?,
            1 => *u.choose(&[1.0, 1.000_000_1, 0.5, 1.0 / 240.0, 1.0e-7, 1.0e-30])?,
            _ => 1.0 / 60.0,
        }),
        9 => Op::SetSettings(Box::new(settings(u)?)),
        10 => Op::SetTransform(usize::arbitrary(u)?, at(u)?, ordinary(u)?),
        11 => Op::SetVelocity(usize::arbitrary(u)?, velocity(u)?, speed(u)?),
        _ => Op::Query(Box::new(query(u)?)),
    })
}

/// Any time step, bad ones included.
fn float_step(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=2)? {
        0 => f32::from_bits(u32::arbitrary(u)?),
        1 => *u.choose(&SPECIAL)?,
        _ => -1.0 / 60.0,
    })
}

/// xorshift32: the pile's positions from its seed, so that 2000 bodies cost a few bytes.
struct Rng(u32);

impl Rng {
    /// In -1..1.
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        (self.0 >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }
}

/// Everything observable about a world's bodies, as bits (NaN equals itself, -0 differs from 0).
fn snapshot(world: &World) -> Vec<u32> {
    let mut out = vec![world.body_count() as u32];
    for id in world.bodies() {
        let p = world.position(id).unwrap();
        let v = world.linear_velocity(id).unwrap();
        let q = world.rotation(id).unwrap();
        let w = world.angular_velocity(id).unwrap();
        out.push(id.slot());
        out.extend([p.x, p.y, q.c, q.s, v.x, v.y, w].map(f32::to_bits));
    }
    out
}

fn assert_finite(world: &World, after: &Op) {
    for id in world.bodies() {
        let p = world.position(id).unwrap();
        let v = world.linear_velocity(id).unwrap();
        let q = world.rotation(id).unwrap();
        let w = world.angular_velocity(id).unwrap();
        let xf = world.transform(id).unwrap();
        let finite = p.is_finite() && v.is_finite() && q.c.is_finite() && q.s.is_finite();
        assert!(
            finite && w.is_finite() && xf.p.is_finite(),
            "non-finite state of {id:?} after {after:?}: {p:?} {q:?} {v:?} {w}"
        );
    }
}

/// One world and what the target knows about it.
struct Sim {
    world: World,
    /// Every handle this world returned, in order.
    ids: Vec<BodyId>,
    /// Handles removed with `Ok`.
    removed: Vec<BodyId>,
    /// Live bodies by the count of adds and removals that returned `Ok`.
    live: usize,
    steps: usize,
    /// Bodies stepped so far, summed over the steps, and the most this world may step.
    body_steps: usize,
    max_body_steps: usize,
    /// The layers and mask of each shape of the body in each slot, as added.
    filters: Vec<Vec<(u32, u32)>>,
}

impl Sim {
    fn new(world: World, max_body_steps: usize) -> Sim {
        Sim {
            world,
            ids: Vec::new(),
            removed: Vec::new(),
            live: 0,
            steps: 0,
            body_steps: 0,
            max_body_steps,
            filters: Vec::new(),
        }
    }

    fn id(&self, i: usize) -> Option<BodyId> {
        (!self.ids.is_empty()).then(|| self.ids[i % self.ids.len()])
    }

    fn place(&self, at: At) -> Vec2 {
        match at {
            At::Absolute(p) => p,
            At::Near(i, offset) => {
                let live = self.id(i).and_then(|id| self.world.position(id).ok());
                live.unwrap_or(Vec2::ZERO) + offset
            }
        }
    }

    fn add(&mut self, def: BodyDef, shapes: &[ShapeDef]) -> std::result::Result<(), Error> {
        if self.live >= MAX_BODIES {
            return Ok(());
        }
        let before = self.world.body_count();
        let added = if shapes.len() == 1 {
            self.world.add_body(def, shapes[0].clone())
        } else {
            self.world.add_compound_body(def, shapes)
        };
        match added {
            Ok(id) => {
                let slot = id.slot() as usize;
                if self.filters.len() <= slot {
                    self.filters.resize(slot + 1, Vec::new());
                }
                self.filters[slot] = shapes.iter().map(|d| (d.layers, d.mask)).collect();
                self.ids.push(id);
                self.live += 1;
                Ok(())
            }
            Err(e) => {
                assert_eq!(self.world.body_count(), before, "a refused add added: {e}");
                Err(e)
            }
        }
    }

    fn remove(&mut self, id: BodyId) -> std::result::Result<(), Error> {
        let live = self.world.position(id).is_ok();
        let result = self.world.remove_body(id);
        match result {
            Ok(()) => {
                assert!(live, "removed a body that was not live: {id:?}");
                self.removed.push(id);
                self.live -= 1;
            }
            Err(ref e) => assert!(!live && *e == Error::InvalidBody, "{id:?}: {e}"),
        }
        result
    }

    /// Applies `op`, checking what can be checked in one world.
    fn apply(&mut self, op: &Op) -> std::result::Result<(), Error> {
        match op {
            Op::Add(kind, p, angle, motion, shapes) => {
                let mut def = body_def(*kind, *p, *angle);
                if let Some(m) = motion {
                    def = m.apply(def);
                }
                self.add(def, shapes)
            }
            Op::Pile {
                count,
                center,
                spread,
                seed,
                kinds,
                motion,
                shapes,
            } => {
                let mut rng = Rng(seed | 1);
                for i in 0..*count {
                    let offset = Vec2::new(rng.next(), rng.next()) * *spread;
                    let angle = std::f32::consts::PI * rng.next();
                    let mut def = body_def(kinds[i % kinds.len()], *center + offset, angle);
                    if let Some(m) = motion {
                        def = m.apply(def);
                    }
                    // A definition that is refused once is refused every time: stop there.
                    self.add(def, std::slice::from_ref(&shapes[i % shapes.len()]))?;
                }
                Ok(())
            }
            Op::Remove(i) => self.id(*i).map_or(Ok(()), |id| self.remove(id)),
            Op::RemoveShare(every, phase) => {
                let live: Vec<BodyId> = self.world.bodies().collect();
                let gone = live.iter().skip(phase % every).step_by(*every);
                for &id in gone {
                    self.remove(id)?;
                }
                Ok(())
            }
            Op::Step(dt) => {
                let bodies = self.world.body_count();
                if self.steps >= MAX_STEPS || self.body_steps + bodies > self.max_body_steps {
                    return Ok(());
                }
                self.steps += 1;
                self.body_steps += bodies;
                let before = snapshot(&self.world);
                let result = self.world.step(*dt);
                let bad_dt = !(dt.is_finite() && *dt > 0.0 && *dt <= 1.0);
                match result {
                    Ok(()) => {
                        assert!(!bad_dt, "step({dt}) accepted");
                        assert_finite(&self.world, op);
                    }
                    Err(ref e) => {
                        let too_many = matches!(e, Error::TooManyPairs { .. });
                        assert!(bad_dt || too_many, "step({dt}) refused: {e}");
                        assert!(snapshot(&self.world) == before, "Err changed the world");
                    }
                }
                result
            }
            Op::SetSettings(s) => {
                let current = self.world.settings();
                let settings = WorldSettings {
                    threads: current.threads,
                    backend: current.backend,
                    friction_mixing: current.friction_mixing,
                    restitution_mixing: current.restitution_mixing,
                    ..(**s).clone()
                };
                let valid = settings.validate().is_ok();
                let result = self.world.set_settings(settings.clone());
                assert_eq!(result.is_ok(), valid, "{result:?}");
                if result.is_ok() {
                    assert_eq!(*self.world.settings(), settings);
                }
                result
            }
            Op::SetTransform(i, to, angle) => {
                let (Some(id), p) = (self.id(*i), self.place(*to)) else {
                    return Ok(());
                };
                let before = snapshot(&self.world);
                let result = self.world.set_transform(id, p, *angle);
                self.check_refusal(id, &result, &before);
                result
            }
            Op::SetVelocity(i, v, w) => {
                let Some(id) = self.id(*i) else {
                    return Ok(());
                };
                let before = snapshot(&self.world);
                let result = self.world.set_linear_velocity(id, *v);
                self.check_refusal(id, &result, &before);
                let before = snapshot(&self.world);
                let result = result.and_then(|()| self.world.set_angular_velocity(id, *w));
                self.check_refusal(id, &result, &before);
                result
            }
            Op::Query(q) => {
                self.query(q);
                Ok(())
            }
        }
    }

    /// After a call on body `id`: a removed body gives `Err(InvalidBody)`, and an `Err` leaves
    /// the world as it was.
    fn check_refusal(&self, id: BodyId, result: &std::result::Result<(), Error>, before: &[u32]) {
        if self.removed.contains(&id) {
            assert_eq!(*result, Err(Error::InvalidBody));
        }
        if result.is_err() {
            assert!(snapshot(&self.world) == before, "Err changed the world");
        }
    }

    /// Checks what holds after every operation.
    fn check(&self, all_stale: bool) {
        let world = &self.world;
        assert_eq!(world.body_count(), self.live);
        assert_eq!(world.bodies().count(), self.live);
        let n = if all_stale {
            self.removed.len()
        } else {
            STALE_CHECKS
        };
        for &id in self.removed.iter().rev().take(n) {
            assert_eq!(world.position(id), Err(Error::InvalidBody));
            assert_eq!(world.shapes(id).err(), Some(Error::InvalidBody));
        }
        let _ = world.contact_count();
    }
}

// ---------------------------------------------------------------------------------------------
// Brute force: every body's shapes in f64, and the queries' answers computed from them.

type P = [f64; 2];

/// Headroom over f32's relative spacing for where the engine may put a surface: a body's shape
/// exists in f32 at its position, a few spacings of the larger of its distance from the origin
/// and its size off the exact one.
const TOL_PER_MAGNITUDE: f64 = 16.0 * f32::EPSILON as f64;

/// The brute force's own rounding, per unit of the largest coordinate a query involves: f64
/// resolves a point 1e23 m out to within 1e7 m.
const F64_PER_MAGNITUDE: f64 = 64.0 * f64::EPSILON;

/// The band a query's own coordinates add to the brute force's.
fn f64_band(points: &[Vec2]) -> f64 {
    let magnitude = points
        .iter()
        .fold(0.0f32, |m, p| m.max(p.x.abs()).max(p.y.abs()));
    F64_PER_MAGNITUDE * f64::from(magnitude)
}

/// Gap within which a shape cast stops short of a body: 2.5 mm, half the linear slop
/// (`ShapeHit::fraction`'s documentation).
const CAST_BAND: f64 = 0.0025f32 as f64;

fn p64(v: Vec2) -> P {
    [f64::from(v.x), f64::from(v.y)]
}

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1]]
}

fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn cross(a: P, b: P) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

fn norm(a: P) -> f64 {
    dot(a, a).sqrt()
}

/// One shape of a body as the brute force sees it: the points within `r` of a convex core (1
/// point for a circle, 2 for a capsule or segment, 3 or more counter-clockwise for a polygon),
/// in world coordinates.
#[derive(Clone, Debug)]
struct Solid {
    core: Vec<P>,
    r: f64,
    /// The band within which the engine may place its surface.
    tol: f64,
}

impl Solid {
    fn of(shape: &Shape, xf: Transform) -> Solid {
        let (c, s) = (f64::from(xf.q.c), f64::from(xf.q.s));
        let p = p64(xf.p);
        let place = |v: Vec2| {
            let v = p64(v);
            [p[0] + c * v[0] - s * v[1], p[1] + s * v[0] + c * v[1]]
        };
        let (local, r): (Vec<Vec2>, f32) = match shape {
            Shape::Circle(circle) => (vec![circle.center()], circle.radius()),
            Shape::Polygon(polygon) => (polygon.vertices().to_vec(), polygon.radius()),
        };
        let reach = local.iter().map(|&v| norm(p64(v))).fold(0.0, f64::max) + f64::from(r);
        let magnitude = p[0].abs().max(p[1].abs()) + reach;
        let core = local.into_iter().map(place).collect();
        Solid::new(core, f64::from(r), TOL_PER_MAGNITUDE * magnitude)
    }

    /// A solid whose core has no repeated vertex: far from the origin, vertices a few
    /// millimetres apart can round to the same f64, leaving fewer of them.
    fn new(mut core: Vec<P>, r: f64, tol: f64) -> Solid {
        core.dedup();
        while core.len() > 1 && core.first() == core.last() {
            core.pop();
        }
        Solid { core, r, tol }
    }

    /// The core's edges: a point's one degenerate edge, a segment's one edge, or a polygon's.
    fn edges(&self) -> Vec<(P, P)> {
        let n = self.core.len();
        match n {
            1 => vec![(self.core[0], self.core[0])],
            2 => vec![(self.core[0], self.core[1])],
            _ => (0..n)
                .map(|i| (self.core[i], self.core[(i + 1) % n]))
                .collect(),
        }
    }

    /// Unit normals of the core's edges (outward for a polygon; a segment's either way).
    fn normals(&self) -> Vec<P> {
        if self.core.len() < 2 {
            return Vec::new();
        }
        self.edges()
            .iter()
            .filter_map(|&(a, b)| {
                let e = sub(b, a);
                let l = norm(e);
                (l > 0.0).then(|| [e[1] / l, -e[0] / l])
            })
            .collect()
    }

    /// Signed distance from `p` to the core (negative inside a polygon core).
    fn core_sdf(&self, p: P) -> f64 {
        let edges = self.edges();
        let outside = edges
            .iter()
            .map(|&(a, b)| point_segment(p, a, b))
            .fold(f64::INFINITY, f64::min);
        if self.core.len() < 3 {
            return outside;
        }
        let depth = edges
            .iter()
            .zip(self.normals())
            .map(|(&(a, _), n)| dot(n, sub(p, a)))
            .fold(f64::NEG_INFINITY, f64::max);
        if depth <= 0.0 {
            depth
        } else {
            outside
        }
    }

    /// Signed distance from `p` to the surface.
    fn sdf(&self, p: P) -> f64 {
        self.core_sdf(p) - self.r
    }

    /// Where the ray `o + t d`, `t` in `0..=max`, first enters this solid grown by `by` (shrunk
    /// for a negative `by`: the rounding first, then the core with sharp corners), for an `o`
    /// outside that solid.
    fn entry(&self, by: f64, o: P, d: P, max: f64) -> Option<f64> {
        let r = self.r + by;
        let mut first = f64::INFINITY;
        let mut take = |t: Option<f64>| {
            if let Some(t) = t {
                first = first.min(t);
            }
        };
        if self.core.len() >= 3 {
            take(clip_polygon(
                &self.edges(),
                &self.normals(),
                r.min(0.0),
                o,
                d,
            ));
        }
        if r > 0.0 {
            for (a, b) in self.edges() {
                let e = sub(b, a);
                let l = norm(e);
                if l > 0.0 {
                    // The edge's band of half width r, in its own frame.
                    let (x, n) = ([e[0] / l, e[1] / l], [-e[1] / l, e[0] / l]);
                    let m = sub(o, [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0]);
                    let lo = [dot(m, x), dot(m, n)];
                    take(slab(lo, [dot(d, x), dot(d, n)], [l / 2.0, r]));
                }
                take(disc(sub(o, a), d, r));
            }
            if self.core.len() == 2 {
                take(disc(sub(o, self.core[1]), d, r));
            }
        }
        (first <= max).then_some(first)
    }
}

/// Entry `t >= 0` of `o + t d` into the polygon with these edges and outward normals, each
/// edge moved out by `by`.
fn clip_polygon(edges: &[(P, P)], normals: &[P], by: f64, o: P, d: P) -> Option<f64> {
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for (&(a, _), &n) in edges.iter().zip(normals) {
        // n . (o + t d - a) <= by
        let gap = dot(n, sub(o, a)) - by;
        let rate = dot(n, d);
        if rate == 0.0 {
            if gap > 0.0 {
                return None;
            }
        } else if rate < 0.0 {
            t0 = t0.max(-gap / rate);
        } else {
            t1 = t1.min(-gap / rate);
        }
    }
    (t0 <= t1).then_some(t0)
}

/// Entry `t >= 0` of `o + t d` into the box `|x| <= h`, for `o` outside it.
fn slab(o: P, d: P, h: P) -> Option<f64> {
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for k in 0..2 {
        if d[k] == 0.0 {
            if o[k].abs() > h[k] {
                return None;
            }
        } else {
            let (a, b) = ((-h[k] - o[k]) / d[k], (h[k] - o[k]) / d[k]);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    (t0 <= t1).then_some(t0)
}

/// Entry `t >= 0` of `m + t d` into the disc of radius `r` about the origin, for `m` outside,
/// from the closest approach (the textbook quadratic cancels for a distant `m`).
fn disc(m: P, d: P, r: f64) -> Option<f64> {
    let length = norm(d);
    let along = -dot(m, d) / length;
    let miss = cross(m, d) / length;
    if along <= 0.0 || miss.abs() > r {
        return None;
    }
    Some((along - (r * r - miss * miss).sqrt()) / length)
}

/// Distance from `p` to the segment `a..b`.
fn point_segment(p: P, a: P, b: P) -> f64 {
    let (e, ap) = (sub(b, a), sub(p, a));
    let along = dot(ap, e);
    if along <= 0.0 {
        norm(ap)
    } else if along >= dot(e, e) {
        norm(sub(p, b))
    } else {
        cross(e, ap).abs() / norm(e)
    }
}

/// Distance between the segments `a..b` and `c..d`: 0 where they cross.
fn segment_segment(a: P, b: P, c: P, d: P) -> f64 {
    let (ab, cd) = (sub(b, a), sub(d, c));
    let sides = |e: P, o: P, p: P, q: P| cross(e, sub(p, o)) * cross(e, sub(q, o));
    if sides(ab, a, c, d) < 0.0 && sides(cd, c, a, b) < 0.0 {
        return 0.0;
    }
    point_segment(a, c, d)
        .min(point_segment(b, c, d))
        .min(point_segment(c, a, b))
        .min(point_segment(d, a, b))
}

/// Signed distance between two solids: their distance when apart, minus their least
/// penetration depth when they overlap. The cores overlap when an edge of one meets an edge of
/// the other or one holds the other; their depth is the least overlap of their projections on
/// the edge normals of both, which are the normals of their Minkowski difference.
fn gap(a: &Solid, b: &Solid) -> f64 {
    let mut apart = f64::INFINITY;
    for &(p, q) in &a.edges() {
        for &(r, s) in &b.edges() {
            apart = apart.min(segment_segment(p, q, r, s));
        }
    }
    let holds = |x: &Solid, y: &Solid| x.core.len() >= 3 && x.core_sdf(y.core[0]) <= 0.0;
    let core = if apart > 0.0 && !holds(a, b) && !holds(b, a) {
        apart
    } else {
        let mut depth = f64::INFINITY;
        for n in a.normals().into_iter().chain(b.normals()) {
            let (lo_a, hi_a) = project(&a.core, n);
            let (lo_b, hi_b) = project(&b.core, n);
            depth = depth.min((hi_a - lo_b).min(hi_b - lo_a));
        }
        if depth.is_infinite() {
            0.0 // Two points, at the same place.
        } else {
            -depth.max(0.0)
        }
    };
    core - a.r - b.r
}

fn project(points: &[P], n: P) -> (f64, f64) {
    points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &p| {
            let x = dot(p, n);
            (lo.min(x), hi.max(x))
        })
}

/// Whether a body must, may or must not be in a result.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Truth {
    In,
    Either,
    Out,
}

fn truth(signed_gap: f64, tol: f64) -> Truth {
    if signed_gap < -tol {
        Truth::In
    } else if signed_gap > tol {
        Truth::Out
    } else {
        Truth::Either
    }
}

/// A body is in if one of its shapes is, out if all are.
fn any(truths: impl Iterator<Item = Truth>) -> Truth {
    truths.fold(Truth::Out, |acc, t| match (acc, t) {
        (Truth::In, _) | (_, Truth::In) => Truth::In,
        (Truth::Either, _) | (_, Truth::Either) => Truth::Either,
        _ => Truth::Out,
    })
}

/// Whether and when a body is entered: `Ok(Some((lo, hi)))` certainly, between `lo` and `hi`;
/// `Ok(None)` certainly not; `Err(())` either way.
type Entry = std::result::Result<Option<(f64, f64)>, ()>;

/// The ray's entry into `s`, to within `tol`: a body the ray starts inside is never reported.
fn ray_truth(s: &Solid, tol: f64, o: P, d: P, max: f64) -> Entry {
    let start = s.sdf(o);
    if start < -tol {
        return Ok(None);
    }
    if start <= tol {
        return Err(());
    }
    match (s.entry(tol, o, d, max), s.entry(-tol, o, d, max)) {
        (None, _) => Ok(None),
        (Some(lo), Some(hi)) => Ok(Some((lo, hi))),
        _ => Err(()),
    }
}

/// The first entry of a circle of radius `r` cast from `o` along `d` into `s`: it stops within
/// [`CAST_BAND`] of the body, never in it; `tol` as for [`ray_truth`].
fn cast_truth(s: &Solid, tol: f64, r: f64, o: P, d: P) -> Entry {
    if s.sdf(o) - r <= CAST_BAND + tol {
        return Err(()); // Touching or nearly so from the start.
    }
    let far = s.entry(r + CAST_BAND + tol, o, d, 1.0);
    let near = s.entry(r - tol, o, d, 1.0);
    match (far, near) {
        (None, _) => Ok(None),
        (Some(lo), Some(hi)) => Ok(Some((lo, hi))),
        _ => Err(()),
    }
}

/// The first entry among a body's shapes.
fn first_entry(entries: impl Iterator<Item = Entry>) -> Entry {
    let mut out: Option<(f64, f64)> = None;
    for e in entries {
        if let Some((lo, hi)) = e? {
            out = Some(out.map_or((lo, hi), |(a, b)| (a.min(lo), b.min(hi))));
        }
    }
    Ok(out)
}

fn accepts(filter: QueryFilter, (layers, mask): (u32, u32)) -> bool {
    filter.layers & mask != 0 && layers & filter.mask != 0
}

/// Checks a set of bodies against the truths of every live body: each one that must be in it
/// is, none that must not be is, nothing else is, in ascending slot order.
fn check_set(
    got: &[BodyId],
    truths: &[(BodyId, Truth)],
    what: &dyn std::fmt::Debug,
    describe: &dyn Fn(Option<BodyId>) -> String,
) {
    for &(id, t) in truths {
        let found = got.contains(&id);
        assert!(
            !matches!((t, found), (Truth::In, false) | (Truth::Out, true)),
            "{what:?}: {} should be {t:?}, found = {found}",
            describe(Some(id))
        );
    }
    for id in got {
        assert!(
            truths.iter().any(|(x, _)| x == id),
            "{what:?}: {id:?} is no live body"
        );
    }
    if let Some(w) = got.windows(2).find(|w| w[0].slot() >= w[1].slot()) {
        panic!("{what:?}: not in slot order: {:?} before {:?}", w[0], w[1]);
    }
}

/// Checks a ray or cast hit of `body` at fraction `f` against the truths: no body is certainly
/// entered before it, and it is entered there.
fn check_first(
    hit: Option<(BodyId, f32)>,
    truths: &[(BodyId, Entry, f64)],
    what: &dyn std::fmt::Debug,
    describe: &dyn Fn(Option<BodyId>) -> String,
) {
    // The body certainly entered first, and the latest fraction by which it is.
    let (first, certain) = truths
        .iter()
        .filter_map(|(id, t, slack)| match t {
            Ok(Some((_, hi))) => Some((Some(*id), hi + slack)),
            _ => None,
        })
        .fold((None, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
    let Some((body, f)) = hit else {
        assert!(
            certain.is_infinite(),
            "{what:?}: missed {}, entered by {certain}",
            describe(first)
        );
        return;
    };
    let f = f64::from(f);
    assert!(
        f <= certain,
        "{what:?}: hit {} at {f}, {} is entered by {certain}",
        describe(Some(body)),
        describe(first)
    );
    let Some((_, t, slack)) = truths.iter().find(|(id, ..)| *id == body) else {
        panic!("{what:?}: hit {body:?}, no live body seen by the filter");
    };
    match t {
        Ok(None) => panic!("{what:?}: hit {body:?}, which it misses"),
        Ok(Some((lo, hi))) => assert!(
            lo - slack <= f && f <= hi + slack,
            "{what:?}: hit {body:?} at {f}, outside {lo}..={hi}"
        ),
        Err(()) => {}
    }
}

fn assert_unit(n: Vec2, what: &dyn std::fmt::Debug) {
    assert!(
        n.is_finite() && (n.length() - 1.0).abs() <= 1.0e-3,
        "{what:?}: normal {n:?} is not a unit vector"
    );
}

impl Sim {
    /// Every live body with the solids of its shapes that `filter` sees (none when it sees
    /// none of them).
    fn solids(&self, filter: QueryFilter) -> Vec<(BodyId, Vec<Solid>)> {
        self.world
            .bodies()
            .map(|id| {
                let xf = self.world.transform(id).unwrap();
                let shapes = self.world.shapes(id).unwrap();
                let filters = &self.filters[id.slot() as usize];
                assert_eq!(shapes.len(), filters.len());
                let seen = shapes
                    .iter()
                    .zip(filters)
                    .filter(|&(_, &f)| accepts(filter, f))
                    .map(|(shape, _)| Solid::of(shape, xf))
                    .collect();
                (id, seen)
            })
            .collect()
    }

    /// A body's place and shapes, for messages.
    fn describe(&self, id: Option<BodyId>) -> String {
        let Some(id) = id else {
            return "no body".to_string();
        };
        let xf = self.world.transform(id);
        let shapes = self.world.shapes(id);
        format!("{id:?} at {xf:?} with {shapes:?}")
    }

    /// Runs the query and checks its answer against brute force.
    fn query(&self, q: &Query) {
        let world = &self.world;
        match *q {
            Query::Aabb(at, half, filter) => {
                let c = self.place(at);
                let aabb = Aabb::new(c - half, c + half);
                let (lo, hi) = (aabb.min, aabb.max);
                let valid = lo.is_finite() && hi.is_finite() && lo.x <= hi.x && lo.y <= hi.y;
                let got = world.overlap_aabb(aabb, filter);
                assert_eq!(got.is_ok(), valid, "overlap_aabb({aabb:?}): {got:?}");
                let Ok(got) = got else { return };
                let corners = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
                // The box is exact in f32: it adds nothing to the bodies' bands.
                let region = Solid::new(corners.map(p64).to_vec(), 0.0, 0.0);
                let band = f64_band(&[lo, hi]);
                let truths: Vec<_> = self
                    .solids(filter)
                    .iter()
                    .map(|(id, s)| {
                        let t = s.iter().map(|s| truth(gap(&region, s), s.tol + band));
                        (*id, any(t))
                    })
                    .collect();
                check_set(&got, &truths, &("overlap_aabb", aabb), &|id| {
                    self.describe(id)
                });
            }
            Query::Point(at, filter) => {
                let p = self.place(at);
                let got = world.overlap_point(p, filter);
                assert_eq!(got.is_ok(), p.is_finite(), "overlap_point({p:?}): {got:?}");
                let Ok(got) = got else { return };
                let band = f64_band(&[p]);
                let truths: Vec<_> = self
                    .solids(filter)
                    .iter()
                    .map(|(id, s)| {
                        let t = s.iter().map(|s| truth(s.sdf(p64(p)), s.tol + band));
                        (*id, any(t))
                    })
                    .collect();
                check_set(&got, &truths, &("overlap_point", p), &|id| {
                    self.describe(id)
                });
            }
            Query::Shape(ref shape, at, angle, filter) => {
                let xf = Transform::new(self.place(at), Rot::from_angle(angle));
                let got = world.overlap_shape(shape, xf, filter);
                let valid = xf.p.is_finite();
                assert_eq!(
                    got.is_ok(),
                    valid,
                    "overlap_shape({shape:?}, {xf:?}): {got:?}"
                );
                let Ok(got) = got else { return };
                // The engine places the query's corners in f32 too.
                let q = Solid::of(shape, xf);
                let truths: Vec<_> = self
                    .solids(filter)
                    .iter()
                    .map(|(id, s)| {
                        let t = s.iter().map(|s| truth(gap(&q, s), s.tol + q.tol));
                        (*id, any(t))
                    })
                    .collect();
                check_set(&got, &truths, &("overlap_shape", shape, xf), &|id| {
                    self.describe(id)
                });
            }
            Query::Ray(from, to, scale, max, filter, all) => {
                let origin = self.place(from);
                let translation = (self.place(to) - origin) * scale;
                let valid = origin.is_finite()
                    && translation.is_finite()
                    && translation != Vec2::ZERO
                    && max.is_finite()
                    && max >= 0.0;
                let what = ("cast_ray", origin, translation, max);
                let (o, d, m) = (p64(origin), p64(translation), f64::from(max));
                // The fraction itself is an f32: a few of its spacings.
                let ftol = 4.0 * f64::from(f32::EPSILON) * m.max(1.0);
                let band = f64_band(&[origin, translation * max.max(1.0)]);
                let truths = || -> Vec<(BodyId, Entry, f64)> {
                    self.solids(filter)
                        .iter()
                        .map(|(id, solids)| {
                            let entries =
                                solids.iter().map(|s| ray_truth(s, s.tol + band, o, d, m));
                            let tol = solids.iter().map(|s| s.tol).fold(0.0, f64::max) + band;
                            (*id, first_entry(entries), tol / norm(d) + ftol)
                        })
                        .collect()
                };
                if !all {
                    let got = world.cast_ray(origin, translation, max, filter);
                    assert_eq!(got.is_ok(), valid, "{what:?}: {got:?}");
                    let Ok(got) = got else { return };
                    if let Some(hit) = got {
                        assert!(hit.point.is_finite(), "{what:?}: {hit:?}");
                        assert_unit(hit.normal, &what);
                    }
                    let hit = got.map(|h| (h.body, h.fraction));
                    let describe = |id| self.describe(id);
                    check_first(hit, &truths(), &what, &describe);
                    return;
                }
                let got = world.cast_ray_all(origin, translation, max, filter);
                assert_eq!(got.is_ok(), valid, "{what:?}: {got:?}");
                let Ok(got) = got else { return };
                // In the order the ray enters them, which the f32 fractions can only show up to
                // their rounding (bodies whose fractions round alike stay in that order).
                if let Some(w) = got.windows(2).find(|w| w[0].fraction > w[1].fraction) {
                    panic!("{what:?}: hits out of order: {:?} before {:?}", w[0], w[1]);
                }
                for (id, t, slack) in truths() {
                    let hit = got.iter().find(|h| h.body == id);
                    if let Some(h) = hit {
                        assert!(h.point.is_finite(), "{what:?}: {h:?}");
                        assert_unit(h.normal, &what);
                    }
                    match (t, hit) {
                        (Ok(None), Some(h)) => panic!("{what:?}: hit {h:?}, which it misses"),
                        (Ok(Some(_)), None) => panic!("{what:?}: missed {id:?}"),
                        (Ok(Some((lo, hi))), Some(h)) => {
                            let f = f64::from(h.fraction);
                            assert!(
                                lo - slack <= f && f <= hi + slack,
                                "{what:?}: {id:?} at {f}, outside {lo}..={hi}"
                            );
                        }
                        _ => {}
                    }
                }
                if let Some(h) = got.iter().find(|h| world.position(h.body).is_err()) {
                    panic!("{what:?}: hit {h:?}, no live body");
                }
            }
            Query::CastShape(ref shape, from, angle, to, filter) => {
                let origin = self.place(from);
                let translation = self.place(to) - origin;
                let xf = Transform::new(origin, Rot::from_angle(angle));
                let valid =
                    origin.is_finite() && translation.is_finite() && translation != Vec2::ZERO;
                let what = ("cast_shape", shape, xf, translation);
                let got = world.cast_shape(shape, xf, translation, filter);
                assert_eq!(got.is_ok(), valid, "{what:?}: {got:?}");
                let Ok(got) = got else { return };
                let solids = self.solids(filter);
                if let Some(hit) = got {
                    let f = hit.fraction;
                    assert!((0.0..=1.0).contains(&f), "{what:?}: {hit:?}");
                    assert!(hit.point.is_finite(), "{what:?}: {hit:?}");
                    assert_unit(hit.normal, &what);
                    let seen = solids
                        .iter()
                        .any(|(id, s)| *id == hit.body && !s.is_empty());
                    assert!(
                        seen,
                        "{what:?}: hit {hit:?}, no live body seen by the filter"
                    );
                }
                // The brute force knows a circle's path; other shapes get the checks above.
                let Shape::Circle(circle) = shape else { return };
                if circle.center() != Vec2::ZERO {
                    return;
                }
                let (o, d, r) = (p64(origin), p64(translation), f64::from(circle.radius()));
                let ftol = 4.0 * f64::from(f32::EPSILON);
                let band = f64_band(&[origin, translation]) + TOL_PER_MAGNITUDE * r;
                let truths: Vec<_> = solids
                    .iter()
                    .map(|(id, solids)| {
                        let entries = solids.iter().map(|s| cast_truth(s, s.tol + band, r, o, d));
                        let tol = solids.iter().map(|s| s.tol).fold(0.0, f64::max) + band;
                        (*id, first_entry(entries), tol / norm(d) + ftol)
                    })
                    .collect();
                let describe = |id| self.describe(id);
                let hit = got.map(|h| (h.body, h.fraction));
                check_first(hit, &truths, &what, &describe);
            }
        }
    }
}

#[cfg(not(test))]
fuzz_target!(|data: &[u8]| run(data));

/// Runs one input: the whole fuzz target. Panics on a finding.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(base), Ok(twin), Ok(pick)) = (
        settings(&mut u),
        bool::arbitrary(&mut u),
        u.int_in_range(0u8..=3),
    ) else {
        return;
    };
    let (backend, threads) = match pick {
        0 => (Backend::Simd, 1),
        1 => (Backend::Scalar, 2),
        2 => (Backend::Scalar, 1),
        _ => (Backend::Simd, 2),
    };
    // The twin runs the other backend on the other thread count.
    let other = match backend {
        Backend::Simd => Backend::Scalar,
        Backend::Scalar => Backend::Simd,
    };
    let settings = |backend, threads| WorldSettings {
        backend,
        threads,
        ..base.clone()
    };
    let trace = std::env::var_os("BATCH2D_FUZZ_TRACE").is_some();
    if trace {
        eprintln!("settings: {:?} twin {twin}", settings(backend, threads));
    }
    let Ok(world) = World::try_new(settings(backend, threads)) else {
        assert!(base.validate().is_err());
        return;
    };
    let budget = MAX_BODY_STEPS / (1 + twin as usize);
    let mut a = Sim::new(world, budget);
    let mut b = twin.then(|| Sim::new(World::new(settings(other, 3 - threads)), budget));
    for _ in 0..MAX_OPS {
        if u.is_empty() {
            break;
        }
        let Ok(op) = op(&mut u) else { break };
        if trace {
            eprintln!("{op:?}");
        }
        let result = a.apply(&op);
        a.check(false);
        // Queries change nothing: one world answers them.
        if let (Some(b), false) = (&mut b, matches!(op, Op::Query(_))) {
            assert_eq!(b.apply(&op), result, "backends disagree on {op:?}");
            b.check(false);
            let same = snapshot(&a.world) == snapshot(&b.world);
            assert!(same, "backends diverged after {op:?}");
        }
    }
    a.check(true);
}
