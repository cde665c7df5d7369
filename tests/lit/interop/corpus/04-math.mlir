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
  "func.func"() <{function_type = (f32) -> f32, sym_name = "math_ops"}> ({
  ^bb0(%arg0: f32):
    %0 = "math.exp"(%arg0) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %1 = "math.log"(%0) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %2 = "math.sqrt"(%1) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %3 = "math.rsqrt"(%2) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %4 = "math.tanh"(%3) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %5 = "math.erf"(%4) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %6 = "math.absf"(%5) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
    %7 = "math.powf"(%6, %arg0) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    %8 = "math.fma"(%7, %arg0, %6) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
    "func.return"(%8) : (f32) -> ()
  }) : () -> ()
}) : () -> ()

