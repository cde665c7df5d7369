//! Packed programs run whole in the simulator (Rammer, OSDI'20 §4.1.3; digest §7.18):
//! `--wavefront-pack` then `--lower-to-gpu` gives one persistent kernel per rProgram, and
//! the simulator (blocks interleaved, spin-waits yielding) must compute exactly what the
//! same kernels compute launched one per operator, and match the f64 oracle. On the
//! simulator-sized Rammer workloads (bench/models/small) and on random NASBench-like
//! graphs (≤ 9 ops, ≤ 7 edges between them, §5.2.5). A program that launches more blocks
//! than can be co-resident is refused with both numbers.

use proptest::prelude::*;
use rtile_runtime::sim::run_models_text;
use rtile_tools::{OptOptions, Pipeline, run_opt};

fn opt(text: &str, passes: &[(&str, &str)]) -> Result<String, String> {
    let opts = OptOptions {
        pipeline: Pipeline::Flags(
            passes
                .iter()
                .map(|(p, o)| (p.to_string(), o.to_string()))
                .collect(),
        ),
        color: Some(false),
        ..OptOptions::default()
    };
    let out = run_opt(&opts, "in.mlir", text.to_string());
    if out.success {
        Ok(out.output)
    } else {
        Err(out.log)
    }
}

