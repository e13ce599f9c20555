//! The kernels of each [`Backend`] and instruction set behind one interface, [`Kernels`]: the
//! solver names each operation once, and the kernels are picked in one place,
//! [`WorldSettings::kernels`]. All do the same float operations per lane, so they give the same
//! bits.

use crate::broad_phase::boxes::BoxesKernel;
use crate::settings::{Backend, WorldSettings};
use batch2d_kernels::body::{
    self as kbody, BodyParams, IntegrateParams, PoseColumns, States, VelocityColumns,
};
use batch2d_kernels::bounds;
use batch2d_kernels::contact::{pair, scalar, simd};
use batch2d_kernels::joint as pin;
#[cfg(target_arch = "x86_64")]
use batch2d_kernels::x86::{avx2, avx512};
use batch2d_kernels::{
    BodyFrames, BodyState, ContactBatch, ImpactParams, InstructionSet, LaneBodies, Loaded,
    PinBatch, PinFrames, PinParams, PinStart, PointRows, SolveParams, NATIVE_PAIRS,
};

/// The contact and body kernels of one backend. The contact kernels' safety contract is that
/// of the kernels crate: no other thread accesses the batch or its dynamic bodies' states
/// meanwhile.
pub(crate) trait Kernels: Sync {
    /// Loads the points of the batch's contacts from their rows, sets their gravity along the
    /// normal and prepares the batch (base separations); returns its deep lanes and whether it
    /// has one point a lane (see the kernels' `simd::load_points`).
    fn load_points(
        &self,
        c: &mut ContactBatch,
        rows: &PointRows,
        bodies: &LaneBodies,
        gravity: [f32; 2],
    ) -> Loaded;

    /// This step's bounces.
    ///
    /// # Safety
    /// See the trait documentation.
    unsafe fn impact(&self, c: &mut ContactBatch, states: States, params: &ImpactParams);

    /// Applies last step's impulses; `one_point` when every contact of the batch has one point.
    ///
    /// # Safety
    /// See the trait documentation.
    unsafe fn warm_start(&self, c: &mut ContactBatch, states: States, one_point: bool);

    /// One solve or relax pass; `one_point` as for [`Kernels::warm_start`].
    ///
    /// # Safety
    /// See the trait documentation.
    unsafe fn solve(&self, c: &mut ContactBatch, states: States, p: &SolveParams, one_point: bool);

    /// Whether [`Kernels::solve_pair`] is faster than two solves: true where the SIMD backend
    /// has a two-batch kernel (AVX2, AVX-512, or a portable build for AVX-512).
    fn solves_pairs(&self) -> bool {
        false
    }

    /// [`Kernels::solve`] on two batches, with the same bits; `one_point` when every contact of
    /// both has one point.
    ///
    /// # Safety
    /// As for [`Kernels::solve`], and no dynamic body appears in both batches.
    unsafe fn solve_pair(
        &self,
        c: &mut [ContactBatch; 2],
        states: States,
        params: &SolveParams,
        one_point: bool,
    ) {
        let [c0, c1] = c;
        // SAFETY: the caller's promise, for each batch.
        unsafe {
            self.solve(c0, states, params, one_point);
            self.solve(c1, states, params, one_point);
        }
    }

    /// [`Kernels::warm_start`] on a run of batches, one after another, `one_point[i]` for
    /// batch `i`. One call per run: backends with a kernel for runs override it.
    ///
    /// # Safety
    /// As for [`Kernels::warm_start`], for every batch of the run.
    unsafe fn warm_start_run(&self, c: &mut [ContactBatch], one_point: &[bool], states: States) {
        for (c, &one) in c.iter_mut().zip(one_point) {
            // SAFETY: the caller's promise.
            unsafe { self.warm_start(c, states, one) }
        }
    }

