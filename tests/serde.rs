//! The `serde` feature (`cargo test --release --features serde --test serde`): a world's
//! definitions and settings through JSON give the same world, shapes come back bit for bit, a
//! snapshot through JSON continues bit for bit, and bad input is an error, never a panic.

mod common;

use batch2d::{
    BodyDef, BodyId, JointDef, MixRule, Shape, ShapeDef, Snapshot, Vec2, World, WorldSettings,
};
use common::state_bits;

const DT: f32 = 1.0 / 60.0;

/// Bodies as a level file would hold them: each body's definition and its shapes.
type Bodies = Vec<(BodyDef, Vec<ShapeDef>)>;

fn settings() -> WorldSettings {
    WorldSettings {
        gravity: Vec2::new(0.5, -9.5),
        substeps: 3,
        threads: 2,
        enable_sleep: true,
        friction_mixing: MixRule::Max,
        hit_event_threshold: 0.25,
        ..WorldSettings::default()
    }
}

/// Shapes of every kind, each made by its checked constructor (a rotated box's normals are
/// rotated ones, not its edges' own, so only an exact format gives them back bit for bit).
fn every_shape() -> Vec<Shape> {
    let p = Vec2::new;
    vec![
        Shape::circle(0.3).unwrap(),
        Shape::circle_at(p(0.1, -0.2), 0.25).unwrap(),
        Shape::rect(0.4, 0.2).unwrap(),
        Shape::offset_rect(0.3, 0.1, p(0.2, 0.1), 0.7).unwrap(),
        Shape::polygon(&[p(0.0, 0.0), p(0.6, 0.1), p(0.5, 0.5), p(-0.1, 0.4)]).unwrap(),
        Shape::rounded_polygon(&[p(-0.2, -0.2), p(0.3, -0.1), p(0.0, 0.3)], 0.05).unwrap(),
        Shape::capsule(p(-0.3, 0.0), p(0.3, 0.1), 0.15).unwrap(),
    ]
}

/// A small level: ground of segments and a chain, a compound body, a body of each shape, and
/// the bodies the joints hang on.
fn level() -> Bodies {
    let p = Vec2::new;
    let ground = BodyDef::fixed().position(p(0.0, -1.0));
    let chain = [
        p(-8.0, 0.0),
        p(-4.0, -0.5),
        p(0.0, 0.0),
        p(4.0, 0.5),
        p(8.0, 0.0),
    ];
    let mut ground_shapes = vec![ShapeDef::new(
        Shape::segment(p(-9.0, 2.0), p(-8.0, 0.0)).unwrap(),
    )];
    for i in 0..chain.len() - 1 {
        let prev = i.checked_sub(1).map(|j| chain[j]);
        let next = chain.get(i + 2).copied();
        let segment = Shape::chain_segment(prev, chain[i], chain[i + 1], next).unwrap();
        ground_shapes.push(ShapeDef::new(segment).friction(0.8));
    }
    let mut bodies = vec![(ground, ground_shapes)];
    for (i, shape) in every_shape().into_iter().enumerate() {
        let def = BodyDef::dynamic()
            .position(p(-6.0 + 1.5 * i as f32, 1.0 + 0.2 * i as f32))
            .angle(0.1 * i as f32)
            .linear_velocity(p(0.5, 0.0))
            .user_data(100 + i as u64);
        let material = ShapeDef::new(shape)
            .density(1.0 + i as f32)
            .restitution(0.1)
            .layers(1 | 2)
            .group(-(i as i32));
        bodies.push((def, vec![material]));
    }
    let compound = vec![
        ShapeDef::new(Shape::offset_rect(0.5, 0.1, p(0.0, 0.0), 0.0).unwrap()),
        ShapeDef::new(Shape::circle_at(p(0.5, 0.2), 0.2).unwrap()).density(3.0),
        ShapeDef::new(Shape::circle_at(p(0.0, 0.5), 0.3).unwrap()).sensor(true),
    ];
    bodies.push((
        BodyDef::dynamic().position(p(3.0, 3.0)).bullet(true),
        compound,
    ));
    bodies
}

fn build(settings: &WorldSettings, bodies: &Bodies) -> (World, Vec<BodyId>) {
    let mut world = World::new(settings.clone());
    let ids = bodies
        .iter()
        .map(|(def, shapes)| world.add_compound_body(def.clone(), shapes).unwrap())
        .collect();
    (world, ids)
}

