//! `vector`: upstream MLIR's `vector.load` / `vector.store` (wide, e.g. 16-byte, accesses of
//! consecutive memref elements) with upstream generic syntax and verification rules.

use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::types::Type;
use rtile::ir::{Context, OpId};

use crate::gpu::common::{all_index, op};
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
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![
            op(
                "vector.load",
                "loads consecutive elements into a vector",
                OpTraits::default(),
                verify_load,
            ),
            op(
                "vector.store",
                "stores a vector to consecutive elements",
                OpTraits::default(),
                verify_store,
            ),
        ]
    }
}

fn vector_elem(t: &Type) -> Option<&Type> {
    match t {
        Type::Vector { elem, .. } => Some(elem),
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
