//! Welder's cost model (§3.1 `MemTraffic`, `MemFootprint`; §4.1 penalties).
//!
//! - Traffic of a sub-graph at a layer = (bytes of its boundary input tiles + bytes of its
//!   output tiles) × the number of tile instances; reuse-tiles of connected edges are not
//!   counted, and a reduction is counted over its whole extent whatever its step (§2).
//!   Instances = Π ⌈extent / tile⌉ over the first output.
//! - Footprint = the peak of a best-fit allocation of the data tiles, in topological order,
//!   with offsets aligned to 32 bytes (§4.2), a tile freed after its last reader.
//! - Penalties (§4.1; the paper gives them in words, the formulas are ours): uncoalesced
//!   access counts whole 128-byte transactions per contiguous run; too little parallelism
//!   (too few blocks for the cores, or too few threads for their lanes: [`utilization`])
//!   scales traffic by the utilisation; a footprint over the layer's capacity is an
//!   infinite cost. The estimate's DRAM term is further bounded by the loads few warps keep
//!   in flight ([`dram_utilization`], Roller's load term).

use std::collections::HashMap;

use rtile::ir::Value;

use crate::construct_rtile::perf_model::load_utilisation;
use crate::device::Device;

use super::propagate::{SubGraph, value_tile, with_whole_reductions};

/// The coalescing unit of global memory on CUDA GPUs (§4.1: 128 contiguous bytes are one
/// transaction).
pub const COALESCE_BYTES: u64 = 128;
/// Alignment of every tile in a layer (§4.2: "aligning to 32 bytes").
pub const ALIGN_BYTES: u64 = 32;

/// One data tile crossing the sub-graph's boundary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundaryTile {
    /// Tile sizes.
    pub tile: Vec<u64>,
    /// The tensor's shape.
    pub shape: Vec<u64>,
    /// Bytes per element.
    pub elem_bytes: u64,
}

impl BoundaryTile {
    /// Bytes of the tile.
    pub fn bytes(&self) -> u64 {
        self.tile.iter().product::<u64>() * self.elem_bytes
    }
    /// Bytes moved in whole `unit`-byte transactions: the tile is rows of a contiguous run
    /// (the innermost dims the tile covers whole, times the first one it does not).
    pub fn coalesced_bytes(&self, unit: u64) -> u64 {
        let mut run = 1u64;
        for d in (0..self.tile.len()).rev() {
            run *= self.tile[d];
            if self.tile[d] < self.shape[d] {
                break;
            }
        }
        let total: u64 = self.tile.iter().product();
        let rows = total / run.max(1);
        rows * (run * self.elem_bytes).div_ceil(unit) * unit
    }
}

/// The model's view of one sub-graph at one layer for one tile configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    /// Boundary input tiles (one per distinct value read), full reductions.
    pub inputs: Vec<BoundaryTile>,
    /// Output tiles.
    pub outputs: Vec<BoundaryTile>,
    /// Tile-graph instances.
    pub instances: u64,
}

impl Traffic {
    /// Bytes per instance.
    pub fn per_instance(&self) -> u64 {
        self.inputs
            .iter()
            .chain(&self.outputs)
            .map(|t| t.bytes())
            .sum()
    }
    /// `MemTraffic` (§3.1): bytes per instance × instances.
    pub fn total(&self) -> u64 {
        self.per_instance() * self.instances
    }
    /// Bytes moved in whole transactions of `unit` bytes (§4.1's first penalty): every
    /// boundary tile's [`BoundaryTile::coalesced_bytes`], times the instances.
    pub fn coalesced(&self, unit: u64) -> u64 {
        let bytes: u64 = self
            .inputs
            .iter()
            .chain(&self.outputs)
            .map(|t| t.coalesced_bytes(unit))
            .sum();
        bytes * self.instances
    }
    /// Traffic with the §4.1 penalties: whole transactions of `unit` bytes, divided by the
    /// utilisation `util` of the computing cores ([`utilization`]).
    pub fn penalized(&self, unit: u64, util: f64) -> f64 {
        self.coalesced(unit) as f64 / util.clamp(f64::MIN_POSITIVE, 1.0)
    }
}

