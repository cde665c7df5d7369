//! Kernels with several results lowered as ONE kernel (issue 14; `lower_to_gpu/results.rs`):
//! te functions that return a value a later member also reads go through `--connect` (a
//! `tilegraph.kernel` with two results), then `--lower-to-gpu` with and without
//! `one-kernel-results`. The one kernel must match the f64 oracle (each kernel alone and
//! the function whole, < 1e-5 relative, every output, any simulator error fails: races,
//! uninitialised shared reads), launch once where the split launched once per result, and
//! read and write fewer distinct DRAM sectors than the split, which computes the shared
//! producer (and reads its inputs) once per result.

use proptest::prelude::*;
use rtile_runtime::sim::profile::profile_text;
use rtile_runtime::sim::{run_check_text, run_models_text};
use rtile_runtime::tensor::Tensor;

mod common;

/// `--connect` at `level` on `text`.
fn connect(text: &str, level: &str) -> String {
    common::opt_flags(
        text,
        vec![(
            "connect".into(),
            format!("device=v100 connect-level={level}"),
        )],
    )
    .unwrap_or_else(|log| panic!("{log}"))
}

/// `--lower-to-gpu` (one kernel per multi-result kernel, or, `one == false`, one per result)
/// on connected `text`.
fn lower(connected: &str, one: bool) -> String {
    common::opt_flags(
        connected,
        vec![("lower-to-gpu".into(), format!("one-kernel-results={one}"))],
    )
    .unwrap_or_else(|log| panic!("{log}"))
}

/// The result counts of the `tilegraph.kernel`s of `connected`.
fn kernel_results(connected: &str) -> Vec<usize> {
    connected
        .lines()
        .filter_map(|l| l.split("tilegraph.kernel -> ").nth(1))
        .map(|r| r.matches("tensor<").count())
        .collect()
}

/// What one lowered module does: its launches, distinct DRAM sectors (read + written,
/// summed over kernels), and the function's outputs, after checking every kernel and the
/// function whole against the oracle.
struct Run {
    launches: usize,
    distinct: u64,
    outputs: Vec<Tensor>,
}

fn run(lowered: &str) -> Run {
    let runs = run_models_text("f.gpu.mlir", lowered, 3, &[], Default::default(), None)
        .unwrap_or_else(|e| panic!("the simulator runs: {e}\n{lowered}"));
    let [r] = &runs[..] else {
        panic!("one host function, got {}", runs.len())
    };
    assert!(r.within(1e-5), "{}", r.text());
    let report = run_check_text("f.gpu.mlir", lowered, 5).expect("every kernel runs");
    for k in &report.kernels {
        assert!(k.within(1e-5), "{}: {:?}", k.kernel, k.outputs);
    }
    let prof = profile_text("f.gpu.mlir", lowered, 5, None).expect("profiles");
    let distinct = prof
        .kernels
        .iter()
        .map(|k| k.unique_sectors_read + k.unique_sectors_written)
        .sum();
    Run {
        launches: r.manifest.steps.len(),
        distinct,
        outputs: r.outputs.clone(),
    }
}

/// Connects `text` at `level`, which must give a kernel with `results` results, lowers it
/// both ways and compares: one launch fewer per extra result, fewer distinct sectors, the
/// same outputs. Returns the one-kernel run.
fn one_against_split(text: &str, level: &str, results: usize) -> Run {
    let connected = connect(text, level);
    let counts = kernel_results(&connected);
    assert!(
        counts.contains(&results),
        "{level}: {counts:?}\n{connected}"
    );
    let one = lower(&connected, true);
    assert!(!one.contains("rtile.split_result"), "{one}");
    let split = lower(&connected, false);
    assert!(split.contains("rtile.split_result"), "{split}");
    let (o, s) = (run(&one), run(&split));
    assert_eq!(o.launches, counts.len(), "{level}: {counts:?}");
    assert_eq!(
        s.launches,
        counts.iter().sum::<usize>(),
        "{level}: {counts:?}"
    );
    assert!(
        o.distinct < s.distinct,
        "{level}: one kernel {} distinct sectors, split {}",
        o.distinct,
        s.distinct
    );
    o
}

