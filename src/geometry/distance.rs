//! Distance between convex shapes: GJK closest points, EPA penetration depth, and time of
//! impact by conservative advancement.
//!
//! Every shape is seen as a convex *core* (a circle's centre, a polygon's vertices) grown by a
//! rounding radius. GJK and EPA work on the cores only, through support points of their
//! Minkowski difference `B - A`; the radii are added at the end. Like the narrowphase, pairs
//! are solved in A's frame (B brought in by `xf_a.inv_mul(xf_b)`), so two shapes far from the
//! world origin keep the precision of their small relative offset.

use crate::error::Error;
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::geometry::shape::{next_index, Shape, LINEAR_SLOP, MAX_POLYGON_VERTICES};

/// GJK iteration cap. Each iteration adds a support point of the Minkowski difference of two
/// cores of at most 8 points each; a converging run needs far fewer, the cap only stops
/// rounding from cycling forever.
const MAX_GJK_ITERATIONS: usize = 24;

/// Core gap below which GJK reports the cores as touching: the origin then lies on the
/// simplex up to rounding, and no direction between the cores can be trusted.
const CORE_TOUCH_DISTANCE: f32 = 1.0e-6;

/// Most vertices of the EPA polygon: the Minkowski difference of two 8-gons has at most 16,
/// plus room for the few collinear support points rounding can add.
const EPA_CAPACITY: usize = 2 * MAX_POLYGON_VERTICES + 4;

/// Conservative advancement iteration cap. Pure translation converges in one or two
/// iterations; fast rotation needs more because its speed bound is loose. On reaching the cap
/// the result is still safe (the shapes are apart at the returned fraction), only early.
pub(crate) const MAX_TOI_ITERATIONS: usize = 64;

/// Gap [`time_of_impact`] stops at: it returns the first fraction at which the shapes are
/// between `TOI_TARGET` and `TOI_TARGET + TOI_TOLERANCE` apart. Stopping short of contact
/// keeps rounding from ever placing the shapes in overlap.
pub(crate) const TOI_TARGET: f32 = 0.25 * LINEAR_SLOP;

/// Width of the gap band accepted as "at the target" by [`time_of_impact`].
pub(crate) const TOI_TOLERANCE: f32 = 0.25 * LINEAR_SLOP;

/// Normal used where no direction is better than another (two coincident circle centres).
const FALLBACK_NORMAL: Vec2 = Vec2::new(0.0, 1.0);

/// Closest points between two shapes, from [`distance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceOutput {
    /// Distance between the surfaces, rounding included; 0 when the shapes touch or overlap.
    pub distance: f32,
    /// Point of shape A closest to B (world frame).
    pub point_a: Vec2,
    /// Point of shape B closest to A (world frame). Equal to `point_a` when the shapes overlap.
    pub point_b: Vec2,
    /// Unit world direction from A towards B; zero when the cores (the shapes without their
    /// rounding) overlap, where [`penetration`] gives a direction.
    pub normal: Vec2,
}

/// How deep two overlapping shapes are, from [`penetration`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration {
    /// Length of the shortest translation of B that separates the shapes, > 0.
    pub depth: f32,
    /// Unit world direction of that translation: from A towards B.
    pub normal: Vec2,
    /// The point of A deepest inside B (world frame).
    pub point_a: Vec2,
    /// The point of B deepest inside A: `point_a - depth * normal`.
    pub point_b: Vec2,
}

/// The motion of a body over a time interval mapped to fractions `0..=1`: its pivot moves on a
/// straight line and its angle changes at a constant rate, as the solver integrates them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// The pivot in the body frame (the centre of mass for a simulated body).
    pub local_center: Vec2,
    /// World position of the pivot at fraction 0.
    pub c0: Vec2,
    /// World position of the pivot at fraction 1.
    pub c1: Vec2,
    /// Angle (radians) at fraction 0.
    pub a0: f32,
    /// Angle (radians) at fraction 1.
    pub a1: f32,
}

