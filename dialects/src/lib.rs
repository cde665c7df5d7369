//! rtile's dialects: te, rtile, tilegraph, vdevice, and the upstream subset we lower to.

use rtile::dialect::DialectRegistry;

pub mod gpu;
pub mod memref;
pub mod scf;
pub mod te;
pub mod vector;

/// Registers every dialect of this crate in `reg` (called by the tools' registry).
pub fn register_all(reg: &mut DialectRegistry) {
    reg.register(&te::dialect::TeDialect);
    reg.register(&gpu::GpuDialect);
    reg.register(&scf::ScfDialect);
    reg.register(&memref::MemRefDialect);
    reg.register(&vector::VectorDialect);
}
