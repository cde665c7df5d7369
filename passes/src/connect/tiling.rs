//! `SubGraphTiling` (Welder Fig. 7, lines 12–25): for one connected sub-graph, enumerate
//! output tiles with Roller's alignment rules, propagate each (§3.1), drop those over a
//! layer's capacity, keep the top-K by traffic (§4.1 penalties included), and recurse into
//! the register layer inside each. The paper profiles the top-K on the GPU; here the model
//! ranks them ([`Plan::est_us`]): DRAM traffic over DRAM bandwidth, shared-layer traffic over
//! shared bandwidth, and the arithmetic over the peak (docs/passes/connect.md).

use rtile_dialects::tilegraph::{LayerTiles, Level};

use super::fit::check_lowering_fits;
use super::graph::{Graph, Node};
use super::model::{COALESCE_BYTES, dram_utilization, footprint, traffic, utilization};
use super::profile::{ConnectProfile, config_key};
use super::propagate::{SubGraph, input_tile, propagate, with_whole_reductions};
use crate::construct_rtile::align::Aligner;
use crate::construct_rtile::expr_info::TensorExprInfo;
use crate::device::Device;
use crate::lower_to_gpu::reduction::auto_split;
use crate::lower_to_gpu::tile_program::default_thread_tile;

/// Most output tiles examined per sub-graph and layer (the per-dim lists are thinned
/// evenly past this; deterministic).
pub const MAX_CANDIDATES: usize = 1024;
/// Reduction steps tried, largest first, when whole reductions overflow a layer (§3.1:
/// reduction steps lower the footprint, not the traffic).
const STEPS: [Option<u64>; 7] = [
    None,
    Some(256),
    Some(128),
    Some(64),
    Some(32),
    Some(16),
    Some(8),
];

/// The scheduling result for one kernel (a sub-graph connected above global memory).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Member nodes, ascending.
    pub members: Vec<usize>,
    /// Per member, its tiles (shared always; register in register-connected groups).
    pub tiles: Vec<LayerTiles>,
    /// `MemTraffic` into the kernel from global memory, bytes (no penalties).
    pub global_traffic: u64,
    /// Modelled traffic through shared memory, bytes (see `shared_layer_traffic`).
    pub shared_traffic: u64,
    /// `MemFootprint` in shared memory, bytes.
    pub shared_footprint: u64,
    /// Largest register-group footprint per thread, bytes (0: no register group).
    pub register_footprint: u64,
    /// Blocks the kernel launches (tile instances of its first output).
    pub blocks: u64,
    /// Threads per block ([`block_threads`]).
    pub threads: u64,
    /// §4.1's utilisation of the computing cores ([`utilization`]), in (0, 1].
    pub utilization: f64,
    /// The utilisation of the DRAM term ([`dram_utilization`]): [`Plan::utilization`] or
    /// less, where few warps a core cannot keep enough loads in flight.
    pub dram_utilization: f64,
    /// The model's estimate, microseconds.
    pub est_us: f64,
    /// Better-ranked candidates refused because the lowering could not fit them in a
    /// block's shared memory ([`check_lowering_fits`]): how many, and the last reason.
    pub refused: Option<(usize, String)>,
    /// The configuration's key ([`super::profile::config_key`]).
    pub config: String,
    /// Whether [`Plan::est_us`] is a measured time from a profile (plus the launch cost).
    pub measured: bool,
}

/// Connect levels of the graph's edges, indexed `[consumer][input]`.
pub type Levels = Vec<Vec<Level>>;

