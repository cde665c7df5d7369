// A vEU shape must fit on an SM as a whole: conv -> bias+relu -> 3x3/2 max-pool on v100.
// The convolution's rTasks are 640 threads; another op's variants reach 120 registers.
// The shape over every variant (640 threads at 120 registers: 76,800 registers, over
// the SM's 65,536) was chosen by the model, and the vdevice verifier refused it (0
// blocks fit). Shapes that do not fit are now skipped: the best variants' shape (640
// threads at 96 registers) is packed, lowered and runs in the simulator.
// RUN: rtile-opt %s --wavefront-pack=device=v100 | FileCheck %s --check-prefix=PACK
// RUN: rtile-opt %s --wavefront-pack=device=v100 --lower-to-gpu -o %t.mlir
// RUN: rtile-run --sim %t.mlir | FileCheck %s --check-prefix=SIM
// With one variant per op (top-k=1) no vEU holds both the convolution's threads and the
// relu's registers: an error that names them.
// RUN: not rtile-opt %s --wavefront-pack="device=v100 top-k=1" 2>&1 | FileCheck %s --check-prefix=TOPK1

// PACK: vdevice.device @stem_pool_vdevice {regs = 96 : i64, {{.*}}, threads = 640 : i64, veus_per_sm = 1 : i64}
// TOPK1: error: wavefront-pack: no vEU shape fits on one SM of 'v100': @stem_pool_0 needs 640 threads per rTask and @stem_pool_1 112 registers per thread
// SIM: @stem_pool: 2 kernels
// SIM: @stem_pool output 0: tensor<1x8x9x9xf32>, max relative error
// SIM-NOT: error:

func.func @stem_pool(%X: tensor<1x3x17x17xf32>, %W: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x9x9xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 8, 17, 17, 3, 3, 3] : (tensor<1x3x17x17xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x17x17xf32> { te.sum(%X[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %W[%f, %c, %ry, %rx]) }
  %R = te.compute (%n, %c, %y, %x) in [1, 8, 17, 17] : (tensor<1x8x17x17xf32>, tensor<8xf32>) -> tensor<1x8x17x17xf32> { max(%C[%n, %c, %y, %x] + %b[%c], 0.0) }
  %M = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 8, 9, 9, 3, 3] : (tensor<1x8x17x17xf32>) -> tensor<1x8x9x9xf32> { te.max(%R[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad -1.0e30) }
  func.return %M : tensor<1x8x9x9xf32>
}
