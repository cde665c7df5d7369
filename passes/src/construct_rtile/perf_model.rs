//! Roller's micro-performance model (§3.3, Figure 9): `MemPerf` per memory layer (traffic over
//! bandwidth, a shared layer's bandwidth split evenly across its consumers), `MaxComputePerf`
//! from the device description, and an estimate of a whole rProgram's time after scale-out.

use super::align::TensorCoreMap;
use super::expr_info::TensorExprInfo;
use super::rtile::{
    ceil_div, data_tile, input_bytes, num_tiles, output_data_tile, thread_registers, tile_elems,
};
use crate::device::Device;
use std::collections::HashSet;

/// `MaxComputePerf(expr)` (§3.3): peak GFLOP/s of the whole device for the expression's element
/// type, from the tensor cores when the program uses them.
pub fn max_compute_gflops(e: &TensorExprInfo, dev: &Device, tc: Option<&TensorCoreMap>) -> f64 {
    match tc {
        Some(t) => t.gflops,
        None => dev.peak(&e.dtype).simt_gflops,
    }
}

/// How many consumers share the layer below `layer` (and, equally, the compute): every thread
/// (or warp, with tensor cores) at full occupancy for the register layer, every core for the
/// shared layer (§3.3: "for the memory layer shared by all TEUs, we split the bandwidth evenly").
pub fn consumers(dev: &Device, layer: usize, lanes: u64) -> f64 {
    if layer == Device::REGISTER {
        (dev.cores * dev.max_threads_per_core / lanes.max(1)) as f64
    } else {
        dev.cores as f64
    }
}

/// Bytes one pass of a register-layer tile reads from the layer below: its input data
/// tiles, each as often as the MMA instructions read it ([`TensorCoreMap::read_passes`];
/// once without tensor cores, as §3.3 counts).
pub fn register_reads(e: &TensorExprInfo, shape: &[u64], tc: Option<&TensorCoreMap>) -> u64 {
    let passes = tc.map(|t| t.read_passes(e, shape));
    e.inputs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let n = passes.as_ref().map_or(1, |p| p[i]);
            n * tile_elems(&data_tile(t, shape), None) * t.elem_bytes
        })
        .sum()
}

/// `Q(T)` of a register-layer tile (§3.1): [`super::rtile::mem_traffic`] with each input
/// counted as often as the instructions read it ([`register_reads`]).
pub fn register_traffic(e: &TensorExprInfo, shape: &[u64], tc: Option<&TensorCoreMap>) -> u64 {
    let extra = register_reads(e, shape, tc) - input_bytes(e, shape);
    super::rtile::mem_traffic(e, shape) + num_tiles(e, shape) * extra
}

/// `MemPerf(T)` (§3.3) at `layer`: rTiles per second one consumer can load from the layer below
/// (`traffic / bandwidth` per tile, inverted); a register-layer tile's traffic is
/// [`register_reads`].
pub fn mem_perf(
    e: &TensorExprInfo,
    dev: &Device,
    layer: usize,
    shape: &[u64],
    lanes: u64,
    tc: Option<&TensorCoreMap>,
) -> f64 {
    let bytes = if layer == Device::REGISTER {
        register_reads(e, shape, tc) as f64
    } else {
        input_bytes(e, shape) as f64
    };
    let bw = dev.bandwidth(layer + 1) / consumers(dev, layer, lanes);
    if bytes == 0.0 {
        f64::INFINITY
    } else {
        bw / bytes
    }
}

/// `MaxComputePerf` for one rTile (§3.3): rTiles per second one consumer can compute at peak.
pub fn compute_perf(
    e: &TensorExprInfo,
    dev: &Device,
    layer: usize,
    shape: &[u64],
    lanes: u64,
    gflops: f64,
) -> f64 {
    let flops = shape.iter().map(|&s| s as f64).product::<f64>() * e.flops_per_point;
    let peak = gflops * 1e9 / consumers(dev, layer, lanes);
    peak / flops.max(1.0)
}

/// Figure 8 line 17: loading keeps up with computing (`MemPerf(T') > MaxComputePerf(T')`), so
/// the tile saturates compute at this layer.
///
/// At the register layer this counts the tile's reads from shared memory only, as §3.3 does
/// (per instruction on wgmma, [`register_reads`]). A staged block's global→shared writes
/// use the same bandwidth ([`estimate`]), but Figure 8 enlarges the register tile before
/// any block exists, and the writes per flop depend on the block. They are checked once
/// the block is chosen: [`estimate`] charges them to the shared layer and the
/// construction's ranking re-orders by it; nothing is dropped. (A write-aware test here,
/// tried in session 16 before reads were counted per instruction, moved h100's wgmma tiles
/// to 128×96, which the estimate rated slower: `docs/passes/construct-rtile.md`.)
pub fn is_compute_bound(
    e: &TensorExprInfo,
    dev: &Device,
    layer: usize,
    shape: &[u64],
    tc: Option<&TensorCoreMap>,
    gflops: f64,
) -> bool {
    let lanes = tc.map_or(1, |t| dev.teu_width * t.warps);
    mem_perf(e, dev, layer, shape, lanes, tc) > compute_perf(e, dev, layer, shape, lanes, gflops)
}

/// The model's estimate of a whole rProgram.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Estimated time, seconds.
    pub total_s: f64,
    /// Waves of blocks over the cores.
    pub waves: u64,
    /// Resident blocks per core.
    pub blocks_per_core: u64,
    /// Per-wave compute, global-load and shared-load times, seconds.
    pub compute_s: f64,
    /// See `compute_s`.
    pub global_s: f64,
    /// See `compute_s`.
    pub shared_s: f64,
    /// Per-wave time of the cross-thread reduction's tree after the reduction, seconds (0
    /// without a split: [`tree_seconds`]).
    pub tree_s: f64,
}