/// Every tile size per dim of `shape` that Roller's shared-layer rules allow for an
/// element-wise access of that shape: divisors of the extent, transaction-aligned on the
/// innermost dim (`construct_rtile::align`), thinned to at most `max` combinations. A dim
/// with no such divisor short of its whole extent takes [`padded_sizes`] instead; and when
/// the shape's points are not a multiple of a warp, no divisor tile can run whole warps
/// (its points, and so its threads, divide them): every dim adds [`padded_sizes`]'s powers
/// of two (Roller §3.1: tiles aligned to the execution unit, the extent padded).
pub(super) fn candidate_tiles(
    shape: &[u64],
    dtype: &str,
    dev: &Device,
    max: usize,
) -> Vec<Vec<u64>> {
    let expr = TensorExprInfo::elementwise(shape, dtype);
    let mut al = Aligner::new(&expr, dev, 0.0, None);
    let mut padded = Aligner::new(&expr, dev, PAD_EPSILON, None);
    let pad_all = !shape.iter().product::<u64>().is_multiple_of(dev.teu_width);
    let mut lists: Vec<Vec<u64>> = (0..shape.len())
        .map(|d| {
            let v = al.aligned_sizes(Device::SHARED, d, 1);
            if v.len() > 1 && !pad_all {
                return v;
            }
            let mut p = padded_sizes(shape[d], padded.aligned_sizes(Device::SHARED, d, 1));
            if v.len() > 1 {
                p.extend(v);
                p.sort_unstable();
                p.dedup();
            }
            p
        })
        .collect();
    // Thin the longest list (keep every other size, and always the largest) until the
    // product fits.
    while lists.iter().map(|l| l.len()).product::<usize>() > max {
        let Some(l) = lists.iter_mut().max_by_key(|l| l.len()) else {
            break;
        };
        if l.len() <= 2 {
            break;
        }
        let last = *l.last().unwrap_or(&1);
        let mut t: Vec<u64> = l.iter().copied().step_by(2).collect();
        if t.last() != Some(&last) {
            t.push(last);
        }
        *l = t;
    }
    cartesian(&lists)
}

/// Roller's padding bound (`--construct-rtile`'s default `epsilon`, §3.1): a tile may pad
/// its axis by at most this fraction of the extent.
const PAD_EPSILON: f64 = 0.2;

/// Padded sizes of a dim of extent `n` (2558 = 2·1279 has no transaction-aligned divisor
/// short of 2558): the powers of two among Roller's aligned sizes that pad the extent
/// within [`PAD_EPSILON`] (`aligned`; the partial last tile guarded, §3.1), the divisors
/// below the smallest of them (a wide stencil's halo tile needs small tiles to fit), and
/// the whole extent. Powers of two keep a block's threads whole warps; exact divisors alone
/// would leave 1279, a prime, whose block of 1279 points runs one thread (a thread tile
/// must divide it). When no padded size is aligned either (an extent under one
/// transaction): every divisor, the coalescing penalty ranks them.
fn padded_sizes(n: u64, aligned: Vec<u64>) -> Vec<u64> {
    let pow2: Vec<u64> = aligned
        .into_iter()
        .filter(|&s| s < n && s.is_power_of_two())
        .collect();
    let below = pow2.first().copied().unwrap_or(u64::MAX);
    let mut v: Vec<u64> = (1..=n)
        .filter(|&x| n.is_multiple_of(x) && (x < below || x == n))
        .collect();
    v.extend(pow2);
    v.sort_unstable();
    v.dedup();
    v
}

/// The register-connected groups among `members` (components over register edges) with
/// two or more nodes.
pub fn register_groups(g: &Graph, members: &[usize], levels: &Levels) -> Vec<Vec<usize>> {
    let mut comp: Vec<usize> = (0..g.nodes.len()).collect();
    fn find(c: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while c[r] != r {
            r = c[r];
        }
        c[x] = r;
        r
    }
    for &n in members {
        for (i, inp) in g.nodes[n].inputs.iter().enumerate() {
            if let Some(p) = inp.producer
                && levels[n][i] == Level::Register
            {
                let (a, b) = (find(&mut comp, n), find(&mut comp, p));
                comp[a] = b;
            }
        }
    }
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for &n in members {
        let r = find(&mut comp, n);
        match groups.iter_mut().find(|(x, _)| *x == r) {
            Some((_, v)) => v.push(n),
            None => groups.push((r, vec![n])),
        }
    }
    groups
        .into_iter()
        .map(|(_, v)| v)
        .filter(|v| v.len() > 1)
        .collect()
}

