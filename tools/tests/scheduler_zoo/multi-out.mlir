// Log-softmax and softmax of one input, two results (tools/tests/scheduler_zoo.rs).
func.func @multi_out(%X: tensor<50x70xf32>) -> (tensor<50xf32>, tensor<50x70xf32>) {
  %M = te.compute (%i) reduce (%j) in [50, 70] : (tensor<50x70xf32>) -> tensor<50xf32> { te.max(%X[%i, %j]) }
  %E = te.compute (%i, %j) in [50, 70] : (tensor<50x70xf32>, tensor<50xf32>) -> tensor<50x70xf32> { exp(%X[%i, %j] - %M[%i]) }
  %S = te.compute (%i) reduce (%j) in [50, 70] : (tensor<50x70xf32>) -> tensor<50xf32> { te.sum(%E[%i, %j]) }
  %L = te.compute (%i) in [50] : (tensor<50xf32>, tensor<50xf32>) -> tensor<50xf32> { log(%S[%i]) + %M[%i] }
  %P = te.compute (%i, %j) in [50, 70] : (tensor<50x70xf32>, tensor<50xf32>) -> tensor<50x70xf32> { %E[%i, %j] / %S[%i] }
  func.return %L, %P : tensor<50xf32>, tensor<50x70xf32>
}
