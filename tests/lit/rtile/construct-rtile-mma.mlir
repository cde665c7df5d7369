// --construct-rtile on mixed-precision te ops (f16/bf16 inputs, acc(f32)): the warp tile is a
// multiple of the device's MMA instruction shape (Roller §5.1 "Compile on TensorCore") and
// the program names it (`mma = [m, n, k]`): mma.sync.m16n8k16 on A100 (sm_80), a warpgroup's
// wgmma m64nNk16 on H100 (sm_90a: register tiles of 64 rows, 128 threads per warpgroup),
// m8n8k4 on V100 (sm_70), MFMA 32x32x8 or 16x16x16 on MI250X (gfx90a). Axes in compute order,
// block tile first, warp tile second; the tensor-core peak (312 / 989.4 TFLOP/s, per
// passes/devices/*.toml) scores them. An f16 matmul without acc(f32) stays on the SIMT cores.
//
// RUN: rtile-opt %s --construct-rtile="device=a100" --rtile-select | FileCheck %s --check-prefix=A100
// RUN: rtile-opt %s --construct-rtile="device=h100" --rtile-select | FileCheck %s --check-prefix=H100
// RUN: rtile-opt %s --construct-rtile="device=v100" --rtile-select | FileCheck %s --check-prefix=V100
// RUN: rtile-opt %s --construct-rtile="device=mi250x" --rtile-select | FileCheck %s --check-prefix=MI
// The candidates verify on their device, mma shape included (the rtile.program verifier).
// RUN: rtile-opt %s --construct-rtile="device=a100 top-k=10" | rtile-opt | FileCheck %s --check-prefix=LIST
// A program whose mma shape is not one of the device's is refused.
// RUN: rtile-opt %s --construct-rtile="device=a100" --rtile-select | sed -e 's/mma = \[16, 8, 16\]/mma = [16, 16, 16]/' \
// RUN:   | not rtile-opt 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tensor cores requested with an MMA of shape 16x16x16, but 'a100' has none

// On A100 the tensor-core program leads. Before the model's latency term the SIMT program
// 72x64x64 / 9x8x1 won by a hair (15.73 us vs 18.66): its 64-thread blocks, 2 per SM, give
// each of the 4 warp schedulers one warp, which the model counted as the full FMA peak. With
// latency_warps = 4 (passes/devices/a100.toml) one warp per scheduler reaches a quarter of it,
// and the best SIMT program (64x64 blocks of 64 threads) estimates 46.46 us.
// A100-LABEL: func.func @matmul
// A100: rtile.program = #rtile.program<device = "a100", tiles = {{\[\[}}96, 64, 128], [48, 32, 16]]
// A100-SAME: threads = 128, est_us = 18.66, epsilon = 0.2, tensor_core = true, mma = [16, 8, 16]
// H100-LABEL: func.func @matmul
// On H100 B (n-contiguous) is read through 64-column TMA boxes: warpgroup tiles are whole
// boxes along n (64, not the 48 of the instruction's multiple of 8).
// H100: tiles = {{\[\[}}64, 64, 128], [64, 64, 16]]{{.*}}threads = 128{{.*}}tensor_core = true, mma = [64, 8, 16]
// V100-LABEL: func.func @matmul
// V100: tiles = {{\[\[}}96, 64, 128], [16, 16, 4]]{{.*}}tensor_core = true, mma = [8, 8, 4]
// MI-LABEL: func.func @matmul
// MI: tiles = {{\[\[}}64, 64, 64], [32, 64, 16]]{{.*}}tensor_core = true, mma = [32, 32, 8]
// LIST-LABEL: func.func @matmul
// LIST: tiles = {{\[\[}}96, 64, 128], [48, 32, 16]]{{.*}}threads = 128{{.*}}tensor_core = true, mma = [16, 8, 16]
func.func @matmul(%A: tensor<1024x512xf16>, %B: tensor<512x768xf16>) -> tensor<1024x768xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [1024, 768, 512] acc(f32) : (tensor<1024x512xf16>, tensor<512x768xf16>) -> tensor<1024x768xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) }
  func.return %C : tensor<1024x768xf16>
}

