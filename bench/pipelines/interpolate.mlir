// interpolate: written by gen_pipelines.py (do not edit).
func.func @interpolate(%I: tensor<1536x2560xf32>) -> tensor<1536x2560xf32> {
  %d1 = te.compute (%y, %x) in [768, 1280] : (tensor<1536x2560xf32>) -> tensor<768x1280xf32> { (%I[%y * 2 + 0, %x * 2 + 0] + %I[%y * 2 + 0, %x * 2 + 1] + %I[%y * 2 + 1, %x * 2 + 0] + %I[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d2 = te.compute (%y, %x) in [384, 640] : (tensor<768x1280xf32>) -> tensor<384x640xf32> { (%d1[%y * 2 + 0, %x * 2 + 0] + %d1[%y * 2 + 0, %x * 2 + 1] + %d1[%y * 2 + 1, %x * 2 + 0] + %d1[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d3 = te.compute (%y, %x) in [192, 320] : (tensor<384x640xf32>) -> tensor<192x320xf32> { (%d2[%y * 2 + 0, %x * 2 + 0] + %d2[%y * 2 + 0, %x * 2 + 1] + %d2[%y * 2 + 1, %x * 2 + 0] + %d2[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d4 = te.compute (%y, %x) in [96, 160] : (tensor<192x320xf32>) -> tensor<96x160xf32> { (%d3[%y * 2 + 0, %x * 2 + 0] + %d3[%y * 2 + 0, %x * 2 + 1] + %d3[%y * 2 + 1, %x * 2 + 0] + %d3[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d5 = te.compute (%y, %x) in [48, 80] : (tensor<96x160xf32>) -> tensor<48x80xf32> { (%d4[%y * 2 + 0, %x * 2 + 0] + %d4[%y * 2 + 0, %x * 2 + 1] + %d4[%y * 2 + 1, %x * 2 + 0] + %d4[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d6 = te.compute (%y, %x) in [24, 40] : (tensor<48x80xf32>) -> tensor<24x40xf32> { (%d5[%y * 2 + 0, %x * 2 + 0] + %d5[%y * 2 + 0, %x * 2 + 1] + %d5[%y * 2 + 1, %x * 2 + 0] + %d5[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d7 = te.compute (%y, %x) in [12, 20] : (tensor<24x40xf32>) -> tensor<12x20xf32> { (%d6[%y * 2 + 0, %x * 2 + 0] + %d6[%y * 2 + 0, %x * 2 + 1] + %d6[%y * 2 + 1, %x * 2 + 0] + %d6[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d8 = te.compute (%y, %x) in [6, 10] : (tensor<12x20xf32>) -> tensor<6x10xf32> { (%d7[%y * 2 + 0, %x * 2 + 0] + %d7[%y * 2 + 0, %x * 2 + 1] + %d7[%y * 2 + 1, %x * 2 + 0] + %d7[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %d9 = te.compute (%y, %x) in [3, 5] : (tensor<6x10xf32>) -> tensor<3x5xf32> { (%d8[%y * 2 + 0, %x * 2 + 0] + %d8[%y * 2 + 0, %x * 2 + 1] + %d8[%y * 2 + 1, %x * 2 + 0] + %d8[%y * 2 + 1, %x * 2 + 1]) * 0.25 }
  %u8 = te.compute (%y, %x) in [6, 10] : (tensor<6x10xf32>, tensor<3x5xf32>) -> tensor<6x10xf32> { 0.5 * %d8[%y, %x] + 0.5 * %d9[%y floordiv 2, %x floordiv 2] }
  %u7 = te.compute (%y, %x) in [12, 20] : (tensor<12x20xf32>, tensor<6x10xf32>) -> tensor<12x20xf32> { 0.5 * %d7[%y, %x] + 0.5 * %u8[%y floordiv 2, %x floordiv 2] }
  %u6 = te.compute (%y, %x) in [24, 40] : (tensor<24x40xf32>, tensor<12x20xf32>) -> tensor<24x40xf32> { 0.5 * %d6[%y, %x] + 0.5 * %u7[%y floordiv 2, %x floordiv 2] }
  %u5 = te.compute (%y, %x) in [48, 80] : (tensor<48x80xf32>, tensor<24x40xf32>) -> tensor<48x80xf32> { 0.5 * %d5[%y, %x] + 0.5 * %u6[%y floordiv 2, %x floordiv 2] }
  %u4 = te.compute (%y, %x) in [96, 160] : (tensor<96x160xf32>, tensor<48x80xf32>) -> tensor<96x160xf32> { 0.5 * %d4[%y, %x] + 0.5 * %u5[%y floordiv 2, %x floordiv 2] }
  %u3 = te.compute (%y, %x) in [192, 320] : (tensor<192x320xf32>, tensor<96x160xf32>) -> tensor<192x320xf32> { 0.5 * %d3[%y, %x] + 0.5 * %u4[%y floordiv 2, %x floordiv 2] }
  %u2 = te.compute (%y, %x) in [384, 640] : (tensor<384x640xf32>, tensor<192x320xf32>) -> tensor<384x640xf32> { 0.5 * %d2[%y, %x] + 0.5 * %u3[%y floordiv 2, %x floordiv 2] }
  %u1 = te.compute (%y, %x) in [768, 1280] : (tensor<768x1280xf32>, tensor<384x640xf32>) -> tensor<768x1280xf32> { 0.5 * %d1[%y, %x] + 0.5 * %u2[%y floordiv 2, %x floordiv 2] }
  %u0 = te.compute (%y, %x) in [1536, 2560] : (tensor<1536x2560xf32>, tensor<768x1280xf32>) -> tensor<1536x2560xf32> { 0.5 * %I[%y, %x] + 0.5 * %u1[%y floordiv 2, %x floordiv 2] }
  func.return %u0 : tensor<1536x2560xf32>
}
