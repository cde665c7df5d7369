//! The semantic model of one `te.compute` (Roller §3.1): an iteration domain of parallel
//! and reduction axes, one affine access per input read, a scalar body over the values
//! read, and a combiner for the reduction axes.
//!
//! Semantics. Domain dims are ordered: all parallel axes first, then all reduction axes
//! (`d0..dP-1` parallel, `dP..` reduction). For every parallel point `p` with
//! `p < result_shape` (component-wise):
//!
//! ```text
//! out[p] = combine_{r in reduction box, lexicographic order}( body(p, r) )
//! ```
//!
//! starting from the combiner's identity (no reduction axes: `out[p] = body(p)`). A read
//! `%A[f(p, r)]` whose index lies outside `%A` yields the access's pad value (conv zero
//! padding); the verifier rejects accesses that may go out of bounds without one.
//! A padded compute (after `--tensor-padding`) also records the original extents
//! (`padded_from`): the result keeps the original parallel extents (extra points are
//! dropped), and at a point where some axis index is at or beyond its original extent,
//! every access whose map uses that axis reads the `may_pad` value instead of memory.
//!
//! Mixed precision. A reduction may name an accumulator type (`acc(f32)`), as tensor-core
//! matmuls and cuBLAS/PyTorch accumulate f16/bf16 products in f32: the body then yields the
//! accumulator type, the combiner folds in it (rounding to it at every step) and the
//! result is rounded to the result element type once, after the last step. Without one,
//! the accumulator is the result element type.

use rtile::ir::TypeKind;
use rtile::ir::affine::AffineMap;
use rtile::ir::types::{FloatKind, Signedness, Type};

/// Scalar element types that te computes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    F64,
    F32,
    F16,
    BF16,
    I32,
    I8,
    /// Comparison results and `select` conditions.
    I1,
}

impl ElemType {
    /// Every element type with its MLIR keyword.
    pub const ALL: [(ElemType, &'static str); 7] = [
        (ElemType::F64, "f64"),
        (ElemType::F32, "f32"),
        (ElemType::F16, "f16"),
        (ElemType::BF16, "bf16"),
        (ElemType::I32, "i32"),
        (ElemType::I8, "i8"),
        (ElemType::I1, "i1"),
    ];

    /// The MLIR keyword (`f32`, `i8`, ...).
    pub fn keyword(self) -> &'static str {
        ElemType::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map(|(_, k)| *k)
            .unwrap_or("f32")
    }

    /// Looks a keyword up.
    pub fn from_keyword(s: &str) -> Option<ElemType> {
        ElemType::ALL.iter().find(|(_, k)| *k == s).map(|(t, _)| *t)
    }

