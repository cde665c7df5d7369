//! Welder's fused kernels (issue 14, item 5) checked in the simulator: te functions go
//! through `--connect` (connect-level none / register / shared) then `--lower-to-gpu`
//! (in-process), and each lowered function runs whole in the simulator against the f64
//! oracle on the unfused te chain; every kernel alone is checked against its own
//! reference (a fused kernel's is its members' chain). Shapes the lowering refuses must be
//! refused with a diagnostic saying what is not lowered yet.

use proptest::prelude::*;
use rtile_dialects::te::model::{ElemType, TensorType};
use rtile_runtime::sim::{run_check_text, run_models_text};
use rtile_runtime::tensor::Tensor;

mod common;

const LEVELS: [&str; 3] = ["none", "register", "shared"];

/// `--connect="device=v100 connect-level=<level>" --lower-to-gpu` on `text`.
fn lower(text: &str, level: &str) -> Result<String, String> {
    common::opt_flags(
        text,
        vec![
            (
                "connect".into(),
                format!("device=v100 connect-level={level}"),
            ),
            ("lower-to-gpu".into(), String::new()),
        ],
    )
}

/// `--lower-to-gpu` alone on `text`, already connected (`tilegraph.kernel`s).
fn lower_connected(text: &str) -> Result<String, String> {
    common::opt_flags(text, vec![("lower-to-gpu".into(), String::new())])
}

/// Runs the lowered module: the function end to end and each kernel alone; returns the
/// number of kernels launched and the function's outputs. Each output is within 1e-5 of
/// the f64 oracle, or within its rounding floor where the chain itself is ill-conditioned
/// (a centred row dotted with weights cancels; `runtime::sim::rounding`).
fn simulate(lowered: &str) -> (usize, Vec<Tensor>) {
    let runs = run_models_text("f.gpu.mlir", lowered, 3, &[], Default::default(), None)
        .expect("the simulator runs");
    let [run] = &runs[..] else {
        panic!("one host function, got {}", runs.len())
    };
    assert!(run.within(1e-5), "{}", run.text());
    let report = run_check_text("f.gpu.mlir", lowered, 5).expect("every kernel runs");
    for k in &report.kernels {
        assert!(k.within(1e-5), "{}: {:?}", k.kernel, k.outputs);
    }
    (run.manifest.steps.len(), run.outputs.clone())
}

/// Lowers `text` at `level` and checks it; `Err` with the diagnostic when the lowering
/// refuses (which must say what is not lowered yet).
fn check(text: &str, level: &str) -> Result<usize, String> {
    match lower(text, level) {
        Ok(l) => Ok(simulate(&l).0),
        Err(log) => {
            assert!(
                log.contains("not lowered yet") || log.contains("not lowered"),
                "refused without saying what is missing:\n{log}"
            );
            Err(log)
        }
    }
}

