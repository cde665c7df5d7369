// interpolate_small: written by gen_pipelines.py (do not edit).
func.func @interpolate(%I: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %d1 = te.compute (%y, %x) in [32, 32] : (tensor<64x64xf32>) -> tensor<32x32xf32> { (%I[%y * 2 + 0, %x * 2 + 0] + %I[%y * 2 + 0, %x * 2 + 1] + %I[%y * 2 + 1, %x * 2 + 0] + %I[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d2 = te.compute (%y, %x) in [16, 16] : (tensor<32x32xf32>) -> tensor<16x16xf32> { (%d1[%y * 2 + 0, %x * 2 + 0] + %d1[%y * 2 + 0, %x * 2 + 1] + %d1[%y * 2 + 1, %x * 2 + 0] + %d1[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d3 = te.compute (%y, %x) in [8, 8] : (tensor<16x16xf32>) -> tensor<8x8xf32> { (%d2[%y * 2 + 0, %x * 2 + 0] + %d2[%y * 2 + 0, %x * 2 + 1] + %d2[%y * 2 + 1, %x * 2 + 0] + %d2[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %u2 = te.compute (%y, %x) in [16, 16] : (tensor<16x16xf32>, tensor<8x8xf32>) -> tensor<16x16xf32> { 0.5 * %d2[%y, %x] + 0.5 * %d3[%y floordiv 2, %x floordiv 2] }
  %u1 = te.compute (%y, %x) in [32, 32] : (tensor<32x32xf32>, tensor<16x16xf32>) -> tensor<32x32xf32> { 0.5 * %d1[%y, %x] + 0.5 * %u2[%y floordiv 2, %x floordiv 2] }
  %u0 = te.compute (%y, %x) in [64, 64] : (tensor<64x64xf32>, tensor<32x32xf32>) -> tensor<64x64xf32> { 0.5 * %I[%y, %x] + 0.5 * %u1[%y floordiv 2, %x floordiv 2] }
  func.return %u0 : tensor<64x64xf32>
}
