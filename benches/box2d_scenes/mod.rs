//! The standard scenes of `SCENES.md`, built in Box2D v3 (the C library, through `boxdd-sys`)
//! for `--compare box2d`.
//!
//! Written from the spec, like the rapier2d scenes: same bodies in the same places, same sizes,
//! density 1 (8 for smash's projectile), friction 0.6, restitution 0, and joint_grid's revolute
//! joints with the same anchors. Sleeping is off for the world and every body. The rest of
//! `b2DefaultWorldDef` stays as Box2D ships it (contact hertz 30, continuous collision on), and
//! of `b2DefaultRevoluteJointDef` too; the bench steps at dt 1/60 with [`SUBSTEPS`] substeps.
//!
//! Threads: `workerCount` = the bench's thread count, with no task callbacks, so Box2D runs its
//! own scheduler (this Box2D version has one: `workerCount - 1` threads it creates with the
//! world, plus the calling thread).
//!
//! Box2D's asserts are compiled in unless it was built with `NDEBUG` (see `.cargo/config.toml`):
//! [`asserts_compiled_in`] checks which build was linked.

use boxdd_sys::ffi::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Substeps per step, Box2D's recommended count and batch2d's default.
pub const SUBSTEPS: i32 = 4;

/// A Box2D world holding one scene, plus what the bench reads back from it. Destroys the world
/// (and the scheduler's threads) when dropped.
pub struct Box2dScene {
    world: b2WorldId,
    body_count: usize,
    /// The dynamic body with the highest initial y and that y (the top box of a pyramid).
    top: Option<(b2BodyId, f32)>,
    /// Every dynamic body and its initial centre, in creation order.
    dynamic: Vec<(b2BodyId, [f32; 2])>,
    /// Every joint's bodies and its anchor in each body's frame.
    joints: Vec<(b2BodyId, [f32; 2], b2BodyId, [f32; 2])>,
    /// The joints between two static bodies: Box2D keeps them out of the constraint graph.
    static_joints: usize,
}

impl Box2dScene {
    fn new(gravity: [f32; 2], threads: usize) -> Box2dScene {
        // SAFETY: plain C calls on a definition initialised by Box2D itself.
        let world = unsafe {
            let mut def = b2DefaultWorldDef();
            def.gravity = b2Vec2 {
                x: gravity[0],
                y: gravity[1],
            };
            def.enableSleep = false;
            def.workerCount = threads.max(1) as i32;
            b2CreateWorld(&def)
        };
        Box2dScene {
            world,
            body_count: 0,
            top: None,
            dynamic: Vec::new(),
            joints: Vec::new(),
            static_joints: 0,
        }
    }

    /// A body of `type_` at (x, y) with velocity `v` and one shape made by `add_shape`.
    fn body(
        &mut self,
        type_: b2BodyType,
        [x, y]: [f32; 2],
        v: [f32; 2],
        density: f32,
        add_shape: impl FnOnce(b2BodyId, &b2ShapeDef),
    ) -> b2BodyId {
        // SAFETY: the world is alive; the definitions come from Box2D's defaults.
        let body = unsafe {
            let mut def = b2DefaultBodyDef();
            def.type_ = type_;
            def.position = b2Vec2 { x, y };
            def.linearVelocity = b2Vec2 { x: v[0], y: v[1] };
            def.enableSleep = false;
            b2CreateBody(self.world, &def)
        };
        // SAFETY: as above.
        let mut shape = unsafe { b2DefaultShapeDef() };
        shape.density = density;
        shape.material.friction = 0.6;
        shape.material.restitution = 0.0;
        add_shape(body, &shape);
        self.body_count += 1;
        body
    }

