//! Folding nodes whose inputs are all known at import time, for what the te
//! interpreter cannot run: int64 shape arithmetic and data movement of any element
//! type (float nodes are folded by running their expansion, see [`super`]).
//!
//! Data movement (`Reshape`, `Gather`, `Concat`, `Slice`, ...) reuses the operators'
//! own expansions, so their semantics are written once: the data inputs are replaced by
//! f64 tensors of element positions, the expansion runs on the te interpreter, and the
//! positions it returns pick the real elements of whatever type.

use super::tensor::{data_concat, data_dtype, data_f64, data_from_f64, data_len, data_take, dtype};
use crate::eval::{const_to_tensor, eval_expansion};
use crate::ops::basic::util::{broadcast_index, broadcast_shapes, const_ints};
use crate::ops::{self, ConstData, ConstTensor, NodeAttrs, NodeInfo, OpError, OpInput, ValueType};
use rtile_dialects::te::model::ElemType;
use rtile_runtime::interp::Accumulate;

/// Folds a node whose present inputs are all constants; `None` when this module does
/// not fold `info.op_type` for these inputs (the caller then folds the expansion).
pub fn fold(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Option<Result<Vec<ConstTensor>, OpError>> {
    let consts: Vec<Option<&ConstTensor>> =
        inputs.iter().map(|i| i.and_then(|i| i.value)).collect();
    let ints = consts.iter().flatten().all(|c| !is_float(&c.data));
    Some(match info.op_type {
        "Reshape" | "Flatten" | "Squeeze" | "Unsqueeze" | "Transpose" | "Expand" | "Slice"
        | "Gather" | "Split" | "Concat" | "Identity" => movement(info, inputs, attrs),
        "Cast" => cast(&consts, attrs),
        "Size" => consts.first().copied().flatten().map(|c| {
            Ok(vec![ConstTensor {
                shape: vec![],
                data: ConstData::I64(vec![c.shape.iter().product()]),
            }])
        })?,
        "Range" => range(&consts),
        "Where" => where_op(&consts),
        "Add" | "Sub" | "Mul" | "Div" | "Equal" | "Less" | "Greater" | "Max" | "Min" | "Mod"
            if ints =>
        {
            int_binary(info.op_type, &consts)
        }
        "Neg" | "Abs" if ints => int_unary(info.op_type, &consts),
        _ => return None,
    })
}

/// The most elements a folded value may have (the interpreter holds it in memory).
pub const FOLD_LIMIT: usize = 1 << 26;

/// The most elements any value of an imported graph may have.
pub const VALUE_LIMIT: usize = 1 << 40;

/// Checks that every step result and constant of `exp` has positive dims and at most
/// `limit` elements.
pub fn check_sizes(exp: &crate::ops::Expansion, limit: usize) -> Result<(), String> {
    let shapes = exp
        .steps
        .iter()
        .map(|s| match s {
            crate::ops::Step::Compute { compute, .. } => &compute.result.shape,
            crate::ops::Step::Reshape { shape, .. } => shape,
        })
        .chain(exp.consts.iter().map(|c| &c.shape));
    for shape in shapes {
        if !super::tensor::shape_within(shape, limit) {
            return Err(format!(
                "a value of shape {shape:?} is too large (at most {limit} elements)"
            ));
        }
    }
    Ok(())
}

fn checked_out(shape: &[i64]) -> Result<(), OpError> {
    match super::tensor::num_elements(shape) {
        Ok(n) if n <= FOLD_LIMIT => Ok(()),
        _ => Err(OpError(format!(
            "the folded value of shape {shape:?} is too large"
        ))),
    }
}

fn is_float(d: &ConstData) -> bool {
    matches!(
        d,
        ConstData::F32(_) | ConstData::F64(_) | ConstData::F16(_) | ConstData::Bf16(_)
    )
}

fn arg<'a>(consts: &[Option<&'a ConstTensor>], i: usize) -> Result<&'a ConstTensor, OpError> {
    consts
        .get(i)
        .copied()
        .flatten()
        .ok_or_else(|| OpError(format!("input {i} is missing")))
}

