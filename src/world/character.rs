//! A character mover: a shape the game moves by the translation it wishes, which the world's
//! shape casts turn into one that slides along walls and slopes, stands on slopes up to an
//! angle, steps up small ledges, snaps down to the ground, rides moving platforms and pushes
//! dynamic bodies with a set force.
//!
//! The character is not a body the solver moves: [`World::move_character`] is a query, like
//! [`World::cast_shape`], that takes the shape where it is and returns where it may go. The
//! game applies the answer to its own position (or to a kinematic body with
//! [`World::set_target_transform`]), and calls [`World::push_with_character`] to push what
//! the character walked into.
//!
//! The move is a sequence of sweeps, each the world's shape cast from where the last one
//! stopped: the cast stops a hair short of what it meets (within the time of impact's band,
//! 1.25 to 2.5 mm), the motion left over is slid along the surface met, and the next sweep
//! goes on from there. A character resting on a surface and moving along it or away from it
//! does not stop on it (a cast would: `cast_shape` reports what it starts touching).

use crate::body::{BodyId, SlotKind};
use crate::body_def::BodyKind;
use crate::error::{check_finite, Error};
use crate::geometry::distance::{
    check_transform, shape_distance, shape_penetration, TOI_TARGET, TOI_TOLERANCE,
};
use crate::geometry::math::{Aabb, Rot, Transform, Vec2};
use crate::geometry::ray::cast_ray;
use crate::geometry::shape::Shape;
use crate::limits::{check_time_step, check_vector};
use crate::narrow_phase::manifold::chain_segment_meets;
use crate::world::query::QueryFilter;
use crate::world::shape_cast::{SweepHit, SweepRule};
use crate::world::World;

/// The settings of a character mover, built like a [`BodyDef`](crate::BodyDef): start from
/// [`CharacterController::new`] and change what differs. One controller may move many
/// characters; it holds no state.
///
/// ```
/// use batch2d::{BodyDef, CharacterController, Rot, Shape, ShapeDef, Transform, Vec2, World,
///     WorldSettings};
///
/// let mut world = World::new(WorldSettings::default());
/// world.add_body(BodyDef::fixed(), ShapeDef::new(Shape::segment(
///     Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0))?))?;
/// let controller = CharacterController::new().max_slope_angle(0.8).step_height(0.3);
/// let capsule = Shape::capsule(Vec2::new(0.0, -0.3), Vec2::new(0.0, 0.3), 0.2)?;
/// // Standing 2 mm above the ground, walking right while gravity pulls it down.
/// let mut at = Transform::new(Vec2::new(0.0, 0.502), Rot::IDENTITY);
/// let dt = 1.0 / 60.0;
/// let moved = world.move_character(&controller, &capsule, at, Vec2::new(0.05, -0.1), dt)?;
/// at.p = at.p + moved.translation;
/// assert!(moved.grounded);
/// assert_eq!(at.p, Vec2::new(0.05, 0.502)); // along the ground, not into it
/// # Ok::<(), batch2d::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterController {
    /// The character's up direction, unit length after validation (any non-zero length is
    /// accepted and normalized). Ground is what faces up; steps rise along it. Default
    /// `(0, 1)`.
    pub up: Vec2,
    /// Steepest slope it stands on and walks up, radians from level, in `0..=pi/2`. A steeper
    /// surface is a wall: the character slides down it and cannot walk up it. Default
    /// `pi / 4` (45 degrees).
    pub max_slope_angle: f32,
    /// Highest ledge it steps up onto while on the ground, metres, `>= 0` (0: no steps).
    /// Default 0.25 m.
    pub step_height: f32,
    /// How far below it looks for ground to stay on after a move that left the ground without
    /// wishing to rise (walking down a slope or off a stair step), metres, `>= 0` (0: no
    /// snapping). Default 0.25 m.
    pub snap_distance: f32,
    /// Most sweeps one move makes sliding along what it meets, `1..=64`: each surface met
    /// takes one. Default 5.
    pub max_slides: u32,
    /// Force the character pushes a dynamic body it walks into with, newtons, `>= 0`, applied
    /// by [`World::push_with_character`] as an impulse of `push_force * dt`. Default 0 (it
    /// stops at dynamic bodies as at walls).
    pub push_force: f32,
    /// Which bodies it meets, by the collision filter's rule (see [`QueryFilter`]). Sensors
    /// are never met. Default [`QueryFilter::default`].
    pub filter: QueryFilter,
    /// A body it passes through: its own body, where the character has one in the world.
    /// Default `None`.
    pub ignore: Option<BodyId>,
}

