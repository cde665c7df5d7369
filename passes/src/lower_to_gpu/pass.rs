//! The `--lower-to-gpu` pass over a module: every `func.func` holding `te.compute`s with a
//! selected `rtile.program` becomes a host function over memrefs (inputs, then one output
//! memref per result, destination-passing) that places intermediates in one arena reused by
//! liveness (`arena.rs`), reshapes as views and tensor constants as `memref.global`s
//! (`host.rs`), and launches one kernel per compute with `gpu.launch_func`; the kernels go
//! into `gpu.module @kernels`, and the module gets `gpu.container_module`, as upstream
//! requires for launches.

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::{Attribute, NamedAttribute};
use rtile::ir::{
    AttrKind, BlockId, Context, DenseArray, Location, OpId, Rewriter, Type, WalkOrder,
};
use rtile::pass::{OptionKind, OptionType, Pass, PassStatistics};
use rtile_dialects::gpu::target::{GpuTarget, TargetKind};
use rtile_dialects::te::ir::COMPUTE;
use rtile_dialects::te::model::TensorType;
use rtile_dialects::te::walk::compute_ops;

use crate::construct_rtile::RProgram;
use crate::construct_rtile::device_check::program_device;
use crate::device::Device;

use super::host::{Globals, KernelKeys, lower_func};
use super::kernel::{LowerOptions, LoweredKernel, ThreadMapping};
use super::mma::TensorCoreMode;

rtile::declare_pass! {
    pass LowerToGpu {
        flag: "lower-to-gpu",
        display_name: "LowerToGpu",
        summary: "Lower te.compute ops with a selected #rtile.program to gpu.func kernels and gpu.launch_func host code",
        description: "Every func.func holding te.computes with a selected rtile.program becomes a host function over memrefs that launches one kernel per compute; the kernels go into gpu.module @kernels.",
        anchor: "builtin.module",
        options(opts: LowerToGpuOptions) {
            /// register-prefetch double buffering of the staged k-step tiles (false: load, barrier, compute, barrier)
            prefetch: bool = "true", "prefetch";
            /// thread-to-point mapping: auto (runs of 4 points per thread where that gives 16-byte shared loads), transposed (auto, and A[m, k]-like tiles stored transposed for 16-byte reads too) or interleaved
            thread_mapping: ThreadMapping = "auto", "thread-mapping";
            /// one kernel for the computes that lower to the same code (same te compute and program), launched once per compute
            dedup_kernels: bool = "true", "dedup-kernels";
            /// automatic cross-thread reduction split (false: one thread per output point, packed rTasks included)
            cross_thread: bool = "true", "cross-thread";
            /// tensor-core instructions: auto (sm_90a wgmma with TMA where it applies, i.e. on sm_90 devices, else mma-sync), mma-sync (sm_80 mma.sync, ldmatrix, cp.async) or wgmma (an error where it does not apply)
            tensor_core: TensorCoreMode = "auto", "tensor-core";
            /// wgmma kernels with a producer warpgroup issuing the TMA loads and consumer warpgroups computing, synchronised by full/empty mbarriers, where the block has room for 128 more threads (false: every warpgroup computes, thread 0 loads)
            warp_specialize: bool = "true", "warp-specialize";
            /// a tilegraph.kernel with several results as one kernel writing all of them, where its other results are shared stages whose owned parts partition them (false: one kernel per result)
            one_kernel_results: bool = "true", "one-kernel-results";
            /// built-in device for computes without a program when no compute of the module names one (--construct-rtile leaves computes whose reads its model cannot express unchanged); must match the programs' device otherwise
            device: String = "", "device";
        }
        statistics {
            KERNELS: "kernels", "Number of kernels generated";
            SHARED_BYTES: "shared-bytes", "Static shared memory of all kernels, bytes";
            VECTOR_LOADS: "vector-loads", "Data tiles loaded with 16-byte vector loads";
            PEAK_BYTES: "peak-bytes", "Peak device memory of the intermediates (arena bytes), summed over host functions";
            REUSED_KERNELS: "reused-kernels", "Launches of a kernel already generated for an identical compute";
        }
    }
}

