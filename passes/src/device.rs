//! Device descriptions: Roller's hardware abstraction layer (HAL), §3.3 and §4.
//!
//! The HAL models an accelerator as `cores` parallel execution units (SMs / CUs), each running
//! groups of `teus_per_core` rTile execution units (TEUs: a warp of 32 or a wavefront of 64
//! threads), over a hierarchy of memory layers. Following Figure 8, layer 0 is the *top* layer
//! (registers) and the last layer is the *lowest* (global memory); the construction starts at
//! layer 0 and moves to `layer + 1` ("mem.Next()").
//!
//! Descriptions are data: one TOML file per device under `passes/devices/`, embedded at build
//! time ([`Device::builtin`]), or read from a user file ([`Device::from_file`], the pass's
//! `--device-file`). Each built-in file cites where its numbers come from.

mod occupancy;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

/// Where a memory layer lives, which decides how its bandwidth is shared (§3.3: "for the memory
/// layer shared by all TEUs, we split the bandwidth evenly").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Private to one thread (registers).
    Thread,
    /// Shared by the threads of one core (shared memory / LDS).
    Core,
    /// Shared by every core (global memory and the L2 cache).
    Device,
}

/// One memory layer of the HAL (§3.3: capacity, transaction length, banks).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MemLayer {
    /// Layer name: `register`, `shared`, `global`.
    pub name: String,
    /// Who shares the layer.
    pub scope: Scope,
    /// Capacity available to one rTile at this layer, in bytes (per thread for registers, per
    /// block for shared memory, the whole device for global memory).
    pub capacity_bytes: u64,
    /// Capacity of one core at this layer (for occupancy); defaults to `capacity_bytes`.
    #[serde(default)]
    pub capacity_per_core_bytes: Option<u64>,
    /// Memory transaction length in bytes (§3.1 "alignment with memory transaction"), if the
    /// layer is read in transactions.
    #[serde(default)]
    pub transaction_bytes: Option<u64>,
    /// Number of banks (§3.1 "alignment with memory bank").
    #[serde(default)]
    pub banks: Option<u64>,
    /// Width of one bank in bytes.
    #[serde(default)]
    pub bank_bytes: Option<u64>,
    /// Aggregate bandwidth, GB/s, at which the layer above reads this layer (all cores
    /// together). Required for every layer but the top one.
    #[serde(default)]
    pub bandwidth_gbps: Option<f64>,
    /// A device-wide cache in front of this layer (the L2 in front of global memory): its
    /// capacity in bytes. Global layer only, with `cache_bandwidth_gbps`; optional.
    #[serde(default)]
    pub cache_bytes: Option<u64>,
    /// Aggregate bandwidth, GB/s, at which the cores read that cache.
    #[serde(default)]
    pub cache_bandwidth_gbps: Option<f64>,
}

/// A device-wide cache in front of global memory ([`Device::global_cache`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlobalCache {
    /// Capacity, bytes.
    pub bytes: u64,
    /// Aggregate read bandwidth of all cores, bytes per second.
    pub bandwidth: f64,
}

impl MemLayer {
    /// Per-core capacity, falling back to the per-tile capacity.
    pub fn core_capacity(&self) -> u64 {
        self.capacity_per_core_bytes.unwrap_or(self.capacity_bytes)
    }
}

/// Peak compute throughput for one data type (§3.3 MaxComputePerf).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PeakCompute {
    /// Element type: `f32`, `f16`, `bf16`, `i8`, `i32`, `f64`.
    pub dtype: String,
    /// Peak of the SIMT cores, GFLOP/s (GOP/s for integers).
    pub simt_gflops: f64,
    /// Peak of the tensor (matrix) cores, if any.
    #[serde(default)]
    pub tensor_gflops: Option<f64>,
    /// Tensor instruction shape `[m, n, k]` (§3.1: 16×16×16 WMMA for f16).
    #[serde(default)]
    pub tensor_shape: Option<[u64; 3]>,
    /// The architecture's matrix-multiply-accumulate instructions for this input type with
    /// an f32 accumulator, preferred first (Roller §5.1 aligns the rTile to the instruction
    /// shape): `mma.sync` m8n8k4 on sm_70, m16n8k16 on sm_80, `wgmma` m64nNk16 on sm_90a,
    /// MFMA 32×32×8 and 16×16×16 on gfx90a. Empty: no mixed-precision tensor cores.
    #[serde(default)]
    pub mma: Vec<MmaInstr>,
}

