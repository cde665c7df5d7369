//! The Halide GPU autoscheduler's schedules (issue 17) checked in the simulator: the small
//! twins of bench/pipelines/ go through `--autoschedule-beam` (greedy and beam, fusion
//! none and register) then `--lower-to-gpu` (in-process), and each lowered function runs
//! whole in the simulator against the f64 oracle on the unfused te chain, every kernel
//! alone against its own reference. A schedule the lowering refuses must say what is not
//! lowered.

use rtile_dialects::te::model::{ElemType, TensorType};
use rtile_runtime::sim::{run_check_text, run_models_text};
use rtile_runtime::tensor::Tensor;
use rtile_tools::{OptOptions, Pipeline, run_opt};

/// `--autoschedule-beam=<opts> [--lower-to-gpu]` on `text`.
fn opt(text: &str, beam: &str, lower: bool) -> Result<String, String> {
    let mut flags = vec![("autoschedule-beam".to_string(), beam.to_string())];
    if lower {
        flags.push(("lower-to-gpu".into(), String::new()));
    }
    let opts = OptOptions {
        pipeline: Pipeline::Flags(flags),
        color: Some(false),
        ..OptOptions::default()
    };
    let out = run_opt(&opts, "p.mlir", text.to_string());
    if out.success {
        Ok(out.output)
    } else {
        Err(out.log)
    }
}

/// Runs a lowered module; returns the kernels launched and the outputs.
fn simulate(lowered: &str) -> (usize, Vec<Tensor>) {
    let runs = run_models_text("p.gpu.mlir", lowered, 3, &[], Default::default(), None)
        .expect("the simulator runs");
    let [run] = &runs[..] else {
        panic!("one host function, got {}", runs.len())
    };
    assert!(run.max_rel_err() < 1e-5, "{}", run.text());
    let report = run_check_text("p.gpu.mlir", lowered, 5).expect("every kernel runs");
    for k in &report.kernels {
        assert!(k.max_rel_err < 1e-5, "{}: {}", k.kernel, k.max_rel_err);
    }
    (run.manifest.steps.len(), run.outputs.clone())
}

const PIPELINES: [(&str, &str); 8] = [
    (
        "stencil_chain",
        include_str!("../../bench/pipelines/stencil_chain_small.mlir"),
    ),
    (
        "unsharp_mask",
        include_str!("../../bench/pipelines/unsharp_mask_small.mlir"),
    ),
    (
        "harris",
        include_str!("../../bench/pipelines/harris_small.mlir"),
    ),
    (
        "max_filter",
        include_str!("../../bench/pipelines/max_filter_small.mlir"),
    ),
    (
        "interpolate",
        include_str!("../../bench/pipelines/interpolate_small.mlir"),
    ),
    (
        "dw_sep_conv",
        include_str!("../../bench/pipelines/dw_sep_conv_small.mlir"),
    ),
    (
        "conv_relu",
        include_str!("../../bench/pipelines/conv_relu_small.mlir"),
    ),
    (
        "sgemm",
        include_str!("../../bench/pipelines/sgemm_small.mlir"),
    ),
];

/// Every small pipeline, greedy and beam, root-only and register fusion: the searched
/// schedule lowers and equals the unfused chain, or the lowering says what it lacks.
#[test]
fn searched_schedules_match_the_unfused_chain() {
    let mut lowered_count = 0;
    let mut refused = Vec::new();
    for (name, text) in PIPELINES {
        // The 32-stage chain's beam search takes tens of seconds in a debug build: greedy.
        let beams: &[&str] = if name == "stencil_chain" {
            &["beam-size=1"]
        } else {
            &["beam-size=1", "beam-size=32"]
        };
        for &beam in beams {
            for fusion in ["none", "register"] {
                let o = format!("device=v100 {beam} fusion-level={fusion}");
                let scheduled = opt(text, &o, false).unwrap_or_else(|e| panic!("{name} {o}: {e}"));
                assert!(scheduled.contains("tilegraph.kernel"), "{name}");
                match opt(text, &o, true) {
                    Ok(l) => {
                        simulate(&l);
                        lowered_count += 1;
                    }
                    Err(log) => {
                        assert!(log.contains("not lowered"), "{name} {o}:\n{log}");
                        refused.push(format!("{name} {o}"));
                    }
                }
            }
        }
    }
    assert!(
        lowered_count >= 24,
        "only {lowered_count} of 30 lowered; refused: {refused:?}"
    );
}

