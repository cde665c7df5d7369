func.func @sq4096_f16(%A: tensor<4096x4096xf16>, %B: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [4096, 4096, 4096] acc(f32) : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[256, 128, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [16, 32], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<4096x4096xf16>
}
func.func @sq8192_f16(%A: tensor<8192x8192xf16>, %B: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8192, 8192, 8192] acc(f32) : (tensor<8192x8192xf16>, tensor<8192x8192xf16>) -> tensor<8192x8192xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[256, 128, 64], [64, 128, 16]], pad = [[0, 0], [0, 0]], grid = [32, 64], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<8192x8192xf16>
}
