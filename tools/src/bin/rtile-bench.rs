//! `rtile-bench`: benchmarks (not tests).
//!
//! `rtile-bench parse` generates a deterministic generic-form MLIR file (~20 MB by
//! default: functions of nested unregistered ops with regions, block arguments,
//! multi-result ops, attributes and types), checks that upstream `mlir-opt-22` accepts
//! it, then times parse+print of it, in the same run, by rtile in-process, by the
//! `rtile-opt` binary, and by `mlir-opt-22 --allow-unregistered-dialect
//! --mlir-print-op-generic`. Reports the median of N runs as a table and as JSON.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile::printer::{PrintOptions, print_op};
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
struct ParseArgs {
    /// Approximate size of the generated file, in MB (10^6 bytes).
    #[arg(long, default_value_t = 20.0)]
    size_mb: f64,
    /// Runs per tool; the median is reported.
    #[arg(long, short = 'n', default_value_t = 5)]
    runs: usize,
    /// Where to write the generated file (default: a file in the temp directory).
    #[arg(long)]
    file: Option<PathBuf>,
    /// The upstream mlir-opt to compare with.
    #[arg(long, default_value = "mlir-opt-22")]
    mlir_opt: String,
    /// The rtile-opt binary (default: next to this executable).
    #[arg(long)]
    rtile_opt: Option<PathBuf>,
    /// Also write the JSON report to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Only generate the file (and check it with mlir-opt), do not time anything.
    #[arg(long)]
    generate_only: bool,
}

/// Generates the benchmark input: deterministic, about `target` bytes.
pub fn generate(target: usize) -> String {
    let mut s = String::with_capacity(target + 4096);
    s.push_str("\"builtin.module\"() ({\n");
    let mut k = 0usize;
    while s.len() < target {
        gen_func(&mut s, k);
        k += 1;
    }
    s.push_str("}) : () -> ()\n");
    s
}

