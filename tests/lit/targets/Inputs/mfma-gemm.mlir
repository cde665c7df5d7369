// Single-wavefront GEMMs on AMD CDNA2 matrix cores (gfx90a), written by hand at the gpu
// level: one wave of 64 lanes, the A and B fragments loaded straight from global memory
// (B is given transposed, n x K, so that a lane's 4 k-consecutive elements are contiguous),
// two k-steps of amdgpu.mfma accumulating in f32, and the D fragment stored with the MFMA
// output layout. Used by tests/lit/targets/mfma-sim.test and mfma-hip.test.
gpu.module @mfma {
  // C[32x32] (f16) = A[32x16] * B[16x32], two v_mfma_f32_32x32x8f16.
  gpu.func @mfma32(%A: memref<32x16xf16>, %Bt: memref<32x16xf16>, %C: memref<32x32xf16>)
      kernel attributes {rtile.launch = {block = array<i32: 64, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>},
                         rtile.te = "func.func @ref(%in0: tensor<32x16xf16>, %in1: tensor<32x16xf16>) -> tensor<32x32xf16> { %r = te.compute (%i, %j) reduce (%kk) in [32, 32, 16] : (tensor<32x16xf16>, tensor<32x16xf16>) -> tensor<32x32xf16> { te.sum(%in0[%i, %kk] * %in1[%j, %kk]) } func.return %r : tensor<32x32xf16> }"} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %lane = gpu.thread_id x
    %row = arith.remui %lane, %c32 : index
    %grp = arith.divui %lane, %c32 : index
    %kq = arith.muli %grp, %c4 : index
    %acc0 = arith.constant dense<0.0> : vector<16xf32>
    %k0 = arith.constant 0 : index
    %col0 = arith.addi %kq, %k0 : index
    %a0 = vector.load %A[%row, %col0] : memref<32x16xf16>, vector<4xf16>
    %b0 = vector.load %Bt[%row, %col0] : memref<32x16xf16>, vector<4xf16>
    %acc1 = amdgpu.mfma 32x32x8 %a0 * %b0 + %acc0 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
    %k1 = arith.constant 8 : index
    %col1 = arith.addi %kq, %k1 : index
    %a1 = vector.load %A[%row, %col1] : memref<32x16xf16>, vector<4xf16>
    %b1 = vector.load %Bt[%row, %col1] : memref<32x16xf16>, vector<4xf16>
    %acc2 = amdgpu.mfma 32x32x8 %a1 * %b1 + %acc1 blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
    %half = arith.divui %lane, %c32 : index
    %hrow = arith.muli %half, %c4 : index
    %o0 = arith.constant 0 : index
    %r0 = arith.addi %hrow, %o0 : index
    %d0 = "vector.extract"(%acc2) <{static_position = array<i64: 0>}> : (vector<16xf32>) -> f32
    %h0 = arith.truncf %d0 : f32 to f16
    memref.store %h0, %C[%r0, %row] : memref<32x32xf16>
    %o1 = arith.constant 1 : index
    %r1 = arith.addi %hrow, %o1 : index
    %d1 = "vector.extract"(%acc2) <{static_position = array<i64: 1>}> : (vector<16xf32>) -> f32
    %h1 = arith.truncf %d1 : f32 to f16
    memref.store %h1, %C[%r1, %row] : memref<32x32xf16>
    %o2 = arith.constant 2 : index
    %r2 = arith.addi %hrow, %o2 : index
    %d2 = "vector.extract"(%acc2) <{static_position = array<i64: 2>}> : (vector<16xf32>) -> f32
    %h2 = arith.truncf %d2 : f32 to f16
    memref.store %h2, %C[%r2, %row] : memref<32x32xf16>
    %o3 = arith.constant 3 : index
    %r3 = arith.addi %hrow, %o3 : index
    %d3 = "vector.extract"(%acc2) <{static_position = array<i64: 3>}> : (vector<16xf32>) -> f32
    %h3 = arith.truncf %d3 : f32 to f16
    memref.store %h3, %C[%r3, %row] : memref<32x32xf16>
    %o4 = arith.constant 8 : index
    %r4 = arith.addi %hrow, %o4 : index
    %d4 = "vector.extract"(%acc2) <{static_position = array<i64: 4>}> : (vector<16xf32>) -> f32
    %h4 = arith.truncf %d4 : f32 to f16
    memref.store %h4, %C[%r4, %row] : memref<32x32xf16>
    %o5 = arith.constant 9 : index
    %r5 = arith.addi %hrow, %o5 : index
    %d5 = "vector.extract"(%acc2) <{static_position = array<i64: 5>}> : (vector<16xf32>) -> f32
    %h5 = arith.truncf %d5 : f32 to f16
    memref.store %h5, %C[%r5, %row] : memref<32x32xf16>
    %o6 = arith.constant 10 : index
    %r6 = arith.addi %hrow, %o6 : index
    %d6 = "vector.extract"(%acc2) <{static_position = array<i64: 6>}> : (vector<16xf32>) -> f32
    %h6 = arith.truncf %d6 : f32 to f16
    memref.store %h6, %C[%r6, %row] : memref<32x32xf16>
    %o7 = arith.constant 11 : index
    %r7 = arith.addi %hrow, %o7 : index
    %d7 = "vector.extract"(%acc2) <{static_position = array<i64: 7>}> : (vector<16xf32>) -> f32
    %h7 = arith.truncf %d7 : f32 to f16
    memref.store %h7, %C[%r7, %row] : memref<32x32xf16>
    %o8 = arith.constant 16 : index
    %r8 = arith.addi %hrow, %o8 : index
    %d8 = "vector.extract"(%acc2) <{static_position = array<i64: 8>}> : (vector<16xf32>) -> f32
    %h8 = arith.truncf %d8 : f32 to f16
    memref.store %h8, %C[%r8, %row] : memref<32x32xf16>
    %o9 = arith.constant 17 : index
    %r9 = arith.addi %hrow, %o9 : index
    %d9 = "vector.extract"(%acc2) <{static_position = array<i64: 9>}> : (vector<16xf32>) -> f32
    %h9 = arith.truncf %d9 : f32 to f16
    memref.store %h9, %C[%r9, %row] : memref<32x32xf16>
    %o10 = arith.constant 18 : index
    %r10 = arith.addi %hrow, %o10 : index
    %d10 = "vector.extract"(%acc2) <{static_position = array<i64: 10>}> : (vector<16xf32>) -> f32
    %h10 = arith.truncf %d10 : f32 to f16
    memref.store %h10, %C[%r10, %row] : memref<32x32xf16>
    %o11 = arith.constant 19 : index
    %r11 = arith.addi %hrow, %o11 : index
    %d11 = "vector.extract"(%acc2) <{static_position = array<i64: 11>}> : (vector<16xf32>) -> f32
    %h11 = arith.truncf %d11 : f32 to f16
    memref.store %h11, %C[%r11, %row] : memref<32x32xf16>
    %o12 = arith.constant 24 : index
    %r12 = arith.addi %hrow, %o12 : index
    %d12 = "vector.extract"(%acc2) <{static_position = array<i64: 12>}> : (vector<16xf32>) -> f32
    %h12 = arith.truncf %d12 : f32 to f16
    memref.store %h12, %C[%r12, %row] : memref<32x32xf16>
    %o13 = arith.constant 25 : index
    %r13 = arith.addi %hrow, %o13 : index
    %d13 = "vector.extract"(%acc2) <{static_position = array<i64: 13>}> : (vector<16xf32>) -> f32
    %h13 = arith.truncf %d13 : f32 to f16
    memref.store %h13, %C[%r13, %row] : memref<32x32xf16>
    %o14 = arith.constant 26 : index
    %r14 = arith.addi %hrow, %o14 : index
    %d14 = "vector.extract"(%acc2) <{static_position = array<i64: 14>}> : (vector<16xf32>) -> f32
    %h14 = arith.truncf %d14 : f32 to f16
    memref.store %h14, %C[%r14, %row] : memref<32x32xf16>
    %o15 = arith.constant 27 : index
    %r15 = arith.addi %hrow, %o15 : index
    %d15 = "vector.extract"(%acc2) <{static_position = array<i64: 15>}> : (vector<16xf32>) -> f32
    %h15 = arith.truncf %d15 : f32 to f16
    memref.store %h15, %C[%r15, %row] : memref<32x32xf16>
    gpu.return
  }
  // C[16x16] (bf16) = A[16x32] * B[32x16] in bf16, two v_mfma_f32_16x16x16bf16_1k.
  gpu.func @mfma16(%A: memref<16x32xbf16>, %Bt: memref<16x32xbf16>, %C: memref<16x16xbf16>)
      kernel attributes {rtile.launch = {block = array<i32: 64, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>},
                         rtile.te = "func.func @ref(%in0: tensor<16x32xbf16>, %in1: tensor<16x32xbf16>) -> tensor<16x16xbf16> { %r = te.compute (%i, %j) reduce (%kk) in [16, 16, 32] : (tensor<16x32xbf16>, tensor<16x32xbf16>) -> tensor<16x16xbf16> { te.sum(%in0[%i, %kk] * %in1[%j, %kk]) } func.return %r : tensor<16x16xbf16> }"} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %lane = gpu.thread_id x
    %row = arith.remui %lane, %c16 : index
    %grp = arith.divui %lane, %c16 : index
    %kq = arith.muli %grp, %c4 : index
    %acc0 = arith.constant dense<0.0> : vector<4xf32>
    %k0 = arith.constant 0 : index
    %col0 = arith.addi %kq, %k0 : index
    %a0 = vector.load %A[%row, %col0] : memref<16x32xbf16>, vector<4xbf16>
    %b0 = vector.load %Bt[%row, %col0] : memref<16x32xbf16>, vector<4xbf16>
    %acc1 = amdgpu.mfma 16x16x16 %a0 * %b0 + %acc0 blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
    %k1 = arith.constant 16 : index
    %col1 = arith.addi %kq, %k1 : index
    %a1 = vector.load %A[%row, %col1] : memref<16x32xbf16>, vector<4xbf16>
    %b1 = vector.load %Bt[%row, %col1] : memref<16x32xbf16>, vector<4xbf16>
    %acc2 = amdgpu.mfma 16x16x16 %a1 * %b1 + %acc1 blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
    %hrow = arith.muli %grp, %c4 : index
    %o0 = arith.constant 0 : index
    %r0 = arith.addi %hrow, %o0 : index
    %d0 = "vector.extract"(%acc2) <{static_position = array<i64: 0>}> : (vector<4xf32>) -> f32
    %h0 = arith.truncf %d0 : f32 to bf16
    memref.store %h0, %C[%r0, %row] : memref<16x16xbf16>
    %o1 = arith.constant 1 : index
    %r1 = arith.addi %hrow, %o1 : index
    %d1 = "vector.extract"(%acc2) <{static_position = array<i64: 1>}> : (vector<4xf32>) -> f32
    %h1 = arith.truncf %d1 : f32 to bf16
    memref.store %h1, %C[%r1, %row] : memref<16x16xbf16>
    %o2 = arith.constant 2 : index
    %r2 = arith.addi %hrow, %o2 : index
    %d2 = "vector.extract"(%acc2) <{static_position = array<i64: 2>}> : (vector<4xf32>) -> f32
    %h2 = arith.truncf %d2 : f32 to bf16
    memref.store %h2, %C[%r2, %row] : memref<16x16xbf16>
    %o3 = arith.constant 3 : index
    %r3 = arith.addi %hrow, %o3 : index
    %d3 = "vector.extract"(%acc2) <{static_position = array<i64: 3>}> : (vector<4xf32>) -> f32
    %h3 = arith.truncf %d3 : f32 to bf16
    memref.store %h3, %C[%r3, %row] : memref<16x16xbf16>
    gpu.return
  }
}
