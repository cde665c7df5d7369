// rtile-run --sim holds an ill-conditioned output to its rounding floor: the f64 oracle
// run again with every te op's operands and result perturbed by f32's unit roundoff
// (Monte Carlo arithmetic). Here a centred row is dotted with weights: on seed 5 the terms
// cancel, and the unfused chain misses the oracle by as much as the fused kernel does.
// RUN: rtile-opt %s --connect="device=v100 connect-level=register" --lower-to-gpu -o %t.fused.mlir
// RUN: rtile-run --sim --check --seed 5 %t.fused.mlir | FileCheck %s
// RUN: rtile-opt %s --connect="device=v100 connect-level=none" --lower-to-gpu -o %t.none.mlir
// RUN: rtile-run --sim --seed 5 %t.none.mlir | FileCheck %s --check-prefix=NONE
// A seed whose terms do not cancel: the output is well-conditioned, no floor is shown.
// RUN: rtile-run --sim --seed 3 %t.fused.mlir | FileCheck %s --check-prefix=WELL

// CHECK: @chain_0: 1 elements, max relative error 3.{{[0-9]+}}e-5, rounding floor {{[0-9.]+}}e-5
// CHECK: @chain output 0: tensor<1x1xf32>, max relative error 3.{{[0-9]+}}e-5, rounding floor
// NONE: @chain: 4 kernels
// NONE: @chain output 0: tensor<1x1xf32>, max relative error 3.{{[0-9]+}}e-5, rounding floor
// WELL: @chain output 0: tensor<1x1xf32>, max relative error {{[0-9.]+e-[0-9]+}}{{$}}

func.func @chain(%X: tensor<1x7xf32>, %w0: tensor<7x5xf32>, %w2: tensor<5x1xf32>) -> tensor<1x1xf32> {
  %v0 = te.compute (%i, %j) reduce (%k) in [1, 5, 7] : (tensor<1x7xf32>, tensor<7x5xf32>) -> tensor<1x5xf32> { te.sum(%X[%i, %k] * %w0[%k, %j]) }
  %r1 = te.compute (%i) reduce (%j) in [1, 5] : (tensor<1x5xf32>) -> tensor<1xf32> { te.sum(%v0[%i, %j]) }
  %v1 = te.compute (%i, %j) in [1, 5] : (tensor<1x5xf32>, tensor<1xf32>) -> tensor<1x5xf32> { %v0[%i, %j] - %r1[%i] * 0.2 }
  %v2 = te.compute (%i, %j) reduce (%k) in [1, 1, 5] : (tensor<1x5xf32>, tensor<5x1xf32>) -> tensor<1x1xf32> { te.sum(%v1[%i, %k] * %w2[%k, %j]) }
  func.return %v2 : tensor<1x1xf32>
}
