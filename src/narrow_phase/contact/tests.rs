//! The contact set's tests: recycling against full collides, and the set's bookkeeping.

use super::update::out_of_reach;
use super::*;
use crate::geometry::math::{Rot, Transform, Vec2};
use crate::geometry::shape::Shape;
use crate::geometry::shape::LINEAR_SLOP;
use crate::index::NONE;
use crate::narrow_phase::manifold::{shape_manifold, shape_manifold_and_reach};
use crate::narrow_phase::recycle::recycle_one;

const SPECULATIVE: f32 = 4.0 * LINEAR_SLOP;

fn xf(x: f32, y: f32, angle: f32) -> Transform {
    Transform::new(Vec2::new(x, y), Rot::from_angle(angle))
}

#[test]
fn pairs_out_of_reach_are_farther_apart_than_the_speculative_distance() {
    let triangle = [
        Vec2::new(0.0, 0.0),
        Vec2::new(0.9, 0.1),
        Vec2::new(0.2, 0.7),
    ];
    let shapes = [
        Shape::rect(0.2, 0.2).unwrap(),
        Shape::offset_rect(0.4, 0.1, Vec2::new(0.3, -0.2), 0.7).unwrap(),
        Shape::circle_at(Vec2::new(0.25, 0.1), 0.15).unwrap(),
        Shape::polygon(&triangle).unwrap(),
        Shape::rounded_polygon(&triangle, 0.05).unwrap(),
    ];
    let (mut cases, mut turned_away, mut close_calls) = (0, 0, 0);
    let mut seed = 12345u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    for a in &shapes {
        for b in &shapes {
            for _ in 0..400 {
                let xf_a = xf(next() - 0.5, next() - 0.5, 6.0 * next());
                let xf_b = xf(2.5 * next() - 0.5, 2.5 * next() - 0.5, 6.0 * next());
                // Up to a fast body's reach over a step: 2 cm plus 20 m/s for 1/60 s.
                let speculative = SPECULATIVE + 0.33 * next();
                cases += 1;
                let body = |shape: &Shape, xf: Transform| {
                    let centre = shape.mass_data(1.0).center;
                    (xf.apply(centre), shape.reach_from(centre))
                };
                if out_of_reach(body(a, xf_a), body(b, xf_b), speculative) {
                    let gap = crate::geometry::distance::distance(a, xf_a, b, xf_b)
                        .unwrap()
                        .distance;
                    assert!(gap > speculative, "gap {gap} within {speculative}");
                    turned_away += 1;
                    close_calls += (gap < speculative + 0.1) as usize;
                }
            }
        }
    }
    // The cases fall on both sides of the test, and some close to its edge.
    let kept = cases - turned_away;
    assert!(turned_away > 3000 && kept > 1000 && close_calls > 30);
}

/// The base a full collide of `a` at `xf_a` and `b` at `xf_b` leaves behind (`None` for a
/// pair that never recycles).
fn fresh(a: &Shape, xf_a: Transform, b: &Shape, xf_b: Transform) -> Option<Base> {
    let (manifold, reach) = shape_manifold_and_reach(a, xf_a, b, xf_b, SPECULATIVE);
    assert!(manifold.point_count > 0);
    Base::of_collide(&manifold, (xf_a, xf_b), reach, PARAMS.recycle_tolerance)
}

fn recycled(old: &Option<Base>, xf_a: Transform, xf_b: Transform) -> Option<Manifold> {
    let old = old.as_ref()?;
    recycle_one(old, xf_a, xf_b, SPECULATIVE, SPECULATIVE).0
}

/// Recycled and fresh manifolds agree: same ids and normal (within `angle`), separations
/// within `gap`, points within `offset`.
fn assert_near(recycled: &Manifold, fresh: &Manifold, angle: f32, gap: f32, offset: f32) {
    assert_eq!(recycled.point_count, fresh.point_count);
    assert!((recycled.normal - fresh.normal).length() <= angle);
    for (p, q) in recycled.points[..recycled.point_count]
        .iter()
        .zip(&fresh.points)
    {
        assert_eq!(p.id, q.id);
        assert!(
            (p.separation - q.separation).abs() <= gap,
            "separation {} vs fresh {}",
            p.separation,
            q.separation
        );
        assert!((p.point - q.point).length() <= offset);
        assert!((p.anchor_a - q.anchor_a).length() <= offset);
        assert!((p.anchor_b - q.anchor_b).length() <= offset);
    }
}