/// Conv + bias + ReLU at register fusion: one kernel whose values equal a naive loop nest.
#[test]
fn conv_relu_matches_a_naive_loop_nest() {
    let text = PIPELINES[6].1;
    let l = opt(text, "device=v100 beam-size=32 fusion-level=register", true).expect("lowers");
    let (_, outputs) = simulate(&l);
    let types = [
        TensorType::new(vec![1, 8, 18, 14], ElemType::F32),
        TensorType::new(vec![8, 8, 3, 3], ElemType::F32),
        TensorType::new(vec![8], ElemType::F32),
    ];
    let ins = Tensor::random_inputs(&types, 3);
    let (i, w, b) = (&ins[0].data, &ins[1].data, &ins[2].data);
    let (h1, w1) = (16, 12);
    let mut want = vec![0.0f64; 8 * h1 * w1];
    for f in 0..8 {
        for y in 0..h1 {
            for x in 0..w1 {
                let mut s = 0.0;
                for c in 0..8 {
                    for r in 0..3 {
                        for t in 0..3 {
                            s += i[c * 18 * 14 + (y + r) * 14 + x + t]
                                * w[f * 72 + c * 9 + r * 3 + t];
                        }
                    }
                }
                want[f * h1 * w1 + y * w1 + x] = (s + b[f]).max(0.0);
            }
        }
    }
    let got = &outputs[0].data;
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-4 * w.abs().max(1.0), "{g} vs {w}");
    }
}

/// The model's global sector counts (`features.rs`, §5.1) against the simulator's
/// counters on the lowered kernel: a point-wise stage read in rows and one read
/// transposed, greedy schedules, loads and stores per kernel.
#[test]
fn feature_sectors_match_the_simulator_counters() {
    use rtile::ir::OpId;
    use rtile_dialects::te::module::{new_context, parse_and_verify};
    use rtile_passes::autoschedule_beam::features::featurize;
    use rtile_passes::autoschedule_beam::kernel::{levels, plan_kernel};
    use rtile_passes::autoschedule_beam::pipeline::Pipeline as Stages;
    use rtile_passes::autoschedule_beam::search::{SearchOptions, search};
    use rtile_passes::device::Device;
    use rtile_runtime::sim::profile::{OpClass, profile_text};

    let dev = Device::builtin("v100").expect("v100");
    for text in [
        "func.func @f(%A: tensor<64x256xf32>) -> tensor<64x256xf32> {\n  %C = te.compute (%i, %j) in [64, 256] : (tensor<64x256xf32>) -> tensor<64x256xf32> { %A[%i, %j] * 2.0 }\n  func.return %C : tensor<64x256xf32>\n}",
        "func.func @f(%A: tensor<256x64xf32>) -> tensor<64x256xf32> {\n  %C = te.compute (%i, %j) in [64, 256] : (tensor<256x64xf32>) -> tensor<64x256xf32> { %A[%j, %i] * 2.0 }\n  func.return %C : tensor<64x256xf32>\n}",
    ] {
        let mut ctx = new_context();
        let m = parse_and_verify(&mut ctx, "p.mlir", text).expect("parses");
        let f = ctx
            .collect_ops(m)
            .into_iter()
            .find(|&o| ctx.op_name(o) == "func.func")
            .expect("a function");
        let b = ctx.region_blocks(ctx.regions(f)[0])[0];
        let ops: Vec<OpId> = ctx.block_ops(b).collect();
        let p = Stages::build(&ctx, &ops).expect("a pipeline");
        let opts = SearchOptions {
            beam: 1,
            ..SearchOptions::default()
        };
        let out = search(&p, &dev, &opts).expect("schedules");
        let locs: Vec<_> = out.locs.into_iter().map(Some).collect();
        let lv = levels(&p, &locs);
        let k = plan_kernel(&p, &locs, &lv, 0, &dev).expect("fits");
        let feat = &featurize(&p, &k, &lv, &dev)[0];
        let lowered = opt(text, "device=v100 beam-size=1", true).expect("lowers");
        let prof = profile_text("p.gpu.mlir", &lowered, 3, None).expect("profiles");
        let kp = &prof.kernels[0];
        assert!(!kp.sampled());
        let (ld, st) = (kp.total(OpClass::GlobalLd), kp.total(OpClass::GlobalSt));
        assert_eq!(
            ld.sectors as f64,
            feat.num_blocks * feat.num_global_mem_loads_per_block,
            "loads, tiling {:?}",
            k.tiling
        );
        assert_eq!(
            st.sectors as f64,
            feat.num_blocks * feat.num_global_mem_stores_per_block,
            "stores, tiling {:?}",
            k.tiling
        );
    }
}

