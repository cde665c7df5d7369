// A GELU (erf) MLP, the residual and LayerNorm, at sizes that are not powers of two (tools/tests/scheduler_zoo.rs).
func.func @gelu_mlp_ln(%X: tensor<20x36xf32>, %W1: tensor<36x52xf32>, %W2: tensor<52x36xf32>, %g: tensor<36xf32>, %b: tensor<36xf32>) -> tensor<20x36xf32> {
  %H = te.compute (%m, %n) reduce (%k) in [20, 52, 36] : (tensor<20x36xf32>, tensor<36x52xf32>) -> tensor<20x52xf32> { te.sum(%X[%m, %k] * %W1[%k, %n]) }
  %G = te.compute (%m, %n) in [20, 52] : (tensor<20x52xf32>) -> tensor<20x52xf32> { %H[%m, %n] * 0.5 * (erf(%H[%m, %n] * 0.70710678) + 1.0) }
  %O = te.compute (%m, %n) reduce (%k) in [20, 36, 52] : (tensor<20x52xf32>, tensor<52x36xf32>) -> tensor<20x36xf32> { te.sum(%G[%m, %k] * %W2[%k, %n]) }
  %R = te.compute (%m, %n) in [20, 36] : (tensor<20x36xf32>, tensor<20x36xf32>) -> tensor<20x36xf32> { %O[%m, %n] + %X[%m, %n] }
  %Mu = te.compute (%m) reduce (%n) in [20, 36] : (tensor<20x36xf32>) -> tensor<20xf32> { te.sum(%R[%m, %n] / 36.0) }
  %D = te.compute (%m, %n) in [20, 36] : (tensor<20x36xf32>, tensor<20xf32>) -> tensor<20x36xf32> { %R[%m, %n] - %Mu[%m] }
  %Va = te.compute (%m) reduce (%n) in [20, 36] : (tensor<20x36xf32>) -> tensor<20xf32> { te.sum(%D[%m, %n] * %D[%m, %n] / 36.0) }
  %Y = te.compute (%m, %n) in [20, 36] : (tensor<20x36xf32>, tensor<20xf32>, tensor<36xf32>, tensor<36xf32>) -> tensor<20x36xf32> { %D[%m, %n] * rsqrt(%Va[%m] + 1.0e-5) * %g[%n] + %b[%n] }
  func.return %Y : tensor<20x36xf32>
}
