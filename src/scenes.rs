//! The standard scenes of `docs/scenes.md`, built from one place so that benches, examples and tests
//! all measure and check the same work. Fixtures, not the engine's API: behind the `scenes`
//! feature, which the tests, examples and benches turn on.
//!
//! Units are metres, kilograms and seconds. Every scene is meant to be stepped at 1/60 s with the
//! substep count of the settings passed in (4 by default). Bodies are created in a fixed order
//! (static bodies first, then the dynamic ones row by row; the joint grid column by column), so
//! `World::bodies` walks them the same way on every run.

use crate::{
    BodyDef, BodyId, DebugBody, DebugContact, DebugDraw, DebugDrawOptions, Error, JointDef, Shape,
    ShapeDef, Vec2, World, WorldSettings,
};

/// One of the standard scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scene {
    /// 5050 boxes in one pyramid with a base of 100, on a static ground. 500 steps.
    LargePyramid,
    /// 20 x 20 pyramids with a base of 10 (22000 boxes) on 20 ground shelves. 200 steps.
    ManyPyramids,
    /// A heavy, fast box hits a 120 x 80 block of small boxes in zero gravity. 300 steps.
    Smash,
    /// 100 x 200 circles falling into a container. 300 steps.
    ParticlePile,
    /// The particle pile with every other circle replaced by a box. 300 steps.
    MixedPile,
    /// 4032 circles, boxes, capsules, rounded boxes and irregular polygons of 3 to 7 vertices
    /// fall into a bin and are stirred by a turning kinematic paddle, so contacts are made
    /// afresh every step. 500 steps.
    StirredBin,
    /// 100 x 100 circles hanging in a grid of 19800 revolute joints from seven fixed bodies in
    /// the middle of its top row; the circles do not collide. 500 steps. Not in
    /// [`Scene::ALL`]: it measures joints, where the others measure contacts.
    JointGrid,
}

impl Scene {
    /// The six contact scenes, in the order of `docs/scenes.md`: those the performance tables
    /// list and a bench's `--scene all` runs. [`Scene::EVERY`] adds the joint grid.
    pub const ALL: [Scene; 6] = [
        Scene::LargePyramid,
        Scene::ManyPyramids,
        Scene::Smash,
        Scene::ParticlePile,
        Scene::MixedPile,
        Scene::StirredBin,
    ];

    /// Every scene: [`Scene::ALL`], then [`Scene::JointGrid`].
    pub const EVERY: [Scene; 7] = [
        Scene::LargePyramid,
        Scene::ManyPyramids,
        Scene::Smash,
        Scene::ParticlePile,
        Scene::MixedPile,
        Scene::StirredBin,
        Scene::JointGrid,
    ];

    /// The scene's name in `docs/scenes.md`, e.g. `"large_pyramid"`.
    pub fn name(self) -> &'static str {
        match self {
            Scene::LargePyramid => "large_pyramid",
            Scene::ManyPyramids => "many_pyramids",
            Scene::Smash => "smash",
            Scene::ParticlePile => "particle_pile",
            Scene::MixedPile => "mixed_pile",
            Scene::StirredBin => "stirred_bin",
            Scene::JointGrid => "joint_grid",
        }
    }

    /// The scene called `name` (as returned by [`Scene::name`]), if any, among
    /// [`Scene::EVERY`].
    pub fn from_name(name: &str) -> Option<Scene> {
        Scene::EVERY.into_iter().find(|s| s.name() == name)
    }

    /// How many steps of 1/60 s a bench or check runs this scene for.
    pub fn steps(self) -> usize {
        match self {
            Scene::LargePyramid | Scene::StirredBin | Scene::JointGrid => 500,
            Scene::ManyPyramids => 200,
            Scene::Smash | Scene::ParticlePile | Scene::MixedPile => 300,
        }
    }

    /// The scene's gravity: zero for `Smash`, `(0, -10)` otherwise.
    pub fn gravity(self) -> Vec2 {
        match self {
            Scene::Smash => Vec2::ZERO,
            _ => Vec2::new(0.0, -10.0),
        }
    }

    /// Builds the scene in a new world. `settings.gravity` is replaced by [`Scene::gravity`];
    /// everything else (substeps, threads, backend, solver tuning) is taken as given. That
    /// includes `enable_sleep`, off by default as `docs/scenes.md` wants: pass it on only to measure
    /// sleeping (the bench's `--sleep`).
    pub fn build(self, mut settings: WorldSettings) -> Result<World, Error> {
        settings.gravity = self.gravity();
        match self {
            Scene::LargePyramid => large_pyramid(settings),
            Scene::ManyPyramids => many_pyramids(settings),
            Scene::Smash => smash(settings),
            Scene::ParticlePile => pile(PILE_ROWS, PILE_COLS, false, settings),
            Scene::MixedPile => pile(PILE_ROWS, PILE_COLS, true, settings),
            Scene::StirredBin => stirred_bin(settings),
            Scene::JointGrid => Ok(joint_grid(JOINT_GRID_SIZE, settings)?.0),
        }
    }
}

