//! The snapshot form of a shape: its defining numbers, checked on reading as its constructor
//! checks them.

use super::{ChainGhosts, Circle, Polygon, Shape, MAX_POLYGON_VERTICES};
use crate::codec::{invalid as invalid_snapshot, Codec, Reader, Writer};
use crate::geometry::math::Vec2;
use crate::Error;

/// A shape is saved by its defining numbers and checked on reading as its constructor checks
/// it, so that a snapshot cannot smuggle in a shape the engine could not have made.
impl Codec for Shape {
    const MIN_SIZE: usize = 13;
    fn encode(&self, w: &mut Writer) {
        match self {
            Shape::Circle(circle) => {
                let Circle { center, radius } = circle;
                0u8.encode(w);
                center.encode(w);
                radius.encode(w);
            }
            Shape::Polygon(polygon) => {
                let Polygon {
                    vertices,
                    normals,
                    count,
                    centroid,
                    radius,
                    chain,
                } = &**polygon;
                1u8.encode(w);
                count.encode(w);
                for v in vertices[..*count].iter().chain(&normals[..*count]) {
                    v.encode(w);
                }
                centroid.encode(w);
                radius.encode(w);
                chain.map(|g| (g.prev, g.next)).encode(w);
            }
        }
    }

    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let shape = match u8::decode(r)? {
            0 => {
                let circle = Circle {
                    center: Vec2::decode(r)?,
                    radius: f32::decode(r)?,
                };
                circle.checked()
            }
            1 => {
                let count = usize::decode(r)?;
                if !(2..=MAX_POLYGON_VERTICES).contains(&count) {
                    return Err(invalid_snapshot(format!(
                        "a polygon has 2..={MAX_POLYGON_VERTICES} vertices, got {count}"
                    )));
                }
                let mut polygon = Polygon {
                    vertices: [Vec2::ZERO; MAX_POLYGON_VERTICES],
                    normals: [Vec2::ZERO; MAX_POLYGON_VERTICES],
                    count,
                    centroid: Vec2::ZERO,
                    radius: 0.0,
                    chain: None,
                };
                for v in &mut polygon.vertices[..count] {
                    *v = Vec2::decode(r)?;
                }
                for n in &mut polygon.normals[..count] {
                    *n = Vec2::decode(r)?;
                }
                polygon.centroid = Vec2::decode(r)?;
                polygon.radius = f32::decode(r)?;
                let chain = Option::<(Option<Vec2>, Option<Vec2>)>::decode(r)?;
                polygon.chain = chain.map(|(prev, next)| ChainGhosts { prev, next });
                polygon.checked()
            }
            tag => return Err(invalid_snapshot(format!("unknown shape kind {tag}"))),
        };
        shape.map_err(|e| invalid_snapshot(format!("shape: {e}")))
    }
}
