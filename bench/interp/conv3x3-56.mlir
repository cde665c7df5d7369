// Interpreter benchmark: one 3x3 convolution, 1x64x56x56 to 64 channels, zero padding 1
// (116 M multiply-adds). `time target/release/rtile-run --interpret bench/interp/conv3x3-56.mlir`
func.func @conv(%D: tensor<1x64x56x56xf32>, %K: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 64, 56, 56, 64, 3, 3]
         : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
    te.sum(%D[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %K[%f, %c, %ry, %rx])
  }
  func.return %C : tensor<1x64x56x56xf32>
}
