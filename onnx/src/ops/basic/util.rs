//! Helpers shared by the basic operators: input checks, numpy broadcasting, and
//! elementwise te stages.

use crate::ops::{ConstData, Expansion, OpError, OpInput, Src, Step, ValueType};
use rtile::ir::affine::{AffineExpr, AffineMap};
use rtile_dialects::te::model::{Access, Axis, AxisKind, ElemType, Expr, TeCompute, TensorType};

/// An error as `Err`.
pub fn err<T>(m: impl Into<String>) -> Result<T, OpError> {
    Err(OpError(m.into()))
}

/// Input `i`, which must be present.
pub fn input<'a>(inputs: &[Option<OpInput<'a>>], i: usize) -> Result<OpInput<'a>, OpError> {
    match inputs.get(i).copied().flatten() {
        Some(x) => Ok(x),
        None => err(format!("input {i} is missing")),
    }
}

/// Input `i` when present.
pub fn opt_input<'a>(inputs: &[Option<OpInput<'a>>], i: usize) -> Option<OpInput<'a>> {
    inputs.get(i).copied().flatten()
}

/// The te type of input `i` (te data: float, int32, int8, bool).
pub fn te_type(inputs: &[Option<OpInput>], i: usize) -> Result<TensorType, OpError> {
    let x = input(inputs, i)?;
    tensor_type(x.ty, i)
}

/// The te type of a value type.
pub fn tensor_type(t: &ValueType, i: usize) -> Result<TensorType, OpError> {
    match t.elem {
        Some(e) => {
            if t.shape.iter().any(|&d| d <= 0) {
                return err(format!("input {i} has no elements (shape {:?})", t.shape));
            }
            Ok(TensorType::new(t.shape.clone(), e))
        }
        None => err(format!(
            "input {i} is an int64 (or uint8) tensor that is not known at import time; te computes on float, int32, int8 and bool data"
        )),
    }
}

/// The values of a constant integer input (int64 or int32), e.g. shapes and axes.
pub fn const_ints(x: OpInput, what: &str) -> Result<Vec<i64>, OpError> {
    match x.value.map(|c| &c.data) {
        Some(ConstData::I64(v)) => Ok(v.clone()),
        Some(ConstData::I32(v)) => Ok(v.iter().map(|&x| x as i64).collect()),
        Some(_) => err(format!("{what} must be an int64 or int32 tensor")),
        None => err(format!(
            "{what} must be known at import time (a constant or an initializer)"
        )),
    }
}

/// A constant float scalar input (Clip's min/max ...), as f64.
pub fn const_scalar(x: OpInput, what: &str) -> Result<f64, OpError> {
    let c = x
        .value
        .ok_or_else(|| OpError(format!("{what} must be known at import time")))?;
    let v = crate::import::tensor::data_f64(&c.data);
    match v.as_slice() {
        [x] => Ok(*x),
        _ => err(format!("{what} must be a single value")),
    }
}

/// An axis in `[-rank, rank)` made non-negative.
pub fn norm_axis(axis: i64, rank: usize, what: &str) -> Result<usize, OpError> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return err(format!("{what} {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}

/// Multidirectional (numpy) broadcasting of `shapes` (ONNX Broadcasting.md).
pub fn broadcast_shapes(shapes: &[&[i64]]) -> Result<Vec<i64>, OpError> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1i64; rank];
    for s in shapes {
        for (k, &d) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + k];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return err(format!(
                    "shapes {:?} cannot be broadcast together",
                    shapes.iter().map(|s| s.to_vec()).collect::<Vec<_>>()
                ));
            }
        }
    }
    Ok(out)
}

/// The access map reading a tensor of `in_shape` broadcast to `out_rank` dims
/// (right-aligned; a dim of size 1 reads index 0).
pub fn broadcast_map(in_shape: &[i64], out_shape: &[i64]) -> AffineMap {
    let off = out_shape.len() - in_shape.len();
    AffineMap::new(
        out_shape.len() as u32,
        0,
        in_shape
            .iter()
            .enumerate()
            .map(|(k, &d)| {
                if d == 1 && out_shape[off + k] != 1 {
                    AffineExpr::constant(0)
                } else {
                    AffineExpr::dim((off + k) as u32)
                }
            })
            .collect(),
    )
}

