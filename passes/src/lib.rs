//! rtile's passes and analyses, one module per pass, named after its flag.

pub mod construct_rtile;
pub mod device;
pub mod lower_to_gpu;
pub mod print_op_stats;
pub mod symbol_dce;

use rtile::pass::PassRegistry;

/// Registers every pass of this crate with `reg`.
pub fn register_all_passes(reg: &mut PassRegistry) {
    reg.register(|| Box::new(symbol_dce::SymbolDce));
    reg.register(|| Box::new(print_op_stats::PrintOpStats::new()));
    reg.register(|| Box::new(lower_to_gpu::LowerToGpu));
}

#[cfg(test)]
pub(crate) mod test_util;
