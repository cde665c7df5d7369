//! `te.compute` → [`TensorExprInfo`]: what the construction needs from the IR.
//!
//! - axes in domain order, parallel then reduction, with their extents;
//! - one input per staged read (`rtile_dialects::rtile::reads`): the reads of one tensor
//!   through maps that differ only in constant offsets (a stencil's taps) are one read whose
//!   indices carry the offsets' span as a halo (Roller §3.1: the data tile is what the
//!   rTile touches, so footprint and traffic count the union box once); the same tensor read
//!   through maps with different coefficients, as in softmax's `x - max`, is two reads.
//!   Each index map result is turned into
//!   `Σ coeff·axis + constant`, or that sum `floordiv` a positive constant (channel
//!   multipliers) — anything else (`mod`, `ceildiv`, nested divisions, symbols) is refused;
//! - flops per point from the body: every arithmetic, comparison and select op counts one,
//!   casts none, plus one for the combiner (`te.sum(a * b)` = 2); at least 1;
//! - the element type of the result.

use rtile::ir::affine::AffineExpr;
use rtile_dialects::rtile::reads::read_groups;
use rtile_dialects::te::model::{AxisKind, ElemType, Expr, TeCompute};

use super::expr_info::{AffineIndex, Axis, TensorAccess, TensorExprInfo};

/// Sizes the construction's integer arithmetic is guaranteed for (larger computes are refused
/// rather than risk overflow): points in the domain, axes, tensor elements and rank, reads,
/// index coefficients and constants.
pub const MAX_POINTS: u64 = 1 << 40;
const MAX_AXES: usize = 12;
const MAX_RANK: usize = 8;
const MAX_READS: usize = 16;
const MAX_COEFF: i64 = 64;
const MAX_CONST: i64 = 1 << 20;

fn count_flops(e: &Expr) -> u64 {
    match e {
        Expr::Access(_) | Expr::Const(..) => 0,
        Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) => 1 + count_flops(a) + count_flops(b),
        Expr::Unary(_, a) => 1 + count_flops(a),
        Expr::Cast(_, a) => count_flops(a),
        Expr::Select(c, a, b) => 1 + count_flops(c) + count_flops(a) + count_flops(b),
    }
}

/// Flops per point of `c`'s body (see the module doc), at least 1: defined for every
/// compute, also those the construction refuses for their size.
pub fn flops_per_point(c: &TeCompute) -> f64 {
    (count_flops(&c.body) + u64::from(c.combiner.is_some())).max(1) as f64
}

fn elem_bytes(bits: u32) -> u64 {
    u64::from(bits.div_ceil(8).max(1))
}