/// One function: ~2 KB of generic ops, with a loop nest three deep.
fn gen_func(s: &mut String, k: usize) {
    let t = "tensor<4x?xf32>";
    let m = "memref<8x16xf16>";
    // Writing to a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(s, "  \"bench.func\"() ({{");
    let _ = writeln!(s, "  ^bb0(%arg0: {t}, %arg1: i32, %arg2: index):");
    let _ = writeln!(
        s,
        "    %c{k} = \"bench.const\"() {{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, {}.0]> : tensor<4xf32>}} : () -> tensor<4xf32>",
        k % 97
    );
    let _ = writeln!(
        s,
        "    %s0 = \"bench.add\"(%arg1, %arg1) {{flags = [1, 2, {}], name = \"add_{k}\"}} : (i32, i32) -> i32",
        k % 13
    );
    let _ = writeln!(
        s,
        "    %p:2 = \"bench.split\"(%arg0) {{map = affine_map<(d0, d1) -> (d1, d0 + {})>}} : ({t}) -> ({t}, {m})",
        k % 7
    );
    let depth = 3;
    for d in 0..depth {
        let ind = "  ".repeat(d + 2);
        let acc_in = if d == 0 {
            "%s0".to_string()
        } else {
            format!("%acc{}", d - 1)
        };
        let _ = writeln!(s, "{ind}%l{d} = \"bench.loop\"(%arg2, {acc_in}) ({{");
        let _ = writeln!(s, "{ind}^bb0(%i{d}: index, %acc{d}: i32):");
        for j in 0..3 {
            let _ = writeln!(
                s,
                "{ind}  %v{d}_{j} = \"bench.mul\"(%acc{d}, %s0) {{overflow = #bench.flags<nsw>, step = {j} : i64}} : (i32, i32) -> i32"
            );
        }
        let _ = writeln!(
            s,
            "{ind}  %f{d} = \"bench.cast\"(%p#1, %i{d}) : ({m}, index) -> !bench.buf<{d}>"
        );
        if d + 1 < depth {
            continue;
        }
        // Innermost: yield, then close every loop from the inside out.
        for e in (0..depth).rev() {
            let ind = "  ".repeat(e + 2);
            let _ = writeln!(s, "{ind}  \"bench.yield\"(%v{e}_2) : (i32) -> ()");
            let _ = writeln!(
                s,
                "{ind}}}) {{dims = array<i64: 1, 2, {e}>, scale = 1.500000e+00 : f32}} : (index, i32) -> i32"
            );
            if e > 0 {
                // The loop result feeds the enclosing loop's ops.
                let outer = "  ".repeat(e + 1);
                let _ = writeln!(
                    s,
                    "{outer}  %r{e} = \"bench.add\"(%l{e}, %v{}_0) : (i32, i32) -> i32",
                    e - 1
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "    \"bench.return\"(%l0, %p#1, %c{k}) : (i32, {m}, tensor<4xf32>) -> ()"
    );
    let _ = writeln!(
        s,
        "  }}) {{cfg = {{a = 1 : i64, b = \"s\"}}, sym_name = \"f{k}\"}} : () -> ()"
    );
}

#[derive(Serialize)]
struct Row {
    tool: String,
    median_ms: f64,
    runs_ms: Vec<f64>,
    /// This tool's median over mlir-opt's median (lower is faster).
    ratio_vs_mlir_opt: Option<f64>,
}

#[derive(Serialize)]
struct Report {
    benchmark: &'static str,
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

/// Runs `cmd args file -o /dev/null`; `Err` with its stderr when it fails.
fn run_tool(cmd: &Path, args: &[&str], file: &Path) -> Result<Duration, String> {
    let start = Instant::now();
    let out = Process::new(cmd)
        .args(args)
        .arg(file)
        .args(["-o", "/dev/null"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("could not run {}: {e}", cmd.display()))?;
    let t = start.elapsed();
    if out.status.success() {
        Ok(t)
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let head: String = err.lines().take(10).collect::<Vec<_>>().join("\n");
        Err(format!(
            "{} failed ({}):\n{head}",
            cmd.display(),
            out.status
        ))
    }
}

/// Parse + generic print in-process; returns (time, op count).
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
    let runs = a.runs.max(1);
    let target = (a.size_mb.max(0.0) * 1e6) as usize;
    let text = generate(target);
    let file = a
        .file
        .unwrap_or_else(|| std::env::temp_dir().join("rtile-bench-parse.mlir"));
    std::fs::write(&file, &text).map_err(|e| format!("could not write {}: {e}", file.display()))?;
    let mlir_opt = resolve_in_path(&a.mlir_opt);
    let flags = ["--allow-unregistered-dialect", "--mlir-print-op-generic"];
    eprintln!(
        "generated {} ({:.1} MB); checking it with {} ...",
        file.display(),
        text.len() as f64 / 1e6,
        mlir_opt.display()
    );
    let check = run_tool(&mlir_opt, &flags, &file)?;
    if a.generate_only {
        println!(
            "{}: {} bytes, accepted by {} in {:.1} ms",
            file.display(),
            text.len(),
            mlir_opt.display(),
            ms(check)
        );
        return Ok(());
    }

    let name = file.display().to_string();
    let mut in_proc = Vec::new();
    let mut ops = 0;
    let mut bin = Vec::new();
    let mut upstream = Vec::new();
    let rtile_opt = find_rtile_opt(a.rtile_opt);
    // Interleave the tools run by run so that machine noise hits all of them alike.
    for i in 0..runs {
        let (t, n) = rtile_in_process(&name, &text)?;
        in_proc.push(ms(t));
        ops = n;
        if let Some(p) = &rtile_opt {
            bin.push(ms(run_tool(p, &flags, &file)?));
        }
        upstream.push(ms(run_tool(&mlir_opt, &flags, &file)?));
        eprintln!("run {}/{runs} done", i + 1);
    }
    let base = median(&upstream);
    let row = |tool: &str, v: Vec<f64>| {
        let m = median(&v);
        Row {
            tool: tool.to_string(),
            median_ms: m,
            ratio_vs_mlir_opt: (base > 0.0).then_some(m / base),
            runs_ms: v,
        }
    };
    let mut rows = vec![row("rtile (in-process parse+print)", in_proc)];
    if !bin.is_empty() {
        rows.push(row("rtile-opt (process)", bin));
    }
    rows.push(row("mlir-opt-22 (process)", upstream));
    let report = Report {
        benchmark: "parse+print generic",
        file: name,
        bytes: text.len(),
        ops,
        runs,
        rows,
    };

    println!(
        "parse+print of {} ({:.1} MB, {} ops), median of {} runs",
        report.file,
        report.bytes as f64 / 1e6,
        report.ops,
        runs
    );
    println!("{:<34} {:>12} {:>14}", "tool", "median ms", "vs mlir-opt");
    for r in &report.rows {
        let ratio = r
            .ratio_vs_mlir_opt
            .map(|x| format!("{x:.2}x"))
            .unwrap_or_else(|| "-".into());
        println!("{:<34} {:>12.1} {:>14}", r.tool, r.median_ms, ratio);
    }
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    println!("{json}");
    if let Some(p) = a.json {
        std::fs::write(&p, &json).map_err(|e| format!("could not write {}: {e}", p.display()))?;
    }
    Ok(())
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
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rtile-bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}
