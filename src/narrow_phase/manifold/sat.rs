//! The separating-axis test between two polygon cores: each core's faces as columns, and the
//! deepest point of the other core along each of them, four faces to a vector where they fit.

use crate::geometry::math::{Rot, Transform, Vec2};
use wide::f32x4;

/// A polygon core as the narrowphase reads it: `vertices[i]` and the outward unit normal
/// `normals[i]` of the edge to the next vertex for `i < count`, in one frame. The slices may
/// run on past `count` (a polygon's whole arrays), so that the separating-axis test can read a
/// fixed width of them; what lies past `count` is finite and never decides anything.
#[derive(Clone, Copy)]
pub(super) struct Hull<'a> {
    pub(super) vertices: &'a [Vec2],
    pub(super) normals: &'a [Vec2],
    pub(super) count: usize,
    pub(super) radius: f32,
}

impl Hull<'_> {
    #[inline]
    pub(super) fn count(&self) -> usize {
        self.count
    }
}

/// A hull's first `N` faces as columns: normals `(x[i], y[i])` and offsets `n · v` of the
/// planes through their first vertices. The separating-axis test runs across the faces, one
/// point of the other hull at a time, a fixed width the compiler turns into vector
/// instructions; faces past the hull's count are computed and ignored.
pub(super) struct Faces<const N: usize> {
    pub(super) x: [f32; N],
    pub(super) y: [f32; N],
    pub(super) offset: [f32; N],
}

impl<const N: usize> Faces<N> {
    /// The first `N` faces of `hull` (its slices hold at least `N`).
    #[inline(always)]
    pub(super) fn of(hull: Hull) -> Faces<N> {
        let (normals, vertices) = (&hull.normals[..N], &hull.vertices[..N]);
        let mut faces = Faces {
            x: [0.0; N],
            y: [0.0; N],
            offset: [0.0; N],
        };
        for i in 0..N {
            faces.x[i] = normals[i].x;
            faces.y[i] = normals[i].y;
            faces.offset[i] = normals[i].dot(vertices[i]);
        }
        faces
    }
}

/// The first `N` of `rows` (points) moved by `xf`: the same bits as [`Transform::apply`] on
/// each.
#[inline(always)]
pub(super) fn moved<const N: usize>(rows: &[Vec2], xf: Transform) -> [Vec2; N] {
    let offset = f32x4::from([xf.p.x, xf.p.y, xf.p.x, xf.p.y]);
    in_pairs(rows, xf.q, |turned| turned + offset)
}

/// The first `N` of `rows` (vectors) turned by `q`: the same bits as [`Rot::rotate`] on each.
#[inline(always)]
pub(super) fn turned<const N: usize>(rows: &[Vec2], q: Rot) -> [Vec2; N] {
    in_pairs(rows, q, |turned| turned)
}

/// The first `N` of `rows` turned by `q` two to a vector, each pair then passed through
/// `then`. Rows as they lie in memory, `(x, y, x', y')`: as columns they were taken apart and
/// put back together by more shuffles than the turn has products. The x lanes take `-s` for
/// the sine, as `c x + (-s) y` is `c x - s y` to the bit (`a - b` is `a + (-b)`), and the y
/// lanes sum `c y + s x`, which is `s x + c y`, as a sum does not depend on its order.
#[inline(always)]
fn in_pairs<const N: usize>(rows: &[Vec2], q: Rot, then: impl Fn(f32x4) -> f32x4) -> [Vec2; N] {
    assert!(N.is_multiple_of(2), "the widths are even");
    let rows = &rows[..N];
    let c = f32x4::splat(q.c);
    let s = f32x4::from([-q.s, q.s, -q.s, q.s]);
    let mut out = [Vec2::ZERO; N];
    for k in (0..N).step_by(2) {
        let (u, v) = (rows[k], rows[k + 1]);
        let straight = f32x4::from([u.x, u.y, v.x, v.y]);
        let crossed = f32x4::from([u.y, u.x, v.y, v.x]);
        let [x, y, x_next, y_next] = then(c * straight + s * crossed).to_array();
        out[k] = Vec2::new(x, y);
        out[k + 1] = Vec2::new(x_next, y_next);
    }
    out
}

