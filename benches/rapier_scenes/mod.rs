//! The standard scenes of `docs/scenes.md`, built in rapier2d for `--compare rapier`.
//!
//! Written from the spec (not from batch2d's `scenes.rs`) so that both engines' scenes come from
//! the same description: same bodies in the same places, same sizes, density 1 (8 for smash's
//! projectile), friction 0.6, restitution 0, and joint_grid's revolute joints with the same
//! anchors. Every body has sleeping off. Rapier's `IntegrationParameters` stay at their
//! defaults (dt 1/60, 4 solver iterations), and its joints at theirs (impulse joints).

use rapier2d::prelude::*;

/// A rapier world holding one scene, plus what the bench reads back from it.
pub struct RapierScene {
    pub world: PhysicsWorld,
    /// The dynamic body with the highest initial y and that y (the top box of a pyramid).
    pub top: Option<(RigidBodyHandle, f32)>,
    /// Every dynamic body and its initial centre, in creation order.
    dynamic: Vec<(RigidBodyHandle, [f32; 2])>,
    /// Every joint's bodies and its anchor in each body's frame.
    joints: Vec<(RigidBodyHandle, Vector, RigidBodyHandle, Vector)>,
}

impl RapierScene {
    fn new(gravity: Vector) -> RapierScene {
        let world = PhysicsWorld {
            gravity,
            integration_parameters: IntegrationParameters::default(),
            ..PhysicsWorld::default()
        };
        RapierScene {
            world,
            top: None,
            dynamic: Vec::new(),
            joints: Vec::new(),
        }
    }

    /// A fixed box of half-extents (hx, hy) centred at (x, y).
    fn fixed_box(&mut self, x: f32, y: f32, hx: f32, hy: f32) {
        self.world.insert(
            RigidBodyBuilder::fixed()
                .translation(Vector::new(x, y))
                .can_sleep(false),
            material(ColliderBuilder::cuboid(hx, hy)),
        );
    }

    /// A dynamic body at (x, y) with the given collider, density and initial velocity.
    fn dynamic(&mut self, x: f32, y: f32, v: Vector, collider: ColliderBuilder, density: f32) {
        let (handle, _) = self.world.insert(
            RigidBodyBuilder::dynamic()
                .translation(Vector::new(x, y))
                .linvel(v)
                .can_sleep(false),
            material(collider).density(density),
        );
        if self.top.is_none_or(|(_, top_y)| y > top_y) {
            self.top = Some((handle, y));
        }
        self.dynamic.push((handle, [x, y]));
    }

    /// A dynamic square of half-extent `h` at (x, y), at rest.
    fn dynamic_box(&mut self, x: f32, y: f32, h: f32) {
        self.dynamic(x, y, Vector::ZERO, ColliderBuilder::cuboid(h, h), 1.0);
    }

    pub fn body_count(&self) -> usize {
        self.world.bodies.len()
    }

    /// The joints the scene made.
    pub fn joint_count(&self) -> usize {
        self.world.impulse_joints.len()
    }

    /// Each joint's two anchors (world) at the bodies' present poses: the anchor fixed in body
    /// 1 and the one fixed in body 2.
    pub fn joint_anchors(&self) -> Vec<([f32; 2], [f32; 2])> {
        let at = |h: RigidBodyHandle, local: Vector| {
            let p = self.world.bodies[h].position().transform_point(local);
            [p.x, p.y]
        };
        self.joints
            .iter()
            .map(|&(a, la, b, lb)| (at(a, la), at(b, lb)))
            .collect()
    }

    /// No stage split: rapier2d times its stages only with its counters on, which would add
    /// their clock reads to the steps the bench times.
    pub fn stages(&self) -> [Option<f64>; 5] {
        [None; 5]
    }

    /// Contact pairs with at least one active solver contact after the last step.
    pub fn touching_pairs(&self) -> usize {
        self.world
            .contact_pairs()
            .filter(|p| p.has_any_active_contact())
            .count()
    }

    /// Initial y minus current y of the top body (see [`RapierScene::top`]).
    pub fn top_drop(&self) -> Option<f32> {
        let (handle, y0) = self.top?;
        Some(y0 - self.world.bodies[handle].translation().y)
    }

    /// The initial and current centres of the dynamic bodies, in creation order.
    pub fn dynamic_centres(&self) -> (Vec<[f32; 2]>, Vec<[f32; 2]>) {
        let start = self.dynamic.iter().map(|d| d.1).collect();
        let end = self
            .dynamic
            .iter()
            .map(|&(h, _)| {
                let p = self.world.bodies[h].translation();
                [p.x, p.y]
            })
            .collect();
        (start, end)
    }

