// Fusing across reshapes: attention heads written as ONNX imports them (projections, a
// Reshape to [s, heads, d], QKᵀ per head, exp, a Transpose and a Reshape back, the output
// projection). Alone, --connect keeps every reshape between kernels (4 kernels);
// --fold-reshapes first reads each reshape through its index map, and --connect then
// connects the edges it crossed in shared memory and registers: one kernel, simulated
// against the f64 oracle.
// RUN: rtile-opt %s --connect=device=h100 | FileCheck %s --check-prefix=ALONE
// RUN: rtile-opt %s --fold-reshapes --connect=device=h100 -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-opt %t.mlir --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --connect=device=h100 --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM4

// ALONE-COUNT-4: tilegraph.kernel ->
// ALONE-NOT: tilegraph.kernel ->

// CHECK-LABEL: func.func @heads
// CHECK-NOT: tensor.expand_shape
// CHECK: tilegraph.kernel -> (tensor<16x64xf32>)
// CHECK: %[[Q:.*]] = te.compute
// CHECK: %[[K:.*]] = te.compute
// CHECK: te.sum(%[[Q]][%i, %h * 32 + %d] * %[[K]][%j, %h * 32 + %d])
// CHECK: tilegraph.connect = ["shared", "shared"]
// CHECK: tilegraph.connect = ["register"]
// CHECK: te.sum(%{{.*}}[%m, %k floordiv 16, %k mod 16] * %arg3[%k, %n])
// CHECK: tilegraph.connect = ["shared", "global"]
// CHECK-NOT: tilegraph.kernel ->

// SIM: @heads: 1 kernels
// SIM: @heads output 0: tensor<16x64xf32>, max relative error
// SIM-NOT: error:
// SIM4: @heads: 4 kernels

func.func @heads(%X: tensor<16x64xf32>, %Wq: tensor<64x64xf32>, %Wk: tensor<64x64xf32>, %Wo: tensor<32x64xf32>) -> tensor<16x64xf32> {
  %Q = te.compute (%m, %n) reduce (%k) in [16, 64, 64] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> { te.sum(%X[%m, %k] * %Wq[%k, %n]) }
  %K = te.compute (%m, %n) reduce (%k) in [16, 64, 64] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> { te.sum(%X[%m, %k] * %Wk[%k, %n]) }
  %Qh = tensor.expand_shape %Q [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xf32> into tensor<16x2x32xf32>
  %Kh = tensor.expand_shape %K [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xf32> into tensor<16x2x32xf32>
  %S = te.compute (%h, %i, %j) reduce (%d) in [2, 16, 16, 32] : (tensor<16x2x32xf32>, tensor<16x2x32xf32>) -> tensor<2x16x16xf32> { te.sum(%Qh[%i, %h, %d] * %Kh[%j, %h, %d]) }
  %E = te.compute (%h, %i, %j) in [2, 16, 16] : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32> { exp(%S[%h, %i, %j] * 0.125) }
  %C = te.compute (%i, %h, %j) in [16, 2, 16] : (tensor<2x16x16xf32>) -> tensor<16x2x16xf32> { %E[%h, %i, %j] }
  %Cf = tensor.collapse_shape %C [[0], [1, 2]] : tensor<16x2x16xf32> into tensor<16x32xf32>
  %O = te.compute (%m, %n) reduce (%k) in [16, 64, 32] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32> { te.sum(%Cf[%m, %k] * %Wo[%k, %n]) }
  func.return %O : tensor<16x64xf32>
}
