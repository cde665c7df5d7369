//! `rtile-run --sim` on a lowered model: every host function that carries its te function
//! (`rtile.te`, set by `--lower-to-gpu`) runs end to end in the simulator
//! ([`super::model`]) and its outputs are compared with the te interpreter's f64 oracle
//! on the original function, on the same inputs and constants.

use std::collections::HashMap;
use std::path::PathBuf;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, TypeKind, Value};
use rtile_dialects::te::ir::compute_from_op;
use rtile_dialects::te::model::TensorType;
use rtile_manifest::model::ModelManifest;

use super::check::{context, load_text, rel_err};
use super::model::{constant_bytes, model_manifest, run_manifest};
use super::rounding::Noise;
use crate::driver::module_funcs;
use crate::func::{func_input_types, func_name};
use crate::interp::{Accumulate, eval_compute};
use crate::tensor::Tensor;
use crate::tensor_file::TensorFiles;

/// One host function's end-to-end run.
#[derive(Clone, Debug)]
pub struct ModelRun {
    pub function: String,
    /// The launch sequence that ran.
    pub manifest: ModelManifest,
    /// The simulator's outputs.
    pub outputs: Vec<Tensor>,
    /// Per output: normwise relative error against the f64 oracle.
    pub errors: Vec<f64>,
    /// Per output: its rounding floor ([`super::rounding`]; 0 when no error needed it).
    pub floors: Vec<f64>,
    /// The constants' bytes, in manifest order.
    pub constants: Vec<Vec<u8>>,
}

impl ModelRun {
    /// The largest error over the outputs.
    pub fn max_rel_err(&self) -> f64 {
        self.errors.iter().copied().fold(0.0, f64::max)
    }
    /// Whether every output is within `tolerance` or its rounding floor.
    pub fn within(&self, tolerance: f64) -> bool {
        self.errors
            .iter()
            .zip(&self.floors)
            .all(|(&e, &f)| super::rounding::within(e, f, tolerance))
    }
    /// What `rtile-run --sim` prints for it.
    pub fn text(&self) -> String {
        let m = &self.manifest;
        let copies = m.steps.len() - m.launches().count();
        let mut s = format!(
            "@{}: {} kernels, {}{} constants, peak intermediate memory {} bytes\n",
            self.function,
            m.launches().count(),
            match copies {
                0 => String::new(),
                n => format!("{n} copies, "),
            },
            m.constants.len(),
            m.arena_bytes
        );
        for (i, ((t, &e), &f)) in self
            .outputs
            .iter()
            .zip(&self.errors)
            .zip(&self.floors)
            .enumerate()
        {
            s.push_str(&format!(
                "@{} output {i}: {}, max relative error {e:.3e}{}\n",
                self.function,
                t.ty().text(),
                super::rounding::floor_note(&[(e, f)])
            ));
        }
        s
    }
}

/// The host functions of `module` that carry their te function.
pub fn host_functions(ctx: &Context, module: OpId) -> Vec<OpId> {
    module_funcs(ctx, module)
        .into_iter()
        .filter(|&f| ctx.attr(f, "rtile.te").is_some())
        .collect()
}

/// The te function in `host`'s `rtile.te`, parsed into `rctx` (which gets `ctx`'s
/// resources, so its `dense_resource` constants resolve).
fn reference(ctx: &Context, host: OpId, rctx: &mut Context) -> Result<OpId, Diagnostic> {
    let text = ctx
        .attr(host, "rtile.te")
        .and_then(|a| a.as_str())
        .ok_or_else(|| Diagnostic::op_error(ctx, host, "has no 'rtile.te' reference"))?;
    let bad = |m: String| Diagnostic::op_error(ctx, host, format!("bad 'rtile.te' reference: {m}"));
    let parsed = rtile::parser::parse_str(rctx, "rtile.te", text)
        .map_err(|d| bad(rtile::diagnostics::render(rctx, &d)))?;
    rctx.resources = ctx.resources.clone();
    module_funcs(rctx, parsed.module)
        .into_iter()
        .next()
        .ok_or_else(|| bad("no func.func".into()))
}

