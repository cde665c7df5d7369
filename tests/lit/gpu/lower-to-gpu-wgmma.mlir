// --lower-to-gpu="tensor-core=wgmma" (sm_90a): a matmul under an H100 warpgroup program
// becomes a TMA + mbarrier + wgmma kernel. The program is given here: block 128x128, 4
// warpgroups of 64x64, on a 200x136x136 f16 matmul (m and k pad the block tile; TMA
// zero-fills past the edges, the epilogue guards m).
//
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | FileCheck %s
// Upstream MLIR verifies the kernel and the host code that builds the tensor maps.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// The CPU GPU-simulator runs the kernel (TMA, mbarrier phases, wgmma on the swizzled tiles:
// docs/simulator.md) and the host code against the te interpreter: f16 output, one f16
// rounding (2^-10 of the largest element) plus f32 reordering, hence 1.1e-3.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// The launch sequence for rtile-run cuda --model lists the memrefs and the tensor maps the
// runtime encodes over them (cuTensorMapEncodeTiled).
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" -o %t.lowered.mlir
// RUN: rtile-run --model-manifest %t.json %t.lowered.mlir
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// Where wgmma does not apply, tensor-core=auto falls back to mma.sync (the construction's
// h100 programs for these odd shapes have warpgroup tiles narrower than 64 columns).
// RUN: rtile-opt %S/lower-to-gpu-mma.mlir --construct-rtile="device=h100" --rtile-select --lower-to-gpu="tensor-core=auto" | FileCheck %s --check-prefix=AUTO

// CHECK: gpu.module @kernels [#nvvm.target<chip = "sm_90a">]
// CHECK-LABEL: gpu.func @mm_0(%arg0: memref<200x136xf16>, %arg1: memref<136x136xf16>, %arg2: memref<200x136xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>, %arg4: !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>)
// Three k-steps of 64 (k = 136): three stages of (128 + 128) x 64 halves, 96 KiB; the
// epilogue's f32 tiles (64 KiB) reuse them.
// CHECK-SAME: rtile.launch = {block = array<i32: 512, 1, 1>, dynamic_shared_memory = 98304 : i64, grid = array<i32: 4, 1, 1>}
// CHECK-SAME: rtile.pipeline_stages = 3 : i64
// CHECK-SAME: rtile.tensor_map_of = array<i64: 0, 1>
// CHECK: %[[BAR:.*]] = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: nvgpu.mbarrier.init %[[BAR]]
// Thread 0 loads stages 0 and 1 ahead: 32 KiB announced per stage, A in two 64-row boxes
// at (k, m) and B in two 64-column boxes at (n, k).
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%{{.*}}], %c32768
// CHECK: nvgpu.tma.async.load %arg3[%{{.*}}, %{{.*}}], %[[BAR]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.tma.async.load %arg4[%{{.*}}, %{{.*}}], %[[BAR]]
// CHECK: %[[Z:.*]] = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]])
// CHECK: gpu.barrier
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BAR]]
// CHECK: %[[DA:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg3 : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[DB:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg4 : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.warpgroup.mma %[[DA]], %[[DB]], %[[ACC]] {transposeB}
// The epilogue: accumulators into shared f32 tiles, then coalesced, rounded, guarded stores.
// CHECK: nvgpu.warpgroup.mma.store %{{.*}}, %{{.*}} : !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>> to memref<64x64xf32, #gpu.address_space<workgroup>>
// CHECK: memref.load %{{.*}} : memref<4x64x64xf32, #gpu.address_space<workgroup>>
// CHECK: arith.truncf
// CHECK: memref.store %{{.*}}, %arg2
// Host code builds the two tensor maps from the operands and passes them last.
// CHECK-LABEL: func.func @mm(
// CHECK: %[[UA:.*]] = "memref.cast"(%arg0) : (memref<200x136xf16>) -> memref<*xf16>
// CHECK: %[[TA:.*]] = nvgpu.tma.create.descriptor %[[UA]] box[%c64, %c64] : memref<*xf16> -> !nvgpu.tensormap.descriptor
// CHECK: %[[TB:.*]] = nvgpu.tma.create.descriptor
// CHECK: "gpu.launch_func"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %arg0, %arg1, %arg2, %[[TA]], %[[TB]]) <{kernel = @kernels::@mm_0

// UPSTREAM: nvgpu.warpgroup.mma %
// UPSTREAM: nvgpu.tma.create.descriptor

// SIM: @mm_0: 27200 elements, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @mm output 0: tensor<200x136xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}

// MANIFEST: "kernel": "mm_0"
// MANIFEST: "tensor_maps": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "of": 0,
// MANIFEST-NEXT: "box_shape": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "swizzle": 128
// MANIFEST: "of": 1,

// AUTO-LABEL: gpu.func @odd_0
// AUTO: nvgpu.mma.sync

func.func @mm(%A: tensor<200x136xf16>, %B: tensor<136x136xf16>) -> tensor<200x136xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [200, 136, 136] acc(f32) : (tensor<200x136xf16>, tensor<136x136xf16>) -> tensor<200x136xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 128, 64], [64, 64, 16]], pad = [[0, 0], [0, 0]], grid = [2, 2], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<200x136xf16>
}

