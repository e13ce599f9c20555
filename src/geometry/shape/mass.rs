//! Mass properties: of each shape for a density, integrated exactly (rounding included), and of
//! a rigid union of shapes.

use super::{next_index, Circle, MassData, Polygon, Shape};
use crate::geometry::math::{Rot, Vec2};
use std::f32::consts::PI;

impl MassData {
    /// The mass data of a rigid union of parts, each given about its own centre of mass in one
    /// common frame (a compound body's shapes in the body frame).
    ///
    /// The mass is the sum of the parts' masses; the centre of mass is their mass-weighted
    /// mean, `C = Σ (m_i / M) c_i`; the rotational inertia about `C` follows from the
    /// parallel-axis theorem, `I = Σ (I_i + m_i |c_i - C|²)`. With weights `m_i / M` a single
    /// part comes back unchanged, bit for bit. When the total mass is 0 (shapes of density 0
    /// on a static or kinematic body) the centre is the plain mean of the parts' centres and the
    /// inertia 0. An empty slice gives `MassData::default()`.
    ///
    /// ```
    /// use batch2d::{MassData, Shape, Vec2};
    ///
    /// // A dumbbell: two unit discs 2 m either side of the origin.
    /// let left = Shape::circle_at(Vec2::new(-2.0, 0.0), 1.0)?.mass_data(1.0);
    /// let right = Shape::circle_at(Vec2::new(2.0, 0.0), 1.0)?.mass_data(1.0);
    /// let both = MassData::combine(&[left, right]);
    /// assert_eq!(both.center, Vec2::ZERO);
    /// let expected = 2.0 * (left.rotational_inertia + left.mass * 4.0);
    /// assert!((both.rotational_inertia - expected).abs() <= 1e-5 * expected);
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn combine(parts: &[MassData]) -> MassData {
        let mass: f32 = parts.iter().map(|p| p.mass).sum();
        let center = if mass > 0.0 {
            parts
                .iter()
                .fold(Vec2::ZERO, |sum, p| sum + p.center * (p.mass / mass))
        } else if parts.is_empty() {
            Vec2::ZERO
        } else {
            let sum = parts.iter().fold(Vec2::ZERO, |sum, p| sum + p.center);
            sum * (1.0 / parts.len() as f32)
        };
        let rotational_inertia = parts
            .iter()
            .map(|p| p.rotational_inertia + p.mass * (p.center - center).length_squared())
            .sum();
        MassData {
            mass,
            center,
            rotational_inertia,
        }
    }
}

impl Shape {
    /// Mass, centre of mass and rotational inertia for `density` (kg/m², assumed >= 0).
    ///
    /// Rounded polygons are integrated exactly, rounding included: core polygon, plus an
    /// `edge x radius` strip on every edge, plus a circular sector at every corner.
    pub fn mass_data(&self, density: f32) -> MassData {
        match self {
            Shape::Circle(circle) => circle.mass_data(density),
            Shape::Polygon(polygon) => polygon.mass_data(density),
        }
    }
}

impl Circle {
    fn mass_data(&self, density: f32) -> MassData {
        let rr = self.radius * self.radius;
        let mass = density * PI * rr;
        MassData {
            mass,
            center: self.center,
            rotational_inertia: 0.5 * mass * rr,
        }
    }
}

impl Polygon {
    /// Area moments of the sharp core, by a triangle fan about the vertex average. The fan apex
    /// is inside the polygon and close to the centroid, so the parallel-axis shift at the end
    /// subtracts two nearby numbers instead of two large ones.
    pub(super) fn core_moments(&self) -> Moments {
        let reference = vertex_average(self.vertices());
        let mut moments = Moments::about(reference);
        for i in 0..self.count {
            let a = self.vertices[i] - reference;
            let b = self.vertices[next_index(i, self.count)] - reference;
            moments.add_fan_triangle(a, b);
        }
        moments
    }

