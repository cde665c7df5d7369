//! GPU features of a scheduled stage (OOPSLA'21 §5.1, Appendix A), computed exactly from
//! the schedule: memory transactions of a representative warp and of the tail warp
//! (global: distinct 32-byte sectors; shared: the bank-conflict degree), memory
//! efficiencies, warp-lane utilisation, occupancy, points computed, working set.
//!
//! Lanes: a block's threads are numbered with the innermost thread dim (the vector dim)
//! fastest, then the others from the innermost outward (CUDA's x, y, z). The model counts
//! what the lowered kernel (`--lower-to-gpu`) executes, checked against the simulator's
//! counters (`tools/tests/beam_sim.rs`, `tools/tests/beam_banks.rs`):
//! - a root stage's serial points are interleaved: serial iteration `j` of the thread at
//!   coordinate `t` computes `t + j·threads` along each dim (`thread_map.rs`), so a lane's
//!   point at iteration 0 is its thread coordinate (block 0). The paper's Halide schedules
//!   split blocked (`t·serial + j`); rtile's lowering interleaves, which keeps
//!   neighbouring lanes on neighbouring elements, except along the dims where it gives a
//!   reduction root's threads runs of 4 (`(j / 4)·4·threads + 4·t + j mod 4`, decided by
//!   the lowering's own function: [`super::runs`]).
//! - a stage at the block level (§4) is computed by all the block's threads over its
//!   region flat (`shared_stage.rs`, `materialize`: points `tid, tid + threads, ..` of the
//!   row-major region), so its warps take consecutive region points and its own serial
//!   tile (`Loc::Shared`) does not change what runs.
//! - a stage fused in registers evaluates its accesses at the point its consumer reads
//!   (its access maps composed, as the fused lowering inlines them).
//!
//! Addresses are those the lowering uses: row-major tensors in global memory, row-major
//! regions in shared (a region's start subtracted). The per-block counts are averages
//! over the kernel's kinds of blocks ([`super::edges`]): where a tile does not divide its
//! extent, or a block-level stage's region reaches past its domain, the edge blocks are
//! evaluated on their own, with only the lanes the lowering's guards let run (the root's
//! points inside the extent, a region's points inside the stage's domain; a block-level
//! stage still stores its whole region). Register-fused and inlined stages run where their
//! consumer does: an inlined one's points are its readers' (exact), a register one's are
//! scaled by its consumer's share of points that run. The unique bytes a block reads are
//! an interior block's.

use rtile_dialects::tilegraph::Level;

use super::edges::{
    BlockClass, Request, Span, block_classes, boxes, root_requests, shared_requests,
};
use super::kernel::KernelPlan;
pub use super::kernel::union_tile;
use super::pipeline::Pipeline;
use super::runs::{blocked_dims, local_point};
use super::space::{Loc, Tiling};
use super::staged::{Counted, Staging, staging_of};
use crate::connect::graph::{DimIndex, Input};
use crate::connect::propagate::input_tile;
use crate::connect::tiling::Levels;
use crate::device::Device;

/// The most lane accesses the staging of one kernel is enumerated with
/// ([`Staging::work`] summed over its kinds of blocks): a bound on the featurization's
/// time, which the search pays once per distinct kernel (the hand-built cases of
/// `beam_banks` stay far below it; most paper-size convolution tiles are above).
pub const STAGED_WORK_LIMIT: u64 = 1 << 14;

/// Transactions of one warp request and the bytes the lanes use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarpAccess {
    /// Transactions: distinct sectors (global) or the bank-conflict degree (shared).
    pub transactions: u64,
    /// Distinct bytes the active lanes use.
    pub bytes_used: u64,
}

/// Global-memory transactions of one warp request (§5.1; digest §5.2 [C]): the distinct
/// `sector`-byte sectors the lanes' elements (`elem` bytes at byte address `addr`) touch.
pub fn global_sectors(addrs: &[i64], elem: u64, sector: u64) -> WarpAccess {
    let (elem, sector) = (elem.max(1) as i64, sector.max(1) as i64);
    // Sorted, deduplicated vectors: a warp has at most a few dozen lanes, where this is
    // several times faster than hash sets (the search featurizes every sampled child).
    let mut sectors = Vec::with_capacity(2 * addrs.len());
    for &a in addrs {
        sectors.push(a.div_euclid(sector));
        sectors.push((a + elem - 1).div_euclid(sector));
    }
    WarpAccess {
        transactions: distinct(&mut sectors) as u64,
        bytes_used: distinct(&mut addrs.to_vec()) as u64 * elem as u64,
    }
}

