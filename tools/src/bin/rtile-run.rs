//! `rtile-run`: runs the functions of an MLIR module of te ops on the host.
//!
//! `rtile-run --interpret in.mlir --seed 7` prints one checksum line per output;
//! `--dump out.npy` (or `.pb`, or a directory) writes the outputs, `--inputs a.npy,b.pb` reads the
//! inputs instead of generating them, `--expect out.pb` checks the outputs (`--rtol`, `--atol`),
//! `--f64` runs the f64 oracle.
//! `rtile-run --sim --check kernels.mlir` runs the kernels of a lowered module
//! (`rtile-opt --lower-to-gpu`) in the CPU GPU-simulator on seeded random inputs and
//! compares each output with the te reference interpreter's f64 oracle (every kernel
//! carries its te op in `rtile.te`), printing the max relative error; it fails when the
//! simulator reports an error or the error exceeds `--tolerance`.
//! `rtile-run --sim --profile kernels.mlir` also counts, per kernel and per op, the
//! simulator's analogue of Nsight Compute's memory metrics (global requests, sectors and
//! coalescing; shared wavefronts and bank conflicts; barriers; warp instructions by class);
//! `--profile=json` prints JSON, `--profile-blocks=N` runs only N blocks spread over the grid
//! (a sample, for full-size kernels; no numerical check). See docs/simulator.md.
//! `rtile-run cuda k.ptx --manifest k.json --reference naive.ptx --bench` runs PTX from
//! `rtile-translate` on an NVIDIA GPU through cudarc (checking, CUDA-event timing, top-k
//! profiling, device micro-benchmarks); without a CUDA driver it says so and exits 2.
//! Exit status: 0 on success, 1 on bad input or a failed check (rendered diagnostics on
//! stderr), 2 for `cuda` without CUDA, 70 on an internal error, as `rtile-opt`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Arg, ArgAction, Args, Command, FromArgMatches};
use rtile_cuda::cli::CudaArgs;
use rtile_tools::run::{RunCli, run_interpret};
use rtile_tools::sim::{SimCli, sim_run, write_manifest_only};

/// Exit status for an internal error (a bug, never bad input): EX_SOFTWARE.
const EXIT_INTERNAL: i32 = 70;

fn command() -> Command {
    Command::new("rtile-run")
        .about("Run te modules on the host (reference interpreter), lowered kernels in the CPU GPU-simulator (--sim), or PTX on an NVIDIA GPU (cuda)")
        .args_conflicts_with_subcommands(true)
        .subcommand(CudaArgs::augment_args(Command::new("cuda")).about(
            "Run, check and time rtile PTX kernels on an NVIDIA GPU (exit 2 without CUDA)",
        ))
        .arg(
            Arg::new("input")
                .value_name("input file")
                .default_value("-")
                .help("Input file (`-` for stdin)"),
        )
        .arg(
            Arg::new("interpret")
                .long("interpret")
                .action(ArgAction::SetTrue)
                .help("Interpret with the te reference interpreter (the default mode)"),
        )
        .arg(
            Arg::new("sim")
                .long("sim")
                .action(ArgAction::SetTrue)
                .conflicts_with("interpret")
                .help("Run a lowered module in the CPU GPU-simulator: its host functions end to end (every kernel in launch order), else each kernel alone"),
        )
        .arg(
            Arg::new("check")
                .long("check")
                .action(ArgAction::SetTrue)
                .requires("sim")
                .help("With --sim: compare every kernel with its te reference (done by default for modules without a host function carrying rtile.te)"),
        )
        .arg(
            Arg::new("model-manifest")
                .long("model-manifest")
                .value_name("out.json")
                .help("Write a lowered model's launch sequence (the whole-model manifest, for `rtile-run cuda --model`) and the constants' bytes (out.bin); with --sim after simulating it, alone without running anything"),
        )
        .arg(
            Arg::new("tolerance")
                .long("tolerance")
                .value_name("rel")
                .default_value("1e-5")
                .value_parser(clap::value_parser!(f64))
                .help("With --sim: the largest accepted relative error against the f64 oracle"),
        )
        .arg(
            Arg::new("profile")
                .long("profile")
                .value_name("format")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("text")
                .value_parser(["text", "json"])
                .requires("sim")
                .help("With --sim: report profile counters per kernel and op (text table, or json)"),
        )
        .arg(
            Arg::new("profile-blocks")
                .long("profile-blocks")
                .value_name("n")
                .value_parser(clap::value_parser!(u64).range(1..))
                .requires("profile")
                .help("With --profile: run only n blocks spread over the grid (a sample; skips the numerical check)"),
        )
        .arg(
            Arg::new("seed")
                .long("seed")
                .value_name("n")
                .default_value("0")
                .value_parser(clap::value_parser!(u64))
                .help("Seed of the input generator (function k of the module uses seed + k)"),
        )
        .arg(
            Arg::new("func")
                .long("func")
                .value_name("name")
                .help("Run only this function (default: every func.func, in order)"),
        )
        .arg(
            Arg::new("inputs")
                .long("inputs")
                .value_name("a.npy,b.npy")
                .value_delimiter(',')
                .action(ArgAction::Append)
                .help("Read the inputs of the (single) function from .npy or ONNX TensorProto .pb files"),
        )
        .arg(
            Arg::new("dump").long("dump").value_name("path").help(
                "Write the outputs as .npy (or .pb when the path ends in .pb): to this file, or `<func>.<i>.npy` in this directory",
            ),
        )
        .arg(
            Arg::new("expect")
                .long("expect")
                .value_name("out0.pb,out1.npy")
                .value_delimiter(',')
                .action(ArgAction::Append)
                .help("Check the outputs of the (single) function against these .npy or .pb files (see --rtol, --atol)"),
        )
        .arg(
            Arg::new("rtol")
                .long("rtol")
                .value_name("x")
                .value_parser(clap::value_parser!(f64))
                .default_value("1e-3")
                .help("Relative tolerance of --expect (ONNX's backend tests use 1e-3)"),
        )
        .arg(
            Arg::new("atol")
                .long("atol")
                .value_name("x")
                .value_parser(clap::value_parser!(f64))
                .default_value("1e-7")
                .help("Absolute tolerance of --expect (ONNX's backend tests use 1e-7)"),
        )
        .arg(
            Arg::new("f64")
                .long("f64")
                .action(ArgAction::SetTrue)
                .help("Oracle mode: compute every float in f64, outputs as f64"),
        )
        .arg(
            Arg::new("allow-unregistered-dialect")
                .long("allow-unregistered-dialect")
                .action(ArgAction::SetTrue)
                .help("Allow operations of dialects that are not registered"),
        )
}