const CONV_BIAS_RELU: &str = r#"
func.func @cbr(%I: tensor<1x8x10x10xf32>, %W: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %r, %s) in [1, 16, 8, 8, 8, 3, 3] : (tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x8x8xf32> { te.sum(%I[%n, %c, %y + %r, %x + %s] * %W[%f, %c, %r, %s]) }
  %B = te.compute (%n, %f, %y, %x) in [1, 16, 8, 8] : (tensor<1x16x8x8xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32> { %C[%n, %f, %y, %x] + %b[%f] }
  %R = te.compute (%n, %f, %y, %x) in [1, 16, 8, 8] : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> { max(%B[%n, %f, %y, %x], 0.0) }
  func.return %R : tensor<1x16x8x8xf32>
}"#;

/// A scaled relu feeding a matmul (prologue) whose result takes a bias and GELU (epilogue).
const PROLOGUE_GEMM_GELU: &str = r#"
func.func @pro(%X: tensor<32x48xf32>, %s: tensor<48xf32>, %W: tensor<48x40xf32>, %b: tensor<40xf32>) -> tensor<32x40xf32> {
  %A = te.compute (%m, %k) in [32, 48] : (tensor<32x48xf32>, tensor<48xf32>) -> tensor<32x48xf32> { max(%X[%m, %k] * %s[%k], 0.0) }
  %C = te.compute (%m, %n) reduce (%k) in [32, 40, 48] : (tensor<32x48xf32>, tensor<48x40xf32>) -> tensor<32x40xf32> { te.sum(%A[%m, %k] * %W[%k, %n]) }
  %G = te.compute (%m, %n) in [32, 40] : (tensor<32x40xf32>, tensor<40xf32>) -> tensor<32x40xf32> { (%C[%m, %n] + %b[%n]) * 0.5 * (erf((%C[%m, %n] + %b[%n]) * 0.70710678) + 1.0) }
  func.return %G : tensor<32x40xf32>
}"#;

/// Welder §2's Matmul -> Softmax (tests/lit/connect/matmul-softmax.mlir) at 64x64.
const MATMUL_SOFTMAX: &str = r#"
func.func @f(%A: tensor<64x32xf32>, %B: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [64, 64, 32] : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32> { te.sum(%A[%m, %k] * %B[%k, %n]) }
  %M = te.compute (%i) reduce (%j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64xf32> { te.max(%C[%i, %j]) }
  %E = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32> { exp(%C[%i, %j] - %M[%i]) }
  %S = te.compute (%i) reduce (%j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64xf32> { te.sum(%E[%i, %j]) }
  %D = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32> { %E[%i, %j] / %S[%i] }
  func.return %D : tensor<64x64xf32>
}"#;

/// QK·softmax (tests/lit/connect/qk-softmax.mlir's shape) at 2 heads, sequence 32, head 16.
const QK_SOFTMAX: &str = r#"
func.func @qk(%Q: tensor<2x32x16xf32>, %K: tensor<2x32x16xf32>) -> tensor<2x32x32xf32> {
  %S = te.compute (%h, %i, %j) reduce (%d) in [2, 32, 32, 16] : (tensor<2x32x16xf32>, tensor<2x32x16xf32>) -> tensor<2x32x32xf32> { te.sum(%Q[%h, %i, %d] * %K[%h, %j, %d]) }
  %M = te.compute (%h, %i) reduce (%j) in [2, 32, 32] : (tensor<2x32x32xf32>) -> tensor<2x32xf32> { te.max(%S[%h, %i, %j]) }
  %E = te.compute (%h, %i, %j) in [2, 32, 32] : (tensor<2x32x32xf32>, tensor<2x32xf32>) -> tensor<2x32x32xf32> { exp((%S[%h, %i, %j] - %M[%h, %i]) * 0.25) }
  %Z = te.compute (%h, %i) reduce (%j) in [2, 32, 32] : (tensor<2x32x32xf32>) -> tensor<2x32xf32> { te.sum(%E[%h, %i, %j]) }
  %P = te.compute (%h, %i, %j) in [2, 32, 32] : (tensor<2x32x32xf32>, tensor<2x32xf32>) -> tensor<2x32x32xf32> { %E[%h, %i, %j] / %Z[%h, %i] }
  func.return %P : tensor<2x32x32xf32>
}"#;

/// A MobileNetV2-like inverted residual (expand 1x1 -> relu -> 3x3 depthwise -> project
/// 1x1), 8 -> 24 -> 8 channels on a 10x10 map.
const MOBILENET_BLOCK: &str = r#"
func.func @mb(%I: tensor<1x8x10x10xf32>, %W1: tensor<24x8xf32>, %K: tensor<24x3x3xf32>, %W2: tensor<8x24xf32>) -> tensor<1x8x8x8xf32> {
  %X = te.compute (%n, %c, %y, %x) reduce (%k) in [1, 24, 10, 10, 8] : (tensor<1x8x10x10xf32>, tensor<24x8xf32>) -> tensor<1x24x10x10xf32> { te.sum(%I[%n, %k, %y, %x] * %W1[%c, %k]) }
  %R = te.compute (%n, %c, %y, %x) in [1, 24, 10, 10] : (tensor<1x24x10x10xf32>) -> tensor<1x24x10x10xf32> { max(%X[%n, %c, %y, %x], 0.0) }
  %D = te.compute (%n, %c, %y, %x) reduce (%r, %s) in [1, 24, 8, 8, 3, 3] : (tensor<1x24x10x10xf32>, tensor<24x3x3xf32>) -> tensor<1x24x8x8xf32> { te.sum(%R[%n, %c, %y + %r, %x + %s] * %K[%c, %r, %s]) }
  %P = te.compute (%n, %o, %y, %x) reduce (%c) in [1, 8, 8, 8, 24] : (tensor<1x24x8x8xf32>, tensor<8x24xf32>) -> tensor<1x8x8x8xf32> { te.sum(%D[%n, %c, %y, %x] * %W2[%o, %c]) }
  func.return %P : tensor<1x8x8x8xf32>
}"#;

/// Results of different shapes leaving one kernel: `--connect` at the register level puts
/// the bias+relu `A` (returned, and read inside by the 2x2 pooling-like `P`) and `P` in one
/// `tilegraph.kernel` with two results (Welder §3.1: both are output nodes).
const TWO_SHAPES: &str = r#"
func.func @two(%X: tensor<16x24xf32>, %b: tensor<24xf32>) -> (tensor<16x24xf32>, tensor<16x24xf32>, tensor<8x12xf32>) {
  %A = te.compute (%i, %j) in [16, 24] : (tensor<16x24xf32>, tensor<24xf32>) -> tensor<16x24xf32> { max(%X[%i, %j] + %b[%j], 0.0) }
  %B = te.compute (%i, %j) in [16, 24] : (tensor<16x24xf32>) -> tensor<16x24xf32> { tanh(%A[%i, %j]) * 2.0 }
  %P = te.compute (%i, %j) in [8, 12] : (tensor<16x24xf32>) -> tensor<8x12xf32> { %A[%i * 2, %j * 2] + %A[%i * 2 + 1, %j * 2 + 1] }
  func.return %A, %B, %P : tensor<16x24xf32>, tensor<16x24xf32>, tensor<8x12xf32>
}"#;

/// Results of one shape: Harris's gradient products (bench/pipelines/harris*.mlir) on a
/// small image: `Gx` and `Gy` are each read by two of the three returned products, so
/// `--connect` makes one kernel with three results.
const GRADIENT_PRODUCTS: &str = r#"
func.func @grad(%X: tensor<10x12xf32>) -> (tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>) {
  %Gx = te.compute (%y, %x) in [8, 10] : (tensor<10x12xf32>) -> tensor<8x10xf32> { %X[%y + 1, %x + 2] - %X[%y + 1, %x] }
  %Gy = te.compute (%y, %x) in [8, 10] : (tensor<10x12xf32>) -> tensor<8x10xf32> { %X[%y + 2, %x + 1] - %X[%y, %x + 1] }
  %A = te.compute (%y, %x) in [8, 10] : (tensor<8x10xf32>) -> tensor<8x10xf32> { %Gx[%y, %x] * %Gx[%y, %x] }
  %B = te.compute (%y, %x) in [8, 10] : (tensor<8x10xf32>) -> tensor<8x10xf32> { %Gy[%y, %x] * %Gy[%y, %x] }
  %C = te.compute (%y, %x) in [8, 10] : (tensor<8x10xf32>, tensor<8x10xf32>) -> tensor<8x10xf32> { %Gx[%y, %x] * %Gy[%y, %x] }
  func.return %A, %B, %C : tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>
}"#;

/// Max relative error of `got` against `want` (scaled by `want`'s largest magnitude).
fn max_rel(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
    got.iter()
        .zip(want)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / scale
}

/// The `tilegraph.kernel` result lists of `--connect` at `level` on `text`.
fn kernel_results(text: &str, level: &str) -> Vec<String> {
    let connected = common::opt_flags(
        text,
        vec![(
            "connect".into(),
            format!("device=v100 connect-level={level}"),
        )],
    )
    .unwrap_or_else(|log| panic!("{log}"));
    connected
        .lines()
        .filter_map(|l| l.split("tilegraph.kernel -> ").nth(1))
        .map(|r| r.trim_end_matches(" {").to_string())
        .collect()
}

/// [`TWO_SHAPES`] as `--connect` at each level connected it before issue 14's re-tuning:
/// A and P in one kernel (A register-connected at the register level, shared-connected at
/// the shared level): a kernel with results of different shapes, lowered as one kernel
/// writing both (`results.rs`: A a shared stage whose tile moves by twice P's block).
const TWO_SHAPES_CONNECTED: [(&str, &str); 2] = [
    (
        "register",
        include_str!("fused_sim_inputs/two-shapes-register.mlir"),
    ),
    (
        "shared",
        include_str!("fused_sim_inputs/two-shapes-shared.mlir"),
    ),
];

#[test]
fn results_of_different_shapes_lower_as_one_kernel_and_match_a_naive_loop_nest() {
    for (level, connected) in TWO_SHAPES_CONNECTED {
        // What --connect decides now lowers and matches too: one launch per kernel (A
        // and P together, one kernel writing both, now that the model charges it one).
        let now = lower(TWO_SHAPES, level).expect("lowers");
        let kernels_now = kernel_results(TWO_SHAPES, level);
        assert_eq!(simulate(&now).0, kernels_now.len(), "{kernels_now:?}");
        // The kernel holding A and P has two results of different shapes.
        let kernels: Vec<String> = connected
            .lines()
            .filter_map(|l| l.split("tilegraph.kernel -> ").nth(1))
            .map(|r| r.trim_end_matches(" {").to_string())
            .collect();
        assert!(
            kernels.contains(&"(tensor<16x24xf32>, tensor<8x12xf32>)".to_string()),
            "{kernels:?}"
        );
        let lowered = lower_connected(connected).expect("lowers");
        // One gpu.func for the two-result kernel, not split.
        assert!(!lowered.contains("rtile.split_result"), "{lowered}");
        let (launches, outputs) = simulate(&lowered);
        assert_eq!(launches, kernels.len(), "{kernels:?}");
        let types = [
            TensorType::new(vec![16, 24], ElemType::F32),
            TensorType::new(vec![24], ElemType::F32),
        ];
        let ins = Tensor::random_inputs(&types, 3);
        let (x, b) = (&ins[0].data, &ins[1].data);
        let a: Vec<f64> = (0..16 * 24).map(|p| (x[p] + b[p % 24]).max(0.0)).collect();
        let bb: Vec<f64> = a.iter().map(|v| v.tanh() * 2.0).collect();
        let p: Vec<f64> = (0..8 * 12)
            .map(|q| {
                let (i, j) = (q / 12, q % 12);
                a[2 * i * 24 + 2 * j] + a[(2 * i + 1) * 24 + 2 * j + 1]
            })
            .collect();
        for (k, want) in [a, bb, p].iter().enumerate() {
            let err = max_rel(&outputs[k].data, want);
            assert!(err < 1e-5, "{level}: output {k}: {err}");
        }
    }
}

#[test]
fn results_of_one_shape_with_shared_producers_match_a_naive_loop_nest() {
    for level in ["register", "shared"] {
        let kernels = kernel_results(GRADIENT_PRODUCTS, level);
        assert!(
            kernels
                .iter()
                .any(|k| k.matches("tensor<8x10xf32>").count() == 3),
            "{level}: {kernels:?}"
        );
        let lowered = lower(GRADIENT_PRODUCTS, level).expect("lowers");
        // One kernel writes the three products (Gx and Gy computed once, inlined into the
        // two products that are shared stages and the anchor), not one per result.
        assert!(!lowered.contains("rtile.split_result"), "{lowered}");
        assert_eq!(lowered.matches("gpu.func @").count(), 1, "{lowered}");
        let (launches, outputs) = simulate(&lowered);
        assert_eq!(launches, 1);
        let ins = Tensor::random_inputs(&[TensorType::new(vec![10, 12], ElemType::F32)], 3);
        let x = &ins[0].data;
        let at = |y: usize, c: usize| x[y * 12 + c];
        let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
        for y in 0..8 {
            for col in 0..10 {
                let gx = at(y + 1, col + 2) - at(y + 1, col);
                let gy = at(y + 2, col + 1) - at(y, col + 1);
                a.push(gx * gx);
                b.push(gy * gy);
                c.push(gx * gy);
            }
        }
        for (k, want) in [a, b, c].iter().enumerate() {
            let err = max_rel(&outputs[k].data, want);
            assert!(err < 1e-5, "{level}: output {k}: {err}");
        }
    }
}

#[test]
fn conv_bias_relu_is_one_kernel_and_matches_a_naive_loop_nest() {
    assert_eq!(check(CONV_BIAS_RELU, "none"), Ok(3));
    for level in ["register", "shared"] {
        let lowered = lower(CONV_BIAS_RELU, level).expect("lowers");
        // One gpu.func for the group: conv, bias and relu in one kernel.
        assert_eq!(lowered.matches("gpu.func @").count(), 1, "{lowered}");
        let (kernels, outputs) = simulate(&lowered);
        assert_eq!(kernels, 1);
        // The same inputs as the simulator's run (seed 3), through a naive loop nest.
        let types = [
            TensorType::new(vec![1, 8, 10, 10], ElemType::F32),
            TensorType::new(vec![16, 8, 3, 3], ElemType::F32),
            TensorType::new(vec![16], ElemType::F32),
        ];
        let ins = Tensor::random_inputs(&types, 3);
        let (i, w, b) = (&ins[0].data, &ins[1].data, &ins[2].data);
        let mut want = vec![0.0f64; 16 * 64];
        for f in 0..16 {
            for y in 0..8 {
                for x in 0..8 {
                    let mut s = 0.0;
                    for c in 0..8 {
                        for r in 0..3 {
                            for t in 0..3 {
                                s += i[c * 100 + (y + r) * 10 + x + t]
                                    * w[f * 72 + c * 9 + r * 3 + t];
                            }
                        }
                    }
                    want[f * 64 + y * 8 + x] = (s + b[f]).max(0.0);
                }
            }
        }
        let got = &outputs[0].data;
        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let err = got
            .iter()
            .zip(&want)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
            / scale;
        assert!(err < 1e-5, "{err}");
    }
}

/// MobileNetV2's expand conv, its bias + ReLU6, and the zero-padded 3x3 depthwise conv
/// that reads the activation (bench/models/welder/mobilenet-block*.mlir).
const EXPAND_RELU6_DEPTHWISE: &str = r#"
func.func @pad(%I: tensor<1x4x6x6xf32>, %W1: tensor<12x4xf32>, %b1: tensor<12xf32>, %K: tensor<12x3x3xf32>) -> tensor<1x12x6x6xf32> {
  %P = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 12, 6, 6, 4] : (tensor<1x4x6x6xf32>, tensor<12x4xf32>) -> tensor<1x12x6x6xf32> { te.sum(%I[%n, %c, %y, %x] * %W1[%f, %c]) }
  %A = te.compute (%n, %c, %y, %x) in [1, 12, 6, 6] : (tensor<1x12x6x6xf32>, tensor<12xf32>) -> tensor<1x12x6x6xf32> { min(max(%P[%n, %c, %y, %x] + %b1[%c], 0.0), 6.0) }
  %D = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 12, 6, 6, 3, 3] : (tensor<1x12x6x6xf32>, tensor<12x3x3xf32>) -> tensor<1x12x6x6xf32> { te.sum(%A[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %K[%c, %ry, %rx]) }
  func.return %D : tensor<1x12x6x6xf32>
}"#;

/// An element-wise producer read through a pad value is not inlined (its body would be
/// evaluated on the padding: ReLU6(0 + b) is not 0). Read by a convolution it is computed
/// into shared memory over the conv's halo (with the expand conv's stage and the input
/// copies: 4 stages), the padding read as 0; read by an element-wise stencil it is
/// recomputed at each tap under the bounds check (no stage). Both are one kernel at both
/// fusing levels (two at the register level before) and match the unfused chain.
#[test]
fn an_activation_read_through_zero_padding_fuses_with_its_consumer() {
    let stencil = chain_text(8, 32, &[Step::Bias, Step::Unary(0), Step::Shift]);
    for (text, stages) in [(EXPAND_RELU6_DEPTHWISE, 4), (stencil.as_str(), 0)] {
        for level in ["register", "shared"] {
            let lowered = lower(text, level).expect("lowers");
            assert_eq!(shared_stages(&lowered), stages, "{lowered}");
            assert_eq!(simulate(&lowered).0, 1, "{level}: {text}");
        }
    }
}

#[test]
fn prologue_and_epilogue_fuse_around_a_gemm() {
    assert_eq!(check(PROLOGUE_GEMM_GELU, "none"), Ok(3));
    assert_eq!(check(PROLOGUE_GEMM_GELU, "register"), Ok(1));
    assert_eq!(check(PROLOGUE_GEMM_GELU, "shared"), Ok(1));
}

#[test]
fn softmax_chains_fuse_at_the_register_level() {
    assert_eq!(check(MATMUL_SOFTMAX, "none"), Ok(5));
    // Matmul, max/exp/sum/divide in one kernel: the reductions read in registers are
    // computed once per block into shared memory (as for QK·softmax below). Two kernels
    // (the matmul apart) until the model costed each launch (issue 14).
    assert_eq!(check(MATMUL_SOFTMAX, "register"), Ok(1));
    assert_eq!(check(QK_SOFTMAX, "none"), Ok(5));
    // Q·K joins the softmax in registers: recomputed per point, the product would be
    // recomputed inside the row max inside the row sum, so the reductions read in
    // registers are computed once per block into shared memory instead (one kernel).
    assert_eq!(check(QK_SOFTMAX, "register"), Ok(1));
    let lowered = lower(QK_SOFTMAX, "register").expect("lowers");
    assert!(shared_stages(&lowered) >= 2, "{lowered}");
}

#[test]
fn every_workload_lowers_or_is_refused_with_the_reason() {
    for (name, text) in [
        ("matmul-softmax", MATMUL_SOFTMAX),
        ("qk-softmax", QK_SOFTMAX),
        ("mobilenet", MOBILENET_BLOCK),
        ("conv-bias-relu", CONV_BIAS_RELU),
        ("gemm", PROLOGUE_GEMM_GELU),
    ] {
        // Welder-none output always lowers (single-op kernels).
        assert!(check(text, "none").is_ok(), "{name}");
        for level in LEVELS {
            // `check` asserts the numbers when it lowers and the diagnostic when not.
            let _ = check(text, level);
        }
    }
}

/// One random te chain over a `[m, n]` running tensor: element-wise ops with broadcast
/// operands, matmuls, and row reductions broadcast back (softmax-like).
#[derive(Clone, Debug)]
enum Step {
    Unary(u8),
    Bias,
    Matmul(i64),
    /// `x - max(x)` (true) or `x - mean(x)` (false) along the row. The mean, not the sum:
    /// chains of `x - sum(x)` grow by the row length at each step and cancel at the end (a
    /// value of ~1 computed from intermediates of ~1000), so any f32 evaluation, fused or
    /// not, is off by ~f32 epsilon × 1000 relative, which is no test of the fusion.
    RowCenter(bool),
    /// The rows flattened (`tensor.collapse_shape` to `[m·n]`), an element-wise op on the
    /// flat tensor, and the shape back (`tensor.expand_shape`): the reshapes ONNX's
    /// `Flatten`/`Reshape` and `--axis-fusion` put between computes.
    Flat(u8),
    /// A 3-tap stencil along the row with zero padding (`x[j-1] pad 0 + x[j] / 2 +
    /// x[j+1] pad 0`, a 1-D convolution's padded reads): an intermediate read outside its
    /// bounds, where the producer must not be evaluated (relu(x + b) is not 0 there).
    Shift,
}

fn chain_text(m: i64, n0: i64, steps: &[Step]) -> String {
    chain_text_taps(m, n0, steps, &[])
}

/// [`chain_text`] whose function also returns the values of the steps in `taps` (each
/// below the last step; repeats and out-of-range taps are skipped): values both read by a
/// later step and leaving the chain, which `--connect` makes results of a kernel with
/// several (Welder §3.1's multi-output nodes).
fn chain_text_taps(m: i64, n0: i64, steps: &[Step], taps: &[usize]) -> String {
    let mut types = Vec::new();
    let mut args = vec![format!("%X: tensor<{m}x{n0}xf32>")];
    let mut body = String::new();
    let mut cur = "%X".to_string();
    let mut n = n0;
    for (i, s) in steps.iter().enumerate() {
        let t = format!("tensor<{m}x{n}xf32>");
        match s {
            Step::Unary(u) => {
                let e = match u % 3 {
                    0 => format!("max({cur}[%i, %j], 0.0)"),
                    1 => format!("tanh({cur}[%i, %j])"),
                    _ => format!("{cur}[%i, %j] * 0.5 + 1.0"),
                };
                body.push_str(&format!(
                    "%v{i} = te.compute (%i, %j) in [{m}, {n}] : ({t}) -> {t} {{ {e} }}\n"
                ));
            }
            Step::Bias => {
                args.push(format!("%b{i}: tensor<{n}xf32>"));
                body.push_str(&format!(
                    "%v{i} = te.compute (%i, %j) in [{m}, {n}] : ({t}, tensor<{n}xf32>) -> {t} {{ {cur}[%i, %j] + %b{i}[%j] }}\n"
                ));
            }
            Step::Matmul(n2) => {
                args.push(format!("%w{i}: tensor<{n}x{n2}xf32>"));
                let t2 = format!("tensor<{m}x{n2}xf32>");
                body.push_str(&format!(
                    "%v{i} = te.compute (%i, %j) reduce (%k) in [{m}, {n2}, {n}] : ({t}, tensor<{n}x{n2}xf32>) -> {t2} {{ te.sum({cur}[%i, %k] * %w{i}[%k, %j]) }}\n"
                ));
                n = *n2;
            }
            Step::Shift => {
                body.push_str(&format!(
                    "%v{i} = te.compute (%i, %j) in [{m}, {n}] : ({t}) -> {t} {{ {cur}[%i, %j - 1] pad 0.0 + {cur}[%i, %j] * 0.5 + {cur}[%i, %j + 1] pad 0.0 }}\n"
                ));
            }
            Step::Flat(u) => {
                let mn = m * n;
                let f = format!("tensor<{mn}xf32>");
                let e = match u % 2 {
                    0 => format!("exp(%f{i}[%p] * 0.25)"),
                    _ => format!("%f{i}[%p] * 2.0 - 1.0"),
                };
                body.push_str(&format!(
                    "%f{i} = tensor.collapse_shape {cur} [[0, 1]] : {t} into {f}\n\
                     %g{i} = te.compute (%p) in [{mn}] : ({f}) -> {f} {{ {e} }}\n\
                     %v{i} = tensor.expand_shape %g{i} [[0, 1]] output_shape [{m}, {n}] : {f} into {t}\n"
                ));
            }
            Step::RowCenter(max) => {
                let (comb, scale) = if *max {
                    ("max", String::new())
                } else {
                    ("sum", format!(" * {:?}", 1.0 / n as f64))
                };
                body.push_str(&format!(
                    "%r{i} = te.compute (%i) reduce (%j) in [{m}, {n}] : ({t}) -> tensor<{m}xf32> {{ te.{comb}({cur}[%i, %j]) }}\n\
                     %v{i} = te.compute (%i, %j) in [{m}, {n}] : ({t}, tensor<{m}xf32>) -> {t} {{ {cur}[%i, %j] - %r{i}[%i]{scale} }}\n"
                ));
            }
        }
        cur = format!("%v{i}");
        types.push(format!("tensor<{m}x{n}xf32>"));
    }
    let mut rets = vec![(cur, format!("tensor<{m}x{n}xf32>"))];
    let mut seen = Vec::new();
    for &t in taps {
        if t + 1 < steps.len() && !seen.contains(&t) {
            seen.push(t);
            rets.push((format!("%v{t}"), types[t].clone()));
        }
    }
    let names: Vec<&str> = rets.iter().map(|r| r.0.as_str()).collect();
    let tys: Vec<&str> = rets.iter().map(|r| r.1.as_str()).collect();
    format!(
        "func.func @chain({}) -> ({}) {{\n{body}func.return {} : {}\n}}\n",
        args.join(", "),
        tys.join(", "),
        names.join(", "),
        tys.join(", ")
    )
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u8..3).prop_map(Step::Unary),
        Just(Step::Bias),
        prop_oneof![Just(1i64), Just(5), Just(8), Just(13), Just(16)].prop_map(Step::Matmul),
        any::<bool>().prop_map(Step::RowCenter),
        Just(Step::Shift),
    ]
}

