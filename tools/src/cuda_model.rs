//! `rtile-run cuda --model out/<func>.model.json`: a whole compiled model on the GPU (the
//! launch sequence `rtile-compile` writes, its `kernels.ptx` and constants beside it), on
//! seeded inputs or `.npy` / ONNX `.pb` files, its outputs checked against expected files
//! (`--expect`, `--rtol`, `--atol`), written (`--dump`) and, with `--bench`, timed as one
//! sequence of launches. Kept here, not in `rtile-cuda`, because the tensor files are read
//! by `rtile-runtime` and `rtile-onnx`, which the CUDA crate does not link.

use std::path::{Path, PathBuf};

use rtile_cuda::cli::{CudaArgs, EXIT_NO_CUDA};
use rtile_cuda::exec::{Gpu, check_cuda};
use rtile_cuda::model::{Replay, TimingPlan, run_model, time_model, time_steps};
use rtile_dialects::te::model::{ElemType, TensorType};
use rtile_manifest::model::ModelManifest;
use rtile_onnx::tensor_file::FILES;
use rtile_runtime::driver::{FuncRun, dump_outputs};
use rtile_runtime::sim::model::{tensor_bytes, tensor_of_bytes};
use rtile_runtime::tensor::Tensor;

use crate::run::compare_expected;

/// What failed, and the exit code: 1, or [`EXIT_NO_CUDA`] when there is no GPU here.
type Failure = (i32, String);

fn failed(m: String) -> Failure {
    (1, m)
}

/// Runs `rtile-run cuda --model`; the exit code.
pub fn run(args: &CudaArgs) -> i32 {
    match run_model_cli(args) {
        Ok(text) => {
            print!("{text}");
            0
        }
        Err((code, m)) => {
            eprintln!("{m}");
            code
        }
    }
}

/// The model's inputs: the files given, else seeded ones (`--seed`).
pub fn model_inputs(
    m: &ModelManifest,
    files: &[PathBuf],
    seed: u64,
) -> Result<Vec<Tensor>, String> {
    let types = m
        .inputs
        .iter()
        .map(|s| {
            ElemType::from_keyword(&s.dtype)
                .map(|e| TensorType::new(s.shape.clone(), e))
                .ok_or_else(|| format!("@{}: unsupported input dtype '{}'", m.function, s.dtype))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if files.is_empty() {
        return Ok(Tensor::random_inputs(&types, seed));
    }
    if files.len() != types.len() {
        return Err(format!(
            "@{} takes {} inputs, {} files given",
            m.function,
            types.len(),
            files.len()
        ));
    }
    files
        .iter()
        .zip(&types)
        .map(|(p, t)| {
            let x = (FILES.read)(p, t.elem)?;
            if x.shape != t.shape {
                return Err(format!(
                    "{}: shape {:?}, @{} expects {}",
                    p.display(),
                    x.shape,
                    m.function,
                    t.text()
                ));
            }
            Ok(x)
        })
        .collect()
}

fn read_text(p: &Path) -> Result<String, String> {
    std::fs::read_to_string(p).map_err(|e| format!("rtile-run: cannot read {}: {e}", p.display()))
}

fn run_model_cli(args: &CudaArgs) -> Result<String, Failure> {
    let Some(path) = &args.model else {
        return Err(failed("rtile-run: --model is required here".into()));
    };
    let m = ModelManifest::from_json(&read_text(path).map_err(failed)?)
        .map_err(|e| failed(format!("rtile-run: {}: {e}", path.display())))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let constants = m
        .read_constants(dir)
        .map_err(|e| failed(format!("rtile-run: {e}")))?;
    let ptx_path = args.ptx.clone().unwrap_or_else(|| dir.join("kernels.ptx"));
    let ptx = read_text(&ptx_path).map_err(failed)?;
    let inputs =
        model_inputs(&m, &args.inputs, args.seed).map_err(|e| failed(format!("rtile-run: {e}")))?;
    let input_bytes = inputs
        .iter()
        .zip(&m.inputs)
        .map(|(t, s)| tensor_bytes(t, &s.dtype))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| failed(format!("rtile-run: {e}")))?;
    check_cuda().map_err(|m| (EXIT_NO_CUDA, m))?;
    let gpu = Gpu::new(args.device).map_err(failed)?;
    let on_gpu = |e: String| failed(format!("rtile-run: @{}: {e}", m.function));
    let (bytes, timing) = if args.bench {
        let (o, t) = time_model(
            &gpu,
            &ptx,
            &m,
            &input_bytes,
            &constants,
            TimingPlan {
                warmup: args.warmup,
                iters: args.iters,
                replay: if args.graph {
                    Replay::Graph
                } else {
                    Replay::Launches
                },
            },
        )
        .map_err(on_gpu)?;
        if let Some(p) = &args.per_kernel {
            let steps = time_steps(
                &gpu,
                &ptx,
                &m,
                &input_bytes,
                &constants,
                args.warmup,
                args.iters,
            )
            .map_err(on_gpu)?;
            write_step_times(p, &m, &steps).map_err(failed)?;
        }
        (o, Some(t))
    } else {
        (
            run_model(&gpu, &ptx, &m, &input_bytes, &constants).map_err(on_gpu)?,
            None,
        )
    };
    let outputs = m
        .outputs
        .iter()
        .zip(&bytes)
        .map(|(s, b)| tensor_of_bytes(s, b))
        .collect::<Result<Vec<_>, _>>()
        .map_err(on_gpu)?;
    let mut text = format!(
        "@{}: {} launches on {} ({} kernels), {} constants, arena {} bytes\n",
        m.function,
        m.launches().count(),
        gpu.info().name,
        distinct_kernels(&m),
        m.constants.len(),
        m.arena_bytes
    );
    let runs = [FuncRun {
        name: m.function.clone(),
        outputs,
    }];
    text.push_str(
        &compare_expected(&args.expect, args.rtol, args.atol, &runs)
            .map_err(|e| failed(format!("rtile-run: error: {e}")))?,
    );
    if let Some(p) = &args.dump {
        dump_outputs(&runs, p, FILES).map_err(|e| failed(format!("rtile-run: {e}")))?;
    }
    if let Some(t) = timing {
        text.push_str(&format!(
            "@{}: median {:.4} ms, min {:.4} ms over {} runs of the whole sequence{}\n",
            m.function,
            t.median_ms,
            t.min_ms,
            t.samples.len(),
            if args.graph { " (one CUDA graph)" } else { "" }
        ));
    }
    Ok(text)
}

/// Writes per-launch times as JSON: `{"function", "steps": [{"step", "kernel", "grid",
/// "block", "us"}]}`.
fn write_step_times(
    p: &Path,
    m: &ModelManifest,
    steps: &[rtile_cuda::model::StepTime],
) -> Result<(), String> {
    let rows: Vec<serde_json::Value> = steps
        .iter()
        .filter_map(|t| {
            let s = m.steps.get(t.step)?.launch()?;
            Some(serde_json::json!({
                "step": t.step,
                "kernel": t.kernel,
                "grid": s.grid,
                "block": s.block,
                "us": t.us,
            }))
        })
        .collect();
    let doc = serde_json::json!({ "function": m.function, "steps": rows });
    std::fs::write(p, format!("{doc:#}\n"))
        .map_err(|e| format!("rtile-run: cannot write {}: {e}", p.display()))
}

fn distinct_kernels(m: &ModelManifest) -> usize {
    let mut names: Vec<&str> = m.launches().map(|(_, s)| s.kernel.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}