// Odd sizes: 100x60x72 pads within epsilon to whole instructions (100 -> 112 = 7 x 16 rows on
// A100; 100 -> 128 = 2 x 64 on H100). On H100 the tensor-core program is first (8 blocks,
// 0.19 us: the L2 serves the blocks' shared tiles). The SIMT programs multiply and add in f32 (the accumulator), whose lower peak
// ends the rTile's enlargement earlier, at a one-warp 4x16 tile whose 100 blocks spread over
// the SMs: by bandwidth alone it took 0.32 us and ranked first, but one warp's loads in flight
// reach 1/17 of an SM's share (the load term, 1.48 of 25.4 GB/s), so it takes 2.25 us and is
// fifth; the tensor-core program's TMA loads are asynchronous and keep the share.
// RUN: rtile-opt %s --construct-rtile="device=h100" --rtile-select="rank=4" | FileCheck %s --check-prefix=H100R4
// A100-LABEL: func.func @odd
// A100: tiles = {{\[\[}}16, 16, 80], [16, 16, 16]]{{.*}}threads = 32{{.*}}tensor_core = true, mma = [16, 8, 16]
// H100-LABEL: func.func @odd
// H100: tiles = {{\[\[}}64, 16, 80], [64, 16, 80]]{{.*}}threads = 128, est_us = 0.1933{{.*}}tensor_core = true, mma = [64, 8, 16]
// H100R4-LABEL: func.func @odd
// H100R4: tiles = {{\[\[}}4, 16, 16], [1, 2, 1]]{{.*}}threads = 32, est_us = 2.249,
// V100-LABEL: func.func @odd
// V100: tiles = {{\[\[}}8, 16, 80], [8, 16, 20]]{{.*}}tensor_core = true, mma = [8, 8, 4]
// MI-LABEL: func.func @odd
// MI: tiles = {{\[\[}}16, 32, 80], [16, 32, 80]]{{.*}}tensor_core = true, mma = [16, 16, 16]
func.func @odd(%A: tensor<100x72xf16>, %B: tensor<72x60xf16>) -> tensor<100x60xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [100, 60, 72] acc(f32) : (tensor<100x72xf16>, tensor<72x60xf16>) -> tensor<100x60xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) }
  func.return %C : tensor<100x60xf16>
}

// Batch matmul (bf16 into f32): the batch axis stays 1 in the warp tile. V100 has no bf16
// tensor cores: SIMT.
// A100-LABEL: func.func @bmm
// A100: tiles = {{\[\[}}1, 64, 48, 128], [1, 32, 48, 16]]{{.*}}tensor_core = true, mma = [16, 8, 16]
// H100-LABEL: func.func @bmm
// H100: tiles = {{\[\[}}1, 64, 64, 128], [1, 64, 64, 32]]{{.*}}tensor_core = true, mma = [64, 8, 16]
// V100-LABEL: func.func @bmm
// V100-NOT: tensor_core
// V100: return %
// MI-LABEL: func.func @bmm
// MI: tiles = {{\[\[}}1, 64, 32, 64], [1, 64, 32, 8]]{{.*}}tensor_core = true, mma = [32, 32, 8]
func.func @bmm(%A: tensor<8x256x128xbf16>, %B: tensor<8x128x192xbf16>) -> tensor<8x256x192xf32> {
  %C = te.compute (%b, %m, %n) reduce (%k) in [8, 256, 192, 128] acc(f32) : (tensor<8x256x128xbf16>, tensor<8x128x192xbf16>) -> tensor<8x256x192xf32> { te.sum(f32(%A[%b, %m, %k]) * f32(%B[%b, %k, %n])) }
  func.return %C : tensor<8x256x192xf32>
}

// Convolution as an implicit GEMM: the tensor-core programs tile the view M = n*y*x
// (4*64*64 output pixels), N = f (filters), K = c*r*s (the OIHW weights' order: a plain
// [N, K] matrix), and name its axes.
// A100-LABEL: func.func @conv
// A100: tiles = {{\[\[}}144, 128, 192], [48, 32, 16]]{{.*}}threads = 384{{.*}}tensor_core = true, mma = [16, 8, 16], axes = ["n*y*x", "f", "c*r*s"]
// H100-LABEL: func.func @conv
// H100: tiles = {{\[\[}}64, 128, 192], [64, 64, 16]]{{.*}}threads = 256{{.*}}tensor_core = true, mma = [64, 8, 16], axes = ["n*y*x", "f", "c*r*s"]
// V100-LABEL: func.func @conv
// V100: tiles = {{\[\[}}96, 128, 64], [24, 16, 4]]{{.*}}tensor_core = true, mma = [8, 8, 4], axes = ["n*y*x", "f", "c*r*s"]
// MI-LABEL: func.func @conv
// MI: tiles = {{\[\[}}128, 128, 96], [32, 64, 48]]{{.*}}tensor_core = true, mma = [32, 32, 8], axes = ["n*y*x", "f", "c*r*s"]
func.func @conv(%D: tensor<4x64x66x66xf16>, %K: tensor<128x64x3x3xf16>) -> tensor<4x128x64x64xf16> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %r, %s) in [4, 128, 64, 64, 64, 3, 3] acc(f32) : (tensor<4x64x66x66xf16>, tensor<128x64x3x3xf16>) -> tensor<4x128x64x64xf16> { te.sum(f32(%D[%n, %c, %y + %r, %x + %s]) * f32(%K[%f, %c, %r, %s])) }
  func.return %O : tensor<4x128x64x64xf16>
}

// The same f16 matmul accumulating in f16 (no acc clause) is not a tensor-core op.
// A100-LABEL: func.func @f16acc
// A100-NOT: tensor_core
// A100: return %
// H100-LABEL: func.func @f16acc
// H100-NOT: tensor_core
// H100: return %
// LIST-LABEL: func.func @f16acc
// LIST-NOT: tensor_core
// LIST: return %
func.func @f16acc(%A: tensor<1024x512xf16>, %B: tensor<512x768xf16>) -> tensor<1024x768xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [1024, 768, 512] : (tensor<1024x512xf16>, tensor<512x768xf16>) -> tensor<1024x768xf16> { te.sum(%A[%m, %k] * %B[%k, %n]) }
  func.return %C : tensor<1024x768xf16>
}
