//! The physics against its laws: textbook cases, conservation laws, stacks and joints, shapes
//! and queries, and bit-identical results across backends, instruction sets and thread counts.

#[path = "../common/mod.rs"]
mod common;
/// The examples' scenes and pictures, which `jointed_demos` and `render` check.
#[path = "../../examples/common/mod.rs"]
mod examples;

mod capsules_segments;
mod chain_queries;
mod chains;
mod character;
mod compound;
mod continuous;
mod decompose;
mod deep_contacts;
mod determinism;
mod distance;
mod far_world;
mod fast_rotation;
mod forces;
mod free_joints;
mod instruction_sets;
mod jointed_demos;
mod joints;
mod large_compound;
mod laws;
mod mass_ratios;
mod queries;
mod recycling;
mod render;
mod rigid;
mod rotating_casts;
mod shape_changes;
mod shapes;
mod sleep;
mod spring_laws;
mod stability;
mod stacking;
mod textbook;
