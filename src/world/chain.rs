//! Static terrain from a polyline: one segment body per edge.

use crate::body::{BodyDef, BodyId, BodyKind, ShapeDef};
use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::geometry::shape::Shape;
use crate::world::World;

impl World {
    /// Adds a chain of segments through `points` (in the frame of `def`: its position and
    /// angle place the whole chain), one body per edge, each with the material, layers and
    /// mask of `material` (whose shape is ignored). Returns the bodies in edge order.
    ///
    /// `def` must be static or kinematic (segments have no mass). The edges are separate
    /// shapes, with no ghost vertices to smooth the joints: a body near a joint also gets a
    /// speculative contact with the next edge's end, whose normal leans against the motion,
    /// so a ball rolling at 2 m/s over a flat chain lifts by about 1.5 mm and loses about 2%
    /// of its speed at each joint, and a sliding box can catch on a joint (as on a row of
    /// boxes). Chain shapes with ghost vertices would smooth this; they do not exist yet.
    ///
    /// `Err`, with nothing added, for fewer than 2 points, a dynamic `def`, bad `def` or
    /// material values, or an edge that is not a valid segment (non-finite, or shorter than
    /// 2.5 mm).
    pub fn add_segment_chain(
        &mut self,
        def: BodyDef,
        points: &[Vec2],
        material: &ShapeDef,
    ) -> Result<Vec<BodyId>, Error> {
        if points.len() < 2 {
            return Err(Error::InvalidShape(format!(
                "a segment chain needs at least 2 points, got {}",
                points.len()
            )));
        }
        if def.kind == BodyKind::Dynamic {
            return Err(Error::InvalidParameter(
                "a segment chain must be static or kinematic: segments have no mass".into(),
            ));
        }
        // Everything is checked before the first body goes in, so an error adds nothing.
        def.validate()?;
        let edges = points
            .windows(2)
            .map(|edge| {
                Ok(ShapeDef {
                    shape: Shape::segment(edge[0], edge[1])?,
                    ..material.clone()
                })
            })
            .collect::<Result<Vec<ShapeDef>, Error>>()?;
        for edge in &edges {
            edge.validate()?;
        }
        edges
            .into_iter()
            .map(|edge| self.add_body(def.clone(), edge))
            .collect()
    }
}
