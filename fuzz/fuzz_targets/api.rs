//! Drives batch2d's public API with operations decoded from raw bytes: worlds with arbitrary
//! settings, bodies of every shape kind with arbitrary floats (NaN, infinities, huge and tiny
//! values included), removal, teleports, velocity changes, impulses, run-time changes of kind,
//! density, filters and enabling, kinematic targets, steps of arbitrary length and every query.
//!
//! Every operation runs on two worlds at once, one per backend and with different thread
//! counts, and the target checks what the API promises: no panic or hang, `Err` leaves the
//! world unchanged, a stale handle gives `Err(InvalidBody)`, every state is finite after a
//! step, and the two worlds stay bit-identical.

// The fuzz target binary has libFuzzer's `main`; tests/robust/fuzz_regressions.rs includes this file
// as a module (`cfg(test)`) and replays the kept inputs of fuzz/regressions/ through `run`.
#![cfg_attr(not(test), no_main)]

use arbitrary::{Arbitrary, Result, Unstructured};
use batch2d::{
    Backend, BodyDef, BodyId, BodyKind, CharacterController, Error, MixRule, QueryFilter, Rot,
    Shape, ShapeDef, Transform, Vec2, World, WorldSettings, MAX_COMPOUND_SHAPES,
};
#[cfg(not(test))]
use libfuzzer_sys::fuzz_target;

/// Most operations per input, bodies per world and substeps x iterations per step: keeps one
/// input well under a second, so the fuzzer explores instead of waiting.
const MAX_OPS: usize = 48;
const MAX_BODIES: usize = 48;
const MAX_SOLVER_WORK: u32 = 64;

/// Floats worth trying: the edges of f32 and of the engine's tolerances, beside ordinary sizes.
const SPECIAL: [f32; 16] = [
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
    1.0e7,
    -1.0e7,
    0.005,
    1.0e-3,
    400.0,
    1.0 / 60.0,
];

/// A float that is usually ordinary (a multiple of 1/64 in -128..128, or a size on a log scale
/// from 1e-3 to 1e3) and sometimes special or any bit pattern at all.
fn float(u: &mut Unstructured) -> Result<f32> {
    Ok(match u.int_in_range(0u8..=15)? {
        0 => f32::from_bits(u32::arbitrary(u)?),
        1 => *u.choose(&SPECIAL)?,
        2..=8 => i16::arbitrary(u)? as f32 / 256.0,
        _ => {
            let exponent = u.int_in_range(-300i16..=300)? as f32 / 100.0;
            10f32.powf(exponent)
        }
    })
}

fn vec2(u: &mut Unstructured) -> Result<Vec2> {
    Ok(Vec2::new(float(u)?, float(u)?))
}

fn shape(u: &mut Unstructured) -> Result<Shape> {
    let made = match u.int_in_range(0u8..=6)? {
        0 => Shape::circle(float(u)?),
        1 => Shape::circle_at(vec2(u)?, float(u)?),
        2 => Shape::rect(float(u)?, float(u)?),
        3 => Shape::offset_rect(float(u)?, float(u)?, vec2(u)?, float(u)?),
        6 => {
            let ghost = |u: &mut Unstructured| -> Result<Option<Vec2>> {
                Ok(if bool::arbitrary(u)? {
                    Some(vec2(u)?)
                } else {
                    None
                })
            };
            Shape::chain_segment(ghost(u)?, vec2(u)?, vec2(u)?, ghost(u)?)
        }
        kind => {
            let n = u.int_in_range(0usize..=12)?;
            let points = (0..n).map(|_| vec2(u)).collect::<Result<Vec<_>>>()?;
            if kind == 4 {
                Shape::polygon(&points)
            } else {
                Shape::rounded_polygon(&points, float(u)?)
            }
        }
    };
    // A refused shape is itself a finding only if it panicked; try a box instead.
    Ok(made.unwrap_or_else(|_| Shape::rect(0.5, 0.5).expect("a 1 m box is valid")))
}

