// A 256x256x256 f16 matmul accumulating in f32: `rtile-opt --construct-rtile=device=mi250x
// --lower-to-gpu` picks an MFMA program (Roller §5.1 on CDNA2: a wavefront tile of whole
// v_mfma_f32_32x32x8f16 instructions) and lowers it to 64-lane wavefronts issuing
// amdgpu.mfma from LDS-staged tiles. `make demo` step 19 runs it.
func.func @mm(%A: tensor<256x256xf16>, %B: tensor<256x256xf16>) -> tensor<256x256xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [256, 256, 256] acc(f32) : (tensor<256x256xf16>, tensor<256x256xf16>) -> tensor<256x256xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) }
  func.return %C : tensor<256x256xf16>
}
