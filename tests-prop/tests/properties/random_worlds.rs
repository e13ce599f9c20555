//! Property tests over random worlds: random shapes (circles and polygons from 1 cm to 100 m),
//! densities a thousandfold apart, speeds up to 400 m/s, sensors and two-shape compound bodies,
//! and random sequences of add, remove, step, rest (long enough for islands to fall asleep),
//! set-velocity, forces and torques, and joints of every kind between any two handles.
//! Whatever the sequence, nothing panics, every state stays finite, handles are valid until
//! their body is removed and `Err(InvalidBody)` after, and worlds that differ only in backend
//! or thread count answer every call alike and stay bit-identical (`common::state_bits`: bodies,
//! sleep flags, contacts and their impulses, joint forces, events).
//!
//! 32 cases from a fixed seed by default; `PROPTEST_CASES=2000 PROPTEST_RNG_SEED=N cargo test
//! --profile ci -p batch2d-proptests random_worlds::` runs a longer search from another seed.
//! Failures are kept in `random_worlds.proptest-regressions` beside this file (commit it) and
//! tried first on every run.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, Error, JointDef, Shape, ShapeDef, Vec2, World, WorldSettings,
};
use proptest::prelude::*;

/// What to build: kind (0 static, 1 kinematic, else dynamic), shape and material, placement.
#[derive(Clone, Debug)]
struct NewBody {
    kind: u8,
    shape: ShapeSpec,
    density: f32,
    position: Vec2,
    angle: f32,
    velocity: Vec2,
    angular_velocity: f32,
    /// Whether the shape is a sensor.
    sensor: bool,
    /// A second shape, a circle of this radius at this offset: a compound body.
    second: Option<(f32, Vec2)>,
}

#[derive(Clone, Debug)]
enum ShapeSpec {
    Circle(f32),
    Rect(f32, f32),
    /// A hull of points at `radii[k]` from the origin, evenly spaced in angle from `turn`.
    Polygon {
        radii: Vec<f32>,
        turn: f32,
    },
}

#[derive(Clone, Debug)]
enum Action {
    Add(NewBody),
    /// Index into every handle made so far (removed ones included).
    Remove(usize),
    Step,
    /// Several steps: long enough for resting islands to fall asleep.
    Rest(usize),
    SetVelocity(usize, Vec2),
    /// A force and a torque for the next step.
    Push(usize, Vec2, f32),
    /// A joint of kind `.0` (see [`joint_def`]) between two handles (maybe removed, maybe
    /// the same), at a point between them.
    Join(u8, usize, usize),
}

/// A size from 1 cm to 100 m, spread evenly over the orders of magnitude.
fn size() -> impl Strategy<Value = f32> {
    (-2.0f32..2.0).prop_map(|e| 10f32.powf(e))
}

fn shape_spec() -> impl Strategy<Value = ShapeSpec> {
    prop_oneof![
        size().prop_map(ShapeSpec::Circle),
        (size(), size()).prop_map(|(w, h)| ShapeSpec::Rect(w, h)),
        (
            size(),
            prop::collection::vec(0.5f32..1.0, 3..=8),
            0.0f32..6.3
        )
            .prop_map(|(s, radii, turn)| ShapeSpec::Polygon {
                radii: radii.into_iter().map(|r| r * s).collect(),
                turn,
            }),
    ]
}

fn speed_vector() -> impl Strategy<Value = Vec2> {
    (-400.0f32..400.0, -400.0f32..400.0).prop_map(|(x, y)| {
        let v = Vec2::new(x, y);
        // Keep the speed itself within 400 m/s.
        if v.length() > 400.0 {
            v * (400.0 / v.length())
        } else {
            v
        }
    })
}