    /// [`Kernels::solve`] on a run of batches, in order, `one_point[i]` for batch `i`; with
    /// `color` (no dynamic body in two batches of the run) two neighbours of the same kind
    /// at once by [`Kernels::solve_pair`] where [`Kernels::solves_pairs`]: two dependency
    /// chains side by side keep the core busier, with the same bits.
    ///
    /// # Safety
    /// As for [`Kernels::solve`], for every batch of the run, and with `color` as for
    /// [`Kernels::solve_pair`].
    unsafe fn solve_run(
        &self,
        c: &mut [ContactBatch],
        one_point: &[bool],
        states: States,
        params: &SolveParams,
        color: bool,
    ) {
        let paired = color && self.solves_pairs();
        let n = c.len().min(one_point.len());
        let mut i = 0;
        // SAFETY (both calls): the caller's promise.
        while i < n {
            if paired && i + 1 < n && one_point[i] == one_point[i + 1] {
                let pair: &mut [ContactBatch; 2] = (&mut c[i..i + 2]).try_into().unwrap();
                unsafe { self.solve_pair(pair, states, params, one_point[i]) };
                i += 2;
            } else {
                unsafe { self.solve(&mut c[i], states, params, one_point[i]) };
                i += 1;
            }
        }
    }

    /// Gravity, forces, damping and the speed caps over one substep.
    fn integrate_velocities(&self, states: &mut [BodyState], body: BodyParams, p: &IntegrateParams);

    /// Advances positions by one substep of length `h`.
    fn integrate_positions(&self, states: &mut [BodyState], h: f32);

    /// Starts a step: state `k` takes the velocity of slot `slots[k]` of the columns within
    /// the caps (m/s, rad/s; the angular one lowered to `spin_bound[k]` where that is lower),
    /// and no motion yet. Panics where a slot is out of bounds of the columns.
    fn start(
        &self,
        states: &mut [BodyState],
        slots: &[u32],
        columns: VelocityColumns,
        spin_bound: Option<&[f32]>,
        caps: (f32, f32),
    );

    /// Ends a step: writes each slot's state (`state_of`, [`NULL_BODY`] for a slot the solver
    /// left alone) back to the columns, the velocities within the caps (m/s, rad/s).
    ///
    /// [`NULL_BODY`]: batch2d_kernels::NULL_BODY
    fn finish(
        &self,
        states: &[BodyState],
        state_of: &[u32],
        columns: PoseColumns,
        caps: (f32, f32),
    );

    /// Sets each pin batch's start for a step (its anchors relative to the centres and B's
    /// centre minus A's) from its frames (one per batch) and the bodies' centres and rotations
    /// now.
    fn pin_arms(&self, c: &mut [PinStart], frames: &[PinFrames], bodies: BodyFrames);

    /// Applies the accumulated impulses of pin batches again, one batch after another: in
    /// the `first` substep of a step finding their arms and blocks from their starts (`s`, one
    /// per batch), in a later one at those the relax before kept.
    ///
    /// # Safety
    /// As for the pin kernels of the kernels crate: no other thread accesses the bodies the
    /// batch moves meanwhile.
    unsafe fn pin_warm_start(
        &self,
        c: &mut [PinBatch],
        s: &[PinStart],
        states: States,
        first: bool,
    );

    /// One biased pass of pin batches, one after another, after the substep's warm start
    /// (whose block it reads).
    ///
    /// # Safety
    /// As for [`Kernels::pin_warm_start`].
    unsafe fn pin_solve(&self, c: &mut [PinBatch], states: States, params: &PinParams);

    /// The relax pass of pin batches, one after another, from their starts (`s`, one per
    /// batch); keeps their arms and blocks for the next substep's warm start.
    ///
    /// # Safety
    /// As for [`Kernels::pin_warm_start`].
    unsafe fn pin_relax(
        &self,
        c: &mut [PinBatch],
        s: &[PinStart],
        states: States,
        params: &PinParams,
    );
}

/// f32x8 kernels, eight contacts at a time, on `wide`'s vectors as compiled.
struct SimdKernels;

/// The f32x8 kernels compiled for AVX2, and the two-batch solves on pairs of registers.
#[cfg(target_arch = "x86_64")]
struct Avx2Kernels;

/// The f32x8 kernels compiled for AVX-512, and the two-batch solves.
#[cfg(target_arch = "x86_64")]
struct Avx512Kernels;

/// The one-lane reference kernels.
struct ScalarKernels;

