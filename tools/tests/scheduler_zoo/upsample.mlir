// A relu read by a 3x3 conv through a nearest 2x upsample ((y + ry - 1) floordiv 2) (tools/tests/scheduler_zoo.rs).
func.func @upsample(%X: tensor<1x8x15x15xf32>, %W: tensor<8x8x3x3xf32>) -> tensor<1x8x30x30xf32> {
  %A = te.compute (%n, %c, %y, %x) in [1, 8, 15, 15] : (tensor<1x8x15x15xf32>) -> tensor<1x8x15x15xf32> { max(%X[%n, %c, %y, %x], 0.0) }
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 8, 30, 30, 8, 3, 3] : (tensor<1x8x15x15xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x30x30xf32> { te.sum(%A[%n, %c, (%y + %ry - 1) floordiv 2, (%x + %rx - 1) floordiv 2] pad 0.0 * %W[%f, %c, %ry, %rx]) }
  func.return %C : tensor<1x8x30x30xf32>
}