#[test]
fn recycled_manifold_tracks_a_fresh_one_for_small_motions() {
    let ground = Shape::rect(5.0, 0.5).unwrap();
    let block = Shape::rect(0.5, 0.5).unwrap();
    // Box on ground (A's face), box under a tilted box (B's face is the reference). (A pair
    // with a circle never recycles.)
    let cases = [
        (&ground, xf(0.0, 0.0, 0.0), &block, xf(0.3, 0.995, 0.0)),
        (&block, xf(2.0, 1.0, 0.3), &ground, xf(2.0, 2.12, 0.0)),
    ];
    for (a, xf_a, b, xf_b) in cases {
        let old = fresh(a, xf_a, b, xf_b);
        // Within the tolerance: B moves up to 0.5 mm and turns up to 0.6 mrad, A turns too
        // (0.9 mrad relative at most).
        let motions = [
            (0.0, 0.0, 0.0, 0.0),
            (4e-4, -3e-4, 0.0, 0.0),
            (-2e-4, 1e-4, 5e-4, 0.0),
            (1e-4, 2e-4, -6e-4, 3e-4),
        ];
        for (dx, dy, turn_b, turn_a) in motions {
            let new_a = Transform::new(xf_a.p, Rot::from_angle(xf_a.q.angle() + turn_a));
            let new_b = Transform::new(
                xf_b.p + Vec2::new(dx, dy),
                Rot::from_angle(xf_b.q.angle() + turn_b),
            );
            let reused = recycled(&old, new_a, new_b)
                .unwrap_or_else(|| panic!("{dx} {dy} {turn_b} {turn_a} should recycle"));
            let exact = shape_manifold(a, new_a, b, new_b, SPECULATIVE);
            // 1.5 mrad of normal (the balls' normal follows the sideways motion over the
            // 0.5 m between centres), 20 µm of separation, 1 mm of point position.
            assert_near(&reused, &exact, 1.5e-3, 2e-5, 1e-3);
        }
    }
}