/// `thread-mapping=auto|transposed|interleaved`.
impl OptionType for ThreadMapping {
    const KIND: OptionKind = OptionKind::String;
    fn parse_option(text: &str) -> Result<Self, String> {
        ThreadMapping::parse(text).ok_or_else(|| {
            format!(
                "invalid value '{text}' for option 'thread-mapping' (expected auto, transposed or interleaved)"
            )
        })
    }
    fn print_option(&self) -> Option<String> {
        Some(
            match self {
                ThreadMapping::Auto => "auto",
                ThreadMapping::Transposed => "transposed",
                ThreadMapping::Interleaved => "interleaved",
            }
            .to_string(),
        )
    }
}

/// `tensor-core=mma-sync|auto|wgmma`.
impl OptionType for TensorCoreMode {
    const KIND: OptionKind = OptionKind::String;
    fn parse_option(text: &str) -> Result<Self, String> {
        TensorCoreMode::parse(text).ok_or_else(|| {
            format!(
                "invalid value '{text}' for option 'tensor-core' (expected mma-sync, auto or wgmma)"
            )
        })
    }
    fn print_option(&self) -> Option<String> {
        Some(self.keyword().to_string())
    }
}

/// The `lower-to-gpu` pass (options `prefetch`, see [`LowerOptions::prefetch`], and
/// `thread-mapping`, see [`ThreadMapping`]).
#[derive(Default)]
pub struct LowerToGpu {
    opts: LowerToGpuOptions,
}

/// The memref a static tensor is passed as (identity layout, default memory space).
pub(super) fn memref_of(t: &TensorType) -> Type {
    Type::memref(t.shape.clone(), t.elem.to_type())
}

/// `array<i32: ...>`, the form of `operandSegmentSizes`.
pub(super) fn segment_sizes(sizes: &[i64]) -> Attribute {
    Attribute::new(AttrKind::DenseArray(DenseArray::Int {
        elem: Type::i32(),
        values: sizes.to_vec(),
    }))
}

/// The program a compute is lowered with: the selected one (`rtile.program`, set by
/// `--rtile-select`), else the best-ranked candidate of `rtile.programs` (as
/// `--construct-rtile` leaves them, best first), so that `--construct-rtile --lower-to-gpu`
/// works without a selection step. Read with the rtile dialect's typed accessors.
pub fn selected_program(
    ctx: &Context,
    op: OpId,
) -> Result<crate::construct_rtile::RProgram, Diagnostic> {
    let bad = |e: String| Diagnostic::op_error(ctx, op, format!("bad 'rtile.program': {e}"));
    if let Some(p) = rtile_dialects::rtile::program(ctx, op).map_err(bad)? {
        return Ok(p);
    }
    let candidates = rtile_dialects::rtile::programs(ctx, op)
        .map_err(|e| Diagnostic::op_error(ctx, op, format!("bad 'rtile.programs': {e}")))?;
    candidates.into_iter().next().ok_or_else(|| {
        Diagnostic::op_error(
            ctx,
            op,
            "has neither an 'rtile.program' nor 'rtile.programs' candidates (run --construct-rtile first; an op it leaves unchanged, its reads beyond Roller's model, takes the tiles --connect gives it alone on the device another compute of the module names, or lower-to-gpu's device option)",
        )
    })
}

pub(super) fn func_name(ctx: &Context, f: OpId) -> String {
    ctx.inherent_attr(f, "sym_name")
        .and_then(|a| a.as_str())
        .unwrap_or("f")
        .to_string()
}

/// Gives `root`, every op nested in it and their blocks' arguments the location `loc` (a
/// kernel's: that of the `te.compute` it lowers, as its host code has the function's).
pub(super) fn set_locations(ctx: &mut Context, root: OpId, loc: &Location) {
    let mut ops = Vec::new();
    ctx.walk(root, WalkOrder::PreOrder, &mut |_, o| ops.push(o));
    for o in ops {
        ctx.op_mut(o).location = loc.clone();
        let blocks: Vec<BlockId> = ctx
            .regions(o)
            .iter()
            .flat_map(|&r| ctx.region_blocks(r).to_vec())
            .collect();
        for b in blocks {
            for i in 0..ctx.block_args(b).len() {
                ctx.set_block_arg_location(b, i, loc.clone());
            }
        }
    }
}