    /// Mass properties of the rounded polygon, computed exactly: the rounded shape is the core
    /// polygon plus, on each edge, an outward rectangle `edge length x radius` and, at each
    /// vertex, a circular sector of `radius` spanning the turn between the two edge normals.
    /// These pieces do not overlap for a convex core and their sectors add up to one full disc.
    fn mass_data(&self, density: f32) -> MassData {
        if self.count == 2 {
            return self.capsule_mass_data(density);
        }
        let mut moments = self.core_moments();
        if self.radius > 0.0 {
            self.add_rounding(&mut moments);
        }
        let offset = moments.first * (1.0 / moments.area);
        let polar = moments.second - moments.area * offset.length_squared();
        MassData {
            mass: density * moments.area,
            center: moments.reference + offset,
            rotational_inertia: density * polar,
        }
    }

    /// Mass of a capsule in closed form: a `length x 2 radius` rectangle plus two half discs,
    /// one on each end, whose polar moment about the centre is
    /// `pi r^4 / 2 + 4 L r^3 / 3 + pi r^2 L^2 / 4` (each half disc's moment about its flat
    /// edge's centre, `pi r^4 / 4`, shifted by `L / 2` through its centroid at `4 r / 3 pi`).
    /// A segment (`radius == 0`) has no mass.
    fn capsule_mass_data(&self, density: f32) -> MassData {
        let (r, center) = (self.radius, self.centroid);
        let length = (self.vertices[1] - self.vertices[0]).length();
        let rect_area = 2.0 * r * length;
        let rect_second = rect_area * (length * length + 4.0 * r * r) / 12.0;
        let rr = r * r;
        let discs_area = PI * rr;
        let discs_second =
            0.5 * PI * rr * rr + 4.0 * length * rr * r / 3.0 + 0.25 * PI * rr * length * length;
        MassData {
            mass: density * (rect_area + discs_area),
            center,
            rotational_inertia: density * (rect_second + discs_second),
        }
    }

    fn add_rounding(&self, moments: &mut Moments) {
        let n = self.count;
        for i in 0..n {
            let a = self.vertices[i] - moments.reference;
            let b = self.vertices[next_index(i, n)] - moments.reference;
            moments.add_edge_slab(a, b, self.normals[i], self.radius);
            let previous_normal = self.normals[(i + n - 1) % n];
            moments.add_corner_sector(a, previous_normal, self.normals[i], self.radius);
        }
    }
}

/// Running area integrals of a region relative to a reference point: area, first moment
/// `∫ x dA` and polar second moment `∫ |x|² dA`.
pub(super) struct Moments {
    reference: Vec2,
    pub(super) area: f32,
    first: Vec2,
    second: f32,
}

impl Moments {
    fn about(reference: Vec2) -> Moments {
        Moments {
            reference,
            area: 0.0,
            first: Vec2::ZERO,
            second: 0.0,
        }
    }

    /// The centroid of everything added, in the same frame as `reference`.
    pub(super) fn centroid(&self) -> Vec2 {
        self.reference + self.first * (1.0 / self.area)
    }

    /// Adds the triangle `(reference, reference + a, reference + b)`; the area is signed, so a
    /// counter-clockwise fan sums to the polygon.
    fn add_fan_triangle(&mut self, a: Vec2, b: Vec2) {
        let area = 0.5 * a.cross(b);
        self.area += area;
        self.first += (a + b) * (area / 3.0);
        // For a triangle with one vertex at the origin: ∫|x|² = A/6 (a·a + a·b + b·b).
        self.second += (area / 6.0) * (a.dot(a) + a.dot(b) + b.dot(b));
    }

