//! `--wavefront-pack`: Rammer's wavefront scheduling policy (Ma et al., OSDI'20 §3.3,
//! Algorithm 1) over the `vdevice` dialect. See docs/passes/wavefront-pack.md.
//!
//! - [`schedule`]: Algorithm 1 (`Wavefront`, `ScheduleWave`, `SelectRKernels`, `SelectvEU`,
//!   `Wait`/`Append` with pruning, the merge rule) on plain data, with `time()` from the
//!   micro-performance model: per-rTask times and one launch cost per rProgram.
//! - [`profile`]: measured rKernel times (`profile=`) that replace the model's.
//! - [`pass`]: the pass: rOperators from `vdevice.roperator` ops or from `te.compute` ops
//!   (rKernel variants from Roller's construction), rPrograms out as `vdevice.program`s.

pub mod pass;
pub mod profile;
pub mod schedule;

#[cfg(test)]
mod tests;