/// Inputs of [`estimate`].
pub struct ProgramShape<'a> {
    /// Shared-layer (block) tile.
    pub block: &'a [u64],
    /// Register-layer (thread or warp) tile.
    pub thread: &'a [u64],
    /// Threads per block.
    pub threads: u64,
    /// Threads sharing one register-layer tile.
    pub lanes: u64,
    /// Shared-memory bytes per block.
    pub shared_bytes: u64,
    /// Register bytes per thread.
    pub register_bytes: u64,
    /// Whether inputs go through shared memory (otherwise threads load from global directly).
    pub staged: bool,
    /// Whether global loads are asynchronous copies (the tensor-core lowerings' `cp.async`
    /// and TMA pipelines): their bytes in flight are the pipeline's stages, not what each
    /// warp's outstanding loads allow, so [`load_utilisation`] does not apply.
    pub async_loads: bool,
    /// The MMA instruction the register-layer tiles issue, if any: how often they read
    /// their operands ([`register_reads`]).
    pub mma: Option<&'a TensorCoreMap>,
}

/// Fraction of a core's compute peak that `warps` resident TEUs reach: each TEU group
/// (scheduler) issues at full rate only with `latency_warps` TEUs to switch between (Little's
/// law, [`Device::latency_warps`]), so `min(1, warps / (teus_per_core × latency_warps))`.
///
/// Roller's model (§3.3) takes MaxComputePerf from a profile of tiles enlarged until they
/// saturate the TEU, so any program it ranks is assumed to saturate; its Figure 18 shows the
/// model's error for blocks under 4 warps. This term goes beyond the paper: it charges the
/// under-occupied programs the construction can still produce (one-warp blocks for small or
/// odd shapes) with the latency they cannot hide. It counts warps only, not the thread tile's
/// instruction-level parallelism: on an H200, a one-warp SIMT block with an 8×8 register tile
/// (`bert_ffn2`, PERF.md) ran at about 1/11 of its scheduler's FMA peak.
pub fn latency_utilisation(dev: &Device, warps: u64) -> f64 {
    let needed = dev.teus_per_core as f64 * dev.latency_warps.max(1.0);
    (warps as f64 / needed).min(1.0)
}

/// Fraction of a core's share of the global bandwidth that `warps` resident TEUs reach when
/// each sustains [`Device::warp_load_gbps`]: `min(1, warps × warp_load_gbps / (bandwidth /
/// cores))`, 1 where the device file does not say.
///
/// Goes beyond Roller's model (§3.3 splits the bandwidth evenly over the cores, whatever
/// their occupancy), as [`latency_utilisation`] does for compute: a one-warp block keeps
/// too few loads in flight to cover the memory latency. On an H200, Rammer's LSTM gate
/// (one 26-thread block streaming 586 KB) ran at 1.48 GB/s, 1/25 of one SM's share (PERF.md).
pub fn load_utilisation(dev: &Device, warps: u64) -> f64 {
    let share = dev.bandwidth(Device::GLOBAL) / dev.cores as f64;
    (loads_in_flight(dev, warps) / share).min(1.0)
}

/// Bytes per second that `warps` resident TEUs of one core load synchronously, each at
/// [`Device::warp_load_gbps`]; unbounded where the device file does not say.
fn loads_in_flight(dev: &Device, warps: u64) -> f64 {
    dev.warp_load_gbps
        .map_or(f64::INFINITY, |g| warps as f64 * g * 1e9)
}

/// A cross-thread reduction split of a program's block, as `--lower-to-gpu` runs a
/// reduction-heavy program with few threads (`lower_to_gpu::reduction::auto_split`): each
/// output point's reduction is shared by `lanes` threads, each reducing `1/lanes` of the
/// block's reduction tile, and the lanes' partial accumulators then meet in a tree in
/// shared memory (`reduction::cross_thread_tree`: the partials stored, one barrier, then
/// `log2(lanes)` levels, each `lane < half` adding its partner's value, each followed by a
/// barrier). Roller keeps "the partitions split along a reduction axis on the same
/// execution unit, as they can share the reduction results in the higher memory layers"
/// (OSDI'22 §3.2, scale-out); the split does that inside one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// Threads per output point (1: no split); a power of two.
    pub lanes: u64,
    /// Bytes of the tree's shared buffer (`outputs per thread × lanes × program threads`
    /// accumulators; `lower_to_gpu::plan`'s `REDUCTION_SLOT` buffer), on top of the
    /// program's shared footprint.
    pub tree_bytes: u64,
}

impl Split {
    /// No split: the program's block as Roller constructed it.
    pub const NONE: Split = Split {
        lanes: 1,
        tree_bytes: 0,
    };
}

/// Cycles one level of the cross-thread tree costs on its critical path: a dependent
/// shared-memory load (19 cycles on V100, Jia et al., "Dissecting the NVIDIA Volta GPU
/// Architecture via Microbenchmarking", 2018), the combine, the store and the block barrier
/// that ends the level. **[Interp]**, not measured here: the order of those four latencies,
/// the same cycle count for every device (the clock scales it); neither Roller's model
/// (§3.3) nor Rammer's profiles (§3.3) have a term for it.
pub const TREE_LEVEL_CYCLES: f64 = 64.0;

