//! The gpu-level IR as one typed vocabulary.
//!
//! The lowering (`--lower-to-gpu`) and the naive kernel generator produce gpu-level IR; the
//! LLVM IR emitter, the HIP emitter and the CPU simulator consume it. Each consumer used to
//! match op names as strings, so an op one of them forgot failed only when a kernel using it
//! reached that back end. Here the subset is one enum, [`GpuOp`], decoded once from an op's
//! name and properties; every consumer matches on it without a wildcard arm, so adding a
//! variant is a compile error in each back end until it is handled.
//!
//! This crate sits below `rtile-targets`, `rtile-runtime` and `rtile-passes` (it depends only
//! on the IR core and the dialects), so the simulator gets the vocabulary without linking LLVM.

pub mod amdgpu;
pub mod attrs;
pub mod launch;
pub mod nvgpu;
pub mod nvgpu_sm90;
pub mod op;
pub mod registers;
pub mod verify;

pub use attrs::{AddressSpace, CmpFPredicate, CmpIPredicate, FastMathFlags};
pub use launch::Launch;
pub use op::{ATOMIC_ADDI, ATOMIC_ORI, FENCE_ACQ_REL, FENCE_ACQUIRE, FENCE_RELEASE, GpuOp, MathFn};
pub use verify::check_module;