/// One register group's best thread tiles inside the shared tiles `shared` (by member
/// position in `members`): the per-thread tiles, the shared→register traffic per block,
/// and the register footprint. `Err` says why none fits.
fn register_tiling(
    g: &Graph,
    members: &[usize],
    group: &[usize],
    shared: &[Vec<u64>],
    levels: &Levels,
    dev: &Device,
) -> Result<(Vec<Vec<u64>>, u64, u64), String> {
    let conn = |n: usize, i: usize| levels[n][i] == Level::Register;
    let sg = SubGraph {
        graph: g,
        members: group.to_vec(),
        connected: &conn,
    };
    let pos = |n: usize| members.binary_search(&n).unwrap_or(0);
    let first = *sg
        .outputs()
        .first()
        .ok_or("a register group without an output")?;
    let fnode = &g.nodes[first];
    let parent = &shared[pos(first)][..fnode.num_parallel];
    let cap = dev.layers[Device::REGISTER].capacity_bytes;
    // (misaligned, traffic, u64::MAX - threads) with its tiles and footprint: lower is better.
    type Ranked = ((bool, u64, u64), Vec<Vec<u64>>, u64);
    let mut best: Option<Ranked> = None;
    let mut min_fp = u64::MAX;
    for t in divisor_tiles(parent, MAX_CANDIDATES) {
        let threads: u64 = parent
            .iter()
            .zip(&t)
            .map(|(&p, &x)| p.div_ceil(x))
            .product();
        if threads > dev.max_threads_per_block {
            continue;
        }
        // §3.2: the tile of an upper layer lies inside the one below it.
        let Ok(dom) = propagate(&sg, &t, Some(1)) else {
            continue;
        };
        if group
            .iter()
            .zip(&dom)
            .any(|(&n, d)| d.iter().zip(&shared[pos(n)]).any(|(a, b)| a > b))
        {
            continue;
        }
        let stored = |n: usize| sg.is_output(n);
        let fp = footprint(&sg, &dom, &stored);
        min_fp = min_fp.min(fp);
        if fp > cap {
            continue;
        }
        let tr = traffic(&sg, &dom).per_instance() * threads;
        // Roller's alignment with the execution unit (§3.1, which Welder's SubGraphTiling
        // reuses): whole warps, unless the block has fewer points than a warp; and Welder
        // §4.1's "sufficient parallel tiles at the register level": at least a core's
        // hardware parallelism (warp schedulers × warp width, 128 on V100) when the block
        // has that many points. Then least traffic, then more threads, then the smaller
        // footprint. Without the thread floor least traffic grows the thread tile until a
        // block runs one warp (a 32×32 GEMM tile: 32 threads of 4×8 points).
        let points: u64 = parent.iter().product();
        let floor = points.min(hardware_parallelism(dev));
        let misaligned =
            !((threads.is_multiple_of(dev.teu_width) && threads >= floor) || threads == points);
        let rank = (misaligned, tr, u64::MAX - threads);
        if best.as_ref().is_none_or(|b| rank < b.0) {
            best = Some((rank, dom.clone(), fp));
        }
    }
    match best {
        Some(((_, tr, _), dom, fp)) => Ok((dom, tr, fp)),
        None if min_fp == u64::MAX => {
            Err("no thread tile propagates consistently inside the block tile".into())
        }
        None => Err(format!(
            "the register-connected tiles need {min_fp} B per thread, over the {cap} B register layer"
        )),
    }
}

/// The cartesian product of per-dim size lists: every tile with one size from each list.
/// The autoscheduler's tilings enumerate through it too.
pub(crate) fn cartesian(lists: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new()];
    for l in lists {
        out = out
            .into_iter()
            .flat_map(|p| {
                l.iter().map(move |&s| {
                    let mut q = p.clone();
                    q.push(s);
                    q
                })
            })
            .collect();
    }
    out
}

/// Tiles whose sizes divide `parent`'s, at most `max` of them (thinned as above).
fn divisor_tiles(parent: &[u64], max: usize) -> Vec<Vec<u64>> {
    let mut lists: Vec<Vec<u64>> = parent
        .iter()
        .map(|&p| (1..=p).filter(|d| p.is_multiple_of(*d)).collect())
        .collect();
    while lists.iter().map(|l| l.len()).product::<usize>() > max {
        let Some(l) = lists.iter_mut().max_by_key(|l| l.len()) else {
            break;
        };
        if l.len() <= 2 {
            break;
        }
        *l = l.iter().copied().step_by(2).collect();
    }
    cartesian(&lists)
}

