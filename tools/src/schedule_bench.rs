//! `rtile-bench schedule`: construction against search on the same pipelines, in one run.
//!
//! Each pipeline is scheduled four ways, in-process through the pass manager: Roller's
//! construction per op (`--construct-rtile`, DESIGN §8; Zhu et al., OSDI'22 §3), Welder's
//! tile-graph connection (`--connect`; Shi et al., OSDI'23), and the Halide autoscheduler's
//! beam search greedy (`--autoschedule-beam{beam-size=1}`) and with k = 32 (Anderson et al.,
//! OOPSLA'21 §3). Every result is lowered (`--lower-to-gpu`) and run end to end in the CPU
//! GPU-simulator: its outputs are checked against the te interpreter's f64 oracle and its
//! kernels are profiled for the global-memory sectors their loads and stores request and
//! the distinct sectors they read and write (DRAM traffic behind an L2 that holds each
//! kernel's footprint; docs/simulator.md).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, WalkOrder};
use rtile::parser::parse_str;
use rtile::pass::{PassManager, PassRegistry, pipeline_from_flags};
use rtile::printer::{PrintOptions, print_op};
use rtile::verifier::verify;
use rtile_dialects::te::walk::compute_ops;
use rtile_runtime::sim::profile::{OpClass, profile_text};
use rtile_runtime::sim::run_models_text;
use serde::Serialize;

use crate::{dialect_registry, pass_registry};

/// The largest relative error against the f64 oracle that counts as a match.
pub const TOLERANCE: f64 = 1e-5;

/// The four schedulers, in report order.
pub const SCHEDULERS: [&str; 4] = ["roller", "welder", "halide-greedy", "halide-beam"];

