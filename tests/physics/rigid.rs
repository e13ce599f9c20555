//! Rigid at any scale (issue 57): chains, welded beams and ropes that hold heavy loads, and
//! heavy bodies on light ones in islands of any size. Each test builds its scene at rest in
//! the pose the law gives, computes the law from the scene's sizes and masses, and measures
//! how far batch2d strays from it after some seconds at 60 Hz and the default settings.
//!
//! Targets not yet met are `#[ignore]`d with the value measured; beside each, a test with a
//! bound that holds today catches regressions. `cargo test --release --test physics rigid:: -- --nocapture`
//! prints every measurement.

use crate::common;

use batch2d::{
    Backend, BodyDef, BodyId, JointDef, JointId, Shape, ShapeDef, Vec2, World, WorldSettings,
};
use common::ground;

const DT: f32 = 1.0 / 60.0;
const G: f32 = 10.0;

fn world() -> World {
    World::new(WorldSettings {
        gravity: Vec2::new(0.0, -G),
        ..WorldSettings::default()
    })
}

/// A dynamic box `2 hw` x `2 hh` of `mass` kg centred at `at`.
fn block(world: &mut World, at: Vec2, hw: f32, hh: f32, mass: f32) -> BodyId {
    let density = mass / (4.0 * hw * hh);
    world
        .add_body(
            BodyDef::dynamic().position(at),
            ShapeDef::new(Shape::rect(hw, hh).unwrap()).density(density),
        )
        .unwrap()
}

/// A fixed small box at `at`: something to fasten joints to.
fn anchor(world: &mut World, at: Vec2) -> BodyId {
    world
        .add_body(
            BodyDef::fixed().position(at),
            ShapeDef::new(Shape::rect(0.1, 0.1).unwrap()),
        )
        .unwrap()
}

fn speed(world: &World, id: BodyId) -> f32 {
    world.linear_velocity(id).unwrap().length()
}

/// The largest speed of any body.
fn fastest(world: &World) -> f32 {
    world
        .bodies()
        .map(|id| speed(world, id))
        .fold(0.0, f32::max)
}

/// A vertical rope or chain hanging at rest from a fixed point at `top`: `links` links of
/// `link_mass` kg, each `width` wide and `length` long, joined by revolute joints at their
/// ends, holding a `load_size` square box of `load_mass` kg from its top edge's middle.
struct Hanging {
    world: World,
    top: Vec2,
    joints: Vec<JointId>,
    load: BodyId,
    /// The rigid rope's length from `top` to the load's top edge.
    length: f32,
    /// The load's centre below the rigid rope: `length + load_size / 2` below `top`.
    load_centre: Vec2,
    /// Everything the top joint holds: links and load (N).
    weight: f32,
}

fn hanging(
    links: usize,
    width: f32,
    length: f32,
    link_mass: f32,
    load_size: f32,
    load_mass: f32,
) -> Hanging {
    let mut world = world();
    let top = Vec2::new(0.0, 200.0);
    let pin = anchor(&mut world, top + Vec2::new(0.0, 0.1));
    let mut above = pin;
    let mut joints = Vec::new();
    for i in 0..links {
        let y = top.y - length * (i as f32 + 0.5);
        let link = block(
            &mut world,
            Vec2::new(0.0, y),
            0.5 * width,
            0.5 * length,
            link_mass,
        );
        let hinge = Vec2::new(0.0, top.y - length * i as f32);
        joints.push(
            world
                .add_joint(JointDef::revolute(above, link, hinge))
                .unwrap(),
        );
        above = link;
    }
    let rope = length * links as f32;
    let load_centre = Vec2::new(0.0, top.y - rope - 0.5 * load_size);
    let load = block(
        &mut world,
        load_centre,
        0.5 * load_size,
        0.5 * load_size,
        load_mass,
    );
    let hinge = Vec2::new(0.0, top.y - rope);
    joints.push(
        world
            .add_joint(JointDef::revolute(above, load, hinge))
            .unwrap(),
    );
    Hanging {
        world,
        top,
        joints,
        load,
        length: rope,
        load_centre,
        weight: (links as f32 * link_mass + load_mass) * G,
    }
}

/// What a hanging rope does over `steps` steps: its largest stretch (fraction of its length),
/// its stretch and the load's speed at the end, and the top joint's force at the end (N).
struct HangingRun {
    max_stretch: f32,
    stretch: f32,
    load_speed: f32,
    top_force: f32,
}

fn run_hanging(h: &mut Hanging, steps: usize) -> HangingRun {
    let mut max_stretch = 0.0f32;
    let mut stretch = 0.0;
    for _ in 0..steps {
        h.world.step(DT).unwrap();
        let below = h.load_centre.y - h.world.position(h.load).unwrap().y;
        stretch = below / h.length;
        max_stretch = max_stretch.max(stretch.abs());
    }
    let top_force = h.world.joint_reaction_force(h.joints[0]).unwrap().length();
    let _ = h.top;
    HangingRun {
        max_stretch,
        stretch,
        load_speed: speed(&h.world, h.load),
        top_force,
    }
}

/// A chain of 40 links of 1 kg, 0.5 m apart, holding 100 kg: after 10 s it is stretched under
/// 0.2%, the weight moves slower than 1 cm/s, and the top joint holds the whole weight, 1400 N,
/// within 1%.
#[test]
fn a_chain_of_forty_links_holds_a_hundred_kilograms_rigidly() {
    let mut h = hanging(40, 0.1, 0.5, 1.0, 1.0, 100.0);
    let run = run_hanging(&mut h, 600);
    println!(
        "chain 40 x 1 kg + 100 kg: max stretch {:.5}%, stretch {:.5}%, weight at {:.5} m/s, top force {:.1} N of {:.1} N",
        100.0 * run.max_stretch,
        100.0 * run.stretch,
        run.load_speed,
        run.top_force,
        h.weight
    );
    assert!(run.max_stretch < 0.002, "stretched {}", run.max_stretch);
    assert!(
        run.load_speed < 0.01,
        "the weight moves at {} m/s",
        run.load_speed
    );
    let error = (run.top_force - h.weight).abs() / h.weight;
    assert!(
        error < 0.01,
        "the top joint holds {} N of {} N",
        run.top_force,
        h.weight
    );
}

/// AVBD's heavy rope: 20 links of 1 x 0.5 m (0.5 kg) holding a 30 x 30 m box of 900 kg, about
/// 1800:1. Hung at rest, it stays at its length within 0.5% and at rest.
#[test]
fn a_heavy_rope_holds_a_box_eighteen_hundred_times_heavier_than_a_link() {
    let mut h = hanging(20, 0.5, 1.0, 0.5, 30.0, 900.0);
    let run = run_hanging(&mut h, 600);
    println!(
        "heavy rope 20 links, 1800:1: max stretch {:.5}%, stretch {:.5}%, box at {:.5} m/s",
        100.0 * run.max_stretch,
        100.0 * run.stretch,
        run.load_speed
    );
    assert!(run.max_stretch < 0.005, "stretched {}", run.max_stretch);
    assert!(
        run.load_speed < 0.01,
        "the box moves at {} m/s",
        run.load_speed
    );
}