impl Sweep {
    /// A body that stays at `xf`.
    pub fn fixed(xf: Transform) -> Sweep {
        Sweep::translation(xf, Vec2::ZERO)
    }

    /// A body that starts at `xf` and moves by `translation` without turning.
    pub fn translation(xf: Transform, translation: Vec2) -> Sweep {
        let angle = xf.q.angle();
        Sweep {
            local_center: Vec2::ZERO,
            c0: xf.p,
            c1: xf.p + translation,
            a0: angle,
            a1: angle,
        }
    }

    /// Transform of the body origin at `fraction`.
    pub fn transform_at(&self, fraction: f32) -> Transform {
        let center = self.c0 + (self.c1 - self.c0) * fraction;
        let q = if self.a0 == self.a1 {
            Rot::from_angle(self.a0)
        } else {
            Rot::from_angle(self.a0 + (self.a1 - self.a0) * fraction)
        };
        Transform::new(center - q.rotate(self.local_center), q)
    }

    fn validate(&self) -> Result<(), Error> {
        let finite = self.local_center.is_finite()
            && self.c0.is_finite()
            && self.c1.is_finite()
            && self.a0.is_finite()
            && self.a1.is_finite();
        if finite {
            Ok(())
        } else {
            Err(Error::InvalidParameter(format!(
                "sweep must be finite, got {self:?}"
            )))
        }
    }
}

/// How a [`time_of_impact`] search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToiState {
    /// The shapes come within a quarter of the linear slop (1.25 mm), or up to twice that, of
    /// each other at `fraction`.
    Hit,
    /// They stay further apart than that up to the maximum fraction.
    Separated,
    /// They already overlap at fraction 0.
    Overlapping,
    /// The search's 64 iterations ran out; the shapes are still apart at `fraction`, the
    /// last safe fraction found.
    Unconverged,
}

/// The result of [`time_of_impact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToiOutput {
    /// How the search ended.
    pub state: ToiState,
    /// The fraction reached: the hit for `Hit`, the maximum fraction for `Separated`, 0 for
    /// `Overlapping`.
    pub fraction: f32,
}

/// Distance and closest points between shape `a` with its body origin at `xf_a` and shape `b`
/// at `xf_b`. `Err` for a non-finite or non-unit transform.
pub fn distance(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
) -> Result<DistanceOutput, Error> {
    check_transforms(xf_a, xf_b)?;
    Ok(shape_distance(a, xf_a, b, xf_b))
}

/// Penetration depth, direction and deepest points of two overlapping shapes (EPA for
/// overlapping cores); `Ok(None)` when they do not overlap. `Err` as for [`distance`].
pub fn penetration(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
) -> Result<Option<Penetration>, Error> {
    check_transforms(xf_a, xf_b)?;
    Ok(shape_penetration(a, xf_a, b, xf_b))
}

/// The first fraction in `0..=max_fraction` of the two sweeps at which the shapes come within
/// 1.25 mm to 2.5 mm of each other (a quarter to a half of the linear slop: stopping short of
/// contact keeps rounding from placing them in overlap), by conservative advancement: at each iterate, the GJK gap
/// divided by a bound on how fast the shapes can approach is a time they certainly stay apart,
/// so the search never steps past the contact. `Err` for a non-finite sweep or `max_fraction`
/// outside `0..=1`.
pub fn time_of_impact(
    a: &Shape,
    sweep_a: &Sweep,
    b: &Shape,
    sweep_b: &Sweep,
    max_fraction: f32,
) -> Result<ToiOutput, Error> {
    sweep_a.validate()?;
    sweep_b.validate()?;
    if !(0.0..=1.0).contains(&max_fraction) {
        return Err(Error::InvalidParameter(format!(
            "max_fraction must be in 0..=1, got {max_fraction}"
        )));
    }
    let (pa, pb) = (Proxy::new(a), Proxy::new(b));
    Ok(advance(
        &pa,
        sweep_a,
        &pb,
        sweep_b,
        max_fraction,
        TOI_TARGET,
        TOI_TOLERANCE,
    ))
}