/// §4.1's "utilization percentage of the computing cores" of a kernel of `blocks` blocks of
/// `threads` threads on `dev`, in (0, 1]. The paper gives the penalty in words only; its
/// unit of parallelism is in §4.1's block-size rule: an SM's hardware parallelism is its
/// warp schedulers × the warp width (V100: 4 × 32 = 128 threads), and the tiles of a block
/// must number more than that. So the device has `cores × teus_per_core × teu_width`
/// lanes, and a kernel keeps busy the smaller of
/// - `blocks / cores`: a block runs on one core, so fewer blocks than cores leave cores
///   idle, however many threads each has;
/// - the lanes each busy core's warp schedulers keep working: a scheduler issues one warp
///   instruction a cycle, which does as many lanes' work as the warp has threads. A core
///   runs its share of the grid's blocks at once (at least one, at most the device's
///   resident-block and thread limits), each as `⌈threads / teu_width⌉` warps of
///   `threads / warps` threads on average; `min(warps, teus_per_core)` of them issue each
///   cycle, out of `teus_per_core × teu_width` lanes.
///
/// Grids of tiny blocks are what this catches: 98,304 one-thread blocks (a row-per-thread
/// softmax fused at the register level) run 32 one-lane warps a core, and the four
/// schedulers do 4 of the core's 128 lanes of work a cycle; on an H200 that kernel ran 7.3×
/// slower than the 128-thread shared-level one (PERF.md, "Welder on the GPU, session 14").
/// Counting threads as lanes, as this model did before, called that grid fully used.
///
/// **[Interp]** Counting blocks alone (as this model did until issue 14's re-tuning) let a
/// 1-thread block count as a whole core: at small sizes the search then chose tiles of 32
/// points run by 1 to 32 threads, re-reading a GEMM's weights once per row block, and on
/// an H200 the fused BERT layer (96 blocks of 32–64 threads) ran 2.4× slower than the
/// unfused one (PERF.md, "Welder"). Wave quantisation and latency hiding beyond one warp
/// per scheduler are not modelled.
pub fn utilization(blocks: u64, threads: u64, dev: &Device) -> f64 {
    let threads = threads.max(1);
    let width = dev.teu_width.max(1);
    let schedulers = dev.teus_per_core.max(1) as f64;
    let share = blocks.max(1) as f64 / dev.cores.max(1) as f64;
    let resident =
        (dev.max_blocks_per_core.max(1)).min((dev.max_threads_per_core / threads).max(1)) as f64;
    let warps_per_block = threads.div_ceil(width) as f64;
    let warps = share.max(1.0).min(resident) * warps_per_block;
    let lanes_per_warp = threads as f64 / warps_per_block;
    let busy = warps.min(schedulers) * lanes_per_warp / (schedulers * width as f64);
    share.min(1.0) * busy.min(1.0)
}

/// The utilisation at which a kernel of `blocks` blocks of `threads` threads loads from
/// DRAM on `dev`, in (0, 1]: a busy core's share of the global bandwidth scaled by Roller's
/// load term, `min(1, blocks / cores) × min(busy, perf_model::load_utilisation(dev, warps))`,
/// where `busy` is [`utilization`]'s lane fraction and `warps` the resident warps of a busy
/// core (`min(⌈blocks / cores⌉, resident blocks) × ⌈threads / teu_width⌉`, as
/// `perf_model::estimate` counts them).
///
/// Extends §4.1's penalty (the paper profiles, so the utilisation needs only to rank
/// traffic; here the model replaces the profiler, §3): a block of few warps keeps too few
/// loads in flight to cover DRAM latency, which the lane fraction does not charge. One
/// 26-thread warp streamed Rammer's LSTM gate at 1.48 GB/s on an H200, 1/25 of one SM's
/// share (PERF.md, "The model's load term"). Welder's fused kernels load synchronously
/// (`--lower-to-gpu`'s fused path has no `cp.async` or TMA pipeline), so no exemption
/// like `perf_model::estimate`'s `async_loads` applies. Where the device file has no
/// `warp_load_gbps` this is [`utilization`] exactly. **[Interp]**
pub fn dram_utilization(blocks: u64, threads: u64, dev: &Device) -> f64 {
    let util = utilization(blocks, threads, dev);
    let threads = threads.max(1);
    let cores = dev.cores.max(1);
    let share = (blocks.max(1) as f64 / cores as f64).min(1.0);
    // Resident blocks by threads and the block limit (the plan's shared memory and
    // registers are not known here).
    let resident = dev.resident_blocks(threads, 0, None);
    let per_core = blocks.max(1).div_ceil(cores).min(resident);
    let warps = per_core * threads.div_ceil(dev.teu_width.max(1));
    // `util` is `share × busy`: the smaller of it and `share × load`.
    util.min(share * load_utilisation(dev, warps))
}

/// The traffic of `sg` for the member domain tiles `dom` (from
/// [`super::propagate::propagate`]).
pub fn traffic(sg: &SubGraph<'_>, dom: &[Vec<u64>]) -> Traffic {
    let g = sg.graph;
    let mut inputs: Vec<(Value, BoundaryTile)> = Vec::new();
    let mut outputs = Vec::new();
    for (k, &n) in sg.members.iter().enumerate() {
        let node = &g.nodes[n];
        let full = with_whole_reductions(node, &dom[k]);
        for (i, inp) in node.inputs.iter().enumerate() {
            if sg.inner_edge(n, i) || node.inputs[..i].iter().any(|o| o.value == inp.value) {
                continue;
            }
            // A node's reads of one tensor load their bounding box (a stencil's halo);
            // two nodes' reads of it, the larger of the two.
            let t = value_tile(node, inp.value, &full);
            match inputs.iter_mut().find(|(v, _)| *v == inp.value) {
                Some((_, b)) => {
                    for (x, y) in b.tile.iter_mut().zip(&t) {
                        *x = (*x).max(*y);
                    }
                }
                None => inputs.push((
                    inp.value,
                    BoundaryTile {
                        tile: t,
                        shape: inp.shape.clone(),
                        elem_bytes: inp.elem_bytes,
                    },
                )),
            }
        }
        if sg.is_output(n) {
            outputs.push(BoundaryTile {
                tile: dom[k][..node.num_parallel].to_vec(),
                shape: node.out_shape.clone(),
                elem_bytes: node.out_bytes,
            });
        }
    }
    let instances = sg
        .outputs()
        .first()
        .and_then(|&f| sg.members.iter().position(|&m| m == f))
        .map(|k| {
            let node = &g.nodes[sg.members[k]];
            node.out_shape
                .iter()
                .zip(&dom[k])
                .map(|(&s, &t)| s.div_ceil(t.max(1)))
                .product()
        })
        .unwrap_or(0);
    Traffic {
        inputs: inputs.into_iter().map(|(_, b)| b).collect(),
        outputs,
        instances,
    }
}