fn body_def(u: &mut Unstructured) -> Result<BodyDef> {
    let def = match u.int_in_range(0u8..=3)? {
        0 => BodyDef::fixed(),
        1 => BodyDef::kinematic(),
        _ => BodyDef::dynamic(),
    };
    Ok(def
        .position(vec2(u)?)
        .angle(float(u)?)
        .linear_velocity(vec2(u)?)
        .angular_velocity(float(u)?)
        .gravity_scale(float(u)?)
        .linear_damping(float(u)?)
        .angular_damping(float(u)?)
        .fixed_rotation(bool::arbitrary(u)?))
}

fn shape_def(u: &mut Unstructured) -> Result<ShapeDef> {
    Ok(ShapeDef::new(shape(u)?)
        .density(float(u)?)
        .friction(float(u)?)
        .restitution(float(u)?)
        .layers(u32::arbitrary(u)?)
        .mask(u32::arbitrary(u)?)
        .group(i8::arbitrary(u)? as i32 % 3))
}

fn mix_rule(u: &mut Unstructured) -> Result<MixRule> {
    u.choose(&[
        MixRule::GeometricMean,
        MixRule::Min,
        MixRule::Max,
        MixRule::Average,
    ])
    .copied()
}

/// Settings with every field fuzzed (sleeping on or off), except that substeps and solve
/// passes are kept small (their product bounds a step's work) and threads are left to the
/// caller.
fn settings(u: &mut Unstructured) -> Result<WorldSettings> {
    let defaults = WorldSettings::default();
    if bool::arbitrary(u)? {
        return Ok(defaults);
    }
    let substeps = u.int_in_range(0..=8)?;
    let solve_iterations = u.int_in_range(0..=MAX_SOLVER_WORK / substeps.max(1))?;
    let joint_solve_iterations = u.int_in_range(0..=MAX_SOLVER_WORK / substeps.max(1))?;
    let mut pick = |default: f32| -> Result<f32> {
        Ok(if bool::arbitrary(u)? {
            default
        } else {
            float(u)?
        })
    };
    Ok(WorldSettings {
        gravity: Vec2::new(pick(defaults.gravity.x)?, pick(defaults.gravity.y)?),
        substeps,
        solve_iterations,
        joint_solve_iterations,
        contact_hertz: pick(defaults.contact_hertz)?,
        contact_damping_ratio: pick(defaults.contact_damping_ratio)?,
        contact_push_max_velocity: pick(defaults.contact_push_max_velocity)?,
        linear_slop: pick(defaults.linear_slop)?,
        restitution_threshold: pick(defaults.restitution_threshold)?,
        max_linear_speed: pick(defaults.max_linear_speed)?,
        time_to_sleep: pick(defaults.time_to_sleep)?,
        friction_mixing: mix_rule(u)?,
        restitution_mixing: mix_rule(u)?,
        enable_sleep: bool::arbitrary(u)?,
        ..defaults
    })
}

/// One call on the API. Bodies are named by index into the list of every handle ever returned,
/// so removed (stale) handles are picked as often as live ones.
#[derive(Debug)]
enum Op {
    /// Boxed: the definitions are ten times larger than any other operation.
    Add(Box<(BodyDef, ShapeDef)>),
    /// A compound body: 0 to 8 shapes, or now and then `MAX_COMPOUND_SHAPES` or one more, so
    /// both ends of the limit are tried.
    AddCompound(Box<(BodyDef, Vec<ShapeDef>)>),
    /// A segment chain through 0 to 12 points, a loop when the flag is set.
    AddChain(Box<(BodyDef, Vec<Vec2>, ShapeDef, bool)>),
    Remove(usize),
    Step(f32),
    SetLinearVelocity(usize, Vec2),
    SetAngularVelocity(usize, f32),
    ApplyImpulse(usize, Vec2),
    SetPosition(usize, Vec2),
    SetTransform(usize, Vec2, f32),
    SetBodyKind(usize, BodyKind),
    SetDensity(usize, f32),
    SetTargetTransform(usize, Vec2, f32, f32),
    SetEnabled(usize, bool),
    SetFilter(usize, u32, u32, i32),
}

