//! `--lower-to-gpu`: each `te.compute` with a selected `#rtile.program` becomes a
//! `gpu.func` kernel (upstream gpu, scf, memref, vector, arith, math ops) with its launch
//! description (`rtile.launch`), following Roller's rProgram loop nest (§3.2, Figure 6) and
//! code generation (§4). See `docs/passes/lower-to-gpu.md`.

pub mod adapter;
pub mod emit;
pub mod kernel;
pub mod pass;

pub use adapter::expr_info;
pub use kernel::{
    CrossThread, LaunchDesc, LowerOptions, LoweredKernel, ThreadMapping, auto_split, lower_compute,
    lower_compute_opts, lower_compute_with, reference_text,
};
pub use pass::{LowerToGpu, lower_module, lower_module_with, selected_program};

/// A `builtin.module` (generic form) holding one `gpu.module @name` with `kernels`.
pub fn module_text(name: &str, kernels: &[LoweredKernel]) -> String {
    let mut s = String::from("\"builtin.module\"() ({\n");
    s.push_str(&format!(
        "  \"gpu.module\"() <{{sym_name = \"{name}\"}}> ({{\n"
    ));
    for k in kernels {
        s.push_str(&k.text);
    }
    s.push_str("  }) : () -> ()\n}) {gpu.container_module} : () -> ()\n");
    s
}
