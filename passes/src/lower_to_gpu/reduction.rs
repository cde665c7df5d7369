//! The reduction (Roller §4): the thread's register tile of accumulators, the k-step loops
//! over the staged tiles (with the register prefetch's next-step loads), the inner loops
//! over one k-step's tile, and the cross-thread split's tree over the reduction lanes.

use rtile::ir::{Type, Value};
use rtile_dialects::arith::CmpIPredicate;

use super::body::may_trap;
use super::context::{Lowering, REDUCTION_SLOT};
use super::plan::{InputSource, ReductionPlan, RegisterTile};
use super::thread_map::ThreadIds;
use super::types::{i32_array, memref, ty};

/// How many threads share the reduction of each output point (§4 "cross-thread
/// reduction" for reduction-heavy operators).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrossThread {
    /// Split when the program leaves few threads per block for a long reduction (see
    /// [`auto_split`]).
    Auto,
    /// Never split (the program's threads, one reduction per thread).
    Off,
    /// Split by this power of two.
    Split(u32),
}

/// The automatic split: reduction-heavy computes (at least 64 reduction points per output)
/// whose program gives a block at most 64 threads get `s` threads per output point, `s` the
/// largest power of two with `s ≤ 32`, `threads·s ≤ 256` and `s ≤` the split axis's tile.
pub fn auto_split(threads: i64, red_points: i64, split_tile: i64) -> i64 {
    if red_points < 64 || threads > 64 {
        return 1;
    }
    let mut s = 1;
    while s * 2 <= 32 && threads * s * 2 <= 256 && s * 2 <= split_tile {
        s *= 2;
    }
    s
}

/// The most points a thread tile may have for its register tile to be unrolled (Roller §4,
/// the register layer rTile). An unrolled tile keeps one accumulator per point in a
/// register, plus the operands of one reduction index (a row of A and a column of B for a
/// matmul: `TM + TN`) and the addresses. 128 accumulators and their operands still fit the
/// 255 registers a thread may have; more cannot stay in registers at all (and a block of
/// `t` threads has only `65536 / t` each). The devices' register layer (512 bytes: 128
/// registers for operands and accumulators) keeps every constructed program below the cap;
/// larger hand-written tiles keep the loop form with the accumulators in a private array.
pub const MAX_UNROLLED_POINTS: i64 = 128;

/// A thread's accumulators.
pub(super) enum RegTile {
    /// One SSA value per point (the points unrolled): carried as `scf.for` `iter_args`.
    Values(Vec<Value>),
    /// A `memref.alloca` of the points, indexed by the point loops.
    Memory(Value),
}

/// The k-step loops opened around a k-step's compute.
pub(super) struct KSteps {
    /// `scf.for` loops opened (one per stepping axis, or one linearized loop).
    loops: usize,
    /// Each loop's results.
    results: Vec<Vec<Value>>,
    /// With prefetch: whether a next step exists, and its values per tile, in registers.
    pending: Option<(Value, Vec<Vec<Value>>)>,
}