fn op(u: &mut Unstructured) -> Result<Op> {
    let body = |u: &mut Unstructured| u.int_in_range(0usize..=MAX_BODIES);
    Ok(match u.int_in_range(0u8..=11)? {
        0..=2 => Op::Add(Box::new((body_def(u)?, shape_def(u)?))),
        10 if bool::arbitrary(u)? => {
            let n = u.int_in_range(0usize..=12)?;
            let points = (0..n).map(|_| vec2(u)).collect::<Result<Vec<_>>>()?;
            let closed = bool::arbitrary(u)?;
            Op::AddChain(Box::new((body_def(u)?, points, shape_def(u)?, closed)))
        }
        10 => {
            // Mostly a few shapes, so that a run spends its time stepping; now and then both
            // ends of the limit, which build a body of 65536 shapes and refuse one past it.
            let n = match u.int_in_range(0u8..=15)? {
                0 => MAX_COMPOUND_SHAPES,
                1 => MAX_COMPOUND_SHAPES + 1,
                _ => u.int_in_range(0usize..=8)?,
            };
            let shapes = (0..n).map(|_| shape_def(u)).collect::<Result<Vec<_>>>()?;
            Op::AddCompound(Box::new((body_def(u)?, shapes)))
        }
        3 => Op::Remove(body(u)?),
        4 | 5 => {
            let dt = if bool::arbitrary(u)? {
                1.0 / 60.0
            } else {
                float(u)?
            };
            Op::Step(dt)
        }
        6 => Op::SetLinearVelocity(body(u)?, vec2(u)?),
        7 => match u.int_in_range(0u8..=1)? {
            0 => Op::SetAngularVelocity(body(u)?, float(u)?),
            _ => Op::ApplyImpulse(body(u)?, vec2(u)?),
        },
        8 => Op::SetPosition(body(u)?, vec2(u)?),
        11 => match u.int_in_range(0u8..=4)? {
            0 => {
                let kind = [BodyKind::Fixed, BodyKind::Kinematic, BodyKind::Dynamic];
                Op::SetBodyKind(body(u)?, *u.choose(&kind)?)
            }
            1 => Op::SetDensity(body(u)?, float(u)?),
            2 => Op::SetTargetTransform(body(u)?, vec2(u)?, float(u)?, float(u)?),
            3 => Op::SetEnabled(body(u)?, bool::arbitrary(u)?),
            _ => Op::SetFilter(
                body(u)?,
                u32::arbitrary(u)?,
                u32::arbitrary(u)?,
                i8::arbitrary(u)? as i32 % 3,
            ),
        },
        _ => Op::SetTransform(body(u)?, vec2(u)?, float(u)?),
    })
}

/// Everything observable about a world, as bits so that NaN compares equal to itself and -0
/// differs from 0.
fn snapshot(world: &World) -> Vec<u32> {
    let mut out = vec![world.body_count() as u32, world.contact_count() as u32];
    for id in world.bodies() {
        let p = world.position(id).unwrap();
        let v = world.linear_velocity(id).unwrap();
        let q = world.rotation(id).unwrap();
        let w = world.angular_velocity(id).unwrap();
        out.push(id.slot());
        out.extend([p.x, p.y, q.c, q.s, v.x, v.y, w].map(f32::to_bits));
        out.push(world.mass(id).unwrap().to_bits());
        out.push(world.rotational_inertia(id).unwrap().to_bits());
        out.push(world.is_enabled(id).unwrap() as u32);
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
        let finite = p.is_finite()
            && v.is_finite()
            && q.c.is_finite()
            && q.s.is_finite()
            && w.is_finite()
            && xf.p.is_finite()
            && world.angle(id).unwrap().is_finite();
        assert!(
            finite,
            "non-finite state after {after:?}: {p:?} {q:?} {v:?} {w}"
        );
    }
}