    /// A revolute joint of `a` and `b` (Box2D's defaults otherwise) at `local_a` in A's frame
    /// and `local_b` in B's.
    fn revolute(&mut self, a: b2BodyId, local_a: [f32; 2], b: b2BodyId, local_b: [f32; 2]) {
        let v = |[x, y]: [f32; 2]| b2Vec2 { x, y };
        // SAFETY: live bodies of this world; the definition comes from Box2D's defaults.
        unsafe {
            let mut def = b2DefaultRevoluteJointDef();
            def.base.bodyIdA = a;
            def.base.bodyIdB = b;
            def.base.localFrameA.p = v(local_a);
            def.base.localFrameB.p = v(local_b);
            b2CreateRevoluteJoint(self.world, &def);
            let fixed = |body| b2Body_GetType(body) == b2BodyType_b2_staticBody;
            if fixed(a) && fixed(b) {
                self.static_joints += 1;
            }
        }
        self.joints.push((a, local_a, b, local_b));
    }

    /// A fixed box of half-extents (hx, hy) centred at (x, y).
    fn fixed_box(&mut self, x: f32, y: f32, hx: f32, hy: f32) {
        self.body(b2BodyType_b2_staticBody, [x, y], [0.0; 2], 1.0, |b, s| {
            add_box(b, s, hx, hy)
        });
    }

    /// A dynamic body at (x, y) with initial velocity `v`, density and shape.
    fn dynamic(&mut self, x: f32, y: f32, v: [f32; 2], shape: Shape, density: f32) {
        let body = self.body(b2BodyType_b2_dynamicBody, [x, y], v, density, |b, s| {
            let v = |[x, y]: [f32; 2]| b2Vec2 { x, y };
            // SAFETY (each arm): a live body, a valid shape definition, and a polygon Box2D
            // built itself from a hull it checked.
            match shape {
                Shape::Box(h) => add_box(b, s, h, h),
                Shape::Circle(r) => {
                    let circle = b2Circle {
                        center: v([0.0; 2]),
                        radius: r,
                    };
                    unsafe { b2CreateCircleShape(b, s, &circle) };
                }
                Shape::Capsule(p1, p2, radius) => {
                    let capsule = b2Capsule {
                        center1: v(p1),
                        center2: v(p2),
                        radius,
                    };
                    unsafe { b2CreateCapsuleShape(b, s, &capsule) };
                }
                Shape::RoundedBox(h, radius) => unsafe {
                    let polygon = b2MakeRoundedBox(h, h, radius);
                    b2CreatePolygonShape(b, s, &polygon);
                },
                Shape::Polygon(points) => unsafe {
                    let points: Vec<b2Vec2> = points.iter().map(|&p| v(p)).collect();
                    let hull = b2ComputeHull(points.as_ptr(), points.len() as i32);
                    assert_eq!(hull.count as usize, points.len(), "a convex polygon's hull");
                    let polygon = b2MakePolygon(&hull, 0.0);
                    b2CreatePolygonShape(b, s, &polygon);
                },
            }
        });
        if self.top.is_none_or(|(_, top_y)| y > top_y) {
            self.top = Some((body, y));
        }
        self.dynamic.push((body, [x, y]));
    }

    pub fn body_count(&self) -> usize {
        self.body_count
    }

    /// Touching contact pairs after the last step: the constraints in the graph (every colour,
    /// the overflow one included) less the joints there. With sleeping off every touching
    /// contact is there, and every joint with a body that is not static.
    pub fn touching_pairs(&self) -> usize {
        // SAFETY: the world is alive.
        let counters = unsafe { b2World_GetCounters(self.world) };
        let constraints: usize = counters.colorCounts.iter().map(|&c| c as usize).sum();
        constraints - (counters.jointCount as usize - self.static_joints)
    }

    /// The joints the scene made.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// Each joint's two anchors (world) at the bodies' present poses: the anchor fixed in body
    /// A and the one fixed in body B.
    pub fn joint_anchors(&self) -> Vec<([f32; 2], [f32; 2])> {
        let at = |body: b2BodyId, [x, y]: [f32; 2]| {
            // SAFETY: the body belongs to this live world and is never destroyed.
            let xf = unsafe { b2Body_GetTransform(body) };
            let (c, s) = (xf.q.c, xf.q.s);
            [xf.p.x + (c * x - s * y), xf.p.y + (s * x + c * y)]
        };
        self.joints
            .iter()
            .map(|&(a, la, b, lb)| (at(a, la), at(b, lb)))
            .collect()
    }

