//! Bad and hostile input: random worlds, the fuzz targets' kept inputs, and extreme scenes.

#[path = "../common/mod.rs"]
mod common;

mod fuzz_regressions;
mod hostile;
mod two_vertex_shapes;
