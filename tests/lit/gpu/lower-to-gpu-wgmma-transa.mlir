// --lower-to-gpu="tensor-core=wgmma" (sm_90a) with A stored [k, m] (m contiguous: the te
// body reads %A[%k, %m]). wgmma takes such an A MN-major (`transposeA`, PTX imm-trans-a 1,
// f16/bf16 only): A's TMA boxes are 64 k × 64 m at coordinates (m, k), 128-byte swizzled,
// a warpgroup's 64-row slabs its boxes one after the other; A's descriptor memref stays
// the logical m × k operand. @at: B [k, n] (transposeB too); @atbt: B [n, k] (K-major, no
// transposeB). Block 128x96, 4 warpgroups of 64x48, a 136x96x72 f16 matmul (m pads the
// block tile: A's boxes cross it and TMA fills zeros).
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | FileCheck %s
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | FileCheck %s
// Upstream MLIR 22's nvgpu.warpgroup.mma verifier does not take transposeA yet (rtile's
// nvgpu dialect does, for f16/bf16, as PTX's wgmma does): it refuses these kernels.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" --mlir-print-op-generic | not mlir-opt-22 --verify-each 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// The simulator runs both structures against the te interpreter: one f16 rounding plus f32
// reordering, hence 1.1e-3.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: gpu.func @at_0(%arg0: memref<72x136xf16>, %arg1: memref<72x96xf16>, %arg2: memref<136x96xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>
// A's boxes at (m, k), innermost first: 64 rows of k × 64 m.
// CHECK-DAG: nvgpu.tma.async.load %arg3[%{{[0-9a-z]+}}, %{{[0-9]+}}], %{{.*}} to %{{.*}} : {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg3 : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: nvgpu.warpgroup.mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[a-z0-9]+}} {transposeA, transposeB} : !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
// CHECK-LABEL: gpu.func @atbt_1(%arg0: memref<72x136xf16>, %arg1: memref<96x72xf16>, %arg2: memref<136x96xf16>
// CHECK-DAG: nvgpu.warpgroup.mma %{{[0-9]+}}, %{{[0-9]+}}, %{{[a-z0-9]+}} {transposeA} : !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x48xf16, #gpu.address_space<workgroup>>>
// CHECK-LABEL: func.func @at(
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c64, %c64]

// UPSTREAM: 'nvgpu.warpgroup.mma' op supports non-transpose A (Row Major)

// SIM: @at_0: 13056 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @atbt_1: 13056 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}

func.func @at(%A: tensor<72x136xf16>, %B: tensor<72x96xf16>) -> tensor<136x96xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [136, 96, 72] acc(f32) : (tensor<72x136xf16>, tensor<72x96xf16>) -> tensor<136x96xf16> { te.sum(f32(%A[%k, %m]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 96, 64], [64, 48, 16]], pad = [[0, 0], [0, 0]], grid = [2, 1], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<136x96xf16>
}

func.func @atbt(%A: tensor<72x136xf16>, %B: tensor<96x72xf16>) -> tensor<136x96xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [136, 96, 72] acc(f32) : (tensor<72x136xf16>, tensor<96x72xf16>) -> tensor<136x96xf16> { te.sum(f32(%A[%k, %m]) * f32(%B[%n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 96, 64], [64, 48, 16]], pad = [[0, 0], [0, 0]], grid = [2, 1], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<136x96xf16>
}
