// --lower-to-gpu="tensor-core=wgmma" (sm_90a) on A·Bᵀ: B stored [n, k] with k contiguous
// (the te body reads %B[%n, %k], as Q·Kᵀ or a Linear layer's weight). wgmma takes such a B
// K-major, like A: its TMA box is the warpgroup's 48 rows of n × 64 k (128-byte swizzled,
// not padded to 64-column boxes), its tensor map is over the [96, 136] memref, and the
// nvgpu.warpgroup.mma has no transposeB. Block 128x96, 4 warpgroups of 64x48, on a
// 150x96x136 f16 matmul (m and k pad the block tile).
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | FileCheck %s --check-prefixes=CHECK,WS
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | FileCheck %s --check-prefixes=CHECK,SR
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | not grep transposeB
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | not grep transposeB
// Upstream MLIR verifies the kernels and the host code.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// The simulator runs both kernels against the te interpreter: one f16 rounding (2^-10 of
// the largest element) plus f32 reordering, hence 1.1e-3.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: gpu.func @mm_0(%arg0: memref<150x136xf16>, %arg1: memref<96x136xf16>, %arg2: memref<150x96xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>, %arg4: !nvgpu.tensormap.descriptor<tensor = memref<48x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>)
// Three stages of (128 + 2 x 48) x 64 halves (28 KiB each).
// WS-SAME: rtile.launch = {block = array<i32: 640, 1, 1>, dynamic_shared_memory = 86016 : i64, grid = array<i32: 2, 1, 1>}
// SR-SAME: rtile.launch = {block = array<i32: 512, 1, 1>, dynamic_shared_memory = 86016 : i64, grid = array<i32: 2, 1, 1>}
// (The warp-specialised kernel has its consumers' MMA before the producer's loads.)
// CHECK-DAG: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c28672
// B's boxes at (k, n), innermost first.
// CHECK-DAG: nvgpu.tma.async.load %arg4[%{{.*}}, %{{.*}}], %{{.*}} to %{{.*}} : {{.*}} -> memref<48x64xf16, #gpu.address_space<workgroup>>
// B's descriptor names the logical 64 k x 48 n operand over those 48 x 64 boxes; the MMA
// has no {transposeB} between its operands and its types.
// CHECK-DAG: nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg4 : memref<64x48xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: nvgpu.warpgroup.mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[a-z0-9]+}} : !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x48xf16, #gpu.address_space<workgroup>>>
// CHECK-LABEL: func.func @mm(
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c48, %c64]

// UPSTREAM: nvgpu.warpgroup.mma %
// UPSTREAM: nvgpu.tma.create.descriptor

// SIM: @mm_0: 14400 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @mm output 0: tensor<150x96xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}

func.func @mm(%A: tensor<150x136xf16>, %B: tensor<96x136xf16>) -> tensor<150x96xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [150, 96, 136] acc(f32) : (tensor<150x136xf16>, tensor<96x136xf16>) -> tensor<150x96xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 96, 64], [64, 48, 16]], pad = [[0, 0], [0, 0]], grid = [2, 1], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<150x96xf16>
}