/// A joint of [`joint_grid`] as built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridJoint {
    /// Body A: the neighbour above or on the left.
    pub a: BodyId,
    /// Body B.
    pub b: BodyId,
    /// Where the joint was made (world), halfway between the two.
    pub anchor: Vec2,
}

/// Columns and rows of the standard joint grid.
pub const JOINT_GRID_SIZE: usize = 100;

/// How many fixed bodies the joint grid's top row has, in its middle.
const JOINT_GRID_FIXED: usize = 7;

/// The joint grid of `docs/scenes.md` generalised to `n` x `n` circles (the standard scene is
/// 100 x 100). `settings.gravity` is used as given.
///
/// Circle (column c, row r) of radius 0.4 sits at (c, -r). It is joined by a revolute joint to
/// the circle above it (joint at (c, 0.5 - r)) and to the one on its left (at (c - 0.5, -r)),
/// the neighbour being the joint's body A. The circles of row 0 with `|c - n / 2| <= 3` are
/// fixed, the rest dynamic. The circles are in collision layer 2 and their mask leaves it out,
/// so they never collide with one another (circles that are not neighbours come closer than
/// 0.8 m as the 100 x 100 grid falls).
///
/// Bodies are created column by column from the left, each column from the top; a body's joints
/// right after it, the one above first. Returns the world and its joints in creation order.
pub fn joint_grid(n: usize, settings: WorldSettings) -> Result<(World, Vec<GridJoint>), Error> {
    let mut world = World::new(settings);
    let mut ids: Vec<BodyId> = Vec::with_capacity(n * n);
    let mut joints = Vec::with_capacity(2 * n * n.saturating_sub(1));
    let fixed_from = (n / 2).saturating_sub(JOINT_GRID_FIXED / 2);
    let fixed = fixed_from..=n / 2 + JOINT_GRID_FIXED / 2;
    let shape = ShapeDef::new(Shape::circle(0.4)?).layers(2).mask(!2);
    for c in 0..n {
        for r in 0..n {
            let p = Vec2::new(c as f32, -(r as f32));
            let def = if r == 0 && fixed.contains(&c) {
                BodyDef::fixed()
            } else {
                BodyDef::dynamic()
            };
            let body = world.add_body(def.position(p), shape.clone())?;
            if r > 0 {
                let (above, at) = (ids[ids.len() - 1], p + Vec2::new(0.0, 0.5));
                world.add_joint(JointDef::revolute(above, body, at))?;
                joints.push(GridJoint {
                    a: above,
                    b: body,
                    anchor: at,
                });
            }
            if c > 0 {
                let (left, at) = (ids[ids.len() - n], p - Vec2::new(0.5, 0.0));
                world.add_joint(JointDef::revolute(left, body, at))?;
                joints.push(GridJoint {
                    a: left,
                    b: body,
                    anchor: at,
                });
            }
            ids.push(body);
        }
    }
    Ok((world, joints))
}

