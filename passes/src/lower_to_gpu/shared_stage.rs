//! Shared stages of a fused kernel (Welder, OSDI'23): a producer connected to its consumer
//! at the shared-memory layer (§3.2) keeps its reuse tile in shared memory. Before the
//! anchor's loop, the block computes the producer's whole tile — the anchor's block tile
//! propagated back through the index maps (§3.1: strides and halos included, reductions
//! whole) — into a shared buffer, one point per thread in turn, then a barrier; every
//! consumer in the kernel then reads the producer from that buffer. The buffers' offsets come
//! from the footprint model's best-fit allocator (§4.2's shared-memory manager, 32-byte
//! aligned): a stage's buffer is freed after the barrier that ends its last reader, so a
//! later stage or the anchor's staged tiles may reuse the space.
//!
//! A reducing stage's global inputs are staged by copy stages (`plan_stages`), whole, or,
//! when that is too large, one reduction step at a time with the stage accumulating in its
//! tile between steps (`super::shared_steps`, Welder §3.1's reduction-axis input tiles).

use std::collections::BTreeMap;

use rtile::ir::Value;
use rtile::ir::affine::{AffineExpr, floor_div};
use rtile_dialects::te::model::TeCompute;

use super::context::{Lowering, REDUCTION_SLOT};
use super::fuse::{ReSrc, Recompute, TailStage};
use super::plan::{InputSource, KernelPlan, SharedBuffer};
use super::shared_lanes::stage_lanes;
use super::shared_steps::KStep;
use super::staging::plan_staged;
use super::types::{shared_memref, ty};
use crate::connect::model::BestFit;
use crate::connect::propagate::cover_moving;
use crate::construct_rtile::RProgram;

/// The shared-buffer slot of shared stage `k` (the staged reads' slots are small numbers;
/// the cross-thread reduction's is [`REDUCTION_SLOT`]).
pub(super) fn stage_slot(k: usize) -> usize {
    (1 << 40) + k
}

/// One dim of a tile in a block: `lo + Σ coef[a]·b[a] .. + size`, where `b[a]` is the
/// block's index along the anchor's axis `a` (its base is `b[a]·block[a]`; 0 on reduction
/// axes, which are taken whole); one more column, [`Span::step_column`], is the base of
/// the current k-step of the stepped stage that reads the tile (the input copies of a
/// [`KStep`]). Coefficients count per block index, not per base, so that a `floordiv` of a
/// moving index stays exact where the block tile is a multiple of the divisor
/// ([`expr_span`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// Per anchor axis, the coefficient of its block index (the step column: of the
    /// step's base).
    pub coef: Vec<i64>,
    pub lo: i64,
    pub size: i64,
}

/// A shared-connected producer of a fused kernel (see the module doc).
#[derive(Clone, Debug)]
pub struct SharedStage {
    /// The producer (its register-connected element-wise producers inlined).
    pub compute: TeCompute,
    /// Per input of `compute`: an argument, a recomputed reduction or an earlier stage.
    pub srcs: Vec<ReSrc>,
    /// The kernel member it is.
    pub member: usize,
    /// The tile of its result one block computes, per result dim (set by [`plan_regions`]).
    pub region: Vec<Span>,
    /// Computed in steps along one reduction axis, its input copies loaded per step
    /// (`super::shared_steps`); `None`: computed whole.
    pub step: Option<KStep>,
}

impl Span {
    /// The column of `coef` that is the current k-step's base (the last).
    pub fn step_column(&self) -> usize {
        self.coef.len() - 1
    }
}

impl SharedStage {
    /// Whether its tile moves with a k-step (the copy of a stepped stage's input: only one
    /// step's slice is in shared memory at a time).
    pub fn moves_with_step(&self) -> bool {
        self.region.iter().any(|s| s.coef[s.step_column()] != 0)
    }

    /// A stage whose region is not planned yet.
    pub fn new(compute: TeCompute, srcs: Vec<ReSrc>, member: usize) -> Self {
        SharedStage {
            compute,
            srcs,
            member,
            region: Vec::new(),
            step: None,
        }
    }
    /// The shared tile's shape.
    pub fn shape(&self) -> Vec<i64> {
        self.region.iter().map(|s| s.size).collect()
    }
    /// The shared tile's bytes.
    pub fn bytes(&self) -> u64 {
        let w = (self.compute.result.elem.width() as u64).div_ceil(8);
        self.shape().iter().product::<i64>() as u64 * w
    }
}

