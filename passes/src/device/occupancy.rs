//! How many blocks one core holds at once ([`Device::resident_blocks`]): the occupancy
//! rules of the hardware, as the CUDA driver applies them.
//!
//! Rammer's persistent kernels (`--wavefront-pack`, `lower_to_gpu/persistent`) deadlock
//! unless every block is resident, so this count must never exceed what the driver
//! allows (`cuOccupancyMaxActiveBlocksPerMultiprocessor`, which `rtile-run cuda --model`
//! checks every persistent grid against: `runtime-cuda/src/model.rs`,
//! `check_coresidency`). The rules below are those of NVIDIA's occupancy calculator,
//! `cuda_occupancy.h` of the CUDA Toolkit (`cudaOccMaxActiveBlocksPerMultiprocessor` and
//! the `cudaOccMaxBlocksPerSM*Limit` functions it takes the minimum of), with the
//! per-architecture constants of the CUDA C++ Programming Guide's "Technical
//! Specifications per Compute Capability" table. Each factor below names its source.
//!
//! Checked against the driver on an H200 (sm_90, driver 580.159.04,
//! `bench/results/h200-2026-11-26/call1/session.log`, the `co-residency:` lines): the
//! tests at the end reproduce its three readings from the kernels' threads, shared memory
//! and the registers ptxas 12.9 gave them.

use super::Device;

/// Threads of one warp on NVIDIA GPUs; the unit in which warps, registers and warp slots
/// are allocated.
const WARP: u64 = 32;

/// Register sub-partitions of one SM (`cudaOccSubPartitionsPerMultiprocessor`: 4 on
/// every architecture since Volta, and on Kepler and Maxwell): the register file is four
/// equal banks, one per warp scheduler, and a warp's registers all come from one of them.
const SUB_PARTITIONS: u64 = 4;

/// Registers are allocated per warp in units of 256 (`cudaOccRegAllocationGranularity`,
/// compute capability 3 to 9): `⌈registers per thread × 32 / 256⌉ × 256` a warp, so a
/// thread's count is in effect rounded up to a multiple of 8.
const REG_UNIT: u64 = 256;

/// The NVIDIA compute capability of an `sm_NN` / `sm_NNa` chip name (`sm_90a` → 90).
fn compute_capability(chip: &str) -> Option<u64> {
    let v = chip.strip_prefix("sm_")?;
    v.strip_suffix('a').unwrap_or(v).parse().ok()
}

/// The per-block shared-memory reservation and allocation unit of an NVIDIA chip of
/// compute capability `cc` (`None`: a device file with no chip, given the larger of each).
///
/// - From compute capability 8.0 the driver reserves 1 KiB of shared memory for every
///   resident block (the Programming Guide's table: "Shared memory per SM" 228 KB on 9.0
///   against "Maximum amount of shared memory per thread block" 227 KB; the calculator's
///   `reservedSharedMemPerBlock`, added to the kernel's static and dynamic bytes in
///   `cudaOccMaxBlocksPerSMSmemLimit`). Before 8.0: none.
/// - Each block's total is rounded up to the allocation unit
///   (`cudaOccSMemAllocationGranularity`): 128 bytes from 8.0 on, 256 before.
fn shared_rules(cc: Option<u64>) -> (u64, u64) {
    match cc {
        Some(cc) if cc < 80 => (0, 256),
        Some(_) => (1024, 128),
        None => (1024, 256),
    }
}

