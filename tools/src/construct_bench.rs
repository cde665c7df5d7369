//! `rtile-bench construct`: how long Roller's construction takes per operator (DESIGN §8).
//!
//! The operators come from an `.mlir` file parsed with the real parser and read back with
//! `te`'s op reader and the construction's adapter — the path `--construct-rtile` takes.

use std::sync::Arc;
use std::time::Instant;

use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile_dialects::te::ir::compute_from_op;
use rtile_dialects::te::walk::{compute_ops, enclosing_func};
use rtile_passes::construct_rtile::te_adapter::expr_from_compute;
use rtile_passes::construct_rtile::{ConstructOptions, TensorExprInfo, construct};
use rtile_passes::device::Device;
use serde::Serialize;

use crate::dialect_registry;

/// An operator the adapter refused, and why.
pub type Refused = (String, String);

/// One operator of the suite, read from the IR.
pub struct SuiteOp {
    /// The enclosing function's symbol (`m0`, `c1`, ...).
    pub name: String,
    pub expr: TensorExprInfo,
}

/// Parses `text` and reads every `te.compute` through the adapter.
pub fn load_suite(name: &str, text: &str) -> Result<(Vec<SuiteOp>, Vec<Refused>), String> {
    let mut ctx = Context::new(Arc::new(dialect_registry()));
    let module = parse_str(&mut ctx, name, text)
        .map_err(|d| rtile::diagnostics::render::render_with(&ctx, &d, false))?
        .module;
    let computes = compute_ops(&ctx, module);
    let mut ops = Vec::new();
    let mut refused = Vec::new();
    let names: Vec<String> = computes
        .iter()
        .map(|&o| enclosing_func(&ctx, o).unwrap_or("?").to_string())
        .collect();
    for (i, &o) in computes.iter().enumerate() {
        // Functions with several computes (softmax, layernorm): `softmax#0`, `softmax#1`, ...
        let same: Vec<usize> = (0..names.len()).filter(|&j| names[j] == names[i]).collect();
        let func = if same.len() > 1 {
            let k = same.iter().position(|&j| j == i).unwrap_or(0);
            format!("{}#{k}", names[i])
        } else {
            names[i].clone()
        };
        let (c, _) = compute_from_op(&ctx, o).map_err(|m| format!("@{func}: {m}"))?;
        match expr_from_compute(&c) {
            Ok(expr) => ops.push(SuiteOp { name: func, expr }),
            Err(m) => refused.push((func, m)),
        }
    }
    Ok((ops, refused))
}