/// The span of one index expression `e` over the axis box `axes` (interval arithmetic; a
/// negative factor takes the box's far end), or `None` where it is not bounded exactly:
/// symbols, `mod`, `ceildiv`, a product of two dims, or a `floordiv` whose block-moving
/// part the divisor does not divide. `e floordiv d` is exact when every coefficient (per
/// block index) of `e`'s span is a multiple of `d`: then `⌊(Σ c·b + lo + i) / d⌋ =
/// Σ (c/d)·b + ⌊(lo + i) / d⌋` in every block, the span `⌊lo/d⌋ .. ⌊(lo+size−1)/d⌋`
/// moving by `c/d` per block (a pyramid's `y floordiv 2` of a 64-row block: 32 rows moving
/// by 32, what `--connect`'s `aligned_span` counts, §3.1).
fn expr_span(e: &AffineExpr, axes: &[Span], nb: usize) -> Option<Span> {
    if let Some((k, c)) = e.linear_form(axes.len()) {
        // One linear form: exact where the recursion below would count a dim twice.
        let mut out = Span {
            coef: vec![0; nb],
            lo: c,
            size: 1,
        };
        for (a, &ka) in k.iter().enumerate() {
            let s = &axes[a];
            for (o, &x) in out.coef.iter_mut().zip(&s.coef) {
                *o += ka * x;
            }
            out.lo += ka * s.lo + ka.min(0) * (s.size - 1);
            out.size += ka.abs() * (s.size - 1);
        }
        return Some(out);
    }
    let constant = |c: i64| Span {
        coef: vec![0; nb],
        lo: c,
        size: 1,
    };
    Some(match e {
        AffineExpr::Dim(d) => axes.get(*d as usize)?.clone(),
        AffineExpr::Constant(c) => constant(*c),
        AffineExpr::Add(a, b) => {
            let (x, y) = (expr_span(a, axes, nb)?, expr_span(b, axes, nb)?);
            Span {
                coef: x.coef.iter().zip(&y.coef).map(|(p, q)| p + q).collect(),
                lo: x.lo.checked_add(y.lo)?,
                size: (x.size + y.size).checked_sub(1)?,
            }
        }
        AffineExpr::Mul(a, b) => {
            let (x, k) = match (a.as_constant(), b.as_constant()) {
                (_, Some(k)) => (expr_span(a, axes, nb)?, k),
                (Some(k), None) => (expr_span(b, axes, nb)?, k),
                (None, None) => return None,
            };
            Span {
                coef: x
                    .coef
                    .iter()
                    .map(|c| c.checked_mul(k))
                    .collect::<Option<_>>()?,
                lo: k
                    .checked_mul(x.lo)?
                    .checked_add(k.min(0).checked_mul(x.size - 1)?)?,
                size: k.abs().checked_mul(x.size - 1)?.checked_add(1)?,
            }
        }
        AffineExpr::FloorDiv(a, b) => {
            let d = b.as_constant().filter(|&d| d > 0)?;
            let x = expr_span(a, axes, nb)?;
            if x.coef.iter().any(|c| c % d != 0) {
                return None;
            }
            let lo = floor_div(x.lo, d);
            Span {
                coef: x.coef.iter().map(|c| c / d).collect(),
                lo,
                size: floor_div(x.lo + x.size - 1, d) - lo + 1,
            }
        }
        AffineExpr::Symbol(_) | AffineExpr::CeilDiv(..) | AffineExpr::Mod(..) => return None,
    })
}

/// The box of `(map results)` over the axis box `axes` ([`expr_span`]) in a tensor of
/// `shape`; a dim indexed where [`expr_span`] has no exact span gets the conservative
/// bound, the whole dim (the "conservative bound where an access is not affine",
/// §3.1).
fn image(map: &[AffineExpr], axes: &[Span], shape: &[i64]) -> Vec<Span> {
    let nb = axes.first().map_or(0, |s| s.coef.len());
    map.iter()
        .zip(shape)
        .map(|(e, &ext)| {
            expr_span(e, axes, nb).unwrap_or(Span {
                coef: vec![0; nb],
                lo: 0,
                size: ext,
            })
        })
        .collect()
}

