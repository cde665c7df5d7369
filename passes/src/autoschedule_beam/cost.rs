//! The cost terms of OOPSLA'21 Appendix B over the features of [`super::features`], with
//! coefficients derived from the device's throughputs instead of the paper's network
//! (docs/passes/autoschedule-beam.md, "Cost model").
//!
//! Where the paper and the released code differ (digest §5.3), this follows **Appendix B
//! as printed**: the per-thread load terms are inside `num_realizations × (…)`, global
//! *and* shared load transactions are divided by their efficiencies, and the compute term
//! is `points_computed × c` (the released code's extra `num_scalars` term is left out).
//! Terms whose coefficient the paper learns and for which no device throughput gives a
//! value (false sharing, malloc, parallel tasks, working set, the per-point/per-task
//! byte terms) have a coefficient of 0: the register rule prunes what the working-set term
//! would penalise (§4.6 rule 5).
//!
//! One term goes beyond Appendix B: a cost per block launched ([`Coefficients::block`],
//! [`BLOCK_DISPATCH_CYCLES`]).

use serde::Deserialize;

use super::features::StageFeatures;
use crate::device::Device;

/// How many linear coefficients the model has (the length of [`TERM_NAMES`]).
pub const NUM_TERMS: usize = 6;

/// The names of the fitted coefficients, in the order of [`stage_terms`]'s terms and of
/// [`Coefficients::weights`] (the keys of a weights file).
pub const TERM_NAMES: [&str; NUM_TERMS] = [
    "per_flop",
    "global_transaction",
    "shared_transaction",
    "global_byte",
    "launch",
    "block",
];

/// Cycles one SM spends per block it runs, beyond the block's work: the block-scheduling
/// cost behind [`Coefficients::block`]'s device-derived value, `BLOCK_DISPATCH_CYCLES /
/// (clock × SMs)` seconds per block launched (the SMs dispatch and retire blocks in
/// parallel; [`block_dispatch_seconds`], [`Coefficients::from_device_with_blocks`]; not
/// among the shipped defaults, see [`Coefficients::from_device`]).
///
/// **Measured, not from a datasheet.** On the H200 (132 SMs, 1.98 GHz; PERF.md, "Retrained
/// on H200 kernel times", measured 2026-11-26), the 75 kernels of ≥ 20,000 blocks (16- to
/// 64-thread blocks of the Halide schedules, each kernel timed alone) ran 0.61–1.20 ns per
/// block, median 0.64: block-scheduling bound. The smallest, 0.6106 ns, is the closest to
/// the bare per-block cost (the others add their blocks' work, which the other terms
/// count): 0.6106 ns × 1.98 GHz × 132 SMs = 159.6 cycles per block per SM, rounded to 160.
/// **[Interp]**: the same cycle count is assumed for every device (only Hopper was
/// measured); the clock and SM count scale it.
///
/// **Beyond Appendix B.** Appendix B's parallelism cost is a launch per production (c25)
/// and `(inner_parallelism − 1) × c26` per production, CPU-style tasks; the paper's prose
/// (§5.2) counts "the number of kernels and blocks launched", but its blocks enter only
/// through coefficients the network predicts from the features. With constant
/// coefficients, occupancy scaling the throughput terms and a launch per kernel, no
/// coefficient of the five other terms grows with the block count at fixed work: Harris's
/// first stage with 245,760 16-thread blocks (151 µs measured) and with 20,480 64-thread
/// blocks (17 µs) has nearly the same five terms. This term is that block count, not
/// scaled by occupancy.
pub const BLOCK_DISPATCH_CYCLES: f64 = 160.0;

/// A weights file (`weights=path`): every coefficient of [`TERM_NAMES`], seconds per unit,
/// and optionally `saturating_warps` (else the device's).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WeightsFile {
    per_flop: f64,
    global_transaction: f64,
    shared_transaction: f64,
    global_byte: f64,
    launch: f64,
    block: f64,
    saturating_warps: Option<f64>,
}