/// Shared-memory transactions of one warp request (§5.1; digest §5.2 [C]): words of
/// `bank_bytes`, bank = word mod `banks`; the degree is the most distinct words one bank
/// serves (one word read by many lanes is a broadcast).
pub fn bank_conflicts(addrs: &[i64], elem: u64, banks: u64, bank_bytes: u64) -> WarpAccess {
    let (banks, bb) = (banks.max(1) as i64, bank_bytes.max(1) as i64);
    // (bank, word) pairs, sorted and deduplicated: the longest run of one bank is the
    // degree.
    let mut words: Vec<(i64, i64)> = addrs
        .iter()
        .map(|&a| {
            let w = a.div_euclid(bb);
            (w.rem_euclid(banks), w)
        })
        .collect();
    words.sort_unstable();
    words.dedup();
    let mut degree = 0;
    let mut run = 0;
    for (i, &(b, _)) in words.iter().enumerate() {
        run = if i > 0 && words[i - 1].0 == b {
            run + 1
        } else {
            1
        };
        degree = degree.max(run);
    }
    WarpAccess {
        transactions: degree,
        bytes_used: distinct(&mut addrs.to_vec()) as u64 * elem,
    }
}

/// The number of distinct values of `v` (sorts it).
fn distinct(v: &mut Vec<i64>) -> usize {
    v.sort_unstable();
    v.dedup();
    v.len()
}

/// The features of one stage (Appendix A names; counts per block unless said).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StageFeatures {
    /// The stage is fused in registers (Appendix B's `inlined_calls > 0` selects).
    pub inlined: bool,
    /// The stage roots its kernel (one launch).
    pub root: bool,
    /// Points of the stage's own domain (`num_scalars`).
    pub num_scalars: f64,
    /// Points computed, recompute included (blocks × threads × points per thread).
    pub points_computed: f64,
    /// Arithmetic per point.
    pub flops_per_point: f64,
    /// Blocks of the kernel.
    pub num_blocks: f64,
    /// Threads per block running this stage.
    pub num_threads_per_block: f64,
    /// Warps per block with an active lane.
    pub num_active_warps_per_block: f64,
    /// Active lanes / (32 × active warps).
    pub warp_lane_utilization: f64,
    /// Idle lanes of active warps / the device's thread limit per block.
    pub idle_lane_wastage: f64,
    /// Threads / the device's thread limit per block.
    pub block_occupancy: f64,
    /// Global load transactions per block (coalescing counted).
    pub num_global_mem_loads_per_block: f64,
    /// Bytes needed / bytes the global load transactions move.
    pub global_mem_load_efficiency: f64,
    /// Shared load transactions per block (bank conflicts counted).
    pub num_shared_mem_loads_per_block: f64,
    /// Bytes needed / bytes the shared load transactions move.
    pub shared_mem_load_efficiency: f64,
    /// Global store transactions per block.
    pub num_global_mem_stores_per_block: f64,
    /// Bytes stored / bytes the global store transactions move.
    pub global_mem_store_efficiency: f64,
    /// Shared store transactions per block.
    pub num_shared_mem_stores_per_block: f64,
    /// Bytes stored / bytes the shared store transactions move.
    pub shared_mem_store_efficiency: f64,
    /// Unique bytes of global inputs one block reads (its input tiles).
    pub unique_global_bytes_read_per_block: f64,
    /// Bytes a root stage writes to global memory (its result, once).
    pub global_bytes_stored: f64,
    /// Register bytes per thread of the stage's group (working set at thread).
    pub working_set_at_thread: f64,
    /// Shared bytes per block / the device's per-block shared capacity (root stages).
    pub shared_mem_occupancy: f64,
    /// Blocks per SM the shared allocation allows / the device's block limit per SM.
    pub shared_mem_block_limit_factor: f64,
    /// Resident warps per SM / the device's warp limit per SM.
    pub max_warp_occupancy: f64,
    /// Resident blocks per SM / the device's block limit per SM.
    pub max_block_occupancy: f64,
}

/// Evaluates one index at an integer point of the reader's domain.
pub fn eval_index(ix: &DimIndex, x: &[i64]) -> i64 {
    let aff = |a: &crate::construct_rtile::expr_info::AffineIndex| {
        let v: i64 = a.terms.iter().map(|&(d, c)| c * x[d]).sum::<i64>() + a.constant;
        v.div_euclid(a.div.max(1) as i64)
    };
    match ix {
        DimIndex::Affine(a) => aff(a),
        DimIndex::Mod(a, m) => aff(a).rem_euclid(*m as i64),
        DimIndex::Unknown => 0,
    }
}

/// The element of `inp` read at point `x`.
fn element(inp: &Input, x: &[i64]) -> Vec<i64> {
    inp.index.iter().map(|ix| eval_index(ix, x)).collect()
}

/// Row-major linear index of `e` in `shape`.
fn linear(e: &[i64], shape: &[u64]) -> i64 {
    e.iter()
        .zip(shape)
        .fold(0i64, |acc, (&i, &s)| acc * s as i64 + i)
}

