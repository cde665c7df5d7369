//! The kernel plan: a named, inspectable description of the kernel `--lower-to-gpu` builds
//! for one selected `#rtile.program`, made from the program, the `te.compute` and the
//! device before any IR is built. The modules that build IR (`staging`, `thread_map`,
//! `reduction`, `epilogue`, `elementwise`, `launch`) read it and decide nothing of their
//! own; see `docs/passes/lower-to-gpu.md` ("The kernel plan").
//!
//! Roller's one-op rProgram is the one-stage plan: [`KernelPlan::stages`] holds exactly one
//! [`StagePlan`] today, a `Vec` so that a fused kernel can add more.

use rtile::ir::Type;
use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::{Combiner, ElemType, TeCompute};

use super::launch::fallback_limits;
use super::reduction::CrossThread;
use super::staging::{StagedTile, plan_prefetch, plan_staged};
use super::thread_map::{ThreadMapping, Transpose};
use super::types::shared_memref;
use crate::construct_rtile::{AffineIndex, RProgram, TensorExprInfo};
use crate::device::{Device, KernelLimits};
use build::{plan_axes, plan_body, plan_inputs, plan_split, plan_thread_map};

/// The plan of one kernel.
#[derive(Clone, Debug)]
pub struct KernelPlan {
    /// The device the program names, read once for the whole lowering; `None` when it
    /// cannot be read (a hand-written program naming an unknown device: NVIDIA's limits,
    /// no register prefetch).
    pub device: Option<Device>,
    /// The per-kernel limits of [`Self::device`].
    pub limits: KernelLimits,
    /// The thread-mapping option the plan was made with.
    pub thread_mapping: ThreadMapping,
    /// The stages, in execution order (today exactly one).
    pub stages: Vec<StagePlan>,
    /// Blocks per spatial view axis (row-major: the last spatial axis fastest).
    pub grid: Vec<i64>,
    /// Blocks of the launch (the product of [`Self::grid`]).
    pub blocks: i64,
    /// Threads that own a thread tile (one per point of the block tile / thread tile).
    pub threads: i64,
    /// Threads of the launch's block: [`Self::threads`] times the cross-thread split.
    pub block_threads: i64,
    /// The shared-memory layer: staged tiles and register prefetch.
    pub staging: StagingPlan,
    /// The shared buffers in declaration order: one per staged tile, then the
    /// cross-thread reduction's.
    pub shared_buffers: Vec<SharedBuffer>,
    /// Bytes of [`Self::shared_buffers`] (padding included, before any dynamic layout).
    pub shared_bytes: u64,
    /// A register-connected element-wise consumer of the stage's result (Welder §3.4):
    /// applied to each point of the result before the store, which then writes the
    /// consumer's output (`None`: the stage's own result is stored).
    pub tail: Option<super::fuse::TailStage>,
    /// Per input of the stage, in a fused kernel: a kernel argument, or a register-connected
    /// reduction recomputed where it is read; empty: input `i` is argument `i`.
    pub sources: Vec<super::fuse::ReSrc>,
    /// A fused kernel's shared stages (Welder §3.2), computed before the stage's loop.
    pub shared_stages: Vec<super::shared_stage::SharedStage>,
    /// The shared stages a fused kernel with several results writes out to global memory
    /// (`super::results`), in output order before the stage's own output.
    pub stage_results: Vec<super::results::StageResult>,
    /// The shared buffers' byte offsets (per [`Self::shared_buffers`]) and the bytes they
    /// span, when a best-fit plan laid them out (a fused kernel with shared stages: one
    /// dynamic shared allocation, buffers whose lifetimes do not overlap sharing space);
    /// `None`: one after the other.
    pub shared_layout: Option<(Vec<u64>, u64)>,
}

