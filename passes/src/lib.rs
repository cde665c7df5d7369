//! rtile's passes and analyses, one module per pass, named after its flag.

pub mod autoschedule_beam;
pub mod axis_fusion;
pub mod connect;
pub mod construct_rtile;
pub mod device;
pub mod fold_reshapes;
pub mod lower_to_gpu;
pub mod print_op_stats;
pub mod rtile_select;
pub mod symbol_dce;
pub mod tensor_padding;
pub mod wavefront_pack;

use rtile::dialect::DialectRegistry;
use rtile::pass::PassRegistry;

pub use construct_rtile::register_dialect_extensions;

/// Every dialect ([`rtile_dialects::dialect_registry`]) with this crate's dialect
/// extensions (device capacity checks of rtile attributes): the registry every tool that
/// runs passes parses with (`rtile-opt`, `rtile-run`, `rtile-bench`, `rtile-mlir-opt`).
pub fn dialect_registry() -> DialectRegistry {
    let mut reg = rtile_dialects::dialect_registry();
    register_dialect_extensions(&mut reg);
    connect::register_dialect_extensions(&mut reg);
    reg
}

/// Every pass of rtile, in a fresh registry (what every tool runs pipelines from).
pub fn pass_registry() -> PassRegistry {
    let mut reg = PassRegistry::new();
    register_all_passes(&mut reg);
    reg
}

/// Registers every pass of this crate with `reg`.
pub fn register_all_passes(reg: &mut PassRegistry) {
    reg.register(|| Box::new(symbol_dce::SymbolDce));
    reg.register(|| Box::new(print_op_stats::PrintOpStats::new()));
    reg.register(|| Box::new(axis_fusion::AxisFusion));
    reg.register(|| Box::new(fold_reshapes::FoldReshapes));
    reg.register(|| Box::new(tensor_padding::TensorPadding::default()));
    reg.register(|| Box::new(construct_rtile::pass::ConstructRtile::default()));
    reg.register(|| Box::new(rtile_select::RtileSelect::default()));
    reg.register(|| Box::new(lower_to_gpu::LowerToGpu::default()));
    reg.register(|| Box::new(connect::pass::Connect::default()));
    reg.register(|| Box::new(autoschedule_beam::pass::AutoscheduleBeam::default()));
    reg.register(|| Box::new(wavefront_pack::pass::WavefrontPack::default()));
}

#[cfg(test)]
pub(crate) mod test_util;
