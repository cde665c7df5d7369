//! What one rTask is, for `--wavefront-pack` and for the persistent lowering alike: the
//! pack sizes the vDevice from each rKernel's threads, shared memory and registers (Rammer,
//! OSDI'20 §4.1.2: the vEUs follow from "the most demanding rTask"), and the lowering
//! launches one block per vEU of that shape. Both read the rTask's shape from here, so the
//! grid the pack counted is the grid the lowering checks for co-residency.
//!
//! **An rTask carries its cross-thread reduction split.** Rammer leaves an rTask's
//! granularity and computation logic to its rKernel (§3.1: "external heuristics", §3.3); here
//! the rKernel is a Roller rProgram lowered as `--lower-to-gpu` lowers it, and that includes
//! Roller's cross-thread reduction (§4: a reduction-heavy program whose block has few threads
//! gets `s` threads per output point, `reduction::auto_split`, resolved by the kernel plan's
//! `plan_split` and the lowering's search over its halvings). The split multiplies the
//! block's threads after the program is chosen, so it has to be part of the shape the pack
//! counts: without it a GEMV rTask (`[1×K]·[K×N]`, a block of a few dozen threads) walks
//! all of K on one thread (the full-size LSTM's gate GEMVs: 400 µs measured on an H200
//! against 23 µs modelled). [`RTaskShape::of`] asks the lowering's own plan search
//! ([`compute_plan`]) for the split, and [`rtask_options`] lowers the compute with exactly
//! that split (`CrossThread::Split(s)`), so the block the pack counted is the block launched.
//!
//! Barriers: a split rTask's tree (`reduction::cross_thread_tree`) synchronises its lanes
//! with block barriers (`gpu.barrier`, one per tree level plus one before it), not warp
//! shuffles: the lanes of one output point are `threads` apart in the block, in different
//! warps, so a shuffle could not reach them. Every thread of the rTask's own block reaches
//! each of them (the `lane < half` guards hold no barrier), and a vEU wider than the rTask
//! joins them from its surplus threads, which execute the body's statically counted barriers
//! (`kernel.rs`, "Surplus threads": the tree's count is a constant, `log2(s) + 1`).

use rtile_dialects::te::model::TeCompute;

use crate::construct_rtile::RProgram;
use crate::construct_rtile::rtile::thread_registers;
use crate::lower_to_gpu::context::REDUCTION_SLOT;
use crate::lower_to_gpu::kernel::{CrossThread, LowerOptions, compute_plan};
use crate::lower_to_gpu::launch::declared_shared_bytes;

/// An rTask's resources (per block of its rKernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RTaskShape {
    /// Threads of the block: the program's threads times [`Self::split`].
    pub threads: u64,
    /// Threads per output point of the cross-thread reduction (1: none).
    pub split: u64,
    /// Shared memory, bytes: the program's shared footprint (storage padding included),
    /// plus the cross-thread tree's buffer when split.
    pub smem: u64,
    /// Of [`Self::smem`], the cross-thread tree's buffer (0 unsplit).
    pub tree: u64,
    /// Registers per thread (Roller's estimate from the register footprint; a split lane
    /// keeps the same register tile).
    pub regs: u64,
}

