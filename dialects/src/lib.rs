//! rtile's dialects: te, rtile, tilegraph and vdevice, and the upstream subset te is written in and lowers to
//! (func, arith, math, tensor reshapes, gpu, scf, memref, vector, nvgpu, amdgpu).

use ::rtile::dialect::DialectRegistry;

pub mod amdgpu;
pub mod arith;
pub mod func;
pub mod gpu;
pub mod memref;
pub mod nvgpu;
pub mod rtile;
pub mod scf;
pub mod te;
pub mod tensor;
pub mod tilegraph;
pub mod vdevice;
pub mod vector;

/// Builtin and every dialect of this crate: the one dialect registry of rtile (the tools
/// get it with the passes crate's verifier extensions from `rtile_passes::dialect_registry`).
pub fn dialect_registry() -> DialectRegistry {
    let mut reg = DialectRegistry::with_builtin();
    register_all(&mut reg);
    reg
}

/// Registers every dialect of this crate in `reg` (see [`dialect_registry`]).
pub fn register_all(reg: &mut DialectRegistry) {
    reg.register(&func::FuncDialect);
    reg.register(&arith::ArithDialect);
    reg.register(&arith::MathDialect);
    reg.register(&tensor::TensorDialect);
    reg.register(&te::dialect::TeDialect);
    reg.register(&rtile::RtileDialect);
    reg.register(&tilegraph::TilegraphDialect);
    reg.register(&vdevice::VdeviceDialect);
    reg.register(&gpu::GpuDialect);
    reg.register(&scf::ScfDialect);
    reg.register(&memref::MemRefDialect);
    reg.register(&vector::VectorDialect);
    reg.register(&nvgpu::NvgpuDialect);
    reg.register(&amdgpu::AmdgpuDialect);
}

#[cfg(test)]
mod upstream_tests;
