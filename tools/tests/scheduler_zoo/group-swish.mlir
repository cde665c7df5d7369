// A grouped (2 groups), dilated 3x3 conv read through 'f floordiv 6 * 4 + c', then swish (tools/tests/scheduler_zoo.rs).
func.func @group_swish(%X: tensor<1x8x10x10xf32>, %W: tensor<12x4x3x3xf32>, %b: tensor<12xf32>) -> tensor<1x12x10x10xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 12, 10, 10, 4, 3, 3] : (tensor<1x8x10x10xf32>, tensor<12x4x3x3xf32>) -> tensor<1x12x10x10xf32> { te.sum(%X[%n, %f floordiv 6 * 4 + %c, %y + 2 * %ry - 2, %x + 2 * %rx - 2] pad 0.0 * %W[%f, %c, %ry, %rx]) }
  %Z = te.compute (%n, %c, %y, %x) in [1, 12, 10, 10] : (tensor<1x12x10x10xf32>, tensor<12xf32>) -> tensor<1x12x10x10xf32> { (%C[%n, %c, %y, %x] + %b[%c]) / (1.0 + exp(neg(%C[%n, %c, %y, %x] + %b[%c]))) }
  func.return %Z : tensor<1x12x10x10xf32>
}
