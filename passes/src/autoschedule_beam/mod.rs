//! `--autoschedule-beam`: the Halide GPU autoscheduler of Anderson et al. (OOPSLA'21,
//! "Efficient Automatic Scheduling of Imaging and Vision Pipelines for the GPU";
//! `../shared/papers/002_27004a065edde578.txt`, digest `halide-gpu-autoscheduler.md`) on te
//! functions, written in `--connect`'s `tilegraph` form (docs/passes/autoschedule-beam.md).
//!
//! - [`space`]: compute locations, the tiling sets (§4.1–4.3) and the pruning rules (§4.6).
//! - [`pipeline`]: the stages (te computes) and the placement rules of §4.
//! - [`kernel`]: a root stage and what is fused into it, as a tilegraph kernel with tiles
//!   per layer (by `--connect`'s propagation).
//! - [`features`]: the GPU features of Appendix A, computed exactly from the schedule.
//! - [`edges`]: the kinds of blocks of a kernel (interior, partial edge) and the warp
//!   requests one block of each kind issues.
//! - [`runs`]: the lowering's blocked thread map (runs of 4 points per thread) where it
//!   applies, decided by the lowering's own functions.
//! - [`staged`]: a reduction root's staged inputs (cooperative loads, shared tiles, the
//!   compute's shared reads) counted from the lowering's own plan.
//! - [`cost`]: the cost terms of Appendix B with device-derived coefficients.
//! - [`fit`]: least-squares fitting of the coefficients to kernel times (`rtile-bench
//!   retrain`).
//! - [`search`]: the beam search with sampling, freezing and memoization (§3, §4).
//! - [`pass`]: the pass.

pub mod cost;
pub mod edges;
pub mod features;
pub mod fit;
pub mod kernel;
pub mod pass;
pub mod pipeline;
pub mod runs;
pub mod search;
pub mod space;
pub mod staged;

#[cfg(test)]
mod tests;