/// Max relative error of `got` against `want` (scaled by `want`'s largest magnitude).
fn max_rel(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-30);
    got.iter()
        .zip(want)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
        / scale
}

/// Two results of one shape: `A` returned and read by `B` at the same point.
const EQUAL_SHAPES: &str = r#"
func.func @eq(%X: tensor<24x40xf32>, %b: tensor<40xf32>, %Y: tensor<24x40xf32>) -> (tensor<24x40xf32>, tensor<24x40xf32>) {
  %A = te.compute (%i, %j) in [24, 40] : (tensor<24x40xf32>, tensor<40xf32>) -> tensor<24x40xf32> { max(%X[%i, %j] + %b[%j], 0.0) }
  %B = te.compute (%i, %j) in [24, 40] : (tensor<24x40xf32>, tensor<24x40xf32>) -> tensor<24x40xf32> { tanh(%A[%i, %j]) * %Y[%i, %j] }
  func.return %A, %B : tensor<24x40xf32>, tensor<24x40xf32>
}"#;

#[test]
fn two_results_of_one_shape_are_one_kernel_and_match_a_naive_loop_nest() {
    for level in ["register", "shared"] {
        let o = one_against_split(EQUAL_SHAPES, level, 2);
        let ins = Tensor::random_inputs(&common_types(&[&[24, 40], &[40], &[24, 40]]), 3);
        let (x, b, y) = (&ins[0].data, &ins[1].data, &ins[2].data);
        let a: Vec<f64> = (0..24 * 40).map(|p| (x[p] + b[p % 40]).max(0.0)).collect();
        let bb: Vec<f64> = (0..24 * 40).map(|p| a[p].tanh() * y[p]).collect();
        assert!(max_rel(&o.outputs[0].data, &a) < 1e-5, "{level}: A");
        assert!(max_rel(&o.outputs[1].data, &bb) < 1e-5, "{level}: B");
    }
}

/// A result read by the anchor through a vertical 3-point stencil (a halo of 2 rows).
const STENCIL: &str = r#"
func.func @st(%X: tensor<34x48xf32>) -> (tensor<34x48xf32>, tensor<32x48xf32>) {
  %A = te.compute (%y, %x) in [34, 48] : (tensor<34x48xf32>) -> tensor<34x48xf32> { %X[%y, %x] * 2.0 + 1.0 }
  %B = te.compute (%y, %x) in [32, 48] : (tensor<34x48xf32>) -> tensor<32x48xf32> { %A[%y, %x] + %A[%y + 1, %x] * 0.5 + %A[%y + 2, %x] * 0.25 }
  func.return %A, %B : tensor<34x48xf32>, tensor<32x48xf32>
}"#;

#[test]
fn a_result_read_through_a_halo_is_written_once_and_matches_a_naive_loop_nest() {
    let o = one_against_split(STENCIL, "shared", 2);
    let ins = Tensor::random_inputs(&common_types(&[&[34, 48]]), 3);
    let x = &ins[0].data;
    let a: Vec<f64> = x.iter().map(|v| v * 2.0 + 1.0).collect();
    let b: Vec<f64> = (0..32 * 48)
        .map(|p| {
            let (y, c) = (p / 48, p % 48);
            a[y * 48 + c] + a[(y + 1) * 48 + c] * 0.5 + a[(y + 2) * 48 + c] * 0.25
        })
        .collect();
    assert!(max_rel(&o.outputs[0].data, &a) < 1e-5, "A");
    assert!(max_rel(&o.outputs[1].data, &b) < 1e-5, "B");
}