    pub fn step(&mut self) {
        self.world.step();
    }
}

/// The shared material of `docs/scenes.md`: density 1, friction 0.6, restitution 0.
fn material(collider: ColliderBuilder) -> ColliderBuilder {
    collider.density(1.0).friction(0.6).restitution(0.0)
}

/// The standard scene called `name` in `docs/scenes.md`, or `None` for an unknown name.
pub fn build(name: &str) -> Option<RapierScene> {
    match name {
        "large_pyramid" => Some(large_pyramid()),
        "many_pyramids" => Some(many_pyramids()),
        "smash" => Some(smash()),
        "particle_pile" => Some(pile(100, 200, false)),
        "mixed_pile" => Some(pile(100, 200, true)),
        "stirred_bin" => Some(stirred_bin()),
        "joint_grid" => Some(joint_grid(100)),
        _ => None,
    }
}

const GRAVITY: Vector = Vector::new(0.0, -10.0);

fn large_pyramid() -> RapierScene {
    let mut s = RapierScene::new(GRAVITY);
    s.fixed_box(0.0, -1.0, 100.0, 1.0);
    for i in 0..100 {
        for j in i..100 {
            let x = (i + 1) as f32 * 0.5 + (j - i) as f32 * 1.0 - 50.0;
            let y = i as f32 + 0.5;
            s.dynamic_box(x, y, 0.5);
        }
    }
    s
}

fn many_pyramids() -> RapierScene {
    let mut s = RapierScene::new(GRAVITY);
    for r in 0..20 {
        s.fixed_box(0.0, 11.0 * r as f32 - 0.5, 110.0, 0.5);
    }
    for r in 0..20 {
        let y0 = 11.0 * r as f32;
        for c in 0..20 {
            let cx = -110.0 + 11.0 * c as f32 + 1.0;
            for i in 0..10 {
                for j in i..10 {
                    let x = (i + 1) as f32 * 0.5 + (j - i) as f32 * 1.0 + cx - 0.5;
                    let y = (2 * i + 1) as f32 * 0.5 + y0;
                    s.dynamic_box(x, y, 0.5);
                }
            }
        }
    }
    s
}

fn smash() -> RapierScene {
    let mut s = RapierScene::new(Vector::ZERO);
    s.dynamic(
        -20.0,
        0.0,
        Vector::new(40.0, 0.0),
        ColliderBuilder::cuboid(4.0, 4.0),
        8.0,
    );
    for i in 0..120 {
        for j in 0..80 {
            s.dynamic_box(0.4 * i as f32 + 30.0, 0.4 * (j as f32 - 40.0), 0.2);
        }
    }
    s.top = None; // no stability figure for smash
    s
}

/// `jitter(r, c)` of `docs/scenes.md`, in integers first, then f32.
fn jitter(r: usize, c: usize) -> f32 {
    let k = (r as u64 * 7919 + c as u64 * 104_729) % 1000;
    (k as f32 / 1000.0 - 0.5) * 0.1
}

/// The particle pile (`mixed`: a box of half-extent 0.25 where r + c is even), generalised to
/// `rows` x `cols` as documented on `batch2d::scenes::particle_pile`: inner half-width
/// 0.3 cols + 1, walls of half-height 0.4 max(rows, 10), the floor reaching under both walls.
/// 100 x 200 gives `docs/scenes.md`'s container exactly.
pub fn pile(rows: usize, cols: usize, mixed: bool) -> RapierScene {
    let mut s = RapierScene::new(GRAVITY);
    let inner = 0.3 * cols as f32 + 1.0;
    let wall_h = 0.4 * rows.max(10) as f32;
    s.fixed_box(0.0, -0.5, inner + 1.0, 0.5);
    s.fixed_box(-(inner + 0.5), wall_h, 0.5, wall_h);
    s.fixed_box(inner + 0.5, wall_h, 0.5, wall_h);
    let mid = (cols as f32 - 1.0) * 0.5;
    for r in 0..rows {
        for c in 0..cols {
            let x = (c as f32 - mid) * 0.6 + jitter(r, c);
            let y = 1.0 + 0.6 * r as f32;
            let collider = if mixed && (r + c) % 2 == 0 {
                ColliderBuilder::cuboid(0.25, 0.25)
            } else {
                ColliderBuilder::ball(0.25)
            };
            s.dynamic(x, y, Vector::ZERO, collider, 1.0);
        }
    }
    s.top = None;
    s
}

