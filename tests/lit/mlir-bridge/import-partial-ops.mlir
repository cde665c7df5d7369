// An upstream op rtile does not model, in a dialect it models in part
// (arith.addui_extended), no longer stops the import: it passes through opaquely and the
// linalg op next to it becomes a te.compute.
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(linalg-generalize-named-ops,rtile-import-linalg,cse)" 2>%t.err | FileCheck %s
// RUN: count 0 < %t.err
// CHECK: arith.addui_extended
// CHECK-NOT: linalg.generic
// CHECK: "te.compute"
func.func @f(%a: i32, %b: i32, %x: tensor<4xf32>) -> (i32, tensor<4xf32>) {
  %s, %o = arith.addui_extended %a, %b : i32, i1
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %s, %r : i32, tensor<4xf32>
}
