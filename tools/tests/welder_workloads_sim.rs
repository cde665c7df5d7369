//! Issue 14's "every fused kernel of every workload equals the unfused te chain": each
//! simulator-size Welder workload (`bench/models/welder/*-sim.mlir`: LayerNorm, softmax,
//! BERT layers, MobileNetV2 blocks, the ResNet bottleneck, the NeRF MLP, conv -> bias ->
//! relu) goes through `--connect` at every connect level (Welder-none, -base, full Welder)
//! for two devices, then `--lower-to-gpu` (in-process), and runs in the simulator: the
//! function whole against the f64 oracle of the unfused chain, and each kernel alone
//! against its members' chain, both within 1e-5 and with no simulator error. Each fused
//! level launches fewer kernels than Welder-none.

use std::path::{Path, PathBuf};

use rtile_runtime::sim::{run_check_text, run_models_text};

mod common;

/// The workloads' directory, from this crate's manifest.
fn workloads() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/models/welder");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with("-sim.mlir"))
        .collect();
    files.sort();
    files
}

/// `--connect="device=<device> connect-level=<level>" --lower-to-gpu` on `text`.
fn lower(text: &str, device: &str, level: &str) -> String {
    common::opt_flags(
        text,
        vec![
            (
                "connect".into(),
                format!("device={device} connect-level={level}"),
            ),
            ("lower-to-gpu".into(), String::new()),
        ],
    )
    .unwrap_or_else(|log| panic!("{device} {level}: the workload does not lower:\n{log}"))
}

/// Runs the lowered module whole and kernel by kernel; the kernels launched.
fn simulate(name: &str, lowered: &str) -> usize {
    let runs = run_models_text("w.gpu.mlir", lowered, 3, &[], Default::default(), None)
        .unwrap_or_else(|e| panic!("{name}: the simulator fails: {e:?}"));
    let [run] = &runs[..] else {
        panic!("{name}: one host function, got {}", runs.len())
    };
    assert!(run.within(1e-5), "{name}: {}", run.text());
    let report = run_check_text("w.gpu.mlir", lowered, 5)
        .unwrap_or_else(|e| panic!("{name}: a kernel fails: {e:?}"));
    for k in &report.kernels {
        assert!(k.within(1e-5), "{name}: {}: {:?}", k.kernel, k.outputs);
    }
    run.manifest.steps.len()
}

/// Every workload but those in `skip` on `device` at the three levels: each fused level
/// launches fewer kernels than Welder-none (every workload is several te ops that
/// `--connect` fuses at both levels).
fn check_device(device: &str, skip: &[&str]) {
    let files = workloads();
    // The nine workloads of issue 14, item 6, at simulator size.
    assert!(files.len() >= 9, "{files:?}");
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        if skip.contains(&stem.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("the workload reads");
        let none = simulate(
            &format!("{stem} {device} none"),
            &lower(&text, device, "none"),
        );
        for level in ["register", "shared"] {
            let name = format!("{stem} {device} {level}");
            let kernels = simulate(&name, &lower(&text, device, level));
            assert!(kernels < none, "{name}: {kernels} kernels, {none} unfused");
        }
    }
}

#[test]
fn every_workload_fuses_and_matches_the_unfused_chain_on_v100() {
    check_device("v100", &[]);
}

#[test]
fn every_workload_fuses_and_matches_the_unfused_chain_on_h100() {
    // The sequence-64 BERT layer is the sequence-16 one's ops at 4x the rows; its h100
    // shared-level kernel alone takes more simulator time than all the others together.
    check_device("h100", &["bert-layer-512-sim"]);
}