/// [`check_transform`] of both poses of a pair.
#[inline]
pub(crate) fn check_transforms(xf_a: Transform, xf_b: Transform) -> Result<(), Error> {
    check_transform("xf_a", xf_a)?;
    check_transform("xf_b", xf_b)
}

/// `Err(InvalidParameter)` unless `xf` is finite with a unit rotation (within 1e-3).
///
/// Inlined, its message built apart: the checked calls (`collide`, `distance`, the world's
/// queries) pay only the test itself for a valid pose.
#[inline]
pub(crate) fn check_transform(name: &str, xf: Transform) -> Result<(), Error> {
    let norm = xf.q.c * xf.q.c + xf.q.s * xf.q.s;
    if xf.p.is_finite() && (norm - 1.0).abs() <= 1.0e-3 {
        Ok(())
    } else {
        Err(invalid_transform(name, xf))
    }
}

/// The error of [`check_transform`] for `xf`, named `name`.
#[cold]
fn invalid_transform(name: &str, xf: Transform) -> Error {
    Error::InvalidParameter(format!(
        "{name} must be finite with a unit rotation, got {xf:?}"
    ))
}

/// [`distance`] without input checks.
pub(crate) fn shape_distance(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
) -> DistanceOutput {
    let pa = Proxy::new(a);
    let pb = Proxy::new(b).transformed(xf_a.inv_mul(xf_b));
    let core = gjk(&pa, &pb);
    let radius = pa.radius + pb.radius;
    let (gap, point_a, point_b, normal) = if core.overlap {
        (0.0, core.point_a, core.point_a, Vec2::ZERO)
    } else {
        let n = (core.point_b - core.point_a) * (1.0 / core.distance);
        let on_a = core.point_a + n * pa.radius;
        let on_b = core.point_b - n * pb.radius;
        if core.distance > radius {
            (core.distance - radius, on_a, on_b, n)
        } else {
            let mid = (on_a + on_b) * 0.5;
            (0.0, mid, mid, n)
        }
    };
    DistanceOutput {
        distance: gap,
        point_a: xf_a.apply(point_a),
        point_b: xf_a.apply(point_b),
        normal: xf_a.q.rotate(normal),
    }
}

/// [`penetration`] without input checks.
pub(crate) fn shape_penetration(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
) -> Option<Penetration> {
    let pa = Proxy::new(a);
    let pb = Proxy::new(b).transformed(xf_a.inv_mul(xf_b));
    let core = gjk(&pa, &pb);
    let radius = pa.radius + pb.radius;
    let (core_depth, normal, on_a, on_b) = if core.overlap {
        epa(&pa, &pb)
    } else {
        let n = (core.point_b - core.point_a) * (1.0 / core.distance);
        (-core.distance, n, core.point_a, core.point_b)
    };
    let depth = core_depth + radius;
    if depth <= 0.0 {
        return None;
    }
    Some(Penetration {
        depth,
        normal: xf_a.q.rotate(normal),
        point_a: xf_a.apply(on_a + normal * pa.radius),
        point_b: xf_a.apply(on_b - normal * pb.radius),
    })
}

/// A shape as GJK sees it: a convex core of 1..=8 points and a rounding radius.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proxy {
    points: [Vec2; MAX_POLYGON_VERTICES],
    count: usize,
    pub radius: f32,
}

impl Proxy {
    /// The core and radius of `shape` in its body frame.
    pub fn new(shape: &Shape) -> Proxy {
        match shape {
            Shape::Circle(c) => Proxy::circle(c.center, c.radius),
            Shape::Polygon(p) => Proxy {
                points: p.vertices,
                count: p.count,
                radius: p.radius,
            },
        }
    }

