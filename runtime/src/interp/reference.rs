//! The point-by-point evaluator: the definition of te's semantics, kept as the reference
//! that the compiled evaluator ([`super::fast`]) must match bit for bit.

use rtile_dialects::te::model::{AxisKind, BinOp, CmpOp, ElemType, Expr, TeCompute, UnOp};

use super::{
    Accumulate, canonical_nans, check_inputs, combine, erf, finish, fix, fmax, fmin, int_bin,
    result_type,
};
use crate::round::round_to;
use crate::tensor::Tensor;

#[derive(Clone, Copy, Debug)]
enum Op {
    Access(usize),
    Const(f64),
    Bin(BinOp, usize, usize),
    Un(UnOp, usize),
    Cmp(CmpOp, usize, usize),
    Select(usize, usize, usize),
    Cast(usize),
}

#[derive(Clone, Copy, Debug)]
struct Node {
    op: Op,
    ty: ElemType,
    /// Type of the operands (comparisons and casts need it).
    arg_ty: ElemType,
}

fn compile(e: &Expr, tys: &[ElemType], out: &mut Vec<Node>) -> Result<usize, String> {
    let ty = e.ty(tys).ok_or("ill-typed body")?;
    let (op, arg_ty) = match e {
        Expr::Access(i) => (Op::Access(*i), ty),
        Expr::Const(v, _) => (Op::Const(*v), ty),
        Expr::Binary(b, x, y) => {
            let (x, y) = (compile(x, tys, out)?, compile(y, tys, out)?);
            (Op::Bin(*b, x, y), ty)
        }
        Expr::Unary(u, x) => (Op::Un(*u, compile(x, tys, out)?), ty),
        Expr::Cmp(c, x, y) => {
            let at = x.ty(tys).ok_or("ill-typed body")?;
            let (x, y) = (compile(x, tys, out)?, compile(y, tys, out)?);
            (Op::Cmp(*c, x, y), at)
        }
        Expr::Select(c, x, y) => {
            let (c, x, y) = (
                compile(c, tys, out)?,
                compile(x, tys, out)?,
                compile(y, tys, out)?,
            );
            (Op::Select(c, x, y), ty)
        }
        Expr::Cast(_, x) => {
            let at = x.ty(tys).ok_or("ill-typed body")?;
            (Op::Cast(compile(x, tys, out)?), at)
        }
    };
    out.push(Node { op, ty, arg_ty });
    Ok(out.len() - 1)
}

fn eval_nodes(nodes: &[Node], access: &[f64], slots: &mut [f64], mode: Accumulate) -> f64 {
    for (i, n) in nodes.iter().enumerate() {
        let v = match n.op {
            Op::Access(k) => access[k],
            Op::Const(c) => fix(mode, c, n.ty),
            Op::Bin(op, a, b) => {
                let (a, b) = (slots[a], slots[b]);
                if n.ty.is_float() {
                    let v = match op {
                        BinOp::Add => a + b,
                        BinOp::Sub => a - b,
                        BinOp::Mul => a * b,
                        BinOp::Div => a / b,
                        BinOp::Max => fmax(a, b),
                        BinOp::Min => fmin(a, b),
                        BinOp::Pow => a.powf(b),
                    };
                    fix(mode, v, n.ty)
                } else {
                    round_to(int_bin(op, a, b), n.ty)
                }
            }
            Op::Un(op, a) => {
                let a = slots[a];
                if n.ty.is_float() {
                    let v = match op {
                        UnOp::Neg => -a,
                        UnOp::Exp => a.exp(),
                        UnOp::Log => a.ln(),
                        UnOp::Sqrt => a.sqrt(),
                        UnOp::Rsqrt => 1.0 / a.sqrt(),
                        UnOp::Tanh => a.tanh(),
                        UnOp::Erf => erf(a),
                        UnOp::Abs => a.abs(),
                    };
                    fix(mode, v, n.ty)
                } else {
                    let v = match op {
                        UnOp::Abs => (a as i64).wrapping_abs() as f64,
                        _ => (a as i64).wrapping_neg() as f64,
                    };
                    round_to(v, n.ty)
                }
            }
            Op::Cmp(c, a, b) => f64::from(u8::from(c.eval(slots[a], slots[b]))),
            Op::Select(c, a, b) => {
                if slots[c] != 0.0 {
                    slots[a]
                } else {
                    slots[b]
                }
            }
            Op::Cast(a) => {
                let a = slots[a];
                if n.arg_ty == ElemType::I1 {
                    // i1 is unsigned 0/1 (`arith.uitofp`, `arith.extui`).
                    a
                } else {
                    fix(mode, a, n.ty)
                }
            }
        };
        slots[i] = v;
    }
    slots[nodes.len() - 1]
}

/// One access compiled to per-dimension linear forms when possible.
struct CompiledAccess {
    input: usize,
    /// Per tensor dim: (coefficients per domain dim, constant), or `None` to evaluate the
    /// affine expression generally.
    linear: Vec<Option<(Vec<i64>, i64)>>,
    pad: Option<f64>,
    /// Domain dims the map uses (for padded-domain masking).
    dims: Vec<usize>,
}

