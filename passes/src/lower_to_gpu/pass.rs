//! The `--lower-to-gpu` pass over a module: every `func.func` holding `te.compute`s with a
//! selected `rtile.program` becomes a host function over memrefs (inputs, then one output
//! memref per result, destination-passing) that allocates intermediates and launches one
//! kernel per compute with `gpu.launch_func`; the kernels go into `gpu.module @kernels`, and
//! the module gets `gpu.container_module`, as upstream requires for launches.

use std::collections::HashMap;

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::Attribute;
use rtile::ir::{Context, OpId, Value};
use rtile::pass::{OptionKind, Pass, PassOptionSpec, PassOptions, PassStatistics};
use rtile_dialects::te::ir::{COMPUTE, compute_from_op};
use rtile_dialects::te::model::TensorType;

use super::kernel::{LowerOptions, LoweredKernel, ThreadMapping, lower_compute_opts};

static OPTIONS: &[PassOptionSpec] = &[
    PassOptionSpec {
        name: "prefetch",
        kind: OptionKind::Bool,
        default: "true",
        description: "register-prefetch double buffering of the staged k-step tiles (false: load, barrier, compute, barrier)",
    },
    PassOptionSpec {
        name: "thread-mapping",
        kind: OptionKind::String,
        default: "auto",
        description: "thread-to-point mapping: auto (runs of 4 points per thread where that gives 16-byte shared loads), transposed (auto, and A[m, k]-like tiles stored transposed for 16-byte reads too) or interleaved",
    },
];

/// The `lower-to-gpu` pass (options `prefetch`, see [`LowerOptions::prefetch`], and
/// `thread-mapping`, see [`ThreadMapping`]).
pub struct LowerToGpu {
    opts: PassOptions,
}

impl Default for LowerToGpu {
    fn default() -> Self {
        LowerToGpu {
            opts: PassOptions::new(OPTIONS),
        }
    }
}

fn memref_of(t: &TensorType) -> String {
    let mut s = String::from("memref<");
    for d in &t.shape {
        s.push_str(&format!("{d}x"));
    }
    s.push_str(t.elem.keyword());
    s.push('>');
    s
}

/// The program a compute is lowered with: the selected one (`rtile.program`, set by
/// `--rtile-select`), else the best-ranked candidate of `rtile.programs` (as
/// `--construct-rtile` leaves them, best first), so that `--construct-rtile --lower-to-gpu`
/// works without a selection step. Read with the rtile dialect's typed accessors.
pub fn selected_program(
    ctx: &Context,
    op: OpId,
) -> Result<crate::construct_rtile::RProgram, Diagnostic> {
    let bad = |e: String| Diagnostic::op_error(ctx, op, format!("bad 'rtile.program': {e}"));
    if let Some(p) = rtile_dialects::rtile::program(ctx, op).map_err(bad)? {
        return Ok(p);
    }
    let candidates = rtile_dialects::rtile::programs(ctx, op)
        .map_err(|e| Diagnostic::op_error(ctx, op, format!("bad 'rtile.programs': {e}")))?;
    candidates.into_iter().next().ok_or_else(|| {
        Diagnostic::op_error(
            ctx,
            op,
            "has neither an 'rtile.program' nor 'rtile.programs' candidates (run --construct-rtile first)",
        )
    })
}

fn func_name(ctx: &Context, f: OpId) -> String {
    ctx.inherent_attr(f, "sym_name")
        .and_then(|a| a.as_str())
        .unwrap_or("f")
        .to_string()
}

