// A reshape between te ops (what ONNX's Reshape, Flatten, Squeeze and Unsqueeze import as)
// is a view: `--lower-to-gpu` lowers it as a view of its operand's buffer between kernels
// and has no stage for it inside a fused kernel. So `--connect` keeps reshapes out of
// kernels (an edge into or out of one stays global, the reason printed on the decision)
// and leaves a reshape that is alone a plain op, not a kernel. The result lowers and runs
// whole in the simulator against the f64 oracle. (Kernels holding a reshape used to be
// built and then refused by the lowering.)
// RUN: rtile-opt %s --connect=device=h100 -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-opt %t.mlir --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --connect="device=v100 connect-level=register" --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: func.func @row_softmax_of_flat
// CHECK: tilegraph.kernel -> (tensor<256xf32>)
// CHECK: tilegraph.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[V:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [16, 16]
// CHECK-NOT: tilegraph
// CHECK-NEXT: tilegraph.kernel -> (tensor<16x16xf32>)
// CHECK: te.max(%[[V]][%i, %j])
// CHECK-NEXT: } {tilegraph.connect = ["global"], tilegraph.decisions = [{chosen = "global", global = {{.*}}, register = "the kernel would hold a tensor reshape, which --lower-to-gpu does not lower inside a fused kernel", shared = "the kernel would hold a tensor reshape, which --lower-to-gpu does not lower inside a fused kernel"}]
// CHECK: te.sum
// CHECK: tilegraph.yield
// CHECK: return

// SIM: @row_softmax_of_flat output 0: tensor<16x16xf32>, max relative error
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
