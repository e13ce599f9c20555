//! The convex hull of a polygon's points: sorted into a counter-clockwise chain, welded and
//! cleared of collinear vertices, so that every polygon edge is long enough for a stable normal.

use super::{invalid, next_index, LINEAR_SLOP, MAX_POLYGON_VERTICES, WELD_DISTANCE};
use crate::geometry::math::Vec2;
use crate::Error;
use std::cmp::Ordering;

/// A hull vertex closer than this to the line through its neighbours is dropped as collinear:
/// it would add an edge whose normal barely differs from its neighbours' and flickers in SAT.
const COLLINEAR_DISTANCE: f32 = 0.5 * LINEAR_SLOP;

/// The convex hull of `points`, counter-clockwise, welded and without collinear vertices;
/// every returned vertex is one of the input points.
pub(super) fn convex_hull(points: &[Vec2]) -> Result<Vec<Vec2>, Error> {
    if points.len() < 3 {
        return Err(invalid(format!(
            "polygon needs at least 3 points, got {}",
            points.len()
        )));
    }
    if let Some(bad) = points.iter().find(|p| !p.is_finite()) {
        return Err(invalid(format!(
            "polygon point must be finite, got {bad:?}"
        )));
    }
    let mut hull = monotone_chain(points);
    weld_hull(&mut hull);
    drop_collinear(&mut hull);
    if hull.len() < 3 {
        return Err(invalid(if has_three_distinct(points) {
            "polygon points are collinear (zero area)".to_string()
        } else {
            format!("polygon needs at least 3 points more than {WELD_DISTANCE} m apart")
        }));
    }
    if hull.len() > MAX_POLYGON_VERTICES {
        return Err(invalid(format!(
            "convex hull has {} vertices, at most {MAX_POLYGON_VERTICES} allowed",
            hull.len()
        )));
    }
    Ok(hull)
}

/// Andrew's monotone chain: sort by x then y, build the lower and upper chains keeping only
/// left turns. Orientation is evaluated in f64, where products of f32 coordinates are exact,
/// so nearly collinear input cannot produce a wrong turn.
fn monotone_chain(points: &[Vec2]) -> Vec<Vec2> {
    let mut sorted = points.to_vec();
    // Inputs are finite, so partial_cmp never fails; -0.0 and 0.0 compare equal as they should.
    sorted.sort_by(|a, b| {
        let by_x = a.x.partial_cmp(&b.x).unwrap_or(Ordering::Equal);
        by_x.then(a.y.partial_cmp(&b.y).unwrap_or(Ordering::Equal))
    });
    sorted.dedup();
    let mut hull: Vec<Vec2> = Vec::with_capacity(sorted.len() + 1);
    for &p in &sorted {
        push_left_turn(&mut hull, 2, p);
    }
    let lower_len = hull.len() + 1;
    for &p in sorted.iter().rev().skip(1) {
        push_left_turn(&mut hull, lower_len, p);
    }
    // The upper chain ends where the lower one began.
    hull.pop();
    hull
}