/// `tile` (a box of `c`'s result) with `c`'s reduction axes taken whole: `c`'s axis box.
fn with_reductions(c: &TeCompute, tile: Vec<Span>, nb: usize) -> Vec<Span> {
    let mut b = tile;
    for ax in &c.axes[c.num_parallel()..] {
        b.push(Span {
            coef: vec![0; nb],
            lo: 0,
            size: ax.extent,
        });
    }
    b
}

/// The span covering `x` and `y` in every block, its start moving by `coef` per block
/// (`blocks`: blocks per coefficient column, the last partial block included): `--connect`'s
/// [`cover_moving`], so that the region allocated is the tile the model counted.
fn cover_with(x: &Span, y: &Span, coef: &[i64], blocks: &[i64]) -> Span {
    let last: Vec<i64> = blocks.iter().map(|&n| n - 1).collect();
    let spans = [x, y]
        .into_iter()
        .map(|s| (s.lo, s.lo + s.size - 1, &s.coef[..]));
    let (lo, hi) = cover_moving(spans, coef, &last);
    Span {
        coef: coef.to_vec(),
        lo,
        size: hi - lo + 1,
    }
}

/// Adds `b` to the region `r` of a producer of shape `shape`: the union of two boxes that
/// move with the block alike. Where they move differently (a pyramid level read at `[y]`
/// and at `[2y]`, an upsample's `2y` and `2y + 1` beside a plain read): one span that
/// covers both in every block of the grid (`blocks`: blocks per coefficient column), its
/// start moving as one of the two does (the one giving the smaller span, [`cover_with`]),
/// and the whole dim when that is no smaller. A fixed span covering the whole extent (a
/// reduction reading whole rows) covers any other.
fn union(
    r: &mut Option<Vec<Span>>,
    b: Vec<Span>,
    shape: &[i64],
    blocks: &[i64],
) -> Result<(), String> {
    let Some(r) = r else {
        *r = Some(b);
        return Ok(());
    };
    for ((x, y), &ext) in r.iter_mut().zip(b).zip(shape) {
        let whole = |s: &Span| s.coef.iter().all(|&c| c == 0) && s.lo <= 0 && s.lo + s.size >= ext;
        if x.coef != y.coef && whole(x) {
            continue;
        }
        if x.coef != y.coef && whole(&y) {
            *x = y;
            continue;
        }
        if x.coef != y.coef {
            let step = x.step_column();
            if x.coef[step] != 0 || y.coef[step] != 0 {
                return Err(
                    "a k-step's input copy read at offsets that move differently: not lowered yet"
                        .into(),
                );
            }
            let (p, q) = (
                cover_with(x, &y, &x.coef, blocks),
                cover_with(x, &y, &y.coef, blocks),
            );
            let best = if q.size < p.size { q } else { p };
            *x = if best.size >= ext {
                Span {
                    coef: vec![0; x.coef.len()],
                    lo: 0,
                    size: ext,
                }
            } else {
                best
            };
            continue;
        }
        let hi = (x.lo + x.size).max(y.lo + y.size);
        x.lo = x.lo.min(y.lo);
        x.size = hi - x.lo;
    }
    Ok(())
}

/// Propagates the axis box `axes` of `c` through its accesses (§3.1): into the regions of
/// the shared stages it reads, and through the reductions it recomputes. `blocks`: the
/// grid's blocks per coefficient column ([`union`]).
fn visit(
    c: &TeCompute,
    srcs: &[ReSrc],
    axes: &[Span],
    regions: &mut [Option<Vec<Span>>],
    blocks: &[i64],
) -> Result<(), String> {
    let nb = axes.first().map_or(0, |s| s.coef.len());
    for a in &c.accesses {
        match &srcs[a.input] {
            ReSrc::Arg(_) => {}
            ReSrc::Shared(k) => {
                let shape = &c.inputs[a.input].shape;
                let img = image(&a.map.results, axes, shape);
                union(&mut regions[*k], img, shape, blocks)?
            }
            ReSrc::Recompute(rc) => {
                let shape = &c.inputs[a.input].shape;
                let b = with_reductions(&rc.compute, image(&a.map.results, axes, shape), nb);
                visit(&rc.compute, &rc.srcs, &b, regions, blocks)?;
            }
        }
    }
    Ok(())
}