/// Thread coordinates of lanes `lanes` for `threads` per dim (vector dim fastest).
pub fn lane_coords(threads: &[u64], lanes: std::ops::Range<u64>) -> Vec<Vec<u64>> {
    let order = lane_order(threads);
    lanes
        .map(|l| {
            let mut c = vec![0; threads.len()];
            lane_coord(threads, &order, l, &mut c);
            c
        })
        .collect()
}

/// The dims of `threads` from the fastest-varying lane coordinate: the vector dim, then
/// the others from the innermost outward. None for a rank-0 stage (a scalar result: one
/// thread, no coordinates).
pub fn lane_order(threads: &[u64]) -> Vec<usize> {
    if threads.is_empty() {
        return Vec::new();
    }
    let vd = vector_dim_of_threads(threads);
    let mut order = vec![vd];
    order.extend((0..threads.len()).rev().filter(|&d| d != vd));
    order
}

/// The thread coordinates of lane `l` into `c` (`order`: [`lane_order`]).
pub fn lane_coord(threads: &[u64], order: &[usize], mut l: u64, c: &mut [u64]) {
    for &d in order {
        let t = threads[d].max(1);
        c[d] = l % t;
        l /= t;
    }
}

/// The vector dim of a thread tiling: the innermost dim with more than one thread, else
/// the innermost.
fn vector_dim_of_threads(threads: &[u64]) -> usize {
    let n = threads.len();
    (0..n)
        .rev()
        .find(|&d| threads[d] > 1)
        .unwrap_or(n.saturating_sub(1))
}

/// The representative warps of a block of `threads` threads: (first lane, lanes, how
/// many such warps) for a regular warp and the tail warp.
pub(super) fn warps(threads: u64, warp: u64) -> Vec<(u64, u64, u64)> {
    let full = threads / warp;
    let tail = threads % warp;
    let mut v = Vec::new();
    if full > 0 {
        v.push((0, warp, full));
    }
    if tail > 0 {
        v.push((full * warp, tail, 1));
    }
    v
}

/// How one member's threads run.
struct Threads {
    /// Lane coordinates per parallel dim: the root's threads, or a block-level stage's
    /// region (one virtual lane per region point, numbered row-major).
    threads: Vec<u64>,
    /// The warp requests per body iteration: (first lane, lanes, how many such warps).
    groups: Vec<(u64, u64, u64)>,
    /// Threads of the block that run the stage.
    active: u64,
    /// Per dim, when the lanes are the root's threads: the lowering gives each thread
    /// blocked runs of 4 points along it ([`blocked_dims`]); empty for a region's lanes.
    blocked: Vec<bool>,
}

impl Threads {
    /// The representative warp requests (`groups`) of member `mk` (node `n`) per body
    /// iteration; a block-level stage's lanes are the points of its region (`region`) in
    /// the block at `origin`, all inside its domain.
    fn requests(
        &self,
        p: &Pipeline,
        k: &KernelPlan,
        mk: usize,
        n: usize,
        origin: &[i64],
        region: &[Span],
    ) -> Vec<Request> {
        let lo: Vec<i64> = region.iter().map(|s| s.lo_at(origin)).collect();
        let nd = p.g.nodes[n].domain.len();
        self.groups
            .iter()
            .map(|&(first, lanes, times)| {
                let mut points = Vec::with_capacity(lanes as usize * nd);
                for c in lane_coords(&self.threads, first..first + lanes) {
                    let mut x = lane_point(p, k, mk, n, &c, &self.blocked);
                    for (v, l) in x.iter_mut().zip(&lo) {
                        *v += l;
                    }
                    points.extend_from_slice(&x);
                }
                Request {
                    points,
                    nd,
                    issues: times,
                }
            })
            .collect()
    }
}

impl From<Counted> for Tx {
    fn from(c: Counted) -> Tx {
        Tx {
            count: c.count,
            used: c.used,
            moved: c.moved,
        }
    }
}

/// Accumulated transactions of one memory kind.
#[derive(Default)]
struct Tx {
    count: f64,
    used: f64,
    moved: f64,
}

impl Tx {
    fn add(&mut self, w: WarpAccess, times: f64, unit: u64) {
        self.count += w.transactions as f64 * times;
        self.used += w.bytes_used as f64 * times;
        self.moved += (w.transactions * unit) as f64 * times;
    }
    fn merge(&mut self, c: Counted) {
        self.count += c.count;
        self.used += c.used;
        self.moved += c.moved;
    }
    fn efficiency(&self) -> f64 {
        if self.moved > 0.0 {
            (self.used / self.moved).min(1.0)
        } else {
            1.0
        }
    }
}

