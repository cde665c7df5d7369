//! `--construct-rtile`: Roller's construction of rTile programs (OSDI'22 §3–§4).
//!
//! - [`expr_info`]: the operator as a tensor expression independent of the IR (§3.1).
//! - [`rtile`]: rTiles, their data tiles, footprint and traffic (§3.1, Figures 3–4).
//! - [`align`]: the alignment rules and `GetNextAlignedAxisSize` (§3.1, Figure 5).
//! - [`perf_model`]: the micro-performance model (§3.3).
//! - [`construct`]: Figure 8's scale-up, scale-out, small-operator shrink, ε growth (§3.2).
//! - [`attr`]: the text of `#rtile.program` / `#rtile.tile` bodies (print and parse).
//!
//! The device descriptions (the HAL) live in [`crate::device`].

pub mod align;
pub mod attr;
pub mod construct;
pub mod expr_info;
pub mod perf_model;
pub mod rtile;

pub use construct::{ConstructOptions, ConstructResult, RProgram, check_program, construct};
pub use expr_info::{AffineIndex, Axis, TensorAccess, TensorExprInfo};

#[cfg(test)]
mod tests;
