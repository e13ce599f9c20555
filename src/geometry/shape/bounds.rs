//! The boxes and extents of a shape: its world box, the broadphase's grown and swept box, how
//! far it reaches and how narrow it is, and the shortcut box of an axis-aligned rectangle.

use super::{Circle, Polygon, Shape};
use crate::geometry::math::{Aabb, Transform, Vec2};
use batch2d_kernels::bounds::BoxShape;

impl Shape {
    /// Farthest distance from `point` (body frame) to any point of the shape.
    pub(crate) fn reach_from(&self, point: Vec2) -> f32 {
        match self {
            Shape::Circle(c) => (c.center - point).length() + c.radius,
            Shape::Polygon(p) => {
                let far = p.vertices[..p.count]
                    .iter()
                    .map(|&v| (v - point).length())
                    .fold(0.0, f32::max);
                far + p.radius
            }
        }
    }

    /// The smallest width of the shape over all directions: a circle's diameter; for a polygon,
    /// the narrowest of its widths across its edge normals (where the minimum width of a convex
    /// polygon is always found), plus the rounding on both sides.
    pub(crate) fn smallest_extent(&self) -> f32 {
        match self {
            Shape::Circle(c) => 2.0 * c.radius,
            Shape::Polygon(p) => {
                let vertices = &p.vertices[..p.count];
                let width = |i: usize| {
                    vertices
                        .iter()
                        .map(|&v| p.normals[i].dot(vertices[i] - v))
                        .fold(0.0, f32::max)
                };
                (0..p.count).map(width).fold(f32::MAX, f32::min) + 2.0 * p.radius
            }
        }
    }

    /// The tight world box of the shape when its body origin is placed by `xf`, rounding
    /// radius included.
    #[inline(always)]
    pub fn aabb(&self, xf: Transform) -> Aabb {
        match self {
            Shape::Circle(circle) => circle.aabb(xf),
            Shape::Polygon(polygon) => polygon.aabb(xf),
        }
    }

    /// The broadphase box of the shape placed by `xf`: its tight box grown by `grow` on every
    /// side, then stretched along `motion` so that a moving body's box covers its path
    /// through the step.
    pub(crate) fn swept_aabb(&self, xf: Transform, grow: f32, motion: Vec2) -> Aabb {
        swept(self.aabb(xf), grow, motion)
    }
}

/// A tight box grown by `grow` on every side, then stretched along `motion`.
fn swept(tight: Aabb, grow: f32, motion: Vec2) -> Aabb {
    let grown = tight.fattened(grow);
    Aabb::new(
        grown.min + motion.min(Vec2::ZERO),
        grown.max + motion.max(Vec2::ZERO),
    )
}

/// A rectangle whose edges are parallel to its body's axes (a box, the commonest shape),
/// rounding radius included: its world box follows from the rotation alone, without the
/// shape's vertices. The bodies' boxes are recomputed every step, and reading each body's
/// whole shape for them cost more than the arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LocalBox {
    /// Centre in the body frame.
    center: Vec2,
    /// Half the width and height, rounding excluded.
    half: Vec2,
    radius: f32,
    /// Whether the polygon is exactly [`LocalBox::hull`], bit for bit and in its order.
    exact: bool,
}

/// A rectangle's vertices in the order of a polygon's, whose edge normals are
/// [`BOX_NORMALS`]: see [`LocalBox::hull`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoxHull {
    pub vertices: [Vec2; 4],
    pub radius: f32,
}

/// The outward normals of a rectangle's edges, from its lower left corner on: those of every
/// [`BoxHull`], kept once rather than copied into each (a hull is built per pair of boxes).
pub(crate) const BOX_NORMALS: [Vec2; 4] = [
    Vec2::new(0.0, -1.0),
    Vec2::new(1.0, 0.0),
    Vec2::new(0.0, 1.0),
    Vec2::new(-1.0, 0.0),
];

impl LocalBox {
    /// The shape's box if it is such a rectangle; `None` for any other shape.
    pub fn of(shape: &Shape) -> Option<LocalBox> {
        let Shape::Polygon(polygon) = shape else {
            return None;
        };
        let normals = &polygon.normals[..polygon.count];
        if polygon.count != 4 || !normals.iter().all(|n| n.x == 0.0 || n.y == 0.0) {
            return None;
        }
        let vertices = polygon.vertices();
        let lower = vertices.iter().fold(vertices[0], |m, &v| m.min(v));
        let upper = vertices.iter().fold(vertices[0], |m, &v| m.max(v));
        let mut local = LocalBox {
            center: (lower + upper) * 0.5,
            half: (upper - lower) * 0.5,
            radius: polygon.radius,
            exact: false,
        };
        let same = |p: &[Vec2], q: &[Vec2]| {
            let bits = |v: &Vec2| (v.x.to_bits(), v.y.to_bits());
            p.iter().map(bits).eq(q.iter().map(bits))
        };
        local.exact = same(vertices, &local.corners()) && same(normals, &BOX_NORMALS);
        Some(local)
    }

