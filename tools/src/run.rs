//! The `rtile-run` driver, kept in the library so that it can be tested in-process:
//! parse and verify a module, interpret its functions (te.compute, func.call,
//! func.return, tensor reshapes) on seeded or `.npy` inputs, report checksums and dump
//! the outputs.

use std::path::PathBuf;
use std::sync::Arc;

use rtile::diagnostics::{Diagnostic, Severity};
use rtile::ir::Context;
use rtile::parser::parse_source;
use rtile::verifier::verify;
use rtile_runtime::Accumulate;
use rtile_runtime::driver::{FuncRun, RunOptions, checksum_report, dump_outputs, interpret_module};

use crate::dialect_registry;

/// What `rtile-run` was asked to do.
#[derive(Clone, Debug, Default)]
pub struct RunCli {
    /// Run only this function.
    pub func: Option<String>,
    /// Seed of the input generator.
    pub seed: u64,
    /// Input files (`.npy`, or ONNX `TensorProto` `.pb`) instead of generated inputs.
    pub inputs: Vec<PathBuf>,
    /// Where to write the outputs (`.npy` or `.pb` file, or a directory).
    pub dump: Option<PathBuf>,
    /// Expected outputs (`.npy` or `.pb`, one per output of the single function run).
    pub expect: Vec<PathBuf>,
    /// Relative and absolute tolerance of `expect`: `|got - want| <= atol + rtol * |want|`.
    pub rtol: f64,
    pub atol: f64,
    /// f64 oracle mode.
    pub f64: bool,
    /// `--allow-unregistered-dialect`.
    pub allow_unregistered: bool,
    /// Force colour in rendered diagnostics (`None`: auto).
    pub color: Option<bool>,
}

/// The result of one `rtile-run`: stdout text, stderr text, success.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOutcome {
    pub output: String,
    pub log: String,
    pub success: bool,
}

fn render(opts: &RunCli, ctx: &Context, d: &Diagnostic) -> String {
    match opts.color {
        Some(c) => rtile::diagnostics::render::render_with(ctx, d, c),
        None => rtile::diagnostics::render(ctx, d),
    }
}

/// Runs `rtile-run --interpret` on `text` (named `name` in diagnostics).
pub fn run_interpret(opts: &RunCli, name: &str, text: &str) -> RunOutcome {
    let mut ctx = Context::new(Arc::new(dialect_registry()));
    ctx.allow_unregistered = opts.allow_unregistered;
    let file = ctx.add_source(name, text.to_string());
    let mut log = String::new();
    let fail = |ctx: &Context, ds: &[Diagnostic], mut log: String| {
        for d in ds {
            log.push_str(&render(opts, ctx, d));
        }
        RunOutcome {
            output: String::new(),
            log,
            success: false,
        }
    };
    let module = match parse_source(&mut ctx, file) {
        Ok(out) => {
            for w in &out.warnings {
                log.push_str(&render(opts, &ctx, w));
            }
            if out.warnings.iter().any(|w| w.severity == Severity::Error) {
                return fail(&ctx, &[], log);
            }
            out.module
        }
        Err(d) => return fail(&ctx, &[d], log),
    };
    if let Err(ds) = verify(&ctx, module) {
        return fail(&ctx, &ds, log);
    }
    let ropts = RunOptions {
        func: opts.func.clone(),
        seed: opts.seed,
        inputs: opts.inputs.clone(),
        mode: if opts.f64 {
            Accumulate::F64
        } else {
            Accumulate::Native
        },
        files: rtile_onnx::tensor_file::FILES,
    };
    let runs = match interpret_module(&ctx, module, &ropts) {
        Ok(r) => r,
        Err(m) => return fail(&ctx, &[Diagnostic::error(None, m)], log),
    };
    let mut output = checksum_report(&runs);
    match compare_expected(&opts.expect, opts.rtol, opts.atol, &runs) {
        Ok(text) => output.push_str(&text),
        Err(m) => {
            log.push_str(&format!("rtile-run: error: {m}\n"));
            return RunOutcome {
                output,
                log,
                success: false,
            };
        }
    }
    if let Some(p) = &opts.dump
        && let Err(m) = dump_outputs(&runs, p, rtile_onnx::tensor_file::FILES)
    {
        return fail(&ctx, &[Diagnostic::error(None, m)], log);
    }
    RunOutcome {
        output,
        log,
        success: true,
    }
}

