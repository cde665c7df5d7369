// --lower-to-gpu="tensor-core=wgmma" (sm_90a): a matmul under an H100 warpgroup program
// becomes a TMA + mbarrier + wgmma kernel. The program is given here: block 128x128, 4
// warpgroups of 64x64, on a 200x136x136 f16 matmul (m and k pad the block tile; TMA
// zero-fills past the edges, the epilogue guards m).
//
// By default the kernel is warp-specialised (a producer warpgroup loads, the four consumer
// warpgroups compute, full/empty mbarriers between them); warp-specialize=false keeps the
// single-role kernel (every warpgroup computes, thread 0 loads, a block barrier a k-step).
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | FileCheck %s --check-prefixes=CHECK,WS
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | FileCheck %s --check-prefixes=CHECK,SR
// Upstream MLIR verifies the kernel and the host code that builds the tensor maps.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// The CPU GPU-simulator runs the kernel (TMA, mbarrier phases, wgmma on the swizzled tiles:
// docs/simulator.md) and the host code against the te interpreter: f16 output, one f16
// rounding (2^-10 of the largest element) plus f32 reordering, hence 1.1e-3.
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma warp-specialize=false" | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// The launch sequence for rtile-run cuda --model lists the memrefs and the tensor maps the
// runtime encodes over them (cuTensorMapEncodeTiled).
// RUN: rtile-opt %s --lower-to-gpu="tensor-core=wgmma" -o %t.lowered.mlir
// RUN: rtile-run --model-manifest %t.json %t.lowered.mlir
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.json
// tensor-core=auto on lower-to-gpu-mma.mlir's programs for the H100: the 100x60x72 matmul's
// selected program is no warpgroup program (no wgmma); the 8x256x192x128 batch matmul takes
// wgmma with 3-d tensor maps (it fell back to mma.sync before batch matmuls lowered).
// RUN: rtile-opt %S/lower-to-gpu-mma.mlir --construct-rtile="device=h100" --rtile-select --lower-to-gpu="tensor-core=auto" | FileCheck %s --check-prefix=AUTO

// CHECK: gpu.module @kernels [#nvvm.target<chip = "sm_90a">]
// CHECK-LABEL: gpu.func @mm_0(%arg0: memref<200x136xf16>, %arg1: memref<136x136xf16>, %arg2: memref<200x136xf16>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>, %arg4: !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>)
// Three k-steps of 64 (k = 136): three stages of (128 + 128) x 64 halves, 96 KiB; the
// epilogue's f32 tiles (64 KiB) reuse them. 512 consumer threads, plus the producer's 128.
// WS-SAME: rtile.launch = {block = array<i32: 640, 1, 1>, dynamic_shared_memory = 98304 : i64, grid = array<i32: 4, 1, 1>}
// SR-SAME: rtile.launch = {block = array<i32: 512, 1, 1>, dynamic_shared_memory = 98304 : i64, grid = array<i32: 4, 1, 1>}
// CHECK-SAME: rtile.pipeline_stages = 3 : i64
// CHECK-SAME: rtile.tensor_map_of = array<i64: 0, 1>
// CHECK: %[[BAR:.*]] = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>