/// Runs one compute on host tensors, point by point (slow: the reference for
/// [`super::eval_compute`], which gives bit-identical results).
pub fn eval_compute_reference(
    c: &TeCompute,
    inputs: &[Tensor],
    mode: Accumulate,
) -> Result<Tensor, String> {
    let refs: Vec<&Tensor> = inputs.iter().collect();
    check_inputs(c, &refs)?;
    eval_checked(c, &refs, mode)
}

/// The evaluation, on inputs already checked against the compute.
pub(super) fn eval_checked(
    c: &TeCompute,
    inputs: &[&Tensor],
    mode: Accumulate,
) -> Result<Tensor, String> {
    let n = c.axes.len();
    let np = c.num_parallel();
    let tys = c.access_types();
    let mut nodes = Vec::new();
    compile(&c.body, &tys, &mut nodes)?;
    let accesses: Vec<CompiledAccess> = c
        .accesses
        .iter()
        .map(|a| CompiledAccess {
            input: a.input,
            linear: a.map.results.iter().map(|e| e.linear_form(n)).collect(),
            pad: a.pad,
            dims: (0..n)
                .filter(|&d| a.map.results.iter().any(|e| e.uses_dim(d as u32)))
                .collect(),
        })
        .collect();
    // Padded domain: reads at points beyond an axis's original extent yield may_pad.
    let mask: Option<(Vec<i64>, f64)> = match (&c.padded_from, c.may_pad) {
        (Some(orig), Some(mp)) => Some((orig.clone(), mp.value)),
        (Some(_), None) => return Err("padded domain without may_pad".into()),
        _ => None,
    };
    let strides: Vec<Vec<i64>> = inputs.iter().map(|t| t.strides()).collect();
    let out_ty = result_type(c, mode);
    let out_n: i64 = c.result.shape.iter().product();
    let mut out = vec![0.0; out_n.max(0) as usize];
    let red_extents: Vec<i64> = c
        .axes
        .iter()
        .filter(|a| a.kind == AxisKind::Reduction)
        .map(|a| a.extent)
        .collect();
    if c.result.shape.iter().any(|&d| d <= 0) || red_extents.iter().any(|&d| d <= 0) {
        return Tensor::from_data(c.result.shape.clone(), out_ty, out);
    }
    let mut point = vec![0i64; n];
    let mut vals = vec![0.0; accesses.len()];
    let mut slots = vec![0.0; nodes.len()];
    let mut idx_buf = Vec::new();
    let acc_ty = c.acc_type();
    let identity = c.combiner.map(|k| k.identity(acc_ty));
    for (flat, o) in out.iter_mut().enumerate() {
        // Parallel coordinates of this output element (row-major).
        let mut rem = flat as i64;
        for d in (0..np).rev() {
            let e = c.result.shape[d];
            point[d] = rem % e;
            rem /= e;
        }
        for p in point[np..].iter_mut() {
            *p = 0;
        }
        let mut acc = identity.unwrap_or(0.0);
        loop {
            for (k, a) in accesses.iter().enumerate() {
                vals[k] = match &mask {
                    Some((orig, v)) if a.dims.iter().any(|&d| point[d] >= orig[d]) => {
                        round_to(*v, tys[k])
                    }
                    _ => read(
                        a,
                        &c.accesses[k].map,
                        &point,
                        inputs,
                        &strides,
                        &mut idx_buf,
                    )?,
                };
            }
            let v = eval_nodes(&nodes, &vals, &mut slots, mode);
            match c.combiner {
                None => {
                    acc = v;
                    break;
                }
                Some(k) => {
                    acc = combine(k, acc, v, acc_ty, mode);
                }
            }
            // Next reduction point, lexicographic.
            let mut done = true;
            let mut d = n;
            while d > np {
                d -= 1;
                point[d] += 1;
                if point[d] < red_extents[d - np] {
                    done = false;
                    break;
                }
                point[d] = 0;
            }
            if done {
                break;
            }
        }
        *o = finish(c, mode, acc);
    }
    canonical_nans(&mut out);
    Ok(Tensor {
        shape: c.result.shape.clone(),
        dtype: out_ty,
        data: out,
    })
}

fn read(
    a: &CompiledAccess,
    map: &rtile::ir::AffineMap,
    point: &[i64],
    inputs: &[&Tensor],
    strides: &[Vec<i64>],
    buf: &mut Vec<i64>,
) -> Result<f64, String> {
    let t = &inputs[a.input];
    let st = &strides[a.input];
    let mut off = 0i64;
    let mut oob = false;
    for (j, lin) in a.linear.iter().enumerate() {
        let i = match lin {
            Some((coef, k)) => coef.iter().zip(point).map(|(c, p)| c * p).sum::<i64>() + k,
            None => {
                buf.clear();
                buf.extend_from_slice(point);
                map.results[j]
                    .eval(buf, &[])
                    .ok_or("index evaluation failed (division by zero)")?
            }
        };
        if i < 0 || i >= t.shape[j] {
            oob = true;
            break;
        }
        off += i * st[j];
    }
    if oob {
        return a.pad.ok_or_else(|| {
            format!("out-of-bounds read at domain point {point:?} with no pad value")
        });
    }
    Ok(t.data[off as usize])
}