/// Lowers one function: its host text, and its kernels appended to `kernels`.
fn lower_func(
    ctx: &Context,
    f: OpId,
    kernels: &mut Vec<LoweredKernel>,
    opts: LowerOptions,
) -> Result<String, Diagnostic> {
    let name = func_name(ctx, f);
    let body = ctx
        .regions(f)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or_else(|| Diagnostic::op_error(ctx, f, "has no body"))?;
    let mut names: HashMap<Value, (String, String)> = HashMap::new();
    let mut params = Vec::new();
    for (i, &a) in ctx.block_args(body).iter().enumerate() {
        let t = TensorType::from_type(ctx.value_type(a))
            .ok_or_else(|| Diagnostic::op_error(ctx, f, "arguments must be static tensors"))?;
        let n = format!("%arg{i}");
        params.push(format!("{n}: {}", memref_of(&t)));
        names.insert(a, (n, memref_of(&t)));
    }
    // Results are written to trailing output memrefs.
    let ret = ctx
        .last_op(body)
        .filter(|&r| ctx.op_name(r) == "func.return");
    let mut outs: HashMap<Value, String> = HashMap::new();
    if let Some(r) = ret {
        for (j, &v) in ctx.operands(r).iter().enumerate() {
            let t = TensorType::from_type(ctx.value_type(v))
                .ok_or_else(|| Diagnostic::op_error(ctx, r, "results must be static tensors"))?;
            if outs.contains_key(&v) || names.contains_key(&v) {
                return Err(Diagnostic::op_error(
                    ctx,
                    r,
                    "each result must be a distinct te.compute result",
                ));
            }
            let n = format!("%res{j}");
            params.push(format!("{n}: {}", memref_of(&t)));
            outs.insert(v, n);
        }
    }
    let mut lines = Vec::new();
    let mut consts: HashMap<u64, String> = HashMap::new();
    let mut next = 0;
    let mut allocs = Vec::new();
    for op in ctx.block_ops(body) {
        match ctx.op_name(op) {
            COMPUTE => {
                let (c, vals) =
                    compute_from_op(ctx, op).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
                let p = selected_program(ctx, op)?;
                let kname = format!("{name}_{}", kernels.len());
                let k = lower_compute_opts(&c, &p, &kname, opts)
                    .map_err(|m| Diagnostic::op_error(ctx, op, format!("cannot lower: {m}")))?;
                let mut args = Vec::new();
                for i in 0..c.inputs.len() {
                    let a = c
                        .accesses
                        .iter()
                        .position(|a| a.input == i)
                        .and_then(|ai| vals.get(ai))
                        .and_then(|v| names.get(v))
                        .ok_or_else(|| {
                            Diagnostic::op_error(
                                ctx,
                                op,
                                "an input is not an argument or an earlier compute",
                            )
                        })?;
                    args.push(a.clone());
                }
                let res = ctx.result(op, 0);
                let rt = memref_of(&c.result);
                let out = match outs.get(&res) {
                    Some(n) => n.clone(),
                    None => {
                        next += 1;
                        let n = format!("%t{next}");
                        lines.push(format!(
                            "{n} = \"memref.alloc\"() <{{operandSegmentSizes = array<i32: 0, 0>}}> : () -> {rt}"
                        ));
                        allocs.push((n.clone(), rt.clone()));
                        n
                    }
                };
                names.insert(res, (out.clone(), rt.clone()));
                args.push((out, rt));
                let mut konst = |v: u64, lines: &mut Vec<String>| {
                    consts
                        .entry(v)
                        .or_insert_with(|| {
                            let n = format!("%c{v}");
                            lines.push(format!(
                                "{n} = \"arith.constant\"() <{{value = {v} : index}}> : () -> index"
                            ));
                            n
                        })
                        .clone()
                };
                let dims: Vec<String> = k
                    .launch
                    .grid
                    .iter()
                    .chain(&k.launch.block)
                    .map(|&v| konst(v, &mut lines))
                    .collect();
                let mut ops = dims.clone();
                ops.extend(args.iter().map(|a| a.0.clone()));
                let mut tys = vec!["index".to_string(); 6];
                tys.extend(args.iter().map(|a| a.1.clone()));
                lines.push(format!(
                    "\"gpu.launch_func\"({}) <{{kernel = @kernels::@{kname}, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, {}, 0>}}> : ({}) -> ()",
                    ops.join(", "),
                    args.len(),
                    tys.join(", ")
                ));
                kernels.push(k);
            }
            "func.return" => {}
            other => {
                return Err(Diagnostic::op_error(
                    ctx,
                    op,
                    format!("cannot lower '{other}' inside a function lowered to the GPU"),
                ));
            }
        }
    }
    for (n, t) in allocs {
        lines.push(format!("\"memref.dealloc\"({n}) : ({t}) -> ()"));
    }
    lines.push("\"func.return\"() : () -> ()".into());
    let tys: Vec<&str> = params
        .iter()
        .filter_map(|p| p.split_once(": ").map(|x| x.1))
        .collect();
    let mut s = format!(
        "  \"func.func\"() <{{function_type = ({}) -> (), sym_name = \"{name}\"}}> ({{\n  ^bb0({}):\n",
        tys.join(", "),
        params.join(", ")
    );
    for l in lines {
        s.push_str("    ");
        s.push_str(&l);
        s.push('\n');
    }
    s.push_str("  }) : () -> ()\n");
    Ok(s)
}

