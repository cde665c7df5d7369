//! Building blocks shared by the nn operators: an [`Builder`] that appends te stages,
//! reshapes and constants to an [`Expansion`], and small constructors for body
//! expressions and affine indices.

use rtile::ir::affine::{AffineExpr, AffineMap};
use rtile_dialects::te::model::{
    Access, Axis, AxisKind, BinOp, CmpOp, Combiner, ElemType, Expr, MayPad, TeCompute, TensorType,
    UnOp,
};

use crate::ops::{ConstData, ConstTensor, Expansion, OpError, Src, Step};

/// A tensor inside an expansion: where it comes from and its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Val {
    pub src: Src,
    pub ty: TensorType,
}

impl Val {
    /// The shape.
    pub fn shape(&self) -> &[i64] {
        &self.ty.shape
    }
    /// The rank.
    pub fn rank(&self) -> usize {
        self.ty.shape.len()
    }
    /// The element type.
    pub fn elem(&self) -> ElemType {
        self.ty.elem
    }
}

/// The reads of one stage under construction: each [`Reads::read`] adds an access (and
/// the tensor as an input of the compute the first time it is read).
pub struct Reads {
    num_axes: u32,
    inputs: Vec<TensorType>,
    operands: Vec<Src>,
    accesses: Vec<Access>,
}

impl Reads {
    /// Domain dim `i` as an index.
    pub fn ax(&self, i: usize) -> AffineExpr {
        AffineExpr::dim(i as u32)
    }

    /// `v[idx]`, with `pad` for out-of-bounds reads (`None`: reads are in bounds).
    pub fn read(&mut self, v: &Val, idx: Vec<AffineExpr>, pad: Option<f64>) -> Expr {
        let input = match self.operands.iter().position(|&s| s == v.src) {
            Some(i) => i,
            None => {
                self.operands.push(v.src);
                self.inputs.push(v.ty.clone());
                self.operands.len() - 1
            }
        };
        let access = Access {
            input,
            map: AffineMap::new(self.num_axes, 0, idx),
            pad,
        };
        let k = match self.accesses.iter().position(|a| *a == access) {
            Some(k) => k,
            None => {
                self.accesses.push(access);
                self.accesses.len() - 1
            }
        };
        Expr::Access(k)
    }

    /// `v` indexed by the domain dims `dims` in order (an elementwise read).
    pub fn read_dims(&mut self, v: &Val, dims: &[usize]) -> Expr {
        let idx = dims.iter().map(|&d| self.ax(d)).collect();
        self.read(v, idx, None)
    }
}

/// Appends the steps of an expansion.
#[derive(Default)]
pub struct Builder {
    pub exp: Expansion,
}

impl Builder {
    /// A new, empty expansion.
    pub fn new() -> Self {
        Builder::default()
    }

    /// The node's input `i` of type `ty`.
    pub fn input(i: usize, ty: TensorType) -> Val {
        Val {
            src: Src::Input(i),
            ty,
        }
    }

    /// A constant tensor of element type `elem` (a float type) holding `data` rounded to
    /// it.
    pub fn constant(&mut self, shape: Vec<i64>, elem: ElemType, data: Vec<f64>) -> Val {
        let data = match elem {
            ElemType::F64 => ConstData::F64(data),
            ElemType::F16 => ConstData::F16(data.iter().map(|&x| f64_to_f16_bits(x)).collect()),
            ElemType::BF16 => ConstData::Bf16(data.iter().map(|&x| f64_to_bf16_bits(x)).collect()),
            ElemType::I32 => ConstData::I32(data.iter().map(|&x| x as i32).collect()),
            ElemType::I8 => ConstData::I8(data.iter().map(|&x| x as i8).collect()),
            ElemType::I1 => ConstData::Bool(data.iter().map(|&x| x != 0.0).collect()),
            ElemType::F32 => ConstData::F32(data.iter().map(|&x| x as f32).collect()),
        };
        self.exp.consts.push(ConstTensor {
            shape: shape.clone(),
            data,
        });
        Val {
            src: Src::Const(self.exp.consts.len() - 1),
            ty: TensorType::new(shape, elem),
        }
    }

    /// A row-major reshape of `v` (no step when the shape is unchanged).
    pub fn reshape(&mut self, v: &Val, shape: Vec<i64>) -> Val {
        if v.ty.shape == shape {
            return v.clone();
        }
        self.exp.steps.push(Step::Reshape {
            src: v.src,
            shape: shape.clone(),
        });
        Val {
            src: Src::Step(self.exp.steps.len() - 1),
            ty: TensorType::new(shape, v.ty.elem),
        }
    }

