// A module with something rtile cannot read (here string dense elements) passes through
// rtile-import-linalg unchanged, with a remark; the pipeline goes on.
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(linalg-generalize-named-ops,rtile-import-linalg,cse)" 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.err
// REMARK: remark: module left unchanged by rtile-import-linalg: {{.*}}expected hex string of dense elements
// CHECK: arith.addui_extended
// CHECK: linalg.generic
func.func @f(%a: i32, %b: i32, %x: tensor<4xf32>) -> (i32, tensor<4xf32>) attributes {test.s = dense<["a", "b"]> : tensor<2x!foo.str>} {
  %s, %o = arith.addui_extended %a, %b : i32, i1
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %s, %r : i32, tensor<4xf32>
}