/// One matrix-multiply-accumulate instruction: `d = a·b + c` on an `m×k` by `k×n` tile,
/// issued together by `warps` TEUs (1 for `mma.sync` and MFMA, a warpgroup of 4 for
/// `wgmma`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MmaInstr {
    /// The instruction as the ISA spells it (`mma.sync.aligned.m16n8k16`).
    pub instruction: String,
    /// `[m, n, k]`; for `wgmma` the n given is its granularity (N is any multiple of 8).
    pub shape: [u64; 3],
    /// TEUs that issue it together.
    #[serde(default = "one")]
    pub warps: u64,
}

fn one() -> u64 {
    1
}

/// The instruction set a device runs and the limits its ISA and driver set on one kernel,
/// whatever the schedule (the `[target]` table). The lowering takes every such limit from
/// here, and writes `backend`/`chip` on the `gpu.module` as upstream's target attribute.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IsaTarget {
    /// `nvvm` (PTX) or `rocdl` (AMDGPU): the upstream target attribute's dialect.
    pub backend: String,
    /// Architecture: `sm_90`, `gfx90a` (empty: unknown, see [`Device::target`]).
    pub chip: String,
    /// Most registers one thread may address (255 on NVIDIA since sm_35; 512 VGPRs +
    /// AGPRs on CDNA2 is not usable by SIMT code: 256).
    pub max_registers_per_thread: u64,
    /// Static shared memory one block may declare; more must be dynamic (48 KiB on NVIDIA,
    /// the whole LDS on AMD).
    pub max_static_shared_bytes: u64,
    /// Most blocks along x, y, z of a grid.
    pub max_grid: [u64; 3],
    /// Most threads along x, y, z of a block (their product is `max_threads_per_block`).
    pub max_block: [u64; 3],
}

impl IsaTarget {
    /// NVIDIA's per-kernel limits (CUDA's compute-capability table, the same from sm_35 to
    /// sm_90) with no chip: the limits of a device file without `[target]`.
    pub fn nvidia_default() -> IsaTarget {
        IsaTarget {
            backend: "nvvm".into(),
            chip: String::new(),
            max_registers_per_thread: 255,
            max_static_shared_bytes: 48 * 1024,
            max_grid: [2_147_483_647, 65_535, 65_535],
            max_block: [1024, 1024, 64],
        }
    }
}

/// The limits one kernel must respect on a device ([`Device::kernel_limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelLimits {
    /// Threads in one (one-dimensional) block.
    pub threads_per_block: u64,
    /// Shared memory a kernel may declare statically; more must be dynamic.
    pub static_shared_bytes: u64,
    /// Registers one thread may address.
    pub registers_per_thread: u64,
}

