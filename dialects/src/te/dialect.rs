//! The te dialect's registry entries: `te.compute` (custom form through
//! [`super::expr`], generic form with its body as upstream arith/math ops) and `te.yield`,
//! with their traits and verifiers.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::decl::{Assembly, Constraint, OpDecl, Verify};
use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::{Context, NamedAttribute, OpId, OperationState, Span, Type};
use rtile::parser::{OpAsmParser, UnresolvedOperand};
use rtile::printer::OpAsmPrinter;

use super::expr::{CustomHeader, ExprError, parse_custom, print_body, print_header};
use super::ir::{COMPUTE, YIELD, build_compute_op, compute_from_op};
use super::model::{ElemType, TensorType};
use super::verify::verify;

/// The attributes the custom form spells in its header; any other attribute of a
/// `te.compute` (e.g. `rtile.tile`) prints after `attributes`.
pub const HEADER_ATTRS: &[&str] = &[
    "accumulator",
    "axis_names",
    "combiner",
    "domain",
    "indexing_maps",
    "iterator_types",
    "may_pad",
    "pad_values",
    "padded_from",
];

/// `te`: tensor expressions.
pub struct TeDialect;

impl Dialect for TeDialect {
    fn namespace(&self) -> &'static str {
        "te"
    }
    fn description(&self) -> &'static str {
        "tensor expressions: index-based computes with parallel and reduction axes (Roller §3.1)"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![COMPUTE_OP.boxed(), YIELD_OP.boxed()]
    }
}

/// `te.compute`.
pub const COMPUTE_OP: OpDecl = OpDecl {
    name: COMPUTE,
    summary: "a tensor expression over an iteration domain of parallel and reduction axes",
    traits: OpTraits {
        single_block: true,
        isolated_from_above: true,
        pure: true,
        ..OpTraits::NONE
    },
    verify: Verify::Message(verify_compute),
    assembly: Some(Assembly {
        parse: parse_compute,
        print: print_compute,
    }),
    ..OpDecl::EMPTY
};

/// Reads the op into the model, then checks the model.
fn verify_compute(ctx: &Context, op: OpId) -> Result<(), String> {
    let (c, _) = compute_from_op(ctx, op)?;
    verify(&c).map_err(|e| e.message)
}

/// `(%a, ..)`: axis names without `%`.
fn axis_list(p: &mut OpAsmParser<'_, '_>) -> Result<Vec<String>, Diagnostic> {
    p.parse_punct("(")?;
    let mut v = Vec::new();
    if p.parse_optional_punct(")") {
        return Ok(v);
    }
    loop {
        let (o, _) = p.parse_argument(false)?;
        if o.index != 0 {
            return Err(p.error_at(o.span, "expected an axis name"));
        }
        v.push(o.name.trim_start_matches('%').to_string());
        if p.parse_optional_punct(")") {
            return Ok(v);
        }
        p.parse_punct(",")?;
    }
}

/// `[1, 2, 3]`.
fn int_list(p: &mut OpAsmParser<'_, '_>) -> Result<Vec<i64>, Diagnostic> {
    p.parse_punct("[")?;
    let mut v = Vec::new();
    if p.parse_optional_punct("]") {
        return Ok(v);
    }
    loop {
        v.push(p.parse_integer()?);
        if p.parse_optional_punct("]") {
            return Ok(v);
        }
        p.parse_punct(",")?;
    }
}

/// A `may_pad` value: a number, `inf`, `-inf` or `nan`.
fn pad_value(p: &mut OpAsmParser<'_, '_>) -> Result<f64, Diagnostic> {
    let neg = p.parse_optional_punct("-");
    let sign = if neg { -1.0 } else { 1.0 };
    if p.parse_optional_keyword("inf") {
        return Ok(sign * f64::INFINITY);
    }
    if p.parse_optional_keyword("nan") {
        return Ok(f64::NAN);
    }
    Ok(sign * p.parse_float()?)
}

fn tensor_type(p: &OpAsmParser<'_, '_>, t: &Type, at: Span) -> Result<TensorType, Diagnostic> {
    TensorType::from_type(t).ok_or_else(|| {
        p.error_at(
            at,
            format!(
                "expected a static tensor of a te element type, got '{}'",
                rtile::printer::type_to_string(t)
            ),
        )
    })
}

/// The span of bytes `e.start..e.end` of a body whose text starts at `body.start`.
fn body_span(body: Span, e: &ExprError) -> Span {
    Span {
        file: body.file,
        start: body.start + e.start as u32,
        end: body.start + e.end.max(e.start + 1) as u32,
    }
}

