// 1-element and 3-element axes: a broadcast scale, a row min, a subtraction (tools/tests/scheduler_zoo.rs).
func.func @tiny(%a: tensor<1x1xf32>, %b: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = te.compute (%i, %j) in [1, 3] : (tensor<1x1xf32>, tensor<1x3xf32>) -> tensor<1x3xf32> { %a[%i, 0] * %b[%i, %j] }
  %1 = te.compute (%i) reduce (%j) in [1, 3] : (tensor<1x3xf32>) -> tensor<1xf32> { te.min(%0[%i, %j]) }
  %2 = te.compute (%i, %j) in [1, 3] : (tensor<1x3xf32>, tensor<1xf32>) -> tensor<1x3xf32> { %0[%i, %j] - %1[%i] }
  func.return %2 : tensor<1x3xf32>
}