/// Two boxes meeting corner to face at many tilts and places, some where the other box's best
/// face nearly ties with the reference face: every motion that the bound of the reference's
/// choice allows, at its very edge, in any direction and with any turn within the cap (turns
/// move the far vertices most), leaves a fresh collide on the same reference face.
#[test]
fn the_reference_face_holds_over_the_whole_reach_of_its_choice() {
    let block = Shape::rect(0.5, 0.5).unwrap();
    let cap = PARAMS.recycle_tolerance.angle;
    let (mut bounded, mut limited, mut tried) = (0, 0, 0);
    for tilt in [0.15f32, 0.3, 0.5, 0.7, 0.78, 0.85, 1.0, 1.3] {
        for x0 in [-0.3f32, 0.2, 0.4, 0.46, 0.49, 0.5, 0.52] {
            for (depth, tilt_a) in [(1e-3f32, 0.0f32), (4e-3, 0.05), (1e-3, -0.1)] {
                let xf_a = xf(0.0, 0.0, tilt_a);
                // B's lowest corner `depth` into A's top face at `x0` along it.
                let (c, s) = (tilt.cos(), tilt.sin());
                let corner = Vec2::new(x0, 0.5 - depth);
                let centre = corner + Vec2::new(0.5 * (c - s), 0.5 * (c + s));
                let xf_b = Transform::new(xf_a.apply(centre), Rot::from_angle(tilt + tilt_a));
                let (manifold, reach) =
                    shape_manifold_and_reach(&block, xf_a, &block, xf_b, SPECULATIVE);
                if manifold.point_count == 0 || !reach.choice.margin.is_finite() {
                    continue;
                }
                bounded += 1;
                let points = &manifold.points[..manifold.point_count];
                let (p0, p1) = (points[0].point, points[points.len() - 1].point);
                for turn in [-1.0f32, -0.5, 0.0, 0.5, 1.0].map(|f| f * cap) {
                    let q = Rot::from_angle(turn);
                    let chord = (Vec2::new(q.c, q.s) - Vec2::new(1.0, 0.0)).length();
                    // The whole reach, which the choice leans on (the incident edge, the
                    // reference core's own next face) and which may leave the face
                    // altogether.
                    let most = reach.motion(PARAMS.recycle_tolerance.distance, chord);
                    if most <= 0.0 {
                        continue;
                    }
                    limited += usize::from(reach.choice.at(chord) <= most);
                    // B turned about `p0`, which moves `shift`: the motion at `p1` is more
                    // by the turn of `p1 - p0`.
                    let swing = q.rotate(p1 - p0) - (p1 - p0);
                    for k in 0..16 {
                        let heading = k as f32 * std::f32::consts::TAU / 16.0;
                        let along = Vec2::new(heading.cos(), heading.sin());
                        let motion =
                            |s: f32| (along * s).length().max((along * s + swing).length());
                        // The largest shift whose motion at the points is within the bound.
                        let (mut lo, mut hi) = (0.0f32, most);
                        for _ in 0..40 {
                            let mid = 0.5 * (lo + hi);
                            if motion(mid) <= most {
                                lo = mid
                            } else {
                                hi = mid
                            }
                        }
                        if motion(lo) > most {
                            continue;
                        }
                        let shift = along * lo;
                        let p = p0 + q.rotate(xf_b.p - p0) + shift;
                        let moved = Transform::new(p, Rot::from_angle(tilt + tilt_a + turn));
                        let exact = shape_manifold(&block, xf_a, &block, moved, SPECULATIVE);
                        if exact.point_count == 0 {
                            continue;
                        }
                        tried += 1;
                        // The same reference face: the same normal, turned with B at most.
                        assert!(
                            (exact.normal - manifold.normal).length() <= 1.01 * chord + 1e-6,
                            "tilt {tilt} at {x0}, turn {turn}, shift {shift:?}: {manifold:?} \
                             became {exact:?}"
                        );
                    }
                }
            }
        }
    }
    // The check saw the bound at work, and the edge of the reach set by it.
    assert!(
        bounded > 20 && limited > 5 && tried > 1000,
        "{bounded} {limited} {tried}"
    );
}

#[test]
fn larger_motions_trigger_a_full_collide() {
    let ground = Shape::rect(5.0, 0.5).unwrap();
    let block = Shape::rect(0.5, 0.5).unwrap();
    let (xf_a, xf_b) = (xf(0.0, 0.0, 0.0), xf(0.3, 0.995, 0.0));
    let old = fresh(&ground, xf_a, &block, xf_b);
    // Sliding 2 mm, sinking 2 mm, turning 2 mrad: each beyond the tolerance.
    for (dx, dy, angle) in [(2e-3, 0.0, 0.0), (0.0, -2e-3, 0.0), (0.0, 0.0, 2e-3)] {
        let moved = xf(0.3 + dx, 0.995 + dy, angle);
        assert!(recycled(&old, xf_a, moved).is_none(), "{dx} {dy} {angle}");
    }
    // A turning under B is relative motion too.
    assert!(recycled(&old, xf(0.0, 0.0, 2e-3), xf_b).is_none());
    // Drift is measured from the last full collide: a recycled contact passed on keeps
    // that reference, so steps that are each small still add up to a recompute.
    let mut recomputed = false;
    for step in 1..=20 {
        let moved = xf(0.3 + 1e-4 * step as f32, 0.995, 0.0);
        match recycled(&old, xf_a, moved) {
            Some(_) => {}
            None => {
                recomputed = true;
                assert!(step >= 10, "recomputed after {step} steps of 0.1 mm");
                break;
            }
        }
    }
    assert!(recomputed);
    // A point that would leave the speculative distance is dropped by a fresh collide, so
    // recycling refuses it as well.
    let edge = fresh(&ground, xf_a, &block, xf(0.3, 1.0195, 0.0));
    assert!(recycled(&edge, xf_a, xf(0.3, 1.0195, 0.0)).is_some());
    assert!(recycled(&edge, xf_a, xf(0.3, 1.0203, 0.0)).is_none());
}