/// One (pipeline, scheduler) row.
#[derive(Clone, Debug, Serialize)]
pub struct ScheduleRow {
    pub pipeline: String,
    pub scheduler: String,
    /// The pass's wall time, ms (Roller: `--construct-rtile` only, not `--rtile-select`).
    pub schedule_ms: Option<f64>,
    /// States the beam search featurized and costed (Halide only).
    pub states: Option<u64>,
    /// Kernel launches of the host functions.
    pub kernels: Option<usize>,
    /// Global-memory sectors requested by the loads and stores of all launches, from the
    /// simulator (every re-read counted, as without a cache).
    pub sectors: Option<u64>,
    /// Distinct global sectors read and written, summed over launches: DRAM traffic when
    /// the L2 holds each kernel's footprint.
    pub dram_sectors: Option<u64>,
    /// The scheduler's own predicted time, µs (none where it gives none).
    pub predicted_us: Option<f64>,
    /// Largest relative error of any output against the f64 oracle.
    pub max_rel_err: Option<f64>,
    /// Whether `max_rel_err` < [`TOLERANCE`].
    pub matched: bool,
    /// Why the scheduler, the lowering or the simulator refused or failed.
    pub error: Option<String>,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct ScheduleReport {
    pub benchmark: &'static str,
    pub device: String,
    pub rows: Vec<ScheduleRow>,
}

/// The flag and options that schedule for `scheduler` on `device`.
fn scheduler_flag(scheduler: &str, device: &str) -> (String, String) {
    let (flag, opts) = match scheduler {
        "roller" => ("construct-rtile", format!("device={device}")),
        "welder" => ("connect", format!("device={device}")),
        "halide-greedy" => ("autoschedule-beam", format!("device={device} beam-size=1")),
        _ => ("autoschedule-beam", format!("device={device}")),
    };
    (flag.to_string(), opts)
}

/// The first line of a rendered diagnostic: a table cell, not a report.
fn one_line(ctx: &Context, d: &Diagnostic) -> String {
    let text = rtile::diagnostics::render::render_with(ctx, d, false);
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("failed")
        .trim()
        .to_string()
}

/// Runs the passes of `flags` on `module`; the wall time, ms.
fn run_flags(
    ctx: &mut Context,
    passes: &PassRegistry,
    module: OpId,
    flags: &[(String, String)],
) -> Result<f64, String> {
    let root =
        pipeline_from_flags(ctx, passes, "builtin.module", flags).map_err(|d| one_line(ctx, &d))?;
    let mut pm = PassManager::new(root);
    pm.config.print_reports = false;
    let start = Instant::now();
    let r = pm.run_all_diagnostics(ctx, module);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    // The table reports what each scheduler did; per-op remarks would only interleave with it.
    ctx.take_emitted();
    match r {
        Ok(()) => Ok(ms),
        Err(ds) => Err(ds
            .first()
            .map_or_else(|| "pass failed".to_string(), |d| one_line(ctx, d))),
    }
}

/// Sums the numeric attribute `name` over the ops under `module`; none when no op has it.
fn sum_attr(ctx: &Context, module: OpId, name: &str) -> Option<f64> {
    let mut total = None;
    ctx.walk(module, WalkOrder::PreOrder, &mut |_, op| {
        if let Some(a) = ctx.attr(op, name)
            && let Some(x) = a.as_float().or_else(|| a.as_int().map(|i| i as f64))
        {
            *total.get_or_insert(0.0) += x;
        }
    });
    total
}

/// Roller's prediction: the chosen programs' `est_us`, summed over the te computes.
fn roller_estimate(ctx: &Context, module: OpId) -> Result<Option<f64>, String> {
    let mut total = None;
    for op in compute_ops(ctx, module) {
        let p = match rtile_dialects::rtile::program(ctx, op)? {
            Some(p) => Some(p),
            None => rtile_dialects::rtile::programs(ctx, op)?.into_iter().next(),
        };
        if let Some(p) = p {
            *total.get_or_insert(0.0) += p.est_us;
        }
    }
    Ok(total)
}

/// Schedules, lowers and simulates `text` with `scheduler`; errors fill the row's `error`.
fn bench_one(name: &str, text: &str, scheduler: &str, device: &str, seed: u64) -> ScheduleRow {
    let mut row = ScheduleRow {
        pipeline: name.to_string(),
        scheduler: scheduler.to_string(),
        schedule_ms: None,
        states: None,
        kernels: None,
        sectors: None,
        dram_sectors: None,
        predicted_us: None,
        max_rel_err: None,
        matched: false,
        error: None,
    };
    if let Err(e) = fill_row(&mut row, name, text, scheduler, device, seed) {
        row.error = Some(e);
    }
    row
}

fn fill_row(
    row: &mut ScheduleRow,
    name: &str,
    text: &str,
    scheduler: &str,
    device: &str,
    seed: u64,
) -> Result<(), String> {
    let passes = pass_registry();
    let mut ctx = Context::new(Arc::new(dialect_registry()));
    let module = parse_str(&mut ctx, name, text)
        .map_err(|d| one_line(&ctx, &d))?
        .module;
    if let Err(ds) = verify(&ctx, module) {
        return Err(ds
            .first()
            .map_or_else(|| "invalid input".into(), |d| one_line(&ctx, d)));
    }
    let flag = scheduler_flag(scheduler, device);
    let ms = run_flags(&mut ctx, &passes, module, std::slice::from_ref(&flag))
        .map_err(|e| format!("{}: {e}", flag.0))?;
    row.schedule_ms = Some(ms);
    if scheduler == "roller" {
        // The construction leaves ops it cannot read unchanged (a remark): not one kernel
        // per op, so Roller refuses the pipeline.
        let computes = compute_ops(&ctx, module);
        let left = computes
            .iter()
            .filter(|&&op| ctx.attr(op, rtile_dialects::rtile::PROGRAMS).is_none())
            .count();
        if left > 0 {
            return Err(format!(
                "construct-rtile left {left} of {} te ops unchanged",
                computes.len()
            ));
        }
        run_flags(
            &mut ctx,
            &passes,
            module,
            &[("rtile-select".into(), String::new())],
        )
        .map_err(|e| format!("rtile-select: {e}"))?;
        row.predicted_us = roller_estimate(&ctx, module)?;
    } else if scheduler.starts_with("halide") {
        row.states =
            sum_attr(&ctx, module, rtile_passes::autoschedule_beam::pass::STATES).map(|x| x as u64);
        row.predicted_us = sum_attr(&ctx, module, rtile_passes::autoschedule_beam::pass::COST);
    }
    // Welder's tilegraph kernels carry traffic and footprints, no time estimate: `-`.
    run_flags(
        &mut ctx,
        &passes,
        module,
        &[("lower-to-gpu".into(), String::new())],
    )
    .map_err(|e| format!("lower-to-gpu: {e}"))?;
    let lowered = print_op(&ctx, module, &PrintOptions::default());
    let files = rtile_onnx::tensor_file::FILES;
    let models = run_models_text(name, &lowered, seed, &[], files, None)
        .map_err(|e| format!("simulator: {}", e.lines().next().unwrap_or("failed")))?;
    if models.is_empty() {
        return Err("simulator: no host function carrying rtile.te after lowering".into());
    }
    let mut launches: HashMap<String, u64> = HashMap::new();
    for m in &models {
        for (_, s) in m.manifest.launches() {
            *launches.entry(s.kernel.clone()).or_default() += 1;
        }
    }
    row.kernels = Some(launches.values().sum::<u64>() as usize);
    let err = models.iter().map(|m| m.max_rel_err()).fold(0.0, f64::max);
    row.max_rel_err = Some(err);
    row.matched = err < TOLERANCE;
    let prof = profile_text(name, &lowered, seed, None)
        .map_err(|e| format!("profile: {}", e.lines().next().unwrap_or("failed")))?;
    let (mut sectors, mut dram) = (0, 0);
    for k in &prof.kernels {
        let n = launches.get(&k.kernel).copied().unwrap_or(0);
        let per_launch = k.total(OpClass::GlobalLd).sectors + k.total(OpClass::GlobalSt).sectors;
        sectors += per_launch * n;
        dram += (k.unique_sectors_read + k.unique_sectors_written) * n;
    }
    row.sectors = Some(sectors);
    row.dram_sectors = Some(dram);
    Ok(())
}

/// Runs the benchmark on `(name, text)` pipelines for `device` with the input seed `seed`.
pub fn bench_schedule(pipelines: &[(String, String)], device: &str, seed: u64) -> ScheduleReport {
    let mut rows = Vec::new();
    for (name, text) in pipelines {
        for s in SCHEDULERS {
            rows.push(bench_one(name, text, s, device, seed));
        }
    }
    ScheduleReport {
        benchmark: "schedule: construction vs search",
        device: device.to_string(),
        rows,
    }
}

/// The report as a table, one row per (pipeline, scheduler).
pub fn format_table(r: &ScheduleReport) -> String {
    let mut s = format!(
        "schedulers on {} (scheduling ms: the pass only; sectors: simulator, requested by all launches' loads and stores; DRAM sectors: simulator, distinct per launch, behind an L2 that holds the kernel; predicted: the scheduler's own estimate)\n",
        r.device
    );
    s.push_str(&format!(
        "{:<24} {:<14} {:>10} {:>8} {:>8} {:>10} {:>12} {:>13} {:>10} {:>8}\n",
        "pipeline",
        "scheduler",
        "sched ms",
        "states",
        "kernels",
        "sectors",
        "DRAM sectors",
        "predicted us",
        "max err",
        "matched"
    ));
    let opt = |x: Option<String>| x.unwrap_or_else(|| "-".into());
    for row in &r.rows {
        let pipeline = std::path::Path::new(&row.pipeline)
            .file_stem()
            .map_or(row.pipeline.clone(), |n| n.to_string_lossy().into_owned());
        if let Some(e) = &row.error {
            s.push_str(&format!(
                "{pipeline:<24} {:<14} {:>10} failed: {e}\n",
                row.scheduler,
                opt(row.schedule_ms.map(|x| format!("{x:.2}")))
            ));
            continue;
        }
        s.push_str(&format!(
            "{pipeline:<24} {:<14} {:>10} {:>8} {:>8} {:>10} {:>12} {:>13} {:>10} {:>8}\n",
            row.scheduler,
            opt(row.schedule_ms.map(|x| format!("{x:.2}"))),
            opt(row.states.map(|x| x.to_string())),
            opt(row.kernels.map(|x| x.to_string())),
            opt(row.sectors.map(|x| x.to_string())),
            opt(row.dram_sectors.map(|x| x.to_string())),
            opt(row.predicted_us.map(|x| format!("{x:.3}"))),
            opt(row.max_rel_err.map(|x| format!("{x:.1e}"))),
            if row.matched { "yes" } else { "no" }
        ));
    }
    s
}