/// Parallel axes `d0, d1, ..` over `shape`.
pub fn parallel_axes(shape: &[i64]) -> Vec<Axis> {
    shape
        .iter()
        .enumerate()
        .map(|(i, &e)| Axis {
            name: format!("d{i}"),
            extent: e,
            kind: AxisKind::Parallel,
        })
        .collect()
}

/// A stage over `out_shape` reading each of `inputs` once, broadcast, as
/// `Expr::Access(i)` for input `i`.
pub fn elementwise(
    inputs: &[TensorType],
    out_shape: &[i64],
    out: ElemType,
    body: Expr,
) -> TeCompute {
    TeCompute {
        axes: parallel_axes(out_shape),
        inputs: inputs.to_vec(),
        accesses: inputs
            .iter()
            .enumerate()
            .map(|(i, t)| Access {
                input: i,
                map: broadcast_map(&t.shape, out_shape),
                pad: None,
            })
            .collect(),
        body,
        combiner: None,
        result: TensorType::new(out_shape.to_vec(), out),
        may_pad: None,
        padded_from: None,
        accumulator: None,
    }
}

/// A stage over `out_shape` reading one input through `map` (data movement).
pub fn gather_stage(input: &TensorType, out_shape: &[i64], map: Vec<AffineExpr>) -> TeCompute {
    TeCompute {
        axes: parallel_axes(out_shape),
        inputs: vec![input.clone()],
        accesses: vec![Access {
            input: 0,
            map: AffineMap::new(out_shape.len() as u32, 0, map),
            pad: None,
        }],
        body: Expr::Access(0),
        combiner: None,
        result: TensorType::new(out_shape.to_vec(), input.elem),
        may_pad: None,
        padded_from: None,
        accumulator: None,
    }
}

/// An expansion of one stage whose result is the only output.
pub fn one_stage(compute: TeCompute, operands: Vec<Src>) -> Expansion {
    Expansion {
        consts: vec![],
        steps: vec![Step::Compute { compute, operands }],
        outputs: vec![Src::Step(0)],
    }
}

/// A constant of the element type `t` in a body.
pub fn lit(v: f64, t: ElemType) -> Expr {
    Expr::Const(v, t)
}

/// `Expr::Binary`.
pub fn bin(op: rtile_dialects::te::model::BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

/// `Expr::Unary`.
pub fn un(op: rtile_dialects::te::model::UnOp, a: Expr) -> Expr {
    Expr::Unary(op, Box::new(a))
}

/// `Expr::Select`.
pub fn select(c: Expr, a: Expr, b: Expr) -> Expr {
    Expr::Select(Box::new(c), Box::new(a), Box::new(b))
}

/// `Expr::Cmp`.
pub fn cmp(op: rtile_dialects::te::model::CmpOp, a: Expr, b: Expr) -> Expr {
    Expr::Cmp(op, Box::new(a), Box::new(b))
}

/// For each element of `out_shape` (row-major), the row-major position of the element
/// of a tensor of `in_shape` broadcast to it.
pub fn broadcast_index(in_shape: &[i64], out_shape: &[i64]) -> Vec<usize> {
    let n: i64 = out_shape.iter().product();
    let off = out_shape.len() - in_shape.len();
    let mut strides = vec![0i64; out_shape.len()];
    let mut s = 1;
    for k in (0..in_shape.len()).rev() {
        strides[off + k] = if in_shape[k] == 1 { 0 } else { s };
        s *= in_shape[k];
    }
    (0..n)
        .map(|mut j| {
            let mut p = 0;
            for k in (0..out_shape.len()).rev() {
                p += (j % out_shape[k]) * strides[k];
                j /= out_shape[k];
            }
            p as usize
        })
        .collect()
}
