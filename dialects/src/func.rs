//! The upstream `func` dialect: `func.func`, `func.return`, `func.call`, with MLIR's
//! custom syntax, generic form (properties `function_type`, `sym_name`, `sym_visibility`,
//! `arg_attrs`, `res_attrs`, `callee`) and verifiers. See `docs/dialects/func.md`.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::decl::{Assembly, Constraint, OpDecl, Verify};
use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::{
    AttrKind, Attribute, Context, NamedAttribute, OpId, OperationState, Span, Type, TypeKind, Value,
};
use rtile::parser::{OpAsmParser, UnresolvedOperand};
use rtile::printer::{OpAsmPrinter, type_to_string};

/// `func.func`.
pub const FUNC: &str = "func.func";
/// `func.return`.
pub const RETURN: &str = "func.return";
/// `func.call`.
pub const CALL: &str = "func.call";

/// `func`: functions, calls and returns (upstream syntax and semantics).
pub struct FuncDialect;

impl Dialect for FuncDialect {
    fn namespace(&self) -> &'static str {
        "func"
    }
    fn description(&self) -> &'static str {
        "functions, calls and returns (upstream MLIR's func dialect)"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![FUNC_OP.boxed(), RETURN_OP.boxed(), CALL_OP.boxed()]
    }
}

/// The `(inputs, results)` of a `func.func`'s `function_type`.
pub fn function_type(ctx: &Context, op: OpId) -> Option<(&[Type], &[Type])> {
    match (ctx
        .inherent_attr(op, "function_type")
        .and_then(|a| a.as_type()))
    .map(|x| x.kind())
    {
        Some(TypeKind::Function { inputs, results }) => Some((inputs, results)),
        _ => None,
    }
}

/// The `sym_name` of an op.
pub fn sym_name(ctx: &Context, op: OpId) -> Option<&str> {
    ctx.inherent_attr(op, "sym_name").and_then(|a| a.as_str())
}

/// Finds the `func.func @name` visible from `from`: the nearest enclosing symbol table
/// (an op whose definition has the `symbol_table` trait) that defines `name`.
pub fn lookup_func(ctx: &Context, from: OpId, name: &str) -> Option<OpId> {
    let mut cur = ctx.parent_op(from);
    while let Some(op) = cur {
        if ctx.op_def(op).is_some_and(|d| d.traits().symbol_table) {
            for &r in ctx.regions(op) {
                for &b in ctx.region_blocks(r) {
                    if let Some(f) = ctx
                        .block_ops(b)
                        .find(|&o| ctx.op_name(o) == FUNC && sym_name(ctx, o) == Some(name))
                    {
                        return Some(f);
                    }
                }
            }
            return None;
        }
        cur = ctx.parent_op(op);
    }
    None
}

