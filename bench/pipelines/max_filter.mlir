// max_filter: written by gen_pipelines.py (do not edit).
func.func @max_filter(%I: tensor<3x1536x2560xf32>) -> tensor<3x1484x2508xf32> {
  %vmax = te.compute (%c, %y, %x) reduce (%r) in [3, 1484, 2560, 53] : (tensor<3x1536x2560xf32>) -> tensor<3x1484x2560xf32> { te.max(%I[%c, %y + %r, %x]) }
  %hmax = te.compute (%c, %y, %x) reduce (%r) in [3, 1484, 2508, 53] : (tensor<3x1484x2560xf32>) -> tensor<3x1484x2508xf32> { te.max(%vmax[%c, %y, %x + %r]) }
  func.return %hmax : tensor<3x1484x2508xf32>
}