    fn position(&self, body: b2BodyId) -> [f32; 2] {
        // SAFETY: the body belongs to this live world and is never destroyed.
        let p = unsafe { b2Body_GetPosition(body) };
        [p.x, p.y]
    }

    /// Initial y minus current y of the top body (see [`Box2dScene::top`]).
    pub fn top_drop(&self) -> Option<f32> {
        let (body, y0) = self.top?;
        Some(y0 - self.position(body)[1])
    }

    /// The initial and current centres of the dynamic bodies, in creation order.
    pub fn dynamic_centres(&self) -> (Vec<[f32; 2]>, Vec<[f32; 2]>) {
        let start = self.dynamic.iter().map(|d| d.1).collect();
        let end = self
            .dynamic
            .iter()
            .map(|&(b, _)| self.position(b))
            .collect();
        (start, end)
    }

    pub fn step(&mut self, dt: f32) {
        // SAFETY: the world is alive.
        unsafe { b2World_Step(self.world, dt, SUBSTEPS) };
    }

    /// The last step's split (ms) from `b2World_GetProfile`, in the stages of batch2d's
    /// profile where Box2D times the same work: broad phase = new pairs plus the refit of the
    /// enlarged boxes, narrow phase = `collide`, solve = the solver's set-up and constraint
    /// stages (prepare, integrate, warm start, solve, relax, restitution, store impulses),
    /// finalize = the rest of its `solve` (transforms, continuous, islands). Box2D colors its
    /// contacts as they begin and end, within `collide`: no coloring stage of its own.
    pub fn stages(&self) -> [Option<f64>; 5] {
        // SAFETY: the world is alive.
        let p = unsafe { b2World_GetProfile(self.world) };
        let solver = p.solverSetup + p.constraints;
        [
            Some(p.pairs + p.refit),
            Some(p.collide),
            None,
            Some(solver),
            Some(p.solve - solver - p.refit),
        ]
        .map(|ms| ms.map(f64::from))
    }
}

impl Drop for Box2dScene {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed only here.
        unsafe { b2DestroyWorld(self.world) };
    }
}

#[derive(Clone, Copy)]
enum Shape {
    /// A square of this half-extent.
    Box(f32),
    /// A circle of this radius.
    Circle(f32),
    /// A capsule from one point to the other (body frame) with this radius.
    Capsule([f32; 2], [f32; 2], f32),
    /// A square core of this half-extent rounded by this radius.
    RoundedBox(f32, f32),
    /// The convex polygon of these points (body frame, counter-clockwise).
    Polygon(&'static [[f32; 2]]),
}

fn add_box(body: b2BodyId, shape: &b2ShapeDef, hx: f32, hy: f32) {
    // SAFETY: a live body and a valid shape definition.
    unsafe {
        let polygon = b2MakeBox(hx, hy);
        b2CreatePolygonShape(body, shape, &polygon);
    }
}

/// The standard scene called `name` in `SCENES.md` on `threads` workers, or `None` for an
/// unknown name.
pub fn build(name: &str, threads: usize) -> Option<Box2dScene> {
    match name {
        "large_pyramid" => Some(large_pyramid(threads)),
        "many_pyramids" => Some(many_pyramids(threads)),
        "smash" => Some(smash(threads)),
        "particle_pile" => Some(pile(100, 200, false, threads)),
        "mixed_pile" => Some(pile(100, 200, true, threads)),
        "stirred_bin" => Some(stirred_bin(threads)),
        "joint_grid" => Some(joint_grid(100, threads)),
        _ => None,
    }
}

const GRAVITY: [f32; 2] = [0.0, -10.0];

fn large_pyramid(threads: usize) -> Box2dScene {
    let mut s = Box2dScene::new(GRAVITY, threads);
    s.fixed_box(0.0, -1.0, 100.0, 1.0);
    for i in 0..100 {
        for j in i..100 {
            let x = (i + 1) as f32 * 0.5 + (j - i) as f32 * 1.0 - 50.0;
            let y = i as f32 + 0.5;
            s.dynamic(x, y, [0.0; 2], Shape::Box(0.5), 1.0);
        }
    }
    s
}

fn many_pyramids(threads: usize) -> Box2dScene {
    let mut s = Box2dScene::new(GRAVITY, threads);
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
                    s.dynamic(x, y, [0.0; 2], Shape::Box(0.5), 1.0);
                }
            }
        }
    }
    s
}

