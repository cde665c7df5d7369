// Packed rTasks carry their cross-thread reduction split (Roller §4; Rammer §3.1 leaves an
// rTask's computation to its rKernel): three GEMVs ([1×K]·[K×N], K up to 2048) whose
// selected Roller programs give blocks of 11, 4 and 4 threads, so `--lower-to-gpu` splits
// each reduction across 16, 32 and 32 lanes (`reduction::auto_split`, chosen as for an
// unpacked compute). `--wavefront-pack` counts the split rTasks (`RTaskShape::of`: threads
// = program threads × split = 176, 128, 128; shared memory = the program's footprint + the
// tree's buffer of outputs per thread × split × threads words: 27264 + 6·16·11·4 = 31488,
// 24928 + 8·32·4·4 = 29024, 40800 + 4·32·4·4 = 42848) and sizes the vEUs for the most
// demanding (176 threads, 42848 bytes); the persistent kernel lowers each with exactly that
// split. The variants are timed split (session 19: the micro-performance model's estimate
// of the split block) and ordered fastest first: @g_1 and @g_2 take 4-thread programs
// (Roller's 6.345 and 12.52 us unsplit, 2.128 and 3.924 us as 4 × 32 lanes) over Roller's
// first, 7 and 6 threads (3.652 and 9.392 us unsplit; 2.145 and 4.357 us split), which the
// pack took before (vEUs of 224 threads then).
// RUN: rtile-opt %s --wavefront-pack="device=v100" | FileCheck %s --check-prefix=PACK
// RUN: rtile-opt %s --wavefront-pack="device=v100" --lower-to-gpu | FileCheck %s
// RUN: rtile-opt %s --wavefront-pack="device=v100" --lower-to-gpu --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each -o /dev/null
// The simulator runs the packed function end to end against the te oracle (its barriers
// counted per block: a thread missing one of a split rTask's tree barriers is reported as
// barrier divergence), on V100 and on H100 (vEUs of 224 threads there).
// RUN: rtile-opt %s --wavefront-pack="device=v100" --lower-to-gpu -o %t.v100.mlir
// RUN: rtile-run --sim %t.v100.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --wavefront-pack="device=h100" --lower-to-gpu -o %t.h100.mlir
// RUN: FileCheck %s --check-prefix=H100 < %t.h100.mlir
// RUN: rtile-run --sim %t.h100.mlir | FileCheck %s --check-prefix=SIM
// The LSTM at full width (hidden 256, 4 steps) on H200: its 16 gate GEMVs are rTasks of
// 32 threads × 8 lanes (vEUs of 256 threads, one per SM), checked end to end likewise.
// RUN: rtile-opt %S/../targets/Inputs/lstm-h256-4steps.mlir --wavefront-pack="device=h200" | FileCheck %s --check-prefix=LSTM-PACK
// RUN: rtile-opt %S/../targets/Inputs/lstm-h256-4steps.mlir --wavefront-pack="device=h200" --lower-to-gpu -o %t.lstm.mlir
// RUN: FileCheck %s --check-prefix=LSTM < %t.lstm.mlir
// RUN: rtile-run --sim %t.lstm.mlir | FileCheck %s --check-prefix=LSTM-SIM

func.func @g(%x: tensor<1x2048xf32>, %w: tensor<2048x64xf32>, %x2: tensor<1x128xf32>, %w2: tensor<128x32xf32>, %w3: tensor<512x16xf32>, %x3: tensor<1x512xf32>) -> (tensor<1x64xf32>, tensor<1x32xf32>, tensor<1x16xf32>) {
  %y = te.compute (%b, %n) reduce (%k) in [1, 64, 2048] : (tensor<1x2048xf32>, tensor<2048x64xf32>) -> tensor<1x64xf32> { te.sum(%x[%b, %k] * %w[%k, %n]) }
  %z = te.compute (%b, %n) reduce (%k) in [1, 32, 128] : (tensor<1x128xf32>, tensor<128x32xf32>) -> tensor<1x32xf32> { te.sum(%x2[%b, %k] * %w2[%k, %n]) }
  %u = te.compute (%b, %n) reduce (%k) in [1, 16, 512] : (tensor<1x512xf32>, tensor<512x16xf32>) -> tensor<1x16xf32> { te.sum(%x3[%b, %k] * %w3[%k, %n]) }
  func.return %y, %z, %u : tensor<1x64xf32>, tensor<1x32xf32>, tensor<1x16xf32>
}

// PACK: vdevice.device @g_vdevice {{{.*}}, smem = 42848 : i64, sms = 80 : i64, threads = 176 : i64, veus_per_sm = 2 : i64}
// PACK: vdevice.roperator @g_0 {kernel = 0 : i64, kernels = [{regs = 120 : i64, rtasks = 1 : i64, smem = 31488 : i64, threads = 176 : i64, us = 5.063000e+01 : f64},
// PACK: vdevice.roperator @g_1 {kernel = 0 : i64, kernels = [{regs = 104 : i64, rtasks = 1 : i64, smem = 29024 : i64, threads = 128 : i64, us = 2.128000e+00 : f64},
// PACK: vdevice.roperator @g_2 {kernel = 0 : i64, kernels = [{regs = 104 : i64, rtasks = 1 : i64, smem = 42848 : i64, threads = 128 : i64, us = 3.924000e+00 : f64}]}
// PACK:      vdevice.program @g_p0 on @g_vdevice [
// PACK-NEXT:   veu 0: @g_0[0]
// PACK-NEXT:   veu 1: @g_1[0]
// PACK-NEXT:   veu 2: @g_2[0]
// PACK-NEXT: ]
// The selected programs: 11, 4 and 4 threads, the footprints above.
// PACK: threads = 11, est_us = 66.12, {{.*}}footprint = [360, 27264,
// PACK: threads = 4, est_us = 6.345, {{.*}}footprint = [320, 24928,
// PACK: threads = 4, est_us = 12.52, {{.*}}footprint = [316, 40800,

