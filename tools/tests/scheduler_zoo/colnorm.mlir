// A transposed element-wise sum, its column sums and the columns normalised by them (tools/tests/scheduler_zoo.rs).
func.func @colnorm(%A: tensor<33x19xf32>, %B: tensor<19x33xf32>) -> tensor<19x33xf32> {
  %T = te.compute (%j, %i) in [19, 33] : (tensor<33x19xf32>, tensor<19x33xf32>) -> tensor<19x33xf32> { max(%A[%i, %j] + %B[%j, %i], 0.0) }
  %S = te.compute (%i) reduce (%j) in [33, 19] : (tensor<19x33xf32>) -> tensor<33xf32> { te.sum(%T[%j, %i] + 0.05) }
  %Y = te.compute (%j, %i) in [19, 33] : (tensor<19x33xf32>, tensor<33xf32>) -> tensor<19x33xf32> { %T[%j, %i] / %S[%i] }
  func.return %Y : tensor<19x33xf32>
}
