// A dilation-2 3x3 conv, a leaky relu (select), a 1x1 conv (tools/tests/scheduler_zoo.rs).
func.func @dilated(%X: tensor<1x4x20x20xf32>, %W: tensor<6x4x3x3xf32>, %V: tensor<6x6x1x1xf32>) -> tensor<1x6x16x16xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 6, 16, 16, 4, 3, 3] : (tensor<1x4x20x20xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x16x16xf32> { te.sum(%X[%n, %c, %y + 2 * %ry, %x + 2 * %rx] * %W[%f, %c, %ry, %rx]) }
  %R = te.compute (%n, %c, %y, %x) in [1, 6, 16, 16] : (tensor<1x6x16x16xf32>) -> tensor<1x6x16x16xf32> { select(%C[%n, %c, %y, %x] > 0.0, %C[%n, %c, %y, %x], %C[%n, %c, %y, %x] * 0.01) }
  %D = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 6, 16, 16, 6] : (tensor<1x6x16x16xf32>, tensor<6x6x1x1xf32>) -> tensor<1x6x16x16xf32> { te.sum(%R[%n, %c, %y, %x] * %V[%f, %c, 0, 0]) }
  func.return %D : tensor<1x6x16x16xf32>
}
