//! Property tests over random worlds: random shapes (circles and polygons from 1 cm to 100 m),
//! densities a thousandfold apart, speeds up to 400 m/s, and random sequences of add, remove,
//! step and set-velocity. Whatever the sequence, nothing panics, every state stays finite,
//! handles are valid until their body is removed and `Err(InvalidBody)` after, and worlds that
//! differ only in backend or thread count stay bit-identical.
//!
//! 32 cases by default; `PROPTEST_CASES=2000 cargo test --release --test random_worlds` runs
//! a longer search.

use batch2d::{Backend, BodyDef, BodyId, Error, Shape, ShapeDef, Vec2, World, WorldSettings};
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
    SetVelocity(usize, Vec2),
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
    )
        .prop_map(
            |(kind, shape, density, (x, y), angle, velocity, angular_velocity)| NewBody {
                kind,
                shape,
                density,
                position: Vec2::new(x, y),
                angle,
                velocity,
                angular_velocity,
            },
        )
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        3 => new_body().prop_map(Action::Add),
        1 => (0usize..64).prop_map(Action::Remove),
        4 => Just(Action::Step),
        1 => ((0usize..64), speed_vector()).prop_map(|(i, v)| Action::SetVelocity(i, v)),
    ]
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
}

impl Run {
    fn new(backend: Backend, threads: usize) -> Run {
        Run {
            world: World::new(WorldSettings {
                backend,
                threads,
                ..WorldSettings::default()
            }),
            ids: Vec::new(),
            live: Vec::new(),
        }
    }

    fn apply(&mut self, action: &Action) -> Result<(), TestCaseError> {
        match action {
            Action::Add(b) => {
                let shape_def = ShapeDef::new(shape(&b.shape)).density(b.density);
                let id = self.world.add_body(body_def(b), shape_def);
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

    /// Positions, rotations and velocities of every body, as bits.
    fn state_bits(&self) -> Vec<[u32; 7]> {
        self.world
            .bodies()
            .map(|id| {
                let p = self.world.position(id).unwrap();
                let q = self.world.rotation(id).unwrap();
                let v = self.world.linear_velocity(id).unwrap();
                let w = self.world.angular_velocity(id).unwrap();
                [p.x, p.y, q.c, q.s, v.x, v.y, w].map(f32::to_bits)
            })
            .collect()
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        // Failures print their minimal input; no regression files are written into the tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_worlds_stay_finite_valid_and_identical_across_backends_and_threads(
        actions in prop::collection::vec(action(), 1..60)
    ) {
        let mut runs = [
            Run::new(Backend::Simd, 1),
            Run::new(Backend::Scalar, 2),
            Run::new(Backend::Simd, 2),
        ];
        for action in &actions {
            for run in &mut runs {
                run.apply(action)?;
                run.check_handles()?;
            }
            let reference = runs[0].state_bits();
            for run in &runs[1..] {
                prop_assert!(run.state_bits() == reference, "worlds diverged after {:?}", action);
            }
            prop_assert_eq!(runs[1].world.contact_count(), runs[0].world.contact_count());
        }
    }
}
