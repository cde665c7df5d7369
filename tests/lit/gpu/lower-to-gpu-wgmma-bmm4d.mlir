// --lower-to-gpu="tensor-core=wgmma" (sm_90a) on batch matmuls beyond one batch axis:
// @qk, S[b, h, m, n] = Σ_k Q[b, h, m, k]·K[b, h, n, k] and @pv, O[b, h, m, n] =
// Σ_k P[b, h, m, k]·V[b, h, k, n] (attention over [batch, heads, seq, d]: two batch axes,
// 4-d tensor maps with boxes [1, 1, rows, 64]); @linear, Y[b, m, n] = Σ_k X[b, m, k]·W[n, k]
// (a batched activation times a shared weight: A's map 3-d, W's 2-d, its loads without a
// batch coordinate); @heads, S[b, h, m, n] = Σ_k Q[b, m, h, k]·K[b, n, h, k] (the heads
// inside the operands, as a Linear layer leaves them: boxes [1, rows, 1, 64] over the
// tensors' own dims); @bert, BERT-base's attention scores [1, 12, 128, 64]·[1, 12, 128, 64]ᵀ
// (128x128 blocks of two 64x128 warpgroups: one block per head). Each block computes one index of each batch axis: the block index is
// decoded n fastest, then m, then the batch axes (the last fastest). m, n and k are off
// the tiles.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | FileCheck %s --check-prefixes=CHECK,WS
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | FileCheck %s --check-prefixes=CHECK,SR
// Upstream MLIR verifies the kernels and the host code (4-d nvgpu.tma.create.descriptor).
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// The simulator runs the kernels and the host code against the te interpreter: f16 output,
// one f16 rounding (2^-10 of the largest element) plus f32 reordering, hence 1.1e-3.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// The launch sequence for rtile-run cuda --model: the 4-d maps' boxes, outermost first.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" -o %t.lowered.mlir
// RUN: rtile-run --model-manifest %t.json --func qk %t.lowered.mlir
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json