/// AVBD's heavy rope as its demo runs it: laid out level from its pin and let go, it swings
/// down with its 900 kg box. However it swings, it stays at its length within 0.5% (the box's
/// anchor no farther from the pin than the rope is long), and nothing moves faster than a
/// fall from the rope's height allows.
#[test]
fn a_heavy_rope_swinging_down_stays_at_its_length() {
    let mut world = world();
    let pin = anchor(&mut world, Vec2::new(-0.1, 0.0));
    let mut previous = pin;
    for i in 0..20 {
        let link = block(&mut world, Vec2::new(i as f32 + 0.5, 0.0), 0.5, 0.25, 0.5);
        let hinge = Vec2::new(i as f32, 0.0);
        world
            .add_joint(JointDef::revolute(previous, link, hinge))
            .unwrap();
        previous = link;
    }
    let load = block(&mut world, Vec2::new(35.0, 0.0), 15.0, 15.0, 900.0);
    let hinge = Vec2::new(20.0, 0.0);
    world
        .add_joint(JointDef::revolute(previous, load, hinge))
        .unwrap();
    let local = world.transform(load).unwrap().inv_apply(hinge);
    let mut max_stretch = 0.0f32;
    let mut max_speed = 0.0f32;
    for _ in 0..300 {
        world.step(DT).unwrap();
        let end = world.transform(load).unwrap().apply(local);
        max_stretch = max_stretch.max(end.length() / 20.0 - 1.0);
        max_speed = max_speed.max(speed(&world, load));
    }
    // The box's centre falls at most the rope and half the box's diagonal.
    let fall = 20.0 + 15.0 * 2.0f32.sqrt();
    let bound = (2.0 * G * fall).sqrt();
    println!("heavy rope swinging down: max stretch {:.5}%, box's top speed {max_speed:.3} m/s (free fall {bound:.3})", 100.0 * max_stretch);
    assert!(max_stretch < 0.005, "stretched {max_stretch}");
    assert!(max_speed < bound, "the box moved at {max_speed} m/s");
}

/// AVBD's hanging rope: 50 links of 0.5 x 1 m (0.5 kg) holding a 10 x 10 m box of 100 kg.
#[test]
fn a_hanging_rope_of_fifty_links_holds_its_box_at_its_length() {
    let mut h = hanging(50, 0.5, 1.0, 0.5, 10.0, 100.0);
    let run = run_hanging(&mut h, 600);
    println!(
        "hanging rope 50 links: max stretch {:.5}%, stretch {:.5}%, box at {:.5} m/s",
        100.0 * run.max_stretch,
        100.0 * run.stretch,
        run.load_speed
    );
    assert!(run.max_stretch < 0.005, "stretched {}", run.max_stretch);
    assert!(
        run.load_speed < 0.01,
        "the box moves at {} m/s",
        run.load_speed
    );
}

/// A beam of `count` boxes `length` x `height` of `mass` kg welded end to end out from a wall
/// at the origin, along +x; returns the world and the boxes.
fn welded_beam(count: usize, length: f32, height: f32, mass: f32) -> (World, Vec<BodyId>) {
    let mut world = world();
    let wall = world
        .add_body(
            BodyDef::fixed().position(Vec2::new(-0.5, 0.0)),
            ShapeDef::new(Shape::rect(0.5, 2.0).unwrap()),
        )
        .unwrap();
    let mut boxes = Vec::new();
    let mut previous = wall;
    for i in 0..count {
        let x = length * (i as f32 + 0.5);
        let b = block(
            &mut world,
            Vec2::new(x, 0.0),
            0.5 * length,
            0.5 * height,
            mass,
        );
        let at = Vec2::new(length * i as f32, 0.0);
        world.add_joint(JointDef::weld(previous, b, at)).unwrap();
        boxes.push(b);
        previous = b;
    }
    (world, boxes)
}

/// The tip's drop below its place on the rigid beam, and its speed, after `steps` steps;
/// and the largest drop seen.
fn run_beam(world: &mut World, boxes: &[BodyId], length: f32, steps: usize) -> (f32, f32, f32) {
    let tip = *boxes.last().unwrap();
    let at = world.position(tip).unwrap();
    let mut worst = 0.0f32;
    let mut sag = 0.0;
    for _ in 0..steps {
        world.step(DT).unwrap();
        // The beam's far end: the tip box's centre plus half a length along its axis.
        let end = world
            .transform(tip)
            .unwrap()
            .apply(Vec2::new(0.5 * length, 0.0));
        sag = at.y - end.y;
        worst = worst.max(sag.abs());
    }
    (sag, speed(world, tip), worst)
}

/// Ten 1 x 0.2 m boxes of 1 kg welded end to end out from a wall: a rigid beam, its tip does
/// not drop (under 1 cm) and it is at rest after 10 s.
#[test]
fn a_cantilever_of_ten_welded_boxes_holds_straight() {
    let (mut world, boxes) = welded_beam(10, 1.0, 0.2, 1.0);
    let (sag, tip_speed, worst) = run_beam(&mut world, &boxes, 1.0, 600);
    println!("cantilever of 10 welded boxes: tip sag {sag:.5} m (worst {worst:.5}), tip at {tip_speed:.5} m/s");
    assert!(worst < 0.01, "the tip sags {worst} m");
    assert!(tip_speed < 0.01, "the tip moves at {tip_speed} m/s");
}

/// AVBD's rod: 20 links of 1 x 0.5 m welded end to end from a fixed first link: stays
/// straight (tip sag under 0.5% of its length) and at rest.
#[test]
fn a_rod_of_twenty_welded_links_holds_straight() {
    let (mut world, boxes) = welded_beam(20, 1.0, 0.5, 0.5);
    let (sag, tip_speed, worst) = run_beam(&mut world, &boxes, 1.0, 600);
    println!(
        "rod of 20 welded links: tip sag {sag:.5} m (worst {worst:.5}), tip at {tip_speed:.5} m/s"
    );
    assert!(worst < 0.005 * 20.0, "the tip sags {worst} m");
    assert!(tip_speed < 0.01, "the tip moves at {tip_speed} m/s");
}

/// Wall -> 1 kg -> 100 kg, welded in a row: the welds do not open (under 0.5 mm), the heavy
/// box does not drop.
#[test]
fn a_heavy_box_welded_to_a_light_one_does_not_open_the_weld() {
    let mut world = world();
    let wall = anchor(&mut world, Vec2::new(-0.1, 0.0));
    let light = block(&mut world, Vec2::new(0.5, 0.0), 0.5, 0.5, 1.0);
    let heavy = block(&mut world, Vec2::new(1.5, 0.0), 0.5, 0.5, 100.0);
    let welds = [
        world
            .add_joint(JointDef::weld(wall, light, Vec2::ZERO))
            .unwrap(),
        world
            .add_joint(JointDef::weld(light, heavy, Vec2::new(1.0, 0.0)))
            .unwrap(),
    ];
    let mut opening = 0.0f32;
    for _ in 0..600 {
        world.step(DT).unwrap();
        for &w in &welds {
            let (a, b) = world.joint_anchors(w).unwrap();
            opening = opening.max((b - a).length());
        }
    }
    let drop = -world.position(heavy).unwrap().y;
    let tilt = world.rotation(heavy).unwrap().angle();
    println!("wall -> 1 kg -> 100 kg weld: opens {opening:.5} m, heavy box drops {drop:.5} m, tilts {tilt:.5} rad");
    assert!(opening < 5e-4, "a weld opens {opening} m");
    assert!(drop.abs() < 0.005, "the heavy box drops {drop} m");
}

/// What [`heavy_on_column`] measures after 600 steps.
struct HeavyOnColumn {
    /// The heavy box's height below its resting height.
    sink: f32,
    /// The largest speed of any body now, and the largest seen in any step.
    fastest: f32,
    worst: f32,
    /// The ground's push on the bodies (the normal impulses of the last substep over its
    /// length), and the weight of all the bodies.
    support: f32,
    weight: f32,
}