/// Features of every member of `k` (indexed like `k.members`).
pub fn featurize(
    p: &Pipeline,
    k: &KernelPlan,
    levels: &Levels,
    dev: &Device,
) -> Vec<StageFeatures> {
    let g = &p.g;
    let warp = dev.teu_width.max(1);
    let eff;
    let k = match effective_tiling(p, k) {
        Some(t) => {
            eff = KernelPlan {
                tiling: t,
                ..k.clone()
            };
            &eff
        }
        None => k,
    };
    let root_ext = p.extents(k.root);
    let num_blocks: u64 = k.tiling.blocks(root_ext).iter().product();
    let block_threads = k.tiling.num_threads().max(1);
    let resident = dev.resident_blocks(block_threads, k.shared_bytes, None);
    let max_warps = (dev.max_threads_per_core / warp).max(1);
    let smem_blocks = dev.layers[Device::SHARED]
        .core_capacity()
        .checked_div(k.shared_bytes)
        .unwrap_or(u64::MAX)
        .min(dev.max_blocks_per_core);
    let bx = boxes(p, k);
    let classes = block_classes(p, k, &bx);
    let blocked = blocked_dims(p, k, levels);
    // Counted lane by lane, the staging costs the search time in proportion to the tiles;
    // past [`STAGED_WORK_LIMIT`] accesses per kernel the reads stay counted as global reads
    // at each point (docs/passes/autoschedule-beam.md, "Not done").
    let staging = staging_of(p, k, levels, dev)
        .filter(|s| s.work().saturating_mul(classes.len() as u64) <= STAGED_WORK_LIMIT);
    let cx = Cx {
        p,
        k,
        levels,
        dev,
        // One kind of block (every tile divides its extent, no halo past the domain): the
        // per-block counts are that block's, unweighted.
        single: classes.len() == 1,
        bx,
        classes,
        blocked,
        staging,
        num_blocks,
        block_threads,
        warp,
    };
    let threads: Vec<Threads> = k
        .members
        .iter()
        .enumerate()
        .map(|(mk, &n)| threads_of(k, mk, n, p, &cx.bx, warp, &cx.blocked))
        .collect();
    // Per member: the points it runs over those of full blocks; a register or inlined
    // member's are its consumer's (consumers come later: a backward sweep).
    let mut ran = vec![1.0f64; k.members.len()];
    for mk in (0..k.members.len()).rev() {
        ran[mk] = match cx.run_points(mk, &threads[mk]) {
            Some((points, full)) => points as f64 / full.max(1) as f64,
            None => ran[consumer_in(k, k.members[mk], p).1],
        };
    }
    if let Some(s) = &cx.staging {
        // The staged loop nest guards no point: the anchor and what is fused into it run
        // every point of every block (only the stores are guarded).
        for mk in feeders(p, k, s.anchor) {
            ran[mk] = 1.0;
        }
    }
    let mut out = Vec::with_capacity(k.members.len());
    for (mk, &n) in k.members.iter().enumerate() {
        let node = &g.nodes[n];
        let loc = &k.locs[mk];
        let th = &threads[mk];
        let nthreads = th.active.max(1);
        let (tx, mut points_computed) = cx.member_counts(mk, th, ran[mk]);
        if let Some(s) = cx.staging.as_ref().filter(|s| s.anchor == mk) {
            // The cross-thread split's tree: its combines as points at the anchor's flops.
            points_computed +=
                (num_blocks * s.tree_combines()) as f64 / node.flops_per_point.max(1.0);
        }
        let [gl, sl, gs, ss] = tx;
        let active_warps = nthreads.div_ceil(warp);
        let unique_global: u64 = node
            .inputs
            .iter()
            .enumerate()
            .filter(|(i, _)| levels[n][*i] == Level::Global)
            .map(|(_, inp)| {
                let mut t = k.tiles[mk].shared.clone().unwrap_or_default();
                t[node.num_parallel..].copy_from_slice(&node.domain[node.num_parallel..]);
                input_tile(inp, &t).iter().product::<u64>() * inp.elem_bytes
            })
            .sum();
        out.push(StageFeatures {
            inlined: loc.in_registers(),
            root: matches!(loc, Loc::Root(_)),
            num_scalars: node.domain.iter().product::<u64>() as f64,
            points_computed,
            flops_per_point: node.flops_per_point.max(1.0),
            num_blocks: num_blocks as f64,
            num_threads_per_block: nthreads as f64,
            num_active_warps_per_block: active_warps as f64,
            warp_lane_utilization: nthreads as f64 / (active_warps * warp) as f64,
            idle_lane_wastage: (active_warps * warp - nthreads) as f64
                / dev.max_threads_per_block as f64,
            block_occupancy: nthreads as f64 / dev.max_threads_per_block as f64,
            num_global_mem_loads_per_block: gl.count,
            global_mem_load_efficiency: gl.efficiency(),
            num_shared_mem_loads_per_block: sl.count,
            shared_mem_load_efficiency: sl.efficiency(),
            num_global_mem_stores_per_block: gs.count,
            global_mem_store_efficiency: gs.efficiency(),
            num_shared_mem_stores_per_block: ss.count,
            shared_mem_store_efficiency: ss.efficiency(),
            unique_global_bytes_read_per_block: unique_global as f64,
            global_bytes_stored: if matches!(loc, Loc::Root(_)) {
                (node.out_shape.iter().product::<u64>() * node.out_bytes) as f64
            } else {
                0.0
            },
            working_set_at_thread: k.register_bytes as f64,
            shared_mem_occupancy: k.shared_bytes as f64
                / dev.layers[Device::SHARED].capacity_bytes.max(1) as f64,
            shared_mem_block_limit_factor: smem_blocks as f64 / dev.max_blocks_per_core as f64,
            max_warp_occupancy: ((resident * active_warps) as f64 / max_warps as f64).min(1.0),
            max_block_occupancy: resident as f64 / dev.max_blocks_per_core as f64,
        });
    }
    out
}

