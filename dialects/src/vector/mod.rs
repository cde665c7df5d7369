//! `vector`: upstream MLIR's `vector.load` / `vector.store` (wide, e.g. 16-byte, accesses of
//! consecutive memref elements) with upstream generic syntax and verification rules.

use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::types::Type;
use rtile::ir::{Context, OpId, TypeKind};

use crate::gpu::common::{
    all_index, counts, custom, op, parse_load, parse_store, print_load, print_store, pure,
};
use crate::memref::memref_of;

/// The `vector` dialect subset.
pub struct VectorDialect;

impl Dialect for VectorDialect {
    fn namespace(&self) -> &'static str {
        "vector"
    }
    fn description(&self) -> &'static str {
        "upstream vector subset: wide loads and stores"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![
            custom(
                "vector.load",
                "loads consecutive elements into a vector",
                OpTraits::default(),
                verify_load,
                |p, s| parse_load(p, s, true),
                |c, o, p| print_load(c, o, p, true),
            ),
            custom(
                "vector.store",
                "stores a vector to consecutive elements",
                OpTraits::default(),
                verify_store,
                |p, s| parse_store(p, s, true),
                |c, o, p| print_store(c, o, p, true),
            ),
            // Generic-form only (parsed, verified structurally, not lowered to or simulated).
            op(
                "vector.broadcast",
                "broadcasts a scalar or vector",
                pure(),
                |ctx, o| counts(ctx, o, 1, 1),
            ),
            op(
                "vector.reduction",
                "reduces a vector to a scalar",
                pure(),
                |_, _| Ok(()),
            ),
            op(
                "vector.extract",
                "extracts an element or sub-vector",
                pure(),
                |_, _| Ok(()),
            ),
            op(
                "vector.insert",
                "inserts an element or sub-vector",
                pure(),
                |_, _| Ok(()),
            ),
            op("vector.splat", "a vector of one value", pure(), |ctx, o| {
                counts(ctx, o, 1, 1)
            }),
            op("vector.fma", "fused multiply-add", pure(), |ctx, o| {
                counts(ctx, o, 3, 1)
            }),
        ]
    }
}

fn vector_elem(t: &Type) -> Option<&Type> {
    match t.kind() {
        TypeKind::Vector { elem, .. } => Some(elem),
        _ => None,
    }
}

fn verify_load(ctx: &Context, o: OpId) -> Result<(), String> {
    let (shape, elem) = memref_of(ctx, o, 0)?;
    let ops = ctx.operands(o);
    if ops.len() != shape.len() + 1 {
        return Err(format!("requires {} indices", shape.len()));
    }
    all_index(ctx, &ops[1..], "indices")?;
    let r = ctx.results(o);
    if r.len() != 1 || vector_elem(ctx.value_type(r[0])) != Some(&elem) {
        return Err("base and result element types should match".into());
    }
    Ok(())
}

fn verify_store(ctx: &Context, o: OpId) -> Result<(), String> {
    let (shape, elem) = memref_of(ctx, o, 1)?;
    let ops = ctx.operands(o);
    if ops.len() != shape.len() + 2 {
        return Err(format!("requires {} indices", shape.len()));
    }
    all_index(ctx, &ops[2..], "indices")?;
    if vector_elem(ctx.value_type(ops[0])) != Some(&elem) {
        return Err("base and valueToStore element type should match".into());
    }
    Ok(())
}
