//! Helpers of the `--lower-to-gpu` tests: a context to lower into, the built kernels printed
//! (generic form, as the simulator's checker reads them back), and the built IR inspected.

// Each test file uses some of the helpers.
#![allow(dead_code)]

use rtile::ir::{AttrKind, Context, OpId, Value, WalkOrder};
use rtile::printer::{PrintOptions, print_op};
use rtile_passes::lower_to_gpu::{LoweredKernel, kernels_module};

/// A context with every rtile dialect registered.
pub fn context() -> Context {
    rtile_runtime::sim::check::context()
}

const GENERIC: PrintOptions = PrintOptions {
    generic: true,
    debug_info: false,
};

/// The kernel's `gpu.func`, printed in generic form.
pub fn kernel_text(ctx: &Context, k: &LoweredKernel) -> String {
    print_op(ctx, k.func, &GENERIC)
}

/// `builtin.module { gpu.module @kernels { kernels } }` printed in generic form (the
/// kernels move into it).
pub fn module_text(ctx: &mut Context, kernels: &[LoweredKernel]) -> String {
    let m = kernels_module(ctx, "kernels", kernels);
    print_op(ctx, m, &GENERIC)
}

/// Every op nested in `func`, in pre-order (the order of their lines in print).
pub fn ops(ctx: &Context, func: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    ctx.walk(func, WalkOrder::PreOrder, &mut |_, op| {
        if op != func {
            out.push(op);
        }
    });
    out
}

/// How many `name` ops the kernel holds.
pub fn count_ops(ctx: &Context, k: &LoweredKernel, name: &str) -> usize {
    ops(ctx, k.func)
        .into_iter()
        .filter(|&o| ctx.op_name(o) == name)
        .count()
}

/// The kernel entry block's arguments: the memrefs, then the workgroup attributions.
pub fn entry_args(ctx: &Context, k: &LoweredKernel) -> Vec<Value> {
    let region = ctx.regions(k.func)[0];
    ctx.block_args(ctx.region_blocks(region)[0]).to_vec()
}

/// The kernel's `workgroup_attributions`.
pub fn attributions(ctx: &Context, k: &LoweredKernel) -> usize {
    match ctx.attr(k.func, "workgroup_attributions").map(|x| x.kind()) {
        Some(AttrKind::Integer { value, .. }) => *value as usize,
        other => panic!("workgroup_attributions: {other:?}"),
    }
}

/// The kernel's shared buffers in order: its workgroup attributions, or the `memref.view`s
/// of its dynamic shared memory.
pub fn shared_buffers(ctx: &Context, k: &LoweredKernel) -> Vec<Value> {
    let args = entry_args(ctx, k);
    let n = attributions(ctx, k);
    let mut out = args[args.len() - n..].to_vec();
    out.extend(
        ops(ctx, k.func)
            .into_iter()
            .filter(|&o| ctx.op_name(o) == "memref.view")
            .map(|o| ctx.result(o, 0)),
    );
    out
}

/// The `name` ops (loads, stores) whose memref operand (at `index`) is `buf`.
pub fn accesses_of(
    ctx: &Context,
    k: &LoweredKernel,
    name: &str,
    index: usize,
    buf: Value,
) -> usize {
    ops(ctx, k.func)
        .into_iter()
        .filter(|&o| ctx.op_name(o) == name && ctx.operands(o).get(index) == Some(&buf))
        .count()
}
