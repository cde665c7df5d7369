//! `rtile-run --sim --check`: runs every kernel of a lowered module on seeded random inputs
//! in the simulator and compares the output with the te reference interpreter in f64 (the
//! oracle). Each kernel carries its reference as `rtile.te`, a string holding a `func.func`
//! with the `te.compute` it was lowered from (custom form), whose operands are the kernel's
//! inputs in order; the kernel's last arguments are its outputs, one per result of the
//! reference (a fused kernel writing several results returns them all, in order).

use std::sync::Arc;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId};
use rtile_dialects::te::module::parse_computes;

use super::{kernels, run_kernel};
use crate::interp::{Accumulate, eval_compute};
use crate::tensor::Tensor;

/// The result of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelCheck {
    pub kernel: String,
    /// `max |sim − ref| / max |ref|` over the output (normwise relative error; 0 when both
    /// are all zero); the largest over the outputs of a kernel with several.
    pub max_rel_err: f64,
    pub elements: usize,
    /// Per output: its normwise relative error and its rounding floor
    /// ([`super::rounding`]; 0 when no error needed it).
    pub outputs: Vec<(f64, f64)>,
}

impl KernelCheck {
    /// Whether every output is within `tolerance` or its rounding floor.
    pub fn within(&self, tolerance: f64) -> bool {
        self.outputs
            .iter()
            .all(|&(e, f)| super::rounding::within(e, f, tolerance))
    }
}

/// The results of every kernel of a module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckReport {
    pub kernels: Vec<KernelCheck>,
    /// Kernels without a te reference left out by [`run_check_beside_hosts`] (a persistent
    /// program and its step reset: checked through their host function).
    pub unreferenced: Vec<String>,
}

impl CheckReport {
    /// The largest relative error over all kernels.
    pub fn max_rel_err(&self) -> f64 {
        self.kernels
            .iter()
            .map(|k| k.max_rel_err)
            .fold(0.0, f64::max)
    }
    /// Whether every kernel is [`KernelCheck::within`] `tolerance`.
    pub fn within(&self, tolerance: f64) -> bool {
        self.kernels.iter().all(|k| k.within(tolerance))
    }
    /// One line per kernel and a summary, as `rtile-run --sim --check` prints.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for k in &self.kernels {
            s.push_str(&format!(
                "@{}: {} elements, max relative error {:.3e}{}\n",
                k.kernel,
                k.elements,
                k.max_rel_err,
                super::rounding::floor_note(&k.outputs)
            ));
        }
        for k in &self.unreferenced {
            s.push_str(&format!(
                "@{k}: not checked alone (no te reference; its host function runs it)\n"
            ));
        }
        if !self.kernels.is_empty() || self.unreferenced.is_empty() {
            s.push_str(&format!("max relative error {:.3e}\n", self.max_rel_err()));
        }
        s
    }
}

/// Normwise relative error of `got` against `want`. NaN anywhere (e.g. an output element
/// the kernel never wrote: outputs start as NaN) makes it infinite.
pub fn rel_err(got: &[f64], want: &[f64]) -> f64 {
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let mut e = 0.0f64;
    for (a, b) in got.iter().zip(want) {
        if a.is_nan() != b.is_nan() {
            return f64::INFINITY;
        }
        if !b.is_nan() {
            e = e.max((a - b).abs());
        }
    }
    if e == 0.0 {
        0.0
    } else {
        e / scale.max(f64::MIN_POSITIVE)
    }
}

/// Computes a check's rounding floors, per output, from the oracle's outputs.
pub(crate) type FloorsFn = Box<dyn FnOnce(&[Vec<f64>]) -> Result<Vec<f64>, String>>;

/// A kernel's check: its arguments (inputs, then the output buffers), the oracle's outputs
/// (the last `want.len()` arguments) and how to compute their rounding floors.
pub(crate) struct Case {
    pub args: Vec<Vec<f64>>,
    pub want: Vec<Vec<f64>>,
    pub floors: FloorsFn,
}

impl Case {
    /// The kernel's outputs: the last `want.len()` arguments.
    fn outputs(&self) -> &[Vec<f64>] {
        &self.args[self.args.len().saturating_sub(self.want.len())..]
    }

    /// The elements of the kernel's outputs.
    pub(crate) fn output_elements(&self) -> usize {
        self.outputs().iter().map(Vec::len).sum()
    }

    /// Per output of the kernel (run on `args`): its [`rel_err`] against the oracle and its
    /// rounding floor, computed only when an error needs it
    /// ([`super::rounding::needs_floors`]; 0 otherwise).
    pub(crate) fn judge(self) -> Result<Vec<(f64, f64)>, String> {
        let errs: Vec<f64> = self
            .outputs()
            .iter()
            .zip(&self.want)
            .map(|(g, w)| rel_err(g, w))
            .collect();
        let floors = super::rounding::floors_if_needed(&errs, || (self.floors)(&self.want))?;
        Ok(errs.into_iter().zip(floors).collect())
    }
}

