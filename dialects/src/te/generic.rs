//! The generic form's body: a straight-line list of upstream `arith`/`math` operations
//! over the region's block arguments (one per access), ended by `te.yield`. This module
//! converts between the model's [`Expr`] tree and that list; the IR glue only turns each
//! [`BodyOp`] into an operation (`"arith.mulf"(%a, %b) : (f32, f32) -> f32`) and back.
//!
//! Op names are upstream's, so `mlir-opt-22 --allow-unregistered-dialect` verifies the
//! body, and a `linalg.generic` body maps onto it (minus linalg's trailing combine with
//! the `outs` block argument, which te keeps as the `combiner` attribute).

use super::model::{BinOp, CmpOp, ElemType, Expr, UnOp};

/// An operand of a body op: a block argument (access) or an earlier op's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyValue {
    Arg(usize),
    Op(usize),
}

/// An attribute of a body op.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyAttr {
    /// `value = 1.0 : f32` (floats) or `value = 3 : i32` (integers) of `arith.constant`.
    Value(f64, ElemType),
    /// `predicate = N : i64` of `arith.cmpf`/`arith.cmpi` (upstream enum numbering).
    Predicate(i64),
}

/// One upstream scalar operation with one result.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyOp {
    /// Full name: `arith.addf`, `math.exp`, ...
    pub name: &'static str,
    pub operands: Vec<BodyValue>,
    pub result: ElemType,
    /// `Some` for `arith.constant` (`value`) and comparisons (`predicate`).
    pub attr: Option<BodyAttr>,
}

/// A whole generic body: the ops and the value given to `te.yield`.
#[derive(Clone, Debug, PartialEq)]
pub struct GenericBody {
    pub ops: Vec<BodyOp>,
    pub yielded: BodyValue,
}

/// The upstream op a te binary operation becomes on float (`float`) or integer operands;
/// the one mapping the generic form, the GPU lowering and the naive kernels share.
pub fn binary_op_name(op: BinOp, float: bool) -> &'static str {
    match (op, float) {
        (BinOp::Add, true) => "arith.addf",
        (BinOp::Add, false) => "arith.addi",
        (BinOp::Sub, true) => "arith.subf",
        (BinOp::Sub, false) => "arith.subi",
        (BinOp::Mul, true) => "arith.mulf",
        (BinOp::Mul, false) => "arith.muli",
        (BinOp::Div, true) => "arith.divf",
        (BinOp::Div, false) => "arith.divsi",
        (BinOp::Max, true) => "arith.maximumf",
        (BinOp::Max, false) => "arith.maxsi",
        (BinOp::Min, true) => "arith.minimumf",
        (BinOp::Min, false) => "arith.minsi",
        (BinOp::Pow, true) => "math.powf",
        // Integer powers are ill-typed in te (`Expr::ty`); upstream's name for them.
        (BinOp::Pow, false) => "math.ipowi",
    }
}

/// The upstream op a te unary operation becomes on a float operand (integer negation and
/// absolute value have no single op: `0 - x` and `math.absi`).
pub fn float_unary_op_name(op: UnOp) -> &'static str {
    match op {
        UnOp::Neg => "arith.negf",
        UnOp::Exp => "math.exp",
        UnOp::Log => "math.log",
        UnOp::Sqrt => "math.sqrt",
        UnOp::Rsqrt => "math.rsqrt",
        UnOp::Tanh => "math.tanh",
        UnOp::Erf => "math.erf",
        UnOp::Abs => "math.absf",
    }
}

/// `arith.cmpf` predicate numbers (`arith::CmpFPredicate`): ordered comparisons.
pub fn cmpf_predicate(c: CmpOp) -> i64 {
    match c {
        CmpOp::Eq => 1,
        CmpOp::Gt => 2,
        CmpOp::Ge => 3,
        CmpOp::Lt => 4,
        CmpOp::Le => 5,
        CmpOp::Ne => 6,
    }
}

/// `arith.cmpi` predicate numbers (`arith::CmpIPredicate`): signed comparisons.
pub fn cmpi_predicate(c: CmpOp) -> i64 {
    match c {
        CmpOp::Eq => 0,
        CmpOp::Ne => 1,
        CmpOp::Lt => 2,
        CmpOp::Le => 3,
        CmpOp::Gt => 4,
        CmpOp::Ge => 5,
    }
}

/// The textual predicate name for the printed generic form (`#arith<cmpf olt>`-free
/// spelling is the integer; this is for docs and diagnostics).
pub fn predicate_from(float: bool, n: i64) -> Option<CmpOp> {
    [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ]
    .into_iter()
    .find(|&c| {
        if float {
            cmpf_predicate(c) == n
        } else {
            cmpi_predicate(c) == n
        }
    })
}

