// te.compute: custom form, generic form, and both through upstream mlir-opt-22.
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// The generic form parses and verifies upstream (te itself is unregistered there), and
// what mlir-opt-22 prints reads back to the same custom form.
// RUN: rtile-opt %s --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s

// GENERIC: #map = affine_map<(d0, d1, d2) -> (d0, d2)>
// GENERIC: #map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
// GENERIC: #map2 = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @matmul
// CHECK: te.compute (%m, %n) reduce (%k) in [4, 5, 6] may_pad 0.0 : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32> {
// CHECK-NEXT: te.sum(%{{.*}}[%m, %k] * %{{.*}}[%k, %n])
// GENERIC-LABEL: "func.func"
// GENERIC: "te.compute"(%{{.*}}, %{{.*}}) ({
// GENERIC-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// GENERIC-NEXT: "arith.mulf"
// GENERIC-NEXT: "te.yield"
// GENERIC: axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 4, 5, 6>
// GENERIC-SAME: indexing_maps = [#map, #map1, #map2]
// GENERIC-SAME: iterator_types = ["parallel", "parallel", "reduction"], may_pad = 0.000000e+00 : f32
func.func @matmul(%A: tensor<4x6xf32>, %B: tensor<6x5xf32>) -> tensor<4x5xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [4, 5, 6] may_pad 0.0
         : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK: te.sum(%{{.*}}[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad 0.0 * %{{.*}}[%f, %c, %ry, %rx])
// GENERIC: pad_values = [0.000000e+00 : f32, unit]
func.func @conv(%D: tensor<1x3x8x8xf32>, %K: tensor<2x3x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 2, 4, 4, 3, 3, 3]
         : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x4x4xf32> {
    te.sum(%D[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad 0.0 * %K[%f, %c, %ry, %rx])
  }
  func.return %O : tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func.func @body_ops
// CHECK: select(%{{.*}}[%i, %j] > 0.0, exp(%{{.*}}[%i, %j] - %{{.*}}[%i]), f32(f16(%{{.*}}[%i, %j])) * 0.01)
// GENERIC: "arith.cmpf"
// GENERIC: "math.exp"
// GENERIC: "arith.truncf"
// GENERIC: "arith.extf"
// GENERIC: "arith.select"
func.func @body_ops(%X: tensor<3x4xf32>, %M: tensor<3xf32>) -> tensor<3x4xf32> {
  %E = te.compute (%i, %j) in [3, 4] : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x4xf32> {
    select(%X[%i, %j] > 0.0, exp(%X[%i, %j] - %M[%i]), f32(f16(%X[%i, %j])) * 0.01)
  }
  func.return %E : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @rowmax
// CHECK: te.compute (%i) reduce (%j) in [3, 4] may_pad -inf
// CHECK-NEXT: te.max(%{{.*}}[%i, %j])
func.func @rowmax(%X: tensor<3x4xf32>) -> tensor<3xf32> {
  %M = te.compute (%i) reduce (%j) in [3, 4] may_pad -inf : (tensor<3x4xf32>) -> tensor<3xf32> {
    te.max(%X[%i, %j])
  }
  func.return %M : tensor<3xf32>
}

// A generic form with a duplicated operand and no axis names parses into the custom form.
// CHECK-LABEL: func.func @generic_in
// CHECK: te.compute (%d0) in [3] : (tensor<4xf32>) -> tensor<3xf32> {
// CHECK-NEXT: %{{.*}}[%d0 + 1] - %{{.*}}[%d0]
func.func @generic_in(%X: tensor<4xf32>) -> tensor<3xf32> {
  %0 = "te.compute"(%X, %X) ({
  ^bb0(%a: f32, %b: f32):
    %1 = "arith.subf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%1) : (f32) -> ()
  }) {domain = array<i64: 3>, indexing_maps = [affine_map<(d0) -> (d0 + 1)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// An axis named like a printed operand is renamed in the custom form (spelling only).
// CHECK-LABEL: func.func @axis_name_clash
// CHECK: te.compute (%ax0) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %arg0[%ax0]
func.func @axis_name_clash(%X: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "te.compute"(%X) ({
  ^bb0(%a: f32):
    "te.yield"(%a) : (f32) -> ()
  }) {axis_names = ["arg0"], domain = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// Discardable attributes follow the body and survive both forms.
// CHECK-LABEL: func.func @tile_attr
// CHECK: } {rtile.tile = #rtile.tile<[4, 8]>}
// GENERIC-LABEL: "func.func"() <{function_type = (tensor<7x5xf32>) -> tensor<7x5xf32>, sym_name = "tile_attr"}>
// GENERIC: rtile.tile = #rtile.tile<[4, 8]>
func.func @tile_attr(%A: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %0 = te.compute (%i, %j) in [7, 5] may_pad 0.0 : (tensor<7x5xf32>) -> tensor<7x5xf32> {
    %A[%i, %j] * 2.0
  } {rtile.tile = #rtile.tile<[4, 8]>}
  func.return %0 : tensor<7x5xf32>
}
