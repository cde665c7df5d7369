// sgemm: written by gen_pipelines.py (do not edit).
func.func @sgemm(%A: tensor<1024x1024xf32>, %B: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %C = te.compute (%i, %j) reduce (%k) in [1024, 1024, 1024] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> { te.sum(%A[%i, %k] * %B[%k, %j]) }
  func.return %C : tensor<1024x1024xf32>
}