/// `--fold-reshapes`, then [`lower`]'s passes.
fn lower_folded(text: &str, level: &str) -> Result<String, String> {
    common::opt_flags(
        text,
        vec![
            ("fold-reshapes".into(), String::new()),
            (
                "connect".into(),
                format!("device=v100 connect-level={level}"),
            ),
            ("lower-to-gpu".into(), String::new()),
        ],
    )
}

/// A reshape between two computes keeps them apart under `--connect`; folded, the chain
/// fuses (the flat compute reads `%X`'s relu through `floordiv`/`mod`, the bias reads the
/// flat result at `i·n + j`) and still matches the oracle.
#[test]
fn reshapes_between_computes_fuse_once_folded() {
    let text = chain_text(8, 16, &[Step::Unary(0), Step::Flat(0), Step::Bias]);
    for level in ["register", "shared"] {
        let apart = simulate(&lower(&text, level).expect("lowers")).0;
        let folded = lower_folded(&text, level).expect("lowers folded");
        assert!(!folded.contains("tensor.expand_shape"), "{folded}");
        let (fused, _) = simulate(&folded);
        assert_eq!((apart, fused), (3, 1), "at {level}");
    }
}

/// [`step`], or rows flattened and back between two computes.
fn step_or_reshape() -> impl Strategy<Value = Step> {
    prop_oneof![3 => step(), 1 => (0u8..2).prop_map(Step::Flat)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    /// Random chains with reshapes between their computes, through `--fold-reshapes` (the
    /// reshapes read through `floordiv`/`mod` and row-major sums), `--connect` at a random
    /// level and `--lower-to-gpu`: every lowered function and kernel equals the unfolded,
    /// unfused chain's f64 oracle (< 1e-5), with no more kernels than the chain unfolded
    /// at connect-level=none; a refusal names what is not lowered.
    #[test]
    fn random_chains_with_reshapes_fold_fuse_and_match(
        m in prop_oneof![Just(1i64), Just(3), Just(8), Just(12), Just(17)],
        n in prop_oneof![Just(1i64), Just(4), Just(7), Just(16), Just(24)],
        steps in prop::collection::vec(step_or_reshape(), 1..5),
        level in 0usize..3,
    ) {
        let text = chain_text(m, n, &steps);
        let none = check(&text, "none");
        prop_assert!(none.is_ok(), "{text}");
        match lower_folded(&text, LEVELS[level]) {
            Ok(l) => {
                let (k, _) = simulate(&l);
                let k0 = none.unwrap_or(0);
                prop_assert!(k <= k0, "{k} kernels folded and fused, {k0} unfused:\n{text}");
            }
            Err(log) => prop_assert!(log.contains("not lowered"), "{log}\n{text}"),
        }
    }
}

/// (level, kernels, kernels at connect-level=none) of the random chains that lowered.
static STATS: std::sync::Mutex<Vec<(usize, usize, usize)>> = std::sync::Mutex::new(Vec::new());

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// ≥ 200 random chains through `--connect` at a random level, then `--lower-to-gpu`,
    /// then the simulator: every lowered function and kernel equals the unfused chain's f64
    /// oracle (< 1e-5); a refusal names what is not lowered, and the same chain at
    /// connect-level=none lowers and matches.
    #[test]
    fn random_chains_fuse_and_match(
        m in prop_oneof![Just(1i64), Just(3), Just(8), Just(12), Just(17)],
        n in prop_oneof![Just(1i64), Just(4), Just(7), Just(16), Just(24)],
        steps in prop::collection::vec(step(), 1..5),
        level in 0usize..3,
    ) {
        let text = chain_text(m, n, &steps);
        let outcome = check(&text, LEVELS[level]);
        let none = check(&text, "none");
        prop_assert!(none.is_ok(), "{text}");
        if let (Ok(k), Ok(k0)) = (&outcome, &none) {
            prop_assert!(k <= k0, "{k} kernels fused, {k0} unfused:\n{text}");
            STATS.lock().unwrap().push((level, *k, *k0));
        }
    }
}

