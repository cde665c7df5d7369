//! The lowering's blocked thread map, as the features see it (OOPSLA'21 §5.1 and
//! Appendix A: transactions per warp request are counted from the points the lanes of a
//! representative warp touch, so the model must place each lane's points where the kernel
//! does; digest `halide-gpu-autoscheduler.md` §5.2).
//!
//! `--lower-to-gpu` gives the threads of a reduction kernel blocked runs of 4 consecutive
//! points along a spatial axis (`thread_map.rs`: point `(j / 4)·4·threads + 4·t + j mod 4`
//! of thread `t` at serial index `j`) where some access's staged shared tile can then be
//! read 16 bytes at a time ([`vector_read_axis`]), and interleaves (`j·threads + t`)
//! everywhere else. [`blocked_dims`] takes that decision for a kernel of the search with
//! the lowering's own functions ([`vector_read_axis`], [`runs_can_merge`]) on the accesses
//! the lowering's anchor has, so the features follow the map that runs.

use rtile_dialects::tilegraph::Level;

use super::kernel::KernelPlan;
use super::pipeline::Pipeline;
use super::staged::epilogue_anchor;
use crate::connect::graph::DimIndex;
use crate::connect::tiling::Levels;
use crate::construct_rtile::AffineIndex;
use crate::lower_to_gpu::thread_map::{AxisTiles, runs_can_merge, vector_read_axis};

/// Per parallel dim of `k`'s root: whether the lowered kernel's threads own blocked runs of
/// 4 points along it (`thread-mapping=auto`, the default).
///
/// The lowering blocks a spatial axis of a reduction anchor whose register tile is
/// unrolled when some access's shared tile has its last dim indexed by that axis alone
/// (`plan_thread_map`). The anchor's accesses here are the root's, where a read of an
/// element-wise producer fused in registers is replaced by that producer's own reads
/// composed with it (the lowering inlines such producers, `fuse.rs`); a read of an outside
/// tensor is taken as it is, and a read of another member (a block-level stage, read in
/// place a word at a time) is left out. Every linear access of a
/// reduction anchor is staged (`program_of_tiles`: a reduction's program stages), with no
/// storage padding. An element-wise root over a register-fused reduction (the lowering's
/// epilogue form, [`epilogue_anchor`]) runs the reduction's loop nest: the reduction's
/// tiles and accesses decide, and the root's stores follow its map. Any other root that
/// is not a reduction blocks nothing.
pub fn blocked_dims(p: &Pipeline, k: &KernelPlan, levels: &Levels) -> Vec<bool> {
    // In the epilogue form the lowering's loop nest (and thread map) is the reduction's.
    let rk = epilogue_anchor(p, k, levels).unwrap_or(k.members.len() - 1);
    let r = k.members[rk];
    let node = &p.g.nodes[r];
    let np = node.num_parallel;
    let mut blocked = vec![false; np];
    let (Some(block), Some(thread)) = (&k.tiles[rk].shared, &k.tiles[rk].register) else {
        return blocked;
    };
    let points: u64 = thread.iter().take(np).product();
    if !runs_can_merge(p.is_reduction(r), points as i64) {
        return blocked;
    }
    let axes: Vec<AxisTiles> = (0..node.domain.len())
        .map(|a| AxisTiles {
            block_tile: block.get(a).copied().unwrap_or(1) as i64,
            thread_tile: thread.get(a).copied().unwrap_or(1) as i64,
            reduction: a >= np,
        })
        .collect();
    let mut accesses = Vec::new();
    anchor_accesses(p, k, levels, r, None, &mut accesses);
    for (indices, elem_bytes) in accesses {
        if let Some(s) = vector_read_axis(&indices, 8 * elem_bytes as u32, &axes, 0) {
            blocked[s] = true;
        }
    }
    blocked
}

/// The accesses of member `n` over the anchor's axes (`outer`: the read of `n` to compose
/// its own indices with, `None` for the anchor itself): (linear indices, element bytes),
/// a register-fused element-wise producer's reads composed in its place. A non-linear
/// access (floor division, modulo) is not staged and is left out.
fn anchor_accesses(
    p: &Pipeline,
    k: &KernelPlan,
    levels: &Levels,
    n: usize,
    outer: Option<&[AffineIndex]>,
    out: &mut Vec<(Vec<AffineIndex>, u64)>,
) {
    for (i, inp) in p.g.nodes[n].inputs.iter().enumerate() {
        let Some(own) = linear(&inp.index) else {
            continue;
        };
        let indices = match outer {
            Some(o) => own.iter().map(|ix| compose(ix, o)).collect(),
            None => own,
        };
        match inp.producer {
            Some(q)
                if k.pos(q).is_some() && levels[n][i] == Level::Register && !p.is_reduction(q) =>
            {
                anchor_accesses(p, k, levels, q, Some(&indices), out);
            }
            // Another member's value (a block-level stage, a reduction promoted to one) is
            // read in place from its shared tile, a word at a time: not staged, so it
            // blocks nothing (`StagePlan::unblock_unstaged`).
            Some(q) if k.pos(q).is_some() => {}
            _ => out.push((indices, inp.elem_bytes)),
        }
    }
}

