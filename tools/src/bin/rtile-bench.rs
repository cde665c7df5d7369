//! `rtile-bench`: benchmarks (not tests).
//!
//! `rtile-bench parse` generates deterministic generic-form MLIR files (~20 MB by default)
//! of one or more shapes (`--shape mixed,nested,op-dense`: see `rtile_tools::parse_bench`),
//! checks that upstream `mlir-opt-22` accepts each, then times parse+print of it, in the
//! same run, by rtile in-process, by the `rtile-opt` binary, and by `mlir-opt-22
//! --allow-unregistered-dialect --mlir-print-op-generic`, and takes each process's peak
//! resident set. Reports medians of N paired runs as a table and as JSON.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile::printer::{PrintOptions, print_op};
use rtile_tools::parse_bench::{self, Shape};
use serde::Serialize;

#[derive(Parser)]
#[command(name = "rtile-bench", about = "rtile benchmarks")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Parse+print speed on a generated generic-form file, against mlir-opt-22.
    Parse(ParseArgs),
    /// Roller construction time per operator (top-1 and top-10), no GPU needed.
    Construct(ConstructArgs),
    /// Roller, Welder and the Halide beam search (greedy, k=32) on the same pipelines:
    /// scheduling time, kernels, simulated DRAM sectors, predictions, correctness.
    Schedule(ScheduleArgs),
    /// Per-kernel cost terms and times of the Halide search's schedules (a records file
    /// for `retrain`; the time is the model's prediction, or with --measured a GPU's).
    Records(RecordsArgs),
    /// Fit the Halide cost model's coefficients to a records file by non-negative least
    /// squares; writes a weights file for `--autoschedule-beam="weights=FILE"`; with
    /// --hold-out or --leave-one-out, the accuracy on pipelines the fit did not see.
    Retrain(RetrainArgs),
    /// A profile of `--connect`'s tile configurations (`--connect="profile=FILE"`) from
    /// the per-kernel GPU times of a module lowered from --connect's kernels.
    ConnectProfile(ConnectProfileArgs),
    /// Internal to `parse`: parse+print FILE in this process and print `ms ops` on stdout.
    /// `parse` runs it as a child so that its own memory stays small: a child's peak RSS
    /// counts its parent's RSS at fork, so every tool is spawned from a small process.
    #[command(hide = true)]
    ParseOnce { file: PathBuf },
}

#[derive(clap::Args)]
struct ConstructArgs {
    /// The operator suite (te.compute ops, custom or generic form).
    #[arg(long, default_value = "bench/ops/roller-table1.mlir")]
    ops: PathBuf,
    /// Built-in devices to construct for (repeat or comma-separate).
    #[arg(long, value_delimiter = ',', default_values_t = ["v100".to_string(), "h100".to_string()])]
    device: Vec<String>,
    /// Runs per op and top-k; the median is reported (at least 20 recommended).
    #[arg(long, short = 'n', default_value_t = 21)]
    runs: usize,
    /// Also write the JSON report to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn bench_construct(a: ConstructArgs) -> Result<(), String> {
    use rtile_tools::construct_bench;
    let text = std::fs::read_to_string(&a.ops)
        .map_err(|e| format!("cannot read {}: {e}", a.ops.display()))?;
    let name = a.ops.display().to_string();
    let r = construct_bench::bench_construct(&name, &text, &a.device, a.runs)?;
    print!("{}", construct_bench::format_table(&r));
    if let Some(j) = &a.json {
        let body = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
        std::fs::write(j, body).map_err(|e| format!("cannot write {}: {e}", j.display()))?;
    }
    Ok(())
}

