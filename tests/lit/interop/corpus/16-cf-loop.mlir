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
  "func.func"() <{function_type = (i32) -> i32, sym_name = "loop"}> ({
  ^bb0(%arg0: i32):
    %0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %1 = "arith.constant"() <{value = 1 : i32}> : () -> i32
    "cf.br"(%0, %0)[^bb1] : (i32, i32) -> ()
  ^bb1(%2: i32, %3: i32):  // 2 preds: ^bb0, ^bb2
    %4 = "arith.cmpi"(%2, %arg0) <{predicate = 2 : i64}> : (i32, i32) -> i1
    "cf.cond_br"(%4)[^bb2, ^bb3] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  ^bb2:  // pred: ^bb1
    %5 = "arith.addi"(%3, %2) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %6 = "arith.addi"(%2, %1) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    "cf.br"(%6, %5)[^bb1] : (i32, i32) -> ()
  ^bb3:  // pred: ^bb1
    "func.return"(%3) : (i32) -> ()
  }) : () -> ()
}) : () -> ()

