// Warp lanes for reducing shared stages in a block that ends in a partial warp
// (lower_to_gpu/shared_lanes.rs): a softmax over rows of 80 at v100 is one kernel of
// one-row blocks of 80 threads, two whole warps and 16 threads. The row max and the row
// sum (one point each) go to 32 lanes of the first warp; the threads of the whole warps
// (tid < 64) run the butterfly of five `gpu.shuffle xor`, and the partial warp skips it,
// since a full-warp shuffle needs all 32 lanes (the simulator fails a collective op in a
// partial warp). Before, such a block computed each row's 80-point reduction on one thread.
// RUN: rtile-opt %s --connect=device=v100 --lower-to-gpu -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-run --sim --check %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: gpu.func @softmax_0(
// CHECK-SAME: known_block_size = array<i32: 80, 1, 1>
// The row max: point = tid / 32 (< 1), lane = tid % 32, lane l folds l, l + 32, ...
// CHECK: %[[P:[0-9]+]] = arith.divui %[[TID:[0-9]+]], %c32 : index
// CHECK-NEXT: %[[L:[0-9]+]] = arith.remui %[[TID]], %c32 : index
// CHECK-NEXT: %[[V:[0-9]+]] = arith.cmpi ult, %[[P]], %c1 : index
// CHECK-NEXT: %[[PART:[0-9]+]] = scf.if %[[V]] -> (f32) {
// CHECK: scf.for %{{.*}} = %[[L]] to %c80 step %c32 iter_args
// Only the whole warps shuffle.
// CHECK: %[[W:[0-9]+]] = arith.cmpi ult, %[[TID]], %c64 : index
// CHECK-NEXT: scf.if %[[W]] {
// CHECK-NEXT: "gpu.shuffle"(%[[PART]], %c16_i32, %c32_i32) <{mode = #gpu<shuffle_mode xor>}>
// CHECK-NEXT: arith.maximumf
// CHECK: "gpu.shuffle"({{.*}}, %c1_i32, %c32_i32)
// CHECK: memref.store %{{[0-9]+}}, %{{[0-9]+}}[%[[P]]] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// The row sum the same way, under the same guard.
// CHECK: scf.if %[[W]] {
// CHECK-NEXT: "gpu.shuffle"({{.*}}, %c16_i32, %c32_i32)
// CHECK-NEXT: arith.addf
// CHECK-NOT: gpu.func

// SIM: @softmax_0: 480 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @softmax: 1 kernels, 0 constants
// UPSTREAM: gpu.func @softmax_0

func.func @softmax(%X: tensor<6x80xf32>) -> tensor<6x80xf32> {
  %M = te.compute (%i) reduce (%j) in [6, 80] : (tensor<6x80xf32>) -> tensor<6xf32> { te.max(%X[%i, %j]) }
  %E = te.compute (%i, %j) in [6, 80] : (tensor<6x80xf32>, tensor<6xf32>) -> tensor<6x80xf32> { exp(%X[%i, %j] - %M[%i]) }
  %Z = te.compute (%i) reduce (%j) in [6, 80] : (tensor<6x80xf32>) -> tensor<6xf32> { te.sum(%E[%i, %j]) }
  %P = te.compute (%i, %j) in [6, 80] : (tensor<6x80xf32>, tensor<6xf32>) -> tensor<6x80xf32> { %E[%i, %j] / %Z[%i] }
  func.return %P : tensor<6x80xf32>
}
