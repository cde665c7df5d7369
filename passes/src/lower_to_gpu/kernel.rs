//! Lowers one `te.compute` under one rProgram to a `gpu.func` (built in a [`Context`]) and
//! its launch description, following Roller's rProgram loop nest (§3.2, Figure 6) and code
//! generation rules (§4): the program becomes a [`KernelPlan`] first, which the modules of
//! each concern then build; see `docs/passes/lower-to-gpu.md` for the kernel's shape.

use rtile::ir::{BlockId, Context, OpId, Type, Value};
use rtile_dialects::te::model::{TeCompute, TensorType};
use rtile_gpu_vocab::Launch;

use super::context::Lowering;
use super::elementwise::plan_elementwise_lanes;
use super::emit::Emitter;
use super::fuse::{FusedGroup, ReSrc, TailStage};
use super::launch::{
    build_gpu_func, check_shared_limit, declare_shared, declared_shared_bytes, resident_threads,
    shared_limit_of,
};
use super::plan::{Epilogue, InputSource, KernelPlan, StageBody};
use super::results::StageResult;
use super::shared_stage::{SharedStage, plan_shared_stages};
use super::thread_map::thread_coordinates;
use super::types::memref;
use crate::construct_rtile::RProgram;
use crate::construct_rtile::device_check::program_device;
use crate::device::Device;

pub use super::elementwise::ELEMENTWISE_UNROLL;
pub use super::launch::{
    DYNAMIC_SHARED_ALIGN, STATIC_SHARED_LIMIT, device_shared_limit, kernel_limits, shared_layout,
};
pub use super::reduction::{CrossThread, MAX_UNROLLED_POINTS, auto_split};
pub use super::staging::PREFETCH_MAX_REGISTERS;
pub use super::thread_map::ThreadMapping;

/// One lowered kernel.
#[derive(Clone, Debug)]
pub struct LoweredKernel {
    pub name: String,
    /// The `gpu.func` op, built detached in the context it was lowered in (the caller
    /// inserts it into a `gpu.module`, or erases it).
    pub func: OpId,
    /// Its launch: grid and block (x extents; y and z are 1), dynamic shared memory, and
    /// the arguments (the inputs' memrefs, then the output's).
    pub launch: Launch,
    /// Shared memory of the kernel's buffers, bytes (storage padding included): the static
    /// workgroup attributions, or the dynamic shared memory of the launch when the buffers
    /// exceed [`STATIC_SHARED_LIMIT`] (then laid out 16-byte aligned, see [`shared_layout`]).
    pub shared_bytes: u64,
    /// Accesses staged through shared memory (one flag per te access).
    pub staged: Vec<bool>,
    /// Accesses loaded with 16-byte vector loads.
    pub vectorized: Vec<bool>,
    /// Threads per output point of the cross-thread reduction (1: none).
    pub rsplit: i64,
    /// Whether the staged k-step tiles are register-prefetched (double buffered).
    pub prefetched: bool,
}

/// The reference text (`rtile.te`): a `func.func` holding `c` in custom form, whose
/// operands are the kernel's inputs in order.
pub fn reference_text(c: &TeCompute) -> String {
    use rtile_dialects::te::expr::{print_body, print_header};
    let names: Vec<String> = (0..c.inputs.len()).map(|i| format!("in{i}")).collect();
    let args: Vec<String> = c
        .inputs
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%in{i}: {}", t.text()))
        .collect();
    let r = c.result.text();
    format!(
        "func.func @ref({}) -> {r} {{ %r = te.compute {} {{ {} }} func.return %r : {r} }}",
        args.join(", "),
        print_header(c),
        print_body(c, &names)
    )
}

