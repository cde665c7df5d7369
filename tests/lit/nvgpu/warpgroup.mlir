// The sm_90a TMA and warpgroup-MMA ops of upstream's NVGPU dialect: custom forms
// round-trip, upstream MLIR (mlir-opt-22) verifies rtile's output and reads it back, and
// upstream's generic form reads back to the same text. A 128x128x64 f16 GEMM tile: A
// (128x64, one 128-byte swizzled box) and B (64x128, two 64x64 boxes one after another in
// a byte buffer) by TMA, completing on one mbarrier; one warpgroup.mma with B MN-major.
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | mlir-opt-22 --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic -o %t.generic
// RUN: mlir-opt-22 --mlir-print-op-generic %t.generic | rtile-opt --mlir-print-op-generic | diff %t.generic -

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
!smA = memref<128x64xf16, #gpu.address_space<workgroup>>
!smB = memref<64x128xf16, #gpu.address_space<workgroup>>
!half = memref<64x64xf16, #gpu.address_space<workgroup>>

module attributes {gpu.container_module} {
  gpu.module @k {
    // CHECK-LABEL: gpu.func @gemm_tile
    gpu.func @gemm_tile(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>, %ta: !tmA, %tb: !tmB) workgroup(%sa: !smA, %sbytes: memref<16384xi8, #gpu.address_space<workgroup>>) kernel attributes {rtile.tensor_map_of = array<i64: 0, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c8192 = arith.constant 8192 : index
      %tx = arith.constant 32768 : index
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      %bar = nvgpu.mbarrier.create -> !bar
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      gpu.barrier
      %sb = "memref.view"(%sbytes, %c0) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !smB
      %b0 = "memref.view"(%sbytes, %c0) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !half
      %b1 = "memref.view"(%sbytes, %c8192) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !half
      scf.if %first {
        // CHECK: nvgpu.tma.prefetch.descriptor %{{.*}} : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
        nvgpu.tma.prefetch.descriptor %ta : !tmA
        // CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] to %{{.*}} : !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, {{.*}}>, !nvgpu.mbarrier.group<{{.*}}> -> memref<128x64xf16, #gpu.address_space<workgroup>>
        nvgpu.tma.async.load %ta[%c0, %c0], %bar[%c0] to %sa : !tmA, !bar -> !smA
        nvgpu.tma.async.load %tb[%c0, %c0], %bar[%c0] to %b0 : !tmB, !bar -> !half
        // CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] to %{{.*}}, predicate = %{{.*}} :
        nvgpu.tma.async.load %tb[%c64, %c0], %bar[%c0] to %b1, predicate = %first : !tmB, !bar -> !half
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tx : !bar
      }
      %false = arith.constant false
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %c0 : !bar
      // CHECK: %[[DA:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %{{.*}} : memref<128x64xf16, #gpu.address_space<workgroup>>, !nvgpu.tensormap.descriptor<{{.*}}> -> !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>
      %da = nvgpu.warpgroup.generate.descriptor %sa, %ta : !smA, !tmA -> !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>
      %db = nvgpu.warpgroup.generate.descriptor %sb, %tb : !smB, !tmB -> !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>
      // CHECK: %[[Z:.*]] = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
      %z = nvgpu.warpgroup.mma.init.accumulator -> !acc
      // CHECK: %[[D:.*]] = nvgpu.warpgroup.mma %[[DA]], %{{.*}}, %[[Z]] {transposeB} : !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>> -> !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
      %d = nvgpu.warpgroup.mma %da, %db, %z {transposeB} : !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>, !acc -> !acc
      // CHECK: nvgpu.warpgroup.mma.store %[[D]], %{{.*}} : !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>> to memref<128x128xf32>
      nvgpu.warpgroup.mma.store %d, %c : !acc to memref<128x128xf32>
      gpu.return
    }
  }
}
