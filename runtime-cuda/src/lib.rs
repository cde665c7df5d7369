//! rtile's CUDA runtime: run a PTX kernel described by a launch manifest
//! (`rtile-translate --to-ptx=sm_90 --manifest=k.json`) on an NVIDIA GPU through cudarc,
//! with seeded random inputs, an output check against a reference kernel, CUDA-event
//! timing, top-k candidate profiling and device micro-benchmarks.
//!
//! It links neither LLVM nor the IR: `rtile-run` can be copied alone onto a GPU machine
//! with PTX and manifest files beside it. cudarc loads libcuda dynamically; without it,
//! [`cli::run`] prints a message and returns [`cli::EXIT_NO_CUDA`] (2), never panics.
//!
//! - [`data`]: seeded inputs, conversion, comparison, medians (no GPU needed).
//! - [`exec`]: load, launch, read back, time (cudarc).
//! - [`model`]: a whole model's launch sequence (model manifest + PTX), run and timed.
//! - [`topk`]: the candidate cache; [`microbench`]: `--profile-device`.
//! - [`tensormap`]: TMA tensor maps of `tensormap` arguments (`cuTensorMapEncodeTiled`).
//! - [`cli`]: the `Args` group and the entry point `rtile-run` calls.

pub mod cli;
pub mod data;
pub mod exec;
pub mod microbench;
pub mod model;
pub mod tensormap;
pub mod topk;
