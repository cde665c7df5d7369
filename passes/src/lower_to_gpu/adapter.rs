//! A `te.compute` as the construction sees it ([`TensorExprInfo`]), one input per staged
//! read (a read group of `rtile_dialects::rtile::reads`, in order of first access: the same
//! rule as the te adapter of `--construct-rtile` and `#rtile.program`'s `pad`), so that a
//! program's storage padding `pad[r]` belongs to read `r`; a group of reads at constant
//! offsets (a stencil's taps) is one box whose indices carry the offsets' span as a halo. Index expressions that
//! are not `Σ c·axis + k` (e.g. `%o floordiv 4`) are recorded with every axis they use
//! counted twice: the span over-approximates the data tile and such dimensions never take
//! part in axis fusion (the lowering reads those accesses straight from global memory).

use rtile::ir::affine::AffineExpr;
use rtile_dialects::rtile::reads::read_groups;
use rtile_dialects::te::model::{AxisKind, TeCompute};

use crate::construct_rtile::{AffineIndex, Axis, TensorAccess, TensorExprInfo};

/// `Σ c·dim + k` of an affine expression, or `None` when it is not linear
/// ([`AffineExpr::linear_form`]; this name is what the kernel emitter imports).
pub fn linearize(e: &AffineExpr, n: usize) -> Option<(Vec<i64>, i64)> {
    e.linear_form(n)
}

/// The construction's view of `c`.
pub fn expr_info(c: &TeCompute) -> TensorExprInfo {
    let n = c.axes.len();
    let axes = c
        .axes
        .iter()
        .map(|a| Axis {
            name: a.name.clone(),
            extent: a.extent.max(1) as u64,
            reduction: a.kind == AxisKind::Reduction,
        })
        .collect();
    let inputs = read_groups(c)
        .into_iter()
        .map(|g| {
            let i = g.first();
            let a = &c.accesses[i];
            let t = &c.inputs[a.input];
            let indices = a
                .map
                .results
                .iter()
                .enumerate()
                .map(|(d, e)| match linearize(e, n) {
                    // The group's box: from the lowest constant, `halo` wider.
                    Some((cs, k)) => AffineIndex::affine(
                        &cs.iter()
                            .enumerate()
                            .map(|(d, &x)| (d, x))
                            .collect::<Vec<_>>(),
                        k - g.offsets[0][d],
                    )
                    .with_halo(g.halo[d]),
                    None => {
                        let terms: Vec<(usize, i64)> = e
                            .dim_occurrences()
                            .into_iter()
                            .flat_map(|d| [(d as usize, 1), (d as usize, 1)])
                            .collect();
                        AffineIndex::affine(&terms, 0)
                    }
                })
                .collect();
            TensorAccess {
                name: format!("in{i}"),
                shape: t.shape.iter().map(|&d| d.max(1) as u64).collect(),
                elem_bytes: (t.elem.width() as u64).div_ceil(8).max(1),
                indices,
            }
        })
        .collect();
    let np = c.num_parallel();
    let output = TensorAccess {
        name: "out".into(),
        shape: c.result.shape.iter().map(|&d| d.max(1) as u64).collect(),
        elem_bytes: (c.result.elem.width() as u64).div_ceil(8).max(1),
        indices: (0..np).map(AffineIndex::axis).collect(),
    };
    let mut flops = 0.0;
    count_ops(&c.body, &mut flops);
    TensorExprInfo {
        axes,
        inputs,
        output,
        flops_per_point: flops.max(1.0) + if c.combiner.is_some() { 1.0 } else { 0.0 },
        dtype: c.result.elem.keyword().to_string(),
        mma_inputs: crate::construct_rtile::te_adapter::mma_inputs(c),
    }
}

fn count_ops(e: &rtile_dialects::te::model::Expr, n: &mut f64) {
    use rtile_dialects::te::model::Expr;
    match e {
        Expr::Access(_) | Expr::Const(..) => {}
        Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) => {
            *n += 1.0;
            count_ops(a, n);
            count_ops(b, n);
        }
        Expr::Unary(_, a) | Expr::Cast(_, a) => {
            *n += 1.0;
            count_ops(a, n);
        }
        Expr::Select(c, a, b) => {
            *n += 1.0;
            count_ops(c, n);
            count_ops(a, n);
            count_ops(b, n);
        }
    }
}
