// abs of a spatially reversed input (32 - y), then a 3x3 stride-3 average pool (tools/tests/scheduler_zoo.rs).
func.func @reverse_pool(%X: tensor<2x5x33x31xf32>) -> tensor<2x5x11x10xf32> {
  %R = te.compute (%n, %c, %y, %x) in [2, 5, 33, 31] : (tensor<2x5x33x31xf32>) -> tensor<2x5x33x31xf32> { abs(%X[%n, %c, 32 - %y, 30 - %x]) }
  %A = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [2, 5, 11, 10, 3, 3] : (tensor<2x5x33x31xf32>) -> tensor<2x5x11x10xf32> { te.sum(%R[%n, %c, %y * 3 + %ry, %x * 3 + %rx] * 0.1111) }
  func.return %A : tensor<2x5x11x10xf32>
}
