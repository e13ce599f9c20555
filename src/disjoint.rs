//! The shared mutable slice of parallel stages, [`DisjointMut`]: it lives in the kernels
//! crate, whose body states share through it too, so that one type and one SAFETY argument
//! cover every slice that workers write.

pub(crate) use batch2d_kernels::disjoint::DisjointMut;
