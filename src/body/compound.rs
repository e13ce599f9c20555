//! The shapes of a compound body and their materials, kept out of the per-slot columns (see
//! `Compound`): the one part of a body that is not a column, with its own box tree and form.

use crate::body_def::ShapeDef;
use crate::codec::{
    clone_fields, codec_struct, invalid as invalid_snapshot, Codec, Reader, Writer,
};
use crate::error::Error;
use crate::geometry::box_tree::BoxTree;
use crate::geometry::math::{Aabb, Transform};
use crate::geometry::shape::Shape;

/// The material and filter of one shape of a compound body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChildMaterial {
    /// kg/m², what the shape's mass is computed from.
    pub density: f32,
    pub friction: f32,
    pub restitution: f32,
    pub layers: u32,
    pub mask: u32,
    pub group: i32,
    /// A sensor shape: it collides with nothing and reports overlaps for its body.
    pub sensor: bool,
}

impl ChildMaterial {
    /// The material of a shape definition.
    pub fn of(s: &ShapeDef) -> ChildMaterial {
        ChildMaterial {
            density: s.density,
            friction: s.friction,
            restitution: s.restitution,
            layers: s.layers,
            mask: s.mask,
            group: s.group,
            sensor: s.sensor,
        }
    }
}

/// The shapes of a body that has more than one (see `World::add_compound_body`), kept out of
/// the per-slot columns so that one-shape bodies read exactly what they read before.
#[derive(Debug)]
pub(crate) struct Compound {
    /// The shapes in the body frame, in the order they were given.
    pub shapes: Box<[Shape]>,
    /// `materials[i]` belongs to `shapes[i]`.
    pub materials: Box<[ChildMaterial]>,
    /// `aabbs[i]`: the broadphase box of `shapes[i]` (grown and swept like the body's) of the
    /// last step, or its tight box after the body was added or moved; their union is the
    /// body's box.
    pub aabbs: Box<[Aabb]>,
    /// The tree over `aabbs` that finds the shapes near a box (built from the shapes' boxes
    /// in the body frame, refitted whenever `aabbs` change): not saved, rebuilt from the
    /// shapes.
    pub tree: BoxTree,
}

clone_fields!(Compound {
    shapes,
    materials,
    aabbs,
    tree,
});

impl Compound {
    /// A compound of `shapes` with `materials`, its boxes the shapes' tight boxes at `xf`.
    pub fn new(shapes: Box<[Shape]>, materials: Box<[ChildMaterial]>, xf: Transform) -> Compound {
        let local: Vec<Aabb> = shapes.iter().map(|s| s.aabb(Transform::IDENTITY)).collect();
        let mut tree = BoxTree::build(&local);
        let aabbs: Box<[Aabb]> = shapes.iter().map(|s| s.aabb(xf)).collect();
        tree.refit(&aabbs);
        Compound {
            shapes,
            materials,
            aabbs,
            tree,
        }
    }

    /// Appends to `out`, ascending, the shapes whose boxes overlap `region`.
    pub fn shapes_near(&self, region: &Aabb, out: &mut Vec<u32>) {
        self.tree.query(&self.aabbs, region, out);
    }
}

impl Codec for Compound {
    const MIN_SIZE: usize = 24;
    fn encode(&self, w: &mut Writer) {
        let Compound {
            shapes,
            materials,
            aabbs,
            tree: _,
        } = self;
        shapes.encode(w);
        materials.encode(w);
        aabbs.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let shapes: Box<[Shape]> = Codec::decode(r)?;
        let materials = Codec::decode(r)?;
        let aabbs: Box<[Aabb]> = Codec::decode(r)?;
        if aabbs.len() != shapes.len() {
            return Err(invalid_snapshot(format!(
                "a compound of {} shapes with {} boxes",
                shapes.len(),
                aabbs.len()
            )));
        }
        let mut c = Compound::new(shapes, materials, Transform::IDENTITY);
        c.aabbs = aabbs;
        c.tree.refit(&c.aabbs);
        Ok(c)
    }
}

codec_struct!(ChildMaterial {
    density,
    friction,
    restitution,
    layers,
    mask,
    group,
    sensor
});