/// A best-fit allocator over one address range (Welder §4.2's shared-memory manager): a
/// request takes the smallest free hole that fits, else grows the top.
#[derive(Clone, Debug, Default)]
pub struct BestFit {
    /// Free holes `(offset, size)`, sorted by offset.
    free: Vec<(u64, u64)>,
    top: u64,
    peak: u64,
}

impl BestFit {
    /// Allocates `bytes` (rounded up to [`ALIGN_BYTES`]); returns the offset.
    pub fn alloc(&mut self, bytes: u64) -> u64 {
        let size = bytes.div_ceil(ALIGN_BYTES).max(1) * ALIGN_BYTES;
        let best = self
            .free
            .iter()
            .enumerate()
            .filter(|(_, h)| h.1 >= size)
            .min_by_key(|(_, h)| h.1)
            .map(|(i, _)| i);
        if let Some(i) = best {
            let (off, hs) = self.free[i];
            if hs == size {
                self.free.remove(i);
            } else {
                self.free[i] = (off + size, hs - size);
            }
            return off;
        }
        let off = self.top;
        self.top += size;
        self.peak = self.peak.max(self.top);
        off
    }
    /// Frees the block `(offset, bytes)`, merging neighbouring holes (and the top).
    pub fn free(&mut self, off: u64, bytes: u64) {
        let size = bytes.div_ceil(ALIGN_BYTES).max(1) * ALIGN_BYTES;
        let i = self.free.partition_point(|h| h.0 < off);
        self.free.insert(i, (off, size));
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.free.len());
        for &(o, s) in &self.free {
            match merged.last_mut() {
                Some(l) if l.0 + l.1 == o => l.1 += s,
                _ => merged.push((o, s)),
            }
        }
        if let Some(&(o, s)) = merged.last()
            && o + s == self.top
        {
            self.top = o;
            merged.pop();
        }
        self.free = merged;
    }
    /// The highest address ever used.
    pub fn peak(&self) -> u64 {
        self.peak
    }
}

/// `MemFootprint` (§3.1): the peak of a best-fit allocation of `sg`'s data tiles at one
/// layer, in topological order. Boundary inputs are staged (tiles of the domain tile `dom`,
/// reduction steps included) from their first reader to their last; a member's result
/// takes space only when `stored(n)` (its tile lives in this layer: a reuse-tile of an
/// edge connected here, or an output), until its last reader in the sub-graph.
pub fn footprint(sg: &SubGraph<'_>, dom: &[Vec<u64>], stored: &dyn Fn(usize) -> bool) -> u64 {
    let g = sg.graph;
    // Last reader (member position) of every value the sub-graph touches.
    let mut last: HashMap<Value, usize> = HashMap::new();
    for (k, &n) in sg.members.iter().enumerate() {
        for inp in &g.nodes[n].inputs {
            last.insert(inp.value, k);
        }
    }
    let mut a = BestFit::default();
    let mut live: HashMap<Value, (u64, u64)> = HashMap::new();
    for (k, &n) in sg.members.iter().enumerate() {
        let node = &g.nodes[n];
        for (i, inp) in node.inputs.iter().enumerate() {
            if sg.inner_edge(n, i) || live.contains_key(&inp.value) {
                continue;
            }
            // All reads of this value by this node, as one tile (their bounding box).
            let t = value_tile(node, inp.value, &dom[k]);
            let bytes = t.iter().product::<u64>() * inp.elem_bytes;
            live.insert(inp.value, (a.alloc(bytes), bytes));
        }
        if stored(n) {
            let bytes = dom[k][..node.num_parallel].iter().product::<u64>() * node.out_bytes;
            live.insert(node.result, (a.alloc(bytes), bytes));
        }
        let done: Vec<Value> = live
            .keys()
            .copied()
            .filter(|v| last.get(v) == Some(&k) && !is_member_output(sg, *v))
            .collect();
        for v in done {
            if let Some((off, b)) = live.remove(&v) {
                a.free(off, b);
            }
        }
    }
    a.peak()
}

/// True when `v` is the result of a member that leaves the sub-graph (kept to the end).
fn is_member_output(sg: &SubGraph<'_>, v: Value) -> bool {
    sg.members
        .iter()
        .any(|&m| sg.graph.nodes[m].result == v && sg.is_output(m))
}
