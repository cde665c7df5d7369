//! The command line of CUDA execution, as a clap `Args` group that `rtile-run` flattens
//! into its own parser (and `rtile-run-cuda` uses alone), and [`run`], which returns the
//! process exit code: 0 success, 1 failure (bad input, mismatch), 2 no CUDA here.

use std::path::{Path, PathBuf};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rtile_manifest::{ArgKind, Manifest, Role};

use crate::data::{HostBuffer, compare, seeded_input};
use crate::exec::{Gpu, check_cuda, dims, load, run_once, time};
use crate::microbench;
use crate::topk;

/// Exit code when there is no CUDA driver or GPU.
pub const EXIT_NO_CUDA: i32 = 2;

/// CUDA execution options.
#[derive(Args, Clone, Debug, Default)]
pub struct CudaArgs {
    /// PTX file to run (with its manifest, see --manifest).
    #[arg(value_name = "KERNEL.ptx")]
    pub ptx: Option<PathBuf>,
    /// Launch manifest from `rtile-translate --manifest` (default: the PTX path with .json).
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Kernel to run when the manifest has several.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Grid size override, `X[,Y[,Z]]`.
    #[arg(long, value_parser = parse_dims)]
    pub grid: Option<[u32; 3]>,
    /// Block size override, `X[,Y[,Z]]`.
    #[arg(long, value_parser = parse_dims)]
    pub block: Option<[u32; 3]>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Reference kernel (PTX; manifest beside it): outputs must match it on the same inputs.
    #[arg(long, value_name = "REF.ptx")]
    pub reference: Option<PathBuf>,
    /// Kernel of the reference manifest to use when it has several.
    #[arg(long, value_name = "NAME")]
    pub reference_kernel: Option<String>,
    /// Relative tolerance of the output check.
    #[arg(long, default_value_t = 1e-4)]
    pub rtol: f64,
    /// Absolute tolerance of the output check.
    #[arg(long, default_value_t = 1e-5)]
    pub atol: f64,
    /// Time the kernel with CUDA events (warm-up, median of --iters).
    #[arg(long)]
    pub bench: bool,
    /// Warm-up launches before timing.
    #[arg(long, default_value_t = 10)]
    pub warmup: usize,
    /// Timed launches.
    #[arg(long, default_value_t = 100)]
    pub iters: usize,
    /// With --model --bench: capture the launch sequence once into a CUDA graph and time
    /// its replays (launch overheads as small as the driver allows).
    #[arg(long, requires = "bench")]
    pub graph: bool,
    /// With --model --bench: also time every launch alone (repeated back to back) and
    /// write the per-kernel times as JSON to this file (what `rtile-bench retrain` and
    /// `--wavefront-pack="profile=..."` are built from).
    #[arg(long, requires = "bench", value_name = "FILE.json")]
    pub per_kernel: Option<PathBuf>,
    /// Time every candidate PTX (manifests beside them), keep the fastest, cache the choice
    /// by problem signature and device.
    #[arg(long, value_name = "C1.ptx,C2.ptx,...", value_delimiter = ',', num_args = 1..)]
    pub profile_top_k: Vec<PathBuf>,
    /// Top-k cache file (default: $RTILE_CACHE_DIR/topk.json or ~/.cache/rtile/topk.json).
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,
    /// Ignore cached top-k choices (time again, then update the cache).
    #[arg(long)]
    pub no_cache: bool,
    /// Run the device micro-benchmarks and write a device description file (TOML).
    #[arg(long, value_name = "OUT.toml")]
    pub profile_device: Option<PathBuf>,
    /// A whole model: its launch sequence (`rtile-compile`'s `<func>.model.json`); the PTX
    /// is the positional file, else `kernels.ptx` beside the manifest. Runs in `rtile-run
    /// cuda`, which reads the input and expected files.
    #[arg(long, value_name = "MODEL.json")]
    pub model: Option<PathBuf>,
    /// The model's inputs (`.npy` or ONNX `TensorProto` `.pb`), instead of seeded ones.
    #[arg(long, value_name = "a.npy,b.pb", value_delimiter = ',', num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// The model's expected outputs (`.npy` or `.pb`), checked with --rtol and --atol.
    #[arg(long, value_name = "out0.pb,...", value_delimiter = ',', num_args = 1..)]
    pub expect: Vec<PathBuf>,
    /// Where to write the model's outputs (`.npy` or `.pb`; a directory: `<func>.<i>.npy`).
    #[arg(long, value_name = "PATH")]
    pub dump: Option<PathBuf>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Print results as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|x| x.trim().parse::<u32>().map_err(|e| format!("{x}: {e}")))
        .collect::<Result<_, _>>()?;
    if v.is_empty() || v.len() > 3 || v.contains(&0) {
        return Err("expected 1 to 3 positive integers, `X[,Y[,Z]]`".into());
    }
    let mut out = [1; 3];
    out[..v.len()].copy_from_slice(&v);
    Ok(out)
}