/// Each shared stage's region: the anchor's block tile (`block`, over its axes; reduction
/// axes whole) propagated to every stage (§3.1), consumers before producers. A dim whose
/// span does not move with the block is clipped to the producer's extent.
pub fn plan_regions(
    anchor: &TeCompute,
    block: &[u64],
    (sources, tail): (&[ReSrc], Option<&TailStage>),
    stages: &mut [SharedStage],
) -> Result<(), String> {
    let n = anchor.axes.len();
    let np = anchor.num_parallel();
    // One column per anchor axis, and the k-step base's (see `Span`).
    let nb = n + 1;
    // Blocks per column: the grid along each parallel axis; 1 elsewhere.
    let mut blocks = vec![1i64; nb];
    for a in 0..np {
        let b = (block[a] as i64).max(1);
        blocks[a] = (anchor.axes[a].extent + b - 1) / b;
    }
    let axes: Vec<Span> = (0..n)
        .map(|a| {
            // Per block index the base moves by the block tile; an axis one block covers
            // has its base always 0.
            let mut coef = vec![0; nb];
            if a < np && (block[a] as i64) < anchor.axes[a].extent {
                coef[a] = block[a] as i64;
            }
            Span {
                coef,
                lo: 0,
                size: if a < np {
                    block[a] as i64
                } else {
                    anchor.axes[a].extent
                },
            }
        })
        .collect();
    let mut regions: Vec<Option<Vec<Span>>> = vec![None; stages.len()];
    visit(anchor, sources, &axes, &mut regions, &blocks)?;
    if let Some(t) = tail {
        // The epilogue reads its stages at the block's points (the anchor's parallel axes).
        for a in &t.compute.accesses {
            if let Some(ReSrc::Shared(k)) = &t.srcs[a.input] {
                let shape = &t.compute.inputs[a.input].shape;
                let img = image(&a.map.results, &axes[..np], shape);
                union(&mut regions[*k], img, shape, &blocks)?;
            }
        }
    }
    for k in (0..stages.len()).rev() {
        // A stage nothing reads is a result of the kernel (`super::results`) beside the
        // anchor's: of the anchor's result shape, its tile is the block's.
        let unread = (stages[k].compute.result.shape[..]
            == anchor.axes[..np]
                .iter()
                .map(|a| a.extent)
                .collect::<Vec<_>>()[..])
            .then(|| axes[..np].to_vec());
        let mut r = regions[k]
            .take()
            .or(unread)
            .ok_or("a shared stage that nothing in the kernel reads, of another shape than the anchor's result")?;
        for (s, &ext) in r.iter_mut().zip(&stages[k].compute.result.shape) {
            if s.coef.iter().all(|&c| c == 0) {
                let hi = (s.lo + s.size).min(ext);
                s.lo = s.lo.max(0);
                s.size = (hi - s.lo).max(1);
            }
        }
        let st = &stages[k];
        let mut b = with_reductions(&st.compute, r.clone(), nb);
        if let Some(step) = &st.step {
            // One step's slice of the stepped axis: what its copies hold at a time.
            let mut coef = vec![0; nb];
            coef[n] = 1;
            b[step.axis] = Span {
                coef,
                lo: 0,
                size: step.size,
            };
        }
        visit(&st.compute, &st.srcs, &b, &mut regions[..k], &blocks)
            .map_err(|e| format!("shared stage {k}: {e}"))?;
        stages[k].region = r;
    }
    Ok(())
}

/// The shared stages a source tree reads.
fn reads(srcs: &[ReSrc], out: &mut Vec<usize>) {
    for s in srcs {
        match s {
            ReSrc::Arg(_) => {}
            ReSrc::Shared(k) => out.push(*k),
            ReSrc::Recompute(rc) => reads(&rc.srcs, out),
        }
    }
}

