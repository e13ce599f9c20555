//! Concave outlines cut into convex pieces (`Shape::decompose`), checked against geometry: the
//! pieces' areas sum to the outline's (shoelace), each is convex with at most 8 vertices, and
//! sample points fall in exactly one piece inside the outline and in none outside.

use batch2d::shape::MAX_POLYGON_VERTICES;
use batch2d::{Error, Shape, Vec2};

fn v(points: &[(f32, f32)]) -> Vec<Vec2> {
    points.iter().map(|&(x, y)| Vec2::new(x, y)).collect()
}

/// Twice the signed area, in f64.
fn shoelace(points: &[Vec2]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            a.x as f64 * b.y as f64 - b.x as f64 * a.y as f64
        })
        .sum::<f64>()
        / 2.0
}

/// Whether `p` is inside the outline (even-odd crossings of a ray to +x).
fn inside_outline(points: &[Vec2], p: Vec2) -> bool {
    let n = points.len();
    let mut inside = false;
    for i in 0..n {
        let (a, b) = (points[i], points[(i + 1) % n]);
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// Signed distances of `p` from the edges of a counter-clockwise convex piece: the least one,
/// positive inside.
fn depth_in(piece: &[Vec2], p: Vec2) -> f32 {
    let n = piece.len();
    (0..n)
        .map(|i| {
            let (a, b) = (piece[i], piece[(i + 1) % n]);
            let e = b - a;
            (e.x * (p.y - a.y) - e.y * (p.x - a.x)) / e.length()
        })
        .fold(f32::INFINITY, f32::min)
}

fn distance_to_outline(points: &[Vec2], p: Vec2) -> f32 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            let e = b - a;
            let t = ((p - a).dot(e) / e.dot(e)).clamp(0.0, 1.0);
            (a + e * t - p).length()
        })
        .fold(f32::INFINITY, f32::min)
}

/// Decomposes `points` (and the same outline the other way round) and checks the pieces.
fn check(what: &str, points: &[Vec2]) -> usize {
    let mut counts = Vec::new();
    for outline in [points.to_vec(), points.iter().rev().copied().collect()] {
        let pieces = Shape::decompose(&outline).unwrap_or_else(|e| panic!("{what}: {e}"));
        let area = shoelace(&outline).abs();
        let sum: f64 = pieces.iter().map(|s| s.mass_data(1.0).mass as f64).sum();
        assert!(
            (sum - area).abs() <= 1e-5 * area,
            "{what}: pieces {sum}, outline {area}"
        );
        let vertices: Vec<Vec<Vec2>> = pieces
            .iter()
            .map(|s| match s {
                Shape::Polygon(p) => p.vertices().to_vec(),
                other => panic!("{what}: a piece {other:?}"),
            })
            .collect();
        for piece in &vertices {
            let n = piece.len();
            assert!(
                (3..=MAX_POLYGON_VERTICES).contains(&n),
                "{what}: {n} vertices"
            );
            for i in 0..n {
                let (a, b, c) = (piece[i], piece[(i + 1) % n], piece[(i + 2) % n]);
                assert!(
                    (b - a).cross(c - b) > 0.0,
                    "{what}: a piece not convex: {piece:?}"
                );
            }
        }
        // Sample a grid over the outline's box: away from every edge, a point inside the
        // outline is in exactly one piece, a point outside in none.
        let (min, max) = outline
            .iter()
            .fold((outline[0], outline[0]), |(lo, hi), &p| {
                (lo.min(p), hi.max(p))
            });
        let steps = 60;
        let mut tested = 0;
        for i in 0..=steps {
            for j in 0..=steps {
                let t = Vec2::new(i as f32 / steps as f32, j as f32 / steps as f32);
                let p = Vec2::new(min.x + (max.x - min.x) * t.x, min.y + (max.y - min.y) * t.y);
                let margin = 1e-3 * (max - min).length();
                let near_a_piece_edge = vertices.iter().any(|q| depth_in(q, p).abs() < margin);
                if distance_to_outline(&outline, p) < margin || near_a_piece_edge {
                    continue;
                }
                let holding = vertices.iter().filter(|q| depth_in(q, p) > 0.0).count();
                let want = usize::from(inside_outline(&outline, p));
                assert_eq!(holding, want, "{what}: {p:?} in {holding} pieces");
                tested += 1;
            }
        }
        assert!(
            tested > steps * steps / 2,
            "{what}: only {tested} points tested"
        );
        counts.push(pieces.len());
    }
    counts[0]
}

#[test]
fn an_l_becomes_two_pieces() {
    let l = v(&[
        (0.0, 0.0),
        (2.0, 0.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 2.0),
    ]);
    assert_eq!(check("L", &l), 2);
}

#[test]
fn a_star_comb_and_spiral_cover_their_outlines() {
    // A five-pointed star: ten vertices, five reflex.
    let star: Vec<Vec2> = (0..10)
        .map(|i| {
            let angle = std::f32::consts::PI * (0.5 + i as f32 / 5.0);
            let r = if i % 2 == 0 { 2.0 } else { 0.8 };
            Vec2::new(r * angle.cos(), r * angle.sin())
        })
        .collect();
    let pieces = check("star", &star);
    // Five reflex vertices need three cuts at least (a cut clears at most two), so four
    // pieces; merging leaves no more than the eight triangles it started from.
    assert!((4..=8).contains(&pieces), "star: {pieces} pieces");

    // A comb: a spine along the bottom with seven teeth up.
    let mut comb = vec![Vec2::new(0.0, 0.0), Vec2::new(7.0, 0.0)];
    for tooth in (0..7).rev() {
        let x = tooth as f32;
        comb.extend([
            Vec2::new(x + 0.6, 1.0),
            Vec2::new(x + 0.6, 3.0),
            Vec2::new(x + 0.2, 3.0),
            Vec2::new(x + 0.2, 1.0),
        ]);
    }
    comb.pop();
    comb.push(Vec2::new(0.0, 3.0));
    let pieces = check("comb", &comb);
    assert!(pieces >= 7, "comb: {pieces} pieces for seven teeth");

    // A square spiral with a collinear point on one edge.
    let spiral = v(&[
        (0.0, 0.0),
        (4.0, 0.0),
        (4.0, 4.0),
        (1.0, 4.0),
        (1.0, 2.0),
        (2.0, 2.0),
        (2.0, 3.0),
        (3.0, 3.0),
        (3.0, 1.0),
        (1.0, 1.0),
        (0.5, 1.0),
        (0.0, 1.0),
    ]);
    check("spiral", &spiral);
}

#[test]
fn a_convex_outline_stays_one_piece_and_bad_outlines_are_refused() {
    let square = v(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]);
    assert_eq!(check("square", &square), 1);
    let bad = |what: &str, points: Vec<Vec2>| {
        let result = Shape::decompose(&points);
        assert!(
            matches!(result, Err(Error::InvalidShape(_))),
            "{what}: {result:?}"
        );
    };
    bad("no points", vec![]);
    bad("two points", v(&[(0.0, 0.0), (1.0, 0.0)]));
    for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        bad("a non-finite point", v(&[(0.0, 0.0), (1.0, 0.0), (x, 1.0)]));
    }
    bad("collinear points", v(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]));
    bad(
        "a bow tie",
        v(&[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]),
    );
    bad(
        "a duplicate point",
        v(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]),
    );
    bad(
        "an edge through a vertex",
        v(&[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.0), (0.0, 2.0)]),
    );
    bad(
        "an edge folded back on its neighbour",
        v(&[(0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (1.0, 1.0)]),
    );
}