/// What [`featurize`] evaluates each member of one kernel with.
struct Cx<'a> {
    p: &'a Pipeline,
    k: &'a KernelPlan,
    levels: &'a Levels,
    dev: &'a Device,
    /// The members' boxes ([`boxes`]).
    bx: Vec<Vec<Span>>,
    /// The kinds of blocks ([`block_classes`]).
    classes: Vec<BlockClass>,
    /// One kind only.
    single: bool,
    /// Per root parallel dim: the lowering's threads own blocked runs of 4 points along it
    /// ([`blocked_dims`]).
    blocked: Vec<bool>,
    /// The lowering's staging of the root's reads from outside the kernel, when the model
    /// counts it ([`super::staged`]): then those reads are its cooperative loads and the
    /// compute's shared reads, and every point of every block computes (staged reads need
    /// no guard; only the stores are guarded).
    staging: Option<Staging>,
    num_blocks: u64,
    block_threads: u64,
    warp: u64,
}

impl Cx<'_> {
    /// Some root dim is blocked ([`blocked_dims`]). Where the staging is not counted as
    /// the lowering runs it ([`Cx::staging`] is `None`: a point guard, a recomputed
    /// reduction, a loop-form register tile), the global loads of the root's body (and of
    /// what is fused into it in registers) are counted with interleaved lanes: the
    /// lowering stages every linear read of an outside tensor by a reduction anchor with
    /// cooperative loads whose warps take consecutive units whatever the thread map
    /// (`staging.rs`), so the runs of 4 (lanes 4 points apart) never reach global memory;
    /// the interleaved lanes' coalesced reads are the estimate there.
    fn any_blocked(&self) -> bool {
        self.blocked.iter().any(|&b| b)
    }

    /// A root or block-level member's points that run (reductions counted) and those of
    /// full blocks; `None` for a register or inlined one.
    fn run_points(&self, mk: usize, th: &Threads) -> Option<(u64, u64)> {
        let (p, k) = (self.p, self.k);
        let node = &p.g.nodes[k.members[mk]];
        let red: u64 = node.domain[node.num_parallel..].iter().product();
        match &k.locs[mk] {
            Loc::Root(_) => {
                let full = self.num_blocks * self.block_threads * k.tiling.serial_points() * red;
                let run = match &self.staging {
                    Some(s) if s.anchor == mk => full,
                    _ => p.extents(k.root).iter().product::<u64>() * red,
                };
                Some((run, full))
            }
            Loc::Shared(_) => {
                let sregion = &self.bx[mk][..node.num_parallel];
                let mut points = 0u64;
                for c in &self.classes {
                    let inside: u64 = sregion
                        .iter()
                        .zip(&node.out_shape)
                        .map(|(s, &e)| {
                            let lo = s.lo_at(&c.origin);
                            ((lo + s.size).min(e as i64) - lo.max(0)).max(0) as u64
                        })
                        .product();
                    points += c.count * inside * red;
                }
                let region: u64 = th.threads.iter().product();
                Some((points, self.num_blocks * region * red))
            }
            _ => None,
        }
    }

    /// Member `mk`'s memory transactions per block (global loads, shared loads, global
    /// stores, shared stores) and the points it computes (recompute included, the body's
    /// reductions counted); `ran`: its share of full blocks' points that run.
    fn member_counts(&self, mk: usize, th: &Threads, ran: f64) -> ([Tx; 4], f64) {
        let (p, k, levels, dev) = (self.p, self.k, self.levels, self.dev);
        let (bx, warp) = (&self.bx, self.warp);
        let n = k.members[mk];
        let node = &p.g.nodes[n];
        let red: u64 = node.domain[node.num_parallel..].iter().product();
        let zero = vec![0i64; p.extents(k.root).len()];
        let weigh = |f: &dyn Fn(&BlockClass) -> [Tx; 4]| {
            weigh(&self.classes, self.num_blocks, self.single, f)
        };
        match &k.locs[mk] {
            Loc::Root(_) => {
                let per_class = |c: &BlockClass| {
                    let reqs = root_requests(p, k, &c.origin, warp, &self.blocked);
                    let mut tx = transactions(
                        p, k, levels, dev, mk, bx, &c.origin, &reqs, red as f64, &reqs,
                    );
                    if self.any_blocked() {
                        // Reads of outside tensors are staged ([`Cx::any_blocked`]).
                        let inter = root_requests(p, k, &c.origin, warp, &[]);
                        let [gl, ..] = transactions(
                            p,
                            k,
                            levels,
                            dev,
                            mk,
                            bx,
                            &c.origin,
                            &inter,
                            red as f64,
                            &[],
                        );
                        tx[0] = gl;
                    }
                    if let Some(s) = self.staging.as_ref().filter(|s| s.anchor == mk) {
                        let sc = s.block_counts(&c.origin, warp);
                        tx[0] = Tx::from(sc.global_loads);
                        tx[1].merge(sc.shared_loads);
                        tx[3].merge(sc.shared_stores);
                    }
                    tx
                };
                let points = self.run_points(mk, th).map_or(0, |x| x.0);
                (weigh(&per_class), points as f64)
            }
            Loc::Shared(_) => {
                let sregion = &bx[mk][..node.num_parallel];
                let full = th.requests(p, k, mk, n, &zero, sregion);
                let per_class = |c: &BlockClass| {
                    let nd = node.domain.len();
                    let loads = shared_requests(
                        &node.out_shape,
                        sregion,
                        &c.origin,
                        nd,
                        self.block_threads,
                        warp,
                    )
                    .unwrap_or_else(|| th.requests(p, k, mk, n, &c.origin, sregion));
                    transactions(
                        p, k, levels, dev, mk, bx, &c.origin, &loads, red as f64, &full,
                    )
                };
                let points = self.run_points(mk, th).map_or(0, |x| x.0);
                (weigh(&per_class), points as f64)
            }
            loc => {
                // Iterations of the body per warp request: a stage fused in registers runs
                // once per point of its thread tile, where its consumer's points run; an
                // inlined one once per read by each consumer point (recomputed per use).
                let per_thread = if matches!(loc, Loc::Inline) {
                    inline_points(p, k, n) as f64 / (self.num_blocks * self.block_threads) as f64
                } else {
                    let r =
                        (union_tile(p, k, n, Level::Register).iter().product::<u64>() * red) as f64;
                    // `ran` is 1 for what feeds a staged anchor (no point guarded).
                    if self.single { r } else { r * ran }
                };
                let reqs = th.requests(p, k, mk, n, &zero, &[]);
                let mut tx = transactions(p, k, levels, dev, mk, bx, &zero, &reqs, per_thread, &[]);
                if !th.blocked.is_empty() && self.any_blocked() {
                    // Reads of outside tensors are staged ([`Cx::any_blocked`]).
                    let inter = Threads {
                        threads: th.threads.clone(),
                        groups: th.groups.clone(),
                        active: th.active,
                        blocked: Vec::new(),
                    };
                    let reqs = inter.requests(p, k, mk, n, &zero, &[]);
                    let [gl, ..] =
                        transactions(p, k, levels, dev, mk, bx, &zero, &reqs, per_thread, &[]);
                    tx[0] = gl;
                }
                if let Some(s) = &self.staging {
                    // Its reads from outside the kernel are the anchor's staged tiles; the
                    // anchor (the reduction of the epilogue form) counts them.
                    tx[0] = Tx::default();
                    if mk == s.anchor {
                        let staged = weigh(&|c: &BlockClass| {
                            let sc = s.block_counts(&c.origin, warp);
                            [
                                Tx::from(sc.global_loads),
                                Tx::from(sc.shared_loads),
                                Tx::default(),
                                Tx::from(sc.shared_stores),
                            ]
                        });
                        for (t, x) in tx.iter_mut().zip(staged) {
                            t.merge(Counted {
                                count: x.count,
                                used: x.used,
                                moved: x.moved,
                            });
                        }
                    }
                }
                let points = match loc {
                    Loc::Inline => inline_points(p, k, n) as f64,
                    _ => self.num_blocks as f64 * th.active.max(1) as f64 * per_thread,
                };
                (tx, points)
            }
        }
    }
}