/// The construction's view of `c`; `Err` says why `c` cannot be handled.
pub fn expr_from_compute(c: &TeCompute) -> Result<TensorExprInfo, String> {
    let dims = c.axes.len();
    let too_big = |what: String| Err(format!("{what}: larger than the construction handles"));
    if dims > MAX_AXES {
        return too_big(format!("{dims} axes"));
    }
    let points = c
        .axes
        .iter()
        .try_fold(1u64, |acc, a| acc.checked_mul(a.extent.max(0) as u64));
    if points.is_none_or(|p| p > MAX_POINTS) {
        return too_big("iteration domain".into());
    }
    for t in c.inputs.iter().chain(std::iter::once(&c.result)) {
        let elems = t
            .shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d.max(0) as u64));
        if t.shape.len() > MAX_RANK || elems.is_none_or(|n| n > MAX_POINTS) {
            return too_big(format!("tensor {}", t.text()));
        }
    }
    let mut axes = Vec::with_capacity(dims);
    for a in &c.axes {
        if a.extent <= 0 {
            return Err(format!("axis '{}' has no points", a.name));
        }
        axes.push(Axis {
            name: a.name.clone(),
            extent: a.extent as u64,
            reduction: a.kind == AxisKind::Reduction,
        });
    }
    let mut inputs = Vec::new();
    // One input per staged read: reads of one tensor at constant offsets of each other (a
    // stencil's taps) are one data tile with a halo, so the footprint and traffic of §3.1
    // count the union box once; MAX_READS bounds these merged reads.
    let groups = read_groups(c);
    if groups.len() > MAX_READS {
        return too_big(format!("{} input reads", groups.len()));
    }
    for g in &groups {
        let r = g.first();
        let acc = &c.accesses[r];
        let t = c
            .inputs
            .get(acc.input)
            .ok_or_else(|| format!("read #{r} of an unknown input"))?;
        let mut indices = Vec::with_capacity(acc.map.results.len());
        for (j, e) in acc.map.results.iter().enumerate() {
            // `sum floordiv d` with a positive constant `d`, else the plain sum.
            let (inner, div) = match e {
                AffineExpr::FloorDiv(a, b) => match **b {
                    AffineExpr::Constant(d) if d > 0 => (a.as_ref(), d as u64),
                    _ => (e, 1),
                },
                _ => (e, 1),
            };
            let (coeffs, constant) = inner.linear_form(dims).ok_or_else(|| {
                format!(
                    "index {j} of input read #{r} is not of the form (sum(coeff * axis) + constant) [floordiv constant]"
                )
            })?;
            // The box starts at the lowest constant of the group's reads.
            let constant = constant - g.offsets[0][j];
            if coeffs.iter().any(|k| k.abs() > MAX_COEFF) || constant.abs() > MAX_CONST {
                return too_big(format!("index {j} of input read #{r}"));
            }
            let terms: Vec<(usize, i64)> = coeffs
                .into_iter()
                .enumerate()
                .filter(|(_, k)| *k != 0)
                .collect();
            indices.push(AffineIndex::floor_div(&terms, constant, div).with_halo(g.halo[j]));
        }
        inputs.push(TensorAccess {
            name: format!("input #{}", acc.input),
            shape: t.shape.iter().map(|&d| d.max(0) as u64).collect(),
            elem_bytes: elem_bytes(t.elem.width()),
            indices,
        });
    }
    let output = TensorAccess {
        name: "result".into(),
        shape: c.result.shape.iter().map(|&d| d.max(0) as u64).collect(),
        elem_bytes: elem_bytes(c.result.elem.width()),
        indices: (0..c.num_parallel()).map(AffineIndex::axis).collect(),
    };
    let flops = flops_per_point(c);
    let e = TensorExprInfo {
        axes,
        inputs,
        output,
        flops_per_point: flops,
        dtype: compute_elem(c).keyword().to_string(),
        mma_inputs: mma_inputs(c),
    };
    e.validate()?;
    Ok(e)
}

/// The element type the arithmetic of `c` runs in, whose SIMT peak bounds it
/// (`MaxComputePerf`, Roller §3.3): the accumulator when one is given (`acc(f32)` over
/// f16 inputs multiplies and adds in f32, at the f32 rate, not the f16 one), else the
/// result's type.
pub fn compute_elem(c: &TeCompute) -> ElemType {
    c.accumulator.unwrap_or(c.result.elem)
}