/// How many fixed bodies (floor and two walls) the piles create before their grid.
pub const PILE_FIXED_BODIES: usize = 3;

/// Rows and columns of the standard particle and mixed piles.
const PILE_ROWS: usize = 100;
const PILE_COLS: usize = 200;
/// Grid pitch and body size of the piles.
const PILE_PITCH: f32 = 0.6;
const PILE_RADIUS: f32 = 0.25;

/// The particle pile generalised to `rows` x `cols` circles (the standard scene is 100 x 200).
///
/// The grid is laid out exactly as in `docs/scenes.md`, centred on x = 0. The container grows with it:
/// its inner half-width is `0.3 * cols + 1` m (the grid's half-width plus about 1 m of clearance
/// on each side, 61 m for 200 columns), the floor reaches under both walls, and the walls have a
/// half-height of `0.4 * max(rows, 10)` m (40 m for 100 rows), which keeps them above the top row
/// for any grid. `settings.gravity` is used as given.
///
/// The container's [`PILE_FIXED_BODIES`] fixed bodies (floor, left wall, right wall) are created
/// first, then the circles row by row from the bottom, each row from left to right.
pub fn particle_pile(rows: usize, cols: usize, settings: WorldSettings) -> Result<World, Error> {
    pile(rows, cols, false, settings)
}

/// A fixed box of half-extents `half` centred at `center`, with the default material.
fn add_fixed_box(world: &mut World, center: Vec2, half: Vec2) -> Result<(), Error> {
    world.add_body(
        BodyDef::fixed().position(center),
        ShapeDef::new(Shape::rect(half.x, half.y)?),
    )?;
    Ok(())
}

/// A dynamic square of half-extent `half` at `p`, with the default material.
fn add_box(world: &mut World, p: Vec2, half: f32) -> Result<(), Error> {
    world.add_body(
        BodyDef::dynamic().position(p),
        ShapeDef::new(Shape::rect(half, half)?),
    )?;
    Ok(())
}

fn large_pyramid(settings: WorldSettings) -> Result<World, Error> {
    large_pyramid_at(Vec2::ZERO, settings)
}

/// The large pyramid of `docs/scenes.md` with every body moved by `origin`: the same scene far from
/// the world origin, where an f32 position has only millimetres of resolution (the ulp of
/// 1e4 is about 1 mm). `settings.gravity` is used as given.
///
/// Each position is the scene's own (exact in f32) plus `origin`, rounded once, so the boxes
/// keep the layout of the scene up to that rounding. A non-finite `origin`, or one so far out
/// that a position overflows, gives `Err(InvalidParameter)` from [`World::add_body`].
pub fn large_pyramid_at(origin: Vec2, settings: WorldSettings) -> Result<World, Error> {
    let mut world = World::new(settings);
    let ground = Vec2::new(0.0, -1.0) + origin;
    add_fixed_box(&mut world, ground, Vec2::new(100.0, 1.0))?;
    let base = 100;
    for i in 0..base {
        for j in i..base {
            // Every coordinate is a multiple of 0.5 below 100, so f32 holds it exactly.
            let x = (i + 1) as f32 * 0.5 + (j - i) as f32 - 50.0;
            let y = i as f32 + 0.5;
            add_box(&mut world, Vec2::new(x, y) + origin, 0.5)?;
        }
    }
    Ok(world)
}

