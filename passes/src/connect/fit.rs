//! Whether `--lower-to-gpu` can fit a kernel `--connect` is about to choose in a block's
//! shared memory (Welder §3.1/§4.1: a configuration over a layer's capacity has an
//! infinite cost). The footprint model ([`super::model::footprint`]) is the paper's
//! estimate; the lowering's shared-memory plan is what the kernel will declare (its staged
//! tiles, shared stages with their halos and whole reductions, the cross-thread reduction
//! buffer, the dynamic layout's alignment), and can be larger. So a candidate is costed by
//! the model but admitted only when the lowering's own plan of it fits: the same functions
//! the lowering runs ([`fuse_members`], [`fused_shared_bytes`]), asked without building IR.

use rtile_dialects::tilegraph::LayerTiles;

use super::propagate::SubGraph;
use super::tiling::Levels;
use crate::device::Device;
use crate::lower_to_gpu::fuse::{MemberView, ReSrc, fuse_members};
use crate::lower_to_gpu::kernel::{compute_shared_bytes, fused_shared_bytes};
use crate::lower_to_gpu::results::fuse_results;
use crate::lower_to_gpu::shared_stage::SharedStage;
use crate::lower_to_gpu::tile_program::program_of_tiles;

/// The members of `sg` that compute output `o`: `o` and its producers among the members
/// (ascending), as the lowering splits a kernel with several results into one kernel per
/// result where it cannot write them all from one (`lower_to_gpu::fuse::result_members`).
fn result_members(sg: &SubGraph<'_>, o: usize) -> Vec<usize> {
    let g = sg.graph;
    let mut needed = vec![false; g.nodes.len()];
    needed[o] = true;
    for &m in sg.members.iter().rev() {
        if !needed[m] {
            continue;
        }
        for inp in &g.nodes[m].inputs {
            if let Some(p) = inp.producer
                && sg.has(p)
            {
                needed[p] = true;
            }
        }
    }
    sg.members.iter().copied().filter(|&m| needed[m]).collect()
}

/// What the lowering plans for the kernel of one result: shared memory per block, threads
/// per block, and the block tile's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lowered {
    /// Shared memory per block, bytes.
    pub bytes: u64,
    /// Threads per block (the program of its tiles, `program_of_tiles`).
    pub threads: u64,
    /// Output points of the block tile.
    pub points: u64,
    /// Bytes one block reads from global memory once per point rather than once per tile:
    /// the global inputs of reducing shared stages the lowering could not stage by copy
    /// stages ([`unstaged_bytes`]). The traffic model (§3.1) counts each boundary tile
    /// once per block; these reads are what the kernel will do instead.
    pub unstaged: u64,
    /// The results the kernel writes: 1, or every output of a kernel with several that
    /// the lowering plans as one kernel ([`fuse_results`]).
    pub results: usize,
}

impl Lowered {
    /// Roller's alignment with the execution unit (§3.1, which Welder's SubGraphTiling
    /// reuses): a block runs whole warps (`teu` threads), unless it has fewer points than
    /// a warp.
    pub fn whole_warps(&self, teu: u64) -> bool {
        self.threads.is_multiple_of(teu) || self.points < teu
    }
}

/// The lowering's plan of the kernel of `sub` (members of `sg`, one result's), with
/// `tiles` indexed like `sg.members`. `None` when the lowering would not lower it as
/// planned here for a reason other than its size (a reshape inside, a shape of fused
/// kernel not lowered yet, tiles it replaces by a program of its own): that is not a
/// capacity question, and `--lower-to-gpu` reports it. `Err` when the lowering's fusion
/// itself says the kernel is "not lowered yet" (a register-connected producer read with a
/// pad value, ...): a kernel `--lower-to-gpu` would refuse is not a configuration to choose.
fn planned(
    sg: &SubGraph<'_>,
    sub: &[usize],
    levels: &Levels,
    tiles: &[LayerTiles],
    dev: &Device,
) -> Result<Option<Lowered>, String> {
    let Some(views) = member_views(sg, sub, levels, tiles) else {
        return Ok(None);
    };
    let shape = |p: &rtile_dialects::rtile::RProgram, np: usize| Lowered {
        bytes: 0,
        threads: p.threads,
        points: p.block.iter().take(np).product(),
        unstaged: 0,
        results: 1,
    };
    if let [v] = &views[..] {
        let Ok(p) = program_of_tiles(&v.tiles, &v.c, &dev.name) else {
            return Ok(None);
        };
        let Ok(bytes) = compute_shared_bytes(&v.c, &p) else {
            return Ok(None);
        };
        return Ok(Some(Lowered {
            bytes,
            ..shape(&p, v.c.num_parallel())
        }));
    }
    let fused = match fuse_members(&views, &dev.name) {
        Ok(f) => f,
        Err(m) if m.contains("not lowered yet") => return Err(m),
        Err(_) => return Ok(None),
    };
    let Ok(bytes) = fused_shared_bytes(&fused) else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        bytes,
        unstaged: unstaged_bytes(&fused.shared_stages),
        ..shape(&fused.program, fused.anchor.num_parallel())
    }))
}