/// One shared-layer candidate after the capacity filter.
struct Candidate {
    dom: Vec<Vec<u64>>,
    /// Traffic in whole transactions (§4.1), before the parallelism penalty.
    coalesced: u64,
    /// The traffic penalised with the threads the block is expected to run
    /// ([`expected_threads`]): the ranking key.
    penalized: f64,
    global: u64,
    footprint: u64,
}

/// `SubGraphTiling` for the kernel made of `members` (ascending) with edge levels
/// `levels`: the best plan of the top `top_k` candidates, or why none fits.
pub fn best_plan(
    g: &Graph,
    members: &[usize],
    levels: &Levels,
    dev: &Device,
    top_k: usize,
) -> Result<Plan, String> {
    best_plan_profiled(g, members, levels, dev, top_k, None)
}

/// [`best_plan`], the candidates a `profile` names ranked by their measured time plus the
/// device's launch cost (Welder Fig. 7's `Profile`) instead of the model's estimate.
pub fn best_plan_profiled(
    g: &Graph,
    members: &[usize],
    levels: &Levels,
    dev: &Device,
    top_k: usize,
    profile: Option<&ConnectProfile>,
) -> Result<Plan, String> {
    // A reshape is a view the host applies between kernels (`--lower-to-gpu` lowers
    // it as no kernel); inside a fused kernel the lowering has no stage for it, so a
    // kernel that would hold one is not a configuration to choose (the edge stays global).
    if members.len() > 1 && members.iter().any(|&n| g.nodes[n].compute.is_none()) {
        return Err(
            "the kernel would hold a tensor reshape, which --lower-to-gpu does not lower inside a fused kernel"
                .into(),
        );
    }
    let conn = |n: usize, i: usize| levels[n][i] != Level::Global;
    let sg = SubGraph {
        graph: g,
        members: members.to_vec(),
        connected: &conn,
    };
    let first = *sg.outputs().first().ok_or("a kernel without outputs")?;
    let fnode = &g.nodes[first];
    let cap = dev.layers[Device::SHARED].capacity_bytes;
    let stored = |n: usize| {
        sg.is_output(n)
            || g.consumers[n]
                .iter()
                .any(|&(c, i)| sg.has(c) && levels[c][i] == Level::Shared)
    };
    let fpos = members.binary_search(&first).unwrap_or(0);
    let groups = register_groups(g, members, levels);
    let in_group = groups.iter().any(|grp| grp.contains(&first));
    let mut cands = Vec::new();
    let (mut inconsistent, mut min_fp) = (None, u64::MAX);
    let splittable = members
        .iter()
        .any(|&n| !g.nodes[n].reduction_dims().is_empty());
    for t in candidate_tiles(&fnode.out_shape, &fnode.dtype, dev, MAX_CANDIDATES) {
        let mut last: Option<Vec<Vec<u64>>> = None;
        // Without reductions every step gives the same tiles: try one.
        let steps = if splittable { &STEPS[..] } else { &STEPS[..1] };
        for &step in steps {
            let dom = match propagate(&sg, &t, step) {
                Ok(d) => d,
                Err(e) => {
                    inconsistent = Some(e.to_string());
                    break;
                }
            };
            // A step that changes no tile (past the extent) cannot lower the footprint:
            // do not re-cost the same tiles.
            if last.as_ref() == Some(&dom) {
                continue;
            }
            let fp = footprint(&sg, &dom, &stored);
            min_fp = min_fp.min(fp);
            if fp > cap {
                last = Some(dom);
                continue;
            }
            let tr = traffic(&sg, &dom);
            let threads = expected_threads(fnode, &dom[fpos], in_group, dev);
            cands.push(Candidate {
                coalesced: tr.coalesced(COALESCE_BYTES),
                penalized: tr.penalized(COALESCE_BYTES, utilization(tr.instances, threads, dev)),
                global: tr.total(),
                footprint: fp,
                dom,
            });
            break;
        }
    }
    if cands.is_empty() {
        return Err(match inconsistent {
            Some(m) if min_fp == u64::MAX => format!("tile propagation fails: {m} (§3.1)"),
            _ => format!(
                "no output tile fits: the smallest footprint is {min_fp} B, over the {cap} B shared layer"
            ),
        });
    }
    // Fig. 7 line 18/20: a priority queue by traffic, the top K kept. A candidate whose
    // kernel the lowering cannot fit in a block's shared memory (its plan, not the model's
    // footprint: `fit`) is over capacity (§4.1) and does not count: the next one is tried.
    cands.sort_by(|a, b| a.penalized.total_cmp(&b.penalized));
    let mut best: Option<Plan> = None;
    let mut why = String::new();
    let mut kept = 0;
    let mut refused: Option<(usize, String)> = None;
    for c in cands {
        if kept >= top_k.max(1) {
            break;
        }
        let p = match finish_plan(g, &sg, &groups, c, levels, dev) {
            Ok(p) => p,
            Err(m) => {
                // A candidate whose register layer fails counts, as in the paper's top K.
                kept += 1;
                why = m;
                continue;
            }
        };
        let p = match check_lowering_fits(&sg, levels, &p.tiles, dev) {
            Ok(plans) => with_unstaged_reads(with_launches(p, &plans, dev), &plans, dev),
            Err(m) => {
                let n = refused.as_ref().map_or(0, |r| r.0);
                refused = Some((n + 1, m.clone()));
                why = m;
                continue;
            }
        };
        kept += 1;
        // Keys are only needed to look candidates up; the chosen one's is set below.
        let measured = profile.and_then(|pr| pr.time(&config_key(g, &sg, levels, &p.tiles)));
        let p = Plan {
            est_us: measured.map_or(p.est_us, |us| us + dev.launch_us),
            measured: measured.is_some(),
            ..p
        };
        if best.as_ref().is_none_or(|b| p.est_us < b.est_us) {
            best = Some(p);
        }
    }
    best.map(|p| Plan {
        refused,
        config: config_key(g, &sg, levels, &p.tiles),
        ..p
    })
    .ok_or(why)
}