fn many_pyramids(settings: WorldSettings) -> Result<World, Error> {
    let mut world = World::new(settings);
    let (rows, cols, base) = (20, 20, 10);
    for r in 0..rows {
        let top = 11.0 * r as f32;
        add_fixed_box(&mut world, Vec2::new(0.0, top - 0.5), Vec2::new(110.0, 0.5))?;
    }
    for r in 0..rows {
        let y0 = 11.0 * r as f32;
        for c in 0..cols {
            let cx = -110.0 + 11.0 * c as f32 + 1.0;
            for i in 0..base {
                for j in i..base {
                    let x = (i + 1) as f32 * 0.5 + (j - i) as f32 + cx - 0.5;
                    let y = (2 * i + 1) as f32 * 0.5 + y0;
                    add_box(&mut world, Vec2::new(x, y), 0.5)?;
                }
            }
        }
    }
    Ok(world)
}

fn smash(settings: WorldSettings) -> Result<World, Error> {
    let mut world = World::new(settings);
    world.add_body(
        BodyDef::dynamic()
            .position(Vec2::new(-20.0, 0.0))
            .linear_velocity(Vec2::new(40.0, 0.0)),
        ShapeDef::new(Shape::rect(4.0, 4.0)?).density(8.0),
    )?;
    for i in 0..120 {
        for j in 0..80 {
            let x = 0.4 * i as f32 + 30.0;
            let y = 0.4 * (j as f32 - 40.0);
            add_box(&mut world, Vec2::new(x, y), 0.2)?;
        }
    }
    Ok(world)
}

/// `jitter(r, c)` of `docs/scenes.md`: a small, deterministic x offset in [-0.05, 0.05) m. The hash is
/// taken in integers (u64, so no grid size can overflow it) and only then turned into f32.
fn jitter(r: usize, c: usize) -> f32 {
    let k = (r as u64 * 7919 + c as u64 * 104_729) % 1000;
    (k as f32 / 1000.0 - 0.5) * 0.1
}

/// The particle pile's container and grid; `mixed` puts a box in every cell with `r + c` even.
fn pile(rows: usize, cols: usize, mixed: bool, settings: WorldSettings) -> Result<World, Error> {
    let mut world = World::new(settings);
    // Written so that 100 x 200 gives docs/scenes.md's numbers exactly: 61, 62 and 40.
    let inner = 0.3 * cols as f32 + 1.0;
    let wall_half_h = 0.4 * rows.max(10) as f32;
    add_fixed_box(
        &mut world,
        Vec2::new(0.0, -0.5),
        Vec2::new(inner + 1.0, 0.5),
    )?;
    for side in [-1.0f32, 1.0] {
        let center = Vec2::new(side * (inner + 0.5), wall_half_h);
        add_fixed_box(&mut world, center, Vec2::new(0.5, wall_half_h))?;
    }

    let mid = (cols as f32 - 1.0) * 0.5;
    for r in 0..rows {
        for c in 0..cols {
            let p = Vec2::new(
                (c as f32 - mid) * PILE_PITCH + jitter(r, c),
                1.0 + PILE_PITCH * r as f32,
            );
            let shape = if mixed && (r + c) % 2 == 0 {
                Shape::rect(PILE_RADIUS, PILE_RADIUS)?
            } else {
                Shape::circle(PILE_RADIUS)?
            };
            world.add_body(
                BodyDef::dynamic().position(p),
                ShapeDef::new(shape)
                    .density(1.0)
                    .friction(0.6)
                    .restitution(0.0),
            )?;
        }
    }
    Ok(world)
}

/// How many bodies (floor, two walls, then the kinematic paddle) the stirred bin creates
/// before its grid.
pub const STIRRED_BIN_FIXED_BODIES: usize = 4;

/// The stirred bin's inner half-width (m): its walls' inner faces are at x = -20 and x = 20.
pub const STIRRED_BIN_HALF_WIDTH: f32 = 20.0;

/// The stirred bin's walls reach this high (m).
pub const STIRRED_BIN_HEIGHT: f32 = 80.0;

/// Centre (m), half-extents (m) and angular velocity (rad/s, counter-clockwise) of the
/// stirred bin's paddle. Its ends sweep a circle that clears the floor by 0.995 m, more than
/// any body is wide, so no body is pinched between the paddle and the floor, and stays below
/// the grid's lowest row.
pub const STIRRED_BIN_PADDLE: (Vec2, Vec2, f32) = (Vec2::new(0.0, 7.5), Vec2::new(6.5, 0.25), 1.5);