/// A kernel reference holding a chain of te ops (a fused kernel's members, as
/// `--lower-to-gpu` writes them): the arguments on seeded inputs (the output buffers NaN,
/// one per result of the chain) and the f64 oracle's outputs.
pub(crate) fn chain_case(text: &str, seed: u64) -> Result<super::check::Case, String> {
    let mut rctx = context();
    let parsed = rtile::parser::parse_str(&mut rctx, "rtile.te", text)
        .map_err(|d| rtile::diagnostics::render(&rctx, &d))?;
    let f = module_funcs(&rctx, parsed.module)
        .into_iter()
        .next()
        .ok_or("no func.func")?;
    let types = func_input_types(&rctx, f)?;
    let inputs = Tensor::random_inputs(&types, seed);
    let want: Vec<Vec<f64>> = oracle(&rctx, f, &inputs, None)?
        .into_iter()
        .map(|w| w.data)
        .collect();
    if want.is_empty() {
        return Err("a reference without results".into());
    }
    let mut args: Vec<Vec<f64>> = inputs.iter().map(|t| t.data.clone()).collect();
    for w in &want {
        args.push(vec![f64::NAN; w.len()]);
    }
    let floors: super::check::FloorsFn =
        Box::new(move |want| oracle_floors(&rctx, f, &inputs, seed, want));
    Ok(super::check::Case { args, want, floors })
}

/// The rounding floor of each output of te function `f` on `args` ([`super::rounding`]).
fn oracle_floors(
    ctx: &Context,
    f: OpId,
    args: &[Tensor],
    seed: u64,
    want: &[Vec<f64>],
) -> Result<Vec<f64>, String> {
    super::rounding::floors(seed, want, |n| {
        Ok(oracle(ctx, f, args, Some(n))?
            .into_iter()
            .map(|t| t.data)
            .collect())
    })
}

/// Runs te function `f` in f64 (the oracle): computes, reshapes, tensor constants; with
/// `noise`, every compute perturbed as [`super::rounding`] estimates rounding.
fn oracle(
    ctx: &Context,
    f: OpId,
    args: &[Tensor],
    noise: Option<&mut Noise>,
) -> Result<Vec<Tensor>, String> {
    let block = ctx
        .regions(f)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or("the reference has no body")?;
    let mut env: HashMap<Value, Tensor> = ctx
        .block_args(block)
        .iter()
        .copied()
        .zip(args.iter().cloned())
        .collect();
    run_block(ctx, block, &mut env, noise)
}

