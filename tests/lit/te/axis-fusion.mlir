// --axis-fusion: Roller §3.2 on te.compute (collapse/expand reshapes around the fused compute).
// RUN: rtile-opt %s --axis-fusion | FileCheck %s
// RUN: rtile-opt %s --axis-fusion --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each -o %t

// Roller's example: elementwise on [17, 11, 3] becomes [561].
// CHECK-LABEL: func.func @paper_example
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<17x11x3xf32> into tensor<561xf32>
// CHECK: te.compute (%i_j_k) in [561] may_pad 0.0 : (tensor<561xf32>) -> tensor<561xf32> {
// CHECK-NEXT: max(%{{.*}}[%i_j_k], 0.0)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [17, 11, 3] : tensor<561xf32> into tensor<17x11x3xf32>
func.func @paper_example(%I: tensor<17x11x3xf32>) -> tensor<17x11x3xf32> {
  %0 = te.compute (%i, %j, %k) in [17, 11, 3] may_pad 0.0 : (tensor<17x11x3xf32>) -> tensor<17x11x3xf32> {
    max(%I[%i, %j, %k], 0.0)
  }
  func.return %0 : tensor<17x11x3xf32>
}

// Batch axes fuse; m, n, k do not (each is missing from one tensor).
// CHECK-LABEL: func.func @bmm
// CHECK: te.compute (%b_h, %m, %n) reduce (%k) in [6, 4, 5, 8]
func.func @bmm(%A: tensor<2x3x4x8xf32>, %B: tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 4, 5, 8] : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32> {
    te.sum(%A[%b, %h, %m, %k] * %B[%b, %h, %k, %n])
  }
  func.return %0 : tensor<2x3x4x5xf32>
}

// Reduction axes fuse with reduction axes (R2: mean over [11, 11]).
// CHECK-LABEL: func.func @reduce_hw
// CHECK: te.compute (%n_c) reduce (%h_w) in [26, 121]
func.func @reduce_hw(%I: tensor<2x13x11x11xf32>) -> tensor<2x13xf32> {
  %0 = te.compute (%n, %c) reduce (%h, %w) in [2, 13, 11, 11] : (tensor<2x13x11x11xf32>) -> tensor<2x13xf32> {
    te.sum(%I[%n, %c, %h, %w])
  }
  func.return %0 : tensor<2x13xf32>
}

// A broadcast blocks fusion: %B has %c but not %h (and not %n).
// CHECK-LABEL: func.func @blocked
// CHECK-NOT: tensor.collapse_shape
// CHECK: te.compute (%n, %c, %h) in [2, 3, 5]
func.func @blocked(%I: tensor<2x3x5xf32>, %B: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %0 = te.compute (%n, %c, %h) in [2, 3, 5] : (tensor<2x3x5xf32>, tensor<3xf32>) -> tensor<2x3x5xf32> {
    %I[%n, %c, %h] + %B[%c]
  }
  func.return %0 : tensor<2x3x5xf32>
}
