//! The sm_90 memory barriers of upstream's NVGPU dialect (`NVGPUOps.td`): a group of
//! `mbarrier` objects in shared memory (`!nvgpu.mbarrier.group<memorySpace = ..,
//! num_barriers = N>`) created, initialised with an arrival count, arrived at (optionally
//! announcing an expected transaction byte count, as TMA copies complete on a barrier) and
//! waited on by phase parity, with upstream's names, operand orders, custom forms and type
//! constraints. Only the dialect level is here: the gpu-level vocabulary does not hold these
//! ops yet, so the back ends and the simulator refuse a kernel that uses them.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::OpDefinition;
use rtile::ir::types::Type;
use rtile::ir::{Context, OpId, OperationState, TypeKind, Value};
use rtile::parser::{OpAsmParser, UnresolvedOperand};
use rtile::printer::OpAsmPrinter;

use super::syntax::{parse_optional_predicate, print_optional_predicate};
use crate::gpu::common::{custom, parse_attrs, print_attrs};
use rtile::dialect::OpTraits;

/// The token of an `mbarrier.arrive`, `!nvgpu.mbarrier.token`.
pub fn token_type() -> Type {
    Type::new(TypeKind::Dialect {
        dialect: "nvgpu".into(),
        body: "mbarrier.token".into(),
    })
}

/// Whether `t` is an `!nvgpu.mbarrier.group<..>`.
pub fn is_group(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Dialect { dialect, body }
        if dialect == "nvgpu" && body.starts_with("mbarrier.group<"))
}

/// The mbarrier ops, for [`super::NvgpuDialect`].
pub(super) fn ops() -> Vec<Box<dyn OpDefinition>> {
    let t = OpTraits::default;
    vec![
        custom(
            "nvgpu.mbarrier.create",
            "allocates a group of mbarrier objects in shared memory",
            t(),
            verify_create,
            parse_create,
            print_create,
        ),
        custom(
            "nvgpu.mbarrier.init",
            "initialises an mbarrier with its expected arrival count (mbarrier.init)",
            t(),
            verify_init,
            parse_init,
            print_init,
        ),
        custom(
            "nvgpu.mbarrier.arrive",
            "arrives at an mbarrier, returning the phase token (mbarrier.arrive)",
            t(),
            verify_arrive,
            parse_arrive,
            print_arrive,
        ),
        custom(
            "nvgpu.mbarrier.arrive.expect_tx",
            "arrives at an mbarrier expecting txCount more transaction bytes (mbarrier.arrive.expect_tx)",
            t(),
            verify_expect_tx,
            parse_expect_tx,
            print_expect_tx,
        ),
        custom(
            "nvgpu.mbarrier.try_wait.parity",
            "waits until the mbarrier phase with the given parity completes (mbarrier.try_wait.parity)",
            t(),
            verify_try_wait,
            parse_try_wait,
            print_try_wait,
        ),
    ]
}

fn is_index(ctx: &Context, v: Value) -> bool {
    *ctx.value_type(v) == Type::index()
}

fn is_i1(ctx: &Context, v: Value) -> bool {
    matches!(ctx.value_type(v).kind(), TypeKind::Integer { width: 1, .. })
}

/// Checks `barriers` (operand 0) and the `mbarId` index (the last operand before an optional
/// predicate).
fn check_group(ctx: &Context, o: OpId, id_at: usize) -> Result<(), String> {
    let ops = ctx.operands(o);
    if !ops.first().is_some_and(|&b| is_group(ctx.value_type(b))) {
        return Err("operand #0 must be mbarrier barrier type, but got another type".into());
    }
    if !ops.get(id_at).is_some_and(|&v| is_index(ctx, v)) {
        return Err(format!("operand #{id_at} (mbarId) must be index"));
    }
    Ok(())
}

fn verify_create(ctx: &Context, o: OpId) -> Result<(), String> {
    if !ctx.operands(o).is_empty() || ctx.results(o).len() != 1 {
        return Err("expects no operands and one result".into());
    }
    if !is_group(ctx.value_type(ctx.result(o, 0))) {
        return Err("result #0 must be mbarrier barrier type".into());
    }
    Ok(())
}

/// `(barriers, count, mbarId, predicate?)`.
fn verify_init(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if !(3..=4).contains(&ops.len()) || !ctx.results(o).is_empty() {
        return Err("expects barriers, count, mbarId and an optional predicate".into());
    }
    check_group(ctx, o, 2)?;
    if !is_index(ctx, ops[1]) {
        return Err("operand #1 (count) must be index".into());
    }
    if ops.len() == 4 && !is_i1(ctx, ops[3]) {
        return Err("operand #3 (predicate) must be 1-bit signless integer".into());
    }
    Ok(())
}

/// `(barriers, mbarId) -> token`.
fn verify_arrive(ctx: &Context, o: OpId) -> Result<(), String> {
    if ctx.operands(o).len() != 2 || ctx.results(o).len() != 1 {
        return Err("expects barriers, mbarId and one result".into());
    }
    check_group(ctx, o, 1)?;
    if *ctx.value_type(ctx.result(o, 0)) != token_type() {
        return Err("result #0 must be !nvgpu.mbarrier.token".into());
    }
    Ok(())
}