/// Adds the shared stages to `plan` (`p`: its program): the anchor's inputs that read a
/// stage are no longer staged from global memory, each stage gets its buffer, and every
/// buffer its offset from a best-fit allocation (§4.2) in execution order — stage buffers as
/// their stages start, freed after their last reading stage's barrier (the stages of
/// `results`, written out to global memory, never); the anchor's own
/// buffers (staged tiles, cross-thread reduction) last, alive to the end.
pub(super) fn plan_shared_stages(
    plan: &mut KernelPlan,
    p: &RProgram,
    stages: &[SharedStage],
    results: &[usize],
) -> Result<(), String> {
    plan.shared_stages = stages.to_vec();
    if stages.is_empty() {
        return Ok(());
    }
    let stage = plan
        .stages
        .first_mut()
        .ok_or("internal error: a plan without a stage")?;
    let mut restaged = false;
    for input in &mut stage.inputs {
        if matches!(plan.sources.get(input.input), Some(ReSrc::Shared(_)))
            && input.source != InputSource::Global
        {
            input.source = InputSource::Global;
            restaged = true;
        }
    }
    if restaged {
        stage.unblock_unstaged();
        let (tiles, mut buffers, _, vectorized) = plan_staged(stage, p);
        buffers.extend(
            plan.shared_buffers
                .iter()
                .filter(|b| b.slot == REDUCTION_SLOT)
                .cloned(),
        );
        plan.staging.prefetch &= !tiles.is_empty();
        plan.staging.tiles = tiles;
        plan.staging.vectorized = vectorized;
        plan.shared_buffers = buffers;
    }
    // Last reader of each stage: a later stage, or the anchor (`usize::MAX`, to the end).
    let mut last = vec![0usize; stages.len()];
    let mut anchor_reads = Vec::new();
    reads(&plan.sources, &mut anchor_reads);
    // The epilogue reads its stages at the store, after the anchor's loop.
    if let Some(t) = &plan.tail {
        anchor_reads.extend(t.stages());
    }
    // A stage the kernel writes out as a result (`results`) is read back after its
    // barrier: alive to the end too.
    for k in anchor_reads.into_iter().chain(results.iter().copied()) {
        last[k] = usize::MAX;
    }
    for (j, st) in stages.iter().enumerate() {
        let mut r = Vec::new();
        reads(&st.srcs, &mut r);
        for k in r {
            if last[k] != usize::MAX {
                last[k] = last[k].max(j);
            }
        }
    }
    let mut alloc = BestFit::default();
    let mut offsets: BTreeMap<usize, u64> = BTreeMap::new();
    let mut stage_buffers = Vec::new();
    for (j, st) in stages.iter().enumerate() {
        let bytes = st.bytes();
        offsets.insert(stage_slot(j), alloc.alloc(bytes));
        stage_buffers.push(SharedBuffer {
            slot: stage_slot(j),
            ty: shared_memref(&st.shape(), st.compute.result.elem),
            bytes,
        });
        for (k, &l) in last.iter().enumerate() {
            if l == j {
                alloc.free(offsets[&stage_slot(k)], stages[k].bytes());
            }
        }
    }
    for b in &plan.shared_buffers {
        offsets.insert(b.slot, alloc.alloc(b.bytes));
    }
    plan.shared_buffers.extend(stage_buffers);
    let offs = plan
        .shared_buffers
        .iter()
        .map(|b| offsets[&b.slot])
        .collect();
    plan.shared_bytes = alloc.peak();
    plan.shared_layout = Some((offs, alloc.peak()));
    Ok(())
}

/// What [`Lowering::stage_points`] writes at each point of a stage's tile inside the
/// producer's domain (outside it: 0, written by the first pass).
#[derive(Clone, Copy)]
pub(super) enum Fill {
    /// The producer's value (its whole reduction).
    Whole,
    /// The combiner's identity: a stepped stage before its first step.
    Init,
    /// The tile's value folded with reduction axis `.0` over `.1 .. .1 + .2` (one k-step).
    Step(usize, Value, i64),
}