/// The lowering's plan of `sg` as ONE kernel writing all of its outputs (when it has
/// several): what `--lower-to-gpu` lowers when [`fuse_results`] (the one rule both ask)
/// plans it and its shared memory is known; `None`: one kernel per result.
fn planned_as_one(
    sg: &SubGraph<'_>,
    levels: &Levels,
    tiles: &[LayerTiles],
    dev: &Device,
) -> Option<Lowered> {
    let mut outs = sg.outputs();
    if outs.len() < 2 {
        return None;
    }
    outs.reverse();
    let views = member_views(sg, &sg.members, levels, tiles)?;
    let results: Vec<usize> = outs
        .iter()
        .map(|o| sg.members.binary_search(o).ok())
        .collect::<Option<_>>()?;
    let fused = fuse_results(&views, &results, &dev.name).ok()?;
    let bytes = fused_shared_bytes(&fused).ok()?;
    let p = &fused.program;
    Some(Lowered {
        bytes,
        threads: p.threads,
        points: p.block.iter().take(fused.anchor.num_parallel()).product(),
        unstaged: unstaged_bytes(&fused.shared_stages),
        results: outs.len(),
    })
}

/// The members `sub` of `sg` as the lowering reads them (`None` when one is not a
/// te.compute the lowering reads).
fn member_views(
    sg: &SubGraph<'_>,
    sub: &[usize],
    levels: &Levels,
    tiles: &[LayerTiles],
) -> Option<Vec<MemberView>> {
    let g = sg.graph;
    sub.iter()
        .map(|&n| {
            let (c, vals) = g.nodes[n].compute.clone()?;
            let k = sg.members.binary_search(&n).ok()?;
            Some(MemberView {
                c,
                vals,
                levels: levels[n].clone(),
                result: g.nodes[n].result,
                tiles: tiles[k].clone(),
            })
        })
        .collect()
}

/// Bytes a block reads from global memory in the reducing shared stages of `stages` whose
/// inputs come straight from a kernel argument: `plan_stages` stages such inputs by copy
/// stages (once per block) only while every stage with its copies fits its copy limit;
/// otherwise each point of the stage reads its inputs at every reduction index. Counted as
/// one element per point, reduction index and argument input (a warp's 32 points read 32
/// consecutive elements of an input they index, one broadcast element of one they do not:
/// an upper bound, exact for the first kind).
pub fn unstaged_bytes(stages: &[SharedStage]) -> u64 {
    stages
        .iter()
        .filter(|s| s.compute.combiner.is_some())
        .map(|s| {
            let points: u64 = s.region.iter().map(|r| r.size.max(0) as u64).product();
            let np = s.compute.num_parallel();
            let red: u64 = s.compute.axes[np..]
                .iter()
                .map(|a| a.extent.max(1) as u64)
                .product();
            s.srcs
                .iter()
                .zip(&s.compute.inputs)
                .filter(|(src, _)| matches!(src, ReSrc::Arg(_)))
                .map(|(_, t)| points * red * (t.elem.width() as u64).div_ceil(8))
                .sum::<u64>()
        })
        .sum()
}

/// The lowering's plans of the kernels of `sg` (one writing every result when
/// [`planned_as_one`] plans it, else one per result it would plan, see [`planned`]) with `tiles` (indexed like `sg.members`) and edge levels `levels`.
pub fn lowering_plans(
    sg: &SubGraph<'_>,
    levels: &Levels,
    tiles: &[LayerTiles],
    dev: &Device,
) -> Vec<Lowered> {
    if let Some(one) = planned_as_one(sg, levels, tiles, dev) {
        return vec![one];
    }
    sg.outputs()
        .into_iter()
        .filter_map(|o| {
            planned(sg, &result_members(sg, o), levels, tiles, dev)
                .ok()
                .flatten()
        })
        .collect()
}

/// `Err` with the reason when a kernel of [`lowering_plans`] needs more shared memory than a
/// block of `dev` may use (its shared layer's capacity, the limit `--lower-to-gpu` checks),
/// or when the lowering cannot fuse it yet ([`planned`]). Otherwise the plans, for what
/// else they tell the model ([`Lowered::unstaged`]).
pub fn check_lowering_fits(
    sg: &SubGraph<'_>,
    levels: &Levels,
    tiles: &[LayerTiles],
    dev: &Device,
) -> Result<Vec<Lowered>, String> {
    let cap = dev.layers[Device::SHARED].capacity_bytes;
    let mut plans: Vec<Lowered> = planned_as_one(sg, levels, tiles, dev).into_iter().collect();
    let split = if plans.is_empty() {
        sg.outputs()
    } else {
        Vec::new()
    };
    for o in split {
        match planned(sg, &result_members(sg, o), levels, tiles, dev) {
            Ok(p) => plans.extend(p),
            Err(m) => return Err(format!("the lowering cannot fuse it: {m}")),
        }
    }
    match plans.iter().map(|l| l.bytes).max() {
        Some(b) if b > cap => Err(over_capacity(b, cap, &dev.name)),
        _ => Ok(plans),
    }
}

/// The reason a candidate is refused: the lowering's bytes over the device's limit.
pub fn over_capacity(bytes: u64, cap: u64, device: &str) -> String {
    format!(
        "the lowering's shared-memory plan needs {bytes} B per block, over the {cap} B a block of '{device}' may use"
    )
}