/// Lowers `c` under program `p` into kernel `name` (cross-thread reductions automatic).
///
/// The automatic split ([`auto_split`]) gives a small block more threads, but its reduction
/// buffer (`outputs per thread × split × threads` elements) comes on top of the program's
/// staged tiles, which the construction sized without it. Of the split and its halvings
/// (down to no split) that fit what a block of the program's device may use
/// ([`device_shared_limit`]; over 48 KiB the buffers are dynamic shared memory), the one
/// that keeps the most threads resident per core (thread, block and shared-memory limits of
/// the device) is kept, the larger split on ties. A kernel over the device's limit is refused.
///
/// The kernel's `gpu.func` is built detached in `ctx` ([`LoweredKernel::func`]).
pub fn lower_compute(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
) -> Result<LoweredKernel, String> {
    lower_compute_opts(ctx, c, p, name, LowerOptions::default())
}

/// Options of the lowering (the library form of `--lower-to-gpu`'s pass options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LowerOptions {
    /// The cross-thread reduction: `None` searches the automatic split and its halvings as
    /// [`lower_compute`] does; `Some(c)` lowers with `c` as [`lower_compute_with`] does.
    pub cross: Option<CrossThread>,
    /// Register-prefetch double buffering of the staged k-step tiles where it applies (see
    /// `docs/passes/lower-to-gpu.md`); `false` keeps the load-barrier-compute-barrier form.
    pub prefetch: bool,
    /// How a thread's points are spread along each spatial axis (see [`ThreadMapping`]).
    pub thread_mapping: ThreadMapping,
    /// Which tensor-core instructions tensor-core programs use.
    pub tensor_core: super::mma::TensorCoreMode,
    /// Whether wgmma kernels get a producer warpgroup (warp specialisation) where the block
    /// has room for it.
    pub warp_specialize: bool,
    /// Whether a `tilegraph.kernel` with several results lowers as one kernel writing all
    /// of them where `results::fuse_results` plans it (`false`: one kernel per result, the
    /// fallback; for comparisons).
    pub one_kernel_results: bool,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions {
            cross: None,
            prefetch: true,
            thread_mapping: ThreadMapping::Auto,
            tensor_core: super::mma::TensorCoreMode::default(),
            warp_specialize: true,
            one_kernel_results: true,
        }
    }
}

/// Lowers `c` under program `p` into kernel `name` with `opts` (built detached in `ctx`;
/// the candidates not kept are erased). The program's device is read once, here.
pub fn lower_compute_opts(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
    opts: LowerOptions,
) -> Result<LoweredKernel, String> {
    lower_searched(ctx, c, p, name, opts, None)
}

/// Lowers a fused `tilegraph.kernel` ([`FusedGroup`]) into kernel `name`: its anchor under
/// the program of its tiles, with its epilogue stage and the group's te chain as the
/// reference (`rtile.te`), searched over cross-thread splits as [`lower_compute_opts`].
pub fn lower_fused(
    ctx: &mut Context,
    g: &FusedGroup,
    name: &str,
    opts: LowerOptions,
) -> Result<LoweredKernel, String> {
    let fusion = Fusion::of(g);
    lower_searched(ctx, &g.anchor, &g.program, name, opts, Some(fusion))
}

/// What a fused kernel adds to the lowering of its anchor.
#[derive(Clone, Copy)]
struct Fusion<'a> {
    tail: Option<&'a TailStage>,
    reference: &'a str,
    sources: &'a [ReSrc],
    arg_types: &'a [TensorType],
    shared_stages: &'a [SharedStage],
    stage_results: &'a [StageResult],
}

impl<'a> Fusion<'a> {
    /// What fused group `g` adds (its lowering and its shared-memory query read the same).
    fn of(g: &'a FusedGroup) -> Self {
        Fusion {
            tail: g.tail.as_ref(),
            reference: &g.reference,
            sources: &g.sources,
            arg_types: &g.arg_types,
            shared_stages: &g.shared_stages,
            stage_results: &g.stage_results,
        }
    }
}