/// One te op of a kernel: its tiles per memory layer, where its inputs come from, where its
/// output goes, its reduction and its epilogue.
#[derive(Clone, Debug)]
pub struct StagePlan {
    pub compute: TeCompute,
    /// The compute as the construction sees it, over the program's (possibly fused) axes.
    pub view: TensorExprInfo,
    /// The view axes, outermost first.
    pub axes: Vec<AxisPlan>,
    /// Per te access, in the body's order.
    pub inputs: Vec<InputPlan>,
    /// Storage padding of each distinct read's shared tile, per view dim (the program's).
    pub pads: Vec<Vec<i64>>,
    /// Where the output goes.
    pub output: OutputTarget,
    /// The reduction axes with more than one k-step and their step counts.
    pub k_steps: Vec<(usize, i64)>,
    /// The cross-thread split of the reduction.
    pub split: CrossThreadPlan,
    /// What the threads compute.
    pub body: StageBody,
    /// How the results reach the output.
    pub epilogue: Epilogue,
}

/// One view axis of a stage and its tile at each memory layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisPlan {
    pub name: String,
    pub extent: i64,
    /// The block's tile (the shared-memory layer rTile): a block's span, or one k-step.
    pub block_tile: i64,
    /// The thread's tile (the register layer rTile).
    pub thread_tile: i64,
    pub reduction: bool,
    /// Threads along the axis: `block_tile / thread_tile` on spatial axes, 1 on reduction
    /// axes.
    pub threads: i64,
    /// The compute's axes this view axis fuses (one when unfused).
    pub original_axes: Vec<usize>,
    /// Whether a thread's points along it are blocked (runs of 4 consecutive points) rather
    /// than interleaved (see [`ThreadMapping`]).
    pub blocked: bool,
}

impl AxisPlan {
    /// Whether the grid (or the k-steps) run past the extent, so points need a guard.
    pub fn padded(&self) -> bool {
        self.extent % self.block_tile != 0
    }
    /// Tiles of the block tile covering the extent (blocks, or k-steps).
    pub fn steps(&self) -> i64 {
        (self.extent + self.block_tile - 1) / self.block_tile
    }
}

/// One te access of a stage.
#[derive(Clone, Debug)]
pub struct InputPlan {
    /// The compute's input it reads.
    pub input: usize,
    /// Its index expressions over the compute's axes (for global reads).
    pub map: Vec<AffineExpr>,
    /// The input's shape and element type.
    pub shape: Vec<i64>,
    pub elem: ElemType,
    pub pad: Option<f64>,
    /// The distinct read (input, index map) this access is: what the program's padding
    /// and the shared buffers are indexed by.
    pub read: usize,
    pub source: InputSource,
}

/// Where an input's values come from at each point.
#[derive(Clone, Debug, PartialEq)]
pub enum InputSource {
    /// Read from global memory at each point (guarded where the access pads).
    Global,
    /// Read from the staged shared tile of its distinct read.
    Shared(SharedRead),
}

/// A staged access in the (possibly fused) view.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedRead {
    /// The view indices, linear over view axes.
    pub indices: Vec<AffineIndex>,
    pub view_shape: Vec<i64>,
    /// The tensor's own dims behind each view dim.
    pub tensor_dims: Vec<Vec<usize>>,
    /// The spatial axis along which a blocked thread reads 4 values at once.
    pub vector_axis: Option<usize>,
    /// The transposed shared layout, when the tile has one.
    pub transpose: Option<Transpose>,
    /// Per view dim, where this access lies in its read group's box: its constant offset
    /// above the group's lowest (a stencil tap `I[y + 1, x + 2]` of a 5×5 box: `[1, 2]`).
    pub offset: Vec<i64>,
}

/// Where a stage's output goes. Today every stage writes global memory; a fused plan's
/// intermediate stages would keep theirs in shared memory or registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputTarget {
    Global,
}

/// How many threads share the reduction of each output point, along which axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrossThreadPlan {
    /// The reduction axis split across lanes (the one with the largest block tile).
    pub axis: Option<usize>,
    /// Lanes per output point (1: no split).
    pub lanes: i64,
}

/// What the threads of a stage compute.
#[derive(Clone, Debug, PartialEq)]
pub enum StageBody {
    /// A reduction: k-steps over the staged tiles, a register tile of accumulators.
    Reduction(ReductionPlan),
    /// No reduction, spatial axes: each thread's points unrolled for memory-level
    /// parallelism.
    Elementwise(ElementwisePlan),
    /// Neither: one point.
    SinglePoint,
}

