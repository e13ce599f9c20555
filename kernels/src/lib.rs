//! The numeric hot loops of batch2d, each written once over [`Real`] and instantiated as an
//! f32x8 kernel and a one-lane scalar twin that computes bit-identical results (the solves also
//! as sixteen-lane kernels, which take two batches of one graph color at once).
//!
//! Everything here is pure arithmetic over lane-packed (`bytemuck::Pod`) data; the engine
//! decides what to pack, in which order, and on which thread to run it.
//!
//! The eight- and sixteen-lane kernels come in one portable build (`wide`'s vectors, as the crate
//! is compiled) and, on x86_64, in builds for AVX2 and AVX-512 ([`x86`]) that the engine picks
//! at run time (see [`InstructionSet`]).

#![warn(missing_docs)]

pub mod body;
pub mod bounds;
pub mod contact;
pub mod disjoint;
mod isa;
pub mod joint;
mod real;
pub mod recycle;
pub mod trig;
#[cfg(target_arch = "x86_64")]
pub mod x86;

pub use body::{BodyState, StateRows, NULL_BODY};
pub use contact::{
    ContactBatch, ImpactParams, LaneBodies, Loaded, PointLanes, PointRow, PointRows, SolveParams,
};
pub use isa::{instruction_set, InstructionSet, NATIVE_PAIRS};
pub use joint::{BodyFrames, PinBatch, PinFrames, PinParams, PinStart};
pub use real::{Lanes16, Lanes8, Real, LANES};
pub use recycle::{BodyPose, RecycleBase, RecycleBases, RecycleBatch, RecycleLanes, RecycleParams};
