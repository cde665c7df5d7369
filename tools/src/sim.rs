//! `rtile-run --sim`, kept in the library so that it can be tested in-process: a lowered
//! module's host functions run end to end in the CPU GPU-simulator and are compared with
//! the te interpreter's f64 oracle on the original function (`rtile.te` on the host
//! function); a module without such host functions has each kernel checked alone.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rtile_manifest::model::ModelManifest;
use rtile_runtime::driver::{FuncRun, dump_outputs};
use rtile_runtime::sim::{
    launch_sequences_text, run_check_beside_hosts_text, run_check_text, run_models_text,
};

use crate::run::{RunCli, RunOutcome, compare_expected};

/// `--sim`'s own options.
#[derive(Clone, Debug, Default)]
pub struct SimCli {
    /// `--check`: also check every kernel alone against its `rtile.te`.
    pub check: bool,
    /// The largest accepted relative error against the f64 oracle.
    pub tolerance: f64,
    /// `--model-manifest`: where to write the launch sequence of the (single) model.
    pub manifest: Option<PathBuf>,
}

/// Writes a model's manifest to `path` and its constants' bytes to `path` with extension
/// `.bin` (named in the manifest, relative to it).
pub fn write_model_manifest(
    manifest: &ModelManifest,
    constants: &[Vec<u8>],
    path: &Path,
) -> Result<(), String> {
    let mut m = manifest.clone();
    if !constants.is_empty() {
        let bin = path.with_extension("bin");
        let data: Vec<u8> = constants.concat();
        std::fs::write(&bin, data).map_err(|e| format!("cannot write {}: {e}", bin.display()))?;
        m.constants_file = bin.file_name().map(|n| n.to_string_lossy().into_owned());
    }
    std::fs::write(path, m.to_json() + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Runs `--sim` on module text; the outcome holds what goes to stdout and stderr.
pub fn sim_outcome(opts: &RunCli, sim: &SimCli, name: &str, text: &str) -> RunOutcome {
    let fail = |log: String| RunOutcome {
        output: String::new(),
        log,
        success: false,
    };
    let models = match run_models_text(
        name,
        text,
        opts.seed,
        &opts.inputs,
        rtile_onnx::tensor_file::FILES,
        opts.func.as_deref(),
    ) {
        Ok(m) => m,
        Err(rendered) => return fail(rendered),
    };
    let mut output = String::new();
    let mut worst = 0.0f64;
    let mut within = true;
    if models.is_empty() || sim.check {
        let checked = if models.is_empty() {
            run_check_text(name, text, opts.seed)
        } else {
            run_check_beside_hosts_text(name, text, opts.seed)
        };
        match checked {
            Ok(r) if r.kernels.is_empty() && models.is_empty() => {
                return fail(format!(
                    "rtile-run: error: {name} holds no lowered kernel (a gpu.func carrying its te reference); run rtile-opt --lower-to-gpu first\n"
                ));
            }
            Ok(r) => {
                output.push_str(&r.text());
                worst = worst.max(r.max_rel_err());
                within &= r.within(sim.tolerance);
            }
            Err(rendered) => return fail(rendered),
        }
    }
    if !models.is_empty() {
        for m in &models {
            output.push_str(&m.text());
            worst = worst.max(m.max_rel_err());
            within &= m.within(sim.tolerance);
        }
        output.push_str(&format!("max relative error {worst:.3e}\n"));
    }
    let runs: Vec<FuncRun> = models
        .iter()
        .map(|m| FuncRun {
            name: m.function.clone(),
            outputs: m.outputs.clone(),
        })
        .collect();
    match compare_expected(&opts.expect, opts.rtol, opts.atol, &runs) {
        Ok(text) => output.push_str(&text),
        Err(e) => {
            return RunOutcome {
                output,
                log: format!("rtile-run: error: {e}\n"),
                success: false,
            };
        }
    }
    if let Some(p) = &opts.dump
        && let Err(e) = dump_outputs(&runs, p, rtile_onnx::tensor_file::FILES)
    {
        return fail(format!("rtile-run: error: {e}\n"));
    }
    if let Some(p) = &sim.manifest {
        let [m] = &models[..] else {
            return fail(format!(
                "rtile-run: error: --model-manifest needs exactly one host function carrying rtile.te, {} found (use --func)\n",
                models.len()
            ));
        };
        if let Err(e) = write_model_manifest(&m.manifest, &m.constants, p) {
            return fail(format!("rtile-run: error: {e}\n"));
        }
    }
    if within {
        RunOutcome {
            output,
            log: String::new(),
            success: true,
        }
    } else {
        RunOutcome {
            output,
            log: format!(
                "rtile-run: error: max relative error {worst:e} exceeds the tolerance {:e} and the rounding floor\n",
                sim.tolerance
            ),
            success: false,
        }
    }
}

/// [`sim_outcome`], printed; the exit code.
pub fn sim_run(opts: &RunCli, sim: &SimCli, name: &str, text: &str) -> ExitCode {
    let r = sim_outcome(opts, sim, name, text);
    let mut out = std::io::stdout().lock();
    if out
        .write_all(r.output.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        eprintln!("rtile-run: error: could not write stdout");
        return ExitCode::FAILURE;
    }
    eprint!("{}", r.log);
    if r.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `rtile-run --model-manifest out.json lowered.mlir` without `--sim`: writes the (single)
/// host function's launch sequence and constants without simulating it, for a full-size
/// model that only a GPU runs in reasonable time. The exit code.
pub fn write_manifest_only(name: &str, text: &str, func: Option<&str>, path: &Path) -> ExitCode {
    let written = launch_sequences_text(name, text, func).and_then(|seqs| match &seqs[..] {
        [s] => write_model_manifest(&s.manifest, &s.constants, path)
            .map(|()| {
                let m = &s.manifest;
                let launches = m.launches().count();
                let copies = match m.steps.len() - launches {
                    0 => String::new(),
                    n => format!(", {n} copies"),
                };
                format!("{}: {launches} launches{copies} -> {}\n", s.function, path.display())
            }),
        _ => Err(format!(
            "--model-manifest needs exactly one host function carrying rtile.te, {} found (use --func)\n",
            seqs.len()
        )),
    });
    match written {
        Ok(line) => {
            print!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint!("rtile-run: error: {e}");
            if !e.ends_with('\n') {
                eprintln!();
            }
            ExitCode::FAILURE
        }
    }
}
