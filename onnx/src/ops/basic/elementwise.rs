//! Elementwise operators: arithmetic with multidirectional broadcasting, activations,
//! `Cast`, `Identity`, `Dropout` (inference).

use super::util::{
    bin, cmp, const_scalar, elementwise, err, input, lit, one_stage, opt_input, select, te_type, un,
};
use crate::ops::{
    ConstData, ConstTensor, Expansion, NodeAttrs, NodeInfo, OpError, OpInput, Src, Step,
};
use rtile_dialects::te::model::{BinOp, CmpOp, ElemType, Expr, TensorType, UnOp};

/// Expands the elementwise operators; `None` for other op types.
pub fn expand(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Option<Result<Expansion, OpError>> {
    // Before opset 7, `broadcast` with `axis` aligned B at an axis (not numpy's rule).
    if matches!(info.op_type, "Add" | "Sub" | "Mul" | "Div" | "Pow")
        && info.opset < 7
        && attrs.int("axis").is_some()
    {
        return Some(err(
            "the legacy broadcast with an 'axis' attribute (opset < 7) is not supported",
        ));
    }
    let binop = |op| variadic(inputs, op, 2, 2);
    Some(match info.op_type {
        // Add, Sub, Mul, Div (opset 7, 13, 14): multidirectional broadcasting.
        "Add" => binop(BinOp::Add),
        "Sub" => binop(BinOp::Sub),
        "Mul" => binop(BinOp::Mul),
        "Div" => binop(BinOp::Div),
        // Sum, Max, Min (opset 8, 12, 13): variadic, broadcasting.
        "Sum" => variadic(inputs, BinOp::Add, 1, usize::MAX),
        "Max" => variadic(inputs, BinOp::Max, 1, usize::MAX),
        "Min" => variadic(inputs, BinOp::Min, 1, usize::MAX),
        "Pow" => pow(inputs),
        "Relu" => unary(inputs, |x, t| bin(BinOp::Max, x, lit(0.0, t))),
        // LeakyRelu (opset 6, 16): alpha defaults to 0.01.
        "LeakyRelu" => {
            let alpha = attrs.float("alpha").unwrap_or(0.01) as f64;
            unary(inputs, move |x, t| {
                select(
                    cmp(CmpOp::Lt, x.clone(), lit(0.0, t)),
                    bin(BinOp::Mul, x.clone(), lit(alpha, t)),
                    x,
                )
            })
        }
        "PRelu" => prelu(info, inputs),
        "Clip" => clip(info, inputs, attrs),
        "Tanh" => unary(inputs, |x, _| un(UnOp::Tanh, x)),
        "Erf" => unary(inputs, |x, _| un(UnOp::Erf, x)),
        "Exp" => unary(inputs, |x, _| un(UnOp::Exp, x)),
        "Log" => unary(inputs, |x, _| un(UnOp::Log, x)),
        "Sqrt" => unary(inputs, |x, _| un(UnOp::Sqrt, x)),
        "Reciprocal" => unary(inputs, |x, t| bin(BinOp::Div, lit(1.0, t), x)),
        "Neg" => unary(inputs, |x, _| un(UnOp::Neg, x)),
        "Abs" => unary(inputs, |x, _| un(UnOp::Abs, x)),
        "Identity" => input(inputs, 0).map(|_| Expansion {
            outputs: vec![Src::Input(0)],
            ..Expansion::default()
        }),
        "Dropout" => dropout(info, inputs, attrs),
        "Cast" => cast(inputs, attrs),
        _ => return None,
    })
}

/// One input through `f(x, elem)`.
fn unary(
    inputs: &[Option<OpInput>],
    f: impl Fn(Expr, ElemType) -> Expr,
) -> Result<Expansion, OpError> {
    let t = te_type(inputs, 0)?;
    if !t.elem.is_float() {
        return err(format!(
            "element type {} is not supported (floats only)",
            t.elem.keyword()
        ));
    }
    let body = f(Expr::Access(0), t.elem);
    let shape = t.shape.clone();
    Ok(one_stage(
        elementwise(std::slice::from_ref(&t), &shape, t.elem, body),
        vec![Src::Input(0)],
    ))
}

/// `op` folded over all inputs (`min..=max` of them), broadcast together.
fn variadic(
    inputs: &[Option<OpInput>],
    op: BinOp,
    min: usize,
    max: usize,
) -> Result<Expansion, OpError> {
    let n = inputs.len();
    if n < min || n > max {
        return err(format!("expects {min} to {max} inputs, got {n}"));
    }
    let types = (0..n)
        .map(|i| te_type(inputs, i))
        .collect::<Result<Vec<_>, _>>()?;
    let elem = types[0].elem;
    if let Some(t) = types.iter().find(|t| t.elem != elem) {
        return err(format!(
            "inputs have different element types ({} and {})",
            elem.keyword(),
            t.elem.keyword()
        ));
    }
    if elem == ElemType::I1 {
        return err("bool inputs are not supported");
    }
    let shapes: Vec<&[i64]> = types.iter().map(|t| &t.shape[..]).collect();
    let out = super::util::broadcast_shapes(&shapes)?;
    let body = (1..n).fold(Expr::Access(0), |acc, i| bin(op, acc, Expr::Access(i)));
    Ok(one_stage(
        elementwise(&types, &out, elem, body),
        (0..n).map(Src::Input).collect(),
    ))
}

/// PRelu (opset 7, 9, 16): `slope` broadcasts to `X` (unidirectionally).
fn prelu(info: NodeInfo, inputs: &[Option<OpInput>]) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let mut s = te_type(inputs, 1)?;
    if s.elem != x.elem {
        return err("slope and X have different element types");
    }
    // Before opset 7 the slope was per channel (PRelu-6: "shared across channels" when of
    // size 1; the exporters, PyTorch's among them, wrote a [C] slope for NC... inputs):
    // a [C] slope applies along axis 1, as PyTorch's PReLU.
    let per_channel = info.opset < 7
        && s.shape.len() == 1
        && x.shape.len() >= 2
        && s.shape[0] == x.shape[1]
        && s.shape[0] != 1;
    let mut steps = Vec::new();
    let mut slope = Src::Input(1);
    if per_channel {
        let mut shape = vec![1; x.shape.len() - 1];
        shape[0] = s.shape[0];
        steps.push(Step::Reshape {
            src: Src::Input(1),
            shape: shape.clone(),
        });
        slope = Src::Step(0);
        s = TensorType::new(shape, s.elem);
    }
    if super::util::broadcast_shapes(&[&x.shape, &s.shape])? != x.shape {
        return err(format!(
            "slope of shape {:?} does not broadcast to X of shape {:?}",
            s.shape, x.shape
        ));
    }
    let t = x.elem;
    let body = select(
        cmp(CmpOp::Lt, Expr::Access(0), lit(0.0, t)),
        bin(BinOp::Mul, Expr::Access(0), Expr::Access(1)),
        Expr::Access(0),
    );
    let shape = x.shape.clone();
    steps.push(Step::Compute {
        compute: elementwise(&[x, s], &shape, t, body),
        operands: vec![Src::Input(0), slope],
    });
    Ok(Expansion {
        consts: vec![],
        outputs: vec![Src::Step(steps.len() - 1)],
        steps,
    })
}

