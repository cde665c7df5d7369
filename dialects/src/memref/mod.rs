//! `memref`: upstream MLIR's memref subset (`alloc`, `alloca`, `load`, `store`, `subview`)
//! with upstream generic syntax and verification rules. Address spaces are attributes on
//! the memref type (`#gpu.address_space<workgroup>`).

use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::types::{DYNAMIC, Type};
use rtile::ir::{Context, OpId};

use crate::gpu::common::{
    all_index, counts, custom, op, parse_load, parse_store, print_load, print_store, pure,
};

/// The `memref` dialect subset.
pub struct MemRefDialect;

impl Dialect for MemRefDialect {
    fn namespace(&self) -> &'static str {
        "memref"
    }
    fn description(&self) -> &'static str {
        "upstream memref subset: allocation, element loads and stores, subviews"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![
            op(
                "memref.alloc",
                "allocates a buffer",
                OpTraits::default(),
                verify_alloc,
            ),
            op(
                "memref.alloca",
                "allocates a buffer in the enclosing scope (per thread on GPUs)",
                OpTraits::default(),
                verify_alloc,
            ),
            op(
                "memref.dealloc",
                "frees a buffer from memref.alloc",
                OpTraits::default(),
                |ctx, o| {
                    counts(ctx, o, 1, 0)?;
                    memref_of(ctx, o, 0).map(|_| ())
                },
            ),
            custom(
                "memref.load",
                "loads one element",
                OpTraits::default(),
                verify_load,
                |p, s| parse_load(p, s, false),
                |c, o, p| print_load(c, o, p, false),
            ),
            custom(
                "memref.store",
                "stores one element",
                OpTraits::default(),
                verify_store,
                |p, s| parse_store(p, s, false),
                |c, o, p| print_store(c, o, p, false),
            ),
            op(
                "memref.subview",
                "a strided view of a buffer",
                pure(),
                verify_subview,
            ),
            // Generic-form only (parsed, verified structurally, not lowered to or simulated).
            op(
                "memref.cast",
                "casts between compatible memref types",
                pure(),
                |ctx, o| counts(ctx, o, 1, 1),
            ),
            op(
                "memref.copy",
                "copies one buffer into another",
                OpTraits::default(),
                |ctx, o| counts(ctx, o, 2, 0),
            ),
            op(
                "memref.dim",
                "the size of one dimension",
                pure(),
                |ctx, o| counts(ctx, o, 2, 1),
            ),
            op(
                "memref.global",
                "a global buffer",
                OpTraits {
                    symbol: true,
                    ..OpTraits::default()
                },
                |_, _| Ok(()),
            ),
            op(
                "memref.get_global",
                "the buffer of a memref.global",
                pure(),
                |ctx, o| counts(ctx, o, 0, 1),
            ),
            op(
                "memref.reinterpret_cast",
                "a view with explicit offset, sizes and strides",
                pure(),
                |_, _| Ok(()),
            ),
        ]
    }
}

/// `(shape, elem)` of operand `i` when it is a ranked memref.
pub fn memref_of(ctx: &Context, o: OpId, i: usize) -> Result<(Vec<i64>, Type), String> {
    let v = *ctx.operands(o).get(i).ok_or("missing memref operand")?;
    match ctx.value_type(v) {
        Type::MemRef { shape, elem, .. } => Ok((shape.clone(), (**elem).clone())),
        _ => Err(format!("operand #{i} must be memref of any type values")),
    }
}

fn verify_alloc(ctx: &Context, o: OpId) -> Result<(), String> {
    if ctx.results(o).len() != 1 {
        return Err("requires one result".into());
    }
    let Type::MemRef { shape, .. } = ctx.value_type(ctx.result(o, 0)) else {
        return Err("result must be a memref".into());
    };
    let dynamic = shape.iter().filter(|&&d| d == DYNAMIC).count();
    let ops = ctx.operands(o);
    all_index(ctx, ops, "dynamic sizes")?;
    if ops.len() < dynamic {
        return Err("dimension operand count does not equal memref dynamic dimension count".into());
    }
    Ok(())
}

fn verify_load(ctx: &Context, o: OpId) -> Result<(), String> {
    let (shape, elem) = memref_of(ctx, o, 0)?;
    let ops = ctx.operands(o);
    if ops.len() != shape.len() + 1 {
        return Err(
            "incorrect number of indices for load, expected ".to_string()
                + &shape.len().to_string(),
        );
    }
    all_index(ctx, &ops[1..], "indices")?;
    if ctx.results(o).len() != 1 || *ctx.value_type(ctx.result(o, 0)) != elem {
        return Err("result type must match the memref element type".into());
    }
    Ok(())
}

fn verify_store(ctx: &Context, o: OpId) -> Result<(), String> {
    let (shape, elem) = memref_of(ctx, o, 1)?;
    let ops = ctx.operands(o);
    if ops.len() != shape.len() + 2 {
        return Err(format!(
            "store index operand count not equal to memref rank {}",
            shape.len()
        ));
    }
    all_index(ctx, &ops[2..], "indices")?;
    if *ctx.value_type(ops[0]) != elem || !ctx.results(o).is_empty() {
        return Err("value to store must have the memref element type".into());
    }
    Ok(())
}

fn verify_subview(ctx: &Context, o: OpId) -> Result<(), String> {
    let (shape, elem) = memref_of(ctx, o, 0)?;
    if ctx.results(o).len() != 1 {
        return Err("requires one result".into());
    }
    all_index(ctx, &ctx.operands(o)[1..], "offsets, sizes and strides")?;
    match ctx.value_type(ctx.result(o, 0)) {
        Type::MemRef {
            shape: s, elem: e, ..
        } if **e == elem && s.len() <= shape.len() => Ok(()),
        _ => Err("result must be a memref of the source element type and at most its rank".into()),
    }
}