/// Implements [`Kernels`] for `$backend` with the contact kernels of the kernels crate's module
/// `$contact`, the body kernels `$velocities`, `$positions`, `$start` and `$finish` and the pin kernels
/// `$pin_arms`, `$pin_warm_start`, `$pin_solve` and `$pin_relax`; `$extra` holds the methods that only this backend
/// overrides.
macro_rules! impl_kernels {
    (
        $backend:ty,
        $contact:ident,
        $velocities:path,
        $positions:path,
        $start:path,
        $finish:path,
        $pin_arms:path,
        $pin_warm_start:path,
        $pin_solve:path,
        $pin_relax:path,
        { $($extra:tt)* }
    ) => {
        impl Kernels for $backend {
            fn load_points(
                &self,
                c: &mut ContactBatch,
                rows: &PointRows,
                bodies: &LaneBodies,
                gravity: [f32; 2],
            ) -> Loaded {
                $contact::load_points(c, rows, bodies, gravity)
            }

            unsafe fn impact(&self, c: &mut ContactBatch, states: States, params: &ImpactParams) {
                // SAFETY: the caller's promise.
                unsafe { $contact::impact(c, states, params) }
            }

            unsafe fn warm_start(&self, c: &mut ContactBatch, states: States, one_point: bool) {
                // SAFETY: the caller's promise.
                unsafe {
                    if one_point {
                        $contact::warm_start_one_point(c, states)
                    } else {
                        $contact::warm_start(c, states)
                    }
                }
            }

            unsafe fn solve(
                &self,
                c: &mut ContactBatch,
                states: States,
                params: &SolveParams,
                one_point: bool,
            ) {
                // SAFETY: the caller's promise.
                unsafe {
                    if one_point {
                        $contact::solve_one_point(c, states, params)
                    } else {
                        $contact::solve(c, states, params)
                    }
                }
            }

            fn integrate_velocities(
                &self,
                states: &mut [BodyState],
                body: BodyParams,
                p: &IntegrateParams,
            ) {
                $velocities(states, body, p)
            }

            fn integrate_positions(&self, states: &mut [BodyState], h: f32) {
                $positions(states, h)
            }

            fn start(
                &self,
                states: &mut [BodyState],
                slots: &[u32],
                columns: VelocityColumns,
                spin_bound: Option<&[f32]>,
                (max_linear, max_angular): (f32, f32),
            ) {
                $start(states, slots, columns, spin_bound, max_linear, max_angular)
            }

            fn finish(
                &self,
                states: &[BodyState],
                state_of: &[u32],
                columns: PoseColumns,
                (max_linear, max_angular): (f32, f32),
            ) {
                $finish(states, state_of, columns, max_linear, max_angular)
            }

            fn pin_arms(&self, c: &mut [PinStart], f: &[PinFrames], bodies: BodyFrames) {
                $pin_arms(c, f, bodies)
            }

            unsafe fn pin_warm_start(
                &self,
                c: &mut [PinBatch],
                s: &[PinStart],
                states: States,
                first: bool,
            ) {
                // SAFETY: the caller's promise.
                unsafe { $pin_warm_start(c, s, states, first) }
            }

            unsafe fn pin_solve(&self, c: &mut [PinBatch], states: States, params: &PinParams) {
                // SAFETY: the caller's promise.
                unsafe { $pin_solve(c, states, params) }
            }

            unsafe fn pin_relax(
                &self,
                c: &mut [PinBatch],
                s: &[PinStart],
                states: States,
                params: &PinParams,
            ) {
                // SAFETY: the caller's promise.
                unsafe { $pin_relax(c, s, states, params) }
            }

            $($extra)*
        }
    };
}

