//! Mixed-precision reductions (`acc(f32)`): an f16/bf16 matmul accumulating in f32 and
//! rounding to its result type once, against naive loops written here (f32 arithmetic
//! in Rust, an independent rounding to f16/bf16) and against the f64 oracle.

use rtile_dialects::te::model::{ElemType, TeCompute};
use rtile_dialects::te::module::parse_computes;
use rtile_runtime::{Accumulate, Tensor, eval_compute, eval_compute_reference};

/// The one compute of `text`.
fn compute(text: &str) -> TeCompute {
    let mut found = parse_computes("test.mlir", text).expect("parses and verifies");
    assert_eq!(found.len(), 1);
    found.remove(0).compute
}

/// An `m`×`n`×`k` matmul over `inp` inputs, accumulating in `acc` (`None`: no clause),
/// with an `out` result.
fn matmul(m: i64, n: i64, k: i64, inp: &str, acc: Option<&str>, out: &str) -> TeCompute {
    let (clause, a, b) = match acc {
        Some(t) => (
            format!(" acc({t})"),
            format!("{t}(%A[%m, %k])"),
            format!("{t}(%B[%k, %n])"),
        ),
        None => (String::new(), "%A[%m, %k]".into(), "%B[%k, %n]".into()),
    };
    compute(&format!(
        "func.func @mm(%A: tensor<{m}x{k}x{inp}>, %B: tensor<{k}x{n}x{inp}>) -> tensor<{m}x{n}x{out}> {{
           %C = te.compute (%m, %n) reduce (%k) in [{m}, {n}, {k}]{clause}
                  : (tensor<{m}x{k}x{inp}>, tensor<{k}x{n}x{inp}>) -> tensor<{m}x{n}x{out}> {{
             te.sum({a} * {b})
           }}
           func.return %C : tensor<{m}x{n}x{out}>
         }}"
    ))
}

/// Round to nearest, ties to even, onto a binary format with `mant` explicit mantissa
/// bits and smallest normal exponent `emin` (f16: 10, -14; bf16: 7, -126), from the
/// quantum at `x`'s binade; written independently of the interpreter's rounding.
/// Overflow is not reached by these tests (checked).
fn round_format(x: f32, mant: i32, emin: i32) -> f32 {
    let x = f64::from(x);
    if x == 0.0 {
        return x as f32;
    }
    let e = (x.abs().log2().floor() as i32).max(emin);
    let q = 2f64.powi(e - mant);
    let r = (x / q).round_ties_even() * q;
    assert!(r.abs() < 65504.0, "test values stay in range");
    r as f32
}

fn to_f16(x: f32) -> f32 {
    round_format(x, 10, -14)
}

fn to_bf16(x: f32) -> f32 {
    round_format(x, 7, -126)
}

/// `C = A·B` with f32 products and an f32 running sum, k in order (te's lexicographic
/// reduction order), each result then passed through `out`.
fn naive_f32(a: &Tensor, b: &Tensor, out: fn(f32) -> f32) -> Vec<f64> {
    let (m, k, n) = (
        a.shape[0] as usize,
        a.shape[1] as usize,
        b.shape[1] as usize,
    );
    let mut c = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut s = 0f32;
            for p in 0..k {
                s += a.data[i * k + p] as f32 * b.data[p * n + j] as f32;
            }
            c.push(f64::from(out(s)));
        }
    }
    c
}

/// Runs both evaluators (they must agree bit for bit) in `mode`.
fn run(c: &TeCompute, ins: &[Tensor], mode: Accumulate) -> Tensor {
    let fast = eval_compute(c, ins, mode).expect("evaluates");
    let reference = eval_compute_reference(c, ins, mode).expect("evaluates");
    assert!(
        fast.bit_identical(&reference),
        "compiled and reference differ"
    );
    fast
}

/// Relative Frobenius error of `got` against `want`.
fn rel_err(got: &[f64], want: &[f64]) -> f64 {
    let num: f64 = got.iter().zip(want).map(|(g, w)| (g - w) * (g - w)).sum();
    let den: f64 = want.iter().map(|w| w * w).sum();
    (num / den).sqrt()
}

