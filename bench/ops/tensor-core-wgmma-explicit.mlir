// sm_90a wgmma + TMA kernels under explicit warpgroup programs, for a first correctness
// check on a GPU (bench/gpu/prepare-explicit.sh lowers each with tensor-core=wgmma and
// writes the naive reference kernel beside it; bench/gpu/bench.py --no-torch checks one
// against the other on the same random inputs). @mm is examples/wgmma-matmul.mlir (ragged
// 200x136x136: TMA clips the edges); the others are tests/lit/gpu/lower-to-gpu-wgmma-bmm4d.mlir
// (several batch axes, a shared 2-D weight, batch axes inside the operands).
func.func @mm(%A: tensor<200x136xf16>, %B: tensor<136x136xf16>) -> tensor<200x136xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [200, 136, 136] acc(f32) : (tensor<200x136xf16>, tensor<136x136xf16>) -> tensor<200x136xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 128, 64], [64, 64, 16]], pad = [[0, 0], [0, 0]], grid = [2, 2], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<200x136xf16>
}
func.func @qk(%Q: tensor<2x3x100x72xf16>, %K: tensor<2x3x96x72xf16>) -> tensor<2x3x100x96xf16> {
  %S = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 100, 96, 72] acc(f32) : (tensor<2x3x100x72xf16>, tensor<2x3x96x72xf16>) -> tensor<2x3x100x96xf16> { te.sum(f32(%Q[%b, %h, %m, %k]) * f32(%K[%b, %h, %n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 1, 128, 96, 64], [1, 1, 64, 48, 16]], pad = [[0, 0, 0, 0], [0, 0, 0, 0]], grid = [2, 3, 1, 1], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %S : tensor<2x3x100x96xf16>
}

func.func @pv(%P: tensor<2x3x100x96xf16>, %V: tensor<2x3x96x72xf16>) -> tensor<2x3x100x72xf16> {
  %O = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 100, 72, 96] acc(f32) : (tensor<2x3x100x96xf16>, tensor<2x3x96x72xf16>) -> tensor<2x3x100x72xf16> { te.sum(f32(%P[%b, %h, %m, %k]) * f32(%V[%b, %h, %k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 1, 128, 64, 64], [1, 1, 64, 64, 16]], pad = [[0, 0, 0, 0], [0, 0, 0, 0]], grid = [2, 3, 1, 2], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %O : tensor<2x3x100x72xf16>
}

func.func @linear(%X: tensor<3x100x136xf16>, %W: tensor<96x136xf16>) -> tensor<3x100x96xf16> {
  %Y = te.compute (%b, %m, %n) reduce (%k) in [3, 100, 96, 136] acc(f32) : (tensor<3x100x136xf16>, tensor<96x136xf16>) -> tensor<3x100x96xf16> { te.sum(f32(%X[%b, %m, %k]) * f32(%W[%n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 128, 96, 64], [1, 64, 48, 16]], pad = [[0, 0, 0], [0, 0]], grid = [3, 1, 1], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %Y : tensor<3x100x96xf16>
}

func.func @heads(%Q: tensor<2x100x3x64xf16>, %K: tensor<2x72x3x64xf16>) -> tensor<2x3x100x72xf16> {
  %S = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 100, 72, 64] acc(f32) : (tensor<2x100x3x64xf16>, tensor<2x72x3x64xf16>) -> tensor<2x3x100x72xf16> { te.sum(f32(%Q[%b, %m, %h, %k]) * f32(%K[%b, %n, %h, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 1, 128, 72, 64], [1, 1, 64, 72, 16]], pad = [[0, 0, 0, 0], [0, 0, 0, 0]], grid = [2, 3, 1, 1], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %S : tensor<2x3x100x72xf16>
}

func.func @bert(%Q: tensor<1x12x128x64xf16>, %K: tensor<1x12x128x64xf16>) -> tensor<1x12x128x128xf16> {
  %S = te.compute (%b, %h, %m, %n) reduce (%k) in [1, 12, 128, 128, 64] acc(f32) : (tensor<1x12x128x64xf16>, tensor<1x12x128x64xf16>) -> tensor<1x12x128x128xf16> { te.sum(f32(%Q[%b, %h, %m, %k]) * f32(%K[%b, %h, %n, %k])) } {rtile.program = #rtile.program<device = "h100", tiles = [[1, 1, 128, 128, 64], [1, 1, 64, 128, 16]], pad = [[0, 0, 0, 0], [0, 0, 0, 0]], grid = [1, 12, 1, 1], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %S : tensor<1x12x128x128xf16>
}