    /// Appends a `te.compute` with parallel axes `par` (the result's shape) and
    /// reduction axes `red` (combined with `combiner`, required exactly when `red` is
    /// not empty); `body` builds the scalar body from its reads. Domain dim `i` is
    /// `par[i]` for `i < par.len()`, then `red[i - par.len()]`.
    pub fn stage(
        &mut self,
        par: &[i64],
        red: &[i64],
        combiner: Option<Combiner>,
        elem: ElemType,
        body: impl FnOnce(&mut Reads) -> Expr,
    ) -> Result<Val, OpError> {
        if let Some(&e) = par.iter().chain(red).find(|&&e| e <= 0) {
            return Err(OpError(format!(
                "an extent of {e} (empty tensors are not supported)"
            )));
        }
        let mut reads = Reads {
            num_axes: (par.len() + red.len()) as u32,
            inputs: Vec::new(),
            operands: Vec::new(),
            accesses: Vec::new(),
        };
        let body = body(&mut reads);
        let (body, reads) = canonical_order(body, reads);
        let axes = par
            .iter()
            .enumerate()
            .map(|(i, &e)| Axis {
                name: format!("d{i}"),
                extent: e,
                kind: AxisKind::Parallel,
            })
            .chain(red.iter().enumerate().map(|(i, &e)| Axis {
                name: format!("r{i}"),
                extent: e,
                kind: AxisKind::Reduction,
            }))
            .collect();
        let combiner = if red.is_empty() { None } else { combiner };
        // Tensor padding may pad with the combiner's identity (the pass checks the body
        // keeps it one); elementwise stages drop padded points.
        let may_pad = match (combiner, elem.is_float()) {
            (Some(k), true) => Some(k.identity(elem)),
            (None, _) | (Some(Combiner::Sum), false) => Some(0.0),
            _ => None,
        }
        .map(|value| MayPad { value });
        let compute = TeCompute {
            axes,
            inputs: reads.inputs,
            accesses: reads.accesses,
            body,
            combiner,
            result: TensorType::new(par.to_vec(), elem),
            may_pad,
            padded_from: None,
            accumulator: None,
        };
        if let Err(e) = rtile_dialects::te::verify::verify(&compute) {
            // A bug in an expansion, not in the model: say so rather than emit bad IR.
            return Err(OpError(format!("internal error: invalid te stage: {e}")));
        }
        self.exp.steps.push(Step::Compute {
            compute,
            operands: reads.operands,
        });
        Ok(Val {
            src: Src::Step(self.exp.steps.len() - 1),
            ty: TensorType::new(par.to_vec(), elem),
        })
    }

    /// An elementwise stage over `shape`.
    pub fn map(
        &mut self,
        shape: &[i64],
        elem: ElemType,
        body: impl FnOnce(&mut Reads) -> Expr,
    ) -> Result<Val, OpError> {
        self.stage(shape, &[], None, elem, body)
    }

    /// The expansion with the given outputs.
    pub fn finish(mut self, outputs: Vec<Val>) -> Expansion {
        self.exp.outputs = outputs.into_iter().map(|v| v.src).collect();
        self.exp
    }
}

/// Renumbers accesses and inputs in the order the body first uses them: the order
/// the custom form's parser and the generic form's operands have, so that a stage
/// prints and reads back as the same model.
fn canonical_order(body: Expr, reads: Reads) -> (Expr, Reads) {
    let mut access_order: Vec<usize> = Vec::new();
    body.for_each_access(&mut |i| {
        if !access_order.contains(&i) {
            access_order.push(i);
        }
    });
    let mut input_order: Vec<usize> = Vec::new();
    for &a in &access_order {
        let inp = reads.accesses[a].input;
        if !input_order.contains(&inp) {
            input_order.push(inp);
        }
    }
    let new_input = |old: usize| input_order.iter().position(|&i| i == old).unwrap_or(old);
    let accesses = access_order
        .iter()
        .map(|&a| Access {
            input: new_input(reads.accesses[a].input),
            ..reads.accesses[a].clone()
        })
        .collect();
    let body = renumber(body, &|old| {
        access_order.iter().position(|&a| a == old).unwrap_or(old)
    });
    let reads = Reads {
        num_axes: reads.num_axes,
        inputs: input_order
            .iter()
            .map(|&i| reads.inputs[i].clone())
            .collect(),
        operands: input_order.iter().map(|&i| reads.operands[i]).collect(),
        accesses,
    };
    (body, reads)
}

