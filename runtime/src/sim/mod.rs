//! The CPU GPU-simulator: executes gpu-level IR (`gpu.func` kernels of upstream gpu, scf,
//! memref, vector, arith, math and nvgpu ops — sm_80 tensor cores and cp.async, sm_90a
//! mbarriers, TMA loads and warpgroup MMA) with GPU semantics — every block, every thread,
//! per-block shared memory, barriers — and reports out-of-bounds accesses, reads of
//! uninitialised shared (and private) memory, shared-memory data races, barrier and warp
//! divergence, reads of asynchronous copies not yet waited for, and deadlocks as errors at
//! the op's location. See `docs/simulator.md`.

pub mod check;
pub mod compile;
pub mod concurrent;
pub mod counters;
pub mod exec;
pub mod model;
pub mod model_check;
pub mod ops;
pub mod profile;
pub mod rounding;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, WalkOrder};

pub use check::{
    CheckReport, run_check, run_check_beside_hosts, run_check_beside_hosts_text, run_check_text,
};
pub use compile::{Kernel, compile_kernel};
pub use exec::{Launch, SimError, SimErrorKind, run, run_aliased};
pub use model_check::{
    LaunchSequence, ModelRun, host_functions, launch_sequences_text, run_model, run_models_text,
};

/// The launch description of a kernel: its `rtile.launch = {grid, block,
/// dynamic_shared_memory}` attribute (the gpu-level IR convention), read by the one reader
/// the back ends share ([`Launch::of`]).
pub fn launch_of(ctx: &Context, func: OpId) -> Result<Launch, Diagnostic> {
    let l = Launch::of(ctx, func);
    if !l.has_rtile_launch {
        return Err(Diagnostic::op_error(
            ctx,
            func,
            "has no 'rtile.launch' launch description",
        ));
    }
    if l.grid.is_none() || l.block.is_none() {
        return Err(Diagnostic::op_error(
            ctx,
            func,
            "'rtile.launch' needs grid and block as array<i32: x, y, z>",
        ));
    }
    Ok(l)
}

/// Every `gpu.func` with the `gpu.kernel` attribute under `root`, in order.
pub fn kernels(ctx: &Context, root: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    ctx.walk(root, WalkOrder::PreOrder, &mut |_, op| {
        if ctx.op_name(op) == "gpu.func" && ctx.attr(op, "gpu.kernel").is_some() {
            out.push(op);
        }
    });
    out
}

/// A simulator error as a diagnostic at the failing op, naming the block and thread.
pub fn to_diagnostic(ctx: &Context, k: &Kernel, e: &SimError) -> Diagnostic {
    let text = format!(
        "{} (kernel @{}, block ({}, {}, {}), thread ({}, {}, {}))",
        e.message,
        k.name,
        e.block[0],
        e.block[1],
        e.block[2],
        e.thread[0],
        e.thread[1],
        e.thread[2]
    );
    match e.at.and_then(|i| k.ops.get(i as usize)) {
        Some(&op) => Diagnostic::error(ctx.op(op).span, format!("'{}' op {text}", ctx.op_name(op))),
        None => Diagnostic::error(None, text),
    }
}

/// Compiles and runs the kernel `func` under its own launch description on `args`.
pub fn run_kernel(ctx: &Context, func: OpId, args: &mut [Vec<f64>]) -> Result<(), Diagnostic> {
    let k = compile_kernel(ctx, func)?;
    let l = launch_of(ctx, func)?;
    run(&k, &l, args).map_err(|e| to_diagnostic(ctx, &k, &e))
}
