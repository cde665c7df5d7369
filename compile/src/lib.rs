//! `rtile-compile`: one command from a model to kernels (issue 13 item 4). The stages are
//! the tools' own, in-process: import (ONNX) or parse (te) → the scheduler's passes
//! (Roller: `--axis-fusion` → `--construct-rtile{device=..}`, one kernel per operator;
//! Welder: `--fold-reshapes` → `--connect{device=..}`, fused kernels) → `--lower-to-gpu`
//! → PTX (NVIDIA devices) or HIP C++
//! (AMD devices) → `ptxas` check of every kernel when ptxas is present; the bundle is
//! written to one directory with the launch manifest and the lowered module.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rtile::diagnostics::{Diagnostic, render};
use rtile::ir::{Context, OpId, WalkOrder};
use rtile::parser::parse_source;
use rtile::pass::{PassManager, parse_pass_pipeline};
use rtile_targets::{Output, TranslateOptions, manifest_for, select_gpu_module, translate};

/// What to compile and how.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// An ONNX model (`.onnx`) or a te module (anything else).
    pub input: PathBuf,
    /// Static shapes for the model's symbolic inputs (`name=1x3x224x224`).
    pub input_shapes: Vec<(String, Vec<i64>)>,
    /// Device description name (`h100`, `a100`, `mi250x`, ...).
    pub device: String,
    /// Candidates kept: rPrograms `--construct-rtile` builds per compute (the best is
    /// lowered; default 1), or tile configurations `--connect` keeps per sub-graph
    /// (default: the pass's own).
    pub top_k: Option<usize>,
    /// The bundle directory.
    pub out_dir: PathBuf,
    /// `ptxas` to check the PTX with; `None`: not checked.
    pub ptxas: Option<PathBuf>,
    /// Which system schedules the model.
    pub scheduler: Scheduler,
}

/// The system that decides the kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// Roller: one kernel per operator, its rProgram constructed (`--axis-fusion`,
    /// `--construct-rtile`).
    #[default]
    Roller,
    /// Welder: operators fused into kernels connected in registers and shared memory
    /// (`--fold-reshapes`, `--connect`). Axis fusion is left out: its reshapes would cut
    /// every fusion that `--fold-reshapes` has to restore.
    Welder,
}

impl Scheduler {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Roller => "roller",
            Scheduler::Welder => "welder",
        }
    }
}

/// One stage's name and wall time.
#[derive(Clone, Debug)]
pub struct StageTime {
    pub stage: &'static str,
    pub time: Duration,
}

/// One kernel of the bundle, for the summary table.
#[derive(Clone, Debug)]
pub struct KernelSummary {
    pub name: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u64,
    /// The micro-performance model's estimate (Roller §3.3) of one launch, when the kernel
    /// has one.
    pub est_us: Option<f64>,
    /// How many times the host functions launch it (identical computes share a kernel).
    pub launches: usize,
}

/// One function of the model: its launch sequence's size.
#[derive(Clone, Debug)]
pub struct ModelSummary {
    pub function: String,
    pub launches: usize,
    /// Peak bytes of intermediates (the host function's `rtile.peak_bytes`).
    pub peak_bytes: u64,
    /// Bytes of constants (weights).
    pub constant_bytes: u64,
}

/// What a compilation produced.
#[derive(Clone, Debug)]
pub struct CompileReport {
    /// Each stage's wall time; `ptxas` runs beside `write`, so they overlap.
    pub stages: Vec<StageTime>,
    /// Wall time of the whole compilation.
    pub total: Duration,
    pub kernels: Vec<KernelSummary>,
    pub models: Vec<ModelSummary>,
    /// `sm_90`, `gfx90a`, ...: what the code was generated for.
    pub target: String,
    /// The files written, in order.
    pub files: Vec<PathBuf>,
}

/// A failed stage: the rendered diagnostic or message.
#[derive(Debug)]
pub struct CompileError(pub String);

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn diag(ctx: &Context, d: &Diagnostic) -> CompileError {
    CompileError(render(ctx, d))
}