/// Rows and columns of the stirred bin's grid, and its pitch (m).
const STIRRED_ROWS: usize = 72;
const STIRRED_COLS: usize = 56;
const STIRRED_PITCH: f32 = 0.7;
/// Centre height of the grid's lowest row (m).
const STIRRED_BOTTOM: f32 = 14.5;

/// The irregular convex polygons of the stirred bin (3 to 7 vertices, counter-clockwise, m),
/// as `docs/scenes.md` lists them, for other engines' copies of the scene. Every vertex lies
/// within 0.3 m of the body origin along either axis.
pub const STIRRED_BIN_POLYGONS: [&[[f32; 2]]; 5] = [
    &[[-0.30, -0.20], [0.30, -0.15], [-0.05, 0.30]],
    &[[-0.25, -0.25], [0.30, -0.20], [0.20, 0.25], [-0.30, 0.15]],
    &[
        [-0.10, -0.30],
        [0.25, -0.20],
        [0.25, 0.15],
        [-0.05, 0.30],
        [-0.30, 0.00],
    ],
    &[
        [-0.15, -0.28],
        [0.15, -0.25],
        [0.30, 0.00],
        [0.10, 0.28],
        [-0.20, 0.25],
        [-0.30, -0.05],
    ],
    &[
        [0.00, -0.30],
        [0.22, -0.20],
        [0.30, 0.05],
        [0.15, 0.27],
        [-0.10, 0.28],
        [-0.28, 0.10],
        [-0.25, -0.18],
    ],
];

/// The shape of the stirred bin's cell (r, c), by `(r + c) mod 9`: a circle, a box, a
/// capsule, a rounded box, then the irregular polygons of 3 to 7 vertices.
fn stirred_shape(r: usize, c: usize) -> Result<Shape, Error> {
    match (r + c) % 9 {
        0 => Shape::circle(0.25),
        1 => Shape::rect(0.25, 0.25),
        2 => Shape::capsule(Vec2::new(-0.15, 0.0), Vec2::new(0.15, 0.0), 0.15),
        3 => {
            let h = 0.18;
            let core = [(-h, -h), (h, -h), (h, h), (-h, h)].map(|(x, y)| Vec2::new(x, y));
            Shape::rounded_polygon(&core, 0.07)
        }
        k => {
            let points: Vec<Vec2> = STIRRED_BIN_POLYGONS[k - 4]
                .iter()
                .map(|&[x, y]| Vec2::new(x, y))
                .collect();
            Shape::polygon(&points)
        }
    }
}

/// The stirred bin of `docs/scenes.md`.
///
/// A 40 m wide bin (floor and two walls) with a kinematic paddle turning near its floor, and
/// above it 72 rows x 56 columns of mixed shapes that fall in: circles, boxes, capsules,
/// rounded boxes and irregular convex polygons of 3 to 7 vertices. The paddle keeps the pile
/// moving, so pairs begin and end every step and the narrowphase keeps computing manifolds
/// from scratch, where the other scenes mostly update pairs they already had.
///
/// The [`STIRRED_BIN_FIXED_BODIES`] bodies (floor, left wall, right wall, paddle) come first,
/// then the grid row by row from the bottom, each row from left to right.
pub fn stirred_bin(settings: WorldSettings) -> Result<World, Error> {
    let mut world = World::new(settings);
    let inner = STIRRED_BIN_HALF_WIDTH;
    let wall_half_h = 0.5 * STIRRED_BIN_HEIGHT;
    add_fixed_box(
        &mut world,
        Vec2::new(0.0, -0.5),
        Vec2::new(inner + 1.0, 0.5),
    )?;
    for side in [-1.0f32, 1.0] {
        let center = Vec2::new(side * (inner + 0.5), wall_half_h);
        add_fixed_box(&mut world, center, Vec2::new(0.5, wall_half_h))?;
    }
    let (center, half, spin) = STIRRED_BIN_PADDLE;
    world.add_body(
        BodyDef::kinematic().position(center).angular_velocity(spin),
        ShapeDef::new(Shape::rect(half.x, half.y)?),
    )?;

    let mid = (STIRRED_COLS as f32 - 1.0) * 0.5;
    for r in 0..STIRRED_ROWS {
        for c in 0..STIRRED_COLS {
            let p = Vec2::new(
                (c as f32 - mid) * STIRRED_PITCH + jitter(r, c),
                STIRRED_BOTTOM + STIRRED_PITCH * r as f32,
            );
            world.add_body(
                BodyDef::dynamic().position(p),
                ShapeDef::new(stirred_shape(r, c)?)
                    .density(1.0)
                    .friction(0.6)
                    .restitution(0.0),
            )?;
        }
    }
    Ok(world)
}

