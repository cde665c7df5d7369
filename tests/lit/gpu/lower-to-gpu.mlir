// --lower-to-gpu on a 60x64x48 matmul under a hand-written program: block tile
// [32, 64, 16], thread tile [4, 4, 1] (128 threads), storage padding 1 on A's tile rows
// and 4 on B's. m (60) is padded to 64 by the grid: only m is guarded; n (64) and k (48,
// three k-steps of 16) divide exactly and get no guard.
//
// The generic form verifies in upstream MLIR; the structure is checked on mlir-opt-22's
// printout of it (upstream custom syntax for every op, whichever dialects rtile registers).
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu --mlir-print-op-generic %s > %t.generic
// RUN: mlir-opt --verify-each %t.generic | FileCheck %s --implicit-check-not=arith.cmpi --implicit-check-not=memref.alloca
// Without register prefetch the k-step keeps the cooperative-load loops (verified too).
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu=prefetch=false --mlir-print-op-generic %s > %t.off
// RUN: mlir-opt --verify-each %t.off | FileCheck %s --check-prefix=OFF --implicit-check-not=arith.cmpi --implicit-check-not=memref.alloca
// rtile's own custom form of the gpu-level ops, and its round trip.
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu %s > %t.custom
// RUN: FileCheck %s --check-prefix=RTILE --input-file=%t.custom
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.custom > %t.back
// RUN: diff %t.generic %t.back
// The register tile's outer product: per reduction index, one load per row of A's tile
// (4), B's 4 columns as one 16-byte vector load (the blocked thread mapping along n: the
// thread's 4 columns are consecutive) and 16 multiply-adds, all in the one k loop body.
// RUN: grep -c 'memref.load %arg3\[' %t.custom | FileCheck %s --check-prefix=FOUR
// RUN: grep -c 'vector.load %arg4\[' %t.custom | FileCheck %s --check-prefix=ONE
// RUN: not grep 'memref.load %arg4\[' %t.custom
// RUN: grep -c 'arith.mulf' %t.custom | FileCheck %s --check-prefix=SIXTEEN
// FOUR: {{^}}4{{$}}
// ONE: {{^}}1{{$}}
// SIXTEEN: {{^}}16{{$}}
// thread-mapping=interleaved: the thread's columns are 16 apart (j·nthr + tc), one scalar
// load per column of B's tile (verified too).
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu=thread-mapping=interleaved --mlir-print-op-generic %s > %t.inter
// RUN: mlir-opt --verify-each %t.inter | FileCheck %s --check-prefix=INTER --implicit-check-not=memref.alloca
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu=thread-mapping=interleaved %s > %t.inter.custom
// RUN: grep -c 'memref.load %arg4\[' %t.inter.custom | FileCheck %s --check-prefix=FOUR
// RUN: not grep 'vector.load %arg4\[' %t.inter.custom
// thread-mapping=transposed (opt-in): A's tile is stored transposed (16x36: k rows of m,
// its own 16-byte-aligned pitch), so A's 4 rows are one 16-byte load too (verified too).
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu=thread-mapping=transposed --mlir-print-op-generic %s > %t.trans
// RUN: mlir-opt --verify-each %t.trans > /dev/null
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu=thread-mapping=transposed %s > %t.trans.custom
// RUN: grep -c 'vector.load %arg3\[.*memref<16x36xf32' %t.trans.custom | FileCheck %s --check-prefix=ONE
// RUN: grep -c 'vector.load %arg4\[' %t.trans.custom | FileCheck %s --check-prefix=ONE
// RUN: not grep 'memref.load %arg3\[' %t.trans.custom
// RUN: not rtile-opt --allow-unregistered-dialect --lower-to-gpu=thread-mapping=bogus %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: invalid value 'bogus' for option 'thread-mapping' (expected auto, transposed or interleaved)

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @kernels [#nvvm.target<chip = "sm_70">] attributes {rtile.device = "v100"} {
// Shared tiles with storage padding: A's 32x16 tile as 32x17, B's 16x64 tile as 16x68.
// CHECK: gpu.func @mm_0(%[[A:arg[0-9]+]]: memref<60x48xf32>, %[[B:arg[0-9]+]]: memref<48x64xf32>, %[[OUT:arg[0-9]+]]: memref<60x64xf32>) workgroup(%[[SHA:arg[0-9]+]] : memref<32x17xf32, #gpu.address_space<workgroup>>, %[[SHB:arg[0-9]+]] : memref<16x68xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 1, 1>, rtile.launch = {block = array<i32: 128, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 2, 1, 1>}, rtile.te = "func.func @ref
// CHECK: %block_id_x = gpu.block_id  x
// CHECK: %thread_id_x = gpu.thread_id  x
// Prologue (register prefetch): k-step 0's share of each tile into registers, unrolled:
// A's 512 elements over 128 threads are 4 scalar loads per thread, guarded on m only (rows
// 60..63 read the pad value); B's 256 16-byte units are 2 vector loads, unguarded. Then
// the stores to shared memory and a barrier.
// CHECK: %[[G0:[0-9]+]] = arith.cmpi slt, %{{[0-9]+}}, %c60 : index
// CHECK-NEXT: %[[PA0:[0-9]+]] = scf.if %[[G0]] -> (f32) {
// CHECK-NEXT: memref.load %[[A]][
// CHECK: %[[G1:[0-9]+]] = arith.cmpi slt, %{{[0-9]+}}, %c60 : index
// CHECK: %[[G2:[0-9]+]] = arith.cmpi slt, %{{[0-9]+}}, %c60 : index
// CHECK: %[[G3:[0-9]+]] = arith.cmpi slt, %{{[0-9]+}}, %c60 : index
// CHECK: %[[PB0:[0-9]+]] = vector.load %[[B]][%{{[0-9]+}}, %{{[0-9]+}}] : memref<48x64xf32>, vector<4xf32>
// CHECK: %[[PB1:[0-9]+]] = vector.load %[[B]][%{{[0-9]+}}, %{{[0-9]+}}] : memref<48x64xf32>, vector<4xf32>
// CHECK-NEXT: memref.store %[[PA0]], %[[SHA]][
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: vector.store %[[PB0]], %[[SHB]][
// CHECK-NEXT: vector.store %[[PB1]], %[[SHB]][
// CHECK-NEXT: gpu.barrier
// The k-step loop carries the register tile (4x4 accumulators per thread, starting at
// 0.0) as iter_args: no private array.
// CHECK-NEXT: %[[TILE:[0-9]+]]:16 = scf.for %[[K0:arg[0-9]+]] = %c0 to %c48 step %c16 iter_args(%{{arg[0-9]+}} = %cst, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// First the next k-step's global loads into registers (the m guards are the prologue's),
// so their latency overlaps this step's compute; past the last step, the pad value.
// CHECK-NEXT: %[[NEXT:[0-9]+]] = arith.addi %[[K0]], %c16 : index
// CHECK-NEXT: %[[HAS:[0-9]+]] = arith.cmpi slt, %[[NEXT]], %c48 : index
// CHECK-NEXT: %[[PF:[0-9]+]]:6 = scf.if %[[HAS]] -> (f32, f32, f32, f32, vector<4xf32>, vector<4xf32>) {
// CHECK: scf.if %[[G0]] -> (f32) {
// CHECK-NEXT: memref.load %[[A]][
// CHECK: scf.if %[[G1]] -> (f32) {
// CHECK: scf.if %[[G2]] -> (f32) {
// CHECK: scf.if %[[G3]] -> (f32) {
// CHECK: vector.load %[[B]][
// CHECK: vector.load %[[B]][
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[PADV:[0-9]+]] = vector.broadcast %cst : f32 to vector<4xf32>
// CHECK-NEXT: scf.yield %cst, %cst, %cst, %cst, %[[PADV]], %[[PADV]] :
// CHECK-NEXT: }
// Compute: the reduction loop outside, the 16 points unrolled inside; no guard (points
// past m read the pad-filled tile, only their store is skipped). Point (0, 0) loads A's
// row and B's run of 4 columns (one vector<4xf32> at 4·tc: the blocked mapping) and takes
// lane 0; point (0, 1) reuses A's value and the vector, taking lane 1. The multiply and
// add may contract into one fma (fastmath<contract>).
// CHECK: %[[R:[0-9]+]]:16 = scf.for %[[K:arg[0-9]+]] = %c0 to %c16 step %c1 iter_args(%[[ACC0:arg[0-9]+]] = %{{arg[0-9]+}}, %[[ACC1:arg[0-9]+]] = %{{arg[0-9]+}}, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT: %[[A0:[0-9]+]] = memref.load %[[SHA]][%{{[0-9]+}}, %[[K]]]
// CHECK-NEXT: %[[BV:[0-9]+]] = vector.load %[[SHB]][%[[K]], %{{[0-9]+}}] : memref<16x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: %[[B0:[0-9]+]] = vector.extract %[[BV]][0] : f32 from vector<4xf32>
// CHECK-NEXT: %[[P0:[0-9]+]] = arith.mulf %[[A0]], %[[B0]] fastmath<contract> : f32
// CHECK-NEXT: %[[S0:[0-9]+]] = arith.addf %[[ACC0]], %[[P0]] fastmath<contract> : f32
// CHECK-NEXT: %[[B1:[0-9]+]] = vector.extract %[[BV]][1] : f32 from vector<4xf32>
// CHECK-NEXT: %[[P1:[0-9]+]] = arith.mulf %[[A0]], %[[B1]] fastmath<contract> : f32
// CHECK-NEXT: %[[S1:[0-9]+]] = arith.addf %[[ACC1]], %[[P1]] fastmath<contract> : f32
// CHECK: scf.yield %[[S0]], %[[S1]], {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
// A barrier (every thread has read the tiles), the prefetched registers to shared memory
// when there is a next step, a barrier (the stores are visible); none after the loop.
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[HAS]] {
// CHECK-NEXT: memref.store %[[PF]]#0, %[[SHA]][
// CHECK-NEXT: memref.store %[[PF]]#1, %[[SHA]][
// CHECK-NEXT: memref.store %[[PF]]#2, %[[SHA]][
// CHECK-NEXT: memref.store %[[PF]]#3, %[[SHA]][
// CHECK-NEXT: vector.store %[[PF]]#4, %[[SHB]][
// CHECK-NEXT: vector.store %[[PF]]#5, %[[SHB]][
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.yield %[[R]]#0, %[[R]]#1,
// CHECK-NOT: gpu.barrier
// Epilogue: the register tile to the output; the 4 rows of points guarded on m, one
// scf.if per row (the first row's guard is the prologue's first one).
// CHECK-COUNT-3: arith.cmpi slt, %{{[0-9]+}}, %c60 : index
// CHECK: scf.if %[[G0]]
// CHECK-NEXT: memref.store %[[TILE]]#0, %[[OUT]][
// CHECK-NEXT: memref.store %[[TILE]]#1, %[[OUT]][
// CHECK-COUNT-3: scf.if
// CHECK: memref.store %[[TILE]]#15, %[[OUT]][
// CHECK: gpu.return
// Host side: destination-passing function launching the kernel; no intermediates (peak 0),
// the te function kept as its reference.
// CHECK: func.func @mm(%{{.*}}: memref<60x48xf32>, %{{.*}}: memref<48x64xf32>, %{{.*}}: memref<60x64xf32>) attributes {rtile.peak_bytes = 0 : i64, rtile.te = "{{.*}}func.func{{.*}}te.compute{{.*}}"} {
// CHECK: gpu.launch_func  @kernels::@mm_0 blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1)  args(%{{.*}} : memref<60x48xf32>, %{{.*}} : memref<48x64xf32>, %{{.*}} : memref<60x64xf32>)

// prefetch=false: the load, barrier, compute, barrier form.
// OFF: module attributes {gpu.container_module}
// OFF: gpu.module @kernels [#nvvm.target<chip = "sm_70">] attributes {rtile.device = "v100"} {
// Shared tiles with storage padding: A's 32x16 tile as 32x17, B's 16x64 tile as 16x68.
// OFF: gpu.func @mm_0(%[[A:arg[0-9]+]]: memref<60x48xf32>, %[[B:arg[0-9]+]]: memref<48x64xf32>, %[[OUT:arg[0-9]+]]: memref<60x64xf32>) workgroup(%[[SHA:arg[0-9]+]] : memref<32x17xf32, #gpu.address_space<workgroup>>, %[[SHB:arg[0-9]+]] : memref<16x68xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 1, 1>, rtile.launch = {block = array<i32: 128, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 2, 1, 1>}, rtile.te = "func.func @ref
// OFF: %block_id_x = gpu.block_id  x
// OFF: %thread_id_x = gpu.thread_id  x
// The k-step loop carries the register tile (4x4 accumulators per thread, starting at
// 0.0) as iter_args: no private array.
// OFF: %[[TILE:[0-9]+]]:16 = scf.for %[[K0:arg[0-9]+]] = %c0 to %c48 step %c16 iter_args(%{{arg[0-9]+}} = %cst, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// A's tile: cooperative loads by all threads, guarded on m only (rows 60..63 read the pad value).
// OFF: scf.for %{{arg[0-9]+}} = %thread_id_x to %c512 step %c128 {
// OFF: arith.cmpi slt, %{{[0-9]+}}, %c60 : index
// OFF: memref.load %[[A]][
// OFF: memref.store %{{[0-9]+}}, %[[SHA]][
// B's tile: 16-byte vector loads, no guard.
// OFF: %[[V:[0-9]+]] = vector.load %[[B]][%{{[0-9]+}}, %{{[0-9]+}}] : memref<48x64xf32>, vector<4xf32>
// OFF: vector.store %[[V]], %[[SHB]][
// OFF: gpu.barrier
// Compute: the reduction loop outside, the 16 points unrolled inside; no guard (points
// past m read the pad-filled tile, only their store is skipped). Point (0, 0) loads A's
// row and B's run of 4 columns as one vector (lane 0); point (0, 1) reuses both (lane 1). The
// multiply and add may contract into one fma (fastmath<contract>).
// OFF: %[[R:[0-9]+]]:16 = scf.for %[[K:arg[0-9]+]] = %c0 to %c16 step %c1 iter_args(%[[ACC0:arg[0-9]+]] = %{{arg[0-9]+}}, %[[ACC1:arg[0-9]+]] = %{{arg[0-9]+}}, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// OFF-NEXT: %[[A0:[0-9]+]] = memref.load %[[SHA]][%{{[0-9]+}}, %[[K]]]
// OFF-NEXT: %[[BV:[0-9]+]] = vector.load %[[SHB]][%[[K]], %{{[0-9]+}}] : memref<16x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// OFF-NEXT: %[[B0:[0-9]+]] = vector.extract %[[BV]][0] : f32 from vector<4xf32>
// OFF-NEXT: %[[P0:[0-9]+]] = arith.mulf %[[A0]], %[[B0]] fastmath<contract> : f32
// OFF-NEXT: %[[S0:[0-9]+]] = arith.addf %[[ACC0]], %[[P0]] fastmath<contract> : f32
// OFF-NEXT: %[[B1:[0-9]+]] = vector.extract %[[BV]][1] : f32 from vector<4xf32>
// OFF-NEXT: %[[P1:[0-9]+]] = arith.mulf %[[A0]], %[[B1]] fastmath<contract> : f32
// OFF-NEXT: %[[S1:[0-9]+]] = arith.addf %[[ACC1]], %[[P1]] fastmath<contract> : f32
// OFF: scf.yield %[[S0]], %[[S1]], {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
// The barrier before the next k-step overwrites the tiles; none after the loop.
// OFF: gpu.barrier
// OFF-NEXT: scf.yield %[[R]]#0, %[[R]]#1,
// OFF-NOT: gpu.barrier
// Epilogue: the register tile to the output; the 4 rows of points guarded on m, one
// scf.if per row.
// OFF-COUNT-4: arith.cmpi slt, %{{[0-9]+}}, %c60 : index
// OFF: scf.if
// OFF-NEXT: memref.store %[[TILE]]#0, %[[OUT]][
// OFF-NEXT: memref.store %[[TILE]]#1, %[[OUT]][
// OFF-COUNT-3: scf.if
// OFF: memref.store %[[TILE]]#15, %[[OUT]][
// OFF: gpu.return
// Host side: destination-passing function launching the kernel; no intermediates (peak 0),
// the te function kept as its reference.
// OFF: func.func @mm(%{{.*}}: memref<60x48xf32>, %{{.*}}: memref<48x64xf32>, %{{.*}}: memref<60x64xf32>) attributes {rtile.peak_bytes = 0 : i64, rtile.te = "{{.*}}func.func{{.*}}te.compute{{.*}}"} {
// OFF: gpu.launch_func  @kernels::@mm_0 blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1)  args(%{{.*}} : memref<60x48xf32>, %{{.*}} : memref<48x64xf32>, %{{.*}} : memref<60x64xf32>)

// thread-mapping=interleaved: the compute's B loads are scalar, one per column.
// INTER: %[[R:[0-9]+]]:16 = scf.for %[[K:arg[0-9]+]] = %c0 to %c16 step %c1 iter_args(%[[ACC0:arg[0-9]+]] = %{{arg[0-9]+}}, %[[ACC1:arg[0-9]+]] = %{{arg[0-9]+}}, {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// INTER-NEXT: %[[A0:[0-9]+]] = memref.load %[[SHA:arg[0-9]+]][%{{[0-9]+}}, %[[K]]]
// INTER-NEXT: %[[B0:[0-9]+]] = memref.load %[[SHB:arg[0-9]+]][%[[K]], %{{[0-9]+}}]
// INTER-NEXT: %[[P0:[0-9]+]] = arith.mulf %[[A0]], %[[B0]] fastmath<contract> : f32
// INTER-NEXT: %[[S0:[0-9]+]] = arith.addf %[[ACC0]], %[[P0]] fastmath<contract> : f32
// INTER-NEXT: %[[B1:[0-9]+]] = memref.load %[[SHB]][%[[K]], %{{[0-9]+}}]
// INTER-NEXT: %[[P1:[0-9]+]] = arith.mulf %[[A0]], %[[B1]] fastmath<contract> : f32
// INTER-NEXT: %[[S1:[0-9]+]] = arith.addf %[[ACC1]], %[[P1]] fastmath<contract> : f32
// INTER: scf.yield %[[S0]], %[[S1]], {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
// INTER: gpu.return

// RTILE: gpu.module @kernels [#nvvm.target<chip = "sm_70">] attributes {rtile.device = "v100"} {
// RTILE: gpu.func @mm_0(%arg0: memref<60x48xf32>, %arg1: memref<48x64xf32>, %arg2: memref<60x64xf32>) workgroup(%arg3 : memref<32x17xf32, #gpu.address_space<workgroup>>, %arg4 : memref<16x68xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>
// RTILE: = gpu.block_id  x
// RTILE: = gpu.thread_id  x
// RTILE: vector.load %arg1[%{{[0-9]+}}, %{{[0-9]+}}] : memref<48x64xf32>, vector<4xf32>
// RTILE: gpu.barrier
// RTILE: = scf.for %arg5 = %c0 to %c48 step %c16 iter_args(%arg6 = %cst,
// RTILE: vector.load %arg1[%{{[0-9]+}}, %{{[0-9]+}}] : memref<48x64xf32>, vector<4xf32>
// RTILE: iter_args(
// RTILE: gpu.barrier
// RTILE: gpu.barrier
// RTILE-NOT: gpu.barrier
// RTILE: gpu.return

"func.func"() <{function_type = (tensor<60x48xf32>, tensor<48x64xf32>) -> tensor<60x64xf32>, sym_name = "mm"}> ({
^bb0(%A: tensor<60x48xf32>, %B: tensor<48x64xf32>):
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 60, 64, 48>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], may_pad = 0.0 : f32, rtile.program = #rtile.program<device = "v100", tiles = [[32, 64, 16], [4, 4, 1]], pad = [[0, 1], [0, 4]], grid = [2, 1], threads = 128, est_us = 1.0, epsilon = 0.2, footprint = [0, 0, 0], traffic = [0, 0, 0]>} : (tensor<60x48xf32>, tensor<48x64xf32>) -> tensor<60x64xf32>
  "func.return"(%C) : (tensor<60x64xf32>) -> ()
}) : () -> ()
