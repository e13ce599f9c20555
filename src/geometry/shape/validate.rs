//! What makes a shape one the engine can simulate, checked in one place: the `validate`
//! methods the constructors run, and `checked`, which runs them on a shape read back field by
//! field (a snapshot, a deserialized shape).

use super::{
    invalid, next_index, ChainGhosts, Circle, Polygon, Shape, MAX_POLYGON_VERTICES, WELD_DISTANCE,
};
use crate::geometry::math::Vec2;
use crate::Error;

/// Largest accepted gap between a stored normal and the unit normal computed from its edge.
/// Loose enough for normals rotated by `Rot::from_angle`, tight enough to catch a wrong winding.
const NORMAL_TOLERANCE: f32 = 1.0e-4;

impl Circle {
    /// `Ok` when the circle can be simulated: a finite centre and a finite radius > 0.
    pub(super) fn validate(&self) -> Result<(), Error> {
        if !self.center.is_finite() {
            return Err(invalid(format!(
                "circle center must be finite, got {:?}",
                self.center
            )));
        }
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err(invalid(format!(
                "circle radius must be finite and > 0, got {}",
                self.radius
            )));
        }
        Ok(())
    }
}

impl Polygon {
    /// `Ok` when the polygon can be simulated: 3 to [`MAX_POLYGON_VERTICES`] finite vertices
    /// with a finite rounding radius >= 0, strictly convex and counter-clockwise with matching
    /// normals, a positive area and the centroid inside; or a valid capsule or segment.
    pub(super) fn validate(&self) -> Result<(), Error> {
        if self.count == 2 {
            return self.validate_two_vertex();
        }
        if !(3..=MAX_POLYGON_VERTICES).contains(&self.count) {
            return Err(invalid(format!(
                "polygon must have 3..={MAX_POLYGON_VERTICES} vertices, got {}",
                self.count
            )));
        }
        if !(self.radius.is_finite() && self.radius >= 0.0) {
            return Err(invalid(format!(
                "polygon radius must be finite and >= 0, got {}",
                self.radius
            )));
        }
        let n = self.count;
        let all_finite = self.vertices[..n]
            .iter()
            .chain(&self.normals[..n])
            .all(|v| v.is_finite());
        if !all_finite {
            return Err(invalid(
                "polygon has a non-finite vertex or normal".to_string(),
            ));
        }
        self.validate_edges()?;
        let area = self.core_moments().area;
        if !(area.is_finite() && area > 0.0) {
            return Err(invalid(format!(
                "polygon area must be finite and > 0, got {area}"
            )));
        }
        let outside = (0..n).any(|i| self.plane_distance(i, self.centroid) >= 0.0);
        if !self.centroid.is_finite() || outside {
            return Err(invalid(format!(
                "polygon centroid must be finite and inside the polygon, got {:?}",
                self.centroid
            )));
        }
        Ok(())
    }

    /// A capsule or segment: finite, at least [`WELD_DISTANCE`] long (shorter, its normal
    /// would be noise; use a circle), normals right of `p1 -> p2` and opposite, centroid at
    /// the midpoint.
    pub(super) fn validate_two_vertex(&self) -> Result<(), Error> {
        let [p1, p2] = [self.vertices[0], self.vertices[1]];
        let all_finite = [p1, p2, self.normals[0], self.normals[1], self.centroid]
            .iter()
            .all(|v| v.is_finite());
        if !(all_finite && self.radius.is_finite()) {
            return Err(invalid(
                "capsule or segment has a non-finite point, normal or radius".to_string(),
            ));
        }
        if self.radius < 0.0 {
            return Err(invalid(format!(
                "capsule radius must be >= 0, got {}",
                self.radius
            )));
        }
        let length = (p2 - p1).length();
        if !length.is_finite() || length < WELD_DISTANCE {
            return Err(invalid(format!(
                "capsule or segment must be at least {WELD_DISTANCE} m long, got {length}"
            )));
        }
        let expected = (p2 - p1).right_perp() * (1.0 / length);
        let normals_match = (self.normals[0] - expected).length() <= NORMAL_TOLERANCE
            && (self.normals[1] + expected).length() <= NORMAL_TOLERANCE;
        if !normals_match {
            return Err(invalid(
                "capsule or segment normals must be right of p1 -> p2 and opposite".to_string(),
            ));
        }
        let midpoint = (p1 + p2) * 0.5;
        if (self.centroid - midpoint).length() > NORMAL_TOLERANCE * length {
            return Err(invalid(format!(
                "capsule or segment centroid must be the midpoint {midpoint:?}, got {:?}",
                self.centroid
            )));
        }
        Ok(())
    }

