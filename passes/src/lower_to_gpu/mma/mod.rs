//! The tensor-core lowering of `--lower-to-gpu` (sm_80 mma.sync here; sm_90a wgmma in
//! [`wgmma`]; AMD CDNA2 MFMA in [`mfma`], on the same [`MmaPlan`]): a `te.compute` under a
//! tensor-core rProgram (`tensor_core = true`, Roller §5.1 "Compile on TensorCore": a warp
//! tile of whole MMA instructions) becomes a `gpu.func` with
//! - global→shared copies through `nvgpu.device_async_copy` in a multi-stage pipeline (as
//!   many stages as fit the block's shared memory, up to [`plan::MAX_STAGES`], down to one
//!   rather than dropping the tile; recorded as `rtile.pipeline_stages`),
//! - shared tiles padded so each row is an odd number of 16-byte units: the 8 row addresses
//!   of one `nvgpu.ldmatrix` phase fall in 8 distinct groups of 4 banks (conflict-free),
//! - `nvgpu.mma.sync` m16n8k16 with f32 accumulators per warp tile (an sm_90 program's
//!   warpgroup tile split by rows over its 4 warps),
//! - an epilogue storing each fragment converted to the result type, guarded where the grid
//!   pads an extent;
//! - for a convolution, a program over its implicit GEMM view `[M = n*y*x, N = f, K]`
//!   ([`crate::construct_rtile::implicit_gemm`]): A, the im2col of the data, gathered into
//!   shared memory with plain loads (zero padding selected), B the weights through a
//!   `memref.collapse_shape` to a matrix, the rest as for a matmul.
//!
//! See `docs/passes/lower-to-gpu.md` ("Tensor cores").

pub mod kernel;
pub mod mfma;
pub mod plan;
pub mod wgmma;

use rtile::ir::{Attribute, Context, Type, Value};
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::tensor::reassociation_attr;
use rtile_gpu_vocab::Launch;

use super::emit::Emitter;
use super::kernel::{LoweredKernel, reference_text};
use super::launch::build_gpu_func;
use super::types::{dynamic_shared_bytes, memref};
use crate::construct_rtile::RProgram;
use crate::construct_rtile::device_check::program_device;
use kernel::{MmaBuild, tile_type};
pub use plan::{Family, MmaPlan, OperandPlan};

/// The attribute recording the kernel's pipeline stages.
pub use rtile_dialects::rtile::PIPELINE_STAGES;

/// Which tensor-core instructions `--lower-to-gpu` emits (`tensor-core=..`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TensorCoreMode {
    /// sm_80 `mma.sync` with ldmatrix and cp.async on every device.
    MmaSync,
    /// sm_90a `wgmma` with TMA and mbarriers where the program and compute allow it
    /// ([`wgmma::WgmmaPlan::new`]: an sm_90 device), else `mma.sync`. The default: on the
    /// H200, wgmma ran the same constructed 4096³ program 2.0× faster than mma.sync, and
    /// 64×128 warpgroup tiles at cuBLAS's speed (PERF.md, issue 16).
    #[default]
    Auto,
    /// sm_90a `wgmma`, or an error saying why it does not apply.
    Wgmma,
}

impl TensorCoreMode {
    /// `mma-sync`, `auto` or `wgmma`.
    pub fn parse(text: &str) -> Option<TensorCoreMode> {
        match text {
            "mma-sync" => Some(TensorCoreMode::MmaSync),
            "auto" => Some(TensorCoreMode::Auto),
            "wgmma" => Some(TensorCoreMode::Wgmma),
            _ => None,
        }
    }

    /// The option's spelling.
    pub fn keyword(self) -> &'static str {
        match self {
            TensorCoreMode::MmaSync => "mma-sync",
            TensorCoreMode::Auto => "auto",
            TensorCoreMode::Wgmma => "wgmma",
        }
    }
}

/// Lowers `c` under the tensor-core program `p` into kernel `name` (built detached in
/// `ctx`; nothing is left behind on failure), with wgmma where `mode` asks for it,
/// warp-specialised where `warp_specialize` asks for it and the block has room.
pub fn lower_tensor_core(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
    mode: TensorCoreMode,
    warp_specialize: bool,
) -> Result<LoweredKernel, String> {
    let dev = program_device(p)?;
    let plan = MmaPlan::new(c, p, &dev)?;
    if plan.family != Family::MmaSync && mode == TensorCoreMode::Wgmma {
        return Err(format!(
            "tensor-core=wgmma: device '{}' is AMD (MFMA); wgmma is an sm_90a instruction",
            dev.name
        ));
    }
    if mode != TensorCoreMode::MmaSync && plan.family == Family::MmaSync {
        match wgmma::WgmmaPlan::new(c, &plan, &dev, warp_specialize) {
            Ok(w) => return wgmma::lower_wgmma(ctx, c, &w, name),
            Err(e) if mode == TensorCoreMode::Wgmma => {
                return Err(format!("tensor-core=wgmma: {e}"));
            }
            Err(_) => {}
        }
    }
    lower_plan(ctx, c, &plan, name)
}

