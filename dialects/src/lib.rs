//! rtile's dialects: te, rtile, tilegraph, vdevice, and the upstream subset we lower to.

use ::rtile::dialect::DialectRegistry;

pub mod rtile;
pub mod te;

/// Registers every dialect of this crate in `reg` (called by the tools' registry).
pub fn register_all(reg: &mut DialectRegistry) {
    reg.register(&te::dialect::TeDialect);
    reg.register(&rtile::RtileDialect);
}
