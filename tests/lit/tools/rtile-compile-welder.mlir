// rtile-compile --scheduler welder: reshapes folded, operators fused by --connect, one
// bundle. A projection reshaped to heads and a per-head softmax numerator with a bias: Roller
// gives one kernel per operator (2 launches, the reshape a view between them); Welder
// fuses the two across the reshape into one kernel, and the bundle's lowered module runs
// in the simulator against the te interpreter.
// REQUIRES: ptxas
// RUN: rm -rf %t && rtile-compile %s --device h100 --scheduler welder -o %t --ptxas %ptxas --quiet | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/kernels.ptx
// RUN: rtile-run --sim %t/lowered.mlir | FileCheck %s --check-prefix=SIM
// RUN: rm -rf %t.roller && rtile-compile %s --device h100 -o %t.roller --quiet | FileCheck %s --check-prefix=ROLLER
// RUN: not rtile-compile %s --scheduler halide -o %t.bad --quiet 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK:      kernel  grid  block  shared B  launches  est us
// CHECK-NEXT: {{[a-z_0-9]+}}  {{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}  {{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}  {{[0-9]+}}  1  -
// CHECK-NEXT: 1 kernels for sm_90
// CHECK-NEXT: @heads: 1 launches, peak intermediate memory 0 bytes, constants 0 bytes
// CHECK-NEXT: stages: import {{.*}}, fold-reshapes {{.*}}, connect {{.*}}, lower-to-gpu {{.*}}, codegen {{.*}}, ptxas
// PTX: .target sm_90
// SIM: @heads: 1 kernels
// SIM: @heads output 0: tensor<2x16x32xf32>, max relative error
// SIM-NOT: error:
// ROLLER: 2 kernels for sm_90, estimated {{[0-9.]+}} us in all
// ROLLER: @heads: 2 launches
// BAD: invalid value 'halide' for '--scheduler <SCHEDULER>'

func.func @heads(%X: tensor<16x64xf32>, %W: tensor<64x64xf32>, %b: tensor<32xf32>) -> tensor<2x16x32xf32> {
  %Q = te.compute (%m, %n) reduce (%k) in [16, 64, 64] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> { te.sum(%X[%m, %k] * %W[%k, %n]) }
  %Qh = tensor.expand_shape %Q [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xf32> into tensor<16x2x32xf32>
  %E = te.compute (%h, %i, %d) in [2, 16, 32] : (tensor<16x2x32xf32>, tensor<32xf32>) -> tensor<2x16x32xf32> { exp(%Qh[%i, %h, %d] + %b[%d]) }
  func.return %E : tensor<2x16x32xf32>
}