fn read_input(path: &str) -> Result<(String, String), String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("could not read stdin: {e}"))?;
        Ok(("<stdin>".into(), s))
    } else {
        std::fs::read_to_string(path)
            .map(|s| (path.to_string(), s))
            .map_err(|e| format!("could not open input file '{path}': {e}"))
    }
}

/// `--sim --profile`: prints the profile; fails on a simulator error, a module with no
/// kernel, or (full runs) a checked kernel over the tolerance.
fn sim_profile(
    name: &str,
    text: &str,
    seed: u64,
    sample: Option<u64>,
    json: bool,
    tolerance: f64,
) -> ExitCode {
    match rtile_runtime::sim::profile::profile_text(name, text, seed, sample) {
        Ok(report) if report.kernels.is_empty() => {
            eprintln!("rtile-run: error: {name} holds no gpu.func kernel to profile");
            ExitCode::FAILURE
        }
        Ok(report) => {
            let text = if json { report.json() } else { report.text() };
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an internal error.
            if out
                .write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                eprintln!("rtile-run: error: could not write stdout");
                return ExitCode::FAILURE;
            }
            let worst = report
                .kernels
                .iter()
                .filter_map(|k| k.max_rel_err())
                .fold(0.0, f64::max);
            if report.kernels.iter().all(|k| k.within(tolerance)) {
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "rtile-run: error: max relative error {worst:e} exceeds the tolerance {tolerance:e}"
                );
                ExitCode::FAILURE
            }
        }
        Err(rendered) => {
            eprint!("{rendered}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("rtile-run: internal error (please report): {info}");
        std::process::exit(EXIT_INTERNAL);
    }));
    let m = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            use clap::error::ErrorKind;
            let _ = e.print();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
                _ => ExitCode::FAILURE,
            };
        }
    };
    if let Some(("cuda", sub)) = m.subcommand() {
        return match CudaArgs::from_arg_matches(sub) {
            Ok(args) if args.model.is_some() => {
                ExitCode::from(rtile_tools::cuda_model::run(&args) as u8)
            }
            Ok(args) => ExitCode::from(rtile_cuda::cli::run(&args) as u8),
            Err(e) => {
                let _ = e.print();
                ExitCode::FAILURE
            }
        };
    }
    let opts = RunCli {
        func: m.get_one::<String>("func").cloned(),
        seed: m.get_one::<u64>("seed").copied().unwrap_or(0),
        inputs: m
            .get_many::<String>("inputs")
            .map(|v| v.map(PathBuf::from).collect())
            .unwrap_or_default(),
        dump: m.get_one::<String>("dump").map(PathBuf::from),
        expect: m
            .get_many::<String>("expect")
            .map(|v| v.map(PathBuf::from).collect())
            .unwrap_or_default(),
        rtol: m.get_one::<f64>("rtol").copied().unwrap_or(1e-3),
        atol: m.get_one::<f64>("atol").copied().unwrap_or(1e-7),
        f64: m.get_flag("f64"),
        allow_unregistered: m.get_flag("allow-unregistered-dialect"),
        color: None,
    };
    let input = m
        .get_one::<String>("input")
        .map(String::as_str)
        .unwrap_or("-");
    let (name, text) = match read_input(input) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("rtile-run: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(format) = m.get_one::<String>("profile") {
        let sample = m.get_one::<u64>("profile-blocks").copied();
        let tolerance = m.get_one::<f64>("tolerance").copied().unwrap_or(1e-5);
        return sim_profile(&name, &text, opts.seed, sample, format == "json", tolerance);
    }
    if !m.get_flag("sim")
        && let Some(p) = m.get_one::<String>("model-manifest")
    {
        return write_manifest_only(&name, &text, opts.func.as_deref(), Path::new(p));
    }
    if m.get_flag("sim") {
        let tolerance = m.get_one::<f64>("tolerance").copied().unwrap_or(1e-5);
        let sim = SimCli {
            check: m.get_flag("check"),
            tolerance,
            manifest: m.get_one::<String>("model-manifest").map(PathBuf::from),
        };
        return sim_run(&opts, &sim, &name, &text);
    }
    let r = run_interpret(&opts, &name, &text);
    eprint!("{}", r.log);
    let mut out = std::io::stdout().lock();
    if out
        .write_all(r.output.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        eprintln!("rtile-run: error: could not write stdout");
        return ExitCode::FAILURE;
    }
    if r.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