fn lower_searched(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
    opts: LowerOptions,
    fusion: Option<Fusion>,
) -> Result<LoweredKernel, String> {
    if p.tensor_core {
        // Tensor-core programs take the tensor-core lowering (its own plan and builders:
        // mma.sync, wgmma or MFMA).
        if fusion.is_some() {
            return Err("fused kernels under a tensor-core program are not lowered".into());
        }
        return super::mma::lower_tensor_core(
            ctx,
            c,
            p,
            name,
            opts.tensor_core,
            opts.warp_specialize,
        );
    }
    let pf = (opts.prefetch, opts.thread_mapping);
    let device = program_device(p);
    let limit = shared_limit_of(&device, p)?;
    let dev = device.as_ref().ok();
    if let Some(cross) = opts.cross {
        let k = lower_kernel(ctx, (c, p, fusion), dev, name, cross, pf)?;
        if let Err(e) = check_shared_limit(&k, p, limit) {
            ctx.erase_op(k.func);
            return Err(e);
        }
        return Ok(k);
    }
    let dev_ref: &Device = device.as_ref().map_err(Clone::clone)?;
    let first = lower_kernel(ctx, (c, p, fusion), dev, name, CrossThread::Auto, pf)?;
    let mut split = first.rsplit;
    let mut best: Option<(u64, LoweredKernel)> = None;
    let mut candidate = Some(first);
    let result = loop {
        let lowered = match candidate.take() {
            Some(k) => Ok(k),
            None if split > 1 => lower_kernel(
                ctx,
                (c, p, fusion),
                dev,
                name,
                CrossThread::Split(split as u32),
                pf,
            ),
            None => lower_kernel(ctx, (c, p, fusion), dev, name, CrossThread::Off, pf),
        };
        let k = match lowered {
            Ok(k) => k,
            Err(e) => break Err(e),
        };
        if k.shared_bytes <= limit {
            // A lowered kernel's block is always known (built by `Launch::new`).
            let threads = k.launch.block_threads().unwrap_or(0);
            let r = resident_threads(dev_ref, threads, k.shared_bytes);
            if best.as_ref().is_none_or(|(b, _)| r > *b) {
                if let Some((_, old)) = best.replace((r, k)) {
                    ctx.erase_op(old.func);
                }
            } else {
                ctx.erase_op(k.func);
            }
        } else {
            let over = check_shared_limit(&k, p, limit);
            ctx.erase_op(k.func);
            if split <= 1
                && let Err(e) = over
            {
                break Err(e);
            }
        }
        if split <= 1 {
            break Ok(());
        }
        split /= 2;
    };
    if let Err(e) = result {
        if let Some((_, k)) = best {
            ctx.erase_op(k.func);
        }
        return Err(e);
    }
    best.map(|(_, k)| k)
        .ok_or_else(|| "internal error: no split was lowered".to_string())
}

/// Lowers `c` under program `p` into kernel `name` with the cross-thread reduction `cross`;
/// refuses a kernel whose shared memory exceeds what a block of the program's device may use.
pub fn lower_compute_with(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
    cross: CrossThread,
) -> Result<LoweredKernel, String> {
    lower_compute_opts(
        ctx,
        c,
        p,
        name,
        LowerOptions {
            cross: Some(cross),
            ..LowerOptions::default()
        },
    )
}

/// The lowering proper (no device limit): the plan, then the kernel built from it. A kernel
/// that cannot be lowered leaves nothing behind in `ctx`.
fn lower_kernel(
    ctx: &mut Context,
    (c, p, fusion): (&TeCompute, &RProgram, Option<Fusion>),
    device: Option<&Device>,
    name: &str,
    cross: CrossThread,
    pf: (bool, ThreadMapping),
) -> Result<LoweredKernel, String> {
    let plan = kernel_plan((c, p, fusion), device, cross, pf)?;
    let mut entry = None;
    let lowered = build_kernel(ctx, &plan, name, fusion, &mut entry);
    if lowered.is_err()
        && let Some(b) = entry
    {
        ctx.erase_block(b);
    }
    lowered
}