fn smash(threads: usize) -> Box2dScene {
    let mut s = Box2dScene::new([0.0, 0.0], threads);
    s.dynamic(-20.0, 0.0, [40.0, 0.0], Shape::Box(4.0), 8.0);
    for i in 0..120 {
        for j in 0..80 {
            let (x, y) = (0.4 * i as f32 + 30.0, 0.4 * (j as f32 - 40.0));
            s.dynamic(x, y, [0.0; 2], Shape::Box(0.2), 1.0);
        }
    }
    s.top = None; // no stability figure for smash
    s
}

/// `jitter(r, c)` of `SCENES.md`, in integers first, then f32.
fn jitter(r: usize, c: usize) -> f32 {
    let k = (r as u64 * 7919 + c as u64 * 104_729) % 1000;
    (k as f32 / 1000.0 - 0.5) * 0.1
}

/// The particle pile (`mixed`: a box of half-extent 0.25 where r + c is even), generalised to
/// `rows` x `cols` as documented on `batch2d::scenes::particle_pile`.
pub fn pile(rows: usize, cols: usize, mixed: bool, threads: usize) -> Box2dScene {
    let mut s = Box2dScene::new(GRAVITY, threads);
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
            let shape = if mixed && (r + c) % 2 == 0 {
                Shape::Box(0.25)
            } else {
                Shape::Circle(0.25)
            };
            s.dynamic(x, y, [0.0; 2], shape, 1.0);
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
fn stirred_bin(threads: usize) -> Box2dScene {
    let mut s = Box2dScene::new(GRAVITY, threads);
    s.fixed_box(0.0, -0.5, 21.0, 0.5);
    s.fixed_box(-20.5, 40.0, 0.5, 40.0);
    s.fixed_box(20.5, 40.0, 0.5, 40.0);
    let paddle = s.body(
        b2BodyType_b2_kinematicBody,
        [0.0, 7.5],
        [0.0; 2],
        1.0,
        |b, def| add_box(b, def, 6.5, 0.25),
    );
    // SAFETY: a live body of this world.
    unsafe { b2Body_SetAngularVelocity(paddle, 1.5) };
    for r in 0..72 {
        for c in 0..56 {
            let x = (c as f32 - 27.5) * 0.7 + jitter(r, c);
            let y = 14.5 + 0.7 * r as f32;
            let shape = match (r + c) % 9 {
                0 => Shape::Circle(0.25),
                1 => Shape::Box(0.25),
                2 => Shape::Capsule([-0.15, 0.0], [0.15, 0.0], 0.15),
                3 => Shape::RoundedBox(0.18, 0.07),
                k => Shape::Polygon(STIRRED_POLYGONS[k - 4]),
            };
            s.dynamic(x, y, [0.0; 2], shape, 1.0);
        }
    }
    s.top = None;
    s
}

/// The joint grid of `SCENES.md`, `n` x `n` (the standard scene is 100 x 100): circle (c, r)
/// of radius 0.4 at (c, -r), fixed where r = 0 and |c - n / 2| <= 3, joined by revolute joints
/// to the circle above (at (c, 0.5 - r)) and the one on its left (at (c - 0.5, -r)). The
/// circles are in category 2 and their mask leaves it out, so they never collide.
pub fn joint_grid(n: usize, threads: usize) -> Box2dScene {
    let mut s = Box2dScene::new(GRAVITY, threads);
    let mut ids: Vec<b2BodyId> = Vec::with_capacity(n * n);
    for c in 0..n {
        for r in 0..n {
            let fixed = r == 0 && (c as isize - (n / 2) as isize).abs() <= 3;
            let type_ = if fixed {
                b2BodyType_b2_staticBody
            } else {
                b2BodyType_b2_dynamicBody
            };
            let at = [c as f32, -(r as f32)];
            let body = s.body(type_, at, [0.0; 2], 1.0, |b, def| {
                let mut def = *def;
                def.filter.categoryBits = 2;
                def.filter.maskBits = !2;
                let circle = b2Circle {
                    center: b2Vec2 { x: 0.0, y: 0.0 },
                    radius: 0.4,
                };
                // SAFETY: a live body and a valid shape definition.
                unsafe { b2CreateCircleShape(b, &def, &circle) };
            });
            // Each anchor is halfway to the neighbour: 0.5 m from either centre.
            if r > 0 {
                s.revolute(ids[ids.len() - 1], [0.0, -0.5], body, [0.0, 0.5]);
            }
            if c > 0 {
                s.revolute(ids[ids.len() - n], [0.5, 0.0], body, [-0.5, 0.0]);
            }
            ids.push(body);
        }
    }
    s
}

/// Set while [`asserts_compiled_in`] provokes an assert on purpose.
static PROBING: AtomicBool = AtomicBool::new(false);
static ASSERTS_SEEN: AtomicUsize = AtomicUsize::new(0);

/// Box2D's assert handler while the bench runs: counts the probe's assert and lets it pass;
/// any other assert is reported and stops the program, as Box2D's default handler does.
unsafe extern "C" fn on_assert(
    condition: *const std::os::raw::c_char,
    file: *const std::os::raw::c_char,
    line: std::os::raw::c_int,
) -> std::os::raw::c_int {
    if PROBING.load(Ordering::Relaxed) {
        ASSERTS_SEEN.fetch_add(1, Ordering::Relaxed);
        return 0;
    }
    let text = |p: *const std::os::raw::c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: Box2D passes NUL-terminated string literals.
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        }
    };
    eprintln!(
        "BOX2D ASSERTION: {}, {}, line {line}",
        text(condition),
        text(file)
    );
    1
}