/// Blocks of `warps` warps at `regs` registers a thread one NVIDIA SM of `regs_per_core`
/// registers holds (`cudaOccMaxBlocksPerSMRegsLimit`, partitioned global caching off as on
/// every chip since Volta): each warp takes `⌈regs × 32 / 256⌉ × 256` registers of one
/// sub-partition, a sub-partition holds `⌊(regs_per_core / 4) / that⌋` warps, and the SM
/// four times as many, whole blocks of them. A one-warp block at 128 registers: 4096 a
/// warp, 4 per sub-partition, 16 blocks — not the 65,536 / (7 × 128) = 73 that dividing
/// the register file by the block's threads gives (the lstm persistent kernel, 7
/// threads). `regs = 0`: no limit.
fn blocks_by_registers(regs_per_core: u64, warps: u64, regs: u64) -> u64 {
    let per_warp = (regs * WARP).next_multiple_of(REG_UNIT);
    if per_warp == 0 {
        return u64::MAX;
    }
    let warps_per_partition = (regs_per_core / SUB_PARTITIONS) / per_warp;
    warps_per_partition * SUB_PARTITIONS / warps.max(1)
}

impl Device {
    /// Blocks of `threads` threads, `shared` bytes of shared memory (static and dynamic
    /// together) and `regs` registers per thread that one core holds at once (`regs = None`
    /// leaves registers out): the least of its limits on blocks, warps, registers and shared
    /// memory. At least 1. See the module comment for the sources.
    ///
    /// - Blocks: `max_blocks_per_core` (`cudaOccMaxBlocksPerMultiprocessor`; 32 on sm_90).
    /// - Warps: a block occupies whole TEUs (warps of 32 / wavefronts of 64) however few of
    ///   their lanes it uses, so it takes `⌈threads / teu_width⌉ × teu_width` of the core's
    ///   `max_threads_per_core` (`cudaOccMaxBlocksPerSMWarpsLimit`: `maxThreadsPerSM / 32`
    ///   warp slots over `⌈blockSize / 32⌉` a block). A 7-thread block takes one warp.
    /// - Registers: on an NVIDIA target (`backend = "nvvm"`) [`blocks_by_registers`]; on
    ///   others `regs_per_core / (threads rounded to TEUs × regs)`.
    /// - Shared memory: on NVIDIA, `shared` plus the per-block reservation rounded up to
    ///   the allocation unit ([`shared_rules`]), out of the core's
    ///   `capacity_per_core_bytes` (the calculator's `sharedMemPerMultiprocessor` under the
    ///   default carveout preference, which the runtime does not change); elsewhere
    ///   `shared` as given.
    pub fn resident_blocks(&self, threads: u64, shared: u64, regs: Option<u64>) -> u64 {
        self.blocks_that_fit(threads, shared, regs).max(1)
    }