/// A column of twenty 1 kg unit boxes under a 1000 kg one, with `loose` 1 kg boxes on the ground
/// touching the column's base (half on each side), after 600 steps.
fn heavy_on_column(loose: usize) -> HeavyOnColumn {
    let mut world = world();
    let floor = ground(&mut world);
    for i in 0..20 {
        block(&mut world, Vec2::new(0.0, 0.5 + i as f32), 0.5, 0.5, 1.0);
    }
    let heavy = block(&mut world, Vec2::new(0.0, 20.5), 0.5, 0.5, 1000.0);
    for k in 0..loose {
        let side = if k % 2 == 0 { 1.0 } else { -1.0 };
        let x = side * (1.0 + (k / 2) as f32);
        block(&mut world, Vec2::new(x, 0.5), 0.5, 0.5, 1.0);
    }
    let mut worst = 0.0f32;
    for _ in 0..600 {
        world.step(DT).unwrap();
        worst = worst.max(fastest(&world));
    }
    let substep = DT / world.settings().substeps as f32;
    let support: f32 = world
        .contacts()
        .filter(|c| c.a == floor || c.b == floor)
        .map(|c| c.points().iter().map(|p| p.normal_impulse).sum::<f32>())
        .sum::<f32>()
        / substep;
    HeavyOnColumn {
        sink: 20.5 - world.position(heavy).unwrap().y,
        fastest: fastest(&world),
        worst,
        support,
        weight: (20.0 + 1000.0 + loose as f32) * G,
    }
}

/// A bound that catches a heavy box on a column crushing it again, in islands past the size
/// the exact solve took when issue 57 was filed (24 bodies; then the heavy box sank to the
/// ground and light boxes flew at 91 m/s with 4 neighbours, 93 m/s with 10): nothing flung
/// faster than free fall from the column's top (20.5 m/s), the heavy box not through the
/// ground.
#[test]
fn a_heavy_box_on_a_light_column_with_neighbours_flings_nothing() {
    for loose in [4, 10] {
        let m = heavy_on_column(loose);
        println!(
            "1000 kg on 20 x 1 kg, {loose} neighbours: sinks {:.4} m, fastest now {:.4} m/s, fastest seen {:.4} m/s, ground pushes {:.1} N for {:.1} N of weight",
            m.sink, m.fastest, m.worst, m.support, m.weight
        );
        let free_fall = (2.0 * G * 20.5f32).sqrt();
        assert!(
            m.worst < free_fall,
            "{loose} neighbours: a body flew at {} m/s",
            m.worst
        );
        assert!(
            m.sink < 20.05,
            "{loose} neighbours: the heavy box sank {} m",
            m.sink
        );
    }
}

/// Issue 57 item 1's target: the heavy box within 1 cm of its resting height and nothing faster
/// than 0.1 m/s, with 4 and with 10 neighbours (islands of 25 and 31 bodies), and the column
/// in static equilibrium: the ground pushes up with the weight of every body.
#[test]
fn a_heavy_box_on_a_light_column_with_neighbours_rests_at_its_height() {
    for loose in [4, 10] {
        let m = heavy_on_column(loose);
        assert!(
            m.sink.abs() < 0.01,
            "{loose} neighbours: sinks {} m",
            m.sink
        );
        assert!(
            m.fastest < 0.1,
            "{loose} neighbours: a body moves at {} m/s",
            m.fastest
        );
        assert!(
            (m.support - m.weight).abs() < 0.01 * m.weight,
            "{loose} neighbours: the ground pushes {} N for {} N of weight",
            m.support,
            m.weight
        );
    }
}

/// A column of `n` unit boxes alternating 1 kg and 100 kg, lightest at the bottom: the top's
/// centre after 600 steps (law: `n - 0.5` m).
fn alternating_column(n: usize) -> f32 {
    let mut world = world();
    ground(&mut world);
    let mut top = None;
    for i in 0..n {
        let mass = if i % 2 == 0 { 1.0 } else { 100.0 };
        top = Some(block(
            &mut world,
            Vec2::new(0.0, 0.5 + i as f32),
            0.5,
            0.5,
            mass,
        ));
    }
    for _ in 0..600 {
        world.step(DT).unwrap();
    }
    world.position(top.unwrap()).unwrap().y
}

/// Issue 57 item 1's target: the top of the alternating column of 50 within 1 cm of 49.5 m
/// (when the issue was filed, past the exact solve's 24 bodies, it sat at 31.6 m).
#[test]
fn an_alternating_column_of_fifty_stands_at_its_height() {
    let top = alternating_column(50);
    println!("alternating column of 50: top at {top:.4} m (law 49.5 m)");
    assert!((top - 49.5).abs() < 0.01, "the top is at {top} m");
}

/// Several joint trees beside contacts and soft joints: a chain swinging into a pile of boxes,
/// a welded beam, a hinged pair with a motor. The same bits for both backends and any
/// thread count.
fn jointed_scene(backend: Backend, threads: usize) -> Vec<u32> {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::new(0.0, -G),
        backend,
        threads,
        ..WorldSettings::default()
    });
    ground(&mut world);
    for i in 0..12 {
        let x = 3.0 + 1.05 * (i % 4) as f32;
        block(
            &mut world,
            Vec2::new(x, 0.5 + (i / 4) as f32),
            0.5,
            0.5,
            1.0,
        );
    }
    let pin = anchor(&mut world, Vec2::new(0.0, 8.0));
    let mut above = pin;
    for i in 0..10 {
        let link = block(
            &mut world,
            Vec2::new(-0.5 * i as f32 - 0.25, 8.0),
            0.25,
            0.05,
            1.0,
        );
        let hinge = Vec2::new(-0.5 * i as f32, 8.0);
        world
            .add_joint(JointDef::revolute(above, link, hinge))
            .unwrap();
        above = link;
    }
    let wall = anchor(&mut world, Vec2::new(-10.0, 3.0));
    let mut previous = wall;
    for i in 0..5 {
        let b = block(&mut world, Vec2::new(-9.5 + i as f32, 3.0), 0.5, 0.1, 1.0);
        let at = Vec2::new(-10.0 + i as f32, 3.0);
        world.add_joint(JointDef::weld(previous, b, at)).unwrap();
        previous = b;
    }
    let a = block(&mut world, Vec2::new(8.0, 2.0), 0.5, 0.5, 1.0);
    let b = block(&mut world, Vec2::new(9.0, 2.0), 0.5, 0.5, 1.0);
    let motor = JointDef::revolute(a, b, Vec2::new(8.5, 2.0)).motor(2.0, 50.0);
    world.add_joint(motor).unwrap();
    for _ in 0..240 {
        world.step(DT).unwrap();
    }
    common::body_state_bits(&world)
}

#[test]
fn joint_trees_give_the_same_bits_for_both_backends_and_any_thread_count() {
    let one = jointed_scene(Backend::Scalar, 1);
    assert_eq!(one, jointed_scene(Backend::Simd, 1), "scalar vs simd");
    for threads in [2, 3, 8] {
        assert_eq!(
            one,
            jointed_scene(Backend::Simd, threads),
            "{threads} threads"
        );
    }
}

/// A chain whose joints are made from its free end up to its pin: the same law as the chain
/// made from the pin down (no stretch, the top joint holds the whole weight).
#[test]
fn a_chain_joined_from_its_free_end_up_holds_as_rigidly() {
    let mut world = world();
    let top = Vec2::new(0.0, 50.0);
    let pin = anchor(&mut world, top + Vec2::new(0.0, 0.1));
    let links: Vec<BodyId> = (0..20)
        .map(|i| {
            let y = top.y - 0.5 * (i as f32 + 0.5);
            block(&mut world, Vec2::new(0.0, y), 0.05, 0.25, 1.0)
        })
        .collect();
    let load = block(&mut world, Vec2::new(0.0, top.y - 10.5), 0.5, 0.5, 50.0);
    let hinge = |i: usize| Vec2::new(0.0, top.y - 0.5 * i as f32);
    world
        .add_joint(JointDef::revolute(links[19], load, hinge(20)))
        .unwrap();
    for i in (1..20).rev() {
        world
            .add_joint(JointDef::revolute(links[i - 1], links[i], hinge(i)))
            .unwrap();
    }
    let top_joint = world
        .add_joint(JointDef::revolute(pin, links[0], top))
        .unwrap();
    // A sideways push sets it swinging.
    world
        .set_linear_velocity(load, Vec2::new(3.0, 0.0))
        .unwrap();
    let mut max_stretch = 0.0f32;
    for _ in 0..300 {
        world.step(DT).unwrap();
        let end = world.transform(load).unwrap().apply(Vec2::new(0.0, 0.5));
        max_stretch = max_stretch.max((end - top).length() / 10.0 - 1.0);
    }
    println!(
        "chain joined from its end: max stretch {:.5}%",
        100.0 * max_stretch
    );
    assert!(max_stretch < 0.002, "stretched {max_stretch}");
    let force = world.joint_reaction_force(top_joint).unwrap().length();
    assert!(force > 0.5 * 70.0 * G, "the top joint holds {force} N");
}