/// The `func.func`s directly in `module` that hold a `te.compute`.
fn te_funcs(ctx: &Context, module: OpId) -> Vec<OpId> {
    let Some(body) = ctx
        .regions(module)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
    else {
        return vec![];
    };
    ctx.block_ops(body)
        .filter(|&f| ctx.op_name(f) == "func.func")
        .filter(|&f| {
            ctx.collect_ops(f)
                .iter()
                .any(|&o| ctx.op_name(o) == COMPUTE)
        })
        .collect()
}

/// Lowers `module` in place (default options).
pub fn lower_module(
    ctx: &mut Context,
    module: OpId,
    stats: &mut PassStatistics,
) -> Result<(), Diagnostic> {
    lower_module_with(ctx, module, stats, LowerOptions::default())
}

/// Lowers `module` in place with `opts`.
pub fn lower_module_with(
    ctx: &mut Context,
    module: OpId,
    stats: &mut PassStatistics,
    opts: LowerOptions,
) -> Result<(), Diagnostic> {
    let funcs = te_funcs(ctx, module);
    if funcs.is_empty() {
        return Ok(());
    }
    let mut kernels = Vec::new();
    let mut host = String::new();
    for &f in &funcs {
        host.push_str(&lower_func(ctx, f, &mut kernels, opts)?);
    }
    let mut text =
        String::from("\"builtin.module\"() ({\n  \"gpu.module\"() <{sym_name = \"kernels\"}> ({\n");
    for k in &kernels {
        text.push_str(&k.text);
        stats.add("kernels", "Number of kernels generated", 1);
        stats.add(
            "shared-bytes",
            "Static shared memory of all kernels, bytes",
            k.shared_bytes,
        );
        stats.add(
            "vector-loads",
            "Data tiles loaded with 16-byte vector loads",
            k.vectorized.iter().filter(|&&v| v).count() as u64,
        );
    }
    text.push_str("  }) : () -> ()\n");
    text.push_str(&host);
    text.push_str("}) : () -> ()\n");
    let parsed = rtile::parser::parse_str(ctx, "<lower-to-gpu>", &text).map_err(|d| {
        Diagnostic::op_error(
            ctx,
            module,
            format!("internal error: generated IR does not parse: {}", d.message),
        )
    })?;
    let new_body = ctx
        .regions(parsed.module)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or_else(|| {
            Diagnostic::op_error(ctx, module, "internal error: empty generated module")
        })?;
    let body = ctx
        .regions(module)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or_else(|| Diagnostic::op_error(ctx, module, "module has no body"))?;
    let new_ops: Vec<OpId> = ctx.block_ops(new_body).collect();
    // The kernels' module first, then each host function where its te function was.
    let first = new_ops[0];
    ctx.detach_op(first);
    match ctx.first_op(body) {
        Some(anchor) => ctx.insert_op_before(anchor, first),
        None => ctx.append_op(body, first),
    }
    for (&old, &new) in funcs.iter().zip(&new_ops[1..]) {
        ctx.detach_op(new);
        ctx.insert_op_before(old, new);
        ctx.erase_op(old);
    }
    ctx.erase_op(parsed.module);
    ctx.set_attr(module, "gpu.container_module", Attribute::Unit);
    Ok(())
}

impl Pass for LowerToGpu {
    fn name(&self) -> &'static str {
        "lower-to-gpu"
    }
    fn display_name(&self) -> &'static str {
        "LowerToGpu"
    }
    fn description(&self) -> &'static str {
        "Lower te.compute ops with a selected #rtile.program to gpu.func kernels and gpu.launch_func host code"
    }
    fn anchor(&self) -> Option<&'static str> {
        Some("builtin.module")
    }
    fn options(&self) -> &[PassOptionSpec] {
        self.opts.specs()
    }
    fn set_option(&mut self, key: &str, value: &str) -> Result<(), String> {
        if key == "thread-mapping" && ThreadMapping::parse(value).is_none() {
            return Err(format!(
                "invalid value '{value}' for option 'thread-mapping' (expected auto, transposed or interleaved)"
            ));
        }
        self.opts.set(key, value)
    }
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let opts = LowerOptions {
            prefetch: self.opts.get_bool("prefetch"),
            thread_mapping: ThreadMapping::parse(self.opts.get_str("thread-mapping"))
                .unwrap_or_default(),
            ..LowerOptions::default()
        };
        lower_module_with(ctx, op, stats, opts)
    }
}