impl Default for CharacterController {
    fn default() -> Self {
        CharacterController {
            up: Vec2::new(0.0, 1.0),
            max_slope_angle: std::f32::consts::FRAC_PI_4,
            step_height: 0.25,
            snap_distance: 0.25,
            max_slides: 5,
            push_force: 0.0,
            filter: QueryFilter::default(),
            ignore: None,
        }
    }
}

impl CharacterController {
    /// The default settings (see each field).
    pub fn new() -> CharacterController {
        CharacterController::default()
    }

    /// Sets [`CharacterController::up`].
    pub fn up(mut self, up: Vec2) -> CharacterController {
        self.up = up;
        self
    }

    /// Sets [`CharacterController::max_slope_angle`] (radians).
    pub fn max_slope_angle(mut self, radians: f32) -> CharacterController {
        self.max_slope_angle = radians;
        self
    }

    /// Sets [`CharacterController::step_height`] (m).
    pub fn step_height(mut self, height: f32) -> CharacterController {
        self.step_height = height;
        self
    }

    /// Sets [`CharacterController::snap_distance`] (m).
    pub fn snap_distance(mut self, distance: f32) -> CharacterController {
        self.snap_distance = distance;
        self
    }

    /// Sets [`CharacterController::max_slides`].
    pub fn max_slides(mut self, slides: u32) -> CharacterController {
        self.max_slides = slides;
        self
    }

    /// Sets [`CharacterController::push_force`] (N).
    pub fn push_force(mut self, force: f32) -> CharacterController {
        self.push_force = force;
        self
    }

    /// Sets [`CharacterController::filter`].
    pub fn filter(mut self, filter: QueryFilter) -> CharacterController {
        self.filter = filter;
        self
    }

    /// Sets [`CharacterController::ignore`].
    pub fn ignore(mut self, body: Option<BodyId>) -> CharacterController {
        self.ignore = body;
        self
    }

    /// `Err(InvalidParameter)` for a value out of its documented range.
    fn validate(&self) -> Result<(), Error> {
        check_vector("character up", self.up)?;
        if self.up.normalized().is_none() {
            return Err(Error::InvalidParameter(format!(
                "character up must be non-zero, got {:?}",
                self.up
            )));
        }
        check_finite("max_slope_angle", self.max_slope_angle)?;
        if !(0.0..=std::f32::consts::FRAC_PI_2).contains(&self.max_slope_angle) {
            return Err(Error::InvalidParameter(format!(
                "max_slope_angle must be in 0..=pi/2, got {}",
                self.max_slope_angle
            )));
        }
        for (name, value) in [
            ("step_height", self.step_height),
            ("snap_distance", self.snap_distance),
            ("push_force", self.push_force),
        ] {
            check_finite(name, value)?;
            if value < 0.0 {
                return Err(Error::InvalidParameter(format!(
                    "{name} must be >= 0, got {value}"
                )));
            }
        }
        if !(1..=64).contains(&self.max_slides) {
            return Err(Error::InvalidParameter(format!(
                "max_slides must be in 1..=64, got {}",
                self.max_slides
            )));
        }
        Ok(())
    }
}

/// A surface the character met: the body, the point of its surface nearest the character,
/// and the unit normal from the body towards the character.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterHit {
    /// The body met.
    pub body: BodyId,
    /// The point of the body's surface nearest the character (world).
    pub point: Vec2,
    /// Unit normal from the body towards the character.
    pub normal: Vec2,
}