/// Pops chain vertices that would not make a strict left turn towards `p`, then pushes `p`.
/// `min_len` protects the vertices of the already finished lower chain.
fn push_left_turn(hull: &mut Vec<Vec2>, min_len: usize, p: Vec2) {
    while hull.len() >= min_len && orientation(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
    {
        hull.pop();
    }
    hull.push(p);
}

/// Twice the signed area of triangle `abc` in f64: > 0 for a left turn.
fn orientation(a: Vec2, b: Vec2, c: Vec2) -> f64 {
    let (abx, aby) = (
        f64::from(b.x) - f64::from(a.x),
        f64::from(b.y) - f64::from(a.y),
    );
    let (acx, acy) = (
        f64::from(c.x) - f64::from(a.x),
        f64::from(c.y) - f64::from(a.y),
    );
    abx * acy - aby * acx
}

/// Welds hull neighbours closer than [`WELD_DISTANCE`], keeping the one nearer the hull's
/// start. Dropping a vertex of a convex polygon keeps it convex.
fn weld_hull(hull: &mut Vec<Vec2>) {
    let mut i = 0;
    while hull.len() > 1 && i < hull.len() {
        let following = next_index(i, hull.len());
        if (hull[following] - hull[i]).length() < WELD_DISTANCE {
            // Keep the vertex that comes first from the hull's start, then look again from the
            // kept one: its new neighbour may be close too.
            if following == 0 {
                hull.remove(i);
                i -= 1;
            } else {
                hull.remove(following);
            }
        } else {
            i += 1;
        }
    }
}

/// Repeatedly removes the vertex nearest the line through its two neighbours while that
/// distance is below [`COLLINEAR_DISTANCE`]. Removing the nearest first keeps the result
/// independent of where the loop starts.
fn drop_collinear(hull: &mut Vec<Vec2>) {
    while hull.len() >= 3 {
        let n = hull.len();
        let mut flattest = None;
        let mut smallest = COLLINEAR_DISTANCE;
        for i in 0..n {
            let previous = hull[(i + n - 1) % n];
            let d = distance_to_line(hull[i], previous, hull[next_index(i, n)]);
            if d < smallest {
                smallest = d;
                flattest = Some(i);
            }
        }
        match flattest {
            Some(i) => {
                hull.remove(i);
            }
            None => return,
        }
    }
}

/// Distance from `p` to the infinite line through `a` and `b` (`a != b` after welding).
fn distance_to_line(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    (ab.cross(p - a) / ab.length()).abs()
}

/// Whether `points` holds at least three points pairwise further apart than [`WELD_DISTANCE`]
/// (greedy, so it reads at most every point against two others).
fn has_three_distinct(points: &[Vec2]) -> bool {
    let mut found: [Vec2; 3] = [Vec2::ZERO; 3];
    let mut count = 0;
    for &p in points {
        if found[..count]
            .iter()
            .all(|&q| (p - q).length() >= WELD_DISTANCE)
        {
            found[count] = p;
            count += 1;
            if count == 3 {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::shape::v;
    #[test]
    fn monotone_chain_keeps_corners_counter_clockwise() {
        let points = [
            v(1.0, 1.0),
            v(0.0, 0.0),
            v(0.5, 0.5),
            v(1.0, 0.0),
            v(0.0, 1.0),
            v(1.0, 0.0),
        ];
        let hull = monotone_chain(&points);
        assert_eq!(
            hull,
            vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)]
        );
    }

    #[test]
    fn weld_hull_merges_close_neighbours_across_the_wrap() {
        let mut hull = vec![
            v(0.0, 0.0),
            v(1.0, 0.0),
            v(1.001, 0.0005),
            v(1.0, 1.0),
            v(0.001, 0.0),
        ];
        weld_hull(&mut hull);
        assert_eq!(hull, vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0)]);
    }

    #[test]
    fn drop_collinear_removes_only_flat_vertices() {
        let mut hull = vec![
            v(0.0, 0.0),
            v(0.5, -0.001),
            v(1.0, 0.0),
            v(1.0, 1.0),
            v(0.0, 1.0),
        ];
        drop_collinear(&mut hull);
        assert_eq!(
            hull,
            vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)]
        );
        let mut flat = vec![v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.001)];
        drop_collinear(&mut flat);
        assert!(flat.len() < 3);
    }

    #[test]
    fn three_distinct_points_ignore_near_duplicates() {
        assert!(!has_three_distinct(&[
            v(0.0, 0.0),
            v(0.001, 0.0),
            v(1.0, 0.0),
            v(1.0, 0.002)
        ]));
        assert!(has_three_distinct(&[
            v(0.0, 0.0),
            v(0.001, 0.0),
            v(1.0, 0.0),
            v(0.0, 1.0)
        ]));
    }
}
