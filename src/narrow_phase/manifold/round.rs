//! The manifold of a pair with a circle, as a value: a single point, which the narrowphase
//! writes in place of the general manifold.

use super::circle::{circles, polygon_circle};
use super::{world_point, ManifoldPoint};
use crate::geometry::math::{Transform, Vec2};
use crate::geometry::shape::Shape;

/// What [`round_contact`] finds of a pair of shapes.
pub(crate) enum Round {
    /// Neither shape is a circle, or the other is a chain segment (which collides one-sided):
    /// the pair takes [`collide_into`](super::collide_into).
    Other,
    /// The shapes are farther apart than the speculative distance.
    Apart,
    /// The world normal, from A to B, and the single point, its impulses 0.
    Point(Vec2, ManifoldPoint),
}

/// Whether the pair of shapes `a` and `b` is one [`round_contact`] collides, and if so whether
/// both are circles; `None` for a pair it leaves to `collide_into`.
#[inline(always)]
pub(crate) fn is_round(a: &Shape, b: &Shape) -> Option<bool> {
    match (a, b) {
        (Shape::Circle(_), Shape::Circle(_)) => Some(true),
        (Shape::Polygon(p), Shape::Circle(_)) | (Shape::Circle(_), Shape::Polygon(p)) => {
            p.chain.is_none().then_some(false)
        }
        _ => None,
    }
}

/// The contact of shapes `a` at `xf_a` and `b` at `xf_b` where one is a circle: the same bits
/// as [`collide_into`](super::collide_into) writes, which would also write an unused second
/// point and go through the chain tests of every pair. `concentric` gives the world normal
/// for two circles whose centres coincide.
#[inline(always)]
pub(crate) fn round_contact(
    a: &Shape,
    xf_a: Transform,
    b: &Shape,
    xf_b: Transform,
    speculative_distance: f32,
    concentric: impl FnOnce() -> Vec2,
) -> Round {
    // Each case solved in the frame `collide_into` solves it in; `swapped` where that is B's.
    let (local, (xf_a, xf_b), swapped) = match (a, b) {
        (Shape::Circle(ca), Shape::Circle(cb)) => {
            let fallback = || xf_a.q.inv_rotate(concentric());
            let xf = xf_a.inv_mul(xf_b);
            let local = circles(ca, cb, xf, fallback, speculative_distance);
            (local, (xf_a, xf_b), false)
        }
        (Shape::Polygon(pa), Shape::Circle(cb)) if pa.chain.is_none() => {
            let local = polygon_circle(pa, cb, xf_a.inv_mul(xf_b), speculative_distance);
            (local, (xf_a, xf_b), false)
        }
        (Shape::Circle(ca), Shape::Polygon(pb)) if pb.chain.is_none() => {
            let local = polygon_circle(pb, ca, xf_b.inv_mul(xf_a), speculative_distance);
            (local, (xf_b, xf_a), true)
        }
        _ => return Round::Other,
    };
    if local.point_count == 0 {
        return Round::Apart;
    }
    let normal = xf_a.q.rotate(local.normal);
    let mut point = world_point(&local.points[0], xf_a, xf_a.p - xf_b.p);
    if swapped {
        std::mem::swap(&mut point.anchor_a, &mut point.anchor_b);
        return Round::Point(-normal, point);
    }
    Round::Point(normal, point)
}

#[cfg(test)]
mod tests {
    use super::super::{collide_into, Manifold};
    use super::*;
    use crate::geometry::math::Rot;
    use crate::test_rng::xorshift64;

    /// Pairs with a circle get the bits `collide_into` writes, whichever shape is first and
    /// whether or not they touch; pairs without one, or with a chain segment, are left to it.
    #[test]
    fn round_contacts_are_the_general_manifolds() {
        let p = Vec2::new;
        let shapes = [
            Shape::circle(0.5).unwrap(),
            Shape::circle_at(p(0.2, -0.1), 0.3).unwrap(),
            Shape::rect(0.5, 0.25).unwrap(),
            Shape::capsule(p(-0.4, 0.0), p(0.4, 0.1), 0.2).unwrap(),
            Shape::segment(p(-0.5, 0.0), p(0.5, 0.0)).unwrap(),
            Shape::rounded_polygon(&[p(0.0, 0.0), p(0.6, 0.1), p(0.2, 0.5)], 0.05).unwrap(),
            Shape::chain_segment(None, p(-1.0, 0.0), p(1.0, 0.0), None).unwrap(),
        ];
        let mut next = xorshift64(0x5eed_c1c1e);
        let mut unit = move || (next() >> 40) as f32 / (1u64 << 24) as f32;
        let (mut points, mut apart) = (0, 0);
        for _ in 0..400 {
            let mut pose = || {
                let at = p(unit() * 2.0 - 1.0, unit() * 2.0 - 1.0);
                Transform::new(
                    at + p(30.0, -7.0),
                    Rot::from_angle(unit() * std::f32::consts::TAU),
                )
            };
            let (xf_a, xf_b) = (pose(), pose());
            for a in &shapes {
                for b in &shapes {
                    let concentric = || p(0.6, 0.8);
                    let mut general = Manifold::default();
                    collide_into(a, xf_a, b, xf_b, 0.02, concentric, &mut general);
                    match round_contact(a, xf_a, b, xf_b, 0.02, concentric) {
                        Round::Other => assert!(is_round(a, b).is_none()),
                        Round::Apart => {
                            assert!(is_round(a, b).is_some());
                            assert_eq!(general.point_count, 0);
                            apart += 1;
                        }
                        Round::Point(normal, point) => {
                            assert!(is_round(a, b).is_some());
                            let round = Manifold {
                                normal,
                                points: [point, ManifoldPoint::default()],
                                point_count: 1,
                            };
                            // (Debug text tells -0.0 from 0.0, as the bits do.)
                            assert_eq!(format!("{round:?}"), format!("{general:?}"));
                            points += 1;
                        }
                    }
                }
            }
        }
        // Both outcomes were met, many times.
        assert!(
            points > 1000 && apart > 1000,
            "{points} points, {apart} apart"
        );
    }
}
