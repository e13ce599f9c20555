//! The numeric hot loops of batch2d, each written once over [`Real`] and instantiated as an
//! f32x8 kernel and a one-lane scalar twin that computes bit-identical results (the two-point
//! solve also as an f32x16 kernel, which takes two batches of one graph color at once).
//!
//! Everything here is pure arithmetic over lane-packed (`bytemuck::Pod`) data; the engine
//! decides what to pack, in which order, and on which thread to run it.

#![warn(missing_docs)]

pub mod body;
pub mod contact;
pub mod joint;
mod real;
pub mod trig;

pub use body::{BodyState, StateRows, NULL_BODY};
pub use contact::{ContactBatch, ImpactParams, PointLanes, SolveParams};
pub use joint::{PinBatch, PinParams};
pub use real::{instruction_set, Real, LANES, NATIVE_PAIRS};
