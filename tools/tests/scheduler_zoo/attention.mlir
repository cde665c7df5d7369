// Three-head attention over 24 tokens, its heads merged into 24x36 through floordiv/mod (tools/tests/scheduler_zoo.rs).
func.func @attention(%Q: tensor<3x24x12xf32>, %K: tensor<3x24x12xf32>, %V: tensor<3x24x12xf32>) -> tensor<24x36xf32> {
  %S = te.compute (%h, %i, %j) reduce (%d) in [3, 24, 24, 12] : (tensor<3x24x12xf32>, tensor<3x24x12xf32>) -> tensor<3x24x24xf32> { te.sum(%Q[%h, %i, %d] * 0.288675 * %K[%h, %j, %d]) }
  %M = te.compute (%h, %i) reduce (%j) in [3, 24, 24] : (tensor<3x24x24xf32>) -> tensor<3x24xf32> { te.max(%S[%h, %i, %j]) }
  %E = te.compute (%h, %i, %j) in [3, 24, 24] : (tensor<3x24x24xf32>, tensor<3x24xf32>) -> tensor<3x24x24xf32> { exp(%S[%h, %i, %j] - %M[%h, %i]) }
  %Z = te.compute (%h, %i) reduce (%j) in [3, 24, 24] : (tensor<3x24x24xf32>) -> tensor<3x24xf32> { te.sum(%E[%h, %i, %j]) }
  %O = te.compute (%h, %i, %d) reduce (%j) in [3, 24, 12, 24] : (tensor<3x24x24xf32>, tensor<3x24xf32>, tensor<3x24x12xf32>) -> tensor<3x24x12xf32> { te.sum(%E[%h, %i, %j] / %Z[%h, %i] * %V[%h, %j, %d]) }
  %T = te.compute (%i, %e) in [24, 36] : (tensor<3x24x12xf32>) -> tensor<24x36xf32> { %O[%e floordiv 12, %i, %e mod 12] }
  func.return %T : tensor<24x36xf32>
}
