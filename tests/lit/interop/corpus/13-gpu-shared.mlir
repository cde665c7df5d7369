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
    "gpu.func"() <{function_type = (memref<256xf32>, memref<256xf32>) -> (), known_block_size = array<i32: 64, 1, 1>}> ({
    ^bb0(%arg0: memref<256xf32>, %arg1: memref<256xf32>, %arg2: memref<64xf32, #gpu.address_space<workgroup>>):
      %0 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %2 = "arith.constant"() <{value = 64 : index}> : () -> index
      %3 = "arith.muli"(%1, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %4 = "arith.addi"(%3, %0) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %5 = "memref.load"(%arg0, %4) : (memref<256xf32>, index) -> f32
      "memref.store"(%5, %arg2, %0) : (f32, memref<64xf32, #gpu.address_space<workgroup>>, index) -> ()
      "gpu.barrier"() : () -> ()
      %6 = "arith.constant"() <{value = 63 : index}> : () -> index
      %7 = "arith.subi"(%6, %0) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %8 = "memref.load"(%arg2, %7) : (memref<64xf32, #gpu.address_space<workgroup>>, index) -> f32
      "memref.store"(%8, %arg1, %4) : (f32, memref<256xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "tile", workgroup_attributions = 1 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()

