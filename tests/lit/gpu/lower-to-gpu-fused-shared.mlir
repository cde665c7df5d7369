// Welder's shared-level connection in a fused kernel (issue 14 item 5; Welder §3.2, §4.2):
// after --connect (full Welder), a producer read at the shared level is a shared stage:
// before the kernel's loop the block computes the producer's whole propagated tile (halo
// included) into shared memory, one point per thread in turn (a warp's lanes per point
// where a reducing stage has few points), then a barrier; the consumer
// reads it from there; a reducing stage's global inputs are staged by copy stages. The
// buffers are views of one dynamic shared allocation at the offsets of a best-fit plan
// (32-byte aligned). The simulator checks each function whole
// and each kernel against its members' unfused te chain (f64 oracle); a shared race or an
// uninitialised shared read would fail the run.
// The kernels checked below are lowered from the tiles --connect chose before issue 14's
// re-tuning (Inputs/fused-shared-connected.mlir, this file's functions after --connect), so
// that this lowering test does not follow the cost model. What --connect decides now
// (Matmul -> Softmax in one kernel with six shared stages) lowers and matches too:
// RUN: rtile-opt %s --connect="device=v100" --lower-to-gpu | rtile-run --sim --check | FileCheck %s --check-prefix=NOW
// NOW: @f_0: 4096 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// NOW: @mb_1: 512 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// RUN: rtile-opt %S/Inputs/fused-shared-connected.mlir --lower-to-gpu -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-run --sim --seed 3 %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-run --sim --check %t.mlir | FileCheck %s --check-prefix=KERNELS
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM

// Matmul -> Softmax: the matmul is its own kernel; in the softmax's kernel the exp is read
// by the row sum at the shared level, so its [1 x 64] row tile is a shared stage; the row
// max and row sum, read in registers, would be recomputed at every point that reads them,
// so they are shared stages too (one value per block each), and the row max's input row
// is staged by a copy stage (read once per block, not once per point). Best-fit offsets:
// the copy's buffer is free once the row max is done, and the exp's row takes its place;
// the row sum takes the row max's.
// CHECK-LABEL: gpu.func @f_1(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>)
// CHECK-SAME: dynamic_shared_memory = 288
// CHECK-SAME: rtile.shared_stages = 4
// CHECK: %[[BASE:.*]] = "gpu.dynamic_shared_memory"()
// CHECK: %[[CC:.*]] = "memref.view"(%[[BASE]], %c0) {{.*}} -> memref<1x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[M:.*]] = "memref.view"(%[[BASE]], %c256) {{.*}} -> memref<1xf32, #gpu.address_space<workgroup>>
// CHECK: %[[E:.*]] = "memref.view"(%[[BASE]], %c0{{.*}}) {{.*}} -> memref<1x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S:.*]] = "memref.view"(%[[BASE]], %c256{{.*}}) {{.*}} -> memref<1xf32, #gpu.address_space<workgroup>>
// The copy of the matmul's row: each thread takes points tid, tid + 32, .. of the tile (a whole warp: the thread tile is aligned to it, Roller §3.1).
// CHECK: scf.for %{{.*}} = %[[TID:.*]] to %c64 step %c32 {
// CHECK: memref.load %arg0[
// CHECK: memref.store %{{.*}}, %[[CC]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// The row max, from the copy: one point, so the block's 32 threads share it as lanes
// (lane = tid % 32 folds elements lane, lane + 32; shared_lanes.rs), combined by a
// shuffle butterfly; lane 0 stores it.
// CHECK: scf.for %{{.*}} = %[[LANE:[0-9]+]] to %c64 step %c32 iter_args
// CHECK: memref.load %[[CC]][
// CHECK: arith.maximumf
// CHECK-COUNT-5: "gpu.shuffle"
// CHECK: memref.store %{{.*}}, %[[M]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// The exp's row, reading the max from shared memory.
// CHECK: scf.for %{{.*}} = %[[TID]] to %c64 step %c32 {
// CHECK: memref.load %[[M]][
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[E]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// The row sum, by lanes too.
// CHECK: scf.for %{{.*}} = %[[LANE]] to %c64 step %c32 iter_args
// CHECK: memref.load %[[E]][
// CHECK-COUNT-5: "gpu.shuffle"
// CHECK: memref.store %{{.*}}, %[[S]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// The division reads both from shared memory.
// CHECK: memref.load %[[E]][
// CHECK: memref.load %[[S]][
// CHECK: arith.divf
// CHECK-NOT: math.exp
// CHECK: gpu.return