    /// A disc of `radius` at `center`.
    pub fn circle(center: Vec2, radius: f32) -> Proxy {
        let mut points = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        points[0] = center;
        Proxy {
            points,
            count: 1,
            radius,
        }
    }

    /// The same proxy with its points mapped by `xf`.
    pub fn transformed(mut self, xf: Transform) -> Proxy {
        for p in &mut self.points[..self.count] {
            *p = xf.apply(*p);
        }
        self
    }

    fn core(&self) -> &[Vec2] {
        &self.points[..self.count]
    }

    /// Index of the core point farthest along `d`; the first one on ties, so the result is
    /// a pure function of the input.
    fn support(&self, d: Vec2) -> usize {
        let mut best = 0;
        let mut best_value = self.points[0].dot(d);
        for (i, p) in self.core().iter().enumerate().skip(1) {
            let value = p.dot(d);
            if value > best_value {
                best = i;
                best_value = value;
            }
        }
        best
    }

    /// Farthest distance from `pivot` to a core point: how far any core point can move per
    /// radian of turn about `pivot`. The rounding does not count: it turns with its core point
    /// and so never moves towards the other shape along the core gap.
    fn reach_from(&self, pivot: Vec2) -> f32 {
        self.core()
            .iter()
            .map(|&p| (p - pivot).length())
            .fold(0.0, f32::max)
    }
}

/// A point of the Minkowski difference `B - A` with the core points it came from.
#[derive(Clone, Copy, Debug, Default)]
struct SupportPoint {
    on_a: Vec2,
    on_b: Vec2,
    /// `on_b - on_a`.
    w: Vec2,
    index_a: usize,
    index_b: usize,
}

impl SupportPoint {
    /// The support point of `B - A` farthest along `d`.
    fn along(a: &Proxy, b: &Proxy, d: Vec2) -> SupportPoint {
        let index_a = a.support(-d);
        let index_b = b.support(d);
        SupportPoint::of(a, b, index_a, index_b)
    }

    fn of(a: &Proxy, b: &Proxy, index_a: usize, index_b: usize) -> SupportPoint {
        let on_a = a.points[index_a];
        let on_b = b.points[index_b];
        SupportPoint {
            on_a,
            on_b,
            w: on_b - on_a,
            index_a,
            index_b,
        }
    }

    fn same_features(&self, o: &SupportPoint) -> bool {
        self.index_a == o.index_a && self.index_b == o.index_b
    }
}

/// GJK's simplex: 1 to 3 support points with the barycentric weights of the point closest to
/// the origin.
struct Simplex {
    points: [SupportPoint; 3],
    weights: [f32; 3],
    count: usize,
}

/// Closest points between two cores, from [`gjk`].
struct CoreDistance {
    point_a: Vec2,
    point_b: Vec2,
    distance: f32,
    /// The cores overlap or touch: `distance` is 0 and the points are one common point.
    overlap: bool,
}

/// Closest points of the cores of `a` and `b`, both given in the same frame.
fn gjk(a: &Proxy, b: &Proxy) -> CoreDistance {
    let mut simplex = Simplex {
        points: [SupportPoint::of(a, b, 0, 0); 3],
        weights: [1.0, 0.0, 0.0],
        count: 1,
    };
    for _ in 0..MAX_GJK_ITERATIONS {
        let previous = simplex.points;
        let previous_count = simplex.count;
        simplex.reduce();
        if simplex.count == 3 {
            break; // The origin is inside the triangle: the cores overlap.
        }
        let d = simplex.search_direction();
        if d.length_squared() <= CORE_TOUCH_DISTANCE * CORE_TOUCH_DISTANCE {
            break; // The origin lies on the simplex.
        }
        let next = SupportPoint::along(a, b, d);
        // A support point already in the simplex means no point of `B - A` lies closer to
        // the origin than the simplex does: converged.
        if previous[..previous_count]
            .iter()
            .any(|p| p.same_features(&next))
        {
            break;
        }
        simplex.points[simplex.count] = next;
        simplex.count += 1;
    }
    simplex.closest_points()
}