/// What [`World::move_character`] answers.
#[derive(Clone, Debug, PartialEq)]
pub struct CharacterMove {
    /// The translation the character may make: add it to its position.
    pub translation: Vec2,
    /// Whether it ends standing on ground: a surface no steeper than
    /// [`CharacterController::max_slope_angle`] within a few millimetres below it.
    pub grounded: bool,
    /// The ground it ends on, when `grounded`.
    pub ground: Option<CharacterHit>,
    /// The surfaces it ran into on the way, in the order it met them (the ground it walks
    /// along is met once, where it first slid on it).
    pub hits: Vec<CharacterHit>,
}

/// How close below the character ground must be for it to stand on it: twice the band its
/// sweeps stop in, so that one that stopped anywhere in the band counts as standing.
const GROUND_DISTANCE: f32 = 2.0 * (TOI_TARGET + TOI_TOLERANCE);

/// Closer than this to static or kinematic geometry (a platform that moved into it, a body
/// placed overlapping), the character is pushed back out to `TOI_TARGET` before moving. Half
/// the band's lower edge, so that where a sweep left it (at `TOI_TARGET` up to rounding) it
/// is left alone.
const RECOVER_DISTANCE: f32 = 0.5 * TOI_TARGET;

/// Passes of pushing out of overlaps: each pass pushes out of every shape in turn.
const RECOVER_PASSES: usize = 4;

/// How far past a ledge's corner, and from above, the character looks for the ledge's top
/// (m).
const LEDGE_PROBE: f32 = 0.01;

/// Most surfaces a look for ground passes that do not hold the character up.
const GROUND_TRIES: usize = 4;

/// Least progress (m) a step up must make over the ledge to count.
const MIN_STEP_PROGRESS: f32 = 1.0e-4;

/// One move's settings and geometry, checked.
struct Mover<'a> {
    controller: &'a CharacterController,
    shape: &'a Shape,
    rotation: Rot,
    up: Vec2,
    /// Cosine of the steepest slope it stands on.
    min_ground_cos: f32,
    /// The body slot it passes through, if any.
    ignore: Option<usize>,
}

impl World {
    /// Moves a character of shape `shape`, placed by `transform`, by the translation it wishes
    /// (`translation`, metres, e.g. its wished velocity times `dt`) through this world, and
    /// returns the translation it may make, whether it ends on the ground, and what it met. A
    /// query: the world is not changed; add the answer's translation to the character's
    /// position (see the example on [`CharacterController`]).
    ///
    /// In order, it
    /// 1. if it stood on a moving body, carries it as far as that body's velocity at the
    ///    contact times `dt` (riding platforms): call it after each step with that step's
    ///    `dt`, so that it follows the platform's move during the step;
    /// 2. pushes the character out of static and kinematic geometry it overlaps (where a
    ///    platform moved into it);
    /// 3. sweeps it along `translation`, sliding along what it meets: along walls, and along
    ///    slopes no steeper than [`CharacterController::max_slope_angle`]; a steeper slope is
    ///    a wall it slides down but never up, and ground it moves down onto stops the
    ///    downward motion rather than turning it into a slide downhill;
    /// 4. on the ground, steps up onto a ledge it walks into no higher than
    ///    [`CharacterController::step_height`] whose top is ground;
    /// 5. if it was on the ground, does not wish to rise and is no longer on the ground,
    ///    snaps down onto ground up to [`CharacterController::snap_distance`] below.
    ///
    /// Dynamic bodies stop it like walls ([`World::push_with_character`] pushes them);
    /// sensors, and the back of chain segments, do not. The character does not turn: its
    /// rotation stays that of `transform`. Deterministic, like every query.
    ///
    /// `Err(InvalidParameter)` for a non-finite or non-unit transform, a non-finite
    /// translation, a `dt` that is not finite and in `(0, 1]` s, or a controller value out of
    /// its range; `Err(InvalidBody)` for a stale or foreign `ignore` handle.
    pub fn move_character(
        &self,
        controller: &CharacterController,
        shape: &Shape,
        transform: Transform,
        translation: Vec2,
        dt: f32,
    ) -> Result<CharacterMove, Error> {
        controller.validate()?;
        check_transform("transform", transform)?;
        check_vector("translation", translation)?;
        check_time_step(dt)?;
        let ignore = controller
            .ignore
            .map(|id| self.bodies.slot(id))
            .transpose()?;
        let up = controller.up.normalized().unwrap_or(Vec2::new(0.0, 1.0));
        let mover = Mover {
            controller,
            shape,
            rotation: transform.q,
            up,
            min_ground_cos: controller.max_slope_angle.cos(),
            ignore,
        };
        let start = transform.p;
        let mut at = start;
        let mut hits = Vec::new();
        if let Some((platform, carried)) = self.platform(&mover, at, dt) {
            (at, _) = self.slide(&mover, at, carried, Some(platform), false, &mut hits);
        }
        at = self.recover(&mover, at);
        let ground = self.ground(&mover, at);
        let on_ground = ground.is_some();
        let touched;
        (at, touched) = self.slide(&mover, at, translation, None, on_ground, &mut hits);
        let mut end_ground = self.ground(&mover, at);
        let rising = translation.dot(up) > 0.0;
        let snaps = (on_ground || touched) && !rising && controller.snap_distance > 0.0;
        if snaps && end_ground.is_none() {
            let distance = controller.snap_distance;
            if let Some(hit) = self.ground_within(&mover, at, distance) {
                at += up * -(distance * hit.fraction as f32);
                end_ground = self.ground(&mover, at);
            }
        }
        Ok(CharacterMove {
            translation: at - start,
            grounded: end_ground.is_some(),
            ground: end_ground.map(|hit| self.character_hit(hit)),
            hits,
        })
    }

