// --autoschedule-beam (Anderson et al., OOPSLA'21) on a small imaging pipeline: a 3-tap
// blur in x, one in y, a scale and a ReLU, V100. In the paper's whole space
// (lowering-limits=false), greedy (k = 1) and beam (k = 32) both put the output at root,
// inline the point-wise scale (§4: always inlined) and compute the x blur at the ReLU
// kernel's thread level (registers, recomputed for each row the y blur reads): one
// kernel. The block level (shared memory) loses: the lowering computes a block-level
// stage with the kernel's own threads (16 here, one half-idle warp) flat over its region,
// and the features count that (features.rs; tools/tests/beam_banks.rs).
// RUN: rtile-opt %s --autoschedule-beam="device=v100 beam-size=1 lowering-limits=false" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefixes=CHECK,GREEDY
// RUN: rtile-opt %s --autoschedule-beam="device=v100 lowering-limits=false" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefixes=CHECK,BEAM
// The output verifies when read back (propagation and footprint rules of tilegraph), and
// its generic form goes through upstream mlir-opt-22 and back.
// RUN: rtile-opt %s --autoschedule-beam="device=v100 lowering-limits=false" | rtile-opt | FileCheck %s --check-prefix=CHECK
// RUN: rtile-opt %s --autoschedule-beam="device=v100 lowering-limits=false" --mlir-print-op-generic | mlir-opt --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s --check-prefix=CHECK
// Root and inline only (fusion-level=none): the blurs are inlined into the output.
// RUN: rtile-opt %s --autoschedule-beam="device=v100 fusion-level=none lowering-limits=false" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=NONE
// By default (lowering-limits=true) no kernel fuses a stage that reads one value twice
// (the blurs): they are root, the scale is inlined into the ReLU.
// RUN: rtile-opt %s --autoschedule-beam="device=v100" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=LIMITS
// Register fusion within the fused lowering's limits lowers (a member reading one value
// twice is not fused, lowering-limits=true): three kernels on the GPU.
// RUN: rtile-opt %s --autoschedule-beam="device=v100 fusion-level=register" --lower-to-gpu | FileCheck %s --check-prefix=LOWER
// A fused member that reads one value several times (the blurs) lowers too: the fused
// lowering takes a member's operands by input. In the whole space, at fusion-level
// register and shared, the schedule is one kernel that matches the te chain.
// RUN: rtile-opt %s --autoschedule-beam="device=v100 fusion-level=register lowering-limits=false" --lower-to-gpu | rtile-run --sim --check | FileCheck %s --check-prefix=STENCIL
// RUN: rtile-opt %s --autoschedule-beam="device=v100 lowering-limits=false" --lower-to-gpu | rtile-run --sim --check | FileCheck %s --check-prefix=STENCIL
// STENCIL: @chain: 1 kernels, 0 constants
// STENCIL-NEXT: @chain output 0: tensor<64x128xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// The search is deterministic for a seed.
// RUN: rtile-opt %s --autoschedule-beam="device=v100 seed=7" > %t.a
// RUN: rtile-opt %s --autoschedule-beam="device=v100 seed=7" > %t.b
// RUN: diff %t.a %t.b

// GREEDY: 1 kernels
// GREEDY: 0 shared
// BEAM: 1 kernels
// BEAM: 0 shared
// CHECK: func.func @chain
// CHECK-SAME: beam.cost_us = {{.*}} : f64, beam.states_evaluated = {{[0-9]+}} : i64
// CHECK: tilegraph.kernel -> (tensor<64x128xf32>)
// CHECK: beam.location = "register", tilegraph.connect = ["global", "global", "global"]
// CHECK: beam.location = "inline", tilegraph.connect = ["register", "register", "register"]
// CHECK: beam.location = "inline", tilegraph.connect = ["register"]
// CHECK: beam.location = "root", beam.tiling = {blocks = array<i64: {{[0-9]+}}, {{[0-9]+}}>, serial = array<i64: {{[0-9]+}}, {{[0-9]+}}>, threads = array<i64: {{[0-9]+}}, {{16|32|64}}>}, tilegraph.connect = ["register"]
// CHECK: tilegraph.yield
// CHECK: beam.cost_us = {{.*}}, tilegraph.device = "v100"

// NONE: 1 kernels
// NONE: 0 shared
// NONE: beam.location = "inline", tilegraph.connect = ["global", "global", "global"]
// NONE: beam.location = "inline", tilegraph.connect = ["register", "register", "register"]

// LIMITS: 1 inlined
// LIMITS: 3 kernels
// LIMITS: 0 shared

// LOWER-COUNT-3: gpu.func @chain_

func.func @chain(%I: tensor<66x130xf32>) -> tensor<64x128xf32> {
  %A = te.compute (%y, %x) in [66, 128] : (tensor<66x130xf32>) -> tensor<66x128xf32> { (%I[%y, %x] + %I[%y, %x + 1] + %I[%y, %x + 2]) * 0.33 }
  %B = te.compute (%y, %x) in [64, 128] : (tensor<66x128xf32>) -> tensor<64x128xf32> { (%A[%y, %x] + %A[%y + 1, %x] + %A[%y + 2, %x]) * 0.33 }
  %S = te.compute (%y, %x) in [64, 128] : (tensor<64x128xf32>) -> tensor<64x128xf32> { %B[%y, %x] * 2.0 }
  %R = te.compute (%y, %x) in [64, 128] : (tensor<64x128xf32>) -> tensor<64x128xf32> { max(%S[%y, %x], 0.0) }
  func.return %R : tensor<64x128xf32>
}
