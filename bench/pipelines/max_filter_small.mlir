// max_filter_small: written by gen_pipelines.py (do not edit).
func.func @max_filter(%I: tensor<3x40x48xf32>) -> tensor<3x34x42xf32> {
  %vmax = te.compute (%c, %y, %x) reduce (%r) in [3, 34, 48, 7] : (tensor<3x40x48xf32>) -> tensor<3x34x48xf32> { te.max(%I[%c, %y + %r, %x]) }
  %hmax = te.compute (%c, %y, %x) reduce (%r) in [3, 34, 42, 7] : (tensor<3x34x48xf32>) -> tensor<3x34x42xf32> { te.max(%vmax[%c, %y, %x + %r]) }
  func.return %hmax : tensor<3x34x42xf32>
}