/// A joint of every kind between the level's bodies.
fn joints(ids: &[BodyId]) -> Vec<JointDef> {
    let p = Vec2::new;
    vec![
        JointDef::revolute(ids[0], ids[1], p(-6.0, 1.5))
            .limits(-0.5, 0.5)
            .motor(1.0, 5.0),
        JointDef::distance(ids[1], ids[2], p(-6.0, 1.0), p(-4.5, 1.2))
            .spring(3.0, 0.2)
            .length_range(0.5, 2.5)
            .motor(-0.5, 10.0),
        JointDef::prismatic(ids[0], ids[3], p(-3.0, 1.4), p(1.0, 0.2)).spring(2.0, 0.5),
        JointDef::weld(ids[3], ids[4], p(-2.0, 1.5)).break_force(500.0),
        JointDef::wheel(ids[4], ids[5], p(0.0, 1.8), p(0.0, 1.0))
            .spring(4.0, 0.7)
            .motor(2.0, 20.0),
        JointDef::mouse(ids[6], p(3.0, 2.4)).max_force(50.0),
        JointDef::motor_joint(ids[0], ids[7])
            .max_force(100.0)
            .max_torque(10.0)
            .correction_factor(0.2)
            .collide_connected(true),
    ]
}

#[test]
fn a_worlds_definitions_round_trip_through_json() {
    let (settings, bodies) = (settings(), level());
    let (mut original, ids) = build(&settings, &bodies);
    let joints = joints(&ids);
    let json = serde_json::to_string_pretty(&(&settings, &bodies, &joints)).unwrap();
    let (settings_back, bodies_back, joints_back): (WorldSettings, Bodies, Vec<JointDef>) =
        serde_json::from_str(&json).unwrap();
    assert_eq!(settings_back, settings);
    assert_eq!(bodies_back, bodies);
    assert_eq!(joints_back, joints);

    // A world made from the definitions read back is the same world: it steps to the same bits.
    let (mut copy, copy_ids) = build(&settings_back, &bodies_back);
    assert_eq!(
        copy_ids.iter().map(|id| id.slot()).collect::<Vec<_>>(),
        ids.iter().map(|id| id.slot()).collect::<Vec<_>>()
    );
    // A body handle names a body of the world it came from, so the joints read back go into
    // a twin of the world their handles name.
    let mut twin = original.clone();
    for (joint, back) in joints.iter().zip(&joints_back) {
        original.add_joint(joint.clone()).unwrap();
        twin.add_joint(back.clone()).unwrap();
    }
    for _ in 0..90 {
        original.step(DT).unwrap();
        copy.step(DT).unwrap();
        twin.step(DT).unwrap();
    }
    assert_eq!(state_bits(&twin), state_bits(&original));
    // The copy has no joints; its bodies match a jointless world built from the originals.
    let (mut plain, _) = build(&settings, &bodies);
    for _ in 0..90 {
        plain.step(DT).unwrap();
    }
    assert_eq!(state_bits(&copy), state_bits(&plain));
}

#[test]
fn shapes_come_back_bit_for_bit() {
    for shape in every_shape()
        .into_iter()
        .chain(level()[0].1.iter().map(|def| def.shape.clone()))
    {
        let json = serde_json::to_string(&shape).unwrap();
        let back: Shape = serde_json::from_str(&json).unwrap();
        // Debug prints each float's shortest exact form, -0.0 included.
        assert_eq!(format!("{back:?}"), format!("{shape:?}"), "{json}");
    }
}