/// (kernels with several results, lowered) of the random chains with taps.
static MULTI_STATS: std::sync::Mutex<Vec<(bool, bool)>> = std::sync::Mutex::new(Vec::new());

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// ≥ 200 random chains that also return some intermediate values (read later in the
    /// chain and leaving it: kernels with several results, of one shape or, across a
    /// matmul, of different shapes), through `--connect` at a random level and
    /// `--lower-to-gpu`: every lowered function (each of its outputs) and kernel equals
    /// the unfused chain's f64 oracle (< 1e-5); a refusal names what is not lowered.
    #[test]
    fn random_multi_result_chains_fuse_and_match(
        m in prop_oneof![Just(1i64), Just(3), Just(8), Just(12), Just(17)],
        n in prop_oneof![Just(1i64), Just(4), Just(7), Just(16), Just(24)],
        steps in prop::collection::vec(step(), 2..5),
        taps in prop::collection::vec(0usize..4, 1..3),
        level in 0usize..3,
    ) {
        let text = chain_text_taps(m, n, &steps, &taps);
        let multi = kernel_results(&text, LEVELS[level]).iter().any(|k| k.contains(','));
        let outcome = check(&text, LEVELS[level]);
        MULTI_STATS.lock().unwrap().push((multi, outcome.is_ok()));
        let none = check(&text, "none");
        prop_assert!(none.is_ok(), "{text}");
        if let (Ok(k), Ok(k0)) = (&outcome, &none) {
            prop_assert!(k <= k0, "{k} kernels fused, {k0} unfused:\n{text}");
        }
    }
}

