// A persistent kernel whose barriers span vEUs must have all its blocks resident at once:
// `rtile.persistent = {blocks_per_core = B}` (the lowering's ceil(vEUs / cores)) caps the
// registers so that B blocks fit one SM/CU, whatever the register estimate was. Here
// 29 one-warp blocks per SM (the full-size NASNet cell on A100: 3120 blocks on 108 SMs):
// ceil(29 / 4) = 8 warps in a sub-partition of 512 registers per lane, so at most 64 each
// (the one-block share of a 32-thread block would be 255); on a CU, 29 one-wavefront blocks
// over 4 SIMDs: 8 waves per SIMD. Without blocks_per_core the one-block share stays.
// RUN: rtile-translate --to-ptx=sm_80 %s | FileCheck %s --check-prefix=PTX
// RUN: rtile-translate --to-hip %s | FileCheck %s --check-prefix=HIP
// RUN: rtile-translate --to-llvmir=amdgpu %s | FileCheck %s --check-prefix=AMD

// PTX-LABEL: .entry capped(
// PTX: .maxnreg 64
// PTX-LABEL: .entry free(
// PTX: .maxnreg 255
// HIP: __launch_bounds__(32) __attribute__((amdgpu_waves_per_eu(8))) capped(
// HIP: __launch_bounds__(32) free(
// AMD: define amdgpu_kernel void @capped({{.*}} #[[CAPPED:[0-9]+]]
// AMD: attributes #[[CAPPED]] = {{{.*}}"amdgpu-waves-per-eu"="8"

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @capped(%a: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, rtile.persistent = {blocks_per_core = 29 : i64, coresident = 3456 : i64}} {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<32xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%t] : memref<32xf32>
      gpu.return
    }
    gpu.func @free(%a: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, rtile.persistent = {coresident = 3456 : i64}} {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<32xf32>
      memref.store %v, %a[%t] : memref<32xf32>
      gpu.return
    }
  }
}
