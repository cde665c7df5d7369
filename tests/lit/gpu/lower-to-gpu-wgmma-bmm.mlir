// --lower-to-gpu="tensor-core=wgmma" (sm_90a) on batch matmuls, as attention's two:
// @qk, S[b, m, n] = Σ_k Q[b, m, k]·K[b, n, k] (B stored [b, n, k], taken K-major: no
// transposeB), and @pv, O[b, m, n] = Σ_k P[b, m, k]·V[b, k, n] (B [b, k, n], MN-major:
// transposeB). Each block computes one batch index: the grid is batch × m blocks × n blocks
// (n fastest), the tensor maps are 3-d over the [b, .., ..] memrefs with boxes [1, rows, 64]
// (one batch slice), and every TMA load's outermost coordinate is the block's batch index.
// m, n and k are off the tiles, so the boxes cross every edge but the batch one, where
// TMA fills zeros. Block 128x96 (4 warpgroups of 64x48) for @qk, 128x64 (2 of 64x64) for
// @pv, batch 3.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | FileCheck %s --check-prefixes=CHECK,WS
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | FileCheck %s --check-prefixes=CHECK,SR
// Upstream MLIR verifies the kernels and the host code (3-d nvgpu.tma.create.descriptor).
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// The simulator runs the kernels and the host code against the te interpreter: f16 output,
// one f16 rounding (2^-10 of the largest element) plus f32 reordering, hence 1.1e-3.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// The launch sequence for rtile-run cuda --model: the 3-d maps' boxes, outermost first.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" -o %t.lowered.mlir
// RUN: rtile-run --model-manifest %t.json --func qk %t.lowered.mlir
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json

// CHECK: gpu.module @kernels [#nvvm.target<chip = "sm_90a">]
// CHECK-LABEL: gpu.func @qk_0(%arg0: memref<3x100x72xf16>, %arg1: memref<3x96x72xf16>, %arg2: memref<3x100x96xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>, %arg4: !nvgpu.tensormap.descriptor<tensor = memref<1x48x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>)
// One block per batch index (m and n fit one block each).
// WS-SAME: block = array<i32: 640, 1, 1>, dynamic_shared_memory = {{[0-9]+}} : i64, grid = array<i32: 3, 1, 1>
// SR-SAME: block = array<i32: 512, 1, 1>, dynamic_shared_memory = {{[0-9]+}} : i64, grid = array<i32: 3, 1, 1>
// The batch index: the block id over the n blocks, then over the m blocks (one each).
// CHECK: %[[BID:[0-9]+]] = gpu.block_id {{ *}}x
// CHECK: %[[REST:[0-9]+]] = arith.divui %[[BID]], %c1
// CHECK: %[[B:[0-9]+]] = arith.divui %[[REST]], %c1
// A's boxes at (k, m, b) and B's at (k, n, b), innermost first, into [1, rows, 64] views.
// CHECK-DAG: nvgpu.tma.async.load %arg3[%{{[0-9]+}}, %{{[0-9a-z]+}}, %[[B]]], %{{.*}} to %{{.*}} : {{.*}} -> memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: nvgpu.tma.async.load %arg4[%{{[0-9]+}}, %{{[0-9a-z]+}}, %[[B]]], %{{.*}} to %{{.*}} : {{.*}} -> memref<1x48x64xf16, #gpu.address_space<workgroup>>
// The descriptors stay 2-d (the slice's matrix): no transposeB for the [b, n, k] B.
// CHECK-DAG: nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg4 : memref<64x48xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: nvgpu.warpgroup.mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[a-z0-9]+}} : !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x48xf16, #gpu.address_space<workgroup>>>
// The epilogue stores at [b, row, column].
// CHECK-DAG: memref.store %{{.*}}, %arg2[%[[B]], %{{[0-9]+}}, %{{[0-9]+}}] : memref<3x100x96xf16>
// CHECK-LABEL: gpu.func @pv_1(%arg0: memref<3x100x96xf16>, %arg1: memref<3x96x72xf16>, %arg2: memref<3x100x72xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xf16, 3>
// CHECK-SAME: %arg4: !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xf16, 3>
// 3 batch indices x 1 m block x 2 n blocks.
// CHECK-SAME: grid = array<i32: 6, 1, 1>
// CHECK: nvgpu.warpgroup.mma %{{.*}} {transposeB}
// CHECK-LABEL: func.func @qk(
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c64, %c64]
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c48, %c64]

// UPSTREAM: nvgpu.warpgroup.mma %
// UPSTREAM: nvgpu.tma.create.descriptor

// SIM: @qk_0: 28800 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @pv_1: 21600 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @qk output 0: tensor<3x100x96xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @pv output 0: tensor<3x100x72xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}

// MANIFEST: "tensor_maps": [
// MANIFEST: "of": 0,
// MANIFEST-NEXT: "box_shape": [
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST: "of": 1,
// MANIFEST-NEXT: "box_shape": [
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 48,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],

func.func @qk(%Q: tensor<3x100x72xf16>, %K: tensor<3x96x72xf16>) -> tensor<3x100x96xf16> {
  %S = te.compute (%b, %m, %n) reduce (%k) in [3, 100, 96, 72] acc(f32) : (tensor<3x100x72xf16>, tensor<3x96x72xf16>) -> tensor<3x100x96xf16> { te.sum(f32(%Q[%b, %m, %k]) * f32(%K[%b, %n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 128, 96, 64], [1, 64, 48, 16]], pad = [[0, 0, 0], [0, 0, 0]], grid = [3, 1, 1], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %S : tensor<3x100x96xf16>
}

func.func @pv(%P: tensor<3x100x96xf16>, %V: tensor<3x96x72xf16>) -> tensor<3x100x72xf16> {
  %O = te.compute (%b, %m, %n) reduce (%k) in [3, 100, 72, 96] acc(f32) : (tensor<3x100x96xf16>, tensor<3x96x72xf16>) -> tensor<3x100x72xf16> { te.sum(f32(%P[%b, %m, %k]) * f32(%V[%b, %k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 128, 64, 64], [1, 64, 64, 16]], pad = [[0, 0, 0], [0, 0, 0]], grid = [3, 1, 2], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %O : tensor<3x100x72xf16>
}
