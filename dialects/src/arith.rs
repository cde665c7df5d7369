//! The upstream `arith` and `math` ops that te bodies lower to (the generic form of a
//! `te.compute` body), registered with upstream semantics: operand and result type
//! agreement, element kinds (float vs integer), cast widths, `arith.constant`'s value
//! type, comparison predicates. Generic form only (as `mlir-opt-22 --mlir-print-op-generic`
//! prints them); their custom forms are not needed by te, whose custom form prints the
//! body as an expression.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::{Attribute, Context, OpId, Type};
use rtile::printer::type_to_string;

/// What an op checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Two operands and the result, one type; `float` says which element kind.
    Binary { float: bool },
    /// One operand and the result, one type.
    Unary { float: bool },
    /// Two operands of one type, an `i1`-like result, a `predicate`.
    Cmp { float: bool },
    /// `i1` condition, two values of the result type.
    Select,
    /// One operand to one result of the given element kinds; `widen`: result wider
    /// (`Some(true)`), narrower (`Some(false)`), or any width (`None`).
    Cast {
        from_float: bool,
        to_float: bool,
        widen: Option<bool>,
    },
    /// No operands; `value` of the result type.
    Constant,
}

/// One registered arith/math op.
struct ScalarOp {
    name: &'static str,
    kind: Kind,
}

const ARITH: &[(&str, Kind)] = &[
    ("arith.addf", Kind::Binary { float: true }),
    ("arith.subf", Kind::Binary { float: true }),
    ("arith.mulf", Kind::Binary { float: true }),
    ("arith.divf", Kind::Binary { float: true }),
    ("arith.remf", Kind::Binary { float: true }),
    ("arith.maximumf", Kind::Binary { float: true }),
    ("arith.minimumf", Kind::Binary { float: true }),
    ("arith.maxnumf", Kind::Binary { float: true }),
    ("arith.minnumf", Kind::Binary { float: true }),
    ("arith.addi", Kind::Binary { float: false }),
    ("arith.subi", Kind::Binary { float: false }),
    ("arith.muli", Kind::Binary { float: false }),
    ("arith.divsi", Kind::Binary { float: false }),
    ("arith.divui", Kind::Binary { float: false }),
    ("arith.remsi", Kind::Binary { float: false }),
    ("arith.maxsi", Kind::Binary { float: false }),
    ("arith.minsi", Kind::Binary { float: false }),
    ("arith.andi", Kind::Binary { float: false }),
    ("arith.ori", Kind::Binary { float: false }),
    ("arith.xori", Kind::Binary { float: false }),
    ("arith.negf", Kind::Unary { float: true }),
    ("arith.cmpf", Kind::Cmp { float: true }),
    ("arith.cmpi", Kind::Cmp { float: false }),
    ("arith.select", Kind::Select),
    ("arith.constant", Kind::Constant),
    (
        "arith.extf",
        Kind::Cast {
            from_float: true,
            to_float: true,
            widen: Some(true),
        },
    ),
    (
        "arith.truncf",
        Kind::Cast {
            from_float: true,
            to_float: true,
            widen: Some(false),
        },
    ),
    (
        "arith.extsi",
        Kind::Cast {
            from_float: false,
            to_float: false,
            widen: Some(true),
        },
    ),
    (
        "arith.extui",
        Kind::Cast {
            from_float: false,
            to_float: false,
            widen: Some(true),
        },
    ),
    (
        "arith.trunci",
        Kind::Cast {
            from_float: false,
            to_float: false,
            widen: Some(false),
        },
    ),
    (
        "arith.sitofp",
        Kind::Cast {
            from_float: false,
            to_float: true,
            widen: None,
        },
    ),
    (
        "arith.uitofp",
        Kind::Cast {
            from_float: false,
            to_float: true,
            widen: None,
        },
    ),
    (
        "arith.fptosi",
        Kind::Cast {
            from_float: true,
            to_float: false,
            widen: None,
        },
    ),
    (
        "arith.fptoui",
        Kind::Cast {
            from_float: true,
            to_float: false,
            widen: None,
        },
    ),
];

const MATH: &[(&str, Kind)] = &[
    ("math.exp", Kind::Unary { float: true }),
    ("math.log", Kind::Unary { float: true }),
    ("math.sqrt", Kind::Unary { float: true }),
    ("math.rsqrt", Kind::Unary { float: true }),
    ("math.tanh", Kind::Unary { float: true }),
    ("math.erf", Kind::Unary { float: true }),
    ("math.absf", Kind::Unary { float: true }),
    ("math.absi", Kind::Unary { float: false }),
];

/// `arith`: scalar arithmetic (the subset te bodies use, and a few neighbours).
pub struct ArithDialect;

impl Dialect for ArithDialect {
    fn namespace(&self) -> &'static str {
        "arith"
    }
    fn description(&self) -> &'static str {
        "integer and floating-point arithmetic (upstream MLIR's arith dialect, subset)"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        ops(ARITH)
    }
}

/// `math`: elementary functions (the subset te bodies use).
pub struct MathDialect;

impl Dialect for MathDialect {
    fn namespace(&self) -> &'static str {
        "math"
    }
    fn description(&self) -> &'static str {
        "elementary functions (upstream MLIR's math dialect, subset)"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        ops(MATH)
    }
}

