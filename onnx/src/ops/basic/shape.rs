//! Shapes and constants: `Reshape`, `Flatten`, `Squeeze`, `Unsqueeze`, `Transpose`,
//! `Expand`, `Shape`, `Constant`, `ConstantOfShape`.

use super::util::{
    broadcast_shapes, const_ints, elementwise, err, gather_stage, input, norm_axis, one_stage,
    opt_input, te_type,
};
use crate::ops::{
    ConstData, ConstTensor, Expansion, NodeAttrs, NodeInfo, OpError, OpInput, Src, Step,
};
use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::Expr;

/// Expands the shape operators; `None` for other op types.
pub fn expand(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Option<Result<Expansion, OpError>> {
    Some(match info.op_type {
        "Reshape" => reshape(info, inputs, attrs),
        "Flatten" => flatten(inputs, attrs),
        "Squeeze" => squeeze(info, inputs, attrs),
        "Unsqueeze" => unsqueeze(info, inputs, attrs),
        "Transpose" => transpose(inputs, attrs),
        "Expand" => expand_op(inputs),
        "Shape" => shape_op(inputs, attrs),
        "Constant" => constant(attrs),
        "ConstantOfShape" => constant_of_shape(inputs, attrs),
        _ => return None,
    })
}

/// A reshape of input 0 as the only output.
fn reshape_to(shape: Vec<i64>) -> Expansion {
    Expansion {
        consts: vec![],
        steps: vec![Step::Reshape {
            src: Src::Input(0),
            shape,
        }],
        outputs: vec![Src::Step(0)],
    }
}

/// The target shape of Reshape (opset 5, 13, 14, 19, 21): `0` copies the input's dim
/// (unless `allowzero`), one `-1` is inferred.
pub fn reshape_shape(input: &[i64], spec: &[i64], allowzero: bool) -> Result<Vec<i64>, OpError> {
    let total: i64 = input.iter().product();
    let mut out = Vec::with_capacity(spec.len());
    let mut infer = None;
    for (i, &d) in spec.iter().enumerate() {
        match d {
            -1 if infer.is_none() => {
                infer = Some(i);
                out.push(1);
            }
            -1 => return err("the shape has more than one -1"),
            0 if !allowzero => match input.get(i) {
                Some(&v) => out.push(v),
                None => {
                    return err(format!(
                        "shape entry {i} is 0 but the input has rank {}",
                        input.len()
                    ));
                }
            },
            d if d < 0 => return err(format!("shape entry {d} is invalid")),
            d => out.push(d),
        }
    }
    let known = out.iter().try_fold(1i64, |a, &d| a.checked_mul(d));
    match (infer, known) {
        (_, None) => err(format!("the shape {spec:?} is too large")),
        (Some(i), Some(k)) => {
            if k == 0 || total % k != 0 {
                return err(format!("cannot reshape {input:?} to {spec:?}"));
            }
            out[i] = total / k;
            Ok(out)
        }
        (None, Some(k)) if k == total => Ok(out),
        (None, Some(_)) => err(format!(
            "cannot reshape {input:?} ({total} elements) to {spec:?}"
        )),
    }
}

fn reshape(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let x = input(inputs, 0)?;
    let spec = if info.opset < 5 {
        attrs
            .ints("shape")
            .ok_or_else(|| OpError("attribute 'shape' is missing".into()))?
    } else {
        const_ints(input(inputs, 1)?, "the shape input")?
    };
    let allowzero = attrs.int("allowzero").unwrap_or(0) != 0;
    Ok(reshape_to(reshape_shape(&x.ty.shape, &spec, allowzero)?))
}

/// Flatten (opset 1, 9, 11, 13, 21): `[prod(dims[..axis]), prod(dims[axis..])]`; `axis`
/// defaults to 1 and may be negative (from 11) or equal to the rank.
fn flatten(inputs: &[Option<OpInput>], attrs: &dyn NodeAttrs) -> Result<Expansion, OpError> {
    let x = input(inputs, 0)?;
    let r = x.ty.shape.len() as i64;
    let axis = attrs.int("axis").unwrap_or(1);
    if axis < -r || axis > r {
        return err(format!("axis {axis} is out of range for rank {r}"));
    }
    let a = if axis < 0 { axis + r } else { axis } as usize;
    let outer: i64 = x.ty.shape[..a].iter().product();
    let inner: i64 = x.ty.shape[a..].iter().product();
    Ok(reshape_to(vec![outer, inner]))
}

/// The axes of Squeeze/Unsqueeze: attribute before opset 13, input from 13.
fn axes_of(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Option<Vec<i64>>, OpError> {
    if info.opset < 13 {
        Ok(attrs.ints("axes"))
    } else {
        opt_input(inputs, 1)
            .map(|a| const_ints(a, "the axes input"))
            .transpose()
    }
}

/// Squeeze (opset 1, 11, 13, 21): removes the listed dims of size 1, or all of them.
fn squeeze(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let x = input(inputs, 0)?;
    let shape = &x.ty.shape;
    let drop: Vec<usize> = match axes_of(info, inputs, attrs)? {
        None => (0..shape.len()).filter(|&i| shape[i] == 1).collect(),
        Some(axes) => {
            let mut v = Vec::new();
            for a in axes {
                let a = norm_axis(a, shape.len(), "axis")?;
                if shape[a] != 1 {
                    return err(format!("cannot squeeze axis {a} of size {}", shape[a]));
                }
                v.push(a);
            }
            v
        }
    };
    let out = (0..shape.len())
        .filter(|i| !drop.contains(i))
        .map(|i| shape[i])
        .collect();
    Ok(reshape_to(out))
}

/// Unsqueeze (opset 1, 11, 13, 21): inserts dims of size 1 at `axes` (of the output).
fn unsqueeze(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let x = input(inputs, 0)?;
    let axes =
        axes_of(info, inputs, attrs)?.ok_or_else(|| OpError("the axes are missing".into()))?;
    let rank = x.ty.shape.len() + axes.len();
    let mut ins = Vec::new();
    for a in axes {
        let a = norm_axis(a, rank, "axis")?;
        if ins.contains(&a) {
            return err(format!("axis {a} is repeated"));
        }
        ins.push(a);
    }
    let mut it = x.ty.shape.iter();
    let out = (0..rank)
        .map(|i| {
            if ins.contains(&i) {
                1
            } else {
                *it.next().unwrap_or(&1)
            }
        })
        .collect();
    Ok(reshape_to(out))
}

/// Transpose (opset 1, 13, 21): `perm` defaults to the reversed dims.
fn transpose(inputs: &[Option<OpInput>], attrs: &dyn NodeAttrs) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let r = x.shape.len();
    let perm = attrs
        .ints("perm")
        .unwrap_or_else(|| (0..r as i64).rev().collect());
    let mut seen = vec![false; r];
    if perm.len() != r
        || perm
            .iter()
            .any(|&p| p < 0 || p as usize >= r || std::mem::replace(&mut seen[p as usize], true))
    {
        return err(format!("perm {perm:?} is not a permutation of {r} dims"));
    }
    let out: Vec<i64> = perm.iter().map(|&p| x.shape[p as usize]).collect();
    // Output dim j is input dim perm[j]: input dim k is read at the output axis j with perm[j] = k.
    let map = (0..r)
        .map(|k| AffineExpr::dim(perm.iter().position(|&p| p as usize == k).unwrap_or(0) as u32))
        .collect();
    Ok(one_stage(gather_stage(&x, &out, map), vec![Src::Input(0)]))
}

/// Expand (opset 8, 13): broadcasts the input with the constant `shape`
/// (bidirectionally).
fn expand_op(inputs: &[Option<OpInput>]) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let shape = const_ints(input(inputs, 1)?, "the shape input")?;
    let out = broadcast_shapes(&[&x.shape, &shape])?;
    if out.iter().any(|&d| d <= 0) {
        return err(format!("the output shape {out:?} has no elements"));
    }
    let e = x.elem;
    Ok(one_stage(
        elementwise(&[x], &out, e, Expr::Access(0)),
        vec![Src::Input(0)],
    ))
}