// MobileNetV2 block (expand 1x1 -> relu -> 3x3 depthwise -> project 1x1) in ONE kernel:
// the depthwise conv's tile is a shared stage (the projection reads it at the shared
// level), and so is the expand conv's tile with its 3x3 halo ([1 x 24 x 3 x 10] for the
// depthwise conv's [1 x 24 x 1 x 8]) that the depthwise conv reads in registers; the two
// convolutions' inputs and weights are staged by copy stages. The projection's staged
// weight tile reuses freed space (offset 0).
// CHECK-LABEL: gpu.func @mb_2(
// CHECK-SAME: dynamic_shared_memory = 4608
// CHECK-SAME: rtile.shared_stages = 5
// CHECK: "memref.view"(%{{.*}}, %c0) {{.*}} -> memref<2x24xf32, #gpu.address_space<workgroup>>
// CHECK: %[[I:.*]] = "memref.view"(%{{.*}}, %c0{{.*}}) {{.*}} -> memref<1x8x3x10xf32, #gpu.address_space<workgroup>>
// CHECK: %[[W1:.*]] = "memref.view"(%{{.*}}, %c960) {{.*}} -> memref<24x8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[X:.*]] = "memref.view"(%{{.*}}, %c1728) {{.*}} -> memref<1x24x3x10xf32, #gpu.address_space<workgroup>>
// CHECK: %[[K:.*]] = "memref.view"(%{{.*}}, %c0{{.*}}) {{.*}} -> memref<24x3x3xf32, #gpu.address_space<workgroup>>
// CHECK: %[[D:.*]] = "memref.view"(%{{.*}}, %c864) {{.*}} -> memref<1x24x1x8xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c240 step %c16 {
// CHECK: memref.store %{{.*}}, %[[I]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[W1]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %c720 step %c16 {
// CHECK: memref.load %[[I]][
// CHECK: memref.load %[[W1]][
// CHECK: memref.store %{{.*}}, %[[X]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[K]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %c192 step %c16 {
// CHECK: memref.load %[[X]][
// CHECK: memref.store %{{.*}}, %[[D]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[D]][
// CHECK: gpu.return
// CHECK-NOT: gpu.func
// CHECK: func.func @f(
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: func.func @mb(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func

// SIM: @f: 2 kernels
// SIM: @f output 0: tensor<64x64xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @mb: 1 kernels
// SIM: @mb output 0: tensor<1x8x8x8xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}

// KERNELS: @f_1: 4096 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// KERNELS: @mb_2: 512 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}

// UPSTREAM: gpu.func @f_1
// UPSTREAM: gpu.func @mb_2

func.func @f(%A: tensor<64x32xf32>, %B: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [64, 64, 32] : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32> { te.sum(%A[%m, %k] * %B[%k, %n]) }
  %M = te.compute (%i) reduce (%j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64xf32> { te.max(%C[%i, %j]) }
  %E = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32> { exp(%C[%i, %j] - %M[%i]) }
  %S = te.compute (%i) reduce (%j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64xf32> { te.sum(%E[%i, %j]) }
  %D = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32> { %E[%i, %j] / %S[%i] }
  func.return %D : tensor<64x64xf32>
}

func.func @mb(%I: tensor<1x8x10x10xf32>, %W1: tensor<24x8xf32>, %K: tensor<24x3x3xf32>, %W2: tensor<8x24xf32>) -> tensor<1x8x8x8xf32> {
  %X = te.compute (%n, %c, %y, %x) reduce (%k) in [1, 24, 10, 10, 8] : (tensor<1x8x10x10xf32>, tensor<24x8xf32>) -> tensor<1x24x10x10xf32> { te.sum(%I[%n, %k, %y, %x] * %W1[%c, %k]) }
  %R = te.compute (%n, %c, %y, %x) in [1, 24, 10, 10] : (tensor<1x24x10x10xf32>) -> tensor<1x24x10x10xf32> { max(%X[%n, %c, %y, %x], 0.0) }
  %D = te.compute (%n, %c, %y, %x) reduce (%r, %s) in [1, 24, 8, 8, 3, 3] : (tensor<1x24x10x10xf32>, tensor<24x3x3xf32>) -> tensor<1x24x8x8xf32> { te.sum(%R[%n, %c, %y + %r, %x + %s] * %K[%c, %r, %s]) }
  %P = te.compute (%n, %o, %y, %x) reduce (%c) in [1, 8, 8, 8, 24] : (tensor<1x24x8x8xf32>, tensor<8x24xf32>) -> tensor<1x8x8x8xf32> { te.sum(%D[%n, %c, %y, %x] * %W2[%o, %c]) }
  func.return %P : tensor<1x8x8x8xf32>
}
