//! `--profile-device`: Roller's micro-performance profiler (§4). Three micro-benchmarks,
//! written as gpu-level IR in `runtime-cuda/kernels/*.mlir` and compiled to PTX by
//! `rtile-translate` (checked in, so that rtile-run needs no LLVM), measure DRAM copy
//! bandwidth, shared-memory read bandwidth and f32 FMA throughput; the results, with the
//! driver's device attributes, become a device file in the format of
//! `passes/src/devices/*.toml`.

use rtile_manifest::Manifest;

use crate::data::{HostBuffer, seeded_input};
use crate::exec::{DeviceInfo, Gpu, dims, load, time};

const COPY_PTX: &str = include_str!("../kernels/copy.ptx");
const COPY_JSON: &str = include_str!("../kernels/copy.json");
const SMEM_PTX: &str = include_str!("../kernels/smem.ptx");
const SMEM_JSON: &str = include_str!("../kernels/smem.json");
const FMA_PTX: &str = include_str!("../kernels/fma.ptx");
const FMA_JSON: &str = include_str!("../kernels/fma.json");

/// Measured numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// DRAM bandwidth (read + write), GB/s.
    pub dram_gbps: f64,
    /// Shared-memory read bandwidth, whole device, GB/s.
    pub smem_gbps: f64,
    /// f32 FMA throughput, GFLOP/s.
    pub fma_gflops: f64,
}

fn median_ms(gpu: &Gpu, ptx: &str, json: &str, iters: usize) -> Result<(f64, Manifest), String> {
    let m = Manifest::from_json(json)?;
    let l = load(gpu, ptx, &m, None)?;
    let d = dims(&l.kernel, None, None)?;
    let inputs: Vec<HostBuffer> = l
        .kernel
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| seeded_input(a, 1, i))
        .collect::<Result<_, _>>()?;
    let t = time(gpu, &l, &d, &inputs, 3, iters, None)?;
    Ok((t.median_ms as f64, m))
}

/// Runs the three micro-benchmarks.
pub fn profile(gpu: &Gpu, iters: usize) -> Result<Profile, String> {
    let (copy_ms, cm) = median_ms(gpu, COPY_PTX, COPY_JSON, iters)?;
    let bytes: f64 = cm.kernels[0]
        .args
        .iter()
        .map(|a| a.num_elements() as f64 * 4.0)
        .sum();
    let (smem_ms, _) = median_ms(gpu, SMEM_PTX, SMEM_JSON, iters)?;
    // 4096 blocks x 256 threads x 2048 loads x 16 bytes.
    let smem_bytes = 4096.0 * 256.0 * 2048.0 * 16.0;
    let (fma_ms, _) = median_ms(gpu, FMA_PTX, FMA_JSON, iters)?;
    // 4096 x 256 threads x 4096 steps x 8 chains x 2 flops.
    let flops = 4096.0 * 256.0 * 4096.0 * 8.0 * 2.0;
    Ok(Profile {
        dram_gbps: bytes / (copy_ms * 1e-3) / 1e9,
        smem_gbps: smem_bytes / (smem_ms * 1e-3) / 1e9,
        fma_gflops: flops / (fma_ms * 1e-3) / 1e9,
    })
}

/// A device file (the `passes/src/devices/*.toml` schema) from measurements and the
/// driver's attributes. Fields the micro-benchmarks cannot measure (tensor-core peaks,
/// transaction size) are left out or taken from the architecture.
pub fn device_toml(name: &str, info: &DeviceInfo, p: &Profile) -> String {
    let smem_bank_bytes = 4;
    format!(
        "# Measured by `rtile-run --profile-device` on {gpu} (sm_{maj}{min}).\n\
         name = \"{name}\"\n\
         description = \"{gpu} (measured)\"\n\
         vendor = \"nvidia\"\n\
         cores = {sms}\n\
         teu_width = 32\n\
         teus_per_core = 4\n\
         max_threads_per_block = 1024\n\
         max_threads_per_core = 2048\n\
         max_blocks_per_core = 32\n\
         regs_per_thread = 255\n\
         regs_per_core = {regs}\n\
         clock_ghz = {clk:.3}\n\n\
         [[layers]]\nname = \"register\"\nscope = \"thread\"\ncapacity_bytes = 512\n\n\
         [[layers]]\nname = \"shared\"\nscope = \"core\"\ncapacity_bytes = {smem_blk}\ncapacity_per_core_bytes = {smem_sm}\nbanks = 32\nbank_bytes = {smem_bank_bytes}\nbandwidth_gbps = {smem_bw:.0}\n\n\
         [[layers]]\nname = \"global\"\nscope = \"device\"\ncapacity_bytes = {mem}\ntransaction_bytes = 32\nbandwidth_gbps = {dram:.0}\n\n\
         [[compute]]\ndtype = \"f32\"\nsimt_gflops = {fma:.0}\n\n\
         [target]\nbackend = \"nvvm\"\nchip = \"sm_{maj}{min}\"\nmax_registers_per_thread = 255\n\
         max_static_shared_bytes = 49152\nmax_grid = [2147483647, 65535, 65535]\nmax_block = [1024, 1024, 64]\n",
        gpu = info.name,
        maj = info.cc.0,
        min = info.cc.1,
        sms = info.sms,
        regs = info.regs_per_sm,
        clk = info.clock_khz as f64 / 1e6,
        smem_blk = info.smem_per_block,
        smem_sm = info.smem_per_sm,
        smem_bw = p.smem_gbps,
        mem = info.total_mem,
        dram = p.dram_gbps,
        fma = p.fma_gflops,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_kernels_have_manifests() {
        for j in [COPY_JSON, SMEM_JSON, FMA_JSON] {
            let m = Manifest::from_json(j).unwrap();
            assert!(m.kernels[0].grid.is_some() && m.kernels[0].block.is_some());
        }
        assert!(COPY_PTX.contains(".entry copy"));
    }

    #[test]
    fn device_file_has_the_schema_fields() {
        let info = DeviceInfo {
            name: "NVIDIA H100".into(),
            cc: (9, 0),
            sms: 132,
            l2_bytes: 50 << 20,
            clock_khz: 1_980_000,
            smem_per_block: 232448,
            smem_per_sm: 233472,
            regs_per_sm: 65536,
            total_mem: 80 << 30,
        };
        let p = Profile {
            dram_gbps: 3000.0,
            smem_gbps: 30000.0,
            fma_gflops: 60000.0,
        };
        let t = device_toml("h100-measured", &info, &p);
        for k in [
            "name = \"h100-measured\"",
            "cores = 132",
            "bandwidth_gbps = 3000",
            "simt_gflops = 60000",
            "clock_ghz = 1.980",
            "chip = \"sm_90\"",
        ] {
            assert!(t.contains(k), "{k} in\n{t}");
        }
    }
}
