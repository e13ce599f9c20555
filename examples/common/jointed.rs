//! The jointed demo scenes, built once for their examples (`ragdoll`, `car`, `bridge`, `chain`)
//! and the viewer. Each builder returns the world with the handles its example reads back.
//!
//! Units are metres, kilograms and seconds; every scene is meant to be stepped at 1/60 s with
//! gravity (0, -10), and the ground's top face is y = 0.

use batch2d::{
    BodyDef, BodyId, Error, JointDef, JointId, Shape, ShapeDef, Vec2, World, WorldSettings,
};

/// Gravity of every demo (m/s²).
pub const GRAVITY: Vec2 = Vec2::new(0.0, -10.0);

/// One of the jointed demos.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Demo {
    /// [`ragdolls`]: ragdolls with limited revolute joints down a staircase.
    Ragdoll,
    /// [`car`]: a car on sprung, motored wheel joints over bumpy ground.
    Car,
    /// [`bridge`]: hinged planks between two pillars under a dropped load.
    Bridge,
    /// [`chain`]: a chain with a weight swinging through a tower of boxes.
    Chain,
}

impl Demo {
    /// Every demo, in the viewer's order.
    pub const ALL: [Demo; 4] = [Demo::Ragdoll, Demo::Car, Demo::Bridge, Demo::Chain];

    /// The demo's name, which is also its example's.
    pub fn name(self) -> &'static str {
        match self {
            Demo::Ragdoll => "ragdoll",
            Demo::Car => "car",
            Demo::Bridge => "bridge",
            Demo::Chain => "chain",
        }
    }

    /// Steps of 1/60 s its example runs by default.
    pub fn steps(self) -> usize {
        match self {
            Demo::Ragdoll => 360,
            Demo::Car => 420,
            Demo::Bridge => 1200,
            Demo::Chain => 240,
        }
    }

    /// The demo's world alone (for the viewer). `settings.gravity` is replaced by [`GRAVITY`].
    pub fn build(self, settings: WorldSettings) -> Result<World, Error> {
        Ok(match self {
            Demo::Ragdoll => ragdolls(settings)?.world,
            Demo::Car => car(settings)?.world,
            Demo::Bridge => bridge(settings)?.world,
            Demo::Chain => chain(settings)?.world,
        })
    }
}

/// The largest distance (m) between the two anchors of any of `joints`: how far the joints that
/// hold two points together (revolute, weld) have come apart.
pub fn largest_joint_gap(world: &World, joints: &[JointId]) -> Result<f32, Error> {
    let mut gap = 0.0f32;
    for &id in joints {
        let (a, b) = world.joint_anchors(id)?;
        gap = gap.max((b - a).length());
    }
    Ok(gap)
}

fn new_world(settings: WorldSettings) -> World {
    World::new(WorldSettings {
        gravity: GRAVITY,
        ..settings
    })
}

/// A fixed box of half-extents `half` centred at `center`.
fn fixed_box(world: &mut World, center: Vec2, half: Vec2) -> Result<BodyId, Error> {
    world.add_body(
        BodyDef::fixed().position(center),
        ShapeDef::new(Shape::rect(half.x, half.y)?),
    )
}

/// A revolute joint with angle limits, as the example checks it: the bodies and the limits.
#[derive(Clone, Copy, Debug)]
pub struct LimitedHinge {
    /// The joint.
    pub id: JointId,
    /// Its body A (the part nearer the torso) and body B.
    pub a: BodyId,
    pub b: BodyId,
    /// Its limits (rad) on B's angle less A's.
    pub lower: f32,
    pub upper: f32,
}

/// Ragdolls tumbling down a staircase.
pub struct Ragdolls {
    /// The world, with the staircase and the ragdolls.
    pub world: World,
    /// Every ragdoll's torso.
    pub torsos: Vec<BodyId>,
    /// Every joint of every ragdoll; all have limits, and every part starts at angle 0, so a
    /// joint's angle is B's angle minus A's.
    pub hinges: Vec<LimitedHinge>,
}

/// How many ragdolls [`ragdolls`] drops.
pub const RAGDOLLS: usize = 6;