/// `p` without the launches the lowering saves where one kernel writes several results
/// ([`super::fit::Lowered::results`]; `finish_plan` charged one launch per result).
fn with_launches(mut p: Plan, plans: &[super::fit::Lowered], dev: &Device) -> Plan {
    let saved = plans
        .iter()
        .map(|l| l.results.saturating_sub(1))
        .sum::<usize>();
    p.est_us -= dev.launch_us * saved as f64;
    p
}

/// `p` with the reads the lowering makes once per point instead of once per block
/// ([`super::fit::Lowered::unstaged`]) added to its global traffic and estimate. The paper's model assumes every boundary tile is staged (§3.1);
/// without this term a whole BERT layer in one kernel looked cheap at simulator sizes and
/// its shared stages then re-read the projection weights once per row (PERF.md, "Welder").
/// Charged at the DRAM term's utilisation ([`Plan::dram_utilization`]).
fn with_unstaged_reads(mut p: Plan, plans: &[super::fit::Lowered], dev: &Device) -> Plan {
    let extra = plans.iter().map(|l| l.unstaged).sum::<u64>() * p.blocks;
    p.global_traffic += extra;
    p.est_us += extra as f64 / dev.bandwidth(Device::GLOBAL) / p.dram_utilization * 1e6;
    p
}

/// Bytes one block moves through shared memory: every input tile a member reads there
/// (staged boundary inputs and shared reuse-tiles, once per block: registers are assumed
/// to reuse them) and every reuse-tile written there. An edge connected in registers moves
/// nothing through shared memory, which is what register connection saves (§4.2).
fn shared_layer_traffic(g: &Graph, sg: &SubGraph<'_>, dom: &[Vec<u64>], levels: &Levels) -> u64 {
    let mut bytes = 0u64;
    for (k, &n) in sg.members.iter().enumerate() {
        let node = &g.nodes[n];
        let full = with_whole_reductions(node, &dom[k]);
        for (i, inp) in node.inputs.iter().enumerate() {
            if sg.inner_edge(n, i) && levels[n][i] == Level::Register {
                continue;
            }
            bytes += input_tile(inp, &full).iter().product::<u64>() * inp.elem_bytes;
        }
        if g.consumers[n]
            .iter()
            .any(|&(c, i)| sg.has(c) && levels[c][i] == Level::Shared)
        {
            bytes += dom[k][..node.num_parallel].iter().product::<u64>() * node.out_bytes;
        }
    }
    bytes
}

