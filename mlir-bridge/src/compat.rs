//! Upstream ops that rtile's own dialects do not define but that MLIR's output contains
//! (`tensor.empty`, `tensor.pad`, ...). rtile refuses unknown ops of a dialect it knows,
//! so the bridge registers them as opaque ops: generic form only, no verifier of their
//! own (MLIR verifies them on the way back).

use rtile::dialect::{Dialect, DialectRegistry, OpDefinition, OpTraits};

/// Opaque upstream op names per dialect rtile registers (`tensor`, `memref`, `scf`, ...).
const OPAQUE: &[&str] = &[
    "tensor.empty",
    "tensor.pad",
    "tensor.yield",
    "tensor.extract_slice",
    "tensor.insert_slice",
    "tensor.extract",
    "tensor.insert",
    "tensor.cast",
    "tensor.dim",
    "tensor.generate",
    "tensor.splat",
    "tensor.from_elements",
    "tensor.reshape",
    "tensor.concat",
    "tensor.bitcast",
    "memref.subview",
    "memref.copy",
    "memref.cast",
    "memref.dim",
    "memref.dealloc",
    "memref.reinterpret_cast",
    "arith.constant_mask",
    "scf.forall",
    "scf.in_parallel",
    "scf.execute_region",
];

struct Opaque(&'static str);

impl OpDefinition for Opaque {
    fn name(&self) -> &'static str {
        self.0
    }
    fn summary(&self) -> &'static str {
        "an upstream op rtile passes through unchanged"
    }
    fn traits(&self) -> OpTraits {
        // Only tensor.yield is a terminator here; nothing else is assumed about them.
        OpTraits {
            is_terminator: self.0 == "tensor.yield",
            ..OpTraits::default()
        }
    }
}

/// One pseudo-dialect per namespace, carrying that namespace's opaque ops.
struct OpaqueOps(&'static str);

impl Dialect for OpaqueOps {
    fn namespace(&self) -> &'static str {
        self.0
    }
    fn description(&self) -> &'static str {
        "upstream ops passed through by the MLIR bridge"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        OPAQUE
            .iter()
            .filter(|n| n.split('.').next() == Some(self.0))
            .map(|n| Box::new(Opaque(n)) as Box<dyn OpDefinition>)
            .collect()
    }
}

/// rtile's dialect registry (`rtile_passes::dialect_registry`) plus the opaque upstream ops.
pub fn bridge_registry() -> DialectRegistry {
    let mut reg = rtile_passes::dialect_registry();
    for ns in ["tensor", "memref", "arith", "scf"] {
        reg.register(&OpaqueOps(ns));
    }
    reg
}