// CHECK: gpu.module @kernels [#nvvm.target<chip = "sm_90a">]
// CHECK-LABEL: gpu.func @qk_0(%arg0: memref<2x3x100x72xf16>, %arg1: memref<2x3x96x72xf16>, %arg2: memref<2x3x100x96xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<1x1x64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>, %arg4: !nvgpu.tensormap.descriptor<tensor = memref<1x1x48x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>)
// One block per (b, h): 2 x 3, m and n fitting one block each.
// WS-SAME: block = array<i32: 640, 1, 1>, dynamic_shared_memory = {{[0-9]+}} : i64, grid = array<i32: 6, 1, 1>
// SR-SAME: block = array<i32: 512, 1, 1>, dynamic_shared_memory = {{[0-9]+}} : i64, grid = array<i32: 6, 1, 1>
// The block index over the n blocks, then the m blocks, then h (the last batch axis,
// fastest), then b: what is left.
// CHECK: %[[BID:[0-9]+]] = gpu.block_id {{ *}}x
// CHECK: %[[REST:[0-9]+]] = arith.divui %[[BID]], %c1
// CHECK: %[[BATCH:[0-9]+]] = arith.divui %[[REST]], %c1
// CHECK: %[[H:[0-9]+]] = arith.remui %[[BATCH]], %c3
// CHECK: %[[B:[0-9]+]] = arith.divui %[[BATCH]], %c3
// A's boxes at (k, m, h, b) and B's at (k, n, h, b), innermost first, into
// [1, 1, rows, 64] views.
// CHECK-DAG: nvgpu.tma.async.load %arg3[%{{[0-9]+}}, %{{[0-9a-z]+}}, %[[H]], %[[B]]], %{{.*}} to %{{.*}} : {{.*}} -> memref<1x1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: nvgpu.tma.async.load %arg4[%{{[0-9]+}}, %{{[0-9a-z]+}}, %[[H]], %[[B]]], %{{.*}} to %{{.*}} : {{.*}} -> memref<1x1x48x64xf16, #gpu.address_space<workgroup>>
// The descriptors stay 2-d: no transposeB for the [b, h, n, k] K.
// CHECK-DAG: nvgpu.warpgroup.mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[a-z0-9]+}} : !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x48xf16, #gpu.address_space<workgroup>>>
// The epilogue stores at [b, h, row, column].
// CHECK-DAG: memref.store %{{.*}}, %arg2[%[[B]], %[[H]], %{{[0-9]+}}, %{{[0-9]+}}] : memref<2x3x100x96xf16>
// CHECK-LABEL: gpu.func @pv_1(
// CHECK-SAME: %arg3: !nvgpu.tensormap.descriptor<tensor = memref<1x1x64x64xf16, 3>
// CHECK-SAME: %arg4: !nvgpu.tensormap.descriptor<tensor = memref<1x1x64x64xf16, 3>
// 2 x 3 batch indices x 1 m block x 2 n blocks.
// CHECK-SAME: grid = array<i32: 12, 1, 1>
// CHECK: nvgpu.warpgroup.mma %{{.*}} {transposeB}
// A shared weight: W's map is its own 2-d [96, 136], its loads (k, n) with no batch index.
// CHECK-LABEL: gpu.func @linear_2(%arg0: memref<3x100x136xf16>, %arg1: memref<96x136xf16>, %arg2: memref<3x100x96xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xf16, 3>, {{.*}}, %arg4: !nvgpu.tensormap.descriptor<tensor = memref<48x64xf16, 3>
// CHECK-SAME: grid = array<i32: 3, 1, 1>
// CHECK: %[[LBID:[0-9]+]] = gpu.block_id {{ *}}x
// CHECK: %[[LR:[0-9]+]] = arith.divui %[[LBID]], %c1
// CHECK: %[[LB:[0-9]+]] = arith.divui %[[LR]], %c1
// CHECK-DAG: nvgpu.tma.async.load %arg3[%{{[0-9]+}}, %{{[0-9a-z]+}}, %[[LB]]], {{.*}} -> memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: nvgpu.tma.async.load %arg4[%{{[0-9]+}}, %{{[0-9a-z]+}}], {{.*}} -> memref<48x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.store %{{.*}}, %arg2[%[[LB]], %{{[0-9]+}}, %{{[0-9]+}}] : memref<3x100x96xf16>
// The heads inside Q and K: boxes [1, rows, 1, 64], coordinates (k, h, m or n, b).
// CHECK-LABEL: gpu.func @heads_3(%arg0: memref<2x100x3x64xf16>, %arg1: memref<2x72x3x64xf16>, %arg2: memref<2x3x100x72xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<1x64x1x64xf16, 3>, {{.*}}, %arg4: !nvgpu.tensormap.descriptor<tensor = memref<1x72x1x64xf16, 3>
// CHECK: %[[HH:[0-9]+]] = arith.remui %[[HB:[0-9]+]], %c3
// CHECK: %[[HBB:[0-9]+]] = arith.divui %[[HB]], %c3
// CHECK-DAG: nvgpu.tma.async.load %arg3[%{{[0-9]+}}, %[[HH]], %{{[0-9a-z]+}}, %[[HBB]]], {{.*}} -> memref<1x64x1x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: nvgpu.tma.async.load %arg4[%{{[0-9]+}}, %[[HH]], %{{[0-9a-z]+}}, %[[HBB]]], {{.*}} -> memref<1x72x1x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.store %{{.*}}, %arg2[%[[HBB]], %[[HH]], %{{[0-9]+}}, %{{[0-9]+}}] : memref<2x3x100x72xf16>
// BERT-base's scores: one block per head.
// CHECK-LABEL: gpu.func @bert_4(
// CHECK-SAME: grid = array<i32: 12, 1, 1>
// CHECK: nvgpu.warpgroup.mma {{.*}} -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>>
// CHECK-LABEL: func.func @qk(
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c1, %c64, %c64]
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c1, %c48, %c64]
// CHECK-LABEL: func.func @linear(
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c64, %c64]
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c48, %c64]
// CHECK-LABEL: func.func @heads(
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c64, %c1, %c64]
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c1, %c72, %c1, %c64]

// UPSTREAM: nvgpu.warpgroup.mma %
// UPSTREAM: nvgpu.tma.create.descriptor