#[test]
fn f16_matmul_with_f32_accumulator_matches_a_naive_loop_exactly() {
    let c = matmul(128, 64, 96, "f16", Some("f32"), "f16");
    assert_eq!(c.accumulator, Some(ElemType::F32));
    let ins = Tensor::random_inputs(&c.inputs, 11);
    let got = run(&c, &ins, Accumulate::Native);
    assert_eq!(got.dtype, ElemType::F16);
    let want = naive_f32(&ins[0], &ins[1], to_f16);
    assert_eq!(got.data, want, "one f16 rounding of an f32 sum");
}

#[test]
fn f16_matmul_with_f32_accumulator_is_within_f16_rounding_of_the_oracle() {
    let (m, n, k) = (128, 64, 96);
    let mixed = matmul(m, n, k, "f16", Some("f32"), "f16");
    let plain = matmul(m, n, k, "f16", None, "f16");
    let ins = Tensor::random_inputs(&mixed.inputs, 5);
    let exact = run(&mixed, &ins, Accumulate::F64);
    assert_eq!(exact.dtype, ElemType::F64);
    // The oracle does not depend on the accumulator: every float stays exact.
    assert_eq!(run(&plain, &ins, Accumulate::F64).data, exact.data);
    let got = run(&mixed, &ins, Accumulate::Native);
    // Per element: the final f16 rounding (half an ulp: 2^-11 relative, 2^-25 absolute
    // among subnormals) plus the f32 sum's error (at most k·2^-24 of Σ|a·b|, the
    // textbook bound for recursive summation).
    let (a, b) = (&ins[0], &ins[1]);
    for i in 0..m as usize {
        for j in 0..n as usize {
            let abs_sum: f64 = (0..k as usize)
                .map(|p| (a.data[i * k as usize + p] * b.data[p * n as usize + j]).abs())
                .sum();
            let w = exact.data[i * n as usize + j];
            let g = got.data[i * n as usize + j];
            let f32_err = k as f64 * 2f64.powi(-24) * abs_sum;
            let bound = 2f64.powi(-11) * (w.abs() + f32_err) + 2f64.powi(-25) + f32_err;
            assert!((g - w).abs() <= bound, "C[{i}, {j}] = {g}, oracle {w}");
        }
    }
    let mixed_err = rel_err(&got.data, &exact.data);
    assert!(
        mixed_err <= 2f64.powi(-11),
        "relative error {mixed_err} above f16's half ulp"
    );
    // Accumulating in f16 (no clause) rounds at every step: several times worse.
    let plain_err = rel_err(&run(&plain, &ins, Accumulate::Native).data, &exact.data);
    assert!(
        plain_err > 2.0 * mixed_err,
        "f16 accumulation {plain_err} vs f32 accumulation {mixed_err}"
    );
}

#[test]
fn bf16_matmul_with_f32_accumulator_matches_naive_loops() {
    let c = matmul(33, 17, 70, "bf16", Some("f32"), "bf16");
    let ins = Tensor::random_inputs(&c.inputs, 3);
    let got = run(&c, &ins, Accumulate::Native);
    assert_eq!(got.data, naive_f32(&ins[0], &ins[1], to_bf16));
    // The same sums into an f32 result: no final rounding at all.
    let c32 = matmul(33, 17, 70, "bf16", Some("f32"), "f32");
    let got = run(&c32, &ins, Accumulate::Native);
    assert_eq!(got.dtype, ElemType::F32);
    assert_eq!(got.data, naive_f32(&ins[0], &ins[1], |x| x));
}

#[test]
fn odd_sized_f16_matmul_into_f32_matches_a_naive_loop() {
    let c = matmul(100, 60, 72, "f16", Some("f32"), "f32");
    let ins = Tensor::random_inputs(&c.inputs, 9);
    assert_eq!(
        run(&c, &ins, Accumulate::Native).data,
        naive_f32(&ins[0], &ins[1], |x| x)
    );
}

#[test]
fn independent_rounding_agrees_on_known_values() {
    // 1 + 2^-11 is halfway between 1 and the next f16: ties to even.
    assert_eq!(to_f16(1.0 + 2f32.powi(-11)), 1.0);
    assert_eq!(to_f16(1.0 + 3.0 * 2f32.powi(-11)), 1.0 + 2f32.powi(-9));
    assert_eq!(to_f16(2f32.powi(-24)), 2f32.powi(-24));
    assert_eq!(to_f16(2f32.powi(-26)), 0.0);
    assert_eq!(to_bf16(1.0 + 2f32.powi(-8)), 1.0);
    assert_eq!(to_bf16(1.0 + 3.0 * 2f32.powi(-8)), 1.0 + 2f32.powi(-6));
}
