//! The manifold recycling kernel against its scalar twin, bit for bit, on every instruction
//! set this CPU has, and against the motion it measures.

use batch2d_kernels::recycle::{
    scalar, simd, turned_too_far, BodyPose, RecycleBase, RecycleBases, RecycleBatch, RecycleLanes,
    RecycleParams,
};
#[cfg(target_arch = "x86_64")]
use batch2d_kernels::x86::{avx2, avx512};
use batch2d_kernels::{InstructionSet, LANES};
use bytemuck::Zeroable;

mod common;
use common::Rng;

/// A rotation of `angle` as (cos, sin).
fn rotation(angle: f32) -> [f32; 2] {
    [angle.cos(), angle.sin()]
}

/// A pair of bodies and its base: the two bodies' poses, a base made where they were, and the
/// bodies since moved by a random amount, from nothing to far more than any limit, so that
/// every outcome of the kernel comes up.
fn random_lane(rng: &mut Rng, base: &mut RecycleBase) -> [BodyPose; 2] {
    let far = rng.range(-1000.0, 1000.0);
    let origin_a = [rng.range(-5.0, 5.0) + far, rng.range(-5.0, 5.0)];
    let origin_b = [origin_a[0] + rng.range(-2.0, 2.0), origin_a[1] + 1.0];
    let (angle_a, angle_b) = (rng.range(-4.0, 4.0), rng.range(-4.0, 4.0));
    let (qa, qb) = (rotation(angle_a), rotation(angle_b));
    let local_a = [rng.zero_or_range(-0.5, 0.5), rng.range(-0.5, 0.5)];
    let local_b = [rng.range(-0.5, 0.5), rng.zero_or_range(-0.5, 0.5)];
    // Centres from origins: the pose finds the origins back up to rounding.
    let center = |o: [f32; 2], [c, s]: [f32; 2], r: [f32; 2]| {
        [o[0] + (c * r[0] - s * r[1]), o[1] + (s * r[0] + c * r[1])]
    };
    let poses = [
        BodyPose::new(center(origin_a, qa, local_a), qa, local_a),
        BodyPose::new(center(origin_b, qb, local_b), qb, local_b),
    ];
    // The base saw B where it is in A's frame, moved back by a motion of a random scale.
    let scale = [0.0, 1e-6, 1e-4, 1e-3, 1e-2, 1.0][rng.below(6) as usize];
    let [c_turn, s_turn] = rotation(angle_b - angle_a + scale * rng.range(-1.0, 1.0));
    let [ca, sa] = qa;
    let d = [origin_b[0] - origin_a[0], origin_b[1] - origin_a[1]];
    base.relative = [
        ca * d[0] + sa * d[1] + scale * rng.range(-1.0, 1.0),
        -sa * d[0] + ca * d[1] + scale * rng.range(-1.0, 1.0),
        c_turn,
        s_turn,
    ];
    base.normal = rotation(rng.range(-4.0, 4.0));
    // A reach of each kind: none (never reused), nothing, and of each scale.
    let reach = [-1.0, 0.0, 1e-4, 1e-3, 1e-2][rng.below(5) as usize];
    base.reach_squared = if reach < 0.0 { -1.0 } else { reach * reach };
    for p in &mut base.points {
        *p = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.zero_or_range(-0.01, 0.03),
        ];
    }
    // A base of one point holds it twice.
    base.count = 1 + rng.below(2) as u32;
    if base.count == 1 {
        base.points[1] = base.points[0];
    }
    base.ids = [rng.next_u64() as u32, rng.next_u64() as u32];
    poses
}

/// The words of a batch, inputs and outputs.
fn words(c: &RecycleBatch) -> &[u32] {
    bytemuck::cast_slice(bytemuck::bytes_of(c))
}

/// A recycle kernel of some instruction set.
type Kernel = fn(
    &mut RecycleBatch,
    &[BodyPose],
    &[(u32, u32); LANES],
    &RecycleBases,
    &RecycleParams,
) -> RecycleLanes;

/// Every recycle kernel this CPU can run, by name.
fn kernels() -> Vec<(&'static str, Kernel)> {
    let mut kernels: Vec<(&str, Kernel)> = vec![("portable", simd::recycle)];
    #[cfg(target_arch = "x86_64")]
    {
        if InstructionSet::Avx2.is_supported() {
            kernels.push(("avx2", avx2::recycle));
        }
        if InstructionSet::Avx512.is_supported() {
            kernels.push(("avx512", avx512::recycle));
        }
    }
    kernels
}

const PARAMS: RecycleParams = RecycleParams {
    max_chord_squared: 1e-3 * 1e-3,
    band: 0.02,
    touch: 0.005,
};

