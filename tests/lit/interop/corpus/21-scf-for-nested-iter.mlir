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
  "func.func"() <{function_type = (memref<8x4xf32>, memref<4x8xf32>, memref<8x8xf32>) -> (), sym_name = "matmul"}> ({
  ^bb0(%arg0: memref<8x4xf32>, %arg1: memref<4x8xf32>, %arg2: memref<8x8xf32>):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "arith.constant"() <{value = 4 : index}> : () -> index
    %3 = "arith.constant"() <{value = 8 : index}> : () -> index
    %4 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    "scf.for"(%0, %3, %1) ({
    ^bb0(%arg3: index):
      "scf.for"(%0, %3, %1) ({
      ^bb0(%arg4: index):
        %5 = "scf.for"(%0, %2, %1, %4) ({
        ^bb0(%arg5: index, %arg6: f32):
          %6 = "memref.load"(%arg0, %arg3, %arg5) : (memref<8x4xf32>, index, index) -> f32
          %7 = "memref.load"(%arg1, %arg5, %arg4) : (memref<4x8xf32>, index, index) -> f32
          %8 = "arith.mulf"(%6, %7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %9 = "arith.addf"(%arg6, %8) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "scf.yield"(%9) : (f32) -> ()
        }) : (index, index, index, f32) -> f32
        "memref.store"(%5, %arg2, %arg3, %arg4) : (f32, memref<8x8xf32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

