// The persistent-kernel lowering of a packed program (Rammer, OSDI'20 §4.1.3, Fig. 10):
// a matmul and a tanh on vEUs 0 and 1, and their sum on vEU 2 behind a barrier-rTask that
// waits on both (<0, 0>, <1, 0>). --lower-to-gpu makes one persistent kernel (one block per
// vEU, threads = the most of its rTasks: the matmul's 128, its program's 8 threads times
// the 16 lanes of its cross-thread reduction split, as the vdevice.device counted them:
// `RTaskShape::of`, the split `--lower-to-gpu` gives the matmul unpacked) and a step-array
// reset, and the host function launches the two; the module goes through mlir-opt-22 and
// runs in the simulator (blocks interleaved, the waiting block yields until the others have
// published).
// The matmul's rTask is timed as it runs, split (session 19): Roller's first program (13
// threads, 7.93 us unsplit; 208 threads split) was the one packed before; the 8-thread
// program (4x8x5 thread tiles, 12.52 us unsplit: one warp with 8 of its 32 lanes filled)
// models 2.43 us as 8 x 16 lanes (four full warps, each thread 1/16 of the reduction) and
// is the fastest variant now.
// RUN: rtile-opt %s --wavefront-pack="device=v100" | FileCheck %s --check-prefix=PACK
// RUN: rtile-opt %s --wavefront-pack="device=v100" --lower-to-gpu | FileCheck %s
// RUN: rtile-opt %s --wavefront-pack="device=v100" --lower-to-gpu --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each -o /dev/null
// RUN: rtile-opt %s --wavefront-pack="device=v100" --lower-to-gpu -o %t.mlir
// RUN: rtile-run --sim %t.mlir | FileCheck %s --check-prefix=SIM

func.func @f(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %a = te.compute (%i, %j) reduce (%k) in [4, 64, 64] : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32> { te.sum(%x[%i, %k] * %w[%k, %j]) }
  %b = te.compute (%i, %j) in [4, 64] : (tensor<4x64xf32>) -> tensor<4x64xf32> { tanh(%x[%i, %j]) }
  %c = te.compute (%i, %j) in [4, 64] : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32> { %a[%i, %j] + %b[%i, %j] }
  func.return %c : tensor<4x64xf32>
}

// PACK:      vdevice.program @f_p0 on @f_vdevice [
// PACK-NEXT:   veu 0: @f_0[0]
// PACK-NEXT:   veu 1: @f_1[0]
// PACK-NEXT:   veu 2: barrier [<0, 0>, <1, 0>], @f_2[0]
// PACK-NEXT: ]
// Each compute records the Roller rProgram of its selected rKernel.
// PACK: te.compute
// PACK: {rtile.program = #rtile.program<device = "v100"
// PACK-SAME: vdevice.rop = @f_0}

// The reset kernel zeroes the three step counters.
// CHECK-LABEL: gpu.func @f_steps_reset(%arg0: memref<3xi32>) kernel
// CHECK: memref.store %{{.*}}, %arg0[%{{.*}}] : memref<3xi32>

