// A 128x128x64 GEMM tile on sm_90a, written by hand at the gpu level: C[128x128] (f32) =
// A[128x64] · B[64x128] (f16). One warpgroup (128 threads); thread 0 initialises an
// mbarrier and issues three TMA loads into dynamic shared memory — A as one 128x64 box,
// B (row-major K x N) as two 64x64 boxes of 64 columns each, the second one LBO = 8192
// bytes after the first (the MN-major layout of transposeB) — all 128B-swizzled, and
// arrives expecting their 32768 bytes; every thread waits for the phase, then the
// warpgroup runs one nvgpu.warpgroup.mma and stores its fragments to C. Used by
// tests/lit/sim/sm90a-wgmma.test and runtime/tests/sim_sm90.rs.
!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @gemm(%a: !tmA, %b: !tmB, %A: memref<128x64xf16>, %B: memref<64x128xf16>, %C: memref<128x128xf32>) kernel
      attributes {rtile.launch = {block = array<i32: 128, 1, 1>, dynamic_shared_memory = 32768 : i64, grid = array<i32: 1, 1, 1>},
                  rtile.tensor_map_of = array<i64: 2, 3>,
                  rtile.te = "func.func @ref(%in0: tensor<128x64xf16>, %in1: tensor<64x128xf16>) -> tensor<128x128xf32> { %r = te.compute (%m, %n) reduce (%k) in [128, 128, 64] : (tensor<128x64xf16>, tensor<64x128xf16>) -> tensor<128x128xf32> { te.sum(f32(%in0[%m, %k]) * f32(%in1[%k, %n])) } func.return %r : tensor<128x128xf32> }"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %offB = arith.constant 16384 : index
    %offB1 = arith.constant 24576 : index
    %tx = arith.constant 32768 : index
    %false = arith.constant false
    %ticks = arith.constant 10000000 : index
    %dsm = "gpu.dynamic_shared_memory"() : () -> !smem
    %sa = "memref.view"(%dsm, %c0) : (!smem, index) -> memref<128x64xf16, #gpu.address_space<workgroup>>
    %sb = "memref.view"(%dsm, %offB) : (!smem, index) -> memref<64x128xf16, #gpu.address_space<workgroup>>
    %sb0 = "memref.view"(%dsm, %offB) : (!smem, index) -> memref<64x64xf16, #gpu.address_space<workgroup>>
    %sb1 = "memref.view"(%dsm, %offB1) : (!smem, index) -> memref<64x64xf16, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %is0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %is0 {
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      nvgpu.tma.prefetch.descriptor %a : !tmA
      nvgpu.tma.prefetch.descriptor %b : !tmB
    }
    gpu.barrier
    scf.if %is0 {
      nvgpu.tma.async.load %a[%c0, %c0], %bar[%c0] to %sa : !tmA, !bar -> memref<128x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %b[%c0, %c0], %bar[%c0] to %sb0 : !tmB, !bar -> memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %b[%c64, %c0], %bar[%c0] to %sb1 : !tmB, !bar -> memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tx : !bar
    }
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar
    %da = nvgpu.warpgroup.generate.descriptor %sa, %a : memref<128x64xf16, #gpu.address_space<workgroup>>, !tmA -> !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>
    %db = nvgpu.warpgroup.generate.descriptor %sb, %b : memref<64x128xf16, #gpu.address_space<workgroup>>, !tmB -> !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>
    %acc = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %r = nvgpu.warpgroup.mma %da, %db, %acc {transposeB} : !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>, !acc -> !acc
    nvgpu.warpgroup.mma.store %r, %C : !acc to memref<128x128xf32>
    gpu.return
  }
}
}
