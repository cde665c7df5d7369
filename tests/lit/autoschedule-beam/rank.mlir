// rank=N writes the N-th best distinct schedule of the final beam instead of the best
// (1 = the best, the default), so that a GPU session can time the top few. On the blur
// chain (V100, k = 32) rank 2 differs from rank 1, is marked `beam.rank = 2`, and both
// lower and match the te chain in the simulator.
// RUN: rtile-opt %s --autoschedule-beam="device=v100" > %t.default
// RUN: rtile-opt %s --autoschedule-beam="device=v100 rank=1" > %t.1
// RUN: rtile-opt %s --autoschedule-beam="device=v100 rank=2" > %t.2
// RUN: diff %t.default %t.1
// RUN: not diff %t.1 %t.2
// RUN: FileCheck %s --check-prefix=RANK1 < %t.1
// RUN: FileCheck %s --check-prefix=RANK2 < %t.2
// RUN: rtile-opt %s --autoschedule-beam="device=v100 rank=1" --lower-to-gpu | rtile-run --sim --check | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --autoschedule-beam="device=v100 rank=2" --lower-to-gpu | rtile-run --sim --check | FileCheck %s --check-prefix=SIM
// A rank past the beam, or past the distinct schedules it ends with, is refused.
// RUN: not rtile-opt %s --autoschedule-beam="device=v100 rank=33" 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: not rtile-opt %s --autoschedule-beam="device=v100 beam-size=1 rank=2" 2>&1 | FileCheck %s --check-prefix=GREEDY
// RUN: not rtile-opt %s --autoschedule-beam="device=v100 rank=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not rtile-opt %S/Inputs/one-stage.mlir --autoschedule-beam="device=v100 rank=2" 2>&1 | FileCheck %s --check-prefix=DISTINCT

// RANK1: func.func @chain
// RANK1-NOT: beam.rank
// RANK1: tilegraph.kernel
// RANK2: func.func @chain
// RANK2-SAME: beam.rank = 2 : i64
// RANK2: tilegraph.kernel

// SIM: @chain: 3 kernels, 0 constants
// SIM-NEXT: @chain output 0: tensor<64x128xf32>, max relative error {{[0-9.]+e-?[0-9]+}}

// OVER: error: autoschedule-beam: rank=33 exceeds beam-size=32: the final beam holds at most 32 schedules
// GREEDY: error: autoschedule-beam: rank=2 exceeds beam-size=1: the final beam holds at most 1 schedule
// ZERO: rank must be at least 1 (1 = the best schedule)
// DISTINCT: error: autoschedule-beam: rank=2: the final beam holds 1 distinct schedule (beam-size=32)

func.func @chain(%I: tensor<66x130xf32>) -> tensor<64x128xf32> {
  %A = te.compute (%y, %x) in [66, 128] : (tensor<66x130xf32>) -> tensor<66x128xf32> { (%I[%y, %x] + %I[%y, %x + 1] + %I[%y, %x + 2]) * 0.33 }
  %B = te.compute (%y, %x) in [64, 128] : (tensor<66x128xf32>) -> tensor<64x128xf32> { (%A[%y, %x] + %A[%y + 1, %x] + %A[%y + 2, %x]) * 0.33 }
  %S = te.compute (%y, %x) in [64, 128] : (tensor<64x128xf32>) -> tensor<64x128xf32> { %B[%y, %x] * 2.0 }
  %R = te.compute (%y, %x) in [64, 128] : (tensor<64x128xf32>) -> tensor<64x128xf32> { max(%S[%y, %x], 0.0) }
  func.return %R : tensor<64x128xf32>
}