fn read(p: &Path) -> Result<String, String> {
    std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
}

fn manifest_beside(ptx: &Path, explicit: Option<&Path>) -> Result<Manifest, String> {
    let path = explicit
        .map(Path::to_path_buf)
        .unwrap_or_else(|| ptx.with_extension("json"));
    Manifest::from_json(&read(&path)?).map_err(|e| format!("{}: {e}", path.display()))
}

fn bar(len: u64, what: &str) -> Option<ProgressBar> {
    if len < 200 {
        return None;
    }
    let b = ProgressBar::new(len);
    if let Ok(s) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}") {
        b.set_style(s.progress_chars("=> "));
    }
    b.set_message(what.to_string());
    Some(b)
}

/// Runs what `args` asks; returns the exit code. Never panics on missing CUDA.
pub fn run(args: &CudaArgs) -> i32 {
    if args.model.is_some() {
        eprintln!(
            "rtile-run: --model runs in `rtile-run cuda` (it reads the .npy and .pb input and expected files)"
        );
        return 1;
    }
    if let Err(msg) = check_cuda() {
        eprintln!("{msg}");
        return EXIT_NO_CUDA;
    }
    match run_checked(args) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("rtile-run: {msg}");
            1
        }
    }
}

fn inputs_for(k: &rtile_manifest::KernelManifest, seed: u64) -> Result<Vec<HostBuffer>, String> {
    k.args
        .iter()
        .enumerate()
        .map(|(i, a)| seeded_input(a, seed, i))
        .collect()
}

