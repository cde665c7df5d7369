// The sm_90a ops need their architecture: wgmma (nvgpu.warpgroup.*) exists on sm_90a only,
// TMA loads and mbarrier transaction counts need sm_90 with PTX 8.0 (sm_90a, sm_100, ...;
// plain sm_90 stays at PTX 7.8). An older target is refused with a diagnostic at the first
// such op, before LLVM (whose instruction selection would abort); AMDGPU and HIP refuse
// them (AMD has no TMA or warpgroup MMA). The TMA-only kernel below translates for sm_100a
// and sm_120a.
// RUN: not rtile-translate --to-ptx=sm_90 %S/Inputs/wgmma-gemm.mlir 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not rtile-translate --to-ptx=sm_80 %S/Inputs/wgmma-gemm.mlir 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not rtile-translate --to-ptx=sm_100a %S/Inputs/wgmma-gemm.mlir 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: not rtile-translate --to-amdgpu=gfx90a %S/Inputs/wgmma-gemm.mlir 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not rtile-translate --to-hip %S/Inputs/wgmma-gemm.mlir 2>&1 | FileCheck %s --check-prefix=HIP
// RUN: not rtile-translate --to-ptx=sm_90 %s 2>&1 | FileCheck %s --check-prefix=TMA90
// RUN: rtile-translate --to-ptx=sm_100a %s | FileCheck %s --check-prefix=TMA100
// sm_120(a) needs PTX 8.7 (at 8.6 LLVM 22 aborted the process).
// RUN: rtile-translate --to-ptx=sm_120a %s | FileCheck %s --check-prefix=TMA120

// SM90: wgmma-gemm.mlir:{{[0-9]+:[0-9]+}}: error: 'nvgpu.mbarrier.create' op needs sm_90a or newer (TMA and mbarrier transaction counts: sm_90 with PTX 8.0); the target is sm_90: translate with --to-ptx=sm_90a
// SM80: error: 'nvgpu.mbarrier.create' op needs sm_90a or newer {{.*}}; the target is sm_80
// SM100: error: 'nvgpu.warpgroup.generate.descriptor' op needs sm_90a (warpgroup MMA, wgmma.mma_async, exists on sm_90a only); the target is sm_100a
// AMD: error: 'nvgpu.mbarrier.create' is an NVIDIA sm_90a op (mbarrier, TMA, wgmma): the AMDGPU target does not translate it
// HIP: error: unsupported type '!nvgpu.tensormap.descriptor<{{.*}}>' for HIP
// TMA90: sm90-refusal.mlir:[[@LINE+22]]:7: error: 'nvgpu.mbarrier.create' op needs sm_90a or newer
// TMA100: .target sm_100a
// TMA100: mbarrier.init.shared.b64
// TMA100: cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// TMA100: mbarrier.try_wait.parity.shared.b64
// TMA120: .version 8.7
// TMA120: .target sm_120a
// TMA120: cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

!tm = !nvgpu.tensormap.descriptor<tensor = memref<64xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
module attributes {gpu.container_module} {
  gpu.module @tma {
    gpu.func @copy(%x: memref<256xf32>, %y: memref<64xf32>, %tm: !tm) workgroup(%s: memref<64xf32, #gpu.address_space<workgroup>>)
        kernel attributes {rtile.tensor_map_of = array<i64: 0>, rtile.launch = {block = array<i32: 64, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %true = arith.constant true
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      %bar = nvgpu.mbarrier.create -> !bar
      nvgpu.mbarrier.init %bar[%c1], %c1, predicate = %first : !bar
      gpu.barrier
      nvgpu.mbarrier.arrive.expect_tx %bar[%c1], %c256, predicate = %first : !bar
      nvgpu.tma.async.load %tm[%c64], %bar[%c1] to %s, predicate = %first : !tm, !bar -> memref<64xf32, #gpu.address_space<workgroup>>
      nvgpu.mbarrier.try_wait.parity %bar[%c1], %true, %c0 : !bar
      %v = memref.load %s[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %y[%tid] : memref<64xf32>
      gpu.return
    }
  }
}