/// How many graph colors (parallel solve batches) the last step's contacts filled, as the
/// examples print and the benches report it: the distinct [`DebugContact::color`]s.
pub fn colors_in_use(world: &World) -> usize {
    struct Colors(u32, [bool; 256]);
    impl DebugDraw for Colors {
        fn draw_circle(&mut self, _: DebugBody, _: Vec2, _: f32, _: Vec2) {}
        fn draw_polygon(&mut self, _: DebugBody, _: &[Vec2], _: f32) {}
        fn draw_contact(&mut self, contact: &DebugContact) {
            if let Some(k) = contact.color {
                self.0 += u32::from(!self.1[usize::from(k)]);
                self.1[usize::from(k)] = true;
            }
        }
    }
    let options = DebugDrawOptions {
        shapes: false,
        aabbs: false,
        contacts: true,
        joints: false,
    };
    let mut colors = Colors(0, [false; 256]);
    world.debug_draw(&mut colors, &options);
    colors.0 as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Scene::EVERY {
            assert_eq!(Scene::from_name(s.name()), Some(s));
        }
        assert_eq!(Scene::from_name("no_such_scene"), None);
    }

    #[test]
    fn jitter_matches_the_formula() {
        // (0 * 7919 + 1 * 104729) mod 1000 = 729 -> (0.729 - 0.5) * 0.1
        assert_eq!(jitter(0, 1), (729.0f32 / 1000.0 - 0.5) * 0.1);
        for r in 0..50 {
            for c in 0..50 {
                let j = jitter(r, c);
                assert!((-0.05..0.05).contains(&j), "jitter({r}, {c}) = {j}");
            }
        }
    }

    #[test]
    fn body_counts_match_scenes_md() {
        let expect = [
            (Scene::LargePyramid, 1 + 5050),
            (Scene::ManyPyramids, 20 + 22000),
            (Scene::Smash, 9601),
            (Scene::ParticlePile, 3 + 20000),
            (Scene::MixedPile, 3 + 20000),
            (Scene::StirredBin, STIRRED_BIN_FIXED_BODIES + 56 * 72),
            (Scene::JointGrid, 10000),
        ];
        for (scene, n) in expect {
            let world = scene.build(WorldSettings::default()).unwrap();
            assert_eq!(world.body_count(), n, "{}", scene.name());
            // 99 joints down each of 100 columns, 99 across each of 100 rows.
            let joints = if scene == Scene::JointGrid { 19800 } else { 0 };
            assert_eq!(world.joint_count(), joints, "{}", scene.name());
        }
    }

    #[test]
    fn the_joint_grid_hangs_from_seven_bodies_and_its_joints_join_neighbours() {
        let n = 12;
        let (mut world, joints) = joint_grid(n, WorldSettings::default()).unwrap();
        let fixed: Vec<Vec2> = world
            .bodies()
            .filter(|&id| world.body_kind(id) == Ok(crate::BodyKind::Fixed))
            .map(|id| world.position(id).unwrap())
            .collect();
        let expect: Vec<Vec2> = (3..=9).map(|c| Vec2::new(c as f32, 0.0)).collect();
        assert_eq!(fixed, expect);
        assert_eq!(joints.len(), 2 * n * (n - 1));
        for &GridJoint { a, b, anchor: at } in &joints {
            // Each joint sits halfway between two neighbours 1 m apart.
            let (pa, pb) = (world.position(a).unwrap(), world.position(b).unwrap());
            assert_eq!((pb - pa).length(), 1.0);
            assert_eq!((pa + pb) * 0.5, at);
        }
        // The bottom-left circle moved onto its diagonal neighbour (no joint between them)
        // overlaps it and makes no contact; an ordinary ball there does.
        let ids: Vec<BodyId> = world.bodies().collect();
        let (corner, diagonal) = (ids[n - 1], ids[2 * n - 2]);
        let onto = world.position(diagonal).unwrap() + Vec2::new(-0.3, 0.0);
        world.set_position(corner, onto).unwrap();
        world.step(1.0 / 60.0).unwrap();
        assert_eq!(world.contact_count(), 0);
        world
            .add_body(
                BodyDef::dynamic().position(onto + Vec2::new(0.0, -0.3)),
                ShapeDef::new(Shape::circle(0.4).unwrap()),
            )
            .unwrap();
        world.step(1.0 / 60.0).unwrap();
        assert!(world.contact_count() >= 2, "{}", world.contact_count());
    }

    #[test]
    fn generalised_pile_keeps_the_grid_inside_its_container() {
        let world = particle_pile(3, 7, WorldSettings::default()).unwrap();
        assert_eq!(world.body_count(), 3 + 21);
        let inner = 0.3 * 7.0 + 1.0;
        for id in world.bodies().skip(3) {
            let p = world.position(id).unwrap();
            assert!(p.x.abs() + PILE_RADIUS < inner, "{p:?}");
            assert!(p.y - PILE_RADIUS > 0.0, "{p:?}");
        }
    }

    #[test]
    fn the_stirred_bin_mixes_every_shape_kind_above_the_paddles_sweep() {
        // Vertex counts of the nine kinds: circle (none), box, capsule, rounded box, then the
        // irregular polygons of 3 to 7 vertices.
        let want = [
            None,
            Some(4),
            Some(2),
            Some(4),
            Some(3),
            Some(4),
            Some(5),
            Some(6),
            Some(7),
        ];
        for (k, want) in want.into_iter().enumerate() {
            let count = match stirred_shape(0, k).unwrap() {
                Shape::Circle(_) => None,
                Shape::Polygon(p) => Some(p.count),
            };
            assert_eq!(count, want, "kind {k}");
        }
        let world = stirred_bin(WorldSettings::default()).unwrap();
        let ids: Vec<BodyId> = world.bodies().collect();
        assert_eq!(world.body_kind(ids[3]), Ok(crate::BodyKind::Kinematic));
        let (center, half, _) = STIRRED_BIN_PADDLE;
        let sweep = half.length();
        // Every shape lies within 0.3 m of its origin along either axis, so within
        // 0.3 sqrt 2 of it: none can be pinched between the floor and the paddle's ends.
        let widest = 2.0 * 0.3 * 2f32.sqrt();
        assert!(
            center.y - sweep > widest,
            "the paddle sweeps too close to the floor"
        );
        for &id in &ids[STIRRED_BIN_FIXED_BODIES..] {
            let p = world.position(id).unwrap();
            // Every shape reaches at most 0.3 m from its origin along either axis at angle 0.
            assert!(p.x.abs() + 0.3 < STIRRED_BIN_HALF_WIDTH, "{p:?}");
            assert!((p - center).length() - 0.3 * 2f32.sqrt() > sweep, "{p:?}");
        }
    }
}