struct Lower<'a> {
    tys: &'a [ElemType],
    ops: Vec<BodyOp>,
}

impl Lower<'_> {
    fn push(
        &mut self,
        name: &'static str,
        operands: Vec<BodyValue>,
        result: ElemType,
        attr: Option<BodyAttr>,
    ) -> BodyValue {
        self.ops.push(BodyOp {
            name,
            operands,
            result,
            attr,
        });
        BodyValue::Op(self.ops.len() - 1)
    }

    fn ty(&self, e: &Expr) -> ElemType {
        e.ty(self.tys).unwrap_or(ElemType::F32)
    }

    fn cast(&mut self, v: BodyValue, from: ElemType, to: ElemType) -> BodyValue {
        if from == to {
            return v;
        }
        let name = match (from.is_float(), to.is_float()) {
            (true, true) if from.width() == to.width() => {
                // f16 <-> bf16: through f32, which holds both exactly.
                let mid = self.push("arith.extf", vec![v], ElemType::F32, None);
                return self.cast(mid, ElemType::F32, to);
            }
            (true, true) if to.width() > from.width() => "arith.extf",
            (true, true) => "arith.truncf",
            (false, true) if from == ElemType::I1 => "arith.uitofp",
            (false, true) => "arith.sitofp",
            (true, false) if to == ElemType::I1 => "arith.fptoui",
            (true, false) => "arith.fptosi",
            (false, false) if from == ElemType::I1 => "arith.extui",
            (false, false) if to.width() > from.width() => "arith.extsi",
            (false, false) => "arith.trunci",
        };
        self.push(name, vec![v], to, None)
    }

    fn lower(&mut self, e: &Expr) -> BodyValue {
        match e {
            Expr::Access(i) => BodyValue::Arg(*i),
            Expr::Const(v, t) => {
                self.push("arith.constant", vec![], *t, Some(BodyAttr::Value(*v, *t)))
            }
            Expr::Binary(op, a, b) => {
                let t = self.ty(a);
                let (va, vb) = (self.lower(a), self.lower(b));
                let f = t.is_float();
                let name = binary_op_name(*op, f);
                self.push(name, vec![va, vb], t, None)
            }
            Expr::Unary(op, a) => {
                let t = self.ty(a);
                let va = self.lower(a);
                if !t.is_float() {
                    return match op {
                        UnOp::Abs => self.push("math.absi", vec![va], t, None),
                        _ => {
                            // No arith.negi upstream: 0 - x.
                            let z = self.push(
                                "arith.constant",
                                vec![],
                                t,
                                Some(BodyAttr::Value(0.0, t)),
                            );
                            self.push("arith.subi", vec![z, va], t, None)
                        }
                    };
                }
                let name = float_unary_op_name(*op);
                self.push(name, vec![va], t, None)
            }
            Expr::Cmp(c, a, b) => {
                let t = self.ty(a);
                let (va, vb) = (self.lower(a), self.lower(b));
                let (name, p) = if t.is_float() {
                    ("arith.cmpf", cmpf_predicate(*c))
                } else {
                    ("arith.cmpi", cmpi_predicate(*c))
                };
                self.push(
                    name,
                    vec![va, vb],
                    ElemType::I1,
                    Some(BodyAttr::Predicate(p)),
                )
            }
            Expr::Select(c, a, b) => {
                let t = self.ty(a);
                let (vc, va, vb) = (self.lower(c), self.lower(a), self.lower(b));
                self.push("arith.select", vec![vc, va, vb], t, None)
            }
            Expr::Cast(to, a) => {
                let from = self.ty(a);
                let va = self.lower(a);
                self.cast(va, from, *to)
            }
        }
    }
}

/// Lowers a body tree to upstream ops (`access_types[i]` is block argument `i`'s type).
pub fn body_to_ops(body: &Expr, access_types: &[ElemType]) -> GenericBody {
    let mut l = Lower {
        tys: access_types,
        ops: Vec::new(),
    };
    let yielded = l.lower(body);
    GenericBody {
        ops: l.ops,
        yielded,
    }
}

