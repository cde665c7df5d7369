//! rtile's dialects: te, rtile, tilegraph, vdevice, and the upstream subset we lower to.

pub mod te;