/// Timings of one operator on one device.
#[derive(Clone, Debug, Serialize)]
pub struct ConstructRow {
    pub device: String,
    pub op: String,
    /// Axis extents (spatial and reduction, in order).
    pub extents: Vec<u64>,
    pub dtype: String,
    pub top1_median_ms: f64,
    pub top10_median_ms: f64,
    /// Programs the top-10 construction returned.
    pub programs: usize,
    /// The top-1 program's block and thread tiles.
    pub top1_block: Vec<u64>,
    pub top1_thread: Vec<u64>,
    pub top1_est_us: f64,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct ConstructReport {
    pub benchmark: &'static str,
    pub file: String,
    pub runs: usize,
    pub rows: Vec<ConstructRow>,
    /// Geometric means over the operators, per device: `(device, top-1 ms, top-10 ms)`.
    pub geomean_ms: Vec<(String, f64, f64)>,
    /// Operators the construction cannot read (`(function, reason)`), not timed.
    pub refused: Vec<Refused>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn geomean(v: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for x in v {
        s += x.max(1e-9).ln();
        n += 1;
    }
    if n == 0 {
        f64::NAN
    } else {
        (s / n as f64).exp()
    }
}

/// Median over `runs` constructions with `top_k`, in milliseconds, and the last result.
fn time_construct(
    e: &TensorExprInfo,
    dev: &Device,
    top_k: usize,
    runs: usize,
) -> Result<(f64, rtile_passes::construct_rtile::ConstructResult), String> {
    let opts = ConstructOptions {
        top_k,
        ..ConstructOptions::default()
    };
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let r = construct(e, dev, &opts)?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        last = Some(r);
    }
    let r = last.ok_or("no run")?;
    Ok((median(&mut times), r))
}

/// Runs the benchmark.
pub fn bench_construct(
    file: &str,
    text: &str,
    devices: &[String],
    runs: usize,
) -> Result<ConstructReport, String> {
    let (ops, refused) = load_suite(file, text)?;
    let mut rows = Vec::new();
    let mut geo = Vec::new();
    for d in devices {
        let dev = Device::builtin(d).map_err(|e| e.message)?;
        let first = rows.len();
        for op in &ops {
            let (t1, _) = time_construct(&op.expr, &dev, 1, runs)
                .map_err(|m| format!("@{}: {m}", op.name))?;
            let (t10, r) = time_construct(&op.expr, &dev, 10, runs)
                .map_err(|m| format!("@{}: {m}", op.name))?;
            let best = r.programs.first();
            rows.push(ConstructRow {
                device: dev.name.clone(),
                op: op.name.clone(),
                extents: op.expr.extents(),
                dtype: op.expr.dtype.clone(),
                top1_median_ms: t1,
                top10_median_ms: t10,
                programs: r.programs.len(),
                top1_block: best.map(|p| p.block.clone()).unwrap_or_default(),
                top1_thread: best.map(|p| p.thread.clone()).unwrap_or_default(),
                top1_est_us: best.map_or(f64::NAN, |p| p.est_us),
            });
        }
        let mine = &rows[first..];
        geo.push((
            dev.name.clone(),
            geomean(mine.iter().map(|r| r.top1_median_ms)),
            geomean(mine.iter().map(|r| r.top10_median_ms)),
        ));
    }
    Ok(ConstructReport {
        benchmark: "construct",
        file: file.to_string(),
        runs,
        rows,
        geomean_ms: geo,
        refused,
    })
}

fn list(v: &[u64]) -> String {
    let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    s.join("x")
}

/// The report as a Markdown table.
pub fn format_table(r: &ConstructReport) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "construction time, median of {} runs per op ({})\n\n",
        r.runs, r.file
    ));
    s.push_str("| device | op | extents | dtype | top-1 ms | top-10 ms | programs | top-1 block / thread | est us |\n");
    s.push_str("|---|---|---|---|---:|---:|---:|---|---:|\n");
    for x in &r.rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.3} | {:.3} | {} | {} / {} | {} |\n",
            x.device,
            x.op,
            list(&x.extents),
            x.dtype,
            x.top1_median_ms,
            x.top10_median_ms,
            x.programs,
            list(&x.top1_block),
            list(&x.top1_thread),
            x.top1_est_us
        ));
    }
    s.push('\n');
    for (d, g1, g10) in &r.geomean_ms {
        s.push_str(&format!(
            "{d}: geomean top-1 {g1:.3} ms, top-10 {g10:.3} ms over {} ops\n",
            r.rows.iter().filter(|x| &x.device == d).count()
        ));
    }
    for (f, why) in &r.refused {
        s.push_str(&format!("not constructed: @{f}: {why}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str =
        "func.func @mm(%A: tensor<64x16xf32>, %B: tensor<16x32xf32>) -> tensor<64x32xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [64, 32, 16]
         : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<64x32xf32>
}
";

    #[test]
    fn suite_loads_and_benches() {
        let (ops, refused) = load_suite("small.mlir", SMALL).unwrap();
        assert!(refused.is_empty());
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0].name, "mm");
        assert_eq!(ops[0].expr.extents(), vec![64, 32, 16]);
        let r = bench_construct("small.mlir", SMALL, &["v100".into()], 1).unwrap();
        assert_eq!(r.rows.len(), 1);
        assert!(r.rows[0].programs >= 1);
        assert!(format_table(&r).contains("| v100 | mm | 64x32x16 |"));
    }
}
