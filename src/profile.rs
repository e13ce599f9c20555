//! Per-stage timings of the last step, and Tracy zones (with the `tracy` feature).

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
