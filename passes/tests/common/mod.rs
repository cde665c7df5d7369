//! Helpers of the `--lower-to-gpu` tests: a context to lower into, the built kernels printed
//! (generic form, as the simulator's checker reads them back), and the built IR inspected.

// Each test file uses some of the helpers.
#![allow(dead_code)]

use rtile::ir::{AttrKind, Context, OpId, Value, WalkOrder};
use rtile::printer::{PrintOptions, print_op};
use rtile_passes::lower_to_gpu::{LoweredKernel, kernels_module};

pub mod wgmma;

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

/// The tolerance of a tensor-core result against the te interpreter's f64 oracle, relative
/// to the largest element: one ulp of the output type (f16 2^-10, bf16 2^-7, from rounding
/// once) plus 1e-4 for the f32 accumulation's different order; f32 results 1e-4.
pub fn mma_tolerance(out: rtile_dialects::te::model::ElemType) -> f64 {
    use rtile_dialects::te::model::ElemType;
    match out {
        ElemType::F16 => 2f64.powi(-10) + 1e-4,
        ElemType::BF16 => 2f64.powi(-7) + 1e-4,
        _ => 1e-4,
    }
}

/// A matmul (`batch` = None) or batch matmul in te with `acc(f32)`; `a_kmajor`: A stored
/// `[k, m]`, `b_nmajor`: B stored `[n, k]` (the transposed layouts).
pub fn gemm_text(
    (batch, m, n, k): (Option<i64>, i64, i64, i64),
    (input, output): (&str, &str),
    (a_kmajor, b_nmajor): (bool, bool),
) -> String {
    let (bp, bi, bs) = match batch {
        Some(b) => ("(%b, ", "%b, ", format!("{b}x")),
        None => ("(", "", String::new()),
    };
    let (ash, aidx) = if a_kmajor {
        (format!("{bs}{k}x{m}"), format!("{bi}%k, %m"))
    } else {
        (format!("{bs}{m}x{k}"), format!("{bi}%m, %k"))
    };
    let (bsh, bidx) = if b_nmajor {
        (format!("{bs}{n}x{k}"), format!("{bi}%n, %k"))
    } else {
        (format!("{bs}{k}x{n}"), format!("{bi}%k, %n"))
    };
    let ext = match batch {
        Some(b) => format!("{b}, {m}, {n}, {k}"),
        None => format!("{m}, {n}, {k}"),
    };
    let out = format!("tensor<{bs}{m}x{n}x{output}>");
    format!(
        "func.func @mm(%A: tensor<{ash}x{input}>, %B: tensor<{bsh}x{input}>) -> {out} {{
  %C = te.compute {bp}%m, %n) reduce (%k) in [{ext}] acc(f32) : (tensor<{ash}x{input}>, tensor<{bsh}x{input}>) -> {out} {{ te.sum(f32(%A[{aidx}]) * f32(%B[{bidx}])) }}
  func.return %C : {out}
}}"
    )
}

/// The first te.compute of `text` (panics with the parse error and the text).
pub fn compute(text: &str) -> rtile_dialects::te::model::TeCompute {
    let sc = rtile_dialects::te::module::parse_computes("t.mlir", text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    sc[0].compute.clone()
}

/// Runs kernel `k` of compute `c` in the simulator against the te interpreter (inputs from
/// `seed`) and returns its max relative error, or why it is over [`mma_tolerance`].
pub fn simulate_within_tolerance(
    ctx: &mut Context,
    k: LoweredKernel,
    c: &rtile_dialects::te::model::TeCompute,
    seed: u64,
) -> Result<f64, String> {
    let text = module_text(ctx, &[k]);
    let r = rtile_runtime::sim::run_check_text("k.mlir", &text, seed)
        .map_err(|e| format!("{e}\n{text}"))?;
    let tol = mma_tolerance(c.result.elem);
    if r.max_rel_err() > tol {
        return Err(format!("error {:e} over {tol:e}", r.max_rel_err()));
    }
    Ok(r.max_rel_err())
}

/// Which operand of [`bmm_text`] lacks the batch axes (shared by every batch index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    Neither,
    A,
    B,
}

/// A batch matmul over the batch axes of extents `batch` (`%b0`, `%b1`, .., outermost first;
/// none: a matmul) in te with `acc(f32)`: `C[b.., m, n] = Σ_k A[b.., m, k]·B[b.., k, n]`,
/// `a_kmajor`: A stored `[b.., k, m]`, `b_nmajor`: B stored `[b.., n, k]`, and the operand
/// `shared` without the batch axes (`W[k, n]`).
pub fn bmm_text(
    batch: &[i64],
    (m, n, k): (i64, i64, i64),
    (input, output): (&str, &str),
    (a_kmajor, b_nmajor): (bool, bool),
    shared: Shared,
) -> String {
    let names: Vec<String> = (0..batch.len()).map(|i| format!("%b{i}")).collect();
    let operand = |has: bool, dims: [(i64, &str); 2]| {
        let mut shape: Vec<String> = Vec::new();
        let mut idx: Vec<String> = Vec::new();
        if has {
            shape.extend(batch.iter().map(|b| b.to_string()));
            idx.extend(names.iter().cloned());
        }
        for (e, x) in dims {
            shape.push(e.to_string());
            idx.push(x.to_string());
        }
        (
            format!("tensor<{}x{input}>", shape.join("x")),
            idx.join(", "),
        )
    };
    let (at, ai) = operand(
        shared != Shared::A,
        if a_kmajor {
            [(k, "%k"), (m, "%m")]
        } else {
            [(m, "%m"), (k, "%k")]
        },
    );
    let (bt, bi) = operand(
        shared != Shared::B,
        if b_nmajor {
            [(n, "%n"), (k, "%k")]
        } else {
            [(k, "%k"), (n, "%n")]
        },
    );
    let mut out_shape: Vec<String> = batch.iter().map(|b| b.to_string()).collect();
    out_shape.extend([m.to_string(), n.to_string()]);
    let out = format!("tensor<{}x{output}>", out_shape.join("x"));
    let mut axes = names.clone();
    axes.extend(["%m".to_string(), "%n".to_string()]);
    let mut ext: Vec<String> = batch.iter().map(|b| b.to_string()).collect();
    ext.extend([m, n, k].map(|v| v.to_string()));
    format!(
        "func.func @mm(%A: {at}, %B: {bt}) -> {out} {{
  %C = te.compute ({}) reduce (%k) in [{}] acc(f32) : ({at}, {bt}) -> {out} {{ te.sum(f32(%A[{ai}]) * f32(%B[{bi}])) }}
  func.return %C : {out}
}}",
        axes.join(", "),
        ext.join(", ")
    )
}
