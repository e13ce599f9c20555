//! The box kernels against their scalar twin, bit for bit, on every instruction set this CPU
//! has, and the scalar twin against the box it stands for.

use batch2d_kernels::bounds::{scalar, simd, BoxBodies, BoxParams, BoxShape};
#[cfg(target_arch = "x86_64")]
use batch2d_kernels::x86::{avx2, avx512};
#[cfg(target_arch = "x86_64")]
use batch2d_kernels::InstructionSet;

mod common;
use common::Rng;

/// Random bodies: the columns of `n` of them, rectangles and circles (no width) mixed.
struct Columns {
    center: Vec<[f32; 2]>,
    rotation: Vec<[f32; 2]>,
    local_center: Vec<[f32; 2]>,
    linear: Vec<[f32; 2]>,
    angular: Vec<f32>,
    reach: Vec<f32>,
    shape: Vec<BoxShape>,
}

impl Columns {
    fn random(rng: &mut Rng, n: usize) -> Columns {
        let mut c = Columns {
            center: Vec::new(),
            rotation: Vec::new(),
            local_center: Vec::new(),
            linear: Vec::new(),
            angular: Vec::new(),
            reach: Vec::new(),
            shape: Vec::new(),
        };
        for i in 0..n {
            let angle = rng.range(-4.0, 4.0);
            c.center.push(rng.pair(-1000.0, 1000.0));
            c.rotation.push([angle.cos(), angle.sin()]);
            c.local_center.push(rng.pair(-0.5, 0.5));
            c.linear.push(rng.pair(-50.0, 50.0));
            c.angular.push(rng.zero_or_range(-30.0, 30.0));
            c.reach.push(rng.range(0.1, 3.0));
            let half = match i % 3 {
                0 => [0.0; 2],
                _ => [rng.range(0.05, 2.0), rng.range(0.05, 2.0)],
            };
            let radius = rng.range(0.0, 0.5);
            c.shape
                .push(BoxShape::new(rng.pair(-1.0, 1.0), half, radius));
        }
        c
    }

    fn bodies(&self) -> BoxBodies<'_> {
        BoxBodies {
            center: &self.center,
            rotation: &self.rotation,
            local_center: &self.local_center,
            linear: &self.linear,
            angular: &self.angular,
            reach: &self.reach,
            shape: &self.shape,
        }
    }
}

/// A box kernel of some instruction set.
type BoxesKernel = fn(&BoxBodies, &BoxParams, &mut [[f32; 4]]);

#[test]
fn body_boxes_match_their_scalar_twin_bit_for_bit() {
    let mut kernels: Vec<(&str, BoxesKernel)> = vec![("portable", simd::body_boxes)];
    #[cfg(target_arch = "x86_64")]
    {
        if InstructionSet::Avx2.is_supported() {
            kernels.push(("avx2", avx2::body_boxes));
        }
        if InstructionSet::Avx512.is_supported() {
            kernels.push(("avx512", avx512::body_boxes));
        }
    }
    let mut rng = Rng(58);
    let params = BoxParams {
        margin: 0.02,
        dt: 1.0 / 60.0,
    };
    // Every length up to a few fours, so that the last bodies, one by one, come up too.
    for n in 0..40 {
        let columns = Columns::random(&mut rng, n);
        let mut twin = vec![[0.0; 4]; n];
        scalar::body_boxes(&columns.bodies(), &params, &mut twin);
        for (name, kernel) in &kernels {
            let mut boxes = vec![[0.0; 4]; n];
            kernel(&columns.bodies(), &params, &mut boxes);
            let bits = |b: &[[f32; 4]]| bytemuck::cast_slice::<_, u32>(b).to_vec();
            assert_eq!(bits(&boxes), bits(&twin), "{name}, {n} bodies");
        }
    }
}

/// The box holds the rounded rectangle at the start and at the end of the motion, grown by
/// the margin and the turn's reach, and touches it: each side is within rounding of the
/// farthest corner there.
#[test]
fn a_body_box_is_its_grown_swept_shape() {
    let mut rng = Rng(3);
    let params = BoxParams {
        margin: 0.02,
        dt: 1.0 / 60.0,
    };
    let columns = Columns::random(&mut rng, 200);
    let b = columns.bodies();
    for i in 0..200 {
        let [lx, ly, ux, uy] = scalar::body_box(&b, i, &params);
        let [c, s] = b.rotation[i];
        let origin = [
            b.center[i][0] - (c * b.local_center[i][0] - s * b.local_center[i][1]),
            b.center[i][1] - (s * b.local_center[i][0] + c * b.local_center[i][1]),
        ];
        let shape = b.shape[i];
        let grow = params.margin + b.angular[i].abs() * params.dt * b.reach[i];
        let motion = [b.linear[i][0] * params.dt, b.linear[i][1] * params.dt];
        let (mut lower, mut upper) = ([f32::MAX; 2], [f32::MIN; 2]);
        for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let local = [
                shape.center[0] + sx * shape.half[0],
                shape.center[1] + sy * shape.half[1],
            ];
            let world = [
                origin[0] + c * local[0] - s * local[1],
                origin[1] + s * local[0] + c * local[1],
            ];
            for k in 0..2 {
                lower[k] = lower[k].min(world[k] - shape.radius[k] - grow);
                upper[k] = upper[k].max(world[k] + shape.radius[k] + grow);
            }
        }
        let expected = [
            lower[0] + motion[0].min(0.0),
            lower[1] + motion[1].min(0.0),
            upper[0] + motion[0].max(0.0),
            upper[1] + motion[1].max(0.0),
        ];
        for (got, want) in [lx, ly, ux, uy].into_iter().zip(expected) {
            let tolerance = 1e-6 * want.abs().max(1.0) * 4.0;
            assert!((got - want).abs() <= tolerance, "body {i}: {got} vs {want}");
        }
    }
}