fn types_text(ts: &[Type]) -> String {
    ts.iter()
        .map(|t| format!("'{}'", type_to_string(t)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_percent(p: &OpAsmParser<'_, '_>) -> bool {
    p.peek_token().is_some_and(|t| t.text.starts_with('%'))
}

/// A parsed argument or result attribute dictionary (empty when absent).
fn optional_dict(p: &mut OpAsmParser<'_, '_>) -> Result<Vec<NamedAttribute>, Diagnostic> {
    let mut v = Vec::new();
    if p.peek_punct("{") {
        p.parse_optional_attr_dict(&mut v)?;
    }
    Ok(v)
}

/// `[{...}, {}]`, or `None` when every dictionary is empty (MLIR omits the property).
fn attrs_array(dicts: Vec<Vec<NamedAttribute>>) -> Option<Attribute> {
    if dicts.iter().all(Vec::is_empty) {
        return None;
    }
    Some(Attribute::new(AttrKind::Array(
        dicts.into_iter().map(Attribute::dictionary).collect(),
    )))
}

fn dict_at(a: Option<&Attribute>, i: usize) -> Vec<NamedAttribute> {
    a.and_then(|a| a.as_array())
        .and_then(|v| v.get(i))
        .and_then(|a| a.as_dictionary())
        .map(<[NamedAttribute]>::to_vec)
        .unwrap_or_default()
}

/// `func.func`.
pub const FUNC_OP: OpDecl = OpDecl {
    name: FUNC,
    summary: "a function: a symbol with a signature and an optional body",
    traits: OpTraits {
        symbol: true,
        isolated_from_above: true,
        ..OpTraits::NONE
    },
    constraints: &[
        Constraint::Attr(
            "function_type",
            is_function_type,
            "type attribute of function type",
        ),
        Constraint::Regions(1, "requires one region, found {}"),
    ],
    verify: Verify::Message(verify_func),
    assembly: Some(Assembly {
        parse: parse_func,
        print: print_func,
    }),
    ..OpDecl::EMPTY
};

fn is_function_type(a: &Attribute) -> bool {
    matches!(
        a.as_type().map(|x| x.kind()),
        Some(TypeKind::Function { .. })
    )
}

fn verify_func(ctx: &Context, op: OpId) -> Result<(), String> {
    let Some((inputs, _)) = function_type(ctx, op) else {
        return Ok(()); // the declared constraints report it
    };
    let blocks = ctx.region_blocks(ctx.regions(op)[0]);
    let Some(&entry) = blocks.first() else {
        // A declaration must not be public.
        if ctx
            .inherent_attr(op, "sym_visibility")
            .and_then(|a| a.as_str())
            .is_none_or(|v| v == "public")
        {
            return Err("symbol declaration cannot have public visibility".into());
        }
        return Ok(());
    };
    let args = ctx.block_args(entry);
    if args.len() != inputs.len() {
        return Err(format!(
            "entry block must have {} arguments to match function signature",
            inputs.len()
        ));
    }
    for (i, (&a, t)) in args.iter().zip(inputs).enumerate() {
        if ctx.value_type(a) != t {
            return Err(format!(
                "type of entry block argument #{i}('{}') must match the type of the corresponding argument in function signature('{}')",
                type_to_string(ctx.value_type(a)),
                type_to_string(t)
            ));
        }
    }
    Ok(())
}

fn parse_func(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let mut props = Vec::new();
    for vis in ["private", "public", "nested"] {
        if p.parse_optional_keyword(vis) {
            props.push(NamedAttribute {
                name: "sym_visibility".into(),
                value: Attribute::string(vis),
            });
            break;
        }
    }
    let name = p.parse_symbol_name()?;
    props.push(NamedAttribute {
        name: "sym_name".into(),
        value: Attribute::string(name),
    });
    // Arguments: `%a: t {attrs}` (definitions) or `t {attrs}` (declarations).
    p.parse_punct("(")?;
    let mut args: Vec<(UnresolvedOperand, Type)> = Vec::new();
    let mut inputs = Vec::new();
    let mut arg_attrs = Vec::new();
    let mut named = None;
    let mut unnamed_span: Option<Span> = None;
    if !p.parse_optional_punct(")") {
        loop {
            let here = p.current_span();
            let is_named = is_percent(p);
            if *named.get_or_insert(is_named) != is_named {
                return Err(p.error_here("expected SSA identifier"));
            }
            if is_named {
                let (o, ty) = p.parse_argument(true)?;
                let ty = ty.unwrap_or(Type::new(TypeKind::None));
                inputs.push(ty);
                args.push((o, ty));
            } else {
                unnamed_span.get_or_insert(here);
                inputs.push(p.parse_type()?);
            }
            arg_attrs.push(optional_dict(p)?);
            if p.parse_optional_punct(")") {
                break;
            }
            p.parse_punct(",")?;
        }
    }
    let mut results = Vec::new();
    let mut res_attrs = Vec::new();
    if p.parse_optional_punct("->") {
        if p.parse_optional_punct("(") {
            if !p.parse_optional_punct(")") {
                loop {
                    results.push(p.parse_type()?);
                    res_attrs.push(optional_dict(p)?);
                    if p.parse_optional_punct(")") {
                        break;
                    }
                    p.parse_punct(",")?;
                }
            }
        } else {
            results.push(p.parse_type()?);
            res_attrs.push(Vec::new());
        }
    }
    props.push(NamedAttribute {
        name: "function_type".into(),
        value: Attribute::new(AttrKind::Type(Type::function(inputs, results))),
    });
    if let Some(a) = attrs_array(arg_attrs) {
        props.push(NamedAttribute {
            name: "arg_attrs".into(),
            value: a,
        });
    }
    if let Some(a) = attrs_array(res_attrs) {
        props.push(NamedAttribute {
            name: "res_attrs".into(),
            value: a,
        });
    }
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict_with_keyword(&mut attrs)?;
    for a in attrs {
        state.add_attribute(a.name, a.value);
    }
    let region = if p.peek_punct("{") {
        if let Some(s) = unnamed_span {
            return Err(p.error_at(s, "expected SSA identifier"));
        }
        p.parse_region(&args)?
    } else {
        p.ctx().create_region()
    };
    state.regions.push(region);
    state.properties = Some(Attribute::dictionary(props));
    Ok(())
}

fn print_func(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    if let Some(v) = ctx
        .inherent_attr(op, "sym_visibility")
        .and_then(|a| a.as_str())
    {
        p.write(" ");
        p.write(v);
    }
    p.write(" ");
    p.print_symbol_name(sym_name(ctx, op).unwrap_or(""));
    let (inputs, results) = function_type(ctx, op).unwrap_or((&[], &[]));
    let arg_attrs = ctx.inherent_attr(op, "arg_attrs");
    let res_attrs = ctx.inherent_attr(op, "res_attrs");
    let region = ctx.regions(op).first().copied();
    let entry = region.and_then(|r| ctx.region_blocks(r).first().copied());
    let args: Vec<Value> = entry
        .map(|b| ctx.block_args(b).to_vec())
        .unwrap_or_default();
    p.write("(");
    for (i, t) in inputs.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        match args.get(i) {
            Some(&a) => p.print_region_argument(a),
            None => p.print_type(t),
        }
        let d = dict_at(arg_attrs, i);
        if !d.is_empty() {
            p.print_optional_attr_dict(&d, &[]);
        }
    }
    p.write(")");
    let any_res_attr = (0..results.len()).any(|i| !dict_at(res_attrs, i).is_empty());
    if !results.is_empty() {
        p.write(" -> ");
        let parens = results.len() > 1
            || any_res_attr
            || matches!((results[0]).kind(), TypeKind::Function { .. });
        if parens {
            p.write("(");
        }
        for (i, t) in results.iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_type(t);
            let d = dict_at(res_attrs, i);
            if !d.is_empty() {
                p.print_optional_attr_dict(&d, &[]);
            }
        }
        if parens {
            p.write(")");
        }
    }
    p.print_optional_attr_dict_with_keyword(&ctx.op(op).attributes, &[]);
    if let (Some(r), Some(_)) = (region, entry) {
        p.write(" ");
        p.print_region(r, false, true);
    }
}

/// `func.return`.
pub const RETURN_OP: OpDecl = OpDecl {
    name: RETURN,
    summary: "returns from a func.func; its operands match the function's results",
    traits: OpTraits::TERMINATOR,
    constraints: &[Constraint::Parent(FUNC)],
    verify: Verify::Diagnostic(verify_return),
    assembly: Some(Assembly {
        parse: parse_return,
        print: print_return,
    }),
    ..OpDecl::EMPTY
};

fn verify_return(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let err = |m: String| Diagnostic::op_error(ctx, op, m);
    let Some(f) = ctx.parent_op(op) else {
        return Ok(()); // the declared parent constraint reports it
    };
    let Some((_, results)) = function_type(ctx, f) else {
        return Ok(()); // the function's own verifier reports this
    };
    let name = sym_name(ctx, f).unwrap_or("");
    let operands = ctx.operands(op);
    if operands.len() != results.len() {
        return Err(err(format!(
            "has {} operands, but enclosing function (@{name}) returns {}",
            operands.len(),
            results.len()
        )));
    }
    for (i, (&v, t)) in operands.iter().zip(results).enumerate() {
        if ctx.value_type(v) != t {
            // Upstream reports this one without the `'func.return' op` prefix.
            return Err(Diagnostic::error(
                ctx.op(op).span,
                format!(
                    "type of return operand {i} ('{}') doesn't match function result type ('{}') in function @{name}",
                    type_to_string(ctx.value_type(v)),
                    type_to_string(t)
                ),
            ));
        }
    }
    Ok(())
}

fn parse_return(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let operands = p.parse_operand_list()?;
    if operands.is_empty() {
        return Ok(());
    }
    p.parse_punct(":")?;
    let types = p.parse_type_list()?;
    if types.len() != operands.len() {
        return Err(p.error_here(format!(
            "{} operands present, but expected {}",
            operands.len(),
            types.len()
        )));
    }
    for (o, t) in operands.iter().zip(&types) {
        state.operands.push(p.resolve_operand(o, t)?);
    }
    Ok(())
}

fn print_return(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let operands = ctx.operands(op);
    if operands.is_empty() {
        return;
    }
    p.write(" ");
    p.print_operands(operands);
    p.write(" : ");
    let types: Vec<Type> = operands.iter().map(|&v| *ctx.value_type(v)).collect();
    p.print_types(&types);
}

/// `func.call`.
pub const CALL_OP: OpDecl = OpDecl {
    name: CALL,
    summary: "calls a func.func of the enclosing symbol table by name",
    constraints: &[Constraint::Attr(
        "callee",
        |a| a.as_flat_symbol().is_some(),
        "flat symbol reference attribute",
    )],
    verify: Verify::Diagnostic(verify_call),
    assembly: Some(Assembly {
        parse: parse_call,
        print: print_call,
    }),
    ..OpDecl::EMPTY
};

fn verify_call(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let err = |m: String| Diagnostic::op_error(ctx, op, m);
    let Some(callee) = ctx
        .inherent_attr(op, "callee")
        .and_then(|a| a.as_flat_symbol())
    else {
        return Ok(()); // the declared constraint reports it
    };
    let Some(f) = lookup_func(ctx, op, callee) else {
        return Err(err(format!(
            "'{callee}' does not reference a valid function"
        )));
    };
    let Some((inputs, results)) = function_type(ctx, f) else {
        return Ok(());
    };
    let operands = ctx.operands(op);
    if operands.len() != inputs.len() {
        return Err(err("incorrect number of operands for callee".into()));
    }
    for (i, (&v, t)) in operands.iter().zip(inputs).enumerate() {
        if ctx.value_type(v) != t {
            return Err(err(format!(
                "operand type mismatch: expected operand type '{}', but provided '{}' for operand number {i}",
                type_to_string(t),
                type_to_string(ctx.value_type(v))
            )));
        }
    }
    let res = ctx.results(op);
    if res.len() != results.len() {
        return Err(err("incorrect number of results for callee".into()));
    }
    for (i, (&v, t)) in res.iter().zip(results).enumerate() {
        if ctx.value_type(v) != t {
            let span = ctx.op(op).span;
            let got: Vec<Type> = res.iter().map(|&r| *ctx.value_type(r)).collect();
            return Err(err(format!("result type mismatch at index {i}"))
                .with_note(Diagnostic::note(
                    span,
                    format!("      op result types: {}", types_text(&got)),
                ))
                .with_note(Diagnostic::note(
                    span,
                    format!("function result types: {}", types_text(results)),
                )));
        }
    }
    Ok(())
}

fn parse_call(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let callee = p.parse_symbol_name()?;
    p.parse_punct("(")?;
    let operands = p.parse_operand_list()?;
    p.parse_punct(")")?;
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict(&mut attrs)?;
    for a in attrs {
        state.add_attribute(a.name, a.value);
    }
    p.parse_punct(":")?;
    let at = p.current_span();
    let (ins, outs) = p.parse_function_type()?;
    if ins.len() != operands.len() {
        return Err(p.error_at(
            at,
            format!(
                "{} operands present, but expected {}",
                operands.len(),
                ins.len()
            ),
        ));
    }
    for (o, t) in operands.iter().zip(&ins) {
        state.operands.push(p.resolve_operand(o, t)?);
    }
    state.result_types = outs;
    state.properties = Some(Attribute::dictionary(vec![NamedAttribute {
        name: "callee".into(),
        value: Attribute::symbol(callee),
    }]));
    Ok(())
}

fn print_call(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    p.write(" ");
    p.print_symbol_name(
        ctx.inherent_attr(op, "callee")
            .and_then(|a| a.as_flat_symbol())
            .unwrap_or(""),
    );
    p.write("(");
    p.print_operands(ctx.operands(op));
    p.write(")");
    p.print_optional_attr_dict(&ctx.op(op).attributes, &[]);
    p.write(" : ");
    let ins: Vec<Type> = ctx
        .operands(op)
        .iter()
        .map(|&v| *ctx.value_type(v))
        .collect();
    let outs: Vec<Type> = ctx
        .results(op)
        .iter()
        .map(|&v| *ctx.value_type(v))
        .collect();
    p.print_function_type(&ins, &outs);
}
