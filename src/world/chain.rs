//! Static terrain from a polyline: open chains and loops of smooth, one-sided segments, one
//! body per edge.

use crate::body::BodyId;
use crate::body_def::{BodyDef, BodyKind, ShapeDef};
use crate::error::Error;
use crate::geometry::math::Vec2;
use crate::geometry::shape::Shape;
use crate::world::World;

impl World {
    /// Adds an open chain of segments through `points` (in the frame of `def`: its position
    /// and angle place the whole chain), one body per edge, each with the material, layers
    /// and mask of `material` (whose shape is ignored). Returns the bodies in edge order.
    ///
    /// Each edge is a [`Shape::chain_segment`] that knows its neighbours, so a body slides and
    /// rolls across the joins as on one surface. The chain is one-sided: it collides on the
    /// left of the direction the points run in, so terrain listed from left to right is walked
    /// on from above (Box2D's chains collide on the right). The two end points are free ends:
    /// a body meets them as the ends of plain segments.
    ///
    /// `def` must be static or kinematic (segments have no mass).
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
        let materials = vec![material.clone(); points.len().saturating_sub(1)];
        self.add_chain(def, points, &materials, false)
    }

    /// [`World::add_segment_chain`] with one material per edge: `materials[i]` gives the
    /// friction, restitution, layers and mask of the edge from `points[i]` to `points[i + 1]`.
    ///
    /// `Err`, with nothing added, as for `add_segment_chain`, and when `materials` does not
    /// hold exactly one entry per edge.
    pub fn add_segment_chain_with_materials(
        &mut self,
        def: BodyDef,
        points: &[Vec2],
        materials: &[ShapeDef],
    ) -> Result<Vec<BodyId>, Error> {
        self.add_chain(def, points, materials, false)
    }

    /// Adds a closed chain (a loop) through `points` and back to the first, one body per edge
    /// (the last edge runs from the last point to the first), each a smooth, one-sided
    /// [`Shape::chain_segment`] whose neighbours wrap round, with the material, layers and
    /// mask of `material`. Returns the bodies in edge order.
    ///
    /// It collides on the left of the direction the points run in: a loop listed
    /// counter-clockwise holds bodies inside it (a container, a cave), one listed clockwise is
    /// a solid island bodies rest on from outside.
    ///
    /// `Err`, with nothing added, for fewer than 3 points, a dynamic `def`, bad `def` or
    /// material values, or an edge that is not a valid segment (the closing one included).
    pub fn add_segment_loop(
        &mut self,
        def: BodyDef,
        points: &[Vec2],
        material: &ShapeDef,
    ) -> Result<Vec<BodyId>, Error> {
        let materials = vec![material.clone(); points.len()];
        self.add_chain(def, points, &materials, true)
    }

    /// [`World::add_segment_loop`] with one material per edge: `materials[i]` for the edge
    /// from `points[i]` to the next point (the last wrapping round to the first).
    ///
    /// `Err`, with nothing added, as for `add_segment_loop`, and when `materials` does not
    /// hold exactly one entry per edge (as many as points).
    pub fn add_segment_loop_with_materials(
        &mut self,
        def: BodyDef,
        points: &[Vec2],
        materials: &[ShapeDef],
    ) -> Result<Vec<BodyId>, Error> {
        self.add_chain(def, points, materials, true)
    }

    /// The chain through `points`, closed when `closed`, with `materials[i]` on edge `i`.
    fn add_chain(
        &mut self,
        def: BodyDef,
        points: &[Vec2],
        materials: &[ShapeDef],
        closed: bool,
    ) -> Result<Vec<BodyId>, Error> {
        let least = if closed { 3 } else { 2 };
        if points.len() < least {
            let kind = if closed {
                "segment loop"
            } else {
                "segment chain"
            };
            return Err(Error::InvalidShape(format!(
                "a {kind} needs at least {least} points, got {}",
                points.len()
            )));
        }
        let n = points.len();
        let edge_count = if closed { n } else { n - 1 };
        if materials.len() != edge_count {
            return Err(Error::InvalidParameter(format!(
                "a chain of {edge_count} edges needs {edge_count} materials, got {}",
                materials.len()
            )));
        }
        if def.kind == BodyKind::Dynamic {
            return Err(Error::InvalidParameter(
                "a segment chain must be static or kinematic: segments have no mass".into(),
            ));
        }
        // Everything is checked before the first body goes in, so an error adds nothing.
        def.validate()?;
        let point = |i: usize| points[i % n];
        let edges = (0..edge_count)
            .map(|i| {
                let prev = (closed || i > 0).then(|| point(i + n - 1));
                let next = (closed || i + 2 < n).then(|| point(i + 2));
                Ok(ShapeDef {
                    shape: Shape::chain_segment(prev, point(i), point(i + 1), next)?,
                    ..materials[i].clone()
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
