//! `tilegraph.kernel` and `tilegraph.yield`: declarations, custom forms and the structural
//! verifier.
//!
//! ```mlir
//! %d = tilegraph.kernel -> (tensor<64x128xf32>) {
//!   %c = te.compute ... {tilegraph.connect = ["global", "global"],
//!                        tilegraph.tiles = {shared = array<i64: 16, 128, 64>}}
//!   %e = te.compute ... {tilegraph.connect = ["shared"], tilegraph.tiles = {...}}
//!   tilegraph.yield %e : tensor<64x128xf32>
//! } {tilegraph.device = "h100"}
//! ```

use rtile::diagnostics::Diagnostic;
use rtile::dialect::OpTraits;
use rtile::dialect::decl::{Assembly, Constraint, OpDecl, Verify};
use rtile::ir::types::Type;
use rtile::ir::{Context, OpId, OperationState};
use rtile::parser::OpAsmParser;
use rtile::printer::OpAsmPrinter;

use super::{DEVICE, KERNEL, LayerTiles, Level, YIELD, connect_levels, tiles};
use crate::te::ir::{COMPUTE, compute_from_op};
use crate::te::model::TensorType;
use crate::tensor::{COLLAPSE, EXPAND};

/// `tilegraph.kernel`.
pub const KERNEL_OP: OpDecl = OpDecl {
    name: KERNEL,
    summary: "te ops that run as one kernel, connected in registers or shared memory (Welder §3.2)",
    traits: OpTraits {
        single_block: true,
        ..OpTraits::NONE
    },
    constraints: &[
        Constraint::Operands(0, "takes no operands (the body uses values from above)"),
        Constraint::Regions(1, "requires one region"),
    ],
    verify: Verify::Message(verify_kernel),
    assembly: Some(Assembly {
        parse: parse_kernel,
        print: print_kernel,
    }),
    ..OpDecl::EMPTY
};

/// `tilegraph.yield`.
pub const YIELD_OP: OpDecl = OpDecl {
    name: YIELD,
    summary: "the kernel's outputs",
    traits: OpTraits::TERMINATOR,
    constraints: &[Constraint::Parent(KERNEL)],
    assembly: Some(Assembly {
        parse: parse_yield,
        print: print_yield,
    }),
    ..OpDecl::EMPTY
};

fn parse_kernel(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let mut results = Vec::new();
    if p.parse_optional_punct("->") {
        p.parse_punct("(")?;
        if !p.parse_optional_punct(")") {
            results = p.parse_type_list()?;
            p.parse_punct(")")?;
        }
    }
    let body = p.parse_region(&[])?;
    state.regions.push(body);
    state.result_types = results;
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict(&mut attrs)?;
    state.attributes.extend(attrs);
    Ok(())
}

fn print_kernel(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let res = ctx.results(op);
    p.write(" -> (");
    let tys: Vec<Type> = res.iter().map(|&v| *ctx.value_type(v)).collect();
    p.print_types(&tys);
    p.write(")");
    if let Some(&r) = ctx.regions(op).first() {
        p.write(" ");
        p.print_region(r, false, true);
    }
    p.print_optional_attr_dict(&ctx.op(op).attributes, &[]);
}

