// --lower-to-gpu on tensor-core programs of AMD CDNA2 (mi250x = gfx90a): a tensor-core
// rProgram (Roller §5.1, a wavefront tile of whole MFMA instructions) becomes a kernel of
// 64-lane wavefronts issuing amdgpu.mfma (v_mfma_f32_32x32x8f16 / 16x16x16{f16,bf16_1k}),
// its tiles staged global -> LDS with plain loads (no cp.async on AMD), two LDS buffers
// with a register prefetch where the k-loop has several steps, f32 accumulators, and a
// guarded epilogue. @mm: 256^3 f16 (4 k-steps: double-buffered); @odd: 520x70x33 f16 (odd
// sizes: A's rows are 33 halves, copied element by element; B's 70, in pairs); @conv3 and
// @nhwc: convolutions as implicit GEMMs (gathered im2col A, collapsed weights); @bmm2: a bf16
// batch matmul with B stored n-major, into f32.
//
// RUN: rtile-opt %s --construct-rtile="device=mi250x" --rtile-select --lower-to-gpu | FileCheck %s
// Upstream MLIR verifies the kernels (amdgpu, gpu, scf, memref, vector, arith ops).
// RUN: rtile-opt %s --construct-rtile="device=mi250x" --rtile-select --lower-to-gpu --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// The CPU GPU-simulator runs them against the te interpreter (f64 accumulation, rounded once
// to the result type): an f16 result may differ by one f16 ulp (2^-10 ~ 9.8e-4 of the largest
// element) plus the f32 accumulation's ~1e-5 (K <= 256), hence 1.1e-3; the f32 results by
// the accumulation order only.
// RUN: rtile-opt %s --construct-rtile="device=mi250x" --rtile-select --lower-to-gpu | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// Without --rtile-select, in two processes (issue 16's reproducer, refused before).
// RUN: rtile-opt %s --construct-rtile="device=mi250x" | rtile-opt --lower-to-gpu | FileCheck %s --check-prefix=PIPE
// PIPE-LABEL: gpu.func @mm_0
// PIPE: amdgpu.mfma
// No NVIDIA op in an AMD kernel.
// RUN: rtile-opt %s --construct-rtile="device=mi250x" --rtile-select --lower-to-gpu | FileCheck %s --check-prefix=NONV
// NONV-NOT: nvgpu.
//
// An mma.sync program (m16n8k16) on mi250x, or an MFMA one on A100, is refused (by the
// program's verifier, before the lowering); so is wgmma on AMD.
// RUN: not rtile-opt %s --construct-rtile="device=mi250x" --rtile-select --lower-to-gpu="tensor-core=wgmma" 2>&1 | FileCheck %s --check-prefix=WGMMA
// WGMMA: tensor-core=wgmma: device 'mi250x' is AMD (MFMA); wgmma is an sm_90a instruction
// RUN: not rtile-opt %S/Inputs/mfma-mma-sync-on-amd.mlir --lower-to-gpu 2>&1 | FileCheck %s --check-prefix=NVONAMD
// NVONAMD: error: 'te.compute' op attribute 'rtile.program': tensor cores requested with an MMA of shape 16x8x16, but 'mi250x' has none for this f16 operator
// RUN: sed -e 's/"mi250x"/"a100"/; s/mma = \[16, 8, 16\]/mma = [32, 32, 8]/; s/threads = 64/threads = 32/' %S/Inputs/mfma-mma-sync-on-amd.mlir | not rtile-opt --lower-to-gpu 2>&1 | FileCheck %s --check-prefix=AMDONNV
// AMDONNV: error: 'te.compute' op attribute 'rtile.program': tensor cores requested with an MMA of shape 32x32x8, but 'a100' has none for this f16 operator