/// A LayerNorm-like row normalisation (a reduction and its element-wise consumer) returned
/// and feeding a matmul.
const NORM_MATMUL: &str = r#"
func.func @ln(%X: tensor<16x32xf32>, %W: tensor<32x24xf32>) -> (tensor<16x32xf32>, tensor<16x24xf32>) {
  %Mu = te.compute (%m) reduce (%k) in [16, 32] : (tensor<16x32xf32>) -> tensor<16xf32> { te.sum(%X[%m, %k] / 32.0) }
  %L = te.compute (%m, %k) in [16, 32] : (tensor<16x32xf32>, tensor<16xf32>) -> tensor<16x32xf32> { %X[%m, %k] - %Mu[%m] }
  %F = te.compute (%m, %n) reduce (%k) in [16, 24, 32] : (tensor<16x32xf32>, tensor<32x24xf32>) -> tensor<16x24xf32> { te.sum(%L[%m, %k] * %W[%k, %n]) }
  func.return %L, %F : tensor<16x32xf32>, tensor<16x24xf32>
}"#;

#[test]
fn a_normalised_result_feeding_a_matmul_is_one_kernel_and_matches_a_naive_loop_nest() {
    let o = one_against_split(NORM_MATMUL, "shared", 2);
    let ins = Tensor::random_inputs(&common_types(&[&[16, 32], &[32, 24]]), 3);
    let (x, w) = (&ins[0].data, &ins[1].data);
    let l = centred_rows(x);
    let f: Vec<f64> = (0..16 * 24)
        .map(|p| {
            let (m, n) = (p / 24, p % 24);
            (0..32).map(|k| l[m * 32 + k] * w[k * 24 + n]).sum()
        })
        .collect();
    assert!(max_rel(&o.outputs[0].data, &l) < 1e-5, "L");
    assert!(max_rel(&o.outputs[1].data, &f) < 1e-5, "F");
}