fn parse_yield(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
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

fn print_yield(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
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

/// The ops a kernel body may hold besides its terminator: te computes, and the reshapes
/// between them (views, free in any layer).
pub fn is_body_op(name: &str) -> bool {
    name == COMPUTE || name == COLLAPSE || name == EXPAND
}

/// The iteration domain an op's tiles range over: a compute's axes (parallel, then
/// reduction), a reshape's result dims.
pub fn op_domain(ctx: &Context, op: OpId) -> Result<Vec<u64>, String> {
    if ctx.op_name(op) == COMPUTE {
        let (c, _) = compute_from_op(ctx, op)?;
        return Ok(c.extents().iter().map(|&e| e.max(0) as u64).collect());
    }
    let r = ctx
        .results(op)
        .first()
        .and_then(|&v| TensorType::from_type(ctx.value_type(v)))
        .ok_or("a reshape in a kernel needs a static tensor result")?;
    Ok(r.shape.iter().map(|&e| e.max(0) as u64).collect())
}

/// The body ops of a kernel, in order, without the terminator.
pub fn body_ops(ctx: &Context, kernel: OpId) -> Vec<OpId> {
    let Some(&r) = ctx.regions(kernel).first() else {
        return Vec::new();
    };
    let Some(&b) = ctx.region_blocks(r).first() else {
        return Vec::new();
    };
    ctx.block_ops(b)
        .filter(|&o| ctx.op_name(o) != YIELD)
        .collect()
}

/// True when `v` is a result of an op directly in `kernel`'s body.
pub fn produced_in(ctx: &Context, kernel: OpId, v: rtile::ir::Value) -> bool {
    ctx.defining_op(v)
        .is_some_and(|d| ctx.parent_op(d) == Some(kernel))
}

/// The structural rules (docs/dialects/tilegraph.md, "Verification").
fn verify_kernel(ctx: &Context, op: OpId) -> Result<(), String> {
    let r = ctx.regions(op)[0];
    let [b] = ctx.region_blocks(r) else {
        return Err("requires one block in its region".into());
    };
    let term = ctx
        .last_op(*b)
        .filter(|&t| ctx.op_name(t) == YIELD)
        .ok_or("region must end in tilegraph.yield")?;
    let yielded: Vec<Type> = ctx
        .operands(term)
        .iter()
        .map(|&v| *ctx.value_type(v))
        .collect();
    let results: Vec<Type> = ctx
        .results(op)
        .iter()
        .map(|&v| *ctx.value_type(v))
        .collect();
    if yielded != results {
        return Err("tilegraph.yield operand types must match the kernel's result types".into());
    }
    match ctx.attr(op, DEVICE) {
        Some(a) if a.as_str().is_some() => {}
        _ => {
            return Err(format!(
                "requires a string attribute '{DEVICE}' naming the device"
            ));
        }
    }
    let body = body_ops(ctx, op);
    if body.is_empty() {
        return Err("has no ops to run".into());
    }
    let mut register_edge = vec![false; body.len()];
    let index_of = |o: OpId| body.iter().position(|&x| x == o);
    for (i, &o) in body.iter().enumerate() {
        let name = ctx.op_name(o);
        if !is_body_op(name) {
            return Err(format!(
                "body op #{i} ('{name}') cannot run in a kernel: only te.compute and tensor reshapes"
            ));
        }
        let levels = connect_levels(ctx, o)
            .map_err(|m| format!("body op #{i}: '{}': {m}", super::CONNECT))?
            .ok_or_else(|| format!("body op #{i} has no '{}'", super::CONNECT))?;
        let operands = ctx.operands(o);
        if levels.len() != operands.len() {
            return Err(format!(
                "body op #{i}: '{}' has {} levels for {} operands",
                super::CONNECT,
                levels.len(),
                operands.len()
            ));
        }
        for (j, (&v, &l)) in operands.iter().zip(&levels).enumerate() {
            let inside = produced_in(ctx, op, v);
            if inside && l == Level::Global {
                return Err(format!(
                    "body op #{i}: operand #{j} is produced in this kernel, so its edge is connected at 'register' or 'shared', not 'global'"
                ));
            }
            if !inside && l != Level::Global {
                return Err(format!(
                    "body op #{i}: operand #{j} comes from outside the kernel, so its edge goes through 'global', not '{}'",
                    l.name()
                ));
            }
            if l == Level::Register {
                register_edge[i] = true;
                if let Some(p) = ctx.defining_op(v).and_then(index_of) {
                    register_edge[p] = true;
                }
            }
        }
    }
    for (i, &o) in body.iter().enumerate() {
        let t = tiles(ctx, o)
            .map_err(|m| format!("body op #{i}: '{}': {m}", super::TILES))?
            .ok_or_else(|| format!("body op #{i} has no '{}'", super::TILES))?;
        let dom = op_domain(ctx, o).map_err(|m| format!("body op #{i}: {m}"))?;
        check_tiles(&t, &dom, register_edge[i]).map_err(|m| format!("body op #{i}: {m}"))?;
    }
    Ok(())
}

/// One op's tiles: one size per domain dim within the extent, a shared (block) tile, a
/// register tile when an edge of the op is connected at register, and the register tile
/// inside the shared one (§3.2: "the tile size at the lower memory level must be larger
/// than the tile size at the upper memory level"). Levels go outward without gaps: an op
/// with a register tile has a shared tile around it.
fn check_tiles(t: &LayerTiles, dom: &[u64], register_edge: bool) -> Result<(), String> {
    let shared = t
        .shared
        .as_ref()
        .ok_or("has no 'shared' tile: every op of a kernel runs in blocks whose tile lives in the shared layer")?;
    for l in Level::IN_KERNEL {
        let Some(v) = t.get(l) else { continue };
        if v.len() != dom.len() {
            return Err(format!(
                "the '{}' tile has {} sizes for a domain of {} dims",
                l.name(),
                v.len(),
                dom.len()
            ));
        }
        if let Some(d) = (0..dom.len()).find(|&d| v[d] > dom[d]) {
            return Err(format!(
                "the '{}' tile's size {} exceeds the extent {} of dim {d}",
                l.name(),
                v[d],
                dom[d]
            ));
        }
    }
    match &t.register {
        None if register_edge => {
            Err("has an edge connected at 'register' but no 'register' tile".into())
        }
        Some(r) => match (0..dom.len()).find(|&d| r[d] > shared[d]) {
            Some(d) => Err(format!(
                "the 'register' tile ({}) is larger than the 'shared' tile ({}) in dim {d}: a tile of an inner layer must fit in the tile of the layer outside it",
                r[d], shared[d]
            )),
            None => Ok(()),
        },
        None => Ok(()),
    }
}