    /// [`Device::resident_blocks`] without its floor of 1: 0 when one block of this shape
    /// does not fit on a core at all (more threads, registers or shared memory than a core
    /// has), which a vEU shape must be checked for.
    pub fn blocks_that_fit(&self, threads: u64, shared: u64, regs: Option<u64>) -> u64 {
        let teu = self.teu_width.max(1);
        let warps = threads.max(1).div_ceil(teu);
        let lanes = warps * teu;
        let target = self.target();
        let nvidia = target.backend == "nvvm";
        let by_regs = match regs {
            None => u64::MAX,
            Some(r) if nvidia => blocks_by_registers(self.regs_per_core, warps, r),
            Some(r) => self.regs_per_core / (lanes * r.max(1)),
        };
        let shared = if nvidia {
            let (reserved, unit) = shared_rules(compute_capability(&target.chip));
            (shared + reserved).next_multiple_of(unit)
        } else {
            shared
        };
        let by_smem = self.layers[Device::SHARED]
            .core_capacity()
            .checked_div(shared)
            .unwrap_or(u64::MAX);
        self.max_blocks_per_core
            .min(self.max_threads_per_core / lanes)
            .min(by_regs)
            .min(by_smem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The driver's readings on an H200 (132 SMs, sm_90; the `h100` description has the same
    /// SM), `bench/results/h200-2026-11-26/call1/session.log`, "co-residency:" lines: blocks
    /// per SM `cuOccupancyMaxActiveBlocksPerMultiprocessor` returned for the persistent
    /// kernel of each small Rammer twin (`bench/models/small/*.mlir`,
    /// `--wavefront-pack=device=h100 --lower-to-gpu`, `rtile-translate --to-ptx=sm_90`).
    /// Registers: `ptxas -arch=sm_90 -v` 12.9 on that PTX ("Used N registers"); no static
    /// shared memory ("0 bytes smem").
    #[test]
    fn reproduces_the_h200_driver() {
        let h = Device::builtin("h100").unwrap();
        // (kernel, threads, dynamic shared bytes, ptxas registers, driver blocks per SM)
        let readings = [
            ("lstm_p0", 7, 10944, 108, 16),
            ("inception_3a_p0", 32, 14672, 128, 14),
            ("nasnet_cell_p0", 32, 3520, 128, 16),
        ];
        for (k, threads, shared, regs, driver) in readings {
            assert_eq!(
                h.resident_blocks(threads, shared, Some(regs)),
                driver,
                "@{k}"
            );
            // What the persistent lowering records: the count at the `.maxnreg` the kernel
            // is compiled with (18 or 34 vEUs over 132 SMs: one block per SM needed, so
            // 255), as ptxas may use all of it: 8 a warp-sized block, below the driver.
            let cap = rtile_gpu_vocab::registers::coresident_register_cap(threads, 1);
            assert_eq!(cap, 255);
            assert_eq!(h.resident_blocks(threads, shared, Some(cap)), 8, "@{k}");
        }
        // Admission counts at Roller's estimates (the vdevice.device `regs`: 144, 152, 152):
        // 12 per SM, 1584 over 132; the earlier model gave 21 (lstm: 233472 / 10944, no
        // reservation, 7 threads not a warp) and 13, above the driver's 16 for lstm.
        assert_eq!(h.resident_blocks(7, 10944, Some(144)), 12);
        assert_eq!(h.resident_blocks(32, 14672, Some(152)), 12);
        assert_eq!(h.resident_blocks(32, 3520, Some(152)), 12);
    }

    #[test]
    fn each_limit_binds() {
        let h = Device::builtin("h100").unwrap();
        // Registers: one warp at 128 → 16; at 129 (rounded to 136, 4352 a warp: 3 per
        // sub-partition) → 12; a 7-thread block is charged a whole warp.
        assert_eq!(h.resident_blocks(32, 0, Some(128)), 16);
        assert_eq!(h.resident_blocks(32, 0, Some(129)), 12);
        assert_eq!(h.resident_blocks(7, 0, Some(128)), 16);
        // Warps: 64 warp slots, 3-warp blocks → 21; 65 threads are 3 warps.
        assert_eq!(h.resident_blocks(65, 0, None), 21);
        // Blocks: 32 on sm_90.
        assert_eq!(h.resident_blocks(32, 0, Some(16)), 32);
        // Shared memory: 10944 + 1024 = 11968 → 12032 (128-byte unit): 233472 / 12032 = 19;
        // without the reservation it would be 21 (the count the compiler gave before).
        assert_eq!(h.resident_blocks(32, 10944, None), 19);
        // Exactly 228 KiB / 2 per block including the reservation: 2; one byte more: 1.
        assert_eq!(h.resident_blocks(32, 116736 - 1024, None), 2);
        assert_eq!(h.resident_blocks(32, 116736 - 1023, None), 1);
    }

    #[test]
    fn pre_ampere_has_no_reservation() {
        // V100 (sm_70): 96 KiB per SM, 256-byte unit, no reservation: 12288 bytes → 8;
        // 12289 → rounded to 12544 → 7.
        let v = Device::builtin("v100").unwrap();
        let per_core = v.layers[Device::SHARED].core_capacity();
        assert_eq!(per_core, 96 * 1024);
        assert_eq!(v.resident_blocks(32, 12288, None), 8);
        assert_eq!(v.resident_blocks(32, 12289, None), 7);
    }

    #[test]
    fn chips() {
        assert_eq!(compute_capability("sm_90a"), Some(90));
        assert_eq!(compute_capability("sm_70"), Some(70));
        assert_eq!(compute_capability("gfx90a"), None);
    }
}