/// Per member, how many points of its domain one block evaluates. A member computed once
/// per point of its tile evaluates its tile (reductions whole). An element-wise member read
/// only in registers is computed where each consumer reads it (§3.4 code generation, TVM's
/// `compute_inline`, which is how `--lower-to-gpu` fuses it): once per read per point its
/// consumers evaluate, plus its own tile when it is also an output. A 5×5 stencil inlined
/// into a 5×5 stencil is evaluated 25 times per output point; without this term a chain of
/// them looked free to connect in registers **[Interp]**.
pub(super) fn evaluations(
    g: &Graph,
    sg: &SubGraph<'_>,
    dom: &[Vec<u64>],
    levels: &Levels,
) -> Vec<f64> {
    let members = &sg.members;
    let mut work = vec![0f64; members.len()];
    for k in (0..members.len()).rev() {
        let n = members[k];
        let node = &g.nodes[n];
        let own = with_whole_reductions(node, &dom[k]).iter().product::<u64>() as f64;
        let inner: Vec<(usize, usize)> = g.consumers[n]
            .iter()
            .copied()
            .filter(|&(c, _)| sg.has(c))
            .collect();
        let inlined = node.reduction_dims().is_empty()
            && !inner.is_empty()
            && inner.iter().all(|&(c, i)| levels[c][i] == Level::Register);
        work[k] = if inlined {
            let reads: f64 = inner
                .iter()
                .map(|&(c, _)| work[members.binary_search(&c).unwrap_or(k)])
                .sum();
            reads + if sg.is_output(n) { own } else { 0.0 }
        } else {
            own
        };
    }
    work
}

/// The register layer inside one shared candidate, and the model's estimate.
fn finish_plan(
    g: &Graph,
    sg: &SubGraph<'_>,
    groups: &[Vec<usize>],
    c: Candidate,
    levels: &Levels,
    dev: &Device,
) -> Result<Plan, String> {
    let members = &sg.members;
    let mut tiles: Vec<LayerTiles> = c
        .dom
        .iter()
        .map(|d| LayerTiles {
            register: None,
            shared: Some(d.clone()),
        })
        .collect();
    let first = sg.outputs()[0];
    let blocks: u64 = {
        let k = members.binary_search(&first).unwrap_or(0);
        let node = &g.nodes[first];
        node.out_shape
            .iter()
            .zip(&c.dom[k])
            .map(|(&s, &t)| s.div_ceil(t))
            .product()
    };
    let mut reg_fp = 0u64;
    for grp in groups {
        let (dom, _, fp) = register_tiling(g, members, grp, &c.dom, levels, dev)?;
        for (&n, d) in grp.iter().zip(dom) {
            let k = members.binary_search(&n).unwrap_or(0);
            tiles[k].register = Some(d);
        }
        reg_fp = reg_fp.max(fp);
    }
    // The parallelism penalty again, with the threads the block will run now that the
    // register tiles are chosen; the ranking used [`expected_threads`].
    let k = members.binary_search(&first).unwrap_or(0);
    let threads = block_threads(&g.nodes[first], &c.dom[k], tiles[k].register.as_deref());
    let util = utilization(blocks, threads, dev);
    let shared_traffic = shared_layer_traffic(g, sg, &c.dom, levels) * blocks;
    let flops: f64 = evaluations(g, sg, &c.dom, levels)
        .iter()
        .zip(members)
        .map(|(&pts, &n)| pts * g.nodes[n].flops_per_point * blocks as f64)
        .sum();
    let peak = dev.peak(&g.nodes[first].compute_dtype).simt_gflops * 1e9;
    // Idle cores and lanes slow the shared-memory and arithmetic terms as much as the
    // DRAM term: the paper profiles, so its penalty needs to rank only traffic; the model
    // replaces the profiler, so the whole estimate is divided by the utilisation
    // (**[Interp]**). The DRAM term is divided by [`dram_utilization`] instead, which is
    // that utilisation or less: Roller's load term (`perf_model::load_utilisation`)
    // charges blocks of few warps for the DRAM latency they cannot hide, as
    // `perf_model::estimate` does (on an H200 the LSTM gate's one-warp block loaded at
    // 1.48 GB/s, PERF.md "The model's load term"). Written as the DRAM term weighted by
    // `util / dram_util` so that a device without `warp_load_gbps` gets the same estimate
    // to the bit.
    //
    // Each launch costs `launch_us` (the device's host-side launch cost, which Rammer's
    // packing saves): the paper's profiler times kernels with it, Fig. 13 counts the
    // launches fusion saves, and without it two tiny kernels looked as cheap as one. Here
    // one kernel per result (`fuse::result_members`), the most the lowering launches;
    // [`with_launches`] takes back those it saves by writing several results from one
    // kernel **[Interp]**.
    let launches = sg.outputs().len().max(1) as f64;
    let dram_util = dram_utilization(blocks, threads, dev);
    let est_us = (c.coalesced as f64 / dev.bandwidth(Device::GLOBAL) * (util / dram_util)
        + shared_traffic as f64 / dev.bandwidth(Device::SHARED)
        + flops / peak)
        / util
        * 1e6
        + dev.launch_us * launches;
    Ok(Plan {
        members: members.clone(),
        tiles,
        global_traffic: c.global,
        shared_traffic,
        shared_footprint: c.footprint,
        register_footprint: reg_fp,
        blocks,
        threads,
        utilization: util,
        dram_utilization: dram_util,
        est_us,
        refused: None,
        config: String::new(),
        measured: false,
    })
}

