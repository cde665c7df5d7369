func.func @r(%I: tensor<4x8xf32>) -> tensor<32xf32> {
  %A = te.compute (%y, %x) in [4, 8] : (tensor<4x8xf32>) -> tensor<4x8xf32> { %I[%y, %x] * 2.0 }
  %B = tensor.collapse_shape %A [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  func.return %B : tensor<32xf32>
}
