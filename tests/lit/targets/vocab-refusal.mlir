// The gpu-level IR is one typed vocabulary (rtile-gpu-vocab's GpuOp): an op outside it
// inside a gpu.func is refused when the module is loaded, by every consumer, with a
// diagnostic naming the op, its gpu.func and its location (exit status 1).
// RUN: not rtile-translate --to-llvmir %s 2>&1 | FileCheck %s --check-prefix=LLVM
// RUN: not rtile-translate --to-hip %s 2>&1 | FileCheck %s --check-prefix=HIP
// RUN: not rtile-run --sim --check %s 2>&1 | FileCheck %s --check-prefix=SIM
// RUN: not rtile-run --sim --profile %s 2>&1 | FileCheck %s --check-prefix=SIM

// LLVM: vocab-refusal.mlir:20:7: error: rtile-translate: unsupported operation 'math.sinh' in gpu.func @k (it is not in the gpu-level vocabulary
// LLVM: 20 │ %z = "math.sinh"
// HIP: vocab-refusal.mlir:20:7: error: rtile-translate: unsupported operation 'math.sinh' in gpu.func @k
// SIM: vocab-refusal.mlir:20:7: error: rtile-run --sim: unsupported operation 'math.sinh' in gpu.func @k
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xf32>, memref<4xf32>) -> (), known_block_size = array<i32: 4, 1, 1>, known_grid_size = array<i32: 1, 1, 1>}> ({
    ^bb0(%in: memref<4xf32>, %out: memref<4xf32>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = "memref.load"(%in, %t) : (memref<4xf32>, index) -> f32
      %y = "math.exp"(%x) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      %z = "math.sinh"(%y) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "memref.store"(%z, %out, %t) : (f32, memref<4xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 4, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}, rtile.te = "", sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