/// Builds the kernel of `plan`.
pub fn lower_plan(
    ctx: &mut Context,
    c: &TeCompute,
    plan: &MmaPlan,
    name: &str,
) -> Result<LoweredKernel, String> {
    let mut arg_types: Vec<Type> = c.inputs.iter().map(|t| memref(&t.shape, t.elem)).collect();
    arg_types.push(memref(&c.result.shape, c.result.elem));
    let entry = ctx.create_block(arg_types.clone());
    let args = ctx.block_args(entry).to_vec();
    let output = args[args.len() - 1];
    let mut em = Emitter::new(ctx, entry);
    let mut prologue = Vec::new();
    // Each operand's matrix view: a convolution's weights collapsed to `[n, k]`/`[k, n]`.
    let mut global = [args[0]; 2];
    for (w, o) in plan.ops.iter().enumerate() {
        let t = &c.inputs[c.accesses[o.access].input];
        global[w] = args[c.accesses[o.access].input];
        if let Some(groups) = &o.collapse {
            let (op, v) = em.at_entry(
                "memref.collapse_shape",
                &[global[w]],
                &[("reassociation", reassociation_attr(groups))],
                memref(&o.shape, t.elem),
            );
            prologue.push(op);
            global[w] = v;
        }
    }
    let types = [
        tile_type(&plan.ops[0], plan.stages, plan.input),
        tile_type(&plan.ops[1], plan.stages, plan.input),
    ];
    let dynamic = plan.shared_bytes > plan.static_limit;
    let shared = if dynamic {
        // Over the static limit: views of the launch's dynamic shared memory (each tile's
        // bytes are a multiple of 16, so B's view stays 16-byte aligned for ldmatrix; of 8
        // for MFMA's 8-byte LDS accesses).
        let (base_op, base) = em.at_entry(
            "gpu.dynamic_shared_memory",
            &[],
            &[],
            dynamic_shared_bytes(),
        );
        prologue.push(base_op);
        let a_bytes = plan.ops[0].alloc_rows * plan.ops[0].stride() * 2 * plan.stages;
        let mut views = Vec::new();
        for (i, off) in [0, a_bytes].into_iter().enumerate() {
            let value = Attribute::int(off, Type::index());
            let (c_op, c) = em.at_entry("arith.constant", &[], &[("value", value)], Type::index());
            let (v_op, v) = em.at_entry("memref.view", &[base, c], &[], types[i]);
            prologue.extend([c_op, v_op]);
            views.push(v);
        }
        [views[0], views[1]]
    } else {
        let ctx = em.builder().ctx_mut();
        [
            ctx.add_block_argument(entry, types[0], None),
            ctx.add_block_argument(entry, types[1], None),
        ]
    };
    let mut b = MmaBuild {
        em,
        plan,
        global,
        shared,
        output,
        ids: None,
        pending: None,
    };
    b.make_ids();
    if plan.family == Family::MmaSync {
        let acc = pipeline(&mut b);
        b.epilogue(&acc);
    } else {
        let acc = b.mfma_pipeline();
        b.mfma_epilogue(&acc);
    }
    b.em.finish(&prologue);
    let launch = Launch::new(
        [plan.blocks as u32, 1, 1],
        [plan.threads as u32, 1, 1],
        if dynamic { plan.shared_bytes } else { 0 },
        arg_types,
    );
    let attributions = if dynamic { 0 } else { 2 };
    let func = build_gpu_func(ctx, entry, name, &launch, (attributions, reference_text(c)));
    ctx.set_attr(func, PIPELINE_STAGES, Attribute::i64(plan.stages));
    Ok(LoweredKernel {
        name: name.to_string(),
        func,
        launch,
        shared_bytes: plan.shared_bytes,
        staged: vec![true; c.accesses.len()],
        // 16-byte cp.async copies; MFMA's widest plain copies (8 bytes).
        vectorized: plan
            .ops
            .iter()
            .map(|o| o.chunk == plan.family.max_chunk())
            .collect::<Vec<_>>(),
        rsplit: 1,
        prefetched: false,
    })
}

/// The k-step loop of the cp.async pipeline; returns the accumulators after it.
///
/// With `S ≥ 2` stages: k-steps `0..S-1` are issued before the loop and waited for down to
/// `S-2` pending groups (so k-step 0 has landed); iteration `kt` issues k-step `kt+S-1` into
/// the stage k-step `kt-1` used (every warp finished it before the previous iteration's
/// barrier), computes k-step `kt`, then waits until at most `S-2` groups are pending (k-step
/// `kt+1` has landed) and synchronises the block. Copies past the last k-step zero-fill.
/// With one stage each iteration copies, waits, synchronises, computes and synchronises.
fn pipeline(b: &mut MmaBuild) -> Vec<Value> {
    let p = b.plan;
    let s = p.stages;
    let acc0 = b.zero_accumulators();
    let (zero, one) = (b.em.idx(0), b.em.idx(1));
    let steps = b.em.idx(p.k_steps);
    if s == 1 {
        let (kt, acc, res) = b.em.begin_for(zero, steps, one, &acc0);
        let g = b.load_stage(kt, zero, false);
        b.wait(g, 0);
        b.em.barrier();
        let next = b.compute_stage(zero, &acc);
        b.em.barrier();
        b.em.end_for(&next);
        return res;
    }
    let mut g = None;
    for st in 0..s - 1 {
        let v = b.em.idx(st);
        g = b.load_stage(v, v, false);
    }
    b.wait(g, s - 2);
    b.em.barrier();
    let (kt, acc, res) = b.em.begin_for(zero, steps, one, &acc0);
    let ahead = b.em.idx(s - 1);
    let nk = b.em.add(kt, ahead);
    let sv = b.em.idx(s);
    let nst = b.em.ibin("arith.remui", nk, sv);
    let g = b.load_stage(nk, nst, true);
    let cur = b.em.ibin("arith.remui", kt, sv);
    let next = b.compute_stage(cur, &acc);
    b.wait(g, s - 2);
    b.em.barrier();
    b.em.end_for(&next);
    res
}