#[derive(clap::Args)]
struct ScheduleArgs {
    /// Pipeline files (default: every bench/pipelines/*_small.mlir).
    pipelines: Vec<PathBuf>,
    /// Built-in device to schedule for.
    #[arg(long, default_value = "v100")]
    device: String,
    /// Seed of the simulator's inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

fn bench_schedule(a: ScheduleArgs) -> Result<(), String> {
    use rtile_tools::schedule_bench;
    rtile_passes::device::Device::builtin(&a.device).map_err(|e| e.message)?;
    let files = if a.pipelines.is_empty() {
        let dir = Path::new("bench/pipelines");
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read {}: {e} (give pipeline files)", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with("_small.mlir"))
            .collect();
        v.sort();
        v
    } else {
        a.pipelines
    };
    let mut inputs = Vec::new();
    for f in &files {
        let text =
            std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        inputs.push((f.display().to_string(), text));
    }
    let r = schedule_bench::bench_schedule(&inputs, &a.device, a.seed);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", schedule_bench::format_table(&r));
    }
    Ok(())
}

#[derive(clap::Args)]
struct RecordsArgs {
    /// Pipeline files (te functions).
    #[arg(required = true)]
    pipelines: Vec<PathBuf>,
    /// Built-in device to schedule for.
    #[arg(long, default_value = "v100")]
    device: String,
    /// Beam sizes to schedule with (comma-separated); each schedule's kernels are records.
    #[arg(long, value_delimiter = ',', default_values_t = [1usize, 32])]
    beam: Vec<usize>,
    /// Times measured on a GPU instead of the model's: DIR/<pipeline>.<variant>.steps.json
    /// (variant halide-greedy for beam 1, halide-beam for beam 32), each launch matched to
    /// the search's kernel through the lowering (`beam.root`).
    #[arg(long, value_name = "DIR")]
    measured: Option<PathBuf>,
    /// Search (and, with --measured, relower) with this weights file's coefficients
    /// instead of the device's: those the measured modules were searched with.
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// Where to write the records (default: standard output).
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
}

fn bench_records(a: RecordsArgs) -> miette::Result<()> {
    if a.beam.contains(&0) {
        return Err(miette::miette!("--beam: a beam size is at least 1"));
    }
    let mut inputs = Vec::new();
    for f in &a.pipelines {
        let text = std::fs::read_to_string(f)
            .map_err(|e| miette::miette!("cannot read {}: {e}", f.display()))?;
        inputs.push((f.display().to_string(), text));
    }
    let w = a.weights.as_deref();
    let out = match &a.measured {
        Some(dir) => {
            rtile_tools::measured::write_measured_records(&inputs, &a.device, &a.beam, dir, w)?
        }
        None => rtile_tools::retrain::write_records(&inputs, &a.device, &a.beam, w)?,
    };
    match &a.output {
        Some(p) => {
            std::fs::write(p, out).map_err(|e| miette::miette!("cannot write {}: {e}", p.display()))
        }
        None => {
            print!("{out}");
            Ok(())
        }
    }
}

#[derive(clap::Args)]
struct RetrainArgs {
    /// The records file (`rtile-bench records`, or measured times in its layout).
    records: PathBuf,
    /// Built-in device whose defaults fill coefficients the records do not determine.
    #[arg(long, default_value = "v100")]
    device: String,
    /// Where to write the weights file (TOML).
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Pipelines (file stems, comma-separated) left out of the fit: the fit is on the
    /// others (and is the weights file), and its accuracy on these is printed against the
    /// device-derived coefficients'.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "PIPELINES",
        conflicts_with = "leave_one_out"
    )]
    hold_out: Vec<String>,
    /// Also fit once per pipeline without it and print each pipeline's accuracy, and the
    /// pooled one, with the device-derived and the fitted coefficients (the weights file is
    /// the fit on every record).
    #[arg(long)]
    leave_one_out: bool,
    /// Compare with the six-term device-derived model (the block term at its derived
    /// value) instead of the shipped defaults (block = 0); it also fills what the records
    /// do not determine.
    #[arg(long)]
    derived_block: bool,
}

#[derive(clap::Args)]
struct ConnectProfileArgs {
    /// The lowered module that ran (`rtile-opt M --connect=device=D --lower-to-gpu`).
    lowered: PathBuf,
    /// Per-kernel times of its host functions (`rtile-run cuda --model ... --per-kernel FILE`).
    #[arg(long, required = true, num_args = 1..)]
    steps: Vec<PathBuf>,
    /// The device the kernels ran on (a built-in device name).
    #[arg(long)]
    device: String,
    /// Where to write the profile.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Add to the profile already at --output (the same configurations replaced) instead
    /// of writing a new one.
    #[arg(long)]
    merge: bool,
}

