// A tensor-core program on mi250x naming NVIDIA's mma.sync m16n8k16 (the construction never
// makes one): --lower-to-gpu refuses it (tests/lit/gpu/lower-to-gpu-mfma.mlir).
func.func @mm(%arg0: tensor<256x256xf16>, %arg1: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %0 = te.compute (%m, %n) reduce (%k) in [256, 256, 256] acc(f32) : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16> {
    te.sum(f32(%arg0[%m, %k]) * f32(%arg1[%k, %n]))
  } {rtile.program = #rtile.program<device = "mi250x", tiles = [[32, 32, 64], [32, 32, 16]], pad = [[0, 16], [0, 0]], grid = [8, 8], threads = 64, est_us = 2.338, epsilon = 0.2, tensor_core = true, mma = [16, 8, 16]>}
  return %0 : tensor<256x256xf16>
}
