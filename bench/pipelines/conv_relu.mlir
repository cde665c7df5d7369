// conv_relu: written by gen_pipelines.py (do not edit).
func.func @conv_relu(%I: tensor<5x128x100x80xf32>, %W: tensor<128x128x3x3xf32>, %B: tensor<128xf32>) -> tensor<5x128x98x78xf32> {
  %conv = te.compute (%n, %f, %y, %x) reduce (%c, %r, %s) in [5, 128, 98, 78, 128, 3, 3] : (tensor<5x128x100x80xf32>, tensor<128x128x3x3xf32>) -> tensor<5x128x98x78xf32> { te.sum(%I[%n, %c, %y + %r, %x + %s] * %W[%f, %c, %r, %s]) }
  %relu = te.compute (%n, %f, %y, %x) in [5, 128, 98, 78] : (tensor<5x128x98x78xf32>, tensor<128xf32>) -> tensor<5x128x98x78xf32> { max(%conv[%n, %f, %y, %x] + %B[%f], 0.0) }
  func.return %relu : tensor<5x128x98x78xf32>
}
