//! Rigid at any scale, engine by engine: heavy loads on joints and on light bodies, joint
//! limits, springs and spin, each beside the answer its law gives.
//!
//! `cargo run --release -p batch2d-bench --example rigid` prints the table of `docs/laws.md`
//! in markdown. Each scene is built once, here, from sizes and masses (those of
//! `tests/physics/rigid.rs`, `spring_laws.rs` and `fast_rotation.rs`, which assert batch2d's
//! column), and run the same in batch2d, rapier2d and Box2D v3 through [`engine::Engine`];
//! each law is computed here from the scene's sizes and masses. rapier2d holds the jointed
//! trees (chain, beams, ropes, double pendulum) with its multibody joints; a second table
//! gives the same scenes with its impulse joints.

mod batch2d_world;
mod box2d;
mod engine;
mod rapier;

use batch2d::Vec2;
use batch2d_world::Batch2d;
use box2d::Box2d;
use engine::{Body, Engine, Id, Joint, Joints, Shape, DT};
use rapier::Rapier;
use std::f32::consts::{FRAC_PI_2, PI};

/// Gravity (m/s²), as in the tests.
const G: f32 = 10.0;

/// Runs `scene` in batch2d, rapier2d and Box2D v3, in the order of the table's columns (the
/// textbook table's).
macro_rules! each {
    ($scene:ident ( $($arg:expr),* )) => {
        [
            $scene::<Batch2d>($($arg),*),
            $scene::<Rapier>($($arg),*),
            $scene::<Box2d>($($arg),*),
        ]
    };
}

/// The row of a jointed scene, its joints multibody joints in rapier2d; and the scene's row
/// for rapier2d's impulse joints, pushed onto `$impulse`.
macro_rules! jointed {
    ($impulse:ident, $law:expr, $analytic:expr, $scene:ident ( $($arg:expr),* ), $show:expr) => {{
        let (law, analytic, show) = ($law, $analytic.to_string(), $show);
        let alone = $scene::<Rapier>(Joints::Impulse $(, $arg)*);
        $impulse.push(format!("| {law} | {analytic} | {} |", unsigned_zeros(show(&alone))));
        row(law, analytic, each!($scene(Joints::Multibody $(, $arg)*)), show);
    }};
}

fn row<T>(law: &str, analytic: String, measured: [T; 3], show: impl Fn(&T) -> String) {
    let [a, b, c] = measured.map(|m| unsigned_zeros(show(&m)));
    println!("| {law} | {analytic} | {a} | {b} | {c} |");
}