    /// The rectangle's vertices (counter-clockwise from the lower left corner) and radius,
    /// if they and [`BOX_NORMALS`] are exactly its polygon's: a box made by [`Shape::rect`], or by an
    /// unturned [`Shape::offset_rect`] whose centre and half extents give its corners back. A
    /// collide can then build the hull from the body's columns and give the same bits without
    /// reading the polygon, which lives apart from them.
    #[inline(always)]
    pub fn hull(&self) -> Option<BoxHull> {
        self.exact.then(|| BoxHull {
            vertices: self.corners(),
            radius: self.radius,
        })
    }

    #[inline(always)]
    fn corners(&self) -> [Vec2; 4] {
        let (c, h) = (self.center, self.half);
        [
            Vec2::new(c.x - h.x, c.y - h.y),
            Vec2::new(c.x + h.x, c.y - h.y),
            Vec2::new(c.x + h.x, c.y + h.y),
            Vec2::new(c.x - h.x, c.y + h.y),
        ]
    }

    /// The rectangle as the box kernels read it.
    #[inline(always)]
    pub fn box_shape(&self) -> BoxShape {
        let (c, h) = (self.center, self.half);
        BoxShape::new([c.x, c.y], [h.x, h.y], self.radius)
    }
}

/// The shape as the box kernels read it, where it is a rectangle aligned with its body's axes
/// (`local_box`, its [`LocalBox`]) or a circle, a rectangle of no width: its world box is then
/// the kernels' [`BoxShape`]'s, bit for bit (the centre less and plus a zero extent is the
/// centre, before the radius is taken off and added). `None` for any other shape.
#[inline(always)]
pub(crate) fn box_shape(local_box: &Option<LocalBox>, shape: &Shape) -> Option<BoxShape> {
    match (local_box, shape) {
        (Some(local_box), _) => Some(local_box.box_shape()),
        (None, Shape::Circle(c)) => {
            Some(BoxShape::new([c.center.x, c.center.y], [0.0; 2], c.radius))
        }
        (None, Shape::Polygon(_)) => None,
    }
}

impl Circle {
    fn aabb(&self, xf: Transform) -> Aabb {
        let p = xf.apply(self.center);
        let r = Vec2::new(self.radius, self.radius);
        Aabb::new(p - r, p + r)
    }
}

