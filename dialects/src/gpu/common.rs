//! Helpers shared by the upstream-subset dialects (gpu, scf, memref, vector): shorthands for
//! declaring an op as an [`OpDecl`] and the small type checks their verifiers repeat.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::decl::{Assembly, OpDecl, ParseFn, PrintFn, Verify};
use rtile::dialect::{OpDefinition, OpTraits};
use rtile::ir::attributes::Attribute;
use rtile::ir::types::Type;
use rtile::ir::{AttrKind, Context, OpId, OperationState, TypeKind};
use rtile::parser::{OpAsmParser, UnresolvedOperand};
use rtile::printer::OpAsmPrinter;

/// A verifier returning a message; the op prefix and span are added by [`OpDecl`].
pub type VerifyFn = fn(&Context, OpId) -> Result<(), String>;

/// An op defined by its name, summary, traits and verifier (generic form only).
pub fn op(
    name: &'static str,
    summary: &'static str,
    traits: OpTraits,
    verify: VerifyFn,
) -> Box<dyn OpDefinition> {
    OpDecl {
        name,
        summary,
        traits,
        verify: Verify::Message(verify),
        ..OpDecl::EMPTY
    }
    .boxed()
}

/// Traits of a side-effect-free op.
pub fn pure() -> OpTraits {
    OpTraits::PURE
}

/// Traits of a terminator.
pub fn terminator() -> OpTraits {
    OpTraits::TERMINATOR
}

/// Checks operand and result counts.
pub fn counts(ctx: &Context, op: OpId, operands: usize, results: usize) -> Result<(), String> {
    let (o, r) = (ctx.operands(op).len(), ctx.results(op).len());
    if o != operands {
        return Err(format!("expected {operands} operands, but found {o}"));
    }
    if r != results {
        return Err(format!("requires {results} results, but found {r}"));
    }
    Ok(())
}

/// The memory space of a memref type.
pub fn memory_space(t: &Type) -> Option<&Attribute> {
    match t.kind() {
        TypeKind::MemRef { memory_space, .. } | TypeKind::UnrankedMemRef { memory_space, .. } => {
            memory_space.as_ref()
        }
        _ => None,
    }
}

/// True when `a` is `#gpu.address_space<space>`.
pub fn is_address_space(a: Option<&Attribute>, space: &str) -> bool {
    match a.map(|x| x.kind()) {
        Some(AttrKind::Dialect { dialect, body }) => {
            dialect == "gpu" && body.replace(' ', "") == format!("address_space<{space}>")
        }
        _ => false,
    }
}

/// Checks that `indices` values are all `index`-typed.
pub fn all_index(ctx: &Context, vals: &[rtile::ir::Value], what: &str) -> Result<(), String> {
    if vals.iter().all(|&v| *ctx.value_type(v) == Type::index()) {
        Ok(())
    } else {
        Err(format!("{what} must be of type 'index'"))
    }
}

/// An op like [`op`] with upstream's custom assembly form.
pub fn custom(
    name: &'static str,
    summary: &'static str,
    traits: OpTraits,
    verify: VerifyFn,
    parse: ParseFn,
    print: PrintFn,
) -> Box<dyn OpDefinition> {
    OpDecl {
        name,
        summary,
        traits,
        verify: Verify::Message(verify),
        assembly: Some(Assembly { parse, print }),
        ..OpDecl::EMPTY
    }
    .boxed()
}

/// `attr-dict` at the end of a custom form (discardable attributes; inherent ones live in
/// properties).
pub fn parse_attrs(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict(&mut attrs)?;
    state.attributes.extend(attrs);
    Ok(())
}

/// Prints the discardable attributes, if any.
pub fn print_attrs(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    p.print_optional_attr_dict(&ctx.op(op).attributes, &[]);
}

/// `%m[%i, %j]` → (memref operand, indices).
fn parse_indexed(
    p: &mut OpAsmParser<'_, '_>,
) -> Result<(UnresolvedOperand, Vec<UnresolvedOperand>), Diagnostic> {
    let m = p.parse_operand()?;
    p.parse_punct("[")?;
    let idx = if p.peek_punct("]") {
        Vec::new()
    } else {
        p.parse_operand_list()?
    };
    p.parse_punct("]")?;
    Ok((m, idx))
}