/// What [`slab_on_boxes`] measures over 300 steps.
struct SlabOnBoxes {
    /// The slab's height below its resting height now, and the most seen in any step.
    sink: f32,
    worst_sink: f32,
    /// The largest speed of any body seen in any step.
    worst_speed: f32,
}

/// A 1 m thick slab of 100 kg per column laid on a wall of 0.5 m boxes of 1 kg, `wide` side by
/// side and `high` on top of each other (the slab as wide as the wall), over 300 steps. Boxes
/// side by side give the island many redundant rows: the exact solve's pivoting may not settle.
fn slab_on_boxes(wide: usize, high: usize) -> SlabOnBoxes {
    let mut world = world();
    ground(&mut world);
    let width = 0.5 * wide as f32;
    for row in 0..high {
        for column in 0..wide {
            let x = 0.5 * column as f32 + 0.25 - 0.5 * width;
            block(
                &mut world,
                Vec2::new(x, 0.25 + 0.5 * row as f32),
                0.25,
                0.25,
                1.0,
            );
        }
    }
    let rest = 0.5 * high as f32 + 0.5;
    let slab = block(
        &mut world,
        Vec2::new(0.0, rest),
        0.5 * width,
        0.5,
        100.0 * wide as f32,
    );
    let (mut sink, mut worst_sink, mut worst_speed) = (0.0f32, 0.0f32, 0.0f32);
    for _ in 0..300 {
        world.step(DT).unwrap();
        sink = rest - world.position(slab).unwrap().y;
        worst_sink = worst_sink.max(sink);
        worst_speed = worst_speed.max(fastest(&world));
    }
    SlabOnBoxes {
        sink,
        worst_sink,
        worst_speed,
    }
}

/// A heavy slab on boxes side by side stands (the soft solve crushes 2 x 10 to the ground):
/// it sinks no more than the overlap the slop holds at every contact below it, and nothing
/// moves faster than 1 m/s, also where the exact solve does not settle on the pile's redundant
/// rows and gives up.
#[test]
fn a_heavy_slab_on_boxes_side_by_side_stands() {
    let slop = WorldSettings::default().linear_slop;
    for (wide, high) in [(2, 10), (2, 14), (3, 6)] {
        let m = slab_on_boxes(wide, high);
        println!(
            "slab of {} kg on {wide} x {high} boxes of 1 kg: sinks {:.4} m (worst {:.4} m), fastest seen {:.4} m/s",
            100 * wide,
            m.sink,
            m.worst_sink,
            m.worst_speed
        );
        let bound = (high + 1) as f32 * slop;
        assert!(
            m.worst_sink < bound,
            "{wide} x {high}: sinks {} m (bound {bound} m)",
            m.worst_sink
        );
        assert!(
            m.worst_speed < 1.0,
            "{wide} x {high}: a body moved at {} m/s",
            m.worst_speed
        );
    }
}

/// What [`slab_on_wall`] measures.
struct SlabOnWall {
    /// The largest distance of any body (boxes and slab) from its resting height, now.
    worst_height: f32,
    /// The slab's height below its resting height now.
    sink: f32,
    /// The largest speed of any body now, and the largest seen in any step.
    fastest: f32,
    worst_speed: f32,
}

/// A 1 m thick slab of `slab_mass` kg laid on a wall of boxes of side `size` and 1 kg, `wide`
/// side by side and `high` on top of each other (the slab as wide as the wall), after `steps`
/// steps. At rest each box's centre is `size (row + 1/2)` high and the slab's `size high + 1/2`.
fn slab_on_wall(wide: usize, high: usize, size: f32, slab_mass: f32, steps: usize) -> SlabOnWall {
    let mut world = world();
    build_slab_on_wall(&mut world, wide, high, size, slab_mass);
    let rest: Vec<(BodyId, f32)> = world
        .bodies()
        .map(|b| (b, world.position(b).unwrap().y))
        .collect();
    let (slab, top) = *rest.last().unwrap();
    let mut worst_speed = 0.0f32;
    for _ in 0..steps {
        world.step(DT).unwrap();
        worst_speed = worst_speed.max(fastest(&world));
    }
    let worst_height = rest
        .iter()
        .map(|&(b, y)| (world.position(b).unwrap().y - y).abs())
        .fold(0.0, f32::max);
    SlabOnWall {
        worst_height,
        sink: top - world.position(slab).unwrap().y,
        fastest: fastest(&world),
        worst_speed,
    }
}

/// The scene of [`slab_on_wall`], every body at its resting height, the slab last.
fn build_slab_on_wall(world: &mut World, wide: usize, high: usize, size: f32, slab_mass: f32) {
    common::ground_of(world, size * wide as f32 + 10.0);
    let width = size * wide as f32;
    for row in 0..high {
        for column in 0..wide {
            let x = size * (column as f32 + 0.5) - 0.5 * width;
            let y = size * (row as f32 + 0.5);
            block(world, Vec2::new(x, y), 0.5 * size, 0.5 * size, 1.0);
        }
    }
    let top = size * high as f32 + 0.5;
    block(world, Vec2::new(0.0, top), 0.5 * width, 0.5, slab_mass);
}

/// A slab on a wall past the exact solve (its layered sweeps), and one on two columns within
/// it (its proximal steps): the same bits for both backends and any thread count.
#[test]
fn a_slab_on_a_wall_gives_the_same_bits_for_both_backends_and_any_thread_count() {
    for (wide, high, size) in [(10, 8, 0.5), (2, 14, 1.0)] {
        let run = |backend, threads| {
            let mut world = World::new(WorldSettings {
                gravity: Vec2::new(0.0, -G),
                backend,
                threads,
                ..WorldSettings::default()
            });
            build_slab_on_wall(&mut world, wide, high, size, 1000.0);
            for _ in 0..60 {
                world.step(DT).unwrap();
            }
            common::body_state_bits(&world)
        };
        let one = run(Backend::Scalar, 1);
        assert_eq!(
            one,
            run(Backend::Simd, 1),
            "{wide} x {high}: scalar vs simd"
        );
        for threads in [2, 3] {
            let bits = run(Backend::Simd, threads);
            assert_eq!(one, bits, "{wide} x {high}: {threads} threads");
        }
    }
}

/// Prints and checks a slab on a wall against its law: every body at its resting height
/// within `tolerance`, none faster than `now` m/s at the end or than `fling` m/s in any step.
fn assert_slab_on_wall_stands(
    (wide, high, size, mass): (usize, usize, f32, f32),
    steps: usize,
    tolerance: f32,
    (now, fling): (f32, f32),
) {
    let m = slab_on_wall(wide, high, size, mass, steps);
    println!(
        "slab of {mass} kg on {wide} x {high} boxes of {size} m, {steps} steps: farthest from its resting height {:.4} m, slab sinks {:.4} m, fastest now {:.4} m/s, fastest seen {:.4} m/s",
        m.worst_height, m.sink, m.fastest, m.worst_speed
    );
    assert!(
        m.worst_height < tolerance,
        "a body is {} m from its resting height",
        m.worst_height
    );
    assert!(m.fastest < now, "a body moves at {} m/s", m.fastest);
    assert!(
        m.worst_speed < fling,
        "a body moved at {} m/s",
        m.worst_speed
    );
}