/// The moving queries, asked of both twins from the state the ops left (so they read no input
/// and the kept inputs decode as before): the first two bodies' shapes cast from where they
/// are by their velocities over 1/60 s, turning by their spins, and moved as characters. Each
/// answers `Ok` exactly when its input is valid, sanely, and the same in both twins.
fn moving_queries(a: &World, b: &World, after: &Op) {
    const DT: f32 = 1.0 / 60.0;
    for (id, twin) in a.bodies().zip(b.bodies()).take(2) {
        // A compound body has no one shape to cast: its first stands in for it.
        let shape = &a.shapes(id).unwrap()[0];
        let xf = a.transform(id).unwrap();
        let translation = a.linear_velocity(id).unwrap() * DT;
        let rotation = a.angular_velocity(id).unwrap() * DT;
        let filter = QueryFilter::new();
        let cast = |w: &World| w.cast_shape_rotating(shape, xf, translation, rotation, filter);
        let got = cast(a);
        let valid = translation.is_finite()
            && rotation.is_finite()
            && (translation != Vec2::ZERO || rotation != 0.0);
        assert_eq!(got.is_ok(), valid, "cast after {after:?}: {got:?}");
        let same = without_world(&got) == without_world(&cast(b));
        assert!(same, "twins' casts differ after {after:?}");
        if let Ok(Some(hit)) = got {
            let sane = (0.0..=1.0).contains(&hit.fraction)
                && hit.point.is_finite()
                && (hit.normal.length() - 1.0).abs() < 1e-3
                && a.position(hit.body).is_ok();
            assert!(sane, "cast after {after:?}: {hit:?}");
        }
        let upright = Transform::new(xf.p, Rot::IDENTITY);
        let mover = |w: &World, ignore: BodyId| {
            let controller = CharacterController {
                ignore: Some(ignore),
                ..CharacterController::default()
            };
            w.move_character(&controller, shape, upright, translation, DT)
        };
        let moved = mover(a, id);
        assert_eq!(
            moved.is_ok(),
            translation.is_finite(),
            "move after {after:?}: {moved:?}"
        );
        let same = without_world(&moved) == without_world(&mover(b, twin));
        assert!(same, "twins' moves differ after {after:?}");
        if let Ok(m) = moved {
            let sane = m.translation.is_finite()
                && m.hits
                    .iter()
                    .all(|h| a.position(h.body).is_ok() && h.point.is_finite());
            assert!(sane, "move after {after:?}: {m:?}");
        }
    }
}

/// `answer` as text without the world numbers of its handles, which differ between twins.
fn without_world(answer: &impl std::fmt::Debug) -> String {
    let text = format!("{answer:?}");
    let mut parts = text.split("world: ");
    let mut out = parts.next().unwrap_or_default().to_string();
    for part in parts {
        out.push_str(part.trim_start_matches(|c: char| c.is_ascii_digit()));
    }
    out
}

