// A BERT encoder layer at simulator size (sequence 16, hidden 64, 2 heads of 32, FFN 128;
// the same te ops as tests/lit/connect/bert-layer.mlir, which is BERT-base at sequence 128):
// the Welder ablation in PERF.md runs it at connect-level none / register / shared.
func.func @bert_layer(%X: tensor<16x64xf32>, %Wq: tensor<64x64xf32>, %Wk: tensor<64x64xf32>, %Wv: tensor<64x64xf32>, %bq: tensor<64xf32>, %Wo: tensor<64x64xf32>, %W1: tensor<64x128xf32>, %b1: tensor<128xf32>, %W2: tensor<128x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %Q = te.compute (%m, %n) reduce (%k) in [16, 64, 64] : (tensor<16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<16x64xf32> { te.sum(%X[%m, %k] * %Wq[%k, %n] + %bq[%n] / 64.0) }
  %K = te.compute (%m, %n) reduce (%k) in [16, 64, 64] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> { te.sum(%X[%m, %k] * %Wk[%k, %n]) }
  %V = te.compute (%m, %n) reduce (%k) in [16, 64, 64] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> { te.sum(%X[%m, %k] * %Wv[%k, %n]) }
  %QK = te.compute (%h, %i, %j) reduce (%d) in [2, 16, 16, 32] : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<2x16x16xf32> { te.sum(%Q[%i, %h * 32 + %d] * %K[%j, %h * 32 + %d]) }
  %M = te.compute (%h, %i) reduce (%j) in [2, 16, 16] : (tensor<2x16x16xf32>) -> tensor<2x16xf32> { te.max(%QK[%h, %i, %j]) }
  %E = te.compute (%h, %i, %j) in [2, 16, 16] : (tensor<2x16x16xf32>, tensor<2x16xf32>) -> tensor<2x16x16xf32> { exp((%QK[%h, %i, %j] - %M[%h, %i]) * 0.17677670) }
  %Z = te.compute (%h, %i) reduce (%j) in [2, 16, 16] : (tensor<2x16x16xf32>) -> tensor<2x16xf32> { te.sum(%E[%h, %i, %j]) }
  %P = te.compute (%h, %i, %j) in [2, 16, 16] : (tensor<2x16x16xf32>, tensor<2x16xf32>) -> tensor<2x16x16xf32> { %E[%h, %i, %j] / %Z[%h, %i] }
  %A = te.compute (%i, %n) reduce (%j) in [16, 64, 16] : (tensor<2x16x16xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> { te.sum(%P[%n floordiv 32, %i, %j] * %V[%j, %n]) }
  %O = te.compute (%m, %n) reduce (%k) in [16, 64, 64] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> { te.sum(%A[%m, %k] * %Wo[%k, %n]) }
  %R = te.compute (%m, %n) in [16, 64] : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> { %O[%m, %n] + %X[%m, %n] }
  %Mu = te.compute (%m) reduce (%n) in [16, 64] : (tensor<16x64xf32>) -> tensor<16xf32> { te.sum(%R[%m, %n] / 64.0) }
  %Va = te.compute (%m) reduce (%n) in [16, 64] : (tensor<16x64xf32>, tensor<16xf32>) -> tensor<16xf32> { te.sum((%R[%m, %n] - %Mu[%m]) * (%R[%m, %n] - %Mu[%m]) / 64.0) }
  %L = te.compute (%m, %n) in [16, 64] : (tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<16x64xf32> { (%R[%m, %n] - %Mu[%m]) * rsqrt(%Va[%m] + 1.0e-5) * %g[%n] + %b[%n] }
  %F = te.compute (%m, %n) reduce (%k) in [16, 128, 64] : (tensor<16x64xf32>, tensor<64x128xf32>) -> tensor<16x128xf32> { te.sum(%L[%m, %k] * %W1[%k, %n]) }
  %G = te.compute (%m, %n) in [16, 128] : (tensor<16x128xf32>, tensor<128xf32>) -> tensor<16x128xf32> { (%F[%m, %n] + %b1[%n]) * 0.5 * (erf((%F[%m, %n] + %b1[%n]) * 0.70710678) + 1.0) }
  %H = te.compute (%m, %n) reduce (%k) in [16, 64, 128] : (tensor<16x128xf32>, tensor<128x64xf32>) -> tensor<16x64xf32> { te.sum(%G[%m, %k] * %W2[%k, %n]) }
  %Y = te.compute (%m, %n) in [16, 64] : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32> { %H[%m, %n] + %L[%m, %n] }
  func.return %Y : tensor<16x64xf32>
}