/// Edits a shape's JSON and expects the shape to be refused.
fn refused(shape: &Shape, edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut value = serde_json::to_value(shape).unwrap();
    edit(&mut value);
    let result = serde_json::from_value::<Shape>(value.clone());
    match result {
        Ok(made) => panic!("{value} was accepted as {made:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn shapes_no_constructor_makes_are_refused() {
    let p = Vec2::new;
    let square = Shape::rect(1.0, 1.0).unwrap();
    let circle = Shape::circle(1.0).unwrap();
    let chain = Shape::chain_segment(Some(p(-1.0, 0.0)), p(0.0, 0.0), p(1.0, 0.0), None).unwrap();
    let why = refused(&circle, |v| v["Circle"]["radius"] = (-1.0).into());
    assert!(why.contains("radius"), "{why}");
    refused(&circle, |v| {
        v["Circle"]["center"]["x"] = serde_json::Value::Null
    });
    // Clockwise: the vertices reversed.
    refused(&square, |v| {
        let vertices = v["Polygon"]["vertices"].as_array_mut().unwrap();
        vertices.reverse();
    });
    refused(&square, |v| {
        v["Polygon"]["normals"][1] = serde_json::json!({"x": 0.0, "y": 1.0})
    });
    refused(&square, |v| v["Polygon"]["centroid"]["x"] = 5.0.into());
    refused(&square, |v| v["Polygon"]["radius"] = (-0.1).into());
    let why = refused(&square, |v| {
        v["Polygon"]["normals"].as_array_mut().unwrap().pop();
    });
    assert!(why.contains("normals"), "{why}");
    refused(&square, |v| {
        let vertex = v["Polygon"]["vertices"][0].clone();
        let normal = v["Polygon"]["normals"][0].clone();
        for _ in 0..8 {
            v["Polygon"]["vertices"]
                .as_array_mut()
                .unwrap()
                .push(vertex.clone());
            v["Polygon"]["normals"]
                .as_array_mut()
                .unwrap()
                .push(normal.clone());
        }
    });
    // A chain segment must be what its points and ghosts make: a turned normal, a ghost on
    // its end.
    refused(&chain, |v| {
        v["Polygon"]["normals"][0] = serde_json::json!({"x": 1.0, "y": 0.0})
    });
    refused(&chain, |v| {
        v["Polygon"]["chain"]["prev"] = serde_json::json!({"x": 0.0, "y": 0.0})
    });
    assert!(serde_json::from_str::<Shape>(r#"{"Triangle": {}}"#).is_err());
}

#[test]
fn settings_read_from_json_take_their_defaults_and_refuse_unknown_instruction_sets() {
    let partial: WorldSettings =
        serde_json::from_str(r#"{"gravity": {"x": 0.0, "y": -3.0}, "substeps": 8}"#).unwrap();
    let expected = WorldSettings {
        gravity: Vec2::new(0.0, -3.0),
        substeps: 8,
        ..WorldSettings::default()
    };
    assert_eq!(partial, expected);
    let named: WorldSettings = serde_json::from_str(r#"{"instruction_set": "portable"}"#).unwrap();
    assert_eq!(
        named.instruction_set,
        Some(batch2d::InstructionSet::Portable)
    );
    let bad = serde_json::from_str::<WorldSettings>(r#"{"instruction_set": "sse9"}"#);
    assert!(bad.unwrap_err().to_string().contains("sse9"));
}

/// A world that has stepped: contacts with warm-start impulses, joints, sleeping bodies.
fn stepped_world() -> World {
    let (mut world, ids) = build(&settings(), &level());
    for joint in joints(&ids) {
        world.add_joint(joint).unwrap();
    }
    for _ in 0..40 {
        world.step(DT).unwrap();
    }
    world
}

#[test]
fn a_snapshot_through_json_continues_bit_for_bit() {
    let mut world = stepped_world();
    let json = serde_json::to_string(&world.snapshot()).unwrap();
    let snapshot: Snapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(snapshot.to_bytes(), world.snapshot().to_bytes());
    let mut restored = World::from_snapshot(&snapshot, WorldSettings::default()).unwrap();
    for _ in 0..30 {
        world.step(DT).unwrap();
        restored.step(DT).unwrap();
    }
    assert_eq!(state_bits(&restored), state_bits(&world));
    assert_eq!(restored.state_hash(), world.state_hash());
}

#[test]
fn bad_snapshot_input_is_an_error() {
    let world = stepped_world();
    let bytes = world.snapshot().to_bytes();
    let as_json = |bytes: &[u8]| serde_json::to_string(bytes).unwrap();
    let read = |json: &str| serde_json::from_str::<Snapshot>(json).map(|_| ());

    // Truncated, too long, another version: the reasons from_bytes gives.
    let why = read(&as_json(&bytes[..bytes.len() - 3]))
        .unwrap_err()
        .to_string();
    assert!(why.contains("truncated"), "{why}");
    let mut longer = bytes.clone();
    longer.push(0);
    let why = read(&as_json(&longer)).unwrap_err().to_string();
    assert!(why.contains("left after"), "{why}");
    let mut version = bytes.clone();
    version[8] ^= 0x40;
    let why = read(&as_json(&version)).unwrap_err().to_string();
    assert!(why.contains("version"), "{why}");
    // Numbers that are no bytes, and JSON that is no list of them.
    let mut text = as_json(&bytes);
    text.insert_str(1, "256,");
    assert!(read(&text).is_err());
    assert!(read("[1, -2, 3]").is_err());
    assert!(read(r#""batch2d""#).is_err());
    assert!(read("{}").is_err());
    assert!(read(&as_json(&bytes)[..100]).is_err());
    // A flipped bit anywhere is refused exactly when from_bytes refuses it.
    for i in (0..bytes.len()).step_by(97) {
        let mut flipped = bytes.clone();
        flipped[i] ^= 1 << (i % 8);
        let direct = Snapshot::from_bytes(&flipped).map(|_| ());
        assert_eq!(read(&as_json(&flipped)).is_ok(), direct.is_ok(), "bit {i}");
    }
}