/// The shipped coefficients, seconds per unit (the `cN` names of Appendix B).
#[derive(Clone, Debug, PartialEq)]
pub struct Coefficients {
    /// c19/c4: seconds per flop at the device's SIMT peak (× flops per point).
    pub per_flop: f64,
    /// c28 (global load transactions) and c21 (global store transactions): a sector
    /// moved at the L1/shared throughput (requests are served by L1 before DRAM).
    pub global_transaction: f64,
    /// c27 (shared loads) and c29 (shared stores): one 128-byte bank cycle at the shared
    /// bandwidth.
    pub shared_transaction: f64,
    /// c6: a unique global byte read per realization, at DRAM bandwidth.
    pub global_byte: f64,
    /// c25: one kernel launch.
    pub launch: f64,
    /// One block launched (per kernel, not scaled by occupancy): beyond Appendix B, see
    /// [`BLOCK_DISPATCH_CYCLES`]. 0 in the shipped defaults.
    pub block: f64,
    /// The warps per SM that saturate it (occupancy below it scales every throughput
    /// term up; **[Interp]**: a quarter of the SM's warp slots).
    pub saturating_warps: f64,
}

impl Coefficients {
    /// The shipped defaults, from `dev`'s description: the five Appendix B terms, and no
    /// block term (`block = 0`). The block term's device-derived value
    /// ([`Coefficients::from_device_with_blocks`]) is not shipped: on the H200's kernel
    /// times it predicts held-back pipelines worse than the five terms alone (pooled
    /// leave-one-pipeline-out error factor 2.88 against 2.62; PERF.md, "Session 17: the
    /// per-block term"), though it ranks them better.
    pub fn from_device(dev: &Device) -> Coefficients {
        let sector = dev.layers[Device::GLOBAL].transaction_bytes.unwrap_or(32) as f64;
        let shared = &dev.layers[Device::SHARED];
        let unit = (shared.banks.unwrap_or(32) * shared.bank_bytes.unwrap_or(4)) as f64;
        let shared_bw = dev.bandwidth(Device::SHARED);
        Coefficients {
            per_flop: 1.0 / (dev.peak("f32").simt_gflops * 1e9),
            global_transaction: sector / shared_bw,
            shared_transaction: unit / shared_bw,
            global_byte: 1.0 / dev.bandwidth(Device::GLOBAL),
            launch: dev.launch_us * 1e-6,
            block: 0.0,
            saturating_warps: (dev.max_threads_per_core / dev.teu_width.max(1)) as f64 / 4.0,
        }
    }

    /// The six-term device-derived model: [`Coefficients::from_device`] with the block term
    /// at its device-derived value, [`block_dispatch_seconds`] (`--autoschedule-beam`
    /// loads it from a weights file; `rtile-bench retrain --derived-block` compares fits
    /// with it).
    pub fn from_device_with_blocks(dev: &Device) -> Coefficients {
        Coefficients {
            block: block_dispatch_seconds(dev),
            ..Coefficients::from_device(dev)
        }
    }

    /// The linear coefficients, in [`TERM_NAMES`] order.
    pub fn weights(&self) -> [f64; NUM_TERMS] {
        [
            self.per_flop,
            self.global_transaction,
            self.shared_transaction,
            self.global_byte,
            self.launch,
            self.block,
        ]
    }

    /// These coefficients with the linear ones replaced by `w` ([`TERM_NAMES`] order).
    pub fn with_weights(&self, w: [f64; NUM_TERMS]) -> Coefficients {
        Coefficients {
            per_flop: w[0],
            global_transaction: w[1],
            shared_transaction: w[2],
            global_byte: w[3],
            launch: w[4],
            block: w[5],
            saturating_warps: self.saturating_warps,
        }
    }

    /// A weights file's text (TOML, the keys of [`TERM_NAMES`] and `saturating_warps`).
    pub fn to_toml(&self) -> String {
        let mut s = String::new();
        for (name, w) in TERM_NAMES.iter().zip(self.weights()) {
            s += &format!("{name} = {w:e}\n");
        }
        s += &format!("saturating_warps = {:?}\n", self.saturating_warps);
        s
    }

    /// Reads a weights file; `saturating_warps` defaults to `base`'s. Every value must be
    /// finite and non-negative (the terms are costs per unit).
    pub fn from_toml(text: &str, base: &Coefficients) -> Result<Coefficients, String> {
        let f: WeightsFile = toml::from_str(text).map_err(|e| e.to_string())?;
        let c = Coefficients {
            per_flop: f.per_flop,
            global_transaction: f.global_transaction,
            shared_transaction: f.shared_transaction,
            global_byte: f.global_byte,
            launch: f.launch,
            block: f.block,
            saturating_warps: f.saturating_warps.unwrap_or(base.saturating_warps),
        };
        for (name, w) in TERM_NAMES.iter().zip(c.weights()) {
            if !w.is_finite() || w < 0.0 {
                return Err(format!(
                    "{name} = {w}: a coefficient must be finite and >= 0"
                ));
            }
        }
        if !c.saturating_warps.is_finite() || c.saturating_warps <= 0.0 {
            return Err(format!(
                "saturating_warps = {}: must be finite and > 0",
                c.saturating_warps
            ));
        }
        Ok(c)
    }
}