    /// Every normal is the outward unit normal of its edge, and every other vertex lies strictly
    /// behind every edge. Together these mean strictly convex and counter-clockwise: a clockwise
    /// polygon has its vertices in front of its (right-hand) normals, a self-intersecting or
    /// twice-winding one has vertices on both sides of some edge, and a collinear vertex lies
    /// on its neighbour's edge line.
    fn validate_edges(&self) -> Result<(), Error> {
        let n = self.count;
        for i in 0..n {
            let edge = self.vertices[next_index(i, n)] - self.vertices[i];
            let Some(expected) = edge.right_perp().normalized() else {
                return Err(invalid(format!("polygon edge {i} has zero length")));
            };
            if (self.normals[i] - expected).length() > NORMAL_TOLERANCE {
                return Err(invalid(format!(
                    "polygon normal {i} is not the outward unit normal of its edge \
                     (vertices must be counter-clockwise)"
                )));
            }
            let mut others = (0..n).filter(|&j| j != i && j != next_index(i, n));
            if others.any(|j| self.plane_distance(i, self.vertices[j]) >= 0.0) {
                return Err(invalid(
                    "polygon is not strictly convex and counter-clockwise".to_string(),
                ));
            }
        }
        Ok(())
    }

    /// Signed distance of `p` in front of the line of edge `i`.
    fn plane_distance(&self, i: usize, p: Vec2) -> f32 {
        self.normals[i].dot(p - self.vertices[i])
    }
}

impl Circle {
    /// `Shape::Circle(self)` if a constructor could have made it: how a circle read back from
    /// a snapshot or deserialized, built field by field, is checked.
    pub(crate) fn checked(self) -> Result<Shape, Error> {
        self.validate().map(|()| Shape::Circle(self))
    }
}

impl Polygon {
    /// `Shape::Polygon(self)` if a checked constructor could have made it, bit for bit where
    /// it matters: a chain segment must be exactly what [`Shape::chain_segment`] makes of its
    /// points and ghosts (its normal and its ghosts' tests are derived from them), any other
    /// polygon must pass `validate`. How a polygon read back from a snapshot or deserialized,
    /// built field by field, is checked.
    pub(crate) fn checked(self) -> Result<Shape, Error> {
        match self.chain {
            Some(ChainGhosts { prev, next }) => {
                let [p1, p2] = [self.vertices[0], self.vertices[1]];
                let made = Shape::chain_segment(prev, p1, p2, next)?;
                let same = made == Shape::Polygon(Box::new(self));
                same.then_some(made)
                    .ok_or_else(|| invalid("a chain segment that its points do not make".into()))
            }
            None => self.validate().map(|()| Shape::Polygon(Box::new(self))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polygons can only be built by the checked constructors; `validate` still guards the
    /// invariants that the rest of the engine relies on, checked here on hand-made breakage.
    #[test]
    fn validate_rejects_hand_built_polygons() {
        let Ok(Shape::Polygon(square)) = Shape::rect(1.0, 1.0) else {
            unreachable!()
        };
        let square = *square;

        let mut clockwise = square;
        clockwise.vertices[..4].reverse();
        let mut wrong_normal = square;
        wrong_normal.normals[1] = Vec2::new(0.0, 1.0);
        let mut too_few = square;
        too_few.count = 2;
        let mut too_many = square;
        too_many.count = MAX_POLYGON_VERTICES + 1;
        let mut negative_radius = square;
        negative_radius.radius = -0.1;
        let mut centroid_outside = square;
        centroid_outside.centroid = Vec2::new(5.0, 0.0);
        let mut collinear = square;
        collinear.vertices[1] = Vec2::new(0.0, -1.0); // moves a corner onto the bottom edge line
        collinear.normals[1] = Vec2::new(0.0, -1.0);

        for polygon in [
            clockwise,
            wrong_normal,
            too_few,
            too_many,
            negative_radius,
            centroid_outside,
            collinear,
        ] {
            assert!(
                matches!(polygon.validate(), Err(Error::InvalidShape(_))),
                "accepted {polygon:?}"
            );
        }
    }
}