/// What [`max_separation`] finds: the best face and its separation, and the separation of
/// each of the `N` faces (those past the count computed and never read), against which a reach
/// weighs the best without running the test again.
#[derive(Clone, Copy)]
pub(super) struct Separations<const N: usize> {
    pub(super) face: usize,
    pub(super) separation: f32,
    pub(super) each: [f32; N],
}

/// Separating-axis test of the first `count` of `faces` against the `others` points
/// `other(0..others)`: the face whose plane the deepest of them is furthest in front of, and that separation
/// (cores only, radii not subtracted). Ties keep the lowest face index.
#[inline(always)]
pub(super) fn max_separation<const N: usize>(
    faces: &Faces<N>,
    count: usize,
    others: usize,
    other: impl Fn(usize) -> Vec2,
) -> Separations<N> {
    match four_faces(faces, count, others, &other) {
        Some(best) => best,
        None => faces_in_turn(faces, count, others, other),
    }
}

/// [`max_separation`] one face and one point at a time: the widths without a vector form, and
/// the scalar twin the four-lane form is tested against.
///
/// Indexed loops here and in the helpers: written with iterators (`zip`, `take`) they compiled
/// to pointer juggling that cost more than the test itself.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn faces_in_turn<const N: usize>(
    faces: &Faces<N>,
    count: usize,
    others: usize,
    other: impl Fn(usize) -> Vec2,
) -> Separations<N> {
    let least = least_along_faces(faces, others, other);
    let mut each = [0.0; N];
    for i in 0..N {
        each[i] = least[i] - faces.offset[i];
    }
    let mut best = (0, f32::MIN);
    for i in 0..count.min(N) {
        if each[i] > best.1 {
            best = (i, each[i]);
        }
    }
    Separations {
        face: best.0,
        separation: best.1,
        each,
    }
}

/// The deepest of the points `other(0..others)` along each face normal, the faces' offsets not
/// yet taken off: each point then costs one dot product per face. A plain compare instead of
/// `f32::min`: the same minimum (inputs are finite), without the NaN bookkeeping.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn least_along_faces<const N: usize>(
    faces: &Faces<N>,
    others: usize,
    other: impl Fn(usize) -> Vec2,
) -> [f32; N] {
    let mut least = [f32::MAX; N];
    for j in 0..others {
        let p = other(j);
        for i in 0..N {
            let s = faces.x[i] * p.x + faces.y[i] * p.y;
            least[i] = if s < least[i] { s } else { least[i] };
        }
    }
    least
}

/// [`max_separation`] across four faces (boxes, triangles and quadrilaterals) in the four
/// lanes of one vector, `None` for other widths: the same products, sums and compares as its
/// loop, so the same bits, without relying on the compiler to find the vector form (it
/// unrolled the loop into one scalar instruction per face and point instead).
#[inline(always)]
fn four_faces<const N: usize>(
    faces: &Faces<N>,
    count: usize,
    others: usize,
    other: &impl Fn(usize) -> Vec2,
) -> Option<Separations<N>> {
    if N != 4 {
        return None;
    }
    let lanes = |v: &[f32; N]| f32x4::from([v[0], v[1], v[2], v[3]]);
    let (x, y) = (lanes(&faces.x), lanes(&faces.y));
    let mut least = f32x4::splat(f32::MAX);
    for j in 0..others {
        let p = other(j);
        least = lesser(x * f32x4::splat(p.x) + y * f32x4::splat(p.y), least);
    }
    let deepest = least - lanes(&faces.offset);
    let d = deepest.to_array();
    let mut each = [0.0; N];
    each[..4].copy_from_slice(&d);
    if count < 4 {
        let mut best = (0, f32::MIN);
        for (i, &deepest) in d.iter().enumerate().take(count) {
            if deepest > best.1 {
                best = (i, deepest);
            }
        }
        return Some(Separations {
            face: best.0,
            separation: best.1,
            each,
        });
    }
    // The greatest in every lane, then the first face that reaches it: the face the loop of
    // compares would keep. Its own value is returned, as the greatest may carry the other
    // sign of a zero.
    let greatest = deepest.fast_max(f32x4::from([d[2], d[3], d[0], d[1]]));
    let g = greatest.to_array();
    let greatest = greatest.fast_max(f32x4::from([g[1], g[0], g[3], g[2]]));
    // Only NaNs can leave no lane equal: face 0 then, rather than an index past the faces.
    let first = deepest.simd_eq(greatest).to_bitmask().trailing_zeros() as usize & 3;
    Some(Separations {
        face: first,
        separation: d[first],
        each,
    })
}