impl Simplex {
    /// Keeps the sub-simplex whose Voronoi region holds the origin and sets the weights of
    /// the closest point on it.
    fn reduce(&mut self) {
        match self.count {
            2 => self.reduce_segment(),
            3 => self.reduce_triangle(),
            _ => self.weights[0] = 1.0,
        }
    }

    fn reduce_segment(&mut self) {
        let (w1, w2) = (self.points[0].w, self.points[1].w);
        let e12 = w2 - w1;
        // Unnormalised barycentric coordinates of the origin's projection on the segment.
        let u = w2.dot(e12);
        let v = -w1.dot(e12);
        if v <= 0.0 {
            self.keep_vertex(0);
        } else if u <= 0.0 {
            self.keep_vertex(1);
        } else {
            self.set_edge(u, v);
        }
    }

    fn reduce_triangle(&mut self) {
        let [w1, w2, w3] = [self.points[0].w, self.points[1].w, self.points[2].w];
        let (e12, e13, e23) = (w2 - w1, w3 - w1, w3 - w2);
        let (u12, v12) = (w2.dot(e12), -w1.dot(e12));
        let (u13, v13) = (w3.dot(e13), -w1.dot(e13));
        let (u23, v23) = (w3.dot(e23), -w2.dot(e23));
        // Signed areas of the sub-triangles facing each vertex, with the triangle's winding.
        let n = e12.cross(e13);
        let t1 = n * w2.cross(w3);
        let t2 = n * w3.cross(w1);
        let t3 = n * w1.cross(w2);

        if v12 <= 0.0 && v13 <= 0.0 {
            self.keep_vertex(0);
        } else if u12 > 0.0 && v12 > 0.0 && t3 <= 0.0 {
            self.count = 2;
            self.set_edge(u12, v12);
        } else if u13 > 0.0 && v13 > 0.0 && t2 <= 0.0 {
            self.points[1] = self.points[2];
            self.count = 2;
            self.set_edge(u13, v13);
        } else if u12 <= 0.0 && v23 <= 0.0 {
            self.keep_vertex(1);
        } else if u13 <= 0.0 && u23 <= 0.0 {
            self.keep_vertex(2);
        } else if u23 > 0.0 && v23 > 0.0 && t1 <= 0.0 {
            self.points[0] = self.points[2];
            self.count = 2;
            // Now points[0] = w3, points[1] = w2.
            self.set_edge(v23, u23);
        } else {
            let inv = 1.0 / (t1 + t2 + t3);
            self.weights = [t1 * inv, t2 * inv, t3 * inv];
        }
    }

    fn keep_vertex(&mut self, i: usize) {
        self.points[0] = self.points[i];
        self.weights[0] = 1.0;
        self.count = 1;
    }

    /// Weights of a segment from its unnormalised barycentric coordinates: `u` for the first
    /// point, `v` for the second.
    fn set_edge(&mut self, u: f32, v: f32) {
        let inv = 1.0 / (u + v);
        self.weights[0] = u * inv;
        self.weights[1] = v * inv;
        self.count = 2;
    }

    /// Direction from the simplex towards the origin. For a segment it is the segment's
    /// normal on the origin's side rather than minus the closest point, which loses its
    /// direction to cancellation when the origin is nearly on the segment.
    fn search_direction(&self) -> Vec2 {
        let w1 = self.points[0].w;
        if self.count == 1 {
            return -w1;
        }
        let e12 = self.points[1].w - w1;
        if e12.cross(-w1) > 0.0 {
            e12.left_perp()
        } else {
            e12.right_perp()
        }
    }

