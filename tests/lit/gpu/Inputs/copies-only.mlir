// Functions without a te.compute whose results --lower-to-gpu copies (host gpu.memcpy
// only, no kernel): a model of views only, and one the ONNX importer folds into a constant.
func.func @views_only(%A: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>, tensor<2x3xf32>) {
  %F = tensor.collapse_shape %A [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %E = tensor.expand_shape %F [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  return %F, %E, %A : tensor<6xf32>, tensor<3x2xf32>, tensor<2x3xf32>
}

func.func @folded() -> tensor<2x2xi8> {
  %W = "arith.constant"() <{value = dense<[[1, -2], [3, 127]]> : tensor<2x2xi8>}> : () -> tensor<2x2xi8>
  return %W : tensor<2x2xi8>
}