impl Lowering<'_> {
    /// Computes every shared stage's tile into its buffer (see the module doc): thread
    /// `tid` takes points `tid, tid + threads, ..` of the tile; points outside the
    /// producer's domain (halo past the edge, a partial block) hold 0, never read as data.
    /// A barrier ends each stage, so its readers (and a buffer reusing its space) run after.
    /// A stepped stage ([`KStep`]) loads its input copies and accumulates once per step
    /// (`super::shared_steps`); the copies are loaded there, not here.
    pub(super) fn materialize(&mut self, tid: Value) -> Result<(), String> {
        let plan = self.plan;
        let per_step: Vec<usize> = plan
            .shared_stages
            .iter()
            .filter_map(|s| s.step.as_ref())
            .flat_map(|s| s.copies.iter().copied())
            .collect();
        for (k, st) in plan.shared_stages.iter().enumerate() {
            if per_step.contains(&k) {
                // Its base moves with the step: set inside its stage's step loop.
                self.stage_lo.push(Vec::new());
                continue;
            }
            let lo = self.region_lo(&st.region, None)?;
            self.stage_lo.push(lo.clone());
            match &st.step {
                None => {
                    self.stage_points(k, &lo, tid, Fill::Whole)?;
                    self.em.barrier();
                }
                Some(step) => self.materialize_steps(k, step, &lo, tid)?,
            }
        }
        Ok(())
    }

    /// The first element of a region in this block: `lo + Σ coef[a]·b[a]` over the
    /// anchor's block indices (`b[a] = base[a] / block[a]`, or `base[a]·(coef/block)` when
    /// the block divides the coefficient), and `step` (the current k-step's base) on the
    /// step column.
    pub(super) fn region_lo(
        &mut self,
        region: &[Span],
        step: Option<Value>,
    ) -> Result<Vec<Value>, String> {
        let mut lo = Vec::new();
        for s in region {
            let mut v = self.em.idx(s.lo);
            for (a, &cf) in s.coef.iter().enumerate() {
                if cf == 0 {
                    continue;
                }
                let t = if a == s.step_column() {
                    // Only a stepped stage's copies move with the step (plan_regions).
                    let base =
                        step.ok_or("internal error: a tile that moves with a k-step outside one")?;
                    self.em.mul_const(base, cf)
                } else {
                    let block = self.plan.stages[0].axes[a].block_tile;
                    let base = self.tile_base[a];
                    if cf % block == 0 {
                        self.em.mul_const(base, cf / block)
                    } else {
                        let bt = self.em.idx(block);
                        let b = self.em.ibin("arith.divui", base, bt);
                        self.em.mul_const(b, cf)
                    }
                };
                v = self.em.add(v, t);
            }
            lo.push(v);
        }
        Ok(lo)
    }

    /// One pass of the block's threads over stage `k`'s tile (at `lo`), thread `tid`
    /// taking points `tid, tid + threads, ..`: see [`Fill`] for what each point gets.
    pub(super) fn stage_points(
        &mut self,
        k: usize,
        lo: &[Value],
        tid: Value,
        fill: Fill,
    ) -> Result<(), String> {
        let plan = self.plan;
        let st = &plan.shared_stages[k];
        let shape = st.shape();
        let total: i64 = shape.iter().product();
        if matches!(fill, Fill::Whole)
            && let Some(lanes) = stage_lanes(&st.compute, total, plan.block_threads)
        {
            return self.stage_points_lanes(k, lo, tid, lanes);
        }
        let (n, step) = (self.em.idx(total), self.em.idx(plan.block_threads));
        let (iv, _, _) = self.em.begin_for(tid, n, step, &[]);
        let (coords, at, cond) = self.stage_point(k, lo, iv);
        let c = &st.compute;
        let elem = c.result.elem;
        let buf = self.shared_buffer(stage_slot(k));
        let mut addr = vec![buf];
        addr.extend(coords);
        if let Fill::Step(axis, base, size) = fill {
            // Outside the domain the tile keeps the 0 its first pass wrote.
            if let Some(cond) = cond {
                self.em.begin_then(cond);
            }
            let acc = self.em.op("memref.load", &addr, &[], ty(elem));
            let rc = Recompute {
                compute: c.clone(),
                srcs: st.srcs.clone(),
            };
            let v = self.fold(&rc, &at, acc, Some((axis, base, size)), None)?;
            let mut args = vec![v];
            args.extend_from_slice(&addr);
            self.em.op0("memref.store", &args, &[]);
            if cond.is_some() {
                self.em.end_then();
            }
            self.em.end_for(&[]);
            return Ok(());
        }
        let value = |cx: &mut Self| match fill {
            Fill::Init => {
                let comb = c
                    .combiner
                    .ok_or("internal error: a stepped stage without a reduction")?;
                Ok(cx.constant(comb.identity(c.acc_type()), elem))
            }
            _ => {
                let rc = Recompute {
                    compute: c.clone(),
                    srcs: st.srcs.clone(),
                };
                cx.recompute(&rc, &at)
            }
        };
        let v = match cond {
            None => value(self)?,
            Some(cond) => {
                let r = self.em.begin_if(cond, &[ty(elem)]);
                let v = value(self)?;
                self.em.else_(&[v]);
                let z = self.constant(0.0, elem);
                self.em.end_if(Some(&[z]));
                r[0]
            }
        };
        let mut args = vec![v];
        args.extend(addr);
        self.em.op0("memref.store", &args, &[]);
        self.em.end_for(&[]);
        Ok(())
    }

    /// Point `p` of stage `k`'s tile (at `lo`): its coordinates in the tile, in the
    /// producer's index space, and whether it lies inside the producer's domain (`None`:
    /// always).
    pub(super) fn stage_point(
        &mut self,
        k: usize,
        lo: &[Value],
        p: Value,
    ) -> (Vec<Value>, Vec<Value>, Option<Value>) {
        let plan = self.plan;
        let st = &plan.shared_stages[k];
        let coords = self.decompose(p, &st.shape());
        let at: Vec<Value> = lo
            .iter()
            .zip(&coords)
            .map(|(&l, &c)| self.em.add(l, c))
            .collect();
        let checks = vec![(true, true); at.len()];
        let cond = self.in_bounds(&at, &st.compute.result.shape, &checks);
        (coords, at, cond)
    }

    /// The value of source `s` (of tensor type `t`) at `idx`; `pad`: the access's pad
    /// value, returned outside `t`'s bounds.
    pub(super) fn source_load(
        &mut self,
        s: &ReSrc,
        idx: &[Value],
        t: &rtile_dialects::te::model::TensorType,
        pad: Option<f64>,
    ) -> Result<Value, String> {
        let cond = if pad.is_some() {
            let checks = vec![(true, true); idx.len()];
            self.in_bounds(idx, &t.shape, &checks)
        } else {
            None
        };
        let padv = pad.unwrap_or(0.0);
        Ok(match s {
            // Outside the producer's domain the read is the pad value; the producer is
            // not evaluated there (its own reads could leave their tensors).
            ReSrc::Recompute(inner) => match cond {
                Some(cond) => {
                    let et = ty(t.elem);
                    let r = self.em.begin_if(cond, std::slice::from_ref(&et));
                    let v = self.recompute(inner, idx)?;
                    self.em.else_(&[v]);
                    let p = self.constant(padv, t.elem);
                    self.em.end_if(Some(&[p]));
                    r[0]
                }
                None => self.recompute(inner, idx)?,
            },
            ReSrc::Arg(k) => {
                let m = self.args[*k];
                self.guarded_load(m, idx, cond, t.elem, padv)
            }
            ReSrc::Shared(k) => {
                let lo = self.stage_lo[*k].clone();
                let local: Vec<Value> = idx
                    .iter()
                    .zip(&lo)
                    .map(|(&i, &l)| self.em.ibin("arith.subi", i, l))
                    .collect();
                let buf = self.shared_buffer(stage_slot(*k));
                self.guarded_load(buf, &local, cond, t.elem, padv)
            }
        })
    }
}

