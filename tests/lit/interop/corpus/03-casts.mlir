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
  "func.func"() <{function_type = (f32, i32, f16) -> (f64, i8, f32, index, bf16), sym_name = "casts"}> ({
  ^bb0(%arg0: f32, %arg1: i32, %arg2: f16):
    %0 = "arith.extf"(%arg0) : (f32) -> f64
    %1 = "arith.trunci"(%arg1) <{overflowFlags = #arith.overflow<none>}> : (i32) -> i8
    %2 = "arith.sitofp"(%arg1) : (i32) -> f32
    %3 = "arith.index_cast"(%arg1) : (i32) -> index
    %4 = "arith.truncf"(%arg0) : (f32) -> bf16
    %5 = "arith.extf"(%arg2) : (f16) -> f32
    %6 = "arith.fptosi"(%5) : (f32) -> i32
    "func.return"(%0, %1, %2, %3, %4) : (f64, i8, f32, index, bf16) -> ()
  }) : () -> ()
}) : () -> ()