/// The plan of `c` under `p` (with a fused kernel's stages), as [`lower_kernel`] builds it.
fn kernel_plan(
    (c, p, fusion): (&TeCompute, &RProgram, Option<Fusion>),
    device: Option<&Device>,
    cross: CrossThread,
    pf: (bool, ThreadMapping),
) -> Result<KernelPlan, String> {
    let mut plan = KernelPlan::new(c, p, device, cross, pf)?;
    plan.tail = fusion.and_then(|f| f.tail.cloned());
    if let Some(f) = fusion {
        plan.sources = f.sources.to_vec();
        plan.stage_results = f.stage_results.to_vec();
        let results: Vec<usize> = f.stage_results.iter().map(|r| r.stage).collect();
        plan_shared_stages(&mut plan, p, f.shared_stages, &results)?;
        // Recomputed inputs have no memory to move 16 bytes at a time from.
        if f.sources
            .iter()
            .any(|s| matches!(s, ReSrc::Recompute(_) | ReSrc::Shared(_)))
            && let Some(stage) = plan.stages.first_mut()
            && let StageBody::Elementwise(e) = &stage.body
            && e.vector_lanes > 1
        {
            let spatial = stage.spatial();
            stage.body = StageBody::Elementwise(plan_elementwise_lanes(stage, &spatial, false)?);
        }
    }
    Ok(plan)
}

/// The fewest bytes of shared memory per block the lowering (default options) gives `c`
/// under `p` with `fusion`: the plans [`lower_searched`] tries (the automatic cross-thread
/// split and none: halvings in between need no less than none) through the same buffer
/// layout the kernel declares ([`declared_shared_bytes`]); no IR is built. `Err` when
/// neither plans.
fn least_shared_bytes(c: &TeCompute, p: &RProgram, fusion: Option<Fusion>) -> Result<u64, String> {
    let o = LowerOptions::default();
    let device = program_device(p);
    let mut best: Result<u64, String> = Err("internal error: no plan tried".into());
    for cross in [CrossThread::Off, CrossThread::Auto] {
        match kernel_plan(
            (c, p, fusion),
            device.as_ref().ok(),
            cross,
            (o.prefetch, o.thread_mapping),
        ) {
            Ok(plan) => {
                let b = declared_shared_bytes(&plan);
                best = Ok(best.map_or(b, |x| x.min(b)));
            }
            Err(e) if best.is_err() => best = Err(e),
            Err(_) => {}
        }
    }
    best
}

/// Shared memory per block the lowering needs for the fused kernel `g` (the least of the
/// cross-thread variants it tries, [`least_shared_bytes`]), without building it: what
/// `--connect` checks a candidate kernel against the device's limit with (Welder §4.1:
/// over capacity is an infinite cost; here the capacity test is the lowering's own plan).
pub fn fused_shared_bytes(g: &FusedGroup) -> Result<u64, String> {
    let fusion = Fusion::of(g);
    least_shared_bytes(&g.anchor, &g.program, Some(fusion))
}

/// The plan `--lower-to-gpu` (default options) lowers the fused kernel `g` with, chosen as
/// [`lower_fused`] chooses it (the automatic cross-thread split and its halvings down to
/// none; of those within the device's shared memory, the one keeping the most threads
/// resident per core, the larger split on ties), without building IR: what the beam
/// search's features count the staged loads and shared reads of (OOPSLA'21 Appendix A,
/// `autoschedule_beam::staged`).
pub fn fused_plan(g: &FusedGroup) -> Result<KernelPlan, String> {
    searched_plan(&g.anchor, &g.program, Some(Fusion::of(g)))
}

/// The plan `--lower-to-gpu` (default options) lowers compute `c` under SIMT program `p`
/// with, chosen as [`lower_compute`] chooses it (the automatic cross-thread split and its
/// halvings, see [`fused_plan`]), without building IR: what a packed rTask's shape reads its
/// cross-thread split from (`persistent::RTaskShape::of`).
pub fn compute_plan(c: &TeCompute, p: &RProgram) -> Result<KernelPlan, String> {
    searched_plan(c, p, None)
}

