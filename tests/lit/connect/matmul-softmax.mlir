// --connect on Welder §2's Matmul -> Softmax (softmax as te's row max, exp, row sum,
// divide), at the three ablation settings of §5.5 (Welder-none, Welder-base, Welder), V100.
// RUN: rtile-opt %s --connect="device=v100 connect-level=none" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: rtile-opt %s --connect="device=v100 connect-level=register" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=BASE
// RUN: rtile-opt %s --pass-pipeline="builtin.module(connect{device=v100})" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=FULL
// The result verifies (propagation and footprint rules included) when read back, and its
// generic form goes through upstream mlir-opt-22 and back.
// RUN: rtile-opt %s --connect="device=v100" | rtile-opt | FileCheck %s --check-prefix=FULL
// RUN: rtile-opt %s --connect="device=v100" --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s --check-prefix=FULL

// Welder-none: one kernel per op, every edge through global memory.
// NONE: 5 kernels
// NONE: 0 register-edges
// NONE: 0 shared-edges
// NONE-COUNT-5: tilegraph.kernel ->
// NONE-NOT: "register"

// Welder-base: element-wise consumers inlined in registers (§4.2 compute_inline); the
// reductions that need a whole row of their producer are not (§5.5: register-only
// connection does not cover chains of reductions).
// BASE: 3 kernels
// BASE: 2 register-edges
// BASE: 0 shared-edges
// BASE: tilegraph.kernel
// BASE: te.compute (%m, %n) reduce (%k)
// BASE: tilegraph.kernel
// BASE: te.max
// BASE: tilegraph.connect = ["global", "register"]
// BASE: tilegraph.kernel
// BASE: te.sum
// BASE: tilegraph.connect = ["global", "register"]

// Welder: one kernel; the row reductions read the matmul's tile in shared memory.
// FULL: tilegraph.kernel -> (tensor<4096x128xf32>) {
// FULL: te.compute (%m, %n) reduce (%k) in [4096, 128, 64]
// FULL: } {tilegraph.connect = ["global", "global"]
// A [32x128] block tile, 256 threads of [2x8] points (§4.1: at least 128 threads a block).
// It was [8x128] (2.7× the traffic) until the lowering computed shared stages in k-steps:
// the matmul's stage then read A and B from global memory at every point, its whole-k
// copies (56 KB) being over the copy limit, and the estimate counted those reads
// (connect/fit.rs `unstaged_bytes`). Now B comes in k-steps of 32 and nothing is re-read.
// FULL-SAME: tilegraph.tiles = {register = array<i64: 2, 8, 1>, shared = array<i64: 32, 128, 32>}
// The matmul's furthest consumer (exp) is decided first: connecting it pulls the row max
// in between into the kernel, and beats two kernels (the estimates, in µs, are printed).
// The row max then reads the matmul's tile in shared memory: in registers, it would ask
// each thread for whole rows while exp asks [1x8] (§3.1 inconsistent propagation).
// FULL: te.max
// FULL-NEXT: } {tilegraph.connect = ["shared"], tilegraph.decisions = [{chosen = "shared", global = "both ends are already in one kernel", register = "no thread tile propagates consistently inside the block tile", shared = {{.*}} : f64}]
// FULL-SAME: tilegraph.tiles = {register = array<i64: 2, 1>, shared = array<i64: 32, 128>}
// FULL: exp(
// FULL-NEXT: } {tilegraph.connect = ["register", "register"], tilegraph.decisions = [{chosen = "register", global = 3.392900e+01 : f64, register = 1.813500e+01 : f64, shared = 1.826900e+01 : f64}
// FULL: tilegraph.yield
// Traffic = (32·64 + 64·128 + 32·128) · 4 B per tile × 128 tiles (§3.1).
// FULL: tilegraph.device = "v100", tilegraph.footprint = {register = 192 : i64, shared = 36864 : i64}, tilegraph.parallelism = {blocks = 128 : i64, threads = 256 : i64, utilization = 1.000000e+00 : f64}, tilegraph.traffic = {global = 7340032 : i64, shared = {{[0-9]+}} : i64}
// FULL-NOT: tilegraph.kernel
func.func @f(%A: tensor<4096x64xf32>, %B: tensor<64x128xf32>) -> tensor<4096x128xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [4096, 128, 64]
         : (tensor<4096x64xf32>, tensor<64x128xf32>) -> tensor<4096x128xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  %M = te.compute (%i) reduce (%j) in [4096, 128] : (tensor<4096x128xf32>) -> tensor<4096xf32> {
    te.max(%C[%i, %j])
  }
  %E = te.compute (%i, %j) in [4096, 128] : (tensor<4096x128xf32>, tensor<4096xf32>) -> tensor<4096x128xf32> {
    exp(%C[%i, %j] - %M[%i])
  }
  %S = te.compute (%i) reduce (%j) in [4096, 128] : (tensor<4096x128xf32>) -> tensor<4096xf32> {
    te.sum(%E[%i, %j])
  }
  %D = te.compute (%i, %j) in [4096, 128] : (tensor<4096x128xf32>, tensor<4096xf32>) -> tensor<4096x128xf32> {
    %E[%i, %j] / %S[%i]
  }
  func.return %D : tensor<4096x128xf32>
}