// The irregular polygons of the stirred bin (`docs/scenes.md`), of 3 to 7 vertices.
use batch2d::scenes::STIRRED_BIN_POLYGONS as STIRRED_POLYGONS;

/// The stirred bin of `docs/scenes.md`: a 40 m wide bin, a kinematic paddle of half-extents
/// (6.5, 0.25) at (0, 7.5) turning at 1.5 rad/s, and 72 x 56 mixed shapes falling in, the
/// shape of cell (r, c) chosen by (r + c) mod 9.
fn stirred_bin() -> RapierScene {
    let mut s = RapierScene::new(GRAVITY);
    s.fixed_box(0.0, -0.5, 21.0, 0.5);
    s.fixed_box(-20.5, 40.0, 0.5, 40.0);
    s.fixed_box(20.5, 40.0, 0.5, 40.0);
    s.world.insert(
        RigidBodyBuilder::kinematic_velocity_based()
            .translation(Vector::new(0.0, 7.5))
            .angvel(1.5)
            .can_sleep(false),
        material(ColliderBuilder::cuboid(6.5, 0.25)),
    );
    let v = |[x, y]: [f32; 2]| Vector::new(x, y);
    for r in 0..72 {
        for c in 0..56 {
            let x = (c as f32 - 27.5) * 0.7 + jitter(r, c);
            let y = 14.5 + 0.7 * r as f32;
            let collider = match (r + c) % 9 {
                0 => ColliderBuilder::ball(0.25),
                1 => ColliderBuilder::cuboid(0.25, 0.25),
                2 => ColliderBuilder::capsule_from_endpoints(v([-0.15, 0.0]), v([0.15, 0.0]), 0.15),
                3 => ColliderBuilder::round_cuboid(0.18, 0.18, 0.07),
                k => {
                    let points: Vec<Vector> =
                        STIRRED_POLYGONS[k - 4].iter().map(|&p| v(p)).collect();
                    ColliderBuilder::convex_hull(&points).expect("a convex polygon's hull")
                }
            };
            s.dynamic(x, y, Vector::ZERO, collider, 1.0);
        }
    }
    s.top = None;
    s
}

/// The joint grid of `docs/scenes.md`, `n` x `n` (the standard scene is 100 x 100): circle
/// (c, r) of radius 0.4 at (c, -r), fixed where r = 0 and |c - n / 2| <= 3, joined by revolute
/// joints to the circle above (at (c, 0.5 - r)) and the one on its left (at (c - 0.5, -r)).
/// The circles are in group 2 and filter it out, so they never collide with one another.
pub fn joint_grid(n: usize) -> RapierScene {
    let mut s = RapierScene::new(GRAVITY);
    let groups = InteractionGroups::new(Group::GROUP_2, !Group::GROUP_2, InteractionTestMode::And);
    let mut ids: Vec<RigidBodyHandle> = Vec::with_capacity(n * n);
    for c in 0..n {
        for r in 0..n {
            let (x, y) = (c as f32, -(r as f32));
            let fixed = r == 0 && (c as isize - (n / 2) as isize).abs() <= 3;
            let body = if fixed {
                RigidBodyBuilder::fixed()
            } else {
                RigidBodyBuilder::dynamic()
            };
            let collider = material(ColliderBuilder::ball(0.4)).collision_groups(groups);
            let (h, _) = s.world.insert(
                body.translation(Vector::new(x, y)).can_sleep(false),
                collider,
            );
            // Each anchor is halfway to the neighbour: 0.5 m from either centre.
            let mut join = |other: RigidBodyHandle, local_other: Vector, local_self: Vector| {
                let joint = RevoluteJointBuilder::new()
                    .local_anchor1(local_other)
                    .local_anchor2(local_self);
                s.world.insert_impulse_joint(other, h, joint);
                s.joints.push((other, local_other, h, local_self));
            };
            if r > 0 {
                join(
                    ids[ids.len() - 1],
                    Vector::new(0.0, -0.5),
                    Vector::new(0.0, 0.5),
                );
            }
            if c > 0 {
                join(
                    ids[ids.len() - n],
                    Vector::new(0.5, 0.0),
                    Vector::new(-0.5, 0.0),
                );
            }
            ids.push(h);
        }
    }
    s
}