// SIM: @qk_0: 57600 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @pv_1: 43200 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @linear_2: 28800 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @heads_3: 43200 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @bert_4: 196608 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @qk output 0: tensor<2x3x100x96xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @pv output 0: tensor<2x3x100x72xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @linear output 0: tensor<3x100x96xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @heads output 0: tensor<2x3x100x72xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @bert output 0: tensor<1x12x128x128xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}

// MANIFEST: "tensor_maps": [
// MANIFEST: "of": 0,
// MANIFEST-NEXT: "box_shape": [
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST: "of": 1,
// MANIFEST-NEXT: "box_shape": [
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 48,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],

func.func @qk(%Q: tensor<2x3x100x72xf16>, %K: tensor<2x3x96x72xf16>) -> tensor<2x3x100x96xf16> {
  %S = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 100, 96, 72] acc(f32) : (tensor<2x3x100x72xf16>, tensor<2x3x96x72xf16>) -> tensor<2x3x100x96xf16> { te.sum(f32(%Q[%b, %h, %m, %k]) * f32(%K[%b, %h, %n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 1, 128, 96, 64], [1, 1, 64, 48, 16]], pad = [[0, 0, 0, 0], [0, 0, 0, 0]], grid = [2, 3, 1, 1], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %S : tensor<2x3x100x96xf16>
}

func.func @pv(%P: tensor<2x3x100x96xf16>, %V: tensor<2x3x96x72xf16>) -> tensor<2x3x100x72xf16> {
  %O = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 100, 72, 96] acc(f32) : (tensor<2x3x100x96xf16>, tensor<2x3x96x72xf16>) -> tensor<2x3x100x72xf16> { te.sum(f32(%P[%b, %h, %m, %k]) * f32(%V[%b, %h, %k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 1, 128, 64, 64], [1, 1, 64, 64, 16]], pad = [[0, 0, 0, 0], [0, 0, 0, 0]], grid = [2, 3, 1, 2], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %O : tensor<2x3x100x72xf16>
}

func.func @linear(%X: tensor<3x100x136xf16>, %W: tensor<96x136xf16>) -> tensor<3x100x96xf16> {
  %Y = te.compute (%b, %m, %n) reduce (%k) in [3, 100, 96, 136] acc(f32) : (tensor<3x100x136xf16>, tensor<96x136xf16>) -> tensor<3x100x96xf16> { te.sum(f32(%X[%b, %m, %k]) * f32(%W[%n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 128, 96, 64], [1, 64, 48, 16]], pad = [[0, 0, 0], [0, 0]], grid = [3, 1, 1], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %Y : tensor<3x100x96xf16>
}

func.func @heads(%Q: tensor<2x100x3x64xf16>, %K: tensor<2x72x3x64xf16>) -> tensor<2x3x100x72xf16> {
  %S = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 100, 72, 64] acc(f32) : (tensor<2x100x3x64xf16>, tensor<2x72x3x64xf16>) -> tensor<2x3x100x72xf16> { te.sum(f32(%Q[%b, %m, %h, %k]) * f32(%K[%b, %n, %h, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 1, 128, 72, 64], [1, 1, 64, 72, 16]], pad = [[0, 0, 0, 0], [0, 0, 0, 0]], grid = [2, 3, 1, 1], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %S : tensor<2x3x100x72xf16>
}

func.func @bert(%Q: tensor<1x12x128x64xf16>, %K: tensor<1x12x128x64xf16>) -> tensor<1x12x128x128xf16> {
  %S = te.compute (%b, %h, %m, %n) reduce (%k) in [1, 12, 128, 128, 64] acc(f32) : (tensor<1x12x128x64xf16>, tensor<1x12x128x64xf16>) -> tensor<1x12x128x128xf16> { te.sum(f32(%Q[%b, %h, %m, %k]) * f32(%K[%b, %h, %n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 1, 128, 128, 64], [1, 1, 64, 128, 16]], pad = [[0, 0, 0, 0], [0, 0, 0, 0]], grid = [1, 12, 1, 1], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %S : tensor<1x12x128x128xf16>
}