/// The root's tiling as the lowering runs it, where it differs from `k.tiling`: a block
/// tile over the extent is clipped to it (the kernel's shared tile, `--connect`'s
/// propagation), so fewer threads run along that dim (`⌈clipped / serial⌉`; the lowering
/// refuses a clipped tile the serial tile does not divide).
fn effective_tiling(p: &Pipeline, k: &KernelPlan) -> Option<Tiling> {
    let ext = p.extents(k.root);
    let t = &k.tiling;
    if t.block().iter().zip(ext).all(|(b, e)| b <= e) {
        return None;
    }
    let threads: Vec<u64> = t
        .serial
        .iter()
        .zip(t.threads.iter())
        .zip(ext)
        .map(|((&s, &th), &e)| (s * th).min(e).div_ceil(s.max(1)).max(1))
        .collect();
    Some(Tiling {
        serial: t.serial.clone(),
        threads: threads.into(),
    })
}

/// The per-block transactions of `classes` (`f` evaluates one block of a kind): the one
/// kind's own when `single`, else the kinds' counts weighted by their blocks, over
/// `num_blocks`.
fn weigh(
    classes: &[BlockClass],
    num_blocks: u64,
    single: bool,
    f: &dyn Fn(&BlockClass) -> [Tx; 4],
) -> [Tx; 4] {
    if single {
        return f(&classes[0]);
    }
    let mut acc: [Tx; 4] = Default::default();
    for c in classes {
        let w = c.count as f64 / num_blocks.max(1) as f64;
        for (a, t) in acc.iter_mut().zip(f(c)) {
            a.count += t.count * w;
            a.used += t.used * w;
            a.moved += t.moved * w;
        }
    }
    acc
}

