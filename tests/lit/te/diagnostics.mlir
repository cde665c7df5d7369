// Diagnostics of the custom form point into the body: at the offending access (verifier
// errors about one access) or at the offending expression (body-language errors).
// RUN: not rtile-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:92: error: 'te.compute' op access #1: index 0 ranges over [0, 4] but dimension 0 of tensor<4xf32> has extent 4
func.func @second_access(%A: tensor<5xf32>, %B: tensor<4xf32>) -> tensor<5xf32> {
  %0 = te.compute (%i) in [5] : (tensor<5xf32>, tensor<4xf32>) -> tensor<5xf32> { %A[%i] + %B[%i] }
  func.return %0 : tensor<5xf32>
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 3]]:14: error: unknown function `sinh`
func.func @fn(%A: tensor<4xf32>) -> tensor<4xf32> {
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] + sinh(%A[%i])
  }
  func.return %0 : tensor<4xf32>
}