/// A 1000 kg slab on a wall of 0.5 m boxes of 1 kg, 10 wide and 8 high: 81 bodies, past the
/// exact solve, so the direct solver's layered sweeps hold it (the soft solve let the
/// slab sink 0.198 m in 600 steps). Issue 57's bounds: every body within 1 cm of its resting height and
/// slower than 0.1 m/s at the end, and nothing flung (faster than 1 m/s) on the way.
#[test]
fn a_heavy_slab_on_a_wall_past_the_exact_solve_stands() {
    assert_slab_on_wall_stands((10, 8, 0.5, 1000.0), 300, 0.01, (0.1, 1.0));
}

/// Issue 57 item 1's target: a 20 x 1 m slab of 4000 kg on a wall of 0.5 m boxes of 1 kg, 40
/// wide and 20 high (801 bodies, one island): after 600 steps every body within 1 cm of its
/// resting height and slower than 0.1 m/s. Met: the farthest body (the slab) is 3.7 mm low,
/// nothing moves faster than 0.0004 m/s at the end nor 0.16 m/s on the way, where the soft
/// solve crushed the wall (the slab 4.29 m down, boxes flung at 77 m/s). Slow (an 801-body
/// island solved by one worker, about 9 sweeps of its 3200 points per solve): run with
/// `cargo test --release --test physics rigid::a_heavy_slab_on_a_wide_wall -- --ignored --nocapture`.
#[test]
#[ignore]
fn a_heavy_slab_on_a_wide_wall_stands_at_its_height() {
    assert_slab_on_wall_stands((40, 20, 0.5, 4000.0), 600, 0.01, (0.1, 1.0));
}

/// A 1000 kg slab on 2 x 14 boxes of 1 m and 1 kg (29 bodies, solved exactly): every body within
/// the slop's overlap of its resting height, nothing flung. The two columns side by side make
/// the exact solve's rows redundant (each face two points, the slab's load shared by the
/// columns in any proportion); its pivoting stalled on them and it fell back to relaxing, so
/// the wall sank and shed boxes at up to 96 m/s, until the exact solve's proximal steps.
#[test]
fn a_heavy_slab_on_two_columns_of_one_metre_boxes_stands() {
    let slop = WorldSettings::default().linear_slop;
    assert_slab_on_wall_stands((2, 14, 1.0, 1000.0), 600, 15.0 * slop, (0.1, 1.0));
}

/// Ten tonnes on the two columns of [`a_heavy_slab_on_two_columns_of_one_metre_boxes_stands`]:
/// a ratio of 10000 to 1 through the same redundant rows (before the proximal steps the
/// columns were crushed, bodies flung at 103 m/s).
#[test]
fn a_ten_tonne_slab_on_two_columns_of_one_metre_boxes_stands() {
    let slop = WorldSettings::default().linear_slop;
    assert_slab_on_wall_stands((2, 14, 1.0, 10000.0), 600, 15.0 * slop, (0.1, 1.0));
}

/// Issue 57's bounds for tall, thin columns under a slab: after 600 steps every box within 1 cm
/// of its resting height, none faster than 0.1 m/s at the end, nor than 1 m/s on the way.
fn assert_tall_columns_stand(wide: usize, high: usize, size: f32, slab_mass: f32) {
    assert_slab_on_wall_stands((wide, high, size, slab_mass), 600, 0.01, (0.1, 1.0));
}

/// A 1000 kg slab on two columns of twenty 1 m boxes of 1 kg: 41 bodies, but 162 to 200
/// contact points (each face two, and the columns touch side by side and corner to corner),
/// past the exact solve's 128 points when it was bounded by points. The layered sweeps that held
/// it then let it settle 1.86 cm low while they converged; solved exactly (its envelope is
/// narrow), it stands within 0.1 mm.
#[test]
fn a_slab_on_two_columns_of_twenty_boxes_stands_at_its_height() {
    assert_tall_columns_stand(2, 20, 1.0, 1000.0);
}

/// Three columns of ten 1 m boxes under a 1000 kg slab (31 bodies, 142 to 163 points): 0.64 cm
/// low by the layered sweeps, within 0.1 mm solved exactly.
#[test]
fn a_slab_on_three_columns_of_ten_boxes_stands_at_its_height() {
    assert_tall_columns_stand(3, 10, 1.0, 1000.0);
}

/// Three columns of twelve 0.5 m boxes under a 4000 kg slab (37 bodies, 170 to 214 points): 3.00 cm
/// low by the layered sweeps, within 0.1 mm solved exactly.
#[test]
fn a_four_tonne_slab_on_three_columns_of_half_metre_boxes_stands_at_its_height() {
    assert_tall_columns_stand(3, 12, 0.5, 4000.0);
}

/// Two columns of thirty 1 m boxes under a 1000 kg slab (61 bodies, 242 to 300 points): 2.81 cm
/// low by the layered sweeps, within 0.1 mm solved exactly.
#[test]
fn a_slab_on_two_columns_of_thirty_boxes_stands_at_its_height() {
    assert_tall_columns_stand(2, 30, 1.0, 1000.0);
}

/// Three columns of twenty 0.5 m boxes under a 4000 kg slab (61 bodies): the layered sweeps let
/// the columns buckle and the slab fall 8.5 m, bodies flung at 18.6 m/s; solved exactly, it
/// stands within 0.1 mm.
#[test]
fn a_four_tonne_slab_on_three_columns_of_twenty_half_metre_boxes_stands_at_its_height() {
    assert_tall_columns_stand(3, 20, 0.5, 4000.0);
}

/// Five columns of twelve 0.5 m boxes under a 4000 kg slab (61 bodies, 314 points): a pile
/// whose exact solve's pivoting, after a block flip that overshot, needed more single flips
/// than a stall allows; giving up, it relaxed step after step and the pile sank 2.25 cm and slid
/// at 0.1 m/s (the layered sweeps left it 1.84 cm low). Slow (a wide pile's exact solve, about
/// three times the layered sweeps' cost): run with
/// `cargo test --release --test physics rigid::a_four_tonne_slab_on_five_columns -- --ignored --nocapture`.
#[test]
#[ignore]
fn a_four_tonne_slab_on_five_columns_of_half_metre_boxes_stands_at_its_height() {
    assert_tall_columns_stand(5, 12, 0.5, 4000.0);
}

/// AVBD's stack ratio scene: boxes of side 1, 2, 4, 8, 16 and 32 m of equal density stacked on
/// the ground, the smallest at the bottom. Each box's centre after 600 steps, and its resting
/// height (the sides below it plus half its own).
fn stack_ratio() -> Vec<(f32, f32)> {
    let mut world = world();
    ground(&mut world);
    let mut boxes = Vec::new();
    let mut bottom = 0.0;
    for k in 0..6 {
        let side = (1 << k) as f32;
        let rest = bottom + 0.5 * side;
        let id = world
            .add_body(
                BodyDef::dynamic().position(Vec2::new(0.0, rest)),
                ShapeDef::new(Shape::rect(0.5 * side, 0.5 * side).unwrap()),
            )
            .unwrap();
        boxes.push((id, rest));
        bottom += side;
    }
    for _ in 0..600 {
        world.step(DT).unwrap();
    }
    boxes
        .iter()
        .map(|&(id, rest)| (world.position(id).unwrap().y, rest))
        .collect()
}

