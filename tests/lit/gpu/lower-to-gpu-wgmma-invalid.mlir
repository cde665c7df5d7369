// tensor-core=wgmma on a program wgmma cannot take is an error that says why (here: a
// warpgroup tile of 16 columns: computing it as a whole 64-column B box would be 4x the work).
// RUN: not rtile-opt %s --lower-to-gpu="tensor-core=wgmma" 2>&1 | FileCheck %s
// CHECK: error: 'te.compute' op cannot lower: tensor-core=wgmma: the warpgroup tile 64x16 is not whole m64 slabs of 32 to 256 columns (a multiple of 8)
// An invalid option value is an error too.
// RUN: not rtile-opt %s --lower-to-gpu="tensor-core=hmma" 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: invalid value 'hmma' for option 'tensor-core' (expected mma-sync, auto or wgmma)


func.func @narrow(%A: tensor<384x256xf16>, %B: tensor<256x512xf16>) -> tensor<384x512xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [384, 512, 256] acc(f32) : (tensor<384x256xf16>, tensor<256x512xf16>) -> tensor<384x512xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) } {rtile.program = #rtile.program<device = "h100", tiles = [[64, 16, 256], [64, 16, 16]], pad = [[0, 0], [0, 0]], grid = [6, 32], threads = 128, est_us = 1.0, epsilon = 0.2, tensor_core = true, mma = [64, 8, 16]>}
  func.return %C : tensor<384x512xf16>
}
