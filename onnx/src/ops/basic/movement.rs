//! Data movement: `Concat`, `Split`, `Slice`, `Pad` (constant mode), `Gather`
//! (constant indices).

use super::util::{
    cmp, const_ints, const_scalar, err, gather_stage, input, lit, norm_axis, one_stage, opt_input,
    parallel_axes, select, te_type,
};
use crate::ops::{
    ConstData, ConstTensor, Expansion, NodeAttrs, NodeInfo, OpError, OpInput, Src, Step,
};
use rtile::ir::affine::{AffineExpr, AffineMap};
use rtile_dialects::te::model::{
    Access, Axis, AxisKind, CmpOp, Combiner, ElemType, Expr, TeCompute, TensorType,
};

/// Expands the data movement operators; `None` for other op types.
pub fn expand(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Option<Result<Expansion, OpError>> {
    Some(match info.op_type {
        "Concat" => concat(info, inputs, attrs),
        "Split" => split(info, inputs, attrs),
        "Slice" => slice(info, inputs, attrs),
        "Pad" => pad(info, inputs, attrs),
        "Gather" => gather(inputs, attrs),
        _ => return None,
    })
}

/// An `i32` constant `[0, 1, .., n-1]`: te bodies see values, not indices, so a
/// selection by index range reads this iota at the axis.
fn iota(n: i64) -> ConstTensor {
    ConstTensor {
        shape: vec![n],
        data: ConstData::I32((0..n as i32).collect()),
    }
}

/// Concat (opset 1, 4, 11, 13; `axis` defaults to 1 before 4): one stage reads every input shifted along `axis` with a
/// pad value and selects the one whose range holds the index (through an iota).
fn concat(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let types = (0..inputs.len())
        .map(|i| te_type(inputs, i))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = types.first() else {
        return err("expects at least one input");
    };
    let r = first.shape.len();
    let axis = norm_axis(
        attrs
            .int("axis")
            .or((info.opset < 4).then_some(1))
            .ok_or_else(|| OpError("attribute 'axis' is missing".into()))?,
        r,
        "axis",
    )?;
    let mut offsets = vec![0i64];
    for t in &types {
        if t.elem != first.elem
            || t.shape.len() != r
            || (0..r).any(|k| k != axis && t.shape[k] != first.shape[k])
        {
            return err(format!(
                "input of type {} does not fit {} along axis {axis}",
                t.text(),
                first.text()
            ));
        }
        offsets.push(offsets.last().copied().unwrap_or(0) + t.shape[axis]);
    }
    if types.len() == 1 {
        return Ok(Expansion {
            outputs: vec![Src::Input(0)],
            ..Expansion::default()
        });
    }
    let mut out = first.shape.clone();
    out[axis] = offsets[types.len()];
    let n = types.len();
    let mut accesses: Vec<Access> = (0..n)
        .map(|i| Access {
            input: i,
            map: AffineMap::new(
                r as u32,
                0,
                (0..r)
                    .map(|k| {
                        let d = AffineExpr::dim(k as u32);
                        if k == axis {
                            AffineExpr::sub(d, AffineExpr::constant(offsets[i]))
                        } else {
                            d
                        }
                    })
                    .collect(),
            ),
            pad: Some(0.0),
        })
        .collect();
    accesses.push(Access {
        input: n,
        map: AffineMap::new(r as u32, 0, vec![AffineExpr::dim(axis as u32)]),
        pad: None,
    });
    let mut all = types.clone();
    all.push(TensorType::new(vec![out[axis]], ElemType::I32));
    let mut body = Expr::Access(n - 1);
    for i in (0..n - 1).rev() {
        body = select(
            cmp(
                CmpOp::Lt,
                Expr::Access(n),
                lit(offsets[i + 1] as f64, ElemType::I32),
            ),
            Expr::Access(i),
            body,
        );
    }
    let c = TeCompute {
        axes: parallel_axes(&out),
        inputs: all,
        accesses,
        body,
        combiner: None,
        result: TensorType::new(out.clone(), first.elem),
        may_pad: None,
        padded_from: None,
        accumulator: None,
    };
    let mut operands: Vec<Src> = (0..n).map(Src::Input).collect();
    operands.push(Src::Const(0));
    Ok(Expansion {
        consts: vec![iota(out[axis])],
        steps: vec![Step::Compute {
            compute: c,
            operands,
        }],
        outputs: vec![Src::Step(0)],
    })
}

/// Split (opset 2, 11, 13, 18): sizes from the `split` attribute (before 13) or input
/// (from 13), else `num_outputs` (18: chunks of ceil(n / num), the last smaller), else
/// equal parts, one per output.
fn split(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let axis = norm_axis(attrs.int("axis").unwrap_or(0), x.shape.len(), "axis")?;
    let dim = x.shape[axis];
    let given = if info.opset < 13 {
        attrs.ints("split")
    } else {
        opt_input(inputs, 1)
            .map(|s| const_ints(s, "the split input"))
            .transpose()?
    };
    let n_out = info.num_outputs.max(1) as i64;
    let sizes = match given {
        Some(s) => s,
        None => {
            let num = attrs.int("num_outputs").unwrap_or(n_out);
            if num <= 0 || num > dim {
                return err(format!(
                    "cannot split an axis of size {dim} into {num} parts"
                ));
            }
            let chunk = if info.opset >= 18 {
                (dim + num - 1) / num
            } else if dim % num == 0 {
                dim / num
            } else {
                return err(format!(
                    "axis of size {dim} does not split into {num} equal parts"
                ));
            };
            (0..num)
                .map(|i| chunk.min(dim - i * chunk).max(0))
                .collect()
        }
    };
    if sizes.iter().map(|&s| s as i128).sum::<i128>() != dim as i128
        || sizes.iter().any(|&s| s <= 0)
    {
        return err(format!(
            "split sizes {sizes:?} do not cover the axis of size {dim} with non-empty parts"
        ));
    }
    let mut exp = Expansion::default();
    let mut off = 0;
    for (i, &s) in sizes.iter().enumerate() {
        let mut out = x.shape.clone();
        out[axis] = s;
        let map = (0..out.len())
            .map(|k| {
                if k == axis {
                    AffineExpr::add(AffineExpr::dim(k as u32), AffineExpr::constant(off))
                } else {
                    AffineExpr::dim(k as u32)
                }
            })
            .collect();
        exp.steps.push(Step::Compute {
            compute: gather_stage(&x, &out, map),
            operands: vec![Src::Input(0)],
        });
        exp.outputs.push(Src::Step(i));
        off += s;
    }
    Ok(exp)
}

/// The first index and length of a slice of a dim of size `d` (Slice opset 10+
/// rules: negative values count from the end, then clamp to `[0, d]` for positive
/// steps and `[-1, d-1]` for negative ones).
pub fn slice_range(d: i64, start: i64, end: i64, step: i64) -> (i64, i64) {
    let norm = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
    let (s, e) = (norm(start), norm(end));
    let (s, e) = if step > 0 {
        (s.clamp(0, d), e.clamp(0, d))
    } else {
        (s.clamp(0, d - 1), e.clamp(-1, d - 1))
    };
    // In i128: a step near i64::MAX must not overflow.
    let (s2, e2, st) = (s as i128, e as i128, step as i128);
    let len = if step > 0 {
        (e2 - s2 + st - 1) / st
    } else {
        (s2 - e2 - st - 1) / -st
    };
    let len = len.max(0) as i64;
    (s, len)
}

/// Slice: attributes `starts`, `ends`, `axes` before opset 10, inputs (with `steps`)
/// from 10; all must be constants.
fn slice(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let r = x.shape.len();
    let (starts, ends, axes, steps) = if info.opset < 10 {
        let need = |n: &str| {
            attrs
                .ints(n)
                .ok_or_else(|| OpError(format!("attribute '{n}' is missing")))
        };
        (need("starts")?, need("ends")?, attrs.ints("axes"), None)
    } else {
        let get = |i, n: &str| opt_input(inputs, i).map(|v| const_ints(v, n)).transpose();
        (
            const_ints(input(inputs, 1)?, "starts")?,
            const_ints(input(inputs, 2)?, "ends")?,
            get(3, "axes")?,
            get(4, "steps")?,
        )
    };
    let axes = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return err("starts, ends, axes and steps have different lengths");
    }
    let mut first = vec![0i64; r];
    let mut stride = vec![1i64; r];
    let mut out = x.shape.clone();
    let mut seen = vec![false; r];
    for k in 0..starts.len() {
        let a = norm_axis(axes[k], r, "axis")?;
        if std::mem::replace(&mut seen[a], true) {
            return err(format!("axis {a} is repeated"));
        }
        if steps[k] == 0 {
            return err("a step is 0");
        }
        let (s, len) = slice_range(x.shape[a], starts[k], ends[k], steps[k]);
        if len == 0 {
            return err(format!(
                "the slice of axis {a} is empty (te tensors have no empty dims)"
            ));
        }
        (first[a], stride[a], out[a]) = (s, steps[k], len);
    }
    let map = (0..r)
        .map(|k| {
            AffineExpr::add(
                AffineExpr::mul(AffineExpr::dim(k as u32), AffineExpr::constant(stride[k])),
                AffineExpr::constant(first[k]),
            )
        })
        .collect();
    Ok(one_stage(gather_stage(&x, &out, map), vec![Src::Input(0)]))
}

