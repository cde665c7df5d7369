//! BatchNormalization (ONNX opsets 7/9/14/15, inference form), LayerNormalization
//! (17) and LRN (1/13).

use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::{Combiner, ElemType, UnOp};

use super::build::{Builder, Reads, add, all_dims, cast, div, k, mul, sub, un};
use super::reduce::reduce_stage;
use super::{Node, norm_axis};
use crate::ops::{Expansion, OpError};

/// `BatchNormalization` in inference mode: `Y = (X - mean) / sqrt(var + epsilon) ·
/// scale + B` per channel (dim 1). With opset 6-8's `spatial = 0` the parameters are
/// per channel and spatial position (`C x D1 x ..`). Training mode (`training_mode = 1`,
/// or the running-statistics outputs) is refused.
pub fn batch_norm(node: &Node) -> Result<Expansion, OpError> {
    let opset = node.opset();
    if opset < 7 {
        // Opset 6: `is_test` (default 0, training mode) selects inference.
        node.check_attrs(&["epsilon", "is_test", "momentum", "spatial"])?;
        if node.int("is_test", 0) == 0 {
            return Err(OpError(
                "is_test 0 (training mode, opset 6) is not supported (inference only)".into(),
            ));
        }
    } else if opset < 9 {
        node.check_attrs(&["epsilon", "momentum", "spatial"])?;
    } else if opset < 14 {
        node.check_attrs(&["epsilon", "momentum"])?;
    } else {
        node.check_attrs(&["epsilon", "momentum", "training_mode"])?;
    }
    if node.int("training_mode", 0) != 0 {
        return Err(OpError(
            "training_mode 1 is not supported (inference only)".into(),
        ));
    }
    node.max_outputs(
        1,
        "the training-mode outputs (running mean and variance) are not supported",
    )?;
    let x = node.float_input(0)?;
    if x.rank() < 2 {
        return Err(OpError(format!("X is {}; it needs N x C ..", x.ty.text())));
    }
    let spatial = opset >= 9 || node.int("spatial", 1) != 0;
    let mut want = vec![x.shape()[1]];
    if !spatial {
        want.extend(&x.shape()[2..]);
    }
    let params = (1..5)
        .map(|i| {
            let p = node.float_input(i)?;
            if p.shape() != want.as_slice() {
                return Err(OpError(format!(
                    "input {i} is {}; expected shape {want:?}",
                    p.ty.text()
                )));
            }
            Ok(p)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let eps = node.float("epsilon", 1e-5);
    let elem = x.elem();
    let shape = x.shape().to_vec();
    let rank = shape.len();
    let pdims: Vec<usize> = if spatial {
        vec![1]
    } else {
        (1..rank).collect()
    };
    let mut b = Builder::new();
    let y = b.map(&shape, elem, |r| {
        let xv = r.read_dims(&x, &all_dims(rank));
        let [s, bias, mean, var] = [0, 1, 2, 3].map(|i| {
            let v = r.read_dims(&params[i], &pdims);
            cast(v, params[i].elem(), elem)
        });
        let norm = div(sub(xv, mean), un(UnOp::Sqrt, add(var, k(eps, elem))));
        add(mul(norm, s), bias)
    })?;
    Ok(b.finish(vec![y]))
}

/// The element type of an ONNX `TensorProto.DataType` code that te computes floats in.
fn stash_elem(code: i64) -> Result<ElemType, OpError> {
    Ok(match code {
        1 => ElemType::F32,
        10 => ElemType::F16,
        11 => ElemType::F64,
        16 => ElemType::BF16,
        _ => {
            return Err(OpError(format!(
                "stash_type {code} is not a float type (1, 10, 11 or 16)"
            )));
        }
    })
}

/// `LayerNormalization`: over the dims from `axis` (default -1) on, in the stash type
/// (default f32): `Mean = ΣX / N`, `InvStdDev = 1 / sqrt(Σ(X - Mean)² / N + epsilon)`,
/// `Y = T((X - Mean) · InvStdDev) · Scale + B`; Scale and the optional B broadcast to X.
/// Mean and InvStdDev (X's shape with the normalized dims 1) are the optional outputs.
pub fn layer_norm(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&["axis", "epsilon", "stash_type"])?;
    let x = node.float_input(0)?;
    let rank = x.rank();
    let axis = norm_axis(node.int("axis", -1), rank, "axis")?;
    let u = stash_elem(node.int("stash_type", 1))?;
    let eps = node.float("epsilon", 1e-5);
    let elem = x.elem();
    let shape = x.shape().to_vec();
    let scale = node.float_input(1)?;
    let bias = node.opt_input(2)?;
    for p in std::iter::once(&scale).chain(&bias) {
        let ok = p.rank() <= rank
            && p.elem() == elem
            && p.shape()
                .iter()
                .rev()
                .zip(shape.iter().rev())
                .all(|(&a, &b)| a == 1 || a == b);
        if !ok {
            return Err(OpError(format!(
                "Scale/B {} does not broadcast to X {}",
                p.ty.text(),
                x.ty.text()
            )));
        }
    }
    let dims: Vec<usize> = (axis..rank).collect();
    let n: i64 = shape[axis..].iter().product();
    let all = all_dims(rank);
    // Reads of a keepdims statistic at an X-shaped point: normalized dims are 0.
    let stat_idx = |r: &Reads| -> Vec<AffineExpr> {
        (0..rank)
            .map(|j| {
                if j >= axis {
                    AffineExpr::constant(0)
                } else {
                    r.ax(j)
                }
            })
            .collect()
    };
    let mut b = Builder::new();
    let sum = reduce_stage(&mut b, &x, &dims, true, Combiner::Sum, u, |r, idx| {
        cast(r.read(&x, idx, None), elem, u)
    })?;
    let stat_shape = sum.shape().to_vec();
    let mean = b.map(&stat_shape, u, |r| {
        div(r.read_dims(&sum, &all), k(n as f64, u))
    })?;
    let var_sum = reduce_stage(&mut b, &x, &dims, true, Combiner::Sum, u, |r, idx| {
        let xv = cast(r.read(&x, idx, None), elem, u);
        let mi = (0..rank)
            .map(|j| {
                if j >= axis {
                    AffineExpr::constant(0)
                } else {
                    r.ax(j)
                }
            })
            .collect();
        let d = sub(xv, r.read(&mean, mi, None));
        mul(d.clone(), d)
    })?;
    let inv = b.map(&stat_shape, u, |r| {
        let v = div(r.read_dims(&var_sum, &all), k(n as f64, u));
        div(k(1.0, u), un(UnOp::Sqrt, add(v, k(eps, u))))
    })?;
    let y = b.map(&shape, elem, |r| {
        let xv = cast(r.read_dims(&x, &all), elem, u);
        let mi = stat_idx(r);
        let d = sub(xv, r.read(&mean, mi.clone(), None));
        let normalized = cast(mul(d, r.read(&inv, mi, None)), u, elem);
        let mut read =
            |p: &super::build::Val| r.read(p, super::build::broadcast_index(p.shape(), rank), None);
        let y = mul(normalized, read(&scale));
        match bias.as_ref().map(read) {
            Some(bv) => add(y, bv),
            None => y,
        }
    })?;
    node.max_outputs(3, "LayerNormalization has at most 3 outputs")?;
    let outputs = [y, mean, inv];
    Ok(b.finish(outputs[..node.info.num_outputs.clamp(1, 3)].to_vec()))
}

/// `InstanceNormalization` (opsets 6/22): per sample and channel over the spatial dims,
/// `Y = scale[c] · (X - mean) / sqrt(var + epsilon) + B[c]` (biased variance).
pub fn instance_norm(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&["epsilon"])?;
    let x = node.float_input(0)?;
    let rank = x.rank();
    if rank < 3 {
        return Err(OpError(format!(
            "X is {}; InstanceNormalization needs N x C x D1..",
            x.ty.text()
        )));
    }
    let c = x.shape()[1];
    let (scale, bias) = (node.float_input(1)?, node.float_input(2)?);
    for p in [&scale, &bias] {
        if p.shape() != [c] || p.elem() != x.elem() {
            return Err(OpError(format!(
                "scale/B {} must be {c}-element vectors of X's type",
                p.ty.text()
            )));
        }
    }
    let eps = node.float("epsilon", 1e-5);
    let elem = x.elem();
    let shape = x.shape().to_vec();
    let dims: Vec<usize> = (2..rank).collect();
    let n: i64 = shape[2..].iter().product();
    let all = all_dims(rank);
    let stat_idx = |r: &Reads| -> Vec<AffineExpr> {
        (0..rank)
            .map(|j| {
                if j >= 2 {
                    AffineExpr::constant(0)
                } else {
                    r.ax(j)
                }
            })
            .collect()
    };
    let mut b = Builder::new();
    let sum = reduce_stage(&mut b, &x, &dims, true, Combiner::Sum, elem, |r, idx| {
        r.read(&x, idx, None)
    })?;
    let stat_shape = sum.shape().to_vec();
    let mean = b.map(&stat_shape, elem, |r| {
        div(r.read_dims(&sum, &all), k(n as f64, elem))
    })?;
    let var_sum = reduce_stage(&mut b, &x, &dims, true, Combiner::Sum, elem, |r, idx| {
        let xv = r.read(&x, idx, None);
        let d = sub(xv, r.read(&mean, stat_idx(r), None));
        mul(d.clone(), d)
    })?;
    let y = b.map(&shape, elem, |r| {
        let xv = r.read_dims(&x, &all);
        let d = sub(xv, r.read(&mean, stat_idx(r), None));
        let var = div(r.read(&var_sum, stat_idx(r), None), k(n as f64, elem));
        let norm = div(d, un(UnOp::Sqrt, add(var, k(eps, elem))));
        add(
            mul(r.read_dims(&scale, &[1]), norm),
            r.read_dims(&bias, &[1]),
        )
    })?;
    Ok(b.finish(vec![y]))
}