#[test]
fn recycling_widens_the_band_only_for_points_beyond_the_plain_one() {
    let ground = Shape::rect(5.0, 0.5).unwrap();
    let block = Shape::rect(0.5, 0.5).unwrap();
    let xf_a = xf(0.0, 0.0, 0.0);
    // Collided with the widened band of a pair closing in: its points lie 19.5 mm apart.
    let wide = 2.0 * SPECULATIVE;
    let (manifold, reach) =
        shape_manifold_and_reach(&ground, xf_a, &block, xf(0.3, 1.0195, 0.0), wide);
    assert_eq!(manifold.point_count, 2);
    let xf_b = xf(0.3, 1.0195, 0.0);
    let base = Base::of_collide(&manifold, (xf_a, xf_b), reach, PARAMS.recycle_tolerance)
        .expect("a box resting flat on the ground recycles");
    let recycle_with = |y: f32, widened: f32| {
        let (kept, asked) = recycle_one(&base, xf_a, xf(0.3, y, 0.0), SPECULATIVE, widened);
        (kept.is_some(), asked)
    };
    // Both points inside the plain band (20 mm): the widened one is never asked for.
    assert_eq!(recycle_with(1.0195, wide), (true, 0));
    // Beyond the plain band: kept inside the widened one, asked once for the pair.
    assert_eq!(recycle_with(1.0203, wide), (true, 1));
    // Beyond both, as a fresh collide with the widened band would drop it.
    assert_eq!(recycle_with(1.0203, SPECULATIVE + 1e-4), (false, 1));
}

#[test]
fn recycling_refuses_non_finite_transforms() {
    let block = Shape::rect(0.5, 0.5).unwrap();
    let (xf_a, xf_b) = (xf(0.0, 0.0, 0.0), xf(0.0, 0.999, 0.0));
    let old = fresh(&block, xf_a, &block, xf_b);
    let nan = Transform::new(Vec2::new(f32::NAN, 0.999), Rot::IDENTITY);
    assert!(recycled(&old, xf_a, nan).is_none());
    let bad_rot = Transform::new(
        xf_b.p,
        Rot {
            c: f32::NAN,
            s: 0.0,
        },
    );
    assert!(recycled(&old, xf_a, bad_rot).is_none());
}

const PARAMS: NarrowPhaseParams = NarrowPhaseParams {
    speculative_distance: SPECULATIVE,
    dt: 1.0 / 60.0,
    friction_mixing: MixRule::GeometricMean,
    restitution_mixing: MixRule::Min,
    linear_slop: LINEAR_SLOP,
    remix: false,
    recycle: batch2d_kernels::recycle::scalar::recycle,
    poses: batch2d_kernels::recycle::scalar::body_poses,
    // A tolerance of the tests' own (1 mm, 1 mrad), which their motions are sized to.
    recycle_tolerance: RecycleTolerance {
        distance: 0.001,
        angle: 0.001,
    },
};

#[test]
fn only_pairs_of_polygons_keep_a_base() {
    use crate::body_def::{BodyDef, ShapeDef};
    let mut bodies = BodyStore::new();
    let ground = ShapeDef::new(Shape::rect(5.0, 0.5).unwrap());
    let ball = ShapeDef::new(Shape::circle(0.5).unwrap());
    let crate_ = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap());
    let g = bodies.insert(&BodyDef::fixed(), &ground).unwrap().slot();
    let at = |x: f32, y: f32| BodyDef::dynamic().position(Vec2::new(x, y));
    let a = bodies.insert(&at(0.0, 0.999), &ball).unwrap().slot();
    let b = bodies.insert(&at(0.999, 0.999), &ball).unwrap().slot();
    let c = bodies.insert(&at(-2.0, 0.999), &crate_).unwrap().slot();
    let d = bodies.insert(&at(2.0, 0.999), &crate_).unwrap().slot();
    let mut set = ContactSet::default();
    set.update(
        &[(g, a), (g, b), (g, c), (g, d), (a, b)],
        &[],
        &bodies,
        &PARAMS,
    );
    let [g, a, b, c, d] = [g, a, b, c, d].map(|s| BodySlot::new(s as usize));
    assert_eq!(
        set.keys,
        [(g, a, 0), (g, b, 0), (g, c, 0), (g, d, 0), (a, b, 0)]
    );
    assert_eq!(set.base_of[0], NONE, "a circle on a box keeps no base");
    assert_eq!(set.base_of[1], NONE, "a circle on a box keeps no base");
    assert_ne!(set.base_of[2], NONE);
    assert_ne!(set.base_of[3], NONE);
    assert_eq!(set.base_of[4], NONE, "two circles keep no base");
    // Both bases are there and distinct: each is its own pair's.
    let relative = |i: usize| set.base(i).relative().p;
    assert_ne!(relative(2), relative(3));
}