fn new_body() -> impl Strategy<Value = NewBody> {
    (
        0u8..6,
        shape_spec(),
        // Densities 0.1 to 100 kg/m²: a thousandfold apart.
        (-1.0f32..2.0).prop_map(|e| 10f32.powf(e)),
        (-20.0f32..20.0, -20.0f32..20.0),
        -3.2f32..3.2,
        prop_oneof![Just(Vec2::ZERO), speed_vector()],
        -50.0f32..50.0,
        prop::bool::weighted(0.15),
        prop::option::weighted(0.2, (size(), (-2.0f32..2.0, -2.0f32..2.0))),
    )
        .prop_map(
            |(kind, shape, density, (x, y), angle, velocity, angular_velocity, sensor, second)| {
                NewBody {
                    kind,
                    shape,
                    density,
                    position: Vec2::new(x, y),
                    angle,
                    velocity,
                    angular_velocity,
                    sensor,
                    second: second.map(|(r, (x, y))| (r, Vec2::new(x, y))),
                }
            },
        )
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        3 => new_body().prop_map(Action::Add),
        1 => (0usize..64).prop_map(Action::Remove),
        4 => Just(Action::Step),
        1 => (10usize..40).prop_map(Action::Rest),
        1 => ((0usize..64), speed_vector()).prop_map(|(i, v)| Action::SetVelocity(i, v)),
        1 => ((0usize..64), speed_vector(), -100.0f32..100.0)
            .prop_map(|(i, f, t)| Action::Push(i, f * 10.0, t)),
        2 => (0u8..7, 0usize..64, 0usize..64).prop_map(|(k, a, b)| Action::Join(k, a, b)),
    ]
}

/// A joint of every kind by `kind`, between `a` and `b` (the mouse joint holds only `b`), at
/// `at`, with the options each kind has.
fn joint_def(kind: u8, a: BodyId, b: BodyId, at: Vec2) -> JointDef {
    let axis = Vec2::new(0.6, 0.8);
    match kind {
        0 => JointDef::revolute(a, b, at),
        1 => JointDef::revolute(a, b, at)
            .limits(-0.5, 0.5)
            .motor(1.0, 100.0),
        2 => JointDef::distance(a, b, at, at + axis)
            .spring(3.0, 0.5)
            .length_range(0.5, 2.0),
        3 => JointDef::prismatic(a, b, at, axis)
            .limits(-1.0, 1.0)
            .motor(0.5, 50.0),
        4 => JointDef::weld(a, b, at),
        5 => JointDef::wheel(a, b, at, axis).spring(4.0, 0.7),
        _ => JointDef::mouse(b, at).max_force(1000.0),
    }
}

fn shape(spec: &ShapeSpec) -> Shape {
    match spec {
        ShapeSpec::Circle(r) => Shape::circle(*r).unwrap(),
        ShapeSpec::Rect(w, h) => Shape::rect(*w, *h).unwrap(),
        ShapeSpec::Polygon { radii, turn } => {
            let n = radii.len() as f32;
            let points: Vec<Vec2> = radii
                .iter()
                .enumerate()
                .map(|(k, &r)| {
                    let a = turn + std::f32::consts::TAU * k as f32 / n;
                    Vec2::new(r * a.cos(), r * a.sin())
                })
                .collect();
            // Points this spread out always hull into a valid polygon.
            Shape::polygon(&points).unwrap()
        }
    }
}

fn body_def(b: &NewBody) -> BodyDef {
    let def = match b.kind {
        0 => BodyDef::fixed(),
        1 => BodyDef::kinematic(),
        _ => BodyDef::dynamic(),
    };
    def.position(b.position)
        .angle(b.angle)
        .linear_velocity(b.velocity)
        .angular_velocity(b.angular_velocity)
}

/// One world driven by the actions, with the handles it returned.
struct Run {
    world: World,
    ids: Vec<BodyId>,
    live: Vec<bool>,
    /// What each `Join` answered: the worlds must agree on which joints they refuse.
    joins: Vec<Result<(), Error>>,
}

impl Run {
    fn new(backend: Backend, threads: usize) -> Run {
        Run {
            world: World::new(WorldSettings {
                backend,
                threads,
                // Short enough for islands to fall asleep within a `Rest`.
                enable_sleep: true,
                time_to_sleep: 0.1,
                ..WorldSettings::default()
            }),
            ids: Vec::new(),
            live: Vec::new(),
            joins: Vec::new(),
        }
    }

