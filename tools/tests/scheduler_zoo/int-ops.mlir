// An i32 matmul and the element-wise max with its transpose (tools/tests/scheduler_zoo.rs).
func.func @int_ops(%X: tensor<40x24xi32>, %Y: tensor<24x40xi32>) -> tensor<40x40xi32> {
  %P = te.compute (%i, %j) reduce (%k) in [40, 40, 24] : (tensor<40x24xi32>, tensor<24x40xi32>) -> tensor<40x40xi32> { te.sum(%X[%i, %k] * %Y[%k, %j]) }
  %Q = te.compute (%i, %j) in [40, 40] : (tensor<40x40xi32>) -> tensor<40x40xi32> { max(%P[%i, %j], %P[%j, %i]) }
  func.return %Q : tensor<40x40xi32>
}