/// Pad, constant mode (opset 2, 11, 13, 18, 19, 21): `pads` (begins then ends; negative
/// crops) from the attribute before 11, the input from 11, optional `axes` from 18;
/// the value from the `value` attribute / `constant_value` input. `edge`, `reflect`
/// and `wrap` are refused.
fn pad(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let r = x.shape.len();
    let mode = attrs.string("mode").unwrap_or_else(|| "constant".into());
    if mode != "constant" {
        return err(format!("mode '{mode}' is not supported (only 'constant')"));
    }
    let (pads, value, axes) = if info.opset < 11 {
        let p = attrs
            .ints("pads")
            .or_else(|| attrs.ints("paddings"))
            .ok_or_else(|| OpError("attribute 'pads' is missing".into()))?;
        (p, attrs.float("value").unwrap_or(0.0) as f64, None)
    } else {
        let p = const_ints(input(inputs, 1)?, "pads")?;
        let v = match opt_input(inputs, 2) {
            Some(v) => const_scalar(v, "constant_value")?,
            None => 0.0,
        };
        let axes = opt_input(inputs, 3)
            .map(|a| const_ints(a, "axes"))
            .transpose()?;
        (p, v, axes)
    };
    let axes: Vec<usize> = match axes {
        Some(a) => a
            .iter()
            .map(|&a| norm_axis(a, r, "axis"))
            .collect::<Result<_, _>>()?,
        None => (0..r).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return err(format!(
            "pads has {} entries, {} expected",
            pads.len(),
            2 * axes.len()
        ));
    }
    let mut begin = vec![0i64; r];
    let mut out = x.shape.clone();
    for (k, &a) in axes.iter().enumerate() {
        let (b, e) = (pads[k], pads[k + axes.len()]);
        begin[a] = b;
        out[a] = x.shape[a]
            .checked_add(b)
            .and_then(|v| v.checked_add(e))
            .ok_or_else(|| OpError(format!("pads {pads:?} are too large")))?;
        if out[a] <= 0 {
            return err(format!("axis {a} is padded to size {}", out[a]));
        }
    }
    let map = (0..r)
        .map(|k| AffineExpr::sub(AffineExpr::dim(k as u32), AffineExpr::constant(begin[k])))
        .collect();
    let mut c = gather_stage(&x, &out, map);
    c.accesses[0].pad = Some(value);
    Ok(one_stage(c, vec![Src::Input(0)]))
}

