// A single-warp 16x8x32 f16 GEMM on sm_80 tensor cores, written by hand at the gpu level:
// C[16x8] (f16) = A[16x32] · B[32x8] with f32 accumulation, in two k-steps of 16 through a
// 2-stage cp.async pipeline (global -> shared, both stages in flight at once), ldmatrix.x4
// for A's fragments and ldmatrix.x2.trans for B's (B is row-major k x n in shared memory),
// and two mma.sync.m16n8k16. Used by tests/lit/targets/mma-ptxas.test and by
// runtime/tests/sim_tensor_cores.rs.
gpu.module @tc {
  gpu.func @mma_gemm(%A: memref<16x32xf16>, %B: memref<32x8xf16>, %C: memref<16x8xf16>)
      workgroup(%sA: memref<2x16x16xf16, #gpu.address_space<workgroup>>, %sB: memref<2x16x8xf16, #gpu.address_space<workgroup>>)
      kernel attributes {rtile.launch = {block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>},
                         rtile.te = "func.func @ref(%in0: tensor<16x32xf16>, %in1: tensor<32x8xf16>) -> tensor<16x8xf16> { %r = te.compute (%m, %n) reduce (%k) in [16, 8, 32] : (tensor<16x32xf16>, tensor<32x8xf16>) -> tensor<16x8xf16> { te.sum(%in0[%m, %k] * %in1[%k, %n]) } func.return %r : tensor<16x8xf16> }"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %lane = gpu.thread_id x
    // cp.async work split: A's 16x16 stage is 32 chunks of 8 halves (16 bytes), one per lane;
    // B's 16x8 stage is 32 chunks of 4 halves (8 bytes).
    %arow = arith.divui %lane, %c2 : index
    %apar = arith.remui %lane, %c2 : index
    %acol = arith.muli %apar, %c8 : index
    %bcol = arith.muli %apar, %c4 : index
    %acol1 = arith.addi %acol, %c16 : index
    %brow1 = arith.addi %arow, %c16 : index
    %t0 = nvgpu.device_async_copy %A[%arow, %acol], %sA[%c0, %arow, %acol], 8 : memref<16x32xf16> to memref<2x16x16xf16, #gpu.address_space<workgroup>>
    %t1 = nvgpu.device_async_copy %B[%arow, %bcol], %sB[%c0, %arow, %bcol], 4 : memref<32x8xf16> to memref<2x16x8xf16, #gpu.address_space<workgroup>>
    %g0 = nvgpu.device_async_create_group %t0, %t1
    %t2 = nvgpu.device_async_copy %A[%arow, %acol1], %sA[%c1, %arow, %acol], 8 {bypassL1} : memref<16x32xf16> to memref<2x16x16xf16, #gpu.address_space<workgroup>>
    %t3 = nvgpu.device_async_copy %B[%brow1, %bcol], %sB[%c1, %arow, %bcol], 4 : memref<32x8xf16> to memref<2x16x8xf16, #gpu.address_space<workgroup>>
    %g1 = nvgpu.device_async_create_group %t2, %t3
    // ldmatrix addresses: lane l gives row l % 8 of matrix l / 8. A's four matrices are its
    // 8x8 quadrants (rows +8 for odd matrices, columns +8 for matrices 2 and 3); B's two are
    // k rows 0-7 and 8-15 (lanes 16-31 repeat lanes 0-15; x2 reads only lanes 0-15).
    %r8 = arith.remui %lane, %c8 : index
    %mat = arith.divui %lane, %c8 : index
    %mlo = arith.remui %mat, %c2 : index
    %mhi = arith.divui %mat, %c2 : index
    %roff = arith.muli %mlo, %c8 : index
    %lrow = arith.addi %r8, %roff : index
    %lcol = arith.muli %mhi, %c8 : index
    %brow = arith.remui %lane, %c16 : index
    %acc0 = arith.constant dense<0.0> : vector<2x2xf32>
    // Stage 0: wait until at most the newest group (stage 1) is in flight.
    nvgpu.device_async_wait %g1 {numGroups = 1 : i32}
    gpu.barrier
    %a0 = nvgpu.ldmatrix %sA[%c0, %lrow, %lcol] {numTiles = 4 : i32, transpose = false} : memref<2x16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %b0 = nvgpu.ldmatrix %sB[%c0, %brow, %c0] {numTiles = 2 : i32, transpose = true} : memref<2x16x8xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %acc1 = nvgpu.mma.sync (%a0, %b0, %acc0) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // Stage 1.
    nvgpu.device_async_wait %g1 {numGroups = 0 : i32}
    gpu.barrier
    %a1 = nvgpu.ldmatrix %sA[%c1, %lrow, %lcol] {numTiles = 4 : i32, transpose = false} : memref<2x16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %b1 = nvgpu.ldmatrix %sB[%c1, %brow, %c0] {numTiles = 2 : i32, transpose = true} : memref<2x16x8xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %acc2 = nvgpu.mma.sync (%a1, %b1, %acc1) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // Epilogue: D's fragment, row lane/4 (+8 for register 1), columns 2(lane%4) + {0, 1}.
    %g = arith.divui %lane, %c4 : index
    %q = arith.remui %lane, %c4 : index
    %col0 = arith.muli %q, %c2 : index
    %col1 = arith.addi %col0, %c1 : index
    %g8 = arith.addi %g, %c8 : index
    %d00 = "vector.extract"(%acc2) <{static_position = array<i64: 0, 0>}> : (vector<2x2xf32>) -> f32
    %d01 = "vector.extract"(%acc2) <{static_position = array<i64: 0, 1>}> : (vector<2x2xf32>) -> f32
    %d10 = "vector.extract"(%acc2) <{static_position = array<i64: 1, 0>}> : (vector<2x2xf32>) -> f32
    %d11 = "vector.extract"(%acc2) <{static_position = array<i64: 1, 1>}> : (vector<2x2xf32>) -> f32
    %h00 = arith.truncf %d00 : f32 to f16
    %h01 = arith.truncf %d01 : f32 to f16
    %h10 = arith.truncf %d10 : f32 to f16
    %h11 = arith.truncf %d11 : f32 to f16
    memref.store %h00, %C[%g, %col0] : memref<16x8xf16>
    memref.store %h01, %C[%g, %col1] : memref<16x8xf16>
    memref.store %h10, %C[%g8, %col0] : memref<16x8xf16>
    memref.store %h11, %C[%g8, %col1] : memref<16x8xf16>
    gpu.return
  }
}