/// The memory transactions per block of member `mk` in the block at `origin` (the boxes
/// `bx`): its loads over the warp requests `loads`, `per` body iterations each (the
/// reductions), its stores over `stores` (a root's in global memory, a block-level
/// stage's in its shared region), each access evaluated lane by lane. Global loads,
/// shared loads, global stores, shared stores.
#[allow(clippy::too_many_arguments)]
fn transactions(
    p: &Pipeline,
    k: &KernelPlan,
    levels: &Levels,
    dev: &Device,
    mk: usize,
    bx: &[Vec<Span>],
    origin: &[i64],
    loads: &[Request],
    per: f64,
    stores: &[Request],
) -> [Tx; 4] {
    let g = &p.g;
    let n = k.members[mk];
    let node = &g.nodes[n];
    let sector = dev.layers[Device::GLOBAL].transaction_bytes.unwrap_or(32);
    let banks = dev.layers[Device::SHARED].banks.unwrap_or(32);
    let bank_bytes = dev.layers[Device::SHARED].bank_bytes.unwrap_or(4);
    let shared_unit = banks * bank_bytes;
    // A block-level stage's region in this block: its start and shape (the row-major
    // layout of its shared buffer).
    let region = |q: usize| -> (Vec<i64>, Vec<u64>) {
        let np = g.nodes[k.members[q]].num_parallel;
        let r = &bx[q][..np];
        (
            r.iter().map(|s| s.lo_at(origin)).collect(),
            r.iter().map(|s| s.size.max(1) as u64).collect(),
        )
    };
    // Row-major byte address of the element `inp` reads at `x`, less `lo` per dim.
    let addr = |inp: &Input, x: &[i64], lo: &[i64], shape: &[u64]| -> i64 {
        let e = inp.index.iter().zip(shape).enumerate();
        e.fold(0i64, |a, (d, (ix, &s))| {
            a * s as i64 + eval_index(ix, x) - lo.get(d).copied().unwrap_or(0)
        }) * inp.elem_bytes as i64
    };
    let (mut gl, mut sl, mut gs, mut ss) =
        (Tx::default(), Tx::default(), Tx::default(), Tx::default());
    let mut addrs: Vec<i64> = Vec::with_capacity(64);
    for r in loads {
        let times = r.issues as f64 * per;
        let lanes = || r.points.chunks_exact(r.nd.max(1));
        for (i, inp) in node.inputs.iter().enumerate() {
            match levels[n][i] {
                Level::Register => {}
                Level::Global => {
                    addrs.clear();
                    addrs.extend(lanes().map(|x| addr(inp, x, &[], &inp.shape)));
                    gl.add(
                        global_sectors(&addrs, inp.elem_bytes, sector),
                        times,
                        sector,
                    );
                }
                Level::Shared => {
                    let q = inp.producer.and_then(|q| k.pos(q)).unwrap_or(mk);
                    let (lo, shape) = region(q);
                    addrs.clear();
                    addrs.extend(lanes().map(|x| addr(inp, x, &lo, &shape)));
                    sl.add(
                        bank_conflicts(&addrs, inp.elem_bytes, banks, bank_bytes),
                        times,
                        shared_unit,
                    );
                }
            }
        }
    }
    let np = node.num_parallel;
    for r in stores {
        let times = r.issues as f64;
        let lanes = || r.points.chunks_exact(r.nd.max(1));
        match &k.locs[mk] {
            Loc::Root(_) => {
                addrs.clear();
                addrs.extend(
                    lanes().map(|x| linear(&x[..np], &node.out_shape) * node.out_bytes as i64),
                );
                gs.add(
                    global_sectors(&addrs, node.out_bytes, sector),
                    times,
                    sector,
                );
            }
            Loc::Shared(_) => {
                let (lo, shape) = region(mk);
                addrs.clear();
                addrs.extend(lanes().map(|x| {
                    let e = x[..np].iter().zip(&lo).zip(&shape);
                    e.fold(0i64, |a, ((v, l), &s)| a * s as i64 + v - l) * node.out_bytes as i64
                }));
                ss.add(
                    bank_conflicts(&addrs, node.out_bytes, banks, bank_bytes),
                    times,
                    shared_unit,
                );
            }
            _ => {}
        }
    }
    [gl, sl, gs, ss]
}