/// Shape (opset 1, 13, 15, 19, 21): the input's dims `[start, end)` (clamped, negative
/// from the end), an int64 constant.
fn shape_op(inputs: &[Option<OpInput>], attrs: &dyn NodeAttrs) -> Result<Expansion, OpError> {
    let x = input(inputs, 0)?;
    let r = x.ty.shape.len() as i64;
    let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let start = clamp(attrs.int("start").unwrap_or(0));
    let end = clamp(attrs.int("end").unwrap_or(r));
    let dims: Vec<i64> = x.ty.shape[start..end.max(start)].to_vec();
    Ok(Expansion {
        consts: vec![ConstTensor {
            shape: vec![dims.len() as i64],
            data: ConstData::I64(dims),
        }],
        steps: vec![],
        outputs: vec![Src::Const(0)],
    })
}

/// Constant (opset 1, 9, 11, 12, 13, 19, 21): `value`, `value_float(s)`, `value_int(s)`;
/// sparse and string values are refused.
fn constant(attrs: &dyn NodeAttrs) -> Result<Expansion, OpError> {
    let names = attrs.names();
    let c = if let Some(t) = attrs.tensor("value") {
        t
    } else if let Some(f) = attrs.float("value_float") {
        ConstTensor {
            shape: vec![],
            data: ConstData::F32(vec![f]),
        }
    } else if let Some(i) = attrs.int("value_int") {
        ConstTensor {
            shape: vec![],
            data: ConstData::I64(vec![i]),
        }
    } else if names.iter().any(|n| n == "value_floats") {
        let v = attrs.floats("value_floats").unwrap_or_default();
        ConstTensor {
            shape: vec![v.len() as i64],
            data: ConstData::F32(v),
        }
    } else if names.iter().any(|n| n == "value_ints") {
        let v = attrs.ints("value_ints").unwrap_or_default();
        ConstTensor {
            shape: vec![v.len() as i64],
            data: ConstData::I64(v),
        }
    } else if names.iter().any(|n| n == "value") {
        return err(
            "the 'value' tensor cannot be read (unsupported element type or malformed data)",
        );
    } else {
        return err(format!(
            "no supported value attribute (value, value_float(s), value_int(s)); the node has {names:?}"
        ));
    };
    Ok(Expansion {
        consts: vec![c],
        steps: vec![],
        outputs: vec![Src::Const(0)],
    })
}

