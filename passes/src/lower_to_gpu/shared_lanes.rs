//! Reducing shared stages with fewer points than the block has threads, computed by lanes
//! of threads per point. A shared stage's tile (Welder §3.2: the producer's reuse tile in
//! shared memory) is computed one point per thread (`Lowering::stage_points`); a stage that
//! reduces to a few points per block (a LayerNorm's row mean and variance under a row
//! block, a softmax's row max and sum) then runs its whole reduction on a few threads while
//! the rest of the block waits at the stage's barrier: on the H200, the fused LayerNorm at
//! 128×768 took 43 µs against 17 µs for its three unfused kernels (PERF.md, session 14).
//!
//! Here each point's reduction is shared by `lanes` consecutive threads of one warp (a
//! power of two, at most 32, with points × lanes ≤ the block's threads): lane `l` folds the
//! reduction points `l, l + lanes, ..` (consecutive lanes read consecutive elements of the
//! innermost reduction axis), then the lanes combine their partial values by a butterfly of
//! `gpu.shuffle xor` (`log2(lanes)` steps, in registers, no barrier), and lane 0 stores the
//! point. This is Roller's cross-thread reduction (the `rsplit` of a reduction program,
//! `super::reduction`) applied to a producer stage, with warp shuffles in place of the
//! shared-memory tree since a group never leaves its warp. Every thread of the block's
//! whole warps runs the shuffles (threads past the tile's points carry the identity), so
//! the full-warp `shfl.sync` mask holds; in a block that ends in a partial warp (80
//! threads: two warps and 16 threads) the points go to the whole warps only, and the
//! partial warp skips the shuffles (a branch uniform per warp). A block of fewer than 32
//! threads has no whole warp and computes one point per thread.

use rtile::ir::{Attribute, Type, Value};
use rtile_dialects::arith::CmpIPredicate;
use rtile_dialects::te::model::{ElemType, TeCompute};

use super::context::Lowering;
use super::fuse::Recompute;
use super::shared_stage::stage_slot;
use super::types::ty;

/// The most lanes one point's reduction is shared by: one warp.
const MAX_LANES: i64 = 32;

/// The lanes per point for a shared stage `c` of `points` points in a block of `threads`:
/// the largest power of two `≤ 32`, `≤ warp_threads / points` and `≤` the reduction's
/// points, where `warp_threads` are the threads of the block's whole warps
/// ([`whole_warp_threads`]); `None` where a stage is computed one point per thread (not a
/// reduction, an accumulator a shuffle does not carry, no whole warp, fewer than 2 lanes).
pub(super) fn stage_lanes(c: &TeCompute, points: i64, threads: i64) -> Option<i64> {
    c.combiner?;
    if !matches!(c.acc_type(), ElemType::F32 | ElemType::I32) {
        return None;
    }
    let np = c.num_parallel();
    let reduced: i64 = c.axes[np..].iter().map(|a| a.extent).product();
    let most = MAX_LANES
        .min(whole_warp_threads(threads) / points.max(1))
        .min(reduced);
    if most < 2 {
        return None;
    }
    Some(1 << most.ilog2())
}

/// The threads of a block of `threads` that are in whole warps (the first ones).
fn whole_warp_threads(threads: i64) -> i64 {
    threads - threads % MAX_LANES
}

impl Lowering<'_> {
    /// Computes reducing shared stage `k` (its tile at `lo`) with `lanes` threads per point
    /// ([`stage_lanes`]; see the module doc). Points outside the producer's domain hold 0,
    /// as `stage_points` leaves them.
    pub(super) fn stage_points_lanes(
        &mut self,
        k: usize,
        lo: &[Value],
        tid: Value,
        lanes: i64,
    ) -> Result<(), String> {
        let plan = self.plan;
        let st = &plan.shared_stages[k];
        let c = &st.compute;
        let comb = c
            .combiner
            .ok_or("internal error: lanes for a stage without a reduction")?;
        let shape = st.shape();
        let total: i64 = shape.iter().product();
        let acc_t = c.acc_type();
        let lv = self.em.idx(lanes);
        let point = self.em.ibin("arith.divui", tid, lv);
        let lane = self.em.ibin("arith.remui", tid, lv);
        let n = self.em.idx(total);
        let valid = self.em.cmp(CmpIPredicate::Ult, point, n);
        let ident = self.constant(comb.identity(acc_t), acc_t);
        let rc = Recompute {
            compute: c.clone(),
            srcs: st.srcs.clone(),
        };
        // This lane's part of its point's reduction (the identity past the tile's points
        // and outside the producer's domain).
        let r = self.em.begin_if(valid, &[ty(acc_t)]);
        let (_, at, cond) = self.stage_point(k, lo, point);
        let part = match cond {
            None => self.fold(&rc, &at, ident, None, Some((lane, lanes)))?,
            Some(cond) => {
                let inner = self.em.begin_if(cond, &[ty(acc_t)]);
                let v = self.fold(&rc, &at, ident, None, Some((lane, lanes)))?;
                self.em.else_(&[v]);
                self.em.end_if(Some(&[ident]));
                inner[0]
            }
        };
        self.em.else_(&[part]);
        self.em.end_if(Some(&[ident]));
        // A partial last warp holds no point (lanes × points fit the whole warps) and
        // skips the shuffles, whose full-warp mask it could not meet.
        let threads = plan.block_threads;
        let partial = threads % MAX_LANES != 0;
        if partial {
            let whole = self.em.idx(whole_warp_threads(threads));
            let in_whole = self.em.cmp(CmpIPredicate::Ult, tid, whole);
            self.em.begin_then(in_whole);
        }
        // The butterfly: after it every lane of a group holds the group's value.
        let mut acc = r[0];
        let mut offset = lanes / 2;
        while offset >= 1 {
            let other = self.shuffle_xor(acc, offset);
            acc = self.combine(comb, acc, other, acc_t);
            offset /= 2;
        }
        let z = self.em.idx(0);
        let first = self.em.cmp(CmpIPredicate::Eq, lane, z);
        let write = self.em.and(Some(valid), first).unwrap_or(first);
        self.em.begin_then(write);
        let (coords, _, cond) = self.stage_point(k, lo, point);
        let elem = c.result.elem;
        let mut v = self.acc_to_result(c, acc);
        if let Some(cond) = cond {
            let zero = self.constant(0.0, elem);
            v = self.em.op("arith.select", &[cond, v, zero], &[], ty(elem));
        }
        let mut args = vec![v, self.shared_buffer(stage_slot(k))];
        args.extend(coords);
        self.em.op0("memref.store", &args, &[]);
        self.em.end_then();
        if partial {
            self.em.end_then();
        }
        Ok(())
    }

    /// `v` (32 bits) from the lane `offset` away in the butterfly (`gpu.shuffle xor`
    /// within 32 lanes; every lane of the warp takes part).
    fn shuffle_xor(&mut self, v: Value, offset: i64) -> Value {
        let off = self.em.constant(Attribute::int(offset, Type::i32()));
        let width = self.em.constant(Attribute::int(MAX_LANES, Type::i32()));
        let t = self.em.ty(v);
        self.em
            .builder()
            .op("gpu.shuffle")
            .operands(&[v, off, width])
            .results([t, Type::i1()])
            .property("mode", Attribute::dialect("gpu", "<shuffle_mode xor>"))
            .values()[0]
    }
}