// Warp-specialised: `full` (one arrival: the producer's expect_tx) and `empty` (one
// arrival per consumer warpgroup) per stage.
// WS: %[[EMPTY:.*]] = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// WS: nvgpu.mbarrier.init %[[BAR]][%c0], %c1
// WS-NEXT: nvgpu.mbarrier.init %[[EMPTY]][%c0], %c4
// WS: gpu.barrier
// Consumers (threads below 512) carry the accumulator; the producer yields an idle one.
// WS: %[[CONS:.*]] = arith.cmpi ult, %{{.*}}, %c512 : index
// WS-NEXT: %[[ACCOUT:.*]] = scf.if %[[CONS]] -> (!nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>) {
// WS: scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%[[WACC:.*]] = %{{.*}})
// WS-NOT: gpu.barrier
// WS: nvgpu.mbarrier.try_wait.parity %[[BAR]][%[[ST:.*]]], %{{.*}}, %c10000000
// WS: %[[WDA:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg3
// WS: %[[WDB:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg4
// WS: nvgpu.warpgroup.mma %[[WDA]], %[[WDB]], %[[WACC]] {transposeB}
// After the MMA (which waits for its wgmma group) the warpgroup's first thread releases
// the stage.
// WS: arith.remui %{{.*}}, %c128
// WS: scf.if
// WS-NEXT: nvgpu.mbarrier.arrive %[[EMPTY]][%[[ST]]]
// WS: } else {
// The producer: thread 512 waits for the stage's release, then loads it.
// WS-NEXT: %[[ELECT:.*]] = arith.cmpi eq, %{{.*}}, %c512 : index
// WS-NEXT: scf.if %[[ELECT]] {
// WS-NEXT: scf.for
// WS-NOT: gpu.barrier
// WS: nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%[[PST:.*]]]
// WS-NEXT: nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%[[PST]]], %c32768
// WS: nvgpu.tma.async.load %arg3[%{{.*}}, %{{.*}}], %[[BAR]][%[[PST]]] to %{{.*}} : {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// WS: nvgpu.tma.async.load %arg4[%{{.*}}, %{{.*}}], %[[BAR]][%[[PST]]]
// WS: nvgpu.warpgroup.mma.init.accumulator
// WS-NEXT: scf.yield
// Every thread joins the epilogue's barriers; only consumers store and copy between them.
// WS-NEXT: }
// WS-NEXT: gpu.barrier
// WS-NEXT: scf.if %[[CONS]] {
// WS: nvgpu.warpgroup.mma.store %[[ACCOUT]]

// Single-role: thread 0 loads stages 0 and 1 ahead: 32 KiB announced per stage, A in two
// 64-row boxes at (k, m) and B in two 64-column boxes at (n, k).
// SR: nvgpu.mbarrier.init %[[BAR]]
// SR: nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%{{.*}}], %c32768
// SR: nvgpu.tma.async.load %arg3[%{{.*}}, %{{.*}}], %[[BAR]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// SR: nvgpu.tma.async.load %arg4[%{{.*}}, %{{.*}}], %[[BAR]]
// SR: %[[Z:.*]] = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
// SR: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]])
// SR: gpu.barrier
// SR: nvgpu.mbarrier.try_wait.parity %[[BAR]]
// SR: %[[DA:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg3 : memref<64x64xf16, #gpu.address_space<workgroup>>
// SR: %[[DB:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %arg4 : memref<64x64xf16, #gpu.address_space<workgroup>>
// SR: nvgpu.warpgroup.mma %[[DA]], %[[DB]], %[[ACC]] {transposeB}
// SR-NOT: nvgpu.mbarrier.arrive %
// The epilogue: accumulators into shared f32 tiles, then coalesced, rounded, guarded stores.
// SR: nvgpu.warpgroup.mma.store %{{.*}}, %{{.*}} : !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>> to memref<64x64xf32, #gpu.address_space<workgroup>>
// WS-SAME: : !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>> to memref<64x64xf32, #gpu.address_space<workgroup>>
// WS-NEXT: }
// WS-NEXT: gpu.barrier
// WS-NEXT: scf.if %[[CONS]] {
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
// AUTO-NOT: nvgpu.warpgroup.mma
// AUTO-LABEL: gpu.func @bmm_1(%arg0: memref<8x256x128xbf16>, %arg1: memref<8x128x192xbf16>, %arg2: memref<8x256x192xf32>, %arg3: !nvgpu.tensormap.descriptor<tensor = memref<1x
// AUTO: nvgpu.warpgroup.mma

func.func @mm(%A: tensor<200x136xf16>, %B: tensor<136x136xf16>) -> tensor<200x136xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [200, 136, 136] acc(f32) : (tensor<200x136xf16>, tensor<136x136xf16>) -> tensor<200x136xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 128, 64], [64, 64, 16]], pad = [[0, 0], [0, 0]], grid = [2, 2], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<200x136xf16>
}