    fn closest_points(&self) -> CoreDistance {
        let mut point_a = Vec2::ZERO;
        let mut point_b = Vec2::ZERO;
        for (p, &weight) in self.points[..self.count].iter().zip(&self.weights) {
            point_a += p.on_a * weight;
            point_b += p.on_b * weight;
        }
        let distance = (point_b - point_a).length();
        if self.count == 3 || distance <= CORE_TOUCH_DISTANCE {
            CoreDistance {
                point_a,
                point_b: point_a,
                distance: 0.0,
                overlap: true,
            }
        } else {
            CoreDistance {
                point_a,
                point_b,
                distance,
                overlap: false,
            }
        }
    }
}

/// Unit directions the EPA polygon starts from, 45 degrees apart, counter-clockwise.
const START_DIRECTIONS: [Vec2; 8] = {
    const H: f32 = std::f32::consts::FRAC_1_SQRT_2;
    [
        Vec2::new(1.0, 0.0),
        Vec2::new(H, H),
        Vec2::new(0.0, 1.0),
        Vec2::new(-H, H),
        Vec2::new(-1.0, 0.0),
        Vec2::new(-H, -H),
        Vec2::new(0.0, -1.0),
        Vec2::new(H, -H),
    ]
};

/// EPA on overlapping cores given in the same frame: the face of `B - A` nearest the origin.
/// Returns `(depth, normal from A to B, deepest point of A's core, of B's core)`.
///
/// The polygon starts from support points in eight directions: in angular order they are in
/// counter-clockwise order on the boundary of `B - A`, so the polygon is convex. Each
/// iteration pushes out the edge nearest the origin with the support point along its normal,
/// which lies on the boundary arc between the edge's ends, so the polygon stays convex and
/// inscribed. An edge with nothing beyond it is a face of `B - A`; being the nearest edge of
/// a polygon inside `B - A`, it is the nearest face. Edges on the wrong side of the origin
/// (the start polygon need not contain it) have a negative distance and are pushed first.
fn epa(a: &Proxy, b: &Proxy) -> (f32, Vec2, Vec2, Vec2) {
    let mut poly = [SupportPoint::default(); EPA_CAPACITY];
    let mut n = 0;
    for d in START_DIRECTIONS {
        let p = SupportPoint::along(a, b, d);
        if n == 0 || !p.same_features(&poly[n - 1]) {
            poly[n] = p;
            n += 1;
        }
    }
    while n > 1 && poly[n - 1].same_features(&poly[0]) {
        n -= 1;
    }
    if n < 2 {
        // Both cores are single coincident points (two concentric circles).
        let p = poly[0];
        return (0.0, FALLBACK_NORMAL, p.on_a, p.on_b);
    }
    loop {
        let Some((edge, normal, gap)) = nearest_edge(&poly[..n]) else {
            let p = poly[0];
            return (0.0, FALLBACK_NORMAL, p.on_a, p.on_b);
        };
        let next = next_index(edge, n);
        let support = SupportPoint::along(a, b, normal);
        let gain = support.w.dot(normal) - gap;
        let tolerance = 1.0e-6 * (1.0 + support.w.length());
        let known = support.same_features(&poly[edge]) || support.same_features(&poly[next]);
        if gain <= tolerance || known || n == EPA_CAPACITY {
            return face_result(&poly[edge], &poly[next], normal, gap);
        }
        poly.copy_within(edge + 1..n, edge + 2);
        poly[edge + 1] = support;
        n += 1;
    }
}

/// The edge of a counter-clockwise polygon whose line is nearest the origin (signed: negative
/// when the origin is outside it), with its outward unit normal. `None` if every edge has zero
/// length.
fn nearest_edge(poly: &[SupportPoint]) -> Option<(usize, Vec2, f32)> {
    let mut best: Option<(usize, Vec2, f32)> = None;
    for i in 0..poly.len() {
        let p = poly[i].w;
        let q = poly[next_index(i, poly.len())].w;
        let Some(normal) = (q - p).right_perp().normalized() else {
            continue;
        };
        let gap = normal.dot(p);
        if best.is_none_or(|(_, _, g)| gap < g) {
            best = Some((i, normal, gap));
        }
    }
    best
}