/// [`fused_plan`] and [`compute_plan`]: the search of [`lower_searched`] over plans.
fn searched_plan(
    c: &TeCompute,
    p: &RProgram,
    fusion: Option<Fusion>,
) -> Result<KernelPlan, String> {
    let o = LowerOptions::default();
    let pf = (o.prefetch, o.thread_mapping);
    let device = program_device(p);
    let limit = shared_limit_of(&device, p)?;
    let dev: &Device = device.as_ref().map_err(Clone::clone)?;
    let first = kernel_plan((c, p, fusion), Some(dev), CrossThread::Auto, pf)?;
    let mut split = first.stages.first().map_or(1, |s| s.split.lanes);
    let mut best: Option<(u64, KernelPlan)> = None;
    let mut candidate = Some(first);
    loop {
        let plan = match candidate.take() {
            Some(k) => k,
            None if split > 1 => kernel_plan(
                (c, p, fusion),
                Some(dev),
                CrossThread::Split(split as u32),
                pf,
            )?,
            None => kernel_plan((c, p, fusion), Some(dev), CrossThread::Off, pf)?,
        };
        let bytes = declared_shared_bytes(&plan);
        if bytes <= limit {
            let r = resident_threads(dev, plan.block_threads as u64, bytes);
            if best.as_ref().is_none_or(|(b, _)| r > *b) {
                best = Some((r, plan));
            }
        } else if split <= 1 {
            return Err(format!(
                "{bytes} bytes of shared memory per block exceed the device's {limit}"
            ));
        }
        if split <= 1 {
            break;
        }
        split /= 2;
    }
    best.map(|(_, k)| k)
        .ok_or_else(|| "internal error: no split was planned".to_string())
}

/// [`fused_shared_bytes`] of one compute under program `p` (a kernel of one te op).
pub fn compute_shared_bytes(c: &TeCompute, p: &RProgram) -> Result<u64, String> {
    least_shared_bytes(c, p, None)
}