/// `cell` with each `-0.00` (a small negative number rounded to zero) printed as `0.00`.
fn unsigned_zeros(cell: String) -> String {
    cell.split(' ')
        .map(|word| {
            let unsigned = word.trim_start_matches('-');
            let mut number = unsigned
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.');
            if word.starts_with('-')
                && unsigned.starts_with('0')
                && number.all(|c| c == '0' || c == '.')
            {
                unsigned
            } else {
                word
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn block<E: Engine>(e: &mut E, at: Vec2, hw: f32, hh: f32, mass: f32) -> Id {
    e.add(Body::block(at, hw, hh, mass))
}

/// A fixed small box at `at`: something to fasten joints to.
fn anchor<E: Engine>(e: &mut E, at: Vec2) -> Id {
    e.add(Body::fixed(at, Shape::Box(0.1, 0.1)))
}

/// A fixed ground 2 m thick and `2 half_width` wide whose top face is at y = 0.
fn ground<E: Engine>(e: &mut E, half_width: f32) -> Id {
    e.add(Body::fixed(
        Vec2::new(0.0, -1.0),
        Shape::Box(half_width, 1.0),
    ))
}

/// What a hanging rope does over 10 s.
struct Hanging {
    /// The load's largest distance below where the rigid rope holds it, as a fraction of
    /// the rope's length.
    max_stretch: f32,
    /// The load's speed at the end.
    load_speed: f32,
    /// The top joint's force at the end (N), where the engine reports it.
    top_force: Option<f32>,
}

/// A vertical rope hanging at rest from a fixed point: `links` links of `link_mass` kg, each
/// `width` wide and `length` long, joined by hinges at their ends, holding a `load_size` square
/// box of `load_mass` kg from its top edge's middle; 600 steps.
fn hanging<E: Engine>(
    joints: Joints,
    links: usize,
    width: f32,
    length: f32,
    link_mass: f32,
    load_size: f32,
    load_mass: f32,
) -> Hanging {
    let mut e = E::new(G, joints);
    let top = Vec2::new(0.0, 200.0);
    let mut above = anchor(&mut e, top + Vec2::new(0.0, 0.1));
    let mut top_joint = None;
    for i in 0..links {
        let y = top.y - length * (i as f32 + 0.5);
        let link = block(
            &mut e,
            Vec2::new(0.0, y),
            0.5 * width,
            0.5 * length,
            link_mass,
        );
        let hinge = Vec2::new(0.0, top.y - length * i as f32);
        let joint = e.join(above, link, hinge, Joint::HINGE);
        top_joint.get_or_insert(joint);
        above = link;
    }
    let rope = length * links as f32;
    let load_centre = Vec2::new(0.0, top.y - rope - 0.5 * load_size);
    let half = 0.5 * load_size;
    let load = block(&mut e, load_centre, half, half, load_mass);
    e.join(above, load, Vec2::new(0.0, top.y - rope), Joint::HINGE);
    let mut max_stretch = 0.0f32;
    for _ in 0..600 {
        e.step();
        let below = load_centre.y - e.position(load).y;
        max_stretch = max_stretch.max((below / rope).abs());
    }
    Hanging {
        max_stretch,
        load_speed: e.velocity(load).length(),
        top_force: top_joint.and_then(|j| e.joint_force(j)),
    }
}

/// AVBD's heavy rope laid out level from its pin and let go: 20 links of 1 x 0.5 m (0.5 kg)
/// and a 30 m box of 900 kg. The largest distance of the box's anchor from the pin over 5 s,
/// past the rope's length, as a fraction of it.
fn rope_let_go<E: Engine>(joints: Joints) -> f32 {
    let mut e = E::new(G, joints);
    let mut previous = anchor(&mut e, Vec2::new(-0.1, 0.0));
    for i in 0..20 {
        let link = block(&mut e, Vec2::new(i as f32 + 0.5, 0.0), 0.5, 0.25, 0.5);
        e.join(previous, link, Vec2::new(i as f32, 0.0), Joint::HINGE);
        previous = link;
    }
    let load = block(&mut e, Vec2::new(35.0, 0.0), 15.0, 15.0, 900.0);
    let hinge = Vec2::new(20.0, 0.0);
    e.join(previous, load, hinge, Joint::HINGE);
    let local = e.local_point(load, hinge);
    let mut max_stretch = 0.0f32;
    for _ in 0..300 {
        e.step();
        let end = e.world_point(load, local);
        max_stretch = max_stretch.max(end.length() / 20.0 - 1.0);
    }
    max_stretch
}

/// A beam of `count` boxes `length` x `height` of `mass` kg welded end to end out from a wall
/// at the origin, along +x, for 600 steps: the tip's largest drop below its place on the
/// rigid beam, and its speed at the end.
fn welded_beam<E: Engine>(
    joints: Joints,
    count: usize,
    length: f32,
    height: f32,
    mass: f32,
) -> (f32, f32) {
    let mut e = E::new(G, joints);
    let wall = e.add(Body::fixed(Vec2::new(-0.5, 0.0), Shape::Box(0.5, 2.0)));
    let mut previous = wall;
    for i in 0..count {
        let at = Vec2::new(length * (i as f32 + 0.5), 0.0);
        let b = block(&mut e, at, 0.5 * length, 0.5 * height, mass);
        e.join(previous, b, Vec2::new(length * i as f32, 0.0), Joint::Weld);
        previous = b;
    }
    let tip = previous;
    let rest = e.position(tip).y;
    let mut worst = 0.0f32;
    for _ in 0..600 {
        e.step();
        // The beam's far end: the tip box's centre plus half a length along its axis.
        let end = e.world_point(tip, Vec2::new(0.5 * length, 0.0));
        worst = worst.max((rest - end.y).abs());
    }
    (worst, e.velocity(tip).length())
}

/// Wall -> 1 kg -> 100 kg unit boxes welded in a row, 600 steps: the welds' largest opening
/// (the distance between each weld's two anchors), and the heavy box's drop at the end.
fn heavy_weld<E: Engine>(joints: Joints) -> (f32, f32) {
    let mut e = E::new(G, joints);
    let wall = anchor(&mut e, Vec2::new(-0.1, 0.0));
    let light = block(&mut e, Vec2::new(0.5, 0.0), 0.5, 0.5, 1.0);
    let heavy = block(&mut e, Vec2::new(1.5, 0.0), 0.5, 0.5, 100.0);
    let welds = [
        (wall, light, Vec2::ZERO),
        (light, heavy, Vec2::new(1.0, 0.0)),
    ];
    let anchors: Vec<(Id, Vec2, Id, Vec2)> = welds
        .iter()
        .map(|&(a, b, at)| {
            e.join(a, b, at, Joint::Weld);
            (a, e.local_point(a, at), b, e.local_point(b, at))
        })
        .collect();
    let mut opening = 0.0f32;
    for _ in 0..600 {
        e.step();
        for &(a, la, b, lb) in &anchors {
            opening = opening.max((e.world_point(b, lb) - e.world_point(a, la)).length());
        }
    }
    (opening, -e.position(heavy).y)
}

/// A column of twenty 1 kg unit boxes under a 1000 kg one, with `loose` 1 kg boxes on the
/// ground touching the column's base (half on each side), 600 steps: the heavy box's sink
/// below its resting height, and the largest speed of any body at the end and ever.
fn heavy_on_column<E: Engine>(loose: usize) -> (f32, f32, f32) {
    let mut e = E::new(G, Joints::Impulse);
    ground(&mut e, 50.0);
    for i in 0..20 {
        block(&mut e, Vec2::new(0.0, 0.5 + i as f32), 0.5, 0.5, 1.0);
    }
    let heavy = block(&mut e, Vec2::new(0.0, 20.5), 0.5, 0.5, 1000.0);
    for k in 0..loose {
        let side = if k % 2 == 0 { 1.0 } else { -1.0 };
        let x = side * (1.0 + (k / 2) as f32);
        block(&mut e, Vec2::new(x, 0.5), 0.5, 0.5, 1.0);
    }
    let mut worst = 0.0f32;
    for _ in 0..600 {
        e.step();
        worst = worst.max(e.fastest());
    }
    (20.5 - e.position(heavy).y, e.fastest(), worst)
}

/// A column of `n` unit boxes alternating 1 kg and 100 kg, lightest at the bottom: the top's
/// centre after 600 steps.
fn alternating_column<E: Engine>(n: usize) -> f32 {
    let mut e = E::new(G, Joints::Impulse);
    ground(&mut e, 50.0);
    let mut top = 0;
    for i in 0..n {
        let mass = if i % 2 == 0 { 1.0 } else { 100.0 };
        top = block(&mut e, Vec2::new(0.0, 0.5 + i as f32), 0.5, 0.5, mass);
    }
    e.run(600);
    e.position(top).y
}

/// What [`slab_on_wall`] measures.
struct SlabOnWall {
    /// The largest distance of any body from its resting height at the end.
    worst_height: f32,
    /// The slab's height below its resting height at the end.
    sink: f32,
    /// The largest speed of any body at the end, and ever.
    fastest: f32,
    worst_speed: f32,
}

/// A 1 m thick slab of `slab_mass` kg laid on a wall of boxes of side `size` and 1 kg, `wide`
/// side by side and `high` on top of each other (the slab as wide as the wall), for `steps`
/// steps. At rest each box's centre is `size (row + 1/2)` high and the slab's
/// `size high + 1/2`: each body starts there.
fn slab_on_wall<E: Engine>(
    wide: usize,
    high: usize,
    size: f32,
    slab_mass: f32,
    steps: usize,
) -> SlabOnWall {
    let mut e = E::new(G, Joints::Impulse);
    let width = size * wide as f32;
    ground(&mut e, width + 10.0);
    for row in 0..high {
        for column in 0..wide {
            let x = size * (column as f32 + 0.5) - 0.5 * width;
            let y = size * (row as f32 + 0.5);
            block(&mut e, Vec2::new(x, y), 0.5 * size, 0.5 * size, 1.0);
        }
    }
    let top = size * high as f32 + 0.5;
    let slab = block(&mut e, Vec2::new(0.0, top), 0.5 * width, 0.5, slab_mass);
    let rest: Vec<f32> = (0..e.count()).map(|b| e.position(b).y).collect();
    let mut worst_speed = 0.0f32;
    for _ in 0..steps {
        e.step();
        worst_speed = worst_speed.max(e.fastest());
    }
    let worst_height = rest
        .iter()
        .enumerate()
        .map(|(b, y)| (e.position(b).y - y).abs())
        .fold(0.0, f32::max);
    SlabOnWall {
        worst_height,
        sink: top - e.position(slab).y,
        fastest: e.fastest(),
        worst_speed,
    }
}

/// A 1 x 0.1 m bar of 1 kg hinged at one end to a fixed body, without gravity, turning at `w`
/// rad/s into the upper limit of a hinge whose limits are +-0.5 rad: how far past the limit
/// (rad) it ever is over 2 s, or `None` if it never reached the limit.
fn limit_overshoot<E: Engine>(w: f32) -> Option<f32> {
    // Impulse joints in rapier: a multibody starts its joints at rest, whatever the bodies'
    // speeds.
    let mut e = E::new(0.0, Joints::Impulse);
    let base = anchor(&mut e, Vec2::ZERO);
    // The bar turning rigidly about the pivot: its centre moves at w x r.
    let bar = e.add(Body {
        velocity: Vec2::new(0.0, 0.5 * w),
        spin: w,
        ..Body::block(Vec2::new(0.5, 0.0), 0.5, 0.05, 1.0)
    });
    let limits = Some((-0.5, 0.5));
    let hinge = Joint::Revolute {
        limits,
        motor: None,
    };
    e.join(base, bar, Vec2::ZERO, hinge);
    let (mut worst, mut reached) = (0.0f32, 0.0f32);
    for _ in 0..120 {
        e.step();
        let d = e.angle(bar) - e.angle(base);
        // Within half a turn of the start: the nearest equivalent angle.
        let angle = d - 2.0 * PI * (d / (2.0 * PI)).round();
        worst = worst.max(angle - 0.5).max(-0.5 - angle);
        reached = reached.max(angle.abs());
    }
    (reached > 0.499).then_some(worst)
}

/// A double pendulum of two 1 x 0.1 m rods of 1 kg hinged end to end from a fixed pivot, let
/// go with the upper rod at `a1` and the lower at `a2` from straight down, no damping: its
/// energy above the hanging rest after 10 s, and its largest departure, as fractions of the
/// energy it started with.
fn double_pendulum<E: Engine>(joints: Joints, a1: f32, a2: f32) -> (f32, f32) {
    let mut e = E::new(G, joints);
    let pivot = Vec2::ZERO;
    let base = anchor(&mut e, pivot);
    let (hw, hh, m) = (0.5, 0.05, 1.0);
    let down = |a: f32| Vec2::new(a.sin(), -a.cos());
    let elbow = pivot + down(a1);
    // A rod's length lies along its local x axis: turned by its angle from straight down,
    // less a quarter turn.
    let rod = |e: &mut E, centre: Vec2, a: f32| {
        e.add(Body {
            angle: a - FRAC_PI_2,
            ..Body::block(centre, hw, hh, m)
        })
    };
    let upper = rod(&mut e, pivot + down(a1) * 0.5, a1);
    let lower = rod(&mut e, elbow + down(a2) * 0.5, a2);
    e.join(base, upper, pivot, Joint::HINGE);
    e.join(upper, lower, elbow, Joint::HINGE);
    let inertia = m * ((2.0 * hw) * (2.0 * hw) + (2.0 * hh) * (2.0 * hh)) / 12.0;
    // Hanging straight down, the centres are 0.5 m and 1.5 m below the pivot.
    let rest = m * G * (-0.5 - 1.5);
    let energy = |e: &E| -> f32 {
        [upper, lower]
            .iter()
            .map(|&b| {
                let (v, w) = (e.velocity(b), e.spin(b));
                0.5 * m * v.dot(v) + 0.5 * inertia * w * w + m * G * e.position(b).y
            })
            .sum::<f32>()
            - rest
    };
    let start = energy(&e);
    let mut worst = 0.0f32;
    for _ in 0..600 {
        e.step();
        worst = worst.max((energy(&e) - start).abs() / start);
    }
    (energy(&e) / start - 1.0, worst)
}

/// AVBD's stack ratio scene: boxes of side 1, 2, 4, 8, 16 and 32 m of density 1 stacked on the
/// ground, the smallest at the bottom, for 600 steps: the top box's drop below its resting
/// height (the sides below it plus half its own), and the largest distance of any box from
/// its resting height.
fn stack_ratio<E: Engine>() -> (f32, f32) {
    let mut e = E::new(G, Joints::Impulse);
    ground(&mut e, 50.0);
    let mut boxes = Vec::new();
    let mut bottom = 0.0;
    for k in 0..6 {
        let side = (1 << k) as f32;
        let rest = bottom + 0.5 * side;
        let half = 0.5 * side;
        boxes.push((
            block(&mut e, Vec2::new(0.0, rest), half, half, side * side),
            rest,
        ));
        bottom += side;
    }
    e.run(600);
    let (top, top_rest) = boxes[boxes.len() - 1];
    let worst = boxes
        .iter()
        .map(|&(b, rest)| (e.position(b).y - rest).abs())
        .fold(0.0, f32::max);
    (top_rest - e.position(top).y, worst)
}

/// A 0.6 x 0.4 m box of 0.48 kg on a slider along y from a fixed body, sprung at `hertz` with
/// damping ratio `zeta`, no gravity, set off from its rest place at 0.1 m/s: its place on
/// the slider after each of 600 steps.
fn oscillation<E: Engine>(hertz: f32, zeta: f32) -> Vec<f64> {
    let mut e = E::new(0.0, Joints::Impulse);
    let fixed = e.add(Body::fixed(Vec2::ZERO, Shape::Circle(0.05)));
    let axis = Vec2::new(0.0, 1.0);
    let body = e.add(Body {
        velocity: axis * 0.1,
        ..Body::block(Vec2::ZERO, 0.3, 0.2, 0.48)
    });
    e.join(
        fixed,
        body,
        Vec2::ZERO,
        Joint::SliderSpring { axis, hertz, zeta },
    );
    (0..600)
        .map(|_| {
            e.step();
            e.position(body).dot(axis) as f64
        })
        .collect()
}

/// Times of the upward zero crossings, interpolated between steps.
fn crossings(x: &[f64]) -> Vec<f64> {
    let dt = DT as f64;
    (1..x.len())
        .filter(|&i| x[i - 1] < 0.0 && x[i] >= 0.0)
        .map(|i| (i as f64 + x[i - 1] / (x[i - 1] - x[i])) * dt)
        .collect()
}

/// The extrema of `x` (alternating in sign), each the vertex of the parabola through the
/// sample that is largest in size and its two neighbours.
fn peaks(x: &[f64]) -> Vec<f64> {
    (1..x.len() - 1)
        .filter(|&i| x[i].abs() >= x[i - 1].abs() && x[i].abs() > x[i + 1].abs())
        .map(|i| {
            let (a, b, c) = (x[i - 1], x[i], x[i + 1]);
            b - 0.125 * (c - a) * (c - a) / (a - 2.0 * b + c)
        })
        .collect()
}

/// An undamped spring of `hertz`: its last peak over its first after 10 s, and its mean
/// period over the law's `1 / hertz`.
fn undamped<E: Engine>(hertz: f32) -> (f64, f64) {
    let x = oscillation::<E>(hertz, 0.0);
    let p = peaks(&x);
    let t = crossings(&x);
    let period = (t[t.len() - 1] - t[0]) / (t.len() - 1) as f64;
    (p[p.len() - 1].abs() / p[0].abs(), period * hertz as f64)
}

/// A spring of `hertz` and damping ratio `zeta`: the ratio measured back from the
/// logarithmic decrement of its first two peaks, and its first period (s).
fn damped<E: Engine>(hertz: f32, zeta: f32) -> (f64, f64) {
    let x = oscillation::<E>(hertz, zeta);
    let p = peaks(&x);
    // Successive extrema are half a period apart: their ratio is e^(-zeta w T_d / 2), and
    // the decrement over a period is twice its log.
    let delta = 2.0 * (p[0].abs() / p[1].abs()).ln();
    let t = crossings(&x);
    (
        delta / (4.0 * std::f64::consts::PI.powi(2) + delta * delta).sqrt(),
        t[1] - t[0],
    )
}

/// A free 1 x 0.4 m box set spinning at `w` rad/s, no gravity: its spin after 1 s.
fn free_spin<E: Engine>(w: f32) -> f32 {
    let mut e = E::new(0.0, Joints::Impulse);
    let b = e.add(Body {
        spin: w,
        ..Body::block(Vec2::ZERO, 0.5, 0.2, 0.4)
    });
    e.run(60);
    e.spin(b)
}

/// A wheel of radius 0.4 m and density 1 on a fixed hub, under gravity, driven by a motor set
/// to `speed` rad/s with at most 1000 N m: its spin after 1 s.
fn motor<E: Engine>(speed: f32) -> f32 {
    let mut e = E::new(G, Joints::Impulse);
    let hub = e.add(Body::fixed(Vec2::ZERO, Shape::Circle(0.05)));
    let r = 0.4;
    let wheel = e.add(Body {
        shape: Shape::Circle(r),
        mass: PI * r * r,
        ..Body::block(Vec2::ZERO, 0.0, 0.0, 0.0)
    });
    let drive = Joint::Revolute {
        limits: None,
        motor: Some((speed, 1000.0)),
    };
    e.join(hub, wheel, Vec2::ZERO, drive);
    e.run(60);
    e.spin(wheel)
}

fn main() {
    println!("| law | analytic | batch2d | rapier2d | Box2D v3 |");
    println!("|---|---|---|---|---|");

    // The jointed scenes' rows for rapier2d's impulse joints, printed after the table.
    let mut impulse = Vec::new();
    let chain_weight = (40.0 * 1.0 + 100.0) * G;
    jointed!(
        impulse,
        "chain of 40 links of 1 kg holding 100 kg, 10 s: largest stretch, weight's speed, top joint's force",
        format!("0, 0, {chain_weight:.0} N"),
        hanging(40, 0.1, 0.5, 1.0, 1.0, 100.0),
        |h: &Hanging| {
            let force = h.top_force.map_or("n/a".into(), |f| format!("{f:.1} N"));
            format!(
                "{:.3}%, {:.3} m/s, {force}",
                100.0 * h.max_stretch,
                h.load_speed
            )
        }
    );
    let beam = |&(sag, v): &(f32, f32)| format!("{sag:.3} m, {v:.3} m/s");
    jointed!(
        impulse,
        "cantilever of ten 1 x 0.2 m boxes of 1 kg welded to a wall, 10 s: tip's largest sag, tip's speed",
        "0, 0",
        welded_beam(10, 1.0, 0.2, 1.0),
        beam
    );
    jointed!(
        impulse,
        "wall, 1 kg, 100 kg welded in a row, 10 s: largest weld opening, heavy box's drop",
        "0, 0",
        heavy_weld(),
        |&(open, drop): &(f32, f32)| format!("{:.2} mm, {:.2} cm", 1000.0 * open, 100.0 * drop)
    );
    jointed!(
        impulse,
        "AVBD rod, 20 links of 1 x 0.5 m of 0.5 kg welded, 10 s: tip's largest sag, tip's speed",
        "0, 0",
        welded_beam(20, 1.0, 0.5, 0.5),
        beam
    );
    let rope = |h: &Hanging| format!("{:.3}%, {:.3} m/s", 100.0 * h.max_stretch, h.load_speed);
    jointed!(
        impulse,
        "AVBD heavy rope, 20 links of 0.5 kg and a 900 kg box, hanging, 10 s: largest stretch, box's speed",
        "0, 0",
        hanging(20, 0.5, 1.0, 0.5, 30.0, 900.0),
        rope
    );
    jointed!(
        impulse,
        "AVBD heavy rope let go level, 5 s: largest stretch",
        "0",
        rope_let_go(),
        |s: &f32| format!("{:.3}%", 100.0 * s)
    );
    jointed!(
        impulse,
        "AVBD hanging rope, 50 links of 0.5 kg and a 100 kg box, 10 s: largest stretch, box's speed",
        "0, 0",
        hanging(50, 0.5, 1.0, 0.5, 10.0, 100.0),
        rope
    );
    for loose in [4, 10] {
        row(
            &format!("1000 kg on twenty 1 kg boxes with {loose} loose boxes beside, 600 steps: heavy box's sink, fastest body now / ever"),
            "0, 0 / 0".into(),
            each!(heavy_on_column(loose)),
            |&(sink, now, ever)| format!("{sink:.3} m, {now:.2} / {ever:.2} m/s"),
        );
    }
    let n = 50;
    row(
        "column of 50 unit boxes alternating 1 and 100 kg, 600 steps: top box's height",
        format!("{:.1} m", n as f32 - 0.5),
        each!(alternating_column(n)),
        |y| format!("{y:.3} m"),
    );
    let slab = |m: &SlabOnWall| {
        format!(
            "{:.3} m (slab {:.3} m), {:.2} / {:.2} m/s",
            m.worst_height, m.sink, m.fastest, m.worst_speed
        )
    };
    row(
        "1000 kg slab on a wall of 0.5 m boxes of 1 kg, 10 wide and 8 high (81 bodies), 300 steps: farthest body from its resting height (the slab's sink), fastest body now / ever",
        "0 (0), 0 / 0".into(),
        each!(slab_on_wall(10, 8, 0.5, 1000.0, 300)),
        slab,
    );
    row(
        "4000 kg slab 20 m wide on a wall of 0.5 m boxes of 1 kg, 40 wide and 20 high (801 bodies), 600 steps: the same",
        "0 (0), 0 / 0".into(),
        each!(slab_on_wall(40, 20, 0.5, 4000.0, 600)),
        slab,
    );
    row(
        "1000 kg slab on 2 x 14 boxes of 1 m and 1 kg (29 bodies), 600 steps: the same",
        "0 (0), 0 / 0".into(),
        each!(slab_on_wall(2, 14, 1.0, 1000.0, 600)),
        slab,
    );
    let overshoot = |o: &Option<f32>| {
        o.map_or("never reached".into(), |o| {
            format!("{:.2}°", o.to_degrees())
        })
    };
    for w in [20.0, 40.0] {
        row(
            &format!("1 x 0.1 m bar hinged at its end, turning at {w} rad/s into a 0.5 rad limit, no gravity, 2 s: largest overshoot"),
            "0".into(),
            each!(limit_overshoot(w)),
            overshoot,
        );
    }
    jointed!(
        impulse,
        "double pendulum of two 1 x 0.1 m rods of 1 kg let go at 1.2 rad, no damping: energy (above the hanging rest) after 10 s, largest change",
        "+0%, 0%",
        double_pendulum(1.2, 0.0),
        |&(end, worst): &(f32, f32)| format!("{:+.1}%, {:.1}%", 100.0 * end, 100.0 * worst)
    );
    row(
        "AVBD stack ratio, boxes of side 1 to 32 m, smallest at the bottom, 600 steps: top box below its resting height / farthest box from it",
        "0 / 0".into(),
        each!(stack_ratio()),
        |&(top, worst)| format!("{top:.3} m / {worst:.3} m"),
    );

    let hertz = [1.0f32, 2.0, 5.0];
    let ones = hertz.map(|_| "1").join(" ");
    let amplitudes = [
        undamped::<Batch2d> as fn(f32) -> (f64, f64),
        undamped::<Rapier>,
        undamped::<Box2d>,
    ]
    .map(|f| hertz.map(f));
    row(
        "slider spring, undamped, at 1 / 2 / 5 Hz, 10 s: last amplitude / first",
        ones.clone(),
        amplitudes,
        |m| m.map(|(a, _)| format!("{a:.3}")).join(" "),
    );
    row(
        "the same: period / the law's 1 / f",
        ones,
        amplitudes,
        |m| m.map(|(_, t)| format!("{t:.4}")).join(" "),
    );
    let zeta = 0.1f32;
    row(
        &format!("slider spring at 1 / 2 / 5 Hz set to damping ratio {zeta}: ratio measured by logarithmic decrement"),
        hertz.map(|_| format!("{zeta:.3}")).join(" "),
        [
            damped::<Batch2d> as fn(f32, f32) -> (f64, f64),
            damped::<Rapier>,
            damped::<Box2d>,
        ]
        .map(|f| hertz.map(|h| f(h, zeta))),
        |m| m.map(|(z, _)| format!("{z:.3}")).join(" "),
    );
    let (hz, z) = (1.0f64, 0.5f64);
    row(
        "slider spring of 1 Hz set to damping ratio 0.5: period (s)",
        format!("{:.4}", 1.0 / (hz * (1.0 - z * z).sqrt())),
        each!(damped(hz as f32, z as f32)),
        |&(_, t)| format!("{t:.4}"),
    );
    let w = 1000.0;
    row(
        &format!("free box set spinning at {w} rad/s, no gravity: spin after 1 s (rad/s)"),
        format!("{w:.1}"),
        each!(free_spin(w)),
        |s| format!("{s:.1}"),
    );
    let speed = 150.0;
    row(
        &format!("wheel on a hinge with a motor set to {speed} rad/s (at most 1000 N m): spin after 1 s (rad/s)"),
        format!("{speed:.1}"),
        each!(motor(speed)),
        |s| format!("{s:.1}"),
    );

    println!();
    println!("| law | analytic | rapier2d, impulse joints |");
    println!("|---|---|---|");
    for line in impulse {
        println!("{line}");
    }
}
