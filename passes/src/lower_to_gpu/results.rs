//! Kernels with several results lowered as ONE kernel (Welder, OSDI'23 §3.1: every member
//! whose value leaves the sub-graph is an output node of the one kernel; §3.2/§4.2: a
//! shared-connected producer's tile lives in shared memory). The last yielded result (the
//! kernel's sink) is the anchor: its tiling is the kernel's block tiling. Every other
//! result is a shared stage of the anchor's kernel (made one when its consumer reads it in
//! registers): each block computes the stage's propagated tile into shared memory as for
//! any shared stage, and after the stage's barrier writes to global memory the part of that
//! tile it *owns*, so that every element of the result is written by exactly one block
//! ([`Owned`]). Where the owned parts would not partition the result (a stage region that
//! moves with two block axes along one dim, a step that leaves gaps, a result no member
//! reads), [`fuse_results`] refuses and the caller falls back to one kernel per result
//! (`fuse::result_members`). See `docs/passes/lower-to-gpu.md`, "Kernels with several
//! results".

use rtile::ir::Value;
use rtile_dialects::arith::CmpIPredicate;

use super::context::Lowering;
use super::fuse::{FusedGroup, MemberView, fuse_members_forced};
use super::shared_stage::{SharedStage, Span, stage_slot};

/// How one dim of a result a shared stage writes is divided among the blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnDim {
    /// The stage's tile moves by `step` per block index along anchor axis `axis`: block
    /// `b` owns `[b·step, (b+1)·step)`, clipped to the extent (its halo, which overlaps the
    /// neighbours' tiles, is left to them); the last of the `blocks` blocks along the
    /// axis owns everything from its start to the extent (a stencil's producer is larger
    /// than the grid's steps by its halo, which only the last block's tile covers).
    Moves { axis: usize, step: i64, blocks: i64 },
    /// The tile does not move with the block and covers the whole dim: owned whole.
    Whole,
}

/// The part of a result each block writes: per result dim an [`OwnDim`], and the anchor
/// axes (with more than one block) along which the stage's tile does not move: there
/// only the block with index 0 writes, the others computed the same tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owned {
    pub dims: Vec<OwnDim>,
    pub first_only: Vec<usize>,
}

/// A result of a multi-result kernel other than the anchor's: written by shared stage
/// `stage` into the kernel's output argument `output` (0: the first output; the anchor's
/// output is the last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageResult {
    pub stage: usize,
    pub output: usize,
    pub owned: Owned,
}

/// Blocks of the grid along each anchor axis (1 on reduction axes), as `plan_regions`
/// counts them.
fn grid(anchor: &rtile_dialects::te::model::TeCompute, block: &[u64]) -> Vec<i64> {
    let np = anchor.num_parallel();
    (0..anchor.axes.len())
        .map(|a| {
            if a < np {
                let b = (block[a] as i64).max(1);
                (anchor.axes[a].extent + b - 1) / b
            } else {
                1
            }
        })
        .collect()
}

/// The part of shared stage `st`'s result each block owns (see [`Owned`]), or why the
/// owned parts would not partition the result.
pub fn owned_part(st: &SharedStage, grid: &[i64]) -> Result<Owned, String> {
    if st.step.is_some() && st.moves_with_step() {
        return Err("a result whose tile moves with a k-step".into());
    }
    let mut dims = Vec::new();
    let mut moving = vec![false; grid.len()];
    for (d, (s, &ext)) in st.region.iter().zip(&st.compute.result.shape).enumerate() {
        let cols: Vec<usize> = (0..s.step_column()).filter(|&a| s.coef[a] != 0).collect();
        dims.push(match cols[..] {
            [] => {
                if s.lo > 0 || s.lo + s.size < ext {
                    return Err(format!(
                        "result dim {d}: a tile fixed in every block that does not cover the dim"
                    ));
                }
                OwnDim::Whole
            }
            [a] => owned_moving(s, a, grid[a], ext, &mut moving)
                .map_err(|e| format!("result dim {d}: {e}"))?,
            _ => {
                return Err(format!(
                    "result dim {d}: a tile that moves with two block axes"
                ));
            }
        });
    }
    let first_only = (0..grid.len())
        .filter(|&a| !moving[a] && grid[a] > 1)
        .collect();
    Ok(Owned { dims, first_only })
}

/// [`OwnDim::Moves`] for a span moving with anchor axis `a` (`n` blocks along it) in a dim
/// of extent `ext`, when the owned steps tile the dim: each inside its block's tile, no
/// gap between them, the last block reaching the end.
fn owned_moving(
    s: &Span,
    a: usize,
    n: i64,
    ext: i64,
    moving: &mut [bool],
) -> Result<OwnDim, String> {
    let step = s.coef[a];
    if step <= 0 {
        return Err("a tile that moves backwards with the block".into());
    }
    if moving[a] {
        return Err("two dims moving with one block axis".into());
    }
    if s.lo > 0 || s.lo + s.size < step {
        return Err(format!(
            "a tile of {} at {} per block moving by {step}: the steps leave gaps",
            s.size, s.lo
        ));
    }
    if s.lo + (n - 1) * step + s.size < ext {
        return Err(format!(
            "{n} blocks' tiles moving by {step} do not reach the extent {ext}"
        ));
    }
    moving[a] = true;
    Ok(OwnDim::Moves {
        axis: a,
        step,
        blocks: n,
    })
}