    /// True for the floating-point types.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F64 | ElemType::F32 | ElemType::F16 | ElemType::BF16
        )
    }

    /// Bit width.
    pub fn width(self) -> u32 {
        match self {
            ElemType::F64 => 64,
            ElemType::F32 | ElemType::I32 => 32,
            ElemType::F16 | ElemType::BF16 => 16,
            ElemType::I8 => 8,
            ElemType::I1 => 1,
        }
    }

    /// The builtin IR type.
    pub fn to_type(self) -> Type {
        match self {
            ElemType::F64 => Type::float(FloatKind::F64),
            ElemType::F32 => Type::float(FloatKind::F32),
            ElemType::F16 => Type::float(FloatKind::F16),
            ElemType::BF16 => Type::float(FloatKind::BF16),
            ElemType::I32 => Type::int(32),
            ElemType::I8 => Type::int(8),
            ElemType::I1 => Type::int(1),
        }
    }

    /// The element type of a builtin scalar type, if te supports it.
    pub fn from_type(t: &Type) -> Option<ElemType> {
        match t.kind() {
            TypeKind::Float(FloatKind::F64) => Some(ElemType::F64),
            TypeKind::Float(FloatKind::F32) => Some(ElemType::F32),
            TypeKind::Float(FloatKind::F16) => Some(ElemType::F16),
            TypeKind::Float(FloatKind::BF16) => Some(ElemType::BF16),
            TypeKind::Integer {
                width,
                signedness: Signedness::Signless,
            } => match width {
                32 => Some(ElemType::I32),
                8 => Some(ElemType::I8),
                1 => Some(ElemType::I1),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A static ranked tensor type `tensor<shape x elem>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    pub shape: Vec<i64>,
    pub elem: ElemType,
}

impl TensorType {
    /// A tensor type.
    pub fn new(shape: Vec<i64>, elem: ElemType) -> Self {
        TensorType { shape, elem }
    }
    /// The builtin IR type.
    pub fn to_type(&self) -> Type {
        Type::tensor(self.shape.clone(), self.elem.to_type())
    }
    /// From a builtin type: static ranked tensor of a supported element type.
    pub fn from_type(t: &Type) -> Option<TensorType> {
        match t.kind() {
            TypeKind::Tensor {
                shape,
                elem,
                encoding: None,
            } if shape.iter().all(|&d| d >= 0) => Some(TensorType {
                shape: shape.clone(),
                elem: ElemType::from_type(elem)?,
            }),
            _ => None,
        }
    }
    /// Number of elements.
    pub fn num_elements(&self) -> i64 {
        self.shape.iter().product()
    }
    /// `tensor<2x3xf32>` text.
    pub fn text(&self) -> String {
        let mut s = String::from("tensor<");
        for d in &self.shape {
            s.push_str(&format!("{d}x"));
        }
        s.push_str(self.elem.keyword());
        s.push('>');
        s
    }
    /// The text of the memref of the same shape and element type (`memref<2x3xf32>`), as
    /// the printer writes it.
    pub fn memref_text(&self) -> String {
        rtile::printer::type_to_string(&Type::memref(self.shape.clone(), self.elem.to_type()))
    }
}

/// Parallel or reduction (linalg's `iterator_types`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxisKind {
    Parallel,
    Reduction,
}

impl AxisKind {
    /// `"parallel"` / `"reduction"`.
    pub fn keyword(self) -> &'static str {
        match self {
            AxisKind::Parallel => "parallel",
            AxisKind::Reduction => "reduction",
        }
    }
}

/// One axis of the iteration domain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Axis {
    /// Name without `%` (custom form `%m` is `m`).
    pub name: String,
    pub extent: i64,
    pub kind: AxisKind,
}

/// The combiner of the reduction axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combiner {
    Sum,
    Max,
    Min,
    Prod,
}

impl Combiner {
    /// `"sum"`, `"max"`, `"min"`, `"prod"` (the generic form's `combiner` attribute and
    /// the custom form's `te.sum` ...).
    pub fn keyword(self) -> &'static str {
        match self {
            Combiner::Sum => "sum",
            Combiner::Max => "max",
            Combiner::Min => "min",
            Combiner::Prod => "prod",
        }
    }
    /// Looks a keyword up.
    pub fn from_keyword(s: &str) -> Option<Combiner> {
        match s {
            "sum" => Some(Combiner::Sum),
            "max" => Some(Combiner::Max),
            "min" => Some(Combiner::Min),
            "prod" => Some(Combiner::Prod),
            _ => None,
        }
    }
    /// The identity the accumulator starts from.
    pub fn identity(self, t: ElemType) -> f64 {
        match (self, t.is_float()) {
            (Combiner::Sum, _) => 0.0,
            (Combiner::Prod, _) => 1.0,
            (Combiner::Max, true) => f64::NEG_INFINITY,
            (Combiner::Min, true) => f64::INFINITY,
            (Combiner::Max, false) => int_range(t).0 as f64,
            (Combiner::Min, false) => int_range(t).1 as f64,
        }
    }
}

/// The value range of an integer element type (i1 is 0..=1, as a boolean).
pub fn int_range(t: ElemType) -> (i64, i64) {
    match t {
        ElemType::I32 => (i32::MIN as i64, i32::MAX as i64),
        ElemType::I8 => (i8::MIN as i64, i8::MAX as i64),
        ElemType::I1 => (0, 1),
        _ => (i64::MIN, i64::MAX),
    }
}

/// One read of an input tensor: `%A[map(d0, ..)]`, with an optional value for indices
/// outside the tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    /// Index into [`TeCompute::inputs`].
    pub input: usize,
    /// Over the domain dims, no symbols; one result per input dimension.
    pub map: AffineMap,
    /// Value of out-of-bounds reads (conv zero padding); `None`: reads must be in bounds.
    pub pad: Option<f64>,
}

/// Binary arithmetic (`arith.addf`/`addi`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    /// `pow(a, b)`: `a` raised to `b` (`math.powf`; floats only).
    Pow,
}

/// Unary operations (`arith.negf`, `math.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Tanh,
    Erf,
    Abs,
}

impl UnOp {
    /// The custom form's function name (`exp`, ...; `neg` is also spelt `-x`).
    pub fn name(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::Exp => "exp",
            UnOp::Log => "log",
            UnOp::Sqrt => "sqrt",
            UnOp::Rsqrt => "rsqrt",
            UnOp::Tanh => "tanh",
            UnOp::Erf => "erf",
            UnOp::Abs => "abs",
        }
    }
    /// Looks a function name up.
    pub fn from_name(s: &str) -> Option<UnOp> {
        [
            UnOp::Neg,
            UnOp::Exp,
            UnOp::Log,
            UnOp::Sqrt,
            UnOp::Rsqrt,
            UnOp::Tanh,
            UnOp::Erf,
            UnOp::Abs,
        ]
        .into_iter()
        .find(|u| u.name() == s)
    }
}

/// Comparisons (ordered for floats, signed for integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The custom form's operator.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
    /// Evaluates on two values.
    pub fn eval(self, a: f64, b: f64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b && !a.is_nan() && !b.is_nan(),
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// The scalar body: a tree over the values read by the accesses.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// The value read by [`TeCompute::accesses`]`[i]`.
    Access(usize),
    /// A constant of the given type (integers are stored exactly in the f64).
    Const(f64, ElemType),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    /// An `i1` comparison of two operands of one type.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// `select(cond, a, b)`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Conversion to the given type.
    Cast(ElemType, Box<Expr>),
}

impl Expr {
    /// The result type, given the types of the accesses; `None` when ill-typed or an
    /// access index is out of range.
    pub fn ty(&self, access_types: &[ElemType]) -> Option<ElemType> {
        Some(match self {
            Expr::Access(i) => *access_types.get(*i)?,
            Expr::Const(_, t) => *t,
            Expr::Binary(op, a, b) => {
                let ta = a.ty(access_types)?;
                if b.ty(access_types)? != ta
                    || ta == ElemType::I1
                    || (*op == BinOp::Pow && !ta.is_float())
                {
                    return None;
                }
                ta
            }
            Expr::Unary(op, a) => {
                let t = a.ty(access_types)?;
                if t == ElemType::I1 || (!t.is_float() && !matches!(op, UnOp::Neg | UnOp::Abs)) {
                    return None;
                }
                t
            }
            Expr::Cmp(_, a, b) => {
                if a.ty(access_types)? != b.ty(access_types)? {
                    return None;
                }
                ElemType::I1
            }
            Expr::Select(c, a, b) => {
                let ta = a.ty(access_types)?;
                if c.ty(access_types)? != ElemType::I1 || b.ty(access_types)? != ta {
                    return None;
                }
                ta
            }
            Expr::Cast(t, a) => {
                a.ty(access_types)?;
                *t
            }
        })
    }

    /// Calls `f` on every access index used, in order.
    pub fn for_each_access(&self, f: &mut dyn FnMut(usize)) {
        match self {
            Expr::Access(i) => f(*i),
            Expr::Const(..) => {}
            Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) => {
                a.for_each_access(f);
                b.for_each_access(f);
            }
            Expr::Unary(_, a) | Expr::Cast(_, a) => a.for_each_access(f),
            Expr::Select(c, a, b) => {
                c.for_each_access(f);
                a.for_each_access(f);
                b.for_each_access(f);
            }
        }
    }
}