/// Bytes of shared memory the stages' input copies may add (§4.1: a tile over capacity is
/// not an option; 48 KiB is the smallest static shared capacity of the devices described).
const COPY_LIMIT_BYTES: u64 = 48 * 1024;

/// `srcs` with every `Shared(k)` renumbered through `map`.
fn renumber(srcs: &[ReSrc], map: &[usize]) -> Vec<ReSrc> {
    srcs.iter().map(|s| renumber_one(s, map)).collect()
}

/// `s` with every `Shared(k)` renumbered through `map`.
fn renumber_one(s: &ReSrc, map: &[usize]) -> ReSrc {
    match s {
        ReSrc::Arg(k) => ReSrc::Arg(*k),
        ReSrc::Shared(k) => ReSrc::Shared(map[*k]),
        ReSrc::Recompute(rc) => ReSrc::Recompute(Box::new(Recompute {
            compute: rc.compute.clone(),
            srcs: renumber(&rc.srcs, map),
        })),
    }
}

/// The identity copy of a tensor of type `t` (a stage that stages a global input).
fn copy_of(t: &rtile_dialects::te::model::TensorType) -> TeCompute {
    use rtile::ir::AffineMap;
    use rtile_dialects::te::model::{Access, Axis, AxisKind, Expr};
    let n = t.shape.len();
    TeCompute {
        axes: t
            .shape
            .iter()
            .enumerate()
            .map(|(d, &e)| Axis {
                name: format!("d{d}"),
                extent: e,
                kind: AxisKind::Parallel,
            })
            .collect(),
        inputs: vec![t.clone()],
        accesses: vec![Access {
            input: 0,
            map: AffineMap::new(n as u32, 0, (0..n as u32).map(AffineExpr::Dim).collect()),
            pad: None,
        }],
        body: Expr::Access(0),
        combiner: None,
        result: t.clone(),
        may_pad: None,
        accumulator: None,
        padded_from: None,
    }
}