/// A stage's reduction.
#[derive(Clone, Debug, PartialEq)]
pub struct ReductionPlan {
    pub combiner: Combiner,
    /// The reduction view axes.
    pub axes: Vec<usize>,
    /// The thread's accumulators.
    pub register_tile: RegisterTile,
}

/// Where a thread's accumulators live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterTile {
    /// One SSA value per point, the points unrolled (at most [`super::reduction::MAX_UNROLLED_POINTS`]).
    Unrolled { points: i64 },
    /// A private array indexed by the point loops.
    Array { points: i64 },
}

/// An elementwise stage's unrolling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementwisePlan {
    /// Elements one access moves: 4 (16-byte vectors along the last spatial axis) or 1.
    pub vector_lanes: i64,
    /// Per spatial axis: the thread's load units along it, and how many are unrolled.
    pub units: Vec<i64>,
    pub unroll: Vec<i64>,
}

/// How the results reach the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Epilogue {
    /// Each thread stores its register tile (guarded on padded spatial axes).
    StoreRegisterTile,
    /// Partial accumulators to shared memory, a tree over the lanes (one barrier per
    /// level), lane 0 stores.
    CrossThreadTree { lanes: i64 },
    /// Each point's value is stored as it is computed.
    StoreEachPoint,
}

/// The shared-memory layer of a kernel.
#[derive(Clone, Debug)]
pub struct StagingPlan {
    /// One tile per distinct staged read, in access order.
    pub tiles: Vec<StagedTile>,
    /// Per te access: whether its tile is loaded 16 bytes at a time.
    pub vectorized: Vec<bool>,
    /// Whether the next k-step's tiles are prefetched into registers (double buffered).
    pub prefetch: bool,
}

/// One shared buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedBuffer {
    /// The distinct read it stages, or `REDUCTION_SLOT` (the cross-thread reduction's buffer).
    pub slot: usize,
    pub ty: Type,
    pub bytes: u64,
}

impl KernelPlan {
    /// The plan of `c` under program `p` on `device` (what reading the program's device
    /// gave; `None`: unreadable) with the cross-thread reduction `cross`, register
    /// prefetch allowed by `prefetch` and the thread mapping `mapping`.
    pub fn new(
        c: &TeCompute,
        p: &RProgram,
        device: Option<&Device>,
        cross: CrossThread,
        (prefetch, mapping): (bool, ThreadMapping),
    ) -> Result<KernelPlan, String> {
        if p.tensor_core {
            return Err(
                "a tensor-core program has no SIMT kernel plan (it takes the mma.sync lowering of lower_to_gpu::mma, single kernels only)"
                    .into(),
            );
        }
        let limits = device.map_or_else(fallback_limits, Device::kernel_limits);
        let (view, axes) = plan_axes(c, p)?;
        let threads: i64 = axes.iter().map(|a| a.threads).product();
        if threads as u64 != p.threads {
            return Err(format!(
                "{} threads do not match the tiles ({threads})",
                p.threads
            ));
        }
        if !(1..=limits.threads_per_block as i64).contains(&threads) {
            return Err(format!(
                "the tiles give {threads} threads per block, over the device's {}",
                limits.threads_per_block
            ));
        }
        let inputs = plan_inputs(c, p, &view)?;
        let pads = p
            .pad
            .iter()
            .map(|v| v.iter().map(|&x| x as i64).collect())
            .collect();
        let mut stage = StagePlan {
            compute: c.clone(),
            view,
            axes,
            inputs,
            pads,
            output: OutputTarget::Global,
            k_steps: Vec::new(),
            split: CrossThreadPlan {
                axis: None,
                lanes: 1,
            },
            body: StageBody::SinglePoint,
            epilogue: Epilogue::StoreEachPoint,
        };
        plan_thread_map(&mut stage, p, device, mapping);
        stage.split = plan_split(&stage, cross, threads)?;
        let block_threads = threads * stage.split.lanes;
        let max_threads = limits.threads_per_block as i64;
        if block_threads > max_threads {
            return Err(format!(
                "{block_threads} threads per block exceed the device's {max_threads}"
            ));
        }
        let spatial = stage.spatial();
        let grid: Vec<i64> = spatial.iter().map(|&s| stage.axes[s].steps()).collect();
        let blocks: i64 = grid.iter().product();
        if blocks > i32::MAX as i64 {
            return Err("grid too large".into());
        }
        let (tiles, mut shared_buffers, mut shared_bytes, vectorized) = plan_staged(&stage, p);
        let points: i64 = spatial.iter().map(|&s| stage.axes[s].thread_tile).product();
        // Partial accumulators cross threads in the accumulator's type.
        let res_elem = c.acc_type();
        let lanes = stage.split.lanes;
        if c.combiner.is_some() && lanes > 1 {
            let bytes = (points * lanes * threads) as u64 * (res_elem.width() as u64).div_ceil(8);
            shared_buffers.push(SharedBuffer {
                slot: super::context::REDUCTION_SLOT,
                ty: shared_memref(&[points, lanes, threads], res_elem),
                bytes,
            });
            shared_bytes += bytes;
        }
        stage.k_steps = stage
            .reduction_axes()
            .into_iter()
            .map(|r| (r, stage.axes[r].steps()))
            .filter(|&(_, k)| k > 1)
            .collect();
        let prefetch = prefetch
            && !tiles.is_empty()
            && !stage.k_steps.is_empty()
            && plan_prefetch(&tiles, &stage.view, p, device, block_threads);
        (stage.body, stage.epilogue) = plan_body(&stage, points)?;
        Ok(KernelPlan {
            device: device.cloned(),
            limits,
            thread_mapping: mapping,
            stages: vec![stage],
            grid,
            blocks,
            threads,
            block_threads,
            staging: StagingPlan {
                tiles,
                vectorized,
                prefetch,
            },
            shared_buffers,
            shared_bytes,
            tail: None,
            sources: Vec::new(),
            shared_stages: Vec::new(),
            stage_results: Vec::new(),
            shared_layout: None,
        })
    }

