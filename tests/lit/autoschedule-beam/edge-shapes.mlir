// Shapes at the edges of the search space, each searched, lowered and run whole in the
// simulator against the f64 oracle (found running ONNX's node cases through
// `--autoschedule-beam --lower-to-gpu`):
// - @dot reduces to a scalar: a root with no parallel dims runs one thread (its lane
//   order is empty; the features indexed a thread dim it does not have and panicked);
// - @avgpool_3d has extents of 31: a block tile of 32 is clipped to 31, which a serial
//   tile of 2 does not divide; the lowering runs whole thread tiles, so the search prunes
//   such tilings instead of handing the lowering one it refuses.
// RUN: rtile-opt %s --autoschedule-beam=device=h100 --lower-to-gpu | rtile-run --sim | FileCheck %s
// RUN: rtile-opt %s --autoschedule-beam="device=h100 beam-size=1" --lower-to-gpu | rtile-run --sim | FileCheck %s
// RUN: rtile-opt %s --autoschedule-beam=device=v100 --lower-to-gpu | rtile-run --sim | FileCheck %s

// CHECK: @dot output 0: tensor<f32>, max relative error
// CHECK: @avgpool_3d output 0: tensor<1x3x31x31x31xf32>, max relative error
// CHECK-NOT: error:
// CHECK: max relative error

func.func @dot(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %0 = te.compute () reduce (%r0) in [3] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32> {
    te.sum(%a[%r0] * %b[%r0])
  }
  return %0 : tensor<f32>
}

func.func @avgpool_3d(%x: tensor<1x3x32x32x32xf32>) -> tensor<1x3x31x31x31xf32> {
  %0 = te.compute (%d0, %d1, %d2, %d3, %d4) reduce (%r0, %r1, %r2) in [1, 3, 31, 31, 31, 2, 2, 2] : (tensor<1x3x32x32x32xf32>) -> tensor<1x3x31x31x31xf32> {
    te.sum(%x[%d0, %d1, %d2 + %r0, %d3 + %r1, %d4 + %r2])
  }
  %1 = te.compute (%d0, %d1, %d2, %d3, %d4) in [1, 3, 31, 31, 31] : (tensor<1x3x31x31x31xf32>) -> tensor<1x3x31x31x31xf32> {
    %0[%d0, %d1, %d2, %d3, %d4] / 8.0
  }
  return %1 : tensor<1x3x31x31x31xf32>
}