/// ConstantOfShape (opset 9, 20, 21): the constant `shape` filled with `value` (one
/// element; float32 0 by default).
fn constant_of_shape(
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let shape = const_ints(input(inputs, 0)?, "the shape input")?;
    if shape.iter().any(|&d| d < 0) {
        return err(format!("the shape {shape:?} has a negative dim"));
    }
    let n = crate::import::tensor::num_elements(&shape).map_err(OpError)?;
    let v = match attrs.tensor("value") {
        Some(t) => t,
        None if attrs.names().iter().any(|s| s == "value") => {
            return err("the 'value' tensor cannot be read");
        }
        None => ConstTensor {
            shape: vec![1],
            data: ConstData::F32(vec![0.0]),
        },
    };
    if crate::import::tensor::data_len(&v.data) != 1 {
        return err("'value' must hold one element");
    }
    if !crate::import::tensor::shape_within(&shape, crate::import::fold::FOLD_LIMIT) {
        // Too large to hold at import time (the light VGG-19's 4096 x 25088 weight): a te
        // stage computes the fill instead.
        let Some(t) = crate::eval::const_to_tensor(&v) else {
            return err(format!(
                "the shape {shape:?} is too large for a constant of a type te cannot compute on"
            ));
        };
        let value = t.data[0];
        let fill = elementwise(&[], &shape, t.dtype, Expr::Const(value, t.dtype));
        return Ok(one_stage(fill, vec![]));
    }
    let data = crate::import::tensor::data_take(&v.data, &vec![0; n]);
    Ok(Expansion {
        consts: vec![ConstTensor { shape, data }],
        steps: vec![],
        outputs: vec![Src::Const(0)],
    })
}
