//! Upstream custom forms of `scf.for` and `scf.if`:
//!
//! ```mlir
//! %r = scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) { ... scf.yield %x : f32 }
//! scf.for %i = %lb to %ub step %s { ... }            // the yield is implicit
//! %v = scf.if %c -> (f32) { ... } else { ... }
//! scf.if %c { ... }
//! ```

use rtile::diagnostics::Diagnostic;
use rtile::ir::types::Type;
use rtile::ir::{Context, OpId, OperationState, RegionId};
use rtile::parser::OpAsmParser;
use rtile::printer::OpAsmPrinter;

use crate::gpu::common::{parse_attrs, print_attrs};

/// Appends an empty `scf.yield` to every block of `r` that does not end in one (MLIR's
/// implicit terminator of region ops without results).
fn ensure_yield(ctx: &mut Context, r: RegionId) {
    let blocks = ctx.region_blocks(r).to_vec();
    for b in blocks {
        if ctx
            .last_op(b)
            .is_some_and(|o| ctx.op_name(o) == "scf.yield")
        {
            continue;
        }
        let y = ctx.create_op(OperationState::new("scf.yield"));
        ctx.append_op(b, y);
    }
}

fn parse_result_types(p: &mut OpAsmParser<'_, '_>) -> Result<Vec<Type>, Diagnostic> {
    if !p.parse_optional_punct("->") {
        return Ok(Vec::new());
    }
    if p.parse_optional_punct("(") {
        if p.parse_optional_punct(")") {
            return Ok(Vec::new());
        }
        let t = p.parse_type_list()?;
        p.parse_punct(")")?;
        Ok(t)
    } else {
        Ok(vec![p.parse_type()?])
    }
}

/// `scf.for`.
pub fn parse_for(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let (iv, _) = p.parse_argument(false)?;
    p.parse_punct("=")?;
    let lb = p.parse_operand()?;
    p.parse_keyword("to")?;
    let ub = p.parse_operand()?;
    p.parse_keyword("step")?;
    let step = p.parse_operand()?;
    let mut args = Vec::new();
    let mut inits = Vec::new();
    if p.parse_optional_keyword("iter_args") {
        p.parse_punct("(")?;
        loop {
            let (a, _) = p.parse_argument(false)?;
            p.parse_punct("=")?;
            inits.push(p.parse_operand()?);
            args.push(a);
            if !p.parse_optional_punct(",") {
                break;
            }
        }
        p.parse_punct(")")?;
    }
    let results = parse_result_types(p)?;
    if results.len() != inits.len() {
        return Err(p.error_here("mismatch in number of loop-carried values and defined values"));
    }
    let ivt = if p.parse_optional_punct(":") {
        p.parse_type()?
    } else {
        Type::index()
    };
    for o in [&lb, &ub, &step] {
        let v = p.resolve_operand(o, &ivt)?;
        state.operands.push(v);
    }
    for (o, t) in inits.iter().zip(&results) {
        let v = p.resolve_operand(o, t)?;
        state.operands.push(v);
    }
    let mut entry = vec![(iv, ivt)];
    entry.extend(args.into_iter().zip(results.iter().cloned()));
    let r = p.parse_region(&entry)?;
    if results.is_empty() {
        ensure_yield(p.ctx(), r);
    }
    state.regions.push(r);
    state.result_types = results;
    parse_attrs(p, state)
}

/// Prints `scf.for`.
pub fn print_for(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    let Some(&r) = ctx.regions(op).first() else {
        return;
    };
    let Some(&body) = ctx.region_blocks(r).first() else {
        return;
    };
    let args = ctx.block_args(body);
    if ops.len() < 3 || args.is_empty() {
        return;
    }
    p.print_operand(args[0]);
    p.write(" = ");
    p.print_operand(ops[0]);
    p.write(" to ");
    p.print_operand(ops[1]);
    p.write(" step ");
    p.print_operand(ops[2]);
    if ops.len() > 3 {
        p.write(" iter_args(");
        for (i, (a, v)) in args[1..].iter().zip(&ops[3..]).enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_operand(*a);
            p.write(" = ");
            p.print_operand(*v);
        }
        p.write(") -> (");
        let tys: Vec<Type> = ctx
            .results(op)
            .iter()
            .map(|&v| *ctx.value_type(v))
            .collect();
        p.print_types(&tys);
        p.write(")");
    }
    if *ctx.value_type(ops[0]) != Type::index() {
        p.write(" : ");
        p.print_type(ctx.value_type(ops[0]));
    }
    p.write(" ");
    p.print_region(r, false, ops.len() > 3);
    print_attrs(ctx, op, p);
}

/// `scf.if`.
pub fn parse_if(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let c = p.parse_operand()?;
    let v = p.resolve_operand(&c, &Type::i1())?;
    state.operands.push(v);
    let results = parse_result_types(p)?;
    let then = p.parse_region(&[])?;
    let els = if p.parse_optional_keyword("else") {
        p.parse_region(&[])?
    } else {
        p.ctx().create_region()
    };
    if results.is_empty() {
        ensure_yield(p.ctx(), then);
        ensure_yield(p.ctx(), els);
    }
    state.regions.push(then);
    state.regions.push(els);
    state.result_types = results;
    parse_attrs(p, state)
}

/// Prints `scf.if`.
pub fn print_if(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let Some(&c) = ctx.operands(op).first() else {
        return;
    };
    p.print_operand(c);
    let res = ctx.results(op);
    if !res.is_empty() {
        p.write(" -> (");
        let tys: Vec<Type> = res.iter().map(|&v| *ctx.value_type(v)).collect();
        p.print_types(&tys);
        p.write(")");
    }
    let regions = ctx.regions(op);
    let terms = !res.is_empty();
    if let Some(&t) = regions.first() {
        p.write(" ");
        p.print_region(t, false, terms);
    }
    if let Some(&e) = regions.get(1)
        && !ctx.region_blocks(e).is_empty()
        && (terms
            || ctx
                .region_blocks(e)
                .iter()
                .any(|&b| ctx.block_ops(b).count() > 1))
    {
        p.write(" else ");
        p.print_region(e, false, terms);
    }
    print_attrs(ctx, op, p);
}
