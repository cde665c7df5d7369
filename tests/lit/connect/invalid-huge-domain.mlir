// Found by fuzz/pass_pipelines: a matmul of 2^62 rows overflowed the 64-bit traffic
// counts of --connect (connect/model.rs) and the fused extents of --axis-fusion, a
// panic. Such a domain is now refused by the te.compute verifier, before any pass.
// RUN: not rtile-opt %s --connect=device=v100 2>&1 | FileCheck %s
// RUN: not rtile-opt %s --axis-fusion 2>&1 | FileCheck %s
// CHECK-NOT: internal error
// CHECK: error: 'te.compute' op the iteration domain has more than 2^48 points, the most rtile's passes model
// CHECK-NOT: internal error
func.func @f(%A: tensor<4611686018427387904x2xf32>, %B: tensor<2x2xf32>) -> tensor<4611686018427387904x2xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [4611686018427387904, 2, 2] : (tensor<4611686018427387904x2xf32>, tensor<2x2xf32>) -> tensor<4611686018427387904x2xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<4611686018427387904x2xf32>
}