/// Per-wave time of a split block's tree ([`Split`]), seconds: `log2(lanes) + 1` barrier
/// steps (the partials' store, then one per level) at [`TREE_LEVEL_CYCLES`] each, plus the
/// tree's shared-memory traffic of the `resident` blocks over the core's share of the
/// shared bandwidth (§3.3's `MemPerf`: traffic over bandwidth, split evenly over the
/// cores): the partials written once (`tree_bytes`), and at each level the active half
/// reads two values and writes one, `3 × tree_bytes × (lanes − 1) / lanes` in all. The tree
/// waits on the block's whole reduction, so it is added to the wave's bottleneck stage, not
/// overlapped with it. 0 without a split; no latency part for a device file without a clock.
pub fn tree_seconds(dev: &Device, split: Split, resident: u64) -> f64 {
    if split.lanes <= 1 {
        return 0.0;
    }
    let lanes = split.lanes as f64;
    let steps = f64::from(split.lanes.next_power_of_two().ilog2()) + 1.0;
    let latency = if dev.clock_ghz > 0.0 {
        steps * TREE_LEVEL_CYCLES / (dev.clock_ghz * 1e9)
    } else {
        0.0
    };
    let moved = split.tree_bytes as f64 * (1.0 + 3.0 * (lanes - 1.0) / lanes);
    let core_bw = dev.bandwidth(Device::SHARED) / dev.cores as f64;
    latency + resident as f64 * moved / core_bw
}

/// Estimates an rProgram after scale-out (§3.2): blocks are spread evenly over the cores in
/// waves; within a wave, one core's time is the slowest of computing, loading from global memory
/// and moving data through shared memory (the pipeline's bottleneck stage), each resource split
/// evenly. Computing runs at the peak scaled by [`latency_utilisation`] of the resident warps
/// and by the filled fraction of each warp's lanes; loading from global memory at the core's
/// share scaled by [`load_utilisation`] of the resident warps (synchronous loads only).
///
/// The shared layer carries both directions of a staged program's traffic: the register
/// tiles' reads (Roller §3.3's `MemTraffic` of the register layer) and the block's
/// global→shared writes, each k-step's input tiles (`cp.async`, TMA or thread stores), which
/// use the same banks. §3.3 charges a layer only with the loads of the layer above; on
/// tensor cores the writes matter. An H200 wgmma program with a 256×128 block reads 128
/// B/clock of operands through m64n64k16 and 96 through m64n128k16, and TMA writes 48: at
/// shared memory's 128 B/clock, 73% and 89% of the tensor-core peak, a ratio of 0.82
/// against the measured 542 / 667 TFLOP/s = 0.81 (PERF.md, `bench/results/h200-2026-11-26/`).
/// With reads alone neither shape's shared time reached its compute time. A wgmma tile's
/// reads are counted per instruction ([`register_reads`]).
///
/// Global memory: where the device file describes an L2 ([`Device::global_cache`]), every
/// block's loads and stores cross it at the core's share of its bandwidth, and DRAM serves
/// each wave's distinct tiles once ([`wave_dram_bytes`]); the slower of the two binds.
/// Roller §3.3 charges every block's loads to DRAM; the H200 ran the 4096³ wgmma programs
/// in 1/2.1–1/2.6 of that estimate, because blocks in a row of the grid share their A
/// panel and a wave holds all of B (PERF.md, issue 16). Devices without the figures keep
/// the per-block DRAM term.
pub fn estimate(e: &TensorExprInfo, dev: &Device, gflops: f64, p: &ProgramShape<'_>) -> Estimate {
    estimate_split(e, dev, gflops, p, Split::NONE)
}

/// [`estimate`] of the program `p` run as a block split for a cross-thread reduction
/// ([`Split`]; [`Split::NONE`] is [`estimate`] exactly): the same block work, the same
/// grid, the same register tiles' reads and global loads, run by `threads × lanes` threads
/// with `shared_bytes + tree_bytes` of shared memory. What changes is what the model reads
/// from the block's shape: the resident blocks (occupancy of the wider block), the warps
/// in flight, so [`latency_utilisation`] (each thread computes `1/lanes` of its tile's
/// reduction) and [`load_utilisation`] (more loads in flight), and the filled fraction of
/// the warps; then the tree's time ([`tree_seconds`]) is added to each wave.
///
/// Roller's model (§3.3) estimates the program as constructed; Rammer's `time()` of an
/// rTask is "individual rTask execution time on a vEU" from its profiler (OSDI'20 §3.3),
/// and the vEU is a thread block (§4.1, §4.1.2): `--wavefront-pack` estimates the rTask as
/// the persistent lowering will launch it, split (`lower_to_gpu::persistent::RTaskShape`).
pub fn estimate_split(
    e: &TensorExprInfo,
    dev: &Device,
    gflops: f64,
    p: &ProgramShape<'_>,
    split: Split,
) -> Estimate {
    let lanes = split.lanes.max(1);
    let threads = p.threads * lanes;
    let shared_bytes = p.shared_bytes + split.tree_bytes;
    let mut grid = 1u64;
    let mut k_steps = 1u64;
    let mut thread_steps = 1u64;
    let mut points = 1f64;
    for (i, a) in e.axes.iter().enumerate() {
        let steps = ceil_div(a.extent, p.block[i]);
        if a.reduction {
            k_steps *= steps;
            thread_steps *= p.block[i] / p.thread[i].max(1);
            points *= (steps * p.block[i]) as f64;
        } else {
            grid *= steps;
            points *= p.block[i] as f64;
        }
    }
    let flops_block = points * e.flops_per_point;
    let out_bytes = tile_elems(&output_data_tile(e, p.block), None) * e.output.elem_bytes;
    let global_block = (k_steps * input_bytes(e, p.block) + out_bytes) as f64;
    // A split's lanes share each register tile's k-steps (`1/lanes` each): the tiles, and
    // their reads, are the program's.
    let thread_tiles = (p.threads / p.lanes.max(1)) * thread_steps * k_steps;
    // Register tiles' reads plus the block's global→shared writes (the inputs of
    // `global_block`).
    let shared_block = (thread_tiles * register_reads(e, p.thread, p.mma)) as f64
        + (k_steps * input_bytes(e, p.block)) as f64;

    let regs = thread_registers(p.register_bytes);
    let bpc = dev.resident_blocks(threads, shared_bytes, Some(regs));
    let cores = dev.cores;
    let resident = bpc.min(ceil_div(grid, cores)).max(1);
    let waves = ceil_div(grid, cores * bpc);

    let w = dev.teu_width;
    let warps = resident * ceil_div(threads, w);
    let util = latency_utilisation(dev, warps);
    let lane_eff = threads as f64 / (ceil_div(threads, w) * w) as f64;
    let peak_core = gflops * 1e9 / cores as f64 * util * lane_eff;
    let r = resident as f64;
    let compute_s = r * flops_block / peak_core;
    let loads = if p.async_loads {
        1.0
    } else {
        load_utilisation(dev, warps)
    };
    let global_s = match dev.global_cache() {
        Some(l2) => {
            let wave_blocks = (cores * resident).min(grid);
            let dram = wave_dram_bytes(e, p.block, wave_blocks, l2.bytes)
                .unwrap_or(wave_blocks as f64 * global_block);
            // The warps' loads in flight bound the rate whichever layer serves them:
            // `warp_load_gbps` each, for synchronous loads ([`load_utilisation`]).
            let in_flight = if p.async_loads {
                f64::INFINITY
            } else {
                loads_in_flight(dev, warps)
            };
            let l2_core = (l2.bandwidth / cores as f64).min(in_flight);
            let through_l2 = r * global_block / l2_core;
            through_l2.max(dram / (dev.bandwidth(Device::GLOBAL) * loads))
        }
        None => r * global_block / (dev.bandwidth(Device::GLOBAL) / cores as f64 * loads),
    };
    let shared_s = if p.staged {
        r * shared_block / (dev.bandwidth(Device::SHARED) / cores as f64)
    } else {
        0.0
    };
    let tree_s = tree_seconds(dev, Split { lanes, ..split }, resident);
    let total_s = waves as f64 * (compute_s.max(global_s).max(shared_s) + tree_s);
    Estimate {
        total_s,
        waves,
        blocks_per_core: bpc,
        compute_s,
        global_s,
        shared_s,
        tree_s,
    }
}

