//! Islands and sleep: the touching and jointed groups of dynamic bodies, the timers that put a
//! resting island to sleep, and the union-find they are built with.

pub(crate) mod island;
pub(crate) mod sleep;
pub(crate) mod union_find;
