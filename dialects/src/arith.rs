//! The upstream `arith` and `math` ops that te bodies lower to (the generic form of a
//! `te.compute` body), registered with upstream semantics: operand and result type
//! agreement, element kinds (float vs integer), cast widths, `arith.constant`'s value
//! type, comparison predicates. Custom and generic forms print as mlir-opt-22 prints
//! them, `arith.constant`'s result names (`%cst`, `%c0_i32`, `%true`) included.
//!
//! `arith.constant` also holds tensors: `dense<...>` elements (splats too) and
//! `dense_resource<handle>` blobs from the file's `dialect_resources` section; the
//! verifier checks that such a blob exists and has the byte size of the type.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::{
    AttrKind, Attribute, Context, NamedAttribute, OpId, OperationState, Type, TypeKind,
};
use rtile::parser::OpAsmParser;
use rtile::printer::{OpAsmPrinter, type_to_string};

/// `arith.cmpf` predicates in upstream's enum order (`predicate = 4` is `olt`).
pub const CMPF_PREDICATES: &[&str] = &[
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
    "une", "uno", "true",
];
/// `arith.cmpi` predicates in upstream's enum order.
pub const CMPI_PREDICATES: &[&str] = &[
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
];

/// `arith.cmpi`'s predicate as upstream's `arith::CmpIPredicate`: the discriminant is the
/// number stored in the `predicate` property, the keyword its [`CMPI_PREDICATES`] entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpIPredicate {
    Eq = 0,
    Ne = 1,
    Slt = 2,
    Sle = 3,
    Sgt = 4,
    Sge = 5,
    Ult = 6,
    Ule = 7,
    Ugt = 8,
    Uge = 9,
}

impl CmpIPredicate {
    /// The number stored in the `predicate` property.
    pub fn value(self) -> i64 {
        self as i64
    }
    /// The keyword (`slt`, `uge`, ...).
    pub fn keyword(self) -> &'static str {
        CMPI_PREDICATES[self as usize]
    }
}

/// Ops with an `overflowFlags` property (default `#arith.overflow<none>`).
const OVERFLOW_OPS: &[&str] = &[
    "arith.addi",
    "arith.subi",
    "arith.muli",
    "arith.shli",
    "arith.trunci",
];

/// The properties upstream materializes with their default value when an op is built
/// without them (`fastmath = #arith.fastmath<none>` on float arithmetic, comparisons
/// and math functions; `overflowFlags = #arith.overflow<none>` on integer add, sub,
/// mul, shl, trunc), so that generic forms print as mlir-opt-22 prints them.
pub fn default_properties(op_name: &str) -> Vec<NamedAttribute> {
    let kind = ARITH
        .iter()
        .chain(MATH)
        .find(|(n, _)| *n == op_name)
        .map(|(_, k)| *k);
    let fastmath = matches!(
        kind,
        Some(
            Kind::Binary { float: true }
                | Kind::Unary { float: true }
                | Kind::Ternary { float: true }
                | Kind::Cmp { float: true }
                | Kind::FloatTest
        )
    );
    let mut v = Vec::new();
    if fastmath {
        v.push(NamedAttribute {
            name: "fastmath".into(),
            value: Attribute::new(AttrKind::Dialect {
                dialect: "arith".into(),
                body: "fastmath<none>".into(),
            }),
        });
    }
    if OVERFLOW_OPS.contains(&op_name) {
        v.push(NamedAttribute {
            name: "overflowFlags".into(),
            value: Attribute::new(AttrKind::Dialect {
                dialect: "arith".into(),
                body: "overflow<none>".into(),
            }),
        });
    }
    v
}

/// Inherent attributes (properties) of the registered ops; others are discardable.
const INHERENT: &[&str] = &["value", "predicate", "fastmath", "overflowFlags"];

