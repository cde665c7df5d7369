//! What `rtile-run --interpret` does once the module is parsed: pick the functions, make
//! their inputs (seeded RNG or `.npy` files), run them, print checksums, dump outputs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rtile::ir::{Context, OpId};

use crate::func::{func_input_types, func_name, run_func};
use crate::interp::Accumulate;
use crate::tensor::Tensor;
use crate::tensor_file::TensorFiles;

/// Options of an interpreter run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Run only this function (default: every `func.func` in the module, in order).
    pub func: Option<String>,
    /// Seed of the input generator; function `k`'s inputs use `seed + k`.
    pub seed: u64,
    /// Inputs from files instead of the generator (for a single function).
    pub inputs: Vec<PathBuf>,
    pub mode: Accumulate,
    /// How the input files are read (`.npy`, and what the caller adds).
    pub files: TensorFiles,
}

/// One function's run.
#[derive(Clone, Debug)]
pub struct FuncRun {
    pub name: String,
    pub outputs: Vec<Tensor>,
}

/// The `func.func` ops directly in `module`'s body.
pub fn module_funcs(ctx: &Context, module: OpId) -> Vec<OpId> {
    let Some(&region) = ctx.regions(module).first() else {
        return vec![];
    };
    let Some(&block) = ctx.region_blocks(region).first() else {
        return vec![];
    };
    ctx.block_ops(block)
        .filter(|&op| ctx.op_name(op) == "func.func")
        .collect()
}

/// Runs the selected functions of a module.
pub fn interpret_module(
    ctx: &Context,
    module: OpId,
    opts: &RunOptions,
) -> Result<Vec<FuncRun>, String> {
    let funcs: Vec<OpId> = module_funcs(ctx, module)
        .into_iter()
        .filter(|&f| {
            opts.func
                .as_deref()
                .is_none_or(|n| func_name(ctx, f) == Some(n))
        })
        .collect();
    if funcs.is_empty() {
        return Err(match &opts.func {
            Some(n) => format!("no function @{n} in the module"),
            None => "the module has no func.func to run".into(),
        });
    }
    if !opts.inputs.is_empty() && funcs.len() != 1 {
        return Err("input files need exactly one function (use --func)".into());
    }
    let mut runs = Vec::new();
    for (k, &f) in funcs.iter().enumerate() {
        let name = func_name(ctx, f).unwrap_or("?").to_string();
        let types = func_input_types(ctx, f).map_err(|e| format!("@{name}: {e}"))?;
        let args = if opts.inputs.is_empty() {
            Tensor::random_inputs(&types, opts.seed.wrapping_add(k as u64))
        } else {
            if opts.inputs.len() != types.len() {
                return Err(format!(
                    "@{name} takes {} inputs, {} files given",
                    types.len(),
                    opts.inputs.len()
                ));
            }
            let mut v = Vec::new();
            for (p, t) in opts.inputs.iter().zip(&types) {
                let x = (opts.files.read)(p, t.elem)?;
                if x.shape != t.shape {
                    return Err(format!(
                        "{}: shape {:?}, @{name} expects {}",
                        p.display(),
                        x.shape,
                        t.text()
                    ));
                }
                v.push(x);
            }
            v
        };
        let outputs = run_func(ctx, Some(module), f, args, opts.mode)?;
        runs.push(FuncRun { name, outputs });
    }
    Ok(runs)
}

/// One line per output: `@f result 0: tensor<4x5xf32> sum=... abs=... weighted=...`.
pub fn checksum_report(runs: &[FuncRun]) -> String {
    let mut s = String::new();
    for r in runs {
        for (i, t) in r.outputs.iter().enumerate() {
            let (sum, abs, w) = t.checksum();
            let _ = writeln!(
                s,
                "@{} result {i}: {} sum={sum:.17e} abs={abs:.17e} weighted={w:.17e}",
                r.name,
                t.ty().text()
            );
        }
    }
    s
}

/// Writes the outputs with `files.write`: into directory `path` as `<func>.<i>.npy`; else
/// `path` itself for a single output, else `stem.<func>.<i>.<ext>` next to it (`ext`:
/// `path`'s extension).
pub fn dump_outputs(
    runs: &[FuncRun],
    path: &Path,
    files: TensorFiles,
) -> Result<Vec<PathBuf>, String> {
    let total: usize = runs.iter().map(|r| r.outputs.len()).sum();
    let mut written = Vec::new();
    for r in runs {
        for (i, t) in r.outputs.iter().enumerate() {
            let p = if path.is_dir() {
                path.join(format!("{}.{i}.npy", r.name))
            } else if total == 1 {
                path.to_path_buf()
            } else {
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "out".into());
                let ext = path
                    .extension()
                    .map(|e| e.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "npy".into());
                path.with_file_name(format!("{stem}.{}.{i}.{ext}", r.name))
            };
            (files.write)(&p, t)?;
            written.push(p);
        }
    }
    Ok(written)
}
