//! The `serde` feature's [`Shape`]: its defining numbers, exact, and checked on the way in as
//! a snapshot's shapes are, so that deserializing cannot make a shape no constructor makes.

use crate::geometry::math::Vec2;
use crate::geometry::shape::{ChainGhosts, Circle, Polygon, Shape, MAX_POLYGON_VERTICES};
use crate::Error;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A [`Shape`] as its defining numbers, the same ones a snapshot saves: a circle's centre and
/// radius, or a polygon's vertices with their edge normals, its centroid, its rounding radius
/// and, for a chain segment, its ghost vertices. Exact, so a shape comes back bit for bit.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Shape")]
pub(crate) enum ShapeParts {
    Circle {
        center: Vec2,
        radius: f32,
    },
    Polygon {
        vertices: Vec<Vec2>,
        normals: Vec<Vec2>,
        centroid: Vec2,
        radius: f32,
        chain: Option<ChainGhosts>,
    },
}

impl From<Shape> for ShapeParts {
    fn from(shape: Shape) -> ShapeParts {
        match shape {
            Shape::Circle(Circle { center, radius }) => ShapeParts::Circle { center, radius },
            Shape::Polygon(polygon) => {
                let Polygon {
                    vertices,
                    normals,
                    count,
                    centroid,
                    radius,
                    chain,
                } = *polygon;
                ShapeParts::Polygon {
                    vertices: vertices[..count].to_vec(),
                    normals: normals[..count].to_vec(),
                    centroid,
                    radius,
                    chain,
                }
            }
        }
    }
}

/// Checked as a snapshot's shapes are: `Err(InvalidShape)` for a shape no constructor makes.
impl TryFrom<ShapeParts> for Shape {
    type Error = Error;
    fn try_from(parts: ShapeParts) -> Result<Shape, Error> {
        match parts {
            ShapeParts::Circle { center, radius } => Circle { center, radius }.checked(),
            ShapeParts::Polygon {
                vertices,
                normals,
                centroid,
                radius,
                chain,
            } => {
                let count = vertices.len();
                if !(2..=MAX_POLYGON_VERTICES).contains(&count) || normals.len() != count {
                    return Err(Error::InvalidShape(format!(
                        "a polygon has 2..={MAX_POLYGON_VERTICES} vertices and as many \
                         normals, got {count} and {}",
                        normals.len()
                    )));
                }
                let mut polygon = Polygon {
                    vertices: [Vec2::ZERO; MAX_POLYGON_VERTICES],
                    normals: [Vec2::ZERO; MAX_POLYGON_VERTICES],
                    count,
                    centroid,
                    radius,
                    chain,
                };
                polygon.vertices[..count].copy_from_slice(&vertices);
                polygon.normals[..count].copy_from_slice(&normals);
                polygon.checked()
            }
        }
    }
}

/// Written as its [`ShapeParts`].
impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ShapeParts::from(self.clone()).serialize(serializer)
    }
}

/// Read as [`ShapeParts`], then checked: a shape no constructor makes is an error.
impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Shape, D::Error> {
        Shape::try_from(ShapeParts::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}