/// Applies `op` to `world`; `ids` are the handles this world returned so far.
fn apply(world: &mut World, ids: &mut Vec<BodyId>, op: &Op) -> std::result::Result<(), Error> {
    let id = |i: usize| ids.get(i % ids.len().max(1)).copied();
    match *op {
        Op::Add(ref defs) => {
            if world.body_count() < MAX_BODIES {
                let (def, shape) = defs.as_ref();
                ids.push(world.add_body(def.clone(), shape.clone())?);
            }
            Ok(())
        }
        Op::AddCompound(ref defs) => {
            if world.body_count() < MAX_BODIES {
                let (def, shapes) = defs.as_ref();
                ids.push(world.add_compound_body(def.clone(), shapes)?);
            }
            Ok(())
        }
        Op::AddChain(ref defs) => {
            let (def, points, material, closed) = defs.as_ref();
            if world.body_count() + points.len() <= MAX_BODIES {
                let added = if *closed {
                    world.add_segment_loop(def.clone(), points, material)?
                } else {
                    world.add_segment_chain(def.clone(), points, material)?
                };
                ids.extend(added);
            }
            Ok(())
        }
        Op::Step(dt) => world.step(dt),
        Op::Remove(i) => id(i).map_or(Ok(()), |b| world.remove_body(b)),
        Op::SetLinearVelocity(i, v) => id(i).map_or(Ok(()), |b| world.set_linear_velocity(b, v)),
        Op::SetAngularVelocity(i, w) => id(i).map_or(Ok(()), |b| world.set_angular_velocity(b, w)),
        Op::ApplyImpulse(i, p) => id(i).map_or(Ok(()), |b| world.apply_linear_impulse(b, p)),
        Op::SetPosition(i, p) => id(i).map_or(Ok(()), |b| world.set_position(b, p)),
        Op::SetTransform(i, p, a) => id(i).map_or(Ok(()), |b| world.set_transform(b, p, a)),
        Op::SetBodyKind(i, k) => id(i).map_or(Ok(()), |b| world.set_body_kind(b, k)),
        Op::SetDensity(i, d) => id(i).map_or(Ok(()), |b| world.set_density(b, d)),
        Op::SetTargetTransform(i, p, a, dt) => {
            id(i).map_or(Ok(()), |b| world.set_target_transform(b, p, a, dt))
        }
        Op::SetEnabled(i, on) => id(i).map_or(Ok(()), |b| world.set_enabled(b, on)),
        Op::SetFilter(i, l, m, g) => id(i).map_or(Ok(()), |b| world.set_filter(b, l, m, g)),
    }
}

#[cfg(not(test))]
fuzz_target!(|data: &[u8]| run(data));

/// Runs one input: the whole fuzz target. Panics on a finding.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(base) = settings(&mut u) else { return };
    let simd = WorldSettings {
        backend: Backend::Simd,
        threads: 2,
        ..base.clone()
    };
    let scalar = WorldSettings {
        backend: Backend::Scalar,
        threads: 1,
        ..base
    };
    // `BATCH2D_FUZZ_TRACE=1` prints what an input does, to turn a crash into a regression test.
    let trace = std::env::var_os("BATCH2D_FUZZ_TRACE").is_some();
    if trace {
        eprintln!("settings: {simd:?}");
    }
    // Settings `WorldSettings::validate` refuses make `World::new` panic: only valid ones run.
    let (Ok(mut a), Ok(mut b)) = (World::try_new(simd), World::try_new(scalar)) else {
        return;
    };
    let (mut ids_a, mut ids_b) = (Vec::new(), Vec::new());
    for _ in 0..MAX_OPS {
        let Ok(op) = op(&mut u) else { break };
        if trace {
            eprintln!("{op:?}");
        }
        let before = snapshot(&a);
        let result = apply(&mut a, &mut ids_a, &op);
        let twin = apply(&mut b, &mut ids_b, &op);
        assert_eq!(result, twin, "backends disagree on {op:?}");
        match result {
            Err(_) => assert_eq!(snapshot(&a), before, "Err changed the world: {op:?}"),
            Ok(()) => assert_finite(&a, &op),
        }
        assert_eq!(snapshot(&a), snapshot(&b), "backends diverged after {op:?}");
        moving_queries(&a, &b, &op);
        // Queries of every handle ever made: live ones answer, removed ones give InvalidBody.
        for &id in &ids_a {
            let live = a.bodies().any(|x| x == id);
            match a.position(id) {
                Ok(_) => assert!(live),
                Err(e) => assert!(!live && e == Error::InvalidBody, "{e}"),
            }
            let _ = (a.angle(id), a.shape(id), a.shapes(id), a.transform(id));
        }
        let _ = a.profile();
    }
}