/// Times one stage, reporting it to `progress` first.
fn stage<T>(
    stages: &mut Vec<StageTime>,
    progress: &mut dyn FnMut(&'static str),
    name: &'static str,
    f: impl FnOnce() -> Result<T, CompileError>,
) -> Result<T, CompileError> {
    progress(name);
    let start = Instant::now();
    let r = f()?;
    stages.push(StageTime {
        stage: name,
        time: start.elapsed(),
    });
    Ok(r)
}

/// The input as a module of te ops: an ONNX model imported, or a te module parsed.
fn load_input(opts: &CompileOptions) -> Result<(Context, OpId), CompileError> {
    let path = &opts.input;
    if path.extension().is_some_and(|e| e == "onnx") {
        let bytes = std::fs::read(path)
            .map_err(|e| CompileError(format!("cannot read {}: {e}", path.display())))?;
        let import = rtile_onnx::import::ImportOptions {
            input_shapes: opts.input_shapes.clone(),
        };
        return rtile_onnx::import::import_model(&bytes, &import)
            .map_err(|e| CompileError(format!("{}: {e}", path.display())));
    }
    let mut ctx = Context::new(Arc::new(rtile_passes::dialect_registry()));
    let text = std::fs::read_to_string(path)
        .map_err(|e| CompileError(format!("cannot read {}: {e}", path.display())))?;
    let file = ctx.add_source(path.display().to_string(), text);
    let module = parse_source(&mut ctx, file)
        .map(|p| p.module)
        .map_err(|d| diag(&ctx, &d))?;
    Ok((ctx, module))
}

/// Runs `pipeline` (a `builtin.module(...)` pass pipeline) on `module`.
fn run_pipeline(ctx: &mut Context, module: OpId, pipeline: &str) -> Result<(), CompileError> {
    let registry = rtile_passes::pass_registry();
    let pm = parse_pass_pipeline(ctx, &registry, pipeline).map_err(|d| diag(ctx, &d))?;
    let result = PassManager::new(pm).run(ctx, module);
    for d in ctx.take_emitted() {
        eprint!("{}", render(ctx, &d));
    }
    result.map_err(|d| diag(ctx, &d))
}

/// Compiles `opts.input` into `opts.out_dir`; `progress` is told each stage as it starts.
pub fn compile(
    opts: &CompileOptions,
    progress: &mut dyn FnMut(&'static str),
) -> Result<CompileReport, CompileError> {
    let start = Instant::now();
    let mut stages = Vec::new();
    let (mut ctx, module) = stage(&mut stages, progress, "import", || load_input(opts))?;
    let estimates = match opts.scheduler {
        Scheduler::Roller => {
            stage(&mut stages, progress, "axis-fusion", || {
                run_pipeline(&mut ctx, module, "builtin.module(axis-fusion)")
            })?;
            let construct = format!(
                "builtin.module(construct-rtile{{device={} top-k={}}})",
                opts.device,
                opts.top_k.unwrap_or(1)
            );
            stage(&mut stages, progress, "construct-rtile", || {
                run_pipeline(&mut ctx, module, &construct)
            })?;
            compute_estimates(&ctx, module)
        }
        Scheduler::Welder => {
            stage(&mut stages, progress, "fold-reshapes", || {
                run_pipeline(&mut ctx, module, "builtin.module(fold-reshapes)")
            })?;
            let top_k = opts
                .top_k
                .map(|k| format!(" top-k={k}"))
                .unwrap_or_default();
            let connect = format!("builtin.module(connect{{device={}{top_k}}})", opts.device);
            stage(&mut stages, progress, "connect", || {
                run_pipeline(&mut ctx, module, &connect)
            })?;
            // A fused kernel has no per-launch estimate of Roller's model: none is shown.
            Vec::new()
        }
    };
    let arities = function_arities(&ctx, module);
    stage(&mut stages, progress, "lower-to-gpu", || {
        run_pipeline(&mut ctx, module, "builtin.module(lower-to-gpu)")
    })?;
    let (gpu_module, gpu_name) =
        select_gpu_module(&ctx, module, None).map_err(|d| diag(&ctx, &d))?;
    let target = target_of(&ctx, gpu_module)?;
    let (out, ext) = if target.starts_with("sm_") {
        (Output::Ptx { sm: target.clone() }, "ptx")
    } else {
        (Output::Hip, "hip")
    };
    let code = stage(&mut stages, progress, "codegen", || {
        translate(
            &ctx,
            gpu_module,
            &gpu_name,
            &out,
            &TranslateOptions::default(),
        )
        .map_err(|d| diag(&ctx, &d))
    })?;
    let manifest_target = if ext == "ptx" { target.as_str() } else { "hip" };
    let manifest =
        manifest_for(&ctx, gpu_module, &gpu_name, manifest_target).map_err(|d| diag(&ctx, &d))?;
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| CompileError(format!("cannot create {}: {e}", opts.out_dir.display())))?;
    let code_path = opts.out_dir.join(format!("kernels.{ext}"));
    write(&code_path, code.as_bytes())?;
    // ptxas runs beside the writing of the rest of the bundle.
    let ptxas = match (&opts.ptxas, ext) {
        (Some(p), "ptx") => {
            progress("ptxas");
            Some((Instant::now(), start_ptxas(p, &code_path, &target)?))
        }
        _ => None,
    };
    let written = Instant::now();
    let manifest_path = opts.out_dir.join("manifest.json");
    let json = serde_json::to_string_pretty(&manifest)
        .map_err(|e| CompileError(format!("cannot serialise the manifest: {e}")))?;
    write(&manifest_path, json.as_bytes())?;
    let ir_path = opts.out_dir.join("lowered.mlir");
    let printed = rtile::printer::print_op(&ctx, module, &Default::default());
    write(&ir_path, printed.as_bytes())?;
    let mut files = vec![code_path.clone(), manifest_path, ir_path];
    let models = write_models(&ctx, module, &arities, &opts.out_dir, &mut files)?;
    stages.push(StageTime {
        stage: "write",
        time: written.elapsed(),
    });
    if let Some((started, child)) = ptxas {
        finish_ptxas(child, &code_path, &target)?;
        stages.push(StageTime {
            stage: "ptxas",
            time: started.elapsed(),
        });
    }
    let kernels = kernel_summaries(&manifest, &launched_kernels(&ctx, module), &estimates);
    Ok(CompileReport {
        stages,
        total: start.elapsed(),
        kernels,
        models,
        target,
        files,
    })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), CompileError> {
    std::fs::write(path, bytes)
        .map_err(|e| CompileError(format!("cannot write {}: {e}", path.display())))
}

/// The architecture the module was lowered for (its `#nvvm.target`/`#rocdl.target`).
fn target_of(ctx: &Context, gpu_module: OpId) -> Result<String, CompileError> {
    rtile_dialects::gpu::target::module_targets(ctx, gpu_module)
        .into_iter()
        .next()
        .map(|t| t.chip)
        .ok_or_else(|| CompileError("the lowered gpu.module names no target".into()))
}

/// Starts `ptxas` on the PTX (every kernel assembled; `-warn-spills` makes a spill a
/// warning that [`finish_ptxas`] reports as an error, as the lit `ptxas` checks do).
fn start_ptxas(ptxas: &Path, ptx: &Path, sm: &str) -> Result<std::process::Child, CompileError> {
    std::process::Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .arg("-warn-spills")
        // All cores: the kernels of a model are optimised in parallel.
        .args(["-split-compile", "0"])
        .arg(ptx)
        .arg("-o")
        .arg(ptx.with_extension("cubin"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| CompileError(format!("cannot run {}: {e}", ptxas.display())))
}

/// Waits for `ptxas` and refuses a failure or a spill.
fn finish_ptxas(child: std::process::Child, ptx: &Path, sm: &str) -> Result<(), CompileError> {
    let out = child
        .wait_with_output()
        .map_err(|e| CompileError(format!("ptxas did not finish: {e}")))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("spill") {
        return Err(CompileError(format!(
            "ptxas -arch={sm} rejected {}:\n{stderr}",
            ptx.display()
        )));
    }
    Ok(())
}

/// Per-kernel rows: launch shape from the manifest, the number of launches, and the
/// estimate of the program the kernel was lowered from. The host functions launch one kernel
/// per compute, in the module's compute order, so launch `i` runs the `i`-th compute's
/// program (`estimates[i]`); a kernel shared by identical computes has their one estimate.
fn kernel_summaries(
    manifest: &rtile_manifest::Manifest,
    launched: &[String],
    estimates: &[f64],
) -> Vec<KernelSummary> {
    manifest
        .kernels
        .iter()
        .map(|k| {
            let first = launched.iter().position(|n| *n == k.name);
            KernelSummary {
                name: k.name.clone(),
                grid: k.grid.unwrap_or([0; 3]),
                block: k.block.unwrap_or([0; 3]),
                shared_bytes: k.dynamic_shared_memory + k.static_shared_memory,
                est_us: first.and_then(|i| estimates.get(i).copied()),
                launches: launched.iter().filter(|n| **n == k.name).count(),
            }
        })
        .collect()
}

/// The kernel of every `gpu.launch_func` in `module`, in order.
fn launched_kernels(ctx: &Context, module: OpId) -> Vec<String> {
    let mut out = Vec::new();
    ctx.walk(module, WalkOrder::PreOrder, &mut |_, op| {
        if ctx.op_name(op) != "gpu.launch_func" {
            return;
        }
        if let Some(rtile::ir::AttrKind::SymbolRef { root, nested }) =
            ctx.inherent_attr(op, "kernel").map(|a| a.kind())
        {
            out.push(nested.last().unwrap_or(root).to_string());
        }
    });
    out
}

/// The best-ranked program's estimate of every `te.compute`, in module order.
fn compute_estimates(ctx: &Context, module: OpId) -> Vec<f64> {
    let mut out = Vec::new();
    ctx.walk(module, WalkOrder::PreOrder, &mut |_, op| {
        if ctx.op_name(op) == "te.compute" {
            let est = rtile_dialects::rtile::programs(ctx, op)
                .ok()
                .and_then(|p| p.first().map(|p| p.est_us))
                .unwrap_or(f64::NAN);
            out.push(est);
        }
    });
    out
}

/// Number of arguments of every `func.func`, by name (before lowering adds the outputs).
fn function_arities(ctx: &Context, module: OpId) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    ctx.walk(module, WalkOrder::PreOrder, &mut |_, op| {
        if ctx.op_name(op) != "func.func" {
            return;
        }
        let name = ctx.inherent_attr(op, "sym_name").and_then(|a| a.as_str());
        let args = ctx
            .regions(op)
            .first()
            .and_then(|r| ctx.region_blocks(*r).first().copied())
            .map(|b| ctx.block_args(b).len());
        if let (Some(n), Some(a)) = (name, args) {
            out.push((n.to_string(), a));
        }
    });
    out
}

/// Writes each host function's launch sequence (`<func>.model.json`, the format
/// `rtile-run` executes) and its constants (`<func>.model.bin`).
fn write_models(
    ctx: &Context,
    module: OpId,
    arities: &[(String, usize)],
    dir: &Path,
    files: &mut Vec<PathBuf>,
) -> Result<Vec<ModelSummary>, CompileError> {
    use rtile_runtime::sim::model::{constant_bytes, model_manifest};
    use rtile_runtime::sim::model_check::host_functions;
    let mut out = Vec::new();
    for host in host_functions(ctx, module) {
        let name = ctx
            .inherent_attr(host, "sym_name")
            .and_then(|a| a.as_str())
            .unwrap_or("model")
            .to_string();
        let n_inputs = arities
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, a)| *a)
            .unwrap_or(0);
        let (mut m, globals) =
            model_manifest(ctx, module, host, n_inputs).map_err(|d| diag(ctx, &d))?;
        let mut blob = Vec::new();
        for g in globals {
            let value = ctx
                .inherent_attr(g, "initial_value")
                .ok_or_else(|| CompileError(format!("@{name}: a constant global has no value")))?;
            blob.extend(constant_bytes(ctx, value).map_err(CompileError)?);
        }
        let json_path = dir.join(format!("{name}.model.json"));
        if !blob.is_empty() {
            let bin = dir.join(format!("{name}.model.bin"));
            write(&bin, &blob)?;
            m.constants_file = bin.file_name().map(|n| n.to_string_lossy().into_owned());
            files.push(bin);
        }
        write(&json_path, (m.to_json() + "\n").as_bytes())?;
        files.push(json_path);
        out.push(ModelSummary {
            function: name,
            launches: m.launches().count(),
            peak_bytes: ctx
                .attr(host, "rtile.peak_bytes")
                .and_then(|a| a.as_int())
                .unwrap_or(0) as u64,
            constant_bytes: blob.len() as u64,
        });
    }
    Ok(out)
}
