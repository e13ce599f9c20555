//! The kernels of each [`Backend`] behind one interface, [`Kernels`]: the solver names each
//! operation once, and a backend is picked in one place, [`Backend::kernels`]. Both backends do
//! the same float operations per lane, so they give the same bits.

use crate::settings::Backend;
use batch2d_kernels::body::{self as kbody, BodyParams, IntegrateParams, States};
use batch2d_kernels::contact::{pair, scalar, simd};
use batch2d_kernels::{BodyState, ContactBatch, ImpactParams, SolveParams, NATIVE_PAIRS};

/// The contact and body kernels of one backend. The contact kernels' safety contract is that
/// of the kernels crate: no other thread accesses the batch or its dynamic bodies' states
/// meanwhile.
pub(crate) trait Kernels: Sync {
    /// Effective masses and base separations.
    fn prepare(&self, c: &mut ContactBatch);

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

    /// Whether [`Kernels::solve_pair`] is faster than two solves: true only where the SIMD
    /// backend has a native two-batch kernel.
    fn solves_pairs(&self) -> bool {
        false
    }

    /// [`Kernels::solve`] on two batches of two-point contacts, with the same bits.
    ///
    /// # Safety
    /// As for [`Kernels::solve`], and no dynamic body appears in both batches.
    unsafe fn solve_pair(&self, c: &mut [ContactBatch; 2], states: States, params: &SolveParams) {
        let [c0, c1] = c;
        // SAFETY: the caller's promise, for each batch.
        unsafe {
            self.solve(c0, states, params, false);
            self.solve(c1, states, params, false);
        }
    }

    /// Gravity, forces, damping and the speed caps over one substep.
    fn integrate_velocities(&self, states: &mut [BodyState], body: BodyParams, p: &IntegrateParams);

    /// Advances positions by one substep of length `h`.
    fn integrate_positions(&self, states: &mut [BodyState], h: f32);
}

/// f32x8 kernels, eight contacts at a time.
struct SimdKernels;

/// The one-lane reference kernels.
struct ScalarKernels;

/// Implements [`Kernels`] for `$backend` with the contact kernels of the kernels crate's module
/// `$contact` and the body kernels `$velocities` and `$positions`; `$extra` holds the methods
/// that only this backend overrides.
macro_rules! impl_kernels {
    ($backend:ty, $contact:ident, $velocities:path, $positions:path, { $($extra:tt)* }) => {
        impl Kernels for $backend {
            fn prepare(&self, c: &mut ContactBatch) {
                $contact::prepare(c)
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

            $($extra)*
        }
    };
}

impl_kernels!(
    SimdKernels,
    simd,
    kbody::integrate_velocities_simd,
    kbody::integrate_positions_simd,
    {
        fn solves_pairs(&self) -> bool {
            NATIVE_PAIRS
        }

        unsafe fn solve_pair(
            &self,
            c: &mut [ContactBatch; 2],
            states: States,
            params: &SolveParams,
        ) {
            // SAFETY: the caller's promise.
            unsafe { pair::solve(c, states, params) }
        }
    }
);

impl_kernels!(
    ScalarKernels,
    scalar,
    kbody::integrate_velocities_scalar,
    kbody::integrate_positions_scalar,
    {}
);

impl Backend {
    /// This backend's kernels.
    pub(crate) fn kernels(self) -> &'static dyn Kernels {
        match self {
            Backend::Simd => &SimdKernels,
            Backend::Scalar => &ScalarKernels,
        }
    }
}
