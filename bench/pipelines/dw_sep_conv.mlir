// dw_sep_conv: written by gen_pipelines.py (do not edit).
func.func @dw_sep_conv(%I: tensor<4x32x112x112xf32>, %D: tensor<32x3x3xf32>, %P: tensor<16x32xf32>) -> tensor<4x16x110x110xf32> {
  %dw = te.compute (%n, %c, %y, %x) reduce (%r, %s) in [4, 32, 110, 110, 3, 3] : (tensor<4x32x112x112xf32>, tensor<32x3x3xf32>) -> tensor<4x32x110x110xf32> { te.sum(%I[%n, %c, %y + %r, %x + %s] * %D[%c, %r, %s]) }
  %pw = te.compute (%n, %f, %y, %x) reduce (%c) in [4, 16, 110, 110, 32] : (tensor<4x32x110x110xf32>, tensor<16x32xf32>) -> tensor<4x16x110x110xf32> { te.sum(%dw[%n, %c, %y, %x] * %P[%f, %c]) }
  func.return %pw : tensor<4x16x110x110xf32>
}