/// The arguments of kernel `k` on seeded random inputs (the output buffer starts as NaN, so
/// an element no thread writes shows) and the f64 oracle's output, from its `rtile.te`
/// reference; `None` when the kernel carries no reference.
pub(crate) fn reference_case(
    ctx: &Context,
    k: OpId,
    seed: u64,
) -> Result<Option<Case>, Diagnostic> {
    let Some(reference) = ctx.attr(k, "rtile.te").and_then(|a| a.as_str()) else {
        return Ok(None);
    };
    let scanned = parse_computes("rtile.te", reference)
        .map_err(|e| Diagnostic::op_error(ctx, k, format!("bad 'rtile.te' reference: {e}")))?;
    let [sc] = &scanned[..] else {
        // A fused kernel: the chain of te ops it runs, as a function.
        return super::model_check::chain_case(reference, seed)
            .map(Some)
            .map_err(|e| Diagnostic::op_error(ctx, k, format!("reference: {e}")));
    };
    let c = &sc.compute;
    let inputs = Tensor::random_inputs(&c.inputs, seed);
    let on_ref = |e: String| Diagnostic::op_error(ctx, k, format!("reference: {e}"));
    let want = vec![
        eval_compute(c, &inputs, Accumulate::F64)
            .map_err(on_ref)?
            .data,
    ];
    let mut args: Vec<Vec<f64>> = inputs.iter().map(|t| t.data.clone()).collect();
    args.push(vec![f64::NAN; c.result.num_elements().max(0) as usize]);
    let c = c.clone();
    let floors: FloorsFn = Box::new(move |want| {
        super::rounding::floors(seed, want, |n| Ok(vec![n.compute(&c, &inputs)?.data]))
    });
    Ok(Some(Case { args, want, floors }))
}

/// The name of kernel `k` (its `sym_name`).
pub(crate) fn kernel_name(ctx: &Context, k: OpId) -> String {
    ctx.inherent_attr(k, "sym_name")
        .and_then(|a| a.as_str())
        .unwrap_or("")
        .to_string()
}

/// Runs every kernel under `module` that carries `rtile.te` and compares it with the
/// interpreter. Simulator errors are returned as diagnostics at the failing op.
pub fn run_check(ctx: &Context, module: OpId, seed: u64) -> Result<CheckReport, Diagnostic> {
    check_kernels(ctx, module, seed, false)
}

/// [`run_check`] for a module whose host functions are run and checked whole (`rtile-run
/// --sim --check` on a lowered model): a kernel without a te reference (a persistent
/// program, its step reset) is listed in [`CheckReport::unreferenced`] instead of refused.
pub fn run_check_beside_hosts(
    ctx: &Context,
    module: OpId,
    seed: u64,
) -> Result<CheckReport, Diagnostic> {
    check_kernels(ctx, module, seed, true)
}

/// The kernels of `module` against their te references; `skip_unreferenced`: a kernel
/// with none is listed, not refused.
fn check_kernels(
    ctx: &Context,
    module: OpId,
    seed: u64,
    skip_unreferenced: bool,
) -> Result<CheckReport, Diagnostic> {
    rtile_gpu_vocab::check_module(ctx, module, "rtile-run --sim")?;
    let mut report = CheckReport::default();
    for k in kernels(ctx, module) {
        let Some(mut case) = reference_case(ctx, k, seed)? else {
            if skip_unreferenced {
                report.unreferenced.push(kernel_name(ctx, k));
                continue;
            }
            return Err(Diagnostic::op_error(
                ctx,
                k,
                "has no 'rtile.te' reference to check against",
            ));
        };
        run_kernel(ctx, k, &mut case.args)?;
        let elements = case.output_elements();
        let outputs = case
            .judge()
            .map_err(|e| Diagnostic::op_error(ctx, k, format!("reference: {e}")))?;
        report.kernels.push(KernelCheck {
            kernel: kernel_name(ctx, k),
            max_rel_err: outputs.iter().map(|o| o.0).fold(0.0, f64::max),
            elements,
            outputs,
        });
    }
    Ok(report)
}

/// A context with every rtile dialect registered (arith, math and func ops are accepted
/// unregistered where this build does not define them).
pub fn context() -> Context {
    let mut ctx = Context::new(Arc::new(rtile_dialects::dialect_registry()));
    ctx.allow_unregistered = true;
    ctx
}

/// Parses and verifies module text; errors are rendered diagnostics.
pub(crate) fn load_text(name: &str, text: &str) -> Result<(Context, OpId), String> {
    let mut ctx = context();
    let render = |ctx: &Context, d: &Diagnostic| rtile::diagnostics::render(ctx, d);
    let m = rtile::parser::parse_str(&mut ctx, name, text).map_err(|d| render(&ctx, &d))?;
    if let Err(ds) = rtile::verifier::verify(&ctx, m.module) {
        return Err(ds
            .iter()
            .map(|d| render(&ctx, d))
            .collect::<Vec<_>>()
            .join("\n"));
    }
    Ok((ctx, m.module))
}

/// [`run_check`] on module text (the `rtile-run --sim --check` driver): parses, verifies,
/// runs; errors are rendered diagnostics.
pub fn run_check_text(name: &str, text: &str, seed: u64) -> Result<CheckReport, String> {
    let (ctx, module) = load_text(name, text)?;
    run_check(&ctx, module, seed).map_err(|d| rtile::diagnostics::render(&ctx, &d))
}

/// [`run_check_beside_hosts`] on module text.
pub fn run_check_beside_hosts_text(
    name: &str,
    text: &str,
    seed: u64,
) -> Result<CheckReport, String> {
    let (ctx, module) = load_text(name, text)?;
    run_check_beside_hosts(&ctx, module, seed).map_err(|d| rtile::diagnostics::render(&ctx, &d))
}