/// The `func.func`s directly in `module` that hold a `te.compute`, or none but whose
/// results are all arguments, tensor constants and reshapes of them (a model of views
/// only, or one the ONNX importer folds into constants): host code of copies alone.
fn te_funcs(ctx: &Context, module: OpId) -> Vec<OpId> {
    let Some(body) = ctx
        .regions(module)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
    else {
        return vec![];
    };
    ctx.block_ops(body)
        .filter(|&f| ctx.op_name(f) == "func.func")
        .filter(|&f| !compute_ops(ctx, f).is_empty() || copies_only(ctx, f))
        .collect()
}

/// Whether `f` takes and gives static tensors only (one result at least), and its body
/// holds only tensor constants, tensor reshapes and the return: a function whose results
/// the host function copies, without a kernel.
fn copies_only(ctx: &Context, f: OpId) -> bool {
    let Some((ins, outs)) = rtile_dialects::gpu::function_type(ctx, f) else {
        return false;
    };
    let tensor =
        |t: &rtile::ir::Type| rtile_dialects::te::model::TensorType::from_type(t).is_some();
    if outs.is_empty() || !ins.iter().chain(outs).all(tensor) {
        return false;
    }
    let Some(body) = ctx
        .regions(f)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
    else {
        return false;
    };
    ctx.block_ops(body).all(|op| match ctx.op_name(op) {
        "func.return" | rtile_dialects::tensor::COLLAPSE | rtile_dialects::tensor::EXPAND => true,
        "arith.constant" => ctx.results(op).iter().all(|&r| tensor(ctx.value_type(r))),
        _ => false,
    })
}

/// The ops directly in `module`'s body.
fn module_ops(ctx: &Context, module: OpId) -> Vec<OpId> {
    ctx.regions(module)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .map(|b| ctx.block_ops(b).collect())
        .unwrap_or_default()
}

/// Lowers `module` in place (default options).
pub fn lower_module(
    ctx: &mut Context,
    module: OpId,
    stats: &mut PassStatistics,
) -> Result<(), Diagnostic> {
    lower_module_with(ctx, module, stats, LowerOptions::default())
}

/// Lowers `module` in place with `opts`, computes that lower to the same code sharing one
/// kernel.
pub fn lower_module_with(
    ctx: &mut Context,
    module: OpId,
    stats: &mut PassStatistics,
    opts: LowerOptions,
) -> Result<(), Diagnostic> {
    lower_module_dedup(ctx, module, stats, opts, true)
}

/// Lowers `module` in place with `opts`; with `dedup`, computes that lower to the same
/// code (the same te compute, up to its location, under the same program) share one
/// `gpu.func` that the host function launches once per compute (`dedup-kernels`).
pub fn lower_module_dedup(
    ctx: &mut Context,
    module: OpId,
    stats: &mut PassStatistics,
    opts: LowerOptions,
    dedup: bool,
) -> Result<(), Diagnostic> {
    lower_module_on(ctx, module, stats, opts, dedup, None)
}