/// What the set keeps per contact for the step to read instead of the contacts
/// (`touching`, `one_point`, the closing speeds) describes the contacts after every change
/// the set makes: updates that drop and add pairs, freezing, thawing and removal.
#[test]
fn the_flags_follow_the_contacts_through_every_change() {
    use crate::body_def::{BodyDef, ShapeDef};
    let mut bodies = BodyStore::new();
    let ground = ShapeDef::new(Shape::rect(20.0, 0.5).unwrap());
    let g = bodies.insert(&BodyDef::fixed(), &ground).unwrap().slot();
    // Boxes (two points on the ground) and balls (one), some resting, some 2 cm above the
    // ground (in reach, not touching), falling or rising.
    let shapes = [Shape::rect(0.5, 0.5).unwrap(), Shape::circle(0.5).unwrap()];
    let bodies_at: Vec<u32> = (0..8)
        .map(|i| {
            let lift = if i % 3 == 0 { 0.02 } else { -0.004 };
            let def = BodyDef::dynamic()
                .position(Vec2::new(2.0 * i as f32, 1.0 + lift))
                .linear_velocity(Vec2::new(0.5, if i % 2 == 0 { -2.0 } else { 1.0 }))
                .angular_velocity(0.3);
            let shape = ShapeDef::new(shapes[i % 2].clone());
            bodies.insert(&def, &shape).unwrap().slot()
        })
        .collect();
    let pairs_of = |which: &dyn Fn(usize) -> bool| -> Vec<(u32, u32)> {
        (bodies_at.iter().enumerate())
            .filter(|&(i, _)| which(i))
            .map(|(_, &b)| (g, b))
            .collect()
    };
    let check = |set: &ContactSet, when: &str| {
        let touching: Vec<bool> = set.list.iter().map(|c| touches(c, LINEAR_SLOP)).collect();
        let one_point: Vec<bool> = set.list.iter().map(Contact::has_one_point).collect();
        assert_eq!(set.touching(), &touching[..], "touching, {when}");
        assert_eq!(set.one_point(), &one_point[..], "one_point, {when}");
        for (i, c) in set.list.iter().enumerate().filter(|&(i, _)| !touching[i]) {
            let speed = closing_in(c, &bodies).map(f32::to_bits);
            let kept = set.closing_in(i, &bodies).map(f32::to_bits);
            assert_eq!(kept, speed, "closing speed of contact {i}, {when}");
        }
    };
    let mut set = ContactSet::default();
    set.update(&pairs_of(&|_| true), &[], &bodies, &PARAMS);
    assert_eq!(set.list.len(), 8);
    assert!(set.one_point().contains(&true) && set.one_point().contains(&false));
    assert!(set.touching().contains(&true) && set.touching().contains(&false));
    let closing = (0..8)
        .filter(|&i| set.closing_in(i, &bodies).is_some())
        .count();
    assert!(
        closing > 0 && closing < 8,
        "some contacts close in, not all"
    );
    check(&set, "after the first update");
    set.update(&pairs_of(&|i| i != 2 && i != 5), &[], &bodies, &PARAMS);
    check(&set, "after two pairs were dropped");
    let mut frozen = Vec::new();
    // A body whose contact closes in without touching, so that its speed comes back too.
    let sleeper = BodySlot::new(bodies_at[0] as usize);
    set.freeze(|_, b| b == sleeper, &mut frozen);
    check(&set, "after freezing");
    set.update(&pairs_of(&|i| i != 0), &[], &bodies, &PARAMS);
    set.thaw(frozen);
    check(&set, "after thawing");
    let gone = BodySlot::new(bodies_at[4] as usize);
    set.remove_bodies(|_, b| b == gone);
    check(&set, "after a removal");
    set.update(&pairs_of(&|i| i != 4), &[], &bodies, &PARAMS);
    check(&set, "after the update that follows");
}