fn parse_compute(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    if p.num_results() > 1 {
        return Err(p.error_here("'te.compute' has exactly one result"));
    }
    let parallel = axis_list(p)?;
    let reduction = if p.parse_optional_keyword("reduce") {
        axis_list(p)?
    } else {
        Vec::new()
    };
    p.parse_keyword("in")?;
    let extents = int_list(p)?;
    let padded_from = if p.parse_optional_keyword("padded_from") {
        Some(int_list(p)?)
    } else {
        None
    };
    let may_pad = if p.parse_optional_keyword("may_pad") {
        Some(pad_value(p)?)
    } else {
        None
    };
    let accumulator = if p.parse_optional_keyword("acc") {
        p.parse_punct("(")?;
        let at = p.current_span();
        let t = p.parse_type()?;
        p.parse_punct(")")?;
        Some(ElemType::from_type(&t).ok_or_else(|| {
            p.error_at(
                at,
                format!(
                    "expected an accumulator element type (f32, f64, f16 or bf16), got '{}'",
                    rtile::printer::type_to_string(&t)
                ),
            )
        })?)
    } else {
        None
    };
    p.parse_punct(":")?;
    let types_at = p.current_span();
    let (ins, outs) = p.parse_function_type()?;
    let [out] = outs.as_slice() else {
        return Err(p.error_at(types_at, "'te.compute' has exactly one result type"));
    };
    let input_types = ins
        .iter()
        .map(|t| tensor_type(p, t, types_at))
        .collect::<Result<Vec<_>, _>>()?;
    let result = tensor_type(p, out, types_at)?;
    let (text, span) = p.parse_raw_braced()?;
    // Other attributes (e.g. `rtile.tile`) follow the body, as after scf regions.
    let mut extra = Vec::new();
    let dict_at = p.current_span();
    p.parse_optional_attr_dict(&mut extra)?;
    let header = CustomHeader {
        parallel,
        reduction,
        extents,
        input_types,
        result,
        may_pad,
        padded_from,
        accumulator,
    };
    let parsed = parse_custom(&header, &text)
        .map_err(|e| p.error_at(body_span(span, &e), e.message.clone()))?;
    // Verify here, where each access still has its span; the op verifier repeats this
    // on the IR (for generic forms and transformed ops) with the op's span.
    if let Err(e) = verify(&parsed.compute)
        && let Some(&(s, t)) = e.access.and_then(|a| parsed.access_spans.get(a))
    {
        let at = body_span(
            span,
            &ExprError {
                start: s,
                end: t,
                message: String::new(),
            },
        );
        return Err(p.error_at(at, format!("'{COMPUTE}' op {}", e.message)));
    }
    let mut values = Vec::new();
    for (i, name) in parsed.input_names.iter().enumerate() {
        let (n, index) = match name.split_once('#') {
            Some((n, k)) => (n, k.parse::<u32>().unwrap_or(0)),
            None => (name.as_str(), 0),
        };
        // Type mismatches and undefined names point at the tensor's first access.
        let use_span = parsed
            .compute
            .accesses
            .iter()
            .position(|a| a.input == i)
            .and_then(|a| parsed.access_spans.get(a))
            .map(|&(s, t)| {
                body_span(
                    span,
                    &ExprError {
                        start: s,
                        end: t,
                        message: String::new(),
                    },
                )
            })
            .unwrap_or(span);
        let o = UnresolvedOperand {
            name: format!("%{n}"),
            index,
            span: use_span,
        };
        let ty = parsed.compute.inputs[i].to_type();
        values.push(p.resolve_operand(&o, &ty)?);
    }
    let st = build_compute_op(p.ctx(), &parsed.compute, &values);
    state.operands = st.operands;
    state.result_types = st.result_types;
    state.regions = st.regions;
    state.attributes = st.attributes;
    for a in extra {
        if HEADER_ATTRS.contains(&a.name.as_str()) {
            return Err(p.error_at(
                dict_at,
                format!(
                    "'{}' is spelled by the te.compute header, not in its attribute dictionary",
                    a.name
                ),
            ));
        }
        state.add_attribute(a.name, a.value);
    }
    Ok(())
}

fn print_compute(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let (mut c, values) = match compute_from_op(ctx, op) {
        Ok(x) => x,
        Err(m) => {
            // Only an op that failed verification gets here; say so in the output.
            p.write(&format!(" <<invalid te.compute: {m}>>"));
            return;
        }
    };
    let names: Vec<String> = values
        .iter()
        .map(|&v| p.value_name(v).trim_start_matches('%').to_string())
        .collect();
    // An axis named like an operand as printed here (`%0`, `%arg1`) would capture its
    // accesses on re-parse: rename such axes (only the spelling changes).
    for i in 0..c.axes.len() {
        let clashes = |n: &str, c: &super::model::TeCompute| {
            names.iter().any(|x| x == n)
                || c.axes
                    .iter()
                    .enumerate()
                    .any(|(j, a)| j != i && a.name == n)
        };
        if names.contains(&c.axes[i].name) {
            let mut k = 0;
            let mut fresh = format!("ax{i}");
            while clashes(&fresh, &c) {
                k += 1;
                fresh = format!("ax{i}_{k}");
            }
            c.axes[i].name = fresh;
        }
    }
    p.write(" ");
    p.write(&print_header(&c));
    let extra: Vec<NamedAttribute> = ctx
        .op(op)
        .attributes
        .iter()
        .filter(|a| !HEADER_ATTRS.contains(&a.name.as_str()))
        .cloned()
        .collect();
    p.write(" {\n  ");
    p.write(&print_body(&c, &names));
    p.write("\n}");
    p.print_optional_attr_dict(&extra, &[]);
}

/// `te.yield`: the body's value.
pub const YIELD_OP: OpDecl = OpDecl {
    name: YIELD,
    summary: "yields the per-point value of a te.compute body",
    traits: OpTraits::TERMINATOR,
    constraints: &[
        Constraint::Parent(COMPUTE),
        Constraint::Operands(1, "takes exactly one value"),
    ],
    ..OpDecl::EMPTY
};