/// The largest wave [`wave_dram_bytes`] enumerates.
const MAX_WAVE_BLOCKS: u64 = 1 << 16;

/// DRAM bytes of the first wave of `wave_blocks` blocks when a device-wide cache of
/// `cache_bytes` holds the tiles the wave shares; `None` when it does not (then every block
/// reads its own). The blocks of a wave run their k-steps about together, so the cache has
/// to hold one k-step's tiles of the whole wave, not the whole reduction's. Blocks are numbered
/// row-major over the spatial axes, the last fastest, as `--lower-to-gpu` launches them,
/// and a wave is consecutive blocks. Per input, the wave reads each distinct data tile
/// once: the blocks that agree on the spatial axes the input uses share its tiles (a
/// matmul's blocks in one row of the grid share their A panel). Halos shared by
/// neighbouring blocks count for each (an upper bound). Every block writes its own output.
fn wave_dram_bytes(
    e: &TensorExprInfo,
    block: &[u64],
    wave_blocks: u64,
    cache_bytes: u64,
) -> Option<f64> {
    // The wave is enumerated block by block; a device file claiming more resident blocks
    // than any GPU has (132 SMs × 32 on an H100) gets the per-block term, not a long loop.
    if wave_blocks > MAX_WAVE_BLOCKS {
        return None;
    }
    let spatial: Vec<usize> = (0..e.axes.len())
        .filter(|&a| !e.axes[a].reduction)
        .collect();
    let grid: Vec<u64> = spatial
        .iter()
        .map(|&a| ceil_div(e.axes[a].extent, block[a]))
        .collect();
    let coords = |mut b: u64| {
        let mut c = vec![0u64; grid.len()];
        for (j, &g) in grid.iter().enumerate().rev() {
            c[j] = b % g;
            b /= g;
        }
        c
    };
    let (mut bytes, mut step_bytes) = (0f64, 0f64);
    for t in &e.inputs {
        let used: Vec<usize> = (0..spatial.len())
            .filter(|&j| t.uses_axis(spatial[j]))
            .collect();
        let mut seen: HashSet<Vec<u64>> = HashSet::new();
        for b in 0..wave_blocks {
            let c = coords(b);
            seen.insert(used.iter().map(|&j| c[j]).collect());
        }
        // Over the whole reduction: every k-step's tile of an input the reduction indexes.
        let k_steps: u64 = (0..e.axes.len())
            .filter(|&a| e.axes[a].reduction && t.uses_axis(a))
            .map(|a| ceil_div(e.axes[a].extent, block[a]))
            .product();
        let tile = tile_elems(&data_tile(t, block), None) * t.elem_bytes;
        bytes += (seen.len() as u64 * k_steps * tile) as f64;
        step_bytes += (seen.len() as u64 * tile) as f64;
    }
    let out =
        (wave_blocks * tile_elems(&output_data_tile(e, block), None) * e.output.elem_bytes) as f64;
    (step_bytes + out <= cache_bytes as f64).then_some(bytes + out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuse_makes_matmul_compute_bound() {
        let dev = Device::builtin("v100").unwrap();
        let e = TensorExprInfo::matmul(4096, 4096, 4096, "f32");
        let g = max_compute_gflops(&e, &dev, None);
        assert_eq!(g, 15700.0);
        // 1×1 per thread: 2 flops per 8 bytes from shared memory cannot keep up.
        assert!(!is_compute_bound(
            &e,
            &dev,
            Device::REGISTER,
            &[1, 1, 1],
            None,
            g
        ));
        assert!(is_compute_bound(
            &e,
            &dev,
            Device::REGISTER,
            &[8, 8, 1],
            None,
            g
        ));
        // Element-wise never becomes compute bound.
        let r = TensorExprInfo::elementwise(&[1 << 20], "f32");
        assert!(!is_compute_bound(
            &r,
            &dev,
            Device::SHARED,
            &[1024],
            None,
            g
        ));
    }

    #[test]
    fn bigger_blocks_estimate_faster() {
        let dev = Device::builtin("v100").unwrap();
        let e = TensorExprInfo::matmul(4096, 4096, 4096, "f32");
        let g = max_compute_gflops(&e, &dev, None);
        let small = estimate(
            &e,
            &dev,
            g,
            &ProgramShape {
                block: &[32, 32, 8],
                thread: &[2, 2, 1],
                threads: 256,
                lanes: 1,
                shared_bytes: 2048,
                register_bytes: 64,
                staged: true,
                async_loads: false,
                mma: None,
            },
        );
        let big = estimate(
            &e,
            &dev,
            g,
            &ProgramShape {
                block: &[128, 128, 8],
                thread: &[8, 8, 1],
                threads: 256,
                lanes: 1,
                shared_bytes: 8192,
                register_bytes: 320,
                staged: true,
                async_loads: false,
                mma: None,
            },
        );
        assert!(big.total_s < small.total_s, "{big:?} vs {small:?}");
        // 137 GFLOP at 15.7 TFLOPS is at least 8.7 ms.
        assert!(big.total_s >= 2.0 * 4096f64.powi(3) / 15.7e12);
    }

    /// One block per core of a 4096-deep matmul whose blocks are 64×64 output tiles: the
    /// same block work by 32 threads (8×16 each) or by 512 threads (2×4 each).
    fn one_block_per_core(dev: &Device, threads: u64) -> Estimate {
        let e = TensorExprInfo::matmul(64 * 8, 64 * dev.cores / 8, 4096, "f32");
        let thread: &[u64] = if threads == 32 {
            &[8, 16, 1]
        } else {
            &[2, 4, 1]
        };
        let g = max_compute_gflops(&e, dev, None);
        estimate(
            &e,
            dev,
            g,
            &ProgramShape {
                block: &[64, 64, 8],
                thread,
                threads,
                lanes: 1,
                shared_bytes: 4096,
                register_bytes: 4 * (thread[0] * thread[1] + thread[0] + thread[1]),
                staged: true,
                async_loads: false,
                mma: None,
            },
        )
    }

    #[test]
    fn latency_utilisation_counts_warps_per_scheduler() {
        let h100 = Device::builtin("h100").unwrap();
        assert_eq!(h100.latency_warps, 4.0);
        // 4 schedulers × 4 warps each saturate an SM.
        assert_eq!(latency_utilisation(&h100, 1), 1.0 / 16.0);
        assert_eq!(latency_utilisation(&h100, 4), 0.25);
        assert_eq!(latency_utilisation(&h100, 16), 1.0);
        assert_eq!(latency_utilisation(&h100, 64), 1.0);
        // A CDNA SIMD hides its ALU latency with one wavefront.
        let mi50 = Device::builtin("mi50").unwrap();
        assert_eq!(latency_utilisation(&mi50, 1), 0.25);
        assert_eq!(latency_utilisation(&mi50, 4), 1.0);
    }

    #[test]
    fn load_utilisation_counts_warps_against_the_core_share() {
        let h100 = Device::builtin("h100").unwrap();
        assert_eq!(h100.warp_load_gbps, Some(1.48));
        // 3,350 GB/s over 132 SMs: 25.4 GB/s each, reached with 18 warps of 1.48 GB/s.
        let share = 3350.0 / 132.0;
        assert!((load_utilisation(&h100, 1) - 1.48 / share).abs() < 1e-12);
        assert!(load_utilisation(&h100, 17) < 1.0);
        assert_eq!(load_utilisation(&h100, 18), 1.0);
        // A device file without the figure: no term.
        let v100 = Device::builtin("v100").unwrap();
        assert_eq!(v100.warp_load_gbps, None);
        assert_eq!(load_utilisation(&v100, 1), 1.0);
    }

    /// The LSTM gate's block of [`a_one_warp_block_is_bound_by_its_loads_in_flight`].
    const LSTM_GATE: ProgramShape<'static> = ProgramShape {
        block: &[1, 260, 40],
        thread: &[1, 10, 5],
        threads: 26,
        lanes: 1,
        shared_bytes: 85440,
        register_bytes: 480,
        staged: true,
        async_loads: false,
        mma: None,
    };

    /// Rammer's LSTM gate on h100 (`bench/models/lstm.mlir`): a 1×256 by 256×256 pair of
    /// matrix-vector products as one 26-thread block, the program the construction ranked
    /// first before this term. Its 585,680 B of global loads take 1/17 of an SM's share
    /// with one warp: the estimate follows the H200's 401.5 µs, not the share's 23 µs.
    #[test]
    fn a_one_warp_block_is_bound_by_its_loads_in_flight() {
        let dev = Device::builtin("h100").unwrap();
        let mut e = TensorExprInfo::matmul(1, 256, 256, "f32");
        e.inputs.push(e.inputs[0].clone());
        e.inputs.push(e.inputs[1].clone());
        e.flops_per_point *= 2.0;
        let g = max_compute_gflops(&e, &dev, None);
        let est = estimate(&e, &dev, g, &LSTM_GATE);
        assert_eq!((est.waves, est.blocks_per_core), (1, 2));
        let bytes = 585680.0;
        assert!((est.global_s - bytes / 1.48e9).abs() < 1e-9, "{est:?}");
        assert!(est.total_s > 350e-6 && est.total_s < 450e-6, "{est:?}");
    }

    /// The LSTM gate block of [`a_one_warp_block_is_bound_by_its_loads_in_flight`] (26
    /// threads, one block), unsplit or split into `lanes` threads per output point with
    /// its tree buffer (10 outputs per thread × lanes × 26 threads × 4 B).
    fn lstm_gate(dev: &Device, lanes: u64) -> Estimate {
        let mut e = TensorExprInfo::matmul(1, 256, 256, "f32");
        e.inputs.push(e.inputs[0].clone());
        e.inputs.push(e.inputs[1].clone());
        e.flops_per_point *= 2.0;
        let g = max_compute_gflops(&e, dev, None);
        let split = if lanes == 1 {
            Split::NONE
        } else {
            Split {
                lanes,
                tree_bytes: 10 * lanes * 26 * 4,
            }
        };
        estimate_split(&e, dev, g, &LSTM_GATE, split)
    }

    /// A split GEMV block has `lanes` times the threads: on h100, 8 lanes make the one
    /// 26-thread warp seven (208 threads), so the load term lets seven warps' loads fly and
    /// the block's global time falls by exactly 7; the compute, at 7/16 of the SM's peak
    /// with 208 of 224 lanes filled instead of 1/16 with 26 of 32, falls by 208 / 26 = 8,
    /// the split (each thread computes 1/8 of its reduction). The split estimate is the
    /// faster one even with the tree on top.
    #[test]
    fn a_split_gemv_block_is_estimated_faster_under_the_load_term() {
        let dev = Device::builtin("h100").unwrap();
        let one = lstm_gate(&dev, 1);
        let eight = lstm_gate(&dev, 8);
        // One block in all (resident 1 either way); the wider block fits once per SM
        // (seven warps at Roller's register estimate), the narrow one twice.
        assert_eq!((one.waves, one.blocks_per_core), (1, 2), "{one:?}");
        assert_eq!((eight.waves, eight.blocks_per_core), (1, 1), "{eight:?}");
        let rel = |a: f64, b: f64| (a - b).abs() / b;
        assert!(rel(eight.global_s, one.global_s / 7.0) < 1e-12, "{eight:?}");
        assert!(
            rel(eight.compute_s, one.compute_s / 8.0) < 1e-12,
            "{eight:?}"
        );
        // Same register tiles, same shared traffic.
        assert_eq!(eight.shared_s, one.shared_s);
        assert_eq!(one.tree_s, 0.0);
        assert!(eight.tree_s > 0.0);
        assert_eq!(eight.total_s, eight.global_s + eight.tree_s);
        assert!(eight.total_s < one.total_s / 6.0, "{eight:?} vs {one:?}");
        // Without the load term (v100's file leaves it out) the global time does not move.
        let v100 = Device::builtin("v100").unwrap();
        assert_eq!(lstm_gate(&v100, 8).global_s, lstm_gate(&v100, 1).global_s);
    }

    /// No split is the estimate the construction ranks by, field for field: the pinned
    /// figures of [`a_one_warp_block_is_bound_by_its_loads_in_flight`] hold through
    /// [`estimate_split`], and a split with one lane (even with a buffer) has no tree.
    #[test]
    fn a_split_of_one_is_the_unsplit_estimate() {
        let dev = Device::builtin("h100").unwrap();
        let one = lstm_gate(&dev, 1);
        assert_eq!((one.waves, one.blocks_per_core), (1, 2));
        assert!((one.global_s - 585680.0 / 1.48e9).abs() < 1e-9, "{one:?}");
        assert_eq!(one.total_s, one.global_s);
        assert_eq!(one.tree_s, 0.0);
        assert_eq!(tree_seconds(&dev, Split::NONE, 4), 0.0);
        let e = TensorExprInfo::matmul(512, 4096, 1024, "f16");
        let g = max_compute_gflops(&e, &dev, None);
        let shape = ProgramShape {
            block: &[64, 128, 16],
            thread: &[4, 4, 1],
            threads: 512,
            lanes: 1,
            shared_bytes: 6272,
            register_bytes: 80,
            staged: true,
            async_loads: false,
            mma: None,
        };
        assert_eq!(
            estimate_split(&e, &dev, g, &shape, Split::NONE),
            estimate(&e, &dev, g, &shape)
        );
    }

    /// The tree's time: `log2(lanes) + 1` barrier steps of [`TREE_LEVEL_CYCLES`] at the
    /// device's clock, each doubling of the lanes one step more; its traffic on top.
    #[test]
    fn the_tree_cost_grows_with_log2_of_the_split() {
        let dev = Device::builtin("h100").unwrap();
        let step = TREE_LEVEL_CYCLES / (dev.clock_ghz * 1e9);
        let mut last = 0.0;
        for (lanes, levels) in [(2u64, 1.0), (4, 2.0), (8, 3.0), (16, 4.0), (32, 5.0)] {
            let bare = tree_seconds(
                &dev,
                Split {
                    lanes,
                    tree_bytes: 0,
                },
                1,
            );
            assert!(
                ((bare - (levels + 1.0) * step) / bare).abs() < 1e-12,
                "{lanes}"
            );
            assert!(bare > last, "{lanes}");
            if lanes > 2 {
                assert!((bare - last - step).abs() < 1e-15, "{lanes}");
            }
            last = bare;
        }
        // Traffic: 8 lanes of a 4 KiB buffer move 4 KiB + 3 × 4 KiB × 7/8, for each
        // resident block, at the SM's share of shared memory's bandwidth.
        let split = Split {
            lanes: 8,
            tree_bytes: 4096,
        };
        let bare = (3.0 + 1.0) * step;
        let core_bw = dev.bandwidth(Device::SHARED) / dev.cores as f64;
        let moved = 4096.0 * (1.0 + 3.0 * 7.0 / 8.0);
        for r in [1u64, 3] {
            let t = tree_seconds(&dev, split, r);
            assert!(((t - bare - r as f64 * moved / core_bw) / t).abs() < 1e-12);
        }
        // A device file without a clock: the traffic only.
        let noclock = Device {
            clock_ghz: 0.0,
            ..dev.clone()
        };
        assert!((tree_seconds(&noclock, split, 1) - moved / core_bw).abs() < 1e-18);
    }

    /// The H200 wgmma programs of PERF.md on h100: sq4096 f16 with a 256×128 block, eight
    /// warpgroups of 64×64 (1,024 threads) or four of 64×128 (512 threads).
    fn wgmma_sq4096(thread: &[u64], threads: u64, register_bytes: u64) -> Estimate {
        let dev = Device::builtin("h100").unwrap();
        let e = TensorExprInfo::matmul(4096, 4096, 4096, "f16");
        estimate(
            &e,
            &dev,
            989400.0,
            &ProgramShape {
                block: &[256, 128, 64],
                thread,
                threads,
                lanes: 128,
                shared_bytes: 4 * 49152,
                register_bytes,
                staged: true,
                async_loads: true,
                mma: None,
            },
        )
    }

    #[test]
    fn shared_layer_carries_the_staged_writes_too() {
        let n64 = wgmma_sq4096(&[64, 64, 16], 1024, 160);
        let n128 = wgmma_sq4096(&[64, 128, 16], 512, 304);
        // One block per SM, 512 blocks: 4 waves; 64 k-steps of 2 Mi multiply-adds.
        assert_eq!((n64.waves, n64.blocks_per_core), (4, 1));
        assert_eq!((n128.waves, n128.blocks_per_core), (4, 1));
        let core_bw = 33454e9 / 132.0;
        // Each k-step writes the 256×64 A tile and the 64×128 B tile: 48 KiB.
        let writes = 64.0 * (256.0 * 64.0 + 64.0 * 128.0) * 2.0;
        assert_eq!(writes, 3145728.0);
        // Reads: 8 warpgroups × 4 k-substeps × 64 k-steps of 4 KiB (m64n64k16's A and B),
        // or 4 × 4 × 64 of 6 KiB (m64n128k16).
        let reads64 = 8.0 * 4.0 * 64.0 * 4096.0;
        let reads128 = 4.0 * 4.0 * 64.0 * 6144.0;
        let rel = |a: f64, b: f64| (a - b).abs() / b;
        assert!(
            rel(n64.shared_s, (reads64 + writes) / core_bw) < 1e-12,
            "{n64:?}"
        );
        assert!(
            rel(n128.shared_s, (reads128 + writes) / core_bw) < 1e-12,
            "{n128:?}"
        );
        // Both are bound by shared memory rather than the tensor cores now (reads alone, 33.1
        // and 24.8 µs, were under the 35.8 µs of the tensor-core peak): 79% and 96% of the
        // peak, and the 64×128 program's shared time is 0.82× the 64×64 one's (the H200
        // measured 0.81× in kernel time).
        let flops = 256.0 * 128.0 * 4096.0 * 2.0;
        assert!(rel(n64.compute_s, flops / (989.4e12 / 132.0)) < 1e-12);
        assert_eq!(n64.compute_s, n128.compute_s);
        assert!(reads64 / core_bw < n64.compute_s && reads128 / core_bw < n128.compute_s);
        let eff64 = n64.compute_s / n64.shared_s;
        let eff128 = n128.compute_s / n128.shared_s;
        assert!((0.78..0.80).contains(&eff64), "{eff64}");
        assert!((0.95..0.97).contains(&eff128), "{eff128}");
        let ratio = n128.shared_s / n64.shared_s;
        assert!((0.81..0.83).contains(&ratio), "{ratio}");
        // Global memory through the L2 (h100.toml: 50 MB at 10,138 GB/s): each block's 3.2
        // MB of loads and stores cross the L2 at an SM's 76.8 GB/s share, 41.8 µs per wave;
        // the wave's DRAM bytes are its distinct tiles only, 15.7 µs at 3,350 GB/s.
        let block_bytes = writes + 256.0 * 128.0 * 2.0;
        let through_l2 = block_bytes / (10138e9 / 132.0);
        assert!(rel(n64.global_s, through_l2) < 1e-12, "{n64:?}");
        assert_eq!(n64.global_s, n128.global_s);
        // So shared memory binds the 64×64 program and the L2 the 64×128 one, which is now
        // estimated faster (0.92×; the H200 measured 0.81×).
        assert_eq!(n64.total_s, 4.0 * n64.shared_s);
        assert_eq!(n128.total_s, 4.0 * n128.global_s);
        assert!(n128.total_s < n64.total_s);
    }

    /// A wave of 132 of sq4096's 256×128 blocks (grid 16×32, the last axis fastest) spans 5
    /// block rows: it reads 5 A panels and all 32 B panels once from DRAM, and writes its
    /// 132 output tiles.
    #[test]
    fn a_wave_reads_each_shared_tile_once() {
        let e = TensorExprInfo::matmul(4096, 4096, 4096, "f16");
        let block = [256, 128, 64];
        let a_tile = 256.0 * 64.0 * 2.0;
        let b_tile = 64.0 * 128.0 * 2.0;
        let out = 132.0 * 256.0 * 128.0 * 2.0;
        let want = 5.0 * 64.0 * a_tile + 32.0 * 64.0 * b_tile + out;
        assert_eq!(wave_dram_bytes(&e, &block, 132, 50 << 20), Some(want));
        // One k-step of the wave's tiles and its outputs must fit the cache: 9.3 MB.
        let step = 5.0 * a_tile + 32.0 * b_tile + out;
        assert_eq!(wave_dram_bytes(&e, &block, 132, step as u64), Some(want));
        assert_eq!(wave_dram_bytes(&e, &block, 132, step as u64 - 1), None);
        // A wave past any real device's (a malformed device file) is not enumerated.
        let e1 = TensorExprInfo::elementwise(&[1 << 20], "f32");
        assert_eq!(
            wave_dram_bytes(&e1, &[1], MAX_WAVE_BLOCKS + 1, u64::MAX),
            None
        );
        // Devices without an L2 in their file keep §3.3's per-block global term.
        let v100 = Device::builtin("v100").unwrap();
        assert!(v100.global_cache().is_none());
    }

    /// What one block moves over its whole reduction: each k-step's input tiles, and its
    /// output tile (the `global_block` of [`estimate`]).
    fn block_bytes(e: &TensorExprInfo, block: &[u64]) -> f64 {
        let k_steps: u64 = (0..e.axes.len())
            .filter(|&a| e.axes[a].reduction)
            .map(|a| ceil_div(e.axes[a].extent, block[a]))
            .product();
        let out = tile_elems(&output_data_tile(e, block), None) * e.output.elem_bytes;
        (k_steps * input_bytes(e, block) + out) as f64
    }

    proptest::proptest! {
        /// A wave's DRAM bytes never exceed what its blocks load one by one, grow with the
        /// wave, and equal the blocks' own bytes where no block shares a tile (element-wise).
        #[test]
        fn a_wave_reads_at_most_what_its_blocks_load(
            m in 1u64..300, n in 1u64..300, k in 1u64..300,
            bm in 1u64..64, bn in 1u64..64, bk in 1u64..64, wave in 1u64..400,
        ) {
            let e = TensorExprInfo::matmul(m, n, k, "f16");
            let block = [bm.min(m), bn.min(n), bk.min(k)];
            let grid = ceil_div(m, block[0]) * ceil_div(n, block[1]);
            let w = wave.min(grid);
            let all = wave_dram_bytes(&e, &block, w, u64::MAX).unwrap();
            proptest::prop_assert!(all <= w as f64 * block_bytes(&e, &block));
            if w > 1 {
                let fewer = wave_dram_bytes(&e, &block, w - 1, u64::MAX).unwrap();
                proptest::prop_assert!(fewer <= all);
            }
            let ew = TensorExprInfo::elementwise(&[m, n], "f32");
            let eb = [block[0], block[1]];
            let ew_grid = ceil_div(m, eb[0]) * ceil_div(n, eb[1]);
            let ew_w = wave.min(ew_grid);
            proptest::prop_assert_eq!(
                wave_dram_bytes(&ew, &eb, ew_w, u64::MAX).unwrap(),
                ew_w as f64 * block_bytes(&ew, &eb)
            );
        }
    }

    /// BERT-Large FFN1 (512×4096×1024, f16 inputs, f32 arithmetic) on h100: two SIMT
    /// programs the construction builds (ranks 9 and 10), 4×4 thread tiles in 64×128 or
    /// 64×64 blocks. Their register tiles read alike per flop, so on reads alone they tied
    /// (66.21 µs); the larger block writes fewer bytes per flop into shared memory and now
    /// ranks first.
    #[test]
    fn the_block_writes_re_rank_programs_with_equal_reads() {
        let dev = Device::builtin("h100").unwrap();
        let e = TensorExprInfo::matmul(512, 4096, 1024, "f16");
        let est = |block: &[u64], threads: u64, shared_bytes: u64| {
            estimate(
                &e,
                &dev,
                66900.0,
                &ProgramShape {
                    block,
                    thread: &[4, 4, 1],
                    threads,
                    lanes: 1,
                    shared_bytes,
                    register_bytes: 80,
                    staged: true,
                    async_loads: false,
                    mma: None,
                },
            )
        };
        let wide = est(&[64, 128, 16], 512, 6272);
        let narrow = est(&[64, 64, 16], 256, 4224);
        // 256 and 512 blocks over 132 SMs: 2 and 4 resident, one wave each.
        assert_eq!((wide.waves, narrow.waves), (1, 1));
        let core_bw = 33454e9 / 132.0;
        // Per block, 64 k-steps: threads × 16 register steps of 16 B (A's 4×1 and B's 1×4
        // f16 tiles), and the block's A 64×16 and B 16×128 (or 16×64) f16 tiles.
        let shared = |resident: f64, threads: f64, block_bytes: f64| {
            resident * 64.0 * (threads * 16.0 * 16.0 + block_bytes) / core_bw
        };
        let rel = |a: f64, b: f64| (a - b).abs() / b;
        assert!(
            rel(wide.shared_s, shared(2.0, 512.0, 6144.0)) < 1e-12,
            "{wide:?}"
        );
        assert!(
            rel(narrow.shared_s, shared(4.0, 256.0, 4096.0)) < 1e-12,
            "{narrow:?}"
        );
        // Shared memory binds both; the reads alone are equal.
        assert_eq!(shared(2.0, 512.0, 0.0), shared(4.0, 256.0, 0.0));
        assert_eq!(wide.total_s, wide.shared_s);
        assert_eq!(narrow.total_s, narrow.shared_s);
        assert!(wide.total_s < narrow.total_s);
    }

    #[test]
    fn one_warp_is_slower_than_the_same_work_on_enough_warps() {
        let dev = Device::builtin("v100").unwrap();
        let one = one_block_per_core(&dev, 32);
        let many = one_block_per_core(&dev, 512);
        assert_eq!((one.waves, many.waves), (1, 1));
        // Same flops per core: 1 warp reaches 1/16 of the peak, 16 warps all of it.
        let ratio = one.compute_s / many.compute_s;
        assert!((ratio - 16.0).abs() < 1e-9, "{ratio}");
        assert!(one.total_s > 4.0 * many.total_s, "{one:?} vs {many:?}");
        // 64·64·4096·2 flops at 15.7 TFLOPS / 80 SMs: 171 µs on 16 warps.
        let flops = 64.0 * 64.0 * 4096.0 * 2.0;
        assert!((many.compute_s - flops / (15.7e12 / 80.0)).abs() < 1e-9);
        // Without the term (a device file leaving it out) one warp counted as a quarter of
        // the SM: the ranking error of PERF.md's bert_ffn2.
        let old = Device {
            latency_warps: crate::device::default_latency_warps(),
            ..dev.clone()
        };
        let r = one_block_per_core(&old, 32).compute_s / one_block_per_core(&old, 512).compute_s;
        assert!((r - 4.0).abs() < 1e-9, "{r}");
    }
}
