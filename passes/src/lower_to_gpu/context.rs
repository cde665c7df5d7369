//! The state of one kernel's lowering: the plan being built, the IR builder, the kernel's
//! arguments and shared buffers, and the SSA values of the tile bases and thread
//! coordinates that the per-concern modules (staging, thread mapping, reduction,
//! epilogue) read and write.

use rtile::ir::{OpId, Value};
use rtile_dialects::te::model::TeCompute;

use super::emit::Emitter;
use super::plan::{AxisPlan, KernelPlan, StagePlan};

/// A collapsed view's source and reassociation.
pub(super) type CollapseKey = (Value, Vec<Vec<usize>>);

/// The slot of the cross-thread reduction's buffer among the shared buffers (the others'
/// slots are their distinct reads).
pub(super) const REDUCTION_SLOT: usize = usize::MAX;

/// One kernel being built from its plan.
pub(super) struct Lowering<'a> {
    pub plan: &'a KernelPlan,
    /// The stage being built (today the plan's only one).
    pub stage: &'a StagePlan,
    pub compute: &'a TeCompute,
    pub em: Emitter<'a>,
    /// The kernel's memref arguments: the inputs, then the output.
    pub inputs: Vec<Value>,
    pub output: Value,
    /// Every input argument of the kernel (a fused kernel's recomputed reductions and its
    /// epilogue read theirs by position).
    pub args: Vec<Value>,
    /// The shared buffers by slot: per distinct staged read, and the cross-thread
    /// reduction's ([`REDUCTION_SLOT`]).
    pub shared: Vec<(usize, Value)>,
    /// Per view axis: the tile base (block base or k-step base).
    pub tile_base: Vec<Value>,
    /// Per spatial view axis: the thread's coordinate along it.
    pub thread_coord: Vec<Value>,
    /// `memref.collapse_shape` views of the kernel's arguments, built at the kernel's
    /// entry: (source, reassociation) → view, and the ops (the kernel's prologue).
    pub collapses: Vec<(CollapseKey, Value)>,
    pub collapse_ops: Vec<OpId>,
    /// Per shared stage of a fused kernel (in order, as each is computed): its tile's
    /// origin in the producer's index space, for this block.
    pub stage_lo: Vec<Vec<Value>>,
}

impl<'a> Lowering<'a> {
    /// A lowering of `stage` of `plan` into the body started by `em`, whose kernel
    /// arguments are `inputs` and `output`.
    pub fn new(
        plan: &'a KernelPlan,
        stage: &'a StagePlan,
        em: Emitter<'a>,
        inputs: Vec<Value>,
        output: Value,
    ) -> Self {
        let n = stage.axes.len();
        Lowering {
            plan,
            stage,
            compute: &stage.compute,
            em,
            inputs,
            output,
            args: Vec::new(),
            shared: Vec::new(),
            // Placeholders: every axis gets its base (and spatial axes their thread
            // coordinate) before it is read.
            tile_base: vec![output; n],
            thread_coord: vec![output; n],
            collapses: Vec::new(),
            collapse_ops: Vec::new(),
            stage_lo: Vec::new(),
        }
    }

    /// The stage's view axis `a`.
    pub fn axis(&self, a: usize) -> &'a AxisPlan {
        &self.stage.axes[a]
    }

    /// The shared buffer of `slot` (made by [`super::launch::declare_shared`] before the
    /// body).
    pub fn shared_buffer(&self, slot: usize) -> Value {
        self.shared
            .iter()
            .find(|s| s.0 == slot)
            .map_or(self.output, |s| s.1)
    }

    /// Decomposes `v` (index) by `extents`, row-major, the first coordinate unbounded.
    pub fn decompose(&mut self, v: Value, extents: &[i64]) -> Vec<Value> {
        let mut out = vec![v; extents.len()];
        let mut rem = v;
        for j in (0..extents.len()).rev() {
            if j == 0 {
                out[0] = rem;
            } else if extents[j] == 1 {
                out[j] = self.em.idx(0);
            } else {
                let e = self.em.idx(extents[j]);
                out[j] = self.em.ibin("arith.remui", rem, e);
                rem = self.em.ibin("arith.divui", rem, e);
            }
        }
        out
    }
}
