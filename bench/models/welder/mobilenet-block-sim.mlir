// A MobileNetV2 inverted-residual block at simulator size (expand 1x1 8 -> 48 + bias +
// ReLU6, 3x3 depthwise with zero padding + bias + ReLU6, project 1x1 48 -> 8 + bias, plus
// the residual, on a 16x16 map; mobilenet-block-112.mlir is the paper's size): the Welder
// ablation in PERF.md runs it at connect-level none / register / shared.
func.func @mobilenet_block(%I: tensor<1x8x16x16xf32>, %W1: tensor<48x8xf32>, %b1: tensor<48xf32>, %K: tensor<48x3x3xf32>, %b2: tensor<48xf32>, %W2: tensor<8x48xf32>, %b3: tensor<8xf32>) -> tensor<1x8x16x16xf32> {
  %P = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 48, 16, 16, 8] : (tensor<1x8x16x16xf32>, tensor<48x8xf32>) -> tensor<1x48x16x16xf32> { te.sum(%I[%n, %c, %y, %x] * %W1[%f, %c]) }
  %A = te.compute (%n, %c, %y, %x) in [1, 48, 16, 16] : (tensor<1x48x16x16xf32>, tensor<48xf32>) -> tensor<1x48x16x16xf32> { min(max(%P[%n, %c, %y, %x] + %b1[%c], 0.0), 6.0) }
  %D = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 48, 16, 16, 3, 3] : (tensor<1x48x16x16xf32>, tensor<48x3x3xf32>) -> tensor<1x48x16x16xf32> { te.sum(%A[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %K[%c, %ry, %rx]) }
  %E = te.compute (%n, %c, %y, %x) in [1, 48, 16, 16] : (tensor<1x48x16x16xf32>, tensor<48xf32>) -> tensor<1x48x16x16xf32> { min(max(%D[%n, %c, %y, %x] + %b2[%c], 0.0), 6.0) }
  %Q = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 8, 16, 16, 48] : (tensor<1x48x16x16xf32>, tensor<8x48xf32>) -> tensor<1x8x16x16xf32> { te.sum(%E[%n, %c, %y, %x] * %W2[%f, %c]) }
  %Y = te.compute (%n, %c, %y, %x) in [1, 8, 16, 16] : (tensor<1x8x16x16xf32>, tensor<8xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> { %Q[%n, %c, %y, %x] + %b3[%c] + %I[%n, %c, %y, %x] }
  func.return %Y : tensor<1x8x16x16xf32>
}