    fn apply(&mut self, action: &Action) -> Result<(), TestCaseError> {
        match action {
            Action::Add(b) => {
                let shape_def = ShapeDef::new(shape(&b.shape))
                    .density(b.density)
                    .sensor(b.sensor);
                // A sensor is its body's only shape.
                let id = match b.second.filter(|_| !b.sensor) {
                    None => self.world.add_body(body_def(b), shape_def),
                    Some((r, at)) => {
                        let circle = ShapeDef::new(Shape::circle_at(at, r).unwrap());
                        let shapes = [shape_def, circle.density(b.density)];
                        self.world.add_compound_body(body_def(b), &shapes)
                    }
                };
                let id = id.map_err(|e| TestCaseError::fail(format!("add refused: {e}")))?;
                self.ids.push(id);
                self.live.push(true);
            }
            Action::Remove(i) => {
                if let Some(k) = self.pick(*i) {
                    let result = self.world.remove_body(self.ids[k]);
                    let expect = if self.live[k] {
                        Ok(())
                    } else {
                        Err(Error::InvalidBody)
                    };
                    prop_assert_eq!(result, expect);
                    self.live[k] = false;
                }
            }
            Action::Step => self.world.step(1.0 / 60.0).unwrap(),
            Action::Rest(n) => {
                for _ in 0..*n {
                    self.world.step(1.0 / 60.0).unwrap();
                }
            }
            Action::Push(i, force, torque) => {
                if let Some(k) = self.pick(*i) {
                    let pushed = self.world.apply_force(self.ids[k], *force);
                    prop_assert_eq!(pushed.is_ok(), self.live[k]);
                    let turned = self.world.apply_torque(self.ids[k], *torque);
                    prop_assert_eq!(turned.is_ok(), self.live[k]);
                }
            }
            Action::Join(kind, i, j) => {
                if let (Some(a), Some(b)) = (self.pick(*i), self.pick(*j)) {
                    let (ida, idb) = (self.ids[a], self.ids[b]);
                    let at = match self.world.position(ida) {
                        Ok(p) => p + Vec2::new(0.25, 0.5),
                        Err(_) => Vec2::ZERO,
                    };
                    let def = joint_def(*kind, ida, idb, at);
                    let joined = self.world.add_joint(def).map(|_| ());
                    let stale = !self.live[b] || (!self.live[a] && *kind != 6);
                    if stale {
                        prop_assert_eq!(&joined, &Err(Error::InvalidBody));
                    }
                    self.joins.push(joined);
                }
            }
            Action::SetVelocity(i, v) => {
                if let Some(k) = self.pick(*i) {
                    let result = self.world.set_linear_velocity(self.ids[k], *v);
                    prop_assert_eq!(result.is_ok(), self.live[k]);
                }
            }
        }
        Ok(())
    }

    fn pick(&self, i: usize) -> Option<usize> {
        (!self.ids.is_empty()).then(|| i % self.ids.len())
    }

    /// Every live handle answers with a finite state; every removed one with `InvalidBody`.
    fn check_handles(&self) -> Result<(), TestCaseError> {
        for (&id, &live) in self.ids.iter().zip(&self.live) {
            if live {
                let p = self.world.position(id).unwrap();
                let v = self.world.linear_velocity(id).unwrap();
                let q = self.world.rotation(id).unwrap();
                let w = self.world.angular_velocity(id).unwrap();
                prop_assert!(
                    p.is_finite() && v.is_finite() && q.c.is_finite() && q.s.is_finite(),
                    "{:?}: p {:?} v {:?} q {:?}",
                    id,
                    p,
                    v,
                    q
                );
                prop_assert!(w.is_finite());
            } else {
                prop_assert_eq!(self.world.position(id), Err(Error::InvalidBody));
                prop_assert_eq!(self.world.angular_velocity(id), Err(Error::InvalidBody));
            }
        }
        prop_assert_eq!(
            self.world.body_count(),
            self.live.iter().filter(|&&l| l).count()
        );
        Ok(())
    }

    /// The whole state, as bits (see `common::state_bits`).
    fn state_bits(&self) -> Vec<u32> {
        common::state_bits(&self.world)
    }
}

/// Steps three worlds (backends, thread counts) through `actions`, checking them after each.
fn check_actions(actions: &[Action]) -> Result<(), TestCaseError> {
    let mut runs = [
        Run::new(Backend::Simd, 1),
        Run::new(Backend::Scalar, 2),
        Run::new(Backend::Simd, 2),
    ];
    for action in actions {
        for run in &mut runs {
            run.apply(action)?;
            run.check_handles()?;
        }
        let reference = runs[0].state_bits();
        for run in &runs[1..] {
            prop_assert!(
                run.state_bits() == reference,
                "worlds diverged after {:?}",
                action
            );
        }
        prop_assert_eq!(runs[1].world.contact_count(), runs[0].world.contact_count());
        prop_assert_eq!(&runs[1].joins, &runs[0].joins);
        prop_assert_eq!(&runs[2].joins, &runs[0].joins);
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::proptest_config(32))]

    #[test]
    fn random_worlds_stay_finite_valid_and_identical_across_backends_and_threads(
        actions in prop::collection::vec(action(), 1..60)
    ) {
        check_actions(&actions)?;
    }
}