#[test]
fn simd_recycle_matches_its_scalar_twin_bit_for_bit() {
    let mut rng = Rng(58);
    let mut outcomes = [0usize; 3];
    let mut touching = 0;
    for case in 0..2000 {
        let mut input = RecycleBatch::zeroed();
        let mut lanes = [RecycleBase::zeroed(); LANES];
        let mut bases = RecycleBases::zeroed();
        // The pairs' bodies in a table of poses, each pair's two at places of their own,
        // shuffled, as the engine's pairs join bodies anywhere in its table.
        let mut poses = vec![BodyPose::zeroed(); 2 * LANES + 1];
        let mut places: Vec<u32> = (0..poses.len() as u32).collect();
        for i in (1..places.len()).rev() {
            places.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut pairs = [(0, 0); LANES];
        for (l, base) in lanes.iter_mut().enumerate() {
            let [a, b] = random_lane(&mut rng, base);
            pairs[l] = (places[2 * l], places[2 * l + 1]);
            poses[pairs[l].0 as usize] = a;
            poses[pairs[l].1 as usize] = b;
            bases.set(l, base);
            assert_eq!(bases.get(l), *base);
        }
        // Outputs start as NaNs: every one the kernel owns must be written.
        let garbage = f32::from_bits(0x7FC0_1234);
        input.moved = bytemuck::cast([[garbage; 16]; LANES]);
        input.carried = [[0x7FC0_1234; LANES]; 3];
        let mut twin = input;
        let expected = scalar::recycle(&mut twin, &poses, &pairs, &bases, &PARAMS);
        for (name, kernel) in kernels() {
            let mut batch = input;
            let lanes = kernel(&mut batch, &poses, &pairs, &bases, &PARAMS);
            assert_eq!(lanes, expected, "{name}, case {case}: masks differ");
            let diff = (words(&batch).iter().zip(words(&twin))).position(|(x, y)| x != y);
            assert_eq!(diff, None, "{name}, case {case}: word differs");
        }
        for (l, base) in lanes.iter().enumerate() {
            let outcome = if expected.kept & 1 << l != 0 {
                0
            } else if expected.beyond & 1 << l != 0 {
                1
            } else {
                2
            };
            outcomes[outcome] += 1;
            // The touch mask is the engine's test of the moved points.
            let count = base.count as usize;
            let moved = &twin.moved[l].points[..count];
            let touches = moved.iter().any(|p| p.separation < PARAMS.touch);
            // The ids and count are the base's, as they were.
            assert_eq!(
                [twin.id(l, 0), twin.id(l, 1), twin.count(l) as u32],
                [base.ids[0], base.ids[1], base.count]
            );
            assert_eq!(
                expected.touching & 1 << l != 0,
                touches,
                "case {case}, lane {l}"
            );
            touching += usize::from(touches);
        }
        assert_eq!(expected.kept & expected.beyond, 0);
    }
    // Each outcome came up often enough to have been compared.
    assert!(outcomes.iter().all(|&n| n > 500), "outcomes {outcomes:?}");
    assert!(touching > 500 && touching < 15000, "touching {touching}");
}

#[test]
fn a_pair_that_turned_too_far_is_one_the_kernel_refuses() {
    let mut rng = Rng(1225);
    let (mut too_far, mut kept) = (0, 0);
    for case in 0..1000 {
        let mut bases = RecycleBases::zeroed();
        // Lane l's pair is bodies 2l and 2l + 1 of the pose table.
        let mut poses = [BodyPose::zeroed(); 2 * LANES];
        let pairs: [(u32, u32); LANES] = std::array::from_fn(|l| (2 * l as u32, 2 * l as u32 + 1));
        for l in 0..LANES {
            let mut base = RecycleBase::zeroed();
            [poses[2 * l], poses[2 * l + 1]] = random_lane(&mut rng, &mut base);
            bases.set(l, &base);
        }
        let mut twin = RecycleBatch::zeroed();
        let expected = scalar::recycle(&mut twin, &poses, &pairs, &bases, &PARAMS);
        for l in 0..LANES {
            let (qa, qb) = (poses[2 * l].rotation, poses[2 * l + 1].rotation);
            let relative = bases.relative_rotation(l);
            let refused = turned_too_far(qa, qb, relative, &PARAMS);
            // The chord of B's turn relative to A since the base, in f64: `|R1 - R0|² =
            // 2 - 2 cos(turn)`, the turn being the angle of A⁻¹B now less that at the base.
            let angle = |[c, s]: [f32; 2]| f64::from(s).atan2(f64::from(c));
            let turn = angle(qb) - angle(qa) - angle(relative);
            let chord_squared = 2.0 - 2.0 * turn.cos();
            let limit = f64::from(PARAMS.max_chord_squared);
            // (Rounding decides within a hair of the limit.)
            if (chord_squared - limit).abs() > 1e-3 * limit {
                assert_eq!(refused, chord_squared > limit, "case {case}, lane {l}");
            }
            if refused {
                too_far += 1;
                let neither = (expected.kept | expected.beyond) & 1 << l == 0;
                assert!(
                    neither,
                    "case {case}, lane {l}: refused, yet kept or beyond"
                );
            }
            kept += usize::from(expected.kept & 1 << l != 0);
        }
    }
    // Both outcomes came up often enough to have been compared.
    assert!(
        too_far > 1000 && kept > 500,
        "too far {too_far}, kept {kept}"
    );
}

#[test]
fn a_pair_that_did_not_move_keeps_its_base_points_and_one_that_moved_beyond_its_reach_is_refused() {
    let mut c = RecycleBatch::zeroed();
    let angle_a: f32 = 0.7;
    let [ca, sa] = rotation(angle_a);
    let pose = |center: [f32; 2], rotation: [f32; 2]| BodyPose::new(center, rotation, [0.0; 2]);
    let mut poses = [[
        pose([3.0, -1.0], [ca, sa]),
        pose([3.0 - sa, -1.0 + ca], [ca, sa]),
    ]; LANES];
    // B one metre above A in A's frame, not turned relative to it.
    let base = RecycleBase {
        relative: [0.0, 1.0, 1.0, 0.0],
        normal: [0.0, 1.0],
        reach_squared: 1e-3 * 1e-3,
        points: [[-0.5, 0.5, 0.0], [0.5, 0.5, 0.0]],
        count: 2,
        ..RecycleBase::default()
    };
    // Lane 1: B slid 2 mm along A's x; lane 2: B turned by 2 mrad about its origin.
    poses[1][1].origin[0] += 2e-3 * ca;
    poses[1][1].origin[1] += 2e-3 * sa;
    poses[2][1].rotation = rotation(angle_a + 2e-3);
    let mut bases = RecycleBases::zeroed();
    let poses: Vec<BodyPose> = poses.into_iter().flatten().collect();
    let pairs = std::array::from_fn(|l| (2 * l as u32, 2 * l as u32 + 1));
    for l in 0..LANES {
        bases.set(l, &base);
    }
    // Lane 3: unmoved, but its base has no reach.
    let never = RecycleBase {
        reach_squared: -1.0,
        ..base
    };
    bases.set(3, &never);
    let lanes = scalar::recycle(&mut c, &poses, &pairs, &bases, &PARAMS);
    assert_eq!(lanes.kept & 0b1111, 0b0001);
    assert_eq!(lanes.beyond & 0b1111, 0);
    // Lane 0: the points are the base points in the world, A's frame turned by 0.7 rad, and
    // touch (separation 0).
    assert_eq!(lanes.touching & 1, 1);
    let moved = &c.moved[0];
    for (p, [x, y, _]) in moved.points.iter().zip(base.points) {
        let world = [3.0 + ca * x - sa * y, -1.0 + sa * x + ca * y];
        assert!((p.point[0] - world[0]).abs() < 1e-5);
        assert!((p.point[1] - world[1]).abs() < 1e-5);
        assert!(p.separation.abs() < 1e-5);
    }
    assert!((moved.normal[0] + sa).abs() < 1e-6 && (moved.normal[1] - ca).abs() < 1e-6);
}

/// A body-poses kernel of some instruction set.
type PosesKernel = fn(&[[f32; 2]], &[[f32; 2]], &[[f32; 2]], &mut [BodyPose]);

#[test]
fn body_poses_match_their_scalar_twin_bit_for_bit() {
    let mut kernels: Vec<(&str, PosesKernel)> = vec![("portable", simd::body_poses)];
    #[cfg(target_arch = "x86_64")]
    {
        if InstructionSet::Avx2.is_supported() {
            kernels.push(("avx2", avx2::body_poses));
        }
        if InstructionSet::Avx512.is_supported() {
            kernels.push(("avx512", avx512::body_poses));
        }
    }
    let mut rng = Rng(59);
    // Every length up to a few fours, so that the last bodies, one by one, come up too.
    for n in 0..40 {
        let pair = |rng: &mut Rng, lo: f32, hi: f32| [rng.zero_or_range(lo, hi), rng.range(lo, hi)];
        let center: Vec<[f32; 2]> = (0..n).map(|_| pair(&mut rng, -1000.0, 1000.0)).collect();
        let rotation: Vec<[f32; 2]> = (0..n).map(|_| rotation(rng.range(-4.0, 4.0))).collect();
        let local: Vec<[f32; 2]> = (0..n).map(|_| pair(&mut rng, -0.5, 0.5)).collect();
        let mut twin = vec![BodyPose::zeroed(); n];
        scalar::body_poses(&center, &rotation, &local, &mut twin);
        for i in 0..n {
            // The origin is where the local centre, turned, lands on the centre.
            let [c, s] = rotation[i];
            let turned = [
                c * local[i][0] - s * local[i][1],
                s * local[i][0] + c * local[i][1],
            ];
            let back = [twin[i].origin[0] + turned[0], twin[i].origin[1] + turned[1]];
            assert!(
                (back[0] - center[i][0]).abs() <= 1e-3 && (back[1] - center[i][1]).abs() <= 1e-3
            );
            assert_eq!(twin[i].rotation, rotation[i]);
        }
        for (name, kernel) in &kernels {
            let mut poses = vec![BodyPose::zeroed(); n];
            kernel(&center, &rotation, &local, &mut poses);
            let bits = |p: &[BodyPose]| bytemuck::cast_slice::<_, u32>(p).to_vec();
            assert_eq!(bits(&poses), bits(&twin), "{name}, {n} bodies");
        }
    }
}
