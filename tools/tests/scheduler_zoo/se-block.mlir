// Squeeze-and-excitation: global average pool, two FCs, a sigmoid gate broadcast over 7x7 pixels (tools/tests/scheduler_zoo.rs).
func.func @se_block(%X: tensor<1x16x7x7xf32>, %W1: tensor<4x16xf32>, %W2: tensor<16x4xf32>) -> tensor<1x16x7x7xf32> {
  %P = te.compute (%n, %c) reduce (%y, %x) in [1, 16, 7, 7] : (tensor<1x16x7x7xf32>) -> tensor<1x16xf32> { te.sum(%X[%n, %c, %y, %x] / 49.0) }
  %F1 = te.compute (%n, %j) reduce (%c) in [1, 4, 16] : (tensor<1x16xf32>, tensor<4x16xf32>) -> tensor<1x4xf32> { te.sum(%P[%n, %c] * %W1[%j, %c]) }
  %F2 = te.compute (%n, %c) reduce (%j) in [1, 16, 4] : (tensor<1x4xf32>, tensor<16x4xf32>) -> tensor<1x16xf32> { te.sum(%F1[%n, %j] * %W2[%c, %j]) }
  %S = te.compute (%n, %c) in [1, 16] : (tensor<1x16xf32>) -> tensor<1x16xf32> { 1.0 / (1.0 + exp(neg(max(%F2[%n, %c], -30.0)))) }
  %Y = te.compute (%n, %c, %y, %x) in [1, 16, 7, 7] : (tensor<1x16x7x7xf32>, tensor<1x16xf32>) -> tensor<1x16x7x7xf32> { %X[%n, %c, %y, %x] * %S[%n, %c] }
  func.return %Y : tensor<1x16x7x7xf32>
}