/// The cost terms of one stage, seconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StageCost {
    /// Compute.
    pub compute: f64,
    /// Loads (global and shared transactions, unique global bytes).
    pub load: f64,
    /// Stores.
    pub store: f64,
    /// Launches and blocks launched.
    pub parallelism: f64,
}

impl StageCost {
    /// The stage's cost (Appendix B: `compute + store + load + malloc + parallelism +
    /// working set`; malloc and working set are 0 here).
    pub fn total(&self) -> f64 {
        self.compute + self.load + self.store + self.parallelism
    }
}

/// Appendix B for one stage. `cores` in `idle_core_wastage` are the device's SMs times the
/// blocks resident per SM (a wave of blocks); occupancy under the saturating warps scales
/// the throughput terms.
pub fn stage_cost(f: &StageFeatures, c: &Coefficients, dev: &Device) -> StageCost {
    let resident_per_sm = (f.max_block_occupancy * dev.max_blocks_per_core as f64).max(1.0);
    let num_cores = dev.cores as f64 * resident_per_sm;
    let tasks = f.num_blocks.max(1.0);
    let tasks_per_core = tasks / num_cores;
    let idle_core_wastage = tasks_per_core.ceil() / tasks_per_core.max(1.0);
    // Warps the kernel keeps busy per SM, at most the resident ones.
    let busy = (tasks.min(num_cores) * f.num_active_warps_per_block) / dev.cores as f64;
    let util = (busy / c.saturating_warps).clamp(1e-3, 1.0);
    let mut compute = f.points_computed * f.flops_per_point * c.per_flop;
    compute *= idle_core_wastage;
    if !f.inlined {
        compute /= 1.0 - f.idle_lane_wastage;
    }
    let eff = |e: f64| if f.inlined { 1.0 } else { 1.0 / e.max(1e-6) };
    let global_load = f.num_blocks
        * f.num_global_mem_loads_per_block
        * eff(f.global_mem_load_efficiency)
        * c.global_transaction;
    let shared_load = f.num_blocks
        * f.num_shared_mem_loads_per_block
        * eff(f.shared_mem_load_efficiency)
        * c.shared_transaction;
    let unique = f.num_blocks * f.unique_global_bytes_read_per_block * c.global_byte;
    let load = global_load + shared_load + unique;
    let store = f.num_blocks
        * (f.num_shared_mem_stores_per_block * c.shared_transaction
            + f.num_global_mem_stores_per_block
                * eff(f.global_mem_store_efficiency)
                * c.global_transaction)
        + f.global_bytes_stored * c.global_byte;
    StageCost {
        compute: compute / util,
        load: load / util,
        store: store / util,
        // A kernel's blocks are its root's (the fused stages run inside them).
        parallelism: if f.root {
            c.launch + f.num_blocks.max(1.0) * c.block
        } else {
            0.0
        },
    }
}

/// The six quantities [`stage_cost`] multiplies by the linear coefficients, in
/// [`TERM_NAMES`] order: `stage_cost(f, c, dev).total() == Σ terms[i] × c.weights()[i]`
/// (up to rounding). They are the features `rtile-bench retrain` fits the coefficients on
/// (Appendix B's cost is linear in its coefficients once the features are fixed).
pub fn stage_terms(f: &StageFeatures, saturating_warps: f64, dev: &Device) -> [f64; NUM_TERMS] {
    let unit = Coefficients {
        per_flop: 1.0,
        global_transaction: 1.0,
        shared_transaction: 1.0,
        global_byte: 1.0,
        launch: 1.0,
        block: 1.0,
        saturating_warps,
    };
    std::array::from_fn(|i| {
        let mut w = [0.0; NUM_TERMS];
        w[i] = 1.0;
        stage_cost(f, &unit.with_weights(w), dev).total()
    })
}

/// [`Coefficients::block`]'s device-derived value: [`BLOCK_DISPATCH_CYCLES`] at the device's clock
/// on each of its cores, seconds per block; 0 (no block term) for a device file that gives
/// no clock.
pub fn block_dispatch_seconds(dev: &Device) -> f64 {
    if dev.clock_ghz > 0.0 && dev.cores > 0 {
        BLOCK_DISPATCH_CYCLES / (dev.clock_ghz * 1e9 * dev.cores as f64)
    } else {
        0.0
    }
}
