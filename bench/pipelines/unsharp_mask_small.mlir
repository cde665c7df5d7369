// unsharp_mask_small: written by gen_pipelines.py (do not edit).
func.func @unsharp(%I: tensor<3x40x48xf32>) -> tensor<3x32x40xf32> {
  %gray = te.compute (%y, %x) in [40, 48] : (tensor<3x40x48xf32>) -> tensor<40x48xf32> { 0.299 * %I[0, %y, %x] + 0.587 * %I[1, %y, %x] + 0.114 * %I[2, %y, %x] }
  %blur_y = te.compute (%y, %x) in [32, 48] : (tensor<40x48xf32>) -> tensor<32x48xf32> { 0.0216 * %gray[%y + 0, %x] + 0.0651 * %gray[%y + 1, %x] + 0.139 * %gray[%y + 2, %x] + 0.2096 * %gray[%y + 3, %x] + 0.2348 * %gray[%y + 4, %x] + 0.2096 * %gray[%y + 5, %x] + 0.139 * %gray[%y + 6, %x] + 0.0651 * %gray[%y + 7, %x] + 0.0216 * %gray[%y + 8, %x] }
  %blur_x = te.compute (%y, %x) in [32, 40] : (tensor<32x48xf32>) -> tensor<32x40xf32> { 0.0216 * %blur_y[%y, %x + 0] + 0.0651 * %blur_y[%y, %x + 1] + 0.139 * %blur_y[%y, %x + 2] + 0.2096 * %blur_y[%y, %x + 3] + 0.2348 * %blur_y[%y, %x + 4] + 0.2096 * %blur_y[%y, %x + 5] + 0.139 * %blur_y[%y, %x + 6] + 0.0651 * %blur_y[%y, %x + 7] + 0.0216 * %blur_y[%y, %x + 8] }
  %sharpen = te.compute (%y, %x) in [32, 40] : (tensor<40x48xf32>, tensor<32x40xf32>) -> tensor<32x40xf32> { 2.0 * %gray[%y + 4, %x + 4] - %blur_x[%y, %x] }
  %ratio = te.compute (%y, %x) in [32, 40] : (tensor<32x40xf32>, tensor<40x48xf32>) -> tensor<32x40xf32> { %sharpen[%y, %x] / (%gray[%y + 4, %x + 4] + 0.001) }
  %out = te.compute (%c, %y, %x) in [3, 32, 40] : (tensor<32x40xf32>, tensor<3x40x48xf32>) -> tensor<3x32x40xf32> { %ratio[%y, %x] * %I[%c, %y + 4, %x + 4] }
  func.return %out : tensor<3x32x40xf32>
}