fn resolve_indexed(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
    m: &UnresolvedOperand,
    idx: &[UnresolvedOperand],
    mt: &Type,
) -> Result<(), Diagnostic> {
    let v = p.resolve_operand(m, mt)?;
    state.operands.push(v);
    for i in idx {
        let v = p.resolve_operand(i, &Type::index())?;
        state.operands.push(v);
    }
    Ok(())
}

fn print_indexed(ctx: &Context, p: &mut OpAsmPrinter<'_>, vals: &[rtile::ir::Value]) {
    if let Some((&m, idx)) = vals.split_first() {
        p.print_operand(m);
        p.write("[");
        p.print_operands(idx);
        p.write("]");
    }
    let _ = ctx;
}

/// `memref.load %m[%i] : memref<..>` and `vector.load %m[%i] : memref<..>, vector<..>`.
pub fn parse_load(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
    vector: bool,
) -> Result<(), Diagnostic> {
    let (m, idx) = parse_indexed(p)?;
    parse_attrs(p, state)?;
    let mt = p.parse_colon_type()?;
    let rt = if vector {
        p.parse_punct(",")?;
        p.parse_type()?
    } else {
        mt.element_type()
            .cloned()
            .ok_or_else(|| p.error_here("expected a memref type"))?
    };
    resolve_indexed(p, state, &m, &idx, &mt)?;
    state.result_types.push(rt);
    Ok(())
}

/// `memref.store %v, %m[%i] : memref<..>` and `vector.store %v, %m[%i] : memref<..>, vector<..>`.
pub fn parse_store(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
    vector: bool,
) -> Result<(), Diagnostic> {
    let val = p.parse_operand()?;
    p.parse_punct(",")?;
    let (m, idx) = parse_indexed(p)?;
    parse_attrs(p, state)?;
    let mt = p.parse_colon_type()?;
    let vt = if vector {
        p.parse_punct(",")?;
        p.parse_type()?
    } else {
        mt.element_type()
            .cloned()
            .ok_or_else(|| p.error_here("expected a memref type"))?
    };
    let v = p.resolve_operand(&val, &vt)?;
    state.operands.push(v);
    resolve_indexed(p, state, &m, &idx, &mt)
}

/// Prints a load (`vector`: with the result type after the memref type).
pub fn print_load(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>, vector: bool) {
    let ops = ctx.operands(op);
    print_indexed(ctx, p, ops);
    print_attrs(ctx, op, p);
    if let Some(&m) = ops.first() {
        p.write(" : ");
        p.print_type(ctx.value_type(m));
    }
    if vector && let Some(&r) = ctx.results(op).first() {
        p.write(", ");
        p.print_type(ctx.value_type(r));
    }
}

/// Prints a store.
pub fn print_store(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>, vector: bool) {
    let ops = ctx.operands(op);
    if let Some((&v, rest)) = ops.split_first() {
        p.print_operand(v);
        p.write(", ");
        print_indexed(ctx, p, rest);
        print_attrs(ctx, op, p);
        if let Some(&m) = rest.first() {
            p.write(" : ");
            p.print_type(ctx.value_type(m));
        }
        if vector {
            p.write(", ");
            p.print_type(ctx.value_type(v));
        }
    }
}

/// `name %a, %b : t1, t2` (terminators like `gpu.return`, `scf.yield`); nothing when empty.
pub fn parse_values(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let vals = if p.peek_token().is_some_and(|t| t.text.starts_with('%')) {
        p.parse_operand_list()?
    } else {
        Vec::new()
    };
    parse_attrs(p, state)?;
    if vals.is_empty() {
        return Ok(());
    }
    p.parse_punct(":")?;
    let tys = p.parse_type_list()?;
    if tys.len() != vals.len() {
        return Err(p.error_here(format!("expected {} types", vals.len())));
    }
    for (v, t) in vals.iter().zip(&tys) {
        let r = p.resolve_operand(v, t)?;
        state.operands.push(r);
    }
    Ok(())
}

/// Prints `%a, %b : t1, t2`.
pub fn print_values(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    if !ops.is_empty() {
        p.print_operands(ops);
    }
    print_attrs(ctx, op, p);
    if !ops.is_empty() {
        p.write(" : ");
        let tys: Vec<Type> = ops.iter().map(|&v| *ctx.value_type(v)).collect();
        p.print_types(&tys);
    }
}