impl RTaskShape {
    /// The shape of an rTask of compute `c` under Roller program `p`, lowered with
    /// [`rtask_options`]: the split is the one `--lower-to-gpu` gives `c` under `p` alone
    /// ([`compute_plan`]: `CrossThread::Auto`'s `auto_split` of the program's threads, the
    /// reduction points per output and the split axis's block tile, then the halving that
    /// keeps the most threads resident within the device's shared memory), and the tree's
    /// buffer is the plan's (outputs per thread × split × threads accumulators). A
    /// tensor-core program, or one the SIMT plan refuses, keeps the program's block.
    pub(crate) fn of(c: &TeCompute, p: &RProgram) -> RTaskShape {
        let unsplit = RTaskShape {
            threads: p.threads,
            split: 1,
            smem: p.footprint[1],
            tree: 0,
            regs: thread_registers(p.footprint[0]),
        };
        if p.tensor_core {
            return unsplit;
        }
        let Ok(plan) = compute_plan(c, p) else {
            return unsplit;
        };
        let tree: u64 = plan
            .shared_buffers
            .iter()
            .filter(|b| b.slot == REDUCTION_SLOT)
            .map(|b| b.bytes)
            .sum();
        // The shared memory the kernel declares (its buffers laid out with their alignment:
        // a few bytes over the footprint Roller counted), which the persistent lowering
        // checks the rTask against. A program with no recorded footprint (`--connect`'s
        // tiles, given to an op whose reads are beyond Roller's model) also takes the
        // registers of its accumulators (the rTile model's register count needs that model).
        let declared = declared_shared_bytes(&plan).saturating_sub(tree);
        let unsplit = if p.footprint[..2] == [0, 0] {
            let points: u64 = p.thread[..c.num_parallel().min(p.thread.len())]
                .iter()
                .product();
            let elem = u64::from(c.result.elem.width().div_ceil(8)).max(1);
            RTaskShape {
                smem: declared,
                regs: thread_registers(points * elem),
                ..unsplit
            }
        } else {
            RTaskShape {
                smem: unsplit.smem.max(declared),
                ..unsplit
            }
        };
        let split = plan.stages.first().map_or(1, |s| s.split.lanes).max(1) as u64;
        if split == 1 {
            return unsplit;
        }
        RTaskShape {
            threads: plan.block_threads as u64,
            split,
            smem: unsplit.smem + tree,
            tree,
            ..unsplit
        }
    }
}

