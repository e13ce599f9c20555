//! Whether two convex shapes overlap, decided in f64 in the world frame, for the overlap
//! queries.
//!
//! A query may hold a box or a shape of 1e20 m against bodies of a few centimetres. GJK in f32
//! on such a pair loses the small shape in the rounding of the large one's corners and can
//! report a body deep inside a box as apart. Here both cores (at most 8 points each) are
//! placed in f64, which holds both scales, and tested directly: they overlap when a point of
//! one lies in the other or two of their edges cross, and otherwise they are as far apart as
//! the nearest pair of a point of one and an edge of the other.

use crate::geometry::math::{DVec2, Transform, Vec2};
use crate::geometry::shape::{Shape, MAX_POLYGON_VERTICES};

/// A shape's core placed in the world, with its rounding radius.
pub(crate) struct Core {
    points: [DVec2; MAX_POLYGON_VERTICES],
    count: usize,
    radius: f64,
}

impl Core {
    /// The core of `shape` with its body origin placed by `xf`.
    pub fn of(shape: &Shape, xf: Transform) -> Core {
        let place = |v: Vec2| DVec2::from(xf.p) + DVec2::from(v).rotated(xf.q);
        match shape {
            Shape::Circle(c) => Core::new([place(c.center)], c.radius.into()),
            Shape::Polygon(p) => {
                let corners = p.vertices[..p.count].iter().map(|&v| place(v));
                Core::new(corners, p.radius.into())
            }
        }
    }

    /// The box `min..=max`, corners counter-clockwise: a segment when it has no width or no
    /// height, a point when it has neither.
    pub fn rect(min: Vec2, max: Vec2) -> Core {
        let (lo, hi) = (DVec2::from(min), DVec2::from(max));
        Core::new(
            [lo, DVec2::new(hi.x, lo.y), hi, DVec2::new(lo.x, hi.y)],
            0.0,
        )
    }

    /// The core through `corners` (counter-clockwise, at most [`MAX_POLYGON_VERTICES`]) with
    /// repeated corners dropped, so that a box without width or height becomes a segment or a
    /// point, as does a small polygon whose corners round together in f64 far out. An edge of
    /// zero length would leave every point on its left, and `contains` would accept points
    /// anywhere on the line through the others, or anywhere at all: a box of zero size
    /// reported every body whose box it touched.
    fn new(corners: impl IntoIterator<Item = DVec2>, radius: f64) -> Core {
        let mut points = [DVec2::default(); MAX_POLYGON_VERTICES];
        let mut count = 0;
        for p in corners {
            if count == 0 || points[count - 1] != p {
                points[count] = p;
                count += 1;
            }
        }
        while count > 1 && points[count - 1] == points[0] {
            count -= 1;
        }
        Core {
            points,
            count,
            radius,
        }
    }

    fn points(&self) -> &[DVec2] {
        &self.points[..self.count]
    }

    /// The core's edges; a point has none and a segment one.
    fn edges(&self) -> impl Iterator<Item = (DVec2, DVec2)> + '_ {
        let n = self.count;
        let edges = match n {
            1 => 0,
            2 => 1,
            _ => n,
        };
        (0..edges).map(move |i| (self.points[i], self.points[(i + 1) % n]))
    }

    /// Whether `p` lies in the core (boundary included); only an area can hold a point here,
    /// a point or segment touching `p` is found by the distance instead.
    fn contains(&self, p: DVec2) -> bool {
        self.count >= 3 && self.edges().all(|(a, b)| (b - a).cross(p - a) >= 0.0)
    }
}

/// Whether the two shapes overlap or touch.
pub(crate) fn overlap(a: &Core, b: &Core) -> bool {
    let reach = a.radius + b.radius;
    let contained =
        a.points().iter().any(|&p| b.contains(p)) || b.points().iter().any(|&p| a.contains(p));
    contained || edges_cross(a, b) || nearer_than(a, b, reach)
}

/// Whether an edge of `a` and an edge of `b` cross, each one's ends strictly on opposite
/// sides of the other (touching is left to the distance).
fn edges_cross(a: &Core, b: &Core) -> bool {
    let side = |(p, q): (DVec2, DVec2), r: DVec2| (q - p).cross(r - p);
    a.edges().any(|ea| {
        b.edges().any(|eb| {
            side(ea, eb.0) * side(ea, eb.1) < 0.0 && side(eb, ea.0) * side(eb, ea.1) < 0.0
        })
    })
}

/// Whether some point of one core lies within `reach` of the other (of one of its edges,
/// or of its only point).
fn nearer_than(a: &Core, b: &Core, reach: f64) -> bool {
    let rr = reach * reach;
    let near = |p: DVec2, core: &Core| {
        if core.count == 1 {
            (p - core.points[0]).length_squared() <= rr
        } else {
            core.edges()
                .any(|(s, e)| segment_distance_squared(p, s, e) <= rr)
        }
    };
    a.points().iter().any(|&p| near(p, b)) || b.points().iter().any(|&p| near(p, a))
}

/// Squared distance from `p` to the segment `a..b`: off the segment's ends, to the nearer end;
/// beside it, to its line by the cross product, since the nearest point `a + t e` itself is
/// rounded at the scale of the segment, which may be 1e20 m long and pass 1 cm from `p`.
fn segment_distance_squared(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let e = b - a;
    let along = (p - a).dot(e);
    if along <= 0.0 {
        (p - a).length_squared()
    } else if along >= e.length_squared() {
        (p - b).length_squared()
    } else {
        let across = e.cross(p - a);
        across * across / e.length_squared()
    }
}
