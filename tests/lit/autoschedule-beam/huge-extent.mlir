// Found while fuzzing the passes: on a 2^40-row matmul, --autoschedule-beam walked every
// one of its 2^33 thread blocks to find the few outside the interior run (edges.rs
// dim_kinds) and did not finish; it now answers at once (no placement fits the device).
// RUN: not rtile-opt %s --autoschedule-beam="device=v100 beam-size=2" 2>&1 | FileCheck %s
// CHECK-NOT: internal error
// CHECK: error: autoschedule-beam: every placement of stage 1 is pruned
func.func @f(%A: tensor<1099511627776x1xf32>, %B: tensor<1x1xf32>) -> tensor<1099511627776x1xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [1099511627776, 1, 1] : (tensor<1099511627776x1xf32>, tensor<1x1xf32>) -> tensor<1099511627776x1xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<1099511627776x1xf32>
}
