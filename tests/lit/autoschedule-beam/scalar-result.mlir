// A rank-0 result (a whole-tensor reduction, a scalar map): --autoschedule-beam indexed
// the vector dim of its (empty) thread tiling and panicked (features.rs lane_order,
// found while fuzzing the passes). It is one thread of one block now.
// RUN: rtile-opt %s --split-input-file --autoschedule-beam="device=v100 beam-size=2" 2>&1 | FileCheck %s
// RUN: rtile-opt %s --split-input-file --autoschedule-beam="device=v100 beam-size=2" --lower-to-gpu 2>&1 | FileCheck %s --check-prefix=GPU
// CHECK-NOT: internal error
// GPU-NOT: internal error

// CHECK-LABEL: func.func @sum_all
// CHECK: tilegraph.kernel -> (tensor<f32>)
// CHECK: beam.tiling = {blocks = array<i64>, serial = array<i64>, threads = array<i64>}
// GPU: gpu.func @sum_all_0(%{{.*}}: memref<7x9xf32>, %{{.*}}: memref<f32>)
// GPU-SAME: grid = array<i32: 1, 1, 1>
func.func @sum_all(%A: tensor<7x9xf32>) -> tensor<f32> {
  %C = te.compute () reduce (%i, %j) in [7, 9] : (tensor<7x9xf32>) -> tensor<f32> { te.sum(%A[%i, %j]) }
  return %C : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @scalar
// CHECK: tilegraph.kernel -> (tensor<f32>)
// GPU: gpu.func @scalar_0
func.func @scalar(%A: tensor<f32>) -> tensor<f32> {
  %C = te.compute () in [] : (tensor<f32>) -> tensor<f32> { %A[] * 2.0 }
  return %C : tensor<f32>
}