/// A static ground slab and a unit box resting on it, 5 mm of overlap, off centre: the
/// bodies and their slots.
fn box_on_ground() -> (BodyStore, u32, u32) {
    use crate::body_def::{BodyDef, ShapeDef};
    let mut bodies = BodyStore::new();
    let ground = ShapeDef::new(Shape::rect(5.0, 0.5).unwrap());
    let block = ShapeDef::new(Shape::rect(0.5, 0.5).unwrap());
    let a = bodies.insert(&BodyDef::fixed(), &ground).unwrap().slot();
    let def = BodyDef::dynamic().position(Vec2::new(0.3, 0.995));
    let b = bodies.insert(&def, &block).unwrap().slot();
    (bodies, a, b)
}

#[test]
fn a_thawed_contact_recycles_its_frozen_base() {
    let (mut bodies, a, b) = box_on_ground();
    let pairs = [(a, b)];
    let mut set = ContactSet::default();
    set.update(&pairs, &[], &bodies, &PARAMS);
    let first = set.base(0);
    let mut frozen = Vec::new();
    set.freeze(|_, _| true, &mut frozen);
    assert!(set.list.is_empty());
    // Updates while the pair sleeps overwrite both sets of slots.
    set.update(&[], &[], &bodies, &PARAMS);
    set.update(&[], &[], &bodies, &PARAMS);
    set.thaw(frozen);
    assert_eq!(set.base(0).relative(), first.relative());
    // 0.4 mm of sinking is within recycling range of the frozen base: recycled, so the base
    // is still that of the first collide; a fresh collide would have rebased it.
    bodies.poses_mut().center[b as usize].y -= 4e-4;
    set.update(&pairs, &[], &bodies, &PARAMS);
    assert_eq!(set.base(0).relative(), first.relative());
    assert!(set.bases.thawed.is_empty());
}

/// A contact without a point, listed or frozen, is refused from a snapshot's bytes: the step
/// keeps none, and the solver's spin bounds count on every contact having one.
#[test]
fn check_refuses_a_contact_without_a_point() {
    use crate::narrow_phase::removal::Removed;
    let (bodies, a, b) = box_on_ground();
    let mut set = ContactSet::default();
    set.update(&[(a, b)], &[], &bodies, &PARAMS);
    let removed = Removed::default();
    assert!(set.check(&bodies, &removed).is_ok());
    let mut frozen = Vec::new();
    set.freeze(|_, _| true, &mut frozen);
    assert!(frozen[0].check(&bodies).is_ok());
    frozen[0].contact.manifold.point_count = 0;
    assert!(frozen[0].check(&bodies).is_err());
    set.update(&[(a, b)], &[], &bodies, &PARAMS);
    set.list[0].manifold.point_count = 0;
    assert!(set.check(&bodies, &removed).is_err());
    // A listed contact whose recycling base has no point is refused too.
    set.update(&[(a, b)], &[], &bodies, &PARAMS);
    assert!(set.check(&bodies, &removed).is_ok());
    set.bases
        .thawed
        .push(crate::narrow_phase::recycle::Base::empty());
    set.base_of[0] = (set.bases.thawed.len() as u32 - 1) | super::THAWED;
    assert!(set.check(&bodies, &removed).is_err());
}

