// Reducing shared stages with fewer points than the block's threads are computed by lanes
// of a warp per point (issue 14; docs/passes/lower-to-gpu.md "Shared stages",
// lower_to_gpu/shared_lanes.rs). LayerNorm at simulator size through --connect at h100:
// one kernel of 4-row blocks of 256 threads whose row mean and variance are shared stages
// of 4 points each. Each row's 64-point reduction is shared by 32 lanes (2 points each,
// consecutive lanes reading consecutive elements of the row's shared copy), combined by a
// butterfly of five `gpu.shuffle xor` (16, 8, 4, 2, 1) that every thread runs, and lane 0
// of each row's warp stores it, before the stage's barrier. The simulator checks the
// kernel against the te chain (a shuffle outside a full warp, a race or an uninitialised
// shared read fails it); mlir-opt-22 verifies the module.
// RUN: rtile-opt %S/../../../bench/models/welder/layernorm-sim.mlir --connect=device=h100 --lower-to-gpu -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-run --sim --check %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: gpu.func @layernorm_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// The row mean: point = tid / 32, lane = tid % 32.
// CHECK: %[[P:[0-9]+]] = arith.divui %[[TID:[0-9]+]], %c32 : index
// CHECK-NEXT: %[[L:[0-9]+]] = arith.remui %[[TID]], %c32 : index
// CHECK-NEXT: %[[V:[0-9]+]] = arith.cmpi ult, %[[P]], %c4 : index
// CHECK-NEXT: %[[PART:[0-9]+]] = scf.if %[[V]] -> (f32) {
// CHECK: scf.for %{{.*}} = %[[L]] to %c64 step %c32 iter_args
// CHECK: "gpu.shuffle"(%[[PART]], %c16_i32, %c32_i32) <{mode = #gpu<shuffle_mode xor>}>
// CHECK: "gpu.shuffle"({{.*}}, %c8_i32, %c32_i32)
// CHECK: "gpu.shuffle"({{.*}}, %c4_i32, %c32_i32)
// CHECK: "gpu.shuffle"({{.*}}, %c2_i32, %c32_i32)
// CHECK: "gpu.shuffle"({{.*}}, %c1_i32, %c32_i32)
// CHECK-NEXT: %[[SUM:[0-9]+]] = arith.addf
// CHECK-NEXT: %[[FIRST:[0-9]+]] = arith.cmpi eq, %[[L]], %c0{{.*}} : index
// CHECK-NEXT: %[[W:[0-9]+]] = arith.andi %[[V]], %[[FIRST]] : i1
// CHECK-NEXT: scf.if %[[W]] {
// CHECK: memref.store {{.*}} : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// The variance: the same shape.
// CHECK: scf.for %{{.*}} = %[[L]] to %c64 step %c32 iter_args
// CHECK-COUNT-5: "gpu.shuffle"
// CHECK: memref.store {{.*}} : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return

// SIM: @layernorm_0: 1024 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// UPSTREAM: gpu.func @layernorm_0