/// Clip: attributes `min`/`max` before opset 11 (defaults: the float range), optional
/// inputs `min`/`max` from 11 (constant or not); `min(max(x, min), max)`.
fn clip(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let t = x.elem;
    if !t.is_float() {
        return err("Clip of non-float tensors is not supported");
    }
    let mut types = vec![x.clone()];
    let mut operands = vec![Src::Input(0)];
    let mut body = Expr::Access(0);
    for (i, op, name) in [(1, BinOp::Max, "min"), (2, BinOp::Min, "max")] {
        let bound = if info.opset < 11 {
            attrs.float(name).map(|v| lit(v as f64, t))
        } else {
            match opt_input(inputs, i) {
                None => None,
                Some(b) if b.value.is_some() => Some(lit(const_scalar(b, name)?, t)),
                Some(b) => {
                    let bt = super::util::tensor_type(b.ty, i)?;
                    if !bt.shape.is_empty() || bt.elem != t {
                        return err(format!("{name} must be a scalar of X's element type"));
                    }
                    types.push(bt);
                    operands.push(Src::Input(i));
                    Some(Expr::Access(types.len() - 1))
                }
            }
        };
        if let Some(b) = bound {
            body = bin(op, body, b);
        }
    }
    let shape = x.shape.clone();
    let mut c = elementwise(&types, &shape, t, body);
    // Scalar bounds are read at no index, whatever the rank.
    for a in c.accesses.iter_mut().skip(1) {
        a.map = rtile::ir::affine::AffineMap::new(shape.len() as u32, 0, vec![]);
    }
    Ok(one_stage(c, operands))
}

