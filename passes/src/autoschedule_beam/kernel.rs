//! A root stage and the stages fused into it, as one `tilegraph` kernel: each member's
//! connect level (register for inline and thread-level placements, shared for block-level
//! ones, global from outside), and its tiles per layer by `--connect`'s tile propagation
//! ([`crate::connect::propagate`], Welder §3.1). The root's block tile (threads × serial)
//! is the shared tile, its serial tile the register tile (§4: block → thread → serial).
//! The checks are the tilegraph verifier's (propagation consistency, shared and register
//! footprints, docs/dialects/tilegraph.md rules 6–7), which are also the paper's hardware
//! rules (§4.6 rules 5–6) with the device's capacities.

use rtile_dialects::tilegraph::{LayerTiles, Level};

use super::pipeline::Pipeline;
use super::space::{Loc, Pruned, Tiling, default_tiling};
use crate::connect::graph::DimIndex;
use crate::connect::model::footprint;
use crate::connect::propagate::{SubGraph, propagate};
use crate::connect::tiling::{Levels, register_groups};
use crate::device::Device;

/// Reduction steps tried for a root reduction's block tile (largest first) until the
/// shared footprint fits (the tilegraph form stages every boundary input of a block).
const STEPS: [Option<u64>; 9] = [
    None,
    Some(256),
    Some(128),
    Some(64),
    Some(32),
    Some(16),
    Some(8),
    Some(4),
    Some(1),
];

/// One kernel of a schedule.
#[derive(Clone, Debug)]
pub struct KernelPlan {
    /// The root stage.
    pub root: usize,
    /// The root's tiling.
    pub tiling: Tiling,
    /// Members, ascending (the root last).
    pub members: Vec<usize>,
    /// Per member: its location.
    pub locs: Vec<Loc>,
    /// Per member: its tiles (shared = per block; register = per thread).
    pub tiles: Vec<LayerTiles>,
    /// Shared-memory footprint per block, bytes (best fit, 32-byte aligned).
    pub shared_bytes: u64,
    /// Largest register-group footprint per thread, bytes.
    pub register_bytes: u64,
}

impl KernelPlan {
    /// Position of node `n` among the members.
    pub fn pos(&self, n: usize) -> Option<usize> {
        self.members.binary_search(&n).ok()
    }
}

/// Connect level of each input of every node under `locs` (inputs from stages outside the
/// kernel, or undecided, are global).
pub fn levels(p: &Pipeline, locs: &[Option<Loc>]) -> Levels {
    let ko = p.kernels_of(locs);
    p.g.nodes
        .iter()
        .enumerate()
        .map(|(n, node)| {
            node.inputs
                .iter()
                .map(|inp| match inp.producer {
                    Some(q) if ko[q].is_some() && ko[q] == ko[n] => match locs[q] {
                        Some(Loc::Shared(_)) => Level::Shared,
                        _ => Level::Register,
                    },
                    _ => Level::Global,
                })
                .collect()
        })
        .collect()
}

