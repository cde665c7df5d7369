//! `rtile-compile model.onnx --device h100 -o out/`: import → axis fusion → construction
//! (or, with `--scheduler welder`, reshape folding → Welder's fusion) → lowering → PTX or HIP bundle + manifest, with a progress bar and a summary table
//! (see the library, `rtile_compile::compile`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use rtile_compile::{CompileOptions, CompileReport, Scheduler, compile};

#[derive(Parser, Debug)]
#[command(
    name = "rtile-compile",
    about = "Compile an ONNX model or a te module to a PTX (NVIDIA) or HIP (AMD) bundle with its launch manifest"
)]
struct Cli {
    /// The model (`.onnx`) or te module (`.mlir`).
    input: PathBuf,
    /// Device description (`h100`, `a100`, `v100`, `mi250x`, ...): what construction
    /// targets and which code is generated.
    #[arg(long, default_value = "h100")]
    device: String,
    /// The bundle directory (created): kernels.ptx or kernels.hip, manifest.json, lowered.mlir.
    #[arg(short = 'o', long = "output", default_value = "out")]
    output: PathBuf,
    /// Candidates kept: rPrograms constructed per compute (Roller; the best-ranked is
    /// lowered; default 1), or tile configurations per sub-graph (Welder; default 8).
    #[arg(long = "top-k")]
    top_k: Option<usize>,
    /// Which system decides the kernels: `roller` (one kernel per operator) or `welder`
    /// (operators fused across registers and shared memory).
    #[arg(long, default_value = "roller", value_parser = ["roller", "welder"])]
    scheduler: String,
    /// ptxas to check the PTX with (default: RTILE_PTXAS, else ptxas on PATH; none: unchecked).
    #[arg(long)]
    ptxas: Option<PathBuf>,
    /// Static shape of a model input with symbolic dims: `name=1x3x224x224` (repeatable).
    #[arg(long = "input-shape", value_name = "name=DxD..")]
    input_shape: Vec<String>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn find_ptxas(asked: Option<PathBuf>) -> Option<PathBuf> {
    asked
        .or_else(|| std::env::var_os("RTILE_PTXAS").map(PathBuf::from))
        .or_else(|| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join("ptxas"))
                    .find(|p| p.is_file())
            })
        })
}

fn print_summary(report: &CompileReport) {
    println!(
        "{:<28} {:>16} {:>14} {:>10} {:>9} {:>10}",
        "kernel", "grid", "block", "shared B", "launches", "est us"
    );
    let mut total = 0.0;
    for k in &report.kernels {
        let est = k
            .est_us
            .map(|e| format!("{e:.2}"))
            .unwrap_or_else(|| "-".into());
        total += k.est_us.unwrap_or(0.0) * k.launches as f64;
        println!(
            "{:<28} {:>16} {:>14} {:>10} {:>9} {:>10}",
            k.name,
            format!("{}x{}x{}", k.grid[0], k.grid[1], k.grid[2]),
            format!("{}x{}x{}", k.block[0], k.block[1], k.block[2]),
            k.shared_bytes,
            k.launches,
            est
        );
    }
    if report.kernels.iter().any(|k| k.est_us.is_some()) {
        println!(
            "{} kernels for {}, estimated {total:.2} us in all",
            report.kernels.len(),
            report.target
        );
    } else {
        // Welder's fused kernels carry no per-launch estimate of Roller's model.
        println!("{} kernels for {}", report.kernels.len(), report.target);
    }
    for m in &report.models {
        println!(
            "@{}: {} launches, peak intermediate memory {} bytes, constants {} bytes",
            m.function, m.launches, m.peak_bytes, m.constant_bytes
        );
    }
    let stages: Vec<String> = report
        .stages
        .iter()
        .map(|s| format!("{} {:.3}s", s.stage, s.time.as_secs_f64()))
        .collect();
    println!(
        "stages: {} (total {:.3}s; ptxas runs beside write)",
        stages.join(", "),
        report.total.as_secs_f64()
    );
    for f in &report.files {
        println!("wrote {}", f.display());
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut input_shapes = Vec::new();
    for s in &cli.input_shape {
        match rtile_onnx::ImportOptions::parse_input_shape(s) {
            Ok(v) => input_shapes.push(v),
            Err(m) => {
                eprintln!("rtile-compile: --input-shape: {m}");
                return ExitCode::FAILURE;
            }
        }
    }
    let opts = CompileOptions {
        input: cli.input,
        input_shapes,
        device: cli.device,
        top_k: cli.top_k,
        out_dir: cli.output,
        ptxas: find_ptxas(cli.ptxas),
        scheduler: if cli.scheduler == "welder" {
            Scheduler::Welder
        } else {
            Scheduler::Roller
        },
    };
    let bar = if cli.quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}") {
            b.set_style(style);
        }
        b
    };
    let result = compile(&opts, &mut |stage| bar.set_message(stage));
    bar.finish_and_clear();
    match result {
        Ok(report) => {
            print_summary(&report);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint!("{e}");
            if !e.0.ends_with('\n') {
                eprintln!();
            }
            ExitCode::FAILURE
        }
    }
}
