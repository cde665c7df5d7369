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
  "func.func"() <{function_type = (i32, i32) -> (i32, i1), sym_name = "int_ops"}> ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "arith.addi"(%arg0, %arg1) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %1 = "arith.muli"(%0, %arg1) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %2 = "arith.subi"(%1, %arg0) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %3 = "arith.divsi"(%2, %arg1) : (i32, i32) -> i32
    %4 = "arith.remui"(%3, %arg0) : (i32, i32) -> i32
    %5 = "arith.andi"(%4, %arg1) : (i32, i32) -> i32
    %6 = "arith.ori"(%5, %arg0) : (i32, i32) -> i32
    %7 = "arith.xori"(%6, %arg1) : (i32, i32) -> i32
    %8 = "arith.shli"(%7, %arg0) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %9 = "arith.cmpi"(%8, %arg0) <{predicate = 2 : i64}> : (i32, i32) -> i1
    "func.return"(%8, %9) : (i32, i1) -> ()
  }) : () -> ()
}) : () -> ()

