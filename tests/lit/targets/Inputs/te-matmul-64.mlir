// The te op that Inputs/matmul-tiled.mlir implements by hand: C[64x64] = A[64x32] B[32x64].
func.func @mm(%A: tensor<64x32xf32>, %B: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [64, 64, 32]
         : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<64x64xf32>
}