/// Gather (opset 1, 11, 13) with constant indices (negative ones count from the end):
/// indices in arithmetic progression (a scalar, a range) are an affine index; other
/// index tensors become a max-reduction over the axis selecting, through an iota, the
/// element whose position equals the index (exact: every other term is -inf).
fn gather(inputs: &[Option<OpInput>], attrs: &dyn NodeAttrs) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let ind = input(inputs, 1)?;
    let idx = const_ints(ind, "the indices")?;
    let r = x.shape.len();
    let axis = norm_axis(attrs.int("axis").unwrap_or(0), r, "axis")?;
    let d = x.shape[axis];
    let idx: Vec<i64> = idx
        .iter()
        .map(|&i| {
            if (-d..d).contains(&i) {
                Ok(if i < 0 { i + d } else { i })
            } else {
                err(format!("index {i} is out of range for an axis of size {d}"))
            }
        })
        .collect::<Result<_, _>>()?;
    let q = ind.ty.shape.clone();
    let out: Vec<i64> = x.shape[..axis]
        .iter()
        .chain(&q)
        .chain(&x.shape[axis + 1..])
        .copied()
        .collect();
    let dim = |k: usize| AffineExpr::dim(k as u32);
    let outer = |k: usize| {
        if k < axis {
            dim(k)
        } else {
            dim(k + q.len() - 1)
        }
    };
    if idx.is_empty() {
        return err("the indices are empty (te tensors have no empty dims)");
    }
    let step = if idx.len() > 1 { idx[1] - idx[0] } else { 0 };
    let progression = q.len() <= 1 && idx.windows(2).all(|w| w[1] - w[0] == step);
    if progression {
        let map = (0..r)
            .map(|k| match k.cmp(&axis) {
                std::cmp::Ordering::Equal if q.is_empty() => AffineExpr::constant(idx[0]),
                std::cmp::Ordering::Equal => AffineExpr::add(
                    AffineExpr::mul(dim(axis), AffineExpr::constant(step)),
                    AffineExpr::constant(idx[0]),
                ),
                _ => outer(k),
            })
            .collect();
        return Ok(one_stage(gather_stage(&x, &out, map), vec![Src::Input(0)]));
    }
    if x.elem == ElemType::I1 {
        return err("gathering bool data by an index tensor is not supported");
    }
    let red = out.len() as u32;
    let mut axes = parallel_axes(&out);
    axes.push(Axis {
        name: "r".into(),
        extent: d,
        kind: AxisKind::Reduction,
    });
    let nd = red + 1;
    let data_map = (0..r)
        .map(|k| {
            if k == axis {
                AffineExpr::dim(red)
            } else {
                outer(k)
            }
        })
        .collect();
    let idx_map = (0..q.len()).map(|k| dim(axis + k)).collect();
    let filler = rtile_dialects::te::model::Combiner::Max.identity(x.elem);
    let c = TeCompute {
        axes,
        inputs: vec![
            x.clone(),
            TensorType::new(q.clone(), ElemType::I32),
            TensorType::new(vec![d], ElemType::I32),
        ],
        accesses: vec![
            Access {
                input: 0,
                map: AffineMap::new(nd, 0, data_map),
                pad: None,
            },
            Access {
                input: 1,
                map: AffineMap::new(nd, 0, idx_map),
                pad: None,
            },
            Access {
                input: 2,
                map: AffineMap::new(nd, 0, vec![AffineExpr::dim(red)]),
                pad: None,
            },
        ],
        body: select(
            cmp(CmpOp::Eq, Expr::Access(1), Expr::Access(2)),
            Expr::Access(0),
            lit(filler, x.elem),
        ),
        combiner: Some(Combiner::Max),
        result: TensorType::new(out, x.elem),
        may_pad: None,
        padded_from: None,
        accumulator: None,
    };
    let idx32 = ConstTensor {
        shape: q,
        data: ConstData::I32(idx.iter().map(|&i| i as i32).collect()),
    };
    Ok(Expansion {
        consts: vec![idx32, iota(d)],
        steps: vec![Step::Compute {
            compute: c,
            operands: vec![Src::Input(0), Src::Const(0), Src::Const(1)],
        }],
        outputs: vec![Src::Step(0)],
    })
}