fn bench_connect_profile(a: ConnectProfileArgs) -> miette::Result<()> {
    let out = a.output.display().to_string();
    let base = if a.merge && a.output.exists() {
        Some(
            rtile_passes::connect::profile::ConnectProfile::load(&out)
                .map_err(|m| miette::miette!("{m}"))?,
        )
    } else {
        None
    };
    let p = rtile_tools::connect_profile::connect_profile(&a.lowered, &a.steps, &a.device, base)?;
    let text = p.to_toml().map_err(|m| miette::miette!("{m}"))?;
    std::fs::write(&a.output, text).map_err(|e| miette::miette!("{out}: {e}"))?;
    eprintln!(
        "{out}: {} configurations timed on {}",
        p.kernel.len(),
        p.device
    );
    Ok(())
}

fn bench_retrain(a: RetrainArgs) -> miette::Result<()> {
    use rtile_tools::{holdout, retrain};
    let name = a.records.display().to_string();
    let text = std::fs::read_to_string(&a.records)
        .map_err(|e| miette::miette!("cannot read {name}: {e}"))?;
    let recs = retrain::parse_records(&name, &text)?;
    let base = retrain::base_coefficients(&a.device, a.derived_block)
        .map_err(|m| miette::miette!("{m}"))?;
    let (fit, fitted_on, report) = if a.hold_out.is_empty() {
        // Leave-one-out first: its refusals name the fold.
        let report = if a.leave_one_out {
            let (rows, before, after) = holdout::leave_one_out(&recs, &base)
                .map_err(|m| miette::miette!("{m} (in {name})"))?;
            holdout::format_leave_one_out(&rows, &before, &after)
        } else {
            String::new()
        };
        let fit = retrain::retrain(&recs, &base).map_err(|m| miette::miette!("{m} (in {name})"))?;
        (fit, recs.len(), report)
    } else {
        let h = holdout::hold_out(&recs, &a.hold_out, &base)
            .map_err(|m| miette::miette!("{m} (in {name})"))?;
        let report = holdout::format_hold_out(&h);
        (h.fit.clone(), h.train.0, report)
    };
    std::fs::write(&a.output, retrain::weights_file(&fit, fitted_on, &a.device))
        .map_err(|e| miette::miette!("cannot write {}: {e}", a.output.display()))?;
    print!("{}{report}", retrain::summary(&fit, &base));
    Ok(())
}

#[derive(clap::Args)]
struct ParseArgs {
    /// Approximate size of each generated file, in MB (10^6 bytes).
    #[arg(long, default_value_t = 20.0)]
    size_mb: f64,
    /// The shapes of file to generate and time (repeat or comma-separate).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Shape::Mixed])]
    shape: Vec<Shape>,
    /// Runs per tool; the median is reported.
    #[arg(long, short = 'n', default_value_t = 5)]
    runs: usize,
    /// Directory for the generated files, `<shape>.mlir` (default: the temp directory).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The upstream mlir-opt to compare with.
    #[arg(long, default_value = "mlir-opt-22")]
    mlir_opt: String,
    /// The rtile-opt binary (default: next to this executable).
    #[arg(long)]
    rtile_opt: Option<PathBuf>,
    /// Also write the JSON report to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Only generate the files (and check them with mlir-opt), do not time anything.
    #[arg(long)]
    generate_only: bool,
}

#[derive(Serialize)]
struct Row {
    tool: String,
    median_ms: f64,
    runs_ms: Vec<f64>,
    /// This tool's median time over mlir-opt's (lower is faster).
    ratio_vs_mlir_opt: Option<f64>,
    /// Median peak resident set of the process, in MiB (none for the in-process row).
    median_max_rss_mib: Option<f64>,
    /// Median over runs of this run's peak RSS over mlir-opt's in the same pair.
    rss_ratio_vs_mlir_opt: Option<f64>,
}