    /// Pushes the dynamic bodies the character ran into during `moved` (its
    /// [`CharacterMove::hits`]) away from it: each such body, once however often it was met,
    /// gets an impulse of [`CharacterController::push_force`] `* dt` along the first hit's
    /// normal, into the body, at the hit's point. Static and kinematic bodies are left alone.
    /// Call it with the `dt` of the step that follows, after [`World::move_character`]. A
    /// body pushed with a force below what holds it (friction, a heavier pile) stays put, and
    /// the character stays stopped against it.
    ///
    /// `Err(InvalidBody)` for a hit whose body has been removed since;
    /// `Err(InvalidParameter)` for a bad `dt` or controller. The world is unchanged on `Err`.
    pub fn push_with_character(
        &mut self,
        controller: &CharacterController,
        moved: &CharacterMove,
        dt: f32,
    ) -> Result<(), Error> {
        controller.validate()?;
        check_time_step(dt)?;
        for hit in &moved.hits {
            self.bodies.slot(hit.body)?;
            check_vector("hit point", hit.point)?;
            check_vector("hit normal", hit.normal)?;
        }
        if controller.push_force == 0.0 {
            return Ok(());
        }
        let mut pushed: Vec<BodyId> = Vec::new();
        for hit in &moved.hits {
            if pushed.contains(&hit.body) || self.body_kind(hit.body)? != BodyKind::Dynamic {
                continue;
            }
            pushed.push(hit.body);
            let impulse = hit.normal * -(controller.push_force * dt);
            self.apply_linear_impulse_at_point(hit.body, impulse, hit.point)?;
        }
        Ok(())
    }

