//! Every scheduler on workloads written to be unlike the suites the schedulers were built
//! on (`tools/tests/scheduler_zoo/*.mlir`): a strided depthwise block at an odd map size, a
//! conv -> relu -> strided max-pool stem, attention with its heads merged through
//! `floordiv`/`mod`, a GELU MLP with a residual and LayerNorm, a squeeze-and-excitation
//! block (a gate broadcast over pixels), a column normalisation over a transpose, a grouped
//! convolution (`f floordiv 6 * 4 + c`) with swish, a nearest upsample inside a conv's
//! window, a two-output log-softmax, an f16 MLP with an f32 accumulator, 1-element axes, a
//! reversed-index average pool, an i32 matmul with a transposed max, a dilated conv with a
//! leaky relu. Each goes through Welder (`--connect` at every level), Rammer
//! (`--wavefront-pack`, H100 and V100), the Halide autoscheduler (`--autoschedule-beam`)
//! and Roller (`--construct-rtile`), then `--lower-to-gpu`, and runs in the simulator against
//! the f64 oracle of the te function (1e-5, or the rounding floor). Four of these failed
//! before session 21: the SE block had no Halide schedule, the stem's vEU did not fit a
//! V100 SM, and the grouped convolution and the head merge had no Rammer rKernel.

use std::path::{Path, PathBuf};

use rtile_runtime::sim::run_models_text;

mod common;

/// The zoo's workloads, from this crate's manifest.
fn workloads() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scheduler_zoo");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    files
}

/// The scheduler flags each workload goes through before `--lower-to-gpu`.
const SCHEDULERS: &[(&str, &str)] = &[
    ("connect", "device=h100 connect-level=none"),
    ("connect", "device=h100 connect-level=register"),
    ("connect", "device=v100"),
    ("wavefront-pack", "device=h100"),
    ("wavefront-pack", "device=v100"),
    ("autoschedule-beam", "device=h100"),
    ("construct-rtile", "device=h100"),
];

/// `text` scheduled by `(pass, options)`, lowered and simulated: `Err` with what failed.
fn check(name: &str, text: &str, (pass, options): (&str, &str)) -> Result<(), String> {
    let lowered = common::opt_flags(
        text,
        vec![
            (pass.into(), options.into()),
            ("lower-to-gpu".into(), String::new()),
        ],
    )
    .map_err(|log| format!("does not lower: {}", log.lines().next().unwrap_or("")))?;
    let runs = run_models_text(name, &lowered, 1, &[], Default::default(), None)
        .map_err(|e| format!("the simulator fails: {}", e.lines().next().unwrap_or("")))?;
    if runs.is_empty() {
        return Err("no host function after lowering".into());
    }
    for run in &runs {
        if !run.within(1e-5) {
            return Err(run.text());
        }
    }
    Ok(())
}

#[test]
fn every_scheduler_lowers_and_matches_the_oracle_on_the_zoo() {
    let files = workloads();
    assert!(files.len() >= 14, "{files:?}");
    let mut failed = Vec::new();
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).expect("the workload reads");
        for &s in SCHEDULERS {
            if let Err(e) = check(&stem, &text, s) {
                failed.push(format!("{stem} --{}=\"{}\": {e}", s.0, s.1));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