/// [`lower_module_dedup`] with `device` for the computes without a program when none of
/// the module's computes names one (the pass's `device=` option).
pub fn lower_module_on(
    ctx: &mut Context,
    module: OpId,
    stats: &mut PassStatistics,
    opts: LowerOptions,
    dedup: bool,
    device: Option<&Device>,
) -> Result<(), Diagnostic> {
    let funcs = te_funcs(ctx, module);
    if funcs.is_empty() {
        return Ok(());
    }
    // `None`: no compute in the module (its host functions copy, launching nothing).
    let device = module_device(ctx, &funcs, device)?;
    if let Some(d) = &device {
        give_unconstructed_programs(ctx, &funcs, d)?;
    }
    // rPrograms (`vdevice.program`, from --wavefront-pack): one persistent kernel each.
    let pack = super::persistent::analyse(ctx, module)?;
    let mut kernels: Vec<LoweredKernel> = Vec::new();
    let mut globals = Globals::new(ctx, module);
    let mut seen = KernelKeys::new(dedup);
    let before: Vec<OpId> = module_ops(ctx, module);
    for &f in &funcs {
        let packing = pack.as_ref().zip(device.as_ref());
        match lower_func(ctx, f, &mut kernels, &mut globals, &mut seen, opts, packing) {
            Ok((_, peak)) => stats.add(LowerToGpu::PEAK_BYTES, peak),
            Err(d) => {
                // Leave the module as it was: the host functions and kernels built so far
                // go away.
                let added: Vec<OpId> = module_ops(ctx, module)
                    .into_iter()
                    .filter(|o| !before.contains(o))
                    .collect();
                for op in added.into_iter().chain(kernels.iter().map(|k| k.func)) {
                    ctx.erase_op(op);
                }
                return Err(d);
            }
        }
    }
    stats.add(LowerToGpu::REUSED_KERNELS, seen.reused);
    for k in &kernels {
        stats.add(LowerToGpu::KERNELS, 1);
        stats.add(LowerToGpu::SHARED_BYTES, k.shared_bytes);
        stats.add(
            LowerToGpu::VECTOR_LOADS,
            k.vectorized.iter().filter(|&&v| v).count() as u64,
        );
    }
    // The kernels go into `gpu.module @kernels` at the front of `module`.
    let body = ctx
        .regions(module)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or_else(|| Diagnostic::op_error(ctx, module, "module has no body"))?;
    let mut rw = Rewriter::new(ctx);
    match rw.ctx().first_op(body) {
        Some(anchor) => rw.set_insertion_point(anchor),
        None => rw.set_insertion_point_to_end(body),
    }
    // A module whose host functions only copy has no kernels, and no gpu.module (upstream
    // wants its region to hold a block).
    let gpu_module =
        (!kernels.is_empty()).then(|| super::build_gpu_module(&mut rw, "kernels", &kernels));
    if let Err(e) = funcs.iter().try_for_each(|&f| rw.erase_op(f)) {
        return Err(Diagnostic::op_error(
            ctx,
            module,
            format!("internal error: {e}"),
        ));
    }
    if pack.is_some() {
        // The schedule now lives in the persistent kernels.
        for op in super::persistent::vdevice_ops(ctx, module) {
            ctx.erase_op(op);
        }
    }
    if let (Some(g), Some(d)) = (gpu_module, &device) {
        mark_target(ctx, g, d);
    }
    ctx.set_attr(module, "gpu.container_module", Attribute::unit());
    Ok(())
}

/// Gives each compute of `funcs` outside a `tilegraph.kernel` that has no program (Roller's
/// construction leaves unchanged a compute whose reads its model cannot express: `mod`, a
/// `floordiv` of a `floordiv`, as ONNX's Flatten and ConvTranspose import) the tiles
/// `--connect` gives the op alone (Welder-none's kernel for it, what the lowering runs
/// for a one-op `tilegraph.kernel`), as `rtile.programs`, so that `--construct-rtile
/// --lower-to-gpu` lowers every compute of the module.
fn give_unconstructed_programs(
    ctx: &mut Context,
    funcs: &[OpId],
    device: &Device,
) -> Result<(), Diagnostic> {
    let bare: Vec<OpId> = funcs
        .iter()
        .flat_map(|&f| ctx.collect_ops(f))
        .filter(|&op| ctx.op_name(op) == COMPUTE && !in_kernel(ctx, op))
        .filter(|&op| selected_program(ctx, op).is_err())
        .collect();
    for op in bare {
        let (p, own) = alone_program(ctx, op, device).map_err(|e| {
            Diagnostic::op_error(
                ctx,
                op,
                format!("has no rtile.program and cannot be tiled alone: {e}"),
            )
        })?;
        rtile_dialects::rtile::set_programs(ctx, op, &[p], &own);
    }
    Ok(())
}

/// The program of `op` as `--connect` tiles it alone on `device`, with the compute's own
/// axis names ([`crate::connect::alone::alone_program`]).
fn alone_program(
    ctx: &Context,
    op: OpId,
    device: &Device,
) -> Result<(RProgram, Vec<String>), String> {
    crate::connect::alone::alone_program(ctx, op, device).map(|a| (a.program, a.axes))
}

/// True when `op` is a member of a `tilegraph.kernel`.
fn in_kernel(ctx: &Context, op: OpId) -> bool {
    ctx.parent_op(op)
        .is_some_and(|k| ctx.op_name(k) == rtile_dialects::tilegraph::KERNEL)
}