/// The packed module without its `vdevice` ops: the same computes under the same
/// rPrograms, which `--lower-to-gpu` then lowers one kernel per compute.
fn unpacked(packed: &str) -> String {
    let mut out = String::new();
    let mut in_program = false;
    for line in packed.lines() {
        if in_program {
            in_program = !line.trim_start().starts_with(']');
            continue;
        }
        if line.trim_start().starts_with("vdevice.program") {
            in_program = true;
            continue;
        }
        if line.trim_start().starts_with("vdevice.") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Lowers `te` packed and one kernel per compute, runs both whole in the simulator on the
/// same inputs; returns (packed launches, per-op launches). Asserts equal outputs (the
/// kernels are the same code, so bit for bit: a packed rTask carries the cross-thread split
/// the ordinary lowering gives its compute, `persistent::RTaskShape`, so the per-op kernels,
/// lowered with the default options, split the same reductions across the same lanes: the
/// same summation order) and the oracle within 1e-4.
fn packed_equals_per_op(te: &str, device: &str) -> (usize, usize) {
    let packed = opt(te, &[("wavefront-pack", &format!("device={device}"))])
        .unwrap_or_else(|e| panic!("wavefront-pack: {e}\n{te}"));
    let lowered = opt(&packed, &[("lower-to-gpu", "")])
        .unwrap_or_else(|e| panic!("lower-to-gpu (packed): {e}\n{packed}"));
    assert!(lowered.contains("rtile.persistent"), "no persistent kernel");
    let per_op = opt(&unpacked(&packed), &[("lower-to-gpu", "")])
        .unwrap_or_else(|e| panic!("lower-to-gpu (per op): {e}"));
    assert!(!per_op.contains("rtile.persistent"));
    let a = run_models_text("packed.mlir", &lowered, 7, &[], Default::default(), None)
        .unwrap_or_else(|e| panic!("packed run: {e}\n{packed}"));
    let b = run_models_text("per-op.mlir", &per_op, 7, &[], Default::default(), None)
        .unwrap_or_else(|e| panic!("per-op run: {e}"));
    assert_eq!(a.len(), 1);
    assert_eq!(b.len(), 1);
    assert_eq!(a[0].outputs.len(), b[0].outputs.len());
    for (x, y) in a[0].outputs.iter().zip(&b[0].outputs) {
        assert_eq!(x.data.len(), y.data.len());
        for (i, (p, q)) in x.data.iter().zip(&y.data).enumerate() {
            assert!(p == q, "element {i}: packed {p} vs per-op {q}\n{packed}");
        }
    }
    assert!(
        a[0].max_rel_err() < 1e-4,
        "oracle error {}",
        a[0].max_rel_err()
    );
    (a[0].manifest.steps.len(), b[0].manifest.steps.len())
}

fn workload(name: &str) -> String {
    let path = format!(
        "{}/../bench/models/small/{name}.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn lstm_packed_equals_per_operator() {
    // 18 operators; one rProgram (plus the step reset) instead of 18 launches.
    let (packed, per_op) = packed_equals_per_op(&workload("lstm"), "v100");
    assert_eq!(per_op, 18);
    assert_eq!(packed, 2);
}

#[test]
fn nasnet_cell_packed_equals_per_operator() {
    let (packed, per_op) = packed_equals_per_op(&workload("nasnet-cell"), "v100");
    assert_eq!(per_op, 25);
    assert!(packed < per_op, "{packed} launches");
}

#[test]
fn inception_packed_equals_per_operator() {
    let (packed, per_op) = packed_equals_per_op(&workload("inception"), "v100");
    assert_eq!(per_op, 7);
    assert!(packed < per_op, "{packed} launches");
}

/// A NASBench-like random graph of te ops on 4x16 values: each op is a matmul with its
/// own 16x16 weight, an elementwise add or multiply of two values, or a tanh; operands are
/// the input or earlier ops, with at most 7 edges between ops; every op without a consumer
/// is returned.
fn graph_text(ops: &[(u8, usize, usize)]) -> String {
    let t = "tensor<4x16xf32>";
    let mut args = vec![format!("%x: {t}")];
    let mut body = String::new();
    let mut used = vec![false; ops.len()];
    let mut edges = 0;
    let mut name = |i: usize, pick: usize, used: &mut Vec<bool>| -> String {
        // pick 0 = the input; else an earlier op, while the edge budget lasts.
        if i == 0 || pick == 0 || edges >= 7 {
            return "%x".into();
        }
        let j = (pick - 1) % i;
        edges += 1;
        used[j] = true;
        format!("%v{j}")
    };
    for (i, &(kind, p, q)) in ops.iter().enumerate() {
        let a = name(i, p, &mut used);
        match kind % 4 {
            0 => {
                args.push(format!("%w{i}: tensor<16x16xf32>"));
                body.push_str(&format!(
                    "  %v{i} = te.compute (%i, %j) reduce (%k) in [4, 16, 16] : ({t}, tensor<16x16xf32>) -> {t} {{ te.sum({a}[%i, %k] * %w{i}[%k, %j]) }}\n"
                ));
            }
            3 => body.push_str(&format!(
                "  %v{i} = te.compute (%i, %j) in [4, 16] : ({t}) -> {t} {{ tanh({a}[%i, %j]) }}\n"
            )),
            k => {
                let b = name(i, q, &mut used);
                let op = if k == 1 { "+" } else { "*" };
                // A compute lists each tensor it reads once.
                let tys = if a == b {
                    t.to_string()
                } else {
                    format!("{t}, {t}")
                };
                body.push_str(&format!(
                    "  %v{i} = te.compute (%i, %j) in [4, 16] : ({tys}) -> {t} {{ {a}[%i, %j] {op} {b}[%i, %j] }}\n"
                ));
            }
        }
    }
    let outs: Vec<usize> = (0..ops.len()).filter(|&i| !used[i]).collect();
    let vals: Vec<String> = outs.iter().map(|i| format!("%v{i}")).collect();
    let tys = vec![t; outs.len()].join(", ");
    format!(
        "func.func @g({}) -> ({tys}) {{\n{body}  func.return {} : {tys}\n}}\n",
        args.join(", "),
        vals.join(", ")
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    /// ≥ 200 random graphs per run: every packed program equals per-operator execution.
    #[test]
    fn random_graphs_packed_equal_per_operator(
        ops in proptest::collection::vec((0u8..4, 0usize..9, 0usize..9), 1..=9)
    ) {
        let te = graph_text(&ops);
        let (packed, per_op) = packed_equals_per_op(&te, "v100");
        prop_assert_eq!(per_op, ops.len());
        prop_assert!(packed >= 2);
    }
}

#[test]
fn over_subscribed_program_is_refused_with_both_numbers() {
    // The full-size LSTM packed for V100 (160 vEUs, one per block, with barriers across
    // them: 2 per SM, its gate rTasks 32 threads × 8 cross-thread lanes), lowered for a K80
    // (13 SMs): its blocks could not all be co-resident.
    let full = std::fs::read_to_string(format!(
        "{}/../bench/models/lstm.mlir",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("lstm.mlir");
    let packed = opt(&full, &[("wavefront-pack", "device=v100")]).expect("packs");
    let on_k80 = packed.replace("device = \"v100\"", "device = \"k80\"");
    let err = opt(&on_k80, &[("lower-to-gpu", "")]).expect_err("must be refused");
    assert!(
        err.contains("could deadlock: its barriers span vEUs and it launches 160 persistent blocks, but only 52 can be co-resident on 'k80' (13 cores × 4 blocks of 256 threads"),
        "{err}"
    );
}