// One persistent kernel: 3 vEUs of 176 threads, 42848 bytes of dynamic shared memory (the
// most of any rOperator: @g_2's staged tiles and tree).
// CHECK-LABEL: gpu.func @g_p0(
// CHECK-SAME: rtile.launch = {block = array<i32: 176, 1, 1>, dynamic_shared_memory = 42848 : i64, grid = array<i32: 3, 1, 1>}
// CHECK: %[[TID:.*]] = gpu.thread_id x
// Each rOperator's tree buffer, [outputs per thread][lanes][threads], after its staged tiles.
// CHECK: memref.view{{.*}} -> memref<6x16x11xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view{{.*}} -> memref<8x32x4xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view{{.*}} -> memref<4x32x4xf32, #gpu.address_space<workgroup>>
// Kind 0 fills the vEU: all 176 threads run @g_0's rTask, no guard: 11 threads × 16
// reduction lanes (lane = its thread id / 11): the partial sums to the tree buffer, a
// barrier, then a 4-level tree over the lanes, a block barrier each level.
// CHECK: arith.cmpi eq, %{{.*}}, %c0_i32
// CHECK-NOT: arith.cmpi ult, %[[TID]]
// CHECK: %[[T0:.*]] = gpu.thread_id x
// CHECK-NEXT: arith.remui %[[T0]], %c11
// CHECK-NEXT: arith.divui %[[T0]], %c11
// CHECK-COUNT-6: memref.store {{.*}} : memref<6x16x11xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: arith.cmpi ult, %{{.*}}, %c8
// CHECK: gpu.barrier
// CHECK-NEXT: arith.cmpi ult, %{{.*}}, %c4
// CHECK: gpu.barrier
// CHECK-NEXT: arith.cmpi ult, %{{.*}}, %c2
// CHECK: gpu.barrier
// CHECK-NEXT: arith.cmpi ult, %{{.*}}, %c1
// CHECK: gpu.barrier
// Kind 1: 128 of the 176 threads (4 × 32 lanes, lane = thread id / 4); the other 48 join
// all of its barriers: the one staged step's, the tree's 6 (32 lanes).
// CHECK: arith.cmpi eq, %{{.*}}, %c1_i32
// CHECK: arith.cmpi ult, %[[TID]], %c128
// CHECK: %[[T1:.*]] = gpu.thread_id x
// CHECK-NEXT: arith.remui %[[T1]], %c4
// CHECK-NEXT: arith.divui %[[T1]], %c4
// CHECK: } else {
// CHECK: %[[S1:.*]] = arith.constant 7 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[S1]] step
// CHECK-NEXT: gpu.barrier
// Kind 2 likewise: 128 threads (4 × 32 lanes), the other 48 join its 7 barriers.
// CHECK: arith.cmpi eq, %{{.*}}, %c2_i32
// CHECK: arith.cmpi ult, %[[TID]], %c128
// CHECK: %[[T2:.*]] = gpu.thread_id x
// CHECK-NEXT: arith.remui %[[T2]], %c4
// CHECK-NEXT: arith.divui %[[T2]], %c4
// CHECK: } else {
// CHECK: %[[S2:.*]] = arith.constant 7 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[S2]] step
// CHECK-NEXT: gpu.barrier
// CHECK: gpu.launch_func{{.*}}%c176

// On H100 @g_1 takes the 7-thread program as 7 × 32 lanes (Roller's 13.72 us unsplit,
// 2.222 us split), the widest rTask (224 threads); Roller's first, 4 threads (12.84 us
// unsplit, 128 threads split), was taken before (vEUs of 176 threads then).
// H100: rtile.launch = {block = array<i32: 224, 1, 1>, {{.*}}grid = array<i32: 3, 1, 1>}

// SIM: @g output 0: tensor<1x64xf32>, max relative error {{[0-9.]+}}e-{{[6-9]|[1-9][0-9]}}{{$}}
// SIM: @g output 1: tensor<1x32xf32>, max relative error {{[0-9.]+}}e-{{[6-9]|[1-9][0-9]}}{{$}}
// SIM: @g output 2: tensor<1x16xf32>, max relative error {{[0-9.]+}}e-{{[6-9]|[1-9][0-9]}}{{$}}

// LSTM-PACK: vdevice.device @lstm_vdevice {{{.*}}, threads = 256 : i64, veus_per_sm = 1 : i64}
// LSTM-PACK-COUNT-16: kernels = [{regs = 56 : i64, rtasks = 8 : i64, smem = 27136 : i64, threads = 256 : i64,
// LSTM-PACK-COUNT-16: threads = 32, est_us = 51.46,
// LSTM: gpu.func @lstm_p0(
// LSTM-SAME: rtile.launch = {block = array<i32: 256, 1, 1>, dynamic_shared_memory = 27136 : i64, grid = array<i32: 132, 1, 1>}
// LSTM-SIM: @lstm output 0: tensor<1x256xf32>, max relative error {{[0-9.]+}}e-{{[6-9]|[1-9][0-9]}}
// LSTM-SIM: @lstm output 1: tensor<1x256xf32>, max relative error {{[0-9.]+}}e-{{[6-9]|[1-9][0-9]}}