/// Issue 57 item 1's target: the stack ratio scene stands, each box within 1 cm of its
/// resting height (the box 32 times the bottom one's size weighs 32768 times as much).
/// Before the direct islands took islands by their whole mass range, no contact passed the
/// mass ratio (each box weighs four times the one below) and the top box sat 0.33 m low.
#[test]
fn the_stack_ratio_scene_stands_at_its_heights() {
    let boxes = stack_ratio();
    let worst = boxes
        .iter()
        .map(|(y, rest)| (y - rest).abs())
        .fold(0.0, f32::max);
    println!("stack ratio, 600 steps: heights {boxes:?}; worst {worst:.5} m");
    assert!(worst < 0.01, "a box is {worst} m from its resting height");
}

/// A 1 x 0.1 m bar of 1 kg hinged at one end to a fixed body, without gravity, turning at `w`
/// rad/s into the upper limit of a revolute joint whose limits are +-0.5 rad: how far past the
/// limit (rad) it ever is over `steps` steps.
fn limit_overshoot(w: f32, steps: usize) -> f32 {
    let mut world = World::new(WorldSettings::default());
    world.set_gravity(Vec2::ZERO).unwrap();
    let pivot = Vec2::ZERO;
    let base = anchor(&mut world, pivot);
    let bar = block(&mut world, Vec2::new(0.5, 0.0), 0.5, 0.05, 1.0);
    let hinge = world
        .add_joint(JointDef::revolute(base, bar, pivot).limits(-0.5, 0.5))
        .unwrap();
    // The bar turning rigidly about the pivot: its centre moves at w x r.
    world.set_angular_velocity(bar, w).unwrap();
    world
        .set_linear_velocity(bar, Vec2::new(0.0, 0.5 * w))
        .unwrap();
    let (mut worst, mut reached): (f32, f32) = (0.0, 0.0);
    for _ in 0..steps {
        world.step(DT).unwrap();
        let angle = world.joint_angle(hinge).unwrap();
        worst = worst.max(angle - 0.5).max(-0.5 - angle);
        reached = reached.max(angle.abs());
    }
    // The bar came to the limit: the measurement is of a hit.
    assert!(reached > 0.499, "the bar turned only {reached} rad");
    worst
}

/// Issue 57 item 2's target: a bar hinged to a fixed body and turning at 20, 40 and -40 rad/s
/// into a revolute limit passes it by under 0.5 degree over two seconds of hitting it. The
/// soft joint passes let it through by 0.28 and 1.89 degrees at 20 and 40 rad/s: the
/// limit's impulse and the hinge's point impulse, solved apart, undid each other.
#[test]
fn a_revolute_limit_hit_at_forty_radians_a_second_is_passed_by_under_half_a_degree() {
    for w in [20.0, 40.0, -40.0] {
        let past = limit_overshoot(w, 120).to_degrees();
        println!("revolute limit hit at {w} rad/s: passed by {past:.4} degrees");
        assert!(
            past < 0.5,
            "at {w} rad/s the limit is passed by {past} degrees"
        );
    }
}

/// The 1 x 0.1 m bar of 1 kg hinged at its end to a free 0.5 x 0.5 m box of `heavy` kg, both
/// free and without gravity, the bar turning at `w` rad/s into the hinge's limits of +-0.5
/// rad, the box at rest; with `motor`, the hinge's motor `(speed, max torque)`; with
/// `box_turns` false, a box that cannot turn, which leaves the hinge to the soft joint passes
/// (the joint trees take only bodies that turn). Over `steps`
/// steps: how far past a limit (rad) the hinge ever is, and the most the pair's linear
/// momentum (kg m/s) ever changed, which the hinge, pushing one body against the other,
/// must keep; and the hinge's angle and relative turn (rad/s) at the end.
fn free_limit_overshoot(
    w: f32,
    heavy: f32,
    motor: Option<(f32, f32)>,
    box_turns: bool,
    steps: usize,
) -> (f32, f32, f32, f32) {
    let mut world = World::new(WorldSettings::default());
    world.set_gravity(Vec2::ZERO).unwrap();
    let pivot = Vec2::ZERO;
    let base = world
        .add_body(
            BodyDef::dynamic()
                .position(Vec2::new(-0.3, 0.0))
                .fixed_rotation(!box_turns),
            ShapeDef::new(Shape::rect(0.25, 0.25).unwrap()).density(heavy / 0.25),
        )
        .unwrap();
    let bar = block(&mut world, Vec2::new(0.5, 0.0), 0.5, 0.05, 1.0);
    let mut def = JointDef::revolute(base, bar, pivot).limits(-0.5, 0.5);
    if let Some((speed, max)) = motor {
        def = def.motor(speed, max);
    }
    let hinge = world.add_joint(def).unwrap();
    world.set_angular_velocity(bar, w).unwrap();
    world
        .set_linear_velocity(bar, Vec2::new(0.0, 0.5 * w))
        .unwrap();
    let momentum = |world: &World| {
        [base, bar].iter().fold(Vec2::ZERO, |p, &b| {
            p + world.linear_velocity(b).unwrap() * world.mass(b).unwrap()
        })
    };
    let p0 = momentum(&world);
    let (mut worst, mut dp, mut reached): (f32, f32, f32) = (0.0, 0.0, 0.0);
    for _ in 0..steps {
        world.step(DT).unwrap();
        let angle = world.joint_angle(hinge).unwrap();
        assert!(angle.is_finite(), "the hinge's angle is {angle}");
        worst = worst.max(angle - 0.5).max(-0.5 - angle);
        reached = reached.max(angle.abs());
        dp = dp.max((momentum(&world) - p0).length());
    }
    assert!(reached > 0.49, "the bar turned only {reached} rad");
    let turn = world.angular_velocity(bar).unwrap() - world.angular_velocity(base).unwrap();
    (worst, dp, world.joint_angle(hinge).unwrap(), turn)
}

/// The limit holds the same between two free bodies: a bar turning at 40 rad/s into its
/// hinge's limit on a free box of 1, 10 and 100 kg passes it by under 0.5 degree, and the
/// pair keeps its linear momentum (the limit's impulse is internal) to within 0.1% of the
/// bar's 20 kg m/s; in a joint tree (a box that turns) and in the soft joint passes (a box
/// that cannot), where the limit, solved apart from the hinge's point, once let the bar
/// through by 1.65 to 1.89 degrees.
#[test]
fn a_revolute_limit_between_free_bodies_holds_and_keeps_their_momentum() {
    for heavy in [1.0, 10.0, 100.0] {
        for box_turns in [true, false] {
            let (past, dp, _, _) = free_limit_overshoot(40.0, heavy, None, box_turns, 120);
            let past = past.to_degrees();
            println!("limit on a {heavy} kg box (turns: {box_turns}): passed by {past:.4} degrees; momentum off by {dp} kg m/s");
            assert!(
                past < 0.5,
                "on a {heavy} kg box the limit is passed by {past} degrees"
            );
            assert!(dp < 0.001 * 20.0, "linear momentum changed by {dp}");
        }
    }
}