/// The input element type of a tensor-core candidate: every input f16 (or every input
/// bf16) and an f32 accumulator (`acc(f32)`), as the MMA instructions take them.
pub fn mma_inputs(c: &TeCompute) -> Option<String> {
    let t = c.inputs.first()?.elem;
    let ok = c.accumulator == Some(ElemType::F32)
        && matches!(t, ElemType::F16 | ElemType::BF16)
        && c.inputs.iter().all(|i| i.elem == t);
    ok.then(|| t.keyword().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_dialects::te::module::parse_computes;

    /// The first compute of a function with arguments `args` returning `%R : ret`, whose
    /// body is `compute` (parsed and verified by the real parser).
    fn first(args: &str, ret: &str, compute: &str) -> TeCompute {
        let text = format!("func.func @f({args}) -> {ret} {{\n{compute}\nreturn %R : {ret}\n}}\n");
        parse_computes("adapter-test.mlir", &text)
            .unwrap_or_else(|e| panic!("{e}"))
            .remove(0)
            .compute
    }

    #[test]
    fn matmul_matches_the_constructor() {
        let c = first(
            "%A: tensor<64x16xf32>, %B: tensor<16x32xf32>",
            "tensor<64x32xf32>",
            "%R = te.compute (%m, %n) reduce (%k) in [64, 32, 16]
               : (tensor<64x16xf32>, tensor<16x32xf32>) -> tensor<64x32xf32> {
               te.sum(%A[%m, %k] * %B[%k, %n]) }",
        );
        let e = expr_from_compute(&c).unwrap();
        let mut want = TensorExprInfo::matmul(64, 32, 16, "f32");
        // Names differ only (the constructor's A/B/C).
        for (w, g) in want.inputs.iter_mut().zip(&e.inputs) {
            w.name = g.name.clone();
        }
        want.output.name = e.output.name.clone();
        assert_eq!(e, want);
    }

    #[test]
    fn strided_halo_index() {
        let c = first(
            "%D: tensor<1x3x16x16xf32>, %K: tensor<4x3x3x3xf32>",
            "tensor<1x4x7x7xf32>",
            "%R = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 4, 7, 7, 3, 3, 3]
               : (tensor<1x3x16x16xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x7x7xf32> {
               te.sum(%D[%n, %c, %y * 2 + %ry, %x * 2 + %rx] * %K[%f, %c, %ry, %rx]) }",
        );
        let e = expr_from_compute(&c).unwrap();
        assert_eq!(
            e.inputs[0].indices[2],
            AffineIndex::affine(&[(2, 2), (5, 1)], 0)
        );
        assert_eq!(e.flops_per_point, 2.0);
        assert_eq!(e.dtype, "f32");
    }

    #[test]
    fn an_f32_accumulator_runs_at_the_f32_peak() {
        let c = first(
            "%A: tensor<64x32xf16>, %B: tensor<32x48xf16>",
            "tensor<64x48xf16>",
            "%R = te.compute (%m, %n) reduce (%k) in [64, 48, 32] acc(f32)
               : (tensor<64x32xf16>, tensor<32x48xf16>) -> tensor<64x48xf16> {
               te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) }",
        );
        let e = expr_from_compute(&c).unwrap();
        assert_eq!(e.dtype, "f32");
        assert_eq!(e.mma_inputs.as_deref(), Some("f16"));
        assert_eq!(e.output.elem_bytes, 2);
        // The SIMT bound is the f32 rate: on an A100, a quarter of the f16 (HFMA2) rate.
        let dev = crate::device::Device::builtin("a100").unwrap();
        let simt = super::super::perf_model::max_compute_gflops(&e, &dev, None);
        assert_eq!(simt, dev.peak("f32").simt_gflops);
        assert!(simt < dev.peak("f16").simt_gflops);
    }

    /// The te verifier refuses computes of more than 2^48 points, so a compute this large
    /// reaches the adapter only when built in code: the adapter refuses it too.
    #[test]
    fn huge_computes_are_refused() {
        let mut c = first(
            "%A: tensor<4x4xf32>, %B: tensor<4x4xf32>",
            "tensor<4x4xf32>",
            "%R = te.compute (%m, %n) reduce (%k) in [4, 4, 4]
               : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
               te.sum(%A[%m, %k] * %B[%k, %n]) }",
        );
        let huge = 1i64 << 32;
        for a in &mut c.axes {
            a.extent = huge;
        }
        for t in c.inputs.iter_mut().chain(std::iter::once(&mut c.result)) {
            t.shape = vec![huge, huge];
        }
        let m = expr_from_compute(&c).unwrap_err();
        assert!(m.contains("larger than the construction handles"), "{m}");
    }

    #[test]
    fn floordiv_by_a_constant() {
        let mut c = first(
            "%A: tensor<4xf32>",
            "tensor<4xf32>",
            "%R = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
               %A[%i] }",
        );
        let d = |x| Box::new(AffineExpr::Dim(x));
        let k = |x| Box::new(AffineExpr::Constant(x));
        c.accesses[0].map.results[0] = AffineExpr::FloorDiv(d(0), k(2));
        let e = expr_from_compute(&c).unwrap();
        assert_eq!(
            e.inputs[0].indices[0],
            AffineIndex::floor_div(&[(0, 1)], 0, 2)
        );
        // 8 consecutive i touch 4 (aligned) or 5 values of i floordiv 2: the bound is 5.
        assert_eq!(e.inputs[0].indices[0].span(&[8]), 5);
        assert_eq!(e.inputs[0].indices[0].single_axis(), None);
        c.accesses[0].map.results[0] = AffineExpr::Mod(d(0), k(2));
        let m = expr_from_compute(&c).unwrap_err();
        assert!(m.contains("not of the form"), "{m}");
    }
}
