// MobileNetV2's downsampling block at an odd map (15x15): expand, ReLU6, stride-2 depthwise, ReLU6, project (tools/tests/scheduler_zoo.rs).
func.func @dw_stride2(%I: tensor<1x6x15x15xf32>, %W1: tensor<18x6xf32>, %K: tensor<18x3x3xf32>, %W2: tensor<10x18xf32>) -> tensor<1x10x8x8xf32> {
  %P = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 18, 15, 15, 6] : (tensor<1x6x15x15xf32>, tensor<18x6xf32>) -> tensor<1x18x15x15xf32> { te.sum(%I[%n, %c, %y, %x] * %W1[%f, %c]) }
  %A = te.compute (%n, %c, %y, %x) in [1, 18, 15, 15] : (tensor<1x18x15x15xf32>) -> tensor<1x18x15x15xf32> { min(max(%P[%n, %c, %y, %x], 0.0), 6.0) }
  %D = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 18, 8, 8, 3, 3] : (tensor<1x18x15x15xf32>, tensor<18x3x3xf32>) -> tensor<1x18x8x8xf32> { te.sum(%A[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad 0.0 * %K[%c, %ry, %rx]) }
  %E = te.compute (%n, %c, %y, %x) in [1, 18, 8, 8] : (tensor<1x18x8x8xf32>) -> tensor<1x18x8x8xf32> { min(max(%D[%n, %c, %y, %x], 0.0), 6.0) }
  %Q = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 10, 8, 8, 18] : (tensor<1x18x8x8xf32>, tensor<10x18xf32>) -> tensor<1x10x8x8xf32> { te.sum(%E[%n, %c, %y, %x] * %W2[%f, %c]) }
  func.return %Q : tensor<1x10x8x8xf32>
}
