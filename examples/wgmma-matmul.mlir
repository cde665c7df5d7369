// A 200x136x136 f16 matmul (acc f32) under an H100 warpgroup program (block 128x128, four
// warpgroups of 64x64): `rtile-opt --lower-to-gpu="tensor-core=wgmma"` makes the sm_90a
// kernel (TMA into mbarrier-tracked stages, wgmma, epilogue through shared memory;
// warp-specialised: a fifth warpgroup issues the loads, the four others compute, full/empty
// mbarriers between them) and the host code that builds its tensor maps. `make demo` step
// 14 runs it.
func.func @mm(%A: tensor<200x136xf16>, %B: tensor<136x136xf16>) -> tensor<200x136xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [200, 136, 136] acc(f32) : (tensor<200x136xf16>, tensor<136x136xf16>) -> tensor<200x136xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[128, 128, 64], [64, 64, 16]], pad = [[0, 0], [0, 0]], grid = [2, 2], threads = 512, est_us = 1.0, epsilon = 1.0, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<200x136xf16>
}
