//! `scf`: upstream MLIR's structured control flow subset (`scf.for` with `iter_args`,
//! `scf.if`, `scf.yield`) with upstream generic syntax and verification rules.

pub mod custom;

use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::types::Type;
use rtile::ir::{Context, OpId};

use crate::gpu::common::{custom, op, parse_values, print_values, terminator};

/// The `scf` dialect subset.
pub struct ScfDialect;

impl Dialect for ScfDialect {
    fn namespace(&self) -> &'static str {
        "scf"
    }
    fn description(&self) -> &'static str {
        "upstream scf subset: for loops with loop-carried values, if, yield"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        let region = OpTraits {
            single_block: true,
            ..OpTraits::default()
        };
        vec![
            crate::gpu::common::custom(
                "scf.for",
                "a counted loop `lb to ub step s` with loop-carried values",
                region,
                verify_for,
                custom::parse_for,
                custom::print_for,
            ),
            crate::gpu::common::custom(
                "scf.if",
                "runs the then or else region",
                region,
                verify_if,
                custom::parse_if,
                custom::print_if,
            ),
            custom(
                "scf.yield",
                "terminates scf regions, yielding values",
                terminator(),
                verify_yield,
                parse_values,
                print_values,
            ),
            // Generic-form only (parsed, verified structurally, not lowered to or simulated).
            op(
                "scf.while",
                "a while loop: a before region ending in scf.condition, an after region",
                OpTraits::default(),
                |_, _| Ok(()),
            ),
            op(
                "scf.condition",
                "ends the before region of scf.while",
                terminator(),
                |ctx, o| match ctx.parent_op(o).map(|p| ctx.op_name(p)) {
                    Some("scf.while") => Ok(()),
                    _ => Err("expects parent op 'scf.while'".into()),
                },
            ),
            op(
                "scf.parallel",
                "a parallel loop nest",
                region,
                |_, _| Ok(()),
            ),
            op(
                "scf.reduce",
                "ends scf.parallel, combining values",
                terminator(),
                |_, _| Ok(()),
            ),
            op(
                "scf.reduce.return",
                "ends a reduction region of scf.reduce",
                terminator(),
                |_, _| Ok(()),
            ),
            op(
                "scf.execute_region",
                "runs its region once",
                OpTraits::default(),
                |_, _| Ok(()),
            ),
            op(
                "scf.index_switch",
                "a switch over an index",
                OpTraits::default(),
                |_, _| Ok(()),
            ),
        ]
    }
}

fn verify_for(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() < 3 {
        return Err("expects lower bound, upper bound and step operands".into());
    }
    let iv = *ctx.value_type(ops[0]);
    if !iv.is_integer_like() || ops[1..3].iter().any(|v| *ctx.value_type(*v) != iv) {
        return Err("lower bound, upper bound and step must have one integer or index type".into());
    }
    let inits: Vec<Type> = ops[3..].iter().map(|v| *ctx.value_type(*v)).collect();
    let results: Vec<Type> = ctx.results(o).iter().map(|v| *ctx.value_type(*v)).collect();
    if inits != results {
        return Err("mismatch in number or types of init args and results".into());
    }
    let [region] = ctx.regions(o) else {
        return Err("requires one region".into());
    };
    let Some(&body) = ctx.region_blocks(*region).first() else {
        return Err(
            "region #0 ('region') failed to verify constraint: region with 1 blocks".into(),
        );
    };
    let args: Vec<Type> = ctx
        .block_args(body)
        .iter()
        .map(|v| *ctx.value_type(*v))
        .collect();
    if args.first() != Some(&iv) || args[1..] != inits[..] {
        return Err(
            "region arguments must be the induction variable and the iter_args types".into(),
        );
    }
    yield_matches(ctx, body, &results)
}

fn yield_matches(ctx: &Context, block: rtile::ir::BlockId, want: &[Type]) -> Result<(), String> {
    let Some(t) = ctx.last_op(block) else {
        return Err("region must end in scf.yield".into());
    };
    if ctx.op_name(t) != "scf.yield" {
        return Err("region must end in scf.yield".into());
    }
    let got: Vec<Type> = ctx
        .operands(t)
        .iter()
        .map(|v| *ctx.value_type(*v))
        .collect();
    if got != want {
        return Err("scf.yield operand types must match the op's result types".into());
    }
    Ok(())
}

fn verify_if(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() != 1 || *ctx.value_type(ops[0]) != Type::i1() {
        return Err("operand #0 must be 1-bit signless integer".into());
    }
    let results: Vec<Type> = ctx.results(o).iter().map(|v| *ctx.value_type(*v)).collect();
    let regions = ctx.regions(o);
    if regions.len() != 2 {
        return Err("requires two regions (then, else)".into());
    }
    for (i, r) in regions.iter().enumerate() {
        match ctx.region_blocks(*r).first() {
            Some(&b) => yield_matches(ctx, b, &results)?,
            None if i == 1 && results.is_empty() => {}
            None if i == 1 => return Err("must have an else block if defining values".into()),
            None => return Err("then region must have a block".into()),
        }
    }
    Ok(())
}

fn verify_yield(ctx: &Context, o: OpId) -> Result<(), String> {
    match ctx.parent_op(o).map(|p| ctx.op_name(p)) {
        Some("scf.for" | "scf.if" | "scf.while" | "scf.execute_region" | "scf.parallel") => Ok(()),
        _ => Err("expects parent op to be one of 'scf.execute_region, scf.for, scf.if, scf.index_switch, scf.while'".into()),
    }
}
