// conv_relu_small: written by gen_pipelines.py (do not edit).
func.func @conv_relu(%I: tensor<1x8x18x14xf32>, %W: tensor<8x8x3x3xf32>, %B: tensor<8xf32>) -> tensor<1x8x16x12xf32> {
  %conv = te.compute (%n, %f, %y, %x) reduce (%c, %r, %s) in [1, 8, 16, 12, 8, 3, 3] : (tensor<1x8x18x14xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x12xf32> { te.sum(%I[%n, %c, %y + %r, %x + %s] * %W[%f, %c, %r, %s]) }
  %relu = te.compute (%n, %f, %y, %x) in [1, 8, 16, 12] : (tensor<1x8x16x12xf32>, tensor<8xf32>) -> tensor<1x8x16x12xf32> { max(%conv[%n, %f, %y, %x] + %B[%f], 0.0) }
  func.return %relu : tensor<1x8x16x12xf32>
}