/// `(barriers, txcount, mbarId, predicate?)`.
fn verify_expect_tx(ctx: &Context, o: OpId) -> Result<(), String> {
    verify_init(ctx, o).map_err(|e| e.replace("count", "txcount"))
}

/// `(barriers, phaseParity, ticks, mbarId)`.
fn verify_try_wait(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() != 4 || !ctx.results(o).is_empty() {
        return Err("expects barriers, phaseParity, ticks and mbarId".into());
    }
    check_group(ctx, o, 3)?;
    if !is_i1(ctx, ops[1]) {
        return Err("operand #1 (phaseParity) must be 1-bit signless integer".into());
    }
    if !is_index(ctx, ops[2]) {
        return Err("operand #2 (ticks) must be index".into());
    }
    Ok(())
}

/// `-> type attr-dict`.
fn parse_create(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    parse_attrs(p, state)?;
    p.parse_punct("->")?;
    let t = p.parse_type()?;
    state.result_types.push(t);
    Ok(())
}

fn print_create(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    print_attrs(ctx, op, p);
    if let Some(&r) = ctx.results(op).first() {
        p.write("-> ");
        p.print_type(ctx.value_type(r));
    }
}

/// `%b[%id]`.
pub(super) fn parse_barrier(
    p: &mut OpAsmParser<'_, '_>,
) -> Result<(UnresolvedOperand, UnresolvedOperand), Diagnostic> {
    let b = p.parse_operand()?;
    p.parse_punct("[")?;
    let id = p.parse_operand()?;
    p.parse_punct("]")?;
    Ok((b, id))
}

pub(super) fn print_barrier(p: &mut OpAsmPrinter<'_>, b: Value, id: Value) {
    p.print_operand(b);
    p.write("[");
    p.print_operand(id);
    p.write("]");
}

/// `%b[%id], %count (, predicate = %p)? attr-dict : type` (init and arrive.expect_tx).
fn parse_counted(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let (b, id) = parse_barrier(p)?;
    p.parse_punct(",")?;
    let count = p.parse_operand()?;
    let pred = parse_optional_predicate(p)?;
    parse_attrs(p, state)?;
    let bt = p.parse_colon_type()?;
    let v = p.resolve_operand(&b, &bt)?;
    state.operands.push(v);
    for x in [&count, &id] {
        let v = p.resolve_operand(x, &Type::index())?;
        state.operands.push(v);
    }
    if let Some(x) = &pred {
        let v = p.resolve_operand(x, &Type::i1())?;
        state.operands.push(v);
    }
    Ok(())
}

fn print_counted(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    if ops.len() < 3 {
        return;
    }
    print_barrier(p, ops[0], ops[2]);
    p.write(", ");
    p.print_operand(ops[1]);
    print_optional_predicate(p, ops.get(3).copied());
    print_attrs(ctx, op, p);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
}

fn parse_init(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    parse_counted(p, state)
}

fn print_init(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    print_counted(ctx, op, p)
}

fn parse_expect_tx(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    parse_counted(p, state)
}

fn print_expect_tx(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    print_counted(ctx, op, p)
}

/// `%b[%id] attr-dict : type -> !nvgpu.mbarrier.token`.
fn parse_arrive(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let (b, id) = parse_barrier(p)?;
    parse_attrs(p, state)?;
    let bt = p.parse_colon_type()?;
    p.parse_punct("->")?;
    let rt = p.parse_type()?;
    let v = p.resolve_operand(&b, &bt)?;
    state.operands.push(v);
    let v = p.resolve_operand(&id, &Type::index())?;
    state.operands.push(v);
    state.result_types.push(rt);
    Ok(())
}

fn print_arrive(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    if ops.len() != 2 {
        return;
    }
    print_barrier(p, ops[0], ops[1]);
    print_attrs(ctx, op, p);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
    if let Some(&r) = ctx.results(op).first() {
        p.write(" -> ");
        p.print_type(ctx.value_type(r));
    }
}

/// `%b[%id], %parity, %ticks attr-dict : type`.
fn parse_try_wait(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let (b, id) = parse_barrier(p)?;
    p.parse_punct(",")?;
    let parity = p.parse_operand()?;
    p.parse_punct(",")?;
    let ticks = p.parse_operand()?;
    parse_attrs(p, state)?;
    let bt = p.parse_colon_type()?;
    let v = p.resolve_operand(&b, &bt)?;
    state.operands.push(v);
    let v = p.resolve_operand(&parity, &Type::i1())?;
    state.operands.push(v);
    for x in [&ticks, &id] {
        let v = p.resolve_operand(x, &Type::index())?;
        state.operands.push(v);
    }
    Ok(())
}

fn print_try_wait(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    if ops.len() != 4 {
        return;
    }
    print_barrier(p, ops[0], ops[3]);
    p.write(", ");
    p.print_operand(ops[1]);
    p.write(", ");
    p.print_operand(ops[2]);
    print_attrs(ctx, op, p);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
}
