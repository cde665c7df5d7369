// --connect on a whole BERT-base encoder layer (sequence 128, FP32, V100; heads read
// through `h * 64 + d` indices, no reshapes): 18 te ops become 9 kernels. The three QKV
// projections stay apart (no edge between them); Q·K and the softmax are one kernel, ·V
// its own: attention as one kernel needs 197376 B of shared memory per block in the
// lowering's plan, over V100's 49152 (the model's footprint said it fit; --connect now
// asks the lowering, connect/fit.rs); each GEMM takes its element-wise epilogue
// (residual, GELU) in registers; the layer norm's two row reductions and its
// normalisation are one kernel. The result lowers (last RUN).
// RUN: rtile-opt %s --connect="device=v100" --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: rtile-opt %s --connect="device=v100" | rtile-opt | FileCheck %s --check-prefix=KERNELS
// RUN: rtile-opt %s --connect="device=v100" --lower-to-gpu -o /dev/null

// CHECK: 9 kernels
// CHECK: 9 register-edges
// CHECK: 3 shared-edges

// KERNELS-COUNT-3: tilegraph.kernel -> (tensor<128x768xf32>) {
// KERNELS: tilegraph.kernel -> (tensor<12x128x128xf32>) {
// KERNELS-NEXT: te.compute (%h, %i, %j) reduce (%d) in [12, 128, 128, 64]
// KERNELS: te.max
// KERNELS: exp(
// KERNELS: te.sum
// KERNELS: tilegraph.yield
// KERNELS-NEXT: }
// KERNELS-NEXT: tilegraph.kernel -> (tensor<128x768xf32>) {
// KERNELS-NEXT: te.compute (%i, %n) reduce (%j) in [128, 768, 128]
// KERNELS: tilegraph.yield
// KERNELS-NEXT: }
// KERNELS-NEXT: tilegraph.kernel -> (tensor<128x768xf32>) {
// KERNELS: tilegraph.connect = ["register", "global"]
// KERNELS: tilegraph.kernel -> (tensor<128x768xf32>) {
// KERNELS: rsqrt
// KERNELS: tilegraph.kernel -> (tensor<128x3072xf32>) {
// KERNELS: erf
// KERNELS: tilegraph.kernel -> (tensor<128x768xf32>) {
// KERNELS: tilegraph.yield
// KERNELS-NEXT: }
// KERNELS-NEXT: return
func.func @bert_layer(%X: tensor<128x768xf32>, %Wq: tensor<768x768xf32>, %Wk: tensor<768x768xf32>, %Wv: tensor<768x768xf32>, %bq: tensor<768xf32>, %Wo: tensor<768x768xf32>, %W1: tensor<768x3072xf32>, %b1: tensor<3072xf32>, %W2: tensor<3072x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<128x768xf32> {
  %Q = te.compute (%m, %n) reduce (%k) in [128, 768, 768] : (tensor<128x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<128x768xf32> { te.sum(%X[%m, %k] * %Wq[%k, %n] + %bq[%n] / 768.0) }
  %K = te.compute (%m, %n) reduce (%k) in [128, 768, 768] : (tensor<128x768xf32>, tensor<768x768xf32>) -> tensor<128x768xf32> { te.sum(%X[%m, %k] * %Wk[%k, %n]) }
  %V = te.compute (%m, %n) reduce (%k) in [128, 768, 768] : (tensor<128x768xf32>, tensor<768x768xf32>) -> tensor<128x768xf32> { te.sum(%X[%m, %k] * %Wv[%k, %n]) }
  %QK = te.compute (%h, %i, %j) reduce (%d) in [12, 128, 128, 64] : (tensor<128x768xf32>, tensor<128x768xf32>) -> tensor<12x128x128xf32> { te.sum(%Q[%i, %h * 64 + %d] * %K[%j, %h * 64 + %d]) }
  %M = te.compute (%h, %i) reduce (%j) in [12, 128, 128] : (tensor<12x128x128xf32>) -> tensor<12x128xf32> { te.max(%QK[%h, %i, %j]) }
  %E = te.compute (%h, %i, %j) in [12, 128, 128] : (tensor<12x128x128xf32>, tensor<12x128xf32>) -> tensor<12x128x128xf32> { exp((%QK[%h, %i, %j] - %M[%h, %i]) * 0.125) }
  %Z = te.compute (%h, %i) reduce (%j) in [12, 128, 128] : (tensor<12x128x128xf32>) -> tensor<12x128xf32> { te.sum(%E[%h, %i, %j]) }
  %P = te.compute (%h, %i, %j) in [12, 128, 128] : (tensor<12x128x128xf32>, tensor<12x128xf32>) -> tensor<12x128x128xf32> { %E[%h, %i, %j] / %Z[%h, %i] }
  %A = te.compute (%i, %n) reduce (%j) in [128, 768, 128] : (tensor<12x128x128xf32>, tensor<128x768xf32>) -> tensor<128x768xf32> { te.sum(%P[%n floordiv 64, %i, %j] * %V[%j, %n]) }
  %O = te.compute (%m, %n) reduce (%k) in [128, 768, 768] : (tensor<128x768xf32>, tensor<768x768xf32>) -> tensor<128x768xf32> { te.sum(%A[%m, %k] * %Wo[%k, %n]) }
  %R = te.compute (%m, %n) in [128, 768] : (tensor<128x768xf32>, tensor<128x768xf32>) -> tensor<128x768xf32> { %O[%m, %n] + %X[%m, %n] }
  %Mu = te.compute (%m) reduce (%n) in [128, 768] : (tensor<128x768xf32>) -> tensor<128xf32> { te.sum(%R[%m, %n] / 768.0) }
  %Va = te.compute (%m) reduce (%n) in [128, 768] : (tensor<128x768xf32>, tensor<128xf32>) -> tensor<128xf32> { te.sum((%R[%m, %n] - %Mu[%m]) * (%R[%m, %n] - %Mu[%m]) / 768.0) }
  %L = te.compute (%m, %n) in [128, 768] : (tensor<128x768xf32>, tensor<128xf32>, tensor<128xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<128x768xf32> { (%R[%m, %n] - %Mu[%m]) * rsqrt(%Va[%m] + 1.0e-5) * %g[%n] + %b[%n] }
  %F = te.compute (%m, %n) reduce (%k) in [128, 3072, 768] : (tensor<128x768xf32>, tensor<768x3072xf32>) -> tensor<128x3072xf32> { te.sum(%L[%m, %k] * %W1[%k, %n]) }
  %G = te.compute (%m, %n) in [128, 3072] : (tensor<128x3072xf32>, tensor<3072xf32>) -> tensor<128x3072xf32> { (%F[%m, %n] + %b1[%n]) * 0.5 * (erf((%F[%m, %n] + %b1[%n]) * 0.70710678) + 1.0) }
  %H = te.compute (%m, %n) reduce (%k) in [128, 768, 3072] : (tensor<128x3072xf32>, tensor<3072x768xf32>) -> tensor<128x768xf32> { te.sum(%G[%m, %k] * %W2[%k, %n]) }
  %Y = te.compute (%m, %n) in [128, 768] : (tensor<128x768xf32>, tensor<128x768xf32>) -> tensor<128x768xf32> { %H[%m, %n] + %L[%m, %n] }
  func.return %Y : tensor<128x768xf32>
}