/// A core's hardware parallelism in threads (Welder §4.1: "each SM has 4 warp schedulers
/// and each warp has 32 threads", so a block should run more than 128 register tiles).
pub(super) fn hardware_parallelism(dev: &Device) -> u64 {
    (dev.teus_per_core * dev.teu_width).max(1)
}

/// Threads one block of a kernel runs, as `--lower-to-gpu` launches it: those of its
/// anchor `node` (the first output; the lowering builds the block around it) for the block
/// tile `block` and the thread tile `thread` (its register tile; without one, the
/// lowering's default, `tile_program::default_thread_tile`), times the cross-thread lanes the
/// lowering adds to a reduction with few threads ([`split_lanes`]).
pub(super) fn block_threads(node: &Node, block: &[u64], thread: Option<&[u64]>) -> u64 {
    let np = node.num_parallel.min(block.len());
    let default;
    let thread = match thread {
        Some(t) if t.len() == block.len() => t,
        _ => {
            default = default_thread_tile(block, np);
            &default
        }
    };
    let threads: u64 = (0..np)
        .map(|a| block[a].div_ceil(thread[a].max(1)))
        .product();
    threads * split_lanes(node, block, threads)
}

/// The lanes `--lower-to-gpu` splits a reduction anchor's reduction across when its block
/// has few threads (`reduction::auto_split`, on the reduction axis with the largest tile).
fn split_lanes(node: &Node, block: &[u64], threads: u64) -> u64 {
    let axis = node
        .reduction_dims()
        .filter(|&r| r < block.len())
        .max_by_key(|&r| (block[r], std::cmp::Reverse(r)));
    axis.map_or(1, |r| {
        let red_points: u64 = node.reduction_dims().map(|d| node.domain[d]).product();
        auto_split(threads as i64, red_points as i64, block[r] as i64).max(1) as u64
    })
}

/// The threads the ranking of shared-layer candidates assumes for the block tile `block`
/// of the anchor `node`, before its register tiles are chosen: the lowering's default
/// thread tile, or, when the anchor is in a register group, the fewest threads
/// [`register_tiling`] ranks first (a core's hardware parallelism, or every point when the
/// block has fewer: past the floor it takes the fewest, whose larger thread tiles move
/// less through shared memory).
fn expected_threads(node: &Node, block: &[u64], in_group: bool, dev: &Device) -> u64 {
    if !in_group {
        return block_threads(node, block, None);
    }
    let points: u64 = block[..node.num_parallel.min(block.len())].iter().product();
    let threads = points.min(hardware_parallelism(dev)).max(1);
    threads * split_lanes(node, block, threads)
}