// CHECK-LABEL: gpu.func @mm_0(%arg0: memref<256x256xf16>, %arg1: memref<256x256xf16>, %arg2: memref<256x256xf16>)
// Two LDS buffers of A (32 rows of 64 + 4 halves: 17 8-byte units, odd) and B (64 k rows of
// 32 + 4 halves); one 64-lane wavefront a block.
// CHECK-SAME: workgroup(%[[SA:.*]] : memref<2x32x68xf16, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<2x64x36xf16, #gpu.address_space<workgroup>>)
// CHECK-SAME: block = array<i32: 64, 1, 1>
// CHECK-SAME: rtile.pipeline_stages = 2 : i64
// k-step 0 staged before the loop: 8-byte global loads, 8-byte LDS stores.
// CHECK: vector.load %arg0[{{.*}}] : memref<256x256xf16>, vector<4xf16>
// CHECK: vector.store %{{.*}}, %[[SA]][%c0, {{.*}}] : memref<2x32x68xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<16xf32>)
// The next k-step's loads into registers (zeros past the last k-step) ...
// CHECK: scf.if %{{.*}} -> (vector<4xf16>)
// CHECK: vector.load %arg0
// ... this k-step's fragments: A m-major, one 8-byte read a lane; B k-major, 4 element reads.
// CHECK: vector.load %[[SA]][{{.*}}] : memref<2x32x68xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK-COUNT-4: memref.load %[[SB]]
// CHECK: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// ... then the prefetched values go to the other buffer, and one barrier.
// CHECK: vector.store %{{.*}}, %[[SA]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// The epilogue: 16 f32 elements a lane, rounded to f16; no guard (256 divides the tiles).
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %arg2[{{.*}}] : memref<256x256xf16>
// CHECK-LABEL: gpu.func @odd_1(
// CHECK-SAME: rtile.pipeline_stages = 1 : i64
// A's rows (33 halves) are not 4-byte aligned: element copies; B's (70): pairs.
// CHECK: memref.load %arg0
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<1x32x44xf16, #gpu.address_space<workgroup>>
// CHECK: vector.load %arg1[{{.*}}] : memref<33x70xf16>, vector<2xf16>
// CHECK: amdgpu.mfma 32x32x8
// Guarded stores where the grid pads m and n.
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg2[{{.*}}] : memref<520x70xf16>
// CHECK-LABEL: gpu.func @conv3_2(
// CHECK: memref.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : memref<16x8x3x3xf16> into memref<16x72xf16>
// CHECK: amdgpu.mfma 16x16x16 %{{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK-LABEL: gpu.func @nhwc_3(
// CHECK: amdgpu.mfma 16x16x16 %{{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// CHECK-LABEL: gpu.func @bmm2_4(
// Both operands k-contiguous: every fragment one 8-byte LDS read.
// CHECK-NOT: memref.load
// CHECK: amdgpu.mfma 32x32x8 %{{.*}} : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// CHECK-NOT: arith.truncf
// CHECK: gpu.return

// UPSTREAM-LABEL: gpu.func @mm_0
// UPSTREAM: amdgpu.mfma 32x32x8
// UPSTREAM-LABEL: gpu.func @odd_1
// UPSTREAM: amdgpu.mfma 32x32x8
// UPSTREAM-LABEL: gpu.func @conv3_2
// UPSTREAM: amdgpu.mfma 16x16x16
// UPSTREAM-LABEL: gpu.func @nhwc_3
// UPSTREAM: amdgpu.mfma 16x16x16
// UPSTREAM-LABEL: gpu.func @bmm2_4
// UPSTREAM: amdgpu.mfma 32x32x8

// SIM: @mm output 0: tensor<256x256xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @odd output 0: tensor<520x70xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @conv3 output 0: tensor<2x16x9x9xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @nhwc output 0: tensor<1x6x6x24xf32>, max relative error {{[0-9.]+e-(5|6|7|8)}}
// SIM: @bmm2 output 0: tensor<4x128x128xf32>, max relative error {{[0-9.]+e-(5|6|7|8)}}

func.func @mm(%A: tensor<256x256xf16>, %B: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [256, 256, 256] acc(f32) : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) }
  func.return %C : tensor<256x256xf16>
}

func.func @odd(%A: tensor<520x33xf16>, %B: tensor<33x70xf16>) -> tensor<520x70xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [520, 70, 33] acc(f32) : (tensor<520x33xf16>, tensor<33x70xf16>) -> tensor<520x70xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) }
  func.return %C : tensor<520x70xf16>
}

func.func @conv3(%D: tensor<2x8x9x9xf16>, %K: tensor<16x8x3x3xf16>) -> tensor<2x16x9x9xf16> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [2, 16, 9, 9, 8, 3, 3] acc(f32) : (tensor<2x8x9x9xf16>, tensor<16x8x3x3xf16>) -> tensor<2x16x9x9xf16> { te.sum(f32(%D[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0) * f32(%K[%f, %c, %ry, %rx])) }
  func.return %O : tensor<2x16x9x9xf16>
}

func.func @nhwc(%D: tensor<1x11x11x19xbf16>, %K: tensor<3x3x19x24xbf16>) -> tensor<1x6x6x24xf32> {
  %O = te.compute (%n, %y, %x, %f) reduce (%c, %ry, %rx) in [1, 6, 6, 24, 19, 3, 3] acc(f32) : (tensor<1x11x11x19xbf16>, tensor<3x3x19x24xbf16>) -> tensor<1x6x6x24xf32> { te.sum(f32(%D[%n, %y * 2 + %ry - 1, %x * 2 + %rx - 1, %c] pad 0.0) * f32(%K[%ry, %rx, %c, %f])) }
  func.return %O : tensor<1x6x6x24xf32>
}

func.func @bmm2(%A: tensor<4x128x96xbf16>, %B: tensor<4x128x96xbf16>) -> tensor<4x128x128xf32> {
  %C = te.compute (%b, %m, %n) reduce (%k) in [4, 128, 128, 96] acc(f32) : (tensor<4x128x96xbf16>, tensor<4x128x96xbf16>) -> tensor<4x128x128xf32> { te.sum(f32(%A[%b, %m, %k]) * f32(%B[%b, %n, %k])) }
  func.return %C : tensor<4x128x128xf32>
}
