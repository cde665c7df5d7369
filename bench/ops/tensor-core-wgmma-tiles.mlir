// Explicit sm_90a warpgroup programs for the large square matmuls of
// bench/ops/tensor-core-square.mlir: which block and warpgroup tiles the wgmma lowering
// (tensor-core=wgmma: TMA, mbarrier stages, a producer warpgroup, consumers of 64xN
// wgmma tiles) needs to approach cuBLAS. `<op>__<block>_wg<warpgroup tile>`; bench/gpu/bench.py
// times each against the PyTorch twin of <op> (cuBLAS) and checks it against the naive kernel.
// The construction's own top-1 on h100 gives every warpgroup a 64x64 tile (256x128 blocks of 8
// warpgroups, no producer): PERF.md, issue 16.
func.func @sq4096_f16__256x128_wg64x128(%A: tensor<4096x4096xf16>, %B: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [4096, 4096, 4096] acc(f32) : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[256, 128, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [16, 32], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<4096x4096xf16>
}
func.func @sq4096_f16__128x256_wg64x128(%A: tensor<4096x4096xf16>, %B: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [4096, 4096, 4096] acc(f32) : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 256, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [32, 16], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<4096x4096xf16>
}
func.func @sq4096_f16__128x128_wg64x128(%A: tensor<4096x4096xf16>, %B: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [4096, 4096, 4096] acc(f32) : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 128, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [32, 32], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<4096x4096xf16>
}
func.func @sq4096_f16__128x192_wg64x192(%A: tensor<4096x4096xf16>, %B: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [4096, 4096, 4096] acc(f32) : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 192, 64], [64, 192, 16]], pad = [[0, 0], [0, 0]], grid = [32, 22], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<4096x4096xf16>
}
func.func @sq8192_f16__256x128_wg64x128(%A: tensor<8192x8192xf16>, %B: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xf16>, tensor<8192x8192xf16>) -> tensor<8192x8192xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[256, 128, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [32, 64], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xf16>
}
func.func @sq8192_f16__128x256_wg64x128(%A: tensor<8192x8192xf16>, %B: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xf16>, tensor<8192x8192xf16>) -> tensor<8192x8192xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 256, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [64, 32], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xf16>
}
func.func @sq8192_f16__128x128_wg64x128(%A: tensor<8192x8192xf16>, %B: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xf16>, tensor<8192x8192xf16>) -> tensor<8192x8192xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 128, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [64, 64], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xf16>
}
func.func @sq8192_f16__128x192_wg64x192(%A: tensor<8192x8192xf16>, %B: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xf16>, tensor<8192x8192xf16>) -> tensor<8192x8192xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 192, 64], [64, 192, 16]], pad = [[0, 0], [0, 0]], grid = [64, 43], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xf16>
}
func.func @sq8192_bf16__256x128_wg64x128(%A: tensor<8192x8192xbf16>, %B: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[256, 128, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [32, 64], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xbf16>
}
func.func @sq8192_bf16__128x256_wg64x128(%A: tensor<8192x8192xbf16>, %B: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 256, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [64, 32], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xbf16>
}
func.func @sq8192_bf16__128x128_wg64x128(%A: tensor<8192x8192xbf16>, %B: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 128, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [64, 64], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xbf16>
}
func.func @sq8192_bf16__128x192_wg64x192(%A: tensor<8192x8192xbf16>, %B: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 192, 64], [64, 192, 16]], pad = [[0, 0], [0, 0]], grid = [64, 43], threads = 256, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xbf16>
}