#[derive(Serialize)]
struct Report {
    benchmark: &'static str,
    shape: Shape,
    file: String,
    bytes: usize,
    ops: usize,
    runs: usize,
    rows: Vec<Row>,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Parse + generic print in this process; returns (time, op count).
fn rtile_in_process(name: &str, text: &str) -> Result<(Duration, usize), String> {
    let registry = Arc::new(rtile_tools::dialect_registry());
    let start = Instant::now();
    let mut ctx = Context::new(registry);
    ctx.allow_unregistered = true;
    let out = parse_str(&mut ctx, name, text).map_err(|d| {
        let mut c = Context::default();
        c.sources = ctx.sources.clone();
        rtile::diagnostics::render::render_with(&c, &d, false)
    })?;
    let printed = print_op(
        &ctx,
        out.module,
        &PrintOptions {
            generic: true,
            ..PrintOptions::default()
        },
    );
    let t = start.elapsed();
    std::hint::black_box(printed.len());
    Ok((t, ctx.num_ops()))
}

/// `rtile-bench parse-once FILE`: the in-process measurement, printed as `ms ops`.
fn parse_once(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("could not read {}: {e}", file.display()))?;
    let (t, ops) = rtile_in_process(&file.display().to_string(), &text)?;
    println!("{} {ops}", ms(t));
    Ok(())
}

/// Runs `parse-once` in a child: (its in-process time, op count).
fn in_process_child(file: &Path) -> Result<(Duration, usize), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(&exe)
        .arg("parse-once")
        .arg(file)
        .output()
        .map_err(|e| format!("could not run {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    let ms: f64 = words
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or("bad parse-once output")?;
    let ops: usize = words
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or("bad parse-once output")?;
    Ok((Duration::from_secs_f64(ms / 1000.0), ops))
}

fn find_rtile_opt(explicit: Option<PathBuf>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p);
    }
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.join("rtile-opt");
    p.exists().then_some(p)
}

fn resolve_in_path(cmd: &str) -> PathBuf {
    if cmd.contains('/') {
        return PathBuf::from(cmd);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path).chain([PathBuf::from("/usr/lib/llvm-22/bin")]) {
        let p = dir.join(cmd);
        if p.is_file() {
            return p;
        }
    }
    PathBuf::from(cmd)
}

fn bench_parse(a: ParseArgs) -> Result<(), String> {
    let target = (a.size_mb.max(0.0) * 1e6) as usize;
    let dir = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    let mlir_opt = resolve_in_path(&a.mlir_opt);
    let rtile_opt = find_rtile_opt(a.rtile_opt.clone());
    let mut reports = Vec::new();
    for &shape in &a.shape {
        let text = parse_bench::generate(shape, target);
        let file = dir.join(format!("rtile-bench-parse-{}.mlir", shape.name()));
        std::fs::write(&file, &text)
            .map_err(|e| format!("could not write {}: {e}", file.display()))?;
        eprintln!(
            "generated {} ({:.1} MB); checking it with {} ...",
            file.display(),
            text.len() as f64 / 1e6,
            mlir_opt.display()
        );
        let check = parse_bench::run_measured(&mlir_opt, &FLAGS, &file)?;
        if a.generate_only {
            println!(
                "{}: {} bytes, accepted by {} in {:.1} ms",
                file.display(),
                text.len(),
                mlir_opt.display(),
                ms(check.wall)
            );
            continue;
        }
        // Keep this process small while it spawns the measured ones (see `ParseOnce`).
        let bytes = text.len();
        drop(text);
        let report = time_one(shape, &file, bytes, &mlir_opt, rtile_opt.as_deref(), a.runs)?;
        print_report(&report);
        reports.push(report);
    }
    if reports.is_empty() {
        return Ok(());
    }
    let json = serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?;
    println!("{json}");
    if let Some(p) = a.json {
        std::fs::write(&p, &json).map_err(|e| format!("could not write {}: {e}", p.display()))?;
    }
    Ok(())
}

const FLAGS: [&str; 2] = ["--allow-unregistered-dialect", "--mlir-print-op-generic"];

