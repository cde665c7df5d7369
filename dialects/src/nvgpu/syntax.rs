//! The custom assembly forms of the nvgpu ops, as upstream's `assemblyFormat`s declare them.
//! Inherent attributes written in the attribute dictionary are properties, as upstream.

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::{Attribute, DenseArray};
use rtile::ir::types::Type;
use rtile::ir::{AttrKind, Context, NamedAttribute, OpId, OperationState};
use rtile::parser::OpAsmParser;
use rtile::printer::OpAsmPrinter;

use super::{async_copy_segments, token_type};
pub(super) use super::{
    verify_async_copy, verify_create_group, verify_ldmatrix, verify_mma, verify_wait,
};

/// Parses `attr-dict`, moving the `inherent` names into `props`.
pub(super) fn parse_dict(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
    inherent: &[&str],
    props: &mut Vec<NamedAttribute>,
) -> Result<(), Diagnostic> {
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict(&mut attrs)?;
    for a in attrs {
        if inherent.contains(&a.name.as_str()) {
            props.push(a);
        } else {
            state.add_attribute(a.name, a.value);
        }
    }
    Ok(())
}

pub(super) fn set_props(state: &mut OperationState, props: Vec<NamedAttribute>) {
    if !props.is_empty() {
        state.properties = Some(Attribute::dictionary(props));
    }
}

/// Prints the properties (but `elided`) and the discardable attributes as one dictionary.
pub(super) fn print_dict(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>, elided: &[&str]) {
    let mut dict: Vec<NamedAttribute> = ctx
        .op(op)
        .properties
        .as_ref()
        .and_then(|a| a.as_dictionary())
        .unwrap_or(&[])
        .to_vec();
    dict.extend(ctx.op(op).attributes.iter().cloned());
    dict.sort_by_key(|a| a.name);
    p.print_optional_attr_dict(&dict, elided);
}

/// `[%a, %b, ...]` (possibly empty).
pub(super) fn parse_bracketed(
    p: &mut OpAsmParser<'_, '_>,
) -> Result<Vec<rtile::parser::UnresolvedOperand>, Diagnostic> {
    p.parse_punct("[")?;
    let v = if p.peek_punct("]") {
        Vec::new()
    } else {
        p.parse_operand_list()?
    };
    p.parse_punct("]")?;
    Ok(v)
}

/// `, predicate = %p` if it is next.
pub(super) fn parse_optional_predicate(
    p: &mut OpAsmParser<'_, '_>,
) -> Result<Option<rtile::parser::UnresolvedOperand>, Diagnostic> {
    if !p.parse_optional_punct(",") {
        return Ok(None);
    }
    p.parse_keyword("predicate")?;
    p.parse_punct("=")?;
    p.parse_operand().map(Some)
}

/// Prints `, predicate = %p` when `pred` is present.
pub(super) fn print_optional_predicate(p: &mut OpAsmPrinter<'_>, pred: Option<rtile::ir::Value>) {
    if let Some(v) = pred {
        p.write(", predicate = ");
        p.print_operand(v);
    }
}

/// `%m[%i, %j]`.
pub(super) fn parse_indexed(
    p: &mut OpAsmParser<'_, '_>,
) -> Result<
    (
        rtile::parser::UnresolvedOperand,
        Vec<rtile::parser::UnresolvedOperand>,
    ),
    Diagnostic,
> {
    let m = p.parse_operand()?;
    Ok((m, parse_bracketed(p)?))
}

pub(super) fn print_indexed(
    p: &mut OpAsmPrinter<'_>,
    m: rtile::ir::Value,
    idx: &[rtile::ir::Value],
) {
    p.print_operand(m);
    p.write("[");
    p.print_operands(idx);
    p.write("]");
}

/// `(%a, %b, %c) attr-dict : (ta, tb, tc) -> td`.
pub(super) fn parse_mma(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    p.parse_punct("(")?;
    let vals = p.parse_operand_list()?;
    p.parse_punct(")")?;
    let mut props = Vec::new();
    parse_dict(p, state, &["mmaShape", "tf32Enabled"], &mut props)?;
    p.parse_punct(":")?;
    let (ins, outs) = p.parse_function_type()?;
    if ins.len() != vals.len() {
        return Err(p.error_here(format!("expected {} operand types", vals.len())));
    }
    for (v, t) in vals.iter().zip(&ins) {
        let r = p.resolve_operand(v, t)?;
        state.operands.push(r);
    }
    state.result_types.extend(outs);
    set_props(state, props);
    Ok(())
}

pub(super) fn print_mma(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    p.write("(");
    p.print_operands(ops);
    p.write(")");
    print_dict(ctx, op, p, &[]);
    p.write(" : (");
    let tys: Vec<Type> = ops.iter().map(|&v| *ctx.value_type(v)).collect();
    p.print_types(&tys);
    p.write(") -> ");
    let rs: Vec<Type> = ctx
        .results(op)
        .iter()
        .map(|&v| *ctx.value_type(v))
        .collect();
    p.print_types(&rs);
}