/// The kernel of `views` (every member of a `tilegraph.kernel`, in order) writing every
/// result: `results` are the members yielded, in yield order, the last one the kernel's
/// sink (the anchor). The other results are made shared stages, each with its owned part.
/// `Err` with the reason when the one kernel cannot be planned: the caller then lowers
/// one kernel per result. `--connect` asks the same (`connect::fit::planned_as_one`)
/// to know how many kernels it costs.
pub fn fuse_results(
    views: &[MemberView],
    results: &[usize],
    device: &str,
) -> Result<FusedGroup, String> {
    let Some((&sink, others)) = results.split_last() else {
        return Err("a kernel without results".into());
    };
    if sink + 1 != views.len() {
        return Err("the last result is not the kernel's last member".into());
    }
    let mut forced = vec![false; views.len()];
    for &r in others {
        if r >= sink {
            return Err("a result after the sink".into());
        }
        forced[r] = true;
    }
    let mut g = fuse_members_forced(views, device, &forced)?;
    let grid = grid(&g.anchor, &g.program.block);
    let mut out = Vec::new();
    for (output, &r) in others.iter().enumerate() {
        let stage = g
            .shared_stages
            .iter()
            .position(|s| s.member == r)
            .ok_or_else(|| format!("result {output} is not a shared stage of the kernel"))?;
        let owned = owned_part(&g.shared_stages[stage], &grid)
            .map_err(|e| format!("result {output}: {e}"))?;
        out.push(StageResult {
            stage,
            output,
            owned,
        });
    }
    g.stage_results = out;
    Ok(g)
}

impl Lowering<'_> {
    /// Writes the owned part of shared stage `k`'s tile (at `self.stage_lo[k]`, computed
    /// and behind a barrier) to global output `out`: thread `tid` takes points `tid, tid +
    /// threads, ..` of the owned box, guarded by the result's extent and, along the block
    /// axes that do not move the tile, by the block's index being 0.
    pub(super) fn write_stage_result(
        &mut self,
        r: &StageResult,
        out: Value,
        tid: Value,
    ) -> Result<(), String> {
        let plan = self.plan;
        let st = &plan.shared_stages[r.stage];
        let shape = &st.compute.result.shape;
        let mut first = None;
        for &a in &r.owned.first_only {
            let z = self.em.idx(0);
            let c = self.em.cmp(CmpIPredicate::Eq, self.tile_base[a], z);
            first = self.em.and(first, c);
        }
        if let Some(c) = first {
            self.em.begin_then(c);
        }
        let mut lo = Vec::new();
        let mut sizes = Vec::new();
        // Per moving dim: the step, and whether this block is the last along its axis.
        let mut limits: Vec<Option<(i64, Value)>> = Vec::new();
        for (d, own) in r.owned.dims.iter().enumerate() {
            match *own {
                OwnDim::Whole => {
                    lo.push(self.em.idx(0));
                    sizes.push(shape[d]);
                    limits.push(None);
                }
                OwnDim::Moves { axis, step, blocks } => {
                    let block = plan.stages[0].axes[axis].block_tile;
                    let base = self.tile_base[axis];
                    let v = if step % block == 0 {
                        self.em.mul_const(base, step / block)
                    } else {
                        let bt = self.em.idx(block);
                        let b = self.em.ibin("arith.divui", base, bt);
                        self.em.mul_const(b, step)
                    };
                    lo.push(v);
                    // The last block's part: from its start to the extent.
                    let tail = shape[d] - (blocks - 1) * step;
                    sizes.push(step.max(tail).min(shape[d]));
                    limits.push(if tail > step {
                        let last_at = self.em.idx((blocks - 1) * block);
                        Some((step, self.em.cmp(CmpIPredicate::Eq, base, last_at)))
                    } else {
                        None
                    });
                }
            }
        }
        let total: i64 = sizes.iter().product();
        let (n, step) = (self.em.idx(total), self.em.idx(plan.block_threads));
        let (iv, _, _) = self.em.begin_for(tid, n, step, &[]);
        let coords = self.decompose(iv, &sizes);
        let at: Vec<Value> = lo
            .iter()
            .zip(&coords)
            .map(|(&l, &c)| self.em.add(l, c))
            .collect();
        let checks: Vec<(bool, bool)> = r
            .owned
            .dims
            .iter()
            .enumerate()
            .map(|(d, o)| {
                (
                    false,
                    matches!(o, OwnDim::Moves { step, .. } if *step < shape[d]),
                )
            })
            .collect();
        let mut cond = self.in_bounds(&at, shape, &checks);
        for (&c, lim) in coords.iter().zip(&limits) {
            // Past the step only in the last block.
            if let Some((step, last)) = *lim {
                let s = self.em.idx(step);
                let inside = self.em.cmp(CmpIPredicate::Slt, c, s);
                let ok = self
                    .em
                    .op("arith.ori", &[inside, last], &[], rtile::ir::Type::i1());
                cond = self.em.and(cond, ok);
            }
        }
        if let Some(c) = cond {
            self.em.begin_then(c);
        }
        let slo = self.stage_lo[r.stage].clone();
        let local: Vec<Value> = at
            .iter()
            .zip(&slo)
            .map(|(&i, &l)| self.em.ibin("arith.subi", i, l))
            .collect();
        let buf = self.shared_buffer(stage_slot(r.stage));
        let elem = st.compute.result.elem;
        let mut addr = vec![buf];
        addr.extend(local);
        let v = self
            .em
            .op("memref.load", &addr, &[], super::types::ty(elem));
        let mut args = vec![v, out];
        args.extend(at);
        self.em.op0("memref.store", &args, &[]);
        if cond.is_some() {
            self.em.end_then();
        }
        self.em.end_for(&[]);
        if first.is_some() {
            self.em.end_then();
        }
        Ok(())
    }
}