/// The indices when every one is affine without a division (`Σ c·axis + k`).
fn linear(index: &[DimIndex]) -> Option<Vec<AffineIndex>> {
    index
        .iter()
        .map(|ix| match ix {
            DimIndex::Affine(a) if a.div <= 1 => Some(a.clone()),
            _ => None,
        })
        .collect()
}

/// `ix` (over a producer's axes) at the point `outer` reads (per producer axis, linear
/// over the anchor's axes): `Σ c_b·outer_b + k`, its terms by ascending axis.
fn compose(ix: &AffineIndex, outer: &[AffineIndex]) -> AffineIndex {
    let mut terms: Vec<(usize, i64)> = Vec::new();
    let mut constant = ix.constant;
    for &(b, c) in &ix.terms {
        let Some(o) = outer.get(b) else { continue };
        constant += c * o.constant;
        for &(a, d) in &o.terms {
            match terms.iter_mut().find(|t| t.0 == a) {
                Some(t) => t.1 += c * d,
                None => terms.push((a, c * d)),
            }
        }
    }
    terms.retain(|t| t.1 != 0);
    terms.sort_unstable();
    // A merged read's constant span, scaled through the composition.
    let halo = ix.halo
        + ix.terms
            .iter()
            .filter_map(|&(b, c)| outer.get(b).map(|o| c.unsigned_abs() * o.halo))
            .sum::<u64>();
    AffineIndex {
        terms,
        constant,
        div: 1,
        halo,
    }
}

/// The block-local coordinate of a thread's serial point `j` along a dim with `threads`
/// threads, for the thread at `t`: blocked runs of 4 (`(j / 4)·4·threads + 4·t + j mod
/// 4`) or interleaved (`j·threads + t`), as `thread_map.rs`'s `local_of` places it.
pub fn local_point(blocked: bool, threads: u64, j: u64, t: u64) -> u64 {
    if blocked {
        (j / 4) * 4 * threads + 4 * t + j % 4
    } else {
        j * threads + t
    }
}

/// The lanes (thread coordinates `0..left`, a prefix) whose serial point `j` lies inside
/// `rest` points (the extent less the block's origin) along a dim of `threads` threads.
pub fn lanes_inside(blocked: bool, threads: u64, j: u64, rest: i64) -> u64 {
    let t = threads as i64;
    let left = if blocked {
        let before = ((j / 4) * 4 * threads + j % 4) as i64;
        (rest - before).max(0).div_euclid(4) + i64::from((rest - before).max(0) % 4 != 0)
    } else {
        rest - (j * threads) as i64
    };
    left.clamp(0, t) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of 4: thread 1 of 8 owns 4..7 at j < 4 and 36..39 at 4 ≤ j < 8; interleaved,
    /// 1, 9, 17, ...
    #[test]
    fn points_follow_the_lowering_map() {
        let blocked: Vec<u64> = (0..8).map(|j| local_point(true, 8, j, 1)).collect();
        assert_eq!(blocked, [4, 5, 6, 7, 36, 37, 38, 39]);
        let inter: Vec<u64> = (0..3).map(|j| local_point(false, 8, j, 1)).collect();
        assert_eq!(inter, [1, 9, 17]);
    }

    /// The lanes inside agree with counting the points one by one.
    #[test]
    fn lanes_inside_counts_the_points_inside() {
        for blocked in [false, true] {
            for threads in [1, 3, 8, 32] {
                for j in 0..8 {
                    for rest in -5..300 {
                        let want = (0..threads)
                            .take_while(|&t| (local_point(blocked, threads, j, t) as i64) < rest)
                            .count() as u64;
                        assert_eq!(lanes_inside(blocked, threads, j, rest), want);
                    }
                }
            }
        }
    }

    /// Composing `P[i + 1, j]`'s producer read `A[2·x, y]` gives `A[2·i + 2, j]`.
    #[test]
    fn composition_substitutes_the_read() {
        let aff = |terms: Vec<(usize, i64)>, constant| AffineIndex {
            terms,
            constant,
            div: 1,
            halo: 0,
        };
        let outer = [aff(vec![(0, 1)], 1), aff(vec![(1, 1)], 0)];
        assert_eq!(compose(&aff(vec![(0, 2)], 0), &outer), aff(vec![(0, 2)], 2));
        assert_eq!(compose(&aff(vec![(1, 1)], 0), &outer), aff(vec![(1, 1)], 0));
    }
}