/// What an op checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Two operands and the result, one type; `float` says which element kind.
    Binary { float: bool },
    /// One operand and the result, one type.
    Unary { float: bool },
    /// Three operands and the result, one type (`math.fma`).
    Ternary { float: bool },
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
    /// One operand to one result of the same bit width, any element kinds
    /// (`arith.bitcast`).
    Bitcast,
    /// A float operand to an `i1`-like result (`math.isnan`).
    FloatTest,
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
    ("arith.remui", Kind::Binary { float: false }),
    ("arith.maxui", Kind::Binary { float: false }),
    ("arith.minui", Kind::Binary { float: false }),
    ("arith.ceildivsi", Kind::Binary { float: false }),
    ("arith.floordivsi", Kind::Binary { float: false }),
    ("arith.shli", Kind::Binary { float: false }),
    ("arith.shrsi", Kind::Binary { float: false }),
    ("arith.shrui", Kind::Binary { float: false }),
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
        "arith.index_cast",
        Kind::Cast {
            from_float: false,
            to_float: false,
            widen: None,
        },
    ),
    ("arith.bitcast", Kind::Bitcast),
    (
        "arith.index_castui",
        Kind::Cast {
            from_float: false,
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
    ("math.cos", Kind::Unary { float: true }),
    ("math.sin", Kind::Unary { float: true }),
    ("math.exp2", Kind::Unary { float: true }),
    ("math.log2", Kind::Unary { float: true }),
    ("math.ceil", Kind::Unary { float: true }),
    ("math.floor", Kind::Unary { float: true }),
    ("math.powf", Kind::Binary { float: true }),
    ("math.fma", Kind::Ternary { float: true }),
    ("math.acos", Kind::Unary { float: true }),
    ("math.asin", Kind::Unary { float: true }),
    ("math.atan", Kind::Unary { float: true }),
    ("math.acosh", Kind::Unary { float: true }),
    ("math.asinh", Kind::Unary { float: true }),
    ("math.atanh", Kind::Unary { float: true }),
    ("math.cosh", Kind::Unary { float: true }),
    ("math.sinh", Kind::Unary { float: true }),
    ("math.tan", Kind::Unary { float: true }),
    ("math.cbrt", Kind::Unary { float: true }),
    ("math.expm1", Kind::Unary { float: true }),
    ("math.log10", Kind::Unary { float: true }),
    ("math.log1p", Kind::Unary { float: true }),
    ("math.round", Kind::Unary { float: true }),
    ("math.roundeven", Kind::Unary { float: true }),
    ("math.trunc", Kind::Unary { float: true }),
    ("math.atan2", Kind::Binary { float: true }),
    ("math.copysign", Kind::Binary { float: true }),
    ("math.ctlz", Kind::Unary { float: false }),
    ("math.cttz", Kind::Unary { float: false }),
    ("math.ctpop", Kind::Unary { float: false }),
    ("math.ipowi", Kind::Binary { float: false }),
    ("math.isnan", Kind::FloatTest),
    ("math.isinf", Kind::FloatTest),
    ("math.isfinite", Kind::FloatTest),
    ("math.isnormal", Kind::FloatTest),
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
    fn models_upstream_in_part(&self) -> bool {
        true
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
    fn models_upstream_in_part(&self) -> bool {
        true
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
    match t.kind() {
        TypeKind::Tensor { .. } | TypeKind::Vector { .. } | TypeKind::UnrankedTensor { .. } => {
            t.element_type().unwrap_or(t)
        }
        _ => t,
    }
}

/// The same container (shape) with another element type, to compare cast shapes.
fn shape_of(t: &Type) -> Option<Vec<i64>> {
    match t.kind() {
        TypeKind::Tensor { shape, .. } | TypeKind::Vector { shape, .. } => Some(shape.clone()),
        _ => None,
    }
}

fn is_float(t: &Type) -> bool {
    elem(t).is_float()
}

fn is_int(t: &Type) -> bool {
    matches!(elem(t).kind(), TypeKind::Integer { .. } | TypeKind::Index)
}

fn is_bool(t: &Type) -> bool {
    matches!(elem(t).kind(), TypeKind::Integer { width: 1, .. })
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
            Kind::Ternary { .. } => 3,
            Kind::Unary { .. } | Kind::Cast { .. } | Kind::Bitcast | Kind::FloatTest => 1,
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
            Kind::Binary { float } | Kind::Unary { float } | Kind::Ternary { float } => {
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
                    .and_then(|a| a.as_int())
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
            Kind::Bitcast => {
                let from = operands[0];
                let same = elem(from).bit_width().is_some()
                    && elem(from).bit_width() == elem(res).bit_width()
                    && shape_of(from) == shape_of(res);
                if !same {
                    return Err(format!(
                        "operand type '{}' and result type '{}' are cast incompatible",
                        type_to_string(from),
                        type_to_string(res)
                    ));
                }
            }
            Kind::FloatTest => {
                of_kind(true, operands[0], "operand #0")?;
                if *res != bool_like(operands[0]) {
                    return Err(format!(
                        "result #0 must be bool-like, but got '{}'",
                        type_to_string(res)
                    ));
                }
            }
            Kind::Constant => {
                let Some(v) = ctx.inherent_attr(op, "value") else {
                    return Err("requires attribute 'value'".into());
                };
                let vt = match v.kind() {
                    AttrKind::Integer { ty, .. } | AttrKind::Float { ty, .. } => Some(ty),
                    AttrKind::DenseElements { ty, .. }
                    | AttrKind::DenseResource { ty, .. }
                    | AttrKind::Sparse { ty, .. } => Some(ty),
                    _ => None,
                };
                if vt.is_some_and(|t| t != res) {
                    return Err(
                        "failed to verify that all of {value, result} have same type".into(),
                    );
                }
                // The blob must be there and hold exactly the elements of the type
                // (stricter than upstream, which finds out only when it reads them).
                if let AttrKind::DenseResource { handle, ty } = v.kind() {
                    ctx.resources.check_blob(handle, ty)?;
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
    fn default_properties(&self) -> Vec<NamedAttribute> {
        default_properties(self.name)
    }
    fn summary(&self) -> &'static str {
        match self.kind {
            Kind::Binary { .. } => "elementwise binary arithmetic",
            Kind::Unary { .. } => "elementwise unary function",
            Kind::Ternary { .. } => "elementwise fused multiply-add",
            Kind::Cmp { .. } => "elementwise comparison with a predicate",
            Kind::Select => "elementwise choice by an i1 condition",
            Kind::Cast { .. } => "elementwise conversion between element types",
            Kind::Bitcast => "reinterprets the bits of a value as another type",
            Kind::FloatTest => "classifies a float (nan, inf, finite, normal)",
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
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn asm_result_name(&self, ctx: &Context, op: OpId) -> Option<String> {
        (self.kind == Kind::Constant).then(|| constant_name(ctx, op))
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        state: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        let mut props: Vec<NamedAttribute> = Vec::new();
        let mut attrs: Vec<NamedAttribute> = Vec::new();
        let mut operands = Vec::new();
        let mut types: Vec<Type> = Vec::new();
        match self.kind {
            Kind::Constant => {
                p.parse_optional_attr_dict(&mut attrs)?;
                let at = p.current_span();
                let v = p.parse_attribute()?;
                let ty = match v.kind() {
                    AttrKind::Integer { ty, .. }
                    | AttrKind::Float { ty, .. }
                    | AttrKind::DenseElements { ty, .. }
                    | AttrKind::DenseResource { ty, .. }
                    | AttrKind::Sparse { ty, .. } => *ty,
                    AttrKind::Bool(_) => Type::new(TypeKind::Integer {
                        width: 1,
                        signedness: rtile::ir::Signedness::Signless,
                    }),
                    _ => return Err(p.error_at(at, "expected a typed constant value")),
                };
                props.push(NamedAttribute {
                    name: "value".into(),
                    value: v,
                });
                state.result_types = vec![ty];
            }
            Kind::Cmp { float } => {
                let at = p.current_span();
                let kw = p.parse_any_keyword()?;
                let table = if float {
                    CMPF_PREDICATES
                } else {
                    CMPI_PREDICATES
                };
                let n = table.iter().position(|k| *k == kw).ok_or_else(|| {
                    p.error_at(at, format!("unknown comparison predicate \"{kw}\""))
                })?;
                props.push(NamedAttribute {
                    name: "predicate".into(),
                    value: Attribute::i64(n as i64),
                });
                p.parse_punct(",")?;
                operands.push(p.parse_operand()?);
                p.parse_punct(",")?;
                operands.push(p.parse_operand()?);
                flags(p, &mut props)?;
                p.parse_optional_attr_dict(&mut attrs)?;
                p.parse_punct(":")?;
                let t = p.parse_type()?;
                state.result_types = vec![bool_like(&t)];
                types = vec![t, t];
            }
            Kind::Select => {
                for i in 0..3 {
                    if i > 0 {
                        p.parse_punct(",")?;
                    }
                    operands.push(p.parse_operand()?);
                }
                p.parse_optional_attr_dict(&mut attrs)?;
                p.parse_punct(":")?;
                let first = p.parse_type()?;
                let (cond, t) = if p.parse_optional_punct(",") {
                    (first, p.parse_type()?)
                } else {
                    (
                        bool_like(&Type::new(TypeKind::Integer {
                            width: 1,
                            signedness: rtile::ir::Signedness::Signless,
                        })),
                        first,
                    )
                };
                state.result_types = vec![t];
                types = vec![cond, t, t];
            }
            Kind::Cast { .. } | Kind::Bitcast => {
                operands.push(p.parse_operand()?);
                p.parse_optional_attr_dict(&mut attrs)?;
                p.parse_punct(":")?;
                let from = p.parse_type()?;
                p.parse_keyword("to")?;
                let to = p.parse_type()?;
                state.result_types = vec![to];
                types = vec![from];
            }
            Kind::FloatTest => {
                operands.push(p.parse_operand()?);
                flags(p, &mut props)?;
                p.parse_optional_attr_dict(&mut attrs)?;
                p.parse_punct(":")?;
                let t = p.parse_type()?;
                state.result_types = vec![bool_like(&t)];
                types = vec![t];
            }
            Kind::Binary { .. } | Kind::Unary { .. } | Kind::Ternary { .. } => {
                let n = match self.kind {
                    Kind::Binary { .. } => 2,
                    Kind::Ternary { .. } => 3,
                    _ => 1,
                };
                for i in 0..n {
                    if i > 0 {
                        p.parse_punct(",")?;
                    }
                    operands.push(p.parse_operand()?);
                }
                flags(p, &mut props)?;
                p.parse_optional_attr_dict(&mut attrs)?;
                p.parse_punct(":")?;
                let t = p.parse_type()?;
                state.result_types = vec![t];
                types = vec![t; n];
            }
        }
        for (o, t) in operands.iter().zip(&types) {
            state.operands.push(p.resolve_operand(o, t)?);
        }
        // Inherent attributes written in the dictionary are properties, as upstream.
        for a in attrs {
            if INHERENT.contains(&a.name.as_str()) {
                props.push(a);
            } else {
                state.add_attribute(a.name, a.value);
            }
        }
        for d in default_properties(self.name) {
            if !props.iter().any(|a| a.name == d.name) {
                props.push(d);
            }
        }
        if !props.is_empty() {
            state.properties = Some(Attribute::dictionary(props));
        }
        Ok(())
    }
    fn print(&self, ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
        let operands = ctx.operands(op);
        let ty = |i: usize| operands.get(i).map(|&v| *ctx.value_type(v));
        let res = ctx.results(op).first().map(|&v| *ctx.value_type(v));
        // Properties the syntax does not spell print in the dictionary, as upstream.
        let props: &[NamedAttribute] = ctx
            .op(op)
            .properties
            .as_ref()
            .and_then(|a| a.as_dictionary())
            .unwrap_or(&[]);
        let mut dict: Vec<NamedAttribute> = ctx.op(op).attributes.clone();
        let spelled: &[&str] = match self.kind {
            Kind::Constant => &["value"],
            Kind::Cmp { .. } => &["predicate", "fastmath"],
            Kind::FloatTest => &["fastmath"],
            Kind::Binary { .. } | Kind::Unary { .. } | Kind::Ternary { .. } => {
                &["fastmath", "overflowFlags"]
            }
            _ => &[],
        };
        dict.extend(
            props
                .iter()
                .filter(|a| !spelled.contains(&a.name.as_str()))
                .cloned(),
        );
        dict.sort_by_key(|a| a.name);
        match self.kind {
            Kind::Constant => {
                p.print_optional_attr_dict(&dict, &[]);
                if let Some(v) = ctx.inherent_attr(op, "value") {
                    p.write(" ");
                    p.print_attribute(v);
                }
            }
            Kind::Cmp { float } => {
                let table = if float {
                    CMPF_PREDICATES
                } else {
                    CMPI_PREDICATES
                };
                let n = ctx
                    .inherent_attr(op, "predicate")
                    .and_then(|a| a.as_int())
                    .and_then(|n| usize::try_from(n).ok())
                    .and_then(|n| table.get(n))
                    .copied()
                    .unwrap_or("?");
                p.write(&format!(" {n}, "));
                p.print_operands(operands);
                print_flags(ctx, op, p);
                p.print_optional_attr_dict(&dict, &[]);
                p.write(" : ");
                if let Some(t) = ty(0) {
                    p.print_type(&t);
                }
            }
            Kind::Select => {
                p.write(" ");
                p.print_operands(operands);
                p.print_optional_attr_dict(&dict, &[]);
                p.write(" : ");
                if let Some(c) =
                    ty(0).filter(|c| !matches!(c.kind(), TypeKind::Integer { width: 1, .. }))
                {
                    p.print_type(&c);
                    p.write(", ");
                }
                if let Some(t) = res {
                    p.print_type(&t);
                }
            }
            Kind::Cast { .. } | Kind::Bitcast => {
                p.write(" ");
                p.print_operands(operands);
                p.print_optional_attr_dict(&dict, &[]);
                p.write(" : ");
                if let Some(t) = ty(0) {
                    p.print_type(&t);
                }
                p.write(" to ");
                if let Some(t) = res {
                    p.print_type(&t);
                }
            }
            Kind::Binary { .. } | Kind::Unary { .. } | Kind::Ternary { .. } => {
                p.write(" ");
                p.print_operands(operands);
                print_flags(ctx, op, p);
                p.print_optional_attr_dict(&dict, &[]);
                p.write(" : ");
                if let Some(t) = res {
                    p.print_type(&t);
                }
            }
            Kind::FloatTest => {
                p.write(" ");
                p.print_operands(operands);
                print_flags(ctx, op, p);
                p.print_optional_attr_dict(&dict, &[]);
                p.write(" : ");
                if let Some(t) = ty(0) {
                    p.print_type(&t);
                }
            }
        }
    }
}

/// The result name upstream's `arith::ConstantOp::getAsmResultNames` gives: `true` /
/// `false` for `i1`, `c<value>_<type>` for other integers (`c<value>` for `index`),
/// `cst` for everything else.
fn constant_name(ctx: &Context, op: OpId) -> String {
    match ctx.inherent_attr(op, "value").map(|a| a.kind()) {
        Some(AttrKind::Bool(b)) => b.to_string(),
        Some(AttrKind::Integer { value, ty }) => match ty.kind() {
            TypeKind::Integer { width: 1, .. } => (value & 1 != 0).to_string(),
            TypeKind::Integer { width, .. } => {
                // The value as upstream's APInt prints it: signed, in the type's width.
                let v = if *width < 128 {
                    let shift = 128 - width;
                    (value << shift) >> shift
                } else {
                    *value
                };
                format!("c{v}_{}", type_to_string(ty))
            }
            _ => format!("c{value}"),
        },
        _ => "cst".into(),
    }
}

/// `i1` with the shape of `t` (the result type of a comparison).
fn bool_like(t: &Type) -> Type {
    let i1 = Type::i1();
    match t.kind() {
        TypeKind::Tensor { shape, .. } => Type::new(TypeKind::Tensor {
            shape: shape.clone(),
            elem: i1,
            encoding: None,
        }),
        TypeKind::Vector {
            shape, scalable, ..
        } => Type::new(TypeKind::Vector {
            shape: shape.clone(),
            scalable: scalable.clone(),
            elem: i1,
        }),
        _ => i1,
    }
}

/// `fastmath<fast>` / `overflow<nsw>` after the operands, into `fastmath` /
/// `overflowFlags` properties (`#arith.fastmath<...>`, `#arith.overflow<...>`).
fn flags(p: &mut OpAsmParser<'_, '_>, props: &mut Vec<NamedAttribute>) -> Result<(), Diagnostic> {
    for (kw, prop) in [("fastmath", "fastmath"), ("overflow", "overflowFlags")] {
        if p.parse_optional_keyword(kw) {
            p.parse_punct("<")?;
            let mut words = vec![p.parse_any_keyword()?];
            while p.parse_optional_punct(",") {
                words.push(p.parse_any_keyword()?);
            }
            p.parse_punct(">")?;
            props.push(NamedAttribute {
                name: prop.into(),
                value: Attribute::new(AttrKind::Dialect {
                    dialect: "arith".into(),
                    body: format!("{kw}<{}>", words.join(",")),
                }),
            });
        }
    }
    Ok(())
}

/// Prints the non-default `fastmath` / `overflowFlags` of `op`.
fn print_flags(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    for prop in ["fastmath", "overflowFlags"] {
        if let Some(AttrKind::Dialect { body, .. }) = ctx.inherent_attr(op, prop).map(|x| x.kind())
            && !body.ends_with("<none>")
        {
            p.write(" ");
            p.write(body);
        }
    }
}