/// Runs the ops of `block` over `env` up to its terminator (`func.return`, or
/// `tilegraph.yield` in a `tilegraph.kernel`, whose body runs in line: a kernel only groups
/// te ops) and returns the terminator's operands.
fn run_block(
    ctx: &Context,
    block: rtile::ir::BlockId,
    env: &mut HashMap<Value, Tensor>,
    mut noise: Option<&mut Noise>,
) -> Result<Vec<Tensor>, String> {
    let get = |env: &HashMap<Value, Tensor>, v: Value| {
        env.get(&v)
            .cloned()
            .ok_or("a value is used before it is defined".to_string())
    };
    for op in ctx.block_ops(block) {
        let r = ctx.results(op).first().copied();
        match ctx.op_name(op) {
            "te.compute" => {
                let (c, vals) = compute_from_op(ctx, op)?;
                let ins = vals
                    .iter()
                    .zip(&c.inputs)
                    .map(|(&v, t)| {
                        get(env, v).map(|mut x| {
                            x.dtype = t.elem;
                            x
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let out = match noise.as_deref_mut() {
                    Some(n) => n.compute(&c, &ins)?,
                    None => eval_compute(&c, &ins, Accumulate::F64)?,
                };
                env.insert(ctx.result(op, 0), out);
            }
            "tensor.collapse_shape" | "tensor.expand_shape" => {
                let mut t = get(env, ctx.operands(op)[0])?;
                let res = ctx.result(op, 0);
                let TypeKind::Tensor { shape, .. } = ctx.value_type(res).kind() else {
                    return Err("a reshape must give a tensor".into());
                };
                t.shape = shape.clone();
                env.insert(res, t);
            }
            "arith.constant" => {
                let a = ctx
                    .inherent_attr(op, "value")
                    .ok_or("constant without a value")?;
                let t = r
                    .and_then(|r| TensorType::from_type(ctx.value_type(r)))
                    .ok_or("only tensor constants are supported")?;
                let bytes = constant_bytes(ctx, a)?;
                let num = super::ops::Num::of(&t.elem.to_type()).ok_or("element type")?;
                let data = bytes
                    .chunks_exact(num.bytes() as usize)
                    .map(|c| num.decode(c))
                    .collect();
                env.insert(ctx.result(op, 0), Tensor::from_data(t.shape, t.elem, data)?);
            }
            "tilegraph.kernel" => {
                let body = ctx
                    .regions(op)
                    .first()
                    .and_then(|r| ctx.region_blocks(*r).first().copied())
                    .ok_or("a tilegraph.kernel without a body")?;
                let outs = run_block(ctx, body, env, noise.as_deref_mut())?;
                for (r, t) in ctx.results(op).to_vec().into_iter().zip(outs) {
                    env.insert(r, t);
                }
            }
            "func.return" | "tilegraph.yield" => {
                return ctx.operands(op).iter().map(|&v| get(env, v)).collect();
            }
            other => return Err(format!("the reference holds '{other}'")),
        }
    }
    Err("the reference does not end with func.return".into())
}

/// Runs host function `host` end to end on `inputs` (or seeded ones from `seed`) and
/// checks it against the oracle.
pub fn run_model(
    ctx: &Context,
    module: OpId,
    host: OpId,
    seed: u64,
    inputs: &[PathBuf],
    files: TensorFiles,
) -> Result<ModelRun, Diagnostic> {
    let mut rctx = context();
    let rf = reference(ctx, host, &mut rctx)?;
    let types = func_input_types(&rctx, rf).map_err(|m| Diagnostic::op_error(ctx, host, m))?;
    let name = func_name(ctx, host).unwrap_or("?").to_string();
    let args = if inputs.is_empty() {
        Tensor::random_inputs(&types, seed)
    } else {
        if inputs.len() != types.len() {
            return Err(Diagnostic::error(
                None,
                format!(
                    "@{name} takes {} inputs, {} files given",
                    types.len(),
                    inputs.len()
                ),
            ));
        }
        let mut v = Vec::new();
        for (p, t) in inputs.iter().zip(&types) {
            let x = (files.read)(p, t.elem).map_err(|m| Diagnostic::error(None, m))?;
            if x.shape != t.shape {
                return Err(Diagnostic::error(
                    None,
                    format!(
                        "{}: shape {:?}, @{name} expects {}",
                        p.display(),
                        x.shape,
                        t.text()
                    ),
                ));
            }
            v.push(x);
        }
        v
    };
    let LaunchSequence {
        manifest,
        constants,
        ..
    } = sequence_with(ctx, module, host, types.len())?;
    let outputs = run_manifest(ctx, module, &manifest, &args, constants.clone())?;
    let on_ref = |m: String| Diagnostic::op_error(ctx, host, format!("reference: {m}"));
    let want = oracle(&rctx, rf, &args, None).map_err(on_ref)?;
    if want.len() != outputs.len() {
        return Err(Diagnostic::op_error(
            ctx,
            host,
            format!(
                "has {} outputs, its reference {}",
                outputs.len(),
                want.len()
            ),
        ));
    }
    let errors: Vec<f64> = outputs
        .iter()
        .zip(&want)
        .map(|(g, w)| rel_err(&g.data, &w.data))
        .collect();
    let floors = super::rounding::floors_if_needed(&errors, || {
        let want: Vec<Vec<f64>> = want.into_iter().map(|w| w.data).collect();
        oracle_floors(&rctx, rf, &args, seed, &want).map_err(on_ref)
    })?;
    Ok(ModelRun {
        function: name,
        manifest,
        outputs,
        errors,
        floors,
        constants,
    })
}

/// A host function's launch sequence and its constants' bytes, read without running it.
#[derive(Clone, Debug)]
pub struct LaunchSequence {
    /// The host function's name.
    pub function: String,
    /// Its launches, buffers and constants.
    pub manifest: ModelManifest,
    /// The constants' bytes, in manifest order.
    pub constants: Vec<Vec<u8>>,
}

fn sequence_with(
    ctx: &Context,
    module: OpId,
    host: OpId,
    n_inputs: usize,
) -> Result<LaunchSequence, Diagnostic> {
    let (manifest, globals) = model_manifest(ctx, module, host, n_inputs)?;
    let constants = globals
        .iter()
        .map(|&g| {
            let v = ctx
                .inherent_attr(g, "initial_value")
                .ok_or_else(|| Diagnostic::op_error(ctx, g, "has no initial_value"))?;
            constant_bytes(ctx, v).map_err(|m| Diagnostic::op_error(ctx, g, m))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(LaunchSequence {
        function: func_name(ctx, host).unwrap_or("?").to_string(),
        manifest,
        constants,
    })
}

/// The launch sequence of every host function of module text that carries its te function
/// (or only `func`), without simulating: what a GPU run of a full-size model needs.
pub fn launch_sequences_text(
    name: &str,
    text: &str,
    func: Option<&str>,
) -> Result<Vec<LaunchSequence>, String> {
    let (ctx, module) = load_text(name, text)?;
    let render = |d: &Diagnostic| rtile::diagnostics::render(&ctx, d);
    rtile_gpu_vocab::check_module(&ctx, module, "rtile-run --model-manifest")
        .map_err(|d| render(&d))?;
    host_functions(&ctx, module)
        .into_iter()
        .filter(|&h| func.is_none_or(|f| func_name(&ctx, h) == Some(f)))
        .map(|h| {
            let mut rctx = context();
            let rf = reference(&ctx, h, &mut rctx).map_err(|d| render(&d))?;
            let n = func_input_types(&rctx, rf)
                .map_err(|m| render(&Diagnostic::op_error(&ctx, h, m)))?
                .len();
            sequence_with(&ctx, module, h, n).map_err(|d| render(&d))
        })
        .collect()
}

/// [`run_model`] for every host function of module text (or only `func`); errors are
/// rendered diagnostics. An empty list: the module has no host function with a reference.
pub fn run_models_text(
    name: &str,
    text: &str,
    seed: u64,
    inputs: &[PathBuf],
    files: TensorFiles,
    func: Option<&str>,
) -> Result<Vec<ModelRun>, String> {
    let (ctx, module) = load_text(name, text)?;
    let render = |d: &Diagnostic| rtile::diagnostics::render(&ctx, d);
    rtile_gpu_vocab::check_module(&ctx, module, "rtile-run --sim").map_err(|d| render(&d))?;
    let hosts: Vec<OpId> = host_functions(&ctx, module)
        .into_iter()
        .filter(|&h| func.is_none_or(|f| func_name(&ctx, h) == Some(f)))
        .collect();
    if !inputs.is_empty() && hosts.len() > 1 {
        return Err("input files need exactly one host function (use --func)\n".into());
    }
    hosts
        .iter()
        .enumerate()
        .map(|(k, &h)| {
            run_model(&ctx, module, h, seed.wrapping_add(k as u64), inputs, files)
                .map_err(|d| render(&d))
        })
        .collect()
}