fn run_checked(args: &CudaArgs) -> Result<(), String> {
    let gpu = Gpu::new(args.device)?;
    let info = gpu.info();
    if let Some(out) = &args.profile_device {
        let p = microbench::profile(&gpu, args.iters.clamp(5, 50))?;
        let name = info.name.to_lowercase().replace([' ', '-'], "_");
        std::fs::write(out, microbench::device_toml(&name, &info, &p))
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        println!(
            "{}: DRAM {:.0} GB/s, shared memory {:.0} GB/s, f32 FMA {:.0} GFLOP/s -> {}",
            info.name,
            p.dram_gbps,
            p.smem_gbps,
            p.fma_gflops,
            out.display()
        );
        if args.ptx.is_none() && args.profile_top_k.is_empty() {
            return Ok(());
        }
    }
    if !args.profile_top_k.is_empty() {
        return top_k(args, &gpu);
    }
    let ptx_path = args
        .ptx
        .as_ref()
        .ok_or("no PTX file given (rtile-run KERNEL.ptx --manifest KERNEL.json)")?;
    let manifest = manifest_beside(ptx_path, args.manifest.as_deref())?;
    let l = load(&gpu, &read(ptx_path)?, &manifest, args.kernel.as_deref())?;
    let d = dims(&l.kernel, args.grid, args.block)?;
    let inputs = inputs_for(&l.kernel, args.seed)?;
    let outs = run_once(&gpu, &l, &d, &inputs)?;
    let mut report = serde_json::json!({
        "device": info.name, "kernel": l.kernel.name,
        "grid": d.grid, "block": d.block, "dynamic_shared_memory": d.smem,
    });
    let mut failed = false;
    if let Some(rp) = &args.reference {
        let (checks, ok) = check_against_reference(args, &gpu, rp, &l, &inputs, &outs)?;
        failed |= !ok;
        report["checks"] = serde_json::Value::Array(checks);
    }
    if args.bench {
        let pb = bar((args.iters) as u64, "timing");
        let t = time(&gpu, &l, &d, &inputs, args.warmup, args.iters, pb.as_ref())?;
        if let Some(b) = pb {
            b.finish_and_clear();
        }
        report["median_ms"] = serde_json::json!(t.median_ms);
        report["min_ms"] = serde_json::json!(t.min_ms);
        report["iters"] = serde_json::json!(t.samples.len());
        report["input_copies"] = serde_json::json!(t.input_copies);
        if !args.json {
            println!(
                "{} on {}: median {:.4} ms, min {:.4} ms over {} runs ({} rotating input copies)",
                l.kernel.name,
                info.name,
                t.median_ms,
                t.min_ms,
                t.samples.len(),
                t.input_copies
            );
        }
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else if args.reference.is_none() && !args.bench {
        println!(
            "{} ran on {} (grid {:?}, block {:?})",
            l.kernel.name, info.name, d.grid, d.block
        );
    }
    if failed {
        return Err("output check failed".into());
    }
    Ok(())
}

/// Runs the reference kernel `rp` on `inputs` and compares every output of `l` (`outs`)
/// with it; returns one JSON object per output and whether all matched.
fn check_against_reference(
    args: &CudaArgs,
    gpu: &Gpu,
    rp: &Path,
    l: &crate::exec::Loaded,
    inputs: &[HostBuffer],
    outs: &[HostBuffer],
) -> Result<(Vec<serde_json::Value>, bool), String> {
    let rm = manifest_beside(rp, None)?;
    let rl = load(gpu, &read(rp)?, &rm, args.reference_kernel.as_deref())?;
    let rd = dims(&rl.kernel, None, None)?;
    // A TMA kernel's tensor maps are views of its memref arguments: the reference takes
    // the memrefs only, in the same order.
    let data: Vec<usize> = (0..l.kernel.args.len())
        .filter(|&i| l.kernel.args[i].kind != ArgKind::Tensormap)
        .collect();
    if rl.kernel.args.len() != data.len() {
        return Err("the reference kernel has a different argument list".into());
    }
    let rinputs: Vec<HostBuffer> = data
        .iter()
        .filter_map(|&i| inputs.get(i).cloned())
        .collect();
    let routs = run_once(gpu, &rl, &rd, &rinputs)?;
    let mut checks = Vec::new();
    let mut all_ok = true;
    for (r, &i) in data.iter().enumerate() {
        let a = &l.kernel.args[i];
        if !matches!(a.role, Role::Output | Role::Inout) {
            continue;
        }
        let c = compare(&outs[i].to_f64(), &routs[r].to_f64(), args.rtol, args.atol);
        all_ok &= c.ok();
        checks.push(serde_json::json!({
            "arg": a.name, "elements": c.n, "mismatches": c.mismatches,
            "max_abs": c.max_abs, "max_rel": c.max_rel,
            "first_mismatch": c.first.map(|(i, x, e)| serde_json::json!({"index": i, "actual": x, "expected": e})),
        }));
        if !args.json {
            println!(
                "check {} of {}: {} of {} elements differ (max abs {:.3e}, max rel {:.3e}){}",
                a.name,
                l.kernel.name,
                c.mismatches,
                c.n,
                c.max_abs,
                c.max_rel,
                c.first
                    .map(|(i, x, e)| format!(", first at {i}: {x} vs {e}"))
                    .unwrap_or_default()
            );
        }
    }
    Ok((checks, all_ok))
}

/// `--profile-top-k`: every candidate is checked against `--reference` when given (a
/// candidate that differs is reported and never chosen), timed, and the fastest cached.
fn top_k(args: &CudaArgs, gpu: &Gpu) -> Result<(), String> {
    let info = gpu.info();
    let first = manifest_beside(&args.profile_top_k[0], None)?;
    let k0 = first.kernel(args.kernel.as_deref())?.clone();
    let sig = topk::signature(&k0, &info.name, info.cc);
    let cache_path = args.cache.clone().unwrap_or_else(topk::default_cache_path);
    let mut cache = topk::Cache::load(&cache_path);
    if !args.no_cache
        && let Some(c) = cache.entries.get(&sig)
        && args
            .profile_top_k
            .iter()
            .any(|p| p.display().to_string() == c.candidate)
    {
        if args.json {
            let report = serde_json::json!({
                "device": info.name, "signature": sig, "cached": true,
                "fastest": c.candidate, "median_ms": c.median_ms,
                "candidates": c.all_ms.iter().map(|(p, t)| serde_json::json!({"ptx": p, "median_ms": t})).collect::<Vec<_>>(),
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            );
        } else {
            println!(
                "top-k (cached for {sig}): {} ({:.4} ms)",
                c.candidate, c.median_ms
            );
        }
        return Ok(());
    }
    let inputs = inputs_for(&k0, args.seed)?;
    let pb = bar((args.profile_top_k.len() * args.iters) as u64, "top-k");
    let mut all = Vec::new();
    let mut rows = Vec::new();
    let mut wrong = Vec::new();
    for p in &args.profile_top_k {
        let m = manifest_beside(p, None)?;
        let l = load(gpu, &read(p)?, &m, args.kernel.as_deref())?;
        if topk::signature(&l.kernel, &info.name, info.cc) != sig {
            return Err(format!(
                "{}: not the same problem as the first candidate",
                p.display()
            ));
        }
        let d = dims(&l.kernel, None, None)?;
        let mut row = serde_json::json!({"ptx": p.display().to_string()});
        if let Some(rp) = &args.reference {
            let outs = run_once(gpu, &l, &d, &inputs)?;
            let (checks, ok) = check_against_reference(args, gpu, rp, &l, &inputs, &outs)?;
            row["checks"] = serde_json::Value::Array(checks);
            row["correct"] = serde_json::json!(ok);
            if !ok {
                wrong.push(p.display().to_string());
                rows.push(row);
                continue;
            }
        }
        let t = time(gpu, &l, &d, &inputs, args.warmup, args.iters, pb.as_ref())?;
        row["median_ms"] = serde_json::json!(t.median_ms);
        rows.push(row);
        all.push((p.display().to_string(), t.median_ms));
    }
    if let Some(b) = pb {
        b.finish_and_clear();
    }
    let (best, ms) = topk::fastest(&all)
        .cloned()
        .ok_or("no candidate matched the reference")?;
    if args.json {
        let report = serde_json::json!({
            "device": info.name, "signature": sig, "cached": false,
            "fastest": best, "median_ms": ms, "candidates": rows,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        for (c, t) in &all {
            println!(
                "  {t:>10.4} ms  {c}{}",
                if *c == best { "  <- fastest" } else { "" }
            );
        }
        for c in &wrong {
            println!("  {:>13}  {c}  (differs from the reference)", "wrong");
        }
    }
    cache.entries.insert(
        sig.clone(),
        topk::Choice {
            candidate: best.clone(),
            median_ms: ms,
            all_ms: all,
        },
    );
    cache.save(&cache_path)?;
    if !args.json {
        println!(
            "top-k: {best} ({ms:.4} ms), cached in {}",
            cache_path.display()
        );
    }
    if !wrong.is_empty() {
        return Err(format!(
            "{} of {} candidates differ from the reference: {}",
            wrong.len(),
            args.profile_top_k.len(),
            wrong.join(", ")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_parse() {
        assert_eq!(parse_dims("4"), Ok([4, 1, 1]));
        assert_eq!(parse_dims("4,2,3"), Ok([4, 2, 3]));
        assert!(parse_dims("0").is_err());
        assert!(parse_dims("1,2,3,4").is_err());
        assert!(parse_dims("x").is_err());
    }
}