/// A device description (Roller's HAL, Figure 9 `GetDeviceSpec`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// Short name used on the command line (`device=v100`).
    pub name: String,
    /// Human-readable description.
    #[serde(default)]
    pub description: String,
    /// `nvidia` or `amd` (or anything else for user devices).
    #[serde(default)]
    pub vendor: String,
    /// Parallel execution units (SMs / CUs).
    pub cores: u64,
    /// Threads per TEU (warp 32 / wavefront 64).
    pub teu_width: u64,
    /// TEUs per TEU group on one core (warp schedulers / SIMDs).
    pub teus_per_core: u64,
    /// Most threads in one block.
    pub max_threads_per_block: u64,
    /// Most resident threads on one core.
    pub max_threads_per_core: u64,
    /// Most resident blocks on one core.
    pub max_blocks_per_core: u64,
    /// Register limit per thread (Roller §4: 96 on V100/K80, 70 on MI50).
    pub regs_per_thread: u64,
    /// 32-bit registers per core.
    pub regs_per_core: u64,
    /// TEUs (warps / wavefronts) each TEU group (warp scheduler / SIMD) must hold for its
    /// pipeline to issue every cycle: the pipeline's dependent-issue latency hidden by
    /// switching TEUs. By Little's law, work in flight = latency × throughput: a scheduler
    /// that issues one warp instruction per cycle, each result available `L` cycles later,
    /// needs `L` independent instructions in flight, i.e. `L` warps when each warp's next
    /// instruction waits on its last. NVIDIA gives `L` = 4 cycles from compute capability
    /// 7.0 on, "16 active warps per multiprocessor (4 cycles, 4 warp schedulers)" (CUDA C++
    /// Programming Guide, "Maximize Utilization", multiprocessor level): 4 here. An AMD SIMD
    /// issues one wavefront instruction per 4 cycles (16 lanes × 4 cycles = 64), which
    /// covers a dependent VALU instruction: 1. The micro-performance model scales compute
    /// throughput by `min(1, resident TEUs / (teus_per_core × latency_warps))`
    /// (`construct_rtile::perf_model`); Roller's model (§3.3) has no such term. Optional:
    /// 1 (no latency term, the earlier model) when a file leaves it out.
    #[serde(default = "default_latency_warps")]
    pub latency_warps: f64,
    /// Global-memory bandwidth one resident TEU sustains, GB/s: memory latency hidden by
    /// requests in flight (Little's law, bytes in flight = latency × bandwidth), which one
    /// warp bounds by the requests it may have outstanding. A core reaches its share of the
    /// device bandwidth only with `bandwidth / cores / warp_load_gbps` resident TEUs; the
    /// micro-performance model scales global loading by `min(1, resident TEUs ×
    /// warp_load_gbps / (bandwidth / cores))` (`construct_rtile::perf_model`). Roller §3.3
    /// profiles "the smaller accessing sizes" once per device; this is that profile for
    /// under-occupied programs. Optional: no such term when a file leaves it out.
    #[serde(default)]
    pub warp_load_gbps: Option<f64>,
    /// Boost clock, GHz (documentation and derived figures only).
    #[serde(default)]
    pub clock_ghz: f64,
    /// Memory layers, top (registers) first, lowest (global) last.
    pub layers: Vec<MemLayer>,
    /// Peak compute per data type.
    pub compute: Vec<PeakCompute>,
    /// Host-side cost of one kernel launch, µs: what Rammer's packing saves per launch
    /// (OSDI'20 §2, §5.2.3). Optional; [`default_launch_us`] when a file leaves it out.
    #[serde(default = "default_launch_us")]
    pub launch_us: f64,
    /// The ISA and its per-kernel limits (every built-in device has one; a user file may
    /// leave it out, and then [`Device::target`] falls back to NVIDIA's limits and no chip).
    #[serde(default)]
    pub target: Option<IsaTarget>,
}

/// One TEU per TEU group saturates the pipeline: the model without a latency term, for device
/// files that do not say ([`Device::latency_warps`]).
pub fn default_latency_warps() -> f64 {
    1.0
}

/// A launch cost of 5 µs: the order of a CUDA kernel launch from the host on recent
/// drivers, and the figure Rammer's §5.2.3 overhead numbers imply per launch (0.37 ms for a
/// whole model vs 2.27 ms for RammerBase's per-operator launches).
pub fn default_launch_us() -> f64 {
    5.0
}

/// Why a device description was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceError {
    /// What went wrong, with the file name when there is one.
    pub message: String,
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeviceError {}

/// The embedded device files, by name.
/// Bytes of one row of a Hopper TMA box under the 128-byte swizzle (PTX ISA,
/// `cp.async.bulk.tensor` and the `wgmma` shared-memory matrix layouts): the unit in which
/// the construction aligns warpgroup tiles and the sm_90a lowering copies operands.
pub const TMA_SWIZZLE_BYTES: u64 = 128;

