//! `--lower-to-gpu`: each `te.compute` with a selected `#rtile.program` becomes a
//! `gpu.func` kernel (upstream gpu, scf, memref, vector, arith, math ops) with its launch
//! description (`rtile.launch`), following Roller's rProgram loop nest (§3.2, Figure 6) and
//! code generation (§4). See `docs/passes/lower-to-gpu.md`.

mod access;
pub mod adapter;
pub mod arena;
pub(crate) mod body;
mod context;
pub mod elementwise;
pub mod emit;
mod epilogue;
pub mod fuse;
pub mod host;
pub mod kernel;
pub mod launch;
pub mod mma;
pub mod pass;
pub(crate) mod persistent;
pub mod plan;
pub mod reduction;
mod reference;
pub mod results;
pub mod shared_lanes;
pub mod shared_stage;
pub mod shared_steps;
pub mod staging;
pub mod thread_map;
pub mod tile_program;
mod types;

pub use adapter::expr_info;
pub use kernel::{
    CrossThread, LowerOptions, LoweredKernel, ThreadMapping, auto_split, lower_compute,
    lower_compute_opts, lower_compute_with, lower_fused, reference_text,
};
pub use pass::{
    LowerToGpu, lower_module, lower_module_dedup, lower_module_on, lower_module_with,
    selected_program,
};
pub use plan::KernelPlan;

use rtile::ir::{Attribute, Builder, Context, OpId};

/// Builds `gpu.module @name` holding the (detached) `kernels`' functions at `b`'s
/// insertion point.
pub fn build_gpu_module(b: &mut Builder, name: &str, kernels: &[LoweredKernel]) -> OpId {
    let gm = b
        .op("gpu.module")
        .property("sym_name", Attribute::string(name))
        .regions(1)
        .build();
    let region = b.ctx().regions(gm)[0];
    let ip = b.insertion_point();
    let block = b.create_block_in(region, &[]);
    b.restore_insertion_point(ip);
    for k in kernels {
        b.ctx_mut().append_op(block, k.func);
    }
    gm
}

/// A detached `builtin.module {gpu.container_module}` holding one `gpu.module @name` with
/// the (detached) `kernels`' functions: what a simulator or printer takes.
pub fn kernels_module(ctx: &mut Context, name: &str, kernels: &[LoweredKernel]) -> OpId {
    let mut b = Builder::new(ctx);
    let module = b
        .op("builtin.module")
        .attr("gpu.container_module", Attribute::unit())
        .regions(1)
        .build();
    let region = b.ctx().regions(module)[0];
    b.create_block_in(region, &[]);
    build_gpu_module(&mut b, name, kernels);
    module
}