/// The device every compute of `funcs` is lowered for (its program's device): one per
/// `gpu.module`, since the module's target names one architecture. A compute outside a
/// kernel without a program takes the others' ([`give_unconstructed_programs`]).
fn module_device(
    ctx: &Context,
    funcs: &[OpId],
    given: Option<&Device>,
) -> Result<Option<Device>, Diagnostic> {
    let mut found: Option<Device> = None;
    let mut first: Option<OpId> = None;
    let mut bare: Option<Diagnostic> = None;
    for &f in funcs {
        for op in ctx.collect_ops(f) {
            if ctx.op_name(op) != COMPUTE {
                continue;
            }
            let dev = match selected_program(ctx, op) {
                Ok(p) => program_device(&p).map_err(|e| Diagnostic::op_error(ctx, op, e))?,
                // A member of a `tilegraph.kernel` without a program: the kernel's device.
                Err(d) => {
                    let Some(name) = ctx
                        .parent_op(op)
                        .filter(|&k| ctx.op_name(k) == rtile_dialects::tilegraph::KERNEL)
                        .and_then(|k| ctx.attr(k, rtile_dialects::tilegraph::DEVICE))
                        .and_then(|a| a.as_str())
                    else {
                        bare.get_or_insert(d);
                        continue;
                    };
                    Device::builtin(name).map_err(|e| Diagnostic::op_error(ctx, op, e.message))?
                }
            };
            match &found {
                Some(d) if d.name != dev.name => {
                    return Err(Diagnostic::op_error(
                        ctx,
                        op,
                        format!(
                            "is lowered for device '{}' but an earlier compute of the module for '{}': the kernels of one module share one gpu.module and its target",
                            dev.name, d.name
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    found = Some(dev);
                    first = Some(op);
                }
            }
        }
    }
    if let (Some(f), Some(g), Some(op)) = (&found, given, first)
        && f.name != g.name
    {
        return Err(Diagnostic::op_error(
            ctx,
            op,
            format!(
                "is lowered for device '{}' but lower-to-gpu's device option names '{}'",
                f.name, g.name
            ),
        ));
    }
    match (found.or_else(|| given.cloned()), bare) {
        (Some(d), _) => Ok(Some(d)),
        (None, Some(d)) => Err(d),
        (None, None) => Ok(None),
    }
}

/// Puts the device on the kernels' `gpu.module`: upstream's target attribute for its chip
/// (`targets = [#nvvm.target<chip = "sm_90">]`), which `rtile-translate` compiles for, and
/// `rtile.device` naming the description (cores, memories) the chip alone does not give.
fn mark_target(ctx: &mut Context, gpu_module: OpId, device: &Device) {
    let isa = device.target();
    let kind = match isa.backend.as_str() {
        "rocdl" => TargetKind::Rocdl,
        _ => TargetKind::Nvvm,
    };
    if !isa.chip.is_empty() {
        // wgmma and TMA are sm_90a features: a module using them targets the chip's `a`
        // variant (PTX `.target sm_90a`).
        let sm90a = rtile_gpu_vocab::nvgpu_sm90::uses_sm90_ops(ctx, gpu_module);
        let chip = if sm90a && !isa.chip.ends_with('a') {
            format!("{}a", isa.chip)
        } else {
            isa.chip.to_string()
        };
        let target = GpuTarget::new(kind, chip).to_attribute();
        let data = ctx.op_mut(gpu_module);
        let mut props = match data.properties.take().map(|p| p.kind()) {
            Some(AttrKind::Dictionary(v)) => v.clone(),
            _ => Vec::new(),
        };
        props.retain(|n| n.name != "targets");
        props.push(NamedAttribute {
            name: "targets".into(),
            value: Attribute::new(AttrKind::Array(vec![target])),
        });
        data.properties = Some(Attribute::dictionary(props));
    }
    ctx.set_attr(
        gpu_module,
        rtile_dialects::rtile::DEVICE,
        Attribute::new(AttrKind::String {
            value: device.name.clone(),
            ty: None,
        }),
    );
}

impl Pass for LowerToGpu {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let opts = LowerOptions {
            prefetch: self.opts.prefetch,
            thread_mapping: self.opts.thread_mapping,
            cross: (!self.opts.cross_thread).then_some(super::kernel::CrossThread::Off),
            tensor_core: self.opts.tensor_core,
            warp_specialize: self.opts.warp_specialize,
            one_kernel_results: self.opts.one_kernel_results,
        };
        let device = match self.opts.device.as_str() {
            "" => None,
            name => Some(Device::builtin(name).map_err(|e| {
                Diagnostic::op_error(ctx, op, format!("lower-to-gpu: {}", e.message))
            })?),
        };
        lower_module_on(
            ctx,
            op,
            stats,
            opts,
            self.opts.dedup_kernels,
            device.as_ref(),
        )
    }
}