/// (kernels, kernels at connect-level=none, shared stages, stepped stages) of the random
/// chains lowered at connect-level=shared.
static SHARED_STATS: std::sync::Mutex<Vec<(usize, usize, usize, usize)>> =
    std::sync::Mutex::new(Vec::new());

/// The shared stages of the lowered module (`rtile.shared_stages` on its kernels).
fn shared_stages(lowered: &str) -> usize {
    count_attr(lowered, "rtile.shared_stages = ")
}

/// The shared stages computed in k-steps (`rtile.stepped_stages` on its kernels).
fn stepped_stages(lowered: &str) -> usize {
    count_attr(lowered, "rtile.stepped_stages = ")
}

/// The sum of the counts `attr` gives on the kernels of `lowered`.
fn count_attr(lowered: &str, attr: &str) -> usize {
    lowered
        .split(attr)
        .skip(1)
        .filter_map(|s| {
            s.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// ≥ 200 random chains at connect-level=shared (full Welder): the producers connected
    /// in shared memory are computed into it between barriers; every lowered function and
    /// kernel equals the unfused chain's f64 oracle (< 1e-5) with no simulator error (a
    /// shared race or an uninitialised read fails the run). Rows of 640 make a following
    /// matmul's reduction too long to stage whole in a shared stage, which is then computed
    /// in k-steps (`lower_to_gpu/shared_steps.rs`).
    #[test]
    fn random_chains_fuse_at_the_shared_level(
        m in prop_oneof![Just(1i64), Just(3), Just(8), Just(12), Just(17)],
        n in prop_oneof![Just(1i64), Just(4), Just(7), Just(16), Just(24), Just(640)],
        steps in prop::collection::vec(step(), 1..5),
    ) {
        let text = chain_text(m, n, &steps);
        let none = check(&text, "none");
        prop_assert!(none.is_ok(), "{text}");
        match lower(&text, "shared") {
            Ok(l) => {
                let (k, _) = simulate(&l);
                let k0 = none.unwrap_or(0);
                prop_assert!(k <= k0, "{k} kernels fused, {k0} unfused:\n{text}");
                SHARED_STATS
                    .lock()
                    .unwrap()
                    .push((k, k0, shared_stages(&l), stepped_stages(&l)));
            }
            Err(log) => prop_assert!(log.contains("not lowered"), "{log}"),
        }
    }
}

/// (stepped stages, kernels) of the wide random chains.
static WIDE_STATS: std::sync::Mutex<Vec<(usize, usize)>> = std::sync::Mutex::new(Vec::new());

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random chains that start with a long reduction (a matmul over 384 to 1000 columns)
    /// read by a row reduction, then random steps, at connect-level=shared: the matmul's
    /// shared stage cannot stage its inputs whole and is computed in k-steps
    /// (`lower_to_gpu/shared_steps.rs`, steps that divide the reduction: 384, 640 and
    /// 1000 give different ones); every lowered function and kernel equals the unfused
    /// chain's f64 oracle (< 1e-5) with no simulator error. The tail steps are the
    /// well-conditioned ones (bias, relu, affine): `x - max(x)` over a 640-term f32 sum
    /// is a cancellation, and a `tanh` of it amplifies the sum's rounding past 1e-5 in any
    /// f32 kernel that fuses them (main's lowering included, without k-steps: 1.8e-5 for
    /// m = 3, k = 640, n2 = 16), which is no test of the fusion. For the same reason no
    /// relu follows `x - max(x)`: it keeps exactly the entries near each row's max, where
    /// `x - max` cancels, so the output is the cancellation's rounding (m = 8, k = 1000,
    /// n2 = 13, bias then relu: 3.5e-5; affine then relu at n2 = 16: 1.2e-5).
    #[test]
    fn random_wide_chains_step_their_shared_stages(
        m in prop_oneof![Just(3i64), Just(8), Just(12), Just(17)],
        k in prop_oneof![Just(384i64), Just(640), Just(1000)],
        n2 in prop_oneof![Just(5i64), Just(8), Just(13), Just(16)],
        max in any::<bool>(),
        tail in prop::collection::vec(
            prop_oneof![Just(Step::Bias), Just(Step::Unary(0)), Just(Step::Unary(2))],
            0..3,
        ),
    ) {
        prop_assume!(!(max && tail.iter().any(|s| matches!(s, Step::Unary(0)))));
        let mut steps = vec![Step::Matmul(n2), Step::RowCenter(max)];
        steps.extend(tail);
        let text = chain_text(m, k, &steps);
        match lower(&text, "shared") {
            Ok(l) => {
                let (kernels, _) = simulate(&l);
                WIDE_STATS.lock().unwrap().push((stepped_stages(&l), kernels));
            }
            Err(log) => prop_assert!(log.contains("not lowered"), "{log}"),
        }
    }
}

#[test]
fn shared_level_workloads_compute_producers_in_shared_memory() {
    // Matmul -> Softmax: the exp's tile in shared memory, read by the row sum and the
    // division; MobileNet: the depthwise conv's tile (the expand conv recomputed on its
    // 3x3 halo) in shared memory, read by the projection; QK·softmax at sequence 32: one
    // kernel (§5.4: fused at short sequences), Q·K and the exp in shared memory. The
    // matmul joins the softmax's kernel (§2's example; two kernels until the model costed
    // each launch, issue 14).
    for (text, kernels) in [(MATMUL_SOFTMAX, 1), (MOBILENET_BLOCK, 1), (QK_SOFTMAX, 1)] {
        let lowered = lower(text, "shared").expect("lowers");
        assert!(shared_stages(&lowered) >= 1, "{lowered}");
        assert_eq!(simulate(&lowered).0, kernels);
    }
}

/// Hand-connected PWConv -> DWConv kernels (Welder §5.2's bottom-layer order) whose
/// pointwise conv is a shared stage with a reduction too long to stage whole: computed in
/// k-steps, every kernel and function equals the unfused chain's f64 oracle (< 1e-5), with
/// no simulator error (a missing barrier between a step's copies and its fold is a race).
#[test]
fn stepped_shared_stages_match_the_unfused_chain() {
    for text in [
        include_str!("fused_sim_inputs/stepped-pw-dw.mlir"),
        include_str!("fused_sim_inputs/stepped-pw-dw-partial.mlir"),
    ] {
        let lowered = lower_connected(text).expect("lowers");
        // The pointwise conv and its two input copies; the conv stepped.
        assert_eq!(shared_stages(&lowered), 3, "{lowered}");
        assert_eq!(stepped_stages(&lowered), 1, "{lowered}");
        assert_eq!(simulate(&lowered).0, 1);
    }
}

/// A matmul (k = 640) read by a row max in shared memory, connected by `--connect`: the
/// matmul's stage is stepped and the kernel matches, so the proptest's wide rows reach
/// the stepped path at least here.
#[test]
fn a_long_reduction_in_a_shared_stage_is_stepped() {
    let text = chain_text(8, 640, &[Step::Matmul(16), Step::RowCenter(true)]);
    let lowered = lower(&text, "shared").expect("lowers");
    assert!(stepped_stages(&lowered) >= 1, "{lowered}");
    simulate(&lowered);
}

#[test]
fn random_chains_fuse_some() {
    // Deterministic companion of the proptest: a GEMM with a bias and relu epilogue and a
    // softmax-like row centring, fused at the register level into fewer kernels.
    let text = chain_text(
        8,
        16,
        &[
            Step::Unary(0),
            Step::Matmul(13),
            Step::Bias,
            Step::RowCenter(true),
        ],
    );
    let fused = check(&text, "register").expect("lowers");
    let unfused = check(&text, "none").expect("lowers");
    assert!(fused < unfused, "{fused} vs {unfused}");
    // The proptest's tally when it ran first in this process (printed with --nocapture).
    let shared = check(&text, "shared").expect("lowers");
    assert!(shared <= unfused, "{shared} vs {unfused}");
    let s = STATS.lock().unwrap();
    if !s.is_empty() {
        let fusing = s.iter().filter(|(_, k, k0)| k < k0).count();
        eprintln!(
            "random chains lowered: {}, with fewer kernels than unfused: {fusing}",
            s.len()
        );
    }
    let s = MULTI_STATS.lock().unwrap();
    if !s.is_empty() {
        let multi = s.iter().filter(|(m, _)| *m).count();
        let lowered = s.iter().filter(|(m, ok)| *m && *ok).count();
        eprintln!(
            "random chains with taps: {}, with a kernel of several results: {multi}, of those lowered: {lowered}",
            s.len()
        );
    }
    let w = WIDE_STATS.lock().unwrap();
    if !w.is_empty() {
        let stepped = w.iter().filter(|(st, _)| *st > 0).count();
        eprintln!(
            "wide random chains lowered: {}, with stepped stages: {stepped}",
            w.len()
        );
    }
    drop(w);
    let s = SHARED_STATS.lock().unwrap();
    if !s.is_empty() {
        let staged = s.iter().filter(|(_, _, st, _)| *st > 0).count();
        let stepped = s.iter().filter(|(_, _, _, sp)| *sp > 0).count();
        eprintln!(
            "random chains lowered at the shared level: {}, with shared stages: {staged}, with stepped stages: {stepped}",
            s.len()
        );
    }
}