/// A residual after a matmul, as BERT's last one (`Y = H + L`): the sink reads the matmul
/// (its epilogue) and another result of the kernel (the normalised rows, a shared stage).
const RESIDUAL: &str = r#"
func.func @res(%X: tensor<16x32xf32>, %W: tensor<32x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %Mu = te.compute (%m) reduce (%k) in [16, 32] : (tensor<16x32xf32>) -> tensor<16xf32> { te.sum(%X[%m, %k] / 32.0) }
  %L = te.compute (%m, %k) in [16, 32] : (tensor<16x32xf32>, tensor<16xf32>) -> tensor<16x32xf32> { %X[%m, %k] - %Mu[%m] }
  %F = te.compute (%m, %n) reduce (%k) in [16, 32, 32] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32> { te.sum(%L[%m, %k] * %W[%k, %n]) }
  %Y = te.compute (%m, %n) in [16, 32] : (tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32> { max(%F[%m, %n] + %L[%m, %n] * 0.5, 0.0) * %X[%m, %n] }
  func.return %L, %Y : tensor<16x32xf32>, tensor<16x32xf32>
}"#;

#[test]
fn a_residual_epilogue_reads_another_result_from_shared_memory() {
    let o = one_against_split(RESIDUAL, "shared", 2);
    // The matmul is the kernel's loop and the residual its epilogue: the shared stages are
    // the copy of `X` the row mean reduces, the row means and the normalised rows (the
    // matmul made a stage under an element-wise loop would add itself and a copy of `W`).
    let lowered = lower(&connect(RESIDUAL, "shared"), true);
    assert_eq!(
        lowered.matches("rtile.shared_stages = ").count(),
        1,
        "{lowered}"
    );
    assert!(lowered.contains("rtile.shared_stages = 3 :"), "{lowered}");
    let ins = Tensor::random_inputs(&common_types(&[&[16, 32], &[32, 32]]), 3);
    let (x, w) = (&ins[0].data, &ins[1].data);
    let l = centred_rows(x);
    let y: Vec<f64> = (0..16 * 32)
        .map(|p| {
            let (m, n) = (p / 32, p % 32);
            let f: f64 = (0..32).map(|k| l[m * 32 + k] * w[k * 32 + n]).sum();
            (f + l[p] * 0.5).max(0.0) * x[p]
        })
        .collect();
    assert!(max_rel(&o.outputs[0].data, &l) < 1e-5, "L");
    assert!(max_rel(&o.outputs[1].data, &y) < 1e-5, "Y");
}

/// `X - rowmean(X)` of a 16×32 `x` (row-major), in f64.
fn centred_rows(x: &[f64]) -> Vec<f64> {
    let mut l = vec![0.0; 16 * 32];
    for m in 0..16 {
        let mu: f64 = (0..32).map(|k| x[m * 32 + k] / 32.0).sum();
        for k in 0..32 {
            l[m * 32 + k] = x[m * 32 + k] - mu;
        }
    }
    l
}

/// f32 tensor types of `shapes`.
fn common_types(shapes: &[&[i64]]) -> Vec<rtile_dialects::te::model::TensorType> {
    use rtile_dialects::te::model::{ElemType, TensorType};
    shapes
        .iter()
        .map(|s| TensorType::new(s.to_vec(), ElemType::F32))
        .collect()
}

/// A chain over `[m, n]` whose middle value is also returned: `A = f(X)`, then by `kind`
/// `B = g(A)` (0), `B = A · rowsum(A)` (1), or a matmul with a residual, `B = A × W + A / 2`
/// (2: the residual is the matmul's epilogue reading `A` from its shared stage).
fn chain(m: i64, n: i64, op: usize, kind: usize) -> String {
    let f = [
        "max(%X[%i, %j], 0.0)",
        "%X[%i, %j] * 3.0 - 1.0",
        "tanh(%X[%i, %j])",
    ][op % 3];
    let t = format!("tensor<{m}x{n}xf32>");
    let w = format!("tensor<{n}x{n}xf32>");
    let (args, mid) = match kind % 3 {
        0 => (
            format!("%X: {t}"),
            format!(
                "  %B = te.compute (%i, %j) in [{m}, {n}] : ({t}) -> {t} {{ %A[%i, %j] * %A[%i, %j] + 1.0 }}\n"
            ),
        ),
        1 => (
            format!("%X: {t}"),
            format!(
                "  %R = te.compute (%i) reduce (%j) in [{m}, {n}] : ({t}) -> tensor<{m}xf32> {{ te.sum(%A[%i, %j]) }}\n  %B = te.compute (%i, %j) in [{m}, {n}] : ({t}, tensor<{m}xf32>) -> {t} {{ %A[%i, %j] * %R[%i] }}\n"
            ),
        ),
        _ => (
            format!("%X: {t}, %W: {w}"),
            format!(
                "  %F = te.compute (%i, %j) reduce (%k) in [{m}, {n}, {n}] : ({t}, {w}) -> {t} {{ te.sum(%A[%i, %k] * %W[%k, %j]) }}\n  %B = te.compute (%i, %j) in [{m}, {n}] : ({t}, {t}) -> {t} {{ %F[%i, %j] + %A[%i, %j] * 0.5 }}\n"
            ),
        ),
    };
    format!(
        "func.func @c({args}) -> ({t}, {t}) {{\n  %A = te.compute (%i, %j) in [{m}, {n}] : ({t}) -> {t} {{ {f} }}\n{mid}  func.return %A, %B : {t}, {t}\n}}"
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// Random two-result chains at a random level: whatever `--connect` groups lowers,
    /// every output of every kernel matches the oracle, and no kernel with several
    /// results launches more than once.
    #[test]
    fn random_two_result_chains_match_the_oracle(
        m in 1i64..20, n in 1i64..40, op in 0usize..3, kind in 0usize..3, shared: bool,
    ) {
        let text = chain(m, n, op, kind);
        let level = if shared { "shared" } else { "register" };
        let connected = connect(&text, level);
        let counts = kernel_results(&connected);
        let lowered = lower(&connected, true);
        let r = run(&lowered);
        let split = lowered.matches("rtile.split_result = array<i64: 0,").count();
        // One launch per kernel, plus one per extra result of each kernel that fell back.
        prop_assert!(r.launches >= counts.len());
        prop_assert!(r.launches <= counts.iter().sum::<usize>());
        prop_assert_eq!(r.launches == counts.len(), split == 0);
    }
}