/// Builds the kernel of `plan`; `entry` is its entry block once made (for [`lower_kernel`]
/// to erase on failure).
fn build_kernel(
    ctx: &mut Context,
    plan: &KernelPlan,
    name: &str,
    fusion: Option<Fusion>,
    entry_out: &mut Option<BlockId>,
) -> Result<LoweredKernel, String> {
    let stage = plan
        .stages
        .first()
        .ok_or("internal error: a plan without a stage")?;
    let c = &stage.compute;
    // The kernel's entry block, detached until the `gpu.func` is built around it: the
    // inputs, then the output (shared buffers join as workgroup attributions later).
    // inputs (a fused kernel's: the values its stages read from outside it), then the
    // output (the epilogue stage's when there is one).
    let mut arg_types: Vec<Type> = match fusion {
        Some(f) => f
            .arg_types
            .iter()
            .map(|t| memref(&t.shape, t.elem))
            .collect(),
        None => c.inputs.iter().map(|t| memref(&t.shape, t.elem)).collect(),
    };
    let mut result = &c.result;
    if let Some(t) = &plan.tail {
        if !matches!(stage.body, StageBody::Reduction(_)) {
            return Err(
                "internal error: an epilogue stage after a stage without a reduction".into(),
            );
        }
        result = &t.compute.result;
    }
    // A kernel with several results: the other results' outputs before the anchor's.
    let n_in = arg_types.len();
    for r in &plan.stage_results {
        let t = &plan.shared_stages[r.stage].compute.result;
        arg_types.push(memref(&t.shape, t.elem));
    }
    arg_types.push(memref(&result.shape, result.elem));
    let entry = ctx.create_block(arg_types.clone());
    *entry_out = Some(entry);
    let args = ctx.block_args(entry).to_vec();
    let (kargs, output) = (args[..n_in].to_vec(), args[args.len() - 1]);
    let stage_outputs = args[n_in..args.len() - 1].to_vec();
    // Per stage input its memref; a recomputed input has none (the output stands in, never
    // read: `point_loads` computes it).
    let inputs: Vec<Value> = if plan.sources.is_empty() {
        kargs.clone()
    } else {
        plan.sources
            .iter()
            .map(|s| match s {
                ReSrc::Arg(k) => kargs[*k],
                ReSrc::Recompute(_) | ReSrc::Shared(_) => output,
            })
            .collect()
    };
    let mut cx = Lowering::new(plan, stage, Emitter::new(ctx, entry), inputs, output);
    cx.args = kargs.clone();
    // The staged data tiles' buffers and the cross-thread reduction's, made before the
    // body that uses them.
    let shared = declare_shared(&mut cx, &plan.shared_buffers);
    let ids = thread_coordinates(&mut cx);
    // A fused kernel's shared stages, each between barriers, before the anchor's loop.
    cx.materialize(ids.tid)?;
    for (r, &out) in plan.stage_results.iter().zip(&stage_outputs) {
        cx.write_stage_result(r, out, ids.tid)?;
    }
    match &stage.body {
        StageBody::Reduction(r) => {
            let mut tile = Some(cx.init_register_tile(r));
            let steps = cx.open_k_steps(&mut tile, ids.tid);
            let mut tile = tile.ok_or("internal error: no register tile")?;
            cx.reduce(r, &mut tile, steps, ids)?;
            match stage.epilogue {
                Epilogue::CrossThreadTree { .. } => {
                    cx.cross_thread_tree(r, &tile, ids);
                    cx.store_lane_zero(ids)?;
                }
                Epilogue::StoreRegisterTile | Epilogue::StoreEachPoint => {
                    cx.store_register_tile(&tile)?;
                }
            }
        }
        // No reduction axis, so no k-step loop: `open_k_steps` only loads the staged tiles
        // (if the program stages any) once, before the body reads them.
        StageBody::Elementwise(e) => {
            cx.open_k_steps(&mut None, ids.tid);
            cx.elementwise(e)?;
        }
        StageBody::SinglePoint => {
            cx.open_k_steps(&mut None, ids.tid);
            cx.store_each_point()?;
        }
    }
    // Assemble the gpu.func around the entry block.
    let mut prologue_ops = std::mem::take(&mut cx.collapse_ops);
    prologue_ops.extend(shared.prologue);
    let extent = |n: i64, what: &str| {
        u32::try_from(n).map_err(|_| {
            format!("the kernel's {what} of {n} does not fit a launch's 32-bit extent")
        })
    };
    let launch = Launch::new(
        [extent(plan.blocks, "grid")?, 1, 1],
        [extent(plan.block_threads, "block")?, 1, 1],
        shared.dynamic_bytes,
        arg_types,
    );
    cx.em.finish(&prologue_ops);
    let func = build_gpu_func(
        ctx,
        entry,
        name,
        &launch,
        (
            shared.attributions,
            fusion.map_or_else(|| reference_text(c), |f| f.reference.to_string()),
        ),
    );
    if !plan.shared_stages.is_empty() {
        // How many producers the kernel computes into shared memory (Welder §3.2).
        ctx.set_attr(
            func,
            rtile_dialects::rtile::SHARED_STAGES,
            rtile::ir::Attribute::i64(plan.shared_stages.len() as i64),
        );
    }
    let stepped = plan
        .shared_stages
        .iter()
        .filter(|s| s.step.is_some())
        .count();
    if stepped > 0 {
        // How many of them it computes in k-steps (`shared_steps`).
        ctx.set_attr(
            func,
            rtile_dialects::rtile::STEPPED_STAGES,
            rtile::ir::Attribute::i64(stepped as i64),
        );
    }
    let shared_bytes = declared_shared_bytes(plan);
    debug_assert_eq!(
        shared_bytes,
        if shared.dynamic_bytes > 0 {
            shared.dynamic_bytes
        } else {
            plan.shared_bytes
        }
    );
    Ok(LoweredKernel {
        name: name.to_string(),
        func,
        launch,
        shared_bytes,
        staged: stage
            .inputs
            .iter()
            .map(|a| a.source != InputSource::Global)
            .collect(),
        vectorized: plan.staging.vectorized.clone(),
        rsplit: stage.split.lanes,
        prefetched: plan.staging.prefetch,
    })
}
