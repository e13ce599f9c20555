//! Geometry: vectors, rotations and boxes; circles, capsules and convex polygons valid by
//! construction; GJK, EPA and time of impact; rays and exact overlap tests. Everything here is
//! a pure function of shapes and poses; no stage state lives in this folder.

pub(crate) mod box_tree;
mod decompose;
pub mod distance;
pub(crate) mod exact_overlap;
pub mod math;
pub(crate) mod ray;
pub mod shape;
#[cfg(feature = "serde")]
mod shape_serde;