/// A staircase of 8 steps (1 m deep, 0.5 m high) down to the ground, a low wall 8 m past its
/// foot, and [`RAGDOLLS`] ragdolls of 1.8 m in a T-pose above it, each thrown to the right with
/// a spin.
pub fn ragdolls(settings: WorldSettings) -> Result<Ragdolls, Error> {
    let mut world = new_world(settings);
    // Ground from the foot of the stairs to a wall 8 m on.
    fixed_box(&mut world, Vec2::new(-1.0, -0.5), Vec2::new(9.5, 0.5))?;
    fixed_box(&mut world, Vec2::new(8.0, 1.0), Vec2::new(0.5, 1.0))?;
    for k in 0..8 {
        // Step k's top is at 4 - 0.5 k, its face at x = k - 8.
        let top = 4.0 - 0.5 * k as f32;
        let center = Vec2::new(k as f32 - 8.5, 0.5 * top);
        fixed_box(&mut world, center, Vec2::new(0.5, 0.5 * top))?;
    }
    let mut torsos = Vec::new();
    let mut hinges = Vec::new();
    for k in 0..RAGDOLLS {
        let pelvis = Vec2::new(-9.0 + 1.9 * k as f32, 6.5 + 0.7 * (k % 3) as f32);
        let spin = if k.is_multiple_of(2) { 2.0 } else { -2.0 };
        let (torso, joints) = ragdoll(&mut world, pelvis, Vec2::new(2.0, 0.0), spin)?;
        torsos.push(torso);
        hinges.extend(joints);
    }
    Ok(Ragdolls {
        world,
        torsos,
        hinges,
    })
}

/// One ragdoll in a T-pose with its pelvis (hip joints) at `pelvis`, facing +x, every part
/// moving at `velocity` and the torso also spinning at `spin` (rad/s). Returns the torso and the
/// joints.
fn ragdoll(
    world: &mut World,
    pelvis: Vec2,
    velocity: Vec2,
    spin: f32,
) -> Result<(BodyId, Vec<LimitedHinge>), Error> {
    let vertical =
        |half: f32, r: f32| Shape::capsule(Vec2::new(0.0, -half), Vec2::new(0.0, half), r);
    let horizontal =
        |half: f32, r: f32| Shape::capsule(Vec2::new(-half, 0.0), Vec2::new(half, 0.0), r);
    let part = |world: &mut World, at: Vec2, shape: Shape, w: f32| {
        world.add_body(
            BodyDef::dynamic()
                .position(pelvis + at)
                .linear_velocity(velocity)
                .angular_velocity(w),
            ShapeDef::new(shape),
        )
    };
    let torso = part(world, Vec2::new(0.0, 0.35), vertical(0.2, 0.15)?, spin)?;
    let head = part(world, Vec2::new(0.0, 0.92), Shape::circle(0.13)?, 0.0)?;
    let mut hinges = Vec::new();
    let mut hinge = |world: &mut World, a: BodyId, b: BodyId, at: Vec2, lower: f32, upper: f32| {
        let def = JointDef::revolute(a, b, pelvis + at).limits(lower, upper);
        let id = world.add_joint(def)?;
        hinges.push(LimitedHinge {
            id,
            a,
            b,
            lower,
            upper,
        });
        Ok::<(), Error>(())
    };
    hinge(world, torso, head, Vec2::new(0.0, 0.76), -0.5, 0.5)?;
    for side in [-1.0f32, 1.0] {
        let upper_arm = part(
            world,
            Vec2::new(0.34 * side, 0.6),
            horizontal(0.1, 0.06)?,
            0.0,
        )?;
        let forearm = part(
            world,
            Vec2::new(0.65 * side, 0.6),
            horizontal(0.09, 0.05)?,
            0.0,
        )?;
        let thigh = part(
            world,
            Vec2::new(0.09 * side, -0.22),
            vertical(0.14, 0.08)?,
            0.0,
        )?;
        let shin = part(
            world,
            Vec2::new(0.09 * side, -0.66),
            vertical(0.14, 0.07)?,
            0.0,
        )?;
        hinge(
            world,
            torso,
            upper_arm,
            Vec2::new(0.18 * side, 0.6),
            -1.5,
            1.5,
        )?;
        // Elbows bend one way, towards the front of the arm whichever side it is on.
        let (lo, hi) = if side < 0.0 { (0.0, 2.5) } else { (-2.5, 0.0) };
        hinge(
            world,
            upper_arm,
            forearm,
            Vec2::new(0.5 * side, 0.6),
            lo,
            hi,
        )?;
        // Facing +x: a thigh swings forward turning anticlockwise, a knee bends the other way.
        hinge(world, torso, thigh, Vec2::new(0.09 * side, 0.0), -0.5, 1.8)?;
        hinge(world, thigh, shin, Vec2::new(0.09 * side, -0.44), -2.4, 0.0)?;
    }
    Ok((torso, hinges))
}

