//! rtile's dialects: te, rtile, tilegraph, vdevice, and the upstream subset we lower to.

use rtile::dialect::DialectRegistry;

/// Registers every dialect of this crate in `reg` (called by the tools' registry).
pub fn register_all(reg: &mut DialectRegistry) {
    // No dialects yet; each dialect module adds its `reg.register(&...)` line here.
    let _ = reg;
}
