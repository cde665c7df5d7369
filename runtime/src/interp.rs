//! The te reference interpreter.
//!
//! Semantics are those of `docs/dialects/te.md`: for each result point, the reduction
//! box is walked in lexicographic order from the combiner's identity. Floats follow IEEE
//! with NaN-propagating `max`/`min` (`arith.maximumf`); integers wrap; integer division
//! by zero yields 0 (upstream: undefined behaviour).
//!
//! Two modes: [`Accumulate::Native`] rounds every intermediate and the accumulator to
//! its element type, as a GPU kernel does; [`Accumulate::F64`] keeps every float in f64
//! (casts between float types are exact) and returns an f64 tensor: the oracle.

use rtile_dialects::te::model::{
    AxisKind, BinOp, CmpOp, Combiner, ElemType, Expr, TeCompute, UnOp,
};

use crate::round::round_to;
use crate::tensor::Tensor;

/// Rounding mode of the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accumulate {
    /// Round to the element type after each operation.
    Native,
    /// Keep floats in f64 throughout.
    F64,
}

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

/// `erf` to about 1e-15: the series `erf x = 2/√π · e^{-x²} · Σ 2ⁿ x^{2n+1} / (2n+1)!!`
/// has only positive terms (no cancellation); beyond |x| = 6 erf is ±1 in f64.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() >= 6.0 {
        return x.signum();
    }
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term.abs() > sum.abs() * 1e-17 {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
    }
    2.0 / std::f64::consts::PI.sqrt() * (-x2).exp() * sum
}

fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        // max(-0, +0) = +0.
        if a.is_sign_negative() { b } else { a }
    } else if a > b {
        a
    } else {
        b
    }
}

fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() { a } else { b }
    } else if a < b {
        a
    } else {
        b
    }
}

fn int_bin(op: BinOp, a: f64, b: f64) -> f64 {
    let (a, b) = (a as i64, b as i64);
    (match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div => {
            if b == 0 {
                0
            } else {
                a.wrapping_div(b)
            }
        }
        BinOp::Max => a.max(b),
        BinOp::Min => a.min(b),
        // Ill-typed in te (`Expr::ty`); a non-negative exponent as integer power.
        BinOp::Pow => a.wrapping_pow(b.clamp(0, u32::MAX as i64) as u32),
    }) as f64
}

struct Rounder {
    mode: Accumulate,
}

impl Rounder {
    /// Rounds a float result in native mode; integers always wrap.
    fn fix(&self, v: f64, t: ElemType) -> f64 {
        if t.is_float() && self.mode == Accumulate::F64 {
            v
        } else {
            round_to(v, t)
        }
    }
}

fn eval_nodes(nodes: &[Node], access: &[f64], slots: &mut [f64], r: &Rounder) -> f64 {
    for (i, n) in nodes.iter().enumerate() {
        let v = match n.op {
            Op::Access(k) => access[k],
            Op::Const(c) => r.fix(c, n.ty),
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
                    r.fix(v, n.ty)
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
                    r.fix(v, n.ty)
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
                    r.fix(a, n.ty)
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

/// Runs one compute on host tensors.
pub fn eval_compute(c: &TeCompute, inputs: &[Tensor], mode: Accumulate) -> Result<Tensor, String> {
    if inputs.len() != c.inputs.len() {
        return Err(format!(
            "compute takes {} inputs, got {}",
            c.inputs.len(),
            inputs.len()
        ));
    }
    for (i, (t, want)) in inputs.iter().zip(&c.inputs).enumerate() {
        if t.shape != want.shape || t.dtype != want.elem {
            return Err(format!(
                "input {i} is {} but the compute expects {}",
                t.ty().text(),
                want.text()
            ));
        }
    }
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
    let r = Rounder { mode };
    let out_ty = if c.result.elem.is_float() && mode == Accumulate::F64 {
        ElemType::F64
    } else {
        c.result.elem
    };
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
    let identity = c.combiner.map(|k| k.identity(c.result.elem));
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
            let v = eval_nodes(&nodes, &vals, &mut slots, &r);
            match c.combiner {
                None => {
                    acc = v;
                    break;
                }
                Some(k) => {
                    acc = combine(k, acc, v, c.result.elem, &r);
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
        *o = acc;
    }
    Ok(Tensor {
        shape: c.result.shape.clone(),
        dtype: out_ty,
        data: out,
    })
}

fn combine(k: Combiner, acc: f64, v: f64, t: ElemType, r: &Rounder) -> f64 {
    if t.is_float() {
        let x = match k {
            Combiner::Sum => acc + v,
            Combiner::Prod => acc * v,
            Combiner::Max => fmax(acc, v),
            Combiner::Min => fmin(acc, v),
        };
        r.fix(x, t)
    } else {
        let x = match k {
            Combiner::Sum => int_bin(BinOp::Add, acc, v),
            Combiner::Prod => int_bin(BinOp::Mul, acc, v),
            Combiner::Max => acc.max(v),
            Combiner::Min => acc.min(v),
        };
        round_to(x, t)
    }
}

fn read(
    a: &CompiledAccess,
    map: &rtile::ir::AffineMap,
    point: &[i64],
    inputs: &[Tensor],
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
