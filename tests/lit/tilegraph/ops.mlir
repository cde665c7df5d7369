// tilegraph.kernel: custom form, generic form, and the generic form through upstream
// mlir-opt-22 (tilegraph and te are unregistered there; the kernel's region uses values
// from above, which MLIR allows for an op it does not know to be isolated).
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: rtile-opt %s --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s

// Matmul -> row max -> exp(C - max) -> relu: the first three connected in shared memory
// (Welder §2's Matmul -> Softmax), the relu in registers (§4.2, compute_inline).
// CHECK-LABEL: func.func @matmul_softmax_part
// CHECK: %[[K:.*]]:2 = tilegraph.kernel -> (tensor<64x128xf32>, tensor<64x128xf32>) {
// CHECK: te.compute (%m, %n) reduce (%k) in [64, 128, 64]
// CHECK: tilegraph.connect = ["global", "global"], tilegraph.tiles = {shared = array<i64: 16, 128, 16>}
// CHECK: te.compute (%i) reduce (%j) in [64, 128]
// CHECK: tilegraph.connect = ["shared"], tilegraph.tiles = {shared = array<i64: 16, 128>}
// CHECK: tilegraph.connect = ["shared", "shared"], tilegraph.tiles = {register = array<i64: 1, 4>, shared = array<i64: 16, 128>}
// CHECK: tilegraph.connect = ["register"], tilegraph.tiles = {register = array<i64: 1, 4>, shared = array<i64: 16, 128>}
// CHECK: tilegraph.yield %{{.*}}, %{{.*}} : tensor<64x128xf32>, tensor<64x128xf32>
// CHECK-NEXT: } {tilegraph.device = "h100", tilegraph.footprint = {shared = 45120 : i64}, tilegraph.traffic = {global = 196608 : i64}}
// CHECK: return %[[K]]#1 : tensor<64x128xf32>
// GENERIC: "tilegraph.kernel"() ({
// GENERIC: "tilegraph.yield"(%{{.*}}, %{{.*}}) : (tensor<64x128xf32>, tensor<64x128xf32>) -> ()
// GENERIC-NEXT: }) {tilegraph.device = "h100", tilegraph.footprint = {shared = 45120 : i64}, tilegraph.traffic = {global = 196608 : i64}} : () -> (tensor<64x128xf32>, tensor<64x128xf32>)
func.func @matmul_softmax_part(%A: tensor<64x64xf32>, %B: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %k:2 = tilegraph.kernel -> (tensor<64x128xf32>, tensor<64x128xf32>) {
    %C = te.compute (%m, %n) reduce (%k) in [64, 128, 64]
           : (tensor<64x64xf32>, tensor<64x128xf32>) -> tensor<64x128xf32> {
      te.sum(%A[%m, %k] * %B[%k, %n])
    } {tilegraph.connect = ["global", "global"], tilegraph.tiles = {shared = array<i64: 16, 128, 16>}}
    %M = te.compute (%i) reduce (%j) in [64, 128] : (tensor<64x128xf32>) -> tensor<64xf32> {
      te.max(%C[%i, %j])
    } {tilegraph.connect = ["shared"], tilegraph.tiles = {shared = array<i64: 16, 128>}}
    %E = te.compute (%i, %j) in [64, 128] : (tensor<64x128xf32>, tensor<64xf32>) -> tensor<64x128xf32> {
      exp(%C[%i, %j] - %M[%i])
    } {tilegraph.connect = ["shared", "shared"], tilegraph.tiles = {shared = array<i64: 16, 128>, register = array<i64: 1, 4>}}
    %R = te.compute (%i, %j) in [64, 128] : (tensor<64x128xf32>) -> tensor<64x128xf32> {
      te.max(%E[%i, %j], 0.0)
    } {tilegraph.connect = ["register"], tilegraph.tiles = {shared = array<i64: 16, 128>, register = array<i64: 1, 4>}}
    tilegraph.yield %E, %R : tensor<64x128xf32>, tensor<64x128xf32>
  } {tilegraph.device = "h100", tilegraph.traffic = {global = 196608 : i64}, tilegraph.footprint = {shared = 45120 : i64}}
  func.return %k#1 : tensor<64x128xf32>
}

// A reshape between two computes, inside one kernel: its tile ranges over its result.
// CHECK-LABEL: func.func @reshape_inside
// CHECK: tensor.collapse_shape
// CHECK-SAME: tilegraph.connect = ["shared"], tilegraph.tiles = {shared = array<i64: 64>}
func.func @reshape_inside(%X: tensor<8x16xf32>) -> tensor<128xf32> {
  %k = tilegraph.kernel -> (tensor<128xf32>) {
    %a = te.compute (%i, %j) in [8, 16] : (tensor<8x16xf32>) -> tensor<8x16xf32> {
      exp(%X[%i, %j])
    } {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 4, 16>}}
    %f = tensor.collapse_shape %a [[0, 1]] {tilegraph.connect = ["shared"], tilegraph.tiles = {shared = array<i64: 64>}} : tensor<8x16xf32> into tensor<128xf32>
    %r = te.compute (%i) in [128] : (tensor<128xf32>) -> tensor<128xf32> {
      te.max(%f[%i], 0.0)
    } {tilegraph.connect = ["shared"], tilegraph.tiles = {shared = array<i64: 64>}}
    tilegraph.yield %r : tensor<128xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<128xf32>
}
