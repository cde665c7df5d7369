//! The Reduce* operators (ONNX opsets 1/11/13/18/20): ReduceSum, ReduceMean, ReduceMax,
//! ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum and
//! ReduceLogSumExp. The axes are an attribute before opset 13 (ReduceSum) or 18 (the
//! others) and a constant input from then on; `keepdims` (default 1) keeps reduced dims
//! as 1; empty axes reduce every dim unless `noop_with_empty_axes` is 1, in which case
//! no dim is reduced (the element function still applies, as in the reference).

use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::{CmpOp, Combiner, ElemType, UnOp};

use super::build::{Builder, Reads, Val, add, cast, cmp, div, k, mul, sub, un};
use super::{Node, norm_axis};
use crate::ops::{Expansion, OpError};

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
    L1,
    L2,
    SumSquare,
    LogSum,
    LogSumExp,
}

impl Kind {
    /// The kind of an op type.
    pub fn of(op: &str) -> Option<Kind> {
        Some(match op {
            "ReduceSum" => Kind::Sum,
            "ReduceMean" => Kind::Mean,
            "ReduceMax" => Kind::Max,
            "ReduceMin" => Kind::Min,
            "ReduceProd" => Kind::Prod,
            "ReduceL1" => Kind::L1,
            "ReduceL2" => Kind::L2,
            "ReduceSumSquare" => Kind::SumSquare,
            "ReduceLogSum" => Kind::LogSum,
            "ReduceLogSumExp" => Kind::LogSumExp,
            _ => return None,
        })
    }

    fn combiner(self) -> Combiner {
        match self {
            Kind::Max => Combiner::Max,
            Kind::Min => Combiner::Min,
            Kind::Prod => Combiner::Prod,
            _ => Combiner::Sum,
        }
    }

    /// The opset from which the axes are an input.
    fn axes_input_since(self) -> i64 {
        if self == Kind::Sum { 13 } else { 18 }
    }
}

/// The reduced dims (sorted, distinct) from the attribute or input, or `None` for
/// "reduce nothing" (`noop_with_empty_axes`).
fn reduced_dims(node: &Node, kind: Kind, rank: usize) -> Result<Option<Vec<usize>>, OpError> {
    let from_input = node.opset() >= kind.axes_input_since();
    let (axes, noop) = if from_input {
        node.check_attrs(&["keepdims", "noop_with_empty_axes"])?;
        (
            node.const_ints(1)?.unwrap_or_default(),
            node.int("noop_with_empty_axes", 0) != 0,
        )
    } else {
        node.check_attrs(&["axes", "keepdims"])?;
        (node.attrs.ints("axes").unwrap_or_default(), false)
    };
    if axes.is_empty() {
        return Ok(if noop {
            None
        } else {
            Some((0..rank).collect())
        });
    }
    let mut dims = axes
        .iter()
        .map(|&a| norm_axis(a, rank, "axis"))
        .collect::<Result<Vec<_>, _>>()?;
    dims.sort_unstable();
    if dims.windows(2).any(|w| w[0] == w[1]) {
        return Err(OpError(format!("axes {axes:?} repeat a dim")));
    }
    Ok(Some(dims))
}

/// A reduction of `x` over `dims` (sorted) to element type `elem`: `combine_{dims}
/// pre(x[idx])`, `pre` getting the index of `x` at the domain point; the result is
/// shaped as keepdims says.
pub fn reduce_stage(
    b: &mut Builder,
    x: &Val,
    dims: &[usize],
    keepdims: bool,
    combiner: Combiner,
    elem: ElemType,
    pre: impl FnOnce(&mut Reads, Vec<AffineExpr>) -> rtile_dialects::te::model::Expr,
) -> Result<Val, OpError> {
    let (par, red, idx_of) = reduce_layout(x.shape(), dims, keepdims);
    let np = par.len();
    b.stage(&par, &red, Some(combiner), elem, |r| {
        let idx = idx_of
            .iter()
            .map(|&(is_red, i)| r.ax(if is_red { np + i } else { i }))
            .collect();
        pre(r, idx)
    })
}

/// The parallel extents, the reduction extents, and for each dim of the input
/// `(is_reduced, position among the parallel or reduction axes)`.
type Layout = (Vec<i64>, Vec<i64>, Vec<(bool, usize)>);

fn reduce_layout(shape: &[i64], dims: &[usize], keepdims: bool) -> Layout {
    let (mut par, mut red, mut idx) = (Vec::new(), Vec::new(), Vec::new());
    for (j, &e) in shape.iter().enumerate() {
        if dims.contains(&j) {
            idx.push((true, red.len()));
            red.push(e);
            if keepdims {
                par.push(1);
            }
        } else {
            idx.push((false, par.len()));
            par.push(e);
        }
    }
    (par, red, idx)
}

