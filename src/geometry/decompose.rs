//! Concave outlines cut into convex polygons: [`Shape::decompose`].
//!
//! The outline is cut into triangles by ear clipping, each ear the one whose smallest angle
//! is largest (so that no sliver too thin to be a polygon comes out while a fatter ear is
//! there), then neighbouring pieces are merged across the diagonals between them while the
//! union stays convex and within [`MAX_POLYGON_VERTICES`] (Hertel and Mehlhorn's idea: at
//! most four times the fewest convex pieces). The work is in f64, so that the sums and signs
//! the cuts rest on are exact for any outline in the range the engine holds to.

use crate::geometry::math::Vec2;
use crate::geometry::shape::{Shape, MAX_POLYGON_VERTICES, WELD_DISTANCE};
use crate::Error;

type P = (f64, f64);

fn cross(o: P, a: P, b: P) -> f64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

fn invalid(why: String) -> Error {
    Error::InvalidShape(format!("cannot decompose the outline: {why}"))
}

impl Shape {
    /// Cuts a simple polygon outline (`points` in order round it, clockwise or
    /// counter-clockwise, not closed by repeating the first point) into convex polygons of at
    /// most [`MAX_POLYGON_VERTICES`] vertices each, which together cover it exactly: give them
    /// to [`World::add_compound_body`](crate::World::add_compound_body) for a concave body.
    /// [`Shape::polygon`] hulls its points instead, which fills a concave outline in.
    ///
    /// Fails with [`Error::InvalidShape`] for fewer than 3 points, a non-finite point, two
    /// points closer than 2.5 mm (the distance at which polygons weld points), edges that
    /// cross or touch other than at their shared ends, an outline of no area, or a piece too
    /// thin to be a polygon.
    ///
    /// ```
    /// use batch2d::{Shape, Vec2};
    ///
    /// // An L: two pieces, where its hull would be one square.
    /// let l = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)];
    /// let pieces = Shape::decompose(&l.map(|(x, y)| Vec2::new(x, y)))?;
    /// assert_eq!(pieces.len(), 2);
    /// let area: f32 = pieces.iter().map(|p| p.mass_data(1.0).mass).sum();
    /// assert!((area - 3.0).abs() < 1e-5);
    /// # Ok::<(), batch2d::Error>(())
    /// ```
    pub fn decompose(points: &[Vec2]) -> Result<Vec<Shape>, Error> {
        let outline = check_outline(points)?;
        let pieces = merge(&outline, clip_ears(&outline)?);
        pieces
            .iter()
            .map(|piece| {
                let vertices: Vec<Vec2> = piece.iter().map(|&i| points[i]).collect();
                Shape::polygon(&vertices).map_err(|e| invalid(format!("a piece {e}")))
            })
            .collect()
    }
}

/// The outline's points in f64, counter-clockwise, or why it is no simple polygon.
fn check_outline(points: &[Vec2]) -> Result<Vec<(usize, P)>, Error> {
    let n = points.len();
    if n < 3 {
        return Err(invalid(format!("{n} points, it needs 3 or more")));
    }
    if let Some(p) = points.iter().find(|p| !p.is_finite()) {
        return Err(invalid(format!("point {p:?} is not finite")));
    }
    for i in 0..n {
        for j in i + 1..n {
            if (points[i] - points[j]).length() < WELD_DISTANCE {
                return Err(invalid(format!(
                    "points {i} and {j} are closer than {WELD_DISTANCE} m"
                )));
            }
        }
    }
    let p: Vec<P> = points.iter().map(|v| (v.x as f64, v.y as f64)).collect();
    // Every pair of edges that share no end must be apart (and the two that do, meet only
    // there: an edge folding back onto its neighbour overlaps it).
    for i in 0..n {
        let (a, b) = (p[i], p[(i + 1) % n]);
        for j in i + 1..n {
            let (c, d) = (p[j], p[(j + 1) % n]);
            let neighbours = j == i + 1 || (i == 0 && j == n - 1);
            let crossing = if neighbours {
                // The shared end is b == c (or d == a); they overlap when collinear and
                // pointing back.
                let (shared, x, y) = if j == i + 1 { (b, a, d) } else { (a, b, c) };
                cross(shared, x, y) == 0.0
                    && (x.0 - shared.0) * (y.0 - shared.0) + (x.1 - shared.1) * (y.1 - shared.1)
                        > 0.0
            } else {
                segments_meet(a, b, c, d)
            };
            if crossing {
                return Err(invalid(format!("edges {i} and {j} cross or touch")));
            }
        }
    }
    let twice_area: f64 = (0..n)
        .map(|i| cross((0.0, 0.0), p[i], p[(i + 1) % n]))
        .sum();
    if twice_area == 0.0 || !twice_area.is_finite() {
        return Err(invalid("the outline has no area".into()));
    }
    let mut outline: Vec<(usize, P)> = p.into_iter().enumerate().collect();
    if twice_area < 0.0 {
        outline.reverse();
    }
    Ok(outline)
}

