//! Shared stages computed in k-steps. A reducing shared stage (Welder §3.2: a producer
//! whose reuse tile is kept in shared memory) reads its global inputs from copies in
//! shared memory (`plan_stages`), loaded once per block. When those copies would hold
//! whole reductions too large for a block's shared memory (a 512-channel pointwise conv on
//! a 14×14 tile: 392 KB of input), the stage is computed the way §3.1 describes reduction
//! axes of input tiles: "loaded and consumed sequentially by accumulating their results to
//! the output tile". Its tile (the reuse tile) stays whole in shared memory as the
//! accumulator; per step along one reduction axis, the block loads the step's slice of
//! each input into the copies, a barrier, every point of the tile folds the slice into its
//! accumulator, a barrier. This is the anchor's own k-step loop (Roller's staged tiles,
//! `super::staging`) applied to a producer, so the consumer still finds the producer's
//! whole tile in shared memory when its loop starts (§3.2's connection is unchanged), and
//! the traffic is the same as whole copies': each input element once per block (§2: the
//! reduction step sets the footprint, never the traffic).
//!
//! Stepping the producer, not the consumer's reduction loop: the consumers of a shared
//! stage may read it through a halo (a 3×3 depthwise conv after a pointwise one) or along
//! their parallel axes only, so a slice of the producer along the consumer's reduction is
//! not in general what a consumer step reads; the producer's own reduction axis is always
//! there to split.

use rtile::ir::Value;
use rtile_dialects::te::model::TeCompute;

use super::context::Lowering;
use super::fuse::ReSrc;
use super::shared_stage::Fill;

/// How a stepped shared stage is computed (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KStep {
    /// The stepped axis: an index into the stage compute's axes (a reduction axis).
    pub axis: usize,
    /// Reduction indices per step; divides the axis's extent.
    pub size: i64,
    /// The stages that are its input copies, loaded once per step (read by it alone).
    pub copies: Vec<usize>,
}

impl KStep {
    /// The axis and step size for `c` (a stage reading `srcs`) with steps of at most `cap`
    /// indices, or `None` when it is not stepped: it has no reduction; a source is not a
    /// global input (an earlier stage or a recomputed reduction: their tiles do not move
    /// with the step); its accumulator type is not its result type (the tile in shared
    /// memory holds the partial sums); or the step would be the whole axis. The axis is the
    /// longest reduction axis (the first of equals): splitting it shrinks the copies most.
    pub fn choose(c: &TeCompute, srcs: &[ReSrc], cap: i64) -> Option<(usize, i64)> {
        c.combiner?;
        if c.acc_type() != c.result.elem || !srcs.iter().all(|s| matches!(s, ReSrc::Arg(_))) {
            return None;
        }
        let np = c.num_parallel();
        let axis = (np..c.axes.len()).rev().max_by_key(|&a| c.axes[a].extent)?;
        let ext = c.axes[axis].extent;
        let size = (1..=cap.min(ext)).rev().find(|d| ext % d == 0)?;
        (size < ext).then_some((axis, size))
    }
}

impl Lowering<'_> {
    /// Computes stepped stage `k` (its tile at `lo`) into its buffer: the tile set to the
    /// combiner's identity (0 outside the producer's domain), then per step the copies
    /// loaded at the step's base, a barrier, the step folded into every point, a barrier.
    /// Each thread initialises and updates the same points, so the first step needs no
    /// barrier before it.
    pub(super) fn materialize_steps(
        &mut self,
        k: usize,
        step: &KStep,
        lo: &[Value],
        tid: Value,
    ) -> Result<(), String> {
        let plan = self.plan;
        self.stage_points(k, lo, tid, Fill::Init)?;
        let ext = plan.shared_stages[k].compute.axes[step.axis].extent;
        let (z, n, s) = (self.em.idx(0), self.em.idx(ext), self.em.idx(step.size));
        let (base, _, _) = self.em.begin_for(z, n, s, &[]);
        for &c in &step.copies {
            let clo = self.region_lo(&plan.shared_stages[c].region, Some(base))?;
            self.stage_lo[c] = clo.clone();
            self.stage_points(c, &clo, tid, Fill::Whole)?;
        }
        self.em.barrier();
        self.stage_points(k, lo, tid, Fill::Step(step.axis, base, step.size))?;
        self.em.barrier();
        self.em.end_for(&[]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_dialects::te::ir::{COMPUTE, compute_from_op};
    use rtile_dialects::te::module::{new_context, parse_and_verify};

    /// The computes of `text`'s function, in order.
    fn computes(text: &str) -> Vec<TeCompute> {
        let mut ctx = new_context();
        let m = parse_and_verify(&mut ctx, "f.mlir", text).expect("parses");
        ctx.collect_ops(m)
            .into_iter()
            .filter(|&o| ctx.op_name(o) == COMPUTE)
            .map(|o| compute_from_op(&ctx, o).expect("compute").0)
            .collect()
    }

    /// The step is the largest divisor of the longest reduction axis within the cap, and
    /// no step is taken where it would be the whole axis, the inputs are not all global,
    /// or there is no reduction.
    #[test]
    fn steps_divide_the_longest_reduction_axis() {
        let cs = computes(
            "func.func @f(%A: tensor<4x400xf32>, %B: tensor<400x3x8xf32>, %C: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %P = te.compute (%i, %j) reduce (%r, %k) in [4, 8, 3, 400] : (tensor<4x400xf32>, tensor<400x3x8xf32>) -> tensor<4x8xf32> { te.sum(%A[%i, %k] * %B[%k, %r, %j]) }
  %Q = te.compute (%i, %j) in [4, 8] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> { %P[%i, %j] + %C[%i, %j] }
  func.return %Q : tensor<4x8xf32>
}",
        );
        let args = [ReSrc::Arg(0), ReSrc::Arg(1)];
        // Axis 3 (k, 400) is the longest: 200 ≤ 256, 100 ≤ 128, 50 ≤ 64, 8 ≤ 9, 1.
        for (cap, size) in [(256, 200), (128, 100), (64, 50), (9, 8), (1, 1)] {
            assert_eq!(
                KStep::choose(&cs[0], &args, cap),
                Some((3, size)),
                "cap {cap}"
            );
        }
        // A cap past the extent steps nothing: the whole reduction.
        assert_eq!(KStep::choose(&cs[0], &args, 400), None);
        // An input from an earlier stage does not move with the step.
        assert_eq!(
            KStep::choose(&cs[0], &[ReSrc::Arg(0), ReSrc::Shared(0)], 8),
            None
        );
        // No reduction.
        assert_eq!(KStep::choose(&cs[1], &args, 8), None);
    }
}