/// Every `Reduce*` operator.
pub fn reduce(node: &Node) -> Result<Expansion, OpError> {
    let kind = Kind::of(node.op()).ok_or_else(|| OpError("not a reduction".into()))?;
    if let Some(Some(inp)) = node.inputs.first()
        && inp.ty.shape.contains(&0)
    {
        return empty_input(node, kind, &inp.ty.shape, inp.ty.elem);
    }
    let x = node.input(0)?;
    let elem = x.elem();
    if elem == ElemType::I1 && matches!(kind, Kind::Max | Kind::Min) {
        return bool_any_all(node, kind, &x);
    }
    let float_only = matches!(kind, Kind::L2 | Kind::LogSum | Kind::LogSumExp);
    if elem == ElemType::I1 || (float_only && !elem.is_float()) {
        return Err(OpError(format!(
            "{} on {} tensors is not supported",
            node.op(),
            elem.keyword()
        )));
    }
    let rank = x.rank();
    let dims = reduced_dims(node, kind, rank)?.unwrap_or_default();
    let keepdims = node.int("keepdims", 1) != 0;
    let count: i64 = dims.iter().map(|&d| x.shape()[d]).product();
    let mut b = Builder::new();
    // LogSumExp subtracts the maximum first (stable), as a keepdims max stage.
    let mx = if kind == Kind::LogSumExp {
        Some(reduce_stage(
            &mut b,
            &x,
            &dims,
            true,
            Combiner::Max,
            elem,
            |r, idx| r.read(&x, idx, None),
        )?)
    } else {
        None
    };
    let s = reduce_stage(
        &mut b,
        &x,
        &dims,
        keepdims,
        kind.combiner(),
        elem,
        |r, idx| {
            let xv = r.read(&x, idx.clone(), None);
            match kind {
                Kind::L1 => un(UnOp::Abs, xv),
                Kind::L2 | Kind::SumSquare => mul(xv.clone(), xv),
                Kind::LogSumExp => {
                    // `mx` is built above exactly when the kind is LogSumExp.
                    let m = mx.as_ref().expect("max stage");
                    // The max has every reduced dim as 1.
                    let mi = idx
                        .iter()
                        .enumerate()
                        .map(|(j, e)| {
                            if dims.contains(&j) {
                                AffineExpr::constant(0)
                            } else {
                                e.clone()
                            }
                        })
                        .collect();
                    let mv = r.read(m, mi, None);
                    un(UnOp::Exp, sub(xv, mv))
                }
                _ => xv,
            }
        },
    )?;
    let post = |v| match kind {
        Kind::Mean => div(v, k(count as f64, elem)),
        Kind::L2 => un(UnOp::Sqrt, v),
        Kind::LogSum => un(UnOp::Log, v),
        _ => v,
    };
    let shape = s.shape().to_vec();
    let all = super::build::all_dims(shape.len());
    let y = match kind {
        Kind::Mean | Kind::L2 | Kind::LogSum => {
            b.map(&shape, elem, |r| post(r.read_dims(&s, &all)))?
        }
        Kind::LogSumExp => {
            // As above: built for LogSumExp only.
            let m = mx.as_ref().expect("max stage");
            // The max in keepdims layout, read at the result's point.
            let (_, _, idx_of) = reduce_layout(x.shape(), &dims, keepdims);
            b.map(&shape, elem, |r| {
                let v = r.read_dims(&s, &all);
                let mi = idx_of
                    .iter()
                    .map(|&(is_red, i)| {
                        if is_red {
                            AffineExpr::constant(0)
                        } else {
                            r.ax(i)
                        }
                    })
                    .collect();
                let mv = r.read(m, mi, None);
                add(un(UnOp::Log, v), mv)
            })?
        }
        _ => s,
    };
    Ok(b.finish(vec![y]))
}

/// A reduction of a tensor with a zero dim: a constant result, the reduction's value on
/// the empty set (0 for sums, 1 for the product, -inf for max and the logs, +inf for
/// min, NaN for the mean; false/true for boolean max/min), or an empty tensor when a
/// kept dim is zero.
fn empty_input(
    node: &Node,
    kind: Kind,
    shape: &[i64],
    elem: Option<ElemType>,
) -> Result<Expansion, OpError> {
    let boolean = elem == Some(ElemType::I1) && matches!(kind, Kind::Max | Kind::Min);
    let Some(elem) = elem.filter(|e| e.is_float() || boolean) else {
        return Err(OpError(
            "a reduction of an empty tensor is supported for float types (and booleans in ReduceMax/ReduceMin) only".into(),
        ));
    };
    let dims = reduced_dims(node, kind, shape.len())?.unwrap_or_default();
    let keepdims = node.int("keepdims", 1) != 0;
    let (par, _, _) = reduce_layout(shape, &dims, keepdims);
    let value = match kind {
        // any() of nothing is false, all() of nothing is true.
        Kind::Max if boolean => 0.0,
        Kind::Min if boolean => 1.0,
        Kind::Sum | Kind::L1 | Kind::L2 | Kind::SumSquare => 0.0,
        Kind::Prod => 1.0,
        Kind::Max | Kind::LogSum | Kind::LogSumExp => f64::NEG_INFINITY,
        Kind::Min => f64::INFINITY,
        Kind::Mean => f64::NAN,
    };
    // With no reduced dim the result is the (empty) input's shape: still empty.
    let n: i64 = par.iter().product();
    let mut b = Builder::new();
    let y = b.constant(par, elem, vec![value; n as usize]);
    Ok(b.finish(vec![y]))
}

/// ReduceMax / ReduceMin of booleans (any / all): the reduction on `i8`, then `!= 0`
/// (te reduces no `i1`).
fn bool_any_all(node: &Node, kind: Kind, x: &Val) -> Result<Expansion, OpError> {
    let dims = reduced_dims(node, kind, x.rank())?.unwrap_or_default();
    let keepdims = node.int("keepdims", 1) != 0;
    let mut b = Builder::new();
    let s = reduce_stage(
        &mut b,
        x,
        &dims,
        keepdims,
        kind.combiner(),
        ElemType::I8,
        |r, idx| cast(r.read(x, idx, None), ElemType::I1, ElemType::I8),
    )?;
    let shape = s.shape().to_vec();
    let all = super::build::all_dims(shape.len());
    let y = b.map(&shape, ElemType::I1, |r| {
        cmp(CmpOp::Ne, r.read_dims(&s, &all), k(0.0, ElemType::I8))
    })?;
    Ok(b.finish(vec![y]))
}
