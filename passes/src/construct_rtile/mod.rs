//! `--construct-rtile`: Roller's construction of rTile programs (OSDI'22 §3–§4).
//!
//! - [`expr_info`]: the operator as a tensor expression independent of the IR (§3.1).
//! - [`rtile`]: rTiles, their data tiles, footprint and traffic (§3.1, Figures 3–4).
//! - [`align`]: the alignment rules and `GetNextAlignedAxisSize` (§3.1, Figure 5).
//! - [`perf_model`]: the micro-performance model (§3.3).
//! - [`construct`]: Figure 8's scale-up, scale-out, small-operator shrink, ε growth (§3.2).
//! - the `#rtile.program` data and text live in `rtile_dialects::rtile` (dialects must not
//!   depend on passes).
//!
//! - [`implicit_gemm`]: a convolution as the GEMM tensor cores tile (§5.1).
//! - [`te_adapter`]: `te.compute` → [`TensorExprInfo`].
//! - [`pass`]: the `--construct-rtile` pass; [`device_check`]: the device half of the `rtile`
//!   attribute verifier.
//!
//! The device descriptions (the HAL) live in [`crate::device`].

pub mod align;
pub mod construct;
pub mod device_check;
pub mod expr_info;
pub mod implicit_gemm;
pub mod pass;
pub mod perf_model;
pub mod rtile;
pub mod te_adapter;

pub use construct::{ConstructOptions, ConstructResult, RProgram, check_program, construct};
pub use expr_info::{AffineIndex, Axis, TensorAccess, TensorExprInfo};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_mma;
#[cfg(test)]
mod tests_stencil;

pub use device_check::register_dialect_extensions;