/// A motor driving a hinged bar into its limit at 150 rad/s with far more torque than the
/// limit's impulse needs to stop it, on a fixed hinge and then reversed into the other limit,
/// and on a hinge to a free 10 kg box (that turns, or not: the joint tree or the soft
/// passes): the bar stays finite and within the limits (passing
/// them by under 0.5 degree), and comes to rest on the limit it is driven against, pressed
/// there but not turning against the other body (no gravity, nothing else acts); the free
/// pair keeps its linear momentum. Once, a limit and a motor solved together in the exact
/// solve of joint trees gave NaN.
#[test]
fn a_motor_driving_into_a_limit_at_speed_stays_finite_and_within_it() {
    // Fixed hinge: the bar starts at rest.
    let mut world = World::new(WorldSettings::default());
    world.set_gravity(Vec2::ZERO).unwrap();
    let base = anchor(&mut world, Vec2::ZERO);
    let bar = block(&mut world, Vec2::new(0.5, 0.0), 0.5, 0.05, 1.0);
    let hinge = world
        .add_joint(
            JointDef::revolute(base, bar, Vec2::ZERO)
                .limits(-0.5, 0.5)
                .motor(150.0, 1000.0),
        )
        .unwrap();
    for (speed, limit) in [(150.0, 0.5), (-150.0, -0.5)] {
        world.set_joint_motor(hinge, speed, 1000.0).unwrap();
        let mut worst: f32 = 0.0;
        for _ in 0..60 {
            world.step(DT).unwrap();
            let angle = world.joint_angle(hinge).unwrap();
            let w = world.angular_velocity(bar).unwrap();
            assert!(
                angle.is_finite() && w.is_finite(),
                "angle {angle}, turn {w}"
            );
            worst = worst.max(angle - 0.5).max(-0.5 - angle);
        }
        let (angle, w) = (
            world.joint_angle(hinge).unwrap(),
            world.angular_velocity(bar).unwrap(),
        );
        let past = worst.to_degrees();
        println!("motor at {speed} rad/s into the limit: passed by {past:.4} degrees, resting at {angle} turning at {w}");
        assert!(past < 0.5, "passed by {past} degrees");
        assert!(
            (angle - limit).abs() < 1e-3,
            "rests at {angle}, not at {limit}"
        );
        assert!(w.abs() < 1e-3, "still turns at {w} rad/s");
    }
    for (box_turns, max, rest) in [(true, 1000.0, 1e-3), (false, 1000.0, 1e-3)] {
        let motor = Some((150.0, max));
        let (past, dp, angle, turn) = free_limit_overshoot(0.0, 10.0, motor, box_turns, 120);
        let past = past.to_degrees();
        println!("motor of {max} N m on a free box (turns: {box_turns}): passed by {past:.4} degrees, momentum off by {dp}, ends at {angle} turning at {turn}");
        assert!(past < 0.5, "passed by {past} degrees");
        assert!(dp < 1e-3, "linear momentum changed by {dp}");
        assert!(
            (angle - 0.5).abs() < rest,
            "rests at {angle}, not at the limit"
        );
        assert!(
            turn.abs() < 1e-3,
            "still turns at {turn} rad/s against the box"
        );
    }
}

/// Steps `world`, whose `joint` a motor drives into its upper limit `limit`, 120 times: how
/// far past the limit `measure` ever finds the joint, how far at the end, and its `rate` of
/// motion at the end.
fn pressed_limit(
    world: &mut World,
    joint: JointId,
    limit: f32,
    measure: fn(&World, JointId) -> f32,
    rate: fn(&World, JointId) -> f32,
) -> (f32, f32, f32) {
    let mut worst: f32 = 0.0;
    for _ in 0..120 {
        world.step(DT).unwrap();
        let x = measure(world, joint);
        assert!(x.is_finite(), "the joint is at {x}");
        worst = worst.max(x - limit);
    }
    let end = measure(world, joint) - limit;
    (worst, end, rate(world, joint))
}

/// A motor pressing a limit in the soft joint passes holds the joint on its limit however
/// strong: a 1 x 0.1 m bar of 0.1, 1 and 10 kg hinged at its end to a free 0.5 m box of 1, 10
/// and 100 kg that cannot turn (which leaves the hinge to the soft passes), driven at 150
/// rad/s into the hinge's limit of 0.5 rad by 10 to 10,000 N m; and a block of 0.1 to 10 kg
/// on a slider from a fixed body, driven at 10 m/s into its limit of 0.5 m by 10 to 10,000
/// N. The hinge passes its limit by under 0.5 degree at any time, the slider by under 5 mm,
/// and both come to rest on the limit, within 0.01 degree and 0.1 mm. The limits are soft
/// (a spring as stiff as a contact against a fixed body) and the motor, held by them, once
/// pressed them past by its force over that stiffness: a 1000 N m motor held the 1 kg bar
/// 2.1 degrees past, 10,000 N m 21 degrees, and threw the 0.1 kg bar through its limit;
/// 10,000 N held the 0.1 kg block 0.31 m past.
#[test]
fn a_motor_pressing_a_limit_in_the_soft_passes_holds_it_at_the_limit() {
    let angle = |w: &World, j: JointId| w.joint_angle(j).unwrap();
    let turn = |w: &World, j: JointId| w.joint_speed(j).unwrap();
    let translation = |w: &World, j: JointId| w.joint_translation(j).unwrap();
    let (mut worst_hinge, mut worst_slider): (f32, f32) = (0.0, 0.0);
    for max in [10.0, 100.0, 1000.0, 10_000.0] {
        for mass in [0.1, 1.0, 10.0] {
            for heavy in [1.0, 10.0, 100.0] {
                let mut world = World::new(WorldSettings::default());
                world.set_gravity(Vec2::ZERO).unwrap();
                let base = world
                    .add_body(
                        BodyDef::dynamic()
                            .position(Vec2::new(-0.3, 0.0))
                            .fixed_rotation(true),
                        ShapeDef::new(Shape::rect(0.25, 0.25).unwrap()).density(heavy / 0.25),
                    )
                    .unwrap();
                let bar = block(&mut world, Vec2::new(0.5, 0.0), 0.5, 0.05, mass);
                let def = JointDef::revolute(base, bar, Vec2::ZERO)
                    .limits(-0.5, 0.5)
                    .motor(150.0, max);
                let hinge = world.add_joint(def).unwrap();
                let (worst, end, w) = pressed_limit(&mut world, hinge, 0.5, angle, turn);
                let (worst, end) = (worst.to_degrees(), end.to_degrees());
                println!("hinge: {max} N m, bar {mass} kg on a box of {heavy} kg: passed by {worst:.4} degrees, ends {end:.5} past, turning at {w}");
                assert!(
                    worst < 0.5,
                    "{max} N m on a {mass} kg bar passes the limit by {worst} degrees"
                );
                assert!(
                    end.abs() < 0.01,
                    "{max} N m on a {mass} kg bar rests {end} degrees past"
                );
                assert!(w.abs() < 1e-3, "the bar still turns at {w} rad/s");
                worst_hinge = worst_hinge.max(worst);
            }
            let mut world = World::new(WorldSettings::default());
            world.set_gravity(Vec2::ZERO).unwrap();
            let base = anchor(&mut world, Vec2::ZERO);
            let slider = block(&mut world, Vec2::ZERO, 0.1, 0.1, mass);
            let def = JointDef::prismatic(base, slider, Vec2::ZERO, Vec2::new(1.0, 0.0))
                .limits(-0.5, 0.5)
                .motor(10.0, max);
            let joint = world.add_joint(def).unwrap();
            let speed = |w: &World, j: JointId| w.joint_speed(j).unwrap();
            let (worst, end, v) = pressed_limit(&mut world, joint, 0.5, translation, speed);
            println!("slider: {max} N, block {mass} kg: passed by {worst:.6} m, ends {end:.7} m past, moving at {v}");
            assert!(
                worst < 0.005,
                "{max} N on a {mass} kg block passes the limit by {worst} m"
            );
            assert!(
                end.abs() < 1e-4,
                "{max} N on a {mass} kg block rests {end} m past"
            );
            assert!(v.abs() < 1e-3, "the block still moves at {v} m/s");
            worst_slider = worst_slider.max(worst);
        }
    }
    println!("worst: hinge {worst_hinge:.4} degrees, slider {worst_slider:.6} m past");
}

