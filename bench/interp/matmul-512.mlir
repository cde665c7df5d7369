// Interpreter benchmark: a 512x512x512 f32 matmul (134 M multiply-adds).
// `time target/release/rtile-run --interpret bench/interp/matmul-512.mlir`
func.func @mm(%A: tensor<512x512xf32>, %B: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [512, 512, 512] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<512x512xf32>
}