/// `LRN` across channels: `Y = X / (bias + alpha / size · Σ X²)^beta`, the sum over
/// channels `c - ⌊(size-1)/2⌋ ..= c + ⌈(size-1)/2⌉` inside the tensor; the power of the
/// (positive) base is `exp(beta · log(base))`.
pub fn lrn(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&["alpha", "beta", "bias", "size"])?;
    let x = node.float_input(0)?;
    if x.rank() < 3 {
        return Err(OpError(format!(
            "X is {}; LRN needs N x C x D1..",
            x.ty.text()
        )));
    }
    let size = node
        .attrs
        .int("size")
        .ok_or_else(|| OpError("attribute 'size' is required".into()))?;
    if size < 1 {
        return Err(OpError(format!("size {size} must be positive")));
    }
    let (alpha, beta, bias) = (
        node.float("alpha", 1e-4),
        node.float("beta", 0.75),
        node.float("bias", 1.0),
    );
    let elem = x.elem();
    let shape = x.shape().to_vec();
    let rank = shape.len();
    let all = all_dims(rank);
    let lo = (size - 1) / 2;
    let mut b = Builder::new();
    let sq = b.stage(&shape, &[size], Some(Combiner::Sum), elem, |r| {
        let idx = (0..rank)
            .map(|j| {
                if j == 1 {
                    super::build::affine(AffineExpr::add(r.ax(1), r.ax(rank)), 1, -lo)
                } else {
                    r.ax(j)
                }
            })
            .collect();
        let v = r.read(&x, idx, Some(0.0));
        mul(v.clone(), v)
    })?;
    let y = b.map(&shape, elem, |r| {
        let xv = r.read_dims(&x, &all);
        let s = r.read_dims(&sq, &all);
        let base = add(k(bias, elem), mul(k(alpha / size as f64, elem), s));
        div(xv, un(UnOp::Exp, mul(k(beta, elem), un(UnOp::Log, base))))
    })?;
    Ok(b.finish(vec![y]))
}
