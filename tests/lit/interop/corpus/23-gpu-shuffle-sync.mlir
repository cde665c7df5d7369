// Upstream-dialect corpus file (func/arith/math/scf/cf/memref/vector/affine/gpu), stored in the
// generic form mlir-opt-22 prints for it. rtile parses it without knowing these dialects, prints it,
// mlir-opt-22 parses and verifies that, and rtile must print mlir-opt's output byte-identically.
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.rtile
// RUN: mlir-opt --mlir-print-op-generic %t.rtile > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.back
// RUN: diff %t.rtile %t.back
// And rtile reproduces mlir-opt's own generic printing of this file byte for byte.
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.ref
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.ref > %t.out
// RUN: diff %t.ref %t.out
"builtin.module"() ({
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<32xf32>, memref<1xf32>) -> ()}> ({
    ^bb0(%arg0: memref<32xf32>, %arg1: memref<1xf32>):
      %0 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = "memref.load"(%arg0, %0) : (memref<32xf32>, index) -> f32
      %2 = "arith.constant"() <{value = 16 : i32}> : () -> i32
      %3 = "arith.constant"() <{value = 32 : i32}> : () -> i32
      %4:2 = "gpu.shuffle"(%1, %2, %3) <{mode = #gpu<shuffle_mode xor>}> : (f32, i32, i32) -> (f32, i1)
      %5 = "arith.addf"(%1, %4#0) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %6 = "arith.constant"() <{value = 0 : index}> : () -> index
      %7 = "arith.cmpi"(%0, %6) <{predicate = 0 : i64}> : (index, index) -> i1
      "scf.if"(%7) ({
        "memref.store"(%5, %arg1, %6) : (f32, memref<1xf32>, index) -> ()
        "scf.yield"() : () -> ()
      }, {
      }) : (i1) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "reduce", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