/// A car on wheel joints driving over bumpy ground.
pub struct Car {
    /// The world, with the terrain and the car.
    pub world: World,
    /// The car's body.
    pub chassis: BodyId,
    /// The wheels, rear then front.
    pub wheels: [BodyId; 2],
    /// The wheel joints, rear then front.
    pub suspension: [JointId; 2],
}

/// The wheels' radius (m).
pub const WHEEL_RADIUS: f32 = 0.4;
/// The motors' speed: the wheels' turn relative to the chassis (rad/s, negative: clockwise,
/// which drives the car towards +x).
pub const MOTOR_SPEED: f32 = -12.0;
/// Each motor's torque cap (N m).
pub const MOTOR_TORQUE: f32 = 12.0;

/// The ground's height at `x`: flat at the start, then bumps of growing height, a hill, and a
/// rise at either end that turns the car back.
pub fn terrain_height(x: f32) -> f32 {
    let bumps = if x > -6.0 {
        let grow = ((x + 6.0) / 15.0).min(1.0);
        grow * 0.35 * (1.0 - (1.3 * (x + 6.0)).cos())
    } else {
        0.0
    };
    let hill = 2.0 * (-((x - 16.0) / 4.0).powi(2)).exp();
    let ends = 0.08 * ((-12.0 - x).max(0.0).powi(2) + (x - 24.0).max(0.0).powi(2));
    bumps + hill + ends
}

/// Terrain from x = -14 to 30 (a segment every 0.5 m, friction 0.9) and a car at x = -10 with
/// a motor on both wheels.
pub fn car(settings: WorldSettings) -> Result<Car, Error> {
    let mut world = new_world(settings);
    let points: Vec<Vec2> = (0..=88)
        .map(|i| {
            let x = -14.0 + 0.5 * i as f32;
            Vec2::new(x, terrain_height(x))
        })
        .collect();
    let ground = ShapeDef::new(Shape::circle(1.0)?).friction(0.9);
    world.add_segment_chain(BodyDef::fixed(), &points, &ground)?;

    let start = Vec2::new(-10.0, 1.1);
    let body = Shape::polygon(&[
        Vec2::new(-1.5, -0.25),
        Vec2::new(1.5, -0.25),
        Vec2::new(1.5, 0.05),
        Vec2::new(0.6, 0.15),
        Vec2::new(0.1, 0.55),
        Vec2::new(-1.1, 0.55),
        Vec2::new(-1.5, 0.15),
    ])?;
    let chassis = world.add_body(
        BodyDef::dynamic().position(start),
        ShapeDef::new(body).density(1.5),
    )?;
    let mut wheels = Vec::new();
    let mut suspension = Vec::new();
    for dx in [-1.0f32, 1.0] {
        let centre = start + Vec2::new(dx, -0.45);
        let wheel = world.add_body(
            BodyDef::dynamic().position(centre),
            ShapeDef::new(Shape::circle(WHEEL_RADIUS)?)
                .density(2.0)
                .friction(0.9),
        )?;
        let joint = JointDef::wheel(chassis, wheel, centre, Vec2::new(0.0, 1.0))
            .spring(4.0, 0.7)
            .limits(-0.25, 0.25)
            .motor(MOTOR_SPEED, MOTOR_TORQUE);
        suspension.push(world.add_joint(joint)?);
        wheels.push(wheel);
    }
    Ok(Car {
        world,
        chassis,
        wheels: [wheels[0], wheels[1]],
        suspension: [suspension[0], suspension[1]],
    })
}