    /// Where the character at `at` goes pushed out of the static and kinematic shapes it is
    /// closer to than [`RECOVER_DISTANCE`], to [`TOI_TARGET`] from each.
    fn recover(&self, mover: &Mover, mut at: Vec2) -> Vec2 {
        let filter = mover.controller.filter;
        for _ in 0..RECOVER_PASSES {
            let xf = Transform::new(at, mover.rotation);
            let region = mover.shape.aabb(xf).fattened(TOI_TARGET);
            let slots = self.with_query_grid(|grid| self.candidates(grid, region, filter));
            let mut moved = false;
            for slot in slots {
                if Some(slot) == mover.ignore || self.bodies.kind()[slot] == SlotKind::Dynamic {
                    continue;
                }
                let body_xf = self.bodies.transform(slot);
                for (child, body) in self.seen_shapes(slot, filter) {
                    if self.bodies.child_sensor(slot, child) {
                        continue;
                    }
                    let here = Transform::new(at, mover.rotation);
                    let (separation, normal) = separation(body, body_xf, mover.shape, here);
                    let faces = chain_segment_meets(body, body_xf, mover.shape, here, normal);
                    if separation < RECOVER_DISTANCE && faces && normal != Vec2::ZERO {
                        at += normal * (TOI_TARGET - separation);
                        moved = true;
                    }
                }
            }
            if !moved {
                break;
            }
        }
        at
    }

    /// The ground under the character at `at`: the first surface that holds it up (see
    /// `supports`) a sweep down by `distance` meets, passing what it meets that does not (a
    /// wall or crate beside it that leans over it).
    fn ground_within(&self, mover: &Mover, at: Vec2, distance: f32) -> Option<SweepHit> {
        let down = mover.up * -distance;
        let mut passed = Vec::new();
        for _ in 0..GROUND_TRIES {
            let hit = self.sweep_mover(mover, at, down, &passed)?;
            if self.supports(mover, at, &hit) {
                return Some(hit);
            }
            passed.push(hit.slot);
        }
        None
    }

    /// The ground the character at `at` stands on: within [`GROUND_DISTANCE`] below it.
    fn ground(&self, mover: &Mover, at: Vec2) -> Option<SweepHit> {
        self.ground_within(mover, at, GROUND_DISTANCE)
    }

    /// The moving body the character at `at` stood on before the step of length `dt` just
    /// taken, with how far that body carried the point it stood on: a body under it that
    /// holds it up, as far below as that body's motion during the step explains (or into it,
    /// where it rose). `None` on fixed or resting ground, or none.
    fn platform(&self, mover: &Mover, at: Vec2, dt: f32) -> Option<(usize, Vec2)> {
        let up = mover.up;
        let reach = GROUND_DISTANCE + mover.controller.snap_distance;
        let hit = self.ground_within(mover, at, reach)?;
        if self.bodies.kind()[hit.slot] == SlotKind::Fixed {
            return None;
        }
        let carried = self.point_velocity(hit.slot, hit.point) * dt;
        let gap = reach * hit.fraction as f32;
        let sank = (-carried.dot(up)).max(0.0);
        (carried != Vec2::ZERO && gap <= GROUND_DISTANCE + sank).then_some((hit.slot, carried))
    }

    /// Whether `hit`, met by the character at `at`, holds it up: a surface no steeper than
    /// the slope limit, or the edge of a ledge whose top is (a rounded character standing
    /// partly over a ledge touches its corner, along a normal between the top's and the
    /// face's).
    fn supports(&self, mover: &Mover, at: Vec2, hit: &SweepHit) -> bool {
        if mover.is_ground(hit.normal) {
            return true;
        }
        let up = mover.up;
        if hit.normal.dot(up) <= 0.0 {
            return false;
        }
        // The ledge's top lies beyond the corner, away from the character: look straight
        // down at it just past the contact.
        let away = hit.point - at;
        let Some(away) = (away - up * away.dot(up)).normalized() else {
            return false;
        };
        let origin = hit.point + away * LEDGE_PROBE + up * LEDGE_PROBE;
        self.ray_normal(mover, origin, up * (-2.0 * LEDGE_PROBE))
            .is_some_and(|normal| mover.is_ground(normal))
    }