/// The methods of [`Kernels`] for a backend with two-batch solves: `$faster` says whether they
/// beat two single solves, `$one_point` and `$two_point` are the kernels.
macro_rules! pair_kernels {
    ($faster:expr, $one_point:path, $two_point:path) => {
        pair_kernels!(@pairs $faster, $one_point, $two_point);
    };
    // With the x86 entry points `$isa::warm_start_run` and `$isa::solve_run` for runs too.
    ($faster:expr, $one_point:path, $two_point:path, runs: $isa:ident) => {
        pair_kernels!(@pairs $faster, $one_point, $two_point);

        unsafe fn warm_start_run(&self, c: &mut [ContactBatch], one_point: &[bool], states: States) {
            // SAFETY: the caller's promise.
            unsafe { $isa::warm_start_run(c, one_point, states) }
        }

        unsafe fn solve_run(
            &self,
            c: &mut [ContactBatch],
            one_point: &[bool],
            states: States,
            params: &SolveParams,
            color: bool,
        ) {
            // SAFETY: the caller's promise.
            unsafe { $isa::solve_run(c, one_point, states, params, color) }
        }
    };
    (@pairs $faster:expr, $one_point:path, $two_point:path) => {
        fn solves_pairs(&self) -> bool {
            $faster
        }

        unsafe fn solve_pair(
            &self,
            c: &mut [ContactBatch; 2],
            states: States,
            params: &SolveParams,
            one_point: bool,
        ) {
            // SAFETY: the caller's promise.
            unsafe {
                if one_point {
                    $one_point(c, states, params)
                } else {
                    $two_point(c, states, params)
                }
            }
        }
    };
}

impl_kernels!(
    SimdKernels,
    simd,
    kbody::integrate_velocities_simd,
    kbody::integrate_positions_simd,
    kbody::start_simd,
    kbody::finish_simd,
    pin::simd::arms,
    pin::simd::warm_start,
    pin::simd::solve,
    pin::simd::relax,
    {
        pair_kernels!(NATIVE_PAIRS, pair::solve_one_point, pair::solve);
    }
);

impl_kernels!(
    ScalarKernels,
    scalar,
    kbody::integrate_velocities_scalar,
    kbody::integrate_positions_scalar,
    kbody::start_scalar,
    kbody::finish_scalar,
    pin::scalar::arms,
    pin::scalar::warm_start,
    pin::scalar::solve,
    pin::scalar::relax,
    {}
);

#[cfg(target_arch = "x86_64")]
impl_kernels!(
    Avx2Kernels,
    avx2,
    avx2::integrate_velocities,
    avx2::integrate_positions,
    avx2::start,
    avx2::finish,
    avx2::pin_arms,
    avx2::pin_warm_start,
    avx2::pin_solve,
    avx2::pin_relax,
    {
        pair_kernels!(
            true,
            avx2::solve_one_point_pair,
            avx2::solve_pair,
            runs: avx2
        );
    }
);

#[cfg(target_arch = "x86_64")]
impl_kernels!(
    Avx512Kernels,
    avx512,
    avx512::integrate_velocities,
    avx512::integrate_positions,
    avx512::start,
    avx512::finish,
    avx512::pin_arms,
    avx512::pin_warm_start,
    avx512::pin_solve,
    avx512::pin_relax,
    {
        pair_kernels!(
            true,
            avx512::solve_one_point_pair,
            avx512::solve_pair,
            runs: avx512
        );
    }
);

impl WorldSettings {
    /// The broadphase's boxes kernel of this backend and instruction set: the scalar twin, or
    /// the kernel of the chosen (by default the widest) instruction set. All give the same
    /// bits.
    pub(crate) fn boxes_kernel(&self) -> BoxesKernel {
        if self.backend == Backend::Scalar {
            return bounds::scalar::body_boxes;
        }
        match self.instruction_set.unwrap_or_else(InstructionSet::widest) {
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx512 => avx512::body_boxes,
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx2 => avx2::body_boxes,
            _ => bounds::simd::body_boxes,
        }
    }

    /// The kernels of this backend and instruction set. (The AVX kernels check for their
    /// instructions on every call too, so an unsupported set that got past `validate` panics.)
    pub(crate) fn kernels(&self) -> &'static dyn Kernels {
        if self.backend == Backend::Scalar {
            return &ScalarKernels;
        }
        match self.instruction_set.unwrap_or_else(InstructionSet::widest) {
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx512 => &Avx512Kernels,
            #[cfg(target_arch = "x86_64")]
            InstructionSet::Avx2 => &Avx2Kernels,
            _ => &SimdKernels,
        }
    }
}