/// `if a < b { a } else { b }` in each lane, which is what x86's `minps` does; elsewhere by a
/// compare and a blend, as other vector minimums put `-0.0` before `+0.0` and so could differ
/// in the sign of a zero.
#[inline(always)]
fn lesser(a: wide::f32x4, b: wide::f32x4) -> wide::f32x4 {
    if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        a.fast_min(b)
    } else {
        a.simd_lt(b).bitselect(a, b)
    }
}

/// The largest separation of the first `count` faces other than `best` among the `each` of
/// [`Separations`] (`f32::MIN` for none): the margin by which `best` is the best face.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
pub(super) fn next_separation<const N: usize>(each: &[f32; N], count: usize, best: usize) -> f32 {
    let mut next = f32::MIN;
    for i in 0..count.min(N) {
        if i != best && each[i] > next {
            next = each[i];
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::shape::Shape;

    #[test]
    fn four_face_separation_gives_the_bits_of_the_scalar_twin() {
        let mut next = crate::test_rng::xorshift64(0x5a7);
        // Small integers over 4 make ties and zeros of both signs common.
        let mut value = || ((next() % 17) as f32 - 8.0) / 4.0;
        for _ in 0..20_000 {
            let mut faces = Faces::<4> {
                x: [0.0; 4],
                y: [0.0; 4],
                offset: [0.0; 4],
            };
            for i in 0..4 {
                (faces.x[i], faces.y[i], faces.offset[i]) = (value(), value(), value());
            }
            let points: Vec<Vec2> = (0..8).map(|_| Vec2::new(value(), value())).collect();
            for count in 1..=4 {
                for others in 1..=points.len() {
                    let at = |j: usize| points[j];
                    let vector = four_faces(&faces, count, others, &at).unwrap();
                    let scalar = faces_in_turn(&faces, count, others, at);
                    assert_eq!(
                        vector.face, scalar.face,
                        "{:?} {points:?} {count} {others}",
                        faces.x
                    );
                    assert_eq!(vector.separation.to_bits(), scalar.separation.to_bits());
                    let bits = |s: &Separations<4>| s.each.map(f32::to_bits);
                    assert_eq!(bits(&vector), bits(&scalar));
                }
            }
        }
    }

    /// Pairs of rows move points and turn vectors to the bits of `Transform::apply` and
    /// `Rot::rotate`, which the rest of the narrowphase uses on single points.
    #[test]
    fn rows_move_vertices_and_turn_normals_as_single_points_do() {
        let Shape::Polygon(square) = Shape::rect(1.0, 1.0).unwrap() else {
            unreachable!()
        };
        let xf = Transform::new(
            Vec2::new(3.0, 0.0),
            Rot::from_angle(std::f32::consts::FRAC_PI_2),
        );
        let vertices = moved::<4>(&square.vertices, xf);
        let normals = turned::<4>(&square.normals, xf.q);
        assert!((vertices[0] - Vec2::new(4.0, -1.0)).length() < 1e-6);
        assert!((normals[0] - Vec2::new(1.0, 0.0)).length() < 1e-6);
        let mut next = crate::test_rng::xorshift64(0x70e);
        let mut value = |scale: f32| ((next() % 20_001) as f32 - 10_000.0) * scale;
        for k in 0..2_000u32 {
            let odd = Transform::new(
                Vec2::new(value(1e-3), value(1.0)),
                Rot::from_angle(value(1e-3)),
            );
            // Zeros of both signs among the points, as axis-aligned normals have.
            let zero = if k.is_multiple_of(2) { 0.0 } else { -0.0 };
            let rows: Vec<Vec2> = (0..8)
                .map(|i| match i {
                    0 => Vec2::new(zero, 1.0),
                    1 => Vec2::new(-1.0, zero),
                    _ => Vec2::new(value(1e-4), value(1e-4)),
                })
                .collect();
            let (moved, turned) = (moved::<8>(&rows, odd), turned::<8>(&rows, odd.q));
            let bits = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
            for i in 0..8 {
                assert_eq!(bits(moved[i]), bits(odd.apply(rows[i])), "{k} {i}");
                assert_eq!(bits(turned[i]), bits(odd.q.rotate(rows[i])), "{k} {i}");
            }
        }
    }
}