    /// The normal where the ray from `origin` along `translation` first enters a solid shape
    /// the character meets.
    fn ray_normal(&self, mover: &Mover, origin: Vec2, translation: Vec2) -> Option<Vec2> {
        let filter = mover.controller.filter;
        let region =
            Aabb::new(origin, origin).union(&Aabb::new(origin + translation, origin + translation));
        let slots = self.with_query_grid(|grid| self.candidates(grid, region, filter));
        let mut best: Option<(f64, Vec2)> = None;
        for slot in slots {
            if Some(slot) == mover.ignore {
                continue;
            }
            let xf = self.bodies.transform(slot);
            for (child, shape) in self.seen_shapes(slot, filter) {
                if self.bodies.child_sensor(slot, child) {
                    continue;
                }
                if let Some(hit) = cast_ray(shape, xf, origin, translation, 1.0) {
                    if best.is_none_or(|(f, _)| hit.fraction < f) {
                        best = Some((hit.fraction, hit.normal));
                    }
                }
            }
        }
        best.map(|(_, normal)| normal)
    }

    /// The character from `at` swept by `translation` and slid along what it meets, up to
    /// the controller's number of slides; steps up ledges when `can_step`. Passes through the
    /// body in slot `pass`. Appends what it meets to `hits` and returns where it ends.
    fn slide(
        &self,
        mover: &Mover,
        mut at: Vec2,
        translation: Vec2,
        pass: Option<usize>,
        can_step: bool,
        hits: &mut Vec<CharacterHit>,
    ) -> (Vec2, bool) {
        let up = mover.up;
        let mut touched_ground = false;
        let mut remaining = translation;
        // The planes slid along so far: a motion slid along one that leads into another is
        // caught in their corner.
        let mut planes: Vec<Vec2> = Vec::new();
        for _ in 0..mover.controller.max_slides {
            if remaining == Vec2::ZERO {
                break;
            }
            let Some(hit) = self.sweep_mover(mover, at, remaining, pass.as_slice()) else {
                at += remaining;
                break;
            };
            let fraction = hit.fraction as f32;
            at += remaining * fraction;
            let new_body = hits.last().is_none_or(|h: &CharacterHit| {
                h.body != self.bodies.id(hit.slot) || h.normal != hit.normal
            });
            if new_body {
                hits.push(self.character_hit(hit));
            }
            let rest = remaining * (1.0 - fraction);
            let ground = self.supports(mover, at, &hit);
            let walkable = mover.is_ground(hit.normal);
            touched_ground |= ground;
            if !walkable && can_step {
                if let Some((stepped, rest)) = self.step_up(mover, at, rest) {
                    at = stepped;
                    remaining = rest;
                    planes.clear();
                    continue;
                }
            }
            let plane = if ground && rest.dot(up) < 0.0 {
                // Standing ground holds the character up: the downward part of the motion
                // stops, the rest goes on (and slides along a slope from there), so that
                // gravity does not slide it down a slope it stands on.
                up
            } else if !walkable && hit.normal.dot(up) > 0.0 && clip(rest, hit.normal).dot(up) > 0.0
            {
                // A slope too steep to stand on is a wall to a motion that would climb it.
                (hit.normal - up * hit.normal.dot(up))
                    .normalized()
                    .unwrap_or(hit.normal)
            } else {
                hit.normal
            };
            let mut slid = clip(rest, plane);
            let length = slid.length();
            if planes.iter().any(|p| slid.dot(*p) < -1.0e-5 * length) {
                slid = Vec2::ZERO;
            }
            planes.push(plane);
            remaining = slid;
        }
        (at, touched_ground)
    }