/// The options a packed compute's kernel is lowered with: `opts` with the cross-thread split
/// of its rTask `shape` ([`RTaskShape::of`]), so its block has the shape's threads, and tensor
/// cores through `mma.sync` (an rTask body takes no TMA tensor maps). With the split turned
/// off (`cross-thread=false`) the rTask keeps the program's threads: fewer than the pack
/// counted, which the co-residency check accepts (it reads the lowered kernels).
pub(crate) fn rtask_options(opts: LowerOptions, shape: RTaskShape) -> LowerOptions {
    let cross = match opts.cross {
        Some(CrossThread::Off) => CrossThread::Off,
        _ if shape.split > 1 => CrossThread::Split(shape.split as u32),
        _ => CrossThread::Off,
    };
    LowerOptions {
        cross: Some(cross),
        tensor_core: crate::lower_to_gpu::mma::TensorCoreMode::MmaSync,
        ..opts
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rtile::ir::Context;
    use rtile_dialects::te::module::parse_computes;

    use super::*;
    use crate::construct_rtile::te_adapter::expr_from_compute;
    use crate::construct_rtile::{ConstructOptions, construct};
    use crate::device::Device;
    use crate::lower_to_gpu::kernel::lower_compute_opts;

    /// `[1×K]·[K×N]`, the LSTM gates' shape, with a long K.
    fn gemv(k: u64, n: u64) -> TeCompute {
        let text = format!(
            "func.func @g(%x: tensor<1x{k}xf32>, %w: tensor<{k}x{n}xf32>) -> tensor<1x{n}xf32> {{
  %y = te.compute (%b, %n) reduce (%k) in [1, {n}, {k}] : (tensor<1x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<1x{n}xf32> {{ te.sum(%x[%b, %k] * %w[%k, %n]) }}
  func.return %y : tensor<1x{n}xf32>
}}"
        );
        parse_computes("g.mlir", &text)
            .unwrap_or_else(|e| panic!("{e}"))
            .remove(0)
            .compute
    }

    /// Roller's best program for `c` on `device`, as `--wavefront-pack` constructs it.
    fn best_program(c: &TeCompute, device: &str) -> RProgram {
        let dev = Device::builtin(device).unwrap_or_else(|e| panic!("{}", e.message));
        let e = expr_from_compute(c).unwrap_or_else(|e| panic!("{e}"));
        let opts = ConstructOptions {
            top_k: 1,
            ..ConstructOptions::default()
        };
        let mut r = construct(&e, &dev, &opts).unwrap_or_else(|e| panic!("{e}"));
        assert!(!r.programs.is_empty());
        r.programs.remove(0)
    }

    fn context() -> Context {
        let mut ctx = Context::new(Arc::new(rtile_dialects::dialect_registry()));
        ctx.allow_unregistered = true;
        ctx
    }

    /// A GEMV rTask carries the split the ordinary lowering gives its program: threads =
    /// program threads × split, the tree's buffer on top of the program's shared footprint;
    /// the packed compute, lowered with `rtask_options`, launches exactly that block.
    #[test]
    fn gemv_rtask_carries_the_cross_thread_split() {
        // The full-size LSTM's gate GEMV on H200, and the lit test's (`split.mlir`) on V100.
        let cases = [
            (256, 256, "h200"),
            (2048, 64, "h100"),
            (2048, 64, "v100"),
            (128, 32, "v100"),
        ];
        for (k, n, device) in cases {
            let c = gemv(k, n);
            let p = best_program(&c, device);
            let shape = RTaskShape::of(&c, &p);
            let at = format!("K={k} N={n} on {device}: {p:?} -> {shape:?}");
            assert!(shape.split > 1, "{at}");
            assert!(shape.split.is_power_of_two(), "{at}");
            assert_eq!(shape.threads, p.threads * shape.split, "{at}");
            assert!(shape.smem > p.footprint[1], "{at}");
            assert_eq!(shape.regs, thread_registers(p.footprint[0]), "{at}");
            // The split is the one the ordinary lowering picks for the program.
            let mut ctx = context();
            let ordinary = lower_compute_opts(&mut ctx, &c, &p, "k0", LowerOptions::default())
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(ordinary.rsplit as u64, shape.split, "{at}");
            let opts = rtask_options(LowerOptions::default(), shape);
            assert_eq!(opts.cross, Some(CrossThread::Split(shape.split as u32)));
            let packed = lower_compute_opts(&mut ctx, &c, &p, "k1", opts)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(packed.launch.block_threads(), Some(shape.threads), "{at}");
            assert_eq!(packed.rsplit as u64, shape.split, "{at}");
            assert!(
                packed.shared_bytes <= shape.smem,
                "{at}: {}",
                packed.shared_bytes
            );
            // `cross-thread=false` keeps the program's block (smaller than counted).
            let off = LowerOptions {
                cross: Some(CrossThread::Off),
                ..LowerOptions::default()
            };
            let unsplit = lower_compute_opts(&mut ctx, &c, &p, "k2", rtask_options(off, shape))
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(unsplit.launch.block_threads(), Some(p.threads), "{at}");
            assert_eq!(unsplit.rsplit, 1, "{at}");
        }
    }

    /// A short reduction (fewer than 64 points per output, `auto_split`'s threshold) and an
    /// element-wise compute keep the program's block.
    #[test]
    fn short_reductions_and_elementwise_rtasks_are_not_split() {
        let c = gemv(32, 32);
        let p = best_program(&c, "h100");
        let shape = RTaskShape::of(&c, &p);
        assert_eq!(shape.split, 1, "{shape:?}");
        assert_eq!((shape.threads, shape.smem), (p.threads, p.footprint[1]));
        let ew = parse_computes(
            "e.mlir",
            "func.func @e(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %y = te.compute (%i, %j) in [64, 256] : (tensor<64x256xf32>) -> tensor<64x256xf32> { tanh(%x[%i, %j]) }
  func.return %y : tensor<64x256xf32>
}",
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
        .compute;
        let p = best_program(&ew, "h100");
        let shape = RTaskShape::of(&ew, &p);
        assert_eq!((shape.split, shape.threads), (1, p.threads), "{shape:?}");
    }
}