/// Whether the linked Box2D checks its asserts (built without `NDEBUG`): installs the bench's
/// assert handler and calls `b2MakeBox(-1, -1)`, whose only effect beyond returning a polygon
/// is an assert on the half-extents, and counts whether the handler was called.
pub fn asserts_compiled_in() -> bool {
    PROBING.store(true, Ordering::Relaxed);
    ASSERTS_SEEN.store(0, Ordering::Relaxed);
    // SAFETY: `on_assert` has the C signature Box2D expects; b2MakeBox is a pure function.
    unsafe {
        b2SetAssertFcn(Some(on_assert));
        let _ = b2MakeBox(-1.0, -1.0);
    }
    PROBING.store(false, Ordering::Relaxed);
    ASSERTS_SEEN.load(Ordering::Relaxed) > 0
}

/// Box2D's version, e.g. "3.2.0".
pub fn version() -> String {
    // SAFETY: a plain C call.
    let v = unsafe { b2GetVersion() };
    format!("{}.{}.{}", v.major, v.minor, v.revision)
}

/// Box2D's SIMD path as compiled: boxdd-sys's `simd-avx2` feature is on for every x86-64 build
/// (see benches/Cargo.toml).
pub fn simd() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "avx2"
    } else if cfg!(target_arch = "aarch64") {
        "neon"
    } else {
        "scalar"
    }
}

/// Err where this CPU cannot run the AVX2 build of Box2D that x86-64 machines link.
pub fn check_cpu() -> Result<(), String> {
    #[cfg(target_arch = "x86_64")]
    if !is_x86_feature_detected!("avx2") {
        return Err("--compare box2d needs a CPU with AVX2: Box2D is built with it".into());
    }
    Ok(())
}

/// The C flags the bench was built with (from `.cargo/config.toml` or the environment); cc
/// appends them to its own (`-O2` for boxdd-sys), so a later `-O3` wins.
pub fn cflags() -> &'static str {
    option_env!("CFLAGS").unwrap_or("(none)")
}