/// Roller's "may pad" permission with the padding value (§4 "Tensor padding").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MayPad {
    pub value: f64,
}

/// One `te.compute`.
#[derive(Clone, Debug, PartialEq)]
pub struct TeCompute {
    /// Domain dims in order: parallel axes, then reduction axes.
    pub axes: Vec<Axis>,
    /// The distinct input tensors (the custom form's operands, in order of first use).
    pub inputs: Vec<TensorType>,
    /// The reads; the generic form has one operand and one block argument per access.
    pub accesses: Vec<Access>,
    /// The per-point value.
    pub body: Expr,
    /// Present exactly when there are reduction axes.
    pub combiner: Option<Combiner>,
    /// Result tensor: indexed by the parallel axes in order.
    pub result: TensorType,
    /// Whether `--tensor-padding` may pad this compute, and with what value.
    pub may_pad: Option<MayPad>,
    /// The extents before `--tensor-padding` (one per axis), when the domain is padded.
    pub padded_from: Option<Vec<i64>>,
    /// The accumulator's type when it differs from the result's (`acc(f32)` in the custom
    /// form, `accumulator = f32` in the generic form); `None`: the result element type.
    pub accumulator: Option<ElemType>,
}

impl TeCompute {
    /// The type the body yields and the combiner folds in: the explicit accumulator, else
    /// the result element type.
    pub fn acc_type(&self) -> ElemType {
        self.accumulator.unwrap_or(self.result.elem)
    }
    /// Number of parallel axes.
    pub fn num_parallel(&self) -> usize {
        self.axes
            .iter()
            .filter(|a| a.kind == AxisKind::Parallel)
            .count()
    }
    /// Extents of all domain dims.
    pub fn extents(&self) -> Vec<i64> {
        self.axes.iter().map(|a| a.extent).collect()
    }
    /// The element type of each access.
    pub fn access_types(&self) -> Vec<ElemType> {
        self.accesses
            .iter()
            .map(|a| {
                self.inputs
                    .get(a.input)
                    .map(|t| t.elem)
                    .unwrap_or(ElemType::F32)
            })
            .collect()
    }
    /// The result's indexing map `(d0, .., dn-1) -> (d0, .., dP-1)` (generic form's last
    /// `indexing_maps` entry).
    pub fn result_map(&self) -> AffineMap {
        let n = self.axes.len() as u32;
        AffineMap::new(
            n,
            0,
            (0..self.num_parallel() as u32)
                .map(rtile::ir::affine::AffineExpr::Dim)
                .collect(),
        )
    }
    /// The extents reads may really touch: `padded_from`, else the domain.
    pub fn valid_extents(&self) -> Vec<i64> {
        self.padded_from.clone().unwrap_or_else(|| self.extents())
    }
    /// Number of points in the iteration domain.
    pub fn domain_size(&self) -> i64 {
        self.axes.iter().map(|a| a.extent).product()
    }
}