fn ops(table: &[(&'static str, Kind)]) -> Vec<Box<dyn OpDefinition>> {
    table
        .iter()
        .map(|&(name, kind)| Box::new(ScalarOp { name, kind }) as Box<dyn OpDefinition>)
        .collect()
}

/// The element type of a scalar, vector or tensor type.
fn elem(t: &Type) -> &Type {
    match t {
        Type::Tensor { .. } | Type::Vector { .. } | Type::UnrankedTensor { .. } => {
            t.element_type().unwrap_or(t)
        }
        _ => t,
    }
}

/// The same container (shape) with another element type, to compare cast shapes.
fn shape_of(t: &Type) -> Option<Vec<i64>> {
    match t {
        Type::Tensor { shape, .. } | Type::Vector { shape, .. } => Some(shape.clone()),
        _ => None,
    }
}

fn is_float(t: &Type) -> bool {
    elem(t).is_float()
}

fn is_int(t: &Type) -> bool {
    matches!(elem(t), Type::Integer { .. } | Type::Index)
}

fn is_bool(t: &Type) -> bool {
    matches!(elem(t), Type::Integer { width: 1, .. })
}

fn kind_name(float: bool) -> &'static str {
    if float {
        "floating-point-like"
    } else {
        "signless-integer-like"
    }
}

impl ScalarOp {
    fn check(&self, ctx: &Context, op: OpId) -> Result<(), String> {
        let operands: Vec<&Type> = ctx
            .operands(op)
            .iter()
            .map(|&v| ctx.value_type(v))
            .collect();
        let results: Vec<&Type> = ctx.results(op).iter().map(|&v| ctx.value_type(v)).collect();
        let arity = match self.kind {
            Kind::Binary { .. } | Kind::Cmp { .. } => 2,
            Kind::Unary { .. } | Kind::Cast { .. } => 1,
            Kind::Select => 3,
            Kind::Constant => 0,
        };
        if operands.len() != arity {
            return Err(format!(
                "expected {arity} operands, but found {}",
                operands.len()
            ));
        }
        if results.len() != 1 {
            return Err(format!("requires one result, but found {}", results.len()));
        }
        let res = results[0];
        let of_kind = |float: bool, t: &Type, what: &str| -> Result<(), String> {
            let ok = if float { is_float(t) } else { is_int(t) };
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "{what} must be {}, but got '{}'",
                    kind_name(float),
                    type_to_string(t)
                ))
            }
        };
        match self.kind {
            Kind::Binary { float } | Kind::Unary { float } => {
                for (i, t) in operands.iter().enumerate() {
                    of_kind(float, t, &format!("operand #{i}"))?;
                }
                of_kind(float, res, "result #0")?;
                if operands.iter().any(|t| *t != res) {
                    return Err("requires the same type for all operands and results".into());
                }
            }
            Kind::Cmp { float } => {
                of_kind(float, operands[0], "operand #0")?;
                of_kind(float, operands[1], "operand #1")?;
                if operands[0] != operands[1] {
                    return Err("requires all operands to have the same type".into());
                }
                if !is_bool(res) {
                    return Err(format!(
                        "result #0 must be bool-like, but got '{}'",
                        type_to_string(res)
                    ));
                }
                if shape_of(res) != shape_of(operands[0]) {
                    return Err(
                        "failed to verify that result type has i1 element type and same shape as operands"
                            .into(),
                    );
                }
                if ctx
                    .inherent_attr(op, "predicate")
                    .and_then(Attribute::as_int)
                    .is_none()
                {
                    return Err("requires attribute 'predicate'".into());
                }
            }
            Kind::Select => {
                if !is_bool(operands[0]) {
                    return Err(format!(
                        "operand #0 must be bool-like, but got '{}'",
                        type_to_string(operands[0])
                    ));
                }
                if operands[1] != res || operands[2] != res {
                    return Err(
                        "failed to verify that all of {true_value, false_value, result} have same type"
                            .into(),
                    );
                }
            }
            Kind::Cast {
                from_float,
                to_float,
                widen,
            } => {
                let from = operands[0];
                let ok_kind = if from_float {
                    is_float(from)
                } else {
                    is_int(from)
                } && if to_float { is_float(res) } else { is_int(res) };
                let (fw, tw) = (
                    elem(from).bit_width().unwrap_or(0),
                    elem(res).bit_width().unwrap_or(0),
                );
                let ok_width = match widen {
                    Some(true) => tw > fw,
                    Some(false) => tw < fw,
                    None => true,
                };
                if !ok_kind || !ok_width || shape_of(from) != shape_of(res) {
                    return Err(format!(
                        "operand type '{}' and result type '{}' are cast incompatible",
                        type_to_string(from),
                        type_to_string(res)
                    ));
                }
            }
            Kind::Constant => {
                let Some(v) = ctx.inherent_attr(op, "value") else {
                    return Err("requires attribute 'value'".into());
                };
                let vt = match v {
                    Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } => Some(ty),
                    Attribute::DenseElements { ty, .. } => Some(ty),
                    _ => None,
                };
                if vt.is_some_and(|t| t != res) {
                    return Err(
                        "failed to verify that all of {value, result} have same type".into(),
                    );
                }
            }
        }
        Ok(())
    }
}

impl OpDefinition for ScalarOp {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        match self.kind {
            Kind::Binary { .. } => "elementwise binary arithmetic",
            Kind::Unary { .. } => "elementwise unary function",
            Kind::Cmp { .. } => "elementwise comparison with a predicate",
            Kind::Select => "elementwise choice by an i1 condition",
            Kind::Cast { .. } => "elementwise conversion between element types",
            Kind::Constant => "a constant value",
        }
    }
    fn traits(&self) -> OpTraits {
        OpTraits {
            pure: true,
            ..OpTraits::default()
        }
    }
    fn verify(&self, ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
        self.check(ctx, op)
            .map_err(|m| Diagnostic::op_error(ctx, op, m))
    }
}
