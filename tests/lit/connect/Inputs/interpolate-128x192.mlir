// gen_pipelines.interpolate(128, 192, 5) (bench/pipelines/gen_pipelines.py): the pyramid at a size
// where --connect at the register level puts two levels of different shapes in one kernel.
func.func @interpolate(%I: tensor<128x192xf32>) -> tensor<128x192xf32> {
  %d1 = te.compute (%y, %x) in [64, 96] : (tensor<128x192xf32>) -> tensor<64x96xf32> { (%I[%y * 2 + 0, %x * 2 + 0] + %I[%y * 2 + 0, %x * 2 + 1] + %I[%y * 2 + 1, %x * 2 + 0] + %I[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d2 = te.compute (%y, %x) in [32, 48] : (tensor<64x96xf32>) -> tensor<32x48xf32> { (%d1[%y * 2 + 0, %x * 2 + 0] + %d1[%y * 2 + 0, %x * 2 + 1] + %d1[%y * 2 + 1, %x * 2 + 0] + %d1[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d3 = te.compute (%y, %x) in [16, 24] : (tensor<32x48xf32>) -> tensor<16x24xf32> { (%d2[%y * 2 + 0, %x * 2 + 0] + %d2[%y * 2 + 0, %x * 2 + 1] + %d2[%y * 2 + 1, %x * 2 + 0] + %d2[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d4 = te.compute (%y, %x) in [8, 12] : (tensor<16x24xf32>) -> tensor<8x12xf32> { (%d3[%y * 2 + 0, %x * 2 + 0] + %d3[%y * 2 + 0, %x * 2 + 1] + %d3[%y * 2 + 1, %x * 2 + 0] + %d3[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %u3 = te.compute (%y, %x) in [16, 24] : (tensor<16x24xf32>, tensor<8x12xf32>) -> tensor<16x24xf32> { 0.5 * %d3[%y, %x] + 0.5 * %d4[%y floordiv 2, %x floordiv 2] }
  %u2 = te.compute (%y, %x) in [32, 48] : (tensor<32x48xf32>, tensor<16x24xf32>) -> tensor<32x48xf32> { 0.5 * %d2[%y, %x] + 0.5 * %u3[%y floordiv 2, %x floordiv 2] }
  %u1 = te.compute (%y, %x) in [64, 96] : (tensor<64x96xf32>, tensor<32x48xf32>) -> tensor<64x96xf32> { 0.5 * %d1[%y, %x] + 0.5 * %u2[%y floordiv 2, %x floordiv 2] }
  %u0 = te.compute (%y, %x) in [128, 192] : (tensor<128x192xf32>, tensor<64x96xf32>) -> tensor<128x192xf32> { 0.5 * %I[%y, %x] + 0.5 * %u1[%y floordiv 2, %x floordiv 2] }
  func.return %u0 : tensor<128x192xf32>
}