/// The threads a member runs on (`warp` lanes a warp): the root's tiling; a block-level
/// stage the block's threads over its region flat (iteration `r` takes region points
/// `r·T .. r·T + T` of the `T` threads, the last iteration the rest); a register stage
/// its consumer's. `blocked`: the root's blocked dims.
fn threads_of(
    k: &KernelPlan,
    mk: usize,
    n: usize,
    p: &Pipeline,
    bx: &[Vec<Span>],
    warp: u64,
    blocked: &[bool],
) -> Threads {
    let np = p.g.nodes[n].num_parallel;
    let block = k.tiling.num_threads().max(1);
    match &k.locs[mk] {
        Loc::Shared(_) => {
            let region: Vec<u64> = bx[mk][..np].iter().map(|s| s.size.max(1) as u64).collect();
            let points: u64 = region.iter().product();
            let (iters, rest) = (points / block, points % block);
            let mut groups: Vec<_> = warps(block, warp)
                .into_iter()
                .map(|(f, l, c)| (f, l, c * iters))
                .filter(|g| g.2 > 0)
                .collect();
            groups.extend(
                warps(rest, warp)
                    .into_iter()
                    .map(|(f, l, c)| (iters * block + f, l, c)),
            );
            Threads {
                threads: region,
                groups,
                active: block.min(points),
                blocked: Vec::new(),
            }
        }
        Loc::Root(_) => Threads {
            threads: k.tiling.threads.to_vec(),
            groups: warps(block, warp),
            active: block,
            blocked: blocked.to_vec(),
        },
        _ => {
            let (_, ck) = consumer_in(k, n, p);
            threads_of(k, ck, k.members[ck], p, bx, warp, blocked)
        }
    }
}

/// The first consumer of `n` inside `k` and its member position.
fn consumer_in(k: &KernelPlan, n: usize, p: &Pipeline) -> (usize, usize) {
    let c = p
        .consumers(n)
        .iter()
        .copied()
        .find(|&c| k.pos(c).is_some())
        .unwrap_or(k.root);
    (c, k.pos(c).unwrap_or(k.members.len() - 1))
}

/// The domain point of member `mk` (node `n`) that lane `c` (coordinates over the
/// threads `th` run on) computes at serial iteration 0 of block 0: the coordinate itself
/// (interleaved serial points; a block-level stage's lanes are its region's points), 4
/// times it along a root dim the lowering blocks (`blocked`, [`super::runs`]).
fn lane_point(
    p: &Pipeline,
    k: &KernelPlan,
    mk: usize,
    n: usize,
    c: &[u64],
    blocked: &[bool],
) -> Vec<i64> {
    let node = &p.g.nodes[n];
    let mut x: Vec<i64> = match &k.locs[mk] {
        Loc::Root(_) => c
            .iter()
            .enumerate()
            .map(|(d, &t)| local_point(blocked.get(d).copied().unwrap_or(false), 1, 0, t) as i64)
            .collect(),
        Loc::Shared(_) => c.iter().map(|&t| t as i64).collect(),
        _ => {
            let (cn, ck) = consumer_in(k, n, p);
            let cx = lane_point(p, k, ck, cn, c, blocked);
            p.g.nodes[cn]
                .inputs
                .iter()
                .find(|i| i.producer == Some(n))
                .map(|i| element(i, &cx))
                .unwrap_or_default()
        }
    };
    x.resize(node.domain.len(), 0);
    x
}

/// The member positions of `anchor` and of the members fused into it in registers,
/// transitively (what the lowering computes inside the anchor's loop nest).
fn feeders(p: &Pipeline, k: &KernelPlan, anchor: usize) -> Vec<usize> {
    let mut out = vec![anchor];
    let mut i = 0;
    while i < out.len() {
        for inp in &p.g.nodes[k.members[out[i]]].inputs {
            if let Some(q) = inp.producer.and_then(|q| k.pos(q))
                && k.locs[q].in_registers()
                && !out.contains(&q)
            {
                out.push(q);
            }
        }
        i += 1;
    }
    out
}

/// Points an inlined stage computes: one per read per point of each reader's domain
/// (its readers' own points, recursively for a reader that is itself inlined).
fn inline_points(p: &Pipeline, k: &KernelPlan, n: usize) -> u64 {
    let mut total = 0;
    for &(c, _) in &p.g.consumers[n] {
        let Some(ck) = k.pos(c) else { continue };
        let cpoints = match &k.locs[ck] {
            Loc::Inline => inline_points(p, k, c),
            _ => p.g.nodes[c].domain.iter().product(),
        };
        total += cpoints;
    }
    total
}