impl Polygon {
    /// The box of the turned vertices, moved by `xf.p` once at the end: a sum rounds
    /// monotonically in each term, so the least of the moved vertices is the least one moved,
    /// bit for bit, and a move per vertex bought nothing. Inlined: the broadphase's boxes
    /// take one per polygon every step, and a call kept the caller's registers on the stack.
    #[inline(always)]
    fn aabb(&self, xf: Transform) -> Aabb {
        let first = xf.q.rotate(self.vertices[0]);
        let (mut lower, mut upper) = (first, first);
        for &v in &self.vertices()[1..] {
            let p = xf.q.rotate(v);
            // Selects rather than `f32::min` and `max`, whose care for a NaN on either side
            // cost more than the comparison: a lane is NaN at every vertex or at none (the
            // vertices are finite, a rotation finite or NaN), where both give the same.
            let pick = |take: bool, p: f32, kept: f32| if take { p } else { kept };
            lower = Vec2::new(
                pick(p.x < lower.x, p.x, lower.x),
                pick(p.y < lower.y, p.y, lower.y),
            );
            upper = Vec2::new(
                pick(p.x > upper.x, p.x, upper.x),
                pick(p.y > upper.y, p.y, upper.y),
            );
        }
        Aabb::new(lower + xf.p, upper + xf.p).fattened(self.radius)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::math::Rot;
    use crate::geometry::shape::v;
    use batch2d_kernels::bounds::{scalar, BoxBodies, BoxParams};
    /// The box kernels' box of `shape` placed by `xf`, grown by `grow` and swept along
    /// `motion`, if they take the shape: one body with its centre of mass at its origin, not
    /// turning, moving by `motion` in a step of 1.
    fn kernel_box(shape: &Shape, xf: Transform, grow: f32, motion: Vec2) -> Option<Aabb> {
        let shape = box_shape(&LocalBox::of(shape), shape)?;
        let bodies = BoxBodies {
            center: &[[xf.p.x, xf.p.y]],
            rotation: &[[xf.q.c, xf.q.s]],
            local_center: &[[0.0, 0.0]],
            linear: &[[motion.x, motion.y]],
            angular: &[0.0],
            reach: &[1.0],
            shape: &[shape],
        };
        let params = BoxParams {
            margin: grow,
            dt: 1.0,
        };
        let [x0, y0, x1, y1] = scalar::body_box(&bodies, 0, &params);
        Some(Aabb::new(Vec2::new(x0, y0), Vec2::new(x1, y1)))
    }

    /// A rectangle's box from its rotation alone, as the box kernels find it, matches the
    /// swept box of its turned vertices, off centre and rounded too, at every turn; a circle's
    /// is its swept box exactly; other shapes have none.
    #[test]
    fn the_kernel_box_matches_the_box_of_the_turned_shape() {
        let corners = [v(-1.0, -0.5), v(1.0, -0.5), v(1.0, 0.5), v(-1.0, 0.5)];
        let rectangles = [
            Shape::rect(0.5, 0.5),
            Shape::rect(2.0, 0.25),
            Shape::offset_rect(0.3, 0.7, v(1.5, -2.0), 0.0),
            Shape::rounded_polygon(&corners, 0.1),
        ];
        let circles = [Shape::circle(1.0), Shape::circle_at(v(0.3, -1.7), 0.25)];
        let motions = [v(0.0, 0.0), v(0.5, -2.0), v(-1.0, 0.25)];
        for k in 0..64 {
            let xf = Transform::new(v(3.0, -7.0), Rot::from_angle(k as f32 * 0.1));
            let motion = motions[k % motions.len()];
            for shape in rectangles.clone().map(Result::unwrap) {
                let fast = kernel_box(&shape, xf, 0.02, motion).expect("a rectangle has one");
                let swept = shape.swept_aabb(xf, 0.02, motion);
                let pairs = [
                    (fast.min.x, swept.min.x),
                    (fast.min.y, swept.min.y),
                    (fast.max.x, swept.max.x),
                    (fast.max.y, swept.max.y),
                ];
                for (a, b) in pairs {
                    assert!((a - b).abs() <= 1e-5, "{shape:?} turned {k}: {a} vs {b}");
                }
            }
            for shape in circles.clone().map(Result::unwrap) {
                let fast = kernel_box(&shape, xf, 0.02, motion).expect("a circle has one");
                assert_eq!(
                    fast,
                    shape.swept_aabb(xf, 0.02, motion),
                    "{shape:?} turned {k}"
                );
            }
        }
        let others = [
            Shape::offset_rect(0.5, 0.5, Vec2::ZERO, 0.3),
            Shape::polygon(&[v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0)]),
            Shape::capsule(v(-1.0, 0.0), v(1.0, 0.0), 0.2),
        ];
        for shape in others.map(Result::unwrap) {
            assert_eq!(LocalBox::of(&shape), None, "{shape:?}");
            assert_eq!(
                kernel_box(&shape, Transform::IDENTITY, 0.0, Vec2::ZERO),
                None
            );
        }
    }

    /// A rectangle's hull from its local box is its polygon bit for bit, or there is none: a
    /// box whose centre and half extents do not give its corners back exactly, or a polygon
    /// whose normals carry a -0, keeps to its polygon.
    #[test]
    fn a_box_hull_is_its_polygon_bit_for_bit() {
        let bits = |vs: &[Vec2]| vs.iter().map(|v| (v.x.to_bits(), v.y.to_bits())).collect();
        let bits: fn(&[Vec2]) -> Vec<(u32, u32)> = bits;
        let square = [v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0)];
        let cases = [
            (Shape::rect(0.5, 0.5), true),
            (Shape::rect(2.0, 0.25), true),
            (Shape::offset_rect(0.3, 0.7, v(1.5, -2.0), 0.0), true),
            (Shape::offset_rect(0.1, 0.3, v(0.7, 0.2), 0.0), false),
            (Shape::polygon(&square), false),
            (Shape::rounded_polygon(&square, 0.1), false),
        ];
        for (shape, has_hull) in cases.map(|(s, h)| (s.unwrap(), h)) {
            let Shape::Polygon(polygon) = &shape else {
                unreachable!("every case is a polygon")
            };
            let local = LocalBox::of(&shape).expect("a rectangle has a local box");
            assert_eq!(local.hull().is_some(), has_hull, "{shape:?}");
            if let Some(hull) = local.hull() {
                assert_eq!(bits(&hull.vertices), bits(polygon.vertices()), "{shape:?}");
                assert_eq!(bits(&BOX_NORMALS), bits(polygon.normals()), "{shape:?}");
                assert_eq!(hull.radius.to_bits(), polygon.radius.to_bits());
            }
        }
    }
}
