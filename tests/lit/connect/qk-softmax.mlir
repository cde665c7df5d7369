// Welder §5.2 (digest §5.4): Q·K fuses with the following softmax at sequence length 128
// (BERT) but not at 512 (Conformer), "automatically decided". BERT-base attention scores,
// 12 heads of 64, batch 1, FP32, V100 (the paper's GPU). The model reproduces it; the
// decision on the Q·K -> exp edge prints why (estimates in µs of the kernels it touches).
// RUN: rtile-opt %s --connect="device=v100" | FileCheck %s

// At 128 one kernel holds Q·K and the whole softmax: connected, the block keeps a
// [16x128] score tile in shared memory and beats separate kernels: 12 × 8 = 96 blocks of
// 128 threads of [2x8] points. (It was [8x128], 192 blocks, while the lowering staged the
// Q·K stage's K tile (32 KB) with Q and the scores whole, over its copy limit at 16 rows,
// so each point re-read K from global memory; now K comes in k-steps, shared_steps.rs.)
// CHECK-LABEL: func.func @qk_softmax_128
// CHECK: tilegraph.kernel -> (tensor<12x128x128xf32>) {
// CHECK: te.compute (%h, %i, %j) reduce (%d) in [12, 128, 128, 64]
// CHECK: tilegraph.tiles = {register = array<i64: 1, 2, 8, 1>, shared = array<i64: 1, 16, 128, 64>}
// CHECK: te.max
// CHECK: exp(
// CHECK-NEXT: } {tilegraph.connect = ["register", "register"], tilegraph.decisions = [{chosen = "register", global = 2.306100e+01 : f64, register = 1.179900e+01 : f64, shared = 1.184900e+01 : f64}
// CHECK: te.sum
// CHECK: tilegraph.yield
// CHECK-NOT: tilegraph.kernel
// CHECK: return

// At 512 a block must hold whole 512-wide score rows, and every block re-reads all of K:
// separate kernels are cheaper, so Q·K is a kernel of its own and the softmax another.
// Fused, the Q·K shared stage reads its Q rows and K (512 × 64) in k-steps, and the kernel
// still costs 168 µs against 87 and 121 apart: the traffic, not the lowering, decides.
// (Until shared stages had k-steps, those reads were per point, 1957 µs.)
// CHECK-LABEL: func.func @qk_softmax_512
// CHECK: tilegraph.kernel -> (tensor<12x512x512xf32>) {
// CHECK-NEXT: te.compute (%h, %i, %j) reduce (%d) in [12, 512, 512, 64]
// CHECK: tilegraph.yield
// CHECK-NEXT: }
// CHECK-NEXT: tilegraph.kernel -> (tensor<12x512x512xf32>) {
// CHECK: te.max
// CHECK-NEXT: } {tilegraph.connect = ["global"], tilegraph.decisions = [{chosen = "global", global = 8.681600e+01 : f64, register = "the register-connected tiles need 4128 B per thread, over the 384 B register layer", shared = 1.666650e+02 : f64}]
// CHECK: exp(
// CHECK-NEXT: } {tilegraph.connect = ["global", "register"], tilegraph.decisions = [{chosen = "global", global = 1.214930e+02 : f64, register = 1.673600e+02 : f64, shared = 1.681630e+02 : f64}
func.func @qk_softmax_128(%Q: tensor<12x128x64xf32>, %K: tensor<12x128x64xf32>) -> tensor<12x128x128xf32> {
  %QK = te.compute (%h, %i, %j) reduce (%d) in [12, 128, 128, 64]
         : (tensor<12x128x64xf32>, tensor<12x128x64xf32>) -> tensor<12x128x128xf32> {
    te.sum(%Q[%h, %i, %d] * %K[%h, %j, %d])
  }
  %M = te.compute (%h, %i) reduce (%j) in [12, 128, 128] : (tensor<12x128x128xf32>) -> tensor<12x128xf32> {
    te.max(%QK[%h, %i, %j])
  }
  %E = te.compute (%h, %i, %j) in [12, 128, 128] : (tensor<12x128x128xf32>, tensor<12x128xf32>) -> tensor<12x128x128xf32> {
    exp(%QK[%h, %i, %j] * 0.125 - %M[%h, %i] * 0.125)
  }
  %Z = te.compute (%h, %i) reduce (%j) in [12, 128, 128] : (tensor<12x128x128xf32>) -> tensor<12x128xf32> {
    te.sum(%E[%h, %i, %j])
  }
  %P = te.compute (%h, %i, %j) in [12, 128, 128] : (tensor<12x128x128xf32>, tensor<12x128xf32>) -> tensor<12x128x128xf32> {
    %E[%h, %i, %j] / %Z[%h, %i]
  }
  func.return %P : tensor<12x128x128xf32>
}

func.func @qk_softmax_512(%Q: tensor<12x512x64xf32>, %K: tensor<12x512x64xf32>) -> tensor<12x512x512xf32> {
  %QK = te.compute (%h, %i, %j) reduce (%d) in [12, 512, 512, 64]
         : (tensor<12x512x64xf32>, tensor<12x512x64xf32>) -> tensor<12x512x512xf32> {
    te.sum(%Q[%h, %i, %d] * %K[%h, %j, %d])
  }
  %M = te.compute (%h, %i) reduce (%j) in [12, 512, 512] : (tensor<12x512x512xf32>) -> tensor<12x512xf32> {
    te.max(%QK[%h, %i, %j])
  }
  %E = te.compute (%h, %i, %j) in [12, 512, 512] : (tensor<12x512x512xf32>, tensor<12x512xf32>) -> tensor<12x512x512xf32> {
    exp(%QK[%h, %i, %j] * 0.125 - %M[%h, %i] * 0.125)
  }
  %Z = te.compute (%h, %i) reduce (%j) in [12, 512, 512] : (tensor<12x512x512xf32>) -> tensor<12x512xf32> {
    te.sum(%E[%h, %i, %j])
  }
  %P = te.compute (%h, %i, %j) in [12, 512, 512] : (tensor<12x512x512xf32>, tensor<12x512xf32>) -> tensor<12x512x512xf32> {
    %E[%h, %i, %j] / %Z[%h, %i]
  }
  func.return %P : tensor<12x512x512xf32>
}
