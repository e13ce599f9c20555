//! Per-stage timings of the last step, and what Tracy sees with the `tracy` feature: zones,
//! a frame per step, and plots of the world's counters (profiling/README.md).

#[cfg(feature = "tracy")]
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Milliseconds spent in each stage of the last [`World::step`](crate::World::step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Profile {
    /// Bounding boxes, the grid broadphase, and moving bodies' queries of the sleeping ones.
    pub broad_phase: f64,
    /// Manifolds, contact persistence, and waking the sleeping islands that were touched.
    pub narrow_phase: f64,
    /// Finding the islands solved directly, graph coloring, and assigning contacts to the
    /// lanes of batches; beside them, on another thread, the contact begin/end events.
    pub coloring: f64,
    /// Loading body states and copying contacts into their batch lanes, then prepare,
    /// substeps, restitution, and storing impulses.
    pub solve: f64,
    /// Writing positions and velocities back to the bodies; with sleeping on, also updating
    /// the islands and putting rested ones to sleep.
    pub finalize: f64,
    /// The whole step.
    pub total: f64,
}

/// Measures consecutive stages.
pub(crate) struct Stopwatch {
    start: Instant,
    last: Instant,
}

impl Stopwatch {
    pub fn start() -> Stopwatch {
        let now = Instant::now();
        Stopwatch {
            start: now,
            last: now,
        }
    }

    /// Milliseconds since the previous lap.
    pub fn lap(&mut self) -> f64 {
        let now = Instant::now();
        let ms = (now - self.last).as_secs_f64() * 1e3;
        self.last = now;
        ms
    }

    /// Milliseconds since the start.
    pub fn total(&self) -> f64 {
        (Instant::now() - self.start).as_secs_f64() * 1e3
    }
}

/// Opens a Tracy zone named `$name` until the end of the enclosing block. Compiles to nothing
/// without the `tracy` feature.
macro_rules! zone {
    ($name:literal) => {
        #[cfg(feature = "tracy")]
        let _zone = tracy_client::span!($name);
    };
}
pub(crate) use zone;

/// Starts the Tracy client so zones can be recorded (once per process; later calls are free).
pub(crate) fn start_tracy() {
    #[cfg(feature = "tracy")]
    tracy_client::Client::start();
}

/// Whether each step ends a frame of Tracy's main frame set; see [`set_tracy_frame_per_step`].
#[cfg(feature = "tracy")]
static FRAME_PER_STEP: AtomicBool = AtomicBool::new(true);

/// Chooses who ends the frames of Tracy's main frame set (the frame view at the top of the
/// profiler), with the `tracy` feature. `true` (the default): every
/// [`World::step`](crate::World::step) ends one, so a frame is a step and the time the caller
/// spends between steps. `false`: the caller ends its own frames with
/// `tracy_client::frame_mark()`, once per rendered frame say, which suits a loop that runs
/// several steps a frame (a [`FixedStepper`](crate::FixedStepper)); each step then shows as a
/// frame of its own set named `step`, from its start to its end. The choice holds for every
/// world of the process, as Tracy has one main frame set per process. Without the `tracy`
/// feature it changes nothing.
pub fn set_tracy_frame_per_step(on: bool) {
    #[cfg(feature = "tracy")]
    FRAME_PER_STEP.store(on, Ordering::Relaxed);
    #[cfg(not(feature = "tracy"))]
    let _ = on;
}

/// One step's frame (see [`set_tracy_frame_per_step`]): dropped, it ends a frame of Tracy's
/// main set; while the caller marks those, it spans a frame of the `step` set from its
/// creation to its drop instead. An empty value without the `tracy` feature.
pub(crate) struct StepFrame {
    /// The frame of the `step` set while the caller marks the main frames itself.
    #[cfg(feature = "tracy")]
    own: Option<tracy_client::Frame>,
}

impl StepFrame {
    /// Call at the start of a step and keep until its end.
    #[inline]
    pub fn begin() -> StepFrame {
        StepFrame {
            #[cfg(feature = "tracy")]
            own: (!FRAME_PER_STEP.load(Ordering::Relaxed))
                .then(|| tracy_client::non_continuous_frame!("step")),
        }
    }
}

#[cfg(feature = "tracy")]
impl Drop for StepFrame {
    fn drop(&mut self) {
        // A `step` frame ends when `own` drops, after this.
        if self.own.is_none() {
            tracy_client::frame_mark();
        }
    }
}
