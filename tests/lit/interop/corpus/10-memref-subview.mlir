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
  "func.func"() <{function_type = (memref<64x64xf32>, index) -> memref<8x8xf32, strided<[64, 1], offset: ?>>, sym_name = "subview"}> ({
  ^bb0(%arg0: memref<64x64xf32>, %arg1: index):
    %0 = "memref.subview"(%arg0, %arg1) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808, 0>, static_sizes = array<i64: 8, 8>, static_strides = array<i64: 1, 1>}> : (memref<64x64xf32>, index) -> memref<8x8xf32, strided<[64, 1], offset: ?>>
    "func.return"(%0) : (memref<8x8xf32, strided<[64, 1], offset: ?>>) -> ()
  }) : () -> ()
}) : () -> ()