/// The kernel rooted at `root` under `locs`, with its tiles, or why it is pruned.
pub fn plan_kernel(
    p: &Pipeline,
    locs: &[Option<Loc>],
    levels: &Levels,
    root: usize,
    dev: &Device,
) -> Result<KernelPlan, Pruned> {
    let g = &p.g;
    let tiling = match &locs[root] {
        Some(Loc::Root(Some(t))) => t.clone(),
        _ => default_tiling(p.extents(root)),
    };
    let ko = p.kernels_of(locs);
    let members: Vec<usize> = (0..=root).filter(|&n| ko[n] == Some(root)).collect();
    let conn = |n: usize, i: usize| levels[n][i] != Level::Global;
    let sg = SubGraph {
        graph: g,
        members: members.clone(),
        connected: &conn,
    };
    let stored = |n: usize| {
        sg.is_output(n)
            || g.consumers[n]
                .iter()
                .any(|&(c, i)| sg.has(c) && levels[c][i] == Level::Shared)
    };
    let cap = dev.layers[Device::SHARED].capacity_bytes;
    let block = tiling.block();
    let mut found = None;
    let mut last_err = None;
    for step in STEPS {
        match propagate(&sg, &block, step) {
            Ok(dom) => {
                let fp = footprint(&sg, &dom, &stored);
                if fp <= cap {
                    found = Some((dom, fp));
                    break;
                }
                last_err = Some(Pruned::Hardware(format!(
                    "a shared footprint of {fp} B per block, over the device's {cap} B"
                )));
            }
            Err(e) => {
                last_err = Some(Pruned::Hardware(format!(
                    "inconsistent tiles (§3.1 propagation): {e}"
                )));
                break;
            }
        }
    }
    let Some((dom, shared_bytes)) = found else {
        return Err(last_err.unwrap_or(Pruned::Hardware("no block tile".into())));
    };
    let mut tiles: Vec<LayerTiles> = dom
        .iter()
        .map(|d| LayerTiles {
            register: None,
            shared: Some(d.clone()),
        })
        .collect();
    let mlocs: Vec<Loc> = members
        .iter()
        .map(|&n| locs[n].clone().unwrap_or(Loc::Root(None)))
        .collect();
    // The root's thread tile: its serial tile, reductions in steps of 1 (or whole where
    // they read a register-fused producer, set below by propagation).
    let rk = members.len() - 1;
    // A block tile over the extent is clipped to it (the propagation's domain); the
    // lowering runs whole thread tiles, so the serial tile must divide the clipped one.
    for (a, (&c, &s)) in dom[rk].iter().zip(tiling.serial.iter()).enumerate() {
        if s > 1 && c % s != 0 {
            return Err(Pruned::Hardware(format!(
                "axis {a}: the serial tile {s} does not divide the block tile clipped to the extent ({c})"
            )));
        }
    }
    let mut rt = tiling.serial.to_vec();
    rt.extend(std::iter::repeat_n(
        1,
        g.nodes[root].domain.len() - rt.len(),
    ));
    tiles[rk].register = Some(rt);
    let rcap = dev.layers[Device::REGISTER].capacity_bytes;
    let mut register_bytes = 0;
    for grp in register_groups(g, &members, levels) {
        let rconn = |c: usize, i: usize| levels[c][i] == Level::Register;
        let rsg = SubGraph {
            graph: g,
            members: grp.clone(),
            connected: &rconn,
        };
        let Some(&out) = rsg.outputs().first() else {
            continue;
        };
        let k = members.binary_search(&out).unwrap_or(rk);
        let out_tile: Vec<u64> = match &mlocs[k] {
            Loc::Shared(s) => s.clone(),
            _ => tiling.serial.to_vec(),
        };
        let rdom = propagate(&rsg, &out_tile, Some(1)).map_err(|e| {
            Pruned::Hardware(format!("inconsistent thread tiles (§3.1 propagation): {e}"))
        })?;
        let rstored = |n: usize| rsg.is_output(n);
        let fp = footprint(&rsg, &rdom, &rstored);
        if fp > rcap {
            return Err(Pruned::Registers);
        }
        register_bytes = register_bytes.max(fp);
        for (&n, d) in grp.iter().zip(rdom) {
            let k = members.binary_search(&n).unwrap_or(rk);
            if d.iter()
                .zip(tiles[k].shared.as_deref().unwrap_or(&[]))
                .any(|(a, b)| a > b)
            {
                return Err(Pruned::Hardware(
                    "a thread tile larger than its block tile".into(),
                ));
            }
            tiles[k].register = Some(d);
        }
    }
    // A shared-level member not in a register group keeps its serial tile as its thread
    // tile (its own tiling, §4), reductions as in its block tile.
    for k in 0..members.len() {
        if let (Loc::Shared(s), None) = (&mlocs[k], &tiles[k].register) {
            let mut t = s.clone();
            let sh = tiles[k].shared.clone().unwrap_or_default();
            t.extend_from_slice(sh.get(s.len()..).unwrap_or(&[]));
            tiles[k].register = Some(t);
        }
    }
    Ok(KernelPlan {
        root,
        tiling,
        members,
        locs: mlocs,
        tiles,
        shared_bytes,
        register_bytes,
    })
}

/// The region of stage `n` its consumers in `k` read per thread (`Register`) or per
/// block (`Shared`): the bounding box of every read, over each consumer's tile at that
/// layer with whole reductions. Unlike one access's propagated tile (Welder §3.1, one
/// read at a time), this covers a stencil's several reads (`%A[y, x]`, `%A[y, x + 1]`,
/// ...), which is what a stage computed at that level must produce (§4).
pub fn union_tile(p: &Pipeline, k: &KernelPlan, n: usize, layer: Level) -> Vec<u64> {
    let node = &p.g.nodes[n];
    let np = node.num_parallel;
    let mut lo = vec![i64::MAX; np];
    let mut hi = vec![i64::MIN; np];
    for &(c, i) in &p.g.consumers[n] {
        let Some(ck) = k.pos(c) else { continue };
        let cnode = &p.g.nodes[c];
        let mut t = match layer {
            Level::Register => match &k.locs[ck] {
                l if l.in_registers() => union_tile(p, k, c, Level::Register),
                _ => k.tiles[ck].register.clone().unwrap_or_default(),
            },
            _ => k.tiles[ck].shared.clone().unwrap_or_default(),
        };
        t.resize(cnode.domain.len(), 1);
        t[cnode.num_parallel..].copy_from_slice(&cnode.domain[cnode.num_parallel..]);
        for (d, ix) in cnode.inputs[i].index.iter().enumerate().take(np) {
            let (a, m) = match ix {
                DimIndex::Affine(a) => (a, None),
                DimIndex::Mod(a, m) => (a, Some(*m as i64)),
                DimIndex::Unknown => {
                    lo[d] = 0;
                    hi[d] = node.out_shape[d] as i64 - 1;
                    continue;
                }
            };
            let (mut l, mut h) = (a.constant, a.constant);
            for &(x, coef) in &a.terms {
                let span = coef * (t.get(x).copied().unwrap_or(1) as i64 - 1);
                l += span.min(0);
                h += span.max(0);
            }
            let div = a.div.max(1) as i64;
            let (mut l, mut h) = (l.div_euclid(div), h.div_euclid(div));
            if let Some(m) = m
                && h - l + 1 >= m
            {
                (l, h) = (0, m - 1);
            }
            lo[d] = lo[d].min(l);
            hi[d] = hi[d].max(h);
        }
    }
    (0..np)
        .map(|d| {
            if hi[d] < lo[d] {
                1
            } else {
                ((hi[d] - lo[d] + 1) as u64).min(node.out_shape[d])
            }
        })
        .collect()
}
