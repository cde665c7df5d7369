// A 128x128x64 GEMM tile on sm_90a, written by hand at the gpu level: one warpgroup (128
// threads) computes C[128x128] (f32) = A[128x64] · B[64x128] (f16 in @gemm_f16, bf16 in
// @gemm_bf16) with
// - TMA: thread 0 copies A (one 128x64 box, 128-byte swizzled) and B (two 64x64 boxes, n
//   0-63 and 64-127, one after the other in a byte buffer, as the wgmma B operand's 64-column
//   atoms must lie) into shared memory, completing 32768 bytes on one mbarrier;
// - the whole block waits on the barrier's phase 0 (try_wait.parity), then
// - one nvgpu.warpgroup.mma (8 wgmma.mma_async m64n128k16: 2 slabs of 64 rows x 4 k-steps),
//   B MN-major (transposeB), stored straight to C from the accumulator fragments.
// The tensor maps (parameters 3 and 4) cover A and B (parameters 0 and 1,
// rtile.tensor_map_of); rtile-run encodes them with cuTensorMapEncodeTiled.
// Used by tests/lit/targets/wgmma-ptxas.test.
!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
!smA = memref<128x64xf16, #gpu.address_space<workgroup>>
!smB = memref<64x128xf16, #gpu.address_space<workgroup>>
!half = memref<64x64xf16, #gpu.address_space<workgroup>>
!dA = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>
!dB = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>

!tmAb = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmBb = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!smAb = memref<128x64xbf16, #gpu.address_space<workgroup>>
!smBb = memref<64x128xbf16, #gpu.address_space<workgroup>>
!halfb = memref<64x64xbf16, #gpu.address_space<workgroup>>
!dAb = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>>
!dBb = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xbf16, #gpu.address_space<workgroup>>>

module attributes {gpu.container_module} {
  gpu.module @wg {
    gpu.func @gemm_f16(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %c: memref<128x128xf32>, %ta: !tmA, %tb: !tmB)
        workgroup(%sa: !smA, %sbytes: memref<16384xi8, #gpu.address_space<workgroup>>)
        kernel attributes {rtile.tensor_map_of = array<i64: 0, 1>,
                           rtile.launch = {block = array<i32: 128, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c8192 = arith.constant 8192 : index
      %tx = arith.constant 32768 : index
      %ticks = arith.constant 1000000 : index
      %false = arith.constant false
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      %bar = nvgpu.mbarrier.create -> !bar
      scf.if %first {
        nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      }
      gpu.barrier
      %sb = "memref.view"(%sbytes, %c0) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !smB
      %b0 = "memref.view"(%sbytes, %c0) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !half
      %b1 = "memref.view"(%sbytes, %c8192) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !half
      scf.if %first {
        nvgpu.tma.prefetch.descriptor %ta : !tmA
        nvgpu.tma.prefetch.descriptor %tb : !tmB
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tx : !bar
        nvgpu.tma.async.load %ta[%c0, %c0], %bar[%c0] to %sa : !tmA, !bar -> !smA
        nvgpu.tma.async.load %tb[%c0, %c0], %bar[%c0] to %b0 : !tmB, !bar -> !half
        nvgpu.tma.async.load %tb[%c64, %c0], %bar[%c0] to %b1 : !tmB, !bar -> !half
      }
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar
      %da = nvgpu.warpgroup.generate.descriptor %sa, %ta : !smA, !tmA -> !dA
      %db = nvgpu.warpgroup.generate.descriptor %sb, %tb : !smB, !tmB -> !dB
      %z = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %d = nvgpu.warpgroup.mma %da, %db, %z {transposeB} : !dA, !dB, !acc -> !acc
      nvgpu.warpgroup.mma.store %d, %c : !acc to memref<128x128xf32>
      gpu.return
    }
    gpu.func @gemm_bf16(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xf32>, %ta: !tmAb, %tb: !tmBb)
        workgroup(%sa: !smAb, %sbytes: memref<16384xi8, #gpu.address_space<workgroup>>)
        kernel attributes {rtile.tensor_map_of = array<i64: 0, 1>,
                           rtile.launch = {block = array<i32: 128, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c8192 = arith.constant 8192 : index
      %tx = arith.constant 32768 : index
      %ticks = arith.constant 1000000 : index
      %false = arith.constant false
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      %bar = nvgpu.mbarrier.create -> !bar
      scf.if %first {
        nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
      }
      gpu.barrier
      %sb = "memref.view"(%sbytes, %c0) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !smBb
      %b0 = "memref.view"(%sbytes, %c0) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !halfb
      %b1 = "memref.view"(%sbytes, %c8192) : (memref<16384xi8, #gpu.address_space<workgroup>>, index) -> !halfb
      scf.if %first {
        nvgpu.tma.prefetch.descriptor %ta : !tmAb
        nvgpu.tma.prefetch.descriptor %tb : !tmBb
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tx : !bar
        nvgpu.tma.async.load %ta[%c0, %c0], %bar[%c0] to %sa : !tmAb, !bar -> !smAb
        nvgpu.tma.async.load %tb[%c0, %c0], %bar[%c0] to %b0 : !tmBb, !bar -> !halfb
        nvgpu.tma.async.load %tb[%c64, %c0], %bar[%c0] to %b1 : !tmBb, !bar -> !halfb
      }
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar
      %da = nvgpu.warpgroup.generate.descriptor %sa, %ta : !smAb, !tmAb -> !dAb
      %db = nvgpu.warpgroup.generate.descriptor %sb, %tb : !smBb, !tmBb -> !dBb
      %z = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %d = nvgpu.warpgroup.mma %da, %db, %z {transposeB} : !dAb, !dBb, !acc -> !acc
      nvgpu.warpgroup.mma.store %d, %c : !acc to memref<128x128xf32>
      gpu.return
    }
  }
}