    /// Adds the rectangle swept by moving edge `a -> b` outward by `radius` along `normal`.
    fn add_edge_slab(&mut self, a: Vec2, b: Vec2, normal: Vec2, radius: f32) {
        let length_sq = (b - a).length_squared();
        let area = length_sq.sqrt() * radius;
        let center = (a + b) * 0.5 + normal * (0.5 * radius);
        self.area += area;
        self.first += center * area;
        // Rectangle about its own centre, then shifted (parallel axis).
        self.second += area * ((length_sq + radius * radius) / 12.0 + center.length_squared());
    }

    /// Adds the circular sector of `radius` with apex `apex`, turning counter-clockwise from
    /// `from_normal` to `to_normal` (the rounded corner of a convex polygon).
    fn add_corner_sector(&mut self, apex: Vec2, from_normal: Vec2, to_normal: Vec2, radius: f32) {
        // The crate's own atan2 and sine: mass data feeds the step, which must give the same
        // bits on every platform.
        let half_angle = 0.5
            * batch2d_kernels::trig::atan2(
                from_normal.cross(to_normal),
                from_normal.dot(to_normal),
            );
        if half_angle <= 0.0 {
            // Only a degenerate (unvalidated) polygon has a corner that does not turn left.
            return;
        }
        let rr = radius * radius;
        let area = half_angle * rr;
        // Sector centroid lies on the bisector at 2 r sin(h) / (3 h) from the apex.
        let half_turn = Rot::from_angle(half_angle);
        let bisector = half_turn.rotate(from_normal);
        let centroid_distance = 2.0 * radius * half_turn.s / (3.0 * half_angle);
        let center = apex + bisector * centroid_distance;
        // ∫|x - apex|² over the sector is h r⁴ / 2; move it to the sector centroid, then to
        // the reference point.
        let about_apex = 0.5 * half_angle * rr * rr;
        let about_center = about_apex - area * centroid_distance * centroid_distance;
        self.area += area;
        self.first += center * area;
        self.second += about_center + area * center.length_squared();
    }
}

fn vertex_average(points: &[Vec2]) -> Vec2 {
    let mut sum = Vec2::ZERO;
    for &p in points {
        sum += p;
    }
    sum * (1.0 / points.len() as f32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::shape::v;
    #[test]
    fn moments_of_pieces_match_closed_forms() {
        // Unit square as a fan about its centre: polar moment (1 + 1) / 12.
        let mut square = Moments::about(v(0.5, 0.5));
        let corners = [v(-0.5, -0.5), v(0.5, -0.5), v(0.5, 0.5), v(-0.5, 0.5)];
        for i in 0..4 {
            square.add_fan_triangle(corners[i], corners[(i + 1) % 4]);
        }
        assert!((square.area - 1.0).abs() < 1e-6);
        assert!(square.first.length() < 1e-6);
        assert!((square.second - 1.0 / 6.0).abs() < 1e-6);

        // Quarter disc of radius 2 at the origin: area pi, polar moment pi r^4 / 8, centroid at
        // 4 r / (3 pi) on both axes.
        let mut quarter = Moments::about(Vec2::ZERO);
        quarter.add_corner_sector(Vec2::ZERO, v(1.0, 0.0), v(0.0, 1.0), 2.0);
        assert!((quarter.area - PI).abs() < 1e-5);
        assert!((quarter.second - 2.0 * PI).abs() < 1e-5);
        let expected = 8.0 / (3.0 * PI);
        assert!((quarter.centroid() - v(expected, expected)).length() < 1e-5);

        // Slab 2 x 0.5 on the edge (0,0) -> (2,0), pushed out along -y.
        let mut slab = Moments::about(Vec2::ZERO);
        slab.add_edge_slab(v(0.0, 0.0), v(2.0, 0.0), v(0.0, -1.0), 0.5);
        assert!((slab.area - 1.0).abs() < 1e-6);
        assert!((slab.centroid() - v(1.0, -0.25)).length() < 1e-6);
        let about_center = (4.0 + 0.25) / 12.0;
        assert!((slab.second - (about_center + 1.0 + 0.0625)).abs() < 1e-6);
    }
}