/// Raises a generic body back to a tree; errors name the offending op by position.
pub fn ops_to_body(g: &GenericBody, access_types: &[ElemType]) -> Result<Expr, String> {
    let mut vals: Vec<Expr> = Vec::with_capacity(g.ops.len());
    let get = |vals: &Vec<Expr>, v: BodyValue, at: usize| -> Result<Expr, String> {
        match v {
            BodyValue::Arg(i) if i < access_types.len() => Ok(Expr::Access(i)),
            BodyValue::Op(j) if j < vals.len() => Ok(vals[j].clone()),
            _ => Err(format!(
                "body op #{at} uses a value that is not defined before it"
            )),
        }
    };
    let tyof = |e: &Expr| e.ty(access_types);
    for (i, op) in g.ops.iter().enumerate() {
        let args = op
            .operands
            .iter()
            .map(|&v| get(&vals, v, i))
            .collect::<Result<Vec<_>, _>>()?;
        let arity = |n: usize| -> Result<(), String> {
            if args.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "body op #{i} `{}` has {} operands, expected {n}",
                    op.name,
                    args.len()
                ))
            }
        };
        let bin = |b: BinOp| -> Result<Expr, String> {
            arity(2)?;
            Ok(Expr::Binary(
                b,
                Box::new(args[0].clone()),
                Box::new(args[1].clone()),
            ))
        };
        let un = |u: UnOp| -> Result<Expr, String> {
            arity(1)?;
            Ok(Expr::Unary(u, Box::new(args[0].clone())))
        };
        let e = match op.name {
            "arith.constant" => match op.attr {
                Some(BodyAttr::Value(v, t)) => Expr::Const(v, t),
                _ => return Err(format!("body op #{i} `arith.constant` needs a value")),
            },
            "arith.addf" | "arith.addi" => bin(BinOp::Add)?,
            "arith.subf" | "arith.subi" => bin(BinOp::Sub)?,
            "arith.mulf" | "arith.muli" => bin(BinOp::Mul)?,
            "arith.divf" | "arith.divsi" => bin(BinOp::Div)?,
            "arith.maximumf" | "arith.maxsi" | "arith.maxnumf" => bin(BinOp::Max)?,
            "arith.minimumf" | "arith.minsi" | "arith.minnumf" => bin(BinOp::Min)?,
            "math.powf" => bin(BinOp::Pow)?,
            "arith.negf" => un(UnOp::Neg)?,
            "math.exp" => un(UnOp::Exp)?,
            "math.log" => un(UnOp::Log)?,
            "math.sqrt" => un(UnOp::Sqrt)?,
            "math.rsqrt" => un(UnOp::Rsqrt)?,
            "math.tanh" => un(UnOp::Tanh)?,
            "math.erf" => un(UnOp::Erf)?,
            "math.absf" | "math.absi" => un(UnOp::Abs)?,
            "arith.cmpf" | "arith.cmpi" => {
                arity(2)?;
                let p = match op.attr {
                    Some(BodyAttr::Predicate(p)) => p,
                    _ => return Err(format!("body op #{i} `{}` needs a predicate", op.name)),
                };
                let c = predicate_from(op.name == "arith.cmpf", p).ok_or_else(|| {
                    format!("body op #{i} `{}`: unsupported predicate {p}", op.name)
                })?;
                Expr::Cmp(c, Box::new(args[0].clone()), Box::new(args[1].clone()))
            }
            "arith.select" => {
                arity(3)?;
                Expr::Select(
                    Box::new(args[0].clone()),
                    Box::new(args[1].clone()),
                    Box::new(args[2].clone()),
                )
            }
            "arith.extf" | "arith.truncf" | "arith.sitofp" | "arith.uitofp" | "arith.fptosi"
            | "arith.fptoui" | "arith.extsi" | "arith.extui" | "arith.trunci" => {
                arity(1)?;
                Expr::Cast(op.result, Box::new(args[0].clone()))
            }
            other => {
                return Err(format!(
                    "body op #{i} `{other}` is not supported in te bodies"
                ));
            }
        };
        if tyof(&e) != Some(op.result) {
            return Err(format!(
                "body op #{i} `{}` is ill-typed (declared result {})",
                op.name,
                op.result.keyword()
            ));
        }
        vals.push(e);
    }
    get(&vals, g.yielded, g.ops.len())
}

/// The op name for a name coming from the IR, if te bodies support it (to intern the
/// `&'static str` in [`BodyOp::name`]).
pub fn intern_op_name(name: &str) -> Option<&'static str> {
    const NAMES: &[&str] = &[
        "arith.constant",
        "arith.addf",
        "arith.addi",
        "arith.subf",
        "arith.subi",
        "arith.mulf",
        "arith.muli",
        "arith.divf",
        "arith.divsi",
        "arith.maximumf",
        "arith.maxsi",
        "arith.maxnumf",
        "arith.minimumf",
        "arith.minsi",
        "arith.minnumf",
        "arith.negf",
        "math.exp",
        "math.log",
        "math.sqrt",
        "math.rsqrt",
        "math.tanh",
        "math.erf",
        "math.powf",
        "math.absf",
        "math.absi",
        "arith.cmpf",
        "arith.cmpi",
        "arith.select",
        "arith.extf",
        "arith.truncf",
        "arith.sitofp",
        "arith.uitofp",
        "arith.fptosi",
        "arith.fptoui",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
    ];
    NAMES.iter().copied().find(|n| *n == name)
}
