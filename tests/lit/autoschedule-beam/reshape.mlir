// Tensor reshapes between te computes (ONNX's Reshape, Flatten, Squeeze, Unsqueeze) are
// views that the lowering's host code applies between kernels: the search schedules the
// te computes around them, a reshape's operand computed at root (it leaves the pipeline)
// and its result read from global memory like a function argument. The reshape stays a
// plain op between the kernels. Lowered and run whole in the simulator against the f64
// oracle. (The search used to refuse any function holding a reshape.)
// RUN: rtile-opt %s --autoschedule-beam=device=h100 -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-opt %t.mlir --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --autoschedule-beam="device=v100 beam-size=1" --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: func.func @row_softmax_of_flat
// CHECK: tilegraph.kernel -> (tensor<256xf32>)
// CHECK: exp(%arg0[%i] * 0.5)
// CHECK: tilegraph.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[V:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [16, 16]
// CHECK-NEXT: tilegraph.kernel -> (tensor<16x16xf32>)
// CHECK: te.max(%[[V]][%i, %j])
// CHECK: tilegraph.yield
// CHECK: return

// A reshape of the last compute's result is a view of that kernel's output.
// CHECK-LABEL: func.func @flat_result
// CHECK: %[[K:.*]] = tilegraph.kernel -> (tensor<4x8xf32>)
// CHECK: tensor.collapse_shape %[[K]] {{\[\[}}0, 1]]

// SIM: @row_softmax_of_flat output 0: tensor<16x16xf32>, max relative error
// SIM: @flat_result output 0: tensor<32xf32>, max relative error
// SIM-NOT: error:
// SIM: max relative error

func.func @row_softmax_of_flat(%x: tensor<256xf32>) -> tensor<16x16xf32> {
  %e = te.compute (%i) in [256] : (tensor<256xf32>) -> tensor<256xf32> { exp(%x[%i] * 0.5) }
  %v = tensor.expand_shape %e [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %m = te.compute (%i) reduce (%j) in [16, 16] : (tensor<16x16xf32>) -> tensor<16xf32> { te.max(%v[%i, %j]) }
  %s = te.compute (%i) reduce (%j) in [16, 16] : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16xf32> { te.sum(exp(%v[%i, %j] - %m[%i])) }
  %o = te.compute (%i, %j) in [16, 16] : (tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16x16xf32> { exp(%v[%i, %j] - %m[%i]) / %s[%i] }
  func.return %o : tensor<16x16xf32>
}

func.func @flat_result(%I: tensor<4x8xf32>) -> tensor<32xf32> {
  %A = te.compute (%y, %x) in [4, 8] : (tensor<4x8xf32>) -> tensor<4x8xf32> { %I[%y, %x] * 2.0 }
  %B = tensor.collapse_shape %A [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  func.return %B : tensor<32xf32>
}
