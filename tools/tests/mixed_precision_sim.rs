//! The SIMT lowering honours a mixed-precision accumulator (`acc(f32)`): f16/bf16 reductions
//! accumulate in f32 registers (and f32 shared partials) and convert once, on the store.
//! `--construct-rtile="tensor-core=false" --lower-to-gpu` (in-process), then the simulator on the same inputs
//! as the interpreter (written as .npy files), element by element.

use rtile_dialects::te::model::ElemType;
use rtile_dialects::te::module::parse_computes;
use rtile_runtime::npy::write_npy;
use rtile_runtime::sim::{run_check_text, run_models_text};
use rtile_runtime::tensor::Tensor;
use rtile_runtime::{Accumulate, eval_compute};
use rtile_tools::{OptOptions, Pipeline, run_opt};

fn lower(text: &str, device: &str) -> String {
    let opts = OptOptions {
        pipeline: Pipeline::Flags(vec![
            // SIMT programs: the tensor-core (MMA) lowering is not this path's.
            (
                "construct-rtile".into(),
                format!("device={device} tensor-core=false"),
            ),
            ("lower-to-gpu".into(), String::new()),
        ]),
        color: Some(false),
        ..OptOptions::default()
    };
    let out = run_opt(&opts, "mp.mlir", text.to_string());
    assert!(out.success, "{}", out.log);
    out.output
}

/// The spacing of `t`'s values at `x` (one ulp), for the comparisons below.
fn ulp(x: f64, t: ElemType) -> f64 {
    let (mant, emin) = match t {
        ElemType::F16 => (10, -14),
        ElemType::BF16 => (7, -126),
        _ => (23, -126),
    };
    let e = if x == 0.0 {
        emin
    } else {
        (x.abs().log2().floor() as i32).max(emin)
    };
    2f64.powi(e - mant)
}

/// Lowers the one-compute function `text` for `device`, runs it in the simulator on
/// seeded inputs and compares with the interpreter's native (mixed-precision) result.
/// Returns the largest difference in ulps of the result type.
fn sim_vs_interpreter(text: &str, device: &str, seed: u64) -> f64 {
    sim_vs(text, text, device, seed)
}

/// [`sim_vs_interpreter`] with the interpreter running `reference` (same signature).
fn sim_vs(text: &str, reference: &str, device: &str, seed: u64) -> f64 {
    let c = parse_computes("mp.mlir", reference)
        .expect("parses")
        .remove(0)
        .compute;
    let ins = Tensor::random_inputs(&c.inputs, seed);
    let dir = std::env::temp_dir().join(format!(
        "rtile-mp-sim-{}-{device}-{seed}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let paths: Vec<_> = ins
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let p = dir.join(format!("in{i}.npy"));
            write_npy(&p, t).expect("writes");
            p
        })
        .collect();
    let lowered = lower(text, device);
    // Every kernel against the f64 oracle, as `rtile-run --sim --check` does.
    let report = run_check_text("mp.gpu.mlir", &lowered, seed).expect("runs clean");
    assert!(!report.kernels.is_empty());
    let runs = run_models_text(
        "mp.gpu.mlir",
        &lowered,
        seed,
        &paths,
        Default::default(),
        None,
    )
    .expect("runs");
    std::fs::remove_dir_all(&dir).ok();
    let got = &runs[0].outputs[0];
    let want = eval_compute(&c, &ins, Accumulate::Native).expect("interprets");
    assert_eq!(got.dtype, c.result.elem);
    assert_eq!(got.data.len(), want.data.len());
    got.data
        .iter()
        .zip(&want.data)
        .map(|(g, w)| (g - w).abs() / ulp(*w, c.result.elem))
        .fold(0.0, f64::max)
}

fn matmul(m: i64, n: i64, k: i64, inp: &str, acc: &str, out: &str) -> String {
    let (clause, a, b) = if acc.is_empty() {
        (
            String::new(),
            "%A[%m, %k]".to_string(),
            "%B[%k, %n]".to_string(),
        )
    } else {
        (
            format!(" acc({acc})"),
            format!("{acc}(%A[%m, %k])"),
            format!("{acc}(%B[%k, %n])"),
        )
    };
    format!(
        "func.func @mm(%A: tensor<{m}x{k}x{inp}>, %B: tensor<{k}x{n}x{inp}>) -> tensor<{m}x{n}x{out}> {{
           %C = te.compute (%m, %n) reduce (%k) in [{m}, {n}, {k}]{clause}
                  : (tensor<{m}x{k}x{inp}>, tensor<{k}x{n}x{inp}>) -> tensor<{m}x{n}x{out}> {{
             te.sum({a} * {b})
           }}
           func.return %C : tensor<{m}x{n}x{out}>
         }}"
    )
}

// The kernel sums in its own order (k-steps, unrolled points, a cross-thread tree), the
// interpreter in k order: in f32 the two sums differ by far less than an f16/bf16 ulp of
// the result, so after the one final rounding they agree to within one ulp (a sum near a
// rounding boundary may round either way). Accumulating in f16 instead would drift by
// several ulps over k = 96 terms (checked below on the same inputs).

#[test]
fn f16_matmul_accumulating_in_f32_matches_the_interpreter_on_a100_and_h100() {
    let text = matmul(64, 48, 96, "f16", "f32", "f16");
    for device in ["a100", "h100"] {
        let d = sim_vs_interpreter(&text, device, 7);
        assert!(d <= 1.0, "{device}: {d} f16 ulps from the interpreter");
    }
}

#[test]
fn odd_sized_bf16_and_f16_into_f32_match_the_interpreter() {
    let d = sim_vs_interpreter(&matmul(100, 60, 72, "bf16", "f32", "bf16"), "a100", 3);
    assert!(d <= 1.0, "bf16: {d} ulps");
    // An f32 result: the f32 sums themselves, in another order (a few f32 ulps).
    let d = sim_vs_interpreter(&matmul(100, 60, 72, "f16", "f32", "f32"), "a100", 3);
    assert!(d <= 64.0, "f32: {d} ulps");
}

#[test]
fn the_accumulator_type_is_honoured_not_ignored() {
    // The same f16 matmul with its accumulator dropped: the lowered kernel then sums in
    // f16 and lands many ulps away from the f32-accumulating interpreter result, so the
    // 1-ulp agreement above is evidence the f32 accumulator is used.
    let mixed = matmul(64, 48, 96, "f16", "f32", "f16");
    let plain = matmul(64, 48, 96, "f16", "", "f16");
    let d = sim_vs(&plain, &mixed, "a100", 7);
    assert!(d > 2.0, "an f16 accumulator is {d} ulps from the f32 one");
    let plain_lowered = lower(&plain, "a100");
    assert!(!plain_lowered.contains("arith.truncf"));
    let mixed_lowered = lower(&mixed, "a100");
    assert!(mixed_lowered.contains("arith.truncf"), "converted on store");
    assert!(mixed_lowered.contains("arith.extf"), "operands widened");
}
