// A MobileNetV2 inverted-residual block at simulator size (expand 1x1 8 -> 48, 3x3
// depthwise with zero padding, project 1x1 48 -> 8, on a 16x16 map; the same te ops as
// tests/lit/connect/mobilenet-block.mlir, which has the paper's 112x112 and 14x14 sizes):
// the Welder ablation in PERF.md runs it at connect-level none / register / shared.
func.func @mobilenet_block(%I: tensor<1x8x16x16xf32>, %W1: tensor<48x8xf32>, %K: tensor<48x3x3xf32>, %W2: tensor<8x48xf32>) -> tensor<1x8x16x16xf32> {
  %P = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 48, 16, 16, 8] : (tensor<1x8x16x16xf32>, tensor<48x8xf32>) -> tensor<1x48x16x16xf32> { te.sum(%I[%n, %c, %y, %x] * %W1[%f, %c]) }
  %D = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 48, 16, 16, 3, 3] : (tensor<1x48x16x16xf32>, tensor<48x3x3xf32>) -> tensor<1x48x16x16xf32> { te.sum(%P[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %K[%c, %ry, %rx]) }
  %Q = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 8, 16, 16, 48] : (tensor<1x48x16x16xf32>, tensor<8x48xf32>) -> tensor<1x8x16x16xf32> { te.sum(%D[%n, %c, %y, %x] * %W2[%f, %c]) }
  func.return %Q : tensor<1x8x16x16xf32>
}