#[test]
fn update_recycles_resting_pairs_and_recollides_moved_ones() {
    let (mut bodies, a, b) = box_on_ground();
    let params = PARAMS;
    let pairs = [(a, b)];
    let mut set = ContactSet::default();
    set.update(&pairs, &[], &bodies, &params);
    assert_eq!(set.list.len(), 1);
    let first = set.base(0).relative();
    // Give the solver's impulses something to carry.
    set.list[0].manifold.points[0].normal_impulse = 2.5;

    let (sa, sb) = (a as usize, b as usize);
    let fresh = |bodies: &BodyStore| {
        let (xf_a, xf_b) = (bodies.transform(sa), bodies.transform(sb));
        shape_manifold(
            &bodies.shape()[sa],
            xf_a,
            &bodies.shape()[sb],
            xf_b,
            SPECULATIVE,
        )
    };
    // Sinking 0.4 mm: recycled (the base stays that of the first collide), close to fresh,
    // impulses carried.
    bodies.poses_mut().center[sb].y -= 4e-4;
    set.update(&pairs, &[], &bodies, &params);
    assert_eq!(set.base(0).relative(), first);
    let m = set.list[0].manifold;
    assert_eq!(m.points[0].normal_impulse, 2.5);
    let exact = fresh(&bodies);
    for (p, q) in m.points.iter().zip(&exact.points).take(m.point_count) {
        assert!((p.separation - q.separation).abs() < 1e-6);
    }
    // Another 0.8 mm: 1.2 mm from the first collide, so collided afresh and rebased.
    bodies.poses_mut().center[sb].y -= 8e-4;
    set.update(&pairs, &[], &bodies, &params);
    assert_ne!(set.base(0).relative(), first);
    assert_eq!(set.list[0].manifold.points[0].normal_impulse, 2.5);
    let mut exact = fresh(&bodies);
    exact.points[0].normal_impulse = 2.5;
    assert_eq!(set.list[0].manifold, exact);
    // Lifted out of reach: the contact is dropped with its base.
    bodies.poses_mut().center[sb].y += 0.1;
    set.update(&pairs, &[], &bodies, &params);
    assert!(set.list.is_empty() && set.keys.is_empty() && set.base_of.is_empty());
}

#[test]
fn frozen_contacts_come_back_in_order_with_their_impulses() {
    let contact = |a: usize, b: usize, impulse: f32| {
        let mut manifold = Manifold {
            point_count: 1,
            ..Manifold::default()
        };
        manifold.points[0].normal_impulse = impulse;
        Contact {
            a: BodySlot::new(a),
            b: BodySlot::new(b),
            manifold,
            friction: 0.6,
            restitution: 0.0,
            tangent_speed: 0.0,
        }
    };
    let raw = |(a, b): (BodySlot, BodySlot)| (a.index(), b.index());
    let mut set = ContactSet {
        list: (0..10).map(|i| contact(i, i + 1, i as f32)).collect(),
        ..ContactSet::default()
    };
    let all: Vec<(usize, usize, f32)> = set
        .list
        .iter()
        .map(|c| {
            (
                c.a.index(),
                c.b.index(),
                c.manifold.points[0].normal_impulse,
            )
        })
        .collect();
    let mut frozen = Vec::new();
    set.freeze(|a, b| a.index() % 3 == 0 || b.index() == 5, &mut frozen);
    let taken: Vec<(usize, usize)> = frozen.iter().map(|f| raw(f.bodies())).collect();
    assert_eq!(taken, [(0, 1), (3, 4), (4, 5), (6, 7), (9, 10)]);
    assert_eq!(set.list.len(), 5);
    assert_eq!(set.keys.len(), 5);

    // Pair (3, 4) was collided afresh meanwhile: the fresh contact wins.
    set.list.push(contact(3, 4, 99.0));
    set.list.sort_unstable_by_key(Contact::key);
    set.keys.clear();
    frozen.reverse();
    set.thaw(frozen);
    let back: Vec<(usize, usize, f32)> = set
        .list
        .iter()
        .map(|c| {
            (
                c.a.index(),
                c.b.index(),
                c.manifold.points[0].normal_impulse,
            )
        })
        .collect();
    let mut expected = all.clone();
    expected[3].2 = 99.0;
    assert_eq!(back, expected);
    assert_eq!(set.keys.len(), set.list.len());
    assert_eq!(set.base_of.len(), set.list.len());
}