/// `%m[%i, %j] attr-dict : memref<..> -> vector<..>`.
pub(super) fn parse_ldmatrix(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let (m, idx) = parse_indexed(p)?;
    let mut props = Vec::new();
    parse_dict(p, state, &["numTiles", "transpose"], &mut props)?;
    let mt = p.parse_colon_type()?;
    p.parse_punct("->")?;
    let rt = p.parse_type()?;
    let v = p.resolve_operand(&m, &mt)?;
    state.operands.push(v);
    for i in &idx {
        let v = p.resolve_operand(i, &Type::index())?;
        state.operands.push(v);
    }
    state.result_types.push(rt);
    set_props(state, props);
    Ok(())
}

pub(super) fn print_ldmatrix(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    let Some((&m, idx)) = ops.split_first() else {
        return;
    };
    print_indexed(p, m, idx);
    print_dict(ctx, op, p, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(m));
    if let Some(&r) = ctx.results(op).first() {
        p.write(" -> ");
        p.print_type(ctx.value_type(r));
    }
}

/// `%src[%i..], %dst[%j..], dstElements (, %srcElements)? attr-dict : srcType to dstType`.
pub(super) fn parse_async_copy(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let (src, src_idx) = parse_indexed(p)?;
    p.parse_punct(",")?;
    let (dst, dst_idx) = parse_indexed(p)?;
    p.parse_punct(",")?;
    let n = p.parse_integer()?;
    let src_elems = if p.parse_optional_punct(",") {
        Some(p.parse_operand()?)
    } else {
        None
    };
    let mut props = vec![NamedAttribute {
        name: "dstElements".into(),
        value: Attribute::int(n, Type::index()),
    }];
    parse_dict(p, state, &["bypassL1"], &mut props)?;
    let st = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let dt = p.parse_type()?;
    // Upstream's operand order: dst, dstIndices, src, srcIndices, srcElements.
    let v = p.resolve_operand(&dst, &dt)?;
    state.operands.push(v);
    for i in &dst_idx {
        let v = p.resolve_operand(i, &Type::index())?;
        state.operands.push(v);
    }
    let v = p.resolve_operand(&src, &st)?;
    state.operands.push(v);
    for i in src_idx.iter().chain(&src_elems) {
        let v = p.resolve_operand(i, &Type::index())?;
        state.operands.push(v);
    }
    let seg = [
        1,
        dst_idx.len(),
        1,
        src_idx.len(),
        usize::from(src_elems.is_some()),
    ];
    props.push(NamedAttribute {
        name: "operandSegmentSizes".into(),
        value: Attribute::new(AttrKind::DenseArray(DenseArray::Int {
            elem: Type::i32(),
            values: seg.iter().map(|&x| x as i64).collect(),
        })),
    });
    state.result_types.push(token_type());
    set_props(state, props);
    Ok(())
}

pub(super) fn print_async_copy(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    let Some([_, ndi, _, nsi, ne]) = async_copy_segments(ctx, op) else {
        return;
    };
    let (dst, src) = (ops[0], ops[1 + ndi]);
    print_indexed(p, src, &ops[2 + ndi..2 + ndi + nsi]);
    p.write(", ");
    print_indexed(p, dst, &ops[1..1 + ndi]);
    let n = ctx
        .inherent_attr(op, "dstElements")
        .and_then(|a| a.as_int())
        .unwrap_or(0);
    p.write(&format!(", {n}"));
    if ne == 1 {
        p.write(", ");
        p.print_operand(ops[2 + ndi + nsi]);
    }
    print_dict(ctx, op, p, &["dstElements", "operandSegmentSizes"]);
    p.write(" : ");
    p.print_type(ctx.value_type(src));
    p.write(" to ");
    p.print_type(ctx.value_type(dst));
}

/// `%t0, %t1 attr-dict` (the operands and result are tokens).
pub(super) fn parse_create_group(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let vals = p.parse_operand_list()?;
    let mut props = Vec::new();
    parse_dict(p, state, &[], &mut props)?;
    for v in &vals {
        let r = p.resolve_operand(v, &token_type())?;
        state.operands.push(r);
    }
    state.result_types.push(token_type());
    Ok(())
}

pub(super) fn print_create_group(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    p.print_operands(ctx.operands(op));
    print_dict(ctx, op, p, &[]);
}

/// `%token attr-dict` (`{numGroups = N : i32}` optional).
pub(super) fn parse_wait(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let v = p.parse_operand()?;
    let mut props = Vec::new();
    parse_dict(p, state, &["numGroups"], &mut props)?;
    let r = p.resolve_operand(&v, &token_type())?;
    state.operands.push(r);
    set_props(state, props);
    Ok(())
}

pub(super) fn print_wait(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    if let Some(&v) = ctx.operands(op).first() {
        p.print_operand(v);
    }
    print_dict(ctx, op, p, &[]);
}