/// Dropout in inference (opset 7, 10, 12, 13, 22): the output is the input; the
/// optional mask is all true (opset 10+: bool; before: the input's type, all ones).
/// A constant `training_mode` of true is refused.
fn dropout(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Result<Expansion, OpError> {
    let x = input(inputs, 0)?;
    if let Some(tm) = opt_input(inputs, 2) {
        match tm.value.map(|c| &c.data) {
            Some(ConstData::Bool(v)) if v.iter().all(|b| !b) => {}
            _ => return err("training_mode must be a constant false (inference only)"),
        }
    }
    if attrs.int("is_test") == Some(0) && info.opset < 7 {
        return err("is_test=0 (training) is not supported");
    }
    let mut exp = Expansion {
        outputs: vec![Src::Input(0)],
        ..Expansion::default()
    };
    if info.num_outputs > 1 {
        let n: i64 = x.ty.shape.iter().product();
        let data = if info.opset >= 10 {
            ConstData::Bool(vec![true; n.max(0) as usize])
        } else {
            let dt = match x.ty.elem {
                Some(ElemType::F64) => crate::import::tensor::dtype::DOUBLE,
                Some(ElemType::F16) => crate::import::tensor::dtype::FLOAT16,
                _ => crate::import::tensor::dtype::FLOAT,
            };
            crate::import::tensor::data_from_f64(dt, &vec![1.0; n.max(0) as usize])
                .map_err(OpError)?
        };
        exp.consts.push(ConstTensor {
            shape: x.ty.shape.clone(),
            data,
        });
        exp.outputs.push(Src::Const(0));
    }
    Ok(exp)
}

/// Cast (opset 6, 9, 13, 19, 21) between te element types; the same type is the
/// identity.
fn cast(inputs: &[Option<OpInput>], attrs: &dyn NodeAttrs) -> Result<Expansion, OpError> {
    let to = attrs
        .int("to")
        .ok_or_else(|| OpError("attribute 'to' is missing".into()))?;
    let to32 = i32::try_from(to).map_err(|_| OpError(format!("'to' = {to} is not a data type")))?;
    let target = crate::import::tensor::te_elem(to32).map_err(OpError)?;
    let x = te_type(inputs, 0)?;
    let Some(target) = target else {
        return err(format!(
            "casting a tensor that is not known at import time to {} is not supported",
            crate::import::tensor::dtype_name(to32)
        ));
    };
    if target == x.elem {
        return Ok(Expansion {
            outputs: vec![Src::Input(0)],
            ..Expansion::default()
        });
    }
    let shape = x.shape.clone();
    Ok(one_stage(
        elementwise(
            &[x],
            &shape,
            target,
            Expr::Cast(target, Box::new(Expr::Access(0))),
        ),
        vec![Src::Input(0)],
    ))
}

/// Pow (opset 7, 12, 13, 15): `X ^ Y` with multidirectional broadcasting; `Y` may have
/// another numeric type (12+): a constant exponent is converted to `X`'s type (a scalar
/// becomes a literal), a runtime one is cast in the body.
fn pow(inputs: &[Option<OpInput>]) -> Result<Expansion, OpError> {
    let x = te_type(inputs, 0)?;
    let t = x.elem;
    if !t.is_float() {
        return err(format!(
            "Pow of {} tensors is not supported (floats only)",
            t.keyword()
        ));
    }
    let y = input(inputs, 1)?;
    let shape = x.shape.clone();
    if let Some(c) = y.value {
        let vals = crate::import::tensor::data_f64(&c.data);
        if let [v] = vals.as_slice() {
            let out = super::util::broadcast_shapes(&[&shape, &c.shape])?;
            let body = bin(BinOp::Pow, Expr::Access(0), lit(*v, t));
            return Ok(one_stage(
                elementwise(&[x], &out, t, body),
                vec![Src::Input(0)],
            ));
        }
        let dt = match t {
            ElemType::F64 => crate::import::tensor::dtype::DOUBLE,
            ElemType::F16 => crate::import::tensor::dtype::FLOAT16,
            ElemType::BF16 => crate::import::tensor::dtype::BFLOAT16,
            _ => crate::import::tensor::dtype::FLOAT,
        };
        let data = crate::import::tensor::data_from_f64(dt, &vals).map_err(OpError)?;
        let yt = rtile_dialects::te::model::TensorType::new(c.shape.clone(), t);
        let out = super::util::broadcast_shapes(&[&shape, &c.shape])?;
        let body = bin(BinOp::Pow, Expr::Access(0), Expr::Access(1));
        let mut exp = one_stage(
            elementwise(&[x, yt], &out, t, body),
            vec![Src::Input(0), Src::Const(0)],
        );
        exp.consts.push(ConstTensor {
            shape: c.shape.clone(),
            data,
        });
        return Ok(exp);
    }
    let yt = te_type(inputs, 1)?;
    let out = super::util::broadcast_shapes(&[&shape, &yt.shape])?;
    let e = if yt.elem == t {
        Expr::Access(1)
    } else {
        Expr::Cast(t, Box::new(Expr::Access(1)))
    };
    let body = bin(BinOp::Pow, Expr::Access(0), e);
    Ok(one_stage(
        elementwise(&[x, yt], &out, t, body),
        vec![Src::Input(0), Src::Input(1)],
    ))
}