/// The EPA answer for the face `p`-`q` of `B - A` with outward normal `n` at distance `gap`.
fn face_result(p: &SupportPoint, q: &SupportPoint, n: Vec2, gap: f32) -> (f32, Vec2, Vec2, Vec2) {
    // Where the origin projects onto the face, as a fraction from p to q.
    let e = q.w - p.w;
    let len2 = e.length_squared();
    let s = if len2 > 0.0 {
        (-p.w.dot(e) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let on_a = p.on_a + (q.on_a - p.on_a) * s;
    let on_b = p.on_b + (q.on_b - p.on_b) * s;
    // Moving B by -gap * n separates the cores; that is the direction from A to B.
    (gap, -n, on_a, on_b)
}

/// Conservative advancement of two proxies (each in its body frame) along their sweeps: the
/// first fraction at which their gap is within `target..=target + tolerance`.
///
/// At fraction `t` with gap `g` along the unit direction `n` between the closest points, the
/// separation of the shapes along the fixed axis `n` shrinks at most at rate
/// `mu = n · (v_a - v_b) + |w_a| reach_a + |w_b| reach_b` (translation along `n`, plus the
/// fastest any core point can turn). The gap is at least that separation, so the shapes stay
/// more than `target` apart until `t + (g - target) / mu`. With `mu <= 0` they never approach.
pub(crate) fn advance(
    a: &Proxy,
    sweep_a: &Sweep,
    b: &Proxy,
    sweep_b: &Sweep,
    max_fraction: f32,
    target: f32,
    tolerance: f32,
) -> ToiOutput {
    let band = (target, tolerance);
    advance_within(
        a,
        sweep_a,
        b,
        sweep_b,
        max_fraction,
        band,
        MAX_TOI_ITERATIONS,
    )
}

/// [`advance`] with at most `iterations` steps: where a search that runs out is costly (a
/// query that turns, whose speed bound is loose and whose answer the user acts on), more may
/// be given than the step's continuous collision can afford for every fast body.
pub(crate) fn advance_within(
    a: &Proxy,
    sweep_a: &Sweep,
    b: &Proxy,
    sweep_b: &Sweep,
    max_fraction: f32,
    (target, tolerance): (f32, f32),
    iterations: usize,
) -> ToiOutput {
    let radius = a.radius + b.radius;
    let reach = a.reach_from(sweep_a.local_center) * (sweep_a.a1 - sweep_a.a0).abs()
        + b.reach_from(sweep_b.local_center) * (sweep_b.a1 - sweep_b.a0).abs();
    let relative_velocity = (sweep_a.c1 - sweep_a.c0) - (sweep_b.c1 - sweep_b.c0);
    let mut t = 0.0;
    for _ in 0..iterations {
        let xf_a = sweep_a.transform_at(t);
        let xf_b = sweep_b.transform_at(t);
        let core = gjk(a, &b.transformed(xf_a.inv_mul(xf_b)));
        let gap = core.distance - radius;
        if core.overlap || gap <= target + tolerance {
            let state = if t == 0.0 && (core.overlap || gap <= 0.0) {
                ToiState::Overlapping
            } else {
                ToiState::Hit
            };
            return ToiOutput { state, fraction: t };
        }
        let normal = xf_a
            .q
            .rotate((core.point_b - core.point_a) * (1.0 / core.distance));
        let approach = normal.dot(relative_velocity) + reach;
        let next = t + (gap - target) / approach;
        if !(approach > 0.0 && next < max_fraction) {
            return ToiOutput {
                state: ToiState::Separated,
                fraction: max_fraction,
            };
        }
        if next == t {
            break; // The step is lost to rounding: no further progress is possible.
        }
        t = next;
    }
    ToiOutput {
        state: ToiState::Unconverged,
        fraction: t,
    }
}
