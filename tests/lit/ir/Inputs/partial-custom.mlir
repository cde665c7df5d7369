func.func @f() {
  %0 = tensor.empty() : tensor<4xf32>
  return
}