/// `e` with every access index mapped through `f`.
fn renumber(e: Expr, f: &dyn Fn(usize) -> usize) -> Expr {
    let bx = |e: Box<Expr>| Box::new(renumber(*e, f));
    match e {
        Expr::Access(i) => Expr::Access(f(i)),
        Expr::Const(..) => e,
        Expr::Binary(op, a, b) => Expr::Binary(op, bx(a), bx(b)),
        Expr::Unary(op, a) => Expr::Unary(op, bx(a)),
        Expr::Cmp(op, a, b) => Expr::Cmp(op, bx(a), bx(b)),
        Expr::Select(c, a, b) => Expr::Select(bx(c), bx(a), bx(b)),
        Expr::Cast(t, a) => Expr::Cast(t, bx(a)),
    }
}

/// Every dim of an elementwise domain of rank `n`: `[0, 1, .., n-1]`.
pub fn all_dims(n: usize) -> Vec<usize> {
    (0..n).collect()
}

/// Index `v` of rank `v_rank` right-aligned against a domain of rank `n` (numpy
/// broadcasting): size-1 dims of `v` read index 0.
pub fn broadcast_index(v_shape: &[i64], n: usize) -> Vec<AffineExpr> {
    let off = n - v_shape.len();
    v_shape
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            if e == 1 {
                AffineExpr::constant(0)
            } else {
                AffineExpr::dim((off + i) as u32)
            }
        })
        .collect()
}

/// `a * c + b` on affine expressions.
pub fn affine(a: AffineExpr, c: i64, b: i64) -> AffineExpr {
    AffineExpr::add(
        AffineExpr::mul(a, AffineExpr::constant(c)),
        AffineExpr::constant(b),
    )
}

/// A float or integer constant of type `t`, held as the nearest value of `t` (what a
/// literal of te's custom form denotes, so that a stage reads back as the same model).
pub fn k(v: f64, t: ElemType) -> Expr {
    Expr::Const(rtile_dialects::te::round::round_to(v, t), t)
}
/// `a + b`.
pub fn add(a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Add, Box::new(a), Box::new(b))
}
/// `a - b`.
pub fn sub(a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Sub, Box::new(a), Box::new(b))
}
/// `a * b`.
pub fn mul(a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Mul, Box::new(a), Box::new(b))
}
/// `a / b`.
pub fn div(a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Div, Box::new(a), Box::new(b))
}
/// `max(a, b)`.
pub fn max(a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Max, Box::new(a), Box::new(b))
}
/// `min(a, b)`.
pub fn min(a: Expr, b: Expr) -> Expr {
    Expr::Binary(BinOp::Min, Box::new(a), Box::new(b))
}
/// A unary function.
pub fn un(op: UnOp, a: Expr) -> Expr {
    Expr::Unary(op, Box::new(a))
}
/// `a <op> b` (i1).
pub fn cmp(op: CmpOp, a: Expr, b: Expr) -> Expr {
    Expr::Cmp(op, Box::new(a), Box::new(b))
}
/// `select(c, a, b)`.
pub fn select(c: Expr, a: Expr, b: Expr) -> Expr {
    Expr::Select(Box::new(c), Box::new(a), Box::new(b))
}
/// `a` converted to `t` (no cast when it already has that type, given as `from`).
pub fn cast(a: Expr, from: ElemType, t: ElemType) -> Expr {
    if from == t {
        a
    } else {
        Expr::Cast(t, Box::new(a))
    }
}

/// f64 to IEEE half bits, round to nearest even (constants of f16 expansions).
pub fn f64_to_f16_bits(x: f64) -> u16 {
    let r = rtile_dialects::te::round::round_to(x, ElemType::F16);
    let sign: u16 = if r.is_sign_negative() { 0x8000 } else { 0 };
    let a = r.abs();
    if a.is_nan() {
        return 0x7e00;
    }
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    if a == 0.0 {
        return sign;
    }
    // `a` is exactly representable: subnormals are multiples of 2^-24.
    if a < 2f64.powi(-14) {
        return sign | (a / 2f64.powi(-24)) as u16;
    }
    let e = a.log2().floor() as i32;
    let (e, m) = {
        let m = a / 2f64.powi(e);
        // log2 may be off by one at exact powers of two.
        if m >= 2.0 {
            (e + 1, m / 2.0)
        } else if m < 1.0 {
            (e - 1, m * 2.0)
        } else {
            (e, m)
        }
    };
    sign | (((e + 15) as u16) << 10) | ((m - 1.0) * 1024.0).round() as u16
}

/// f64 to bfloat16 bits, round to nearest even.
pub fn f64_to_bf16_bits(x: f64) -> u16 {
    let r = rtile_dialects::te::round::round_to(x, ElemType::BF16) as f32;
    (r.to_bits() >> 16) as u16
}