    /// The character at `at`, stopped by a ledge with `rest` of its motion left, stepped up:
    /// raised by up to the step height, moved along the level part of `rest`, and lowered
    /// back onto what is there. `Some` (where it lands, the motion left) when it lands on
    /// ground higher than it stood, having moved over the ledge; `None` when the ledge is
    /// too high, its top is not ground, or the rise is blocked.
    fn step_up(&self, mover: &Mover, at: Vec2, rest: Vec2) -> Option<(Vec2, Vec2)> {
        let up = mover.up;
        let level = rest - up * rest.dot(up);
        if level.length() <= MIN_STEP_PROGRESS {
            return None;
        }
        let rise = up * mover.controller.step_height;
        let raised = match self.sweep_mover(mover, at, rise, &[]) {
            Some(hit) => at + rise * hit.fraction as f32,
            None => at + rise,
        };
        let height = (raised - at).dot(up);
        if height <= 0.0 {
            return None;
        }
        let (over, done) = match self.sweep_mover(mover, raised, level, &[]) {
            Some(hit) => (raised + level * hit.fraction as f32, hit.fraction as f32),
            None => (raised + level, 1.0),
        };
        if (over - raised).length() <= MIN_STEP_PROGRESS {
            return None;
        }
        let down = up * -(height + GROUND_DISTANCE);
        let landing = self.sweep_mover(mover, over, down, &[])?;
        let landed = over + down * landing.fraction as f32;
        if !self.supports(mover, landed, &landing) {
            return None;
        }
        // What it lands on must be no higher than a step above its feet: a rounded character
        // rolls over a corner it meets below its lowest point's height, and would otherwise
        // climb ledges higher than the step by its rounding.
        let feet = lowest(mover.shape, Transform::new(at, mover.rotation), up);
        let ledge = landing.point.dot(up) - feet;
        if (landed - at).dot(up) <= 0.0 || ledge > mover.controller.step_height {
            return None;
        }
        Some((landed, level * (1.0 - done)))
    }

    /// The first solid shape the character meets swept from `at` by `translation` (`None`
    /// for a zero one), passing what it leaves, sensors, its own body and the bodies in the
    /// slots `pass`.
    fn sweep_mover(
        &self,
        mover: &Mover,
        at: Vec2,
        translation: Vec2,
        pass: &[usize],
    ) -> Option<SweepHit> {
        if translation == Vec2::ZERO {
            return None;
        }
        let skip = |slot: usize, child: usize| {
            Some(slot) == mover.ignore
                || pass.contains(&slot)
                || self.bodies.child_sensor(slot, child)
        };
        let rule = SweepRule {
            filter: mover.controller.filter,
            skip_leaving: true,
            skip: &skip,
        };
        let xf = Transform::new(at, mover.rotation);
        self.sweep(mover.shape, xf, translation, &rule)
    }

    /// The velocity of the body in `slot` at world point `point`.
    fn point_velocity(&self, slot: usize, point: Vec2) -> Vec2 {
        let b = &self.bodies;
        let arm = point - b.center()[slot];
        b.linear_velocity()[slot] + Vec2::cross_sv(b.angular_velocity()[slot], arm)
    }

    fn character_hit(&self, hit: SweepHit) -> CharacterHit {
        CharacterHit {
            body: self.bodies.id(hit.slot),
            point: hit.point,
            normal: hit.normal,
        }
    }
}

impl Mover<'_> {
    /// Whether a surface with this normal is ground the character stands on.
    fn is_ground(&self, normal: Vec2) -> bool {
        normal.dot(self.up) >= self.min_ground_cos
    }
}

/// `motion` less its part into the plane of unit normal `normal`.
fn clip(motion: Vec2, normal: Vec2) -> Vec2 {
    let into = motion.dot(normal);
    if into < 0.0 {
        motion - normal * into
    } else {
        motion
    }
}

/// The signed distance from `body` (placed by `xf`) to `shape` at `at`, negative when they
/// overlap, with the unit normal from `body` towards `shape` (zero when no direction is
/// known).
fn separation(body: &Shape, xf: Transform, shape: &Shape, at: Transform) -> (f32, Vec2) {
    match shape_penetration(body, xf, shape, at) {
        Some(p) => (-p.depth, p.normal),
        None => {
            let d = shape_distance(body, xf, shape, at);
            (d.distance, d.normal)
        }
    }
}

/// The height along `up` of the lowest point of `shape` placed by `xf`.
fn lowest(shape: &Shape, xf: Transform, up: Vec2) -> f32 {
    match shape {
        Shape::Circle(c) => xf.apply(c.center()).dot(up) - c.radius(),
        Shape::Polygon(p) => {
            let core = p
                .vertices()
                .iter()
                .map(|&v| xf.apply(v).dot(up))
                .fold(f32::INFINITY, f32::min);
            core - p.radius()
        }
    }
}
