// rtile-run --sim --profile: per kernel and per op, the simulator's analogue of the ncu
// memory metrics. Two blocks of 32 threads; thread t loads in[2t] (stride 2: 8 sectors for
// 4 sectors' worth of bytes), stores it to sh[32t] and reads it back after a barrier (every
// lane in bank 0: a 32-way conflict, 32 wavefronts where 1 would do), then stores out[t]
// (coalesced). Both blocks read the same 64 floats: 16 sectors requested, 8 distinct.
// Line numbers below are the ops' lines in this file.
// RUN: rtile-run --sim --profile %s | FileCheck %s --match-full-lines --strict-whitespace
// RUN: rtile-run --sim --profile=json %s | FileCheck %s --check-prefix=JSON
// RUN: rtile-run --sim --profile --profile-blocks=1 %s | FileCheck %s --check-prefix=SAMPLE
// RUN: not rtile-run --profile %s 2>&1 | FileCheck %s --check-prefix=NOSIM

// CHECK:@k: grid 2x1x1, block 32x1x1
// CHECK-NEXT:  blocks: all 2
// CHECK-NEXT:  global loads   requests 2  sectors 16  ideal sectors 8  coalescing 50.0%
// CHECK-NEXT:  global stores  requests 2  sectors 8  ideal sectors 8  coalescing 100.0%
// CHECK-NEXT:  distinct global sectors  read 8  written 8 (DRAM traffic when L2 holds the footprint)
// CHECK-NEXT:  shared loads   requests 2  wavefronts 64  ideal wavefronts 2  bank conflicts 62
// CHECK-NEXT:  shared stores  requests 2  wavefronts 64  ideal wavefronts 2  bank conflicts 62
// CHECK-NEXT:  barriers       2 (warp-level)
// CHECK-NEXT:  warp instructions 28: int 8, ld.global 2, st.global 2, ld.shared 2, st.shared 2, bar 2, control 2, other 8
// CHECK-NEXT:  line:col  op             class      warp-inst  requests   sectors     ideal    coal  wavefront conflicts
// CHECK-NEXT:  50:7      memref.load    ld.global          2         2        16         8   50.0%          -         -
// CHECK-NEXT:  52:7      memref.store   st.shared          2         2         -         2       -         64        62
// CHECK-NEXT:  53:7      gpu.barrier    bar                2         -         -         -       -          -         -
// CHECK-NEXT:  54:7      memref.load    ld.shared          2         2         -         2       -         64        62
// CHECK-NEXT:  57:7      memref.store   st.global          2         2         8         8  100.0%          -         -

// JSON: "kernel": "k"
// JSON: "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 62
// JSON: "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 16
// JSON: "rtile__coalescing_pipe_lsu_mem_global_op_ld.pct": 50.0
// JSON: "rtile__unique_sectors_global_op_ld.sum": 8
// JSON: "rtile__unique_sectors_global_op_st.sum": 8
// JSON: "location": "{{.*}}sim-profile.mlir:50:7"

// SAMPLE: sample: 1 of 2 blocks (spread over the grid; counts cover the sample; numerical check skipped)
// SAMPLE: global loads   requests 1  sectors 8  ideal sectors 4  coalescing 50.0%

// NOSIM: error: the following required arguments were not provided:
// NOSIM: --sim
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32>, memref<64xf32>) -> ()}> ({
    ^bb0(%in: memref<64xf32>, %out: memref<64xf32>, %sh: memref<1024xf32, #gpu.address_space<workgroup>>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %b = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c2 = "arith.constant"() <{value = 2 : index}> : () -> index
      %c32 = "arith.constant"() <{value = 32 : index}> : () -> index
      %i = "arith.muli"(%t, %c2) : (index, index) -> index
      %v = "memref.load"(%in, %i) : (memref<64xf32>, index) -> f32
      %s = "arith.muli"(%t, %c32) : (index, index) -> index
      "memref.store"(%v, %sh, %s) : (f32, memref<1024xf32, #gpu.address_space<workgroup>>, index) -> ()
      "gpu.barrier"() : () -> ()
      %w = "memref.load"(%sh, %s) : (memref<1024xf32, #gpu.address_space<workgroup>>, index) -> f32
      %bo = "arith.muli"(%b, %c32) : (index, index) -> index
      %o = "arith.addi"(%bo, %t) : (index, index) -> index
      "memref.store"(%w, %out, %o) : (f32, memref<64xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 2, 1, 1>}, sym_name = "k", workgroup_attributions = 1 : i64} : () -> ()
  }) : () -> ()
}) : () -> ()