/// Times one generated file: the tools interleaved run by run so that machine noise hits
/// all of them alike, each process's time and memory paired with mlir-opt's of the same run.
fn time_one(
    shape: Shape,
    file: &Path,
    bytes: usize,
    mlir_opt: &Path,
    rtile_opt: Option<&Path>,
    runs: usize,
) -> Result<Report, String> {
    let runs = runs.max(1);
    let name = file.display().to_string();
    let (mut in_proc, mut bin, mut upstream) = (Vec::new(), Vec::new(), Vec::new());
    let mut ops = 0;
    for i in 0..runs {
        let (t, n) = in_process_child(file)?;
        in_proc.push(ms(t));
        ops = n;
        if let Some(p) = rtile_opt {
            bin.push(parse_bench::run_measured(p, &FLAGS, file)?);
        }
        upstream.push(parse_bench::run_measured(mlir_opt, &FLAGS, file)?);
        eprintln!("{}: run {}/{runs} done", shape.name(), i + 1);
    }
    let up_ms: Vec<f64> = upstream.iter().map(|c| ms(c.wall)).collect();
    let base = median(&up_ms);
    let time_row = |tool: &str, v: Vec<f64>| Row {
        tool: tool.to_string(),
        median_ms: median(&v),
        ratio_vs_mlir_opt: (base > 0.0).then_some(median(&v) / base),
        runs_ms: v,
        median_max_rss_mib: None,
        rss_ratio_vs_mlir_opt: None,
    };
    let process_row = |tool: &str, costs: &[parse_bench::ProcessCost]| {
        let mut r = time_row(tool, costs.iter().map(|c| ms(c.wall)).collect());
        let rss: Vec<f64> = costs.iter().map(|c| mib(c.max_rss_kib)).collect();
        r.median_max_rss_mib = Some(median(&rss));
        let pairs: Vec<f64> = costs
            .iter()
            .zip(&upstream)
            .map(|(c, u)| c.max_rss_kib as f64 / u.max_rss_kib.max(1) as f64)
            .collect();
        r.rss_ratio_vs_mlir_opt = Some(median(&pairs));
        r
    };
    let mut rows = vec![time_row("rtile (in-process parse+print)", in_proc)];
    if !bin.is_empty() {
        rows.push(process_row("rtile-opt (process)", &bin));
    }
    rows.push(process_row("mlir-opt-22 (process)", &upstream));
    Ok(Report {
        benchmark: "parse+print generic",
        shape,
        file: name,
        bytes,
        ops,
        runs,
        rows,
    })
}

fn print_report(report: &Report) {
    println!(
        "parse+print of {} ({}, {:.1} MB, {} ops), median of {} runs",
        report.file,
        report.shape.name(),
        report.bytes as f64 / 1e6,
        report.ops,
        report.runs
    );
    println!(
        "{:<34} {:>10} {:>12} {:>13} {:>12}",
        "tool", "median ms", "vs mlir-opt", "peak RSS MiB", "vs mlir-opt"
    );
    let opt = |x: Option<f64>, f: &dyn Fn(f64) -> String| x.map(f).unwrap_or_else(|| "-".into());
    for r in &report.rows {
        println!(
            "{:<34} {:>10.1} {:>12} {:>13} {:>12}",
            r.tool,
            r.median_ms,
            opt(r.ratio_vs_mlir_opt, &|x| format!("{x:.2}x")),
            opt(r.median_max_rss_mib, &|x| format!("{x:.1}")),
            opt(r.rss_ratio_vs_mlir_opt, &|x| format!("{x:.2}x")),
        );
    }
}

/// The exit code of a subcommand that reports errors as miette diagnostics.
fn miette_exit(r: miette::Result<()>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(r) => {
            eprintln!("{r:?}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("rtile-bench: internal error (please report): {info}");
        std::process::exit(70);
    }));
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Parse(a) => bench_parse(a),
        Cmd::Construct(a) => bench_construct(a),
        Cmd::Schedule(a) => bench_schedule(a),
        Cmd::Records(a) => return miette_exit(bench_records(a)),
        Cmd::Retrain(a) => return miette_exit(bench_retrain(a)),
        Cmd::ConnectProfile(a) => return miette_exit(bench_connect_profile(a)),
        Cmd::ParseOnce { file } => parse_once(&file),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rtile-bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}
