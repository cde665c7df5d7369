// A conv, bias and relu, then a 3x3 stride-2 max pool with -1e30 padding, at 17x17 (tools/tests/scheduler_zoo.rs).
func.func @stem_pool(%X: tensor<1x3x17x17xf32>, %W: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x9x9xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 8, 17, 17, 3, 3, 3] : (tensor<1x3x17x17xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x17x17xf32> { te.sum(%X[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %W[%f, %c, %ry, %rx]) }
  %R = te.compute (%n, %c, %y, %x) in [1, 8, 17, 17] : (tensor<1x8x17x17xf32>, tensor<8xf32>) -> tensor<1x8x17x17xf32> { max(%C[%n, %c, %y, %x] + %b[%c], 0.0) }
  %M = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 8, 9, 9, 3, 3] : (tensor<1x8x17x17xf32>) -> tensor<1x8x9x9xf32> { te.max(%R[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad -1.0e30) }
  func.return %M : tensor<1x8x9x9xf32>
}
