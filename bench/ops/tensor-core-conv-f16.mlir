// Full-size convolutions on tensor cores (implicit GEMM, docs/passes/lower-to-gpu.md
// "Convolutions"): Roller Table 1's C0 in f16 with an f32 accumulator — ResNet-50's 3x3
// conv at 28x28, NCHW data, OIHW weights, stride 1, zero padding 1 — and the same conv in
// NHWC/HWIO.

// C0 in f16: D=(128,128,28,28), K=(128,128,3,3), S=1, padding 1: output 128x128x28x28.
// GEMM view: M = 128*28*28 = 100352 pixels, N = 128 filters, K = 128*3*3 = 1152.
func.func @c0_f16(%D: tensor<128x128x28x28xf16>, %K: tensor<128x128x3x3xf16>) -> tensor<128x128x28x28xf16> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [128, 128, 28, 28, 128, 3, 3] acc(f32)
         : (tensor<128x128x28x28xf16>, tensor<128x128x3x3xf16>) -> tensor<128x128x28x28xf16> {
    te.sum(f32(%D[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0) * f32(%K[%f, %c, %ry, %rx]))
  }
  func.return %O : tensor<128x128x28x28xf16>
}

// The same conv channels-last: NHWC data, HWIO weights (K = ry*rx*c), NHWC output.
func.func @c0_nhwc_f16(%D: tensor<128x28x28x128xf16>, %K: tensor<3x3x128x128xf16>) -> tensor<128x28x28x128xf16> {
  %O = te.compute (%n, %y, %x, %f) reduce (%c, %ry, %rx) in [128, 28, 28, 128, 128, 3, 3] acc(f32)
         : (tensor<128x28x28x128xf16>, tensor<3x3x128x128xf16>) -> tensor<128x28x28x128xf16> {
    te.sum(f32(%D[%n, %y + %ry - 1, %x + %rx - 1, %c] pad 0.0) * f32(%K[%ry, %rx, %c, %f]))
  }
  func.return %O : tensor<128x28x28x128xf16>
}