/// A chain of ten 1 x 0.1 m links of 1 kg, each hinged to the one before (the first to a fixed
/// body) with limits of +-0.3 rad and a motor of 2 N m driving it, by turns, at +5 and -5 rad/s,
/// let fall under gravity from level: over 10 s no hinge passes its limits by more than 0.01
/// degree, though several press on them at once and each correction moves the others. The
/// position projection once let go of a limit that another's correction then pushed past
/// again: 0.57 degrees.
#[test]
fn a_falling_chain_of_limited_hinges_stays_within_its_limits() {
    let mut world = world();
    let mut prev = anchor(&mut world, Vec2::ZERO);
    let mut hinges = vec![];
    for k in 0..10 {
        let link = block(&mut world, Vec2::new(0.5 + k as f32, 0.0), 0.5, 0.05, 1.0);
        let speed = if k % 2 == 0 { 5.0 } else { -5.0 };
        let def = JointDef::revolute(prev, link, Vec2::new(k as f32, 0.0))
            .limits(-0.3, 0.3)
            .motor(speed, 2.0);
        hinges.push(world.add_joint(def).unwrap());
        prev = link;
    }
    let mut worst: f32 = 0.0;
    for _ in 0..600 {
        world.step(DT).unwrap();
        for &hinge in &hinges {
            let angle = world.joint_angle(hinge).unwrap();
            assert!(angle.is_finite(), "a hinge's angle is {angle}");
            worst = worst.max(angle - 0.3).max(-0.3 - angle);
        }
    }
    let past = worst.to_degrees();
    println!("falling chain of limited hinges: passed by {past:.4} degrees");
    assert!(past < 0.01, "a limit is passed by {past} degrees");
}

/// A double pendulum of two 1 x 0.1 m rods of 1 kg, hinged end to end from a fixed pivot at
/// the origin, let go with the upper rod at `a1` and the lower at `a2` from straight down:
/// its energy (kinetic, rotational included, and potential) above the hanging rest, at the
/// start and every step after, for `steps` steps of `substeps` substeps.
///
/// With `shadow`, the energy that symplectic Euler keeps instead: the positions move with
/// the velocity that the substep's kick of gravity has already changed, so the velocity a
/// step ends with is half a kick ahead of them, and the energy kept is the total less `h/2`
/// times gravity's power, `-(h/2) m g . v` summed over the bodies (`h` the substep).
fn double_pendulum(a1: f32, a2: f32, steps: usize, substeps: u32, shadow: bool) -> Vec<f32> {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::new(0.0, -G),
        substeps,
        ..WorldSettings::default()
    });
    let pivot = Vec2::ZERO;
    // A sensor: the lower rod whirling over the top passes the pivot freely, as an ideal
    // pivot lets it (a solid one took 14% of the energy in one hit).
    let base = world
        .add_body(
            BodyDef::fixed().position(pivot),
            ShapeDef::new(Shape::rect(0.1, 0.1).unwrap()).sensor(true),
        )
        .unwrap();
    let (hw, hh, m) = (0.5, 0.05, 1.0);
    let down = |a: f32| Vec2::new(a.sin(), -a.cos());
    let elbow = pivot + down(a1);
    // A rod's length lies along its local x axis: turned by its angle from straight down,
    // less a quarter turn.
    let mut rod = |centre: Vec2, a: f32| {
        world
            .add_body(
                BodyDef::dynamic()
                    .position(centre)
                    .angle(a - std::f32::consts::FRAC_PI_2),
                ShapeDef::new(Shape::rect(hw, hh).unwrap()).density(m / (4.0 * hw * hh)),
            )
            .unwrap()
    };
    let upper = rod(pivot + down(a1) * 0.5, a1);
    let lower = rod(elbow + down(a2) * 0.5, a2);
    world
        .add_joint(JointDef::revolute(base, upper, pivot))
        .unwrap();
    world
        .add_joint(JointDef::revolute(upper, lower, elbow))
        .unwrap();
    let inertia = m * ((2.0 * hw) * (2.0 * hw) + (2.0 * hh) * (2.0 * hh)) / 12.0;
    // Hanging straight down, the centres are 0.5 m and 1.5 m below the pivot.
    let rest = m * G * (-0.5 - 1.5);
    let energy = |world: &World| -> f32 {
        [upper, lower]
            .iter()
            .map(|&id| {
                let v = world.linear_velocity(id).unwrap();
                let w = world.angular_velocity(id).unwrap();
                let y = world.position(id).unwrap().y;
                let ahead = match shadow {
                    true => -0.5 * (DT / substeps as f32) * m * G * v.y,
                    false => 0.0,
                };
                0.5 * m * v.dot(v) + 0.5 * inertia * w * w + m * G * y + ahead
            })
            .sum::<f32>()
            - rest
    };
    let mut energies = vec![energy(&world)];
    for _ in 0..steps {
        world.step(DT).unwrap();
        energies.push(energy(&world));
    }
    energies
}

/// The largest departure of a double pendulum's energy (or, with `shadow`, of the energy
/// that symplectic Euler keeps) from its start over 10 s, as a fraction, and its change at
/// the end, printed.
fn pendulum_energy_error(a1: f32, a2: f32, substeps: u32, shadow: bool) -> f32 {
    let energies = double_pendulum(a1, a2, 600, substeps, shadow);
    let start = energies[0];
    let worst = energies
        .iter()
        .map(|e| (e - start).abs() / start)
        .fold(0.0, f32::max);
    let end = energies[energies.len() - 1] / start - 1.0;
    println!(
        "double pendulum let go at {a1}, {a2} rad, {substeps} substeps (shadow energy: {shadow}): energy {start:.3} J, at 10 s {:+.3}%, worst {:.3}%",
        100.0 * end,
        100.0 * worst
    );
    worst
}

/// The launch angles of the double pendulums: one swinging, one whirling over its pivot.
const LAUNCHES: [(f32, f32); 2] = [(1.2, 0.0), (std::f32::consts::FRAC_PI_2, 2.5)];

/// Issue 57 item 2's target: a double pendulum with no damping keeps its energy within 0.5%
/// over 10 s. Not met: the energy no longer drifts (it lost 38% when the joints shortened
/// the velocities that the motion turned), but it swings by up to 0.73% at the default 4
/// substeps (`--ignored` to measure): the velocity a step ends with is half a substep's kick
/// of gravity ahead of the positions (symplectic Euler), and the energy that the step keeps
/// is the shadow one, which the joint trees keep to 0.011% (the next test). Reporting
/// velocities level with the positions needs the kick split in two halves, one on each side
/// of the position update (velocity Verlet), for every body.
#[test]
#[ignore = "not met: the energy swings by up to 0.73% at 4 substeps, without drift"]
fn a_double_pendulum_keeps_its_energy() {
    for (a1, a2) in LAUNCHES {
        let worst = pendulum_energy_error(a1, a2, 4, false);
        assert!(worst < 0.005, "the energy strays by {}%", 100.0 * worst);
    }
}

/// The joint trees take no energy from an undamped double pendulum: what error is left is
/// the first-order one of symplectic Euler, which swings the energy without drift and halves
/// with the substep. At the default 4 substeps it stays within 1% over 10 s, and at 8 within
/// 60% of that; and the shadow energy that symplectic Euler keeps (see [`double_pendulum`])
/// stays within 0.05% (0.011% measured) at 4 substeps.
#[test]
fn a_double_pendulum_keeps_its_energy_to_first_order_in_the_substep() {
    for (a1, a2) in LAUNCHES {
        let coarse = pendulum_energy_error(a1, a2, 4, false);
        let fine = pendulum_energy_error(a1, a2, 8, false);
        assert!(coarse < 0.01, "the energy strays by {}%", 100.0 * coarse);
        assert!(
            fine < 0.6 * coarse,
            "with half the substep the energy strays by {}%, at the default {}%",
            100.0 * fine,
            100.0 * coarse
        );
        let shadow = pendulum_energy_error(a1, a2, 4, true);
        assert!(
            shadow < 0.0005,
            "the shadow energy strays by {}%",
            100.0 * shadow
        );
    }
}