/// Compares the outputs of the single function in `runs` with the files `expect` (ONNX's
/// backend-test check, `numpy.testing.assert_allclose`: `|got - want| <= atol + rtol *
/// |want|`, NaN equal to NaN); the report lines, or what differs.
pub fn compare_expected(
    expect: &[PathBuf],
    rtol: f64,
    atol: f64,
    runs: &[FuncRun],
) -> Result<String, String> {
    if expect.is_empty() {
        return Ok(String::new());
    }
    let [run] = runs else {
        return Err(format!(
            "--expect needs exactly one function run, {} ran (use --func)",
            runs.len()
        ));
    };
    if run.outputs.len() != expect.len() {
        return Err(format!(
            "@{} has {} outputs, {} --expect files given",
            run.name,
            run.outputs.len(),
            expect.len()
        ));
    }
    let mut text = String::new();
    for (i, (got, path)) in run.outputs.iter().zip(expect).enumerate() {
        let want = (rtile_onnx::tensor_file::FILES.read)(path, got.dtype)?;
        if want.shape != got.shape {
            return Err(format!(
                "@{} output {i} has shape {:?}, {} holds {:?}",
                run.name,
                got.shape,
                path.display(),
                want.shape
            ));
        }
        let mut first_bad: Option<usize> = None;
        let mut max_abs = 0.0f64;
        for (k, (&g, &w)) in got.data.iter().zip(&want.data).enumerate() {
            if g.is_nan() && w.is_nan() {
                continue;
            }
            let err = (g - w).abs();
            // NaN on one side only compares false: a mismatch.
            let within = err <= atol + rtol * w.abs();
            max_abs = max_abs.max(if err.is_nan() { f64::INFINITY } else { err });
            if !within && first_bad.is_none() {
                first_bad = Some(k);
            }
        }
        if let Some(k) = first_bad {
            return Err(format!(
                "@{} output {i} differs from {} at element {k}: {} against {} (rtol {:e}, atol {:e})",
                run.name,
                path.display(),
                got.data[k],
                want.data[k],
                rtol,
                atol
            ));
        }
        text.push_str(&format!(
            "@{} output {i} matches {} (max abs error {max_abs:.3e})\n",
            run.name,
            path.display()
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RELU: &str = "func.func @relu(%X: tensor<3x4xf32>) -> tensor<3x4xf32> {\n  %0 = te.compute (%i, %j) in [3, 4] : (tensor<3x4xf32>) -> tensor<3x4xf32> {\n    max(%X[%i, %j], 0.0)\n  }\n  return %0 : tensor<3x4xf32>\n}\n";

    fn opts() -> RunCli {
        RunCli {
            seed: 7,
            color: Some(false),
            ..RunCli::default()
        }
    }

    #[test]
    fn checksums_are_stable_and_seeded() {
        let a = run_interpret(&opts(), "in.mlir", RELU);
        assert!(a.success, "{}", a.log);
        assert!(
            a.output.starts_with("@relu result 0: tensor<3x4xf32> sum="),
            "{}",
            a.output
        );
        assert_eq!(a, run_interpret(&opts(), "in.mlir", RELU));
        let b = run_interpret(&RunCli { seed: 8, ..opts() }, "in.mlir", RELU);
        assert_ne!(a.output, b.output);
    }

    #[test]
    fn errors_are_rendered_diagnostics() {
        let r = run_interpret(
            &opts(),
            "in.mlir",
            "func.func @f() {\n  return %x : f32\n}\n",
        );
        assert!(!r.success);
        assert!(r.log.starts_with("in.mlir:2:"), "{}", r.log);
        let r = run_interpret(
            &RunCli {
                func: Some("nope".into()),
                ..opts()
            },
            "in.mlir",
            RELU,
        );
        assert!(!r.success);
        assert!(
            r.log.contains("error: no function @nope in the module"),
            "{}",
            r.log
        );
    }

    #[test]
    fn dumps_to_a_directory() {
        let dir = std::env::temp_dir().join(format!("rtile-run-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let r = run_interpret(
            &RunCli {
                dump: Some(dir.clone()),
                ..opts()
            },
            "in.mlir",
            RELU,
        );
        assert!(r.success, "{}", r.log);
        assert!(dir.join("relu.0.npy").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
