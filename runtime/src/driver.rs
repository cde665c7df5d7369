//! What `rtile-run --interpret` does once the module is parsed: pick the functions, make
//! their inputs (seeded RNG or `.npy` files), run them, print checksums, dump outputs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rtile::ir::{Context, OpId};

use crate::func::{func_input_types, func_name, run_func};
use crate::interp::Accumulate;
use crate::npy::{read_npy, write_npy};
use crate::tensor::Tensor;

/// Options of an interpreter run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Run only this function (default: every `func.func` in the module, in order).
    pub func: Option<String>,
    /// Seed of the input generator; function `k`'s inputs use `seed + k`.
    pub seed: u64,
    /// Inputs from `.npy` files instead of the generator (for a single function).
    pub inputs: Vec<PathBuf>,
    pub mode: Accumulate,
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
                let x = read_npy(p, t.elem)?;
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

/// Writes the outputs: into directory `path` as `<func>.<i>.npy`; else `path` itself for
/// a single output, else `stem.<func>.<i>.npy` next to it.
pub fn dump_outputs(runs: &[FuncRun], path: &Path) -> Result<Vec<PathBuf>, String> {
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
                path.with_file_name(format!("{stem}.{}.{i}.npy", r.name))
            };
            write_npy(&p, t)?;
            written.push(p);
        }
    }
    Ok(written)
}