const BUILTIN: &[(&str, &str)] = &[
    ("a100", include_str!("../devices/a100.toml")),
    ("h100", include_str!("../devices/h100.toml")),
    ("h200", include_str!("../devices/h200.toml")),
    ("k80", include_str!("../devices/k80.toml")),
    ("mi250x", include_str!("../devices/mi250x.toml")),
    ("mi50", include_str!("../devices/mi50.toml")),
    ("v100", include_str!("../devices/v100.toml")),
];

impl Device {
    /// Names of the built-in devices, sorted.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _)| *n).collect()
    }

    /// A built-in device by name (case-insensitive).
    pub fn builtin(name: &str) -> Result<Device, DeviceError> {
        // Parsed once per process: passes look devices up per program and per kernel, and
        // parsing the TOML each time was a tenth of a fused-kernel simulation test's time.
        static PARSED: OnceLock<Vec<Result<Device, DeviceError>>> = OnceLock::new();
        let parsed = PARSED.get_or_init(|| {
            BUILTIN
                .iter()
                .map(|(n, text)| Device::from_toml_str(text, &format!("<builtin {n}>")))
                .collect()
        });
        let lower = name.to_ascii_lowercase();
        match BUILTIN.iter().position(|(n, _)| *n == lower) {
            Some(i) => parsed[i].clone(),
            None => Err(DeviceError {
                message: format!(
                    "unknown device '{name}'; built-in devices are: {}",
                    Device::builtin_names().join(", ")
                ),
            }),
        }
    }

    /// All built-in devices, in name order.
    pub fn all_builtin() -> Vec<Device> {
        BUILTIN
            .iter()
            .filter_map(|(n, t)| Device::from_toml_str(t, n).ok())
            .collect()
    }

    /// Reads a device description from a TOML file (`--device-file=path`).
    pub fn from_file(path: &Path) -> Result<Device, DeviceError> {
        let text = std::fs::read_to_string(path).map_err(|e| DeviceError {
            message: format!("cannot read device file '{}': {e}", path.display()),
        })?;
        Device::from_toml_str(&text, &path.display().to_string())
    }

    /// Parses and validates a device description; `origin` names it in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Device, DeviceError> {
        let dev: Device = toml::from_str(text).map_err(|e| DeviceError {
            message: format!("invalid device file '{origin}': {e}"),
        })?;
        dev.validate().map_err(|m| DeviceError {
            message: format!("invalid device file '{origin}': {m}"),
        })?;
        Ok(dev)
    }

    /// The `[target]` table, or when the file has none, NVIDIA's per-kernel limits (255
    /// registers, 48 KiB static shared memory, the CUDA grid and block bounds) with no chip.
    pub fn target(&self) -> IsaTarget {
        self.target
            .clone()
            .unwrap_or_else(IsaTarget::nvidia_default)
    }

    /// What one kernel may use on this device: threads per block (the description's
    /// `max_threads_per_block`, within the ISA's block bound), static shared memory and
    /// registers per thread (the ISA's).
    pub fn kernel_limits(&self) -> KernelLimits {
        let t = self.target();
        KernelLimits {
            threads_per_block: self.max_threads_per_block.min(t.max_block[0]),
            static_shared_bytes: t
                .max_static_shared_bytes
                .min(self.layers[Device::SHARED].capacity_bytes),
            registers_per_thread: t.max_registers_per_thread,
        }
    }

    /// Checks the `[target]` table.
    fn validate_target(&self) -> Result<(), String> {
        let Some(t) = &self.target else {
            return Ok(());
        };
        if t.backend != "nvvm" && t.backend != "rocdl" {
            return Err(format!(
                "target: 'backend' must be \"nvvm\" or \"rocdl\", not \"{}\"",
                t.backend
            ));
        }
        let chip_ok = match t.backend.as_str() {
            "nvvm" => t.chip.strip_prefix("sm_").is_some_and(|v| {
                let digits = v.strip_suffix('a').unwrap_or(v);
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            }),
            _ => t
                .chip
                .strip_prefix("gfx")
                .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric())),
        };
        if !chip_ok {
            return Err(format!(
                "target: 'chip' \"{}\" is not an {} architecture",
                t.chip,
                if t.backend == "nvvm" {
                    "sm_NN"
                } else {
                    "gfxNNN"
                }
            ));
        }
        if t.max_registers_per_thread < self.regs_per_thread {
            return Err("target: 'max_registers_per_thread' is below 'regs_per_thread'".into());
        }
        if t.max_grid.contains(&0) || t.max_block.contains(&0) || t.max_static_shared_bytes == 0 {
            return Err("target: the grid, block and shared-memory limits must be positive".into());
        }
        if self.max_threads_per_block > t.max_block.iter().product::<u64>() {
            return Err("'max_threads_per_block' exceeds the product of target 'max_block'".into());
        }
        Ok(())
    }

    /// Checks the invariants the construction relies on.
    fn validate(&self) -> Result<(), String> {
        let positive = [
            ("cores", self.cores),
            ("teu_width", self.teu_width),
            ("teus_per_core", self.teus_per_core),
            ("max_threads_per_block", self.max_threads_per_block),
            ("max_threads_per_core", self.max_threads_per_core),
            ("max_blocks_per_core", self.max_blocks_per_core),
            ("regs_per_thread", self.regs_per_thread),
            ("regs_per_core", self.regs_per_core),
        ];
        for (n, v) in positive {
            if v == 0 {
                return Err(format!("'{n}' must be positive"));
            }
        }
        if !(self.latency_warps.is_finite() && self.latency_warps >= 1.0) {
            return Err("'latency_warps' must be a number of at least 1".into());
        }
        if let Some(g) = self.warp_load_gbps
            && !(g.is_finite() && g > 0.0)
        {
            return Err("'warp_load_gbps' must be a positive number".into());
        }
        if self.max_threads_per_block < self.teu_width {
            return Err("'max_threads_per_block' is smaller than one TEU".into());
        }
        // The construction and the rtile.program attribute use exactly Roller's three layers
        // (§4: L0 registers, L1 shared memory, L2 global memory).
        if self.layers.len() != 3 {
            return Err(format!(
                "expected 3 memory layers (register, shared, global), found {}",
                self.layers.len()
            ));
        }
        let scopes = [Scope::Thread, Scope::Core, Scope::Device];
        for (i, (l, s)) in self.layers.iter().zip(scopes).enumerate() {
            if l.scope != s {
                return Err(format!(
                    "layer {i} ('{}') must have scope {:?}, the layers are listed top (registers) first",
                    l.name, s
                ));
            }
            if l.capacity_bytes == 0 {
                return Err(format!(
                    "layer '{}': 'capacity_bytes' must be positive",
                    l.name
                ));
            }
            if i > 0 {
                match l.bandwidth_gbps {
                    Some(b) if b.is_finite() && b > 0.0 => {}
                    _ => {
                        return Err(format!(
                            "layer '{}': 'bandwidth_gbps' must be a positive number",
                            l.name
                        ));
                    }
                }
            }
            if l.cache_bytes.is_some() != l.cache_bandwidth_gbps.is_some() {
                return Err(format!(
                    "layer '{}': 'cache_bytes' and 'cache_bandwidth_gbps' go together",
                    l.name
                ));
            }
            if l.cache_bytes.is_some() && i != Self::GLOBAL {
                return Err(format!(
                    "layer '{}': only the global layer has a cache in front of it",
                    l.name
                ));
            }
            if l.cache_bytes == Some(0)
                || l.cache_bandwidth_gbps
                    .is_some_and(|b| !(b.is_finite() && b > 0.0))
            {
                return Err(format!(
                    "layer '{}': 'cache_bytes' and 'cache_bandwidth_gbps' must be positive",
                    l.name
                ));
            }
            if l.banks.is_some() != l.bank_bytes.is_some() {
                return Err(format!(
                    "layer '{}': 'banks' and 'bank_bytes' go together",
                    l.name
                ));
            }
            for (n, v) in [
                ("transaction_bytes", l.transaction_bytes),
                ("banks", l.banks),
                ("bank_bytes", l.bank_bytes),
            ] {
                if v == Some(0) {
                    return Err(format!("layer '{}': '{n}' must be positive", l.name));
                }
            }
        }
        self.validate_target()?;
        if self.compute.is_empty() {
            return Err("no [[compute]] entry".into());
        }
        for c in &self.compute {
            if !(c.simt_gflops.is_finite() && c.simt_gflops > 0.0) {
                return Err(format!(
                    "compute '{}': 'simt_gflops' must be positive",
                    c.dtype
                ));
            }
            if let Some(t) = c.tensor_gflops
                && (!(t.is_finite() && t > 0.0) || c.tensor_shape.is_none())
            {
                return Err(format!(
                    "compute '{}': 'tensor_gflops' must be positive and come with 'tensor_shape'",
                    c.dtype
                ));
            }
            if let Some(s) = c.tensor_shape
                && s.contains(&0)
            {
                return Err(format!("compute '{}': 'tensor_shape' has a zero", c.dtype));
            }
            for m in &c.mma {
                if m.shape.contains(&0) || m.warps == 0 || c.tensor_gflops.is_none() {
                    return Err(format!(
                        "compute '{}': mma '{}' needs a positive shape and warps, and 'tensor_gflops'",
                        c.dtype, m.instruction
                    ));
                }
            }
        }
        Ok(())
    }

    /// Index of the top layer (registers, Figure 8 `dev.MemLayer(0)`).
    pub const REGISTER: usize = 0;
    /// Index of the shared-memory layer.
    pub const SHARED: usize = 1;
    /// Index of the lowest layer (global memory).
    pub const GLOBAL: usize = 2;

    /// Peak compute entry for an element type, falling back to `f32` (SIMT float math).
    pub fn peak(&self, dtype: &str) -> &PeakCompute {
        self.compute
            .iter()
            .find(|c| c.dtype == dtype)
            .or_else(|| self.compute.iter().find(|c| c.dtype == "f32"))
            .unwrap_or(&self.compute[0])
    }

    /// Tensor-core peak and instruction shape for an element type, if the device has them.
    pub fn tensor_core(&self, dtype: &str) -> Option<(f64, [u64; 3])> {
        let c = self.compute.iter().find(|c| c.dtype == dtype)?;
        Some((c.tensor_gflops?, c.tensor_shape?))
    }

    /// The tensor-core peak (GFLOP/s) and the MMA instructions for `dtype` inputs with an
    /// f32 accumulator, preferred first; `None` when the device has none.
    pub fn mma(&self, dtype: &str) -> Option<(f64, &[MmaInstr])> {
        let c = self.compute.iter().find(|c| c.dtype == dtype)?;
        if c.mma.is_empty() {
            return None;
        }
        Some((c.tensor_gflops?, &c.mma))
    }

    /// The L2 in front of global memory, where the device file describes it: blocks that
    /// share input tiles read them from DRAM once per wave
    /// (`construct_rtile::perf_model::estimate`).
    pub fn global_cache(&self) -> Option<GlobalCache> {
        let g = self.layers.get(Self::GLOBAL)?;
        Some(GlobalCache {
            bytes: g.cache_bytes?,
            bandwidth: g.cache_bandwidth_gbps? * 1e9,
        })
    }

    /// Bandwidth (bytes per second, whole device) at which layer `l` is read by the layer above.
    pub fn bandwidth(&self, l: usize) -> f64 {
        self.layers
            .get(l)
            .and_then(|m| m.bandwidth_gbps)
            .unwrap_or(f64::INFINITY)
            * 1e9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_builtin_devices_parse() {
        for n in Device::builtin_names() {
            let d = Device::builtin(n).unwrap();
            assert_eq!(d.name, n);
        }
        assert_eq!(Device::all_builtin().len(), 7);
    }

    #[test]
    fn paper_numbers() {
        // Roller §4.
        let v = Device::builtin("V100").unwrap();
        assert_eq!(
            (v.cores, v.teu_width, v.teus_per_core, v.regs_per_thread),
            (80, 32, 4, 96)
        );
        assert_eq!(v.layers[2].transaction_bytes, Some(32));
        assert_eq!(
            (v.layers[1].banks, v.layers[1].bank_bytes),
            (Some(32), Some(4))
        );
        assert_eq!(v.layers[1].capacity_bytes, 48 * 1024);
        let k = Device::builtin("k80").unwrap();
        assert_eq!(
            (k.cores, k.layers[1].bank_bytes, k.regs_per_thread),
            (13, Some(8), 96)
        );
        assert_eq!(k.layers[1].capacity_bytes, 48 * 1024);
        let m = Device::builtin("mi50").unwrap();
        assert_eq!((m.teu_width, m.regs_per_thread), (64, 70));
        assert_eq!(m.layers[2].transaction_bytes, Some(64));
        assert_eq!(v.tensor_core("f16").map(|t| t.1), Some([16, 16, 16]));
    }

    #[test]
    fn errors_are_clear() {
        let e = Device::builtin("tpu").unwrap_err();
        assert!(e.message.contains("unknown device 'tpu'"), "{e}");
        let e = Device::from_file(Path::new("/nonexistent/dev.toml")).unwrap_err();
        assert!(e.message.contains("cannot read device file"), "{e}");
        let e = Device::from_toml_str("name = 3", "x.toml").unwrap_err();
        assert!(e.message.contains("x.toml"), "{e}");
        let bad = include_str!("../devices/v100.toml").replace("cores = 80", "cores = 0");
        let e = Device::from_toml_str(&bad, "y.toml").unwrap_err();
        assert!(e.message.contains("'cores' must be positive"), "{e}");
    }

    #[test]
    fn warp_load_gbps_is_optional_and_checked() {
        let h100 = include_str!("../devices/h100.toml");
        let line = h100
            .lines()
            .find(|l| l.starts_with("warp_load_gbps"))
            .expect("h100.toml sets warp_load_gbps");
        let without = h100.replace(line, "");
        let d = Device::from_toml_str(&without, "user.toml").unwrap();
        assert_eq!(d.warp_load_gbps, None);
        for bad in ["0", "-1.5", "nan", "inf"] {
            let text = h100.replace(line, &format!("warp_load_gbps = {bad}"));
            let e = Device::from_toml_str(&text, "bad.toml").unwrap_err();
            assert!(e.message.contains("'warp_load_gbps' must be"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_global_cache_is_optional_and_checked() {
        let h100 = include_str!("../devices/h100.toml");
        let d = Device::from_toml_str(h100, "h.toml").unwrap();
        let l2 = d.global_cache().expect("h100.toml describes its L2");
        assert_eq!((l2.bytes, l2.bandwidth), (52428800, 10138e9));
        let without = h100
            .replace("cache_bytes = 52428800", "")
            .replace("cache_bandwidth_gbps = 10138", "");
        assert_eq!(
            Device::from_toml_str(&without, "u.toml")
                .unwrap()
                .global_cache(),
            None
        );
        let half = h100.replace("cache_bandwidth_gbps = 10138", "");
        let e = Device::from_toml_str(&half, "b.toml").unwrap_err();
        assert!(e.message.contains("go together"), "{e}");
        let zero = h100.replace("cache_bytes = 52428800", "cache_bytes = 0");
        let e = Device::from_toml_str(&zero, "b.toml").unwrap_err();
        assert!(e.message.contains("must be positive"), "{e}");
        let on_shared = h100.replace(
            "bandwidth_gbps = 33454",
            "bandwidth_gbps = 33454\ncache_bytes = 1\ncache_bandwidth_gbps = 1",
        );
        let e = Device::from_toml_str(&on_shared, "b.toml").unwrap_err();
        assert!(e.message.contains("only the global layer"), "{e}");
    }

    #[test]
    fn latency_warps_is_optional_and_checked() {
        let v100 = include_str!("../devices/v100.toml");
        assert_eq!(
            Device::from_toml_str(v100, "v.toml").unwrap().latency_warps,
            4.0
        );
        let line = v100
            .lines()
            .find(|l| l.starts_with("latency_warps"))
            .expect("v100.toml sets latency_warps");
        // Left out: 1, the model without a latency term.
        let without = v100.replace(line, "");
        let d = Device::from_toml_str(&without, "user.toml").unwrap();
        assert_eq!(d.latency_warps, 1.0);
        for bad in ["0.5", "0", "-4", "nan"] {
            let text = v100.replace(line, &format!("latency_warps = {bad}"));
            let e = Device::from_toml_str(&text, "bad.toml").unwrap_err();
            assert!(e.message.contains("'latency_warps' must be"), "{bad}: {e}");
        }
    }

    #[test]
    fn builtin_devices_name_their_isa() {
        let chips = [
            ("a100", "nvvm", "sm_80"),
            ("h100", "nvvm", "sm_90"),
            ("h200", "nvvm", "sm_90"),
            ("k80", "nvvm", "sm_37"),
            ("mi250x", "rocdl", "gfx90a"),
            ("mi50", "rocdl", "gfx906"),
            ("v100", "nvvm", "sm_70"),
        ];
        for (name, backend, chip) in chips {
            let t = Device::builtin(name)
                .unwrap()
                .target
                .expect("builtin [target]");
            assert_eq!(
                (t.backend.as_str(), t.chip.as_str()),
                (backend, chip),
                "{name}"
            );
            let d = Device::builtin(name).unwrap();
            assert!(
                t.max_block.iter().product::<u64>() >= d.max_threads_per_block,
                "{name}"
            );
        }
        // A user file without [target] gets NVIDIA's limits and no chip.
        let mut text = include_str!("../devices/v100.toml").to_string();
        text.truncate(text.find("[target]").unwrap());
        let d = Device::from_toml_str(&text, "user.toml").unwrap();
        assert!(d.target.is_none());
        assert_eq!(d.target().max_static_shared_bytes, 48 * 1024);
        assert_eq!(d.target().chip, "");
    }

    #[test]
    fn bad_targets_are_refused() {
        let v100 = include_str!("../devices/v100.toml");
        for (from, to, msg) in [
            (
                "chip = \"sm_70\"",
                "chip = \"gfx90a\"",
                "not an sm_NN architecture",
            ),
            (
                "backend = \"nvvm\"",
                "backend = \"spirv\"",
                "'backend' must be",
            ),
            (
                "max_registers_per_thread = 255",
                "max_registers_per_thread = 64",
                "below",
            ),
            (
                "max_block = [1024, 1024, 64]",
                "max_block = [16, 16, 1]",
                "max_block",
            ),
            (
                "max_static_shared_bytes = 49152",
                "max_static_shared_bytes = 0",
                "must be positive",
            ),
        ] {
            let bad = v100.replace(from, to);
            assert_ne!(bad, v100, "{from}");
            let e = Device::from_toml_str(&bad, "t.toml").unwrap_err();
            assert!(e.message.contains(msg), "{from}: {e}");
        }
    }

    #[test]
    fn kernel_limits_come_from_the_target() {
        let h = Device::builtin("h100").unwrap().kernel_limits();
        assert_eq!(
            (
                h.threads_per_block,
                h.static_shared_bytes,
                h.registers_per_thread
            ),
            (1024, 48 * 1024, 255)
        );
        let m = Device::builtin("mi250x").unwrap().kernel_limits();
        assert_eq!(
            (
                m.threads_per_block,
                m.static_shared_bytes,
                m.registers_per_thread
            ),
            (1024, 64 * 1024, 256)
        );
        // K80's description gives a block 48 KiB of shared memory in all.
        let k = Device::builtin("k80").unwrap().kernel_limits();
        assert_eq!(k.static_shared_bytes, 48 * 1024);
    }
}