#[cfg(test)]
mod tests {
    use rtile_dialects::te::module::parse_computes;

    use super::*;

    fn compute(text: &str) -> TeCompute {
        parse_computes("t.mlir", text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
            .remove(0)
            .compute
    }

    /// A row mean over 768 (f32), and the same in f16 with an f16 accumulator.
    const ROW_MEAN: &str = "func.func @f(%X: tensor<128x768xf32>) -> tensor<128xf32> { %0 = te.compute (%m) reduce (%n) in [128, 768] : (tensor<128x768xf32>) -> tensor<128xf32> { te.sum(%X[%m, %n] / 768.0) } func.return %0 : tensor<128xf32> }";

    #[test]
    fn a_few_points_take_a_warp_each_up_to_the_block() {
        let c = compute(ROW_MEAN);
        // LayerNorm's row mean under a 2-row block of 256 threads: a warp per row.
        assert_eq!(stage_lanes(&c, 2, 256), Some(32));
        // 24 rows: 256 / 24 = 10 threads each, so 8 lanes (a power of two).
        assert_eq!(stage_lanes(&c, 24, 256), Some(8));
        // As many points as threads, or more: one point per thread.
        assert_eq!(stage_lanes(&c, 256, 256), None);
        assert_eq!(stage_lanes(&c, 300, 256), None);
        // 129 points in 256 threads would leave one lane each.
        assert_eq!(stage_lanes(&c, 129, 256), None);
        assert_eq!(stage_lanes(&c, 128, 256), Some(2));
        // A block ending in a partial warp: the whole warps take the points (48 threads:
        // one warp for a row; 80 threads: two warps, so 2 rows of 32 lanes or 4 of 16).
        assert_eq!(stage_lanes(&c, 1, 48), Some(32));
        assert_eq!(stage_lanes(&c, 2, 80), Some(32));
        assert_eq!(stage_lanes(&c, 4, 80), Some(16));
        assert_eq!(stage_lanes(&c, 3, 85), Some(16));
        // No whole warp: one point per thread.
        assert_eq!(stage_lanes(&c, 1, 20), None);
    }

    #[test]
    fn lanes_stop_at_the_reduction_and_need_a_32_bit_accumulator() {
        // A 3-point reduction: 2 lanes (each at least one point).
        let c = compute(
            "func.func @f(%X: tensor<4x3xf32>) -> tensor<4xf32> { %0 = te.compute (%m) reduce (%k) in [4, 3] : (tensor<4x3xf32>) -> tensor<4xf32> { te.max(%X[%m, %k]) } func.return %0 : tensor<4xf32> }",
        );
        assert_eq!(stage_lanes(&c, 4, 128), Some(2));
        // Not a reduction.
        let e = compute(
            "func.func @f(%X: tensor<4x3xf32>) -> tensor<4x3xf32> { %0 = te.compute (%m, %k) in [4, 3] : (tensor<4x3xf32>) -> tensor<4x3xf32> { %X[%m, %k] * 2.0 } func.return %0 : tensor<4x3xf32> }",
        );
        assert_eq!(stage_lanes(&e, 1, 128), None);
        // An f16 sum accumulated in f16: a shuffle moves 32 bits.
        let h = compute(&ROW_MEAN.replace("f32", "f16"));
        assert_eq!(h.acc_type(), ElemType::F16);
        assert_eq!(stage_lanes(&h, 2, 256), None);
    }
}