/// An element-wise root over a reduction computed inside its thread level (§4.1: the
/// reduction `compute_at` the root's threads), which `--lower-to-gpu` lowers as the
/// reduction's loop nest with the root as its epilogue: the search chooses it (fusion
/// `register`, greedy and beam), the lowered kernel equals the unfused chain (< 1e-5
/// against the f64 oracle, `simulate`), and the searched schedule's features count what
/// the kernel runs: global sectors loaded and stored, shared wavefronts loaded and
/// stored (the staged tiles of the reduction's input), each equal to the simulator's.
#[test]
fn epilogue_over_a_register_reduction_is_searched_lowered_and_counted() {
    use rtile::ir::OpId;
    use rtile_dialects::te::module::{new_context, parse_and_verify};
    use rtile_passes::autoschedule_beam::features::featurize;
    use rtile_passes::autoschedule_beam::kernel::{levels, plan_kernel};
    use rtile_passes::autoschedule_beam::pipeline::Pipeline as Stages;
    use rtile_passes::autoschedule_beam::search::{Fusion, SearchOptions, search};
    use rtile_passes::autoschedule_beam::space::Loc;
    use rtile_passes::device::Device;
    use rtile_runtime::sim::profile::{OpClass, profile_text};

    let dev = Device::builtin("v100").expect("v100");
    let texts = [
        // relu(Σ_j A[i, j] + b[i]) over 300 rows (a partial block).
        "func.func @f(%A: tensor<300x64xf32>, %b: tensor<300xf32>) -> tensor<300xf32> {\n  %S = te.compute (%i) reduce (%j) in [300, 64] : (tensor<300x64xf32>) -> tensor<300xf32> { te.sum(%A[%i, %j]) }\n  %C = te.compute (%i) in [300] : (tensor<300xf32>, tensor<300xf32>) -> tensor<300xf32> { max(%S[%i] + %b[%i], 0.0) }\n  func.return %C : tensor<300xf32>\n}",
        // relu(Σ_i A[i, j]): a column sum under its relu.
        "func.func @f(%A: tensor<64x512xf32>) -> tensor<512xf32> {\n  %S = te.compute (%j) reduce (%i) in [512, 64] : (tensor<64x512xf32>) -> tensor<512xf32> { te.sum(%A[%i, %j]) }\n  %C = te.compute (%j) in [512] : (tensor<512xf32>) -> tensor<512xf32> { max(%S[%j], 0.0) }\n  func.return %C : tensor<512xf32>\n}",
    ];
    for text in texts {
        for beam in [1usize, 32] {
            let mut ctx = new_context();
            let m = parse_and_verify(&mut ctx, "p.mlir", text).expect("parses");
            let f = ctx
                .collect_ops(m)
                .into_iter()
                .find(|&o| ctx.op_name(o) == "func.func")
                .expect("a function");
            let b = ctx.region_blocks(ctx.regions(f)[0])[0];
            let ops: Vec<OpId> = ctx.block_ops(b).collect();
            let p = Stages::build(&ctx, &ops).expect("a pipeline");
            let opts = SearchOptions {
                beam,
                fusion: Fusion::Register,
                ..SearchOptions::default()
            };
            let out = search(&p, &dev, &opts).expect("schedules");
            assert_eq!(out.locs[0], Loc::Register, "k={beam}: the reduction fused");
            let locs: Vec<_> = out.locs.into_iter().map(Some).collect();
            let lv = levels(&p, &locs);
            let k = plan_kernel(&p, &locs, &lv, 1, &dev).expect("fits");
            let feats = featurize(&p, &k, &lv, &dev);
            let sum = |g: &dyn Fn(&_) -> f64| -> f64 {
                feats
                    .iter()
                    .map(|s| s.num_blocks * g(s))
                    .sum::<f64>()
                    .round()
            };
            let flags = format!("device=v100 beam-size={beam} fusion-level=register");
            let lowered = opt(text, &flags, true).expect("lowers");
            let (kernels, _) = simulate(&lowered);
            assert_eq!(kernels, 1, "one kernel");
            let prof = profile_text("p.gpu.mlir", &lowered, 3, None).expect("profiles");
            let kp = &prof.kernels[0];
            assert!(!kp.sampled());
            let tiling = &k.tiling;
            for (what, sim, model) in [
                (
                    "global loads",
                    kp.total(OpClass::GlobalLd).sectors,
                    sum(&|s| s.num_global_mem_loads_per_block),
                ),
                (
                    "global stores",
                    kp.total(OpClass::GlobalSt).sectors,
                    sum(&|s| s.num_global_mem_stores_per_block),
                ),
                (
                    "shared loads",
                    kp.total(OpClass::SharedLd).wavefronts,
                    sum(&|s| s.num_shared_mem_loads_per_block),
                ),
                (
                    "shared stores",
                    kp.total(OpClass::SharedSt).wavefronts,
                    sum(&|s| s.num_shared_mem_stores_per_block),
                ),
            ] {
                assert_eq!(sim as f64, model, "k={beam} {tiling:?}: {what}");
            }
        }
    }
}