/// A bridge of planks between two pillars, with a load dropped on it.
pub struct Bridge {
    /// The world, with the ground, the pillars, the deck and the load.
    pub world: World,
    /// The planks from left to right.
    pub planks: Vec<BodyId>,
    /// The joints in order from the left pillar to the right one: the first has the pillar as
    /// body A and the first plank as B, the last the last plank as A and the pillar as B.
    pub joints: Vec<JointId>,
    /// The boxes and balls dropped on the deck.
    pub load: Vec<BodyId>,
    /// Every plank and load body with its mass (kg).
    pub masses: Vec<(BodyId, f32)>,
}

/// Planks across the span.
pub const PLANKS: usize = 20;
const PLANK_HALF: Vec2 = Vec2::new(0.5, 0.125);
/// The distance between the pillars' inner faces (m): a little less than the planks' length
/// end to end, so the deck hangs with some slack. A deck exactly as long as the span could sag
/// only by stretching its joints.
pub const SPAN: f32 = 19.8;

/// The joints' places: on a circular arc through (±`SPAN` / 2, `y`) hanging below them, with
/// [`PLANKS`] equal chords of a plank's length.
fn deck_arc(y: f32) -> Vec<Vec2> {
    let (n, plank) = (PLANKS as f32, 2.0 * PLANK_HALF.x);
    // Half the angle the arc spans, `a`, makes n chords of `plank` reach across the span:
    // span / plank = sin(a) / sin(a / n), which falls from n as `a` grows. Bisect for it.
    let ratio = |a: f32| a.sin() / (a / n).sin();
    let (mut lo, mut hi) = (1e-4f32, 3.0f32);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if ratio(mid) > SPAN / plank {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let a = 0.5 * (lo + hi);
    let radius = 0.5 * plank / (a / n).sin();
    let centre = Vec2::new(0.0, y + radius * a.cos());
    (0..=PLANKS)
        .map(|i| {
            let phi = -a + 2.0 * a * i as f32 / n;
            centre + Vec2::new(radius * phi.sin(), -radius * phi.cos())
        })
        .collect()
}

/// Two pillars [`SPAN`] apart whose tops are 5 m up, [`PLANKS`] planks of 1 m x 0.25 m hinged
/// end to end between them, hanging with a little slack, and boxes and balls dropped onto the
/// middle of the span.
pub fn bridge(settings: WorldSettings) -> Result<Bridge, Error> {
    let mut world = new_world(settings);
    fixed_box(&mut world, Vec2::new(0.0, -0.5), Vec2::new(20.0, 0.5))?;
    let half_span = 0.5 * SPAN;
    let left = fixed_box(
        &mut world,
        Vec2::new(-half_span - 1.0, 2.5),
        Vec2::new(1.0, 2.5),
    )?;
    let right = fixed_box(
        &mut world,
        Vec2::new(half_span + 1.0, 2.5),
        Vec2::new(1.0, 2.5),
    )?;
    let hinges = deck_arc(5.0 - PLANK_HALF.y);
    let plank = ShapeDef::new(Shape::rect(PLANK_HALF.x, PLANK_HALF.y)?).friction(0.8);
    let mut masses = Vec::new();
    let mut planks = Vec::new();
    for pair in hinges.windows(2) {
        let d = pair[1] - pair[0];
        let def = BodyDef::dynamic()
            .position((pair[0] + pair[1]) * 0.5)
            .angle(d.y.atan2(d.x));
        let id = world.add_body(def, plank.clone())?;
        masses.push((id, plank.shape.mass_data(plank.density).mass));
        planks.push(id);
    }
    let mut joints = Vec::new();
    for (i, &at) in hinges.iter().enumerate() {
        let a = if i == 0 { left } else { planks[i - 1] };
        let b = if i == PLANKS { right } else { planks[i] };
        joints.push(world.add_joint(JointDef::revolute(a, b, at))?);
    }
    let mut load = Vec::new();
    let drops = [
        (Shape::rect(0.5, 0.5)?, Vec2::new(-3.0, 8.0), 2.0),
        (Shape::circle(0.5)?, Vec2::new(-1.0, 10.0), 2.0),
        (Shape::rect(0.7, 0.4)?, Vec2::new(1.0, 8.5), 2.0),
        (Shape::circle(0.4)?, Vec2::new(3.0, 11.0), 2.0),
        (Shape::rect(0.4, 0.4)?, Vec2::new(0.0, 13.0), 4.0),
        (Shape::circle(0.6)?, Vec2::new(-5.0, 12.0), 1.0),
        (Shape::rect(0.5, 0.3)?, Vec2::new(5.0, 9.0), 2.0),
    ];
    for (shape, at, density) in drops {
        let def = ShapeDef::new(shape).density(density).friction(0.8);
        let mass = def.shape.mass_data(density).mass;
        let id = world.add_body(BodyDef::dynamic().position(at), def)?;
        masses.push((id, mass));
        load.push(id);
    }
    Ok(Bridge {
        world,
        planks,
        joints,
        load,
        masses,
    })
}

/// A chain hanging from a pin, a weight at its end, and a tower in its path.
pub struct Chain {
    /// The world, with the ground, the chain and the tower.
    pub world: World,
    /// Where the chain hangs from (world).
    pub pin: Vec2,
    /// The links from the pin outwards.
    pub links: Vec<BodyId>,
    /// The ball at the chain's end.
    pub weight: BodyId,
    /// The joints from the pin down to the weight.
    pub joints: Vec<JointId>,
    /// The tower's boxes.
    pub tower: Vec<BodyId>,
}

/// Links in the chain, each 1 m from joint to joint.
pub const LINKS: usize = 16;
/// The weight's radius (m).
pub const WEIGHT_RADIUS: f32 = 0.6;

/// A pin 20 m up, [`LINKS`] capsule links of 1 m held out level to its right, a heavy ball at
/// the end, all let go from rest; a tower of boxes stands under the swing, and a wall at the
/// ground's far end.
pub fn chain(settings: WorldSettings) -> Result<Chain, Error> {
    let mut world = new_world(settings);
    // Ground under the whole swing, from x = -26 to 18, and a wall at its left end to stop
    // what the ball knocks away.
    fixed_box(&mut world, Vec2::new(-4.0, -0.5), Vec2::new(22.0, 0.5))?;
    fixed_box(&mut world, Vec2::new(-25.5, 2.0), Vec2::new(0.5, 2.0))?;
    let pin = Vec2::new(0.0, 20.0);
    let support = world.add_body(
        BodyDef::fixed().position(pin),
        ShapeDef::new(Shape::circle(0.15)?),
    )?;
    let link = ShapeDef::new(Shape::capsule(
        Vec2::new(-0.4, 0.0),
        Vec2::new(0.4, 0.0),
        0.1,
    )?);
    let mut links = Vec::new();
    let mut joints = Vec::new();
    let mut previous = support;
    for i in 0..LINKS {
        let body = world.add_body(
            BodyDef::dynamic().position(pin + Vec2::new(i as f32 + 0.5, 0.0)),
            link.clone(),
        )?;
        let at = pin + Vec2::new(i as f32, 0.0);
        joints.push(world.add_joint(JointDef::revolute(previous, body, at))?);
        links.push(body);
        previous = body;
    }
    let end = pin + Vec2::new(LINKS as f32, 0.0);
    let weight = world.add_body(
        BodyDef::dynamic().position(end + Vec2::new(WEIGHT_RADIUS, 0.0)),
        ShapeDef::new(Shape::circle(WEIGHT_RADIUS)?).density(4.0),
    )?;
    joints.push(world.add_joint(JointDef::revolute(previous, weight, end))?);
    let mut tower = Vec::new();
    for row in 0..6 {
        let at = Vec2::new(-4.0, 0.5 + row as f32);
        tower.push(world.add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::rect(0.5, 0.5)?),
        )?);
    }
    Ok(Chain {
        world,
        pin,
        links,
        weight,
        joints,
        tower,
    })
}
