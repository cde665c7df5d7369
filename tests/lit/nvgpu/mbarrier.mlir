// The sm_90 mbarrier ops of upstream's NVGPU dialect at the dialect level: custom forms
// round-trip, upstream MLIR (mlir-opt-22) reads rtile's output, and upstream's generic form
// reads back to the same text.
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s | mlir-opt-22 --mlir-print-op-generic | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic -o %t.generic
// RUN: mlir-opt-22 --mlir-print-op-generic %t.generic | rtile-opt --mlir-print-op-generic | diff %t.generic -
// They are in the gpu-level vocabulary (gpu-vocab's nvgpu_sm90.rs) with the TMA and
// warpgroup-MMA ops (nvgpu/warpgroup.mlir); HIP refuses them (AMD has no mbarrier/TMA).
// RUN: not rtile-translate %s --to-hip 2>&1 | FileCheck %s --check-prefix=HIP
// HIP: error: HIP: 'nvgpu.mbarrier.create' is an NVIDIA sm_90a op (mbarrier, TMA or wgmma); AMD GPUs have no equivalent

!bt = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

// CHECK-LABEL: func.func @mbarriers
// CHECK: %[[B:.*]] = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK: nvgpu.mbarrier.init %[[B]][%{{.*}}], %{{.*}}, predicate = %{{.*}} : !nvgpu.mbarrier.group
// CHECK: nvgpu.mbarrier.init %[[B]][%{{.*}}], %{{.*}} : !nvgpu.mbarrier.group
// CHECK: nvgpu.mbarrier.arrive %[[B]][%{{.*}}] : !nvgpu.mbarrier.group<{{.*}}> -> !nvgpu.mbarrier.token
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[B]][%{{.*}}], %{{.*}} : !nvgpu.mbarrier.group
// CHECK: nvgpu.mbarrier.try_wait.parity %[[B]][%{{.*}}], %{{.*}}, %{{.*}} : !nvgpu.mbarrier.group
func.func @mbarriers(%p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %parity = arith.constant false
  %ticks = arith.constant 10000000 : index
  %n = arith.constant 128 : index
  %b = nvgpu.mbarrier.create -> !bt
  nvgpu.mbarrier.init %b[%c0], %n, predicate = %p : !bt
  nvgpu.mbarrier.init %b[%c1], %n : !bt
  %tok = nvgpu.mbarrier.arrive %b[%c0] : !bt -> !nvgpu.mbarrier.token
  nvgpu.mbarrier.arrive.expect_tx %b[%c1], %n : !bt
  nvgpu.mbarrier.try_wait.parity %b[%c0], %parity, %ticks : !bt
  return
}

gpu.module @k {
  gpu.func @uses_mbarrier(%out: memref<1xf32>) kernel attributes {rtile.launch = {block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}} {
    %c0 = arith.constant 0 : index
    %n = arith.constant 32 : index
    %b = nvgpu.mbarrier.create -> !bt
    nvgpu.mbarrier.init %b[%c0], %n : !bt
    gpu.return
  }
}
