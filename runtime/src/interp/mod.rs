//! The te reference interpreter.
//!
//! Semantics are those of `docs/dialects/te.md`: for each result point, the reduction
//! box is walked in lexicographic order from the combiner's identity. Floats follow IEEE
//! with NaN-propagating `max`/`min` (`arith.maximumf`); integers wrap; integer division
//! by zero yields 0 (upstream: undefined behaviour).
//!
//! Two modes: [`Accumulate::Native`] rounds every intermediate and the accumulator to
//! its element type, as a GPU kernel does; [`Accumulate::F64`] keeps every float in f64
//! (casts between float types are exact) and returns an f64 tensor: the oracle.
//! A mixed-precision reduction (`acc(f32)`) folds in its accumulator type, rounded to it
//! at each step in native mode, and rounds to the result type once at the end.
//!
//! Two evaluators with one semantics: [`eval_compute_reference`] walks the domain point
//! by point (the definition, kept as the reference in tests), and [`eval_compute`]
//! compiles the compute once ([`kernel`], [`access`]) and evaluates a row of result
//! points at a time, rows in parallel ([`fast`]); its results are bit-identical.

pub mod access;
pub mod fast;
pub mod kernel;
mod reference;

use rtile_dialects::te::model::{BinOp, Combiner, ElemType, TeCompute};

use crate::round::round_to;
use crate::tensor::Tensor;

pub use reference::eval_compute_reference;

/// Rounding mode of the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accumulate {
    /// Round to the element type after each operation.
    Native,
    /// Keep floats in f64 throughout.
    F64,
}

/// Runs one compute on host tensors (the compiled, parallel evaluator). Results are
/// bit-identical to [`eval_compute_reference`]; an error (an out-of-bounds read with no
/// pad value, a division by zero in an index) is reported as the reference reports it.
pub fn eval_compute(c: &TeCompute, inputs: &[Tensor], mode: Accumulate) -> Result<Tensor, String> {
    let refs: Vec<&Tensor> = inputs.iter().collect();
    eval_compute_refs(c, &refs, mode)
}

/// [`eval_compute`] on borrowed inputs (no copies of large operands).
pub fn eval_compute_refs(
    c: &TeCompute,
    inputs: &[&Tensor],
    mode: Accumulate,
) -> Result<Tensor, String> {
    check_inputs(c, inputs)?;
    match fast::eval(c, inputs, mode) {
        Ok(t) => Ok(t),
        // The reference finds the first failing point in its order and words the error.
        Err(_) => reference::eval_checked(c, inputs, mode),
    }
}

/// Input count, shapes and element types against the compute's.
fn check_inputs(c: &TeCompute, inputs: &[&Tensor]) -> Result<(), String> {
    if inputs.len() != c.inputs.len() {
        return Err(format!(
            "compute takes {} inputs, got {}",
            c.inputs.len(),
            inputs.len()
        ));
    }
    for (i, (t, want)) in inputs.iter().zip(&c.inputs).enumerate() {
        if t.shape != want.shape || t.dtype != want.elem {
            return Err(format!(
                "input {i} is {} but the compute expects {}",
                t.ty().text(),
                want.text()
            ));
        }
    }
    Ok(())
}

/// `erf` to about 1e-15: the series `erf x = 2/√π · e^{-x²} · Σ 2ⁿ x^{2n+1} / (2n+1)!!`
/// has only positive terms (no cancellation); beyond |x| = 6 erf is ±1 in f64.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() >= 6.0 {
        return x.signum();
    }
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term.abs() > sum.abs() * 1e-17 {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
    }
    2.0 / std::f64::consts::PI.sqrt() * (-x2).exp() * sum
}

/// NaN-propagating maximum with `max(-0, +0) = +0` (`arith.maximumf`).
fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() { b } else { a }
    } else if a > b {
        a
    } else {
        b
    }
}

/// NaN-propagating minimum with `min(-0, +0) = -0` (`arith.minimumf`).
fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() { a } else { b }
    } else if a < b {
        a
    } else {
        b
    }
}

/// Integer arithmetic, wrapping; division by zero is 0.
fn int_bin(op: BinOp, a: f64, b: f64) -> f64 {
    let (a, b) = (a as i64, b as i64);
    (match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div => {
            if b == 0 {
                0
            } else {
                a.wrapping_div(b)
            }
        }
        BinOp::Max => a.max(b),
        BinOp::Min => a.min(b),
        // Ill-typed in te (`Expr::ty`); a non-negative exponent as integer power.
        BinOp::Pow => a.wrapping_pow(b.clamp(0, u32::MAX as i64) as u32),
    }) as f64
}

/// Rounds a float result in native mode; integers always wrap.
fn fix(mode: Accumulate, v: f64, t: ElemType) -> f64 {
    if t.is_float() && mode == Accumulate::F64 {
        v
    } else {
        round_to(v, t)
    }
}

/// Every NaN of a result as the one quiet NaN. Rust leaves the sign and payload of a NaN
/// made by arithmetic unspecified (LLVM may commute `a + b` of two NaNs), so the two
/// interpreters, and one build and another, could otherwise differ in NaN bits; te has no
/// bitcast that could observe them.
fn canonical_nans(data: &mut [f64]) {
    data.iter_mut()
        .filter(|x| x.is_nan())
        .for_each(|x| *x = f64::NAN);
}

/// One step of a reduction: `acc ⊕ v`, rounded as the mode says.
fn combine(k: Combiner, acc: f64, v: f64, t: ElemType, mode: Accumulate) -> f64 {
    if t.is_float() {
        let x = match k {
            Combiner::Sum => acc + v,
            Combiner::Prod => acc * v,
            Combiner::Max => fmax(acc, v),
            Combiner::Min => fmin(acc, v),
        };
        fix(mode, x, t)
    } else {
        let x = match k {
            Combiner::Sum => int_bin(BinOp::Add, acc, v),
            Combiner::Prod => int_bin(BinOp::Mul, acc, v),
            Combiner::Max => acc.max(v),
            Combiner::Min => acc.min(v),
        };
        round_to(x, t)
    }
}

/// The value stored for a finished accumulator: a mixed-precision reduction rounds its
/// accumulator to the result element type once, here (in [`Accumulate::F64`] mode the
/// value stays exact, like every float); otherwise the accumulator already has it.
fn finish(c: &TeCompute, mode: Accumulate, acc: f64) -> f64 {
    if c.accumulator.is_some() {
        fix(mode, acc, c.result.elem)
    } else {
        acc
    }
}

/// The element type of the result tensor: f64 for floats in [`Accumulate::F64`] mode.
fn result_type(c: &TeCompute, mode: Accumulate) -> ElemType {
    if c.result.elem.is_float() && mode == Accumulate::F64 {
        ElemType::F64
    } else {
        c.result.elem
    }
}