/// Data movement on constants of any element type through the operator's expansion.
fn movement(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Vec<ConstTensor>, OpError> {
    let data_inputs: Vec<usize> = if info.op_type == "Concat" {
        (0..inputs.len()).collect()
    } else {
        vec![0]
    };
    let mut all: Option<ConstData> = None;
    let mut pos_tensors: Vec<(ValueType, ConstTensor)> = Vec::new();
    let mut offset = 0usize;
    for &i in &data_inputs {
        let c = inputs
            .get(i)
            .copied()
            .flatten()
            .and_then(|x| x.value)
            .ok_or_else(|| OpError(format!("input {i} is missing")))?;
        let n = data_len(&c.data);
        all = Some(match all {
            None => c.data.clone(),
            Some(a) => data_concat(&a, &c.data)
                .ok_or_else(|| OpError("inputs have different element types".into()))?,
        });
        let pos = ConstTensor {
            shape: c.shape.clone(),
            data: ConstData::F64((offset..offset + n).map(|p| p as f64).collect()),
        };
        pos_tensors.push((
            ValueType {
                shape: c.shape.clone(),
                elem: Some(ElemType::F64),
            },
            pos,
        ));
        offset += n;
    }
    let all = all.ok_or_else(|| OpError("no data input".into()))?;
    let mut subst: Vec<Option<OpInput>> = inputs.to_vec();
    for (k, &i) in data_inputs.iter().enumerate() {
        subst[i] = Some(OpInput {
            ty: &pos_tensors[k].0,
            value: Some(&pos_tensors[k].1),
        });
    }
    let exp = ops::expand(info, &subst, attrs)
        .ok_or_else(|| OpError(format!("the operator {} is not supported", info.op_type)))??;
    check_sizes(&exp, FOLD_LIMIT).map_err(OpError)?;
    let tensors: Vec<_> = subst
        .iter()
        .map(|i| i.and_then(|i| i.value).and_then(const_to_tensor))
        .collect();
    let outs = eval_expansion(&exp, &tensors, Accumulate::Native)
        .map_err(|m| OpError(format!("folding failed: {m}")))?;
    let len = data_len(&all);
    outs.into_iter()
        .map(|t| {
            let idx: Vec<usize> = t.data.iter().map(|&p| p as usize).collect();
            if idx.iter().any(|&i| i >= len) {
                return Err(OpError("internal: folding read outside the data".into()));
            }
            Ok(ConstTensor {
                shape: t.shape,
                data: data_take(&all, &idx),
            })
        })
        .collect()
}

/// Cast (any supported types): floats round to nearest, to integers truncate.
fn cast(
    consts: &[Option<&ConstTensor>],
    attrs: &dyn NodeAttrs,
) -> Result<Vec<ConstTensor>, OpError> {
    let x = arg(consts, 0)?;
    let to = attrs
        .int("to")
        .ok_or_else(|| OpError("attribute 'to' is missing".into()))?;
    let to = i32::try_from(to).map_err(|_| OpError(format!("'to' = {to} is not a data type")))?;
    let data = match (&x.data, to) {
        (ConstData::I64(v), dtype::INT64) => ConstData::I64(v.clone()),
        (ConstData::I64(v), dtype::INT32) => ConstData::I32(v.iter().map(|&x| x as i32).collect()),
        (d, to) => data_from_f64(to, &data_f64(d)).map_err(OpError)?,
    };
    Ok(vec![ConstTensor {
        shape: x.shape.clone(),
        data,
    }])
}

/// Range (opset 11): `max(ceil((limit - start) / delta), 0)` elements.
fn range(consts: &[Option<&ConstTensor>]) -> Result<Vec<ConstTensor>, OpError> {
    let s = arg(consts, 0)?;
    let scalar = |i| -> Result<f64, OpError> {
        match data_f64(&arg(consts, i)?.data).as_slice() {
            [v] => Ok(*v),
            _ => Err(OpError(format!("input {i} must be a scalar"))),
        }
    };
    let (start, limit, delta) = (scalar(0)?, scalar(1)?, scalar(2)?);
    if delta == 0.0 {
        return Err(OpError("delta is 0".into()));
    }
    let n = ((limit - start) / delta).ceil().max(0.0);
    if n > (1u64 << 28) as f64 {
        return Err(OpError("the range is too long".into()));
    }
    let data = match &s.data {
        ConstData::I64(_) | ConstData::I32(_) => {
            let (a, d) = (start as i64, delta as i64);
            let v: Vec<f64> = (0..n as i64)
                .map(|k| a.wrapping_add(k.wrapping_mul(d)) as f64)
                .collect();
            data_from_f64(data_dtype(&s.data), &v)
        }
        other => data_from_f64(
            data_dtype(other),
            &(0..n as i64)
                .map(|k| start + k as f64 * delta)
                .collect::<Vec<_>>(),
        ),
    }
    .map_err(OpError)?;
    Ok(vec![ConstTensor {
        shape: vec![n as i64],
        data,
    }])
}

/// Where (opset 9, 16): broadcast select of any element type.
fn where_op(consts: &[Option<&ConstTensor>]) -> Result<Vec<ConstTensor>, OpError> {
    let (c, x, y) = (arg(consts, 0)?, arg(consts, 1)?, arg(consts, 2)?);
    let ConstData::Bool(cond) = &c.data else {
        return Err(OpError("the condition must be bool".into()));
    };
    let out = broadcast_shapes(&[&c.shape, &x.shape, &y.shape])?;
    checked_out(&out)?;
    let (ic, ix, iy) = (
        broadcast_index(&c.shape, &out),
        broadcast_index(&x.shape, &out),
        broadcast_index(&y.shape, &out),
    );
    let n = data_len(&x.data);
    let both = data_concat(&x.data, &y.data)
        .ok_or_else(|| OpError("X and Y have different element types".into()))?;
    let idx: Vec<usize> = (0..ic.len())
        .map(|k| if cond[ic[k]] { ix[k] } else { n + iy[k] })
        .collect();
    Ok(vec![ConstTensor {
        shape: out,
        data: data_take(&both, &idx),
    }])
}

fn as_i64(c: &ConstTensor) -> Vec<i64> {
    match &c.data {
        ConstData::I64(v) => v.clone(),
        d => data_f64(d).iter().map(|&x| x as i64).collect(),
    }
}

/// Integer arithmetic and comparisons with broadcasting (ONNX integer `Div` truncates,
/// `Mod` with fmod=0 takes the divisor's sign).
fn int_binary(op: &str, consts: &[Option<&ConstTensor>]) -> Result<Vec<ConstTensor>, OpError> {
    let (a, b) = (arg(consts, 0)?, arg(consts, 1)?);
    if data_dtype(&a.data) != data_dtype(&b.data) {
        return Err(OpError("inputs have different element types".into()));
    }
    let out = broadcast_shapes(&[&a.shape, &b.shape])?;
    checked_out(&out)?;
    let (ia, ib) = (
        broadcast_index(&a.shape, &out),
        broadcast_index(&b.shape, &out),
    );
    let (va, vb) = (as_i64(a), as_i64(b));
    let mut vals = Vec::with_capacity(ia.len());
    let mut bools = Vec::new();
    for k in 0..ia.len() {
        let (x, y) = (va[ia[k]], vb[ib[k]]);
        match op {
            "Equal" => bools.push(x == y),
            "Less" => bools.push(x < y),
            "Greater" => bools.push(x > y),
            _ => vals.push(match op {
                "Add" => x.wrapping_add(y),
                "Sub" => x.wrapping_sub(y),
                "Mul" => x.wrapping_mul(y),
                "Max" => x.max(y),
                "Min" => x.min(y),
                "Div" | "Mod" if y == 0 => return Err(OpError("integer division by zero".into())),
                "Div" => x.wrapping_div(y),
                _ => {
                    let m = x.wrapping_rem(y);
                    if m != 0 && (m < 0) != (y < 0) {
                        m + y
                    } else {
                        m
                    }
                }
            }),
        }
    }
    let data = if matches!(op, "Equal" | "Less" | "Greater") {
        ConstData::Bool(bools)
    } else {
        match &a.data {
            ConstData::I64(_) => ConstData::I64(vals),
            d => data_from_f64(
                data_dtype(d),
                &vals.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            )
            .map_err(OpError)?,
        }
    };
    Ok(vec![ConstTensor { shape: out, data }])
}

fn int_unary(op: &str, consts: &[Option<&ConstTensor>]) -> Result<Vec<ConstTensor>, OpError> {
    let a = arg(consts, 0)?;
    let v: Vec<i64> = as_i64(a)
        .iter()
        .map(|&x| {
            if op == "Neg" {
                x.wrapping_neg()
            } else {
                x.wrapping_abs()
            }
        })
        .collect();
    let data = match &a.data {
        ConstData::I64(_) => ConstData::I64(v),
        d => data_from_f64(
            data_dtype(d),
            &v.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        )
        .map_err(OpError)?,
    };
    Ok(vec![ConstTensor {
        shape: a.shape.clone(),
        data,
    }])
}

/// Reads constant int64 values (used by tests).
pub fn ints_of(c: &ConstTensor) -> Option<Vec<i64>> {
    const_ints(
        OpInput {
            ty: &super::tensor::const_type(c),
            value: Some(c),
        },
        "",
    )
    .ok()
}