/// `stages` with each reducing stage's global inputs staged by copy stages of their own,
/// placed just before it, and each stage's old index mapped to its new one. With
/// `step_cap`, a stage [`KStep::applies`] to is computed in k-steps of at most that many
/// reduction indices along its longest reduction axis (the largest divisor of its extent
/// that fits), its copies holding one step's slice; `None`: whole copies.
fn with_copies(stages: &[SharedStage], step_cap: Option<i64>) -> (Vec<SharedStage>, Vec<usize>) {
    let mut with: Vec<SharedStage> = Vec::new();
    let mut map = Vec::new();
    for st in stages {
        let mut srcs = renumber(&st.srcs, &map);
        let step = step_cap.and_then(|cap| KStep::choose(&st.compute, &st.srcs, cap));
        let mut copies = Vec::new();
        if st.compute.combiner.is_some() {
            for (i, s) in srcs.iter_mut().enumerate() {
                if let ReSrc::Arg(k) = s {
                    let copy = copy_of(&st.compute.inputs[i]);
                    with.push(SharedStage::new(copy, vec![ReSrc::Arg(*k)], usize::MAX));
                    copies.push(with.len() - 1);
                    *s = ReSrc::Shared(with.len() - 1);
                }
            }
        }
        map.push(with.len());
        with.push(SharedStage {
            srcs,
            step: step.map(|(axis, size)| KStep { axis, size, copies }),
            ..st.clone()
        });
    }
    (with, map)
}

/// Plans the stages' regions ([`plan_regions`]), first with each reducing stage's global
/// inputs staged in shared memory by copy stages of their own (loaded once per block,
/// coalesced, instead of once per point that reads them: a reduction stage computes many
/// points from the same inputs, and global memory has no cache to catch the re-reads,
/// §3.1's traffic counts each boundary tile once per block). When those copies would take
/// more than `COPY_LIMIT_BYTES`, the stages whose inputs are all global are computed in
/// k-steps (Welder §3.1: input tiles along a reduction axis "loaded and consumed
/// sequentially by accumulating their results to the output tile"), the largest steps
/// (≤ 256, 128, .., 1 indices) whose copies fit; without copies when none fits or the
/// copies cannot be planned.
pub fn plan_stages(
    anchor: &TeCompute,
    block: &[u64],
    (sources, mut tail): (&mut Vec<ReSrc>, Option<&mut TailStage>),
    stages: &mut Vec<SharedStage>,
) -> Result<(), String> {
    let caps = [None].into_iter().chain(STEP_CAPS.iter().map(|&c| Some(c)));
    for cap in caps {
        let (mut with, map) = with_copies(stages, cap);
        if with.len() == stages.len() {
            break;
        }
        if cap.is_some() && with.iter().all(|s| s.step.is_none()) {
            // Every reduction is within the cap: the whole copies, already tried.
            continue;
        }
        let mut with_sources = renumber(sources, &map);
        let with_tail = tail.as_deref().map(|t| TailStage {
            srcs: t
                .srcs
                .iter()
                .map(|s| s.as_ref().map(|s| renumber_one(s, &map)))
                .collect(),
            compute: t.compute.clone(),
        });
        let planned = plan_regions(
            anchor,
            block,
            (&with_sources, with_tail.as_ref()),
            &mut with,
        );
        let bytes: u64 = with.iter().map(SharedStage::bytes).sum();
        if planned.is_ok() && bytes <= COPY_LIMIT_BYTES {
            *stages = with;
            std::mem::swap(sources, &mut with_sources);
            if let (Some(t), Some(w)) = (tail.as_deref_mut(), with_tail) {
                *t = w;
            }
            return Ok(());
        }
    }
    plan_regions(anchor, block, (sources, tail.as_deref()), stages)
}

/// The k-step sizes [`plan_stages`] tries, largest first: the connect model's reduction
/// steps (`connect::tiling`, 256 to 8), then smaller ones for copies whose other dims are
/// large (a whole feature map per reduction index).
const STEP_CAPS: [i64; 9] = [256, 128, 64, 32, 16, 8, 4, 2, 1];
