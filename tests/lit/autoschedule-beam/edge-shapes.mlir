// Shapes at the edges of the search space, each searched, lowered and run whole in the
// simulator against the f64 oracle (found running ONNX's node cases through
// `--autoschedule-beam --lower-to-gpu`):
// - @dot reduces to a scalar: a root with no parallel dims runs one thread (its lane
//   order is empty; the features indexed a thread dim it does not have and panicked);
// - @avgpool_3d has extents of 31: a block tile of 32 is clipped to 31, which a serial
//   tile of 2 does not divide; the lowering runs whole thread tiles, so the search prunes
//   such tilings instead of handing the lowering one it refuses;
// - @se_gate is a squeeze-and-excitation gate: a sigmoid over 1x16 channels broadcast
//   over 7x7 pixels. The read is the identity index but a broadcast, not point-wise, so
//   the gate is not forced inline; it was, the inlined child (49 evaluations per point)
//   was pruned for its recompute (§4.6 rule 1), and no schedule was left.
// RUN: rtile-opt %s --autoschedule-beam=device=h100 --lower-to-gpu | rtile-run --sim | FileCheck %s
// RUN: rtile-opt %s --autoschedule-beam="device=h100 beam-size=1" --lower-to-gpu | rtile-run --sim | FileCheck %s
// RUN: rtile-opt %s --autoschedule-beam=device=v100 --lower-to-gpu | rtile-run --sim | FileCheck %s

// CHECK: @dot output 0: tensor<f32>, max relative error
// CHECK: @avgpool_3d output 0: tensor<1x3x31x31x31xf32>, max relative error
// CHECK: @se_gate output 0: tensor<1x16x7x7xf32>, max relative error
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

func.func @se_gate(%s: tensor<1x16xf32>, %x: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %0 = te.compute (%n, %c) in [1, 16] : (tensor<1x16xf32>) -> tensor<1x16xf32> {
    1.0 / (1.0 + exp(neg(%s[%n, %c])))
  }
  %1 = te.compute (%n, %c, %y, %x) in [1, 16, 7, 7] : (tensor<1x16x7x7xf32>, tensor<1x16xf32>) -> tensor<1x16x7x7xf32> {
    %x[%n, %c, %y, %x] * %0[%n, %c]
  }
  return %1 : tensor<1x16x7x7xf32>
}
