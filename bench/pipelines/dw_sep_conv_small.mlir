// dw_sep_conv_small: written by gen_pipelines.py (do not edit).
func.func @dw_sep_conv(%I: tensor<1x8x18x18xf32>, %D: tensor<8x3x3xf32>, %P: tensor<4x8xf32>) -> tensor<1x4x16x16xf32> {
  %dw = te.compute (%n, %c, %y, %x) reduce (%r, %s) in [1, 8, 16, 16, 3, 3] : (tensor<1x8x18x18xf32>, tensor<8x3x3xf32>) -> tensor<1x8x16x16xf32> { te.sum(%I[%n, %c, %y + %r, %x + %s] * %D[%c, %r, %s]) }
  %pw = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 4, 16, 16, 8] : (tensor<1x8x16x16xf32>, tensor<4x8xf32>) -> tensor<1x4x16x16xf32> { te.sum(%dw[%n, %c, %y, %x] * %P[%f, %c]) }
  func.return %pw : tensor<1x4x16x16xf32>
}