// The persistent kernel: the step array first, the schedule table second, then every
// buffer once; 3 blocks of 128. Each rOperator's body is in it once, under a switch on the
// table entry's kind inside one loop over the block's (vEU's) entries.
// CHECK-LABEL: gpu.func @f_p0(%arg0: memref<3xi32>, %arg1: memref<20xi32>, %arg2: memref<4x64xf32>, %arg3: memref<64x64xf32>, %arg4: memref<4x64xf32>, %arg5: memref<4x64xf32>, %arg6: memref<4x64xf32>) kernel
// CHECK-SAME: rtile.launch = {block = array<i32: 128, 1, 1>, dynamic_shared_memory = {{[0-9]+}} : i64, grid = array<i32: 3, 1, 1>}
// CHECK-SAME: rtile.persistent = {blocks_per_core = 1 : i64, coresident = {{[0-9]+}} : i64}
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: gpu.dynamic_shared_memory
// vEU `bid` runs entries start[bid] .. start[bid + 1]; an entry is (kind, first, count).
// CHECK: %[[NEXT:.*]] = arith.addi %[[BID]], %c1
// CHECK: %[[LO:.*]] = memref.load %arg1[%[[BID]]]
// CHECK: %[[HI:.*]] = memref.load %arg1[%[[NEXT]]]
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK: %[[E3:.*]] = arith.muli %[[E]], %c3
// CHECK: %[[AT:.*]] = arith.addi %[[E3]], %c4
// CHECK: %[[KIND:.*]] = memref.load %arg1[%[[AT]]]
// Kind 0, the matmul: its rTasks (block id remapped to the rTask id), its barriers (the
// k-steps', then the tree's over its 16 lanes: lane = thread id / 8), then thread 0
// publishes each: release fence, step[bid] += 1.
// CHECK: arith.cmpi eq, %[[KIND]], %c0_i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: scf.for %[[R0:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK: %[[T0:.*]] = gpu.thread_id x
// CHECK-NEXT: arith.remui %[[T0]], %c8
// CHECK-NEXT: arith.divui %[[T0]], %c8
// CHECK: arith.muli %[[R0]], %c4
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.*}}, %c8
// CHECK: gpu.barrier
// CHECK: arith.cmpi eq, %[[TID]], %c0
// CHECK-NEXT: scf.if
// CHECK-NEXT: "llvm.fence"() <{ordering = 5 : i64, syncscope = "agent"}>
// CHECK: "memref.atomic_rmw"(%{{.*}}, %arg0, %[[BID]]) <{kind = 1 : i64}>
// Kind 1, the tanh, has fewer threads: threads >= its count skip the body (it has no
// barrier, so they run none) and join the publishing barrier.
// CHECK: arith.cmpi eq, %[[KIND]], %c1_i32
// CHECK: arith.cmpi ult, %[[TID]],
// CHECK: "memref.atomic_rmw"(%{{.*}}, %arg0, %[[BID]]) <{kind = 1 : i64}>
// CHECK: arith.cmpi eq, %[[KIND]], %c2_i32
// CHECK: "memref.atomic_rmw"(%{{.*}}, %arg0, %[[BID]]) <{kind = 1 : i64}>
// Kind 3 = the operator count: a barrier-rTask over pairs first .. first + count of the
// table (from word 16); thread i takes pairs first + i, first + i + 128, ...: it spins until
// step[veu] > order (atomic reads; the dynamic wait is marked for the simulator's deadlock
// reports), acquires; then the block barrier.
// CHECK: arith.cmpi eq, %[[KIND]], %c3_i32
// CHECK: %[[P0:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// CHECK: scf.for %[[P:.*]] = %[[P0]] to %{{.*}} step %c128
// CHECK: %[[P2:.*]] = arith.muli %[[P]], %c2
// CHECK: arith.addi %[[P2]], %c16
// CHECK: "scf.while"() ({
// CHECK: "memref.atomic_rmw"(%{{.*}}, %arg0, %{{.*}}) <{kind = 14 : i64}>
// CHECK: arith.cmpi sle
// CHECK: scf.condition
// CHECK: rtile.wait = array<i64>
// CHECK-NEXT: "llvm.fence"() <{ordering = 4 : i64, syncscope = "agent"}>
// CHECK: gpu.barrier
// CHECK: gpu.return

// The schedule: start = [0, 1, 2, 4]; vEU 0: (kind 0, rTask 0, 1); vEU 1: (1, 0, 1);
// vEU 2: (3 = barrier, pair 0, 2 pairs), (2, 0, 1); pairs <0, 0>, <1, 0>.
// CHECK: "memref.global"() <{constant, initial_value = dense<[0, 1, 2, 4, 0, 0, 1, 1, 0, 1, 3, 0, 2, 2, 0, 1, 0, 0, 1, 0]> : tensor<20xi32>, sym_name = "__constant_f_p0_schedule"

// The host launches the reset, then the one persistent kernel (3 vEUs, 128 threads).
// CHECK-LABEL: func.func @f(
// CHECK: "gpu.launch_func"(%c1, %c1{{.*}}, %c1{{.*}}, %c3, %c1{{.*}}, %c1{{.*}}, %{{.*}}) <{kernel = @kernels::@f_steps_reset,
// CHECK: %[[TAB:.*]] = "memref.get_global"() <{name = @__constant_f_p0_schedule}> : () -> memref<20xi32>
// CHECK: "gpu.launch_func"(%c3{{.*}}, %c1{{.*}}, %c1{{.*}}, %c128, %c1{{.*}}, %c1{{.*}}, %{{.*}}, %[[TAB]], {{.*}}) <{kernel = @kernels::@f_p0,
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: vdevice.

// SIM: @f output 0: tensor<4x64xf32>, max relative error {{[0-9.]+}}e-{{[6-9]|[1-9][0-9]}}{{$}}