/// Whether the closed segments `ab` and `cd` have a point in common.
fn segments_meet(a: P, b: P, c: P, d: P) -> bool {
    let (d1, d2) = (cross(a, b, c), cross(a, b, d));
    let (d3, d4) = (cross(c, d, a), cross(c, d, b));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    let on = |p: P, q: P, r: P| {
        p.0.min(q.0) <= r.0 && r.0 <= p.0.max(q.0) && p.1.min(q.1) <= r.1 && r.1 <= p.1.max(q.1)
    };
    (d1 == 0.0 && on(a, b, c))
        || (d2 == 0.0 && on(a, b, d))
        || (d3 == 0.0 && on(c, d, a))
        || (d4 == 0.0 && on(c, d, b))
}

/// The smallest angle's cosine-free measure of triangle `abc`: its least `sin` of an angle,
/// `2 area / (product of the two sides at that corner)`.
fn smallest_sine(a: P, b: P, c: P) -> f64 {
    let len = |p: P, q: P| (p.0 - q.0).hypot(p.1 - q.1);
    let (ab, bc, ca) = (len(a, b), len(b, c), len(c, a));
    let twice = cross(a, b, c);
    (twice / (ab * ca))
        .min(twice / (ab * bc))
        .min(twice / (bc * ca))
}

/// Ear clipping of the counter-clockwise `outline`: triangles as indices into the caller's
/// points, each counter-clockwise. Vertices on the line through their neighbours are cut off
/// as they come, with no triangle.
fn clip_ears(outline: &[(usize, P)]) -> Result<Vec<Vec<usize>>, Error> {
    let mut ring: Vec<(usize, P)> = outline.to_vec();
    let mut triangles = Vec::new();
    while ring.len() > 3 {
        let n = ring.len();
        let mut best: Option<(f64, usize)> = None;
        for i in 0..n {
            let (a, b, c) = (ring[(i + n - 1) % n].1, ring[i].1, ring[(i + 1) % n].1);
            let turn = cross(a, b, c);
            if turn == 0.0 {
                // A straight corner: nothing to cut, the vertex goes.
                best = Some((f64::INFINITY, i));
                break;
            }
            if turn < 0.0 {
                continue;
            }
            // No other vertex inside the ear or on its edges.
            let blocked = (0..n)
                .filter(|&k| k != i && k != (i + n - 1) % n && k != (i + 1) % n)
                .any(|k| {
                    let p = ring[k].1;
                    cross(a, b, p) >= 0.0 && cross(b, c, p) >= 0.0 && cross(c, a, p) >= 0.0
                });
            if blocked {
                continue;
            }
            let quality = smallest_sine(a, b, c);
            if best.is_none_or(|(q, _)| quality > q) {
                best = Some((quality, i));
            }
        }
        let Some((quality, i)) = best else {
            return Err(invalid("found no ear to cut (is it simple?)".into()));
        };
        if quality.is_finite() {
            let n = ring.len();
            let (a, b, c) = (ring[(i + n - 1) % n].0, ring[i].0, ring[(i + 1) % n].0);
            triangles.push(vec![a, b, c]);
        }
        ring.remove(i);
    }
    let (a, b, c) = (ring[0].1, ring[1].1, ring[2].1);
    if cross(a, b, c) > 0.0 {
        triangles.push(ring.iter().map(|v| v.0).collect());
    }
    Ok(triangles)
}

/// Merges neighbouring pieces across the diagonals they share, in a fixed order, while the
/// union is convex and has at most [`MAX_POLYGON_VERTICES`] vertices.
fn merge(outline: &[(usize, P)], mut pieces: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    let mut at = vec![(0.0, 0.0); outline.len()];
    for &(i, p) in outline {
        at[i] = p;
    }
    let convex = |piece: &[usize]| {
        let n = piece.len();
        (0..n).all(|k| cross(at[piece[k]], at[piece[(k + 1) % n]], at[piece[(k + 2) % n]]) >= 0.0)
    };
    'again: loop {
        for i in 0..pieces.len() {
            for j in i + 1..pieces.len() {
                if pieces[i].len() + pieces[j].len() - 2 > MAX_POLYGON_VERTICES {
                    continue;
                }
                let Some(union) = join(&pieces[i], &pieces[j]) else {
                    continue;
                };
                if convex(&union) {
                    pieces[i] = union;
                    pieces.remove(j);
                    continue 'again;
                }
            }
        }
        return pieces;
    }
}

/// The union of two counter-clockwise pieces that share an edge (`u -> v` in `p`, `v -> u`
/// in `q`), counter-clockwise; `None` if they share none.
fn join(p: &[usize], q: &[usize]) -> Option<Vec<usize>> {
    let (np, nq) = (p.len(), q.len());
    for s in 0..np {
        let (u, v) = (p[s], p[(s + 1) % np]);
        if let Some(t) = (0..nq).find(|&t| q[t] == v && q[(t + 1) % nq] == u) {
            // Round p from v to u, then round q from u (its vertex after v) to v, less the
            // shared ends.
            let mut union: Vec<usize> = (0..np).map(|k| p[(s + 1 + k) % np]).collect();
            union.extend((2..nq).map(|k| q[(t + k) % nq]));
            return Some(union);
        }
    }
    None
}