    /// Shared memory one block of the device may use (its shared layer's capacity).
    pub fn shared_limit(&self) -> Option<u64> {
        self.device
            .as_ref()
            .map(|d| d.layers[Device::SHARED].capacity_bytes)
    }
}

impl StagePlan {
    /// The spatial view axes.
    pub fn spatial(&self) -> Vec<usize> {
        (0..self.axes.len())
            .filter(|&a| !self.axes[a].reduction)
            .collect()
    }
    /// The reduction view axes.
    pub fn reduction_axes(&self) -> Vec<usize> {
        (0..self.axes.len())
            .filter(|&a| self.axes[a].reduction)
            .collect()
    }
    /// Storage padding of distinct read `read` along view dim `d`.
    pub fn pad(&self, read: usize, d: usize) -> i64 {
        self.pads
            .get(read)
            .and_then(|p| p.get(d))
            .copied()
            .unwrap_or(0)
    }
    /// The staged read of access `i`, if it is staged.
    pub fn shared_read(&self, i: usize) -> Option<&SharedRead> {
        match &self.inputs[i].source {
            InputSource::Shared(r) => Some(r),
            InputSource::Global => None,
        }
    }
    /// Keeps blocked only the axes along which a still-staged tile is read 16 bytes at a
    /// time (its vector axis, or a transposed tile's axis), after some inputs stopped being
    /// staged (a fused kernel reads its shared stages' tiles in place, a word at a time).
    /// Runs of 4 gain nothing without such reads, and on a tile read a word at a time
    /// they put a warp's lanes 4 words apart: 4-way bank conflicts.
    pub fn unblock_unstaged(&mut self) {
        let mut keep = vec![false; self.axes.len()];
        for read in (0..self.inputs.len()).filter_map(|i| self.shared_read(i)) {
            for a in read
                .vector_axis
                .into_iter()
                .chain(read.transpose.map(|t| t.axis))
            {
                keep[a] = true;
            }
        }
        for (axis, k) in self.axes.iter_mut().zip(keep) {
            axis.blocked &= k;
        }
    }
}

mod build;

#[cfg(test)]
mod tests;
