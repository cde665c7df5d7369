// sgemm_small: written by gen_pipelines.py (do not edit).
func.func @sgemm(%A: tensor<64x32xf32>, %B: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %C = te.compute (%i, %j) reduce (%k) in [64, 48, 32] : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32> { te.sum(%A[%i, %k] * %B[%k, %j]) }
  func.return %C : tensor<64x48xf32>
}