impl Lowering<'_> {
    /// The register tile, every accumulator at the combiner's identity.
    pub fn init_register_tile(&mut self, r: &ReductionPlan) -> RegTile {
        let res_elem = self.compute.acc_type();
        match r.register_tile {
            RegisterTile::Unrolled { points } => {
                let id = self.constant(r.combiner.identity(res_elem), res_elem);
                RegTile::Values(vec![id; points as usize])
            }
            RegisterTile::Array { points } => {
                let a = self.em.op(
                    "memref.alloca",
                    &[],
                    &[("operandSegmentSizes", i32_array(&[0, 0]))],
                    memref(&[points], res_elem),
                );
                let (z, one, qt) = (self.em.idx(0), self.em.idx(1), self.em.idx(points));
                let (q, _, _) = self.em.begin_for(z, qt, one, &[]);
                let id = self.constant(r.combiner.identity(res_elem), res_elem);
                self.em.op0("memref.store", &[id, a, q], &[]);
                self.em.end_for(&[]);
                RegTile::Memory(a)
            }
        }
    }

    /// Opens the reduction loop over k-steps (one `scf.for` per reduction axis with more
    /// than one, or with prefetch over several stepping axes one loop over the linearized
    /// steps), carrying an unrolled register tile, and loads the step's staged tiles
    /// (cooperatively, or from the prefetched registers).
    pub fn open_k_steps(&mut self, tile: &mut Option<RegTile>, tid: Value) -> KSteps {
        let stage = self.stage;
        let prefetched = self.plan.staging.prefetch;
        let reduction = stage.reduction_axes();
        if prefetched {
            // Prologue: k-step 0 global → registers → shared, then a barrier (every
            // reduction axis at its first step).
            for &r in &reduction {
                self.tile_base[r] = self.em.idx(0);
            }
            self.prefetch_first(tid);
        }
        let inits_of = |tile: &Option<RegTile>| -> Vec<Value> {
            match tile {
                Some(RegTile::Values(v)) => v.clone(),
                _ => Vec::new(),
            }
        };
        let mut steps = KSteps {
            loops: 0,
            results: Vec::new(),
            pending: None,
        };
        // With prefetch: the next step's base per stepping axis and the condition that it
        // exists.
        let mut next_step: Option<(Value, Vec<(usize, Value)>)> = None;
        if prefetched && stage.k_steps.len() > 1 {
            // Several stepping axes: one loop over the linearized k-steps (row-major, the
            // first axis outermost: the nested loops' order), so "the next step" is `s + 1`.
            for &r in &reduction {
                self.tile_base[r] = self.em.idx(0);
            }
            let counts: Vec<i64> = stage.k_steps.iter().map(|&(_, k)| k).collect();
            let total: i64 = counts.iter().product();
            let (z, ub, one) = (self.em.idx(0), self.em.idx(total), self.em.idx(1));
            let (s, args, res) = self.em.begin_for(z, ub, one, &inits_of(tile));
            if let Some(RegTile::Values(v)) = tile {
                *v = args;
            }
            steps.results.push(res);
            steps.loops = 1;
            let cur = self.decompose(s, &counts);
            let next = self.em.add(s, one);
            let has_next = self.em.cmp(CmpIPredicate::Slt, next, ub);
            let nxt = self.decompose(next, &counts);
            let mut bases = Vec::new();
            for (j, &(r, _)) in stage.k_steps.iter().enumerate() {
                let block_tile = stage.axes[r].block_tile;
                self.tile_base[r] = self.em.mul_const(cur[j], block_tile);
                bases.push((r, self.em.mul_const(nxt[j], block_tile)));
            }
            next_step = Some((has_next, bases));
        } else {
            for &r in &reduction {
                let (k, block_tile) = (stage.axes[r].steps(), stage.axes[r].block_tile);
                if k == 1 {
                    self.tile_base[r] = self.em.idx(0);
                    continue;
                }
                let (z, ub, st) = (
                    self.em.idx(0),
                    self.em.idx(k * block_tile),
                    self.em.idx(block_tile),
                );
                let (iv, args, res) = self.em.begin_for(z, ub, st, &inits_of(tile));
                if let Some(RegTile::Values(v)) = tile {
                    *v = args;
                }
                steps.results.push(res);
                self.tile_base[r] = iv;
                steps.loops += 1;
                if prefetched {
                    // The only stepping axis: the next step starts at `iv + B`.
                    let next = self.em.add(iv, st);
                    let has_next = self.em.cmp(CmpIPredicate::Slt, next, ub);
                    next_step = Some((has_next, vec![(r, next)]));
                }
            }
        }
        if let Some((has_next, bases)) = next_step {
            let per_tile = self.prefetch_next(has_next, &bases, tid);
            steps.pending = Some((has_next, per_tile));
        }
        if !prefetched {
            self.load_tiles(tid);
        }
        steps
    }

    /// The inner loop over reduction axis `r` of one k-step's tile: on the split axis each
    /// reduction lane takes every `lanes`-th point.
    fn reduction_loop(&mut self, r: usize, lane: Value) -> (Value, Value, Value) {
        let split = self.stage.split;
        let block_tile = self.axis(r).block_tile;
        if Some(r) == split.axis && split.lanes > 1 {
            (lane, self.em.idx(block_tile), self.em.idx(split.lanes))
        } else {
            (self.em.idx(0), self.em.idx(block_tile), self.em.idx(1))
        }
    }

    /// The reduction over the k-steps into the register tile, the k-step loops closed.
    pub fn reduce(
        &mut self,
        r: &ReductionPlan,
        tile: &mut RegTile,
        steps: KSteps,
        ids: ThreadIds,
    ) -> Result<(), String> {
        match tile {
            RegTile::Values(accs) => self.reduce_unrolled(r, accs, steps, ids),
            RegTile::Memory(acc) => self.reduce_in_array(r, *acc, steps, ids),
        }
    }

    /// Register layer (Roller §4): per reduction index, every point of the thread tile
    /// combines into its own accumulator; the points are unrolled, so the accumulators are
    /// SSA values and loads shared by points are written once. Staged reads see pad-filled
    /// shared tiles at points past the tensor's extent, so only direct (global) reads, and
    /// bodies that may trap on the pad value, need the per-point guard; the store is
    /// guarded in the epilogue.
    fn reduce_unrolled(
        &mut self,
        r: &ReductionPlan,
        accs: &mut Vec<Value>,
        steps: KSteps,
        ids: ThreadIds,
    ) -> Result<(), String> {
        let (stage, c) = (self.stage, self.compute);
        let (res_elem, rt) = (c.acc_type(), ty(c.acc_type()));
        let spatial = stage.spatial();
        let direct = stage.inputs.iter().any(|a| a.source == InputSource::Global);
        let guard_points = direct || may_trap(&c.body, c);
        let pts = self.unrolled_points(&spatial, guard_points);
        let conds: Vec<Option<Value>> = pts
            .iter()
            .map(|pt| {
                if guard_points {
                    self.point_guard(&spatial, &pt.vals)
                } else {
                    None
                }
            })
            .collect();
        let n = stage.axes.len();
        let (mut vals, mut locals) = (vec![None; n], vec![None; n]);
        let mut stack = Vec::new();
        for &a in &r.axes {
            let (z, ub, st) = self.reduction_loop(a, ids.lane);
            let (lr, args, res) = self.em.begin_for(z, ub, st, accs);
            // The absolute index, for the padding guard and direct reads only.
            if stage.axes[a].padded() || direct {
                let base = self.tile_base[a];
                vals[a] = Some(self.em.add(base, lr));
            }
            locals[a] = Some(lr);
            stack.push(res);
            *accs = args;
        }
        let rts: Vec<Type> = accs.iter().map(|_| rt).collect();
        let cond = self.point_guard(&r.axes, &vals);
        let if_res = cond.map(|c| self.em.begin_if(c, &rts));
        let mut next = Vec::new();
        for (q, pt) in pts.iter().enumerate() {
            let (mut pv, mut pl) = (vals.clone(), locals.clone());
            for &s in &spatial {
                pv[s] = pt.vals[s];
                pl[s] = pt.locals[s];
            }
            let a = accs[q];
            if let Some(c) = conds[q] {
                let res = self.em.begin_if(c, std::slice::from_ref(&rt));
                let v = self.point_value(&pv, &pl, &pt.runs)?;
                let na = self.combine(r.combiner, a, v, res_elem);
                self.em.else_(&[na]);
                self.em.end_if(Some(&[a]));
                next.push(res[0]);
            } else {
                let v = self.point_value(&pv, &pl, &pt.runs)?;
                next.push(self.combine(r.combiner, a, v, res_elem));
            }
        }
        let mut cur = next;
        if let Some(res) = if_res {
            self.em.else_(&cur);
            self.em.end_if(Some(accs));
            cur = res;
        }
        for res in stack.into_iter().rev() {
            self.em.end_for(&cur);
            cur = res;
        }
        self.end_k_step(steps.pending.as_ref(), ids.tid);
        for res in steps.results.into_iter().rev() {
            self.em.end_for(&cur);
            cur = res;
        }
        *accs = cur;
        Ok(())
    }

    /// The loop form (a thread tile too large to unroll): per point, inner reduction loops
    /// over the k-step's tile carry one accumulator loaded from and stored to the private
    /// array.
    fn reduce_in_array(
        &mut self,
        r: &ReductionPlan,
        acc: Value,
        steps: KSteps,
        ids: ThreadIds,
    ) -> Result<(), String> {
        let c = self.compute;
        let (res_elem, rt) = (c.acc_type(), ty(c.acc_type()));
        let loops = self.open_points();
        let mut vals = loops.vals.clone();
        let a0 = self.em.op("memref.load", &[acc, loops.point], &[], rt);
        // Inner reduction loops over the k-step's tile, the accumulator carried.
        let mut a = a0;
        let mut stack = Vec::new();
        for &ax in &r.axes {
            let (z, ub, st) = self.reduction_loop(ax, ids.lane);
            let (lr, args, res) = self.em.begin_for(z, ub, st, &[a]);
            let base = self.tile_base[ax];
            vals[ax] = Some(self.em.add(base, lr));
            stack.push(res[0]);
            a = args[0];
        }
        let cond = self.point_guard(&r.axes, &vals);
        let if_res = cond.map(|c| self.em.begin_if(c, std::slice::from_ref(&rt)));
        let v = self.point_value(&vals, &[], &[])?;
        let mut cur = self.combine(r.combiner, a, v, res_elem);
        if let Some(res) = if_res {
            self.em.else_(&[cur]);
            self.em.end_if(Some(&[a]));
            cur = res[0];
        }
        for &res in stack.iter().rev() {
            self.em.end_for(&[cur]);
            cur = res;
        }
        self.em.op0("memref.store", &[cur, acc, loops.point], &[]);
        self.close_points(&loops);
        self.end_k_step(steps.pending.as_ref(), ids.tid);
        for _ in 0..steps.loops {
            self.em.end_for(&[]);
        }
        Ok(())
    }

    /// Cross-thread reduction: the lanes' partial accumulators to shared memory, then a
    /// tree over the reduction lanes, one barrier per level; lane 0's row holds the result.
    pub fn cross_thread_tree(&mut self, r: &ReductionPlan, tile: &RegTile, ids: ThreadIds) {
        let rt = ty(self.compute.acc_type());
        let points = match r.register_tile {
            RegisterTile::Unrolled { points } | RegisterTile::Array { points } => points,
        };
        let (lane, spatial) = (ids.lane, ids.spatial);
        let red = self.shared_buffer(REDUCTION_SLOT);
        let (z, one, qt) = (self.em.idx(0), self.em.idx(1), self.em.idx(points));
        match tile {
            RegTile::Values(accs) => {
                for (q, &v) in accs.iter().enumerate() {
                    let qc = self.em.idx(q as i64);
                    self.em
                        .op0("memref.store", &[v, red, qc, lane, spatial], &[]);
                }
            }
            RegTile::Memory(acc) => {
                let (q, _, _) = self.em.begin_for(z, qt, one, &[]);
                let v = self.em.op("memref.load", &[*acc, q], &[], rt);
                self.em
                    .op0("memref.store", &[v, red, q, lane, spatial], &[]);
                self.em.end_for(&[]);
            }
        }
        self.em.barrier();
        let mut half = self.stage.split.lanes / 2;
        while half >= 1 {
            let h = self.em.idx(half);
            let cnd = self.em.cmp(CmpIPredicate::Ult, lane, h);
            self.em.begin_then(cnd);
            let (q, _, _) = self.em.begin_for(z, qt, one, &[]);
            let other = self.em.add(lane, h);
            let a = self.em.op("memref.load", &[red, q, lane, spatial], &[], rt);
            let b = self
                .em
                .op("memref.load", &[red, q, other, spatial], &[], rt);
            let s2 = self.combine(r.combiner, a, b, self.compute.acc_type());
            self.em
                .op0("memref.store", &[s2, red, q, lane, spatial], &[]);
            self.em.end_for(&[]);
            self.em.end_then();
            self.em.barrier();
            half /= 2;
        }
    }
}
